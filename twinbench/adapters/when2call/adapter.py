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
from twinbench.contract.constructed import cache_key_of, constructed_arguments, constructed_from_args
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

    def __init__(self, data: Path | None = None, constructed: Path | None = None,
                 constructed_only: bool = False) -> None:
        self.data_path = None if data is None else Path(data).expanduser()
        #: a folder written by ``twinbench perturb`` (its should-ask twins join the items), and whether
        #: they are the only should-ask items
        self.constructed = None if constructed is None else Path(constructed).expanduser()
        self.constructed_only = constructed_only and self.constructed is not None

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        group = parser.add_argument_group("When2Call data")
        group.add_argument("--when2call-data", metavar="FILE", type=Path, default=None,
                           help="a When2Call test file, e.g. when2call_test_llm_judge.jsonl (required; no package "
                                "ships When2Call, so point this at your copy)")
        constructed_arguments(group, "when2call")

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> When2CallAdapter:
        constructed, only = constructed_from_args(args)
        return cls(getattr(args, "when2call_data", None), constructed=constructed, constructed_only=only)

    @functools.cached_property
    def loaded(self) -> Loaded:
        if self.data_path is None:
            raise AdapterError("the when2call adapter needs --when2call-data FILE (When2Call's test file, e.g. "
                               "data/test/when2call_test_llm_judge.jsonl of its repository)")
        return load(self.data_path)

    def describe(self) -> dict[str, str]:
        out = {"dataset": "When2Call", "release": self.data_path.name if self.data_path else "?",
               "source": "--when2call-data", "location": str(self.data_path),
               "fingerprint": self.loaded.fingerprint}
        if self.constructed is not None:
            out["constructed"] = str(self.constructed)
            out["population"] = "constructed" if self.constructed_only else "shipped and constructed"
            out["fingerprint"] = cache_key_of(out["fingerprint"], self._constructed[1], self.constructed_only)
        return out

    def data_warnings(self) -> Sequence[str]:
        return self.loaded.problems

    def input_files(self) -> Sequence[tuple[str, Path]]:
        return () if self.data_path is None else (("--when2call-data", self.data_path),)

    def items(self) -> Sequence[Item]:
        return self._items

    @functools.cached_property
    def _items(self) -> tuple[Item, ...]:
        if self.constructed is None:
            return self.loaded.items
        shipped = self.loaded.items
        if self.constructed_only:
            shipped = tuple(item for item in shipped if item.side is Side.ACT)
        return shipped + tuple(item for item, _ in self._constructed[0].values())

    @functools.cached_property
    def _constructed(self) -> tuple[dict[str, tuple[Item, Row]], str]:
        """The constructed should-ask items and rows of ``--constructed DIR`` by id, and the file's hash."""
        from .perturb import ASK_SUFFIX, constructed_item, load_constructed

        assert self.constructed is not None
        by_id = {item.id: item for item in self.loaded.items}
        out: dict[str, tuple[Item, Row]] = {}
        for new_id, data in load_constructed(self.constructed, self.loaded.rows):
            origin = by_id[new_id.removesuffix(ASK_SUFFIX)]
            tools = _tool_names(data["tools"], "tools")
            withheld = [t for t in origin.turns[0].tools if t not in tools]
            row = Row(0, data, tools, _tool_names(data["orig_tools"], "orig_tools"))
            out[new_id] = (constructed_item(new_id, origin, tools, withheld), row)
        raw = (self.constructed / suite.SUITE_FILE).read_bytes()
        return out, hashlib.sha256(raw).hexdigest()

    def shipped_twin_of(self, item: Item) -> str | None:
        """The shipped should-ask row whose inline act twin is the same request as ``item``, or ``None``."""
        return self._same_requests.get((item.turns[0].user_text, item.turns[0].tools))

    @functools.cached_property
    def _same_requests(self) -> dict[tuple, str]:
        out: dict[tuple, str] = {}
        for item in self.loaded.items:
            if item.twin is not None and item.perturbation is not None \
                    and item.perturbation.kind is Perturbation.TOOL_REMOVED:
                out.setdefault((item.twin.turns[0].user_text, item.twin.turns[0].tools), item.id)
        return out

    def twin_hints(self, items: Sequence[Item]) -> Mapping[str, Sequence[str]]:
        """A shipped should-ask row carries its own twin (a value removal would match any same-tools item);
        a constructed one names the tool_call row it was made from."""
        from .perturb import ASK_SUFFIX

        constructed = self._constructed[0] if self.constructed is not None else {}
        return {item.id: [item.id.removesuffix(ASK_SUFFIX)] for item in items if item.id in constructed}

    @functools.cached_property
    def _rule(self) -> OfferedToolRule:
        return OfferedToolRule(rewrites=NAME_REWRITES)

    def rule(self) -> OfferedToolRule:
        return self._rule

    def runs(self) -> runs.When2CallRuns:
        rows = dict(self.loaded.rows)
        if self.constructed is not None:
            rows.update({new_id: row for new_id, (_, row) in self._constructed[0].items()})
        return runs.When2CallRuns(rows, {item.id: item for item in self._all_items})

    @functools.cached_property
    def _all_items(self) -> tuple[Item, ...]:
        return self._items + tuple(i.twin for i in self._items if i.twin is not None)

    def perturber(self):
        """Tool-removed twins of ``tool_call`` rows, written as When2Call ``cannot_answer`` rows (see :mod:`.perturb`)."""
        from .perturb import When2CallPerturber

        return When2CallPerturber(self, lambda out, only: When2CallAdapter(self.data_path, out, only))

    def write_suite(self, manifest, out: Path) -> list[Path]:
        return suite.write(manifest, self.loaded.rows, self.describe(), out)
