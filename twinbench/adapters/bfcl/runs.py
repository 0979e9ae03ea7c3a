"""BFCL model runs: finding them, reading their steps into calls, official verdicts, writing policies."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from twinbench.adapter import AdapterError, Rollout, RunLoad, RunRef, RunSearch
from twinbench.calls import parse_step
from twinbench.model import Call, Item

from . import results

SCORED_CATEGORIES = ("base", "miss_func", "miss_param")
PROSE_STEP = "I need one more detail before I can do that: could you tell me what is missing?"


def search(paths: Sequence[Path], models: Sequence[str] = (), scores: Path | None = None) -> RunSearch:
    runs: list[RunRef] = []
    skipped: list[tuple[str, str]] = []
    warnings: list[str] = []
    for path in paths:
        try:
            scan = results.find_runs(path, SCORED_CATEGORIES, scores_root=scores)
        except results.ResultsError as exc:
            raise AdapterError(str(exc)) from exc
        warnings.extend(scan.warnings)
        skipped.extend((str(s.root), s.reason) for s in scan.skipped)
        for found in scan.runs:
            if models and found.model not in models:
                skipped.append((str(found.root), f"not selected by --model ({found.model})"))
                continue
            runs.append(RunRef(model=found.model, location=found.root,
                               details={"dataset": f"BFCL_{found.version}",
                                        "score_files": str(len(found.score_files))},
                               payload=found))
    missing = [m for m in models if m not in {r.model for r in runs}]
    if missing:
        raise AdapterError(f"--model {', '.join(missing)}: no complete run of that name under "
                           f"{', '.join(map(str, paths))} (found: {', '.join(sorted({r.model for r in runs})) or 'none'})")
    names = [r.model for r in runs]
    for name in sorted({n for n in names if names.count(n) > 1}):
        warnings.append(f"model {name} appears in several folders; each is scored as {name}@<folder>")
    if len(set(names)) != len(names):
        runs = [RunRef(model=f"{r.model}@{r.location.parent.name}" if names.count(r.model) > 1 else r.model,
                       location=r.location, details=r.details, payload=r.payload) for r in runs]
    return RunSearch(runs=tuple(sorted(runs, key=lambda r: r.model)), skipped=tuple(skipped), warnings=tuple(warnings))


def _compare_logged(items: Mapping[str, Item], entry: results.ResultEntry) -> bool | None:
    """Did the model see other user text than this release's item? None when nothing was logged."""
    logged = entry.logged_user_turns
    item = items.get(entry.id)
    if logged is None or item is None:
        return None
    for turn, seen in zip(item.turns, logged):
        if turn.user_text and tuple(seen) != tuple(turn.user_text):
            return True
    return False


def read(run: RunRef, item_ids: Iterable[str], items: Mapping[str, Item], dataset_prefix: str) -> RunLoad:
    found: results.RunFiles = run.payload
    wanted = set(item_ids)
    rollouts: dict[str, Rollout] = {}
    warnings: list[str] = []
    logged = differing = errors = 0
    examples: list[str] = []
    if found.version and f"BFCL_{found.version}" != dataset_prefix:
        warnings.append(f"{run.model}: the results are BFCL_{found.version} files but the dataset release is "
                        f"{dataset_prefix}; decisions are read against other items than the model saw")
    for category in SCORED_CATEGORIES:
        path = found.files[category]
        try:
            rf = results.read_result_file(path, keep_ids=wanted)
        except results.ResultsError as exc:
            raise AdapterError(str(exc)) from exc
        warnings.extend(f"{run.model}: {w}" for w in rf.warnings)
        needed = {i for i in wanted if i.startswith(f"multi_turn_{category}_")}
        absent = needed - set(rf.entries)
        if absent:
            warnings.append(f"{run.model}: {len(absent)} of the {len(needed)} {category} items the pairs need are "
                            f"not in {path.name} (a partial run?); their pairs are unscored and counted in the coverage")
        for entry in rf.entries.values():
            if entry.turns is None:
                errors += 1
                rollouts[entry.id] = Rollout(entry.id, None, entry.error or "no result")
                continue
            turns = tuple(tuple(tuple(parse_step(step)) for step in turn) for turn in entry.turns)
            rollouts[entry.id] = Rollout(entry.id, turns)
            differs = _compare_logged(items, entry)
            if differs is not None:
                logged += 1
                if differs:
                    differing += 1
                    if len(examples) < 3:
                        examples.append(entry.id)
    if differing:
        warnings.append(
            f"WARNING {run.model}: the user turns recorded in the inference log differ from the {dataset_prefix} "
            f"release on {differing} of {logged} logged items (e.g. {', '.join(examples)}): the run was made on other "
            "dialogue text (another release, or translated turns); its decisions are read against this release's items"
        )
    notes = {"logged_items": logged, "logged_items_differing": differing, "error_entries": errors}
    return RunLoad(run=run, rollouts=rollouts, warnings=tuple(warnings), notes=notes)


def official(run: RunRef, load: RunLoad) -> dict[str, bool] | None:
    """Pass when the item has a result and the score file does not list it as failed."""
    found: results.RunFiles = run.payload
    if not all(c in found.score_files for c in SCORED_CATEGORIES):
        return None
    failed: set[str] = set()
    for category in SCORED_CATEGORIES:
        try:
            failed.update(results.read_score_file(found.score_files[category]).failed)
        except results.ResultsError:
            return None
    return {item_id: roll.turns is not None and item_id not in failed for item_id, roll in load.rollouts.items()}


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
    for category, rows in lines.items():
        (folder / f"{dataset_prefix}_multi_turn_{category}_result.json").write_text("\n".join(rows) + "\n")
    scan = results.find_runs(folder.parent, SCORED_CATEGORIES)
    (found,) = scan.runs
    return RunRef(model=model, location=found.root, details={"dataset": f"BFCL_{found.version}"}, payload=found)
