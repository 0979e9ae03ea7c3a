"""Reading one BFCL run: its result files' steps into calls, its logged dialogue checked against the
release, and the official verdicts of its score files.

:class:`~twinbench.adapters.bfcl.runs.BFCLRuns` finds runs and names their files without this
module: a rerun whose decisions are all kept loads neither the file readers nor the call reader.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

import msgspec

from twinbench.errors import AdapterError
from twinbench.model import (
    FailureKind,
    Item,
    OfficialFailure,
    Rollout,
    RunLoad,
    RunRef,
)
from twinbench.reading import StepMemo, UnreadTally, read_turns, texts_of

from .lines import ResultsError, _examples
from .result_files import ResultEntry, _same, read_result_file, stored_result
from .score_files import ScoreFile, read_score_file
from .tree import SCORED_CATEGORIES, RunFiles


#: what this process has read, step by distinct stored step (every run a worker reads shares it)
STEPS = StepMemo()

#: per item id, the user texts of each turn (``Turn.user_text``): what a logged dialogue is checked against
Dialogue = Mapping[str, Sequence[Sequence[str]]]


def dialogue_of(items: Iterable[Item]) -> dict[str, tuple[tuple[str, ...], ...]]:
    """The :data:`Dialogue` of some items."""
    return {item.id: tuple(tuple(turn.user_text) for turn in item.turns) for item in items}


def _compare_logged(dialogue: Dialogue, entry: ResultEntry) -> bool | None:
    """Did the model see other user text than this release's item? None when nothing was logged."""
    logged = entry.logged_user_turns
    turns = dialogue.get(entry.id)
    if logged is None or turns is None:
        return None
    for user_text, seen in zip(turns, logged):
        if user_text and tuple(seen) != tuple(user_text):
            return True
    return False


def read(run: RunRef, item_ids: Iterable[str], dialogue: Dialogue, dataset_prefix: str) -> RunLoad:
    """One run's rollouts of ``item_ids`` (a mapping to the turns to read, or every turn), its logged
    dialogue checked against ``dialogue``, and the official verdicts of its score files."""
    found: RunFiles = run.payload
    turns_of = item_ids if isinstance(item_ids, Mapping) else None  # the turns scoring reads, per item
    wanted = set(item_ids)
    rollouts: dict[str, Rollout] = {}
    warnings: list[str] = []
    logged = differing = errors = 0
    tally = UnreadTally()
    examples: list[str] = []
    official: dict[str, bool] = {}
    failures: dict[str, OfficialFailure] = {}
    if found.version and f"BFCL_{found.version}" != dataset_prefix:
        warnings.append(f"{run.model}: the results are BFCL_{found.version} files but the dataset release is "
                        f"{dataset_prefix}; decisions are read against other items than the model saw")
    for category in SCORED_CATEGORIES:
        path = found.files[category]
        try:
            rf = read_result_file(path, keep_ids=None if turns_of is None else wanted, turns=turns_of)
        except ResultsError as exc:
            raise AdapterError(str(exc)) from exc
        needed = {i for i in wanted if i.startswith(f"multi_turn_{category}_")}
        if not (rf.empty and not needed):  # an empty file of a category no pair reads has nothing to say
            warnings.extend(f"{run.model}: {path.name}: {w}" for w in rf.warnings)
        absent = needed - set(rf.entries)
        if absent:
            warnings.append(f"{run.model}: {len(absent)} of the {len(needed)} {category} items asked for are not in "
                            f"{path.name} (a partial run?); pairs that need them are unscored and counted in the coverage")
        verdicts = _official(run, category, rf.entries, len(rf.entries) + rf.other_ids + len(rf.duplicates), warnings,
                             failures, rf.ids)
        official.update(verdicts or {})
        for entry in rf.entries.values():
            if entry.turns is None:
                if entry.id in wanted:
                    errors += 1
                    rollouts[entry.id] = Rollout(entry.id, None, entry.error or "no result",
                                                 unreadable=entry.unreadable)
                continue
            if entry.id not in wanted:
                continue
            read = turns_of.get(entry.id) if turns_of is not None else None  # None: every turn
            turns, unread = read_turns(entry.turns, read, tally, entry.id, stored=entry.stored_steps, memo=STEPS)
            rollouts[entry.id] = Rollout(entry.id, turns, texts=texts_of(entry.turns, turns), unread=unread)
            differs = _compare_logged(dialogue, entry)
            if differs is not None:
                logged += 1
                if differs:
                    differing += 1
                    if len(examples) < 3:
                        examples.append(entry.id)
    if differing:
        warnings.append(
            f"WARNING {run.model}: the user turns recorded in the inference log differ from the {dataset_prefix} "
            f"release on {differing} of {logged} logged items (e.g. {', '.join(examples)}): the run was made on other "
            "dialogue text (another release, or translated turns); its decisions are read against this release's items"
        )
    notes = {"logged_items": logged, "logged_items_differing": differing, "error_entries": errors}
    remarks = (f"dialogue differs from the release on {differing} of {logged} logged items",) if differing else ()
    return RunLoad(run=run, rollouts=rollouts, warnings=tuple(warnings), notes=notes,
                   official=official or None, remarks=remarks, unread=tally.counts(),
                   unread_examples=tally.examples(), official_failures=failures if official else None)


def _official(run: RunRef, category: str, entries: Mapping[str, ResultEntry], lines: int,
              warnings: list[str], failures: dict[str, OfficialFailure] | None = None,
              ids: Collection[str] | None = None) -> dict[str, bool] | None:
    """One category's official verdicts: pass when the item has a result and is not listed as failed.

    ``failures``, when given, receives the :func:`official_failures` entry of each failed item
    among ``entries`` (only for a score file whose verdicts are used).

    Only a score file that is whole and agrees with itself is used: a file with unusable
    lines, or whose summary disagrees with its failed lines or with the number of results,
    could turn an unlisted failure into a pass, so that category gets no verdicts (said loudly).
    So does a file that cannot be this run's, with or without ``model_name``: a failed id that is
    not in the result file (``ids``: all of its ids), or a failed item whose stored result is not
    the one in the result file.
    """
    found: RunFiles = run.payload
    path = found.score_files.get(category)
    if path is None:
        return None
    try:
        score = read_score_file(path)
    except ResultsError as exc:
        warnings.append(f"WARNING {run.model}: {exc}; no official verdicts for {category}")
        return None
    problem = None
    if score.bad_lines or score.total_count is None or score.correct_count is None \
            or score.total_count - score.correct_count != len(score.failed):
        problem = "; ".join(score.warnings) or "no usable summary line"  # the reader's warnings say what is wrong
    elif score.total_count != lines:
        problem = "; ".join([*score.warnings, f"it scores {score.total_count} items but the result file holds {lines}"])
    else:
        others = sorted({n for n in score.model_names if n.replace("/", "_") != found.model})
        foreign = _not_of_this_run(score, entries, ids)
        if others:
            problem = "; ".join([*score.warnings, f"its failed items are of model {', '.join(others)}, not "
                                 f"{found.model} (the score file of another model?)"])
        elif foreign:
            problem = "; ".join([*score.warnings, f"its failed items cannot be this run's: {foreign}"])
    if problem:  # one line per file, saying every problem once
        warnings.append(f"WARNING {run.model}: {path.name}: {problem}; no official verdicts for {category}")
        return None
    warnings.extend(f"{run.model}: {path.name}: {w}" for w in score.warnings)
    if failures is not None:  # the items read (what a decision can be about), not every failed one
        failures.update((item_id, failure) for item_id, failure in official_failures(score).items()
                        if item_id in entries)
    return {item_id: entry.turns is not None and item_id not in score.failed for item_id, entry in entries.items()}


def _not_of_this_run(score: ScoreFile, entries: Mapping[str, ResultEntry], ids: Collection[str] | None) -> str | None:
    """Why a score file's failed items cannot be this result file's, or ``None``: an id the result
    file does not hold, or a stored result other than the result file's."""
    if ids is not None:
        unknown = [i for i in score.failed if i not in ids]
        if unknown:
            return f"{_examples(unknown)} {'is' if len(unknown) == 1 else 'are'} not in the result file"
    for item_id, stored in score.stored_results.items():
        entry = entries.get(item_id)
        mine = None if entry is None else stored_result(entry)
        if mine is None:
            continue
        try:
            theirs = msgspec.json.decode(stored) if isinstance(stored, bytes) else stored
        except (msgspec.DecodeError, RecursionError):
            continue  # not comparable: the line's other checks still hold
        if not _same(theirs, mine):
            return f"the result it scored for {item_id} is not the one in the result file (line {entry.line})"
    return None


#: BFCL's multi-turn error types, by the kind of failure twinbench tells apart (any other type is "other")
FAILURE_KINDS: Mapping[str, FailureKind] = {
    "multi_turn:empty_turn_model_response": FailureKind.EMPTY_TURN,
    "multi_turn:instance_state_mismatch": FailureKind.MISMATCH,
    "multi_turn:execution_response_mismatch": FailureKind.MISMATCH,
}


def official_failures(score: ScoreFile) -> dict[str, OfficialFailure]:
    """Every failed item of one score file: the kind of its error type and the turn its error names."""
    return {item_id: OfficialFailure(kind=FAILURE_KINDS.get(error_type, FailureKind.OTHER),
                                     turn=score.failure_turns.get(item_id), error=error_type)
            for item_id, error_type in score.failed.items()}
