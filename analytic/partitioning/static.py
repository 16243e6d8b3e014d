"""The capacity region Λ (Definition 1) and the static partitioning problem (Definition 2) as linear programs.

Ghaderi, Shakkottai & Srikant, Section 3. Λ is the set of template-count vectors a time-sharing π
over the configurations supports, ``z_j = Σ_C π(C) |C^(j)|``; the static problem asks for the
cheapest such time-sharing that serves the loads:

    ``G(x*) = min_π Σ_C π(C) b(C)   s.t.  Σ_C π(C) |C^(j)| >= ρ_j  (7),  π >= 0, Σ_C π(C) = 1  (8)-(9)``

with ``b(C) = Σ_j Σ_(A ∈ C^(j)) b_A`` and ``x_A = Σ_C π(C) 1{A ∈ C}``. Only the cheapest class of each
(type, load vector) matters (:func:`~.configurations.class_table` with ``cheapest=True``), and a
configuration matters only through its count vector ``n = (|C^(j)|)_j`` and cost, so the LP solved
by HiGHS runs over the distinct count vectors, each priced at the cheapest packing
``c(n) = min {b(C) : |C^(j)| = n_j}``. The cvxpy cross-check solves the LP over every reduced state.

Reading. Definition 2 as printed constrains only the totals ``(Σ_A x_A)_j`` to lie in Λ (9), not
the template fractions ``x`` themselves; read literally it decouples cost from packing and its value
is ``Σ_j ρ_j min_A b_A`` whenever ρ ∈ Λ. The proof of Theorem 2 (Step 3, "W*(k) = max_x ...
equivalently") and Definition 1's "x_A = Σ_C π(C) 1(A ∈ C^(j))" use the time-sharing reading,
which is the one solved here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from analytic.errors import ConvergenceError, InvalidParameterError, UnstableSystemError
from analytic.partitioning.configurations import Configurations, state_space
from analytic.partitioning.model import Cluster, GraphJob

__all__ = ["Packings", "StaticPartition", "capacity_margin", "cheapest_packings", "static_partitioning"]

#: Relative slack within which ρ on the boundary of Λ counts as inside it.
_BOUNDARY = 1e-9


@dataclass(frozen=True)
class Packings:
    """The distinct template-count vectors of a cluster, each with its cheapest configuration.

    Attributes
    ----------
    templates : numpy.ndarray, shape (P, J)
        Count vectors ``n`` (the empty one first).
    cost : numpy.ndarray, shape (P,)
        ``c(n)``, the least partition cost of a configuration with these counts.
    state : numpy.ndarray, shape (P,)
        Index of a cheapest configuration in ``configurations``.
    configurations : Configurations
        The reduced states (cheapest classes only).

    Examples
    --------
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> from analytic.partitioning import cheapest_packings
    >>> cheapest_packings(FIGURE1_CLUSTER, FIGURE1_JOB).cost.tolist()
    [0.0, 1.0, 2.0]
    """

    templates: np.ndarray
    cost: np.ndarray
    state: np.ndarray
    configurations: Configurations


def cheapest_packings(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob]) -> Packings:
    """Every feasible template-count vector with the cheapest configuration realising it.

    Parameters
    ----------
    cluster : Cluster
        Machines and their slots.
    jobs : GraphJob or sequence of GraphJob
        The job types.

    Returns
    -------
    Packings


    Examples
    --------
    Figure 1: at most two five-node graphs fit; two of them cost 2 in all (each splits 4 + 1).

    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> packings = cheapest_packings(FIGURE1_CLUSTER, FIGURE1_JOB)
    >>> packings.templates.ravel().tolist(), packings.cost.tolist()
    ([0, 1, 2], [0.0, 1.0, 2.0])
    """
    space = state_space(cluster, jobs, cheapest=True)
    order = np.lexsort((space.cost, *space.templates.T[::-1]))
    vectors = space.templates[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = (vectors[1:] != vectors[:-1]).any(axis=1)
    chosen = order[first]
    return Packings(templates=space.templates[chosen], cost=space.cost[chosen], state=chosen, configurations=space)


def capacity_margin(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob]) -> float:
    """δ* of Definition 1: the largest δ with ``ρ(1 + δ) ∈ Λ`` (negative when ρ lies outside Λ).

    Solved by HiGHS: ``max t`` subject to ``Σ_n π_n n_j >= t ρ_j``, ``Σ_n π_n = 1``, ``π >= 0``; δ* = t - 1.
    The loads are scaled by a power of two to lie near 1 first (exact), so any load works: ρ = 1e-300
    gives δ* = 1/ρ-ish numbers (inf beyond the float range), ρ = 1e300 gives δ* = -1 + 1e-300-ish.

    Parameters
    ----------
    cluster : Cluster
        Machines and their slots.
    jobs : GraphJob or sequence of GraphJob
        The job types.

    Returns
    -------
    float


    Examples
    --------
    Figure 1 (at most two graphs at a time) at ρ = 1: δ* = 1.

    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> capacity_margin(FIGURE1_CLUSTER, FIGURE1_JOB)
    1.0
    """
    return _capacity_factor(cheapest_packings(cluster, jobs)) - 1.0


def _capacity_factor(packings: Packings) -> float:
    """1 + δ*, the largest t with t ρ ∈ Λ (inf when it exceeds the float range, for loads near 1e-308)."""
    exponent, loads = _scaled_loads(packings.configurations)
    count = len(packings.cost)
    # variables (π_1..π_P, t'), t' = t·2**exponent: minimise -t'
    objective = np.zeros(count + 1)
    objective[-1] = -1.0
    a_ub = np.column_stack([-packings.templates.T, loads])
    result = linprog(objective, A_ub=a_ub, b_ub=np.zeros(len(loads)), A_eq=np.append(np.ones(count), 0.0)[None, :],
                     b_eq=[1.0], bounds=[(0, None)] * (count + 1), method="highs")
    if result.status != 0:
        raise ConvergenceError(f"HiGHS did not solve the capacity LP: {result.message}")
    with np.errstate(over="ignore"):
        return float(np.ldexp(-result.fun, -exponent))


def _scaled_loads(space: Configurations) -> tuple[int, np.ndarray]:
    """(e, ρ / 2**e) with the largest scaled load in [½, 1): exact, and the LPs see numbers near 1 at any load.

    Unscaled, ρ = 1e-300 made t = 1/ρ in the capacity LP 1e300, which HiGHS (whose infinity is 1e20)
    reports as unbounded, and the static LP's constraints fell below its feasibility tolerance.
    """
    loads = np.array([job.offered_load for job in space.jobs])
    exponent = int(np.frexp(loads.max())[1])
    return exponent, np.ldexp(loads, -exponent)


@dataclass(frozen=True, repr=False)
class StaticPartition:
    """The optimum of the static partitioning problem (Definition 2).

    Attributes
    ----------
    cost : float
        ``G(x*)``, the least mean partition cost that serves the loads.
    delta_star : float
        Largest δ with ``ρ(1 + δ) ∈ Λ`` (:func:`capacity_margin`).
    interior : bool
        Whether ρ lies strictly inside Λ (δ* > 0), as Theorems 1 and 2 assume.
    time_sharing : tuple of (tuple of int, float, float)
        The optimal time-sharing: ``(n, π_n, c(n))`` for each count vector used with positive
        probability (templates of each type, its time fraction, its cheapest cost).
    configurations : tuple of list
        A cheapest configuration for each entry of ``time_sharing`` (as :meth:`Configurations.describe`).
    throughput : numpy.ndarray
        ``Σ_n π_n n_j``, templates of each type held on average (>= ρ_j).
    solver : str
        ``"highs"`` or ``"cvxpy"``.

    Examples
    --------
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> from analytic.partitioning import static_partitioning
    >>> result = static_partitioning(FIGURE1_CLUSTER, FIGURE1_JOB)
    >>> result.cost, result.interior
    (1.0, True)
    """

    cost: float
    delta_star: float
    interior: bool
    time_sharing: tuple[tuple[tuple[int, ...], float, float], ...]
    configurations: tuple[list, ...]
    throughput: np.ndarray
    solver: str

    def __repr__(self) -> str:
        sharing = [(n, float(f"{p:.10g}"), c) for n, p, c in self.time_sharing]
        return (f"StaticPartition(cost={self.cost:.12g}, delta_star={self.delta_star:.12g}, interior={self.interior}, "
                f"time_sharing={sharing}, solver={self.solver!r})")


def static_partitioning(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob], solver: str = "highs") -> StaticPartition:
    """Solve the static partitioning problem (Definition 2, eqs. 6–9) as an LP over configurations.

    Parameters
    ----------
    cluster : Cluster
    jobs : GraphJob or sequence of GraphJob
        The loads ``ρ_j = λ_j/μ_j`` to serve.
    solver : {"highs", "cvxpy"}
        ``"highs"``: ``scipy.optimize.linprog`` over the distinct count vectors priced at their
        cheapest packing (a vertex, exact to round-off); ``"cvxpy"``: cvxpy with Clarabel over every
        reduced state (an independent formulation, agreeing to about 1e-9).

    Returns
    -------
    StaticPartition
        ``G(x*)``, δ*, whether ρ is interior to Λ, and an optimal time-sharing. Both LPs are solved
        with the loads scaled by a power of two to lie near 1 (exact) and the empty packing's
        share eliminated, so any load works: at ρ = 1e-300, ``G(x*)`` is found to the solver's
        relative accuracy instead of vanishing below its absolute tolerances.

    Raises
    ------
    UnstableSystemError
        ρ lies outside Λ: no time-sharing serves the loads (the message gives the factor by which
        they exceed the capacity region).
    InvalidParameterError
        Unknown solver.
    ConvergenceError
        The solver did not report an optimum.

    Examples
    --------
    Triangles on Figure 1's cluster at ρ = 3.5: three fit whole (one per machine, cost 0), a fourth
    must be split across the three machines (cost 3); serving 3.5 on average takes four half the
    time, so G(x*) = 1.5, although every type has a template of cost 0.

    >>> from analytic.partitioning.model import GraphJob
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER
    >>> triangle = GraphJob(3, [(0, 1), (1, 2), (0, 2)], arrival_rate=3.5, service_rate=1.0)
    >>> static_partitioning(FIGURE1_CLUSTER, triangle)
    StaticPartition(cost=1.5, delta_star=0.142857142857, interior=True, time_sharing=[((3,), 0.5, 0.0), ((4,), 0.5, 3.0)],
        solver='highs')
    """
    if not isinstance(solver, str) or solver not in ("highs", "cvxpy"):
        raise InvalidParameterError("solver", solver, 'must be "highs" or "cvxpy"')
    packings = cheapest_packings(cluster, jobs)
    space = packings.configurations
    loads = np.array([job.offered_load for job in space.jobs])
    capacity = _capacity_factor(packings)
    delta = capacity - 1.0
    if delta < -_BOUNDARY:
        factor = 1.0 / capacity
        raise UnstableSystemError("load factor of ρ relative to the capacity region Λ (Definition 1)", factor, 1.0,
                                  f"ρ = {[float(f'{x:.10g}') for x in loads]} lies outside Λ; ρ/{factor:.6g} is on its boundary")
    if solver == "highs":
        vectors, costs, states = packings.templates, packings.cost, packings.state
    else:
        vectors, costs, states = space.templates, space.cost, np.arange(len(space))
    weights, value, used = _time_sharing(costs, vectors, space, solver)
    return StaticPartition(
        cost=value, delta_star=delta, interior=bool(delta > _BOUNDARY),
        time_sharing=tuple((tuple(int(v) for v in vectors[i]), float(weights[i]), float(costs[i])) for i in used),
        configurations=tuple(space.describe(int(states[i])) for i in used),
        throughput=weights @ vectors, solver=solver)


def _time_sharing(costs: np.ndarray, vectors: np.ndarray, space: Configurations,
                  solver: str) -> tuple[np.ndarray, float, np.ndarray]:
    """The optimal π of (6)–(9), G(x*) and the indices used, from the LP in the loads scaled near 1.

    With ρ = 2**e ρ' and the empty packing's share eliminated, π_n = 2**e w_n for the others: min c·w
    s.t. Σ_n w_n n >= ρ', Σ_n w_n <= 2**-e (π_empty >= 0), w >= 0; then G = c_empty + 2**e (c - c_empty)·w.
    An equivalent LP whose numbers stay near 1 at any load (at ρ = 1e-300 the unscaled constraints
    fell below the solver's feasibility tolerance, and G came out 0 instead of 1e-300). A packing
    counts as used when its scaled share w exceeds 1e-9 (the empty one when π_empty does).
    """
    exponent, loads = _scaled_loads(space)
    empty = ~vectors.any(axis=1)
    first = int(np.flatnonzero(empty)[np.argmin(costs[empty])])   # the empty packing, always feasible
    base, others = float(costs[first]), np.flatnonzero(~empty)
    with np.errstate(over="ignore"):
        share = float(np.ldexp(1.0, -exponent))   # inf for loads below 2**-1023: then no bound
    if solver == "highs":
        result = linprog(costs[others] - base, A_ub=np.vstack([-vectors[others].T, np.ones((1, others.size))]),
                         b_ub=np.append(-loads, min(share, 1e300)), bounds=(0, None), method="highs")
        if result.status != 0:
            raise ConvergenceError(f"HiGHS did not solve the static partitioning LP: {result.message}")
        scaled, value = result.x, float(result.fun)
    else:
        scaled, value = _solve_cvxpy(costs[others] - base, vectors[others], loads, share)
    weights = np.zeros(len(costs))
    weights[others] = np.ldexp(scaled, exponent)
    weights[first] = max(1.0 - weights[others].sum(), 0.0)
    used = np.sort(np.append(others[scaled > 1e-9], [first] if weights[first] > 1e-9 else []).astype(int))
    return weights, base + float(np.ldexp(value, exponent)), used


def _solve_cvxpy(costs: np.ndarray, vectors: np.ndarray, loads: np.ndarray, share: float) -> tuple[np.ndarray, float]:
    import cvxpy as cp

    weights = cp.Variable(len(costs), nonneg=True)
    constraints = [vectors.T @ weights >= loads] + ([cp.sum(weights) <= share] if share <= 1e12 else [])
    problem = cp.Problem(cp.Minimize(costs @ weights), constraints)
    problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    if problem.status != cp.OPTIMAL:
        raise ConvergenceError(f"cvxpy (Clarabel) did not solve the static partitioning LP: status {problem.status}")
    return np.clip(weights.value, 0.0, None), float(problem.value)
