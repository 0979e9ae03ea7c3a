"""Small builders for hand-made items, so core tests need no leaderboard data."""

from __future__ import annotations

import json
from pathlib import Path

from twinbench.calls import parse_python_calls
from twinbench.effects import ArgumentRule, EffectClassifier
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




def rule():
    """The classifier above as the decision rule BFCL-like adapters use (``Cls.fn`` is ``fn``)."""
    from twinbench.rules import EffectTableRule

    return EffectTableRule(classifier())
