"""Where the BFCL multi-turn data of one bfcl-eval release comes from.

In order: a folder the user names (``--bfcl-root``: a ``bfcl_eval`` folder or a
gorilla checkout); an installed ``bfcl_eval`` package of that release, located
without importing it (importing pulls in heavy dependencies); a per-user cache,
filled once by ``pip download --no-deps bfcl-eval==<release>`` (about 2 MB) and
unpacked, each file checked against the wheel's RECORD, and checked again on every use
(:mod:`.release_cache`). bfcl-eval's own dependencies are never installed. The first fetch is
made under a lock in the cache, so processes started together fetch it once and none of them
sees a half-unpacked release.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import attrs

from twinbench import cache_guard
from twinbench.errors import AdapterError

from . import release_cache

DEFAULT_RELEASE = "2026.3.23"
LAST_V3_RELEASE = "2025.8.5"
CACHE_ENV = "TWINBENCH_CACHE"
CATEGORIES = ("base", "long_context", "miss_func", "miss_param")
_RELEASE_RE = re.compile(r"[0-9][0-9A-Za-z]*(?:[.+-][0-9A-Za-z]+)*")  # a PEP 440 version such as 2026.3.23

@attrs.frozen
class ReleaseData:
    """A located ``bfcl_eval`` folder and what is known about it."""

    root: Path  # the bfcl_eval package folder
    release: str  # the release asked for, or "unknown" for a user folder
    source: str  # "bfcl-root", "installed" or "cache"
    prefix: str  # "BFCL_v4" or "BFCL_v3": the dataset file prefix found in it
    #: for a cached release, the SHA-256 of each file (by path) as just checked against its manifest
    digests: Mapping[str, bytes] = attrs.field(factory=dict, eq=False, repr=False)

    def question_file(self, category: str) -> Path:
        return self.root / "data" / f"{self.prefix}_multi_turn_{category}.json"

    def answer_file(self, category: str) -> Path:
        return self.root / "data" / "possible_answer" / f"{self.prefix}_multi_turn_{category}.json"

    def describe(self) -> str:
        return f"bfcl-eval {self.release} ({self.prefix} files, from {self.source}: {self.root})"


def cache_dir() -> Path:
    """The per-user cache: ``$TWINBENCH_CACHE``, else ``$XDG_CACHE_HOME/twinbench``, else ``~/.cache/twinbench``."""
    from twinbench.cache import cache_root

    return cache_root()


def _dataset_prefix(package: Path) -> str | None:
    data = package / "data"
    for prefix in ("BFCL_v4", "BFCL_v3"):
        if all((data / f"{prefix}_multi_turn_{c}.json").is_file() for c in CATEGORIES):
            return prefix
    return None


def _package_in(folder: Path) -> Path | None:
    """The bfcl_eval package folder inside a user-given folder, if any."""
    candidates = [
        folder,
        folder / "bfcl_eval",
        folder / "berkeley-function-call-leaderboard" / "bfcl_eval",
    ]
    for candidate in candidates:
        if (candidate / "data").is_dir() and _dataset_prefix(candidate):
            return candidate
    return None


def installed_package(release: str) -> Path | None:
    """An installed bfcl_eval of exactly this release, found without importing it.

    The package is looked for first: the distributions' metadata (and its import) only when one is there.
    """
    try:
        spec = importlib.util.find_spec("bfcl_eval")  # locates; does not execute the package
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    from importlib import metadata

    try:
        version = metadata.version("bfcl-eval")
    except metadata.PackageNotFoundError:
        return None
    if version != release:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    return folder if _dataset_prefix(folder) else None


Fetcher = Callable[[str, Path], Path]


def pip_fetch(release: str, into: Path) -> Path:
    """Download the bfcl-eval wheel of one release with pip, without its dependencies."""
    import subprocess

    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
           "--disable-pip-version-check", "--quiet", f"bfcl-eval=={release}", "-d", str(into)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wheels = sorted(into.glob("bfcl_eval-*.whl"))
    if proc.returncode != 0 or not wheels:
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        raise AdapterError(
            f"could not download bfcl-eval=={release} ({detail[-1] if detail else 'pip failed'}). "
            "Check --bfcl-release, or provide the data instead: --bfcl-root DIR (a bfcl_eval folder or a gorilla "
            "checkout), "
            f"or `pip install --no-deps bfcl-eval=={release}`."
        )
    return wheels[-1]


def locate(
    release: str = DEFAULT_RELEASE,
    bfcl_root: Path | None = None,
    fetcher: Fetcher | None = None,
    log: Callable[[str], None] = lambda msg: print(msg, file=sys.stderr),
) -> ReleaseData:
    """Find (or fetch once into the cache) the multi-turn data of one release."""
    if bfcl_root is not None:
        folder = Path(bfcl_root).expanduser()
        if not folder.is_dir():
            raise AdapterError(f"--bfcl-root {folder} is not a folder")
        package = _package_in(folder)
        if package is None:
            raise AdapterError(
                f"--bfcl-root {folder} holds no BFCL multi-turn data: expected "
                "bfcl_eval/data/BFCL_v4_multi_turn_base.json (or BFCL_v3_...) and the other three categories"
            )
        return ReleaseData(package, "unknown", "bfcl-root", _dataset_prefix(package) or "")

    if not _RELEASE_RE.fullmatch(release):  # it also names a cache folder: no path tricks
        raise AdapterError(f"--bfcl-release {release!r} is not a bfcl-eval version (such as {DEFAULT_RELEASE} or "
                           f"{LAST_V3_RELEASE})")
    package = installed_package(release)
    if package is not None:
        return ReleaseData(package, release, "installed", _dataset_prefix(package) or "")

    return _cached(release, fetcher or pip_fetch, log)


def _cached(release: str, fetcher: Fetcher, log: Callable[[str], None]) -> ReleaseData:
    """The release in the cache, checked; fetched (under the cache's lock for it) when absent or failing."""
    root = cache_dir()
    target = root / "bfcl-eval" / release / "bfcl_eval"
    found = release_cache.check(root, release)
    if isinstance(found, dict):
        return _cached_data(target, release, found)
    folder = cache_guard.folder(root, ("bfcl-eval",), create=True)
    assert folder is not None
    with cache_guard.locked(folder / f"{release}.lock"):
        found = release_cache.check(root, release)  # another process may have fetched it meanwhile
        if isinstance(found, dict):
            return _cached_data(target, release, found)
        if found != release_cache.ABSENT:
            log(f"twinbench: warning: the cached bfcl-eval {release} in {target} {found}; it is fetched again")
        log(f"twinbench: fetching bfcl-eval=={release} (the wheel, about 2 MB, no dependencies) into {target.parent}")
        made = not target.parent.exists()
        import tempfile

        try:
            with tempfile.TemporaryDirectory(prefix="twinbench-fetch-") as tmp:
                files = release_cache.wheel_files(fetcher(release, Path(tmp)))
            release_cache.install(root, release, files)
        except AdapterError:
            if made:  # leave no empty cache folder behind for a release that could not be fetched
                try:
                    target.parent.rmdir()
                except OSError:
                    pass
            raise
        hashes = {rel: hashlib.sha256(data).hexdigest() for rel, data in files.items()}
    return _cached_data(target, release, hashes)


def _cached_data(target: Path, release: str, hashes: Mapping[str, str]) -> ReleaseData:
    prefix = _dataset_prefix(target)
    if not prefix:
        raise AdapterError(f"bfcl-eval=={release} holds no multi-turn data files (is this a BFCL release?)")
    digests = {str(target / rel): bytes.fromhex(value) for rel, value in hashes.items()}
    return ReleaseData(target, release, "cache", prefix, digests)


def code_hashes(root: Path) -> dict[str, str] | None:
    """The release's own SHA-256 of each file under ``root`` (a located ``bfcl_eval`` folder), or None
    for a folder the user named: see :func:`.release_cache.code_hashes`."""
    return release_cache.code_hashes(root, cache_dir())
