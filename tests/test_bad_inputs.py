"""The bad-input corpus (issue 10): odd, partial or broken input, built from real shapes.

Every case asserts the exact exit status, that standard error names the file or the option
concerned, the coverage counts where scoring goes on, and that no traceback appears. Most
cases run on the tiny release of tests/builders.py (one scenario: ``base_0`` paired with
``miss_param_0`` and ``miss_func_0``, so 2 pairs) with result lines of the shapes BFCL
writes; the reproductions of issue 10 that are about real runs use the published runs in
``../shared/bfcl-runs/`` (symlinked or copied into tmp_path, never into the repository) and
the cached BFCL release.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import subprocess

import pytest

from builders import tiny_package
from conftest import BFCL_RUNS, FIXTURES, REPO, need_shared
from test_score import ASK, MKDIR, good_lines, write_run

from twinbench.adapters import registry
from twinbench.cli import main

GPT_OSS = BFCL_RUNS / "gpt-oss-2025-11"
DEMO = REPO / "examples" / "bfcl" / "fixture"
TINY = REPO / "examples" / "tinybench"
MINI_W2C = FIXTURES / "when2call" / "mini.jsonl"
NATIVE_MKDIR = [{"mkdir": "{\"dir_name\": \"a\"}"}]  # gpt-oss's native record with JSON-string arguments


@pytest.fixture
def release(tmp_path):
    return tiny_package(tmp_path / "release")


def cli(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "Traceback" not in captured.out
    return code, captured.out, captured.err


def tiny(capsys, release, *argv, code=0):
    """``score`` on the tiny release; returns the JSON (when it wrote one: also when nothing was scored) and stderr."""
    got, out, err = cli(capsys, "score", "--bfcl-root", release, "--format", "json", "--bootstrap", "0", *argv)
    assert got == code, err
    return (json.loads(out) if out else None), err


def coverage(summary, model=None):
    models = {m["model"]: m for m in summary["models"]}
    record = models[model] if model else next(iter(models.values()))
    cov = record["coverage"]
    assert cov["scored"] + sum(cov["unscored"].values()) == cov["population"]  # every pair accounted for
    return cov["scored"], cov["unscored"]


def one_error_line(err):
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("twinbench: error: "), err
    return lines[0]


def one_line_about(err, name):
    lines = [line for line in err.splitlines() if name in line]
    assert len(lines) == 1, err
    return lines[0]


def score_files(root, model, texts, prefix="BFCL_v4"):
    folder = root / "score" / model / "multi_turn"
    folder.mkdir(parents=True, exist_ok=True)
    for cat, text in texts.items():
        (folder / f"{prefix}_multi_turn_{cat}_score.json").write_text(text)


def summary_line(correct, total):
    return json.dumps({"accuracy": correct / total, "correct_count": correct, "total_count": total})


def failed_line(item_id, model):
    return json.dumps({"id": item_id, "model_name": model, "test_category": item_id.rsplit("_", 1)[0],
                       "valid": False, "error": {"error_type": "multi_turn:instance_state_mismatch"}})


def good_score_files(root, model, failed=(), newline=True):
    end = "\n" if newline else ""
    texts = {}
    for cat in ("base", "miss_func", "miss_param"):
        mine = [i for i in failed if f"_{cat}_" in i]
        texts[cat] = "\n".join([summary_line(1 - len(mine), 1), *(failed_line(i, model) for i in mine)]) + end
    score_files(root, model, texts)


# ---------------------------------------------------------------------------------------
# the ten reproductions of issue 10
# ---------------------------------------------------------------------------------------


def _arm(tmp_path, name, model, broken_lines=()):
    """A result tree holding one published gpt-oss run; ``broken_lines`` of miss_param cut short."""
    src = need_shared(GPT_OSS) / "result" / model / "multi_turn"
    folder = tmp_path / name / "result" / model / "multi_turn"
    folder.mkdir(parents=True)
    for path in src.iterdir():
        if "miss_param" in path.name and broken_lines:
            lines = path.read_bytes().split(b"\n")
            for index in broken_lines:
                lines[index] = lines[index][:60]
            (folder / path.name).write_bytes(b"\n".join(lines))
        else:
            (folder / path.name).symlink_to(path)
    return tmp_path / name


@pytest.mark.shared
def test_1_compare_prints_the_reader_warnings_of_both_arms(tmp_path, capsys, bfcl_adapter):
    base = _arm(tmp_path, "base", "openai_gpt-oss-20b", broken_lines=(0, 2, 3))  # miss_param_0, _2, _3
    treat = _arm(tmp_path, "treat", "openai_gpt-oss-20b")
    code, out, err = cli(capsys, "compare", "--baseline", base, "--treatment", treat, "--bootstrap", "0",
                         "--format", "json")
    assert code == 0
    assert "baseline openai_gpt-oss-20b: BFCL_v4_multi_turn_miss_param_result.json: 3 unusable lines skipped" in err
    record = json.loads(out)
    assert any("3 unusable lines skipped: line 1:" in w for w in record["warnings"])  # in the JSON too
    (m,) = record["models"]
    # the three items are unscored in the baseline, so three pairs fewer than score's 198 are compared
    assert (m["pairs"], m["population"], m["pairs_unscored_in_either_arm"]) == (195, 223, 28)


@pytest.fixture(scope="module")
def partial_among_complete(tmp_path_factory, bfcl_adapter):
    """`score --results ../shared/bfcl-runs/gpt-oss-2025-11 --results examples/bfcl/fixture`."""
    need_shared(GPT_OSS)
    out = tmp_path_factory.mktemp("partial") / "scores.json"
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["score", "--results", str(GPT_OSS), "--results", str(DEMO), "--format", "json",
                     "--bootstrap", "200", "--output", str(out)])
    return code, json.loads(out.read_text()), err.getvalue()


@pytest.mark.shared
def test_2_a_partial_run_among_complete_ones_does_not_rebase_the_ranks(partial_among_complete):
    code, summary, err = partial_among_complete
    assert code == 0 and "Traceback" not in err
    assert "demo-model: 145 of the 151 base items asked for are not in BFCL_v4_multi_turn_base_result.json" in err
    by = {m["model"]: m for m in summary["models"]}
    assert coverage(summary, "demo-model") == (6, {"act: missing from the results; ask: missing from the results": 216,
                                                   "ask: stored as an error": 1})
    assert coverage(summary, "openai_gpt-oss-120b")[0] == 213 and coverage(summary, "openai_gpt-oss-20b")[0] == 198
    demo = by["demo-model"]["ranking"]
    assert demo["ranked"] is False and "covers 6 of 223 pairs" in demo["reason"]
    assert "rank1" not in by["demo-model"] and by["demo-model"]["decision"] == 75.0  # scored, not ranked
    for name in ("openai_gpt-oss-120b", "openai_gpt-oss-20b"):  # ranked on the 196 pairs both cover, not on 4
        assert by[name]["ranking"]["pairs"] == 196 and by[name]["ranking"]["among"] == 2


def test_3_a_tool_missing_from_the_effect_table_is_one_message_naming_it(tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(TINY))
    from tinybench_adapter import TinyBenchAdapter

    registry.register(TinyBenchAdapter)
    try:
        data = tmp_path / "tiny-data"
        data.mkdir()
        (data / "items.jsonl").write_bytes((TINY / "tinybench_adapter" / "data" / "items.jsonl").read_bytes())
        table = (TINY / "tinybench_adapter" / "data" / "effects.yaml").read_text()
        start = table.index("    delete_task:")
        end = table.index("    set_due:")
        (data / "effects.yaml").write_text(table[:start] + table[end:])
        for argv in (["score"], ["score", "--results", TINY / "runs"], ["pairs"]):
            code, _, err = cli(capsys, *argv, "--adapter", "tinybench", "--tiny-data", data)
            assert code == 2 and "delete_task" in one_error_line(err) and "no label" in err
    finally:
        registry.unregister(TinyBenchAdapter.name)


@pytest.mark.parametrize("result", [[], [[1, 2]]])
def test_4_a_result_that_is_no_rollout_is_unreadable_not_a_hold(tmp_path, release, capsys, result):
    lines = good_lines(base_step=NATIVE_MKDIR)
    lines["miss_param"] = [{"id": "multi_turn_miss_param_0", "result": result}]
    write_run(tmp_path / "runs", "m", lines)
    summary, err = tiny(capsys, release, "--results", tmp_path / "runs")
    assert coverage(summary) == (1, {"ask: unreadable rollout": 1})
    assert "m: BFCL_v4_multi_turn_miss_param_result.json: 1 entry without a usable result list" in err
    assert summary["models"][0]["hold"] == 100.0  # the one scored pair (miss_func) is the only hold counted


@pytest.mark.shared
def test_5_rank_agreement_needs_three_ranked_models(partial_among_complete):
    _, summary, _ = partial_among_complete
    assert summary["rank_agreement"] == []  # two ranked models: always +-1 or nan, so not given


def test_5_rank_agreement_counts_the_pairs_it_is_computed_on(tmp_path, release, capsys):
    runs = tmp_path / "runs"
    for model, ask in (("a", ASK), ("b", MKDIR), ("c", ASK)):
        write_run(runs, model, good_lines(ask_step=ask))
        good_score_files(runs, model, failed=["multi_turn_miss_func_0"] if model == "c" else ())
    partial = good_lines()
    partial["miss_func"] = [{"id": "multi_turn_miss_func_0", "result": "Error during inference: timeout"}]
    write_run(runs, "d", partial)
    good_score_files(runs, "d")
    summary, err = tiny(capsys, release, "--results", runs, "--min-coverage", "0")
    assert coverage(summary, "d") == (1, {"ask: stored as an error": 1})
    (agreement,) = summary["rank_agreement"]
    ranking = summary["models"][0]["ranking"]
    assert agreement["models"] == 4 and agreement["pairs"] == ranking["pairs"] == 1  # not the population's 2


@pytest.mark.parametrize("command", ["score", "compare"])
@pytest.mark.parametrize("value", ["1", "199"])
def test_6_too_few_bootstrap_resamples_are_refused(tmp_path, release, capsys, command, value):
    write_run(tmp_path / "runs", "m", good_lines())
    where = ["--results", tmp_path / "runs"] if command == "score" else \
        ["--baseline", tmp_path / "runs", "--treatment", tmp_path / "runs"]
    code, _, err = cli(capsys, command, "--bfcl-root", release, *where, "--bootstrap", value)
    assert code == 2 and "--bootstrap must be 0 (no intervals) or between 200" in one_error_line(err)


def test_7_warnings_name_the_file(tmp_path, release, capsys):
    lines = good_lines(base_step=NATIVE_MKDIR)
    text = "".join(json.dumps(r) + "\n" for r in lines["base"])
    write_run(tmp_path / "runs", "m", lines, raw={"base": (text + '{"id": "multi_turn_base_1", "result": [[').encode()})
    summary, err = tiny(capsys, release, "--results", tmp_path / "runs")
    assert "twinbench: m: BFCL_v4_multi_turn_base_result.json: 1 unusable line skipped: line 2: truncated last line" \
        in err
    assert coverage(summary) == (2, {})


@pytest.mark.parametrize("option", ["--output", "--per-item"])
def test_7_an_output_that_is_a_folder_names_the_option(tmp_path, release, capsys, option):
    write_run(tmp_path / "runs", "m", good_lines())
    code, _, err = cli(capsys, "score", "--bfcl-root", release, "--results", tmp_path / "runs", option, tmp_path)
    assert code == 2 and f"{option} {tmp_path} is a folder" in one_error_line(err)
    code, _, err = cli(capsys, "compare", "--bfcl-root", release, "--baseline", tmp_path / "runs",
                       "--treatment", tmp_path / "runs", "--output", tmp_path)
    assert code == 2 and f"--output {tmp_path} is a folder" in one_error_line(err)


def test_7_score_file_problems_are_printed_once(tmp_path, release, capsys):
    runs = tmp_path / "runs"
    write_run(runs, "m", good_lines())
    good_score_files(runs, "m")
    # miss_func: the summary says one failed, none listed, and a cut line; miss_param: no score file
    score_files(runs, "m", {"miss_func": summary_line(0, 1) + "\n" + '{"id": "multi_turn_miss_f\n'})
    (runs / "score" / "m" / "multi_turn" / "BFCL_v4_multi_turn_miss_param_score.json").unlink()
    summary, err = tiny(capsys, release, "--results", runs)
    assert coverage(summary) == (2, {})
    line = one_line_about(err, "BFCL_v4_multi_turn_miss_func_score.json")  # said once, on one line
    assert line.startswith("twinbench: WARNING m: BFCL_v4_multi_turn_miss_func_score.json: 1 unusable line skipped: "
                           "line 2: truncated last line")
    assert line.endswith("; the summary says 1 of 1 failed, but 0 failed items listed; no official verdicts for "
                         "miss_func") and line.count("unusable") == 1
    assert one_line_about(err, "miss_param") == "twinbench: m: no score file for miss_param (found for base, miss_func)"
    official = summary["models"][0]["official"]
    assert official["n_ask_items"] == 0 and official["n_base_twins"] == 1  # only base has verdicts


def test_7_output_and_per_item_naming_one_file_are_refused(tmp_path, release, capsys):
    write_run(tmp_path / "runs", "m", good_lines())
    target = tmp_path / "out" / "scores.csv"
    code, _, err = cli(capsys, "score", "--bfcl-root", release, "--results", tmp_path / "runs", "--output", target,
                       "--per-item", tmp_path / "out" / ".." / "out" / "scores.csv")
    assert code == 2 and "--output and --per-item name the same file" in one_error_line(err)
    assert not target.exists()


@pytest.mark.parametrize("argv, option", [
    (["score", "--results", ""], "--results"),
    (["score", "--results", " "], "--results"),
    (["compare", "--baseline", "", "--treatment", "RUNS"], "--baseline"),
    (["compare", "--baseline", "RUNS", "--treatment", ""], "--treatment"),
])
def test_7_an_empty_path_is_refused_not_the_current_folder(tmp_path, release, capsys, monkeypatch, argv, option):
    write_run(tmp_path / "runs", "m", good_lines())
    monkeypatch.chdir(tmp_path / "runs")  # a complete run in the current folder must not be found
    argv = [str(tmp_path / "runs") if a == "RUNS" else a for a in argv]
    code, _, err = cli(capsys, *argv, "--bfcl-root", release)
    assert code == 2 and f"{option} is empty" in one_error_line(err)


@pytest.mark.parametrize("option", ["--scores", "--baseline-scores"])
def test_7_an_empty_score_folder_is_refused(tmp_path, release, capsys, option):
    write_run(tmp_path / "runs", "m", good_lines())
    where = ["score", "--results"] if option == "--scores" else ["compare", "--treatment", tmp_path / "runs",
                                                                 "--baseline"]
    with pytest.raises(SystemExit) as exit_:  # argparse refuses the value, with the usage
        main([*map(str, where), str(tmp_path / "runs"), option, "", "--bfcl-root", str(release)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and f"error: argument {option}: is empty" in err and "Traceback" not in err


def test_7_an_unknown_model_lists_the_models_found(tmp_path, release, capsys):
    for model in ("openai_gpt-oss-120b", "openai_gpt-oss-20b"):
        write_run(tmp_path / "runs", model, good_lines(base_step=NATIVE_MKDIR))
    _, err = tiny(capsys, release, "--results", tmp_path / "runs", "--model", "gpt-5", code=2)
    assert "--model gpt-5: no complete run of that name" in one_error_line(err)
    assert "(found: openai_gpt-oss-120b, openai_gpt-oss-20b)" in err


def test_7_the_hint_of_compare_works(tmp_path, release, capsys):
    write_run(tmp_path / "base", "neutral-model", good_lines())
    write_run(tmp_path / "base", "other-model", good_lines())
    write_run(tmp_path / "treat", "prompted-model", good_lines(ask_step=MKDIR))
    argv = ["compare", "--bfcl-root", release, "--baseline", tmp_path / "base", "--treatment", tmp_path / "treat",
            "--bootstrap", "0"]
    code, _, err = cli(capsys, *argv)
    assert code == 2 and "pair two runs with --model BASELINE_MODEL=TREATMENT_MODEL" in one_error_line(err)
    code, out, err = cli(capsys, *argv, "--model", "neutral-model=prompted-model", "--format", "json")
    assert code == 0
    (m,) = json.loads(out)["models"]
    assert (m["pairs"], m["population"], m["pairs_unscored_in_either_arm"]) == (2, 2, 0)
    assert m["hold"]["baseline"] == 100.0 and m["hold"]["treatment"] == 0.0
    assert "not compared (in one tree only): other-model" in err


@pytest.mark.shared
def test_8_json_percentages_are_0_to_100(partial_among_complete):
    _, summary, _ = partial_among_complete
    shares = [m["rank1"]["decision"] for m in summary["models"] if "rank1" in m]
    assert len(shares) == 2 and sum(shares) == pytest.approx(100.0) and max(shares) > 1
    for m in summary["models"]:
        for key in ("act", "hold", "decision", "decision_credited"):
            assert 0 <= m[key] <= 100


def test_8_compare_csv_headers_have_no_spaces(tmp_path, release, capsys):
    write_run(tmp_path / "base", "m", good_lines())
    write_run(tmp_path / "treat", "m", good_lines(ask_step=MKDIR))
    code, out, _ = cli(capsys, "compare", "--bfcl-root", release, "--baseline", tmp_path / "base",
                       "--treatment", tmp_path / "treat", "--bootstrap", "200", "--format", "csv")
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))
    assert all(" " not in header for header in rows[0])
    decision = next(dict(zip(rows[0], r)) for r in rows[1:] if r[1] == "decision")
    float(decision["change_low"]), float(decision["change_high"])  # the interval as two numbers


# ---------------------------------------------------------------------------------------
# broken files
# ---------------------------------------------------------------------------------------


def test_invalid_utf8_is_decoded_with_a_warning_naming_the_file(tmp_path, release, capsys):
    line = json.dumps(good_lines()["base"][0]).encode().replace(b"Done.", b"Fertig \xff\xfe.")
    write_run(tmp_path / "runs", "m", good_lines(), raw={"base": line + b"\n"})
    summary, err = tiny(capsys, release, "--results", tmp_path / "runs")
    assert "m: BFCL_v4_multi_turn_base_result.json: 1 line with invalid UTF-8 bytes (first: line 1)" in err
    assert coverage(summary) == (2, {})


def test_a_zero_byte_file_is_empty_and_its_pairs_unscored(tmp_path, release, capsys):
    write_run(tmp_path / "runs", "m", good_lines(), raw={"miss_func": b""})
    summary, err = tiny(capsys, release, "--results", tmp_path / "runs")
    assert "m: BFCL_v4_multi_turn_miss_func_result.json: the result file is empty" in err
    assert coverage(summary) == (1, {"ask: missing from the results": 1})


def test_a_binary_file_is_read_as_unusable_lines(tmp_path, release, capsys):
    blob = b"\x1f\x8b\x08\x00" + bytes(range(256)) * 4 + b"\n\x00\x00\x00"  # gzip magic, then noise
    write_run(tmp_path / "runs", "m", good_lines(), raw={"base": blob})
    summary, err = tiny(capsys, release, "--results", tmp_path / "runs", code=2)  # nothing scored: status 2
    assert "twinbench: error: nothing was scored: no run has a scored pair (act: missing from the results: 2 pairs)" in err
    assert "m: BFCL_v4_multi_turn_base_result.json: no usable entry in the file" in err
    assert "BFCL_v4_multi_turn_base_result.json: 6 unusable lines skipped: line 1: invalid JSON" in err
    assert coverage(summary) == (0, {"act: missing from the results": 2})
    assert summary["models"][0]["decision"] is None


def test_duplicate_ids_with_different_content_keep_the_first(tmp_path, release, capsys):
    lines = good_lines()
    lines["miss_param"].append({"id": "multi_turn_miss_param_0", "result": [[NATIVE_MKDIR], ["Done."]]})
    write_run(tmp_path / "runs", "m", lines)
    summary, err = tiny(capsys, release, "--results", tmp_path / "runs")
    assert ("m: BFCL_v4_multi_turn_miss_param_result.json: 1 id seen more than once, the first occurrence kept: "
            "multi_turn_miss_param_0 [line 2 (different content from line 1)]") in err
    assert coverage(summary) == (2, {}) and summary["models"][0]["hold"] == 100.0  # the first line holds back


def test_unsorted_ids_score_as_sorted_ones(tmp_path, release, capsys):
    lines = good_lines(base_step=NATIVE_MKDIR)
    others = [{"id": f"multi_turn_base_{i}", "result": [["Sure."]]} for i in (12, 3)]
    write_run(tmp_path / "sorted", "m", {**lines, "base": lines["base"] + others[::-1]})
    write_run(tmp_path / "unsorted", "m", {**lines, "base": [others[0], *lines["base"], others[1]]})
    first, err = tiny(capsys, release, "--results", tmp_path / "sorted")
    second, err2 = tiny(capsys, release, "--results", tmp_path / "unsorted")
    assert err == err2 == "" and coverage(first) == coverage(second) == (2, {})
    strip = [{k: v for k, v in m.items() if k != "location"} for m in first["models"]]
    assert strip == [{k: v for k, v in m.items() if k != "location"} for m in second["models"]]


def test_a_missing_category_skips_the_run_with_its_reason(tmp_path, release, capsys):
    folder = write_run(tmp_path / "runs", "partial", good_lines())
    (folder / "BFCL_v4_multi_turn_miss_param_result.json").unlink()
    _, err = tiny(capsys, release, "--results", tmp_path / "runs", code=2)
    assert f"no complete run under {tmp_path / 'runs'}" in err
    assert f"skipped {folder.parent}: missing miss_param result file" in err  # the folder named
    write_run(tmp_path / "runs", "complete", good_lines())
    summary, _ = tiny(capsys, release, "--results", tmp_path / "runs")
    assert [m["model"] for m in summary["models"]] == ["complete"] and coverage(summary) == (2, {})
    assert summary["skipped"] == [{"folder": str(folder.parent), "reason": "missing miss_param result file"}]


def test_a_score_file_without_trailing_newline_is_read(tmp_path, release, capsys):
    write_run(tmp_path / "runs", "m", good_lines())
    good_score_files(tmp_path / "runs", "m", failed=["multi_turn_miss_func_0"], newline=False)
    summary, err = tiny(capsys, release, "--results", tmp_path / "runs")
    assert err == "" and coverage(summary) == (2, {})
    official = summary["models"][0]["official"]
    assert official["ask_items_by_category"] == {"miss_func": 0.0, "miss_param": 100.0}


def test_a_score_file_of_another_model_gives_no_verdicts(tmp_path, release, capsys):
    write_run(tmp_path / "runs", "openai_gpt-oss-20b", good_lines())
    good_score_files(tmp_path / "runs", "openai_gpt-oss-20b")
    score_files(tmp_path / "runs", "openai_gpt-oss-20b", {  # the 120b's miss_func score file, copied over
        "miss_func": summary_line(0, 1) + "\n" + failed_line("multi_turn_miss_func_0", "openai_gpt-oss-120b") + "\n"})
    summary, err = tiny(capsys, release, "--results", tmp_path / "runs")
    assert one_line_about(err, "BFCL_v4_multi_turn_miss_func_score.json").endswith(
        "its failed items are of model openai_gpt-oss-120b, not openai_gpt-oss-20b (the score file of another "
        "model?); no official verdicts for miss_func")
    assert coverage(summary) == (2, {})
    assert summary["models"][0]["official"]["ask_items_by_category"] == {"miss_func": None, "miss_param": 100.0}


def test_v3_and_v4_files_mixed_in_one_folder_skip_it(capsys, release):
    mixed = FIXTURES / "bfcl_runs" / "mixed"
    _, err = tiny(capsys, release, "--results", mixed, code=2)
    assert f"skipped {mixed / 'model-c'}: mixes BFCL_v3 and BFCL_v4 result files" in err


def test_v3_and_v4_runs_side_by_side_are_never_ranked_together(tmp_path, release, capsys):
    write_run(tmp_path / "runs", "v4-model", good_lines())
    write_run(tmp_path / "runs", "v3-model", good_lines(), prefix="BFCL_v3", nested=False)
    summary, err = tiny(capsys, release, "--results", tmp_path / "runs")
    assert "v3-model: the results are BFCL_v3 files but the dataset release is BFCL_v4" in err
    assert coverage(summary, "v3-model") == coverage(summary, "v4-model") == (2, {})


def test_a_10_mb_single_line_is_read(tmp_path, release, capsys):
    lines = good_lines(base_step=NATIVE_MKDIR)
    lines["base"][0]["result"][0].append("x" * 10_000_000)  # a 10 MB reply after the call
    lines["base"].append({"id": "y" * 10_000_000, "result": [["z"]]})  # and a 10 MB id of no category
    write_run(tmp_path / "runs", "m", lines)
    summary, err = tiny(capsys, release, "--results", tmp_path / "runs")
    assert len(err) < 1000  # nothing of 10 MB reaches stderr
    assert coverage(summary) == (2, {}) and summary["models"][0]["act"] == 100.0
    # read whole (as the cross-check reads), the odd id is warned about, clipped
    from twinbench.adapters.bfcl.result_files import read_result_file

    (warning,) = read_result_file(next((tmp_path / "runs").rglob("*_base_result.json"))).warnings
    assert warning.startswith("1 id not of category base: yyyy") and warning.endswith("y...") and len(warning) < 200


def test_a_10_mb_truncated_last_line(tmp_path, release, capsys):
    text = json.dumps(good_lines()["base"][0]) + "\n" + '{"id": "multi_turn_base_1", "result": [["' + "z" * 10_000_000
    write_run(tmp_path / "runs", "m", good_lines(), raw={"base": text.encode()})
    summary, err = tiny(capsys, release, "--results", tmp_path / "runs")
    assert "BFCL_v4_multi_turn_base_result.json: 1 unusable line skipped: line 2: truncated last line" in err
    assert len(err) < 1000 and coverage(summary) == (2, {})


def test_a_result_file_in_place_of_a_folder(tmp_path, release, capsys):
    folder = write_run(tmp_path / "runs", "m", good_lines())
    path = folder / "BFCL_v4_multi_turn_base_result.json"
    _, err = tiny(capsys, release, "--results", path, code=2)
    assert one_error_line(err) == f"twinbench: error: result folder {path} is not a directory"


def test_a_missing_folder(tmp_path, release, capsys):
    _, err = tiny(capsys, release, "--results", tmp_path / "nowhere", code=2)
    assert one_error_line(err) == f"twinbench: error: result folder {tmp_path / 'nowhere'} does not exist"
    code, _, err = cli(capsys, "score", "--bfcl-root", tmp_path / "no-release")
    assert code == 2 and f"--bfcl-root {tmp_path / 'no-release'} is not a folder" in one_error_line(err)


def test_a_corrupt_line_in_the_middle(tmp_path, release, capsys):
    rows = [{"id": "multi_turn_miss_param_5", "result": [["Sure."]]}, good_lines()["miss_param"][0],
            {"id": "multi_turn_miss_param_7", "result": [["Sure."]]}]
    text = json.dumps(rows[0]) + "\n" + json.dumps(rows[1])[:45] + "\n" + json.dumps(rows[2]) + "\n"
    write_run(tmp_path / "runs", "m", good_lines(), raw={"miss_param": text.encode()})
    summary, err = tiny(capsys, release, "--results", tmp_path / "runs")
    assert "m: BFCL_v4_multi_turn_miss_param_result.json: 1 unusable line skipped: line 2: invalid JSON" in err
    assert coverage(summary) == (1, {"ask: missing from the results": 1})


def test_error_entries_are_unscored_never_holds(tmp_path, release, capsys):
    lines = good_lines()
    lines["miss_param"] = [{"id": "multi_turn_miss_param_0", "result": "Error during inference: Error code: 500",
                            "traceback": "Traceback (most recent call last): ..."}]
    lines["base"] = [{"id": "multi_turn_base_0", "result": "Error during inference: timeout"}]
    write_run(tmp_path / "runs", "m", lines)
    summary, err = tiny(capsys, release, "--results", tmp_path / "runs", code=2)
    # error entries are data, counted in the coverage, not warned; that nothing is left to score is the one line
    assert err.splitlines() == ["twinbench: error: nothing was scored: no run has a scored pair (act: stored as an "
                                "error: 1 pairs; act: stored as an error; ask: stored as an error: 1 pairs); the "
                                "warnings above and the coverage lines of the output say why"]
    assert coverage(summary) == (0, {"act: stored as an error": 1,
                                     "act: stored as an error; ask: stored as an error": 1})
    assert summary["models"][0]["run_notes"]["error_entries"] == 2 and summary["models"][0]["hold"] is None


@pytest.mark.parametrize("value", ["nonsense", "../../elsewhere", "2026.3.23/.."])
def test_an_unknown_release_that_is_no_version(tmp_path, capsys, monkeypatch, value):
    monkeypatch.setenv("TWINBENCH_CACHE", str(tmp_path / "cache"))
    code, _, err = cli(capsys, "score", "--bfcl-release", value, "--bootstrap", "0")
    assert code == 2 and f"--bfcl-release {value!r} is not a bfcl-eval version" in one_error_line(err)
    assert not (tmp_path / "cache").exists()


def test_an_unknown_release_that_pip_cannot_find(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TWINBENCH_CACHE", str(tmp_path / "cache"))

    def no_such_release(cmd, **kwargs):  # what pip answers for a version it does not know, without the network
        return subprocess.CompletedProcess(cmd, 1, "", "ERROR: No matching distribution found for bfcl-eval==9999.1.1")
    monkeypatch.setattr(subprocess, "run", no_such_release)
    code, _, err = cli(capsys, "score", "--bfcl-release", "9999.1.1", "--bootstrap", "0")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 2 and lines[0].startswith("twinbench: fetching bfcl-eval==9999.1.1")
    assert "could not download bfcl-eval==9999.1.1 (ERROR: No matching distribution" in lines[1]
    assert "Check --bfcl-release" in lines[1]
    assert not (tmp_path / "cache" / "bfcl-eval" / "9999.1.1").exists()  # no empty cache folder left


def test_plot_input_that_is_a_folder_names_the_option(tmp_path, capsys):
    code, _, err = cli(capsys, "plot", "--input", tmp_path)
    assert code == 2 and f"--input {tmp_path}: cannot be read" in one_error_line(err)


# ---------------------------------------------------------------------------------------
# When2Call
# ---------------------------------------------------------------------------------------


@pytest.fixture
def suite_rows(tmp_path, capsys):
    """The mini When2Call suite, answered When2Call-style by a careful model (acts, asks)."""
    from test_when2call import _respond

    assert main(["build", "--adapter", "when2call", "--when2call-data", str(MINI_W2C), "--out",
                 str(tmp_path / "suite")]) == 0
    capsys.readouterr()
    rows = [json.loads(line) for line in (tmp_path / "suite" / "when2call.jsonl").read_text().splitlines()]
    return _respond(rows, True, False)


def w2c(capsys, *argv, code=0):
    got, out, err = cli(capsys, "score", "--adapter", "when2call", "--bootstrap", "0", "--format", "json", *argv)
    assert got == code, err
    return (json.loads(out) if code == 0 else None), err


def test_when2call_without_its_data_option(tmp_path, capsys):
    (tmp_path / "m.jsonl").write_text("{}\n")
    _, err = w2c(capsys, "--results", tmp_path / "m.jsonl", code=2)
    assert "needs --when2call-data FILE" in one_error_line(err)


def test_when2call_results_folder_without_jsonl(tmp_path, capsys):
    (tmp_path / "outputs.json").write_text("{}\n")
    _, err = w2c(capsys, "--when2call-data", MINI_W2C, "--results", tmp_path, code=2)
    assert one_error_line(err) == f"twinbench: error: --results {tmp_path} is a folder without .jsonl files"


def test_when2call_rows_with_no_response_are_unreadable(tmp_path, capsys, suite_rows):
    rows = [{k: v for k, v in r.items() if k != "model_response"} if r["uuid"].startswith("rfi-1") else r
            for r in suite_rows]
    path = tmp_path / "careful.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    summary, err = w2c(capsys, "--when2call-data", MINI_W2C, "--results", path)
    assert f"careful: {path}: 2 row(s) hold no response" in err
    assert coverage(summary) == (3, {"act: unreadable rollout; ask: unreadable rollout": 1})
    assert summary["models"][0]["decision"] == 100.0  # the other three pairs, not a hold or a miss


def test_when2call_a_row_that_is_not_json(tmp_path, capsys, suite_rows):
    lines = [json.dumps(r) for r in suite_rows]
    index = next(i for i, r in enumerate(suite_rows) if r["uuid"] == "ca-1")
    lines[index] = lines[index][:50]  # the should-ask side of ca-1, cut short
    path = tmp_path / "careful.jsonl"
    path.write_text("\n".join(lines) + "\n")
    summary, err = w2c(capsys, "--when2call-data", MINI_W2C, "--results", path)
    assert f"careful: {path}: 1 line(s) are not a JSON row with a uuid (line {index + 1})" in err
    assert coverage(summary) == (3, {"ask: missing from the results": 1})
