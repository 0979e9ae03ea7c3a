"""The CLI reference page and the CLI must agree, option by option."""

from __future__ import annotations

import argparse
import re

import pytest

from conftest import REPO

from twinbench.adapters import registry
from twinbench.cli import build_parser

CLI_PAGE = REPO / "docs" / "cli.md"


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser(registry.get("bfcl"))
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def sections() -> dict[str, str]:
    text = CLI_PAGE.read_text(encoding="utf-8")
    parts = re.split(r"^## `twinbench ([\w-]+)`\s*$", text, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def options_of(parser: argparse.ArgumentParser) -> set[str]:
    return {s for a in parser._actions for s in a.option_strings if s.startswith("--") and s != "--help"}


def test_every_subcommand_has_a_section():
    assert set(sections()) == set(subcommands())


@pytest.mark.parametrize("name", sorted(subcommands()))
def test_every_option_is_documented_in_its_section(name):
    text = sections()[name]
    missing = sorted(o for o in options_of(subcommands()[name]) if not re.search(re.escape(o) + r"\b", text))
    assert missing == [], f"docs/cli.md section `twinbench {name}` does not document {missing}"


@pytest.mark.parametrize("name", sorted(subcommands()))
def test_no_section_documents_an_option_that_does_not_exist(name):
    text = re.sub(r"```.*?```", "", sections()[name], flags=re.S)  # examples may use other commands
    mentioned = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text))
    known = options_of(subcommands()[name]) | {"--help", "--version"}
    unknown = sorted(mentioned - known)
    assert unknown == [], f"docs/cli.md section `twinbench {name}` names options the CLI lacks: {unknown}"
