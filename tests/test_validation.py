"""Tests of the shared parameter checks of analytic.validation (messages name parameter, value, condition)."""

import sys
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from analytic.errors import InvalidParameterError
from analytic.validation import as_number, integer, numeric_array, positive, real, real_array, unit_fraction, user_code


@pytest.mark.parametrize("value", [3, np.int64(3)])
def test_integer_accepts_python_and_numpy_integers(value):
    assert integer("n", value) == 3 and type(integer("n", value)) is int


@pytest.mark.parametrize("value,minimum,match", [
    (0, 1, r"n = 0: must be a positive integer$"),
    (True, 1, r"n = True: must be a positive integer"),
    (2.0, 1, r"n = 2: must be a positive integer"),
    (4, 5, r"n = 4: must be an integer >= 5 \(d\)$"),
])
def test_integer_rejects(value, minimum, match):
    with pytest.raises(InvalidParameterError, match=match):
        integer("n", value, minimum=minimum, meaning=" (d)" if minimum == 5 else "")


@pytest.mark.parametrize("value", [0, -1.5, float("nan"), float("inf"), "1", True])
def test_positive_rejects(value):
    with pytest.raises(InvalidParameterError, match=r"^rate = .*: must be positive and finite$"):
        positive("rate", value)


def test_positive_returns_float():
    assert positive("rate", np.float32(0.5)) == 0.5 and positive("rate", 2) == 2.0


@pytest.mark.parametrize("value,closed,match", [
    (0, False, r"^p = 0: must lie in the open interval \(0, 1\)$"),
    (1, False, r"^p = 1: must lie in the open interval \(0, 1\)$"),
    (1.5, True, r"^p = 1.5: must lie in \(0, 1\]$"),
    (float("nan"), True, r"^p = nan"),
    ("0.5", False, r"^p = '0.5'"),
    (True, True, r"^p = True"),
])
def test_unit_fraction_rejects(value, closed, match):
    with pytest.raises(InvalidParameterError, match=match):
        unit_fraction("p", value, closed=closed)


def test_unit_fraction_returns_float():
    assert unit_fraction("p", np.float32(0.5)) == 0.5 and unit_fraction("p", 1, closed=True) == 1.0
    assert type(unit_fraction("p", 1, closed=True)) is float


# A Python int is a real number when a float holds it; beyond the float range the message says so.


@pytest.mark.parametrize("value", [10**30, np.array(10**30), np.array(10**30, dtype=object)])
def test_large_integers_are_real(value):
    # expected: float(10**30), the nearest double, exactly
    assert positive("rate", value) == 1e30
    assert real("rate", value) == 1e30
    assert as_number(value) == 10**30


def test_large_integer_entries_are_real():
    assert real_array("rates", [10**30, 10**30]).tolist() == [1e30, 1e30]    # numpy holds these as objects
    assert real_array("rates", np.array([10**30, 1], dtype=object)).tolist() == [1e30, 1.0]


@pytest.mark.parametrize("check,condition", [
    (lambda v: real("x", v), "must be a finite real number"),
    (lambda v: real("x", v, allow_infinite=True), "must be a real number"),
    (lambda v: positive("x", v), "must be positive and finite"),
    (lambda v: real_array("x", [1.0, v]), "must be a real number or an array of real numbers: an entry's"),
])
@pytest.mark.parametrize("value", [10**400, -(10**400), Fraction(10**400, 3)])
def test_numbers_beyond_the_float_range_are_refused_clearly(check, condition, value):
    with pytest.raises(InvalidParameterError, match=rf"^x = .*: {condition}.* magnitude exceeds the largest float, "
                                                    r"1\.798e\+308( \(it is about (1|3\.33)e\+(400|399)\))?$") as error:
        check(value)
    assert error.value.parameter == "x" and error.value.value in (value, [1.0, value])


def test_integers_beyond_64_bits_are_refused_by_numeric_arrays():
    with pytest.raises(InvalidParameterError, match=r"^counts = \[1, 100000.*: must be integers \(an entry exceeds "
                                                    r"the 64-bit integer range\)$"):
        numeric_array("counts", [1, 10**30], "must be integers")
    assert numeric_array("counts", [1, 2**62], "must be integers").dtype.kind == "i"


# Decimals and Fractions beyond either end of the float range: Decimal('1e-400') became 0.0 (a positive rate
# was refused as non-positive, a unit fraction Fraction(1, 10**400) returned as 0.0) and Decimal('1e400') inf.
# Reference: the range of IEEE doubles, from sys.float_info (max 1.798e308, least subnormal 4.94e-324).

LEAST = sys.float_info.min * sys.float_info.epsilon
BELOW = r"its magnitude, about 1e-400, underflows the float range: it is below the least positive float, 4\.941e-324, " \
        r"and would round to 0$"
ABOVE = r"its magnitude exceeds the largest float, 1\.798e\+308 \(it is about 1e\+400\)$"


def test_the_float_range_of_the_messages():
    assert f"{LEAST:.4g}" == "4.941e-324" and f"{sys.float_info.max:.4g}" == "1.798e+308"
    assert Fraction(1, 10**400) < Fraction(LEAST) / 2 and Fraction(10**400) > Fraction(sys.float_info.max)


@pytest.mark.parametrize("value,end", [
    (Decimal("1e-400"), BELOW), (Fraction(1, 10**400), BELOW), (Decimal("-1e-400"), BELOW),
    (Decimal("1e400"), ABOVE), (Fraction(10**400), ABOVE), (Decimal("-1e400"), ABOVE),
])
@pytest.mark.parametrize("check,condition", [
    (lambda v: positive("x", v), "must be positive and finite"),
    (lambda v: real("x", v), "must be a finite real number"),
    (lambda v: real("x", v, allow_infinite=True), "must be a real number"),
])
def test_decimals_and_fractions_beyond_either_end_of_the_float_range_are_refused_by_magnitude(value, end, check, condition):
    with pytest.raises(InvalidParameterError, match=rf"^x = .*: {condition}: {end}") as error:
        check(value)
    assert error.value.parameter == "x" and error.value.value == value


@pytest.mark.parametrize("value", [Decimal("1e-400"), Fraction(1, 10**400), np.array(Decimal("1e-400"))])
def test_a_unit_fraction_below_the_float_range_is_refused_not_zero(value):
    with pytest.raises(InvalidParameterError, match=rf"^p = .*: must lie in the open interval \(0, 1\): {BELOW}"):
        unit_fraction("p", value)


@pytest.mark.parametrize("entry,end", [(Decimal("1e-400"), BELOW), (Fraction(1, 10**400), BELOW), (Decimal("1e400"), ABOVE)])
@pytest.mark.parametrize("allow", [False, True])
def test_array_entries_beyond_the_float_range_are_refused_by_index(entry, end, allow):
    with pytest.raises(InvalidParameterError, match=rf"^x = \[\[1, .*: must be a real number or an array of real numbers: "
                                                    rf"the entry at index \(0, 1\): {end}"):
        real_array("x", [[1, entry]], allow_infinite=allow, allow_nan=allow)


def test_decimals_in_the_float_range_are_their_nearest_floats():
    """The subnormal range is in range: Decimal('1e-320') is the double nearest 10^-320 (from its rational value)."""
    assert positive("x", Decimal("1e-320")) == float(Fraction(1, 10**320)) > 0
    assert real("x", Decimal("-0")) == 0 and real("x", Decimal("Infinity"), allow_infinite=True) == float("inf")
    assert real_array("x", [Decimal("0.5"), Fraction(1, 4)]).tolist() == [0.5, 0.25]
    with pytest.raises(InvalidParameterError, match=r"^x = Decimal\('sNaN'\): must be a finite real number$"):
        real("x", Decimal("sNaN"))


def test_as_number_keeps_a_decimal_beyond_the_float_range_as_a_fraction():
    """So that a caller comparing before rounding (moldable's arrival rate) sees a positive number, not 0.0. An
    exponent beyond ±400 is capped there (still beyond the range): Decimal('1e-999999999') is not a 10^9-digit
    integer, and the message gives the magnitude as written."""
    assert as_number(Decimal("1e-400")) == Fraction(1, 10**400) and as_number(Decimal("-2e400")) == -2 * 10**400
    assert as_number(Decimal("1e-999999999")) == Fraction(1, 10**400)
    with pytest.raises(InvalidParameterError, match=r"about 1e-999999999, underflows"):
        positive("x", Decimal("1e-999999999"))


def test_user_code_lets_an_interrupt_through():
    """A signal handler that raises while compiled code returns surfaces as SystemError caused by the
    interrupt (numba: 'returned a result with an exception set'); user_code re-raises the interrupt
    instead of blaming the user's callable, and still wraps a plain SystemError."""
    def interrupted():
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as cause:
            raise SystemError("<CPUDispatcher> returned a result with an exception set") from cause

    with pytest.raises(KeyboardInterrupt):
        with user_code("policy", 0, "it must return a mask"):
            interrupted()
    with pytest.raises(InvalidParameterError, match=r"policy = 0: failed on this input \(SystemError: broken\)"):
        with user_code("policy", 0, "it must return a mask"):
            raise SystemError("broken")
