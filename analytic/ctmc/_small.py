"""GTH for small chains: the elimination of :mod:`analytic.ctmc._gth` in a band, in two kernels.

The multifrontal factorization (symbolic analysis, nested dissection, supernodes, fronts) pays off
on large chains and costs some twenty kernels to compile. A chain of up to :data:`SMALL_STATES`
states is numbered instead by breadth-first levels from the root, reversed (the root last, as in
:meth:`Balance.order_toward`): every transition joins two states at most ``b`` places apart (the
half-bandwidth), the elimination's fill stays in that band (George & Liu, *Computer Solution of
Large Sparse Positive Definite Systems*, Prentice-Hall 1981, Ch. 4), and the band, ``n (2b + 1)``
doubles, is eliminated in place by one compiled loop (:func:`_factor`), one more doing the forward
routing and the back-substitution (:func:`_substitute`).

The arithmetic is the multifrontal's, operation for operation: the embedded rates, each pivot the
compensated sum of the censored rates to later states (never a difference), the routing
probabilities, the updates ``G[j, i] += G[j, t] G[t, i]`` of non-negative numbers, rows whose
entries grow tiny rescaled by powers of two with their exponents carried, and the back-substitution
held in mantissas and exponents (Grassmann, Taksar & Heyman, *Regenerative analysis and steady state
distributions for Markov chains*, Oper. Res. 33, 1985). So O'Cinneide's entrywise analysis holds as
it does there, and so does the a-priori bound of :mod:`analytic.ctmc._rounding`, counted on the
structure of the same elimination order (entries of the band outside that structure are exact
zeros); the certificate of :mod:`analytic.ctmc._certificate` solves its pinned systems through
these factors as through the multifrontal ones (:class:`BandFactorization` has the same interface as
:class:`~analytic.ctmc._gth.Factorization`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from analytic._kernels import kernel, two_sum
from analytic.ctmc._balance import Balance, Measure
from analytic.ctmc._gth import _SMALLEST_NORMAL, _TINY, VanishedPivot, _add
from analytic.ctmc._gth_analysis import etree, permuted_pattern, symmetric
from analytic.ctmc._rounding import factorization_bound, rounding_sum

__all__ = ["SMALL_FLOPS", "SMALL_STATES", "BandFactorization", "BandPlan", "band_plan"]

#: Chains of at most this many states may be solved in a band (``benchmarks/first_call.py``,
#: ``benchmarks/ctmc.py``'s small chains).
SMALL_STATES = 2000

#: ... whose banded elimination costs at most this many multiply-adds (about 3 ms; the greedy(p*)
#: chain of 686 states at n = 20 costs 3.2e6, eliminated in 0.5 ms).
SMALL_FLOPS = 2e7

#: Exponent offset from which a back-substitution term is summed at its own scale.
_WINDOW = 900


@dataclass(frozen=True)
class BandPlan:
    """The elimination order of a banded GTH and what it costs.

    Attributes
    ----------
    order : numpy.ndarray
        The states in the order of elimination, the root last (int64).
    width : int
        The half-bandwidth ``b``: the largest distance in ``order`` between two states joined by a
        transition.
    flops : float
        Multiply-adds of the elimination, at most: ``sum_t min(b, n - 1 - t)**2``.
    """

    order: np.ndarray
    width: int
    flops: float

    @property
    def bytes(self) -> int:
        """Memory of the band and of its row exponents."""
        return 16 * len(self.order) * (2 * self.width + 1)


def band_plan(balance: Balance, root: int) -> BandPlan:
    """The breadth-first order towards ``root`` (:meth:`Balance.order_toward`), its half-bandwidth
    and the cost of eliminating it.

    Parameters
    ----------
    balance : Balance
        The scaled balance equations of an irreducible chain.
    root : int
        The state eliminated last.

    Returns
    -------
    BandPlan
        The order, the half-bandwidth and the multiply-adds.

    Examples
    --------
    A birth–death chain of five states has bandwidth 1 in any breadth-first order: three
    eliminations of one update each.

    >>> import scipy.sparse as sp
    >>> path = sp.diags_array([np.ones(4), -np.array([1.0, 2, 2, 2, 1]), np.ones(4)], offsets=[-1, 0, 1])
    >>> plan = band_plan(Balance(path.tocsr()), 0)
    >>> plan.order.tolist(), plan.width, plan.flops
    ([4, 3, 2, 1, 0], 1, 4.0)
    """
    order = balance.order_toward(root)
    n = balance.n
    position = np.empty(n, np.int64)
    position[order] = np.arange(n)
    indptr, indices, _ = balance.out_csr
    rows = np.repeat(position, np.diff(indptr))
    width = int(np.abs(rows - position[indices]).max(initial=0))
    later = np.minimum(width, n - 1 - np.arange(n)).astype(float)
    return BandPlan(order, width, float(later @ later))


class BandFactorization:
    """The GTH factorization of a scaled chain in a band: the interface of
    :class:`~analytic.ctmc._gth.Factorization` (:meth:`measure`, :meth:`solve`,
    :meth:`error_bound`, ``root``, ``normal``), the arithmetic of the module docstring.

    Parameters
    ----------
    balance : Balance
        The scaled balance equations of an irreducible chain.
    plan : BandPlan
        Its order (:func:`band_plan`).

    Raises
    ------
    VanishedPivot
        A pivot vanished before the root (the chain is numerically reducible, or the root far
        less likely than the state named).

    Examples
    --------
    An M/M/1/2 queue (arrivals at rate 1, service at rate 2) has the geometric law ``(4, 2, 1) / 7``:

    >>> import scipy.sparse as sp
    >>> balance = Balance(sp.csr_array([[-1.0, 1.0, 0], [2.0, -3.0, 1.0], [0, 2.0, -2.0]]))
    >>> factorization = BandFactorization(balance, band_plan(balance, 0))
    >>> mantissa, exponent = balance.probabilities(factorization.measure())
    >>> law = np.ldexp(mantissa, exponent)
    >>> (law / law.sum()).round(12).tolist()
    [0.571428571429, 0.285714285714, 0.142857142857]
    """

    def __init__(self, balance: Balance, plan: BandPlan) -> None:
        self.balance, self.plan = balance, plan
        order, width, n = plan.order, plan.width, balance.n
        self.root = int(order[-1])
        self._measure: Measure | None = None
        position = np.empty(n, np.int64)
        position[order] = np.arange(n)
        indptr, indices, rates = balance.out_csr
        counts = np.diff(indptr)
        embedded = rates / np.repeat(balance.outflow, counts)      # the jump chain
        rows = np.repeat(position, counts)
        self._band = np.zeros((n, 2 * width + 1))
        self._band[rows, position[indices] - rows + width] = embedded
        self._lower_exponent = np.zeros((n, width + 1), np.int64)
        self._pivot, self._pivot_exponent = np.zeros(n), np.zeros(n, np.int64)
        products_normal = _factor(self._band, np.zeros(n, np.int64), self._lower_exponent, self._pivot,
                                  self._pivot_exponent, max(width, 16))
        if np.count_nonzero(self._pivot == 0.0) != 1 or self._pivot[-1] != 0.0:
            raise VanishedPivot(int(order[np.flatnonzero(self._pivot[:-1] == 0.0)[-1]]))
        positive = embedded[embedded > 0]
        self.normal = bool(products_normal and (positive.size == 0 or positive.min() >= _SMALLEST_NORMAL))

    def error_bound(self) -> float:
        """The a-priori bound of :meth:`Factorization.error_bound <analytic.ctmc._gth.Factorization.error_bound>`,
        counted on the structure of this order: valid when no operation fell below the normal range
        (``inf`` otherwise).

        Returns
        -------
        float
            A bound on the relative error of every probability of the normalized :meth:`measure`
            (before the normalization's rounding), or ``inf``.

        Examples
        --------
        An M/M/1/2 queue: three states, a bound of a few hundred units of ``2**-53``:

        >>> import scipy.sparse as sp
        >>> balance = Balance(sp.csr_array([[-1.0, 1.0, 0], [2.0, -3.0, 1.0], [0, 2.0, -2.0]]))
        >>> bound = BandFactorization(balance, band_plan(balance, 0)).error_bound()
        >>> bool(1e-15 < bound < 1e-13)
        True
        """
        if not self.normal:
            return math.inf
        indptr, indices = permuted_pattern(symmetric(self.balance.rates), self.plan.order)
        return factorization_bound(*rounding_sum(indptr, indices, etree(indptr, indices, self.balance.n)))

    def measure(self) -> Measure:
        """The invariant measure of the scaled chain (:meth:`Factorization.measure
        <analytic.ctmc._gth.Factorization.measure>`), computed once.

        Returns
        -------
        Measure
            The measure, unnormalized, non-negative.

        Examples
        --------
        Rates 1 (0 -> 1) and 2 (1 -> 0) scale to 1/2 both ways: the measure is uniform.

        >>> import scipy.sparse as sp
        >>> balance = Balance(sp.csr_array([[-1.0, 1.0], [2.0, -2.0]]))
        >>> BandFactorization(balance, band_plan(balance, 0)).measure().relative_to_top().tolist()
        [0.5, 0.5]
        """
        if self._measure is None:
            zero = np.zeros(self.balance.n)
            self._measure = self._to_measure(*self._substitute(zero, zero.astype(np.int64), 1.0))
        return self._measure

    def solve(self, mantissa: np.ndarray, exponent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``u`` with ``u_i q'_i - sum_j u_j q'_ji = w_i`` for every state but the root and ``u_root = 0``,
        for sources ``w = mantissa * 2**exponent >= 0`` (:meth:`Factorization.solve
        <analytic.ctmc._gth.Factorization.solve>`).

        Parameters
        ----------
        mantissa : numpy.ndarray
            Mantissas of the sources, >= 0, aligned with the states.
        exponent : numpy.ndarray
            Their binary exponents (integers).

        Returns
        -------
        mantissa : numpy.ndarray
            Mantissas of ``u`` (0 at the root).
        exponent : numpy.ndarray
            Their binary exponents.

        Examples
        --------
        With rates 1/2 both ways (the scaled chain of rates 1 and 2) and the root 1, state 0's
        equation is ``u_0 / 2 = w_0``:

        >>> import scipy.sparse as sp
        >>> balance = Balance(sp.csr_array([[-1.0, 1.0], [2.0, -2.0]]))
        >>> factorization = BandFactorization(balance, band_plan(balance, 1))
        >>> mantissa, exponent = factorization.solve(np.ones(2), np.zeros(2, np.int64))
        >>> np.ldexp(mantissa, exponent).tolist()
        [2.0, 0.0]
        """
        if not np.any(mantissa):
            return np.zeros(self.balance.n), np.zeros(self.balance.n, np.int64)
        order = self.plan.order
        x = self._to_measure(*self._substitute(np.ascontiguousarray(mantissa[order], dtype=float),
                                               exponent[order].astype(np.int64), 0.0))
        return x.hi, x.exponent

    def _substitute(self, source: np.ndarray, power: np.ndarray, root: float) -> tuple[np.ndarray, np.ndarray]:
        """Forward routing and back-substitution, returned in the states' own order."""
        values, exponents = _substitute(self._band, self._lower_exponent, self._pivot, self._pivot_exponent,
                                        source, power, root)
        if not np.all(np.isfinite(values)):
            raise FloatingPointError("a value of the GTH back-substitution left the double range")
        order = self.plan.order
        mantissa, exponent = np.empty(len(order)), np.empty(len(order), np.int64)
        mantissa[order], exponent[order] = values, exponents
        return mantissa, exponent

    def _to_measure(self, flow: np.ndarray, exponent: np.ndarray) -> Measure:
        """Flows ``nu_i`` (embedded units) divided by the outflows: the measure ``u_i = nu_i / q'_i``."""
        return Measure.from_parts(flow / self.balance.outflow, exponent)


@kernel
def _factor(G, exponent, lower_exponent, pivot, pivot_exponent, block):  # pragma: no cover - compiled
    """GTH elimination of the band ``G`` in place (row j holds columns ``j - b .. j + b`` of the
    censored rates out of j, times ``2**-exponent[j]``), pivots ``0 .. n - 2``; returns whether every
    censored rate into a pivot, routing probability out of it and product of the two is a normal
    double.

    Every ``block`` pivots, the rows the next block touches are rescaled where their largest entry
    (self-loop cleared) fell below ``_TINY``. Pivot t: ``s_t = sum_{i > t} G[t, i]`` (compensated,
    rounded once), ``G[t, i] /= s_t`` (routing probabilities, the upper factor), and
    ``G[j, i] += G[j, t] G[t, i]`` for later j, i; ``G[j, t]`` stays as the lower factor, its row's
    exponent at that time kept in ``lower_exponent[t, j - t]``.

    The update of row j runs over contiguous columns, the routing probabilities copied once into
    ``route``, with unsigned indices: numba wraps signed indices (a negative one counts from the
    end), a select per element that keeps LLVM from vectorizing the loop; unsigned, it is a plain
    SIMD multiply-add loop (each product and sum rounded as before: the same bits, about twice
    as fast)."""
    n, b = G.shape[0], (G.shape[1] - 1) // 2
    normal = True
    route = np.empty(b)
    for b0 in range(0, n - 1, block):
        b1 = min(b0 + block, n - 1)
        for j in range(b0, min(b1 + b, n)):
            G[j, b] = 0.0
            low, high = max(b0, j - b) - j + b, min(n - 1, j + b) - j + b
            top = 0.0
            for c in range(low, high + 1):
                top = max(top, G[j, c])
            if 0.0 < top < _TINY:
                power = -math.frexp(top)[1]
                for c in range(low, high + 1):
                    G[j, c] = math.ldexp(G[j, c], power)
                exponent[j] -= power
        for t in range(b0, b1):
            end = min(n - 1, t + b)
            total, error, last = 0.0, 0.0, t
            for i in range(t + 1, end + 1):
                value = G[t, i - t + b]
                if value != 0.0:
                    total, lost = two_sum(total, value)
                    error += lost
                    last = i
            total += error
            pivot[t], pivot_exponent[t] = total, exponent[t]
            out = np.inf
            if total > 0.0:
                for c in range(b + 1, last - t + b + 1):
                    G[t, c] /= total
                    if G[t, c] > 0.0:
                        out = min(out, G[t, c])
            m = last - t
            for k in range(m):
                route[k] = G[t, b + 1 + k]
            into = np.inf
            for j in range(t + 1, end + 1):
                lower_exponent[t, j - t] = exponent[j]
                w = G[j, t - j + b]
                if w != 0.0:
                    into = min(into, w)
                    first = t + 1 - j + b
                    for k in range(m):
                        G[j, np.uint64(first + k)] += w * route[np.uint64(k)]
            if into < _SMALLEST_NORMAL or out < _SMALLEST_NORMAL or (into < np.inf and into * out < _SMALLEST_NORMAL):
                normal = False
    return normal


@kernel(inline="always")
def _ldexp(x, power):  # pragma: no cover - compiled
    """``x * 2**power`` for any int64 ``power`` (numba passes ``ldexp`` a 32-bit exponent, which wraps)."""
    return math.ldexp(x, max(min(power, 2200), -2200))


@kernel
def _substitute(G, lower_exponent, pivot, pivot_exponent, source, source_exponent, root):  # pragma: no cover - compiled
    """The sources (``source * 2**source_exponent``, by position, modified in place) routed down the
    elimination by the routing probabilities, then ``nu_t = (W_t + sum_j G[j, t] nu_j) / s_t`` from the
    root (``nu = root``) down, each value held as a mantissa and a binary exponent.

    The sums are formed in doubles scaled by a common power of two ``shift`` (``scaled``), moved
    when a new value lies more than ``2**_WINDOW`` above it, or below it with every value of the band
    ahead; a row whose sum at that scale falls out of (1e-280, 1e280) is summed at its largest term's
    scale instead."""
    n, b = G.shape[0], (G.shape[1] - 1) // 2
    for t in range(n - 1):
        if source[t] > 0.0:
            for i in range(t + 1, min(n - 1, t + b) + 1):
                u = G[t, i - t + b]
                if u > 0.0:
                    _add(source, source_exponent, i, source[t] * u, source_exponent[t])
    mantissa, exponent = np.zeros(n), np.zeros(n, np.int64)
    scaled = np.zeros(n)
    shift = -(1 << 60)                      # no value yet: the first one sets the scale
    if root > 0.0:
        mantissa[n - 1], exponent[n - 1] = math.frexp(root)
        shift, scaled[n - 1] = exponent[n - 1], mantissa[n - 1]
    for t in range(n - 2, -1, -1):
        end = min(n - 1, t + b)
        total = 0.0
        for j in range(t + 1, end + 1):
            w = G[j, t - j + b]
            if w > 0.0 and scaled[j] > 0.0:
                e = lower_exponent[t, j - t]
                total += w * scaled[j] if e == 0 else _ldexp(w * scaled[j], e)
        if source[t] > 0.0 and total > 0.0:
            total += _ldexp(source[t], source_exponent[t] - shift)
        reference = shift
        if not 1e-280 < total < 1e280:     # tiny (or no) terms at this scale: sum at the largest term's scale
            reference = -(1 << 60)
            for j in range(t + 1, end + 1):
                w = G[j, t - j + b]
                if w > 0.0 and mantissa[j] > 0.0:
                    reference = max(reference, exponent[j] + lower_exponent[t, j - t] + math.frexp(w)[1])
            if source[t] > 0.0:
                reference = max(reference, source_exponent[t] + math.frexp(source[t])[1])
            total = 0.0
            for j in range(t + 1, end + 1):
                w = G[j, t - j + b]
                if w > 0.0 and mantissa[j] > 0.0:
                    total += _ldexp(w * mantissa[j], exponent[j] + lower_exponent[t, j - t] - reference)
            if source[t] > 0.0:
                total += _ldexp(source[t], source_exponent[t] - reference)
        if total > 0.0:                    # total / pivot by mantissas and exponents
            top, top_power = math.frexp(total)
            bottom, bottom_power = math.frexp(pivot[t])
            value, power = math.frexp(top / bottom)
            mantissa[t], exponent[t] = value, power + top_power - bottom_power + reference - pivot_exponent[t]
            new = shift
            if exponent[t] > shift + _WINDOW:
                new = exponent[t]
            elif exponent[t] < shift - _WINDOW:
                new = exponent[t]
                for j in range(t + 1, end + 1):
                    if mantissa[j] > 0.0:
                        new = max(new, exponent[j])
                if new >= shift - _WINDOW:          # a value ahead still needs this scale
                    new = shift
            if new != shift:
                shift = new
                for j in range(t + 1, end + 1):
                    scaled[j] = _ldexp(mantissa[j], exponent[j] - shift)
            scaled[t] = _ldexp(mantissa[t], exponent[t] - shift)
    return mantissa, exponent
