"""Reference policies that make the scale checkable on any adapter.

* ``oracle`` replays the reference trajectory: it acts on the complete turn and, where
  the reference is empty, answers in prose. Decision 100.
* ``always-act`` replays the reference, and on the should-ask anchor turn makes the
  should-act twin's anchor calls. Act 100, hold 0: decision 50.
* ``never-act`` replays the reference but answers every anchor turn in prose.
  Act 0, hold 100: decision 50.

Rollouts are lists of turns of steps of calls; an empty step stands for a prose reply.
The adapter writes them in its leaderboard's own format so they are read back through
the same code as real runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from twinbench.model import Call, Item, Pair

PolicyRollouts = dict[str, list[list[list[Call]]]]
POLICIES = ("oracle", "always-act", "never-act")


def _replay(item: Item) -> list[list[list[Call]]]:
    return [[list(turn.reference), []] if turn.reference else [[]] for turn in item.turns]


def policy_rollouts(name: str, pairs: Sequence[Pair], items: Mapping[str, Item]) -> PolicyRollouts:
    """The rollouts of one reference policy on every item of the given pairs."""
    if name not in POLICIES:
        raise ValueError(f"unknown policy {name!r}; choose from {', '.join(POLICIES)}")
    out: PolicyRollouts = {}
    for pair in pairs:
        for item_id in (pair.act_id, pair.ask_id):
            if item_id not in out:
                out[item_id] = _replay(items[item_id])
    for pair in pairs:
        if name == "always-act":
            calls = list(items[pair.act_id].turns[pair.act_anchor_turn].reference)
            out[pair.ask_id][pair.anchor_turn] = [calls, []]
        elif name == "never-act":
            out[pair.act_id][pair.act_anchor_turn] = [[]]
            out[pair.ask_id][pair.anchor_turn] = [[]]
    return out
