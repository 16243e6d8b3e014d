"""A certified bound on the error of every stationary probability, whatever method computed it.

Pin a state ``k`` and write the balance equations of the (scaled) generator ``Q'`` of
:mod:`analytic.ctmc._balance` as ``M x = b``: row ``i != k`` is ``x_i q'_i - sum_j x_j q'_ji = 0``,
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
the scaled matrix, ``c_i`` twice the relative excess of state i): were the ``c_i`` equal, ``g_i``
would be ``c`` times the mean number of jumps of the reversed chain from ``i`` to ``k``. The inequality ``M u >= |r|`` is then
*checked*, not assumed: both sides in double-double arithmetic with a rigorous bound on their
rounding (:meth:`Balance.excess`). Each state's relative error is at most ``u_i / x_i``, and the
normalized law's at most ``max((1 + Z) / (1 - z_i), (1 + z_i) / (1 - Z)) - 1`` with ``z_i = u_i / x_i``
and ``Z`` the stationary mean of ``z`` (:func:`normalized_bound`), before the result's own rounding.

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

from analytic._kernels import kernel
from analytic.ctmc._balance import Balance, Measure
from analytic.ctmc._spanning import spanning_tree

__all__ = ["Certificate", "certify", "normalized_bound", "relative_residual", "tree_bound"]

#: Relative rounding of one double operation.
_UNIT = 2.0**-53

#: The floor of the supersolution's right-hand side, relative to the largest need (``_floor_level``).
_LEVEL = 1e-6

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
        ``max g / max c``: how much the residual is amplified into the bound (a mean hitting time in
        jumps).

    Examples
    --------
    The chain with rates 1 (0 -> 1) and 2 (1 -> 0) has the uniform invariant measure once scaled
    (:class:`Balance`); the exact measure is certified, its residual being zero:

    >>> import scipy.sparse as sp
    >>> from analytic.ctmc._refinement import ScaledSolver
    >>> balance = Balance(sp.csr_array([[-1.0, 1.0], [2.0, -2.0]]))
    >>> x = Measure.from_parts(np.ones(2), np.zeros(2, np.int64))
    >>> solver = ScaledSolver(balance, "direct")
    >>> solver.update(x, 0, refactor=True)
    >>> certificate = certify(balance, x, 0, solver.solve)
    >>> certificate.holds, certificate.residual, bool(certificate.relative.max() < 1e-300)
    (True, 0.0, True)
    """

    relative: np.ndarray
    holds: bool
    residual: float
    amplification: float


def relative_residual(balance: Balance, x: Measure, reference: int) -> tuple[np.ndarray, np.ndarray]:
    """The flow excesses of ``x`` relative to each state's outflow, ``r_i / (x_i q'_i)`` (0 at the
    pinned state), and the same with their rounding bound added to their magnitude.

    Parameters
    ----------
    balance : Balance
        The scaled balance equations of the chain.
    x : Measure
        An approximate invariant measure of the scaled chain, positive.
    reference : int
        The pinned state.

    Returns
    -------
    value : numpy.ndarray
        ``r_i / (x_i q'_i)``, signed (inflow minus outflow), 0 at ``reference``.
    bound : numpy.ndarray
        ``|value|`` plus its rounding bound (a rigorous upper bound on the exact magnitude).

    Examples
    --------
    For the chain with rates 1 (0 -> 1) and 2 (1 -> 0), scaled to rates 1/2 both ways, a measure
    0.1 % too high at state 1 loses ``0.0005 / 0.5005`` of that state's outflow:

    >>> import scipy.sparse as sp
    >>> balance = Balance(sp.csr_array([[-1.0, 1.0], [2.0, -2.0]]))
    >>> x = Measure.from_parts(np.array([1.0, 1.001]), np.zeros(2, np.int64))
    >>> value, bound = relative_residual(balance, x, 0)
    >>> value.round(12).tolist(), round(0.0005 / 0.5005, 12)
    ([0.0, -0.000999000999], 0.000999000999)
    """
    value, bound = balance.excess(x.hi, x.lo, x.exponent)
    scale = balance.outflow * x.hi
    value[reference] = bound[reference] = 0.0
    return value / scale, (np.abs(value) + bound) / scale * (1 + 4 * _UNIT)


def certify(balance: Balance, x: Measure, reference: int,
            solve: Callable[[np.ndarray, float, np.ndarray], np.ndarray]) -> Certificate:
    """Bound the error of ``x`` (see the module docstring); ``solve(rhs, rtol, weights)`` solves the
    scaled system ``S y = rhs`` to a relative residual ``rtol`` in the 2-norm of ``weights * (S y -
    rhs)`` (approximately: the result is checked). The right-hand side is twice each row's own
    need (but not below a floor, ``_floor_level``), so that a state far in the tail, whose
    relative residual may be large, weighs on the others only through the probability that the
    reversed chain passes by it.

    Parameters
    ----------
    balance : Balance
        The scaled balance equations of the chain.
    x : Measure
        The measure to certify, positive, pinned at ``reference``.
    reference : int
        The pinned state ``k``.
    solve : callable
        ``solve(rhs, rtol, weights)``, an approximate solver of the scaled system of ``x`` pinned
        at ``reference`` (e.g. :meth:`ScaledSolver.solve`).

    Returns
    -------
    Certificate
        Per-state bounds on ``|x_true / x - 1|``, all ``inf`` when no supersolution was verified.

    Examples
    --------
    For the chain with rates 1 (0 -> 1) and 2 (1 -> 0), scaled to rates 1/2 both ways, a measure
    0.1 % too high at state 1 errs there by ``1 - 1/1.001`` relative; the bound holds and is twice
    that (the right-hand side is twice each row's need):

    >>> import scipy.sparse as sp
    >>> from analytic.ctmc._refinement import ScaledSolver
    >>> balance = Balance(sp.csr_array([[-1.0, 1.0], [2.0, -2.0]]))
    >>> x = Measure.from_parts(np.array([1.0, 1.001]), np.zeros(2, np.int64))
    >>> solver = ScaledSolver(balance, "direct")
    >>> solver.update(x, 0, refactor=True)
    >>> certificate = certify(balance, x, 0, solver.solve)
    >>> error = 1 - 1 / 1.001
    >>> certificate.holds, bool(error <= certificate.relative[1] <= 2.01 * error)
    (True, True)
    """
    _, need = relative_residual(balance, x, reference)
    largest = float(need.max())
    if not math.isfinite(largest):
        return Certificate(np.full(balance.n, np.inf), False, math.inf, math.inf)
    rhs = np.maximum(2 * need, _floor_level(x, need))   # twice what each row needs, at least a floor
    rhs[reference] = 0.0
    weights = 1 / np.where(rhs > 0, rhs, 1.0)
    rtol = 1 / (4 * math.sqrt(balance.n))
    g, supplied = np.zeros(balance.n), np.zeros(balance.n)
    amplification = math.inf
    try:
        for _ in range(_STEPS):   # refine g towards S g = rhs with S g evaluated in double-double
            g = np.maximum(g + solve(rhs - supplied, rtol, weights), 0.0)
            g[reference] = 0.0
            supplied, lowered = _supplied(balance, x, x.hi * g, np.zeros_like(g), reference)
            with np.errstate(over="ignore"):     # an unbounded amplification is reported as inf
                amplification = float(g.max() / rhs.max())
            if (lowered >= need).all():
                return Certificate(g * (1 + 4 * _UNIT) / (1 - 2 * _UNIT), True, largest, amplification)
    except FloatingPointError:      # the supersolution left the double range: no bound to check
        pass
    return Certificate(np.full(balance.n, np.inf), False, largest, amplification)


def _floor_level(x: Measure, need: np.ndarray) -> float:
    """The least right-hand side of the supersolution's equations: ``_LEVEL`` times the largest need
    among the states within the double range of the likeliest (a far tail with large relative
    residuals does not set it). Below it, a row's ``(S g)_i`` could not be resolved: ``g`` carries
    relative roundings of ``2**-53`` and is about the mean hitting time times the largest need."""
    above = x.relative_to_top() >= 2.0**-960
    return _LEVEL * 2 * float(need[above].max(initial=0.0)) + 2.0**-1000


def _supplied(balance: Balance, x: Measure, u_hi: np.ndarray, u_lo: np.ndarray,
              reference: int) -> tuple[np.ndarray, np.ndarray]:
    """``(M u)_i / (x_i q'_i)`` for ``u = (u_hi + u_lo) 2**x.exponent``: its value, and the value
    lowered by its rounding bound (rows other than the pinned one; the pinned row ``u_k >= 0``
    always holds)."""
    value, bound = balance.excess(u_hi, u_lo, x.exponent)
    scale = balance.outflow * x.hi
    supplied, lowered = -value / scale, (-value - bound) / scale * (1 - 4 * _UNIT)
    supplied[reference] = 0.0
    lowered[reference] = np.inf
    return supplied, lowered


def normalized_bound(relative: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
    """The bound on the relative error of each normalized probability, in exact arithmetic, from
    the bounds ``relative`` on the pinned measure. With ``x_true = x (1 + e)``, ``|e_i| <= z_i``,
    and ``Z = sum_j pi_j z_j`` (``pi = x / sum(x)``, taken a little high for the rounding of the
    computed ``pi``, and for the states whose probability underflowed to zero), the ratio of the
    computed to the exact probability is ``(1 + E) / (1 + e_i)`` with ``|E| <= Z``; the bound
    ``max((1 + Z) / (1 - z_i), (1 + z_i) / (1 - Z)) - 1`` holds for the error relative to the
    exact probability and to the computed one alike.

    Parameters
    ----------
    relative : numpy.ndarray
        ``z``: per state, a bound on the relative error of the pinned measure (>= 0, may be
        ``inf``).
    probabilities : numpy.ndarray
        The computed normalized law ``pi``, aligned with ``relative``.

    Returns
    -------
    numpy.ndarray
        Per state, a bound on the relative error of ``pi_i`` (``inf`` where ``z_i >= 1`` or
        ``Z >= 1``).

    Examples
    --------
    Two equally likely states, the second known to 1 %: ``Z = 0.005``, so the first is known to
    ``1 / 0.995 - 1`` (its exact value may be the computed one divided by ``1 - Z``) and the
    second to ``1.005 / 0.99 - 1``:

    >>> normalized_bound(np.array([0.0, 0.01]), np.array([0.5, 0.5])).round(6).tolist()
    [0.005025, 0.015152]
    >>> round(1 / 0.995 - 1, 6), round(1.005 / 0.99 - 1, 6)
    (0.005025, 0.015152)
    """
    n = len(relative)
    positive = probabilities > 0
    total = float(np.sum(probabilities[positive] * relative[positive])) * (1 + (math.log2(n) + 12) * _UNIT)
    total += float(np.sum(relative[~positive])) * 2.0**-1070   # states whose probability underflowed
    if not total < 1:
        return np.full(n, np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = np.maximum((1 + total) / (1 - relative), (1 + relative) / (1 - total)) - 1
    return np.where(relative < 1, bound, np.inf)


# ---------------------------------------------------------------------------------------------
# A bound that does not depend on the chain's conditioning: backward error on a spanning tree
# ---------------------------------------------------------------------------------------------


def tree_bound(balance: Balance, x: Measure) -> tuple[float, float]:
    """A bound on the relative error of every probability of ``x / sum(x)`` that does not grow with
    the chain's conditioning, and the relative rate perturbation ``eta`` behind it.

    Any measure ``x`` is the *exact* invariant measure of a chain whose rates differ from the given
    ones on the edges of a spanning tree: route each state's flow excess ``r_i`` to the root along
    the tree, changing the flow of each tree edge by the excess summed over the subtree below it.
    If that changes every rate by a relative ``eta < 1`` at most, the Markov chain tree theorem
    (``pi_i`` is proportional to the sum, over the spanning trees directed to ``i``, of the
    products of their ``n - 1`` rates) bounds each probability's relative error by
    ``((1 + eta) / (1 - eta))**(n - 1) - 1`` (the entrywise perturbation theory of O'Cinneide,
    *Entrywise perturbation theory and error analysis for Markov chains*, Numer. Math. 65, 1993).
    The subtree sums are the flow imbalances across cuts, small relative to the flows of the edges
    that carry them when ``x`` is accurate however unlikely the states behind a barrier or a weak
    coupling: the tree is the one that maximizes its smallest edge flows (a maximum spanning tree
    by flow). Sums and rounding are bounded as in :meth:`Balance.excess`.

    Parameters
    ----------
    balance : Balance
        The scaled balance equations of the chain.
    x : Measure
        An approximate invariant measure of the scaled chain, positive.

    Returns
    -------
    bound : float
        A bound on the relative error of every probability of ``x / sum(x)`` (``inf`` when
        ``eta >= 1``).
    eta : float
        The largest relative change of a tree edge's rate that makes ``x`` exact.

    Examples
    --------
    For the chain with rates 1 (0 -> 1) and 2 (1 -> 0), scaled to rates 1/2 both ways, a measure
    0.1 % too high at state 1 is exact for the chain whose rate 1 -> 0 is lower by a relative
    ``eta = 0.0005 / 0.5005 = 1/1001`` (state 0's excess over the flow of the edge); the bound is
    ``(1 + eta) / (1 - eta) - 1 = 0.002``, and the true error of ``x / sum(x)``, 0.05 %, is below:

    >>> import scipy.sparse as sp
    >>> balance = Balance(sp.csr_array([[-1.0, 1.0], [2.0, -2.0]]))
    >>> x = Measure.from_parts(np.array([1.0, 1.001]), np.zeros(2, np.int64))
    >>> bound, eta = tree_bound(balance, x)
    >>> round(bound, 9), round(eta * 1001, 9)
    (0.002, 1.0)
    """
    n = balance.n
    value, bound = balance.excess(x.hi, x.lo, x.exponent)
    matrix = balance.rates
    indptr, indices = matrix.indptr.astype(np.int64), matrix.indices.astype(np.int64)
    rows = np.repeat(np.arange(n), np.diff(indptr))
    with np.errstate(divide="ignore"):          # a state of measure zero has no flow
        log_flow = np.log2(x.hi[rows]) + np.log2(matrix.data) + x.exponent[rows]
    order, parent = spanning_tree(indptr, indices, -log_flow, int(np.argmax(x.relative_to_top())))  # largest flows
    eta = _subtree_eta(order, parent, value, bound, x.hi, x.exponent, indptr, indices, matrix.data)
    log_factor = (n - 1) * (math.log1p(eta) - math.log1p(-eta)) if eta < 1 else math.inf
    return (math.expm1(log_factor) if log_factor < 700 else math.inf), eta


@kernel
def _rate(indptr, indices, data, i, j):  # pragma: no cover - compiled
    """The rate from i to j (0 if none)."""
    for p in range(indptr[i], indptr[i + 1]):
        if indices[p] == j:
            return data[p]
    return 0.0


@kernel
def _subtree_eta(order, parent, value, bound, hi, exponent, indptr, indices, data):  # pragma: no cover - compiled
    """The largest relative change of a tree edge's flow that routes every state's excess to the
    root (see :func:`tree_bound`). Sums are held as mantissas and exponents (excesses of states
    whose measures differ by a thousand binary orders still add up), with a bound on their rounding."""
    total, total_exponent = value.copy(), exponent.copy()
    slack, slack_exponent = bound.copy(), exponent.copy()
    eta = 0.0
    for position in range(len(order) - 1, 0, -1):
        child = order[position]
        up = parent[child]
        forward, forward_exponent = math.frexp(_rate(indptr, indices, data, child, up))   # subnormal rates too
        backward, backward_exponent = math.frexp(_rate(indptr, indices, data, up, child))
        forward, forward_exponent = hi[child] * forward, exponent[child] + forward_exponent
        backward, backward_exponent = hi[up] * backward, exponent[up] + backward_exponent
        larger = forward > 0.0 and (backward == 0.0 or
                                    math.log2(forward) + forward_exponent >= math.log2(backward) + backward_exponent)
        if larger:
            flow, flow_exponent = forward * (1 - 2.0**-51), forward_exponent
        elif backward > 0.0:
            flow, flow_exponent = backward * (1 - 2.0**-51), backward_exponent
        else:                                   # no flow either way (a state of measure zero): no bound
            return np.inf
        carried = (math.ldexp(abs(total[child]), total_exponent[child] - flow_exponent)
                   + math.ldexp(slack[child], slack_exponent[child] - flow_exponent)) / flow
        eta = max(eta, carried * (1 + 2.0**-50))
        scale = max(total_exponent[up], total_exponent[child])
        added = (math.ldexp(total[up], total_exponent[up] - scale)
                 + math.ldexp(total[child], total_exponent[child] - scale))
        lost = 2.0**-52 * abs(added) + (2.0**-1070 if 0.0 < abs(added) < 2.0**-1000 else 0.0)   # in units 2**scale
        mantissa, power = math.frexp(added)
        total[up], total_exponent[up] = mantissa, power + scale
        top = max(slack_exponent[up], slack_exponent[child], scale)
        gathered = (math.ldexp(slack[up], slack_exponent[up] - top) + math.ldexp(slack[child], slack_exponent[child] - top)
                    + math.ldexp(lost, scale - top)) * (1 + 2.0**-50)
        if 0.0 < gathered < 2.0**-1000:
            gathered += 2.0**-1070
        mantissa, power = math.frexp(gathered)
        slack[up], slack_exponent[up] = mantissa, power + top
    return eta

