"""Rendering ``twinbench score`` and ``twinbench compare``: table, JSON, CSV, markdown, and the per-item CSV.

Every renderer reads a :class:`~twinbench.reports.ScoreReport` or
:class:`~twinbench.reports.CompareReport`; the JSON is the record's ``to_json``.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from twinbench import report
from twinbench.evaluate import Evaluation
from twinbench.reports import CompareReport, Coverage, Interval, ModelScore, ScoreReport


def own_run_hint(adapter: str, usage: str = "--results path/to/result") -> str:
    return f"score your own run: twinbench score --adapter {adapter} {usage}"


def _r(value):
    return report.pct(value)


def _ci(record: ModelScore, metric: str) -> str:
    interval = None if record.ci is None else record.ci.get(metric)
    return "" if interval is None else f" [{interval.low:.1f}, {interval.high:.1f}]"


def _official_text(record: ModelScore) -> str:
    off = record.official
    if off is None:
        return "none"
    ask, act = off.ask_items, off.act_twins
    return f"{'-' if ask is None else f'{ask:.1f}'} / {'-' if act is None else f'{act:.1f}'}"


def _rank_text(record: ModelScore) -> str:
    if record.official is None or record.official.rank is None:
        return "-"
    return f"{record.official.rank} / {'-' if record.rank_decision is None else record.rank_decision}"


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
            _official_text(r), _rank_text(r),
            "-" if rank1 is None else f"{rank1:.1f}%",
        ])
    return rows


def _headers(models: Sequence[ModelScore]) -> list[str]:
    cats = sorted(models[0].by_category) if models else []
    return (["model", "pairs", "act", "hold", "decision [95% CI]", "credited", "pair"]
            + list(cats) + ["official ask / base", "rank official / decision", "rank-1"])


def _groups(summary: ScoreReport) -> list[tuple[str, list[ModelScore]]]:
    groups: dict[str, list[ModelScore]] = {}
    for r in summary.models:
        d = r.data
        label = (f"data: {d.get('release', '?')} ({d.get('dataset', '?')}, {d.get('source', '?')}); "
                 f"curation {'applies' if r.curation_applies else 'does not apply'}; {r.population} pairs")
        groups.setdefault(label, []).append(r)
    return list(groups.items())


def _flags(options) -> list[str]:
    return ["--" + name.replace("_", "-") for name, on in attrs.asdict(options).items() if on]


def _coverage_line(r: ModelScore) -> str:
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
    return (f"coverage {r.model}: {cov.scored} of {cov.population} pairs scored"
            + (f"; {'; '.join(parts)}" if parts else ""))


def _notes(summary: ScoreReport) -> list[str]:
    lines = []
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
    ranked = {}
    for r in summary.models:
        if r.ranking.among > 1:
            ranked.setdefault(r.release, r.ranking)
    for release, ranking in ranked.items():
        lines.append(f"ranks and rank-1 on {release}: the {ranking.pairs} pairs all {ranking.among} ranked models "
                     "there cover (same items for everyone)")
    for r in summary.models:
        if not r.ranking.ranked:
            lines.append(f"not ranked: {r.model} {r.ranking.reason} (--min-coverage); its scores stand on its own pairs")
    lines += [_coverage_line(r) for r in summary.models]
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
    headers = (["model", "pairs", "population", "act", "hold", "decision", "decision_low", "decision_high",
                "hold_credited", "decision_credited", "pair"] + [f"decision_{c}" for c in cats]
               + ["official_ask_items", "official_base_twins", "rank1_decision", "release", "official_act_twins"])
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
                       _r(None if off is None else off.act_twins)])
    return report.csv_text(headers, rows)


def render_score(summary: ScoreReport, fmt: str) -> str:
    """``twinbench score`` output."""
    if fmt == "json":
        return report.json_text(summary.to_json())
    if fmt == "csv":
        return _score_csv(summary)
    blocks = []
    for label, models in _groups(summary):
        if fmt == "markdown":
            blocks.append(f"**{label}**\n\n" + report.markdown_table(_headers(models), _rows(models)))
        else:
            blocks.append(label + "\n\n" + report.table(_headers(models), _rows(models),
                                                        [False] + [True] * (len(_headers(models)) - 1)))
    notes = _notes(summary)
    if fmt == "markdown":
        return "\n\n".join(blocks) + "\n\n" + "\n".join(f"- {n}" for n in notes) + "\n"
    return "\n\n".join(blocks) + "\n\n" + "\n".join(notes) + "\n"


#: ``acted_on_base`` and ``calls_on_base`` are the older names of ``acted`` and ``calls_on_act`` (same values),
#: kept for the readers of this file
PER_ITEM_HEADERS = ["model", "ask_id", "act_id", "category", "anchor_turn", "acted_on_base", "held_back",
                    "held_back_credited", "calls_on_base", "calls_on_ask", "certification", "compound",
                    "same_history", "unscored_reason", "acted", "calls_on_act"]


def per_item_csv(evaluation: Evaluation) -> str:
    rows = []
    for model_run in sorted(evaluation.runs, key=lambda m: m.run.model):
        for d in model_run.decisions:
            rows.append([d.model, d.ask_id, d.act_id, d.category, d.anchor_turn, d.acted, d.held_back,
                         d.held_back_credited, list(d.calls_on_act), list(d.calls_on_ask), d.certification,
                         d.compound, d.same_history,
                         f"{d.missing} ({d.missing_detail})" if d.missing_detail else d.missing,
                         d.acted, list(d.calls_on_act)])
    return report.csv_text(PER_ITEM_HEADERS, rows)


def _p(value) -> str:
    if value is None:
        return "-"
    return f"{value:.2g}" if value < 0.001 else f"{value:.3f}"


def _signed(value) -> str:
    return "-" if value is None else f"{value:+.1f}"


def render_compare(summary: CompareReport, fmt: str) -> str:
    """``twinbench compare`` output."""
    if fmt == "json":
        return report.json_text(summary.to_json())
    rows = []
    for m in summary.models:
        for metric, entry, mc, counted in (
            ("act", m.act, m.mcnemar_act.counts,
             f"rates per pair; b, c per distinct anchor turn ({m.mcnemar_act.counts.n})"),
            ("hold", m.hold, m.mcnemar_hold.counts, f"per pair ({m.mcnemar_hold.counts.n})"),
            ("decision", m.decision, None, f"{m.pairs} pairs in both arms"),
        ):
            ci = entry.ci_change
            rows.append([m.model, metric, _r(entry.baseline), _r(entry.treatment),
                         _signed(entry.change) + (f" [{ci.low:+.1f}, {ci.high:+.1f}]" if ci else ""),
                         mc.b if mc else "", mc.c if mc else "", _p(mc.p) if mc else "", counted])
        for cat, e in sorted(m.ask_attempt_share.items()):
            rows.append([m.model, f"attempt on {cat} anchor", _r(e.baseline), _r(e.treatment),
                         _signed(e.change), e.counts.b, e.counts.c, _p(e.counts.p), f"{e.compared} of {e.items} items"])
        for cat, e in sorted(m.official.items()) if m.official is not None else ():
            rows.append([m.model, f"official {cat}", _r(e.baseline), _r(e.treatment),
                         _signed(e.change), e.counts.b, e.counts.c, _p(e.counts.p), f"{e.items} items"])
    headers = ["model", "measure", "baseline", "treatment", "change [95% CI]", "b", "c", "McNemar p", "counted over"]
    if fmt == "csv":
        return report.csv_text(headers, rows)
    notes = ["b: yes in the baseline only; c: yes in the treatment only; exact two-sided McNemar p",
             "act discordance counts each distinct should-act anchor turn once; hold counts each pair"]
    boot = summary.bootstrap
    if boot.resamples:
        notes.append(f"interval of the change in decision: paired cluster bootstrap over should-act twins, "
                     f"B={boot.resamples}, seed {boot.seed}")
    for m in summary.models:
        if m.official is None:
            notes.append(f"{m.model}: no official verdicts (score files) in both arms, so no official change")
        if m.pairs_unscored_in_either_arm:
            notes.append(f"{m.model}: {m.pairs_unscored_in_either_arm} of {m.population} pairs unscored in "
                         "at least one arm (missing or error entries)")
    if fmt == "markdown":
        return report.markdown_table(headers, rows) + "\n\n" + "\n".join(f"- {n}" for n in notes) + "\n"
    right = [False, False] + [True] * 6 + [False]
    return report.table(headers, rows, right) + "\n\n" + "\n".join(notes) + "\n"
