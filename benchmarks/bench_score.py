"""Time and memory of reading and scoring real BFCL runs.

    python benchmarks/bench_score.py [RUNS_DIR] [--repeats N]

RUNS_DIR defaults to ../shared/bfcl-runs beside the repository. Measures, separately:
reading every result and score file (streaming; the peak traced memory should stay well
below the size of the largest file) and the whole `twinbench score` path (discovery,
decisions, B=10000 bootstrap, rendering). Prints medians; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from twinbench.adapters.bfcl.result_files import read_result_file  # noqa: E402
from twinbench.adapters.bfcl.score_files import read_score_file  # noqa: E402
from twinbench.adapters.bfcl.tree import find_runs  # noqa: E402
from twinbench.cli import main  # noqa: E402


def read_all(paths, score_paths):
    for path in paths:
        read_result_file(path)
    for path in score_paths:
        read_score_file(path)


def timed(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times), max(times)


def peak_mib(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def main_bench() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="?", type=Path, default=ROOT.parent / "shared" / "bfcl-runs")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if not args.runs.is_dir():
        print(f"no runs at {args.runs}; pass a BFCL result folder")
        return 2
    scan = find_runs(args.runs)
    paths = [p for run in scan.runs for p in run.files.values()]
    score_paths = [p for run in scan.runs for p in run.score_files.values()]
    sizes = [p.stat().st_size for p in paths + score_paths]
    print(f"{len(scan.runs)} runs, {len(paths)} result + {len(score_paths)} score files, "
          f"{sum(sizes) / 2**20:.1f} MiB (largest {max(sizes) / 2**20:.1f} MiB)")

    med, lo, hi = timed(lambda: read_all(paths, score_paths), args.repeats)
    print(f"read all files:      median {med:.2f} s (min {lo:.2f}, max {hi:.2f}); "
          f"peak traced memory {peak_mib(lambda: read_all(paths, score_paths)):.1f} MiB")

    def score():
        import contextlib
        import io
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            assert main(["score", "--results", str(args.runs), "--format", "json"]) == 0

    score()  # warm-up: fills the BFCL data cache if needed
    med, lo, hi = timed(score, args.repeats)
    print(f"twinbench score:     median {med:.2f} s (min {lo:.2f}, max {hi:.2f}); "
          f"peak traced memory {peak_mib(score):.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main_bench())
