"""Every rate twinbench reports, computed one way from one decision matrix.

A population's decisions become one :class:`DecisionMatrix`: (pairs x models) boolean
arrays, rows in pair order. Every rate below is the share of the counted rows where a bit
holds, through the one rate formula of :mod:`twinbench.stats` (``100 * numerator /
denominator`` in percent, NaN where nothing counts), either on the original sample or under
bootstrap weights (``(B, P)``, one row per resample).

keep      which decisions count: scored, and under :class:`~twinbench.scoring.ScoreOptions`
          only pairs with the same history in both twins (``same_history``) and without a
          rollout that ended before its anchor (``drop_ended_early``)
act       an attempt on the should-act anchor turn; with ``distinct_anchor_turns`` only the
          first kept pair (in pair order) of each distinct should-act anchor turn
          (``act_id``, ``act_anchor_turn``) counts, among the rows being rated
hold      no attempt on the should-ask anchor turn
hold credited: on compound turns an attempt confined to the independent steps is not acting
decision  (act + hold) / 2: balanced accuracy, 50 for any policy that ignores the information
decision credited: (act + hold credited) / 2
pair      both sides right

Official raw is the leaderboard's pass rate on the kept pairs' items, over the items that have
a verdict.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import attrs
import numpy as np

from twinbench.metrics import stats
from twinbench.metrics.point import first_seen_rows, official_of
from twinbench.model import PairDecision
from twinbench.options import ScoreOptions
from twinbench.results import (
    CategoryScore,
    Coverage,
    OfficialScore,
    ReplayCounts,
    balanced,
)

_BITS = ("present", "scored", "acted", "held", "held_credited", "same_history", "act_ended_early", "ask_ended_early",
         "replayed", "aligned", "removed_called", "workaround")
#: the replay bits, read off the decision fields of the same name (all False without ``score --replay``)
_REPLAY_BITS = ("replayed", "aligned", "removed_called", "workaround")


def _first_seen(keys: Iterable) -> np.ndarray:
    """Number each key by its first appearance."""
    ids: dict = {}
    return np.array([ids.setdefault(k, len(ids)) for k in keys], dtype=np.int64)


@attrs.frozen(eq=False)
class DecisionMatrix:
    """One population's decisions, row ``p`` a pair, column ``m`` a model (a run).

    Every bit array is ``(P, M)`` bool; where a pair is unscored for a model its decision
    bits are False. ``present`` marks the pairs a model has a decision on (scored or not).
    """

    models: tuple[str, ...]
    ask_ids: tuple[str, ...]
    act_ids: tuple[str, ...]
    categories: tuple[str, ...]
    act_anchor_turns: tuple[int, ...]
    present: np.ndarray
    scored: np.ndarray
    acted: np.ndarray
    held: np.ndarray
    held_credited: np.ndarray
    same_history: np.ndarray
    act_ended_early: np.ndarray
    ask_ended_early: np.ndarray
    missing: np.ndarray  # (P, M) object: why unscored, None where scored or absent
    replayed: np.ndarray  # the pair was replayed (its should-ask twin had a tool removed)
    aligned: np.ndarray
    removed_called: np.ndarray
    workaround: np.ndarray

    @classmethod
    def build(cls, columns: Sequence[tuple[str, Sequence[PairDecision]]]) -> DecisionMatrix:
        """The matrix of (model label, that model's decisions) columns; rows in first-seen pair order."""
        rows, index = first_seen_rows(columns)
        shape = (len(rows), len(columns))
        bits = {name: np.zeros(shape, dtype=bool) for name in _BITS}
        missing = np.full(shape, None, dtype=object)
        # the decision fields each bit is read from (``None``: unknown history is not the same history)
        fields = {"acted": "acted", "held": "held_back", "held_credited": "held_back_credited",
                  "same_history": "same_history", "act_ended_early": "act_ended_early",
                  "ask_ended_early": "ask_ended_early", **{name: name for name in _REPLAY_BITS}}
        for m, (_, decisions) in enumerate(columns):  # one column at a time, each bit set in one step
            present = [index[d.ask_id] for d in decisions]
            bits["present"][present, m] = True
            scored = [(i, d) for i, d in zip(present, decisions) if d.scored]
            for i, d in zip(present, decisions):
                if not d.scored:
                    missing[i, m] = d.missing
            if not scored:
                continue
            rows_scored = [i for i, _ in scored]
            bits["scored"][rows_scored, m] = True
            for bit, field in fields.items():
                bits[bit][rows_scored, m] = [bool(getattr(d, field)) for _, d in scored]
        pairs = list(rows.values())
        return cls(tuple(label for label, _ in columns), tuple(d.ask_id for d in pairs), tuple(d.act_id for d in pairs),
                   tuple(d.category for d in pairs), tuple(d.act_anchor_turn for d in pairs), missing=missing, **bits)

    @property
    def n_pairs(self) -> int:
        return len(self.ask_ids)

    @property
    def clusters(self) -> np.ndarray:
        """``(P,)`` the bootstrap cluster of each pair: its should-act twin, numbered by first appearance."""
        return _first_seen(self.act_ids)

    @property
    def anchors(self) -> np.ndarray:
        """``(P,)`` the distinct should-act anchor turn of each pair, numbered by first appearance."""
        return _first_seen(zip(self.act_ids, self.act_anchor_turns))

    def columns(self, index: Sequence[int] | np.ndarray) -> DecisionMatrix:
        """The matrix of the models at ``index`` (column numbers), in that order; the arrays are views."""
        index = np.asarray(index, dtype=np.intp)
        return attrs.evolve(
            self, models=tuple(self.models[i] for i in index), missing=self.missing[:, index],
            **{name: getattr(self, name)[:, index] for name in _BITS},
        )

    def rows(self, mask: np.ndarray) -> DecisionMatrix:
        """The matrix on the rows where ``mask`` (``(P,)`` bool) holds, in the same order."""
        index = np.flatnonzero(mask)

        def pick(values: tuple) -> tuple:
            return tuple(values[i] for i in index)

        return attrs.evolve(
            self, ask_ids=pick(self.ask_ids), act_ids=pick(self.act_ids), categories=pick(self.categories),
            act_anchor_turns=pick(self.act_anchor_turns), missing=self.missing[index],
            **{name: getattr(self, name)[index] for name in _BITS},
        )


def kept(matrix: DecisionMatrix, options: ScoreOptions = ScoreOptions()) -> np.ndarray:
    """``(P, M)``: the decisions that count under the options."""
    keep = matrix.scored.copy()
    if options.same_history:
        keep &= matrix.same_history
    if options.drop_ended_early:
        keep &= ~(matrix.act_ended_early | matrix.ask_ended_early)
    return keep


def first_per_anchor(matrix: DecisionMatrix, keep: np.ndarray) -> np.ndarray:
    """``(P, M)``: per model, the first row of ``keep`` (in pair order) of each distinct should-act anchor turn."""
    anchors = matrix.anchors
    out = np.zeros(keep.shape, dtype=bool)
    for m in range(keep.shape[1]):
        rows = np.flatnonzero(keep[:, m])
        _, first = np.unique(anchors[rows], return_index=True)
        out[rows[first], m] = True
    return out


def value(x: float) -> float | None:
    """A rate as a plain float, None where nothing counted (NaN)."""
    x = float(x)
    return None if np.isnan(x) else x


def _rates(act: np.ndarray, hold: np.ndarray, rows: np.ndarray, weights: np.ndarray | None,
           hold_credited: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """stats' rates (act, hold, [hold_credited]) of ``rows``: ``(M,)`` each, or ``(B, M)`` under weights."""
    if weights is None:
        return stats.point_rates(act, hold, rows, hold_credited=hold_credited)
    return stats.bootstrap_decision(act, hold, rows, weights, hold_credited=hold_credited)


@attrs.frozen(eq=False)
class Rates:
    """Rates per model, in percent: ``(M,)`` arrays on the sample, ``(B, M)`` under bootstrap weights."""

    pairs: np.ndarray  # (M,) the kept pairs of each model (unweighted)
    act: np.ndarray
    hold: np.ndarray
    hold_credited: np.ndarray
    pair: np.ndarray | None  # on the sample only (no interval is reported for it)

    @property
    def decision(self) -> np.ndarray:
        return balanced(self.act, self.hold)

    @property
    def decision_credited(self) -> np.ndarray:
        return balanced(self.act, self.hold_credited)

    def metric(self, name: str) -> np.ndarray:
        return getattr(self, name)


def rates(matrix: DecisionMatrix, keep: np.ndarray, distinct_anchor_turns: bool = False,
          weights: np.ndarray | None = None) -> Rates:
    """Every rate on the rows of ``keep`` (``(P, M)``), optionally under ``(B, P)`` bootstrap weights."""
    sides = _rates(matrix.acted, matrix.held, keep, weights, hold_credited=matrix.held_credited)
    act = sides["act"]
    if distinct_anchor_turns:
        act = _rates(matrix.acted, matrix.held, first_per_anchor(matrix, keep), weights)["act"]
    pair = None
    if weights is None:
        both = matrix.acted & matrix.held
        pair = _rates(both, both, keep, None)["act"]
    return Rates(pairs=keep.sum(axis=0), act=act, hold=sides["hold"], hold_credited=sides["hold_credited"], pair=pair)


def decision_workaround(matrix: DecisionMatrix, keep: np.ndarray, distinct_anchor_turns: bool = False) -> np.ndarray:
    """``(M,)`` the decision with each workaround counted as holding back (compound turns not credited)."""
    act = rates(matrix, keep, distinct_anchor_turns).act
    held = matrix.held | matrix.workaround
    return (act + _rates(held, held, keep, None)["hold"]) / 2


def replay_counts(matrix: DecisionMatrix, keep: np.ndarray) -> list[ReplayCounts]:
    """Per model, on its kept replayed pairs: attempts on the should-ask anchor turn, how many called a
    removed tool by name, how many were aligned, and the workarounds."""
    rows = keep & matrix.replayed
    attempts = rows & ~matrix.held
    return [ReplayCounts(pairs=int(rows[:, m].sum()), attempts=int(attempts[:, m].sum()),
                         removed=int((attempts & matrix.removed_called)[:, m].sum()),
                         aligned=int((attempts & matrix.aligned)[:, m].sum()),
                         workaround=int((rows & matrix.workaround)[:, m].sum()))
            for m in range(len(matrix.models))]


def by_category(matrix: DecisionMatrix, keep: np.ndarray, distinct_anchor_turns: bool = False,
                categories: Sequence[str] = ()) -> list[dict[str, CategoryScore | None]]:
    """Per model, the rates on each category's kept pairs (None where it has none)."""
    cats = list(categories) or sorted(set(matrix.categories))
    out: list[dict[str, CategoryScore | None]] = [{} for _ in matrix.models]
    for cat in cats:
        in_cat = np.array([c == cat for c in matrix.categories], dtype=bool)
        r = rates(matrix, keep & in_cat[:, None], distinct_anchor_turns)
        for m, scores in enumerate(out):
            scores[cat] = None if not r.pairs[m] else CategoryScore(
                pairs=int(r.pairs[m]), act=float(r.act[m]), hold=float(r.hold[m]),
                hold_credited=float(r.hold_credited[m]))
    return out


def coverage(matrix: DecisionMatrix, options: ScoreOptions = ScoreOptions()) -> list[Coverage]:
    """Per model: the population, the pairs that count, why the rest do not.

    Each pair a sensitivity drops is counted once: ended early first, then a different
    history among the rest.
    """
    keep = kept(matrix, options)
    out = []
    for m in range(len(matrix.models)):
        scored = matrix.scored[:, m]
        reasons = Counter(matrix.missing[i, m] for i in np.flatnonzero(matrix.present[:, m] & ~scored))
        act_ended, ask_ended = matrix.act_ended_early[:, m] & scored, matrix.ask_ended_early[:, m] & scored
        ended = act_ended | ask_ended
        different = scored & ~matrix.same_history[:, m] & (~ended if options.drop_ended_early else True)
        out.append(Coverage(
            population=int(matrix.present[:, m].sum()),
            scored=int(keep[:, m].sum()),
            unscored=dict(sorted(reasons.items())),
            act_ended_before_anchor=int(act_ended.sum()),
            ask_ended_before_anchor=int(ask_ended.sum()),
            dropped_ended_early=int(ended.sum()) if options.drop_ended_early else None,
            dropped_different_history=int(different.sum()) if options.same_history else None,
        ))
    return out


def official(matrix: DecisionMatrix, column: int, rows: np.ndarray,
             verdicts: Mapping[str, bool] | None, graded: Mapping[str, float] | None = None,
             pass_at: float | None = None) -> OfficialScore | None:
    """Official raw of model ``column`` on the should-ask items of its scored pairs among ``rows`` (``(P,)``
    bool, e.g. its kept pairs), and on their should-act twins: :func:`twinbench.metrics.point.official_of`
    (with ``graded`` scores and their ``pass_at`` threshold, their means too)."""
    if verdicts is None:
        return None
    return official_of(matrix, [int(i) for i in np.flatnonzero(rows & matrix.scored[:, column])], verdicts,
                       graded, pass_at)
