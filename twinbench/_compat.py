"""The import paths of the flat layout (0.1), kept for one release: each old module name is a
stand-in that takes its names from the modules they moved to, with a ``DeprecationWarning``.

``from twinbench.calls import parse_step`` keeps working and gives the same function as
``from twinbench.reading import parse_step``. The table is the list in ``docs/changelog.md``;
the stand-ins go in 0.3.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import types
import warnings
from collections.abc import Sequence

#: old module -> the modules its names moved to, searched in order
MOVED: dict[str, tuple[str, ...]] = {
    "twinbench.adapter": ("twinbench.contract.adapter", "twinbench.errors", "twinbench.model"),
    "twinbench.rules": ("twinbench.contract.rules",),
    "twinbench.effects": ("twinbench.contract.effects",),
    "twinbench.curation": ("twinbench.contract.curation",),
    "twinbench.calls": ("twinbench.reading", "twinbench.reading.found", "twinbench.reading.text",
                        "twinbench.reading.python_calls", "twinbench.reading.json_calls",
                        "twinbench.reading.model_formats", "twinbench.reading.code", "twinbench.reading.tagged",
                        "twinbench.reading.step"),
    "twinbench.replay": ("twinbench.contract.replayer", "twinbench.decisions.credit", "twinbench.evaluation.replay",
                         "twinbench.results"),
    "twinbench.policies": ("twinbench.decisions.policies",),
    "twinbench.diagnostics": ("twinbench.decisions.diagnostics",),
    "twinbench.stats": ("twinbench.metrics.stats",),
    "twinbench.reports": ("twinbench.results",),
    "twinbench.report": ("twinbench.render.tables", "twinbench.render.output"),
    "twinbench.scorecard": ("twinbench.render.score", "twinbench.render.compare", "twinbench.render.replay",
                            "twinbench.render.tables"),
    "twinbench.htmlreport": ("twinbench.render.html_report",),
    "twinbench.plot": ("twinbench.render.svg",),
    "twinbench.evaluate": ("twinbench.evaluation.runs", "twinbench.evaluation.summary", "twinbench.evaluation.score",
                           "twinbench.options"),
    "twinbench.compare": ("twinbench.evaluation.compare",),
    "twinbench.registry": ("twinbench.adapters.registry",),
    "twinbench.scaffold": ("twinbench.adapters.scaffold",),
    "twinbench.scoring": ("twinbench.options",),
    "twinbench.defaults": ("twinbench.options",),
    "twinbench.adapters.bfcl.results": ("twinbench.adapters.bfcl.tree", "twinbench.adapters.bfcl.lines",
                                        "twinbench.adapters.bfcl.result_files", "twinbench.adapters.bfcl.score_files"),
}


class _StandIn(types.ModuleType):
    """An old module name: every attribute is looked up in the modules it moved to."""

    def __init__(self, name: str, targets: Sequence[str]) -> None:
        super().__init__(name, f"moved: see {', '.join(targets)}")
        self.__targets = tuple(targets)

    def __getattr__(self, attribute: str):
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        for target in self.__targets:
            module = importlib.import_module(target)
            if hasattr(module, attribute):
                return getattr(module, attribute)
        raise AttributeError(f"module {self.__name__!r} has no attribute {attribute!r} "
                             f"(it moved to {', '.join(self.__targets)})")


class _OldPaths:
    """Finds the old module names, and only those (asked after the real modules are not found).

    A meta path finder and its loader by protocol (``find_spec``, ``create_module``, ``exec_module``):
    ``importlib.abc`` is not imported for it, as every command would pay for that at start-up.
    """

    def find_spec(self, fullname, path, target=None):
        if fullname in MOVED:
            return importlib.machinery.ModuleSpec(fullname, self)
        return None

    def create_module(self, spec):
        targets = MOVED[spec.name]
        warnings.warn(f"{spec.name} moved to {targets[0]} (the old import path goes in twinbench 0.3)",
                      DeprecationWarning, stacklevel=2)
        return _StandIn(spec.name, targets)

    def exec_module(self, module) -> None:
        return None


def install() -> None:
    """Put the finder last on ``sys.meta_path`` (once): real modules are always found first."""
    if not any(isinstance(finder, _OldPaths) for finder in sys.meta_path):
        sys.meta_path.append(_OldPaths())
