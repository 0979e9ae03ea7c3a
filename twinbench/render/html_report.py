"""``twinbench report``: one self-contained HTML page to look at what every model did.

The page holds the score table with intervals and coverage, the two charts of
:mod:`twinbench.plot` (inline SVG), the decision by category, the diagnostics of
:mod:`twinbench.diagnostics`, and a drill-down of every pair: the anchor turn's user words
on both sides with the difference marked, each model's calls and texts on both anchor turns,
its decision, the certification, the leaderboard's own verdict and, when given, the replay's.
Filters by model, category and outcome run in a few lines of inline script: the file opens
from disk, with no server and no network.

It is rendered with Jinja2 from the package's ``templates/``, with autoescaping on: model
outputs and user texts are untrusted, and every one of them reaches the page as escaped
text. The only markup inserted as is comes from twinbench itself (the SVG charts, whose
labels :mod:`twinbench.plot` escapes). The same input gives the same bytes.

Replay hook: :func:`build_page` takes ``replays``, a mapping from ``(model, should-ask id)``
to a short text (for example "aligned; workaround"), shown in that pair's drill-down when
present. Nothing else is needed from a replay.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence

import attrs

from twinbench import __version__
from twinbench.decisions import attempts, valid_calls
from twinbench.decisions.diagnostics import has_placeholder, lost_where
from twinbench.evaluation.runs import Evaluation, ModelRun
from twinbench.model import Item, OfficialFailure, Pair, PairDecision, Rollout
from twinbench.render import tables
from twinbench.results import ModelScore, ScoreReport

__all__ = ["OUTCOMES", "build_page", "outcome_tags"]

#: the drill-down's outcome filter: tag -> label
OUTCOMES: Mapping[str, str] = {
    "correct": "correct (acted when complete, held back when not)",
    "acted-blind": "acted blind (an attempt on the should-ask anchor turn)",
    "missed-action": "missed action (no attempt on the should-act anchor turn)",
    "unscored": "unscored",
}
CALL_CHARS = 300  # a rendered call is cut to this many characters on the page
TEXT_CHARS = 600  # a step's text too
_TOKEN = re.compile(r"\s+|\w+|[^\w\s]")


# --------------------------------------------------------------------------- view records


@attrs.frozen
class Segment:
    """A piece of user text; ``changed`` marks the words one side has and the other lacks."""

    text: str
    changed: bool = False


@attrs.frozen
class StepView:
    """One step of an anchor turn: its calls (text, role) or its text."""

    calls: tuple[tuple[str, str], ...] = ()  # (rendered call, role: attempt | lookup | off-list), + "placeholder"
    text: str = ""


@attrs.frozen
class SideView:
    """One model's anchor turn on one side of a pair."""

    steps: tuple[StepView, ...]
    decision: str
    right: bool | None
    official: str
    ended_early: bool = False


@attrs.frozen
class RunView:
    model: str
    outcome: tuple[str, ...]  # OUTCOMES tags
    act: SideView | None
    ask: SideView | None
    unscored: str | None = None
    replay: str | None = None

    @property
    def outcome_attr(self) -> str:
        return " ".join(self.outcome)

    @property
    def outcome_label(self) -> str:
        return ", ".join(t.replace("-", " ") for t in self.outcome)


@attrs.frozen
class PairView:
    pair: Pair
    act_words: tuple[Segment, ...]
    ask_words: tuple[Segment, ...]
    same_words: bool
    withheld_tools: tuple[str, ...]
    runs: tuple[RunView, ...]
    anchor: str  # the element id (the should-ask id, prefixed by the population's number when there are several)


# --------------------------------------------------------------------------- the rules of the page


def outcome_tags(decision: PairDecision) -> tuple[str, ...]:
    """The drill-down's outcome tags of one decision (both wrong gives both tags)."""
    if not decision.scored:
        return ("unscored",)
    tags = []
    if not decision.held_back:
        tags.append("acted-blind")
    if not decision.acted:
        tags.append("missed-action")
    return tuple(tags) or ("correct",)


def _words(text: str) -> list[str]:
    return _TOKEN.findall(text)


def word_diff(act: str, ask: str) -> tuple[tuple[Segment, ...], tuple[Segment, ...]]:
    """Both texts as segments, the words only one side has marked as changed."""
    a, b = _words(act), _words(ask)
    left: list[Segment] = []
    right: list[Segment] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if i2 > i1:
            left.append(Segment("".join(a[i1:i2]), op != "equal"))
        if j2 > j1:
            right.append(Segment("".join(b[j1:j2]), op != "equal"))
    return tuple(left), tuple(right)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _steps(rollout: Rollout, turn: int, item: Item, tools: Sequence[str], rule, count_login: bool
           ) -> tuple[StepView, ...]:
    """Each step of the turn: its calls, each with its role by the decision rule, or its text."""
    out = []
    steps = rollout.turns[turn] if rollout.turns is not None and turn < len(rollout.turns) else ()
    texts = rollout.texts[turn] if turn < len(rollout.texts) else ()
    for s, calls in enumerate(steps):
        views = []
        for call in calls:
            valid = valid_calls([call], tools, rule)
            role = ("off-list" if not valid else
                    "attempt" if attempts(valid, item, turn, rule, count_login) else "lookup")
            if role == "attempt" and has_placeholder(call):
                role += " placeholder"
            views.append((_cut(call.render(), CALL_CHARS), role))
        text = _cut(texts[s], TEXT_CHARS) if s < len(texts) and not calls else ""
        if views or text:
            out.append(StepView(tuple(views), text))
    return tuple(out)


def _official(verdicts: Mapping[str, bool] | None, failures: Mapping[str, OfficialFailure] | None, item_id: str,
              anchor: int) -> str:
    if verdicts is None or item_id not in verdicts:
        return "no official verdict"
    if verdicts[item_id]:
        return "official: pass"
    failure = (failures or {}).get(item_id)
    if failure is None:
        return "official: fail"
    where = lost_where(anchor, failure)
    turn = "" if failure.turn is None else f" on turn {failure.turn}"
    place = f", {where.replace('_', ' ')}" if where else ""
    return f"official: fail ({failure.error or failure.kind.value}{turn}{place})"


def _run_view(model_run: ModelRun, decision: PairDecision, pair: Pair, items: Mapping[str, Item], rule,
              count_login: bool, replays: Mapping[tuple[str, str], str]) -> RunView:
    model = model_run.run.model
    replay = replays.get((model, pair.ask_id))
    tags = outcome_tags(decision)
    if not decision.scored:
        detail = decision.missing + (f" ({decision.missing_detail})" if decision.missing_detail else "")
        return RunView(model, tags, None, None, unscored=detail, replay=replay)
    load = model_run.load
    act_item, ask_item = items[pair.act_id], items[pair.ask_id]
    act_tools = act_item.turns[pair.act_anchor_turn].tools
    ask_tools = tuple(ask_item.turns[pair.anchor_turn].tools) + pair.removed_tools
    act = SideView(
        steps=_steps(load.rollouts[pair.act_id], pair.act_anchor_turn, act_item, act_tools, rule, count_login),
        decision="acted" if decision.acted else "did not act", right=bool(decision.acted),
        official=_official(load.official, load.official_failures, pair.act_id, pair.act_anchor_turn),
        ended_early=decision.act_ended_early)
    held = "held back" if decision.held_back else (
        "acted blind (credited: only independent steps)" if decision.held_back_credited else "acted blind")
    ask = SideView(
        steps=_steps(load.rollouts[pair.ask_id], pair.anchor_turn, ask_item, ask_tools, rule, count_login),
        decision=held, right=bool(decision.held_back),
        official=_official(load.official, load.official_failures, pair.ask_id, pair.anchor_turn),
        ended_early=decision.ask_ended_early)
    return RunView(model, tags, act, ask, replay=replay)


def _pair_views(evaluation: Evaluation, count_login: bool, replays: Mapping[tuple[str, str], str]
                ) -> list[tuple[str, list[PairView]]]:
    """Per population (in the order of the runs), every scored pair with each model's run."""
    groups: dict[str, list[ModelRun]] = {}
    for model_run in sorted(evaluation.runs, key=lambda m: m.run.model):
        groups.setdefault(model_run.population, []).append(model_run)
    out = []
    for number, (key, runs) in enumerate(groups.items()):
        manifest = evaluation.manifests[key]
        rule = evaluation.adapters[key].rule()
        decided = {mr.run.model: {d.ask_id: d for d in mr.decisions} for mr in runs}
        views = []
        for pair in manifest.scored:
            act_text = "\n".join(manifest.items[pair.act_id].turns[pair.act_anchor_turn].user_text)
            ask_text = "\n".join(manifest.items[pair.ask_id].turns[pair.anchor_turn].user_text)
            left, right = word_diff(act_text, ask_text)
            view_runs = tuple(_run_view(mr, decided[mr.run.model][pair.ask_id], pair, manifest.items, rule,
                                        count_login, replays)
                              for mr in runs if pair.ask_id in decided[mr.run.model])
            anchor = pair.ask_id if len(groups) == 1 else f"{number + 1}-{pair.ask_id}"
            views.append(PairView(pair, left, right, act_text == ask_text, pair.removed_tools, view_runs, anchor))
        out.append((key, views))
    return out


# --------------------------------------------------------------------------- the page


def _interval(record: ModelScore, metric: str) -> str:
    interval = None if record.ci is None else record.ci.get(metric)
    return "" if interval is None else f"[{interval.low:.1f}, {interval.high:.1f}]"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _environment():
    try:
        import jinja2
    except ImportError as exc:  # pragma: no cover - a dependency of the package
        from twinbench.errors import TwinbenchError

        raise TwinbenchError("twinbench report needs Jinja2 (pip install jinja2)") from exc
    env = jinja2.Environment(loader=jinja2.PackageLoader("twinbench.render", "templates"), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True)
    env.filters["num"] = _num
    env.globals["interval"] = _interval
    return env


def _charts(summary: ScoreReport) -> list[tuple[str, object | None, str]]:
    """(title, SVG markup or None, why not) for both charts; the SVG is twinbench's own, labels escaped."""
    from markupsafe import Markup

    from twinbench.render.svg import PlotError, render_svg

    out = []
    for kind, title in (("act-vs-hold", "Act against hold"),
                        ("official-vs-decision", "Official score against the decision")):
        try:
            out.append((title, Markup(render_svg(summary, kind, title)), ""))
        except PlotError as exc:
            out.append((title, None, str(exc)))
    return out


def _inline(env, name: str) -> tuple[object, str]:
    """A file of ``templates/`` to inline as the page's own style or script, and its CSP source
    (``sha256-...`` of exactly the text between the tags): the policy allows that text and nothing
    else, so no injected script or style could run even if one reached the page."""
    import base64
    import hashlib

    from markupsafe import Markup

    text = "\n" + env.loader.get_source(env, name)[0]
    digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")
    return Markup(text), f"sha256-{digest}"


def build_page(summary: ScoreReport, evaluation: Evaluation, title: str | None = None,
               replays: Mapping[tuple[str, str], str] | None = None) -> str:
    """The report page of a scored evaluation (``summary`` made with diagnostics) as HTML text."""
    from twinbench.render import score as scorecard

    env = _environment()
    count_login = summary.population_options.count_login
    categories = sorted({c for r in summary.models for c in r.by_category})
    diagnostics = [(r.model, *scorecard.diagnostic_rows(r)) for r in summary.models if r.diagnostics is not None]
    notes = [n for n in scorecard.score_notes(summary) if not n.startswith(("coverage ", "score your own run:"))]
    if summary.embedded_default:
        notes.append(f"report on your own runs: twinbench report --adapter {summary.adapter} {summary.results_usage} "
                     "--output report.html")
    style, style_hash = _inline(env, "report.css")
    script, script_hash = _inline(env, "report.js")
    env.globals.update(official=scorecard.official_text, rank=scorecard.rank_text, shared=scorecard.shared_marker)
    page = env.get_template("report.html.j2").render(
        style=style, style_hash=style_hash, script=script, script_hash=script_hash,
        title=title or ("twinbench report: reference policies" if summary.embedded_default else "twinbench report"),
        version=__version__,
        summary=summary,
        groups=scorecard.group_models(summary),
        coverage={r.model: scorecard.coverage_line(r) for r in summary.models},
        notes=notes,
        legend=scorecard.legend(summary),
        charts=_charts(summary),
        categories=categories,
        diagnostic_headers=scorecard.DIAGNOSTIC_HEADERS,
        diagnostics=diagnostics,
        diagnostic_notes=scorecard.diagnostic_notes(summary),
        diagnostic_legend=scorecard.DIAGNOSTICS_LEGEND,
        populations=_pair_views(evaluation, count_login, replays or {}),
        outcomes=OUTCOMES,
        models=[r.model for r in summary.models],
        pct=tables.pct,
    )
    return page
