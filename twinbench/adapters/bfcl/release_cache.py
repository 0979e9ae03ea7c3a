"""A bfcl-eval release kept in the twinbench cache: unpacked from its wheel, checked on every use.

The wheel's own ``RECORD`` lists the SHA-256 of each of its files. Only the files twinbench
reads are unpacked, each checked against that list first; their hashes are then kept in a
manifest inside the unpacked folder, sealed with the user's cache key
(:mod:`twinbench.cache_guard`). Every use of the cached release checks the manifest's seal, the
bytes of every file it lists, the folders on the way, and that the folders twinbench lists
(the constants, the function docs, the simulator code) hold nothing else. A release that fails
is fetched again; its simulator code is imported only from bytes that match the manifest
(:mod:`.simulator_code`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import re
import secrets
import shutil
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from twinbench import cache_guard as guard
from twinbench.errors import AdapterError

if TYPE_CHECKING:
    import zipfile

MANIFEST = ".twinbench-manifest"
_LABEL = "bfcl-eval release manifest"
#: the folders twinbench lists (by glob): they may hold nothing but the release's files
LISTED = ("constants", "data/multi_turn_func_doc", "eval_checker/multi_turn_eval/func_source_code")
_MULTI_TURN = re.compile(r"data/(?:possible_answer/)?BFCL_v[0-9]+_multi_turn_[a-z_]+\.json")
#: single files twinbench reads: bfcl-eval's own loader, read (never copied) by the test that loads constructed items
SINGLE = ("utils.py",)
#: a bound on what one wheel may unpack (the multi-turn files of a release are about 3 MB)
MAX_UNPACKED_BYTES = 256 * 2**20
_HEX64 = re.compile(r"[0-9a-f]{64}")
ABSENT = "absent"


def wanted(rel: str) -> bool:
    """Whether twinbench reads this file of a release (a path below ``bfcl_eval/``)."""
    return rel.startswith(tuple(f"{folder}/" for folder in LISTED)) or rel in SINGLE or bool(_MULTI_TURN.fullmatch(rel))


# -- the wheel ------------------------------------------------------------------------------

def _record(archive: zipfile.ZipFile, wheel: Path) -> dict[str, str]:
    """``{path in the wheel: sha256 hex}`` from the wheel's ``*.dist-info/RECORD``."""
    import csv
    import io

    names = [n for n in archive.namelist() if re.fullmatch(r"[^/]+\.dist-info/RECORD", n)]
    if len(names) != 1:
        raise AdapterError(f"could not unpack {wheel.name}: it holds no RECORD (the list of its files' hashes)")
    out: dict[str, str] = {}
    for row in csv.reader(io.StringIO(archive.read(names[0]).decode("utf-8", "replace"))):
        if len(row) >= 2 and row[1].startswith("sha256="):
            value = row[1].removeprefix("sha256=")
            try:
                out[row[0]] = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).hex()
            except (binascii.Error, ValueError):
                continue
    return out


def wheel_files(wheel: Path) -> dict[str, bytes]:
    """The files twinbench reads, ``{path below bfcl_eval/: bytes}``, each matching the wheel's RECORD."""
    import zipfile  # only when a wheel is unpacked: a command on a cached release does not pay for it

    try:
        with zipfile.ZipFile(wheel) as archive:
            record = _record(archive, wheel)
            members = []
            for info in archive.infolist():
                name = info.filename
                path = PurePosixPath(name)
                if info.is_dir() or path.is_absolute() or ".." in path.parts or "\\" in name:
                    continue
                if path.parts[0] == "bfcl_eval" and wanted("/".join(path.parts[1:])):
                    members.append(info)
            if sum(info.file_size for info in members) > MAX_UNPACKED_BYTES:
                raise AdapterError(f"could not unpack {wheel.name}: its files would take more than "
                                   f"{MAX_UNPACKED_BYTES // 2**20} MiB")
            out: dict[str, bytes] = {}
            for info in members:
                data = archive.read(info)
                expected = record.get(info.filename)
                if expected is None or hashlib.sha256(data).hexdigest() != expected:
                    raise AdapterError(f"could not unpack {wheel.name}: {info.filename} "
                                       f"{'is not in' if expected is None else 'does not match'} the wheel's RECORD")
                out[info.filename.removeprefix("bfcl_eval/")] = data
    except (zipfile.BadZipFile, OSError) as exc:
        raise AdapterError(f"could not unpack {wheel.name}: {exc}") from exc
    return out


# -- the manifest ---------------------------------------------------------------------------

def _manifest(release: str, hashes: Mapping[str, str]) -> bytes:
    payload = json.dumps({"release": release, "files": dict(sorted(hashes.items()))}, indent=0).encode("utf-8")
    return b"".join(guard.seal(_LABEL, payload))


def read_manifest(target: Path) -> tuple[str, dict[str, str]] | str:
    """``(release, {path: sha256 hex})`` from the sealed manifest in ``target``, or why there is none."""
    try:
        data = guard.read_bytes(target / MANIFEST)
    except FileNotFoundError:
        return "has no integrity manifest (it was unpacked by an older twinbench, or by hand)"
    except OSError as exc:
        return f"has a manifest that cannot be read ({exc.strerror or exc})"
    payload = guard.unseal(_LABEL, data)
    if payload is None:
        return "has a manifest that fails its integrity check (not sealed with your cache key)"
    try:
        record = json.loads(bytes(payload))
        release, files = record["release"], record["files"]
    except (ValueError, TypeError, KeyError):
        return "has a damaged manifest"
    if not (isinstance(release, str) and isinstance(files, dict)
            and all(isinstance(k, str) and isinstance(v, str) and _HEX64.fullmatch(v) for k, v in files.items())):
        return "has a damaged manifest"
    return release, files


# -- checking -------------------------------------------------------------------------------

def mismatch(root: Path, target: Path, hashes: Mapping[str, str]) -> str | None:
    """Why the tree at ``target`` is not exactly these files (None when it is).

    The folders on the way are checked like every cache folder (a loose one stops the command);
    every listed file is read (never through a link) and hashed; a folder twinbench lists may
    hold nothing else (``__pycache__`` aside: bytecode is never loaded from the cache).
    """
    base = str(target)
    folders = {""}
    for start in [*(rel.rpartition("/")[0] for rel in hashes), *LISTED]:
        while start not in folders:
            folders.add(start)
            start = start.rpartition("/")[0]
    for rel_folder in sorted(folders, key=len):
        path = os.path.join(base, rel_folder) if rel_folder else base
        try:
            guard.check_folder(root, path, os.lstat(path))
        except FileNotFoundError:
            return f"lacks the folder {rel_folder}"
    for rel, digest in hashes.items():
        try:
            data = guard.read_bytes(os.path.join(base, rel))
        except FileNotFoundError:
            return f"lacks {rel}"
        except OSError as exc:
            return f"cannot read {rel} ({exc.strerror or exc})"
        if hashlib.sha256(data).hexdigest() != digest:
            return f"has a {rel} that is not the release's"
    for listed in LISTED:
        for here, dirs, files in os.walk(os.path.join(base, listed)):
            links = [d for d in dirs if os.path.islink(os.path.join(here, d))]
            dirs[:] = [d for d in dirs if d != "__pycache__" and d not in links]
            prefix = os.path.relpath(here, base).replace(os.sep, "/")
            for name in files + links:
                if f"{prefix}/{name}" not in hashes:
                    return f"holds {prefix}/{name}, which is not the release's"
    return None


def check(root: Path, release: str) -> dict[str, str] | str:
    """The release's hashes (``{path below bfcl_eval/: sha256 hex}``) when the cached release can be
    used as it is; else why not (:data:`ABSENT` when it is not there)."""
    parent = guard.folder(root, ("bfcl-eval", release), create=False)
    if parent is None:
        return ABSENT
    target = parent / "bfcl_eval"
    if not os.path.lexists(target):
        return ABSENT
    found = read_manifest(target)
    if isinstance(found, str):
        return found
    named, hashes = found
    if named != release:
        return f"has the manifest of bfcl-eval {named}"
    return mismatch(root, target, hashes) or hashes


# -- installing -----------------------------------------------------------------------------

def install(root: Path, release: str, files: Mapping[str, bytes]) -> Path:
    """Make ``<root>/bfcl-eval/<release>/bfcl_eval`` exactly ``files`` with a sealed manifest (under the lock).

    A tree already holding exactly these files (one unpacked before manifests existed) only
    gains the manifest; anything else is unpacked beside it and renamed into place, so a
    reader sees the old tree or the new one.
    """
    parent = guard.folder(root, ("bfcl-eval", release), create=True)
    assert parent is not None
    target = parent / "bfcl_eval"
    hashes = {rel: hashlib.sha256(data).hexdigest() for rel, data in files.items()}
    manifest = _manifest(release, hashes)
    if os.path.isdir(target) and not os.path.islink(target) and mismatch(root, target, hashes) is None:
        guard.write_atomic(target / MANIFEST, [manifest])
        return target
    import tempfile

    staging = Path(tempfile.mkdtemp(prefix=".unpack-", dir=parent))
    try:
        tree = staging / "bfcl_eval"
        guard.make_dir(tree)
        for rel, data in sorted(files.items()):
            path = tree
            for part in PurePosixPath(rel).parts[:-1]:
                path = path / part
                guard.make_dir(path)
            guard.create_file(path / PurePosixPath(rel).name, data)
        guard.create_file(tree / MANIFEST, manifest)
        old = None
        if os.path.lexists(target):
            old = parent / f".old-{secrets.token_hex(6)}"
            os.rename(target, old)
        os.rename(tree, target)
        if old is not None and old.is_dir() and not old.is_symlink():
            shutil.rmtree(old, ignore_errors=True)
        elif old is not None:
            old.unlink()
    except OSError as exc:
        raise AdapterError(f"could not unpack bfcl-eval {release} into {parent}: {exc}") from exc
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def code_hashes(root: Path, cache_root: Path) -> dict[str, str] | None:
    """The release's own hashes of the files under ``root`` (a ``bfcl_eval`` folder), or None for a
    folder the user named that has none.

    A folder with a twinbench manifest (a cached release, or a copy of one) is held to it; one in
    the cache must have it. An installed bfcl-eval is held to its ``RECORD``.
    """
    cached = Path(os.path.realpath(root)).parent.parent == Path(os.path.realpath(cache_root)) / "bfcl-eval"
    if cached or os.path.lexists(root / MANIFEST):
        found = read_manifest(root)
        if isinstance(found, str):
            raise AdapterError(f"the bfcl-eval release in {root} {found}: its simulator code is not imported "
                               "(run the command again to fetch the release anew)")
        return found[1]
    return _installed_hashes(root)


def _installed_hashes(root: Path) -> dict[str, str] | None:
    import importlib.metadata

    try:
        dist = importlib.metadata.distribution("bfcl-eval")
    except importlib.metadata.PackageNotFoundError:
        return None
    if os.path.realpath(dist.locate_file("bfcl_eval")) != os.path.realpath(root):
        return None
    out: dict[str, str] = {}
    for entry in dist.files or ():
        if entry.hash is not None and entry.hash.mode == "sha256" and entry.parts[:1] == ("bfcl_eval",):
            value = entry.hash.value
            out["/".join(entry.parts[1:])] = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).hex()
    return out or None
