"""Tests of analytic.speedup: P1, concavity and the constructors.

References: the constructors are checked against their defining formulas evaluated with mpmath at
50 digits; validation against hand-made sequences that break exactly one condition.
"""

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.errors import InvalidParameterError
from analytic.speedup import SpeedUp

mpmath.mp.dps = 50


def test_values_are_read_only_and_indexed_from_one_server():
    s = SpeedUp([1, 1.8, 2.5, 3, 3.4])
    assert s.d == 5
    assert s.servers.tolist() == [1, 2, 3, 4, 5]
    assert s.increments == pytest.approx([1, 0.8, 0.7, 0.5, 0.4], abs=1e-15)
    with pytest.raises(ValueError, match="read-only"):
        s.values[0] = 2.0


@pytest.mark.parametrize("f,d", [(0.9, 5), (0.5, 8), (1.0, 4), (1e-3, 3)])
def test_amdahl_matches_formula(f, d):
    exact = [float(1 / ((1 - mpmath.mpf(f)) + mpmath.mpf(f) / i)) for i in range(1, d + 1)]
    assert SpeedUp.amdahl(f, d).values == pytest.approx(exact, rel=1e-15)


@pytest.mark.parametrize("a,d", [(0.5, 6), (1.0, 3), (0.1, 10)])
def test_power_matches_formula(a, d):
    exact = [float(mpmath.mpf(i) ** mpmath.mpf(a)) for i in range(1, d + 1)]
    assert SpeedUp.power(a, d).values == pytest.approx(exact, rel=1e-15)


def test_linear_is_linear_and_sublinear_is_not():
    assert SpeedUp.linear(4).is_linear
    assert not SpeedUp.power(0.9, 4).is_linear
    assert SpeedUp.linear(1).values.tolist() == [1.0]


@pytest.mark.parametrize("values,match", [
    ([], r"must hold at least s_1"),
    ([1, np.nan], r"must be finite: s\[2\]=nan"),
    ([1.1, 2], r"must satisfy P1, s\[1\] = 1: s\[1\]=1.1"),
    ([1, 1, 1], r"strictly increasing \(P1\): s\[2\]=1 <= s\[1\]=1"),
    ([1, 2, 1.5], r"strictly increasing \(P1\): s\[3\]=1.5 <= s\[2\]=2"),
    ([1, 1.8, 2.7], r"must be concave: s\[3\]-s\[2\]=0.9 > s\[2\]-s\[1\]=0.8"),
    ([1, 2.5], r"must be concave: s\[2\]-s\[1\]=1.5 > s\[1\]-s\[0\]=1"),
    ([1, 1.8, 2.5, 3, 3.6], r"must be concave: s\[5\]-s\[4\]=0.6 > s\[4\]-s\[3\]=0.5"),
])
def test_invalid_speedups_name_the_first_offending_index(values, match):
    with pytest.raises(InvalidParameterError, match=match):
        SpeedUp(values)


@pytest.mark.parametrize("call,match", [
    (lambda: SpeedUp.amdahl(0.0, 3), r"parallel_fraction = 0: must lie in \(0, 1\]"),
    (lambda: SpeedUp.amdahl(1.5, 3), r"parallel_fraction = 1.5"),
    (lambda: SpeedUp.power(1.2, 3), r"exponent = 1.2: must lie in \(0, 1\]"),
    (lambda: SpeedUp.power(0.0, 3), r"exponent = 0: must lie in"),
    (lambda: SpeedUp.linear(0), r"d = 0: must be a positive integer"),
    (lambda: SpeedUp.linear(2.5), r"d = 2.5: must be a positive integer"),
])
def test_constructor_errors(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


def test_round_off_in_concavity_is_tolerated():
    """Linear up to 3 then flat increments, perturbed by one ulp-scale amount, is accepted."""
    s = SpeedUp([1.0, 2.0, 3.0 + 1e-15, 4.0])
    assert s.d == 4


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0.01, 1.0), min_size=0, max_size=12))
def test_concave_sequences_are_accepted_and_satisfy_p2(raw):
    """Any decreasing positive increments after s_1 = 1 give a valid speed-up with s_i/i non-increasing."""
    increments = np.sort(np.asarray(raw))[::-1]
    s = SpeedUp(np.cumsum(np.concatenate([[1.0], increments])))
    assert np.all(np.diff(s.efficiency) <= 1e-12)
    assert s.efficiency[0] == pytest.approx(1.0, abs=0)
    assert SpeedUp(s.values) == s and hash(SpeedUp(s.values)) == hash(s)
