"""Hostile input is data (issue 18, item 4): nothing in a result, score, When2Call or OpenAI file ends
in a traceback, in any command, in one process or in workers.

Each defect the issue names is reproduced here: lone surrogates and control characters (written
back safely), nesting depth, huge integers, huge steps, line separators, call arguments that
cannot be read (an unread call, never "no call"), a symlinked model folder and a score file
without a model name. The generated cases (hypothesis) check the readers' promises on any value.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builders import tiny_package
from conftest import FIXTURES, REPO
from test_score import good_lines, write_run

from twinbench.adapters.bfcl.lines import _json_lines, _LineStats
from twinbench.adapters.when2call.runs import rollout_of
from twinbench.cli import main
from twinbench.reading import read_step
from twinbench.reading.found import MAX_ARGUMENT_DEPTH, MAX_PYTHON_CHARS, MAX_TEXT_CHARS
from twinbench.render.output import safe_text

MINI_W2C = FIXTURES / "when2call" / "mini.jsonl"
DEEP = "[" * 100_000 + "]" * 100_000
BIG_INT = "9" * 5000


@pytest.fixture
def release(tmp_path):
    return tiny_package(tmp_path / "release")


def cli(capsys, *argv, code=0):
    got = main([str(a) for a in argv])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "Traceback" not in captured.out
    assert got == code, captured.err
    return captured.out, captured.err


def ascii_run(root: Path, model: str, lines: dict[str, list]) -> Path:
    """A result tree written with JSON's ASCII escapes, so that lone surrogates can be in it."""
    raw = {cat: "".join(json.dumps(row) + "\n" for row in lines.get(cat, [])).encode() for cat in
           ("base", "miss_func", "miss_param")}
    return write_run(root, model, {}, raw=raw)


def score_json(capsys, release, runs, *extra):
    out, err = cli(capsys, "score", "--bfcl-root", release, "--results", runs, "--bootstrap", "0",
                   "--format", "json", *extra)
    return json.loads(out), err


def only_model(summary):
    (model,) = summary["models"]
    return model


def score_files(root: Path, model: str, failed: dict[str, dict] | None = None, name: str | None = None):
    """Score files of a run whose items all passed except ``failed`` (id -> the line's other keys)."""
    failed = failed or {}
    folder = root / "score" / (name or model) / "multi_turn"
    folder.mkdir(parents=True, exist_ok=True)
    for cat in ("base", "miss_func", "miss_param"):
        mine = {i: v for i, v in failed.items() if f"_{cat}_" in i}
        rows = [{"accuracy": 1 - len(mine), "correct_count": 1 - len(mine), "total_count": 1}]
        rows += [{"id": i, **v} for i, v in mine.items()]
        (folder / f"BFCL_v4_multi_turn_{cat}_score.json").write_text("".join(json.dumps(r) + "\n" for r in rows))


# --------------------------------------------------------------------------- surrogates and control characters


SURROGATE_ASK = "Which name? \ud800"


@pytest.mark.parametrize("fmt", ["table", "json", "csv", "markdown"])
def test_a_lone_surrogate_in_a_model_name_and_a_step_is_written_escaped(tmp_path, release, capsys, fmt):
    runs = tmp_path / "runs"
    lines = good_lines(ask_step=SURROGATE_ASK)
    lines["miss_func"][0]["result"][0] = ["[mkdir(dir_name=\ud800"]  # unread: the excerpt quotes it
    ascii_run(runs, os.fsdecode(b"m\xff"), lines)  # a folder name that is no UTF-8: a surrogate in the name
    existing = tmp_path / "out.txt"
    existing.write_text("the old output\n")
    per_item = tmp_path / "items.csv"
    out, _ = cli(capsys, "score", "--bfcl-root", release, "--results", runs, "--bootstrap", "0", "--format", fmt,
                 "--output", existing, "--per-item", per_item)
    text = existing.read_text(encoding="utf-8")
    assert "m\\udcff" in text and "m\\udcff" in per_item.read_text(encoding="utf-8")
    if fmt == "json":
        summary = json.loads(text)
        assert summary["models"][0]["model"] == "m\udcff"  # the escape JSON itself uses: read back the same
        assert any("\ud800" in e["example"] for e in summary["models"][0]["unread"]["examples"])


def test_a_lone_surrogate_reaches_the_report_escaped(tmp_path, release, capsys):
    runs = tmp_path / "runs"
    ascii_run(runs, "m", good_lines(ask_step=SURROGATE_ASK))
    page = tmp_path / "report.html"
    page.write_text("<p>old</p>\n")
    cli(capsys, "report", "--bfcl-root", release, "--results", runs, "--bootstrap", "0", "--output", page)
    assert "Which name? \\ud800" in page.read_text(encoding="utf-8")


def test_a_lone_surrogate_in_a_when2call_reply(tmp_path, capsys, suite_rows):
    rows = [{**r, "model_response": "Which city? \ud800"} if r["uuid"] == "rfi-1" else r for r in suite_rows]
    path = tmp_path / "careful.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    page = tmp_path / "report.html"
    cli(capsys, "report", "--adapter", "when2call", "--when2call-data", MINI_W2C, "--results", path,
        "--bootstrap", "0", "--output", page)
    assert "Which city? \\ud800" in page.read_text(encoding="utf-8")


def test_control_characters_never_reach_the_terminal(tmp_path, release, capsys):
    runs = tmp_path / "runs"
    write_run(runs, "m\x1b[2J\x07", good_lines())
    out, err = cli(capsys, "score", "--bfcl-root", release, "--results", runs, "--bootstrap", "0")
    assert "\x1b" not in out and "\x07" not in out and "m\\x1b[2J\\x07" in out


@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_a_model_name_holding_a_newline_keeps_its_table_row_whole(tmp_path, release, capsys, fmt):
    runs = tmp_path / "runs"
    write_run(runs, "m\nfake row | 100.0\t", good_lines())
    out, _ = cli(capsys, "score", "--bfcl-root", release, "--results", runs, "--bootstrap", "0", "--format", fmt)
    lines = out.splitlines()
    assert not any(line.startswith("fake row") for line in lines)  # no row of the model's making
    rows = [line for line in lines if "fake row" in line and "coverage" not in line]  # the table rows
    assert len(rows) == (2 if fmt == "table" else 1)  # one row per block of the table, one in markdown
    assert all(row.startswith("m\\nfake row" if fmt == "table" else "| m\\") for row in rows)


@given(st.text())
def test_safe_text_always_encodes_and_json_reads_it_back(text):
    made = safe_text(json.dumps({"t": text}, ensure_ascii=False))
    made.encode("utf-8")  # never raises
    assert json.loads(made) == {"t": text}
    assert not any(0xD800 <= ord(c) <= 0xDFFF or c in "\x1b\x85\u2028\u2029" for c in safe_text(text))


# --------------------------------------------------------------------------- depth and size of values


@pytest.fixture
def suite_rows(tmp_path, capsys):
    """The mini When2Call suite, answered When2Call-style by a careful model (acts, asks)."""
    from test_when2call import _respond

    assert main(["build", "--adapter", "when2call", "--when2call-data", str(MINI_W2C), "--out",
                 str(tmp_path / "suite")]) == 0
    capsys.readouterr()
    rows = [json.loads(line) for line in (tmp_path / "suite" / "when2call.jsonl").read_text().split("\n") if line]
    return _respond(rows, True, False)


def w2c_score(capsys, path, data=MINI_W2C, *extra):
    out, err = cli(capsys, "score", "--adapter", "when2call", "--when2call-data", data, "--results", path,
                   "--bootstrap", "0", "--format", "json", *extra)
    return only_model(json.loads(out)), err


@pytest.mark.parametrize("line, why", [(DEEP, "nested"), ('{"uuid": "x", "n": ' + BIG_INT + "}", "digits")])
def test_a_hostile_when2call_output_line_is_counted_with_its_line(tmp_path, capsys, suite_rows, line, why):
    path = tmp_path / "careful.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in suite_rows) + line + "\n")
    model, err = w2c_score(capsys, path)
    assert model["coverage"]["scored"] == 4 and model["decision"] == 100.0
    assert f"{path}: 1 line(s) are not a JSON row with a uuid (line {len(suite_rows) + 1})" in err


@pytest.mark.parametrize("line, why", [(DEEP, "nested"), ('{"uuid": "x", "n": ' + BIG_INT + "}", "digits")])
def test_a_hostile_when2call_data_line_is_left_out_with_its_line(tmp_path, capsys, line, why):
    data = tmp_path / "data.jsonl"
    data.write_text(MINI_W2C.read_text() + line + "\n")
    out, _ = cli(capsys, "pairs", "--adapter", "when2call", "--when2call-data", data, "--format", "json")
    record = json.loads(out)
    assert record["counts"]["scored"] == 4
    rows = len(MINI_W2C.read_text().splitlines())
    (warning,) = [w for w in record["data_warnings"] if f"data.jsonl line {rows + 1}:" in w]
    assert "not a usable When2Call row" in warning and why in warning


def test_a_score_file_naming_a_turn_of_5000_digits(tmp_path, release, capsys):
    runs = tmp_path / "runs"
    write_run(runs, "m", good_lines())
    score_files(runs, "m", {"multi_turn_base_0": {"model_name": "m", "error": {
        "error_type": "multi_turn:empty_turn_model_response", "error_message": f"empty for turn {BIG_INT}"}}})
    summary, _ = score_json(capsys, release, runs, "--diagnostics")
    assert only_model(summary)["official"]["n_base_twins"] == 1  # read, the turn unknown
    for command in (["report", "--bootstrap", "0", "--output", tmp_path / "r.html"], ["replay"], ["calls"]):
        cli(capsys, command[0], "--bfcl-root", release, "--results", runs, *command[1:])


def test_a_call_holding_an_integer_too_long_to_print(tmp_path, release, capsys):
    runs = tmp_path / "runs"
    write_run(runs, "m", good_lines(ask_step="[mkdir(dir_name=0x" + "f" * 5000 + ")]"))
    cli(capsys, "report", "--bfcl-root", release, "--results", runs, "--bootstrap", "0", "--output",
        tmp_path / "r.html")
    model = only_model(score_json(capsys, release, runs)[0])
    assert model["hold"] == 0.0  # the call was made: an attempt whose arguments are unread
    assert model["unread"]["counts"] == {"call_arguments_unparsed": 2}


DEEP_ARGUMENT = '{"a": ' * 950 + "1" + "}" * 950  # as JSON text: json.dumps itself cannot go this deep here


def step_id(step: str) -> str:
    return "native" if step.startswith('[{"mkdir": {') else "other"


@pytest.mark.parametrize("step", [
    '[{"mkdir": {"dir_name": DEEP}}]',  # a native record, decoded arguments
    '[{"mkdir": "{\\"dir_name\\": ' + DEEP_ARGUMENT.replace('"', '\\"') + '}"}]',  # JSON-string arguments
    json.dumps(json.dumps({"name": "mkdir", "arguments": {"dir_name": "DEEP"}})).replace(
        '\\"DEEP\\"', ('{"a": ' * 300 + "1" + "}" * 300).replace('"', '\\"')),  # a JSON call in a text
    json.dumps("[mkdir(dir_name=" + "[" * 150 + "]" * 150 + ")]"),  # python-style text
], ids=["native", "native-json-text", "json-text", "python"])
def test_an_argument_nested_too_deep_is_an_attempt_with_unread_arguments_in_workers(tmp_path, release, step):
    """Four runs in four workers: the calls they send back must pickle (nested 950 deep they did not)."""
    step = step.replace("DEEP", DEEP_ARGUMENT)
    runs = tmp_path / "runs"
    for k in range(4):
        lines = {cat: [json.dumps(row) for row in rows] for cat, rows in good_lines(ask_step="ASK").items()}
        raw = {cat: "".join(line.replace('"ASK"', step) + "\n" for line in rows).encode() for cat, rows in lines.items()}
        write_run(runs, f"m{k}", {}, raw=raw)
    # a fresh process, as on the command line: under pytest's deep stack JSON decoding itself stops short of 950
    env = {**os.environ, "TWINBENCH_WORKERS": "4", "TWINBENCH_NO_CACHE": "1"}
    commands = [["score", "--format", "json", "--diagnostics"], ["report", "--output", str(tmp_path / "r.html")]]
    for command in commands[: 2 if "native" == step_id(step) else 1]:
        done = subprocess.run([sys.executable, "-m", "twinbench.cli", command[0], "--bfcl-root", str(release),
                               "--results", str(runs), "--bootstrap", "0", *command[1:]],
                              cwd=REPO, env=env, capture_output=True, text=True)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
        if command[0] == "score":
            for model in json.loads(done.stdout)["models"]:
                assert model["hold"] == 0.0 and model["unread"]["counts"] == {"call_arguments_unparsed": 2}


def test_calls_on_a_score_line_nested_100000_deep(tmp_path, release, capsys):
    runs = tmp_path / "runs"
    write_run(runs, "m", good_lines())
    score_files(runs, "m")
    with (runs / "score" / "m" / "multi_turn" / "BFCL_v4_multi_turn_base_score.json").open("a") as handle:
        handle.write(DEEP + "\n")
    cli(capsys, "calls", "--bfcl-root", release, "--results", runs)


# --------------------------------------------------------------------------- long steps


def test_a_text_step_over_the_bound_is_unread_not_a_hold(tmp_path, release, capsys):
    runs = tmp_path / "runs"
    lines = good_lines()
    lines["miss_param"][0]["result"][0] = ["x" * (MAX_TEXT_CHARS + 1)]
    write_run(runs, "m", lines)
    model = only_model(score_json(capsys, release, runs)[0])
    assert model["coverage"]["scored"] == 1 and model["coverage"]["unscored"] == {"ask: unreadable call": 1}
    assert model["unread"]["counts"] == {"too_long": 1}


def test_python_text_over_its_bound_is_unread_not_a_hold(tmp_path, release, capsys):
    calls = "[" + "mkdir(dir_name='a'), " * (MAX_PYTHON_CHARS // 20) + "]"
    assert MAX_PYTHON_CHARS < len(calls) < MAX_TEXT_CHARS
    runs = tmp_path / "runs"
    lines = good_lines()
    lines["miss_param"][0]["result"][0] = [calls]
    write_run(runs, "m", lines)
    model = only_model(score_json(capsys, release, runs)[0])
    assert model["coverage"]["unscored"] == {"ask: unreadable call": 1}
    assert model["unread"]["counts"] == {"too_long": 1}


@pytest.mark.parametrize("wrap", ["{}", "<tool_call>\n{}\n</tool_call>", "```python\n{}\n```"])
def test_python_text_over_its_bound_is_too_long_however_it_is_wrapped(wrap):
    calls = "[" + "mkdir(dir_name='a'), " * (MAX_PYTHON_CHARS // 20) + "]"
    reading = read_step(wrap.format(calls))
    assert reading.calls == () and [u.kind for u in reading.unread] == ["too_long"] and reading.unreadable


MEMORY_PROBE = """
import resource, sys, time
from twinbench.reading import read_step
text = "[" + "mkdir(dir_name='a'), " * (int(sys.argv[1]) // 21) + "]"
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
reading = read_step(text)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before, time.perf_counter() - start)
"""


def test_a_megabyte_of_python_calls_costs_little_memory():
    """Bounded before ast.parse: a 1 MB call text costs a few MiB, not hundreds (an AST costs ~500 B a character)."""
    done = subprocess.run([sys.executable, "-c", MEMORY_PROBE, "999000"], capture_output=True, text=True, cwd=REPO,
                          check=True)
    grown_kib, seconds = done.stdout.split()
    assert int(grown_kib) < 16 * 1024 and float(seconds) < 1.0


# --------------------------------------------------------------------------- JSON Lines


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085"])  # valid raw in a JSON string
def test_line_separators_inside_when2call_strings_keep_the_row_whole(tmp_path, capsys, suite_rows, separator):
    rows = [{**r, "model_response": r["model_response"] + separator + "more"} if r["uuid"] == "rfi-1" else r
            for r in suite_rows]
    path = tmp_path / "careful.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    model, err = w2c_score(capsys, path)
    assert model["coverage"]["scored"] == 4 and "not a JSON row" not in err
    data = tmp_path / "data.jsonl"
    rows = [json.loads(line) for line in MINI_W2C.read_text().splitlines()]
    for row in rows:  # the same separator in both texts of a request: the pairs stay what they were
        for key in ("question", "orig_question"):
            if key in row:
                row[key] = row[key].replace(" ", separator, 1)
    data.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    out, err = cli(capsys, "pairs", "--adapter", "when2call", "--when2call-data", data, "--format", "json")
    assert json.loads(out)["counts"]["scored"] == 4 and "not a usable" not in err


# --------------------------------------------------------------------------- a call whose arguments cannot be read


@pytest.mark.parametrize("arguments", ['{"city": "Os', "[]", None, 7], ids=["truncated", "list", "null", "number"])
def test_when2call_tool_calls_with_unreadable_arguments_are_attempts(tmp_path, capsys, suite_rows, arguments):
    message = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "hotel_api_HotelApi_book_room", "arguments": arguments}}]}
    rows = [{k: v for k, v in r.items() if k != "model_response"} | {"response": {"choices": [{"message": message}]}}
            if r["uuid"] == "rfi-1" else r for r in suite_rows]
    path = tmp_path / "careful.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    model, _ = w2c_score(capsys, path)
    assert model["hold"] == 75.0 and model["coverage"]["scored"] == 4  # acted blind on rfi-1, not "no call"
    assert model["unread"]["counts"] == {"call_arguments_unparsed": 1}


@pytest.mark.parametrize("step", [
    '{"name": "mkdir", "arguments": "{\\"dir_name\\": "}',
    [{"mkdir": '{"dir_name": '}],
    [{"name": "mkdir", "arguments": None}],
], ids=["json-text", "native", "record-null"])
def test_bfcl_calls_with_unreadable_arguments_are_attempts(tmp_path, release, capsys, step):
    runs = tmp_path / "runs"
    write_run(runs, "m", good_lines(ask_step=step))
    model = only_model(score_json(capsys, release, runs)[0])
    assert model["hold"] == 0.0 and model["unread"]["counts"] == {"call_arguments_unparsed": 2}


# --------------------------------------------------------------------------- runs and their score files


def test_a_symlinked_model_folder_is_scored_once_under_the_folder_it_names(tmp_path, release, capsys):
    runs = tmp_path / "runs"
    write_run(runs, "real", good_lines())
    score_files(runs, "real", {"multi_turn_base_0": {"model_name": "real", "error": {"error_type": "x"}}})
    (runs / "result" / "a-link").symlink_to("real")
    summary, err = score_json(capsys, release, runs)
    model = only_model(summary)
    assert model["model"] == "real" and model["official"]["n_base_twins"] == 1
    assert f"{runs / 'result' / 'a-link'} is a symbolic link to {runs / 'result' / 'real'}" in err
    summary, _ = score_json(capsys, release, runs, "--model", "real")
    assert only_model(summary)["model"] == "real"


def test_a_symlinked_model_folder_outside_the_tree(tmp_path, release, capsys):
    elsewhere = tmp_path / "elsewhere"
    write_run(elsewhere, "run-3", good_lines())
    score_files(elsewhere, "run-3")
    tree = tmp_path / "tree" / "result"
    tree.mkdir(parents=True)
    (tree / "gpt").symlink_to(elsewhere / "result" / "run-3")
    summary, err = score_json(capsys, release, tree.parent)
    model = only_model(summary)
    assert model["model"] == "run-3" and model["official"] is not None
    assert "is a symbolic link to" in err


@pytest.mark.parametrize("line, accepted", [
    ({"id": "multi_turn_base_0", "error": {"error_type": "x"}, "model_result_raw": [["[mkdir(dir_name='a')]",
                                                                                       "Done."]]}, True),
    ({"id": "multi_turn_base_0", "error": {"error_type": "x"}, "model_result_raw": [["[ls()]"]]}, False),
    ({"id": "multi_turn_base_0", "error": {"error_type": "x"}, "model_result": [["I will not."]]}, False),
    ({"id": "multi_turn_base_7", "error": {"error_type": "x"}}, False),
], ids=["this-run", "other-raw-result", "other-result", "unknown-id"])
def test_a_score_file_without_a_model_name_is_checked_by_its_ids_and_content(tmp_path, release, capsys, line,
                                                                              accepted):
    runs = tmp_path / "runs"
    write_run(runs, "m", good_lines())
    score_files(runs, "m")
    path = runs / "score" / "m" / "multi_turn" / "BFCL_v4_multi_turn_base_score.json"
    path.write_text(json.dumps({"accuracy": 0.0, "correct_count": 0, "total_count": 1}) + "\n" + json.dumps(line)
                    + "\n")
    summary, err = score_json(capsys, release, runs)
    official = only_model(summary)["official"]
    assert (official["n_base_twins"] == 1) is accepted
    assert ("cannot be this run's" in err) is not accepted


def test_the_stored_result_is_kept_by_the_fast_decoder():
    """Checking the content costs no second decoding of the line: msgspec keeps it as JSON text."""
    from twinbench.adapters.bfcl.lines import _score_fields

    line = json.dumps({"id": "multi_turn_base_0", "error": {"error_type": "x"}, "model_result_raw": [["[ls()]"]],
                       "model_result": None}).encode()
    assert _score_fields(line)["model_result"] == b'[["[ls()]"]]'
    assert "model_result" not in _score_fields(b'{"id": "a", "model_result_raw": null}')


# --------------------------------------------------------------------------- generated values


def _json_values(leaves=None):
    leaves = leaves if leaves is not None else (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                        | st.text(max_size=20))
    return st.recursive(leaves, lambda inner: st.lists(inner, max_size=4)
                        | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=30)


def _nested(depth: int, kind: str):
    value: object = 1
    for _ in range(depth):
        value = [value] if kind == "list" else {"k": value}
    return value


def _big(digits: int) -> int:
    return -(10 ** digits) if digits % 2 else 10 ** digits


# the long integers are built from their digit count: hypothesis itself cannot print one it draws
HOSTILE_LEAVES = (st.integers() | st.builds(_big, st.integers(4200, 5000)) | st.text()
                  | st.sampled_from(["\ud800", "\x1b[2J", "\u2028", "0x" + "f" * 5000, "f(" * 300])
                  | st.builds(_nested, st.integers(0, 300), st.sampled_from(["list", "dict"])))


def _as_json(value) -> str | None:
    try:
        return json.dumps({"name": "mkdir", "arguments": value})
    except (ValueError, RecursionError):  # an integer too long to print, a value nested too deep
        return None


def _shapes(value):
    """A value as a step may hold it: as is, as a call's arguments, as JSON text, as a native record."""
    return st.sampled_from([value, {"name": "mkdir", "arguments": value}, {"mkdir": value},
                            [{"mkdir": value}], _as_json(value) or value])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_json_values(HOSTILE_LEAVES).flatmap(_shapes))
def test_reading_any_step_gives_calls_every_later_stage_can_carry(step):
    reading = read_step(step)
    pickle.loads(pickle.dumps(reading))  # what a worker sends back, and the cache keeps
    for call in reading.calls:
        safe_text(call.render())  # the report's text of it
        stack = [(v, 1) for v in (*call.args, *(v for _, v in call.kwargs))]
        while stack:
            value, depth = stack.pop()
            assert depth <= MAX_ARGUMENT_DEPTH
            if isinstance(value, (list, tuple)):
                stack.extend((v, depth + 1) for v in value)
            elif isinstance(value, dict):
                stack.extend((v, depth + 1) for v in value.values())


def _rows(value):
    """When2Call and OpenAI rows holding ``value`` where a response goes."""
    call = {"type": "function", "function": {"name": "a_b", "arguments": value}}
    return st.sampled_from([{"model_response": value}, {"error": value, "model_response": "x"},
                            {"choices": [{"message": {"content": value}}]},
                            {"response": {"body": {"choices": [{"message": {"content": None, "tool_calls": [call]}}]}}},
                            {"choices": [{"message": {"tool_calls": value}}]}, {"response": value}])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_json_values(HOSTILE_LEAVES).flatmap(_rows))
def test_any_when2call_row_gives_a_rollout_every_later_stage_can_carry(row):
    rollout = rollout_of("x", row)
    pickle.loads(pickle.dumps(rollout))
    for call in rollout.calls_on(0) or ():
        safe_text(call.render())


@settings(max_examples=100, deadline=None)
@given(st.lists(st.binary(max_size=60) | st.sampled_from([DEEP.encode(), BIG_INT.encode(), b'"\\ud800"',
                                                           "\u2028".encode(), b"\r", b"\x85"]), max_size=8))
def test_a_json_lines_file_of_anything_is_read_line_by_line(tmp_path_factory, chunks):
    path = tmp_path_factory.mktemp("lines") / "f.json"
    data = b"\n".join(chunks)
    path.write_bytes(data)
    read = list(_json_lines(path, _LineStats()))
    numbers = [n for n, line in enumerate(data.split(b"\n"), 1) if line.strip()]
    assert [n for n, _, _ in read] == numbers  # split on \n only, every non-blank line accounted for


# -- numbers msgspec cannot hold, in the parts the fast path leaves encoded --------------------------

_HUGE_INT = "1" + "0" * ((sys.get_int_max_str_digits() or 4300) + 100)  # over json's limit; msgspec refuses it too
_STEP_CASES = {
    "overflowing float in a read turn": '{"id": "multi_turn_base_0", "result": [["ls(a=1e999)", {"x": 1e999}]]}',
    "overflowing float as a step": '{"id": "multi_turn_base_0", "result": [["ls()", 1e999]]}',
    "overflowing float as the result": '{"id": "multi_turn_base_0", "result": 1e999}',
    "overflowing float in an unread turn": '{"id": "multi_turn_base_0", "result": [["ls()"], [{"x": -1e999}]]}',
    "overflowing float in a user message": ('{"id": "multi_turn_base_0", "result": [["ls()"]], "inference_log": '
                                            '[{"begin_of_turn_query": [{"role": "user", "content": '
                                            '[{"type": "text", "text": "hi"}, {"n": 1e999}]}]}]}'),
    "huge integer in an unread turn": '{"id": "multi_turn_base_0", "result": [["ls()"], [{"x": %s}]]}' % _HUGE_INT,
    "huge integer in a read turn": '{"id": "multi_turn_base_0", "result": [[{"x": %s}]]}' % _HUGE_INT,
}


def _read_both_ways(path: Path, monkeypatch):
    """The file read as scoring reads it (turn 0 of the one id), and read by the stdlib path alone."""
    from twinbench.adapters.bfcl import result_files

    def read():
        return result_files.read_result_file(path, keep_ids={"multi_turn_base_0"}, turns={"multi_turn_base_0": {0}})

    fast = read()

    def refuse(*args, **kwargs):
        raise ValueError("the stdlib path only")

    with monkeypatch.context() as patched:
        patched.setattr(result_files, "_result_fields", refuse)
        slow = read()
    return fast, slow


@pytest.mark.parametrize("case", sorted(_STEP_CASES))
def test_a_number_msgspec_cannot_hold_is_read_as_the_stdlib_path_reads_it(tmp_path, monkeypatch, case):
    """A line whose parts hold ``1e999`` or a 4,400-digit integer: the same entry, problem and warnings
    as the plain json reading (which twinbench used before it decoded only the scored turns); never a
    traceback, and a score file's check of the stored result reads it too."""
    from twinbench.adapters.bfcl.result_files import stored_result

    path = tmp_path / "BFCL_v4_multi_turn_base_result.json"
    path.write_text(_STEP_CASES[case] + "\n" + _STEP_CASES[case] + "\n", encoding="utf-8")  # and a copy of it
    fast, slow = _read_both_ways(path, monkeypatch)
    assert fast.bad_lines == slow.bad_lines and fast.warnings == slow.warnings
    assert set(fast.entries) == set(slow.entries)
    for entry_id, entry in fast.entries.items():
        other = slow.entries[entry_id]
        assert (entry.error, entry.unreadable, entry.logged_user_turns) == (other.error, other.unreadable,
                                                                            other.logged_user_turns)
        assert (entry.turns is None) == (other.turns is None)
        if entry.turns is not None:
            assert repr(entry.turns[0]) == repr(other.turns[0])
            assert repr(stored_result(entry)) == repr(stored_result(other))
    if "huge integer" in case:
        assert fast.bad_lines and not fast.entries  # refused and counted, as json refuses it


def test_a_huge_integer_in_a_line_no_pair_reads_is_no_longer_refused(tmp_path):
    """The one reading that differs from the stdlib path (said in the changelog): a line dropped for
    its id is checked for its JSON syntax, and an integer over 4,300 digits is valid JSON."""
    from twinbench.adapters.bfcl.result_files import read_result_file

    path = tmp_path / "BFCL_v4_multi_turn_base_result.json"
    path.write_text('{"id": "multi_turn_base_7", "result": [[{"x": %s}]]}\n' % _HUGE_INT
                    + '{"id": "multi_turn_base_7", "result": [[{"x": 1}]\n', encoding="utf-8")  # then a cut line
    found = read_result_file(path, keep_ids={"multi_turn_base_0"})
    assert found.other_ids == 1 and not found.entries
    assert [n for n, _ in found.bad_lines] == [2]  # the truncated line is still refused and counted


def test_score_on_a_run_with_an_overflowing_float_in_every_turn_of_a_line(tmp_path, release, capsys):
    lines = good_lines()
    for rows in lines.values():
        for row in rows:
            row["result"] = [[*turn, {"x": float("inf")}] for turn in row["result"]]
    write_run(tmp_path / "runs", "m", lines)
    for path in (tmp_path / "runs").rglob("*_result.json"):  # json.dumps writes Infinity: make it 1e999
        path.write_text(path.read_text(encoding="utf-8").replace("Infinity", "1e999"), encoding="utf-8")
    assert "1e999" in "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "runs").rglob("*_result.json"))
    summary, err = score_json(capsys, release, tmp_path / "runs")
    assert only_model(summary)["pairs"] == 2 and "unusable" not in err  # read as json reads it: a step holding inf
