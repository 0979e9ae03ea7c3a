"""``twinbench score``: find the runs (or write the reference policies), evaluate, summarize."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from twinbench.contract.adapter import Adapter
from twinbench.discovery import Manifest, discover_for
from twinbench.errors import AdapterError
from twinbench.evaluation.runs import BUILTIN, Evaluation, evaluate, population_key
from twinbench.evaluation.summary import summarize
from twinbench.model import RunRef
from twinbench.options import (
    DEFAULT_BOOTSTRAP,
    DEFAULT_MIN_COVERAGE,
    DEFAULT_SEED,
    DiscoveryOptions,
    ScoreOptions,
)
from twinbench.results import (
    ScoreReport,
)

if TYPE_CHECKING:

    pass


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
                              reuse=bool(results), fresh=fresh, resampling=n_boot > 0)
        report_ = summarize(evaluation, options, n_boot, seed, population, adapter=adapter.name,
                            embedded_default=not results, min_coverage=min_coverage, diagnostics=diagnostics)
    return attrs.evolve(report_, results_usage=adapter.reader().results_usage), evaluation


def policy_runs(adapter: Adapter, directory: Path, manifest: Manifest) -> list[RunRef]:
    """Write the reference policies as result files of the adapter's own format and return the runs."""
    from twinbench.decisions.policies import POLICIES, policy_rollouts

    if not manifest.scored:
        raise AdapterError("discovery found no scored pairs in this data, so there is nothing to score "
                           "(see `twinbench pairs` for every item's fate)")
    reader = adapter.reader()
    runs = []
    for name in POLICIES:
        run = reader.write(directory, name, policy_rollouts(name, manifest.scored, manifest.items))
        runs.append(attrs.evolve(run, details={**run.details, BUILTIN: "reference policy"}))
    return runs
