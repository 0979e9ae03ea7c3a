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

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import attrs

from twinbench.adapter import Adapter, AdapterError
from twinbench.curation import Curation
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
from twinbench.rules import DecisionRule

if TYPE_CHECKING:
    import networkx as nx

STAGES = ("pairing", "content")


@attrs.frozen
class DiscoveryOptions:
    """Population sensitivities: each changes which content-verified pairs are scored."""

    count_login: bool = False  # login/logout count as world-changing
    uncertified: bool = False  # keep the construction errors
    all_pairs: bool = False  # score every content-verified pair


@attrs.frozen
class Manifest:
    """The outcome of discovery: pairs, drops, counts, and the scenario family graph."""

    pairs: tuple[Pair, ...]
    dropped: tuple[Drop, ...]
    options: DiscoveryOptions
    curation_name: str | None
    curation_applies: bool
    curation_reason: str
    should_ask_items: int
    categories: tuple[str, ...]
    #: every item by id, inline twins included: what decisions and policies look items up in
    items: Mapping[str, Item] = attrs.field(factory=dict, eq=False, repr=False)
    #: every should-act item's fate (the twin of which pairs, or why of none)
    act_fates: tuple[ActFate, ...] = ()

    @property
    def families(self) -> nx.Graph:
        """The scenario family graph (networkx): items as nodes, verified twins and shared families as edges.

        Built when asked for, not stored: scoring never needs it, and networkx costs start-up time.
        """
        return _family_graph(list(self.items.values()), self.pairs)

    @property
    def scored(self) -> tuple[Pair, ...]:
        return tuple(p for p in self.pairs if p.scored)

    def counts(self) -> dict[str, object]:
        """Every count of the funnel, derived from the pairs and drops."""
        cats = self.categories

        def by_cat(pairs: Sequence[Pair]) -> dict[str, int]:
            counter = Counter(p.category for p in pairs)
            return {c: counter.get(c, 0) for c in cats}

        def with_cat(name: str, pairs: Sequence[Pair]) -> dict[str, object]:
            return {name: len(pairs), f"{name}_by_category": by_cat(pairs)}

        pairs = self.pairs
        scored = self.scored
        candidates = [p for p in pairs if p.decision_bearing is Bearing.ACTION or (
            self.options.count_login and p.decision_bearing is Bearing.LOGIN_ONLY)]
        read_only = [p for p in pairs if p not in candidates]
        construction = [p for p in candidates if p.certification.status is CertificationStatus.CONSTRUCTION_ERROR]
        drops_by_stage: dict[str, dict[str, int]] = {}
        for drop in self.dropped:
            key = drop.reason.split(":", 1)[0]
            drops_by_stage.setdefault(drop.stage, {})
            drops_by_stage[drop.stage][key] = drops_by_stage[drop.stage].get(key, 0) + 1
        out: dict[str, object] = {"should_ask_items": self.should_ask_items}
        asked = Counter(p.category for p in pairs) + Counter(d.category for d in self.dropped)
        out["should_ask_items_by_category"] = {c: asked.get(c, 0) for c in cats}
        out["dropped"] = len(self.dropped)
        out["dropped_by_stage"] = {s: dict(sorted(v.items())) for s, v in sorted(drops_by_stage.items())}
        out.update(with_cat("content_verified", pairs))
        out["distinct_base_twins"] = len({p.act_id for p in pairs})
        out.update(with_cat("candidates", candidates))
        out.update(with_cat("read_only", read_only))
        out["read_only_reasons"] = dict(sorted(Counter(p.decision_bearing for p in read_only).items()))
        out.update(with_cat("construction_errors", construction))
        out.update(with_cat("compound", [p for p in candidates if p.certification.compound]))
        out.update(with_cat("scored", scored))
        out["distinct_base_twins_scored"] = len({p.act_id for p in scored})
        out["distinct_base_anchor_turns_scored"] = len({(p.act_id, p.act_anchor_turn) for p in scored})
        import networkx as nx

        out["scenario_families"] = nx.number_connected_components(self.families)
        return out


@attrs.frozen
class FunnelRow:
    """One line of the funnel: a label, its level (0 a total, 1 a part of the line above) and counts."""

    label: str
    level: int
    by_category: dict[str, int]

    def total(self) -> int:
        return sum(self.by_category.values())


def funnel_rows(manifest: Manifest) -> list[FunnelRow]:
    """The funnel, stage by stage, per should-ask category (what ``twinbench pairs`` prints)."""
    cats = list(manifest.categories)
    counts = manifest.counts()

    def tally(records) -> dict[str, int]:
        out = {c: 0 for c in cats}
        for record in records:
            out[record.category] += 1
        return out

    rows = [FunnelRow("should-ask items", 0, tally([*manifest.pairs, *manifest.dropped]))]
    reasons = sorted({(d.stage, d.reason.split(":", 1)[0]) for d in manifest.dropped},
                     key=lambda k: (STAGES.index(k[0]) if k[0] in STAGES else len(STAGES), k[1]))
    for stage, reason in reasons:
        rows.append(FunnelRow(f"dropped at {stage}: {reason}", 1, tally(
            d for d in manifest.dropped if d.stage == stage and d.reason.split(":", 1)[0] == reason)))
    rows.append(FunnelRow("content-verified pairs", 0, counts["content_verified_by_category"]))
    rows.append(FunnelRow("read-only or login-only" + (" (scored: --all-pairs)" if manifest.options.all_pairs
                                                        else " (excluded)"), 1, counts["read_only_by_category"]))
    rows.append(FunnelRow("decision-bearing candidates", 0, counts["candidates_by_category"]))
    kept = manifest.options.all_pairs or manifest.options.uncertified
    rows.append(FunnelRow("construction errors" + (" (scored)" if kept else " (excluded)"), 1, tally(
        p for p in manifest.pairs if p.certification.status is CertificationStatus.CONSTRUCTION_ERROR
        and (p.decision_bearing is Bearing.ACTION or manifest.options.count_login))))
    rows.append(FunnelRow("scored pairs", 0, counts["scored_by_category"]))
    rows.append(FunnelRow("of which compound turns", 1, tally(p for p in manifest.scored if p.certification.compound)))
    return rows


def discover_for(adapter: Adapter, options: DiscoveryOptions = DiscoveryOptions()) -> Manifest:
    """Run discovery on an adapter's items, hints, effects and curation."""
    def run() -> Manifest:
        items = adapter.items()
        return discover(items, adapter.twin_hints(items), adapter.rule(), adapter.curation(), options)

    key = adapter.cache_key()
    if key is None:
        return run()
    from twinbench import cache

    return cache.cached("manifest", cache.key_of([adapter.name, key, repr(attrs.asdict(options))]), run)


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


def _verify(ask: Item, act: Item, anchor: int) -> tuple[str, str] | None:
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
            return f"declared value removal ({declared.removed}) but the tool lists differ"
        if same_words:
            return f"declared value removal ({declared.removed}) but the user's words are identical"
    elif declared.kind is Perturbation.TOOL_REMOVED:
        if not same_words:
            return f"declared tool removal ({declared.removed}) but the user's words differ"
        if removed != {declared.removed} or added:
            found = ", ".join(sorted(removed)) or "none"
            return f"declared tool removal ({declared.removed or 'no tool named'}) but the removed tools are {found}"
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
) -> Manifest:
    """Run the funnel over every should-ask item."""
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
            failure = _verify(ask, candidate, anchor)
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
        certification = curation.certify(ask.id) if applies else UNCERTIFIED
        notes = []
        if unknown:
            notes.append(f"no effect label for {', '.join(unknown)} (treated as read)")
        if applies and twin.id in curation.bad_keys:
            notes.append(f"the should-act twin {twin.id} is itself a bad key")
        if perturbation is Perturbation.UNDETECTED:
            notes.append("the anchor turns have the same user text and tools")
        ref_calls = tuple(twin.turns[anchor].reference_text)

        counts_as_action = bearing is Bearing.ACTION or (options.count_login and bearing is Bearing.LOGIN_ONLY)
        needs = sorted(unlabelled & (set(twin.turns[anchor].tools) | set(ask.turns[anchor].tools)))
        if needs:
            status, reason = PairStatus.EXCLUDED, f"unlabelled tool: {', '.join(needs)} has no effect label"
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
                removed=ask.perturbation.removed if ask.perturbation is not None else None,
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


def _family_graph(items: Sequence[Item], pairs: Sequence[Pair]) -> nx.Graph:
    """Items as nodes; verified twins and shared scenario keys (``Item.family``) as edges."""
    import networkx as nx

    graph = nx.Graph()
    first_of_key: dict[str, str] = {}
    for item in items:
        graph.add_node(item.id, category=item.category, side=item.side.value)
        key = item.family
        if key is None:
            continue
        if key in first_of_key:
            graph.add_edge(first_of_key[key], item.id, relation="scenario")
        else:
            first_of_key[key] = item.id
    for pair in pairs:
        graph.add_edge(pair.ask_id, pair.act_id, relation="twin", status=pair.status)
    return graph


def family_of(graph: nx.Graph, item_id: str) -> set[str]:
    """Every item of the scenario family that ``item_id`` belongs to."""
    import networkx as nx

    return set(nx.node_connected_component(graph, item_id)) if item_id in graph else set()


def pair_record(pair: Pair) -> dict[str, object]:
    """One pair as plain data (the ``pairs`` list of ``twinbench pairs --format json``)."""
    cert = pair.certification
    return {
        "ask_id": pair.ask_id,
        "act_id": pair.act_id,
        "category": pair.category,
        "anchor_turn": pair.anchor_turn,
        "act_anchor_turn": pair.act_anchor_turn,
        "perturbation": pair.perturbation.value,
        "removed_tools": list(pair.removed_tools),
        "decision_bearing": pair.decision_bearing,
        "reference_anchor_calls": list(pair.reference_anchor_calls),
        "status": pair.status,
        "reason": pair.reason,
        "certification": {
            "status": cert.status,
            "reason": cert.reason,
            "compound": cert.compound,
            "independent_steps": list(cert.independent),
            "gated_steps": list(cert.gated),
        },
        "notes": list(pair.notes),
        "removed": pair.removed,
    }


def drop_record(drop: Drop) -> dict[str, object]:
    return {"id": drop.id, "category": drop.category, "stage": drop.stage, "reason": drop.reason}


def manifest_record(manifest: Manifest) -> dict[str, object]:
    return {
        "options": attrs.asdict(manifest.options),
        "curation": {
            "name": manifest.curation_name,
            "applies": manifest.curation_applies,
            "reason": manifest.curation_reason,
        },
        "counts": manifest.counts(),
        "pairs": [pair_record(p) for p in manifest.pairs],
        "dropped": [drop_record(d) for d in manifest.dropped],
        "act_items": [{"id": f.id, "category": f.category, "twin_of": list(f.twin_of), "reason": f.reason}
                      for f in manifest.act_fates],
    }
