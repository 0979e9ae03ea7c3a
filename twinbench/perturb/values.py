"""Which anchor turns can get a constructed value-removed twin, which value is removed, and why not.

A candidate is a turn of a should-act item whose reference makes a world-changing call (the same
candidates as tool removal). The value removed is the first literal argument of those calls (in
the reference's order) whose text appears exactly once in the turn's user words, as a whole token,
and nowhere in an earlier turn's words (there the model could take it from). The adapter chooses
the rewrite (:meth:`~twinbench.contract.perturber.Perturber.rewrite`): the words without the value,
and the inserted next turn's words that give it back. Every rewrite is listed for review; only
the approved ones are certified.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence

import attrs

from twinbench.contract.perturber import Perturber
from twinbench.contract.rules import DecisionRule
from twinbench.model import Call, Item
from twinbench.model.constructed import ValueRemoval
from twinbench.perturb.construct import NO_ACTION, _acting

NO_VALUE = "no argument value of the world-changing calls appears exactly once in the turn's words"
EARLIER = "the value also appears in an earlier turn's words"
NOT_OFFERED = "this adapter offers no value rewrite"


def _literals(call: Call) -> Iterator[tuple[str, str]]:
    """``(argument name, literal text)`` of a call's string and integer arguments, in written order."""
    named = [(f"{call.short_name}[{i}]", v) for i, v in enumerate(call.args)]
    named += [(f"{call.short_name}.{k}", v) for k, v in call.kwargs]
    for name, value in named:
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            continue
        text = str(value)
        if text.strip():
            yield name, text


def occurrences(value: str, words: str) -> int:
    """How often ``value`` appears in ``words`` as a whole token (no letter or digit either side)."""
    pattern = re.compile(r"(?<![A-Za-z0-9])" + re.escape(value) + r"(?![A-Za-z0-9])")
    return sum(1 for _ in pattern.finditer(words))


def value_removal(item: Item, turn: int, rule: DecisionRule, perturber: Perturber) -> ValueRemoval:
    """The value-removed construction for one turn of a should-act item, or why it has none."""
    base = ValueRemoval(item.id, item.category, turn)
    current = item.turns[turn]
    offered = frozenset(current.tools)
    acting = []
    for call in current.reference:
        tool = rule.tool_of(call.name, offered)
        named = call if tool in (None, call.name) else attrs.evolve(call, name=tool)
        if tool is not None and rule.is_action(named, item, turn):
            acting.append(call)
    if not acting:
        return attrs.evolve(base, reason=NO_ACTION)
    others = [t.index for t in item.turns if t.index != turn and t.reference_is_empty]
    if others:
        return attrs.evolve(base, reason=f"turn {others[0]} already has an empty reference, so the anchor would not "
                                         "be the only one")
    words = "\n".join(current.user_text)
    earlier = "\n".join(w for t in item.turns[:turn] for w in t.user_text)
    seen_earlier = None
    for call in acting:
        for argument, value in _literals(call):
            if occurrences(value, words) != 1 or words.count(value) != 1:
                continue
            if occurrences(value, earlier):
                seen_earlier = seen_earlier or (argument, value)
                continue
            rewrite = perturber.rewrite(item, turn, argument, value)
            if rewrite is None:
                return attrs.evolve(base, argument=argument, value=value, original=words, reason=NOT_OFFERED)
            rewritten, supplied = rewrite
            if value in rewritten:  # the rewrite's own phrase holds the value: it would not be removed
                continue
            return ValueRemoval(item.id, item.category, turn, argument, value, words, rewritten, supplied,
                                new_id=perturber.new_value_id(item, turn))
    if seen_earlier is not None:
        return attrs.evolve(base, argument=seen_earlier[0], value=seen_earlier[1], original=words, reason=EARLIER)
    return attrs.evolve(base, original=words, reason=NO_VALUE)


def value_removals(items: Sequence[Item], rule: DecisionRule, perturber: Perturber,
                   wanted: Collection[str] | None = None) -> list[ValueRemoval]:
    """Every turn of every should-act item the perturber does not refuse (of ``wanted`` only)."""
    out: list[ValueRemoval] = []
    for item in _acting(items, wanted):
        if perturber.refuse(item) is None:
            out.extend(value_removal(item, t.index, rule, perturber) for t in item.turns)
    return out
