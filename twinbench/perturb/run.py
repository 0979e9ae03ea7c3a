"""``twinbench perturb``: construct, write, and find the constructed pairs again from the files alone."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Collection
from pathlib import Path

import attrs

from twinbench.contract.adapter import Adapter
from twinbench.discovery import discover_for, manifest_record
from twinbench.errors import AdapterError
from twinbench.model import CertificationStatus, Perturbation
from twinbench.perturb.construct import constructions
from twinbench.perturb.report import PerturbReport
from twinbench.perturb.review import read_review, review_text
from twinbench.perturb.values import value_removals

PAIRS_FILE = "pairs.json"


def read_item_list(path: Path) -> list[str]:
    """``--items FILE``: one should-act item id a line (blank lines and ``#`` comments skipped)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AdapterError(f"--items {path}: cannot be read ({exc})") from None
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def perturb(adapter: Adapter, out: Path, wanted: Collection[str] | None = None, values: bool = False,
            review: Path | None = None, reviewed: Path | None = None) -> PerturbReport:
    """Construct every perturbable twin, write it in the leaderboard's format, and verify the round trip.

    ``values`` (implied by ``review`` or ``reviewed``) also constructs value-removed twins; ``review``
    writes their rewrites for review, ``reviewed`` reads a filled-in review back (approved ones are
    certified, the others not).
    """
    values = values or review is not None or reviewed is not None
    perturber = adapter.constructor()
    items = adapter.items()
    if wanted is not None:
        known = {i.id for i in items}
        unknown = [w for w in wanted if w not in known]
        if unknown:
            raise AdapterError(f"--items: {len(unknown)} id(s) are no item of the {adapter.name} data, "
                               f"e.g. {unknown[0]}")
    chosen = None if wanted is None else set(wanted)
    made, refused = constructions(items, adapter.rule(), perturber, chosen)
    removals = value_removals(items, adapter.rule(), perturber, chosen) if values else []
    verdicts = read_review(reviewed, removals) if reviewed is not None else None
    acting = len({c.item_id for c in made}) + len(refused)
    written = perturber.write(made, out)
    if values:
        written += perturber.write_values(removals, out)
        written += perturber.record_review(verdicts.approved if verdicts else {}, verdicts.rejected if verdicts else (),
                                           reviewed, out)
    if review is not None:
        write_atomically(Path(review), review_text(removals, markdown=Path(review).suffix.lower() == ".md"))
        written.append(Path(review))
    expected = {c.new_id: (c.item_id, c.turn, Perturbation.TOOL_REMOVED, set(c.withheld))
                for c in made if c.perturbable}
    expected |= {r.new_id: (r.item_id, r.turn, Perturbation.VALUE_REMOVED, set()) for r in removals if r.perturbable}
    report = PerturbReport(adapter=adapter.name, data=dict(adapter.describe()), items=acting, refused=refused,
                           constructions=tuple(made), verified=(), scored=(), unverified={}, written=tuple(written),
                           values=values, removals=tuple(removals),
                           review=None if reviewed is None else str(reviewed),
                           rejected=() if verdicts is None else verdicts.rejected,
                           blank=() if verdicts is None else verdicts.blank)
    if not expected:  # nothing to read back: the funnel says why
        return report
    reloaded = perturber.reload(out, only=True)
    manifest = discover_for(reloaded)
    verified, scored, certified, unverified = [], [], [], {}
    pairs = {p.ask_id: p for p in manifest.pairs}
    dropped = {d.id: d.reason for d in manifest.dropped}
    for new_id, (item_id, turn, kind, withheld) in expected.items():
        pair = pairs.get(new_id)
        if pair is None:
            unverified[new_id] = dropped.get(new_id, "not found in the written files")
        elif (pair.act_id != item_id or pair.act_anchor_turn != turn
              or pair.perturbation is not kind or set(pair.removed_tools) != withheld):
            unverified[new_id] = (f"paired with {pair.act_id} turn {pair.act_anchor_turn}, {pair.perturbation.value}, "
                                  f"removed {', '.join(pair.removed_tools) or 'nothing'}")
        else:
            verified.append(new_id)
            if pair.scored:
                scored.append(new_id)
            if kind is Perturbation.VALUE_REMOVED and pair.certification.status is CertificationStatus.CERTIFIED:
                certified.append(new_id)
    record = {"adapter": adapter.name, "data": reloaded.describe(), **manifest_record(manifest)}
    pairs_path = Path(out) / PAIRS_FILE
    write_atomically(pairs_path, json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    return attrs.evolve(report, verified=tuple(verified), scored=tuple(scored), unverified=unverified,
                        certified=tuple(certified), written=(*written, pairs_path))


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, then rename it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
