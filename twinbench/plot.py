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

from html import escape

from twinbench.errors import TwinbenchError

KINDS = ("act-vs-hold", "official-vs-decision")

WIDTH, HEIGHT = 760, 500
LEFT, RIGHT, TOP, BOTTOM = 70, 280, 50, 60
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f",
          "#bcbd22")


class PlotError(TwinbenchError):
    """The score file cannot be drawn as asked."""


def _number(value: object, what: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise PlotError(f"{what} is {value!r}, not a number: is this the JSON of `twinbench score`?")
    return float(value)


def _points(summary: dict, kind: str) -> list[dict]:
    points = []
    for n, record in enumerate(summary.get("models", [])):
        if not isinstance(record, dict) or not isinstance(record.get("model"), str):
            raise PlotError(f"models[{n}] is not a model record of `twinbench score`")
        if isinstance(record.get("act"), dict):
            raise PlotError("this looks like the JSON of `twinbench compare`; plot draws `twinbench score` output")
        name = record["model"]
        ci = None
        if kind == "act-vs-hold":
            x, y = _number(record.get("act"), f"{name}: act"), _number(record.get("hold"), f"{name}: hold")
        else:
            official = record.get("official") or {}
            if not isinstance(official, dict):
                raise PlotError(f"{name}: official is {official!r}, not a record")
            x = _number(official.get("ask_items"), f"{name}: official ask_items")
            y = _number(record.get("decision"), f"{name}: decision")
            raw = (record.get("ci") or {}).get("decision") if isinstance(record.get("ci"), dict) else None
            if isinstance(raw, list) and len(raw) == 2 and all(isinstance(v, (int, float)) for v in raw):
                ci = [float(raw[0]), float(raw[1])]
        if x is None or y is None:
            continue
        points.append({"label": name, "x": x, "y": y, "ci": ci})
    return points


def _scale(lo: float, hi: float, a: float, b: float):
    span = (hi - lo) or 1.0
    return lambda v: a + (v - lo) / span * (b - a)


def render_svg(summary: dict, kind: str = "act-vs-hold", title: str | None = None) -> str:
    if kind not in KINDS:
        raise PlotError(f"unknown chart {kind!r}; choose from {', '.join(KINDS)}")
    points = _points(summary, kind)
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
    for i, p in enumerate(sorted(points, key=lambda p: p["label"])):
        color = COLORS[i % len(COLORS)]
        x, y = sx(p["x"]), sy(p["y"])
        if p["ci"] and p["ci"][0] is not None:
            out.append(f'<line x1="{x:.1f}" y1="{sy(p["ci"][0]):.1f}" x2="{x:.1f}" y2="{sy(p["ci"][1]):.1f}" '
                       f'stroke="{color}" stroke-width="2"/>')
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{color}"><title>{escape(p["label"])}: '
                   f'{p["x"]:.1f}, {p["y"]:.1f}</title></circle>')
        ly = TOP + 14 + 18 * i
        out.append(f'<circle cx="{WIDTH - RIGHT + 16}" cy="{ly - 4}" r="5" fill="{color}"/>')
        out.append(f'<text x="{WIDTH - RIGHT + 26}" y="{ly}">{escape(p["label"][:36])}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
