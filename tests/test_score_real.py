"""`twinbench score` on the public BFCL data: the reference policies and the published runs."""

from __future__ import annotations

import csv
import io
import json

import pytest

from conftest import BFCL_RUNS, need_shared

from twinbench.cli import main


def run_json(capsys, *args):
    assert main(["score", "--format", "json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_embedded_default_scores_the_reference_policies(capsys, bfcl_adapter):
    out = run_json(capsys, "--bootstrap", "500")
    assert out["embedded_default"] is True
    by = {m["model"]: m for m in out["models"]}
    assert set(by) == {"oracle", "always-act", "never-act"}
    expected = {"oracle": (100, 100, 100), "always-act": (100, 0, 50), "never-act": (0, 100, 50)}
    for name, (act, hold, decision) in expected.items():
        m = by[name]
        assert (m["act"], m["hold"], m["decision"]) == (act, hold, decision)
        assert m["pairs"] == 223 and m["coverage"]["scored"] == 223
        for cat, n in (("miss_func", 116), ("miss_param", 107)):
            assert m["by_category"][cat]["decision"] == decision and m["by_category"][cat]["pairs"] == n
        assert m["ci"]["decision"][0] <= m["decision"] <= m["ci"]["decision"][1]
    assert by["oracle"]["pair"] == 100 and by["oracle"]["rank1"]["decision"] == 100.0


def test_embedded_default_prints_how_to_score_ones_own_run(capsys, bfcl_adapter):
    assert main(["score", "--bootstrap", "0"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1].startswith("score your own run: twinbench score --adapter bfcl --results")


@pytest.fixture(scope="module")
def real_scores(tmp_path_factory, bfcl_adapter, bfcl_v3_adapter):
    runs = need_shared(BFCL_RUNS)
    folder = tmp_path_factory.mktemp("real")
    items = folder / "items.csv"
    out = folder / "score.json"
    code = main(["score", "--results", str(runs), "--format", "json", "--output", str(out),
                 "--per-item", str(items), "--bootstrap", "1000"])
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(items.read_text(encoding="utf-8"))))
    return json.loads(out.read_text()), {(r["model"], r["ask_id"]): r for r in rows}


def test_every_published_run_scores_with_its_coverage(real_scores):
    out, _ = real_scores
    by = {m["model"]: m for m in out["models"]}
    assert sorted(by) == sorted([
        "openai_gpt-oss-120b", "openai_gpt-oss-20b", "Salesforce_Llama-xLAM-2-8b-fc-r",
        "meta-llama_Llama-3.1-8B-Instruct-FC", "mistralai_Ministral-8B-Instruct-2410", "glyphh-hdc", "glyphh-hdc-v1",
    ])
    for m in out["models"]:
        cov = m["coverage"]
        assert cov["scored"] + sum(cov["unscored"].values()) == cov["population"] == m["population"]
        assert 0 <= m["decision"] <= 100
    # v3 runs are scored against the last v3 release, v4 against the default
    assert by["Salesforce_Llama-xLAM-2-8b-fc-r"]["data"]["dataset"] == "BFCL_v3"
    assert by["openai_gpt-oss-120b"]["data"]["release"] == "2026.3.23"
    assert by["openai_gpt-oss-120b"]["population"] == 223
    # about 45% of Ministral's entries are errors: they leave pairs unscored, never "held back"
    mini = by["mistralai_Ministral-8B-Instruct-2410"]["coverage"]
    assert mini["scored"] < mini["population"] / 2 + 20
    assert any("stored as an error" in k for k in mini["unscored"])
    # official raw where score files exist, and said so where they don't
    assert by["openai_gpt-oss-20b"]["official"]["ask_items"] is not None
    assert by["glyphh-hdc"]["official"] is None


def test_translated_run_is_warned(real_scores):
    out, _ = real_scores
    assert any("Ministral" in w and "differ from the BFCL_v3 release" in w for w in out["warnings"])
    notes = {m["model"]: m["run_notes"] for m in out["models"]}
    assert notes["mistralai_Ministral-8B-Instruct-2410"]["logged_items_differing"] > 200
    assert notes["openai_gpt-oss-120b"]["logged_items_differing"] == 0


@pytest.mark.parametrize(
    "model, ask_id, acted, held, calls_on_ask",
    [
        # read by hand from the stored trajectories of miss_param_122 / base_122 (the Figure 1a item)
        ("openai_gpt-oss-120b", "multi_turn_miss_param_122", "True", "True", ""),  # native place_order on base; [] on ask
        ("meta-llama_Llama-3.1-8B-Instruct-FC", "multi_turn_miss_param_122", "True", "False", "place_order"),  # JSON object guesses AAPL
        ("Salesforce_Llama-xLAM-2-8b-fc-r", "multi_turn_miss_param_122", "True", "True", ""),  # the literal "[]"
        ("glyphh-hdc-v1", "multi_turn_miss_param_122", "True", "False", "place_order"),  # class-qualified, symbol ""
        ("mistralai_Ministral-8B-Instruct-2410", "multi_turn_miss_param_122", "True", "False", "place_order"),  # python text
    ],
)
def test_item_level_decisions_read_by_hand(real_scores, model, ask_id, acted, held, calls_on_ask):
    _, rows = real_scores
    row = rows[(model, ask_id)]
    assert (row["acted_on_base"], row["held_back"], row["calls_on_ask"]) == (acted, held, calls_on_ask)
