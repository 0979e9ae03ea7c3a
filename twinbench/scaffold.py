"""``twinbench new-adapter NAME --dir DIR``: a package to start a leaderboard adapter from.

The package is complete and passes its own test before you change a line: a JSONL
leaderboard of single-turn items (``data/items.jsonl``), runs stored as one JSONL file
per model, the offered-tool decision rule, and a test that scores the built-in reference
policies at 100 / 50 / 50 through the adapter's own writer and reader. Replace the data
and the two readers with your leaderboard's.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from string import Template

from twinbench.errors import TwinbenchError

NAME = re.compile(r"^[a-z][a-z0-9_]{0,40}$")


class ScaffoldError(TwinbenchError):
    """The adapter name or target folder cannot be used."""


PYPROJECT = Template('''\
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "twinbench-$name"
version = "0.1.0"
description = "A twinbench adapter for $title"
requires-python = ">=3.11"
dependencies = ["twinbench"]

[project.optional-dependencies]
test = ["pytest>=8"]

# this line is what makes `twinbench score --adapter $name` find the adapter
[project.entry-points."twinbench.adapters"]
$name = "twinbench_$name:$cls"

[tool.setuptools.packages.find]
include = ["twinbench_$name*"]

[tool.setuptools.package-data]
"twinbench_$name" = ["data/*.jsonl"]
''')

MODULE = Template('''\
"""A twinbench adapter for $title.

Data: ``data/items.jsonl``, one item per line::

    {"id": "a1", "side": "should_act", "question": "...", "tools": ["book_room", ...],
     "reference": ["book_room(city='Oslo')"]}
    {"id": "q1", "side": "should_ask", "twin": "a1", "question": "...", "tools": [...], "reference": []}

A should-ask item names its complete twin; discovery verifies the pair by content. Model
outputs: one JSONL file per model (``--results FILE``, the model named by the file stem),
each line ``{"id": ..., "response": "<call text or prose>"}`` or ``{"id": ..., "error": ...}``.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from twinbench.adapter import Adapter, AdapterError, RunReader
from twinbench.calls import parse_python_calls, parse_step
from twinbench.model import Call, Item, Rollout, RunLoad, RunRef, RunSearch, Side, Turn
from twinbench.rules import OfferedToolRule

DATA = Path(__file__).resolve().parent / "data" / "items.jsonl"
PROSE = "Could you tell me what is missing?"


def _item(row: dict) -> Item:
    refs = tuple(str(r) for r in row.get("reference", []))
    calls = tuple(c for r in refs for c in parse_python_calls(r))
    turn = Turn(index=0, user_text=(str(row["question"]),), tools=tuple(row["tools"]), reference=calls,
                reference_text=refs)
    return Item(id=str(row["id"]), category=str(row.get("category", row["side"])), side=Side(row["side"]),
                turns=(turn,), family=row.get("twin") or row["id"])


class $cls(Adapter):
    name = "$name"
    description = "$title (made with twinbench new-adapter)"

    def __init__(self, data: Path | None = None) -> None:
        self.data = Path(data) if data else DATA

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--${name_dash}-data", metavar="FILE", type=Path, default=None,
                            help="the items file (default: the one shipped with the adapter)")

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> $cls:
        return cls(getattr(args, "${name}_data", None))

    @functools.cached_property
    def _rows(self) -> list[dict]:
        try:
            text = self.data.read_text(encoding="utf-8")
        except OSError as exc:
            raise AdapterError(f"cannot read {self.data}: {exc.strerror}") from None
        rows = []
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise AdapterError(f"{self.data} line {number} is not JSON ({exc.msg})") from None
        return rows

    def describe(self) -> dict[str, str]:
        digest = hashlib.sha256(self.data.read_bytes()).hexdigest()
        return {"dataset": "$title", "release": "0.1.0", "source": "packaged", "location": str(self.data),
                "fingerprint": digest}

    @functools.cached_property
    def _items(self) -> tuple[Item, ...]:
        try:
            return tuple(_item(row) for row in self._rows)
        except (KeyError, TypeError, ValueError) as exc:
            raise AdapterError(f"{self.data}: an item lacks a field or has a bad value ({exc})") from None

    def items(self) -> Sequence[Item]:
        return self._items

    def twin_hints(self, items: Sequence[Item]) -> Mapping[str, Sequence[str]]:
        twins = {str(row["id"]): [str(row["twin"])] for row in self._rows if row.get("twin")}
        return {item.id: twins.get(item.id, []) for item in items if item.side is Side.ASK}

    def rule(self) -> OfferedToolRule:
        # any call of an offered tool is acting; a stateful leaderboard would use
        # twinbench.rules.EffectTableRule with an effect table instead
        return OfferedToolRule()

    def runs(self) -> Runs:
        return Runs({item.id: item for item in self.items()})


class Runs(RunReader):
    def __init__(self, items: Mapping[str, Item]) -> None:
        self.items = items

    def find(self, paths: Sequence[Path], models: Sequence[str] = (), official: Path | None = None) -> RunSearch:
        runs = []
        for path in map(Path, paths):
            if not path.is_file():
                raise AdapterError(f"--results {path} is not a file")
            if not models or path.stem in models:
                runs.append(RunRef(model=path.stem, location=path))
        return RunSearch(tuple(sorted(runs, key=lambda r: r.model)))

    def read(self, run: RunRef, item_ids: Iterable[str]) -> RunLoad:
        wanted, rollouts, warnings = set(item_ids), {}, []
        for number, line in enumerate(Path(run.location).read_text(encoding="utf-8").splitlines(), start=1):
            try:
                row = json.loads(line)
                item_id = str(row["id"])
            except (json.JSONDecodeError, KeyError, TypeError):
                warnings.append(f"{run.location} line {number}: not a result row; skipped")
                continue
            if item_id in wanted and item_id not in rollouts:
                if "error" in row or not isinstance(row.get("response"), str):
                    rollouts[item_id] = Rollout(item_id, None, str(row.get("error", "no response")))
                else:
                    rollouts[item_id] = Rollout(item_id, ((tuple(parse_step(row["response"])),),))
        return RunLoad(run=run, rollouts=rollouts, warnings=tuple(warnings))

    def write(self, directory: Path, model: str, rollouts: Mapping[str, Sequence[Sequence[Sequence[Call]]]]) -> RunRef:
        path = Path(directory) / f"{model}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = []
        for item_id, turns in sorted(rollouts.items()):
            calls = [c for step in turns[0] for c in step] if turns else []
            text = "[" + ", ".join(c.render() for c in calls) + "]" if calls else PROSE
            lines.append(json.dumps({"id": item_id, "response": text}))
        path.write_text("\\n".join(lines) + "\\n", encoding="utf-8")
        return RunRef(model=model, location=path)
''')

TEST = Template('''\
"""The adapter's own check: discovery pairs every should-ask item, and the reference
policies score oracle 100, always-act 50, never-act 50 through its writer and reader."""

import json

from twinbench.cli import main
from twinbench.discovery import discover_for
from twinbench_$name import $cls


def test_every_should_ask_item_is_paired():
    manifest = discover_for($cls())
    assert manifest.dropped == ()
    assert len(manifest.scored) == $pairs


def test_reference_policies_score_100_50_50(capsys):
    assert main(["score", "--adapter", "$name", "--bootstrap", "0", "--format", "json"]) == 0
    models = {m["model"]: m["decision"] for m in json.loads(capsys.readouterr().out)["models"]}
    assert models == {"oracle": 100.0, "always-act": 50.0, "never-act": 50.0}
''')

README = Template('''\
# twinbench-$name

A [twinbench](https://pypi.org/project/twinbench/) adapter for $title, made with
`twinbench new-adapter $name`.

```bash
pip install -e '.[test]' && python -m pytest     # the adapter's own check (reference policies 100/50/50)
twinbench pairs --adapter $name                   # the twin pairs and every item's fate
twinbench score --adapter $name --results runs/my-model.jsonl
```

Replace `twinbench_$name/data/items.jsonl` with your leaderboard's items and `Runs` with the
reader of its outputs; keep the test passing.
''')

ITEMS = [
    {"id": "act-1", "side": "should_act", "category": "complete", "question": "Book a room in Oslo for two nights.",
     "tools": ["book_room", "find_hotels"], "reference": ["book_room(city='Oslo', nights=2)"]},
    {"id": "ask-1", "side": "should_ask", "category": "value_removed", "twin": "act-1",
     "question": "Book a room for two nights.", "tools": ["book_room", "find_hotels"], "reference": []},
    {"id": "act-2", "side": "should_act", "category": "complete", "question": "Cancel booking 42.",
     "tools": ["cancel_booking", "find_hotels"], "reference": ["cancel_booking(booking_id=42)"]},
    {"id": "ask-2", "side": "should_ask", "category": "tool_removed", "twin": "act-2",
     "question": "Cancel booking 42.", "tools": ["find_hotels"], "reference": []},
    {"id": "act-3", "side": "should_act", "category": "complete", "question": "Send the invoice to ana@example.org.",
     "tools": ["send_invoice"], "reference": ["send_invoice(email='ana@example.org')"]},
    {"id": "ask-3", "side": "should_ask", "category": "value_removed", "twin": "act-3",
     "question": "Send the invoice.", "tools": ["send_invoice"], "reference": []},
]


def create(name: str, directory: Path) -> list[Path]:
    """Write the package for adapter ``name`` into ``directory`` (new or empty); return the files."""
    if not NAME.match(name):
        raise ScaffoldError(f"adapter name {name!r}: use lower-case letters, digits and _ (starting with a letter)")
    directory = Path(directory)
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise ScaffoldError(f"--dir {directory} exists and is not an empty folder; choose a new one")
    title = name.replace("_", " ").title()
    fields = {"name": name, "cls": "".join(part.title() for part in name.split("_")) + "Adapter", "name_dash": name.replace("_", "-"), "title": title,
              "pairs": sum(1 for i in ITEMS if i["side"] == "should_ask")}
    package = directory / f"twinbench_{name}"
    files = {
        directory / "pyproject.toml": PYPROJECT.substitute(fields),
        directory / "README.md": README.substitute(fields),
        package / "__init__.py": MODULE.substitute(fields),
        package / "data" / "items.jsonl": "".join(json.dumps(i) + "\n" for i in ITEMS),
        directory / "tests" / f"test_{name}.py": TEST.substitute(fields),
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return list(files)
