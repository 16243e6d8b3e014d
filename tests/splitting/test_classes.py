"""Tests of analytic.splitting.classes (the job classes of Anselmi & Doncel's model)."""

import pytest


@pytest.mark.parametrize("call,match", [
    (lambda: __import__("analytic.splitting", fromlist=["x"]).RigidClass(1, 1.0, 1.0, size_std="abc"),
     r"^size_std = 'abc': must be a real number$"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()
