"""The command line's own checks: option values, output paths, and the options records they build."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from twinbench.contract.adapter import Adapter
from twinbench.errors import TwinbenchError
from twinbench.options import DiscoveryOptions, ScoreOptions
from twinbench.render import output


class UsageError(TwinbenchError):
    """A mistake in how the command was called."""


def discovery_options(args: argparse.Namespace):
    return DiscoveryOptions(
        count_login=args.count_login, uncertified=args.uncertified, all_pairs=args.all_pairs,
        same_world=args.same_world
    )


def score_options(args: argparse.Namespace):
    return ScoreOptions(distinct_anchor_turns=args.distinct_anchor_turns, same_history=args.same_history,
                        drop_ended_early=args.drop_ended_early)


def check_outputs(*options: tuple[str, Path | None]) -> None:
    """Two output options naming one file (by name or by link) would overwrite each other; a folder is no file."""
    output.guard((), options)


#: the options that name result trees, with the options naming their official verdicts (per command)
_TREES = (("results", "scores"), ("baseline", "baseline_scores"), ("treatment", "treatment_scores"))


def command_inputs(args: argparse.Namespace, adapter: Adapter | None = None) -> list[tuple[str, Path]]:
    """Every file the command reads, with the option that named it: ``--input``, the adapter's data,
    and every file of the runs under the result trees (result files and the verdicts beside them)."""
    inputs: list[tuple[str, Path]] = []
    if getattr(args, "input", None) is not None:
        inputs.append(("--input", Path(args.input)))
    if adapter is None:
        return inputs
    inputs.extend(adapter.input_files())
    for trees, scores in _TREES:
        paths = getattr(args, trees, None)
        if not paths:
            continue
        paths = [Path(p) for p in ([paths] if isinstance(paths, (str, Path)) else paths)]
        option = "--" + trees.replace("_", "-")
        try:
            reader = adapter.reader()
            runs = reader.find(paths, (), getattr(args, scores, None)).runs
        except TwinbenchError:  # the command says what is wrong with them, before it writes anything
            continue
        for run in runs:
            inputs.extend((option, source) for source in reader.sources(run))
    return inputs


def guard_outputs(args: argparse.Namespace, adapter: Adapter | None, *outputs: tuple[str, Path | None]) -> None:
    """Refuse, before any work, an output that is one of the command's inputs or another output's file;
    every later write of the command checks against the same inputs (see :mod:`twinbench.render.output`).

    A command whose named outputs are all unset writes only to standard output: its inputs are not
    looked up (finding every run's files costs a rerun a sixth of its time). A command that names no
    output option (``build``, which writes a folder) always protects its inputs."""
    if outputs and all(path is None for _, path in outputs):
        return
    output.guard(command_inputs(args, adapter), outputs)


def folder(value: str) -> Path:
    """An argparse type for a folder option: an empty value would silently mean the current folder."""
    if not value.strip():
        raise argparse.ArgumentTypeError("is empty; give a folder (an empty value would read the current folder)")
    return Path(value)


def check_paths(option: str, values: Sequence[str]) -> None:
    for value in values:
        if not str(value).strip():
            raise UsageError(f"{option} is empty; give a path (an empty value would read the current folder)")


def skipped_text(skipped) -> str:
    return "".join(f"\n  skipped {folder}: {reason}" for folder, reason in skipped)


MAX_BOOTSTRAP = 100_000


MIN_BOOTSTRAP = 200


def check_statistics(args: argparse.Namespace) -> None:
    if not (args.bootstrap == 0 or MIN_BOOTSTRAP <= args.bootstrap <= MAX_BOOTSTRAP):
        raise UsageError(f"--bootstrap must be 0 (no intervals) or between {MIN_BOOTSTRAP} and {MAX_BOOTSTRAP}: "
                         "fewer resamples give a 95% interval that need not even contain the estimate")
    if args.seed < 0:
        raise UsageError("--seed must be a non-negative integer")
