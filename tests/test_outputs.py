"""Outputs never destroy inputs (issue 18, item 3).

Every command refuses an output that is one of the files it reads (the same file by device and
inode, so a hard link or a symbolic link of an input is refused like its name) and two outputs
naming one file; every output is written to a temporary file beside its target and renamed over
it only when complete, so a failing write (a full disk) leaves the old file as it was.
"""

from __future__ import annotations

import errno
import json
import os
import resource
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from builders import tiny_package
from conftest import FIXTURES, REPO
from test_score import good_lines, write_run

from twinbench.cli import main
from twinbench.errors import TwinbenchError
from twinbench.render import output

MINI_W2C = FIXTURES / "when2call" / "mini.jsonl"
RESULT = Path("result/m/multi_turn/BFCL_v4_multi_turn_miss_param_result.json")
SCORE = Path("score/m/multi_turn/BFCL_v4_multi_turn_base_score.json")


@pytest.fixture
def release(tmp_path):
    return tiny_package(tmp_path / "release")


@pytest.fixture
def runs(tmp_path):
    """One run of model ``m`` with its score files (every item passed)."""
    root = tmp_path / "runs"
    write_run(root, "m", good_lines())
    folder = root / "score" / "m" / "multi_turn"
    folder.mkdir(parents=True)
    for cat in ("base", "miss_func", "miss_param"):
        (folder / f"BFCL_v4_multi_turn_{cat}_score.json").write_text(
            json.dumps({"accuracy": 1.0, "correct_count": 1, "total_count": 1}) + "\n")
    return root


def cli(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out, captured.err


def error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("twinbench: error: "), err
    return lines[0]


def alias(tmp_path: Path, target: Path, how: str) -> Path:
    """``target`` itself, a hard link of it, or a symbolic link to it."""
    if how == "name":
        return target
    link = tmp_path / f"alias-{how}{target.suffix}"
    if how == "hard link":
        os.link(target, link)
    else:
        link.symlink_to(target)
    return link


HOW = ("name", "hard link", "symbolic link")


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# --------------------------------------------------------------------------- an output over an input


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("command, option, input_file", [
    ("score", "--output", RESULT),
    ("score", "--per-item", SCORE),
    ("report", "--output", RESULT),
    ("replay", "--output", SCORE),
    ("calls", "--output", SCORE),
])
def test_an_output_that_is_a_file_of_the_runs_read_is_refused(tmp_path, release, runs, capsys, how, command,
                                                              option, input_file):
    before = snapshot(runs)
    target = alias(tmp_path, runs / input_file, how)
    extra = ["--bootstrap", "0"] if command in ("score", "report") else []
    code, _, err = cli(capsys, command, "--bfcl-root", release, "--results", runs, *extra, option, target)
    line = error_line(err)
    assert code == 2 and f"{option} {target}" in line and str(runs / input_file) in line and "--results" in line
    assert snapshot(runs) == before  # nothing read was touched


@pytest.mark.parametrize("how", HOW)
def test_compare_refuses_an_output_over_either_tree(tmp_path, release, runs, capsys, how):
    target = alias(tmp_path, runs / RESULT, how)
    before = snapshot(runs)
    code, _, err = cli(capsys, "compare", "--bfcl-root", release, "--baseline", runs, "--treatment", runs,
                       "--bootstrap", "0", "--output", target)
    assert code == 2 and "--baseline" in error_line(err) and snapshot(runs) == before


@pytest.mark.parametrize("how", HOW)
def test_pairs_refuses_an_output_over_its_when2call_data(tmp_path, capsys, how):
    data = tmp_path / "data.jsonl"
    data.write_bytes(MINI_W2C.read_bytes())
    target = alias(tmp_path, data, how)
    code, _, err = cli(capsys, "pairs", "--adapter", "when2call", "--when2call-data", data, "--output", target)
    line = error_line(err)
    assert code == 2 and f"--output {target}" in line and f"--when2call-data {data}" in line
    assert data.read_bytes() == MINI_W2C.read_bytes()


@pytest.mark.parametrize("how", HOW)
def test_build_refuses_an_out_folder_holding_its_own_input(tmp_path, capsys, how):
    folder = tmp_path / "suite"
    folder.mkdir()
    data = tmp_path / "when2call.jsonl" if how != "name" else folder / "when2call.jsonl"
    data.write_bytes(MINI_W2C.read_bytes())
    if how == "hard link":
        os.link(data, folder / "when2call.jsonl")
    elif how == "symbolic link":
        (folder / "when2call.jsonl").symlink_to(data)
    code, _, err = cli(capsys, "build", "--adapter", "when2call", "--when2call-data", data, "--out", folder)
    line = error_line(err)
    assert code == 2 and "when2call.jsonl" in line and "--when2call-data" in line
    assert data.read_bytes() == MINI_W2C.read_bytes()
    assert sorted(p.name for p in folder.iterdir()) == ["when2call.jsonl"]  # no file of the suite written


@pytest.mark.parametrize("how", HOW)
def test_plot_refuses_an_output_over_its_input(tmp_path, release, capsys, how):
    scores = tmp_path / "scores.json"
    assert main(["score", "--bfcl-root", str(release), "--bootstrap", "0", "--format", "json",
                 "--output", str(scores)]) == 0
    capsys.readouterr()
    before = scores.read_bytes()
    target = alias(tmp_path, scores, how)
    code, _, err = cli(capsys, "plot", "--input", scores, "--output", target)
    assert code == 2 and f"--input {scores}" in error_line(err) and scores.read_bytes() == before


@pytest.mark.parametrize("how", HOW)
def test_two_outputs_naming_one_file_are_refused(tmp_path, release, capsys, how):
    first = tmp_path / "out.txt"
    first.write_text("old\n")
    second = alias(tmp_path, first, how)
    code, _, err = cli(capsys, "score", "--bfcl-root", release, "--bootstrap", "0", "--output", first,
                       "--per-item", second)
    assert code == 2 and "--output and --per-item name the same file" in error_line(err)
    assert first.read_text() == "old\n"


def test_an_output_beside_the_inputs_is_written(tmp_path, release, runs, capsys):
    """Writing into a results tree is fine, as long as no file read is overwritten."""
    target = runs / "result" / "m" / "summary.json"
    code, _, err = cli(capsys, "score", "--bfcl-root", release, "--results", runs, "--bootstrap", "0",
                       "--format", "json", "--output", target)
    assert code == 0, err
    assert json.loads(target.read_text())["models"][0]["model"] == "m"


# --------------------------------------------------------------------------- writing


def test_a_failed_write_leaves_the_old_file_intact(tmp_path, monkeypatch):
    """A disk that fills up half way: the old file stays whole and no temporary file is left."""
    target = tmp_path / "out.txt"
    target.write_text("the old output\n")
    real_write = os.write

    def full_disk(fd, data):
        if fd > 2 and len(data) > 10:
            real_write(fd, bytes(data[:10]))
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(TwinbenchError) as caught:
        output.emit("x" * 10_000, target)
    monkeypatch.undo()
    assert f"--output {target}: cannot be written (No space left on device)" in str(caught.value)
    assert "left as it was" in str(caught.value)
    assert target.read_text() == "the old output\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def _limit_file_size():
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


def test_a_write_over_the_file_size_limit_leaves_the_old_file_intact(tmp_path, release):
    """A real failing write (the kernel refuses to grow a file past RLIMIT_FSIZE), end to end."""
    target = tmp_path / "report.html"
    target.write_text("<p>the old report</p>\n")
    done = subprocess.run(
        [sys.executable, "-m", "twinbench.cli", "report", "--bfcl-root", str(release), "--bootstrap", "0",
         "--output", str(target)],
        cwd=REPO, capture_output=True, text=True, preexec_fn=_limit_file_size,
        env={**os.environ, "TWINBENCH_NO_CACHE": "1", "PYTHONDONTWRITEBYTECODE": "1"})
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"--output {target}: cannot be written (File too large)" in done.stderr
    assert target.read_text() == "<p>the old report</p>\n"
    assert [p.name for p in tmp_path.iterdir() if p.name != "release"] == ["report.html"]


def test_a_complete_write_replaces_the_file_and_keeps_its_mode(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old\n")
    target.chmod(0o640)
    output.emit("new", target)
    assert target.read_text() == "new\n" and stat.S_IMODE(target.stat().st_mode) == 0o640
    fresh = tmp_path / "deeper" / "fresh.csv"
    output.emit("made", fresh)
    umask = os.umask(0)
    os.umask(umask)
    assert fresh.read_text() == "made\n" and stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask


def test_an_output_through_a_symbolic_link_updates_the_file_it_names(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    output.emit("new", link)
    assert link.is_symlink() and real.read_text() == "new\n"


def test_an_output_that_is_a_pipe_is_written_into_not_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    output.emit("through the pipe", fifo)
    reader.join(10)
    assert got == [b"through the pipe\n"] and stat.S_ISFIFO(fifo.stat().st_mode)
