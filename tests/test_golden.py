"""The published runs score as they did when the speed work landed, however they are read.

``fixtures/golden/shared_runs_scores.json`` holds, per model of ``../shared/bfcl-runs``, the
scores `twinbench score --bootstrap 0` gave when it was made (after the call readers were
completed). A change to reading, caching or parallelism must leave them exactly as they are;
a deliberate change to a rule updates the file in the same commit, with the reason.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import BFCL_RUNS, FIXTURES, REPO, need_shared

GOLDEN = FIXTURES / "golden" / "shared_runs_scores.json"
RUNS = ("gpt-oss-2025-11", "hdc-router", "v3-8b-fc", "v3-ministral-zh")


def _scores(env: dict[str, str], *extra: str) -> dict:
    argv = [sys.executable, "-m", "twinbench.cli", "score", "--bootstrap", "0", "--format", "json", *extra]
    for run in RUNS:
        argv += ["--results", str(need_shared(BFCL_RUNS / run))]
    import os

    done = subprocess.run(argv, capture_output=True, text=True, cwd=REPO, env={**os.environ, **env}, check=True)
    out = json.loads(done.stdout)
    return {m["model"]: {k: m[k] for k in ("pairs", "act", "hold", "decision", "decision_credited", "pair")}
            | {"scored": m["coverage"]["scored"], "unscored": m["coverage"]["unscored"], "release": m["data"]["release"]}
            for m in out["models"]}


@pytest.mark.shared
@pytest.mark.parametrize("env", [{}, {"TWINBENCH_WORKERS": "2"}, {"TWINBENCH_WORKERS": "1"}, {"TWINBENCH_NO_CACHE": "1"}],
                         ids=["as-decided", "two-workers", "one-process", "no-cache"])
def test_published_runs_score_as_recorded(env, bfcl_adapter, bfcl_v3_adapter):
    assert _scores(env, "--fresh") == json.loads(GOLDEN.read_text())


@pytest.mark.shared
def test_published_runs_score_as_recorded_from_kept_decisions(bfcl_adapter, bfcl_v3_adapter):
    _scores({})  # reads what is not kept yet, and keeps it
    assert _scores({}) == json.loads(GOLDEN.read_text())


@pytest.mark.shared
def test_every_command_prints_what_is_recorded(bfcl_adapter, bfcl_v3_adapter):
    """Every command's stdout, stderr, exit status and written files, as in ``fixtures/golden/outputs.json``.

    The record is made by ``python tests/golden_outputs.py --update``: a change to what a command
    prints updates it in the same commit, and says why. Digests only (the outputs quote the shared runs).
    """
    import golden_outputs

    need_shared(golden_outputs.RUNS)
    need_shared(golden_outputs.W2C)
    want = json.loads(golden_outputs.RECORD.read_text(encoding="utf-8"))
    got = golden_outputs.capture()
    assert sorted(got) == sorted(want)
    differs = {name: (want[name], got[name]) for name in want if want[name] != got[name]}
    assert not differs, f"{len(differs)} commands print other bytes than recorded: {sorted(differs)}"
