"""Multilevel aggregation for chains of millions of states: a starting measure and a preconditioner.

States are aggregated by pairwise matching along the strongest couplings, level after level, down
to a chain small enough for an exact solve.

- :func:`aggregation_measure` runs V-cycles of iterative aggregation–disaggregation (Horton &
  Leutenegger, *A multi-level solution algorithm for steady-state Markov chains*, ACM SIGMETRICS
  1994; Takahashi's two-level method of 1975): a Gauss–Seidel sweep of the balance equations, the
  chain aggregated with the current measure's weights inside each aggregate, the coarse chain
  solved (recursively, GTH at the bottom), its law spread back in proportion to the weights, a
  sweep again. Ten cycles bring the likeliest states of the greedy(p*) chains within a binary order
  or so of their law, where the lazy jumps of :meth:`Balance.rough_measure` leave them tens of orders
  off: the first refinement round then starts where its linear solve can resolve the correction.
- :class:`Multilevel` preconditions the scaled system ``S delta = rho`` of
  :mod:`analytic.ctmc._refinement` by a V-cycle: ILU(0) smoothing on each level, the residual
  restricted by a flow-weighted average over each aggregate (summing the balance equations of its
  states, in flows), the correction prolonged constant on each aggregate; the coarse matrices are
  those of the aggregated chains, so the slow, smooth components of the error that ILU(0) leaves
  are removed on the coarse levels.

On the greedy(p*) chain at n = 100 (214 625 states) the first GMRES solve from the lazy-jump
measure takes 101 iterations with this preconditioner against 256 with ILU(0), and 24 from the
aggregation measure; at n = 200 (3.1·10⁶ states) the rounds from the aggregation measure converge
(a default call is vouched in about four minutes), where ILU(0) from the lazy-jump measure
stagnated.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from analytic._kernels import kernel
from analytic.ctmc import _gth as gth
from analytic.ctmc._balance import Balance, Measure
from analytic.ctmc._preconditioner import ILU0

__all__ = ["Multilevel", "aggregation_measure"]

#: Chains of at least this many states are solved iteratively with the aggregation measure and the
#: multilevel preconditioner (smaller ones: the lazy-jump measure and ILU(0), which cost less).
MULTILEVEL_STATES = 100_000

#: Levels stop when the chain has at most this many states; it is then solved exactly.
COARSEST = 3_000

#: V-cycles of :func:`aggregation_measure`.
CYCLES = 10

#: The measure's values below this fraction of its largest are raised to it (as the lazy jumps').
_FLOOR = 2.0**-1000


@kernel
def _match(indptr, indices, data):  # pragma: no cover - compiled
    """Aggregates of two states mostly: each state in turn, if unmatched, with its unmatched
    neighbour of largest coupling, or, when every neighbour is taken, into the aggregate of its
    neighbour of largest coupling (so that a hub's many leaves do not stay alone level after
    level: on a 196 740-state BS-FCFS chain pairs alone stalled near 7 900 aggregates, and the
    V-cycle's recursion overflowed); returns each state's aggregate and their number."""
    n = len(indptr) - 1
    aggregate = -np.ones(n, np.int64)
    m = 0
    for i in range(n):
        if aggregate[i] >= 0:
            continue
        best, strongest, taken, heaviest = -1, 0.0, -1, 0.0
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            if j == i:
                continue
            if aggregate[j] < 0 and data[p] > strongest:
                best, strongest = j, data[p]
            elif aggregate[j] >= 0 and data[p] > heaviest:
                taken, heaviest = j, data[p]
        if best < 0 and taken >= 0:
            aggregate[i] = aggregate[taken]
            continue
        aggregate[i] = m
        if best >= 0:
            aggregate[best] = m
        m += 1
    return aggregate, m


def _prolongation(aggregate: np.ndarray, m: int) -> sp.csr_array:
    n = len(aggregate)
    return sp.csr_array((np.ones(n), (np.arange(n), aggregate)), shape=(n, m))


def _coarsen(coupling: sp.csr_array, passes: int) -> tuple[np.ndarray, sp.csr_array]:
    """Aggregates of about ``2**passes`` states: ``passes`` rounds of pairwise matching, each on the
    couplings (summed both ways) between the aggregates of the round before; returns each state's
    aggregate and the couplings between the aggregates (diagonal dropped)."""
    aggregate = np.arange(coupling.shape[0])
    for _ in range(passes):
        both = (coupling + coupling.T).tocsr()
        pairs, m = _match(both.indptr.astype(np.int64), both.indices.astype(np.int64), both.data)
        aggregate = pairs[aggregate]
        step = _prolongation(pairs, m)
        coupling = _without_diagonal(step.T @ coupling @ step)
    return aggregate, coupling


def _without_diagonal(matrix: sp.csr_array) -> sp.csr_array:
    matrix = sp.csr_array(matrix, copy=True)
    matrix.setdiag(0.0)
    matrix.eliminate_zeros()
    return matrix


class Multilevel:
    """A V-cycle preconditioner for the scaled matrix ``S`` of a measure (module docstring), with
    :meth:`solve` applying it; a drop-in for :class:`~analytic.ctmc._preconditioner.ILU0`.

    Parameters
    ----------
    matrix : scipy.sparse.csr_array
        The scaled matrix ``S`` (a nonsingular M-matrix, one row pinned).
    log_flow : numpy.ndarray
        ``log2`` of each state's flow ``x_i q_i`` under the measure (any common offset): the weights
        of its balance equation in its aggregate's.
    aggregates : list of numpy.ndarray, optional
        The aggregate of each state of each level (the ``aggregates`` attribute of an earlier one):
        reused instead of matching again.

    Examples
    --------
    On a chain of two states a single level is an exact solve:

    >>> S = sp.csr_array([[1.0, 0.0], [-1.0, 1.0]])
    >>> Multilevel(S, np.zeros(2)).solve(np.array([0.0, 1.0])).tolist()
    [0.0, 1.0]
    """

    def __init__(self, matrix: sp.csr_array, log_flow: np.ndarray, aggregates: list[np.ndarray] | None = None) -> None:
        self.matrix = sp.csr_array(matrix)
        self.aggregates = [] if aggregates is None else aggregates
        n = self.matrix.shape[0]
        if n <= COARSEST:
            self._lu = spla.splu(self.matrix.tocsc(), permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0,
                                 options=dict(SymmetricMode=True))
            self._next = None
            return
        self._smoother = ILU0(self.matrix, np.arange(n))
        if not self.aggregates:
            self.aggregates.append(_coarsen(abs(_without_diagonal(self.matrix)), 3)[0])
        aggregate = self.aggregates[0]
        m = int(aggregate.max()) + 1
        top = np.full(m, -np.inf)
        np.maximum.at(top, aggregate, log_flow)
        weight = np.exp2(log_flow - top[aggregate])
        total = np.bincount(aggregate, weight, minlength=m)
        self._prolong = _prolongation(aggregate, m)
        self._restrict = sp.csr_array((weight / total[aggregate], (aggregate, np.arange(n))), shape=(m, n))
        coarse = _outflow_diagonal((self._restrict @ self.matrix @ self._prolong).tocsr(), top + np.log2(total))
        self._next = Multilevel(coarse, top + np.log2(total), self.aggregates[1:] or None)
        if len(self.aggregates) == 1:
            self.aggregates.extend(self._next.aggregates)

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """One V-cycle: an approximation of ``S^-1 rhs``.

        Parameters
        ----------
        rhs : numpy.ndarray
            A vector of length n.

        Returns
        -------
        numpy.ndarray
            The preconditioned vector.

        Examples
        --------
        >>> S = sp.csr_array([[1.0, 0.0], [-0.5, 1.0]])
        >>> Multilevel(S, np.zeros(2)).solve(np.array([0.0, 2.0])).tolist()
        [0.0, 2.0]
        """
        if self._next is None:
            return self._lu.solve(rhs)
        y = self._smoother.solve(rhs)
        y += self._prolong @ self._next.solve(self._restrict @ (rhs - self.matrix @ y))
        y += self._smoother.solve(rhs - self.matrix @ y)
        return y


def _outflow_diagonal(coarse: sp.csr_array, log_flow: np.ndarray) -> sp.csr_array:
    """The coarse matrix with each diagonal entry at least its aggregate's flow out to the others
    over its own flow (summed subtraction-free from the off-diagonal entries of its column, rows
    ``J`` in units of flow ``2**log_flow[J]``). Summing an aggregate's balance equations subtracts
    its internal flows from its total flow; on a tightly coupled aggregate the difference, which
    is its flow out, cancels to zero or below in rounding, and ILU(0) would lose its pivot."""
    off = _without_diagonal(coarse).tocoo()
    ratio = np.exp2(np.minimum(log_flow[off.row] - log_flow[off.col], 1000.0))
    outflow = np.bincount(off.col, -off.data * ratio, minlength=coarse.shape[0])
    coarse = sp.csr_array(coarse)
    coarse.setdiag(np.maximum(coarse.diagonal(), outflow))
    return coarse


def aggregation_measure(balance: Balance, cycles: int = CYCLES) -> Measure:
    """A measure of the scaled chain from ``cycles`` V-cycles of multilevel iterative
    aggregation–disaggregation (module docstring), from the uniform one; values below
    ``2**-1000`` of the largest are raised to it.

    Parameters
    ----------
    balance : Balance
        The scaled balance equations of the chain.
    cycles : int
        V-cycles.

    Returns
    -------
    Measure
        The measure (a starting point for :func:`~analytic.ctmc._refinement.refine`).

    Examples
    --------
    On a birth–death chain (rates 1 up, 2 down, 6 000 states, four levels) the law halves from state
    to state; after ten cycles the measure does so within 1 %:

    >>> up, down = np.full(5999, 1.0), np.full(5999, 2.0)
    >>> balance = Balance(sp.diags_array([down, up], offsets=[-1, 1]).tocsr())
    >>> x = aggregation_measure(balance)
    >>> law = x.hi * np.exp2(x.exponent - balance.row_exponent)
    >>> np.allclose(law[1:500] / law[:499], 0.5, rtol=1e-2, atol=0)
    True
    """
    aggregates, level = [], balance.rates
    while level.shape[0] > COARSEST:
        aggregate, level = _coarsen(level, 1)
        aggregates.append(aggregate)
    x = np.ones(balance.n)
    for _ in range(cycles):
        x = _cycle(balance.rates, aggregates, x)
    fraction, exponent = np.frexp(x)
    return Measure.from_parts(fraction, exponent.astype(np.int64))


def _cycle(rates: sp.csr_array, aggregates: list[np.ndarray], x: np.ndarray) -> np.ndarray:
    """One V-cycle on the chain of off-diagonal ``rates`` with its measure ``x``, aggregated by
    ``aggregates`` level after level (exact GTH at the bottom); returns the new measure, largest
    value 1."""
    if not aggregates:
        coarse = Balance(rates)
        law = gth.Factorization(coarse, gth.analyse(coarse.rates)).measure()
        power = law.exponent - coarse.row_exponent      # relative to the largest positive value: no overflow
        law = law.hi * np.exp2((power - power[law.hi > 0].max()).astype(float))
        return np.maximum(law / law.max(), _FLOOR)
    into = rates.T.tocsr()
    arrays = (into.indptr.astype(np.int64), into.indices.astype(np.int64), into.data,
              np.asarray(rates.sum(axis=1)).ravel())
    x = _sweep(*arrays, x.copy())
    aggregate = aggregates[0]
    total = np.bincount(aggregate, x)
    weight = x / total[aggregate]
    step = _prolongation(aggregate, len(total))
    coarse = _cycle(_without_diagonal(step.T @ sp.diags_array(weight) @ rates @ step), aggregates[1:], total / total.max())
    return _sweep(*arrays, coarse[aggregate] * weight)


@kernel
def _sweep(indptr, indices, data, outflow, x):  # pragma: no cover - compiled
    """One Gauss–Seidel sweep of the balance equations ``x_j q_j = sum_i x_i q_ij`` (rates into each
    state given as CSR rows), in place, then scaled to largest value 1 and raised to ``2**-1000``."""
    for j in range(len(x)):
        total = 0.0
        for p in range(indptr[j], indptr[j + 1]):
            total += x[indices[p]] * data[p]
        x[j] = total / outflow[j]
    return np.maximum(x / x.max(), _FLOOR)
