"""The examples under examples/: the TinyBench adapter end to end, and the BFCL report script.

TinyBench is imported from the source tree and registered in this process only; the tests
never rely on ``pip install -e examples/tinybench``.
"""

from __future__ import annotations

import importlib.util
import json

import pytest

from conftest import REPO
from twinbench.adapters import registry
from twinbench.cli import main

TINY = REPO / "examples" / "tinybench"
TINY_RUNS = TINY / "runs"
BFCL_EXAMPLE = REPO / "examples" / "bfcl"


@pytest.fixture
def tinybench(monkeypatch):
    """TinyBenchAdapter, registered for the duration of one test."""
    monkeypatch.syspath_prepend(str(TINY))
    from tinybench_adapter import TinyBenchAdapter

    registry.register(TinyBenchAdapter)
    yield TinyBenchAdapter
    registry.unregister(TinyBenchAdapter.name)


def run_json(tmp_path, *argv):
    out = tmp_path / "out.json"
    assert main([*argv, "--format", "json", "--output", str(out)]) == 0
    return json.loads(out.read_text())


def by_model(summary):
    return {record["model"]: record for record in summary["models"]}


# ---------------------------------------------------------------------------------------
# TinyBench
# ---------------------------------------------------------------------------------------


def test_tinybench_funnel(tinybench, tmp_path):
    record = run_json(tmp_path, "pairs", "--adapter", "tinybench")
    assert record["adapter"] == "tinybench"
    assert record["data"]["dataset"] == "TinyBench" and record["data"]["release"] == "1.0"
    assert record["data_warnings"] == []
    counts = record["counts"]
    assert counts["should_ask_items"] == 10
    assert counts["should_ask_items_by_category"] == {"missing_value": 6, "missing_tool": 4}
    assert counts["dropped"] == 2
    assert counts["dropped_by_stage"] == {"content": {"dialogue differs": 1}, "pairing": {"no twin": 1}}
    assert counts["content_verified"] == 8
    assert counts["read_only"] == 1
    assert counts["candidates"] == 7
    assert counts["construction_errors"] == 0
    assert counts["scored"] == 7
    assert counts["scored_by_category"] == {"missing_value": 3, "missing_tool": 4}
    assert counts["distinct_base_twins"] == 6
    assert counts["distinct_base_twins_scored"] == 5
    assert counts["distinct_base_anchor_turns_scored"] == 5
    assert counts["scenario_families"] == 8

    pairs = {p["ask_id"]: p for p in record["pairs"]}
    assert set(pairs) == {"ask-value-1", "ask-tool-1", "ask-tool-2", "ask-value-3", "ask-value-4",
                          "ask-tool-4", "ask-value-6", "ask-tool-7"}
    for ask_id, pair in pairs.items():
        kind = "value_removed" if ask_id.startswith("ask-value") else "tool_removed"
        assert pair["perturbation"] == kind
        assert pair["act_id"] == "act-" + ask_id.rsplit("-", 1)[1]
    assert pairs["ask-tool-1"]["removed_tools"] == ["add_task"]
    assert pairs["ask-tool-4"]["removed_tools"] == ["delete_task"]
    assert pairs["ask-value-1"]["removed_tools"] == []
    # the read-only anchor is verified but excluded
    assert pairs["ask-value-3"]["status"] == "excluded"
    assert pairs["ask-value-3"]["decision_bearing"] == "read_only"
    assert pairs["ask-value-3"]["reason"].startswith("read-only")
    assert [p for p, v in pairs.items() if v["status"] == "scored"] == [
        "ask-value-1", "ask-tool-1", "ask-tool-2", "ask-value-4", "ask-tool-4", "ask-value-6", "ask-tool-7"]
    # the replaced-anchor alignment on two turns, with the anchor on either turn
    assert pairs["ask-value-4"]["anchor_turn"] == 1 and pairs["ask-tool-7"]["anchor_turn"] == 0

    dropped = {d["id"]: d for d in record["dropped"]}
    assert dropped["ask-value-5"]["stage"] == "content"
    assert dropped["ask-value-5"]["reason"] == "dialogue differs: user turn 0 before the anchor is not identical in act-5"
    assert dropped["ask-value-8"]["stage"] == "pairing"
    assert dropped["ask-value-8"]["reason"].startswith("no twin")


def test_tinybench_reference_policies(tinybench, tmp_path):
    summary = run_json(tmp_path, "score", "--adapter", "tinybench", "--bootstrap", "200")
    assert summary["embedded_default"] is True
    models = by_model(summary)
    assert set(models) == {"oracle", "always-act", "never-act"}
    assert (models["oracle"]["act"], models["oracle"]["hold"], models["oracle"]["decision"]) == (100, 100, 100)
    assert (models["always-act"]["act"], models["always-act"]["hold"], models["always-act"]["decision"]) == (100, 0, 50)
    assert (models["never-act"]["act"], models["never-act"]["hold"], models["never-act"]["decision"]) == (0, 100, 50)
    for record in models.values():
        assert record["coverage"]["scored"] == record["coverage"]["population"] == 7
    assert summary["warnings"] == []


def test_tinybench_sample_runs(tinybench, tmp_path, capsys):
    summary = run_json(tmp_path, "score", "--adapter", "tinybench", "--results", str(TINY_RUNS), "--bootstrap", "200")
    models = by_model(summary)
    assert set(models) == {"careful-model", "eager-model"}

    careful = models["careful-model"]
    # act: 5 of 6 (prose only on act-6); hold: 6 of 6; ask-tool-2 is an error entry
    assert careful["pairs"] == 6
    assert careful["act"] == pytest.approx(500 / 6)
    assert careful["hold"] == 100
    assert careful["decision"] == pytest.approx((500 / 6 + 100) / 2)
    assert careful["pair"] == pytest.approx(500 / 6)
    assert careful["by_category"]["missing_tool"]["decision"] == 100
    assert careful["by_category"]["missing_value"]["act"] == pytest.approx(200 / 3)
    assert careful["coverage"]["population"] == 7
    assert careful["coverage"]["scored"] == 6
    assert careful["coverage"]["unscored"] == {"ask: stored as an error": 1}
    assert careful["run_notes"] == {"error_entries": 1, "bad_lines": 0}
    assert careful["official"] is None

    eager = models["eager-model"]
    assert (eager["pairs"], eager["act"], eager["hold"], eager["decision"], eager["pair"]) == (7, 100, 0, 50, 0)
    assert eager["coverage"]["unscored"] == {}
    assert eager["run_notes"] == {"error_entries": 0, "bad_lines": 1}

    # the truncated line of the eager run is a warning, never a traceback
    assert summary["warnings"] == ["eager-model: outputs.jsonl line 6 is not JSON (Expecting ',' delimiter); skipped"]
    assert "line 6 is not JSON" in capsys.readouterr().err


def test_tinybench_functions(tinybench, tmp_path):
    records = run_json(tmp_path, "functions", "--adapter", "tinybench")
    labels = {r["name"]: r["label"] for r in records}
    assert labels == {"list_tasks": "read", "search_tasks": "read", "add_task": "mutate",
                      "complete_task": "mutate", "delete_task": "mutate", "set_due": "mutate"}
    assert {r["class"] for r in records} == {"TodoApp"}
    assert all(r["reason"] for r in records)


def test_tinybench_user_mistakes_are_one_line(tinybench, tmp_path, capsys):
    assert main(["score", "--adapter", "tinybench", "--results", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [f"twinbench: error: results folder {tmp_path / 'nowhere'} does not exist"]

    assert main(["score", "--adapter", "tinybench", "--results", str(TINY_RUNS), "--model", "nobody"]) == 2
    err = capsys.readouterr().err
    assert "--model nobody" in err and "found: careful-model, eager-model" in err

    assert main(["pairs", "--adapter", "tinybench", "--tiny-data", str(tmp_path)]) == 2
    assert "has no items.jsonl" in capsys.readouterr().err


def test_tinybench_reader_edge_cases(tinybench, tmp_path):
    adapter = tinybench()
    folder = tmp_path / "runs" / "odd-model"
    folder.mkdir(parents=True)
    (tmp_path / "runs" / "no-outputs").mkdir()
    (folder / "outputs.jsonl").write_text(
        '{"id": "act-1", "turns": [["add_task(title=\'Buy milk\', due=\'friday\')"]]}\n'
        '{"id": "act-1", "turns": [["Sure."]]}\n'
        '{"id": "act-2", "turns": "not a list"}\n'
        '["no", "id"]\n'
        '{"id": "ask-value-1", "error": "rate limited"}\n'
        '{"id": "act-6", "turns": []}\n'
    )
    search = adapter.runs().find([tmp_path / "runs"])
    assert [run.model for run in search.runs] == ["odd-model"]
    assert search.skipped == ((str(tmp_path / "runs" / "no-outputs"), "no outputs.jsonl"),)

    load = adapter.runs().read(search.runs[0], ["act-1", "act-2", "ask-value-1", "act-6"])
    rollouts = load.rollouts
    assert [call.name for call in rollouts["act-1"].calls_on(0)] == ["add_task"]  # the first entry wins
    assert rollouts["act-2"].turns is None and "malformed" in rollouts["act-2"].error
    assert rollouts["ask-value-1"].turns is None and rollouts["ask-value-1"].error == "rate limited"
    assert rollouts["act-6"].ended_before(0)
    assert len(load.warnings) == 2 and load.notes == {"error_entries": 2, "bad_lines": 1}


# ---------------------------------------------------------------------------------------
# the BFCL report script
# ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def score_report():
    spec = importlib.util.spec_from_file_location("score_report", BFCL_EXAMPLE / "score_report.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bfcl_report_on_the_fixture(score_report, bfcl_adapter, tmp_path):
    output = tmp_path / "report.md"
    assert score_report.main([str(BFCL_EXAMPLE / "fixture"), "--output", str(output), "--bootstrap", "200"]) == 0
    text = output.read_text()
    assert text.startswith("# twinbench report: acting and asking on BFCL multi-turn\n")
    assert "BFCL_v4 from bfcl-eval 2026.3.23" in text
    assert "**223 scored**" in text
    assert "| model | pairs | act | hold | decision [95% CI] | credited | pair | miss_func | miss_param |" in text
    row = next(line for line in text.splitlines() if line.startswith("| demo-model | 6/223 |"))
    assert "| 83.3 | 66.7 | 75.0 [" in row
    assert "## Coverage" in text
    row = next(line for line in text.splitlines() if line.startswith("| demo-model | 6 of 223 | 217 |"))
    assert "1 (ask: stored as an error)" in row and "216 (act: missing from the results" in row
    assert "## How to read this" in text and "balanced accuracy" in text


def test_bfcl_report_missing_folder(score_report, tmp_path, capsys):
    missing = tmp_path / "no-such-results"
    assert score_report.main([str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [f"score_report: error: result folder {missing} does not exist"]


def test_bfcl_report_folder_without_runs(score_report, tmp_path, capsys):
    assert score_report.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "no BFCL multi-turn result files" in err


# ---------------------------------------------------------------------------------------
# ToolSandbox (its own tests run in CI against a non-editable install; these run from the source)
# ---------------------------------------------------------------------------------------

TOOLSANDBOX = REPO / "examples" / "toolsandbox"


@pytest.fixture
def toolsandbox(monkeypatch):
    monkeypatch.syspath_prepend(str(TOOLSANDBOX))
    import sys

    sys.modules.pop("twinbench_toolsandbox", None)
    from twinbench_toolsandbox import ToolSandboxAdapter

    registry.register(ToolSandboxAdapter)
    yield ToolSandboxAdapter
    registry.unregister(ToolSandboxAdapter.name)
    sys.modules.pop("twinbench_toolsandbox", None)


def test_toolsandbox_refuses_the_twin_from_another_world_and_scores_its_policies(toolsandbox, tmp_path):
    record = run_json(tmp_path, "pairs", "--adapter", "toolsandbox")
    dropped = {d["id"]: d["reason"] for d in record["dropped"]}
    assert dropped["find_current_city_insufficient_information"].startswith("different starting state: SETTING")
    assert record["counts"]["scored"] == len([p for p in record["pairs"] if p["status"] == "scored"]) > 0
    scores = by_model(run_json(tmp_path, "score", "--adapter", "toolsandbox", "--bootstrap", "0"))
    assert {m: (r["act"], r["hold"]) for m, r in scores.items()} == {
        "oracle": (100.0, 100.0), "always-act": (100.0, 0.0), "never-act": (0.0, 100.0)}
