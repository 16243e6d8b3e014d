"""Stability of the multi-server queue (Theorem 1), decided in polynomial time.

Bonald & Comte, *Balanced Fair Resource Sharing in Computer Clusters*, Theorem 1: the queue is
stable if and only if Σ_{i∈A} λ_i < μ(A) for every non-empty set A of classes (eq. 5). The 2^N
sets are never enumerated. The load of the system, ρ* = max_A λ(A)/μ(A), is the inverse of the
largest t such that the rates tλ can be routed from the classes to their servers without exceeding
any capacity (Gale's feasibility theorem for bipartite flows): one linear program with one
variable per edge of the graph, solved by HiGHS. The sets attaining ρ* are exactly the sets of
classes whose flow cannot be moved to a server with spare capacity; the largest of them is read off
the optimal flow by one breadth-first search on its residual graph (a minimum cut), and its load
is then recomputed from the rates themselves, so a set that violates (5) is reported with exact
sums.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog
from scipy.sparse.csgraph import breadth_first_order

from analytic.errors import ConvergenceError, UnstableSystemError
from analytic.fairness.graph import CompatibilityGraph, check_rates, service_rate
from analytic.validation import instances, real

__all__ = ["Stability", "is_stable", "require_stable", "stability", "stability_violation", "unstable_error"]

#: Flows and spare capacities below this fraction of the largest capacity count as zero when the
#: bottleneck set is read off the optimal flow (HiGHS' feasibility tolerance is 1e-7 absolute).
_FLOW_TOLERANCE = 1e-7


@dataclass(frozen=True)
class Stability:
    """The load of a multi-server queue and its bottleneck set of classes (Theorem 1).

    Attributes
    ----------
    stable : bool
        ``load < 1``: Σ_{i∈A} λ_i < μ(A) for every non-empty A (eq. 5).
    load : float
        ρ* = max over non-empty A of λ(A)/μ(A); the rates can be multiplied by any factor below
        1/ρ* and stay stable. Computed as λ(A*)/μ(A*) from the rates.
    bottleneck : tuple of int
        A*, the largest set of classes attaining ρ* (the union of all maximizers). When the queue
        is unstable it violates (5): λ(A*) >= μ(A*).
    arrival_rate : float
        λ(A*), the total arrival rate of the bottleneck classes.
    service_rate : float
        μ(A*), the service rate of the servers they can use.

    Examples
    --------
    >>> from analytic.fairness import CompatibilityGraph, stability
    >>> result = stability(CompatibilityGraph([[0, 2], [1, 2]]), [2.5, 0.2])
    >>> result.load, result.bottleneck
    (1.25, (0,))
    """

    stable: bool
    load: float
    bottleneck: tuple[int, ...]
    arrival_rate: float
    service_rate: float


def stability(graph: CompatibilityGraph, arrival_rates: Any) -> Stability:
    """The load ρ* = max_A λ(A)/μ(A) and the bottleneck set, by one LP and one minimum cut.

    Bonald & Comte, Theorem 1 (eq. 5). Polynomial in the size of the graph: one HiGHS linear
    program with one variable per (class, server) edge, then a breadth-first search.

    Parameters
    ----------
    graph : CompatibilityGraph
    arrival_rates : sequence of float
        λ_i >= 0 for each class (jobs per unit time; all zero: stable, load 0).

    Returns
    -------
    Stability

    Notes
    -----
    The reported load is λ(A*)/μ(A*) computed from the rates, so it is exact to rounding once A*
    is the right set. The set is read off a flow that HiGHS solves to about 1e-7 (relative to the
    largest capacity): two sets whose loads differ by less than that may be confused, and only
    then can the load be off by as much. Rates and capacities far from 1 are each scaled by a
    power of two (exact) before HiGHS sees them, so any scale works (1e±300 included). Checked
    against brute force over all sets (boundaries λ(A) = μ(A) included, and at those scales) in
    ``tests/test_fairness_stability.py``.

    Raises
    ------
    InvalidParameterError
        Rates of the wrong length, negative, NaN or infinite.
    ConvergenceError
        HiGHS fails to solve the LP (not expected: the LP is always feasible and bounded).

    Examples
    --------
    The three-server example of Section 5 at λ = (1.5, 0.5): class 0 alone uses servers 0 and 2.

    >>> graph = CompatibilityGraph([[0, 2], [1, 2]])
    >>> stability(graph, [1.5, 0.5])
    Stability(stable=True, load=0.75, bottleneck=(0,), arrival_rate=1.5, service_rate=2.0)
    >>> stability(graph, [2.5, 0.5]).bottleneck
    (0,)
    """
    rates = check_rates("arrival_rates", arrival_rates, graph, allow_zero=True)
    if not np.any(rates > 0):
        return Stability(True, 0.0, (), 0.0, 0.0)
    classes, servers = np.nonzero(graph.incidence)
    # The bottleneck set does not change when every λ_i, or every μ_s, is multiplied by one constant: rates
    # and capacities far from 1 (beyond 2^±20) are brought near it by a power of two, exact in floating
    # point, so that HiGHS sees a well-scaled LP (t = μ/λ = 1e300 read as unbounded; its infinity is 1e20).
    scaled, capacities = _near_one(rates), _near_one(graph.capacities)
    flow = _max_scaled_flow(capacities, scaled, classes, servers)
    bottleneck = _bottleneck(capacities, scaled, classes, servers, flow)
    arrival = float(rates[list(bottleneck)].sum())
    capacity = service_rate(graph, bottleneck)
    load = arrival / capacity
    return Stability(bool(load < 1), load, bottleneck, arrival, capacity)


def _near_one(values: np.ndarray) -> np.ndarray:
    """``values`` times the power of two that brings their largest near 1, when it lies beyond 2^±20 (exact)."""
    exponent = int(np.frexp(values.max())[1])
    return np.ldexp(values, -exponent) if abs(exponent) > 20 else values


def _max_scaled_flow(capacities: np.ndarray, rates: np.ndarray, classes: np.ndarray, servers: np.ndarray) -> np.ndarray:
    """Edge flows of max t s.t. Σ_s f_is = t λ_i (each class), Σ_i f_is <= μ_s (each server)."""
    edges, n, s = classes.size, rates.size, capacities.size
    columns = np.arange(edges)
    # Variables: the edge flows f, then t. Rows: Σ_s f_is − λ_i t = 0; Σ_i f_is <= μ_s.
    conservation = sp.csr_array((np.concatenate([np.ones(edges), -rates]),
                                 (np.concatenate([classes, np.arange(n)]), np.concatenate([columns, np.full(n, edges)]))),
                                shape=(n, edges + 1))
    capacity = sp.csr_array((np.ones(edges), (servers, columns)), shape=(s, edges + 1))
    cost = np.zeros(edges + 1)
    cost[-1] = -1.0
    result = linprog(cost, A_ub=capacity, b_ub=capacities, A_eq=conservation, b_eq=np.zeros(n),
                     bounds=(0, None), method="highs-ipm")
    if result.status != 0:
        raise ConvergenceError(f"HiGHS could not solve the stability LP of Theorem 1: {result.message}")
    return np.maximum(result.x[:-1], 0.0)


def _bottleneck(capacities: np.ndarray, rates: np.ndarray, classes: np.ndarray, servers: np.ndarray,
                flow: np.ndarray) -> tuple[int, ...]:
    """Classes that cannot reach a server with spare capacity in the residual graph of ``flow``.

    A class reaches server s through any of its edges; a saturated server passes on to every class
    that sends it flow (that flow can be rerouted). Searching backwards from the servers with spare
    capacity marks every class that can still grow; the others form the largest maximizer of
    λ(A)/μ(A) (every maximizer saturates its servers and receives no flow from outside).
    """
    n, s = rates.size, capacities.size
    tolerance = _FLOW_TOLERANCE * float(capacities.max())
    spare = capacities - np.bincount(servers, weights=flow, minlength=s) > tolerance
    carries = flow > tolerance
    # Reversed residual graph on nodes 0..n-1 (classes), n..n+s-1 (servers), n+s (root -> spare servers).
    rows = np.concatenate([n + servers, classes[carries], np.full(int(spare.sum()), n + s)])
    cols = np.concatenate([classes, n + servers[carries], n + np.flatnonzero(spare)])
    graph_matrix = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(n + s + 1, n + s + 1))
    reached = breadth_first_order(graph_matrix, n + s, directed=True, return_predecessors=False)
    can_grow = np.zeros(n + s + 1, dtype=bool)
    can_grow[reached] = True
    bottleneck = tuple(int(i) for i in np.flatnonzero(~can_grow[:n] & (rates > 0)))
    if not bottleneck:  # the flow is too inaccurate to show a cut: fall back on the busiest single class
        bottleneck = (int(np.argmax(rates / np.bincount(classes, weights=capacities[servers], minlength=n))),)
    return bottleneck


def is_stable(graph: CompatibilityGraph, arrival_rates: Any) -> bool:
    """Whether Σ_{i∈A} λ_i < μ(A) for every non-empty A (Bonald & Comte, Theorem 1, eq. 5).

    Parameters
    ----------
    graph : CompatibilityGraph
        Classes, servers and capacities.
    arrival_rates : array_like
        λ_i > 0, one per class.

    Returns
    -------
    bool


    Examples
    --------
    >>> graph = CompatibilityGraph([[0, 2], [1, 2]])
    >>> is_stable(graph, [1.4, 1.4]), is_stable(graph, [1.5, 1.5])
    (True, False)
    """
    return stability(graph, arrival_rates).stable


def stability_violation(graph: CompatibilityGraph, arrival_rates: Any) -> tuple[int, ...] | None:
    """A set A of classes with Σ_{i∈A} λ_i >= μ(A) (violating Theorem 1), or None if stable.

    The set returned is the largest one attaining max_A λ(A)/μ(A) (see :func:`stability`).

    Parameters
    ----------
    graph : CompatibilityGraph
        Classes, servers and capacities.
    arrival_rates : array_like
        λ_i > 0, one per class.

    Returns
    -------
    tuple of int or None


    Examples
    --------
    >>> graph = CompatibilityGraph([[0, 2], [1, 2]])
    >>> stability_violation(graph, [1.0, 1.0]) is None, stability_violation(graph, [0.5, 2.5])
    (True, (1,))
    """
    result = stability(graph, arrival_rates)
    return None if result.stable else result.bottleneck


def require_stable(graph: CompatibilityGraph, arrival_rates: Any, what: str = "the stationary law") -> Stability:
    """:func:`stability`, raising :class:`~analytic.errors.UnstableSystemError` if unstable.

    The message names the violating set A, λ(A) and μ(A), e.g. ``unstable: arrival rate of
    classes (0,) = 2.5 must be < 2 ...``.

    Parameters
    ----------
    graph : CompatibilityGraph
        Classes, servers and capacities.
    arrival_rates : array_like
        λ_i > 0, one per class.
    what : str
        What does not exist when unstable, for the message.

    Returns
    -------
    Stability

    Examples
    --------
    >>> from analytic.fairness import CompatibilityGraph
    >>> require_stable(CompatibilityGraph([[0, 2], [1, 2]]), [1.0, 1.0]).load
    0.6666666666666666
    """
    result = stability(graph, arrival_rates)
    if not result.stable:
        raise unstable_error(result.bottleneck, result.arrival_rate, result.service_rate, what)
    return result


def unstable_error(classes: tuple[int, ...], arrival: float, capacity: float, what: str,
                   quantity: str = "arrival rate") -> UnstableSystemError:
    """The error for a set of classes whose arrival rate λ(A) is not below μ(A) (Theorem 1).

    Parameters
    ----------
    classes : tuple of int
        The set A.
    arrival : float
        λ(A) (or the quantity that must stay below the capacity).
    capacity : float
        μ(A).
    what : str
        What does not exist, for the message.
    quantity : str
        The name of ``arrival`` in the message.

    Returns
    -------
    UnstableSystemError

    Examples
    --------
    >>> print(unstable_error((0,), 2.5, 2.0, "the stationary law"))  # doctest: +ELLIPSIS
    unstable: arrival rate of classes (0,) = 2.5 must be < 2 (exceeds it by 0.5)...
    >>> print(unstable_error((0,), 2.0, 2.0, "the stationary law"))  # doctest: +ELLIPSIS
    unstable: arrival rate of classes (0,) = 2 is not below the limit 2 (it equals it)...
    """
    classes = instances("classes", classes, Integral, " (the class indices of the set A)")
    arrival, capacity = real("arrival", arrival, allow_infinite=True), real("capacity", capacity)
    return UnstableSystemError(f"{quantity} of classes {classes}", arrival, capacity,
                               f"Theorem 1 requires Σ_(i∈A) λ_i < μ(A) for every set A of classes; {what} does not exist")
