"""Writing a command's output: to standard output, or to the file an option names."""

from __future__ import annotations

import sys
from pathlib import Path


def emit(text: str, output: Path | None, option: str = "--output") -> None:
    """Write to a file (creating its folder) or to standard output; a file that cannot be written
    is one error naming the option."""
    if output is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return
    output = Path(output)
    try:
        if output.is_dir():
            raise IsADirectoryError(21, "is a folder; give a file name")
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    except OSError as exc:
        from twinbench.errors import TwinbenchError

        raise TwinbenchError(f"{option} {output}: cannot be written ({exc.strerror or exc})") from None
