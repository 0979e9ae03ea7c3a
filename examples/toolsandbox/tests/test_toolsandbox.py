"""The ToolSandbox adapter: twins from the same world, acting by milestones and minefields, the output layout.

The fixtures are ToolSandbox's own output folders (result_summary.json and each scenario's
conversation.json, as ToolSandbox 165848b writes them): a run of its `Unhelpful` agent through
the ToolSandbox CLI, a run whose agent answers were scripted, and a run whose agent crashed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from twinbench.cli import main
from twinbench.discovery import discover_for
from twinbench.model import Call, Side
from twinbench_toolsandbox import ToolSandboxAdapter

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SCRIPTED = FIXTURES / "agent_scripted_agent_user_scripted_user_12_01_2026_22_51_26"
UNHELPFUL = FIXTURES / "agent_Unhelpful_user_cli_user_12_01_2026_22_50_40"
CRASHED = FIXTURES / "agent_cli_agent_user_cli_user_12_01_2026_22_55_28"


@pytest.fixture(scope="module")
def adapter():
    return ToolSandboxAdapter()


@pytest.fixture(scope="module")
def manifest(adapter):
    return discover_for(adapter)


def test_every_scenario_has_a_fate_and_the_twins_start_from_the_same_world(adapter, manifest):
    asks = [i for i in adapter.items() if i.side is Side.ASK]
    assert len(adapter.items()) == 129 and len(asks) == 28
    assert len(manifest.pairs) + len(manifest.dropped) == len(asks)
    assert len(manifest.act_fates) == 129 - 28
    assert len(manifest.scored) == 23
    assert all(i.simulated_user and i.world is not None for i in adapter.items())


def test_the_twin_that_starts_from_another_world_is_refused(manifest):
    drop = {d.id: d for d in manifest.dropped}["find_current_city_insufficient_information"]
    assert drop.stage == "content"
    assert drop.reason == "different starting state: SETTING differs in find_current_city_low_battery_mode"
    pair = {p.ask_id: p for p in manifest.pairs}["find_current_city_low_battery_mode_insufficient_information"]
    assert pair.act_id == "find_current_city_low_battery_mode" and pair.scored
    assert set(pair.removed_tools) >= {"get_current_location"}


def test_acting_is_what_the_milestones_need_or_the_minefield_forbids(adapter):
    items = {i.id: i for i in adapter.items()}
    rule = adapter.rule()
    ask = items["find_current_city_low_battery_mode_insufficient_information"]
    act = items["find_current_city_low_battery_mode"]
    assert rule.is_action(Call("search_lat_lon"), ask, 0)  # the minefield
    assert not rule.is_action(Call("set_wifi_status"), ask, 0)  # a tool it still has, not forbidden
    assert rule.is_action(Call("get_current_location"), ask, 0)  # a withheld tool called anyway
    assert rule.is_action(Call("set_wifi_status"), act, 0)  # the writer of a SETTING change a milestone needs
    assert not rule.is_action(Call("search_contacts"), act, 0)


def test_the_reference_policies_score_100_50_50(capsys):
    assert main(["score", "--adapter", "toolsandbox", "--bootstrap", "0", "--format", "json"]) == 0
    scores = {m["model"]: m for m in json.loads(capsys.readouterr().out)["models"]}
    assert {k: (v["act"], v["hold"], v["decision"]) for k, v in scores.items()} == {
        "oracle": (100.0, 100.0, 100.0), "always-act": (100.0, 0.0, 50.0), "never-act": (0.0, 100.0, 50.0)}


def test_a_toolsandbox_output_folder_is_read_with_its_graded_scores(adapter):
    reader = adapter.reader()
    (run,) = reader.find([SCRIPTED]).runs
    assert run.model == "scripted_agent"
    load = reader.read(run, ["send_message_with_contact_content_cellular_off",
                             "find_current_city_insufficient_information", "cellular_off"])
    sent = load.rollouts["send_message_with_contact_content_cellular_off"]
    assert [c.name for c in sent.calls_on(0)][:3] == ["get_cellular_service_status", "search_contacts",
                                                      "set_cellular_service_status"]
    assert [c.name for c in load.rollouts["find_current_city_insufficient_information"].calls_on(0)] == [
        "search_lat_lon"]
    assert load.official_scores["find_current_city_insufficient_information"] == 0
    assert load.official["cellular_off"] is True and load.official_pass_at == 1.0


def test_a_prose_only_run_and_a_crashed_run(adapter):
    reader = adapter.reader()
    (run,) = reader.find([UNHELPFUL]).runs
    load = reader.read(run, ["find_current_city_low_battery_mode", "find_current_city_insufficient_information"])
    rollout = load.rollouts["find_current_city_low_battery_mode"]
    assert rollout.calls_on(0) == () and rollout.texts_on(0)
    (crashed,) = reader.find([CRASHED]).runs
    error = reader.read(crashed, ["cellular_off"]).rollouts["cellular_off"]
    assert error.turns is None and "exception" in error.error


def test_a_parent_folder_holds_several_runs_and_a_bad_one_is_named(tmp_path, capsys):
    runs = ToolSandboxAdapter().reader().find([FIXTURES]).runs
    assert {r.model for r in runs} == {"scripted_agent", "Unhelpful", "cli_agent"}
    bad = tmp_path / "agent_x_user_y_01_01_2026_00_00_00"
    bad.mkdir()
    (bad / "result_summary.json").write_text("{not json", encoding="utf-8")
    main(["score", "--adapter", "toolsandbox", "--results", str(bad), "--bootstrap", "0"])
    out = capsys.readouterr()
    said = " ".join((out.out + out.err).split())
    assert "result_summary.json: cannot be read as JSON" in said and bad.name in said


def test_scoring_real_output_folders_says_what_is_not_covered(capsys):
    """The fixtures ran a few scenarios each, never both twins of a pair: every pair is unscored, the coverage
    says why, and a score with nothing scored exits 2."""
    assert main(["score", "--adapter", "toolsandbox", "--results", str(FIXTURES), "--bootstrap", "0",
                 "--format", "json"]) == 2
    out = capsys.readouterr()
    models = {m["model"]: m for m in json.loads(out.out)["models"]}
    assert models["scripted_agent"]["coverage"]["scored"] == 0
    assert "missing from the results" in " ".join(models["scripted_agent"]["coverage"]["unscored"])
    assert "nothing was scored" in out.err


def test_hostile_output_files_are_refused_or_left_out(tmp_path, capsys):
    """A summary nested too deep is one clear error; a similarity that is no score in [0, 1] is no verdict."""
    deep = tmp_path / "agent_deep_user_y_01_01_2026_00_00_00"
    deep.mkdir()
    (deep / "result_summary.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    main(["score", "--adapter", "toolsandbox", "--results", str(deep), "--bootstrap", "0"])
    assert "cannot be read as JSON (RecursionError" in " ".join(capsys.readouterr().err.split())
    odd = tmp_path / "agent_odd_user_y_01_01_2026_00_00_00"
    odd.mkdir()
    rows = [{"name": "cellular_off", "similarity": 10 ** 400}, {"name": "get_cellular", "similarity": True},
            {"name": "find_days_till_holiday", "similarity": 0.5}]
    (odd / "result_summary.json").write_text(json.dumps({"per_scenario_results": rows}), encoding="utf-8")
    reader = ToolSandboxAdapter().reader()
    (run,) = reader.find([odd]).runs
    assert reader.read(run, ["cellular_off"]).official_scores == {"find_days_till_holiday": 0.5}
