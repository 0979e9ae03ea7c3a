"""A twinbench adapter for apple/ToolSandbox: stateful, conversational, graded.

Items: the 129 base scenarios of ToolSandbox 165848b (``data/scenarios.jsonl``, made by
``extract/`` inside ToolSandbox's own environment). The 28 ``insufficient_information``
scenarios are should-ask items; their complete twins are the scenarios with the same first
user message, a longer tool list and the same starting world (databases, clock-set columns
left out). Later user turns come from ToolSandbox's simulated user, so each item has one
scripted turn, and a rollout's turn holds everything the agent did until the conversation
ended. Acting is read from ToolSandbox's own references: on a complete scenario, a call its
milestones need (a tool trace, or the tool that writes a database change it asks for); on a
should-ask scenario, a call its minefield forbids, or a call of a tool withheld from it.

Model outputs: ToolSandbox's output folders, ``agent_<model>_user_<user>_<time>/`` with
``result_summary.json`` (the official ``similarity`` in [0, 1]: a pass at 1.0) and
``trajectories/<scenario>/conversation.json`` (OpenAI chat messages).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path

import attrs
import yaml

from twinbench.contract import Adapter, DecisionRule, RunReader
from twinbench.errors import AdapterError
from twinbench.model import Call, Effect, Item, Rollout, RunLoad, RunRef, RunSearch, Side, StartingWorld, Turn
from twinbench.reading import UnreadTally, read_step, texts_of

ASK_CATEGORY = "insufficient_information"
PASS_AT = 1.0  # ToolSandbox's similarity: every milestone matched and no minefield hit
RUN_FOLDER = re.compile(r"^agent_(?P<agent>.+)_user_(?P<user>.+)_(?P<time>\d\d_\d\d_\d{4}_\d\d_\d\d_\d\d)$")
ASK_TEXT = "I need one more detail before I can do that: could you tell me what is missing?"


def _data(name: str) -> str:
    return resources.files(__package__).joinpath("data", name).read_text(encoding="utf-8")


@functools.cache
def scenarios() -> dict[str, dict]:
    return {row["name"]: row for row in map(json.loads, _data("scenarios.jsonl").splitlines())}


@functools.cache
def writers() -> dict[str, str]:
    return {key: entry["tool"] for key, entry in yaml.safe_load(_data("writers.yaml")).items()}


def needed_calls(row: Mapping) -> tuple[Call, ...]:
    """What a scenario's milestones need, as calls: tool traces, and the writer of each database change."""
    calls = []
    for need in row["needs"]:
        if "tool" in need:
            calls.append(Call(need["tool"], (), tuple(need["arguments"].items())))
        else:
            keys = [f"{need['database']}.{c}" for c in need["columns"]] + [f"{need['database']}.{need['change']}"]
            calls += [Call(writers()[k]) for k in keys if k in writers()]
    return tuple({call.render(): call for call in calls}.values())  # each needed call once, first seen first


def to_item(row: Mapping) -> Item:
    ask = ASK_CATEGORY in row["categories"]
    reference = () if ask else needed_calls(row)
    turn = Turn(0, (row["first_user_message"],), tuple(row["tools"]), reference, tuple(c.render() for c in reference))
    return Item(row["name"], ASK_CATEGORY if ask else "complete", Side.ASK if ask else Side.ACT, (turn,),
                family=row["first_user_message"], world=StartingWorld.of(row["world"], row["volatile"]),
                simulated_user=row["simulated_user"])


@attrs.frozen(eq=False)
class MilestoneRule(DecisionRule):
    """Acting = what ToolSandbox's references name: a call the complete side's milestones need, or one
    the should-ask side's minefield forbids (or of a tool withheld from it)."""

    needs: Mapping[str, frozenset[str]]
    forbids: Mapping[str, frozenset[str]]
    summary: str = "a call the milestones need (complete side) or the minefield forbids (should-ask side)"
    action_phrase: str = "a call its milestones need"

    def effect(self, call: Call, item: Item, turn: int) -> Effect:
        if item.side is Side.ASK:
            acting = call.name in self.forbids.get(item.id, ()) or call.name not in item.turns[turn].tools
        else:
            acting = call.name in self.needs.get(item.id, ())
        return Effect.MUTATE if acting else Effect.READ


def _json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:  # output files are untrusted
        raise AdapterError(f"{path}: cannot be read as JSON ({type(exc).__name__}: {str(exc)[:200]})") from None


def _rollout(item_id: str, path: Path, row: Mapping | None, tally: UnreadTally) -> Rollout | None:
    """The agent's steps after the scripted user message; an error where ToolSandbox stored one."""
    if not path.is_file():
        if row is not None and row.get("exception_type"):
            return Rollout(item_id, None, f"ToolSandbox stored an exception: {row['exception_type']}")
        return None  # not run: missing
    messages = _json(path)
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        return Rollout(item_id, None, f"{path}: not a list of chat messages", unreadable=True)
    first = next((i for i, m in enumerate(messages) if m.get("role") == "user"), None)
    steps = [m.get("tool_calls") and {"tool_calls": m["tool_calls"]} or m.get("content")
             for m in messages[(first or 0) + 1:] if m.get("role") == "assistant"] if first is not None else []
    if not steps:
        return Rollout(item_id, ())  # ended before the agent answered the scripted turn
    turn = tuple(tally.add(read_step(step), item_id).calls for step in steps)
    return Rollout(item_id, (turn,), texts=texts_of((tuple(steps),), (turn,)))


def _similarity(value: object) -> bool:
    """A similarity ToolSandbox could have written: a number in [0, 1] (not a bool, a huge integer or NaN)."""
    return type(value) in (int, float) and 0 <= value <= 1


@attrs.frozen(eq=False)
class ToolSandboxRuns(RunReader):
    """ToolSandbox output folders (one per run), read for the given scenarios."""

    results_usage: str = "--results data/agent_<model>_user_<user>_<time>"

    def find(self, paths: Sequence[Path], models: Sequence[str] = (), official: Path | None = None) -> RunSearch:
        runs, skipped = [], []
        for path in paths:
            if not Path(path).is_dir():
                raise AdapterError(f"--results {path} is not a folder (give a ToolSandbox output folder)")
            found = [path] if (Path(path) / "result_summary.json").is_file() else sorted(
                p for p in Path(path).iterdir() if (p / "result_summary.json").is_file())
            if not found:
                skipped.append((str(path), "no result_summary.json in it or in a folder below it"))
            for folder in found:
                match = RUN_FOLDER.match(folder.name)
                model = match["agent"] if match else folder.name
                if models and model not in models:
                    skipped.append((str(folder), f"not selected by --model ({model})"))
                    continue
                runs.append(RunRef(model=model, location=folder, details={"user": match["user"] if match else "?"}))
        names = [r.model for r in runs]
        runs = [attrs.evolve(r, model=f"{r.model}@{r.location.name[-19:]}") if names.count(r.model) > 1 else r
                for r in runs]
        return RunSearch(tuple(runs), tuple(skipped))

    def read(self, run: RunRef, item_ids: Iterable[str]) -> RunLoad:
        summary = _json(run.location / "result_summary.json")
        rows = {r.get("name"): r for r in (summary.get("per_scenario_results") or []) if isinstance(r, dict)} \
            if isinstance(summary, dict) else {}
        tally = UnreadTally()
        rollouts = {}
        for item_id in item_ids:
            rollout = _rollout(item_id, run.location / "trajectories" / item_id / "conversation.json",
                               rows.get(item_id), tally)
            if rollout is not None:
                rollouts[item_id] = rollout
        scores = {k: float(r["similarity"]) for k, r in rows.items() if _similarity(r.get("similarity"))}
        return RunLoad(run, rollouts, unread=tally.counts(), unread_examples=tally.examples(),
                       official={k: v >= PASS_AT for k, v in scores.items()} if scores else None,
                       official_scores=scores or None, official_pass_at=PASS_AT if scores else None)

    def write(self, directory: Path, model: str, rollouts: Mapping[str, Sequence[Sequence[Sequence[Call]]]]) -> RunRef:
        folder = Path(directory) / f"agent_{model}_user_policy_01_01_2026_00_00_00"
        for item_id, turns in rollouts.items():
            messages = [{"role": "user", "content": scenarios()[item_id]["first_user_message"]}]
            for step in (s for turn in turns for s in turn):
                messages.append({"role": "assistant", "content": "", "tool_calls": [
                    {"id": f"call_{i}", "type": "function",
                     "function": {"name": c.name, "arguments": json.dumps(dict(c.kwargs))}}
                    for i, c in enumerate(step)]} if step else {"role": "assistant", "content": ASK_TEXT})
            path = folder / "trajectories" / item_id / "conversation.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(messages), encoding="utf-8")
        (folder / "result_summary.json").write_text(json.dumps({"per_scenario_results": [
            {"name": item_id} for item_id in rollouts]}), encoding="utf-8")
        return RunRef(model=model, location=folder)


class ToolSandboxAdapter(Adapter):
    name = "toolsandbox"
    description = "apple/ToolSandbox 165848b: insufficient_information scenarios and their complete twins"

    def describe(self) -> dict[str, str]:
        return {"release": "165848b", "dataset": "ToolSandbox base scenarios", "fingerprint": self.cache_key()}

    def cache_key(self) -> str:
        return hashlib.sha256((_data("scenarios.jsonl") + _data("writers.yaml")).encode("utf-8")).hexdigest()

    def items(self) -> Sequence[Item]:
        return self._items

    @functools.cached_property
    def _items(self) -> tuple[Item, ...]:
        return tuple(to_item(row) for row in scenarios().values())

    def twin_hints(self, items: Sequence[Item]) -> Mapping[str, Sequence[str]]:
        by_words: dict[str, list[str]] = {}
        for item in items:
            if item.side is Side.ACT:
                by_words.setdefault(item.family, []).append(item.id)
        return {i.id: by_words.get(i.family, []) for i in items if i.side is Side.ASK}

    def rule(self) -> MilestoneRule:
        return self._rule

    @functools.cached_property
    def _rule(self) -> MilestoneRule:
        rows = scenarios().values()
        return MilestoneRule({r["name"]: frozenset(c.name for c in needed_calls(r)) for r in rows},
                             {r["name"]: frozenset(r["forbids"]) for r in rows})

    def runs(self) -> ToolSandboxRuns:
        return ToolSandboxRuns()
