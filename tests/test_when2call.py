"""The When2Call adapter: items, inline twins, the decision rule, build, responses and score."""

from __future__ import annotations

import json

import attrs
import builders
import pytest
from conftest import FIXTURES, WHEN2CALL, need_shared

from twinbench.errors import AdapterError
from twinbench.adapters.when2call import When2CallAdapter
from twinbench.adapters.when2call.runs import rollout_of
from twinbench.cli import main
from twinbench.discovery import discover, discover_for
from twinbench.model import Call, DeclaredPerturbation, Perturbation, Side
from twinbench.contract.rules import OfferedToolRule

MINI = FIXTURES / "when2call" / "mini.jsonl"
REAL = WHEN2CALL / "when2call_test_llm_judge.jsonl"


@pytest.fixture()
def mini() -> When2CallAdapter:
    return When2CallAdapter(MINI)


def test_rows_become_items_with_inline_twins(mini):
    items = {i.id: i for i in mini.items()}
    assert items["tc-1"].side is Side.ACT and items["tc-1"].twin is None
    rfi = items["rfi-1"]
    assert rfi.side is Side.ASK and rfi.turns[0].user_text == ("Book a room for 2 nights.",)
    assert rfi.twin.turns[0].user_text == ("Book a room in Oslo for 2 nights.",)
    assert rfi.twin.turns[0].tools == rfi.turns[0].tools
    assert rfi.perturbation.kind is Perturbation.VALUE_REMOVED and rfi.perturbation.removed == ("city",)
    ca = items["ca-1"]
    assert ca.twin.turns[0].tools == ("weather.get_forecast", "hotel_api.HotelApi.find_hotels")
    assert ca.perturbation.kind is Perturbation.TOOL_REMOVED
    assert ca.perturbation.removed == ("hotel_api.HotelApi.find_hotels",)
    assert ca.twin.turns[0].reference == (Call("hotel_api.HotelApi.find_hotels", (), (("city", "Paris"),)),)


def test_discovery_pairs_from_inline_twins_and_gives_every_fate(mini):
    manifest = discover_for(mini)
    scored = {p.ask_id: p for p in manifest.scored}
    assert set(scored) == {"rfi-1", "rfi-2", "ca-1", "ca-empty"}
    assert scored["rfi-1"].act_id == "rfi-1-act" and scored["rfi-1"].removed == "city"
    assert scored["ca-1"].perturbation is Perturbation.TOOL_REMOVED
    assert scored["ca-1"].removed_tools == ("hotel_api.HotelApi.find_hotels",)
    assert scored["ca-empty"].removed_tools == ("weather.get_forecast",)
    (drop,) = manifest.dropped
    assert drop.id == "rfi-same" and "user's words are identical" in drop.reason
    fates = {f.id: f for f in manifest.act_fates}
    # the leaderboard's own tool_call item is the same request as rfi-1's constructed twin
    assert "same request as the constructed twin rfi-1-act" in fates["tc-1"].reason
    assert fates["rfi-1-act"].twin_of == ("rfi-1",)


def _one_turn(item_id, side, words, tools, refs=()):
    return builders.item(item_id, "c", side, [(words, list(refs), tools)])


@pytest.mark.parametrize("kind, removed, twin_words, twin_tools, why", [
    (Perturbation.TOOL_REMOVED, "b", "book it, please", ("a", "b"), "user's words differ"),
    (Perturbation.TOOL_REMOVED, "c", "book it", ("a", "b"), "removed tools are b"),
    (Perturbation.VALUE_REMOVED, "city", "book it in Oslo", ("a", "b"), "tool lists differ"),
    (Perturbation.VALUE_REMOVED, "city", "book it", ("a",), "words are identical"),
])
def test_a_declared_perturbation_must_match_the_content(kind, removed, twin_words, twin_tools, why):
    twin = _one_turn("ask-act", Side.ACT, twin_words, twin_tools, ["b(x=1)"])
    ask = attrs.evolve(_one_turn("ask", Side.ASK, "book it", ("a",)), twin=twin,
                       perturbation=DeclaredPerturbation(kind, removed))
    manifest = discover([ask], {}, OfferedToolRule())
    assert not manifest.pairs and why in manifest.dropped[0].reason
    good_twin = attrs.evolve(twin, turns=(attrs.evolve(twin.turns[0], user_text=("book it",), tools=("a", "b")),))
    ok = attrs.evolve(ask, twin=good_twin, perturbation=DeclaredPerturbation(Perturbation.TOOL_REMOVED, "b"))
    assert [p.ask_id for p in discover([ok], {}, OfferedToolRule()).scored] == ["ask"]


def test_rule_maps_when2call_spellings_onto_dotted_tools(mini):
    rule = mini.rule()
    offered = {"hotel_api.HotelApi.book_room", "weather.get_forecast"}
    assert rule.tool_of("hotel_api_HotelApi_book_room", offered) == "hotel_api.HotelApi.book_room"
    assert rule.tool_of("hotel_api.HotelApi.book_room", offered) == "hotel_api.HotelApi.book_room"
    assert rule.tool_of("book_room", offered) is None  # no qualifier stripping: it would collide
    assert rule.tool_of("weather_get_forecast_x", offered) is None


def test_responses_when2call_style_and_openai_style():
    as_json = rollout_of("x", {"model_response": json.dumps({"name": "a_b", "arguments": {"k": 1}})})
    assert as_json.calls_on(0) == (Call("a_b", (), (("k", 1),)),)
    assert rollout_of("x", {"model_response": "Which city do you mean?"}).calls_on(0) == ()
    chat = {"choices": [{"message": {"content": None, "tool_calls": [
        {"type": "function", "function": {"name": "a_b", "arguments": "{\"k\": 2}"}}]}}]}
    assert rollout_of("x", chat).calls_on(0) == (Call("a_b", (), (("k", 2),)),)
    assert rollout_of("x", {"response": {"body": chat}}).calls_on(0) == (Call("a_b", (), (("k", 2),)),)
    assert rollout_of("x", {"error": "timeout"}).turns is None
    assert rollout_of("x", {"uuid": "x"}).turns is None  # no response at all is unscored, not a hold


def _score_json(capsys, *args) -> dict:
    assert main(["score", "--adapter", "when2call", "--bootstrap", "0", "--format", "json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_reference_policies_score_100_50_50(capsys):
    out = _score_json(capsys, "--when2call-data", str(MINI))
    decision = {m["model"]: (m["act"], m["hold"], m["decision"]) for m in out["models"]}
    assert decision == {"oracle": (100.0, 100.0, 100.0), "always-act": (100.0, 0.0, 50.0),
                        "never-act": (0.0, 100.0, 50.0)}


def _respond(rows: list[dict], act_side: bool, ask_side: bool, chat: bool = False) -> list[dict]:
    out = []
    for row in rows:
        call = json.loads(row["answers"]["tool_call"])
        call["name"] = call["name"].replace(".", "_")
        acting = act_side if row["twinbench"]["side"] == "should_act" else ask_side
        if chat:
            message = ({"content": None, "tool_calls": [{"type": "function", "function": {
                "name": call["name"], "arguments": json.dumps(call["arguments"])}}]} if acting
                       else {"content": "Could you tell me which one?"})
            out.append({"custom_id": row["uuid"], "response": {"body": {"choices": [{"message": message}]}}})
        else:
            out.append({**row, "model_response": json.dumps(call) if acting else "Could you tell me which one?"})
    return out


def test_build_then_responses_then_score_round_trips(tmp_path, capsys):
    assert main(["build", "--adapter", "when2call", "--when2call-data", str(MINI), "--out", str(tmp_path / "s")]) == 0
    capsys.readouterr()
    rows = [json.loads(line) for line in (tmp_path / "s" / "when2call.jsonl").read_text().splitlines()]
    assert len(rows) == 8 and {r["twinbench"]["side"] for r in rows} == {"should_act", "should_ask"}
    act = next(r for r in rows if r["uuid"] == "ca-1-act")
    assert act["correct_answer"] == "tool_call" and len(act["tools"]) == 2 and "orig_tools" not in act
    requests = [json.loads(line) for line in (tmp_path / "s" / "openai.jsonl").read_text().splitlines()]
    assert {r["url"] for r in requests} == {"/v1/chat/completions"} and len(requests) == 8
    names = {t["function"]["name"] for r in requests for t in r["body"]["tools"]}
    assert "hotel_api_HotelApi_find_hotels" in names and all("." not in n for n in names)
    assert json.loads((tmp_path / "s" / "pairs.json").read_text())["counts"]["scored"] == 4
    runs = tmp_path / "runs"
    runs.mkdir()
    for name, (act_side, ask_side, chat) in {"careful": (True, False, False), "eager": (True, True, False),
                                             "chat-careful": (True, False, True)}.items():
        (runs / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in _respond(rows, act_side, ask_side,
                                                                                            chat)))
    out = _score_json(capsys, "--when2call-data", str(MINI), "--results", str(runs))
    decision = {m["model"]: m["decision"] for m in out["models"]}
    assert decision == {"careful": 100.0, "eager": 50.0, "chat-careful": 100.0}


def test_bad_rows_are_counted_and_warned_never_a_crash(tmp_path, capsys):
    assert main(["build", "--adapter", "when2call", "--when2call-data", str(MINI), "--out", str(tmp_path / "s")]) == 0
    capsys.readouterr()
    rows = _respond([json.loads(line) for line in (tmp_path / "s" / "when2call.jsonl").read_text().splitlines()],
                    True, False)
    rows[1] = {"uuid": rows[1]["uuid"], "error": "rate limited"}  # the first pair's should-ask side
    text = "".join(json.dumps(r) + "\n" for r in rows) + "{not json\n"
    (tmp_path / "m.jsonl").write_text(text)
    out = _score_json(capsys, "--when2call-data", str(MINI), "--results", str(tmp_path / "m.jsonl"))
    (model,) = out["models"]
    assert model["coverage"]["scored"] == 3 and model["coverage"]["population"] == 4
    assert "not a JSON row" in " ".join(out["warnings"])


@pytest.mark.parametrize("args, message", [
    ([], "needs --when2call-data"),
    (["--when2call-data", "no/such.jsonl"], "no/such.jsonl does not exist"),
])
def test_data_option_errors_are_one_line(capsys, args, message):
    assert main(["pairs", "--adapter", "when2call", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_unusable_rows_of_the_data_are_left_out_with_a_warning(tmp_path):
    path = tmp_path / "w.jsonl"
    path.write_text(MINI.read_text() + "{\"uuid\": \"u\", \"correct_answer\": \"other\"}\nnot json\n")
    adapter = When2CallAdapter(path)
    assert len(adapter.items()) == 6
    assert len(adapter.data_warnings()) == 2 and "line 7" in adapter.data_warnings()[0]
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(AdapterError, match="no usable When2Call row"):
        When2CallAdapter(empty).items()


@pytest.mark.shared
def test_real_when2call_file_gives_199_pairs_and_calibrated_policies(capsys):
    need_shared(REAL)
    adapter = When2CallAdapter(REAL)
    manifest = discover_for(adapter)
    counts = manifest.counts()
    assert counts["should_ask_items"] == 200
    assert len(manifest.scored) >= 199
    assert len(manifest.pairs) + len(manifest.dropped) == 200  # every should-ask row has one fate
    assert {f.id for f in manifest.act_fates} >= {i.id for i in adapter.items() if i.side is Side.ACT}
    assert sum("same request" in f.reason for f in manifest.act_fates) == 19  # the tool_call siblings
    out = _score_json(capsys, "--when2call-data", str(REAL))
    assert {m["model"]: m["decision"] for m in out["models"]} == {"oracle": 100.0, "always-act": 50.0,
                                                                  "never-act": 50.0}
    # calling the removed tool (When2Call's "tool hallucination") is acting: always-act holds back nowhere
    assert {m["model"]: m["hold"] for m in out["models"]}["always-act"] == 0.0


def test_the_hint_under_the_policies_says_how_to_score_when2call_outputs(capsys):
    assert main(["score", "--adapter", "when2call", "--when2call-data", str(MINI), "--bootstrap", "0"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last == ("score your own run: twinbench score --adapter when2call --when2call-data FILE "
                    "--results MODEL.jsonl")


def test_the_constructed_twin_of_a_dropped_row_says_why_it_did_not_pair(mini):
    fates = {f.id: f for f in discover_for(mini).act_fates}
    assert fates["rfi-same-act"].reason.startswith("the constructed twin of rfi-same, which did not pair: declared")
