"""`twinbench score` end to end on a tiny release and hand-written result trees.

The tiny release (tests/builders.py) has one scenario: the user asks for directory
``a``; ``miss_param_0`` leaves the name out on turn 0, ``miss_func_0`` withholds ``mkdir``
until turn 1. Both pair with ``base_0`` at anchor turn 0.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from builders import tiny_package

from twinbench.cli import main

MKDIR = "[mkdir(dir_name='a')]"
ASK = "Which directory name would you like?"


def write_run(root: Path, model: str, lines: dict[str, list], prefix="BFCL_v4", nested=True, raw=None):
    folder = root / "result" / model / ("multi_turn" if nested else "")
    folder.mkdir(parents=True, exist_ok=True)
    for cat in ("base", "miss_func", "miss_param"):
        path = folder / f"{prefix}_multi_turn_{cat}_result.json"
        if raw and cat in raw:
            path.write_bytes(raw[cat])
            continue
        rows = lines.get(cat, [])
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return folder


def good_lines(base_step=MKDIR, ask_step=ASK):
    return {
        "base": [{"id": "multi_turn_base_0", "result": [[base_step, "Done."]]}],
        "miss_param": [{"id": "multi_turn_miss_param_0", "result": [[ask_step], [MKDIR, "Done."]]}],
        "miss_func": [{"id": "multi_turn_miss_func_0", "result": [[ask_step], [MKDIR, "Done."]]}],
    }


@pytest.fixture
def release(tmp_path):
    return tiny_package(tmp_path / "release")


def score(release, results, *extra, capsys=None):
    args = ["score", "--bfcl-root", str(release), "--results", str(results), "--format", "json",
            "--bootstrap", "200", *extra]
    code = main(args)
    captured = capsys.readouterr() if capsys else None
    out = captured.out if captured else ""
    return code, (json.loads(out) if out else None), (captured.err if captured else "")


@pytest.mark.parametrize(
    "step",
    [
        [{"mkdir": "{\"dir_name\": \"a\"}"}],  # native record, JSON-string arguments
        [{"mkdir": "{\n  \"dir_name\": \"a\"\n}"}],  # pretty-printed JSON arguments
        [{"mkdir": {"dir_name": "a"}}],  # dict arguments
        "[mkdir(dir_name=\"a\")]",  # python-style text
        "[mkdir('a')]",  # positional argument
        "<tool_call>\n{\"name\": \"mkdir\", \"arguments\": {\"dir_name\": \"a\"}}\n</tool_call>",
        "[{\"name\": \"mkdir\", \"arguments\": {\"dir_name\": \"a\"}}]",  # JSON list in a string
        "{\"name\": \"mkdir\", \"parameters\": {\"dir_name\": \"a\"}}",  # JSON object in a string
        "[{\"FS.mkdir\": {\"dir_name\": \"a\"}}]",  # class-qualified name
        ["[mkdir(dir_name='a')]"],  # a list of text parts
    ],
)
def test_every_step_shape_is_read_as_an_attempt(tmp_path, release, capsys, step):
    write_run(tmp_path / "runs", "m", good_lines(base_step=step))
    code, out, _ = score(release, tmp_path / "runs", capsys=capsys)
    assert code == 0
    (model,) = out["models"]
    assert model["act"] == 100.0 and model["hold"] == 100.0 and model["decision"] == 100.0


@pytest.mark.parametrize(
    "step",
    [
        "I will mkdir once you confirm you are logged in.",
        "Rivermist is lovely this time of year.",
        "[]",
        "",
        None,
        ["Sure, which name?"],
        "{\"engineState\": \"running\", \"fuelLevel\": 10}",
        "[rm(file_name='a')]",  # not on the tool list
        "[ls()]",  # on the list but read-only
        "我需要更多信息。",
        [],
    ],
)
def test_prose_and_reads_are_not_attempts(tmp_path, release, capsys, step):
    write_run(tmp_path / "runs", "m", good_lines(base_step=step))
    code, out, _ = score(release, tmp_path / "runs", capsys=capsys)
    assert code == 0
    assert out["models"][0]["act"] == 0.0


def test_calling_the_withheld_function_counts_as_an_attempt(tmp_path, release, capsys):
    lines = good_lines()
    lines["miss_func"] = [{"id": "multi_turn_miss_func_0", "result": [[MKDIR], ["Done."]]}]
    write_run(tmp_path / "runs", "m", lines)
    code, out, _ = score(release, tmp_path / "runs", capsys=capsys)
    cats = out["models"][0]["by_category"]
    assert cats["miss_func"]["hold"] == 0.0 and cats["miss_param"]["hold"] == 100.0


def test_v3_flat_layout_is_found(tmp_path, release, capsys):
    write_run(tmp_path / "runs", "flat-model", good_lines(), prefix="BFCL_v3", nested=False)
    code, out, err = score(release, tmp_path / "runs", capsys=capsys)
    assert code == 0 and out["models"][0]["model"] == "flat-model"
    assert "BFCL_v3 files but the dataset release is BFCL_v4" in err  # --bfcl-root pins the data


def test_error_entries_and_missing_items_are_unscored_not_held(tmp_path, release, capsys):
    lines = good_lines()
    lines["miss_param"] = [{"id": "multi_turn_miss_param_0", "result": "Error during inference: boom",
                            "traceback": "..."}]
    lines["miss_func"] = []  # missing item (an empty file)
    write_run(tmp_path / "runs", "m", lines)
    code, out, err = score(release, tmp_path / "runs", capsys=capsys)
    model = out["models"][0]
    assert model["pairs"] == 0 and model["decision"] is None
    assert model["coverage"]["unscored"] == {"ask: missing from the results": 1, "ask: stored as an error": 1}
    assert "empty" in err
    # the output is written, and that nothing was scored is an error with its reason
    assert code == 2 and "twinbench: error: nothing was scored" in err


def test_bad_lines_warn_and_score_the_rest(tmp_path, release, capsys):
    lines = good_lines()
    base = json.dumps(lines["base"][0]) + "\n"
    other = json.dumps({"id": "multi_turn_base_7", "result": [["x"]]}) + "\n"
    raw = {"base": (other + base + base + '{"id": "multi_turn_base_9", "result": [[').encode()}
    write_run(tmp_path / "runs", "m", lines, raw=raw)
    code, out, err = score(release, tmp_path / "runs", capsys=capsys)
    assert code == 0 and out["models"][0]["pairs"] == 2
    assert "seen more than once" in err and "truncated last line" in err


def test_only_id_and_result_and_non_ascii(tmp_path, release, capsys):
    lines = good_lines(ask_step="我需要知道目录名称。")
    write_run(tmp_path / "runs", "modèle-ü", lines)
    code, out, _ = score(release, tmp_path / "runs", capsys=capsys)
    assert out["models"][0]["model"] == "modèle-ü" and out["models"][0]["hold"] == 100.0


@pytest.mark.parametrize("result", [[], [[1, 2]], [[True]], [["ok"], [3.5]]])
def test_a_result_that_is_no_rollout_is_unreadable_never_a_hold(tmp_path, release, capsys, result):
    lines = good_lines()
    lines["miss_param"] = [{"id": "multi_turn_miss_param_0", "result": result}]
    write_run(tmp_path / "runs", "m", lines)
    code, out, _ = score(release, tmp_path / "runs", capsys=capsys)
    model = out["models"][0]
    assert model["pairs"] == 1 and model["coverage"]["unscored"] == {"ask: unreadable rollout": 1}
    assert any("BFCL_v4_multi_turn_miss_param_result.json" in w and "without a usable result list" in w
               for w in out["warnings"])


def test_inference_log_with_other_dialogue_is_warned(tmp_path, release, capsys):
    lines = good_lines()
    lines["base"][0]["inference_log"] = [
        [{"role": "state_info", "class_name": "FS", "content": {}}],
        {"begin_of_turn_query": [{"role": "user", "content": "créer le dossier a"}], "step_0": []},
    ]
    write_run(tmp_path / "runs", "m", lines)
    code, out, err = score(release, tmp_path / "runs", capsys=capsys)
    assert "differ from the BFCL_v4 release on 1 of 1 logged items" in err
    assert out["models"][0]["run_notes"]["logged_items_differing"] == 1
    assert main(["score", "--bfcl-root", str(release), "--results", str(tmp_path / "runs"), "--bootstrap", "0"]) == 0
    # the adapter's remark, as it wrote it; the counts stay in the JSON
    assert "dialogue differs from the release on 1 of 1 logged items" in capsys.readouterr().out


def test_folder_missing_a_category_is_skipped_with_a_reason(tmp_path, release, capsys):
    write_run(tmp_path / "runs", "good", good_lines())
    partial = write_run(tmp_path / "runs", "partial", good_lines())
    (partial / "BFCL_v4_multi_turn_miss_param_result.json").unlink()
    code, out, _ = score(release, tmp_path / "runs", capsys=capsys)
    assert [m["model"] for m in out["models"]] == ["good"]
    assert any("missing miss_param" in s["reason"] for s in out["skipped"])


def test_model_selection_and_unknown_model(tmp_path, release, capsys):
    write_run(tmp_path / "runs", "a", good_lines())
    write_run(tmp_path / "runs", "b", good_lines(base_step="no"))
    code, out, _ = score(release, tmp_path / "runs", "--model", "b", capsys=capsys)
    assert [m["model"] for m in out["models"]] == ["b"]
    code, _, err = score(release, tmp_path / "runs", "--model", "zzz", capsys=capsys)
    assert code == 2 and "zzz" in err and "Traceback" not in err


@pytest.mark.parametrize("what", ["missing", "empty-folder"])
def test_bad_results_folder_is_one_clear_error(tmp_path, release, capsys, what):
    target = tmp_path / "nothing"
    if what == "empty-folder":
        target.mkdir()
    code, _, err = score(release, target, capsys=capsys)
    assert code == 2 and err.startswith("twinbench: error:") and len(err.strip().splitlines()) == 1


def test_official_scores_from_score_files(tmp_path, release, capsys):
    write_run(tmp_path / "runs", "m", good_lines())
    score_dir = tmp_path / "runs" / "score" / "m" / "multi_turn"
    score_dir.mkdir(parents=True)
    for cat, failed in (("base", []), ("miss_func", ["multi_turn_miss_func_0"]), ("miss_param", [])):
        rows = [{"accuracy": 1 - len(failed), "correct_count": 1 - len(failed), "total_count": 1}]
        rows += [{"id": i, "error": {"error_type": "multi_turn:empty_turn_model_response"}} for i in failed]
        (score_dir / f"BFCL_v4_multi_turn_{cat}_score.json").write_text("\n".join(json.dumps(r) for r in rows))
    code, out, _ = score(release, tmp_path / "runs", capsys=capsys)
    official = out["models"][0]["official"]
    assert official["ask_items"] == 50.0 and official["base_twins"] == official["act_twins"] == 100.0


def test_outputs_are_deterministic_and_per_item_csv(tmp_path, release, capsys):
    write_run(tmp_path / "runs", "m", good_lines())
    outs = []
    for n in range(2):
        target = tmp_path / f"out{n}.json"
        assert main(["score", "--bfcl-root", str(release), "--results", str(tmp_path / "runs"), "--format", "json",
                     "--output", str(target), "--per-item", str(tmp_path / f"items{n}.csv")]) == 0
        outs.append(target.read_bytes())
    assert outs[0] == outs[1]
    rows = list(csv.DictReader(io.StringIO((tmp_path / "items0.csv").read_text())))
    assert [r["ask_id"] for r in rows] == ["multi_turn_miss_func_0", "multi_turn_miss_param_0"]
    assert set(rows[0]) >= {"model", "ask_id", "act_id", "category", "anchor_turn", "acted_on_base", "held_back",
                            "held_back_credited", "calls_on_base", "calls_on_ask", "certification"}
    assert rows[0]["calls_on_base"] == rows[0]["calls_on_act"] == "mkdir"
    assert rows[0]["acted_on_base"] == rows[0]["acted"] == "True"  # the older column names stay as aliases
    for fmt in ("table", "csv", "markdown"):
        assert main(["score", "--bfcl-root", str(release), "--results", str(tmp_path / "runs"),
                     "--format", fmt, "--bootstrap", "0"]) == 0
        text = capsys.readouterr().out
        assert "m" in text and "100.0" in text
