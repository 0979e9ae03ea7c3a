"""From runs to scores: the shared path every adapter gets for free.

``evaluate`` reads each run through its adapter (the one that should score it, e.g.
the dataset release that produced it), decides every pair, and collects the
official verdicts. ``summarize`` turns that into per-model scores with coverage,
bootstrap intervals, rank-1 shares, official raw on the same items and the rank
agreement between the two orders.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from typing import TYPE_CHECKING

import attrs

from twinbench.adapter import Adapter, AdapterError, RunLoad, RunRef
from twinbench.decisions import PairDecision, decide
from twinbench.model import Item, Pair
from twinbench.defaults import DEFAULT_BOOTSTRAP, DEFAULT_MIN_COVERAGE, DEFAULT_SEED
from twinbench.discovery import DiscoveryOptions, Manifest, discover_for
from twinbench.errors import TwinbenchError
from twinbench.replay import credit, replayed_pairs
from twinbench.reports import (
    Unread,
    INTERVAL_METRICS,
    RANK1_METRICS,
    RATE_METRICS,
    Bootstrap,
    Interval,
    ModelScore,
    RankAgreement,
    Ranking,
    ScoreReport,
    Skipped,
)
from twinbench.scoring import ScoreOptions

if TYPE_CHECKING:
    import numpy as np

    from twinbench.metrics import DecisionMatrix

MIN_RANKED_FOR_AGREEMENT = 3  # rank agreement over fewer models is always +-1 or undefined


@attrs.frozen
class ModelRun:
    """One scored run: its decisions, official verdicts and everything worth a warning."""

    run: RunRef
    population: str  # which manifest (data) it was scored against
    decisions: tuple[PairDecision, ...]
    official: dict[str, bool] | None
    load: RunLoad = attrs.field(repr=False)
    all_turns: bool = False  # every turn was read (not only the scored ones)


@attrs.frozen
class Evaluation:
    runs: tuple[ModelRun, ...]
    manifests: dict[str, Manifest]
    adapters: dict[str, Adapter]
    skipped: tuple[tuple[str, str], ...] = ()
    warnings: tuple[str, ...] = ()
    replay: bool = False  # workarounds replayed and credited (``score --replay``)


@attrs.frozen(eq=False)
class _Job:
    """One run to read and decide, with everything that needs (set up before any worker starts)."""

    run: RunRef
    population: str
    scorer: Adapter
    manifest: Manifest
    needed: Mapping[str, frozenset[int]]
    count_login: bool
    history: bool
    replay: bool = False
    keep_rollouts: bool = False  # the diagnostics read them after deciding
    reuse: str | None = None  # the population's part of the reuse key; None: always read the run
    fresh: bool = False  # read the run even when its decisions are kept (and keep the new ones)


def _read_and_decide(job: _Job) -> tuple[tuple[PairDecision, ...], RunLoad] | str:
    """Read one run and decide its pairs; keep the decisions, not the rollouts (memory stays flat in N)."""
    try:
        load = job.scorer.reader().read(job.run, job.needed)
    except TwinbenchError as exc:
        return str(exc)
    decisions = decide(job.run.model, job.manifest.scored, job.manifest.items, load.rollouts, job.scorer.rule(),
                       job.count_login, history=job.history, keep_calls=job.keep_rollouts)
    if job.replay:
        decisions, stopped = _replayed(job.scorer, job.manifest.scored, decisions, load)
        if stopped:
            load = attrs.evolve(load, warnings=(*load.warnings, stopped))
    return tuple(decisions), load if job.keep_rollouts else attrs.evolve(load, rollouts={})


_JOBS: list[_Job] = []  # what forked workers read (they inherit it; nothing is pickled on the way in)
WORKERS_ENV = "TWINBENCH_WORKERS"
PARALLEL_FROM = 4  # runs: below this, starting workers costs more than it saves


def _job_at(index: int):
    return _read_and_decide(_JOBS[index])


def _workers(jobs: int) -> int:
    import os

    wanted = os.environ.get(WORKERS_ENV)
    if wanted is not None:
        return max(1, min(jobs, int(wanted))) if wanted.isdigit() else 1
    if jobs < PARALLEL_FROM:
        return 1
    return max(1, min(jobs, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))


DECISIONS = "decisions"  # the cache kind of each run's kept decisions
#: a file changed this recently is always read: a rewrite within the same tick of the file
#: system's clock (same size) would keep its times, so its kept decisions are not trusted
RECENT_SECONDS = 2.0


def _population_part(scorer: Adapter, manifest: Manifest, options: DiscoveryOptions,
                     needed: Mapping[str, frozenset[int]]) -> str | None:
    """What every run's kept decisions depend on besides the run: the data, the options, the pairs
    and the turns read."""
    import hashlib

    from twinbench import cache

    data = scorer.cache_key()
    if data is None:
        return None
    pairs = hashlib.sha256(repr(manifest.scored).encode("utf-8")).hexdigest()
    turns = repr(sorted((item, sorted(read)) for item, read in needed.items()))
    return cache.key_of([scorer.name, data, repr(attrs.asdict(options)), pairs, turns])


def _reuse_key(job: _Job) -> str | None:
    """The key a run's decisions are kept under: its population, the reading asked for, and the
    size, times and inode of every file its reader reads; None when they cannot be kept."""
    import os
    import time

    from twinbench import cache

    if job.reuse is None or job.keep_rollouts or job.replay or not cache.enabled():
        return None  # replays are made each time: the simulator's time limit depends on the machine's load
    files = job.scorer.reader().sources(job.run)
    if not files:
        return None
    parts = [job.reuse, job.run.model, str(job.run.location), repr(sorted(job.run.details.items())),
             repr((job.count_login, job.history, job.replay))]
    recent = time.time_ns() - int(RECENT_SECONDS * 1e9)
    for path in files:
        try:
            st = os.stat(path)
        except OSError:
            return None  # the reader will say what is wrong with it
        if max(st.st_mtime_ns, st.st_ctime_ns) >= recent:
            return None  # still being written, or rewritten within the file system's clock tick: read it
        parts.append(f"{path}|{st.st_dev}|{st.st_ino}|{st.st_size}|{st.st_mtime_ns}|{st.st_ctime_ns}")
    return cache.key_of(parts)


def _run_jobs(jobs: list[_Job]) -> list:
    """Every job's result, in order. A run whose files are unchanged since it was last read gives
    its kept decisions; the others are read, in forked workers when there are many runs and cores."""
    from twinbench import cache

    keys = [_reuse_key(job) for job in jobs]
    out = [cache.recall(DECISIONS, key) if key and not job.fresh else None for job, key in zip(jobs, keys)]
    todo = [i for i, kept in enumerate(out) if kept is None]
    for i, result in zip(todo, _compute([jobs[i] for i in todo])):
        out[i] = result
        if keys[i] and not isinstance(result, str):  # a run that could not be read is read again next time
            cache.remember(DECISIONS, keys[i], result)
    return out


def _load_the_summary_modules() -> None:
    """Import what :func:`summarize` needs (numpy, the metrics): not needed to read and decide."""
    import numpy  # noqa: F401

    from twinbench import metrics, stats  # noqa: F401


def _compute(jobs: list[_Job]) -> list:
    """Read and decide every job: in forked worker processes when there are many runs and cores."""
    import multiprocessing

    if not jobs:
        return []

    workers = _workers(len(jobs))
    if workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return [_read_and_decide(job) for job in jobs]
    import gc

    global _JOBS
    _JOBS = jobs
    gc.freeze()  # the workers' collector leaves the inherited heap (the manifests) alone: no copied pages
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            pending = pool.map_async(_job_at, range(len(jobs)), chunksize=1)
            _load_the_summary_modules()  # while the workers read: this process would only wait
            return pending.get()
    finally:
        _JOBS = []
        gc.unfreeze()


def turns_needed(pairs: Sequence[Pair], history: bool = False, all_turns: Sequence[Item] = ()) -> dict[str, frozenset[int]]:
    """Per item id, the turns scoring reads: the anchor turns, and the turns before them with ``history``.

    Items in ``all_turns`` are read whole (every turn), e.g. to count what is left unread everywhere.
    """
    out: dict[str, set[int]] = {}
    for pair in pairs:
        for item_id, anchor in ((pair.ask_id, pair.anchor_turn), (pair.act_id, pair.act_anchor_turn)):
            out.setdefault(item_id, set()).update(range(anchor + 1) if history else (anchor,))
    for item in all_turns:
        out.setdefault(item.id, set()).update(range(len(item.turns)))
    return {item_id: frozenset(turns) for item_id, turns in sorted(out.items())}


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
    history: bool = False,
    all_turns: bool = False,
    replay: bool = False,
    keep_rollouts: bool = False,
    reuse: bool = True,
    fresh: bool = False,
) -> Evaluation:
    """Decide every pair for every run. ``manifests`` (by :func:`population_key`) saves re-discovery.

    Only the anchor turns are read, and with ``history`` the turns before them too (what
    ``--same-history`` compares); without it, ``PairDecision.same_history`` is ``None``.
    With ``all_turns`` every turn of every item is read, so that what was left unread is
    counted everywhere (slower).

    ``replay``: replay the tool-removed pairs in the adapter's simulator and credit workarounds
    (:func:`twinbench.replay.credit`); their should-ask items are read through the anchor. An
    adapter that cannot replay calls is one error. Each run's rollouts, and the arguments of its
    attempts (``PairDecision.act_attempt_calls``), are dropped once its pairs are decided, unless
    ``keep_rollouts`` (the diagnostics read them).

    ``reuse``: each run's decisions are kept in the twinbench cache, and a run whose files are
    unchanged since it was last read here (see :meth:`RunReader.sources`) is not read again: its
    decisions come from the cache, the same as reading gives them. It needs the adapter's
    :meth:`Adapter.cache_key`; runs replayed (``replay``) or kept whole (``keep_rollouts``) are
    always read. ``fresh``: read every run all the same, and keep what it gives.
    """
    manifests = dict(manifests or {})
    adapters: dict[str, Adapter] = {}
    all_warnings = list(warnings)
    all_skipped = list(skipped)
    jobs: list[_Job] = []
    reuse_parts: dict[str, str | None] = {}
    needed_by_population: dict[str, dict[str, frozenset[int]]] = {}
    for run in runs:
        scorer = adapter.for_run(run)
        key = population_key(scorer)
        if key not in adapters:
            if key not in manifests:
                manifests[key] = discover_for(scorer, options)
            adapters[key] = scorer
            all_warnings.extend(scorer.data_warnings())
            scorer.rule(), scorer.reader()  # built once here, so that every worker inherits them
            if replay:  # the simulator and the reference states too
                replayer = scorer.sandbox()
                for pair in replayed_pairs(manifests[key].scored):
                    replayer.reference_noop(pair)
        manifest = manifests[key]
        if key not in needed_by_population:  # the same for every run of the population
            needed = turns_needed(manifest.scored, history, tuple(manifest.items.values()) if all_turns else ())
            needed_by_population[key] = _with_replayed_turns(needed, manifest.scored) if replay else needed
        needed = needed_by_population[key]
        if reuse and key not in reuse_parts:
            reuse_parts[key] = _population_part(scorer, manifest, options, needed)
        jobs.append(_Job(run, key, scorer, manifest, needed, options.count_login, history, replay, keep_rollouts,
                         reuse_parts.get(key), fresh))
    out: list[ModelRun] = []
    for job, result in zip(jobs, _run_jobs(jobs)):
        if isinstance(result, str):  # one unreadable run does not stop the others
            all_skipped.append((str(job.run.location), f"cannot be read: {result}"))
            continue
        decisions, load = result
        all_warnings.extend(load.warnings)
        out.append(ModelRun(job.run, job.population, decisions, load.official, load, all_turns))
    return Evaluation(tuple(out), {k: manifests[k] for k in adapters}, adapters, tuple(all_skipped),
                      tuple(all_warnings), replay)


def _with_replayed_turns(needed: Mapping[str, frozenset[int]], pairs: Sequence[Pair]) -> dict[str, frozenset[int]]:
    """``needed`` plus, for each replayed pair, every should-ask turn through the anchor (replay runs them all)."""
    out = dict(needed)
    for pair in replayed_pairs(pairs):
        out[pair.ask_id] = out.get(pair.ask_id, frozenset()) | frozenset(range(pair.anchor_turn + 1))
    return out


def _replayed(scorer: Adapter, pairs: Sequence[Pair], decisions: Sequence[PairDecision], load: RunLoad,
              ) -> tuple[list[PairDecision], str | None]:
    """The decisions with the replay's reading on the tool-removed pairs, and a warning naming the
    pairs whose replay was stopped at a limit (None when there are none)."""
    chosen = {p.ask_id: p for p in replayed_pairs(pairs)}
    facts = scorer.sandbox().replay_pairs(list(chosen.values()), load.rollouts)
    stopped = [f"{f.ask_id} ({f.error}: {f.stopped})" for f in facts.values() if f.stopped is not None]
    warning = None if not stopped else (
        f"{load.run.model}: {len(stopped)} replayed pair(s) stopped at a limit, unscored for replay "
        f"(no workaround credited): " + "; ".join(stopped[:3]) + (f"; and {len(stopped) - 3} more" if len(stopped) > 3 else ""))
    return [credit(d, chosen[d.ask_id], facts.get(d.ask_id)) if d.ask_id in chosen else d for d in decisions], warning


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
    """The models of one population, every rate from one decision matrix."""
    import numpy as np

    from twinbench import metrics, stats
    from twinbench.metrics import DecisionMatrix

    matrix = DecisionMatrix.build([(mr.run.model, mr.decisions) for mr in group])
    distinct = options.distinct_anchor_turns
    keep = metrics.kept(matrix, options)
    covered = keep.sum(axis=0)
    best = int(covered.max()) if covered.size else 0
    ranked_cols = (covered > 0) & (covered >= min_coverage * best)
    # the pairs every ranked model covers: ranks compare the same items
    shared_rows = keep[:, ranked_cols].all(axis=1) if ranked_cols.any() else np.zeros(matrix.n_pairs, dtype=bool)
    shared = keep & shared_rows[:, None] & ranked_cols[None, :]
    n_ranked = int(ranked_cols.sum())
    point = metrics.rates(matrix, keep, distinct)
    ranked = metrics.rates(matrix, shared, distinct)
    categories = metrics.by_category(matrix, keep, distinct, manifest.categories)
    coverages = metrics.coverage(matrix, options)
    replays = metrics.replay_counts(matrix, keep) if replay else None
    workaround = metrics.decision_workaround(matrix, keep, distinct) if replay else None
    intervals = shares = None
    if n_boot > 0 and matrix.n_pairs:
        weights = stats.cluster_weights(matrix.clusters, n_boot, seed)
        intervals = []
        for cols, samples in _bootstrap_blocks(matrix, keep, distinct, weights, range(len(group))):
            by_metric = {metric: _intervals(samples.metric(metric)) for metric in INTERVAL_METRICS}
            intervals += [{metric: by_metric[metric][j] for metric in INTERVAL_METRICS} for j in range(len(cols))]
        if shared_rows.any() and n_ranked:
            ranked_index = np.flatnonzero(ranked_cols)
            gathered: dict[str, list[np.ndarray]] = {metric: [] for metric in RANK1_METRICS}
            for _, samples in _bootstrap_blocks(matrix, shared, distinct, weights, ranked_index):
                for metric in RANK1_METRICS:
                    gathered[metric].append(samples.metric(metric))
            shares = {}
            for metric in RANK1_METRICS:
                shares[metric] = np.full(len(group), np.nan)
                shares[metric][ranked_index] = 100.0 * stats.rank1_shares(np.concatenate(gathered.pop(metric), axis=1))
        del weights
    described = adapter.describe()
    population = len(manifest.scored)
    records: list[ModelScore] = []
    for m, model_run in enumerate(group):
        counted = bool(point.pairs[m])
        rate = {name: metrics.value(point.metric(name)[m]) if counted else None for name in RATE_METRICS}
        ci = rank1 = None
        if intervals is not None:
            ci = intervals[m]
        if shares is not None and ranked_cols[m]:
            rank1 = {metric: float(shares[metric][m]) for metric in RANK1_METRICS}
        official_shared = metrics.official(matrix, m, shared[:, m], model_run.official)
        run = model_run.run
        records.append(ModelScore(
            model=run.model, pairs=int(point.pairs[m]), **rate,
            by_category=categories[m], coverage=coverages[m], data=described,
            curation_applies=manifest.curation_applies, population=population,
            location=run.details.get(BUILTIN) or str(run.location),  # no temporary paths in output
            run_notes=model_run.load.notes, remarks=model_run.load.remarks, ci=ci, rank1=rank1,
            official=metrics.official(matrix, m, keep[:, m], model_run.official),
            unread=unread_of(model_run),
            replay=None if replays is None else replays[m],
            decision_workaround=None if workaround is None or not counted else metrics.value(workaround[m]),
            diagnostics=_diagnostics(model_run, manifest, matrix, keep[:, m]) if diagnostics else None,
            ranking=Ranking(among=n_ranked, pairs=int(shared_rows.sum()),
                            decision=metrics.value(ranked.decision[m]) if ranked_cols[m] else None,
                            official_ask_items=(None if official_shared is None or not ranked_cols[m]
                                                else official_shared.ask_items),
                            ranked=bool(ranked_cols[m]),
                            reason=None if ranked_cols[m] else (
                                f"covers {int(covered[m])} of {population} pairs, fewer than "
                                f"{100 * min_coverage:.0f}% of the {best} the best-covered model covers")),
        ))
    records = _ranks(records)
    data = str(described.get("release", adapter.name))
    return records, _agreement(records, data, int(shared_rows.sum()))


def _diagnostics(model_run: ModelRun, manifest: Manifest, matrix: DecisionMatrix, keep: np.ndarray):
    """The model's diagnostics on the pairs its scores count (``keep``: its column of the kept matrix)."""
    import numpy as np

    from twinbench.diagnostics import diagnose

    counted = {matrix.ask_ids[i] for i in np.flatnonzero(keep)}
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


OFF_LIST = "name_not_on_tool_list"


def unread_of(model_run: ModelRun) -> Unread:
    """The reader's unread counts, plus the anchor-turn calls named off the tool list."""
    counts = dict(model_run.load.unread)
    examples = list(model_run.load.unread_examples)
    off = [(d, name) for d in model_run.decisions if d.scored for name in d.off_list]
    if off:
        counts[OFF_LIST] = len(off)
        examples += [(OFF_LIST, f"{d.ask_id} / {d.act_id}: {name}") for d, name in off[:2]]
    return Unread(dict(sorted(counts.items())), tuple(sorted(examples, key=lambda e: e[0])),
                  "every turn" if model_run.all_turns else "the turns scored")


def _intervals(samples: np.ndarray) -> list[Interval | None]:
    """The percentile interval of each column of ``(B, models)`` resampled rates (None where NaN)."""
    from twinbench import stats

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
    from twinbench import stats

    rows = [(r.ranking.official_ask_items, r.ranking.decision) for r in models
            if r.ranking.official_ask_items is not None and r.ranking.decision is not None]
    if len(rows) < MIN_RANKED_FOR_AGREEMENT:
        return None
    x = [round(a, RANK_DECIMALS) for a, _ in rows]
    y = [round(b, RANK_DECIMALS) for _, b in rows]
    return RankAgreement(data=data, models=len(rows), pairs=pairs, spearman=stats.spearman(x, y),
                         kendall=stats.kendall_tau_b(x, y))


BUILTIN = "builtin"


class NoRunsError(AdapterError):
    """Nothing under the user's --results could be scored."""


def score(adapter: Adapter, results: Sequence[Path], models: Sequence[str] = (), official: Path | None = None,
          population: DiscoveryOptions = DiscoveryOptions(), options: ScoreOptions = ScoreOptions(),
          n_boot: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED,
          min_coverage: float = DEFAULT_MIN_COVERAGE, all_turns: bool = False,
          replay: bool = False, diagnostics: bool = False, fresh: bool = False) -> tuple[ScoreReport, Evaluation]:
    """``twinbench score``: the runs under ``results`` (or, with none, the reference policies), scored.

    ``replay``: credit workarounds (see :func:`evaluate`). ``fresh``: read every run, even one whose
    decisions are kept, and keep the new ones (see ``reuse`` there). Returns the report and the evaluation it was made
    from (the per-item CSV reads the latter).
    """
    import tempfile

    if replay:
        adapter.sandbox()  # one clear error before any run is read

    with tempfile.TemporaryDirectory(prefix="twinbench-policies-") as tmp:
        manifests = None
        if results:
            search = adapter.reader().find(list(results), tuple(models), official)
            if not search.runs:
                skipped = "".join(f"\n  skipped {folder}: {reason}" for folder, reason in search.skipped)
                raise NoRunsError("no complete run under " + ", ".join(map(str, results)) + skipped)
            runs, skipped, warnings = search.runs, search.skipped, search.warnings
        else:
            manifests = {population_key(adapter): discover_for(adapter, population)}
            runs = policy_runs(adapter, Path(tmp), next(iter(manifests.values())))
            skipped, warnings = (), ()
        evaluation = evaluate(adapter, runs, population, skipped, warnings, manifests, history=options.same_history,
                              all_turns=all_turns, replay=replay, keep_rollouts=diagnostics,
                              reuse=bool(results), fresh=fresh)
        report_ = summarize(evaluation, options, n_boot, seed, population, adapter=adapter.name,
                            embedded_default=not results, min_coverage=min_coverage, diagnostics=diagnostics)
    return attrs.evolve(report_, results_usage=adapter.reader().results_usage), evaluation


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
