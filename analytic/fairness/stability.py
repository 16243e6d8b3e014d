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

import math
from dataclasses import dataclass
from fractions import Fraction
from numbers import Integral
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog
from scipy.sparse.csgraph import breadth_first_order

from analytic.errors import ConvergenceError, UnstableSystemError
from analytic.fairness.graph import CompatibilityGraph, check_rates
from analytic.validation import instances, real

__all__ = ["Stability", "is_stable", "require_stable", "stability", "stability_violation", "unstable_error"]

#: Shares of a server's capacity below this count as zero when the bottleneck set is read off the
#: optimal flow (HiGHS' feasibility tolerance is 1e-7, absolute, on rows whose right-hand side is 1).
_FLOW_TOLERANCE = 1e-7
#: log 1e12: an edge whose server would give its class under 1e-12 of the capacity it needs is left out
#: of the LP (it changes μ(A) by less than that; HiGHS refuses coefficients from 1e15 on).
_LOG_LARGEST_SHARE = float(np.log(1e12))


@dataclass(frozen=True)
class Stability:
    """The load of a multi-server queue and its bottleneck set of classes (Theorem 1).

    Attributes
    ----------
    stable : bool
        ``load < 1``: Σ_{i∈A} λ_i < μ(A) for every non-empty A (eq. 5).
    load : float
        ρ* = max over non-empty A of λ(A)/μ(A); the rates can be multiplied by any factor below
        1/ρ* and stay stable. λ(A*)/μ(A*) from exact sums, rounded once.
    bottleneck : tuple of int
        A*, the largest set of classes attaining ρ* (the union of all maximizers). When the queue
        is unstable it violates (5): λ(A*) >= μ(A*).
    arrival_rate : float
        λ(A*), the total arrival rate of the bottleneck classes (inf beyond the doubles).
    service_rate : float
        μ(A*), the service rate of the servers they can use (inf beyond the doubles).

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
    The reported load is λ(A*)/μ(A*) from exact sums of the rates and capacities, rounded once
    (finite where the sums exceed the doubles), so it is exact once A* is the right set. The set
    is read off a flow that HiGHS solves to about 1e-7: two sets whose loads differ by less than
    that relative amount may be confused, and only then can the load be off by as much. The LP
    is written relative to each server's capacity and each class's rate (its coefficients are
    formed from logarithms), so no scale matters and neither does the span between them: rates
    and capacities of 1e±300, a server of 1.7e308 beside unit ones, a class of rate 1e-30 on a
    server of 1e-30 beside a class of rate 1. Checked against brute force over all sets in exact
    rationals (boundaries λ(A) = μ(A) included, and at those scales) in
    ``tests/fairness/test_stability.py``.

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
    bottleneck = _bottleneck(graph, rates)
    chosen = list(bottleneck)
    arrival = sum(map(Fraction, rates[chosen].tolist()))     # exact: sums beyond 1.8e308 keep a finite load
    capacity = sum(map(Fraction, graph.capacities[graph.incidence[chosen].any(axis=0)].tolist()))
    load = _rounded(arrival / capacity)
    return Stability(load < 1, load, bottleneck, _rounded(arrival), _rounded(capacity))


def _rounded(value: Fraction) -> float:
    """``value`` as the nearest double, ``inf`` beyond them."""
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _bottleneck(graph: CompatibilityGraph, rates: np.ndarray) -> tuple[int, ...]:
    """A*, the largest set of classes attaining max_A λ(A)/μ(A), from one LP in units that make every row near 1.

    The LP routes the rates t λ_i / L from the classes to their servers, L = max_i λ_i/μ({i}) the largest
    load of one class: with x_is the flow of class i through server s in units of λ_i / L, maximize t
    subject to Σ_s x_is = t for each class i and Σ_i a_is x_is <= 1 for each server s, where
    a_is = λ_i / (L μ_s) is the share of server s that one unit of x_is takes. Then t* = L/ρ* lies in
    [1/N, 1], each server's row is relative to its own capacity and each class's to its own rate, so that
    HiGHS' absolute tolerances are relative ones and no scale of rates or capacities, and no span between
    them, is lost (the coefficients are formed from logarithms: λ_i / μ_s may exceed the doubles). An
    edge whose share exceeds 1e12 (its server gives the class under 1e-12 of what it needs) is left out.

    A class reaches server s through any of its edges; a saturated server passes on to every class that
    takes a share of it (that flow can be rerouted). Searching backwards from the servers with spare
    capacity marks every class that can still grow; the others form the largest maximizer of λ(A)/μ(A)
    (every maximizer saturates its servers and receives no flow from outside).
    """
    n, s = graph.n_classes, graph.n_servers
    classes, servers = np.nonzero(graph.incidence)
    with np.errstate(divide="ignore"):
        log_rate, log_capacity = np.log(rates), np.log(graph.capacities)
    largest = np.full(n, -np.inf)      # log μ({i}) = log Σ_{s∈S_i} μ_s, summed relative to its largest term
    np.maximum.at(largest, classes, log_capacity[servers])
    log_class = largest + np.log(np.bincount(classes, weights=np.exp(log_capacity[servers] - largest[classes]), minlength=n))
    class_load = np.where(rates > 0, log_rate - log_class, -np.inf)
    usable = (rates[classes] > 0) & (graph.capacities[servers] > 0)
    classes, servers = classes[usable], servers[usable]
    log_share = log_rate[classes] - log_capacity[servers] - class_load.max()
    keep = log_share <= _LOG_LARGEST_SHARE
    classes, servers, share = classes[keep], servers[keep], np.exp(log_share[keep])
    edges, columns = classes.size, np.arange(classes.size)
    # Variables: the edge flows x, then t. Rows: Σ_s x_is − t = 0; Σ_i a_is x_is <= 1.
    conservation = sp.csr_array((np.concatenate([np.ones(edges), -np.ones(n)]),
                                 (np.concatenate([classes, np.arange(n)]), np.concatenate([columns, np.full(n, edges)]))),
                                shape=(n, edges + 1))
    capacity = sp.csr_array((share, (servers, columns)), shape=(s, edges + 1))
    cost = np.zeros(edges + 1)
    cost[-1] = -1.0
    positive = rates > 0
    result = linprog(cost, A_ub=capacity, b_ub=np.ones(s), A_eq=conservation[positive], b_eq=np.zeros(int(positive.sum())),
                     bounds=(0, None), method="highs-ipm")
    if result.status != 0:
        raise ConvergenceError(f"HiGHS could not solve the stability LP of Theorem 1: {result.message}")
    taken = share * np.maximum(result.x[:-1], 0.0)
    spare = 1.0 - np.bincount(servers, weights=taken, minlength=s) > _FLOW_TOLERANCE
    carries = taken > _FLOW_TOLERANCE
    # Reversed residual graph on nodes 0..n-1 (classes), n..n+s-1 (servers), n+s (root -> spare servers).
    rows = np.concatenate([n + servers, classes[carries], np.full(int(spare.sum()), n + s)])
    cols = np.concatenate([classes, n + servers[carries], n + np.flatnonzero(spare)])
    graph_matrix = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(n + s + 1, n + s + 1))
    reached = breadth_first_order(graph_matrix, n + s, directed=True, return_predecessors=False)
    can_grow = np.zeros(n + s + 1, dtype=bool)
    can_grow[reached] = True
    bottleneck = tuple(int(i) for i in np.flatnonzero(~can_grow[:n] & positive))
    return bottleneck or (int(np.argmax(class_load)),)   # a flow too inaccurate to show a cut: the busiest class


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
