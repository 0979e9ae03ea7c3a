"""A cleaned text that may be calls: JSON first, then GLM, then python; prose probed for calls written inside it (never read)."""

from __future__ import annotations

import json
import re
from typing import Any

from twinbench.model import Call
from twinbench.reading.found import MAX_PYTHON_CHARS, _Found
from twinbench.reading.json_calls import _flatten, _json_values, _read_decoded
from twinbench.reading.model_formats import _IDENTIFIER, _glm_call
from twinbench.reading.python_calls import (
    _PY_CALL_OPEN,
    _PY_CALL_START,
    _python_reading,
)

# A JSON(-ish) call object somewhere in a text: ``{"name":``, ``{'function':`` ...
_CALL_KEY = re.compile(r"""\{\s*+["'](?:name|tool_name|function|tool_calls)["']\s*+:""")


# A python call list somewhere in a text: ``[cd(``.
_PY_LIST_IN_TEXT = re.compile(r"\[[ \t]*+[A-Za-z_][\w.]*+\(")


# How many call-looking places in one prose text are tried (keeps prose probes linear).
_PROSE_PROBES = 4


_READ, _FAILED, _NOT_CODE = "read", "failed", "not code"


def _read_code(s: str, found: _Found) -> str:
    """Read a cleaned text that may be calls. :data:`_READ`, :data:`_FAILED` (unread noted) or :data:`_NOT_CODE`."""
    first = s[0]
    values: list[Any] = []
    end = 0
    if first in "[{":
        values, end = _json_values(s)
        if values and end >= len(s):
            _read_decoded(_flatten(values), found)
            return _READ
    if "\n" in s and _IDENTIFIER.match(s) and _glm_call(s, found):
        return _READ
    if first in "[{(" or _PY_CALL_START.match(s):
        python = _python_reading(s, literals=first in "[{")  # None too when too long to parse
        if python is not None:
            for value in python:
                if isinstance(value, list) and all(isinstance(c, Call) for c in value):
                    for call in value:
                        found.add(call)
                else:
                    _read_decoded(value, found)
            return _READ
    if values:
        # JSON calls first, then something else: the calls are read, a broken call after them is noted
        calls_before, unread_before = len(found.calls), len(found.unread)
        _read_decoded(_flatten(values), found)
        rest = s[end:]
        if _CALL_KEY.search(rest):
            found.miss("json_call_unparsed", rest)
        if len(found.calls) > calls_before or len(found.unread) > unread_before:
            return _READ
    if len(s) > MAX_PYTHON_CHARS and (_PY_CALL_START.match(s) or (first in "[{" and _CALL_KEY.search(s))):
        found.miss("too_long", s)  # calls too long to parse: unread, and the rollout unscored
        return _FAILED
    if first in "[{" and _CALL_KEY.search(s):
        found.miss("json_call_unparsed", s)
        return _FAILED
    if _PY_CALL_OPEN.match(s) or (_PY_CALL_START.match(s) and s.endswith("]")):
        found.miss("python_call_unparsed", s)
        return _FAILED
    return _NOT_CODE


def _probe_prose(s: str, found: _Found) -> None:
    """Note well-formed calls written inside prose (they are not read)."""
    probes = 0
    decoder = json.JSONDecoder()
    for match in _CALL_KEY.finditer(s):
        if probes >= _PROSE_PROBES:
            break
        probes += 1
        try:
            value, _ = decoder.raw_decode(s, match.start())
        except Exception:
            continue
        scratch = _Found()
        _read_decoded(value, scratch)
        if scratch.calls:
            found.miss("call_in_prose", s[match.start() :])
            return
    probes = 0
    for match in _PY_LIST_IN_TEXT.finditer(s):
        if probes >= _PROSE_PROBES:
            break
        probes += 1
        line_end = s.find("\n", match.start())
        segment = s[match.start() : line_end if line_end >= 0 else len(s)]
        close = segment.rfind("]")
        if close < 0:
            continue
        values = _python_reading(segment[: close + 1], literals=False)
        if values and any(values):
            found.miss("call_in_prose", segment)
            return
