"""What reading a step finds: its calls, what it left unread (:class:`Unread`, :data:`UNREAD_KINDS`), and the tally a run keeps."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import attrs

from twinbench.model import Call

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


def _is_name(value: Any) -> bool:
    return isinstance(value, str) and _NAME.fullmatch(value) is not None


def _bad_name_kind(name: str) -> str:
    return "leaked_template_tokens" if _TEMPLATE_TOKEN.search(name) else "malformed_call_name"
