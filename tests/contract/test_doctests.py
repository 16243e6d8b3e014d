"""Run the examples in the docstrings of every module of the installed package."""

import doctest
import importlib
import pkgutil

import pytest

import analytic

MODULES = [m.name for m in pkgutil.walk_packages(analytic.__path__, prefix="analytic.")
           if m.name not in ("analytic.__main__",)]


#: Modules whose examples take seconds (certified solves): left out of the development lane.
SLOW = {"analytic.ctmc.regions", "analytic.ctmc.separable", "analytic.fairness.three_servers"}


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.slow) if name in SLOW else name for name in MODULES])
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
