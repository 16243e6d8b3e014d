"""Tests of analytic.hesrpt.speedups: validated speed-up curves and their derivatives.

References: mpmath derivatives at 50 digits and closed-form derivatives of k^p and Amdahl's law.
"""

import math

import mpmath
import numpy as np
import pytest

from analytic.errors import InvalidParameterError
from analytic.hesrpt import ConcaveSpeedup, as_speedup

mpmath.mp.dps = 50
POINTS = np.array([1e-6, 0.3, 1.0, 2.5, 10.0, 977.0])


@pytest.mark.parametrize("curve,reference", [
    (ConcaveSpeedup.power(0.3), lambda k: k ** mpmath.mpf("0.3")),
    (ConcaveSpeedup.amdahl(0.9), lambda k: 1 / (1 - mpmath.mpf("0.9") + mpmath.mpf("0.9") / k)),
    (ConcaveSpeedup.from_callable(lambda k: np.log1p(k), 1000.0), mpmath.log1p),
])
def test_values_and_derivatives_against_mpmath(curve, reference):
    for k in POINTS:
        assert float(curve(k)) == pytest.approx(float(reference(mpmath.mpf(float(k)))), rel=1e-14)
        assert float(curve.derivative(k)) == pytest.approx(float(mpmath.diff(reference, mpmath.mpf(float(k)))), rel=1e-13)


def test_central_differences_when_the_callable_rejects_complex_input():
    """math.sqrt raises on complex numbers, so the derivative falls back to central differences."""
    curve = ConcaveSpeedup.from_callable(math.sqrt, 100.0, name="sqrt")
    k = np.array([0.5, 3.0, 90.0])
    np.testing.assert_allclose(curve.derivative(k), 0.5 / np.sqrt(k), rtol=1e-9)
    np.testing.assert_allclose(curve(k), np.sqrt(k), rtol=1e-15)
    assert curve.name == "sqrt"


@pytest.mark.parametrize("curve", [ConcaveSpeedup.power(0.7), ConcaveSpeedup.amdahl(0.6),
                                   ConcaveSpeedup.from_callable(lambda k: 1 - np.exp(-k), 50.0)])
def test_inverse_derivative_inverts_the_derivative(curve):
    k = np.array([0.01, 0.7, 3.0, 20.0, 49.0])
    np.testing.assert_allclose(curve.inverse_derivative(curve.derivative(k), 50.0), k, rtol=1e-11)


def test_inverse_derivative_clips_to_the_interval():
    amdahl = ConcaveSpeedup.amdahl(0.5)  # s'(0) = 1/f = 2, s'(10) = 0.5/(5.5)^2
    result = amdahl.inverse_derivative(np.array([3.0, 2.0, 1e-9]), 10.0)
    assert result[0] == 0.0  # steeper than s'(0): no server is worth it
    assert result[1] == pytest.approx(0.0, abs=1e-12)
    assert result[2] == 10.0  # flatter than s'(10): everything
    generic = ConcaveSpeedup.from_callable(lambda k: k / (0.5 * k + 0.5), 10.0)
    np.testing.assert_allclose(generic.inverse_derivative(np.array([3.0, 1e-9]), 10.0), [0.0, 10.0])


def test_as_speedup_accepts_curves_numbers_and_callables():
    curve = ConcaveSpeedup.power(0.5)
    assert as_speedup(curve, 10) is curve
    assert as_speedup(0.5, 10).exponent == 0.5
    assert as_speedup(np.float64(0.25), 10).exponent == 0.25
    assert as_speedup(np.sqrt, 10).exponent is None
    assert repr(curve) == "ConcaveSpeedup(k**0.5)"


def test_amdahl_law_values():
    """Amdahl's law with f = 0.9 (Section 1's example): s(1) = 1, s(10) = 1/(0.1 + 0.09)."""
    s = ConcaveSpeedup.amdahl(0.9)
    assert float(s(1.0)) == pytest.approx(1.0, rel=1e-15)
    assert float(s(10.0)) == pytest.approx(1 / 0.19, rel=1e-15)
    assert float(s(0.0)) == 0.0


@pytest.mark.parametrize("call,match", [
    (lambda: ConcaveSpeedup.power(1.0), r"p = 1: must lie in the open interval \(0, 1\)"),
    (lambda: ConcaveSpeedup.power(float("nan")), "p = nan"),
    (lambda: ConcaveSpeedup.amdahl(0.0), "parallel_fraction = 0"),
    (lambda: as_speedup("fast", 10), "speedup = 'fast': must be a ConcaveSpeedup"),
    (lambda: as_speedup(True, 10), "speedup = True"),
    (lambda: as_speedup(lambda k: k ** 1.5, 10), "must be concave on the tested points: slope on"),
    (lambda: as_speedup(lambda k: -k, 10), r"speedup = -10: must be positive: s\(10\) <= 0"),
    (lambda: as_speedup(lambda k: k * (12 - k), 10), r"must be non-decreasing on the tested points: s\(6\.\d+\) < s\(5\.\d+\)"),
    (lambda: as_speedup(lambda k: np.where(k < 5, k, 7 - 0.4 * k), 10), "must be non-decreasing on the tested points"),
    (lambda: as_speedup(lambda k: k + 1, 10), r"must satisfy s\(0\) = 0"),
    (lambda: as_speedup(lambda k: np.log(k), 10), r"must be finite: s\(0\) is not"),
    (lambda: as_speedup(np.sqrt, 0), "servers = 0: must be positive and finite"),
])
def test_invalid_speedups_raise_a_named_error(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()
