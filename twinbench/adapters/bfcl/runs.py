"""BFCL model runs: finding them, naming their files, writing policies as runs; reading one is
:mod:`~twinbench.adapters.bfcl.run_reader`'s (imported when a run is read)."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from twinbench.contract.adapter import RunReader
from twinbench.model import Call, RunLoad, RunRef, RunSearch

from .tree import SCORED_CATEGORIES, RunFiles, find_runs, search

if TYPE_CHECKING:
    from .run_reader import Dialogue

PROSE_STEP = "I need one more detail before I can do that: could you tell me what is missing?"


def _step_text(calls: Sequence[Call]) -> str:
    return "[" + ", ".join(c.render() for c in calls) + "]" if calls else PROSE_STEP


def write(directory: Path, model: str, rollouts: Mapping[str, Sequence[Sequence[Sequence[Call]]]],
          category_of, dataset_prefix: str) -> RunRef:
    """Write rollouts as a BFCL result tree (python-style call text; prose for an empty step)."""
    folder = Path(directory) / "result" / model / "multi_turn"
    folder.mkdir(parents=True, exist_ok=True)
    lines: dict[str, list[str]] = {}
    for item_id in sorted(rollouts, key=lambda i: (category_of(i), int(i.rsplit("_", 1)[1]))):
        turns = [[_step_text(step) for step in turn] for turn in rollouts[item_id]]
        lines.setdefault(category_of(item_id), []).append(json.dumps({"id": item_id, "result": turns}))
    for category in SCORED_CATEGORIES:  # every category, even one without items, so the run is complete
        rows = lines.get(category, [])
        (folder / f"{dataset_prefix}_multi_turn_{category}_result.json").write_text(
            "".join(row + "\n" for row in rows), encoding="utf-8")
    scan = find_runs(folder.parent, SCORED_CATEGORIES)
    (found,) = scan.runs
    return RunRef(model=model, location=found.root, details={"dataset": f"BFCL_{found.version}"}, payload=found)


@attrs.frozen(eq=False)
class BFCLRuns(RunReader):
    """BFCL result trees (v3 and v4 layouts) with their score files, read against one release's items.

    ``dialogue``: per item, the user texts of each turn (see :func:`~twinbench.adapters.bfcl.run_reader.dialogue_of`), what the
    dialogue a run logged is checked against.
    """

    dialogue: Dialogue
    dataset_prefix: str
    category_of: object  # item id -> category, for writing
    #: the suite's function names for a run (of the release that made it): what ``check_reading`` checks against
    functions_of: Callable[[RunRef], Collection[str]] = attrs.field(default=None, repr=False)

    def find(self, paths: Sequence[Path], models: Sequence[str] = (), official: Path | None = None) -> RunSearch:
        return search(paths, models, official)

    def read(self, run: RunRef, item_ids: Iterable[str]) -> RunLoad:
        from .run_reader import read

        return read(run, item_ids, self.dialogue, self.dataset_prefix)

    def write(self, directory: Path, model: str, rollouts: Mapping[str, Sequence[Sequence[Sequence[Call]]]]) -> RunRef:
        return write(directory, model, rollouts, self.category_of, self.dataset_prefix)

    def sources(self, run: RunRef) -> tuple[Path, ...]:
        """The result file of each scored category and the score files beside them."""
        found: RunFiles = run.payload
        return tuple(found.files[c] for c in SCORED_CATEGORIES) + tuple(
            found.score_files[c] for c in SCORED_CATEGORIES if c in found.score_files)

    def check_reading(self, paths: Sequence[Path], models: Sequence[str] = ()) -> CrossCheck:
        """Every failed item's turns: twinbench's reading against BFCL's ``model_result_decoded``."""
        from . import crosscheck

        return CrossCheck(tuple(crosscheck.crosscheck(paths, models, functions_of=self.functions_of)))


@attrs.frozen
class CrossCheck:
    """``twinbench calls --adapter bfcl``: per model, the agreement with BFCL's decoder."""

    reports: tuple  # crosscheck.CrossCheckReport per model

    @property
    def unexplained(self) -> int:
        return sum(len(r.unexplained) for r in self.reports)

    def render(self, wide: bool = False) -> str:
        from . import crosscheck

        if not any(r.items_compared for r in self.reports):
            return ("nothing to check: no score file with BFCL's own reading (model_result_decoded of the\n"
                    "failed items) was found beside these runs")
        return crosscheck.render_table(self.reports, wide=wide)

    def to_json(self) -> dict:
        from . import crosscheck

        return crosscheck.as_json(self.reports)
