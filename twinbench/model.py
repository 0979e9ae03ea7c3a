"""Plain immutable records passed between twinbench's stages.

Nothing here knows a leaderboard. An adapter turns its leaderboard's files into
these records; discovery, decisions, scoring and reports only ever see them.
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Mapping
from pathlib import Path
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


class PairStatus(enum.StrEnum):
    """Whether a content-verified pair is scored."""

    SCORED = "scored"
    EXCLUDED = "excluded"


class Bearing(enum.StrEnum):
    """What the should-act reference does on the anchor turn, by the adapter's action rule."""

    ACTION = "mutate"  # at least one call counts as acting
    LOGIN_ONLY = "login_only"  # only calls that act under --count-login
    NO_ACTION = "read_only"  # no call counts as acting


class CertificationStatus(enum.StrEnum):
    CERTIFIED = "certified"
    CONSTRUCTION_ERROR = "construction_error"
    UNCERTIFIED = "uncertified"  # no curation applies


def _interned(value: Any) -> Any:
    """A plain ``str`` interned (one shared copy); anything else (a ``str`` subclass) as it is."""
    return sys.intern(value) if type(value) is str else value


def _pickled_by_constructor(cls: type) -> type:
    """Pickle instances as a call of ``cls`` with their field values, in order.

    Loading then runs attrs' generated ``__init__`` instead of its ``__setstate__`` loop: about
    twice as fast, in half the bytes, for the records the cache and the workers carry by the
    thousand. Only for classes whose every field is a positional ``__init__`` argument.
    """
    import copyreg
    import operator

    fields = attrs.fields(cls)
    if len(fields) < 2 or not all(f.init and not f.kw_only for f in fields):
        raise TypeError(f"{cls.__name__}: needs two or more fields, each a positional __init__ argument")
    values = operator.attrgetter(*(f.name for f in fields))

    def __reduce__(self):
        if type(self) is cls:
            return cls, values(self)
        return copyreg.__newobj__, (type(self),), self.__getstate__()  # a subclass: attrs' own state

    cls.__reduce__ = __reduce__
    return cls


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


@_pickled_by_constructor
@attrs.frozen
class Certification:
    """The curation verdict on one pair's anchor.

    ``status`` is ``certified``, ``construction_error`` or ``uncertified`` (no
    curation applies). ``independent`` lists the world-changing steps a compound
    turn authorizes independently of what was withheld (used by the credited
    reading); ``gated`` those that depend on it.
    """

    status: CertificationStatus
    reason: str = ""
    compound: bool = False
    independent: tuple[str, ...] = ()
    gated: tuple[str, ...] = ()


UNCERTIFIED = Certification(status=CertificationStatus.UNCERTIFIED, reason="no curation applies to this data")


@_pickled_by_constructor
@attrs.frozen
class Pair:
    """A content-verified twin pair: the same request with and without one piece of information.

    ``status`` is scored or excluded; ``reason`` says why. ``anchor_turn`` is the
    anchor's index in the should-ask item, ``act_anchor_turn`` in the should-act item.
    ``removed_tools`` are tools offered on the should-act anchor turn but not on the
    should-ask one: a call to one of them on the should-ask side still counts.
    ``removed`` is what the leaderboard declared it removed (a parameter or a tool), if it did.
    """

    ask_id: str
    act_id: str
    category: str
    anchor_turn: int
    act_anchor_turn: int
    perturbation: Perturbation
    removed_tools: tuple[str, ...]
    decision_bearing: Bearing
    reference_anchor_calls: tuple[str, ...]
    certification: Certification
    status: PairStatus
    reason: str
    notes: tuple[str, ...] = ()
    removed: str | None = None

    @property
    def scored(self) -> bool:
        return self.status is PairStatus.SCORED


@attrs.frozen
class Drop:
    """A should-ask item that did not become a pair, and why."""

    id: str
    category: str
    stage: str
    reason: str


@attrs.frozen
class ActFate:
    """What became of a should-act item: the twin of some pairs, or why it is the twin of none."""

    id: str
    category: str
    twin_of: tuple[str, ...]  # the should-ask items it is the verified twin of
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


# ---------------------------------------------------------------------------------------
# model outputs
# ---------------------------------------------------------------------------------------


@attrs.frozen
class Rollout:
    """One model's stored output for one item: calls per turn, or why there are none.

    ``turns`` holds, per turn the rollout reached, the calls parsed out of each step
    (one tuple per step). ``error`` is set when the leaderboard stored an error instead
    of a rollout, or the rollout could not be read; then the item is unscored for that
    model, never read as "no call".
    """

    item_id: str
    turns: tuple[tuple[tuple[Call, ...], ...] | None, ...] | None
    error: str | None = None
    #: the stored output is not a rollout at all (wrong shape): unscored as "unreadable rollout"
    unreadable: bool = False
    #: per turn, per step, the natural-language text of a step that gave no call ("" for none);
    #: empty when the reader keeps no text (see :func:`twinbench.calls.step_text`)
    texts: tuple[tuple[str, ...], ...] = ()

    def calls_on(self, turn: int) -> tuple[Call, ...] | None:
        """All calls of one turn; ``()`` when the rollout ended before it; ``None`` on error.

        A reader asked for some turns only leaves the others unread (``None`` in ``turns``);
        asking for one of those is a programming error, not "no call".
        """
        if self.turns is None:
            return None
        if turn >= len(self.turns):
            return ()
        steps = self.turns[turn]
        if steps is None:
            raise LookupError(f"turn {turn} of {self.item_id} was not read")
        return tuple(call for step in steps for call in step)

    def ended_before(self, turn: int) -> bool:
        return self.turns is not None and turn >= len(self.turns)

    def texts_on(self, turn: int) -> tuple[str, ...]:
        """The non-empty texts of one turn's steps (``()`` when none, or when no text was kept)."""
        if turn >= len(self.texts) or self.texts[turn] is None:  # past the end, or a turn not read
            return ()
        return tuple(text for text in self.texts[turn] if text)


class FailureKind(enum.StrEnum):
    """How the leaderboard's own scorer failed an item, as far as twinbench tells kinds apart."""

    EMPTY_TURN = "empty_turn"  # a turn that needed calls had none
    MISMATCH = "mismatch"  # the state or the responses after a turn differ from the reference's
    OTHER = "other"  # anything else (the run was cut short, inference failed, an unknown type)


@attrs.frozen
class OfficialFailure:
    """Why and where the leaderboard's own scorer failed one item.

    ``turn`` is the turn its error names (``None`` when it names none); ``error`` is the
    leaderboard's own name for the failure, shown as it is.
    """

    kind: FailureKind
    turn: int | None
    error: str = ""


@attrs.frozen
class RunRef:
    """One model's run on the leaderboard, as found on disk."""

    model: str
    location: Path
    details: Mapping[str, str] = attrs.field(factory=dict)
    #: adapter-private data about the run (file lists, ...); not compared, not shown
    payload: object = attrs.field(default=None, eq=False, repr=False)


@attrs.frozen
class RunLoad:
    """What reading one run gave: rollouts by item id, plus everything worth a warning.

    ``notes`` are counts for the JSON output (``run_notes``); ``remarks`` are sentences
    shown as they are in the coverage line of the table (e.g. "dialogue differs ...").
    """

    run: RunRef
    rollouts: Mapping[str, Rollout]
    warnings: tuple[str, ...] = ()
    notes: Mapping[str, object] = attrs.field(factory=dict)
    #: the leaderboard's own pass/fail per item, when the reader found it alongside the outputs
    official: Mapping[str, bool] | None = None
    remarks: tuple[str, ...] = ()
    #: steps that looked like a call but gave none, per kind (see ``twinbench.calls.UNREAD_KINDS``)
    unread: Mapping[str, int] = attrs.field(factory=dict)
    #: a few of them, as (kind, "item turn N: excerpt")
    unread_examples: tuple[tuple[str, str], ...] = ()
    #: for the items ``official`` fails, the kind of failure and the turn it names (when the reader found them)
    official_failures: Mapping[str, OfficialFailure] | None = None


@attrs.frozen
class RunSearch:
    """Runs found under the user's paths, and the folders skipped with their reason."""

    runs: tuple[RunRef, ...]
    skipped: tuple[tuple[str, str], ...] = ()
    warnings: tuple[str, ...] = ()


@_pickled_by_constructor
@attrs.frozen
class PairDecision:
    """One model's decision on both sides of one pair (or why the pair is unscored).

    ``acted``: an attempt on the should-act anchor turn; ``held_back``: none on the
    should-ask anchor turn; ``held_back_credited``: held back, or (on a compound turn)
    attempts confined to the steps the turn authorizes on its own.
    """

    # interned: every model's decisions share one copy of each name and id (memory flat in N)
    model: str = attrs.field(converter=_interned)
    ask_id: str = attrs.field(converter=_interned)
    act_id: str = attrs.field(converter=_interned)
    category: str = attrs.field(converter=_interned)
    anchor_turn: int
    act_anchor_turn: int
    certification: str
    compound: bool
    scored: bool
    missing: str | None  # why unscored: "<side>: <reason>" (coarse, for counting)
    acted: bool | None = None
    held_back: bool | None = None
    held_back_credited: bool | None = None
    calls_on_act: tuple[str, ...] = ()
    calls_on_ask: tuple[str, ...] = ()
    attempts_on_ask: tuple[str, ...] = ()
    act_ended_early: bool = False
    ask_ended_early: bool = False
    same_history: bool | None = None
    missing_detail: str | None = None  # the stored error message(s), when there are any
    #: names called on either anchor turn that are on neither tool list (no call of the suite)
    off_list: tuple[str, ...] = ()
    #: set by ``score --replay`` on pairs whose should-ask twin had a tool removed (see :mod:`twinbench.replay`)
    replayed: bool = False
    aligned: bool | None = None  # reached the anchor in the reference state
    removed_called: bool | None = None  # the attempt called a removed tool by name
    workaround: bool | None = None  # an aligned attempt that reached the reference's post-anchor state
    replay_note: str | None = None  # why not aligned (first difference), or why not replayed
    #: the attempts themselves, with their arguments, on the should-act and the should-ask anchor turn
    act_attempt_calls: tuple[Call, ...] = ()
    ask_attempt_calls: tuple[Call, ...] = ()
