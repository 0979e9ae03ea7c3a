"""Text cleanup before a text is read: ``<think>`` reasoning, code fences, backticks, ``<|python_tag|>`` (Llama) and a leading ``[TOOL_CALLS]`` (Mistral)."""

from __future__ import annotations

import re
from typing import Any

from twinbench.reading.found import MAX_TEXT_CHARS

# Opening of a markdown fence after the leading ```: an optional language tag on
# its own line, or a known tag followed by spaces on the same line.
_FENCE_TAG = re.compile(
    r"[ \t]*+(?:[\w+.\-]*+[ \t]*+\r?\n|(?:python3?|py|tool_code|tool_call|json)[ \t]++)?"
)


_PYTHON_TAG = "<|python_tag|>"


_MISTRAL_PREFIX = "[TOOL_CALLS]"


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
