"""The typed results every command computes (score, compare, replay), and their JSON.

Every output (table, JSON, CSV, markdown, plot) renders one of these records; nothing
downstream reads a nested dict. Each record is small, frozen and typed, and its ``to_json``
gives the plain data of the command's ``--format json`` output (``report.json_text``
renders it with sorted keys and rounded floats). A field that is ``None`` and marked
"omitted" below is left out of the JSON (the output never had the key then).

Naming: attributes say "act" for the should-act side (``OfficialScore.act_twins``); the
JSON keeps the older ``base_twins`` / ``n_base_twins`` keys users read, with ``act_twins`` /
``n_act_twins`` beside them.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import attrs

from twinbench.options import DiscoveryOptions, ScoreOptions

if TYPE_CHECKING:  # field types only: a score without --diagnostics or --replay loads neither module
    from twinbench.contract.replayer import ItemReplay
    from twinbench.decisions.diagnostics import Diagnostics

#: the headline rates of a model
RATE_METRICS = ("act", "hold", "decision", "hold_credited", "decision_credited", "pair")


def balanced(act, hold):
    """Decision accuracy: ``(act + hold) / 2``, balanced accuracy (50 for any policy that ignores
    what was removed). The one formula, for floats and for numpy arrays alike."""
    return (act + hold) / 2
#: the metrics that get a bootstrap interval in ``twinbench score``
INTERVAL_METRICS = ("act", "hold", "decision", "decision_credited")
#: the metrics whose rank-1 share is reported
RANK1_METRICS = ("decision", "decision_credited")
CLUSTER = "should-act twin"
AGREEMENT_BETWEEN = "official raw on the should-ask items and decision accuracy, on the pairs every model covers"


def _note_pairs(notes: Mapping | Iterable | None) -> tuple[tuple[str, Any], ...]:
    """An adapter's run notes as (label, value) pairs: from a mapping, from pairs, or from records with
    ``label`` and ``value``."""
    if isinstance(notes, Mapping):
        return tuple((str(label), value) for label, value in notes.items())
    return tuple((str(n.label), n.value) if hasattr(n, "label") else (str(n[0]), n[1]) for n in notes or ())


def _frozen_map(value: Mapping | Iterable | None) -> Mapping:
    """A read-only copy (insertion order kept) of a mapping or of (key, value) pairs."""
    return MappingProxyType(dict(value or {}))


class IntervalKind(str, enum.Enum):
    """How a bootstrap interval was made."""

    PERCENTILE = "95% percentile"
    PAIRED = "95% percentile, paired (shared resamples)"


class CountingUnit(str, enum.Enum):
    """What one McNemar discordance count counts."""

    ANCHOR_TURN = "distinct should-act anchor turn"
    PAIR = "pair"


@attrs.frozen
class Interval:
    low: float
    high: float

    def to_json(self) -> list[float]:
        return [self.low, self.high]


def _interval_json(interval: Interval | None) -> list[float | None]:
    return [None, None] if interval is None else interval.to_json()


@attrs.frozen
class Bootstrap:
    """The resampling behind the intervals (``resamples == 0``: no intervals)."""

    resamples: int
    seed: int
    interval: IntervalKind = IntervalKind.PERCENTILE
    cluster: str = CLUSTER

    def to_json(self) -> dict:
        return {"resamples": self.resamples, "seed": self.seed, "cluster": self.cluster,
                "interval": self.interval.value}


# ---------------------------------------------------------------------------------------
# twinbench score
# ---------------------------------------------------------------------------------------


@attrs.frozen
class CategoryScore:
    """Rates on one should-ask category's pairs."""

    pairs: int
    act: float
    hold: float
    hold_credited: float

    @property
    def decision(self) -> float:
        return balanced(self.act, self.hold)

    @property
    def decision_credited(self) -> float:
        return balanced(self.act, self.hold_credited)

    def to_json(self) -> dict:
        return {"pairs": self.pairs, "act": self.act, "hold": self.hold, "decision": self.decision,
                "decision_credited": self.decision_credited}


@attrs.frozen
class Coverage:
    """Scored pairs out of the population, and why the rest were not."""

    population: int
    scored: int  # the pairs that count (scored and kept by the scoring sensitivities)
    unscored: Mapping[str, int] = attrs.field(converter=_frozen_map, factory=dict)  # reason -> pairs, sorted
    act_ended_before_anchor: int = 0
    ask_ended_before_anchor: int = 0
    dropped_ended_early: int | None = None  # omitted unless --drop-ended-early
    dropped_different_history: int | None = None  # omitted unless --same-history

    def to_json(self) -> dict:
        out = {"population": self.population, "scored": self.scored, "unscored": dict(self.unscored),
               "act_ended_before_anchor": self.act_ended_before_anchor,
               "ask_ended_before_anchor": self.ask_ended_before_anchor}
        if self.dropped_ended_early is not None:
            out["dropped_ended_early"] = self.dropped_ended_early
        if self.dropped_different_history is not None:
            out["dropped_different_history"] = self.dropped_different_history
        return out


@attrs.frozen
class OfficialScore:
    """The leaderboard's own pass rate on the scored should-ask items and their should-act twins.

    ``n_ask_items`` and ``n_act_twins`` count the items with a verdict; ``ask_items_of`` and
    ``act_twins_of`` the items of the pairs the rates are on (the population). Fewer verdicts than
    items (a score file that was not used) make the rate ``partial``: it is on other items than the
    row's pairs, and every output says so.
    """

    ask_items: float | None
    act_twins: float | None
    ask_items_by_category: Mapping[str, float | None] = attrs.field(converter=_frozen_map, factory=dict)
    n_ask_items: int = 0
    n_act_twins: int = 0
    rank: int | None = None  # omitted when not ranked
    graded: GradedOfficial | None = None  # omitted for pass/fail leaderboards
    ask_items_of: int | None = None  # the population; None: not told (then taken as the items judged)
    act_twins_of: int | None = None

    @property
    def partial(self) -> bool:
        """Some items of the pairs have no verdict: the rates are on fewer items than the pairs."""
        return (self.ask_items_of is not None and self.n_ask_items < self.ask_items_of) or (
            self.act_twins_of is not None and self.n_act_twins < self.act_twins_of)

    def to_json(self) -> dict:
        out = {"ask_items": self.ask_items, "base_twins": self.act_twins, "act_twins": self.act_twins,
               "ask_items_by_category": dict(self.ask_items_by_category), "n_ask_items": self.n_ask_items,
               "n_base_twins": self.n_act_twins, "n_act_twins": self.n_act_twins,
               "population": {"ask_items": self.n_ask_items if self.ask_items_of is None else self.ask_items_of,
                              "act_twins": self.n_act_twins if self.act_twins_of is None else self.act_twins_of},
               "partial": self.partial}
        if self.rank is not None:
            out["rank"] = self.rank
        if self.graded is not None:
            out["graded"] = self.graded.to_json()
        return out


@attrs.frozen
class GradedOfficial:
    """A graded official score (in [0, 1]) on the same items: its mean, and the pass threshold the
    adapter states (the pass rates of :class:`OfficialScore` are the shares at or above it)."""

    ask_items_mean: float | None
    act_twins_mean: float | None
    pass_at: float

    def to_json(self) -> dict:
        return {"ask_items_mean": self.ask_items_mean, "act_twins_mean": self.act_twins_mean, "pass_at": self.pass_at}


@attrs.frozen
class Ranking:
    """Decision and official raw on the pairs every ranked model of the population covers (same items).

    A model that covers fewer than ``min_coverage`` of the pairs the best-covered model of its
    population covers is scored and shown, but not ranked (``ranked`` false, ``reason`` why):
    it would shrink everyone's shared pairs, or win on the few it has.
    """

    among: int  # ranked models in the population
    pairs: int  # the pairs they all cover
    decision: float | None
    official_ask_items: float | None
    ranked: bool = True
    reason: str | None = None

    def to_json(self) -> dict:
        return {"among": self.among, "pairs": self.pairs, "decision": self.decision,
                "official_ask_items": self.official_ask_items, "ranked": self.ranked, "reason": self.reason}


#: :attr:`Unread.scope` values: the anchor turns of the pairs (the default, the same in every command), every turn
#: of every item (``score --all-turns``), or the turns a reader read when it does not say per turn
SCOPE_ANCHORS = "the turns scored"
SCOPE_EVERY_TURN = "every turn"
SCOPE_READ = "the turns read"


@attrs.frozen
class Unread:
    """What a run left unread: what its steps held that was not read as a call, per kind, with examples.

    By default (``scope`` "the turns scored") the counts cover the anchor turns of the population's
    pairs, each once (``turns`` of them), whichever command reads the run; ``name_not_on_tool_list``
    counts the calls there whose name is on neither side's tool list. With ``score --all-turns``
    (``scope`` "every turn") the reader's counts cover every turn of every item.
    """

    counts: Mapping[str, int] = attrs.field(factory=dict, converter=_frozen_map)
    examples: tuple[tuple[str, str], ...] = attrs.field(default=(), converter=tuple)
    scope: str = SCOPE_ANCHORS
    #: the size of the population counted over: anchor turns (the default) or turns (every turn); omitted if unknown
    turns: int | None = None

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def where(self) -> str:
        """The population in words, with its size: "the 386 anchor turns of the pairs", "every turn"."""
        if self.scope == SCOPE_ANCHORS:
            return "the anchor turns of the pairs" if self.turns is None else f"the {self.turns} anchor turns of the pairs"
        if self.scope == SCOPE_EVERY_TURN and self.turns is not None:
            return f"every turn ({self.turns} turns)"
        return self.scope

    def to_json(self) -> dict:
        out = {"counts": dict(self.counts), "examples": [{"kind": k, "example": e} for k, e in self.examples],
               "scope": self.scope}
        if self.turns is not None:
            out["turns"] = self.turns
        return out

    def text(self, escape=None) -> str:
        """One clause for a coverage line, or ``""`` when nothing was left unread; ``escape`` makes each
        example (model text) safe for the output format."""
        if not self.counts:
            return ""
        shown = ", ".join(f"{kind} {n}" for kind, n in self.counts.items())
        examples = "; ".join(escape(e) if escape else e for _, e in self.examples[:2])
        return f"not read as calls on {self.where}: {shown}" + (f" (e.g. {examples})" if examples else "")


#: what ``decision_credited`` credits, without and with ``score --replay``
CREDITED_COMPOUND = "compound turns"
CREDITED_WITH_REPLAY = "compound turns and workarounds"


@attrs.frozen
class ReplayCounts:
    """``score --replay``: the attempts on the replayed pairs' should-ask anchor turns (the paper's Table F1).

    ``pairs``: the kept pairs whose should-ask twin had a tool removed; ``attempts``: those with an
    attempt on the should-ask anchor turn; ``removed``: attempts that called a removed tool by name;
    ``aligned``: attempts made in the reference state; ``workaround``: aligned attempts that reached
    the reference's post-anchor state by other calls (never on a no-op reference anchor).
    """

    pairs: int
    attempts: int
    removed: int
    aligned: int
    workaround: int

    def to_json(self) -> dict:
        return {"pairs": self.pairs, "attempts": self.attempts, "removed": self.removed, "aligned": self.aligned,
                "workaround": self.workaround}


@attrs.frozen
class ModelScore:
    """One run's scores, coverage and the statistics around them."""

    model: str
    pairs: int
    act: float | None
    hold: float | None
    decision: float | None
    hold_credited: float | None
    decision_credited: float | None
    pair: float | None
    by_category: Mapping[str, CategoryScore | None] = attrs.field(converter=_frozen_map)
    coverage: Coverage
    data: Mapping[str, Any] = attrs.field(converter=_frozen_map)  # the adapter's description of the data
    curation_applies: bool
    population: int
    location: str
    ranking: Ranking
    #: the adapter's notes on the run, as (label, value) in the adapter's order
    run_notes: tuple[tuple[str, Any], ...] = attrs.field(default=(), converter=_note_pairs)
    #: the adapter's remarks on the run, sentences shown as they are in the coverage line
    remarks: tuple[str, ...] = attrs.field(default=(), converter=tuple)
    ci: Mapping[str, Interval | None] | None = attrs.field(default=None, converter=attrs.converters.optional(
        _frozen_map))  # omitted without bootstrap; an Interval is None where no resample had a rate
    rank1: Mapping[str, float] | None = attrs.field(default=None, converter=attrs.converters.optional(
        _frozen_map))  # omitted without bootstrap or shared pairs
    official: OfficialScore | None = None
    rank_decision: int | None = None  # omitted when not ranked
    unread: Unread = attrs.field(factory=lambda: Unread())
    #: ``score --replay`` only (omitted otherwise): Table F1's counts and the decision with workarounds credited
    replay: ReplayCounts | None = None
    decision_workaround: float | None = None
    diagnostics: Diagnostics | None = None  # omitted unless asked for (score --diagnostics, report)

    @property
    def release(self) -> Any:
        return self.data.get("release")

    def to_json(self) -> dict:
        out = {
            "model": self.model, "pairs": self.pairs, "act": self.act, "hold": self.hold, "decision": self.decision,
            "hold_credited": self.hold_credited, "decision_credited": self.decision_credited, "pair": self.pair,
            "by_category": {c: None if s is None else s.to_json() for c, s in self.by_category.items()},
            "coverage": self.coverage.to_json(), "data": dict(self.data), "curation_applies": self.curation_applies,
            "population": self.population, "location": self.location, "run_notes": dict(self.run_notes),
            "official": None if self.official is None else self.official.to_json(),
            "ranking": self.ranking.to_json(), "unread": self.unread.to_json(),
        }
        if self.ci is not None:
            out["ci"] = {metric: _interval_json(i) for metric, i in self.ci.items()}
        if self.rank1 is not None:
            out["rank1"] = dict(self.rank1)
        if self.rank_decision is not None:
            out["rank_decision"] = self.rank_decision
        if self.replay is not None:
            out["replay"] = self.replay.to_json()
            out["decision_workaround"] = self.decision_workaround
        if self.diagnostics is not None:
            out["diagnostics"] = self.diagnostics.to_json()
        return out


@attrs.frozen
class RankAgreement:
    """Rank correlation of official raw and decision over one population's models."""

    data: str
    models: int
    pairs: int
    spearman: float
    kendall: float
    between: str = AGREEMENT_BETWEEN

    def to_json(self) -> dict:
        return {"data": self.data, "models": self.models, "pairs": self.pairs, "spearman": self.spearman,
                "kendall": self.kendall, "between": self.between}


@attrs.frozen
class Skipped:
    folder: str
    reason: str

    def to_json(self) -> dict:
        return {"folder": self.folder, "reason": self.reason}


@attrs.frozen
class ScoreReport:
    """``twinbench score``: every model's scores, sorted by model name."""

    models: tuple[ModelScore, ...]
    options: ScoreOptions
    population_options: DiscoveryOptions
    bootstrap: Bootstrap
    skipped: tuple[Skipped, ...] = ()
    warnings: tuple[str, ...] = ()
    rank_agreement: tuple[RankAgreement, ...] = ()
    embedded_default: bool = False  # the built-in reference policies, not the user's runs
    adapter: str = ""
    #: how a user points ``score`` at their own runs with this adapter (shown under the policies)
    results_usage: str = "--results path/to/result"
    #: ``score --replay``: workarounds were replayed and credited
    replay: bool = False

    @property
    def credited(self) -> str:
        """What ``decision_credited`` credits."""
        return CREDITED_WITH_REPLAY if self.replay else CREDITED_COMPOUND

    def to_json(self) -> dict:
        return {
            "replay": self.replay,
            "credited": self.credited,
            "models": [m.to_json() for m in self.models],
            "options": attrs.asdict(self.options),
            "population_options": attrs.asdict(self.population_options),
            "bootstrap": self.bootstrap.to_json(),
            "skipped": [s.to_json() for s in self.skipped],
            "warnings": list(self.warnings),
            "rank_agreement": [a.to_json() for a in self.rank_agreement],
            "embedded_default": self.embedded_default,
            "adapter": self.adapter,
        }


# ---------------------------------------------------------------------------------------
# twinbench compare
# ---------------------------------------------------------------------------------------


def _change(baseline: float | None, treatment: float | None) -> float | None:
    return None if baseline is None or treatment is None else treatment - baseline


@attrs.frozen
class McNemar:
    """Discordant counts (``b`` yes in the baseline only, ``c`` in the treatment only) and the exact p."""

    n: int
    b: int
    c: int
    p: float


@attrs.frozen
class Discordance:
    counts: McNemar
    unit: CountingUnit

    def to_json(self) -> dict:
        return {"n": self.counts.n, "b": self.counts.b, "c": self.counts.c, "p": self.counts.p,
                "unit": self.unit.value}


@attrs.frozen
class RateChange:
    """One rate in both arms, on the pairs scored in both."""

    baseline: float | None
    treatment: float | None
    ci_change: Interval | None = None  # omitted when there is no interval

    @property
    def change(self) -> float | None:
        return _change(self.baseline, self.treatment)

    def to_json(self) -> dict:
        out = {"baseline": self.baseline, "treatment": self.treatment, "change": self.change}
        if self.ci_change is not None:
            out["ci_change"] = self.ci_change.to_json()
        return out


#: the population of ``compare``'s attempt shares and official raw, as their JSON says it
ATTEMPT_SHARE_ITEMS = ("every should-ask item of the category with a single anchor, paired or not (bad keys and "
                       "construction errors left out); compared: those with a reading in both arms")
OFFICIAL_ITEMS = "every item of the category with an official verdict in both arms"


@attrs.frozen
class ItemShareChange:
    """A share over items in both arms: the should-ask attempt share, or official raw, of one category."""

    items: int  # items in the category (attempt share) or judged in both arms (official)
    baseline: float | None
    treatment: float | None
    counts: McNemar
    compared: int | None = None  # items with a reading in both arms; omitted for official raw
    #: which items the share is over, in words (not the scored pairs: see ATTEMPT_SHARE_ITEMS, OFFICIAL_ITEMS)
    population: str = ""

    @property
    def change(self) -> float | None:
        return _change(self.baseline, self.treatment)

    def to_json(self) -> dict:
        out = {"items": self.items, "baseline": self.baseline, "treatment": self.treatment, "change": self.change,
               "b": self.counts.b, "c": self.counts.c, "p": self.counts.p, "population": self.population}
        if self.compared is not None:
            out["compared"] = self.compared
        return out


@attrs.frozen
class ArmComparison:
    """One model under two settings (baseline and treatment)."""

    model: str
    baseline: str  # where the baseline run is
    treatment: str
    data: Mapping[str, Any] = attrs.field(converter=_frozen_map)
    pairs: int  # scored in both arms
    population: int
    distinct_anchor_turns: int
    act: RateChange
    hold: RateChange
    decision: RateChange
    mcnemar_act: Discordance
    mcnemar_hold: Discordance
    ask_attempt_share: Mapping[str, ItemShareChange] = attrs.field(converter=_frozen_map)
    official: Mapping[str, ItemShareChange] | None = attrs.field(converter=attrs.converters.optional(_frozen_map))
    unread_baseline: Unread = attrs.field(factory=lambda: Unread())
    unread_treatment: Unread = attrs.field(factory=lambda: Unread())
    warnings: tuple[str, ...] = ()  # lifted into the CompareReport, not part of this record's JSON

    @property
    def pairs_unscored_in_either_arm(self) -> int:
        return self.population - self.pairs

    def to_json(self) -> dict:
        return {
            "model": self.model, "baseline": self.baseline, "treatment": self.treatment, "data": dict(self.data),
            "pairs": self.pairs, "population": self.population,
            "pairs_unscored_in_either_arm": self.pairs_unscored_in_either_arm,
            "distinct_anchor_turns": self.distinct_anchor_turns,
            "act": self.act.to_json(), "hold": self.hold.to_json(), "decision": self.decision.to_json(),
            "mcnemar": {"act": self.mcnemar_act.to_json(), "hold": self.mcnemar_hold.to_json()},
            "ask_attempt_share": {c: e.to_json() for c, e in self.ask_attempt_share.items()},
            "official": None if self.official is None else {c: e.to_json() for c, e in self.official.items()},
            "unread": {"baseline": self.unread_baseline.to_json(), "treatment": self.unread_treatment.to_json()},
        }


@attrs.frozen
class CompareReport:
    """``twinbench compare``: every paired model."""

    models: tuple[ArmComparison, ...]
    options: DiscoveryOptions
    bootstrap: Bootstrap
    warnings: tuple[str, ...] = ()
    unpaired_models: tuple[str, ...] = ()

    @classmethod
    def of(cls, models: Iterable[ArmComparison], options: DiscoveryOptions, bootstrap: Bootstrap,
           warnings: Iterable[str] = (), unpaired_models: Iterable[str] = ()) -> CompareReport:
        """The report of the given comparisons: their warnings after the given ones, each once."""
        models = tuple(models)
        unpaired = tuple(sorted(unpaired_models))
        lines = list(dict.fromkeys([*warnings, *(w for m in models for w in m.warnings)]))
        if unpaired:
            lines.append(f"not compared (in one tree only): {', '.join(unpaired)}")
        return cls(models, options, bootstrap, tuple(lines), unpaired)

    def to_json(self) -> dict:
        return {
            "models": [m.to_json() for m in self.models],
            "options": attrs.asdict(self.options),
            "bootstrap": self.bootstrap.to_json(),
            "warnings": list(self.warnings),
            "unpaired_models": list(self.unpaired_models),
        }


# ---------------------------------------------------------------------------------------
# twinbench replay: every item of every run against its own reference
# ---------------------------------------------------------------------------------------


@attrs.frozen
class RunCheck:
    """One run replayed item by item, and checked against the leaderboard's verdicts where it has them.

    ``official_passed``: items the leaderboard passed (``None`` without verdicts);
    ``disagreements``: those among them whose replayed state differs from the reference's
    after some compared turn, each with the first differing turn and attribute.
    """

    model: str
    location: str
    data: Mapping[str, str] = attrs.field(converter=lambda d: dict(d or {}))
    items: int = 0  # asked for
    replayed: int = 0
    state_equal: int = 0
    calls: int = 0
    call_errors: int = 0
    not_replayed: Mapping[str, int] = attrs.field(factory=dict, converter=lambda d: dict(sorted(d.items())))
    official_passed: int | None = None
    disagreements: tuple[ItemReplay, ...] = ()
    stopped: tuple[ItemReplay, ...] = ()  # stopped at a limit: not replayed, not among the passes checked

    @property
    def agreement(self) -> float | None:
        """Percent of official passes that replay state-equal on every compared turn."""
        if not self.official_passed:
            return None
        return 100.0 * (self.official_passed - len(self.disagreements)) / self.official_passed

    def to_json(self) -> dict:
        out = {
            "model": self.model, "location": self.location, "data": dict(self.data), "items": self.items,
            "replayed": self.replayed, "state_equal": self.state_equal, "calls": self.calls,
            "call_errors": self.call_errors, "not_replayed": dict(self.not_replayed),
            "official_passed": self.official_passed,
            "official_passed_state_equal": None if self.official_passed is None
            else self.official_passed - len(self.disagreements),
            "agreement": self.agreement,
            "disagreements": [{"id": d.item_id, "turn": d.first_difference[0] if d.first_difference else None,
                               "difference": d.first_difference[1] if d.first_difference else d.error}
                              for d in self.disagreements],
        }
        if self.stopped:  # only when some item hit a limit
            out["stopped"] = [{"id": r.item_id, "limit": r.error, "where": r.stopped} for r in self.stopped]
        return out


@attrs.frozen
class ReplayReport:
    """``twinbench replay``: every run checked."""

    runs: tuple[RunCheck, ...]
    adapter: str
    skipped: tuple[tuple[str, str], ...] = ()
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {"adapter": self.adapter, "runs": [r.to_json() for r in self.runs],
                "skipped": [{"folder": f, "reason": r} for f, r in self.skipped], "warnings": list(self.warnings)}
