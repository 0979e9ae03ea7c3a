"""User mistakes and awkward data: each ends in a clear message or a counted warning, never a traceback."""

from __future__ import annotations

import json

import pytest

from builders import classifier, rule, item, tiny_package
from test_score import MKDIR, good_lines, write_run

from twinbench.errors import AdapterError
from twinbench.reading import parse_step
from twinbench.cli import main
from twinbench.discovery import discover
from twinbench.model import Side


@pytest.fixture
def release(tmp_path):
    return tiny_package(tmp_path / "release")


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def score_json(capsys, release, *argv):
    code, out, err = run(capsys, "score", "--bfcl-root", str(release), "--format", "json", "--bootstrap", "200", *argv)
    assert code == 0, err
    return json.loads(out), err


def test_same_model_in_two_folders_is_scored_twice_under_distinct_names(tmp_path, release, capsys):
    write_run(tmp_path / "a", "m", good_lines())
    write_run(tmp_path / "b", "m", good_lines(ask_step=MKDIR))
    out, err = score_json(capsys, release, "--results", str(tmp_path / "a"), "--results", str(tmp_path / "b"),
                          "--results", str(tmp_path / "a"))
    by = {m["model"]: m for m in out["models"]}
    assert set(by) == {"m@a", "m@b"}
    assert by["m@a"]["hold"] == 100.0 and by["m@b"]["hold"] == 0.0
    assert all(m["pairs"] <= m["population"] for m in out["models"])
    assert "found twice" in err


def _score_files(root, summary, failed_lines):
    folder = root / "score" / "m" / "multi_turn"
    folder.mkdir(parents=True)
    for cat in ("base", "miss_func", "miss_param"):
        text = json.dumps(summary) + "\n" + failed_lines.replace("CAT", cat)
        (folder / f"BFCL_v4_multi_turn_{cat}_score.json").write_text(text)


def test_truncated_score_file_gives_no_verdict_not_a_pass(tmp_path, release, capsys):
    write_run(tmp_path / "runs", "m", good_lines())
    _score_files(tmp_path / "runs", {"accuracy": 0.0, "correct_count": 0, "total_count": 1},
                 '{"id": "multi_turn_CAT_0", "error": {"error_typ')
    out, err = score_json(capsys, release, "--results", str(tmp_path / "runs"))
    assert out["models"][0]["official"] is None
    assert "no official verdicts for base" in err


def test_partial_score_file_is_not_trusted(tmp_path, release, capsys):
    write_run(tmp_path / "runs", "m", good_lines())
    _score_files(tmp_path / "runs", {"accuracy": 1.0, "correct_count": 20, "total_count": 20}, "")
    out, err = score_json(capsys, release, "--results", str(tmp_path / "runs"))
    assert out["models"][0]["official"] is None
    assert "scores 20 items but the result file holds 1" in err


def test_consistent_score_files_give_verdicts(tmp_path, release, capsys):
    write_run(tmp_path / "runs", "m", good_lines())
    _score_files(tmp_path / "runs", {"accuracy": 0.0, "correct_count": 0, "total_count": 1},
                 '{"id": "multi_turn_CAT_0", "error": {"error_type": "multi_turn:state"}}\n')
    out, _ = score_json(capsys, release, "--results", str(tmp_path / "runs"))
    assert out["models"][0]["official"]["ask_items"] == 0.0


def test_ranks_use_the_pairs_every_model_covers(tmp_path, release, capsys):
    """A model covering one pair must not win rank-1 over a model covering both."""
    lines = good_lines()
    lines["miss_func"] = [{"id": "multi_turn_miss_func_0", "result": [[MKDIR], ["Done."]]}]  # acts on one ask side
    write_run(tmp_path / "runs", "full", lines)
    partial = good_lines()
    partial["miss_func"] = [{"id": "multi_turn_miss_func_0", "result": "Error during inference: x"}]
    write_run(tmp_path / "runs", "lucky", partial)
    out, _ = score_json(capsys, release, "--results", str(tmp_path / "runs"), "--min-coverage", "0")
    by = {m["model"]: m for m in out["models"]}
    assert by["lucky"]["pairs"] == 1 and by["full"]["pairs"] == 2
    assert by["full"]["ranking"]["pairs"] == by["lucky"]["ranking"]["pairs"] == 1
    # on the shared pair (miss_param_0) both models are right: a tie, not a win for the partial run
    assert by["full"]["rank1"]["decision"] == by["lucky"]["rank1"]["decision"] == 50.0
    assert by["full"]["rank_decision"] == by["lucky"]["rank_decision"] == 1
    # by default the partial run (1 of 2 pairs) is scored but not ranked, and the full run keeps both pairs
    out, _ = score_json(capsys, release, "--results", str(tmp_path / "runs"))
    by = {m["model"]: m for m in out["models"]}
    assert by["full"]["ranking"]["pairs"] == 2 and by["full"]["rank1"]["decision"] == 100.0
    assert by["lucky"]["ranking"]["ranked"] is False and "rank1" not in by["lucky"]
    assert "rank_decision" not in by["lucky"] and by["lucky"]["decision"] is not None


@pytest.mark.parametrize("argv, message", [
    (["--seed", "-1"], "--seed"),
    (["--bootstrap", "1000000000"], "--bootstrap"),
    (["--bootstrap", "-3"], "--bootstrap"),
    (["--bootstrap", "1"], "between 200"),
    (["--bootstrap", "199"], "between 200"),
])
def test_bad_statistics_options(release, capsys, argv, message):
    code, _, err = run(capsys, "score", "--bfcl-root", str(release), *argv)
    assert code == 2 and message in err and "Traceback" not in err


def test_plot_refuses_compare_json_and_junk(tmp_path, capsys):
    path = tmp_path / "x.json"
    for payload, message in (
        ({"models": [{"model": "m", "act": {"baseline": 1}}]}, "twinbench compare"),
        ({"models": [1]}, "not a model record"),
        ({"models": [{"model": "m", "act": "x", "hold": 1}]}, "not a number"),
    ):
        path.write_text(json.dumps(payload))
        code, _, err = run(capsys, "plot", "--input", str(path))
        assert code == 2 and message in err


@pytest.mark.parametrize("breakage, message", [
    ("list-line", "is not a JSON object"),
    ("odd-id", "expected multi_turn_base_<index>"),
    ("missed-function", "missed_function must map"),
    ("syntax", "cannot read"),
    ("source-syntax", "cannot analyse the source"),
])
def test_malformed_release_data_is_one_clear_error(tmp_path, capsys, breakage, message):
    pkg = tiny_package(tmp_path / "rel")
    data = pkg / "data"
    if breakage == "list-line":
        (data / "BFCL_v4_multi_turn_base.json").write_text("[1]\n")
    elif breakage == "odd-id":
        (data / "BFCL_v4_multi_turn_base.json").write_text(json.dumps({"id": "weird", "question": []}) + "\n")
    elif breakage == "missed-function":
        rec = json.loads((data / "BFCL_v4_multi_turn_miss_func.json").read_text())
        rec["missed_function"] = ["mkdir"]
        (data / "BFCL_v4_multi_turn_miss_func.json").write_text(json.dumps(rec) + "\n")
    elif breakage == "syntax":
        (pkg / "constants" / "executable_backend_config.py").write_text("MULTI_TURN = {\n")
    elif breakage == "source-syntax":
        (pkg / "eval_checker" / "multi_turn_eval" / "func_source_code" / "fs.py").write_text("class FS(:\n")
    command = "functions" if breakage == "source-syntax" else "pairs"
    code, _, err = run(capsys, command, "--bfcl-root", str(pkg))
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_duplicate_ids_in_release_data_are_warned_and_used_once(tmp_path, capsys):
    pkg = tiny_package(tmp_path / "rel")
    path = pkg / "data" / "BFCL_v4_multi_turn_miss_param.json"
    path.write_text(path.read_text() * 2)
    code, out, _ = run(capsys, "pairs", "--bfcl-root", str(pkg), "--format", "json")
    result = json.loads(out)
    assert code == 0 and result["counts"]["should_ask_items"] == 2
    assert any("more than once" in w for w in result["data_warnings"])


def test_discovery_refuses_duplicate_ids_and_survives_a_trailing_anchor():
    act = item("a1", "act", Side.ACT, [("make dir a", ["mkdir(dir_name='a')"])])
    ask = item("k1", "ask", Side.ASK, [("make dir a", ["mkdir(dir_name='a')"]), ("and another", [])])
    manifest = discover([act, ask], {"k1": ["a1"]}, rule())
    assert manifest.dropped[0].reason.startswith("shape mismatch")
    with pytest.raises(AdapterError, match="unique"):
        discover([act, act, ask], {"k1": ["a1"]}, rule())


def test_release_without_scored_pairs_in_a_category_still_scores_policies(tmp_path, capsys):
    pkg = tiny_package(tmp_path / "rel")
    for name in ("BFCL_v4_multi_turn_miss_func.json", "possible_answer/BFCL_v4_multi_turn_miss_func.json"):
        path = pkg / "data" / name
        rec = json.loads(path.read_text())
        rec["id"] = "multi_turn_miss_func_5"  # no base twin: no miss_func pair at all
        path.write_text(json.dumps(rec) + "\n")
    out, _ = score_json(capsys, pkg)
    assert {m["model"]: m["decision"] for m in out["models"]} == {"oracle": 100.0, "always-act": 50.0,
                                                                   "never-act": 50.0}


def test_nothing_to_score_is_one_clear_error(tmp_path, capsys):
    pkg = tiny_package(tmp_path / "rel")
    answer = pkg / "data" / "possible_answer" / "BFCL_v4_multi_turn_base.json"
    answer.write_text(json.dumps({"id": "multi_turn_base_0", "ground_truth": [["ls()"]]}) + "\n")
    code, _, err = run(capsys, "score", "--bfcl-root", str(pkg))
    assert code == 2 and "no scored pairs" in err


def test_embedded_default_json_is_byte_identical(capsys, bfcl_adapter):
    outputs = []
    for _ in range(2):
        code, out, _ = run(capsys, "score", "--format", "json", "--bootstrap", "200")
        assert code == 0
        outputs.append(out)
    assert outputs[0] == outputs[1]
    assert "twinbench-policies" not in outputs[0]


def test_all_pairs_note_does_not_promise_100(release, capsys, bfcl_adapter):
    code, out, _ = run(capsys, "score", "--all-pairs", "--bootstrap", "0")
    assert code == 0 and "population: --all-pairs" in out and "not at 100" in out


def test_both_row_filters_count_each_dropped_pair_once(tmp_path, release, capsys):
    lines = good_lines()
    lines["miss_param"] = [{"id": "multi_turn_miss_param_0", "result": []}]  # ended early (and no history)
    write_run(tmp_path / "runs", "m", lines)
    out, _ = score_json(capsys, release, "--results", str(tmp_path / "runs"), "--same-history", "--drop-ended-early")
    cov = out["models"][0]["coverage"]
    assert cov["scored"] + sum(cov["unscored"].values()) + cov["dropped_ended_early"] \
        + cov["dropped_different_history"] == cov["population"]


def test_broken_pipe_is_quiet(release, capsys, monkeypatch):
    from twinbench.cli import commands

    def boom(text, output):
        raise BrokenPipeError
    monkeypatch.setattr(commands.output, "emit", boom)
    code, _, err = run(capsys, "pairs", "--bfcl-root", str(release))
    assert code == 0 and err == ""


def test_native_record_with_two_calls_is_an_attempt():
    calls = parse_step([{"mkdir": {"dir_name": "a"}, "mv": {"source": "a", "destination": "b"}}])
    assert [c.name for c in calls] == ["mkdir", "mv"]


