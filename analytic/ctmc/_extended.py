"""Small chains beyond double precision: the measure and the certificate's supersolution in mpmath.

When a chain's pinned system is so ill conditioned that double precision cannot certify it (a
nearly completely decomposable chain with couplings of 1e-16: the reversed chain needs 1e16 jumps
to cross, so an error of one unit in the last place of any probability moves the others by order
one), the whole certificate of :mod:`analytic.ctmc._certificate` is computed here at
:func:`digits` significant digits: GTH (Grassmann, Taksar & Heyman 1985) for the measure, its flow
excesses, dense LU for the supersolution ``u`` and the check ``M u >= |r|``, each sum with a
bound on its rounding. Dense and cubic in the number of states: used up to
:data:`EXTENDED_STATES` states.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

from analytic.ctmc._balance import Balance, Measure
from analytic.ctmc._certificate import Certificate

__all__ = ["EXTENDED_STATES", "certified_measure", "digits"]

#: Largest chain solved in extended precision (about a second of mpmath arithmetic).
EXTENDED_STATES = 120


def certified_measure(balance: Balance) -> tuple[Measure, Certificate]:
    """The invariant measure of the scaled chain and its certificate, both computed in mpmath: the
    residual and ``M u`` with a bound of ``(terms + 2) 10**-digits`` on their rounding relative to
    the magnitudes summed, the supersolution pinned at the likeliest state.

    Parameters
    ----------
    balance : Balance
        The scaled balance equations of an irreducible chain of at most about
        :data:`EXTENDED_STATES` states (the work is cubic in the number of states).

    Returns
    -------
    x : Measure
        The invariant measure of the scaled chain, rounded to double-double.
    certificate : Certificate
        Its bounds (all ``inf`` if the check failed), pinned at the likeliest state.

    Raises
    ------
    FloatingPointError
        The pinned system is singular at the working precision.

    Examples
    --------
    Two pairs of states coupled by rates of 1e-14; the exact law is
    ``(1, 1, 1 + 1e-14, 1) / (4 + 1e-14)``:

    >>> import scipy.sparse as sp
    >>> balance = Balance(sp.csr_array([[0, 1, 1e-14, 0], [1, 0, 0, 0], [0, 0, 0, 1], [1e-14, 0, 1, 0]]))
    >>> x, certificate = certified_measure(balance)
    >>> mantissa, exponent = balance.probabilities(x)
    >>> pi = np.ldexp(mantissa, exponent) / np.ldexp(mantissa, exponent).sum()
    >>> exact = np.array([1, 1, 1 + 1e-14, 1]) / (4 + 1e-14)
    >>> certificate.holds, bool(certificate.relative.max() < 1e-25), bool(np.abs(pi / exact - 1).max() < 1e-15)
    (True, True, True)
    """
    n = balance.n
    precision = digits(balance)
    with mpmath.workdps(precision):
        unit = mpmath.mpf(10) ** (2 - precision)
        rates = _dense(balance)
        outflow = [mpmath.fsum(row) for row in rates]
        x = _gth(rates)
        reference = max(range(n), key=lambda i: x[i])
        excess, size = _excess(rates, outflow, x)
        need = [abs(excess[i]) + (n + 2) * unit * size[i] if i != reference else mpmath.mpf(0) for i in range(n)]
        largest = max(need[i] / (x[i] * outflow[i]) for i in range(n))
        level = 2 * largest if largest > 0 else mpmath.mpf(2) ** -1000
        system = mpmath.matrix(n, n)
        sources = mpmath.matrix(n, 1)
        for i in range(n):
            if i == reference:
                system[i, i] = 1
                continue
            system[i, i] = outflow[i]
            for j in range(n):
                if j != i and rates[j][i]:
                    system[i, j] = -rates[j][i]
            sources[i] = level * x[i] * outflow[i]
        try:
            u = [max(value, mpmath.mpf(0)) for value in mpmath.lu_solve(system, sources)]
        except ZeroDivisionError as exc:
            raise FloatingPointError(f"extended precision: {exc}") from None
        excess, size = _excess(rates, outflow, u)
        holds = all(-excess[i] - (n + 2) * unit * size[i] >= need[i] for i in range(n) if i != reference)
        relative = np.array([float(u[i] / x[i] * (1 + unit)) for i in range(n)])
        amplification = float(max(u[i] / x[i] for i in range(n)) / level)
    certificate = Certificate(relative + 2.0**-100 if holds else np.full(n, np.inf), holds, float(largest), amplification)
    return _measure(x), certificate


def _excess(rates: list[list], outflow: list, x: list) -> tuple[list, list]:
    """Inflow minus outflow of every state for the measure ``x``, and the magnitudes summed."""
    n = len(x)
    inflow = [[x[j] * rates[j][i] for j in range(n) if rates[j][i]] for i in range(n)]
    excess = [mpmath.fsum(terms) - x[i] * outflow[i] for i, terms in enumerate(inflow)]
    size = [mpmath.fsum(terms) + x[i] * outflow[i] for i, terms in enumerate(inflow)]
    return excess, size


def digits(balance: Balance) -> int:
    """The working precision: 40 significant digits beyond the decades the scaled rates span (the
    pinned system's condition grows with their ratio), at most 1000.

    Parameters
    ----------
    balance : Balance
        The scaled balance equations of the chain.

    Returns
    -------
    int
        Decimal digits, from 40 to 1000.

    Examples
    --------
    Rates 1 (0 -> 1) and 2 (1 -> 0) both scale to 1/2; with 1000 instead of 2 the scaled rates
    are 1/2 and 1000/1024, which span one more (partial) decade:

    >>> import scipy.sparse as sp
    >>> digits(Balance(sp.csr_array([[0, 1.0], [2.0, 0]]))), digits(Balance(sp.csr_array([[0, 1.0], [1000.0, 0]])))
    (40, 41)
    """
    rates = balance.rates.data
    decades = math.log10(rates.max()) - math.log10(rates.min())   # the ratio itself may overflow
    return min(40 + math.ceil(decades), 1000)


def _dense(balance: Balance) -> list[list]:
    """The scaled rates as a dense list of mpmath rows (exact: the doubles convert without rounding)."""
    rates = [[mpmath.mpf(0)] * balance.n for _ in range(balance.n)]
    matrix = balance.rates.tocoo()
    for i, j, value in zip(matrix.row, matrix.col, matrix.data, strict=True):
        rates[int(i)][int(j)] = mpmath.mpf(float(value))
    return rates


def _gth(rates: list[list]) -> list:
    """The invariant measure of dense rates by GTH: states eliminated from the last to the first."""
    n = len(rates)
    a = [row[:] for row in rates]
    pivots = [mpmath.mpf(0)] * n
    for k in range(n - 1, 0, -1):
        pivots[k] = mpmath.fsum(a[k][:k])
        for i in range(k):
            if a[i][k]:
                factor = a[i][k] / pivots[k]
                for j in range(k):
                    if j != i and a[k][j]:
                        a[i][j] += factor * a[k][j]
    pi = [mpmath.mpf(1)] + [mpmath.mpf(0)] * (n - 1)
    for k in range(1, n):
        pi[k] = mpmath.fsum(pi[i] * a[i][k] for i in range(k)) / pivots[k]
    return pi


def _measure(values: list) -> Measure:
    """mpmath values as a :class:`Measure` (double-double mantissas, integer exponents)."""
    parts = [mpmath.frexp(v) for v in values]
    hi = np.array([float(m) for m, _ in parts])
    lo = np.array([float(m - mpmath.mpf(float(m))) for m, _ in parts])
    return Measure.from_parts(hi, np.array([e for _, e in parts], dtype=np.int64), lo)
