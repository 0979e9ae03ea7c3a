"""Resampling and rank statistics for twin-pair scores.

Everything here is a pure function on numpy arrays (or plain ints). Nothing
knows a leaderboard, a model name or a file format: callers turn their scored
pairs into 0/1 matrices and get rates, bootstrap samples, intervals, rank-1
shares, exact McNemar p-values and rank correlations back.

Conventions
-----------
* ``P`` pairs (rows), ``M`` models (columns), ``B`` bootstrap resamples.
* ``act``, ``hold``, ``covered`` (and optionally ``hold_credited``) are
  ``(P, M)`` arrays of 0/1. ``covered[p, m] == 1`` means pair ``p`` is scored
  for model ``m``; the other arrays are ignored where ``covered == 0`` (they
  may even hold NaN there).
* A cluster bootstrap resample draws the ``K`` clusters uniformly with
  replacement and keeps every pair of each drawn cluster, so it is fully
  described by a ``(B, P)`` integer weight matrix: the weight of a pair is the
  number of times its cluster was drawn.
* Rates are reported in percent (0-100). A rate with zero covered weight is
  NaN, never 0.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from fractions import Fraction

import attrs
import numpy as np
from numpy.typing import ArrayLike

from twinbench.metrics import ranking

__all__ = [
    "BootstrapResult",
    "bootstrap_decision",
    "cluster_weights",
    "kendall_tau_b",
    "mcnemar_exact",
    "paired_difference",
    "percentile_interval",
    "point_rates",
    "rank1_shares",
    "spearman",
]

#: Keys always present in the output of :func:`bootstrap_decision` / :func:`point_rates`.
BASE_METRICS: tuple[str, ...] = ("act", "hold", "decision")
#: Keys added when ``hold_credited`` is given.
CREDITED_METRICS: tuple[str, ...] = ("hold_credited", "decision_credited")

# Rows of the weight matrix processed per matrix product. Bounds the float64
# copy of the weights to about _CHUNK_ROWS * P * 8 bytes.
_CHUNK_ROWS = 2048
# Cluster draws counted per block in cluster_weights: about this many draws at a time.
_COUNT_ROWS = 1 << 18


# --------------------------------------------------------------------------- #
# Cluster bootstrap
# --------------------------------------------------------------------------- #


def cluster_weights(clusters: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """Cluster-bootstrap weight matrix.

    Args:
        clusters: 1-D integer array of length ``P``; ``clusters[p]`` is the
            cluster id of pair ``p``. Ids may be any integers; they are mapped
            to ``0..K-1`` internally.
        n_boot: number of resamples ``B`` (>= 1).
        seed: seed for :func:`numpy.random.default_rng`; the same seed always
            gives the same matrix.

    Returns:
        ``(B, P)`` int32 array. Row ``b`` is one resample: ``K`` clusters drawn
        uniformly with replacement, and each pair weighted by the number of
        times its cluster was drawn. The cluster draw counts of each row sum to
        ``K``; the pair weights sum to ``P`` only in expectation (exactly ``P``
        when every cluster holds a single pair).
    """
    ids = np.asarray(clusters)
    if ids.ndim != 1 or ids.size == 0:
        raise ValueError(f"clusters must be a non-empty 1-D array, got shape {ids.shape}")
    if not (np.issubdtype(ids.dtype, np.integer) or ids.dtype == np.bool_):
        raise TypeError(f"clusters must hold integers, got dtype {ids.dtype}")
    n_boot = int(n_boot)
    if n_boot < 1:
        raise ValueError(f"n_boot must be >= 1, got {n_boot}")

    _, inverse = np.unique(ids, return_inverse=True)
    inverse = inverse.reshape(-1)  # numpy 2.x may keep the input shape
    k = int(inverse.max()) + 1
    rng = np.random.default_rng(seed)
    # K uniform draws per resample, counted per row with one offset bincount
    # (same law as multinomial(K, [1/K] * K), several times faster).
    # counts[b, j] = times cluster j is drawn in resample b; each row sums to K.
    # The draws come in one call (the stream, and so every interval, is fixed by the seed);
    # they are counted a block of rows at a time, so that the counting's int64 temporaries
    # stay small beside the (B, P) result.
    index_dtype = np.int32 if n_boot * k < 2**31 else np.int64
    draws = rng.integers(0, k, size=(n_boot, k), dtype=index_dtype)
    out = np.empty((n_boot, inverse.size), dtype=np.int32)
    rows = max(1, _COUNT_ROWS // max(1, k))
    for start in range(0, n_boot, rows):
        block = draws[start:start + rows]
        offsets = np.arange(block.shape[0], dtype=np.int64)[:, None] * k
        counts = np.bincount((block + offsets).reshape(-1), minlength=block.shape[0] * k)
        out[start:start + rows] = counts.reshape(block.shape[0], k)[:, inverse]
    return out


def _as_matrix(name: str, values: ArrayLike) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 2:
        raise ValueError(f"{name} must be a 2-D (pairs, models) array, got shape {array.shape}")
    return array


def _check_bits(name: str, values: np.ndarray, mask: np.ndarray) -> None:
    scored = values[mask]
    if not np.all((scored == 0.0) | (scored == 1.0)):
        raise ValueError(f"{name} must be 0/1 wherever covered == 1")


def _numerators(
    act: ArrayLike,
    hold: ArrayLike,
    covered: ArrayLike,
    hold_credited: ArrayLike | None,
) -> tuple[np.ndarray, int, bool]:
    """Stack the masked metric columns as ``(P, n_blocks * M)``.

    Block order: act, hold, [hold_credited], covered. Returns the stacked
    matrix, ``M`` and whether ``hold_credited`` is present.
    """
    cov = _as_matrix("covered", covered)
    if not np.all((cov == 0.0) | (cov == 1.0)):
        raise ValueError("covered must be 0/1")
    mask = cov == 1.0
    blocks = []
    named = [("act", act), ("hold", hold)]
    if hold_credited is not None:
        named.append(("hold_credited", hold_credited))
    for name, values in named:
        array = _as_matrix(name, values)
        if array.shape != cov.shape:
            raise ValueError(f"{name} has shape {array.shape}, covered has {cov.shape}")
        _check_bits(name, array, mask)
        blocks.append(np.where(mask, array, 0.0))
    blocks.append(cov)
    return np.concatenate(blocks, axis=1), cov.shape[1], hold_credited is not None


def _rates_from_sums(sums: np.ndarray, m: int, credited: bool) -> dict[str, np.ndarray]:
    """Turn weighted sums ``(..., n_blocks * M)`` into percent rates.

    ``100 * numerator / denominator`` on integer-valued floats: the product is
    exact and the division correctly rounded, so equal true rates give
    bit-identical floats (which keeps exact ties exact for :func:`rank1_shares`).
    """
    denominator = sums[..., -m:]
    has_weight = denominator > 0

    def rate(block: int) -> np.ndarray:
        numerator = sums[..., block * m : (block + 1) * m]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(has_weight, 100.0 * numerator / denominator, np.nan)

    out = {"act": rate(0), "hold": rate(1)}
    out["decision"] = (out["act"] + out["hold"]) / 2.0
    if credited:
        out["hold_credited"] = rate(2)
        out["decision_credited"] = (out["act"] + out["hold_credited"]) / 2.0
    return out


def bootstrap_decision(
    act: np.ndarray,
    hold: np.ndarray,
    covered: np.ndarray,
    weights: np.ndarray,
    hold_credited: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Resampled act / hold / decision rates for ``M`` models.

    Args:
        act: ``(P, M)`` 0/1, the model acted correctly on the pair's should-act item.
        hold: ``(P, M)`` 0/1, the model held back on the pair's should-ask item.
        covered: ``(P, M)`` 0/1, the pair is scored for the model.
        weights: ``(B, P)`` non-negative weights, e.g. from :func:`cluster_weights`.
        hold_credited: optional ``(P, M)`` 0/1, an alternative hold score
            (the credited reading, e.g. an attempt confined to a compound turn's independent steps).

    Returns:
        Dict of ``(B, M)`` float arrays in percent: ``act``, ``hold`` and
        ``decision = (act + hold) / 2``; with ``hold_credited`` also
        ``hold_credited`` and ``decision_credited = (act + hold_credited) / 2``.
        Each rate is ``(weights @ (x * covered)) / (weights @ covered)``; it is
        NaN in a resample where the model's covered weight is zero.
    """
    stacked, m, credited = _numerators(act, hold, covered, hold_credited)
    w = np.asarray(weights)
    if w.ndim != 2 or w.shape[1] != stacked.shape[0]:
        raise ValueError(
            f"weights must be (B, P={stacked.shape[0]}), got shape {w.shape}"
        )
    if np.any(w < 0):
        raise ValueError("weights must be non-negative")
    sums = np.empty((w.shape[0], stacked.shape[1]), dtype=np.float64)
    # float64 BLAS products, chunked so the float copy of the weights stays small.
    for start in range(0, w.shape[0], _CHUNK_ROWS):
        stop = min(start + _CHUNK_ROWS, w.shape[0])
        np.matmul(w[start:stop].astype(np.float64), stacked, out=sums[start:stop])
    return _rates_from_sums(sums, m, credited)


def point_rates(
    act: np.ndarray,
    hold: np.ndarray,
    covered: np.ndarray,
    hold_credited: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """The metrics of :func:`bootstrap_decision` on the original sample.

    Every pair weighs 1. Returns length-``M`` arrays under the same keys
    (NaN for a model with no covered pair).
    """
    stacked, m, credited = _numerators(act, hold, covered, hold_credited)
    return _rates_from_sums(stacked.sum(axis=0), m, credited)


@attrs.frozen(eq=False)
class BootstrapResult:
    """Resampled metric matrices for a set of ``M`` models.

    Each field is a ``(B, M)`` float array in percent, as returned by
    :func:`bootstrap_decision`; the credited fields are ``None`` when no
    ``hold_credited`` scores were given.
    """

    act: np.ndarray
    hold: np.ndarray
    decision: np.ndarray
    hold_credited: np.ndarray | None = None
    decision_credited: np.ndarray | None = None

    @classmethod
    def from_mapping(cls, samples: Mapping[str, np.ndarray]) -> BootstrapResult:
        """Build from the dict returned by :func:`bootstrap_decision`."""
        return cls(**{key: samples.get(key) for key in BASE_METRICS + CREDITED_METRICS})

    @property
    def n_boot(self) -> int:
        """Number of resamples ``B``."""
        return int(self.decision.shape[0])

    @property
    def n_models(self) -> int:
        """Number of models ``M``."""
        return int(self.decision.shape[1])

    def metrics(self) -> dict[str, np.ndarray]:
        """The present metrics by name (credited ones only when available)."""
        out = {key: getattr(self, key) for key in BASE_METRICS}
        for key in CREDITED_METRICS:
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out

    def samples(self, metric: str = "decision") -> np.ndarray:
        """The ``(B, M)`` samples of one metric; ``KeyError`` if absent."""
        present = self.metrics()
        if metric not in present:
            raise KeyError(f"metric {metric!r} not available; have {sorted(present)}")
        return present[metric]

    def interval(self, metric: str = "decision", level: float = 0.95) -> np.ndarray:
        """``(2, M)`` percentile interval of one metric."""
        return percentile_interval(self.samples(metric), level)

    def rank1_shares(self, metric: str = "decision") -> np.ndarray:
        """Length-``M`` share of resamples in which each model ranks first."""
        return rank1_shares(self.samples(metric))


# --------------------------------------------------------------------------- #
# Summaries of resamples
# --------------------------------------------------------------------------- #


def percentile_interval(samples: np.ndarray, level: float = 0.95) -> np.ndarray:
    """Percentile bootstrap interval along axis 0.

    Args:
        samples: ``(B, ...)`` array of resampled values; NaN entries are ignored.
        level: central coverage in (0, 1), e.g. 0.95 -> 2.5th and 97.5th percentiles.

    Returns:
        ``(2, ...)`` array: row 0 the low end, row 1 the high end (linear
        interpolation). A slice that is NaN in every resample gives NaN.
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    values = np.asarray(samples, dtype=np.float64)
    if values.ndim == 0 or values.shape[0] == 0:
        raise ValueError("samples must have at least one resample along axis 0")
    tail = (1.0 - level) / 2.0 * 100.0
    q = [tail, 100.0 - tail]
    if not np.isnan(values).any():
        return np.percentile(values, q, axis=0, method="linear")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices -> NaN
        return np.nanpercentile(values, q, axis=0, method="linear")


def rank1_shares(samples: np.ndarray, *, rel_tol: float = 1e-12) -> np.ndarray:
    """Share of resamples in which each model has the highest value.

    Args:
        samples: ``(B, M)`` resampled metric values. NaN entries cannot be first;
            a resample that is NaN for every model is skipped.
        rel_tol: values within ``rel_tol * max(1, |row max|)`` of a row's
            maximum count as tied for first. The default only absorbs float
            rounding (e.g. ``(a + b) / 2`` vs ``(c + d) / 2`` with ``a + b ==
            c + d``); genuinely different rates on realistic pair counts differ
            by far more. Pass 0 for exact equality.

    Returns:
        Length-``M`` float array in [0, 1]. The ``k`` models tied for first in
        a resample each get ``1 / k`` of it. The shares sum to 1 when at least
        one resample is valid, and are all 0 otherwise.
    """
    values = np.asarray(samples, dtype=np.float64)
    if values.ndim != 2:
        raise ValueError(f"samples must be (B, M), got shape {values.shape}")
    if rel_tol < 0:
        raise ValueError("rel_tol must be >= 0")
    finite = ~np.isnan(values)
    valid = finite.any(axis=1)
    if not valid.any():
        return np.zeros(values.shape[1], dtype=np.float64)
    rows = values[valid]
    row_max = np.max(np.where(finite[valid], rows, -np.inf), axis=1, keepdims=True)
    tol = rel_tol * np.maximum(1.0, np.abs(row_max))
    with np.errstate(invalid="ignore"):
        first = finite[valid] & (rows >= row_max - tol)
    per_row = first / first.sum(axis=1, keepdims=True)
    return per_row.sum(axis=0) / rows.shape[0]


def paired_difference(
    samples_baseline: np.ndarray, samples_treatment: np.ndarray
) -> np.ndarray:
    """``treatment - baseline`` per resample.

    Both inputs must come from the same weight matrix so that row ``b`` of each
    refers to the same resample; the difference then carries the pairing.
    NaN in either input propagates.
    """
    baseline = np.asarray(samples_baseline, dtype=np.float64)
    treatment = np.asarray(samples_treatment, dtype=np.float64)
    if baseline.shape != treatment.shape:
        raise ValueError(
            f"shapes differ: baseline {baseline.shape}, treatment {treatment.shape}"
        )
    return treatment - baseline


# --------------------------------------------------------------------------- #
# Exact tests and rank correlations
# --------------------------------------------------------------------------- #


def mcnemar_exact(b: int, c: int) -> float:
    """Exact two-sided McNemar p-value from the discordant counts.

    ``n = b + c``; ``p = min(1, 2 * sum_{i=0}^{min(b, c)} C(n, i) / 2**n)``,
    computed in exact rational arithmetic and converted to float once.
    ``n == 0`` gives 1.0.
    """
    if isinstance(b, bool) or isinstance(c, bool):
        raise TypeError("b and c must be integer counts, not bools")
    b_int, c_int = int(b), int(c)
    if b_int != b or c_int != c:
        raise TypeError(f"b and c must be integer counts, got {b!r}, {c!r}")
    if b_int < 0 or c_int < 0:
        raise ValueError(f"counts must be non-negative, got b={b_int}, c={c_int}")
    n = b_int + c_int
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(b_int, c_int) + 1))
    return float(min(Fraction(1), Fraction(2 * tail, 2**n)))


def _paired_vectors(x: ArrayLike, y: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    xs = np.asarray(x, dtype=np.float64).reshape(-1)
    ys = np.asarray(y, dtype=np.float64).reshape(-1)
    if xs.shape != ys.shape:
        raise ValueError(f"x and y differ in length: {xs.size} vs {ys.size}")
    if np.isnan(xs).any() or np.isnan(ys).any():
        raise ValueError("x and y must not contain NaN")
    return xs, ys


def spearman(x: ArrayLike, y: ArrayLike) -> float:
    """Spearman rank correlation (Pearson correlation of average ranks); :func:`twinbench.metrics.ranking.spearman`
    on arrays.

    Returns NaN when ``n < 2`` or either side is constant.
    """
    xs, ys = _paired_vectors(x, y)
    return ranking.spearman(xs.tolist(), ys.tolist())


def kendall_tau_b(x: ArrayLike, y: ArrayLike) -> float:
    """Kendall's tau-b, ``(C - D) / sqrt((n0 - n1) * (n0 - n2))``; :func:`twinbench.metrics.ranking.kendall_tau_b`
    on arrays.

    ``n0 = n(n-1)/2``; ``n1`` and ``n2`` count the pairs tied in ``x`` and in ``y``.
    Returns NaN when ``n < 2`` or either side is constant.
    """
    xs, ys = _paired_vectors(x, y)
    return ranking.kendall_tau_b(xs.tolist(), ys.tolist())
