"""Tests of analytic.speedup: the table (P1, P2), the curve, the one validation and the conversions.

References: the defining formulas of every constructor evaluated with mpmath at 50 digits; mpmath
derivatives at 50 digits; hand-made sequences that break exactly one condition; the chord of the
interpolation in exact rational arithmetic (fractions.Fraction).
"""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.errors import InvalidParameterError
from analytic.speedup import TOLERANCE, SpeedupCurve, SpeedupTable, as_curve, as_discrete, check_shape

mpmath.mp.dps = 50

#: Increments that make the validator's work hard: exact ties (equal increments, linear pieces),
#: and values spread over nine orders of magnitude (nearly flat tails next to steep heads).
INCREMENTS = st.one_of(st.sampled_from([1.0, 0.5, 0.25, 1e-3]), st.floats(1e-9, 1.0),
                       st.floats(0.999999, 1.0))


def tables(min_size=0, max_size=40):
    """Valid tables: s_1 = 1 followed by non-increasing increments from INCREMENTS."""
    return st.lists(INCREMENTS, min_size=min_size, max_size=max_size).map(
        lambda raw: np.cumsum(np.concatenate([[1.0], np.sort(raw)[::-1]])))


# -- the table --------------------------------------------------------------------------------------


def test_values_are_read_only_and_indexed_from_one_server():
    s = SpeedupTable([1, 1.8, 2.5, 3, 3.4])
    assert s.d == 5
    assert s.servers.tolist() == [1, 2, 3, 4, 5]
    np.testing.assert_allclose(s.increments, [1, 0.8, 0.7, 0.5, 0.4], rtol=4e-16, atol=0)
    with pytest.raises(ValueError, match="read-only"):
        s.values[0] = 2.0


@pytest.mark.parametrize("f,d", [(0.9, 5), (0.5, 8), (1.0, 4), (1e-3, 3)])
def test_amdahl_matches_formula(f, d):
    exact = [float(1 / ((1 - mpmath.mpf(f)) + mpmath.mpf(f) / i)) for i in range(1, d + 1)]
    np.testing.assert_allclose(SpeedupTable.amdahl(f, d).values, exact, rtol=1e-15, atol=0)


@pytest.mark.parametrize("a,d", [(0.5, 6), (1.0, 3), (0.1, 10)])
def test_power_matches_formula(a, d):
    exact = [float(mpmath.mpf(i) ** mpmath.mpf(a)) for i in range(1, d + 1)]
    np.testing.assert_allclose(SpeedupTable.power(a, d).values, exact, rtol=1e-15, atol=0)


def test_linear_is_linear_and_sublinear_is_not():
    assert SpeedupTable.linear(4).is_linear
    assert not SpeedupTable.power(0.9, 4).is_linear
    assert SpeedupTable.linear(1).values.tolist() == [1.0]


@pytest.mark.parametrize("values,match", [
    ([], r"speedup = \[\]: must be a non-empty 1-D sequence of real numbers"),
    ([[1, 2], [3, 4]], r"must be a non-empty 1-D sequence"),
    ([1, "x"], r"must be a non-empty 1-D sequence"),
    ([1, 2j], r"must be a non-empty 1-D sequence"),
    ([1, np.nan], r"must be finite: s\(2\) = nan"),
    ([1.1, 2], r"must satisfy P1, s\(1\) = 1: s\(1\) = 1.1"),
    ([1, 1, 1], r"strictly increasing \(P1\): s\(2\) = 1 <= s\(1\) = 1"),
    ([1, 2, 1.5], r"strictly increasing \(P1\): s\(3\) = 1.5 <= s\(2\) = 2"),
    ([1, 1.8, 2.7], r"must be concave: the slope rises at k = 2, from 0.8 to 0.9$"),
    ([1, 2.5], r"must be concave: the slope rises at k = 1, from 1 to 1.5$"),
    ([1, 1.8, 2.5, 3, 3.6], r"must be concave: the slope rises at k = 4, from 0.5 to 0.6$"),
])
def test_invalid_speedups_name_the_first_offending_index(values, match):
    with pytest.raises(InvalidParameterError, match=match):
        SpeedupTable(values)


@pytest.mark.parametrize("call,match", [
    (lambda: SpeedupTable.amdahl(0.0, 3), r"parallel_fraction = 0: must lie in \(0, 1\]"),
    (lambda: SpeedupTable.amdahl(1.5, 3), r"parallel_fraction = 1.5"),
    (lambda: SpeedupTable.amdahl("half", 3), r"parallel_fraction = 'half'"),
    (lambda: SpeedupTable.power(1.2, 3), r"exponent = 1.2: must lie in \(0, 1\]"),
    (lambda: SpeedupTable.power(0.0, 3), r"exponent = 0: must lie in"),
    (lambda: SpeedupTable.linear(0), r"d = 0: must be a positive integer"),
    (lambda: SpeedupTable.linear(2.5), r"d = 2.5: must be a positive integer"),
])
def test_constructor_errors(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


def test_round_off_in_concavity_is_tolerated_and_a_real_rise_is_not():
    """Linear up to 3 then flat increments: a rise of 1e-15 is round-off, one of 1e-9 a defect."""
    assert SpeedupTable([1.0, 2.0, 3.0 + 1e-15, 4.0]).d == 4
    with pytest.raises(InvalidParameterError, match="the slope rises at k = 3"):
        SpeedupTable([1.0, 2.0, 3.0, 4.0 + 1e-9])


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(tables())
def test_concave_sequences_are_accepted_and_satisfy_p2(values):
    """Any non-increasing positive increments after s_1 = 1 give a valid table with s_i/i non-increasing (P2)."""
    s = SpeedupTable(values)
    assert np.all(np.diff(s.efficiency) <= 4e-16 * s.efficiency[1:])
    assert s.efficiency[0] == 1.0
    assert SpeedupTable(s.values) == s and hash(SpeedupTable(s.values)) == hash(s)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(tables(min_size=2), st.data())
def test_a_rise_in_the_increments_is_rejected_at_its_index(values, data):
    """Raising one increment above its predecessor by a relative 1e-9 or more, and by at least ten
    times the validator's slack (1e-12 of the largest value so far), is caught, at that index."""
    increments = np.diff(values, prepend=0.0)
    j = data.draw(st.integers(1, len(increments) - 1), label="index")        # increment of s_(j+1)
    rise = max(increments[j - 1] * data.draw(st.floats(1e-9, 1.0), label="relative rise"),
               10 * TOLERANCE * float(np.max(values)))
    increments[j] = increments[j - 1] + rise
    with pytest.raises(InvalidParameterError, match=rf"must be concave: the slope rises at k = {j}, "):
        SpeedupTable(np.cumsum(increments))


# -- the curve --------------------------------------------------------------------------------------

POINTS = np.array([1e-6, 0.3, 1.0, 2.5, 10.0, 977.0])


@pytest.mark.parametrize("curve,reference", [
    (SpeedupCurve.power(0.3), lambda k: k ** mpmath.mpf("0.3")),
    (SpeedupCurve.amdahl(0.9), lambda k: 1 / (1 - mpmath.mpf("0.9") + mpmath.mpf("0.9") / k)),
    (SpeedupCurve.from_callable(lambda k: np.log1p(k), 1000.0), mpmath.log1p),
])
def test_curve_values_and_derivatives_against_mpmath(curve, reference):
    values = [float(reference(mpmath.mpf(float(k)))) for k in POINTS]
    slopes = [float(mpmath.diff(reference, mpmath.mpf(float(k)))) for k in POINTS]
    np.testing.assert_allclose(curve(POINTS), values, rtol=1e-14, atol=0)
    np.testing.assert_allclose(curve.derivative(POINTS), slopes, rtol=1e-13, atol=0)


@pytest.mark.parametrize("servers", [5e-324, 2.2e-308, 1e-300, 1.7e308])
def test_from_callable_on_intervals_at_the_ends_of_the_double_range(servers):
    """servers = 5e-324 made the geometric test points start at 0 (a raw ValueError from numpy.geomspace)."""
    curve = SpeedupCurve.from_callable(np.log1p, servers)
    values = [float(mpmath.log1p(mpmath.mpf(float(k)))) for k in POINTS]
    np.testing.assert_allclose(curve(POINTS), values, rtol=1e-14, atol=0)
    with pytest.raises(InvalidParameterError, match=r"must be positive: s\([0-9.e+-]+\) = -[0-9.e+-]+ <= 0"):
        SpeedupCurve.from_callable(lambda k: -k, servers)


def test_central_differences_when_the_callable_rejects_complex_input():
    """math.sqrt raises on complex numbers, so the derivative falls back to central differences."""
    curve = SpeedupCurve.from_callable(math.sqrt, 100.0, name="sqrt")
    k = np.array([0.5, 3.0, 90.0])
    np.testing.assert_allclose(curve.derivative(k), 0.5 / np.sqrt(k), rtol=1e-9, atol=0)
    np.testing.assert_allclose(curve(k), np.sqrt(k), rtol=1e-15, atol=0)
    assert curve.name == "sqrt"


@pytest.mark.parametrize("curve", [SpeedupCurve.power(0.7), SpeedupCurve.amdahl(0.6),
                                   SpeedupCurve.from_callable(lambda k: 1 - np.exp(-k), 50.0)])
def test_inverse_derivative_inverts_the_derivative(curve):
    k = np.array([0.01, 0.7, 3.0, 20.0, 49.0])
    np.testing.assert_allclose(curve.inverse_derivative(curve.derivative(k), 50.0), k, rtol=1e-11, atol=0)


def test_inverse_derivative_clips_to_the_interval():
    amdahl = SpeedupCurve.amdahl(0.5)  # s'(0) = 1/f = 2, s'(10) = 0.5/(5.5)^2
    result = amdahl.inverse_derivative(np.array([3.0, 2.0, 1e-9]), 10.0)
    assert result[0] == 0.0  # steeper than s'(0): no server is worth it
    assert result[1] == pytest.approx(0.0, abs=1e-12)
    assert result[2] == 10.0  # flatter than s'(10): everything
    generic = SpeedupCurve.from_callable(lambda k: k / (0.5 * k + 0.5), 10.0)
    np.testing.assert_array_equal(generic.inverse_derivative(np.array([3.0, 1e-9]), 10.0), [0.0, 10.0])


def test_amdahl_law_values():
    """Amdahl's law with f = 0.9 (Section 1's example): s(1) = 1, s(10) = 1/(0.1 + 0.09)."""
    s = SpeedupCurve.amdahl(0.9)
    assert float(s(1.0)) == pytest.approx(1.0, rel=1e-15, abs=0)
    assert float(s(10.0)) == pytest.approx(1 / 0.19, rel=1e-15, abs=0)
    assert float(s(0.0)) == 0.0


@pytest.mark.parametrize("call,match", [
    (lambda: SpeedupCurve.power(1.0), r"p = 1: must lie in the open interval \(0, 1\)"),
    (lambda: SpeedupCurve.power(float("nan")), "p = nan"),
    (lambda: SpeedupCurve.power("0.5"), "p = '0.5': must lie in the open interval"),
    (lambda: SpeedupCurve.amdahl(0.0), "parallel_fraction = 0"),
    (lambda: SpeedupCurve.from_callable(lambda k: k ** 1.5, 10), r"must be concave: the slope rises at k = "),
    (lambda: SpeedupCurve.from_callable(lambda k: -k, 10), r"speedup = '<lambda>': must be positive: s\(10\) = -10 <= 0"),
    (lambda: SpeedupCurve.from_callable(lambda k: k * (12 - k), 10),
     r"must be non-decreasing: s\(6\.\d+\) = [\d.]+ < s\(5\.\d+\) = [\d.]+$"),
    (lambda: SpeedupCurve.from_callable(lambda k: np.where(k < 5, k, 7 - 0.4 * k), 10), "must be non-decreasing"),
    (lambda: SpeedupCurve.from_callable(lambda k: k + 1, 10), r"must satisfy s\(0\) = 0 .*: s\(0\) = 1$"),
    (lambda: SpeedupCurve.from_callable(lambda k: np.log(k), 10), r"must be finite: s\(0\) = -inf"),
    (lambda: SpeedupCurve.from_callable(np.sqrt, 0), "servers = 0: must be positive and finite"),
])
def test_invalid_curves_raise_a_named_error(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


# -- one validation, the same words for both forms ---------------------------------------------------

BASE = np.concatenate([[1.0], 1.0 - 0.01 * np.arange(1, 64)]).cumsum()  # s_1..s_64, increments 1, 0.99, ...


def as_table_and_curve(values, defect=None):
    """The same 64 numbers as a table and as a callable checked on [0, 64] (its test points include 0..64)."""
    knots, heights = np.arange(65.0), np.concatenate([[0.0], values])

    def curve(k):
        result = np.interp(k, knots, heights)
        return result if defect is None else np.where(k == defect, np.nan, result)
    return lambda: SpeedupTable(values if defect is None else np.where(np.arange(1, 65) == defect, np.nan, values)), \
        lambda: SpeedupCurve.from_callable(curve, 64.0, name="table")


@pytest.mark.parametrize("change,condition", [
    (lambda s: s + np.where(np.arange(1, 65) >= 41, 0.5, 0.0), "must be concave: the slope rises at k = 40, from 0.61 to 1.1"),
    ("nan at 10", "must be finite: s(10) = nan"),
])
def test_one_validator_gives_the_same_message_for_a_table_and_a_curve(change, condition):
    """A defect at a server count reads the same whether it comes as a table or as a curve."""
    values = change(BASE.copy()) if callable(change) else BASE
    table, curve = as_table_and_curve(values, defect=10 if change == "nan at 10" else None)
    for build in (table, curve):
        with pytest.raises(InvalidParameterError) as error:
            build()
        assert error.value.condition == condition


def test_a_fall_is_a_p1_failure_for_a_table_and_a_monotonicity_failure_for_a_curve():
    """P1 asks a table to increase strictly; a curve may level off (numerically flat tails), not fall."""
    falling = BASE - np.where(np.arange(1, 65) >= 41, 1.0, 0.0)  # s_41 - s_40 = 0.6 - 1
    table, curve = as_table_and_curve(falling)
    with pytest.raises(InvalidParameterError) as error:
        table()
    assert error.value.condition == "must be strictly increasing (P1): s(41) = 31.8 <= s(40) = 32.2"
    with pytest.raises(InvalidParameterError) as error:
        curve()
    assert error.value.condition == "must be non-decreasing: s(41) = 31.8 < s(40) = 32.2"
    SpeedupCurve.from_callable(lambda k: np.minimum(k, 3.0), 10.0)  # flat beyond 3: a valid curve


def test_check_shape_scales_its_slack_with_the_values():
    """A rise of 1e-13 relative to the values is round-off, at any scale; 1e-11 is not."""
    for scale in (1e-200, 1.0, 1e200):
        points = np.arange(4.0)
        check_shape(points, scale * np.array([0.0, 1.0, 2.0, 3.0 + 1e-13]), strict=True)
        with pytest.raises(InvalidParameterError, match="the slope rises at k = 2"):
            check_shape(points, scale * np.array([0.0, 1.0, 2.0, 3.0 + 1e-11]), strict=True)


# -- conversions ------------------------------------------------------------------------------------


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(tables(), st.lists(st.floats(0.0, 50.0), min_size=1, max_size=10))
def test_table_to_curve_and_back_is_the_identity(values, points):
    """from_discrete then from_curve returns the same table; the curve is the chord (Fraction arithmetic)."""
    table = SpeedupTable(values)
    curve = SpeedupCurve.from_discrete(table)
    assert SpeedupTable.from_curve(curve) == table and SpeedupTable.from_curve(curve, table.d) == table
    assert curve.d == table.d and curve.discrete == table
    heights = [Fraction(0)] + [Fraction(v) for v in table.values]
    for k in points:
        i = min(int(k), table.d)
        low, high = heights[i], heights[min(i + 1, table.d)]
        expected = float(low + (Fraction(k) - i) * (high - low)) if i < table.d else float(heights[-1])
        assert float(curve(k)) == pytest.approx(expected, rel=1e-15, abs=0)
    np.testing.assert_array_equal(curve(np.arange(table.d + 1.0)), np.concatenate([[0.0], table.values]))


def test_interpolation_derivative_and_its_inverse():
    """Left slope at a knot, 0 beyond d; the inverse counts the segments at least as steep as the slope."""
    curve = SpeedupCurve.from_discrete([1, 1.8, 2.5])
    np.testing.assert_allclose(curve.derivative(np.array([0.0, 0.5, 1.0, 1.5, 2.0, 2.7, 3.0, 3.1])),
                               [1, 1, 1, 0.8, 0.8, 0.7, 0.7, 0], rtol=4e-16, atol=0)
    np.testing.assert_array_equal(curve.inverse_derivative(np.array([2.0, 1.0, 0.8, 0.75, 0.7, 0.1, 0.0]), 10.0),
                                  [0, 1, 2, 2, 3, 3, 10])
    np.testing.assert_array_equal(curve.inverse_derivative(np.array([0.1]), 2.5), [2.5])


@pytest.mark.parametrize("curve,table,d", [
    (SpeedupCurve.amdahl(0.9), lambda d: SpeedupTable.amdahl(0.9, d), 8),
    (SpeedupCurve.power(0.4), lambda d: SpeedupTable.power(0.4, d), 12),
])
def test_curve_to_table_samples_at_integers(curve, table, d):
    """Sampled Amdahl / power curves are the tables of the same law; back to a curve they agree at 0..d
    and lie below between the integers (concavity), and stay at s(d) beyond d."""
    sampled = SpeedupTable.from_curve(curve, d)
    np.testing.assert_allclose(sampled.values, table(d).values, rtol=4e-16, atol=0)
    back = SpeedupCurve.from_discrete(sampled)
    integers = np.arange(d + 1.0)
    np.testing.assert_allclose(back(integers), curve(integers), rtol=1e-15, atol=0)
    between = np.linspace(0.0, d, 1001)
    assert np.all(back(between) <= curve(between) * (1 + 1e-15))
    assert float(back(0.5)) < float(curve(0.5)) * (1 - 1e-3)  # strictly below between the integers
    np.testing.assert_array_equal(back(np.array([d + 0.5, 1e9])), [sampled.values[-1]] * 2)


def test_curve_to_table_normalises_to_s1_equal_1():
    """log(1 + k) has s(1) = log 2: the table is log(1 + i)/log 2 (mpmath)."""
    sampled = SpeedupTable.from_curve(np.log1p, 6)
    expected = [float(mpmath.log1p(i) / mpmath.log(2)) for i in range(1, 7)]
    np.testing.assert_allclose(sampled.values, expected, rtol=4e-16, atol=0)


@pytest.mark.parametrize("call,match", [
    (lambda: SpeedupTable.from_curve(SpeedupCurve.power(0.5)), r"d = None: must be given: a curve does not say"),
    (lambda: SpeedupTable.from_curve(SpeedupCurve.power(0.5), 0), r"d = 0: must be a positive integer"),
    (lambda: SpeedupTable.from_curve(SpeedupCurve.from_discrete([1, 2]), 3),
     r"must be strictly increasing \(P1\): s\(3\) = 2 <= s\(2\) = 2"),
    (lambda: SpeedupTable.from_curve(lambda k: np.minimum(k, 2.0), 3), r"must be strictly increasing \(P1\): s\(3\)"),
    (lambda: as_discrete(SpeedupCurve.amdahl(0.5)), r"speedup = SpeedupCurve\(amdahl\(f=0.5\)\): is a curve "
                                                     r"without a largest server count d"),
    (lambda: as_discrete("fast"), r"speedup = 'fast': must be a SpeedupTable"),
    (lambda: as_discrete(None), r"speedup = None: must be a SpeedupTable"),
    (lambda: as_discrete([1, 3]), r"must be concave"),
    (lambda: as_curve("fast", 10), r"speedup = 'fast': must be a SpeedupCurve, a SpeedupTable"),
    (lambda: as_curve(True, 10), r"speedup = True"),
    (lambda: as_curve(np.sqrt), r"servers = None: must be given to validate a callable"),
])
def test_conversion_errors(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


def test_coercions_accept_every_form():
    table = SpeedupTable([1, 1.8, 2.5])
    curve = SpeedupCurve.power(0.5)
    assert as_curve(curve, 10) is curve
    assert as_curve(0.5, 10) == curve and as_curve(np.float64(0.25), 10).exponent == 0.25
    assert as_curve(np.sqrt, 10).exponent is None
    assert as_curve(table) == as_curve([1, 1.8, 2.5]) == as_curve(np.array([1, 1.8, 2.5])) == SpeedupCurve.from_discrete(table)
    assert as_discrete(table) is table and as_discrete((1, 1.8, 2.5)) == table
    assert as_discrete(SpeedupCurve.from_discrete(table)) is table
    assert repr(curve) == "SpeedupCurve(k**0.5)"
    assert repr(as_curve(table)) == "SpeedupCurve(interpolation of SpeedupTable([1.0, 1.8, 2.5]))"


@pytest.mark.parametrize("call,match", [
    (lambda: __import__("analytic.speedup", fromlist=["x"]).SpeedupTable.power(1e-300, 5),
     r"^exponent = 1e-300: gives a table that must be strictly increasing \(P1\)"),
    (lambda: __import__("analytic.speedup", fromlist=["x"]).SpeedupTable.from_curve(lambda k: k ** 0.5, 10**18),
     r"a speed-up table with d = 1,000,000,000,000,000,000 needs"),
    (lambda: __import__("analytic.speedup", fromlist=["x"]).as_curve(0.5, servers="abc"),
     r"^servers = 'abc': must be positive and finite$"),
    (lambda: __import__("analytic.speedup", fromlist=["x"]).SpeedupTable.from_curve(0.5, 10**11),
     r"^a speed-up table with d = 100,000,000,000 needs 100,000,000,000 states and about 8.94e\+03 GiB"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()


@pytest.mark.parametrize("build, name", [
    (lambda: __import__("analytic.speedup", fromlist=["x"]).SpeedupCurve.from_callable(lambda k: k["x"], 10.0),
     "function"),
])
def test_an_exception_from_a_user_callable_is_wrapped_naming_the_input(build, name):
    """One rule for user callables (analytic.validation.user_code), as CTMC.from_function: a raw ValueError from
    flow_time(..., lambda x: "equi", ...) or a user's own exception became InvalidParameterError naming the input."""
    with pytest.raises(InvalidParameterError, match=f"^{name} = "):
        build()


@pytest.mark.parametrize("build", [
    lambda n: __import__("analytic.speedup", fromlist=["x"]).SpeedupTable.linear(n),
])
def test_counts_beyond_the_float_range_are_refused_as_too_large(build):
    """A count of 10**400 (servers, sample size, batches, d) raised a raw OverflowError where its table's bytes were
    estimated in floats before the memory check; like 10**12, it is refused before anything is allocated."""
    from analytic.errors import StateSpaceTooLargeError

    for count in (10**12, 10**400):
        with pytest.raises(StateSpaceTooLargeError, match="needs .* of memory, more than the"):
            build(count)
