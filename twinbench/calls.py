"""Generic structural parsers that turn stored model output into :class:`Call` records.

Nothing here knows a leaderboard. Each parser accepts a family of tool-call shapes
and returns ``[]`` for anything else; none of them raises, whatever it is given.
:func:`read_step` reads one stored step in every shape at once and also says what it
did *not* read (:class:`Unread`), so that a reader can be checked against another.

Model output is untrusted: text is only ever read with :func:`json.loads` and
:func:`ast.parse`, and python values are rebuilt from checked AST nodes by hand
(no ``eval``, ``exec`` or ``literal_eval``). Every regular expression and parser
here runs in time linear in the size of its input (see ``benchmarks/bench_parsers.py``).

Shapes read (a step is a stored model output: a string, a record, or a list of them):

* python-style text: ``f(a=1)``, ``[f(a=1), g('x')]``, several of those joined by
  ``;`` or newlines, one missing outer bracket tolerated (``[f(a=1)``);
* JSON call objects ``{"name", "arguments"|"parameters"}``, ``{"tool_name",
  "parameters"}``, ``{"function": {"name", "arguments"}}`` and ``{"tool_calls": [...]}``
  envelopes, decoded or in text, one or several (a list, or objects joined by ``;``,
  commas, pipes or newlines), also written with python literals (``True``, single quotes);
* native records ``{"fn": {args} | "<json object>" | ""}``, one or a list;
* tagged blocks anywhere in a text: ``<tool_call>...</tool_call>`` and
  ``<|tool_call|>``, ``<|tool_call_start|>...<|tool_call_end|>``,
  ``<TOOLCALL>...</TOOLCALL>``, ``<function_call> ...``, ``<function=NAME>{...}</function>``
  and ``<start_function_call>call:NAME{...}<end_function_call>``; a block holds JSON
  calls or python calls;
* a function name on one line and its JSON arguments on the next;
* around any text: whitespace, ``<think>`` reasoning, one code fence, backticks,
  ``<|python_tag|>`` and a leading ``[TOOL_CALLS]``.

Conventions shared by all parsers:

* Argument values keep their natural Python types (``list``, ``dict``, ...), so a
  ``Call`` holding such a value compares equal across shapes but is not hashable.
* Empty argument strings (``""``) mean "no arguments".
* Strings longer than :data:`MAX_TEXT_CHARS` are not parsed (``[]``).
* Prose never produces a call. A call written *inside* prose (after words) is not
  read either; :func:`read_step` reports it as ``call_in_prose``.
* A call record whose name is not a name (template tokens such as
  ``echo<|channel|>commentary``, spaces, stray symbols) is not a call, and the name is
  not repaired: the part before ``<|`` is *not* recovered as a call. The leaderboard
  decoder that stored such records kept the whole mangled name, so no function of
  that name ever ran; recovering ``echo`` would invent an action nobody executed.
  :func:`read_step` reports it as ``leaked_template_tokens`` or ``malformed_call_name``.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import json
import re
import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attrs

from twinbench.model import Call

__all__ = [
    "DEFAULT_PARSERS",
    "EXCERPT_CHARS",
    "MAX_TEXT_CHARS",
    "UNREAD_KINDS",
    "Parser",
    "StepReading",
    "Unread",
    "call_from_mapping",
    "parse_json_calls",
    "parse_native_records",
    "parse_python_calls",
    "parse_step",
    "parse_tool_call_blocks",
    "read_step",
    "step_text",
    "texts_of",
]

Parser = Callable[[Any], "list[Call]"]

#: Texts longer than this are never a tool call worth parsing; parsers return ``[]``.
MAX_TEXT_CHARS = 1_000_000
#: The longest :attr:`Unread.excerpt`.
EXCERPT_CHARS = 120
#: The most characters of a step's text :func:`step_text` keeps (enough to read a reply, bounded in memory).
TEXT_KEPT_CHARS = 2_000

#: Every :attr:`Unread.kind`, with what it means.
UNREAD_KINDS: Mapping[str, str] = {
    "json_call_unparsed": "JSON-like text with a call key (name, tool_name, function) that does not parse",
    "tool_call_block_not_json": "a tagged tool-call block whose body is neither JSON calls nor python calls",
    "leaked_template_tokens": "a call record whose name carries chat-template tokens (e.g. echo<|channel|>commentary)",
    "malformed_call_name": "a call record whose name is not a function name (spaces, stray symbols)",
    "call_arguments_unparsed": "a call record with a good name whose arguments are not a JSON object",
    "python_call_unparsed": "text that starts like a python call but is not one (bad syntax, bare names, "
    "repeated keywords, splats)",
    "call_in_prose": "a well-formed call written inside prose; prose never produces a call",
    "too_long": f"a text longer than {MAX_TEXT_CHARS:,} characters, not looked at",
}

# Opening of a markdown fence after the leading ```: an optional language tag on
# its own line, or a known tag followed by spaces on the same line.
_FENCE_TAG = re.compile(
    r"[ \t]*+(?:[\w+.\-]*+[ \t]*+\r?\n|(?:python3?|py|tool_code|tool_call|json)[ \t]++)?"
)
# A function name as written in JSON or as a native-record key.
_NAME = re.compile(r"[^\W\d][\w.\-]*+")
# A strict python identifier path (``a``, ``a.b``), e.g. a name alone on its line.
_IDENTIFIER = re.compile(r"[A-Za-z_][\w]*+(?:\.[A-Za-z_][\w]*+)*+")
# Whitespace, commas, semicolons and pipes between JSON values (``{...}; {...}``, ``{...} | {...}``).
_JSON_SEP = re.compile(r"[\s,;|]*+")
# Chat-template tokens that leak into names (``<|channel|>``, ``<|end|>``, a torn ``<|``).
_TEMPLATE_TOKEN = re.compile(r"<\||\|>")

# Tool-call tags of several chat templates; every quantifier is possessive, so each
# match attempt scans a whitespace run once (the old pattern backtracked quadratically).
#: ``isinstance(x, _MAPPING)`` is ``isinstance(x, Mapping)``, with decoded JSON's plain dicts
#: answered before the slower abstract-class check
_MAPPING = (dict, Mapping)
_JSON_DECODER = json.JSONDecoder()
_TAG = re.compile(
    r"<\|?[ \t]*+(?P<tc_close>/?)[ \t]*+tool_call[ \t]*+\|?>"  # <tool_call> </tool_call> <|tool_call|>
    r"|<\|tool_call_(?P<mc>start|end)\|>"  # MiniCPM
    r"|<(?P<nm_close>/?)TOOLCALL>"  # Nemotron
    r"|(?P<granite><function_call>)"  # Granite: a separator, no closing tag
    r"|<function=(?P<fname>[^<>\n]*+)>|(?P<fn_close></function>)"  # Llama 3.x custom tools
    r"|<(?P<fg>start|end)_function_call>"  # FunctionGemma
)
# A JSON(-ish) call object somewhere in a text: ``{"name":``, ``{'function':`` ...
_CALL_KEY = re.compile(r"""\{\s*+["'](?:name|tool_name|function|tool_calls)["']\s*+:""")
# A python call list somewhere in a text: ``[cd(``.
_PY_LIST_IN_TEXT = re.compile(r"\[[ \t]*+[A-Za-z_][\w.]*+\(")
# Text that starts like python calls: ``cd(``, ``[cd(``, ``(cd(``, or a bracketed name ``[get_time]``.
_PY_CALL_START = re.compile(r"[\[(]?[ \t]*+[A-Za-z_][\w.]*+\(|[\[(][ \t]*+[A-Za-z_][\w.]*+[ \t]*+[\],]")
_PY_CALL_OPEN = re.compile(r"[\[(]?[ \t]*+[A-Za-z_][\w.]*+\(")
_PYTHON_TAG = "<|python_tag|>"
_MISTRAL_PREFIX = "[TOOL_CALLS]"
# FunctionGemma: strings between <escape> marks, structure in {}[],:
_GEMMA_ESCAPE = "<escape>"
_GEMMA_TOKEN = re.compile(r"<escape>|[{}\[\],:]")
# Granite's explicit "no call" answer inside <function_call>.
_NO_FUNCTION = "no_function"
# How many call-looking places in one prose text are tried (keeps prose probes linear).
_PROSE_PROBES = 4
# Python texts longer than this are parsed with the garbage collector paused.
_GC_PAUSE_CHARS = 10_000
# How deep lists of steps are followed (a step may be a list of texts).
_MAX_STEP_DEPTH = 4

# Keys that belong to the JSON call shapes, never a native record's function name.
_RESERVED_KEYS = frozenset({"name", "function", "tool_name", "tool_calls", "arguments", "parameters"})
_BARE_NAMES: Mapping[str, Any] = {"true": True, "false": False, "null": None}


class _NotACall(Exception):
    """Raised internally when a python expression is not a plain call."""


@attrs.frozen
class Unread:
    """Something in a step that looks like a call attempt but was not read as one.

    ``kind`` is one of :data:`UNREAD_KINDS`; ``excerpt`` is the offending text, cut to
    :data:`EXCERPT_CHARS` characters.
    """

    kind: str
    excerpt: str


@attrs.frozen
class StepReading:
    """What :func:`read_step` found in one stored step: its calls and what it left unread."""

    calls: tuple[Call, ...] = ()
    unread: tuple[Unread, ...] = ()


class UnreadTally:
    """Counts of what a run's steps left unread, per kind, with the first few examples of each.

    A reader adds every :class:`StepReading` it makes; :meth:`counts` and :meth:`examples`
    go into the run's ``RunLoad`` so that ``score`` and ``compare`` can say what was not read.
    """

    def __init__(self, keep: int = 2) -> None:
        self.keep = keep
        self._counts: dict[str, int] = {}
        self._examples: dict[str, list[str]] = {}

    def add(self, reading: StepReading, where: str = "") -> StepReading:
        for unread in reading.unread:
            self._counts[unread.kind] = self._counts.get(unread.kind, 0) + 1
            kept = self._examples.setdefault(unread.kind, [])
            if len(kept) < self.keep:
                kept.append(f"{where}: {unread.excerpt}" if where else unread.excerpt)
        return reading

    def counts(self) -> dict[str, int]:
        return dict(sorted(self._counts.items()))

    def examples(self) -> tuple[tuple[str, str], ...]:
        return tuple((kind, text) for kind in sorted(self._examples) for text in self._examples[kind])


def call_from_mapping(name: str, arguments: Mapping[str, Any]) -> Call:
    """A ``Call`` with keyword arguments taken from ``arguments`` in its order."""
    return Call(name=name, args=(), kwargs=tuple(arguments.items()))


def _excerpt(value: Any) -> str:
    text = value if isinstance(value, str) else _short_repr(value)
    text = text.strip()
    if len(text) > EXCERPT_CHARS:
        return text[: EXCERPT_CHARS - 1] + "\u2026"
    return text


def _short_repr(value: Any) -> str:
    try:
        return repr(value)[: EXCERPT_CHARS * 2]
    except Exception:
        return type(value).__name__


class _Found:
    """Calls and unread parts collected while reading one step."""

    __slots__ = ("calls", "unread")

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.unread: list[Unread] = []

    def miss(self, kind: str, what: Any) -> None:
        self.unread.append(Unread(kind, _excerpt(what)))

    def take(self, other: _Found) -> None:
        self.calls.extend(other.calls)
        self.unread.extend(other.unread)


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


def _code_text(text: str) -> str:
    """Cleaned text with Llama's ``<|python_tag|>`` and a leading ``[TOOL_CALLS]`` removed."""
    s = _clean_text(text.replace(_PYTHON_TAG, "") if _PYTHON_TAG in text else text)
    if s.startswith(_MISTRAL_PREFIX):
        s = _clean_text(s[len(_MISTRAL_PREFIX) :])
    return s


def _usable_text(value: Any) -> str | None:
    """The cleaned text of ``value``, or ``None`` when it is not a parseable string."""
    if not isinstance(value, str) or len(value) > MAX_TEXT_CHARS:
        return None
    return _code_text(value)


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


def _parse_module(source: str) -> list[ast.stmt] | None:
    """The statements of ``source``, or ``None`` when it is not python."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source, mode="exec").body
    except Exception:  # SyntaxError, ValueError (NUL bytes), RecursionError, MemoryError
        return None


def _is_literal_container(node: ast.expr) -> bool:
    return isinstance(node, ast.Dict) or (
        isinstance(node, (ast.List, ast.Tuple)) and bool(node.elts) and all(isinstance(e, ast.Dict) for e in node.elts)
    )


def _statement_values(statements: list[ast.stmt], literals: bool) -> list[Any] | None:
    """Per statement: a list of calls, or (when ``literals``) a rebuilt dict/list value.

    ``None`` unless every statement is an expression that is a call, a list/tuple of
    calls, or (with ``literals``) a dict or a list/tuple of dicts.
    """
    out: list[Any] = []
    for statement in statements:
        if not isinstance(statement, ast.Expr):
            return None
        node = statement.value
        try:
            if isinstance(node, ast.Call):
                out.append([_call_from_ast(node)])
            elif isinstance(node, (ast.List, ast.Tuple)) and all(isinstance(e, ast.Call) for e in node.elts):
                out.append([_call_from_ast(e) for e in node.elts])
            elif literals and _is_literal_container(node):
                out.append(_ast_value(node))
            else:
                return None
        except _NotACall:
            return None
    return out


def _bracket_variants(s: str) -> list[str]:
    """``s``, then ``s`` with one missing outer bracket restored (as the prompting decoders do)."""
    if s.startswith("[") and not s.endswith("]"):
        return [s, s + "]"]
    if s.endswith("]") and not s.startswith("["):
        return [s, "[" + s]
    return [s]


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a big syntax tree is built and walked.

    An AST of a megabyte of calls is hundreds of thousands of objects, none of them
    cyclic garbage; collections triggered while it grows rescan it again and again,
    which makes parsing superlinear. The collector's state is restored afterwards.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _python_reading(s: str, literals: bool) -> list[Any] | None:
    """Statement values of ``s`` (see :func:`_statement_values`) under its bracket variants."""
    with _gc_paused() if len(s) > _GC_PAUSE_CHARS else contextlib.nullcontext():
        for variant in _bracket_variants(s):
            statements = _parse_module(variant)
            if statements is None:
                continue
            values = _statement_values(statements, literals)
            if values is not None:
                return values
    return None


def parse_python_calls(text: str) -> list[Call]:
    """Calls from python-style text: ``f(a=1)`` or ``[f(a=1), g('x')]``; ``[]`` otherwise.

    Several calls or call lists may follow one another, joined by ``;`` or newlines
    (``f(a=1); g()``). One missing outer bracket is restored (``[f(a=1)``). The whole
    (cleaned) text must be made only of calls: ``*args`` or ``**kwargs`` splats, a
    repeated keyword, or anything that is not a call make the text not a call.
    """
    try:
        s = _usable_text(text)
        if not s or not _PY_CALL_START.match(s):
            return []
        values = _python_reading(s, literals=False)
        return [call for value in values for call in value] if values else []
    except Exception:
        return []


# --------------------------------------------------------------------------- JSON values in text


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


# --------------------------------------------------------------------------- call objects and records


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


def _is_name(value: Any) -> bool:
    return isinstance(value, str) and _NAME.fullmatch(value) is not None


def _bad_name_kind(name: str) -> str:
    return "leaked_template_tokens" if _TEMPLATE_TOKEN.search(name) else "malformed_call_name"


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
    if arguments is None:
        found.miss("call_arguments_unparsed", f"{name}: {_excerpt(raw)}")
        return
    if _looks_like_schema(arguments):
        return
    found.calls.append(call_from_mapping(name, arguments))


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
                found.calls.append(Call(name, (), tuple(raw.items())))
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
    calls: list[Call] = []
    problems = _Found()
    for name, raw in items:
        if not _is_name(name):
            alone = len(items) == 1 and isinstance(raw, (str, Mapping))
            if name.strip() and (meant or alone or _TEMPLATE_TOKEN.search(name)):
                problems.miss(_bad_name_kind(name), name)
            continue
        arguments = _decode_arguments(raw)
        if arguments is None:
            if meant:
                problems.miss("call_arguments_unparsed", f"{name}: {_excerpt(raw)}")
            continue
        calls.append(call_from_mapping(name, arguments))
    if len(calls) == len(items):
        found.calls.extend(calls)
    found.unread.extend(problems.unread)


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


# --------------------------------------------------------------------------- code-like text

_READ, _FAILED, _NOT_CODE = "read", "failed", "not code"


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
    found.calls.append(call_from_mapping(head, arguments))
    return True


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
        python = _python_reading(s, literals=first in "[{")
        if python is not None:
            for value in python:
                if isinstance(value, list) and all(isinstance(c, Call) for c in value):
                    found.calls.extend(value)
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


# --------------------------------------------------------------------------- tagged blocks


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
    if status == _READ:
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
    found.calls.append(call_from_mapping(name, arguments))


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
    found.calls.append(call_from_mapping(name, arguments))


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


# --------------------------------------------------------------------------- steps


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
