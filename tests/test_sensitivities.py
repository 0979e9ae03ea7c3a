"""Scoring sensitivities and statistics in `twinbench score` output."""

from __future__ import annotations

import json

import pytest

from conftest import BFCL_RUNS, need_shared

from twinbench.cli import main


def score(capsys, *args):
    assert main(["score", "--format", "json", "--bootstrap", "300", *args]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def gpt_oss():
    return str(need_shared(BFCL_RUNS / "gpt-oss-2025-11"))


@pytest.mark.parametrize("flag, population", [("--count-login", 225), ("--uncertified", 231), ("--all-pairs", 365)])
def test_population_sensitivities(capsys, bfcl_adapter, gpt_oss, flag, population):
    out = score(capsys, "--results", gpt_oss, flag)
    for m in out["models"]:
        assert m["population"] == population
        assert m["coverage"]["population"] == population


def test_scoring_sensitivities_report_their_own_counts(capsys, bfcl_adapter, gpt_oss):
    plain = {m["model"]: m for m in score(capsys, "--results", gpt_oss)["models"]}
    same = {m["model"]: m for m in score(capsys, "--results", gpt_oss, "--same-history")["models"]}
    early = {m["model"]: m for m in score(capsys, "--results", gpt_oss, "--drop-ended-early")["models"]}
    distinct = {m["model"]: m for m in score(capsys, "--results", gpt_oss, "--distinct-anchor-turns")["models"]}
    for name, m in plain.items():
        cov = same[name]["coverage"]
        assert same[name]["pairs"] == m["pairs"] - cov["dropped_different_history"] < m["pairs"]
        assert early[name]["pairs"] == m["pairs"] - early[name]["coverage"]["dropped_ended_early"]
        assert distinct[name]["pairs"] == m["pairs"] and distinct[name]["hold"] == m["hold"]
        assert distinct[name]["act"] != m["act"]  # act weighted once per should-act anchor turn


def test_intervals_and_rank1_in_every_format(capsys, bfcl_adapter, gpt_oss):
    out = score(capsys, "--results", gpt_oss)
    shares = [m["rank1"]["decision"] for m in out["models"]]
    assert sum(shares) == pytest.approx(100.0)  # percent, like every rate
    for m in out["models"]:
        for metric in ("act", "hold", "decision", "decision_credited"):
            low, high = m["ci"][metric]
            assert low <= m[metric] <= high
        assert m["ranking"]["among"] == 2
        # ranks compare the two models on the pairs both of them cover
        assert m["ranking"]["pairs"] <= min(x["pairs"] for x in out["models"])
    # rank-1 is on the pairs both models cover, fewer than either's own: the header's ^ says so
    for fmt, needle in (("table", "rank-1^"), ("markdown", "| rank-1^ |"), ("csv", "decision_low")):
        assert main(["score", "--results", gpt_oss, "--format", fmt, "--bootstrap", "300"]) == 0
        assert needle in capsys.readouterr().out
    assert out["rank_agreement"] == []  # two ranked models: a rank correlation would be +-1 or undefined


def test_seed_makes_intervals_reproducible(capsys, bfcl_adapter, gpt_oss):
    a = score(capsys, "--results", gpt_oss, "--seed", "7")
    b = score(capsys, "--results", gpt_oss, "--seed", "7")
    c = score(capsys, "--results", gpt_oss, "--seed", "8")
    assert a == b
    assert [m["ci"] for m in a["models"]] != [m["ci"] for m in c["models"]]


def test_negative_bootstrap_is_a_usage_error(capsys, bfcl_adapter):
    assert main(["score", "--bootstrap", "-1"]) == 2
    assert "--bootstrap" in capsys.readouterr().err
