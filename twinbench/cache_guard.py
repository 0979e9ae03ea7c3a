"""What keeps the twinbench cache data: checked folders, a per-user key, sealed files, safe writes.

twinbench loads what it finds in its cache (pickled records, the simulator code of a release),
so a file there is only as trustworthy as whoever could write it. Four guards:

- **Folders.** The cache root and every folder below it on the way to a file must be owned by
  the user and writable by nobody else (mode ``go-w``), and a folder below the root must not be
  a symbolic link; anything else is refused with one message. Folders twinbench makes are 0700.
  A team cache (``TWINBENCH_SHARED_CACHE=1``) may have folders owned by teammates and writable
  by the group, never by every user.
- **A key.** A secret of 32 random bytes, kept outside the cache (``TWINBENCH_CACHE_KEY_FILE``,
  else ``$XDG_CONFIG_HOME/twinbench/cache-key``, else ``~/.config/twinbench/cache-key``), made
  once, mode 0600, readable by the user alone (a team cache uses a key the team shares).
- **Sealed files.** Every stored file carries an HMAC-SHA256 of its name and bytes under that
  key, checked over the bytes *before* anything is decoded: a forged, flipped or truncated file
  fails the check and is never unpickled.
- **Safe writes.** A file is written to a new temporary file beside its target (created
  exclusively, never through a link) and renamed over it, so a reader sees the old file or the
  new one, never a part, and a symbolic link planted at the target is replaced, not followed.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import os
import secrets
import stat
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from twinbench.errors import TwinbenchError

SHARED_ENV = "TWINBENCH_SHARED_CACHE"
KEY_ENV = "TWINBENCH_CACHE_KEY_FILE"
#: the first bytes of every sealed file; the format's number is part of it
MAGIC = b"twinbench-sealed-1\n"
TAG_BYTES = hashlib.sha256().digest_size
KEY_BYTES = 32
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class CacheRefused(TwinbenchError):
    """A cache folder or key that someone other than the user could have written."""


def shared() -> bool:
    """Whether the user declared the cache a team's (``TWINBENCH_SHARED_CACHE=1``)."""
    return os.environ.get(SHARED_ENV, "") not in ("", "0")


def dir_mode() -> int:
    return 0o770 if shared() else 0o700


def file_mode() -> int:
    return 0o640 if shared() else 0o600


# -- folders --------------------------------------------------------------------------------

def _loose(st: os.stat_result) -> str | None:
    """Why a folder with this status could have been written by someone else (None: it could not)."""
    mode = stat.S_IMODE(st.st_mode)
    if shared():
        if mode & 0o002:
            return f"is writable by every user (mode {mode:04o})"
        return None
    if st.st_uid != os.geteuid():
        return f"is owned by another user (uid {st.st_uid})"
    if mode & 0o022:
        return f"is writable by {'its group' if mode & 0o020 else 'every user'} (mode {mode:04o})"
    return None


def refuse_folder(root: Path, folder: Path | str, why: str) -> CacheRefused:
    remedy = ("make it writable by its owner and group only" if shared() else
              f"make it yours and writable by you alone (chmod go-w), set TWINBENCH_CACHE to a folder of "
              f"your own, or declare a team cache with {SHARED_ENV}=1 and a shared {KEY_ENV}")
    return CacheRefused(f"the twinbench cache {root} is not safe to use: {folder} {why}. twinbench loads what "
                        f"it finds there, so it uses only a cache folder that no one else can write; {remedy} "
                        "(see the security page of the docs)")


def check_folder(root: Path, folder: Path | str, st: os.stat_result, *, link_allowed: bool = False) -> None:
    """Refuse ``folder`` (of the cache at ``root``) unless only the user (or the team) could write it."""
    if stat.S_ISLNK(st.st_mode) and not link_allowed:
        raise refuse_folder(root, folder, "is a symbolic link")
    if not stat.S_ISDIR(st.st_mode):
        raise refuse_folder(root, folder, "is not a folder")
    why = _loose(st)
    if why:
        raise refuse_folder(root, folder, why)


def make_dir(path: Path) -> None:
    """A new folder with :func:`dir_mode` (an existing one is left as it is)."""
    try:
        os.mkdir(path, dir_mode())
    except FileExistsError:
        return
    if shared():  # the umask would take the group's bits away; keep a set-group-id bit inherited
        os.chmod(path, dir_mode() | (os.stat(path).st_mode & stat.S_ISGID))


def folder(root: Path, parts: Sequence[str], create: bool) -> Path | None:
    """``root/parts...`` once each folder on the way is checked; made when ``create`` (else None when absent).

    The root may be a link the user made (``~/.cache`` elsewhere); below it nothing is followed.
    """
    try:
        st = os.stat(root)
    except FileNotFoundError:
        if not create:
            return None
        root.parent.mkdir(parents=True, exist_ok=True)
        make_dir(root)
        st = os.stat(root)
    check_folder(root, root, st, link_allowed=True)
    path = root
    for part in parts:
        path = path / part
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            if not create:
                return None
            make_dir(path)
            st = os.lstat(path)
        check_folder(root, path, st)
    return path


# -- the key --------------------------------------------------------------------------------

def key_path() -> Path:
    """Where the key is; a team cache must name the key the team shares (its members' own keys differ)."""
    if os.environ.get(KEY_ENV):
        return Path(os.environ[KEY_ENV]).expanduser()
    if shared():
        raise CacheRefused(f"a team cache ({SHARED_ENV}=1) is sealed with a key the team shares: set {KEY_ENV} "
                           "to that key file (readable by the team, writable by no one else; see the security "
                           "page of the docs)")
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "twinbench" / "cache-key"


def key() -> bytes:
    """The secret that seals cache files, made on first use."""
    return _key_at(str(key_path()), shared())


def _refuse_key(path: Path, why: str) -> CacheRefused:
    return CacheRefused(f"the twinbench cache key {path} {why}; anyone who can read or replace it can make "
                        "cache files that twinbench would load. Fix it, or delete it and a new one is made "
                        "(see the security page of the docs)")


def _cannot_make(path: Path, exc: OSError) -> CacheRefused:
    return CacheRefused(f"cannot make the twinbench cache key {path} ({exc.strerror or exc}): set {KEY_ENV} to a "
                        "file in a folder of your own, or turn the cache off with TWINBENCH_NO_CACHE=1")


@functools.lru_cache(maxsize=8)
def _key_at(name: str, team: bool) -> bytes:
    path = Path(name)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        parent = os.stat(path.parent)
    except OSError as exc:
        raise _cannot_make(path, exc) from None
    if stat.S_IMODE(parent.st_mode) & (0o002 if team else 0o022) or (not team and parent.st_uid not in (0, os.geteuid())):
        raise _refuse_key(path, f"is in {path.parent}, a folder others can write")
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC)
    except FileNotFoundError:
        try:
            _make_key(path, 0o640 if team else 0o600)
        except OSError as exc:
            raise _cannot_make(path, exc) from None
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC)
    except OSError as exc:
        raise _refuse_key(path, f"cannot be opened ({exc.strerror}; a symbolic link is not followed)") from None
    with open(fd, "rb") as handle:
        st = os.fstat(fd)
        secret = handle.read(4096)
    mode = stat.S_IMODE(st.st_mode)
    if not stat.S_ISREG(st.st_mode):
        raise _refuse_key(path, "is not a file")
    if team and mode & 0o026:
        raise _refuse_key(path, f"is writable by others or readable by every user (mode {mode:04o})")
    if not team and (mode & 0o077 or st.st_uid != os.geteuid()):
        raise _refuse_key(path, f"is not yours alone (mode {mode:04o}, uid {st.st_uid})")
    if len(secret) < KEY_BYTES:
        raise _refuse_key(path, f"holds {len(secret)} bytes (at least {KEY_BYTES} random bytes are needed)")
    return secret


def _make_key(path: Path, mode: int) -> None:
    """Write a new key beside ``path`` and link it there: of two processes making it at once, one key wins."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".cache-key.")
    try:
        os.fchmod(fd, mode)
        os.write(fd, secrets.token_bytes(KEY_BYTES))
        os.close(fd)
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
    finally:
        os.unlink(tmp)


# -- sealed files ----------------------------------------------------------------------------

def _tag(label: str, payload: memoryview | bytes) -> bytes:
    mac = hmac.new(key(), label.encode("utf-8") + b"\0", hashlib.sha256)
    mac.update(payload)
    return mac.digest()


def seal(label: str, payload: bytes) -> list[bytes]:
    """The chunks of a sealed file: the magic, the tag of ``label`` (the file's name) and the payload."""
    return [MAGIC, _tag(label, payload), payload]


def unseal(label: str, data: bytes) -> memoryview | None:
    """The payload of a sealed file, or None when it was not sealed under ``label`` with this key."""
    start = len(MAGIC) + TAG_BYTES
    if len(data) < start or not data.startswith(MAGIC):
        return None
    payload = memoryview(data)[start:]
    if not hmac.compare_digest(data[len(MAGIC):start], _tag(label, payload)):
        return None
    return payload


# -- reading and writing ---------------------------------------------------------------------

def read_bytes(path: Path | str) -> bytes:
    """A regular file's bytes, opened without following a link (OSError otherwise)."""
    fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC)
    with open(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise IsADirectoryError(f"{path} is not a regular file")
        return handle.read()


def write_atomic(target: Path, chunks: Iterable[bytes]) -> None:
    """Write ``target`` through a new temporary file in its folder, renamed over it when complete."""
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with open(fd, "wb") as handle:
            if shared():
                os.fchmod(fd, file_mode())
            for chunk in chunks:
                handle.write(chunk)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def create_file(path: Path, data: bytes) -> None:
    """A new file (never an existing one, never through a link) with :func:`file_mode`."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, file_mode())
    with open(fd, "wb") as handle:
        if shared():
            os.fchmod(fd, file_mode())
        handle.write(data)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on the file ``path`` (made if absent, never through a link)."""
    import fcntl

    fd = os.open(path, os.O_RDONLY | os.O_CREAT | _NOFOLLOW | _CLOEXEC, file_mode())
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock
