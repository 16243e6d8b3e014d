"""What a symbolic rate becomes far out: the polynomial it equals beyond a proven threshold.

A rate a researcher writes for a population model (:mod:`analytic.ctmc.population`) is built from
polynomials, ``Min``, ``Max``, ``Abs``, ``Heaviside`` and ``Piecewise`` with polynomial conditions.
Along one unbounded variable ``x`` (the others fixed) each of these is a polynomial for all ``x``
beyond the largest real root of the polynomials its comparisons compare, so the whole expression is
one polynomial ``p`` for ``x > t``. :func:`eventual_polynomial` returns ``p`` with exact rational
coefficients and a rational ``t`` above every root that matters (isolating intervals of sympy's
exact real-root isolation, not floating-point roots), which is what the symbolic half of a drift
proof needs (:mod:`analytic.ctmc.lyapunov`): on ``x > t`` the sign of a polynomial is decided by
exact arithmetic.
"""

from __future__ import annotations

import sympy

from analytic.errors import InvalidParameterError

__all__ = ["eventual_form", "eventual_polynomial", "exact", "last_root_bound", "level_after"]


def exact(expr: object) -> sympy.Expr:
    """``expr`` as a sympy expression with every float replaced by the rational it stores.

    A float a user writes (``2.0``, ``0.1``) *is* a binary rational; the proof works with that
    value exactly, as the numeric chain works with the double.

    Parameters
    ----------
    expr : sympy expression or number

    Returns
    -------
    sympy.Expr

    Examples
    --------
    >>> exact(0.5 * sympy.Symbol("x"))
    x/2
    """
    value = sympy.sympify(expr)
    return value.replace(lambda e: e.is_Float, lambda e: sympy.Rational(e))


def last_root_bound(poly: sympy.Poly) -> sympy.Rational:
    """A rational ``t`` at or above every real root of ``poly`` (``-oo`` for none, or a zero poly).

    Parameters
    ----------
    poly : sympy.Poly
        Univariate, rational coefficients.

    Returns
    -------
    sympy.Rational or -oo
        The right end of the last isolating interval of sympy's exact real-root isolation.

    Examples
    --------
    >>> x = sympy.Symbol("x")
    >>> bool(last_root_bound(sympy.Poly(x**2 - 2, x)) >= sympy.sqrt(2))
    True
    """
    if poly.is_zero or poly.degree() <= 0:
        return sympy.S.NegativeInfinity
    intervals = poly.intervals()
    return max((sympy.Rational(b) for (_, b), _ in intervals), default=sympy.S.NegativeInfinity)


def level_after(threshold: object) -> int:
    """The least integer level ``>= 0`` above ``threshold`` (a rational or ``-oo``).

    Parameters
    ----------
    threshold : sympy.Rational or -oo

    Returns
    -------
    int

    Examples
    --------
    >>> level_after(sympy.Rational(7, 2)), level_after(sympy.Integer(3)), level_after(-sympy.oo)
    (4, 4, 0)
    """
    return 0 if threshold == sympy.S.NegativeInfinity else max(0, int(sympy.floor(threshold)) + 1)


Thresholds = dict  # variable -> rational threshold beyond which the form holds (absent: everywhere)


def _merge(*parts: Thresholds) -> Thresholds:
    merged: Thresholds = {}
    for part in parts:
        for v, t in part.items():
            merged[v] = max(merged.get(v, t), t)
    return merged


def _sign_beyond(poly: sympy.Poly) -> tuple[int, Thresholds]:
    """The sign ``poly`` keeps where its one variable is beyond the threshold returned."""
    if poly.is_zero:
        return 0, {}
    used = [g for g, degree in zip(poly.gens, poly.degree_list(), strict=True) if degree > 0]
    if not used:
        return (1 if poly.LC() > 0 else -1), {}
    if len(used) > 1:
        raise InvalidParameterError("rate", poly.as_expr(), f"compares two unbounded counts ({used[0]}, {used[1]}): the "
                                                            "drift proof decides comparisons of one count with constants")
    single = sympy.Poly(poly.as_expr(), used[0], domain="QQ")
    bound = last_root_bound(single)
    return (1 if single.LC() > 0 else -1), ({} if bound == sympy.S.NegativeInfinity else {used[0]: bound})


def _truth(condition: object, gens: tuple) -> tuple[bool, Thresholds]:
    """Whether ``condition`` holds, or fails, everywhere beyond the thresholds returned."""
    if condition in (sympy.true, True):
        return True, {}
    if condition in (sympy.false, False):
        return False, {}
    if isinstance(condition, sympy.Not):
        value, t = _truth(condition.args[0], gens)
        return not value, t
    if isinstance(condition, sympy.And | sympy.Or):
        parts = [_truth(c, gens) for c in condition.args]
        combine = all if isinstance(condition, sympy.And) else any
        return combine(v for v, _ in parts), _merge(*(t for _, t in parts))
    if isinstance(condition, sympy.core.relational.Relational):
        left, t_left = _eventual(condition.lhs, gens)
        right, t_right = _eventual(condition.rhs, gens)
        sign, t = _sign_beyond(left - right)
        holds = {sympy.StrictLessThan: sign < 0, sympy.LessThan: sign <= 0, sympy.StrictGreaterThan: sign > 0,
                 sympy.GreaterThan: sign >= 0, sympy.Eq: sign == 0, sympy.Ne: sign != 0}.get(type(condition))
        if holds is None:
            raise InvalidParameterError("rate", condition, "uses a comparison the drift proof does not know")
        return holds, _merge(t, t_left, t_right)
    raise InvalidParameterError("rate", condition, "must be a condition built from comparisons of polynomials, And, Or and "
                                                   "Not to be decided symbolically")


def eventual_polynomial(expr: object, x: sympy.Symbol) -> tuple[sympy.Poly, sympy.Rational]:
    """The polynomial ``p`` (rational coefficients) and threshold ``t`` with ``expr = p`` for all real ``x > t``.

    Parameters
    ----------
    expr : sympy expression
        In ``x`` only: numbers (floats taken exactly), ``x``, sums, products, non-negative integer
        powers, ``Min``, ``Max``, ``Abs``, ``Heaviside`` and ``Piecewise`` whose conditions compare
        such expressions.
    x : sympy.Symbol

    Returns
    -------
    (sympy.Poly, sympy.Rational)
        ``t`` is ``-oo`` when ``expr`` is a polynomial everywhere.

    Raises
    ------
    InvalidParameterError
        Any other construct (``exp``, ``floor``, a fractional power, another symbol), named.

    Examples
    --------
    >>> x = sympy.Symbol("x")
    >>> p, t = eventual_polynomial(sympy.Min(x, 3) + sympy.Piecewise((x**2, x > 5), (0, True)), x)
    >>> p.as_expr(), t >= 5
    (x**2 + 3, True)
    """
    poly, thresholds = _eventual(expr, (x,))
    return poly, thresholds.get(x, sympy.S.NegativeInfinity)


def eventual_form(expr: object, variables: tuple) -> tuple[sympy.Poly, dict]:
    """The polynomial ``p`` in several variables and thresholds ``t_v`` with ``expr = p`` wherever every
    variable ``v`` exceeds ``t_v``: :func:`eventual_polynomial` for expressions whose every
    comparison (``Min``, ``Max``, ``Piecewise``, ...) involves one variable at most.

    Parameters
    ----------
    expr : sympy expression
        In ``variables`` only, built as for :func:`eventual_polynomial`.
    variables : tuple of sympy.Symbol

    Returns
    -------
    (sympy.Poly, dict)
        The thresholds per variable (a variable absent: no threshold).

    Raises
    ------
    InvalidParameterError
        A construct :func:`eventual_polynomial` does not know, or a comparison of two variables.

    Examples
    --------
    >>> x, y = sympy.symbols("x y")
    >>> p, t = eventual_form(sympy.Min(x, 3) * y + sympy.Heaviside(y - 2) * x, (x, y))
    >>> p.as_expr(), t[x] >= 3, t[y] >= 2
    (x + 3*y, True, True)
    """
    return _eventual(expr, tuple(variables))


def _eventual(expr: object, gens: tuple) -> tuple[sympy.Poly, Thresholds]:
    expr = exact(expr)
    if expr.is_Number:
        if not expr.is_Rational:
            raise InvalidParameterError("rate", expr, "must be a finite real number")
        return sympy.Poly(expr, *gens, domain="QQ"), {}
    if expr in gens:
        return sympy.Poly(expr, *gens, domain="QQ"), {}
    if isinstance(expr, sympy.Add | sympy.Mul):
        parts = [_eventual(a, gens) for a in expr.args]
        poly = parts[0][0]
        for p, _ in parts[1:]:
            poly = poly + p if isinstance(expr, sympy.Add) else poly * p
        return poly, _merge(*(t for _, t in parts))
    if isinstance(expr, sympy.Pow) and expr.exp.is_Integer and expr.exp >= 0:
        base, t = _eventual(expr.base, gens)
        return base ** int(expr.exp), t
    if isinstance(expr, sympy.Min | sympy.Max):
        parts = [_eventual(a, gens) for a in expr.args]
        best = parts[0][0]
        threshold = _merge(*(t for _, t in parts))
        for p, _ in parts[1:]:
            sign, t = _sign_beyond(p - best)
            threshold = _merge(threshold, t)
            if (sign < 0) if isinstance(expr, sympy.Min) else (sign > 0):
                best = p
        return best, threshold
    if isinstance(expr, sympy.Abs):
        p, t = _eventual(expr.args[0], gens)
        sign, t_sign = _sign_beyond(p)
        return (-p if sign < 0 else p), _merge(t, t_sign)
    if isinstance(expr, sympy.Heaviside):
        p, t = _eventual(expr.args[0], gens)
        sign, t_sign = _sign_beyond(p)
        if sign == 0:
            return _eventual(expr.args[1] if len(expr.args) > 1 else sympy.Rational(1, 2), gens)
        return sympy.Poly(1 if sign > 0 else 0, *gens, domain="QQ"), _merge(t, t_sign)
    if isinstance(expr, sympy.Piecewise):
        threshold: Thresholds = {}
        for value, condition in expr.args:
            holds, t = _truth(condition, gens)
            threshold = _merge(threshold, t)
            if holds:
                p, t_value = _eventual(value, gens)
                return p, _merge(threshold, t_value)
        raise InvalidParameterError("rate", expr, "is undefined for large values (no branch of the Piecewise holds)")
    names = ", ".join(map(str, gens))
    raise InvalidParameterError("rate", expr, "must be built from polynomials, Min, Max, Abs, Heaviside and Piecewise "
                                              f"in {names} for the drift to be proved symbolically")
