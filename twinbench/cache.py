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
what is in use. The files are pickles of twinbench's own records, and a pickle can run code
when it is loaded, so none is loaded unless it is sealed (:mod:`twinbench.cache_guard`): an
HMAC-SHA256 of its name and bytes under the user's own key, checked before unpickling. A file
that fails the check (forged, damaged, truncated) is never unpickled: it is recomputed and
replaced, with one warning line. The folders must be the user's alone (else the command stops
with one message); files are written whole (a temporary file renamed over the old one), so
any number of processes can share the cache.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import pickle
import re
import stat
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from twinbench import cache_guard as guard

CACHE_ENV = "TWINBENCH_CACHE"
OFF_ENV = "TWINBENCH_NO_CACHE"
FORMAT = 2  # bump to orphan every cached file (2: sealed files)

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
    return fingerprint_of(os.path.dirname(os.path.realpath(__file__)))


def fingerprint_of(package: str) -> str:
    """A hash of the ``.py`` and ``.yaml`` files below ``package`` (bytecode folders are not walked)."""
    digest = hashlib.sha256(str(FORMAT).encode())
    for folder, subfolders, names in os.walk(package):
        subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")  # bytecode: not walked
        for name in sorted(names):
            if name.endswith((".py", ".yaml")):
                path = os.path.join(folder, name)
                with open(path, "rb") as handle:
                    data = handle.read()
                digest.update(b"%s\0%d\0" % (os.path.relpath(path, package).encode(), len(data)))  # unambiguous
                digest.update(data)
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
SUFFIX = ".pickle"


_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


def _folder(kind: str, create: bool) -> Path | None:
    """``<cache>/derived/<kind>``, checked (see :func:`twinbench.cache_guard.folder`)."""
    return guard.folder(cache_root(), ("derived", kind), create)


def _label(kind: str, key: str) -> str:
    """The file's name below the cache folder, sealed with it (a kind and a key are plain names)."""
    if not (_NAME.fullmatch(kind) and _NAME.fullmatch(key)):
        raise ValueError(f"a cache kind and key are plain names, not {kind!r} and {key!r}")
    return f"derived/{kind}/{key}{SUFFIX}"


def _warn(kind: str, key: str, why: str) -> None:
    print(f"twinbench: warning: the cache file {cache_root() / _label(kind, key)} {why}; it is not loaded, "
          "and is computed again", file=sys.stderr)


def recall(kind: str, key: str, default: Any = None, warn: bool = True) -> Any:
    """The value stored for ``key`` (``default`` when there is none, or when the cache is off).

    A stored file whose seal fails is never unpickled: ``default``, with a warning (unless not ``warn``).
    """
    if not enabled():
        return default
    label = _label(kind, key)
    folder = _folder(kind, create=False)
    if folder is None:
        return default
    path = folder / f"{key}{SUFFIX}"
    try:
        data = guard.read_bytes(path)
    except FileNotFoundError:
        return default
    except OSError as exc:
        if warn:
            _warn(kind, key, f"cannot be read ({exc.strerror or exc})")
        return default
    payload = guard.unseal(label, data)
    if payload is None:
        if warn:
            _warn(kind, key, "fails its integrity check (not sealed with your cache key: damaged, truncated or forged)")
        return default
    try:
        value = _load(payload)
    except Exception as exc:  # sealed by this user, yet not loadable here (another Python, an adapter changed)
        if warn:
            _warn(kind, key, f"cannot be loaded ({type(exc).__name__})")
        return default
    _mark_used(path)
    return value


def _mark_used(path: Path) -> None:
    """Its time says when it was last used (to a day): pruning keeps what is in use."""
    try:
        if time.time() - os.lstat(path).st_mtime > 86400:
            os.utime(path, follow_symlinks=False)
    except (OSError, NotImplementedError):
        pass


def remember(kind: str, key: str, value: Any) -> None:
    """Store ``value`` for ``key`` (nothing when the cache is off)."""
    if enabled():
        _store(kind, key, value)


def cached(kind: str, key: str, compute: Callable[[], T]) -> T:
    """``compute()``, or its stored result for ``key``; the result is stored when it is new.

    A new result is computed under a lock of its own (``<key>.lock``): of processes that need
    it at once, one computes it and the others load it. (The computations a result depends on
    take their locks inside this one, always in that order, so no two processes wait on each
    other.)
    """
    value = recall(kind, key, _ABSENT)
    if value is not _ABSENT:
        return value
    with contextlib.ExitStack() as stack:
        if enabled():
            _lock(stack, kind, key)
            value = recall(kind, key, _ABSENT, warn=False)  # stored by another process meanwhile?
        if value is _ABSENT:
            value = compute()
            remember(kind, key, value)
    return value


def _lock(stack: contextlib.ExitStack, kind: str, key: str) -> None:
    try:
        folder = _folder(kind, create=True)
        stack.enter_context(guard.locked(folder / f"{key}.lock"))
    except guard.CacheRefused:
        raise
    except OSError:  # a read-only cache: computed without the lock
        pass


def _load(payload) -> Any:
    """Unpickle (a sealed payload only) with the collector paused (see :mod:`twinbench.gc_pause`)."""
    from twinbench.gc_pause import collector_paused

    with collector_paused():
        return pickle.loads(payload)


def _store(kind: str, key: str, value: Any) -> None:
    label = _label(kind, key)
    try:
        folder = _folder(kind, create=True)
    except guard.CacheRefused:
        raise
    except OSError:  # a read-only cache only costs the next run its time
        return
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    try:
        guard.write_atomic(folder / f"{key}{SUFFIX}", guard.seal(label, payload))
    except OSError:  # a read-only or full cache only costs the next run its time
        return
    prune(folder.parent)


#: a stored file unused this long is removed (a release no longer scored, an older twinbench's records)
UNUSED_DAYS = 30
_PRUNED = ".last-pruned"


def prune(derived: Path, now: float | None = None) -> int:
    """Remove the files under ``derived`` unused for :data:`UNUSED_DAYS`, at most once a day.

    Every change of the data, of a run or of twinbench itself keys new files, so without this
    the folder would only grow. Returns how many files were removed. Nothing is followed: a
    link in the folder is neither entered nor written through.
    """
    now = time.time() if now is None else now
    marker = derived / _PRUNED
    try:
        st = os.lstat(marker)
        if stat.S_ISREG(st.st_mode) and now - st.st_mtime < 86400:
            return 0
    except OSError:
        pass
    removed = 0
    try:
        kinds = [e for e in os.scandir(derived) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return 0
    for kind in kinds:
        try:
            entries = list(os.scandir(kind.path))
        except OSError:
            continue
        for entry in entries:
            try:
                if (entry.name.endswith((SUFFIX, ".tmp", ".lock")) and entry.is_file(follow_symlinks=False)
                        and now - entry.stat(follow_symlinks=False).st_mtime > UNUSED_DAYS * 86400):
                    os.unlink(entry.path)
                    removed += 1
            except OSError:
                continue
    try:  # a new file renamed over the marker: a link planted there is replaced, never written through
        guard.write_atomic(marker, [])
        os.utime(marker, (now, now), follow_symlinks=False)
    except OSError:
        pass
    return removed
