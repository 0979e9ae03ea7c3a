from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from twinbench.cli import main
from twinbench.render.svg import PlotError, render_svg

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


def _model_score(name: str, act: float, hold: float, official: float | None):
    from twinbench.results import Coverage, Interval, ModelScore, OfficialScore, Ranking

    decision = (act + hold) / 2
    return ModelScore(
        model=name, pairs=10, act=act, hold=hold, decision=decision, hold_credited=hold,
        decision_credited=decision, pair=50.0, by_category={}, coverage=Coverage(population=10, scored=10),
        data={"release": "r1"}, curation_applies=False, population=10, location="runs",
        ranking=Ranking(among=2, pairs=10, decision=decision, official_ask_items=official),
        ci={"decision": Interval(decision - 5, decision + 5)},
        official=None if official is None else OfficialScore(ask_items=official, act_twins=50.0),
    )


def test_a_score_report_and_its_json_draw_the_same_chart():
    from twinbench.render import output, tables
    from twinbench.options import DiscoveryOptions
    from twinbench.results import Bootstrap, ScoreReport
    from twinbench.options import ScoreOptions

    scores = ScoreReport(models=(_model_score("a", 90.0, 70.0, 40.0), _model_score("b", 100.0, 0.0, None)),
                         options=ScoreOptions(), population_options=DiscoveryOptions(),
                         bootstrap=Bootstrap(resamples=100, seed=1))
    parsed = json.loads(tables.json_text(scores.to_json()))
    for kind in ("act-vs-hold", "official-vs-decision"):
        assert render_svg(scores, kind) == render_svg(parsed, kind)
    assert "a: 40.0, 80.0" in render_svg(scores, "official-vs-decision")


@pytest.mark.parametrize("summary, message", [
    ({"models": "x"}, "no models list"),
    ({"models": [{"model": "a", "act": "high"}]}, "a: act is 'high', not a number"),
    ({"models": [{"model": "a", "act": 1.0, "official": 3}]}, "a: official is 3, not a record"),
    ({"models": [{"model": "a", "act": 1.0, "ci": [1, 2]}]}, "a: ci is \\[1, 2\\], not a record"),
    ({"models": [{"model": "a", "act": {"baseline": 1.0}}]}, "JSON of `twinbench compare`"),
    ({"models": [3]}, "models\\[0\\] is not a model record"),
])
def test_bad_score_files_are_clear_plot_errors(summary, message):
    with pytest.raises(PlotError, match=message):
        render_svg(summary, "act-vs-hold")


@pytest.mark.parametrize("kind", ["act-vs-hold", "official-vs-decision"])
def test_the_legend_shows_every_name_whole(kind):
    long = "mistralai_Ministral-8B-Instruct-2410-with-a-very-long-suffix@runs/a"
    summary = {"models": [{"model": long, "act": 90.0, "hold": 50.0, "decision": 70.0, "official": {"ask_items": 40.0}},
                          {"model": "b", "act": 80.0, "hold": 60.0, "decision": 70.0, "official": {"ask_items": 30.0}}]}
    root = ET.fromstring(render_svg(summary, kind))
    ns = "{http://www.w3.org/2000/svg}"
    legend = ["".join(t.itertext()) for t in root.iter(f"{ns}text") if t.find(f"{ns}tspan") is not None]
    assert legend == [long]  # on several lines (tspans), none of it cut
    texts = [t for t in root.iter(f"{ns}text") if "".join(t.itertext()) in (long, "b")]
    assert float(texts[1].get("y")) > float(texts[0].get("y")) + 15  # the next name starts below the long one
