"""A plain standard-library decision scorer: the speed baseline for `twinbench score`.

    python benchmarks/stdlib_scorer.py CORPUS PAIRS_JSON LABELS_JSON

What a researcher would write by hand for the same job, and what the paper's own scorer
does: read every result file of every model with ``json``, find the anchor turn of each
pair (from ``twinbench pairs --format json``), read the calls of that turn (JSON in a
string, native records, python-style text via ``ast``), keep the names on the tool list,
and count attempts (a ``mutate`` label from ``twinbench functions --format json``) to give
act, hold and decision per model. It is a baseline for timing, not a second implementation
to trust: it knows fewer call shapes than twinbench and skips every check.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path


def names_in_step(step) -> list[str]:
    if isinstance(step, dict):
        return [k.rsplit(".", 1)[-1] for k in step]
    if isinstance(step, list):
        return [n for s in step for n in names_in_step(s)]
    if not isinstance(step, str):
        return []
    text = step.strip()
    if text[:1] in "[{":
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if value is not None:
            if isinstance(value, dict) and "name" in value:
                return [str(value["name"]).rsplit(".", 1)[-1]]
            if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                return [str(v.get("name", next(iter(v), ""))).rsplit(".", 1)[-1] for v in value]
            return names_in_step(value)
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError):
        return []
    body = tree.body.elts if isinstance(tree.body, (ast.List, ast.Tuple)) else [tree.body]
    out = []
    for node in body:
        if isinstance(node, ast.Call):
            func = node.func
            out.append(func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", ""))
    return out


def main(corpus: Path, pairs_json: Path, labels_json: Path) -> None:
    pairs = [p for p in json.loads(pairs_json.read_text())["pairs"] if p["status"] == "scored"]
    mutate = {f["name"] for f in json.loads(labels_json.read_text()) if f["label"] == "mutate"} | {"echo"}
    wanted = {p["ask_id"]: p["anchor_turn"] for p in pairs} | {p["act_id"]: p["act_anchor_turn"] for p in pairs}
    for model_dir in sorted((corpus / "result").iterdir()):
        anchors: dict[str, list[str]] = {}
        for path in sorted(model_dir.rglob("BFCL_*_result.json")):
            with path.open(encoding="utf-8") as handle:
                for line in handle:
                    try:
                        row = json.loads(line)
                    except ValueError:
                        continue
                    turn = wanted.get(row.get("id"))
                    result = row.get("result")
                    if turn is None or not isinstance(result, list):
                        continue
                    steps = result[turn] if turn < len(result) and isinstance(result[turn], list) else []
                    anchors[row["id"]] = [n for s in steps for n in names_in_step(s)]
        act = hold = n = 0
        for p in pairs:
            if p["act_id"] in anchors and p["ask_id"] in anchors:
                n += 1
                act += any(x in mutate for x in anchors[p["act_id"]])
                hold += not any(x in mutate for x in anchors[p["ask_id"]])
        if n:
            print(f"{model_dir.name}\t{n}\t{100 * act / n:.1f}\t{100 * hold / n:.1f}\t{50 * (act + hold) / n:.1f}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
