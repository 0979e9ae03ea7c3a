"""Charts drawn as plain SVG from ``twinbench score --format json`` output.

No plotting library: a chart is a handful of SVG elements, written deterministically
(same input, same bytes), so it can be embedded in docs and diffed in review.

Kinds:
* ``official-vs-decision``: official raw on the scored should-ask items (x) against
  decision accuracy with its 95% interval (y); needs score files.
* ``act-vs-hold``: act rate (x) against hold rate (y); the dashed diagonal
  act + hold = 100 is decision 50, where always-act and never-act sit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html import escape

import attrs

from twinbench.errors import TwinbenchError
from twinbench.results import Interval, ModelScore, ScoreReport

KINDS = ("act-vs-hold", "official-vs-decision")

WIDTH, HEIGHT = 760, 500
LEFT, RIGHT, TOP, BOTTOM = 70, 280, 50, 60
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f",
          "#bcbd22")


class PlotError(TwinbenchError):
    """The score file cannot be drawn as asked."""


@attrs.frozen
class ChartModel:
    """What a chart draws of one model: its rates, decision interval and official raw."""

    model: str
    act: float | None
    hold: float | None
    decision: float | None
    decision_ci: Interval | None = None
    official_ask_items: float | None = None

    @classmethod
    def of(cls, score: ModelScore) -> ChartModel:
        return cls(score.model, score.act, score.hold, score.decision,
                   None if score.ci is None else score.ci.get("decision"),
                   None if score.official is None else score.official.ask_items)


def _number(value: object, what: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise PlotError(f"{what} is {value!r}, not a number: is this the JSON of `twinbench score`?")
    return float(value)


def read_score_json(summary: object) -> tuple[ChartModel, ...]:
    """The models of a ``twinbench score --format json`` file, as far as a chart needs them."""
    if not isinstance(summary, Mapping) or not isinstance(summary.get("models"), list):
        raise PlotError("this is not the JSON of `twinbench score` (no models list)")
    out = []
    for n, record in enumerate(summary["models"]):
        if not isinstance(record, Mapping) or not isinstance(record.get("model"), str):
            raise PlotError(f"models[{n}] is not a model record of `twinbench score`")
        if isinstance(record.get("act"), Mapping):
            raise PlotError("this looks like the JSON of `twinbench compare`; plot draws `twinbench score` output")
        name = record["model"]
        official = record.get("official")
        if official is not None and not isinstance(official, Mapping):
            raise PlotError(f"{name}: official is {official!r}, not a record")
        ci = record.get("ci")
        if ci is not None and not isinstance(ci, Mapping):
            raise PlotError(f"{name}: ci is {ci!r}, not a record")
        raw = None if ci is None else ci.get("decision")
        interval = None
        if isinstance(raw, list) and len(raw) == 2 and all(isinstance(v, (int, float)) for v in raw):
            interval = Interval(float(raw[0]), float(raw[1]))
        out.append(ChartModel(
            model=name, act=_number(record.get("act"), f"{name}: act"),
            hold=_number(record.get("hold"), f"{name}: hold"),
            decision=_number(record.get("decision"), f"{name}: decision"), decision_ci=interval,
            official_ask_items=None if official is None else _number(official.get("ask_items"),
                                                                     f"{name}: official ask_items"),
        ))
    return tuple(out)


def chart_models(source: ScoreReport | Mapping | Iterable[ChartModel]) -> tuple[ChartModel, ...]:
    """A score report, the parsed JSON of one, or chart models already made."""
    if isinstance(source, ScoreReport):
        return tuple(ChartModel.of(m) for m in source.models)
    if isinstance(source, Mapping):
        return read_score_json(source)
    models = tuple(source)
    if not all(isinstance(m, ChartModel) for m in models):
        raise PlotError("plot draws a ScoreReport, the JSON of `twinbench score`, or ChartModel records")
    return models


def _points(models: Iterable[ChartModel], kind: str) -> list[dict]:
    points = []
    for m in models:
        ci = None
        if kind == "act-vs-hold":
            x, y = m.act, m.hold
        else:
            x, y = m.official_ask_items, m.decision
            if m.decision_ci is not None:
                ci = [m.decision_ci.low, m.decision_ci.high]
        if x is None or y is None:
            continue
        points.append({"label": m.model, "x": x, "y": y, "ci": ci})
    return points


#: the characters of a legend line (the legend column is RIGHT pixels wide); a longer name takes more lines
LEGEND_CHARS = 36
LEGEND_LINE = 15  # pixels between the lines of one name
LEGEND_GAP = 18  # pixels from one name's first line to the next name's


def legend_lines(label: str, chars: int = LEGEND_CHARS) -> list[str]:
    """A model name in lines of at most ``chars``, broken after ``_``, ``-``, ``.`` or ``@`` where it can be:
    the whole name is shown, never cut."""
    import re

    pieces = re.findall(r"[^_\-.@/]*[_\-.@/]?", label)
    lines = [""]
    for piece in (p for p in pieces if p):
        while len(piece) > chars:  # one piece longer than a line: cut it
            room = chars - len(lines[-1])
            lines[-1] += piece[:room]
            piece = piece[room:]
            lines.append("")
        if len(lines[-1]) + len(piece) > chars:
            lines.append("")
        lines[-1] += piece
    return [line for line in lines if line] or [""]


def _scale(lo: float, hi: float, a: float, b: float):
    span = (hi - lo) or 1.0
    return lambda v: a + (v - lo) / span * (b - a)


def render_svg(summary: ScoreReport | Mapping | Iterable[ChartModel], kind: str = "act-vs-hold",
               title: str | None = None) -> str:
    """The chart of a score report (or of the parsed JSON of ``twinbench score``) as SVG text."""
    if kind not in KINDS:
        raise PlotError(f"unknown chart {kind!r}; choose from {', '.join(KINDS)}")
    points = _points(chart_models(summary), kind)
    if not points:
        need = "official raw (score files) and decision" if kind == "official-vs-decision" else "act and hold"
        raise PlotError(f"no model in the score file has {need} to draw")
    if kind == "act-vs-hold":
        xlabel, ylabel = "act when complete (%)", "hold back when information removed (%)"
        xlo, xhi, ylo, yhi = 0.0, 100.0, 0.0, 100.0
    else:
        xlabel, ylabel = "official raw on the scored should-ask items (%)", "decision accuracy (%) with 95% interval"
        xlo, xhi = 0.0, 100.0
        lows = [p["ci"][0] for p in points if p["ci"] and p["ci"][0] is not None] + [p["y"] for p in points]
        highs = [p["ci"][1] for p in points if p["ci"] and p["ci"][1] is not None] + [p["y"] for p in points]
        ylo, yhi = max(0.0, 10 * int(min(lows + [50.0]) // 10)), min(100.0, 10 * (int(max(highs) // 10) + 1))
    sx = _scale(xlo, xhi, LEFT, WIDTH - RIGHT)
    sy = _scale(ylo, yhi, HEIGHT - BOTTOM, TOP)
    title = title or ("Act against hold" if kind == "act-vs-hold" else "Official score against the decision")
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">',
        f"<title>{escape(title)}</title>",
        f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        f'<text x="{LEFT}" y="22" font-size="15" font-weight="bold">{escape(title)}</text>',
    ]
    for i in range(11):  # grid and ticks every 10%
        xv = xlo + (xhi - xlo) * i / 10
        x = sx(xv)
        out.append(f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{HEIGHT - BOTTOM}" stroke="#eee"/>')
        out.append(f'<text x="{x:.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle">{xv:.0f}</text>')
        yv = ylo + (yhi - ylo) * i / 10
        y = sy(yv)
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" stroke="#eee"/>')
        out.append(f'<text x="{LEFT - 8}" y="{y + 4:.1f}" text-anchor="end">{yv:.0f}</text>')
    out.append(f'<rect x="{LEFT}" y="{TOP}" width="{WIDTH - LEFT - RIGHT}" height="{HEIGHT - TOP - BOTTOM}" '
               'fill="none" stroke="#333"/>')
    if kind == "act-vs-hold":
        out.append(f'<line x1="{sx(0):.1f}" y1="{sy(100):.1f}" x2="{sx(100):.1f}" y2="{sy(0):.1f}" '
                   'stroke="#999" stroke-dasharray="5,4"/>')
        out.append(f'<text x="{LEFT}" y="40" fill="#666">dashed: act + hold = 100, decision 50 '
                   "(chance, always-act, never-act)</text>")
    else:
        out.append(f'<line x1="{LEFT}" y1="{sy(50):.1f}" x2="{WIDTH - RIGHT}" y2="{sy(50):.1f}" '
                   'stroke="#999" stroke-dasharray="5,4"/>')
        out.append(f'<text x="{LEFT}" y="40" fill="#666">dashed: decision 50 (chance); bars: 95% interval</text>')
    out.append(f'<text x="{(LEFT + WIDTH - RIGHT) / 2:.1f}" y="{HEIGHT - 20}" text-anchor="middle">'
               f"{escape(xlabel)}</text>")
    cy = (TOP + HEIGHT - BOTTOM) / 2
    out.append(f'<text x="18" y="{cy:.1f}" text-anchor="middle" transform="rotate(-90 18 {cy:.1f})">'
               f"{escape(ylabel)}</text>")
    ly = TOP + 14
    for i, p in enumerate(sorted(points, key=lambda p: p["label"])):
        color = COLORS[i % len(COLORS)]
        x, y = sx(p["x"]), sy(p["y"])
        if p["ci"] and p["ci"][0] is not None:
            out.append(f'<line x1="{x:.1f}" y1="{sy(p["ci"][0]):.1f}" x2="{x:.1f}" y2="{sy(p["ci"][1]):.1f}" '
                       f'stroke="{color}" stroke-width="2"/>')
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{color}"><title>{escape(p["label"])}: '
                   f'{p["x"]:.1f}, {p["y"]:.1f}</title></circle>')
        out.append(f'<circle cx="{WIDTH - RIGHT + 16}" cy="{ly - 4}" r="5" fill="{color}"/>')
        lines = legend_lines(p["label"])
        out.append(f'<text x="{WIDTH - RIGHT + 26}" y="{ly}">' + "".join(
            escape(line) if k == 0 else f'<tspan x="{WIDTH - RIGHT + 26}" dy="{LEGEND_LINE}">{escape(line)}</tspan>'
            for k, line in enumerate(lines)) + "</text>")
        ly += LEGEND_GAP + LEGEND_LINE * (len(lines) - 1)
    out.append("</svg>")
    return "\n".join(out) + "\n"
