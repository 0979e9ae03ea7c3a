"""Small builders for hand-made items, so core tests need no leaderboard data."""

from __future__ import annotations

import json
from pathlib import Path

from twinbench.reading import parse_python_calls
from twinbench.contract.effects import ArgumentRule, EffectClassifier
from twinbench.model import Effect, FunctionEffect, Item, Side, Turn

TOOLS = ("ls", "cd", "mkdir", "mv", "echo", "login")


def turn(index: int, user: str | None, refs: list[str], tools=TOOLS) -> Turn:
    return Turn(
        index=index,
        user_text=(user,) if user is not None else (),
        tools=tuple(tools),
        reference=tuple(c for r in refs for c in parse_python_calls(r)),
        reference_text=tuple(refs),
    )


def item(item_id: str, category: str, side: Side, turns: list[tuple]) -> Item:
    """``turns`` is a list of ``(user, refs)`` or ``(user, refs, tools)``."""
    return Item(item_id, category, side, tuple(turn(i, *t) for i, t in enumerate(turns)))


def classifier() -> EffectClassifier:
    functions = (
        FunctionEffect("ls", "FS", Effect.READ, "lists"),
        FunctionEffect("cd", "FS", Effect.READ, "private cursor"),
        FunctionEffect("mkdir", "FS", Effect.MUTATE, "adds a directory"),
        FunctionEffect("mv", "FS", Effect.MUTATE, "moves"),
        FunctionEffect("echo", "FS", Effect.MUTATE, "writes with a file name"),
        FunctionEffect("login", "FS", Effect.LOGIN, "logs in"),
    )
    rules = (ArgumentRule("echo", "file_name", 1, Effect.MUTATE, Effect.READ),)
    return EffectClassifier(functions, rules)


def tiny_package(root: Path, prefix: str = "BFCL_v4") -> Path:
    """A minimal bfcl_eval folder: one FS class, one scenario in each category."""
    pkg = root / "bfcl_eval"
    (pkg / "data" / "possible_answer").mkdir(parents=True)
    (pkg / "data" / "multi_turn_func_doc").mkdir(parents=True)
    (pkg / "constants").mkdir()
    src = pkg / "eval_checker" / "multi_turn_eval" / "func_source_code"
    src.mkdir(parents=True)
    (pkg / "constants" / "executable_backend_config.py").write_text(
        'MULTI_TURN_FUNC_DOC_FILE_MAPPING = {"FS": "fs.json"}\nPREFIX = f"{1}"\n')
    (pkg / "data" / "multi_turn_func_doc" / "fs.json").write_text(
        "\n".join(json.dumps({"name": n}) for n in ("ls", "mkdir")) + "\n")
    (src / "fs.py").write_text(
        "class FS:\n    def __init__(self):\n        self.tree = {}\n"
        "    def ls(self):\n        return list(self.tree)\n"
        "    def mkdir(self, dir_name):\n        self.tree[dir_name] = {}\n")
    base_q = [[{"role": "user", "content": "make dir a"}]]
    items = {
        "base": (base_q, [["mkdir(dir_name='a')"]], {}),
        "long_context": (base_q, [["mkdir(dir_name='a')"]], {}),
        "miss_param": ([[{"role": "user", "content": "make a dir"}], [{"role": "user", "content": "a"}]],
                       [[], ["mkdir(dir_name='a')"]], {}),
        "miss_func": ([[{"role": "user", "content": "make dir a"}], []], [[], ["mkdir(dir_name='a')"]],
                      {"1": ["mkdir"]}),
    }
    for cat, (question, truth, missed) in items.items():
        q = {"id": f"multi_turn_{cat}_0", "question": question, "involved_classes": ["FS"], "initial_config": {}}
        if missed:
            q["missed_function"] = missed
        (pkg / "data" / f"{prefix}_multi_turn_{cat}.json").write_text(json.dumps(q) + "\n")
        (pkg / "data" / "possible_answer" / f"{prefix}_multi_turn_{cat}.json").write_text(
            json.dumps({"id": q["id"], "ground_truth": truth}) + "\n")
    return pkg



def write_wheel(pkg: Path, wheel: Path, release: str, extra: dict[str, str] | None = None) -> Path:
    """A wheel of the ``bfcl_eval`` folder ``pkg`` (plus ``extra`` files by path), with the dist-info
    a real one has: ``METADATA``, ``WHEEL`` and the ``RECORD`` of every file's SHA-256."""
    import base64
    import hashlib
    import zipfile

    files = {path.relative_to(pkg.parent).as_posix(): path.read_bytes() for path in sorted(pkg.rglob("*"))
             if path.is_file()}
    files.update({name: text.encode() for name, text in (extra or {}).items()})
    info = f"bfcl_eval-{release}.dist-info"
    files[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: bfcl-eval\nVersion: {release}\n".encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = [f"{name},sha256={base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},"
              f"{len(data)}" for name, data in files.items()]
    files[f"{info}/RECORD"] = ("\n".join(record + [f"{info}/RECORD,,"]) + "\n").encode()
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return wheel


def rule():
    """The classifier above as the decision rule BFCL-like adapters use (``Cls.fn`` is ``fn``)."""
    from twinbench.contract.rules import EffectTableRule

    return EffectTableRule(classifier())


SIMULATOR = '''\
from bfcl_eval.eval_checker.multi_turn_eval.func_source_code.fs_defaults import DEFAULT_STATE


class FS:
    def __init__(self):
        self.files = {}
        self.dirs = []
        self._reads = 0

    def _load_scenario(self, scenario, long_context=False):
        state = dict(DEFAULT_STATE)
        state.update(scenario)
        self.files = dict(state["files"])
        self.dirs = list(state["dirs"])
        self.long_context = long_context

    def ls(self):
        self._reads += 1
        return {"files": sorted(self.files)}

    def mkdir(self, dir_name):
        if dir_name in self.dirs:
            return {"error": "mkdir: " + dir_name + " exists"}
        self.dirs.append(dir_name)

    def touch(self, file_name):
        self.files[file_name] = ""

    def cp(self, source, destination):
        self.files[destination + "/" + source] = self.files[source]

    def rm(self, file_name):
        del self.files[file_name]

    def mv(self, source, destination):
        self.files[destination + "/" + source] = self.files.pop(source)

    def sort(self, items):
        items.sort()
        return items

    def spin(self):
        n = 0
        while n < 10 ** 8:  # seconds of work: stopped by the time limit, finite without it
            n += 1
        return n
'''


def replay_package(root: Path) -> Path:
    """A bfcl_eval folder with a small simulator for replay tests.

    The simulator imports a sibling module by BFCL's absolute name, like the real ones.
    Scenario 0: turn 0 "make dir a" (``mkdir``), turn 1 "move f into a" (``mv``); its
    miss_func twin withholds ``mv`` on turn 1 (it comes back on turn 2), its miss_param twin
    leaves out the file. Scenario 1: "make dir a" where ``a`` already exists (a no-op reference).
    """
    pkg = root / "bfcl_eval"
    (pkg / "data" / "possible_answer").mkdir(parents=True)
    (pkg / "data" / "multi_turn_func_doc").mkdir(parents=True)
    (pkg / "constants").mkdir()
    src = pkg / "eval_checker" / "multi_turn_eval" / "func_source_code"
    src.mkdir(parents=True)
    (pkg / "constants" / "executable_backend_config.py").write_text(
        'MULTI_TURN_FUNC_DOC_FILE_MAPPING = {"FS": "fs.json"}\n')
    names = ("ls", "mkdir", "touch", "cp", "rm", "mv", "sort", "spin")
    (pkg / "data" / "multi_turn_func_doc" / "fs.json").write_text(
        "\n".join(json.dumps({"name": n}) for n in names) + "\n")
    (src / "fs.py").write_text(SIMULATOR)
    (src / "fs_defaults.py").write_text('DEFAULT_STATE = {"files": {}, "dirs": []}\n')
    config = {"FS": {"files": {"f": "text"}, "dirs": []}}
    make, move = "mkdir(dir_name='a')", "mv(source='f', destination='a')"

    def user(text):
        return [{"role": "user", "content": text}]

    items = {
        "base": [
            (0, [user("make dir a"), user("move f into a")], [[make], [move]], {}, config),
            (1, [user("make dir a")], [[make]], {}, {"FS": {"files": {}, "dirs": ["a"]}}),
        ],
        "long_context": [(0, [user("make dir a"), user("move f into a")], [[make], [move]], {}, config)],
        "miss_func": [(0, [user("make dir a"), user("move f into a"), []], [[make], [], [move]], {"2": ["mv"]},
                       config)],
        "miss_param": [
            (0, [user("make dir a"), user("move a file into a"), user("f")], [[make], [], [move]], {}, config),
            (1, [user("make a dir"), user("a")], [[], [make]], {}, {"FS": {"files": {}, "dirs": ["a"]}}),
        ],
    }
    for cat, rows in items.items():
        questions, answers = [], []
        for index, question, truth, missed, initial in rows:
            q = {"id": f"multi_turn_{cat}_{index}", "question": question, "involved_classes": ["FS"],
                 "initial_config": initial}
            if missed:
                q["missed_function"] = missed
            questions.append(json.dumps(q))
            answers.append(json.dumps({"id": q["id"], "ground_truth": truth}))
        (pkg / "data" / f"BFCL_v4_multi_turn_{cat}.json").write_text("\n".join(questions) + "\n")
        (pkg / "data" / "possible_answer" / f"BFCL_v4_multi_turn_{cat}.json").write_text("\n".join(answers) + "\n")
    return pkg


def write_scores(results: Path, model: str, failed: dict[str, list[str]], totals: dict[str, int]) -> None:
    """BFCL score files beside ``results/result``: per category, a summary line and one line per failed id."""
    folder = results / "score" / model / "multi_turn"
    folder.mkdir(parents=True, exist_ok=True)
    for cat, total in totals.items():
        bad = failed.get(cat, [])
        lines = [json.dumps({"accuracy": (total - len(bad)) / total, "correct_count": total - len(bad),
                             "total_count": total})]
        lines += [json.dumps({"id": i, "valid": False, "error": {"error_type": "multi_turn:instance_state_mismatch"}})
                  for i in bad]
        (folder / f"BFCL_v4_multi_turn_{cat}_score.json").write_text("\n".join(lines) + "\n")
