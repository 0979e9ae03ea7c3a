"""Generic structural parsers that turn stored model output into :class:`Call` records.

Nothing here knows a leaderboard. Each parser accepts one shape of tool call and
returns ``[]`` for anything else; none of them raises, whatever it is given.

Model output is untrusted: text is only ever read with :func:`json.loads` and
:func:`ast.parse`, and python values are rebuilt from checked AST nodes by hand
(no ``eval``, ``exec`` or ``literal_eval``).

Conventions shared by all parsers:

* Argument values keep their natural Python types (``list``, ``dict``, ...), so a
  ``Call`` holding such a value compares equal across shapes but is not hashable.
* Empty argument strings (``""``) mean "no arguments".
* Strings longer than :data:`MAX_TEXT_CHARS` are not parsed (``[]``).
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from collections.abc import Callable, Mapping
from typing import Any

from twinbench.model import Call

__all__ = [
    "DEFAULT_PARSERS",
    "MAX_TEXT_CHARS",
    "Parser",
    "call_from_mapping",
    "parse_json_calls",
    "parse_native_records",
    "parse_python_calls",
    "parse_step",
    "parse_tool_call_blocks",
]

Parser = Callable[[Any], "list[Call]"]

#: Texts longer than this are never a tool call worth parsing; parsers return ``[]``.
MAX_TEXT_CHARS = 1_000_000

# Opening of a markdown fence after the leading ```: an optional language tag on
# its own line, or a known tag followed by spaces on the same line.
_FENCE_TAG = re.compile(
    r"[ \t]*(?:[\w+.\-]*[ \t]*\r?\n|(?:python3?|py|tool_code|tool_call|json)[ \t]+)?"
)
# A function name as written in JSON or as a native-record key.
_NAME = re.compile(r"[^\W\d][\w.\-]*")
# Hermes/Qwen and Phi-style tool-call tags, opening (group 1 empty) or closing.
_TOOL_TAG = re.compile(r"<\|?[ \t]*(/?)[ \t]*tool_call[ \t]*\|?>")
# Whitespace and commas between JSON values inside one tool-call block.
_JSON_SEP = re.compile(r"[\s,]*")

# Keys that belong to the JSON call shapes, never a native record's function name.
_RESERVED_KEYS = frozenset({"name", "function", "tool_name", "tool_calls", "arguments", "parameters"})
_BARE_NAMES: Mapping[str, Any] = {"true": True, "false": False, "null": None}


class _NotACall(Exception):
    """Raised internally when a python expression is not a plain call."""


def call_from_mapping(name: str, arguments: Mapping[str, Any]) -> Call:
    """A ``Call`` with keyword arguments taken from ``arguments`` in its order."""
    return Call(name=name, args=(), kwargs=tuple((key, value) for key, value in arguments.items()))


# --------------------------------------------------------------------------- text cleanup


def _strip_think(text: str) -> str:
    """Drop reasoning: everything up to the last ``</think>``; all of an unclosed ``<think>``."""
    if "</think>" in text:
        return text.rsplit("</think>", 1)[1]
    if text.lstrip().startswith("<think>"):
        return ""
    return text


def _clean_text(text: str) -> str:
    """Strip whitespace, a leading think block, one surrounding code fence and backticks."""
    s = _strip_think(text.strip()).strip()
    if len(s) >= 6 and s.startswith("```") and s.endswith("```"):
        body = s[3:-3]
        tag = _FENCE_TAG.match(body)
        s = body[tag.end() if tag else 0 :].strip()
    lead = len(s) - len(s.lstrip("`"))
    trail = len(s) - len(s.rstrip("`"))
    cut = min(lead, trail)
    if cut and len(s) > 2 * cut:
        s = s[cut:-cut].strip()
    return s


def _usable_text(value: Any) -> str | None:
    """The cleaned text of ``value``, or ``None`` when it is not a parseable string."""
    if not isinstance(value, str) or len(value) > MAX_TEXT_CHARS:
        return None
    return _clean_text(value)


# --------------------------------------------------------------------------- python-style calls


def _dotted_name(node: ast.expr) -> str:
    """``a.b.c`` for a Name/Attribute chain; raises :class:`_NotACall` otherwise."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        raise _NotACall
    parts.append(node.id)
    return ".".join(reversed(parts))


def _source(node: ast.AST) -> str:
    """The source text of ``node`` (empty when it cannot be unparsed)."""
    try:
        return ast.unparse(node)
    except Exception:
        return ""


def _hashable_key(node: ast.expr) -> Any:
    """A dict key value; its source text when the value would be unhashable."""
    key = _ast_value(node)
    try:
        hash(key)
    except TypeError:
        return _source(node)
    return key


def _set_value(values: list[Any]) -> list[Any]:
    """Set literal -> list, de-duplicated when hashable and sorted when comparable."""
    try:
        unique = list(dict.fromkeys(values))
    except TypeError:
        unique = values
    try:
        return sorted(unique)
    except TypeError:
        return unique


def _ast_value(node: ast.expr) -> Any:
    """Rebuild an argument value from a checked AST node, never evaluating code.

    Constants, signed numbers and list/tuple/set/dict displays become values (a set
    becomes a list, see :func:`_set_value`); a bare name becomes its identifier
    (``true``/``false``/``null`` become ``True``/``False``/``None``); anything else
    becomes its source text.
    """
    if isinstance(node, ast.Constant):
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, (ast.USub, ast.UAdd))
        and isinstance(node.operand, ast.Constant)
        and isinstance(node.operand.value, (int, float, complex))
        and not isinstance(node.operand.value, bool)
    ):
        number = node.operand.value
        return -number if isinstance(node.op, ast.USub) else +number
    if isinstance(node, ast.List):
        return [_ast_value(element) for element in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_ast_value(element) for element in node.elts)
    if isinstance(node, ast.Set):
        return _set_value([_ast_value(element) for element in node.elts])
    if isinstance(node, ast.Dict) and all(key is not None for key in node.keys):
        return {_hashable_key(key): _ast_value(value) for key, value in zip(node.keys, node.values)}  # type: ignore[arg-type]
    if isinstance(node, ast.Name):
        return _BARE_NAMES.get(node.id, node.id)
    return _source(node)


def _call_from_ast(node: ast.expr) -> Call:
    """A ``Call`` from an AST call node; raises :class:`_NotACall` for anything else."""
    if not isinstance(node, ast.Call):
        raise _NotACall
    name = _dotted_name(node.func)
    if any(isinstance(arg, ast.Starred) for arg in node.args):
        raise _NotACall
    keywords = [keyword.arg for keyword in node.keywords]
    if None in keywords or len(set(keywords)) != len(keywords):
        raise _NotACall
    return Call(
        name=name,
        args=tuple(_ast_value(arg) for arg in node.args),
        kwargs=tuple((keyword.arg, _ast_value(keyword.value)) for keyword in node.keywords),  # type: ignore[misc]
    )


def parse_python_calls(text: str) -> list[Call]:
    """Calls from python-style text: ``f(a=1)`` or ``[f(a=1), g('x')]``; ``[]`` otherwise.

    The whole (cleaned) text must be one call or a list/tuple made only of calls.
    ``*args`` or ``**kwargs`` splats, or a repeated keyword, make the text not a call.
    """
    try:
        s = _usable_text(text)
        if not s:
            return []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            body = ast.parse(s, mode="eval").body
        if isinstance(body, ast.Call):
            return [_call_from_ast(body)]
        if isinstance(body, (ast.List, ast.Tuple)):
            return [_call_from_ast(element) for element in body.elts]
        return []
    except Exception:
        return []


# --------------------------------------------------------------------------- JSON calls


def _decode_arguments(raw: Any) -> dict[str, Any] | None:
    """Arguments as a dict: a mapping with string keys, or a JSON-object string ("" is {})."""
    if isinstance(raw, str):
        raw = raw.strip()
        if not raw:
            return {}
        try:
            raw = json.loads(raw)
        except Exception:
            return None
    if isinstance(raw, Mapping) and all(isinstance(key, str) for key in raw):
        return dict(raw)
    return None


def _is_name(value: Any) -> bool:
    return isinstance(value, str) and _NAME.fullmatch(value) is not None


def _looks_like_schema(arguments: Mapping[str, Any]) -> bool:
    """A JSON-schema ``parameters`` block (a tool definition echoed back, not a call)."""
    return arguments.get("type") == "object" and isinstance(arguments.get("properties"), Mapping)


def _named_call(obj: Mapping[str, Any], name_key: str) -> Call | None:
    """A call from ``{name_key: str, "arguments"|"parameters": ...}``; ``None`` otherwise."""
    name = obj.get(name_key)
    if not _is_name(name):
        return None
    if "arguments" in obj:
        raw = obj["arguments"]
    elif "parameters" in obj:
        raw = obj["parameters"]
    else:
        return None
    arguments = _decode_arguments(raw)
    if arguments is None or _looks_like_schema(arguments):
        return None
    return call_from_mapping(name, arguments)


def _json_element(obj: Any) -> Call | None:
    """One call from an OpenAI, Hermes/xLAM, Llama or Cohere style object; ``None`` otherwise."""
    if not isinstance(obj, Mapping):
        return None
    function = obj.get("function")
    if isinstance(function, Mapping):
        call = _named_call(function, "name")
        if call is not None:
            return call
    if "name" in obj:
        return _named_call(obj, "name")
    if "tool_name" in obj:
        return _named_call(obj, "tool_name")
    return None


def _calls_from_decoded(decoded: Any) -> list[Call]:
    """Calls from a decoded JSON object or list of objects; bad list elements are skipped."""
    if isinstance(decoded, Mapping):
        elements: Any = [decoded]
    elif isinstance(decoded, (list, tuple)):
        elements = decoded
    else:
        return []
    return [call for call in map(_json_element, elements) if call is not None]


def _decode_json_text(value: Any) -> Any:
    """The decoded JSON object/array in ``value`` (a string), else ``value`` itself; ``None`` on junk."""
    if not isinstance(value, str):
        return value
    s = _usable_text(value)
    if not s or s[0] not in "[{":
        return None
    return json.loads(s)


def parse_json_calls(value: Any) -> list[Call]:
    """Calls from JSON call objects, decoded or as a JSON string; ``[]`` otherwise.

    Accepted objects: ``{"name", "arguments"|"parameters"}``, ``{"tool_name",
    "parameters"}``, ``{"function": {"name", "arguments"}}``, or a list of them
    (elements that are not calls are skipped). Arguments may be a dict or a string
    holding a JSON object. A ``parameters`` that is a JSON schema is not a call.
    """
    try:
        return _calls_from_decoded(_decode_json_text(value))
    except Exception:
        return []


# --------------------------------------------------------------------------- native records


def _native_record(record: Any) -> list[Call]:
    """Calls from ``{"fn": {...} | "<json object>" | ""}``; ``[]`` otherwise.

    A record with several keys is several calls (a harness may merge them into one
    dict), but only when every key is a function name with object arguments: one key
    that is not makes the whole record something else (a state dump, a schema).
    """
    if not isinstance(record, Mapping) or not record:
        return []
    calls = []
    for name, raw in record.items():
        if not _is_name(name) or name in _RESERVED_KEYS:
            return []
        arguments = _decode_arguments(raw)
        if arguments is None:
            return []
        calls.append(call_from_mapping(name, arguments))
    return calls


def parse_native_records(value: Any) -> list[Call]:
    """Calls from native function-calling records ``[{"fn": "{\\"a\\": 1}"}]``; ``[]`` otherwise.

    Accepts a list of dicts, one such dict, or a JSON string of either. Each key of a
    record is a function name and its value the arguments. Records that are not calls
    (a non-object value, a key of a JSON call shape such as ``name`` or ``function``)
    are skipped.
    """
    try:
        decoded = _decode_json_text(value)
        if isinstance(decoded, Mapping):
            records: Any = [decoded]
        elif isinstance(decoded, (list, tuple)):
            records = decoded
        else:
            return []
        return [call for record in records for call in _native_record(record)]
    except Exception:
        return []


# --------------------------------------------------------------------------- <tool_call> blocks


def _block_calls(body: str) -> list[Call]:
    """Calls from the JSON values written one after another in one tool-call block."""
    s = _clean_text(body)
    decoder = json.JSONDecoder()
    calls: list[Call] = []
    position = 0
    while True:
        position = _JSON_SEP.match(s, position).end()  # type: ignore[union-attr]
        if position >= len(s) or s[position] not in "[{":
            return calls
        try:
            decoded, position = decoder.raw_decode(s, position)
        except Exception:
            return calls
        calls.extend(_calls_from_decoded(decoded))


def parse_tool_call_blocks(text: str) -> list[Call]:
    """Calls from ``<tool_call>{json}</tool_call>`` (or ``<|tool_call|>``) blocks in ``text``.

    A block runs to its closing tag, the next tag, or the end of the text; blocks
    inside ``<think>`` reasoning are ignored; blocks that do not parse are skipped.
    """
    try:
        if not isinstance(text, str) or len(text) > MAX_TEXT_CHARS:
            return []
        s = _strip_think(text)
        tags = list(_TOOL_TAG.finditer(s))
        calls: list[Call] = []
        for index, tag in enumerate(tags):
            if tag.group(1):
                continue
            end = tags[index + 1].start() if index + 1 < len(tags) else len(s)
            calls.extend(_block_calls(s[tag.end() : end]))
        return calls
    except Exception:
        return []


# --------------------------------------------------------------------------- steps

#: Tool-call blocks, then JSON, then native records, then python text. Non-string
#: steps skip straight to JSON and native records (the other parsers need text).
DEFAULT_PARSERS: tuple[Parser, ...] = (
    parse_tool_call_blocks,
    parse_json_calls,
    parse_native_records,
    parse_python_calls,
)


def parse_step(step: Any, parsers: tuple[Parser, ...] = DEFAULT_PARSERS) -> list[Call]:
    """The calls in one stored step: the first non-empty result of ``parsers``.

    A list/tuple step holding any string is parsed element by element and the
    results concatenated (a list of prose strings gives ``[]``). A parser that
    raises counts as finding nothing.
    """
    try:
        if isinstance(step, (list, tuple)) and any(isinstance(element, str) for element in step):
            calls: list[Call] = []
            for element in step:
                calls.extend(parse_step(element, parsers))
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
