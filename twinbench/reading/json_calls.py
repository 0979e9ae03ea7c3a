"""JSON call objects (OpenAI, Hermes/xLAM, Llama, Cohere, ``tool_calls`` envelopes) and native records ``{"fn": {args}}``, decoded or in text."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from twinbench.model import Call
from twinbench.reading.found import (
    _MAPPING,
    _NAME,
    _TEMPLATE_TOKEN,
    _bad_name_kind,
    _Found,
    _is_name,
)
from twinbench.reading.python_calls import _python_reading
from twinbench.reading.text import _usable_text

# Whitespace, commas, semicolons and pipes between JSON values (``{...}; {...}``, ``{...} | {...}``).
_JSON_SEP = re.compile(r"[\s,;|]*+")


_JSON_DECODER = json.JSONDecoder()


# Keys that belong to the JSON call shapes, never a native record's function name.
_RESERVED_KEYS = frozenset({"name", "function", "tool_name", "tool_calls", "arguments", "parameters"})


def _json_values(s: str) -> tuple[list[Any], int]:
    """The JSON values at the start of ``s``, one after another, and where reading stopped.

    Values may be separated by whitespace, commas, semicolons or pipes. Reading stops at
    the end, at anything that is not a JSON object or array, or at a value that does
    not decode; the position returned is then that of the unread rest.
    """
    decoder = _JSON_DECODER
    values: list[Any] = []
    position = 0
    while True:
        position = _JSON_SEP.match(s, position).end()  # type: ignore[union-attr]
        if position >= len(s) or s[position] not in "[{":
            return values, position
        try:
            value, end = decoder.raw_decode(s, position)
        except Exception:
            return values, position
        values.append(value)
        position = end


def _decode_json_text(value: Any) -> Any:
    """The decoded JSON object/array in ``value`` (a string), else ``value`` itself; ``None`` on junk.

    A text holding several JSON values gives them as a list; python-literal objects
    (``True``, single quotes) are rebuilt from their AST.
    """
    if not isinstance(value, str):
        return value
    s = _usable_text(value)
    if not s or s[0] not in "[{":
        return None
    values, end = _json_values(s)
    if end >= len(s) and values:
        return values[0] if len(values) == 1 else _flatten(values)
    literal = _python_reading(s, literals=True)
    if literal is not None:
        return _flatten(literal)
    if values:
        return values[0] if len(values) == 1 else _flatten(values)
    return None


def _flatten(values: list[Any]) -> list[Any]:
    """Several decoded values as one list of elements (a list value gives its elements)."""
    out: list[Any] = []
    for value in values:
        if isinstance(value, (list, tuple)):
            out.extend(value)
        else:
            out.append(value)
    return out


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
    if isinstance(raw, _MAPPING):
        for key in raw:
            if not isinstance(key, str):
                return None
        return dict(raw)
    return None


def _looks_like_schema(arguments: Mapping[str, Any]) -> bool:
    """A JSON-schema ``parameters`` block (a tool definition echoed back, not a call)."""
    return arguments.get("type") == "object" and isinstance(arguments.get("properties"), Mapping)


def _looks_like_arguments(raw: Any) -> bool:
    """A record value that is meant as arguments: a mapping, ``""`` or a text opening an object."""
    if isinstance(raw, _MAPPING):
        return True
    if isinstance(raw, str):
        s = raw.strip()
        return not s or s.startswith("{")
    return False


def _named_call(obj: Mapping[str, Any], name_key: str, found: _Found) -> None:
    """A call from ``{name_key: str, "arguments"|"parameters": ...}``."""
    name = obj.get(name_key)
    if "arguments" in obj:
        raw = obj["arguments"]
    elif "parameters" in obj:
        raw = obj["parameters"]
    else:
        return
    if not isinstance(name, str) or not name.strip():
        return
    if not _is_name(name):
        found.miss(_bad_name_kind(name), name)
        return
    arguments = _decode_arguments(raw)
    if arguments is not None and _looks_like_schema(arguments):
        return
    found.add_named(name, arguments, raw)  # arguments that cannot be read: still a call, noted


def _call_object(obj: Mapping[str, Any], found: _Found, depth: int = 0) -> bool:
    """Read one JSON call object (OpenAI, Hermes/xLAM, Llama, Cohere, envelope); False if it is none."""
    tool_calls = obj.get("tool_calls")
    if isinstance(tool_calls, (list, tuple)):
        if depth < 2:
            for element in tool_calls:
                if isinstance(element, _MAPPING):
                    _call_object(element, found, depth + 1)
        return True
    function = obj.get("function")
    if isinstance(function, _MAPPING) and "name" in function:
        _named_call(function, "name", found)
        return True
    if "name" in obj:
        _named_call(obj, "name", found)
        return True
    if "tool_name" in obj:
        _named_call(obj, "tool_name", found)
        return True
    return False


def _native_record(record: Mapping[str, Any], found: _Found) -> None:
    """Calls from ``{"fn": {...} | "<json object>" | ""}``.

    A record with several keys is several calls (a harness may merge them into one
    dict), but only when every key is a function name with object arguments: one key
    that is not makes the whole record something else (a state dump, a schema).
    """
    if not record:
        return
    if len(record) == 1 and type(record) is dict:  # the common case, read as the general path below reads it
        ((name, raw),) = record.items()
        if type(name) is str and type(raw) is dict and name not in _RESERVED_KEYS and _NAME.fullmatch(name):
            for key in raw:
                if type(key) is not str:
                    break
            else:
                found.add(Call(name, (), tuple(raw.items())))
                return
    items = list(record.items())
    for key, _ in items:
        if not isinstance(key, str) or key in _RESERVED_KEYS:
            return
    meant = True
    for _, raw in items:
        if not _looks_like_arguments(raw):
            meant = False
            break
    problems = _Found()
    for name, raw in items:
        if not _is_name(name):
            alone = len(items) == 1 and isinstance(raw, (str, Mapping))
            if name.strip() and (meant or alone or _TEMPLATE_TOKEN.search(name)):
                problems.miss(_bad_name_kind(name), name)
            continue
        arguments = _decode_arguments(raw)
        if arguments is None and not meant:
            continue
        problems.add_named(name, arguments, raw)  # meant as a call: arguments that cannot be read still call
    if len(problems.calls) < len(items):
        problems.calls.clear()  # one key that is not a call makes the record something else
    found.take(problems)


def _read_element(element: Any, found: _Found, native: bool = True, objects: bool = True) -> None:
    """One decoded element: a JSON call object, else a native record (each kind when asked for)."""
    if not isinstance(element, _MAPPING):
        return
    if objects:
        if _call_object(element, found):
            return
    elif _call_object(element, _Found()):
        return  # a call object is never a native record
    if native:
        _native_record(element, found)


def _read_decoded(decoded: Any, found: _Found, native: bool = True, objects: bool = True) -> None:
    """Calls from a decoded object or list of objects; elements that are not calls are skipped."""
    if isinstance(decoded, _MAPPING):
        _read_element(decoded, found, native, objects)
    elif isinstance(decoded, (list, tuple)):
        for element in decoded:
            _read_element(element, found, native, objects)


def parse_json_calls(value: Any) -> list[Call]:
    """Calls from JSON call objects, decoded or as a JSON string; ``[]`` otherwise.

    Accepted objects: ``{"name", "arguments"|"parameters"}``, ``{"tool_name",
    "parameters"}``, ``{"function": {"name", "arguments"}}``, an envelope
    ``{"tool_calls": [...]}`` of those, or a list of them (elements that are not calls
    are skipped). A text may hold several objects or lists joined by ``;``, commas,
    pipes or newlines, may start with ``<|python_tag|>`` or ``[TOOL_CALLS]``, and may use python
    literals (``True``, single quotes). Arguments may be a dict or a string holding a
    JSON object. A ``parameters`` that is a JSON schema is not a call.
    """
    try:
        found = _Found()
        _read_decoded(_decode_json_text(value), found, native=False)
        return found.calls
    except Exception:
        return []


def parse_native_records(value: Any) -> list[Call]:
    """Calls from native function-calling records ``[{"fn": "{\\"a\\": 1}"}]``; ``[]`` otherwise.

    Accepts a list of dicts, one such dict, or a JSON string of either. Each key of a
    record is a function name and its value the arguments. Records that are not calls
    (a non-object value, a key of a JSON call shape such as ``name`` or ``function``)
    are skipped.
    """
    try:
        found = _Found()
        _read_decoded(_decode_json_text(value), found, objects=False)
        return found.calls
    except Exception:
        return []
