"""What a run left unread on the anchor turns of its pairs: one count, whichever command shows it.

Every command that reads a run reads some turns besides the anchor turns (``--same-history`` the
turns before them, ``--replay`` the should-ask turns through the anchor, ``compare`` the anchor of
every should-ask item), so a count over the turns read would change with the command. This one
is over the anchor turns of the population's pairs, each ``(item, turn)`` once, from what the
decisions kept of each side (:attr:`PairDecision.act_unread`, ``ask_unread``): the same decisions
give the same count in ``score``, ``score --replay``, ``compare``, ``report`` and the diagnostics.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from twinbench.model import PairDecision

#: examples kept per kind
EXAMPLES_PER_KIND = 2


@attrs.frozen
class AnchorUnread:
    """Unread parts on the anchor turns, per kind, with a few examples; ``told`` false when the reader does
    not say per turn (its own counts then stand, see :attr:`Rollout.unread`)."""

    counts: dict[str, int]
    examples: tuple[tuple[str, str], ...]
    turns: int  # the distinct anchor turns of the pairs: the population counted over
    told: bool = True


def anchor_unread(decisions: Iterable[PairDecision]) -> AnchorUnread:
    """Count what the anchor turns of these decisions left unread, each ``(item, turn)`` once."""
    sides: dict[tuple[str, int], tuple[tuple[str, str], ...] | None] = {}
    for d in decisions:
        for item, turn, told in ((d.act_id, d.act_anchor_turn, d.act_unread), (d.ask_id, d.anchor_turn, d.ask_unread)):
            sides.setdefault((item, turn), told)  # a should-act twin shared by pairs: its anchor turn once
    counts: dict[str, int] = {}
    examples: dict[str, list[str]] = {}
    for (item, turn), told in sides.items():
        for kind, excerpt in told or ():
            counts[kind] = counts.get(kind, 0) + 1
            kept = examples.setdefault(kind, [])
            if len(kept) < EXAMPLES_PER_KIND:
                kept.append(f"{item} turn {turn}: {excerpt}")
    return AnchorUnread(dict(sorted(counts.items())),
                        tuple((kind, text) for kind in sorted(examples) for text in examples[kind]),
                        len(sides), told=any(told is not None for told in sides.values()))
