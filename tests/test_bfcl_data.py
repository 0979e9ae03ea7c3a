"""The BFCL adapter on the public data: the funnel, the labels and curation, derived from the release.

These tests need the bfcl-eval release data, which twinbench fetches once into its cache
(``pip download --no-deps``, about 2 MB). Offline without a cache they skip (in CI they fail).
"""

from __future__ import annotations

import json

import pytest

from twinbench.cli import main
from twinbench.options import DiscoveryOptions
from twinbench.discovery import discover_for
from twinbench.contract.effects import compare_with_source


def test_the_funnel_reproduces_the_published_numbers(bfcl_manifest):
    c = bfcl_manifest.counts()
    assert c["should_ask_items"] == 400
    assert c["dropped_by_stage"] == {
        "content": {"call strings differ": 6, "dialogue differs": 9},
        "pairing": {"bad key": 14, "multi-anchor": 4, "shape mismatch": 2},
    }
    assert c["content_verified"] == 365
    assert c["content_verified_by_category"] == {"miss_func": 182, "miss_param": 183}
    assert c["distinct_base_twins"] == 188
    assert c["candidates"] == 231
    assert c["candidates_by_category"] == {"miss_func": 117, "miss_param": 114}
    assert c["read_only"] == 134
    assert c["read_only_by_category"] == {"miss_func": 65, "miss_param": 69}
    assert c["read_only_reasons"] == {"login_only": 2, "read_only": 132}
    assert c["scored"] == 223
    assert c["scored_by_category"] == {"miss_func": 116, "miss_param": 107}
    assert c["distinct_base_twins_scored"] == 151
    assert c["distinct_base_anchor_turns_scored"] == 184
    assert c["compound"] == 27
    assert c["construction_errors"] == 8


def test_pairing_drops_are_the_known_items(bfcl_manifest):
    by_reason = {}
    for d in bfcl_manifest.dropped:
        by_reason.setdefault(d.reason.split(":")[0], set()).add(d.id.removeprefix("multi_turn_"))
    assert by_reason["multi-anchor"] == {"miss_func_167", "miss_func_180", "miss_param_167", "miss_param_180"}
    assert by_reason["shape mismatch"] == {"miss_func_154", "miss_param_154"}


@pytest.mark.parametrize(
    "options, scored",
    [
        (DiscoveryOptions(count_login=True), 225),
        (DiscoveryOptions(uncertified=True), 231),
        (DiscoveryOptions(all_pairs=True), 365),
    ],
)
def test_sensitivities(bfcl_adapter, options, scored):
    assert discover_for(bfcl_adapter, options).counts()["scored"] == scored


def test_every_should_ask_item_is_accounted_for_once(bfcl_adapter, bfcl_manifest):
    asks = sorted(i.id for i in bfcl_adapter.items() if i.category in ("miss_func", "miss_param"))
    seen = sorted([p.ask_id for p in bfcl_manifest.pairs] + [d.id for d in bfcl_manifest.dropped])
    assert seen == asks and len(asks) == 400
    assert all(d.stage and d.reason for d in bfcl_manifest.dropped)
    assert all(p.reason for p in bfcl_manifest.pairs)


def test_perturbation_kind_matches_the_category(bfcl_manifest):
    kinds = {(p.category, p.perturbation.value) for p in bfcl_manifest.pairs if p.perturbation.value != "undetected"}
    # a few miss_func items also reword the anchor turn
    assert kinds == {("miss_func", "tool_removed"), ("miss_func", "value_and_tool_removed"),
                     ("miss_param", "value_removed")}
    assert all(p.removed_tools for p in bfcl_manifest.pairs if p.category == "miss_func")
    undetected = {p.ask_id for p in bfcl_manifest.pairs if p.perturbation.value == "undetected"}
    # the identical-turn construction error of Table E1 is found by content too
    assert "multi_turn_miss_param_199" in undetected


def test_miss_func_pairs_name_the_withheld_tool(bfcl_manifest):
    pair = next(p for p in bfcl_manifest.pairs if p.ask_id == "multi_turn_miss_func_0")
    assert pair.removed_tools == ("sort",)


def test_label_counts_and_source_agreement(bfcl_adapter):
    effects = bfcl_adapter.effects()
    assert len(effects.functions) == 128
    assert effects.counts() == {"mutate": 41, "read": 80, "login": 7}
    offered = bfcl_adapter.function_owners()
    assert sorted(offered) == sorted(f.name for f in effects.functions)
    assert {f.name: f.owner for f in effects.functions} == offered
    disagreements = compare_with_source(effects, bfcl_adapter.source_verdicts())
    listed = [f"{f.owner}.{f.name}: table {f.label.value}, source {v.evidence}" for f, v in disagreements]
    unjustified = [line for line, (f, _) in zip(listed, disagreements) if "analyzer_disagrees" not in dict(f.notes)]
    assert unjustified == [], "the source analyzer disagrees with effects.yaml:\n" + "\n".join(unjustified)


def test_login_functions_are_exactly_the_seven(bfcl_adapter):
    logins = sorted(f.name for f in bfcl_adapter.effects().functions if f.label.value == "login")
    assert logins == sorted(["message_login", "authenticate_twitter", "ticket_login", "logout",
                             "trading_login", "trading_logout", "authenticate_travel"])


def test_curation_applies_to_its_release(bfcl_adapter):
    cur = bfcl_adapter.curation()
    assert cur.applies
    assert len(cur.bad_keys) == 31 and len(cur.construction_errors) == 8 and len(cur.compound) == 27


def test_curation_does_not_apply_to_the_v3_release(bfcl_v3_adapter):
    assert bfcl_v3_adapter.release.prefix == "BFCL_v3"
    cur = bfcl_v3_adapter.curation()
    assert not cur.applies and "differs" in cur.applies_reason
    manifest = discover_for(bfcl_v3_adapter)
    assert not manifest.curation_applies
    assert not any(d.reason.startswith("bad key") for d in manifest.dropped)
    assert all(p.certification.status == "uncertified" for p in manifest.pairs)
    assert manifest.counts()["scored"] > 0
    assert len(manifest.pairs) + len(manifest.dropped) == 400
    assert any("multi_turn_base_154" in w for w in bfcl_v3_adapter.data_warnings())


def test_pairs_json(capsys, bfcl_adapter):
    assert main(["pairs", "--adapter", "bfcl", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    counts = out["counts"]
    for key in ("should_ask_items", "content_verified", "candidates", "scored", "read_only"):
        assert key in counts and f"{key}_by_category" in counts
    assert counts["distinct_base_twins_scored"] == 151
    assert counts["distinct_base_anchor_turns_scored"] == 184
    assert len(out["pairs"]) == 365 and len(out["dropped"]) == 35
    pair = next(p for p in out["pairs"] if p["ask_id"] == "multi_turn_miss_func_37")
    assert pair["status"] == "scored" and pair["anchor_turn"] >= 0
    assert pair["certification"]["independent_steps"] == ["touch"]
    assert set(out["dropped"][0]) >= {"id", "stage", "reason"}
    assert out["curation"]["applies"] is True
    assert out["data"]["fingerprint"]


def test_pairs_json_sensitivity_flags(capsys, bfcl_adapter):
    assert main(["pairs", "--count-login", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["counts"]["scored"] == 225


def test_functions_json(capsys, bfcl_adapter):
    assert main(["functions", "--adapter", "bfcl", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 128
    assert {"name", "class", "label", "reason"} <= set(rows[0])
    echo = next(r for r in rows if r["name"] == "echo")
    assert echo["class"] == "GorillaFileSystem" and echo["per_call_rule"]


def test_csv_lists_every_should_ask_item(tmp_path, bfcl_adapter):
    out = tmp_path / "pairs.csv"
    assert main(["pairs", "--format", "csv", "--output", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert len(lines) == 401


def test_older_release_labels_are_checked_against_its_own_code(bfcl_v3_adapter):
    effects = bfcl_v3_adapter.effects()
    offered = bfcl_v3_adapter.function_owners()
    assert sorted(f.name for f in effects.functions) == sorted(offered)
    derived = {f.name: f for f in effects.functions if f.origin == "source"}
    # 2025.8.5 offers three TradingBot functions the 2026 table does not know; each writes public state
    assert sorted(derived) == ["make_transaction", "update_market_status", "update_stock_price"]
    assert all(f.label.value == "mutate" and "derived" in f.reason for f in derived.values())
    disagreements = compare_with_source(effects, bfcl_v3_adapter.source_verdicts())
    unjustified = [f.name for f, _ in disagreements if "analyzer_disagrees" not in dict(f.notes)]
    assert unjustified == []
    assert sorted(f.name for f, _ in disagreements) == ["get_credit_card_balance", "retrieve_invoice"]
