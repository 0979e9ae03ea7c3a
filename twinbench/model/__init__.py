"""Plain immutable records passed between twinbench's stages.

Nothing here knows a leaderboard. An adapter turns its leaderboard's files into these records;
discovery, decisions, metrics and renderers only ever see them. One module per stage that makes them:

* :mod:`twinbench.model.items`: calls, turns, items, declared perturbations, tool effects;
* :mod:`twinbench.model.pairs`: twin pairs, drops, certifications, every item's fate;
* :mod:`twinbench.model.manifest`: the outcome of discovery;
* :mod:`twinbench.model.runs`: runs, rollouts, official verdicts, one decision per pair.
"""

from __future__ import annotations

from twinbench.model.items import (
    Call,
    DeclaredPerturbation,
    Effect,
    FunctionEffect,
    Item,
    Perturbation,
    Side,
    StartingWorld,
    Turn,
)
from twinbench.model.manifest import Manifest
from twinbench.model.pairs import (
    UNCERTIFIED,
    ActFate,
    Bearing,
    Certification,
    CertificationStatus,
    Drop,
    Pair,
    PairStatus,
)
from twinbench.model.runs import (
    FailureKind,
    OfficialFailure,
    PairDecision,
    Rollout,
    RunLoad,
    RunRef,
    RunSearch,
)

__all__ = ["ActFate", "Bearing", "Call", "Certification", "CertificationStatus", "DeclaredPerturbation", "Drop", "Effect", "FailureKind", "FunctionEffect", "Item", "Manifest", "OfficialFailure", "Pair", "PairDecision", "PairStatus", "Perturbation", "Rollout", "RunLoad", "RunRef", "RunSearch", "Side", "StartingWorld", "Turn", "UNCERTIFIED"]
