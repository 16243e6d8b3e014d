"""Error-free transformations: sums and products of doubles held exactly as two doubles.

``two_sum(a, b)`` returns ``s = fl(a + b)`` and the rounding error ``e`` with ``a + b = s + e``
exactly (Knuth, *The Art of Computer Programming* 2, 4.2.2); ``two_product(a, b)`` returns
``p = fl(a b)`` and ``e`` with ``a b = p + e`` exactly (Dekker, *A floating-point technique for
extending the available precision*, Numer. Math. 18, 1971), provided no partial product under- or
overflows: exact when ``|a b| >= 2**-969`` and ``|a|, |b| < 2**996``. Sums of such pairs carry about
32 significant digits ("double-double").
"""

from __future__ import annotations

import numba

__all__ = ["two_product", "two_sum"]

_SPLIT = 134217729.0  # 2**27 + 1


@numba.njit(cache=True, inline="always")
def two_sum(a, b):  # pragma: no cover - compiled
    """``(s, e)`` with ``s = fl(a + b)`` and ``a + b = s + e`` exactly."""
    s = a + b
    v = s - a
    return s, (a - (s - v)) + (b - v)


@numba.njit(cache=True, inline="always")
def two_product(a, b):  # pragma: no cover - compiled
    """``(p, e)`` with ``p = fl(a b)`` and ``a b = p + e`` exactly (see the module docstring)."""
    p = a * b
    c = _SPLIT * a
    a_hi = c - (c - a)
    a_lo = a - a_hi
    c = _SPLIT * b
    b_hi = c - (c - b)
    b_lo = b - b_hi
    return p, ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
