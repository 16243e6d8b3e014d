"""A certified bound on the error of every stationary probability, whatever method computed it.

Pin a state ``k`` and write the balance equations of the (scaled) generator ``Q'`` of
:mod:`analytic.ctmc.balance` as ``M x = b``: row ``i != k`` is ``x_i q'_i - sum_j x_j q'_ji = 0``,
row ``k`` is ``x_k = b_k``. ``M`` is a Z-matrix whose inverse is non-negative (it is block lower
triangular after moving ``k`` first, with the identity and the nonsingular M-matrix ``-Q'`` minus
row and column ``k`` on the diagonal, for an irreducible chain; Berman & Plemmons, *Nonnegative
Matrices in the Mathematical Sciences*, SIAM 1994, Ch. 6, condition (N38)). So for an approximate
measure ``x`` with ``x_k = b_k``, the error ``e = x_true - x = M^-1 r`` (``r = b - M x``, whose
entries are the flow excesses of ``x`` and 0 at ``k``) obeys

    ``|e| <= M^-1 |r| <= u``   for every ``u >= 0`` with ``M u >= |r|``

(inverse-positivity turns the inequality into the bound; the verification of a supersolution in
the spirit of Neumaier, *Interval Methods for Systems of Equations*, CUP 1990, Sec. 4.1). Such a
``u`` is found by solving ``S g = c`` approximately in the relative variables (``u = x g``, ``S``
the scaled matrix, ``c`` twice the largest relative excess): ``g_i`` is then ``c`` times the mean
number of jumps of the reversed chain from ``i`` to ``k``. The inequality ``M u >= |r|`` is then
*checked*, not assumed: both sides in double-double arithmetic with a rigorous bound on their
rounding (:meth:`Balance.excess`). Each state's relative error is at most ``u_i / x_i``, and the
normalized law's at most ``(1 + Z) / (1 - u_i / x_i) - 1`` with ``Z`` the stationary mean of
``u_i / x_i`` (:func:`normalized_bound`), before the result's own rounding.

A small residual alone certifies nothing (the map from residual to error is the chain's
conditioning); the checked supersolution is what turns it into a bound, state by state, for
probabilities of any size. The bound is of the order of the largest relative residual times the
mean hitting time of ``k`` in jumps, so an iterate kept in double-double (:class:`Measure`)
certifies chains whose hitting times reach 1e20.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from analytic.ctmc.balance import Balance, Measure

__all__ = ["Certificate", "certify", "normalized_bound", "relative_residual"]

#: Relative rounding of one double operation.
_UNIT = 2.0**-53

#: Refinement steps of the supersolution at most.
_STEPS = 4


@dataclass(frozen=True)
class Certificate:
    """A checked bound on the error of a measure.

    Attributes
    ----------
    relative : numpy.ndarray
        Per state, a bound on ``|x_true / x - 1|`` for the measure pinned at the reference state
        (``u_i / x_i``; ``inf`` where no bound holds). The normalized law's bound follows from it and
        the weights of the states (:func:`normalized_bound`).
    holds : bool
        Whether ``M u >= |r|`` was verified in every row (otherwise ``relative`` is all ``inf``).
    residual : float
        The largest relative flow excess ``|r_i| / (x_i q'_i)`` (rounding bound included).
    amplification : float
        ``max g / c``: how much the residual is amplified into the bound (a mean hitting time in jumps).
    """

    relative: np.ndarray
    holds: bool
    residual: float
    amplification: float


def relative_residual(balance: Balance, x: Measure, reference: int) -> tuple[np.ndarray, np.ndarray]:
    """The flow excesses of ``x`` relative to each state's outflow, ``r_i / (x_i q'_i)`` (0 at the
    pinned state), and the same with their rounding bound added to their magnitude."""
    value, bound, _ = balance.excess(x.hi, x.lo, x.exponent)
    scale = balance.outflow * x.hi
    value[reference] = bound[reference] = 0.0
    return value / scale, (np.abs(value) + bound) / scale * (1 + 4 * _UNIT)


def certify(balance: Balance, x: Measure, reference: int,
            solve: Callable[[np.ndarray, float], np.ndarray]) -> Certificate:
    """Bound the error of ``x`` (see the module docstring); ``solve(rhs, rtol)`` solves the scaled
    system ``S y = rhs`` to a relative residual ``rtol`` in the 2-norm (approximately: the result is checked)."""
    _, need = relative_residual(balance, x, reference)
    largest = float(need.max())
    if not math.isfinite(largest):
        return Certificate(np.full(balance.n, np.inf), False, math.inf, math.inf)
    level = 2 * largest if largest > 0 else 2.0**-1000
    rhs = np.full(balance.n, level)
    rhs[reference] = 0.0
    rtol = 1 / (4 * math.sqrt(balance.n))
    g = solve(rhs, rtol)
    for _ in range(_STEPS):       # refine g towards S g = rhs with S g evaluated in double-double
        g = np.maximum(g, 0.0)
        g[reference] = 0.0
        supplied, lowered = _supplied(balance, x, x.hi * g, np.zeros_like(g), reference)
        if (lowered >= need).all():
            return Certificate(g * (1 + 4 * _UNIT) / (1 - 2 * _UNIT), True, largest, float(g.max() / level))
        g = g + solve(rhs - supplied, rtol)
    return Certificate(np.full(balance.n, np.inf), False, largest, float(g.max() / level))


def _supplied(balance: Balance, x: Measure, u_hi: np.ndarray, u_lo: np.ndarray,
              reference: int) -> tuple[np.ndarray, np.ndarray]:
    """``(M u)_i / (x_i q'_i)`` for ``u = (u_hi + u_lo) 2**x.exponent``: its value, and the value
    lowered by its rounding bound (rows other than the pinned one; the pinned row ``u_k >= 0``
    always holds)."""
    value, bound, _ = balance.excess(u_hi, u_lo, x.exponent)
    scale = balance.outflow * x.hi
    supplied, lowered = -value / scale, (-value - bound) / scale * (1 - 4 * _UNIT)
    supplied[reference] = 0.0
    lowered[reference] = np.inf
    return supplied, lowered


def normalized_bound(relative: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
    """The bound on the relative error of each normalized probability, in exact arithmetic, from
    the bounds ``relative`` on the pinned measure: ``pi_i = x_i / sum(x)`` errs by at most
    ``(1 + Z) / (1 - z_i) - 1`` with ``Z = sum_j pi_j z_j`` (taken a little high for the rounding of
    the computed ``pi``, and for the states whose probability underflowed to zero)."""
    n = len(relative)
    positive = probabilities > 0
    total = float(np.sum(probabilities[positive] * relative[positive])) * (1 + (math.log2(n) + 12) * _UNIT)
    total += float(np.sum(relative[~positive])) * 2.0**-1070   # states whose probability underflowed
    with np.errstate(divide="ignore"):
        bound = (1 + total) / (1 - relative) - 1
    return np.where(relative < 1, bound, np.inf)
