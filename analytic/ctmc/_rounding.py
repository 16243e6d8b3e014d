"""An a-priori bound on the rounding error of the sparse GTH factorization, whatever the chain's
conditioning.

O'Cinneide (*Entrywise perturbation theory and error analysis for Markov chains*, Numer. Math. 65,
1993) proved that the dense GTH algorithm computes every stationary probability to a relative
error of a modest multiple of ``n**3 u``. This module derives the analogue for the multifrontal
elimination of :mod:`analytic.ctmc._gth` from its operation counts, and evaluates it from the
symbolic analysis alone. The argument (re-derived here for this implementation; the constants are
ours, not the paper's):

1. *Entrywise perturbation* (the Markov chain tree theorem). The invariant measure of an
   irreducible chain is ``x_k = sum over spanning trees T directed to k of prod_{(i -> j) in T}
   a_ij``; each state but k contributes exactly one out-edge to T. If every rate out of state i is
   multiplied by a factor in ``[e^-d_i, e^d_i]``, every such product changes by a factor in
   ``[e^-D, e^D]``, ``D = sum_i d_i``, so the measure changes by at most ``2 D`` in the Hilbert
   metric ``max_k log(x'_k / x_k) - min_k log(x'_k / x_k)``, which bounds the relative error of
   the normalized law.
2. *Backward error of one elimination.* With no underflow, each floating-point operation on
   non-negative numbers is exact up to a factor in ``[e^-u', e^u']``, ``u' = u / (1 - u)``,
   ``u = 2**-53``; a rounding in a sum of non-negative terms can be pushed onto each term. A
   computed entry of the censored chain is therefore a sum of *leaves* (the embedded rate and one
   update ``a_jt p_ti`` per earlier pivot t whose column of the factor holds j and i), each carrying its own
   factor: an update's two roundings (the product and its routing probability ``p_ti = a_ti /
   s_t``) and at most one per addition on its way, fewer than the leaves of its entry. With
   ``r_j`` the number of pivots whose column holds state j (its row count in the factor), the
   entry (j, i) has at most ``1 + min(r_j, r_i)`` leaves. The rounding of the pivot ``s_t`` (the
   sum of the ``c_t - 1`` rates out of t, ``c_t`` the entries of t's column, compensated: within
   ``u + ((c_t - 1) u)**2`` relative, Ogita, Rump & Oishi, *Accurate sum and dot product*, SIAM J.
   Sci. Comput. 26, 2005, Sum2; counted as two roundings, ample for any front that fits in memory)
   is the same factor ``theta_t`` for every update of pivot t and for t's back-substitution: it is
   *exactly* the censoring of the chain whose rates into t are divided by ``theta_t``, one
   perturbed rate out of each of the ``c_t - 1`` states of the column.
3. *Back-substitution.* ``x_t = sum_j x_j a_jt / s_t`` over the ``c_t - 1`` later states of t's
   column: ``c_t - 1`` roundings of a term at most (product, additions, quotient), so ``x_t``
   lies in the range of the ratios of its terms' errors widened by ``c_t u'``; terms that fell
   below the double range (the sum is held far above it) add less than ``c_t 2**-100``.

Chaining the levels from the root down, the Hilbert-metric distance between the computed measure
and the exact one is at most ``u'`` times

    ``S = sum_j 2 (1 + r_j) + sum_t [2 sum_{j in col(t), j != t} (4 + a_tj) + 2 c_t] + 2``

(embedded rates and their leaves; the pivot sum and the updates of each pivot; its
back-substitution; the final division by the outflows), with ``a_tj = min(r_j, max_{i != j} r_i)``
over t's column, plus ``sum_t 2 c_t 2**-100``. The counts are those of the factor's structure
(the elimination of the symmetrized transition graph, walked by row subtrees): an entry outside it
is an exact zero in every front, and adds or multiplies without rounding. It needs a factorization with no
underflow: no embedded rate, routing probability, censored rate or product of the two below
``2**-1022``, and no contribution shifted below it
(:class:`~analytic.ctmc._gth.Factorization` checks this). It grows like the factor's entries times
their row counts: ``24 n u'`` for a birth–death chain, far above the true error for a
``10**5``-state lattice, where the a-posteriori certificate of :mod:`analytic.ctmc._certificate`
is the sharper proof.
"""

from __future__ import annotations

import math

import numpy as np

from analytic._kernels import kernel

__all__ = ["factorization_bound", "rounding_sum"]

#: ``u' = u / (1 - u)``: one rounding multiplies a non-negative result by a factor within
#: ``[e^-u', e^u']``.
UNIT = 2.0**-53 / (1 - 2.0**-53)

#: The smallest normal double: below it a rounding is no longer relative.
SMALLEST_NORMAL = 2.0**-1022


def gamma(terms: int, margin: float = 1.0) -> float:
    """``γ_k = k u / (1 - k u)``, ``u = 2**-53``, times ``margin``: the relative rounding error of a sum of
    ``k`` non-negative products of doubles, or of ``k`` operations in a row (Higham, *Accuracy and
    Stability of Numerical Algorithms*, 2002, Lemma 3.1)."""
    return margin * terms * 2.0**-53 / (1 - terms * 2.0**-53)


def rounding_sum(indptr: np.ndarray, indices: np.ndarray, parent: np.ndarray) -> tuple[float, float]:
    """The counts of the bound (module docstring) on the structure of the factor: the number ``S`` of
    roundings' worth, and the absolute term of the back-substitution's sums.

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        The symmetric pattern of the chain's transitions in CSR, its states numbered in the order
        of elimination (the root last).
    parent : numpy.ndarray
        The elimination tree of that pattern (``-1`` at a root).

    Returns
    -------
    roundings : float
        ``S``: the Hilbert-metric error is at most ``S u'`` plus ``tiny``.
    tiny : float
        ``sum_t 2 c_t 2**-100``.

    Examples
    --------
    Two states: the root comes last (it has no back-substitution); the first pivot has ``c = 2``,
    the row counts are ``r = (0, 1)`` and ``a = min(1, 0) = 0``, so
    ``S = 2 + 2 (1 + 0) + 2 (1 + 1) + 2 (4 + 0) + 2 * 2 = 20``:

    >>> pattern = (np.array([0, 1, 2]), np.array([1, 0]))
    >>> rounding_sum(*pattern, np.array([1, -1]))[0]
    20.0
    """
    return _roundings(indptr.astype(np.int64), indices.astype(np.int64), parent.astype(np.int64))


def factorization_bound(roundings: float, tiny: float) -> float:
    """The bound on the relative error of every normalized probability from the counts of
    :func:`rounding_sum`: ``exp(S u' + tiny) - 1``, taken a little high for its own rounding.

    Parameters
    ----------
    roundings : float
        ``S``, >= 0.
    tiny : float
        The absolute term, >= 0.

    Returns
    -------
    float
        The bound (``inf`` beyond the double range).

    Examples
    --------
    ``36 n`` roundings of a birth–death chain of 100 states: about ``4e-13``.

    >>> round(factorization_bound(3600, 0.0) / 4e-13, 3)
    0.999
    """
    exponent = (roundings * UNIT + tiny) * (1 + 2.0**-40)
    return math.expm1(exponent) * (1 + 2.0**-40) if exponent < 700 else math.inf


@kernel
def _row_subtree(indptr, indices, parent, mark, k, visited):  # pragma: no cover - compiled
    """The columns t < k of the factor holding row k (its row subtree in the elimination tree), into
    ``visited``; returns how many."""
    count = 0
    mark[k] = k
    for p in range(indptr[k], indptr[k + 1]):
        i = indices[p]
        while i < k and mark[i] != k:
            mark[i] = k
            visited[count] = i
            count += 1
            i = parent[i]
    return count


@kernel
def _roundings(indptr, indices, parent):  # pragma: no cover - compiled
    """``S`` and the absolute term of the module docstring, from three passes over the row subtrees:
    the row and column counts, the two largest row counts of each column, then each entry's
    ``c_t + min(r_j, max_{i != j} r_i)``."""
    n = len(indptr) - 1
    mark = -np.ones(n, np.int64)
    visited = np.empty(n, np.int64)
    rows, columns = np.zeros(n, np.int64), np.ones(n, np.int64)
    for k in range(n):
        count = _row_subtree(indptr, indices, parent, mark, k, visited)
        rows[k] = count
        for v in range(count):
            columns[visited[v]] += 1
    top, second, at = -np.ones(n, np.int64), -np.ones(n, np.int64), -np.ones(n, np.int64)
    mark[:] = -1
    for k in range(n):
        for v in range(_row_subtree(indptr, indices, parent, mark, k, visited)):
            t = visited[v]
            if rows[k] > top[t]:
                top[t], second[t], at[t] = rows[k], top[t], k
            elif rows[k] > second[t]:
                second[t] = rows[k]
    total, tiny = 2.0, 0.0                        # 2: the division by the outflows
    mark[:] = -1
    for k in range(n):
        total += 2.0 * (1 + rows[k])              # an embedded rate and the additions of its leaf
        for v in range(_row_subtree(indptr, indices, parent, mark, k, visited)):
            t = visited[v]
            other = second[t] if at[t] == k else top[t]
            total += 2.0 * (4 + min(rows[k], max(other, 0)))   # pivot sum (2) and update (2 + additions), row k of t
    for t in range(n):
        if columns[t] > 1:                        # back-substitution of t (the root is pinned)
            total += 2.0 * columns[t]
            tiny += 2.0 * columns[t] * 2.0**-100
    return total, tiny
