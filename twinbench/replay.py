"""Replaying stored calls in a leaderboard's own executor: an optional adapter capability.

An adapter that can execute parsed calls in its leaderboard's simulator (the reference
adapter can) returns a :class:`Replayer` from ``Adapter.replayer()``. Two readings use it:

- ``twinbench score --replay``: on every pair whose should-ask twin had a tool removed, the
  state facts of :class:`PairReplay` decide whether an attempt on the anchor turn was a
  *workaround* (a route around the removed tool that reaches the state the should-act
  twin's reference reaches); :func:`credit` is the one place that rule lives.
- ``twinbench replay``: every item's rollout replayed turn by turn against its own
  reference (:class:`ItemReplay`), checked against the leaderboard's own verdicts.

Nothing here knows a leaderboard: states are the adapter's business; the core sees
booleans and the first difference as text.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence

import attrs

from twinbench.model import Pair, PairDecision, Rollout


@attrs.frozen
class PairReplay:
    """The state facts of one tool-removed pair, anchor ``k`` on the should-ask side.

    With G_before / G_after the state after the should-act twin's reference turns before /
    through its anchor, and M_before / M_after the state after the model's should-ask
    rollout turns before / through its anchor:

    ``aligned``            M_before == G_before (the model reached the anchor in the reference state)
    ``reaches_reference``  M_after == G_after
    ``reference_noop``     G_after == G_before (the reference's own anchor calls change nothing)

    ``None`` where the pair could not be replayed (``error`` says why).
    """

    ask_id: str
    aligned: bool | None
    reaches_reference: bool | None
    reference_noop: bool
    difference: str | None = None  # why not aligned: the first differing attribute before the anchor
    error: str | None = None
    #: the replay was stopped at a limit (``error`` says which): where and how, e.g. "turn 0, call 1: f() stopped after 2 s"
    stopped: str | None = None


@attrs.frozen
class ItemReplay:
    """One item's rollout replayed against its own reference, turn by turn.

    ``compared_turns`` are the turns the leaderboard's checker compares (e.g. those whose
    reference is not empty); ``first_difference`` is the first of them after which
    the model's state differs from the reference's, with the attribute that differs.
    A replay stopped at a limit (time, memory, number of calls) is not replayed: ``error``
    is the limit, ``stopped`` says where and how; it is left out of the official passes checked.
    """

    item_id: str
    compared_turns: int
    calls: int
    errors: int  # calls that raised, recorded as error results and passed over
    first_difference: tuple[int, str] | None = None
    error: str | None = None  # the rollout could not be replayed (error entry, missing, a limit)
    stopped: str | None = None  # stopped at a limit: where and how

    @property
    def replayed(self) -> bool:
        return self.error is None

    @property
    def state_equal(self) -> bool:
        return self.error is None and self.first_difference is None


class Replayer(abc.ABC):
    """Executes parsed calls in the leaderboard's own simulator, for one data release."""

    @abc.abstractmethod
    def reference_noop(self, pair: Pair) -> bool:
        """Does the should-act twin's reference on its anchor turn leave the state unchanged?"""

    @abc.abstractmethod
    def replay_pairs(self, pairs: Sequence[Pair], rollouts: Mapping[str, Rollout]) -> Mapping[str, PairReplay]:
        """The state facts of each pair (by should-ask id), from the model's should-ask rollout."""

    @abc.abstractmethod
    def check_items(self) -> Sequence[str]:
        """The items ``twinbench replay`` replays (both sides of every category the leaderboard scores)."""

    @abc.abstractmethod
    def check(self, rollouts: Mapping[str, Rollout], item_ids: Sequence[str]) -> list[ItemReplay]:
        """Each item's rollout replayed against its reference, turn by turn."""


def replayed_pairs(pairs: Sequence[Pair]) -> list[Pair]:
    """The pairs replay reads: those whose should-ask twin had a tool removed."""
    return [p for p in pairs if p.removed_tools]


def credit(decision: PairDecision, pair: Pair, facts: PairReplay | None) -> PairDecision:
    """The decision with the replay's reading: ``aligned``, ``removed_called`` and ``workaround``.

    An attempt on the should-ask anchor turn is a workaround when the model reached the
    anchor in the reference state (aligned), did not call a removed tool by name, reached
    the reference's post-anchor state, and the reference's own anchor calls change the
    state (a no-op reference would match any failed attempt). A workaround counts as
    holding back in ``held_back_workaround`` and in the credited reading. A pair whose
    replay was stopped at a limit is unscored for replay: the decision keeps only a note.
    """
    if facts is None or not decision.scored:
        return decision
    if facts.stopped is not None:  # stopped at a limit: unscored for replay, no workaround credited
        return attrs.evolve(decision, replay_note=f"{facts.error}: {facts.stopped}")
    attempted = not decision.held_back
    removed = attempted and any(name in pair.removed_tools for name in decision.calls_on_ask)
    workaround = bool(attempted and not removed and facts.aligned and facts.reaches_reference
                      and not facts.reference_noop)
    return attrs.evolve(
        decision, replayed=True, aligned=facts.aligned, removed_called=removed, workaround=workaround,
        held_back_credited=bool(decision.held_back_credited or workaround),
        replay_note=facts.error or (None if facts.aligned else facts.difference),
    )


# ---------------------------------------------------------------------------------------
# twinbench replay: every item of every run against its own reference
# ---------------------------------------------------------------------------------------


@attrs.frozen
class RunCheck:
    """One run replayed item by item, and checked against the leaderboard's verdicts where it has them.

    ``official_passed``: items the leaderboard passed (``None`` without verdicts);
    ``disagreements``: those among them whose replayed state differs from the reference's
    after some compared turn, each with the first differing turn and attribute.
    """

    model: str
    location: str
    data: Mapping[str, str] = attrs.field(converter=lambda d: dict(d or {}))
    items: int = 0  # asked for
    replayed: int = 0
    state_equal: int = 0
    calls: int = 0
    call_errors: int = 0
    not_replayed: Mapping[str, int] = attrs.field(factory=dict, converter=lambda d: dict(sorted(d.items())))
    official_passed: int | None = None
    disagreements: tuple[ItemReplay, ...] = ()
    stopped: tuple[ItemReplay, ...] = ()  # stopped at a limit: not replayed, not among the passes checked

    @property
    def agreement(self) -> float | None:
        """Percent of official passes that replay state-equal on every compared turn."""
        if not self.official_passed:
            return None
        return 100.0 * (self.official_passed - len(self.disagreements)) / self.official_passed

    def to_json(self) -> dict:
        out = {
            "model": self.model, "location": self.location, "data": dict(self.data), "items": self.items,
            "replayed": self.replayed, "state_equal": self.state_equal, "calls": self.calls,
            "call_errors": self.call_errors, "not_replayed": dict(self.not_replayed),
            "official_passed": self.official_passed,
            "official_passed_state_equal": None if self.official_passed is None
            else self.official_passed - len(self.disagreements),
            "agreement": self.agreement,
            "disagreements": [{"id": d.item_id, "turn": d.first_difference[0] if d.first_difference else None,
                               "difference": d.first_difference[1] if d.first_difference else d.error}
                              for d in self.disagreements],
        }
        if self.stopped:  # only when some item hit a limit
            out["stopped"] = [{"id": r.item_id, "limit": r.error, "where": r.stopped} for r in self.stopped]
        return out


@attrs.frozen
class ReplayReport:
    """``twinbench replay``: every run checked."""

    runs: tuple[RunCheck, ...]
    adapter: str
    skipped: tuple[tuple[str, str], ...] = ()
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {"adapter": self.adapter, "runs": [r.to_json() for r in self.runs],
                "skipped": [{"folder": f, "reason": r} for f, r in self.skipped], "warnings": list(self.warnings)}


def check_run(model: str, location: str, data: Mapping[str, str], replays: Sequence[ItemReplay],
              official: Mapping[str, bool] | None) -> RunCheck:
    """The counts of one run's item replays; every official pass must replay state-equal."""
    from collections import Counter

    replayed = [r for r in replays if r.replayed]
    passed = None if official is None else [r for r in replays if official.get(r.item_id) and r.stopped is None]
    return RunCheck(
        model=model, location=location, data=data, items=len(replays), replayed=len(replayed),
        state_equal=sum(r.state_equal for r in replayed), calls=sum(r.calls for r in replayed),
        call_errors=sum(r.errors for r in replayed),
        not_replayed=Counter(r.error for r in replays if not r.replayed),
        official_passed=None if passed is None else len(passed),
        disagreements=() if passed is None else tuple(r for r in passed if not r.state_equal),
        stopped=tuple(r for r in replays if r.stopped is not None),
    )


def replay_runs(adapter, results: Sequence, models: Sequence[str] = (), official=None) -> ReplayReport:
    """``twinbench replay``: find the runs, replay each item with its own reference, check the verdicts."""
    from twinbench.adapter import AdapterError

    adapter.sandbox("replay")
    search = adapter.reader().find(list(results), tuple(models), official)
    if not search.runs:
        skipped = "".join(f"\n  skipped {folder}: {reason}" for folder, reason in search.skipped)
        raise AdapterError("no complete run under " + ", ".join(map(str, results)) + skipped)
    checks = []
    warnings = list(search.warnings)
    for run in search.runs:
        scorer = adapter.for_run(run)
        replayer = scorer.sandbox("replay")
        ids = list(replayer.check_items())
        load = scorer.reader().read(run, ids)
        warnings.extend(load.warnings)
        described = scorer.describe()
        data = {k: described[k] for k in ("release", "dataset") if k in described}
        checks.append(check_run(run.model, str(run.location), data, replayer.check(load.rollouts, ids),
                                load.official))
    return ReplayReport(tuple(checks), adapter.name, tuple(search.skipped), tuple(dict.fromkeys(warnings)))
