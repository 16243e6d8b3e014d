"""The order-independent (OI) queue in detail: job sequences, their measure (1) and Theorem 2's eq. (8).

Bonald & Comte, *Balanced Fair Resource Sharing in Computer Clusters*, Section 2. The state of the
multi-server queue is the sequence c = (c_1, ..., c_n) of the classes of the jobs in arrival order;
the job in position k is served at rate μ(c_1..c_k) − μ(c_1..c_{k−1}) (the servers it can use that
no earlier job holds), and

    π(c) = π(∅) Π_k λ_{c_k} / μ(A(c_1, ..., c_k))                                        (1)

is the stationary measure (Krzesinski, *Order independent queues*, Theorem 2.2). The functions
here evaluate these formulas sequence by sequence: they are the reference the aggregate recursion
(4) and the Whittle rates (7) are checked against, for small states.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np

from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.fairness.graph import CompatibilityGraph, check_graph, check_rates
from analytic.validation import as_number, integer, numeric_array

__all__ = ["OrderedState", "aggregate_measure", "job_service_rates", "orderings", "permutation_rates", "sequence_measure"]

#: Largest number of distinct orderings enumerated by default.
DEFAULT_MAX_ORDERINGS = 1_000_000


def _sequence(graph: CompatibilityGraph, sequence: Any) -> tuple[int, ...]:
    check_graph(graph)
    if isinstance(sequence, str | bytes | dict) or not isinstance(sequence, Iterable):
        raise InvalidParameterError("sequence", sequence, f"must list class indices in 0..{graph.n_classes - 1}")
    classes = tuple(as_number(c) for c in sequence)
    if not all(isinstance(c, Integral) and 0 <= c < graph.n_classes for c in classes):
        raise InvalidParameterError("sequence", sequence, f"must list class indices in 0..{graph.n_classes - 1}")
    return tuple(int(c) for c in classes)


def job_service_rates(graph: CompatibilityGraph, sequence: Sequence[int]) -> np.ndarray:
    """The service rate of each job of a sequence: μ(c_1..c_k) − μ(c_1..c_{k−1}) (Section 2).

    Each job gets the servers of its class that no earlier job holds; a job whose servers are
    all taken (e.g. the second job of a class) waits at rate 0.

    Parameters
    ----------
    graph : CompatibilityGraph
        Classes, servers and capacities.
    sequence : sequence of int
        The classes of the jobs, in arrival order.

    Returns
    -------
    numpy.ndarray


    Examples
    --------
    >>> graph = CompatibilityGraph([[0, 2], [1, 2]])
    >>> job_service_rates(graph, [1, 0, 1]).tolist()
    [2.0, 1.0, 0.0]
    """
    classes = _sequence(graph, sequence)
    taken = np.zeros(graph.n_servers, dtype=bool)
    rates = np.zeros(len(classes))
    for k, c in enumerate(classes):
        free = graph.incidence[c] & ~taken
        rates[k] = graph.capacities[free].sum()
        taken |= free
    return rates


def sequence_measure(graph: CompatibilityGraph, arrival_rates: Any, sequence: Sequence[int]) -> float:
    """π(c)/π(∅) = Π_k λ_{c_k}/μ(A(c_1..c_k)), eq. (1).

    Parameters
    ----------
    graph : CompatibilityGraph
        Classes, servers and capacities.
    arrival_rates : array_like
        λ_i > 0, one per class.
    sequence : sequence of int
        The classes of the jobs, in arrival order.

    Returns
    -------
    float


    Examples
    --------
    >>> graph = CompatibilityGraph([[0, 2], [1, 2]])
    >>> sequence_measure(graph, [1.0, 1.0], [0, 1])      # (1/2)(1/3)
    0.16666666666666666
    """
    rates = check_rates("arrival_rates", arrival_rates, graph)
    classes = _sequence(graph, sequence)
    cumulative = np.cumsum(job_service_rates(graph, classes))
    return float(np.prod(rates[list(classes)] / cumulative)) if classes else 1.0


@dataclass(frozen=True)
class OrderedState:
    """One ordering c of an aggregate state x: its measure π(c)/π(∅) and μ_i(c) for each class.

    Attributes
    ----------
    sequence : tuple of int
        The classes in arrival order.
    measure : float
        π(c)/π(∅), eq. (1).
    first_job_rates : numpy.ndarray
        μ_i(c): the service rate of the first class-i job (0 if none).

    Examples
    --------
    >>> graph = CompatibilityGraph([[0, 2], [1, 2]])
    >>> next(orderings(graph, [1.0, 1.0], [1, 1])).first_job_rates.tolist()
    [2.0, 1.0]
    """

    sequence: tuple[int, ...]
    measure: float
    first_job_rates: np.ndarray


def orderings(graph: CompatibilityGraph, arrival_rates: Any, x: Sequence[int],
              max_orderings: int = DEFAULT_MAX_ORDERINGS) -> Iterator[OrderedState]:
    """Every distinct sequence c with ``|c|`` = x, with π(c)/π(∅) (eq. 1) and μ_i(c).

    μ_i(c) is the service rate of the first class-i job of c (0 if x_i = 0), as in Theorem 2.
    Sequences are generated depth first; the measure and the rates of a prefix are shared by
    all its extensions.

    Parameters
    ----------
    graph : CompatibilityGraph
        Classes, servers and capacities.
    arrival_rates : array_like
        λ_i > 0, one per class.
    x : sequence of int
        Jobs of each class.
    max_orderings : int
        Most orderings enumerated.

    Yields
    ------
    OrderedState


    Raises
    ------
    InvalidParameterError
        ``x`` not a vector of N non-negative integers.
    StateSpaceTooLargeError
        More than ``max_orderings`` orderings (the multinomial coefficient of x).

    Examples
    --------
    >>> graph = CompatibilityGraph([[0, 2], [1, 2]])
    >>> [(state.sequence, round(float(state.measure), 12)) for state in orderings(graph, [1.0, 1.0], [1, 1])]
    [((0, 1), 0.166666666667), ((1, 0), 0.166666666667)]
    """
    rates = check_rates("arrival_rates", arrival_rates, graph)
    counts = _counts(graph, x)
    limit = integer("max_orderings", max_orderings)
    what = f"the orderings of x = {counts.tolist()}"
    log_total = math.lgamma(counts.sum() + 1.0) - sum(math.lgamma(c + 1.0) for c in counts)
    if log_total > math.log(limit) + 1.0:       # refused before the factorials of a huge x are formed
        raise StateSpaceTooLargeError(limit + 1, limit, what, at_least=True)
    total = math.factorial(int(counts.sum())) // math.prod(math.factorial(int(c)) for c in counts)
    if total > limit:
        raise StateSpaceTooLargeError(total, limit, what)

    def extend(prefix: list[int], taken: np.ndarray, service: float, measure: float,
               first: np.ndarray) -> Iterator[OrderedState]:
        if not counts.any():
            yield OrderedState(tuple(prefix), measure, first.copy())
            return
        for i in np.flatnonzero(counts):
            free = graph.incidence[i] & ~taken
            gained = float(graph.capacities[free].sum())
            new_first = first
            if i not in prefix:
                new_first = first.copy()
                new_first[i] = gained
            counts[i] -= 1
            prefix.append(int(i))
            yield from extend(prefix, taken | free, service + gained, measure * rates[i] / (service + gained), new_first)
            prefix.pop()
            counts[i] += 1

    yield from extend([], np.zeros(graph.n_servers, dtype=bool), 0.0, 1.0, np.zeros(graph.n_classes))


def _counts(graph: CompatibilityGraph, x: Any) -> np.ndarray:
    counts = numeric_array("x", x, f"must be {graph.n_classes} non-negative integers (jobs of each class)")
    if counts.shape != (graph.n_classes,) or counts.dtype.kind not in "iu" or np.any(counts < 0):
        raise InvalidParameterError("x", x, f"must be {graph.n_classes} non-negative integers (jobs of each class)")
    return counts.astype(np.int64)


def aggregate_measure(graph: CompatibilityGraph, arrival_rates: Any, x: Sequence[int],
                      max_orderings: int = DEFAULT_MAX_ORDERINGS) -> float:
    """π̄(x)/π̄(0) = Σ_{c : ``|c|`` = x} π(c)/π(∅), eq. (2), by enumerating the orderings of x.

    The brute-force counterpart of eq. (3): it equals Φ(x) Π λ_i^{x_i} with Φ from recursion (4).

    Parameters
    ----------
    graph : CompatibilityGraph
        Classes, servers and capacities.
    arrival_rates : array_like
        λ_i > 0, one per class.
    x : sequence of int
        Jobs of each class.
    max_orderings : int
        Most orderings enumerated.

    Returns
    -------
    float


    Examples
    --------
    >>> graph = CompatibilityGraph([[0, 2], [1, 2]])
    >>> aggregate_measure(graph, [1.0, 1.0], [1, 1])     # (0, 1) and (1, 0): 2 × (1/2)(1/3)
    0.3333333333333333
    """
    return math.fsum(state.measure for state in orderings(graph, arrival_rates, x, max_orderings))


def permutation_rates(graph: CompatibilityGraph, arrival_rates: Any, x: Sequence[int],
                      max_orderings: int = DEFAULT_MAX_ORDERINGS) -> np.ndarray:
    """φ_i(x) = Σ_{c : ``|c|`` = x} π(c) μ_i(c) / π̄(x), eq. (8) of Theorem 2, by enumeration.

    The average service rate of class i over the orderings of x; Theorem 2 states that it equals
    Φ(x − e_i)/Φ(x) (eq. 7), i.e. balanced fairness.

    Parameters
    ----------
    graph : CompatibilityGraph
        Classes, servers and capacities.
    arrival_rates : array_like
        λ_i > 0, one per class.
    x : sequence of int
        Jobs of each class.
    max_orderings : int
        Most orderings enumerated.

    Returns
    -------
    numpy.ndarray


    Examples
    --------
    >>> graph = CompatibilityGraph([[0, 2], [1, 2]])
    >>> permutation_rates(graph, [1.0, 1.0], [1, 1]).tolist()
    [1.5, 1.5]
    """
    check_rates("arrival_rates", arrival_rates, check_graph(graph))
    # Π λ_i^(x_i) is a factor of every ordering's measure and cancels in the average: with unit rates the weights
    # stay in range where λ = 5e-324 made them all 0 (or λ = 1.7e308 all inf), and the average NaN
    states = list(orderings(graph, np.ones(graph.n_classes), x, max_orderings))
    weights = np.array([state.measure for state in states])
    if not states[0].sequence:
        return np.zeros(graph.n_classes)
    return weights @ np.array([state.first_job_rates for state in states]) / weights.sum()
