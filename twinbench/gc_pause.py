"""The cyclic garbage collector paused while a large graph of acyclic records is built.

Reading a run decodes and drops hundreds of thousands of small objects (JSON values, steps,
calls); unpickling a cached record builds tens of thousands. Almost none of them is in a cycle
(a few hundred a run are, such as a caught exception and its traceback), so reference counting
frees them, and the collections their allocations set off walk them all for next to nothing.
Outside these stretches the collector runs as usual.

What a pause leaves alive (the decisions, the readings the step memo keeps) would still be
walked by the next collections, once each, a pause's worth at a time. In twinbench's own
process (the command line sets :data:`OWN_PROCESS`) it is frozen instead (:func:`gc.freeze`)
and kept to the end of the command: reference counting still frees what is dropped, and the
few cycles of a pause stay until the command exits. A program that calls twinbench's functions
keeps its collector as it was, and the cycles are collected later, as usual.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

#: true in the command line's process: what a pause leaves alive is frozen on its way out
OWN_PROCESS = False


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic collector for the block (as it was, after: a nested pause keeps it paused)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if OWN_PROCESS:
                gc.freeze()
            gc.enable()
