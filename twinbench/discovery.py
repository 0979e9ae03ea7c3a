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
2. *content*: the reference call strings must be identical turn for turn, and every
   user turn before the anchor character-identical.
3. *decision*: the should-act reference on the anchor turn must contain a
   world-changing call, by the adapter's effect classifier.
4. *certification*: curation's construction errors are excluded, compound turns marked.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import attrs
import networkx as nx

from twinbench.adapter import Adapter, AdapterError
from twinbench.curation import Curation
from twinbench.effects import EffectClassifier
from twinbench.model import UNCERTIFIED, Drop, Effect, Item, Pair, Perturbation, Side

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
    families: nx.Graph = attrs.field(eq=False, repr=False)

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
        candidates = [p for p in pairs if p.decision_bearing == "mutate" or (
            self.options.count_login and p.decision_bearing == "login_only")]
        read_only = [p for p in pairs if p not in candidates]
        construction = [p for p in candidates if p.certification.status == "construction_error"]
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
        p for p in manifest.pairs if p.certification.status == "construction_error"
        and (p.decision_bearing == "mutate" or manifest.options.count_login))))
    rows.append(FunnelRow("scored pairs", 0, counts["scored_by_category"]))
    rows.append(FunnelRow("of which compound turns", 1, tally(p for p in manifest.scored if p.certification.compound)))
    return rows


def discover_for(adapter: Adapter, options: DiscoveryOptions = DiscoveryOptions()) -> Manifest:
    """Run discovery on an adapter's items, hints, effects and curation."""
    items = adapter.items()
    return discover(
        items,
        adapter.twin_hints(items),
        adapter.effects(),
        adapter.curation(),
        options,
        {item.id: adapter.family_key(item) for item in items},
    )


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


def _decision_bearing(act: Item, turn: int, effects: EffectClassifier) -> tuple[str, list[str]]:
    calls = act.turns[turn].reference
    labels = [effects.label(c) for c in calls]
    unknown = [c.name for c, label in zip(calls, labels) if label is None]
    if Effect.MUTATE in labels:
        return "mutate", unknown
    if Effect.LOGIN in labels:
        return "login_only", unknown
    return "read_only", unknown


def discover(
    items: Sequence[Item],
    hints: Mapping[str, Sequence[str]],
    effects: EffectClassifier,
    curation: Curation | None = None,
    options: DiscoveryOptions = DiscoveryOptions(),
    family_keys: Mapping[str, str | None] | None = None,
) -> Manifest:
    """Run the funnel over every should-ask item."""
    by_id = {item.id: item for item in items}
    if len(by_id) != len(items):
        seen: set[str] = set()
        twice = sorted({i.id for i in items if i.id in seen or seen.add(i.id)})
        raise AdapterError(f"item ids must be unique; seen more than once: {', '.join(twice[:5])}")
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
        candidates = [by_id[c] for c in hinted if c in by_id and by_id[c].side is Side.ACT]
        if not candidates:
            named = f" ({', '.join(hinted)} is not among the items)" if hinted else ""
            dropped.append(Drop(ask.id, ask.category, "pairing", f"no twin: no should-act candidate{named}"))
            continue
        failures = []
        twin = None
        for candidate in candidates:
            failure = _verify(ask, candidate, anchor)
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
        bearing, unknown = _decision_bearing(twin, anchor, effects)
        certification = curation.certify(ask.id) if applies else UNCERTIFIED
        notes = []
        if unknown:
            notes.append(f"no effect label for {', '.join(unknown)} (treated as read)")
        if applies and twin.id in curation.bad_keys:
            notes.append(f"the should-act twin {twin.id} is itself a bad key")
        if perturbation is Perturbation.UNDETECTED:
            notes.append("the anchor turns have the same user text and tools")
        ref_calls = tuple(twin.turns[anchor].reference_text)

        counts_as_action = bearing == "mutate" or (options.count_login and bearing == "login_only")
        if options.all_pairs:
            status, reason = "scored", "all content-verified pairs are scored (--all-pairs)"
        elif not counts_as_action:
            label = "login-only" if bearing == "login_only" else "read-only"
            status, reason = "excluded", f"{label}: the reference anchor calls change nothing ({', '.join(ref_calls)})"
        elif certification.status == "construction_error" and not options.uncertified:
            status, reason = "excluded", f"construction error: {certification.reason}"
        else:
            status, reason = "scored", "the reference makes a world-changing call on the anchor turn"
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
            )
        )

    graph = _family_graph(items, pairs, family_keys or {})
    return Manifest(
        pairs=tuple(pairs),
        dropped=tuple(dropped),
        options=options,
        curation_name=curation.name if curation else None,
        curation_applies=applies,
        curation_reason=curation.applies_reason if curation else "the adapter has no curation",
        should_ask_items=len(ask_items),
        categories=categories,
        families=graph,
    )


def _family_graph(items: Sequence[Item], pairs: Sequence[Pair], keys: Mapping[str, str | None]) -> nx.Graph:
    """Items as nodes; verified twins and shared scenario keys as edges."""
    graph = nx.Graph()
    first_of_key: dict[str, str] = {}
    for item in items:
        graph.add_node(item.id, category=item.category, side=item.side.value)
        key = keys.get(item.id)
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
    }
