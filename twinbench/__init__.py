"""twinbench: score whether an agent knows when to act and when to ask.

The stages, in the order data flows (see ``docs/architecture.md``): :mod:`twinbench.contract`
(what an adapter implements) > :mod:`twinbench.discovery` (twin pairs) > :mod:`twinbench.reading`
(stored steps to calls) > :mod:`twinbench.decisions` (one bit per side) > :mod:`twinbench.metrics`
(rates and statistics) > :mod:`twinbench.results` (typed results) > :mod:`twinbench.render`
(every output format) > :mod:`twinbench.evaluation` and :mod:`twinbench.cli` (the commands).
The records they pass along are in :mod:`twinbench.model`; adapters in :mod:`twinbench.adapters`.
"""

from twinbench import _compat

__version__ = "0.1.0"

_compat.install()
