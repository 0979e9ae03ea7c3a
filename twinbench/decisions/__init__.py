"""Decisions: one bit per side of every pair, read off a run's anchor turns.

* :mod:`twinbench.decisions.decide`: the decision itself (did the model attempt an action on
  the anchor turn?) and why a side is unscored;
* :mod:`twinbench.decisions.credit`: the replay's reading of a decision (workarounds);
* :mod:`twinbench.decisions.diagnostics`: what a model did around its decisions;
* :mod:`twinbench.decisions.policies`: the reference policies' rollouts (oracle, always-act, never-act).

Deciding imports no numpy: the metrics come after.
"""

from __future__ import annotations

from twinbench.decisions.credit import credit, replayed_pairs
from twinbench.decisions.decide import (
    ERROR_ENTRY,
    MISSING_ITEM,
    UNREADABLE,
    anchor_attempt,
    attempts,
    decide,
    unavailable,
    valid_calls,
)
from twinbench.model import PairDecision

__all__ = ["ERROR_ENTRY", "MISSING_ITEM", "UNREADABLE", "PairDecision", "anchor_attempt", "attempts", "credit",
           "decide", "replayed_pairs", "unavailable", "valid_calls"]
