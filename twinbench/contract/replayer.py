"""Replaying stored calls in a leaderboard's own executor: an optional part of the contract.

An adapter that can execute parsed calls in its leaderboard's simulator (the reference
adapter can) returns a :class:`Replayer` from ``Adapter.replayer()``. Two readings use it:

- ``twinbench score --replay``: on every pair whose should-ask twin had a tool removed, the
  state facts of :class:`PairReplay` decide whether an attempt on the anchor turn was a
  *workaround* (:func:`twinbench.decisions.credit` is the one place that rule lives);
- ``twinbench replay``: every item's rollout replayed turn by turn against its own
  reference (:class:`ItemReplay`), checked against the leaderboard's own verdicts
  (:mod:`twinbench.evaluation.replay`).

Nothing here knows a leaderboard: states are the adapter's business; the core sees
booleans and the first difference as text.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence

import attrs

from twinbench.model import Pair, Rollout


@attrs.frozen
class PairReplay:
    """The state facts of one tool-removed pair, anchor ``k`` on the should-ask side.

    With G_before / G_after the state after the should-act twin's reference turns before /
    through its anchor, and M_before / M_after the state after the model's should-ask
    rollout turns before / through its anchor:

    ``aligned``            M_before == G_before (the model reached the anchor in the reference state)
    ``reaches_reference``  M_after == G_after
    ``reference_noop``     G_after == G_before (the reference's own anchor calls change nothing)

    ``None`` where the pair could not be replayed (``error`` says why).
    """

    ask_id: str
    aligned: bool | None
    reaches_reference: bool | None
    reference_noop: bool
    difference: str | None = None  # why not aligned: the first differing attribute before the anchor
    error: str | None = None
    #: the replay was stopped at a limit (``error`` says which): where and how, e.g. "turn 0, call 1: f() stopped after 2 s"
    stopped: str | None = None


@attrs.frozen
class ItemReplay:
    """One item's rollout replayed against its own reference, turn by turn.

    ``compared_turns`` are the turns the leaderboard's checker compares (e.g. those whose
    reference is not empty); ``first_difference`` is the first of them after which
    the model's state differs from the reference's, with the attribute that differs.
    A replay stopped at a limit (time, memory, number of calls) is not replayed: ``error``
    is the limit, ``stopped`` says where and how; it is left out of the official passes checked.
    """

    item_id: str
    compared_turns: int
    calls: int
    errors: int  # calls that raised, recorded as error results and passed over
    first_difference: tuple[int, str] | None = None
    error: str | None = None  # the rollout could not be replayed (error entry, missing, a limit)
    stopped: str | None = None  # stopped at a limit: where and how

    @property
    def replayed(self) -> bool:
        return self.error is None

    @property
    def state_equal(self) -> bool:
        return self.error is None and self.first_difference is None


class Replayer(abc.ABC):
    """Executes parsed calls in the leaderboard's own simulator, for one data release."""

    @abc.abstractmethod
    def reference_noop(self, pair: Pair) -> bool:
        """Does the should-act twin's reference on its anchor turn leave the state unchanged?"""

    @abc.abstractmethod
    def replay_pairs(self, pairs: Sequence[Pair], rollouts: Mapping[str, Rollout]) -> Mapping[str, PairReplay]:
        """The state facts of each pair (by should-ask id), from the model's should-ask rollout."""

    @abc.abstractmethod
    def check_items(self) -> Sequence[str]:
        """The items ``twinbench replay`` replays (both sides of every category the leaderboard scores)."""

    @abc.abstractmethod
    def check(self, rollouts: Mapping[str, Rollout], item_ids: Sequence[str]) -> list[ItemReplay]:
        """Each item's rollout replayed against its reference, turn by turn."""
