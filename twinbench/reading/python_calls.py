"""Python-style call text, ``f(a=1)`` and ``[f(a=1), g('x')]``, read with :func:`ast.parse` and rebuilt from checked nodes (never evaluated)."""

from __future__ import annotations

import ast
import contextlib
import re
import warnings
from typing import Any

from twinbench.gc_pause import collector_paused
from twinbench.model import Call
from twinbench.reading.found import _BARE_NAMES, MAX_PYTHON_CHARS
from twinbench.reading.text import _usable_text

# Text that starts like python calls: ``cd(``, ``[cd(``, ``(cd(``, or a bracketed name ``[get_time]``.
_PY_CALL_START = re.compile(r"[\[(]?[ \t]*+[A-Za-z_][\w.]*+\(|[\[(][ \t]*+[A-Za-z_][\w.]*+[ \t]*+[\],]")


_PY_CALL_OPEN = re.compile(r"[\[(]?[ \t]*+[A-Za-z_][\w.]*+\(")


# Python texts longer than this are parsed with the garbage collector paused.
_GC_PAUSE_CHARS = 10_000


class _NotACall(Exception):
    """Raised internally when a python expression is not a plain call."""


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


def _python_reading(s: str, literals: bool) -> list[Any] | None:
    """Statement values of ``s`` (see :func:`_statement_values`) under its bracket variants;
    ``None`` for a text longer than :data:`MAX_PYTHON_CHARS` (its syntax tree would cost too much)."""
    if len(s) > MAX_PYTHON_CHARS:
        return None
    # an AST of a megabyte of calls is hundreds of thousands of objects, none of them cyclic garbage:
    # collections while it grows would rescan it again and again (parsing turned superlinear)
    with collector_paused() if len(s) > _GC_PAUSE_CHARS else contextlib.nullcontext():
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
