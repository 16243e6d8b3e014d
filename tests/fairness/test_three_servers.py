"""Tests of analytic.fairness.three_servers (the three-server graphs of Bonald & Comte's Section 5)."""

import pytest


@pytest.mark.parametrize("call,match", [
    (lambda: __import__("analytic.fairness", fromlist=["x"]).three_server_graph([1.0, 0.0, 0.0]),
     r"^server_sets\[1\] = \(1, 2\): must include a server of positive capacity \(capacities = \[1.0, 0.0, 0.0\]\)$"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()
