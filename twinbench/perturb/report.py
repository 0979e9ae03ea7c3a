"""The outcome of ``twinbench perturb``: every construction, the funnel, and the round trip."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import attrs

from twinbench.model.constructed import Construction, ValueRemoval
from twinbench.perturb.construct import NO_ACTION


@attrs.frozen
class PerturbReport:
    """What was constructed, written, and found again by discovery from the written files alone.

    ``items`` counts the should-act items considered, ``refused`` those the leaderboard's way of
    constructing twins does not apply to (by id, with the reason), ``constructions`` holds one record per
    candidate anchor turn; ``verified`` and ``scored`` are the constructed ids discovery paired
    with their own should-act item, at their anchor, with exactly the withheld tools removed.
    ``unverified`` maps a constructed id discovery did not verify so to what it found instead.
    With ``values``, ``removals`` holds one value-removal record per candidate turn; ``review`` names
    the filled-in review read back, ``certified`` the value-removed ids it approved (and discovery
    certified), ``rejected`` and ``blank`` those it rejected or left unanswered.
    """

    adapter: str
    data: dict[str, str]
    items: int
    refused: dict[str, str]
    constructions: tuple[Construction, ...]
    verified: tuple[str, ...]
    scored: tuple[str, ...]
    unverified: dict[str, str]
    written: tuple[Path, ...]
    values: bool = False
    removals: tuple[ValueRemoval, ...] = ()
    review: str | None = None
    certified: tuple[str, ...] = ()
    rejected: tuple[str, ...] = ()
    blank: tuple[str, ...] = ()

    @property
    def value_perturbable(self) -> tuple[ValueRemoval, ...]:
        return tuple(r for r in self.removals if r.perturbable)

    def value_reasons(self) -> list[tuple[str, int]]:
        """Why candidate turns got no value-removed twin, each reason's kind and count."""
        kinds = Counter(_kind(r.reason) for r in self.removals if r.reason is not None)
        return sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))

    def value_funnel(self) -> list[tuple[str, int]]:
        made = {r.new_id for r in self.value_perturbable}
        rows = [("candidate anchor turns", len(self.removals)),
                ("with a world-changing reference", sum(1 for r in self.removals if r.reason != NO_ACTION)),
                ("value-perturbable", len(made)), ("constructed", len(made)),
                ("verified by discovery", sum(1 for i in self.verified if i in made)),
                ("scored", sum(1 for i in self.scored if i in made))]
        if self.review is not None:
            rows += [("approved in the review", len(self.certified)), ("rejected in the review", len(self.rejected)),
                     ("left blank in the review", len(self.blank))]
        return rows

    @property
    def perturbable(self) -> tuple[Construction, ...]:
        return tuple(c for c in self.constructions if c.perturbable)

    def reasons(self) -> list[tuple[str, int]]:
        """Why turns could not be perturbed, each reason's kind and count, most frequent first."""
        kinds = Counter(_kind(c.reason) for c in self.constructions if c.reason is not None)
        return sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))

    def refusals(self) -> list[tuple[str, int]]:
        """Why should-act items were left out as a whole, and how many."""
        kinds = Counter(_kind(why) for why in self.refused.values())
        return sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))

    @property
    def acting(self) -> int:
        """Candidate turns whose reference makes a world-changing call."""
        return sum(1 for c in self.constructions if c.withheld)

    def funnel(self) -> list[tuple[str, int]]:
        """The tool-removal funnel (the verified and scored counts are of tool-removed twins only)."""
        made = {c.new_id for c in self.perturbable}
        return [("should-act items", self.items), ("items the construction applies to", self.items - len(self.refused)),
                ("candidate anchor turns", len(self.constructions)),
                ("with a world-changing reference", self.acting),
                ("perturbable", len(self.perturbable)), ("constructed", len(self.perturbable)),
                ("verified by discovery", sum(1 for i in self.verified if i in made)),
                ("scored", sum(1 for i in self.scored if i in made))]

    def to_json(self) -> dict[str, object]:
        return {
            "adapter": self.adapter,
            "data": dict(self.data),
            "funnel": {name: count for name, count in self.funnel()},
            "not_perturbable": {kind: count for kind, count in self.reasons()},
            "refused_items": {kind: count for kind, count in self.refusals()},
            "constructions": [attrs.asdict(c) | {"withheld": list(c.withheld), "verified": c.new_id in self.verified}
                              for c in self.constructions],
            "unverified": dict(self.unverified),
            **({"value_removal": {
                "funnel": {name: count for name, count in self.value_funnel()},
                "not_perturbable": {kind: count for kind, count in self.value_reasons()},
                "review": self.review,
                "constructions": [attrs.asdict(r) | {"verified": r.new_id in self.verified,
                                                     "certified": r.new_id in self.certified}
                                  for r in self.removals],
            }} if self.values else {}),
            "written": [str(p) for p in self.written],
        }


def _kind(reason: str) -> str:
    """A reason without its names and numbers (``X also needed on the earlier turn 2`` -> its kind; a
    trailing ``[detail]``, such as the id of the row it repeats, is dropped)."""
    if reason.endswith("]") and " [" in reason:
        reason = reason[:reason.rindex(" [")]
    if "also needed on the earlier turn" in reason:
        return "a withheld tool is also needed on an earlier turn"
    if "already has an empty reference" in reason:
        return "another turn already has an empty reference (the anchor would not be the only one)"
    if reason.startswith("a ") and ": " in reason:  # "a long_context item: ..."
        return reason
    return reason
