"""The balance equations of a chain in relative form, and measures that span any range.

A generator ``Q`` is first scaled row by row by powers of two, ``Q' = D Q`` with ``D = diag(2**-e_i)``
chosen so that every state's total outflow lies in [1/2, 1). The scaling is exact (a rate that would
lose bits is refused), ``Q'`` is again a generator, and its invariant measures are those of ``Q``
multiplied by ``2**e_i``: subnormal or huge rates become ordinary numbers, and the exponents are
carried separately (:class:`Measure`). Every computation of this package's solvers and of the
certificate (:mod:`analytic.ctmc._certificate`) happens on ``Q'``.

Two quantities are computed here for an approximate invariant measure ``x``:

* the **flow excess** ``E_i(x) = sum_j x_j q'_ji - x_i q'_i`` (inflow minus outflow), in
  double-double arithmetic with a rigorous bound on what the rounding left, in units of
  ``2**exponent_i`` so that nothing under- or overflows;
* the **scaled matrix** ``S = I - P`` with ``P_ij = x_j q'_ji / (x_i q'_i)``, the balance equations
  in the relative variables ``delta = x_true / x - 1``: ``P`` is the jump chain of the time-reversed
  chain when ``x`` is exact, so ``S`` is well scaled however widely the probabilities range.

The module stays above 700 lines because :class:`Balance` and the compiled loops over its sparse
rows are one unit: each method is a thin call of a kernel below it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order, dijkstra

from analytic._double_double import two_sum as exact_sum
from analytic._kernels import kernel, two_product, two_sum
from analytic.ctmc._spanning import spanning_tree
from analytic.errors import InvalidParameterError

__all__ = ["Balance", "Measure"]


#: A measure whose median relative flow excess is below this balances the chain (up to rounding).
_BALANCED = 1e-9

#: Below this many transitions a second GTH factorization (a root guessed badly) costs less than the
#: lazy jumps of :meth:`Balance.rough_measure` (2e7 multiply-adds), so the root is guessed without them.
_FEW_TRANSITIONS = 20_000


@dataclass(frozen=True)
class Measure:
    """A positive measure held as ``(hi + lo) * 2**exponent`` state by state.

    ``hi`` lies in [1/2, 1) (or is 0), ``|lo| <= ulp(hi) / 2``: together about 32 significant digits,
    at any magnitude.

    Attributes
    ----------
    hi : numpy.ndarray
        Leading mantissas, in [1/2, 1) or 0.
    lo : numpy.ndarray
        Trailing parts, in units of ``2**exponent`` like ``hi``.
    exponent : numpy.ndarray
        Binary exponents (int64).

    Examples
    --------
    ``3 = 0.75 * 2**2`` and ``2**-2000``, far below the double range, as ``0.5 * 2**-1999``:

    >>> Measure.from_parts(np.array([3.0, 1.0]), np.array([0, -2000]))
    Measure(hi=array([0.75, 0.5 ]), lo=array([0., 0.]), exponent=array([    2, -1999]))
    """

    hi: np.ndarray
    lo: np.ndarray
    exponent: np.ndarray

    @classmethod
    def from_parts(cls, mantissa: np.ndarray, exponent: np.ndarray, low: np.ndarray | None = None) -> Measure:
        """``(mantissa + low) * 2**exponent``, renormalized.

        Parameters
        ----------
        mantissa : numpy.ndarray
            Leading parts, finite and >= 0, of any size.
        exponent : numpy.ndarray
            Integer binary exponents, aligned with ``mantissa``.
        low : numpy.ndarray, optional
            Trailing parts in the same units (default zero).

        Returns
        -------
        Measure
            The same values with ``hi`` in [1/2, 1) (or 0) and ``|lo| <= ulp(hi) / 2``.

        Examples
        --------
        ``3 = 0.75 * 2**2``, and ``1 + 2**-60``, which no double holds, as a double-double:

        >>> Measure.from_parts(np.array([3.0]), np.array([0]))
        Measure(hi=array([0.75]), lo=array([0.]), exponent=array([2]))
        >>> x = Measure.from_parts(np.array([1.0]), np.array([0]), np.array([2.0**-60]))
        >>> x.hi.tolist(), x.lo.tolist() == [2.0**-61], x.exponent.tolist()
        ([0.5], True, [1])
        """
        low = np.zeros_like(mantissa) if low is None else low
        hi, lo = exact_sum(mantissa.astype(float), low.astype(float))
        fraction, power = np.frexp(hi)
        return cls(fraction, np.ldexp(lo, -power), exponent.astype(np.int64) + power)

    def corrected(self, delta: np.ndarray, exact: np.ndarray, factor: np.ndarray) -> Measure:
        """``x * (1 + delta)`` in double-double where ``exact``, ``x * factor`` elsewhere.

        Parameters
        ----------
        delta : numpy.ndarray
            Relative corrections, > -1 where ``exact``.
        exact : numpy.ndarray
            Boolean, per state: whether ``delta`` is applied.
        factor : numpy.ndarray
            Positive factors applied to the other states.

        Returns
        -------
        Measure
            The corrected measure.

        Examples
        --------
        >>> x = Measure.from_parts(np.ones(2), np.zeros(2, np.int64))
        >>> y = x.corrected(np.array([0.5, -0.5]), np.array([True, False]), np.array([1.0, 0.25]))
        >>> np.ldexp(y.hi + y.lo, y.exponent).tolist()
        [1.5, 0.25]
        """
        product, error = _products(self.hi, delta)
        hi, lo = exact_sum(self.hi, product)
        lo = lo + error + self.lo * (1.0 + delta)
        hi = np.where(exact, hi, self.hi * factor)
        lo = np.where(exact, lo, 0.0)
        return Measure.from_parts(hi, self.exponent, lo)

    def relative_to_top(self) -> np.ndarray:
        """``x / 2**max(exponent)`` as doubles (for sums and comparisons).

        Returns
        -------
        numpy.ndarray
            The values in (0, 1) or 0, those below about ``2**-1100`` of the top flushed to 0.

        Examples
        --------
        ``(3, 1)`` is held as ``(0.75 * 2**2, 0.5 * 2**1)``, hence ``(3, 1) / 4``:

        >>> Measure.from_parts(np.array([3.0, 1.0]), np.array([0, 0])).relative_to_top().tolist()
        [0.75, 0.25]
        """
        top = int(self.exponent[self.hi > 0].max())
        return np.ldexp(self.hi, np.maximum(self.exponent - top, -1100))


@kernel
def _products(a, b):  # pragma: no cover - compiled
    p, e = np.empty_like(a), np.empty_like(a)
    for i in range(len(a)):
        p[i], e[i] = two_product(a[i], b[i])
    return p, e


class Balance:
    """The balance equations of an irreducible generator, rows scaled exactly by powers of two.

    Parameters
    ----------
    generator : scipy.sparse.csr_array
        The generator ``Q``, shape (n, n); only its off-diagonal rates (finite, >= 0) are read.

    Attributes
    ----------
    n : int
        Number of states.
    row_exponent : numpy.ndarray
        ``e_i``: the rates out of state i were divided by ``2**e_i``.
    rates : scipy.sparse.csr_array
        The scaled off-diagonal rates ``q'_ij`` (row i: out of i).
    into : scipy.sparse.csr_array
        Its transpose (row i: the rates into i).
    out_csr, in_csr : tuple of numpy.ndarray
        ``(indptr, indices, data)`` of ``rates`` and of ``into``, with int64 indices (the compiled
        kernels' arguments; scipy may hold its index arrays as int32).
    outflow : numpy.ndarray
        ``q'_i`` rounded to double, in [1/2, 1] (its double-double value is used in the sums).

    Raises
    ------
    InvalidParameterError
        A rate is below ``2**-1074`` times the total rate out of its state (the rates out of one
        state span more than the double range).

    Examples
    --------
    Rates 1 (0 -> 1) and 2 (1 -> 0) are divided by 2 and 4: both outflows become 1/2, and the
    scaled chain's invariant measures are uniform.

    >>> import scipy.sparse as sp
    >>> balance = Balance(sp.csr_array([[-1.0, 1.0], [2.0, -2.0]]))
    >>> balance.row_exponent.tolist(), balance.outflow.tolist()
    ([1, 2], [0.5, 0.5])
    """

    def __init__(self, generator: sp.csr_array) -> None:
        indptr, indices, data = _off_diagonal(generator)
        self.n = n = generator.shape[0]
        total = _row_reduce(np.add, data, indptr)
        unbounded = ~(total < np.inf)       # a sum that overflowed: the largest rate sets the scale
        if unbounded.any():
            total = np.where(unbounded, _row_reduce(np.maximum, data, indptr), total)
        self.row_exponent = np.frexp(total)[1].astype(np.int64)
        scaled, at = _scaled_rows(indptr, data, self.row_exponent)
        if at >= 0:
            row = int(np.searchsorted(indptr, at, side="right")) - 1
            raise InvalidParameterError(
                "rate", float(data[at]),
                f"from state {row} to {indices[at]} is too small against the total rate out of state "
                f"{row} ({total[row]:.3g}): relative to it, it falls below the normal doubles (2**-1022) "
                "and loses bits; the rates out of one state span more than the double range")
        self.rates = sp.csr_array((scaled, indices, indptr), shape=(n, n))
        self.out_csr = (indptr, indices, scaled)
        self.in_csr = transpose(indptr, indices, scaled, n)
        self._outflow_hi, self._outflow_lo, self._outflow_error = _row_sums(indptr, scaled)
        self.outflow = self._outflow_hi + self._outflow_lo
        self._orders: dict[int, np.ndarray] = {}
        self._rough: Measure | None = None
        self._tree: Measure | None = None
        self._edges: tuple[np.ndarray, np.ndarray] | None = None
        self._reverse: np.ndarray | None = None

    @cached_property
    def into(self) -> sp.csr_array:
        """The transpose of ``rates`` (row i: the rates into i), column indices sorted."""
        indptr, indices, data = self.in_csr
        return sp.csr_array((data, indices, indptr), shape=(self.n, self.n))

    def order_toward(self, reference: int) -> np.ndarray:
        """The states by decreasing distance (in transitions) from ``reference``, which comes last: a
        Cuthill–McKee order from ``reference``, reversed. Eliminating towards the pinned state keeps
        an LU of the scaled system from subtracting nearly equal numbers (its pivots are then
        probabilities of escaping towards the pinned state, not of avoiding it), and keeps the
        bandwidth of a level structure.

        Parameters
        ----------
        reference : int
            The pinned state.

        Returns
        -------
        numpy.ndarray
            The indices of the states (int64), ``reference`` last.

        Examples
        --------
        On the path 0 - 1 - 2 - 3, towards state 2: state 0 (two steps away), then 3 and 1:

        >>> import scipy.sparse as sp
        >>> path = sp.diags_array([np.ones(3), -np.array([1.0, 2, 2, 1]), np.ones(3)], offsets=[-1, 0, 1])
        >>> Balance(path.tocsr()).order_toward(2).tolist()
        [0, 3, 1, 2]
        """
        if reference not in self._orders:
            found = breadth_first_order((self.rates + self.into).tocsr(), reference, directed=False,
                                        return_predecessors=False)
            self._orders[reference] = found[::-1].astype(np.int64)
        return self._orders[reference]

    def positive(self, x: Measure) -> Measure:
        """``x`` with its zero entries (values that underflowed, far below the others) replaced by
        positive ones, in order of distance from the positive states: each continues its largest
        positive neighbour ``j`` by the ratio of detailed balance along a spanning tree,
        ``x_i = x_j r_i / r_j`` (exact for reversible chains; the jump chain's measure, flat where
        it is floored, would not do). A filled value is a first guess, refined and bounded like any
        other; the certificate needs every state positive. (Filling by the inflow from the positive
        side alone loses a constant factor per step: across the thousands of steps of a lattice's
        tail, more than the double range.)

        Parameters
        ----------
        x : Measure
            A measure with at least one positive entry.

        Returns
        -------
        Measure
            ``x`` itself when every entry is positive, else a copy with the zeros filled.

        Examples
        --------
        An M/M/1/2 queue (arrivals at rate 1, service at rate 2) scales to a chain whose invariant
        measure is ``(2, 4/3, 1)`` up to a factor (its law ``(4, 2, 1) / 7`` times the outflows
        ``(1, 3, 2)``, scaled by powers of two); the zeros of states 1 and 2 are restored from state 0:

        >>> import scipy.sparse as sp
        >>> balance = Balance(sp.csr_array([[-1.0, 1.0, 0], [2.0, -3.0, 1.0], [0, 2.0, -2.0]]))
        >>> x = Measure.from_parts(np.array([1.0, 0.0, 0.0]), np.zeros(3, np.int64))
        >>> mantissa, exponent = balance.probabilities(balance.positive(x))
        >>> law = np.ldexp(mantissa, exponent)
        >>> (law / law.sum() * 7).round(12).tolist()
        [4.0, 2.0, 1.0]
        """
        if np.all(x.hi > 0):
            return x
        graph = (self.rates + self.into).tocsr()
        zero = np.flatnonzero(x.hi == 0)
        distance = dijkstra(graph, unweighted=True, indices=np.flatnonzero(x.hi > 0), min_only=True)
        tree = self._tree_measure()
        hi, lo, exponent = x.hi.copy(), x.lo.copy(), x.exponent.copy()
        _fill(graph.indptr.astype(np.int64), graph.indices.astype(np.int64), tree.hi, tree.exponent,
              zero[np.argsort(distance[zero], kind="stable")], hi, lo, exponent)
        return Measure(hi, lo, exponent)

    def rough_measure(self) -> Measure:
        """A first measure for the rounds of :mod:`analytic.ctmc._refinement`, positive everywhere at
        any range: the better balanced (by the median relative flow excess) of two cheap guesses,
        ``_tree_measure`` (exact for reversible chains) and ``_jump_measure`` (good where
        the jump chain mixes fast).

        Returns
        -------
        Measure
            A positive approximate invariant measure of the scaled chain.

        Examples
        --------
        An M/M/1/2 queue (arrivals at rate 1, service at rate 2) is reversible: the rough measure
        is already its geometric law ``(4, 2, 1) / 7``.

        >>> import scipy.sparse as sp
        >>> balance = Balance(sp.csr_array([[-1.0, 1.0, 0], [2.0, -3.0, 1.0], [0, 2.0, -2.0]]))
        >>> mantissa, exponent = balance.probabilities(balance.rough_measure())
        >>> law = np.ldexp(mantissa, exponent)
        >>> (law / law.sum()).round(9).tolist()
        [0.571428571, 0.285714286, 0.142857143]
        """
        if self._rough is None:
            self._rough = min([self._tree_measure(), self._jump_measure()], key=self._imbalance)
        return self._rough

    def likely_state(self) -> int:
        """A guess at the likeliest state of the scaled chain (``x_i = pi_i 2**e_i``, within a factor two
        of the flow ``pi_i q_i``): the largest value of detailed balance along a spanning tree where
        that balances the chain (a reversible one) or the chain is small, of :meth:`rough_measure`
        otherwise. GTH is rooted there; a guess far in a tail is corrected by
        :func:`~analytic.ctmc.stationary.solve`.

        Returns
        -------
        int
            The index of the state.

        Examples
        --------
        An M/M/1/2 queue (arrivals at rate 3, service at rate 1): ``pi = (1, 3, 9) / 13``, the outflows
        ``(3, 4, 1)`` scaled by ``2**(2, 3, 1)``: ``x = (4, 24, 18) / 13``, largest in state 1:

        >>> import scipy.sparse as sp
        >>> Balance(sp.csr_array([[-3.0, 3.0, 0], [1.0, -4.0, 3.0], [0, 1.0, -1.0]])).likely_state()
        1
        """
        tree = self._tree_measure()
        cheap = self.rates.nnz < _FEW_TRANSITIONS or self._imbalance(tree) < _BALANCED
        guess = tree if cheap else self.rough_measure()
        return int(np.argmax(guess.relative_to_top()))

    def reverse_rates(self) -> np.ndarray:
        """For each transition ``i -> j`` of ``rates`` (in its CSR order), the scaled rate
        ``j -> i`` (0 where the chain cannot step back).

        Returns
        -------
        numpy.ndarray
            Aligned with ``rates.data``.

        Examples
        --------
        Rates out of state 0 (total 2) are divided by 4, out of states 1 and 2 (totals 2 and 1) by
        4 and 2: ``0 -> 1`` (1/4) comes back at 1/2 and ``1 -> 0`` the other way; ``0 -> 2`` and
        ``2 -> 1`` have no way back:

        >>> import scipy.sparse as sp
        >>> balance = Balance(sp.csr_array([[-2.0, 1.0, 1.0], [2.0, -2.0, 0], [0, 1.0, -1.0]]))
        >>> balance.rates.data.tolist(), balance.reverse_rates().tolist()
        ([0.25, 0.25, 0.5, 0.5], [0.5, 0.0, 0.25, 0.0])
        """
        if self._reverse is None:
            self._reverse = _reverse_rates(*self.out_csr[:2], *self.in_csr)
        return self._reverse

    def _imbalance(self, x: Measure) -> float:
        value, _ = self.excess(x.hi, x.lo, x.exponent)
        return float(np.median(np.abs(value) / (self.outflow * x.hi)))

    def _tree_measure(self) -> Measure:
        """Detailed balance along a spanning tree, ``x_c = x_p q'_pc / q'_cp`` from a parent p to its
        child c (``q'_pc / q'_c`` where the chain cannot step back), the tree chosen to use the
        largest rates both ways, in logarithms (computed once)."""
        if self._tree is not None:
            return self._tree
        indptr, indices, data = self.out_csr
        back = self.reverse_rates()
        among = _first_of_pairs(indptr, indices, back)      # a pair joined both ways weighs the same both ways
        rate, reverse = data[among], back[among]
        both = reverse > 0
        weight = np.where(both, -np.log2(rate) - np.log2(np.where(both, reverse, 1.0)), np.inf)
        order, parent = spanning_tree(indptr, indices, weight, 0, among)     # one-way steps last
        log_x = _tree_logs(order, parent, indptr, indices, data, self.outflow)
        whole = np.floor(log_x)
        self._tree = Measure.from_parts(np.exp2(log_x - whole), whole.astype(np.int64))
        return self._tree

    def _jump_measure(self) -> Measure:
        """Steps of the lazy jump chain from the uniform law (about 2e7 multiply-adds' worth, between
        100 and 2 000 steps), divided by the outflows; values below ``2**-1000`` of the largest are
        raised to it."""
        steps = int(np.clip(2e7 / max(self.rates.nnz, 1), 100, 2_000))
        indptr, indices, data = self.in_csr
        flow = _lazy_jumps(indptr, indices, data / self.outflow[indices], steps)
        flow = np.maximum(flow, flow.max() * 2.0**-1000)
        return Measure.from_parts(flow / self.outflow, np.zeros(self.n, np.int64))

    def probabilities(self, x: Measure) -> tuple[np.ndarray, np.ndarray]:
        """The stationary law of ``Q`` from an invariant measure ``x`` of ``Q'``: mantissas and exponents
        of the unnormalized values ``x_i 2**-e_i``.

        Parameters
        ----------
        x : Measure
            An invariant measure of the scaled chain.

        Returns
        -------
        mantissa : numpy.ndarray
            ``x.hi + x.lo``.
        exponent : numpy.ndarray
            ``x.exponent - row_exponent``: the values are ``mantissa * 2**exponent``, unnormalized.

        Examples
        --------
        The uniform measure of the scaled chain of rates 1 (0 -> 1) and 2 (1 -> 0) gives
        ``pi = (2, 1) / 3``:

        >>> import scipy.sparse as sp
        >>> balance = Balance(sp.csr_array([[-1.0, 1.0], [2.0, -2.0]]))
        >>> mantissa, exponent = balance.probabilities(Measure.from_parts(np.ones(2), np.zeros(2, np.int64)))
        >>> law = np.ldexp(mantissa, exponent)
        >>> (law / law.sum()).round(12).tolist()
        [0.666666666667, 0.333333333333]
        """
        return x.hi + x.lo, x.exponent - self.row_exponent

    def normalized(self, x: Measure) -> tuple[np.ndarray, float]:
        """The stationary law of ``Q`` from an invariant measure ``x`` of ``Q'``, rounded once: the sum
        is carried in double-double (Ogita, Rump & Oishi, *Accurate sum and dot product*, SIAM J.
        Sci. Comput. 26, 2005, Sum2) and each quotient is formed in double-double before its one
        rounding to a double.

        Parameters
        ----------
        x : Measure
            A positive measure of the scaled chain (at least one entry positive).

        Returns
        -------
        probabilities : numpy.ndarray
            ``p_i`` for the value ``v_i = x_i 2**-e_i`` of :meth:`probabilities`: ``v_i / sum(v)``
            rounded, ``|p_i - v_i / sum(v)| <= rounding * v_i / sum(v) + 2**-1075`` (the absolute
            term only where ``p_i`` is subnormal).
        rounding : float
            The relative bound: ``2**-53`` for the final rounding plus what the double-double sum
            and quotient leave and the values below ``2**-1000`` of the largest leave out of it.

        Examples
        --------
        The uniform measure of the scaled chain of rates 1 (0 -> 1) and 2 (1 -> 0) gives
        ``pi = (2, 1) / 3``, each rounded once:

        >>> import scipy.sparse as sp
        >>> balance = Balance(sp.csr_array([[-1.0, 1.0], [2.0, -2.0]]))
        >>> law, rounding = balance.normalized(Measure.from_parts(np.ones(2), np.zeros(2, np.int64)))
        >>> law.tolist() == [2 / 3, 1 / 3], bool(rounding < 1.0001 * 2.0**-53)
        (True, True)
        """
        _, exponent = self.probabilities(x)
        top = int(exponent[x.hi > 0].max())
        law = _normalized(x.hi, x.lo, exponent - top)
        n = float(self.n)
        return law, 2.0**-53 + (n * n + n + 16) * 2.0**-104 + n * 2.0**-999

    def excess(self, hi: np.ndarray, lo: np.ndarray, exponent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Inflow minus outflow of every state for the measure ``(hi + lo) 2**exponent``, in units of
        ``2**exponent_i``: the values, and a rigorous bound on their rounding error.

        Parameters
        ----------
        hi : numpy.ndarray
            Leading mantissas of the measure (as :attr:`Measure.hi`).
        lo : numpy.ndarray
            Trailing parts (as :attr:`Measure.lo`).
        exponent : numpy.ndarray
            Binary exponents (int64).

        Returns
        -------
        value : numpy.ndarray
            ``E_i(x) / 2**exponent_i``: inflow minus outflow, scaled.
        bound : numpy.ndarray
            A bound on the absolute rounding error of each value, in the same units.

        Examples
        --------
        The scaled chain of rates 1 (0 -> 1) and 2 (1 -> 0) has rates 1/2 both ways. For the
        measure ``(1, 1.001)``, held as ``(0.5, 0.5005) * 2``, state 0 receives ``0.0005`` more
        than it sends, ``0.00025`` in units of 2:

        >>> import scipy.sparse as sp
        >>> balance = Balance(sp.csr_array([[-1.0, 1.0], [2.0, -2.0]]))
        >>> x = Measure.from_parts(np.array([1.0, 1.001]), np.zeros(2, np.int64))
        >>> value, bound = balance.excess(x.hi, x.lo, x.exponent)
        >>> value.round(12).tolist(), bool(bound.max() < 1e-18)
        ([0.00025, -0.00025], True)
        """
        return _excess(*self.in_csr, self._outflow_hi, self._outflow_lo, self._outflow_error, hi, lo, exponent)

    def largest_shift(self, x: Measure) -> int:
        """The largest ``exponent_j - exponent_i`` of ``x`` over the transitions ``j -> i``: how many
        binary orders a state's inflow may exceed its own measure's unit.

        Parameters
        ----------
        x : Measure
            A positive measure.

        Returns
        -------
        int
            The largest exponent difference along a transition.

        Examples
        --------
        >>> import scipy.sparse as sp
        >>> balance = Balance(sp.csr_array([[-1.0, 1.0], [2.0, -2.0]]))
        >>> balance.largest_shift(Measure.from_parts(np.ones(2), np.array([0, -2000])))
        2000
        """
        if self._edges is None:
            coo = self.rates.tocoo()
            self._edges = (coo.row.astype(np.int64), coo.col.astype(np.int64))
        source, target = self._edges
        return int((x.exponent[source] - x.exponent[target]).max(initial=0))

    def lifted_excess(self, x: Measure, lift: int) -> np.ndarray:
        """Inflow minus outflow of every state in units of ``2**(exponent_i + lift)``, in plain
        doubles (no rounding bound): the excesses of a measure that is far too small somewhere, whose
        values in the measure's own units (:meth:`excess`) overflow.

        Parameters
        ----------
        x : Measure
            A positive measure.
        lift : int
            The power of two the excesses are divided by (>= 0).

        Returns
        -------
        numpy.ndarray
            ``E_i(x) / 2**(exponent_i + lift)``.

        Examples
        --------
        Rates 1/2 both ways (the scaled chain of rates 1 and 2) and the measure ``(1, 2**-2000)``,
        held as ``0.5 * 2**1`` and ``0.5 * 2**-1999``: state 1 receives ``1/2`` and sends
        ``2**-2001``; in units of ``2**(-1999 + 1000)`` its excess is ``2**998`` (the outflow is
        lost in the rounding):

        >>> import scipy.sparse as sp
        >>> balance = Balance(sp.csr_array([[-1.0, 1.0], [2.0, -2.0]]))
        >>> x = Measure.from_parts(np.ones(2), np.array([0, -2000]))
        >>> bool(balance.lifted_excess(x, 1000)[1] == 2.0**998)
        True
        """
        indptr, indices, data = self.in_csr
        return _lifted_excess(indptr, indices, data, self.outflow, x.hi, x.exponent, lift)

    def scaled_matrix(self, x: Measure, reference: int) -> sp.csr_array:
        """``S = I - P`` with ``P_ij = x_j q'_ji / (x_i q'_i)``, row ``reference`` replaced by the unit row.

        Parameters
        ----------
        x : Measure
            A positive measure of the scaled chain.
        reference : int
            The pinned state.

        Returns
        -------
        scipy.sparse.csr_array
            ``S``, shape (n, n), unit diagonal, column indices sorted.

        Raises
        ------
        FloatingPointError
            An entry overflows: the measures of two neighbouring states differ by more than the
            double range.

        Examples
        --------
        For the exact (uniform) measure of the scaled chain of rates 1 (0 -> 1) and 2 (1 -> 0),
        all of state 1's inflow comes from state 0:

        >>> import scipy.sparse as sp
        >>> balance = Balance(sp.csr_array([[-1.0, 1.0], [2.0, -2.0]]))
        >>> x = Measure.from_parts(np.ones(2), np.zeros(2, np.int64))
        >>> balance.scaled_matrix(x, 0).toarray().tolist()
        [[1.0, 0.0], [-1.0, 1.0]]
        """
        indptr, indices, data = self.in_csr
        rows = np.repeat(np.arange(self.n), np.diff(indptr))
        with np.errstate(over="ignore"):         # reported below
            values = -data / self.outflow[rows] * np.ldexp(x.hi[indices] / x.hi[rows], x.exponent[indices] - x.exponent[rows])
        values[rows == reference] = 0.0
        if not np.all(np.isfinite(values)):
            raise FloatingPointError("the scaled system left the double range: the measures of two neighbouring states "
                                     "differ by more than it holds")
        return _with_unit_diagonal(indptr, indices, values, self.n)


def _off_diagonal(generator: sp.csr_array) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR arrays (int64 indices, float rates) of the off-diagonal nonzero entries of ``generator``,
    one per transition, sorted within each row: the chain the solvers and bounds see. A generator
    already in canonical form (the chains' own) is filtered without being copied first."""
    matrix = generator if isinstance(generator, sp.csr_array) else sp.csr_array(generator)
    if not matrix.has_canonical_format:     # duplicates summed, indices sorted
        matrix = sp.csr_array(matrix, copy=True)
        matrix.sum_duplicates()
    n = matrix.shape[0]
    rows = np.repeat(np.arange(n), np.diff(matrix.indptr))
    keep = (matrix.indices != rows) & (matrix.data != 0)
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(rows[keep], minlength=n), out=indptr[1:])
    return indptr, matrix.indices[keep].astype(np.int64), matrix.data[keep].astype(float)


def _row_reduce(ufunc: np.ufunc, data: np.ndarray, indptr: np.ndarray) -> np.ndarray:
    """``ufunc`` over each row of a CSR matrix, in its order (0 for an empty row)."""
    out = np.zeros(len(indptr) - 1)
    nonempty = np.flatnonzero(np.diff(indptr))
    if nonempty.size:
        out[nonempty] = ufunc.reduceat(data, indptr[nonempty])
    return out


@kernel
def transpose(indptr, indices, data, n):  # pragma: no cover - compiled
    """CSR arrays of the transpose of an n x n CSR matrix (a counting sort: its column indices come
    out sorted).

    Examples
    --------
    >>> indptr, indices, data = transpose(np.array([0, 2, 3]), np.array([0, 1, 0]), np.array([1.0, 2.0, 3.0]), 2)
    >>> indptr.tolist(), indices.tolist(), data.tolist()
    ([0, 2, 3], [0, 1, 0], [1.0, 3.0, 2.0])
    """
    ptr = np.zeros(n + 1, np.int64)
    for q in range(indptr[n]):
        ptr[indices[q] + 1] += 1
    for i in range(n):
        ptr[i + 1] += ptr[i]
    at = ptr[:n].copy()
    out_indices, out_data = np.empty(indptr[n], np.int64), np.empty(indptr[n], data.dtype)
    for i in range(n):
        for q in range(indptr[i], indptr[i + 1]):
            c = indices[q]
            out_indices[at[c]], out_data[at[c]] = i, data[q]
            at[c] += 1
    return ptr, out_indices, out_data


@kernel
def _scaled_rows(indptr, data, row_exponent):  # pragma: no cover - compiled
    """Each row of a CSR matrix divided by ``2**row_exponent``, and the first entry that loses bits
    so (-1 if none)."""
    scaled = np.empty(len(data))
    lost = -1
    for i in range(len(indptr) - 1):
        for p in range(indptr[i], indptr[i + 1]):
            scaled[p] = _ldexp(data[p], -row_exponent[i])
            if lost < 0 and _ldexp(scaled[p], row_exponent[i]) != data[p]:
                lost = p
    return scaled, lost


@kernel
def _fill(indptr, indices, shape_hi, shape_exponent, states, hi, lo, exponent):  # pragma: no cover - compiled
    """In place, for each of ``states`` in turn: its largest positive neighbour ``j`` times the ratio
    ``r_i / r_j`` of the measure ``r`` (``shape``), as a mantissa and an exponent."""
    for i in states:
        best, best_value = -1, -np.inf
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            if hi[j] > 0.0 and exponent[j] + math.log2(hi[j]) > best_value:
                best, best_value = j, exponent[j] + math.log2(hi[j])
        mantissa, power = math.frexp(hi[best] * shape_hi[i] / shape_hi[best])
        hi[i], lo[i], exponent[i] = mantissa, 0.0, power + exponent[best] + shape_exponent[i] - shape_exponent[best]


@kernel
def _normalized(hi, lo, shift):  # pragma: no cover - compiled
    """``(hi + lo) 2**shift / S`` rounded once, for ``S`` the sum of the values with ``shift >= -1000``
    (the others add less than ``n 2**-1000`` to a sum of at least 1/2): the sum as a double-double
    ``s + e`` (cascaded two-sums, Sum2; relative error at most ``(2n u)**2 / (1 - 2n u)``), each
    quotient as ``q + (hi - q s + lo - q e) / s`` with ``q s`` split exactly (``two_product``), then
    one rounding (relative ``2**-53``, or absolute ``2**-1075`` below the normal range)."""
    s, e = 0.0, 0.0
    for i in range(len(hi)):
        if hi[i] > 0.0 and shift[i] >= -1000:
            s, error = two_sum(s, _ldexp(hi[i], shift[i]))
            e += error
            s, error = two_sum(s, _ldexp(lo[i], shift[i]))
            e += error
    s, e = two_sum(s, e)
    law = np.zeros(len(hi))
    for i in range(len(hi)):
        if hi[i] > 0.0:
            q = hi[i] / s
            p1, p2 = two_product(q, s)
            correction = ((hi[i] - p1) - p2 + lo[i] - q * e) / s
            law[i] = _ldexp(q + correction, shift[i])
    return law


@kernel
def _reverse_rates(indptr, indices, in_indptr, in_indices, in_data):  # pragma: no cover - compiled
    """For each transition i -> j of a CSR matrix, the rate j -> i (0 if none): the entry j of row i
    of its transpose (``in_*``), found by merging the two rows i (both sorted) in one pass."""
    back = np.zeros(len(indices))
    for i in range(len(indptr) - 1):
        q, end = in_indptr[i], in_indptr[i + 1]
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            while q < end and in_indices[q] < j:
                q += 1
            if q < end and in_indices[q] == j:
                back[p] = in_data[q]
    return back


@kernel
def _first_of_pairs(indptr, indices, back):  # pragma: no cover - compiled
    """The transitions ``i -> j`` of a CSR pattern but those with ``j < i`` whose reverse rate
    ``back`` is positive (the pair's other transition comes first), by increasing index."""
    keep = np.empty(len(indices), np.int64)
    count = 0
    for i in range(len(indptr) - 1):
        for p in range(indptr[i], indptr[i + 1]):
            if indices[p] > i or back[p] == 0.0:
                keep[count] = p
                count += 1
    return keep[:count]


@kernel
def _tree_logs(order, parent, indptr, indices, data, outflow):  # pragma: no cover - compiled
    """``log2 x`` by detailed balance down the tree given by ``order`` (root first) and ``parent``:
    each state's step from its parent, ``log2 x_c - log2 x_p = up - down``, is read off the rows in
    their order, then the steps are added down the tree (the order jumps about memory: that pass
    reads four numbers a state, not two rows)."""
    n = len(indptr) - 1
    forward, backward = np.zeros(n), np.zeros(n)
    for i in range(n):
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            if parent[j] == i:
                forward[j] = data[p]
            if parent[i] == j:
                backward[i] = data[p]
    up, down = np.zeros(n), np.zeros(n)
    for c in range(n):
        if parent[c] < 0:
            continue
        if forward[c] > 0.0:
            up[c], down[c] = math.log2(forward[c]), math.log2(backward[c] if backward[c] > 0.0 else outflow[c])
        else:   # only child -> parent: the parent's inflow from the child, the child's outflow
            up[c], down[c] = math.log2(outflow[parent[c]]), math.log2(backward[c])
    log_x = np.zeros(n)
    for position in range(1, len(order)):
        child = order[position]
        log_x[child] = log_x[parent[child]] + up[child] - down[child]
    return log_x


@kernel
def _lazy_jumps(indptr, indices, probability, steps):  # pragma: no cover - compiled
    """At most ``steps`` steps ``v <- (v + v P) / 2`` of the jump chain from the uniform law, fewer
    once a step changes no entry by more than 1e-9 of itself (a fixed point to the precision a
    first guess needs: small chains stop after tens of steps); ``probability`` holds ``P_ji`` in
    the CSR layout of the rates into each state."""
    n = len(indptr) - 1
    v = np.full(n, 1.0 / n)
    w = np.empty(n)
    for _ in range(steps):
        change = 0.0
        for i in range(n):
            s = 0.0
            for p in range(indptr[i], indptr[i + 1]):
                s += v[indices[p]] * probability[p]
            w[i] = 0.5 * (v[i] + s)
            change = max(change, abs(w[i] - v[i]) / w[i] if w[i] > 0.0 else 0.0)
        v, w = w, v
        if change <= 1e-9:
            break
    return v


@kernel
def _row_sums(indptr, data):  # pragma: no cover - compiled
    """Each row's sum as a double-double ``hi + lo``, and a bound on its error: the roundings of the
    low-order accumulation (``two_sum`` itself is exact)."""
    n = len(indptr) - 1
    hi, lo, error = np.zeros(n), np.zeros(n), np.zeros(n)
    for i in range(n):
        s, c, bound = 0.0, 0.0, 0.0
        for p in range(indptr[i], indptr[i + 1]):
            s, e = two_sum(s, data[p])
            c += e
            bound += _UNIT * abs(c)
        hi[i], lo[i] = two_sum(s, c)
        error[i] = bound
    return hi, lo, error


#: Unit roundoff of a double: the relative error of one rounded operation.
_UNIT = 2.0**-53


@kernel
def _excess(indptr, indices, data, out_hi, out_lo, out_error, hi, lo, exponent):  # pragma: no cover - compiled
    """See :meth:`Balance.excess`. Products are formed exactly (``two_product``) and scaled to state
    i's units by powers of two, then accumulated in double-double. The error bound is a running
    error analysis: every rounded operation adds ``2**-53`` times the size of its result, so a sum
    whose terms cancel exactly carries no error; products too small for Dekker's product to be
    exact, scaled values that underflow, the omitted product of the two low parts and the error of
    the outflow are added. An inflow above ``2**1000`` in state i's units (a measure far too small
    at i) makes the excess +inf, with an infinite bound."""
    n = len(hi)
    value, bound = np.empty(n), np.empty(n)
    for i in range(n):
        s, c, error = 0.0, 0.0, 0.0
        overflow = False
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            shift = exponent[j] - exponent[i]
            if shift > 1000 and hi[j] > 0.0 and shift + math.frexp(data[p] * hi[j])[1] > 1000:
                overflow = True
                continue
            prod, err = two_product(data[p], hi[j])
            if abs(prod) < 2.0**-960:   # Dekker's error term is not exact this far down (off by < 2**-1070)
                error += _ldexp(2.0**-1066, shift)
            prod, err = _ldexp(prod, shift), _ldexp(err, shift)
            if shift < -960:            # the scaled parts may have lost bits
                error += 2 * 2.0**-1074
            s, e = two_sum(s, prod)
            low = _ldexp(data[p] * lo[j], shift)
            both = e + err
            step = both + low
            c += step
            error += _UNIT * (abs(low) + abs(both) + abs(step) + abs(c)) + _subnormal(low, both, step, c)
        prod, err = two_product(out_hi[i], hi[i])
        s, e = two_sum(s, -prod)
        first, second = out_hi[i] * lo[i], out_lo[i] * hi[i]
        step = ((e - err) - first) - second
        c += step
        error += (_UNIT * (abs(first) + abs(second) + abs(e - err) + abs((e - err) - first) + abs(step) + abs(c))
                  + _subnormal(first, second, step, c))
        error += abs(out_lo[i] * lo[i]) * 1.01 + out_error[i] * (abs(hi[i]) + abs(lo[i])) * 1.01
        total = s + c
        value[i] = np.inf if overflow else total
        bound[i] = np.inf if overflow else (error + _UNIT * abs(total)) * (1 + 1e-12) + _subnormal(total, 0.0, 0.0, 0.0)
    return value, bound


@kernel
def _lifted_excess(indptr, indices, data, outflow, hi, exponent, lift):  # pragma: no cover - compiled
    """See :meth:`Balance.lifted_excess`."""
    n = len(hi)
    value = np.empty(n)
    for i in range(n):
        total = -math.ldexp(outflow[i] * hi[i], -lift)
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            total += math.ldexp(data[p] * hi[j], exponent[j] - exponent[i] - lift)
        value[i] = total
    return value


#: ``2.0**k`` for every power of two a double holds (subnormal ones included), at ``k + 1074``.
_POWERS = np.ldexp(1.0, np.arange(-1074, 1024))


@kernel(inline="always")
def _ldexp(x, k):  # pragma: no cover - compiled
    """``math.ldexp(x, k)`` bit for bit, as one multiplication where ``2**k`` is a double: both are
    ``x 2**k`` rounded once (an exact product unless it leaves the normal range). A table of powers
    costs a third of a call of ``ldexp``."""
    if -1074 <= k <= 1023:
        return x * _POWERS[k + 1074]
    return math.ldexp(x, k)


@kernel(inline="always")
def _subnormal(a, b, c, d):  # pragma: no cover - compiled
    """The absolute rounding error a result may carry beyond ``2**-53`` of its size: nonzero only
    when one of them lies in the subnormal range, where rounding is absolute (2**-1075)."""
    if min(abs(a) if a != 0.0 else 1.0, abs(b) if b != 0.0 else 1.0, abs(c) if c != 0.0 else 1.0,
           abs(d) if d != 0.0 else 1.0) < 2.0**-1021:
        return 4 * 2.0**-1074
    return 0.0


def _with_unit_diagonal(indptr: np.ndarray, indices: np.ndarray, values: np.ndarray, n: int) -> sp.csr_array:
    """The CSR matrix of the given off-diagonal entries plus the identity (column indices sorted)."""
    matrix = sp.csr_array((values, indices, indptr), shape=(n, n)) + sp.identity(n, format="csr")
    matrix.sort_indices()
    return matrix
