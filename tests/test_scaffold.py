"""twinbench new-adapter: the generated package is a working adapter from the first minute."""

from __future__ import annotations

import importlib
import json
import sys

import pytest

from twinbench.adapters import registry
from twinbench.cli import main


def test_generated_package_scores_its_reference_policies(tmp_path, capsys, monkeypatch):
    assert main(["new-adapter", "demo_bench", "--dir", str(tmp_path / "pkg")]) == 0
    capsys.readouterr()
    pyproject = (tmp_path / "pkg" / "pyproject.toml").read_text()
    assert 'demo_bench = "twinbench_demo_bench:DemoBenchAdapter"' in pyproject
    assert (tmp_path / "pkg" / "tests" / "test_demo_bench.py").is_file()
    monkeypatch.syspath_prepend(str(tmp_path / "pkg"))
    module = importlib.import_module("twinbench_demo_bench")
    registry.register(module.DemoBenchAdapter)
    try:
        assert main(["pairs", "--adapter", "demo_bench", "--format", "json"]) == 0
        assert json.loads(capsys.readouterr().out)["counts"]["scored"] == 3
        assert main(["score", "--adapter", "demo_bench", "--bootstrap", "0", "--format", "json"]) == 0
        models = {m["model"]: (m["act"], m["hold"]) for m in json.loads(capsys.readouterr().out)["models"]}
        assert models == {"oracle": (100.0, 100.0), "always-act": (100.0, 0.0), "never-act": (0.0, 100.0)}
    finally:
        registry.unregister("demo_bench")
        sys.modules.pop("twinbench_demo_bench", None)


@pytest.mark.parametrize("name", ["Bad-Name", "1bench", ""])
def test_bad_names_are_refused_in_one_line(tmp_path, capsys, name):
    assert main(["new-adapter", name, "--dir", str(tmp_path / "x")]) == 2
    assert "adapter name" in capsys.readouterr().err and not (tmp_path / "x").exists()


def test_a_folder_with_files_is_not_overwritten(tmp_path, capsys):
    (tmp_path / "keep.txt").write_text("mine")
    assert main(["new-adapter", "demo", "--dir", str(tmp_path)]) == 2
    assert "not an empty folder" in capsys.readouterr().err
    assert (tmp_path / "keep.txt").read_text() == "mine" and not (tmp_path / "pyproject.toml").exists()


@pytest.mark.parametrize("name", ["bfcl", "when2call"])
def test_a_built_in_name_is_refused(tmp_path, capsys, name):
    assert main(["new-adapter", name, "--dir", str(tmp_path / "x")]) == 2
    assert "built-in adapter" in capsys.readouterr().err and not (tmp_path / "x").exists()


def test_the_package_ships_every_data_file_and_links_nowhere_dead(tmp_path, capsys):
    assert main(["new-adapter", "demo_data", "--dir", str(tmp_path / "pkg")]) == 0
    pyproject = (tmp_path / "pkg" / "pyproject.toml").read_text()
    assert '"twinbench_demo_data" = ["data/*"]' in pyproject  # an effects.yaml beside items.jsonl ships too
    readme = (tmp_path / "pkg" / "README.md").read_text()
    assert "pypi.org" not in readme and "](http" not in readme


def test_the_generated_reader_counts_what_it_could_not_read(tmp_path, capsys, monkeypatch):
    assert main(["new-adapter", "demo_unread", "--dir", str(tmp_path / "pkg")]) == 0
    capsys.readouterr()
    monkeypatch.syspath_prepend(str(tmp_path / "pkg"))
    module = importlib.import_module("twinbench_demo_unread")
    try:
        run = tmp_path / "model.jsonl"
        run.write_text('{"id": "a1", "response": "[book_room(city=\'Oslo\'"}\n'
                       '{"id": "q1", "response": "Which city?\u2028 please"}\n', encoding="utf-8")
        reader = module.DemoUnreadAdapter().reader()
        (ref,) = reader.find([run]).runs
        load = reader.read(ref, ["a1", "q1"])
        assert [kind for _, kind, _ in load.rollouts["a1"].unread] == ["python_call_unparsed"]
        assert set(load.rollouts) == {"a1", "q1"} and not load.warnings
    finally:
        sys.modules.pop("twinbench_demo_unread", None)
