"""When2Call: single-turn items where the right move is a tool call, a question, or a refusal.

When2Call (NVIDIA) derives its should-ask items from complete ones and keeps the complete
request inside the should-ask row, so every twin is built from the row itself:

* ``request_for_info``: one required value (``held_out_param``) was taken out of the
  question; ``orig_question`` is the complete request. Ask twin: (question, tools); act
  twin: (orig_question, tools). A value removal.
* ``cannot_answer``: the target tool was taken off the list; ``orig_tools`` is the complete
  list. Ask twin: (question, tools); act twin: (question, orig_tools). A tool removal.
* ``tool_call``: a should-act item of the leaderboard's own. None of them is the twin of a
  should-ask row (those twins are built inline), and discovery says which of them are the
  same request as a constructed twin.

The reference call of an act twin is the row's ``answers.tool_call``. Acting is any call
of a tool on the item's list (When2Call has no world state); a called name matches a tool
spelled as When2Call's own inference script spells it (``.`` becomes ``_``). As everywhere
in twinbench, a should-ask item's calls are checked against a list that includes the
withheld tool, so calling the removed tool (When2Call's "tool hallucination") is acting.

No package ships When2Call's data: the user points ``--when2call-data`` at their copy.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import attrs

from twinbench.contract.adapter import Adapter
from twinbench.contract.rules import OfferedToolRule
from twinbench.errors import AdapterError
from twinbench.model import Call, DeclaredPerturbation, Item, Perturbation, Side, Turn
from twinbench.reading import parse_json_calls
from twinbench.reading.found import nested_deeper_than

from . import runs, suite
from .suite import TWIN_SUFFIX

#: When2Call's categories and the side each is on
SIDES = {"tool_call": Side.ACT, "request_for_info": Side.ASK, "cannot_answer": Side.ASK}
#: the category of a constructed act twin (it is a tool_call item in all but origin)
TWIN_CATEGORY = "tool_call"
#: how When2Call's inference script rewrites tool names before a model sees them
NAME_REWRITES = ((".", "_"),)


@attrs.frozen
class Row:
    """One When2Call row as read, with the tool names decoded."""

    number: int  # line number in the file
    data: Mapping[str, object]  # the row as When2Call wrote it
    tools: tuple[str, ...]
    orig_tools: tuple[str, ...] | None


@attrs.frozen
class Loaded:
    rows: Mapping[str, Row]  # by item id (uuid)
    items: tuple[Item, ...]
    problems: tuple[str, ...]
    fingerprint: str


def _tool_names(raw: object, where: str) -> tuple[str, ...]:
    """Names of a When2Call tool list (JSON strings, or already-decoded schemas)."""
    if not isinstance(raw, list):
        raise ValueError(f"{where} is not a list")
    names = []
    for entry in raw:
        try:
            schema = json.loads(entry) if isinstance(entry, str) else entry
        except RecursionError:
            schema = None
        if schema is None or nested_deeper_than(schema, runs.MAX_ROW_DEPTH):
            raise ValueError(f"{where} holds a tool that is not JSON nested at most {runs.MAX_ROW_DEPTH} levels deep")
        if not isinstance(schema, dict) or not isinstance(schema.get("name"), str):
            raise ValueError(f"{where} holds a tool without a name")
        names.append(schema["name"])
    return tuple(names)


def _reference(row: Mapping[str, object]) -> tuple[tuple[Call, ...], tuple[str, ...]]:
    answers = row.get("answers")
    text = answers.get("tool_call") if isinstance(answers, dict) else None
    calls = parse_json_calls(text) if isinstance(text, str) else []
    return (tuple(calls[:1]), (text,)) if calls else ((), ())


def _turn(question: str, tools: tuple[str, ...], reference=((), ())) -> Turn:
    calls, texts = reference
    return Turn(index=0, user_text=(question,), tools=tools, reference=calls, reference_text=texts)


def _items_of(row: Row, problems: list[str], where: str) -> Item | None:
    data = row.data
    uuid, kind = str(data["uuid"]), data["correct_answer"]
    question = data.get("question")
    if not isinstance(question, str):
        raise ValueError("no question")
    family = str(data.get("source_id") or uuid)
    if kind == "tool_call":
        return Item(uuid, "tool_call", Side.ACT, (_turn(question, row.tools, _reference(data)),), family=family)
    reference = _reference(data)
    if not reference[0]:
        problems.append(f"{where}: answers.tool_call of {uuid} is not a JSON tool call; its act twin has no reference")
    if kind == "request_for_info":
        complete = data.get("orig_question")
        if not isinstance(complete, str):
            raise ValueError("a request_for_info row without orig_question")
        twin_turn = _turn(complete, row.tools, reference)
        declared = DeclaredPerturbation(Perturbation.VALUE_REMOVED, str(data.get("held_out_param") or ""))
    else:  # cannot_answer
        if row.orig_tools is None:
            raise ValueError("a cannot_answer row without orig_tools")
        removed = sorted(set(row.orig_tools) - set(row.tools))
        twin_turn = _turn(question, row.orig_tools, reference)
        declared = DeclaredPerturbation(Perturbation.TOOL_REMOVED, removed[0] if len(removed) == 1 else "")
    twin = Item(uuid + TWIN_SUFFIX, TWIN_CATEGORY, Side.ACT, (twin_turn,), family=family)
    return Item(uuid, str(kind), Side.ASK, (_turn(question, row.tools),), family=family, twin=twin,
                perturbation=declared)


def load(path: Path) -> Loaded:
    """Read a When2Call test file: every row an item (a should-ask row with its act twin inline)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise AdapterError(f"--when2call-data {path} does not exist") from None
    except IsADirectoryError:
        raise AdapterError(f"--when2call-data {path} is a folder; give the .jsonl file") from None
    except OSError as exc:
        raise AdapterError(f"--when2call-data {path}: cannot be read ({exc.strerror})") from None
    rows: dict[str, Row] = {}
    items: list[Item] = []
    problems: list[str] = []
    for number, data, problem in runs.json_rows(raw):
        where = f"{path.name} line {number}"
        try:
            if problem is not None:
                raise ValueError(problem)
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            kind = data.get("correct_answer")
            if kind not in SIDES:
                raise ValueError(f"correct_answer {kind!r:.60} is none of {', '.join(SIDES)}")
            uuid = data.get("uuid")
            if not isinstance(uuid, str) or not uuid:
                raise ValueError("no uuid")
            if uuid in rows:
                raise ValueError(f"uuid {uuid} appears again (first on line {rows[uuid].number})")
            tools = _tool_names(data.get("tools"), "tools")
            orig = _tool_names(data["orig_tools"], "orig_tools") if data.get("orig_tools") is not None else None
            row = Row(number, data, tools, orig)
            item = _items_of(row, problems, where)
        except (json.JSONDecodeError, ValueError, TypeError, KeyError) as exc:
            problems.append(f"{where}: not a usable When2Call row ({exc}); left out")
            continue
        rows[uuid] = row
        items.append(item)
    if not items:
        raise AdapterError(f"--when2call-data {path}: no usable When2Call row"
                           + (f" ({problems[0]})" if problems else " (the file is empty)"))
    return Loaded(rows, tuple(items), tuple(problems), hashlib.sha256(raw).hexdigest())


class When2CallAdapter(Adapter):
    """When2Call: ``tool_call`` should act; ``request_for_info`` and ``cannot_answer`` should ask."""

    name = "when2call"
    description = "When2Call single-turn items (--when2call-data FILE; twins built from each should-ask row)"

    def __init__(self, data: Path | None = None) -> None:
        self.data_path = None if data is None else Path(data).expanduser()

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        group = parser.add_argument_group("When2Call data")
        group.add_argument("--when2call-data", metavar="FILE", type=Path, default=None,
                           help="a When2Call test file, e.g. when2call_test_llm_judge.jsonl (required; no package "
                                "ships When2Call, so point this at your copy)")

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> When2CallAdapter:
        return cls(getattr(args, "when2call_data", None))

    @functools.cached_property
    def loaded(self) -> Loaded:
        if self.data_path is None:
            raise AdapterError("the when2call adapter needs --when2call-data FILE (When2Call's test file, e.g. "
                               "data/test/when2call_test_llm_judge.jsonl of its repository)")
        return load(self.data_path)

    def describe(self) -> dict[str, str]:
        return {"dataset": "When2Call", "release": self.data_path.name if self.data_path else "?",
                "source": "--when2call-data", "location": str(self.data_path),
                "fingerprint": self.loaded.fingerprint}

    def data_warnings(self) -> Sequence[str]:
        return self.loaded.problems

    def input_files(self) -> Sequence[tuple[str, Path]]:
        return () if self.data_path is None else (("--when2call-data", self.data_path),)

    def items(self) -> Sequence[Item]:
        return self.loaded.items

    def twin_hints(self, items: Sequence[Item]) -> Mapping[str, Sequence[str]]:
        """None: every should-ask row carries its own twin (a value removal would match any same-tools item)."""
        return {}

    @functools.cached_property
    def _rule(self) -> OfferedToolRule:
        return OfferedToolRule(rewrites=NAME_REWRITES)

    def rule(self) -> OfferedToolRule:
        return self._rule

    def runs(self) -> runs.When2CallRuns:
        return runs.When2CallRuns(self.loaded.rows, {item.id: item for item in self._all_items})

    @functools.cached_property
    def _all_items(self) -> tuple[Item, ...]:
        return self.loaded.items + tuple(i.twin for i in self.loaded.items if i.twin is not None)

    def write_suite(self, manifest, out: Path) -> list[Path]:
        return suite.write(manifest, self.loaded.rows, self.describe(), out)
