"""What a run is made of: where it is, its rollouts, the leaderboard's verdicts, one decision per pair."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from pathlib import Path

import attrs

from twinbench.model.items import Call
from twinbench.model.pickling import _interned, _pickled_by_constructor


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
    #: what the reader could not read on the turns it read, as ``(turn, kind, excerpt)`` (the kinds of
    #: ``twinbench.reading.UNREAD_KINDS``); ``None``: the reader does not say per turn (then no side is
    #: unscored for an unreadable call, and the run's counts are the reader's own ``RunLoad.unread``)
    unread: tuple[tuple[int, str, str], ...] | None = None

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

    def unread_on(self, turn: int) -> tuple[tuple[str, str], ...] | None:
        """What the reader could not read on one turn, as ``(kind, excerpt)``; ``None`` when it does not say."""
        if self.unread is None:
            return None
        return tuple((kind, excerpt) for at, kind, excerpt in self.unread if at == turn)

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
    #: a leaderboard whose own score is graded (e.g. a similarity in [0, 1]): the score per item, with
    #: ``official`` holding the pass at ``official_pass_at`` (score >= threshold), the threshold the reader states
    official_scores: Mapping[str, float] | None = None
    official_pass_at: float | None = None


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
    #: what was not read as a call on the should-act / should-ask anchor turn, as ``(kind, excerpt)``: the
    #: reader's kinds, and ``name_not_on_tool_list`` for a call named off the side's tool list; ``None``
    #: when the side's rollout is unavailable or its reader does not say per turn
    act_unread: tuple[tuple[str, str], ...] | None = None
    ask_unread: tuple[tuple[str, str], ...] | None = None
