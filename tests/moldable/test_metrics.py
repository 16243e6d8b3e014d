"""Tests of analytic.moldable.metrics (greedy(p)'s exact metrics)."""

import pytest


@pytest.mark.parametrize("call,match", [
    # n = 10^18 under greedy (p = (0, 1)) and under p = (1/2, 1/2): Erlang's loss system beyond the slots its
    # closed form is evaluated for, or a simplex of about n²/4 points, refused before the allocation table or
    # the count of the simplex's points
    (lambda: __import__("analytic.moldable", fromlist=["x"]).greedy_metrics(
        __import__("analytic.speedup", fromlist=["x"]).SpeedupTable([1, 1.8]), 0.5, 10**18, p="greedy"),
     r"^servers = 1000000000000000000: must be at most 1e\+15 x 2: every job holds 2 servers, so greedy\(p\) is "
     r"Erlang's loss system"),
    (lambda: __import__("analytic.moldable", fromlist=["x"]).greedy_metrics(
        __import__("analytic.speedup", fromlist=["x"]).SpeedupTable([1, 1.8]), 0.5, 10**18, p=[0.5, 0.5]),
     r"^the greedy\(p\) chain, built and solved, needs at least [0-9,]{25} states and about"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()
