"""Constructed When2Call twins: a ``tool_call`` row with the tool its reference calls taken off the list.

When2Call withholds a tool in its own ``cannot_answer`` rows: the same question, the target tool
taken off ``tools``, the complete list kept as ``orig_tools``. A constructed twin is exactly such a
row made from a ``tool_call`` row: its id is the row's uuid and :data:`ASK_SUFFIX`, its
``correct_answer`` is ``cannot_answer``, its ``tools`` are the row's without the withheld ones (in
the row's order), ``orig_tools`` the row's own list, and ``target_tool`` is null, as in When2Call's
own rows.

``twinbench perturb --adapter when2call --out DIR`` writes the files ``twinbench build`` writes:
``when2call.jsonl`` (both sides of every constructed pair in When2Call's schema, each with its
``twinbench`` object, the should-ask side's naming the row it was made from and the withheld
tools), ``openai.jsonl`` (one OpenAI Batch API line a row) and ``pairs.json``. ``--constructed DIR``
reads the should-ask rows back, each checked against the row it names.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from twinbench.contract.perturber import Perturber
from twinbench.errors import AdapterError
from twinbench.model import DeclaredPerturbation, Item, Perturbation, Side
from twinbench.model.constructed import Construction

from . import suite

#: a constructed should-ask twin's id: the tool_call row's uuid and this suffix
ASK_SUFFIX = "-withheld"
#: the When2Call category of a constructed should-ask twin (When2Call's own tool-removed rows)
CATEGORY = "cannot_answer"
REVIEW = "constructed by twinbench perturb (tool removal, verified by content); outside any hand review"


def constructed_row(row: Mapping[str, object], withheld: Sequence[str], new_id: str,
                    names: Sequence[str]) -> dict[str, object]:
    """The ``cannot_answer`` row made from the ``tool_call`` row ``row`` (``names``: its decoded tool names)."""
    tools = list(row["tools"])  # type: ignore[arg-type]
    out = {key: row[key] for key in suite.ROW_KEYS if key in row}
    out.update(uuid=new_id, correct_answer=CATEGORY, target_tool=None,
               tools=[raw for raw, name in zip(tools, names) if name not in withheld], orig_tools=tools)
    return out


def _marker(pair: str, side: str, origin: str | None = None, withheld: Sequence[str] = ()) -> dict[str, object]:
    out: dict[str, object] = {"pair": pair, "side": side}
    if origin is not None:
        out["constructed"] = {"from": origin, "withheld": list(withheld)}
    return out


class When2CallPerturber(Perturber):
    """When2Call's constructed twins: one ``cannot_answer`` row per perturbable ``tool_call`` row."""

    def __init__(self, adapter: Any, remake: Callable[[Path, bool], Any]) -> None:
        self.adapter = adapter  # the When2Call adapter whose tool_call rows are perturbed
        self._remake = remake

    def refuse(self, item: Item) -> str | None:
        same = self.adapter.shipped_twin_of(item)
        if same is not None:
            return ("the same request as the act twin of a shipped cannot_answer row, so When2Call already "
                    f"withholds a tool from it [{same}]")
        return None

    def new_id(self, item: Item, turn: int) -> str:
        return item.id + ASK_SUFFIX

    def write(self, constructions: Sequence[Construction], out: Path) -> list[Path]:
        from twinbench.perturb.run import write_atomically

        out = Path(out)
        if out.exists() and not out.is_dir():
            raise AdapterError(f"--out {out} is a file; give a folder")
        rows = self.adapter.loaded.rows
        built: list[dict[str, object]] = []
        for c in constructions:
            if not c.perturbable:
                continue
            source = rows[c.item_id]
            act = {key: source.data[key] for key in suite.ROW_KEYS if key in source.data}
            ask = constructed_row(source.data, c.withheld, c.new_id, source.tools)
            built.append({**act, "twinbench": _marker(c.new_id, "should_act")})
            built.append({**ask, "twinbench": _marker(c.new_id, "should_ask", c.item_id, c.withheld)})
        paths = [out / suite.SUITE_FILE, out / suite.OPENAI_FILE]
        data = self.adapter.data_path
        if data is not None and any(p.resolve() == data.resolve() for p in [*paths, out / suite.PAIRS_FILE]):
            raise AdapterError(f"--out {out} would write over --when2call-data {data}; give another folder")
        write_atomically(paths[0], "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in built))
        write_atomically(paths[1], "".join(json.dumps(suite.openai_request(r), ensure_ascii=False) + "\n"
                                           for r in built))
        return paths

    def reload(self, out: Path, only: bool = True) -> Any:
        return self._remake(Path(out), only)


def load_constructed(out: Path, rows: Mapping[str, Any]) -> list[tuple[str, dict[str, object]]]:
    """The constructed should-ask rows of ``out/when2call.jsonl`` (``--constructed DIR``), by id.

    Each must be the ``tool_call`` row it names with exactly the named tools taken off its list,
    or the folder is refused; rows without a ``twinbench.constructed`` object (the should-act side,
    which is read from ``--when2call-data``) are skipped.
    """
    path = Path(out) / suite.SUITE_FILE
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        raise AdapterError(f"--constructed {out}: {suite.SUITE_FILE} is missing (write it with "
                           "`twinbench perturb --adapter when2call --out DIR`)") from None
    except OSError as exc:
        raise AdapterError(f"--constructed {path}: cannot be read ({exc.strerror})") from None
    found: dict[str, dict[str, object]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"--constructed {path} line {number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            raise AdapterError(f"{where}: not a JSON row") from None
        marker = data.get("twinbench") if isinstance(data, dict) else None
        made = marker.get("constructed") if isinstance(marker, dict) else None
        if made is None:
            continue
        new_id, origin = data.get("uuid"), made.get("from") if isinstance(made, dict) else None
        withheld = made.get("withheld") if isinstance(made, dict) else None
        if not isinstance(new_id, str) or not isinstance(origin, str) or not isinstance(withheld, list):
            raise AdapterError(f"{where}: twinbench.constructed needs 'from' (a uuid) and 'withheld' (a list)")
        source = rows.get(origin)
        if source is None or source.data.get("correct_answer") != "tool_call":
            raise AdapterError(f"{where}: made from {origin}, which is no tool_call row of --when2call-data")
        if new_id != origin + ASK_SUFFIX or new_id in found:
            raise AdapterError(f"{where}: the id must be {origin + ASK_SUFFIX}, once")
        expected = constructed_row(source.data, [str(w) for w in withheld], new_id, source.tools)
        if not withheld or not set(withheld) <= set(source.tools) or \
                {k: data.get(k) for k in expected} != expected:
            raise AdapterError(f"{where}: is not {origin} with {', '.join(map(str, withheld)) or 'no tool'} "
                               "taken off its list; rewrite it with `twinbench perturb`")
        found[new_id] = expected
    if not found:
        raise AdapterError(f"--constructed {path}: holds no constructed row (ids ending in {ASK_SUFFIX})")
    return list(found.items())


def constructed_item(new_id: str, source: Item, tools: tuple[str, ...], withheld: Sequence[str]) -> Item:
    """The should-ask item of a constructed row: ``source``'s words with ``tools`` offered and no reference."""
    ask_turn = attrs.evolve(source.turns[0], tools=tools, reference=(), reference_text=())
    declared = DeclaredPerturbation(Perturbation.TOOL_REMOVED, tuple(withheld))
    return Item(new_id, CATEGORY, Side.ASK, (ask_turn,), family=source.family, perturbation=declared)
