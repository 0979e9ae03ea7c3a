"""What a model did around its decisions: the paper's diagnostics, read off the records.

Every figure is counted on the pairs a model's scores count (scored, and kept by the scoring
sensitivities), from its :class:`~twinbench.model.PairDecision` records, the rollouts of its
:class:`~twinbench.model.RunLoad` and, when the reader found them, the leaderboard's own
verdicts and failures. Nothing here knows a leaderboard. The rules, each in one place:

held back       a should-ask anchor turn with no attempt (``PairDecision.held_back``);
  silent        held back, and no step of the anchor turn holds text (``Rollout.texts``); not
                told (``None``) when the run keeps text on no step at all (and holds back somewhere);
  looked up first  held back, with a call on the anchor turn's tool list (none of which counts
                as acting, since the turn holds no attempt): the model looked something up;
placeholder     an attempt with an argument that is an empty string or a marker
                (:data:`PLACEHOLDER_MARKERS`, a ``<...>`` value, or any value containing
                "placeholder"), inside lists and records too; the share is over the attempts
                (calls) on the should-ask anchor turns, and on the should-act anchor turns;
held back, lost of the held-back should-ask items the leaderboard fails, where: before the
                anchor turn, on a later turn with an empty-turn failure, or on a later turn
                with a mismatch (state or responses), by the turn and kind of the failure;
pass side       of the should-ask items the leaderboard passes, the percent with an attempt on
                the anchor turn (the verdict does not look at that turn);
withheld calls  of the pairs whose should-ask side withholds a tool and has an attempt on the
                anchor turn, those whose attempts call a withheld tool by name, and the others.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

import attrs

from twinbench.model import (
    Call,
    FailureKind,
    OfficialFailure,
    Pair,
    PairDecision,
    Rollout,
    RunLoad,
)

__all__ = [
    "PLACEHOLDER_MARKERS",
    "Diagnostics",
    "HeldBack",
    "HeldBackLost",
    "PassSide",
    "Placeholders",
    "WithheldCalls",
    "calls_withheld_tool",
    "diagnose",
    "has_placeholder",
    "is_placeholder",
    "looked_up_first",
    "lost_where",
    "silent",
    "stores_text",
]

#: argument values (compared stripped and case-blind) that stand for a value nobody gave
PLACEHOLDER_MARKERS: frozenset[str] = frozenset({
    "", "?", "??", "???", "tbd", "tba", "todo", "unknown", "placeholder", "n/a", "xxx", "...", "\u2026",
})
_ANGLE_VALUE = re.compile(r"^<[^<>]+>$")  # <user_id>, <to be filled>
_MAX_DEPTH = 8

#: where a held-back item the leaderboard fails was lost (see :func:`lost_where`)
BEFORE_ANCHOR = "before_anchor"
LATER_EMPTY_TURN = "later_empty_turn"
LATER_MISMATCH = "later_mismatch"


def is_placeholder(value: Any, depth: int = 0) -> bool:
    """Is this argument value (or a value inside it) an empty string or a placeholder marker?"""
    if isinstance(value, str):
        text = value.strip().lower()
        return text in PLACEHOLDER_MARKERS or bool(_ANGLE_VALUE.match(text)) or "placeholder" in text
    if depth >= _MAX_DEPTH:
        return False
    if isinstance(value, (list, tuple)):
        return any(is_placeholder(v, depth + 1) for v in value)
    if isinstance(value, Mapping):
        return any(is_placeholder(v, depth + 1) for v in value.values())
    return False


def has_placeholder(call: Call) -> bool:
    """Does any argument of this call carry a placeholder?"""
    return any(is_placeholder(v) for v in call.args) or any(is_placeholder(v) for _, v in call.kwargs)


def stores_text(rollouts: Iterable[Rollout]) -> bool:
    """Does any step of these rollouts hold text? (Some harnesses keep only the calls.)"""
    return any(text for r in rollouts for turn in r.texts if turn is not None for text in turn)


def silent(decision: PairDecision, ask: Rollout | None) -> bool:
    """Held back, and no step of the should-ask anchor turn holds text."""
    return bool(decision.held_back) and (ask is None or not ask.texts_on(decision.anchor_turn))


def looked_up_first(decision: PairDecision) -> bool:
    """Held back, with a call of the anchor turn's tool list there (so none that acts)."""
    return bool(decision.held_back) and bool(decision.calls_on_ask)


def lost_where(anchor_turn: int, failure: OfficialFailure | None) -> str | None:
    """Where an item the leaderboard fails was lost, relative to its anchor turn; ``None`` when not told.

    The failure's turn is before the anchor (``before_anchor``), or after it with an empty
    turn (``later_empty_turn``) or a mismatch (``later_mismatch``). A failure naming no turn,
    naming the anchor itself, or of another kind is not placed.
    """
    if failure is None or failure.turn is None:
        return None
    if failure.turn < anchor_turn:
        return BEFORE_ANCHOR
    if failure.turn > anchor_turn:
        if failure.kind is FailureKind.EMPTY_TURN:
            return LATER_EMPTY_TURN
        if failure.kind is FailureKind.MISMATCH:
            return LATER_MISMATCH
    return None


def calls_withheld_tool(decision: PairDecision, pair: Pair) -> bool:
    """Does an attempt on the should-ask anchor turn call a tool the pair withholds, by name?"""
    withheld = set(pair.removed_tools)
    return any(c.name in withheld for c in decision.ask_attempt_calls)


def _percent(part: int, whole: int) -> float | None:
    return 100.0 * part / whole if whole else None


@attrs.frozen
class HeldBack:
    """Held-back should-ask anchor turns, the silent ones (``None``: not told) and those that looked up first."""

    turns: int
    silent: int | None
    looked_up_first: int

    def to_json(self) -> dict:
        return {"turns": self.turns, "silent": self.silent, "looked_up_first": self.looked_up_first}


@attrs.frozen
class Placeholders:
    """Attempts with a placeholder argument, on the should-ask and on the should-act anchor turns."""

    ask_calls: int
    ask_marked: int
    act_calls: int
    act_marked: int

    @property
    def ask(self) -> float | None:
        return _percent(self.ask_marked, self.ask_calls)

    @property
    def act(self) -> float | None:
        return _percent(self.act_marked, self.act_calls)

    def to_json(self) -> dict:
        return {"ask": self.ask, "act": self.act}


@attrs.frozen
class HeldBackLost:
    """Of the held-back should-ask items the leaderboard fails, where they were lost.

    The three places are ``None`` when the reader found verdicts but no failure kinds.
    """

    failed: int
    before_anchor: int | None
    later_empty_turn: int | None
    later_mismatch: int | None

    def to_json(self) -> dict:
        return {"failed": self.failed, "before_anchor": self.before_anchor,
                "later_empty_turn": self.later_empty_turn, "later_mismatch": self.later_mismatch}


@attrs.frozen
class PassSide:
    """Of the should-ask items the leaderboard passes, how many had an attempt on the anchor turn."""

    passed: int
    attempted: int

    @property
    def share(self) -> float | None:
        return _percent(self.attempted, self.passed)


@attrs.frozen
class WithheldCalls:
    """Pairs withholding a tool with an attempt on the should-ask anchor: calling a withheld tool, or others."""

    removed_name: int
    other: int

    def to_json(self) -> dict:
        return {"removed_name": self.removed_name, "other": self.other}


@attrs.frozen
class Diagnostics:
    """One model's diagnostics on the pairs its scores count (``None``: no verdicts to read them from)."""

    pairs: int
    held_back: HeldBack
    placeholders: Placeholders
    withheld_calls: WithheldCalls
    held_back_lost: HeldBackLost | None = None
    pass_side: PassSide | None = None
    stores_text: bool = True

    def to_json(self) -> dict:
        return {
            "held_back": self.held_back.to_json(),
            "placeholders": self.placeholders.to_json(),
            "held_back_lost": None if self.held_back_lost is None else self.held_back_lost.to_json(),
            "pass_side_attempt": None if self.pass_side is None else self.pass_side.share,
            "withheld_calls": self.withheld_calls.to_json(),
        }


def diagnose(decisions: Sequence[PairDecision], pairs: Sequence[Pair], load: RunLoad,
             counted: Collection[str] | None = None) -> Diagnostics:
    """One model's diagnostics on its scored decisions whose should-ask id is in ``counted`` (default: all)."""
    by_ask = {p.ask_id: p for p in pairs}
    rows = [d for d in decisions if d.scored and (counted is None or d.ask_id in counted)]
    texts = stores_text(load.rollouts.values())
    held = [d for d in rows if d.held_back]
    held_back = HeldBack(
        turns=len(held),
        silent=sum(silent(d, load.rollouts.get(d.ask_id)) for d in held) if texts or not held else None,
        looked_up_first=sum(looked_up_first(d) for d in held),
    )
    ask_calls = [c for d in rows for c in d.ask_attempt_calls]
    act_calls = [c for d in rows for c in d.act_attempt_calls]
    placeholders = Placeholders(ask_calls=len(ask_calls), ask_marked=sum(map(has_placeholder, ask_calls)),
                                act_calls=len(act_calls), act_marked=sum(map(has_placeholder, act_calls)))
    withholding = [d for d in rows if not d.held_back and by_ask[d.ask_id].removed_tools]
    removed = sum(calls_withheld_tool(d, by_ask[d.ask_id]) for d in withholding)
    withheld = WithheldCalls(removed_name=removed, other=len(withholding) - removed)
    lost = passed = None
    verdicts = load.official
    if verdicts is not None:
        judged = [d for d in rows if d.ask_id in verdicts]
        failed = [d for d in judged if d.held_back and not verdicts[d.ask_id]]
        places: dict[str, int] | None = None
        if load.official_failures is not None:
            found = [lost_where(d.anchor_turn, load.official_failures.get(d.ask_id)) for d in failed]
            places = {where: found.count(where) for where in (BEFORE_ANCHOR, LATER_EMPTY_TURN, LATER_MISMATCH)}
        lost = HeldBackLost(failed=len(failed), **(places or dict.fromkeys(
            (BEFORE_ANCHOR, LATER_EMPTY_TURN, LATER_MISMATCH))))
        passing = [d for d in judged if verdicts[d.ask_id]]
        passed = PassSide(passed=len(passing), attempted=sum(not d.held_back for d in passing))
    return Diagnostics(pairs=len(rows), held_back=held_back, placeholders=placeholders, withheld_calls=withheld,
                       held_back_lost=lost, pass_side=passed, stores_text=texts)
