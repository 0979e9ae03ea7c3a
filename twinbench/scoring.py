"""The scoring sensitivities: options that change which pairs count, or how act is counted.

Every rate is computed in :mod:`twinbench.metrics`, from one decision matrix.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class ScoreOptions:
    """Scoring sensitivities (they change which pairs count, or how act is counted)."""

    distinct_anchor_turns: bool = False  # act once per distinct should-act anchor turn
    same_history: bool = False  # only pairs whose pre-anchor calls match in both twins
    drop_ended_early: bool = False  # drop pairs where either rollout ended before the anchor
