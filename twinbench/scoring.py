"""Per-model scores from pair decisions, as polars expressions over one frame.

act      % of scored pairs whose should-act anchor turn has an attempt
hold     % of scored pairs whose should-ask anchor turn has none
decision (act + hold) / 2: balanced accuracy, 50 for any policy that ignores the information
hold credited / decision credited: on compound turns an attempt confined to the
         independent steps is not acting
pair     % of pairs with both sides right
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import attrs
import polars as pl

from twinbench.decisions import PairDecision


@attrs.frozen
class ScoreOptions:
    """Scoring sensitivities (they change which pairs count, or how act is counted)."""

    distinct_anchor_turns: bool = False  # act once per distinct should-act anchor turn
    same_history: bool = False  # only pairs whose pre-anchor calls match in both twins
    drop_ended_early: bool = False  # drop pairs where either rollout ended before the anchor


def decisions_frame(decisions: Sequence[PairDecision]) -> pl.DataFrame:
    schema = {
        "model": pl.Utf8, "ask_id": pl.Utf8, "act_id": pl.Utf8, "category": pl.Utf8,
        "anchor_turn": pl.Int64, "act_anchor_turn": pl.Int64, "compound": pl.Boolean, "scored": pl.Boolean,
        "missing": pl.Utf8, "acted": pl.Boolean, "held": pl.Boolean, "held_credited": pl.Boolean,
        "act_ended_early": pl.Boolean, "ask_ended_early": pl.Boolean, "same_history": pl.Boolean,
    }
    rows = [
        (d.model, d.ask_id, d.act_id, d.category, d.anchor_turn, d.act_anchor_turn, d.compound, d.scored, d.missing,
         d.acted, d.held_back, d.held_back_credited, d.act_ended_early, d.ask_ended_early, d.same_history)
        for d in decisions
    ]
    return pl.DataFrame(rows, schema=schema, orient="row")


def included(frame: pl.DataFrame, options: ScoreOptions) -> pl.Expr:
    """Which decisions count under the options (a boolean expression)."""
    expr = pl.col("scored")
    if options.same_history:
        expr = expr & pl.col("same_history").fill_null(False)
    if options.drop_ended_early:
        expr = expr & ~(pl.col("act_ended_early") | pl.col("ask_ended_early")).fill_null(False)
    return expr


def _pct(expr: pl.Expr) -> pl.Expr:
    return expr.cast(pl.Float64).mean() * 100.0


def _act_rate(frame: pl.DataFrame, options: ScoreOptions) -> pl.DataFrame:
    """act per model, optionally once per distinct should-act anchor turn."""
    if options.distinct_anchor_turns:
        frame = frame.unique(subset=["model", "act_id", "act_anchor_turn"], keep="first", maintain_order=True)
    return frame.group_by("model").agg(_pct(pl.col("acted")).alias("act"))


def score_models(decisions: Sequence[PairDecision], options: ScoreOptions = ScoreOptions(),
                 categories: Sequence[str] = ()) -> dict[str, dict]:
    """Scores and coverage per model, keyed by model name."""
    frame = decisions_frame(decisions)
    if frame.is_empty():
        return {}
    frame = frame.with_columns(included(frame, options).alias("included"))
    used = frame.filter(pl.col("included"))
    cats = list(categories) or sorted(frame["category"].unique().to_list())
    out: dict[str, dict] = {}
    acts = {r["model"]: r["act"] for r in _act_rate(used, options).iter_rows(named=True)} if not used.is_empty() else {}
    main = used.group_by("model").agg(
        pl.len().alias("pairs"),
        _pct(pl.col("held")).alias("hold"),
        _pct(pl.col("held_credited")).alias("hold_credited"),
        _pct(pl.col("acted") & pl.col("held")).alias("pair"),
    ) if not used.is_empty() else pl.DataFrame()
    by_model = {r["model"]: r for r in main.iter_rows(named=True)} if not main.is_empty() else {}
    by_cat: dict[tuple[str, str], dict] = {}
    if not used.is_empty():
        for cat in cats:
            sub = used.filter(pl.col("category") == cat)
            if sub.is_empty():
                continue
            cat_acts = {r["model"]: r["act"] for r in _act_rate(sub, options).iter_rows(named=True)}
            for r in sub.group_by("model").agg(pl.len().alias("pairs"), _pct(pl.col("held")).alias("hold"),
                                              _pct(pl.col("held_credited")).alias("hold_credited")).iter_rows(named=True):
                act = cat_acts[r["model"]]
                by_cat[(r["model"], cat)] = {
                    "pairs": r["pairs"], "act": act, "hold": r["hold"], "decision": (act + r["hold"]) / 2,
                    "decision_credited": (act + r["hold_credited"]) / 2,
                }
    for model in sorted(frame["model"].unique().to_list()):
        rows = frame.filter(pl.col("model") == model)
        m = by_model.get(model)
        act = acts.get(model)
        record: dict = {"model": model, "pairs": int(m["pairs"]) if m else 0}
        if m and act is not None:
            record.update(
                act=act, hold=m["hold"], decision=(act + m["hold"]) / 2, hold_credited=m["hold_credited"],
                decision_credited=(act + m["hold_credited"]) / 2, pair=m["pair"],
            )
        else:
            record.update(act=None, hold=None, decision=None, hold_credited=None, decision_credited=None, pair=None)
        record["by_category"] = {cat: by_cat.get((model, cat)) for cat in cats}
        record["coverage"] = coverage(rows, options)
        out[model] = record
    return out


def coverage(rows: pl.DataFrame, options: ScoreOptions) -> dict:
    """Scored pairs out of the population, and why the rest were not."""
    total = rows.height
    scored = rows.filter(pl.col("scored"))
    reasons = Counter(r for r in rows.filter(~pl.col("scored"))["missing"].to_list())
    out = {
        "population": total,
        "scored": int(rows["included"].sum()) if "included" in rows.columns else scored.height,
        "unscored": dict(sorted(reasons.items())),
        "act_ended_before_anchor": int(scored["act_ended_early"].sum()),
        "ask_ended_before_anchor": int(scored["ask_ended_early"].sum()),
    }
    # each dropped pair is counted once: ended early first, then a different history among the rest
    ended = (scored["act_ended_early"] | scored["ask_ended_early"]).fill_null(False)
    if options.drop_ended_early:
        out["dropped_ended_early"] = int(ended.sum())
    if options.same_history:
        remaining = ~ended if options.drop_ended_early else pl.Series([True] * scored.height)
        out["dropped_different_history"] = int((remaining & ~scored["same_history"].fill_null(False)).sum())
    return out
