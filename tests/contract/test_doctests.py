"""Run the examples in the docstrings of every module of the installed package."""

import doctest
import importlib
import pkgutil

import pytest

import analytic

MODULES = [m.name for m in pkgutil.walk_packages(analytic.__path__, prefix="analytic.")
           if m.name not in ("analytic.__main__",)]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
