"""Decisions: one bit per side of every pair, read off a run's anchor turns.

* :mod:`twinbench.decisions.decide`: the decision itself (did the model attempt an action on
  the anchor turn?) and why a side is unscored;
* :mod:`twinbench.decisions.unread`: what a run left unread on the anchor turns, one count for every command;
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
    OFF_LIST,
    UNREADABLE,
    UNREADABLE_CALL,
    anchor_attempt,
    attempts,
    decide,
    unavailable,
    unreadable_calls,
    valid_calls,
)
from twinbench.decisions.unread import AnchorUnread, anchor_unread
from twinbench.model import PairDecision

__all__ = ["ERROR_ENTRY", "MISSING_ITEM", "OFF_LIST", "UNREADABLE", "UNREADABLE_CALL", "AnchorUnread", "PairDecision",
           "anchor_attempt", "anchor_unread", "attempts", "credit", "decide", "replayed_pairs", "unavailable",
           "unreadable_calls", "valid_calls"]
