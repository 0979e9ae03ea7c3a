"""Finding BFCL multi-turn result and score trees.

Layouts accepted by :func:`find_runs` (``[result/]`` means the folder is optional)::

    ROOT/[result/]<model>/multi_turn/BFCL_v4_multi_turn_<category>_result.json   (v4, nested)
    ROOT/[result/]<model>/BFCL_v3_multi_turn_<category>_result.json              (v3, flat)

ROOT may also be a single model folder. Score files are looked up in the sibling
``score/`` tree (``X/result/<model>/...`` -> ``X/score/<model>/...``) or under an
explicit ``scores_root``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import attrs

from twinbench.errors import AdapterError, TwinbenchError
from twinbench.model import RunRef, RunSearch


class ResultsError(TwinbenchError):
    """A fatal problem with the user's result files. One clear message, no traceback. (Defined
    here, at the bottom of the result readers, so that finding runs loads none of the line readers.)"""


#: the multi-turn categories BFCL writes result files for
CATEGORIES: tuple[str, ...] = ("base", "long_context", "miss_func", "miss_param")


#: the categories a twinbench run needs by default
DEFAULT_CATEGORIES: tuple[str, ...] = ("base", "miss_func", "miss_param")


_NAME_RE = re.compile(r"^BFCL_(v[34])_multi_turn_(\w+?)_(result|score)\.json$")


_VERSION_RE = re.compile(r"BFCL_(v\d+)_")


_PRUNED_DIRS = frozenset({"__pycache__", "node_modules", "site-packages"})


@attrs.frozen
class RunFiles:
    """One model's complete run: a result file for every requested category.

    ``files`` and ``score_files`` map category -> path; ``score_files`` may be empty
    or partial. ``extra_files`` holds result files of categories that were found
    but not requested (e.g. ``long_context``).
    """

    model: str
    root: Path
    version: str
    files: Mapping[str, Path]
    score_files: Mapping[str, Path] = attrs.field(factory=dict)
    extra_files: Mapping[str, Path] = attrs.field(factory=dict)


@attrs.frozen
class SkippedRun:
    """A model folder with BFCL result files that cannot be used, and why."""

    model: str
    root: Path
    reason: str


@attrs.frozen
class RunScan:
    """What :func:`find_runs` found: complete runs (sorted by model), skipped folders, warnings."""

    runs: tuple[RunFiles, ...]
    skipped: tuple[SkippedRun, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def models(self) -> tuple[str, ...]:
        return tuple(run.model for run in self.runs)


def _parse_name(name: str) -> tuple[str, str, str] | None:
    """``(version, category, kind)`` of a BFCL multi-turn file name, else ``None``."""
    match = _NAME_RE.match(name)
    if match is None:
        return None
    return match.group(1), match.group(2), match.group(3)


def dataset_version_of(path: Path | str) -> str:
    """``"v3"`` or ``"v4"``, read from a BFCL file name such as ``BFCL_v4_multi_turn_base_result.json``."""
    name = Path(path).name
    match = _VERSION_RE.match(name)
    if match is None or match.group(1) not in ("v3", "v4"):
        raise ResultsError(
            f"cannot tell the BFCL dataset version from the file name {name!r} "
            "(expected BFCL_v3_... or BFCL_v4_...)"
        )
    return match.group(1)


def _normalise_categories(categories: Sequence[str]) -> tuple[str, ...]:
    if isinstance(categories, str):
        categories = (categories,)
    wanted: list[str] = []
    for category in categories:
        name = str(category).strip()
        if name.startswith("multi_turn_"):
            name = name[len("multi_turn_") :]
        if name not in CATEGORIES:
            raise ResultsError(
                f"unknown BFCL multi-turn category {category!r}; choose from {', '.join(CATEGORIES)}"
            )
        if name not in wanted:
            wanted.append(name)
    if not wanted:
        raise ResultsError("no BFCL category requested")
    return tuple(wanted)


def _check_directory(path: Path, what: str) -> Path:
    try:
        if not path.exists():
            raise ResultsError(f"{what} {path} does not exist")
        if not path.is_dir():
            raise ResultsError(f"{what} {path} is not a directory")
    except OSError as exc:  # e.g. permission denied on a parent
        raise ResultsError(f"cannot access {what} {path}: {exc.strerror or exc}") from None
    return path


def _walk_bfcl_files(root: Path, warnings: list[str], links: list[tuple[Path, Path]]) -> Iterator[Path]:
    """Every ``BFCL_v[34]_multi_turn_*_result.json`` below ``root`` in sorted order.

    A folder that is a symbolic link is walked where it points, under that folder's own path
    (``links`` receives ``(link, target)``), so a linked model folder is one run, named and
    looked up (its score files) as the folder it names, however many links lead to it.
    """

    def on_error(exc: OSError) -> None:
        warnings.append(f"cannot list {exc.filename}: {exc.strerror or exc}")

    seen: set[str] = set()
    tops = [root]
    while tops:
        for directory, dirnames, filenames in os.walk(tops.pop(0), onerror=on_error):
            real = os.path.realpath(directory)
            if real in seen:
                dirnames[:] = []
                continue
            seen.add(real)
            kept = []
            for name in sorted(d for d in dirnames if not d.startswith(".") and d not in _PRUNED_DIRS):
                path = Path(directory) / name
                if path.is_symlink():
                    target = Path(os.path.realpath(path))
                    links.append((path, target))
                    tops.append(target)  # walked after the tree, where it is (once: ``seen``)
                else:
                    kept.append(name)
            dirnames[:] = kept
            for filename in sorted(filenames):
                if filename.startswith("BFCL_v") and filename.endswith("_result.json"):
                    yield Path(directory) / filename


def _linked_from(model_dir: Path, links: Sequence[tuple[Path, Path]]) -> list[tuple[Path, Path]]:
    """The ``(link, the model folder as seen through it)`` of every link that leads to ``model_dir``."""
    out = []
    for link, target in links:
        if model_dir == target or target in model_dir.parents:
            out.append((link, link / model_dir.relative_to(target)))
    return out


def _score_tree_hint(root: Path) -> str:
    """When ``root`` holds BFCL score files and no result files, say that it is a score tree and where to point."""
    for directory, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _PRUNED_DIRS)
        found = next((f for f in sorted(filenames) if f.startswith("BFCL_v") and f.endswith("_score.json")), None)
        if found is not None:
            beside = root.parent / "result"
            where = f" (here: --results {beside})" if root.name == "score" and beside.is_dir() else ""
            return (f": it holds BFCL score files ({found}), so it is a score tree; give --results the result tree "
                    f"the harness wrote beside it{where}, and --scores this folder when it is not the sibling "
                    "score/ tree")
    return ""


def _score_candidates(
    model_dir: Path, file_name: str, nested: bool, scores_root: Path | None
) -> list[Path]:
    layouts = (("multi_turn",), ()) if nested else ((), ("multi_turn",))
    if scores_root is None:
        if model_dir.parent.name != "result":
            return []
        bases = [model_dir.parent.parent / "score" / model_dir.name]
    else:
        bases = [scores_root / "score" / model_dir.name, scores_root / model_dir.name]
        if scores_root.name == model_dir.name:
            bases.append(scores_root)
    return [base.joinpath(*layout, file_name) for base in bases for layout in layouts]


def _first_file(candidates: Sequence[Path]) -> Path | None:
    for candidate in candidates:
        try:
            if candidate.is_file():
                return candidate
        except OSError:
            continue
    return None


def find_runs(
    root: Path | str,
    categories: Sequence[str] = DEFAULT_CATEGORIES,
    scores_root: Path | str | None = None,
) -> RunScan:
    """Locate BFCL multi-turn runs under ``root``.

    A run is complete when its model folder holds a result file for every requested
    category; other folders with BFCL result files are reported in ``skipped``.
    ``scores_root``, when given, replaces the sibling ``score/`` tree as the place to
    look for score files (``scores_root/[score/]<model>/[multi_turn/]...``).
    """
    wanted = _normalise_categories(categories)
    root = _check_directory(Path(root).expanduser(), "result folder")
    scores = None if scores_root is None else _check_directory(Path(scores_root).expanduser(), "score folder")

    warnings: list[str] = []
    links: list[tuple[Path, Path]] = []
    # model folder -> list of (version, category, path)
    found: dict[Path, list[tuple[str, str, Path]]] = {}
    any_bfcl = False
    for path in _walk_bfcl_files(root, warnings, links):
        parsed = _parse_name(path.name)
        if parsed is None:
            continue
        any_bfcl = True
        version, category, _ = parsed
        if category not in CATEGORIES:
            continue  # not a multi-turn category twinbench knows (ignored)
        parent = path.parent
        model_dir = parent.parent if parent.name == "multi_turn" else parent
        found.setdefault(model_dir, []).append((version, category, path))

    if not any_bfcl:
        raise ResultsError(
            f"no BFCL multi-turn result files (BFCL_v3/v4_multi_turn_<category>_result.json) under {root}"
            + _score_tree_hint(root)
        )

    if not found:
        warnings.append(
            f"BFCL result files under {root} are all of other categories than {', '.join(CATEGORIES)}"
        )
    runs: list[RunFiles] = []
    skipped: list[SkippedRun] = []
    for model_dir, entries in found.items():
        model = model_dir.name
        versions = sorted({version for version, _, _ in entries})
        if len(versions) > 1:
            skipped.append(SkippedRun(model, model_dir, "mixes BFCL_v3 and BFCL_v4 result files"))
            continue
        by_category: dict[str, list[Path]] = {}
        for _, category, path in entries:
            by_category.setdefault(category, []).append(path)
        doubled = sorted(c for c, paths in by_category.items() if len(paths) > 1)
        if doubled:
            where = "; ".join(
                f"{c}: " + ", ".join(str(p.relative_to(model_dir)) for p in by_category[c]) for c in doubled
            )
            skipped.append(SkippedRun(model, model_dir, f"more than one result file for a category ({where})"))
            continue
        missing = [c for c in wanted if c not in by_category]
        if missing:
            noun = "result file" if len(missing) == 1 else "result files"
            skipped.append(SkippedRun(model, model_dir, f"missing {', '.join(missing)} {noun}"))
            continue

        version = versions[0]
        files = {c: by_category[c][0] for c in wanted}
        extra = {c: by_category[c][0] for c in CATEGORIES if c in by_category and c not in wanted}
        through = _linked_from(model_dir, links)
        for link, _ in through:
            warnings.append(f"{link} is a symbolic link to {os.path.realpath(link)}: its run is scored once, "
                            f"as {model} (the folder it names), with that folder's score files")
        score_files: dict[str, Path] = {}
        for category, path in files.items():
            score_name = f"BFCL_{version}_multi_turn_{category}_score.json"
            nested = path.parent.name == "multi_turn"
            # beside the folder itself first, then beside each link to it (a tree of links with its own score/)
            places = [model_dir, *(seen for _, seen in through)]
            hit = _first_file([c for place in places for c in _score_candidates(place, score_name, nested, scores)])
            if hit is not None:
                score_files[category] = hit
        if score_files and len(score_files) < len(files):
            lacking = [c for c in files if c not in score_files]
            warnings.append(f"{model}: no score file for {', '.join(lacking)} (found for {', '.join(score_files)})")
        elif not score_files and scores is not None:
            warnings.append(f"{model}: no score files under {scores}")
        runs.append(RunFiles(model, model_dir, version, files, score_files, extra))

    runs.sort(key=lambda run: (run.model, str(run.root)))
    skipped.sort(key=lambda skip: (skip.model, str(skip.root)))
    seen: dict[str, list[Path]] = {}
    for run in runs:
        seen.setdefault(run.model, []).append(run.root)
    for model, roots in seen.items():
        if len(roots) > 1:
            warnings.append(f"model name {model!r} is used by {len(roots)} folders: " + ", ".join(map(str, roots)))
    return RunScan(tuple(runs), tuple(skipped), tuple(warnings))


# --------------------------------------------------------------------------- runs

#: the categories a complete run has a result file of (what twinbench scores)
SCORED_CATEGORIES = ("base", "miss_func", "miss_param")


def search(paths: Sequence[Path], models: Sequence[str] = (), scores: Path | None = None) -> RunSearch:
    runs: list[RunRef] = []
    skipped: list[tuple[str, str]] = []
    warnings: list[str] = []
    seen: set[str] = set()
    names: set[str] = set()  # every model found, selected or not
    for path in paths:
        try:
            scan = find_runs(path, SCORED_CATEGORIES, scores_root=scores)
        except ResultsError as exc:
            raise AdapterError(str(exc)) from exc
        warnings.extend(scan.warnings)
        skipped.extend((str(s.root), s.reason) for s in scan.skipped)
        for found in scan.runs:
            real = os.path.realpath(found.root)
            if real in seen:
                warnings.append(f"{found.root} was found twice (overlapping --results folders); it is scored once")
                continue
            seen.add(real)
            names.add(found.model)
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
                           f"{', '.join(map(str, paths))} (found: {', '.join(sorted(names)) or 'none'})")
    runs = _distinct_names(runs, warnings)
    return RunSearch(runs=tuple(sorted(runs, key=lambda r: r.model)), skipped=tuple(skipped), warnings=tuple(warnings))


_LAYOUT_FOLDERS = {"result", "results", "multi_turn"}


def _distinct_names(runs: list[RunRef], warnings: list[str]) -> list[RunRef]:
    """Runs of the same model in different folders get ``model@<folders that tell them apart>``."""
    by_name: dict[str, list[RunRef]] = {}
    for run in runs:
        by_name.setdefault(run.model, []).append(run)
    out = []
    for name, group in by_name.items():
        if len(group) == 1:
            out.extend(group)
            continue
        ancestors = [[p for p in reversed(r.location.resolve().parent.parts)
                      if p not in _LAYOUT_FOLDERS and p != r.location.resolve().anchor] for r in group]
        depth = 1
        while depth < max(len(a) for a in ancestors) and len({tuple(a[:depth]) for a in ancestors}) < len(group):
            depth += 1
        labels = ["/".join(reversed(a[:depth])) for a in ancestors]
        if len(set(labels)) < len(group):  # no folder name tells them apart: number them
            labels = [f"{label}#{i + 1}" for i, label in enumerate(labels)]
        renamed = [attrs.evolve(r, model=f"{name}@{label}") for r, label in zip(group, labels)]
        warnings.append(f"model {name} has runs in {len(group)} folders; they are scored separately as "
                        + ", ".join(r.model for r in renamed))
        out.extend(renamed)
    return out
