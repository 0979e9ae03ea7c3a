"""Turn the extractor's full scenario records into the package's data file (what the adapter reads).

    python extract/compact.py OUT/scenarios.jsonl twinbench_toolsandbox/data/scenarios.jsonl

Keeps, per base scenario: its name and categories, the first user message (the only scripted
user turn), the tools the agent sees, the starting world with its volatile columns, what the
milestones need (tool traces with their arguments, database changes) and what the minefields
forbid (tool names). Plain JSON in, plain JSON out: this step needs no ToolSandbox install.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _rows(value):
    return value if isinstance(value, list) else [value]


def _needs(milestones: dict) -> list[dict]:
    out = []
    for node in milestones.get("nodes", []):
        for c in node["snapshot_constraints"]:
            if c["is_guardrail"]:
                continue
            for row in c.get("target_rows") or []:
                for one in _rows(row):
                    traces = _rows(one.get("tool_trace_parsed") or [])  # a list: alternatives, any of them
                    if traces:
                        out += [{"tool": t["tool_name"], "arguments": t.get("arguments") or {}} for t in traces]
                    elif c["database"] != "SANDBOX":
                        out.append({"database": c["database"], "change": c["similarity_name"].split("_")[0],
                                    "columns": sorted(one)})
    return out


def _forbids(minefields: dict) -> list[str]:
    out = []
    for node in minefields.get("nodes", []):
        for c in node["snapshot_constraints"]:
            if c["is_guardrail"]:
                continue
            for row in c.get("target_rows") or []:
                for one in _rows(row):
                    traces = _rows(one.get("tool_trace_parsed") or [])
                    names = [t["tool_name"] for t in traces] or [one.get("content")]
                    if one.get("sender", "AGENT") in ("AGENT", "EXECUTION_ENVIRONMENT"):
                        out += [name for name in names if name]
    return sorted(set(out))


def compact(record: dict) -> dict:
    return {
        "name": record["name"],
        "categories": sorted(c.lower() for c in record["categories"]),
        "first_user_message": record["first_user_message"],
        "tools": sorted(record["agent_tool_names"]),
        "world": record["starting_world"],
        "volatile": record["volatile_world_columns"],
        "needs": _needs(record["milestones"]),
        "forbids": _forbids(record["minefields"]),
        "simulated_user": record.get("later_user_turns") == "simulated_user",
    }


def main(source: str, target: str) -> None:
    lines = [json.dumps(compact(json.loads(line)), sort_keys=True) for line in Path(source).read_text().splitlines()]
    Path(target).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} scenarios written to {target}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
