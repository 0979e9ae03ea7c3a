"""Reading and deciding every run: the jobs, the forked workers, and the decisions kept between runs.

``evaluate`` reads each run through its adapter (the one that should score it, e.g. the dataset
release that produced it), decides every pair, and collects the official verdicts, into an
:class:`Evaluation` that :mod:`twinbench.evaluation.summary` turns into scores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from twinbench.contract.adapter import Adapter
from twinbench.decisions import decide
from twinbench.decisions.credit import credit, replayed_pairs
from twinbench.discovery import Manifest, discover_for
from twinbench.errors import TwinbenchError
from twinbench.model import Item, Pair, PairDecision, RunLoad, RunRef
from twinbench.options import DiscoveryOptions


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
    """Read one run and decide its pairs; keep the decisions, not the rollouts (memory stays flat in N).

    Reading and deciding run with the cyclic collector paused (they build no cycles): what they
    built is dropped before it runs again, so it never walks a run's rollouts. A replay runs as usual."""
    from twinbench.gc_pause import collector_paused

    with collector_paused():
        read = _read_and_decide_paused(job)  # its frame, and the rollouts it held, are gone on return
    if isinstance(read, str) or not job.replay:
        return read
    decisions, load = read
    decisions, stopped = _replayed(job.scorer, job.manifest.scored, decisions, load)
    if stopped:
        load = attrs.evolve(load, warnings=(*load.warnings, stopped))
    return tuple(decisions), load if job.keep_rollouts else attrs.evolve(load, rollouts={})


def _read_and_decide_paused(job: _Job) -> tuple[tuple[PairDecision, ...], RunLoad] | str:
    try:
        load = job.scorer.reader().read(job.run, job.needed)
    except TwinbenchError as exc:
        return str(exc)
    decisions = decide(job.run.model, job.manifest.scored, job.manifest.items, load.rollouts, job.scorer.rule(),
                       job.count_login, history=job.history, keep_calls=job.keep_rollouts)
    if job.replay:  # the replay needs the rollouts
        return tuple(decisions), load
    return tuple(decisions), load if job.keep_rollouts else attrs.evolve(load, rollouts={})


#: the run detail that marks a reference policy (written by ``twinbench score`` without --results)
BUILTIN = "builtin"

#: what forked workers read, each job with the key its decisions are kept under (they inherit it;
#: nothing is pickled on the way in)
_JOBS: list[tuple[_Job, str | None]] = []


def _job_at(index: int):
    return _decide_and_keep(*_JOBS[index])


def _decide_and_keep(job: _Job, key: str | None):
    """:func:`_read_and_decide`, and its decisions kept under ``key`` (by the worker that made them,
    so that storing them is done in parallel too). A run that could not be read is read again next time."""
    from twinbench import cache

    result = _read_and_decide(job)
    if key and not isinstance(result, str):
        cache.remember(DECISIONS, key, result)
    return result


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


def _run_jobs(jobs: list[_Job], resampling: bool = True) -> list:
    """Every job's result, in order. A run whose files are unchanged since it was last read gives
    its kept decisions; the others are read, in forked workers when there are many runs and cores."""
    from twinbench import cache

    keys = [_reuse_key(job) for job in jobs]
    out = [cache.recall(DECISIONS, key) if key and not job.fresh else None for job, key in zip(jobs, keys)]
    todo = [i for i, kept in enumerate(out) if kept is None]
    for i, result in zip(todo, _compute([jobs[i] for i in todo], resampling, [keys[i] for i in todo])):
        out[i] = result
    return out


def _load_the_summary_modules(resampling: bool) -> None:
    """Import what :func:`summarize` needs (the point metrics; numpy and the bootstrap when it
    resamples): not needed to read and decide."""
    from twinbench.metrics import point  # noqa: F401

    if resampling:
        import numpy  # noqa: F401

        from twinbench.metrics import matrix, stats  # noqa: F401


def _compute(jobs: list[_Job], resampling: bool = True, keys: Sequence[str | None] | None = None) -> list:
    """Read and decide every job, each kept under its key: in forked worker processes when there are
    many runs and cores."""
    if not jobs:
        return []
    keys = list(keys) if keys is not None else [None] * len(jobs)

    from twinbench.evaluation.workers import input_bytes, workers_for

    sources = [job.scorer.reader().sources(job.run) for job in jobs]
    workers = workers_for(len(jobs), input_bytes(p for files in sources for p in files) if all(sources) else None)
    if workers < 2:
        return [_decide_and_keep(job, key) for job, key in zip(jobs, keys)]
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():
        return [_decide_and_keep(job, key) for job, key in zip(jobs, keys)]
    import gc

    for manifest in {id(job.manifest): job.manifest for job in jobs}.values():
        len(manifest.items)  # a kept manifest's items, loaded once here rather than in every worker
    from twinbench import gc_pause

    global _JOBS
    _JOBS = list(zip(jobs, keys))
    frozen_before = gc.get_freeze_count()
    gc.freeze()  # the workers' collector leaves the inherited heap (the manifests) alone: no copied pages
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            pending = pool.map_async(_job_at, range(len(jobs)), chunksize=1)
            _load_the_summary_modules(resampling)  # while the workers read: this process would only wait
            return pending.get()
    finally:
        _JOBS = []
        if not frozen_before and not gc_pause.OWN_PROCESS:
            gc.unfreeze()  # as it was; objects frozen before (the command line's, a caller's) stay frozen


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
    resampling: bool = True,
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

    ``resampling``: the summary will resample (a bootstrap), so numpy is imported while the
    workers read; without it, numpy is not imported here.
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
    for job, result in zip(jobs, _run_jobs(jobs, resampling)):
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
