"""The reference adapter: BFCL multi-turn (base, long_context, miss_func, miss_param)."""

from __future__ import annotations

import argparse
import functools
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from twinbench.contract.adapter import Adapter
from twinbench.contract.constructed import (
    cache_key_of,
    constructed_arguments,
    constructed_from_args,
)
from twinbench.contract.curation import CompoundTurn, Curation
from twinbench.contract.effects import (
    EffectClassifier,
    SourceVerdict,
    analyze_source,
    load_effect_table,
)
from twinbench.contract.rules import EffectTableRule
from twinbench.errors import AdapterError
from twinbench.model import Effect, FunctionEffect, Item, RunRef, Side

if TYPE_CHECKING:
    from . import dataset, runs

from .release import CATEGORIES, DEFAULT_RELEASE, LAST_V3_RELEASE, ReleaseData, locate

ID_PREFIX = "multi_turn_"


def _data_file(name: str) -> Path:
    return Path(str(resources.files("twinbench.adapters.bfcl").joinpath(name)))


class BFCLAdapter(Adapter):
    # the method pairs by dialogue, tools and reference; twins whose initial_config differs are
    # kept, noted and counted (``--same-world`` excludes them)
    strict_world = False
    """BFCL multi-turn: should-act ``base``/``long_context``, should-ask ``miss_func``/``miss_param``."""

    name = "bfcl"
    description = "BFCL multi-turn (bfcl-eval releases; v3 and v4 result trees)"

    def __init__(self, release: str = DEFAULT_RELEASE, bfcl_root: Path | None = None, fetcher=None,
                 release_chosen: bool = False, constructed: Path | None = None,
                 constructed_only: bool = False) -> None:
        self.release_name = release
        self.bfcl_root = bfcl_root
        self._fetcher = fetcher
        #: a folder written by ``twinbench perturb`` (its twins join the items), and whether they are
        #: the only should-ask items
        self.constructed = None if constructed is None else Path(constructed).expanduser()
        self.constructed_only = constructed_only and self.constructed is not None
        # when the user named a release or a folder (or constructed items from one), every run is scored against it
        self.release_chosen = release_chosen or bfcl_root is not None or self.constructed is not None
        self._siblings: dict[str, BFCLAdapter] = {release: self}

    # -- construction ------------------------------------------------------------------
    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        group = parser.add_argument_group("BFCL data")
        group.add_argument(
            "--bfcl-release",
            metavar="VERSION",
            default=None,
            help=f"bfcl-eval release whose data to use (default {DEFAULT_RELEASE}; {LAST_V3_RELEASE} is the "
            "last BFCL_v3 release). Without it, results are scored against the release that made them: "
            f"BFCL_v3 files against {LAST_V3_RELEASE}, BFCL_v4 files against {DEFAULT_RELEASE}",
        )
        group.add_argument(
            "--bfcl-root",
            metavar="DIR",
            type=Path,
            default=None,
            help="use the data in this bfcl_eval folder or gorilla checkout instead of a release",
        )
        constructed_arguments(group, "bfcl")

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> BFCLAdapter:
        chosen = getattr(args, "bfcl_release", None)
        constructed, only = constructed_from_args(args)
        return cls(release=chosen or DEFAULT_RELEASE, bfcl_root=getattr(args, "bfcl_root", None),
                   release_chosen=chosen is not None, constructed=constructed, constructed_only=only)

    # -- data ------------------------------------------------------------------------------
    @functools.cached_property
    def release(self) -> ReleaseData:
        kwargs = {"fetcher": self._fetcher} if self._fetcher else {}
        return locate(self.release_name, self.bfcl_root, **kwargs)

    @functools.cached_property
    def _input_key(self) -> str:
        from . import dataset

        return dataset.input_key(self.release)

    @functools.cached_property
    def data(self) -> dataset.BFCLData:
        from . import dataset

        return dataset.load(self.release, self._input_key)

    @functools.cached_property
    def _facts(self) -> dataset.DataFacts:
        """The release's classes, functions, fingerprint and problems: what every command reads (the raw
        items of :attr:`data` are read only to build the items, or to replay)."""
        from . import dataset

        return dataset.facts(self.release, self._input_key, lambda: self.data)

    def describe(self) -> dict[str, str]:
        rel = self.release
        out = {
            "release": rel.release,
            "dataset": rel.prefix,
            "source": rel.source,
            "location": str(rel.root),
            "fingerprint": self._facts.fingerprint,
        }
        if self.constructed is not None:
            out["constructed"] = str(self.constructed)
            out["population"] = "constructed" if self.constructed_only else "shipped and constructed"
            out["fingerprint"] = cache_key_of(out["fingerprint"], self._constructed_key, self.constructed_only)
        return out

    def data_warnings(self) -> Sequence[str]:
        return self._facts.problems

    def input_files(self) -> Sequence[tuple[str, Path]]:
        """The release's question and answer files, the data every item is read from."""
        rel = self.release
        source = "--bfcl-root" if self.bfcl_root is not None else f"the bfcl-eval {rel.release} release"
        return tuple((source, path) for category in CATEGORIES
                     for path in (rel.question_file(category), rel.answer_file(category)))

    @functools.cached_property
    def _shipped_items(self) -> tuple[Item, ...]:
        """The release's own items: one cache record per release content."""
        from twinbench import cache

        def build() -> tuple[Item, ...]:
            from . import dataset

            return tuple(dataset.to_item(raw, self._facts.tools_by_class) for raw in self.data.raw)

        return cache.cached("bfcl-items", self._input_key, build)

    @functools.cached_property
    def _items(self) -> tuple[Item, ...]:
        shipped = self._shipped_items
        if self.constructed is None:
            return shipped
        if self.constructed_only:
            shipped = tuple(item for item in shipped if item.side is Side.ACT)
        return shipped + self._constructed_items

    @functools.cached_property
    def _constructed_raw(self) -> tuple[dataset.RawItem, ...]:
        from .perturb import load_constructed

        return tuple(load_constructed(self.constructed, self.release.prefix, {r.id: r for r in self.data.raw}))

    @functools.cached_property
    def _constructed_items(self) -> tuple[Item, ...]:
        from . import dataset
        from .perturb import origin

        return tuple(attrs.evolve(dataset.to_item(raw, self._facts.tools_by_class),
                                  family=f"scenario {origin(raw.id)[0]}") for raw in self._constructed_raw)

    @functools.cached_property
    def _constructed_key(self) -> str:
        from twinbench import cache

        from . import dataset
        from .perturb import REVIEWED_FILE, VALUE_CATEGORY, data_files

        files = [*data_files(self.constructed, self.release.prefix),
                 *data_files(self.constructed, self.release.prefix, VALUE_CATEGORY), self.constructed / REVIEWED_FILE]
        return cache.key_of(dataset.file_parts(files))

    @functools.cached_property
    def _simulator_key(self) -> str:
        """The release's data (which classes, which functions) and every simulator module."""
        from twinbench import cache

        folder = self.release.root / "eval_checker" / "multi_turn_eval" / "func_source_code"
        modules = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix == ".py")
        from . import dataset

        return cache.key_of([self._input_key, *dataset.file_parts(modules, self.release.digests)])

    @functools.cached_property
    def _cache_key(self) -> str:
        from twinbench import cache

        parts = [self._simulator_key, _data_file("effects.yaml").read_bytes(), _data_file("curation.yaml").read_bytes()]
        if self.constructed is not None:
            parts += [str(self.constructed), self._constructed_key, f"only={self.constructed_only}"]
        return cache.key_of(parts)

    def cache_key(self) -> str:
        """Every file of the release that the items, the rule, the reader and the simulator read
        (the data, the constants, the function docs, every simulator module), and the label and
        curation files."""
        return self._cache_key

    def items(self) -> Sequence[Item]:
        return self._items

    def twin_hints(self, items: Sequence[Item]) -> Mapping[str, Sequence[str]]:
        """The base item of the same scenario index (verified by content in discovery)."""
        from . import dataset
        from .perturb import is_constructed, origin

        return {
            item.id: [f"{ID_PREFIX}base_{origin(item.id)[0] if is_constructed(item.id) else dataset.scenario_index(item.id)}"]
            for item in items
            if item.side is Side.ASK
        }

    # -- effects -----------------------------------------------------------------------------
    @functools.cached_property
    def _effect_table(self) -> EffectClassifier:
        """``effects.yaml``, parsed once per content (kept in the cache: no YAML parsing on a command's path)."""
        from twinbench import cache

        path = _data_file("effects.yaml")
        try:
            key = cache.key_of([path.read_bytes()])
        except OSError:
            return load_effect_table(path)  # it says what is wrong with the file
        return cache.cached("bfcl-effect-table", key, lambda: load_effect_table(path))

    @functools.cached_property
    def _effects(self) -> EffectClassifier:
        """The table's labels for the functions this release offers.

        A function the release offers but the table (written for 2026.3.23) lacks gets the
        source analyzer's label, derived from this release's own code, and says so.
        """
        table = self._effect_table
        verdicts = self.source_verdicts()
        functions = []
        for cls, names in self._facts.tools_by_class.items():
            for name in names:
                entry = table.function(name)
                if entry is not None:
                    functions.append(entry)
                    continue
                verdict = verdicts[name]
                functions.append(FunctionEffect(
                    name=name, owner=cls, label=Effect.MUTATE if verdict.writes else Effect.READ, origin="source",
                    reason=f"not in effects.yaml; derived from this release's code: {verdict.evidence}",
                ))
        return EffectClassifier(functions=tuple(functions), rules=table.rules)

    def effects(self) -> EffectClassifier:
        """The effect labels of every function this release offers."""
        return self._effects

    @functools.cached_property
    def _rule(self) -> EffectTableRule:
        return EffectTableRule(self._effects, qualifier=".", owners=self.function_owners(),
                               verdicts=self.source_verdicts())

    def rule(self) -> EffectTableRule:
        """A world-changing call (effect table, echo rule, source analysis); ``Cls.fn`` is ``fn``."""
        return self._rule

    @functools.cached_property
    def _source_verdicts(self) -> dict[str, SourceVerdict]:
        from twinbench import cache

        return cache.cached("bfcl-source-verdicts", self._simulator_key, self._analyse_sources)

    def _analyse_sources(self) -> dict[str, SourceVerdict]:
        out: dict[str, SourceVerdict] = {}
        for cls, names in self._facts.tools_by_class.items():
            path = self._facts.source_files[cls]
            try:
                out.update(analyze_source(path.read_text(encoding="utf-8"), cls, names))
            except (OSError, UnicodeDecodeError, SyntaxError, ValueError) as exc:
                raise AdapterError(f"cannot analyse the source of {cls} ({path}): {exc}") from exc
        return out

    def source_verdicts(self) -> dict[str, SourceVerdict]:
        """The source analyzer's verdict on every offered function, from this release's code."""
        return self._source_verdicts

    def function_owners(self) -> dict[str, str]:
        return {name: cls for cls, names in self._facts.tools_by_class.items() for name in names}

    # -- runs --------------------------------------------------------------------------------
    def for_run(self, run: RunRef) -> BFCLAdapter:
        """BFCL_v3 results are scored against the last v3 release, v4 against the default, unless chosen."""
        if self.release_chosen:
            return self
        release = LAST_V3_RELEASE if run.details.get("dataset") == "BFCL_v3" else DEFAULT_RELEASE
        if release not in self._siblings:
            sibling = BFCLAdapter(release=release, fetcher=self._fetcher)
            sibling._siblings = self._siblings
            self._siblings[release] = sibling
        return self._siblings[release]

    @functools.cached_property
    def _dialogue(self) -> dict[str, tuple[tuple[str, ...], ...]]:
        from twinbench import cache

        from .run_reader import dialogue_of

        # the record is keyed by the release alone, so it holds the release's items alone (with
        # --constructed-only too); constructed items are added here, from their own folder
        shipped = cache.cached("bfcl-dialogue", self._input_key, lambda: dialogue_of(self._shipped_items))
        if self.constructed is None:
            return shipped
        return {**shipped, **dialogue_of(self._constructed_items)}

    @functools.cached_property
    def _items_by_id(self) -> dict[str, Item]:
        return {item.id: item for item in self.items()}

    @functools.cached_property
    def _runs(self) -> runs.BFCLRuns:
        from .dataset import category_of
        from .runs import BFCLRuns

        return BFCLRuns(_DialogueOnUse(self), self.release.prefix, category_of,
                             lambda run: set(self.for_run(run).function_owners()))

    def runs(self) -> runs.BFCLRuns:
        return self._runs

    @functools.cached_property
    def _replayer(self):
        from .replay import BFCLReplayer

        return BFCLReplayer(self.data, self._items_by_id)

    def perturber(self):
        """Tool-removed twins of base items, written as bfcl-eval's own miss_func items (see :mod:`.perturb`)."""
        from .perturb import BFCLPerturber

        return BFCLPerturber(self, lambda out, only: BFCLAdapter(
            release=self.release_name, bfcl_root=self.bfcl_root, fetcher=self._fetcher,
            release_chosen=self.release_chosen, constructed=out, constructed_only=only))

    def replayer(self):
        """Parsed calls executed in this release's own simulator classes (see :mod:`.sandbox`)."""
        return self._replayer

    # -- curation ----------------------------------------------------------------------------
    def curation(self) -> Curation:
        return self._curation

    @functools.cached_property
    def _curation(self) -> Curation:
        import yaml

        path = _data_file("curation.yaml")
        try:
            spec = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise AdapterError(f"cannot read {path}: {exc}") from exc
        fingerprint = self._facts.fingerprint
        made_for = spec.get("made_for_release")
        if spec.get("fingerprint") == fingerprint:
            applies = True
            why = f"the data is identical to bfcl-eval {made_for}, which the curation was made for"
        else:
            applies = False
            why = (
                f"the curation was made for bfcl-eval {made_for}; this data "
                f"({self.release.describe()}) differs from it, so bad keys and certification are not applied"
            )

        def key(short: str) -> str:
            return ID_PREFIX + short

        compound = {
            key(k): CompoundTurn(
                withheld=tuple(v.get("withheld") or ()),
                independent=tuple(v.get("independent") or ()),
                gated=tuple(v.get("gated") or ()),
                reason="compound turn (Table E2)",
            )
            for k, v in (spec.get("compound_turns") or {}).items()
        }
        return Curation(
            name=f"twinbench BFCL curation for {made_for}",
            applies=applies,
            applies_reason=why,
            bad_keys={key(k): v for k, v in (spec.get("bad_keys") or {}).items()},
            construction_errors={key(k): v for k, v in (spec.get("construction_errors") or {}).items()},
            compound=compound,
            certified=self._approved,
            reviewed_all="every decision-bearing anchor was reviewed by hand for the paper (Appendix E)",
            unreviewed=self._unreviewed(),
        )

    def _unreviewed(self) -> dict[str, str]:
        if self.constructed is None:
            return {}
        from .perturb import REVIEW, VALUE_CATEGORY, VALUE_REVIEW

        return {item.id: VALUE_REVIEW if item.category == VALUE_CATEGORY else REVIEW
                for item in self._constructed_items if item.id not in self._approved}

    @functools.cached_property
    def _approved(self) -> dict[str, str]:
        """The value-removed rewrites a review approved (``reviewed.json`` in the constructed folder)."""
        if self.constructed is None:
            return {}
        from .perturb import read_reviewed

        return read_reviewed(self.constructed, {i.id: i for i in self._constructed_items})


class _DialogueOnUse(Mapping):
    """The user texts of every item's turns (what a logged dialogue is checked against), loaded when a
    run is first read: a rerun whose runs' decisions are all kept (see ``RunReader.sources``) loads
    none, and a forked worker loads this small table, not the items."""

    def __init__(self, adapter: BFCLAdapter) -> None:
        self._adapter = adapter

    def __getitem__(self, item_id: str) -> tuple[tuple[str, ...], ...]:
        return self._adapter._dialogue[item_id]

    def __iter__(self):
        return iter(self._adapter._dialogue)

    def __len__(self) -> int:
        return len(self._adapter._dialogue)
