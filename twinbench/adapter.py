"""The porting contract: what a leaderboard must tell twinbench.

An adapter answers a handful of questions about one leaderboard. Everything
downstream (twin discovery, decisions, scoring, statistics, reports, the CLI)
is shared and knows no leaderboard.

Required:
    ``items``             every item with its category, side and turns.
    ``effects``           which calls change the world (an :class:`EffectClassifier`).
Optional (sensible defaults):
    ``twin_hints``        which should-act items may be the twin of a should-ask item.
    ``curation``          excluded items, certified anchors, compound turns.
    ``find_runs``         where model outputs live; ``read_rollouts`` turns one into calls.
    ``official_verdicts`` the leaderboard's own pass/fail per item.
    ``write_rollouts``    store synthetic rollouts in the leaderboard's own format, so the
                          reference policies are read back through the real reader.
"""

from __future__ import annotations

import abc
import argparse
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import attrs

from twinbench.errors import TwinbenchError
from twinbench.model import Call, Item

if TYPE_CHECKING:
    from twinbench.curation import Curation
    from twinbench.effects import EffectClassifier, SourceVerdict


class AdapterError(TwinbenchError):
    """A problem the user can fix (bad path, missing data, wrong release). One clear message."""


@attrs.frozen
class Rollout:
    """One model's stored output for one item: calls per turn, or why there are none.

    ``turns`` holds, per turn the rollout reached, the calls parsed out of each step
    (one tuple per step). ``error`` is set when the leaderboard stored an error instead
    of a rollout; then the item is unscored for that model, never read as "no call".
    """

    item_id: str
    turns: tuple[tuple[tuple[Call, ...], ...], ...] | None
    error: str | None = None

    def calls_on(self, turn: int) -> tuple[Call, ...] | None:
        """All calls of one turn; ``()`` when the rollout ended before it; ``None`` on error."""
        if self.turns is None:
            return None
        if turn >= len(self.turns):
            return ()
        return tuple(call for step in self.turns[turn] for call in step)

    def ended_before(self, turn: int) -> bool:
        return self.turns is not None and turn >= len(self.turns)


@attrs.frozen
class RunRef:
    """One model's run on the leaderboard, as found on disk."""

    model: str
    location: Path
    details: Mapping[str, str] = attrs.field(factory=dict)
    #: adapter-private data about the run (file lists, ...); not compared, not shown
    payload: object = attrs.field(default=None, eq=False, repr=False)


@attrs.frozen
class RunLoad:
    """What reading one run gave: rollouts by item id, plus everything worth a warning."""

    run: RunRef
    rollouts: Mapping[str, Rollout]
    warnings: tuple[str, ...] = ()
    notes: Mapping[str, object] = attrs.field(factory=dict)
    #: the leaderboard's own pass/fail per item, when the reader found it alongside the outputs
    official: Mapping[str, bool] | None = None


@attrs.frozen
class RunSearch:
    """Runs found under the user's paths, and the folders skipped with their reason."""

    runs: tuple[RunRef, ...]
    skipped: tuple[tuple[str, str], ...] = ()
    warnings: tuple[str, ...] = ()


class Adapter(abc.ABC):
    """Base class of every leaderboard adapter. Subclass it and register it by entry point."""

    #: the name used on the command line (``--adapter NAME``)
    name: ClassVar[str] = ""
    #: one line shown by ``twinbench adapters``
    description: ClassVar[str] = ""

    # -- construction from the command line ---------------------------------------
    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        """Add this adapter's own options (data location, release, ...) to a subcommand."""

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Adapter:
        """Build the adapter from parsed options; the default takes no options."""
        return cls()

    def describe(self) -> dict[str, str]:
        """What data this adapter is reading, for output headers and JSON.

        Keys the shared outputs use when present: ``release`` (a version of the data),
        ``dataset`` (its format or name), ``source`` (where it was found), ``location``,
        and ``fingerprint`` (a content hash: runs whose adapters share one are scored on
        the same population, so they are ranked together).
        """
        return {}

    def data_warnings(self) -> Sequence[str]:
        """Problems found in the leaderboard's own data (items left out, and why)."""
        return ()

    # -- items --------------------------------------------------------------------
    @abc.abstractmethod
    def items(self) -> Sequence[Item]:
        """Every item of the leaderboard that can take part in a pair, on either side.

        Called several times per command: read the data once and cache it
        (``functools.cached_property`` does).
        """

    def twin_hints(self, items: Sequence[Item]) -> Mapping[str, Sequence[str]]:
        """Candidate should-act twins per should-ask item id.

        A hint is only a hint: discovery verifies every candidate by content. The
        default offers every should-act item, which is correct but slower.
        """
        act_ids = [item.id for item in items if item.side.value == "should_act"]
        return {item.id: act_ids for item in items if item.side.value == "should_ask"}

    def family_key(self, item: Item) -> str | None:
        """A key shared by the items of one underlying scenario (for the family graph)."""
        return None

    # -- effects and curation ----------------------------------------------------------
    @abc.abstractmethod
    def effects(self) -> EffectClassifier:
        """Which tool calls change the world."""

    def curation(self) -> Curation | None:
        """Hand-made exclusions and certifications, or ``None``."""
        return None

    def function_owners(self) -> Mapping[str, str]:
        """Optional: the class (or API) each tool function belongs to, for ``twinbench functions``."""
        return {}

    def source_verdicts(self) -> Mapping[str, SourceVerdict]:
        """Optional: what :func:`twinbench.effects.analyze_source` derives from the tools' own code."""
        return {}

    # -- model outputs --------------------------------------------------------------
    def find_runs(self, paths: Sequence[Path], models: Sequence[str] = (), scores: Path | None = None) -> RunSearch:
        """Locate model runs under the user's paths."""
        raise AdapterError(f"the {self.name} adapter cannot read model outputs yet")

    def read_rollouts(self, run: RunRef, item_ids: Iterable[str]) -> RunLoad:
        """Read the rollouts of the given items from one run, parsing every step into calls."""
        raise AdapterError(f"the {self.name} adapter cannot read model outputs yet")

    def for_run(self, run: RunRef) -> Adapter:
        """The adapter that should score this run (e.g. the dataset release that produced it)."""
        return self

    def official_verdicts(self, run: RunRef, load: RunLoad) -> Mapping[str, bool] | None:
        """The leaderboard's own pass (True) or fail (False) per item id, when available.

        ``load`` is what :meth:`read_rollouts` returned for the run, so an adapter need not
        read the outputs twice; the default returns ``load.official``. Items without a
        verdict are left out of the official rates, never counted as passes.
        """
        return load.official

    def write_rollouts(
        self, directory: Path, model: str, rollouts: Mapping[str, Sequence[Sequence[Sequence[Call]]]]
    ) -> RunRef:
        """Store synthetic rollouts in the leaderboard's own format and return the run.

        Used by the reference policies so that they pass through :meth:`read_rollouts`
        exactly like a real run. It is called once per policy with the same ``directory``:
        keep each model in its own place below it (e.g. ``directory/<model>/``). An empty
        step (no calls) stands for a prose reply.
        """
        raise AdapterError(f"the {self.name} adapter cannot write rollouts")
