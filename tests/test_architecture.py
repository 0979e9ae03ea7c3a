"""The layout stays as ``docs/architecture.md`` draws it: every module on the map, no import circle.

Imports are read from the source with ``ast`` (every ``import`` and ``from ... import``, inside
functions and under ``TYPE_CHECKING`` too), so a lazy or a type-only import that ties a knot
fails here as a plain one would.
"""

from __future__ import annotations

import ast
import re
import warnings
from pathlib import Path

import networkx as nx
import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "twinbench"
MAP = REPO / "docs" / "architecture.md"


def _modules() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(path: Path, name: str, modules: dict[str, Path]) -> set[str]:
    """The twinbench modules ``path`` imports (a name imported from a package that is a submodule
    counts as that submodule)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in modules:
                    found.add(sub)
                elif base in modules:
                    found.add(base)
    found.discard(name)
    return found


def _graph() -> nx.DiGraph:
    modules = _modules()
    graph = nx.DiGraph()
    for name, path in modules.items():
        graph.add_node(name)
        for target in _imports(path, name, modules):
            graph.add_edge(name, target)
    return graph


def _room(module: str) -> str:
    """The room a module belongs to: its top-level package under twinbench, or the module itself."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else module


def test_no_module_imports_in_a_circle():
    cycles = list(nx.simple_cycles(_graph()))
    assert not cycles, f"import circles: {cycles[:5]}"


def test_no_room_imports_in_a_circle():
    """Packages form a stack too: no two top-level packages (or root modules) import each other."""
    rooms = nx.DiGraph()
    for a, b in _graph().edges:
        if _room(a) != _room(b) and "twinbench" not in (_room(a), _room(b)):
            rooms.add_edge(_room(a), _room(b))
    cycles = list(nx.simple_cycles(rooms))
    assert not cycles, f"circles between packages: {cycles[:5]}"


def test_the_circle_check_finds_a_circle(tmp_path):
    """The check itself: two modules importing each other are found."""
    graph = nx.DiGraph([("twinbench.a", "twinbench.b"), ("twinbench.b", "twinbench.a")])
    assert list(nx.simple_cycles(graph))


def test_the_map_names_every_module_and_only_modules_that_exist():
    text = MAP.read_text(encoding="utf-8")
    named = set(re.findall(r"`(twinbench/[\w/]+\.py)`", text))
    modules = {str(p.relative_to(REPO)) for p in PACKAGE.rglob("*.py")}
    # a package's face (__init__.py) is described by its package's modules, unless it holds the code
    faces = {m for m in modules if m.endswith(("__init__.py", "__main__.py"))} - named
    assert named <= modules, f"named on the map but absent: {sorted(named - modules)}"
    assert modules - faces <= named, f"modules the map does not name: {sorted(modules - faces - named)}"


def test_the_map_says_which_modules_are_long():
    """A module over 500 lines is named, with its reason, on the map."""
    text = MAP.read_text(encoding="utf-8")
    for path in PACKAGE.rglob("*.py"):
        if len(path.read_text(encoding="utf-8").splitlines()) > 500:
            assert f"`{path.relative_to(REPO)}` (about" in text, f"{path} is over 500 lines and the map does not say why"


@pytest.mark.parametrize("old", sorted(__import__("twinbench._compat", fromlist=["MOVED"]).MOVED))
def test_old_import_paths_give_the_new_objects_with_a_warning(old):
    import importlib
    import sys

    from twinbench._compat import MOVED

    sys.modules.pop(old, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    assert any(issubclass(w.category, DeprecationWarning) and old in str(w.message) for w in caught)
    target = importlib.import_module(MOVED[old][0])
    public = [n for n in getattr(target, "__all__", dir(target)) if not n.startswith("_")]
    assert public, f"{MOVED[old][0]} has no public names"
    for name in public:
        assert getattr(module, name) is getattr(target, name)
