"""Derive once, reuse: what depends only on a leaderboard's data, kept in the twinbench cache.

Discovery, the items an adapter builds and its effect analysis depend only on the data
release and on twinbench's own code, yet cost most of a run's fixed time. They are stored
under ``<cache>/derived/`` (``$TWINBENCH_CACHE``, else ``$XDG_CACHE_HOME/twinbench``, else
``~/.cache/twinbench``), keyed by a content hash of everything they depend on **and** of
twinbench's own source files, so an unchanged release is never re-analysed and a changed one
(or a changed twinbench) always is. ``TWINBENCH_NO_CACHE=1`` turns the cache off.

Each run's decisions are kept the same way (``decisions/``), keyed by the above and by the
size, times and inode of every file the run was read from (:meth:`RunReader.sources`): a
rerun reads only the runs whose files changed (``score --fresh`` reads every run again).

A file unused for 30 days is removed (looked for at most once a day), so the folder holds
what is in use. The files are pickles that twinbench writes into the user's own cache folder (readable by
the user alone) and reads back: twinbench's own records, derived from benchmark data and, for
decisions, from the model outputs they were read off; never code. A file that cannot be read
(truncated, another Python) is ignored and rewritten.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

CACHE_ENV = "TWINBENCH_CACHE"
OFF_ENV = "TWINBENCH_NO_CACHE"
FORMAT = 1  # bump to orphan every cached file

T = TypeVar("T")


def cache_root() -> Path:
    """The per-user cache folder."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "twinbench"


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """A hash of twinbench's own source and data files: any change to the code invalidates the cache."""
    package = Path(__file__).resolve().parent
    digest = hashlib.sha256(str(FORMAT).encode())
    for path in sorted(package.rglob("*")):
        if path.suffix in (".py", ".yaml") and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(package)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def key_of(parts: Iterable[object]) -> str:
    """A cache key from strings and bytes (and the code fingerprint)."""
    digest = hashlib.sha256(code_fingerprint().encode())
    for part in parts:
        digest.update(b"\0")
        digest.update(part if isinstance(part, bytes) else str(part).encode("utf-8"))
    return digest.hexdigest()


def enabled() -> bool:
    return os.environ.get(OFF_ENV, "") in ("", "0")


_ABSENT = object()


def _path(kind: str, key: str) -> Path:
    return cache_root() / "derived" / kind / f"{key}.pickle"


def recall(kind: str, key: str, default: Any = None) -> Any:
    """The value stored for ``key`` (``default`` when there is none, or when the cache is off)."""
    if not enabled():
        return default
    path = _path(kind, key)
    try:
        with path.open("rb") as handle:
            value = _load(handle)
            stale = time.time() - os.fstat(handle.fileno()).st_mtime > 86400
    except FileNotFoundError:
        return default
    except Exception:  # a damaged or foreign file: as if absent (it is replaced when stored again)
        return default
    if stale:  # its time says when it was last used (to a day): pruning keeps what is in use
        try:
            os.utime(path)
        except OSError:
            pass
    return value


def remember(kind: str, key: str, value: Any) -> None:
    """Store ``value`` for ``key`` (nothing when the cache is off)."""
    if enabled():
        _store(_path(kind, key), value)


def cached(kind: str, key: str, compute: Callable[[], T]) -> T:
    """``compute()``, or its stored result for ``key``; the result is stored when it is new."""
    value = recall(kind, key, _ABSENT)
    if value is _ABSENT:
        value = compute()
        remember(kind, key, value)
    return value


def _load(handle) -> Any:
    """Unpickle with the collector paused: a large record graph creates no cycles to find, and the
    collections its allocations would set off cost more than the loading itself."""
    import gc

    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return pickle.load(handle)
    finally:
        if was_enabled:
            gc.enable()


def _store(path: Path, value: Any) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False, suffix=".tmp") as handle:
            pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(handle.name, path)
    except OSError:  # a read-only or full cache only costs the next run its time
        try:
            os.unlink(handle.name)
        except (OSError, UnboundLocalError):
            pass
        return
    prune(path.parent.parent)


#: a stored file unused this long is removed (a release no longer scored, an older twinbench's records)
UNUSED_DAYS = 30
_PRUNED = ".last-pruned"


def prune(derived: Path, now: float | None = None) -> int:
    """Remove the files under ``derived`` unused for :data:`UNUSED_DAYS`, at most once a day.

    Every change of the data, of a run or of twinbench itself keys new files, so without this
    the folder would only grow. Returns how many files were removed.
    """
    now = time.time() if now is None else now
    marker = derived / _PRUNED
    try:
        if now - marker.stat().st_mtime < 86400:
            return 0
    except OSError:
        pass
    removed = 0
    for path in derived.glob("*/*"):
        try:
            if path.suffix in (".pickle", ".tmp") and now - path.stat().st_mtime > UNUSED_DAYS * 86400:
                path.unlink()
                removed += 1
        except OSError:
            continue
    try:
        marker.touch()
        os.utime(marker, (now, now))
    except OSError:
        pass
    return removed
