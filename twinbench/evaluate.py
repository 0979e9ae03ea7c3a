"""From runs to scores: the shared path every adapter gets for free.

``evaluate`` reads each run through its adapter (the one that should score it, e.g.
the dataset release that produced it), decides every pair, and collects the
official verdicts. ``summarize`` turns that into per-model scores with coverage,
bootstrap intervals, rank-1 shares, official raw on the same items and the rank
agreement between the two orders.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import attrs
import numpy as np

from twinbench import stats
from twinbench.adapter import Adapter, RunLoad, RunRef
from twinbench.decisions import PairDecision, decide
from twinbench.discovery import DiscoveryOptions, Manifest, discover_for
from twinbench.scoring import ScoreOptions, score_models

DEFAULT_BOOTSTRAP = 10_000
DEFAULT_SEED = 20260612
INTERVAL_METRICS = ("act", "hold", "decision", "decision_credited")


@attrs.frozen
class ModelRun:
    """One scored run: its decisions, official verdicts and everything worth a warning."""

    run: RunRef
    population: str  # which manifest (data) it was scored against
    decisions: tuple[PairDecision, ...]
    official: dict[str, bool] | None
    load: RunLoad = attrs.field(repr=False)


@attrs.frozen
class Evaluation:
    runs: tuple[ModelRun, ...]
    manifests: dict[str, Manifest]
    adapters: dict[str, Adapter]
    skipped: tuple[tuple[str, str], ...] = ()
    warnings: tuple[str, ...] = ()


def population_key(adapter: Adapter) -> str:
    described = adapter.describe()
    return described.get("fingerprint") or described.get("release") or adapter.name


def evaluate(
    adapter: Adapter,
    runs: Sequence[RunRef],
    options: DiscoveryOptions = DiscoveryOptions(),
    skipped: Sequence[tuple[str, str]] = (),
    warnings: Sequence[str] = (),
) -> Evaluation:
    manifests: dict[str, Manifest] = {}
    adapters: dict[str, Adapter] = {}
    out: list[ModelRun] = []
    all_warnings = list(warnings)
    for run in runs:
        scorer = adapter.for_run(run)
        key = population_key(scorer)
        if key not in manifests:
            manifests[key] = discover_for(scorer, options)
            adapters[key] = scorer
            all_warnings.extend(scorer.data_warnings())
        manifest = manifests[key]
        pairs = manifest.scored
        needed = {p.ask_id for p in pairs} | {p.act_id for p in pairs}
        load = scorer.read_rollouts(run, sorted(needed))
        all_warnings.extend(load.warnings)
        items = {item.id: item for item in scorer.items() if item.id in needed}
        decisions = decide(run.model, pairs, items, load.rollouts, scorer.effects(), options.count_login)
        out.append(ModelRun(run, key, tuple(decisions), scorer.official_verdicts(run, load), load))
    return Evaluation(tuple(out), manifests, adapters, tuple(skipped), tuple(all_warnings))


def _official(model_run: ModelRun, options: ScoreOptions) -> dict | None:
    if model_run.official is None:
        return None
    used = [d for d in model_run.decisions if d.scored and _kept(d, options)]
    asks = sorted({d.ask_id for d in used})
    twins = sorted({d.act_id for d in used})
    verdict = model_run.official

    def rate(ids: list[str]) -> float | None:
        return 100.0 * sum(bool(verdict.get(i)) for i in ids) / len(ids) if ids else None

    by_cat = {}
    for cat in sorted({d.category for d in used}):
        by_cat[cat] = rate(sorted({d.ask_id for d in used if d.category == cat}))
    return {"ask_items": rate(asks), "base_twins": rate(twins), "ask_items_by_category": by_cat,
            "n_ask_items": len(asks), "n_base_twins": len(twins)}


def _kept(d: PairDecision, options: ScoreOptions) -> bool:
    if options.same_history and not d.same_history:
        return False
    if options.drop_ended_early and (d.act_ended_early or d.ask_ended_early):
        return False
    return True


def _bootstrap(group: list[ModelRun], manifest: Manifest, options: ScoreOptions, n_boot: int, seed: int):
    """Cluster-bootstrap samples over the group's population (shared resamples across models)."""
    pairs = manifest.scored
    index = {p.ask_id: i for i, p in enumerate(pairs)}
    twins = {tid: k for k, tid in enumerate(dict.fromkeys(p.act_id for p in pairs))}
    clusters = np.array([twins[p.act_id] for p in pairs], dtype=np.int64)
    shape = (len(pairs), len(group))
    act, hold, cred = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    covered, covered_act = np.zeros(shape), np.zeros(shape)
    for m, model_run in enumerate(group):
        seen_anchor: set[tuple[str, int]] = set()
        for d in model_run.decisions:
            if not (d.scored and _kept(d, options)):
                continue
            i = index[d.ask_id]
            covered[i, m] = 1
            act[i, m], hold[i, m], cred[i, m] = d.acted_on_base, d.held_back, d.held_back_credited
            key = (d.act_id, d.act_anchor_turn)
            if not options.distinct_anchor_turns or key not in seen_anchor:
                covered_act[i, m] = 1
                seen_anchor.add(key)
    if not pairs:
        return None
    weights = stats.cluster_weights(clusters, n_boot, seed)
    acts = stats.bootstrap_decision(act, hold, covered_act, weights)["act"]
    holds = stats.bootstrap_decision(act, hold, covered, weights, hold_credited=cred)
    return {
        "act": acts,
        "hold": holds["hold"],
        "decision": (acts + holds["hold"]) / 2,
        "decision_credited": (acts + holds["hold_credited"]) / 2,
    }


def summarize(evaluation: Evaluation, options: ScoreOptions = ScoreOptions(), n_boot: int = DEFAULT_BOOTSTRAP,
              seed: int = DEFAULT_SEED) -> dict:
    """Per-model scores and the statistics around them, as plain data."""
    models: list[dict] = []
    groups: dict[str, list[ModelRun]] = {}
    agreements: list[dict] = []
    for model_run in evaluation.runs:
        groups.setdefault(model_run.population, []).append(model_run)
    for key, group in groups.items():
        manifest = evaluation.manifests[key]
        adapter = evaluation.adapters[key]
        decisions = [d for mr in group for d in mr.decisions]
        scores = score_models(decisions, options, manifest.categories)
        samples = _bootstrap(group, manifest, options, n_boot, seed) if n_boot > 0 else None
        shares = ({metric: stats.rank1_shares(samples[metric]) for metric in ("decision", "decision_credited")}
                  if samples is not None else {})
        group_records: list[dict] = []
        for m, model_run in enumerate(group):
            record = dict(scores.get(model_run.run.model) or {"model": model_run.run.model, "pairs": 0})
            record["data"] = adapter.describe()
            record["curation_applies"] = manifest.curation_applies
            record["population"] = len(manifest.scored)
            record["location"] = str(model_run.run.location)
            record["run_notes"] = dict(model_run.load.notes)
            if samples is not None:
                ci = {}
                for metric in INTERVAL_METRICS:
                    low, high = stats.percentile_interval(samples[metric][:, m])
                    ci[metric] = [None if np.isnan(low) else float(low), None if np.isnan(high) else float(high)]
                record["ci"] = ci
                record["rank1"] = {metric: float(shares[metric][m]) for metric in shares}
                record["rank1_among"] = len(group)
            record["official"] = _official(model_run, options)
            group_records.append(record)
        # ranks and their agreement only among models scored on the same pairs
        _ranks(group_records)
        agreement = _agreement(group_records)
        if agreement is not None:
            described = adapter.describe()
            agreement["data"] = f"{described.get('release', adapter.name)} ({len(manifest.scored)} pairs)"
            agreements.append(agreement)
        models.extend(group_records)
    out = {
        "models": sorted(models, key=lambda r: r["model"]),
        "options": attrs.asdict(options),
        "bootstrap": {"resamples": n_boot, "seed": seed, "cluster": "should-act twin", "interval": "95% percentile"},
        "skipped": [{"folder": f, "reason": r} for f, r in evaluation.skipped],
        "warnings": list(evaluation.warnings),
    }
    out["rank_agreement"] = agreements
    return out


def _rank(values: dict[str, float]) -> dict[str, int]:
    """Competition ranks (1 = highest)."""
    ordered = sorted(values.values(), reverse=True)
    return {name: 1 + ordered.index(v) for name, v in values.items()}


def _ranks(models: list[dict]) -> None:
    decision = {r["model"]: r["decision"] for r in models if r.get("decision") is not None}
    official = {r["model"]: r["official"]["ask_items"] for r in models
                if r.get("official") and r["official"]["ask_items"] is not None and r["model"] in decision}
    rd, ro = _rank(decision), _rank(official)
    for r in models:
        if r["model"] in rd:
            r["rank_decision"] = rd[r["model"]]
        if r.get("official") and r["model"] in ro:
            r["official"]["rank"] = ro[r["model"]]


def _agreement(models: list[dict]) -> dict | None:
    rows = [(r["official"]["ask_items"], r["decision"]) for r in models
            if r.get("official") and r["official"]["ask_items"] is not None and r.get("decision") is not None]
    if len(rows) < 2:
        return None
    x, y = [a for a, _ in rows], [b for _, b in rows]
    return {"models": len(rows), "spearman": stats.spearman(x, y), "kendall": stats.kendall_tau_b(x, y),
            "between": "official raw on the scored should-ask items and decision accuracy"}


def policy_runs(adapter: Adapter, directory: Path, options: DiscoveryOptions = DiscoveryOptions()) -> list[RunRef]:
    """Write the reference policies as result files of the adapter's own format and return the runs."""
    from twinbench.policies import POLICIES, policy_rollouts

    manifest = discover_for(adapter, options)
    items = {item.id: item for item in adapter.items()}
    return [adapter.write_rollouts(directory, name, policy_rollouts(name, manifest.scored, items))
            for name in POLICIES]
