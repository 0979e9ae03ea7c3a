"""Rendering ``twinbench functions``: every tool function's effect label, with its reason and source."""

from __future__ import annotations

from twinbench.contract.rules import DecisionRule, EffectTableRule, function_records
from twinbench.render import tables


def render_functions(adapter_name: str, rule: DecisionRule, fmt: str, wide: bool = False) -> str:
    """The effect label of every function an effect-table rule knows; a rule without labels says what acting is.

    The table fits 100 columns, each reason wrapped under its row; ``wide`` keeps every row on one line."""
    if not isinstance(rule, EffectTableRule):
        return (tables.json_text({"rule": rule.summary, "functions": []}) if fmt == "json" else
                "\n".join(tables.wrap([f"the {adapter_name} adapter labels no functions: acting is {rule.summary}"])))
    effects, verdicts = rule.classifier, rule.verdicts
    records = function_records(rule)
    if fmt == "json":
        return tables.json_text(records)
    if fmt == "csv":
        keys = [k for k in records[0] if k != "notes"] if records else ["name"]
        return tables.csv_text(keys + ["notes"], [[r[k] for k in keys] + ["; ".join(f"{k}: {v}" for k, v in
                                                                                   r["notes"].items())]
                                                  for r in records])
    body = tables.table(["class", "name", "label", "reason"],
                        [[r["class"], r["name"], r["label"],
                          r["reason"] + "".join(f" [{k}: {v}]" for k, v in r["notes"].items()
                                                if k == "analyzer_disagrees")] for r in records],
                        width=None if wide else tables.NARROW_WIDTH, wrap=(3,))
    counts = effects.counts()
    summary = f"{len(records)} functions: " + ", ".join(f"{v} {k}" for k, v in counts.items())
    derived = [r["name"] for r in records if r["label_source"] != "table"]
    if derived:
        summary += f"; {len(derived)} not in the table, labelled by the source analyzer ({', '.join(derived)})"
    if verdicts:
        disagree = [r for r in records if r["source_writes"] is not None
                    and r["source_writes"] != (r["label"] in ("mutate", "login"))]
        summary += f"; the source analyzer disagrees on {len(disagree)}" + (
            f" ({', '.join(r['name'] for r in disagree)}; each one's analyzer_disagrees note says why)"
            if disagree else "")
    return body + "\n\n" + "\n".join(tables.wrap([summary]))
