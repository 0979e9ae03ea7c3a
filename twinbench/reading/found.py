"""What reading a step finds: its calls, what it left unread (:class:`Unread`, :data:`UNREAD_KINDS`), and the tally a run keeps."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import attrs

from twinbench.model import Call

#: Texts longer than this are not read: the step is unread (``too_long``) and its rollout
#: unscored, never a hold. The longest step of the shared real runs is 19,892 characters, so
#: this is 50 times that, and JSON decoding, the one parser that sees such a text whole, stays
#: within a few times the text's size in memory.
MAX_TEXT_CHARS = 1_000_000


#: Python-style call text longer than this is not parsed (``too_long``, the rollout unscored):
#: ``ast.parse`` costs 200 to 550 bytes of memory a character (a 1 MB call list: about 200 MiB,
#: one second), so the bound keeps a step under 40 MiB. The longest python-style step of the
#: shared runs is 710 characters; a call list this long would be some 3,000 calls in one step.
MAX_PYTHON_CHARS = 65_536


#: An argument value nested deeper than this (lists and objects in one another) is not kept:
#: the call counts, without its arguments (``call_arguments_unparsed``). The deepest argument
#: of the shared runs is 2 levels; pickling (to and from workers, into the cache), ``repr``
#: and JSON each recurse once a level, within Python's limit of 1,000 frames.
MAX_ARGUMENT_DEPTH = 32


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
    "call_arguments_unparsed": "a call with a good name whose arguments cannot be read (not a JSON object, nested "
    f"deeper than {MAX_ARGUMENT_DEPTH} levels, or holding an integer too long to print): the call counts, "
    "without its arguments",
    "python_call_unparsed": "text that starts like a python call but is not one (bad syntax, bare names, "
    "repeated keywords, splats)",
    "call_in_prose": "a well-formed call written inside prose; prose never produces a call",
    "too_long": f"a text longer than {MAX_TEXT_CHARS:,} characters, or python-style call text longer than "
    f"{MAX_PYTHON_CHARS:,}, not read: the rollout is unscored (unreadable), never a hold",
}


#: The kinds that were read and are no call by rule (prose never produces one, whatever it says): not a call
#: that could not be read. Every other kind is (see ``twinbench.decisions.decide``: such a call on an anchor
#: turn leaves the side unscored when the calls that were read leave its reading open).
READ_AS_NO_CALL: frozenset[str] = frozenset({"call_in_prose"})


# A function name as written in JSON or as a native-record key.
_NAME = re.compile(r"[^\W\d][\w.\-]*+")


# Chat-template tokens that leak into names (``<|channel|>``, ``<|end|>``, a torn ``<|``).
_TEMPLATE_TOKEN = re.compile(r"<\||\|>")


# Tool-call tags of several chat templates; every quantifier is possessive, so each
# match attempt scans a whitespace run once (the old pattern backtracked quadratically).
#: ``isinstance(x, _MAPPING)`` is ``isinstance(x, Mapping)``, with decoded JSON's plain dicts
#: answered before the slower abstract-class check
_MAPPING = (dict, Mapping)


_BARE_NAMES: Mapping[str, Any] = {"true": True, "false": False, "null": None}


@attrs.frozen
class Unread:
    """Something in a step that looks like a call attempt but was not read as one.

    ``kind`` is one of :data:`UNREAD_KINDS`; ``excerpt`` is the offending text, cut to
    :data:`EXCERPT_CHARS` characters.
    """

    kind: str
    excerpt: str


#: the kinds that leave a whole step unread: a rollout holding one cannot be decided
WHOLE_STEP_KINDS = frozenset({"too_long"})


@attrs.frozen
class StepReading:
    """What :func:`read_step` found in one stored step: its calls and what it left unread."""

    calls: tuple[Call, ...] = ()
    unread: tuple[Unread, ...] = ()

    @property
    def unreadable(self) -> Unread | None:
        """What left the whole step unread (see :data:`WHOLE_STEP_KINDS`), or ``None``."""
        return next((u for u in self.unread if u.kind in WHOLE_STEP_KINDS), None)


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


_SCALARS = (str, float, bool, type(None))
_BIG_INTS: dict[int, int] = {}  # digit limit -> the smallest integer with more digits


def _too_many_digits(value: int) -> bool:
    """More decimal digits than Python prints (``sys.get_int_max_str_digits``): ``repr`` would raise."""
    import sys

    limit = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 0
    if not limit or value.bit_length() < 3 * limit:  # 3 bits a digit is fewer than log2(10): no false alarm
        return False
    if limit not in _BIG_INTS:
        _BIG_INTS[limit] = 10 ** limit
    return abs(value) >= _BIG_INTS[limit]


def nested_deeper_than(value: Any, limit: int) -> bool:
    """Whether lists and objects nest in ``value`` more than ``limit`` levels (iterative: never recurses)."""
    stack = [(value, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (list, tuple)):
            children: Any = value
        elif isinstance(value, _MAPPING):
            children = value.values()
        else:
            continue
        if depth > limit:
            return True
        stack.extend((v, depth + 1) for v in children if not isinstance(v, _SCALARS))
    return False


def argument_problem(args: tuple[Any, ...], kwargs: tuple[tuple[str, Any], ...]) -> str | None:
    """Why a call's arguments cannot be carried (nested over :data:`MAX_ARGUMENT_DEPTH`, or an
    integer too long to print), or ``None``. Iterative: it never recurses on the value."""
    stack: list[tuple[Any, int]] = []
    for value in (*args, *(v for _, v in kwargs)):
        if not isinstance(value, _SCALARS):
            stack.append((value, 1))
    while stack:
        value, depth = stack.pop()
        if depth > MAX_ARGUMENT_DEPTH:
            return f"nested deeper than {MAX_ARGUMENT_DEPTH} levels"
        if isinstance(value, int) and not isinstance(value, bool):
            if _too_many_digits(value):
                return "an integer too long to print"
        elif isinstance(value, (list, tuple)):
            stack.extend((v, depth + 1) for v in value if not isinstance(v, _SCALARS))
        elif isinstance(value, _MAPPING):
            for key, v in value.items():
                if not isinstance(key, _SCALARS):
                    stack.append((key, depth + 1))
                if not isinstance(v, _SCALARS):
                    stack.append((v, depth + 1))
    return None


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

    def add(self, call: Call) -> None:
        """Keep a call; one whose arguments cannot be carried is kept without them, and noted."""
        problem = argument_problem(call.args, call.kwargs)
        if problem is not None:
            self.miss("call_arguments_unparsed", f"{call.name}: {problem}")
            call = Call(call.name)
        self.calls.append(call)

    def add_named(self, name: str, arguments: Mapping[str, Any] | None, raw: Any = None) -> None:
        """A call of ``name`` with these keyword arguments; ``None``: they could not be read (``raw``)."""
        if arguments is None:
            self.miss("call_arguments_unparsed", f"{name}: {_excerpt(raw)}")
            self.calls.append(Call(name))
        else:
            self.add(call_from_mapping(name, arguments))

    def take(self, other: _Found) -> None:
        self.calls.extend(other.calls)
        self.unread.extend(other.unread)


def _is_name(value: Any) -> bool:
    return isinstance(value, str) and _NAME.fullmatch(value) is not None


def _bad_name_kind(name: str) -> str:
    return "leaked_template_tokens" if _TEMPLATE_TOKEN.search(name) else "malformed_call_name"
