"""``twinbench perturb``: the funnel, why turns could not be perturbed, what was written; or JSON."""

from __future__ import annotations

from twinbench.perturb.report import PerturbReport
from twinbench.render import tables


def render_perturb(report: PerturbReport, fmt: str = "table") -> str:
    if fmt == "json":
        return tables.json_text(report.to_json())
    lines = [tables.table(["stage", "count"], [[name, str(count)] for name, count in report.funnel()]), ""]
    if report.refusals():
        lines += ["items left out:",
                  tables.table(["reason", "items"], [[kind, str(count)] for kind, count in report.refusals()]), ""]
    if report.reasons():
        lines += ["not perturbable:",
                  tables.table(["reason", "turns"], [[kind, str(count)] for kind, count in report.reasons()]), ""]
    if report.values:
        lines += ["value removal:",
                  tables.table(["stage", "count"], [[name, str(count)] for name, count in report.value_funnel()]), ""]
        if report.value_reasons():
            lines += ["no value-removed twin:", tables.table(["reason", "turns"], [[kind, str(count)] for kind, count
                                                                                 in report.value_reasons()]), ""]
    for new_id, why in sorted(report.unverified.items()):
        lines.append(f"not verified: {new_id}: {why}")
    lines.append("written:")
    lines += [f"  {path}" for path in report.written]
    return "\n".join(lines) + "\n"
