"""Error-free transformations: sums and products of doubles held exactly as two doubles.

``two_sum(a, b)`` returns ``s = fl(a + b)`` and the rounding error ``e`` with ``a + b = s + e``
exactly (Knuth, *The Art of Computer Programming* 2, 4.2.2); ``two_product(a, b)`` returns
``p = fl(a b)`` and ``e`` with ``a b = p + e`` exactly (Dekker, *A floating-point technique for
extending the available precision*, Numer. Math. 18, 1971), provided no partial product under- or
overflows: exact when ``|a b| >= 2**-969`` and ``|a|, |b| < 2**996``. Sums of such pairs carry about
32 significant digits ("double-double").
"""

from __future__ import annotations

from analytic._kernels import kernel

__all__ = ["two_product", "two_sum"]

_SPLIT = 134217729.0  # 2**27 + 1


@kernel(inline="always")
def two_sum(a, b):  # pragma: no cover - compiled
    """``(s, e)`` with ``s = fl(a + b)`` and ``a + b = s + e`` exactly.

    Parameters
    ----------
    a, b : float
        Finite doubles.

    Returns
    -------
    s : float
        The rounded sum.
    e : float
        Its rounding error.

    Examples
    --------
    ``2**-60`` is lost in ``1 + 2**-60`` and kept in the error term:

    >>> two_sum(1.0, 2.0**-60) == (1.0, 2.0**-60)
    True
    """
    s = a + b
    v = s - a
    return s, (a - (s - v)) + (b - v)


@kernel(inline="always")
def two_product(a, b):  # pragma: no cover - compiled
    """``(p, e)`` with ``p = fl(a b)`` and ``a b = p + e`` exactly (see the module docstring).

    Parameters
    ----------
    a, b : float
        Doubles with ``|a b| >= 2**-969`` and ``|a|, |b| < 2**996`` (elsewhere ``e`` may be inexact).

    Returns
    -------
    p : float
        The rounded product.
    e : float
        Its rounding error.

    Examples
    --------
    ``(1 + 2**-30)**2 = 1 + 2**-29 + 2**-60``: the last term is below the double's resolution.

    >>> two_product(1 + 2.0**-30, 1 + 2.0**-30) == (1 + 2.0**-29, 2.0**-60)
    True
    """
    p = a * b
    c = _SPLIT * a
    a_hi = c - (c - a)
    a_lo = a - a_hi
    c = _SPLIT * b
    b_hi = c - (c - b)
    b_lo = b - b_hi
    return p, ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
