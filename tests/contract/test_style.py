"""The code style configured in pyproject.toml holds (ruff)."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]


def test_ruff_check_is_clean():
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "analytic", "tests", "benchmarks", "docs"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_every_comparison_states_its_absolute_tolerance():
    """pytest.approx adds an absolute 1e-12 and numpy's allclose/isclose an atol of 1e-8 unless told
    otherwise, so a relative tolerance on a small value holds nothing: every call states its own."""
    import ast

    loose, files = [], sorted((ROOT / "tests").rglob("*.py"))
    assert len(files) > 90, "the test files were not found"
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute | ast.Name):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
                owner = getattr(node.func, "value", None)
                needed = {"approx": "abs", "allclose": "atol", "isclose": "atol"}.get(name)
                if needed and not (isinstance(owner, ast.Name) and owner.id == "math") and needed not in {
                        k.arg for k in node.keywords}:
                    loose.append(f"{path.relative_to(ROOT)}:{node.lineno} {name} without {needed}")
    assert not loose, "\n".join(loose)


def test_tests_are_laid_out_like_the_package():
    """tests/<package>/test_<module>.py for each subpackage of analytic, tests/test_<module>.py for its
    top-level modules, and tests/contract/ for what holds across the package (bad input, docs,
    doctests, notebooks, reproduce, renames, style)."""
    packages = {p.name for p in (ROOT / "analytic").iterdir() if (p / "__init__.py").exists()}
    folders = {p.name for p in (ROOT / "tests").iterdir() if p.is_dir() and not p.name.startswith((".", "_"))}
    assert folders - packages == {"contract"}, folders - packages
    assert not [p.name for p in (ROOT / "tests").glob("test_*.py")
                if not (ROOT / "analytic" / f"{p.stem.removeprefix('test_')}.py").exists()
                and not (ROOT / "analytic" / f"_{p.stem.removeprefix('test_')}.py").exists()]
