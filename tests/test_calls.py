"""Tests for the generic structural tool-call parsers in ``twinbench.calls``."""

from __future__ import annotations

import json

import pytest

from twinbench.reading import (
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
        # an element whose arguments cannot be read is still a call of its name, without them
        ([{"name": "cd", "arguments": {"folder": "x"}}, {"name": "ls", "arguments": "[1]"}], [CD_X, Call("ls")]),
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


@pytest.mark.parametrize("value", [
    {"name": "cd", "arguments": None},
    {"name": "cd", "arguments": "[1, 2]"},
    {"name": "cd", "arguments": "{'folder': 'x'}"},
    {"name": "cd", "arguments": '{"folder": '},
    [{"cd": '{"folder": "x"'}],
])
def test_a_call_whose_arguments_cannot_be_read_is_a_call_without_them(value: object) -> None:
    """Never "no call": the model called ``cd``; what it passed is unread, and counted."""
    reading = read_step(value)
    assert reading.calls == (Call("cd"),)
    assert [u.kind for u in reading.unread] == ["call_arguments_unparsed"]


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


# --------------------------------------------------------------------------- shapes the harness handlers decode

MV_AB = Call("mv", (), kw(source="a", destination="b"))
LS = Call("ls")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Llama 3.1 FC (llama_3_1.py splits on ';'): JSON objects joined by '; '
        ('{"name": "cd", "parameters": {"folder": "x"}}; '
         '{"name": "mv", "parameters": {"source": "a", "destination": "b"}}',
         [CD_X, MV_AB]),
        # a ';' inside a string value does not split the call (the handler's split does)
        ('{"name": "echo", "parameters": {"content": "a; b"}}; {"name": "ls", "parameters": {}}',
         [Call("echo", (), kw(content="a; b")), LS]),
        # Llama 3.1 FC evaluates the text: objects joined by commas (a tuple) or a list
        ('{"name": "cd", "parameters": {"folder": "x"}}, {"name": "ls", "parameters": {}}', [CD_X, LS]),
        # several objects on several lines (xLAM/Salesforce handlers split on ';' or read a list)
        ('{"name": "cd", "arguments": {"folder": "x"}}\n{"name": "ls", "arguments": {}}', [CD_X, LS]),
        ('[{"name": "cd", "arguments": {"folder": "x"}}]\n[{"name": "ls", "arguments": {}}]', [CD_X, LS]),
        # objects joined by pipes: the Llama handler's eval keeps only the last; all are read
        ('{"name": "cd", "parameters": {"folder": "x"}} | {"name": "ls", "parameters": {}}', [CD_X, LS]),
        # <|python_tag|> prefix (llama_3_1.py removes it), also before each object
        ('<|python_tag|>{"name": "cd", "parameters": {"folder": "x"}}', [CD_X]),
        ('<|python_tag|>{"name": "cd", "parameters": {"folder": "x"}}; <|python_tag|>{"name": "ls", "parameters": {}}',
         [CD_X, LS]),
        # python literals in a call object (llama_3_1.py evaluates; think_agent.py swaps quotes)
        ("{'name': 'lockDoors', 'parameters': {'unlock': False, 'door': ['driver']}}",
         [Call("lockDoors", (), kw(unlock=False, door=["driver"]))]),
        ('{"name": "lockDoors", "parameters": {"unlock": False}}; {"name": "ls", "parameters": {}}',
         [Call("lockDoors", (), kw(unlock=False)), LS]),
        # python's implicit string concatenation, which the Llama handler's eval accepts too
        ('{"name": "echo", "parameters": {"content": ""\'"Q1"\', "file_name": "a.txt"}}',
         [Call("echo", (), kw(content='"Q1"', file_name="a.txt"))]),
        # OpenAI message / Hammer envelope {"tool_calls": [...]} (hammer.py reads .get("tool_calls"))
        ('{"tool_calls": [{"name": "cd", "arguments": {"folder": "x"}}, {"name": "ls", "arguments": {}}]}', [CD_X, LS]),
        ('{"role": "assistant", "tool_calls": [{"type": "function", '
         '"function": {"name": "cd", "arguments": "{\\"folder\\": \\"x\\"}"}}]}',
         [CD_X]),
        # Mistral's template writes [TOOL_CALLS] before the JSON list
        ('[TOOL_CALLS][{"name": "cd", "arguments": {"folder": "x"}}]', [CD_X]),
        # Hammer strips fences anywhere; a fenced JSON list
        ('```\n[{"name": "cd", "arguments": {"folder": "x"}}]\n```', [CD_X]),
    ],
)
def test_json_call_sequences(text: str, expected: list[Call]) -> None:
    assert parse_json_calls(text) == expected
    assert parse_step(text) == expected


@pytest.mark.parametrize("separator", ["; ", ";", ", ", ",\n", "\n", " | "])
def test_json_objects_joined_are_read_as_json(separator: str) -> None:
    # JSON escapes ("\/") decode as JSON, not as python literals: the separator itself is understood
    text = separator.join(['{"name": "cd", "parameters": {"folder": "a\\/b"}}', '{"name": "ls", "parameters": {}}'])
    assert parse_json_calls(text) == [Call("cd", (), kw(folder="a/b")), LS]
    assert parse_step(text) == [Call("cd", (), kw(folder="a/b")), LS]


def test_json_envelope_as_a_record() -> None:
    step = {"role": "assistant", "content": None,
            "tool_calls": [{"id": "1", "type": "function", "function": {"name": "cd", "arguments": '{"folder": "x"}'}}]}
    assert parse_json_calls(step) == [CD_X]
    assert parse_step(step) == [CD_X]
    assert parse_native_records(step) == []


def test_calls_then_trailing_prose_keeps_the_calls() -> None:
    text = '{"name": "cd", "parameters": {"folder": "x"}}\n\nThis moves into x.'
    assert parse_step(text) == [CD_X]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # nexus.py turns ';' into ',' ; minicpm_fc.py parses python statements
        ("cd(folder='x'); mv(source='a', destination='b')", [CD_X, MV_AB]),
        ("cd(folder='x');", [CD_X]),
        ("cd(folder='x')\nls()", [CD_X, LS]),
        ("[cd(folder='x')]\n\n[ls()]", [CD_X, LS]),
        # the default prompting decoder adds a missing '[' or ']'
        ("[cd(folder='x'), ls()", [CD_X, LS]),
        ("cd(folder='x'), ls()]", [CD_X, LS]),
        ("<|python_tag|>cd(folder='x')", [CD_X]),
    ],
)
def test_python_call_sequences(text: str, expected: list[Call]) -> None:
    assert parse_python_calls(text) == expected
    assert parse_step(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # qwen_fc.py and kin: <tool_call>\n{json}\n</tool_call>
        ('<tool_call>\n{"name": "cd", "arguments": {"folder": "x"}}\n</tool_call>', [CD_X]),
        # python calls inside a <tool_call> block
        ("<tool_call>[cd(folder='x'), ls()]</tool_call>", [CD_X, LS]),
        # falcon_fc.py strips a ```json fence inside the block
        ('<tool_call>```json\n[{"name": "cd", "arguments": {"folder": "x"}}]\n```</tool_call>', [CD_X]),
        # several objects joined by ';' in one block
        ('<tool_call>{"name": "cd", "arguments": {"folder": "x"}}; {"name": "ls", "arguments": {}}</tool_call>',
         [CD_X, LS]),
        # minicpm_fc.py: <|tool_call_start|> ```python calls ``` <|tool_call_end|>
        ("Sure.<|tool_call_start|>\n```python\ncd(folder='x')\nls()\n```\n<|tool_call_end|>Done.", [CD_X, LS]),
        # nemotron.py: <TOOLCALL>[calls]</TOOLCALL>
        ("<TOOLCALL>[cd(folder='x'), ls()]</TOOLCALL>", [CD_X, LS]),
        # granite.py: <function_call> {json} separators; no_function is no call
        ('<function_call> {"name": "cd", "arguments": {"folder": "x"}} <function_call> {"name": "ls", "arguments": {}}',
         [CD_X, LS]),
        ('<function_call> {"name": "no_function", "arguments": {}}', []),
        # Llama 3.x custom tool calls: <function=NAME>{args}</function>
        ('<function=cd>{"folder": "x"}</function>', [CD_X]),
        ('<function=cd>{"folder": "x"}</function><function=ls>{}</function>', [CD_X, LS]),
        ("<function=ls></function>", [LS]),
        # functiongemma.py: <start_function_call>call:NAME{k:<escape>v<escape>}<end_function_call>
        ("<start_function_call>call:cd{folder:<escape>x<escape>}<end_function_call>", [CD_X]),
        ("<start_function_call>call:f{n:3,ok:true,r:2.5,xs:[1,<escape>a,b<escape>],d:{k:null}}<end_function_call>",
         [Call("f", (), kw(n=3, ok=True, r=2.5, xs=[1, "a,b"], d={"k": None}))]),
        ("<start_function_call>call:ls<end_function_call>", [LS]),
    ],
)
def test_tagged_blocks(text: str, expected: list[Call]) -> None:
    assert parse_tool_call_blocks(text) == expected
    assert parse_step(text) == expected


def test_name_line_then_arguments() -> None:
    # glm.py: the function name on one line, its JSON arguments on the next
    assert parse_step('cd\n{"folder": "x"}') == [CD_X]
    assert parse_step("ls\n{}") == [LS]
    assert parse_step('Done.\n{"folder": "x"}') == []
    assert parse_step('I moved it\n{"folder": "x"}') == []


# --------------------------------------------------------------------------- what is not read

from twinbench.reading import UNREAD_KINDS, StepReading, Unread, read_step  # noqa: E402


def kinds(step: object) -> list[str]:
    return [u.kind for u in read_step(step).unread]


@pytest.mark.parametrize(
    ("step", "kind"),
    [
        ('{"name": "cd", "parameters": {"folder": "x"', "json_call_unparsed"),
        ('{"name": "echo", "parameters": {"content": "Q1": 5}}', "json_call_unparsed"),
        ("<tool_call>I will change the folder</tool_call>", "tool_call_block_not_json"),
        ('<tool_call>{"name": "cd", "arguments": {"folder"</tool_call>', "tool_call_block_not_json"),
        ("<start_function_call>call:cd{folder:<escape>x}<end_function_call>", "tool_call_block_not_json"),
        ([{"echo<|channel|>commentary": '{"content": "hi"}'}], "leaked_template_tokens"),
        ([{"cat<|channel|>": '{"file_name": "a"}'}], "leaked_template_tokens"),
        ([{".?<|end|><|start|>assistant": "We need to copy the file. Let's do that."}], "leaked_template_tokens"),
        ('[{"name": "cd<|channel|>json", "arguments": {}}]', "leaked_template_tokens"),
        ([{"ls\xa0json": '{"a": false}'}], "malformed_call_name"),
        ({"name": "Alice Smith", "arguments": {}}, "malformed_call_name"),
        ([{"wc": '{"file_name": "a.txt", "mode": ...'}], "call_arguments_unparsed"),
        ({"name": "cd", "arguments": "[1, 2]"}, "call_arguments_unparsed"),
        ("[get_current_time]", "python_call_unparsed"),
        ("[fillFuelTank(fuelAmount=10), displayCarStatus(option='a', option='b')]", "python_call_unparsed"),
        ("cd(folder='x'", "python_call_unparsed"),
        ('You can fix it as follows:\n\n{"name": "mv", "parameters": {"source": "a", "destination": "b"}}',
         "call_in_prose"),
        ("Sure! [cd(folder='x')]", "call_in_prose"),
        ("x" * (MAX_TEXT_CHARS + 1), "too_long"),
    ],
)
def test_unread_kinds(step: object, kind: str) -> None:
    reading = read_step(step)
    assert kind in UNREAD_KINDS
    assert [u.kind for u in reading.unread] == [kind]
    assert all(len(u.excerpt) <= 120 for u in reading.unread)
    assert reading.calls == tuple(parse_step(step))


def test_unread_beside_calls() -> None:
    # gpt-oss stores one record per call; a bad record does not hide the good one (and is a call itself)
    step = [{"wc": '{"file_name": "a", "mode": "l'}, {"wc": '{"file_name": "a", "mode": "c"}'}]
    reading = read_step(step)
    assert reading.calls == (Call("wc"), Call("wc", (), kw(file_name="a", mode="c")))
    assert [u.kind for u in reading.unread] == ["call_arguments_unparsed"]
    assert parse_native_records([{"cd": '{"folder": "x"', "ls": "{}"}]) == [Call("cd"), Call("ls")]
    step = [{"cat<|channel|>": '{"file_name": "a"}'}, {"ls": "{}"}]
    assert read_step(step) == StepReading((LS,), (Unread("leaked_template_tokens", "cat<|channel|>"),))


def test_leaked_template_name_is_not_recovered() -> None:
    # the name before '<|' is not turned into a call: no function of the mangled name ran
    assert parse_step([{"echo<|channel|>commentary": '{"content": "hi", "file_name": "a.txt"}'}]) == []


def test_broken_call_after_good_calls() -> None:
    text = '{"name": "cd", "parameters": {"folder": "x"}}; {"name": "mv", "parameters": {"source": "a"'
    reading = read_step(text)
    assert reading.calls == (CD_X,)
    assert [u.kind for u in reading.unread] == ["json_call_unparsed"]


def test_excerpt_is_short() -> None:
    (unread,) = read_step("[" + "get_current_time, " * 100 + "]").unread
    assert unread.kind == "python_call_unparsed"
    assert len(unread.excerpt) == 120


@pytest.mark.parametrize("text", [t for t in PROSE if "cd(" not in t] + [
    "The file 'final_report.pdf' has been moved to the 'temp' directory.",
    "Note, however, that the list is ['a', 'b'].",
    "Sure (I will do that).",
    "[Note] the file is moved.",
    "(see below) Done.",
    '{"engineState": "running", "fuelLevel": 10}',
    "[]",
    "",
])
def test_prose_gives_no_unread(text: str) -> None:
    assert read_step(text) == StepReading()


@pytest.mark.parametrize("value", GARBAGE)
def test_garbage_gives_nothing(value: object) -> None:
    assert read_step(value) == StepReading()


def test_read_step_and_parse_step_agree_on_every_shape() -> None:
    steps = [
        "[cd(folder='x')]",
        '{"name": "cd", "parameters": {"folder": "x"}}; {"name": "ls", "parameters": {}}',
        [{"cd": '{"folder": "x"}'}, {"ls": ""}],
        ["Let me check.", "cd(folder='x')", "ls()"],
        '<tool_call>{"name": "cd", "arguments": {"folder": "x"}}</tool_call>',
        {"tool_calls": [{"function": {"name": "cd", "arguments": '{"folder": "x"}'}}]},
    ]
    for step in steps:
        assert parse_step(step) == list(read_step(step).calls)
        assert parse_step(step, DEFAULT_PARSERS) == list(read_step(step).calls)


def test_old_tool_tag_pattern_was_quadratic_now_finishes() -> None:
    # "<" + spaces made the old tag pattern backtrack quadratically (seconds for 64 KB)
    text = "<" + " " * 200_000 + "tool_cal"
    for parser in ALL_PARSERS:
        assert parser(text) == []
