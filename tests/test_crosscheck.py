"""The cross-check of twinbench's step reading against BFCL's own ``model_result_decoded``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import BFCL_RUNS, need_shared

from twinbench.adapters.bfcl.crosscheck import (
    KINDS,
    CrossCheckReport,
    Difference,
    as_json,
    bfcl_name,
    compare_turn,
    crosscheck,
    render_table,
)

SUITE = {"cd", "ls", "mv", "wc", "echo", "cat", "sort", "mention", "touch", "pwd"}


def kinds_of(raw, decoded) -> list[str]:
    return [d.kind for d in compare_turn("item_0", 1, raw, decoded, SUITE).differences]


# --------------------------------------------------------------------------- one turn


def test_bfcl_name() -> None:
    assert bfcl_name("cd(folder='x')") == "cd"
    assert bfcl_name("echo<|channel|>commentary(content='hi')") == "echo<|channel|>commentary"
    assert bfcl_name("GorillaFileSystem.mv(source='a')") == "GorillaFileSystem.mv"


def test_same_reading_agrees() -> None:
    raw = [[{"cd": '{"folder": "x"}'}], [{"ls": "{}"}], []]
    comparison = compare_turn("i", 0, raw, [["cd(folder='x')"], ["ls()"]], SUITE)
    assert comparison.agrees and comparison.differences == ()
    assert comparison.twinbench == comparison.bfcl == ("cd", "ls")


def test_prose_steps_that_bfcl_drops_are_no_difference() -> None:
    raw = ['{"name": "cd", "parameters": {"folder": "x"}}; {"name": "ls", "parameters": {}}',
           "The folder is changed.", '{"name": "mv", "parameters": {"source": "a", "destination": "b"}}']
    comparison = compare_turn("i", 0, raw, [["cd(folder='x')", "ls()"], ["mv(source='a',destination='b')"]], SUITE)
    assert comparison.agrees and comparison.differences == ()


def test_bfcl_failed_whole_step() -> None:
    # one record with broken arguments beside a good one: BFCL's decoder raises on the step as a whole,
    # twinbench reads both calls (the broken one without its arguments: a call, never "no call")
    raw = [[{"wc": '{"file_name": "a", "mode": "l"}'}],
           [{"wc": '{"file_name": "tail\r\n..."}'}, {"wc": '{"file_name": "a", "mode": "c"}'}]]
    comparison = compare_turn("i", 2, raw, [["wc(file_name='a',mode='l')"]], SUITE)
    assert not comparison.agrees
    assert comparison.differences == (Difference("i", 2, "bfcl_failed_whole_step", ("wc", "wc"), ()),)


def test_leaked_template_tokens() -> None:
    raw = [[{"echo<|channel|>commentary": '{"content": "hi"}'}], [{"ls": "{}"}]]
    decoded = [["echo<|channel|>commentary(content='hi')"], ["ls()"]]
    comparison = compare_turn("i", 0, raw, decoded, SUITE)
    assert comparison.twinbench == ("ls",)
    assert comparison.differences == (
        Difference("i", 0, "leaked_template_tokens", (), ("echo<|channel|>commentary",)),
    )


def test_name_not_a_suite_function() -> None:
    raw = [[{"ls\xa0json": '{"a": false}'}]]
    assert kinds_of(raw, [["ls\xa0json(a=False)"]]) == ["name_not_a_suite_function"]


def test_python_dict_union() -> None:
    raw = ['{"name": "cat", "parameters": {"file_name": "r"}} | {"name": "sort", "parameters": {"file_name": "r"}}']
    assert kinds_of(raw, [["sort(file_name='r')"]]) == ["bfcl_python_dict_union"]


@pytest.mark.parametrize(
    ("raw", "decoded"),
    [
        # BFCL decoded a suite call that twinbench does not read at all
        (["I will list the files."], [["ls()"]]),
        # BFCL read another call than twinbench from the same step
        ([[{"cd": '{"folder": "x"}'}]], [["mv(source='a')"]]),
        # a leaked name without any leaked record in the raw step
        ([[{"cd": '{"folder": "x"}'}]], [["cd(folder='x')"], ["cd<|channel|>(folder='x')"]]),
        # twinbench reads more calls from a step BFCL decoded (BFCL decodes steps whole)
        (['{"name": "cd", "parameters": {"folder": "x"}}; {"name": "ls", "parameters": {}}'], [["cd(folder='x')"]]),
    ],
)
def test_unexplained(raw, decoded) -> None:
    comparison = compare_turn("i", 3, raw, decoded, SUITE)
    assert [d.kind for d in comparison.differences] == ["unexplained"]
    (difference,) = comparison.differences
    assert difference.bfcl == comparison.bfcl and difference.twinbench == comparison.twinbench


def test_several_principled_differences_in_one_turn() -> None:
    raw = [[{"cat<|channel|>": '{"file_name": "a"}'}], [{"touch": '{"file_name": "b"}'}, {"pwd": '{"x": '}],
           [{"ls": "{}"}]]
    decoded = [["cat<|channel|>(file_name='a')"], ["ls()"]]
    assert kinds_of(raw, decoded) == ["leaked_template_tokens", "bfcl_failed_whole_step"]


# --------------------------------------------------------------------------- a run folder


def write_lines(path: Path, lines: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


@pytest.fixture()
def run_folder(tmp_path: Path) -> Path:
    model = "model-x"
    results = {
        "base": [
            {"id": "multi_turn_base_0", "result": [[[{"cd": '{"folder": "x"}'}], []], [[{"ls": "{}"}]]]},
            {"id": "multi_turn_base_1", "result": [[[{"echo<|channel|>": '{"content": "a"}'}], []]]},
            {"id": "multi_turn_base_2", "result": "Error during inference: boom"},
            {"id": "multi_turn_base_3", "result": [["Which folder?"]]},
        ],
        "miss_func": [{"id": "multi_turn_miss_func_0", "result": [[[{"cd": '{"folder": "x"}'}, {"wc": "{"}]]]}],
        "miss_param": [{"id": "multi_turn_miss_param_0", "result": [["I need the name."]]}],
    }
    for category, lines in results.items():
        write_lines(tmp_path / "result" / model / f"BFCL_v3_multi_turn_{category}_result.json", lines)
    score = tmp_path / "score" / model
    write_lines(score / "BFCL_v3_multi_turn_base_score.json", [
        {"accuracy": 0.25, "correct_count": 1, "total_count": 4},
        {"id": "multi_turn_base_0", "error": {"error_type": "multi_turn:instance_state_mismatch"},
         "model_result_raw": [], "model_result_decoded": [[["cd(folder='x')"]], [["ls()"]]]},
        {"id": "multi_turn_base_1", "error": {"error_type": "multi_turn:instance_state_mismatch"},
         "model_result_decoded": [[["echo<|channel|>(content='a')"]]]},
        {"id": "multi_turn_base_2", "error": {"error_type": "multi_turn:inference_error"}, "model_result": "Error"},
    ])
    write_lines(score / "BFCL_v3_multi_turn_miss_func_score.json", [
        {"accuracy": 0.0, "correct_count": 0, "total_count": 1},
        {"id": "multi_turn_miss_func_0", "error": {"error_type": "multi_turn:instance_state_mismatch"},
         "model_result_decoded": [[]]},
    ])
    return tmp_path


def test_crosscheck_a_run_folder(run_folder: Path) -> None:
    (report,) = crosscheck([run_folder], functions=SUITE)
    assert isinstance(report, CrossCheckReport)
    assert report.model == "model-x" and report.dataset == "BFCL_v3"
    assert report.items_compared == 3 and report.items_without_decoding == 1
    assert report.turns_compared == 4 and report.turns_agreeing == 2
    assert report.differences_by_kind == {"bfcl_failed_whole_step": 1, "leaked_template_tokens": 1}
    assert report.unexplained == ()
    assert set(report.differences_by_kind) <= set(KINDS)
    assert Difference("multi_turn_miss_func_0", 0, "bfcl_failed_whole_step", ("cd", "wc"), ()) in report.differences


def test_crosscheck_selects_models_and_skips_runs_without_scores(run_folder: Path, tmp_path_factory) -> None:
    assert crosscheck(run_folder, models=["model-x"], functions=SUITE)[0].model == "model-x"
    bare = tmp_path_factory.mktemp("bare")
    for category in ("base", "miss_func", "miss_param"):
        write_lines(bare / "result" / "m" / f"BFCL_v3_multi_turn_{category}_result.json",
                    [{"id": f"multi_turn_{category}_0", "result": [[]]}])
    assert crosscheck([bare], functions=SUITE) == []


def test_render_table_and_json(run_folder: Path) -> None:
    reports = crosscheck([run_folder], functions=SUITE)
    table = render_table(reports)
    assert table.splitlines()[0].split()[:5] == ["model", "items", "turns", "agree", "agree"]
    assert "model-x" in table and "50.0" in table
    data = as_json(reports)
    json.dumps(data)
    (row,) = data["reports"]
    assert row["turns_agreeing"] == 2 and row["differences_by_kind"]["leaked_template_tokens"] == 1
    assert {"item_id", "turn", "kind", "twinbench", "bfcl"} == set(row["differences"][0])
    assert set(data["kinds"]) == set(KINDS)


def test_unexplained_are_listed_in_the_table() -> None:
    report = CrossCheckReport(
        model="m", location=Path("."), dataset="BFCL_v4", items_compared=1, turns_compared=1, turns_agreeing=0,
        differences_by_kind={"unexplained": 1},
        differences=(Difference("multi_turn_base_7", 2, "unexplained", ("cat",), ("echo",)),),
    )
    assert "multi_turn_base_7 turn 2: twinbench ['cat'] | bfcl ['echo']" in render_table([report])


# --------------------------------------------------------------------------- the shared real runs


@pytest.mark.shared
def test_shared_runs_have_no_unexplained_difference(bfcl_adapter, bfcl_v3_adapter, capsys) -> None:
    runs = need_shared(BFCL_RUNS)
    from twinbench.adapters.bfcl import BFCLAdapter

    reports = {r.model: r for r in BFCLAdapter().reader().check_reading([runs]).reports}
    assert set(reports) >= {"meta-llama_Llama-3.1-8B-Instruct-FC", "Salesforce_Llama-xLAM-2-8b-fc-r",
                            "openai_gpt-oss-120b", "openai_gpt-oss-20b"}
    for report in reports.values():
        assert report.items_compared > 100
        assert report.unexplained == (), render_table([report])
    llama = reports["meta-llama_Llama-3.1-8B-Instruct-FC"]
    assert llama.turns_agreeing / llama.turns_compared > 0.99  # the '; '-joined calls are read as BFCL reads them
    assert reports["openai_gpt-oss-20b"].differences_by_kind["leaked_template_tokens"] > 100
    assert reports["openai_gpt-oss-120b"].differences_by_kind["bfcl_failed_whole_step"] > 10
    assert "unexplained" in render_table(list(reports.values()))


def test_twinbench_calls_command(capsys):
    """The CLI: the shared runs give exit 0 (nothing unexplained); an adapter without a reading says so."""
    from twinbench.cli import main

    runs = need_shared(BFCL_RUNS / "v3-8b-fc")
    assert main(["calls", "--adapter", "bfcl", "--results", str(runs)]) == 0
    out = capsys.readouterr().out
    assert "meta-llama_Llama-3.1-8B-Instruct-FC" in out and "unexplained" in out
    assert main(["calls", "--adapter", "bfcl", "--results", str(BFCL_RUNS / "hdc-router")]) == 0
    assert "nothing to check" in capsys.readouterr().out
