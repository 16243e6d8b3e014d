"""The balance function Φ of recursion (4) on a truncated lattice, and the Whittle rates of eq. (7).

Bonald & Comte, *Balanced Fair Resource Sharing in Computer Clusters*, Section 2, eqs. (3)–(4):
the aggregate state x of the multi-server queue (the number of jobs of each class) has the
stationary measure π̄(x) = π̄(0) Φ(x) Π_i λ_i^{x_i}, where Φ(0) = 1 and

    Φ(x) = (1 / μ(A(x))) Σ_{i ∈ A(x)} Φ(x − e_i),    A(x) = {i : x_i > 0}.

Section 3, eq. (7): Φ is the balance function of a Whittle network whose queue i serves at rate
φ_i(x) = Φ(x − e_i)/Φ(x); this is balanced fairness. The recursion runs level by level (all states
with the same number of jobs at once) on q(x) = Φ(x) Π λ_i^{x_i} = π̄(x)/π̄(0) in logarithms, so
that neither Φ (which decays like μ^{-n}) nor q underflows at any depth.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from analytic.errors import InvalidParameterError
from analytic.fairness.graph import CompatibilityGraph, check_rates, service_rate, subset_service_rates
from analytic.fairness.lattice import DEFAULT_MAX_STATES, SimplexLattice, check_points, simplex_lattice

__all__ = ["BalanceChecks", "BalanceFunction", "balance_function", "parent_indices"]


@dataclass(frozen=True)
class BalanceChecks:
    """Residuals of Corollary 1 for the Whittle rates (7) of a balance function (≈ 0 for recursion (4)).

    The balance property (6) needs no check here: rates defined by (7) from any Φ satisfy it. What
    singles out recursion (4), i.e. balanced fairness, is that the rates saturate μ(A(x)) and stay
    in the capacity set.

    Attributes
    ----------
    saturation : float
        max over x of ``|Σ_{i∈A(x)} φ_i(x) − μ(A(x))|`` / μ(A(x)) (Corollary 1, second part).
    capacity_excess : float
        max over x and sets A of (Σ_{i∈A} φ_i(x) − μ(A)) / μ(A), at most 0 up to rounding (Corollary 1,
        first part).

    Examples
    --------
    >>> from analytic.fairness import CompatibilityGraph, balance_function
    >>> checks = balance_function(CompatibilityGraph([[0, 2], [1, 2]]), [1.0, 0.5], 10).check()
    >>> bool(checks.saturation < 1e-13)
    True
    """

    saturation: float
    capacity_excess: float


@dataclass(frozen=True, repr=False, eq=False)
class BalanceFunction:
    """Φ and the stationary measure of the aggregate state on {x : Σ x_i <= max_jobs}.

    Attributes
    ----------
    graph : CompatibilityGraph
    arrival_rates : numpy.ndarray, shape (N,)
        λ_i (jobs per unit time; the capacities are service rates for unit mean sizes).
    lattice : SimplexLattice
        The states, level by level.
    log_measure : numpy.ndarray, shape (M,)
        log q(x) = log(π̄(x)/π̄(0)) = log Φ(x) + Σ_i x_i log λ_i, aligned with ``states``.
    parents : numpy.ndarray of int64, shape (M, N)
        Index of x − e_i, or M where x_i = 0.

    Examples
    --------
    >>> from analytic.fairness import CompatibilityGraph, balance_function
    >>> phi = balance_function(CompatibilityGraph([[0, 2], [1, 2]]), [1.0, 1.0], 6)
    >>> len(phi.states), phi.max_jobs
    (28, 6)
    """

    graph: CompatibilityGraph
    arrival_rates: np.ndarray
    lattice: SimplexLattice
    log_measure: np.ndarray
    parents: np.ndarray

    def __repr__(self) -> str:
        return (f"BalanceFunction(n_classes={self.graph.n_classes}, max_jobs={self.max_jobs}, "
                f"n_states={len(self.lattice)})")

    @property
    def states(self) -> np.ndarray:
        """The lattice points x, shape (M, N)."""
        return self.lattice.states

    @property
    def max_jobs(self) -> int:
        """The truncation: most jobs in a state of the lattice."""
        return self.lattice.max_jobs

    def log_phi(self, x: Any = None) -> np.ndarray:
        """log Φ(x), eq. (4), at the given states (rows of ``x``), or at every state if ``x`` is None.

        Parameters
        ----------
        x : array_like of int, shape (..., N), optional
            States of the lattice.

        Returns
        -------
        numpy.ndarray

        Examples
        --------
        >>> from analytic.fairness import CompatibilityGraph
        >>> phi = balance_function(CompatibilityGraph([[0, 2], [1, 2]]), [1.0, 1.0], 4)
        >>> round(float(np.exp(phi.log_phi([[1, 1]])[0])), 12)   # Φ(1, 1) = (Φ(0, 1) + Φ(1, 0)) / μ = (1/2 + 1/2) / 3
        0.333333333333


        Raises
        ------
        InvalidParameterError
            A state outside the lattice.
        """
        if x is None:
            return self.log_measure - self.states @ np.log(self.arrival_rates)
        points = check_points(self.lattice, x)
        return self.log_measure[self.lattice.index(points)] - points @ np.log(self.arrival_rates)

    def phi(self, x: Any = None) -> np.ndarray:
        """Φ(x), eq. (4), at the given states, or at every state (under- or overflows beyond a few
        hundred jobs: use :meth:`log_phi`).

        Parameters
        ----------
        x : array_like of int, shape (..., N), optional
            States of the lattice.

        Returns
        -------
        numpy.ndarray

        Examples
        --------
        >>> from analytic.fairness import CompatibilityGraph
        >>> balance_function(CompatibilityGraph([[0, 2], [1, 2]]), [1.0, 1.0], 4).phi([[1, 0], [0, 1]]).tolist()
        [0.5, 0.5]
        """
        return np.exp(self.log_phi(x))

    def whittle_rates(self) -> np.ndarray:
        """φ_i(x) = Φ(x − e_i)/Φ(x) (0 if x_i = 0) for every state, shape (M, N): eq. (7).

        Bonald & Comte, eq. (7) and Theorem 2: the mean service rate of class i in aggregate
        state x, i.e. balanced fairness.

        Returns
        -------
        numpy.ndarray, shape (M, N)

        Examples
        --------
        >>> from analytic.fairness import CompatibilityGraph
        >>> phi = balance_function(CompatibilityGraph([[0, 2], [1, 2]]), [1.0, 1.0], 4)
        >>> phi.whittle_rates()[phi.lattice.index(np.array([1, 1]))].round(12).tolist()   # Theorem 2: 3/2 each
        [1.5, 1.5]
        """
        padded = np.append(self.log_measure, -np.inf)
        return self.arrival_rates * np.exp(padded[self.parents] - self.log_measure[:, None])

    def check(self) -> BalanceChecks:
        """Corollary 1 on every state of the lattice: saturation of μ(A(x)) and the capacity set.

        The capacity-set part enumerates the 2^N sets A (N up to about 20).

        Returns
        -------
        BalanceChecks


        Examples
        --------
        >>> from analytic.fairness.graph import CompatibilityGraph
        >>> checks = balance_function(CompatibilityGraph([[0, 2], [1, 2]]), [1.0, 0.5], 30).check()
        >>> checks.saturation < 1e-13, checks.capacity_excess < 1e-13
        (True, True)
        """
        rates = self.whittle_rates()
        states, n = self.states, self.graph.n_classes
        busy = service_rate(self.graph, states > 0)
        occupied = busy > 0
        saturation = float((np.abs(rates.sum(axis=1) - busy)[occupied] / busy[occupied]).max(initial=0.0))
        capacities = subset_service_rates(self.graph)
        masks = np.arange(1, 2 ** n)
        members = ((masks[:, None] >> np.arange(n)) & 1).astype(float)
        excess = max(float(((rates @ members[k:k + 4096].T - capacities[masks[k:k + 4096]]) /
                            capacities[masks[k:k + 4096]]).max()) for k in range(0, masks.size, 4096))
        return BalanceChecks(saturation, excess)

    def probabilities(self) -> np.ndarray:
        """π̄ restricted to the lattice and normalized on it, aligned with ``states``.

        This is the stationary law of the queue whose arrivals are blocked at ``max_jobs`` jobs
        in total (the truncation keeps the partial balance of eq. (1)).

        Returns
        -------
        numpy.ndarray, shape (M,)

        Examples
        --------
        >>> from analytic.fairness import CompatibilityGraph
        >>> law = balance_function(CompatibilityGraph([[0, 2], [1, 2]]), [1.0, 1.0], 6).probabilities()
        >>> round(float(law.sum()), 12)
        1.0
        """
        top = self.log_measure.max()
        weights = np.exp(self.log_measure - top)
        return weights / weights.sum()


def parent_indices(lattice: SimplexLattice) -> np.ndarray:
    """For every state x and class i, the index of x − e_i, or ``len(lattice)`` where x_i = 0.

    Parameters
    ----------
    lattice : SimplexLattice
        The states.

    Returns
    -------
    numpy.ndarray of int, shape (M, N)

    Examples
    --------
    >>> from analytic.fairness import simplex_lattice
    >>> parent_indices(simplex_lattice(2, 1)).tolist()   # states (0, 0), (0, 1), (1, 0)
    [[3, 3], [3, 0], [0, 3]]
    """
    if not isinstance(lattice, SimplexLattice):
        raise InvalidParameterError("lattice", lattice, "must be a SimplexLattice")
    states = lattice.states
    parents = np.full(states.shape, len(lattice), dtype=np.int64)
    for i in range(lattice.dimension):
        occupied = np.flatnonzero(states[:, i] > 0)
        below = states[occupied]
        below[:, i] -= 1
        parents[occupied, i] = lattice.index(below)
    return parents


def balance_function(graph: CompatibilityGraph, arrival_rates: Any, max_jobs: int,
                     max_states: int = DEFAULT_MAX_STATES) -> BalanceFunction:
    """Φ and π̄/π̄(0) on every state with at most ``max_jobs`` jobs, by recursion (4).

    Bonald & Comte, eqs. (3)–(4) and (7). Level by level in logarithms: each level is a handful
    of array operations, so 10⁶ lattice points take about a second. No stability is required (Φ
    is defined for any rates); normalizing over the whole lattice ℕ^N is
    :func:`~analytic.fairness.balanced_fairness`'s job.

    Parameters
    ----------
    graph : CompatibilityGraph
        Capacities μ_s are the service rates for unit mean job sizes.
    arrival_rates : sequence of float
        λ_i > 0 for each class.
    max_jobs : int
        Truncation: states with at most this many jobs in total (>= 0).
    max_states : int
        :class:`~analytic.errors.StateSpaceTooLargeError` above this many lattice points,
        C(max_jobs + N, N).

    Returns
    -------
    BalanceFunction

    Raises
    ------
    InvalidParameterError
        Rates of the wrong length or not positive and finite; ``max_jobs`` not an integer >= 0.
    StateSpaceTooLargeError
        More than ``max_states`` lattice points.

    Examples
    --------
    Two classes on the three servers of Section 5: Φ(1, 1) = (Φ(0, 1) + Φ(1, 0))/μ({1, 2}) = (1/2 +
    1/2)/3.

    >>> from analytic.fairness.graph import CompatibilityGraph
    >>> phi = balance_function(CompatibilityGraph([[0, 2], [1, 2]]), [1.0, 1.0], 2)
    >>> phi.phi([[1, 1], [2, 0]]).round(12).tolist()
    [0.333333333333, 0.25]
    >>> phi.whittle_rates()[4].round(12).tolist()     # φ(1, 1): both classes served at rate 3/2
    [1.5, 1.5]
    """
    rates = check_rates("arrival_rates", arrival_rates, graph)
    lattice = simplex_lattice(graph.n_classes, max_jobs, max_states)
    parents = parent_indices(lattice)
    log_service = np.log(service_rate(graph, lattice.states > 0)[1:])
    log_rates = np.log(rates)
    log_measure = np.zeros(len(lattice) + 1)      # the last entry is the -inf of a missing parent
    log_measure[-1] = -np.inf
    for k in range(1, lattice.max_jobs + 1):
        begin, end = lattice.offsets[k], lattice.offsets[k + 1]
        terms = log_measure[parents[begin:end]] + log_rates
        top = terms.max(axis=1)
        log_measure[begin:end] = top + np.log(np.exp(terms - top[:, None]).sum(axis=1)) - log_service[begin - 1:end - 1]
    return BalanceFunction(graph, rates, lattice, log_measure[:-1], parents)
