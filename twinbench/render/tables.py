"""The plain formats every renderer builds on: aligned text tables, markdown tables, CSV, JSON.

Determinism: JSON keys are sorted, floats are rounded where they are made, and
rows come in the order the caller gives, so the same input gives the same bytes.

Width: a text table given ``width`` fits it by wrapping its text columns, and :func:`wrap`
wraps note lines; every command's text output stays within :data:`NARROW_WIDTH` columns
unless asked for one line per row (``--wide``).

Escaping: model outputs, file names and user texts are untrusted. On a terminal,
:func:`plain` shows every control character (a newline, an escape sequence, a bidi override)
as a visible escape instead of acting on it; in markdown, :func:`markdown_text` escapes the
characters that would make markup of it; CSV is quoted by the ``csv`` module; JSON by ``json``.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import textwrap
from collections.abc import Iterable, Sequence
from typing import Any

FORMATS = ("table", "json", "csv")

#: the terminal width every text output is wrapped to
NARROW_WIDTH = 100
#: a wrapped column is never made narrower than this
MIN_WRAPPED = 12

# control characters (C0, DEL, C1) and the bidirectional controls that reorder what a terminal shows
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _visible(match: re.Match) -> str:
    char = match.group()
    return _NAMED.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}")


def plain(text: str) -> str:
    """``text`` safe for a terminal: every control character shown as an escape (``\\n``, ``\\x1b``, ``\\u202e``)."""
    return _CONTROL.sub(_visible, text)


# what starts markup inside a line: escapes, code, emphasis (an underscore only at a word's edge), links (a
# bracket only where it closes a link's text), HTML tags and entities, table cells, strike-through
_MARKDOWN = re.compile(r"[\\`*<>&|~]|\](?=[(\[])|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")


def markdown_text(text: str) -> str:
    """``text`` safe inside markdown: control characters escaped as by :func:`plain`, markup characters with a
    backslash (no emphasis, code, link, HTML tag or table cell can start in it)."""
    return _MARKDOWN.sub(lambda m: "\\" + m.group(), plain(text))


def markdown_note(line: str) -> str:
    """One of twinbench's own note lines as a markdown list item's text: a leading marker (``*``, ``^``) would
    start markup, so it is escaped; the rest is twinbench's prose (model text in it is escaped where it is made)."""
    line = plain(line).replace("<", "\\<")  # no HTML tag: "<category>" is a placeholder, not markup
    return "\\" + line if line[:1] in ("*", "^", "+", "-", "#") else line


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return "-" if math.isnan(value) else f"{value:.1f}"
    if isinstance(value, (list, tuple)):
        return " ".join(_cell(v) for v in value) if value else "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return plain(str(value))


def _fit(widths: list[int], order: Sequence[int], width: int) -> list[int]:
    """Column widths within ``width`` (two spaces between columns): the columns of ``order`` are narrowed in
    that order, each as far as needed (down to :data:`MIN_WRAPPED`) before the next."""
    widths = list(widths)
    excess = sum(widths) + 2 * (len(widths) - 1) - width
    for i in order:
        if excess <= 0:
            break
        step = min(excess, max(0, widths[i] - MIN_WRAPPED))
        widths[i] -= step
        excess -= step
    return widths


def _pieces(cell: str, width: int) -> list[str]:
    """One cell's lines in a column of ``width``: words kept whole where they fit, long names cut; an indented
    cell (a nested row) continues two spaces further in."""
    if len(cell) <= width:
        return [cell]
    lead = cell[: len(cell) - len(cell.lstrip(" "))]
    return textwrap.wrap(cell, width, replace_whitespace=False,
                         subsequent_indent=lead + "  " if lead else "") or [""]


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]], align_right: Sequence[bool] | None = None,
          width: int | None = None, wrap: Sequence[int] | None = None) -> str:
    """A plain aligned text table; a header holding ``\\n`` takes several lines.

    With ``width``, a wider table wraps the text cells of its ``wrap`` columns (default: the left-aligned
    ones, widest first), narrowing each in turn as far as needed, each cell continuing on the lines below
    its row, until it fits (a column is never narrower than :data:`MIN_WRAPPED`; numbers are never cut).
    Without ``width`` every row is one line.
    """
    text_rows = [[_cell(v) for v in row] for row in rows]
    right = list(align_right) if align_right is not None else [False] * len(headers)
    widths = [max(len(line) for line in h.split("\n")) for h in headers]
    for row in text_rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))
    if width is not None:
        order = list(wrap) if wrap is not None else sorted((i for i, r in enumerate(right) if not r),
                                                           key=lambda i: -widths[i])
        widths = _fit(widths, order, width)
    head = [[piece for part in h.split("\n") for piece in _pieces(part, w)] for h, w in zip(headers, widths)]
    height = max((len(h) for h in head), default=1)
    head = [[""] * (height - len(h)) + h for h in head]  # a short header sits on the bottom line

    def line(cells: Sequence[str]) -> str:
        parts = [c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right)]
        return "  ".join(parts).rstrip()

    out = [line([h[k] for h in head]) for k in range(height)]
    out.append(line(["-" * w for w in widths]))
    for row in text_rows:
        pieces = [_pieces(cell, w) for cell, w in zip(row, widths)]
        for k in range(max(len(p) for p in pieces)):
            out.append(line([p[k] if k < len(p) else "" for p in pieces]))
    return "\n".join(out)


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A markdown table; every cell is escaped (:func:`markdown_text`); the headers are twinbench's own (a
    header's ``\\n`` is a space)."""
    out = ["| " + " | ".join(h.replace("\n", " ") for h in headers) + " |",
           "|" + "|".join("---" for _ in headers) + "|"]
    for row in rows:
        out.append("| " + " | ".join(markdown_text(_cell(v)) for v in row) + " |")
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


def one_line(text: str) -> str:
    """``text`` as one line: a cell, a note or a list item (:func:`plain`: every control character escaped)."""
    return plain(text)


def bullets(lines: Sequence[str]) -> str:
    """Markdown list items, one line each (a note may quote a model's name)."""
    return "\n".join(f"- {markdown_note(line)}" for line in lines)


def wrap(lines: Sequence[str], width: int = NARROW_WIDTH, indent: str = "  ") -> list[str]:
    """Note lines wrapped to ``width``, continuation lines indented by ``indent``; control characters in them
    are shown as escapes (:func:`plain`)."""
    return [w for line in lines for w in textwrap.wrap(plain(line), width, subsequent_indent=indent,
                                                        break_on_hyphens=False) or [""]]
