"""The ``twinbench`` command.

Every subcommand takes ``--adapter NAME`` (default: :data:`twinbench.registry.DEFAULT`)
plus that adapter's own options. User mistakes end in one ``twinbench: error: ...`` line and exit status 2;
nothing a user can cause ends in a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from twinbench import __version__, registry, report
from twinbench.adapter import Adapter, AdapterError
from twinbench.errors import TwinbenchError

DEFAULT_ADAPTER = registry.DEFAULT


class UsageError(TwinbenchError):
    """A mistake in how the command was called."""


# ---------------------------------------------------------------------------------------
# subcommand: adapters
# ---------------------------------------------------------------------------------------


def cmd_adapters(args: argparse.Namespace, adapter_cls: type[Adapter] | None) -> int:
    infos = registry.available()
    if args.format == "json":
        text = report.json_text([{"name": i.name, "target": i.target, "origin": i.origin,
                                  "description": i.description} for i in infos])
    elif args.format == "csv":
        text = report.csv_text(["name", "target", "origin", "description"],
                               [[i.name, i.target, i.origin, i.description] for i in infos])
    else:
        text = report.table(["name", "description", "from"], [[i.name, i.description, i.origin] for i in infos])
    report.emit(text, args.output)
    return 0


# ---------------------------------------------------------------------------------------
# subcommand: pairs
# ---------------------------------------------------------------------------------------


def _discovery_options(args: argparse.Namespace):
    from twinbench.discovery import DiscoveryOptions

    return DiscoveryOptions(
        count_login=args.count_login, uncertified=args.uncertified, all_pairs=args.all_pairs
    )


def cmd_pairs(args: argparse.Namespace, adapter_cls: type[Adapter]) -> int:
    from twinbench.discovery import discover_for, drop_record, manifest_record, pair_record

    adapter = adapter_cls.from_args(args)
    replayer = adapter.sandbox() if args.replay else None
    manifest = discover_for(adapter, _discovery_options(args))
    noop = None if replayer is None else {p.ask_id: replayer.reference_noop(p) for p in manifest.pairs}
    if args.format == "json":
        record = {"adapter": adapter.name, "data": adapter.describe(), "data_warnings": list(adapter.data_warnings()),
                  **manifest_record(manifest)}
        if noop is not None:
            _add_reference_noop(record, manifest, noop)
        text = report.json_text(record)
    elif args.format == "csv":
        headers = ["id", "category", "stage", "status", "reason", "act_id", "anchor_turn", "perturbation",
                   "removed_tools", "decision_bearing", "certification", "compound", "independent_steps"]
        rows = []
        for pair in manifest.pairs:
            rec = pair_record(pair)
            cert = rec["certification"]
            rows.append([pair.ask_id, pair.category, "paired", pair.status, pair.reason, pair.act_id,
                         pair.anchor_turn, rec["perturbation"], rec["removed_tools"], pair.decision_bearing,
                         cert["status"], cert["compound"], cert["independent_steps"]]
                        + ([] if noop is None else [noop[pair.ask_id]]))
        for drop in manifest.dropped:
            rec = drop_record(drop)
            rows.append([rec["id"], rec["category"], rec["stage"], "dropped", rec["reason"]] + [None] * 8
                        + ([] if noop is None else [None]))
        text = report.csv_text(headers + ([] if noop is None else ["reference_noop"]), rows)
    else:
        text = funnel_table(adapter, manifest)
        if noop is not None:
            text += "\n" + _noop_line(manifest, noop)
    report.emit(text, args.output)
    return 0


def _noop_pairs(manifest, noop: dict[str, bool]) -> list:
    return [p for p in manifest.scored if noop[p.ask_id]]


def _add_reference_noop(record: dict, manifest, noop: dict[str, bool]) -> None:
    """``pairs --replay``: the scored pairs whose should-act reference leaves the state unchanged on the anchor."""
    found = _noop_pairs(manifest, noop)
    record["counts"]["reference_noop"] = len(found)
    record["counts"]["reference_noop_by_category"] = {
        c: sum(p.category == c for p in found) for c in manifest.categories}
    scored = {p.ask_id for p in manifest.scored}
    for entry in record["pairs"]:
        if entry["ask_id"] in scored:
            entry["reference_noop"] = noop[entry["ask_id"]]


def _noop_line(manifest, noop: dict[str, bool]) -> str:
    found = _noop_pairs(manifest, noop)
    return (f"reference anchor is a no-op (the state is unchanged after the should-act reference's anchor calls; "
            f"never credited as a workaround): {len(found)} of {len(manifest.scored)} scored pairs"
            + (f" ({', '.join(p.ask_id for p in found)})" if found else ""))


def funnel_table(adapter: Adapter, manifest) -> str:
    """The funnel as a text table, one column per should-ask category."""
    from twinbench.discovery import funnel_rows

    counts = manifest.counts()
    cats = list(manifest.categories)
    rows = [["  " * r.level + r.label] + [r.by_category.get(c, 0) for c in cats] + [r.total()]
            for r in funnel_rows(manifest)]
    head = [f"adapter: {adapter.name}"]
    head += [f"{k}: {v}" for k, v in adapter.describe().items()]
    head.append(f"curation: {'applies' if manifest.curation_applies else 'does not apply'} ({manifest.curation_reason})")
    head += [f"warning: {w}" for w in adapter.data_warnings()]
    opts = [name for name, on in (("--count-login", manifest.options.count_login),
                                  ("--uncertified", manifest.options.uncertified),
                                  ("--all-pairs", manifest.options.all_pairs)) if on]
    if opts:
        head.append(f"population: {' '.join(opts)}")
    body = report.table(["stage"] + cats + ["total"], rows, [False] + [True] * (len(cats) + 1))
    tail = [
        f"distinct should-act twins: {counts['distinct_base_twins']} content-verified, "
        f"{counts['distinct_base_twins_scored']} scored; "
        f"distinct should-act anchor turns scored: {counts['distinct_base_anchor_turns_scored']}",
        "every pair and every dropped item with its reason: --format json or --format csv",
    ]
    return "\n".join(head) + "\n\n" + body + "\n\n" + "\n".join(tail)


# ---------------------------------------------------------------------------------------
# subcommand: score
# ---------------------------------------------------------------------------------------

SCORE_FORMATS = ("table", "json", "csv", "markdown")


def _score_options(args: argparse.Namespace):
    from twinbench.scoring import ScoreOptions

    return ScoreOptions(distinct_anchor_turns=args.distinct_anchor_turns, same_history=args.same_history,
                        drop_ended_early=args.drop_ended_early)


def _check_outputs(*options: tuple[str, Path | None]) -> None:
    """Two output options naming one file would overwrite each other."""
    given = [(name, Path(path)) for name, path in options if path is not None]
    for i, (name, path) in enumerate(given):
        for other, other_path in given[i + 1:]:
            if path.resolve() == other_path.resolve():
                raise UsageError(f"{name} and {other} name the same file ({path}); give each its own")
        if path.is_dir():
            raise UsageError(f"{name} {path} is a folder; give a file name")


def _folder(value: str) -> Path:
    """An argparse type for a folder option: an empty value would silently mean the current folder."""
    if not value.strip():
        raise argparse.ArgumentTypeError("is empty; give a folder (an empty value would read the current folder)")
    return Path(value)


def _check_paths(option: str, values: Sequence[str]) -> None:
    for value in values:
        if not str(value).strip():
            raise UsageError(f"{option} is empty; give a path (an empty value would read the current folder)")


def cmd_score(args: argparse.Namespace, adapter_cls: type[Adapter]) -> int:
    from twinbench.evaluate import score
    from twinbench.scorecard import per_item_csv, render_score

    _check_statistics(args)
    _check_paths("--results", args.results)
    _check_outputs(("--output", args.output), ("--per-item", args.per_item))
    if not 0 <= args.min_coverage <= 1:
        raise UsageError("--min-coverage is a share between 0 and 1 (default 0.9)")
    if not args.results and (args.model or args.scores):
        raise UsageError("--model and --scores need --results")
    adapter = adapter_cls.from_args(args)
    if args.explain:
        if args.results:
            raise UsageError("--explain shows the columns on the reference policies; leave out --results")
        from twinbench.scorecard import explain_text

        scores, _ = score(adapter, (), population=_discovery_options(args), n_boot=0)
        report.emit(explain_text(scores), args.output)
        return 0
    scores, evaluation = score(adapter, [Path(p) for p in args.results], args.model, args.scores,
                               _discovery_options(args), _score_options(args), args.bootstrap, args.seed,
                               args.min_coverage, all_turns=args.all_turns, replay=args.replay,
                               diagnostics=args.diagnostics, fresh=args.fresh)
    for line in scores.warnings:
        print(f"twinbench: {line}", file=sys.stderr)
    if args.per_item:
        report.emit(per_item_csv(evaluation), args.per_item, "--per-item")
    report.emit(render_score(scores, args.format, wide=args.wide), args.output)
    return 0


def _skipped_text(skipped) -> str:
    return "".join(f"\n  skipped {folder}: {reason}" for folder, reason in skipped)


# ---------------------------------------------------------------------------------------
# subcommand: replay
# ---------------------------------------------------------------------------------------


def cmd_replay(args: argparse.Namespace, adapter_cls: type[Adapter]) -> int:
    from twinbench.replay import replay_runs
    from twinbench.scorecard import render_replay

    _check_paths("--results", args.results)
    if not args.results:
        raise UsageError("replay needs --results DIR (a result folder written by the leaderboard's harness)")
    adapter = adapter_cls.from_args(args)
    summary = replay_runs(adapter, [Path(p) for p in args.results], args.model, args.scores)
    for line in summary.warnings:
        print(f"twinbench: {line}", file=sys.stderr)
    report.emit(render_replay(summary, args.format), args.output)
    return 0


# ---------------------------------------------------------------------------------------
# subcommand: report
# ---------------------------------------------------------------------------------------


def cmd_report(args: argparse.Namespace, adapter_cls: type[Adapter]) -> int:
    from twinbench.evaluate import score
    from twinbench.htmlreport import build_page

    _check_statistics(args)
    _check_paths("--results", args.results)
    _check_outputs(("--output", args.output))
    if not args.results and (args.model or args.scores):
        raise UsageError("--model and --scores need --results")
    adapter = adapter_cls.from_args(args)
    scores, evaluation = score(adapter, [Path(p) for p in args.results], args.model, args.scores,
                               _discovery_options(args), n_boot=args.bootstrap, seed=args.seed, diagnostics=True)
    for line in scores.warnings:
        print(f"twinbench: {line}", file=sys.stderr)
    page = build_page(scores, evaluation, args.title)
    report.emit(page, args.output)
    pairs = sum(len(m.decisions) for m in evaluation.runs)
    print(f"report written to {args.output}: {len(scores.models)} models, {pairs} pair decisions, "
          f"{len(page.encode('utf-8')) / 1024:.0f} KiB", file=sys.stderr)
    return 0


# ---------------------------------------------------------------------------------------
# subcommand: compare
# ---------------------------------------------------------------------------------------


def _match_arms(base_runs, treat_runs, models):
    """Pairs of (baseline run, treatment run): same model name, ``--model BASE=TREAT``, or the only run of each."""
    by_b = {r.model: r for r in base_runs}
    by_t = {r.model: r for r in treat_runs}
    found = (f"(baseline: {', '.join(sorted(by_b)) or 'none'}; treatment: {', '.join(sorted(by_t)) or 'none'})")
    if models:
        chosen = [tuple(m.split("=", 1)) if "=" in m else (m, m) for m in models]
        missing = [f"{b}={t}" if b != t else b for b, t in chosen if b not in by_b or t not in by_t]
        if missing:
            raise UsageError(f"--model {', '.join(missing)}: not found in the trees {found}")
        return [(by_b[b], by_t[t]) for b, t in chosen]
    shared = sorted(set(by_b) & set(by_t))
    if shared:
        return [(by_b[m], by_t[m]) for m in shared]
    if len(base_runs) == 1 and len(treat_runs) == 1:
        return [(base_runs[0], treat_runs[0])]
    raise UsageError(f"the baseline and treatment trees share no model name {found}; pair two runs with "
                     "--model BASELINE_MODEL=TREATMENT_MODEL")


def cmd_compare(args: argparse.Namespace, adapter_cls: type[Adapter]) -> int:
    from twinbench.compare import compare_arms, compare_report
    from twinbench.scorecard import render_compare

    _check_statistics(args)
    _check_paths("--baseline", [args.baseline])
    _check_paths("--treatment", [args.treatment])
    _check_outputs(("--output", args.output))
    adapter = adapter_cls.from_args(args)
    reader = adapter.reader()
    base = reader.find([Path(args.baseline)], (), args.baseline_scores)
    treat = reader.find([Path(args.treatment)], (), args.treatment_scores)
    for name, search, folder in (("baseline", base, args.baseline), ("treatment", treat, args.treatment)):
        if not search.runs:
            raise UsageError(f"no complete run in the {name} tree {folder}" + _skipped_text(search.skipped))
    arms = _match_arms(base.runs, treat.runs, args.model)
    options = _discovery_options(args)
    manifests: dict = {}
    results = [compare_arms(adapter, b, t, options, args.bootstrap, args.seed, manifests) for b, t in arms]
    paired = {b.model for b, _ in arms} | {t.model for _, t in arms}
    unpaired = sorted({r.model for r in (*base.runs, *treat.runs)} - paired)
    found = [*(f"baseline {w}" for w in base.warnings), *(f"treatment {w}" for w in treat.warnings)]
    comparison = compare_report(results, options, args.bootstrap, args.seed, found, unpaired)
    for line in comparison.warnings:
        print(f"twinbench: {line}", file=sys.stderr)
    report.emit(render_compare(comparison, args.format), args.output)
    return 0


# ---------------------------------------------------------------------------------------
# subcommand: plot
# ---------------------------------------------------------------------------------------


def cmd_plot(args: argparse.Namespace, adapter_cls: type[Adapter] | None) -> int:
    import json

    from twinbench.plot import PlotError, render_svg

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
    report.emit(svg, args.output)
    return 0


# ---------------------------------------------------------------------------------------
# subcommand: build
# ---------------------------------------------------------------------------------------


def cmd_build(args: argparse.Namespace, adapter_cls: type[Adapter]) -> int:
    from twinbench.discovery import discover_for

    adapter = adapter_cls.from_args(args)
    manifest = discover_for(adapter, _discovery_options(args))
    for line in adapter.data_warnings():
        print(f"twinbench: {line}", file=sys.stderr)
    paths = adapter.write_suite(manifest, args.out)
    print(f"{len(manifest.scored)} pairs ({2 * len(manifest.scored)} items) written:")
    for path in paths:
        print(f"  {path}")
    return 0


# ---------------------------------------------------------------------------------------
# subcommand: calls
# ---------------------------------------------------------------------------------------


def cmd_calls(args: argparse.Namespace, adapter_cls: type[Adapter]) -> int:
    _check_paths("--results", args.results)
    adapter = adapter_cls.from_args(args)
    check = adapter.reader().check_reading([Path(p) for p in args.results], tuple(args.model))
    report.emit(report.json_text(check.to_json()) if args.format == "json" else check.render(), args.output)
    return 1 if check.unexplained else 0


# ---------------------------------------------------------------------------------------
# subcommand: new-adapter
# ---------------------------------------------------------------------------------------


def cmd_new_adapter(args: argparse.Namespace, adapter_cls: type[Adapter] | None) -> int:
    from twinbench.scaffold import create

    files = create(args.name, args.dir)
    print(f"adapter package {args.name} written to {args.dir}:")
    for path in files:
        print(f"  {path}")
    print(f"next: pip install -e '{args.dir}[test]' && python -m pytest {args.dir}/tests")
    return 0


# ---------------------------------------------------------------------------------------
# subcommand: functions
# ---------------------------------------------------------------------------------------


def cmd_functions(args: argparse.Namespace, adapter_cls: type[Adapter]) -> int:
    from twinbench.rules import EffectTableRule, function_records

    adapter = adapter_cls.from_args(args)
    rule = adapter.rule()
    if not isinstance(rule, EffectTableRule):
        report.emit(report.json_text({"rule": rule.summary, "functions": []}) if args.format == "json" else
                    f"the {adapter.name} adapter labels no functions: acting is {rule.summary}", args.output)
        return 0
    effects, verdicts = rule.classifier, rule.verdicts
    records = function_records(rule)
    if args.format == "json":
        text = report.json_text(records)
    elif args.format == "csv":
        keys = [k for k in records[0] if k != "notes"] if records else ["name"]
        text = report.csv_text(keys + ["notes"], [[r[k] for k in keys] + ["; ".join(f"{k}: {v}" for k, v in
                                                                               r["notes"].items())]
                                                  for r in records])
    else:
        body = report.table(["class", "name", "label", "reason"],
                            [[r["class"], r["name"], r["label"],
                              r["reason"] + "".join(f" [{k}: {v}]" for k, v in r["notes"].items()
                                                    if k == "analyzer_disagrees")] for r in records])
        counts = effects.counts()
        summary = f"{len(records)} functions: " + ", ".join(f"{v} {k}" for k, v in counts.items())
        derived = [r["name"] for r in records if r["label_source"] != "table"]
        if derived:
            summary += f"; {len(derived)} not in the table, labelled by the source analyzer ({', '.join(derived)})"
        if verdicts:
            disagree = [r for r in records if r["source_writes"] is not None
                        and r["source_writes"] != (r["label"] in ("mutate", "login"))]
            summary += f"; the source analyzer disagrees on {len(disagree)}" + (
                f" ({', '.join(r['name'] for r in disagree)}; each one's analyzer_disagrees note says why)"
                if disagree else "")
        text = body + "\n\n" + summary
    report.emit(text, args.output)
    return 0


# ---------------------------------------------------------------------------------------
# parser
# ---------------------------------------------------------------------------------------

Command = Callable[[argparse.Namespace, "type[Adapter]"], int]


def _common(parser: argparse.ArgumentParser, formats: Sequence[str] = report.FORMATS) -> None:
    parser.add_argument("--adapter", metavar="NAME", default=DEFAULT_ADAPTER,
                        help=f"the leaderboard adapter (default {DEFAULT_ADAPTER}; see `twinbench adapters`)")
    parser.add_argument("--format", choices=list(formats), default="table", help="output format (default table)")
    parser.add_argument("--output", metavar="FILE", type=Path, default=None,
                        help="write the output to FILE instead of standard output")


def _run_options(parser: argparse.ArgumentParser, verb: str) -> None:
    """``--results``, ``--model`` and ``--scores``: where the runs to read are (score, replay, report)."""
    parser.add_argument("--results", metavar="DIR", action="append", default=[],
                        help="a result folder written by the leaderboard's harness (repeatable)")
    parser.add_argument("--model", metavar="NAME", action="append", default=[],
                        help=f"{verb} only this model (repeatable)")
    parser.add_argument("--scores", metavar="DIR", type=_folder, default=None,
                        help="where the official score files are (default: the sibling score/ tree)")


def _population(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("population")
    group.add_argument("--count-login", action="store_true", help="count login/logout calls as world-changing")
    group.add_argument("--uncertified", action="store_true", help="keep the pairs curation marks as construction errors")
    group.add_argument("--all-pairs", action="store_true", help="score every content-verified pair, read-only ones too")


MAX_BOOTSTRAP = 100_000
MIN_BOOTSTRAP = 200


def _check_statistics(args: argparse.Namespace) -> None:
    if not (args.bootstrap == 0 or MIN_BOOTSTRAP <= args.bootstrap <= MAX_BOOTSTRAP):
        raise UsageError(f"--bootstrap must be 0 (no intervals) or between {MIN_BOOTSTRAP} and {MAX_BOOTSTRAP}: "
                         "fewer resamples give a 95% interval that need not even contain the estimate")
    if args.seed < 0:
        raise UsageError("--seed must be a non-negative integer")


def _statistics(parser: argparse.ArgumentParser, what: str) -> argparse._ArgumentGroup:
    from twinbench.defaults import DEFAULT_BOOTSTRAP, DEFAULT_SEED

    group = parser.add_argument_group("statistics")
    group.add_argument("--bootstrap", metavar="B", type=int, default=DEFAULT_BOOTSTRAP,
                       help=f"{what} (default {DEFAULT_BOOTSTRAP}; 0 turns them off)")
    group.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"bootstrap seed (default {DEFAULT_SEED})")
    return group


def build_parser(adapter_cls: type[Adapter] | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="twinbench",
        description="Score whether an agent acts when it should and asks when information is missing, "
        "on the twin pairs a leaderboard already contains.",
    )
    parser.add_argument("--version", action="version", version=f"twinbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("adapters", help="list the installed adapters")
    p.add_argument("--format", choices=list(report.FORMATS), default="table", help="output format (default table)")
    p.add_argument("--output", metavar="FILE", type=Path, default=None, help="write the output to FILE")
    p.set_defaults(func=cmd_adapters, needs_adapter=False)

    p = sub.add_parser("pairs", help="discover the twin pairs and explain every should-ask item's fate")
    _common(p)
    p.add_argument("--replay", action="store_true",
                   help="replay each scored pair's should-act reference and count the pairs whose anchor "
                        "calls leave the state unchanged (counts.reference_noop)")
    _population(p)
    p.set_defaults(func=cmd_pairs, needs_adapter=True)

    p = sub.add_parser(
        "score",
        help="score model runs (default: the built-in reference policies)",
        description="Score each model's decision to act or ask on the twin pairs. Without --results, "
        "scores the built-in reference policies (oracle, always-act, never-act), written as result files "
        "and read back through the same code as real runs.",
    )
    _common(p, SCORE_FORMATS)
    _run_options(p, "score")
    p.add_argument("--per-item", metavar="FILE", type=Path, default=None,
                   help="also write one CSV row per model and pair to FILE")
    p.add_argument("--wide", action="store_true", help="the table as one wide block (default: two narrow ones)")
    p.add_argument("--all-turns", action="store_true",
                   help="read every turn of every item, not only the turns scored, so that every step that looks "
                        "like a call but gives none is counted (slower)")
    p.add_argument("--fresh", action="store_true",
                   help="read every run again, even those whose files are unchanged since they were last read "
                        "(by default their decisions come from the twinbench cache)")
    p.add_argument("--explain", action="store_true",
                   help="say what every column means, with the reference policies as the worked example")
    p.add_argument("--replay", action="store_true",
                   help="replay the tool-removed pairs in the leaderboard's own simulator: the attempts, removed, "
                        "aligned and workaround counts, the decision with workarounds credited, and credited "
                        "with compound turns and workarounds both")
    p.add_argument("--diagnostics", action="store_true",
                   help="also say what each model did around its decisions: held-back turns (silent, looked up "
                        "first), placeholder arguments, where held-back items are lost officially, attempts "
                        "behind official passes, calls of a withheld tool")
    _population(p)
    group = _statistics(p, "cluster-bootstrap resamples for the 95%% intervals")
    group.add_argument("--min-coverage", metavar="SHARE", type=float, default=0.9,
                       help="rank only models covering at least this share of the pairs the best-covered model "
                            "covers (default 0.9); the others are scored and shown, not ranked")
    group = p.add_argument_group("scoring sensitivities")
    group.add_argument("--distinct-anchor-turns", action="store_true",
                       help="count act once per distinct should-act anchor turn")
    group.add_argument("--same-history", action="store_true",
                       help="only pairs where the model's calls before the anchor are identical in both twins")
    group.add_argument("--drop-ended-early", action="store_true",
                       help="drop pairs where either rollout ended before the anchor turn")
    p.set_defaults(func=cmd_score, needs_adapter=True)

    p = sub.add_parser(
        "replay",
        help="replay every stored item in the leaderboard's own simulator and check it against the official verdicts",
        description="Replay every should-act and should-ask item of each run with its reference, turn by turn, "
        "in the leaderboard's own simulator classes (parsed calls only, never eval). Reports per model the "
        "items replayed, those whose state equals the reference's after every turn the official checker "
        "compares, and, with score files, whether every item the leaderboard passed replays state-equal.",
    )
    _common(p, SCORE_FORMATS)
    _run_options(p, "replay")
    p.set_defaults(func=cmd_replay, needs_adapter=True)

    p = sub.add_parser(
        "report",
        help="write one self-contained HTML page: scores, charts, diagnostics and every pair's drill-down",
        description="Score the runs (default: the built-in reference policies) and write one HTML file that "
        "opens offline: the score table with intervals and coverage, the act-vs-hold and official-vs-decision "
        "charts, the decision by category, the diagnostics, and for every pair and model the anchor turn's "
        "words on both sides, the calls made, the decision and the official verdict, filterable by model, "
        "category and outcome.",
    )
    p.add_argument("--adapter", metavar="NAME", default=DEFAULT_ADAPTER,
                   help=f"the leaderboard adapter (default {DEFAULT_ADAPTER}; see `twinbench adapters`)")
    _run_options(p, "report")
    p.add_argument("--output", metavar="FILE", type=Path, required=True, help="the HTML file to write")
    p.add_argument("--title", default=None, help="the page title (default: twinbench report)")
    _population(p)
    _statistics(p, "cluster-bootstrap resamples for the 95%% intervals")
    p.set_defaults(func=cmd_report, needs_adapter=True)

    p = sub.add_parser(
        "compare",
        help="paired arms: the same model under two settings",
        description="Compare two result trees of the same model (baseline and treatment): discordant counts "
        "and exact McNemar p-values on both sides, the change in act, hold and decision with a paired "
        "cluster-bootstrap interval, the should-ask attempt share per category, and the official raw change.",
    )
    _common(p, SCORE_FORMATS)
    p.add_argument("--baseline", metavar="DIR", required=True, help="the baseline result tree")
    p.add_argument("--treatment", metavar="DIR", required=True, help="the treatment result tree")
    p.add_argument("--model", metavar="NAME", action="append", default=[],
                   help="compare only this model (repeatable; default: every model in both trees); "
                        "BASELINE_MODEL=TREATMENT_MODEL pairs runs of different names")
    p.add_argument("--baseline-scores", metavar="DIR", type=_folder, default=None,
                   help="score files of the baseline (default: its sibling score/ tree)")
    p.add_argument("--treatment-scores", metavar="DIR", type=_folder, default=None,
                   help="score files of the treatment (default: its sibling score/ tree)")
    _population(p)
    _statistics(p, "paired cluster-bootstrap resamples for the interval of the change")
    p.set_defaults(func=cmd_compare, needs_adapter=True)

    p = sub.add_parser("plot", help="draw an SVG chart from the JSON of `twinbench score`")
    p.add_argument("--input", metavar="FILE", type=Path, required=True,
                   help="the output of `twinbench score --format json`")
    p.add_argument("--kind", choices=["act-vs-hold", "official-vs-decision"], default="act-vs-hold",
                   help="act against hold (default), or official raw against decision accuracy")
    p.add_argument("--title", default=None, help="the chart title")
    p.add_argument("--output", metavar="FILE", type=Path, default=None,
                   help="write the SVG to FILE instead of standard output")
    p.set_defaults(func=cmd_plot, needs_adapter=False)

    p = sub.add_parser("build", help="write the paired suite (both sides of every scored pair) for a harness to run",
                       description="Write both sides of every scored pair in the leaderboard's own format, so "
                       "any client can run the suite; then score the outputs with `twinbench score`.")
    p.add_argument("--adapter", metavar="NAME", default=DEFAULT_ADAPTER,
                   help="the leaderboard adapter (see `twinbench adapters`)")
    p.add_argument("--out", metavar="DIR", type=Path, required=True, help="the folder to write the suite into")
    _population(p)
    p.set_defaults(func=cmd_build, needs_adapter=True)

    p = sub.add_parser("calls", help="check the calls twinbench reads against the leaderboard's own reading",
                       description="For every item the leaderboard stored its own reading of (e.g. the failed "
                       "items' model_result_decoded in the score files), compare the function names twinbench "
                       "reads per turn with it, and classify every difference. Exit 0 when only principled "
                       "differences remain, 1 when any is unexplained.")
    p.add_argument("--adapter", metavar="NAME", default=DEFAULT_ADAPTER,
                   help="the leaderboard adapter (see `twinbench adapters`)")
    p.add_argument("--results", metavar="DIR", action="append", required=True,
                   help="a result folder, as for `score` (repeatable); its score files hold the reading")
    p.add_argument("--model", metavar="NAME", action="append", default=[], help="only this model (repeatable)")
    p.add_argument("--format", choices=["table", "json"], default="table", help="output format (default table)")
    p.add_argument("--output", metavar="FILE", type=Path, default=None, help="write the output to FILE")
    p.set_defaults(func=cmd_calls, needs_adapter=True)

    p = sub.add_parser("new-adapter", help="write a package to start a new leaderboard adapter from",
                       description="Write a complete adapter package (module, data file, entry point, and a test "
                       "that passes with the reference policies at 100/50/50) to start a port from.")
    p.add_argument("name", metavar="NAME", help="the adapter's name (--adapter NAME), e.g. mybench")
    p.add_argument("--dir", metavar="DIR", type=Path, required=True, help="a new (or empty) folder for the package")
    p.set_defaults(func=cmd_new_adapter, needs_adapter=False)

    p = sub.add_parser("functions", help="list the effect label of every tool function")
    _common(p)
    p.set_defaults(func=cmd_functions, needs_adapter=True)

    if adapter_cls is not None:
        for name, subparser in sub.choices.items():
            if subparser.get_default("needs_adapter"):
                adapter_cls.add_arguments(subparser)
    return parser


def _adapter_name(argv: Sequence[str]) -> str:
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--adapter", default=DEFAULT_ADAPTER)
    known, _ = pre.parse_known_args(list(argv))
    return known.adapter


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        adapter_cls = registry.get(_adapter_name(argv))
    except AdapterError as exc:
        print(f"twinbench: error: {exc}", file=sys.stderr)
        return 2
    parser = build_parser(adapter_cls)
    args = parser.parse_args(argv)
    try:
        return int(args.func(args, adapter_cls) or 0)
    except BrokenPipeError:  # the reader went away (e.g. `| head`): not an error
        import os

        try:  # keep the interpreter from complaining when it flushes stdout at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return 0
    except (TwinbenchError, OSError) as exc:
        print(f"twinbench: error: {exc}", file=sys.stderr)
        return 2
    except MemoryError:
        print("twinbench: error: out of memory (is --bootstrap very large?)", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("twinbench: interrupted", file=sys.stderr)
        return 130


def run() -> None:  # pragma: no cover - the console entry point; tests call main()
    """``twinbench`` on the command line: :func:`main`, then out at once.

    Everything is written and closed by then (the output, the workers, temporary folders),
    so the interpreter's teardown of a heap of records (a tenth of a second at leaderboard
    scale) is skipped, as other command-line tools skip it.
    """
    import os

    # the bootstrap's products are small (resamples x pairs times pairs x models): one BLAS thread
    # computes them in milliseconds, and each further thread's buffers cost ~10 MiB of memory
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader went away: as in main
        code = code or 0
    except (OSError, ValueError):
        code = code or 1
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    run()
