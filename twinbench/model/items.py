"""What a leaderboard's items are made of: calls, turns, items, the perturbation they declare, tool effects.

Nothing here knows a leaderboard. An adapter turns its leaderboard's files into these records.
"""

from __future__ import annotations

import enum
from typing import Any

import attrs

from twinbench.model.pickling import _pickled_by_constructor


class Side(str, enum.Enum):
    """Which decision an item calls for on its anchor turn."""

    ACT = "should_act"
    ASK = "should_ask"


class Effect(str, enum.Enum):
    """What a successful call does to the world the leaderboard checks."""

    MUTATE = "mutate"
    READ = "read"
    LOGIN = "login"


class Perturbation(str, enum.Enum):
    """How a should-ask item was made from its should-act twin."""

    VALUE_REMOVED = "value_removed"  # a value was taken out of the user's words
    TOOL_REMOVED = "tool_removed"  # a tool was taken out of the tool list
    BOTH = "value_and_tool_removed"
    UNDETECTED = "undetected"  # the anchor turns look the same on both sides



@attrs.frozen
class DeclaredPerturbation:
    """What the leaderboard says it removed to make a should-ask item from its twin.

    ``removed`` names the piece: the held-out parameter for a value removal, the tool's
    name for a tool removal. Discovery checks the declaration against the content.
    """

    kind: Perturbation
    removed: str


@_pickled_by_constructor
@attrs.frozen
class Call:
    """One structurally parsed tool call.

    ``args`` keeps positional arguments (reference strings use them, and so do
    some models); ``kwargs`` keeps keyword arguments in their written order.
    """

    name: str
    args: tuple[Any, ...] = ()
    kwargs: tuple[tuple[str, Any], ...] = ()

    @property
    def short_name(self) -> str:
        """The function name without a class qualifier (``Cls.mv`` -> ``mv``)."""
        return self.name.rsplit(".", 1)[-1]

    def argument(self, keyword: str, position: int | None = None) -> Any:
        """The value passed as ``keyword=`` or at ``position``; ``None`` when absent."""
        for key, value in self.kwargs:
            if key == keyword:
                return value
        if position is not None and position < len(self.args):
            return self.args[position]
        return None

    def render(self) -> str:
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs]
        return f"{self.name}({', '.join(parts)})"


@_pickled_by_constructor
@attrs.frozen
class Turn:
    """One turn of an item: what the user said, what tools were offered, and the reference.

    ``reference_text`` keeps the reference call strings as the leaderboard wrote them
    (discovery compares them character for character); ``reference`` holds them parsed.
    """

    index: int
    user_text: tuple[str, ...]
    tools: tuple[str, ...]
    reference: tuple[Call, ...]
    reference_text: tuple[str, ...]

    @property
    def reference_is_empty(self) -> bool:
        return not self.reference_text


@_pickled_by_constructor
@attrs.frozen
class Item:
    """One dialogue of a leaderboard, with its category and the side it is on.

    ``family`` groups the items of one underlying scenario (the family graph). A
    should-ask item may carry its complete twin inline (``twin``, like HELM's contrast
    inputs) and say what was removed (``perturbation``); discovery still verifies both
    by content.
    """

    id: str
    category: str
    side: Side
    turns: tuple[Turn, ...]
    family: str | None = None
    twin: Item | None = attrs.field(default=None, repr=False)
    perturbation: DeclaredPerturbation | None = None



@attrs.frozen
class FunctionEffect:
    """The effect label of one tool function, with its reason and where it came from."""

    name: str
    owner: str
    label: Effect
    reason: str
    origin: str = "table"  # "table" (hand-made, with its reason) or "source" (derived from the code)
    notes: tuple[tuple[str, str], ...] = ()  # e.g. ("analyzer_disagrees", why the table differs from the code)


# ---------------------------------------------------------------------------------------
# model outputs
# ---------------------------------------------------------------------------------------


