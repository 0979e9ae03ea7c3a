"""What a user is told, and the exit status: skips, refusals and "nothing scored" reach standard error whatever
``--format`` and ``--output`` say; each message names the likely cause for the adapter at hand."""

from __future__ import annotations

import json

import pytest
from builders import tiny_package
from conftest import BFCL_RUNS, FIXTURES, WHEN2CALL, need_shared
from test_score import good_lines, write_run

from twinbench.cli import main

MINI_W2C = FIXTURES / "when2call" / "mini.jsonl"
W2C = WHEN2CALL / "when2call_test_llm_judge.jsonl"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    return code, captured.out, captured.err


@pytest.fixture
def release(tmp_path):
    return tiny_package(tmp_path / "release")


@pytest.mark.parametrize("command", ["score", "report"])
def test_skipped_folders_reach_standard_error_whatever_the_output(command, tmp_path, release, capsys):
    write_run(tmp_path / "runs", "good", good_lines())
    partial = write_run(tmp_path / "runs", "partial", good_lines())
    (partial / "BFCL_v4_multi_turn_miss_param_result.json").unlink()
    out = tmp_path / "out" / ("scores.json" if command == "score" else "report.html")
    extra = ["--format", "json"] if command == "score" else []
    code, stdout, err = run(capsys, command, "--bfcl-root", release, "--results", tmp_path / "runs", "--bootstrap", "0",
                            *extra, "--output", out)
    assert code == 0 and stdout == ""
    assert f"twinbench: skipped {tmp_path / 'runs' / 'result' / 'partial'}: missing miss_param result file" in err
    if command == "score":
        assert json.loads(out.read_text())["skipped"][0]["reason"] == "missing miss_param result file"


def test_replay_and_compare_say_what_they_skipped(tmp_path, capsys):
    from builders import replay_package

    pkg = replay_package(tmp_path / "pkg")
    runs = tmp_path / "runs"
    write_run(runs, "m", good_lines())
    partial = write_run(runs, "partial", good_lines())
    (partial / "BFCL_v4_multi_turn_base_result.json").unlink()
    for argv in (["replay", "--results", runs], ["compare", "--baseline", runs, "--treatment", runs, "--model", "m",
                                                 "--bootstrap", "0"]):
        code, _, err = run(capsys, argv[0], "--bfcl-root", pkg, *argv[1:], "--format", "json")
        assert "skipped" in err and "partial: missing base result file" in err, argv[0]


def test_a_run_with_nothing_scored_exits_non_zero_with_the_reason(tmp_path, release, capsys):
    lines = good_lines()
    lines["base"] = [{"id": "multi_turn_base_0", "result": "Error during inference: timeout"}]
    write_run(tmp_path / "runs", "m", lines)
    out = tmp_path / "scores.json"
    code, _, err = run(capsys, "score", "--bfcl-root", release, "--results", tmp_path / "runs", "--bootstrap", "0",
                       "--format", "json", "--output", out)
    assert code == 2
    assert err.strip().splitlines()[-1] == (
        "twinbench: error: nothing was scored: no run has a scored pair (act: stored as an error: 2 pairs); the "
        "warnings above and the coverage lines of the output say why")
    assert json.loads(out.read_text())["models"][0]["coverage"]["scored"] == 0  # the output is still written


def test_a_bfcl_result_file_given_to_when2call_is_named_as_such(capsys):
    bfcl_file = need_shared(BFCL_RUNS / "gpt-oss-2025-11" / "result" / "openai_gpt-oss-20b" / "multi_turn"
                            / "BFCL_v4_multi_turn_base_result.json")
    code, _, err = run(capsys, "score", "--adapter", "when2call", "--when2call-data", MINI_W2C, "--results", bfcl_file,
                       "--bootstrap", "0")
    assert code == 2
    assert "looks like a BFCL result file" in err and "score BFCL runs with --adapter bfcl" in err
    assert "twinbench build" not in err  # the wrong-suite advice is for When2Call's own file, not this one
    assert "error: nothing was scored" in err


def test_when2calls_own_file_as_outputs_says_to_run_the_built_suite(tmp_path, capsys):
    rows = [json.loads(line) for line in MINI_W2C.read_text().splitlines() if line.strip()]
    own = tmp_path / "model.jsonl"
    own.write_text("".join(json.dumps({**r, "model_response": "Could you tell me more?"}) + "\n" for r in rows))
    code, _, err = run(capsys, "score", "--adapter", "when2call", "--when2call-data", MINI_W2C, "--results", own,
                       "--bootstrap", "0", "--format", "json", "--output", tmp_path / "out.json")
    assert code == 2
    assert "run the model on the suite `twinbench build --adapter when2call` writes" in err
    assert "error: nothing was scored" in err and "BFCL" not in err


def test_a_score_tree_given_as_results_is_named_as_such(tmp_path, capsys):
    score = tmp_path / "tree" / "score" / "m" / "multi_turn"
    score.mkdir(parents=True)
    (score / "BFCL_v4_multi_turn_base_score.json").write_text('{"accuracy": 1.0}\n')
    (tmp_path / "tree" / "result").mkdir()
    code, _, err = run(capsys, "score", "--results", tmp_path / "tree" / "score")
    assert code == 2
    assert "it holds BFCL score files (BFCL_v4_multi_turn_base_score.json), so it is a score tree" in err
    assert f"(here: --results {tmp_path / 'tree' / 'result'})" in err


def test_a_defect_of_the_release_data_is_labelled_as_such(capsys, bfcl_v3_adapter):
    (line,) = [w for w in bfcl_v3_adapter.data_warnings() if "multi_turn_base_154" in w]
    assert line.startswith("defect in bfcl-eval 2025.8.5's own BFCL_v3 data (not in any run): multi_turn_base_154: ")
    code, out, _ = run(capsys, "pairs", "--bfcl-release", "2025.8.5")
    assert code == 0 and "warning: defect in bfcl-eval 2025.8.5's own BFCL_v3 data" in out


def test_the_bootstrap_minimum_is_in_the_help(capsys):
    for command in ("score", "compare", "report"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert "between 200 and 100000" in " ".join(capsys.readouterr().out.split())


def test_the_report_says_one_model_in_the_singular(tmp_path, release, capsys):
    write_run(tmp_path / "runs", "m", good_lines())
    code, _, err = run(capsys, "report", "--bfcl-root", release, "--results", tmp_path / "runs", "--bootstrap", "0",
                       "--output", tmp_path / "r.html")
    assert code == 0 and "report written to" in err and ": 1 model, 2 pair decisions, " in err


def test_messages_show_control_characters_as_escapes(tmp_path, release, capsys):
    write_run(tmp_path / "runs", "good", good_lines())
    odd = write_run(tmp_path / "runs", "odd\x1b[31mname", good_lines())
    (odd / "BFCL_v4_multi_turn_base_result.json").unlink()
    _, _, err = run(capsys, "score", "--bfcl-root", release, "--results", tmp_path / "runs", "--bootstrap", "0")
    assert "\x1b" not in err and "odd\\x1b[31mname" in err


def test_an_option_a_subcommand_lacks_is_refused_with_that_subcommands_usage(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["plot", "--format", "json", "--input", "x.json"])
    err = capsys.readouterr().err
    assert exited.value.code == 2
    assert err.startswith("usage: twinbench plot ")  # not the top-level usage
    assert "twinbench plot: error: unrecognized arguments: --format json (see `twinbench plot --help`)" in err
