"""Rendering ``twinbench replay``: table, JSON, CSV and markdown of a :class:`~twinbench.results.ReplayReport`."""

from __future__ import annotations

from twinbench.render import tables
from twinbench.results import ReplayReport

STOPPED_SHOWN = 5  # items stopped at a limit listed one by one in the text output
#: a header's "\n" puts it on two lines in the text table
REPLAY_CHECK_HEADERS = ("model", "data", "items", "replayed", "state-\nequal", "official\npasses",
                        "passes\nstate-equal", "agreement")


def render_replay(summary: ReplayReport, fmt: str) -> str:
    """``twinbench replay`` output ."""
    if fmt == "json":
        return tables.json_text(summary.to_json())
    rows = []
    for r in summary.runs:
        passed = r.official_passed
        rows.append([r.model, r.data.get("release", "-"), r.items, r.replayed, r.state_equal,
                     "-" if passed is None else passed,
                     "-" if passed is None else passed - len(r.disagreements),
                     "-" if r.agreement is None else f"{r.agreement:.1f}%"])
    if fmt == "csv":  # the rows as numbers, the disagreements are in the JSON
        return tables.csv_text(["model", "release", "items", "replayed", "state_equal", "official_passed",
                                "official_passed_state_equal", "agreement"],
                               [[*row[:5], None if row[5] == "-" else row[5], None if row[6] == "-" else row[6],
                                 None if r.agreement is None else round(r.agreement, 1)]
                                for row, r in zip(rows, summary.runs)])
    notes = []
    for r in summary.runs:
        line = f"{r.model}: {r.calls} calls executed, {r.call_errors} of them raised (recorded as error results)"
        if r.not_replayed:
            line += "; not replayed: " + ", ".join(f"{n} {why}" for why, n in r.not_replayed.items())
        if r.official_passed is None:
            line += "; no official verdicts (no score files)"
        notes.append(line)
        for d in r.disagreements:  # the difference quotes state values the model's calls set: escaped
            what = d.first_difference[1] if d.first_difference else d.error or "not replayed"
            what = tables.markdown_text(what) if fmt == "markdown" else what
            where = f"turn {d.first_difference[0]}: {what}" if d.first_difference else what
            notes.append(f"  passed officially but differs: {d.item_id} {where}")
        notes += [f"  stopped at the {s.error} (not replayed, not checked): {s.item_id} {s.stopped}"
                  for s in r.stopped[:STOPPED_SHOWN]]
        if len(r.stopped) > STOPPED_SHOWN:
            notes.append(f"  and {len(r.stopped) - STOPPED_SHOWN} more stopped at a limit (all of them in --format json)")
    notes += [f"skipped {folder}: {reason}" for folder, reason in summary.skipped]
    notes.append("state-equal: after every turn the leaderboard's checker compares, the replayed model state "
                 "equals the replayed reference state; every official pass must be state-equal (agreement 100%)")
    if fmt == "markdown":
        return (tables.markdown_table(list(REPLAY_CHECK_HEADERS), rows) + "\n\n"
                + "\n".join(f"- {tables.markdown_note(n.strip())}" for n in notes) + "\n")
    return (tables.table(list(REPLAY_CHECK_HEADERS), rows, [False, False] + [True] * 6, width=tables.NARROW_WIDTH)
            + "\n\n" + "\n".join(tables.wrap(notes)) + "\n")
