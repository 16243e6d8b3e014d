"""Chains whose every transition can be undone: a measure in detailed balance to double-double
accuracy, and a bound on its error that does not depend on the chain's conditioning.

For such a chain (``q_ij > 0`` exactly when ``q_ji > 0``: birth–death chains, Metropolis and
Glauber dynamics, loss networks) write ``l_ij = log(x_i q_ij / (x_j q_ji))`` for a positive
measure ``x``. Then ``x`` satisfies detailed balance, hence is the exact invariant measure, for the
chain of rates ``q_ij exp(-l_ij / 2)``, whose rates out of each state i differ from the given ones
by a factor within ``exp(+-d_i)``, ``d_i = max_j |l_ij| / 2``. By the Markov chain tree theorem
(each spanning tree takes one rate out of every state but its root) the law changes by at most
``2 sum_i d_i`` in the Hilbert metric ``max_k log(x'_k / x_k) - min_k log(x'_k / x_k)`` (the
entrywise perturbation theory of O'Cinneide, *Entrywise perturbation theory and error analysis
for Markov chains*, Numer. Math. 65, 1993), so every probability of ``x / sum(x)`` is within a
relative ``exp(sum_i max_j |l_ij|) - 1`` of the exact law (:func:`reversible_bound`). For a
reversible chain each ``l_ij`` can be made a rounding of double-double arithmetic, whatever the
barriers between states: nothing is summed across a cut, unlike
:func:`~analytic.ctmc._certificate.tree_bound`, and nothing is amplified by the chain's mean hitting
times, unlike :func:`~analytic.ctmc._certificate.certify`.

:func:`detailed_balance` makes them so: a Newton step on ``log x``, the least-squares correction
``delta`` with ``delta_i - delta_j = -l_ij`` on every edge (a graph Laplacian, solved by SuperLU).
For a chain that is reversible up to the rounding of its rates the edges left unbalanced are that
rounding.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from analytic._kernels import kernel, two_product, two_sum
from analytic.ctmc._balance import Balance, Measure

__all__ = ["detailed_balance", "reversible_bound"]

#: :func:`detailed_balance` leaves chains of more states alone (its sparse factorization of the
#: graph Laplacian is a fallback, not meant for the 10**7-state lattices that GTH or the
#: certificate answer).
LAPLACIAN_STATES = 2_000_000

#: :func:`detailed_balance` corrects only measures whose every ``|l_ij|`` is below this (it linearizes
#: ``log``; a measure farther from balance is left to the refinement rounds).
_NEAR = 2.0**-20

#: Newton steps of :func:`detailed_balance` at most (one suffices from a measure accurate to 1e-12:
#: the step's own error is a relative 1e-6 of the correction).
_STEPS = 3


def reversible_bound(balance: Balance, x: Measure) -> float:
    """A bound on the relative error of every probability of ``x / sum(x)``, from how far ``x`` is from
    detailed balance edge by edge (module docstring); independent of the chain's conditioning.

    Parameters
    ----------
    balance : Balance
        The scaled balance equations of the chain.
    x : Measure
        An approximate invariant measure of the scaled chain (its double-double value is bounded).

    Returns
    -------
    float
        ``exp(sum_i max_j |l_ij|) - 1`` with each ``|l_ij|`` bounded above including its rounding;
        ``inf`` when a transition has no reverse, a state's measure is zero, or ``x`` is far from
        detailed balance on some edge.

    Examples
    --------
    The chain with rates 1 (0 -> 1) and 2 (1 -> 0), scaled to rates 1/2 both ways: a measure
    0.1 % too high at state 1 has ``|l_01| = |l_10| = log 1.001``, so the bound is about
    ``exp(2 log 1.001) - 1 = 0.2 %`` (each ``|log(1 + d)|`` taken as ``|d| / (1 - |d|)``), above
    the true error of ``x / sum(x)``, 0.05 %:

    >>> balance = Balance(sp.csr_array([[-1.0, 1.0], [2.0, -2.0]]))
    >>> x = Measure.from_parts(np.array([1.0, 1.001]), np.zeros(2, np.int64))
    >>> round(reversible_bound(balance, x), 6)
    0.002003
    """
    if not np.all(x.hi > 0):
        return math.inf
    _, bound = _edge_logs(balance, x)
    rows = np.repeat(np.arange(balance.n), np.diff(balance.rates.indptr))
    worst = np.zeros(balance.n)
    np.maximum.at(worst, rows, bound)
    total = float(worst.sum()) * (1 + (balance.n + 2) * 2.0**-52)
    return math.expm1(total) * (1 + 2.0**-50) if total < 700 else math.inf


def detailed_balance(balance: Balance, x: Measure) -> Measure:
    """``x`` corrected towards detailed balance: Newton steps on ``log x`` whose correction
    ``delta`` solves ``delta_i - delta_j = -l_ij`` over the edges in least squares (module
    docstring), while each step lowers the largest ``|l_ij|`` tenfold.

    Parameters
    ----------
    balance : Balance
        The scaled balance equations of a chain whose every transition can be undone.
    x : Measure
        A positive measure near the invariant one (the steps linearize ``log``).

    Returns
    -------
    Measure
        The corrected measure (``x`` itself for a chain with a one-way transition, of more than
        ``LAPLACIAN_STATES`` states, for an ``x`` with some ``|l_ij| >= 2**-20``, or where a step
        does not improve).

    Examples
    --------
    An M/M/1/2 queue (arrivals 1, service 2) is reversible, its law ``(4, 2, 1) / 7`` (the scaled
    chain's measure is that times ``2**row_exponent``); from a measure ``1e-7`` off, one step
    restores it to double-double accuracy:

    >>> balance = Balance(sp.csr_array([[-1.0, 1.0, 0], [2.0, -3.0, 1.0], [0, 2.0, -2.0]]))
    >>> exact = np.ldexp(np.array([4.0, 2.0, 1.0]), balance.row_exponent)
    >>> x = Measure.from_parts(exact * np.array([1.0, 1 + 1e-7, 1 - 1e-7]), np.zeros(3, np.int64))
    >>> mantissa, exponent = balance.probabilities(detailed_balance(balance, x))
    >>> law = np.ldexp(mantissa, exponent)
    >>> (law / law.sum() * 7).round(14).tolist()
    [4.0, 2.0, 1.0]
    """
    if balance.n > LAPLACIAN_STATES or not np.all(balance.reverse_rates() > 0) or not np.all(x.hi > 0):
        return x
    rates = balance.rates
    rows = np.repeat(np.arange(balance.n), np.diff(rates.indptr))
    edges = rows < rates.indices               # each pair once
    source, target = rows[edges], rates.indices[edges]
    laplacian = _pinned_laplacian(source, target, balance.n)
    reference = int(np.argmax(x.relative_to_top()))
    logs = _edge_logs(balance, x)[0]
    worst = float(np.abs(logs).max())
    for _ in range(_STEPS):
        if not 0.0 < worst < _NEAR:
            break
        divergence = np.zeros(balance.n)
        np.add.at(divergence, source, -logs[edges])
        np.add.at(divergence, target, logs[edges])
        delta = _solve_pinned(laplacian, divergence, reference)
        candidate = x.corrected(np.expm1(delta), np.ones(balance.n, bool), np.ones(balance.n))
        candidate_logs = _edge_logs(balance, candidate)[0]
        candidate_worst = float(np.abs(candidate_logs).max())
        if not candidate_worst < worst:
            break
        tenfold = candidate_worst < worst / 10
        x, logs, worst = candidate, candidate_logs, candidate_worst
        if not tenfold:
            break
    return x


def _pinned_laplacian(source: np.ndarray, target: np.ndarray, n: int) -> sp.csc_array:
    """The graph Laplacian of the undirected edges ``source - target`` (one entry per pair)."""
    ones = np.ones(len(source))
    adjacency = sp.coo_array((np.concatenate([ones, ones]), (np.concatenate([source, target]),
                                                            np.concatenate([target, source]))), shape=(n, n)).tocsr()
    degree = np.asarray(adjacency.sum(axis=1)).ravel()
    return (sp.diags_array(degree) - adjacency).tocsc()


def _solve_pinned(laplacian: sp.csc_array, rhs: np.ndarray, reference: int) -> np.ndarray:
    """``L delta = rhs`` with ``delta[reference] = 0`` (the Laplacian without that row and column
    is positive definite for a connected graph)."""
    keep = np.flatnonzero(np.arange(laplacian.shape[0]) != reference)
    delta = np.zeros(laplacian.shape[0])
    delta[keep] = spla.splu(laplacian[keep][:, keep].tocsc(), permc_spec="MMD_AT_PLUS_A").solve(rhs[keep])
    return delta


def _edge_logs(balance: Balance, x: Measure) -> tuple[np.ndarray, np.ndarray]:
    """Per transition i -> j (in the CSR order of ``balance.rates``): ``l_ij``, and a rigorous upper
    bound on ``|l_ij|`` (``inf`` for a one-way transition or a ratio of flows outside [1/2, 3/2])."""
    rates = balance.rates
    return _logs(rates.indptr.astype(np.int64), rates.indices.astype(np.int64), rates.data, balance.reverse_rates(),
                 x.hi, x.lo, x.exponent)


@kernel
def _logs(indptr, indices, data, back, hi, lo, exponent):  # pragma: no cover - compiled
    """``l = log(N / D)`` for the flows ``N = x_i q_ij`` and ``D = x_j q_ji`` of each transition, and a
    bound on ``|l|``. The flows are formed from mantissas in [1/2, 1) as double-doubles (the leading
    products exact, ``two_product``), so ``N - D`` has an absolute error below ``2**-98`` in the
    units of ``D``'s leading part ``D1 >= 1/4``; ``d = (N - D) / D1`` then errs by at most
    ``|d| 2**-49 + 2**-95``, and ``|log(1 + d)| <= |d| / (1 - |d|)``."""
    m = len(data)
    logs, bound = np.empty(m), np.empty(m)
    for i in range(len(indptr) - 1):
        for p in range(indptr[i], indptr[i + 1]):
            if back[p] == 0.0:
                logs[p], bound[p] = 0.0, np.inf
                continue
            j = indices[p]
            forward, forward_power = math.frexp(data[p])
            backward, backward_power = math.frexp(back[p])
            power = exponent[i] + forward_power - exponent[j] - backward_power
            n1, n2 = two_product(hi[i], forward)
            d1, d2 = two_product(hi[j], backward)
            if abs(power) > 4:
                logs[p], bound[p] = math.log(n1 / d1) + power * math.log(2.0), np.inf
                continue
            n1, n2, n3 = math.ldexp(n1, power), math.ldexp(n2, power), math.ldexp(lo[i] * forward, power)
            s, t = two_sum(n1, -d1)
            d = (s + (t + (n2 - d2) + (n3 - lo[j] * backward))) / d1
            if abs(d) >= 0.5:
                logs[p], bound[p] = math.log1p(d), np.inf
                continue
            b = abs(d) * (1.0 + 2.0**-49) + 2.0**-95
            logs[p], bound[p] = math.log1p(d), b / (1.0 - b) * (1.0 + 2.0**-50)
    return logs, bound
