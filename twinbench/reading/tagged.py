"""Tagged tool-call blocks anywhere in a text: ``<tool_call>``, ``<|tool_call|>``, MiniCPM, Nemotron, Granite, Llama's ``<function=NAME>`` and FunctionGemma."""

from __future__ import annotations

import re
from typing import Any

from twinbench.model import Call
from twinbench.reading.code import _READ, _read_code
from twinbench.reading.found import (
    _MAPPING,
    MAX_TEXT_CHARS,
    WHOLE_STEP_KINDS,
    _bad_name_kind,
    _Found,
    _is_name,
    call_from_mapping,
)
from twinbench.reading.json_calls import _decode_arguments, _json_values
from twinbench.reading.model_formats import _NO_FUNCTION, _read_gemma_call
from twinbench.reading.python_calls import _python_reading
from twinbench.reading.text import _code_text, _strip_think

_TAG = re.compile(
    r"<\|?[ \t]*+(?P<tc_close>/?)[ \t]*+tool_call[ \t]*+\|?>"  # <tool_call> </tool_call> <|tool_call|>
    r"|<\|tool_call_(?P<mc>start|end)\|>"  # MiniCPM
    r"|<(?P<nm_close>/?)TOOLCALL>"  # Nemotron
    r"|(?P<granite><function_call>)"  # Granite: a separator, no closing tag
    r"|<function=(?P<fname>[^<>\n]*+)>|(?P<fn_close></function>)"  # Llama 3.x custom tools
    r"|<(?P<fg>start|end)_function_call>"  # FunctionGemma
)


def _read_block_body(body: str, found: _Found, granite: bool = False) -> None:
    """JSON calls or python calls in one tagged block; a body that is neither is noted."""
    s = _code_text(body)
    if not s:
        return
    inner = _Found()
    status = _read_code(s, inner)
    if granite:
        inner.calls = [call for call in inner.calls if call.name != _NO_FUNCTION]
        if status == _READ and not inner.calls and _NO_FUNCTION in s:
            return
    if status == _READ or any(u.kind in WHOLE_STEP_KINDS for u in inner.unread):  # read, or too long to read
        found.take(inner)
    else:
        found.miss("tool_call_block_not_json", s)


def _read_function_tag(name: str, body: str, found: _Found) -> None:
    """``<function=NAME>{json arguments}</function>``."""
    name = name.strip()
    s = _code_text(body)
    if not _is_name(name):
        if name:
            found.miss(_bad_name_kind(name), name)
        return
    if not s:
        found.calls.append(Call(name))
        return
    values, end = _json_values(s)
    arguments: Any = values[0] if len(values) == 1 and end >= len(s) else None
    if arguments is None:
        literal = _python_reading(s, literals=True)
        arguments = literal[0] if literal and len(literal) == 1 else None
    arguments = _decode_arguments(arguments) if isinstance(arguments, _MAPPING) else None
    if arguments is None:
        found.miss("tool_call_block_not_json", f"<function={name}>{s}")
        return
    found.add(call_from_mapping(name, arguments))


def _read_tagged(s: str, found: _Found) -> bool:
    """Read every tagged block of ``s``; False when ``s`` has no tool-call tag at all.

    A block runs to its closing tag, the next tag, or the end of the text. Text outside
    the blocks is not read.
    """
    if "<" not in s:  # every tag opens with one: most texts are done here, without the pattern
        return False
    tags = list(_TAG.finditer(s))
    if not tags:
        return False
    for index, tag in enumerate(tags):
        if tag.group("tc_close") or tag.group("mc") == "end" or tag.group("nm_close"):
            continue
        if tag.group("fn_close") or tag.group("fg") == "end":
            continue
        end = tags[index + 1].start() if index + 1 < len(tags) else len(s)
        body = s[tag.end() : end]
        if tag.group("fname") is not None:
            _read_function_tag(tag.group("fname"), body, found)
        elif tag.group("fg"):
            _read_gemma_call(body, found)
        else:
            _read_block_body(body, found, granite=tag.group("granite") is not None)
    return True


def parse_tool_call_blocks(text: str) -> list[Call]:
    """Calls from tagged tool-call blocks in ``text``: ``<tool_call>{json}</tool_call>`` and kin.

    Tags read: ``<tool_call>`` / ``<|tool_call|>`` (Hermes, Qwen, Granite, Phi, Falcon),
    ``<|tool_call_start|>`` (MiniCPM), ``<TOOLCALL>`` (Nemotron), ``<function_call>``
    (Granite; ``no_function`` is no call), ``<function=NAME>{args}</function>`` (Llama 3.x)
    and ``<start_function_call>call:NAME{...}`` (FunctionGemma). A block holds JSON calls
    (one or several, possibly fenced) or python calls. A block runs to its closing tag,
    the next tag, or the end of the text; blocks inside ``<think>`` reasoning are
    ignored; blocks that do not parse are skipped.
    """
    try:
        if not isinstance(text, str) or len(text) > MAX_TEXT_CHARS:
            return []
        found = _Found()
        _read_tagged(_strip_think(text), found)
        return found.calls
    except Exception:
        return []
