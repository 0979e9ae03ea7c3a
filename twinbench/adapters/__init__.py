"""Built-in adapters. Each registers through the ``twinbench.adapters`` entry-point group.

``BUILTIN`` maps the built-in names to their classes: ``--adapter bfcl`` loads its class
from here without scanning the installed entry points (the entry points list them for
``twinbench adapters`` and other tools); ``DEFAULT`` is the adapter ``--adapter`` names
when it is not given. Importing this package imports no adapter.
"""

BUILTIN = {
    "bfcl": "twinbench.adapters.bfcl:BFCLAdapter",
    "when2call": "twinbench.adapters.when2call:When2CallAdapter",
}
DEFAULT = "bfcl"
