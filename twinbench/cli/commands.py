"""One handler per ``twinbench`` subcommand: check the options, call the library, write the output.

The work is in the library (:mod:`twinbench.evaluation`, :mod:`twinbench.discovery`, the
renderers in :mod:`twinbench.render`); a handler only connects them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from twinbench.adapters import registry
from twinbench.cli import messages
from twinbench.cli.checks import (
    UsageError,
    check_outputs,
    check_paths,
    check_statistics,
    discovery_options,
    guard_outputs,
    score_options,
    skipped_text,
)
from twinbench.contract.adapter import Adapter
from twinbench.render import output, tables


def cmd_adapters(args: argparse.Namespace, adapter_cls: type[Adapter] | None) -> int:
    check_outputs(("--output", args.output))
    infos = registry.available()
    if args.format == "json":
        text = tables.json_text([{"name": i.name, "target": i.target, "origin": i.origin,
                                  "description": i.description} for i in infos])
    elif args.format == "csv":
        text = tables.csv_text(["name", "target", "origin", "description"],
                               [[i.name, i.target, i.origin, i.description] for i in infos])
    else:
        text = tables.table(["name", "description", "from"], [[i.name, i.description, i.origin] for i in infos],
                            width=tables.NARROW_WIDTH, wrap=(1, 2))
    output.emit(text, args.output)
    return 0


def cmd_pairs(args: argparse.Namespace, adapter_cls: type[Adapter]) -> int:
    from twinbench.discovery import discover_for
    from twinbench.render.pairs import render_pairs

    adapter = adapter_cls.from_args(args)
    guard_outputs(args, adapter, ("--output", args.output))
    replayer = adapter.sandbox() if args.replay else None
    manifest = discover_for(adapter, discovery_options(args))
    noop = None if replayer is None else {p.ask_id: replayer.reference_noop(p) for p in manifest.pairs}
    output.emit(render_pairs(adapter, manifest, args.format, noop), args.output)
    return 0


def nothing_scored(scores) -> int:
    """0 when some model has a scored pair; else the reason on standard error and status 2 (the output,
    written already, has every run's coverage line)."""
    if any(m.pairs for m in scores.models):
        return 0
    reasons: dict[str, int] = {}
    for m in scores.models:
        for why, n in m.coverage.unscored.items():
            reasons[why] = reasons.get(why, 0) + n
    top = sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))[:2]
    because = "; ".join(f"{why}: {n} pairs" for why, n in top) or "no pair in the population"
    messages.say(f"error: nothing was scored: no run has a scored pair ({because}); the warnings above and the "
                 "coverage lines of the output say why")
    return 2


def cmd_score(args: argparse.Namespace, adapter_cls: type[Adapter]) -> int:
    from twinbench.evaluation.score import score
    from twinbench.render.score import per_item_csv, render_score

    check_statistics(args)
    check_paths("--results", args.results)
    if not 0 <= args.min_coverage <= 1:
        raise UsageError("--min-coverage is a share between 0 and 1 (default 0.9)")
    if not args.results and (args.model or args.scores):
        raise UsageError("--model and --scores need --results")
    adapter = adapter_cls.from_args(args)
    if args.explain and args.results:
        raise UsageError("--explain shows the columns on the reference policies; leave out --results")
    guard_outputs(args, adapter, ("--output", args.output), ("--per-item", args.per_item))
    if args.explain:
        from twinbench.render.score import explain_text

        # with intervals and rank-1 shares: the worked example shows every column the text explains
        scores, _ = score(adapter, (), population=discovery_options(args), n_boot=args.bootstrap, seed=args.seed)
        output.emit(explain_text(scores), args.output)
        return 0
    scores, evaluation = score(adapter, [Path(p) for p in args.results], args.model, args.scores,
                               discovery_options(args), score_options(args), args.bootstrap, args.seed,
                               args.min_coverage, all_turns=args.all_turns, replay=args.replay,
                               diagnostics=args.diagnostics, fresh=args.fresh)
    messages.warn_all(scores.warnings)
    messages.skipped((s.folder, s.reason) for s in scores.skipped)
    if args.per_item:
        output.emit(per_item_csv(evaluation), args.per_item, "--per-item")
    output.emit(render_score(scores, args.format, wide=args.wide), args.output)
    return nothing_scored(scores)


def cmd_replay(args: argparse.Namespace, adapter_cls: type[Adapter]) -> int:
    from twinbench.evaluation.replay import replay_runs
    from twinbench.render.replay import render_replay

    check_paths("--results", args.results)
    if not args.results:
        raise UsageError("replay needs --results DIR (a result folder written by the leaderboard's harness)")
    adapter = adapter_cls.from_args(args)
    guard_outputs(args, adapter, ("--output", args.output))
    summary = replay_runs(adapter, [Path(p) for p in args.results], args.model, args.scores)
    messages.warn_all(summary.warnings)
    messages.skipped(summary.skipped)
    output.emit(render_replay(summary, args.format), args.output)
    return 0


def cmd_report(args: argparse.Namespace, adapter_cls: type[Adapter]) -> int:
    from twinbench.evaluation.score import score
    from twinbench.render.html_report import build_page

    check_statistics(args)
    check_paths("--results", args.results)
    if not args.results and (args.model or args.scores):
        raise UsageError("--model and --scores need --results")
    adapter = adapter_cls.from_args(args)
    guard_outputs(args, adapter, ("--output", args.output))
    scores, evaluation = score(adapter, [Path(p) for p in args.results], args.model, args.scores,
                               discovery_options(args), n_boot=args.bootstrap, seed=args.seed, diagnostics=True)
    messages.warn_all(scores.warnings)
    messages.skipped((s.folder, s.reason) for s in scores.skipped)
    page = build_page(scores, evaluation, args.title)
    output.emit(page, args.output)
    pairs = sum(len(m.decisions) for m in evaluation.runs)
    models = len(scores.models)
    print(f"report written to {args.output}: {models} model{'' if models == 1 else 's'}, {pairs} pair "
          f"decision{'' if pairs == 1 else 's'}, {Path(args.output).stat().st_size / 1024:.0f} KiB", file=sys.stderr)
    return nothing_scored(scores)


def cmd_compare(args: argparse.Namespace, adapter_cls: type[Adapter]) -> int:
    from twinbench.evaluation.compare import compare_arms, compare_report, match_arms
    from twinbench.render.compare import render_compare

    check_statistics(args)
    check_paths("--baseline", [args.baseline])
    check_paths("--treatment", [args.treatment])
    adapter = adapter_cls.from_args(args)
    guard_outputs(args, adapter, ("--output", args.output))
    reader = adapter.reader()
    base = reader.find([Path(args.baseline)], (), args.baseline_scores)
    treat = reader.find([Path(args.treatment)], (), args.treatment_scores)
    for name, search, folder in (("baseline", base, args.baseline), ("treatment", treat, args.treatment)):
        if not search.runs:
            raise UsageError(f"no complete run in the {name} tree {folder}" + skipped_text(search.skipped))
    arms = match_arms(base.runs, treat.runs, args.model)
    options = discovery_options(args)
    manifests: dict = {}
    results = [compare_arms(adapter, b, t, options, args.bootstrap, args.seed, manifests) for b, t in arms]
    paired = {b.model for b, _ in arms} | {t.model for _, t in arms}
    unpaired = sorted({r.model for r in (*base.runs, *treat.runs)} - paired)
    found = [*(f"baseline {w}" for w in base.warnings), *(f"treatment {w}" for w in treat.warnings)]
    comparison = compare_report(results, options, args.bootstrap, args.seed, found, unpaired)
    messages.warn_all(comparison.warnings)
    messages.skipped(base.skipped, "baseline ")
    messages.skipped(treat.skipped, "treatment ")
    output.emit(render_compare(comparison, args.format, wide=args.wide), args.output)
    empty = [m.model for m in comparison.models if not m.pairs]
    if empty:
        messages.say(f"error: nothing compared for {', '.join(empty)}: no pair is scored in both arms "
                     "(`twinbench score` on each arm says why its pairs are unscored)")
        return 2
    return 0


def cmd_plot(args: argparse.Namespace, adapter_cls: type[Adapter] | None) -> int:
    import json

    from twinbench.render.svg import PlotError, render_svg

    guard_outputs(args, None, ("--output", args.output))
    try:
        summary = json.loads(Path(args.input).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"--input {args.input} does not exist (make it with `twinbench score --format json "
                         "--output FILE`)") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"--input {args.input} is not the JSON of `twinbench score` ({exc})") from None
    except OSError as exc:  # a folder, no permission
        raise UsageError(f"--input {args.input}: cannot be read ({exc.strerror or exc})") from None
    if not isinstance(summary, dict) or not isinstance(summary.get("models"), list):
        raise UsageError(f"--input {args.input} is not the JSON of `twinbench score` (no models list)")
    try:
        svg = render_svg(summary, args.kind, args.title)
    except PlotError as exc:
        raise UsageError(str(exc)) from None
    output.emit(svg, args.output)
    return 0


def cmd_build(args: argparse.Namespace, adapter_cls: type[Adapter]) -> int:
    from twinbench.discovery import discover_for

    adapter = adapter_cls.from_args(args)
    guard_outputs(args, adapter)
    manifest = discover_for(adapter, discovery_options(args))
    messages.warn_all(adapter.data_warnings())
    paths = adapter.write_suite(manifest, args.out)
    print(f"{len(manifest.scored)} pairs ({2 * len(manifest.scored)} items) written:")
    for path in paths:
        print(f"  {path}")
    return 0


def cmd_perturb(args: argparse.Namespace, adapter_cls: type[Adapter]) -> int:
    from twinbench.perturb import perturb, read_item_list
    from twinbench.render.perturb import render_perturb

    check_outputs(("--output", args.output), ("--review", args.review))
    if args.out.exists() and not args.out.is_dir():
        raise UsageError(f"--out {args.out} is a file; give a folder")
    if args.reviewed is not None and not args.reviewed.is_file():
        raise UsageError(f"--reviewed {args.reviewed} is not a file (write the review with --review FILE)")
    if args.review is not None and args.reviewed is not None and args.review.resolve() == args.reviewed.resolve():
        raise UsageError(f"--review {args.review} would write over --reviewed {args.reviewed}; give another name")
    if args.review is not None and args.review.resolve().is_relative_to(args.out.resolve()):
        raise UsageError(f"--review {args.review} is inside --out {args.out}; give a file outside it")
    adapter = adapter_cls.from_args(args)
    wanted = None if args.items is None else read_item_list(args.items)
    report = perturb(adapter, args.out, wanted, values=args.values, review=args.review, reviewed=args.reviewed)
    output.emit(render_perturb(report, args.format), args.output)
    return 0 if not report.unverified else 1


def cmd_calls(args: argparse.Namespace, adapter_cls: type[Adapter]) -> int:
    check_paths("--results", args.results)
    adapter = adapter_cls.from_args(args)
    guard_outputs(args, adapter, ("--output", args.output))
    check = adapter.reader().check_reading([Path(p) for p in args.results], tuple(args.model))
    text = (tables.json_text(check.to_json()) if args.format == "json"
            else check.render(wide=True) if args.wide else check.render())
    output.emit(text, args.output)
    return 1 if check.unexplained else 0


def cmd_new_adapter(args: argparse.Namespace, adapter_cls: type[Adapter] | None) -> int:
    from twinbench.adapters.scaffold import create

    files = create(args.name, args.dir)
    print(f"adapter package {args.name} written to {args.dir}:")
    for path in files:
        print(f"  {path}")
    print(f"next: pip install -e '{args.dir}[test]' && python -m pytest {args.dir}/tests")
    return 0


def cmd_functions(args: argparse.Namespace, adapter_cls: type[Adapter]) -> int:
    from twinbench.render.functions import render_functions

    adapter = adapter_cls.from_args(args)
    guard_outputs(args, adapter, ("--output", args.output))
    output.emit(render_functions(adapter.name, adapter.rule(), args.format, wide=args.wide), args.output)
    return 0
