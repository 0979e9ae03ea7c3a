"""The porting contract: what a leaderboard must tell twinbench.

An adapter is composed of small parts. Everything downstream (twin discovery,
decisions, scoring, statistics, reports, the CLI) is shared and knows no leaderboard.

Required:
    ``items()``     every item with its category, side and turns (a should-ask item may
                    carry its complete twin inline, and say what was removed).
    ``rule()``      the :class:`~twinbench.contract.DecisionRule`: how called names map onto
                    an item's tools, and which calls count as acting.
Optional (sensible defaults):
    ``twin_hints``  which should-act items may be the twin of a should-ask item.
    ``curation()``  excluded items, certified anchors, compound turns.
    ``runs()``      a :class:`RunReader`: where model outputs live, how to read one run
                    (its rollouts, and the leaderboard's own verdicts when stored beside
                    them), and how to write synthetic rollouts for the reference policies.
    ``for_run``     the adapter that should score a run (e.g. the data release that made it).
    ``write_suite`` write the paired suite in the leaderboard's own format (``twinbench build``).
    ``replayer()``  a :class:`~twinbench.contract.Replayer` that executes parsed calls in the
                    leaderboard's own simulator (``score --replay``, ``twinbench replay``).
    ``perturber()`` a :class:`~twinbench.contract.perturber.Perturber` that writes constructed
                    twins in the leaderboard's own format (``twinbench perturb``).
"""

from __future__ import annotations

import abc
import argparse
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Protocol

from twinbench.errors import AdapterError
from twinbench.model import (
    Call,
    Item,
    Manifest,
    Rollout,
    RunLoad,
    RunRef,
    RunSearch,
    Side,
)

if TYPE_CHECKING:
    from twinbench.contract.curation import Curation
    from twinbench.contract.perturber import Perturber
    from twinbench.contract.replayer import Replayer
    from twinbench.contract.rules import DecisionRule

__all__ = ["Adapter", "AdapterError", "ReadingCheck", "Rollout", "RunLoad", "RunReader", "RunRef", "RunSearch"]


class ReadingCheck(Protocol):
    """The outcome of :meth:`RunReader.check_reading`: a table, a JSON record, and what is unexplained."""

    @property
    def unexplained(self) -> int: ...

    def render(self, wide: bool = False) -> str:
        """The check as text within 100 columns; ``wide``: one line per row (``twinbench calls --wide``)."""
        ...

    def to_json(self) -> dict: ...


class RunReader(abc.ABC):
    """Where one leaderboard keeps model outputs, and how to read (and write) them."""

    #: the options that point ``twinbench score`` at a user's own runs (shown as a hint)
    results_usage: str = "--results path/to/result"

    @abc.abstractmethod
    def find(self, paths: Sequence[Path], models: Sequence[str] = (), official: Path | None = None) -> RunSearch:
        """Locate model runs under the user's paths (``official``: where verdict files are, if elsewhere)."""

    @abc.abstractmethod
    def read(self, run: RunRef, item_ids: Iterable[str]) -> RunLoad:
        """Read the rollouts of the given items from one run, parsing their steps into calls.

        An item stored as an error, or whose rollout cannot be read, gets a rollout without
        turns and with ``error`` set: it is unscored, never read as "no call".

        ``item_ids`` may be a mapping from item id to the turns scoring reads (iterating it
        gives the ids, so a reader may ignore the turns). A reader that honours it parses only
        those turns and leaves the others ``None`` in ``Rollout.turns``.
        """

    def sources(self, run: RunRef) -> Sequence[Path]:
        """The files :meth:`read` reads for ``run``, if the reader can name them.

        While none of them changes (same size, modification and change times, inode), a rerun
        takes the run's decisions from the twinbench cache instead of reading it again
        (``score --fresh`` reads anyway). The default, no files, means: always read.
        """
        return ()

    def check_reading(self, paths: Sequence[Path], models: Sequence[str] = ()) -> ReadingCheck:
        """Compare what twinbench reads from the runs with the leaderboard's own reading (``twinbench calls``)."""
        raise AdapterError("this adapter's runs store no reading of their own to check twinbench's against")

    def write(self, directory: Path, model: str, rollouts: Mapping[str, Sequence[Sequence[Sequence[Call]]]]) -> RunRef:
        """Store synthetic rollouts in the leaderboard's own format and return the run.

        Used by the reference policies so that they pass through :meth:`read` exactly like
        a real run. It is called once per policy with the same ``directory``: keep each
        model in its own place below it. An empty step (no calls) stands for a prose reply.
        """
        raise AdapterError("this adapter cannot write rollouts, so it has no built-in reference policies")


class Adapter(abc.ABC):
    """Base class of every leaderboard adapter. Subclass it and register it by entry point."""

    #: the name used on the command line (``--adapter NAME``)
    name: ClassVar[str] = ""
    #: one line shown by ``twinbench adapters``
    description: ClassVar[str] = ""
    #: a candidate twin that starts from another world (``Item.world``) is no twin: dropped at the
    #: content stage (the default). An adapter whose method pairs by words, tools and references
    #: alone sets ``False``: such pairs are kept, noted and counted, and ``--same-world`` excludes them.
    strict_world: ClassVar[bool] = True

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

    def input_files(self) -> Sequence[tuple[str, Path]]:
        """The data files this adapter reads, each with the option (or source) that named it.

        No command writes an output over one of them (nor over a file of the runs it reads, see
        :meth:`RunReader.sources`); the default, none, protects nothing beyond the runs.
        """
        return ()

    def cache_key(self) -> str | None:
        """A content hash of everything the items, the rule and the reader depend on, or ``None``.

        With a key, discovery's outcome, and each run's decisions (see :meth:`RunReader.sources`),
        are stored in the twinbench cache and reused while the key (and twinbench's own code) is
        unchanged; ``None`` (the default) recomputes them every time. Cover every input file
        (data, labels, curation), and the adapter's own version when it lives outside twinbench:
        twinbench's code fingerprint does not see another package's code.
        """
        return None

    # -- items and the decision rule ---------------------------------------------------
    @abc.abstractmethod
    def items(self) -> Sequence[Item]:
        """Every item of the leaderboard that can take part in a pair, on either side.

        Called several times per command: read the data once and cache it
        (``functools.cached_property`` does).
        """

    @abc.abstractmethod
    def rule(self) -> DecisionRule:
        """Which calls count as acting (see :mod:`twinbench.rules`)."""

    def twin_hints(self, items: Sequence[Item]) -> Mapping[str, Sequence[str]]:
        """Candidate should-act twins per should-ask item id, beside any inline twin.

        A hint is only a hint: discovery verifies every candidate by content. The
        default offers every should-act item to items without an inline twin (correct
        but slower); return ``{}`` when every should-ask item carries its twin.
        """
        act_ids = [item.id for item in items if item.side is Side.ACT]
        return {item.id: act_ids for item in items if item.side is Side.ASK and item.twin is None}

    def curation(self) -> Curation | None:
        """Hand-made exclusions and certifications, or ``None``."""
        return None

    # -- model outputs --------------------------------------------------------------
    def runs(self) -> RunReader | None:
        """How this leaderboard's model outputs are found and read; ``None`` when it cannot read any."""
        return None

    def for_run(self, run: RunRef) -> Adapter:
        """The adapter that should score this run (e.g. the dataset release that produced it)."""
        return self

    def write_suite(self, manifest: Manifest, out: Path) -> list[Path]:
        """Write the paired suite (both sides of every scored pair) for a harness to run."""
        raise AdapterError(f"the {self.name} adapter cannot build a suite")

    def replayer(self) -> Replayer | None:
        """How this leaderboard's calls are replayed in its own simulator; ``None`` when they cannot be."""
        return None

    def perturber(self) -> Perturber | None:
        """How constructed twins are written and read back (``twinbench perturb``); ``None`` when they cannot be."""
        return None

    # -- helpers every command uses -------------------------------------------------
    def reader(self) -> RunReader:
        """:meth:`runs`, or one clear error when the adapter reads no model outputs."""
        found = self.runs()
        if found is None:
            raise AdapterError(f"the {self.name} adapter cannot read model outputs")
        return found

    def constructor(self) -> Perturber:
        """:meth:`perturber`, or one clear error when the adapter cannot write constructed twins."""
        found = self.perturber()
        if found is None:
            raise AdapterError(f"the {self.name} adapter cannot write constructed twins (it has no perturber)")
        return found

    def sandbox(self, option: str = "--replay") -> Replayer:
        """:meth:`replayer`, or one clear error naming the option when the adapter cannot replay calls."""
        found = self.replayer()
        if found is None:
            raise AdapterError(f"{option}: the {self.name} adapter cannot replay calls (it has no simulator "
                               "to execute them in)")
        return found
