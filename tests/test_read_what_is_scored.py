"""Reading only what is scored: lines dropped by their first bytes, turns left encoded, each distinct step read once.

Every check the full decoding makes still holds: these tests read the same files with every id
and turn asked for (the full decoding) and with a few (the fast path), and compare.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import BFCL_RUNS, need_shared

from twinbench.adapters.bfcl import lines, result_files, run_reader
from twinbench.adapters.bfcl.result_files import read_result_file
from twinbench.reading import StepMemo, read_step

NAME = "BFCL_v4_multi_turn_base_result.json"


def _line(**fields: object) -> bytes:
    return (json.dumps(fields) + "\n").encode()


def _file(tmp_path: Path, *rows: bytes) -> Path:
    path = tmp_path / NAME
    path.write_bytes(b"".join(rows))
    return path


def _both(path: Path, keep: set[str]):
    """The file read whole, and read for ``keep`` only."""
    return read_result_file(path), read_result_file(path, keep_ids=keep)


def test_a_line_not_asked_for_is_dropped_by_its_id_without_decoding_it(tmp_path, monkeypatch):
    path = _file(tmp_path, _line(id="multi_turn_base_0", result=[["a"]], inference_log=[{"x": 1}]),
                 _line(id="multi_turn_base_1", result=[["b"]]))
    seen = []
    decoder = lines._result_fields.__kwdefaults__["_decoder"]

    class Counting:
        def decode(self, line):
            seen.append(line)
            return decoder.decode(line)

    monkeypatch.setitem(lines._result_fields.__kwdefaults__, "_decoder", Counting())
    rf = read_result_file(path, keep_ids={"multi_turn_base_1"})
    assert list(rf.entries) == ["multi_turn_base_1"] and rf.other_ids == 1 and rf.warnings == ()
    # only the kept line is decoded into its fields; the other one is known by its first bytes
    assert seen == [path.read_bytes().splitlines(keepends=True)[1]]
    assert lines.leading_id(path.read_bytes()) == "multi_turn_base_0"


@pytest.mark.parametrize("broken", [
    b'{"id": "multi_turn_base_0", "result": [["a"]], "inference_log": [{"x": 1}\n',  # truncated in the middle
    b'{"id": "multi_turn_base_0", "result": [["a"]] "latency": 2}\n',  # a missing comma
    b'{"id": "multi_turn_base_0", "result": [["a"]], "latency": 2}{"id": "multi_turn_base_9"}\n',  # two lines run together
    b'{"id": "multi_turn_base_0", "result": [["a"]], "latency": 01}\n',  # not a JSON number
])
def test_a_malformed_line_not_asked_for_is_still_refused_and_counted(tmp_path, broken):
    path = _file(tmp_path, broken, _line(id="multi_turn_base_1", result=[["b"]]))
    whole, some = _both(path, {"multi_turn_base_1"})
    assert some.bad_lines == whole.bad_lines and len(some.bad_lines) == 1
    assert some.other_ids == 0 and list(some.entries) == ["multi_turn_base_1"]
    assert some.warnings == whole.warnings


def test_a_truncated_last_line_not_asked_for_is_still_called_truncated(tmp_path):
    path = _file(tmp_path, _line(id="multi_turn_base_1", result=[["b"]]),
                 b'{"id": "multi_turn_base_0", "result": [["a"]], "inference_log": [{"begin_of')
    whole, some = _both(path, {"multi_turn_base_1"})
    ((line, reason),) = some.bad_lines
    assert line == 2 and reason.startswith("truncated last line") and some.bad_lines == whole.bad_lines


def test_invalid_utf8_anywhere_in_a_line_is_counted_whether_it_is_read_or_not(tmp_path):
    bad = b'{"id": "multi_turn_base_0", "result": [["a"]], "traceback": "caf\xe9"}\n'
    path = _file(tmp_path, bad, _line(id="multi_turn_base_1", result=[["b"]]))
    for rf in _both(path, {"multi_turn_base_1"}) + (read_result_file(path, keep_ids={"multi_turn_base_0"}),):
        assert rf.warnings[0].startswith("1 line with invalid UTF-8 bytes (first: line 1)")


def test_a_repeated_id_key_is_read_as_json_reads_it_the_last_one(tmp_path):
    path = _file(tmp_path, b'{"id": "multi_turn_base_0", "result": [["a"]], "id": "multi_turn_base_1"}\n')
    rf = read_result_file(path, keep_ids={"multi_turn_base_1"})
    assert list(rf.entries) == ["multi_turn_base_1"] and rf.other_ids == 0


def test_ids_that_need_the_full_decoding_are_not_read_off_the_first_bytes():
    assert lines.leading_id(b'{"id": "multi_turn_base_0", "result": []}') == "multi_turn_base_0"
    for line in (b'{"id": "a\\u0062", "result": []}', b'{"id": "", "result": []}', b'{"result": [], "id": "a"}',
                 b'{ "id": "a"}', '{"id": "é"}'.encode(), b'{"id": "' + b"x" * 300 + b'"}'):
        assert lines.leading_id(line) is None


def test_only_the_turns_asked_for_are_decoded_and_the_others_still_checked(tmp_path):
    steps = [["ls()"], [{"cd": "{\"folder\": \"a\"}"}, "done"], [None, ["x"]]]
    path = _file(tmp_path, _line(id="multi_turn_base_0", result=steps),
                 _line(id="multi_turn_base_1", result=[["a"], [1, "b"]]),
                 _line(id="multi_turn_base_2", result=[["a"], "not a turn"]))
    some = read_result_file(path, keep_ids={"multi_turn_base_0", "multi_turn_base_1", "multi_turn_base_2"},
                            turns={"multi_turn_base_0": {1}, "multi_turn_base_1": {0}, "multi_turn_base_2": {0}})
    whole = read_result_file(path)
    entry = some.entries["multi_turn_base_0"]
    assert entry.turns == (None, ({"cd": "{\"folder\": \"a\"}"}, "done"), None)
    assert entry.stored_steps == (None, (b'{"cd": "{\\"folder\\": \\"a\\"}"}', b'"done"'), None)
    assert whole.entries["multi_turn_base_0"].turns == tuple(tuple(t) for t in steps)
    # a turn not read still makes a rollout unreadable, with the same words
    for item_id in ("multi_turn_base_1", "multi_turn_base_2"):
        assert some.entries[item_id].error == whole.entries[item_id].error is not None
        assert some.entries[item_id].unreadable
    assert some.warnings == whole.warnings


def test_copies_of_a_line_are_compared_whole_even_in_the_turns_not_read(tmp_path):
    first = _line(id="multi_turn_base_0", result=[["a"], ["b"]])
    path = _file(tmp_path, first, first, _line(id="multi_turn_base_0", result=[["a"], ["c"]]))
    some = read_result_file(path, keep_ids={"multi_turn_base_0"}, turns={"multi_turn_base_0": {0}})
    assert some.warnings == read_result_file(path).warnings
    assert "line 2 (same content as line 1); line 3 (different content from line 1)" in some.warnings[0]


def test_the_dialogue_is_read_from_the_user_messages_alone(tmp_path):
    log = [{"begin_of_turn_query": [{"role": "system", "content": "a long prompt"},
                                    {"role": "user", "content": [{"type": "text", "text": "hi"}]}]},
           [{"state": 1}], {"begin_of_turn_query": [{"role": "user"}]}, {"step_0": []}]
    path = _file(tmp_path, _line(id="multi_turn_base_0", result=[["a"]], inference_log=log))
    fast = read_result_file(path, keep_ids={"multi_turn_base_0"}, turns={"multi_turn_base_0": {0}})
    whole = read_result_file(path)
    assert fast.entries["multi_turn_base_0"].logged_user_turns == (("hi",), (), ())
    assert fast.entries == whole.entries and fast.warnings == whole.warnings
    assert "a user message in begin_of_turn_query has no text content" in fast.warnings[0]


@pytest.mark.shared
def test_the_shared_runs_read_for_their_pairs_give_what_the_full_decoding_gives(monkeypatch):
    """Every shared result file read for some ids and turns, through the fast path and through json."""
    files = sorted(need_shared(BFCL_RUNS).rglob("BFCL_*_result.json"))
    for path in files[::3]:
        ids = [json.loads(line)["id"] for line in path.read_text(encoding="utf-8").splitlines()[::2]]
        turns = {item_id: {k % 3, 2} for k, item_id in enumerate(ids)}
        fast = read_result_file(path, keep_ids=set(ids), turns=turns)
        monkeypatch.setattr(result_files, "_result_fields", _refuse)
        slow = read_result_file(path, keep_ids=set(ids))
        monkeypatch.undo()
        assert (fast.other_ids, fast.bad_lines, fast.warnings) == (slow.other_ids, slow.bad_lines, slow.warnings)
        for item_id, entry in slow.entries.items():
            got = fast.entries[item_id]
            assert (got.error, got.logged_user_turns, got.unreadable) == (entry.error, entry.logged_user_turns,
                                                                          entry.unreadable)
            if entry.turns is not None:
                assert got.turns == tuple(turn if t in turns[item_id] else None for t, turn in enumerate(entry.turns))


def _refuse(line, *args):
    raise ValueError("the stdlib path")


# --------------------------------------------------------------------------- each distinct step read once


def test_a_step_stored_twice_is_read_once_and_gives_the_same_reading():
    memo = StepMemo()
    step = "[cd(folder='a'), ls()]"
    first, again = memo.read(step, b'"[cd(folder=\'a\'), ls()]"'), memo.read(step, b'"[cd(folder=\'a\'), ls()]"')
    assert first is again and first == read_step(step) and (memo.hits, memo.misses) == (1, 1)
    assert memo.read(step) == first and len(memo) == 1  # without its stored bytes, a step is read each time


def test_the_memo_stays_within_its_budget_and_keeps_no_long_step():
    from twinbench.reading import memo as memo_module

    memo = StepMemo(budget=100)
    for k in range(30):
        memo.read(f"f{k}()", json.dumps(f"f{k}()").encode())
        assert memo._bytes <= 100
    assert 0 < len(memo) < 30
    roomy, long = StepMemo(), "x" * memo_module.LONGEST_KEPT
    roomy.read(long, json.dumps(long).encode())  # two bytes longer than the longest kept, with its quotes
    assert len(roomy) == 0 and roomy.budget > memo_module.LONGEST_KEPT


def test_a_run_read_with_the_memo_counts_each_unread_step_where_it_occurs(tmp_path, monkeypatch):
    """The memo changes no count: each occurrence of a step is tallied, as without it."""
    from twinbench.model import RunRef
    from twinbench.adapters.bfcl.tree import find_runs

    folder = tmp_path / "result" / "m" / "multi_turn"
    folder.mkdir(parents=True)
    odd = "<tool_call>not json</tool_call>"
    for category in ("base", "miss_func", "miss_param"):
        rows = [_line(id=f"multi_turn_{category}_{k}", result=[[odd, "ls()"], [odd]]) for k in range(3)]
        (folder / f"BFCL_v4_multi_turn_{category}_result.json").write_bytes(b"".join(rows))
    (found,) = find_runs(folder.parent).runs
    run = RunRef(model="m", location=found.root, details={}, payload=found)
    needed = {f"multi_turn_{c}_{k}": frozenset({0, 1}) for c in ("base", "miss_func", "miss_param") for k in range(3)}

    def read(memo):
        monkeypatch.setattr(run_reader, "STEPS", memo)
        return run_reader.read(run, needed, {}, "BFCL_v4")

    memo = StepMemo()
    remembered, fresh = read(memo), read(StepMemo(budget=0))  # a budget of nothing keeps nothing
    assert (memo.misses, memo.hits) == (2, 25)  # two distinct steps, 27 steps in all
    assert remembered.unread == fresh.unread and remembered.unread["tool_call_block_not_json"] == 18
    assert remembered.rollouts == fresh.rollouts


def test_an_empty_file_warns_only_when_a_pair_reads_its_category(tmp_path):
    """The reference policies' runs of constructed pairs leave a category empty: no warning there;
    an empty file a pair needs still says so."""
    from twinbench.adapters.bfcl.tree import find_runs
    from twinbench.model import RunRef

    folder = tmp_path / "result" / "m" / "multi_turn"
    folder.mkdir(parents=True)
    for category in ("base", "miss_func"):
        (folder / f"BFCL_v4_multi_turn_{category}_result.json").write_bytes(
            _line(id=f"multi_turn_{category}_0", result=[["ls()"]]))
    (folder / "BFCL_v4_multi_turn_miss_param_result.json").write_bytes(b"")
    (found,) = find_runs(folder.parent).runs
    run = RunRef(model="m", location=found.root, details={}, payload=found)
    quiet = run_reader.read(run, {"multi_turn_base_0": frozenset({0}), "multi_turn_miss_func_0": frozenset({0})},
                            {}, "BFCL_v4")
    assert not [w for w in quiet.warnings if "empty" in w]
    told = run_reader.read(run, {"multi_turn_base_0": frozenset({0}), "multi_turn_miss_param_0": frozenset({0})},
                           {}, "BFCL_v4")
    assert any("miss_param_result.json: the result file is empty" in w for w in told.warnings)


@pytest.mark.shared
def test_a_run_keeps_the_official_failures_of_the_items_it_read(bfcl_adapter):
    """Each failed item that was read has its failure; the failed items no pair needs are not carried along."""
    run = bfcl_adapter.reader().find([need_shared(BFCL_RUNS / "gpt-oss-2025-11")]).runs[0]
    some = {f"multi_turn_{c}_{k}": frozenset({0}) for c in ("base", "miss_func", "miss_param") for k in range(0, 200, 7)}
    load = bfcl_adapter.for_run(run).reader().read(run, some)
    whole = bfcl_adapter.for_run(run).reader().read(run, list(some) + [f"multi_turn_base_{k}" for k in range(200)])
    failed = {i for i, passed in load.official.items() if not passed and i in (whole.official_failures or {})}
    assert failed and set(load.official_failures) == failed <= set(some)
    assert set(whole.official_failures) > set(load.official_failures)
    assert all(load.official_failures[i] == whole.official_failures[i] for i in failed)
