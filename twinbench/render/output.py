"""Writing a command's outputs: to standard output, or to files that never destroy an input.

A command first says which files it reads and which it will write (:func:`guard`, from
:mod:`twinbench.cli.checks`): an output that is one of its inputs (the same file by device and
inode, so a hard link or a symbolic link of an input counts as the input) or that two options name
is refused before any work. Every file is then written to a temporary file beside its target and
renamed over it only once complete, so a failure (a full disk, a kill) leaves the old file whole.

Model outputs are untrusted text, and text is made safe on the way out (:func:`safe_text`): a
lone surrogate, a control character other than tab, newline and carriage return, and the
Unicode line and paragraph separators are written as ``\\uXXXX`` escapes. In JSON that is the
escape JSON itself uses, so the value reads back the same; elsewhere it is visible text, so no
output can fail to encode, move a terminal's cursor or split a JSON line.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextvars import ContextVar
from pathlib import Path

from twinbench.errors import TwinbenchError

#: what :func:`safe_text` escapes: lone surrogates, C0 controls but tab/newline/return, DEL, C1, U+2028/U+2029
_UNSAFE = re.compile("[\ud800-\udfff\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029]")


def safe_text(text: str) -> str:
    """``text`` with every character that could break an output written as a ``\\uXXXX`` escape."""
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


class OutputError(TwinbenchError):
    """An output that would overwrite an input or another output, or that cannot be written."""


Identity = tuple[int, int]


def identity(path: Path) -> Identity | None:
    """``(st_dev, st_ino)`` of the file ``path`` names (through symbolic links); ``None`` if there is none."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


class Guard:
    """The files one command reads, and the outputs it has claimed so far."""

    def __init__(self) -> None:
        self._inputs: dict[Identity, tuple[str, Path]] = {}
        self._claimed: dict[object, tuple[str, Path]] = {}

    def protect(self, inputs: Iterable[tuple[str, Path]]) -> None:
        """Never write over these files (``(option that named them, path)`` each)."""
        for option, path in inputs:
            found = identity(Path(path))
            if found is not None:
                self._inputs.setdefault(found, (option, Path(path)))

    def claim(self, option: str, path: Path) -> None:
        """Refuse ``path`` as an output when it is an input, a folder, or another option's output."""
        path = Path(path)
        try:
            is_folder = path.is_dir()
        except OSError:
            is_folder = False
        if is_folder:
            raise OutputError(f"{option} {path} is a folder; give a file name")
        found = identity(path)
        if found is not None and found in self._inputs:
            source, where = self._inputs[found]
            same = "" if where == path else f"the same file as {where}, "
            raise OutputError(f"{option} {path} is {same}an input of this command (read through {source} "
                              f"{where}); twinbench never writes over a file it reads: give another file")
        keys = [os.path.realpath(path)] + ([found] if found is not None else [])
        for key in keys:
            if key in self._claimed and self._claimed[key] != (option, path):
                other, _ = self._claimed[key]
                raise OutputError(f"{other} and {option} name the same file ({path}); give each its own")
        for key in keys:
            self._claimed[key] = (option, path)


_GUARD: ContextVar[Guard | None] = ContextVar("twinbench_output_guard", default=None)


@contextlib.contextmanager
def session() -> Iterator[Guard]:
    """One command's outputs: every write in it checks against the same inputs and claims."""
    guard = Guard()
    token = _GUARD.set(guard)
    try:
        yield guard
    finally:
        _GUARD.reset(token)


def current() -> Guard:
    """The running command's guard (a fresh one outside a command: atomic writes, no inputs known)."""
    return _GUARD.get() or Guard()


def guard(inputs: Iterable[tuple[str, Path]], outputs: Sequence[tuple[str, Path | None]] = ()) -> None:
    """Protect the command's inputs and claim its named outputs, before any work is done."""
    found = current()
    found.protect(inputs)
    for option, path in outputs:
        if path is not None:
            found.claim(option, Path(path))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _write_atomic(target: Path, data: bytes) -> None:
    """``data`` into a new file beside ``target``, renamed over it once complete and on disk."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    while True:
        temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
        try:  # the umask applies, as it would to the file itself
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
            break
        except FileExistsError:
            continue
    try:
        try:
            _write_all(fd, data)
            if mode is not None:
                os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_text(path: Path, text: str, option: str = "--output") -> Path:
    """Write ``text`` (made safe, ending in a newline) to ``path``: claimed, then atomically.

    A symbolic link is written through (the file it names is replaced; the link stays); a pipe
    or a device is written into, as it cannot be replaced. A file that cannot be written is one
    error naming the option, and the old file is left as it was.
    """
    path = Path(path)
    current().claim(option, path)
    data = safe_text(text if text.endswith("\n") else text + "\n").encode("utf-8")
    target = Path(os.path.realpath(path))
    existed = target.exists()
    try:
        if existed and not stat.S_ISREG(os.stat(target).st_mode):
            with open(target, "wb") as handle:
                handle.write(data)
        else:
            _write_atomic(target, data)
    except OSError as exc:
        kept = "; the old file is left as it was" if existed else ""
        raise OutputError(f"{option} {path}: cannot be written ({exc.strerror or exc}){kept}") from None
    return path


def write_files(files: Sequence[tuple[str, Path, str]]) -> list[Path]:
    """Several outputs of one command (``(option, path, text)`` each): all claimed before any is written."""
    guard_now = current()
    for option, path, _ in files:
        guard_now.claim(option, Path(path))
    return [write_text(Path(path), text, option) for option, path, text in files]


def emit(text: str, output: Path | None, option: str = "--output") -> None:
    """Write to a file (creating its folder) or to standard output; a file that cannot be written
    is one error naming the option."""
    if output is None:
        sys.stdout.write(safe_text(text if text.endswith("\n") else text + "\n"))
        return
    write_text(Path(output), text, option)
