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

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.csgraph import breadth_first_order
from scipy.special import pdtrc

from analytic._kernels import kernel
from analytic.ctmc import stationary as stationary_law
from analytic.ctmc.compensated import two_product, two_sum
from analytic.ctmc.refinement import DIAGONAL_PIVOTING
from analytic.ctmc.spaces import LatticeSpace, plain
from analytic.ctmc.transient import Uniformization, _poisson_window
from analytic.ctmc.transient import transient as uniformized
from analytic.errors import ConvergenceError, InvalidParameterError, describe
from analytic.validation import integer, numeric_array, real_array, user_code

__all__ = ["PassageTime"]

#: Default relative accuracy vouched for passage times, rewards until a target and reachability
#: at ``t = inf``.
ACCURACY = stationary_law.ACCURACY

#: Smallest tolerance a caller may ask for: the auxiliary stationary law is solved at
#: ``tolerance / 2.5``, which must be at least the stationary solver's ``2**-50``.
MINIMUM_TOLERANCE = 2.0**-48

#: Highest moment :meth:`PassageTime.moment` computes (each order is one refined linear solve).
MAX_MOMENT = 100

#: Refinement rounds of one moment solve, and the certified ``theta`` they stop at.
_ROUNDS = 30
_THETA = 1e-24

_UNIT = 2.0**-53

#: Iterates whose Poisson weights are computed at once (accumulated rewards).
_CHUNK = 4096


# ---------------------------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------------------------


def check_tolerance(tolerance: Any) -> float:
    """``tolerance`` as a float in [``2**-48``, 1): the relative accuracy a measure vouches for
    (as :func:`analytic.ctmc.stationary.check_tolerance`, with that least value).

    Parameters
    ----------
    tolerance : float
        The relative accuracy asked for.

    Returns
    -------
    float

    Raises
    ------
    InvalidParameterError
        Not a real number in [``2**-48``, 1).

    Examples
    --------
    >>> check_tolerance(1e-12)
    1e-12
    """
    return stationary_law.tolerance_at_least(tolerance, MINIMUM_TOLERANCE, "the measures come from probabilities "
                                                                           "vouched to at best 2**-50, two of them at a time")


def check_times(t: Any, allow_infinite: bool = False) -> np.ndarray:
    """``t`` as a float array of times ``>= 0``: a scalar (0-d) or a 1-D sequence.

    Parameters
    ----------
    t : float or sequence of float
        The times.
    allow_infinite : bool
        Whether ``inf`` is a time (reachability: the probability of ever reaching).

    Returns
    -------
    numpy.ndarray
        0-d or 1-D.

    Raises
    ------
    InvalidParameterError
        ``t`` is not such a scalar or sequence (NaN, negative, empty, nested, not a number).

    Examples
    --------
    >>> check_times([0.0, 2.5]).tolist()
    [0.0, 2.5]
    >>> check_times(-1.5)
    Traceback (most recent call last):
    ...
    analytic.errors.InvalidParameterError: t = -1.5: must be finite real numbers >= 0 (a scalar or a 1-D sequence)
    """
    kind = "real numbers >= 0 (inf allowed)" if allow_infinite else "finite real numbers >= 0"
    times = real_array("t", t, " >= 0 (a scalar or a 1-D sequence)", allow_empty=False, allow_infinite=allow_infinite)
    if times.ndim > 1 or np.any(times < 0):
        raise InvalidParameterError("t", t, f"must be {kind} (a scalar or a 1-D sequence)")
    return times


def state_set(space: Any, value: Any, name: str, n: int) -> np.ndarray:
    """A set of states (module docstring: a boolean mask or a predicate) as a boolean mask.

    Parameters
    ----------
    space : ExplicitSpace or LatticeSpace
        The chain's states.
    value : array of bool or callable
        The set.
    name : str
        The parameter's name, for the message.
    n : int
        The number of states.

    Returns
    -------
    numpy.ndarray
        Boolean, shape (n,).

    Raises
    ------
    InvalidParameterError
        Neither a mask of n booleans nor a predicate returning a boolean per state.

    Examples
    --------
    >>> from analytic.ctmc.spaces import ExplicitSpace
    >>> state_set(ExplicitSpace(["idle", "busy"]), lambda s: s == "busy", "target", 2).tolist()
    [False, True]
    >>> state_set(ExplicitSpace(["idle", "busy"]), [1], "target", 2)
    Traceback (most recent call last):
    ...
    analytic.errors.InvalidParameterError: target = [1]: must be a boolean mask aligned with the states (2 booleans) \
or a predicate of a state returning True or False (a set S of states: lambda x: x in S)
    """
    condition = (f"must be a boolean mask aligned with the states ({n} booleans) or a predicate of a state returning "
                 "True or False (a set S of states: lambda x: x in S)")
    if callable(value):
        lattice = isinstance(space, LatticeSpace)
        requirement = ("it must return one boolean per row of the state array" if lattice
                       else "it must return True or False for each state")
        if lattice:
            with user_code(name, value, requirement):
                mask = np.asarray(value(space.states))
            if mask.dtype != bool or mask.shape != (n,):
                raise InvalidParameterError(name, value, f"{requirement}; it returned {describe(mask)} "
                                                         f"(dtype {mask.dtype}, shape {mask.shape})")
            return mask
        mask = np.zeros(n, dtype=bool)
        for i, state in enumerate(space.states):
            with user_code(name, state, requirement):
                answer = value(state)
            if not isinstance(answer, bool | np.bool_):
                raise InvalidParameterError(name, value, f"{requirement}; it returned {describe(answer)} at state "
                                                         f"{plain(state)!r}")
            mask[i] = answer
        return mask
    mask = numeric_array(name, value, condition, booleans=True)
    if mask.dtype != bool or mask.shape != (n,):
        raise InvalidParameterError(name, value, condition)
    return mask


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
        _, right = _poisson_window(means)
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
# The chain cut at a target
# ---------------------------------------------------------------------------------------------


def _search(edges: sp.csr_array, sources: np.ndarray) -> np.ndarray:
    """Boolean mask of the states reached from ``sources`` (a mask) along ``edges`` (sources included)."""
    n = edges.shape[0]
    start = np.flatnonzero(sources)
    found = np.zeros(n, dtype=bool)
    if not len(start):
        return found
    indptr = np.concatenate([edges.indptr, [edges.indptr[-1] + len(start)]])
    indices = np.concatenate([edges.indices, start])
    graph = sp.csr_array((np.ones(len(indices)), indices, indptr), shape=(n + 1, n + 1))
    order = breadth_first_order(graph, n, directed=True, return_predecessors=False)
    found[order[order < n]] = True
    return found


@dataclass(frozen=True)
class Region:
    """The states from which a chain can still reach the target: what passage and reachability need.

    Attributes
    ----------
    states : numpy.ndarray
        Indices ``T`` of the non-target, non-avoided states the chain can visit from ``initial``
        before the target and from which it can still reach the target (increasing).
    lost : numpy.ndarray
        Indices of the states it can visit (not target, not avoided) from which the target is
        out of reach.
    start : numpy.ndarray
        ``p(0)`` on ``states``.
    success : float
        ``p(0)`` of the target.
    failure : float
        ``p(0)`` of every other state outside ``states``.
    to_target : numpy.ndarray
        The rate from each of ``states`` into the target.
    to_failure : numpy.ndarray
        The rate from each of ``states`` to the other states outside ``states``.
    inner : scipy.sparse.csr_array
        The rates among ``states`` (off-diagonal, positions in ``states``).
    outflow : numpy.ndarray
        The total outflow of each of ``states``.
    rates : tuple of numpy.ndarray
        Every rate out of ``states`` one by one, never added up (CSR ``indptr, indices, data``;
        column ``len(states)`` for any state outside them): the exact system of the moments.
    """

    states: np.ndarray
    lost: np.ndarray
    start: np.ndarray
    success: float
    failure: float
    to_target: np.ndarray
    to_failure: np.ndarray
    inner: sp.csr_array
    outflow: np.ndarray
    rates: tuple[np.ndarray, np.ndarray, np.ndarray]


def region(generator: sp.csr_array, initial: np.ndarray, target: np.ndarray, avoid: np.ndarray) -> Region:
    """The :class:`Region` of ``target`` (avoiding ``avoid``, which the target overrides) from ``initial``.

    Parameters
    ----------
    generator : scipy.sparse.csr_array
        The generator ``Q``.
    initial : numpy.ndarray
        ``p(0)``.
    target, avoid : numpy.ndarray
        Boolean masks.

    Returns
    -------
    Region

    Examples
    --------
    A path 0 - 1 - 2 - 3 at unit rates, from 1 to 3 avoiding 0: only 1 and 2 count.

    >>> q = sp.csr_array(np.array([[-1, 1, 0, 0], [1, -2, 1, 0], [0, 1, -2, 1], [0, 0, 1, -1.0]]))
    >>> cut = region(q, np.array([0, 1, 0, 0.0]), np.array([0, 0, 0, 1], bool), np.array([1, 0, 0, 0], bool))
    >>> cut.states.tolist(), cut.to_target.tolist(), cut.to_failure.tolist()
    ([1, 2], [0.0, 1.0], [1.0, 0.0])
    """
    n = generator.shape[0]
    stop = target | avoid
    graph = generator.tocoo()
    keep = (graph.row != graph.col) & (graph.data > 0) & ~stop[graph.row]
    rows, cols, rates = graph.row[keep], graph.col[keep], graph.data[keep]
    forward = sp.csr_array((rates, (rows, cols)), shape=(n, n))
    backward = sp.csr_array((rates, (cols, rows)), shape=(n, n))
    visited = _search(forward, (initial > 0) & ~stop) & ~stop
    hopeful = _search(backward, target)
    states = np.flatnonzero(visited & hopeful)
    inside = np.zeros(n, dtype=bool)
    inside[states] = True
    position = np.full(n, -1, dtype=np.int64)
    position[states] = np.arange(len(states))
    mine = inside[rows]
    rows, cols, rates = rows[mine], cols[mine], rates[mine]
    within = inside[cols]
    into_target = target[cols] & ~within
    m = len(states)
    to_target = np.bincount(position[rows[into_target]], weights=rates[into_target], minlength=m)
    leaving = ~within & ~into_target
    to_failure = np.bincount(position[rows[leaving]], weights=rates[leaving], minlength=m)
    inner = sp.csr_array((rates[within], (position[rows[within]], position[cols[within]])), shape=(m, m))
    outflow = -generator.diagonal()[states]
    source, column = position[rows], np.where(within, position[cols], m)
    order = np.argsort(source, kind="stable")
    indptr = np.concatenate([[0], np.cumsum(np.bincount(source, minlength=m))]).astype(np.int64)
    success = float(initial[target].sum())
    return Region(states, np.flatnonzero(visited & ~hopeful), initial[states], success,
                  float(initial[~target & ~inside].sum()), to_target, to_failure, inner, outflow,
                  (indptr, column[order].astype(np.int64), rates[order].astype(float)))


def _generator(n: int, rows: np.ndarray, cols: np.ndarray, rates: np.ndarray) -> sp.csr_array:
    """The generator with these off-diagonal rates (the diagonal makes rows sum to zero)."""
    positive = rates > 0
    rows, cols, rates = rows[positive], cols[positive], rates[positive]
    outflow = np.bincount(rows, weights=rates, minlength=n)
    diagonal = np.arange(n)
    matrix = sp.csr_array((np.concatenate([rates, -outflow]), (np.concatenate([rows, diagonal]),
                                                               np.concatenate([cols, diagonal]))), shape=(n, n))
    matrix.sum_duplicates()
    return matrix


@dataclass(frozen=True)
class Occupation:
    """The occupation measure ``n = s N`` of a region from a start measure ``s``, certified.

    Attributes
    ----------
    values : numpy.ndarray
        ``n``: the expected time spent in each state of the region before leaving it.
    bounds : numpy.ndarray
        A proven bound on the relative error of each value (``inf`` where the auxiliary stationary
        probability lies below the floor of :mod:`analytic.ctmc.stationary`).
    """

    values: np.ndarray
    bounds: np.ndarray

    def total(self, weights: np.ndarray) -> tuple[float, float]:
        """``sum n w`` for weights ``w >= 0``, and a bound on its relative error.

        Parameters
        ----------
        weights : numpy.ndarray
            Non-negative weights aligned with the region's states.

        Returns
        -------
        value : float
            The sum.
        bound : float
            A proven bound on its relative error (rounding included), vouched terms only.

        Examples
        --------
        >>> Occupation(np.array([1.0, 2.0]), np.array([1e-12, 2e-12])).total(np.array([1.0, 1.0]))[0]
        3.0
        """
        terms = self.values * weights
        value = math.fsum(terms)
        if value == 0.0:
            return 0.0, 0.0
        vouched = np.isfinite(self.bounds) & (terms > 0)
        return value, math.fsum(terms[vouched] * self.bounds[vouched]) / value + 4 * _UNIT


def occupation(cut: Region, start: np.ndarray, tolerance: float) -> Occupation:
    """The occupation measure of ``cut`` from the measure ``start`` (>= 0, non-zero), as the
    stationary law of the auxiliary chain with a restart (module docstring).

    Parameters
    ----------
    cut : Region
        The region (its states reach its exit, and every one is reachable from ``start``'s support
        within the region).
    start : numpy.ndarray
        A non-negative, non-zero measure on the region's states.
    tolerance : float
        The relative accuracy the sums of the occupation measure must reach.

    Returns
    -------
    Occupation

    Raises
    ------
    ConvergenceError
        The stationary solve cannot vouch for its probabilities, or the exit state's probability
        lies below the floor (more than 1e290 jumps before the exit).

    Examples
    --------
    A single state left at rate 4 is occupied 1/4 on average:

    >>> q = sp.csr_array(np.array([[-4.0, 4.0], [0, 0]]))
    >>> cut = region(q, np.array([1.0, 0]), np.array([False, True]), np.array([False, False]))
    >>> occupation(cut, cut.start, 1e-10).values.tolist()
    [0.25]
    """
    m = len(cut.states)
    exit_rate = cut.to_target + cut.to_failure
    rate = float(cut.outflow.max())
    mass = math.fsum(start)
    law = start / mass
    graph = cut.inner.tocoo()
    into = np.flatnonzero(law > 0)
    out = np.flatnonzero(exit_rate > 0)
    aux = _generator(m + 1, np.concatenate([graph.row, out, np.full(len(into), m)]),
                     np.concatenate([graph.col, np.full(len(out), m), into]),
                     np.concatenate([graph.data, exit_rate[out], rate * law[into]]))
    solution = stationary_law.solve(aux, "auto", None, tolerance / 2.5)
    pi, bounds = solution.probabilities, solution.error_bounds
    if not pi[m] >= stationary_law.FLOOR:
        raise ConvergenceError(f"the chain makes more than 1e290 jumps on average before it leaves the region of "
                               f"{m} states: its occupation measure is beyond the double range")
    values = pi[:m] / (rate * pi[m]) * mass
    exit_bound = float(bounds[m])
    relative = np.where(pi[:m] >= stationary_law.FLOOR, (bounds[:m] + exit_bound) / (1 - exit_bound) + 2 * _UNIT, np.inf)
    return Occupation(values, relative)


def reached(cut: Region, tolerance: float) -> tuple[float, float]:
    """The probabilities of absorption in the target and elsewhere from ``p(0)``.

    Parameters
    ----------
    cut : Region
        The region of the target.
    tolerance : float
        Their relative accuracy.

    Returns
    -------
    success : float
        ``P(reach the target)``.
    failure : float
        ``P(never reach it)`` (computed as a sum, not as ``1 - success``).

    Raises
    ------
    ConvergenceError
        The accuracy cannot be vouched for.

    Examples
    --------
    From 1, a step to 0 (rate 1) or to 2 (rate 3), both absorbing: the target 2 is reached w.p. 3/4.

    >>> q = sp.csr_array(np.array([[0, 0, 0], [1.0, -4.0, 3.0], [0, 0, 0]]))
    >>> cut = region(q, np.array([0, 1.0, 0]), np.array([False, False, True]), np.zeros(3, bool))
    >>> reached(cut, 1e-10)
    (0.75, 0.25)
    """
    if not len(cut.states) or not cut.start.any():
        return cut.success, cut.failure
    if not cut.to_failure.any():         # every state of the region reaches the target surely
        return cut.success + math.fsum(cut.start), cut.failure
    occupied = occupation(cut, cut.start, tolerance)
    into, error_in = occupied.total(cut.to_target)
    out, error_out = occupied.total(cut.to_failure)
    if max(error_in, error_out) > tolerance:
        raise ConvergenceError(f"the probability of reaching the target is vouched to {max(error_in, error_out):.3g} "
                               f"relative, not tolerance={tolerance:g}")
    return cut.success + into, cut.failure + out


def _absorbing(cut: Region) -> tuple[sp.csr_array, np.ndarray]:
    """The chain on the region plus an absorbing state for the target (index ``len(cut.states)``) and,
    when the chain can fail, one for the rest; and ``p(0)`` on it. (One absorbing state leaves one
    zero eigenvalue, so that a small stiff chain's mixing is decided by its spectrum.)"""
    m = len(cut.states)
    graph = cut.inner.tocoo()
    hit, miss = np.flatnonzero(cut.to_target > 0), np.flatnonzero(cut.to_failure > 0)
    fails = len(miss) > 0 or cut.failure > 0
    generator = _generator(m + 1 + fails, np.concatenate([graph.row, hit, miss]),
                           np.concatenate([graph.col, np.full(len(hit), m), np.full(len(miss), m + 1)]),
                           np.concatenate([graph.data, cut.to_target[hit], cut.to_failure[miss]]))
    return generator, np.concatenate([cut.start, [cut.success, cut.failure][:1 + fails]])


def reach_probability(cut: Region, times: np.ndarray, tolerance: float) -> np.ndarray:
    """``P(reach the target by t without entering avoid first)`` for the 1-D ``times`` (``inf`` allowed).

    Parameters
    ----------
    cut : Region
        The region of the target.
    times : numpy.ndarray
        Times ``>= 0``, 1-D.
    tolerance : float
        The relative accuracy at ``t = inf`` (and of the limit used by steady-state detection).

    Returns
    -------
    numpy.ndarray
        One probability per time.

    Raises
    ------
    ConvergenceError
        Uniformization would need more work than allowed (a stiff chain), or the accuracy at
        ``t = inf`` cannot be vouched for.

    Examples
    --------
    An exponential time of rate 2: ``P(T <= 1) = 1 - exp(-2)``.

    >>> q = sp.csr_array(np.array([[-2.0, 2.0], [0, 0]]))
    >>> cut = region(q, np.array([1.0, 0]), np.array([False, True]), np.zeros(2, bool))
    >>> reach_probability(cut, np.array([1.0, np.inf]), 1e-10).round(12).tolist()
    [0.864664716763, 1.0]
    """
    out = np.empty(len(times))
    never = np.isinf(times)
    limit: list[tuple[float, float]] = []

    def ever() -> tuple[float, float]:
        if not limit:
            limit.append(reached(cut, tolerance))
        return limit[0]

    if never.any():
        out[never] = ever()[0]
    if (~never).any():
        if not len(cut.states) or not cut.start.any():
            out[~never] = cut.success
        else:
            generator, initial = _absorbing(cut)
            law = uniformized(generator, times[~never], initial,
                              lambda: np.concatenate([np.zeros(len(cut.states)), ever()])[:len(initial)])
            out[~never] = law[:, len(cut.states)]
    return np.minimum(out, 1.0)


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


def _dd_add(hi: np.ndarray, lo: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(hi + lo) + d`` as a renormalized double-double."""
    s = hi + d
    v = s - hi
    e = (hi - (s - v)) + (d - v) + lo
    top = s + e
    return top, e - (top - s)


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

        >>> q = sp.csr_array(np.array([[-1.0, 1.0], [0, 0]]))
        >>> cut = region(q, np.array([1.0, 0]), np.array([False, True]), np.zeros(2, bool))
        >>> Moments(cut, occupation(cut, cut.start, 1e-10)).moment(2, 1e-10)
        2.0
        """
        hi, lo, exponent, bound = self.level(k - 1)
        value, weighted = self._occupied.total(hi)
        total = value + math.fsum(self._occupied.values * lo)
        if bound + weighted + 2 * _UNIT <= accuracy:
            return math.ldexp(k * total, exponent)
        column = bound
        tolerance = max(accuracy / (2.5 * k), stationary_law.MINIMUM_TOLERANCE)
        while len(self._measures) < k:
            u, shift, error = self._measures[-1]
            occupied = occupation(self._cut, u, tolerance)
            more = _shift(occupied.values)
            self._measures.append((np.ldexp(occupied.values, -more), shift + more,
                                   error + _largest(occupied.bounds) + 4 * _UNIT))
        u, shift, error = self._measures[k - 1]
        if error + 2 * _UNIT > accuracy:
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

        >>> q = sp.csr_array(np.array([[-2.0, 2.0], [0, 0]]))
        >>> cut = region(q, np.array([1.0, 0]), np.array([False, True]), np.zeros(2, bool))
        >>> Moments(cut, occupation(cut, cut.start, 1e-10)).level(1)[:3]
        (array([0.5]), array([0.]), 0)
        """
        while len(self._levels) <= k:
            j = len(self._levels)
            hi, lo, exponent, bound = self._levels[-1]
            b_hi, b_lo = _dd_add(j * hi, np.zeros_like(hi), j * lo)
            x_hi, x_lo, theta = self._solve(b_hi, b_lo)
            shift = _shift(x_hi)
            self._levels.append((np.ldexp(x_hi, -shift), np.ldexp(x_lo, -shift), exponent + shift,
                                 theta + bound * (1 + theta) + 4 * _UNIT**2))
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
        slack = 2 * ((2 * count + 4) * _UNIT) ** 2
        floor = b_hi * (1 - 4 * _UNIT)
        history: list[float] = []
        theta = math.inf
        for _ in range(_ROUNDS):
            rho, size = _residual(indptr, indices, data, b_hi, b_lo, x_hi, x_lo)
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = (np.abs(rho) * (1 + 4 * _UNIT) + slack * size + 1e-300) / floor
            theta = float(np.max(ratio)) if np.all(floor > 0) and np.all(np.isfinite(ratio)) else math.inf
            if theta <= _THETA or (len(history) >= 2 and theta > 0.5 * min(history[-2:])):
                break
            history.append(theta)
            step = factor.solve(rho)
            if not np.all(np.isfinite(step)):
                break
            x_hi, x_lo = _dd_add(x_hi, x_lo, step)
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
            generator, initial = _absorbing(self._cut)
            law = uniformized(generator, flat[finite], initial, lambda: np.eye(1, len(initial), m).ravel())
            cdf[finite], survival[finite] = np.minimum(law[:, m], 1.0), law[:, :m].sum(axis=1)
        elif finite.any():
            cdf[finite], survival[finite] = self.at_target, 1.0 - self.at_target
        if times.ndim == 0:
            return float(cdf[0]), float(survival[0])
        return cdf, survival


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
    cut = _cut(generator, initial, target, np.zeros_like(target), value, states, tolerance)
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
    cut = _cut(generator, initial, target, np.zeros_like(target), value, states, tolerance)
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


def _cut(generator: sp.csr_array, initial: np.ndarray, target: np.ndarray, avoid: np.ndarray, value: Any,
         states: Any, tolerance: float) -> Region:
    """The region of a non-empty target; refused (naming ``target``) when the chain may never reach it."""
    if not target.any():
        raise InvalidParameterError("target", value, "must contain at least one state (it selects none)")
    cut = region(generator, initial, target, avoid)
    if len(cut.lost) or cut.failure > 0:
        raise _unreached(cut, value, states, tolerance)
    return cut


def _unreached(cut: Region, value: Any, states: Any, tolerance: float) -> InvalidParameterError:
    """The refusal of a target the chain may never reach: with the probability that it does."""
    try:
        success, failure = reached(cut, tolerance)
        odds = f"with probability {success:.10g} only (it is never reached with probability {failure:.3g})"
    except ConvergenceError:
        odds = "with probability less than 1"
    if len(cut.lost):
        example = f"; e.g. state {plain(states[int(cut.lost[0])])!r} can be visited and cannot reach it"
    else:
        example = "; the initial law gives mass to states that cannot reach it"
    return InvalidParameterError("target", value, f"is reached from initial {odds}{example}: the passage time is "
                                                  "infinite with positive probability, so its mean is infinite "
                                                  "(reach_probability(target, inf, initial) gives the probability)")


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
