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

from twinbench import metrics
from twinbench.contract.adapter import Adapter
from twinbench.decisions import anchor_attempt, decide
from twinbench.discovery import Manifest, discover_for, locate_anchors
from twinbench.errors import AdapterError, TwinbenchError
from twinbench.evaluation.runs import population_key
from twinbench.metrics import DecisionMatrix, stats
from twinbench.model import Item, PairDecision, RunLoad, RunRef, Side
from twinbench.options import DEFAULT_BOOTSTRAP, DEFAULT_SEED, DiscoveryOptions
from twinbench.results import (
    ATTEMPT_SHARE_ITEMS,
    OFFICIAL_ITEMS,
    ArmComparison,
    Bootstrap,
    CompareReport,
    CountingUnit,
    Discordance,
    Interval,
    IntervalKind,
    ItemShareChange,
    McNemar,
    RateChange,
    Unread,
)


@attrs.frozen
class Arm:
    run: RunRef
    decisions: dict[str, PairDecision]  # by should-ask id
    attempts: dict[str, bool | None]  # should-ask item id -> attempt on its anchor
    official: Mapping[str, bool] | None
    load: RunLoad = attrs.field(repr=False)


def _discordant(baseline: np.ndarray, treatment: np.ndarray) -> McNemar:
    """Discordant counts of two aligned 0/1 readings and the exact McNemar p."""
    baseline, treatment = np.asarray(baseline, dtype=bool), np.asarray(treatment, dtype=bool)
    b, c = int((baseline & ~treatment).sum()), int((treatment & ~baseline).sum())
    return McNemar(n=int(baseline.size), b=b, c=c, p=stats.mcnemar_exact(b, c))


def _discordant_pairs(pairs: Sequence[tuple[bool, bool]]) -> McNemar:
    return _discordant(np.array([x for x, _ in pairs], dtype=bool), np.array([y for _, y in pairs], dtype=bool))


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
    from twinbench.evaluation.runs import turns_needed

    items = manifest.items
    needed = turns_needed(pairs)
    for item, anchor, _ in ask_items:  # the attempt shares read every should-ask item's anchor
        needed[item.id] = needed.get(item.id, frozenset()) | {anchor}
    load = adapter.reader().read(run, {i: needed.get(i, frozenset()) for i in sorted(items)})
    rule = adapter.rule()
    decisions = {d.ask_id: d for d in decide(run.model, pairs, items, load.rollouts, rule, options.count_login,
                                             history=False)}
    attempts = {item.id: anchor_attempt(item, anchor, load.rollouts.get(item.id), rule, withheld,
                                        options.count_login)
                for item, anchor, withheld in ask_items}
    return Arm(run, decisions, attempts, load.official, load)


def compare_arms(adapter: Adapter, baseline: RunRef, treatment: RunRef, options: DiscoveryOptions = DiscoveryOptions(),
                 n_boot: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED,
                 manifests: dict[str, Manifest] | None = None) -> ArmComparison:
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

    # one matrix, baseline and treatment as its two columns, on the pairs scored in both arms
    matrix = DecisionMatrix.build([(arm.run.model, [arm.decisions[p.ask_id] for p in manifest.scored])
                                   for arm in (arm_b, arm_t)])
    both = matrix.scored.all(axis=1)
    shared = matrix.rows(both)
    keep = shared.scored
    rates = metrics.rates(shared, keep)  # act per pair here; the discordance below per distinct anchor turn
    units = metrics.first_per_anchor(shared, keep)[:, 0]
    ci_change = _paired_interval(shared, keep, n_boot, seed) if shared.n_pairs and n_boot > 0 else None

    def change(samples: np.ndarray, ci: Interval | None = None) -> RateChange:
        return RateChange(metrics.value(samples[0]), metrics.value(samples[1]), ci)

    return ArmComparison(
        model=baseline.model if baseline.model == treatment.model else f"{baseline.model} -> {treatment.model}",
        baseline=str(baseline.location),
        treatment=str(treatment.location),
        data=scorer_b.describe(),
        pairs=shared.n_pairs,
        population=len(manifest.scored),
        distinct_anchor_turns=int(units.sum()),
        act=change(rates.act),
        hold=change(rates.hold),
        decision=change(rates.decision, ci_change),
        mcnemar_act=Discordance(_discordant(shared.acted[units, 0], shared.acted[units, 1]), CountingUnit.ANCHOR_TURN),
        mcnemar_hold=Discordance(_discordant(shared.held[:, 0], shared.held[:, 1]), CountingUnit.PAIR),
        ask_attempt_share=_attempt_shares(ask_items, arm_b.attempts, arm_t.attempts),
        official=_official_change(scorer_b, arm_b.official, arm_t.official),
        unread_baseline=_unread(arm_b, baseline),
        unread_treatment=_unread(arm_t, treatment),
        warnings=tuple(dict.fromkeys([*scorer_b.data_warnings(),
                                      *(f"baseline {w}" for w in arm_b.load.warnings),
                                      *(f"treatment {w}" for w in arm_t.load.warnings)])),
    )


def _unread(arm: Arm, run: RunRef) -> Unread:
    from twinbench.evaluation.runs import ModelRun
    from twinbench.evaluation.summary import unread_of

    return unread_of(ModelRun(run, "", tuple(arm.decisions.values()), arm.official, arm.load))


def compare_report(comparisons: Sequence[ArmComparison], options: DiscoveryOptions, n_boot: int, seed: int,
                   warnings: Sequence[str] = (), unpaired_models: Sequence[str] = ()) -> CompareReport:
    """``twinbench compare``: the comparisons, with the bootstrap they used and every warning once."""
    return CompareReport.of(comparisons, options, Bootstrap(n_boot, seed, IntervalKind.PAIRED), warnings,
                            unpaired_models)


def _paired_interval(shared: DecisionMatrix, keep: np.ndarray, n_boot: int, seed: int) -> Interval:
    """Interval of the change in decision: both arms under the same cluster-bootstrap resamples."""
    weights = stats.cluster_weights(shared.clusters, n_boot, seed)
    samples = metrics.rates(shared, keep, weights=weights).decision
    low, high = stats.percentile_interval(stats.paired_difference(samples[:, 0], samples[:, 1]))
    return Interval(float(low), float(high))


def _attempt_shares(ask_items, base: Mapping[str, bool | None],
                    treat: Mapping[str, bool | None]) -> dict[str, ItemShareChange]:
    out: dict[str, ItemShareChange] = {}
    for category in sorted({item.category for item, _, _ in ask_items}):
        ids = [item.id for item, _, _ in ask_items if item.category == category]
        both = [(bool(base[i]), bool(treat[i])) for i in ids if base.get(i) is not None and treat.get(i) is not None]
        out[category] = ItemShareChange(items=len(ids), compared=len(both), baseline=metrics.share(x for x, _ in both),
                                        treatment=metrics.share(y for _, y in both), counts=_discordant_pairs(both),
                                        population=ATTEMPT_SHARE_ITEMS)
    return out


def _official_change(adapter: Adapter, base: Mapping[str, bool] | None,
                     treat: Mapping[str, bool] | None) -> dict[str, ItemShareChange] | None:
    if base is None or treat is None:
        return None
    out: dict[str, ItemShareChange] = {}
    by_cat: dict[str, list[str]] = {}
    for item in adapter.items():
        by_cat.setdefault(item.category, []).append(item.id)
    for category, ids in sorted(by_cat.items()):
        both = [(base[i], treat[i]) for i in ids if i in base and i in treat]
        if both:
            out[category] = ItemShareChange(items=len(both), baseline=metrics.share(x for x, _ in both),
                                            treatment=metrics.share(y for _, y in both),
                                            counts=_discordant_pairs(both), population=OFFICIAL_ITEMS)
    return out


def match_arms(base_runs, treat_runs, models):
    """Pairs of (baseline run, treatment run): same model name, ``--model BASE=TREAT``, or the only run of each."""
    by_b = {r.model: r for r in base_runs}
    by_t = {r.model: r for r in treat_runs}
    found = (f"(baseline: {', '.join(sorted(by_b)) or 'none'}; treatment: {', '.join(sorted(by_t)) or 'none'})")
    if models:
        chosen = [tuple(m.split("=", 1)) if "=" in m else (m, m) for m in models]
        missing = [f"{b}={t}" if b != t else b for b, t in chosen if b not in by_b or t not in by_t]
        if missing:
            raise TwinbenchError(f"--model {', '.join(missing)}: not found in the trees {found}")
        return [(by_b[b], by_t[t]) for b, t in chosen]
    shared = sorted(set(by_b) & set(by_t))
    if shared:
        return [(by_b[m], by_t[m]) for m in shared]
    if len(base_runs) == 1 and len(treat_runs) == 1:
        return [(base_runs[0], treat_runs[0])]
    raise TwinbenchError(f"the baseline and treatment trees share no model name {found}; pair two runs with "
                     "--model BASELINE_MODEL=TREATMENT_MODEL")
