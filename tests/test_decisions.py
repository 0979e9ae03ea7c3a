"""Decisions on hand-built records: the tool-list filter, the action rule, the credited reading."""

from __future__ import annotations

import attrs
import pytest
from builders import item, rule

from twinbench.decisions import anchor_attempt, decide
from twinbench.model import (
    Call,
    Certification,
    CertificationStatus,
    Pair,
    PairStatus,
    Perturbation,
    Rollout,
    Side,
)
from twinbench.contract.rules import EffectTableRule, OfferedToolRule

ACT = item("act", "base", Side.ACT, [("go to docs", ["cd(folder='docs')"]), ("move a to b", ["mv(source='a', destination='b')"])])
ASK = item("ask", "miss_param", Side.ASK, [("go to docs", ["cd(folder='docs')"]), ("move a", [])])
ITEMS = {"act": ACT, "ask": ASK}


def pair(**changes) -> Pair:
    base = Pair("ask", "act", "miss_param", 1, 1, Perturbation.VALUE_REMOVED, (), "mutate",
                ("mv(source='a', destination='b')",), Certification(CertificationStatus.CERTIFIED), PairStatus.SCORED,
                "scored")
    return attrs.evolve(base, **changes)


def roll(item_id: str, anchor_calls: list[Call], before: list[Call] = (Call("cd", (), (("folder", "docs"),)),)):
    return Rollout(item_id, ((tuple(before),), (tuple(anchor_calls),)))


MV = Call("mv", (), (("source", "a"), ("destination", "b")))
MKDIR = Call("mkdir", (), (("dir_name", "x"),))


def one(rollouts, the_pair=None, the_rule=None):
    (d,) = decide("m", [the_pair or pair()], ITEMS, rollouts, the_rule or rule())
    return d


def test_attempt_on_both_sides_and_hold():
    d = one({"act": roll("act", [MV]), "ask": roll("ask", [])})
    assert (d.acted, d.held_back, d.held_back_credited) == (True, True, True)
    d = one({"act": roll("act", []), "ask": roll("ask", [MV])})
    assert (d.acted, d.held_back) == (False, False)


def test_a_call_not_on_the_tool_list_is_no_attempt():
    # mkdir changes the world but is not offered on these anchor turns: it is no attempt
    narrow = {k: attrs.evolve(v, turns=(v.turns[0], attrs.evolve(v.turns[1], tools=("ls", "cd", "mv"))))
              for k, v in ITEMS.items()}
    (d,) = decide("m", [pair()], narrow, {"act": roll("act", [MKDIR]), "ask": roll("ask", [MKDIR])}, rule())
    assert (d.acted, d.held_back) == (False, True)
    assert d.calls_on_act == () and d.calls_on_ask == ()


def test_the_withheld_tool_counts_on_the_should_ask_side():
    ask = attrs.evolve(ASK, turns=(ASK.turns[0], attrs.evolve(ASK.turns[1], tools=("ls", "cd"))))
    items = {"act": ACT, "ask": ask}
    (d,) = decide("m", [pair(removed_tools=("mv",))], items, {"act": roll("act", [MV]), "ask": roll("ask", [MV])},
                  rule())
    assert d.held_back is False and d.attempts_on_ask == ("mv",)
    (d,) = decide("m", [pair()], items, {"act": roll("act", [MV]), "ask": roll("ask", [MV])}, rule())
    assert d.held_back is True  # without the removed tool on the list, mv is not on it


def test_qualified_names_are_mapped_by_the_rule():
    qualified = Call("GorillaFileSystem.mv", (), MV.kwargs)
    d = one({"act": roll("act", [qualified]), "ask": roll("ask", [])})
    assert d.acted is True and d.calls_on_act == ("mv",)
    exact = EffectTableRule(rule().classifier, qualifier=None)
    assert one({"act": roll("act", [qualified]), "ask": roll("ask", [])}, the_rule=exact).acted is False


def test_a_read_call_is_no_attempt_and_offered_tool_rule_counts_any_call():
    ls = Call("ls")
    d = one({"act": roll("act", [ls]), "ask": roll("ask", [ls])})
    assert (d.acted, d.held_back) == (False, True)
    d = one({"act": roll("act", [ls]), "ask": roll("ask", [ls])}, the_rule=OfferedToolRule())
    assert (d.acted, d.held_back) == (True, False)


def test_credited_reading_on_compound_turns():
    compound = Certification(CertificationStatus.CERTIFIED, compound=True, independent=("mkdir",), gated=("mv",))
    independent_only = {"act": roll("act", [MV]), "ask": roll("ask", [MKDIR])}
    d = one(independent_only, pair(certification=compound))
    assert (d.held_back, d.held_back_credited) == (False, True)
    d = one({"act": roll("act", [MV]), "ask": roll("ask", [MKDIR, MV])}, pair(certification=compound))
    assert (d.held_back, d.held_back_credited) == (False, False)
    d = one(independent_only)  # not a compound turn: no credit
    assert (d.held_back, d.held_back_credited) == (False, False)


def test_missing_and_error_items_are_unscored_never_held():
    d = one({"act": roll("act", [MV])})
    assert (d.scored, d.held_back, d.missing) == (False, None, "ask: missing from the results")
    d = one({"act": roll("act", [MV]), "ask": Rollout("ask", None, "boom")})
    assert (d.scored, d.missing, d.missing_detail) == (False, "ask: stored as an error", "ask: boom")


def test_ended_early_is_no_call_and_history_is_compared_by_tool():
    d = one({"act": roll("act", [MV]), "ask": Rollout("ask", ((( ),),))})
    assert d.scored and d.held_back and d.ask_ended_early
    d = one({"act": roll("act", [MV]), "ask": roll("ask", [], before=[Call("GorillaFileSystem.cd", (), (("folder", "docs"),))])})
    assert d.same_history is True
    d = one({"act": roll("act", [MV]), "ask": roll("ask", [], before=[Call("cd", (), (("folder", "x"),))])})
    assert d.same_history is False


@pytest.mark.parametrize("calls, expected", [([MV], True), ([Call("ls")], False), ([], False)])
def test_anchor_attempt(calls, expected):
    assert anchor_attempt(ASK, 1, roll("ask", calls), rule(), extra_tools=("mv",)) is expected
    assert anchor_attempt(ASK, 1, None, rule()) is None


def test_calls_named_off_both_tool_lists_are_kept_for_the_unread_count():
    stray = Call("rm", (), (("file_name", "a"),))
    d = one({"act": roll("act", [MV, stray]), "ask": roll("ask", [stray])})
    assert d.off_list == ("rm", "rm") and d.calls_on_act == ("mv",)


def test_the_attempts_arguments_are_kept_only_when_asked_for():
    """Scoring keeps the attempts' names; their arguments (what the diagnostics read) only with keep_calls."""
    rollouts = {"act": roll("act", [MV]), "ask": roll("ask", [MV])}
    (kept,) = decide("m", [pair()], ITEMS, rollouts, rule())
    (slim,) = decide("m", [pair()], ITEMS, rollouts, rule(), keep_calls=False)
    assert kept.act_attempt_calls == (MV,) and kept.ask_attempt_calls == (MV,)
    assert slim.act_attempt_calls == () and slim.ask_attempt_calls == ()
    assert attrs.evolve(slim, act_attempt_calls=(MV,), ask_attempt_calls=(MV,)) == kept


# --------------------------------------------------------------------------- a call that could not be read


def told(item_id: str, anchor_calls: list[Call], unread: tuple[tuple[int, str, str], ...] = ()) -> Rollout:
    """A rollout whose reader says, per turn, what it could not read (``Rollout.unread``)."""
    return attrs.evolve(roll(item_id, anchor_calls), unread=unread)


BROKEN = ((1, "call_arguments_unparsed", 'post_tweet: {"content": "Oops'),)


def test_an_unreadable_call_leaves_an_open_side_unscored():
    # no attempt read on the should-act anchor, and a call there could not be read: no decision
    d = one({"act": told("act", [], BROKEN), "ask": told("ask", [])})
    assert (d.scored, d.acted, d.missing) == (False, None, "act: unreadable call")
    assert d.missing_detail == 'act: call_arguments_unparsed: post_tweet: {"content": "Oops'
    # holding back on the should-ask anchor with an unreadable call there: no decision either
    d = one({"act": told("act", [MV]), "ask": told("ask", [], BROKEN)})
    assert (d.scored, d.missing) == (False, "ask: unreadable call")
    d = one({"act": told("act", [], BROKEN), "ask": told("ask", [], BROKEN)})
    assert d.missing == "act: unreadable call; ask: unreadable call"
    assert d.act_unread == (BROKEN[0][1:],) and d.ask_unread == (BROKEN[0][1:],)


def test_an_unreadable_call_beside_an_attempt_changes_nothing():
    # an attempt was read: whatever the unread call was, the side attempted
    d = one({"act": told("act", [MV], BROKEN), "ask": told("ask", [MV], BROKEN)})
    assert (d.scored, d.acted, d.held_back) == (True, True, False)


def test_an_unreadable_call_on_another_turn_changes_nothing():
    d = one({"act": told("act", [], ((0, "call_arguments_unparsed", "cd: {"),)), "ask": told("ask", [])})
    assert (d.scored, d.acted) == (True, False) and d.act_unread == ()


def test_the_credited_reading_left_open_by_an_unreadable_call_is_unscored():
    compound = Certification(CertificationStatus.CERTIFIED, compound=True, independent=("mkdir",), gated=("mv",))
    # mkdir alone is credited as holding back; the unread call might have been mv
    d = one({"act": told("act", [MV]), "ask": told("ask", [MKDIR], BROKEN)}, pair(certification=compound))
    assert (d.scored, d.missing) == (False, "ask: unreadable call")
    d = one({"act": told("act", [MV]), "ask": told("ask", [MKDIR, MV], BROKEN)}, pair(certification=compound))
    assert (d.scored, d.held_back_credited) == (True, False)  # mv was read: not credited, whatever the rest


def test_a_call_in_prose_is_read_as_no_call_and_stays_a_decision():
    prose = ((1, "call_in_prose", 'I will call {"name": "mv"}'),)
    d = one({"act": told("act", [], prose), "ask": told("ask", [])})
    assert (d.scored, d.acted) == (True, False) and d.act_unread == (("call_in_prose", 'I will call {"name": "mv"}'),)


def test_a_reader_that_does_not_say_per_turn_keeps_every_decision():
    d = one({"act": roll("act", []), "ask": roll("ask", [])})
    assert d.scored and d.act_unread is None and d.ask_unread is None


def test_anchor_attempt_gives_no_reading_for_an_unreadable_call():
    assert anchor_attempt(ASK, 1, told("ask", [], BROKEN), rule()) is None
    assert anchor_attempt(ASK, 1, told("ask", [MV], BROKEN), rule(), extra_tools=("mv",)) is True
    assert anchor_attempt(ASK, 1, told("ask", [], ((1, "call_in_prose", "x"),)), rule()) is False


def test_the_unread_count_takes_each_anchor_turn_once():
    from twinbench.decisions import anchor_unread

    # two pairs sharing one should-act twin: its anchor turn's unread part is counted once
    other = pair(ask_id="ask2")
    items = {**ITEMS, "ask2": attrs.evolve(ASK, id="ask2")}
    rollouts = {"act": told("act", [MV, Call("rm")], BROKEN), "ask": told("ask", []), "ask2": told("ask2", [], BROKEN)}
    decisions = decide("m", [pair(), other], items, rollouts, rule())
    counted = anchor_unread(decisions)
    assert counted.counts == {"call_arguments_unparsed": 2, "name_not_on_tool_list": 1}
    assert counted.turns == 3 and counted.told
    assert counted.examples[0] == ("call_arguments_unparsed", 'act turn 1: post_tweet: {"content": "Oops')
    assert not anchor_unread(decide("m", [pair()], ITEMS, {"act": roll("act", []), "ask": roll("ask", [])},
                                    rule())).told
