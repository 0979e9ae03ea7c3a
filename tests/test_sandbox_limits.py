"""Limits that hold on replay: time per call and per item, memory, number of calls, a run's total.

The model's calls run in a forked child that is killed at its deadline (``twinbench.adapters.bfcl.limits``).
Fast tests run the small simulator of ``builders.replay_package`` with test-only methods that work
in C (``Decimal.sqrt``), allocate, or end the process, under limits of a fraction of a second. The
tests marked ``network`` run BFCL's own MathAPI ``square_root``; the ``shared`` one, a copy of a
real run with a hostile call.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time

import pytest

from builders import replay_package
from conftest import BFCL_RUNS, REPO, need_shared

from twinbench.adapters.bfcl import BFCLAdapter
from twinbench.adapters.bfcl.limits import CALLS, ENDED, MEMORY, RUN, TIME, Limits, run_bounded
from twinbench.adapters.bfcl.replay import BFCLReplayer
from twinbench.cli import main
from twinbench.model import Call, Rollout

SLOW_PRECISION = 1_000_000  # Decimal(2).sqrt() at this precision: about 10 s in C, one bytecode
MAKE = Call("mkdir", kwargs=(("dir_name", "a"),))
MOVE = Call("mv", kwargs=(("source", "f"), ("destination", "a")))
SLOW = Call("crunch", kwargs=(("precision", SLOW_PRECISION),))

EXTRA_METHODS = '''
    def crunch(self, precision):
        import decimal
        decimal.getcontext().prec = precision
        return str(decimal.Decimal(2).sqrt())[:10]

    def hog(self, mib):
        self.buffer = bytearray(mib << 20)
        return len(self.buffer)

    def quit(self):
        import os
        os._exit(3)
'''


@pytest.fixture
def pkg(tmp_path):
    pkg = replay_package(tmp_path / "release")
    source = pkg / "eval_checker" / "multi_turn_eval" / "func_source_code" / "fs.py"
    source.write_text(source.read_text() + EXTRA_METHODS)
    return pkg


@pytest.fixture
def replayer(pkg):
    return BFCLAdapter(bfcl_root=pkg).replayer()


def rollout(item_id, *turns):
    return Rollout(item_id, tuple(tuple((c,) for c in turn) for turn in turns))


def check(replayer, limits, *rollouts):
    replayer.limits = limits
    start = time.perf_counter()
    out = replayer.check({r.item_id: r for r in rollouts}, [r.item_id for r in rollouts])
    return out, time.perf_counter() - start


GOOD = rollout("multi_turn_base_0", [MAKE], [MOVE])  # the reference's calls: state-equal


# --------------------------------------------------------------------------- time


def test_a_slow_call_in_c_is_stopped_at_its_deadline_and_the_next_item_goes_on(replayer):
    slow = rollout("multi_turn_base_1", [MAKE, SLOW, MAKE])
    (stopped, good), wall = check(replayer, Limits(call_seconds=0.5), slow, GOOD)
    assert wall < 0.5 + 1.0  # the call alone takes about 10 s
    assert stopped.error == TIME and not stopped.replayed and not stopped.state_equal
    assert stopped.stopped == f"turn 0, call 2: crunch(precision={SLOW_PRECISION}) stopped after 0.5 s"
    assert good.state_equal and good.calls == 2  # a fresh child replays the items after the stopped one


def test_the_item_deadline_holds_over_many_calls_each_inside_the_call_limit(replayer):
    short = Call("crunch", kwargs=(("precision", 30_000),))  # about 0.1 s each
    many = rollout("multi_turn_base_1", [short] * 30)
    (stopped,), wall = check(replayer, Limits(call_seconds=1.0, item_seconds=0.5), many)
    assert wall < 0.5 + 1.0
    assert stopped.error == TIME and stopped.stopped.endswith("ran past the item's 0.5 s")


def test_the_run_deadline_stops_the_item_running_then_and_skips_the_rest(replayer):
    slow = rollout("multi_turn_base_1", [Call("crunch", kwargs=(("precision", 300_000),))])  # about 1.3 s
    later = rollout("multi_turn_miss_param_1", [], [MAKE])
    replayer.limits = Limits(run_seconds=0.4)
    start = time.perf_counter()
    first, second, missing = replayer.check({r.item_id: r for r in (slow, later)},
                                            [slow.item_id, later.item_id, "multi_turn_base_0"])
    assert time.perf_counter() - start < 0.4 + 1.0
    assert first.error == RUN and first.stopped.endswith("ran past the run's 0.4 s")
    assert second.error == RUN and second.stopped == "was not reached in the run's 0.4 s"
    assert missing.error == RUN and missing.stopped == second.stopped  # an item without a rollout too


# --------------------------------------------------------------------------- memory, calls, a crash


def test_a_call_that_allocates_past_the_memory_limit_is_stopped(replayer):
    hog = rollout("multi_turn_base_1", [Call("hog", kwargs=(("mib", 2048),))])
    (stopped,), _ = check(replayer, Limits(memory_bytes=256 << 20), hog)
    assert stopped.error == MEMORY and stopped.stopped == "turn 0, call 1: hog(mib=2048) allocated past the memory limit"
    (fits,), _ = check(replayer, Limits(memory_bytes=256 << 20), rollout("multi_turn_base_1",
                                                                         [Call("hog", kwargs=(("mib", 64),)), MAKE]))
    assert fits.state_equal


def test_the_number_of_calls_per_item_is_bounded(replayer):
    calls = [Call("ls")] * 4 + [MAKE]
    (within,), _ = check(replayer, Limits(calls=5), rollout("multi_turn_base_1", calls))
    assert within.state_equal and within.calls == 5
    (past,), _ = check(replayer, Limits(calls=5), rollout("multi_turn_base_1", calls + [Call("ls")]))
    assert past.error == CALLS and past.stopped == "turn 0, call 6: ls() is past the bound of 5 calls per item"


def test_a_simulator_that_ends_the_process_stops_only_its_item(replayer):
    (ended, good), _ = check(replayer, Limits(), rollout("multi_turn_base_1", [Call("quit")]), GOOD)
    assert ended.error == ENDED and ended.stopped == "turn 0, call 1: quit() ended the process (exit status 3)"
    assert good.state_equal


def test_run_bounded_returns_results_in_order_and_raises_what_the_work_raises():
    assert run_bounded(lambda x: x * 2, list(range(5)), lambda x, stop: None) == [0, 2, 4, 6, 8]

    def fail(x):
        raise ValueError(f"bad item {x}")

    with pytest.raises(ValueError, match="bad item 0"):
        run_bounded(fail, [0, 1], lambda x, stop: None)


# --------------------------------------------------------------------------- what the outputs say


def write_run(pkg, directory, model, slow_turn):
    adapter = BFCLAdapter(bfcl_root=pkg)
    rollouts = {
        "multi_turn_base_0": [[[MAKE]], [[MOVE]]],
        "multi_turn_base_1": [[list(slow_turn)]],
        "multi_turn_miss_func_0": [[[MAKE]], [list(slow_turn) or [Call("ls")]], [[MOVE]]],
        "multi_turn_miss_param_0": [[[MAKE]], [[]], [[MOVE]]],
        "multi_turn_miss_param_1": [[[]], [[MAKE]]],
    }
    adapter.reader().write(directory, model, rollouts)


def test_replay_reports_a_stopped_item_as_not_replayed_and_leaves_it_out_of_the_passes_checked(
        pkg, tmp_path, monkeypatch, capsys):
    from builders import write_scores

    monkeypatch.setattr(BFCLReplayer, "limits", Limits(call_seconds=0.5))
    runs = tmp_path / "runs"
    write_run(pkg, runs, "hostile", [SLOW])
    write_scores(runs, "hostile", {}, {"base": 2, "miss_func": 1, "miss_param": 2})  # every item passed
    argv = ["replay", "--adapter", "bfcl", "--bfcl-root", str(pkg), "--results", str(runs)]
    start = time.perf_counter()
    assert main([*argv, "--format", "json", "--output", str(tmp_path / "r.json")]) == 0
    assert time.perf_counter() - start < 2 * 0.5 + 2.0  # two slow calls (base_1, miss_func_0 turn 1)
    (run,) = json.loads((tmp_path / "r.json").read_text())["runs"]
    assert run["not_replayed"] == {TIME: 2} and run["replayed"] == 3
    assert run["official_passed"] == 3 and run["agreement"] == 100.0  # the stopped passes are not checked
    assert run["stopped"] == [
        {"id": "multi_turn_base_1", "limit": TIME,
         "where": f"turn 0, call 1: crunch(precision={SLOW_PRECISION}) stopped after 0.5 s"},
        {"id": "multi_turn_miss_func_0", "limit": TIME,
         "where": f"turn 1, call 2: crunch(precision={SLOW_PRECISION}) stopped after 0.5 s"}]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "not replayed: 2 time limit" in text
    assert "stopped at the time limit (not replayed, not checked): multi_turn_base_1 turn 0, call 1" in text


def test_a_run_that_hits_no_limit_has_no_stopped_key(pkg, tmp_path):
    runs = tmp_path / "runs"
    write_run(pkg, runs, "calm", [MAKE])
    assert main(["replay", "--adapter", "bfcl", "--bfcl-root", str(pkg), "--results", str(runs), "--format", "json",
                 "--output", str(tmp_path / "r.json")]) == 0
    (run,) = json.loads((tmp_path / "r.json").read_text())["runs"]
    assert "stopped" not in run and run["not_replayed"] == {}


def test_score_replay_leaves_a_stopped_pair_unscored_for_replay_and_warns(pkg, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(BFCLReplayer, "limits", Limits(call_seconds=0.5))
    runs = tmp_path / "runs"
    write_run(pkg, runs, "hostile", [SLOW])
    out = tmp_path / "score.json"
    assert main(["score", "--adapter", "bfcl", "--bfcl-root", str(pkg), "--results", str(runs), "--bootstrap", "0",
                 "--replay", "--format", "json", "--output", str(out)]) == 0
    (model,) = json.loads(out.read_text())["models"]
    assert model["replay"]["pairs"] == 0  # the one tool-removed pair was stopped: not among the replayed pairs
    err = capsys.readouterr().err
    assert ("hostile: 1 replayed pair(s) stopped at a limit, unscored for replay (no workaround credited): "
            f"multi_turn_miss_func_0 (time limit: turn 1, call 2: crunch(precision={SLOW_PRECISION}) "
            "stopped after 0.5 s)") in err


# --------------------------------------------------------------------------- BFCL's own MathAPI


@pytest.mark.network
def test_bfcls_square_root_at_a_huge_precision_is_stopped_at_the_deadline(bfcl_adapter):
    replayer = bfcl_adapter.replayer()
    item = next(i for i in replayer.check_items() if "MathAPI" in replayer.raw[i].involved_classes)
    hostile = Call("square_root", kwargs=(("number", 2), ("precision", 10 ** 7)))  # minutes in C
    (stopped,), wall = check(replayer, Limits(call_seconds=0.5), rollout(item, [hostile]))
    assert wall < 0.5 + 1.5
    assert stopped.error == TIME and stopped.stopped.endswith("square_root(number=2, precision=10000000) stopped after 0.5 s")


@pytest.mark.shared
def test_a_real_run_with_a_hostile_square_root_is_replayed_in_seconds(tmp_path, monkeypatch):
    source = need_shared(BFCL_RUNS / "gpt-oss-2025-11")
    monkeypatch.setattr(BFCLReplayer, "limits", Limits(call_seconds=0.5))
    one = tmp_path / "one"  # the first model only (both hostile calls go into it): half the time
    for part in ("result", "score"):
        model = min(p for p in (source / part).iterdir() if p.is_dir())
        shutil.copytree(model, one / part / model.name)
    hostile = tmp_path / "hostile"
    subprocess.run([sys.executable, str(REPO / "benchmarks" / "hostile_run.py"), str(one), str(hostile)],
                   check=True, capture_output=True)
    out = tmp_path / "replay.json"
    start = time.perf_counter()
    assert main(["replay", "--results", str(hostile), "--format", "json", "--output", str(out)]) == 0
    assert time.perf_counter() - start < 10  # each call alone runs for minutes
    (run,) = json.loads(out.read_text())["runs"]
    assert run["not_replayed"][TIME] == 2 and run["agreement"] == 100.0
    assert [s["id"] for s in run["stopped"]] == ["multi_turn_base_15", "multi_turn_miss_func_31"]
    assert all("square_root(number=2, precision=10000000) stopped after 0.5 s" in s["where"] for s in run["stopped"])

