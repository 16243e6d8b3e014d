"""Tests of analytic.reproduce's own functions (its rows run in tests/contract/test_reproduce.py)."""

import pytest


@pytest.mark.parametrize("call,match", [
    (lambda: __import__("analytic.reproduce", fromlist=["x"]).collect(None),
     r"^select = None: must be a string"),
    (lambda: __import__("analytic.reproduce", fromlist=["x"]).verdict_table(["holds"]),
     r"^verdicts = \['holds'\]: must be a non-empty sequence of Verdict \(entry 0 is a str\)$"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()
