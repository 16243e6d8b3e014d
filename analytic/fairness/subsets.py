"""Exact mean performance under balanced fairness, with no truncation: a recursion over subsets.

Bonald & Comte, *Balanced Fair Resource Sharing in Computer Clusters*, Section 3 (Corollary 2 and
the remark after it) and Section 5, eq. (9): the mean number of class-i jobs in the multi-server
queue is that of the Whittle network with balance function (4), and the mean delay and mean
service rate follow by Little's law. The sums over ℕ^N are done set by set, in the spirit of Shah
& de Veciana (*Impact of fairness and heterogeneity on delays...*, Theorem 1) and Bonald, Comte &
Mathieu: with q(x) = π̄(x)/π̄(0) = Φ(x) Π ρ_i^{x_i} (ρ_i = λ_iσ), summing recursion (4) over the
states whose active set is A gives, for every non-empty A (derived here; write ρ(A) = Σ_{i∈A} ρ_i),

    G(A)   = Σ_{x : A(x) = A} q(x)      = Σ_{i∈A} ρ_i G(A∖i) / (μ(A) − ρ(A)),
    H_j(A) = Σ_{x : A(x) = A} x_j q(x)  = [Σ_{i∈A} ρ_i H_j(A∖i) + ρ_j (G(A) + G(A∖j))] / (μ(A) − ρ(A)),

with G(∅) = 1 and H_j(A) = 0 for j ∉ A. (Multiply (4) by μ(A): each state x with A(x) = A comes
from x − e_i, whose active set is A, or A∖i when x_i = 1; the sum over A(x) = A of the first kind
is G(A) again, which is where μ(A) − ρ(A) comes from.) The recursion needs μ(A) > ρ(A) for every
A, exactly Theorem 1's condition. Then 1/π̄(0) = Σ_A G(A) and E[x_j] = Σ_A H_j(A) π̄(0).

Scales. G(A) carries the factor Π_{i∈A} ρ_i, so it under- or overflows at rates far from 1
(ρ = 5e-324 included) while the means stay finite. The recursion is therefore run on
R_j(A) = H_j(A)/G(A), the mean of x_j given the active set A: dividing the second line by the
first,

    R_j(A) = Σ_{i∈A} w_i(A) R_j(A∖i) + w_j(A) + ρ_j/(μ(A) − ρ(A)),   w_i(A) ∝ ρ_i G(A∖i), Σ_i w_i(A) = 1,

a convex combination plus positive terms (no cancellation), while G(A) is kept as a mantissa and a
binary exponent (ρ_i too, so λ_iσ is never rounded to 0). Then
E[x_j]/ρ_j = Σ_{A∋j} (G(A)/ρ_j) R_j(A) / Σ_A G(A), whose terms are finite because G(A)/ρ_j is,
gives γ_j = ρ_j/E[x_j] without dividing two tiny numbers. Capacities and ρ_i are first divided by
one power of two where Σ_s μ_s would overflow or a capacity is subnormal (q(x) is unchanged, γ
scales with them). O(2^N N²) operations, by sets of equal size.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from analytic._deprecation import renamed_attribute
from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.fairness.graph import CompatibilityGraph, check_mean_size, check_rates, subset_service_rates
from analytic.fairness.stability import unstable_error
from analytic.validation import integer

__all__ = ["BalancedFairness", "balanced_fairness", "subset_sums"]

#: Default largest number of classes: 2^22 sets, a few hundred MB at most.
DEFAULT_MAX_CLASSES = 22


@dataclass(frozen=True, repr=False)
class BalancedFairness:
    """Exact stationary means of the multi-server queue under balanced fairness (no truncation).

    Attributes
    ----------
    mean_jobs : numpy.ndarray, shape (N,)
        E[x_i], the mean number of class-i jobs.
    mean_response_time : numpy.ndarray, shape (N,)
        δ_i = E[x_i]/λ_i, the mean time a class-i job spends in the system (eq. 9).
    mean_service_rate : numpy.ndarray, shape (N,)
        γ_i = λ_i σ / E[x_i] = σ/δ_i, in the capacities' units of work per unit time (Section 5).
    probability_empty : float
        π̄(0), the probability that the queue is empty.
    load : float
        max over sets A of λ(A)σ/μ(A) (< 1: Theorem 1).
    arrival_rates : numpy.ndarray
    mean_size : float
        σ, the mean job size in the capacities' work units.

    Examples
    --------
    >>> from analytic.fairness import CompatibilityGraph, balanced_fairness
    >>> exact = balanced_fairness(CompatibilityGraph([[0, 2], [1, 2]]), [1.0, 1.0])
    >>> exact.mean_response_time.round(12).tolist(), round(exact.probability_empty, 12)
    ([1.4, 1.4], 0.2)
    """

    mean_jobs: np.ndarray
    mean_response_time: np.ndarray
    mean_delay = renamed_attribute("mean_response_time")
    mean_service_rate: np.ndarray
    probability_empty: float
    load: float
    arrival_rates: np.ndarray
    mean_size: float

    def __repr__(self) -> str:
        def show(values: np.ndarray) -> list[float]:
            return [float(f"{v:.10g}") for v in values]

        return (f"BalancedFairness(mean_jobs={show(self.mean_jobs)}, mean_response_time={show(self.mean_response_time)}, "
                f"mean_service_rate={show(self.mean_service_rate)}, probability_empty={self.probability_empty:.10g}, "
                f"load={self.load:.10g})")


@dataclass(frozen=True)
class SubsetSums:
    """Σ over all x of q(x), and the means it normalizes (see :func:`subset_sums`)."""

    log_normalization: float
    probability_empty: float
    mean_jobs: np.ndarray
    mean_service_rate: np.ndarray
    load: float


def balanced_fairness(graph: CompatibilityGraph, arrival_rates: Any, mean_size: float = 1.0,
                      max_classes: int = DEFAULT_MAX_CLASSES) -> BalancedFairness:
    """Exact mean number of jobs, mean delay and mean service rate of every class (no truncation).

    Bonald & Comte, Corollary 2 and eq. (9); the sums over ℕ^N by the recursion over subsets of
    the module docstring (Shah & de Veciana, Theorem 1, for the idea). These are the exact metrics
    of Algorithm 1 (any number of interruptions, FCFS included) for exponential job sizes, and its
    limit as interruptions become frequent for any size law.

    Parameters
    ----------
    graph : CompatibilityGraph
        Capacities C_s in work per unit time.
    arrival_rates : sequence of float
        λ_i > 0, jobs per unit time.
    mean_size : float
        σ > 0, the mean job size in work units: server s completes class jobs at rate μ_s = C_s/σ
        (Section 4). Default 1.
    max_classes : int
        :class:`~analytic.errors.StateSpaceTooLargeError` for more classes (2^N sets are
        enumerated). Default 22.

    Returns
    -------
    BalancedFairness

    Raises
    ------
    InvalidParameterError
        Bad rates or mean size, or capacities spanning more than the doubles hold at one scale
        (a ratio beyond about 2^2000).
    UnstableSystemError
        Some set A has λ(A)σ >= μ(A) (Theorem 1); the message names the set.
    StateSpaceTooLargeError
        More than ``max_classes`` classes.

    Examples
    --------
    The three-server example at λ = (1, 1): eq. (10) gives γ = (1 + 0.4)^{-1} = 5/7.

    >>> from analytic.fairness.graph import CompatibilityGraph
    >>> result = balanced_fairness(CompatibilityGraph([[0, 2], [1, 2]]), [1.0, 1.0])
    >>> result.mean_service_rate.round(12).tolist()
    [0.714285714286, 0.714285714286]
    >>> bool(result.mean_response_time[0] == 1 / result.mean_service_rate[0])
    True
    """
    rates = check_rates("arrival_rates", arrival_rates, graph)
    sigma = check_mean_size(mean_size)
    integer("max_classes", max_classes)
    if graph.n_classes > max_classes:
        raise StateSpaceTooLargeError(2 ** graph.n_classes, 2 ** max_classes,
                                      f"the subset recursion over {graph.n_classes} classes")
    sums = subset_sums(graph, rates, sigma)
    with np.errstate(over="ignore"):    # ∞ only where δ_i itself lies beyond the double range
        delay = sigma / sums.mean_service_rate
    return BalancedFairness(sums.mean_jobs, delay, sums.mean_service_rate, sums.probability_empty, sums.load, rates, sigma)


def _by_size(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Masks 0..2^n−1 ordered by number of elements, the offsets of each size, and each mask's rank within its size."""
    sizes = np.zeros(1, dtype=np.int64)
    for _ in range(n):
        sizes = np.concatenate([sizes, sizes + 1])
    order = np.argsort(sizes, kind="stable")
    offsets = np.searchsorted(sizes[order], np.arange(n + 2))
    rank = np.empty(2 ** n, dtype=np.int64)
    rank[order] = np.arange(2 ** n) - offsets[sizes[order]]
    return order, offsets, rank


def _sums_by_set(values: np.ndarray) -> np.ndarray:
    """Σ_{i∈A} values_i for every mask A."""
    sums = np.zeros(1)
    for v in values:
        sums = np.concatenate([sums, sums + v])
    return sums


def _removals(masks: np.ndarray, members: np.ndarray, rank: np.ndarray,
              bits: np.ndarray) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """For each class i: the rows of ``masks`` containing i, and the rank of A∖i among the sets one smaller."""
    for i, bit in enumerate(bits):
        rows = np.flatnonzero(members[:, i])
        yield i, rows, rank[masks[rows] ^ bit]


def subset_sums(graph: CompatibilityGraph, arrival_rates: Any, mean_size: float = 1.0) -> SubsetSums:
    """Σ_x q(x) and the means E[x_j], γ_j of the Whittle network of recursion (4), by the recursion over subsets.

    Bonald & Comte, Corollary 2 and eq. (9), summed set by set as in the module docstring (R_j(A)
    and G(A) as a mantissa and a binary exponent): each mean is a sum of positive terms, at any
    scale of λ_iσ and of the capacities (within 1e-13 of exact rationals from 5e-324 to 1.7e308 in
    tests/fairness/test_subsets.py). Raises
    :class:`~analytic.errors.UnstableSystemError` (naming the set with the largest ρ(A)/μ(A)) if
    some μ(A) <= ρ(A).

    Parameters
    ----------
    graph : CompatibilityGraph
        Classes, servers and capacities (work per unit time).
    arrival_rates : array_like
        λ_i > 0, one per class.
    mean_size : float
        σ > 0; ρ_i = λ_iσ is carried as a mantissa and an exponent, never rounded to 0.

    Returns
    -------
    SubsetSums
        ``log_normalization`` = log Σ_x q(x) = −log π̄(0), ``probability_empty`` = π̄(0),
        ``mean_jobs`` = E[x_j], ``mean_service_rate`` = γ_j = ρ_j/E[x_j] and ``load`` = max_A ρ(A)/μ(A).

    Examples
    --------
    >>> from analytic.fairness import CompatibilityGraph
    >>> sums = subset_sums(CompatibilityGraph([[0, 2], [1, 2]]), [1.0, 1.0])
    >>> sums.mean_jobs.round(12).tolist()   # δ_i = 1.4 at λ_i = 1 (Section 5)
    [1.4, 1.4]
    """
    rates = check_rates("arrival_rates", arrival_rates, graph)
    sigma = check_mean_size(mean_size)
    n = graph.n_classes
    # q(x) is unchanged when every capacity and every ρ_i are multiplied by one constant, and γ scales with it: the
    # recursion runs on capacities and ρ_i times 2^-shift, exact, so that no μ(A) overflows and no 1/γ_j does.
    shift = _capacity_shift(graph)
    capacity = subset_service_rates(graph if shift == 0 else
                                    CompatibilityGraph(graph.server_sets, np.ldexp(graph.capacities, -shift)))
    rate_mantissa, rate_exponent = np.frexp(rates)
    size_mantissa, size_exponent = np.frexp(sigma)
    load_mantissa, load_exponent = rate_mantissa * size_mantissa, rate_exponent + size_exponent - shift
    with np.errstate(over="ignore"):
        loads = np.ldexp(load_mantissa, load_exponent)    # ρ_i: 0 where negligible beside μ(A), ∞ beyond it
    arrival = _sums_by_set(loads)
    ratio = arrival[1:] / capacity[1:]
    worst = int(np.argmax(ratio)) + 1
    if ratio[worst - 1] >= 1:
        members = tuple(i for i in range(n) if worst >> i & 1)
        with np.errstate(over="ignore"):
            arrival_rate, service_rate = np.ldexp([arrival[worst], capacity[worst]], shift).tolist()
        raise unstable_error(members, arrival_rate, service_rate, "balanced fairness' stationary law",
                             "arrival rate × mean size")
    slack_mantissa, slack_exponent = np.frexp(capacity - arrival)
    order, offsets, rank = _by_size(n)
    bits = 1 << np.arange(n)
    # Size k - 1 of the recursion: G = g_mantissa 2^g_exponent and R, for the sets of that size in rank order.
    g_mantissa, g_exponent, r_prev = np.ones(1), np.zeros(1, dtype=np.int64), np.zeros((1, n))
    # Σ_A G(A) and Σ_A (G(A)/ρ_j) R_j(A), over the sizes done, in units of 2^scale.
    scale, normalization, per_load = 0, 1.0, np.zeros(n)
    for k in range(1, n + 1):
        masks = order[offsets[k]:offsets[k + 1]]
        members = (masks[:, None] & bits) != 0
        top = np.full(masks.size, np.iinfo(np.int64).min)
        for i, rows, parents in _removals(masks, members, rank, bits):
            top[rows] = np.maximum(top[rows], g_exponent[parents] + load_exponent[i])
        total, r = np.zeros(masks.size), np.zeros((masks.size, n))
        for i, rows, parents in _removals(masks, members, rank, bits):
            weight = np.ldexp(g_mantissa[parents] * load_mantissa[i], g_exponent[parents] + load_exponent[i] - top[rows])
            total[rows] += weight
            r[rows] += weight[:, None] * r_prev[parents]
            r[rows, i] += weight
        r /= total[:, None]
        with np.errstate(over="ignore"):    # ρ_j/(μ(A) − ρ(A)) beyond the double range: E[x_j] is too
            extra = np.ldexp(load_mantissa / slack_mantissa[masks][:, None], load_exponent - slack_exponent[masks][:, None])
        r += np.where(members, extra, 0.0)
        g_mantissa, carry = np.frexp(total / slack_mantissa[masks])
        g_exponent = top - slack_exponent[masks] + carry
        if g_exponent.max() > scale:
            normalization = np.ldexp(normalization, scale - int(g_exponent.max()))
            per_load = np.ldexp(per_load, scale - int(g_exponent.max()))
            scale = int(g_exponent.max())
        normalization += np.ldexp(g_mantissa, g_exponent - scale).sum()
        with np.errstate(over="ignore"):
            per_load += np.ldexp(g_mantissa[:, None] * r / load_mantissa, g_exponent[:, None] - load_exponent - scale).sum(axis=0)
        r_prev = r
    service = normalization / per_load
    with np.errstate(over="ignore", under="ignore"):
        mean_jobs, service = np.ldexp(load_mantissa / service, load_exponent), np.ldexp(service, shift)
    return SubsetSums(float(np.log(normalization) + scale * np.log(2)), float(np.ldexp(1 / normalization, -scale)),
                      mean_jobs, service, float(ratio.max()))


def _capacity_shift(graph: CompatibilityGraph) -> int:
    """The power of two 2^shift to divide capacities by: 0 unless Σ_s μ_s would overflow or a capacity is subnormal.

    Raises :class:`~analytic.errors.InvalidParameterError` for capacities spanning more than the doubles can hold
    at once (a ratio beyond about 2^2000).
    """
    positive = graph.capacities[graph.capacities > 0]
    largest, smallest = int(np.frexp(positive.max())[1]), int(np.frexp(positive.min())[1])
    lowest = largest + positive.size.bit_length() - 1023     # at or above it, every sum of capacities is below 2^1023
    highest = smallest + 1021                                 # at or below it, every capacity stays a normal double
    shift = min(max(0, lowest), highest)
    if shift < lowest:
        raise InvalidParameterError("graph", graph, f"capacities from {positive.min():.3g} to {positive.max():.3g} span "
                                                    "more than the double range holds at one scale")
    return shift
