"""`twinbench compare`: paired arms on hand-made trees and on two published runs."""

from __future__ import annotations

import json

import pytest

from builders import tiny_package
from conftest import BFCL_RUNS, need_shared
from test_score import MKDIR, good_lines, write_run

from twinbench.cli import main


@pytest.fixture
def release(tmp_path):
    return tiny_package(tmp_path / "release")


def compare(capsys, release, base, treat, *extra):
    code = main(["compare", "--bfcl-root", str(release), "--baseline", str(base), "--treatment", str(treat),
                 "--format", "json", "--bootstrap", "300", *extra])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if code == 0 else None), captured.err


def test_pro_action_treatment_moves_both_sides(tmp_path, release, capsys):
    write_run(tmp_path / "base", "m", good_lines())  # acts on base, asks on both should-ask items
    write_run(tmp_path / "treat", "m", good_lines(ask_step=MKDIR))  # acts everywhere
    code, out, _ = compare(capsys, release, tmp_path / "base", tmp_path / "treat")
    assert code == 0
    (m,) = out["models"]
    assert m["pairs"] == 2 and m["distinct_anchor_turns"] == 1
    assert m["mcnemar"]["act"] == {"n": 1, "b": 0, "c": 0, "p": 1.0, "unit": "distinct should-act anchor turn"}
    assert m["mcnemar"]["hold"] == {"n": 2, "b": 2, "c": 0, "p": 0.5, "unit": "pair"}
    assert m["hold"] == {"baseline": 100.0, "treatment": 0.0, "change": -100.0}
    assert m["decision"]["change"] == -50.0
    low, high = m["decision"]["ci_change"]
    assert low <= -50.0 <= high
    shares = m["ask_attempt_share"]
    assert shares["miss_param"]["baseline"] == 0.0 and shares["miss_param"]["treatment"] == 100.0
    assert shares["miss_param"]["c"] == 1
    assert m["official"] is None


def test_the_only_run_of_each_tree_is_paired_and_text_output(tmp_path, release, capsys):
    write_run(tmp_path / "base", "model-neutral", good_lines())
    write_run(tmp_path / "treat", "model-injected", good_lines())
    assert main(["compare", "--bfcl-root", str(release), "--baseline", str(tmp_path / "base"),
                 "--treatment", str(tmp_path / "treat"), "--bootstrap", "0"]) == 0
    text = capsys.readouterr().out
    assert "model-neutral -> model-injected" in text and "exact two-sided McNemar p" in text


def test_unknown_model_and_no_shared_model(tmp_path, release, capsys):
    write_run(tmp_path / "base", "a", good_lines())
    write_run(tmp_path / "base", "b", good_lines())
    write_run(tmp_path / "treat", "c", good_lines())
    write_run(tmp_path / "treat", "d", good_lines())
    code, _, err = compare(capsys, release, tmp_path / "base", tmp_path / "treat")
    assert code == 2 and "share no model name" in err
    code, _, err = compare(capsys, release, tmp_path / "base", tmp_path / "treat", "--model", "a")
    assert code == 2 and "--model a: not found" in err and "treatment: c, d" in err
    # the hint the error gives works
    code, out, err = compare(capsys, release, tmp_path / "base", tmp_path / "treat", "--model", "a=c")
    assert code == 0


def test_compare_prints_the_warnings_score_prints(tmp_path, release, capsys):
    lines = good_lines()
    write_run(tmp_path / "base", "m", lines)
    write_run(tmp_path / "treat", "m", lines)
    path = next((tmp_path / "base").rglob("*_base_result.json"))
    path.write_text(path.read_text() + "{broken\n")
    code, _, err = compare(capsys, release, tmp_path / "base", tmp_path / "treat")
    assert code == 0 and "baseline m:" in err and path.name in err and "unusable line" in err


def _tree(tmp_path, name, model):
    src = need_shared(BFCL_RUNS / "gpt-oss-2025-11")
    for kind in ("result", "score"):
        target = tmp_path / name / kind
        target.mkdir(parents=True)
        (target / model).symlink_to(src / kind / model, target_is_directory=True)
    return tmp_path / name


def test_two_published_runs_as_arms(tmp_path, capsys, bfcl_adapter):
    base = _tree(tmp_path, "base", "openai_gpt-oss-120b")
    treat = _tree(tmp_path, "treat", "openai_gpt-oss-20b")
    assert main(["compare", "--baseline", str(base), "--treatment", str(treat), "--format", "json",
                 "--bootstrap", "1000"]) == 0
    (m,) = json.loads(capsys.readouterr().out)["models"]
    hold, act = m["mcnemar"]["hold"], m["mcnemar"]["act"]
    # the discordant counts explain the change in hold exactly
    assert m["hold"]["change"] == pytest.approx(100.0 * (hold["c"] - hold["b"]) / m["pairs"], abs=1e-3)
    assert act["n"] == m["distinct_anchor_turns"] <= m["pairs"] <= 223
    assert 0 < hold["p"] <= 1 and 0 < act["p"] <= 1
    low, high = m["decision"]["ci_change"]
    assert low <= m["decision"]["change"] <= high
    # every should-ask item with a unique anchor that is neither a bad key nor a construction error
    assert m["ask_attempt_share"]["miss_func"]["items"] == 190
    assert m["ask_attempt_share"]["miss_param"]["items"] == 184
    assert set(m["official"]) == {"base", "miss_func", "miss_param"}
    assert m["official"]["base"]["items"] == 200


def test_each_row_names_its_population(tmp_path, capsys, bfcl_adapter):
    """The attempt shares are over every should-ask item with one anchor, more than score's pairs: the table's
    over column, its legend and the JSON say so, with the sizes."""
    base = _tree(tmp_path, "base", "openai_gpt-oss-120b")
    treat = _tree(tmp_path, "treat", "openai_gpt-oss-20b")
    assert main(["compare", "--baseline", str(base), "--treatment", str(treat), "--format", "json",
                 "--bootstrap", "0"]) == 0
    (m,) = json.loads(capsys.readouterr().out)["models"]
    share, official = m["ask_attempt_share"]["miss_func"], m["official"]["base"]
    assert share["population"].startswith("every should-ask item of the category with a single anchor, paired or not")
    assert official["population"] == "every item of the category with an official verdict in both arms"
    assert main(["compare", "--baseline", str(base), "--treatment", str(treat), "--bootstrap", "0"]) == 0
    text = capsys.readouterr().out
    row = next(line for line in text.splitlines() if line.startswith("attempt on miss_func anchor"))
    assert row.endswith(f"{share['compared']}/{share['items']} items")
    hold = next(line for line in text.splitlines() if line.startswith("hold "))
    assert hold.endswith(f"{m['pairs']} pairs")
    flat = text.replace("\n  ", " ")
    assert f"{m['model']}: {m['pairs']} of {m['population']} pairs scored in both arms" in flat
    assert "more items than the category's scored pairs, which score's hold is on" in flat
    assert main(["compare", "--baseline", str(base), "--treatment", str(treat), "--bootstrap", "0", "--wide"]) == 0
    wide = capsys.readouterr().out
    assert f"{share['compared']} of {share['items']} miss_func items with one anchor" in wide
