"""Perturbation-derived twin discovery.

Given a leaderboard's items (each on the should-act or should-ask side), find the
pairs that are the same dialogue up to one removed piece of information, verify
them by content, classify the perturbation, keep the pairs whose anchor poses the
decision to act, and apply curation. Every should-ask item ends in exactly one
place: a pair (scored or excluded, with its reason) or a drop at a named stage.

The algorithm knows no leaderboard:

1. *pairing*: curation's bad keys; the anchor is the unique turn of the should-ask
   item whose reference is empty; a twin candidate (from the adapter's hints) must
   align turn for turn once the anchor is accounted for (same per-turn call counts).
   Two alignments are recognised: the should-ask item has one extra turn (the anchor
   was inserted, the next turn supplies what was missing), or the same number of turns
   (the anchor replaces the should-act turn).
   A should-ask item that carries its twin inline is tried against that twin first.
2. *content*: the reference call strings must be identical turn for turn, and every
   user turn before the anchor character-identical; a declared perturbation must be
   what the content shows (value removed: same tools, other words; tool removed: the
   same words, exactly the named tool missing).
3. *decision*: the should-act reference on the anchor turn must contain a call that
   the adapter's decision rule counts as acting.
4. *certification*: curation's construction errors are excluded, compound turns marked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from twinbench.contract.adapter import Adapter
from twinbench.contract.curation import Curation
from twinbench.contract.rules import DecisionRule
from twinbench.errors import AdapterError
from twinbench.model import (
    UNCERTIFIED,
    ActFate,
    Bearing,
    CertificationStatus,
    Drop,
    Effect,
    Item,
    Pair,
    PairStatus,
    Perturbation,
    Side,
)
from twinbench.model.manifest import Manifest
from twinbench.options import DiscoveryOptions

#: the stages at which a should-ask item can be dropped, in order
STAGES = ("pairing", "content")

def discover_for(adapter: Adapter, options: DiscoveryOptions = DiscoveryOptions()) -> Manifest:
    """Run discovery on an adapter's items, hints, effects and curation."""
    def run() -> Manifest:
        items = adapter.items()
        return discover(items, adapter.twin_hints(items), adapter.rule(), adapter.curation(), options,
                        strict_world=adapter.strict_world)

    key = adapter.cache_key()
    if key is None:
        return run()
    from twinbench import cache

    def stored() -> Manifest:  # the items are the adapter's (a record of their own): not kept twice
        return attrs.evolve(run(), items={})

    manifest = cache.cached("manifest", cache.key_of([adapter.name, key, repr(attrs.asdict(options)),
                                                      f"strict_world={adapter.strict_world}"]), stored)
    return attrs.evolve(manifest, items=ItemsOnUse(lambda: _with_inline_twins(adapter.items())))


class ItemsOnUse(Mapping):
    """:attr:`Manifest.items` of a kept manifest, taken from the adapter when first looked up: a rerun
    whose runs' decisions are all kept never loads the items (nine tenths of a manifest's bytes).
    Pickled as the plain dictionary."""

    __slots__ = ("_load", "_items")

    def __init__(self, load) -> None:
        self._load = load
        self._items: dict[str, Item] | None = None

    def _loaded(self) -> dict[str, Item]:
        if self._items is None:
            self._items = self._load()
        return self._items

    def __getitem__(self, item_id: str) -> Item:
        return self._loaded()[item_id]

    def __iter__(self):
        return iter(self._loaded())

    def __len__(self) -> int:
        return len(self._loaded())

    def __contains__(self, item_id: object) -> bool:
        return item_id in self._loaded()

    def __reduce__(self):
        return dict, (self._loaded(),)


def locate_anchors(item: Item) -> list[int]:
    """Turns whose reference trajectory is empty."""
    return [turn.index for turn in item.turns if turn.reference_is_empty]


def _aligned_turns(ask: Item, act: Item, anchor: int) -> list[tuple[int, int]] | None:
    """Pairs of (ask turn, act turn) that must match, or None when no alignment exists."""
    n_ask, n_act = len(ask.turns), len(act.turns)
    if anchor >= n_act:  # the should-act item has no turn at the anchor's index
        return None
    if n_ask == n_act + 1:  # the anchor was inserted; later turns shift by one
        return [(i, i) for i in range(anchor)] + [(i, i - 1) for i in range(anchor + 1, n_ask)]
    if n_ask == n_act:  # the anchor replaces the should-act turn
        return [(i, i) for i in range(n_ask) if i != anchor]
    return None


def _call_counts(item: Item, turns: Sequence[int]) -> list[int]:
    return [len(item.turns[i].reference_text) for i in turns]


def _world_difference(ask: Item, act: Item) -> str | None:
    """How the twins' starting states differ, or ``None`` (the same, or not known for both)."""
    if ask.world is None or act.world is None:
        return None
    return ask.world.difference(act.world)


def _verify(ask: Item, act: Item, anchor: int, strict_world: bool = True) -> tuple[str, str] | None:
    """Why this candidate is not the twin (stage, reason), or None when it verifies."""
    alignment = _aligned_turns(ask, act, anchor)
    if alignment is None:
        return ("pairing", f"shape mismatch: {act.id} has {len(act.turns)} turns, {ask.id} has {len(ask.turns)} "
                           f"with the anchor at turn {anchor}")
    ask_counts = _call_counts(ask, [a for a, _ in alignment])
    act_counts = _call_counts(act, [b for _, b in alignment])
    if len(ask.turns) == len(act.turns) and act.turns[anchor].reference_is_empty:
        return ("pairing", f"shape mismatch: {act.id} has no reference calls on the anchor turn {anchor}")
    if ask_counts != act_counts:
        return (
            "pairing",
            f"shape mismatch: per-turn call counts without the anchor {ask_counts} differ from {act.id} {act_counts}",
        )
    for a, b in alignment:
        if ask.turns[a].reference_text != act.turns[b].reference_text:
            return ("content", f"call strings differ: turn {a} of {ask.id} vs turn {b} of {act.id}")
    for i in range(anchor):
        if ask.turns[i].user_text != act.turns[i].user_text:
            return ("content", f"dialogue differs: user turn {i} before the anchor is not identical in {act.id}")
    different = _world_difference(ask, act) if strict_world else None
    if different is not None:
        return ("content", f"different starting state: {different} in {act.id}")
    return None


def _declared_mismatch(ask: Item, act: Item, anchor: int) -> str | None:
    """Why the content does not show the perturbation the should-ask item declares, or None."""
    declared = ask.perturbation
    if declared is None:
        return None
    ask_turn, act_turn = ask.turns[anchor], act.turns[anchor]
    removed = set(act_turn.tools) - set(ask_turn.tools)
    added = set(ask_turn.tools) - set(act_turn.tools)
    same_words = ask_turn.user_text == act_turn.user_text
    if declared.kind is Perturbation.VALUE_REMOVED:
        if removed or added:
            return f"declared value removal ({declared.text}) but the tool lists differ"
        if same_words:
            return f"declared value removal ({declared.text}) but the user's words are identical"
    elif declared.kind is Perturbation.TOOL_REMOVED:
        if not same_words:
            return f"declared tool removal ({declared.text}) but the user's words differ"
        if removed != set(declared.removed) or added:
            found = ", ".join(sorted(removed)) or "none"
            return f"declared tool removal ({declared.text or 'no tool named'}) but the removed tools are {found}"
    return None


def _perturbation(ask: Item, act: Item, anchor: int) -> tuple[Perturbation, tuple[str, ...]]:
    ask_turn, act_turn = ask.turns[anchor], act.turns[anchor]
    removed = tuple(t for t in act_turn.tools if t not in set(ask_turn.tools))
    text_changed = ask_turn.user_text != act_turn.user_text
    if removed and text_changed:
        return Perturbation.BOTH, removed
    if removed:
        return Perturbation.TOOL_REMOVED, removed
    if text_changed:
        return Perturbation.VALUE_REMOVED, ()
    return Perturbation.UNDETECTED, ()


def _decision_bearing(act: Item, turn: int, rule: DecisionRule) -> tuple[Bearing, list[str]]:
    offered = frozenset(act.turns[turn].tools)
    calls = act.turns[turn].reference
    labels = []
    for call in calls:  # a reference names its tool as offered; a qualified name is mapped like a model's
        tool = rule.tool_of(call.name, offered)
        labels.append(rule.effect(call if tool in (None, call.name) else attrs.evolve(call, name=tool), act, turn))
    unknown = [c.name for c, label in zip(calls, labels) if label is None]
    if Effect.MUTATE in labels:
        return Bearing.ACTION, unknown
    if Effect.LOGIN in labels:
        return Bearing.LOGIN_ONLY, unknown
    return Bearing.NO_ACTION, unknown


def _with_inline_twins(items: Sequence[Item]) -> dict[str, Item]:
    """Every item by id, inline twins included; ids must be unique (an inline twin may repeat itself)."""
    by_id: dict[str, Item] = {}
    twice: list[str] = []
    for item in items:
        if item.id in by_id:
            twice.append(item.id)
        by_id[item.id] = item
    for item in items:
        twin = item.twin
        if twin is None:
            continue
        if twin.side is not Side.ACT or item.side is not Side.ASK:
            raise AdapterError(f"item {item.id}: only a should-ask item carries a twin, and the twin is should-act")
        if twin.id in by_id and by_id[twin.id] != twin:
            twice.append(twin.id)
        by_id.setdefault(twin.id, twin)
    if twice:
        raise AdapterError(f"item ids must be unique; seen more than once: {', '.join(sorted(set(twice))[:5])}")
    return by_id


def _same_request(a: Item, b: Item) -> bool:
    return [(t.user_text, t.tools) for t in a.turns] == [(t.user_text, t.tools) for t in b.turns]


def _act_fates(items: Mapping[str, Item], pairs: Sequence[Pair], dropped: Sequence[Drop]) -> tuple[ActFate, ...]:
    """Every should-act item: the pairs it is the twin of, or why none."""
    twin_of: dict[str, list[str]] = {}
    for pair in pairs:
        twin_of.setdefault(pair.act_id, []).append(pair.ask_id)
    scored = {p.act_id for p in pairs if p.scored}
    carried_by = {i.twin.id: i.id for i in items.values() if i.twin is not None}
    why_dropped = {d.id: d.reason for d in dropped}
    inline = [items[i] for i in sorted(carried_by)]
    out = []
    for item in items.values():
        if item.side is not Side.ACT:
            continue
        asks = tuple(twin_of.get(item.id, ()))
        owner = carried_by.get(item.id)
        if asks:
            origin = "constructed from the should-ask item" if owner else "the leaderboard's item"
            reason = f"the verified twin of {len(asks)} pair(s) ({origin})"
        elif owner is not None:
            reason = f"the constructed twin of {owner}, which did not pair: {why_dropped.get(owner, 'see its fate')}"
        else:
            same = [t.id for t in inline if _same_request(t, item)]
            if same:
                fate = "scored" if any(t in scored for t in same) else "not scored"
                reason = f"the same request as the constructed twin {', '.join(same[:3])} ({fate} in its pair)"
            else:
                reason = "no should-ask item has it as its twin"
        out.append(ActFate(item.id, item.category, asks, reason))
    return tuple(out)


def discover(
    items: Sequence[Item],
    hints: Mapping[str, Sequence[str]],
    rule: DecisionRule,
    curation: Curation | None = None,
    options: DiscoveryOptions = DiscoveryOptions(),
    strict_world: bool = True,
) -> Manifest:
    """Run the funnel over every should-ask item.

    ``strict_world``: a candidate that starts from another world is no twin (dropped at the content
    stage); without it such a pair is kept with ``Pair.world_differs`` set, and excluded under
    ``options.same_world``.
    """
    by_id = _with_inline_twins(items)
    unlabelled = set(rule.unlabelled(sorted({t for i in by_id.values() for turn in i.turns for t in turn.tools})))
    if unlabelled and not rule.allow_unlabelled:
        named = ", ".join(sorted(unlabelled)[:10]) + (" ..." if len(unlabelled) > 10 else "")
        raise AdapterError(f"the items offer {len(unlabelled)} tool(s) the decision rule has no label for: {named}; "
                           "label them in the adapter's effect table (without a label a call of them would "
                           "silently count as no action)")
    applies = curation is not None and curation.applies
    ask_items = [item for item in items if item.side is Side.ASK]
    categories = tuple(dict.fromkeys(item.category for item in ask_items))
    pairs: list[Pair] = []
    dropped: list[Drop] = []

    for ask in ask_items:
        if applies and ask.id in curation.bad_keys:
            dropped.append(Drop(ask.id, ask.category, "pairing", f"bad key: {curation.bad_keys[ask.id]}"))
            continue
        anchors = locate_anchors(ask)
        if len(anchors) != 1:
            what = "no turn" if not anchors else f"{len(anchors)} turns ({', '.join(map(str, anchors))})"
            dropped.append(Drop(ask.id, ask.category, "pairing", f"multi-anchor: {what} with an empty reference"))
            continue
        anchor = anchors[0]
        hinted = list(hints.get(ask.id, ()))
        named = ([ask.twin.id] if ask.twin is not None else []) + hinted
        candidates = [by_id[c] for c in dict.fromkeys(named) if c in by_id and by_id[c].side is Side.ACT]
        if not candidates:
            listed = f" ({', '.join(hinted)} is not among the items)" if hinted else ""
            dropped.append(Drop(ask.id, ask.category, "pairing", f"no twin: no should-act candidate{listed}"))
            continue
        failures = []
        twin = None
        for candidate in candidates:
            failure = _verify(ask, candidate, anchor, strict_world)
            if failure is None:
                mismatch = _declared_mismatch(ask, candidate, anchor)
                failure = None if mismatch is None else ("content", mismatch)
            if failure is None:
                twin = candidate
                break
            failures.append(failure)
        if twin is None:
            # report the candidate that got furthest (content beats pairing)
            stage, reason = max(failures, key=lambda f: STAGES.index(f[0]))
            dropped.append(Drop(ask.id, ask.category, stage, reason))
            continue

        perturbation, removed = _perturbation(ask, twin, anchor)
        bearing, unknown = _decision_bearing(twin, anchor, rule)
        certification = (curation.certify(ask.id, bearing is Bearing.ACTION or bearing is Bearing.LOGIN_ONLY)
                         if applies else UNCERTIFIED)
        notes = []
        if unknown:
            notes.append(f"no effect label for {', '.join(unknown)} (treated as read)")
        if applies and twin.id in curation.bad_keys:
            notes.append(f"the should-act twin {twin.id} is itself a bad key")
        if perturbation is Perturbation.UNDETECTED:
            notes.append("the anchor turns have the same user text and tools")
        ref_calls = tuple(twin.turns[anchor].reference_text)
        world_differs = None if strict_world else _world_difference(ask, twin)
        if world_differs is not None:
            notes.append(f"the twins start from different states: {world_differs}")

        counts_as_action = bearing is Bearing.ACTION or (options.count_login and bearing is Bearing.LOGIN_ONLY)
        needs = sorted(unlabelled & (set(twin.turns[anchor].tools) | set(ask.turns[anchor].tools)))
        if needs:
            status, reason = PairStatus.EXCLUDED, f"unlabelled tool: {', '.join(needs)} has no effect label"
        elif world_differs is not None and options.same_world:
            status, reason = PairStatus.EXCLUDED, f"different starting state: {world_differs} (--same-world)"
        elif options.all_pairs:
            status, reason = PairStatus.SCORED, "all content-verified pairs are scored (--all-pairs)"
        elif not counts_as_action:
            label = "login-only" if bearing is Bearing.LOGIN_ONLY else "read-only"
            status, reason = (PairStatus.EXCLUDED,
                              f"{label}: the reference anchor calls change nothing ({', '.join(ref_calls)})")
        elif certification.status is CertificationStatus.CONSTRUCTION_ERROR and not options.uncertified:
            status, reason = PairStatus.EXCLUDED, f"construction error: {certification.reason}"
        else:
            status, reason = PairStatus.SCORED, f"the reference makes {rule.action_phrase} on the anchor turn"
        pairs.append(
            Pair(
                ask_id=ask.id,
                act_id=twin.id,
                category=ask.category,
                anchor_turn=anchor,
                act_anchor_turn=anchor,
                perturbation=perturbation,
                removed_tools=removed,
                decision_bearing=bearing,
                reference_anchor_calls=ref_calls,
                certification=certification,
                status=status,
                reason=reason,
                notes=tuple(notes),
                removed=ask.perturbation.text if ask.perturbation is not None else None,
                world_differs=world_differs,
            )
        )

    return Manifest(
        pairs=tuple(pairs),
        dropped=tuple(dropped),
        options=options,
        curation_name=curation.name if curation else None,
        curation_applies=applies,
        curation_reason=curation.applies_reason if curation else "the adapter has no curation",
        should_ask_items=len(ask_items),
        categories=categories,
        items=by_id,
        act_fates=_act_fates(by_id, pairs, dropped),
    )
