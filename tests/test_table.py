"""The score table a person reads: narrow by default, a legend, --wide, --explain."""

from __future__ import annotations

import pytest
from conftest import BFCL_RUNS, need_shared

from twinbench.cli import main


def _out(capsys, *argv) -> str:
    assert main(["score", *argv]) == 0
    return capsys.readouterr().out


def test_default_table_fits_in_100_columns_and_ends_with_a_legend_and_the_hint(capsys, bfcl_adapter):
    text = _out(capsys, "--bootstrap", "200")
    assert max(map(len, text.splitlines())) <= 100
    assert "credited: decision when, on compound turns" in text and "curation applies:" in text
    assert text.rstrip().splitlines()[-1].startswith("score your own run:")
    wide = _out(capsys, "--bootstrap", "200", "--wide")
    assert max(map(len, wide.splitlines())) > 100 and "credited:" not in wide
    # the same numbers in both layouts
    for cell in ("100.0 [100.0, 100.0]", "50.0 [50.0, 50.0]", "51.8"):
        assert cell in text and cell in wide


@pytest.mark.shared
def test_real_runs_table_is_narrow(capsys, bfcl_adapter):
    runs = need_shared(BFCL_RUNS)
    text = _out(capsys, *[a for f in sorted(runs.iterdir()) if f.is_dir() for a in ("--results", str(f))])
    assert max(map(len, text.splitlines())) <= 100
    assert "not ranked: mistralai_Ministral-8B-Instruct-2410 covers 132 of 240 pairs" in text.replace("\n  ", " ")


def test_explain_names_every_column_with_the_reference_policies(capsys, bfcl_adapter):
    text = _out(capsys, "--explain")
    for column in ("pairs", "act", "hold", "decision", "credited", "pair", "official ask/act", "rank-1",
                   "curation applies"):
        assert f"  {column}" in text
    assert "always-act" in text and "50.0" in text
    assert main(["score", "--explain", "--results", "x"]) == 2
