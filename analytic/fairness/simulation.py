"""Simulation of Algorithm 1 (service interruptions) on any compatibility graph, for any size law.

Bonald & Comte, *Balanced Fair Resource Sharing in Computer Clusters*, Section 4 (Algorithm 1)
and Section 5. One virtual queue in arrival order; each server serves the first job of the queue
that it can serve (so a job is served by all its compatible servers not held by earlier jobs, at
the sum of their capacities C_s); each server processing a job interrupts it after an exponential
time of rate C_s/θ, and the interrupted job releases all its servers and moves to the end of the
queue, where it may get them back at once. The released servers go to the next jobs that can use
them, in queue order. With m = σ/θ interruptions per job on average (σ the mean size), m = 0 is
FCFS per server.

Implementation. The timers of the servers of a job add up to rate r/θ when the job is served at
rate r: a job is interrupted after an exponential amount of *work* of mean θ, whatever its
servers. Each job therefore carries its remaining size and its remaining work before the next
interruption, and is brought up to date only when its rate changes. The virtual queue is kept as
one FCFS list per server of the jobs that can use it: a job holds a server exactly when it heads
that server's list, so an arrival, a departure or an interruption (a move to the end of the
queue) touches the d lists of one job, and the next event is the top of an indexed heap of the
jobs' completion and interruption times: O(d log n) per event, whatever the queue length. The
event loop is compiled with numba (``NUMBA_DISABLE_JIT=1`` runs the same code, with the same
numbers). Arrival times, classes (or, for random assignment, the d servers of each job, drawn
without building the C(S, d) classes) and sizes are drawn in chunks from their own streams;
interruptions from a fourth.

Estimators, per batch of arrivals after the warm-up: the time-average number of jobs of each class
(∫ x_i dt / duration), and Little's law for the mean delay, δ_i = ∫ x_i dt / (class-i arrivals
admitted); the mean service rate is γ_i = σ/δ_i (Section 5, eq. 9), with the half-width of δ_i
carried over to first order. With one replication the intervals come from the batch means, with
several from the replications. Runs start empty, as the paper's do.
"""

from __future__ import annotations

import math
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import numpy as np

from analytic._deprecation import renamed_arguments, renamed_attribute, renamed_entry
from analytic.errors import InvalidParameterError, UnstableSystemError
from analytic.fairness._engine import JobPool, advance
from analytic.fairness.graph import CompatibilityGraph, check_rates
from analytic.fairness.random_assignment import check_servers_d
from analytic.fairness.stability import stability, unstable_error
from analytic.memory import require
from analytic.simulation import (
    ArrivalRun,
    Estimate,
    Estimates,
    SizeLaw,
    check_executor,
    chunks,
    size_law,
)
from analytic.simulation._runs import (
    batch_boundaries,
    estimates,
    pooled,
    run_control,
    run_replications,
    shown,
    split_jobs,
    warmup_of,
)
from analytic.simulation.clock import check_horizon
from analytic.validation import as_number, confidence, integer, positive

__all__ = ["InterruptionSimulation", "simulate_interruptions", "simulate_random_assignment"]

#: Initial number of job slots of a replication (doubled whenever a chunk of arrivals might not fit).
_INITIAL_SLOTS = 1 << 12


@dataclass(frozen=True, repr=False)
class InterruptionSimulation(ArrivalRun):
    """Simulated mean number of jobs, mean delay, mean service rate and blocking per class, with their intervals.

    The fields are named as in :class:`~analytic.fairness.BalancedFairness`,
    :class:`~analytic.fairness.OIQueueLaw` and :class:`~analytic.fairness.RandomAssignment`, the exact
    results: compare ``exact.mean_response_time`` with ``sim.mean_response_time.value``.

    Attributes
    ----------
    mean_jobs : Estimates, shape (K,)
        Time-average number of jobs of each class (K = N classes, or 1 for random assignment: all
        jobs), with the half-widths at ``level``.
    mean_response_time : Estimates, shape (K,)
        δ_i, mean time in the system of the admitted class-i jobs (Little's law).
    mean_service_rate : Estimates, shape (K,)
        γ_i = σ/δ_i, work per unit time (half-width: δ_i's, carried over to first order).
    blocking : Estimates, shape (K,)
        Fraction of class-i arrivals lost (0 unless ``max_jobs`` was set).
    interruptions_per_job : float
        Interruptions per completed job during the measurement (≈ m).
    level, method, samples, arrivals, measured, replications, warmup, seed
        The run (:class:`~analytic.simulation.ArrivalRun`).
    interruptions : float
        m, the mean number of interruptions per job requested (θ = σ/m).
    size : SizeLaw
    arrival_rates : numpy.ndarray
    max_jobs : int or None

    Examples
    --------
    >>> from analytic.fairness import CompatibilityGraph, simulate_interruptions
    >>> sim = simulate_interruptions(CompatibilityGraph([[0, 2], [1, 2]]), [1.0, 1.0], interruptions=1.0,
    ...                              arrivals=20_000, seed=1)
    >>> len(sim.mean_response_time), sim.mean_response_time[1].samples
    (2, 20)
    """

    mean_jobs: Estimates
    mean_response_time: Estimates
    mean_service_rate: Estimates
    blocking: Estimates
    interruptions_per_job: float
    interruptions: float
    size: SizeLaw
    arrival_rates: np.ndarray
    max_jobs: int | None
    jobs = renamed_attribute("arrivals")
    mean_jobs_ci = renamed_attribute("mean_jobs.half_width")
    mean_delay_ci = renamed_attribute("mean_response_time.half_width")
    mean_service_rate_ci = renamed_attribute("mean_service_rate.half_width")
    mean_delay = renamed_attribute("mean_response_time")

    def _entry(self, old: str, field: str, label: int) -> Estimate:
        return renamed_entry("InterruptionSimulation", old, f"{field}[label]", getattr(self, field), "label", label)

    def delay_estimate(self, label: int = 0) -> Estimate:
        """Deprecated: use ``mean_response_time[label]``."""
        return self._entry("delay_estimate", "mean_response_time", label)

    def service_rate_estimate(self, label: int = 0) -> Estimate:
        """Deprecated: use ``mean_service_rate[label]``."""
        return self._entry("service_rate_estimate", "mean_service_rate", label)

    def jobs_estimate(self, label: int = 0) -> Estimate:
        """Deprecated: use ``mean_jobs[label]``."""
        return self._entry("jobs_estimate", "mean_jobs", label)

    def __repr__(self) -> str:
        return (f"InterruptionSimulation(m={self.interruptions:g}, mean_response_time={shown(self.mean_response_time, '.5g')}, "
                f"mean_service_rate={shown(self.mean_service_rate, '.5g')}, "
                f"interruptions_per_job={self.interruptions_per_job:.4g}, {self.samples} {self.method}, "
                f"{self.arrivals:,} arrivals)")


@dataclass(frozen=True)
class _Setup:
    """What a replication needs (picklable, for process and cluster executors)."""

    capacities: np.ndarray
    class_servers: np.ndarray | None     # (N, width) server indices, padded; None: d random servers per job
    class_counts: np.ndarray | None
    class_cumulative: np.ndarray | None  # cumulative arrival probabilities of the classes
    d: int                               # servers per job under random assignment
    labels: int
    total_rate: float
    law: SizeLaw
    theta: float                         # mean work between interruptions (inf: none)
    max_jobs: int
    arrivals: int
    warmup: int
    batches: int


@dataclass(frozen=True)
class _Tallies:
    area: np.ndarray          # (batches, labels): ∫ x_i dt
    duration: np.ndarray      # (batches,)
    arrivals: np.ndarray      # (batches, labels)
    admitted: np.ndarray      # (batches, labels)
    interrupted: np.ndarray   # (batches,)
    departed: np.ndarray      # (batches,)


def _random_servers(rng: np.random.Generator, count: int, servers: int, d: int) -> np.ndarray:
    """``count`` uniform d-subsets of range(servers), one per row (Floyd's algorithm, vectorized)."""
    chosen = np.empty((count, d), dtype=np.int64)
    for column, j in enumerate(range(servers - d, servers)):
        pick = rng.integers(0, j + 1, size=count)
        taken = (chosen[:, :column] == pick[:, None]).any(axis=1)
        chosen[:, column] = np.where(taken, j, pick)
    return chosen


def _replication(setup: _Setup, seed: np.random.SeedSequence) -> _Tallies:
    """One replication, from an empty system: streams for arrivals, classes/servers, sizes and interruptions."""
    arrival_rng, class_rng, size_rng, interrupt_rng = (np.random.default_rng(s) for s in seed.spawn(4))
    s, labels, batches = setup.capacities.size, setup.labels, setup.batches
    width = setup.d if setup.class_servers is None else setup.class_servers.shape[1]
    boundaries = np.append(batch_boundaries(setup.warmup, setup.arrivals, batches), np.iinfo(np.int64).max)
    pool = JobPool(_INITIAL_SLOTS, width)
    clock = np.zeros(1)
    state = np.array([0, _INITIAL_SLOTS, -1, 0], dtype=np.int64)
    head, tail = np.full(s, -1, dtype=np.int64), np.full(s, -1, dtype=np.int64)
    count, last = np.zeros(labels, dtype=np.int64), np.zeros(labels)
    area, start = np.zeros((batches, labels)), np.zeros(batches)
    arrivals, admitted = np.zeros((batches, labels), dtype=np.int64), np.zeros((batches, labels), dtype=np.int64)
    interrupted, departed = np.zeros(batches, dtype=np.int64), np.zeros(batches, dtype=np.int64)
    for first, n in chunks(setup.arrivals):
        pool.ensure(state, n)
        interarrival = arrival_rng.standard_exponential(n) / setup.total_rate
        if setup.class_servers is None:
            classes = np.zeros(n, dtype=np.int64)
            servers = _random_servers(class_rng, n, s, setup.d)
            widths = np.full(n, setup.d, dtype=np.int64)
        else:
            classes = np.minimum(np.searchsorted(setup.class_cumulative, class_rng.random(n), side="right"),
                                 setup.class_counts.size - 1).astype(np.int64)
            servers, widths = setup.class_servers[classes], setup.class_counts[classes]
        sizes = setup.law.sample(size_rng, n)
        advance(interarrival, classes, servers, widths, sizes, first, boundaries, setup.capacities, setup.theta,
                setup.max_jobs, interrupt_rng, clock, state, head, tail, pool.job_label, pool.job_servers, pool.job_width,
                pool.remaining, pool.to_interrupt, pool.rate, pool.since, pool.node_next, pool.node_prev, pool.heap_slot,
                pool.heap_key, pool.heap_pos, pool.free, count, last, area, start, arrivals, admitted, interrupted,
                departed)
    end = clock[0]
    area[batches - 1] += count * (end - last)
    return _Tallies(area, np.diff(np.append(start, end)), arrivals, admitted, interrupted, departed)


def _run(setup: _Setup, replications: int, seed: Any, executor: Executor | None, level: float,
         progress: bool | None, interruptions: float, arrival_rates: np.ndarray, max_jobs: int | None,
         arrivals: int) -> InterruptionSimulation:
    root, tallies = run_replications(_replication, setup, replications, seed, executor, progress,
                                     "Algorithm 1 replications")
    method, sums = pooled(tallies)
    area, duration, admitted, arriving = sums["area"], sums["duration"], sums["admitted"], sums["arrivals"]
    _check_measured(arriving.sum(axis=0), admitted.sum(axis=0), arrival_rates, max_jobs)
    sigma = setup.law.mean
    delay = estimates(area, level, method, admitted)
    # the admitted fraction's interval is the lost fraction's, mirrored: R(lost) = 1 - R(admitted)
    accepted = estimates(admitted, level, method, arriving)
    interrupted = sum(int(t.interrupted.sum()) for t in tallies)
    departed = sum(int(t.departed.sum()) for t in tallies)
    return InterruptionSimulation(
        mean_jobs=estimates(area, level, method, duration), mean_response_time=delay,
        mean_service_rate=Estimates(sigma / delay.value, sigma * delay.half_width / delay.value ** 2, level, method,
                                    len(area)),
        blocking=Estimates(1 - accepted.value, accepted.half_width, level, method, len(area)),
        interruptions_per_job=interrupted / max(departed, 1), interruptions=interruptions, size=setup.law,
        arrival_rates=arrival_rates, max_jobs=max_jobs, level=level, method=method, samples=len(area),
        replications=replications, warmup=setup.warmup, seed=root.entropy, arrivals=arrivals,
        measured=int(arriving.sum()))


def _check_measured(arrivals: np.ndarray, admitted: np.ndarray, rates: np.ndarray, max_jobs: int | None) -> None:
    """Refuse a class whose delay the run cannot estimate: no measured arrival, or every one lost."""
    for i in np.flatnonzero(admitted == 0):
        if arrivals[i] == 0:
            expected = arrivals.sum() * rates[i] / rates.sum()
            raise InvalidParameterError(f"arrival_rates[{i}]", float(rates[i]),
                                        f"is so small that no class-{i} job arrived among the {int(arrivals.sum()):,} "
                                        f"measured arrivals (about {expected:.3g} expected), so its delay cannot be "
                                        "estimated: raise arrivals, or leave the class out")
        raise InvalidParameterError("max_jobs", max_jobs, f"lost all {int(arrivals[i]):,} measured class-{i} arrivals, so "
                                                          "their delay cannot be estimated")


#: Largest mean number of interruptions per job simulated: each is an event of the loop, and the paper's
#: figures use m <= 5 (m → ∞ is balanced fairness, computed exactly by balanced_fairness).
MAX_INTERRUPTIONS = 1e3
def _common(size: Any, interruptions: Any, arrivals: Any, warmup: Any, replications: Any, executor: Any, level: Any,
            batches: Any, max_jobs: Any, arrival: tuple[str, float]) -> tuple[SizeLaw, float, float, int, int, int, int, int]:
    """Validate the parameters shared by both simulators (``arrival``: the name and value of the total arrival rate)."""
    law = size if isinstance(size, SizeLaw) else size_law(size)
    if not math.isfinite(law.mean):
        raise InvalidParameterError("size", size, "must have a finite mean")
    number = as_number(interruptions)
    if number is None or not 0 <= number < math.inf:
        raise InvalidParameterError("interruptions", interruptions, "must be a finite number >= 0 (mean interruptions per job)")
    if number > MAX_INTERRUPTIONS:      # compared before float(): an int may lie beyond the double range
        raise InvalidParameterError("interruptions", interruptions,
                                    f"must be at most {MAX_INTERRUPTIONS:g}: every interruption is an event of the run; "
                                    f"the limit of infinitely many is balanced fairness, exact in balanced_fairness()")
    interruptions = float(number)
    theta = law.mean / interruptions if interruptions > 0 else math.inf
    _, runs, k, per_run = split_jobs(arrivals, replications, batches, name="arrivals")
    skip = warmup_of(arrivals, warmup, per_run, runs, k, needed=None if runs == 1 else 1, name="arrivals")
    name, rate = arrival
    check_horizon(arrivals, per_run, rate * law.mean, (name, rate))
    check_executor(executor)
    confidence("level", level)
    # A bound beyond the 64-bit counters of the loop truncates nothing: a replication holds at most per_run jobs.
    limit = min(integer("max_jobs", max_jobs), per_run) if max_jobs is not None else per_run
    return law, float(interruptions), theta, runs, k, per_run, skip, limit


@run_control("arrivals")
@renamed_arguments(jobs="arrivals")
def simulate_interruptions(graph: CompatibilityGraph, arrival_rates: Any, size: SizeLaw | str = "exponential",
                           interruptions: float = 0.0, arrivals: int = 1_000_000, warmup: int | None = None,
                           replications: int = 1, seed: Any = None, executor: Executor | None = None, *,
                           level: float = 0.95, batches: int = 20, max_jobs: int | None = None,
                           progress: bool | None = None) -> InterruptionSimulation:
    """Simulate Algorithm 1 on a compatibility graph: mean delay and service rate of every class.

    Bonald & Comte, Section 4 (Algorithm 1) and Section 5 (the estimators of eq. (9)). With
    exponential sizes the aggregate law is π̄ of eq. (3) for every m, so the estimates match
    :func:`~analytic.fairness.balanced_fairness`; with other laws they approach it as m grows.

    Parameters
    ----------
    graph : CompatibilityGraph
        Capacities C_s in work per unit time.
    arrival_rates : sequence of float
        λ_i > 0, jobs per unit time; the load must satisfy Theorem 1.
    size : SizeLaw or str
        Job sizes (work units): a :class:`~analytic.simulation.SizeLaw` used as is (its mean is σ),
        or a name of :data:`~analytic.simulation.LAW_NAMES` (unit mean). The laws of Section 5 are
        in :data:`analytic.fairness.paper.SIZE_LAWS`.
    interruptions : float
        m >= 0, mean interruptions per job (θ = σ/m); 0 is FCFS per server.
    arrivals : (run control)
        At most 2**62 per replication (the event loop's 64-bit integers).
    warmup : (run control)
    replications : (run control)
    seed : (run control)
    executor : (run control)
    level : (run control)
    batches : (run control)
        At least 2.
    max_jobs : int, optional
        Arrivals finding this many jobs are lost (the truncation of
        :func:`~analytic.fairness.oi_queue_law`); default none.
    progress : (run control)

    Returns
    -------
    InterruptionSimulation

    Raises
    ------
    InvalidParameterError
        Bad rates, size law, m, counts, level or executor; a run longer than
        :data:`~analytic.simulation.clock.MAX_HORIZON` mean sizes; a class with no measured arrival
        (its rate too small for ``jobs``) or with all of them lost to ``max_jobs``.
    UnstableSystemError
        The rates violate Theorem 1 (without ``max_jobs``); the message names the set.

    Examples
    --------
    Exponential sizes, one interruption per job: the exact balanced-fairness delay lies in the
    interval.

    >>> from analytic.fairness import balanced_fairness, three_server_graph
    >>> from analytic.simulation import compare
    >>> graph = three_server_graph()
    >>> sim = simulate_interruptions(graph, [1.0, 1.0], interruptions=1.0, arrivals=200_000, seed=4)
    >>> compare(sim.mean_response_time[0], balanced_fairness(graph, [1.0, 1.0]).mean_response_time[0]).verdict
    'agrees'
    """
    rates = check_rates("arrival_rates", arrival_rates, graph)
    with np.errstate(over="ignore"):
        total = float(rates.sum())
    if not math.isfinite(total):
        raise InvalidParameterError("arrival_rates", arrival_rates, "must have a finite sum (the total arrival rate)")
    law, m, theta, runs, k, per_run, skip, limit = _common(size, interruptions, arrivals, warmup, replications, executor,
                                                           level, batches, max_jobs, ("arrival_rates", total))
    if max_jobs is None:
        load = stability(graph, rates * law.mean)
        if not load.stable:
            raise unstable_error(load.bottleneck, load.arrival_rate, load.service_rate, "a stationary regime to simulate",
                                 "arrival rate × mean size")
    width = max(len(s) for s in graph.server_sets)
    table = np.zeros((graph.n_classes, width), dtype=np.int64)
    for i, servers in enumerate(graph.server_sets):
        table[i, :len(servers)] = servers
    cumulative = np.cumsum(rates) / total
    cumulative[-1] = 1.0
    setup = _Setup(graph.capacities, table, np.array([len(s) for s in graph.server_sets], dtype=np.int64), cumulative,
                   0, graph.n_classes, total, law, theta, limit, per_run, skip, k)
    return _run(setup, runs, seed, executor, level, progress, m, rates, max_jobs, per_run * runs)


@renamed_arguments(jobs="arrivals")
def simulate_random_assignment(servers: int, d: int, arrival_rate: float, size: SizeLaw | str = "exponential",
                               interruptions: float = 0.0, arrivals: int = 1_000_000, warmup: int | None = None,
                               replications: int = 1, seed: Any = None, executor: Executor | None = None, *,
                               level: float = 0.95, batches: int = 20, max_jobs: int | None = None,
                               progress: bool | None = None) -> InterruptionSimulation:
    """Simulate Algorithm 1 when each job is assigned d of S unit servers uniformly at random.

    Bonald & Comte, Section 5, Figures 3–4. Each arriving job draws its d servers (Floyd's
    algorithm); the C(S, d) classes are never built. The results have one entry: all jobs
    (every class has the same law). Compare with :func:`~analytic.fairness.random_assignment`.

    Parameters
    ----------
    servers, d, arrival_rate
        As in :func:`~analytic.fairness.random_assignment` (S, d and the total λ; the load λσ/S must be
        below 1 unless ``max_jobs`` is set).
    size, interruptions, arrivals, warmup, replications, seed, executor, level, batches, max_jobs, progress
        As in :func:`simulate_interruptions`.

    Returns
    -------
    InterruptionSimulation

    Raises
    ------
    InvalidParameterError, UnstableSystemError

    Examples
    --------
    >>> from analytic.fairness import random_assignment
    >>> from analytic.simulation import compare
    >>> sim = simulate_random_assignment(100, 2, 60.0, interruptions=1.0, arrivals=200_000, seed=2)
    >>> compare(sim.mean_response_time[0], random_assignment(100, 2, 60.0).mean_response_time).verdict
    'agrees'
    """
    s, k_servers = check_servers_d(servers, d)
    lam = positive("arrival_rate", arrival_rate)
    law, m, theta, runs, k, per_run, skip, limit = _common(size, interruptions, arrivals, warmup, replications, executor,
                                                           level, batches, max_jobs, ("arrival_rate", lam))
    if max_jobs is None and lam * law.mean >= s:
        raise UnstableSystemError("load λσ/S", lam * law.mean / s, 1.0, "Theorem 1 with random assignment")
    require(64 * s, f"the state of {s} servers", s)
    setup = _Setup(np.ones(s), None, None, None, k_servers, 1, lam, law, theta, limit, per_run, skip, k)
    return _run(setup, runs, seed, executor, level, progress, m, np.array([lam]), max_jobs, per_run * runs)
