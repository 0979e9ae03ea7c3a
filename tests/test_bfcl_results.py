"""Tests of the BFCL tree finder and file readers (tree, lines, result_files, score_files): finding and reading BFCL result and score trees."""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest

from twinbench.adapters.bfcl.lines import ResultsError
from twinbench.adapters.bfcl.result_files import ResultEntry, read_result_file
from twinbench.adapters.bfcl.score_files import read_score_file
from twinbench.adapters.bfcl.tree import dataset_version_of, find_runs

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "bfcl_runs"
V4 = FIXTURES / "v4_nested"
V3 = FIXTURES / "v3_flat"
MODEL_A = V4 / "result" / "model-a"
MODEL_B = V3 / "model-b"
SHARED_RUNS = Path(__file__).resolve().parents[2] / "shared" / "bfcl-runs"


def _write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _line(**fields: object) -> str:
    return json.dumps(fields, ensure_ascii=False) + "\n"


# --------------------------------------------------------------------------- discovery


def test_find_runs_over_all_fixture_layouts() -> None:
    scan = find_runs(FIXTURES)

    assert scan.models == ("model-a", "model-b")
    run_a, run_b = scan.runs

    assert run_a.version == "v4"
    assert run_a.root == MODEL_A
    assert run_a.files == {
        cat: MODEL_A / "multi_turn" / f"BFCL_v4_multi_turn_{cat}_result.json"
        for cat in ("base", "miss_func", "miss_param")
    }
    assert run_a.score_files == {
        cat: V4 / "score" / "model-a" / "multi_turn" / f"BFCL_v4_multi_turn_{cat}_score.json"
        for cat in ("base", "miss_func", "miss_param")
    }

    assert run_b.version == "v3"
    assert run_b.root == MODEL_B
    assert run_b.files == {
        cat: MODEL_B / f"BFCL_v3_multi_turn_{cat}_result.json" for cat in ("base", "miss_func", "miss_param")
    }
    assert run_b.score_files == {}  # no result/ prefix, so no sibling score tree

    assert [(s.model, s.root, s.reason) for s in scan.skipped] == [
        ("model-c", FIXTURES / "mixed" / "model-c", "mixes BFCL_v3 and BFCL_v4 result files"),
        ("model-partial", V4 / "result" / "model-partial", "missing miss_param result file"),
    ]
    assert scan.warnings == ()


def test_find_runs_v4_tree_with_sibling_scores() -> None:
    scan = find_runs(V4)
    assert scan.models == ("model-a",)
    assert set(scan.runs[0].score_files) == {"base", "miss_func", "miss_param"}
    assert [s.model for s in scan.skipped] == ["model-partial"]


def test_find_runs_v3_flat_without_result_folder() -> None:
    scan = find_runs(V3)
    assert scan.models == ("model-b",)
    assert scan.runs[0].version == "v3"
    assert scan.skipped == ()


@pytest.mark.parametrize(
    "root, model, has_scores",
    [
        (MODEL_A, "model-a", True),
        (MODEL_A / "multi_turn", "model-a", True),
        (MODEL_B, "model-b", False),
    ],
)
def test_find_runs_on_a_single_model_folder(root: Path, model: str, has_scores: bool) -> None:
    scan = find_runs(root)
    assert scan.models == (model,)
    assert bool(scan.runs[0].score_files) is has_scores


def test_find_runs_with_explicit_scores_root() -> None:
    scan = find_runs(V3, scores_root=FIXTURES / "v3_scores")
    (run,) = scan.runs
    assert run.score_files == {"base": FIXTURES / "v3_scores" / "score" / "model-b" / "BFCL_v3_multi_turn_base_score.json"}
    assert scan.warnings == ("model-b: no score file for miss_func, miss_param (found for base)",)


def test_explicit_scores_root_replaces_the_sibling_tree() -> None:
    scan = find_runs(V4, scores_root=FIXTURES / "v3_scores")
    assert scan.runs[0].score_files == {}
    assert any("model-a: no score files under" in w for w in scan.warnings)


def test_find_runs_requested_categories() -> None:
    only_base = find_runs(V4, categories=("multi_turn_base",))
    assert only_base.models == ("model-a", "model-partial")
    assert set(only_base.runs[1].files) == {"base"}
    # miss_func was found but not requested
    assert set(only_base.runs[1].extra_files) == {"miss_func"}

    with_long = find_runs(FIXTURES, categories=("base", "long_context"))
    assert with_long.runs == ()
    assert {s.reason for s in with_long.skipped} == {
        "missing long_context result file",
        "mixes BFCL_v3 and BFCL_v4 result files",
    }


@pytest.mark.parametrize(
    "make_root, message",
    [
        (lambda tmp: tmp / "nowhere", "does not exist"),
        (lambda tmp: _write(tmp / "file.json", "{}"), "is not a directory"),
        (lambda tmp: tmp, "no BFCL multi-turn result files"),
        (lambda tmp: _write(tmp / "m" / "BFCL_v4_simple_result.json", "{}").parents[1], "no BFCL multi-turn"),
        (lambda tmp: _write(tmp / "m" / "BFCL_v2_multi_turn_base_result.json", "{}").parents[1], "no BFCL"),
    ],
)
def test_find_runs_fatal_problems(tmp_path: Path, make_root, message: str) -> None:
    with pytest.raises(ResultsError, match=message):
        find_runs(make_root(tmp_path))


def test_find_runs_rejects_unknown_categories_and_missing_scores_root(tmp_path: Path) -> None:
    with pytest.raises(ResultsError, match="unknown BFCL multi-turn category 'simple'"):
        find_runs(V4, categories=("base", "simple"))
    with pytest.raises(ResultsError, match="no BFCL category requested"):
        find_runs(V4, categories=())
    with pytest.raises(ResultsError, match="score folder .* does not exist"):
        find_runs(V4, scores_root=tmp_path / "missing")


def test_find_runs_edge_layouts(tmp_path: Path) -> None:
    line = _line(id="multi_turn_base_0", result=[[]])
    for cat in ("base", "miss_func", "miss_param", "long_context"):
        _write(tmp_path / "x" / "result" / "good" / "multi_turn" / f"BFCL_v4_multi_turn_{cat}_result.json", line)
        # same model name in a second tree
        _write(tmp_path / "y" / "good" / f"BFCL_v4_multi_turn_{cat}_result.json", line)
        # hidden folders are not searched
        _write(tmp_path / ".cache" / "hidden" / f"BFCL_v4_multi_turn_{cat}_result.json", line)
        # a category given both flat and nested
        _write(tmp_path / "z" / "twice" / f"BFCL_v4_multi_turn_{cat}_result.json", line)
    _write(tmp_path / "z" / "twice" / "multi_turn" / "BFCL_v4_multi_turn_base_result.json", line)
    # non-multi-turn and unknown multi-turn categories are ignored
    _write(tmp_path / "x" / "result" / "good" / "BFCL_v4_simple_result.json", line)
    _write(tmp_path / "x" / "result" / "other" / "multi_turn" / "BFCL_v4_multi_turn_composite_result.json", line)

    scan = find_runs(tmp_path)
    assert [(r.model, r.root) for r in scan.runs] == [
        ("good", tmp_path / "x" / "result" / "good"),
        ("good", tmp_path / "y" / "good"),
    ]
    assert set(scan.runs[0].extra_files) == {"long_context"}
    assert [(s.model, s.reason) for s in scan.skipped] == [
        ("twice", "more than one result file for a category (base: BFCL_v4_multi_turn_base_result.json, "
         "multi_turn/BFCL_v4_multi_turn_base_result.json)"),
    ]
    assert len(scan.warnings) == 1 and "model name 'good' is used by 2 folders" in scan.warnings[0]

    only_unknown = tmp_path / "only_unknown"
    _write(only_unknown / "m" / "BFCL_v4_multi_turn_composite_result.json", line)
    scan = find_runs(only_unknown)
    assert scan.runs == () and scan.skipped == ()
    assert "all of other categories" in scan.warnings[0]


def test_find_runs_is_deterministic() -> None:
    assert find_runs(FIXTURES) == find_runs(FIXTURES)


# --------------------------------------------------------------------------- result files


def test_read_v4_result_with_log_duplicates_errors_and_unicode() -> None:
    rf = read_result_file(MODEL_A / "multi_turn" / "BFCL_v4_multi_turn_base_result.json")

    assert (rf.version, rf.category) == ("v4", "base")
    # file order is kept (ids are unsorted in the file); the duplicate is dropped
    assert list(rf.entries) == ["multi_turn_base_2", "multi_turn_base_0", "multi_turn_base_1", "multi_turn_base_3"]
    assert rf.duplicates == ("multi_turn_base_0",)
    assert rf.bad_lines == ()
    assert not rf.empty
    assert rf.other_ids == 0
    assert rf.warnings == (
        "1 id seen more than once, the first occurrence kept: multi_turn_base_0 "
        "[line 6 (different content from line 2)]",
    )

    # state logs are skipped; one tuple of user texts per turn
    first = rf.entries["multi_turn_base_2"]
    assert first.line == 1
    assert first.turns == (([{"cd": '{"folder": "document"}'}], []),)
    assert first.logged_user_turns == (("Go to the document folder.",),)

    # the first copy is kept; the system message is not a user turn; non-ASCII survives,
    # whether written raw (UTF-8) or as \\u escapes
    zero = rf.entries["multi_turn_base_0"]
    assert zero.line == 2
    assert zero.error is None
    assert zero.turns == (
        ([{"ls": '{"a": true}'}], "Done."),
        ([{"touch": '{"file_name": "报告.txt"}'}], "好的，已创建。"),
    )
    assert zero.logged_user_turns == (
        ("List all files, including hidden ones.",),
        ("请创建一个名为“报告.txt”的文件。",),
    )

    # a line with only id and result (after a blank line, which is skipped silently)
    assert rf.entries["multi_turn_base_1"] == ResultEntry(
        "multi_turn_base_1", (([{"mkdir": '{"dir_name": "temp"}'}],),), None, None, 4
    )

    # an inference error: result is a string, the traceback is not kept
    err = rf.entries["multi_turn_base_3"]
    assert err.turns is None
    assert err.error == "Error during inference: Error code: 500 - {'error': 'boom'}"
    assert err.logged_user_turns is None
    assert rf.error_ids == ("multi_turn_base_3",)
    assert rf.error_count == 1


def test_entries_keep_nothing_of_the_raw_line() -> None:
    assert [f.name for f in attrs.fields(ResultEntry)] == ["id", "turns", "error", "logged_user_turns", "line",
                                                         "unreadable", "stored_steps", "stored_whole"]
    rf = read_result_file(MODEL_A / "multi_turn" / "BFCL_v4_multi_turn_base_result.json")
    text = repr(rf)
    for dropped in ("state_info", "handler_log", "input_token_count", "Traceback", "You are a helpful assistant"):
        assert dropped not in text


def test_read_result_keep_ids() -> None:
    rf = read_result_file(
        MODEL_A / "multi_turn" / "BFCL_v4_multi_turn_base_result.json",
        keep_ids={"multi_turn_base_0", "multi_turn_base_3"},
    )
    assert list(rf.entries) == ["multi_turn_base_0", "multi_turn_base_3"]
    assert rf.other_ids == 2
    assert rf.duplicates == ("multi_turn_base_0",)


def test_truncated_last_line_and_holdout_turn_without_user_text() -> None:
    rf = read_result_file(MODEL_A / "multi_turn" / "BFCL_v4_multi_turn_miss_func_result.json")
    assert list(rf.entries) == ["multi_turn_miss_func_0"]
    ((lineno, reason),) = rf.bad_lines
    assert lineno == 2
    assert reason.startswith("truncated last line (invalid JSON: Unterminated string")
    assert rf.warnings == (f"1 unusable line skipped: line 2: {reason}",)
    entry = rf.entries["multi_turn_miss_func_0"]
    # log without state logs (--exclude-state-log); the second turn's query is empty
    assert entry.logged_user_turns == (("Sort a.txt.",), ())
    assert entry.turns == (("I cannot sort without a sort tool.",), ([{"sort": '{"file_name": "a.txt"}'}], []))


def test_empty_result_file() -> None:
    rf = read_result_file(MODEL_A / "multi_turn" / "BFCL_v4_multi_turn_miss_param_result.json")
    assert rf.empty
    assert rf.entries == {}
    assert rf.bad_lines == ()
    assert rf.warnings == ("the result file is empty",)


def test_v3_flat_result_with_bad_lines() -> None:
    rf = read_result_file(MODEL_B / "BFCL_v3_multi_turn_miss_param_result.json")
    assert (rf.version, rf.category) == ("v3", "miss_param")
    assert rf.bad_lines == (
        (2, "no id"),
        (3, "invalid JSON (Expecting value at character 48)"),  # not the last line: not "truncated"
        (4, "not a JSON object (list)"),
    )
    assert list(rf.entries) == [
        "multi_turn_miss_param_0",
        "multi_turn_miss_param_2",
        "multi_turn_base_9",
        "multi_turn_miss_param_3",
    ]
    assert rf.entries["multi_turn_miss_param_0"].turns == (
        ('{"name": "mv", "parameters": {"source": "a", "destination": "b"}}',),
    )
    odd = rf.entries["multi_turn_miss_param_2"]
    assert odd.turns is None and odd.error == "result is a dict, not a list of turns"
    assert rf.error_count == 1
    warnings = "\n".join(rf.warnings)
    assert "3 unusable lines skipped" in warnings
    assert "1 entry without a usable result list: multi_turn_miss_param_2" in warnings
    assert "1 id not of category miss_param: multi_turn_base_9" in warnings


def test_v3_flat_result_with_chinese_text() -> None:
    rf = read_result_file(MODEL_B / "BFCL_v3_multi_turn_base_result.json")
    assert rf.warnings == ("1 entry without a usable result list: multi_turn_base_1 (result is an empty list "
                           "(no turn at all))",)
    zero = rf.entries["multi_turn_base_0"]
    assert zero.turns == (('[cd(folder="文档"), ls()]', "完成了。"),)
    assert zero.logged_user_turns == (("进入文档文件夹并列出文件。",),)  # the system prompt is not a user turn
    empty = rf.entries["multi_turn_base_1"]  # no turn at all is no rollout: unreadable, never "no call"
    assert (empty.turns, empty.unreadable) == (None, True)


def test_invalid_utf8_is_replaced_and_warned(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "BFCL_v4_multi_turn_base_result.json",
        b'{"id": "multi_turn_base_0", "result": [["caf\xe9 \xff"]]}\n'
        + _line(id="multi_turn_base_1", result=[["fine"]]).encode(),
    )
    rf = read_result_file(path)
    assert rf.entries["multi_turn_base_0"].turns == (("caf\ufffd \ufffd",),)
    assert rf.entries["multi_turn_base_1"].turns == (("fine",),)
    assert rf.bad_lines == ()
    assert rf.warnings == (
        "1 line with invalid UTF-8 bytes (first: line 1); they were decoded with U+FFFD replacement characters",
    )


def test_bom_crlf_blank_lines_and_missing_newline(tmp_path: Path) -> None:
    text = (
        "\ufeff"
        + _line(id="multi_turn_base_1", result=[["a"]]).replace("\n", "\r\n")
        + "\r\n   \n"
        + _line(id="multi_turn_base_0", result=[["b"]]).rstrip("\n")
    )
    rf = read_result_file(_write(tmp_path / "BFCL_v4_multi_turn_base_result.json", text))
    assert list(rf.entries) == ["multi_turn_base_1", "multi_turn_base_0"]
    assert rf.entries["multi_turn_base_0"].line == 4
    assert rf.bad_lines == () and rf.warnings == ()

    blank = read_result_file(_write(tmp_path / "blank_result.json", "\n \n\t\n"))
    assert blank.empty and blank.entries == {}
    assert (blank.version, blank.category) == (None, None)


def test_odd_values_never_raise(tmp_path: Path) -> None:
    lines = [
        _line(id=5, result=[]),
        _line(id="", result=[]),
        "[" * 100_000 + "]" * 100_000 + "\n",  # deeper than the JSON decoder's recursion limit
        _line(id="multi_turn_base_0", result=[["a"], "not a turn"]),
        _line(id="multi_turn_base_1"),
        _line(id="multi_turn_base_2", result=None),
        _line(id="multi_turn_base_3", result=[["x"]], inference_log={"not": "a list"}),
        _line(
            id="multi_turn_base_4",
            result=[["x"], ["y"]],
            inference_log=[
                {"begin_of_turn_query": [{"role": "user", "content": [{"type": "text", "text": "parts"}]}]},
                {"step_0": []},
                7,
            ],
        ),
        "null\n",
        "42 garbage\n",
    ]
    rf = read_result_file(_write(tmp_path / "BFCL_v4_multi_turn_base_result.json", "".join(lines)))
    reasons = dict(rf.bad_lines)
    assert reasons[1] == "id is not a non-empty string (5)"
    assert reasons[2] == "id is not a non-empty string ('')"
    assert reasons[3].startswith("invalid JSON (RecursionError")
    assert reasons[9] == "not a JSON object (NoneType)"
    # a complete last line that is simply not JSON is not called truncated
    assert reasons[10] == "invalid JSON (Extra data at character 4)"
    assert rf.entries["multi_turn_base_0"].error == "result turn 1 is a str, not a list of steps"
    assert rf.entries["multi_turn_base_1"].error == "no result"
    assert rf.entries["multi_turn_base_2"].error == "no result"
    assert rf.entries["multi_turn_base_3"].turns == (("x",),)
    assert rf.entries["multi_turn_base_3"].logged_user_turns is None
    assert rf.entries["multi_turn_base_4"].logged_user_turns == (("parts",), ())
    warnings = "\n".join(rf.warnings)
    assert "3 entries without a usable result list" in warnings
    assert "2 entries with an odd inference_log" in warnings
    assert "inference_log is a dict, not a list" in warnings


def test_read_result_file_fatal_problems(tmp_path: Path) -> None:
    with pytest.raises(ResultsError, match="does not exist"):
        read_result_file(tmp_path / "BFCL_v4_multi_turn_base_result.json")
    with pytest.raises(ResultsError, match="is not a file"):
        read_result_file(tmp_path)


# --------------------------------------------------------------------------- score files


def test_score_file_without_trailing_newline() -> None:
    path = V4 / "score" / "model-a" / "multi_turn" / "BFCL_v4_multi_turn_base_score.json"
    assert not path.read_bytes().endswith(b"\n")
    sf = read_score_file(path)
    assert (sf.accuracy, sf.correct_count, sf.total_count) == (0.25, 1, 4)
    assert sf.failed == {
        "multi_turn_base_3": "multi_turn:inference_error",
        "multi_turn_base_0": "multi_turn:instance_state_mismatch",
        "multi_turn_base_1": "multi_turn:empty_turn_model_response",
    }
    assert sf.bad_lines == () and sf.warnings == () and not sf.empty
    assert (sf.version, sf.category) == ("v4", "base")


def test_score_file_without_summary_line() -> None:
    sf = read_score_file(V4 / "score" / "model-a" / "multi_turn" / "BFCL_v4_multi_turn_miss_func_score.json")
    assert (sf.accuracy, sf.correct_count, sf.total_count) == (None, None, None)
    assert sf.failed == {"multi_turn_miss_func_0": "multi_turn:force_terminated", "multi_turn_miss_func_1": ""}
    assert sf.warnings == (
        "no summary line: line 1 is already a failed item",
        "1 failed item without error_type: multi_turn_miss_func_1",
    )


def test_score_file_with_odd_summary_and_duplicates() -> None:
    sf = read_score_file(V4 / "score" / "model-a" / "multi_turn" / "BFCL_v4_multi_turn_miss_param_score.json")
    assert (sf.accuracy, sf.correct_count, sf.total_count) == (None, 0, 2)
    assert sf.failed == {"multi_turn_miss_param_0": "multi_turn:execution_response_mismatch"}
    assert sf.duplicates == ("multi_turn_miss_param_0",)
    assert sf.warnings == (
        "odd summary line: accuracy is 'n/a'",
        "1 failed id listed more than once: multi_turn_miss_param_0",
        "the summary says 2 of 2 failed, but 1 failed item listed",
    )


def test_score_file_odd_shapes(tmp_path: Path) -> None:
    empty = read_score_file(_write(tmp_path / "empty_score.json", ""))
    assert empty.empty and empty.failed == {} and empty.warnings == ("the score file is empty",)

    text = (
        "{not json\n"
        + _line(id="multi_turn_base_0", error_type="multi_turn:force_terminated")  # error_type on top
        + _line(valid=False)
        + _line(id="multi_turn_base_1", error=["a list"])
    )
    sf = read_score_file(_write(tmp_path / "BFCL_v3_multi_turn_base_score.json", text))
    assert sf.bad_lines[0][0] == 1 and sf.bad_lines[0][1].startswith("invalid JSON")
    assert sf.bad_lines[1] == (3, "no id")
    assert sf.failed == {"multi_turn_base_0": "multi_turn:force_terminated", "multi_turn_base_1": ""}
    assert "the summary line cannot be read" in sf.warnings
    assert sf.accuracy is None

    inconsistent = read_score_file(
        _write(tmp_path / "x_score.json", _line(accuracy=0.9, correct_count=1, total_count=2.0) + _line(id="a"))
    )
    assert (inconsistent.correct_count, inconsistent.total_count) == (1, 2)
    assert inconsistent.warnings[-1] == "the summary accuracy 0.9 is not correct_count/total_count = 1/2"

    with pytest.raises(ResultsError, match="does not exist"):
        read_score_file(tmp_path / "missing_score.json")


# --------------------------------------------------------------------------- names


def test_dataset_version_of() -> None:
    assert dataset_version_of(Path("x/BFCL_v4_multi_turn_base_result.json")) == "v4"
    assert dataset_version_of("BFCL_v3_multi_turn_miss_param_score.json") == "v3"
    for bad in ("BFCL_v2_multi_turn_base_result.json", "gorilla_openfunctions_v1_test_simple_result.json"):
        with pytest.raises(ResultsError, match="cannot tell the BFCL dataset version"):
            dataset_version_of(bad)


# --------------------------------------------------------------------------- real runs

# (model, version, has score files, extra categories, inference errors in base/miss_func/miss_param)
REAL_RUNS = [
    ("Salesforce_Llama-xLAM-2-8b-fc-r", "v3", True, set(), (0, 0, 0)),
    ("glyphh-hdc", "v4", False, {"long_context"}, (0, 0, 0)),
    ("glyphh-hdc-v1", "v4", False, {"long_context"}, (0, 0, 0)),
    ("meta-llama_Llama-3.1-8B-Instruct-FC", "v3", True, set(), (0, 0, 0)),
    ("mistralai_Ministral-8B-Instruct-2410", "v3", False, set(), (92, 89, 91)),
    ("openai_gpt-oss-120b", "v4", True, set(), (0, 11, 1)),
    ("openai_gpt-oss-20b", "v4", True, set(), (5, 18, 7)),
]


def _shared_runs() -> Path:
    if not SHARED_RUNS.is_dir():
        pytest.skip(f"real BFCL runs not found at {SHARED_RUNS} (they live beside the repository, not in it)")
    return SHARED_RUNS


@pytest.mark.shared
def test_real_runs_are_found() -> None:
    scan = find_runs(_shared_runs())
    assert scan.skipped == () and scan.warnings == ()
    assert [(r.model, r.version, bool(r.score_files), set(r.extra_files)) for r in scan.runs] == [
        (model, version, scores, extra) for model, version, scores, extra, _ in REAL_RUNS
    ]
    for run in scan.runs:
        if run.score_files:
            assert set(run.score_files) == set(run.files)


@pytest.mark.shared
def test_real_runs_read_cleanly() -> None:
    scan = find_runs(_shared_runs())
    expected_errors = {model: dict(zip(("base", "miss_func", "miss_param"), errs)) for model, *_, errs in REAL_RUNS}
    for run in scan.runs:
        for category, path in {**run.files, **run.extra_files}.items():
            rf = read_result_file(path)
            assert len(rf.entries) == 200, path
            assert set(rf.entries) == {f"multi_turn_{category}_{n}" for n in range(200)}
            assert (rf.duplicates, rf.bad_lines, rf.warnings, rf.empty) == ((), (), (), False), path
            assert rf.error_count == expected_errors[run.model].get(category, 0), path
            for entry in rf.entries.values():
                if entry.turns is None:
                    assert entry.error.startswith("Error during inference: ")
                    assert entry.logged_user_turns is None
                elif run.model.startswith("glyphh-hdc"):
                    assert entry.logged_user_turns is None  # these lines carry only id and result
                else:
                    assert entry.logged_user_turns is not None
                    assert len(entry.logged_user_turns) == len(entry.turns)
                    assert all(len(turn) == 1 for turn in entry.logged_user_turns)
            if run.model.startswith("mistralai_Ministral"):
                # the model saw machine-translated (Chinese) user turns
                logged = [e.logged_user_turns for e in rf.entries.values() if e.turns is not None]
                assert logged and all(any("\u4e00" <= ch <= "\u9fff" for ch in t[0][0]) for t in logged)

            if category in run.score_files:
                sf = read_score_file(run.score_files[category])
                assert (sf.bad_lines, sf.warnings) == ((), ())
                assert sf.total_count == 200
                assert len(sf.failed) == sf.total_count - sf.correct_count
                assert set(sf.failed) <= set(rf.entries)
                inference_errors = {i for i, kind in sf.failed.items() if kind == "multi_turn:inference_error"}
                assert inference_errors == set(rf.error_ids)
