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


def render_compare(summary: CompareReport, fmt: str) -> str:
    """``twinbench compare`` output."""
    if fmt == "json":
        return tables.json_text(summary.to_json())
    rows = []
    csv_rows = []  # the same rows with the change and its interval as numbers, for csv
    for m in summary.models:
        for metric, entry, mc, counted in (
            ("act", m.act, m.mcnemar_act.counts,
             f"rates per pair; b, c per distinct anchor turn ({m.mcnemar_act.counts.n})"),
            ("hold", m.hold, m.mcnemar_hold.counts, f"per pair ({m.mcnemar_hold.counts.n})"),
            ("decision", m.decision, None, f"{m.pairs} pairs in both arms"),
        ):
            ci = entry.ci_change
            rows.append([m.model, metric, tables.pct(entry.baseline), tables.pct(entry.treatment),
                         _signed(entry.change) + (f" [{ci.low:+.1f}, {ci.high:+.1f}]" if ci else ""),
                         mc.b if mc else "", mc.c if mc else "", _p(mc.p) if mc else "", counted])
            csv_rows.append([m.model, metric, tables.pct(entry.baseline), tables.pct(entry.treatment), tables.pct(entry.change),
                             tables.pct(ci.low) if ci else None, tables.pct(ci.high) if ci else None, mc.b if mc else None,
                             mc.c if mc else None, mc.p if mc else None, counted])
        for cat, e in sorted(m.ask_attempt_share.items()):
            rows.append([m.model, f"attempt on {cat} anchor", tables.pct(e.baseline), tables.pct(e.treatment),
                         _signed(e.change), e.counts.b, e.counts.c, _p(e.counts.p), f"{e.compared} of {e.items} items"])
            csv_rows.append([m.model, f"attempt on {cat} anchor", tables.pct(e.baseline), tables.pct(e.treatment), tables.pct(e.change),
                             None, None, e.counts.b, e.counts.c, e.counts.p, f"{e.compared} of {e.items} items"])
        for cat, e in sorted(m.official.items()) if m.official is not None else ():
            rows.append([m.model, f"official {cat}", tables.pct(e.baseline), tables.pct(e.treatment),
                         _signed(e.change), e.counts.b, e.counts.c, _p(e.counts.p), f"{e.items} items"])
            csv_rows.append([m.model, f"official {cat}", tables.pct(e.baseline), tables.pct(e.treatment), tables.pct(e.change), None, None,
                             e.counts.b, e.counts.c, e.counts.p, f"{e.items} items"])
    headers = ["model", "measure", "baseline", "treatment", "change [95% CI]", "b", "c", "McNemar p", "counted over"]
    if fmt == "csv":
        return tables.csv_text(["model", "measure", "baseline", "treatment", "change", "change_low", "change_high",
                                "b", "c", "mcnemar_p", "counted_over"], csv_rows)
    notes = ["b: yes in the baseline only; c: yes in the treatment only; exact two-sided McNemar p",
             "act discordance counts each distinct should-act anchor turn once; hold counts each pair"]
    boot = summary.bootstrap
    if boot.resamples:
        notes.append(f"interval of the change in decision: paired cluster bootstrap over should-act twins, "
                     f"B={boot.resamples}, seed {boot.seed}")
    for m in summary.models:
        if m.official is None:
            notes.append(f"{m.model}: no official verdicts (score files) in both arms, so no official change")
        for arm, unread in (("baseline", m.unread_baseline), ("treatment", m.unread_treatment)):
            if unread.counts:
                notes.append(f"{m.model} {arm}: {unread.text()}")
        if m.pairs_unscored_in_either_arm:
            notes.append(f"{m.model}: {m.pairs_unscored_in_either_arm} of {m.population} pairs unscored in "
                         "at least one arm (missing or error entries)")
    if fmt == "markdown":
        return tables.markdown_table(headers, rows) + "\n\n" + tables.bullets(notes) + "\n"
    right = [False, False] + [True] * 6 + [False]
    return tables.table(headers, rows, right) + "\n\n" + "\n".join(notes) + "\n"


# ---------------------------------------------------------------------------------------
# twinbench replay
# ---------------------------------------------------------------------------------------
