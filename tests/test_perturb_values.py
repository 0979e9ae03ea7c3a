"""Value removal in ``twinbench perturb`` on BFCL: the candidates derived from the items, the rewrite,
the round trip, the review, the certification of approved rewrites only, the reference policies."""

from __future__ import annotations

import csv
import json

import pytest

from twinbench.adapters.bfcl import BFCLAdapter
from twinbench.adapters.bfcl.perturb import NEUTRAL, REVIEWED_FILE, data_files, load_constructed
from twinbench.discovery import discover_for
from twinbench.errors import AdapterError
from twinbench.model import CertificationStatus, Perturbation
from twinbench.perturb import perturb
from twinbench.perturb.construct import NO_ACTION
from twinbench.perturb.values import EARLIER, occurrences
from twinbench.render.perturb import render_perturb


@pytest.fixture(scope="module")
def adapter():
    return BFCLAdapter()


@pytest.fixture(scope="module")
def made(adapter, tmp_path_factory):
    out = tmp_path_factory.mktemp("values")
    review = out.parent / "review.csv"
    return perturb(adapter, out, values=True, review=review), out, review


def _filled(review, path, verdicts):
    rows = list(csv.DictReader(review.open(encoding="utf-8")))
    for row in rows:
        row["approved"] = verdicts.get(row["id"], "")
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_the_funnel_is_derived_from_the_items(adapter, made):
    """Counted again here from the items: a turn is value-perturbable when one of its world-changing
    reference values appears exactly once in its words and in no earlier turn."""
    report, _, _ = made
    rule = adapter.rule()
    expected = 0
    for item in adapter.items():
        if item.category != "base":
            continue
        empty = [t.index for t in item.turns if t.reference_is_empty]
        for t in item.turns:
            acting = [c for c in rule.resolve(t.reference, t.tools) if rule.is_action(c, item, t.index)]
            if not acting or [e for e in empty if e != t.index]:
                continue
            words = "\n".join(t.user_text)
            earlier = "\n".join(w for u in item.turns[:t.index] for w in u.user_text)
            values = [str(v) for c in acting for v in (*c.args, *(v for _, v in c.kwargs))
                      if isinstance(v, (str, int)) and not isinstance(v, bool) and str(v).strip()]
            if any(words.count(v) == 1 and occurrences(v, words) == 1 and not occurrences(v, earlier)
                   and v not in NEUTRAL  # the rewrite's phrase would hold the value
                   for v in values):
                expected += 1
    funnel = dict(report.value_funnel())
    assert expected and funnel["value-perturbable"] == expected == len(report.value_perturbable)
    assert funnel["with a world-changing reference"] == report.acting
    assert sum(n for _, n in report.value_reasons()) == len(report.removals) - expected
    assert dict(report.value_reasons())[NO_ACTION] == len(report.removals) - report.acting
    assert funnel["verified by discovery"] == funnel["scored"] == expected and not report.unverified
    assert report.to_json()["value_removal"]["funnel"] == funnel
    assert "value-perturbable" in render_perturb(report)


def test_the_rewrite_takes_the_value_out_and_the_inserted_turn_gives_it_back(adapter, made):
    report, out, _ = made
    questions = {json.loads(line)["id"]: json.loads(line)
                 for line in data_files(out, adapter.release.prefix, "miss_param")[0].read_text().splitlines()}
    for r in report.value_perturbable:
        assert r.value not in r.rewritten and r.original.count(r.value) == 1 and NEUTRAL.split(" ", 1)[1] in r.rewritten
        record = questions[r.new_id]
        assert record["question"][r.turn][0]["content"] == r.rewritten
        assert record["question"][r.turn + 1] == [{"role": "user", "content": r.supplied}]
        assert r.value in r.supplied and "missed_function" not in record


def test_a_value_named_earlier_is_not_removed(made):
    report, _, _ = made
    earlier = [r for r in report.removals if r.reason == EARLIER]
    assert earlier and all(r.value and r.new_id is None for r in earlier)


def test_they_round_trip_as_value_removed_pairs_scoring_100_50_50(adapter, made):
    from twinbench.evaluation.score import score

    report, out, _ = made
    reloaded = BFCLAdapter(constructed=out, constructed_only=True)
    manifest = discover_for(reloaded)
    values = [p for p in manifest.pairs if p.ask_id in {r.new_id for r in report.value_perturbable}]
    assert len(values) == len(report.value_perturbable)
    assert all(p.perturbation is Perturbation.VALUE_REMOVED and p.scored for p in values)
    assert all(p.certification.status is CertificationStatus.UNCERTIFIED for p in values)  # no review read yet
    scores, _ = score(reloaded, (), n_boot=0)
    assert {m.model: round(m.decision, 6) for m in scores.models} == {"oracle": 100.0, "always-act": 50.0,
                                                                       "never-act": 50.0}
    assert all(m.pairs == len(report.verified) == len(manifest.pairs) for m in scores.models)


def test_only_approved_rewrites_are_certified(adapter, made, tmp_path):
    report, out, review = made
    ids = [r.new_id for r in report.value_perturbable]
    filled = _filled(review, tmp_path / "filled.csv", {ids[0]: "yes", ids[1]: "no"})
    again = perturb(adapter, out, values=True, reviewed=filled)
    assert again.certified == (ids[0],) and again.rejected == (ids[1],) and len(again.blank) == len(ids) - 2
    manifest_pairs = {p.ask_id: p for p in discover_for(BFCLAdapter(constructed=out, constructed_only=True)).pairs}
    certified = manifest_pairs[ids[0]].certification
    assert certified.status is CertificationStatus.CERTIFIED and certified.origin == "hand-made"
    assert "filled.csv" in certified.reason
    assert all(manifest_pairs[i].certification.status is CertificationStatus.UNCERTIFIED for i in ids[1:])
    perturb(adapter, out, values=True)  # written anew without a review: no approval survives
    assert not (out / REVIEWED_FILE).exists()


def test_a_stale_or_bad_review_is_one_error(adapter, made, tmp_path):
    report, out, review = made
    first = report.value_perturbable[0].new_id
    bad = _filled(review, tmp_path / "bad.csv", {first: "maybe"})
    with pytest.raises(AdapterError, match="approved must be yes or no"):
        perturb(adapter, tmp_path / "o1", values=True, reviewed=bad)
    rows = review.read_text(encoding="utf-8").replace(NEUTRAL.split(" ", 1)[1], "something else", 1)
    (tmp_path / "stale.csv").write_text(rows, encoding="utf-8")
    with pytest.raises(AdapterError, match="rewritten words differ"):
        perturb(adapter, tmp_path / "o2", values=True, reviewed=tmp_path / "stale.csv")


def test_an_edited_value_removed_item_is_refused(adapter, made, tmp_path):
    import shutil

    report, out, _ = made
    later = next(r for r in report.value_perturbable if r.turn > 0)
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    question = data_files(copy, adapter.release.prefix, "miss_param")[0]
    records = [json.loads(line) for line in question.read_text().splitlines()]
    for record in records:
        if record["id"] == later.new_id:
            record["question"][0] = [{"role": "user", "content": "something else"}]
    question.write_text("".join(json.dumps(r) + "\n" for r in records))
    with pytest.raises(AdapterError, match="one user turn inserted"):
        load_constructed(copy, adapter.release.prefix, {r.id: r for r in adapter.data.raw})
