"""``twinbench perturb`` on When2Call: tool_call rows with the tool they call withheld, read back and scored."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES, WHEN2CALL, need_shared

from twinbench.adapters.when2call import When2CallAdapter
from twinbench.adapters.when2call.perturb import ASK_SUFFIX, load_constructed
from twinbench.cli.main import main
from twinbench.errors import AdapterError
from twinbench.model import Side
from twinbench.perturb import perturb

MINI = FIXTURES / "when2call" / "mini.jsonl"
REAL = WHEN2CALL / "when2call_test_llm_judge.jsonl"


def _names(tools):
    return [json.loads(t)["name"] if isinstance(t, str) else t["name"] for t in tools]


def _rows(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _decisions(adapter):
    from twinbench.evaluation.score import score

    scores, _ = score(adapter, (), n_boot=0)
    return {m.model: round(m.decision, 6) for m in scores.models}, {m.pairs for m in scores.models}


def test_the_tool_the_reference_calls_is_withheld_and_nothing_else(tmp_path):
    report = perturb(When2CallAdapter(MINI), tmp_path)
    (made,) = report.perturbable
    assert (made.item_id, made.withheld, made.new_id) == ("tc-1", ("hotel_api.HotelApi.book_room",), "tc-1" + ASK_SUFFIX)
    act, ask = _rows(tmp_path / "when2call.jsonl")
    source = next(r for r in _rows(MINI) if r["uuid"] == "tc-1")
    assert act["twinbench"] == {"pair": made.new_id, "side": "should_act"} and act["tools"] == source["tools"]
    assert ask["question"] == source["question"] and ask["correct_answer"] == "cannot_answer"
    assert _names(ask["tools"]) == ["hotel_api.HotelApi.find_hotels"] and ask["orig_tools"] == source["tools"]
    assert ask["twinbench"]["constructed"] == {"from": "tc-1", "withheld": ["hotel_api.HotelApi.book_room"]}
    batch = _rows(tmp_path / "openai.jsonl")
    assert [b["custom_id"] for b in batch] == ["tc-1", made.new_id]
    assert [t["function"]["name"] for t in batch[1]["body"]["tools"]] == ["hotel_api_HotelApi_find_hotels"]
    assert report.verified == (made.new_id,) and report.scored == report.verified
    assert json.loads((tmp_path / "pairs.json").read_text())["pairs"][0]["act_id"] == "tc-1"


def test_the_reference_policies_score_100_50_50_on_the_mini_constructed_pair(tmp_path):
    perturb(When2CallAdapter(MINI), tmp_path)
    decisions, pairs = _decisions(When2CallAdapter(MINI, tmp_path, constructed_only=True))
    assert decisions == {"oracle": 100.0, "always-act": 50.0, "never-act": 50.0} and pairs == {1}


def test_a_tool_call_row_when2call_already_perturbed_is_left_out(tmp_path):
    rows = _rows(MINI)
    tc = next(r for r in rows if r["uuid"] == "tc-1")
    twin = {**tc, "uuid": "ca-tc", "correct_answer": "cannot_answer", "target_tool": None,
            "tools": tc["tools"][1:], "orig_tools": tc["tools"]}
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in [*rows, twin]))
    report = perturb(When2CallAdapter(data), tmp_path / "out")
    assert not report.perturbable and list(report.refused) == ["tc-1"]
    assert report.refused["tc-1"].endswith("[ca-tc]") and "[" not in report.refusals()[0][0]
    assert not report.verified and not (tmp_path / "out" / "pairs.json").exists()


def test_an_edited_constructed_row_is_refused(tmp_path):
    adapter = When2CallAdapter(MINI)
    perturb(adapter, tmp_path)
    act, ask = _rows(tmp_path / "when2call.jsonl")
    ask["tools"] = []
    (tmp_path / "when2call.jsonl").write_text(json.dumps(act) + "\n" + json.dumps(ask) + "\n")
    with pytest.raises(AdapterError, match="is not tc-1 with hotel_api.HotelApi.book_room taken off its list"):
        load_constructed(tmp_path, adapter.loaded.rows)


def test_a_folder_without_the_suite_is_one_error(tmp_path, capsys):
    assert main(["pairs", "--adapter", "when2call", "--when2call-data", str(MINI), "--constructed", str(tmp_path)]) != 0
    err = capsys.readouterr().err
    assert "when2call.jsonl is missing" in err and "Traceback" not in err


def test_perturb_never_writes_over_the_data(tmp_path):
    data = tmp_path / "when2call.jsonl"
    data.write_bytes(MINI.read_bytes())
    with pytest.raises(AdapterError, match="would write over --when2call-data"):
        perturb(When2CallAdapter(data), tmp_path)
    assert data.read_bytes() == MINI.read_bytes()


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    need_shared(REAL)
    out = tmp_path_factory.mktemp("w2c-constructed")
    return perturb(When2CallAdapter(REAL), out), out


def test_the_real_funnel_is_derived_from_the_file(real):
    """Items: the tool_call rows; left out: those equal to a cannot_answer row's complete request."""
    report, _ = real
    rows = _rows(REAL)
    calls = [r for r in rows if r["correct_answer"] == "tool_call"]
    complete = {(r["question"], tuple(_names(r["orig_tools"]))) for r in rows
                if r["correct_answer"] == "cannot_answer" and r.get("orig_tools") is not None}
    repeated = [r["uuid"] for r in calls if (r["question"], tuple(_names(r["tools"]))) in complete]
    assert report.items == len(calls)
    assert sorted(report.refused) == sorted(repeated)
    funnel = dict(report.funnel())
    assert funnel["perturbable"] == funnel["constructed"] == funnel["verified by discovery"] == len(calls) - len(repeated)
    assert not report.unverified


def test_the_real_constructed_pairs_score_100_50_50_alone_and_with_the_shipped(real):
    report, out = real
    decisions, pairs = _decisions(When2CallAdapter(REAL, out, constructed_only=True))
    assert decisions == {"oracle": 100.0, "always-act": 50.0, "never-act": 50.0}
    assert pairs == {len(report.verified)}
    from twinbench.discovery import discover_for

    shipped = len(discover_for(When2CallAdapter(REAL)).scored)
    both, pairs = _decisions(When2CallAdapter(REAL, out))
    assert both == decisions and pairs == {shipped + len(report.verified)}
    asks = [i for i in When2CallAdapter(REAL, out, constructed_only=True).items() if i.side is Side.ASK]
    assert {i.id for i in asks} == set(report.verified)
