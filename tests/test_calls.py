"""Tests for the generic structural tool-call parsers in ``twinbench.calls``."""

from __future__ import annotations

import json

import pytest

from twinbench.calls import (
    DEFAULT_PARSERS,
    MAX_TEXT_CHARS,
    call_from_mapping,
    parse_json_calls,
    parse_native_records,
    parse_python_calls,
    parse_step,
    parse_tool_call_blocks,
)
from twinbench.model import Call

ALL_PARSERS = (
    parse_python_calls,
    parse_json_calls,
    parse_native_records,
    parse_tool_call_blocks,
    parse_step,
)

PROSE = [
    "Rivermist",
    "I'll confirm you are logged in first.",
    "Done.",
    "rm is dangerous",
    "我已经完成了。",
    "我已经完成了",
    "{}",
    "[]",
    "",
    "   ",
    "Sure! [cd(folder='x')]",
    "x is 1",
    "```",
    "<think>I should call cd(folder='x')",
]

GARBAGE = [None, 3, 3.5, True, [None], {"a": 1, "b": 2}, [{"a": 1, "b": 2}], b"cd()", object(), [[]], ()]


def kw(**kwargs: object) -> tuple[tuple[str, object], ...]:
    return tuple(kwargs.items())


CD_X = Call("cd", (), kw(folder="x"))


# --------------------------------------------------------------------------- python


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "[cd(folder='document'), mkdir(dir_name='temp')]",
            [Call("cd", (), kw(folder="document")), Call("mkdir", (), kw(dir_name="temp"))],
        ),
        ('cd(folder="Documents")', [Call("cd", (), kw(folder="Documents"))]),
        ("sort('final_report.pdf')", [Call("sort", ("final_report.pdf",), ())]),
        ("f(1, 'two', c=3)", [Call("f", (1, "two"), kw(c=3))]),
        (
            "GorillaFileSystem.mv(source='a', destination='b')",
            [Call("GorillaFileSystem.mv", (), kw(source="a", destination="b"))],
        ),
        ("a.b.c()", [Call("a.b.c")]),
        ("(cd(folder='x'), ls())", [CD_X, Call("ls")]),
        ("  cd(folder='x')\n", [CD_X]),
        ("<think>maybe ls()?</think>\ncd(folder='x')", [CD_X]),
        ("reasoning without an opener</think>[cd(folder='x')]", [CD_X]),
        ("```python\n[cd(folder='x')]\n```", [CD_X]),
        ("```tool_code\ncd(folder='x')\n```", [CD_X]),
        ("```json\ncd(folder='x')\n```", [CD_X]),
        ("```\ncd(folder='x')\n```", [CD_X]),
        ("```cd(folder='x')```", [CD_X]),
        ("`cd(folder='x')`", [CD_X]),
        ("<think>hmm</think>\n```python\n`cd(folder='x')`\n```", [CD_X]),
        ("cd(folder='x'); ls()", [CD_X, Call("ls")]),
    ],
)
def test_python_calls(text: str, expected: list[Call]) -> None:
    assert parse_python_calls(text) == expected


def test_python_argument_values() -> None:
    (call,) = parse_python_calls(
        "f(a=-1, b=+2.5, c=[1, (2, 3)], d={'k': true, 'n': null}, e=false, f=Rivermist,"
        " g=g(1), h=x + 1, i=obj.attr, j=f'{y}', k={3, 1, 2}, l=None, m=True, n=-x)"
    )
    assert call.name == "f"
    assert call.args == ()
    assert dict(call.kwargs) == {
        "a": -1,
        "b": 2.5,
        "c": [1, (2, 3)],
        "d": {"k": True, "n": None},
        "e": False,
        "f": "Rivermist",
        "g": "g(1)",
        "h": "x + 1",
        "i": "obj.attr",
        "j": "f'{y}'",
        "k": [1, 2, 3],
        "l": None,
        "m": True,
        "n": "-x",
    }
    assert [key for key, _ in call.kwargs] == list("abcdefghijklmn")


def test_python_keyword_order_kept() -> None:
    (call,) = parse_python_calls("mv(destination='b', source='a')")
    assert call.kwargs == (("destination", "b"), ("source", "a"))


@pytest.mark.parametrize(
    "text",
    [
        "f(**kwargs)",
        "[cd(folder='x'), f(**opts)]",
        "f(*args)",
        "f(a=1, a=2)",
        "[cd(folder='x'), 3]",
        "[cd(folder='x'), Rivermist]",
        "a()()",
        "a[0]()",
        "{'cd': 1}",
        '[{"name": "cd", "arguments": {"folder": "x"}}]',
        "cd(folder='x'",
        "lambda: cd()",
    ],
)
def test_python_not_calls(text: str) -> None:
    assert parse_python_calls(text) == []


# --------------------------------------------------------------------------- JSON


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('[{"name": "cd", "arguments": {"folder": "document"}}]', [Call("cd", (), kw(folder="document"))]),
        (
            '{"name": "mv", "parameters": {"source": "a", "destination": "b"}}',
            [Call("mv", (), kw(source="a", destination="b"))],
        ),
        ({"name": "cd", "arguments": '{"folder": "x"}'}, [CD_X]),
        (
            json.dumps({"name": "cd", "arguments": json.dumps({"folder": "x"}, indent=2)}, indent=2),
            [CD_X],
        ),
        ({"tool_name": "cd", "parameters": {"folder": "x"}}, [CD_X]),
        (
            [
                {"id": "1", "type": "function", "function": {"name": "cd", "arguments": '{"folder": "x"}'}},
                {"id": "2", "type": "function", "function": {"name": "ls", "arguments": ""}},
            ],
            [CD_X, Call("ls")],
        ),
        (
            '[{"name": "GorillaFileSystem.mv", "arguments": {"source": "a", "destination": "b"}}]',
            [Call("GorillaFileSystem.mv", (), kw(source="a", destination="b"))],
        ),
        ({"name": "f", "arguments": {"xs": [1, 2], "opts": {"k": None}}}, [Call("f", (), kw(xs=[1, 2], opts={"k": None}))]),
        ('```json\n{"name": "cd", "arguments": {"folder": "x"}}\n```', [CD_X]),
        # a bad element is skipped, the good one kept
        ([{"name": "cd", "arguments": {"folder": "x"}}, {"name": "ls", "arguments": "[1]"}], [CD_X]),
    ],
)
def test_json_calls(value: object, expected: list[Call]) -> None:
    assert parse_json_calls(value) == expected


@pytest.mark.parametrize(
    "value",
    [
        {"engineState": "running", "fuelLevel": 10},
        '{"engineState": "running", "fuelLevel": 10}',
        "[]",
        "{}",
        "not json at all",
        '{"name": "cd", "arguments": ',
        {"name": "cd"},
        {"name": "cd", "arguments": None},
        {"name": "cd", "arguments": "[1, 2]"},
        {"name": "cd", "arguments": "{'folder': 'x'}"},
        {"name": 3, "arguments": {}},
        {"name": "", "arguments": {}},
        {"name": "Alice Smith", "arguments": {}},
        {"function": "cd", "arguments": {}},
        {"name": "cd", "description": "Change dir.", "parameters": {"type": "object", "properties": {}}},
        '"just a string"',
        "cd(folder='x')",
    ],
)
def test_json_not_calls(value: object) -> None:
    assert parse_json_calls(value) == []


# --------------------------------------------------------------------------- native records


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ([{"cd": '{"folder": "document"}'}], [Call("cd", (), kw(folder="document"))]),
        ([{"cd": '{\n    "folder": "document"\n}'}], [Call("cd", (), kw(folder="document"))]),
        ({"cd": {"folder": "x"}}, [CD_X]),
        ([{"ls": ""}, {"pwd": "{}"}], [Call("ls"), Call("pwd")]),
        (
            '[{"GorillaFileSystem.mv": {"source": "a", "destination": "b"}}]',
            [Call("GorillaFileSystem.mv", (), kw(source="a", destination="b"))],
        ),
        ('[{"cd": "{\\"folder\\": \\"x\\"}"}]', [CD_X]),
        ([{"cd": {"folder": "x"}}, {"engineState": "running"}], [CD_X]),
    ],
)
def test_native_records(value: object, expected: list[Call]) -> None:
    assert parse_native_records(value) == expected


def test_native_record_with_several_keys_is_several_calls() -> None:
    # BFCL's own decoder walks every key of a record, so a merged record holds several calls
    assert parse_native_records([{"cd": {"folder": "x"}, "ls": "{}"}]) == [
        Call("cd", (), (("folder", "x"),)),
        Call("ls"),
    ]


@pytest.mark.parametrize(
    "value",
    [
        {"engineState": "running"},
        [{"engineState": "running"}],
        {"cd": {"folder": "x"}, "engineState": "running"},  # one key is not a call: a state dump
        [{"cd": '{"folder": "x"', "ls": "{}"}],
        [{"cd": "not json"}],
        [{"cd": "[1]"}],
        {"function": {"name": "cd", "arguments": {"folder": "x"}}},
        {"has space": {}},
        "[]",
        "{}",
        "[{}]",
    ],
)
def test_native_not_records(value: object) -> None:
    assert parse_native_records(value) == []


# --------------------------------------------------------------------------- <tool_call> blocks


def test_two_tool_call_blocks() -> None:
    text = (
        "I'll move there first.\n"
        '<tool_call>\n{"name": "cd", "arguments": {"folder": "x"}}\n</tool_call>\n'
        '<tool_call>{"name": "mv", "arguments": {"source": "a", "destination": "b"}}</tool_call>'
    )
    assert parse_tool_call_blocks(text) == [CD_X, Call("mv", (), kw(source="a", destination="b"))]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('<|tool_call|>{"name": "cd", "arguments": {"folder": "x"}}<|/tool_call|>', [CD_X]),
        ('<tool_call>{"name": "cd", "arguments": {"folder": "x"}}', [CD_X]),
        ('<tool_call>{"name": "cd", "arguments": {"folder": "x"}}<tool_call>{"name": "ls", "arguments": {}}', [CD_X, Call("ls")]),
        ('<tool_call>{"name": "cd", "arguments": {"folder": "x"}}\n{"name": "ls", "arguments": {}}</tool_call>', [CD_X, Call("ls")]),
        ('<tool_call>\n[{"name": "cd", "arguments": {"folder": "x"}}]\n</tool_call>', [CD_X]),
        # a bad block is skipped, the good one kept
        ('<tool_call>{"name": "cd", "argu</tool_call><tool_call>{"name": "ls", "arguments": {}}</tool_call>', [Call("ls")]),
        ('<think><tool_call>{"name": "rm", "arguments": {}}</tool_call></think>Which file?', []),
        ("No tool needed.", []),
        ("<tool_call>cd(folder='x')</tool_call>", [CD_X]),
    ],
)
def test_tool_call_blocks(text: str, expected: list[Call]) -> None:
    assert parse_tool_call_blocks(text) == expected


# --------------------------------------------------------------------------- steps


@pytest.mark.parametrize(
    ("step", "expected"),
    [
        ("[cd(folder='x')]", [CD_X]),
        ('[{"name": "cd", "arguments": {"folder": "x"}}]', [CD_X]),
        ('{"name": "cd", "parameters": {"folder": "x"}}', [CD_X]),
        ('[{"cd": "{\\"folder\\": \\"x\\"}"}]', [CD_X]),
        ([{"cd": '{"folder": "x"}'}], [CD_X]),
        ({"function": {"name": "cd", "arguments": '{"folder": "x"}'}}, [CD_X]),
        ('<tool_call>{"name": "cd", "arguments": {"folder": "x"}}</tool_call>', [CD_X]),
        (["Let me check.", "cd(folder='x')", "ls()"], [CD_X, Call("ls")]),
        (["I'll confirm you are logged in first.", "Done."], []),
        ([], []),
    ],
)
def test_parse_step(step: object, expected: list[Call]) -> None:
    assert parse_step(step) == expected


def test_parse_step_custom_parsers() -> None:
    assert parse_step("cd(folder='x')", parsers=(parse_json_calls,)) == []
    assert parse_step("cd(folder='x')", parsers=(parse_json_calls, parse_python_calls)) == [CD_X]


def test_parse_step_skips_raising_parser() -> None:
    def broken(step: object) -> list[Call]:
        raise RuntimeError("boom")

    assert parse_step("cd(folder='x')", parsers=(broken, parse_python_calls)) == [CD_X]


def test_default_parsers_order() -> None:
    assert DEFAULT_PARSERS == (parse_tool_call_blocks, parse_json_calls, parse_native_records, parse_python_calls)


# --------------------------------------------------------------------------- never a call, never raises


@pytest.mark.parametrize("text", PROSE)
@pytest.mark.parametrize("parser", ALL_PARSERS)
def test_prose_is_never_a_call(parser, text: str) -> None:
    assert parser(text) == []


@pytest.mark.parametrize("value", GARBAGE)
@pytest.mark.parametrize("parser", ALL_PARSERS)
def test_garbage_is_never_a_call(parser, value: object) -> None:
    assert parser(value) == []


@pytest.mark.parametrize(
    "text",
    [
        "f(" * 10_000,
        "[" * 100_000,
        '{"name":' * 10_000,
        "<tool_call>" + "{" * 100_000,
        "-" * 100_000 + "1",
        "`" * 10_000,
        "\x00",
        "x" * (MAX_TEXT_CHARS + 1),
        "[cd(folder='x')]" + " " * MAX_TEXT_CHARS,
    ],
)
@pytest.mark.parametrize("parser", ALL_PARSERS)
def test_hostile_text_gives_nothing(parser, text: str) -> None:
    assert parser(text) == []


def test_deeply_nested_data_does_not_raise() -> None:
    deep: list = []
    node = deep
    for _ in range(50_000):
        child: list = []
        node.append(child)
        node = child
    node.append("cd(folder='x')")
    for parser in ALL_PARSERS:
        assert isinstance(parser(deep), list)


def test_call_from_mapping_keeps_order() -> None:
    call = call_from_mapping("mv", {"source": "a", "destination": "b"})
    assert call == Call("mv", (), (("source", "a"), ("destination", "b")))
    assert call.argument("destination") == "b"
