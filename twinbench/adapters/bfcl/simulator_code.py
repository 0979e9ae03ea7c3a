"""The simulator's modules, imported only from the release's own bytes.

While :func:`checked_imports` is active, every module of the simulator package is found by
this finder alone: the file ``<folder>/<name>.py`` is read once (never through a link), its
SHA-256 compared with the release's (:func:`.release.code_hashes`), and the module compiled
from exactly those bytes. Bytecode files are never read (a ``__pycache__`` beside the code
could hold anything) nor written, and no other kind of module (a compiled extension, a
folder) is loaded from there. Without hashes (a folder the user named) the bytes are used as
they are.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.abc
import importlib.util
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

from twinbench.cache_guard import read_bytes
from twinbench.errors import AdapterError


class _Source(importlib.abc.SourceLoader):
    """A loader of one checked source: no bytecode is read or written (it has no ``path_stats``)."""

    def __init__(self, path: Path, data: bytes) -> None:
        self.path, self.data = path, data

    def get_filename(self, fullname: str) -> str:
        return str(self.path)

    def get_data(self, path: str) -> bytes:
        if path != str(self.path):
            raise OSError(f"{path} is not the checked source")
        return self.data


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, package: str, folder: Path, root: Path, hashes: Mapping[str, str] | None) -> None:
        self.package, self.folder, self.root, self.hashes = package, folder, root, hashes

    def find_spec(self, fullname, path=None, target=None):  # noqa: ARG002
        if not fullname.startswith(self.package + "."):
            return None
        name = fullname[len(self.package) + 1:]
        file = self.folder / f"{name}.py"
        try:
            data = read_bytes(file) if name.isidentifier() else None
        except FileNotFoundError:
            data = None
        except OSError as exc:
            raise AdapterError(f"cannot read the simulator module {file}: {exc.strerror or exc}") from None
        if data is None:  # nothing else is looked for in the folder
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        if self.hashes is not None:
            try:
                expected = self.hashes.get(file.relative_to(self.root).as_posix())
            except ValueError:  # a file outside the release
                expected = None
            if expected is None or hashlib.sha256(data).hexdigest() != expected:
                raise AdapterError(
                    f"the simulator module {file} {'is not part of' if expected is None else 'does not match'} "
                    "the release (its SHA-256 is not the release's): it is not imported")
        return importlib.util.spec_from_file_location(fullname, file, loader=_Source(file, data))


@contextlib.contextmanager
def checked_imports(package: str, folder: Path, root: Path, hashes: Mapping[str, str] | None) -> Iterator[None]:
    """Within the block, the modules of ``package`` come from ``folder`` through :class:`_Finder`.

    ``hashes`` maps paths relative to ``root`` (the release's ``bfcl_eval`` folder) to SHA-256.
    """
    finder = _Finder(package, Path(folder), Path(root), hashes)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
