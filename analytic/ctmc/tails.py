"""What a symbolic rate becomes far out: the polynomial it equals beyond a proven threshold, or
polynomials that enclose it.

A rate a researcher writes for a population model (:mod:`analytic.ctmc.population`) is built from
polynomials, ``Min``, ``Max``, ``Abs``, ``Heaviside`` and ``Piecewise`` with polynomial conditions.
Along one unbounded variable ``x`` (the others fixed) each of these is a polynomial for all ``x``
beyond the largest real root of the polynomials its comparisons compare, so the whole expression is
one polynomial ``p`` for ``x > t``. :func:`eventual_polynomial` returns ``p`` with exact rational
coefficients and a rational ``t`` above every root that matters (isolating intervals of sympy's
exact real-root isolation, not floating-point roots), which is what the symbolic half of a drift
proof needs (:mod:`analytic.ctmc.lyapunov`): on ``x > t`` the sign of a polynomial is decided by
exact arithmetic.

A rate may also divide: the Hill functions of gene regulation (``a / (1 + y^n)``,
``a x^n / (K^n + x^n)``) are rational. :func:`eventual_rational` returns the quotient ``n / d`` it
equals far out, and :func:`envelope` polynomials ``lower <= n / d <= upper`` on a range of the
counts, proved by exact root counting (an :class:`Envelope`). A drift proof then uses ``upper``
for a transition that raises ``V`` and ``lower`` for one that lowers it (:meth:`Envelope.times`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import sympy

from analytic.errors import InvalidParameterError

__all__ = ["Envelope", "MixedComparison", "envelope", "eventual_form",
           "eventual_polynomial", "eventual_rational", "exact", "last_root_bound",
           "level_after"]


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
    return _exact(sympy.sympify(expr))


@functools.lru_cache(maxsize=1 << 14)
def _exact(value: sympy.Basic) -> sympy.Expr:
    """:func:`exact` of a sympy expression (cached: the analysis meets each sub-expression once per region)."""
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


class MixedComparison(InvalidParameterError):
    """A comparison whose sign far out depends on how several variables compare: a polynomial in
    several variables with coefficients of both signs (``x - y``), or with cross terms only
    (``x y - 3``). :mod:`analytic.ctmc.regions` splits the lattice along a difference of two counts
    and asks again; a caller that cannot gets the message.

    Parameters
    ----------
    poly : sympy.Poly
        The polynomial whose sign is not decided.
    variables : list of sympy.Symbol
        The variables it uses (kept as the attribute ``variables``, a tuple).

    Attributes
    ----------
    expression : sympy expression or None
        The rate or reward the comparison is in, once a caller that knows it has set it.

    Examples
    --------
    >>> x, y = sympy.symbols("x y")
    >>> try:
    ...     eventual_form(sympy.Min(x, y), (x, y))
    ... except MixedComparison as error:
    ...     print(error.variables)
    (x, y)
    """

    def __init__(self, poly: sympy.Poly, variables: list) -> None:
        self.variables = tuple(variables)
        self.expression = None
        super().__init__("rate", poly.as_expr(), f"compares {', '.join(map(str, variables))}: its sign far out is "
                                                 "not decided by each count alone, nor by the difference of two")


def _sign_beyond(poly: sympy.Poly) -> tuple[int, Thresholds]:
    """The sign ``poly`` keeps where its variables (all non-negative) are beyond the thresholds returned.

    In one variable: beyond its last real root. In several, when every non-constant coefficient has
    one sign ``s``: ``s`` everywhere if the constant has it too, else beyond the last root of
    ``poly`` along one variable with the others at 0 (``poly`` only moves towards ``s`` as the
    others grow). Otherwise :class:`MixedComparison`."""
    if poly.is_zero:
        return 0, {}
    used = [g for g, degree in zip(poly.gens, poly.degree_list(), strict=True) if degree > 0]
    if not used:
        return (1 if poly.LC() > 0 else -1), {}
    if len(used) == 1:
        return _beyond_root(sympy.Poly(poly.as_expr(), used[0], domain="QQ"))
    signs = {coefficient > 0 for monomial, coefficient in poly.terms() if any(monomial)}
    if len(signs) > 1:
        raise MixedComparison(poly, used)
    sign = 1 if signs.pop() else -1
    if sign * poly.as_expr().subs(dict.fromkeys(used, 0)) > 0:
        return sign, {}
    along = [_beyond_root(sympy.Poly(poly.as_expr().subs({u: 0 for u in used if u != v}), v, domain="QQ"))
             for v in used]
    along = [t for s, t in along if s == sign]
    if not along:
        raise MixedComparison(poly, used)                  # cross terms only
    return sign, min(along, key=lambda t: level_after(next(iter(t.values()), sympy.S.NegativeInfinity)))


def _beyond_root(single: sympy.Poly) -> tuple[int, Thresholds]:
    """The sign of a polynomial in one variable beyond its last real root, and that root."""
    if single.degree() <= 0:
        return (0 if single.is_zero else (1 if single.LC() > 0 else -1)), {}
    bound = last_root_bound(single)
    return (1 if single.LC() > 0 else -1), ({} if bound == sympy.S.NegativeInfinity else {single.gens[0]: bound})


def _truth(condition: object, gens: tuple, values: dict) -> tuple[bool, Thresholds]:
    """Whether ``condition`` holds, or fails, everywhere beyond the thresholds returned."""
    if condition in (sympy.true, True):
        return True, {}
    if condition in (sympy.false, False):
        return False, {}
    if isinstance(condition, sympy.Not):
        value, t = _truth(condition.args[0], gens, values)
        return not value, t
    if isinstance(condition, sympy.And | sympy.Or):
        parts = [_truth(c, gens, values) for c in condition.args]
        combine = all if isinstance(condition, sympy.And) else any
        return combine(v for v, _ in parts), _merge(*(t for _, t in parts))
    if isinstance(condition, sympy.core.relational.Relational):
        left, right = _rational(condition.lhs, gens, values), _rational(condition.rhs, gens, values)
        t_left, t_right = left[2], right[2]
        sign, t = _sign_beyond(_compare(left, right))
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


def eventual_form(expr: object, variables: tuple, values: dict | None = None) -> tuple[sympy.Poly, dict]:
    """The polynomial ``p`` in several variables and thresholds ``t_v`` with ``expr = p`` wherever every
    variable ``v`` exceeds ``t_v``: :func:`eventual_polynomial` for expressions whose every
    comparison (``Min``, ``Max``, ``Piecewise``, ...) involves one variable, or several through a
    polynomial whose non-constant coefficients share one sign (``x + 2 y > 5``); the variables are
    non-negative.

    Parameters
    ----------
    expr : sympy expression
        In ``variables`` only (or in the keys of ``values``), built as for :func:`eventual_polynomial`.
    variables : tuple of sympy.Symbol
    values : dict of sympy.Symbol to sympy.Poly, optional
        A polynomial in ``variables`` (rational coefficients) to read in place of each of these
        symbols of ``expr``: the parametrization of a region, ``x -> 2 + x + y``, without rebuilding
        the expression (:mod:`analytic.ctmc.regions`).

    Returns
    -------
    (sympy.Poly, dict)
        The thresholds per variable (a variable absent: no threshold).

    Raises
    ------
    InvalidParameterError
        A construct :func:`eventual_polynomial` does not know, or a comparison no threshold decides
        (:class:`MixedComparison`, ``x > y``).

    Examples
    --------
    >>> x, y = sympy.symbols("x y")
    >>> p, t = eventual_form(sympy.Min(x, 3) * y + sympy.Heaviside(y - 2) * x, (x, y))
    >>> p.as_expr(), t[x] >= 3, t[y] >= 2
    (x + 3*y, True, True)
    """
    return _eventual(expr, tuple(variables), values)


def eventual_rational(expr: object, variables: tuple, values: dict | None = None
                      ) -> tuple[sympy.Poly, sympy.Poly, dict]:
    """Polynomials ``n``, ``d`` (rational coefficients) and thresholds ``t_v`` with ``expr = n / d`` and
    ``d > 0`` wherever every variable ``v`` exceeds ``t_v``: :func:`eventual_form` for expressions
    that may also divide (a Hill rate ``a / (1 + y^2)``, a Michaelis–Menten rate ``x / (K + x)``).

    A denominator in one variable is positive beyond its last real root (exact root isolation); a
    denominator in several must have non-negative coefficients and a positive constant term, so
    that it is positive on the whole orthant of counts. ``d = 1`` for a polynomial.

    Parameters
    ----------
    expr : sympy expression
        Built as for :func:`eventual_polynomial`, with integer powers of any sign.
    variables : tuple of sympy.Symbol
    values : dict of sympy.Symbol to sympy.Poly, optional
        As for :func:`eventual_form`.

    Returns
    -------
    (sympy.Poly, sympy.Poly, dict)

    Raises
    ------
    InvalidParameterError
        A construct the analysis does not know, a comparison no threshold decides
        (:class:`MixedComparison`), or a denominator in
        several variables with a negative coefficient.

    Examples
    --------
    >>> x, y = sympy.symbols("x y")
    >>> n, d, t = eventual_rational(3 * sympy.Min(x, 2) / (1 + y**2), (x, y))
    >>> n.as_expr(), d.as_expr(), t[x] >= 2
    (6, y**2 + 1, True)
    """
    return _rational(expr, tuple(variables), values)


@dataclass(frozen=True)
class Envelope:
    """Polynomials ``lower <= r <= upper`` around a rate ``r`` on a range of its variables.

    The drift of a positive ``V`` is bounded above through ``r (V(x + v) - V(x)) <= r a <=
    upper · a`` where the proved bound ``a`` on the increment is ``>= 0``, and ``<= lower · a``
    where it is negative (:meth:`times`): the sign of ``a``, an exact rational, decides.

    Attributes
    ----------
    lower, upper : sympy.Poly
        The same generators, rational coefficients.
    asymptote : sympy.Poly or None
        The polynomial part of ``r`` (``r`` minus it is bounded) when the denominator has one
        variable; None otherwise.
    fraction : (sympy.Poly, sympy.Poly) or None
        ``r = n / d`` when ``d`` has one variable (:meth:`beyond` tightens the envelope from it).

    Examples
    --------
    >>> x = sympy.Symbol("x")
    >>> e = envelope(sympy.Poly(x**2, x), sympy.Poly(x**2 + 4, x))          # x^2 / (4 + x^2) on x >= 0
    >>> e.lower.as_expr(), e.upper.as_expr(), e.times(-1) == -e.lower
    (0, 1, True)
    """

    lower: sympy.Poly
    upper: sympy.Poly
    asymptote: sympy.Poly | None
    fraction: tuple | None = None

    @classmethod
    def of_polynomial(cls, poly: sympy.Poly) -> Envelope:
        """The envelope of a polynomial rate: itself on both sides.

        Parameters
        ----------
        poly : sympy.Poly

        Returns
        -------
        Envelope

        Examples
        --------
        >>> x = sympy.Symbol("x")
        >>> Envelope.of_polynomial(sympy.Poly(2 * x, x)).is_exact
        True
        """
        return cls(poly, poly, poly)

    @property
    def is_exact(self) -> bool:
        """Whether ``lower == upper`` (a polynomial rate)."""
        return self.lower == self.upper

    def beyond(self, shifts: dict) -> Envelope:
        """The envelope on the part of its range where every generator ``v >= shifts[v]``: tighter
        there when the rate divides (a saturating rate is nearer its limit far out).

        Parameters
        ----------
        shifts : dict of sympy.Symbol to int

        Returns
        -------
        Envelope

        Examples
        --------
        >>> x = sympy.Symbol("x")
        >>> e = envelope(sympy.Poly(2 * x, x), sympy.Poly(x + 5, x))              # 2x / (5 + x) on x >= 0
        >>> e.lower.as_expr(), e.beyond({x: 15}).lower.as_expr()
        (0, 3/2)
        """
        return self if self.fraction is None else envelope(*self.fraction, shifts)

    def times(self, gain: object) -> sympy.Poly:
        """An upper bound on ``r · gain``: ``upper · gain`` if ``gain >= 0``, else ``lower · gain``.

        Parameters
        ----------
        gain : rational
            A proved upper bound on the increment of ``V`` (over its scale) along the transition.

        Returns
        -------
        sympy.Poly

        Examples
        --------
        >>> x = sympy.Symbol("x")
        >>> e = envelope(sympy.Poly(2 * x, x), sympy.Poly(x + 5, x), {x: 15})
        >>> e.times(-1).as_expr(), e.times(1).as_expr()
        (-3/2, 2)
        """
        gain = sympy.Rational(gain)
        return (self.upper if gain >= 0 else self.lower) * gain


def envelope(numerator: sympy.Poly, denominator: sympy.Poly, shifts: dict | None = None) -> Envelope:
    """Polynomial envelopes of ``n / d`` wherever every generator ``v >= s_v`` (real; ``s_v = 0``
    without ``shifts``), with exact rational coefficients.

    * ``d`` in one generator ``v``: each group of terms of ``n`` with one monomial ``μ`` in the
      other generators is divided, ``n_μ = q_μ d + r_μ`` with ``deg r_μ < deg d``, and
      ``r_μ / d`` lies in ``[lo_μ, hi_μ]`` on ``v >= s_v``. The bounds are estimated in floating
      point and proved by exact real-root counting: ``hi d - r`` and ``r - lo d`` have no root on
      ``(s_v, ∞)``, are ``>= 0`` at ``s_v`` and positive at ``s_v + 1``. So
      ``Σ μ (q_μ + lo_μ) <= n / d <= Σ μ (q_μ + hi_μ)`` (``μ >= 0`` on the orthant).
    * ``d`` in several generators (non-negative coefficients, positive constant): each term
      ``c y^α`` of ``n`` over ``d`` lies between 0 and ``c y^{α-β} / d_β``, with ``d_β y^β`` a term
      of ``d`` that divides ``y^α``.

    Parameters
    ----------
    numerator, denominator : sympy.Poly
        The same generators; ``d > 0`` on the range (checked: exact root counting, or the signs of
        the coefficients).
    shifts : dict of sympy.Symbol to int, optional
        ``s_v >= 0`` per generator.

    Returns
    -------
    Envelope

    Raises
    ------
    InvalidParameterError
        ``d`` not positive on the range (a pole, or a sign change).

    Examples
    --------
    >>> x = sympy.Symbol("x")
    >>> e = envelope(sympy.Poly(x, x), sympy.Poly(x + 2, x), {x: 2})           # x / (2 + x) on x >= 2
    >>> e.lower.as_expr(), e.upper.as_expr(), e.asymptote.as_expr()
    (1/2, 1, 1)
    """
    gens = numerator.gens
    shifts = {v: sympy.Integer(s) for v, s in (shifts or {}).items() if s}
    if denominator.is_ground:
        poly = numerator.quo_ground(denominator.LC()) if not denominator.is_one else numerator
        return Envelope.of_polynomial(poly)
    used = [g for g, degree in zip(gens, denominator.degree_list(), strict=True) if degree > 0]
    if len(used) > 1:
        return _monomial_envelope(numerator, denominator, shifts)
    v = used[0]
    k = gens.index(v)
    d = sympy.Poly(denominator.as_expr(), v, domain="QQ")
    start = shifts.get(v, sympy.S.Zero)
    if not (d.eval(start) > 0 and d.count_roots(start, None) == 0):
        raise InvalidParameterError("rate", numerator.as_expr() / denominator.as_expr(),
                                    f"has a denominator that is not positive for every {v} >= {start} (a pole)")
    groups: dict[tuple, dict[int, object]] = {}
    for monomial, coefficient in numerator.terms():
        rest = (*monomial[:k], 0, *monomial[k + 1:])
        groups.setdefault(rest, {})[monomial[k]] = coefficient
    zero = sympy.Poly(0, *gens, domain="QQ")
    lower, upper, asymptote = zero, zero, zero
    for rest, coefficients in groups.items():
        n = sympy.Poly(sum(c * v**e for e, c in coefficients.items()), v, domain="QQ")
        q, r = n.div(d)
        low, high = _remainder_range(r, d, start)
        mono = sympy.Poly(sympy.Mul(*(g**e for g, e in zip(gens, rest, strict=True))), *gens, domain="QQ")
        whole = sympy.Poly(q.as_expr(), *gens, domain="QQ") * mono
        lower, upper, asymptote = lower + whole + mono * low, upper + whole + mono * high, asymptote + whole
    return Envelope(lower, upper, asymptote, (numerator, denominator))


#: Relative slack added to a floating-point estimate of a bound before it is proved exactly.
_SLACK = sympy.Rational(1, 2**30)


def _remainder_range(r: sympy.Poly, d: sympy.Poly, start: sympy.Integer) -> tuple[sympy.Rational, sympy.Rational]:
    """Rationals ``lo <= r / d <= hi`` on ``[start, ∞)`` (``deg r < deg d``, ``d > 0`` there), proved
    by exact root counting of ``hi d - r`` and ``r - lo d`` (a bound attained at ``start`` is exact)."""
    if r.is_zero:
        return sympy.S.Zero, sympy.S.Zero
    rf = np.array([float(c) for c in r.all_coeffs()])
    df = np.array([float(c) for c in d.all_coeffs()])
    critical = np.roots(np.polysub(np.polymul(np.polyder(rf), df), np.polymul(rf, np.polyder(df))))
    s = float(start)
    points = [s] + [z.real for z in critical if abs(z.imag) < 1e-9 * (1 + abs(z)) and z.real > s]
    points += list(s + np.geomspace(1e-3, 1e12, 400))
    with np.errstate(all="ignore"):
        values = [np.polyval(rf, p) / np.polyval(df, p) for p in points]
    finite = [value for value in values if np.isfinite(value)] + [0.0]          # r / d -> 0 far out
    ends = []
    for estimate, side in ((max(finite), 1), (min(finite), -1)):
        guess = sympy.Rational(estimate)
        for k in range(13):                               # the estimate itself, then with growing slack
            bound = guess + side * (abs(guess) + 1) * _SLACK * 16 ** (k - 1) if k else guess
            gap = (bound * d - r) * side                # >= 0 on [start, ∞): no root beyond start, positive after
            at_start = gap.eval(start)
            if at_start >= 0 and gap.count_roots(start, None) == (at_start == 0) and gap.eval(start + 1) > 0:
                break
        else:
            raise InvalidParameterError("rate", r.as_expr() / d.as_expr(), f"could not be bounded on [{start}, ∞)")
        ends.append(bound)
    return ends[1], ends[0]


def _monomial_envelope(numerator: sympy.Poly, denominator: sympy.Poly, shifts: dict) -> Envelope:
    """The envelope of ``n / d`` with ``d`` in several generators (:func:`envelope`), on the orthant."""
    if shifts:
        raise InvalidParameterError("shifts", shifts, "must be empty for a denominator in several counts")
    terms = dict(denominator.terms())
    if any(c < 0 for c in terms.values()) or denominator.coeff_monomial(1) <= 0:
        raise InvalidParameterError("rate", numerator.as_expr() / denominator.as_expr(), "has a denominator in several "
                                    "counts with a negative coefficient or no positive constant term: its sign on the "
                                    "lattice is not decided")
    gens = numerator.gens
    lower = upper = sympy.Poly(0, *gens, domain="QQ")
    for alpha, c in numerator.terms():
        beta = max((b for b in terms if all(bi <= ai for bi, ai in zip(b, alpha, strict=True))), key=sum)
        bound = sympy.Poly(sympy.Mul(*(g**(a - b) for g, a, b in zip(gens, alpha, beta, strict=True))) * c / terms[beta],
                           *gens, domain="QQ")
        if c > 0:
            upper += bound
        else:
            lower += bound
    return Envelope(lower, upper, None)


def _eventual(expr: object, gens: tuple, values: dict | None = None) -> tuple[sympy.Poly, Thresholds]:
    """:func:`_rational` for expressions that must be polynomials far out."""
    numerator, denominator, thresholds = _rational(expr, gens, values)
    if not denominator.is_ground:
        raise InvalidParameterError("rate", exact(expr), "is a rational function of the counts, not a polynomial far out "
                                                         "(rewards, and the comparisons inside rates, must be)")
    return numerator, thresholds


def _one(gens: tuple) -> sympy.Poly:
    return sympy.Poly(1, *gens, domain="QQ")


def _positive(numerator: sympy.Poly, denominator: sympy.Poly, thresholds: Thresholds
              ) -> tuple[sympy.Poly, sympy.Poly, Thresholds]:
    """``n / d`` with common factors cancelled and ``d`` made positive far out (``d = 1`` if constant)."""
    if denominator.is_zero:
        raise InvalidParameterError("rate", numerator.as_expr(), "divides by zero")
    if not denominator.is_ground:
        numerator, denominator = numerator.cancel(denominator, include=True)
    if denominator.is_ground:
        return numerator.quo_ground(denominator.LC()), _one(numerator.gens), thresholds
    used = [g for g, degree in zip(denominator.gens, denominator.degree_list(), strict=True) if degree > 0]
    if len(used) > 1:
        if all(c <= 0 for _, c in denominator.terms()):
            numerator, denominator = -numerator, -denominator
        if any(c < 0 for _, c in denominator.terms()) or denominator.coeff_monomial(1) <= 0:
            raise InvalidParameterError("rate", numerator.as_expr() / denominator.as_expr(), "has a denominator in "
                                        "several counts with a negative coefficient or no positive constant term: its "
                                        "sign on the lattice is not decided")
        return numerator, denominator, thresholds
    sign, t = _sign_beyond(denominator)
    if sign < 0:
        numerator, denominator = -numerator, -denominator
    return numerator, denominator, _merge(thresholds, t)


def _compare(left: tuple, right: tuple) -> sympy.Poly:
    """A polynomial with the sign of ``left - right`` (fractions with positive denominators)."""
    return left[0] * right[1] - right[0] * left[1]


def _rational(expr: object, gens: tuple, values: dict | None = None) -> tuple[sympy.Poly, sympy.Poly, Thresholds]:
    expr = exact(expr)
    if values is not None and expr in values:
        return values[expr], _one(gens), {}
    if expr.is_Number:
        if not expr.is_Rational:
            raise InvalidParameterError("rate", expr, "must be a finite real number")
        return sympy.Poly(expr, *gens, domain="QQ"), _one(gens), {}
    if expr in gens:
        return sympy.Poly(expr, *gens, domain="QQ"), _one(gens), {}
    if isinstance(expr, sympy.Add | sympy.Mul):
        parts = [_rational(a, gens, values) for a in expr.args]
        n, d, threshold = parts[0]
        for pn, pd, t in parts[1:]:
            threshold = _merge(threshold, t)
            if isinstance(expr, sympy.Mul):
                n, d = n * pn, d * pd
            elif d == pd:
                n = n + pn
            else:
                n, d = n * pd + pn * d, d * pd
            n, d, threshold = _positive(n, d, threshold)
        return n, d, threshold
    if isinstance(expr, sympy.Pow) and expr.exp.is_Integer:
        n, d, t = _rational(expr.base, gens, values)
        k = int(expr.exp)
        return _positive(n ** k, d ** k, t) if k >= 0 else _positive(d ** -k, n ** -k, t)
    if isinstance(expr, sympy.Min | sympy.Max):
        parts = [_rational(a, gens, values) for a in expr.args]
        best = parts[0]
        threshold = _merge(*(t for _, _, t in parts))
        for part in parts[1:]:
            sign, t = _sign_beyond(_compare(part, best))
            threshold = _merge(threshold, t)
            if (sign < 0) if isinstance(expr, sympy.Min) else (sign > 0):
                best = part
        return best[0], best[1], threshold
    if isinstance(expr, sympy.Abs):
        n, d, t = _rational(expr.args[0], gens, values)
        sign, t_sign = _sign_beyond(n)
        return (-n if sign < 0 else n), d, _merge(t, t_sign)
    if isinstance(expr, sympy.Heaviside):
        n, _, t = _rational(expr.args[0], gens, values)
        sign, t_sign = _sign_beyond(n)
        if sign == 0:
            return _rational(expr.args[1] if len(expr.args) > 1 else sympy.Rational(1, 2), gens, values)
        return sympy.Poly(1 if sign > 0 else 0, *gens, domain="QQ"), _one(gens), _merge(t, t_sign)
    if isinstance(expr, sympy.Piecewise):
        threshold: Thresholds = {}
        for value, condition in expr.args:
            holds, t = _truth(condition, gens, values)
            threshold = _merge(threshold, t)
            if holds:
                n, d, t_value = _rational(value, gens, values)
                return n, d, _merge(threshold, t_value)
        raise InvalidParameterError("rate", expr, "is undefined for large values (no branch of the Piecewise holds)")
    names = ", ".join(map(str, gens))
    raise InvalidParameterError("rate", expr, "must be built from polynomials, quotients of them, Min, Max, Abs, "
                                              f"Heaviside and Piecewise in {names} for the drift to be proved symbolically")
