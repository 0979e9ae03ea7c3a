"""``twinbench build --adapter when2call``: the paired suite, runnable by any client.

Three files:

* ``when2call.jsonl``: both sides of every scored pair as rows in When2Call's own schema
  (``uuid, source, source_id, question, correct_answer, answers, target_tool, tools``), so
  When2Call's ``run_openai_inference.py`` runs on it unchanged. A constructed act twin is
  the should-ask row with the complete request (``orig_question`` or ``orig_tools``) in its
  place and ``correct_answer: tool_call``. Every row has a ``twinbench`` object:
  ``{"pair": <should-ask id>, "side": "should_act" | "should_ask"}``.
* ``openai.jsonl``: one OpenAI Batch API line per row (``custom_id`` is the row's uuid; set
  ``body.model``), the tools in the OpenAI function schema with When2Call's name rewrite (``.``
  becomes ``_``) and BFCL-style types as JSON-schema types (``dict`` is ``object``, ...).
* ``pairs.json``: the manifest (every pair and every item's fate).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from twinbench.errors import AdapterError

if TYPE_CHECKING:
    from twinbench.discovery import Manifest

#: a constructed act twin's id: the should-ask row's uuid and this suffix
TWIN_SUFFIX = "-act"
SUITE_FILE = "when2call.jsonl"
OPENAI_FILE = "openai.jsonl"
PAIRS_FILE = "pairs.json"
#: the keys of a When2Call row that a built row keeps (the rest describe the perturbation)
ROW_KEYS = ("uuid", "source", "source_id", "question", "correct_answer", "answers", "target_tool", "tools")
#: BFCL-style parameter types in When2Call's schemas, as JSON-schema types
JSON_TYPES = {"dict": "object", "float": "number", "tuple": "array", "any": "string"}


def _constructed_twin(row: Mapping[str, object], twin_id: str) -> dict[str, object]:
    out = {key: row[key] for key in ROW_KEYS if key in row}
    out["uuid"] = twin_id
    if row["correct_answer"] == "request_for_info":
        out["question"] = row["orig_question"]
    else:
        out["tools"] = row["orig_tools"]
    out["correct_answer"] = "tool_call"
    return out


def suite_rows(manifest: Manifest, rows: Mapping[str, object]) -> list[dict[str, object]]:
    """Both sides of every scored pair, act twin first, in the manifest's order."""
    out: list[dict[str, object]] = []
    for pair in manifest.scored:
        ask = rows[pair.ask_id].data
        if pair.act_id in rows:  # the leaderboard's own tool_call item
            act = {key: rows[pair.act_id].data[key] for key in ROW_KEYS if key in rows[pair.act_id].data}
        else:
            act = _constructed_twin(ask, pair.act_id)
        ask_row = {key: ask[key] for key in ROW_KEYS if key in ask}
        out.append({**act, "twinbench": {"pair": pair.ask_id, "side": "should_act"}})
        out.append({**ask_row, "twinbench": {"pair": pair.ask_id, "side": "should_ask"}})
    return out


def _schema(node: object) -> object:
    if isinstance(node, dict):
        out = {k: _schema(v) for k, v in node.items()}
        if isinstance(out.get("type"), str):
            out["type"] = JSON_TYPES.get(out["type"], out["type"])
        return out
    if isinstance(node, list):
        return [_schema(v) for v in node]
    return node


def openai_tool(raw: object) -> dict[str, object]:
    """One When2Call tool (a JSON string) in the OpenAI function schema, named as When2Call's script names it."""
    schema = json.loads(raw) if isinstance(raw, str) else dict(raw)
    function = {"name": str(schema["name"]).replace(".", "_"), "description": schema.get("description", ""),
                "parameters": _schema(schema.get("parameters") or {"type": "object", "properties": {}})}
    return {"type": "function", "function": function}


def openai_request(row: Mapping[str, object]) -> dict[str, object]:
    """One line of the OpenAI Batch API (set ``body.model`` before sending it)."""
    body = {"messages": [{"role": "user", "content": row["question"]}],
            "tools": [openai_tool(t) for t in row.get("tools") or []]}
    return {"custom_id": row["uuid"], "method": "POST", "url": "/v1/chat/completions", "body": body}


def write(manifest: Manifest, rows: Mapping[str, object], data: Mapping[str, str], out: Path) -> list[Path]:
    if not manifest.scored:
        raise AdapterError("discovery found no scored pairs, so there is no suite to build "
                           "(see `twinbench pairs --adapter when2call`)")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise AdapterError(f"--out {out} is a file; give a folder")
    built = suite_rows(manifest, rows)
    from twinbench.discovery import manifest_record
    from twinbench.render import output

    record = {"adapter": "when2call", "data": dict(data), **manifest_record(manifest)}
    texts = {SUITE_FILE: "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in built),
             OPENAI_FILE: "".join(json.dumps(openai_request(r), ensure_ascii=False) + "\n" for r in built),
             PAIRS_FILE: json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False) + "\n"}
    # every file claimed (none may be an input) before any is written, each atomically
    return output.write_files([("--out", out / name, text) for name, text in texts.items()])
