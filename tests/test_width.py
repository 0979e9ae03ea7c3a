"""Every command's text output fits a 100-column terminal; ``--wide`` keeps one line per row where it has one.

The text (table) format of every subcommand is run on the reference policies, the shared runs (skipped
without them) and runs renamed with long model names; no line of standard output may pass
``tables.NARROW_WIDTH``. JSON, CSV, markdown, SVG and HTML are data or markup, not terminal text;
messages on standard error are one line each by design (see ``twinbench.cli.messages``).
"""

from __future__ import annotations

import pytest
from conftest import BFCL_RUNS, WHEN2CALL, need_shared

from twinbench.cli import main
from twinbench.render.tables import NARROW_WIDTH

GPT = BFCL_RUNS / "gpt-oss-2025-11"
W2C = WHEN2CALL / "when2call_test_llm_judge.jsonl"
#: a model folder name longer than the score table's model column can hold within 100 columns
LONG = "an-organisation_a-rather-long-model-name-8B-Instruct-2410-with-a-suffix"


def text_of(capsys, *argv: str, code: int = 0) -> str:
    got = main([str(a) for a in argv])
    out = capsys.readouterr().out
    assert got == code
    return out


def too_wide(text: str) -> list[str]:
    return [line for line in text.splitlines() if len(line) > NARROW_WIDTH]


@pytest.fixture(scope="module")
def long_names(tmp_path_factory):
    """The gpt-oss runs under long model names (links to the published files)."""
    runs = need_shared(GPT)
    root = tmp_path_factory.mktemp("long")
    for kind in ("result", "score"):
        for n, model in enumerate(("openai_gpt-oss-120b", "openai_gpt-oss-20b")):
            (root / kind).mkdir(exist_ok=True)
            for path in sorted((runs / kind / model).rglob("BFCL_*")):  # links to the files: a linked folder
                target = root / kind / f"{LONG}-{n}" / path.relative_to(runs / kind / model)  # is scored under
                target.parent.mkdir(parents=True, exist_ok=True)  # the name it points to
                target.symlink_to(path)
    return root


OFFLINE = [
    ["adapters"],
    ["pairs"],
    ["pairs", "--bfcl-release", "2025.8.5"],
    ["pairs", "--all-pairs", "--uncertified", "--count-login"],
    ["functions"],
    ["score", "--bootstrap", "200"],
    ["score", "--explain", "--bootstrap", "200"],
    ["score", "--diagnostics", "--bootstrap", "0"],
]


@pytest.mark.parametrize("argv", OFFLINE, ids=" ".join)
def test_every_command_fits_100_columns_on_the_release_data(argv, capsys, bfcl_adapter, bfcl_v3_adapter):
    assert too_wide(text_of(capsys, *argv)) == []


SHARED = [
    ["score", "--results", BFCL_RUNS, "--bootstrap", "200"],
    ["score", "--results", BFCL_RUNS, "--bootstrap", "0", "--diagnostics", "--replay"],
    ["replay", "--results", GPT],
    ["calls", "--results", BFCL_RUNS],
    ["compare", "--baseline", GPT, "--treatment", GPT, "--model", "openai_gpt-oss-20b=openai_gpt-oss-120b",
     "--bootstrap", "200"],
    ["pairs", "--adapter", "when2call", "--when2call-data", W2C],
    ["score", "--adapter", "when2call", "--when2call-data", W2C, "--bootstrap", "200"],
    ["pairs", "--replay"],
]


@pytest.mark.shared
@pytest.mark.parametrize("argv", SHARED, ids=lambda a: " ".join(map(str, a)).replace(str(BFCL_RUNS.parent), ""))
def test_every_command_fits_100_columns_on_the_shared_runs(argv, capsys, bfcl_adapter, bfcl_v3_adapter):
    need_shared(BFCL_RUNS), need_shared(W2C)
    assert too_wide(text_of(capsys, *argv)) == []


@pytest.mark.shared
@pytest.mark.parametrize("argv", [
    ["score", "--bootstrap", "200"], ["score", "--bootstrap", "0", "--replay", "--diagnostics"], ["replay"],
    ["calls"], ["compare"],
], ids=" ".join)
def test_long_model_names_wrap_instead_of_widening_the_table(argv, long_names, capsys, bfcl_adapter):
    where = ["--baseline", long_names, "--treatment", long_names] if argv[0] == "compare" else ["--results", long_names]
    text = text_of(capsys, *argv, *where, *(["--bootstrap", "0"] if argv[0] == "compare" else []))
    assert too_wide(text) == []
    assert LONG[:20] in text  # the name is there, wrapped within its column


@pytest.mark.shared
@pytest.mark.parametrize("command", [["score", "--bootstrap", "0"], ["calls"], ["compare", "--bootstrap", "0"],
                                     ["functions"]], ids=" ".join)
def test_wide_keeps_each_row_on_one_line(command, long_names, capsys, bfcl_adapter):
    name = command[0]
    where = ([] if name == "functions" else ["--baseline", long_names, "--treatment", long_names] if name == "compare"
             else ["--results", long_names])
    wide = text_of(capsys, *command, *where, "--wide")
    rows = [line for line in wide.splitlines() if line.startswith(f"{LONG}-0")]
    if name == "functions":
        rows = [line for line in wide.splitlines() if line.startswith("GorillaFileSystem  echo ")]
        assert rows and "per_call_rules" in rows[0]  # the whole reason on the function's one line
    else:
        assert rows and all(LONG + "-0" in row for row in rows)  # the whole name on the row's one line
    assert too_wide(wide)  # wider than a terminal, as asked
