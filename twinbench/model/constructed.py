"""What ``twinbench perturb`` decides about one anchor turn: its should-ask twin, or why it has none."""

from __future__ import annotations

import attrs


@attrs.frozen
class Construction:
    """One should-act item's turn as a possible anchor of a constructed tool-removed twin.

    ``withheld`` are the tools the turn's reference needs to act (its world-changing calls'
    tools); ``new_id`` is the constructed should-ask item's id. ``reason`` says why the turn
    cannot be perturbed (``None``: it can, and ``new_id`` is set).
    """

    item_id: str
    category: str
    turn: int
    withheld: tuple[str, ...] = ()
    new_id: str | None = None
    reason: str | None = None

    @property
    def perturbable(self) -> bool:
        return self.reason is None


@attrs.frozen
class ValueRemoval:
    """One should-act item's turn as a possible anchor of a constructed value-removed twin.

    ``argument`` (``function.parameter``) is the anchor reference argument whose literal ``value``
    appears exactly once in the turn's user words ``original``; ``rewritten`` are those words with
    the value replaced by the adapter's neutral phrase, and ``supplied`` the inserted next turn's
    words that give the value back. ``reason`` says why the turn has no such twin (``None``: it
    has, and ``new_id`` is set).
    """

    item_id: str
    category: str
    turn: int
    argument: str = ""
    value: str = ""
    original: str = ""
    rewritten: str = ""
    supplied: str = ""
    new_id: str | None = None
    reason: str | None = None

    @property
    def perturbable(self) -> bool:
        return self.reason is None
