"""Tests of analytic.fairness.lattice (the lattices of job counts the balance functions are evaluated on)."""

import pytest


@pytest.mark.parametrize("call,match", [
    (lambda: __import__("analytic.fairness", fromlist=["x"]).simplex_lattice(10**6, 1),
     r"^the lattice of 1000000 classes up to 1 jobs needs 1,000,001 states and about 2.98e\+04 GiB"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()
