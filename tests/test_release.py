"""Where BFCL data comes from: a user folder, an installed package, the cache, or a fetch (faked here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from twinbench.errors import AdapterError
from twinbench.adapters.bfcl import release as rel
from twinbench.adapters.bfcl.adapter import BFCLAdapter
from twinbench.cli import main

from builders import tiny_package, write_wheel

CATS = ("base", "long_context", "miss_func", "miss_param")


def fake_wheel_fetcher(calls: list):
    def fetch(release: str, into: Path) -> Path:
        calls.append(release)
        pkg = tiny_package(into / "staging")
        return write_wheel(pkg, into / f"bfcl_eval-{release}-py3-none-any.whl", release,
                           {"bfcl_eval/model_handler/huge.py": "not extracted"})
    return fetch


def offline(release: str, into: Path) -> Path:
    raise AdapterError(f"could not download bfcl-eval=={release} (network unreachable). Provide the data instead: --bfcl-root DIR")


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv(rel.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(rel, "installed_package", lambda release: None)


def test_fetches_once_into_the_cache_then_reuses_it(tmp_path):
    calls, messages = [], []
    first = rel.locate("9.9.9", fetcher=fake_wheel_fetcher(calls), log=messages.append)
    assert first.source == "cache" and first.prefix == "BFCL_v4"
    assert first.root == tmp_path / "cache" / "bfcl-eval" / "9.9.9" / "bfcl_eval"
    assert calls == ["9.9.9"] and "fetching bfcl-eval==9.9.9" in messages[0]
    assert not (first.root / "model_handler").exists()  # only the parts twinbench reads
    second = rel.locate("9.9.9", fetcher=fake_wheel_fetcher(calls), log=messages.append)
    assert second.root == first.root and calls == ["9.9.9"]


def test_offline_without_cache_fails_with_one_clear_message():
    with pytest.raises(AdapterError, match="--bfcl-root"):
        rel.locate("9.9.9", fetcher=offline, log=lambda m: None)


def test_bfcl_root_accepts_a_package_folder_or_a_checkout(tmp_path):
    pkg = tiny_package(tmp_path / "gorilla" / "berkeley-function-call-leaderboard")
    for folder in (pkg, pkg.parent, tmp_path / "gorilla"):
        found = rel.locate(bfcl_root=folder, fetcher=offline)
        assert found.root == pkg and found.source == "bfcl-root"


def test_bfcl_root_errors(tmp_path):
    with pytest.raises(AdapterError, match="is not a folder"):
        rel.locate(bfcl_root=tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(AdapterError, match="holds no BFCL multi-turn data"):
        rel.locate(bfcl_root=tmp_path / "empty")


def test_v3_files_are_recognised(tmp_path):
    pkg = tiny_package(tmp_path, prefix="BFCL_v3")
    assert rel.locate(bfcl_root=pkg).prefix == "BFCL_v3"


def test_installed_package_is_found_without_importing(tmp_path, monkeypatch):
    pkg = tiny_package(tmp_path / "site")
    monkeypatch.undo()  # restore the real installed_package
    monkeypatch.setenv(rel.CACHE_ENV, str(tmp_path / "cache"))

    class Spec:
        submodule_search_locations = [str(pkg)]

    monkeypatch.setattr(rel.importlib.metadata, "version", lambda name: "1.2.3")
    monkeypatch.setattr(rel.importlib.util, "find_spec", lambda name: Spec())
    assert rel.installed_package("1.2.3") == pkg
    assert rel.installed_package("0.0.1") is None  # another release installed: not used
    assert rel.locate("1.2.3", fetcher=offline).source == "installed"


def test_the_adapter_reads_a_tiny_release_end_to_end(tmp_path):
    adapter = BFCLAdapter(release="9.9.9", fetcher=fake_wheel_fetcher([]))
    ids = sorted(i.id for i in adapter.items())
    assert ids == [f"multi_turn_{c}_0" for c in sorted(CATS)]
    mf = next(i for i in adapter.items() if i.category == "miss_func")
    assert mf.turns[0].tools == ("ls",) and mf.turns[1].tools == ("ls", "mkdir")
    assert not adapter.curation().applies  # made for other data
    verdicts = adapter.source_verdicts()
    assert verdicts["mkdir"].writes and not verdicts["ls"].writes


def test_cli_reports_offline_as_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(rel, "pip_fetch", offline)
    code = main(["pairs", "--bfcl-release", "0.0.0"])
    lines = capsys.readouterr().err.splitlines()
    assert code == 2
    assert lines[0].startswith("twinbench: fetching bfcl-eval==0.0.0")  # says what is being fetched
    assert len(lines) == 2 and lines[1].startswith("twinbench: error:") and "--bfcl-root" in lines[1]
