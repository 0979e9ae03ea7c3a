"""Concurrent first runs: N `twinbench score` processes started at once on an empty cache.

Each repeat makes a new empty cache folder (TWINBENCH_CACHE) and a new key folder beside it
(TWINBENCH_CACHE_KEY_FILE, outside the cache), starts N processes of
`python -m twinbench.cli score --adapter bfcl --bootstrap 0` together, and waits for all. It
prints, per repeat, the wall time from the first start to the last exit, how many exited 0,
how many distinct standard outputs there were, and the first error line of each failure;
then the median wall. The processes fetch the release themselves (pip, the network), as a
first run does. The code measured is the one `python -m twinbench.cli` imports (set PYTHONPATH
to choose a source tree).
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def one_repeat(processes: int, extra: list[str]) -> tuple[float, list[int], int, list[str]]:
    work = Path(tempfile.mkdtemp(prefix="twinbench-concurrent-"))
    try:
        (work / "cache").mkdir(mode=0o700)
        env = {**os.environ, "TWINBENCH_CACHE": str(work / "cache"),
               "TWINBENCH_CACHE_KEY_FILE": str(work / "config" / "cache-key")}
        env.pop("TWINBENCH_NO_CACHE", None)
        argv = [sys.executable, "-m", "twinbench.cli", "score", "--adapter", "bfcl", "--bootstrap", "0", *extra]
        outs = [(work / f"out-{i}", work / f"err-{i}") for i in range(processes)]
        handles = [(open(o, "wb"), open(e, "wb")) for o, e in outs]
        start = time.perf_counter()
        procs = [subprocess.Popen(argv, stdout=o, stderr=e, env=env, cwd=work) for o, e in handles]
        codes = [p.wait() for p in procs]
        wall = time.perf_counter() - start
        for o, e in handles:
            o.close()
            e.close()
        distinct = len({o.read_bytes() for o, _ in outs if o.stat().st_size})
        errors = []
        for code, (_, err) in zip(codes, outs):
            if code != 0:
                lines = [ln for ln in err.read_text(errors="replace").splitlines() if "error" in ln.lower()]
                errors.append((lines or ["(no error line)"])[-1][:160])
        return wall, codes, distinct, errors
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("extra", nargs="*", help="more options for `score` (after --)")
    args = parser.parse_args()
    walls = []
    for repeat in range(args.repeats):
        wall, codes, distinct, errors = one_repeat(args.processes, args.extra)
        walls.append(wall)
        tally = dict(collections.Counter(codes))
        print(f"repeat {repeat + 1}: wall {wall:6.2f} s  exit statuses {tally}  distinct outputs {distinct}")
        for line in collections.Counter(errors).most_common():
            print(f"    {line[1]} x {line[0]}")
    print(f"median wall of {args.processes} concurrent first runs: {statistics.median(walls):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
