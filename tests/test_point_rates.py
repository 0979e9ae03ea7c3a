"""The point figures in plain Python are the numpy matrix's, bit for bit, and a score without resampling loads no numpy."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
from builders import tiny_package
from conftest import REPO
from hypothesis import given, settings
from hypothesis import strategies as st

from twinbench import metrics
from twinbench.metrics import point, ranking
from twinbench.model import PairDecision
from twinbench.options import ScoreOptions

MAYBE = st.sampled_from([True, False, None])


@st.composite
def populations(draw):
    """Random decisions of a few models on a few pairs: unscored pairs, shared twins and anchors, replay bits."""
    n_pairs, n_models = draw(st.integers(1, 9)), draw(st.integers(1, 5))
    pairs = [(f"ask_{p}", f"act_{draw(st.integers(0, 3))}", draw(st.sampled_from(["miss_func", "miss_param"])),
              draw(st.integers(0, 2))) for p in range(n_pairs)]
    columns = []
    for m in range(n_models):
        decisions = []
        for ask, act, category, anchor in pairs:
            if draw(st.integers(0, 5)) == 0:
                continue  # this model has no decision on the pair
            common = dict(model=f"m{m}", ask_id=ask, act_id=act, category=category, anchor_turn=anchor,
                          act_anchor_turn=anchor, certification="certified", compound=False)
            if draw(st.integers(0, 4)) == 0:
                decisions.append(PairDecision(**common, scored=False,
                                              missing=draw(st.sampled_from(["ask: error", "act: absent"]))))
                continue
            decisions.append(PairDecision(
                **common, scored=True, missing=None, acted=draw(st.booleans()), held_back=draw(st.booleans()),
                held_back_credited=draw(st.booleans()), same_history=draw(MAYBE),
                act_ended_early=draw(st.booleans()), ask_ended_early=draw(st.booleans()),
                replayed=draw(st.booleans()), aligned=draw(MAYBE), removed_called=draw(MAYBE),
                workaround=draw(MAYBE)))
        columns.append((f"m{m}", decisions))
    return columns


def _same(a: float | None, b: float | None) -> bool:
    """Equal as the bytes of the output say: the same float (NaN with NaN), or both None."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


@settings(max_examples=300, deadline=None)
@given(populations(), st.booleans(), st.booleans(), st.booleans())
def test_every_point_figure_equals_the_numpy_matrix(columns, same_history, drop_ended_early, distinct):
    options = ScoreOptions(same_history=same_history, drop_ended_early=drop_ended_early,
                           distinct_anchor_turns=distinct)
    arrays, bits = metrics.DecisionMatrix.build(columns), point.PointMatrix.build(columns)
    assert (bits.ask_ids, bits.act_ids, bits.categories) == (arrays.ask_ids, arrays.act_ids, arrays.categories)
    keep_array, keep = metrics.kept(arrays, options), point.kept(bits, options)
    for m in range(len(columns)):
        assert point.rows_of(keep[m]) == np.flatnonzero(keep_array[:, m]).tolist()
    expected = metrics.rates(arrays, keep_array, distinct)
    workaround = metrics.decision_workaround(arrays, keep_array, distinct)
    replays = metrics.replay_counts(arrays, keep_array)
    cats = metrics.by_category(arrays, keep_array, distinct, ("miss_func", "miss_param"))
    covers = metrics.coverage(arrays, options)
    verdicts = {f"{side}_{k}": k % 2 == 0 for side in ("ask", "act") for k in range(0, 9, 1 + len(columns) % 2)}
    for m in range(len(columns)):
        got = point.rates(bits, m, keep[m], distinct)
        assert got.pairs == int(expected.pairs[m])
        for name in ("act", "hold", "hold_credited", "pair", "decision", "decision_credited"):
            assert _same(point.value(got.metric(name)), metrics.value(expected.metric(name)[m])), name
        assert _same(point.value(point.decision_workaround(bits, m, keep[m], distinct)), metrics.value(workaround[m]))
        assert point.replay_counts(bits, m, keep[m]) == replays[m]
        assert point.by_category(bits, m, keep[m], distinct, ("miss_func", "miss_param")) == cats[m]
        assert point.coverage(bits, m, options) == covers[m]
        assert point.official(bits, m, keep[m], verdicts) == metrics.official(arrays, m, keep_array[:, m], verdicts)


def _numpy_spearman(x, y):
    """The numpy computation the plain one replaced: average ranks, then a Pearson correlation by dot products."""
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)

    def ranks(values):
        order = np.argsort(values, kind="mergesort")
        sorted_values = values[order]
        starts = np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1]])
        ends = np.r_[starts[1:], values.size]
        out = np.empty(values.size)
        out[order] = np.repeat((starts + 1 + ends) / 2.0, ends - starts)
        return out

    dx, dy = ranks(xs) - ranks(xs).mean(), ranks(ys) - ranks(ys).mean()
    sxx, syy = float(dx @ dx), float(dy @ dy)
    return float("nan") if sxx == 0.0 or syy == 0.0 else float(dx @ dy) / math.sqrt(sxx * syy)


def _numpy_kendall(x, y):
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = xs.size
    n0 = n * (n - 1) // 2

    def ties(values):
        _, counts = np.unique(values, return_counts=True)
        return int((counts * (counts - 1) // 2).sum())

    n1, n2 = ties(xs), ties(ys)
    if n1 == n0 or n2 == n0:
        return float("nan")
    upper = np.triu_indices(n, k=1)
    sx = np.sign(xs[:, None] - xs[None, :])[upper]
    sy = np.sign(ys[:, None] - ys[None, :])[upper]
    return int((sx * sy).sum()) / math.sqrt((n0 - n1) * (n0 - n2))


VALUES = st.lists(st.tuples(st.sampled_from([0.0, -0.0, 12.5, 50.0, 66.666666667, 100.0, 1e-9, 3.0]),
                            st.floats(-1e3, 1e3, allow_nan=False)), min_size=2, max_size=60)


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_rank_correlations_in_plain_python_equal_the_numpy_computation(rows):
    x, y = [a for a, _ in rows], [round(b, 1) for _, b in rows]
    for plain, numpy_one in ((ranking.spearman, _numpy_spearman), (ranking.kendall_tau_b, _numpy_kendall)):
        assert _same(plain(x, y), numpy_one(x, y))


def test_a_score_without_resampling_loads_no_numpy_and_one_with_it_does(tmp_path):
    release = tiny_package(tmp_path / "rel")
    code = ("import sys, contextlib, io, json\nfrom twinbench.cli import main\nout = io.StringIO()\n"
            "with contextlib.redirect_stdout(out):\n    main(['score', '--bfcl-root', %r, '--format', 'json',"
            " '--bootstrap', sys.argv[1]])\nprint(json.dumps(['numpy' in sys.modules, json.loads(out.getvalue())]))")
    runs = {}
    for n_boot in ("0", "200"):
        done = subprocess.run([sys.executable, "-c", code % str(release), n_boot], capture_output=True, text=True,
                              cwd=REPO, check=True, env={"TWINBENCH_CACHE": str(tmp_path / "cache"),
                                                         "PATH": "/usr/bin:/bin"})
        runs[n_boot] = json.loads(done.stdout.strip().splitlines()[-1])
    assert runs["0"][0] is False and runs["200"][0] is True
    # the same point figures either way
    without, within = runs["0"][1]["models"], runs["200"][1]["models"]
    assert [(m["decision"], m["coverage"]) for m in without] == [(m["decision"], m["coverage"]) for m in within]
