"""The constructed-items source options an adapter with a perturber offers (``--constructed DIR``).

``--constructed DIR`` adds the twins ``twinbench perturb`` wrote in DIR to the adapter's items;
``--constructed-only`` makes them the only should-ask items, so the population is the constructed
pairs. Both are read by :func:`constructed_from_args`.
"""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

__all__ = ["cache_key_of", "constructed_arguments", "constructed_from_args"]


def constructed_arguments(group: argparse._ArgumentGroup, adapter: str) -> None:
    group.add_argument("--constructed", metavar="DIR", type=Path, default=None,
                       help=f"add the twins `twinbench perturb --adapter {adapter} --out DIR` wrote to the items "
                            "(the shipped pairs and the constructed ones together)")
    group.add_argument("--constructed-only", action="store_true",
                       help="with --constructed: the constructed twins are the only should-ask items")


def constructed_from_args(args: argparse.Namespace) -> tuple[Path | None, bool]:
    """``(--constructed, --constructed-only)``; the second without the first is a usage error."""
    from twinbench.errors import AdapterError

    folder, only = getattr(args, "constructed", None), bool(getattr(args, "constructed_only", False))
    if only and folder is None:
        raise AdapterError("--constructed-only needs --constructed DIR")
    if folder is not None and not Path(folder).expanduser().is_dir():
        raise AdapterError(f"--constructed {folder} is not a folder (write one with `twinbench perturb --out DIR`)")
    return folder, only


def cache_key_of(*parts: object) -> str:
    """One fingerprint of the shipped data's and the constructed files' (runs sharing it rank together)."""
    return hashlib.sha256(repr(parts).encode("utf-8")).hexdigest()
