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
from twinbench.adapter import Adapter, AdapterError, RunLoad, RunRef
from twinbench.decisions import PairDecision, decide
from twinbench.discovery import DiscoveryOptions, Manifest, discover_for
from twinbench.errors import TwinbenchError
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
    manifests: dict[str, Manifest] | None = None,
) -> Evaluation:
    """Decide every pair for every run. ``manifests`` (by :func:`population_key`) saves re-discovery."""
    manifests = dict(manifests or {})
    adapters: dict[str, Adapter] = {}
    out: list[ModelRun] = []
    all_warnings = list(warnings)
    all_skipped = list(skipped)
    for run in runs:
        scorer = adapter.for_run(run)
        key = population_key(scorer)
        if key not in adapters:
            if key not in manifests:
                manifests[key] = discover_for(scorer, options)
            adapters[key] = scorer
            all_warnings.extend(scorer.data_warnings())
        manifest = manifests[key]
        pairs = manifest.scored
        needed = {p.ask_id for p in pairs} | {p.act_id for p in pairs}
        try:
            load = scorer.reader().read(run, sorted(needed))
        except TwinbenchError as exc:  # one unreadable run does not stop the others
            all_skipped.append((str(run.location), f"cannot be read: {exc}"))
            continue
        all_warnings.extend(load.warnings)
        decisions = decide(run.model, pairs, manifest.items, load.rollouts, scorer.rule(), options.count_login)
        out.append(ModelRun(run, key, tuple(decisions), load.official, load))
    return Evaluation(tuple(out), {k: manifests[k] for k in adapters}, adapters, tuple(all_skipped),
                      tuple(all_warnings))


def _official(model_run: ModelRun, options: ScoreOptions, only: set[str] | None = None) -> dict | None:
    """Official raw on the model's scored should-ask items and their base twins (or only the given pairs)."""
    if model_run.official is None:
        return None
    used = [d for d in model_run.decisions if d.scored and _kept(d, options) and (only is None or d.ask_id in only)]
    asks = sorted({d.ask_id for d in used})
    twins = sorted({d.act_id for d in used})
    verdict = model_run.official

    def rate(ids: list[str]) -> float | None:
        judged = [verdict[i] for i in ids if i in verdict]  # items without a verdict are left out
        return 100.0 * sum(judged) / len(judged) if judged else None

    by_cat = {}
    for cat in sorted({d.category for d in used}):
        by_cat[cat] = rate(sorted({d.ask_id for d in used if d.category == cat}))
    out = {"ask_items": rate(asks), "base_twins": rate(twins), "ask_items_by_category": by_cat,
           "n_ask_items": sum(1 for i in asks if i in verdict), "n_base_twins": sum(1 for i in twins if i in verdict)}
    return out if out["ask_items"] is not None or out["base_twins"] is not None else None


def _kept(d: PairDecision, options: ScoreOptions) -> bool:
    if options.same_history and not d.same_history:
        return False
    if options.drop_ended_early and (d.act_ended_early or d.ask_ended_early):
        return False
    return True


@attrs.frozen(eq=False)
class _Matrices:
    """A group's decisions as (pairs x models) 0/1 matrices over the population's scored pairs."""

    ask_ids: list[str]
    clusters: np.ndarray
    act: np.ndarray
    hold: np.ndarray
    credited: np.ndarray
    covered: np.ndarray
    covered_act: np.ndarray  # == covered, or only the first pair of each anchor turn (--distinct-anchor-turns)


def _matrices(group: list[ModelRun], manifest: Manifest, options: ScoreOptions) -> _Matrices:
    pairs = manifest.scored
    index = {p.ask_id: i for i, p in enumerate(pairs)}
    twins = {tid: k for k, tid in enumerate(dict.fromkeys(p.act_id for p in pairs))}
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
            act[i, m], hold[i, m], cred[i, m] = d.acted, d.held_back, d.held_back_credited
            key = (d.act_id, d.act_anchor_turn)
            if not options.distinct_anchor_turns or key not in seen_anchor:
                covered_act[i, m] = 1
                seen_anchor.add(key)
    clusters = np.array([twins[p.act_id] for p in pairs], dtype=np.int64)
    return _Matrices([p.ask_id for p in pairs], clusters, act, hold, cred, covered, covered_act)


def _rates(mx: _Matrices, keep: np.ndarray, weights: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """act, hold, decision, decision_credited on the kept pairs: (B, M) with weights, (M,) without."""
    covered, covered_act = mx.covered * keep[:, None], mx.covered_act * keep[:, None]
    if weights is None:
        acts = stats.point_rates(mx.act, mx.hold, covered_act)["act"]
        holds = stats.point_rates(mx.act, mx.hold, covered, hold_credited=mx.credited)
    else:
        acts = stats.bootstrap_decision(mx.act, mx.hold, covered_act, weights)["act"]
        holds = stats.bootstrap_decision(mx.act, mx.hold, covered, weights, hold_credited=mx.credited)
    return {"act": acts, "hold": holds["hold"], "decision": (acts + holds["hold"]) / 2,
            "decision_credited": (acts + holds["hold_credited"]) / 2}


def _interval(samples: np.ndarray) -> list[float | None]:
    low, high = stats.percentile_interval(samples)
    return [None if np.isnan(low) else float(low), None if np.isnan(high) else float(high)]


def summarize(evaluation: Evaluation, options: ScoreOptions = ScoreOptions(), n_boot: int = DEFAULT_BOOTSTRAP,
              seed: int = DEFAULT_SEED, population: DiscoveryOptions | None = None) -> dict:
    """Per-model scores and the statistics around them, as plain data.

    Intervals use each model's own covered pairs. Ranks, rank-1 shares and rank agreement
    compare models on the same items: the pairs every model of the population covers.
    """
    models: list[dict] = []
    groups: dict[str, list[ModelRun]] = {}
    agreements: list[dict] = []
    for model_run in evaluation.runs:
        groups.setdefault(model_run.population, []).append(model_run)
    for key, group in groups.items():
        manifest = evaluation.manifests[key]
        adapter = evaluation.adapters[key]
        scores = score_models([d for mr in group for d in mr.decisions], options, manifest.categories)
        mx = _matrices(group, manifest, options)
        everyone = np.ones(len(mx.ask_ids), dtype=bool)
        common = mx.covered.all(axis=1) if len(group) else everyone
        common_ids = {a for a, keep in zip(mx.ask_ids, common) if keep}
        ranked = _rates(mx, common)
        own_samples = shares = None
        if n_boot > 0 and mx.ask_ids:
            weights = stats.cluster_weights(mx.clusters, n_boot, seed)
            own_samples = _rates(mx, everyone, weights)
            if common.any():
                common_samples = _rates(mx, common, weights)
                shares = {m: stats.rank1_shares(common_samples[m]) for m in ("decision", "decision_credited")}
        group_records: list[dict] = []
        for m, model_run in enumerate(group):
            record = dict(scores.get(model_run.run.model) or {"model": model_run.run.model, "pairs": 0})
            record["data"] = adapter.describe()
            record["curation_applies"] = manifest.curation_applies
            record["population"] = len(manifest.scored)
            run = model_run.run
            record["location"] = run.details.get(BUILTIN) or str(run.location)  # no temporary paths in output
            record["run_notes"] = dict(model_run.load.notes)
            if own_samples is not None:
                record["ci"] = {metric: _interval(own_samples[metric][:, m]) for metric in INTERVAL_METRICS}
            if shares is not None:
                record["rank1"] = {metric: float(shares[metric][m]) for metric in shares}
            record["official"] = _official(model_run, options)
            official_common = _official(model_run, options, common_ids)
            decision_common = float(ranked["decision"][m])
            record["ranking"] = {
                "among": len(group),
                "pairs": len(common_ids),
                "decision": None if np.isnan(decision_common) else decision_common,
                "official_ask_items": official_common["ask_items"] if official_common else None,
            }
            group_records.append(record)
        _ranks(group_records)
        agreement = _agreement(group_records)
        if agreement is not None:
            described = adapter.describe()
            agreement["data"] = f"{described.get('release', adapter.name)} ({len(manifest.scored)} pairs)"
            agreement["pairs"] = len(common_ids)
            agreements.append(agreement)
        models.extend(group_records)
    return {
        "models": sorted(models, key=lambda r: r["model"]),
        "options": attrs.asdict(options),
        "population_options": attrs.asdict(population or DiscoveryOptions()),
        "bootstrap": {"resamples": n_boot, "seed": seed, "cluster": "should-act twin", "interval": "95% percentile"},
        "skipped": [{"folder": f, "reason": r} for f, r in evaluation.skipped],
        "warnings": list(evaluation.warnings),
        "rank_agreement": agreements,
    }


RANK_DECIMALS = 9  # values equal to this many decimals tie (1/3 + 2/3 is 50, not 49.99999999999999)


def _rank(values: dict[str, float]) -> dict[str, int]:
    """Competition ranks (1 = highest); values equal after rounding share a rank."""
    rounded = {name: round(v, RANK_DECIMALS) for name, v in values.items()}
    ordered = sorted(rounded.values(), reverse=True)
    return {name: 1 + ordered.index(v) for name, v in rounded.items()}


def _ranks(models: list[dict]) -> None:
    decision = {r["model"]: r["ranking"]["decision"] for r in models if r["ranking"]["decision"] is not None}
    official = {r["model"]: r["ranking"]["official_ask_items"] for r in models
                if r["ranking"]["official_ask_items"] is not None and r["model"] in decision}
    rd, ro = _rank(decision), _rank(official)
    for r in models:
        if r["model"] in rd:
            r["rank_decision"] = rd[r["model"]]
        if r.get("official") and r["model"] in ro:
            r["official"]["rank"] = ro[r["model"]]


def _agreement(models: list[dict]) -> dict | None:
    rows = [(r["ranking"]["official_ask_items"], r["ranking"]["decision"]) for r in models
            if r["ranking"]["official_ask_items"] is not None and r["ranking"]["decision"] is not None]
    if len(rows) < 2:
        return None
    x = [round(a, RANK_DECIMALS) for a, _ in rows]
    y = [round(b, RANK_DECIMALS) for _, b in rows]
    return {"models": len(rows), "spearman": stats.spearman(x, y), "kendall": stats.kendall_tau_b(x, y),
            "between": "official raw on the should-ask items and decision accuracy, on the pairs every model covers"}


BUILTIN = "builtin"


def policy_runs(adapter: Adapter, directory: Path, manifest: Manifest) -> list[RunRef]:
    """Write the reference policies as result files of the adapter's own format and return the runs."""
    from twinbench.policies import POLICIES, policy_rollouts

    if not manifest.scored:
        raise AdapterError("discovery found no scored pairs in this data, so there is nothing to score "
                           "(see `twinbench pairs` for every item's fate)")
    reader = adapter.reader()
    runs = []
    for name in POLICIES:
        run = reader.write(directory, name, policy_rollouts(name, manifest.scored, manifest.items))
        runs.append(attrs.evolve(run, details={**run.details, BUILTIN: "reference policy"}))
    return runs
