"""The exact CTMC of the multi-server queue in detail (job sequences), with Algorithm 1's interruptions.

Bonald & Comte, *Balanced Fair Resource Sharing in Computer Clusters*, Sections 2 and 4. The state
is the sequence of jobs in the virtual queue, each job a (class, phase) pair; the queue is truncated
at ``max_jobs`` jobs (arrivals finding it full are lost). From a state c:

* a class-i job arrives at rate λ_i and joins the end of the queue, in phase p with probability
  α_p;
* the job in position k is served at rate r_k = μ(c_1..c_k) − μ(c_1..c_{k−1}) (work per unit
  time); its phase moves p → q at rate r_k T_pq and it leaves at rate r_k t_p, where (α, T) is
  the phase-type form (t = −T 1, work units) of the size law, a mixture of Erlang laws;
* Algorithm 1: every server processing it interrupts it at rate C_s/θ, so the job moves to the end
  of the queue at rate r_k/θ, where θ = σ/m for m interruptions per job on average (m = 0 is FCFS
  per server).

With exponential sizes the aggregate law (numbers of jobs per class) is π̄ of eq. (3) for every m,
by quasi-reversibility; the truncation keeps it (the partial balance of eq. (1) holds state by
state below the truncation level, and at it only the arrival flow is cut). With other sizes it is
not, and this chain gives the exact finite-m behaviour that the simulator approximates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from analytic._deprecation import renamed_attribute
from analytic.ctmc import CTMC
from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.fairness.graph import CompatibilityGraph, check_rates
from analytic.fairness.lattice import SimplexLattice, simplex_lattice
from analytic.simulation import ErlangMixture, PhaseType, exponential, size_law
from analytic.simulation.laws import exact_phase_type
from analytic.validation import integer, real

__all__ = ["OIQueueLaw", "oi_queue_chain", "oi_queue_law"]

#: Default limit on the number of job sequences.
DEFAULT_MAX_STATES = 500_000

#: Widest ratio of the largest to the smallest rate of the model the chain is built for: the stationary
#: solvers scale the rates out of a state by their total, and a rate below 2**-1022 of it loses bits; one
#: more factor 2 covers rounding the total up to a power of two.
RATE_SPAN = 2.0**1021


def _phases(size: Any) -> PhaseType:
    """The job-size law as a phase-type one (Erlang mixtures exactly, :meth:`SizeLaw.to_phase_type`)."""
    law = exponential() if size is None else size_law(size) if isinstance(size, str) else size
    return exact_phase_type(law, "size", size, "size law")


@dataclass(frozen=True, repr=False)
class OIQueueLaw:
    """The aggregate stationary law of the truncated detailed chain.

    Attributes
    ----------
    lattice : SimplexLattice
        The aggregate states x (numbers of jobs per class), up to ``max_jobs`` in total.
    probabilities : numpy.ndarray
        P(x), aligned with ``lattice.states`` (summed over the orderings and phases).
    mean_jobs : numpy.ndarray, shape (N,)
    mean_response_time : numpy.ndarray, shape (N,)
        E[x_i] / (λ_i P(accepted)), Little's law for the jobs admitted.
    blocking : float
        P(max_jobs jobs in the queue): the probability that an arrival is lost (PASTA).
    n_states : int
        Number of job sequences in the chain.
    residual : float
        ||π Q||_1 of the solution.

    Examples
    --------
    >>> from analytic.fairness import CompatibilityGraph, oi_queue_law
    >>> law = oi_queue_law(CompatibilityGraph([[0, 2], [1, 2]]), [1.0, 1.0], 6, interruptions=5.0)
    >>> law.n_states, round(law.blocking, 4)
    (127, 0.0515)
    """

    lattice: SimplexLattice
    probabilities: np.ndarray
    mean_jobs: np.ndarray
    mean_response_time: np.ndarray
    mean_delay = renamed_attribute("mean_response_time")
    blocking: float
    n_states: int
    residual: float

    def __repr__(self) -> str:
        return (f"OIQueueLaw(max_jobs={self.lattice.max_jobs}, n_states={self.n_states}, "
                f"mean_jobs={np.round(self.mean_jobs, 10).tolist()}, blocking={self.blocking:.6g}, residual={self.residual:.3g})")


def oi_queue_chain(graph: CompatibilityGraph, arrival_rates: Any, max_jobs: int, interruptions: float = 0.0,
                   size: ErlangMixture | PhaseType | str | None = None, max_states: int = DEFAULT_MAX_STATES) -> CTMC:
    """The detailed CTMC of the queue under Algorithm 1, states = job sequences, truncated at ``max_jobs``.

    Bonald & Comte, Section 2 (the OI queue, eq. 1) and Section 4 (Algorithm 1). States are
    tuples of (class, phase) pairs in queue order, the head first.

    Parameters
    ----------
    graph : CompatibilityGraph
        Capacities C_s in work per unit time.
    arrival_rates : sequence of float
        λ_i > 0.
    max_jobs : int
        Arrivals finding this many jobs are lost (>= 1).
    interruptions : float
        m >= 0, the mean number of interruptions per job (θ = σ/m); 0 is FCFS per server.
    size : ErlangMixture, PhaseType or str, optional
        The job-size law (in work units): a phase-type law — an
        :class:`~analytic.simulation.ErlangMixture` (exponential, Erlang, hyperexponential, a random
        number of exponential phases), a :class:`~analytic.simulation.PhaseType` — or its name;
        default exponential of mean 1. Its phases are those of
        :meth:`~analytic.simulation.SizeLaw.to_phase_type`.
    max_states : int
        Limit on the number of sequences explored.

    Returns
    -------
    CTMC

    Raises
    ------
    InvalidParameterError
        Bad rates, ``max_jobs`` < 1, negative or non-finite ``interruptions``; rates of the chain (arrivals,
        services, interruptions) spanning more than the double range (``RATE_SPAN``), named by the input at
        the far end.
    StateSpaceTooLargeError
        More than ``max_states`` sequences.

    Examples
    --------
    >>> graph = CompatibilityGraph([[0, 2], [1, 2]])
    >>> oi_queue_chain(graph, [1.0, 1.0], 3).n_states      # 1 + 2 + 4 + 8 sequences
    15
    """
    rates = check_rates("arrival_rates", arrival_rates, graph)
    limit = integer("max_jobs", max_jobs)
    condition = "must be a finite number >= 0 (mean interruptions per job)"
    if real("interruptions", interruptions, " >= 0 (mean interruptions per job)") < 0:
        raise InvalidParameterError("interruptions", interruptions, condition)
    law = _phases(size)
    _check_rate_span(rates, law, graph.capacities, float(interruptions) / law.mean, interruptions, size)
    cap = integer("max_states", max_states)
    # Arrivals alone reach every sequence of (class, initial phase) pairs: a lower bound, counted before exploring.
    kinds = graph.n_classes * int(np.count_nonzero(law.initial))
    if _sequences(kinds, limit, cap) > cap:
        raise StateSpaceTooLargeError(cap + 1, cap, f"the job sequences of up to max_jobs = {limit} jobs", at_least=True)
    interrupt = float(interruptions) / law.mean     # 1/θ: interruptions per unit of work
    arrivals = [((i, p), float(rates[i] * law.initial[p])) for i in range(graph.n_classes)
                for p in np.flatnonzero(law.initial)]
    exits = law.exit_rates
    changes = [[(q, float(law.generator[p, q])) for q in np.flatnonzero(law.generator[p]) if q != p]
               for p in range(law.initial.size)]
    sets = [frozenset(servers) for servers in graph.server_sets]

    def transitions(state: tuple) -> list:
        moves = [((*state, job), rate) for job, rate in arrivals] if len(state) < limit else []
        taken: set = set()
        for k, (c, p) in enumerate(state):
            free = sets[c] - taken
            if not free:
                continue
            taken |= free
            served = float(graph.capacities[list(free)].sum())
            rest = state[:k] + state[k + 1:]
            if exits[p] > 0:
                moves.append((rest, served * exits[p]))
            moves.extend(((*state[:k], (c, q), *state[k + 1:]), served * rate) for q, rate in changes[p])
            if interrupt > 0 and k < len(state) - 1:
                moves.append(((*rest, (c, p)), served * interrupt))
        return moves

    return CTMC.from_function((), transitions, max_states=max_states)


def _check_rate_span(rates: np.ndarray, law: PhaseType, capacities: np.ndarray, interrupt: float, interruptions: Any,
                     size: Any) -> None:
    """Refuse a model whose rates out of one state span more than ``RATE_SPAN``, naming the input at fault.

    Per input, the smallest rate it puts in the chain and a bound on what it adds to the total rate out of
    a state: the jobs in service share at most the total capacity C, so services add at most C times the
    fastest phase's rate out, and interruptions C/θ. The input named is the one whose rates reach farthest
    beyond the services' (interruptions or arrival rates), or the size law when neither reaches beyond.
    """
    capacity = capacities[capacities > 0]
    arrivals = np.outer(rates, law.initial).ravel()
    moves = np.column_stack([law.exit_rates, np.where(np.eye(law.initial.size, dtype=bool), 0.0, law.generator)])
    c_min, c_total = float(capacity.min()), float(capacity.sum())
    ends = {"interruptions": (c_min * interrupt, c_total * interrupt),
            "arrival_rates": (float(arrivals[arrivals > 0].min()), float(arrivals.sum())),
            "size": (c_min * float(moves[moves > 0].min()), c_total * float(moves.sum(axis=1).max()))}
    if interrupt == 0:
        del ends["interruptions"]
    smallest, total = min(low for low, _ in ends.values()), sum(high for _, high in ends.values())
    if total * (1 / RATE_SPAN) <= smallest:     # also False for an infinite total
        return
    service_low, service_high = ends["size"]

    def reach(low: float, high: float) -> float:   # how far the rates reach beyond the services' (0 * x underflows)
        return max(service_low / low if low > 0 else np.inf, high / service_high if service_high < np.inf else 0.0)

    beyond = {name: reach(*ends[name]) for name in ends if name != "size"}
    name = max(beyond, key=beyond.get) if max(beyond.values()) > 1 else "size"
    hint = {"interruptions": "; 0 is FCFS per server, and many interruptions per job approach balanced fairness "
                             "(balance_function)", "arrival_rates": "", "size": ""}[name]
    value = {"interruptions": interruptions, "arrival_rates": rates, "size": size}[name]
    raise InvalidParameterError(name, value, f"gives the chain rates from {smallest:.3g} to a total of {total:.3g} out "
                                             f"of one state, a span beyond the double range (2**1021){hint}")


def _sequences(kinds: int, limit: int, cap: int) -> int:
    """Σ_{n=0..limit} kinds^n, the sequences of at most ``limit`` jobs of ``kinds`` kinds, or a partial sum above ``cap``."""
    if kinds == 1:
        return limit + 1
    total, term = 0, 1
    for _ in range(limit + 1):
        total += term
        if total > cap:
            break
        term *= kinds
    return total


def oi_queue_law(graph: CompatibilityGraph, arrival_rates: Any, max_jobs: int, interruptions: float = 0.0,
                 size: ErlangMixture | PhaseType | str | None = None, max_states: int = DEFAULT_MAX_STATES,
                 method: str = "auto", tolerance: float = 1e-10) -> OIQueueLaw:
    """Solve :func:`oi_queue_chain` and aggregate its law by numbers of jobs per class.

    With exponential sizes this equals :meth:`~analytic.fairness.BalanceFunction.probabilities` at
    the same truncation (eqs. 2–3), for every number of interruptions. ``method`` and ``tolerance`` are
    passed to :meth:`analytic.ctmc.CTMC.stationary`; other parameters as in :func:`oi_queue_chain`.

    Parameters
    ----------
    graph : CompatibilityGraph
        Classes, servers and capacities.
    arrival_rates : array_like
        λ_i > 0, one per class.
    max_jobs : int
        Truncation: arrivals are blocked at this many jobs.
    interruptions : float
        Mean number of interruptions per job (Algorithm 1; 0 is FCFS).
    size : ErlangMixture, PhaseType or str, optional
        The job-size law, phase-type (default exponential), as in :func:`oi_queue_chain`.
    max_states : int
        Largest chain to build.
    method : {"auto", "gth", "direct", "iterative"}
        Stationary solver.
    tolerance : float
        Relative accuracy of the stationary probabilities.

    Returns
    -------
    OIQueueLaw


    Examples
    --------
    >>> from analytic.fairness.balance import balance_function
    >>> graph = CompatibilityGraph([[0, 2], [1, 2]])
    >>> law = oi_queue_law(graph, [1.0, 1.0], 6, interruptions=5.0)
    >>> law.lattice.states[4].tolist(), round(float(law.probabilities[4]), 10)
    ([1, 1], 0.0740000571)
    >>> bool(abs(law.probabilities - balance_function(graph, [1.0, 1.0], 6).probabilities()).max() < 1e-14)
    True
    """
    rates = check_rates("arrival_rates", arrival_rates, graph)
    chain = oi_queue_chain(graph, rates, max_jobs, interruptions, size, max_states)
    stationary = chain.stationary(method=method, tolerance=tolerance)
    lattice = simplex_lattice(graph.n_classes, max_jobs)
    counts = np.array([np.bincount([c for c, _ in state], minlength=graph.n_classes) for state in chain.states],
                      dtype=np.int64)
    probabilities = np.bincount(lattice.index(counts), weights=stationary.probabilities, minlength=len(lattice))
    mean_jobs = probabilities @ lattice.states
    blocking = float(probabilities[lattice.offsets[-2]:].sum())
    return OIQueueLaw(lattice, probabilities, mean_jobs, mean_jobs / (rates * (1 - blocking)), blocking,
                      chain.n_states, stationary.residual)
