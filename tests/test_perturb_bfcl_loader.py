"""The constructed BFCL items load in bfcl-eval's own loader (``bfcl_eval/utils.py`` of the cached release).

The steps of docs/perturb.md are followed in a temporary folder: the release's ``bfcl_eval`` folder
(data, constants, function docs, the loader) is laid out there and the two ``miss_func`` files
``twinbench perturb`` wrote are put in place of its own. The loader is then imported from that
folder, read-only, as the sandbox imports the simulator classes: stub parent packages, so nothing
else of bfcl-eval is imported or installed. bfcl-eval's loader takes a ``filelock`` lock around each
read; where that library is absent, a stand-in lock is put in ``sys.modules`` for the test only.
"""

from __future__ import annotations

import contextlib
import importlib
import shutil
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from twinbench.adapters.bfcl import BFCLAdapter
from twinbench.adapters.bfcl.perturb import CATEGORY, data_files
from twinbench.perturb import perturb

LOADER = "utils.py"


@contextlib.contextmanager
def _release_loader(package: Path) -> Iterator[types.ModuleType]:
    """``bfcl_eval.utils`` imported from ``package``; every ``bfcl_eval`` entry of ``sys.modules`` restored after."""
    names = lambda: [n for n in sys.modules if n == "bfcl_eval" or n.startswith("bfcl_eval.") or n == "filelock"]
    saved = {n: sys.modules.pop(n) for n in names()}
    try:
        stub = types.ModuleType("bfcl_eval")
        stub.__path__ = [str(package)]  # the package itself is never executed
        sys.modules["bfcl_eval"] = stub
        if importlib.util.find_spec("filelock") is None:
            lock = types.ModuleType("filelock")
            lock.FileLock = lambda *args, **kwargs: contextlib.nullcontext()
            sys.modules["filelock"] = lock
        yield importlib.import_module("bfcl_eval.utils")
    finally:
        for name in names():
            del sys.modules[name]
        sys.modules.update(saved)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    adapter = BFCLAdapter()
    root = adapter.release.root
    if not (root / LOADER).is_file():
        pytest.skip(f"{root} holds no bfcl_eval/{LOADER}: a release cached before twinbench kept bfcl-eval's loader "
                    "(remove that folder, or set TWINBENCH_CACHE to a fresh folder, to fetch it again)")
    out = tmp_path_factory.mktemp("constructed")
    report = perturb(adapter, out)
    package = tmp_path_factory.mktemp("bfcl-project") / "bfcl_eval"
    shutil.copytree(root, package)  # a scratch copy of the release, as a user's installed package
    for made, installed in zip(data_files(out, adapter.release.prefix), data_files(package.parent, adapter.release.prefix)):
        shutil.copyfile(made, installed)
    return adapter, report, package


def test_bfcl_evals_loader_reads_the_constructed_items_and_their_turns(written, monkeypatch):
    adapter, report, package = written
    monkeypatch.setenv("BFCL_PROJECT_ROOT", str(package.parent))  # its lock folder, away from the cache
    with _release_loader(package) as utils:
        assert Path(utils.__file__).resolve() == (package / LOADER).resolve()
        entries = {e["id"]: e for e in utils.load_dataset_entry(f"multi_turn_{CATEGORY}")}
        truths = {e["id"]: e for e in utils.load_ground_truth_entry(f"multi_turn_{CATEGORY}")}
    raw = {r.id: r for r in adapter.data.raw}
    made = report.perturbable
    assert made and all(c.new_id in entries and c.new_id in truths for c in made)
    shipped = [r for r in raw.values() if r.category == CATEGORY]
    assert len(entries) == len(shipped) + len(made)
    for c in made:
        entry, base = entries[c.new_id], raw[c.item_id]
        assert len(entry["question"]) == len(base.question) + 1 and entry["question"][c.turn + 1] == []
        assert entry["question"][:c.turn + 1] == base.question[:c.turn + 1]
        # the loader swaps each withheld name for its function doc, to give back at that turn
        assert {k: [f["name"] for f in v] for k, v in entry["missed_function"].items()} == {
            str(c.turn + 1): list(c.withheld)}
        offered = {f["name"] for f in entry["function"]}  # the loader took the withheld docs off the list
        assert offered and not offered & set(c.withheld)
        assert truths[c.new_id]["ground_truth"][c.turn] == []
        assert truths[c.new_id]["ground_truth"][c.turn + 1] == base.ground_truth[c.turn]
