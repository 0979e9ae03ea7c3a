"""Rendering ``twinbench compare``: table, JSON, CSV and markdown of a :class:`~twinbench.results.CompareReport`."""

from __future__ import annotations

from twinbench.render import tables
from twinbench.results import CompareReport


def _p(value) -> str:
    if value is None:
        return "-"
    return f"{value:.2g}" if value < 0.001 else f"{value:.3f}"


def _signed(value) -> str:
    return "-" if value is None else f"{value:+.1f}"


#: what each row's rates and discordant counts are over, in the table's ``over`` column (its legend line says more)
OVER_LEGEND = (
    "over: the population of the row. act, hold, decision: the pairs scored in both arms; act's b and c count "
    "their distinct should-act anchor turns (b/c: N turns), hold's the pairs. attempt on <category> anchor: "
    "every should-ask item of the category with a single anchor, paired or not (bad keys and construction errors "
    "left out), with a reading in both arms: more items than the category's scored pairs, which score's hold is "
    "on. official <category>: every item of the category with an official verdict in both arms"
)
NOTES = ("b: yes in the baseline only; c: yes in the treatment only; p: exact two-sided McNemar p",)


def _rows(m) -> list[tuple]:
    """One model's rows: measure, baseline, treatment, change, interval, b, c, p, and the population (short, long)."""
    out = []
    for metric, entry, mc, short, long in (
        ("act", m.act, m.mcnemar_act.counts, f"{m.pairs} pairs, b/c: {m.mcnemar_act.counts.n} turns",
         f"rates per pair ({m.pairs} pairs in both arms); b, c per distinct anchor turn ({m.mcnemar_act.counts.n})"),
        ("hold", m.hold, m.mcnemar_hold.counts, f"{m.mcnemar_hold.counts.n} pairs",
         f"per pair ({m.mcnemar_hold.counts.n} pairs in both arms)"),
        ("decision", m.decision, None, f"{m.pairs} pairs", f"{m.pairs} pairs in both arms"),
    ):
        out.append((metric, entry.baseline, entry.treatment, entry.change, entry.ci_change, mc, short, long))
    for cat, e in sorted(m.ask_attempt_share.items()):
        out.append((f"attempt on {cat} anchor", e.baseline, e.treatment, e.change, None, e.counts,
                    f"{e.compared}/{e.items} items", f"{e.compared} of {e.items} {cat} items with one anchor"))
    for cat, e in sorted(m.official.items()) if m.official is not None else ():
        out.append((f"official {cat}", e.baseline, e.treatment, e.change, None, e.counts, f"{e.items} items",
                    f"{e.items} {cat} items with a verdict in both arms"))
    return out


def _change_text(change, ci) -> str:
    return _signed(change) + (f" [{ci.low:+.1f}, {ci.high:+.1f}]" if ci else "")


def _notes(summary: CompareReport, escape) -> list[str]:
    notes = list(NOTES)
    boot = summary.bootstrap
    if boot.resamples:
        notes.append(f"interval of the change in decision: paired cluster bootstrap over should-act twins, "
                     f"B={boot.resamples}, seed {boot.seed}")
    for m in summary.models:
        if m.official is None:
            notes.append(f"{m.model}: no official verdicts (score files) in both arms, so no official change")
        for arm, unread in (("baseline", m.unread_baseline), ("treatment", m.unread_treatment)):
            if unread.counts:
                notes.append(f"{m.model} {arm}: {unread.text(escape)}")
        if m.pairs_unscored_in_either_arm:
            notes.append(f"{m.model}: {m.pairs_unscored_in_either_arm} of {m.population} pairs unscored in at least "
                         "one arm (missing from the results, stored as an error, or a call that could not be read: "
                         "`twinbench score` on each arm says which)")
    return notes


def render_compare(summary: CompareReport, fmt: str, wide: bool = False) -> str:
    """``twinbench compare`` output: per model a block within 100 columns, or with ``wide`` one row per line."""
    if fmt == "json":
        return tables.json_text(summary.to_json())
    if fmt == "csv":
        return tables.csv_text(
            ["model", "measure", "baseline", "treatment", "change", "change_low", "change_high", "b", "c",
             "mcnemar_p", "counted_over"],
            [[m.model, measure, tables.pct(base), tables.pct(treat), tables.pct(change),
              tables.pct(ci.low) if ci else None, tables.pct(ci.high) if ci else None,
              mc.b if mc else None, mc.c if mc else None, mc.p if mc else None, long]
             for m in summary.models for measure, base, treat, change, ci, mc, _, long in _rows(m)])
    escape = tables.markdown_text if fmt == "markdown" else None
    notes = _notes(summary, escape) + [OVER_LEGEND]
    if fmt == "markdown" or wide:
        headers = ["model", "measure", "baseline", "treatment", "change [95% CI]", "b", "c", "McNemar p",
                   "counted over"]
        rows = [[m.model, measure, tables.pct(base), tables.pct(treat), _change_text(change, ci),
                 mc.b if mc else "", mc.c if mc else "", _p(mc.p) if mc else "", long]
                for m in summary.models for measure, base, treat, change, ci, mc, _, long in _rows(m)]
        if fmt == "markdown":
            return (tables.markdown_table(headers, rows) + "\n\n"
                    + "\n".join(f"- {tables.markdown_note(n)}" for n in notes) + "\n")
        return (tables.table(headers, rows, [False, False] + [True] * 6 + [False]) + "\n\n"
                + "\n".join(map(tables.plain, notes)) + "\n")
    blocks = []
    headers = ["measure", "baseline", "treatment", "change [95% CI]", "b", "c", "p", "over"]
    for m in summary.models:
        rows = [[measure, tables.pct(base), tables.pct(treat), _change_text(change, ci), mc.b if mc else "",
                 mc.c if mc else "", _p(mc.p) if mc else "", short]
                for measure, base, treat, change, ci, mc, short, _ in _rows(m)]
        title = tables.wrap([f"{m.model}: {m.pairs} of {m.population} pairs scored in both arms"])
        blocks.append("\n".join(title) + "\n\n"
                      + tables.table(headers, rows, [False] + [True] * 6 + [False], width=tables.NARROW_WIDTH,
                                     wrap=(7, 0)))
    return "\n\n".join(blocks) + "\n\n" + "\n".join(tables.wrap(notes)) + "\n"


# ---------------------------------------------------------------------------------------
# twinbench replay
# ---------------------------------------------------------------------------------------
