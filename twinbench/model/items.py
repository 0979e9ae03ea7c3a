"""What a leaderboard's items are made of: calls, turns, items, the perturbation they declare, tool effects.

Nothing here knows a leaderboard. An adapter turns its leaderboard's files into these records.
"""

from __future__ import annotations

import enum
import hashlib
import json
from collections.abc import Iterable, Mapping
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



def _names(value: str | Iterable[str]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


@attrs.frozen
class DeclaredPerturbation:
    """What the leaderboard says it removed to make a should-ask item from its twin.

    ``removed`` names every removed piece: the held-out parameters for a value removal, the
    tools' names for a tool removal (one name, or several: a leaderboard may withhold several
    tools at once). Discovery checks the declaration against the content: for a tool removal,
    exactly these tools must be missing from the should-ask side.
    """

    kind: Perturbation
    removed: tuple[str, ...] = attrs.field(converter=_names)

    @property
    def text(self) -> str:
        """The removed pieces as one string (``a, b``), as outputs show them."""
        return ", ".join(self.removed)


@attrs.frozen
class StartingWorld:
    """The state an item starts from, as one fingerprint per part, so twins can be checked for it.

    A stateful leaderboard's item starts from a world (BFCL's ``initial_config`` per simulator
    class, ToolSandbox's databases): two items are twins only if they start from the same one.
    ``parts`` holds, per part name (a class, a database), the SHA-256 of its canonical JSON;
    ``volatile`` names what was left out because it is set from the clock when the item is built
    (``"MESSAGING.creation_timestamp"``). Build it with :meth:`of`.
    """

    parts: tuple[tuple[str, str], ...]
    volatile: tuple[str, ...] = ()

    @classmethod
    def of(cls, state: Mapping[str, Any], volatile: Mapping[str, Iterable[str]] | None = None) -> StartingWorld:
        """Fingerprint ``state`` (part name -> JSON-like value), leaving out the ``volatile`` keys of each
        part (dropped from a mapping, or from every row of a list of mappings)."""
        drop = {part: frozenset(keys) for part, keys in (volatile or {}).items()}
        parts = []
        for name in sorted(state):
            value = _without(state[name], drop.get(name, frozenset()))
            text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr)
            parts.append((str(name), hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()))
        left_out = sorted(f"{part}.{key}" for part, keys in drop.items() if part in state for key in keys)
        return cls(tuple(parts), tuple(left_out))

    def difference(self, other: StartingWorld) -> str | None:
        """How ``other`` starts elsewhere (``"SETTING differs"``), or ``None`` when the worlds are the same."""
        mine, theirs = dict(self.parts), dict(other.parts)
        if mine == theirs:
            return None
        differ = sorted(k for k in mine.keys() & theirs.keys() if mine[k] != theirs[k])
        only_mine = sorted(mine.keys() - theirs.keys())
        only_theirs = sorted(theirs.keys() - mine.keys())
        said = [f"{', '.join(differ)} {'differs' if len(differ) == 1 else 'differ'}"] if differ else []
        said += [f"only one side has {', '.join(names)}" for names in (only_mine, only_theirs) if names]
        return "; ".join(said)


def _without(value: Any, keys: frozenset[str]) -> Any:
    if not keys:
        return value
    if isinstance(value, Mapping):
        return {k: v for k, v in value.items() if k not in keys}
    if isinstance(value, (list, tuple)):
        return [_without(v, keys) if isinstance(v, Mapping) else v for v in value]
    return value


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
    by content. ``world`` is the state the item starts from (``None``: stateless, or not
    known); twins must start from the same one.

    ``simulated_user``: the leaderboard generates the user's later turns (a simulated user
    answers the model), so only the scripted turns are the item's ``turns``, and a rollout's
    last scripted turn holds everything the model did until the conversation ended.
    """

    id: str
    category: str
    side: Side
    turns: tuple[Turn, ...]
    family: str | None = None
    twin: Item | None = attrs.field(default=None, repr=False)
    perturbation: DeclaredPerturbation | None = None
    world: StartingWorld | None = None
    simulated_user: bool = False



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


