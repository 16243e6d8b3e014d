"""Measures of a chain beyond its laws: rewards over time, passage times and reachability.

The computations behind :meth:`CTMC.transient_reward`, :meth:`CTMC.accumulated_reward`,
:meth:`CTMC.passage_time`, :meth:`CTMC.reach_probability` and :meth:`CTMC.reward_until`; each
vouches for a stated accuracy, and refuses (:class:`~analytic.errors.ConvergenceError`) rather than
answer below it.

* **Rewards over time** use the uniformized iterates ``v_k = p(0) P^k`` of
  :mod:`analytic.ctmc.transient` (``P = I + Q / Λ``). The expected reward at ``t`` is
  ``p(t) r``; the reward accumulated over ``[0, t]`` is
  ``sum_k P(N > k) / Λ * v_k r`` with ``N`` Poisson of mean ``Λ t`` (the integral of the Poisson
  weights: de Souza e Silva & Gail, *Calculating availability and performability measures of
  repairable computer systems using randomization*, J. ACM 36, 1989). Every term of a
  non-negative reward is non-negative, so both are good to about ``Λ t`` units of ``2**-53``
  relative, like :func:`~analytic.ctmc.transient.transient`. Once the iterates equal the limiting
  law ``pi`` (steady-state detection, within ``TOLERANCE`` = 1e-13 relative), or the reward has
  settled in total variation (``analytic.ctmc.transient.reward_settled``, within 1e-10 of
  ``pi |r|``), the remaining weight integrates to ``(t - elapsed) * pi r``, so a large ``t``
  costs about one stationary solve. The Poisson sum is cut where less than 1e-16 of the mass is
  left: the accumulated reward loses at most ``1e-16 * t * max |r|``.
* **Passage times and rewards until a target** use the occupation measure
  ``n = p(0) N`` on the non-target states ``T`` the chain can visit first, ``N = (-Q_TT)^-1``
  (the expected time spent in each state before the target is hit). It is the stationary law of
  an auxiliary irreducible chain, ``pi_T / (c pi_x)``: the states ``T``, one state ``x`` where
  every exit from ``T`` lands, and a restart from ``x`` into ``p(0)`` at rate ``c`` (the
  regenerative argument of Grassmann, Taksar & Heyman, *Regenerative analysis and steady state
  distributions for Markov chains*, Oper. Res. 33, 1985). So it inherits the certified
  componentwise accuracy of :meth:`CTMC.stationary`: solved at ``tolerance / 2.5``, every sum of
  non-negative terms of ``n`` (the mean passage time, a non-negative reward until the target,
  the probability of reaching it) is within ``tolerance`` relative, whatever the conditioning.
* **Higher moments** ``E[T^k] = k n m_(k-1)`` need the moments from every state,
  ``m_k = k N m_(k-1)``, ``m_0 = 1`` (Neuts, *Matrix-Geometric Solutions in Stochastic Models*,
  1981, Theorem 2.2.1: ``E[T^k] = k! p(0) N^k 1``). Each is solved by SuperLU of ``-Q_TT``
  refined in double-double (Moler, *Iterative refinement in floating point*, J. ACM 14, 1967) and
  certified: ``-Q_TT`` is a non-singular M-matrix, so its inverse is non-negative, and a residual
  ``rho = b - A x`` with ``|rho| <= theta b`` entry by entry proves ``|x - x_exact| <= theta
  x_exact`` entry by entry (``x - x_exact = -N rho``). The residual is computed by compensated
  products and sums (Ogita, Rump & Oishi, *Accurate sum and dot product*, SIAM J. Sci. Comput. 26,
  2005) and its own rounding bounded. Where that proof falls short (a chain making more than
  about 1e20 jumps before the target, beyond what double-double residuals resolve), the measures
  ``u_k = u_(k-1) N``, ``u_1 = n``, come instead from chained occupation measures, each an
  auxiliary stationary solve restarted into the previous one: ``E[T^k] = k! sum u_k``.
* **Time-bounded reachability** (reach the target before ``t`` without entering ``avoid``) is
  the transient law of the chain with the target and the avoided states made absorbing (Baier,
  Haverkort, Hermanns & Katoen, *Model-checking algorithms for continuous-time Markov chains*,
  IEEE Trans. Softw. Eng. 29, 2003, Theorem 1), and ``t = inf`` is the probability of absorption
  in the target, from the occupation measure: ``P = p(0)(target) + n q_target``.

The rates from one state into the target (or out of the region) are added up in floating point
for the auxiliary chains, a relative change of a few units of ``2**-53`` in those rates; the moment
systems take every rate as given.

Sets of states (``target``, ``avoid``) follow the package's convention for rewards
(:meth:`Stationary.expected`): a boolean mask aligned with the states, or a predicate; on a lattice
chain the predicate receives the array of all states (one row each) and returns one boolean per
row, on other chains it is called on each state and returns ``True`` or ``False``. A set of states
``S`` is ``lambda x: x in S``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.special import pdtrc

from analytic.ctmc import stationary as stationary_law
from analytic.ctmc._passage_time import Moments, PassageTime
from analytic.ctmc._targets import occupation, reach_probability, reached_region, region
from analytic.ctmc.transient import Uniformization, poisson_window
from analytic.ctmc.transient import transient as uniformized
from analytic.errors import ConvergenceError, InvalidParameterError

__all__ = ["PassageTime"]

#: Default relative accuracy vouched for passage times, rewards until a target and reachability
#: at ``t = inf``.
ACCURACY = stationary_law.ACCURACY

#: Iterates whose Poisson weights are computed at once (accumulated rewards).
_CHUNK = 4096


# ---------------------------------------------------------------------------------------------
# Rewards over time
# ---------------------------------------------------------------------------------------------


def transient_reward(generator: sp.csr_array, times: np.ndarray, initial: np.ndarray, values: np.ndarray,
                     limit: Callable[[], np.ndarray]) -> np.ndarray:
    """``E[r(X_t)] = p(t) r`` for the (1-D) ``times``.

    Parameters
    ----------
    generator : scipy.sparse.csr_array
        The generator ``Q``.
    times : numpy.ndarray
        Times ``>= 0``, finite, 1-D.
    initial : numpy.ndarray
        ``p(0)``.
    values : numpy.ndarray
        The reward of each state, finite.
    limit : callable
        Returns the limiting law from ``initial`` (for steady-state detection).

    Returns
    -------
    numpy.ndarray
        One expected reward per time.

    Examples
    --------
    Rates 1 (0 -> 1) and 2 (1 -> 0) from state 0: ``P(X_t = 1) = (1 - exp(-3 t)) / 3``.

    >>> generator = sp.csr_array([[-1.0, 1.0], [2.0, -2.0]])
    >>> transient_reward(generator, np.array([1.0]), np.array([1.0, 0.0]), np.array([0.0, 1.0]),
    ...                  lambda: np.array([2, 1]) / 3).round(12).tolist()
    [0.316737643877]
    """
    scale = float(np.abs(values).max())
    if scale == 0.0:
        return np.zeros(len(times))
    return _scaled(uniformized(generator, times, initial, limit, reward=values / scale), scale)


def accumulated_reward(generator: sp.csr_array, times: np.ndarray, initial: np.ndarray, values: np.ndarray,
                       limit: Callable[[], np.ndarray]) -> np.ndarray:
    """``E[int_0^t r(X_s) ds] = sum_k P(N > k) / Λ * p(0) P^k r`` for the (1-D) ``times``, with
    steady-state detection (module docstring).

    Parameters
    ----------
    generator : scipy.sparse.csr_array
        The generator ``Q``.
    times : numpy.ndarray
        Times ``>= 0``, finite, 1-D.
    initial : numpy.ndarray
        ``p(0)``.
    values : numpy.ndarray
        The reward of each state, finite.
    limit : callable
        Returns the limiting law from ``initial``; called once, when more than 2000 iterates are
        needed.

    Returns
    -------
    numpy.ndarray
        One accumulated reward per time.

    Raises
    ------
    ConvergenceError
        A stiff chain that has not mixed by the largest time would need more iterates than
        ``transient.MAX_WORK`` allows.

    Examples
    --------
    Time spent in state 1 by the chain of rates 1 (0 -> 1) and 2 (1 -> 0) from state 0 over
    ``[0, t]``: ``t / 3 - (1 - exp(-3 t)) / 9``.

    >>> generator = sp.csr_array([[-1.0, 1.0], [2.0, -2.0]])
    >>> accumulated_reward(generator, np.array([1.0]), np.array([1.0, 0.0]), np.array([0.0, 1.0]),
    ...                    lambda: np.array([2, 1]) / 3).round(12).tolist()
    [0.227754118708]
    >>> import math
    >>> round(1 / 3 - (1 - math.exp(-3)) / 9, 12)
    0.227754118708
    """
    scale = float(np.abs(values).max())
    out = np.zeros(len(times))
    if scale == 0.0 or not len(times):
        return out
    r = values / scale
    sweep = Uniformization(generator)
    if sweep.rate == 0.0:
        return _scaled(times * float(initial @ r), scale)
    with np.errstate(over="ignore", invalid="ignore"):     # Λ t beyond the doubles: inf iterates, the limit decides
        means = sweep.rate * times
        _, right = poisson_window(means)
    last = float(right.max())
    target, settle = sweep.steady_state(last, limit, r)
    rewards, settled = [], False
    for _, v, done in sweep.iterates(initial, last, settle):
        rewards.append(float(np.einsum("i,i->", v, r)))   # not BLAS: its threads stall on a busy machine
        settled = done
    if not settled and last > sweep.budget:
        raise sweep.refusal(last, float(times.max()))
    elapsed = np.zeros(len(times))
    for first in range(0, len(rewards), _CHUNK):
        k = np.arange(first, min(first + _CHUNK, len(rewards)))
        weight = np.where(k[None, :] <= right[:, None], pdtrc(k[None, :], means[:, None]), 0.0) / sweep.rate
        out += weight @ np.array(rewards[first:first + _CHUNK])
        elapsed += weight.sum(axis=1)
    if settled:
        pending = right >= len(rewards)
        out[pending] += np.maximum(times[pending] - elapsed[pending], 0.0) * float(target @ r)
    return _scaled(out, scale)


def _scaled(values: np.ndarray, scale: float) -> np.ndarray:
    """``values * scale``, or the error when the product leaves the double range."""
    with np.errstate(over="ignore"):
        out = values * scale
    if not np.all(np.isfinite(out)):
        raise InvalidParameterError("reward", scale, "is too large: the expected reward exceeds the largest double "
                                                     "(1.8e308); measure it in a larger unit")
    return out


# ---------------------------------------------------------------------------------------------
# Passage times, rewards until a target, reachability
# ---------------------------------------------------------------------------------------------


def passage_time(generator: sp.csr_array, initial: np.ndarray, target: np.ndarray, value: Any, states: Any,
                 tolerance: float) -> PassageTime:
    """The :class:`PassageTime` to the target mask ``target`` from ``p(0) = initial``.

    Parameters
    ----------
    generator : scipy.sparse.csr_array
        The generator ``Q``.
    initial : numpy.ndarray
        ``p(0)``.
    target : numpy.ndarray
        Boolean mask.
    value : object
        The ``target`` the caller gave (for messages).
    states : list or numpy.ndarray
        The chain's states (for messages).
    tolerance : float
        The relative accuracy to vouch for.

    Returns
    -------
    PassageTime

    Raises
    ------
    InvalidParameterError
        The target is empty, or not reached with probability 1 (the message gives the probability).
    ConvergenceError
        The mean cannot be vouched for.

    Examples
    --------
    >>> q = sp.csr_array(np.array([[-2.0, 2.0], [0, 0]]))
    >>> passage_time(q, np.array([1.0, 0]), np.array([False, True]), "1", [0, 1], 1e-10).mean
    0.5
    """
    cut = reached_region(generator, initial, target, np.zeros_like(target), value, states, tolerance)
    if not len(cut.states) or not cut.start.any():
        return PassageTime(0.0, tolerance, cut.success, len(cut.states), cut, None, None)
    occupied = occupation(cut, cut.start, tolerance)
    mean, bound = occupied.total(np.ones(len(cut.states)))
    _vouch(bound, tolerance, "the mean passage time")
    return PassageTime(mean, tolerance, cut.success, len(cut.states), cut, occupied, Moments(cut, occupied))


def reward_until(generator: sp.csr_array, initial: np.ndarray, target: np.ndarray, value: Any, states: Any,
                 values: np.ndarray, tolerance: float) -> float:
    """``E[int_0^T r(X_s) ds]``, ``T`` the first time in the target, from the occupation measure.

    Parameters
    ----------
    generator : scipy.sparse.csr_array
        The generator ``Q``.
    initial : numpy.ndarray
        ``p(0)``.
    target : numpy.ndarray
        Boolean mask.
    value : object
        The ``target`` the caller gave (for messages).
    states : list or numpy.ndarray
        The chain's states (for messages).
    values : numpy.ndarray
        The reward of each state, finite.
    tolerance : float
        The relative accuracy to vouch for (relative to the reward of ``|r|`` for a reward of
        both signs).

    Returns
    -------
    float

    Raises
    ------
    InvalidParameterError
        The target is empty, or not reached with probability 1.
    ConvergenceError
        The accuracy cannot be vouched for.

    Examples
    --------
    Reward 3 per unit time in state 0, left at rate 2 for the target 1: ``3 / 2``.

    >>> q = sp.csr_array(np.array([[-2.0, 2.0], [0, 0]]))
    >>> reward_until(q, np.array([1.0, 0]), np.array([False, True]), "1", [0, 1], np.array([3.0, 5.0]), 1e-10)
    1.5
    """
    cut = reached_region(generator, initial, target, np.zeros_like(target), value, states, tolerance)
    if not len(cut.states) or not cut.start.any():
        return 0.0
    occupied = occupation(cut, cut.start, tolerance)
    r = values[cut.states]
    gain, gain_bound = occupied.total(np.maximum(r, 0.0))
    loss, loss_bound = occupied.total(np.maximum(-r, 0.0))
    _vouch(max(gain_bound, loss_bound), tolerance, "the reward until the target")
    return gain - loss


def _vouch(bound: float, tolerance: float, what: str) -> None:
    if not bound <= tolerance:
        raise ConvergenceError(f"{what} is vouched to {bound:.3g} relative, not to tolerance={tolerance:g}")


def reachability(generator: sp.csr_array, initial: np.ndarray, target: np.ndarray, avoid: np.ndarray, value: Any,
                 times: np.ndarray, tolerance: float) -> np.ndarray:
    """:func:`reach_probability` from the masks, with an empty target refused.

    Parameters
    ----------
    generator : scipy.sparse.csr_array
        The generator ``Q``.
    initial : numpy.ndarray
        ``p(0)``.
    target, avoid : numpy.ndarray
        Boolean masks (the target overrides ``avoid``).
    value : object
        The ``target`` the caller gave (for messages).
    times : numpy.ndarray
        Times ``>= 0`` (``inf`` allowed), 1-D.
    tolerance : float
        The relative accuracy at ``t = inf``.

    Returns
    -------
    numpy.ndarray
        One probability per time.

    Raises
    ------
    InvalidParameterError
        The target is empty.
    ConvergenceError
        See :func:`reach_probability`.

    Examples
    --------
    >>> q = sp.csr_array(np.array([[0, 0, 0], [1.0, -4.0, 3.0], [0, 0, 0]]))
    >>> reachability(q, np.array([0, 1.0, 0]), np.array([False, False, True]), np.array([True, False, False]),
    ...              "2", np.array([np.inf]), 1e-10).tolist()
    [0.75]
    """
    if not target.any():
        raise InvalidParameterError("target", value, "must contain at least one state (it selects none)")
    return reach_probability(region(generator, initial, target, avoid & ~target), times, tolerance)
