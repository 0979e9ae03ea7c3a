"""``twinbench replay``: every item of every run replayed against its own reference, checked against the verdicts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from twinbench.contract.replayer import ItemReplay
from twinbench.errors import AdapterError
from twinbench.results import ReplayReport, RunCheck


def check_run(model: str, location: str, data: Mapping[str, str], replays: Sequence[ItemReplay],
              official: Mapping[str, bool] | None) -> RunCheck:
    """The counts of one run's item replays; every official pass must replay state-equal."""
    replayed = [r for r in replays if r.replayed]
    passed = None if official is None else [r for r in replays if official.get(r.item_id) and r.stopped is None]
    return RunCheck(
        model=model, location=location, data=data, items=len(replays), replayed=len(replayed),
        state_equal=sum(r.state_equal for r in replayed), calls=sum(r.calls for r in replayed),
        call_errors=sum(r.errors for r in replayed),
        not_replayed=Counter(r.error for r in replays if not r.replayed),
        official_passed=None if passed is None else len(passed),
        disagreements=() if passed is None else tuple(r for r in passed if not r.state_equal),
        stopped=tuple(r for r in replays if r.stopped is not None),
    )


def replay_runs(adapter, results: Sequence, models: Sequence[str] = (), official=None) -> ReplayReport:
    """``twinbench replay``: find the runs, replay each item with its own reference, check the verdicts."""
    adapter.sandbox("replay")
    search = adapter.reader().find(list(results), tuple(models), official)
    if not search.runs:
        skipped = "".join(f"\n  skipped {folder}: {reason}" for folder, reason in search.skipped)
        raise AdapterError("no complete run under " + ", ".join(map(str, results)) + skipped)
    checks = []
    warnings = list(search.warnings)
    for run in search.runs:
        scorer = adapter.for_run(run)
        replayer = scorer.sandbox("replay")
        ids = list(replayer.check_items())
        load = scorer.reader().read(run, ids)
        warnings.extend(load.warnings)
        described = scorer.describe()
        data = {k: described[k] for k in ("release", "dataset") if k in described}
        checks.append(check_run(run.model, str(run.location), data, replayer.check(load.rollouts, ids),
                                load.official))
    return ReplayReport(tuple(checks), adapter.name, tuple(search.skipped), tuple(dict.fromkeys(warnings)))
