"""Discovery: from a leaderboard's items to verified twin pairs, and every item's fate.

* :mod:`twinbench.discovery.discover`: the algorithm (pairing, content checks, the decision
  stage, certification) and :func:`discover_for`, which runs it on an adapter (cached);
* :mod:`twinbench.discovery.funnel`: the funnel's rows and the manifest as plain data.
"""

from __future__ import annotations

from twinbench.discovery.discover import discover, discover_for, locate_anchors
from twinbench.discovery.funnel import (
           STAGES,
           FunnelRow,
           drop_record,
           funnel_rows,
           manifest_record,
           pair_record,
)
from twinbench.model.manifest import Manifest, family_of
from twinbench.options import DiscoveryOptions

__all__ = ["STAGES", "DiscoveryOptions", "FunnelRow", "Manifest", "discover", "discover_for", "drop_record",
           "family_of", "funnel_rows", "locate_anchors", "manifest_record", "pair_record"]
