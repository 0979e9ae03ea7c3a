"""The plain formats every renderer builds on: aligned text tables, markdown tables, CSV, JSON.

Determinism: JSON keys are sorted, floats are rounded where they are made, and
rows come in the order the caller gives, so the same input gives the same bytes.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable, Sequence
from typing import Any

FORMATS = ("table", "json", "csv")


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return "-" if math.isnan(value) else f"{value:.1f}"
    if isinstance(value, (list, tuple)):
        return " ".join(_cell(v) for v in value) if value else "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return one_line(str(value))  # a cell is one line, whatever a model's folder name holds


_CELL_ESCAPES = str.maketrans({"\n": "\\n", "\r": "\\r", "\t": "\\t"})


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]], align_right: Sequence[bool] | None = None) -> str:
    """A plain aligned text table."""
    text_rows = [[_cell(v) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in text_rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))
    right = list(align_right) if align_right is not None else [False] * len(headers)

    def line(cells: Sequence[str]) -> str:
        parts = [c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right)]
        return "  ".join(parts).rstrip()

    out = [line(headers), line(["-" * w for w in widths])]
    out.extend(line(r) for r in text_rows)
    return "\n".join(out)


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    def esc(cell: str) -> str:
        return cell.replace("|", "\\|")

    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    for row in rows:
        out.append("| " + " | ".join(esc(_cell(v)) for v in row) + " |")
    return "\n".join(out)


def csv_text(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(headers)
    for row in rows:
        writer.writerow(["" if v is None else (";".join(map(str, v)) if isinstance(v, (list, tuple)) else v)
                         for v in row])
    return buffer.getvalue()


JSON_DECIMALS = 4  # floats are rounded so that the bytes do not depend on summation order


def _jsonable(value: Any) -> Any:
    if isinstance(value, float):
        return None if (math.isnan(value) or math.isinf(value)) else round(value, JSON_DECIMALS)
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return _jsonable(value.item())
    return value


def json_text(obj: Any) -> str:
    return json.dumps(_jsonable(obj), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def pct(value: float | None, digits: int = 1) -> float | None:
    """Round a percentage for output; NaN and None become None."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return round(float(value), digits)


#: the terminal width every text output is wrapped to
NARROW_WIDTH = 100


def one_line(text: str) -> str:
    """``text`` with any newline, return or tab shown escaped: a cell, a note or a list item stays one line."""
    return text.translate(_CELL_ESCAPES) if any(c in text for c in "\n\r\t") else text


def bullets(lines: Sequence[str]) -> str:
    """Markdown list items, one line each (a note may quote a model's name)."""
    return "\n".join(f"- {one_line(line)}" for line in lines)


def wrap(lines: Sequence[str], width: int = NARROW_WIDTH) -> list[str]:
    """Note lines wrapped to ``width``, continuation lines indented by two spaces."""
    import textwrap

    return [w for line in lines for w in textwrap.wrap(line, width, subsequent_indent="  ",
                                                        break_on_hyphens=False) or [""]]
