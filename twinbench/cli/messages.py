"""What a command says on standard error: warnings, skipped runs, and why nothing was scored.

Every message starts with ``twinbench:`` and is one line (so that it can be searched for; a
few errors list the folders skipped, one indented line each), with control characters shown as
escapes: messages quote file names and model outputs, which must not act on the terminal. They
reach standard error whatever ``--format`` and ``--output`` say.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

from twinbench.render.tables import plain


def say(line: str) -> None:
    """One message on standard error."""
    print("\n".join(plain(part) for part in f"twinbench: {line}".split("\n")), file=sys.stderr)


def warn_all(lines: Iterable[str]) -> None:
    for line in lines:
        say(line)


def skipped(folders: Iterable[tuple[str, str]], prefix: str = "") -> None:
    """Each folder or file that was not scored, with its reason."""
    for folder, reason in folders:
        say(f"{prefix}skipped {folder}: {reason}")
