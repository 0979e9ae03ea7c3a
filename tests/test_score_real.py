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


def test_an_unreadable_call_on_an_anchor_turn_is_no_missed_action(real_scores):
    """gpt-oss-120b's post_tweet on multi_turn_base_5 turn 2 is there, with arguments that do not parse: it was
    a missed action before; now the call counts by its name (its arguments are counted unread), so the model
    acted. A side whose unread part may have been the attempt, with no attempt read, is unscored instead."""
    out, rows = real_scores
    row = rows[("openai_gpt-oss-120b", "multi_turn_miss_func_5")]
    assert row["acted"] == "True" and "post_tweet" in row["calls_on_act"]
    unread = {m["model"]: m["unread"]["counts"] for m in out["models"]}
    assert unread["openai_gpt-oss-120b"].get("call_arguments_unparsed", 0) >= 1


def _anchor_unread_by_hand(run: str, model: str, kind: str) -> tuple[int, int]:
    """The parts of ``kind`` on the anchor turns of the scored pairs, each (item, turn) once, read from the files,
    and the number of those turns."""
    from twinbench.adapters.bfcl import BFCLAdapter
    from twinbench.adapters.bfcl.result_files import read_result_file
    from twinbench.discovery import discover_for
    from twinbench.reading import read_step

    pairs = discover_for(BFCLAdapter()).scored
    turns = {(p.ask_id, p.anchor_turn) for p in pairs} | {(p.act_id, p.act_anchor_turn) for p in pairs}
    found = 0
    for path in sorted((BFCL_RUNS / run / "result" / model / "multi_turn").glob("*_result.json")):
        for item_id, entry in read_result_file(path).entries.items():
            for t, steps in enumerate(entry.turns or ()):
                if (item_id, t) in turns:
                    found += sum(u.kind == kind for step in steps for u in read_step(step).unread)
    return found, len(turns)


def test_a_runs_unread_count_is_the_same_in_every_command(tmp_path, capsys, bfcl_adapter):
    """score, score --replay, score --same-history, score --diagnostics, compare and report count what a run left
    unread over the same turns: the anchor turns of the pairs."""
    runs = str(need_shared(BFCL_RUNS / "gpt-oss-2025-11"))
    want, turns = _anchor_unread_by_hand("gpt-oss-2025-11", "openai_gpt-oss-20b", "leaked_template_tokens")
    assert want > 0

    def score(*extra):
        assert main(["score", "--results", runs, "--bootstrap", "0", "--format", "json", *extra]) == 0
        by = {m["model"]: m for m in json.loads(capsys.readouterr().out)["models"]}
        return by["openai_gpt-oss-20b"]["unread"]

    counted = [score(), score("--replay"), score("--same-history"), score("--diagnostics")]
    assert main(["compare", "--baseline", runs, "--treatment", runs, "--model", "openai_gpt-oss-20b",
                 "--bootstrap", "0", "--format", "json"]) == 0
    (arm,) = json.loads(capsys.readouterr().out)["models"]
    counted += [arm["unread"]["baseline"], arm["unread"]["treatment"]]
    for unread in counted:
        assert unread["counts"]["leaked_template_tokens"] == want
        assert unread["scope"] == "the turns scored" and unread["turns"] == turns
    assert main(["report", "--results", runs, "--bootstrap", "0", "--output", str(tmp_path / "r.html")]) == 0
    capsys.readouterr()
    assert f"leaked_template_tokens {want}" in (tmp_path / "r.html").read_text(encoding="utf-8")
