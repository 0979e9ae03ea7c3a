"""Constructed twins (``twinbench perturb``): which anchors can be perturbed, the funnel, the round trip.

* :mod:`twinbench.perturb.construct`: the candidate anchor turns, the tools withheld, and why not;
* :mod:`twinbench.perturb.report`: :class:`PerturbReport`, the funnel and its JSON;
* :mod:`twinbench.perturb.run`: :func:`perturb`, writing through the adapter's
  :class:`~twinbench.contract.perturber.Perturber` and verifying with discovery.
"""

from __future__ import annotations

from twinbench.perturb.construct import construct_turn, constructions
from twinbench.perturb.report import PerturbReport
from twinbench.perturb.run import perturb, read_item_list

__all__ = ["PerturbReport", "construct_turn", "constructions", "perturb", "read_item_list"]
