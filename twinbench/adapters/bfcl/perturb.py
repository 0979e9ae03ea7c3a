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
from twinbench.model.constructed import Construction

from . import dataset

#: the first index of a constructed item; its index is FIRST_INDEX + TURNS * base index + anchor turn
FIRST_INDEX = 100000
TURNS = 100
CATEGORY = "miss_func"
IDS_FILE = "test_case_ids_to_generate.json"
REVIEW = "constructed by twinbench perturb (tool removal, verified by content); outside the hand review"


def constructed_index(base_index: int, turn: int) -> int:
    if not 0 <= turn < TURNS:
        raise AdapterError(f"turn {turn}: a constructed BFCL item's anchor must be below turn {TURNS}")
    return FIRST_INDEX + TURNS * base_index + turn


def is_constructed(item_id: str) -> bool:
    return dataset.category_of(item_id) == CATEGORY and dataset.scenario_index(item_id) >= FIRST_INDEX


def origin(item_id: str) -> tuple[int, int]:
    """The base scenario index and anchor turn a constructed id was made from."""
    return divmod(dataset.scenario_index(item_id) - FIRST_INDEX, TURNS)


def data_files(out: Path, prefix: str) -> tuple[Path, Path]:
    """Where the constructed question and answer files go below ``out`` (the layout of ``bfcl_eval``)."""
    data = Path(out) / "bfcl_eval" / "data"
    name = f"{prefix}_multi_turn_{CATEGORY}.json"
    return data / name, data / "possible_answer" / name


def entry(raw: dataset.RawItem, turn: int, withheld: Sequence[str], new_id: str) -> tuple[dict, dict]:
    """The question and answer records of the twin withholding ``withheld`` until after ``turn``."""
    question = [*raw.question[:turn + 1], [], *raw.question[turn + 1:]]
    truth = [*raw.ground_truth[:turn], [], *raw.ground_truth[turn:]]
    record: dict = {"id": new_id, "question": question, "initial_config": raw.initial_config,
                    "involved_classes": list(raw.involved_classes), "missed_function": {str(turn + 1): list(withheld)}}
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
    release itself); each must be its base item with the one inserted turn, or it is refused.
    """
    question_path, answer_path = data_files(out, prefix)
    for path in (question_path, answer_path):
        if not path.is_file():
            raise AdapterError(f"--constructed {out}: {path.relative_to(out)} is missing "
                               "(write it with `twinbench perturb --adapter bfcl --out DIR`)")
    answers = {rec.get("id"): rec.get("ground_truth") for _, rec in dataset._read_jsonl(answer_path)}
    found: list[dataset.RawItem] = []
    for number, rec in dataset._read_jsonl(question_path):
        item_id = rec.get("id")
        if not isinstance(item_id, str) or not dataset.ID_PATTERN.match(item_id) or not is_constructed(item_id):
            continue
        where = f"--constructed {question_path} line {number} ({item_id})"
        base_index, turn = origin(item_id)
        source = base.get(f"multi_turn_base_{base_index}")
        if source is None:
            raise AdapterError(f"{where}: made from multi_turn_base_{base_index}, which this release does not have")
        missed = dataset._missed_function(item_id, rec.get("missed_function"))
        names = missed.get(str(turn + 1))
        if len(missed) != 1 or not names:
            raise AdapterError(f"{where}: missed_function must name the withheld tools at turn {turn + 1} only")
        question, truth = entry(source, turn, names, item_id)
        if (rec.get("question") != question["question"] or answers.get(item_id) != truth["ground_truth"]
                or (rec.get("initial_config") or {}) != source.initial_config
                or list(rec.get("involved_classes") or ()) != list(source.involved_classes)):
            raise AdapterError(f"{where}: is not {source.id} with turn {turn + 1} inserted; rewrite it with "
                               "`twinbench perturb`")
        found.append(dataset.RawItem(id=item_id, category=CATEGORY, question=question["question"],
                                     ground_truth=truth["ground_truth"], involved_classes=source.involved_classes,
                                     missed_function=missed, initial_config=source.initial_config))
    if not found:
        raise AdapterError(f"--constructed {out}: {question_path.name} holds no constructed item "
                           f"(ids from multi_turn_{CATEGORY}_{FIRST_INDEX} on)")
    return found
