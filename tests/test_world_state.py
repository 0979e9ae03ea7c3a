"""The contract for stateful leaderboards: starting worlds, several removed tools, true curation labels,
graded official scores."""

from __future__ import annotations

import attrs
import pytest

from builders import item, rule
from test_discovery import base, miss_func

from twinbench.contract.curation import Curation
from twinbench.discovery import discover
from twinbench.model import CertificationStatus, DeclaredPerturbation, Perturbation, Side, StartingWorld
from twinbench.options import DiscoveryOptions

WORLD = {"SETTING": [{"wifi": True, "cellular": True, "stamp": 1}], "CONTACT": [{"name": "Ann"}]}
OFF = {"SETTING": [{"wifi": False, "cellular": True, "stamp": 1}], "CONTACT": [{"name": "Ann"}]}


def _pair(ask_world, act_world, strict=True, options=DiscoveryOptions()):
    act = attrs.evolve(base(0), world=ask_world and StartingWorld.of(act_world))
    ask = attrs.evolve(miss_func(0), world=act_world and StartingWorld.of(ask_world))
    return discover([act, ask], {ask.id: [act.id]}, rule(), None, options, strict_world=strict)


def test_a_fingerprint_leaves_out_the_volatile_parts_and_names_what_differs():
    first = StartingWorld.of(WORLD, {"SETTING": ["stamp"]})
    later = StartingWorld.of({**WORLD, "SETTING": [{"wifi": True, "cellular": True, "stamp": 99}]},
                             {"SETTING": ["stamp"]})
    assert first == later and first.volatile == ("SETTING.stamp",)
    assert StartingWorld.of(WORLD) != StartingWorld.of({**WORLD, "SETTING": [{**WORLD["SETTING"][0], "stamp": 99}]})
    assert first.difference(StartingWorld.of(OFF, {"SETTING": ["stamp"]})) == "SETTING differs"
    assert "only one side has CONTACT" in StartingWorld.of({"SETTING": []}).difference(StartingWorld.of(WORLD))


def test_twins_from_different_worlds_are_refused_with_the_reason():
    manifest = _pair(WORLD, OFF)
    assert not manifest.pairs
    (drop,) = manifest.dropped
    assert drop.stage == "content" and drop.reason == "different starting state: SETTING differs in base_0"


def test_twins_from_the_same_world_pair():
    manifest = _pair(WORLD, WORLD)
    assert [p.ask_id for p in manifest.scored] == ["miss_func_0"] and manifest.pairs[0].world_differs is None


def test_a_lenient_adapter_keeps_and_notes_the_pair_and_same_world_excludes_it():
    kept = _pair(WORLD, OFF, strict=False)
    (pair,) = kept.pairs
    assert pair.scored and pair.world_differs == "SETTING differs"
    assert any("different states: SETTING differs" in n for n in pair.notes)
    assert kept.counts()["world_differs"] == 1
    (excluded,) = _pair(WORLD, OFF, strict=False, options=DiscoveryOptions(same_world=True)).pairs
    assert not excluded.scored and excluded.reason.startswith("different starting state: SETTING differs")


def test_an_unknown_world_is_not_a_difference():
    assert _pair(None, None).scored


def _tool_removal(removed, withheld=("mkdir", "mv")):
    ask = attrs.evolve(miss_func(0, withheld=withheld),
                       perturbation=DeclaredPerturbation(Perturbation.TOOL_REMOVED, removed))
    return discover([base(0), ask], {ask.id: ["base_0"]}, rule(), None)


def test_a_declared_removal_of_several_tools_verifies_exactly_those():
    manifest = _tool_removal(("mkdir", "mv"))
    assert manifest.pairs and manifest.pairs[0].removed == "mkdir, mv"
    assert set(manifest.pairs[0].removed_tools) == {"mkdir", "mv"}
    (drop,) = _tool_removal(("mkdir",)).dropped
    assert drop.reason == "declared tool removal (mkdir) but the removed tools are mkdir, mv"
    assert DeclaredPerturbation(Perturbation.TOOL_REMOVED, "mkdir").removed == ("mkdir",)


@pytest.mark.parametrize(("curation", "status", "origin"), [
    (Curation("c", True, "made for it", certified={"miss_func_0": "checked by two readers"}),
     CertificationStatus.CERTIFIED, "hand-made"),
    (Curation("c", True, "made for it", reviewed_all="every anchor reviewed"), CertificationStatus.CERTIFIED,
     "hand-made"),
    (Curation("c", True, "made for it"), CertificationStatus.UNCERTIFIED, "none"),
    (Curation("c", False, "made for other data", reviewed_all="every anchor reviewed"),
     CertificationStatus.UNCERTIFIED, "none"),
    (Curation("c", True, "derived from the data", reviewed_all="checked by a script", origin="derived"),
     CertificationStatus.CERTIFIED, "derived"),
])
def test_a_pair_is_certified_only_where_the_curation_says_so(curation, status, origin):
    (pair,) = discover([base(0), miss_func(0)], {"miss_func_0": ["base_0"]}, rule(), curation).pairs
    assert pair.certification.status is status and pair.certification.origin == origin
    if status is CertificationStatus.UNCERTIFIED and curation.applies:
        assert pair.certification.reason == "not certified: c says nothing of this pair"
    if origin == "derived":
        assert "by hand" not in pair.certification.reason


def test_a_review_of_decision_bearing_anchors_does_not_certify_a_read_only_pair():
    read_only = [("go to docs", ["cd(folder='docs')"]), ("list", ["ls()"]), ("list again", ["ls()"])]
    ask = item("miss_func_0", "miss_func", Side.ASK,
               [("go to docs", ["cd(folder='docs')"]), ("list", [], ("cd", "mkdir")), (None, ["ls()"]),
                ("list again", ["ls()"])])
    curation = Curation("c", True, "made for it", reviewed_all="every decision-bearing anchor reviewed")
    (pair,) = discover([base(0, read_only), ask], {ask.id: ["base_0"]}, rule(), curation).pairs
    assert not pair.scored and pair.certification.status is CertificationStatus.UNCERTIFIED


def test_graded_official_scores_give_means_beside_the_pass_rates():
    import numpy as np

    from twinbench.metrics.matrix import DecisionMatrix, official
    from twinbench.model import PairDecision

    decisions = [PairDecision(model="m", ask_id=f"q{i}", act_id=f"a{i}", category="c", anchor_turn=0,
                              act_anchor_turn=0, certification="certified", compound=False, scored=True,
                              missing=None, acted=True, held_back=True, held_back_credited=True)
                 for i in range(2)]
    matrix = DecisionMatrix.build([("m", decisions)])
    scores = {"q0": 1.0, "q1": 0.5, "a0": 0.25, "a1": 0.75}
    verdicts = {k: v >= 1.0 for k, v in scores.items()}
    result = official(matrix, 0, np.ones(2, dtype=bool), verdicts, scores, 1.0)
    assert result.ask_items == 50.0 and result.act_twins == 0.0
    assert result.graded.ask_items_mean == 75.0 and result.graded.act_twins_mean == 50.0
    assert result.to_json()["graded"] == {"ask_items_mean": 75.0, "act_twins_mean": 50.0, "pass_at": 1.0}
    assert "graded" not in official(matrix, 0, np.ones(2, dtype=bool), verdicts).to_json()


def test_bfcl_items_carry_their_initial_config(bfcl_adapter):
    items = {i.id: i for i in bfcl_adapter.items()}
    assert items["multi_turn_base_0"].world is not None
    manifest = __import__("twinbench.discovery", fromlist=["discover_for"]).discover_for(bfcl_adapter)
    differs = [p for p in manifest.pairs if p.world_differs]
    assert differs, "the default release has twins whose initial_config differs"
    assert manifest.counts()["world_differs"] == len(differs)
    assert len(manifest.scored) == 223  # kept and noted: the method's pairs are unchanged

