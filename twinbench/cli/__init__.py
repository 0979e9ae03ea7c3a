"""The ``twinbench`` command: :mod:`~twinbench.cli.main` (entry and errors), :mod:`~twinbench.cli.parser`
(subcommands and options), :mod:`~twinbench.cli.commands` (one short handler each) and
:mod:`~twinbench.cli.checks` (option checks).

Every subcommand takes ``--adapter NAME`` (default: :data:`twinbench.adapters.DEFAULT`)
plus that adapter's own options.
"""

from __future__ import annotations

from twinbench.cli.checks import UsageError
from twinbench.cli.main import main, run
from twinbench.cli.parser import build_parser

__all__ = ["UsageError", "build_parser", "main", "run"]
