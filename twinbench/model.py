"""Plain immutable records passed between twinbench's stages.

Nothing here knows a leaderboard. An adapter turns its leaderboard's files into
these records; discovery, decisions, scoring and reports only ever see them.
"""

from __future__ import annotations

import enum
from typing import Any

import attrs


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


@attrs.frozen
class Item:
    """One dialogue of a leaderboard, with its category and the side it is on."""

    id: str
    category: str
    side: Side
    turns: tuple[Turn, ...]


@attrs.frozen
class Certification:
    """The curation verdict on one pair's anchor.

    ``status`` is ``certified``, ``construction_error`` or ``uncertified`` (no
    curation applies). ``independent`` lists the world-changing steps a compound
    turn authorizes independently of what was withheld (used by the credited
    reading); ``gated`` those that depend on it.
    """

    status: str
    reason: str = ""
    compound: bool = False
    independent: tuple[str, ...] = ()
    gated: tuple[str, ...] = ()


UNCERTIFIED = Certification(status="uncertified", reason="no curation applies to this data")


@attrs.frozen
class Pair:
    """A content-verified twin pair: the same request with and without one piece of information.

    ``status`` is ``scored`` or ``excluded``; ``reason`` says why. ``anchor_turn`` is the
    anchor's index in the should-ask item, ``act_anchor_turn`` in the should-act item.
    ``removed_tools`` are tools offered on the should-act anchor turn but not on the
    should-ask one: a call to one of them on the should-ask side still counts.
    """

    ask_id: str
    act_id: str
    category: str
    anchor_turn: int
    act_anchor_turn: int
    perturbation: Perturbation
    removed_tools: tuple[str, ...]
    decision_bearing: str  # "mutate", "login_only", "read_only"
    reference_anchor_calls: tuple[str, ...]
    certification: Certification
    status: str
    reason: str
    notes: tuple[str, ...] = ()

    @property
    def scored(self) -> bool:
        return self.status == "scored"


@attrs.frozen
class Drop:
    """A should-ask item that did not become a pair, and why."""

    id: str
    category: str
    stage: str
    reason: str


@attrs.frozen
class FunctionEffect:
    """The effect label of one tool function, with its reason and where it came from."""

    name: str
    owner: str
    label: Effect
    reason: str
    origin: str = "table"  # "table" (hand-made, with its reason) or "source" (derived from the code)
    notes: tuple[tuple[str, str], ...] = ()  # e.g. ("analyzer_disagrees", why the table differs from the code)
