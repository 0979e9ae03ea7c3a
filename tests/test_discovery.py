"""Twin discovery on hand-made items: every stage, every reason, every item once."""

from __future__ import annotations

import attrs
import pytest

from builders import classifier, item, rule

from twinbench.contract.curation import CompoundTurn, Curation
from twinbench.options import DiscoveryOptions
from twinbench.discovery import discover, family_of
from twinbench.model import Perturbation, Side

ACT, ASK = Side.ACT, Side.ASK
BASE = [
    ("go to docs", ["cd(folder='docs')"]),
    ("make dir tmp", ["mkdir(dir_name='tmp')"]),
    ("list", ["ls()"]),
]


def base(i: int, turns=BASE):
    return item(f"base_{i}", "base", ACT, turns)


def miss_param(i: int, vague="make a dir", turns=BASE, anchor=1, supply="call it tmp"):
    """Insert a vague anchor turn with an empty reference before the turn that supplies the value."""
    t = [list(x) for x in turns]
    out = t[:anchor] + [(vague, [])] + [(supply, t[anchor][1])] + t[anchor + 1:]
    return item(f"miss_param_{i}", "miss_param", ASK, [tuple(x) for x in out])


def miss_func(i: int, turns=BASE, anchor=1, withheld=("mkdir",)):
    """Same text on the anchor turn but a tool withheld until the next (empty-text) turn."""
    tools_without = tuple(x for x in ("ls", "cd", "mkdir", "mv", "echo", "login") if x not in withheld)
    t = []
    for k, (user, refs) in enumerate(turns):
        if k == anchor:
            t.append((user, [], tools_without))
            t.append((None, refs))
        elif k < anchor:
            t.append((user, refs, tools_without))
        else:
            t.append((user, refs))
    return item(f"miss_func_{i}", "miss_func", ASK, t)


def run(items, curation=None, options=DiscoveryOptions()):
    hints = {x.id: [f"base_{x.id.rsplit('_', 1)[1]}"] for x in items if x.side is ASK}
    items = [attrs.evolve(x, family=x.id.rsplit("_", 1)[1]) for x in items]
    return discover(items, hints, rule(), curation, options)


def test_value_and_tool_removal_are_paired_and_classified():
    m = run([base(0), miss_param(0), miss_func(0)])
    assert not m.dropped
    by = {p.ask_id: p for p in m.pairs}
    mp, mf = by["miss_param_0"], by["miss_func_0"]
    assert mp.act_id == mf.act_id == "base_0"
    assert mp.anchor_turn == mf.anchor_turn == 1
    assert mp.perturbation is Perturbation.VALUE_REMOVED and mp.removed_tools == ()
    assert mf.perturbation is Perturbation.TOOL_REMOVED and mf.removed_tools == ("mkdir",)
    assert mp.status == mf.status == "scored"
    assert mp.reference_anchor_calls == ("mkdir(dir_name='tmp')",)
    assert m.counts()["distinct_base_twins_scored"] == 1
    assert m.counts()["distinct_base_anchor_turns_scored"] == 1


def test_each_drop_stage_has_its_reason():
    two_anchors = item("miss_param_1", "miss_param", ASK,
                       [("a", []), ("b", []), ("c", ["ls()"]), ("d", ["ls()"])])
    no_anchor = item("miss_param_2", "miss_param", ASK, [("a", ["ls()"])])
    shape = miss_param(3, turns=[("go", ["cd(folder='docs')", "ls()"])] + BASE[1:])
    changed_call = miss_param(4)
    changed_call = item("miss_param_4", "miss_param", ASK,
                        [("go to docs", ["cd(folder='DOCS')"]), ("make a dir", []),
                         ("call it tmp", ["mkdir(dir_name='tmp')"]), ("list", ["ls()"])])
    changed_text = item("miss_param_5", "miss_param", ASK,
                        [("go to the docs folder", ["cd(folder='docs')"]), ("make a dir", []),
                         ("call it tmp", ["mkdir(dir_name='tmp')"]), ("list", ["ls()"])])
    orphan = miss_param(9)
    items = [base(1), base(2), base(3), base(4), base(5), two_anchors, no_anchor, shape, changed_call,
             changed_text, orphan]
    m = run(items)
    reasons = {d.id: (d.stage, d.reason.split(":")[0]) for d in m.dropped}
    assert reasons == {
        "miss_param_1": ("pairing", "multi-anchor"),
        "miss_param_2": ("pairing", "multi-anchor"),
        "miss_param_3": ("pairing", "shape mismatch"),
        "miss_param_4": ("content", "call strings differ"),
        "miss_param_5": ("content", "dialogue differs"),
        "miss_param_9": ("pairing", "no twin"),
    }
    assert m.pairs == ()


def test_every_should_ask_item_appears_exactly_once():
    items = [base(0), base(1), miss_param(0), miss_func(0), miss_param(1), miss_func(7)]
    m = run(items)
    seen = [p.ask_id for p in m.pairs] + [d.id for d in m.dropped]
    assert sorted(seen) == sorted(x.id for x in items if x.side is ASK)
    assert m.should_ask_items == 4


def test_read_only_and_login_only_anchors_are_excluded_unless_asked():
    read_turns = [("go", ["cd(folder='docs')"]), ("look", ["ls()"])]
    login_turns = [("go", ["cd(folder='docs')"]), ("sign in", ["login(user='a')"])]
    items = [base(0, read_turns), miss_param(0, turns=read_turns, supply="in docs"),
             base(1, login_turns), miss_param(1, turns=login_turns, supply="as a")]
    m = run(items)
    by = {p.ask_id: p for p in m.pairs}
    assert by["miss_param_0"].status == "excluded" and by["miss_param_0"].reason.startswith("read-only")
    assert by["miss_param_1"].status == "excluded" and by["miss_param_1"].reason.startswith("login-only")
    m2 = run(items, options=DiscoveryOptions(count_login=True))
    assert [p.ask_id for p in m2.scored] == ["miss_param_1"]
    m3 = run(items, options=DiscoveryOptions(all_pairs=True))
    assert len(m3.scored) == 2


def test_echo_counts_as_action_only_with_a_file_name():
    printing = [("say", ["echo(content='hi')"]), ("x", ["ls()"])]
    writing = [("say", ["echo('hi', 'notes.txt')"]), ("x", ["ls()"])]
    m = run([base(0, printing), miss_param(0, turns=printing, anchor=0, supply="hi"),
             base(1, writing), miss_param(1, turns=writing, anchor=0, supply="hi")])
    status = {p.ask_id: p.decision_bearing for p in m.pairs}
    assert status == {"miss_param_0": "read_only", "miss_param_1": "mutate"}


def _curation(applies=True):
    return Curation(
        name="test curation",
        applies=applies,
        applies_reason="made for this data" if applies else "made for other data",
        bad_keys={"miss_param_2": "reference is wrong"},
        construction_errors={"miss_param_1": "value stated earlier"},
        compound={"miss_func_0": CompoundTurn(("mkdir",), ("mv",), ("mkdir",))},
    )


def test_curation_applies_bad_keys_construction_errors_and_compound_turns():
    items = [base(0), base(1), base(2), miss_func(0), miss_param(1), miss_param(2)]
    m = run(items, _curation())
    assert [(d.id, d.reason) for d in m.dropped] == [("miss_param_2", "bad key: reference is wrong")]
    by = {p.ask_id: p for p in m.pairs}
    assert by["miss_param_1"].status == "excluded"
    assert by["miss_param_1"].certification.status == "construction_error"
    assert by["miss_func_0"].certification.compound
    assert by["miss_func_0"].certification.independent == ("mv",)
    assert m.curation_applies
    uncert = run(items, _curation(), DiscoveryOptions(uncertified=True))
    assert {p.ask_id for p in uncert.scored} == {"miss_func_0", "miss_param_1"}


def test_curation_that_does_not_apply_is_reported_and_ignored():
    items = [base(0), base(1), base(2), miss_func(0), miss_param(1), miss_param(2)]
    m = run(items, _curation(applies=False))
    assert not m.curation_applies and m.curation_reason == "made for other data"
    assert not m.dropped
    assert all(p.certification.status == "uncertified" for p in m.pairs)
    assert len(m.scored) == 3


def test_single_turn_items_pair_by_replaced_anchor():
    """When2Call-like: one turn, the should-ask turn has an empty reference in place of the call."""
    act = item("base_0", "tool_call", ACT, [("book a table for 2 at 7pm", ["mkdir(dir_name='table')"])])
    ask = item("miss_param_0", "request_for_info", ASK, [("book a table at 7pm", [])])
    m = run([act, ask])
    (pair,) = m.pairs
    assert pair.anchor_turn == pair.act_anchor_turn == 0
    assert pair.perturbation is Perturbation.VALUE_REMOVED and pair.scored


def test_hints_are_verified_by_content_not_trusted():
    wrong_twin = base(0, [("something else", ["ls()"]), ("and more", ["ls()"]), ("x", ["ls()"])])
    m = run([wrong_twin, miss_param(0)])
    assert m.pairs == () and m.dropped[0].stage == "content"


def test_families_group_a_scenario_across_categories():
    m = run([base(0), miss_param(0), miss_func(0), base(1), miss_param(1)])
    assert family_of(m.families, "miss_func_0") == {"base_0", "miss_param_0", "miss_func_0"}
    assert m.counts()["scenario_families"] == 2


def test_a_tool_without_a_label_is_refused_or_excluded_never_read_only():
    from twinbench.errors import AdapterError
    from twinbench.contract.effects import EffectClassifier
    from twinbench.contract.rules import EffectTableRule

    without_mv = EffectClassifier(tuple(f for f in classifier().functions if f.name != "mv"), classifier().rules)
    items = [base(0), miss_param(0)]
    hints = {"miss_param_0": ["base_0"]}
    with pytest.raises(AdapterError, match="no label for: mv"):
        discover(items, hints, EffectTableRule(without_mv))
    (p,) = discover(items, hints, EffectTableRule(without_mv, allow_unlabelled=True)).pairs
    assert p.status == "excluded" and p.reason == "unlabelled tool: mv has no effect label"
