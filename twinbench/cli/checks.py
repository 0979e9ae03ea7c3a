"""The command line's own checks: option values, output paths, and the options records they build."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from twinbench.errors import TwinbenchError
from twinbench.options import DiscoveryOptions, ScoreOptions


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
    """Two output options naming one file would overwrite each other."""
    given = [(name, Path(path)) for name, path in options if path is not None]
    for i, (name, path) in enumerate(given):
        for other, other_path in given[i + 1:]:
            if path.resolve() == other_path.resolve():
                raise UsageError(f"{name} and {other} name the same file ({path}); give each its own")
        if path.is_dir():
            raise UsageError(f"{name} {path} is a folder; give a file name")


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
