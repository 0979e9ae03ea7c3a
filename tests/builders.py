"""Small builders for hand-made items, so core tests need no leaderboard data."""

from __future__ import annotations

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
