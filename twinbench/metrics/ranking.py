"""Rank correlations in plain Python: Spearman's rho and Kendall's tau-b, numpy left unloaded.

Both work on ranks and signs only: every sum is of half-integers or integers, exact in floating
point at any size twinbench meets (thousands of models), so the value does not depend on the order
of the sums and is the one a numpy computation gives. :mod:`twinbench.metrics.stats` offers the
same functions for array inputs.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence


def paired(x: Sequence[float], y: Sequence[float]) -> tuple[list[float], list[float]]:
    """Two paired lists of floats; one clear error for unequal lengths or a NaN."""
    xs, ys = [float(v) for v in x], [float(v) for v in y]
    if len(xs) != len(ys):
        raise ValueError(f"x and y differ in length: {len(xs)} vs {len(ys)}")
    if any(math.isnan(v) for v in xs) or any(math.isnan(v) for v in ys):
        raise ValueError("x and y must not contain NaN")
    return xs, ys


def average_ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks; tied values share the mean of the ranks they span."""
    order = sorted(range(len(values)), key=values.__getitem__)  # stable, as a merge sort
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start + 1  # exclusive
        while end < len(order) and values[order[end]] == values[order[start]]:
            end += 1
        shared = (start + 1 + end) / 2.0  # the mean of ranks start+1 .. end
        for k in range(start, end):
            ranks[order[k]] = shared
        start = end
    return ranks


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman rank correlation (Pearson correlation of average ranks).

    Returns NaN when ``n < 2`` or either side is constant.
    """
    xs, ys = paired(x, y)
    n = len(xs)
    if n < 2:
        return float("nan")
    rx, ry = average_ranks(xs), average_ranks(ys)
    mx, my = sum(rx) / n, sum(ry) / n
    dx, dy = [r - mx for r in rx], [r - my for r in ry]
    sxx = sum(d * d for d in dx)
    syy = sum(d * d for d in dy)
    if sxx == 0.0 or syy == 0.0:
        return float("nan")
    return sum(a * b for a, b in zip(dx, dy)) / math.sqrt(sxx * syy)


def tied_pairs(values: Sequence[float]) -> int:
    """The pairs of equal values."""
    return sum(c * (c - 1) // 2 for c in Counter(values).values())


def _sign(d: float) -> int:
    return (d > 0) - (d < 0)


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b, ``(C - D) / sqrt((n0 - n1) * (n0 - n2))``.

    ``n0 = n(n-1)/2``; ``n1`` and ``n2`` count the pairs tied in ``x`` and in ``y``. Quadratic in
    time, meant for small n (a few hundred models at most). Returns NaN when ``n < 2`` or either
    side is constant.
    """
    xs, ys = paired(x, y)
    n = len(xs)
    if n < 2:
        return float("nan")
    n0 = n * (n - 1) // 2
    n1, n2 = tied_pairs(xs), tied_pairs(ys)
    if n1 == n0 or n2 == n0:
        return float("nan")
    difference = sum(_sign(xs[i] - xs[j]) * _sign(ys[i] - ys[j]) for i in range(n) for j in range(i + 1, n))
    return difference / math.sqrt((n0 - n1) * (n0 - n2))
