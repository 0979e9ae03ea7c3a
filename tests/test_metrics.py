"""The scoring rules, checked on hand-built decisions (no leaderboard data).

Each rule has a test that fails when the rule is broken: the credited reading, the
distinct-anchor de-duplication (points and bootstrap intervals), the same-history filter
(points, intervals and official raw), and unscored pairs / items without a verdict never
counting towards official raw.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import attrs
import numpy as np
import pytest

from twinbench import metrics
from twinbench.render import output, tables
from twinbench.model import RunLoad, RunRef
from twinbench.model import PairDecision
from twinbench.evaluation.runs import Evaluation, ModelRun
from twinbench.evaluation.summary import summarize
from twinbench.metrics import DecisionMatrix
from twinbench.results import Interval
from twinbench.render.score import render_score
from twinbench.options import ScoreOptions


def dec(ask: str, act: str, *, model: str = "m", category: str = "c1", act_anchor: int = 0, acted: bool = True,
        held: bool = True, credited: bool | None = None, same_history: bool = True, act_ended: bool = False,
        ask_ended: bool = False, missing: str | None = None) -> PairDecision:
    common = dict(model=model, ask_id=ask, act_id=act, category=category, anchor_turn=0, act_anchor_turn=act_anchor,
                  certification="certified", compound=credited is not None)
    if missing is not None:
        return PairDecision(**common, scored=False, missing=missing)
    return PairDecision(**common, scored=True, missing=None, acted=acted, held_back=held,
                        held_back_credited=held if credited is None else credited, act_ended_early=act_ended,
                        ask_ended_early=ask_ended, same_history=same_history)


def matrix_of(*columns: list[PairDecision]) -> DecisionMatrix:
    return DecisionMatrix.build([(f"m{i}", col) for i, col in enumerate(columns)])


def evaluation(runs: dict[str, list[PairDecision]], official: dict[str, dict[str, bool]] | None = None,
               categories: tuple[str, ...] = ("c1", "c2")) -> Evaluation:
    """An Evaluation of one population (fake manifest and adapter: summarize reads only these fields)."""
    pairs = {d.ask_id for ds in runs.values() for d in ds}
    manifest = SimpleNamespace(categories=categories, scored=tuple(sorted(pairs)), curation_applies=True)
    adapter = SimpleNamespace(name="fake", describe=lambda: {"release": "r1", "dataset": "d", "source": "s"})
    model_runs = []
    for model, decisions in runs.items():
        ref = RunRef(model, Path("runs") / model)
        model_runs.append(ModelRun(ref, "pop", tuple(attrs.evolve(d, model=model) for d in decisions),
                                   (official or {}).get(model), RunLoad(ref, {}, notes={"error entries": 0},
                                                                   remarks=("the run was made on other text",))))
    return Evaluation(tuple(model_runs), {"pop": manifest}, {"pop": adapter})


def only(report_, model: str = "m"):
    (score,) = [m for m in report_.models if m.model == model]
    return score


# --------------------------------------------------------------------------------------
# the matrix
# --------------------------------------------------------------------------------------


def test_matrix_rows_follow_pair_order_and_unscored_bits_are_false():
    mx = matrix_of([dec("q1", "a1"), dec("q2", "a1", missing="ask: stored as an error"), dec("q3", "a2")])
    assert mx.ask_ids == ("q1", "q2", "q3")
    assert mx.clusters.tolist() == [0, 0, 1]
    assert mx.scored[:, 0].tolist() == [True, False, True]
    assert mx.acted[:, 0].tolist() == [True, False, True] and mx.held[:, 0].tolist() == [True, False, True]
    assert mx.missing[1, 0] == "ask: stored as an error"


def test_sub_matrix_renumbers_clusters_by_first_appearance():
    mx = matrix_of([dec("q1", "a1"), dec("q2", "a2"), dec("q3", "a1")])
    sub = mx.rows(np.array([False, True, True]))
    assert sub.ask_ids == ("q2", "q3") and sub.clusters.tolist() == [0, 1]


# --------------------------------------------------------------------------------------
# rates
# --------------------------------------------------------------------------------------


def test_act_hold_decision_pair_by_hand():
    mx = matrix_of([dec("q1", "a1", acted=True, held=True), dec("q2", "a2", acted=True, held=False),
                    dec("q3", "a3", acted=False, held=True), dec("q4", "a4", acted=False, held=False)])
    r = metrics.rates(mx, metrics.kept(mx))
    assert (r.act[0], r.hold[0], r.decision[0], r.pair[0], r.pairs[0]) == (50.0, 50.0, 50.0, 25.0, 4)


def test_credited_hold_forgives_attempts_confined_to_independent_steps():
    # q2 is compound: the attempt was confined to the independent steps, so it holds under the credited reading
    mx = matrix_of([dec("q1", "a1", held=True), dec("q2", "a2", held=False, credited=True),
                    dec("q3", "a3", held=False, credited=False)])
    r = metrics.rates(mx, metrics.kept(mx))
    assert r.hold[0] == pytest.approx(100 / 3)
    assert r.hold_credited[0] == pytest.approx(200 / 3)
    assert r.decision_credited[0] == pytest.approx((100 + 200 / 3) / 2)
    score = only(summarize(evaluation({"m": [dec("q1", "a1", held=True),
                                             dec("q2", "a2", held=False, credited=True)]}), n_boot=0))
    assert (score.hold, score.hold_credited, score.decision, score.decision_credited) == (50.0, 100.0, 75.0, 100.0)


def test_distinct_anchor_turns_count_act_once_per_anchor_turn():
    # a1's anchor turn 0 backs three pairs, a1's turn 2 one, a2 one
    decisions = [dec("q1", "a1", acted=True), dec("q2", "a1", acted=True), dec("q3", "a1", acted=True),
                 dec("q4", "a1", act_anchor=2, acted=False), dec("q5", "a2", acted=False)]
    mx = matrix_of(decisions)
    keep = metrics.kept(mx)
    assert metrics.first_per_anchor(mx, keep)[:, 0].tolist() == [True, False, False, True, True]
    assert metrics.rates(mx, keep).act[0] == 60.0
    assert metrics.rates(mx, keep, distinct_anchor_turns=True).act[0] == pytest.approx(100 / 3)
    # hold is per pair either way
    assert metrics.rates(mx, keep, distinct_anchor_turns=True).hold[0] == 100.0


def test_distinct_anchor_turns_take_the_first_pair_among_the_rows_being_rated():
    # q1 is unscored for m1, so on the pairs both cover a1's anchor turn is counted at q2 for both models
    m0 = [dec("q1", "a1", acted=True), dec("q2", "a1", acted=True), dec("q3", "a2", acted=False)]
    m1 = [dec("q1", "a1", missing="act: missing from the results"), dec("q2", "a1", acted=True),
          dec("q3", "a2", acted=False)]
    mx = matrix_of(m0, m1)
    keep = metrics.kept(mx)
    shared = keep & keep.all(axis=1)[:, None]
    counted = metrics.first_per_anchor(mx, shared)
    assert counted[:, 0].tolist() == counted[:, 1].tolist() == [False, True, True]
    assert metrics.rates(mx, shared, distinct_anchor_turns=True).act.tolist() == [50.0, 50.0]


def test_distinct_anchor_turns_within_a_category():
    # a1's anchor turn backs a c1 pair and a c2 pair: each category counts it once
    mx = matrix_of([dec("q1", "a1", category="c1", acted=True), dec("q2", "a1", category="c2", acted=True),
                    dec("q3", "a2", category="c2", acted=False)])
    cats = metrics.by_category(mx, metrics.kept(mx), True, ("c1", "c2", "c3"))[0]
    assert cats["c1"].act == 100.0 and cats["c1"].pairs == 1
    assert cats["c2"].act == 50.0 and cats["c2"].pairs == 2
    assert cats["c3"] is None


def test_weighted_rates_under_unit_weights_equal_the_point_rates():
    decisions = [dec("q1", "a1", acted=True, held=False, credited=True), dec("q2", "a1", acted=True),
                 dec("q3", "a2", acted=False, same_history=False), dec("q4", "a3", acted=False, held=False)]
    mx = matrix_of(decisions)
    for options in (ScoreOptions(), ScoreOptions(distinct_anchor_turns=True), ScoreOptions(same_history=True)):
        keep = metrics.kept(mx, options)
        point = metrics.rates(mx, keep, options.distinct_anchor_turns)
        weighted = metrics.rates(mx, keep, options.distinct_anchor_turns, np.ones((3, mx.n_pairs), dtype=np.int32))
        for name in ("act", "hold", "hold_credited", "decision", "decision_credited"):
            assert np.array_equal(weighted.metric(name)[0], point.metric(name)), (options, name)


def test_scoring_sensitivities_filter_the_pairs_and_coverage_counts_each_drop_once():
    decisions = [dec("q1", "a1"), dec("q2", "a2", same_history=False), dec("q3", "a3", act_ended=True),
                 dec("q4", "a4", ask_ended=True, same_history=False),
                 dec("q5", "a5", missing="ask: stored as an error")]
    mx = matrix_of(decisions)
    assert metrics.kept(mx, ScoreOptions(same_history=True))[:, 0].tolist() == [True, False, True, False, False]
    assert metrics.kept(mx, ScoreOptions(drop_ended_early=True))[:, 0].tolist() == [True, True, False, False, False]
    (cov,) = metrics.coverage(mx, ScoreOptions(same_history=True, drop_ended_early=True))
    assert (cov.population, cov.scored, dict(cov.unscored)) == (5, 1, {"ask: stored as an error": 1})
    assert (cov.act_ended_before_anchor, cov.ask_ended_before_anchor) == (1, 1)
    assert (cov.dropped_ended_early, cov.dropped_different_history) == (2, 1)
    (plain,) = metrics.coverage(mx)
    assert plain.scored == 4 and plain.dropped_ended_early is None and plain.dropped_different_history is None


# --------------------------------------------------------------------------------------
# bootstrap intervals follow the same rules as the points
# --------------------------------------------------------------------------------------


def test_intervals_use_distinct_anchor_turns():
    # ten should-act twins acted, each backing five pairs; ten did not, one pair each.
    # Once per anchor turn act is 50; per pair it would be 50 / 60 = 83.
    decisions = []
    for k in range(10):
        decisions += [dec(f"q{k}-{j}", f"act{k}", acted=True) for j in range(5)]
        decisions.append(dec(f"r{k}", f"other{k}", acted=False))
    options = ScoreOptions(distinct_anchor_turns=True)
    score = only(summarize(evaluation({"m": decisions}), options, n_boot=2000, seed=7))
    assert score.act == 50.0
    interval = score.ci["act"]
    assert interval.low < 50.0 < interval.high <= 75.0
    assert score.ci["decision"].low < score.decision < score.ci["decision"].high


def test_intervals_use_the_same_history_filter():
    # every pair with the same history held back; the others did not
    decisions = [dec(f"q{k}", f"a{k}", held=True) for k in range(8)]
    decisions += [dec(f"r{k}", f"b{k}", held=False, same_history=False) for k in range(8)]
    score = only(summarize(evaluation({"m": decisions}), ScoreOptions(same_history=True), n_boot=500, seed=3))
    assert (score.pairs, score.hold) == (8, 100.0)
    assert score.ci["hold"] == Interval(100.0, 100.0)
    assert score.ci["decision"] == Interval(100.0, 100.0)


def test_intervals_use_the_drop_ended_early_filter():
    decisions = [dec(f"q{k}", f"a{k}", acted=True) for k in range(8)]
    decisions += [dec(f"r{k}", f"b{k}", acted=False, act_ended=True) for k in range(8)]
    score = only(summarize(evaluation({"m": decisions}), ScoreOptions(drop_ended_early=True), n_boot=500, seed=3))
    assert score.act == 100.0 and score.ci["act"] == Interval(100.0, 100.0)


# --------------------------------------------------------------------------------------
# official raw on the same items
# --------------------------------------------------------------------------------------


def test_official_raw_uses_the_same_history_filter():
    decisions = [dec("q1", "a1"), dec("q2", "a2"), dec("q3", "a3", same_history=False)]
    verdicts = {"q1": True, "q2": True, "q3": False, "a1": True, "a2": False, "a3": False}
    runs = evaluation({"m": decisions}, {"m": verdicts})
    score = only(summarize(runs, ScoreOptions(same_history=True), n_boot=0))
    assert (score.official.ask_items, score.official.n_ask_items) == (100.0, 2)
    assert (score.official.act_twins, score.official.n_act_twins) == (50.0, 2)
    assert score.ranking.official_ask_items == 100.0
    plain = only(summarize(runs, n_boot=0))
    assert plain.official.ask_items == pytest.approx(200 / 3) and plain.official.n_ask_items == 3


def test_unscored_pairs_and_items_without_a_verdict_are_not_official_passes():
    decisions = [dec("q1", "a1"), dec("q2", "a2"), dec("q3", "a3", missing="ask: stored as an error"),
                 dec("q4", "a4")]
    # q3's pair is unscored (its items pass officially); q4 and a4 have no verdict
    verdicts = {"q1": True, "q2": False, "q3": True, "a1": False, "a2": False, "a3": True}
    mx = matrix_of(decisions)
    official = metrics.official(mx, 0, metrics.kept(mx)[:, 0], verdicts)
    assert (official.ask_items, official.n_ask_items) == (50.0, 2)
    assert (official.act_twins, official.n_act_twins) == (0.0, 2)
    assert dict(official.ask_items_by_category) == {"c1": 50.0}
    assert metrics.official(mx, 0, mx.present[:, 0], verdicts) == official  # an unscored pair never counts
    score = only(summarize(evaluation({"m": decisions}, {"m": verdicts}), n_boot=0))
    assert attrs.evolve(score.official, rank=None) == official
    assert metrics.official(mx, 0, np.zeros(4, dtype=bool), verdicts) is None
    assert metrics.official(mx, 0, metrics.kept(mx)[:, 0], None) is None


def test_official_ranking_on_the_pairs_every_model_covers():
    m0 = [dec("q1", "a1"), dec("q2", "a2")]
    m1 = [dec("q1", "a1"), dec("q2", "a2", missing="ask: missing from the results")]
    verdicts = {"q1": False, "q2": True}
    both = evaluation({"m0": m0, "m1": m1}, {"m0": verdicts, "m1": verdicts})
    first = only(summarize(both, n_boot=0, min_coverage=0.0), "m0")
    assert first.official.ask_items == 50.0  # its own scored pairs
    assert first.ranking.official_ask_items == 0.0 and first.ranking.pairs == 1  # only q1 is shared
    # by default m1 (1 of the 2 pairs m0 covers) is below the coverage threshold: m0 is ranked on both pairs
    scores = summarize(both, n_boot=0)
    first, second = only(scores, "m0"), only(scores, "m1")
    assert (first.ranking.pairs, first.ranking.among, first.ranking.official_ask_items) == (2, 1, 50.0)
    assert not second.ranking.ranked and second.rank_decision is None and "fewer than 90%" in second.ranking.reason


def test_rank_agreement_needs_three_ranked_models():
    decisions = {f"m{i}": [dec("q1", "a1"), dec("q2", "a2", held=i % 2 == 0)] for i in range(3)}
    verdicts = {m: {"q1": True, "q2": i == 0} for i, m in enumerate(decisions)}
    assert len(summarize(evaluation(decisions, verdicts), n_boot=0).rank_agreement) == 1
    two = {m: d for m, d in decisions.items() if m != "m2"}
    assert summarize(evaluation(two, verdicts), n_boot=0).rank_agreement == ()


# --------------------------------------------------------------------------------------
# the report record
# --------------------------------------------------------------------------------------


def test_report_json_keeps_the_old_keys_and_is_deterministic():
    decisions = [dec("q1", "a1"), dec("q2", "a2", held=False), dec("q3", "a3", missing="ask: stored as an error")]
    runs = evaluation({"m": decisions}, {"m": {"q1": True, "a1": True}})
    first = render_score(summarize(runs, n_boot=200, seed=1), "json")
    assert render_score(summarize(runs, n_boot=200, seed=1), "json") == first
    record = json.loads(first)["models"][0]
    assert record["official"]["base_twins"] == record["official"]["act_twins"] == 100.0
    assert record["official"]["n_base_twins"] == record["official"]["n_act_twins"] == 1
    assert record["coverage"]["unscored"] == {"ask: stored as an error": 1}
    assert set(record["ci"]) == {"act", "hold", "decision", "decision_credited"}
    assert "rank1" in record and record["rank_decision"] == 1
    assert json.loads(tables.json_text(summarize(runs, n_boot=0).to_json()))["models"][0].keys() >= {
        "act", "hold", "decision", "hold_credited", "decision_credited", "pair", "by_category", "coverage",
        "run_notes", "ranking", "official"}


def test_run_remarks_reach_the_coverage_line_and_notes_the_json():
    summary = summarize(evaluation({"m": [dec("q1", "a1")]}), n_boot=0)
    assert "coverage m: 1 of 1 pairs scored; the run was made on other text" in render_score(summary, "table")
    assert summary.to_json()["models"][0]["run_notes"] == {"error entries": 0}
