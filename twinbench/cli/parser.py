"""The ``twinbench`` argument parser: every subcommand, its options, and the handler it runs."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

from twinbench import __version__
from twinbench.adapters import registry
from twinbench.cli.checks import MAX_BOOTSTRAP, MIN_BOOTSTRAP, folder
from twinbench.cli.commands import (
    cmd_adapters,
    cmd_build,
    cmd_calls,
    cmd_compare,
    cmd_functions,
    cmd_new_adapter,
    cmd_pairs,
    cmd_perturb,
    cmd_plot,
    cmd_replay,
    cmd_report,
    cmd_score,
)
from twinbench.contract.adapter import Adapter
from twinbench.options import DEFAULT_BOOTSTRAP, DEFAULT_SEED
from twinbench.render import tables

DEFAULT_ADAPTER = registry.DEFAULT


SCORE_FORMATS = ("table", "json", "csv", "markdown")


Command = Callable[[argparse.Namespace, "type[Adapter]"], int]


def _adapter_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--adapter", metavar="NAME", default=DEFAULT_ADAPTER,
                        help=f"the leaderboard adapter (default {DEFAULT_ADAPTER}; see `twinbench adapters`)")


def _common(parser: argparse.ArgumentParser, formats: Sequence[str] = tables.FORMATS) -> None:
    _adapter_option(parser)
    parser.add_argument("--format", choices=list(formats), default="table", help="output format (default table)")
    parser.add_argument("--output", metavar="FILE", type=Path, default=None,
                        help="write the output to FILE instead of standard output")


def _run_options(parser: argparse.ArgumentParser, verb: str) -> None:
    """``--results``, ``--model`` and ``--scores``: where the runs to read are (score, replay, report)."""
    parser.add_argument("--results", metavar="DIR", action="append", default=[],
                        help="a result folder written by the leaderboard's harness (repeatable)")
    parser.add_argument("--model", metavar="NAME", action="append", default=[],
                        help=f"{verb} only this model (repeatable)")
    parser.add_argument("--scores", metavar="DIR", type=folder, default=None,
                        help="where the official score files are (default: the sibling score/ tree)")


def _population(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("population")
    group.add_argument("--count-login", action="store_true", help="count login/logout calls as world-changing")
    group.add_argument("--uncertified", action="store_true", help="keep the pairs curation marks as construction errors")
    group.add_argument("--all-pairs", action="store_true", help="score every content-verified pair, read-only ones too")
    group.add_argument("--same-world", action="store_true",
                       help="exclude pairs whose twins start from different states (where the adapter keeps them)")


def _statistics(parser: argparse.ArgumentParser, what: str) -> argparse._ArgumentGroup:
    group = parser.add_argument_group("statistics")
    group.add_argument("--bootstrap", metavar="B", type=int, default=DEFAULT_BOOTSTRAP,
                       help=f"{what} (default {DEFAULT_BOOTSTRAP}; 0 turns them off; otherwise between "
                            f"{MIN_BOOTSTRAP} and {MAX_BOOTSTRAP})")
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
    p.add_argument("--format", choices=list(tables.FORMATS), default="table", help="output format (default table)")
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
    _adapter_option(p)
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
    p.add_argument("--baseline-scores", metavar="DIR", type=folder, default=None,
                   help="score files of the baseline (default: its sibling score/ tree)")
    p.add_argument("--treatment-scores", metavar="DIR", type=folder, default=None,
                   help="score files of the treatment (default: its sibling score/ tree)")
    p.add_argument("--wide", action="store_true",
                   help="one table with a row per model and measure, each on one line (default: a block per "
                        "model within 100 columns)")
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

    p = sub.add_parser("perturb", help="construct tool-removed twins where the leaderboard has none, write them in "
                       "its own format, and verify them with discovery",
                       description="For every should-act item's turn whose reference needs a world-changing tool, "
                       "construct the should-ask twin that withholds exactly those tools, write it in the "
                       "leaderboard's own format and pairs.json, and find the pairs again from the written files.")
    _common(p, ("table", "json"))
    p.add_argument("--out", metavar="DIR", type=Path, required=True, help="the folder to write the constructed items to")
    p.add_argument("--items", metavar="FILE", type=Path, default=None,
                   help="perturb only the should-act items this file lists (one id a line)")
    p.add_argument("--values", action="store_true",
                   help="also construct value-removed twins: the anchor's one literal reference value taken out "
                   "of the user's words by the adapter's rewrite and given on an inserted next turn")
    p.add_argument("--review", metavar="FILE", type=Path, default=None,
                   help="write every value-removal rewrite for review (CSV, or markdown for a .md name; "
                   "implies --values)")
    p.add_argument("--reviewed", metavar="FILE", type=Path, default=None,
                   help="read a filled-in review CSV back: rewrites with approved=yes are certified, the others "
                   "not (implies --values)")
    p.set_defaults(func=cmd_perturb, needs_adapter=True)

    p = sub.add_parser("build", help="write the paired suite (both sides of every scored pair) for a harness to run",
                       description="Write both sides of every scored pair in the leaderboard's own format, so "
                       "any client can run the suite; then score the outputs with `twinbench score`.")
    _adapter_option(p)
    p.add_argument("--out", metavar="DIR", type=Path, required=True, help="the folder to write the suite into")
    _population(p)
    p.set_defaults(func=cmd_build, needs_adapter=True)

    p = sub.add_parser("calls", help="check the calls twinbench reads against the leaderboard's own reading",
                       description="For every item the leaderboard stored its own reading of (e.g. the failed "
                       "items' model_result_decoded in the score files), compare the function names twinbench "
                       "reads per turn with it, and classify every difference. Exit 0 when only principled "
                       "differences remain, 1 when any is unexplained.")
    _adapter_option(p)
    p.add_argument("--results", metavar="DIR", action="append", required=True,
                   help="a result folder, as for `score` (repeatable); its score files hold the reading")
    p.add_argument("--model", metavar="NAME", action="append", default=[], help="only this model (repeatable)")
    p.add_argument("--format", choices=["table", "json"], default="table", help="output format (default table)")
    p.add_argument("--output", metavar="FILE", type=Path, default=None, help="write the output to FILE")
    p.add_argument("--wide", action="store_true",
                   help="a column per kind of difference, each row on one line (default: within 100 columns)")
    p.set_defaults(func=cmd_calls, needs_adapter=True)

    p = sub.add_parser("new-adapter", help="write a package to start a new leaderboard adapter from",
                       description="Write a complete adapter package (module, data file, entry point, and a test "
                       "that passes with the reference policies at 100/50/50) to start a port from.")
    p.add_argument("name", metavar="NAME", help="the adapter's name (--adapter NAME), e.g. mybench")
    p.add_argument("--dir", metavar="DIR", type=Path, required=True, help="a new (or empty) folder for the package")
    p.set_defaults(func=cmd_new_adapter, needs_adapter=False)

    p = sub.add_parser("functions", help="list the effect label of every tool function")
    _common(p)
    p.add_argument("--wide", action="store_true",
                   help="every function on one line, its reason unwrapped (default: within 100 columns)")
    p.set_defaults(func=cmd_functions, needs_adapter=True)

    if adapter_cls is not None:
        for name, subparser in sub.choices.items():
            if subparser.get_default("needs_adapter"):
                adapter_cls.add_arguments(subparser)
    return parser
