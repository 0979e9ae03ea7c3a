"""Replay on BFCL: reference states, the state facts of miss_func pairs, and the turn-by-turn check.

Reference states are computed once per release and item (a deep copy of the public
attributes after each reference turn) and kept; a model's rollout is replayed on fresh
instances and compared with them live. See :mod:`.sandbox` for what is executed and how.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

from twinbench.contract.replayer import ItemReplay, PairReplay, Replayer
from twinbench.decisions import unavailable
from twinbench.errors import AdapterError
from twinbench.model import Call, Item, Pair, Rollout

from .dataset import BFCLData, RawItem
from .sandbox import Sandbox, State, World, load_classes, state_difference
from .tree import SCORED_CATEGORIES


def _turn_calls(rollout: Rollout, turn: int) -> tuple[Call, ...]:
    """Every parsed call of one turn, steps in order (BFCL executes each decoded step in turn)."""
    return rollout.calls_on(turn) or ()


class BFCLReplayer(Replayer):
    """Replays calls in the simulator classes of one release's files."""

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
        for pair in pairs:
            noop = self.reference_noop(pair)
            rollout = rollouts.get(pair.ask_id)
            why = unavailable(rollout)
            if why is not None:
                out[pair.ask_id] = PairReplay(pair.ask_id, None, None, noop, error=why)
                continue
            reference = self.reference_states(pair.act_id)
            before, after = reference[pair.act_anchor_turn], reference[pair.act_anchor_turn + 1]
            world = self.world(pair.ask_id)
            for turn in range(pair.anchor_turn):
                world.run(_turn_calls(rollout, turn))
            difference = world.difference(before)
            world.run(_turn_calls(rollout, pair.anchor_turn))
            out[pair.ask_id] = PairReplay(
                pair.ask_id, aligned=difference is None, reaches_reference=world.matches(after), reference_noop=noop,
                difference=None if difference is None else f"before turn {pair.anchor_turn}: {difference.text()}")
        return out

    # -- the turn-by-turn check ------------------------------------------------------------
    def check_items(self) -> list[str]:
        return [r.id for r in self.data.raw if r.category in SCORED_CATEGORIES]

    def check(self, rollouts: Mapping[str, Rollout], item_ids: Sequence[str]) -> list[ItemReplay]:
        return [self.check_item(item_id, rollouts.get(item_id)) for item_id in item_ids]

    def check_item(self, item_id: str, rollout: Rollout | None) -> ItemReplay:
        """Replay one rollout; after every turn with a non-empty reference, compare with the reference state."""
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
