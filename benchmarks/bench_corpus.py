"""`twinbench score` at leaderboard scale, paired against a plain stdlib scorer in one run.

    python benchmarks/bench_corpus.py [--models 17 100] [--repeats 5] [--runs ../shared/bfcl-runs]

For each N it builds a corpus (benchmarks/corpus.py: the real runs replicated under new
names), with the score files and without them, and times as whole processes, each paired with
the stdlib scorer (benchmarks/stdlib_scorer.py) on the same corpus: the two commands run in
turn, A B A B ..., after one warm-up each, and the ratio is taken pair by pair, so a machine
whose speed drifts still gives a fair ratio. The rows: a first run (`score --fresh`: every run
read) with `--bootstrap 0` and with the default B=10000, and a rerun (every run's decisions kept
in the cache since the warm-up) with both. It prints each ratio's median and range, each
command's median wall and CPU time and its peak resident memory.

Then the fixed cost, as whole processes (median of the repeats after a warm-up): `score --fresh
--bootstrap 0` on one small model (the first 15 lines of each scored category of one shared run),
`twinbench pairs`, `twinbench --help`, and `python -c pass` for scale. The machine's load
(1-minute load average and the tasks runnable) is printed before and after every row, as other
work on the machine moves every figure. It uses a cache of its own (the downloaded releases are
shared) and compiles twinbench's bytecode first. Skips with a reason when the runs are absent.
Asserts nothing.
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


def load() -> str:
    """The machine's load: the 1-minute average and the tasks runnable right now."""
    try:
        fields = Path("/proc/loadavg").read_text().split()
        return f"load {fields[0]}, {fields[3].split('/')[0]} runnable"
    except (OSError, IndexError):
        return f"load {os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else "load unknown"


def run_once(argv: list[str]) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak RSS MiB) of one whole process, output discarded."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"command failed ({os.waitstatus_to_exitcode(status)}): {' '.join(argv)}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def paired(a: list[str], b: list[str], repeats: int) -> dict:
    """A and B in turn, after one warm-up each; medians, and the ratio A/B pair by pair."""
    run_once(a), run_once(b)
    runs_a, runs_b = [], []
    for _ in range(repeats):
        runs_a.append(run_once(a))
        runs_b.append(run_once(b))
    wall = sorted(x[0] / y[0] for x, y in zip(runs_a, runs_b))
    cpu = sorted(x[1] / y[1] for x, y in zip(runs_a, runs_b))
    return {"ratio": statistics.median(wall), "low": wall[0], "high": wall[-1], "cpu_ratio": statistics.median(cpu),
            "wall": statistics.median(x[0] for x in runs_a), "cpu": statistics.median(x[1] for x in runs_a),
            "peak": max(x[2] for x in runs_a), "base_wall": statistics.median(y[0] for y in runs_b)}


def alone(argv: list[str], repeats: int) -> tuple[float, float, float, float, float]:
    """(median wall, min wall, max wall, median CPU, peak MiB) after one warm-up."""
    run_once(argv)
    runs = [run_once(argv) for _ in range(repeats)]
    walls = sorted(w for w, _, _ in runs)
    return statistics.median(walls), walls[0], walls[-1], statistics.median(c for _, c, _ in runs), \
        max(m for _, _, m in runs)


def twinbench(*args: str) -> list[str]:
    return [sys.executable, "-m", "twinbench.cli", *args]


def small_model(runs: Path, out: Path) -> Path:
    """One small model: the first 15 lines of each scored category of the first v4 run found."""
    source = next(p for p in sorted(runs.glob("*/result/*/multi_turn")) if p.is_dir())
    folder = out / "result" / "small" / "multi_turn"
    folder.mkdir(parents=True)
    for category in ("base", "miss_func", "miss_param"):
        (path,) = source.glob(f"BFCL_v4_multi_turn_{category}_result.json")
        with path.open("rb") as src:
            (folder / path.name).write_bytes(b"".join(line for _, line in zip(range(15), src)))
    return out / "result"


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
        print(f"paired medians of {args.repeats} pairs after a warm-up; ratio = twinbench / stdlib scorer, wall")
        for n in args.models:
            for scores in (True, False):
                folder = work / f"corpus-{n}-{'scores' if scores else 'bare'}"
                _, size = corpus.build(folder, n, args.runs, scores=scores)
                print(f"\n{n} models, {size / 1e6:.0f} MB of result files, "
                      f"{'with' if scores else 'without'} score files [{load()}]")
                base = [sys.executable, str(HERE / "stdlib_scorer.py"), str(folder), str(pairs), str(labels)]
                score = ("score", "--results", str(folder / "result"), "--format", "json")
                rows = {  # --fresh: every run read, as on a first run; without it, the decisions kept
                    "first run, --bootstrap 0": twinbench(*score, "--bootstrap", "0", "--fresh"),
                    "first run, B=10000": twinbench(*score, "--fresh"),
                    "rerun, --bootstrap 0": twinbench(*score, "--bootstrap", "0"),
                    "rerun, B=10000": twinbench(*score),
                }
                for name, argv in rows.items():
                    r = paired(argv, base, args.repeats)
                    print(f"  {name:<25} {r['ratio']:5.2f}x ({r['low']:.2f}-{r['high']:.2f}; CPU {r['cpu_ratio']:.2f}x)"
                          f"  twinbench {r['wall']:5.2f} s wall {r['cpu']:5.2f} s CPU peak {r['peak']:4.0f} MiB"
                          f"  stdlib {r['base_wall']:5.2f} s  [{load()}]")
        small = small_model(args.runs, work / "small")
        print(f"\nfixed cost (median wall, min-max; CPU; peak) [{load()}]")
        for what, argv in (("score --fresh --bootstrap 0, one small model",
                            twinbench("score", "--results", str(small), "--bootstrap", "0", "--fresh")),
                           ("twinbench pairs", twinbench("pairs")),
                           ("twinbench --help", twinbench("--help")),
                           ("python -c pass", [sys.executable, "-c", "pass"])):
            wall, low, high, cpu, peak = alone(argv, args.repeats)
            print(f"  {what:<46} {wall:5.3f} s ({low:.3f}-{high:.3f}); CPU {cpu:5.3f} s; peak {peak:4.0f} MiB "
                  f"[{load()}]")
        for n in (20, 100):
            print(f"bootstrap B=10000, {n} models x 223 pairs: {bootstrap_seconds(n, args.repeats):.3f} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
