"""Each distinct step read once: :class:`StepMemo` keeps what :func:`read_step` found, by the step's stored bytes.

A leaderboard's runs repeat their steps: the same empty reply, the same ``ls()``, the same
refusal, turn after turn and model after model. What :func:`read_step` finds in a step depends
on the step alone, so a reader that has the step as it was stored (its JSON bytes) reads it
once and takes the same :class:`StepReading` the next times. The memo is bounded: past its
budget of stored bytes it starts again empty, and a step longer than :data:`LONGEST_KEPT`
is read each time.
"""

from __future__ import annotations

from typing import Any

from twinbench.reading.found import StepReading
from twinbench.reading.step import read_step

#: the longest stored step (bytes) whose reading is kept; longer ones rarely repeat
LONGEST_KEPT = 1 << 16
#: the stored bytes the memo holds before it starts again empty (its readings take a few times more)
BUDGET_BYTES = 8 << 20


class StepMemo:
    """:func:`read_step` once per distinct stored step, within a budget of bytes."""

    __slots__ = ("_readings", "_bytes", "budget", "hits", "misses")

    def __init__(self, budget: int = BUDGET_BYTES) -> None:
        self._readings: dict[bytes, StepReading] = {}
        self._bytes = 0
        self.budget = budget
        self.hits = 0
        self.misses = 0

    def read(self, step: Any, stored: bytes | None = None) -> StepReading:
        """``read_step(step)``; ``stored`` is the step as stored (its JSON bytes), the key it is kept under."""
        if stored is None or len(stored) > min(LONGEST_KEPT, self.budget):
            return read_step(step)
        found = self._readings.get(stored)
        if found is not None:
            self.hits += 1
            return found
        self.misses += 1
        found = read_step(step)
        if self._bytes + len(stored) > self.budget:
            self._readings.clear()
            self._bytes = 0
        self._readings[stored] = found
        self._bytes += len(stored)
        return found

    def __len__(self) -> int:
        return len(self._readings)
