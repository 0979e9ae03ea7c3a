"""The porting guide's contract tables list exactly the public members of the contract's classes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from twinbench.contract import Adapter, DecisionRule, Replayer, RunReader
from twinbench.contract.perturber import Perturber

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "porting.md"
CLASSES = {"Adapter": Adapter, "RunReader": RunReader, "DecisionRule": DecisionRule, "Replayer": Replayer,
           "Perturber": Perturber}


def _table(name: str) -> set[str]:
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index(f"<!-- contract: {name} -->")
    rows = []
    for line in text[start:].splitlines()[1:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    names = set()
    for row in rows[2:]:
        first = row.split("|")[1]
        names |= set(re.findall(r"`(\w+)`", first))
    return names


def _public(cls: type) -> set[str]:
    return {n for klass in cls.__mro__ if klass.__module__.startswith("twinbench.contract")
            for n in vars(klass) if not n.startswith("_")}


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_the_guide_lists_every_public_member_and_no_other(name):
    documented, public = _table(name), _public(CLASSES[name])
    assert public - documented == set(), f"{name}: public members the porting guide does not list"
    assert documented - public == set(), f"{name}: the porting guide lists members that do not exist"
