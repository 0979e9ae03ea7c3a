"""Build N-model BFCL corpora from the real runs in ../shared/bfcl-runs.

    python benchmarks/corpus.py OUT_DIR --models 17 [--runs ../shared/bfcl-runs]

Every model-run found under the runs folder (v3 flat and v4 nested layouts alike) is
replicated, in turn, under a new model name until there are N: ``<model>--copy-<k>``.
Result files are symlinked, not copied, so a 100-model corpus costs little disk, but every
file is still read in full by whoever scores the corpus. Score files come along
(``score/``), copied with their entries relabelled as the copy's, so that the official
verdicts are read as on a real leaderboard.
The layout written is BFCL's own: ``OUT/result/<name>/...`` and ``OUT/score/<name>/...``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_RUNS = ROOT.parent / "shared" / "bfcl-runs"


def model_runs(runs: Path) -> list[tuple[str, Path, Path | None]]:
    """(model, result folder, score folder or None) for every model-run under ``runs``."""
    found = []
    for result_root in sorted(runs.glob("*/result")):
        for model_dir in sorted(p for p in result_root.iterdir() if p.is_dir()):
            score_dir = result_root.parent / "score" / model_dir.name
            found.append((model_dir.name, model_dir, score_dir if score_dir.is_dir() else None))
    return found


def _link_tree(source: Path, target: Path) -> int:
    """Symlink every file under ``source`` into the same place under ``target``; return the bytes linked."""
    size = 0
    for path in sorted(source.rglob("*")):
        if path.is_file() and path.name.startswith("BFCL_"):
            dest = target / path.relative_to(source)
            dest.parent.mkdir(parents=True, exist_ok=True)
            if not dest.exists():
                os.symlink(path.resolve(), dest)
            size += path.stat().st_size
    return size


def _rename_scores(source: Path, target: Path, model: str, name: str) -> None:
    """Copy the score files under ``source`` with their failed entries relabelled as model ``name``.

    A copy's score files must be of that copy, or twinbench rightly refuses them as another
    model's, and the corpus would skip the official verdicts a real leaderboard has.
    """
    old, new = f'"model_name": "{model}"', f'"model_name": "{name}"'
    for path in sorted(source.rglob("*")):
        if path.is_file() and path.name.startswith("BFCL_"):
            dest = target / path.relative_to(source)
            dest.parent.mkdir(parents=True, exist_ok=True)
            if not dest.exists():
                with path.open(encoding="utf-8") as src, dest.open("w", encoding="utf-8") as out:
                    for line in src:
                        out.write(line.replace(old, new))


def build(out: Path, n_models: int, runs: Path = DEFAULT_RUNS, scores: bool = True) -> tuple[int, int]:
    """Write an ``n_models`` corpus to ``out`` (``scores``: with the score files); return (models, result bytes)."""
    sources = model_runs(runs)
    if not sources:
        raise SystemExit(f"no BFCL model runs under {runs}")
    result_bytes = 0
    for k in range(n_models):
        model, result_dir, score_dir = sources[k % len(sources)]
        name = f"{model}--copy-{k // len(sources)}"
        result_bytes += _link_tree(result_dir, out / "result" / name)
        if scores and score_dir is not None:
            _rename_scores(score_dir, out / "score" / name, model, name)
    return n_models, result_bytes


def bench_arguments(description: str, models: list[int]) -> argparse.Namespace | None:
    """The benchmarks' common start: ``--models``, ``--repeats``, ``--runs``; ``None`` (after saying
    so) when the runs are absent. Prints the machine and compiles twinbench's bytecode once, as an
    installed package has it (under PYTHONDONTWRITEBYTECODE=1 every timed process would recompile)."""
    import platform
    import subprocess

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--models", type=int, nargs="+", default=models)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--runs", type=Path, default=DEFAULT_RUNS)
    args = parser.parse_args()
    if not args.runs.is_dir():
        print(f"skipped: {args.runs} is absent (the real BFCL runs beside the repository)")
        return None
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "twinbench")], check=True,
                   stdout=subprocess.DEVNULL)
    return args


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--models", type=int, default=17)
    parser.add_argument("--runs", type=Path, default=DEFAULT_RUNS)
    args = parser.parse_args()
    if not args.runs.is_dir():
        print(f"skipped: {args.runs} is absent (the real BFCL runs beside the repository)")
        return 0
    n, size = build(args.out, args.models, args.runs)
    print(f"{n} model-runs, {size / 2**20:.1f} MiB of result files, in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
