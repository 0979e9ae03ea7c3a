"""Hand-checkable tests for twinbench.stats."""

from __future__ import annotations

import math

import numpy as np
import pytest

from twinbench.metrics.stats import (
    BootstrapResult,
    bootstrap_decision,
    cluster_weights,
    kendall_tau_b,
    mcnemar_exact,
    paired_difference,
    percentile_interval,
    point_rates,
    rank1_shares,
    spearman,
)


# --------------------------------------------------------------------------- #
# McNemar
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    ("b", "c", "expected"),
    [
        (22, 1, 5.722e-6),  # 2 * (1 + 23) / 2**23
        (28, 0, 7.451e-9),  # 2 / 2**28
        (30, 3, 1.401e-6),  # 2 * (1 + 33 + 528 + 5456) / 2**33
    ],
)
def test_mcnemar_paper_values(b: int, c: int, expected: float) -> None:
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-3)


@pytest.mark.parametrize(
    ("b", "c", "expected"),
    [
        (0, 5, 0.0625),  # 2 / 32
        (5, 0, 0.0625),
        (3, 0, 0.25),  # 2 / 8
        (0, 0, 1.0),
        (1, 1, 1.0),  # 2 * 3 / 4 clipped to 1
        (2, 1, 1.0),  # 2 * (1 + 3) / 8 = 1
        (4, 1, 0.375),  # 2 * (1 + 5) / 32
    ],
)
def test_mcnemar_small_exact(b: int, c: int, expected: float) -> None:
    assert mcnemar_exact(b, c) == expected


def test_mcnemar_exact_formula_and_symmetry() -> None:
    assert mcnemar_exact(30, 3) == 2 * (1 + 33 + 528 + 5456) / 2**33
    assert mcnemar_exact(7, 19) == mcnemar_exact(19, 7)


def test_mcnemar_large_n_does_not_overflow() -> None:
    p = mcnemar_exact(600, 400)
    assert 0.0 < p < 1e-9
    assert mcnemar_exact(2000, 0) == 0.0  # 2 / 2**2000 underflows to 0.0


def test_mcnemar_rejects_bad_counts() -> None:
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 3)
    with pytest.raises(TypeError):
        mcnemar_exact(1.5, 3)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- #
# Rank correlations
# --------------------------------------------------------------------------- #


def test_rank_correlations_perfect() -> None:
    x = [1, 2, 3, 4]
    assert spearman(x, [1, 2, 3, 4]) == pytest.approx(1.0)
    assert kendall_tau_b(x, [1, 2, 3, 4]) == pytest.approx(1.0)
    assert spearman(x, [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert kendall_tau_b(x, [4, 3, 2, 1]) == pytest.approx(-1.0)


def test_rank_correlations_one_swap() -> None:
    # d = (0, 1, 1): rho = 1 - 6 * 2 / (3 * 8) = 0.5
    # pairs (1,2) C, (1,3) C, (2,3) D: tau = (2 - 1) / 3
    assert spearman([1, 2, 3], [1, 3, 2]) == pytest.approx(0.5)
    assert kendall_tau_b([1, 2, 3], [1, 3, 2]) == pytest.approx(1 / 3)


def test_rank_correlations_with_ties() -> None:
    # x = [1, 2, 2, 3], y = [1, 2, 3, 3]
    # Average ranks: rx = [1, 2.5, 2.5, 4], ry = [1, 2, 3.5, 3.5], both mean 2.5.
    #   dx = [-1.5, 0, 0, 1.5], dy = [-1.5, -0.5, 1, 1]
    #   sum dx*dy = 2.25 + 1.5 = 3.75; sum dx^2 = 4.5; sum dy^2 = 2.25 + .25 + 1 + 1 = 4.5
    #   spearman = 3.75 / 4.5 = 5/6
    # Kendall: of the 6 pairs, (0,1) (0,2) (0,3) (1,3) are concordant, (1,2) is tied
    #   in x, (2,3) tied in y: C = 4, D = 0, n0 = 6, n1 = 1, n2 = 1
    #   tau_b = 4 / sqrt(5 * 5) = 0.8
    x = [1, 2, 2, 3]
    y = [1, 2, 3, 3]
    assert spearman(x, y) == pytest.approx(5 / 6)
    assert kendall_tau_b(x, y) == pytest.approx(0.8)


def test_rank_correlations_degenerate_is_nan() -> None:
    assert math.isnan(spearman([1], [2]))
    assert math.isnan(kendall_tau_b([1], [2]))
    assert math.isnan(spearman([], []))
    assert math.isnan(spearman([1, 2, 3], [5, 5, 5]))
    assert math.isnan(kendall_tau_b([7, 7, 7], [1, 2, 3]))


def test_rank_correlations_invariant_to_monotone_transform() -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=12)
    y = x + rng.normal(scale=0.7, size=12)
    assert spearman(x, y) == pytest.approx(spearman(np.exp(x), y**3))
    assert kendall_tau_b(x, y) == pytest.approx(kendall_tau_b(np.exp(x), y**3))


def test_rank_correlations_length_mismatch() -> None:
    with pytest.raises(ValueError):
        spearman([1, 2, 3], [1, 2])
    with pytest.raises(ValueError):
        kendall_tau_b([1, 2, 3], [1, 2])


# --------------------------------------------------------------------------- #
# Cluster weights
# --------------------------------------------------------------------------- #


def test_cluster_weights_shape_dtype_and_determinism() -> None:
    clusters = np.array([10, 10, 3, 7, 7, 7, -2])
    w1 = cluster_weights(clusters, 50, seed=1)
    w2 = cluster_weights(clusters, 50, seed=1)
    w3 = cluster_weights(clusters, 50, seed=2)
    assert w1.shape == (50, 7)
    assert np.issubdtype(w1.dtype, np.integer)
    np.testing.assert_array_equal(w1, w2)
    assert not np.array_equal(w1, w3)


def test_cluster_weights_pairs_of_a_cluster_share_weight_and_draws_sum_to_k() -> None:
    clusters = np.array([10, 10, 3, 7, 7, 7, -2])  # K = 4
    w = cluster_weights(clusters, 200, seed=0)
    np.testing.assert_array_equal(w[:, 0], w[:, 1])
    np.testing.assert_array_equal(w[:, 3], w[:, 4])
    np.testing.assert_array_equal(w[:, 3], w[:, 5])
    # One representative pair per cluster gives the cluster draw counts.
    draws = w[:, [0, 2, 3, 6]]
    assert np.all(draws >= 0)
    np.testing.assert_array_equal(draws.sum(axis=1), np.full(200, 4))


def test_cluster_weights_singletons_rows_sum_to_p() -> None:
    p = 37
    w = cluster_weights(np.arange(p), 500, seed=5)
    np.testing.assert_array_equal(w.sum(axis=1), np.full(500, p))
    # Each pair is drawn once per resample on average.
    assert w.mean() == pytest.approx(1.0, abs=0.05)


def test_cluster_weights_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        cluster_weights(np.array([], dtype=int), 10, seed=0)
    with pytest.raises(ValueError):
        cluster_weights(np.array([1, 2]), 0, seed=0)
    with pytest.raises(TypeError):
        cluster_weights(np.array([0.5, 1.5]), 10, seed=0)


# --------------------------------------------------------------------------- #
# Rates and bootstrap
# --------------------------------------------------------------------------- #


def _toy() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    # 4 pairs x 2 models. Model 0 covers all pairs; model 1 skips pair 3.
    act = np.array([[1, 1], [1, 0], [0, 1], [1, 1]])
    hold = np.array([[0, 1], [1, 1], [0, 0], [1, 0]])
    covered = np.array([[1, 1], [1, 1], [1, 1], [1, 0]])
    credited = np.array([[1, 1], [1, 1], [0, 1], [1, 1]])
    return act, hold, covered, credited


def test_point_rates_by_hand() -> None:
    act, hold, covered, credited = _toy()
    rates = point_rates(act, hold, covered, hold_credited=credited)
    # model 0: act 3/4, hold 2/4, credited 3/4; model 1 (pairs 0-2): act 2/3, hold 2/3, credited 3/3
    np.testing.assert_allclose(rates["act"], [75.0, 200 / 3])
    np.testing.assert_allclose(rates["hold"], [50.0, 200 / 3])
    np.testing.assert_allclose(rates["decision"], [62.5, 200 / 3])
    np.testing.assert_allclose(rates["hold_credited"], [75.0, 100.0])
    np.testing.assert_allclose(rates["decision_credited"], [75.0, (200 / 3 + 100) / 2])
    assert set(point_rates(act, hold, covered)) == {"act", "hold", "decision"}


def test_bits_outside_coverage_are_ignored() -> None:
    act, hold, covered, _ = _toy()
    dirty = act.astype(float)
    dirty[3, 1] = np.nan  # model 1 does not cover pair 3
    np.testing.assert_array_equal(
        point_rates(dirty, hold, covered)["act"], point_rates(act, hold, covered)["act"]
    )
    bad = act.copy()
    bad[0, 0] = 2
    with pytest.raises(ValueError):
        point_rates(bad, hold, covered)


def test_bootstrap_with_unit_weights_equals_point_rates() -> None:
    act, hold, covered, credited = _toy()
    samples = bootstrap_decision(act, hold, covered, np.ones((3, 4), dtype=np.int32), credited)
    rates = point_rates(act, hold, covered, credited)
    assert set(samples) == set(rates)
    for key, value in samples.items():
        assert value.shape == (3, 2)
        np.testing.assert_allclose(value, np.broadcast_to(rates[key], (3, 2)))


def test_bootstrap_weighted_by_hand() -> None:
    act, hold, covered, _ = _toy()
    weights = np.array([[2, 0, 1, 0], [0, 0, 0, 3]])
    out = bootstrap_decision(act, hold, covered, weights)
    # row 0, model 0: act (2*1 + 1*0) / 3, hold (0 + 0) / 3
    # row 0, model 1: act (2*1 + 1*1) / 3, hold (2*1 + 0) / 3
    # row 1, model 0: act 3/3, hold 3/3; model 1 has no covered weight -> NaN
    np.testing.assert_allclose(out["act"][0], [200 / 3, 100.0])
    np.testing.assert_allclose(out["hold"][0], [0.0, 200 / 3])
    np.testing.assert_allclose(out["decision"][0], [100 / 3, 250 / 3])
    np.testing.assert_allclose(out["act"][1, 0], 100.0)
    assert np.isnan(out["act"][1, 1]) and np.isnan(out["decision"][1, 1])


def test_bootstrap_result_wrapper() -> None:
    act, hold, covered, credited = _toy()
    w = cluster_weights(np.array([0, 0, 1, 2]), 300, seed=4)
    result = BootstrapResult.from_mapping(bootstrap_decision(act, hold, covered, w, credited))
    assert (result.n_boot, result.n_models) == (300, 2)
    assert set(result.metrics()) == {
        "act", "hold", "decision", "hold_credited", "decision_credited"
    }
    assert result.interval("act").shape == (2, 2)
    assert result.rank1_shares().sum() == pytest.approx(1.0)
    plain = BootstrapResult.from_mapping(bootstrap_decision(act, hold, covered, w))
    assert plain.hold_credited is None
    with pytest.raises(KeyError):
        plain.samples("decision_credited")


def _realistic(seed: int = 0) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    n_pairs, n_clusters, n_models = 223, 151, 6
    clusters = np.concatenate(
        [np.arange(n_clusters), rng.integers(0, n_clusters, n_pairs - n_clusters)]
    )
    act_p = np.linspace(0.55, 0.95, n_models)
    hold_p = np.linspace(0.85, 0.35, n_models)
    act = (rng.random((n_pairs, n_models)) < act_p).astype(np.int8)
    hold = (rng.random((n_pairs, n_models)) < hold_p).astype(np.int8)
    covered = (rng.random((n_pairs, n_models)) < 0.9).astype(np.int8)
    return clusters, act, hold, covered


def test_intervals_contain_point_estimate_and_are_deterministic() -> None:
    clusters, act, hold, covered = _realistic()
    point = point_rates(act, hold, covered)
    intervals = {}
    for run in range(2):
        w = cluster_weights(clusters, 2000, seed=11)
        samples = bootstrap_decision(act, hold, covered, w)
        intervals[run] = {k: percentile_interval(v, 0.95) for k, v in samples.items()}
    for key in ("act", "hold", "decision"):
        low, high = intervals[0][key]
        assert np.all(low <= point[key]) and np.all(point[key] <= high)
        assert np.all(high - low > 0)
        np.testing.assert_array_equal(intervals[0][key], intervals[1][key])
    other = bootstrap_decision(act, hold, covered, cluster_weights(clusters, 2000, seed=12))
    assert not np.array_equal(percentile_interval(other["decision"]), intervals[0]["decision"])


def test_percentile_interval_by_hand_and_levels() -> None:
    samples = np.arange(101, dtype=float)[:, None]  # 0..100
    np.testing.assert_allclose(percentile_interval(samples, 0.9), [[5.0], [95.0]])
    np.testing.assert_allclose(percentile_interval(samples, 0.95), [[2.5], [97.5]])
    with_nan = np.vstack([samples, [[np.nan]]])
    np.testing.assert_allclose(percentile_interval(with_nan, 0.9), [[5.0], [95.0]])
    with pytest.raises(ValueError):
        percentile_interval(samples, 1.0)


def test_cluster_bootstrap_is_wider_than_pair_bootstrap() -> None:
    # 20 clusters of 10 pairs; every pair of a cluster has the same act bit, so
    # the effective sample size is 20 clusters, not 200 pairs.
    n_clusters, size = 20, 10
    clusters = np.repeat(np.arange(n_clusters), size)
    bits = np.repeat(np.arange(n_clusters) % 2, size)[:, None]  # 50% act rate
    ones = np.ones_like(bits)
    by_cluster = bootstrap_decision(bits, ones, ones, cluster_weights(clusters, 4000, seed=0))
    by_pair = bootstrap_decision(
        bits, ones, ones, cluster_weights(np.arange(clusters.size), 4000, seed=0)
    )
    width_cluster = float(np.diff(percentile_interval(by_cluster["act"]), axis=0)[0, 0])
    width_pair = float(np.diff(percentile_interval(by_pair["act"]), axis=0)[0, 0])
    # Theory: sd sqrt(.25/20) vs sqrt(.25/200), a ratio of sqrt(10) ~ 3.2.
    assert width_cluster > 2.0 * width_pair
    assert 30.0 < width_cluster < 60.0
    assert 8.0 < width_pair < 20.0


# --------------------------------------------------------------------------- #
# Rank-1 shares and paired differences
# --------------------------------------------------------------------------- #


def test_rank1_clear_winner() -> None:
    clusters, act, hold, covered = _realistic()
    act[:, 0] = 1
    hold[:, 0] = 1
    covered[:, 0] = 1  # model 0 is perfect: decision 100 in every resample
    samples = bootstrap_decision(act, hold, covered, cluster_weights(clusters, 1000, seed=1))
    shares = rank1_shares(samples["decision"])
    assert shares.shape == (6,)
    assert shares[0] == pytest.approx(1.0)
    assert shares.sum() == pytest.approx(1.0)


def test_rank1_exact_ties_split_evenly() -> None:
    samples = np.array([[80.0, 80.0, 10.0], [50.0, 50.0, 20.0]])
    np.testing.assert_allclose(rank1_shares(samples), [0.5, 0.5, 0.0])
    mixed = np.array([[1.0, 2.0, 2.0], [3.0, 1.0, 1.0]])  # row 0 tie of two, row 1 sole winner
    np.testing.assert_allclose(rank1_shares(mixed), [0.5, 0.25, 0.25])


def test_rank1_ties_survive_float_rounding() -> None:
    # Same true decision rate (5/12) reached by different act/hold splits on 6 pairs:
    # model 0 acts 0/6 and holds 5/6, model 1 acts 1/6 and holds 4/6.
    act = np.array([[0, 1]] + [[0, 0]] * 5)
    hold = np.array([[1, 1]] * 4 + [[1, 0], [0, 0]])
    covered = np.ones_like(act)
    decision = point_rates(act, hold, covered)["decision"]
    assert decision[0] != decision[1]  # rounding makes them differ in the last bit
    assert decision == pytest.approx([250 / 6, 250 / 6])
    np.testing.assert_allclose(rank1_shares(decision[None, :]), [0.5, 0.5])
    exact = rank1_shares(decision[None, :], rel_tol=0.0)
    assert sorted(exact.tolist()) == [0.0, 1.0]


def test_identical_models_tie_through_the_bootstrap() -> None:
    clusters, act, hold, covered = _realistic()
    act[:, 1], hold[:, 1], covered[:, 1] = act[:, 0], hold[:, 0], covered[:, 0]
    act[:, 2:] = 0  # the rest can never be first
    hold[:, 2:] = 0
    samples = bootstrap_decision(act, hold, covered, cluster_weights(clusters, 500, seed=2))
    np.testing.assert_allclose(rank1_shares(samples["decision"]), [0.5, 0.5, 0, 0, 0, 0])


def test_nan_handling_uncovered_model() -> None:
    clusters, act, hold, covered = _realistic()
    covered[:, 3] = 0  # model 3 has no scored pair at all
    point = point_rates(act, hold, covered)
    assert np.isnan(point["act"][3]) and np.isnan(point["decision"][3])
    samples = bootstrap_decision(act, hold, covered, cluster_weights(clusters, 500, seed=3))
    for value in samples.values():
        assert np.all(np.isnan(value[:, 3]))
        assert not np.any(np.isnan(np.delete(value, 3, axis=1)))
    interval = percentile_interval(samples["decision"])
    assert np.all(np.isnan(interval[:, 3]))
    assert not np.any(np.isnan(np.delete(interval, 3, axis=1)))
    shares = rank1_shares(samples["decision"])
    assert shares[3] == 0.0
    assert shares.sum() == pytest.approx(1.0)


def test_nan_handling_partial_and_all_nan_rows() -> None:
    samples = np.array(
        [
            [np.nan, np.nan],  # skipped
            [np.nan, 40.0],  # model 1 wins
            [90.0, 40.0],  # model 0 wins
            [90.0, 90.0],  # tie
        ]
    )
    np.testing.assert_allclose(rank1_shares(samples), [1.5 / 3, 1.5 / 3])
    np.testing.assert_array_equal(rank1_shares(np.full((3, 2), np.nan)), [0.0, 0.0])
    # A model covering one cluster only is NaN in the resamples that miss it.
    clusters = np.array([0, 0, 1, 2, 3])
    covered = np.array([[1, 1], [1, 1], [1, 0], [1, 0], [1, 0]])
    ones = np.ones_like(covered)
    w = cluster_weights(clusters, 400, seed=0)
    act = bootstrap_decision(ones, ones, covered, w)["act"]
    missed = w[:, 0] == 0
    assert missed.any() and (~missed).any()
    assert np.all(np.isnan(act[missed, 1])) and np.all(act[~missed, 1] == 100.0)
    assert not np.any(np.isnan(act[:, 0]))


def test_paired_difference_shares_resamples() -> None:
    clusters, act, hold, covered = _realistic()
    w = cluster_weights(clusters, 1000, seed=8)
    base = bootstrap_decision(act, hold, covered, w)["decision"]
    treated_hold = hold.copy()
    treated_hold[:, :] = np.maximum(hold, (np.arange(hold.shape[0]) % 3 == 0)[:, None])
    treat = bootstrap_decision(act, treated_hold, covered, w)["decision"]
    diff = paired_difference(base, treat)
    np.testing.assert_array_equal(diff, treat - base)
    assert np.all(diff >= 0)  # hold only went up, so every shared resample improves
    assert np.all(percentile_interval(diff)[0] > 0)
    with pytest.raises(ValueError):
        paired_difference(base, treat[:, :2])
