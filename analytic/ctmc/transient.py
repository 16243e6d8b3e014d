"""Transient laws ``p(t) = p(0) exp(Q t)`` by uniformization with steady-state detection.

With ``Λ`` at least every state's total outflow, ``P = I + Q / Λ`` is stochastic and
``p(t) = sum_k Poisson(k; Λt) p(0) P^k`` (Jensen 1953): every term is non-negative, so the sum is
accurate entry by entry: each iterate adds about one unit roundoff, so ``p(t)`` is good to about
``Λ t`` times ``2**-53`` relative (3.4e-13 measured at ``Λ t = 34 600``). The Poisson weights are
taken between quantiles that leave less than 1e-16 of mass outside, each to a few units of
rounding by the saddle-point form (``k log m - m - log k!`` cancels: it cost 4e-11 there, and
1.3e-10 on a model checker's reference value at ``Λ t = 95 000``). For large
``Λt`` the iterates ``v_k = p(0) P^k`` are compared with the stationary law ``pi`` (one solve):
the ratio ``v_k / pi`` is, state by state, an average of the previous ratios under the
time-reversed chain, so ``max_j |v_k(j) / pi(j) - 1|`` never increases
with k; once it is below ``TOLERANCE`` every later iterate is ``pi`` within it, and the remaining
Poisson mass goes to ``pi`` at once (steady-state detection; Sericola 1999). A chain that has mixed
costs about one stationary solve whatever ``t``.

An expected reward ``v_k r`` needs less: ``||v_k - pi||_1`` never increases with k either (``P``
is stochastic and ``pi P = pi``), and ``|v_j r - pi r| <= ||v_j - pi||_1 (max r - min r) / 2``
(the differences sum to zero). So the iterates count as settled for a reward once that bound,
with the proven error of the computed ``pi`` (:attr:`Stationary.error_bounds`) added, is below
``REWARD_TOLERANCE`` times ``pi |r|``; the far tail of a large chain, whose ratios ``v_k / pi``
settle last, then no longer holds the answer back (``reward_settled``).

A stiff chain (rates over many decades) counts its mixing in far more iterates than in time. For
chains of at most ``SPECTRAL_STATES`` states the eigen-decomposition ``Q = V D V^-1`` decides
whether time t has mixed: ``|p(t) - pi| <= kappa(V) sqrt(n) exp(-gap t)`` (``gap`` the smallest
``-Re`` of a non-zero eigenvalue, ``kappa`` the condition number of ``V``), and where that is below
``TOLERANCE`` times the smallest vouched probability the answer is ``pi``. A stiff chain that has
not mixed by time t and would need more iterates than ``MAX_WORK`` allows (about ``Λ t``) is
refused with an error saying so rather than answered inaccurately: Padé scaling and squaring
(``scipy.linalg.expm``) lost 3e-7 relative on a three-state chain with rates 1e6 and 1e-6 at
t = 1e4, and any squaring of ``exp(Q t / 2^m)`` doubles the relative error of the slow mode m
times.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.special import pdtrc

from analytic._incomplete_gamma import log_poisson
from analytic.ctmc.stationary import FLOOR
from analytic.errors import ConvergenceError

__all__ = ["transient"]

#: Largest relative deviation from the stationary law at which the iterates count as stationary.
TOLERANCE = 1e-13

#: Largest error of an expected reward, relative to ``pi |r|``, at which the iterates count as settled
#: for that reward in total variation (the default accuracy of :meth:`CTMC.stationary`).
REWARD_TOLERANCE = 1e-10

#: Largest work, in iterates x (transitions + ``_STEP_OVERHEAD``), of one transient computation.
MAX_WORK = 2e9

#: Largest chain whose eigen-decomposition decides whether a time has mixed.
SPECTRAL_STATES = 500

#: The Python-level cost of one uniformization step, in sparse multiply-adds.
_STEP_OVERHEAD = 20_000

def poisson_window(mean: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Left and right truncation points (as floats: ``mean`` may be astronomically large) leaving
    less than about 1e-16 of Poisson mass outside."""
    spread = 9.0 * np.sqrt(mean) + 30.0
    return np.maximum(np.floor(mean - spread), 0.0), np.ceil(mean + spread)


def _poisson_weight(k: int, mean: np.ndarray) -> np.ndarray:
    """``Poisson(k; mean)`` for each mean (``mean = 0`` gives the point mass at 0), to a few units of
    rounding at any mean: Loader's saddle-point form in double-double
    (``analytic._incomplete_gamma.log_poisson``), not ``k log m - m - log k!``, whose terms cancel to
    lose ``log2(m)`` bits (4e-10 relative at ``m = 95 000``)."""
    positive = mean > 0
    weight = np.full(mean.shape, 1.0 if k == 0 else 0.0)
    if k == 0:
        weight[positive] = np.exp(-mean[positive])
    elif positive.any():
        hi, lo = log_poisson(np.full(int(positive.sum()), float(k)), mean[positive])
        weight[positive] = np.exp(hi) * (1.0 + lo)
    return weight


def _mixed(generator: sp.csr_array, times: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Which times the spectral bound proves mixed to ``TOLERANCE`` relative (small chains only)."""
    n = generator.shape[0]
    if n > SPECTRAL_STATES:
        return np.zeros(len(times), dtype=bool)
    values, vectors = np.linalg.eig(generator.toarray())
    rest = np.argsort(np.abs(values))[1:]  # all but the (numerically) zero eigenvalue
    gap = float(-values[rest].real.max())
    noise = 1e3 * np.finfo(float).eps * float(np.abs(generator.diagonal()).max())
    kappa = np.linalg.cond(vectors)
    if not (gap > noise and np.isfinite(kappa)):
        return np.zeros(len(times), dtype=bool)
    smallest = float(target[target >= FLOOR].min())
    with np.errstate(over="ignore"):
        return kappa * math.sqrt(n) * np.exp(-gap * times) <= TOLERANCE * smallest


def _stationary_by(v: np.ndarray, target: np.ndarray) -> bool:
    """Whether ``v`` is ``target`` within ``TOLERANCE`` relative (absolutely below the floor)."""
    vouched = target >= FLOOR
    return bool(np.all(np.abs(v[vouched] - target[vouched]) <= TOLERANCE * target[vouched])
                and np.all(np.abs(v[~vouched] - target[~vouched]) <= TOLERANCE * FLOOR))


def law_settled(target: np.ndarray) -> Callable[[np.ndarray], bool]:
    """The steady-state test of a law: every iterate within ``TOLERANCE`` of ``target`` state by state."""
    return lambda v: _stationary_by(v, target)


def reward_settled(target: np.ndarray, error_bounds: np.ndarray | None,
                   values: np.ndarray) -> Callable[[np.ndarray], bool]:
    """The steady-state test of the expected reward ``v r`` (module docstring): the law's test, or
    ``(||v - target||_1 + E) (max r - min r) / 2 + E_r <= REWARD_TOLERANCE * target |r|``, where
    ``E`` bounds ``||target - pi||_1`` and ``E_r`` bounds ``|(target - pi) r|`` from the relative
    ``error_bounds`` of ``target`` (None or ``inf`` entries: the mass of those states is bounded by
    what the others leave, ``1 - sum (1 - bound) target``).

    Examples
    --------
    >>> test = reward_settled(np.array([0.5, 0.5]), np.array([1e-15, 1e-15]), np.array([0.0, 1.0]))
    >>> test(np.array([0.5 + 1e-12, 0.5 - 1e-12])), test(np.array([0.5 + 1e-9, 0.5 - 1e-9]))
    (True, False)
    """
    bounds = np.full(len(target), np.inf) if error_bounds is None else np.asarray(error_bounds, float)
    known = np.isfinite(bounds)
    unknown_mass = max(1.0 - float(target[known] @ (1.0 - np.minimum(bounds[known], 1.0))), 0.0)
    l1_error = float(target[known] @ bounds[known]) + unknown_mass + float(target[~known].sum())
    size = np.abs(values)
    reward_error = float((target[known] * bounds[known]) @ size[known]) + l1_error * float(size[~known].max(initial=0.0))
    half_range = (float(values.max()) - float(values.min())) / 2 if len(values) else 0.0
    budget = REWARD_TOLERANCE * float(target @ size)
    law = law_settled(target)

    def settled(v: np.ndarray) -> bool:
        return law(v) or (float(np.abs(v - target).sum()) + l1_error) * half_range + reward_error <= budget

    return settled


class Uniformization:
    """The uniformized chain of a generator: ``P = I + Q / Λ`` at the largest outflow ``Λ``, the
    iterates ``v_k = p(0) P^k`` with steady-state detection, and the refusal of a stiff chain.

    :func:`transient` and the measures of :mod:`analytic.ctmc.measures` (expected and accumulated
    rewards) weigh the same iterates differently; this holds what they share.

    Parameters
    ----------
    generator : scipy.sparse.csr_array
        The generator ``Q``, shape (n, n), rows summing to zero (its diagonal gives the outflows).

    Attributes
    ----------
    rate : float
        ``Λ``, the largest outflow (0 when no state has a transition).
    budget : int
        The most iterates ``MAX_WORK`` allows.

    Examples
    --------
    Rates 1 (0 -> 1) and 2 (1 -> 0): ``Λ = 2`` and ``P = [[1/2, 1/2], [1, 0]]``.

    >>> sweep = Uniformization(sp.csr_array([[-1.0, 1.0], [2.0, -2.0]]))
    >>> sweep.rate, [v.tolist() for _, v, _ in sweep.iterates(np.array([1.0, 0.0]), 2, None)]
    (2.0, [[1.0, 0.0], [0.5, 0.5], [0.75, 0.25]])
    """

    def __init__(self, generator: sp.csr_array) -> None:
        self.outflow = -generator.diagonal()
        self.rate = float(self.outflow.max()) if len(self.outflow) else 0.0
        graph = generator.tocoo()
        self._slowest = float(graph.data[(graph.row != graph.col) & (graph.data > 0)].min(initial=np.inf))
        n = generator.shape[0]
        self._step = (sp.identity(n, format="csr") + generator / self.rate).T.tocsr() if self.rate > 0 else None
        self.budget = int(MAX_WORK / ((self._step.nnz if self._step is not None else n) + _STEP_OVERHEAD))

    def steady_state(self, last: float, stationary: Callable[[], Any],
                     reward: np.ndarray | None = None) -> tuple[np.ndarray | None, Callable[[np.ndarray], bool] | None]:
        """The limiting law and the steady-state test of a sum up to iterate ``last``: the law's test
        (:func:`law_settled`), or a reward's (:func:`reward_settled`) when ``reward`` is given; both
        None when the sum is short (at most 2000 iterates, or the budget if fewer) and ``stationary``
        is not called.

        Parameters
        ----------
        last : float
            The last iterate the sum needs.
        stationary : callable
            Returns the limiting law, as an array or a :class:`~analytic.ctmc.Stationary`.
        reward : numpy.ndarray, optional
            One value per state.

        Returns
        -------
        target : numpy.ndarray or None
            The limiting law, shape (n,).
        test : callable or None
            ``test(v)`` says whether iterate ``v`` has settled (for every later one too).

        Examples
        --------
        >>> sweep = Uniformization(sp.csr_array([[-1.0, 1.0], [1.0, -1.0]]))
        >>> sweep.steady_state(100, lambda: np.array([0.5, 0.5]))
        (None, None)
        >>> target, test = sweep.steady_state(1e4, lambda: np.array([0.5, 0.5]))
        >>> target.tolist(), test(np.array([0.5, 0.5]))
        ([0.5, 0.5], True)
        """
        if last <= min(2000, self.budget):
            return None, None
        limit = stationary()
        target = np.asarray(limit, dtype=float)
        if reward is None:
            return target, law_settled(target)
        return target, reward_settled(target, getattr(limit, "error_bounds", None), reward)

    def iterates(self, initial: np.ndarray, last: float,
                 settled: Callable[[np.ndarray], bool] | None) -> Iterator[tuple[int, np.ndarray, bool]]:
        """``(k, v_k, settled)`` for ``k = 0, 1, ...`` up to ``last`` (at most ``budget``); ``settled``
        says that the steady-state test (``law_settled`` or ``reward_settled``, tried
        every 16 iterates) holds for ``v_k``, and so for every later iterate: the sequence then ends.

        Parameters
        ----------
        initial : numpy.ndarray
            ``p(0)``, shape (n,).
        last : float
            The last iterate wanted (the sequence stops at ``budget`` if that comes first: the
            caller compares them to tell a finished sum from a refusal).
        settled : callable or None
            The steady-state test, or None (no steady-state detection).

        Yields
        ------
        k : int
            The index of the iterate.
        v : numpy.ndarray
            ``p(0) P^k`` (a new array each time).
        settled : bool
            Whether the test holds for ``v`` (the last item when True).

        Examples
        --------
        >>> sweep = Uniformization(sp.csr_array([[-1.0, 1.0], [1.0, -1.0]]))
        >>> test = law_settled(np.array([0.5, 0.5]))
        >>> [(k, done) for k, _, done in sweep.iterates(np.array([0.5, 0.5]), 100, test)]
        [(0, True)]
        """
        v = initial.astype(float)
        for k in range(int(min(last, self.budget)) + 1):
            done = settled is not None and k % 16 == 0 and settled(v)
            yield k, v, done
            if done or self._step is None:
                return
            v = self._step @ v

    def refusal(self, last: float, horizon: float) -> ConvergenceError:
        """The error for a chain that would need ``last`` iterates to reach time ``horizon`` and had
        not mixed within ``budget``.

        Parameters
        ----------
        last : float
            Iterates needed.
        horizon : float
            The time they would reach.

        Returns
        -------
        ConvergenceError
            Saying how many iterates would be needed, after how many the chain had not mixed, and
            how far its rates spread.

        Examples
        --------
        >>> sweep = Uniformization(sp.csr_array([[-1e6, 1e6], [1e-6, -1e-6]]))
        >>> "its rates span 1e+12x" in str(sweep.refusal(1e10, 5e3))
        True
        """
        spread = self.rate / self._slowest
        return ConvergenceError(
            f"uniformization would need {last:,.0f} iterates at rate {self.rate:.3g} to reach t = {horizon:.3g} and the "
            f"chain had not mixed after {self.budget:,}: it is stiff (its rates span {spread:.3g}x) or too large to mix "
            "within transient.MAX_WORK, and no method here computes its transient law to the package's accuracy")


def transient(generator: sp.csr_array, times: np.ndarray, initial: np.ndarray,
              stationary: Callable[[], Any], reward: np.ndarray | None = None) -> np.ndarray:
    """The laws ``p(t)`` for the (flattened) ``times``, one row each, or with ``reward`` the expected
    rewards ``p(t) r``; ``stationary()`` returns the limiting law from ``initial`` when steady-state
    detection needs it (the stationary law, or for a reducible chain the mix of its closed classes'
    laws: the ratio argument above holds within each closed class, and the transient states'
    mass, below ``TOLERANCE * FLOOR`` at detection, only decreases).

    Parameters
    ----------
    generator : scipy.sparse.csr_array
        The generator ``Q``, shape (n, n), rows summing to zero (its diagonal gives the outflows).
    times : numpy.ndarray
        Times ``t >= 0``, one-dimensional, in any order, in the unit of the inverse rates.
    initial : numpy.ndarray
        The law ``p(0)``, shape (n,).
    stationary : callable
        ``stationary()`` returns the limiting law from ``initial``, shape (n,), as an array or as a
        :class:`~analytic.ctmc.Stationary` (whose ``error_bounds`` let a reward settle in total
        variation, ``reward_settled``); called at most once, and only when uniformization
        needs more than 2000 iterates (or than ``MAX_WORK`` allows, if fewer).
    reward : numpy.ndarray, optional
        One finite value per state: return ``p(t) r`` instead of ``p(t)``.

    Returns
    -------
    numpy.ndarray
        Shape ``(len(times), n)``: row k is ``p(times[k])``; with ``reward``, shape
        ``(len(times),)``.

    Raises
    ------
    ConvergenceError
        A stiff chain that has not mixed (or, for a reward, whose reward has not settled) by the
        largest time would need more iterates than ``MAX_WORK`` allows.

    Examples
    --------
    A chain with rates 1 (0 -> 1) and 2 (1 -> 0) started in state 0 is there at time t with
    probability ``2/3 + exp(-3 t) / 3``:

    >>> import scipy.sparse as sp
    >>> generator = sp.csr_array([[-1.0, 1.0], [2.0, -2.0]])
    >>> p = transient(generator, np.array([0.0, 1.0]), np.array([1.0, 0.0]), lambda: np.array([2, 1]) / 3)
    >>> p.round(12).tolist()
    [[1.0, 0.0], [0.683262356123, 0.316737643877]]
    >>> round(2 / 3 + math.exp(-3) / 3, 12)
    0.683262356123
    """
    sweep = Uniformization(generator)
    means = sweep.rate * times
    project = (lambda v: v) if reward is None else (lambda v: np.array([np.einsum("i,i->", v, reward)]))
    out = np.zeros((len(times), len(initial) if reward is None else 1))
    if sweep.rate == 0.0:
        out[:] = project(initial)
        return out if reward is None else out[:, 0]
    left, right = poisson_window(means)
    last = float(right.max())
    target, settled = sweep.steady_state(last, stationary, reward)
    if last > sweep.budget:
        mixed = _mixed(generator, times, target)
        out[mixed] = project(target)
        left[mixed], right[mixed] = np.inf, -np.inf
        last = float(right.max(initial=0.0))
    for k, v, done in sweep.iterates(initial, last, settled):
        live = (k >= left) & (k <= right)
        if live.any():
            out[live] += _poisson_weight(k, means[live])[:, None] * project(v)[None, :]
        if done:
            pending = right > k
            out[pending] += pdtrc(k, means[pending])[:, None] * project(target)[None, :]
            break
    else:
        if last > sweep.budget:
            raise sweep.refusal(last, float(times.max()))
    return np.maximum(out, 0.0) if reward is None else out[:, 0]
