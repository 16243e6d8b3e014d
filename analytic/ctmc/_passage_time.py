"""Passage times of a chain and their moments, certified (:class:`PassageTime`, from :func:`analytic.ctmc.measures.passage_time`).

The mean from the occupation measure; higher moments ``E[T^k] = k n m_(k-1)`` by SuperLU refined in
double-double with a certified residual (Neuts 1981, Theorem 2.2.1; Moler 1967), else by chained
occupation measures; the law by uniformization. The method: the docstring of :mod:`analytic.ctmc.measures`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from analytic._double_double import dd_add
from analytic._kernels import kernel, two_product, two_sum
from analytic.ctmc import stationary as stationary_law
from analytic.ctmc._refinement import DIAGONAL_PIVOTING
from analytic.ctmc._targets import UNIT, Occupation, Region, absorbing, check_times, occupation
from analytic.ctmc.transient import transient as uniformized
from analytic.errors import ConvergenceError, InvalidParameterError
from analytic.validation import integer

#: Highest moment :meth:`PassageTime.moment` computes (each order is one refined linear solve).
MAX_MOMENT = 100

#: Refinement rounds of one moment solve, and the certified ``theta`` they stop at.
_ROUNDS = 30
_THETA = 1e-24


# ---------------------------------------------------------------------------------------------
# Passage times
# ---------------------------------------------------------------------------------------------



@kernel
def _residual(indptr, indices, data, b_hi, b_lo, x_hi, x_lo):  # pragma: no cover - compiled
    """``b - A x`` for ``A = -Q_TT`` (row i: ``b_i - sum_j q_ij (x_i - x_j)``, ``x = 0`` outside),
    ``b`` and ``x`` double-double, by error-free products and sums; and per row the sum of the
    magnitudes of its terms (for the rounding bound)."""
    m = len(indptr) - 1
    out = np.empty(m)
    size = np.empty(m)
    for i in range(m):
        s, e = two_sum(b_hi[i], b_lo[i])
        magnitude = abs(b_hi[i]) + abs(b_lo[i])
        for p in range(indptr[i], indptr[i + 1]):
            j, q = indices[p], data[p]
            product, error = two_product(q, x_hi[i])
            s, t = two_sum(s, -product)
            e += t - error - q * x_lo[i]
            magnitude += q * (abs(x_hi[i]) + abs(x_lo[i]))
            if j < m:
                product, error = two_product(q, x_hi[j])
                s, t = two_sum(s, product)
                e += t + error + q * x_lo[j]
                magnitude += q * (abs(x_hi[j]) + abs(x_lo[j]))
        out[i] = s + e
        size[i] = magnitude
    return out, size


def _shift(values: np.ndarray) -> int:
    """The power of two that brings the largest of ``values`` into [1/2, 1) (0 for none)."""
    top = float(np.max(values, initial=0.0))
    return math.frexp(top)[1] if 0 < top < math.inf else 0


def _largest(bounds: np.ndarray) -> float:
    """The largest of the vouched (finite) bounds."""
    return float(np.max(bounds[np.isfinite(bounds)], initial=0.0))


class Moments:
    """The moments ``E[T^k]`` of a passage time, computed order by order and kept.

    First route: the moments from every state, ``m_k = k N m_(k-1)``, ``m_0 = 1``, each held as
    ``2**exponent * (hi + lo)`` by refined solves with a proven bound (module docstring), and
    ``E[T^k] = k n m_(k-1)``. Where that bound falls short (a chain making more than about 1e20
    jumps before the target, whose residuals double-double cannot resolve), the second route:
    the measures ``u_k = u_(k-1) N``, ``u_1 = n``, each the occupation measure from the previous
    one (an auxiliary stationary solve, certified like the mean), and ``E[T^k] = k! sum u_k``.

    Parameters
    ----------
    cut : Region
        The region of the target (every state reaches it).
    occupied : Occupation
        The occupation measure ``n`` from the initial law.

    Examples
    --------
    One state left at rate 2: ``E[T^k] = k! / 2**k``.

    >>> from analytic.ctmc._targets import region
    >>> q = sp.csr_array(np.array([[-2.0, 2.0], [0, 0]]))
    >>> cut = region(q, np.array([1.0, 0]), np.array([False, True]), np.zeros(2, bool))
    >>> Moments(cut, occupation(cut, cut.start, 1e-10)).moment(3, 1e-10)
    0.75
    """

    def __init__(self, cut: Region, occupied: Occupation) -> None:
        self._cut, self._occupied = cut, occupied
        self._factor: Any = None
        m = len(cut.states)
        self._levels = [(np.ones(m), np.zeros(m), 0, 0.0)]
        shift = _shift(occupied.values)
        self._measures = [(np.ldexp(occupied.values, -shift), shift, _largest(occupied.bounds))]

    def moment(self, k: int, accuracy: float) -> float:
        """``E[T^k]`` (``k >= 2``) within ``accuracy`` relative.

        Parameters
        ----------
        k : int
            The order, from 2 to ``MAX_MOMENT``.
        accuracy : float
            The relative accuracy to vouch for.

        Returns
        -------
        float

        Raises
        ------
        ConvergenceError
            Neither route vouches for ``accuracy``.
        OverflowError
            ``E[T^k]`` exceeds the double range.

        Examples
        --------
        An exponential time of rate 1: ``E[T^2] = 2``.

        >>> from analytic.ctmc._targets import region
        >>> q = sp.csr_array(np.array([[-1.0, 1.0], [0, 0]]))
        >>> cut = region(q, np.array([1.0, 0]), np.array([False, True]), np.zeros(2, bool))
        >>> Moments(cut, occupation(cut, cut.start, 1e-10)).moment(2, 1e-10)
        2.0
        """
        hi, lo, exponent, bound = self.level(k - 1)
        value, weighted = self._occupied.total(hi)
        total = value + math.fsum(self._occupied.values * lo)
        if bound + weighted + 2 * UNIT <= accuracy:
            return math.ldexp(k * total, exponent)
        column = bound
        tolerance = max(accuracy / (2.5 * k), stationary_law.MINIMUM_TOLERANCE)
        while len(self._measures) < k:
            u, shift, error = self._measures[-1]
            occupied = occupation(self._cut, u, tolerance)
            more = _shift(occupied.values)
            self._measures.append((np.ldexp(occupied.values, -more), shift + more,
                                   error + _largest(occupied.bounds) + 4 * UNIT))
        u, shift, error = self._measures[k - 1]
        if error + 2 * UNIT > accuracy:
            raise ConvergenceError(f"E[T^{k}] is vouched to {min(error, column):.3g} relative, not to the accuracy "
                                   f"{accuracy:.3g} asked for")
        return math.ldexp(float(math.factorial(k)) * math.fsum(u), shift)

    def level(self, k: int) -> tuple[np.ndarray, np.ndarray, int, float]:
        """``m_k`` as ``(hi, lo, exponent, bound)``: ``m_k = 2**exponent (hi + lo)`` within ``bound`` relative.

        Parameters
        ----------
        k : int
            The order, >= 0.

        Returns
        -------
        tuple
            ``hi``, ``lo`` (arrays), ``exponent`` (int), ``bound`` (float).

        Examples
        --------
        One state left at rate 2: ``E[T] = 1/2 = 0.5 * 2**0`` from it.

        >>> from analytic.ctmc._targets import region
        >>> q = sp.csr_array(np.array([[-2.0, 2.0], [0, 0]]))
        >>> cut = region(q, np.array([1.0, 0]), np.array([False, True]), np.zeros(2, bool))
        >>> Moments(cut, occupation(cut, cut.start, 1e-10)).level(1)[:3]
        (array([0.5]), array([0.]), 0)
        """
        while len(self._levels) <= k:
            j = len(self._levels)
            hi, lo, exponent, bound = self._levels[-1]
            b_hi, b_lo = dd_add(j * hi, np.zeros_like(hi), j * lo)
            x_hi, x_lo, theta = self._solve(b_hi, b_lo)
            shift = _shift(x_hi)
            self._levels.append((np.ldexp(x_hi, -shift), np.ldexp(x_lo, -shift), exponent + shift,
                                 theta + bound * (1 + theta) + 4 * UNIT**2))
        return self._levels[k]

    def _lu(self) -> Any:
        if self._factor is None:
            cut = self._cut
            matrix = (sp.diags_array(cut.outflow) - cut.inner).tocsc()
            try:
                self._factor = spla.splu(matrix, **DIAGONAL_PIVOTING)
            except RuntimeError:       # a pivot cancelled: partial pivoting instead
                self._factor = spla.splu(matrix)
        return self._factor

    def _solve(self, b_hi: np.ndarray, b_lo: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        """``A x = b`` refined in double-double; ``theta`` with ``|x - x_exact| <= theta x_exact`` proven."""
        indptr, indices, data = self._cut.rates
        factor = self._lu()
        x_hi, x_lo = factor.solve(b_hi), np.zeros_like(b_hi)
        count = np.diff(indptr)
        slack = 2 * ((2 * count + 4) * UNIT) ** 2
        floor = b_hi * (1 - 4 * UNIT)
        history: list[float] = []
        theta = math.inf
        for _ in range(_ROUNDS):
            rho, size = _residual(indptr, indices, data, b_hi, b_lo, x_hi, x_lo)
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = (np.abs(rho) * (1 + 4 * UNIT) + slack * size + 1e-300) / floor
            theta = float(np.max(ratio)) if np.all(floor > 0) and np.all(np.isfinite(ratio)) else math.inf
            if theta <= _THETA or (len(history) >= 2 and theta > 0.5 * min(history[-2:])):
                break
            history.append(theta)
            step = factor.solve(rho)
            if not np.all(np.isfinite(step)):
                break
            x_hi, x_lo = dd_add(x_hi, x_lo, step)
        return x_hi, x_lo, theta


@dataclass(frozen=True, repr=False)
class PassageTime:
    """The first time ``T`` a chain enters a set of states (its target), from an initial law.

    Returned by :meth:`CTMC.passage_time`, which has refused a target the chain may never reach
    (then ``T`` is infinite with positive probability). ``T = 0`` when the chain starts in the
    target.

    Attributes
    ----------
    mean : float
        ``E[T]``, in the unit of the inverse rates.
    accuracy : float
        The relative accuracy vouched for ``mean`` and for every :meth:`moment` (the ``tolerance``
        of :meth:`CTMC.passage_time`).
    at_target : float
        ``P(T = 0)``: the initial probability of the target.
    n_states : int
        The number of non-target states the chain can visit before the target (the size of the
        linear systems).

    Examples
    --------
    Three exponential phases of rate 2 in series: ``T`` is Erlang(3, 2), of mean 3/2 and second
    moment ``3 * 4 / 2**2 = 3``.

    >>> from analytic.ctmc import CTMC
    >>> chain = CTMC.from_function(0, lambda x: [(x + 1, 2.0)] if x < 3 else [])
    >>> passage = chain.passage_time(lambda x: x == 3, 0)
    >>> passage
    PassageTime(mean=1.5, accuracy=1e-10, at_target=0, n_states=3)
    >>> round(passage.moment(2), 12), round(float(passage.cdf(1.0)), 12)
    (3.0, 0.323323583817)
    """

    mean: float
    accuracy: float
    at_target: float
    n_states: int
    _cut: Region = field(repr=False, compare=False)
    _occupied: Occupation | None = field(repr=False, compare=False)
    _moments: Moments | None = field(repr=False, compare=False)

    def __repr__(self) -> str:
        return (f"PassageTime(mean={self.mean:.10g}, accuracy={self.accuracy:.2g}, at_target={self.at_target:.10g}, "
                f"n_states={self.n_states})")

    def moment(self, k: int) -> float:
        """The k-th moment ``E[T^k] = k! p(0) N^k 1`` (``N = (-Q_TT)^-1``), within ``accuracy`` relative.

        The first call for an order solves ``-Q_TT m_j = j m_(j-1)`` for each order ``j < k`` not
        solved yet (one sparse LU factorization, kept; each solve refined in double-double until
        its proven error is below 1e-24 relative), then weighs ``m_(k-1)`` by the occupation
        measure: ``E[T^k] = k n m_(k-1)``. Where that proof falls short (a chain making more than
        about 1e20 jumps before the target), the measures ``u_j = u_(j-1) N`` come instead from one
        auxiliary stationary solve each, certified like ``mean``: ``E[T^k] = k! sum u_k``.

        Parameters
        ----------
        k : int
            The order, from 0 to ``MAX_MOMENT`` (100); ``moment(1)`` is ``mean``.

        Returns
        -------
        float
            ``E[T^k]``, in the unit of the inverse rates to the power k.

        Raises
        ------
        InvalidParameterError
            ``k`` is not an integer in [0, 100], or ``E[T^k]`` exceeds the double range.
        ConvergenceError
            The refined solves cannot prove the accuracy (the message says what they reached).

        Examples
        --------
        An exponential time of rate 2: ``E[T^k] = k! / 2**k``.

        >>> from analytic.ctmc import CTMC
        >>> passage = CTMC([[0, 2.0], [0, 0]]).passage_time([False, True], 0)
        >>> [passage.moment(k) for k in range(4)]
        [1.0, 0.5, 0.5, 0.75]
        """
        order = integer("k", k, minimum=0)
        if order > MAX_MOMENT:
            raise InvalidParameterError("k", k, f"must be an integer in [0, {MAX_MOMENT}]")
        if order == 0:
            return 1.0
        if order == 1 or self._moments is None:
            return self.mean
        try:
            return self._moments.moment(order, self.accuracy)
        except OverflowError:
            digits = math.log10(self.mean) * order + math.lgamma(order + 1) / math.log(10)
            raise InvalidParameterError("k", k, f"E[T^{order}] is about 1e{digits:.0f} (at least), beyond the double "
                                                "range (1.8e308); measure time in a larger unit") from None

    def cdf(self, t: float | np.ndarray) -> float | np.ndarray:
        """``P(T <= t)``, by the transient law of the chain with the target made absorbing.

        Uniformization (:meth:`CTMC.transient`): relative accuracy about ``Λ t`` units of
        ``2**-53`` (``Λ`` the largest outflow), the limit 1 once the chain is absorbed to within
        1e-303; near 1, prefer :meth:`survival`, accurate relative to ``1 - cdf``.

        Parameters
        ----------
        t : float or sequence of float
            Times ``>= 0`` (``inf`` allowed).

        Returns
        -------
        float or numpy.ndarray
            A float for a scalar ``t``, an array for a sequence.

        Raises
        ------
        InvalidParameterError
            ``t`` is not a time or sequence of times.
        ConvergenceError
            A stiff chain not absorbed by ``t`` would need more work than ``transient.MAX_WORK``.

        Examples
        --------
        An exponential time of rate 2:

        >>> from analytic.ctmc import CTMC
        >>> passage = CTMC([[0, 2.0], [0, 0]]).passage_time([False, True], 0)
        >>> passage.cdf([0.0, 1.0, np.inf]).round(12).tolist()
        [0.0, 0.864664716763, 1.0]
        """
        return self._laws(t)[0]

    def survival(self, t: float | np.ndarray) -> float | np.ndarray:
        """``P(T > t) = 1 - cdf(t)``, summed over the non-target states: accurate relative to itself
        in the tail (about ``Λ t`` units of ``2**-53``), and 0 once below 1e-303 — or, where a chain
        of at most ``transient.SPECTRAL_STATES`` states needs more iterates than
        ``transient.MAX_WORK`` allows and its spectrum proves it absorbed, once below 1e-13.

        Parameters
        ----------
        t : float or sequence of float
            Times ``>= 0`` (``inf`` allowed).

        Returns
        -------
        float or numpy.ndarray
            A float for a scalar ``t``, an array for a sequence.

        Raises
        ------
        InvalidParameterError
            ``t`` is not a time or sequence of times.
        ConvergenceError
            A stiff chain not absorbed by ``t`` would need more work than ``transient.MAX_WORK``.

        Examples
        --------
        An exponential time of rate 2: ``P(T > 20) = exp(-40)``, far below what ``1 - cdf`` resolves.

        >>> from analytic.ctmc import CTMC
        >>> passage = CTMC([[0, 2.0], [0, 0]]).passage_time([False, True], 0)
        >>> float(passage.survival(20.0) / np.exp(-40.0)).__round__(12)
        1.0
        """
        return self._laws(t)[1]

    def _laws(self, t: Any) -> tuple[Any, Any]:
        times = check_times(t, allow_infinite=True)
        flat = times.ravel()
        cdf, survival = np.ones(len(flat)), np.zeros(len(flat))
        finite = np.isfinite(flat)
        m = self.n_states
        if finite.any() and self._occupied is not None:
            generator, initial = absorbing(self._cut)
            law = uniformized(generator, flat[finite], initial, lambda: np.eye(1, len(initial), m).ravel())
            cdf[finite], survival[finite] = np.minimum(law[:, m], 1.0), law[:, :m].sum(axis=1)
        elif finite.any():
            cdf[finite], survival[finite] = self.at_target, 1.0 - self.at_target
        if times.ndim == 0:
            return float(cdf[0]), float(survival[0])
        return cdf, survival
