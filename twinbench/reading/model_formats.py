"""Call formats of one model family each: GLM (a name on one line, JSON arguments on the next), FunctionGemma (``call:NAME{...}`` with ``<escape>`` strings) and Granite's ``no_function``."""

from __future__ import annotations

import json
import re
from typing import Any

from twinbench.model import Call
from twinbench.reading.found import (
    _BARE_NAMES,
    _MAPPING,
    _bad_name_kind,
    _Found,
    _is_name,
    call_from_mapping,
)

# A strict python identifier path (``a``, ``a.b``), e.g. a name alone on its line.
_IDENTIFIER = re.compile(r"[A-Za-z_][\w]*+(?:\.[A-Za-z_][\w]*+)*+")


# FunctionGemma: strings between <escape> marks, structure in {}[],:
_GEMMA_ESCAPE = "<escape>"


_GEMMA_TOKEN = re.compile(r"<escape>|[{}\[\],:]")


# Granite's explicit "no call" answer inside <function_call>.
_NO_FUNCTION = "no_function"


def _glm_call(s: str, found: _Found) -> bool:
    """``name`` alone on the first line and a JSON object of arguments after it."""
    head, newline, rest = s.partition("\n")
    head = head.strip()
    rest = rest.strip()
    if not newline or not rest.startswith("{") or not _IDENTIFIER.fullmatch(head):
        return False
    try:
        arguments = json.loads(rest)
    except Exception:
        return False
    if not isinstance(arguments, _MAPPING) or not all(isinstance(k, str) for k in arguments):
        return False
    found.add(call_from_mapping(head, arguments))
    return True


def _gemma_primitive(raw: str) -> Any:
    if raw in _BARE_NAMES:
        return _BARE_NAMES[raw]
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            pass
    return raw


class _GemmaError(Exception):
    pass


def _gemma_arguments(text: str) -> dict[str, Any]:
    """FunctionGemma arguments ``{key:<escape>text<escape>,n:3,xs:[1,2]}`` as a dict.

    Keys are bare words or escaped strings; values are escaped strings, bare words
    (``null``/``true``/``false``, numbers, else the word as a string), or nested
    ``{}``/``[]``. Built with an explicit stack (no recursion); raises :class:`_GemmaError`.
    """
    stack: list[list[Any]] = []  # [container, pending key] frames
    root: Any = None

    def add(value: Any) -> None:
        nonlocal root
        if not stack:
            if root is not None:
                raise _GemmaError
            root = value
            return
        frame = stack[-1]
        container = frame[0]
        if isinstance(container, list):
            container.append(value)
        elif frame[1] is None:
            raise _GemmaError  # a value without a key
        else:
            container[frame[1]] = value
            frame[1] = None

    pending: list[str] = []  # bare text since the last token

    def flush(as_key: bool) -> None:
        raw = "".join(pending).strip()
        pending.clear()
        if not raw:
            return
        if as_key:
            if not stack or not isinstance(stack[-1][0], dict):
                raise _GemmaError
            stack[-1][1] = raw
        else:
            add(_gemma_primitive(raw))

    position = 0
    while True:
        match = _GEMMA_TOKEN.search(text, position)
        pending.append(text[position : match.start() if match else len(text)])
        if match is None:
            break
        token = match.group()
        position = match.end()
        if token == _GEMMA_ESCAPE:
            close = text.find(_GEMMA_ESCAPE, position)
            if close < 0:
                raise _GemmaError
            if "".join(pending).strip():
                raise _GemmaError
            pending.clear()
            value = text[position:close]
            position = close + len(_GEMMA_ESCAPE)
            if stack and isinstance(stack[-1][0], dict) and stack[-1][1] is None:
                stack[-1][1] = value  # an escaped key
            else:
                add(value)
            continue
        if token == ":":
            flush(as_key=True)
            continue
        flush(as_key=False)
        if token in "{[":
            container: Any = {} if token == "{" else []
            add(container)
            stack.append([container, None])
        elif token in "}]":
            if not stack or isinstance(stack[-1][0], dict) != (token == "}"):
                raise _GemmaError
            stack.pop()
    if stack or "".join(pending).strip() or not isinstance(root, dict):
        raise _GemmaError
    if not all(isinstance(key, str) for key in root):
        raise _GemmaError
    return root


def _read_gemma_call(body: str, found: _Found) -> None:
    """``call:NAME{arguments}`` between FunctionGemma's call tokens."""
    s = body.strip()
    if not s.startswith("call:"):
        found.miss("tool_call_block_not_json", s)
        return
    brace = s.find("{")
    name = (s[5:brace] if brace >= 0 else s[5:]).strip()
    if not _is_name(name):
        if name:
            found.miss(_bad_name_kind(name), name)
        return
    if brace < 0:
        found.calls.append(Call(name))
        return
    try:
        arguments = _gemma_arguments(s[brace:])
    except _GemmaError:
        found.miss("tool_call_block_not_json", s)
        return
    found.add(call_from_mapping(name, arguments))
