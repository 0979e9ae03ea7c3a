"""The optional part of an adapter that writes constructed twins (``twinbench perturb``).

twinbench decides which anchor turns can be perturbed and which tools to withhold
(:mod:`twinbench.perturb`); a :class:`Perturber` knows the leaderboard's own format: what
id a constructed item gets, how it is written so the leaderboard's harness runs it, and
how the written files are read back as the adapter's constructed-items source.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from twinbench.model import Item
from twinbench.model.constructed import Construction, ValueRemoval

__all__ = ["Perturber"]


class Perturber(abc.ABC):
    """How one leaderboard's constructed should-ask items are named, written and read back."""

    def refuse(self, item: Item) -> str | None:
        """Why this should-act item can have no constructed twin on any turn, or ``None``."""
        return None

    def alternatives(self, item: Item, turn: int) -> bool:
        """Whether the turn's reference allows alternative solutions (then no tool set is "the" one)."""
        return False

    def rewrite(self, item: Item, turn: int, argument: str, value: str) -> tuple[str, str] | None:
        """Value removal: the turn's user words without ``value`` and the inserted next turn's words that
        give it back, or ``None`` when this leaderboard has no way to withhold a value (the default)."""
        return None

    def new_value_id(self, item: Item, turn: int) -> str:
        """The id of the value-removed twin constructed from ``item`` with the anchor at ``turn``."""
        raise NotImplementedError(f"{type(self).__name__} constructs no value-removed twins")

    def write_values(self, removals: Sequence[ValueRemoval], out: Path) -> list[Path]:
        """Write the value-removed twins in the leaderboard's own format below ``out`` (none by default)."""
        return []

    def record_review(self, approved: dict[str, str], rejected: Sequence[str], source: Path | None,
                      out: Path) -> list[Path]:
        """Keep the review's verdicts (approved ids with their rewritten words, rejected ids) below ``out``,
        so reading the folder back certifies the approved rewrites only; ``source`` ``None``: no review,
        and any earlier record is removed (none by default)."""
        return []

    @abc.abstractmethod
    def new_id(self, item: Item, turn: int) -> str:
        """The id of the should-ask twin constructed from ``item`` with the anchor at ``turn``."""

    @abc.abstractmethod
    def write(self, constructions: Sequence[Construction], out: Path) -> list[Path]:
        """Write the perturbable constructions in the leaderboard's own format below ``out``."""

    @abc.abstractmethod
    def reload(self, out: Path, only: bool = True) -> Any:
        """The adapter (an :class:`~twinbench.contract.adapter.Adapter`) with ``out`` as its constructed-items source (``only``: no shipped should-ask items)."""
