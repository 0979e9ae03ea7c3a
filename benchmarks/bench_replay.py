"""Replay at corpus scale: `twinbench replay` and `twinbench score --replay` as whole processes.

    python benchmarks/bench_replay.py [--models 17] [--repeats 3] [--runs ../shared/bfcl-runs]

Times, as whole processes (median wall time over the repeats, after one warm-up, and the peak
resident memory): `twinbench replay` on every run of the shared folder, then, for each N, on
an N-model corpus (benchmarks/corpus.py: the real runs replicated under new names), and
`twinbench score --replay --bootstrap 0` on the same corpus. Every run replays each of its
base, miss_func and miss_param items turn by turn in BFCL's own simulator classes; reference
states are computed once per release and item. Target: the 17-model corpus under 60 s.
Skips with a reason when the runs are absent. Asserts nothing.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import corpus  # noqa: E402
from bench_corpus import measure, twinbench  # noqa: E402

TARGET_SECONDS = 60.0


def main() -> int:
    args = corpus.bench_arguments(__doc__.splitlines()[0], [17])
    if args is None:
        return 0
    shared = [str(p) for p in sorted(args.runs.glob("*/result"))]
    argv = twinbench("replay", *[a for p in shared for a in ("--results", p)], "--format", "json")
    wall, peak = measure(argv, args.repeats)
    print(f"replay, the {len(corpus.model_runs(args.runs))} runs of {args.runs.name}/: {wall:6.2f} s  "
          f"peak {peak:6.0f} MiB")
    work = Path(tempfile.mkdtemp(prefix="twinbench-bench-replay-"))
    try:
        for n in args.models:
            folder = work / f"corpus-{n}"
            corpus.build(folder, n, args.runs)
            for name, command in (
                ("replay", twinbench("replay", "--results", str(folder / "result"), "--format", "json")),
                ("score --replay --bootstrap 0", twinbench("score", "--replay", "--bootstrap", "0", "--results",
                                                           str(folder / "result"), "--format", "json")),
            ):
                wall, peak = measure(command, args.repeats)
                verdict = "under" if wall < TARGET_SECONDS else "OVER"
                print(f"{n} models, {name:<28} {wall:6.2f} s  peak {peak:6.0f} MiB  "
                      f"{1000 * wall / n:6.1f} ms/model  ({verdict} the {TARGET_SECONDS:.0f} s target)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
