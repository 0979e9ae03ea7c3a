"""Find and read BFCL multi-turn result and score trees, robustly and line by line.

Layouts accepted by :func:`find_runs` (``[result/]`` means the folder is optional)::

    ROOT/[result/]<model>/multi_turn/BFCL_v4_multi_turn_<category>_result.json   (v4, nested)
    ROOT/[result/]<model>/BFCL_v3_multi_turn_<category>_result.json              (v3, flat)

ROOT may also be a single model folder. Score files are looked up in the sibling
``score/`` tree (``X/result/<model>/...`` -> ``X/score/<model>/...``) or under an
explicit ``scores_root``.

The readers never load a whole file: each line is decoded, reduced to what twinbench
needs (the ``result`` steps and the user texts of ``inference_log``) and dropped.
Bad user data never raises a traceback: per-line problems become ``bad_lines`` and
``warnings`` in the returned records; fatal problems raise :class:`ResultsError`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Container, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import msgspec

from twinbench.errors import TwinbenchError

__all__ = [
    "CATEGORIES",
    "DEFAULT_CATEGORIES",
    "ResultEntry",
    "ResultFile",
    "ResultsError",
    "RunFiles",
    "RunScan",
    "ScoreFile",
    "SkippedRun",
    "dataset_version_of",
    "find_runs",
    "read_result_file",
    "read_score_file",
]

#: the multi-turn categories BFCL writes result files for
CATEGORIES: tuple[str, ...] = ("base", "long_context", "miss_func", "miss_param")
#: the categories a twinbench run needs by default
DEFAULT_CATEGORIES: tuple[str, ...] = ("base", "miss_func", "miss_param")

_NAME_RE = re.compile(r"^BFCL_(v[34])_multi_turn_(\w+?)_(result|score)\.json$")
_VERSION_RE = re.compile(r"BFCL_(v\d+)_")
_PRUNED_DIRS = frozenset({"__pycache__", "node_modules", "site-packages"})
_EXAMPLES = 5  # how many example ids a summary warning names


class ResultsError(TwinbenchError):
    """A fatal problem with the user's result files. One clear message, no traceback."""


# --------------------------------------------------------------------------- records


@attrs.frozen
class RunFiles:
    """One model's complete run: a result file for every requested category.

    ``files`` and ``score_files`` map category -> path; ``score_files`` may be empty
    or partial. ``extra_files`` holds result files of categories that were found
    but not requested (e.g. ``long_context``).
    """

    model: str
    root: Path
    version: str
    files: Mapping[str, Path]
    score_files: Mapping[str, Path] = attrs.field(factory=dict)
    extra_files: Mapping[str, Path] = attrs.field(factory=dict)


@attrs.frozen
class SkippedRun:
    """A model folder with BFCL result files that cannot be used, and why."""

    model: str
    root: Path
    reason: str


@attrs.frozen
class RunScan:
    """What :func:`find_runs` found: complete runs (sorted by model), skipped folders, warnings."""

    runs: tuple[RunFiles, ...]
    skipped: tuple[SkippedRun, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def models(self) -> tuple[str, ...]:
        return tuple(run.model for run in self.runs)


@attrs.frozen
class ResultEntry:
    """One line of a result file, reduced to what twinbench needs.

    ``turns`` is the line's ``result`` (per turn, per step, the raw step values as
    decoded from JSON) or ``None`` when there is no usable rollout; then ``error``
    says why (the harness's "Error during inference: ..." text, or a format problem).
    ``logged_user_turns`` holds, per turn of ``inference_log``, the contents of the
    user messages of ``begin_of_turn_query``; ``None`` when the line has no log.
    ``line`` is the 1-based line number the entry was read from.
    """

    id: str
    turns: tuple[tuple[Any, ...], ...] | None
    error: str | None = None
    logged_user_turns: tuple[tuple[str, ...], ...] | None = None
    line: int = 0
    #: the ``result`` is not a list of turns of steps (a format problem, not a stored error)
    unreadable: bool = False


@attrs.frozen
class ResultFile:
    """Everything read from one result file.

    ``entries`` maps id -> entry in file order (first occurrence wins);
    ``duplicates`` lists ids seen more than once; ``bad_lines`` holds
    ``(line number, reason)`` for lines that could not be used; ``empty`` is true
    when the file holds no non-blank line; ``other_ids`` counts lines skipped because
    their id was not in ``keep_ids``. ``version``/``category`` come from the file name
    (``None`` when it does not follow the BFCL naming).
    """

    path: Path
    entries: Mapping[str, ResultEntry]
    duplicates: tuple[str, ...] = ()
    bad_lines: tuple[tuple[int, str], ...] = ()
    empty: bool = False
    other_ids: int = 0
    warnings: tuple[str, ...] = ()
    version: str | None = None
    category: str | None = None

    @property
    def error_ids(self) -> tuple[str, ...]:
        """Ids of the entries without a usable rollout."""
        return tuple(entry_id for entry_id, entry in self.entries.items() if entry.turns is None)

    @property
    def error_count(self) -> int:
        return sum(1 for entry in self.entries.values() if entry.turns is None)


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


# --------------------------------------------------------------------------- names


def _parse_name(name: str) -> tuple[str, str, str] | None:
    """``(version, category, kind)`` of a BFCL multi-turn file name, else ``None``."""
    match = _NAME_RE.match(name)
    if match is None:
        return None
    return match.group(1), match.group(2), match.group(3)


def dataset_version_of(path: Path | str) -> str:
    """``"v3"`` or ``"v4"``, read from a BFCL file name such as ``BFCL_v4_multi_turn_base_result.json``."""
    name = Path(path).name
    match = _VERSION_RE.match(name)
    if match is None or match.group(1) not in ("v3", "v4"):
        raise ResultsError(
            f"cannot tell the BFCL dataset version from the file name {name!r} "
            "(expected BFCL_v3_... or BFCL_v4_...)"
        )
    return match.group(1)


def _count(n: int, singular: str, plural: str | None = None) -> str:
    return f"{n} {singular if n == 1 else (plural or singular + 's')}"


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _examples(ids: Sequence[str]) -> str:
    shown = ", ".join(_clip(i) for i in ids[:_EXAMPLES])
    return shown + (f", ... ({len(ids)} in all)" if len(ids) > _EXAMPLES else "")


# --------------------------------------------------------------------------- discovery


def _normalise_categories(categories: Sequence[str]) -> tuple[str, ...]:
    if isinstance(categories, str):
        categories = (categories,)
    wanted: list[str] = []
    for category in categories:
        name = str(category).strip()
        if name.startswith("multi_turn_"):
            name = name[len("multi_turn_") :]
        if name not in CATEGORIES:
            raise ResultsError(
                f"unknown BFCL multi-turn category {category!r}; choose from {', '.join(CATEGORIES)}"
            )
        if name not in wanted:
            wanted.append(name)
    if not wanted:
        raise ResultsError("no BFCL category requested")
    return tuple(wanted)


def _check_directory(path: Path, what: str) -> Path:
    try:
        if not path.exists():
            raise ResultsError(f"{what} {path} does not exist")
        if not path.is_dir():
            raise ResultsError(f"{what} {path} is not a directory")
    except OSError as exc:  # e.g. permission denied on a parent
        raise ResultsError(f"cannot access {what} {path}: {exc.strerror or exc}") from None
    return path


def _walk_bfcl_files(root: Path, warnings: list[str]) -> Iterator[Path]:
    """Every ``BFCL_v[34]_multi_turn_*_result.json`` below ``root`` in sorted order."""

    def on_error(exc: OSError) -> None:
        warnings.append(f"cannot list {exc.filename}: {exc.strerror or exc}")

    seen: set[str] = set()
    # symbolic links are followed (people link runs into one tree); each real folder is walked once
    for directory, dirnames, filenames in os.walk(root, onerror=on_error, followlinks=True):
        real = os.path.realpath(directory)
        if real in seen:
            dirnames[:] = []
            continue
        seen.add(real)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _PRUNED_DIRS)
        for filename in sorted(filenames):
            if filename.startswith("BFCL_v") and filename.endswith("_result.json"):
                yield Path(directory) / filename


def _score_candidates(
    model_dir: Path, file_name: str, nested: bool, scores_root: Path | None
) -> list[Path]:
    layouts = (("multi_turn",), ()) if nested else ((), ("multi_turn",))
    if scores_root is None:
        if model_dir.parent.name != "result":
            return []
        bases = [model_dir.parent.parent / "score" / model_dir.name]
    else:
        bases = [scores_root / "score" / model_dir.name, scores_root / model_dir.name]
        if scores_root.name == model_dir.name:
            bases.append(scores_root)
    return [base.joinpath(*layout, file_name) for base in bases for layout in layouts]


def _first_file(candidates: Sequence[Path]) -> Path | None:
    for candidate in candidates:
        try:
            if candidate.is_file():
                return candidate
        except OSError:
            continue
    return None


def find_runs(
    root: Path | str,
    categories: Sequence[str] = DEFAULT_CATEGORIES,
    scores_root: Path | str | None = None,
) -> RunScan:
    """Locate BFCL multi-turn runs under ``root``.

    A run is complete when its model folder holds a result file for every requested
    category; other folders with BFCL result files are reported in ``skipped``.
    ``scores_root``, when given, replaces the sibling ``score/`` tree as the place to
    look for score files (``scores_root/[score/]<model>/[multi_turn/]...``).
    """
    wanted = _normalise_categories(categories)
    root = _check_directory(Path(root).expanduser(), "result folder")
    scores = None if scores_root is None else _check_directory(Path(scores_root).expanduser(), "score folder")

    warnings: list[str] = []
    # model folder -> list of (version, category, path)
    found: dict[Path, list[tuple[str, str, Path]]] = {}
    any_bfcl = False
    for path in _walk_bfcl_files(root, warnings):
        parsed = _parse_name(path.name)
        if parsed is None:
            continue
        any_bfcl = True
        version, category, _ = parsed
        if category not in CATEGORIES:
            continue  # not a multi-turn category twinbench knows (ignored)
        parent = path.parent
        model_dir = parent.parent if parent.name == "multi_turn" else parent
        found.setdefault(model_dir, []).append((version, category, path))

    if not any_bfcl:
        raise ResultsError(
            f"no BFCL multi-turn result files (BFCL_v3/v4_multi_turn_<category>_result.json) under {root}"
        )

    if not found:
        warnings.append(
            f"BFCL result files under {root} are all of other categories than {', '.join(CATEGORIES)}"
        )
    runs: list[RunFiles] = []
    skipped: list[SkippedRun] = []
    for model_dir, entries in found.items():
        model = model_dir.name
        versions = sorted({version for version, _, _ in entries})
        if len(versions) > 1:
            skipped.append(SkippedRun(model, model_dir, "mixes BFCL_v3 and BFCL_v4 result files"))
            continue
        by_category: dict[str, list[Path]] = {}
        for _, category, path in entries:
            by_category.setdefault(category, []).append(path)
        doubled = sorted(c for c, paths in by_category.items() if len(paths) > 1)
        if doubled:
            where = "; ".join(
                f"{c}: " + ", ".join(str(p.relative_to(model_dir)) for p in by_category[c]) for c in doubled
            )
            skipped.append(SkippedRun(model, model_dir, f"more than one result file for a category ({where})"))
            continue
        missing = [c for c in wanted if c not in by_category]
        if missing:
            noun = "result file" if len(missing) == 1 else "result files"
            skipped.append(SkippedRun(model, model_dir, f"missing {', '.join(missing)} {noun}"))
            continue

        version = versions[0]
        files = {c: by_category[c][0] for c in wanted}
        extra = {c: by_category[c][0] for c in CATEGORIES if c in by_category and c not in wanted}
        score_files: dict[str, Path] = {}
        for category, path in files.items():
            score_name = f"BFCL_{version}_multi_turn_{category}_score.json"
            nested = path.parent.name == "multi_turn"
            hit = _first_file(_score_candidates(model_dir, score_name, nested, scores))
            if hit is not None:
                score_files[category] = hit
        if score_files and len(score_files) < len(files):
            lacking = [c for c in files if c not in score_files]
            warnings.append(f"{model}: no score file for {', '.join(lacking)} (found for {', '.join(score_files)})")
        elif not score_files and scores is not None:
            warnings.append(f"{model}: no score files under {scores}")
        runs.append(RunFiles(model, model_dir, version, files, score_files, extra))

    runs.sort(key=lambda run: (run.model, str(run.root)))
    skipped.sort(key=lambda skip: (skip.model, str(skip.root)))
    seen: dict[str, list[Path]] = {}
    for run in runs:
        seen.setdefault(run.model, []).append(run.root)
    for model, roots in seen.items():
        if len(roots) > 1:
            warnings.append(f"model name {model!r} is used by {len(roots)} folders: " + ", ".join(map(str, roots)))
    return RunScan(tuple(runs), tuple(skipped), tuple(warnings))


# --------------------------------------------------------------------------- line reading


@attrs.define
class _LineStats:
    nonblank: int = 0
    bad_utf8: int = 0
    first_bad_utf8: int = 0


# --------------------------------------------------------------------------- fast decoding
#
# A result line is mostly its ``inference_log``; scoring needs only the id, the result and
# the user texts of the log. msgspec decodes a line against these few fields and skips the
# rest without building it (several times faster than ``json.loads`` of the whole line).
# Any line the typed decoder does not accept (invalid UTF-8, NaN, an odd shape) goes the
# stdlib way, so the fast path never changes what is read, only how fast.


class _Message(msgspec.Struct):
    role: Any = None
    content: Any = None


class _TurnLog(msgspec.Struct):
    begin_of_turn_query: list[_Message] | None = None


class _ResultLine(msgspec.Struct):
    id: Any = None
    result: Any = None
    inference_log: list[_TurnLog | list[msgspec.Raw]] | None = None


class _ScoreDetails(msgspec.Struct):
    execution_result: list[msgspec.Raw] | None = None


class _ScoreError(msgspec.Struct):
    error_type: Any = None
    error_message: Any = None
    execution_result: list[msgspec.Raw] | None = None  # only their number is read (the failing turn)
    details: _ScoreDetails | None = None


class _ScoreLine(msgspec.Struct):
    id: Any = None
    error: _ScoreError | None = None
    error_type: Any = None
    model_name: Any = None


_UNSET = object()


def _result_fields(line: bytes, decoder=msgspec.json.Decoder(_ResultLine)) -> dict[str, Any]:
    value = decoder.decode(line)
    if value.id is None:  # no id (or a summary-like line): let the stdlib path say what it is
        raise ValueError("no id")
    out: dict[str, Any] = {"id": value.id, "result": value.result}
    if value.inference_log is not None:
        out["inference_log"] = [
            [] if isinstance(turn, list)
            else ({} if turn.begin_of_turn_query is None else {"begin_of_turn_query": [
                {"role": m.role, "content": m.content} for m in turn.begin_of_turn_query]})
            for turn in value.inference_log
        ]
    return out


def _score_fields(line: bytes, decoder=msgspec.json.Decoder(_ScoreLine)) -> dict[str, Any]:
    value = decoder.decode(line)
    if value.id is None:
        raise ValueError("no id")
    out: dict[str, Any] = {"id": value.id}
    if value.error is not None:
        error = value.error
        out["error"] = {"error_type": error.error_type}
        if error.error_message is not None:
            out["error"]["error_message"] = error.error_message
        if error.execution_result is not None:
            out["error"]["execution_result"] = [None] * len(error.execution_result)
        if error.details is not None:
            records = error.details.execution_result
            out["error"]["details"] = {} if records is None else {"execution_result": [None] * len(records)}
    if value.error_type is not None:
        out["error_type"] = value.error_type
    if value.model_name is not None:
        out["model_name"] = value.model_name
    return out


_CHUNK_BYTES = 1 << 22


def _lines(handle) -> Iterator[bytes]:
    """The lines of a binary file as iterating it gives them (split after each ``\\n``), read in large
    chunks: several times faster on long lines. A line longer than a chunk is joined once from its
    pieces, so the work stays linear in the file; one chunk and one line are held at a time."""
    pieces: list[bytes] = []
    while True:
        chunk = handle.read(_CHUNK_BYTES)
        if not chunk:
            break
        start = 0
        end = chunk.find(b"\n")
        while end >= 0:
            if pieces:
                pieces.append(chunk[start:end + 1])
                line = b"".join(pieces)
                pieces = []
            else:
                line = chunk[start:end + 1]
            yield line
            del line
            start = end + 1
            end = chunk.find(b"\n", start)
        if start < len(chunk):
            pieces.append(chunk[start:] if start else chunk)
        del chunk
    if pieces:
        yield b"".join(pieces)


def _json_lines(path: Path, stats: _LineStats, fast=None) -> Iterator[tuple[int, Any, str | None]]:
    """Yield ``(line number, decoded value or None, problem or None)`` for each non-blank line.

    Only one line is held at a time (plus one pending invalid line, so that an invalid
    last line can be reported as truncated). ``fast`` decodes a line into the fields the
    caller needs; a line it refuses is decoded whole with ``json``.
    """
    pending: tuple[int, str, bool] | None = None  # (line, message, looks truncated)
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise ResultsError(f"cannot open {path}: {exc.strerror or exc}") from None
    with handle:
        try:
            for lineno, raw in enumerate(_lines(handle), 1):
                if not raw or raw.isspace():
                    continue
                stats.nonblank += 1
                if pending is not None:
                    yield pending[0], None, f"invalid JSON ({pending[1]})"
                    pending = None
                had_newline = raw.endswith(b"\n")
                if fast is not None:
                    try:
                        value = fast(raw)
                    except Exception:  # the stdlib path below decides what the line is
                        value = _UNSET
                    if value is not _UNSET:
                        del raw
                        yield lineno, value, None
                        del value
                        continue
                try:
                    try:
                        value = json.loads(raw)
                    except UnicodeDecodeError:
                        stats.bad_utf8 += 1
                        stats.first_bad_utf8 = stats.first_bad_utf8 or lineno
                        value = json.loads(raw.decode("utf-8", errors="replace"))
                except json.JSONDecodeError as exc:
                    at_end = exc.pos >= len(raw.rstrip()) - 1 or exc.msg.startswith("Unterminated")
                    where = "character" if exc.msg.endswith(" at") else "at character"
                    pending = (lineno, f"{exc.msg} {where} {exc.pos + 1}", at_end or not had_newline)
                    continue
                except (ValueError, RecursionError) as exc:
                    yield lineno, None, f"invalid JSON ({type(exc).__name__}: {exc})"
                    continue
                del raw
                yield lineno, value, None
                del value  # let the caller be the only holder of the decoded line
        except OSError as exc:
            raise ResultsError(f"error while reading {path}: {exc.strerror or exc}") from None
    if pending is not None:
        if pending[2]:
            yield pending[0], None, f"truncated last line (invalid JSON: {pending[1]})"
        else:
            yield pending[0], None, f"invalid JSON ({pending[1]})"


def _check_file(path: Path) -> Path:
    try:
        if not path.exists():
            raise ResultsError(f"{path} does not exist")
        if not path.is_file():
            raise ResultsError(f"{path} is not a file")
    except OSError as exc:
        raise ResultsError(f"cannot access {path}: {exc.strerror or exc}") from None
    return path


def _common_warnings(stats: _LineStats, bad_lines: list[tuple[int, str]], kind: str) -> list[str]:
    warnings: list[str] = []
    if stats.nonblank == 0:
        warnings.append(f"the {kind} file is empty")
    if stats.bad_utf8:
        warnings.append(
            f"{_count(stats.bad_utf8, 'line')} with invalid UTF-8 bytes (first: line {stats.first_bad_utf8}); "
            "they were decoded with U+FFFD replacement characters"
        )
    if bad_lines:
        shown = "; ".join(f"line {n}: {reason}" for n, reason in bad_lines[:_EXAMPLES])
        more = f"; ... ({len(bad_lines)} in all)" if len(bad_lines) > _EXAMPLES else ""
        warnings.append(f"{_count(len(bad_lines), 'unusable line')} skipped: {shown}{more}")
    return warnings


# --------------------------------------------------------------------------- result files


def _message_text(content: Any) -> str | None:
    """The text of a message ``content``: a str, or a list of text parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            part if isinstance(part, str) else part.get("text")
            for part in content
            if isinstance(part, str) or (isinstance(part, dict) and isinstance(part.get("text"), str))
        ]
        if parts:
            return "".join(parts)
    return None


def _logged_user_turns(log: Any) -> tuple[tuple[tuple[str, ...], ...] | None, str | None]:
    """User texts per turn of an ``inference_log``, and a problem description or ``None``."""
    if not isinstance(log, list):
        return None, f"inference_log is a {type(log).__name__}, not a list"
    turns: list[tuple[str, ...]] = []
    problem: str | None = None
    for element in log:
        if isinstance(element, list):  # a state log
            continue
        if not isinstance(element, dict):
            problem = problem or f"inference_log holds a {type(element).__name__} element"
            continue
        query = element.get("begin_of_turn_query")
        texts: list[str] = []
        if isinstance(query, list):
            for message in query:
                if isinstance(message, dict) and message.get("role") == "user":
                    text = _message_text(message.get("content"))
                    if text is None:
                        problem = problem or "a user message in begin_of_turn_query has no text content"
                    else:
                        texts.append(text)
        elif query is not None:
            problem = problem or f"begin_of_turn_query is a {type(query).__name__}, not a list"
        else:
            problem = problem or "a turn log has no begin_of_turn_query"
        turns.append(tuple(texts))
    return tuple(turns), problem


_STEP_TYPES = (str, list, dict, type(None))  # None: an empty reply


def _turns_of(result: Any) -> tuple[tuple[tuple[Any, ...], ...] | None, str | None, bool]:
    """``(turns, error, is_format_problem)`` for a line's ``result`` value.

    A usable result is a non-empty list of turns, each a list of steps, each step a
    string, a list, an object or null (an empty reply). Anything else is a format problem ("unreadable rollout"),
    never a rollout that made no call.
    """
    if isinstance(result, list):
        if not result:
            return None, "result is an empty list (no turn at all)", True
        turns: list[tuple[Any, ...]] = []
        for index, turn in enumerate(result):
            if not isinstance(turn, list):
                return None, f"result turn {index} is a {type(turn).__name__}, not a list of steps", True
            odd = [step for step in turn if not isinstance(step, _STEP_TYPES)]
            if odd:
                return None, f"result turn {index} holds a {type(odd[0]).__name__} step, not text or a call", True
            turns.append(tuple(turn))
        return tuple(turns), None, False
    if isinstance(result, str):
        return None, result, False
    if result is None:
        return None, "no result", True
    return None, f"result is a {type(result).__name__}, not a list of turns", True


def read_result_file(path: Path | str, keep_ids: Container[str] | None = None) -> ResultFile:
    """Read one ``BFCL_v*_multi_turn_<category>_result.json`` line by line.

    Only ``id``, ``result`` and the user texts of ``inference_log`` are kept. With
    ``keep_ids``, entries whose id is not in it are counted in ``other_ids`` and dropped.
    """
    path = _check_file(Path(path).expanduser())
    parsed = _parse_name(path.name)
    version, category = (parsed[0], parsed[1]) if parsed else (None, None)

    stats = _LineStats()
    entries: dict[str, ResultEntry] = {}
    duplicates: list[str] = []
    duplicate_notes: list[str] = []
    bad_lines: list[tuple[int, str]] = []
    other_ids = 0
    format_problems: list[str] = []
    log_problems: list[str] = []
    foreign_ids: list[str] = []

    for lineno, value, problem in _json_lines(path, stats, _result_fields):
        if problem is not None:
            bad_lines.append((lineno, problem))
            continue
        if not isinstance(value, dict):
            bad_lines.append((lineno, f"not a JSON object ({type(value).__name__})"))
            continue
        entry_id = value.get("id")
        if entry_id is None:
            bad_lines.append((lineno, "no id"))
            continue
        if not isinstance(entry_id, str) or not entry_id:
            bad_lines.append((lineno, f"id is not a non-empty string ({entry_id!r:.40})"))
            continue
        if category is not None and entry_id.rsplit("_", 1)[0] != f"multi_turn_{category}":
            foreign_ids.append(entry_id)  # said even when no pair needs the line
        if keep_ids is not None and entry_id not in keep_ids:
            other_ids += 1
            continue

        turns, error, odd = _turns_of(value.get("result"))
        if odd:
            format_problems.append(f"{entry_id} ({error})")
        logged: tuple[tuple[str, ...], ...] | None = None
        if "inference_log" in value:
            logged, log_problem = _logged_user_turns(value["inference_log"])
            if log_problem is not None:
                log_problems.append(f"{entry_id} ({log_problem})")
        del value  # drop the decoded line (the inference_log in particular) at once
        entry = ResultEntry(entry_id, turns, error, logged, lineno, unreadable=odd)

        kept = entries.get(entry_id)
        if kept is not None:
            if entry_id not in duplicates:
                duplicates.append(entry_id)
            same = (kept.turns, kept.error, kept.logged_user_turns) == (turns, error, logged)
            duplicate_notes.append(
                f"line {lineno} ({'same content as' if same else 'different content from'} line {kept.line})"
            )
            continue
        entries[entry_id] = entry

    warnings = _common_warnings(stats, bad_lines, "result")
    if stats.nonblank and not entries and not other_ids:
        warnings.append("no usable entry in the file")
    if duplicates:
        warnings.append(
            f"{_count(len(duplicates), 'id')} seen more than once, the first occurrence kept: "
            f"{_examples(duplicates)} [{'; '.join(duplicate_notes[:_EXAMPLES])}]"
        )
    if format_problems:
        warnings.append(
            f"{_count(len(format_problems), 'entry', 'entries')} without a usable result list: "
            f"{_examples(format_problems)}"
        )
    if log_problems:
        warnings.append(
            f"{_count(len(log_problems), 'entry', 'entries')} with an odd inference_log: {_examples(log_problems)}"
        )
    if foreign_ids:
        warnings.append(
            f"{_count(len(foreign_ids), 'id')} not of category {category}: {_examples(foreign_ids)}"
        )
    return ResultFile(
        path=path,
        entries=entries,
        duplicates=tuple(duplicates),
        bad_lines=tuple(bad_lines),
        empty=stats.nonblank == 0,
        other_ids=other_ids,
        warnings=tuple(warnings),
        version=version,
        category=category,
    )


# --------------------------------------------------------------------------- score files


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


_TURN_IN_MESSAGE = re.compile(r"\bfor turn (\d+)\b")


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
        del value
        if entry_id in failed:
            if entry_id not in duplicates:
                duplicates.append(entry_id)
            continue
        failed[entry_id] = error_type if isinstance(error_type, str) else ""
        failure_turns[entry_id] = failure_turn(error)

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
    )
