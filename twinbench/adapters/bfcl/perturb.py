"""Constructed BFCL twins, written the way bfcl-eval 2026.3.23 runs its own ``miss_func`` items.

How BFCL withholds a function (read in bfcl-eval's ``utils.py`` and ``model_handler/base_handler.py``,
not copied): a ``miss_func`` entry is its ``base`` scenario with one empty question turn inserted
after the anchor, and ``missed_function: {"<that turn>": [names]}``. The loader takes the named
function docs off the entry's function list; the handler gives them back at that turn, with its
own user message saying more functions are available. The ground truth is the base's with an
empty turn at the anchor (the model cannot act yet) and the base's anchor calls on the inserted turn.

Where bfcl-eval reads items: only from its package folder (``PROMPT_PATH = PACKAGE_ROOT / "data"``,
one file per category, ``BFCL_v4_<category>.json``, and the same name under ``possible_answer/``);
no option or variable points it elsewhere (``BFCL_PROJECT_ROOT`` moves results, scores and the
id list only), and a test id must be ``<category>_<index>`` of a known category. So the constructed
items are ``multi_turn_miss_func`` items with indices from :data:`FIRST_INDEX` on, written into
copies of the release's two ``miss_func`` files (shipped items first, unchanged), to be put in
place of the installed ones, and ``test_case_ids_to_generate.json`` lists the constructed ids
for ``bfcl generate --run-ids`` (read from ``BFCL_PROJECT_ROOT``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from twinbench.contract.perturber import Perturber
from twinbench.errors import AdapterError
from twinbench.model import Item
from twinbench.model.constructed import Construction, ValueRemoval

from . import dataset

#: the first index of a constructed item; its index is FIRST_INDEX + TURNS * base index + anchor turn
FIRST_INDEX = 100000
TURNS = 100
CATEGORY = "miss_func"
VALUE_CATEGORY = "miss_param"
IDS_FILE = "test_case_ids_to_generate.json"
REVIEWED_FILE = "reviewed.json"
REVIEW = "constructed by twinbench perturb (tool removal, verified by content); outside the hand review"
VALUE_REVIEW = "constructed by twinbench perturb (value removal); its rewrite is not approved in a review"
#: what stands in the anchor turn's words for the removed value (BFCL's own miss_param items say "the file",
#: "several lines": a neutral phrase that names no value)
NEUTRAL = "the one I will name next"


def constructed_index(base_index: int, turn: int) -> int:
    if not 0 <= turn < TURNS:
        raise AdapterError(f"turn {turn}: a constructed BFCL item's anchor must be below turn {TURNS}")
    return FIRST_INDEX + TURNS * base_index + turn


def is_constructed(item_id: str) -> bool:
    return (dataset.category_of(item_id) in (CATEGORY, VALUE_CATEGORY)
            and dataset.scenario_index(item_id) >= FIRST_INDEX)


def origin(item_id: str) -> tuple[int, int]:
    """The base scenario index and anchor turn a constructed id was made from."""
    return divmod(dataset.scenario_index(item_id) - FIRST_INDEX, TURNS)


def data_files(out: Path, prefix: str, category: str = CATEGORY) -> tuple[Path, Path]:
    """Where the constructed question and answer files go below ``out`` (the layout of ``bfcl_eval``)."""
    data = Path(out) / "bfcl_eval" / "data"
    name = f"{prefix}_multi_turn_{category}.json"
    return data / name, data / "possible_answer" / name


def entry(raw: dataset.RawItem, turn: int, withheld: Sequence[str], new_id: str) -> tuple[dict, dict]:
    """The question and answer records of the twin withholding ``withheld`` until after ``turn``."""
    question = [*raw.question[:turn + 1], [], *raw.question[turn + 1:]]
    truth = [*raw.ground_truth[:turn], [], *raw.ground_truth[turn:]]
    record: dict = {"id": new_id, "question": question, "initial_config": raw.initial_config,
                    "involved_classes": list(raw.involved_classes), "missed_function": {str(turn + 1): list(withheld)}}
    return record, {"id": new_id, "ground_truth": truth}


def _quoted(value: str, words: str) -> str:
    """The value as it stands in the words: with its quotes when the words quote it."""
    for quote in ("'", '"'):
        if quote + value + quote in words:
            return quote + value + quote
    return value


def rewrite_words(words: str, value: str) -> tuple[str, str]:
    """The words with ``value`` replaced by :data:`NEUTRAL`, and the next turn's words that supply it
    (phrased as BFCL's miss_param items supply theirs: "To be exact, it should be ...")."""
    shown = _quoted(value, words)
    at = words.index(shown)
    before, after = words[:at], words[at + len(shown):]
    phrase = NEUTRAL
    if before.lower().endswith(("the ", "a ")):  # "one of the 'log.txt' files": no second article
        phrase = NEUTRAL.split(" ", 1)[1]
    return before + phrase + after, f"To be exact, it should be {shown}."


def value_entry(raw: dataset.RawItem, turn: int, value: str, new_id: str) -> tuple[dict, dict]:
    """The question and answer records of the twin with ``value`` taken out of turn ``turn``'s words
    and given on an inserted next turn, the layout of BFCL's own miss_param items."""
    anchor = []
    supplied = ""
    for message in raw.question[turn]:
        content = message.get("content") if isinstance(message, dict) else None
        if not supplied and message.get("role") == "user" and isinstance(content, str) and value in content:
            rewritten, supplied = rewrite_words(content, value)
            message = {**message, "content": rewritten}
        anchor.append(message)
    question = [*raw.question[:turn], anchor, [{"role": "user", "content": supplied}], *raw.question[turn + 1:]]
    truth = [*raw.ground_truth[:turn], [], *raw.ground_truth[turn:]]
    record: dict = {"id": new_id, "question": question, "initial_config": raw.initial_config,
                    "involved_classes": list(raw.involved_classes)}
    return record, {"id": new_id, "ground_truth": truth}


class BFCLPerturber(Perturber):
    """BFCL's constructed twins: ``base`` items only (``miss_func`` is made from them)."""

    def __init__(self, adapter: Any, remake: Callable[[Path, bool], Any]) -> None:
        self.adapter = adapter  # the BFCL adapter whose release and items are perturbed
        self._remake = remake

    def refuse(self, item: Item) -> str | None:
        if item.category != "base":
            return f"a {item.category} item: BFCL makes its miss_func items from base items only"
        return None

    def new_id(self, item: Item, turn: int) -> str:
        return f"multi_turn_{CATEGORY}_{constructed_index(dataset.scenario_index(item.id), turn)}"

    def write(self, constructions: Sequence[Construction], out: Path) -> list[Path]:
        from twinbench.perturb.run import write_atomically

        release = self.adapter.release
        out = Path(out)
        if out.resolve().is_relative_to(release.root.resolve()):
            raise AdapterError(f"--out {out} is inside the release being read ({release.root}); give another folder")
        raw = {r.id: r for r in self.adapter.data.raw}
        questions, answers = _lines(release.question_file(CATEGORY)), _lines(release.answer_file(CATEGORY))
        made = [c for c in constructions if c.perturbable]
        for c in made:
            question, answer = entry(raw[c.item_id], c.turn, c.withheld, c.new_id)
            questions.append(json.dumps(question, ensure_ascii=False))
            answers.append(json.dumps(answer, ensure_ascii=False))
        question_path, answer_path = data_files(out, release.prefix)
        write_atomically(question_path, "".join(line + "\n" for line in questions))
        write_atomically(answer_path, "".join(line + "\n" for line in answers))
        ids_path = out / IDS_FILE
        write_atomically(ids_path, json.dumps({f"multi_turn_{CATEGORY}": [c.new_id for c in made]}, indent=2) + "\n")
        return [question_path, answer_path, ids_path]

    def rewrite(self, item: Item, turn: int, argument: str, value: str) -> tuple[str, str] | None:
        return rewrite_words("\n".join(item.turns[turn].user_text), value)

    def new_value_id(self, item: Item, turn: int) -> str:
        return f"multi_turn_{VALUE_CATEGORY}_{constructed_index(dataset.scenario_index(item.id), turn)}"

    def write_values(self, removals: Sequence[ValueRemoval], out: Path) -> list[Path]:
        from twinbench.perturb.run import write_atomically

        release = self.adapter.release
        raw = {r.id: r for r in self.adapter.data.raw}
        questions = _lines(release.question_file(VALUE_CATEGORY))
        answers = _lines(release.answer_file(VALUE_CATEGORY))
        made = [r for r in removals if r.perturbable]
        for r in made:
            question, answer = value_entry(raw[r.item_id], r.turn, r.value, r.new_id)
            questions.append(json.dumps(question, ensure_ascii=False))
            answers.append(json.dumps(answer, ensure_ascii=False))
        question_path, answer_path = data_files(Path(out), release.prefix, VALUE_CATEGORY)
        write_atomically(question_path, "".join(line + "\n" for line in questions))
        write_atomically(answer_path, "".join(line + "\n" for line in answers))
        ids_path = Path(out) / IDS_FILE
        ids = json.loads(ids_path.read_text(encoding="utf-8")) if ids_path.is_file() else {}
        ids[f"multi_turn_{VALUE_CATEGORY}"] = [r.new_id for r in made]
        write_atomically(ids_path, json.dumps(ids, indent=2) + "\n")
        return [question_path, answer_path]

    def record_review(self, approved: dict[str, str], rejected: Sequence[str], source: Path | None,
                      out: Path) -> list[Path]:
        from twinbench.perturb.run import write_atomically

        path = Path(out) / REVIEWED_FILE
        if source is None:  # written anew without a review: an earlier review's approvals no longer hold
            path.unlink(missing_ok=True)
            return []
        record = {"review": Path(source).name, "approved": dict(sorted(approved.items())), "rejected": sorted(rejected)}
        write_atomically(path, json.dumps(record, indent=2, ensure_ascii=False) + "\n")
        return [path]

    def reload(self, out: Path, only: bool = True) -> Any:
        return self._remake(Path(out), only)


def _lines(path: Path) -> list[str]:
    try:
        return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, UnicodeDecodeError) as exc:
        raise AdapterError(f"cannot read {path}: {exc}") from None


def load_constructed(out: Path, prefix: str, base: dict[str, dataset.RawItem]) -> list[dataset.RawItem]:
    """The constructed items below ``out`` (``--constructed DIR``), checked against their base items.

    Only ids from :data:`FIRST_INDEX` on are read (the shipped items in the same files come from the
    release itself); a tool-removed item must be its base item with the one inserted turn, a
    value-removed one (the miss_param files, when written) its base item with the anchor's words
    rewritten and the one inserted turn that supplies the value, or it is refused.
    """
    question_path, answer_path = data_files(out, prefix)
    for path in (question_path, answer_path):
        if not path.is_file():
            raise AdapterError(f"--constructed {out}: {path.relative_to(out)} is missing "
                               "(write it with `twinbench perturb --adapter bfcl --out DIR`)")
    found = [*_read_constructed(question_path, answer_path, CATEGORY, base, _tool_removed),
             *_read_values(out, prefix, base)]
    if not found:
        raise AdapterError(f"--constructed {out}: {question_path.name} holds no constructed item "
                           f"(ids from multi_turn_{CATEGORY}_{FIRST_INDEX} on)")
    return found


def _read_values(out: Path, prefix: str, base: dict[str, dataset.RawItem]) -> list[dataset.RawItem]:
    question_path, answer_path = data_files(out, prefix, VALUE_CATEGORY)
    if not question_path.is_file() and not answer_path.is_file():
        return []
    for path in (question_path, answer_path):
        if not path.is_file():
            raise AdapterError(f"--constructed {out}: {path.relative_to(out)} is missing "
                               "(write it with `twinbench perturb --adapter bfcl --values --out DIR`)")
    return _read_constructed(question_path, answer_path, VALUE_CATEGORY, base, _value_removed)


def _read_constructed(question_path: Path, answer_path: Path, category: str, base: dict[str, dataset.RawItem],
                      check: Callable[[dict, list, dataset.RawItem, int, str], str | None]) -> list[dataset.RawItem]:
    answers = {rec.get("id"): rec.get("ground_truth") for _, rec in dataset._read_jsonl(answer_path)}
    found: list[dataset.RawItem] = []
    for number, rec in dataset._read_jsonl(question_path):
        item_id = rec.get("id")
        if (not isinstance(item_id, str) or not dataset.ID_PATTERN.match(item_id) or not is_constructed(item_id)
                or dataset.category_of(item_id) != category):
            continue
        where = f"--constructed {question_path} line {number} ({item_id})"
        base_index, turn = origin(item_id)
        source = base.get(f"multi_turn_base_{base_index}")
        if source is None:
            raise AdapterError(f"{where}: made from multi_turn_base_{base_index}, which this release does not have")
        missed = dataset._missed_function(item_id, rec.get("missed_function"))
        why = check(rec, answers.get(item_id), source, turn, item_id)
        if why is None and ((rec.get("initial_config") or {}) != source.initial_config
                            or list(rec.get("involved_classes") or ()) != list(source.involved_classes)):
            why = f"does not start from the world of {source.id}"
        if why is not None:
            raise AdapterError(f"{where}: {why}; rewrite it with `twinbench perturb`")
        found.append(dataset.RawItem(id=item_id, category=category, question=rec["question"],
                                     ground_truth=answers[item_id], involved_classes=source.involved_classes,
                                     missed_function=missed, initial_config=source.initial_config))
    return found


def _tool_removed(rec: dict, truth: list | None, source: dataset.RawItem, turn: int, item_id: str) -> str | None:
    missed = dataset._missed_function(item_id, rec.get("missed_function"))
    names = missed.get(str(turn + 1))
    if len(missed) != 1 or not names:
        return f"missed_function must name the withheld tools at turn {turn + 1} only"
    question, answer = entry(source, turn, names, item_id)
    if rec.get("question") != question["question"] or truth != answer["ground_truth"]:
        return f"is not {source.id} with turn {turn + 1} inserted"
    return None


def _value_removed(rec: dict, truth: list | None, source: dataset.RawItem, turn: int, item_id: str) -> str | None:
    question = rec.get("question")
    if rec.get("missed_function"):
        return "a value-removed item withholds no function"
    if not isinstance(question, list) or len(question) != len(source.question) + 1:
        return f"is not {source.id} with one turn inserted after turn {turn}"
    inserted = question[turn + 1]
    if (question[:turn] != source.question[:turn] or question[turn + 2:] != source.question[turn + 1:]
            or not isinstance(inserted, list) or len(inserted) != 1 or not isinstance(inserted[0], dict)
            or inserted[0].get("role") != "user" or not isinstance(inserted[0].get("content"), str)):
        return f"is not {source.id} with one user turn inserted after turn {turn}"
    if question[turn] == source.question[turn]:
        return f"turn {turn} has the words of {source.id}: no value was removed"
    if truth != [*source.ground_truth[:turn], [], *source.ground_truth[turn:]]:
        return f"its ground truth is not that of {source.id} with an empty turn {turn}"
    return None


def read_reviewed(out: Path, items: dict[str, Item]) -> dict[str, str]:
    """The approved value-removed ids of ``out``'s review record, each with its certification reason.

    An approved id must be a constructed value-removed item whose anchor words are the words the
    reviewer approved; otherwise the record is refused (the folder changed after the review).
    """
    path = Path(out) / REVIEWED_FILE
    if not path.is_file():
        return {}
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise AdapterError(f"--constructed {out}: {REVIEWED_FILE} cannot be read ({exc})") from None
    approved = record.get("approved") if isinstance(record, dict) else None
    source = record.get("review") if isinstance(record, dict) else None
    if not isinstance(approved, dict) or not isinstance(source, str) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in approved.items()):
        raise AdapterError(f"--constructed {out}: {REVIEWED_FILE} must hold the review file's name and the "
                           "approved ids with their rewritten words; write it with `twinbench perturb --reviewed FILE`")
    out_ids: dict[str, str] = {}
    for new_id, words in approved.items():
        item = items.get(new_id)
        if item is None or dataset.category_of(new_id) != VALUE_CATEGORY:
            raise AdapterError(f"--constructed {out}: {REVIEWED_FILE} approves {new_id}, no value-removed item "
                               "of the folder")
        turn = origin(new_id)[1]
        if "\n".join(item.turns[turn].user_text) != words:
            raise AdapterError(f"--constructed {out}: {REVIEWED_FILE} approves other words for {new_id} than the "
                               "folder holds; review the rewrites again")
        out_ids[new_id] = f"value removal approved by hand in the review file {source}"
    return out_ids
