"""Replay in the release's own simulator: the sandbox, the state facts, workaround credit, the check.

Fast tests run on a small hand-made simulator (``builders.replay_package``); the tests marked
``shared`` run the real published runs of ``../shared/bfcl-runs`` through BFCL's own classes.
"""

from __future__ import annotations

import builtins
import csv
import io
import json
import re
import sys

import attrs
import pytest

from builders import replay_package, write_scores
from conftest import BFCL_RUNS, need_shared

from twinbench.errors import AdapterError
from twinbench.adapters.bfcl import BFCLAdapter
from twinbench.adapters.bfcl.sandbox import Sandbox, load_classes
from twinbench.cli import main
from twinbench.discovery import discover_for
from twinbench.model import Call, PairDecision
from twinbench.contract.replayer import PairReplay
from twinbench.decisions.credit import credit

MAKE = Call("mkdir", kwargs=(("dir_name", "a"),))
MOVE = Call("mv", kwargs=(("source", "f"), ("destination", "a")))
COPY = Call("cp", kwargs=(("source", "f"), ("destination", "a")))
REMOVE = Call("rm", kwargs=(("file_name", "f"),))
LIST = Call("ls")


@pytest.fixture
def pkg(tmp_path):
    return replay_package(tmp_path / "release")


@pytest.fixture
def adapter(pkg):
    return BFCLAdapter(bfcl_root=pkg)


def world(adapter, item_id="multi_turn_base_0"):
    return adapter.replayer().world(item_id)


# --------------------------------------------------------------------------- the sandbox


def test_classes_load_from_the_release_files_with_their_sibling_imports_and_leave_no_module_behind(adapter):
    sandbox = adapter.replayer().sandbox
    assert set(sandbox.classes) == {"FS"}
    assert not [name for name in sys.modules if name.startswith("bfcl_eval")]
    w = world(adapter)
    assert w.instances["FS"].files == {"f": "text"}  # _load_scenario got the item's initial_config


def test_a_simulator_with_a_missing_dependency_is_one_clear_error(pkg):
    source = pkg / "eval_checker" / "multi_turn_eval" / "func_source_code" / "fs.py"
    source.write_text("import mpmath_not_installed_here\n" + source.read_text())
    with pytest.raises(AdapterError, match="cannot load FS from .*fs.py: it imports 'mpmath_not_installed_here'"):
        load_classes({"FS": source}, pkg)


def test_a_simulator_that_cannot_be_set_up_is_one_clear_error_naming_the_item(pkg, capsys):
    source = pkg / "eval_checker" / "multi_turn_eval" / "func_source_code" / "fs.py"
    source.write_text(source.read_text().replace("state = dict(DEFAULT_STATE)", "raise RuntimeError('boom')"))
    assert main(["pairs", "--adapter", "bfcl", "--bfcl-root", str(pkg), "--replay"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("twinbench: error: multi_turn_base_") and "FS cannot be set up" in err and "boom" in err
    assert len(err.splitlines()) == 1


def test_calls_route_to_the_owner_of_the_unqualified_name(adapter):
    w = world(adapter)
    assert not w.execute(MAKE).error
    assert w.instances["FS"].dirs == ["a"]
    assert not w.execute(Call("FS.touch", kwargs=(("file_name", "g"),))).error
    assert "g" in w.instances["FS"].files
    wrong = w.execute(Call("Other.touch", kwargs=(("file_name", "h"),)))
    assert wrong.error and "belongs to FS" in wrong.result and "h" not in w.instances["FS"].files


def test_only_public_methods_of_the_involved_classes_are_callable(adapter):
    w = world(adapter)
    for name in ("_load_scenario", "__init__", "__class__", "print", "eval", "open"):
        result = w.execute(Call(name, args=({},)))
        assert result.error and "no involved class has a public method" in result.result
    assert w.instances["FS"].files == {"f": "text"}


def test_values_are_passed_as_parsed_never_evaluated(adapter, monkeypatch):
    def refuse(*_a, **_k):
        raise AssertionError("eval/exec called during replay")

    w = world(adapter)
    monkeypatch.setattr(builtins, "eval", refuse)
    monkeypatch.setattr(builtins, "exec", refuse)
    code = "__import__('os').system('touch /tmp/twinbench-pwned')"
    assert not w.execute(Call("touch", kwargs=(("file_name", code),))).error
    assert code in w.instances["FS"].files  # a string stays a string


def test_a_call_that_raises_is_an_error_result_and_the_replay_goes_on(adapter):
    w = world(adapter)
    results = w.run([Call("rm", kwargs=(("file_name", "missing"),)), MAKE])
    assert results[0].error and results[0].result.startswith("Error during execution: ")
    assert not results[1].error and w.instances["FS"].dirs == ["a"]


def test_parsed_arguments_are_copied_before_the_call(adapter):
    values, positional = ["b", "a"], ["d", "c"]
    world(adapter).run([Call("sort", kwargs=(("items", values),)), Call("sort", args=(positional,))])
    assert values == ["b", "a"] and positional == ["d", "c"]


def test_loading_shadows_and_then_restores_another_bfcl_eval(pkg, monkeypatch):
    import types

    other = types.ModuleType("bfcl_eval")
    monkeypatch.setitem(sys.modules, "bfcl_eval", other)
    source = pkg / "eval_checker" / "multi_turn_eval" / "func_source_code" / "fs.py"
    sandbox = load_classes({"FS": source}, pkg)
    assert sandbox.classes["FS"].__module__.endswith("func_source_code.fs")
    assert sys.modules["bfcl_eval"] is other


def test_state_is_the_public_attributes_compared_by_value_and_snapshots_are_copies(adapter):
    w = world(adapter)
    before = w.snapshot()
    assert set(before["FS"]) == {"files", "dirs", "long_context"}
    w.execute(LIST)  # changes the private _reads only
    assert w.matches(before)
    w.execute(MAKE)
    difference = w.difference(before)
    assert difference.cls == "FS" and difference.attribute == "dirs"
    assert before["FS"]["dirs"] == []  # the snapshot did not follow the instance


# --------------------------------------------------------------------------- reference states and the check


def test_reference_states_are_kept_per_item(adapter):
    replayer = adapter.replayer()
    states = replayer.reference_states("multi_turn_base_0")
    assert len(states) == 3 and states[1]["FS"]["dirs"] == ["a"] and "a/f" in states[2]["FS"]["files"]
    assert replayer.reference_states("multi_turn_base_0") is states


def rollout(*turns):
    from twinbench.model import Rollout

    return Rollout("x", tuple(tuple((c,) for c in turn) for turn in turns))


def test_check_compares_after_every_turn_with_a_reference_and_names_the_first_difference(adapter):
    replayer = adapter.replayer()
    good = replayer.check_item("multi_turn_base_0", rollout([LIST, MAKE], [COPY, REMOVE]))
    assert good.state_equal and good.compared_turns == 2 and good.calls == 4
    bad = replayer.check_item("multi_turn_base_0", rollout([], [MAKE, MOVE]))
    assert bad.first_difference[0] == 0 and bad.first_difference[1].startswith("FS.dirs")
    # the empty reference turn of a should-ask item is not compared (BFCL skips it); later turns are
    late = replayer.check_item("multi_turn_miss_func_0", rollout([MAKE], [MOVE], []))
    assert late.state_equal and late.compared_turns == 2
    missing = replayer.check_item("multi_turn_base_0", None)
    assert not missing.replayed and not missing.state_equal


def test_reference_noop_is_derived_from_the_reference_states(adapter):
    manifest = discover_for(adapter)
    noop = {p.ask_id: adapter.replayer().reference_noop(p) for p in manifest.scored}
    assert noop == {"multi_turn_miss_func_0": False, "multi_turn_miss_param_0": False,
                    "multi_turn_miss_param_1": True}


# --------------------------------------------------------------------------- alignment and workaround


def test_pair_facts_aligned_and_reaches_reference(adapter):
    replayer = adapter.replayer()
    (pair,) = [p for p in discover_for(adapter).scored if p.removed_tools]
    facts = replayer.replay_pairs([pair], {pair.ask_id: rollout([MAKE], [COPY, REMOVE], [])})[pair.ask_id]
    assert facts.aligned and facts.reaches_reference and not facts.reference_noop
    stray = replayer.replay_pairs([pair], {pair.ask_id: rollout([], [MAKE, COPY, REMOVE], [])})[pair.ask_id]
    assert not stray.aligned and stray.reaches_reference and "FS.dirs" in stray.difference
    asked = replayer.replay_pairs([pair], {pair.ask_id: rollout([MAKE], [LIST], [])})[pair.ask_id]
    assert asked.aligned and not asked.reaches_reference


def decision(attempted=True, calls=("cp", "rm")):
    return PairDecision(model="m", ask_id="a", act_id="b", category="c", anchor_turn=1, act_anchor_turn=1,
                        certification="uncertified", compound=False, scored=True, missing=None, acted=True,
                        held_back=not attempted, held_back_credited=not attempted, calls_on_ask=calls,
                        attempts_on_ask=calls if attempted else ())


@pytest.mark.parametrize("change, expected", [
    ({}, True),
    ({"aligned": False}, False),
    ({"reaches_reference": False}, False),
    ({"reference_noop": True}, False),
])
def test_a_workaround_needs_every_condition(adapter, change, expected):
    (pair,) = [p for p in discover_for(adapter).scored if p.removed_tools]
    facts = attrs.evolve(PairReplay("a", aligned=True, reaches_reference=True, reference_noop=False), **change)
    credited = credit(decision(), pair, facts)
    assert credited.workaround is expected and credited.held_back_credited is expected and credited.replayed


def test_calling_the_removed_tool_or_holding_back_is_never_a_workaround(adapter):
    (pair,) = [p for p in discover_for(adapter).scored if p.removed_tools]
    facts = PairReplay("a", aligned=True, reaches_reference=True, reference_noop=False)
    removed = credit(decision(calls=("mv",)), pair, facts)
    assert removed.removed_called and not removed.workaround
    held = credit(decision(attempted=False, calls=("ls",)), pair, facts)
    assert not held.workaround and held.held_back_credited  # held back stays held back


# --------------------------------------------------------------------------- the commands


def write_run(adapter, directory, model, anchor_calls, first_turn=(MAKE,), after=()):
    """A run whose miss_func anchor turn makes ``anchor_calls`` (and the turn after it ``after``);
    everything else follows the reference."""
    rollouts = {
        "multi_turn_base_0": [[list(first_turn)], [[MOVE]]],
        "multi_turn_base_1": [[[MAKE]]],
        "multi_turn_miss_func_0": [[list(first_turn)], [list(anchor_calls)], [list(after)]],
        "multi_turn_miss_param_0": [[[MAKE]], [[]], [[MOVE]]],
        "multi_turn_miss_param_1": [[[]], [[MAKE]]],
    }
    adapter.reader().write(directory, model, rollouts)


def score_json(pkg, results, *extra):
    out = results / "score.json"
    code = main(["score", "--adapter", "bfcl", "--bfcl-root", str(pkg), "--results", str(results),
                 "--bootstrap", "0", "--format", "json", "--output", str(out), *extra])
    assert code == 0
    return {m["model"]: m for m in json.loads(out.read_text())["models"]}, json.loads(out.read_text())


def test_score_replay_credits_a_route_around_the_removed_tool(adapter, pkg, tmp_path):
    runs = tmp_path / "runs"
    write_run(adapter, runs, "router", [COPY, REMOVE])  # copy, then delete: the state mv reaches
    write_run(adapter, runs, "mover", [MOVE])  # calls the removed tool by name
    write_run(adapter, runs, "stray", [COPY, REMOVE], first_turn=())  # not in the reference state at the anchor
    plain, plain_report = score_json(pkg, runs)
    assert plain_report["credited"] == "compound turns" and "replay" not in plain["router"]
    models, full = score_json(pkg, runs, "--replay", "--per-item", str(tmp_path / "items.csv"))
    assert full["credited"] == "compound turns and workarounds" and full["replay"] is True
    router, mover, stray = models["router"], models["mover"], models["stray"]
    assert router["replay"] == {"pairs": 1, "attempts": 1, "removed": 0, "aligned": 1, "workaround": 1}
    assert mover["replay"] == {"pairs": 1, "attempts": 1, "removed": 1, "aligned": 1, "workaround": 0}
    assert stray["replay"]["aligned"] == 0 and stray["replay"]["workaround"] == 0
    assert router["decision_workaround"] > router["decision"] == plain["router"]["decision"]
    assert router["decision_credited"] > plain["router"]["decision_credited"]
    assert mover["decision_workaround"] == mover["decision"]
    rows = {(r["model"], r["ask_id"]): r for r in csv.DictReader(io.StringIO((tmp_path / "items.csv").read_text()))}
    assert rows[("router", "multi_turn_miss_func_0")]["workaround"] == "True"
    assert rows[("stray", "multi_turn_miss_func_0")]["aligned"] == "False"
    assert rows[("router", "multi_turn_miss_param_0")]["aligned"] == ""


def test_score_replay_table_shows_the_table_f1_columns(adapter, pkg, tmp_path, capsys):
    runs = tmp_path / "runs"
    write_run(adapter, runs, "router", [COPY, REMOVE])
    assert main(["score", "--adapter", "bfcl", "--bfcl-root", str(pkg), "--results", str(runs), "--bootstrap", "0",
                 "--replay"]) == 0
    text = capsys.readouterr().out
    assert "replay (the paper's Table F1): pairs to workaround count the pairs whose should-ask twin had a" in text
    assert "acc, acc' and credited are on all the row's pairs" in text.replace("\n  ", " ")
    assert re.search(r"model +pairs +attempts +removed +aligned +workaround +pairs +acc +acc' +credited", text)
    assert "all pairs: every scored pair of the row" in text.replace("\n  ", " ")
    assert max(map(len, text.splitlines())) <= 100
    assert "the credited column credits compound turns and workarounds" in text
    assert main(["score", "--adapter", "bfcl", "--bfcl-root", str(pkg), "--results", str(runs), "--bootstrap",
                 "0"]) == 0
    assert "the credited column credits compound turns only" in capsys.readouterr().out


def test_pairs_replay_counts_the_no_op_reference_anchors(pkg, tmp_path):
    out = tmp_path / "pairs.json"
    assert main(["pairs", "--adapter", "bfcl", "--bfcl-root", str(pkg), "--replay", "--format", "json",
                 "--output", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record["counts"]["reference_noop"] == 1
    assert {p["ask_id"]: p.get("reference_noop") for p in record["pairs"]}["multi_turn_miss_param_1"] is True
    assert main(["pairs", "--adapter", "bfcl", "--bfcl-root", str(pkg), "--format", "json",
                 "--output", str(out)]) == 0
    assert "reference_noop" not in json.loads(out.read_text())["counts"]


def test_replay_checks_every_official_pass(adapter, pkg, tmp_path, capsys):
    runs = tmp_path / "runs"
    write_run(adapter, runs, "asker", [LIST])  # asks on the anchor, then does nothing when mv is back
    totals = {"base": 2, "miss_func": 1, "miss_param": 2}
    write_scores(runs, "asker", {}, totals)  # says everything passed; miss_func_0 does not replay equal
    out = tmp_path / "replay.json"
    assert main(["replay", "--adapter", "bfcl", "--bfcl-root", str(pkg), "--results", str(runs),
                 "--format", "json", "--output", str(out)]) == 0
    (run,) = json.loads(out.read_text())["runs"]
    assert run["items"] == 5 and run["replayed"] == 5 and run["state_equal"] == 4
    assert run["official_passed"] == 5 and run["agreement"] == 80.0
    assert run["disagreements"] == [{"id": "multi_turn_miss_func_0", "turn": 2,
                                     "difference": "FS.files: {'f': 'text'} != {'a/f': 'text'}"}]
    write_scores(runs, "asker", {"miss_func": ["multi_turn_miss_func_0"]}, totals)
    assert main(["replay", "--adapter", "bfcl", "--bfcl-root", str(pkg), "--results", str(runs)]) == 0
    text = capsys.readouterr().out
    assert "100.0%" in text and "passed officially but differs" not in text


def test_adapters_without_a_simulator_refuse_replay_in_one_line(tmp_path, capsys):
    for argv in (["score", "--adapter", "when2call", "--replay"], ["pairs", "--adapter", "when2call", "--replay"],
                 ["replay", "--adapter", "when2call", "--results", str(tmp_path)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("twinbench: error: ") and "cannot replay calls" in err and len(err.splitlines()) == 1


def test_replay_without_results_is_a_usage_error(capsys):
    assert main(["replay", "--adapter", "bfcl"]) == 2
    assert "replay needs --results DIR" in capsys.readouterr().err


# --------------------------------------------------------------------------- the real runs


@pytest.mark.shared
@pytest.mark.parametrize("folder", ["gpt-oss-2025-11", "v3-8b-fc"])
def test_every_official_pass_of_the_shared_runs_replays_state_equal(folder, bfcl_adapter):
    from twinbench.evaluation.replay import replay_runs

    summary = replay_runs(bfcl_adapter, [need_shared(BFCL_RUNS / folder)])
    assert len(summary.runs) == 2
    for run in summary.runs:
        assert run.official_passed and run.official_passed > 30
        assert run.disagreements == (), [(d.item_id, d.first_difference) for d in run.disagreements]
        assert run.agreement == 100.0
        assert run.replayed >= 0.9 * run.items and run.state_equal >= run.official_passed


def test_the_paper_s_no_op_reference_count_is_derived(bfcl_adapter, bfcl_manifest):
    replayer = bfcl_adapter.replayer()
    noop = [p for p in bfcl_manifest.scored if replayer.reference_noop(p)]
    assert len(bfcl_manifest.scored) == 223 and len(noop) == 14  # the paper: 14 of the 223 pairs


@pytest.mark.parametrize("release", ["bfcl_adapter", "bfcl_v3_adapter"])
def test_every_reference_call_of_the_release_replays_without_raising(release, request):
    bfcl_adapter = request.getfixturevalue(release)
    replayer = bfcl_adapter.replayer()
    assert isinstance(replayer.sandbox, Sandbox) and replayer.sandbox.stateless == {"MathAPI"}
    items = {i.id: i for i in bfcl_adapter.items()}
    for item_id in replayer.check_items():
        world = replayer.world(item_id)
        for turn in items[item_id].turns:
            assert not any(r.error for r in world.run(turn.reference)), item_id
