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

import importlib

#: every name of the contract and the module that defines it (imported when first asked for, so
#: that the command line's start-up does not pay for the effect tables' YAML reader)
_WHERE = {
    "Adapter": "adapter", "ReadingCheck": "adapter", "RunReader": "adapter",
    "CompoundTurn": "curation", "Curation": "curation",
    "EffectClassifier": "effects", "SourceVerdict": "effects", "load_effect_table": "effects",
    "ItemReplay": "replayer", "PairReplay": "replayer", "Replayer": "replayer",
    "DecisionRule": "rules", "EffectTableRule": "rules", "OfferedToolRule": "rules",
}
__all__ = sorted([*_WHERE, "AdapterError"])


def __getattr__(name: str):
    if name == "AdapterError":
        from twinbench.errors import AdapterError

        return AdapterError
    if name in _WHERE:
        return getattr(importlib.import_module(f"twinbench.contract.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'twinbench.contract' has no attribute {name!r}")
