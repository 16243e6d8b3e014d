"""The built site as a reader sees it: every page rendered at 1280 x 900 px in headless Chromium.

The expectations are those of the issue "What a new user sees": formulas typeset (by the MathJax the
site serves itself, with no network), no formula of a paper page left as raw TeX, ASCII text or a
code span, no table wider than the page, no code line hidden behind a scroll bar, a top bar of one
row, a left sidebar with links on every page, and no API entry showing the docstring of its
value's type ("Built-in immutable sequence..." for a tuple) instead of a description.

Each page is copied beside itself with a script that waits for the page to load and for MathJax's
typesetting, measures the layout and writes a JSON report into the DOM, which ``--dump-dom`` prints.
Chromium runs with a virtual-time budget (timers are fast-forwarded; no wall-clock limit is
asserted). ``.ci/run`` installs Chromium from the system's packages; where no browser is found the
tests are skipped and say so.
"""

import importlib
import inspect
import json
import os
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

CHROMIUM = next((path for path in (os.environ.get("CHROMIUM"), shutil.which("chromium"), shutil.which("chromium-browser"),
                                   shutil.which("google-chrome")) if path), None)
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium found (chromium, chromium-browser, google-chrome "
                                    "or $CHROMIUM): the pages cannot be rendered; .ci/run installs it with apt-get")
WIDTH, HEIGHT = 1280, 900

#: Measures the page once it is loaded and MathJax has typeset it; the report goes into the DOM.
MEASURE = r"""
<script>
window.addEventListener("load", function () {
  var mathjax = window.MathJax && window.MathJax.startup ? window.MathJax.startup.promise : Promise.resolve();
  mathjax.then(function () { return document.fonts.ready; }).then(measure, measure);
  function skip(node, selector) { return node.parentElement && node.parentElement.closest(selector); }
  function measure() {
    var article = document.querySelector(".bd-article") || document.body;
    var right = article.getBoundingClientRect().right;
    var report = {page: document.documentElement.clientWidth, mathjax: !!(window.MathJax && window.MathJax.version),
                  tables: [], code: [], raw: [], texts: [], codes: [], entries: []};
    article.querySelectorAll("table").forEach(function (table) {
      var box = table.parentElement, rect = table.getBoundingClientRect();
      report.tables.push({width: rect.width, right: rect.right, article_right: right, box: box.clientWidth,
                          box_scroll: box.scrollWidth, columns: table.rows.length ? table.rows[0].cells.length : 0,
                          head: table.rows.length ? table.rows[0].textContent.trim().slice(0, 60) : ""});
    });
    article.querySelectorAll("div.highlight pre").forEach(function (pre) {
      if (pre.closest(".cell_output, .output")) return;
      if (pre.scrollWidth > pre.clientWidth + 1)
        report.code.push({scroll: pre.scrollWidth, width: pre.clientWidth, text: pre.textContent.slice(0, 80)});
    });
    article.querySelectorAll(".math").forEach(function (math) {
      if (!math.querySelector("mjx-container")) report.raw.push(math.textContent.slice(0, 80));
    });
    var walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
    for (var node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent.trim() || skip(node, "script, style, pre, code, mjx-container, .math")) continue;
      report.texts.push(node.textContent);
    }
    article.querySelectorAll("code").forEach(function (code) {
      if (!code.closest("pre")) report.codes.push(code.textContent);
    });
    article.querySelectorAll("dl.py.data, dl.py.attribute").forEach(function (entry) {
      var term = entry.querySelector("dt[id]"), body = entry.querySelector("dd");
      if (term) report.entries.push({id: term.id, text: body ? body.textContent.trim().slice(0, 400) : ""});
    });
    var tops = [], bottoms = [];
    document.querySelectorAll(".bd-header .navbar-brand, .bd-header .navbar-header-items .nav-item, " +
                              ".bd-header .navbar-item").forEach(function (item) {
      var rect = item.getBoundingClientRect();
      if (rect.height > 0) { tops.push(rect.top); bottoms.push(rect.bottom); }
    });
    report.header = {items: tops.length, lowest_top: Math.max.apply(null, tops), highest_bottom: Math.min.apply(null, bottoms)};
    report.sidebar_links = document.querySelectorAll(".bd-sidebar-primary nav.bd-links a").length;
    var out = document.createElement("script");
    out.type = "application/json";
    out.id = "render-report";
    out.textContent = JSON.stringify(report).replace(/</g, "\\u003c");
    document.body.appendChild(out);
  }
});
</script>
"""
REPORT = re.compile(r'<script type="application/json" id="render-report">(.*?)</script>', re.S)


def render(page: Path) -> dict:
    """The layout report of one page, rendered at WIDTH x HEIGHT from a copy beside it (same relative links)."""
    probe = page.with_name(page.stem + ".render-check.html")
    text = page.read_text(encoding="utf-8")
    probe.write_text(text.replace("</body>", MEASURE + "</body>", 1), encoding="utf-8")
    with tempfile.TemporaryDirectory() as profile:
        result = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                                 "--hide-scrollbars", f"--user-data-dir={profile}", f"--window-size={WIDTH},{HEIGHT}",
                                 "--virtual-time-budget=60000", "--dump-dom", probe.as_uri()],
                                capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    found = REPORT.search(result.stdout)
    assert found, f"{page.name}: no layout report (Chromium exit {result.returncode}): {result.stderr[-2000:]}"
    return json.loads(found.group(1))


@pytest.fixture(scope="module")
def reports(built_docs) -> dict[str, dict]:
    """Every page of the site (the generated index and search pages aside), by its path in the site."""
    if CHROMIUM is None:
        pytest.skip("no Chromium found: the pages cannot be rendered")
    pages = sorted(page for page in built_docs.rglob("*.html") if not page.relative_to(built_docs).parts[0].startswith("_")
                   and page.name not in ("genindex.html", "search.html", "py-modindex.html"))
    with ThreadPoolExecutor(max_workers=2) as pool:
        rendered = list(pool.map(render, pages))
    return {page.relative_to(built_docs).as_posix(): report for page, report in zip(pages, rendered, strict=True)}


# --- The checks, each a function of one page's report, so that the last test can show they fail. ---

def overflowing_tables(report: dict) -> list[str]:
    """Tables wider than their box or reaching past the article's right edge (1 px of rounding)."""
    return [f"{t['columns']} columns ({t['head']!r}): {t['width']:.0f} px in {t['box']} px" for t in report["tables"]
            if t["width"] > t["box"] + 1 or t["box_scroll"] > t["box"] + 1 or t["right"] > t["article_right"] + 1]


def hidden_code(report: dict) -> list[str]:
    """Code blocks (not notebook outputs) whose lines scroll sideways."""
    return [f"{c['scroll']} px in {c['width']} px: {c['text']!r}" for c in report["code"]]


#: TeX left as text: delimiters MathJax would have consumed.
RAW_TEX = re.compile(r"\\[()\[\]]|\$[^$\s][^$]*\$|\\(?:frac|sqrt|sum|alpha|lambda|rho|le|ge)\b")


def raw_maths(report: dict) -> list[str]:
    """Maths MathJax did not typeset, and TeX source shown as text."""
    if report["raw"] and not report["mathjax"]:
        return [f"MathJax did not load: {len(report['raw'])} formulas shown as TeX, e.g. {report['raw'][0]!r}"]
    return [f"untypeset: {raw!r}" for raw in report["raw"]] + [f"TeX in the text: {t.strip()[:80]!r}" for t in report["texts"]
                                                               if RAW_TEX.search(t)]


#: A formula written in ASCII or Unicode text (a code span or plain text) rather than maths: a power
#: or subscript (k^p, n_i, E_s), a root, sum, norm, relation sign or arrow, a Greek letter, or a one-letter
#: variable set equal to or compared with something (k = 512, p < 1). Code names such as
#: ``_closed_form_rows`` or ``size=erlang(2)`` do not match.
FORMULA = re.compile(r"\^|(?<![\w])[A-Za-z]_[A-Za-z0-9({]|[√Σ‖≤≥→∈∑]|[α-ωΑ-Ω]|(?<![\w.*])[A-Za-z]\*?\s[=<>]\s")


def formulas_as_text(report: dict) -> list[str]:
    """Text and code spans that hold a formula (checked on the paper pages)."""
    return ([f"text: {t.strip()[:100]!r}" for t in report["texts"] if FORMULA.search(t)]
            + [f"code span: {c!r}" for c in report["codes"] if FORMULA.search(c)])


#: The first lines of the docstrings of Python's built-in types, which autodoc shows for a constant
#: it finds no description of.
BUILTIN = [inspect.getdoc(kind).splitlines()[0] for kind in (tuple, list, dict, set, frozenset, int, float, str, bool, bytes)]


def builtin_docstrings(report: dict) -> list[str]:
    """API entries that show a builtin's docstring, or the docstring of their value's type."""
    found = []
    for entry in report["entries"]:
        texts = list(BUILTIN)
        module, _, name = entry["id"].rpartition(".")
        try:
            value = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError, ValueError):
            value = None      # an attribute of a class, or a name outside the package
        if value is not None and not inspect.isclass(value) and inspect.getdoc(type(value)):
            texts.append(inspect.getdoc(type(value)).splitlines()[0])
        found += [f"{entry['id']}: {entry['text'][:80]!r}" for text in texts if text and text in entry["text"]]
    return found


# --- The site. ---

@needs_chromium
def test_every_formula_is_typeset_offline(reports):
    """MathJax comes from the site itself: the paper and notebook pages' formulas are all typeset."""
    typeset = {path: report for path, report in reports.items() if report["mathjax"]}
    assert {"papers/hesrpt.html", "notebooks/hesrpt.html"} <= set(typeset), sorted(typeset)
    problems = {path: raw_maths(report) for path, report in reports.items() if raw_maths(report)}
    assert not problems, problems


@needs_chromium
def test_no_formula_left_as_text_on_the_paper_pages(reports):
    papers = {path: report for path, report in reports.items() if path.startswith("papers/")}
    assert len(papers) == 6, sorted(papers)
    problems = {path: formulas_as_text(report) for path, report in papers.items() if formulas_as_text(report)}
    assert not problems, problems


@needs_chromium
def test_no_table_wider_than_the_page(reports):
    measured = sum(len(report["tables"]) for report in reports.values())
    assert measured >= 7, f"only {measured} tables measured"    # the five paper pages' and checking's
    assert all(report["page"] == WIDTH for report in reports.values())
    problems = {path: overflowing_tables(report) for path, report in reports.items() if overflowing_tables(report)}
    assert not problems, problems


@needs_chromium
def test_code_lines_fit(reports):
    problems = {path: hidden_code(report) for path, report in reports.items() if hidden_code(report)}
    assert not problems, problems


def header_rows(report: dict) -> bool:
    """Whether the top bar's items (the title, each link, the buttons) wrap: on one row, every item
    starts above the bottom of every other."""
    header = report["header"]
    return header["items"] >= 2 and header["lowest_top"] >= header["highest_bottom"]


@needs_chromium
def test_top_bar_is_one_row_and_the_sidebar_is_never_empty(reports):
    """At 1280 px the top bar's items sit on one row; every page's left sidebar has links, top-level
    pages without sub-pages included."""
    assert all(report["header"]["items"] >= 5 for report in reports.values())   # title, 3 links, More, buttons
    wrapped = {path: report["header"] for path, report in reports.items() if header_rows(report)}
    assert not wrapped, wrapped
    empty = [path for path, report in reports.items() if report["sidebar_links"] == 0]
    assert not empty, empty


@needs_chromium
def test_no_api_entry_shows_a_builtin_docstring(reports):
    entries = sum(len(report["entries"]) for path, report in reports.items() if path.startswith("api/"))
    assert entries >= 14, f"only {entries} data entries found"   # the 14 constants of the issue at least
    problems = {path: builtin_docstrings(report) for path, report in reports.items() if builtin_docstrings(report)}
    assert not problems, problems


@needs_chromium
def test_the_checks_find_what_they_look_for(tmp_path):
    """A page with each fault: a table wider than the page, a code line that scrolls, maths left as TeX
    (no MathJax), a formula in a code span and in the text, a constant with tuple's docstring, a
    header of two rows, no sidebar."""
    page = tmp_path / "faults.html"
    page.write_text(
        "<html><body><header class='bd-header'><div class='navbar-brand'>analytic</div>"
        "<div class='navbar-header-items'><ul><li class='nav-item'>A page</li><li class='nav-item'>Another</li></ul></div>"
        "</header><div class='bd-article' style='width:600px'>"
        "<div><table><tr><td style='white-space:nowrap'>" + "verdict " * 80 + "</td></tr></table></div>"
        "<div class='highlight'><pre style='white-space:pre;overflow:auto'>" + "x = 1  # output " * 20 + "</pre></div>"
        "<p><span class='math'>\\(M\\)</span> served at rate s(k) = k^p, <code>E_s(a) = a^s / s!</code></p>"
        "<dl class='py data'><dt id='analytic.hesrpt.FIGURE4_EXPONENTS'>FIGURE4_EXPONENTS</dt>"
        "<dd><p>Built-in immutable sequence.</p></dd></dl>"
        "</div></body></html>", encoding="utf-8")
    report = render(page)
    assert overflowing_tables(report) and hidden_code(report) and raw_maths(report)
    assert len(formulas_as_text(report)) == 2 and builtin_docstrings(report)
    assert header_rows(report) and report["sidebar_links"] == 0
