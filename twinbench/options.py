"""The options every stage shares: which pairs are scored, how they are counted, the statistics' defaults.

A light module (the CLI imports it at start-up): plain frozen records and constants, no logic.
"""

from __future__ import annotations

import attrs

DEFAULT_BOOTSTRAP = 10_000  # cluster-bootstrap resamples
DEFAULT_SEED = 20260612
DEFAULT_MIN_COVERAGE = 0.9  # ranked: covers at least this share of the pairs the best-covered model covers


@attrs.frozen
class DiscoveryOptions:
    """Population sensitivities: each changes which content-verified pairs are scored."""

    count_login: bool = False  # login/logout count as world-changing
    uncertified: bool = False  # keep the construction errors
    all_pairs: bool = False  # score every content-verified pair
    same_world: bool = False  # exclude pairs whose twins start from different states (where they are only noted)


@attrs.frozen
class ScoreOptions:
    """Scoring sensitivities (they change which pairs count, or how act is counted).

    Every rate is computed in :mod:`twinbench.metrics`, from one decision matrix.
    """

    distinct_anchor_turns: bool = False  # act once per distinct should-act anchor turn
    same_history: bool = False  # only pairs whose pre-anchor calls match in both twins
    drop_ended_early: bool = False  # drop pairs where either rollout ended before the anchor
