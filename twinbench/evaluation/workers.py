"""How many worker processes pay for themselves: decided from the amount of input and the free cores.

Forking a worker, filling its readers and sending its decisions back costs a few tens of
milliseconds; a worker pays when the reading it takes over costs more than that, and only on a
core nobody else is using (two workers on one free core are slower than one process). So: one
process below :data:`PARALLEL_BYTES` of input (or, when a reader names no files, below
:data:`PARALLEL_FROM` runs), else one worker per free core, at most one per run. A core is free
unless the kernel's count of runnable tasks (``/proc/loadavg``, this process excluded) says
otherwise. ``TWINBENCH_WORKERS=N`` decides instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

WORKERS_ENV = "TWINBENCH_WORKERS"
#: bytes of input (result and score files) below which one process reads everything
PARALLEL_BYTES = 32 << 20
#: runs below which one process reads them all, when their readers name no files
PARALLEL_FROM = 4
LOADAVG = Path("/proc/loadavg")


def cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def busy_elsewhere(loadavg: Path = LOADAVG) -> int:
    """The tasks runnable right now besides this process (0 when the system does not say)."""
    try:
        running = loadavg.read_text().split()[3].split("/")[0]
        return max(0, int(running) - 1)
    except (OSError, IndexError, ValueError):
        return 0


def input_bytes(files: Iterable[Path]) -> int | None:
    """The size of every file to read; None when one cannot be seen (its reader will say why)."""
    total = 0
    for path in files:
        try:
            total += os.stat(path).st_size
        except OSError:
            return None
    return total


def workers_for(runs: int, size: int | None, free: int | None = None) -> int:
    """How many workers read ``runs`` runs of ``size`` bytes in all (None: unknown) on ``free`` cores."""
    wanted = os.environ.get(WORKERS_ENV)
    if wanted is not None:
        return max(1, min(runs, int(wanted))) if wanted.isdigit() else 1
    if runs < 2 or (size is None and runs < PARALLEL_FROM) or (size is not None and size < PARALLEL_BYTES):
        return 1
    if free is None:
        free = cores() - busy_elsewhere()
    return max(1, min(runs, cores(), free))
