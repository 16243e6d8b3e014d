"""Tests of analytic.partitioning.counting (configurations counted before they are enumerated)."""

import pytest

from analytic import partitioning as P


@pytest.mark.parametrize("call,match", [
    (lambda: P.machine_symmetries(P.Cluster([2] * 14), limit=10**18),
     r"^limit = 1000000000000000000: must be at most 1000000"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()
