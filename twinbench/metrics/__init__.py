"""Metrics: every rate from one decision matrix, and the statistics over it.

* :mod:`twinbench.metrics.matrix`: the :class:`DecisionMatrix` (pairs x models, one bit per
  side) and every rate, share, coverage and official count computed from it;
* :mod:`twinbench.metrics.stats`: the cluster bootstrap, rank-1 shares, exact McNemar and rank
  correlations.

Importing this package imports numpy.
"""

from __future__ import annotations

from twinbench.metrics import stats
from twinbench.metrics.matrix import (
    DecisionMatrix,
    Rates,
    by_category,
    coverage,
    decision_workaround,
    first_per_anchor,
    kept,
    official,
    rates,
    replay_counts,
    share,
    value,
)

__all__ = ["DecisionMatrix", "Rates", "by_category", "coverage", "decision_workaround", "first_per_anchor", "kept",
           "official", "rates", "replay_counts", "share", "stats", "value"]
