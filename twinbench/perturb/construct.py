"""Which anchor turns can get a constructed tool-removed twin, which tools to withhold, and why not.

A should-act item's turn is a candidate anchor. Its twin withholds exactly the tools the turn's
reference needs to act (the tools of its world-changing calls, by the adapter's decision rule),
from the first turn until that turn, as leaderboards that withhold tools do (BFCL's ``miss_func``).
A turn cannot be perturbed when its reference makes no world-changing call (it poses no decision
to act), when a withheld tool is also needed on an earlier turn (withholding it would break that
turn), or when its reference allows alternatives (no one tool set is the one it needs).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

import attrs

from twinbench.contract.perturber import Perturber
from twinbench.contract.rules import DecisionRule
from twinbench.model import Item, Side
from twinbench.model.constructed import Construction

NO_ACTION = "the reference makes no world-changing call on this turn"


def _tools(item: Item, turn: int, rule: DecisionRule, acting_only: bool) -> list[str]:
    offered = frozenset(item.turns[turn].tools)
    out: list[str] = []
    for call in item.turns[turn].reference:
        tool = rule.tool_of(call.name, offered)
        named = call if tool in (None, call.name) else attrs.evolve(call, name=tool)
        if tool is not None and tool not in out and (not acting_only or rule.is_action(named, item, turn)):
            out.append(tool)
    return out


def construct_turn(item: Item, turn: int, rule: DecisionRule, perturber: Perturber) -> Construction:
    """The construction for one turn of a should-act item: its withheld tools and new id, or why not."""
    base = Construction(item.id, item.category, turn)
    if perturber.alternatives(item, turn):
        return attrs.evolve(base, reason="the reference allows alternatives, so no one tool set is the one it needs")
    withheld = _tools(item, turn, rule, acting_only=True)
    if not withheld:
        return attrs.evolve(base, reason=NO_ACTION)
    others = [t.index for t in item.turns if t.index != turn and t.reference_is_empty]
    if others:
        return attrs.evolve(base, withheld=tuple(withheld),
                            reason=f"turn {others[0]} already has an empty reference, so the anchor would not be "
                                   "the only one")
    for earlier in range(turn):
        needed = sorted(set(withheld) & set(_tools(item, earlier, rule, acting_only=False)))
        if needed:
            return attrs.evolve(base, withheld=tuple(withheld),
                                reason=f"{', '.join(needed)} also needed on the earlier turn {earlier}")
    return attrs.evolve(base, withheld=tuple(withheld), new_id=perturber.new_id(item, turn))


def constructions(items: Sequence[Item], rule: DecisionRule, perturber: Perturber,
                  wanted: Collection[str] | None = None) -> tuple[list[Construction], dict[str, str]]:
    """Every turn of every should-act item (of ``wanted`` only, when given), in the items' order, and the
    items the perturber refuses as a whole (by id, with the reason)."""
    out: list[Construction] = []
    refused: dict[str, str] = {}
    for item in _acting(items, wanted):
        why = perturber.refuse(item)
        if why is not None:
            refused[item.id] = why
            continue
        out.extend(construct_turn(item, t.index, rule, perturber) for t in item.turns)
    return out, refused


def _acting(items: Iterable[Item], wanted: Collection[str] | None) -> list[Item]:
    return [i for i in items if i.side is Side.ACT and (wanted is None or i.id in wanted)]
