"""The commands' work: the stages run over real runs, from reading them to the typed results.

* :mod:`twinbench.evaluation.runs`: read and decide every run (jobs, forked workers, the
  decisions kept between runs): :func:`evaluate` gives an :class:`Evaluation`;
* :mod:`twinbench.evaluation.summary`: :func:`summarize` turns it into a
  :class:`~twinbench.results.ScoreReport` (intervals, ranks, official raw, agreement);
* :mod:`twinbench.evaluation.score`: ``twinbench score`` (:func:`score`, the reference policies);
* :mod:`twinbench.evaluation.compare`: ``twinbench compare`` (paired arms);
* :mod:`twinbench.evaluation.replay`: ``twinbench replay`` (every item against its reference).
"""

from __future__ import annotations

from twinbench.evaluation.runs import Evaluation, ModelRun, evaluate, population_key, turns_needed
from twinbench.evaluation.score import NoRunsError, policy_runs, score
from twinbench.evaluation.summary import summarize

__all__ = ["Evaluation", "ModelRun", "NoRunsError", "evaluate", "policy_runs", "population_key", "score",
           "summarize", "turns_needed"]
