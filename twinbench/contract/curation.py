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

    ``bad_keys`` maps item ids to the reason they are excluded; ``construction_errors``,
    ``compound`` and ``certified`` are keyed by the should-ask item id of a pair. A pair is
    certified only when the curation says so: listed in ``certified`` (with its reason), a
    compound turn, or covered by ``reviewed_all`` (the curation's makers reviewed every pair
    it does not list otherwise, e.g. the paper's hand review of every BFCL anchor). Any other
    pair is uncertified, with that reason. ``origin`` says how the curation was made:
    ``hand-made`` (people wrote it) or ``derived`` (computed from the data).
    """

    name: str
    applies: bool
    applies_reason: str
    bad_keys: Mapping[str, str] = attrs.field(factory=dict)
    construction_errors: Mapping[str, str] = attrs.field(factory=dict)
    compound: Mapping[str, CompoundTurn] = attrs.field(factory=dict)
    certified: Mapping[str, str] = attrs.field(factory=dict)
    reviewed_all: str | None = None
    origin: str = "hand-made"
    #: pairs the curation never saw (constructed after it was made), by should-ask id, with the reason:
    #: uncertified whatever else it says
    unreviewed: Mapping[str, str] = attrs.field(factory=dict)

    def certify(self, ask_id: str, decision_bearing: bool = True) -> Certification:
        """The certification of one pair's anchor (only meaningful when the curation applies).

        ``reviewed_all`` covers the decision-bearing pairs (a review of the anchors that pose the
        decision to act); a read-only pair it does not list is uncertified.
        """
        if not self.applies:
            return Certification(status=CertificationStatus.UNCERTIFIED, reason=self.applies_reason)
        if ask_id in self.unreviewed:
            return Certification(status=CertificationStatus.UNCERTIFIED, reason=self.unreviewed[ask_id])
        if ask_id in self.construction_errors:
            return Certification(status=CertificationStatus.CONSTRUCTION_ERROR, reason=self.construction_errors[ask_id],
                                 origin=self.origin)
        turn = self.compound.get(ask_id)
        if turn is not None:
            return Certification(
                status=CertificationStatus.CERTIFIED,
                reason=turn.reason or "compound turn",
                compound=True,
                independent=turn.independent,
                gated=turn.gated,
                origin=self.origin,
            )
        if ask_id in self.certified:
            return Certification(status=CertificationStatus.CERTIFIED, reason=self.certified[ask_id], origin=self.origin)
        if self.reviewed_all is not None and decision_bearing:
            by = "by hand" if self.origin == "hand-made" else f"({self.origin})"
            return Certification(status=CertificationStatus.CERTIFIED, reason=f"label certified {by}",
                                 origin=self.origin)
        if self.reviewed_all is not None:
            return Certification(status=CertificationStatus.UNCERTIFIED,
                                 reason="not certified: the review covered the decision-bearing anchors only")
        return Certification(status=CertificationStatus.UNCERTIFIED,
                             reason=f"not certified: {self.name} says nothing of this pair")
