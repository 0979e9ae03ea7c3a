"""What makes twinbench fast, checked as behaviour (the timings live in benchmarks/)."""

from __future__ import annotations

import json

import attrs
import os
import shutil
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st
from builders import tiny_package
from conftest import BFCL_RUNS, REPO, need_shared

from twinbench import cache
from twinbench.cli import main
from twinbench.model import Call

HEAVY = ("numpy", "networkx", "polars")


@attrs.frozen
class TaggedCall(Call):
    """An adapter's own record built on a twinbench one (pickled at module level)."""

    tag: str = "t"


@pytest.mark.parametrize("argv", [["--help"], ["adapters"], ["score", "--help"]])
def test_start_up_imports_no_heavy_module(argv):
    code = ("import sys, contextlib, io\nfrom twinbench.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n        main(%r)\n    except SystemExit:\n        pass\n"
            "print(sorted(m for m in %r if m in sys.modules))" % (argv, HEAVY))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_discovery_is_derived_once_and_again_when_the_data_changes(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TWINBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("TWINBENCH_NO_CACHE", raising=False)
    release = tiny_package(tmp_path / "rel")

    def scored() -> int:
        assert main(["pairs", "--bfcl-root", str(release), "--format", "json"]) == 0
        return json.loads(capsys.readouterr().out)["counts"]["scored"]

    assert scored() == 2
    stored = sorted((tmp_path / "cache" / "derived" / "manifest").glob("*.pickle"))
    assert len(stored) == 1
    assert scored() == 2 and sorted((tmp_path / "cache" / "derived" / "manifest").glob("*.pickle")) == stored
    # the miss_func item loses its reference call on the anchor's next turn: a changed release is re-analysed
    data = release / "data" / "possible_answer" / "BFCL_v4_multi_turn_miss_func.json"
    data.write_text(json.dumps({"id": "multi_turn_miss_func_0", "ground_truth": [[], ["ls()"]]}) + "\n")
    assert scored() == 1
    assert len(list((tmp_path / "cache" / "derived" / "manifest").glob("*.pickle"))) == 2


def test_a_damaged_cache_file_is_recomputed(tmp_path, monkeypatch):
    monkeypatch.setenv("TWINBENCH_CACHE", str(tmp_path))
    monkeypatch.delenv("TWINBENCH_NO_CACHE", raising=False)
    assert cache.cached("k", "x", lambda: [1]) == [1]
    (tmp_path / "derived" / "k" / "x.pickle").write_bytes(b"not a pickle")
    assert cache.cached("k", "x", lambda: [2]) == [2]
    monkeypatch.setenv("TWINBENCH_NO_CACHE", "1")
    assert cache.cached("k", "x", lambda: [3]) == [3]


@pytest.mark.shared
def test_only_the_scored_turns_are_read_unless_all_turns(capsys, bfcl_adapter):
    runs = need_shared(BFCL_RUNS / "gpt-oss-2025-11")

    def unread(*extra):
        assert main(["score", "--results", str(runs), "--bootstrap", "0", "--format", "json", *extra]) == 0
        models = {m["model"]: m for m in json.loads(capsys.readouterr().out)["models"]}
        return models["openai_gpt-oss-20b"]

    default, everything = unread(), unread("--all-turns")
    assert everything["unread"]["counts"]["leaked_template_tokens"] == 228
    assert everything["unread"]["scope"] == "every turn" and default["unread"]["scope"] == "the turns scored"
    assert 0 < default["unread"]["counts"]["leaked_template_tokens"] < 228
    for key in ("act", "hold", "decision", "coverage"):  # reading more turns changes no decision
        assert default[key] == everything[key]


def test_only_the_anchor_turns_are_read_and_the_earlier_ones_for_same_history():
    from builders import item

    from twinbench.evaluation.runs import turns_needed
    from twinbench.model import Side

    base = item("b", "base", Side.ACT, [("a", ["ls()"]), ("b", ["mkdir(dir_name='x')"]), ("c", ["ls()"])])
    pairs = [attrs.evolve(_pair(), ask_id="q", act_id="b", anchor_turn=2, act_anchor_turn=1)]
    assert turns_needed(pairs) == {"b": frozenset({1}), "q": frozenset({2})}
    assert turns_needed(pairs, history=True) == {"b": frozenset({0, 1}), "q": frozenset({0, 1, 2})}
    assert turns_needed(pairs, all_turns=[base])["b"] == frozenset({0, 1, 2})


def _pair():
    from twinbench.model import Certification, CertificationStatus, Pair, PairStatus, Perturbation

    return Pair("q", "b", "c", 0, 0, Perturbation.VALUE_REMOVED, (), "mutate", (),
                Certification(CertificationStatus.CERTIFIED), PairStatus.SCORED, "scored")


@pytest.mark.shared
def test_the_fast_line_decoder_reads_what_json_reads(monkeypatch):
    """Every entry of every shared result and score file is the same through msgspec and through json."""
    from twinbench.adapters.bfcl import result_files, score_files

    files = sorted(need_shared(BFCL_RUNS).rglob("BFCL_*_result.json"))[:6]
    scores = sorted(BFCL_RUNS.rglob("BFCL_*_score.json"))[:4]
    fast = [result_files.read_result_file(f) for f in files], [score_files.read_score_file(f) for f in scores]
    monkeypatch.setattr(result_files, "_result_fields", _refuse)
    monkeypatch.setattr(score_files, "_score_fields", _refuse)
    slow = [result_files.read_result_file(f) for f in files], [score_files.read_score_file(f) for f in scores]
    assert [r.entries for r in fast[0]] == [r.entries for r in slow[0]]
    assert [(s.failed, s.failure_turns, s.model_names) for s in fast[1]] == \
        [(s.failed, s.failure_turns, s.model_names) for s in slow[1]]


def _refuse(line, *args):
    raise ValueError("the stdlib path")


def test_the_bootstrap_in_blocks_of_models_gives_the_same_intervals_and_shares(tmp_path, monkeypatch, capsys):
    """Resampling a few models at a time (flat memory in N) changes no interval and no rank-1 share."""
    from twinbench.evaluation import summary

    release = tiny_package(tmp_path / "rel")

    def scored(block: int) -> list[dict]:
        monkeypatch.setattr(summary, "BOOTSTRAP_BLOCK", block)
        assert main(["score", "--bfcl-root", str(release), "--bootstrap", "500", "--format", "json"]) == 0
        return json.loads(capsys.readouterr().out)["models"]

    whole, one_by_one = scored(1000), scored(1)
    assert len(whole) >= 3 and any(m["ci"] for m in whole) and any(m["rank1"] for m in whole)
    assert [(m["ci"], m["rank1"]) for m in one_by_one] == [(m["ci"], m["rank1"]) for m in whole]


@given(st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=30),
       st.booleans(), st.integers(1, 17))
def test_the_chunked_line_reader_gives_the_lines_file_iteration_gives(lines, final_newline, chunk):
    """Lines across chunk boundaries, longer than a chunk, empty, and a last line without its newline."""
    import io

    from twinbench.adapters.bfcl import lines as results

    data = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    old, results._CHUNK_BYTES = results._CHUNK_BYTES, chunk
    try:
        assert list(results._lines(io.BytesIO(data))) == list(io.BytesIO(data))
    finally:
        results._CHUNK_BYTES = old


def test_a_rerun_takes_an_unchanged_runs_decisions_from_the_cache(tmp_path, monkeypatch, capsys):
    """Kept decisions: used while the run's files are unchanged, never for a changed or a fresh
    file, not with --fresh, not for the reference policies; the output is the same either way."""
    from test_score import good_lines, write_run

    from twinbench.adapters.bfcl.runs import BFCLRuns
    from twinbench.evaluation import runs as evaluate

    monkeypatch.setenv("TWINBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("TWINBENCH_NO_CACHE", raising=False)
    monkeypatch.setenv("TWINBENCH_WORKERS", "1")
    release = tiny_package(tmp_path / "rel")
    reads = []
    original = BFCLRuns.read
    monkeypatch.setattr(BFCLRuns, "read", lambda self, run, ids: reads.append(run.model) or original(self, run, ids))
    kept = tmp_path / "cache" / "derived" / evaluate.DECISIONS

    def scored(*extra) -> tuple[dict, str]:
        assert main(["score", "--bfcl-root", str(release), "--results", str(tmp_path / "runs"), "--bootstrap", "0",
                     "--format", "json", *extra]) == 0
        out = capsys.readouterr()
        return json.loads(out.out)["models"], out.err

    monkeypatch.setattr(evaluate, "RECENT_SECONDS", 0.0)
    assert main(["score", "--bfcl-root", str(release), "--bootstrap", "0", "--format", "json"]) == 0
    capsys.readouterr()
    assert not kept.exists() and len(reads) == 3  # the reference policies are written anew: nothing kept
    reads.clear()
    monkeypatch.setattr(evaluate, "RECENT_SECONDS", 2.0)
    write_run(tmp_path / "runs", "m", good_lines())
    first = scored()
    assert reads == ["m"] and not kept.exists()  # files written just now are read every time
    scored()
    assert reads == ["m", "m"]

    monkeypatch.setattr(evaluate, "RECENT_SECONDS", 0.0)
    assert scored() == first and reads == ["m"] * 3 and len(list(kept.iterdir())) == 1
    assert scored() == first and reads == ["m"] * 3  # unchanged: not read again
    from twinbench.adapters.bfcl import BFCLAdapter

    loaded = []
    items = BFCLAdapter.items
    monkeypatch.setattr(BFCLAdapter, "items", lambda self: loaded.append(1) or items(self))
    assert scored() == first and not loaded  # nor are the release's items loaded for the reader
    monkeypatch.setattr(BFCLAdapter, "items", items)
    shutil.rmtree(kept)
    assert scored("--fresh") == first and reads == ["m"] * 4  # read all the same, and kept again
    assert scored() == first and reads == ["m"] * 4 and len(list(kept.iterdir())) == 1
    assert scored("--replay") and reads == ["m"] * 5 and len(list(kept.iterdir())) == 1  # replays: made each time
    write_run(tmp_path / "runs", "m", good_lines(base_step="Which name?"))  # the run changes: read again
    (changed,), _ = scored()
    assert reads == ["m"] * 6 and changed["act"] == 0.0 and first[0][0]["act"] == 100.0


def test_runs_read_by_workers_are_kept_by_them_and_not_read_again(tmp_path, monkeypatch, capsys):
    """Two forked workers read two runs and keep their decisions; the rerun reads neither, the same output."""
    from test_score import good_lines, write_run

    from twinbench.evaluation import runs as evaluate

    monkeypatch.setenv("TWINBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("TWINBENCH_NO_CACHE", raising=False)
    monkeypatch.setenv("TWINBENCH_WORKERS", "2")
    monkeypatch.setattr(evaluate, "RECENT_SECONDS", 0.0)
    release = tiny_package(tmp_path / "rel")
    for model in ("a", "b"):
        write_run(tmp_path / "runs", model, good_lines())
    computed = []
    original = evaluate._compute
    monkeypatch.setattr(evaluate, "_compute", lambda jobs, *rest: computed.append(len(jobs)) or original(jobs, *rest))
    argv = ["score", "--bfcl-root", str(release), "--results", str(tmp_path / "runs"), "--bootstrap", "0",
            "--format", "json"]
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)["models"]
    kept = tmp_path / "cache" / "derived" / evaluate.DECISIONS
    assert computed == [2] and len(list(kept.glob("*.pickle"))) == 2  # each worker stored what it decided
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["models"] == first and computed == [2, 0]


def test_cache_files_unused_for_a_month_are_removed_at_most_once_a_day(tmp_path, monkeypatch):
    import time

    monkeypatch.setenv("TWINBENCH_CACHE", str(tmp_path))
    monkeypatch.delenv("TWINBENCH_NO_CACHE", raising=False)
    derived = tmp_path / "derived"
    month = (cache.UNUSED_DAYS + 1) * 86400
    cache.remember("k", "old", 1)
    cache.remember("k", "used", 2)
    for name in ("old", "used"):
        os.utime(derived / "k" / f"{name}.pickle", (time.time() - month,) * 2)
    os.utime(derived / ".last-pruned", (time.time() - 2 * 86400,) * 2)
    assert cache.recall("k", "used") == 2  # using a file makes it recent
    cache.remember("k", "new", 3)  # storing looks for unused files: more than a day since the last look
    assert sorted(p.stem for p in (derived / "k").iterdir()) == ["new", "used"]
    cache.remember("k", "old", 1)
    os.utime(derived / "k" / "old.pickle", (time.time() - month,) * 2)
    cache.remember("k", "newer", 4)  # looked less than a day ago: nothing removed
    assert (derived / "k" / "old.pickle").exists()


def test_the_records_carried_by_the_thousand_pickle_as_constructor_calls():
    """Call, Turn, Item, Certification, Pair and PairDecision load through their __init__ (fast), unchanged."""
    import pickle

    from builders import item

    from twinbench.model import Certification, PairDecision, Side

    built = item("b", "base", Side.ACT, [("move a", ["mv(source='a', destination='b')"])])
    decision = PairDecision("m", "q", "b", "miss_param", 1, 1, "certified", True, True, None, acted=True,
                            held_back=False, calls_on_ask=("mv",), act_attempt_calls=(Call("mv", (1,), (("x", 2),)),))
    for record in (built, built.turns[0], built.turns[0].reference[0], _pair(), _pair().certification,
                   Certification(_pair().certification.status, "r", True, ("ls",), ()), decision):
        assert record.__reduce__()[0] is type(record)
        assert pickle.loads(pickle.dumps(record)) == record
    tagged = TaggedCall("mv", (), (), "x")  # an adapter's own record built on one keeps its class and fields
    assert pickle.loads(pickle.dumps(tagged)) == tagged and type(pickle.loads(pickle.dumps(tagged))) is TaggedCall


def test_reading_and_deciding_import_no_numpy(tmp_path):
    """Only the summary needs numpy: it is imported while the workers read, not before them."""
    release = tiny_package(tmp_path / "rel")
    code = f"""
import sys, tempfile
from pathlib import Path
from twinbench.adapters.bfcl import BFCLAdapter
from twinbench.discovery import discover_for
from twinbench.evaluation.runs import evaluate
from twinbench.evaluation.score import policy_runs
adapter = BFCLAdapter(bfcl_root=Path({str(release)!r}))
manifest = discover_for(adapter)
evaluation = evaluate(adapter, policy_runs(adapter, Path(tempfile.mkdtemp()), manifest), reuse=False)
assert len(evaluation.runs) == 3
print("numpy" in sys.modules)
"""
    env = {**os.environ, "TWINBENCH_WORKERS": "1", "TWINBENCH_CACHE": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env, check=True)
    assert out.stdout.strip().splitlines()[-1] == "False"


def test_the_bfcl_cache_key_covers_every_release_file_scoring_and_replay_read(tmp_path, monkeypatch):
    """The initial states, the function docs, the constants and every simulator module key the cache."""
    from twinbench.adapters.bfcl import BFCLAdapter

    monkeypatch.setenv("TWINBENCH_CACHE", str(tmp_path / "cache"))
    release = tiny_package(tmp_path / "rel")
    simulators = release / "eval_checker" / "multi_turn_eval" / "func_source_code"
    question = release / "data" / "BFCL_v4_multi_turn_miss_func.json"
    docs = release / "data" / "multi_turn_func_doc" / "fs.json"
    edits = [
        (question, question.read_text().replace('"initial_config": {}', '"initial_config": {"FS": {"x": 1}}')),
        (docs, docs.read_text() + json.dumps({"name": "rm"}) + "\n"),
        (release / "constants" / "other.py", "STATELESS_CLASSES = []\n"),
        (simulators / "fs_defaults.py", "DEFAULT_STATE = {}\n"),  # a module the class file imports
    ]
    for path, text in edits:
        before = BFCLAdapter(bfcl_root=release).cache_key()
        path.write_text(text)
        assert BFCLAdapter(bfcl_root=release).cache_key() != before, path



def test_the_code_fingerprint_follows_the_source_and_data_files_not_the_bytecode(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub" / "__pycache__").mkdir(parents=True)
    (package / "a.py").write_text("x = 1\n")
    (package / "sub" / "effects.yaml").write_text("k: v\n")
    (package / "sub" / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    first = cache.fingerprint_of(str(package))
    (package / "sub" / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\1\2")
    (package / "notes.txt").write_text("not code")
    assert cache.fingerprint_of(str(package)) == first
    (package / "a.py").write_text("x = 2\n")
    assert cache.fingerprint_of(str(package)) != first
    (package / "a.py").write_text("x = 1\n")
    (package / "sub" / "effects.yaml").write_text("k: w\n")
    assert cache.fingerprint_of(str(package)) != first
    (package / "sub" / "effects.yaml").write_text("k: v\n")
    assert cache.fingerprint_of(str(package)) == first
    (package / "sub" / "b.py").write_text("")
    assert cache.fingerprint_of(str(package)) != first  # a new module counts, even an empty one
