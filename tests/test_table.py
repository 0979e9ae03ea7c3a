"""The score table a person reads: narrow by default, a legend, --wide, --explain."""

from __future__ import annotations

import pytest
from conftest import BFCL_RUNS, need_shared

from twinbench.cli import main


def _out(capsys, *argv) -> str:
    assert main(["score", *argv]) == 0
    return capsys.readouterr().out


def test_default_table_fits_in_100_columns_and_ends_with_a_legend_and_the_hint(capsys, bfcl_adapter):
    text = _out(capsys, "--bootstrap", "200")
    assert max(map(len, text.splitlines())) <= 100
    assert "credited: decision when, on compound turns" in text and "curation applies:" in text
    assert text.rstrip().splitlines()[-1].startswith("score your own run:")
    wide = _out(capsys, "--bootstrap", "200", "--wide")
    assert max(map(len, wide.splitlines())) > 100 and "credited:" not in wide
    # the same numbers in both layouts
    for cell in ("100.0 [100.0, 100.0]", "50.0 [50.0, 50.0]", "51.8"):
        assert cell in text and cell in wide


@pytest.mark.shared
def test_real_runs_table_is_narrow(capsys, bfcl_adapter):
    runs = need_shared(BFCL_RUNS)
    text = _out(capsys, *[a for f in sorted(runs.iterdir()) if f.is_dir() for a in ("--results", str(f))])
    assert max(map(len, text.splitlines())) <= 100
    assert "not ranked: mistralai_Ministral-8B-Instruct-2410 covers 132 of 240 pairs" in text.replace("\n  ", " ")


def test_explain_names_every_column_with_the_reference_policies(capsys, bfcl_adapter):
    text = _out(capsys, "--explain")
    for column in ("pairs", "act", "hold", "decision", "credited", "pair", "official ask/act", "rank-1",
                   "curation applies"):
        assert f"  {column}" in text
    assert "always-act" in text and "50.0" in text
    assert main(["score", "--explain", "--results", "x"]) == 2


# --------------------------------------------------------------------------- populations named, markers


def test_the_explain_example_shows_every_column_it_explains(capsys, bfcl_adapter):
    text = _out(capsys, "--explain", "--bootstrap", "200")
    table = text[text.index("data: "):]
    assert "100.0 [100.0, 100.0]" in table  # the interval the text explains
    oracle = [line for line in table.splitlines() if line.startswith("oracle")]
    assert oracle[0].endswith("100.0%")  # rank-1
    assert oracle[1].endswith("- / 1")  # no official verdicts, ranked first on decision


def test_a_ranked_model_without_official_verdicts_shows_its_decision_rank(capsys, bfcl_adapter):
    import json

    text = _out(capsys, "--bootstrap", "200")
    ranks = {line.split()[0]: line.split("none")[-1].strip() for line in text.splitlines() if " none " in line}
    assert ranks == {"always-act": "- / 2", "never-act": "- / 2", "oracle": "- / 1"}
    assert main(["score", "--bootstrap", "200", "--format", "json"]) == 0
    models = json.loads(capsys.readouterr().out)["models"]
    assert {m["model"]: m["rank_decision"] for m in models} == {"always-act": 2, "never-act": 2, "oracle": 1}
    # every ranked model covers all 223 pairs: the ranks are on each row's own pairs, no marker
    assert "rank-1^" not in text and "^ranks" not in text


@pytest.mark.shared
def test_columns_on_other_pairs_than_the_rows_are_marked(capsys, bfcl_adapter):
    runs = need_shared(BFCL_RUNS / "gpt-oss-2025-11")
    text = _out(capsys, "--results", str(runs), "--bootstrap", "200")
    pairs = {line.split()[0]: int(line.split()[1].split("/")[0]) for line in text.splitlines()
             if line.startswith("openai_") and "/223" in line}
    assert "rank-1^" in text and "off/dec^" in text
    note = next(line for line in text.replace("\n  ", " ").splitlines() if line.startswith("^ranks and rank-1"))
    shared = int(note.split("the ")[1].split(" pairs")[0])
    assert shared < min(pairs.values()) and note.endswith("(same items for everyone; not each row's own pairs)")


@pytest.fixture
def truncated_score_file(tmp_path):
    """The gpt-oss runs, gpt-oss-20b's miss_param score file cut in half (so it is not used)."""
    import shutil

    runs = need_shared(BFCL_RUNS / "gpt-oss-2025-11")
    copy = tmp_path / "runs"
    shutil.copytree(runs, copy)
    path = copy / "score" / "openai_gpt-oss-20b" / "multi_turn" / "BFCL_v4_multi_turn_miss_param_score.json"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return copy


@pytest.mark.shared
def test_an_official_rate_on_fewer_items_than_the_pairs_is_marked(capsys, bfcl_adapter, truncated_score_file):
    import json
    import re

    text = _out(capsys, "--results", str(truncated_score_file), "--bootstrap", "0")
    row = next(line for line in text.splitlines() if line.startswith("openai_gpt-oss-20b") and "/" in line
               and "*" in line)
    assert re.search(r"\d\.\d\* / \d+\.\d ", row) and "1* / 1" in row  # the official ask rate, and its rank
    flat = text.replace("\n  ", " ")
    assert "*official openai_gpt-oss-20b: on the " in flat and " should-ask items that have a verdict" in flat
    assert main(["score", "--results", str(truncated_score_file), "--bootstrap", "0", "--format", "json"]) == 0
    by = {m["model"]: m for m in json.loads(capsys.readouterr().out)["models"]}
    official = by["openai_gpt-oss-20b"]["official"]
    assert official["partial"] is True and official["ask_items_by_category"]["miss_param"] is None
    assert official["population"]["ask_items"] == by["openai_gpt-oss-20b"]["pairs"] > official["n_ask_items"]
    assert by["openai_gpt-oss-120b"]["official"]["partial"] is False
    assert f"{official['n_ask_items']} of its {official['population']['ask_items']} should-ask items" in flat


def test_a_model_covering_nothing_is_not_ranked_for_a_reason_that_holds(tmp_path, capsys):
    import json

    from builders import tiny_package
    from test_score import good_lines, write_run

    lines = good_lines()
    lines["base"] = [{"id": "multi_turn_base_0", "result": "Error during inference: timeout"}]
    write_run(tmp_path / "runs", "m", lines)
    assert main(["score", "--bfcl-root", str(tiny_package(tmp_path / "rel")), "--results", str(tmp_path / "runs"),
                 "--bootstrap", "0", "--format", "json"]) == 2
    (model,) = json.loads(capsys.readouterr().out)["models"]
    assert model["ranking"]["reason"] == "covers none of the 2 pairs, and no model of this data covers any"


# --------------------------------------------------------------------------- model text escaped for its format


@pytest.fixture
def odd_outputs(tmp_path):
    """A run whose should-act anchor call has arguments that do not parse, with a newline, an escape sequence
    and markdown in them: the excerpt quoted in the coverage line is model text."""
    from builders import tiny_package
    from test_score import good_lines, write_run

    broken = [{"mkdir": "{\"dir_name\": \"a\n\x1b[2J*bold* <b>x</b> | `code`"}]
    for arm in ("base", "treat"):
        write_run(tmp_path / arm, "m", good_lines(base_step=broken))
    return tiny_package(tmp_path / "release"), tmp_path / "base", tmp_path / "treat"


@pytest.mark.parametrize("command", ["score", "compare"])
def test_model_text_is_escaped_for_the_terminal(command, odd_outputs, capsys):
    release, base, treat = odd_outputs
    where = ["--results", base] if command == "score" else ["--baseline", base, "--treatment", treat]
    main([command, "--bfcl-root", str(release), *map(str, where), "--bootstrap", "0"])
    text = capsys.readouterr().out
    assert "\x1b" not in text and "\\x1b[2J" in text and '"a\\n' in text


@pytest.mark.parametrize("command", ["score", "compare"])
def test_model_text_is_escaped_in_markdown(command, odd_outputs, capsys):
    release, base, treat = odd_outputs
    where = ["--results", base] if command == "score" else ["--baseline", base, "--treatment", treat]
    main([command, "--bfcl-root", str(release), *map(str, where), "--bootstrap", "0", "--format", "markdown"])
    text = capsys.readouterr().out
    assert "\x1b" not in text
    quoted = next(line for line in text.splitlines() if "call_arguments_unparsed" in line and "e.g." in line)
    assert quoted.startswith("- ")  # the excerpt's newline did not end the list item
    assert "\\*bold\\*" in quoted and "\\<b\\>" in quoted and "\\`code\\`" in quoted and "\\|" in quoted
    if command == "compare":  # twinbench's own "<category>" is a placeholder, not an HTML tag
        assert "attempt on \\<category> anchor" in text


def test_model_text_round_trips_through_the_per_item_csv(odd_outputs, tmp_path, capsys):
    import csv

    release, base, _ = odd_outputs
    main(["score", "--bfcl-root", str(release), "--results", str(base), "--bootstrap", "0",
          "--per-item", str(tmp_path / "items.csv")])
    capsys.readouterr()
    rows = list(csv.DictReader((tmp_path / "items.csv").open(newline="", encoding="utf-8")))
    reasons = {r["unscored_reason"] for r in rows}
    # the call whose arguments cannot be read counts by name (issue 18): no reason is needed for it, and every
    # row still parses back whole from the CSV
    assert reasons == {""} and {r["calls_on_act"] for r in rows} == {"mkdir"} and all(r["acted"] == "True" for r in rows)


def test_names_from_the_results_are_escaped_in_table_cells(tmp_path, capsys):
    from builders import tiny_package
    from test_score import good_lines, write_run

    write_run(tmp_path / "runs", "odd\x1b[2Jname\u202e", good_lines())
    main(["score", "--bfcl-root", str(tiny_package(tmp_path / "rel")), "--results", str(tmp_path / "runs"),
          "--bootstrap", "0"])
    text = capsys.readouterr().out
    rows = [line for line in text.splitlines() if line.startswith("odd")]
    assert len(rows) == 2 and all(row.startswith("odd\\x1b[2Jname\\u202e ") for row in rows)
    assert "\x1b" not in text and "\u202e" not in text


def test_a_long_hint_puts_its_command_on_a_line_of_its_own_unbroken():
    from twinbench.render.score import _hint_lines, own_run_hint

    short = own_run_hint("bfcl")
    assert _hint_lines(short) == [short]
    long = own_run_hint("a-leaderboard", "--its-data FILE --results path/to/a-folder-of-outputs/one-file-per-model.jsonl")
    assert len(long) > 100
    head, command = _hint_lines(long)
    assert head == "score your own run:" and command == "  twinbench score --adapter a-leaderboard " + long.split(
        "a-leaderboard ", 1)[1]
