"""Tests of the messages of analytic.errors: they name the parameter, the value and the condition."""

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from analytic.errors import (
    AnalyticError,
    InvalidParameterError,
    StateSpaceTooLargeError,
    UnstableSystemError,
    describe,
    scientific,
)


def test_invalid_parameter_message():
    error = InvalidParameterError("load", -1.5, "must be >= 0")
    assert str(error) == "load = -1.5: must be >= 0"
    assert isinstance(error, ValueError) and isinstance(error, AnalyticError)
    assert (error.parameter, error.value, error.condition) == ("load", -1.5, "must be >= 0")


def test_unstable_message_gives_excess():
    error = UnstableSystemError("load per server", 1.05, 1.0)
    assert str(error) == "unstable: load per server = 1.05 must be < 1 (exceeds it by 0.05)"
    assert isinstance(error, ValueError)


@pytest.mark.parametrize("value,limit,text", [(1.0, 1.0, "1"), (10**15, 1e15, "1e+15"), (0.0, 0.0, "0")])
def test_unstable_message_at_the_limit_says_not_below(value, limit, text):
    """value == limit read "exceeds it by 0": the boundary is unstable, but there is no excess to report."""
    error = UnstableSystemError("load", value, limit, "the queue is null recurrent")
    assert str(error) == f"unstable: load = {text} is not below the limit {text} (it equals it); the queue is null recurrent"
    assert (error.value, error.limit) == (value, limit)


def test_state_space_message():
    assert "needs 2,000 states, above max_states=1,000" in str(StateSpaceTooLargeError(2000, 1000))
    assert "needs more than 1,000 states" in str(StateSpaceTooLargeError(1001, 1000, at_least=True))


@pytest.mark.parametrize("value,text", [
    (0.1 + 0.2, "0.3"),
    (np.arange(3), "[0, 1, 2]"),
    (np.arange(20), "[0, 1, 2, 3, 4, 5, 6, 7, ...] (shape (20,))"),
    ("x" * 200, "'" + "x" * 116 + "..."),
])
def test_describe_is_short(value, text):
    assert describe(value) == text


def test_state_space_message_for_counts_beyond_the_float_range():
    # 10**400 states at 48 bytes each: the counts are written from their digits (a float conversion
    # raised OverflowError), the memory in GiB from an integer division.
    message = str(StateSpaceTooLargeError(10**400, 10**6, "the model", memory=(48 * 10**400, 2**34)))
    assert message.startswith("the model needs 1.00e+400 states and about 4.47e+392 GiB of memory, more than the 16 GiB")
    assert str(StateSpaceTooLargeError(10**30, 10**6)).startswith("the chain needs 1.00e+30 states, above max_states=1,000,000")
    assert str(StateSpaceTooLargeError(10**18, 10**6)).startswith("the chain needs 1,000,000,000,000,000,000 states")


def test_values_past_pythons_4300_digit_print_limit_are_described_by_magnitude():
    """repr(10**5000) raises ValueError, so an error about such a value raised ValueError instead. Reference:
    1/(3·10^5000) = 3.33...·10^-5001 by hand."""
    assert describe(10**5000) == "1e+5000" and describe(-(10**5000) - 7) == "-1e+5000"
    assert describe(Fraction(-1, 3 * 10**5000)) == "-3.33e-5001"
    assert describe([10**5000]) == "<list too long to print>"
    assert str(InvalidParameterError("n", 10**5000, "must be small")) == "n = 1e+5000: must be small"


@pytest.mark.parametrize("number,text", [
    (10**400, "1e+400"), (Fraction(2, 3 * 10**400), "6.67e-401"), (Decimal("-1.23456e-999999999"), "-1.23e-999999999"),
    (Fraction(1, 2), "0.5"), (1234567, "1.23e+6"), (0, "0"),
])
def test_scientific_gives_three_digits_at_any_size(number, text):
    assert scientific(number) == text
