"""A copy of a BFCL result folder with hostile MathAPI calls: the replay time-limit benchmark.

    python benchmarks/hostile_run.py SOURCE DEST [--precision 10000000]

Copies SOURCE (a folder with ``result/`` and ``score/``, e.g. ``../shared/bfcl-runs/gpt-oss-2025-11``)
to DEST and puts one step ``square_root(number=2, precision=P)`` (an FC step, as the run stores its
calls) first on turn 0 of two items that involve MathAPI: ``multi_turn_base_15`` of the first model
and ``multi_turn_miss_func_31`` of the last (a scored tool-removed pair whose should-ask anchor is
turn 0, so that ``score --replay`` meets the call too). In BFCL's simulator that call is one
``Decimal.sqrt`` in C: at P = 10**7 it runs for minutes. Every other line is copied unchanged.
Prints the lines it changed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

TARGETS = (("base", "multi_turn_base_15"), ("miss_func", "multi_turn_miss_func_31"))


def hostile_step(precision: int) -> list[dict[str, str]]:
    return [{"square_root": json.dumps({"number": 2, "precision": precision})}]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("dest", type=Path)
    parser.add_argument("--precision", type=int, default=10 ** 7)
    args = parser.parse_args()
    if args.dest.exists():
        parser.error(f"{args.dest} exists")
    shutil.copytree(args.source, args.dest)
    models = sorted(p for p in (args.dest / "result").iterdir() if p.is_dir())
    for model, (category, item_id) in zip((models[0], models[-1]), TARGETS):
        path = model / "multi_turn" / f"BFCL_v4_multi_turn_{category}_result.json"
        lines = path.read_text(encoding="utf-8").splitlines()
        for n, line in enumerate(lines):
            entry = json.loads(line)
            if entry.get("id") == item_id and isinstance(entry.get("result"), list) and entry["result"]:
                entry["result"][0].insert(0, hostile_step(args.precision))
                lines[n] = json.dumps(entry)
                print(f"{path.relative_to(args.dest)}: {item_id}, turn 0, step 0: "
                      f"square_root(number=2, precision={args.precision})")
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
