"""The arguments of the chain's measures and the chain cut at a target, behind :mod:`analytic.ctmc.measures`.

The checks of times, tolerances and sets of states (``target``, ``avoid``); the :class:`Region` a
target cuts out of the chain, its occupation measure (the stationary law of an auxiliary chain,
Grassmann, Taksar & Heyman 1985) and the probabilities of reaching the target, within ``t`` or ever.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order

from analytic.ctmc import stationary as stationary_law
from analytic.ctmc.spaces import LatticeSpace, plain
from analytic.ctmc.transient import transient as uniformized
from analytic.errors import ConvergenceError, InvalidParameterError, describe
from analytic.validation import numeric_array, real_array, user_code

#: Smallest tolerance a caller may ask for: the auxiliary stationary law is solved at
#: ``tolerance / 2.5``, which must be at least the stationary solver's ``2**-50``.
MINIMUM_TOLERANCE = 2.0**-48

#: Relative rounding of one double operation.
UNIT = 2.0**-53


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
        return value, math.fsum(terms[vouched] * self.bounds[vouched]) / value + 4 * UNIT


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
    relative = np.where(pi[:m] >= stationary_law.FLOOR, (bounds[:m] + exit_bound) / (1 - exit_bound) + 2 * UNIT, np.inf)
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


def absorbing(cut: Region) -> tuple[sp.csr_array, np.ndarray]:
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
            generator, initial = absorbing(cut)
            law = uniformized(generator, times[~never], initial,
                              lambda: np.concatenate([np.zeros(len(cut.states)), ever()])[:len(initial)])
            out[~never] = law[:, len(cut.states)]
    return np.minimum(out, 1.0)


def reached_region(generator: sp.csr_array, initial: np.ndarray, target: np.ndarray, avoid: np.ndarray, value: Any,
                   states: Any, tolerance: float) -> Region:
    """The region of a non-empty target; refused (naming ``target``) when the chain may never reach it."""
    if not target.any():
        raise InvalidParameterError("target", value, "must contain at least one state (it selects none)")
    cut = region(generator, initial, target, avoid)
    if len(cut.lost) or cut.failure > 0:
        raise unreached(cut, value, states, tolerance)
    return cut


def unreached(cut: Region, value: Any, states: Any, tolerance: float) -> InvalidParameterError:
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
