"""Tests of the shared parameter checks of analytic.validation (messages name parameter, value, condition)."""

import numpy as np
import pytest

from analytic.errors import InvalidParameterError
from analytic.validation import integer, positive


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
