"""Every command's output on the shared runs, as digests: the golden record of the layout work.

    python tests/golden_outputs.py            # compare today's outputs with the record
    python tests/golden_outputs.py --update   # rewrite the record (a deliberate change, said in the commit)

Each entry runs one ``twinbench`` command line in a fresh process and keeps the SHA-256 of its
standard output, standard error, exit status and of every file it wrote. Digests, not the outputs,
are committed: the outputs quote the shared runs, which stay out of the repository. Absolute paths
of this machine (the repository's parent, the temporary folder) are replaced by placeholders first,
and the commands use a cache folder of the capture's own, so the record holds in CI's checkout as
in a developer's, whatever ``$HOME`` or ``$TWINBENCH_CACHE`` is. ``tests/test_golden.py`` runs the check.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
RUNS = SHARED / "bfcl-runs"
W2C = SHARED / "when2call" / "when2call_test_llm_judge.jsonl"
RECORD = REPO / "tests" / "fixtures" / "golden" / "outputs.json"

GPT = "{runs}/gpt-oss-2025-11"
FOUR = ["--results", "{runs}/gpt-oss-2025-11", "--results", "{runs}/hdc-router",
        "--results", "{runs}/v3-8b-fc", "--results", "{runs}/v3-ministral-zh"]
B0 = ["--bootstrap", "0"]

# name -> (argv after ``twinbench``, files the command writes under {out})
COMMANDS: dict[str, tuple[list[str], list[str]]] = {
    "adapters": (["adapters"], []),
    "adapters-json": (["adapters", "--format", "json"], []),
    "pairs": (["pairs"], []),
    "pairs-json": (["pairs", "--format", "json"], []),
    "pairs-csv": (["pairs", "--format", "csv"], []),
    "pairs-v3": (["pairs", "--bfcl-release", "2025.8.5"], []),
    "pairs-population": (["pairs", "--count-login", "--uncertified", "--all-pairs", "--format", "json"], []),
    "pairs-replay": (["pairs", "--replay", "--format", "json"], []),
    "functions": (["functions"], []),
    "functions-json": (["functions", "--format", "json"], []),
    "functions-csv": (["functions", "--format", "csv"], []),
    "score-reference": (["score", "--bootstrap", "1000"], []),
    "score-reference-json": (["score", "--format", "json", "--bootstrap", "1000", "--per-item", "{out}/items.csv"],
                             ["items.csv"]),
    "score-explain": (["score", "--explain"], []),
    "score-shared": (["score", *FOUR, "--bootstrap", "1000", "--fresh"], []),
    "score-shared-wide": (["score", *FOUR, *B0, "--wide"], []),
    "score-shared-json": (["score", *FOUR, "--bootstrap", "1000", "--format", "json",
                           "--per-item", "{out}/items.csv"], ["items.csv"]),
    "score-shared-csv": (["score", *FOUR, *B0, "--format", "csv"], []),
    "score-shared-markdown": (["score", *FOUR, *B0, "--format", "markdown"], []),
    "score-shared-sensitivities": (["score", *FOUR, *B0, "--format", "json", "--same-history",
                                    "--distinct-anchor-turns", "--drop-ended-early", "--all-turns"], []),
    "score-shared-diagnostics": (["score", *FOUR, *B0, "--format", "json", "--diagnostics"], []),
    "score-shared-diagnostics-table": (["score", *FOUR, *B0, "--diagnostics"], []),
    "score-gpt-replay": (["score", "--results", GPT, *B0, "--replay"], []),
    "score-gpt-replay-json": (["score", "--results", GPT, *B0, "--replay", "--format", "json"], []),
    "replay-gpt": (["replay", "--results", GPT], []),
    "replay-gpt-json": (["replay", "--results", GPT, "--format", "json"], []),
    "calls-shared": (["calls", *FOUR], []),
    "calls-shared-json": (["calls", *FOUR, "--format", "json"], []),
    "compare-gpt": (["compare", "--baseline", GPT, "--treatment", GPT, "--model",
                     "openai_gpt-oss-20b=openai_gpt-oss-120b", "--bootstrap", "1000"], []),
    "compare-gpt-json": (["compare", "--baseline", GPT, "--treatment", GPT, "--model",
                          "openai_gpt-oss-20b=openai_gpt-oss-120b", "--bootstrap", "1000", "--format", "json"], []),
    "compare-gpt-markdown": (["compare", "--baseline", GPT, "--treatment", GPT, "--model",
                              "openai_gpt-oss-20b=openai_gpt-oss-120b", *B0, "--format", "markdown"], []),
    "report-gpt": (["report", "--results", GPT, "--bootstrap", "1000", "--output", "{out}/report.html"],
                   ["report.html"]),
    "report-reference": (["report", "--bootstrap", "0", "--output", "{out}/report.html"], ["report.html"]),
    "plot-official": (["plot", "--input", "{scores}", "--kind", "official-vs-decision", "--title", "runs"], []),
    "plot-shared": (["plot", "--input", "{scores}"], []),
    "when2call-pairs": (["pairs", "--adapter", "when2call", "--when2call-data", "{w2c}"], []),
    "when2call-pairs-json": (["pairs", "--adapter", "when2call", "--when2call-data", "{w2c}", "--format", "json"],
                             []),
    "when2call-score": (["score", "--adapter", "when2call", "--when2call-data", "{w2c}", "--bootstrap", "1000"],
                        []),
    "when2call-build": (["build", "--adapter", "when2call", "--when2call-data", "{w2c}", "--out", "{out}/suite"],
                        ["suite/when2call.jsonl", "suite/openai.jsonl", "suite/pairs.json"]),
    "corpus17-score": (["score", "--results", "{corpus}", *B0, "--fresh"], []),
    "corpus17-score-json": (["score", "--results", "{corpus}", *B0, "--format", "json",
                             "--per-item", "{out}/items.csv"], ["items.csv"]),
}


def _fill(arg: str, places: dict[str, str]) -> str:
    for key, value in places.items():
        arg = arg.replace("{" + key + "}", value)
    return arg


def _scrub(data: bytes, places: dict[str, str]) -> bytes:
    """This machine's absolute paths replaced by placeholders (longest first)."""
    for key, value in sorted(places.items(), key=lambda kv: -len(kv[1])):
        data = data.replace(value.encode(), ("{" + key + "}").encode())
    return data


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def run_one(name: str, places: dict[str, str], out: Path) -> dict[str, str]:
    argv, files = COMMANDS[name]
    here = {**places, "out": str(out)}
    out.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([sys.executable, "-m", "twinbench.cli", *(_fill(a, here) for a in argv)],
                          capture_output=True, cwd=REPO, env=_env(Path(places["tmp"])))
    texts = {"stdout": _scrub(done.stdout, here), "stderr": _scrub(done.stderr, here)}
    for rel in files:
        path = out / rel
        texts[rel] = _scrub(path.read_bytes(), here) if path.exists() else b"absent"
    keep = os.environ.get("TWINBENCH_GOLDEN_KEEP")  # a folder to keep the scrubbed outputs in, to diff them
    if keep:
        for rel, data in texts.items():
            target = Path(keep) / name / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    return {"rc": str(done.returncode)} | {rel: _digest(data) for rel, data in texts.items()}


def capture(names: list[str] | None = None) -> dict[str, dict[str, str]]:
    sys.path.insert(0, str(REPO / "benchmarks"))
    import corpus  # the benchmarks' corpus builder

    with tempfile.TemporaryDirectory(prefix="twinbench-golden-") as tmp:
        root = Path(tmp)
        _own_cache(root / "cache")
        corpus.build(root / "corpus17", 17, RUNS)
        places = {"runs": str(RUNS), "w2c": str(W2C), "repo": str(REPO), "corpus": str(root / "corpus17" / "result"),
                  "shared": str(SHARED), "tmp": str(root), "scores": str(root / "scores.json")}
        subprocess.run([sys.executable, "-m", "twinbench.cli", "score", *(_fill(a, places) for a in FOUR),
                        "--bootstrap", "1000", "--format", "json", "--output", places["scores"]],
                       cwd=REPO, check=True, capture_output=True, env=_env(root))  # fetches what is missing
        return {name: run_one(name, places, root / name) for name in (names or list(COMMANDS))}


def _env(root: Path) -> dict[str, str]:
    """The commands' environment: a cache of the capture's own (in its temporary folder, so the
    outputs that name a cached release name it alike on every machine, whatever ``$HOME`` or
    ``$TWINBENCH_CACHE`` is), and 100 columns."""
    return {**os.environ, "TWINBENCH_CACHE": str(root / "cache"), "COLUMNS": "100"}


def _own_cache(folder: Path) -> None:
    """The capture's cache, with the releases of the user's cache copied in (nothing fetched again)."""
    import shutil

    from twinbench.cache import cache_root

    folder.mkdir(mode=0o700)
    releases = cache_root() / "bfcl-eval"
    if releases.is_dir():
        shutil.copytree(releases, folder / "bfcl-eval", symlinks=True)


def main(argv: list[str]) -> int:
    if not RUNS.is_dir() or not W2C.is_file():
        print(f"skipped: {SHARED} is absent (the shared runs beside the repository)")
        return 0
    got = capture()
    if "--update" in argv:
        RECORD.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"{len(got)} commands recorded in {RECORD}")
        return 0
    want = json.loads(RECORD.read_text(encoding="utf-8"))
    bad = sorted(n for n in set(want) | set(got) if want.get(n) != got.get(n))
    for name in bad:
        print(f"differs: {name}: {want.get(name)} != {got.get(name)}")
    print(f"{len(got) - len(bad)} of {len(got)} commands as recorded")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
