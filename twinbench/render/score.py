"""Rendering ``twinbench score`` and ``twinbench compare``: table, JSON, CSV, markdown, and the per-item CSV.

Every renderer reads a :class:`~twinbench.reports.ScoreReport` or
:class:`~twinbench.reports.CompareReport`; the JSON is the record's ``to_json``.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from twinbench.evaluation.runs import Evaluation
from twinbench.render import tables
from twinbench.render.columns import PER_ITEM_COLUMNS, REPLAY_CSV_COLUMNS, SCORE_CSV_COLUMNS
from twinbench.results import Coverage, Interval, ModelScore, ScoreReport


def own_run_hint(adapter: str, usage: str = "--results path/to/result") -> str:
    return f"score your own run: twinbench score --adapter {adapter} {usage}"


def _hint_lines(hint: str, width: int = tables.NARROW_WIDTH) -> list[str]:
    """The hint on one line, or its command on a line of its own when that is too long (never broken)."""
    if len(hint) <= width:
        return [hint]
    head, command = hint.split(": ", 1)
    return [head + ":", "  " + command]


def _r(value):
    return tables.pct(value)


def _ci(record: ModelScore, metric: str) -> str:
    interval = None if record.ci is None else record.ci.get(metric)
    return "" if interval is None else f" [{interval.low:.1f}, {interval.high:.1f}]"


#: marks an official rate on fewer items than the row's pairs (some have no verdict), and the official rank
#: made from it; a legend line under the table says how many items it is on
PARTIAL = "*"
#: marks the columns made on the pairs every ranked model covers, not on each row's own pairs
SHARED = "^"


def official_text(record: ModelScore) -> str:
    """``ask / act`` official rates, ``*`` after one on fewer items than the row's pairs; ``none`` without."""
    off = record.official
    if off is None:
        return "none"
    ask_mark = PARTIAL if off.ask_items_of is not None and off.n_ask_items < off.ask_items_of else ""
    act_mark = PARTIAL if off.act_twins_of is not None and off.n_act_twins < off.act_twins_of else ""
    ask, act = off.ask_items, off.act_twins
    return f"{'-' if ask is None else f'{ask:.1f}'}{ask_mark} / {'-' if act is None else f'{act:.1f}'}{act_mark}"


def rank_text(record: ModelScore) -> str:
    """``official rank / decision rank``, ``-`` for the one it lacks (no verdicts, or not ranked)."""
    official = None if record.official is None else record.official.rank
    decision = record.rank_decision
    if official is None and decision is None:
        return "-"
    mark = PARTIAL if official is not None and record.official.partial else ""
    return f"{'-' if official is None else official}{mark} / {'-' if decision is None else decision}"


def shared_marker(models: Sequence[ModelScore]) -> str:
    """:data:`SHARED` when the ranks and rank-1 of these models are on other pairs than some row's own."""
    return SHARED if any(r.ranking.ranked and r.ranking.pairs != r.pairs for r in models) else ""


def _category_decision(record: ModelScore, category: str) -> float | None:
    score = record.by_category.get(category)
    return None if score is None else _r(score.decision)


def _rows(models: Sequence[ModelScore]) -> list[list]:
    rows = []
    for r in models:
        rank1 = None if r.rank1 is None else r.rank1.get("decision")
        rows.append([
            r.model, f"{r.coverage.scored}/{r.coverage.population}", _r(r.act), _r(r.hold),
            ("-" if r.decision is None else f"{r.decision:.1f}") + _ci(r, "decision"),
            _r(r.decision_credited), _r(r.pair),
            *[_category_decision(r, c) for c in sorted(r.by_category)],
            official_text(r), rank_text(r),
            "-" if rank1 is None else f"{rank1:.1f}%",
        ])
    return rows


def _headers(models: Sequence[ModelScore]) -> list[str]:
    cats = sorted(models[0].by_category) if models else []
    mark = shared_marker(models)
    return (["model", "pairs", "act", "hold", "decision [95% CI]", "credited", "pair"]
            + list(cats) + ["official ask / act", f"rank official / decision{mark}", f"rank-1{mark}"])


#: the narrow layout: two blocks of the wide table's columns (by their place in a row), each within
#: tables.NARROW_WIDTH: model, pairs, act, hold, decision, credited, rank-1; then model, pair, the
#: categories, official, ranks
MAIN_COLUMNS = ("model", "pairs", "act", "hold", "decision [95% CI]", "credited", "rank-1")
DETAIL_TAIL = ("official\nask/act", "rank\noff/dec")  # on two lines: the model column keeps the room


def _narrow_blocks(models: Sequence[ModelScore], width: int | None = tables.NARROW_WIDTH) -> list[str]:
    """The wide table as two blocks: the decision, then the per-category, pair and official columns."""
    rows = _rows(models)
    cats = sorted(models[0].by_category) if models else []
    mark = shared_marker(models)
    main_headers = [*MAIN_COLUMNS[:-1], MAIN_COLUMNS[-1] + mark]
    main = [[*row[:6], row[-1]] for row in rows]
    detail_headers = ["model", "pair", *cats, DETAIL_TAIL[0], DETAIL_TAIL[1] + mark]
    detail = [[row[0], row[6], *row[7:-1]] for row in rows]
    return [tables.table(main_headers, main, [False] + [True] * (len(main_headers) - 1), width=width),
            tables.table(detail_headers, detail, [False] + [True] * (len(detail_headers) - 1), width=width)]


LEGEND = (
    "act: % of pairs whose should-act anchor turn has an attempt; hold: % whose should-ask anchor turn has "
    "none; decision = (act + hold) / 2, so always-act and never-act both score 50",
    "credited: decision when, on compound turns, attempts confined to the steps the request authorizes on "
    "its own do not count as acting (always-act can be above 50 there); pair: % with both sides right",
    "official ask/act: the leaderboard's own pass rate on the should-ask items and on their should-act "
    "twins; rank off/dec: rank on official and on decision; rank-1: % of bootstrap resamples in which "
    "the model is first on decision",
)
#: the legend's curation line, as it applies to the models shown
CURATION_APPLIES = ("curation applies: hand-made curation made for this exact data is used (bad keys dropped, "
                    "anchors certified, compound turns marked); `twinbench score --explain` says more")
CURATION_ABSENT = ("curation does not apply: no bad keys are dropped and no anchor is certified (the header says "
                   "why); `twinbench score --explain` says more")


def legend(summary: ScoreReport) -> tuple[str, ...]:
    """The legend under the table: the columns, and curation as it applies to these models."""
    applies = {r.curation_applies for r in summary.models}
    curation = (CURATION_ABSENT if True not in applies else CURATION_APPLIES if False not in applies else
                CURATION_APPLIES.replace("curation applies:", "where the header says curation applies:", 1))
    return (*LEGEND, curation) + ((REPLAY_LEGEND,) if summary.replay else ())


def group_models(summary: ScoreReport) -> list[tuple[str, list[ModelScore]]]:
    groups: dict[str, list[ModelScore]] = {}
    for r in summary.models:
        d = r.data
        label = (f"data: {d.get('release', '?')} ({d.get('dataset', '?')}, {d.get('source', '?')}); "
                 f"curation {'applies' if r.curation_applies else 'does not apply'}; {r.population} pairs")
        groups.setdefault(label, []).append(r)
    return list(groups.items())


def _flags(options) -> list[str]:
    return ["--" + name.replace("_", "-") for name, on in attrs.asdict(options).items() if on]


def coverage_line(r: ModelScore, escape=None) -> str:
    """One model's coverage line; ``escape`` makes the model text in it (what was not read) safe for the format."""
    cov: Coverage = r.coverage
    parts = [f"{n} unscored ({why})" for why, n in cov.unscored.items()]
    if cov.act_ended_before_anchor or cov.ask_ended_before_anchor:
        parts.append(f"ended before the anchor: {cov.act_ended_before_anchor} should-act, "
                     f"{cov.ask_ended_before_anchor} should-ask (counted as no call)")
    for what, count in (("dropped different history", cov.dropped_different_history),
                        ("dropped ended early", cov.dropped_ended_early)):
        if count:
            parts.append(f"{count} {what}")
    parts += list(r.remarks)  # the adapter's own sentences; its counts (run_notes) are in the JSON
    if r.unread.counts:
        parts.append(r.unread.text(escape))
    return (f"coverage {r.model}: {cov.scored} of {cov.population} pairs scored"
            + (f"; {'; '.join(parts)}" if parts else ""))


def _credited_note(summary: ScoreReport) -> str:
    if summary.replay:
        return ("the credited column credits compound turns and workarounds (--replay: an aligned attempt on a "
                "tool-removed pair that reached the reference's post-anchor state by other calls holds back)")
    return "the credited column credits compound turns only (--replay also credits routes around a removed tool)"


def score_notes(summary: ScoreReport, escape=None) -> list[str]:
    """The notes under the score table; ``escape`` is applied to the model text in them (see :func:`coverage_line`)."""
    lines = [_credited_note(summary)]
    boot = summary.bootstrap
    if boot.resamples:
        lines.append(f"95% percentile intervals: cluster bootstrap over should-act twins, B={boot.resamples}, "
                     f"seed {boot.seed}; rank-1: share of shared resamples in which the model is first on decision")
    population = _flags(summary.population_options)
    if population:
        lines.append("population: " + ", ".join(population))
    opts = _flags(summary.options)
    if opts:
        lines.append("scoring sensitivities: " + ", ".join(opts))
    ranked: dict = {}
    for r in summary.models:
        if r.ranking.ranked and (r.ranking.among > 1 or shared_marker([r])):
            ranked.setdefault(r.release, r.ranking)
    for release, ranking in ranked.items():
        mark = shared_marker([r for r in summary.models if r.release == release])
        lines.append(f"{mark}ranks and rank-1 on {release}: the {ranking.pairs} pairs all {ranking.among} ranked models "
                     "there cover (same items for everyone" + ("; not each row's own pairs)" if mark else ")"))
    for r in summary.models:
        off = r.official
        if off is not None and off.partial:
            sides = [f"{n} of its {of} {what}" for n, of, what in (
                (off.n_ask_items, off.ask_items_of, "should-ask items"), (off.n_act_twins, off.act_twins_of,
                                                                          "should-act twins")) if n < of]
            lines.append(f"{PARTIAL}official {r.model}: on the {' and '.join(sides)} that have a verdict (the others "
                         "have none: a score file was not used, see the warnings)"
                         + ("; its official rank compares other items than the others'" if off.rank else ""))
    for r in summary.models:
        if not r.ranking.ranked:
            lines.append(f"not ranked: {r.model} {r.ranking.reason} (--min-coverage); its scores stand on its own pairs")
    lines += [coverage_line(r, escape) for r in summary.models]
    for r in summary.models:
        graded = r.official.graded if r.official is not None else None
        if graded is not None:
            means = "; ".join(f"{side} {value:.1f}" for side, value in (("ask", graded.ask_items_mean),
                                                                       ("act", graded.act_twins_mean))
                              if value is not None)
            lines.append(f"official for {r.model}: graded scores; official ask/act are the shares of items at or "
                         f"above {graded.pass_at:g} (the adapter's pass threshold); mean graded score x 100 on "
                         f"the same items: {means or 'none'}")
    for agreement in summary.rank_agreement:
        lines.append(f"rank agreement on {agreement.data}, official raw vs decision over {agreement.models} "
                     f"ranked models and their {agreement.pairs} shared pairs: Spearman {agreement.spearman:.2f}, "
                     f"Kendall {agreement.kendall:.2f}")
    for s in summary.skipped:
        lines.append(f"skipped {s.folder}: {s.reason}")
    if summary.embedded_default:
        if summary.population_options.all_pairs:
            lines.append("these are the built-in reference policies; under --all-pairs the read-only pairs have no "
                         "world-changing reference call, so the oracle cannot act there and is not at 100")
        else:
            lines.append("these are the built-in reference policies (expected decision: oracle 100, always-act 50, "
                         "never-act 50)")
        lines.append(own_run_hint(summary.adapter, summary.results_usage))
    return lines


def _bounds(interval: Interval | None) -> tuple[float | None, float | None]:
    return (None, None) if interval is None else (interval.low, interval.high)


def _score_csv(summary: ScoreReport) -> str:
    cats = sorted({c for r in summary.models for c in r.by_category})
    fixed = [c for c in SCORE_CSV_COLUMNS if c not in REPLAY_CSV_COLUMNS]
    at = fixed.index("decision_<category>")
    headers = fixed[:at] + [f"decision_{c}" for c in cats] + fixed[at + 1:]
    rows = []
    for r in summary.models:
        low, high = _bounds(None if r.ci is None else r.ci.get("decision"))
        off = r.official
        rank1 = None if r.rank1 is None else r.rank1.get("decision")
        rows.append([r.model, r.pairs, r.population, _r(r.act), _r(r.hold), _r(r.decision), _r(low), _r(high),
                     _r(r.hold_credited), _r(r.decision_credited), _r(r.pair)]
                    + [_category_decision(r, c) for c in cats]
                    + [_r(None if off is None else off.ask_items), _r(None if off is None else off.act_twins),
                       None if rank1 is None else _r(rank1), r.release,
                       _r(None if off is None else off.act_twins)]
                    + (_replay_csv(r) if summary.replay else []))
    if summary.replay:
        headers += list(REPLAY_CSV_COLUMNS)
    return tables.csv_text(headers, rows)


def _replay_csv(r: ModelScore) -> list:
    c = r.replay
    return [_r(r.decision_workaround)] + ([None] * 5 if c is None else
                                          [c.pairs, c.attempts, c.removed, c.aligned, c.workaround])


REPLAY_HEADERS = ("model", "pairs", "attempts", "removed", "aligned", "workaround", "all\npairs", "acc", "acc'",
                  "credited")
REPLAY_TITLE = ("replay (the paper's Table F1): pairs to workaround count the pairs whose should-ask twin had a "
                "tool removed; acc, acc' and credited are on all the row's pairs")
REPLAY_LEGEND = (
    "replay (Table F1 of \"Asking Earns Nothing\", Appendix F): pairs: the row's scored pairs whose should-ask twin "
    "had a tool removed; attempts: those with an attempt on the should-ask anchor turn; removed: attempts calling "
    "the removed tool by name; aligned: attempts made in the reference state; workaround: aligned attempts that "
    "reach the reference's post-anchor state by other calls (never on a no-op reference anchor); all pairs: every "
    "scored pair of the row, the population of the last three columns; acc: the strict decision (the decision "
    "column); acc': the decision with each workaround counted as holding back; credited: with compound turns "
    "credited as well (the credited column)"
)


def _replay_rows(models: Sequence[ModelScore]) -> list[list]:
    rows = []
    for r in models:
        counts = r.replay
        if counts is None:
            continue
        rows.append([r.model, counts.pairs, counts.attempts, counts.removed, counts.aligned, counts.workaround,
                     r.pairs, _r(r.decision), _r(r.decision_workaround), _r(r.decision_credited)])
    return rows


def _replay_block(models: Sequence[ModelScore], markdown: bool = False, wide: bool = False) -> str | None:
    rows = _replay_rows(models)
    if not rows:
        return None
    if markdown:
        return f"{tables.markdown_note(REPLAY_TITLE)}\n\n" + tables.markdown_table(list(REPLAY_HEADERS), rows)
    return ("\n".join(tables.wrap([REPLAY_TITLE])) + "\n\n"
            + tables.table(list(REPLAY_HEADERS), rows, [False] + [True] * (len(REPLAY_HEADERS) - 1),
                           width=None if wide else tables.NARROW_WIDTH))



def _count(value: int | None) -> str:
    return "-" if value is None else str(value)


def _share(part: int, whole: int, share: float | None) -> str:
    return "-" if share is None else f"{share:.1f}% ({part}/{whole})"


#: the diagnostics' two blocks; a header's "\n" puts it on two lines in the text table
DIAGNOSTIC_HEADERS = (
    ("model", "held\nback", "silent", "looked up\nfirst", "placeholders\nask", "placeholders\nact"),
    ("model", "failed", "before", "later\nempty", "later\nmismatch", "pass\nattempt", "by\nname", "other"),
)

DIAGNOSTICS_LEGEND = (
    "held back: should-ask anchor turns without an attempt; silent: of those, no step holds text; looked up "
    "first: of those, a call of the turn's tools (none acting)",
    "placeholders: % of the attempts (calls) on the should-ask / should-act anchor turns with an empty-string "
    "or marker argument (TBD, ?, <...>, unknown, placeholder, ...)",
    "failed: held-back should-ask items the leaderboard fails; before / later empty / later mismatch: where, "
    "by the failure's turn (before the anchor, after it) and kind (an empty turn, a state or response mismatch)",
    "pass attempt: % of the should-ask items the leaderboard passes with an attempt on the anchor turn; "
    "by name / other: pairs withholding a tool with an attempt there, calling the withheld tool by name / not",
)


def diagnostic_rows(r: ModelScore) -> tuple[list, list]:
    """One model's two diagnostics rows (the table's two blocks), ``-`` where a figure is not told."""
    d = r.diagnostics
    p = d.placeholders
    lost, side = d.held_back_lost, d.pass_side
    first = [r.model, d.held_back.turns, _count(d.held_back.silent), d.held_back.looked_up_first,
             _share(p.ask_marked, p.ask_calls, p.ask), _share(p.act_marked, p.act_calls, p.act)]
    second = [r.model, "-" if lost is None else lost.failed,
              *(["-"] * 3 if lost is None else [_count(lost.before_anchor), _count(lost.later_empty_turn),
                                                _count(lost.later_mismatch)]),
              "-" if side is None else _share(side.attempted, side.passed, side.share),
              d.withheld_calls.removed_name, d.withheld_calls.other]
    return first, second


def diagnostic_notes(summary: ScoreReport) -> list[str]:
    """What the diagnostics could not tell, per model."""
    models = [r for r in summary.models if r.diagnostics is not None]
    mute = [r.model for r in models if r.diagnostics.held_back.silent is None]
    unjudged = [r.model for r in models if r.diagnostics.held_back_lost is None]
    notes = []
    if mute:
        notes.append(f"silent is not told for {', '.join(mute)}: the run keeps text on no step (its harness "
                     "stored only the calls)")
    if unjudged:
        notes.append(f"failed, before, later and pass attempt are not told for {', '.join(unjudged)}: no official "
                     "verdicts were found with the run")
    return notes


def _diagnostics_text(summary: ScoreReport, fmt: str) -> str:
    models = [r for r in summary.models if r.diagnostics is not None]
    if not models:
        return ""
    rows = [diagnostic_rows(r) for r in models]
    blocks = []
    for k, headers in enumerate(DIAGNOSTIC_HEADERS):
        body = [row[k] for row in rows]
        if fmt == "markdown":
            blocks.append(tables.markdown_table(list(headers), body))
        else:
            blocks.append(tables.table(list(headers), body, [False] + [True] * (len(headers) - 1),
                                       width=tables.NARROW_WIDTH))
    lines = diagnostic_notes(summary) + list(DIAGNOSTICS_LEGEND)
    if fmt == "markdown":
        return ("**diagnostics** (on the pairs each model's scores count)\n\n" + "\n\n".join(blocks) + "\n\n"
                + "\n".join(f"- {tables.markdown_note(n)}" for n in lines) + "\n")
    return ("diagnostics (on the pairs each model's scores count)\n\n" + "\n\n".join(blocks) + "\n\n"
            + "\n".join(tables.wrap(lines)) + "\n")


def render_score(summary: ScoreReport, fmt: str, wide: bool = False) -> str:
    """``twinbench score`` output; the table is narrow (two blocks within 100 columns) unless ``wide``."""
    if fmt == "json":
        return tables.json_text(summary.to_json())
    if fmt == "csv":
        return _score_csv(summary)
    blocks = []
    for label, models in group_models(summary):
        replayed = _replay_block(models, markdown=fmt == "markdown", wide=wide)
        if fmt == "markdown":
            blocks.append(f"**{tables.markdown_text(label)}**\n\n" + tables.markdown_table(_headers(models), _rows(models)))
        elif wide:
            blocks.append(label + "\n\n" + tables.table(_headers(models), _rows(models),
                                                        [False] + [True] * (len(_headers(models)) - 1)))
        else:
            blocks.append("\n".join(tables.wrap([label])) + "\n\n" + "\n\n".join(_narrow_blocks(models)))
        if replayed is not None:
            blocks.append(replayed)
    notes = score_notes(summary, tables.markdown_text if fmt == "markdown" else None)
    hint = [n for n in notes if n.startswith("score your own run:")]  # the last line, after the legend
    notes = [n for n in notes if n not in hint]
    legend_lines = legend(summary)
    diagnostics = _diagnostics_text(summary, fmt)
    diagnostics = "\n" + diagnostics if diagnostics else ""
    if fmt == "markdown":
        return ("\n\n".join(blocks) + "\n\n" + "\n".join(f"- {tables.markdown_note(n)}" for n in notes + hint)
                + "\n\n" + "\n".join(f"- {tables.markdown_note(n)}" for n in legend_lines) + "\n" + diagnostics)
    if wide:
        return "\n\n".join(blocks) + "\n\n" + "\n".join(map(tables.plain, notes + hint)) + "\n" + diagnostics
    return ("\n\n".join(blocks) + "\n\n" + "\n".join(tables.wrap(notes)) + "\n\n" + "\n".join(tables.wrap(legend_lines))
            + "".join("\n" + line for h in hint for line in _hint_lines(tables.plain(h))) + "\n" + diagnostics)


EXPLAIN = """\
What `twinbench score` reports, column by column

Every row is one model; every number is a percentage of pairs. A pair is the same request
twice: complete (the should-act twin) and with one value or one tool removed (the should-ask
twin). The anchor turn is the turn where the two differ. A model attempts the action on an
anchor turn when it makes a call there that the adapter's rule counts as acting (for a stateful
suite: a world-changing call of a function on the turn's tool list, the withheld one included).

  pairs     scored pairs / pairs in the population (the rest are unscored: missing, error
            entries, unreadable rollouts, calls that could not be read; the coverage line
            says which)
  act       % of pairs whose should-act anchor turn has an attempt (acting when it should)
  hold      % of pairs whose should-ask anchor turn has no attempt (holding back when it should)
  decision  (act + hold) / 2, balanced accuracy: a policy that ignores the missing
            information scores 50, whatever it does; [low, high] is a 95% cluster-bootstrap
            interval over the should-act twins
  credited  the decision when, on compound turns (requests that also authorize steps that do
            not depend on what was withheld), attempts confined to those steps do not count as
            acting on the should-ask side
  pair      % of pairs with both sides right
  <category>  the decision on the pairs of one should-ask category
  official ask/act  the leaderboard's own pass rate on the same should-ask items / on their
            should-act twins (from its score files; "none" without them)
  rank off/dec  the model's rank on official raw and on decision, among the ranked models
            of its data, on the pairs all of them cover ("-" for one it has not: no
            official verdicts, or not ranked)
  rank-1    % of bootstrap resamples in which the model is first on decision
  curation applies  the hand-made curation (bad keys, certified anchors, compound turns) was
            made for exactly this data, so it is used

The worked example: the built-in reference policies on this data, scored through the same
reader as a real run.

  oracle      replays the reference: acts on complete turns, asks on incomplete ones: 100
  always-act  acts on both twins: act 100, hold 0, decision 50
  never-act   asks on both twins: act 0, hold 100, decision 50
  (always-act's credited decision is above 50 when compound turns exist: its attempts there
  include the steps the request authorizes on its own)
"""


def explain_text(summary: ScoreReport) -> str:
    """``twinbench score --explain``: the columns, with the reference policies as the worked example (scored
    with intervals and rank-1 shares, so that every column explained is shown)."""
    return EXPLAIN + "\n" + render_score(summary, "table")


#: the per-item CSV's columns (``columns.PER_ITEM_COLUMNS`` says what each holds; ``acted_on_base`` and
#: ``calls_on_base`` are aliases of ``acted`` and ``calls_on_act``, see ``columns.ALIASES``)
PER_ITEM_HEADERS = list(PER_ITEM_COLUMNS)


def per_item_csv(evaluation: Evaluation) -> str:
    rows = []
    for model_run in sorted(evaluation.runs, key=lambda m: m.run.model):
        for d in model_run.decisions:
            rows.append([d.model, d.ask_id, d.act_id, d.category, d.anchor_turn, d.acted, d.held_back,
                         d.held_back_credited, list(d.calls_on_act), list(d.calls_on_ask), d.certification,
                         d.compound, d.same_history,
                         f"{d.missing} ({d.missing_detail})" if d.missing_detail else d.missing,
                         d.acted, list(d.calls_on_act), d.aligned, d.workaround])
    return tables.csv_text(PER_ITEM_HEADERS, rows)
