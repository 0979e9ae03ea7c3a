from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from twinbench.cli import main
from twinbench.plot import PlotError, render_svg

SUMMARY = {"models": [
    {"model": "a", "act": 90.0, "hold": 70.0, "decision": 80.0, "ci": {"decision": [75.0, 85.0]},
     "official": {"ask_items": 40.0}},
    {"model": "b & <c>", "act": 100.0, "hold": 0.0, "decision": 50.0, "ci": {"decision": [50.0, 50.0]},
     "official": None},
]}


def test_act_vs_hold_draws_every_model_and_escapes_names():
    svg = render_svg(SUMMARY, "act-vs-hold")
    root = ET.fromstring(svg)  # well-formed XML
    ns = "{http://www.w3.org/2000/svg}"
    assert len([c for c in root.iter(f"{ns}circle") if c.find(f"{ns}title") is not None]) == 2
    assert "b &amp; &lt;c&gt;" in svg
    assert render_svg(SUMMARY, "act-vs-hold") == svg  # deterministic


def test_official_vs_decision_skips_models_without_score_files():
    svg = render_svg(SUMMARY, "official-vs-decision")
    assert "a: 40.0, 80.0" in svg and "b &amp;" not in svg


def test_nothing_to_draw_is_an_error():
    with pytest.raises(PlotError, match="score files"):
        render_svg({"models": [SUMMARY["models"][1]]}, "official-vs-decision")
    with pytest.raises(PlotError, match="unknown chart"):
        render_svg(SUMMARY, "pie")


def test_plot_command(tmp_path, capsys):
    src = tmp_path / "score.json"
    src.write_text(json.dumps(SUMMARY))
    out = tmp_path / "chart.svg"
    assert main(["plot", "--input", str(src), "--output", str(out)]) == 0
    assert out.read_text().startswith("<svg")
    assert main(["plot", "--input", str(tmp_path / "missing.json")]) == 2
    assert "does not exist" in capsys.readouterr().err
    src.write_text("[1, 2]")
    assert main(["plot", "--input", str(src)]) == 2
    assert "not the JSON of `twinbench score`" in capsys.readouterr().err
