"""The review of value-removal rewrites: ``--review FILE`` writes the table, ``--reviewed FILE`` reads it back.

The table has one row per constructed value-removed twin: its id, the item and turn it was made
from, the argument and value removed, the original and the rewritten words, the inserted turn's
words, and an ``approved`` column the reviewer fills in with ``yes`` or ``no``. A file ending in
``.md`` is written as a markdown table (for reading); any other name as CSV, the form read back.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

import attrs

from twinbench.errors import AdapterError
from twinbench.model.constructed import ValueRemoval

COLUMNS = ("id", "item", "turn", "argument", "value", "original", "rewritten", "supplied", "approved")
YES, NO = ("yes", "y", "true", "1"), ("no", "n", "false", "0")


@attrs.frozen
class Review:
    """What a filled-in review says: approved ids (with the words approved), rejected ids, rows left blank."""

    source: Path
    approved: dict[str, str]
    rejected: tuple[str, ...]
    blank: tuple[str, ...]


def _row(r: ValueRemoval) -> list[str]:
    return [r.new_id or "", r.item_id, str(r.turn), r.argument, r.value, r.original, r.rewritten, r.supplied, ""]


def review_text(removals: Sequence[ValueRemoval], markdown: bool = False) -> str:
    rows = [_row(r) for r in removals if r.perturbable]
    if markdown:
        def cell(text: str) -> str:
            return text.replace("|", "\\|").replace("\n", "<br>")
        lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
        lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
        return "\n".join(lines) + "\n"
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(rows)
    return buffer.getvalue()


def read_review(path: Path, removals: Sequence[ValueRemoval]) -> Review:
    """``--reviewed FILE``: the verdicts of a filled-in CSV review, checked against this run's rewrites."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AdapterError(f"--reviewed {path}: cannot be read ({exc})") from None
    try:
        rows = list(csv.DictReader(io.StringIO(text)))
    except csv.Error as exc:
        raise AdapterError(f"--reviewed {path}: not a CSV review ({exc})") from None
    if not rows:
        raise AdapterError(f"--reviewed {path}: holds no review rows; write the review with --review FILE")
    missing = [c for c in ("id", "rewritten", "approved") if c not in rows[0]]
    if missing:
        raise AdapterError(f"--reviewed {path}: no {', '.join(missing)} column(s); write the review with --review FILE")
    current = {r.new_id: r for r in removals if r.perturbable}
    approved: dict[str, str] = {}
    rejected: list[str] = []
    blank: list[str] = []
    for number, row in enumerate(rows, 2):
        new_id, verdict = (row.get("id") or "").strip(), (row.get("approved") or "").strip().lower()
        made = current.get(new_id)
        where = f"--reviewed {path} line {number} ({new_id or 'no id'})"
        if made is None:
            raise AdapterError(f"{where}: no value-removed twin of this run has that id")
        if (row.get("rewritten") or "") != made.rewritten:
            raise AdapterError(f"{where}: the rewritten words differ from this run's; review the new rewrite")
        if verdict in YES:
            approved[new_id] = made.rewritten
        elif verdict in NO:
            rejected.append(new_id)
        elif verdict:
            raise AdapterError(f"{where}: approved must be yes or no, not {verdict!r}")
        else:
            blank.append(new_id)
    return Review(Path(path), approved, tuple(rejected), tuple(blank))
