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
import pkgutil
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import analytic
from analytic.cli import main

ROOT = Path(__file__).parent.parent
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


def test_the_site_builds_without_a_warning(tmp_path):
    result = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "docs", str(tmp_path / "html"),
                             "-d", str(tmp_path / "doctrees")], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "WARNING" not in result.stderr, result.stderr
    assert (tmp_path / "html" / "api" / "partitioning.html").exists()
    assert (tmp_path / "html" / "notebooks" / "moldable_jobs.html").exists()


@pytest.mark.parametrize("code", blocks("python"))
def test_python_block_runs_alone(code):
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, "<block>", "exec"), {"__name__": "__block__"})


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
