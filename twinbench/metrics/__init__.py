"""Metrics: every rate from one population's decisions, and the statistics over it.

* :mod:`twinbench.metrics.point`: the rates on the sample itself, from bit columns, in plain
  Python (a score without resampling loads no numpy);
* :mod:`twinbench.metrics.matrix`: the :class:`DecisionMatrix` (pairs x models numpy arrays, one
  bit per side) and every rate computed from it, on the sample or under bootstrap weights;
* :mod:`twinbench.metrics.stats`: the cluster bootstrap, rank-1 shares, exact McNemar and rank
  correlations.

The names below load their module when first asked for: ``matrix`` and ``stats`` import numpy,
``point`` does not.
"""

from __future__ import annotations

import importlib

#: every name this package offers, and the module that defines it
_WHERE = {
    "DecisionMatrix": "matrix", "Rates": "matrix", "by_category": "matrix", "coverage": "matrix",
    "decision_workaround": "matrix", "first_per_anchor": "matrix", "kept": "matrix", "official": "matrix",
    "rates": "matrix", "replay_counts": "matrix", "share": "point", "value": "matrix",
}
__all__ = sorted([*_WHERE, "stats"])


def __getattr__(name: str):
    if name in ("stats", "matrix", "point"):
        return importlib.import_module(f"twinbench.metrics.{name}")
    if name in _WHERE:
        return getattr(importlib.import_module(f"twinbench.metrics.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'twinbench.metrics' has no attribute {name!r}")
