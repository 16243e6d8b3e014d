"""The documentation: the site builds without a warning, and what the README and the site show runs.

The build (``python -m sphinx -W docs ...``, as the README gives it) fails on any warning: a
docstring that numpydoc's validation finds without Parameters, Returns or an Example, a
cross-reference that does not resolve (``nitpicky``), a Markdown link to a page or an anchor that
does not exist. Every ``python`` block of the README and of the site runs alone, in a fresh
namespace; every ``analytic ...`` line of a ``bash`` block runs through the command's entry point
(``pip install`` lines are the install steps CI runs itself).
"""

import contextlib
import importlib
import inspect
import io
import math
import pkgutil
import re
import shlex
from pathlib import Path

import pytest

import analytic
from analytic.cli import main

ROOT = Path(__file__).parents[2]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md",
         *sorted(p for p in DOCS.rglob("*.md") if not p.relative_to(DOCS).parts[0].startswith(("_", "api", "notebooks")))]
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def blocks(language):
    found = []
    for page in PAGES:
        for number, (kind, code) in enumerate(BLOCK.findall(page.read_text(encoding="utf-8"))):
            if kind == language:
                found.append(pytest.param(code, id=f"{page.relative_to(ROOT)}#{number}"))
    return found


def test_the_site_builds_without_a_warning(built_docs):
    """The ``built_docs`` fixture (tests/conftest.py) builds with -W and fails on any warning."""
    assert (built_docs / "api" / "partitioning.html").exists()
    assert (built_docs / "notebooks" / "moldable_jobs.html").exists()


#: A number a comment states: a decimal of three significant digits or more, not after "not " (the
#: paper's wrong value), "..." meaning truncated rather than rounded.
CLAIM = re.compile(r"(?<!not )(?<![\d.^])(\d+\.\d+)(\.\.\.)?")
PRINTED = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def claims(code: str) -> list[tuple[str, bool]]:
    found = []
    for line in code.splitlines():
        for match in CLAIM.finditer(line.partition("#")[2]):
            if len(match.group(1).replace(".", "").lstrip("0")) >= 3:
                found.append((match.group(1), bool(match.group(2))))
    return found


@pytest.mark.parametrize("code", blocks("python"))
def test_python_block_runs_alone_and_prints_what_its_comments_say(code):
    """Each block runs in a fresh namespace; every number its comments state (to the digits shown)
    is among the numbers it prints, so a README value cannot drift from the package's."""
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(code, "<block>", "exec"), {"__name__": "__block__"})
    printed = [float(v) for v in PRINTED.findall(output.getvalue())]
    for text, truncated in claims(code):
        digits = len(text.partition(".")[2])
        shown = [math.floor(v * 10**digits) / 10**digits if truncated else round(v, digits) for v in printed]
        assert any(math.isclose(v, float(text), rel_tol=0, abs_tol=10**-digits / 4) for v in shown), \
            f"a comment says {text}{'...' if truncated else ''}; the block prints {output.getvalue()!r}"


def test_comment_claims_are_found():
    """The rule above reads the comments as intended (rounded, truncated, a paper's wrong value skipped)."""
    assert claims("print(x)   # eq. (16): 0.0513, not 63.5 %; Theorem 8: 0.8639...; y* = (0.2, 0.1)") == [
        ("0.0513", False), ("0.8639", True)]


@pytest.mark.parametrize("code", blocks("bash"))
def test_command_lines_run(code, capsys):
    for line in code.splitlines():
        if line.startswith("pip install "):
            continue
        assert line.startswith("analytic "), f"a bash block of the docs holds {line!r}, which this test cannot run"
        assert main(shlex.split(line)[1:]) == 0, capsys.readouterr().err
        assert capsys.readouterr().out


def test_pages_name_existing_reproduce_rows_and_tests():
    """The "checked by" column of the paper pages names registered row functions and existing test files."""
    from analytic import reproduce

    reproduce._import_all()
    registered = {function.__name__ for function in reproduce._REGISTRY}
    for page in sorted((DOCS / "papers").glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for name in re.findall(r"`(_[a-z0-9_]+)`", text):
            assert name in registered, f"{page.name}: no reproduce row function {name}"
        for path in re.findall(r"(tests/test_\w+\.py)", text):
            assert (ROOT / path).exists(), f"{page.name}: {path} does not exist"


def test_public_properties_have_docstrings():
    """numpydoc validates the callables; the attributes of public classes need a docstring too."""
    missing = []
    for info in pkgutil.walk_packages(analytic.__path__, "analytic."):
        if info.name == "analytic.__main__":
            continue
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if inspect.isclass(obj):
                missing += [f"{info.name}.{name}.{attribute}" for attribute, value in vars(obj).items()
                            if isinstance(value, property) and not attribute.startswith("_") and not inspect.getdoc(value)]
    assert not missing, missing


def test_readme_is_short_and_stays_inside_the_repository():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    for page in PAGES:
        assert "../shared" not in page.read_text(encoding="utf-8"), page
