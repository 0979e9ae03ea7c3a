"""Check twinbench's reading of stored steps against BFCL's own decoding.

Every failed item of a BFCL score file carries ``model_result_decoded``: the calls
BFCL's handler decoded, per turn and per step (steps it could not decode, or that
decoded to nothing, are left out). For every such item and every turn, this module
compares the function names twinbench reads from the raw steps of the result file
(:func:`twinbench.calls.read_step`) with the names in ``model_result_decoded``, and
classifies every difference:

``bfcl_failed_whole_step``
    BFCL left a step out (its decoder raised on the step as a whole, or gave nothing),
    but the step holds well-formed calls that twinbench reads: e.g. one record with
    broken arguments beside good ones, ``; `` inside a string value of a Llama call
    list, a fenced python block, a python literal in a JSON call.
``bfcl_python_dict_union``
    BFCL's Llama decoder evaluates a text without ``;`` as python, where call objects
    joined by pipes (``{...} | {...}``) are a dict union: only the last call survives.
    twinbench reads every call of the pipe.
``leaked_template_tokens``
    BFCL decoded a call whose name carries chat-template tokens
    (``echo<|channel|>commentary``); twinbench reads no call there (its reader notes the
    step as ``leaked_template_tokens``): no function of that name exists, so BFCL's
    execution of it failed too.
``name_not_a_suite_function``
    BFCL decoded a name that is no function of the suite and that twinbench does not
    read as a call (a malformed name such as ``ls\\xa0json``).
``unexplained``
    anything else; listed with item id, turn and both readings.

Differences are found per step: a turn's decoded steps are matched, in order, to the
raw steps they came from; a raw step left over holds a ``bfcl_failed_whole_step``
difference when twinbench reads calls from it. A decoded step that matches no raw
step makes its turn's difference ``unexplained``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from twinbench.errors import AdapterError
from twinbench.model import RunRef
from twinbench.reading import StepReading, read_step

from .lines import ResultsError
from .result_files import read_result_file
from .score_files import read_score_file
from .tree import RunFiles, search

__all__ = [
    "KINDS",
    "CrossCheckReport",
    "Difference",
    "TurnComparison",
    "as_json",
    "bfcl_name",
    "compare_turn",
    "crosscheck",
    "render_table",
]

BFCL_FAILED_WHOLE_STEP = "bfcl_failed_whole_step"
BFCL_PYTHON_DICT_UNION = "bfcl_python_dict_union"
LEAKED_TEMPLATE_TOKENS = "leaked_template_tokens"
NAME_NOT_A_SUITE_FUNCTION = "name_not_a_suite_function"
UNEXPLAINED = "unexplained"

#: Every difference kind, with what it means.
KINDS: Mapping[str, str] = {
    BFCL_FAILED_WHOLE_STEP: "BFCL dropped a step as a whole; it holds well-formed calls twinbench reads",
    BFCL_PYTHON_DICT_UNION: "BFCL evaluated call objects joined by pipes as a python dict union: only the last call",
    LEAKED_TEMPLATE_TOKENS: "BFCL decoded a name carrying chat-template tokens; twinbench reads no call there",
    NAME_NOT_A_SUITE_FUNCTION: "BFCL decoded a malformed name that is no suite function; twinbench reads no call",
    UNEXPLAINED: "any other difference",
}

_TEMPLATE_MARKS = ("<|", "|>")
# call objects joined by a pipe, as python would read them: a dict union
_PIPED_OBJECTS = re.compile(r"\}[ \t]*+\|[ \t]*+\{")


@attrs.frozen
class Difference:
    """One difference between the two readings of one turn of one item.

    ``twinbench`` and ``bfcl`` hold the function names each side read where the
    difference lies: one step for the principled kinds, the whole turn for ``unexplained``.
    """

    item_id: str
    turn: int
    kind: str
    twinbench: tuple[str, ...]
    bfcl: tuple[str, ...]


@attrs.frozen
class TurnComparison:
    """Both readings of one turn, whether they agree, and every difference found."""

    twinbench: tuple[str, ...]
    bfcl: tuple[str, ...]
    differences: tuple[Difference, ...]

    @property
    def agrees(self) -> bool:
        return self.twinbench == self.bfcl


@attrs.frozen
class CrossCheckReport:
    """One model's cross-check over the failed items of its score files.

    ``items_compared`` counts failed items with a ``model_result_decoded`` and a result
    entry; ``items_without_decoding`` counts failed items BFCL stored without one (an
    inference error or a forced stop) or without a usable result entry.
    """

    model: str
    location: Path
    dataset: str
    items_compared: int
    turns_compared: int
    turns_agreeing: int
    differences_by_kind: Mapping[str, int]
    differences: tuple[Difference, ...]
    items_without_decoding: int = 0
    warnings: tuple[str, ...] = ()

    @property
    def unexplained(self) -> tuple[Difference, ...]:
        return tuple(d for d in self.differences if d.kind == UNEXPLAINED)

    @property
    def agreement(self) -> float | None:
        return self.turns_agreeing / self.turns_compared if self.turns_compared else None


# --------------------------------------------------------------------------- comparing


def bfcl_name(call_text: Any) -> str:
    """The function name of one call string of ``model_result_decoded`` (``cd(folder='x')`` -> ``cd``)."""
    return str(call_text).split("(", 1)[0].strip()


def _names(reading: StepReading) -> tuple[str, ...]:
    return tuple(call.name for call in reading.calls)


def _in_suite(name: str, functions: Collection[str]) -> bool:
    return name in functions or name.rsplit(".", 1)[-1] in functions


def _explain_extra(name: str, reading: StepReading, functions: Collection[str]) -> str | None:
    """Why BFCL decoded ``name`` from a step where twinbench reads no such call; ``None``: no reason."""
    kinds = {u.kind for u in reading.unread}
    if any(mark in name for mark in _TEMPLATE_MARKS):
        return LEAKED_TEMPLATE_TOKENS if LEAKED_TEMPLATE_TOKENS in kinds else None
    if not _in_suite(name, functions) and kinds & {"malformed_call_name", LEAKED_TEMPLATE_TOKENS}:
        return NAME_NOT_A_SUITE_FUNCTION
    return None


def _step_match(
    step: Any, reading: StepReading, decoded: Sequence[str], functions: Collection[str]
) -> list[str] | None:
    """The kinds of the differences if ``decoded`` came from this step; ``None`` if it cannot have.

    BFCL decodes a step whole, so every call twinbench reads in it must be in BFCL's
    reading too (except for a python dict union); the names BFCL has in addition must
    each be explained.
    """
    names = _names(reading)
    if (
        len(names) > 1
        and tuple(decoded) == names[-1:]
        and isinstance(step, str)
        and ";" not in step
        and _PIPED_OBJECTS.search(step)
    ):
        return [BFCL_PYTHON_DICT_UNION]
    mine = Counter(names)
    theirs = Counter(decoded)
    if mine - theirs:
        return None
    kinds = []
    for name in (theirs - mine).elements():
        kind = _explain_extra(name, reading, functions)
        if kind is None:
            return None
        kinds.append(kind)
    return kinds


def compare_turn(
    item_id: str,
    turn: int,
    raw_steps: Sequence[Any],
    decoded_steps: Sequence[Sequence[Any]],
    functions: Collection[str],
) -> TurnComparison:
    """Compare one turn: its raw stored steps against BFCL's decoded steps (lists of call strings)."""
    readings = [read_step(step) for step in raw_steps]
    decoded = [tuple(bfcl_name(c) for c in step) for step in decoded_steps if isinstance(step, (list, tuple))]
    mine_all = tuple(name for reading in readings for name in _names(reading))
    theirs_all = tuple(name for step in decoded for name in step)
    differences: list[Difference] = []
    j = 0
    for step, reading in zip(raw_steps, readings):
        kinds = _step_match(step, reading, decoded[j], functions) if j < len(decoded) else None
        if kinds is not None:
            for kind in dict.fromkeys(kinds):
                differences.append(Difference(item_id, turn, kind, _names(reading), decoded[j]))
            j += 1
        elif reading.calls:
            differences.append(Difference(item_id, turn, BFCL_FAILED_WHOLE_STEP, _names(reading), ()))
    if j < len(decoded):
        differences = [Difference(item_id, turn, UNEXPLAINED, mine_all, theirs_all)]
    elif mine_all == theirs_all:
        differences = []  # explained per step, yet the turn reads the same: nothing to report
    return TurnComparison(mine_all, theirs_all, tuple(differences))


# --------------------------------------------------------------------------- score files


def _decoded_lines(path: Path) -> Iterator[tuple[str, Any]]:
    """``(id, model_result_decoded or None)`` for every failed-item line of a score file."""
    with path.open("rb") as handle:
        for raw in handle:
            if not raw.strip():
                continue
            try:
                value = json.loads(raw)
            except (ValueError, RecursionError):  # too deep, an integer too long: not JSON twinbench reads
                continue  # read_score_file reports unusable lines
            if not isinstance(value, dict) or not isinstance(value.get("id"), str):
                continue
            decoded = value.get("model_result_decoded")
            yield value["id"], decoded if isinstance(decoded, list) else None


def _check_category(
    result_path: Path, score_path: Path, functions: Collection[str], warnings: list[str]
) -> tuple[int, int, int, int, list[Difference]]:
    score = read_score_file(score_path)
    warnings.extend(f"{score_path.name}: {w}" for w in score.warnings)
    decoded_by_id = {i: d for i, d in _decoded_lines(score_path) if i in score.failed}
    entries = read_result_file(result_path, keep_ids=set(decoded_by_id)).entries
    items = turns = agreeing = without = 0
    differences: list[Difference] = []
    for item_id, decoded in decoded_by_id.items():
        entry = entries.get(item_id)
        if decoded is None or entry is None or entry.turns is None:
            without += 1
            continue
        items += 1
        for turn in range(max(len(entry.turns), len(decoded))):
            raw = entry.turns[turn] if turn < len(entry.turns) else ()
            dec = decoded[turn] if turn < len(decoded) and isinstance(decoded[turn], list) else []
            comparison = compare_turn(item_id, turn, raw, dec, functions)
            turns += 1
            agreeing += comparison.agrees
            differences.extend(comparison.differences)
    return items, turns, agreeing, without, differences


def crosscheck(
    paths: Sequence[Path | str] | Path | str,
    models: Sequence[str] = (),
    functions: Collection[str] | None = None,
    functions_of: Callable[[RunRef], Collection[str]] | None = None,
) -> list[CrossCheckReport]:
    """Cross-check every run under ``paths`` that has score files (one report per model).

    ``paths`` are result folders as ``twinbench score --adapter bfcl --results`` takes
    them; ``models`` selects runs by name. The suite's function names are ``functions``, or
    ``functions_of(run)`` per run (the adapter gives those of the release each run belongs to:
    ``BFCLAdapter().reader().check_reading(paths)``).
    """
    if (functions is None) == (functions_of is None):
        raise TypeError("crosscheck needs the suite's function names: functions or functions_of, one of them")
    if isinstance(paths, (str, Path)):
        paths = [paths]
    found_runs = search([Path(p) for p in paths], tuple(models))
    reports: list[CrossCheckReport] = []
    for ref in found_runs.runs:
        found: RunFiles = ref.payload  # type: ignore[assignment]
        if not found.score_files:
            continue
        names = functions if functions is not None else functions_of(ref)
        warnings: list[str] = []
        items = turns = agreeing = without = 0
        differences: list[Difference] = []
        for category, score_path in sorted(found.score_files.items()):
            result_path = found.files.get(category)
            if result_path is None:
                continue
            try:
                counts = _check_category(result_path, score_path, names, warnings)
            except ResultsError as exc:
                raise AdapterError(str(exc)) from exc
            items += counts[0]
            turns += counts[1]
            agreeing += counts[2]
            without += counts[3]
            differences.extend(counts[4])
        by_kind = Counter(d.kind for d in differences)
        reports.append(
            CrossCheckReport(
                model=ref.model,
                location=found.root,
                dataset=ref.details.get("dataset", ""),
                items_compared=items,
                turns_compared=turns,
                turns_agreeing=agreeing,
                differences_by_kind={kind: by_kind[kind] for kind in KINDS if by_kind[kind]},
                differences=tuple(differences),
                items_without_decoding=without,
                warnings=tuple(warnings),
            )
        )
    return reports


# --------------------------------------------------------------------------- output


def render_table(reports: Sequence[CrossCheckReport], unexplained_shown: int = 20, wide: bool = False) -> str:
    """A plain-text table, one row per model, then the unexplained differences.

    Within 100 columns the table counts the principled differences and a line per model names their
    kinds; ``wide`` gives every kind a column of its own, each row on one line.
    """
    from twinbench.render import tables

    principled = [kind for kind in KINDS if kind != UNEXPLAINED]
    rows, kinds_of = [], []
    for r in reports:
        share = None if r.agreement is None else f"{100 * r.agreement:.1f}"
        counts = [r.differences_by_kind.get(kind, 0) for kind in principled]
        rows.append([r.model, r.items_compared, r.turns_compared, r.turns_agreeing, share or "-",
                     *(counts if wide else [sum(counts)]), r.differences_by_kind.get(UNEXPLAINED, 0)])
        if any(counts):
            kinds_of.append(f"{r.model}: " + ", ".join(f"{k} {n}" for k, n in zip(principled, counts) if n))
    headers = ["model", "items", "turns", "agree", "agree %", *(principled if wide else ["principled"]), UNEXPLAINED]
    lines = [tables.table(headers, rows, [False] + [True] * (len(headers) - 1),
                          width=None if wide else tables.NARROW_WIDTH)]
    if kinds_of and not wide:
        lines += ["", "principled differences, by kind (--format json says what each kind is):",
                  *tables.wrap([f"  {k}" for k in kinds_of], indent="    ")]
    for r in reports:
        shown = r.unexplained[:unexplained_shown]
        if not shown:
            continue
        notes = [f"{r.model}: {len(r.unexplained)} unexplained difference(s)"]
        notes += [f"  {d.item_id} turn {d.turn}: twinbench {list(d.twinbench)} | bfcl {list(d.bfcl)}" for d in shown]
        if len(r.unexplained) > len(shown):
            notes.append(f"  ... ({len(r.unexplained) - len(shown)} more)")
        lines.append("")
        lines.extend(map(tables.plain, notes) if wide else tables.wrap(notes, indent="    "))
    return "\n".join(lines)


def as_json(reports: Sequence[CrossCheckReport]) -> dict[str, Any]:
    """The reports as plain JSON-ready data."""
    return {
        "kinds": dict(KINDS),
        "reports": [
            {
                "model": r.model,
                "location": str(r.location),
                "dataset": r.dataset,
                "items_compared": r.items_compared,
                "items_without_decoding": r.items_without_decoding,
                "turns_compared": r.turns_compared,
                "turns_agreeing": r.turns_agreeing,
                "differences_by_kind": dict(r.differences_by_kind),
                "differences": [
                    {
                        "item_id": d.item_id,
                        "turn": d.turn,
                        "kind": d.kind,
                        "twinbench": list(d.twinbench),
                        "bfcl": list(d.bfcl),
                    }
                    for d in r.differences
                ],
                "warnings": list(r.warnings),
            }
            for r in reports
        ],
    }
