"""Checks of scalar parameters shared by every module.

Each returns the value in its working type or raises :class:`~analytic.errors.InvalidParameterError`
naming the parameter, the value and the violated condition, so that messages read the same across
the package.

Examples
--------
>>> integer("servers", 4, minimum=5, meaning=" (at least d = 5)")
Traceback (most recent call last):
...
analytic.errors.InvalidParameterError: servers = 4: must be an integer >= 5 (at least d = 5)
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any

import numpy as np

from analytic.errors import InvalidParameterError

__all__ = ["confidence", "integer", "positive", "probabilities", "unit_fraction"]

#: Largest deviation from one allowed in the sum of a probability vector (it is then renormalized).
PROBABILITY_TOLERANCE = 1e-9


def integer(name: str, value: Any, minimum: int = 1, meaning: str = "") -> int:
    """``value`` as an ``int``; it must be an integer (not a bool, not a float) ``>= minimum``."""
    if isinstance(value, bool) or not isinstance(value, Integral) or value < minimum:
        bound = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
        raise InvalidParameterError(name, value, f"must be {bound}{meaning}")
    return int(value)


def positive(name: str, value: Any, meaning: str = "") -> float:
    """``value`` as a ``float``; it must be a real number with ``0 < value < inf`` (NaN fails)."""
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 < value < math.inf:
        raise InvalidParameterError(name, value, f"must be positive and finite{meaning}")
    return float(value)


def unit_fraction(name: str, value: Any, closed: bool = False, meaning: str = "") -> float:
    """``value`` as a ``float`` in the open interval (0, 1), or in (0, 1] with ``closed=True`` (NaN fails)."""
    interval = "(0, 1]" if closed else "the open interval (0, 1)"
    if isinstance(value, bool) or not isinstance(value, Real) or not (0 < value < 1 or (closed and value == 1)):
        raise InvalidParameterError(name, value, f"must lie in {interval}{meaning}")
    return float(value)


def probabilities(name: str, value: Any, length: int | None = None, meaning: str = "") -> np.ndarray:
    """``value`` as a float vector of finite entries ``>= 0`` summing to one within 1e-9, renormalized."""
    try:
        vector = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        vector = None
    size = "" if length is None else f" of length {length}"
    if vector is None or vector.ndim != 1 or vector.size == 0 or (length is not None and vector.size != length):
        raise InvalidParameterError(name, value, f"must be a probability vector{size}{meaning}")
    if not np.all(np.isfinite(vector)) or np.any(vector < 0):
        raise InvalidParameterError(name, vector, f"must be a probability vector{meaning}: entries finite and >= 0")
    if abs(vector.sum() - 1.0) > PROBABILITY_TOLERANCE:
        raise InvalidParameterError(name, vector, f"must be a probability vector{meaning}: entries sum to "
                                                  f"{vector.sum():.12g}, not 1")
    return vector / vector.sum()


def confidence(name: str, value: Any) -> float:
    """``value`` as a ``float`` strictly between 0 and 1 (a confidence level)."""
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 < value < 1:
        raise InvalidParameterError(name, value, "must lie strictly between 0 and 1 (a confidence level)")
    return float(value)
