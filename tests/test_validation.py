"""Tests of the shared parameter checks of analytic.validation (messages name parameter, value, condition)."""

import numpy as np
import pytest

from analytic.errors import InvalidParameterError
from analytic.validation import integer, positive, unit_fraction


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
