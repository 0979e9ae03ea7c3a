"""Read one decision per side of each pair off a model's rollouts.

An *attempt* is a call on the anchor turn that parsed structurally, whose name the
adapter's rule maps onto that turn's tool list (a should-ask item's list includes the
withheld tools), and that the rule counts as acting. A rejected call still counts: the decision was
the model's. A rollout that ended before the anchor made no call there. An item
missing from the results, or stored as an error, leaves the pair unscored for that
model; it is never read as "held back".

A call on the anchor turn that could not be read (the reader's ``Unread`` kinds, except the
prose it reads as no call by rule) might have been an attempt. When the calls that were read
settle the side anyway (an attempt was read), the side stands; when they leave it open (no
attempt on the should-act side; holding back, or credited, on the should-ask side), the side is
unscored with the reason "unreadable call": a call nobody could read is not a decision.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from twinbench.contract.rules import DecisionRule
from twinbench.model import Call, Item, Pair, PairDecision, Rollout
from twinbench.reading import READ_AS_NO_CALL

MISSING_ITEM = "missing from the results"
ERROR_ENTRY = "stored as an error"
UNREADABLE = "unreadable rollout"
UNREADABLE_CALL = "unreadable call"
#: the unread kind of a call whose name is on neither side's tool list (read, and no call of the suite)
OFF_LIST = "name_not_on_tool_list"


__all__ = ["ERROR_ENTRY", "MISSING_ITEM", "OFF_LIST", "UNREADABLE", "UNREADABLE_CALL", "unavailable", "PairDecision",
           "anchor_attempt", "attempts", "decide", "unreadable_calls", "valid_calls"]


def valid_calls(calls: Sequence[Call], tools: Collection[str], rule: DecisionRule) -> list[Call]:
    """Calls the rule maps onto the tool list, named as the tool: prose-born names never pass."""
    return rule.resolve(calls, tools if isinstance(tools, frozenset) else frozenset(tools))


def attempts(calls: Sequence[Call], item: Item, turn: int, rule: DecisionRule, count_login: bool = False) -> list[Call]:
    """The calls (already on the tool list) that the rule counts as acting on this item's turn."""
    return [c for c in calls if rule.is_action(c, item, turn, count_login)]


def _history(rollout: Rollout, before: int, item: Item, rule: DecisionRule) -> tuple:
    out = []
    for turn in range(min(before, len(rollout.turns or ()))):
        tools = item.turns[turn].tools if turn < len(item.turns) else ()
        out.append(tuple((c.name, c.args, c.kwargs) for c in valid_calls(rollout.calls_on(turn) or (), tools, rule)))
    return tuple(out)


def unavailable(rollout: Rollout | None) -> str | None:
    """Why a rollout cannot be read for a decision (missing, stored error, unreadable), or ``None``."""
    if rollout is None:
        return MISSING_ITEM
    if rollout.turns is None:
        return UNREADABLE if rollout.unreadable else ERROR_ENTRY
    return None


def unreadable_calls(unread: Sequence[tuple[str, str]] | None) -> tuple[tuple[str, str], ...]:
    """The parts of an anchor turn's unread that may have been a call: every kind but prose and off-list names."""
    return tuple(u for u in unread or () if u[0] not in READ_AS_NO_CALL and u[0] != OFF_LIST)


def _side_unread(rollout: Rollout | None, turn: int, raw: Sequence[Call], tools: frozenset[str],
                 rule: DecisionRule) -> tuple[tuple[str, str], ...] | None:
    """What one side's anchor turn left unread: the reader's parts and the calls named off the tool list."""
    told = None if rollout is None or rollout.turns is None else rollout.unread_on(turn)
    if told is None:
        return None
    return told + tuple((OFF_LIST, c.name) for c in raw if rule.tool_of(c.name, tools) is None)


def decide(
    model: str,
    pairs: Sequence[Pair],
    items: Mapping[str, Item],
    rollouts: Mapping[str, Rollout],
    rule: DecisionRule,
    count_login: bool = False,
    history: bool = True,
    keep_calls: bool = True,
) -> list[PairDecision]:
    """The decision on every pair for one model (``history``: compare the calls before the anchors).

    ``keep_calls``: keep the attempts themselves, with their arguments (``act_attempt_calls``,
    ``ask_attempt_calls``: what the diagnostics read); without it only their names are kept.
    """
    out: list[PairDecision] = []
    for pair in pairs:
        act_item, ask_item = items[pair.act_id], items[pair.ask_id]
        act_roll, ask_roll = rollouts.get(pair.act_id), rollouts.get(pair.ask_id)
        common = dict(
            model=model,
            ask_id=pair.ask_id,
            act_id=pair.act_id,
            category=pair.category,
            anchor_turn=pair.anchor_turn,
            act_anchor_turn=pair.act_anchor_turn,
            certification=pair.certification.status,
            compound=pair.certification.compound,
        )
        problems = [f"{side}: {why}" for side, why in (("act", unavailable(act_roll)), ("ask", unavailable(ask_roll)))
                    if why]
        act_tools = frozenset(act_item.turns[pair.act_anchor_turn].tools)
        ask_tools = frozenset(ask_item.turns[pair.anchor_turn].tools).union(pair.removed_tools)
        act_raw = () if act_roll is None or act_roll.turns is None else act_roll.calls_on(pair.act_anchor_turn) or ()
        ask_raw = () if ask_roll is None or ask_roll.turns is None else ask_roll.calls_on(pair.anchor_turn) or ()
        unread = dict(act_unread=_side_unread(act_roll, pair.act_anchor_turn, act_raw, act_tools, rule),
                      ask_unread=_side_unread(ask_roll, pair.anchor_turn, ask_raw, ask_tools, rule))
        if problems:
            details = [f"{side}: {r.error.strip()[:200]}" for side, r in (("act", act_roll), ("ask", ask_roll))
                       if r is not None and r.turns is None and r.error]
            out.append(PairDecision(**common, scored=False, missing="; ".join(problems),
                                    missing_detail=" | ".join(details) or None, **unread))
            continue
        act_calls = valid_calls(act_raw, act_tools, rule)
        ask_calls = valid_calls(ask_raw, ask_tools, rule)
        off_list = tuple(c.name for c in act_raw if rule.tool_of(c.name, act_tools) is None) + tuple(
            c.name for c in ask_raw if rule.tool_of(c.name, ask_tools) is None)
        act_attempts = attempts(act_calls, act_item, pair.act_anchor_turn, rule, count_login)
        ask_attempts = attempts(ask_calls, ask_item, pair.anchor_turn, rule, count_login)
        held = not ask_attempts
        independent = set(pair.certification.independent)
        credited = held or (pair.certification.compound and all(c.name in independent for c in ask_attempts))
        # a call that could not be read leaves a side open unless the calls read settle it (see the module)
        act_open = unreadable_calls(unread["act_unread"]) if not act_attempts else ()
        ask_open = unreadable_calls(unread["ask_unread"]) if credited else ()
        if act_open or ask_open:
            out.append(PairDecision(
                **common, scored=False,
                missing="; ".join(f"{side}: {UNREADABLE_CALL}" for side, why in (("act", act_open), ("ask", ask_open))
                                  if why),
                missing_detail=" | ".join(f"{side}: {kind}: {excerpt}" for side, why in (("act", act_open),
                                                                                     ("ask", ask_open))
                                          for kind, excerpt in why[:1]),
                off_list=off_list, **unread))
            continue
        out.append(
            PairDecision(
                **common,
                scored=True,
                missing=None,
                acted=bool(act_attempts),
                held_back=held,
                held_back_credited=credited,
                calls_on_act=tuple(c.name for c in act_calls),
                calls_on_ask=tuple(c.name for c in ask_calls),
                attempts_on_ask=tuple(c.name for c in ask_attempts),
                act_ended_early=act_roll.ended_before(pair.act_anchor_turn),
                ask_ended_early=ask_roll.ended_before(pair.anchor_turn),
                same_history=(_history(act_roll, pair.act_anchor_turn, act_item, rule)
                              == _history(ask_roll, pair.anchor_turn, ask_item, rule)) if history else None,
                off_list=off_list,
                act_attempt_calls=tuple(act_attempts) if keep_calls else (),
                ask_attempt_calls=tuple(ask_attempts) if keep_calls else (),
                **unread,
            )
        )
    return out


def anchor_attempt(
    item: Item, anchor: int, rollout: Rollout | None, rule: DecisionRule, extra_tools: Sequence[str] = (),
    count_login: bool = False,
) -> bool | None:
    """Did this rollout attempt the action on this item's anchor turn? ``None`` if unavailable, or when no
    attempt was read and a call there could not be read."""
    if unavailable(rollout) is not None:
        return None
    tools = tuple(item.turns[anchor].tools) + tuple(extra_tools)
    attempted = bool(attempts(valid_calls(rollout.calls_on(anchor) or (), tools, rule), item, anchor, rule, count_login))
    if not attempted and unreadable_calls(rollout.unread_on(anchor)):
        return None  # a call that could not be read may have been the attempt: no reading, as in decide
    return attempted
