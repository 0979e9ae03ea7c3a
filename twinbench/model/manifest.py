"""The outcome of discovery: every pair and drop, the counts of its funnel, the scenario families."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import attrs

from twinbench.model.items import Item
from twinbench.model.pairs import ActFate, Bearing, CertificationStatus, Drop, Pair
from twinbench.options import DiscoveryOptions

if TYPE_CHECKING:
    import networkx as nx


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
        out.update(with_cat("world_differs", [p for p in pairs if p.world_differs is not None]))
        out.update(with_cat("scored", scored))
        out["distinct_base_twins_scored"] = len({p.act_id for p in scored})
        out["distinct_base_anchor_turns_scored"] = len({(p.act_id, p.act_anchor_turn) for p in scored})
        out["scenario_families"] = family_count(list(self.items.values()), self.pairs)
        return out


def family_count(items: Sequence[Item], pairs: Sequence[Pair]) -> int:
    """The connected components of :func:`_family_graph`, counted without building it (no networkx)."""
    parent: dict[str, str] = {}

    def root(node: str) -> str:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    def join(a: str, b: str) -> None:
        for node in (a, b):
            parent.setdefault(node, node)
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[rb] = ra

    first_of_key: dict[str, str] = {}
    for item in items:
        parent.setdefault(item.id, item.id)
        if item.family is not None:
            join(first_of_key.setdefault(item.family, item.id), item.id)
    for pair in pairs:
        join(pair.ask_id, pair.act_id)
    return sum(1 for node in parent if root(node) == node)


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
