"""Hand-made curation of a leaderboard's pairs, as plain records.

A curation says which items are known to be broken (bad keys), which pairs'
labels failed certification (construction errors), and which anchors are
compound turns (the request also authorizes steps that do not depend on what
was withheld). It belongs to one version of the data: an adapter checks by
content that it applies, and when it does not, discovery runs without it and
says so.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from twinbench.model import Certification, CertificationStatus


@attrs.frozen
class CompoundTurn:
    withheld: tuple[str, ...]
    independent: tuple[str, ...]
    gated: tuple[str, ...]
    reason: str = ""


@attrs.frozen
class Curation:
    """Curation data and whether it applies to the data at hand.

    ``bad_keys`` maps item ids to the reason they are excluded; ``construction_errors``
    and ``compound`` are keyed by the should-ask item id of a pair.
    """

    name: str
    applies: bool
    applies_reason: str
    bad_keys: Mapping[str, str] = attrs.field(factory=dict)
    construction_errors: Mapping[str, str] = attrs.field(factory=dict)
    compound: Mapping[str, CompoundTurn] = attrs.field(factory=dict)

    def certify(self, ask_id: str) -> Certification:
        """The certification of one pair's anchor (only meaningful when the curation applies)."""
        if not self.applies:
            return Certification(status=CertificationStatus.UNCERTIFIED, reason=self.applies_reason)
        if ask_id in self.construction_errors:
            return Certification(status=CertificationStatus.CONSTRUCTION_ERROR, reason=self.construction_errors[ask_id])
        turn = self.compound.get(ask_id)
        if turn is not None:
            return Certification(
                status=CertificationStatus.CERTIFIED,
                reason=turn.reason or "compound turn",
                compound=True,
                independent=turn.independent,
                gated=turn.gated,
            )
        return Certification(status=CertificationStatus.CERTIFIED, reason="label certified by hand")
