"""Property tests of the call parsers (hypothesis): they never raise, never invent a call, stay fast.

Kept small on purpose (a few hundred examples in all): the whole file runs in seconds.
"""

from __future__ import annotations

import json
import keyword
import re
from datetime import timedelta

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from twinbench.reading import (
    MAX_TEXT_CHARS,
    StepReading,
    parse_json_calls,
    parse_native_records,
    parse_python_calls,
    parse_step,
    parse_tool_call_blocks,
    read_step,
)
from twinbench.model import Call  # noqa: E402

PARSERS = (parse_python_calls, parse_json_calls, parse_native_records, parse_tool_call_blocks, parse_step)
NAME = re.compile(r"[^\W\d][\w.\-]*")
FAST = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def read_everything(value: object) -> StepReading:
    """Every parser on ``value``: each returns a list of calls with real names, and read_step agrees."""
    for parser in PARSERS:
        calls = parser(value)
        assert isinstance(calls, list)
        assert all(isinstance(c, Call) and NAME.fullmatch(c.name) for c in calls)
    reading = read_step(value)
    assert isinstance(reading, StepReading)
    assert list(reading.calls) == parse_step(value)
    assert all(len(u.excerpt) <= 120 for u in reading.unread)
    return reading


# --------------------------------------------------------------------------- nothing escapes

PIECES = [
    "<", ">", "<|", "|>", "/", "{", "}", "[", "]", "(", ")", ";", ",", ":", "'", '"', "`", "```", "\n", " ",
    "<tool_call>", "</tool_call>", "<|tool_call|>", "<|tool_call_start|>", "<|tool_call_end|>", "<TOOLCALL>",
    "</TOOLCALL>", "<function_call>", "<function=cd>", "</function>", "<start_function_call>", "call:",
    "<end_function_call>", "<escape>", "<think>", "</think>", "<|python_tag|>", "[TOOL_CALLS]", '"name":',
    '"arguments":', '"parameters":', '"tool_calls":', "cd", "cd(folder='x')", "ls()", "True", "null", "1e999",
    "-", "*", "**", "=", "\\", "\x00", "\u00a0",
]


@FAST
@given(st.text(max_size=400))
def test_arbitrary_text_never_raises(text: str) -> None:
    read_everything(text)


@FAST
@given(st.lists(st.sampled_from(PIECES), max_size=60).map("".join))
def test_unbalanced_brackets_and_tags_never_raise(text: str) -> None:
    read_everything(text)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=30,
)


@FAST
@given(json_values)
def test_arbitrary_json_never_raises(value: object) -> None:
    read_everything(value)
    read_everything(json.dumps(value))


python_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10) | st.binary(max_size=5),
    lambda children: st.lists(children, max_size=3) | st.tuples(children, children)
    | st.dictionaries(st.integers() | st.text(max_size=5) | st.none(), children, max_size=3),
    max_leaves=20,
)


@FAST
@given(python_values)
def test_arbitrary_python_values_never_raise(value: object) -> None:
    read_everything(value)
    read_everything([value])
    read_everything({"f": value})


@settings(max_examples=20, deadline=None)
@given(st.integers(min_value=1, max_value=5_000),
       st.sampled_from(["[", '{"a":', "(", "f(", "-", "[{", "<tool_call>{"]))
def test_deep_nesting_never_raises(depth: int, opener: str) -> None:
    read_everything(opener * depth)
    read_everything(opener * depth + "1" + "]" * depth)


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=10**20, max_value=10**1000) | st.integers(max_value=-(10**20), min_value=-(10**1000)))
def test_huge_numbers_are_kept_exactly(number: int) -> None:
    # JSON decodes integers of up to 4300 digits exactly; the call keeps them
    assert parse_step('{"name": "f", "arguments": {"n": %d}}' % number) == [Call("f", (), (("n", number),))]
    assert parse_step("f(n=%d)" % number) == [Call("f", (), (("n", number),))]


@settings(max_examples=20, deadline=None)
@given(st.integers(min_value=4_400, max_value=20_000))
def test_numbers_too_long_to_decode_never_raise(digits: int) -> None:
    read_everything('{"name": "f", "arguments": {"n": %s}}' % ("7" * digits))
    read_everything("f(n=%s)" % ("7" * digits))


# --------------------------------------------------------------------------- prose is never a call

FUNCTION_NAMES = ["cd", "ls", "rm", "mv", "cp", "echo", "cat", "sort", "find", "grep", "post_tweet", "send_message",
                  "lockDoors", "startEngine", "place_order", "book_flight", "no_function", "GorillaFileSystem.mv"]
WORDS = ["I", "will", "the", "file", "Rivermist", "confirm", "you", "are", "logged", "in", "Done", "name",
         "arguments", "call", "function", "我已经完成了", "tool_call", "python_tag", "json", "think"]
PUNCTUATION = [".", ",", "!", "?", ":", "'", '"', "-", "\n", "\n\n", "`", "*", "#", "=", "|", "/", "%", "$"]
prose = st.lists(
    st.sampled_from(FUNCTION_NAMES + WORDS) | st.sampled_from(PUNCTUATION), min_size=1, max_size=40
).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(prose)
def test_prose_with_function_names_is_no_call_and_nothing_unread(text: str) -> None:
    # words and punctuation, no brackets, braces or parentheses: no call, nothing noted as unread
    assert read_everything(text) == StepReading()


# --------------------------------------------------------------------------- the same calls in every shape

identifier = st.from_regex(r"[a-z_][a-z0-9_]{0,7}", fullmatch=True).filter(lambda s: not keyword.iskeyword(s))
plain_text = st.text(st.characters(blacklist_characters="<>\x00", blacklist_categories=("Cs",)), max_size=12)
finite = st.floats(allow_nan=False, allow_infinity=False)
scalar = st.none() | st.booleans() | st.integers(-(10**12), 10**12) | finite | plain_text
argument = scalar | st.lists(scalar, max_size=3)
calls_strategy = st.lists(
    st.tuples(
        st.lists(identifier, min_size=1, max_size=2).map(".".join),
        st.dictionaries(identifier, argument, max_size=3),
    ),
    min_size=1,
    max_size=4,
)


def gemma_value(value: object) -> str:
    if isinstance(value, str):
        return f"<escape>{value}<escape>"
    if isinstance(value, list):
        return "[" + ",".join(gemma_value(v) for v in value) + "]"
    return json.dumps(value)


def shapes(calls: list[tuple[str, dict]]) -> dict[str, object]:
    """The same calls stored in each shape a handler writes."""
    python = [f"{n}(" + ", ".join(f"{k}={v!r}" for k, v in a.items()) + ")" for n, a in calls]
    llama = [json.dumps({"name": n, "parameters": a}) for n, a in calls]
    out: dict[str, object] = {
        "python list": "[" + ", ".join(python) + "]",
        "python ;": "; ".join(python),
        "python lines": "\n".join(python),
        "python in <TOOLCALL>": "<TOOLCALL>[" + ", ".join(python) + "]</TOOLCALL>",
        "json list": json.dumps([{"name": n, "arguments": a} for n, a in calls]),
        "llama ;": "; ".join(llama),
        "llama lines": "\n".join(llama),
        "llama python_tag": "<|python_tag|>" + "; ".join(llama),
        "native records": [{n: json.dumps(a)} for n, a in calls],
        "native records text": json.dumps([{n: a} for n, a in calls]),
        "openai envelope": {"tool_calls": [{"type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
                                           for n, a in calls]},
        "tool_call blocks": "Sure.\n" + "\n".join(
            f"<tool_call>\n{json.dumps({'name': n, 'arguments': a})}\n</tool_call>" for n, a in calls),
        "function tags": "".join(f"<function={n}>{json.dumps(a)}</function>" for n, a in calls),
        "functiongemma": "".join(
            f"<start_function_call>call:{n}{{" + ",".join(f"{k}:{gemma_value(v)}" for k, v in a.items())
            + "}<end_function_call>" for n, a in calls),
        "cohere": [{"tool_name": n, "parameters": a} for n, a in calls],
    }
    if len(calls) == 1:
        out["name line"] = calls[0][0] + "\n" + json.dumps(calls[0][1])
    return out


@settings(max_examples=60, deadline=None)
@given(calls_strategy)
def test_every_shape_reads_the_same_calls(calls: list[tuple[str, dict]]) -> None:
    expected = [Call(n, (), tuple(a.items())) for n, a in calls]
    for shape, step in shapes(calls).items():
        reading = read_step(step)
        assert list(reading.calls) == expected, shape
        assert reading.unread == (), shape


# --------------------------------------------------------------------------- bounded work

ADVERSARIAL = [  # (head, unit repeated to fill the text)
    ("<", " "), ("<|", " "), ("", "<"), ("", "< /"), ("", "{"), ("", "["), ("", "("), ("", "f("), ("", ";"),
    ("", "[{("), ("", '{"name":'), ("", "<tool_call>"), ("", "<tool_call>{"), ("", "<function="),
    ("<start_function_call>call:f{", "<escape>a:"), ("", "`"), ("", '{"name": "cd", "parameters": {}}; '),
    ("", "cd(folder='x'); "), ("Well ", 'so {"name": "x'), ("Well ", "see [cd( "), ("[", "get_time, "),
]


@pytest.mark.parametrize(("head", "unit"), ADVERSARIAL)
@settings(max_examples=3, deadline=timedelta(seconds=2), suppress_health_check=[HealthCheck.too_slow])
@given(size=st.integers(min_value=48_000, max_value=64_000))
def test_adversarial_64k_inputs_finish(head: str, unit: str, size: int) -> None:
    # the old tag pattern needed 6-9 s for "<" + 64,000 spaces (4 s or more from 48,000 on);
    # on 48-64 KB of any of these, every parser together must stay under the deadline
    # (hypothesis fails an example that exceeds it), i.e. well under 30 s/MB
    read_everything(head + unit * (size // len(unit)))


def test_the_size_limit_holds() -> None:
    text = "[cd(folder='x')]" + " " * MAX_TEXT_CHARS
    assert read_step(text).calls == ()
    assert [u.kind for u in read_step(text).unread] == ["too_long"]
