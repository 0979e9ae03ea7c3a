"""Rendering ``twinbench score`` output: table, JSON, CSV, markdown, and the per-item CSV."""

from __future__ import annotations

from twinbench import report
from twinbench.evaluate import Evaluation

def own_run_hint(adapter: str) -> str:
    return f"score your own run: twinbench score --adapter {adapter} --results path/to/result"


def _r(value):
    return report.pct(value)


def _ci(record: dict, metric: str) -> str:
    ci = (record.get("ci") or {}).get(metric)
    if not ci or ci[0] is None:
        return ""
    return f" [{ci[0]:.1f}, {ci[1]:.1f}]"


def _coverage_text(record: dict) -> str:
    cov = record.get("coverage") or {}
    return f"{cov.get('scored', 0)}/{cov.get('population', record.get('population', 0))}"


def _official_text(record: dict) -> str:
    off = record.get("official")
    if off is None:
        return "none"
    ask, base = off.get("ask_items"), off.get("base_twins")
    return f"{'-' if ask is None else f'{ask:.1f}'} / {'-' if base is None else f'{base:.1f}'}"


def _rows(models: list[dict]) -> list[list]:
    rows = []
    for r in models:
        cats = r.get("by_category") or {}
        rank1 = (r.get("rank1") or {}).get("decision")
        rows.append([
            r["model"], _coverage_text(r), _r(r.get("act")), _r(r.get("hold")),
            ("-" if r.get("decision") is None else f"{r['decision']:.1f}") + _ci(r, "decision"),
            _r(r.get("decision_credited")), _r(r.get("pair")),
            *[_r((cats.get(c) or {}).get("decision")) for c in sorted(cats)],
            _official_text(r),
            "-" if r.get("official") is None or r["official"].get("rank") is None
            else f"{r['official']['rank']} / {r.get('rank_decision', '-')}",
            "-" if rank1 is None else f"{100 * rank1:.1f}%",
        ])
    return rows


def _headers(models: list[dict]) -> list[str]:
    cats = sorted(models[0].get("by_category") or {}) if models else []
    return (["model", "pairs", "act", "hold", "decision [95% CI]", "credited", "pair"]
            + [f"{c}" for c in cats] + ["official ask / base", "rank official / decision", "rank-1"])


def _groups(summary: dict) -> list[tuple[str, list[dict]]]:
    groups: dict[str, list[dict]] = {}
    for r in summary["models"]:
        d = r.get("data") or {}
        label = (f"data: {d.get('release', '?')} ({d.get('dataset', '?')}, {d.get('source', '?')}); "
                 f"curation {'applies' if r.get('curation_applies') else 'does not apply'}; "
                 f"{r.get('population', 0)} pairs")
        groups.setdefault(label, []).append(r)
    return list(groups.items())


def _notes(summary: dict) -> list[str]:
    lines = []
    boot = summary.get("bootstrap") or {}
    if boot.get("resamples"):
        lines.append(f"95% percentile intervals: cluster bootstrap over should-act twins, B={boot['resamples']}, "
                     f"seed {boot['seed']}; rank-1: share of shared resamples in which the model is first on decision")
    population = [k for k, v in (summary.get("population_options") or {}).items() if v]
    if population:
        lines.append("population: " + ", ".join("--" + o.replace("_", "-") for o in population))
    opts = [k for k, v in (summary.get("options") or {}).items() if v]
    if opts:
        lines.append("scoring sensitivities: " + ", ".join("--" + o.replace("_", "-") for o in opts))
    ranked = {}
    for r in summary["models"]:
        ranking = r.get("ranking") or {}
        if ranking.get("among", 0) > 1:
            ranked.setdefault((r.get("data") or {}).get("release"), ranking)
    for release, ranking in ranked.items():
        lines.append(f"ranks and rank-1 on {release}: the {ranking['pairs']} pairs all {ranking['among']} models "
                     "there cover (same items for everyone)")
    for r in summary["models"]:
        cov = r.get("coverage") or {}
        parts = [f"{n} unscored ({why})" for why, n in (cov.get("unscored") or {}).items()]
        if cov.get("act_ended_before_anchor") or cov.get("ask_ended_before_anchor"):
            parts.append(f"ended before the anchor: {cov.get('act_ended_before_anchor', 0)} should-act, "
                         f"{cov.get('ask_ended_before_anchor', 0)} should-ask (counted as no call)")
        for key in ("dropped_different_history", "dropped_ended_early"):
            if cov.get(key):
                parts.append(f"{cov[key]} {key.replace('_', ' ')}")
        notes = r.get("run_notes") or {}
        if notes.get("logged_items_differing"):
            parts.append(f"dialogue differs from the release on {notes['logged_items_differing']} of "
                         f"{notes['logged_items']} logged items")
        lines.append(f"coverage {r['model']}: {cov.get('scored', 0)} of {cov.get('population', 0)} pairs scored"
                     + (f"; {'; '.join(parts)}" if parts else ""))
    for agreement in summary.get("rank_agreement") or []:
        lines.append(f"rank agreement on {agreement['data']}, official raw vs decision over {agreement['models']} "
                     f"models: Spearman {agreement['spearman']:.2f}, Kendall {agreement['kendall']:.2f}")
    for s in summary.get("skipped") or []:
        lines.append(f"skipped {s['folder']}: {s['reason']}")
    if summary.get("embedded_default"):
        if (summary.get("population_options") or {}).get("all_pairs"):
            lines.append("these are the built-in reference policies; under --all-pairs the read-only pairs have no "
                         "world-changing reference call, so the oracle cannot act there and is not at 100")
        else:
            lines.append("these are the built-in reference policies (expected decision: oracle 100, always-act 50, "
                         "never-act 50)")
        lines.append(own_run_hint(summary.get("adapter", "bfcl")))
    return lines


def render_score(summary: dict, fmt: str) -> str:
    if fmt == "json":
        return report.json_text(summary)
    if fmt == "csv":
        cats = sorted({c for r in summary["models"] for c in (r.get("by_category") or {})})
        headers = (["model", "pairs", "population", "act", "hold", "decision", "decision_low", "decision_high",
                    "hold_credited", "decision_credited", "pair"] + [f"decision_{c}" for c in cats]
                   + ["official_ask_items", "official_base_twins", "rank1_decision", "release"])
        rows = []
        for r in summary["models"]:
            ci = (r.get("ci") or {}).get("decision") or [None, None]
            by_cat = r.get("by_category") or {}
            off = r.get("official") or {}
            rows.append([r["model"], r.get("pairs"), r.get("population"), _r(r.get("act")), _r(r.get("hold")),
                         _r(r.get("decision")), _r(ci[0]), _r(ci[1]), _r(r.get("hold_credited")),
                         _r(r.get("decision_credited")), _r(r.get("pair"))]
                        + [_r((by_cat.get(c) or {}).get("decision")) for c in cats]
                        + [_r(off.get("ask_items")), _r(off.get("base_twins")),
                           _r(100 * r["rank1"]["decision"]) if r.get("rank1") else None,
                           (r.get("data") or {}).get("release")])
        return report.csv_text(headers, rows)
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


PER_ITEM_HEADERS = ["model", "ask_id", "act_id", "category", "anchor_turn", "acted_on_base", "held_back",
                    "held_back_credited", "calls_on_base", "calls_on_ask", "certification", "compound",
                    "same_history", "unscored_reason"]


def per_item_csv(evaluation: Evaluation) -> str:
    rows = []
    for model_run in sorted(evaluation.runs, key=lambda m: m.run.model):
        for d in model_run.decisions:
            rows.append([d.model, d.ask_id, d.act_id, d.category, d.anchor_turn, d.acted, d.held_back,
                         d.held_back_credited, list(d.calls_on_act), list(d.calls_on_ask), d.certification,
                         d.compound, d.same_history,
                         f"{d.missing} ({d.missing_detail})" if d.missing_detail else d.missing])
    return report.csv_text(PER_ITEM_HEADERS, rows)


def _p(value) -> str:
    if value is None:
        return "-"
    return f"{value:.2g}" if value < 0.001 else f"{value:.3f}"


def _signed(value) -> str:
    return "-" if value is None else f"{value:+.1f}"


def render_compare(summary: dict, fmt: str) -> str:
    """``twinbench compare`` output."""
    if fmt == "json":
        return report.json_text(summary)
    rows = []
    for m in summary["models"]:
        for metric in ("act", "hold", "decision"):
            entry = m[metric]
            mc = m["mcnemar"].get(metric) if metric != "decision" else None
            ci = entry.get("ci_change")
            rows.append([m["model"], metric, _r(entry["baseline"]), _r(entry["treatment"]),
                         _signed(entry["change"]) + (f" [{ci[0]:+.1f}, {ci[1]:+.1f}]" if ci else ""),
                         mc["b"] if mc else "", mc["c"] if mc else "", _p(mc["p"]) if mc else "",
                         {"act": f"rates per pair; b, c per distinct anchor turn ({mc['n'] if mc else 0})",
                          "hold": f"per pair ({mc['n'] if mc else 0})"}.get(metric,
                                                                           f"{m['pairs']} pairs in both arms")])
        for cat, e in sorted((m.get("ask_attempt_share") or {}).items()):
            rows.append([m["model"], f"attempt on {cat} anchor", _r(e["baseline"]), _r(e["treatment"]),
                         _signed(e["change"]), e["b"], e["c"], _p(e["p"]), f"{e['compared']} of {e['items']} items"])
        for cat, e in sorted((m.get("official") or {}).items()):
            rows.append([m["model"], f"official {cat}", _r(e["baseline"]), _r(e["treatment"]),
                         _signed(e["change"]), e["b"], e["c"], _p(e["p"]), f"{e['items']} items"])
    headers = ["model", "measure", "baseline", "treatment", "change [95% CI]", "b", "c", "McNemar p", "counted over"]
    if fmt == "csv":
        return report.csv_text(headers, rows)
    notes = ["b: yes in the baseline only; c: yes in the treatment only; exact two-sided McNemar p",
             "act discordance counts each distinct should-act anchor turn once; hold counts each pair"]
    boot = summary.get("bootstrap") or {}
    if boot.get("resamples"):
        notes.append(f"interval of the change in decision: paired cluster bootstrap over should-act twins, "
                     f"B={boot['resamples']}, seed {boot['seed']}")
    for m in summary["models"]:
        if m.get("official") is None:
            notes.append(f"{m['model']}: no official verdicts (score files) in both arms, so no official change")
        if m.get("pairs_unscored_in_either_arm"):
            notes.append(f"{m['model']}: {m['pairs_unscored_in_either_arm']} of {m['population']} pairs unscored in "
                         "at least one arm (missing or error entries)")
    if fmt == "markdown":
        return report.markdown_table(headers, rows) + "\n\n" + "\n".join(f"- {n}" for n in notes) + "\n"
    right = [False, False] + [True] * 6 + [False]
    return report.table(headers, rows, right) + "\n\n" + "\n".join(notes) + "\n"
