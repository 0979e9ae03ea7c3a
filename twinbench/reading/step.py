"""One stored step, whatever it holds: :func:`read_step` (every shape at once), :func:`parse_step`, the step's text."""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from typing import Any

from twinbench.model import Call
from twinbench.reading.code import _NOT_CODE, _probe_prose, _read_code
from twinbench.reading.found import (
    _MAPPING,
    EXCERPT_CHARS,
    MAX_TEXT_CHARS,
    TEXT_KEPT_CHARS,
    StepReading,
    UnreadTally,
    _Found,
)
from twinbench.reading.json_calls import (
    _read_element,
    parse_json_calls,
    parse_native_records,
)
from twinbench.reading.python_calls import parse_python_calls
from twinbench.reading.tagged import _read_tagged, parse_tool_call_blocks
from twinbench.reading.text import _code_text, _strip_think

Parser = Callable[[Any], "list[Call]"]


# How deep lists of steps are followed (a step may be a list of texts).
_MAX_STEP_DEPTH = 4


def _read_text(text: str, found: _Found) -> None:
    if len(text) > MAX_TEXT_CHARS:
        found.miss("too_long", text[:EXCERPT_CHARS])
        return
    s = _strip_think(text)
    if _read_tagged(s, found):
        return
    s = _code_text(s)
    if not s:
        return
    if _read_code(s, found) == _NOT_CODE:
        _probe_prose(s, found)


def _read_any(step: Any, found: _Found, depth: int) -> None:
    if isinstance(step, str):
        _read_text(step, found)
    elif isinstance(step, _MAPPING):
        _read_element(step, found)
    elif isinstance(step, (list, tuple)):
        if any(isinstance(element, str) for element in step):
            if depth < _MAX_STEP_DEPTH:
                for element in step:
                    _read_any(element, found, depth + 1)
            return
        for element in step:
            _read_element(element, found)


def read_step(step: Any) -> StepReading:
    """Every call in one stored step, and what looked like a call but was not read.

    A text is read as tagged blocks when it has tool-call tags, else as code (JSON or
    python calls, see the module docstring) when it starts like code; prose gives no
    call (a call written inside it is noted as ``call_in_prose``). A record or list of
    records is read as JSON call objects and native records. A list holding texts is
    read element by element. Never raises.
    """
    found = _Found()
    try:
        _read_any(step, found, 0)
    except Exception:  # a bug or an exotic value: what was read so far stands
        pass
    return StepReading(tuple(found.calls), tuple(found.unread))


def read_turns(turns: Sequence[Sequence[Any] | None], wanted: Container[int] | None = None,
               tally: UnreadTally | None = None, item_id: str = "",
               stored: Sequence[Sequence[bytes] | None] | None = None, memo: Any = None):
    """Every step of the ``wanted`` turns of one rollout (every turn when ``None``) read with :func:`read_step`.

    Returns the calls per turn and step (``None`` for a turn not wanted) and what was not read, as
    ``(turn, kind, excerpt)`` triples: what :class:`~twinbench.model.Rollout` holds in ``turns`` and
    ``unread``. ``tally``, when given, counts every unread part too (``"<item_id> turn N"`` as where).
    With ``memo`` (a :class:`~twinbench.reading.memo.StepMemo`) and ``stored`` (per turn, each step
    as stored, its JSON bytes; ``None`` for a turn not kept), each distinct stored step is read once.
    """
    calls: list[tuple[tuple[Call, ...], ...] | None] = []
    unread: list[tuple[int, str, str]] = []
    for t, turn in enumerate(turns):
        if wanted is not None and t not in wanted:
            calls.append(None)
            continue
        kept = None if stored is None or memo is None else stored[t]
        readings = ([read_step(step) for step in turn] if kept is None
                    else [memo.read(step, kept[s]) for s, step in enumerate(turn)])
        for reading in readings:
            if reading.unread:
                unread.extend((t, u.kind, u.excerpt) for u in reading.unread)
                if tally is not None:
                    tally.add(reading, f"{item_id} turn {t}")
        calls.append(tuple(reading.calls for reading in readings))
    return tuple(calls), tuple(unread)


def step_text(step: Any, depth: int = 0) -> str:
    """The natural-language text of one stored step, whatever it holds.

    A string gives its text without ``<think>`` reasoning and surrounding whitespace; a list
    gives the texts of its strings, one per line; a record or ``None`` gives ``""`` (a record
    is a call or nothing to read). At most :data:`TEXT_KEPT_CHARS` characters are kept.
    Never raises. Whether the step is a call is :func:`read_step`'s business: see
    :func:`texts_of`.
    """
    try:
        if isinstance(step, str):
            text = _strip_think(step).strip()
        elif isinstance(step, (list, tuple)) and depth < _MAX_STEP_DEPTH:
            text = "\n".join(t for t in (step_text(e, depth + 1) for e in step if isinstance(e, (str, list, tuple)))
                             if t)
        else:
            text = ""
    except Exception:
        text = ""
    return text if len(text) <= TEXT_KEPT_CHARS else text[: TEXT_KEPT_CHARS - 1] + "\u2026"


def texts_of(steps: Any, calls: Any) -> tuple[tuple[str, ...], ...]:
    """Per turn, per step, the text of each step that gave no call (``""`` for a call step).

    ``steps`` are the stored steps per turn, ``calls`` the calls read from each (the same
    shape, as a reader makes them with :func:`read_step`). A step that gave a call is not
    text, even when words surround the call.
    """
    return tuple(None if turn_calls is None  # a turn the reader was not asked to read
                 else tuple("" if found else step_text(step) for step, found in zip(turn_steps, turn_calls))
                 for turn_steps, turn_calls in zip(steps, calls))


#: Tool-call blocks, then JSON, then native records, then python text. Non-string
#: steps skip straight to JSON and native records (the other parsers need text).
#: With these parsers :func:`parse_step` is :func:`read_step`'s calls.
DEFAULT_PARSERS: tuple[Parser, ...] = (
    parse_tool_call_blocks,
    parse_json_calls,
    parse_native_records,
    parse_python_calls,
)


def parse_step(step: Any, parsers: tuple[Parser, ...] = DEFAULT_PARSERS) -> list[Call]:
    """The calls in one stored step.

    With the default parsers this is ``list(read_step(step).calls)``. With other
    parsers it is the first non-empty result of ``parsers``; a list/tuple step holding
    any string is then parsed element by element and the results concatenated (a list
    of prose strings gives ``[]``), and a parser that raises counts as finding nothing.
    """
    if parsers is DEFAULT_PARSERS or parsers == DEFAULT_PARSERS:
        return list(read_step(step).calls)
    return _parse_with(step, parsers, 0)


def _parse_with(step: Any, parsers: tuple[Parser, ...], depth: int) -> list[Call]:
    try:
        if isinstance(step, (list, tuple)) and any(isinstance(element, str) for element in step):
            calls: list[Call] = []
            if depth < _MAX_STEP_DEPTH:
                for element in step:
                    calls.extend(_parse_with(element, parsers, depth + 1))
            return calls
        for parser in parsers:
            try:
                found = parser(step)
            except Exception:
                continue
            if found:
                return list(found)
        return []
    except Exception:
        return []
