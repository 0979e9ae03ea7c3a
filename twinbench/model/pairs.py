"""What discovery makes of the items: twin pairs, drops, every item's fate, certifications."""

from __future__ import annotations

import enum

import attrs

from twinbench.model.items import Perturbation
from twinbench.model.pickling import _pickled_by_constructor


class PairStatus(enum.StrEnum):
    """Whether a content-verified pair is scored."""

    SCORED = "scored"
    EXCLUDED = "excluded"


class Bearing(enum.StrEnum):
    """What the should-act reference does on the anchor turn, by the adapter's action rule."""

    ACTION = "mutate"  # at least one call counts as acting
    LOGIN_ONLY = "login_only"  # only calls that act under --count-login
    NO_ACTION = "read_only"  # no call counts as acting


class CertificationStatus(enum.StrEnum):
    CERTIFIED = "certified"
    CONSTRUCTION_ERROR = "construction_error"
    UNCERTIFIED = "uncertified"  # no curation applies



@_pickled_by_constructor
@attrs.frozen
class Certification:
    """The curation verdict on one pair's anchor, and where it came from.

    ``status`` is ``certified``, ``construction_error`` or ``uncertified`` (no curation
    applies, or the curation says nothing of this pair). ``origin`` is where the verdict came
    from: ``hand-made`` (a curation file people wrote), ``derived`` (computed from the data) or
    ``none``. ``independent`` lists the world-changing steps a compound turn authorizes
    independently of what was withheld (used by the credited reading); ``gated`` those that
    depend on it.
    """

    status: CertificationStatus
    reason: str = ""
    compound: bool = False
    independent: tuple[str, ...] = ()
    gated: tuple[str, ...] = ()
    origin: str = "none"


UNCERTIFIED = Certification(status=CertificationStatus.UNCERTIFIED, reason="no curation applies to this data")


@_pickled_by_constructor
@attrs.frozen
class Pair:
    """A content-verified twin pair: the same request with and without one piece of information.

    ``status`` is scored or excluded; ``reason`` says why. ``anchor_turn`` is the
    anchor's index in the should-ask item, ``act_anchor_turn`` in the should-act item.
    ``removed_tools`` are tools offered on the should-act anchor turn but not on the
    should-ask one: a call to one of them on the should-ask side still counts.
    ``removed`` is what the leaderboard declared it removed (a parameter or a tool), if it did.
    ``world_differs`` says how the twins' starting states differ, for an adapter that keeps such
    pairs (``None``: the same state, or none known).
    """

    ask_id: str
    act_id: str
    category: str
    anchor_turn: int
    act_anchor_turn: int
    perturbation: Perturbation
    removed_tools: tuple[str, ...]
    decision_bearing: Bearing
    reference_anchor_calls: tuple[str, ...]
    certification: Certification
    status: PairStatus
    reason: str
    notes: tuple[str, ...] = ()
    removed: str | None = None
    world_differs: str | None = None

    @property
    def scored(self) -> bool:
        return self.status is PairStatus.SCORED


@attrs.frozen
class Drop:
    """A should-ask item that did not become a pair, and why."""

    id: str
    category: str
    stage: str
    reason: str


@attrs.frozen
class ActFate:
    """What became of a should-act item: the twin of some pairs, or why it is the twin of none."""

    id: str
    category: str
    twin_of: tuple[str, ...]  # the should-ask items it is the verified twin of
    reason: str


