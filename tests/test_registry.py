from __future__ import annotations

import json

import pytest

from twinbench.adapters import registry
from twinbench.contract.adapter import Adapter
from twinbench.errors import AdapterError
from twinbench.cli import main


def test_bfcl_is_found_through_the_entry_point_group():
    from twinbench.adapters.bfcl import BFCLAdapter

    assert registry.get("bfcl") is BFCLAdapter
    info = next(i for i in registry.available() if i.name == "bfcl")
    assert info.target == "twinbench.adapters.bfcl:BFCLAdapter"
    assert info.origin.startswith("entry point")


def test_unknown_adapter_is_one_clear_error(capsys):
    with pytest.raises(AdapterError, match=r"no adapter named 'nope' \(installed: .*bfcl.*\)$"):
        registry.get("nope")
    assert main(["pairs", "--adapter", "nope"]) == 2
    assert "no adapter named 'nope'" in capsys.readouterr().err


@pytest.mark.parametrize("name, meant", [("BFCL", "'bfcl'? Adapter names are case-sensitive"), ("When2Call", "'when2call'? "),
                                         ("bcfl", "'bfcl'?"), ("when2cal", "'when2call'?")])
def test_a_misspelt_adapter_name_gets_a_suggestion(name, meant, capsys):
    assert main(["pairs", "--adapter", name]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"twinbench: error: no adapter named {name!r} (installed: ") and f"; did you mean {meant}" in line


def test_register_in_process_and_list(capsys):
    @registry.register
    class Toy(Adapter):
        name = "toy-registry-test"
        description = "a toy"

        def items(self):
            return ()

        def effects(self):
            raise NotImplementedError

    assert registry.get("toy-registry-test") is Toy
    assert main(["adapters", "--format", "json"]) == 0
    names = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert names["toy-registry-test"]["description"] == "a toy"
    assert "bfcl" in names


def test_bad_entry_point_target():
    with pytest.raises(AdapterError, match="cannot load adapter"):
        registry._load_target("twinbench.nothing_here:Nope")
    with pytest.raises(AdapterError, match="not a twinbench Adapter"):
        registry._load_target("twinbench.render.tables:table")


def test_a_built_in_name_loads_the_built_in_adapter_without_scanning_entry_points(monkeypatch):
    from twinbench.adapters import registry
    from twinbench.adapters.bfcl import BFCLAdapter

    def scan():
        raise AssertionError("the entry points were scanned")

    monkeypatch.setattr(registry, "_entry_points", scan)
    assert registry.get("bfcl") is BFCLAdapter
