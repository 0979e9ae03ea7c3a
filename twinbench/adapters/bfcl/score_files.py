"""Reading one BFCL score file: its summary line and each failed item's id, model, error type and message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from twinbench.adapters.bfcl.lines import (
    _check_file,
    _common_warnings,
    _count,
    _examples,
    _json_lines,
    _LineStats,
    _score_fields,
)
from twinbench.adapters.bfcl.tree import _parse_name


@attrs.frozen
class ScoreFile:
    """Everything kept from one BFCL score file.

    ``accuracy``/``correct_count``/``total_count`` come from the summary line (``None``
    when missing or unusable); ``failed`` maps each failed id to its ``error_type``
    (``""`` when the line has none). Items that passed are not listed by BFCL.
    ``model_names`` holds the distinct ``model_name`` values of the failed lines.
    """

    path: Path
    failed: Mapping[str, str]
    accuracy: float | None = None
    correct_count: int | None = None
    total_count: int | None = None
    duplicates: tuple[str, ...] = ()
    bad_lines: tuple[tuple[int, str], ...] = ()
    empty: bool = False
    warnings: tuple[str, ...] = ()
    version: str | None = None
    category: str | None = None
    model_names: tuple[str, ...] = ()
    #: the turn each failed id's error names (see :func:`failure_turn`); ``None`` when it names none
    failure_turns: Mapping[str, int | None] = attrs.field(factory=dict)
    #: the result BFCL scored for each failed id (``model_result_raw``, else ``model_result``), as
    #: stored: JSON text, or the decoded value of a line the fast path could not read; absent when none
    stored_results: Mapping[str, Any] = attrs.field(factory=dict)


def _summary_numbers(value: dict[str, Any]) -> tuple[float | None, int | None, int | None, list[str]]:
    problems: list[str] = []

    def number(key: str, kind: type) -> Any:
        raw = value.get(key)
        if isinstance(raw, bool) or raw is None:
            problems.append(f"no {key}" if raw is None else f"{key} is {raw!r}")
            return None
        if kind is int:
            if isinstance(raw, int):
                return raw
            if isinstance(raw, float) and raw.is_integer():
                return int(raw)
        elif isinstance(raw, (int, float)):
            return float(raw)
        problems.append(f"{key} is {raw!r:.40}")
        return None

    return number("accuracy", float), number("correct_count", int), number("total_count", int), problems


_TURN_IN_MESSAGE = re.compile(r"\bfor turn (\d{1,9})\b")  # a longer number names no turn of any item


def failure_turn(error: Any) -> int | None:
    """The 0-based turn a failed item's ``error`` names, or ``None``.

    BFCL's multi-turn checker names it in the message of empty-turn and response-mismatch
    failures ("... for turn 3"); a state-mismatch failure stores one execution record per
    turn checked, up to and including the failing one, so the turn is their number minus
    one. Force-terminated and inference-error failures name no turn.
    """
    if not isinstance(error, dict):
        return None
    message = error.get("error_message")
    if isinstance(message, str):
        match = _TURN_IN_MESSAGE.search(message)
        if match:
            return int(match.group(1))
    details = error.get("details")
    records = error.get("execution_result")
    if records is None and isinstance(details, dict):
        records = details.get("execution_result")
    if isinstance(records, list) and records:
        return len(records) - 1
    return None


def read_score_file(path: Path | str) -> ScoreFile:
    """Read one ``BFCL_v*_multi_turn_<category>_score.json`` line by line.

    Line 1 is the summary; each later line is a failed item, of which only the id and
    ``error.error_type`` are kept.
    """
    path = _check_file(Path(path).expanduser())
    parsed = _parse_name(path.name)
    version, category = (parsed[0], parsed[1]) if parsed else (None, None)

    stats = _LineStats()
    failed: dict[str, str] = {}
    failure_turns: dict[str, int | None] = {}
    duplicates: list[str] = []
    bad_lines: list[tuple[int, str]] = []
    accuracy: float | None = None
    correct: int | None = None
    total: int | None = None
    warnings: list[str] = []
    model_names: list[str] = []
    stored_results: dict[str, Any] = {}
    first = True

    for lineno, value, problem in _json_lines(path, stats, _score_fields):
        is_first, first = first, False
        if problem is not None:
            bad_lines.append((lineno, problem))
            if is_first:
                warnings.append("the summary line cannot be read")
            continue
        if not isinstance(value, dict):
            bad_lines.append((lineno, f"not a JSON object ({type(value).__name__})"))
            if is_first:
                warnings.append("the summary line cannot be read")
            continue
        if is_first:
            if "id" not in value:
                accuracy, correct, total, problems = _summary_numbers(value)
                if problems:
                    warnings.append(f"odd summary line: {', '.join(problems)}")
                continue
            warnings.append("no summary line: line 1 is already a failed item")
        entry_id = value.get("id")
        if not isinstance(entry_id, str) or not entry_id:
            reason = "no id" if entry_id is None else f"id is not a non-empty string ({entry_id!r:.40})"
            bad_lines.append((lineno, reason))
            continue
        error = value.get("error")
        error_type = error.get("error_type") if isinstance(error, dict) else value.get("error_type")
        if isinstance(value.get("model_name"), str) and value["model_name"] not in model_names:
            model_names.append(value["model_name"])
        stored = value.get("model_result_raw")
        stored = value.get("model_result") if stored is None else stored
        del value
        if entry_id in failed:
            if entry_id not in duplicates:
                duplicates.append(entry_id)
            continue
        failed[entry_id] = error_type if isinstance(error_type, str) else ""
        failure_turns[entry_id] = failure_turn(error)
        if stored is not None:
            stored_results[entry_id] = stored

    warnings[:0] = _common_warnings(stats, bad_lines, "score")
    if duplicates:
        warnings.append(f"{_count(len(duplicates), 'failed id')} listed more than once: {_examples(duplicates)}")
    untyped = [i for i, t in failed.items() if not t]
    if untyped:
        warnings.append(f"{_count(len(untyped), 'failed item')} without error_type: {_examples(untyped)}")
    if correct is not None and total is not None:
        if total - correct != len(failed):
            warnings.append(
                f"the summary says {total - correct} of {total} failed, "
                f"but {_count(len(failed), 'failed item')} listed"
            )
        if accuracy is not None and total and abs(accuracy - correct / total) > 1e-6:
            warnings.append(f"the summary accuracy {accuracy} is not correct_count/total_count = {correct}/{total}")
    return ScoreFile(
        path=path,
        failed=failed,
        accuracy=accuracy,
        correct_count=correct,
        total_count=total,
        duplicates=tuple(duplicates),
        bad_lines=tuple(bad_lines),
        empty=stats.nonblank == 0,
        warnings=tuple(warnings),
        version=version,
        category=category,
        model_names=tuple(model_names),
        failure_turns=failure_turns,
        stored_results=stored_results,
    )
