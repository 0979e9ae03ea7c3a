"""Replay on BFCL: reference states, the state facts of miss_func pairs, and the turn-by-turn check.

Reference states are computed once per release and item (a deep copy of the public
attributes after each reference turn) and kept; a model's rollout is replayed on fresh
instances and compared with them live. See :mod:`.sandbox` for what is executed and how.

The reference turns run in this process (they are the release's own calls, trusted as its
code is). The model's calls run in a child process under the limits of :mod:`.limits`, one
batch per run: the reference states are computed first, so that every child inherits them.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

from twinbench.contract.replayer import ItemReplay, PairReplay, Replayer
from twinbench.decisions import unavailable
from twinbench.errors import AdapterError
from twinbench.model import Call, Item, Pair, Rollout

from .dataset import BFCLData, RawItem
from .limits import Limits, Stop, run_bounded
from .sandbox import Sandbox, State, World, load_classes, render_call, state_difference
from .tree import SCORED_CATEGORIES


def _turn_calls(rollout: Rollout, turn: int) -> tuple[Call, ...]:
    """Every parsed call of one turn, steps in order (BFCL executes each decoded step in turn)."""
    return rollout.calls_on(turn) or ()


def _where(rollout: Rollout | None, stop: Stop) -> str:
    """Where a replay stopped: the turn and call that ran (the ``stop.call``-th, turns in order), and how."""
    seen = 0
    turns = rollout.turns if rollout is not None else None
    for turn, steps in enumerate(turns or ()):
        if steps is None:  # a turn not read: replay never went past it
            break
        calls = _turn_calls(rollout, turn)
        if stop.call and seen + len(calls) >= stop.call:
            return f"turn {turn}, call {stop.call}: {render_call(calls[stop.call - seen - 1], 120)} {stop.detail}"
        seen += len(calls)
    return stop.detail if not stop.call else f"call {stop.call} {stop.detail}"


class BFCLReplayer(Replayer):
    """Replays calls in the simulator classes of one release's files."""

    limits: Limits = Limits()  # what the model's calls run under (an instance may set its own)

    def __init__(self, data: BFCLData, items: Mapping[str, Item]) -> None:
        self.data = data
        self.items = items
        self.raw: dict[str, RawItem] = {r.id: r for r in data.raw}
        self._references: dict[str, tuple[State, ...]] = {}

    @functools.cached_property
    def sandbox(self) -> Sandbox:
        return load_classes(self.data.source_files, self.data.release.root)

    def world(self, item_id: str) -> World:
        raw = self.raw[item_id]
        try:
            return self.sandbox.world(raw.involved_classes, raw.initial_config,
                                      long_context="long_context" in raw.category)
        except AdapterError as exc:
            raise AdapterError(f"{item_id} ({self.data.release.describe()}): {exc}") from None

    def reference_states(self, item_id: str) -> tuple[State, ...]:
        """The state before any turn, then after each reference turn (``len(turns) + 1`` states)."""
        states = self._references.get(item_id)
        if states is None:
            world = self.world(item_id)
            out = [world.snapshot()]
            for turn in self.items[item_id].turns:
                world.run(turn.reference)
                out.append(world.snapshot())
            states = self._references[item_id] = tuple(out)
        return states

    # -- pairs ---------------------------------------------------------------------------
    def reference_noop(self, pair: Pair) -> bool:
        states = self.reference_states(pair.act_id)
        return state_difference(states[pair.act_anchor_turn + 1], states[pair.act_anchor_turn]) is None

    def replay_pairs(self, pairs: Sequence[Pair], rollouts: Mapping[str, Rollout]) -> dict[str, PairReplay]:
        out: dict[str, PairReplay] = {}
        ready = []
        for pair in pairs:
            noop = self.reference_noop(pair)  # the reference states, before the child forks
            why = unavailable(rollouts.get(pair.ask_id))
            if why is not None:
                out[pair.ask_id] = PairReplay(pair.ask_id, None, None, noop, error=why)
            else:
                ready.append(pair)

        def stopped(pair: Pair, stop: Stop) -> PairReplay:
            return PairReplay(pair.ask_id, None, None, self.reference_noop(pair), error=stop.reason,
                              stopped=_where(rollouts[pair.ask_id], stop))

        replays = run_bounded(lambda pair: self.replay_pair(pair, rollouts[pair.ask_id]), ready, stopped, self.limits)
        out.update((pair.ask_id, replay) for pair, replay in zip(ready, replays))
        return {pair.ask_id: out[pair.ask_id] for pair in pairs}

    def replay_pair(self, pair: Pair, rollout: Rollout) -> PairReplay:
        """The state facts of one pair from the model's should-ask rollout (in the child, under the limits)."""
        reference = self.reference_states(pair.act_id)
        before, after = reference[pair.act_anchor_turn], reference[pair.act_anchor_turn + 1]
        world = self.world(pair.ask_id)
        for turn in range(pair.anchor_turn):
            world.run(_turn_calls(rollout, turn))
        difference = world.difference(before)
        world.run(_turn_calls(rollout, pair.anchor_turn))
        return PairReplay(
            pair.ask_id, aligned=difference is None, reaches_reference=world.matches(after),
            reference_noop=self.reference_noop(pair),
            difference=None if difference is None else f"before turn {pair.anchor_turn}: {difference.text()}")

    # -- the turn-by-turn check ------------------------------------------------------------
    def check_items(self) -> list[str]:
        return [r.id for r in self.data.raw if r.category in SCORED_CATEGORIES]

    def check(self, rollouts: Mapping[str, Rollout], item_ids: Sequence[str]) -> list[ItemReplay]:
        for item_id in item_ids:  # the reference states, before the child forks
            if unavailable(rollouts.get(item_id)) is None:
                self.reference_states(item_id)

        def stopped(item_id: str, stop: Stop) -> ItemReplay:
            compared = sum(1 for turn in self.items[item_id].turns if turn.reference_text)
            return ItemReplay(item_id, compared, 0, 0, error=stop.reason, stopped=_where(rollouts.get(item_id), stop))

        return run_bounded(lambda item_id: self.check_item(item_id, rollouts.get(item_id)), list(item_ids), stopped,
                           self.limits)

    def check_item(self, item_id: str, rollout: Rollout | None) -> ItemReplay:
        """Replay one rollout; after every turn with a non-empty reference, compare with the reference state
        (in the child, under the limits)."""
        item = self.items[item_id]
        compared = sum(1 for turn in item.turns if turn.reference_text)
        why = unavailable(rollout)
        if why is not None:
            return ItemReplay(item_id, compared, 0, 0, error=why)
        reference = self.reference_states(item_id)
        world = self.world(item_id)
        calls = errors = 0
        first = None
        for index, turn in enumerate(item.turns):
            results = world.run(_turn_calls(rollout, index))
            calls += len(results)
            errors += sum(r.error for r in results)
            if first is None and turn.reference_text:  # BFCL skips the state check on an empty reference turn
                difference = world.difference(reference[index + 1])
                if difference is not None:
                    first = (index, difference.text())
        return ItemReplay(item_id, compared, calls, errors, first)
