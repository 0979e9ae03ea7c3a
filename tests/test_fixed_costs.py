"""What a command pays before its work, checked as behaviour: the modules it loads, the records it unpickles."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import networkx as nx
from builders import tiny_package
from conftest import REPO
from hypothesis import given, settings
from hypothesis import strategies as st

from twinbench import cache
from twinbench.adapters.bfcl import BFCLAdapter, dataset, run_reader
from twinbench.adapters.bfcl.adapter import _data_file
from twinbench.contract.effects import load_effect_table
from twinbench.evaluation.runs import RECENT_SECONDS
from twinbench.model import Item, Side
from twinbench.model.manifest import _family_graph, family_count

#: what a command must not load on its way: each costs tens of milliseconds and none is needed
NOT_LOADED = ("numpy", "networkx", "yaml", "importlib.metadata", "importlib.abc", "multiprocessing")


#: what a rerun whose decisions are all kept must not load: it reads no run
NOT_LOADED_ON_RERUN = (*NOT_LOADED, "msgspec", "twinbench.reading.step", "twinbench.reading.python_calls", "twinbench.adapters.bfcl.run_reader",
                       "twinbench.adapters.bfcl.result_files", "twinbench.adapters.bfcl.score_files")


def _loaded(argv: list[str], env: dict[str, str], modules: tuple[str, ...] = NOT_LOADED) -> tuple[list[str], str]:
    code = ("import sys, contextlib, io, json\nfrom twinbench.cli import main\nout = io.StringIO()\n"
            "with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):\n"
            "    code = main(%r)\n"
            "print(json.dumps([code, sorted(m for m in %r if m in sys.modules), out.getvalue()]))" % (argv, modules))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env, check=True)
    code, loaded, out = json.loads(done.stdout.strip().splitlines()[-1])
    assert code == 0
    return loaded, out


def test_a_score_without_resampling_and_pairs_load_no_heavy_module_once_the_cache_is_warm(tmp_path):
    release = tiny_package(tmp_path / "rel")
    env = {"TWINBENCH_CACHE": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    results = tmp_path / "runs"
    assert _loaded(["score", "--bfcl-root", str(release), "--bootstrap", "0"], env)[0]  # a cold cache parses
    policies = _loaded(["score", "--bfcl-root", str(release), "--bootstrap", "0", "--format", "json"], env)
    assert policies[0] == []
    assert _loaded(["pairs", "--bfcl-root", str(release)], env)[0] == []
    # a run of one model, read from its files: no worker started, no numpy, no YAML
    from twinbench.adapters.bfcl.runs import write

    adapter = BFCLAdapter(bfcl_root=release)
    write(results, "m", {i.id: [[[]] for _ in i.turns] for i in adapter.items()}, dataset.category_of, "BFCL_v4")
    time.sleep(RECENT_SECONDS + 0.1)  # files this new are always read: let them age, so their decisions are kept
    loaded, out = _loaded(["score", "--bfcl-root", str(release), "--results", str(results), "--bootstrap", "0",
                           "--fresh", "--format", "json"], env)
    assert loaded == [] and json.loads(out)["models"][0]["model"] == "m"
    # the same run again: its decisions are kept, so nothing reads a run (and the output is the same)
    again, out_again = _loaded(["score", "--bfcl-root", str(release), "--results", str(results), "--bootstrap", "0",
                                "--format", "json"], env, NOT_LOADED_ON_RERUN)
    assert again == [] and out_again == out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 12), st.one_of(st.none(), st.integers(0, 4))), max_size=14),
       st.lists(st.tuples(st.integers(0, 15), st.integers(0, 15)), max_size=8))
def test_scenario_families_are_counted_as_networkx_counts_the_components(items, twins):
    from twinbench.model import Certification, CertificationStatus, Pair, PairStatus, Perturbation

    made = {f"i{n}": Item(f"i{n}", "base", Side.ACT, (), family=None if key is None else f"k{key}")
            for n, key in items}
    pairs = [Pair(f"i{a}", f"i{b}", "c", 0, 0, Perturbation.VALUE_REMOVED, (), "mutate", (),
                  Certification(CertificationStatus.CERTIFIED), PairStatus.SCORED, "scored") for a, b in twins]
    assert family_count(list(made.values()), pairs) == nx.number_connected_components(
        _family_graph(list(made.values()), pairs))


def test_the_derived_records_a_command_loads_are_what_the_full_data_gives(tmp_path, monkeypatch):
    monkeypatch.setenv("TWINBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("TWINBENCH_NO_CACHE", raising=False)
    release = tiny_package(tmp_path / "rel")
    cold, warm = BFCLAdapter(bfcl_root=release), BFCLAdapter(bfcl_root=release)
    assert cold.describe() == warm.describe()
    data = cold.data
    assert warm._facts == dataset.DataFacts.of(data)
    assert "data" not in vars(warm)  # the small record was enough: the raw items were never loaded
    assert dict(warm.runs().dialogue) == run_reader.dialogue_of(cold.items())
    assert warm._effect_table == load_effect_table(_data_file("effects.yaml"))
    assert cache.recall("bfcl-effect-table", cache.key_of([_data_file("effects.yaml").read_bytes()])) is not None


def test_workers_are_started_only_for_enough_input_and_on_free_cores(monkeypatch, tmp_path):
    from twinbench.evaluation import workers

    monkeypatch.delenv(workers.WORKERS_ENV, raising=False)
    monkeypatch.setattr(workers, "cores", lambda: 2)
    big, small = workers.PARALLEL_BYTES, workers.PARALLEL_BYTES - 1
    assert workers.workers_for(17, big, free=2) == 2
    assert workers.workers_for(17, small, free=2) == 1  # too little to read: one process
    assert workers.workers_for(17, big, free=1) == 1  # one core busy elsewhere: one process
    assert workers.workers_for(1, big, free=2) == 1
    assert workers.workers_for(3, None, free=2) == 1 and workers.workers_for(4, None, free=2) == 2  # sizes unknown
    monkeypatch.setenv(workers.WORKERS_ENV, "2")
    assert workers.workers_for(17, small, free=0) == 2  # the user decides
    monkeypatch.setenv(workers.WORKERS_ENV, "many")
    assert workers.workers_for(17, big, free=2) == 1
    loadavg = tmp_path / "loadavg"
    loadavg.write_text("3.97 2.10 1.50 3/212 4242\n")
    assert workers.busy_elsewhere(loadavg) == 2  # three runnable, this process one of them
    assert workers.busy_elsewhere(tmp_path / "absent") == 0
    (tmp_path / "a").write_bytes(b"x" * 10)
    assert workers.input_bytes([tmp_path / "a", tmp_path / "a"]) == 20
    assert workers.input_bytes([tmp_path / "a", tmp_path / "b"]) is None


def test_help_loads_no_reader_of_runs():
    code = ("import sys, contextlib, io\nfrom twinbench.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n    try:\n        main(['--help'])\n"
            "    except SystemExit:\n        pass\n"
            "print(sorted(m for m in sys.modules if m in ('msgspec', 'yaml', 'twinbench.reading',"
            " 'twinbench.adapters.bfcl.runs', 'twinbench.adapters.bfcl.dataset')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_a_kept_manifest_takes_its_items_from_the_adapter_when_first_looked_up(tmp_path, monkeypatch):
    import pickle

    from twinbench.discovery import discover_for
    from twinbench.discovery.discover import ItemsOnUse

    monkeypatch.setenv("TWINBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("TWINBENCH_NO_CACHE", raising=False)
    release = tiny_package(tmp_path / "rel")
    made = discover_for(BFCLAdapter(bfcl_root=release))  # computed and kept
    warm = BFCLAdapter(bfcl_root=release)
    kept = discover_for(warm)
    assert isinstance(kept.items, ItemsOnUse) and kept.items._items is None
    assert "_items" not in vars(warm)  # nothing has looked an item up: the adapter's items are not loaded
    assert kept == made and kept.pairs == made.pairs
    assert dict(kept.items) == dict(made.items) and len(kept.items) == len(made.items) > 0
    assert "_items" in vars(warm)
    some = next(iter(made.items))
    assert some in kept.items and kept.items[some] == made.items[some]
    assert pickle.loads(pickle.dumps(kept.items)) == dict(made.items)  # a plain dict once pickled


def test_reading_runs_with_the_collector_paused_and_gives_it_back(tmp_path, monkeypatch):
    import gc

    from twinbench import gc_pause
    from twinbench.evaluation import runs as evaluation_runs

    seen = []
    real = evaluation_runs.decide

    def spy(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(evaluation_runs, "decide", spy)
    monkeypatch.setenv("TWINBENCH_NO_CACHE", "1")
    release = tiny_package(tmp_path / "rel")
    adapter = BFCLAdapter(bfcl_root=release)
    from twinbench.adapters.bfcl.runs import write

    write(tmp_path / "runs", "m", {i.id: [[[]] for _ in i.turns] for i in adapter.items()}, dataset.category_of,
          "BFCL_v4")
    frozen = gc.get_freeze_count()
    assert gc.isenabled()
    evaluation_runs.evaluate(adapter, adapter.reader().find([tmp_path / "runs"]).runs)
    assert seen == [False] and gc.isenabled()
    assert gc.get_freeze_count() == frozen  # a caller's process: nothing frozen
    with gc_pause.collector_paused():
        with gc_pause.collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # a nested pause keeps it paused
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_pause.collector_paused():
            pass
        assert not gc.isenabled()  # a collector the caller had paused stays paused
    finally:
        gc.enable()
    monkeypatch.setattr(gc_pause, "OWN_PROCESS", True)
    survivor = [object() for _ in range(1000)]
    try:
        with gc_pause.collector_paused():
            survivor.append([[] for _ in range(1000)])
        assert gc.get_freeze_count() > frozen  # the command's own process: what survived is frozen
    finally:
        gc.unfreeze()


def test_the_worker_pool_gives_the_frozen_heap_back_as_it_was(tmp_path, monkeypatch):
    """Around its forked workers ``evaluate`` freezes the heap: a caller's process finds nothing frozen
    afterwards, as before; the command line's own process keeps what it froze."""
    import gc

    from test_score import good_lines, write_run

    from twinbench import gc_pause
    from twinbench.evaluation import runs as evaluation_runs

    monkeypatch.setenv("TWINBENCH_NO_CACHE", "1")
    monkeypatch.setenv("TWINBENCH_WORKERS", "2")
    release = tiny_package(tmp_path / "rel")
    adapter = BFCLAdapter(bfcl_root=release)
    for model in ("a", "b"):
        write_run(tmp_path / "runs", model, good_lines())
    found = adapter.reader().find([tmp_path / "runs"]).runs
    assert len(found) == 2 and gc.get_freeze_count() == 0
    evaluation_runs.evaluate(adapter, found)
    assert gc.get_freeze_count() == 0
    monkeypatch.setattr(gc_pause, "OWN_PROCESS", True)
    try:
        evaluation_runs.evaluate(adapter, found)
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_a_command_writing_only_to_standard_output_does_not_list_its_inputs(tmp_path, monkeypatch, capsys):
    """Nothing is written, so nothing needs protecting: the runs' files are not listed (a rerun's
    sixth); with an output file they are, and one of them given as the output is refused."""
    from test_score import good_lines, write_run

    from twinbench.cli import checks, main

    monkeypatch.setenv("TWINBENCH_NO_CACHE", "1")
    release = tiny_package(tmp_path / "rel")
    folder = write_run(tmp_path / "runs", "m", good_lines())
    listed = []
    real = checks.command_inputs
    monkeypatch.setattr(checks, "command_inputs", lambda *a: listed.append(1) or real(*a))
    argv = ["score", "--bfcl-root", str(release), "--results", str(tmp_path / "runs"), "--bootstrap", "0"]
    assert main(argv) == 0 and listed == []
    assert main([*argv, "--output", str(tmp_path / "out.txt")]) == 0 and listed == [1]
    victim = next(folder.glob("*_result.json"))
    assert main([*argv, "--output", str(victim)]) == 2 and listed == [1, 1]
    assert "an input of this command" in capsys.readouterr().err
