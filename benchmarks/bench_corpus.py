"""`twinbench score` at leaderboard scale: N-model corpora against a plain stdlib scorer.

    python benchmarks/bench_corpus.py [--models 17 100] [--repeats 3] [--runs ../shared/bfcl-runs]

For each N it builds a corpus (benchmarks/corpus.py: the real runs replicated under new
names), then times, as whole processes: `twinbench score --bootstrap 0 --fresh` and `twinbench
score --fresh` (default B=10000), which read every run as a first run does; the same two
without --fresh, a rerun that takes every run's kept decisions from the cache; and the stdlib
scorer (benchmarks/stdlib_scorer.py). It prints, per
command, the median wall time over the repeats, MB/s of result files, the peak resident
memory of the process, and the time per model; then the ratios the targets are stated in.
It also times `twinbench --help` and `twinbench adapters`, and the in-process bootstrap
(B=10000) for 20 and 100 models. Skips with a reason when the runs are absent. Asserts nothing.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import corpus  # noqa: E402


def run_once(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB) of one whole process, output discarded."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"command failed ({os.waitstatus_to_exitcode(status)}): {' '.join(argv)}")
    return wall, usage.ru_maxrss / 1024


def measure(argv: list[str], repeats: int) -> tuple[float, float]:
    run_once(argv)  # warm-up (caches, page cache)
    runs = [run_once(argv) for _ in range(repeats)]
    return statistics.median(w for w, _ in runs), max(m for _, m in runs)


def twinbench(*args: str) -> list[str]:
    return [sys.executable, "-m", "twinbench.cli", *args]


def bootstrap_seconds(n_models: int, repeats: int) -> float:
    import numpy as np

    sys.path.insert(0, str(ROOT))
    from twinbench.metrics import stats

    rng = np.random.default_rng(0)
    clusters = np.sort(rng.integers(0, 151, 223))
    act = (rng.random((223, n_models)) < 0.8).astype(float)
    hold = (rng.random((223, n_models)) < 0.6).astype(float)
    covered = np.ones_like(act)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        weights = stats.cluster_weights(clusters, 10_000, 1)
        samples = stats.bootstrap_decision(act, hold, covered, weights)["decision"]
        stats.percentile_interval(samples)
        stats.rank1_shares(samples)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    args = corpus.bench_arguments(__doc__.splitlines()[0], [17, 100])
    if args is None:
        return 0
    work = Path(tempfile.mkdtemp(prefix="twinbench-bench-"))
    # a cache of the benchmark's own, so that the corpora's kept decisions go with it; the
    # downloaded releases are copied from the user's cache (nothing is fetched again; a link
    # below a cache folder is refused)
    sys.path.insert(0, str(ROOT))
    from twinbench import cache

    user_cache = cache.cache_root()
    (work / "cache").mkdir(mode=0o700)
    if (user_cache / "bfcl-eval").is_dir():
        shutil.copytree(user_cache / "bfcl-eval", work / "cache" / "bfcl-eval", symlinks=True,
                        ignore=shutil.ignore_patterns("*.lock", ".unpack-*", ".old-*"))
    os.environ[cache.CACHE_ENV] = str(work / "cache")
    try:
        pairs, labels = work / "pairs.json", work / "labels.json"
        subprocess.run(twinbench("pairs", "--format", "json", "--output", str(pairs)), check=True)
        subprocess.run(twinbench("functions", "--format", "json", "--output", str(labels)), check=True)
        for argv, what in ((twinbench("--help"), "twinbench --help"), (twinbench("adapters"), "twinbench adapters")):
            wall, peak = measure(argv, args.repeats)
            print(f"{what:<28} {wall:6.2f} s  peak {peak:6.0f} MiB")
        per_n = {}
        for n in args.models:
            folder = work / f"corpus-{n}"
            _, size = corpus.build(folder, n, args.runs)
            mb = size / 1e6
            print(f"\n{n} models, {mb:.0f} MB of result files")
            score = ("score", "--results", str(folder / "result"), "--format", "json")
            rows = {  # --fresh: every run read, as on a first run; without it, the decisions kept
                "score --bootstrap 0": twinbench(*score, "--bootstrap", "0", "--fresh"),
                "score (B=10000)": twinbench(*score, "--fresh"),
                "rerun --bootstrap 0 (kept)": twinbench(*score, "--bootstrap", "0"),
                "rerun (B=10000, kept)": twinbench(*score),
                "stdlib scorer": [sys.executable, str(HERE / "stdlib_scorer.py"), str(folder), str(pairs),
                                  str(labels)],
            }
            results = {}
            for name, argv in rows.items():
                wall, peak = measure(argv, args.repeats)
                results[name] = wall
                print(f"  {name:<26} {wall:6.2f} s  {mb / wall:6.1f} MB/s  peak {peak:6.0f} MiB  "
                      f"{1000 * wall / n:6.1f} ms/model")
            base = results["stdlib scorer"]
            print(f"  ratio to stdlib: --bootstrap 0 {results['score --bootstrap 0'] / base:.2f}x, "
                  f"B=10000 {results['score (B=10000)'] / base:.2f}x; rerun (kept decisions) "
                  f"{results['rerun --bootstrap 0 (kept)'] / base:.2f}x, B=10000 {results['rerun (B=10000, kept)'] / base:.2f}x")
            per_n[n] = results
        if len(per_n) >= 2:
            small, large = min(per_n), max(per_n)
            growth = per_n[large]["score --bootstrap 0"] / per_n[small]["score --bootstrap 0"]
            print(f"\n{large} vs {small} models: --bootstrap 0 wall x{growth:.2f} "
                  f"(linear would be x{large / small:.2f})")
        for n in (20, 100):
            print(f"bootstrap B=10000, {n} models x 223 pairs: {bootstrap_seconds(n, args.repeats):.3f} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
