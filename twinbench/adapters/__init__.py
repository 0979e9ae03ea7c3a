"""Built-in adapters. Each registers through the ``twinbench.adapters`` entry-point group.

``BUILTIN`` is used only when twinbench runs from a source tree that was never
installed (no entry-point metadata); ``DEFAULT`` is the adapter ``--adapter`` names
when it is not given. Importing this package imports no adapter.
"""

BUILTIN = {
    "bfcl": "twinbench.adapters.bfcl:BFCLAdapter",
    "when2call": "twinbench.adapters.when2call:When2CallAdapter",
}
DEFAULT = "bfcl"
