"""Reading one BFCL result file: each line reduced to its ``result`` steps and the user texts of ``inference_log``, then dropped.

A line whose id is not asked for is dropped from its first bytes (its syntax and UTF-8 still
checked); of the others only ``result`` and the user messages are decoded, and of ``result`` only
the turns asked for.
"""

from __future__ import annotations

import sys
from collections.abc import Collection, Container, Mapping
from pathlib import Path
from typing import Any

import attrs
import msgspec

from twinbench.adapters.bfcl.lines import (
    _ANY,
    _EXAMPLES,
    _TURNS,
    _check_file,
    _common_warnings,
    _count,
    _examples,
    _json_lines,
    _LineStats,
    _result_fields,
    _ResultLine,
)
from twinbench.adapters.bfcl.tree import _parse_name


@attrs.frozen
class ResultEntry:
    """One line of a result file, reduced to what twinbench needs.

    ``turns`` is the line's ``result`` (per turn, per step, the raw step values as
    decoded from JSON) or ``None`` when there is no usable rollout; then ``error``
    says why (the harness's "Error during inference: ..." text, or a format problem).
    ``logged_user_turns`` holds, per turn of ``inference_log``, the contents of the
    user messages of ``begin_of_turn_query``; ``None`` when the line has no log.
    ``line`` is the 1-based line number the entry was read from. When the file was read for some
    turns only (``read_result_file(turns=...)``), a turn not asked for is ``None`` in ``turns``.
    """

    id: str
    turns: tuple[tuple[Any, ...] | None, ...] | None
    error: str | None = None
    logged_user_turns: tuple[tuple[str, ...], ...] | None = None
    line: int = 0
    #: the ``result`` is not a list of turns of steps (a format problem, not a stored error)
    unreadable: bool = False
    #: per turn of ``turns``, each step as it is stored (its JSON bytes), for a reader that reads each
    #: distinct step once; ``None`` for a turn not read, or when the line was decoded by the stdlib path
    stored_steps: tuple[tuple[bytes, ...] | None, ...] | None = attrs.field(default=None, eq=False, repr=False)
    #: the whole ``result`` as stored (its JSON bytes) when the fast path read it, every turn included:
    #: what a score file's stored result is compared with (see :func:`stored_result`)
    stored_whole: bytes | None = attrs.field(default=None, eq=False, repr=False)


@attrs.frozen
class ResultFile:
    """Everything read from one result file.

    ``entries`` maps id -> entry in file order (first occurrence wins);
    ``duplicates`` lists ids seen more than once; ``bad_lines`` holds
    ``(line number, reason)`` for lines that could not be used; ``empty`` is true
    when the file holds no non-blank line; ``other_ids`` counts lines skipped because
    their id was not in ``keep_ids``. ``version``/``category`` come from the file name
    (``None`` when it does not follow the BFCL naming).
    """

    path: Path
    entries: Mapping[str, ResultEntry]
    duplicates: tuple[str, ...] = ()
    bad_lines: tuple[tuple[int, str], ...] = ()
    empty: bool = False
    other_ids: int = 0
    warnings: tuple[str, ...] = ()
    version: str | None = None
    category: str | None = None
    #: every id of the file, kept or not (what a score file's failed ids are checked against)
    ids: frozenset[str] = frozenset()

    @property
    def error_ids(self) -> tuple[str, ...]:
        """Ids of the entries without a usable rollout."""
        return tuple(entry_id for entry_id, entry in self.entries.items() if entry.turns is None)

    @property
    def error_count(self) -> int:
        return sum(1 for entry in self.entries.values() if entry.turns is None)


def _message_text(content: Any) -> str | None:
    """The text of a message ``content``: a str, or a list of text parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            part if isinstance(part, str) else part.get("text")
            for part in content
            if isinstance(part, str) or (isinstance(part, dict) and isinstance(part.get("text"), str))
        ]
        if parts:
            return "".join(parts)
    return None


def _logged_user_turns(log: Any) -> tuple[tuple[tuple[str, ...], ...] | None, str | None]:
    """User texts per turn of an ``inference_log``, and a problem description or ``None``."""
    if not isinstance(log, list):
        return None, f"inference_log is a {type(log).__name__}, not a list"
    turns: list[tuple[str, ...]] = []
    problem: str | None = None
    for element in log:
        if isinstance(element, list):  # a state log
            continue
        if not isinstance(element, dict):
            problem = problem or f"inference_log holds a {type(element).__name__} element"
            continue
        query = element.get("begin_of_turn_query")
        texts: list[str] = []
        if isinstance(query, list):
            for message in query:
                if isinstance(message, dict) and message.get("role") == "user":
                    text = _message_text(message.get("content"))
                    if text is None:
                        problem = problem or "a user message in begin_of_turn_query has no text content"
                    else:
                        texts.append(text)
        elif query is not None:
            problem = problem or f"begin_of_turn_query is a {type(query).__name__}, not a list"
        else:
            problem = problem or "a turn log has no begin_of_turn_query"
        turns.append(tuple(texts))
    return tuple(turns), problem


def _same(a: Any, b: Any) -> bool:
    """``a == b``; values nested too deep to compare count as different (no RecursionError)."""
    try:
        return bool(a == b)
    except RecursionError:
        return False


def stored_result(entry: ResultEntry) -> Any:
    """The line's ``result`` as BFCL's score file stores it (turns of steps, or the error text);
    ``None`` when the result was no rollout at all (nothing to compare)."""
    if entry.turns is not None:
        if entry.stored_whole is not None:  # read for some turns only: the whole value as stored
            try:
                return _decoded(entry.stored_whole)
            except (ValueError, RecursionError):
                return None  # nothing to compare
        return [list(turn) for turn in entry.turns]
    return None if entry.unreadable else entry.error


def _logged_user_turns_decoded(log: list) -> tuple[tuple[tuple[str, ...], ...], str | None]:
    """:func:`_logged_user_turns` of the fast path's ``inference_log`` (its turn logs as decoded there,
    each user message's content still encoded): the same texts and the same problem."""
    turns: list[tuple[str, ...]] = []
    problem: str | None = None
    for element in log:
        if isinstance(element, list):  # a state log
            continue
        query = element.begin_of_turn_query
        if query is None:
            problem = problem or "a turn log has no begin_of_turn_query"
            turns.append(())
            continue
        texts: list[str] = []
        for message in query:
            if message.role == "user":
                text = None if message.content is None else _message_text(_ANY.decode(message.content))
                if text is None:
                    problem = problem or "a user message in begin_of_turn_query has no text content"
                else:
                    texts.append(text)
        turns.append(tuple(texts))
    return tuple(turns), problem


_STEP_TYPES = (str, list, dict, type(None))  # None: an empty reply


def _turns_of(result: Any) -> tuple[tuple[tuple[Any, ...], ...] | None, str | None, bool]:
    """``(turns, error, is_format_problem)`` for a line's ``result`` value.

    A usable result is a non-empty list of turns, each a list of steps, each step a
    string, a list, an object or null (an empty reply). Anything else is a format problem ("unreadable rollout"),
    never a rollout that made no call.
    """
    if isinstance(result, list):
        if not result:
            return None, "result is an empty list (no turn at all)", True
        turns: list[tuple[Any, ...]] = []
        for index, turn in enumerate(result):
            if not isinstance(turn, list):
                return None, f"result turn {index} is a {type(turn).__name__}, not a list of steps", True
            odd = [step for step in turn if not isinstance(step, _STEP_TYPES)]
            if odd:
                return None, f"result turn {index} holds a {type(odd[0]).__name__} step, not text or a call", True
            turns.append(tuple(turn))
        return tuple(turns), None, False
    if isinstance(result, str):
        return None, result, False
    if result is None:
        return None, "no result", True
    return None, f"result is a {type(result).__name__}, not a list of turns", True


#: the first byte of a step value that is text, a list, an object or null (what a step may be)
_STEP_STARTS = frozenset(b'"[{n')
#: the most digits an integer may have for Python's json to read it (0: no limit, nothing to look for)
_LONGEST_PLAIN_NUMBER = sys.get_int_max_str_digits()


def _stored_turns(encoded: msgspec.Raw, read: Collection[int] | None) -> tuple[Any, str | None, bool, Any]:
    """:func:`_turns_of` of an encoded ``result``, and the steps as stored: ``(turns, error,
    is_format_problem, stored)``. Only the turns in ``read`` (every turn when ``None``) are decoded;
    the others are ``None`` in ``turns`` and ``stored``, their steps' kinds checked from their first
    byte (a step of another kind is decoded to be named, as :func:`_turns_of` names it)."""
    try:
        steps_of = _TURNS.decode(encoded)
    except msgspec.ValidationError:  # not a list of lists: _turns_of says what it is
        return (*_turns_of(_ANY.decode(encoded)), None)
    if not steps_of:
        return (*_turns_of([]), None)
    turns: list[tuple[Any, ...] | None] = []
    stored: list[tuple[bytes, ...] | None] = []
    for index, steps in enumerate(steps_of):
        if read is None or index in read:
            kept = tuple([bytes(step) for step in steps])
            odd = [step for step, raw in zip(steps, kept) if raw[0] not in _STEP_STARTS]
        else:
            kept = None
            odd = [step for step in steps if memoryview(step)[0] not in _STEP_STARTS]
            for step in steps:  # only a step this long can hold an integer json refuses: decoding it says
                if _LONGEST_PLAIN_NUMBER and len(step) > _LONGEST_PLAIN_NUMBER:
                    _ANY.decode(step)
        if odd:
            return None, f"result turn {index} holds a {type(_ANY.decode(odd[0])).__name__} step, not text or a call", \
                True, None
        turns.append(None if kept is None else tuple([_ANY.decode(step) for step in steps]))
        stored.append(kept)
    return tuple(turns), None, False, tuple(stored)


class _FastLine:
    """A result line as the fast path read it: the turns asked for decoded, the logged user texts."""

    __slots__ = ("id", "first", "turns", "error", "odd", "stored", "logged", "log_problem")

    def __init__(self, line: _ResultLine, read: Mapping[str, Collection[int]] | None) -> None:
        self.id = line.id
        self.stored = None
        if line.result is None:
            self.first = None
            self.turns, self.error, self.odd = _turns_of(None)
        else:
            self.first = bytes(line.result)
            wanted = None if read is None else read.get(line.id, ())  # an unhashable id: the stdlib path
            self.turns, self.error, self.odd, self.stored = _stored_turns(line.result, wanted)
        self.logged = self.log_problem = None
        if line.inference_log is not None:
            self.logged, self.log_problem = _logged_user_turns_decoded(line.inference_log)


def _decoded(stored: bytes) -> Any:
    """A stored value (checked JSON) decoded; one with a number msgspec cannot hold (``1e999``) as
    :mod:`json` reads it, as the lines holding it were read before only the scored turns were decoded.
    Raises ``ValueError`` for what neither reads (an integer over 4,300 digits)."""
    try:
        return _ANY.decode(stored)
    except msgspec.DecodeError:
        import json

        return json.loads(stored)


def _full_turns(result: Any) -> tuple[Any, str | None]:
    """``(turns, error)`` of a whole ``result`` (decoded, or as stored): what two copies of a line compare."""
    if isinstance(result, bytes):
        try:
            result = _decoded(result)
        except (ValueError, RecursionError):
            return None, "a value that cannot be read"  # then no copy is the same as it
    return _turns_of(result)[:2]


def read_result_file(path: Path | str, keep_ids: Container[str] | None = None,
                     turns: Mapping[str, Collection[int]] | None = None) -> ResultFile:
    """Read one ``BFCL_v*_multi_turn_<category>_result.json`` line by line.

    Only ``id``, ``result`` and the user texts of ``inference_log`` are kept. With
    ``keep_ids``, entries whose id is not in it are counted in ``other_ids`` and dropped (a line
    is dropped from its id, read off its first bytes; its syntax and UTF-8 are checked all the
    same). With ``turns`` (id -> the turns to read), only those turns of an entry are decoded; the
    others are ``None`` in :attr:`ResultEntry.turns`, their steps' kinds still checked.
    """
    path = _check_file(Path(path).expanduser())
    parsed = _parse_name(path.name)
    version, category = (parsed[0], parsed[1]) if parsed else (None, None)

    stats = _LineStats()
    entries: dict[str, ResultEntry] = {}
    duplicates: list[str] = []
    duplicate_notes: list[str] = []
    bad_lines: list[tuple[int, str]] = []
    other_ids = 0
    format_problems: list[str] = []
    log_problems: list[str] = []
    foreign_ids: list[str] = []
    ids: set[str] = set()
    firsts: dict[str, Any] = {}  # each entry's whole result (as stored, or decoded): duplicates compare it
    fields = _result_fields

    def fast(line: bytes) -> Any:
        """The line's fields, and its parts decoded here: whatever msgspec refuses in them (a number
        it cannot hold) sends the whole line to the stdlib path, which reads it as before."""
        found = fields(line, keep_ids)
        if found.result is None and found.inference_log is None:
            return found  # dropped for its id, or nothing to decode
        return _FastLine(found, turns)

    prefix = f"multi_turn_{category}"
    for lineno, value, problem in _json_lines(path, stats, fast):
        if problem is not None:
            bad_lines.append((lineno, problem))
            continue
        decoded = isinstance(value, (_ResultLine, _FastLine))  # the fast path: its parts decoded there
        if decoded:
            entry_id = value.id
        elif not isinstance(value, dict):
            bad_lines.append((lineno, f"not a JSON object ({type(value).__name__})"))
            continue
        else:
            entry_id = value.get("id")
        if entry_id is None:
            bad_lines.append((lineno, "no id"))
            continue
        if not isinstance(entry_id, str) or not entry_id:
            bad_lines.append((lineno, f"id is not a non-empty string ({entry_id!r:.40})"))
            continue
        ids.add(entry_id)
        if category is not None and entry_id.rsplit("_", 1)[0] != prefix:
            foreign_ids.append(entry_id)  # said even when no pair needs the line
        if keep_ids is not None and entry_id not in keep_ids:
            other_ids += 1
            continue

        logged: tuple[tuple[str, ...], ...] | None = None
        log_problem = stored = None
        if decoded:
            if isinstance(value, _ResultLine):  # no result and no log (or not asked for: counted above)
                value = _FastLine(value, turns)
            first, entry_turns, error, odd, stored = value.first, value.turns, value.error, value.odd, value.stored
            logged, log_problem = value.logged, value.log_problem
        else:
            first = value.get("result")
            entry_turns, error, odd = _turns_of(first)
            if "inference_log" in value:
                logged, log_problem = _logged_user_turns(value["inference_log"])
        if odd:
            format_problems.append(f"{entry_id} ({error})")
        if log_problem is not None:
            log_problems.append(f"{entry_id} ({log_problem})")
        del value  # drop the decoded line (the inference_log in particular) at once

        kept = entries.get(entry_id)
        if kept is not None:
            if entry_id not in duplicates:
                duplicates.append(entry_id)
            same = _same((*_full_turns(firsts[entry_id]), kept.logged_user_turns), (*_full_turns(first), logged))
            duplicate_notes.append(
                f"line {lineno} ({'same content as' if same else 'different content from'} line {kept.line})"
            )
            continue
        entries[entry_id] = ResultEntry(entry_id, entry_turns, error, logged, lineno, unreadable=odd,
                                        stored_steps=stored,
                                        stored_whole=first if stored is not None and entry_turns is not None else None)
        firsts[entry_id] = first

    warnings = _common_warnings(stats, bad_lines, "result")
    if stats.nonblank and not entries and not other_ids:
        warnings.append("no usable entry in the file")
    if duplicates:
        warnings.append(
            f"{_count(len(duplicates), 'id')} seen more than once, the first occurrence kept: "
            f"{_examples(duplicates)} [{'; '.join(duplicate_notes[:_EXAMPLES])}]"
        )
    if format_problems:
        warnings.append(
            f"{_count(len(format_problems), 'entry', 'entries')} without a usable result list: "
            f"{_examples(format_problems)}"
        )
    if log_problems:
        warnings.append(
            f"{_count(len(log_problems), 'entry', 'entries')} with an odd inference_log: {_examples(log_problems)}"
        )
    if foreign_ids:
        warnings.append(
            f"{_count(len(foreign_ids), 'id')} not of category {category}: {_examples(foreign_ids)}"
        )
    return ResultFile(
        path=path,
        entries=entries,
        duplicates=tuple(duplicates),
        bad_lines=tuple(bad_lines),
        empty=stats.nonblank == 0,
        other_ids=other_ids,
        warnings=tuple(warnings),
        version=version,
        category=category,
        ids=frozenset(ids),
    )
