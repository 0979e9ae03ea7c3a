"""A complete twinbench adapter for TinyBench, a tiny invented to-do list leaderboard.

TinyBench ships two data files (``data/items.jsonl``, ``data/effects.yaml``) and stores
each model's run as ``<dir>/<model>/outputs.jsonl``. This module is everything twinbench
needs to know about it; discovery, scoring, statistics and the CLI come from twinbench.

Install it (``pip install -e examples/tinybench``) and it is found through the
``twinbench.adapters`` entry point group; or call ``twinbench.adapters.registry.register``
on :class:`TinyBenchAdapter` in your own process.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import attrs

from twinbench.contract.adapter import Adapter, RunReader
from twinbench.errors import AdapterError
from twinbench.model import Rollout, RunLoad, RunRef, RunSearch
from twinbench.reading import parse_python_calls, parse_step
from twinbench.contract.effects import load_effect_table
from twinbench.model import Call, Item, Side, Turn
from twinbench.contract.rules import EffectTableRule

__all__ = ["TinyBenchAdapter"]

#: the data shipped inside this package
PACKAGED_DATA = Path(__file__).resolve().parent / "data"
#: the version of the packaged data
DATA_RELEASE = "1.0"
ITEMS_FILE = "items.jsonl"
EFFECTS_FILE = "effects.yaml"
OUTPUTS_FILE = "outputs.jsonl"

#: the item kinds and the side each is on
SIDES = {"complete": Side.ACT, "missing_value": Side.ASK, "missing_tool": Side.ASK}

#: what a synthetic rollout says when it makes no call (an empty step)
PROSE_REPLY = "Could you tell me what is missing before I change your list?"


@attrs.frozen
class _Loaded:
    """The items of one data folder, plus what the adapter keeps beside them."""

    items: tuple[Item, ...]
    scenario: Mapping[str, int]  # item id -> scenario number
    fingerprint: str
    problems: tuple[str, ...]


class TinyBenchAdapter(Adapter):
    """TinyBench: ``complete`` items should act; ``missing_value`` and ``missing_tool`` items should ask."""

    name = "tinybench"
    description = "TinyBench to-do list tool use (an example adapter shipped with twinbench)"

    def __init__(self, data_dir: Path | None = None) -> None:
        self.custom = data_dir is not None
        self.data_dir = Path(data_dir).expanduser() if data_dir is not None else PACKAGED_DATA

    # -- construction from the command line ------------------------------------------
    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        group = parser.add_argument_group("TinyBench data")
        group.add_argument(
            "--tiny-data",
            metavar="DIR",
            type=Path,
            default=None,
            help=f"a folder holding {ITEMS_FILE} and {EFFECTS_FILE} (default: the data shipped with the adapter)",
        )

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> TinyBenchAdapter:
        return cls(getattr(args, "tiny_data", None))

    def describe(self) -> dict[str, str]:
        return {
            "dataset": "TinyBench",
            "release": DATA_RELEASE if not self.custom else "custom",
            "source": "--tiny-data" if self.custom else "packaged",
            "location": str(self.data_dir),
            "fingerprint": self._loaded.fingerprint,
        }

    def data_warnings(self) -> Sequence[str]:
        return self._loaded.problems

    # -- items -------------------------------------------------------------------------
    def _data_file(self, name: str) -> Path:
        if not self.data_dir.is_dir():
            raise AdapterError(f"TinyBench data folder {self.data_dir} does not exist")
        path = self.data_dir / name
        if not path.is_file():
            raise AdapterError(f"TinyBench data folder {self.data_dir} has no {name}")
        return path

    @functools.cached_property
    def _loaded(self) -> _Loaded:
        path = self._data_file(ITEMS_FILE)
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise AdapterError(f"cannot read {path}: {exc}") from exc
        items: list[Item] = []
        scenario: dict[str, int] = {}
        problems: list[str] = []
        for number, line in enumerate(raw.decode("utf-8", errors="replace").splitlines(), start=1):
            if not line.strip():
                continue
            where = f"{path.name} line {number}"
            try:
                record = json.loads(line)
                item = self._item(record, problems, where)
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                # the leaderboard's own data is broken: one clear message, not a traceback
                raise AdapterError(f"{path}: line {number} is not a TinyBench item ({exc})") from exc
            if item.id in scenario:
                raise AdapterError(f"{path}: item id {item.id} appears twice (again on line {number})")
            items.append(item)
            scenario[item.id] = int(record["scenario"])
        return _Loaded(tuple(items), scenario, hashlib.sha256(raw).hexdigest(), tuple(problems))

    @staticmethod
    def _item(record: dict, problems: list[str], where: str) -> Item:
        kind = record["kind"]
        if kind not in SIDES:
            raise ValueError(f"unknown kind {kind!r}; expected one of {', '.join(SIDES)}")
        turns = []
        for index, turn in enumerate(record["turns"]):
            reference_text = tuple(str(text) for text in turn["reference"])
            reference: list[Call] = []
            for text in reference_text:
                calls = parse_python_calls(text)
                if not calls:
                    problems.append(f"{where}: reference {text!r} of {record['id']} is not a python-style call")
                reference.extend(calls)
            turns.append(
                Turn(
                    index=index,
                    user_text=(str(turn["user"]),),
                    tools=tuple(str(tool) for tool in turn["tools"]),
                    reference=tuple(reference),
                    reference_text=reference_text,
                )
            )
        return Item(id=str(record["id"]), category=kind, side=SIDES[kind], turns=tuple(turns),
                    family=f"scenario {int(record['scenario'])}")

    def items(self) -> Sequence[Item]:
        return self._loaded.items

    def twin_hints(self, items: Sequence[Item]) -> Mapping[str, Sequence[str]]:
        """The complete item of the same scenario: exact, since single-turn items have no history to check."""
        scenario = self._loaded.scenario
        complete = {scenario[item.id]: item.id for item in items if item.side is Side.ACT and item.id in scenario}
        return {
            item.id: [complete[scenario[item.id]]] if scenario.get(item.id) in complete else []
            for item in items
            if item.side is Side.ASK
        }

    # -- the decision rule ---------------------------------------------------------------
    @functools.cached_property
    def _rule(self) -> EffectTableRule:
        # a broken table raises EffectTableError, a TwinbenchError: the CLI reports it in one line
        return EffectTableRule(load_effect_table(self._data_file(EFFECTS_FILE)), qualifier=None)

    def rule(self) -> EffectTableRule:
        """Acting = a call the effect table labels ``mutate`` (names match the tool list exactly)."""
        return self._rule

    # -- model outputs -----------------------------------------------------------------
    def runs(self) -> TinyBenchRuns:
        return TinyBenchRuns()


class TinyBenchRuns(RunReader):
    """Runs are ``<dir>/<model>/outputs.jsonl``: one JSON line per item, ``{"id", "turns"}`` or ``{"id", "error"}``."""

    def find(self, paths: Sequence[Path], models: Sequence[str] = (), official: Path | None = None) -> RunSearch:
        """Runs are ``<dir>/<model>/outputs.jsonl``; a path may also be one model folder."""
        runs: list[RunRef] = []
        seen: list[str] = []  # every model folder with outputs, selected or not
        skipped: list[tuple[str, str]] = []
        warnings: list[str] = []
        if official is not None:
            warnings.append(f"TinyBench runs have no score files; --scores {official} is ignored")
        for path in map(Path, paths):
            if not path.exists():
                raise AdapterError(f"results folder {path} does not exist")
            if not path.is_dir():
                raise AdapterError(f"{path} is not a folder (expected <dir>/<model>/{OUTPUTS_FILE})")
            folders = [path] if (path / OUTPUTS_FILE).is_file() else sorted(p for p in path.iterdir() if p.is_dir())
            for folder in folders:
                outputs = folder / OUTPUTS_FILE
                if not outputs.is_file():
                    skipped.append((str(folder), f"no {OUTPUTS_FILE}"))
                elif outputs.stat().st_size == 0:
                    skipped.append((str(folder), f"{OUTPUTS_FILE} is empty"))
                else:
                    seen.append(folder.name)
                    if models and folder.name not in models:
                        skipped.append((str(folder), f"not selected by --model ({folder.name})"))
                    else:
                        runs.append(RunRef(model=folder.name, location=folder))
        missing = [m for m in models if m not in seen]
        if missing:
            raise AdapterError(f"--model {', '.join(missing)}: no {OUTPUTS_FILE} of that name under "
                               f"{', '.join(map(str, paths))} (found: {', '.join(sorted(set(seen))) or 'none'})")
        found = [run.model for run in runs]
        duplicates = sorted({m for m in found if found.count(m) > 1})
        if duplicates:
            raise AdapterError(f"model {', '.join(duplicates)} appears in several result folders; "
                               "pass one folder per model name")
        return RunSearch(runs=tuple(sorted(runs, key=lambda r: r.model)), skipped=tuple(skipped),
                         warnings=tuple(warnings))

    def read(self, run: RunRef, item_ids: Iterable[str]) -> RunLoad:
        """One rollout per wanted id; an ``error`` entry is a rollout without turns, never "no call"."""
        path = run.location / OUTPUTS_FILE
        wanted = set(item_ids)
        rollouts: dict[str, Rollout] = {}
        warnings: list[str] = []
        bad_lines = errors = 0
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError as exc:
            raise AdapterError(f"cannot read {path}: {exc}") from exc
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                bad_lines += 1
                warnings.append(f"{run.model}: {path.name} line {number} is not JSON ({exc.msg}); skipped")
                continue
            item_id = record.get("id") if isinstance(record, dict) else None
            if not isinstance(item_id, str):
                bad_lines += 1
                warnings.append(f"{run.model}: {path.name} line {number} has no string id; skipped")
                continue
            if item_id not in wanted:
                continue
            if item_id in rollouts:
                warnings.append(f"{run.model}: {item_id} appears again on line {number}; the first entry is used")
                continue
            rollout = self._rollout(item_id, record)
            errors += rollout.turns is None
            rollouts[item_id] = rollout
        notes = {"error_entries": errors, "bad_lines": bad_lines}
        return RunLoad(run=run, rollouts=rollouts, warnings=tuple(warnings), notes=notes)

    @staticmethod
    def _rollout(item_id: str, record: dict) -> Rollout:
        if "error" in record:
            return Rollout(item_id, None, str(record["error"]) or "error entry")
        turns = record.get("turns")
        if not isinstance(turns, list) or not all(isinstance(turn, list) for turn in turns):
            # unreadable is unscored, never "held back"
            return Rollout(item_id, None, "malformed entry: 'turns' is not a list of lists of steps")
        return Rollout(item_id, tuple(tuple(tuple(parse_step(step)) for step in turn) for turn in turns))

    def write(self, directory: Path, model: str, rollouts: Mapping[str, Sequence[Sequence[Sequence[Call]]]]) -> RunRef:
        """Write ``<directory>/<model>/outputs.jsonl``: python-style call text per step, prose for an empty one."""
        folder = Path(directory) / model
        folder.mkdir(parents=True, exist_ok=True)
        lines = []
        for item_id in sorted(rollouts):
            turns = [[_step_text(step) for step in turn] for turn in rollouts[item_id]]
            lines.append(json.dumps({"id": item_id, "turns": turns}, ensure_ascii=False))
        (folder / OUTPUTS_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
        return RunRef(model=model, location=folder)


def _step_text(calls: Sequence[Call]) -> str:
    if not calls:
        return PROSE_REPLY
    return "[" + ", ".join(call.render() for call in calls) + "]"
