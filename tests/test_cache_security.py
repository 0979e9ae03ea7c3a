"""The cache cannot be turned against its user, and any number of processes can share it.

Each test plays an attacker who can write into the cache (a forged or flipped file, a planted
link, a loose folder, a changed simulator module, a planted bytecode file) or several runs
started at once on an empty cache, and checks the outcome: refused with one message, or
recomputed with one warning, never loaded, never written through, never a failed run.
"""

from __future__ import annotations

import importlib.util
import json
import marshal
import os
import pickle
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builders import tiny_package, write_wheel
from test_score import good_lines, write_run

from twinbench import cache
from twinbench.adapters.bfcl import release as rel
from twinbench.cli import main
from twinbench.errors import AdapterError

HERE = Path(__file__).resolve().parent


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """An empty cache and a key of this test's own; no installed bfcl-eval."""
    monkeypatch.setenv("TWINBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TWINBENCH_CACHE_KEY_FILE", str(tmp_path / "config" / "cache-key"))
    for name in ("TWINBENCH_NO_CACHE", "TWINBENCH_SHARED_CACHE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(rel, "installed_package", lambda release: None)
    return tmp_path / "cache"


def fetcher(count: list | None = None):
    def fetch(release: str, into: Path) -> Path:
        if count is not None:
            count.append(release)
        return write_wheel(tiny_package(into / "staging"), into / f"bfcl_eval-{release}-py3-none-any.whl", release)
    return fetch


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, out.out, out.err


def stored(root: Path, kind: str) -> list[Path]:
    return sorted((root / "derived" / kind).glob("*.pickle"))


class Planted:
    """A pickle that runs a command when it is loaded (here: it creates a file)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


# -- sealed files ---------------------------------------------------------------------------

def test_a_forged_pickle_is_never_loaded_and_is_recomputed_with_one_warning(private_cache, tmp_path, capsys):
    marker = tmp_path / "the-forged-pickle-ran"
    assert cache.cached("k", "x", lambda: [1]) == [1]
    path = stored(private_cache, "k")[0]
    path.write_bytes(pickle.dumps(Planted(marker)))  # what an attacker with write access puts there
    assert cache.cached("k", "x", lambda: [2]) == [2]
    err = capsys.readouterr().err.strip().splitlines()
    assert not marker.exists()  # never unpickled
    assert len(err) == 1 and err[0].startswith("twinbench: warning: the cache file ") and str(path) in err[0]
    assert "integrity check" in err[0]
    assert cache.recall("k", "x") == [2] and capsys.readouterr().err == ""  # replaced by a sealed file


def test_a_sealed_file_is_bound_to_its_name_and_to_the_key(private_cache, tmp_path, monkeypatch, capsys):
    cache.remember("k", "a", "value of a")
    cache.remember("k", "b", "value of b")
    a, b = (private_cache / "derived" / "k" / f"{n}.pickle" for n in "ab")
    b.write_bytes(a.read_bytes())  # a file sealed by the user, moved under another name
    assert cache.recall("k", "b") is None and "integrity check" in capsys.readouterr().err
    monkeypatch.setenv("TWINBENCH_CACHE_KEY_FILE", str(tmp_path / "another-key"))  # another user's key
    assert cache.recall("k", "a") is None and "integrity check" in capsys.readouterr().err


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_any_flipped_bit_or_truncation_is_caught(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("flips")
    env = {"TWINBENCH_CACHE": str(folder / "cache"), "TWINBENCH_CACHE_KEY_FILE": str(folder / "key")}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        value = {"act": [1, 0, 1], "ids": ("multi_turn_base_0", "multi_turn_miss_param_0")}
        cache.remember("k", "x", value)
        path = folder / "cache" / "derived" / "k" / "x.pickle"
        raw = bytearray(path.read_bytes())
        if data.draw(st.booleans(), label="truncate"):
            damaged = bytes(raw[: data.draw(st.integers(0, len(raw) - 1), label="length")])
        else:
            bit = data.draw(st.integers(0, len(raw) * 8 - 1), label="bit")
            raw[bit // 8] ^= 1 << (bit % 8)
            damaged = bytes(raw)
        path.write_bytes(damaged)
        assert cache.recall("k", "x", "recomputed") == "recomputed"
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_a_flipped_bit_in_kept_decisions_never_changes_a_score(private_cache, tmp_path, monkeypatch, capsys):
    from twinbench.evaluation import runs as evaluate

    monkeypatch.setattr(evaluate, "RECENT_SECONDS", 0.0)
    monkeypatch.setenv("TWINBENCH_WORKERS", "1")
    release = tiny_package(tmp_path / "rel")
    write_run(tmp_path / "runs", "m", good_lines())
    argv = ["score", "--bfcl-root", release, "--results", tmp_path / "runs", "--bootstrap", "0", "--format", "json"]
    code, first, err = run_cli(capsys, *argv)
    assert code == 0 and err == ""
    (kept,) = stored(private_cache, evaluate.DECISIONS)
    sealed = kept.read_bytes()
    for position in range(0, len(sealed), max(1, len(sealed) // 40)):
        flipped = bytearray(sealed)
        flipped[position] ^= 0x10
        kept.write_bytes(bytes(flipped))
        code, out, err = run_cli(capsys, *argv)
        assert code == 0 and out == first, position
        assert len(err.splitlines()) == 1 and "integrity check" in err and str(kept) in err, position
        kept.write_bytes(sealed)


# -- folders and links ------------------------------------------------------------------------

def test_new_cache_folders_and_files_are_the_users_alone(private_cache, tmp_path, capsys):
    umask = os.umask(0o022)  # the usual umask: what twinbench makes is 0700/0600 all the same
    try:
        rel.locate("9.9.9", fetcher=fetcher(), log=lambda m: None)
        assert run_cli(capsys, "score", "--bfcl-release", "9.9.9", "--bootstrap", "0")[0] == 0
    finally:
        os.umask(umask)
    paths = [private_cache, *private_cache.rglob("*"), *(tmp_path / "config").rglob("*")]
    assert any(p.name == "cache-key" for p in paths) and any(p.suffix == ".lock" for p in paths)
    assert any(p.name == "fs.py" for p in paths) and any(p.suffix == ".pickle" for p in paths)
    loose = {str(p): oct(p.lstat().st_mode) for p in paths if stat.S_IMODE(p.lstat().st_mode) & 0o077}
    assert loose == {}
    assert not (private_cache / "cache-key").exists()  # the key lives outside the cache


@pytest.mark.parametrize("where", ["root", "derived", "kind", "release"])
@pytest.mark.parametrize("how", ["group-writable", "world-writable", "another owner"])
def test_a_cache_folder_someone_else_can_write_is_refused(private_cache, tmp_path, capsys, monkeypatch, where, how):
    release = tiny_package(tmp_path / "rel")
    argv = ["pairs", "--bfcl-root", release] if where != "release" else ["pairs", "--bfcl-release", "9.9.9"]
    if where == "release":
        rel.locate("9.9.9", fetcher=fetcher(), log=lambda m: None)
    else:
        assert run_cli(capsys, *argv)[0] == 0
    folder = {"root": private_cache, "derived": private_cache / "derived",
              "kind": private_cache / "derived" / "manifest",
              "release": private_cache / "bfcl-eval" / "9.9.9" / "bfcl_eval" / "data"}[where]
    if how == "another owner":
        real = os.geteuid()
        monkeypatch.setattr(os, "geteuid", lambda: real + 4242)  # the folders now belong to someone else
    else:
        folder.chmod(folder.stat().st_mode | (0o020 if how == "group-writable" else 0o002))
    code, out, err = run_cli(capsys, *argv)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("twinbench: error: the twinbench cache ")
    assert "is not safe to use" in lines[0] and "TWINBENCH_SHARED_CACHE" in lines[0]
    assert (str(private_cache) if how == "another owner" else str(folder)) in lines[0]


def test_a_team_cache_may_be_group_writable_never_world_writable(private_cache, tmp_path, capsys, monkeypatch):
    release = tiny_package(tmp_path / "rel")
    private_cache.mkdir(mode=0o770)
    private_cache.chmod(0o770)
    monkeypatch.setenv("TWINBENCH_SHARED_CACHE", "1")
    monkeypatch.delenv("TWINBENCH_CACHE_KEY_FILE")
    code, _, err = run_cli(capsys, "pairs", "--bfcl-root", release)
    assert code == 2 and "TWINBENCH_CACHE_KEY_FILE" in err  # a team cache needs the team's key
    team_key = tmp_path / "team" / "twinbench-key"
    team_key.parent.mkdir(mode=0o750)
    team_key.write_bytes(os.urandom(32))
    team_key.chmod(0o640)
    monkeypatch.setenv("TWINBENCH_CACHE_KEY_FILE", str(team_key))
    assert run_cli(capsys, "pairs", "--bfcl-root", release) == run_cli(capsys, "pairs", "--bfcl-root", release)
    made = [p for p in private_cache.rglob("*") if p.is_dir()]
    assert made and all(stat.S_IMODE(p.stat().st_mode) & 0o070 == 0o070 for p in made)  # the team can write
    assert all(stat.S_IMODE(p.stat().st_mode) & 0o007 == 0 for p in private_cache.rglob("*"))  # nobody else
    (private_cache / "derived").chmod(0o777)
    code, _, err = run_cli(capsys, "pairs", "--bfcl-root", release)
    assert code == 2 and "is writable by every user" in err


def test_a_link_below_the_cache_root_is_never_followed(private_cache, tmp_path, capsys):
    release = tiny_package(tmp_path / "rel")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (private_cache / "derived").mkdir(parents=True)
    (private_cache / "derived" / "manifest").symlink_to(elsewhere)
    code, _, err = run_cli(capsys, "pairs", "--bfcl-root", release)
    assert code == 2 and "is a symbolic link" in err and list(elsewhere.iterdir()) == []


def test_a_link_planted_at_a_cache_file_is_replaced_not_written_through(private_cache, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    cache.remember("k", "x", 1)
    path = stored(private_cache, "k")[0]
    path.unlink()
    path.symlink_to(victim)
    assert cache.cached("k", "x", lambda: 2) == 2
    assert victim.read_text() == "precious" and not path.is_symlink()


def test_a_dangling_link_at_the_prune_marker_creates_nothing_elsewhere(private_cache, tmp_path):
    cache.remember("k", "x", 1)
    marker = private_cache / "derived" / ".last-pruned"
    target = tmp_path / "planted" / "created-by-the-victim"
    target.parent.mkdir()
    marker.unlink()
    marker.symlink_to(target)
    cache.remember("k", "y", 2)  # storing prunes (the marker says nothing about the last look)
    assert not target.exists() and marker.is_file() and not marker.is_symlink()


# -- the key --------------------------------------------------------------------------------

def test_the_key_is_made_once_outside_the_cache_and_must_be_the_users_alone(private_cache, tmp_path, capsys,
                                                                              monkeypatch):
    from twinbench import cache_guard

    cache.remember("k", "x", 1)
    key = tmp_path / "config" / "cache-key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and len(key.read_bytes()) == 32
    assert stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    for name, prepare in [
        ("readable", lambda p: (p.write_bytes(os.urandom(32)), p.chmod(0o644))),
        ("short", lambda p: (p.write_bytes(b"x" * 8), p.chmod(0o600))),
        ("link", lambda p: p.symlink_to(key)),
    ]:
        other = tmp_path / f"key-{name}"
        prepare(other)
        monkeypatch.setenv("TWINBENCH_CACHE_KEY_FILE", str(other))
        with pytest.raises(cache_guard.CacheRefused, match="cache key"):
            cache.remember("k", "y", 2)
    loose = tmp_path / "loose"
    loose.mkdir()
    loose.chmod(0o777)
    monkeypatch.setenv("TWINBENCH_CACHE_KEY_FILE", str(loose / "key"))
    code, _, err = run_cli(capsys, "pairs", "--bfcl-root", tiny_package(tmp_path / "rel"))
    assert code == 2 and "a folder others can write" in err and not (loose / "key").exists()
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    monkeypatch.setenv("TWINBENCH_CACHE_KEY_FILE", str(blocked / "sub" / "key"))  # a key that cannot be made
    code, _, err = run_cli(capsys, "pairs", "--bfcl-root", tiny_package(tmp_path / "rel2"))
    assert code == 2 and len(err.splitlines()) == 1 and "cannot make the twinbench cache key" in err


# -- the release and its simulator code ---------------------------------------------------------

def simulator(release_root: Path) -> Path:
    return release_root / "eval_checker" / "multi_turn_eval" / "func_source_code"


def test_a_changed_cached_release_is_fetched_again_with_one_warning(private_cache):
    fetches, messages = [], []
    first = rel.locate("9.9.9", fetcher=fetcher(fetches), log=messages.append)
    code = simulator(first.root) / "fs.py"
    original = code.read_bytes()
    for tamper in [lambda: code.write_bytes(original.replace(b"self.tree = {}", b"self.tree = {'x': 1}")),
                   lambda: (simulator(first.root) / "planted.py").write_text("import os\n"),
                   lambda: (first.root / rel.release_cache.MANIFEST).write_bytes(b"{}"),
                   lambda: (first.root / "data" / "BFCL_v4_multi_turn_base.json").unlink()]:
        messages.clear()
        tamper()
        again = rel.locate("9.9.9", fetcher=fetcher(fetches), log=messages.append)
        assert again.root == first.root and code.read_bytes() == original
        assert not (simulator(first.root) / "planted.py").exists()
        assert len(messages) == 2 and messages[0].startswith("twinbench: warning: the cached bfcl-eval 9.9.9 ")
        assert messages[0].endswith("it is fetched again") and "fetching" in messages[1]
    assert len(fetches) == 5
    messages.clear()
    rel.locate("9.9.9", fetcher=fetcher(fetches), log=messages.append)
    assert messages == [] and len(fetches) == 5  # a release that passes is used as it is


def test_a_release_unpacked_before_manifests_gains_one_without_being_unpacked_again(private_cache):
    first = rel.locate("9.9.9", fetcher=fetcher(), log=lambda m: None)
    (first.root / rel.release_cache.MANIFEST).unlink()
    inode = (simulator(first.root) / "fs.py").stat().st_ino
    messages = []
    rel.locate("9.9.9", fetcher=fetcher(), log=messages.append)
    assert "has no integrity manifest" in messages[0]
    assert (simulator(first.root) / "fs.py").stat().st_ino == inode  # the same files, now with a manifest
    assert isinstance(rel.release_cache.check(private_cache, "9.9.9"), dict)


def test_a_wheel_whose_files_do_not_match_its_record_is_not_unpacked(private_cache, tmp_path):
    def forged(release: str, into: Path) -> Path:
        wheel = write_wheel(tiny_package(into / "s"), into / "w.whl", release)
        import zipfile

        with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(into / "forged.whl", "w") as dst:
            for name in src.namelist():
                data = src.read(name)
                dst.writestr(name, data + b"# changed\n" if name.endswith("fs.py") else data)
        return into / "forged.whl"

    with pytest.raises(AdapterError, match="does not match the wheel's RECORD"):
        rel.locate("9.9.9", fetcher=forged, log=lambda m: None)
    assert not (private_cache / "bfcl-eval" / "9.9.9").exists()


def test_simulator_code_changed_after_the_check_is_not_imported(private_cache):
    from twinbench.adapters.bfcl.sandbox import load_classes

    located = rel.locate("9.9.9", fetcher=fetcher(), log=lambda m: None)
    sources = {"FS": simulator(located.root) / "fs.py"}
    assert load_classes(sources, located.root).classes["FS"]().tree == {}
    sources["FS"].write_text(sources["FS"].read_text().replace("self.tree = {}", "self.tree = {'planted': 1}"))
    with pytest.raises(AdapterError, match="does not match the release"):
        load_classes(sources, located.root)


def test_planted_bytecode_beside_the_simulator_code_is_never_loaded(private_cache):
    """A ``__pycache__`` file with the source's own size and time would be loaded by a plain import."""
    from twinbench.adapters.bfcl.sandbox import load_classes

    located = rel.locate("9.9.9", fetcher=fetcher(), log=lambda m: None)
    source = simulator(located.root) / "fs.py"
    planted = compile("class FS:\n    def __init__(self):\n        self.tree = {'planted': 1}\n", str(source), "exec")
    info = source.stat()
    pyc = Path(importlib.util.cache_from_source(str(source)))
    pyc.parent.mkdir()
    pyc.write_bytes(importlib.util.MAGIC_NUMBER + (0).to_bytes(4, "little")
                    + (int(info.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
                    + (info.st_size & 0xFFFFFFFF).to_bytes(4, "little") + marshal.dumps(planted))
    located = rel.locate("9.9.9", fetcher=fetcher(), log=lambda m: None)
    assert load_classes({"FS": source}, located.root).classes["FS"]().tree == {}


def test_a_cached_release_without_its_manifest_has_no_simulator(private_cache):
    from twinbench.adapters.bfcl.sandbox import load_classes

    located = rel.locate("9.9.9", fetcher=fetcher(), log=lambda m: None)
    (located.root / rel.release_cache.MANIFEST).unlink()
    with pytest.raises(AdapterError, match="no integrity manifest"):
        load_classes({"FS": simulator(located.root) / "fs.py"}, located.root)


def test_a_folder_the_user_names_is_imported_as_it_is_bytecode_aside(tmp_path):
    from twinbench.adapters.bfcl.sandbox import load_classes

    pkg = tiny_package(tmp_path / "mine")
    assert rel.code_hashes(pkg) is None
    assert load_classes({"FS": simulator(pkg) / "fs.py"}, pkg).classes["FS"]().tree == {}


def test_an_installed_release_is_held_to_its_record(tmp_path, monkeypatch):
    import base64
    import hashlib
    import importlib.metadata as metadata

    from twinbench.adapters.bfcl.sandbox import load_classes

    pkg = tiny_package(tmp_path / "site")
    source = simulator(pkg) / "fs.py"
    entry = metadata.PackagePath(source.relative_to(tmp_path / "site").as_posix())
    entry.hash = metadata.FileHash("sha256=" + base64.urlsafe_b64encode(
        hashlib.sha256(source.read_bytes()).digest()).rstrip(b"=").decode())

    class Installed:  # what importlib.metadata gives for an installed bfcl-eval
        files = [entry]

        def locate_file(self, path):
            return tmp_path / "site" / path

    monkeypatch.setattr(metadata, "distribution", lambda name: Installed())
    assert rel.code_hashes(pkg) == {"eval_checker/multi_turn_eval/func_source_code/fs.py": hashlib.sha256(
        source.read_bytes()).hexdigest()}
    assert load_classes({"FS": source}, pkg).classes["FS"]().tree == {}
    source.write_text(source.read_text().replace("self.tree = {}", "self.tree = {'changed': 1}"))
    with pytest.raises(AdapterError, match="does not match the release"):
        load_classes({"FS": source}, pkg)


# -- concurrent first runs ------------------------------------------------------------------------

def test_a_new_record_is_computed_once_while_others_wait_for_it(private_cache):
    """Two computations of one record at once: the second waits on the record's lock and loads the first's."""
    import threading

    started, calls, results = threading.Event(), [], {}

    def slow():
        calls.append("first")
        started.set()
        time.sleep(0.4)
        return "the first's"

    def second():
        calls.append("second")
        return "the second's"

    first = threading.Thread(target=lambda: results.setdefault("first", cache.cached("k", "x", slow)))
    first.start()
    started.wait(5)
    results["second"] = cache.cached("k", "x", second)
    first.join(5)
    assert calls == ["first"] and results == {"first": "the first's", "second": "the first's"}


FIRST_RUN = """
import os, sys, time
from pathlib import Path
sys.path.insert(0, {tests!r})
from builders import tiny_package, write_wheel
from twinbench.adapters.bfcl import release

def fetch(version, into):
    Path({fetches!r}, str(os.getpid())).touch()
    time.sleep(0.5)  # a slow network: the others start meanwhile
    return write_wheel(tiny_package(into / "staging"), into / f"bfcl_eval-{{version}}-py3-none-any.whl", version)

release.pip_fetch = fetch
release.installed_package = lambda version: None
from twinbench.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_concurrent_first_runs_on_an_empty_cache_all_succeed_with_one_output(private_cache, tmp_path):
    fetches = tmp_path / "fetches"
    fetches.mkdir()
    write_run(tmp_path / "runs", "m", good_lines())
    script = FIRST_RUN.format(tests=str(HERE), fetches=str(fetches))
    env = {**os.environ, "TWINBENCH_WORKERS": "1", "PYTHONPATH": str(Path(cache.__file__).parents[1])}
    argv = [sys.executable, "-c", script, "score", "--bfcl-release", "9.9.9", "--results", str(tmp_path / "runs"),
            "--bootstrap", "0", "--format", "json"]
    procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path)
             for _ in range(6)]
    results = [(p.wait(timeout=120), p.stdout.read(), p.stderr.read()) for p in procs]
    for p in procs:
        p.stdout.close()
        p.stderr.close()
    assert [code for code, _, _ in results] == [0] * 6, [err.decode()[-400:] for _, _, err in results]
    assert len({out for _, out, _ in results}) == 1 and json.loads(results[0][1])["models"]
    assert len(list(fetches.iterdir())) == 1  # fetched once, under the lock
    errs = [err.decode() for _, _, err in results]
    assert sum("fetching bfcl-eval==9.9.9" in e for e in errs) == 1 and not any("warning" in e for e in errs)
    assert isinstance(rel.release_cache.check(private_cache, "9.9.9"), dict)
