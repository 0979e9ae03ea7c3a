"""From decisions to scores: coverage, bootstrap intervals, ranks, official raw and rank agreement.

``summarize`` turns an :class:`~twinbench.evaluation.runs.Evaluation` into the typed
:class:`~twinbench.results.ScoreReport` every renderer reads; every point figure comes from one
:class:`~twinbench.metrics.point.PointMatrix` (plain Python), the bootstrap from one
:class:`~twinbench.metrics.DecisionMatrix` of the same decisions (numpy, loaded only then).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import attrs

from twinbench.contract.adapter import Adapter
from twinbench.decisions.decide import OFF_LIST
from twinbench.discovery import Manifest
from twinbench.evaluation.runs import BUILTIN, Evaluation, ModelRun
from twinbench.options import (
    DEFAULT_BOOTSTRAP,
    DEFAULT_MIN_COVERAGE,
    DEFAULT_SEED,
    DiscoveryOptions,
    ScoreOptions,
)
from twinbench.results import (
    INTERVAL_METRICS,
    RANK1_METRICS,
    RATE_METRICS,
    Bootstrap,
    Interval,
    ModelScore,
    RankAgreement,
    Ranking,
    ScoreReport,
    SCOPE_ANCHORS,
    SCOPE_EVERY_TURN,
    SCOPE_READ,
    Skipped,
    Unread,
)

if TYPE_CHECKING:
    import numpy as np

    from twinbench.metrics import DecisionMatrix
    from twinbench.metrics.point import PointMatrix


MIN_RANKED_FOR_AGREEMENT = 3  # rank agreement over fewer models is always +-1 or undefined


def summarize(evaluation: Evaluation, options: ScoreOptions = ScoreOptions(), n_boot: int = DEFAULT_BOOTSTRAP,
              seed: int = DEFAULT_SEED, population: DiscoveryOptions | None = None, *,
              adapter: str | None = None, embedded_default: bool = False,
              min_coverage: float = DEFAULT_MIN_COVERAGE, diagnostics: bool = False) -> ScoreReport:
    """Per-model scores and the statistics around them, as a :class:`~twinbench.reports.ScoreReport`.

    Intervals use each model's own covered pairs. Ranks, rank-1 shares and rank agreement
    compare models on the same items: the pairs every ranked model of the population covers.
    A model covering fewer than ``min_coverage`` of the pairs the best-covered model of its
    population covers is scored but not ranked; rank agreement needs three ranked models.
    ``adapter`` names the adapter in the report (default: the one that scored the runs);
    ``embedded_default`` marks the built-in reference policies; ``diagnostics`` adds each model's
    :class:`~twinbench.diagnostics.Diagnostics` on the pairs its scores count.
    """
    models: list[ModelScore] = []
    agreements: list[RankAgreement] = []
    groups: dict[str, list[ModelRun]] = {}
    for model_run in evaluation.runs:
        groups.setdefault(model_run.population, []).append(model_run)
    for key, group in groups.items():
        scores, agreement = _summarize_group(group, evaluation.manifests[key], evaluation.adapters[key], options,
                                             n_boot, seed, min_coverage, evaluation.replay, diagnostics)
        models.extend(scores)
        if agreement is not None:
            agreements.append(agreement)
    if adapter is None:
        adapter = next(iter(dict.fromkeys(a.name for a in evaluation.adapters.values())), "")
    return ScoreReport(
        models=tuple(sorted(models, key=lambda r: r.model)),
        options=options,
        population_options=population or DiscoveryOptions(),
        bootstrap=Bootstrap(resamples=n_boot, seed=seed),
        skipped=tuple(Skipped(folder, reason) for folder, reason in evaluation.skipped),
        warnings=tuple(evaluation.warnings),
        rank_agreement=tuple(agreements),
        embedded_default=embedded_default,
        adapter=adapter,
        replay=evaluation.replay,
    )


def _summarize_group(group: list[ModelRun], manifest: Manifest, adapter: Adapter, options: ScoreOptions,
                     n_boot: int, seed: int, min_coverage: float = DEFAULT_MIN_COVERAGE, replay: bool = False,
                     diagnostics: bool = False) -> tuple[list[ModelScore], RankAgreement | None]:
    """The models of one population: every point figure from one bit matrix (plain Python), the
    intervals and rank-1 shares from the numpy matrix of the same decisions (only with resamples)."""
    from twinbench.metrics import point

    matrix = point.PointMatrix.build([(mr.run.model, mr.decisions) for mr in group])
    distinct = options.distinct_anchor_turns
    keep = point.kept(matrix, options)
    covered = [k.bit_count() for k in keep]
    best = max(covered, default=0)
    ranked_cols = [c > 0 and c >= min_coverage * best for c in covered]
    # the pairs every ranked model covers: ranks compare the same items
    shared_rows = 0
    if any(ranked_cols):
        shared_rows = (1 << matrix.n_pairs) - 1
        for k, ranked in zip(keep, ranked_cols):
            if ranked:
                shared_rows &= k
    shared = [k & shared_rows if ranked else 0 for k, ranked in zip(keep, ranked_cols)]
    n_ranked, n_shared = sum(ranked_cols), shared_rows.bit_count()
    intervals, shares = (_resampled(group, keep, shared, ranked_cols, distinct, n_boot, seed)
                         if n_boot > 0 and matrix.n_pairs else (None, None))
    described = adapter.describe()
    population = len(manifest.scored)
    records: list[ModelScore] = []
    for m, model_run in enumerate(group):
        rates = point.rates(matrix, m, keep[m], distinct)
        counted = bool(rates.pairs)
        rate = {name: point.value(rates.metric(name)) if counted else None for name in RATE_METRICS}
        rank1 = None
        if shares is not None and ranked_cols[m]:
            rank1 = {metric: float(shares[metric][m]) for metric in RANK1_METRICS}
        official_shared = point.official(matrix, m, shared[m], model_run.official)
        run = model_run.run
        records.append(ModelScore(
            model=run.model, pairs=rates.pairs, **rate,
            by_category=point.by_category(matrix, m, keep[m], distinct, manifest.categories),
            coverage=point.coverage(matrix, m, options), data=described,
            curation_applies=manifest.curation_applies, population=population,
            location=run.details.get(BUILTIN) or str(run.location),  # no temporary paths in output
            run_notes=model_run.load.notes, remarks=model_run.load.remarks,
            ci=None if intervals is None else intervals[m], rank1=rank1,
            official=point.official(matrix, m, keep[m], model_run.official, model_run.load.official_scores,
                                    model_run.load.official_pass_at),
            unread=unread_of(model_run, sum(len(item.turns) for item in manifest.items.values())
                             if model_run.all_turns else None),  # --all-turns reads every turn of every item
            replay=point.replay_counts(matrix, m, keep[m]) if replay else None,
            decision_workaround=(point.value(point.decision_workaround(matrix, m, keep[m], distinct))
                                 if replay and counted else None),
            diagnostics=_diagnostics(model_run, manifest, matrix, keep[m]) if diagnostics else None,
            ranking=Ranking(among=n_ranked, pairs=n_shared,
                            decision=point.value(point.rates(matrix, m, shared[m], distinct).decision)
                            if ranked_cols[m] else None,
                            official_ask_items=(None if official_shared is None or not ranked_cols[m]
                                                else official_shared.ask_items),
                            ranked=bool(ranked_cols[m]),
                            reason=None if ranked_cols[m] else _unranked_reason(covered[m], population, best,
                                                                                min_coverage)),
        ))
    records = _ranks(records)
    data = str(described.get("release", adapter.name))
    return records, _agreement(records, data, n_shared)


def _unranked_reason(covered: int, population: int, best: int, min_coverage: float) -> str:
    """Why a model is not ranked, in words that hold when nobody covers anything."""
    if best == 0:
        return f"covers none of the {population} pairs, and no model of this data covers any"
    if covered == 0:
        return f"covers none of the {population} pairs (the best-covered model covers {best})"
    return (f"covers {covered} of {population} pairs, fewer than {100 * min_coverage:.0f}% of the {best} the "
            "best-covered model covers")


def _resampled(group: list[ModelRun], keep: Sequence[int], shared: Sequence[int], ranked_cols: Sequence[bool],
               distinct: bool, n_boot: int, seed: int) -> tuple[list, dict | None]:
    """Each model's bootstrap intervals, and the rank-1 shares of the ranked models (None without
    shared pairs): numpy, on the matrix of the same decisions, kept where the point figures keep."""
    import numpy as np

    from twinbench.metrics import DecisionMatrix, stats

    matrix = DecisionMatrix.build([(mr.run.model, mr.decisions) for mr in group])
    keep_array, shared_array = _as_array(keep, matrix.n_pairs), _as_array(shared, matrix.n_pairs)
    weights = stats.cluster_weights(matrix.clusters, n_boot, seed)
    intervals: list = []
    for cols, samples in _bootstrap_blocks(matrix, keep_array, distinct, weights, range(len(group))):
        by_metric = {metric: _intervals(samples.metric(metric)) for metric in INTERVAL_METRICS}
        intervals += [{metric: by_metric[metric][j] for metric in INTERVAL_METRICS} for j in range(len(cols))]
    shares = None
    ranked_index = [m for m, ranked in enumerate(ranked_cols) if ranked]
    if ranked_index and any(shared):
        gathered: dict[str, list[np.ndarray]] = {metric: [] for metric in RANK1_METRICS}
        for _, samples in _bootstrap_blocks(matrix, shared_array, distinct, weights, ranked_index):
            for metric in RANK1_METRICS:
                gathered[metric].append(samples.metric(metric))
        shares = {}
        for metric in RANK1_METRICS:
            shares[metric] = np.full(len(group), np.nan)
            shares[metric][ranked_index] = 100.0 * stats.rank1_shares(np.concatenate(gathered.pop(metric), axis=1))
    del weights
    return intervals, shares


def _as_array(columns: Sequence[int], n_rows: int):
    """``(P, M)`` bool: the bit columns as a numpy array."""
    import numpy as np

    from twinbench.metrics.point import rows_of

    out = np.zeros((n_rows, len(columns)), dtype=bool)
    for m, column in enumerate(columns):
        out[rows_of(column), m] = True
    return out


def _diagnostics(model_run: ModelRun, manifest: Manifest, matrix: PointMatrix, keep: int):
    """The model's diagnostics on the pairs its scores count (``keep``: its kept rows, a bit column)."""
    from twinbench.decisions.diagnostics import diagnose
    from twinbench.metrics.point import rows_of

    counted = {matrix.ask_ids[i] for i in rows_of(keep)}
    return diagnose(model_run.decisions, manifest.scored, model_run.load, counted)


#: models resampled at once: the ``(B, models)`` arrays of one block are what the bootstrap holds
#: at a time (besides the weights and the rank-1 samples), so its memory does not grow with N
BOOTSTRAP_BLOCK = 16


def _bootstrap_blocks(matrix: DecisionMatrix, keep: np.ndarray, distinct: bool, weights: np.ndarray,
                      columns: Sequence[int]):
    """``(columns, resampled rates)`` for the models at ``columns``, :data:`BOOTSTRAP_BLOCK` at a time.

    Each block's rates are exact (integer weights on 0/1 bits), so blocking changes no value.
    """
    from twinbench import metrics

    columns = list(columns)
    for start in range(0, len(columns), BOOTSTRAP_BLOCK):
        cols = columns[start:start + BOOTSTRAP_BLOCK]
        yield cols, metrics.rates(matrix.columns(cols), keep[:, cols], distinct, weights)


def unread_of(model_run: ModelRun, every_turn: int | None = None) -> Unread:
    """What the run left unread: on the anchor turns of its pairs, each once (the one count every command
    shows, see :mod:`twinbench.decisions.unread`), or with ``--all-turns`` on every turn the reader read
    (``every_turn`` turns), plus the anchor-turn calls named off the tool list."""
    from twinbench.decisions.unread import anchor_unread

    anchors = anchor_unread(model_run.decisions)
    if anchors.told and not model_run.all_turns:
        return Unread(anchors.counts, anchors.examples, SCOPE_ANCHORS, anchors.turns)
    counts = dict(model_run.load.unread)
    examples = list(model_run.load.unread_examples)
    off = [e for e in anchors.examples if e[0] == OFF_LIST]
    if anchors.counts.get(OFF_LIST):
        counts[OFF_LIST] = anchors.counts[OFF_LIST]
        examples += off
    if model_run.all_turns:
        return Unread(dict(sorted(counts.items())), tuple(sorted(examples, key=lambda e: e[0])), SCOPE_EVERY_TURN,
                      every_turn)
    return Unread(dict(sorted(counts.items())), tuple(sorted(examples, key=lambda e: e[0])), SCOPE_READ)


def _intervals(samples: np.ndarray) -> list[Interval | None]:
    """The percentile interval of each column of ``(B, models)`` resampled rates (None where NaN)."""
    from twinbench.metrics import stats

    lows, highs = stats.percentile_interval(samples)  # column by column, the same values
    return [None if math.isnan(low) or math.isnan(high) else Interval(low, high)
            for low, high in zip(lows.tolist(), highs.tolist())]


RANK_DECIMALS = 9  # values equal to this many decimals tie (1/3 + 2/3 is 50, not 49.99999999999999)


def _rank(values: dict[int, float]) -> dict[int, int]:
    """Competition ranks (1 = highest); values equal after rounding share a rank."""
    rounded = {key: round(v, RANK_DECIMALS) for key, v in values.items()}
    ordered = sorted(rounded.values(), reverse=True)
    return {key: 1 + ordered.index(v) for key, v in rounded.items()}


def _ranks(models: list[ModelScore]) -> list[ModelScore]:
    """The models with their rank on decision, and on official raw among those ranked on decision."""
    decision = {i: r.ranking.decision for i, r in enumerate(models) if r.ranking.decision is not None}
    official = {i: r.ranking.official_ask_items for i, r in enumerate(models)
                if r.ranking.official_ask_items is not None and i in decision}
    rd, ro = _rank(decision), _rank(official)
    out = []
    for i, r in enumerate(models):
        official_score = r.official
        if official_score is not None and i in ro:
            official_score = attrs.evolve(official_score, rank=ro[i])
        out.append(attrs.evolve(r, rank_decision=rd.get(i), official=official_score))
    return out


def _agreement(models: list[ModelScore], data: str, pairs: int) -> RankAgreement | None:
    """Rank correlation of official raw and decision on the ``pairs`` every model of ``data`` covers."""
    from twinbench.metrics import ranking

    rows = [(r.ranking.official_ask_items, r.ranking.decision) for r in models
            if r.ranking.official_ask_items is not None and r.ranking.decision is not None]
    if len(rows) < MIN_RANKED_FOR_AGREEMENT:
        return None
    x = [round(a, RANK_DECIMALS) for a, _ in rows]
    y = [round(b, RANK_DECIMALS) for _, b in rows]
    return RankAgreement(data=data, models=len(rows), pairs=pairs, spearman=ranking.spearman(x, y),
                         kendall=ranking.kendall_tau_b(x, y))
