"""Tests of analytic.moldable.paper's functions (its rows run in tests/contract/test_reproduce.py)."""

import pytest


@pytest.mark.parametrize("call,match", [
    (lambda: __import__("analytic.moldable.paper", fromlist=["x"]).table1_simulation(
        __import__("analytic.speedup", fromlist=["x"]).SpeedupTable.linear(5), 0.5, 0.1, "gamma", 1, 100, 1),
     r"^law = 'gamma': must be one of 'exponential', 'deterministic', 'mixed_erlang', 'pareto'$"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()
