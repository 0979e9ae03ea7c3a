"""The funnel of discovery: its rows stage by stage, and the manifest as plain data.

What ``twinbench pairs`` prints and writes: the rows of the funnel per should-ask category
(:func:`funnel_rows`), and every pair, drop and should-act item as JSON-ready records.
"""

from __future__ import annotations

import attrs

from twinbench.discovery.discover import STAGES
from twinbench.model import Bearing, CertificationStatus, Drop, Manifest, Pair


@attrs.frozen
class FunnelRow:
    """One line of the funnel: a label, its level (0 a total, 1 a part of the line above) and counts."""

    label: str
    level: int
    by_category: dict[str, int]

    def total(self) -> int:
        return sum(self.by_category.values())


def funnel_rows(manifest: Manifest) -> list[FunnelRow]:
    """The funnel, stage by stage, per should-ask category (what ``twinbench pairs`` prints)."""
    cats = list(manifest.categories)
    counts = manifest.counts()

    def tally(records) -> dict[str, int]:
        out = {c: 0 for c in cats}
        for record in records:
            out[record.category] += 1
        return out

    rows = [FunnelRow("should-ask items", 0, tally([*manifest.pairs, *manifest.dropped]))]
    reasons = sorted({(d.stage, d.reason.split(":", 1)[0]) for d in manifest.dropped},
                     key=lambda k: (STAGES.index(k[0]) if k[0] in STAGES else len(STAGES), k[1]))
    for stage, reason in reasons:
        rows.append(FunnelRow(f"dropped at {stage}: {reason}", 1, tally(
            d for d in manifest.dropped if d.stage == stage and d.reason.split(":", 1)[0] == reason)))
    rows.append(FunnelRow("content-verified pairs", 0, counts["content_verified_by_category"]))
    if counts["world_differs"]:
        rows.append(FunnelRow("twins starting from different states" + (" (excluded: --same-world)"
                              if manifest.options.same_world else " (kept and noted)"), 1,
                              counts["world_differs_by_category"]))
    rows.append(FunnelRow("read-only or login-only" + (" (scored: --all-pairs)" if manifest.options.all_pairs
                                                        else " (excluded)"), 1, counts["read_only_by_category"]))
    rows.append(FunnelRow("decision-bearing candidates", 0, counts["candidates_by_category"]))
    kept = manifest.options.all_pairs or manifest.options.uncertified
    rows.append(FunnelRow("construction errors" + (" (scored)" if kept else " (excluded)"), 1, tally(
        p for p in manifest.pairs if p.certification.status is CertificationStatus.CONSTRUCTION_ERROR
        and (p.decision_bearing is Bearing.ACTION or manifest.options.count_login))))
    rows.append(FunnelRow("scored pairs", 0, counts["scored_by_category"]))
    rows.append(FunnelRow("of which compound turns", 1, tally(p for p in manifest.scored if p.certification.compound)))
    return rows


def pair_record(pair: Pair) -> dict[str, object]:
    """One pair as plain data (the ``pairs`` list of ``twinbench pairs --format json``)."""
    cert = pair.certification
    return {
        "ask_id": pair.ask_id,
        "act_id": pair.act_id,
        "category": pair.category,
        "anchor_turn": pair.anchor_turn,
        "act_anchor_turn": pair.act_anchor_turn,
        "perturbation": pair.perturbation.value,
        "removed_tools": list(pair.removed_tools),
        "decision_bearing": pair.decision_bearing,
        "reference_anchor_calls": list(pair.reference_anchor_calls),
        "status": pair.status,
        "reason": pair.reason,
        "certification": {
            "status": cert.status,
            "reason": cert.reason,
            "compound": cert.compound,
            "independent_steps": list(cert.independent),
            "gated_steps": list(cert.gated),
            "origin": cert.origin,
        },
        "notes": list(pair.notes),
        "removed": pair.removed,
        "world_differs": pair.world_differs,
    }


def drop_record(drop: Drop) -> dict[str, object]:
    return {"id": drop.id, "category": drop.category, "stage": drop.stage, "reason": drop.reason}


def manifest_record(manifest: Manifest) -> dict[str, object]:
    return {
        "options": attrs.asdict(manifest.options),
        "curation": {
            "name": manifest.curation_name,
            "applies": manifest.curation_applies,
            "reason": manifest.curation_reason,
        },
        "counts": manifest.counts(),
        "pairs": [pair_record(p) for p in manifest.pairs],
        "dropped": [drop_record(d) for d in manifest.dropped],
        "act_items": [{"id": f.id, "category": f.category, "twin_of": list(f.twin_of), "reason": f.reason}
                      for f in manifest.act_fates],
    }
