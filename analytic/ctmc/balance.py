"""The balance equations of a chain in relative form, and measures that span any range.

A generator ``Q`` is first scaled row by row by powers of two, ``Q' = D Q`` with ``D = diag(2**-e_i)``
chosen so that every state's total outflow lies in [1/2, 1). The scaling is exact (a rate that would
lose bits is refused), ``Q'`` is again a generator, and its invariant measures are those of ``Q``
multiplied by ``2**e_i``: subnormal or huge rates become ordinary numbers, and the exponents are
carried separately (:class:`Measure`). Every computation of this package's solvers and of the
certificate (:mod:`analytic.ctmc.certificate`) happens on ``Q'``.

Two quantities are computed here for an approximate invariant measure ``x``:

* the **flow excess** ``E_i(x) = sum_j x_j q'_ji - x_i q'_i`` (inflow minus outflow), in
  double-double arithmetic with a rigorous bound on what the rounding left, in units of
  ``2**exponent_i`` so that nothing under- or overflows;
* the **scaled matrix** ``S = I - P`` with ``P_ij = x_j q'_ji / (x_i q'_i)``, the balance equations
  in the relative variables ``delta = x_true / x - 1``: ``P`` is the jump chain of the time-reversed
  chain when ``x`` is exact, so ``S`` is well scaled however widely the probabilities range.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numba
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order

from analytic.ctmc.compensated import DD_UNIT, two_product, two_sum
from analytic.errors import InvalidParameterError

__all__ = ["Balance", "Measure"]


@dataclass(frozen=True)
class Measure:
    """A positive measure held as ``(hi + lo) * 2**exponent`` state by state.

    ``hi`` lies in [1/2, 1) (or is 0), ``|lo| <= ulp(hi) / 2``: together about 32 significant digits,
    at any magnitude.
    """

    hi: np.ndarray
    lo: np.ndarray
    exponent: np.ndarray

    @classmethod
    def from_parts(cls, mantissa: np.ndarray, exponent: np.ndarray, low: np.ndarray | None = None) -> Measure:
        """``(mantissa + low) * 2**exponent``, renormalized."""
        low = np.zeros_like(mantissa) if low is None else low
        hi, lo = _renormalized_sum(mantissa.astype(float), low.astype(float))
        fraction, power = np.frexp(hi)
        return cls(fraction, np.ldexp(lo, -power), exponent.astype(np.int64) + power)

    def corrected(self, delta: np.ndarray, exact: np.ndarray, factor: np.ndarray) -> Measure:
        """``x * (1 + delta)`` in double-double where ``exact``, ``x * factor`` elsewhere."""
        product, error = _products(self.hi, delta)
        hi, lo = _renormalized_sum(self.hi, product)
        lo = lo + error + self.lo * (1.0 + delta)
        hi = np.where(exact, hi, self.hi * factor)
        lo = np.where(exact, lo, 0.0)
        return Measure.from_parts(hi, self.exponent, lo)

    def normalized(self) -> np.ndarray:
        """The probabilities ``x / sum(x)`` as doubles (values below the double range become 0)."""
        top = int(self.exponent[self.hi > 0].max())
        values = np.ldexp(self.hi + self.lo, np.maximum(self.exponent - top, -1100))
        return values / values.sum()

    def relative_to_top(self) -> np.ndarray:
        """``x / 2**max(exponent)`` as doubles (for sums and comparisons)."""
        top = int(self.exponent[self.hi > 0].max())
        return np.ldexp(self.hi, np.maximum(self.exponent - top, -1100))


def _renormalized_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = a + b
    v = s - a
    return s, (a - (s - v)) + (b - v)


@numba.njit(cache=True)
def _products(a, b):  # pragma: no cover - compiled
    p, e = np.empty_like(a), np.empty_like(a)
    for i in range(len(a)):
        p[i], e[i] = two_product(a[i], b[i])
    return p, e


class Balance:
    """The balance equations of an irreducible generator, rows scaled exactly by powers of two.

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
    outflow : numpy.ndarray
        ``q'_i`` rounded to double, in [1/2, 1] (its double-double value is used in the sums).
    """

    def __init__(self, generator: sp.csr_array) -> None:
        rates = sp.csr_array(generator, copy=True)
        rates.setdiag(0.0)
        rates.eliminate_zeros()
        rates.sort_indices()
        self.n = rates.shape[0]
        rows = np.repeat(np.arange(self.n), np.diff(rates.indptr))
        largest = np.zeros(self.n)
        np.maximum.at(largest, rows, rates.data)
        total = np.asarray(rates.sum(axis=1)).ravel()
        _, self.row_exponent = np.frexp(np.where(total < np.inf, total, largest))
        self.row_exponent = self.row_exponent.astype(np.int64)
        scaled = np.ldexp(rates.data, -self.row_exponent[rows])
        lost = np.ldexp(scaled, self.row_exponent[rows]) != rates.data
        if lost.any():
            at = int(np.flatnonzero(lost)[0])
            raise InvalidParameterError(
                "rate", float(rates.data[at]),
                f"from state {rows[at]} to {rates.indices[at]} is below 2**-1074 times the total rate out of state "
                f"{rows[at]} ({total[rows[at]]:.3g}): the rates out of one state span more than the double range")
        self.rates = sp.csr_array((scaled, rates.indices.astype(np.int64), rates.indptr.astype(np.int64)),
                                  shape=rates.shape)
        self.into = self.rates.T.tocsr()
        self.into.sort_indices()
        self._into = (self.into.indptr.astype(np.int64), self.into.indices.astype(np.int64), self.into.data)
        self._outflow_hi, self._outflow_lo = _row_sums(self.rates.indptr.astype(np.int64), scaled)
        self.outflow = self._outflow_hi + self._outflow_lo

    @functools.lru_cache(maxsize=4)
    def order_toward(self, reference: int) -> np.ndarray:
        """The states by decreasing distance (in transitions) from ``reference``, which comes last: a
        Cuthill–McKee order from ``reference``, reversed. Eliminating towards the pinned state keeps
        an LU of the scaled system from subtracting nearly equal numbers (its pivots are then
        probabilities of escaping towards the pinned state, not of avoiding it), and keeps the
        bandwidth of a level structure."""
        graph = (self.rates + self.into).tocsr()
        found = breadth_first_order(graph, reference, directed=False, return_predecessors=False)
        return found[::-1].astype(np.int64)

    def rough_measure(self) -> Measure:
        """A rough invariant measure: steps of the lazy jump chain from the uniform law (about 2e8
        multiply-adds' worth, between 100 and 10 000 steps), divided by the outflows. Cheap,
        positive everywhere (values below ``2**-1000`` of the largest are raised to it), and likely
        states come out likely, which is what the first pinned state and the first scaling need."""
        steps = int(np.clip(2e8 / max(self.rates.nnz, 1), 100, 10_000))
        flow = _lazy_jumps(*self._into, self.outflow, steps)
        flow = np.maximum(flow, flow.max() * 2.0**-1000)   # nothing underflows to zero
        return Measure.from_parts(flow / self.outflow, np.zeros(self.n, np.int64))

    def probabilities(self, x: Measure) -> tuple[np.ndarray, np.ndarray]:
        """The stationary law of ``Q`` from an invariant measure ``x`` of ``Q'``: mantissas and exponents
        of the unnormalized values ``x_i 2**-e_i``."""
        return x.hi + x.lo, x.exponent - self.row_exponent

    def excess(self, hi: np.ndarray, lo: np.ndarray, exponent: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Inflow minus outflow of every state for the measure ``(hi + lo) 2**exponent``, in units of
        ``2**exponent_i``: the values, a rigorous bound on their rounding error, and the sum of the
        magnitudes of the terms."""
        return _excess(*self._into, self._outflow_hi, self._outflow_lo, hi, lo, exponent)

    def scaled_matrix(self, x: Measure, reference: int) -> sp.csr_array:
        """``S = I - P`` with ``P_ij = x_j q'_ji / (x_i q'_i)``, row ``reference`` replaced by the unit row."""
        indptr, indices, data = self._into
        rows = np.repeat(np.arange(self.n), np.diff(indptr))
        values = -data / self.outflow[rows] * np.ldexp(x.hi[indices] / x.hi[rows], x.exponent[indices] - x.exponent[rows])
        values[rows == reference] = 0.0
        return _with_unit_diagonal(indptr, indices, values, self.n)


@numba.njit(cache=True)
def _lazy_jumps(indptr, indices, data, outflow, steps):  # pragma: no cover - compiled
    """``steps`` steps ``v <- (v + v P) / 2`` of the jump chain ``P_ji = q'_ji / q'_j`` from the uniform law."""
    n = len(outflow)
    v = np.full(n, 1.0 / n)
    w = np.empty(n)
    for _ in range(steps):
        for i in range(n):
            s = 0.0
            for p in range(indptr[i], indptr[i + 1]):
                j = indices[p]
                s += v[j] * data[p] / outflow[j]
            w[i] = 0.5 * (v[i] + s)
        v, w = w, v
    return v


@numba.njit(cache=True)
def _row_sums(indptr, data):  # pragma: no cover - compiled
    hi, lo = np.zeros(len(indptr) - 1), np.zeros(len(indptr) - 1)
    for i in range(len(indptr) - 1):
        s, c = 0.0, 0.0
        for p in range(indptr[i], indptr[i + 1]):
            s, e = two_sum(s, data[p])
            c += e
        hi[i], lo[i] = two_sum(s, c)
    return hi, lo


@numba.njit(cache=True)
def _excess(indptr, indices, data, out_hi, out_lo, hi, lo, exponent):  # pragma: no cover - compiled
    """See :meth:`Balance.excess`. Products are formed exactly (``two_product``) before they are
    scaled to state i's units by a power of two, and accumulated in double-double; the bound covers
    the accumulation (``DD_UNIT`` per term of the magnitude), the final rounding to double, scaled
    products that underflow, and products too small for Dekker's product to be exact."""
    n = len(hi)
    value, bound, size = np.empty(n), np.empty(n), np.empty(n)
    for i in range(n):
        s, c, mag = 0.0, 0.0, 0.0
        terms = indptr[i + 1] - indptr[i] + 2
        loose = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            shift = exponent[j] - exponent[i]
            prod, err = two_product(data[p], hi[j])
            if abs(prod) < 2.0**-960:  # Dekker's error term is not exact this far down (off by < 2**-1070)
                loose += math.ldexp(2.0**-1066, shift)
            prod, err = math.ldexp(prod, shift), math.ldexp(err, shift)
            s, e = two_sum(s, prod)
            c += e + err + math.ldexp(data[p] * lo[j], shift)
            mag += abs(prod)
        prod, err = two_product(out_hi[i], hi[i])
        s, e = two_sum(s, -prod)
        c += e - err - out_hi[i] * lo[i] - out_lo[i] * hi[i]
        mag += out_hi[i] * abs(hi[i])
        total = s + c
        value[i] = total
        size[i] = mag
        bound[i] = ((4 * terms + 8) * DD_UNIT * mag * (1 + 1e-10) + 2.0**-52 * abs(total) + terms * 2.0**-1000
                    + 2 * loose)
    return value, bound, size


def _with_unit_diagonal(indptr: np.ndarray, indices: np.ndarray, values: np.ndarray, n: int) -> sp.csr_array:
    """The CSR matrix of the given off-diagonal entries plus the identity (column indices sorted)."""
    matrix = sp.csr_array((values, indices, indptr), shape=(n, n)) + sp.identity(n, format="csr")
    matrix.sort_indices()
    return matrix
