"""The diagnostics: each rule on hand-made records, the reader facts they need, and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders import tiny_package
from conftest import BFCL_RUNS, need_shared
from test_score import MKDIR, good_lines, score, write_run

from twinbench.decisions import diagnostics as dg
from twinbench.adapters.bfcl import score_files
from twinbench.reading import step_text, texts_of
from twinbench.model import (Bearing, Call, Certification, CertificationStatus, FailureKind, OfficialFailure, Pair,
                             PairDecision, PairStatus, Perturbation, Rollout, RunLoad, RunRef)

# --------------------------------------------------------------------------- the rules


@pytest.mark.parametrize("value", ["", "  ", "TBD", "?", "???", "unknown", "Placeholder", "<user_id>", "N/A",
                                   "the_placeholder_name", ["a", ""], {"to": "tbd"}, ("x", ["?"])])
def test_placeholder_values(value):
    assert dg.is_placeholder(value)


@pytest.mark.parametrize("value", ["USR001", "a?", "unknown user", 0, None, False, [], {}, ["a", "b"],
                                   "<b>bold</b> text", 3.5])
def test_real_values_are_no_placeholders(value):
    assert not dg.is_placeholder(value)


def test_a_call_has_a_placeholder_in_any_argument():
    assert dg.has_placeholder(Call("send", args=("",)))
    assert dg.has_placeholder(Call("send", kwargs=(("to", "x"), ("body", "TBD"))))
    assert not dg.has_placeholder(Call("send", kwargs=(("to", "x"),)))


@pytest.mark.parametrize("turn, kind, where", [
    (0, FailureKind.MISMATCH, dg.BEFORE_ANCHOR),
    (1, FailureKind.EMPTY_TURN, dg.BEFORE_ANCHOR),
    (3, FailureKind.EMPTY_TURN, dg.LATER_EMPTY_TURN),
    (3, FailureKind.MISMATCH, dg.LATER_MISMATCH),
    (2, FailureKind.MISMATCH, None),  # the anchor itself
    (3, FailureKind.OTHER, None),
    (None, FailureKind.OTHER, None),
])
def test_where_a_failure_is_lost(turn, kind, where):
    assert dg.lost_where(2, OfficialFailure(kind, turn)) == where


def test_no_failure_record_is_not_placed():
    assert dg.lost_where(2, None) is None


# --------------------------------------------------------------------------- diagnose on hand-made records

CERT = Certification(CertificationStatus.CERTIFIED)


def _pair(n: int, removed_tools=()) -> Pair:
    return Pair(ask_id=f"ask_{n}", act_id=f"act_{n}", category="c", anchor_turn=1, act_anchor_turn=1,
                perturbation=Perturbation.TOOL_REMOVED if removed_tools else Perturbation.VALUE_REMOVED,
                removed_tools=tuple(removed_tools), decision_bearing=Bearing.ACTION, reference_anchor_calls=(),
                certification=CERT, status=PairStatus.SCORED, reason="")


def _decision(n: int, held: bool, looked_up=(), ask_attempts=(), act_attempts=(Call("mv"),), scored=True):
    return PairDecision(model="m", ask_id=f"ask_{n}", act_id=f"act_{n}", category="c", anchor_turn=1,
                        act_anchor_turn=1, certification="certified", compound=False, scored=scored,
                        missing=None if scored else "ask: missing from the results", acted=bool(act_attempts),
                        held_back=held, held_back_credited=held,
                        calls_on_ask=tuple(looked_up) + tuple(c.name for c in ask_attempts),
                        attempts_on_ask=tuple(c.name for c in ask_attempts), ask_attempt_calls=tuple(ask_attempts),
                        act_attempt_calls=tuple(act_attempts))


def _rollout(n: int, anchor_text: str) -> Rollout:
    return Rollout(f"ask_{n}", (((),), ((),)), texts=(("hello",), (anchor_text,)))


def _load(rollouts, official=None, failures=None) -> RunLoad:
    return RunLoad(run=RunRef("m", Path(".")), rollouts={r.item_id: r for r in rollouts}, official=official,
                   official_failures=failures)


def test_diagnose_counts_each_figure_on_its_own_denominator():
    pairs = [_pair(0), _pair(1), _pair(2), _pair(3, ["cp"]), _pair(4, ["cp"]), _pair(5)]
    decisions = [
        _decision(0, True),  # held back, silent
        _decision(1, True, looked_up=("ls",)),  # held back, says something, looked up
        _decision(2, False, ask_attempts=(Call("mv", kwargs=(("to", "TBD"),)),)),  # acted blind with a placeholder
        _decision(3, False, ask_attempts=(Call("cp"), Call("mv"))),  # calls the withheld tool by name
        _decision(4, False, ask_attempts=(Call("mv"),), act_attempts=(Call("mv", args=("",)),)),  # other function
        _decision(5, True, scored=False),  # unscored: counted nowhere
    ]
    rollouts = [_rollout(0, ""), _rollout(1, "Which file?"), _rollout(2, "")]
    official = {"ask_0": False, "ask_1": False, "ask_2": True, "ask_3": True, "ask_4": False, "ask_5": False}
    failures = {"ask_0": OfficialFailure(FailureKind.EMPTY_TURN, 3), "ask_1": OfficialFailure(FailureKind.MISMATCH, 0),
                "ask_4": OfficialFailure(FailureKind.MISMATCH, 2)}
    out = dg.diagnose(decisions, pairs, _load(rollouts, official, failures))
    assert out.pairs == 5
    assert out.held_back == dg.HeldBack(turns=2, silent=1, looked_up_first=1)
    assert (out.placeholders.ask_calls, out.placeholders.ask_marked) == (4, 1)
    assert (out.placeholders.act_calls, out.placeholders.act_marked) == (5, 1)
    assert out.placeholders.ask == 25.0 and out.placeholders.act == 20.0
    assert out.withheld_calls == dg.WithheldCalls(removed_name=1, other=1)
    # held back and failed: ask_0 (later empty turn), ask_1 (before the anchor); ask_4 acted, so it is not here
    assert out.held_back_lost == dg.HeldBackLost(failed=2, before_anchor=1, later_empty_turn=1, later_mismatch=0)
    # passed: ask_2 and ask_3, both with an attempt
    assert out.pass_side == dg.PassSide(passed=2, attempted=2) and out.pass_side.share == 100.0
    assert out.to_json() == {
        "held_back": {"turns": 2, "silent": 1, "looked_up_first": 1},
        "placeholders": {"ask": 25.0, "act": 20.0},
        "held_back_lost": {"failed": 2, "before_anchor": 1, "later_empty_turn": 1, "later_mismatch": 0},
        "pass_side_attempt": 100.0,
        "withheld_calls": {"removed_name": 1, "other": 1},
    }


def test_diagnose_counts_only_the_pairs_asked_for():
    pairs = [_pair(0), _pair(1)]
    decisions = [_decision(0, True), _decision(1, True)]
    out = dg.diagnose(decisions, pairs, _load([_rollout(0, ""), _rollout(1, "")]), counted={"ask_1"})
    assert out.pairs == 1 and out.held_back.turns == 1


def test_silent_is_not_told_when_the_run_keeps_no_text():
    rollout = Rollout("ask_0", (((),), ((),)))  # no texts at all
    out = dg.diagnose([_decision(0, True)], [_pair(0)], _load([rollout]))
    assert out.held_back.silent is None and not out.stores_text
    assert out.held_back_lost is None and out.pass_side is None and out.to_json()["pass_side_attempt"] is None


def test_silent_is_zero_without_held_back_turns_whether_text_is_kept_or_not():
    rollout = Rollout("ask_0", (((),), ((Call("mv"),),)))
    out = dg.diagnose([_decision(0, False, ask_attempts=(Call("mv"),))], [_pair(0)], _load([rollout]))
    assert out.held_back == dg.HeldBack(turns=0, silent=0, looked_up_first=0)


def test_when2call_rollouts_keep_the_reply_text():
    from twinbench.adapters.when2call.runs import rollout_of

    assert rollout_of("x", {"model_response": "Which city do you mean?"}).texts == (("Which city do you mean?",),)
    call = rollout_of("x", {"model_response": '{"name": "get_weather", "arguments": {"city": "Paris"}}'})
    assert call.texts == (("",),) and call.turns[0][0][0].name == "get_weather"
    message = rollout_of("x", {"choices": [{"message": {"content": "I cannot do that."}}]})
    assert message.texts == (("I cannot do that.",),)


def test_verdicts_without_failure_kinds_leave_the_places_untold():
    out = dg.diagnose([_decision(0, True)], [_pair(0)], _load([_rollout(0, "")], {"ask_0": False}))
    assert out.held_back_lost == dg.HeldBackLost(failed=1, before_anchor=None, later_empty_turn=None,
                                                 later_mismatch=None)


# --------------------------------------------------------------------------- the facts the readers give


def test_step_text_keeps_prose_and_drops_reasoning_and_records():
    assert step_text("<think>plan</think>  Which folder?\n") == "Which folder?"
    assert step_text(["Sure.", {"ls": "{}"}, ["Done."]]) == "Sure.\nDone."
    assert step_text({"ls": "{}"}) == step_text(None) == step_text([]) == ""
    assert len(step_text("x" * 10_000)) == 2_000


def test_a_step_that_gave_a_call_is_not_text():
    steps = ((MKDIR, "Done."), ("Which one?",))
    assert texts_of(steps, (((Call("mkdir"),), ()), ((),))) == (("", "Done."), ("Which one?",))


@pytest.mark.parametrize("error, turn", [
    ({"error_type": "multi_turn:empty_turn_model_response", "error_message": "Model response list is empty for turn 3",
      "details": {"execution_result": [{}, {}]}}, 3),
    ({"error_type": "multi_turn:execution_response_mismatch",
      "error_message": "Model response execution results so far does not contain all the ground truth response "
                       "execution results for turn 2."}, 2),
    ({"error_type": "multi_turn:instance_state_mismatch", "error_message": "Model instance for X does not match",
      "execution_result": [{}, {}]}, 1),
    ({"error_type": "multi_turn:force_terminated", "error_message": ["Model was force-terminated"]}, None),
    ("not a record", None),
    ({"error_type": "multi_turn:instance_state_mismatch", "execution_result": []}, None),
])
def test_the_turn_a_bfcl_failure_names(error, turn):
    assert score_files.failure_turn(error) == turn


# --------------------------------------------------------------------------- end to end


@pytest.fixture
def release(tmp_path):
    return tiny_package(tmp_path / "release")


def _scores(root: Path, failed: dict[str, dict]):
    folder = root / "score" / "m" / "multi_turn"
    folder.mkdir(parents=True)
    for cat in ("base", "miss_func", "miss_param"):
        ids = [i for i in failed if f"_{cat}_" in i]
        rows = [{"accuracy": 1 - len(ids), "correct_count": 1 - len(ids), "total_count": 1}]
        rows += [{"id": i, "error": failed[i]} for i in ids]
        (folder / f"BFCL_v4_multi_turn_{cat}_score.json").write_text("\n".join(json.dumps(r) for r in rows))


def test_score_diagnostics_json_and_table(tmp_path, release, capsys):
    lines = good_lines()
    lines["miss_func"] = [{"id": "multi_turn_miss_func_0", "result": [["[mkdir(dir_name='')]"], [MKDIR, "Done."]]}]
    lines["miss_param"] = [{"id": "multi_turn_miss_param_0", "result": [["[ls()]", "Which name?"], ["Sure."]]}]
    write_run(tmp_path / "runs", "m", lines)
    _scores(tmp_path / "runs", {"multi_turn_miss_param_0": {
        "error_type": "multi_turn:empty_turn_model_response", "error_message": "Model response list is empty for turn 1"}})
    code, out, _ = score(release, tmp_path / "runs", "--diagnostics", capsys=capsys)
    assert code == 0
    diag = out["models"][0]["diagnostics"]
    assert set(diag) == {"held_back", "placeholders", "held_back_lost", "pass_side_attempt", "withheld_calls"}
    assert diag["held_back"] == {"turns": 1, "silent": 0, "looked_up_first": 1}  # ls, then "Which name?"
    assert diag["placeholders"] == {"ask": 100.0, "act": 0.0}
    assert diag["held_back_lost"] == {"failed": 1, "before_anchor": 0, "later_empty_turn": 1, "later_mismatch": 0}
    assert diag["pass_side_attempt"] == 100.0  # miss_func_0 passes with an attempt on its anchor turn
    assert diag["withheld_calls"] == {"removed_name": 1, "other": 0}  # it calls the withheld mkdir
    code, plain, _ = score(release, tmp_path / "runs", capsys=capsys)
    assert "diagnostics" not in plain["models"][0]
    for fmt, head in (("table", "diagnostics (on the pairs"), ("markdown", "**diagnostics**")):
        assert main_out(release, tmp_path / "runs", capsys, "--format", fmt, "--diagnostics").count(head) == 1
    assert "diagnostics" not in main_out(release, tmp_path / "runs", capsys, "--format", "table")


def main_out(release, runs, capsys, *extra):
    from twinbench.cli import main

    assert main(["score", "--bfcl-root", str(release), "--results", str(runs), "--bootstrap", "0", *extra]) == 0
    return capsys.readouterr().out


def test_reference_policies_are_never_silent(capsys, release):
    from twinbench.cli import main

    assert main(["score", "--bfcl-root", str(release), "--bootstrap", "0", "--format", "json", "--diagnostics"]) == 0
    by = {m["model"]: m["diagnostics"] for m in json.loads(capsys.readouterr().out)["models"]}
    assert by["never-act"]["held_back"] == {"turns": 2, "silent": 0, "looked_up_first": 0}
    assert by["always-act"]["held_back"]["turns"] == 0 and by["always-act"]["held_back_lost"] is None


# --------------------------------------------------------------------------- the shared gpt-oss runs


@pytest.mark.shared
def test_gpt_oss_diagnostics_match_the_items_checked_by_hand(bfcl_adapter):
    from twinbench.evaluation.score import score as score_runs

    runs = need_shared(BFCL_RUNS / "gpt-oss-2025-11")
    report, evaluation = score_runs(bfcl_adapter, [runs], ["openai_gpt-oss-120b"], n_boot=0, diagnostics=True)
    (model_run,) = evaluation.runs
    by = {d.ask_id: d for d in model_run.decisions}
    failures = model_run.load.official_failures
    # miss_func_8: held back on turn 2 (one empty step); BFCL: "Model response list is empty for turn 3"
    assert by["multi_turn_miss_func_8"].held_back and failures["multi_turn_miss_func_8"] == OfficialFailure(
        FailureKind.EMPTY_TURN, 3, "multi_turn:empty_turn_model_response")
    assert dg.lost_where(2, failures["multi_turn_miss_func_8"]) == dg.LATER_EMPTY_TURN
    # miss_func_65: held back on turn 1; a state mismatch with one execution record: lost on turn 0
    assert by["multi_turn_miss_func_65"].held_back and failures["multi_turn_miss_func_65"].turn == 0
    # miss_func_19: held back on turn 1 after ls (looked up first), state mismatch on turn 2
    assert dg.looked_up_first(by["multi_turn_miss_func_19"]) and failures["multi_turn_miss_func_19"].turn == 2
    # miss_func_10: ended before its anchor (held back), force-terminated: failed, placed nowhere
    assert dg.lost_where(2, failures["multi_turn_miss_func_10"]) is None
    # miss_param_51: send_message(receiver_id='???') on anchor turn 3
    assert any(dg.has_placeholder(c) for c in by["multi_turn_miss_param_51"].ask_attempt_calls)
    # miss_func_22: post_tweet on anchor turn 3 while authenticate_twitter is withheld, and BFCL passes it
    assert model_run.load.official["multi_turn_miss_func_22"] and not by["multi_turn_miss_func_22"].held_back
    diag = report.models[0].diagnostics.to_json()
    # no text in this run; the call whose arguments cannot be read counts by its name (issue 18), so the turn
    # beside it is decided: 146
    assert diag["held_back"] == {"turns": 146, "silent": None, "looked_up_first": 46}
    assert diag["held_back_lost"] == {"failed": 67, "before_anchor": 20, "later_empty_turn": 10, "later_mismatch": 36}
    assert diag["withheld_calls"] == {"removed_name": 0, "other": 36}
