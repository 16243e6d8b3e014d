"""Tests of the shared parameter checks of analytic.validation (messages name parameter, value, condition)."""

from fractions import Fraction

import numpy as np
import pytest

from analytic.errors import InvalidParameterError
from analytic.validation import as_number, integer, numeric_array, positive, real, real_array, unit_fraction


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
                                                    r"1\.798e\+308$") as error:
        check(value)
    assert error.value.parameter == "x" and error.value.value in (value, [1.0, value])


def test_integers_beyond_64_bits_are_refused_by_numeric_arrays():
    with pytest.raises(InvalidParameterError, match=r"^counts = \[1, 100000.*: must be integers \(an entry exceeds "
                                                    r"the 64-bit integer range\)$"):
        numeric_array("counts", [1, 10**30], "must be integers")
    assert numeric_array("counts", [1, 2**62], "must be integers").dtype.kind == "i"
