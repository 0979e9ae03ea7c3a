"""When2Call model outputs: one JSONL file per model, the model named by the file stem.

A row is matched to its item by ``uuid`` (the built suite's rows keep theirs), ``custom_id``
(OpenAI batch output) or ``twinbench.id``. Its response is read from, in this order:

* ``model_response``: what When2Call's ``run_openai_inference.py`` appends, a JSON tool call
  string ``{"name": ..., "arguments": {...}}`` or the text reply;
* an OpenAI chat-completion response: ``choices[0].message`` at the top of the row, under
  ``response`` or under ``response.body`` (batch output), with ``tool_calls`` or ``content``.

A row with ``error``, a row without any response, and a line that is not JSON are unscored
for that model (with a warning and a count), never read as "no call".
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

import attrs

from twinbench.contract.adapter import RunReader
from twinbench.errors import AdapterError
from twinbench.model import Call, Item, Rollout, RunLoad, RunRef, RunSearch
from twinbench.reading import StepReading, UnreadTally, read_step, texts_of
from twinbench.reading.found import nested_deeper_than

from .suite import ROW_KEYS, TWIN_SUFFIX

NO_RESPONSE = "no model_response and no chat-completion message in the row"
_EXAMPLES = 3


#: a row nested deeper than this is not read (JSON encoding and decoding recurse once a level); the
#: deepest row of When2Call's test file is 3 levels, its deepest tool schema (a JSON text in it) 8
MAX_ROW_DEPTH = 64


def json_rows(raw: bytes) -> Iterator[tuple[int, object, str | None]]:
    """``(line number, value, problem)`` for each non-blank line of a JSON-lines file, never raising.

    Lines are split on ``\\n`` only, as JSON Lines says (a U+2028 or U+0085 inside a string is
    part of its line); invalid UTF-8 is decoded with U+FFFD. A line that is not JSON, holds an
    integer too long for Python to read, or nests deeper than :data:`MAX_ROW_DEPTH` (or than
    JSON decoding can go) gives ``None`` and the problem.
    """
    for number, line in enumerate(raw.split(b"\n"), start=1):
        text = line.decode("utf-8", errors="replace")
        if not text.strip():
            continue
        try:
            value = json.loads(text)
        except RecursionError:
            yield number, None, f"nested deeper than {MAX_ROW_DEPTH} levels"
            continue
        except ValueError as exc:  # JSONDecodeError, an integer of more digits than Python converts
            yield number, None, str(exc)
            continue
        if nested_deeper_than(value, MAX_ROW_DEPTH):
            yield number, None, f"nested deeper than {MAX_ROW_DEPTH} levels"
        else:
            yield number, value, None


def _short(value: object, limit: int = 200) -> str:
    """A bounded text of any decoded value (``reprlib``: no recursion into a deep one)."""
    import reprlib

    if isinstance(value, str):
        return value[:limit]
    short = reprlib.Repr()
    short.maxlevel, short.maxstring, short.maxother = 4, limit, limit
    try:
        return short.repr(value)[:limit]
    except ValueError:  # an integer too long to print
        return f"a {type(value).__name__} that cannot be printed"


def _message(row: Mapping[str, object]) -> Mapping[str, object] | None:
    for holder in (row, row.get("response"), (row.get("response") or {}).get("body")
                   if isinstance(row.get("response"), dict) else None):
        if isinstance(holder, dict):
            choices = holder.get("choices")
            if isinstance(choices, list) and choices and isinstance(choices[0], dict):
                message = choices[0].get("message")
                if isinstance(message, dict):
                    return message
    return None


def _reading_of_message(message: Mapping[str, object]) -> StepReading:
    tool_calls = message.get("tool_calls")
    if isinstance(tool_calls, list) and tool_calls:
        return read_step(tool_calls)  # each call, even one whose arguments cannot be read (counted)
    content = message.get("content")
    return read_step(content) if isinstance(content, str) else StepReading()


def _one_step(item_id: str, reading: StepReading, text: object, tally: UnreadTally) -> Rollout:
    """The one-turn, one-step rollout of one reading, with what it left unread on turn 0."""
    tally.add(reading, item_id)
    turns = ((reading.calls,),)
    return Rollout(item_id, turns, texts=texts_of(((text,),), turns),
                   unread=tuple((0, u.kind, u.excerpt) for u in reading.unread))


def rollout_of(item_id: str, row: Mapping[str, object], tally: UnreadTally | None = None) -> Rollout:
    """The one-turn, one-step rollout a row holds, or an unscored rollout saying why."""
    tally = tally if tally is not None else UnreadTally()
    if row.get("error"):
        return Rollout(item_id, None, f"error entry: {_short(row['error'])}")
    response = row.get("model_response")
    message = None if isinstance(response, str) else _message(row)
    if isinstance(response, str):
        return _one_step(item_id, read_step(response), response, tally)
    message = _message(row)
    if message is not None:
        return _one_step(item_id, _reading_of_message(message), message.get("content"), tally)
    return Rollout(item_id, None, NO_RESPONSE, unreadable=True)  # nothing to read: not a stored error


def _item_id(row: Mapping[str, object]) -> str | None:
    for value in (row.get("uuid"), row.get("custom_id"),
                  (row.get("twinbench") or {}).get("id") if isinstance(row.get("twinbench"), dict) else None):
        if isinstance(value, str) and value:
            return value
    return None


@attrs.frozen(eq=False)
class When2CallRuns(RunReader):
    rows: Mapping[str, object]  # the data's rows by uuid (adapter.Row)
    items: Mapping[str, Item]  # every item, constructed twins included
    results_usage: str = "--when2call-data FILE --results MODEL.jsonl"  # one file per model, named by it

    def find(self, paths: Sequence[Path], models: Sequence[str] = (), official: Path | None = None) -> RunSearch:
        files: list[Path] = []
        warnings: list[str] = []
        skipped: list[tuple[str, str]] = []
        if official is not None:
            warnings.append(f"When2Call outputs carry no official verdicts; --scores {official} is ignored")
        for path in map(Path, paths):
            if str(path) in ("", "."):
                raise AdapterError("--results needs a file (one JSONL of responses per model)")
            if not path.exists():
                raise AdapterError(f"--results {path} does not exist")
            if path.is_dir():
                found = sorted(path.glob("*.jsonl"))
                if not found:
                    raise AdapterError(f"--results {path} is a folder without .jsonl files")
                files.extend(found)
            else:
                files.append(path)
        runs: list[RunRef] = []
        for path in files:
            if path.stat().st_size == 0:
                skipped.append((str(path), "empty file"))
            elif models and path.stem not in models:
                skipped.append((str(path), f"not selected by --model ({path.stem})"))
            else:
                runs.append(RunRef(model=path.stem, location=path))
        names = [r.model for r in runs]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise AdapterError(f"several --results files are named {', '.join(twice)}; the file stem names the "
                               "model, so give each model's file its own name")
        missing = [m for m in models if m not in names]
        if missing:
            raise AdapterError(f"--model {', '.join(missing)}: no results file of that name (found: "
                               f"{', '.join(sorted(p.stem for p in files)) or 'none'})")
        return RunSearch(tuple(sorted(runs, key=lambda r: r.model)), tuple(skipped), tuple(warnings))

    def sources(self, run: RunRef) -> tuple[Path, ...]:
        """The run's one file of responses."""
        return (Path(run.location),)

    def read(self, run: RunRef, item_ids: Iterable[str]) -> RunLoad:
        wanted = set(item_ids)
        path = Path(run.location)
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise AdapterError(f"{path}: cannot be read ({exc.strerror})") from None
        rollouts: dict[str, Rollout] = {}
        tally = UnreadTally()
        bad: list[int] = []
        bfcl_like = 0  # lines with BFCL's "id" and "result" and no When2Call key: a BFCL result file
        unknown: list[str] = []
        repeated: list[str] = []
        for number, row, _ in json_rows(raw):
            item_id = _item_id(row) if isinstance(row, dict) else None
            if item_id is None:
                bad.append(number)
                bfcl_like += isinstance(row, dict) and "id" in row and "result" in row
                continue
            if item_id not in self.items:
                unknown.append(item_id)
                continue
            if item_id not in wanted:
                continue
            if item_id in rollouts:
                repeated.append(item_id)
                continue
            rollouts[item_id] = rollout_of(item_id, row, tally)
        warnings = []
        if bad and bfcl_like == len(bad) and not rollouts and not unknown:
            warnings.append(f"{run.model}: {path} looks like a BFCL result file (each line has BFCL's id and result, "
                            "none a When2Call uuid), not When2Call outputs: score BFCL runs with --adapter bfcl "
                            "--results DIR; the When2Call adapter reads one JSONL of responses per model")
        elif bad:
            warnings.append(f"{run.model}: {path}: {len(bad)} line(s) are not a JSON row with a uuid "
                            f"(line {', '.join(map(str, bad[:_EXAMPLES]))}{' ...' if len(bad) > _EXAMPLES else ''}); "
                            "skipped, and the pairs that need them are unscored")
        if unknown:
            warnings.append(f"{run.model}: {path}: {len(unknown)} row(s) name no item of --when2call-data "
                            f"(e.g. {', '.join(unknown[:_EXAMPLES])}); another data file?")
        if repeated:
            warnings.append(f"{run.model}: {path}: {len(repeated)} item(s) appear more than once "
                            f"(e.g. {', '.join(repeated[:_EXAMPLES])}); the first row is used")
        unusable = sum(1 for r in rollouts.values() if r.turns is None)
        silent = [i for i, r in rollouts.items() if r.error == NO_RESPONSE]
        if silent:
            warnings.append(f"{run.model}: {path}: {len(silent)} row(s) hold no response (no model_response and no "
                            f"chat-completion message; e.g. {', '.join(silent[:_EXAMPLES])}); the pairs that need "
                            "them are unscored as unreadable rollouts")
        absent = len(wanted - set(rollouts))
        twins = {i for i in wanted if i.endswith(TWIN_SUFFIX) and i not in self.rows}
        if not rollouts:
            if not bfcl_like:
                warnings.append(f"{run.model}: {path}: no row answers an item of --when2call-data ({len(wanted)} asked "
                                "for), so no pair can be scored")
        elif twins and not twins & set(rollouts):
            warnings.append(f"{run.model}: {path}: none of the {len(twins)} constructed should-act twins "
                            f"(ids ending in {TWIN_SUFFIX}) has a row, so no pair can be scored: run the model on "
                            "the suite `twinbench build --adapter when2call` writes, not on When2Call's own file")
        elif absent:
            warnings.append(f"{run.model}: {path}: {absent} of the {len(wanted)} items asked for have no row "
                            "(a partial run?); the pairs that need them are unscored")
        notes = {"rows_unreadable": len(bad), "rows_unknown": len(unknown), "rows_unscored": unusable}
        return RunLoad(run=run, rollouts=rollouts, warnings=tuple(warnings), notes=notes, unread=tally.counts(),
                       unread_examples=tally.examples())

    def write(self, directory: Path, model: str, rollouts: Mapping[str, Sequence[Sequence[Sequence[Call]]]]) -> RunRef:
        """Rows of the suite with ``model_response`` as When2Call's script writes it (first call, names rewritten)."""
        folder = Path(directory)
        folder.mkdir(parents=True, exist_ok=True)
        lines = []
        for item_id in sorted(rollouts):
            steps = [call for turn in rollouts[item_id][:1] for step in turn for call in step]
            source = self.rows.get(item_id) or self.rows[item_id.removesuffix(TWIN_SUFFIX)]
            row = {key: source.data[key] for key in ROW_KEYS if key in source.data}
            row["uuid"] = item_id
            if steps:
                call = steps[0]
                row["model_response"] = json.dumps({"name": call.name.replace(".", "_"),
                                                    "arguments": dict(call.kwargs)}, ensure_ascii=False)
            else:  # a prose reply: the row's own answer of the kind it calls for
                answers = source.data.get("answers") or {}
                kind = source.data["correct_answer"] if item_id in self.rows else "request_for_info"
                row["model_response"] = str(answers.get(kind if kind != "tool_call" else "request_for_info", ""))
            lines.append(json.dumps(row, ensure_ascii=False))
        path = folder / f"{model}.jsonl"
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        return RunRef(model=model, location=path)
