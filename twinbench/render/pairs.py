"""Rendering ``twinbench pairs``: the funnel table, and every pair and dropped item as JSON or CSV."""

from __future__ import annotations

from collections.abc import Mapping

from twinbench.contract.adapter import Adapter
from twinbench.discovery.funnel import (
    drop_record,
    funnel_rows,
    manifest_record,
    pair_record,
)
from twinbench.model import Manifest
from twinbench.render import tables

PAIR_CSV_HEADERS = ("id", "category", "stage", "status", "reason", "act_id", "anchor_turn", "perturbation",
                    "removed_tools", "decision_bearing", "certification", "compound", "independent_steps")


def render_pairs(adapter: Adapter, manifest: Manifest, fmt: str, noop: Mapping[str, bool] | None = None) -> str:
    """``twinbench pairs`` output; ``noop`` (``--replay``): per scored pair, whether the should-act
    reference's anchor calls leave the state unchanged."""
    if fmt == "json":
        record = {"adapter": adapter.name, "data": adapter.describe(), "data_warnings": list(adapter.data_warnings()),
                  **manifest_record(manifest)}
        if noop is not None:
            _add_reference_noop(record, manifest, noop)
        return tables.json_text(record)
    if fmt == "csv":
        rows = []
        for pair in manifest.pairs:
            rec = pair_record(pair)
            cert = rec["certification"]
            rows.append([pair.ask_id, pair.category, "paired", pair.status, pair.reason, pair.act_id,
                         pair.anchor_turn, rec["perturbation"], rec["removed_tools"], pair.decision_bearing,
                         cert["status"], cert["compound"], cert["independent_steps"]]
                        + ([] if noop is None else [noop[pair.ask_id]]))
        for drop in manifest.dropped:
            rec = drop_record(drop)
            rows.append([rec["id"], rec["category"], rec["stage"], "dropped", rec["reason"]] + [None] * 8
                        + ([] if noop is None else [None]))
        return tables.csv_text(list(PAIR_CSV_HEADERS) + ([] if noop is None else ["reference_noop"]), rows)
    text = funnel_table(adapter, manifest)
    if noop is not None:
        text += "\n" + "\n".join(tables.wrap([_noop_line(manifest, noop)]))
    return text


def _noop_pairs(manifest, noop: dict[str, bool]) -> list:
    return [p for p in manifest.scored if noop[p.ask_id]]


def _add_reference_noop(record: dict, manifest, noop: dict[str, bool]) -> None:
    """``pairs --replay``: the scored pairs whose should-act reference leaves the state unchanged on the anchor."""
    found = _noop_pairs(manifest, noop)
    record["counts"]["reference_noop"] = len(found)
    record["counts"]["reference_noop_by_category"] = {
        c: sum(p.category == c for p in found) for c in manifest.categories}
    scored = {p.ask_id for p in manifest.scored}
    for entry in record["pairs"]:
        if entry["ask_id"] in scored:
            entry["reference_noop"] = noop[entry["ask_id"]]


def _noop_line(manifest, noop: dict[str, bool]) -> str:
    found = _noop_pairs(manifest, noop)
    return (f"reference anchor is a no-op (the state is unchanged after the should-act reference's anchor calls; "
            f"never credited as a workaround): {len(found)} of {len(manifest.scored)} scored pairs"
            + (f" ({', '.join(p.ask_id for p in found)})" if found else ""))


def funnel_table(adapter: Adapter, manifest) -> str:
    """The funnel as a text table, one column per should-ask category."""
    counts = manifest.counts()
    cats = list(manifest.categories)
    rows = [["  " * r.level + r.label] + [r.by_category.get(c, 0) for c in cats] + [r.total()]
            for r in funnel_rows(manifest)]
    head = [f"adapter: {adapter.name}"]
    head += [f"{k}: {v}" for k, v in adapter.describe().items()]
    head.append(f"curation: {'applies' if manifest.curation_applies else 'does not apply'} ({manifest.curation_reason})")
    head += [f"warning: {w}" for w in adapter.data_warnings()]
    opts = [name for name, on in (("--count-login", manifest.options.count_login),
                                  ("--uncertified", manifest.options.uncertified),
                                  ("--all-pairs", manifest.options.all_pairs),
                                  ("--same-world", manifest.options.same_world)) if on]
    if opts:
        head.append(f"population: {' '.join(opts)}")
    body = tables.table(["stage"] + cats + ["total"], rows, [False] + [True] * (len(cats) + 1),
                        width=tables.NARROW_WIDTH)
    tail = [
        f"distinct should-act twins: {counts['distinct_base_twins']} content-verified, "
        f"{counts['distinct_base_twins_scored']} scored; "
        f"distinct should-act anchor turns scored: {counts['distinct_base_anchor_turns_scored']}",
        "every pair and every dropped item with its reason: --format json or --format csv",
    ]
    return "\n".join(tables.wrap(head)) + "\n\n" + body + "\n\n" + "\n".join(tables.wrap(tail))
