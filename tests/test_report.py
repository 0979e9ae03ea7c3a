"""`twinbench report`: the HTML page, its escaping and determinism, and the page in a real headless browser.

The browser tests drive Debian's ``chromium`` (installed by ``.ci/run``) through the DevTools
protocol (tests/browser.py); they skip, saying why, only when no browser is found. Their
screenshots go to the test's temporary folder and, when ``$TWINBENCH_ARTIFACTS`` names a
folder, are copied there (CI keeps them; the docs' ``docs/assets/report.png`` is one).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from browser import Browser, find_chromium
from builders import tiny_package
from conftest import BFCL_RUNS, need_shared
from test_score import ASK, MKDIR, good_lines, write_run

from twinbench.cli import main
from twinbench.render.html_report import outcome_tags, word_diff
from twinbench.model import PairDecision

HOSTILE_CALL = [{"mkdir": json.dumps({"dir_name": "<script>window.__pwned=1</script>"})}]
HOSTILE_TEXT = "<img src=x onerror=\"window.__pwned=2\"> Which name? </details></div><b>bold</b>"


@pytest.fixture
def release(tmp_path):
    return tiny_package(tmp_path / "release")


def two_models(root: Path) -> Path:
    """``careful`` is right on both pairs; ``eager`` acts blind on miss_param_0 (a hostile call) and says a
    hostile text on miss_func_0; both runs have score files."""
    runs = root / "runs"
    write_run(runs, "careful", good_lines())
    eager = good_lines()
    eager["miss_param"] = [{"id": "multi_turn_miss_param_0", "result": [[HOSTILE_CALL, "Done."], [MKDIR]]}]
    eager["miss_func"] = [{"id": "multi_turn_miss_func_0", "result": [[HOSTILE_TEXT], [MKDIR, "Done."]]}]
    write_run(runs, "eager", eager)
    for model, failed in (("careful", {}), ("eager", {"multi_turn_miss_param_0": {
            "error_type": "multi_turn:instance_state_mismatch", "error_message": "state differs",
            "execution_result": [{}, {}]}})):
        folder = runs / "score" / model / "multi_turn"
        folder.mkdir(parents=True)
        for cat in ("base", "miss_func", "miss_param"):
            ids = [i for i in failed if f"_{cat}_" in i]
            rows = [{"accuracy": 1 - len(ids), "correct_count": 1 - len(ids), "total_count": 1}]
            rows += [{"id": i, "error": failed[i]} for i in ids]
            (folder / f"BFCL_v4_multi_turn_{cat}_score.json").write_text("\n".join(json.dumps(r) for r in rows))
    return runs


def make_report(release, out: Path, *extra: str) -> Path:
    assert main(["report", "--bfcl-root", str(release), "--output", str(out), "--bootstrap", "200", *extra]) == 0
    return out


# --------------------------------------------------------------------------- the page as text


def _decision(**kw) -> PairDecision:
    base = dict(model="m", ask_id="a", act_id="b", category="c", anchor_turn=0, act_anchor_turn=0,
                certification="certified", compound=False, scored=True, missing=None)
    return PairDecision(**{**base, **kw})


def test_outcome_tags():
    assert outcome_tags(_decision(acted=True, held_back=True)) == ("correct",)
    assert outcome_tags(_decision(acted=True, held_back=False)) == ("acted-blind",)
    assert outcome_tags(_decision(acted=False, held_back=True)) == ("missed-action",)
    assert outcome_tags(_decision(acted=False, held_back=False)) == ("acted-blind", "missed-action")
    assert outcome_tags(_decision(scored=False, missing="ask: missing")) == ("unscored",)


def test_word_diff_marks_the_removed_value_on_both_sides():
    act, ask = word_diff("copy them into a 'backup_tests' folder", "copy them into a folder")
    assert [s.text for s in act if s.changed] == ["'backup_tests' "]
    assert not any(s.changed for s in ask)
    assert "".join(s.text for s in act) == "copy them into a 'backup_tests' folder"
    act, ask = word_diff("by crafting a tweet", "by posting a tweet")
    assert [s.text for s in act if s.changed] == ["crafting"] and [s.text for s in ask if s.changed] == ["posting"]


def test_model_output_never_reaches_the_page_as_markup(tmp_path, release):
    page = make_report(release, tmp_path / "r.html", "--results", str(two_models(tmp_path))).read_text()
    assert "<script>window.__pwned" not in page and "<img" not in page and "<b>bold" not in page
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=" in page
    assert page.count("<script>") == 1  # the page's own filter script, nothing else


def test_the_page_is_self_contained_and_deterministic(tmp_path, release):
    runs = two_models(tmp_path)
    first = make_report(release, tmp_path / "a.html", "--results", str(runs)).read_bytes()
    second = make_report(release, tmp_path / "b.html", "--results", str(runs)).read_bytes()
    assert first == second
    text = first.decode()
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", text)  # nothing fetched
    assert not re.search(r"@import|url\(", text)
    assert "default-src 'none'" in text  # and the browser is told to fetch nothing
    for section in ("scores", "charts", "categories", "diagnostics", "pairs"):
        assert f'<section id="{section}">' in text
    assert text.count('<details class="pair"') == 2 and text.count('<svg xmlns') == 2


def _policy(page: str) -> dict[str, list[str]]:
    (content,) = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page)
    return {name: sources for name, *sources in (part.split() for part in content.split(";") if part.strip())}


def _digest(text: str) -> str:
    import base64
    import hashlib

    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


def test_the_policy_allows_the_pages_own_script_and_style_and_nothing_inline_else(tmp_path, release):
    """A hash of exactly the page's own script (and style): an injected one would not run."""
    page = make_report(release, tmp_path / "r.html", "--results", str(two_models(tmp_path))).read_text()
    policy = _policy(page)
    (script,) = re.findall(r"<script>(.*?)</script>", page, re.S)
    (style,) = re.findall(r"<style>(.*?)</style>", page, re.S)
    assert policy["script-src"] == [_digest(script)] and policy["style-src"] == [_digest(style)]
    assert "'unsafe-inline'" not in " ".join(sum(policy.values(), []))
    assert policy["default-src"] == ["'none'"] and policy["base-uri"] == ["'none'"]


FAKE_DOM = """
const fs = require("fs");
const [script, hash] = process.argv.slice(2);
function element(tag) {
  return {tagName: tag, value: "", open: false, hidden: false, textContent: "", addEventListener() {},
          getAttribute() { return ""; }, querySelectorAll() { return []; }, classList: {contains() { return false; }}};
}
const pair = element("DETAILS");
const byId = {"f-model": element("SELECT"), "f-category": element("SELECT"), "f-outcome": element("SELECT"),
              "f-count": element("SPAN"), "f-open": element("BUTTON"), "f-close": element("BUTTON"),
              "multi_turn_miss_param_0": pair, "%": pair};
global.document = {getElementById: (id) => byId[id] || null,
                   querySelectorAll: (selector) => (selector === "details.pair" ? [pair] : [])};
global.location = {hash: hash};
new Function(fs.readFileSync(script, "utf8"))();
console.log(JSON.stringify({count: byId["f-count"].textContent, open: pair.open}));
"""


@pytest.mark.parametrize("fragment, opened", [("#%", True), ("#%E0%A4%A", False), ("#multi_turn_miss_param_0", True),
                                               ("#multi%5Fturn%5Fmiss%5Fparam%5F0", True), ("", False)])
def test_any_fragment_leaves_the_page_working(tmp_path, release, fragment, opened):
    """The page's own script, run by node on a stand-in for the document: an address ending in a
    fragment that is no valid escape (report.html#%) still gets its filters and its pair count."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node to run the page's script with (apt-get install nodejs)")
    page = make_report(release, tmp_path / "r.html", "--results", str(two_models(tmp_path))).read_text()
    (script,) = re.findall(r"<script>(.*?)</script>", page, re.S)
    (tmp_path / "page.js").write_text(script)
    (tmp_path / "dom.js").write_text(FAKE_DOM)
    done = subprocess.run([node, str(tmp_path / "dom.js"), str(tmp_path / "page.js"), fragment],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"count": "0 of 1 pairs shown", "open": opened}


def test_without_results_it_renders_the_reference_policies(tmp_path, release, capsys):
    page = make_report(release, tmp_path / "r.html").read_text()
    for name in ("oracle", "always-act", "never-act"):
        assert f'<tr data-model="{name}">' in page
    assert "reference policies" in page
    assert "report written to" in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [
    (["--output", "{tmp}"], "--output"),
    (["--output", "{tmp}/r.html", "--model", "x"], "--model and --scores need --results"),
    (["--output", "{tmp}/r.html", "--results", "{tmp}/nowhere"], "nowhere"),
    (["--output", "{tmp}/r.html", "--bootstrap", "5"], "--bootstrap"),
])
def test_bad_input_is_one_clear_message(tmp_path, release, capsys, args, message):
    args = [a.format(tmp=tmp_path) for a in args]
    assert main(["report", "--bfcl-root", str(release), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("twinbench: error:") and message in err and "Traceback" not in err


def test_output_is_required(release, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["report", "--bfcl-root", str(release)])
    assert stop.value.code == 2 and "--output" in capsys.readouterr().err


@pytest.fixture(scope="module")
def gpt_oss_page(tmp_path_factory, bfcl_adapter) -> Path:
    """The report on the two published gpt-oss runs, made once for the tests below."""
    runs = need_shared(BFCL_RUNS / "gpt-oss-2025-11")
    out = tmp_path_factory.mktemp("gpt-oss") / "report.html"
    assert main(["report", "--results", str(runs), "--output", str(out), "--bootstrap", "1000"]) == 0
    return out


@pytest.mark.shared
def test_gpt_oss_report_size_and_content(gpt_oss_page):
    out = gpt_oss_page
    page = out.read_text()
    assert out.stat().st_size < 1_200_000  # 223 pairs x 2 models
    assert page.count('<details class="pair"') == 223 and page.count('<div class="run"') == 446
    assert "send_message(receiver_id=&#39;???&#39;)" in page  # miss_param_51's placeholder, checked by hand


# --------------------------------------------------------------------------- in a real browser


@pytest.fixture
def browser():
    executable = find_chromium()
    if executable is None:
        pytest.skip("no Chromium found (install Debian's chromium with `apt-get install -y chromium`, as "
                    ".ci/run does, or name one in $TWINBENCH_CHROMIUM)")
    with Browser(executable) as b:
        yield b


def keep(path: Path, name: str) -> None:
    """Copy a screenshot or page to ``$TWINBENCH_ARTIFACTS`` (what CI keeps), when it names a folder."""
    folder = os.environ.get("TWINBENCH_ARTIFACTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, Path(folder) / name)


VISIBLE = "(el => el.checkVisibility() && el.getClientRects().length > 0)"  # closed details: not visible


def shown_models(b: Browser, selector: str) -> list[str]:
    return b.evaluate(f"Array.from(document.querySelectorAll({json.dumps(selector)}))"
                      f".filter({VISIBLE}).map(el => el.getAttribute('data-model'))")


def choose(b: Browser, select: str, value: str) -> None:
    b.evaluate(f"(() => {{ const s = document.getElementById({json.dumps(select)}); s.value = {json.dumps(value)};"
               " s.dispatchEvent(new Event('change')); })()")


def test_report_in_a_headless_browser(tmp_path, release, browser):
    page = make_report(release, tmp_path / "report.html", "--results", str(two_models(tmp_path)))
    browser.open(page)
    assert browser.console_errors() == []
    assert browser.evaluate("document.title") == "twinbench report"
    # the table lists every model, with its interval
    assert shown_models(browser, "table.scores tbody tr") == ["careful", "eager"]
    assert browser.evaluate("document.querySelector('table.scores .ci').textContent").startswith("[")
    # model output ran nowhere and made no element
    assert browser.evaluate("window.__pwned === undefined && document.images.length === 0 && "
                            "document.scripts.length === 1")
    # filtering a model hides the others everywhere
    choose(browser, "f-model", "careful")
    for selector in ("table.scores tbody tr", "#diagnostics tbody tr", ".badge", "#pairs .run", "p.note[data-model]"):
        assert set(shown_models(browser, selector) or ["careful"]) == {"careful"}, selector
    browser.evaluate("document.querySelectorAll('details.pair').forEach(d => d.open = true)")
    assert set(shown_models(browser, "#pairs .run")) == {"careful"}
    choose(browser, "f-model", "")
    browser.evaluate("document.querySelectorAll('details.pair').forEach(d => d.open = false)")
    # the outcome filter: only eager's acted-blind run, only on its pair
    choose(browser, "f-outcome", "acted-blind")
    assert browser.evaluate("document.getElementById('f-count').textContent") == "1 of 2 pairs shown"
    choose(browser, "f-outcome", "")
    # a pair's drill-down shows its calls once opened (a click on its summary)
    pair = "multi_turn_miss_param_0"
    calls = f"#{pair} .run[data-model=eager] code.call"
    assert browser.evaluate(f"document.querySelectorAll({json.dumps(calls)}).length") >= 1
    assert not browser.evaluate(f"Array.from(document.querySelectorAll({json.dumps(calls)})).some({VISIBLE})")
    browser.evaluate(f"document.querySelector('#{pair} > summary').click()")
    shown = browser.evaluate(f"Array.from(document.querySelectorAll({json.dumps(calls)})).filter({VISIBLE})"
                             ".map(el => [el.textContent, el.className])")
    assert ["mkdir(dir_name='<script>window.__pwned=1</script>')", "call attempt"] in shown
    assert "acted blind" in browser.evaluate(f"document.querySelector('#{pair}').innerText")
    browser.evaluate(f"document.querySelector('#{pair}').scrollIntoView()")
    shot = browser.screenshot(tmp_path / "report.png")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    keep(shot, "report-tiny.png")
    assert browser.console_errors() == []


def test_a_fragment_that_is_no_escape_in_a_headless_browser(tmp_path, release, browser):
    page = make_report(release, tmp_path / "report.html", "--results", str(two_models(tmp_path)))
    browser.call("Page.navigate", {"url": page.resolve().as_uri() + "#%"})
    browser.wait_for("Page.loadEventFired")
    assert browser.console_errors() == []  # it threw URIError, and the pair count never showed
    assert browser.evaluate("document.getElementById('f-count').textContent") == "2 of 2 pairs shown"


def test_the_policy_stops_a_script_that_is_not_the_pages_own(tmp_path, release, browser):
    """Were a script ever to reach the page, the browser would refuse to run it (the hash does not match)."""
    page = make_report(release, tmp_path / "report.html", "--results", str(two_models(tmp_path)))
    tampered = tmp_path / "tampered.html"
    tampered.write_text(page.read_text().replace("<main>", "<main><script>window.__injected = 1;</script>", 1))
    browser.open(tampered)
    assert browser.evaluate("window.__injected === undefined")
    assert any("Content Security Policy" in e for e in browser.console_errors())
    assert browser.evaluate("document.getElementById('f-count').textContent") == "2 of 2 pairs shown"


@pytest.mark.shared
def test_gpt_oss_report_in_a_headless_browser(tmp_path, gpt_oss_page, browser):
    browser.open(gpt_oss_page)
    assert browser.console_errors() == []
    models = ["openai_gpt-oss-120b", "openai_gpt-oss-20b"]
    assert shown_models(browser, "table.scores tbody tr") == models
    top = browser.screenshot(tmp_path / "report.png")
    keep(top, "report.png")
    choose(browser, "f-model", models[1])
    assert set(shown_models(browser, "#pairs .badge")) == {models[1]}
    choose(browser, "f-model", models[0])
    pair = "multi_turn_miss_param_51"
    browser.evaluate(f"document.querySelector('#{pair} > summary').click()")
    shown = browser.evaluate(f"Array.from(document.querySelectorAll('#{pair} .run code.call')).filter({VISIBLE})"
                             ".map(el => [el.textContent, el.className])")
    assert ["send_message(receiver_id='???')", "call attempt placeholder"] in shown
    browser.evaluate(f"document.querySelector('#{pair}').scrollIntoView()")
    keep(browser.screenshot(tmp_path / "report-pair.png"), "report-pair.png")
    assert browser.console_errors() == []


def test_the_score_table_shows_the_ranks_score_shows(tmp_path, release, capsys):
    """A ranked model without official verdicts shows its decision rank, as the note says it is ranked."""
    import re

    out = make_report(release, tmp_path / "policies.html")
    capsys.readouterr()
    page = out.read_text(encoding="utf-8")
    cells = re.findall(r'<tr data-model="(\w[\w-]*)">.*?<td>(none|[\d.]+ / [\d.]+\*?)</td>\s*<td>([^<]*)</td>',
                       page, flags=re.S)
    assert {model: rank for model, _, rank in cells} == {"always-act": "- / 2", "never-act": "- / 2",
                                                          "oracle": "- / 1"}
