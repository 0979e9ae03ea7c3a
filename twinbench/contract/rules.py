"""Decision rules: which calls count as acting on an item.

A decision is one bit per side of a pair: did the model attempt the action on the
anchor turn? What counts as "the action" belongs to the leaderboard, so the adapter
supplies a :class:`DecisionRule`. It answers two questions:

* ``tool_of(name, offered)``: which of the offered tools a called name refers to, or
  ``None`` (the call is not on the item's list, e.g. a name made up in prose). A
  multi-turn suite may drop a class qualifier (``FileSystem.mv`` is ``mv``); When2Call's own
  inference script rewrites ``.`` to ``_`` in tool names, so ``a_b_c`` is ``a.b.c``.
* ``effect(call, item, turn)``: what a call (already mapped onto a tool) does, as an
  :class:`~twinbench.model.Effect`. ``is_action`` turns that into the bit: ``mutate``
  acts, ``login`` acts under ``--count-login``, ``read`` does not, and an unknown label
  (``None``) does not.

Two rules ship with the core:

* :class:`EffectTableRule`: a function label table with per-call argument rules and,
  optionally, the source analyzer's verdicts (the world-changing calls of a stateful suite).
* :class:`OfferedToolRule`: any call of a tool on the item's list is acting (When2Call,
  whose decision is "call the tool, or ask").
"""

from __future__ import annotations

import abc
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import attrs

from twinbench.model import Call, Effect, FunctionEffect, Item

if TYPE_CHECKING:
    from twinbench.contract.effects import EffectClassifier, SourceVerdict


class DecisionRule(abc.ABC):
    """How called names map onto an item's tools, and which calls count as acting."""

    #: one line for ``twinbench functions`` and the docs
    summary: str = ""
    #: how a pair's reason names an acting reference call ("the reference makes ... on the anchor turn")
    action_phrase: str = "a call that counts as acting"

    def tool_of(self, name: str, offered: Collection[str]) -> str | None:
        """The offered tool ``name`` refers to, or ``None``. The default is an exact match."""
        return name if name in offered else None

    @abc.abstractmethod
    def effect(self, call: Call, item: Item, turn: int) -> Effect | None:
        """What ``call`` (its name already one of the item's tools) does; ``None`` when unknown."""

    def is_action(self, call: Call, item: Item, turn: int, count_login: bool = False) -> bool:
        """Does this call on ``item``'s turn ``turn`` count as attempting the action?"""
        effect = self.effect(call, item, turn)
        return effect is Effect.MUTATE or (count_login and effect is Effect.LOGIN)

    def resolve(self, calls: Iterable[Call], offered: Collection[str]) -> list[Call]:
        """The calls whose name refers to an offered tool, renamed to that tool (the rest dropped)."""
        out = []
        for call in calls:
            tool = self.tool_of(call.name, offered)
            if tool is not None:
                out.append(call if tool == call.name else attrs.evolve(call, name=tool))
        return out

    #: whether items may offer tools the rule cannot label (see :meth:`unlabelled`)
    allow_unlabelled: bool = True

    def unlabelled(self, tools: Iterable[str]) -> list[str]:
        """Tools among ``tools`` the rule has no label for (empty when every tool is known).

        Discovery refuses data whose items offer such a tool, unless ``allow_unlabelled``,
        in which case the pairs whose anchor turn offers one are excluded with that reason.
        """
        return []

    def functions(self) -> Sequence[FunctionEffect]:
        """The labelled functions, for ``twinbench functions`` (empty for label-free rules)."""
        return ()


@attrs.frozen(eq=False)
class EffectTableRule(DecisionRule):
    """Acting = a world-changing call, by an effect table (with per-call argument rules).

    ``qualifier`` separates a class qualifier from the function name in a called name
    (``Cls.mv``); the part after the last one is matched against the tool list.
    ``owners`` and ``verdicts`` are optional extras for ``twinbench functions``.
    """

    classifier: EffectClassifier
    qualifier: str | None = "."
    owners: Mapping[str, str] = attrs.field(factory=dict)
    verdicts: Mapping[str, SourceVerdict] = attrs.field(factory=dict)
    #: a tool the items offer but the table does not label: an error (default), or the pairs
    #: whose anchor turn offers it are excluded with that reason (``allow_unlabelled=True``)
    allow_unlabelled: bool = False
    summary: str = "world-changing calls, by the adapter's effect table"
    action_phrase: str = "a world-changing call"

    def tool_of(self, name: str, offered: Collection[str]) -> str | None:
        short = name.rsplit(self.qualifier, 1)[-1] if self.qualifier else name
        return short if short in offered else None

    def effect(self, call: Call, item: Item, turn: int) -> Effect | None:
        return self.classifier.label(call)

    def unlabelled(self, tools: Iterable[str]) -> list[str]:
        return sorted({t for t in tools if self.classifier.function(t) is None
                       and not any(r.function == t for r in self.classifier.rules)})

    def functions(self) -> Sequence[FunctionEffect]:
        return self.classifier.functions


@attrs.frozen(eq=False)
class OfferedToolRule(DecisionRule):
    """Acting = calling any tool on the item's list.

    ``rewrites`` are (old, new) substitutions a harness applies to tool names before the
    model sees them; a called name matches a tool when it equals the tool's name or the
    rewritten name (When2Call: ``(".", "_")``).
    """

    rewrites: tuple[tuple[str, str], ...] = ()
    summary: str = "any call of a tool on the item's list"
    action_phrase: str = "a call of a tool on the item's list"

    def _spellings(self, tool: str) -> set[str]:
        out = {tool}
        for old, new in self.rewrites:
            out |= {s.replace(old, new) for s in out}
        return out

    def tool_of(self, name: str, offered: Collection[str]) -> str | None:
        if name in offered:
            return name
        matches = sorted(t for t in offered if name in self._spellings(t))
        return matches[0] if len(matches) == 1 else None  # an ambiguous rewrite names no tool

    def effect(self, call: Call, item: Item, turn: int) -> Effect | None:
        return Effect.MUTATE


def function_records(rule: EffectTableRule) -> list[dict[str, object]]:
    """Every labelled function as plain data (what ``twinbench functions`` prints)."""
    records = []
    for fn in rule.classifier.functions:
        verdict = rule.verdicts.get(fn.name)
        arg_rule = next((r for r in rule.classifier.rules if r.function == fn.name), None)
        records.append({
            "name": fn.name,
            "class": rule.owners.get(fn.name, fn.owner),
            "label": fn.label.value,
            "reason": fn.reason,
            "label_source": "source analyzer" if fn.origin == "source" else "table",
            "per_call_rule": (f"{arg_rule.with_argument.value} with {arg_rule.argument}= or positional argument "
                              f"{arg_rule.position}, else {arg_rule.without_argument.value}") if arg_rule else None,
            "source_writes": verdict.writes if verdict else None,
            "source_evidence": verdict.evidence if verdict else None,
            "notes": dict(fn.notes),
        })
    return records
