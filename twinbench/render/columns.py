"""What every CSV column of ``twinbench score`` holds, and the older names kept beside the new ones.

The renderers write the columns in this order and the docs' tables are generated from these
mappings, so a column cannot be added without its meaning, nor documented without existing.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

#: the release that drops the aliases below
ALIASES_DROPPED_IN = "0.3"

#: alias -> the name it is kept beside (same values): 0.1's "base" for the should-act side
ALIASES: Mapping[str, str] = MappingProxyType({
    "acted_on_base": "acted",  # --per-item CSV
    "calls_on_base": "calls_on_act",  # --per-item CSV
    "official_base_twins": "official_act_twins",  # score CSV
    "base_twins": "act_twins",  # JSON models[].official
    "n_base_twins": "n_act_twins",  # JSON models[].official
})


def alias_text(name: str) -> str:
    return f"the same values as `{ALIASES[name]}` (its 0.1 name, an alias dropped in {ALIASES_DROPPED_IN})"


#: ``score --per-item FILE``: one row per model and pair, in this order
PER_ITEM_COLUMNS: Mapping[str, str] = MappingProxyType({
    "model": "the run's model name",
    "ask_id": "the should-ask item",
    "act_id": "its should-act twin",
    "category": "the should-ask category",
    "anchor_turn": "the should-ask item's anchor turn (0-based)",
    "acted_on_base": alias_text("acted_on_base"),
    "held_back": "no attempt on the should-ask anchor turn (empty when the pair is unscored)",
    "held_back_credited": "held back under the credited reading (compound turns; with `--replay`, workarounds too)",
    "calls_on_base": alias_text("calls_on_base"),
    "calls_on_ask": "the calls on the should-ask anchor turn that the rule maps onto its tools, withheld ones "
                    "included (`;`-separated)",
    "certification": "the pair's certification (`certified`, or `uncertified` under `--uncertified`)",
    "compound": "the should-ask anchor turn is a compound turn (it also authorizes steps of its own)",
    "same_history": "with `--same-history`: the calls before the anchors are the same on both sides (empty "
                    "without it)",
    "unscored_reason": "why the pair is unscored for this model, naming the side (`missing from the results`, "
                       "`stored as an error`, `unreadable rollout`, `unreadable call`), with the stored error or the "
                       "call that could not be read in parentheses; empty when scored",
    "acted": "an attempt on the should-act anchor turn (empty when the pair is unscored)",
    "calls_on_act": "the calls on the should-act anchor turn that the rule maps onto its tools (`;`-separated)",
    "aligned": "with `--replay`, on the tool-removed pairs: the should-ask attempt was made in the reference state",
    "workaround": "with `--replay`: an aligned attempt that reached the reference's post-anchor state by other calls",
})

#: ``score --format csv``: one row per model; ``decision_<category>`` is one column per should-ask category, and
#: the ``replay`` columns come only with ``--replay``
SCORE_CSV_COLUMNS: Mapping[str, str] = MappingProxyType({
    "model": "the run's model name",
    "pairs": "the pairs scored for the model",
    "population": "the scored pairs of the data it was scored against",
    "act": "% of pairs with an attempt on the should-act anchor turn",
    "hold": "% of pairs without one on the should-ask anchor turn",
    "decision": "(act + hold) / 2",
    "decision_low": "the decision's 95% interval, low end (empty without `--bootstrap`)",
    "decision_high": "its high end",
    "hold_credited": "hold under the credited reading",
    "decision_credited": "(act + hold_credited) / 2",
    "pair": "% of pairs with both sides right",
    "decision_<category>": "the decision on one should-ask category's pairs (one column per category)",
    "official_ask_items": "the leaderboard's own pass rate on the should-ask items of the pairs (empty without "
                          "verdicts)",
    "official_base_twins": alias_text("official_base_twins"),
    "rank1_decision": "% of bootstrap resamples in which the model is first on decision (ranked models only)",
    "release": "the data release it was scored against",
    "official_act_twins": "the leaderboard's own pass rate on the should-act twins of the pairs",
    "decision_workaround": "`--replay`: the decision with each workaround counted as holding back",
    "replay_pairs": "`--replay`: the tool-removed pairs",
    "replay_attempts": "`--replay`: those with an attempt on the should-ask anchor turn",
    "replay_removed": "`--replay`: attempts calling a removed tool by name",
    "replay_aligned": "`--replay`: attempts made in the reference state",
    "replay_workaround": "`--replay`: aligned attempts that reach the reference's post-anchor state by other calls",
})
#: the columns that come with ``--replay`` only, at the end
REPLAY_CSV_COLUMNS = ("decision_workaround", "replay_pairs", "replay_attempts", "replay_removed", "replay_aligned",
                      "replay_workaround")
