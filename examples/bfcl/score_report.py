#!/usr/bin/env python3
"""Score a BFCL multi-turn result folder with twinbench and write a markdown report.

    python examples/bfcl/score_report.py RESULTS_DIR [--output report.md]
        [--bfcl-release VERSION] [--bfcl-root DIR] [--bootstrap B] [--seed N] [--model NAME]

RESULTS_DIR is a folder written by BFCL's harness (``result/<model>/multi_turn/...`` for
BFCL v4, ``<model>/BFCL_v3_...`` for v3), or one model folder of it. The report holds the
data release used, the funnel of twin pairs, the score table, coverage per model and a
short guide to reading the numbers. Everything goes through twinbench's Python API, the
same path as ``twinbench score``: the adapter from the registry, ``reader().find``,
``evaluate``, ``summarize`` and ``render_score``.

A problem the user can fix (missing folder, no run in it, data unavailable) ends in one
``score_report: error: ...`` line and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from twinbench.adapters import registry
from twinbench.contract.adapter import Adapter
from twinbench.errors import AdapterError
from twinbench.errors import TwinbenchError
from twinbench.options import DiscoveryOptions
from twinbench.discovery import Manifest
from twinbench.options import DEFAULT_BOOTSTRAP, DEFAULT_SEED
from twinbench.evaluation.runs import Evaluation, evaluate
from twinbench.evaluation.summary import summarize
from twinbench.results import ScoreReport
from twinbench.render.score import render_score
from twinbench.options import ScoreOptions

PROG = "score_report"
TITLE = "twinbench report: acting and asking on BFCL multi-turn"


class ReportError(TwinbenchError):
    """A mistake in how the script was called; printed as one line."""


def build_parser(adapter_cls: type[Adapter]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"{PROG}.py",
        description="Score a BFCL multi-turn result folder with twinbench and write a markdown report.",
    )
    parser.add_argument("results", metavar="RESULTS_DIR", type=Path, help="a BFCL result folder (or one model folder)")
    parser.add_argument("--output", metavar="FILE", type=Path, default=None,
                        help="write the report to FILE (default: standard output)")
    parser.add_argument("--model", metavar="NAME", action="append", default=[],
                        help="report only this model (repeatable)")
    parser.add_argument("--bootstrap", metavar="B", type=int, default=DEFAULT_BOOTSTRAP,
                        help=f"cluster-bootstrap resamples for the 95%% intervals (default {DEFAULT_BOOTSTRAP}; "
                        "0 turns them off)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"bootstrap seed (default {DEFAULT_SEED})")
    # --bfcl-release and --bfcl-root: the adapter declares its own options
    adapter_cls.add_arguments(parser)
    return parser


# ---------------------------------------------------------------------------------------
# report sections
# ---------------------------------------------------------------------------------------


def _data_lines(evaluation: Evaluation) -> list[str]:
    """One block per dataset release the runs were scored against."""
    lines: list[str] = []
    for key, manifest in evaluation.manifests.items():
        described = evaluation.adapters[key].describe()
        models = sorted(r.run.model for r in evaluation.runs if r.population == key)
        fingerprint = described.get("fingerprint", "")
        lines.append(f"- **{described.get('dataset', '?')} from bfcl-eval {described.get('release', '?')}** "
                     f"({described.get('source', '?')}: `{described.get('location', '?')}`), "
                     f"fingerprint `{fingerprint[:16]}`; models: {', '.join(models)}")
        applies = "applies" if manifest.curation_applies else "does not apply"
        lines.append(f"  - curation {applies}: {manifest.curation_reason}")
        lines.append(f"  - twin pairs: {funnel_line(manifest)}")
    return lines


def funnel_line(manifest: Manifest) -> str:
    """The discovery funnel in one line, from the manifest's counts."""
    c = manifest.counts()
    return (f"{c['should_ask_items']} should-ask items; {c['dropped']} dropped; "
            f"{c['content_verified']} content-verified pairs; {c['read_only']} read-only or login-only excluded; "
            f"{c['candidates']} decision-bearing; {c['construction_errors']} construction errors excluded; "
            f"**{c['scored']} scored** ({c['compound']} compound turns, "
            f"{c['distinct_base_twins_scored']} distinct should-act twins)")


def _coverage_lines(summary: ScoreReport) -> list[str]:
    rows = ["| model | pairs scored | not scored | why not scored |", "|---|---|---|---|"]
    for record in summary.models:
        cov = record.coverage
        why = ", ".join(f"{n} ({reason})" for reason, n in cov.unscored.items()) or "-"
        rows.append(f"| {record.model} | {cov.scored} of {cov.population} | {cov.population - cov.scored} | "
                    f"{why.replace('|', '/')} |")
    rows.append("")
    rows.append("A pair is scored only when the run holds a rollout for both twins. An item missing from the "
                "results or stored as an error leaves its pair unscored; it is never read as asking. A partial "
                "run is scored on the pairs it covers, with a wider interval.")
    return rows


HOW_TO_READ = """\
For each twin pair, the same request appears twice: complete (the model should make the
world-changing call) and with one value or one tool removed (it should ask). **act** is the
share of scored pairs where the model made a world-changing call on the complete anchor turn;
**hold** the share where it made none on the should-ask anchor turn. **decision** is their
mean, the balanced accuracy of the decision to act: 50 is chance, and it is also what a model
that always acts or never acts gets, so only telling the two situations apart scores above 50;
100 means acting exactly when the information is there. The bracket is a 95% cluster-bootstrap
interval over should-act twins. **credited** forgives, on compound turns, calls confined to the
steps the request authorizes anyway; **pair** is the share of pairs with both sides right; the
category columns (miss_func, miss_param) give decision per kind of removal. **pairs** is the
coverage: scored pairs out of the population; read scores on low coverage as indicative only.
The official column shows BFCL's own pass rate on the same items when score files are found
beside the results."""


def build_report(args: argparse.Namespace, adapter_cls: type[Adapter]) -> str:
    results = Path(args.results).expanduser()
    if not results.exists():
        raise ReportError(f"result folder {results} does not exist")
    if not results.is_dir():
        raise ReportError(f"{results} is not a folder")
    if args.bootstrap < 0:
        raise ReportError("--bootstrap must be 0 (no intervals) or a positive number of resamples")
    if args.seed < 0:
        raise ReportError("--seed must be a non-negative integer")

    adapter = adapter_cls.from_args(args)
    search = adapter.reader().find([results], args.model)
    if not search.runs:
        skipped = "".join(f"; skipped {folder}: {reason}" for folder, reason in search.skipped)
        raise ReportError(f"no complete BFCL run (base, miss_func and miss_param result files) under {results}"
                          + skipped)
    options = DiscoveryOptions()
    # evaluate() runs twinbench.discovery.discover_for once per dataset release it scores
    # against; its manifests (evaluation.manifests) give the funnel below
    evaluation = evaluate(adapter, search.runs, options, search.skipped, search.warnings)
    summary = summarize(evaluation, ScoreOptions(), args.bootstrap, args.seed, options, adapter=adapter.name)

    models = [r.model for r in summary.models]
    out = [f"# {TITLE}", ""]
    out.append(f"Results: `{results}`: {len(models)} run{'s' if len(models) != 1 else ''} "
               f"({', '.join(models)}).")
    out += ["", "## Data", ""]
    out += _data_lines(evaluation)
    out += ["", "## Scores", "", render_score(summary, "markdown").rstrip()]
    out += ["", "## Coverage", ""]
    out += _coverage_lines(summary)
    if summary.warnings:
        out += ["", "## Warnings", ""]
        out += [f"- {line}" for line in summary.warnings]
    out += ["", "## How to read this", "", HOW_TO_READ, ""]
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        adapter_cls = registry.get("bfcl")
    except AdapterError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    args = build_parser(adapter_cls).parse_args(argv)
    try:
        text = build_report(args, adapter_cls)
        if args.output is None:
            sys.stdout.write(text)
        else:
            args.output.parent.mkdir(parents=True, exist_ok=True)
            args.output.write_text(text, encoding="utf-8")
            print(f"{PROG}: wrote {args.output}", file=sys.stderr)
    except (TwinbenchError, OSError) as exc:  # every error a user can cause
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
