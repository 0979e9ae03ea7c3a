"""``twinbench perturb`` on BFCL: the counts derived from the release, the round trip, the reference policies."""

from __future__ import annotations

import json

import pytest

from twinbench.adapters.bfcl import BFCLAdapter
from twinbench.adapters.bfcl.perturb import FIRST_INDEX, load_constructed
from twinbench.errors import AdapterError
from twinbench.model import Side
from twinbench.perturb import constructions, perturb
from twinbench.perturb.construct import NO_ACTION


@pytest.fixture(scope="module")
def adapter():
    return BFCLAdapter()


@pytest.fixture(scope="module")
def report(adapter, tmp_path_factory):
    out = tmp_path_factory.mktemp("constructed")
    return perturb(adapter, out), out


def _base_turns(adapter):
    return [(i, t) for i in adapter.items() if i.category == "base" for t in i.turns]


def test_the_issue_counts_are_derived_from_the_release(adapter, report):
    """734 base anchor turns, 412 with a world-changing reference: counted here from the items and the rule."""
    rule = adapter.rule()
    turns = _base_turns(adapter)
    acting = [(i, t) for i, t in turns if any(rule.is_action(c, i, t.index) for c in rule.resolve(t.reference, t.tools))]
    result, _ = report
    assert len(result.constructions) == len(turns)
    assert result.acting == len(acting)
    assert (len(turns), len(acting)) == (734, 412)


def test_every_refused_turn_says_why_and_the_rest_round_trip(report):
    result, _ = report
    refused = [c for c in result.constructions if not c.perturbable]
    assert all(c.reason for c in refused)
    assert sum(1 for c in refused if c.reason == NO_ACTION) == len(result.constructions) - result.acting
    assert set(result.verified) == {c.new_id for c in result.perturbable}
    assert result.scored == result.verified and not result.unverified
    assert result.refused and all(i.startswith("multi_turn_long_context_") for i in result.refused)


def test_a_tool_needed_earlier_is_not_withheld(report):
    result, _ = report
    earlier = [c for c in result.constructions if c.reason and "earlier turn" in c.reason]
    assert earlier
    for c in earlier:
        assert set(c.withheld) & set(c.reason.split(" also needed")[0].split(", "))


def test_the_written_items_are_bfcl_miss_func_items(report, adapter):
    result, out = report
    lines = (out / "bfcl_eval/data/BFCL_v4_multi_turn_miss_func.json").read_text().splitlines()
    shipped = adapter.release.question_file("miss_func").read_text().splitlines()
    assert lines[:len(shipped)] == [s for s in shipped if s.strip()]
    first = result.perturbable[0]
    record = next(json.loads(line) for line in lines if json.loads(line)["id"] == first.new_id)
    assert record["missed_function"] == {str(first.turn + 1): list(first.withheld)}
    assert record["question"][first.turn + 1] == []
    ids = json.loads((out / "test_case_ids_to_generate.json").read_text())
    assert ids == {"multi_turn_miss_func": [c.new_id for c in result.perturbable]}


def test_the_reference_policies_score_100_50_50_on_the_constructed_pairs(report):
    from twinbench.evaluation.score import score

    _, out = report
    reloaded = BFCLAdapter(constructed=out, constructed_only=True)
    scores, _ = score(reloaded, (), n_boot=0)
    decisions = {m.model: round(m.decision, 6) for m in scores.models}
    assert decisions == {"oracle": 100.0, "always-act": 50.0, "never-act": 50.0}
    assert all(m.pairs == len(report[0].verified) for m in scores.models)


def test_constructed_only_keeps_no_shipped_should_ask_item(report):
    _, out = report
    reloaded = BFCLAdapter(constructed=out, constructed_only=True)
    asks = [i for i in reloaded.items() if i.side is Side.ASK]
    assert asks and all(int(i.id.rsplit("_", 1)[1]) >= FIRST_INDEX for i in asks)
    both = BFCLAdapter(constructed=out)
    assert len([i for i in both.items() if i.side is Side.ASK]) == len(asks) + 400


def test_the_dialogue_a_run_is_checked_against_does_not_depend_on_what_ran_before(report, tmp_path, monkeypatch):
    """The kept dialogue table is the release's: one made with --constructed-only first leaves a plain
    adapter's table whole, and a constructed adapter's table has the constructed items too."""
    from twinbench.adapters.bfcl.run_reader import dialogue_of

    _, out = report
    monkeypatch.setenv("TWINBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("TWINBENCH_NO_CACHE", raising=False)
    only = BFCLAdapter(constructed=out, constructed_only=True)
    assert dict(only.runs().dialogue) == {**dialogue_of(BFCLAdapter()._shipped_items), **dialogue_of(
        only._constructed_items)}
    plain = BFCLAdapter()
    assert dict(plain.runs().dialogue) == dialogue_of(plain.items())  # every shipped item, should-ask ones too


def test_an_edited_constructed_item_is_refused(report, adapter, tmp_path):
    _, out = report
    copy = tmp_path / "edited"
    data = copy / "bfcl_eval/data"
    (data / "possible_answer").mkdir(parents=True)
    (data / "possible_answer/BFCL_v4_multi_turn_miss_func.json").write_bytes(
        (out / "bfcl_eval/data/possible_answer/BFCL_v4_multi_turn_miss_func.json").read_bytes())
    lines = (out / "bfcl_eval/data/BFCL_v4_multi_turn_miss_func.json").read_text().splitlines()
    record = json.loads(lines[-1])
    record["question"][0] = [{"role": "user", "content": "something else"}]
    (data / "BFCL_v4_multi_turn_miss_func.json").write_text("\n".join([*lines[:-1], json.dumps(record)]) + "\n")
    with pytest.raises(AdapterError, match="is not multi_turn_base_"):
        load_constructed(copy, "BFCL_v4", {r.id: r for r in adapter.data.raw})


def test_the_constructed_pairs_are_outside_the_hand_review(report):
    from twinbench.discovery import discover_for

    _, out = report
    manifest = discover_for(BFCLAdapter(constructed=out, constructed_only=True))
    assert manifest.pairs and all(p.certification.status.value == "uncertified" for p in manifest.pairs)


def test_constructed_only_without_a_folder_is_one_error(capsys):
    from twinbench.cli.main import main

    assert main(["pairs", "--adapter", "bfcl", "--constructed-only"]) != 0
    assert "--constructed-only needs --constructed DIR" in capsys.readouterr().err


def test_a_turn_list_limits_the_items(adapter):
    made, refused = constructions(adapter.items(), adapter.rule(), adapter.perturber(), {"multi_turn_base_0"})
    assert {c.item_id for c in made} == {"multi_turn_base_0"} and not refused
