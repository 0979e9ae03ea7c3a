#!/usr/bin/env python
"""Extract ToolSandbox scenario definitions into plain JSON (one object per line).

Run with the ToolSandbox venv:
    /work/toolsandbox-work/venv/bin/python /work/toolsandbox-work/extract_scenarios.py

Writes (next to this script unless --out-dir is given):
  scenarios.jsonl          one object per *base* scenario (category no_distraction_tools)
  augmented_variants.jsonl one object per tool-augmentation variant (name, base, categories,
                           agent tool list, augmentation list) -- everything else equals the base
  twins.json               insufficient_information twin analysis
  volatile.json            which values change between two builds a few seconds apart

The scenarios are built exactly as the ToolSandbox CLI does (random.seed(42) and then
tool_sandbox.scenarios.named_scenarios(ToolBackend.DEFAULT)), twice, with a pause in
between, so that values derived from datetime.now() can be detected as volatile.
This file is our own code; it only imports ToolSandbox.
"""

from __future__ import annotations

import argparse
import collections
import functools
import inspect
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import time
from enum import Enum
from pathlib import Path
from typing import Any

import polars as pl

from tool_sandbox.common import evaluation as ts_eval
from tool_sandbox.common.execution_context import (
    DatabaseNamespace,
    RoleType,
    ScenarioCategories,
    new_context,
)
from tool_sandbox.common.tool_conversion import convert_to_openai_tool
from tool_sandbox.common.tool_discovery import ToolBackend
from tool_sandbox.scenarios import named_scenarios

WORLD_DBS = [
    DatabaseNamespace.SETTING,
    DatabaseNamespace.CONTACT,
    DatabaseNamespace.MESSAGING,
    DatabaseNamespace.REMINDER,
]
AUGMENTATION_CATEGORIES = {
    ScenarioCategories.THREE_DISTRACTION_TOOLS,
    ScenarioCategories.TEN_DISTRACTION_TOOLS,
    ScenarioCategories.ALL_TOOLS_AVAILABLE,
    ScenarioCategories.TOOL_NAME_SCRAMBLED,
    ScenarioCategories.TOOL_DESCRIPTION_SCRAMBLED,
    ScenarioCategories.ARG_DESCRIPTION_SCRAMBLED,
    ScenarioCategories.ARG_TYPE_SCRAMBLED,
    ScenarioCategories.ARG_NAME_SCRAMBLED,
}


# --------------------------------------------------------------------------- helpers
def ser(value: Any) -> Any:
    """Turn ToolSandbox objects into plain JSON-able data."""
    if isinstance(value, functools.partial):
        return {
            "callable": ser(value.func),
            "args": [ser(a) for a in value.args],
            "keywords": {k: ser(v) for k, v in value.keywords.items()},
        }
    if inspect.isfunction(value) or inspect.isbuiltin(value):
        if value.__name__ == "<lambda>":
            try:
                return {"lambda_source": inspect.getsource(value).strip()}
            except OSError:
                return {"lambda_source": None}
        return value.__name__
    if isinstance(value, pl.DataFrame):
        return [ser(r) for r in value.to_dicts()]
    if isinstance(value, pl.Series):
        return [ser(v) for v in value.to_list()]
    if isinstance(value, Enum):
        return str(value)
    if isinstance(value, dict):
        return {str(ser(k)): ser(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [ser(v) for v in value]
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return str(value)
    return value


def callable_name(value: Any) -> str:
    if isinstance(value, functools.partial):
        return callable_name(value.func)
    return getattr(value, "__name__", repr(value))


def maybe_parse_json(text: Any) -> Any:
    if not isinstance(text, str):
        return None
    try:
        return json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return None


def ser_constraint(constraint: Any) -> dict[str, Any]:
    namespace = constraint.database_namespace
    defaults = ts_eval._default_dbs_column_similarities[namespace]
    target_rows = (
        None
        if constraint.target_dataframe is None
        else ser(constraint.target_dataframe)
    )
    # tool_trace reference values are JSON strings; expose the parsed form too.
    if target_rows is not None:
        for row in target_rows:
            if "tool_trace" in row and isinstance(row["tool_trace"], str):
                row["tool_trace_parsed"] = maybe_parse_json(row["tool_trace"])
    target_columns = (
        [] if constraint.target_dataframe is None else constraint.target_dataframe.columns
    )
    measures = constraint.column_similarity_measure or {}
    return {
        "database": str(namespace),
        "similarity": ser(constraint.snapshot_constraint),
        "similarity_name": callable_name(constraint.snapshot_constraint),
        "is_guardrail": constraint.snapshot_constraint is ts_eval.guardrail_similarity,
        "reference_milestone_node_index": constraint.reference_milestone_node_index,
        "target_rows": target_rows,
        # effective column measure for every column the target constrains
        "column_similarity": {c: ser(measures.get(c)) for c in target_columns},
        # entries that differ from ToolSandbox's per-database defaults
        "column_similarity_overrides": {
            c: ser(m) for c, m in measures.items() if defaults.get(c) is not m
        },
    }


def ser_matcher(matcher: Any) -> dict[str, Any]:
    nodes = []
    for i, milestone in enumerate(matcher.milestones):
        nodes.append(
            {
                "index": i,
                "guardrail_database_list": ser(milestone.guardrail_database_list),
                "guardrail_database_exclusion_list": ser(
                    milestone.guardrail_database_exclusion_list
                ),
                "snapshot_constraints": [
                    ser_constraint(c) for c in milestone.snapshot_constraints
                ],
            }
        )
    return {
        "edge_list": ser(matcher.edge_list),
        "dag_edges": sorted([list(e) for e in matcher.milestone_dag.edges]),
        "nodes": nodes,
    }


def tool_info(ctx: Any) -> dict[str, Any]:
    """Tools the agent / the user simulator would see, computed under `ctx`."""
    with new_context(ctx):
        available = ctx.get_available_tools(scrambling_allowed=True)
        agent_tools = {
            name: tool
            for name, tool in available.items()
            if RoleType.AGENT in getattr(tool, "visible_to", (RoleType.AGENT,))
        }
        user_available = ctx.get_available_tools(scrambling_allowed=False)
        user_tools = [
            name
            for name, tool in user_available.items()
            if RoleType.USER in getattr(tool, "visible_to", (RoleType.AGENT,))
        ]
        schemas = []
        for name, tool in agent_tools.items():
            try:
                schema = convert_to_openai_tool(tool, name=name)
            except Exception as exc:  # pragma: no cover - reported, not hidden
                schema = {"error": f"{type(exc).__name__}: {exc}"}
            schemas.append(
                {
                    "agent_facing_name": name,
                    "execution_facing_name": tool.__name__,
                    "module": tool.__module__,
                    "openai_schema": schema,
                }
            )
    return {
        "agent_tool_names": list(agent_tools.keys()),
        "user_tool_names": user_tools,
        "agent_tool_schemas": schemas,
    }


def sandbox_rows(ctx: Any) -> list[dict[str, Any]]:
    df = ctx.get_database(
        DatabaseNamespace.SANDBOX,
        get_all_history_snapshots=True,
        drop_sandbox_message_index=False,
    )
    return [ser(r) for r in df.to_dicts()]


def is_few_shot(row: dict[str, Any]) -> bool:
    return row.get("visible_to") == [str(RoleType.USER)]


def serialize_scenario(name: str, scenario: Any) -> dict[str, Any]:
    ctx = scenario.starting_context
    rows = sandbox_rows(ctx)
    messages = []
    for r in rows:
        msg = {
            "sandbox_message_index": r["sandbox_message_index"],
            "sender": r["sender"],
            "recipient": r["recipient"],
            "content": r["content"],
            "visible_to": r["visible_to"],
            "user_simulator_few_shot": is_few_shot(r),
        }
        for extra in (
            "openai_tool_call_id",
            "openai_function_name",
            "tool_call_exception",
            "tool_trace",
        ):
            if r.get(extra) is not None:
                msg[extra] = r[extra]
        if r.get("conversation_active") is not True:
            msg["conversation_active"] = r.get("conversation_active")
        messages.append(msg)
    real = [m for m in messages if not m["user_simulator_few_shot"]]
    user_turns = [
        m for m in real if m["sender"] == str(RoleType.USER) and m["recipient"] == str(RoleType.AGENT)
    ]
    sim_instr = [
        m["content"] for m in real if m["sender"] == str(RoleType.SYSTEM) and m["recipient"] == str(RoleType.USER)
    ]
    agent_sys = [
        m["content"] for m in real if m["sender"] == str(RoleType.SYSTEM) and m["recipient"] == str(RoleType.AGENT)
    ]
    first_idx = ctx.first_user_sandbox_message_index

    world: dict[str, list[dict[str, Any]]] = {}
    world_at_first_user: dict[str, bool] = {}
    for ns in WORLD_DBS:
        latest = ctx.get_database(ns)
        world[str(ns)] = ser(latest)
        at_first = ctx.get_database(ns, sandbox_message_index=first_idx)
        world_at_first_user[str(ns)] = latest.equals(at_first)

    categories = [str(c) for c in scenario.categories]
    record = {
        "name": name,
        "categories": categories,
        "max_messages": scenario.max_messages,
        "tool_allow_list": list(ctx.tool_allow_list)
        if ctx.tool_allow_list is not None
        else None,
        "tool_deny_list": list(ctx.tool_deny_list)
        if ctx.tool_deny_list is not None
        else None,
        "tool_augmentation_list": [str(x) for x in ctx.tool_augmentation_list],
        "trace_tool": ctx.trace_tool,
        **tool_info(ctx),
        "agent_system_prompt": agent_sys,
        "user_simulator_instruction": sim_instr,
        "first_user_message": user_turns[0]["content"] if user_turns else None,
        "predefined_user_turns": [m["content"] for m in user_turns],
        "first_user_sandbox_message_index": first_idx,
        # ToolSandbox plays the conversation from the last predefined message; every
        # user->agent turn after the predefined ones is produced by the user role
        # (OpenAIAPIUser simulator driven by user_simulator_instruction, or CliUser).
        "later_user_turns": "simulated_user",
        "starting_messages": messages,
        "starting_world": world,
        "starting_world_equals_snapshot_at_first_user_message": world_at_first_user,
        "milestones": ser_matcher(scenario.evaluation.milestone_matcher),
        "minefields": ser_matcher(scenario.evaluation.minefield_matcher),
    }
    return record


# --------------------------------------------------------------------------- diffing
def diff_paths(a: Any, b: Any, path: str = "$") -> list[str]:
    if type(a) is not type(b):
        return [path]
    if isinstance(a, dict):
        out: list[str] = []
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{path}.{k}")
            else:
                out.extend(diff_paths(a[k], b[k], f"{path}.{k}"))
        return out
    if isinstance(a, list):
        if len(a) != len(b):
            return [path]
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out.extend(diff_paths(x, y, f"{path}[{i}]"))
        return out
    return [] if a == b else [path]


def generalize(path: str) -> str:
    return re.sub(r"\[\d+\]", "[*]", path)


def volatile_world_columns(rec_a: dict, rec_b: dict) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for db, rows_a in rec_a["starting_world"].items():
        rows_b = rec_b["starting_world"][db]
        cols: set[str] = set()
        if len(rows_a) != len(rows_b):
            cols.add("<row count differs>")
        for ra, rb in zip(rows_a, rows_b):
            for c in ra:
                if ra.get(c) != rb.get(c):
                    cols.add(c)
        if cols:
            out[db] = sorted(cols)
    return out


def rows_modulo(rows: list[dict], drop: list[str]) -> collections.Counter:
    return collections.Counter(
        json.dumps({k: v for k, v in r.items() if k not in drop}, sort_keys=True)
        for r in rows
    )


def world_diff(a: dict, b: dict, volatile: dict[str, list[str]]) -> dict[str, Any]:
    """Multiset diff of rows per database, ignoring volatile columns."""
    out: dict[str, Any] = {}
    for db in a:
        drop = volatile.get(db, [])
        ca, cb = rows_modulo(a[db], drop), rows_modulo(b[db], drop)
        only_a = list((ca - cb).elements())
        only_b = list((cb - ca).elements())
        if only_a or only_b:
            out[db] = {
                "only_in_insufficient": [json.loads(x) for x in only_a],
                "only_in_candidate": [json.loads(x) for x in only_b],
            }
    return out


def norm_text(s: str | None) -> str:
    return re.sub(r"[^a-z0-9 ]", "", (s or "").lower()).strip()


# --------------------------------------------------------------------------- main
def build() -> tuple[float, dict[str, Any]]:
    random.seed(42)  # what tool_sandbox.cli.main does before resolving scenarios
    t0 = time.time()
    scenarios = named_scenarios(preferred_tool_backend=ToolBackend.DEFAULT)
    return t0, scenarios


def main() -> None:
    # Guardrail constraints are appended by ToolSandbox while iterating over a set of
    # DatabaseNamespace values, so their order depends on str hashing. Pin the hash
    # seed so that output (and the calendar-probe diff) is reproducible.
    if os.environ.get("PYTHONHASHSEED") != "0":
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        os.execve(sys.executable, [sys.executable, str(Path(__file__).resolve()), *sys.argv[1:]], env)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out-dir", type=Path, default=Path(__file__).resolve().parent)
    parser.add_argument("--pause", type=float, default=3.0)
    parser.add_argument(
        "--calendar-probe-offset",
        default="+9601h",
        help="faketime offset for the calendar probe build (400 days + 1 hour: changes "
        "year, date, weekday and time of day). Empty string disables the probe.",
    )
    parser.add_argument(
        "--frozen-probe-time",
        default="2025-01-15 12:00:00",
        help="faketime absolute (frozen) clock used to measure volatile timestamps as "
        "exact offsets from build time. Empty string disables it.",
    )
    parser.add_argument("--dump-raw", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.dump_raw is not None:
        # Internal mode used by the calendar probe: one build, raw records only.
        t, scen = build()
        names = [
            n for n, s in scen.items() if ScenarioCategories.NO_DISTRACTION_TOOLS in s.categories
        ]
        with open(args.dump_raw, "w", encoding="utf-8") as f:
            json.dump(
                {"built_at_unix": t, "records": {n: serialize_scenario(n, scen[n]) for n in names}},
                f,
                ensure_ascii=False,
            )
        return

    out: Path = args.out_dir
    out.mkdir(parents=True, exist_ok=True)

    frozen = None
    if args.frozen_probe_time and shutil.which("faketime"):
        frozen_file = out / ".frozen_probe.json"
        subprocess.run(
            [
                "faketime",
                "-f",
                args.frozen_probe_time,
                sys.executable,
                str(Path(__file__).resolve()),
                "--dump-raw",
                str(frozen_file),
            ],
            check=True,
        )
        frozen = json.loads(frozen_file.read_text(encoding="utf-8"))
        frozen_file.unlink()

    probe = None
    if args.calendar_probe_offset and shutil.which("faketime"):
        probe_file = out / ".calendar_probe.json"
        subprocess.run(
            [
                "faketime",
                "-f",
                args.calendar_probe_offset,
                sys.executable,
                str(Path(__file__).resolve()),
                "--dump-raw",
                str(probe_file),
            ],
            check=True,
        )
        probe = json.loads(probe_file.read_text(encoding="utf-8"))
        probe_file.unlink()

    t_a, scen_a = build()
    time.sleep(args.pause)
    t_b, scen_b = build()
    assert list(scen_a) == list(scen_b), "scenario names differ between builds"

    base_names = [
        n for n, s in scen_a.items() if ScenarioCategories.NO_DISTRACTION_TOOLS in s.categories
    ]
    variant_names = [n for n in scen_a if n not in set(base_names)]

    rec_a = {n: serialize_scenario(n, scen_a[n]) for n in base_names}
    rec_b = {n: serialize_scenario(n, scen_b[n]) for n in base_names}

    volatile_report: dict[str, Any] = {
        "build_a_started_unix": t_a,
        "build_b_started_unix": t_b,
        "pause_seconds": args.pause,
        "per_scenario": {},
        "world_columns_union": {},
        "other_paths_union": [],
    }
    union_cols: dict[str, set[str]] = collections.defaultdict(set)
    union_paths: set[str] = set()
    union_cal: set[str] = set()
    for n in base_names:
        vcols = volatile_world_columns(rec_a[n], rec_b[n])
        paths = [
            p
            for p in diff_paths(rec_a[n], rec_b[n])
            if not p.startswith("$.starting_world.")
        ]
        rec_a[n]["volatile_world_columns"] = vcols
        rec_a[n]["volatile_paths"] = sorted({generalize(p) for p in paths})
        rec_a[n]["built_at_unix"] = t_a
        volatile_report["per_scenario"][n] = {
            "world_columns": vcols,
            "other_paths": paths,
        }
        # Values that depend on the calendar date (year / tomorrow / next weekday ...),
        # found by diffing against a build under faketime. Seconds-volatile world
        # columns are excluded since they are reported above.
        cal_paths: list[str] = []
        if probe is not None:
            cal_paths = [
                p
                for p in diff_paths(rec_a[n], probe["records"][n])
                if not (
                    p.startswith("$.starting_world.")
                    and p.rsplit(".", 1)[-1] in vcols.get(p.split(".")[2].split("[")[0], [])
                )
                and p not in ("$.built_at_unix",)
                and not p.startswith("$.volatile_")
            ]
        # Exact offsets (seconds) of volatile world cells from the build-time "now",
        # measured in a build under a frozen clock (null where not volatile).
        offsets: dict[str, list[dict[str, Any]]] = {}
        if frozen is not None:
            f_now = frozen["built_at_unix"]
            for db, cols in vcols.items():
                offsets[db] = [
                    {
                        c: (None if row.get(c) is None else round(row[c] - f_now, 6))
                        for c in cols
                    }
                    for row in frozen["records"][n]["starting_world"][db]
                ]
        rec_a[n]["volatile_world_offsets_seconds"] = offsets
        rec_a[n]["calendar_volatile_paths"] = sorted({generalize(p) for p in cal_paths})
        rec_a[n]["calendar_probe_done"] = probe is not None
        volatile_report["per_scenario"][n]["calendar_paths"] = cal_paths
        union_cal |= {generalize(p) for p in cal_paths}
        for db, cols in vcols.items():
            union_cols[db] |= set(cols)
        union_paths |= {generalize(p) for p in paths}
    volatile_report["world_columns_union"] = {k: sorted(v) for k, v in union_cols.items()}
    volatile_report["other_paths_union"] = sorted(union_paths)
    volatile_report["calendar_probe_offset"] = args.calendar_probe_offset if probe else None
    volatile_report["calendar_paths_union"] = sorted(union_cal)
    volatile_report["frozen_probe_time"] = args.frozen_probe_time if frozen else None
    volatile_report["frozen_probe_built_at_unix"] = frozen["built_at_unix"] if frozen else None

    # ---- twin analysis for insufficient_information scenarios
    twins: dict[str, Any] = {}
    ii = [n for n in base_names if str(ScenarioCategories.INSUFFICIENT_INFORMATION) in rec_a[n]["categories"]]
    for n in ii:
        r = rec_a[n]
        exact, loose = [], []
        for m in base_names:
            if m == n:
                continue
            o = rec_a[m]
            if o["first_user_message"] == r["first_user_message"]:
                exact.append(m)
            elif norm_text(o["first_user_message"]) == norm_text(r["first_user_message"]):
                loose.append(m)
        cands = []
        for m in exact + loose:
            o = rec_a[m]
            vol: dict[str, list[str]] = {}
            for src in (r["volatile_world_columns"], o["volatile_world_columns"]):
                for db, cols in src.items():
                    vol[db] = sorted(set(vol.get(db, [])) | set(cols))
            wd = world_diff(r["starting_world"], o["starting_world"], vol)
            ta, tb = set(r["agent_tool_names"]), set(o["agent_tool_names"])
            da, db_ = set(r["tool_deny_list"] or []), set(o["tool_deny_list"] or [])
            cands.append(
                {
                    "candidate": m,
                    "match": "exact" if m in exact else "normalized",
                    "candidate_categories": o["categories"],
                    "candidate_is_insufficient_information": str(
                        ScenarioCategories.INSUFFICIENT_INFORMATION
                    )
                    in o["categories"],
                    "tools_only_in_insufficient": sorted(ta - tb),
                    "tools_only_in_candidate": sorted(tb - ta),
                    "deny_only_in_insufficient": sorted(da - db_),
                    "deny_only_in_candidate": sorted(db_ - da),
                    "identical_world_modulo_volatile": not wd,
                    "world_diff": wd,
                    "same_user_simulator_instruction": r["user_simulator_instruction"]
                    == o["user_simulator_instruction"],
                    "user_simulator_instruction_insufficient": r["user_simulator_instruction"],
                    "user_simulator_instruction_candidate": o["user_simulator_instruction"],
                    "candidate_milestone_count": len(o["milestones"]["nodes"]),
                    "candidate_minefield_count": len(o["minefields"]["nodes"]),
                }
            )
        twins[n] = {"first_user_message": r["first_user_message"], "candidates": cands}
        r["twin_candidates"] = [
            {
                k: c[k]
                for k in (
                    "candidate",
                    "match",
                    "candidate_is_insufficient_information",
                    "tools_only_in_insufficient",
                    "tools_only_in_candidate",
                    "identical_world_modulo_volatile",
                )
            }
            for c in cands
        ]

    with open(out / "scenarios.jsonl", "w", encoding="utf-8") as f:
        for n in base_names:
            f.write(json.dumps(rec_a[n], ensure_ascii=False) + "\n")

    with open(out / "augmented_variants.jsonl", "w", encoding="utf-8") as f:
        for n in variant_names:
            s = scen_a[n]
            base = next(
                b for b in sorted(base_names, key=len, reverse=True) if n.startswith(b + "_")
            )
            info = tool_info(s.starting_context)
            f.write(
                json.dumps(
                    {
                        "name": n,
                        "base_scenario": base,
                        "categories": [str(c) for c in s.categories],
                        "tool_allow_list": s.starting_context.tool_allow_list,
                        "tool_augmentation_list": [
                            str(x) for x in s.starting_context.tool_augmentation_list
                        ],
                        "agent_tool_names": info["agent_tool_names"],
                        "agent_tool_schemas": info["agent_tool_schemas"],
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )

    good = {
        n: [
            c["candidate"]
            for c in d["candidates"]
            if c["match"] == "exact"
            and not c["candidate_is_insufficient_information"]
            and c["identical_world_modulo_volatile"]
            and not c["tools_only_in_insufficient"]
        ]
        for n, d in twins.items()
    }
    twin_summary = {
        "insufficient_information_scenarios": len(twins),
        "with_any_exact_first_message_match": sum(
            any(c["match"] == "exact" for c in d["candidates"]) for d in twins.values()
        ),
        "with_complete_twin_identical_world": sum(bool(v) for v in good.values()),
        "complete_twins_identical_world": {n: v for n, v in good.items() if v},
        "without_identical_world_complete_twin": sorted(n for n, v in good.items() if not v),
        "definition": "candidate shares the exact first user message, is not itself "
        "insufficient_information, its starting SETTING/CONTACT/MESSAGING/REMINDER rows "
        "equal the insufficient scenario's as multisets after dropping volatile columns, "
        "and its agent tool set is a superset of the insufficient scenario's",
    }
    with open(out / "twins.json", "w", encoding="utf-8") as f:
        json.dump({"summary": twin_summary, "scenarios": twins}, f, indent=2, ensure_ascii=False)
    with open(out / "volatile.json", "w", encoding="utf-8") as f:
        json.dump(volatile_report, f, indent=2, ensure_ascii=False)

    counts = collections.Counter(c for n in base_names for c in rec_a[n]["categories"])
    print(
        json.dumps(
            {
                "all_scenarios_including_augmentations": len(scen_a),
                "base_scenarios": len(base_names),
                "augmented_variants": len(variant_names),
                "category_counts_base": dict(counts.most_common()),
                "insufficient_information": len(ii),
                "twins": {k: v for k, v in twin_summary.items() if k != "definition"},
                "volatile_world_columns_union": volatile_report["world_columns_union"],
                "volatile_other_paths_union": volatile_report["other_paths_union"],
                "calendar_paths_union": volatile_report["calendar_paths_union"],
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    sys.exit(main())
