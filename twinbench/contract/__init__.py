"""The porting contract: everything a leaderboard adapter implements or returns.

* :mod:`twinbench.contract.adapter`: :class:`Adapter` (items, rule, optional parts) and
  :class:`RunReader` (finding, reading and writing model outputs);
* :mod:`twinbench.contract.rules`: the :class:`DecisionRule` (which calls count as acting);
* :mod:`twinbench.contract.effects`: effect tables and the source analyzer an effect rule uses;
* :mod:`twinbench.contract.curation`: hand-made exclusions, certifications, compound turns;
* :mod:`twinbench.contract.replayer`: the optional simulator (:class:`Replayer`).

The records an adapter builds (items, turns, calls, rollouts) are in :mod:`twinbench.model`.
"""

from __future__ import annotations

from twinbench.contract.adapter import Adapter, ReadingCheck, RunReader
from twinbench.contract.curation import CompoundTurn, Curation
from twinbench.contract.effects import (
           EffectClassifier,
           SourceVerdict,
           load_effect_table,
)
from twinbench.contract.replayer import ItemReplay, PairReplay, Replayer
from twinbench.contract.rules import DecisionRule, EffectTableRule, OfferedToolRule
from twinbench.errors import AdapterError

__all__ = ["Adapter", "AdapterError", "CompoundTurn", "Curation", "DecisionRule", "EffectClassifier",
           "EffectTableRule", "ItemReplay", "OfferedToolRule", "PairReplay", "ReadingCheck", "Replayer",
           "RunReader", "SourceVerdict", "load_effect_table"]
