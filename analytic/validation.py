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

from analytic.errors import InvalidParameterError

__all__ = ["integer", "positive", "unit_fraction"]


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
