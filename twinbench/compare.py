"""Paired arms: the same model under two settings (a prompt line added, a serving fix, ...).

For each model present in both result trees:

* act side: the discordant counts per distinct should-act anchor turn (``b`` acted in
  the baseline only, ``c`` in the treatment only) and the exact McNemar p-value;
* hold side: the same per pair (``b`` held back in the baseline only, ``c`` in the
  treatment only);
* the change in act, hold and decision on the pairs scored in both arms, with a paired
  cluster-bootstrap interval for the change in decision (shared resamples);
* the share of should-ask anchor turns with an attempt, per category, over every
  should-ask item with a unique anchor (the behaviour a prompt line moves), with McNemar;
* where score files exist, the change in official raw per category, with McNemar.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs
import numpy as np

from twinbench import stats
from twinbench.adapter import Adapter, AdapterError, RunRef
from twinbench.decisions import PairDecision, anchor_attempt, decide
from twinbench.discovery import DiscoveryOptions, Manifest, discover_for, locate_anchors
from twinbench.evaluate import DEFAULT_BOOTSTRAP, DEFAULT_SEED, population_key
from twinbench.model import Item, Side


@attrs.frozen
class Arm:
    run: RunRef
    decisions: dict[str, PairDecision]  # by should-ask id
    attempts: dict[str, bool | None]  # should-ask item id -> attempt on its anchor
    official: Mapping[str, bool] | None


def _discordant(pairs: Sequence[tuple[bool, bool]]) -> dict:
    b = sum(1 for x, y in pairs if x and not y)
    c = sum(1 for x, y in pairs if y and not x)
    return {"n": len(pairs), "b": b, "c": c, "p": stats.mcnemar_exact(b, c)}


def _rate(values: Sequence[bool]) -> float | None:
    return 100.0 * sum(values) / len(values) if values else None


def _change(base: float | None, treat: float | None) -> float | None:
    return None if base is None or treat is None else treat - base


def _unique_anchor_items(adapter: Adapter) -> list[tuple[Item, int, tuple[str, ...]]]:
    """Should-ask items with one anchor, minus curation's bad keys and construction errors."""
    curation = adapter.curation()
    excluded: set[str] = set()
    if curation is not None and curation.applies:
        excluded = set(curation.bad_keys) | set(curation.construction_errors)
    out = []
    for item in adapter.items():
        if item.side is not Side.ASK or item.id in excluded:
            continue
        anchors = locate_anchors(item)
        if len(anchors) != 1:
            continue
        anchor = anchors[0]
        offered_later = {t for turn in item.turns for t in turn.tools}
        if item.twin is not None and anchor < len(item.twin.turns):  # the complete twin offers the removed tool
            offered_later |= set(item.twin.turns[anchor].tools)
        withheld = tuple(sorted(offered_later - set(item.turns[anchor].tools)))
        out.append((item, anchor, withheld))
    return out


def _arm(adapter: Adapter, run: RunRef, manifest: Manifest, ask_items, options: DiscoveryOptions) -> Arm:
    pairs = manifest.scored
    # every item: the pairs, the should-ask attempt shares, and official raw over whole categories
    items = manifest.items
    load = adapter.reader().read(run, sorted(items))
    rule = adapter.rule()
    decisions = {d.ask_id: d for d in decide(run.model, pairs, items, load.rollouts, rule, options.count_login)}
    attempts = {item.id: anchor_attempt(item, anchor, load.rollouts.get(item.id), rule, withheld,
                                        options.count_login)
                for item, anchor, withheld in ask_items}
    return Arm(run, decisions, attempts, load.official)


def compare_arms(adapter: Adapter, baseline: RunRef, treatment: RunRef, options: DiscoveryOptions = DiscoveryOptions(),
                 n_boot: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED,
                 manifests: dict[str, Manifest] | None = None) -> dict:
    """The paired comparison of two arms; ``manifests`` caches discovery by population across calls."""
    scorer_b, scorer_t = adapter.for_run(baseline), adapter.for_run(treatment)
    key = population_key(scorer_b)
    if key != population_key(scorer_t):
        raise AdapterError(
            f"the baseline ({baseline.location}) and the treatment ({treatment.location}) were made on different "
            "data releases; a paired comparison needs the same items"
        )
    manifests = {} if manifests is None else manifests
    if key not in manifests:
        manifests[key] = discover_for(scorer_b, options)
    manifest = manifests[key]
    ask_items = _unique_anchor_items(scorer_b)
    arm_b = _arm(scorer_b, baseline, manifest, ask_items, options)
    arm_t = _arm(scorer_b, treatment, manifest, ask_items, options)

    common = [p for p in manifest.scored
              if arm_b.decisions[p.ask_id].scored and arm_t.decisions[p.ask_id].scored]
    db = [arm_b.decisions[p.ask_id] for p in common]
    dt = [arm_t.decisions[p.ask_id] for p in common]

    # act side once per distinct should-act anchor turn
    act_units: dict[tuple[str, int], tuple[bool, bool]] = {}
    for x, y in zip(db, dt):
        act_units.setdefault((x.act_id, x.act_anchor_turn), (bool(x.acted), bool(y.acted)))
    hold_units = [(bool(x.held_back), bool(y.held_back)) for x, y in zip(db, dt)]

    def metrics(ds: Sequence[PairDecision]) -> dict:
        act = _rate([bool(d.acted) for d in ds])
        hold = _rate([bool(d.held_back) for d in ds])
        return {"act": act, "hold": hold, "decision": None if act is None else (act + hold) / 2}

    mb, mt = metrics(db), metrics(dt)
    out: dict = {
        "model": baseline.model if baseline.model == treatment.model else f"{baseline.model} -> {treatment.model}",
        "baseline": str(baseline.location),
        "treatment": str(treatment.location),
        "data": scorer_b.describe(),
        "pairs": len(common),
        "population": len(manifest.scored),
        "pairs_unscored_in_either_arm": len(manifest.scored) - len(common),
        "distinct_anchor_turns": len(act_units),
    }
    for metric in ("act", "hold", "decision"):
        out[metric] = {"baseline": mb[metric], "treatment": mt[metric], "change": _change(mb[metric], mt[metric])}
    out["mcnemar"] = {"act": _discordant(list(act_units.values())), "hold": _discordant(hold_units)}
    out["mcnemar"]["act"]["unit"] = "distinct should-act anchor turn"
    out["mcnemar"]["hold"]["unit"] = "pair"
    out["warnings"] = list(dict.fromkeys([*scorer_b.data_warnings()]))
    if common and n_boot > 0:
        out["decision"]["ci_change"] = _paired_interval(common, db, dt, n_boot, seed)
    out["ask_attempt_share"] = _attempt_shares(ask_items, arm_b.attempts, arm_t.attempts)
    out["official"] = _official_change(scorer_b, arm_b.official, arm_t.official)
    return out


def _paired_interval(common, db, dt, n_boot: int, seed: int) -> list[float]:
    twins = {tid: k for k, tid in enumerate(dict.fromkeys(p.act_id for p in common))}
    clusters = np.array([twins[p.act_id] for p in common], dtype=np.int64)
    act = np.array([[d.acted, e.acted] for d, e in zip(db, dt)], dtype=float)
    hold = np.array([[d.held_back, e.held_back] for d, e in zip(db, dt)], dtype=float)
    covered = np.ones_like(act)
    weights = stats.cluster_weights(clusters, n_boot, seed)
    samples = stats.bootstrap_decision(act, hold, covered, weights)["decision"]
    diff = stats.paired_difference(samples[:, 0], samples[:, 1])
    low, high = stats.percentile_interval(diff)
    return [float(low), float(high)]


def _attempt_shares(ask_items, base: Mapping[str, bool | None], treat: Mapping[str, bool | None]) -> dict:
    out: dict = {}
    for category in sorted({item.category for item, _, _ in ask_items}):
        ids = [item.id for item, _, _ in ask_items if item.category == category]
        both = [(bool(base[i]), bool(treat[i])) for i in ids if base.get(i) is not None and treat.get(i) is not None]
        entry = {"items": len(ids), "compared": len(both),
                 "baseline": _rate([x for x, _ in both]), "treatment": _rate([y for _, y in both])}
        entry["change"] = _change(entry["baseline"], entry["treatment"])
        entry.update({k: v for k, v in _discordant(both).items() if k in ("b", "c", "p")})
        out[category] = entry
    return out


def _official_change(adapter: Adapter, base: Mapping[str, bool] | None, treat: Mapping[str, bool] | None) -> dict | None:
    if base is None or treat is None:
        return None
    out: dict = {}
    by_cat: dict[str, list[str]] = {}
    for item in adapter.items():
        by_cat.setdefault(item.category, []).append(item.id)
    for category, ids in sorted(by_cat.items()):
        both = [(base[i], treat[i]) for i in ids if i in base and i in treat]
        if not both:
            continue
        entry = {"items": len(both), "baseline": _rate([x for x, _ in both]), "treatment": _rate([y for _, y in both])}
        entry["change"] = _change(entry["baseline"], entry["treatment"])
        entry.update({k: v for k, v in _discordant(both).items() if k in ("b", "c", "p")})
        out[category] = entry
    return out
