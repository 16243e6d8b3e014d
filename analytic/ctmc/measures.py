"""Measures of a chain beyond its laws: rewards over time, passage times and reachability.

The computations behind :meth:`CTMC.transient_reward`, :meth:`CTMC.accumulated_reward`,
:meth:`CTMC.passage_time`, :meth:`CTMC.reach_probability` and :meth:`CTMC.reward_until`; each
vouches for a stated accuracy, and refuses (:class:`~analytic.errors.ConvergenceError`) rather than
answer below it.

How each measure is vouched (uniformization with steady-state detection, occupation measures as
stationary laws of auxiliary chains, certified moment systems), with the references: the
documentation's page "Measures on a chain" (docs/measures.md, section "How each measure is vouched").

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
