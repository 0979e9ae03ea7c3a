"""Reading BFCL's JSON-lines files: in chunks split at newlines, each line decoded once (msgspec) to the fields twinbench needs.

Bad user data never raises a traceback: per-line problems become ``bad_lines`` and ``warnings``;
fatal problems raise :class:`ResultsError`.
"""

from __future__ import annotations

import json
from collections.abc import Container, Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs
import msgspec

from twinbench.adapters.bfcl.tree import ResultsError

_EXAMPLES = 5  # how many example ids a summary warning names


def _count(n: int, singular: str, plural: str | None = None) -> str:
    return f"{n} {singular if n == 1 else (plural or singular + 's')}"


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _examples(ids: Sequence[str]) -> str:
    shown = ", ".join(_clip(i) for i in ids[:_EXAMPLES])
    return shown + (f", ... ({len(ids)} in all)" if len(ids) > _EXAMPLES else "")


@attrs.define
class _LineStats:
    nonblank: int = 0
    bad_utf8: int = 0
    first_bad_utf8: int = 0


class _Message(msgspec.Struct):
    role: Any = None
    content: msgspec.Raw = None  # decoded only for a user message (a system prompt is never read)


class _TurnLog(msgspec.Struct):
    begin_of_turn_query: list[_Message] | None = None


class _ResultLine(msgspec.Struct):
    """A result line as the fast path decodes it: ``result`` still encoded (only the turns read are
    decoded), the messages of ``inference_log`` (their contents still encoded), nothing else."""

    id: Any = None
    result: msgspec.Raw = None
    inference_log: list[_TurnLog | list[msgspec.Raw]] | None = None


class _IdOnly(msgspec.Struct):
    id: Any = None


class _ScoreDetails(msgspec.Struct):
    execution_result: list[msgspec.Raw] | None = None


class _ScoreError(msgspec.Struct):
    error_type: Any = None
    error_message: Any = None
    execution_result: list[msgspec.Raw] | None = None  # only their number is read (the failing turn)
    details: _ScoreDetails | None = None


class _ScoreLine(msgspec.Struct):
    id: Any = None
    error: _ScoreError | None = None
    error_type: Any = None
    model_name: Any = None
    # the result BFCL scored, kept as JSON text to check against (a Raw cannot be in a union: empty when absent)
    model_result: msgspec.Raw = msgspec.Raw()
    model_result_raw: msgspec.Raw = msgspec.Raw()


_UNSET = object()


_ID_START = b'{"id": "'
_ID_MAX = 200  # bytes: an id is short; a longer one is left to the full decoding


def leading_id(line: bytes) -> str | None:
    """The id a line starts with (``{"id": "...``), read off its first bytes; ``None`` when the line
    does not start that way or the id holds an escape or a non-ASCII byte (the full decoding reads it)."""
    if not line.startswith(_ID_START):
        return None
    end = line.find(b'"', 8, 8 + _ID_MAX)
    if end <= 8:
        return None
    found = line[8:end]
    if b"\\" in found or not found.isascii():
        return None
    return found.decode("ascii")


def _result_fields(line: bytes, keep_ids: Container[str] | None = None, *, _decoder=msgspec.json.Decoder(_ResultLine),
                   _ids=msgspec.json.Decoder(_IdOnly)) -> _ResultLine:
    """A result line's id, encoded ``result`` and logged user messages; only the id of a line whose id is
    not in ``keep_ids``. Raises on whatever the stdlib path must decide (invalid UTF-8 anywhere in the
    line, invalid JSON, no id), so that the line is refused or decoded there exactly as before.

    A line dropped for its id is still checked whole: its syntax (every field skipped, nothing built) and
    its UTF-8, so a truncated or malformed line is refused and counted whether it is scored or not.
    """
    if not line.isascii():
        line.decode("utf-8")  # raises on an invalid byte: the stdlib path counts and replaces it
    if keep_ids is not None:
        found = leading_id(line)
        if found is not None and found not in keep_ids:
            if _ids.decode(line).id != found:  # the syntax of the whole line; a repeated "id" key wins last
                raise ValueError("the id is not the first one")
            return _ResultLine(id=found)
    value = _decoder.decode(line)
    if value.id is None:  # no id (or a summary-like line): let the stdlib path say what it is
        raise ValueError("no id")
    return value


_ANY = msgspec.json.Decoder()
_TURNS = msgspec.json.Decoder(list[list[msgspec.Raw]])


def _score_fields(line: bytes, decoder=msgspec.json.Decoder(_ScoreLine)) -> dict[str, Any]:
    value = decoder.decode(line)
    if value.id is None:
        raise ValueError("no id")
    out: dict[str, Any] = {"id": value.id}
    if value.error is not None:
        error = value.error
        out["error"] = {"error_type": error.error_type}
        if error.error_message is not None:
            out["error"]["error_message"] = error.error_message
        if error.execution_result is not None:
            out["error"]["execution_result"] = [None] * len(error.execution_result)
        if error.details is not None:
            records = error.details.execution_result
            out["error"]["details"] = {} if records is None else {"execution_result": [None] * len(records)}
    if value.error_type is not None:
        out["error_type"] = value.error_type
    if value.model_name is not None:
        out["model_name"] = value.model_name
    for stored in (bytes(value.model_result_raw), bytes(value.model_result)):
        if stored and stored != b"null":
            out["model_result"] = stored
            break
    return out


_CHUNK_BYTES = 1 << 22


def _lines(handle) -> Iterator[bytes]:
    """The lines of a binary file as iterating it gives them (split after each ``\\n``), read in large
    chunks: several times faster on long lines. A line longer than a chunk is joined once from its
    pieces, so the work stays linear in the file; one chunk and one line are held at a time."""
    pieces: list[bytes] = []
    while True:
        chunk = handle.read(_CHUNK_BYTES)
        if not chunk:
            break
        start = 0
        end = chunk.find(b"\n")
        while end >= 0:
            if pieces:
                pieces.append(chunk[start:end + 1])
                line = b"".join(pieces)
                pieces = []
            else:
                line = chunk[start:end + 1]
            yield line
            del line
            start = end + 1
            end = chunk.find(b"\n", start)
        if start < len(chunk):
            pieces.append(chunk[start:] if start else chunk)
        del chunk
    if pieces:
        yield b"".join(pieces)


def _json_lines(path: Path, stats: _LineStats, fast=None) -> Iterator[tuple[int, Any, str | None]]:
    """Yield ``(line number, decoded value or None, problem or None)`` for each non-blank line.

    Only one line is held at a time (plus one pending invalid line, so that an invalid
    last line can be reported as truncated). ``fast`` decodes a line into the fields the
    caller needs; a line it refuses is decoded whole with ``json``.
    """
    pending: tuple[int, str, bool] | None = None  # (line, message, looks truncated)
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise ResultsError(f"cannot open {path}: {exc.strerror or exc}") from None
    with handle:
        try:
            for lineno, raw in enumerate(_lines(handle), 1):
                if not raw or raw.isspace():
                    continue
                stats.nonblank += 1
                if pending is not None:
                    yield pending[0], None, f"invalid JSON ({pending[1]})"
                    pending = None
                had_newline = raw.endswith(b"\n")
                if fast is not None:
                    try:
                        value = fast(raw)
                    except Exception:  # the stdlib path below decides what the line is
                        value = _UNSET
                    if value is not _UNSET:
                        del raw
                        yield lineno, value, None
                        del value
                        continue
                try:
                    try:
                        value = json.loads(raw)
                    except UnicodeDecodeError:
                        stats.bad_utf8 += 1
                        stats.first_bad_utf8 = stats.first_bad_utf8 or lineno
                        value = json.loads(raw.decode("utf-8", errors="replace"))
                except json.JSONDecodeError as exc:
                    at_end = exc.pos >= len(raw.rstrip()) - 1 or exc.msg.startswith("Unterminated")
                    where = "character" if exc.msg.endswith(" at") else "at character"
                    pending = (lineno, f"{exc.msg} {where} {exc.pos + 1}", at_end or not had_newline)
                    continue
                except (ValueError, RecursionError) as exc:
                    yield lineno, None, f"invalid JSON ({type(exc).__name__}: {exc})"
                    continue
                del raw
                yield lineno, value, None
                del value  # let the caller be the only holder of the decoded line
        except OSError as exc:
            raise ResultsError(f"error while reading {path}: {exc.strerror or exc}") from None
    if pending is not None:
        if pending[2]:
            yield pending[0], None, f"truncated last line (invalid JSON: {pending[1]})"
        else:
            yield pending[0], None, f"invalid JSON ({pending[1]})"


def _check_file(path: Path) -> Path:
    try:
        if not path.exists():
            raise ResultsError(f"{path} does not exist")
        if not path.is_file():
            raise ResultsError(f"{path} is not a file")
    except OSError as exc:
        raise ResultsError(f"cannot access {path}: {exc.strerror or exc}") from None
    return path


def _common_warnings(stats: _LineStats, bad_lines: list[tuple[int, str]], kind: str) -> list[str]:
    warnings: list[str] = []
    if stats.nonblank == 0:
        warnings.append(f"the {kind} file is empty")
    if stats.bad_utf8:
        warnings.append(
            f"{_count(stats.bad_utf8, 'line')} with invalid UTF-8 bytes (first: line {stats.first_bad_utf8}); "
            "they were decoded with U+FFFD replacement characters"
        )
    if bad_lines:
        shown = "; ".join(f"line {n}: {reason}" for n, reason in bad_lines[:_EXAMPLES])
        more = f"; ... ({len(bad_lines)} in all)" if len(bad_lines) > _EXAMPLES else ""
        warnings.append(f"{_count(len(bad_lines), 'unusable line')} skipped: {shown}{more}")
    return warnings
