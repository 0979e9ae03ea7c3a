"""Time the cluster-bootstrap pipeline of twinbench.stats at leaderboard scale.

Run from the repository root with plain Python (no extra tools needed):

    python benchmarks/bench_bootstrap.py [--n-boot 10000] [--repeats 5]

It builds 20 models x 223 twin pairs on 151 clusters with random 0/1 scores,
then times cluster_weights + bootstrap_decision (with credited holds) +
percentile_interval (every metric) + rank1_shares (both decision metrics).
Reports the median wall time over the repeats, the peak traced memory of one
extra run under tracemalloc, and a verdict against the target "well under
one second" (taken as a median below 0.5 s).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

try:
    from twinbench.metrics import stats
except ModuleNotFoundError:  # not installed: run from a source checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from twinbench.metrics import stats

N_MODELS = 20
N_PAIRS = 223
N_CLUSTERS = 151
TARGET_SECONDS = 1.0
WELL_UNDER_SECONDS = 0.5


def make_data(seed: int) -> dict[str, np.ndarray]:
    """Random scores with every cluster non-empty and a few uncovered pairs."""
    rng = np.random.default_rng(seed)
    clusters = np.concatenate(
        [np.arange(N_CLUSTERS), rng.integers(0, N_CLUSTERS, N_PAIRS - N_CLUSTERS)]
    )
    rng.shuffle(clusters)
    shape = (N_PAIRS, N_MODELS)
    act = (rng.random(shape) < rng.uniform(0.5, 0.95, N_MODELS)).astype(np.int8)
    hold = (rng.random(shape) < rng.uniform(0.2, 0.9, N_MODELS)).astype(np.int8)
    hold_credited = np.maximum(hold, (rng.random(shape) < 0.2).astype(np.int8))
    covered = (rng.random(shape) < 0.95).astype(np.int8)
    return {
        "clusters": clusters,
        "act": act,
        "hold": hold,
        "hold_credited": hold_credited,
        "covered": covered,
    }


def pipeline(data: dict[str, np.ndarray], n_boot: int, seed: int) -> dict[str, object]:
    """One full run: weights, resampled rates, intervals and rank-1 shares."""
    weights = stats.cluster_weights(data["clusters"], n_boot, seed)
    samples = stats.bootstrap_decision(
        data["act"], data["hold"], data["covered"], weights, data["hold_credited"]
    )
    intervals = {key: stats.percentile_interval(value) for key, value in samples.items()}
    shares = {
        key: stats.rank1_shares(samples[key]) for key in ("decision", "decision_credited")
    }
    return {"intervals": intervals, "shares": shares}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-boot", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=20240601)
    args = parser.parse_args(argv)

    data = make_data(args.seed)
    pipeline(data, args.n_boot, args.seed)  # warm-up (imports, BLAS threads)

    times = []
    for repeat in range(args.repeats):
        start = time.perf_counter()
        pipeline(data, args.n_boot, args.seed + repeat)
        times.append(time.perf_counter() - start)
    median = statistics.median(times)

    tracemalloc.start()
    pipeline(data, args.n_boot, args.seed)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    print(
        f"twinbench.stats bootstrap: {N_MODELS} models x {N_PAIRS} pairs on "
        f"{N_CLUSTERS} clusters, B={args.n_boot}, repeats={args.repeats}"
    )
    print("  runs (s):  " + ", ".join(f"{t:.4f}" for t in times))
    print(f"  median:    {median:.4f} s  (min {min(times):.4f}, max {max(times):.4f})")
    print(f"  peak mem:  {peak / 2**20:.1f} MiB (tracemalloc, one run)")
    if median < WELL_UNDER_SECONDS:
        verdict = f"PASS: median {median:.3f} s is well under {TARGET_SECONDS:.0f} s"
    elif median < TARGET_SECONDS:
        verdict = f"MARGINAL: median {median:.3f} s is under {TARGET_SECONDS:.0f} s but not well under"
    else:
        verdict = f"FAIL: median {median:.3f} s exceeds {TARGET_SECONDS:.0f} s"
    print(verdict)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
