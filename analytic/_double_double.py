"""Double-double arithmetic: a value held as the unevaluated sum ``hi + lo`` of two doubles.

``two_sum(a, b)`` returns ``s = fl(a + b)`` and the rounding error ``e`` with ``a + b = s + e``
exactly (Knuth, *The Art of Computer Programming* 2, 4.2.2); ``two_product(a, b)`` returns
``p = fl(a b)`` and ``e`` with ``a b = p + e`` exactly (Dekker, *A floating-point technique for
extending the available precision*, Numer. Math. 18, 1971), provided no partial product under- or
overflows: exact when ``|a b| >= 2**-969`` and ``|a|, |b| < 2**996``. Sums of such pairs carry about
32 significant digits. :func:`dd_add`, :func:`dd_product` and :func:`dd_quotient` add a double to,
multiply and divide such pairs.

Every function takes floats or numpy arrays (elementwise): :mod:`analytic.erlang`'s kernels call
them on arrays. The numba kernels of :mod:`analytic.ctmc` call their compiled forms,
:data:`analytic._kernels.two_sum` and :data:`analytic._kernels.two_product` (this module imports no
numba).
"""

from __future__ import annotations

from typing import Any

__all__ = ["dd_add", "dd_product", "dd_quotient", "two_product", "two_sum"]

_SPLIT = 134217729.0  # 2**27 + 1


def two_sum(a: Any, b: Any) -> tuple[Any, Any]:
    """``(s, e)`` with ``s = fl(a + b)`` and ``a + b = s + e`` exactly.

    Parameters
    ----------
    a, b : float or numpy.ndarray
        Finite doubles.

    Returns
    -------
    s : float or numpy.ndarray
        The rounded sum.
    e : float or numpy.ndarray
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


def two_product(a: Any, b: Any) -> tuple[Any, Any]:
    """``(p, e)`` with ``p = fl(a b)`` and ``a b = p + e`` exactly (see the module docstring).

    Parameters
    ----------
    a, b : float or numpy.ndarray
        Doubles with ``|a b| >= 2**-969`` and ``|a|, |b| < 2**996`` (elsewhere ``e`` may be inexact).

    Returns
    -------
    p : float or numpy.ndarray
        The rounded product.
    e : float or numpy.ndarray
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


def dd_add(hi: Any, lo: Any, d: Any) -> tuple[Any, Any]:
    """``(hi + lo) + d`` as a renormalized double-double (``|lo|`` below an ulp of the new ``hi``).

    Examples
    --------
    >>> dd_add(1.0, 2.0**-60, 0.5) == (1.5, 2.0**-60)
    True
    """
    s, e = two_sum(hi, d)
    e = e + lo
    top = s + e
    return top, e - (top - s)


def dd_product(a_hi: Any, a_lo: Any, b_hi: Any, b_lo: Any) -> tuple[Any, Any]:
    """``(a_hi + a_lo)(b_hi + b_lo)`` as a double-double (relative error about 1e-32, ``a_lo b_lo`` dropped).

    Examples
    --------
    >>> dd_product(1.0, 2.0**-60, 3.0, 0.0) == (3.0, 3 * 2.0**-60)
    True
    """
    p, e = two_product(a_hi, b_hi)
    return two_sum(p, e + a_hi * b_lo + a_lo * b_hi)


def dd_quotient(a_hi: Any, a_lo: Any, b_hi: Any, b_lo: Any) -> tuple[Any, Any]:
    """``(a_hi + a_lo) / (b_hi + b_lo)`` as a double-double (one correction step of the double quotient).

    Examples
    --------
    >>> from fractions import Fraction
    >>> hi, lo = dd_quotient(1.0, 0.0, 3.0, 0.0)
    >>> hi == 1 / 3 and abs(Fraction(hi) + Fraction(lo) - Fraction(1, 3)) < 1e-32
    True
    """
    q = a_hi / b_hi
    p_hi, p_lo = two_product(q, b_hi)
    return two_sum(q, ((a_hi - p_hi) - p_lo + a_lo - q * b_lo) / b_hi)
