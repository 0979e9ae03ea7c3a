"""``twinbench new-adapter NAME --dir DIR``: a package to start a leaderboard adapter from.

The package is complete and passes its own test before you change a line: a JSONL
leaderboard of single-turn items (``data/items.jsonl``), runs stored as one JSONL file
per model, the offered-tool decision rule, and a test that scores the built-in reference
policies at 100 / 50 / 50 through the adapter's own writer and reader. Replace the data
and the two readers with your leaderboard's.

The package's files are the templates beside this module (``templates/``), filled in with
:class:`string.Template` (``$name``, ``$cls``, ``$title``, ...).
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from string import Template

from twinbench.adapters import BUILTIN
from twinbench.errors import TwinbenchError

NAME = re.compile(r"^[a-z][a-z0-9_]{0,40}$")


class ScaffoldError(TwinbenchError):
    """The adapter name or target folder cannot be used."""


def _template(name: str) -> Template:
    return Template(resources.files(__package__).joinpath("templates", name).read_text(encoding="utf-8"))


def _items_text() -> str:
    return resources.files(__package__).joinpath("templates", "items.jsonl").read_text(encoding="utf-8")


def create(name: str, directory: Path) -> list[Path]:
    """Write the package for adapter ``name`` into ``directory`` (new or empty); return the files."""
    if not NAME.match(name):
        raise ScaffoldError(f"adapter name {name!r}: use lower-case letters, digits and _ (starting with a letter)")
    if name in BUILTIN:
        raise ScaffoldError(f"adapter name {name!r} is a built-in adapter's; choose another (built in: "
                            f"{', '.join(sorted(BUILTIN))})")
    directory = Path(directory)
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise ScaffoldError(f"--dir {directory} exists and is not an empty folder; choose a new one")
    items = _items_text()
    fields = {"name": name, "cls": "".join(part.title() for part in name.split("_")) + "Adapter",
              "name_dash": name.replace("_", "-"), "title": name.replace("_", " ").title(),
              "pairs": sum(1 for line in items.splitlines() if json.loads(line)["side"] == "should_ask")}
    package = directory / f"twinbench_{name}"
    files = {
        directory / "pyproject.toml": _template("pyproject.toml.template").substitute(fields),
        directory / "README.md": _template("README.md.template").substitute(fields),
        package / "__init__.py": _template("adapter.py.template").substitute(fields),
        package / "data" / "items.jsonl": items,
        directory / "tests" / f"test_{name}.py": _template("test_adapter.py.template").substitute(fields),
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return list(files)
