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

from analytic._kernels import kernel
from analytic.errors import InvalidParameterError, UnstableSystemError
from analytic.fairness.graph import CompatibilityGraph, check_rates
from analytic.fairness.stability import stability, unstable_error
from analytic.memory import require
from analytic.simulation import (
    Estimate,
    SizeLaw,
    check_executor,
    chunks,
    size_law,
)
from analytic.simulation._runs import column_estimates, pooled, run_control, run_replications, split_jobs, warmup_of
from analytic.simulation.clock import check_horizon
from analytic.validation import as_number, confidence, integer, positive

__all__ = ["InterruptionSimulation", "simulate_interruptions", "simulate_random_assignment"]

#: Most arrivals per replication: the event loop counts them (and the batch boundaries) in 64-bit integers.
_MAX_ARRIVALS = 2**62

#: Initial number of job slots of a replication (doubled whenever a chunk of arrivals might not fit).
_INITIAL_SLOTS = 1 << 12

# Positions in the integer state vector of a replication.
_HEAP, _FREE, _BATCH, _JOBS = range(4)


@dataclass(frozen=True, repr=False)
class InterruptionSimulation:
    """Simulated mean number of jobs, mean delay and mean service rate per class, with half-widths.

    Attributes
    ----------
    mean_jobs, mean_jobs_ci : numpy.ndarray, shape (K,)
        Time-average number of jobs of each class (K = N classes, or 1 for random assignment: all
        jobs), and the half-widths at ``level``.
    mean_delay, mean_delay_ci : numpy.ndarray, shape (K,)
        δ_i, mean time in the system of the admitted class-i jobs (Little's law).
    mean_service_rate, mean_service_rate_ci : numpy.ndarray, shape (K,)
        γ_i = σ/δ_i, work per unit time.
    blocking : numpy.ndarray, shape (K,)
        Fraction of class-i arrivals lost (0 unless ``max_jobs`` was set).
    interruptions_per_job : float
        Interruptions per completed job during the measurement (≈ m).
    level : float
    method : str
        ``"independent replications"`` or ``"batch means"``.
    samples : int
        Replications or batches behind the intervals.
    jobs : int
        Arrivals simulated (all replications, warm-ups included).
    warmup : int
        Arrivals discarded at the start of each replication.
    replications : int
    seed : int or tuple of int
        Entropy of the root ``SeedSequence`` (pass it as ``seed`` to repeat the run).
    interruptions : float
        m, the mean number of interruptions per job requested (θ = σ/m).
    size : SizeLaw
    arrival_rates : numpy.ndarray
    max_jobs : int or None

    Examples
    --------
    >>> from analytic.fairness import CompatibilityGraph, simulate_interruptions
    >>> sim = simulate_interruptions(CompatibilityGraph([[0, 2], [1, 2]]), [1.0, 1.0], interruptions=1.0, jobs=20_000, seed=1)
    >>> sim.mean_delay.shape
    (2,)
    """

    mean_jobs: np.ndarray
    mean_jobs_ci: np.ndarray
    mean_delay: np.ndarray
    mean_delay_ci: np.ndarray
    mean_service_rate: np.ndarray
    mean_service_rate_ci: np.ndarray
    blocking: np.ndarray
    interruptions_per_job: float
    level: float
    method: str
    samples: int
    jobs: int
    warmup: int
    replications: int
    seed: Any
    interruptions: float
    size: SizeLaw
    arrival_rates: np.ndarray
    max_jobs: int | None

    def _estimate(self, values: np.ndarray, half_widths: np.ndarray, label: int) -> Estimate:
        k = integer("label", label, minimum=0)
        if k >= values.size:
            raise InvalidParameterError("label", label, f"must be below {values.size} (one per class)")
        return Estimate(float(values[k]), float(half_widths[k]), self.level, self.method, self.samples)

    def delay_estimate(self, label: int = 0) -> Estimate:
        """δ of class ``label`` as an :class:`~analytic.simulation.Estimate` (for :func:`~analytic.simulation.compare`).

        Parameters
        ----------
        label : int
            The class (0 for the single class of a random-assignment system).

        Returns
        -------
        Estimate

        Examples
        --------
        >>> from analytic.fairness import CompatibilityGraph, simulate_interruptions
        >>> sim = simulate_interruptions(CompatibilityGraph([[0, 2], [1, 2]]), [1.0, 1.0], jobs=20_000, seed=1)
        >>> sim.delay_estimate(1).samples
        20
        """
        return self._estimate(self.mean_delay, self.mean_delay_ci, label)

    def service_rate_estimate(self, label: int = 0) -> Estimate:
        """γ of class ``label`` as an :class:`~analytic.simulation.Estimate`.

        Parameters
        ----------
        label : int
            The class (0 for the single class of a random-assignment system).

        Returns
        -------
        Estimate

        Examples
        --------
        >>> from analytic.fairness import CompatibilityGraph, simulate_interruptions
        >>> sim = simulate_interruptions(CompatibilityGraph([[0, 2], [1, 2]]), [1.0, 1.0], jobs=20_000, seed=1)
        >>> sim.service_rate_estimate(1).samples
        20
        """
        return self._estimate(self.mean_service_rate, self.mean_service_rate_ci, label)

    def jobs_estimate(self, label: int = 0) -> Estimate:
        """E[x] of class ``label`` as an :class:`~analytic.simulation.Estimate`.

        Parameters
        ----------
        label : int
            The class (0 for the single class of a random-assignment system).

        Returns
        -------
        Estimate

        Examples
        --------
        >>> from analytic.fairness import CompatibilityGraph, simulate_interruptions
        >>> sim = simulate_interruptions(CompatibilityGraph([[0, 2], [1, 2]]), [1.0, 1.0], jobs=20_000, seed=1)
        >>> sim.jobs_estimate(1).samples
        20
        """
        return self._estimate(self.mean_jobs, self.mean_jobs_ci, label)

    def __repr__(self) -> str:
        def show(values: np.ndarray, half: np.ndarray) -> str:
            return "[" + ", ".join(f"{v:.5g} ± {h:.2g}" for v, h in zip(values, half, strict=True)) + "]"

        return (f"InterruptionSimulation(m={self.interruptions:g}, mean_delay={show(self.mean_delay, self.mean_delay_ci)}, "
                f"mean_service_rate={show(self.mean_service_rate, self.mean_service_rate_ci)}, "
                f"interruptions_per_job={self.interruptions_per_job:.4g}, {self.samples} {self.method}, "
                f"{self.jobs:,} arrivals)")


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


@kernel
def _advance(interarrival, labels, servers, widths, sizes, first, boundaries, capacities, theta, max_jobs, rng,
             clock, state, head, tail, job_label, job_servers, job_width, remaining, to_interrupt, rate, since,
             node_next, node_prev, heap_slot, heap_key, heap_pos, free, count, last, area, start, arrivals, admitted,
             interrupted, departed):
    """Process the arrivals ``first .. first + len(interarrival) - 1`` and the events before each.

    ``clock[0]`` is the time of the last arrival; ``state`` = (jobs in the event heap, free slots,
    batch or -1 during the warm-up, jobs in the system). Batch k starts at arrival ``boundaries[k]``.

    Why one function without helpers: numba counts references to every array handed to another
    compiled function, inlined or not (an atomic increment and decrement per array per call), and
    with the heap, the per-server lists and the work of the jobs passed to a helper at every step,
    that counting took most of the time. Here the arrays are unpacked once per chunk of arrivals
    and every step of the loop only indexes them.

    The loop is a small state machine so that the heap is updated in one place: a step of Algorithm
    1 (a job leaving service at the top of the heap, the end of its service or interruption, an
    arrival) lists the rate changes it causes, each an amount added to a job's rate (a job leaving
    service: minus its rate; the next job of a list that it headed: the server's capacity; a job
    joining the end of the queue: the capacity of the servers it heads at once), and the next pass
    applies them in that order: bring the job's work up to date at its old rate, then move its next
    event in the heap (remove it when the job holds no server). The changes are those, and in the
    order, of Algorithm 1 served one at a time, so the numbers do not depend on this arrangement.
    """
    width = job_servers.shape[1]
    n = interarrival.shape[0]
    t = clock[0]
    heap_size, n_free, b, jobs = state[_HEAP], state[_FREE], state[_BATCH], state[_JOBS]
    change_slot = np.empty(width + 1, dtype=np.int64)      # pending rate changes: at most one per server, plus one
    change_rate = np.empty(width + 1)
    changes = 0
    retiring = -1                                         # job at the top of the heap, its work up to date
    j = 0
    arrival_time = t + interarrival[0] if n > 0 else t
    while True:
        for c in range(changes):
            slot = change_slot[c]
            new_rate = rate[slot] + change_rate[c]
            done = rate[slot] * (t - since[slot])
            remaining[slot] -= done
            to_interrupt[slot] -= done
            since[slot] = t
            rate[slot] = new_rate
            key = np.inf
            if new_rate > 0.0:
                key = t + max(min(remaining[slot], to_interrupt[slot]), 0.0) / new_rate
            position = heap_pos[slot]
            if key == np.inf:                             # out of service: the heap's last entry fills its place
                if position < 0:
                    continue
                heap_pos[slot] = -1
                heap_size -= 1
                if position == heap_size:
                    continue
                slot, key = heap_slot[heap_size], heap_key[heap_size]
            elif position < 0:
                position = heap_size
                heap_size += 1
            while position > 0:                           # sift (slot, key) up from position, then down
                parent = (position - 1) >> 1
                if heap_key[parent] <= key:
                    break
                heap_slot[position], heap_key[position] = heap_slot[parent], heap_key[parent]
                heap_pos[heap_slot[position]] = position
                position = parent
            while True:
                child = 2 * position + 1
                if child >= heap_size:
                    break
                if child + 1 < heap_size and heap_key[child + 1] < heap_key[child]:
                    child += 1
                if heap_key[child] >= key:
                    break
                heap_slot[position], heap_key[position] = heap_slot[child], heap_key[child]
                heap_pos[heap_slot[position]] = position
                position = child
            heap_slot[position], heap_key[position] = slot, key
            heap_pos[slot] = position
        changes = 0
        entering, label, step = -1, -1, 0                 # a job joining the queue; a class whose count steps
        if retiring >= 0:
            # Out of every list: the next job of each list it headed gets that server (node slot * width + k
            # stands for the job's k-th server; a job holds a server exactly when it heads that server's list).
            event, retiring = retiring, -1
            for k in range(job_width[event]):
                s = job_servers[event, k]
                node = event * width + k
                before, after = node_prev[node], node_next[node]
                if before >= 0:
                    node_next[before] = after
                else:
                    head[s] = after
                if after >= 0:
                    node_prev[after] = before
                else:
                    tail[s] = before
                if before < 0 and after >= 0 and capacities[s] > 0.0:
                    change_slot[changes], change_rate[changes] = after // width, capacities[s]
                    changes += 1
            if remaining[event] <= to_interrupt[event]:
                label, step = job_label[event], -1
                free[n_free] = event
                n_free += 1
                if b >= 0:
                    departed[b] += 1
            else:
                to_interrupt[event] = np.inf if theta == np.inf else theta * rng.standard_exponential()
                entering = event
                if b >= 0:
                    interrupted[b] += 1
        elif j == n:
            break
        elif heap_size > 0 and heap_key[0] <= arrival_time:
            t = heap_key[0]
            retiring = heap_slot[0]
            change_slot[0], change_rate[0] = retiring, -rate[retiring]
            changes = 1
            continue
        else:
            t = arrival_time
            if first + j == boundaries[b + 1]:
                for c in range(count.shape[0]):
                    if b >= 0:
                        area[b, c] += count[c] * (t - last[c])
                    last[c] = t
                b += 1
                start[b] = t
            if b >= 0:
                arrivals[b, labels[j]] += 1
            if jobs < max_jobs:
                if b >= 0:
                    admitted[b, labels[j]] += 1
                n_free -= 1
                entering = free[n_free]
                label, step = labels[j], 1
                job_label[entering] = label
                job_width[entering] = widths[j]
                for k in range(widths[j]):
                    job_servers[entering, k] = servers[j, k]
                remaining[entering] = sizes[j]
                to_interrupt[entering] = np.inf if theta == np.inf else theta * rng.standard_exponential()
                rate[entering] = 0.0
                since[entering] = t
            j += 1
            if j < n:
                arrival_time = t + interarrival[j]
        if entering >= 0:                                 # to the end of the queue, with the servers it heads
            held = 0.0
            for k in range(job_width[entering]):
                s = job_servers[entering, k]
                node = entering * width + k
                node_next[node] = -1
                node_prev[node] = tail[s]
                if tail[s] >= 0:
                    node_next[tail[s]] = node
                else:
                    head[s] = node
                tail[s] = node
                if head[s] == node:
                    held += capacities[s]
            change_slot[changes], change_rate[changes] = entering, held
            changes += 1
        if step != 0:                                     # ∫ x_label dt up to t, then x_label changes
            if b >= 0:
                area[b, label] += count[label] * (t - last[label])
            last[label] = t
            count[label] += step
            jobs += step
    state[_HEAP], state[_FREE], state[_BATCH], state[_JOBS] = heap_size, n_free, b, jobs
    clock[0] = t


class _Pool:
    """Per-job arrays of a replication, grown (doubled) before a chunk of arrivals could overflow them."""

    _FLOAT = ("remaining", "to_interrupt", "rate", "since", "heap_key")
    _INT = ("job_label", "job_width", "heap_slot")
    _LINKS = ("heap_pos", "node_next", "node_prev")

    def __init__(self, slots: int, width: int) -> None:
        self.width = width
        for name in self._FLOAT:
            setattr(self, name, np.zeros(slots))
        for name in self._INT:
            setattr(self, name, np.zeros(slots, dtype=np.int64))
        self.heap_pos = np.full(slots, -1, dtype=np.int64)
        self.node_next = np.full(slots * width, -1, dtype=np.int64)
        self.node_prev = np.full(slots * width, -1, dtype=np.int64)
        self.job_servers = np.zeros((slots, width), dtype=np.int64)
        self.free = np.arange(slots - 1, -1, -1, dtype=np.int64)

    def ensure(self, state: np.ndarray, needed: int) -> None:
        """Enlarge every array so that ``needed`` more jobs fit (slots and nodes keep their indices)."""
        if state[_FREE] >= needed:
            return
        size = self.rate.size
        extra = max(size, needed)
        for name in self._FLOAT + self._INT:
            setattr(self, name, np.concatenate([getattr(self, name), np.zeros(extra, getattr(self, name).dtype)]))
        self.heap_pos = np.concatenate([self.heap_pos, np.full(extra, -1, dtype=np.int64)])
        for name in ("node_next", "node_prev"):
            setattr(self, name, np.concatenate([getattr(self, name), np.full(extra * self.width, -1, dtype=np.int64)]))
        self.job_servers = np.concatenate([self.job_servers, np.zeros((extra, self.width), dtype=np.int64)])
        top = int(state[_FREE])
        self.free = np.concatenate([self.free[:top], np.arange(size + extra - 1, size - 1, -1, dtype=np.int64)])
        state[_FREE] = top + extra


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
    measured = setup.arrivals - setup.warmup
    boundaries = setup.warmup + (np.arange(batches + 1, dtype=np.int64) * measured + batches - 1) // batches
    boundaries = np.append(boundaries, np.iinfo(np.int64).max)
    pool = _Pool(_INITIAL_SLOTS, width)
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
        _advance(interarrival, classes, servers, widths, sizes, first, boundaries, setup.capacities, setup.theta,
                 setup.max_jobs, interrupt_rng, clock, state, head, tail, pool.job_label, pool.job_servers, pool.job_width,
                 pool.remaining, pool.to_interrupt, pool.rate, pool.since, pool.node_next, pool.node_prev, pool.heap_slot,
                 pool.heap_key, pool.heap_pos, pool.free, count, last, area, start, arrivals, admitted, interrupted,
                 departed)
    end = clock[0]
    area[batches - 1] += count * (end - last)
    return _Tallies(area, np.diff(np.append(start, end)), arrivals, admitted, interrupted, departed)


def _run(setup: _Setup, replications: int, seed: Any, executor: Executor | None, level: float,
         progress: bool | None, interruptions: float, arrival_rates: np.ndarray, max_jobs: int | None,
         jobs: int) -> InterruptionSimulation:
    root, tallies = run_replications(_replication, setup, replications, seed, executor, progress,
                                     "Algorithm 1 replications")
    method, sums = pooled(tallies)
    area, duration, admitted, arrivals = sums["area"], sums["duration"], sums["admitted"], sums["arrivals"]
    _check_measured(arrivals.sum(axis=0), admitted.sum(axis=0), arrival_rates, max_jobs)
    sigma = setup.law.mean
    mean_jobs, mean_jobs_ci = column_estimates(area, level, method, duration)
    delay, delay_ci = column_estimates(area, level, method, admitted)
    interrupted = sum(int(t.interrupted.sum()) for t in tallies)
    departed = sum(int(t.departed.sum()) for t in tallies)
    return InterruptionSimulation(
        mean_jobs, mean_jobs_ci, delay, delay_ci,
        sigma / delay, sigma * delay_ci / delay ** 2, 1 - admitted.sum(axis=0) / arrivals.sum(axis=0),
        interrupted / max(departed, 1), level, method, area.shape[0], jobs, setup.warmup, replications,
        root.entropy, interruptions, setup.law, arrival_rates, max_jobs)


def _check_measured(arrivals: np.ndarray, admitted: np.ndarray, rates: np.ndarray, max_jobs: int | None) -> None:
    """Refuse a class whose delay the run cannot estimate: no measured arrival, or every one lost."""
    for i in np.flatnonzero(admitted == 0):
        if arrivals[i] == 0:
            expected = arrivals.sum() * rates[i] / rates.sum()
            raise InvalidParameterError(f"arrival_rates[{i}]", float(rates[i]),
                                        f"is so small that no class-{i} job arrived among the {int(arrivals.sum()):,} "
                                        f"measured arrivals (about {expected:.3g} expected), so its delay cannot be "
                                        "estimated: raise jobs, or leave the class out")
        raise InvalidParameterError("max_jobs", max_jobs, f"lost all {int(arrivals[i]):,} measured class-{i} arrivals, so "
                                                          "their delay cannot be estimated")


#: Largest mean number of interruptions per job simulated: each is an event of the loop, and the paper's
#: figures use m <= 5 (m → ∞ is balanced fairness, computed exactly by balanced_fairness).
MAX_INTERRUPTIONS = 1e3
def _common(size: Any, interruptions: Any, jobs: Any, warmup: Any, replications: Any, executor: Any, level: Any,
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
    _, runs, k, per_run = split_jobs(jobs, replications, batches)
    if per_run > _MAX_ARRIVALS:
        raise InvalidParameterError("jobs", jobs, f"must be at most {_MAX_ARRIVALS:,} per replication (jobs // replications "
                                                  "= arrivals, counted by the event loop in 64-bit integers)")
    skip = warmup_of(jobs, warmup, per_run, runs, k, needed=None if runs == 1 else 1)
    name, rate = arrival
    check_horizon(jobs, per_run, rate * law.mean, (name, rate))
    check_executor(executor)
    confidence("level", level)
    # A bound beyond the 64-bit counters of the loop truncates nothing: a replication holds at most per_run jobs.
    limit = min(integer("max_jobs", max_jobs), per_run) if max_jobs is not None else per_run
    return law, float(interruptions), theta, runs, k, per_run, skip, limit


@run_control("arrivals")
def simulate_interruptions(graph: CompatibilityGraph, arrival_rates: Any, size: SizeLaw | str = "exponential",
                           interruptions: float = 0.0, jobs: int = 1_000_000, warmup: int | None = None,
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
    jobs : (run control)
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
    >>> sim = simulate_interruptions(graph, [1.0, 1.0], interruptions=1.0, jobs=200_000, seed=4)
    >>> compare(sim.delay_estimate(0), balanced_fairness(graph, [1.0, 1.0]).mean_delay[0]).verdict
    'agrees'
    """
    rates = check_rates("arrival_rates", arrival_rates, graph)
    with np.errstate(over="ignore"):
        total = float(rates.sum())
    if not math.isfinite(total):
        raise InvalidParameterError("arrival_rates", arrival_rates, "must have a finite sum (the total arrival rate)")
    law, m, theta, runs, k, per_run, skip, limit = _common(size, interruptions, jobs, warmup, replications, executor,
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


def simulate_random_assignment(servers: int, d: int, arrival_rate: float, size: SizeLaw | str = "exponential",
                               interruptions: float = 0.0, jobs: int = 1_000_000, warmup: int | None = None,
                               replications: int = 1, seed: Any = None, executor: Executor | None = None, *,
                               level: float = 0.95, batches: int = 20, max_jobs: int | None = None,
                               progress: bool | None = None) -> InterruptionSimulation:
    """Simulate Algorithm 1 when each job is assigned d of S unit servers uniformly at random.

    Bonald & Comte, Section 5, Figures 3–4. Each arriving job draws its d servers (Floyd's
    algorithm); the C(S, d) classes are never built. The results have one entry: all jobs
    (every class has the same law). Compare with :func:`~analytic.fairness.random_assignment`.

    Parameters
    ----------
    servers : int
        S >= 1 unit-capacity servers.
    d : int
        Servers per job, 1 <= d <= S.
    arrival_rate : float
        λ > 0, total jobs per unit time (load λσ/S < 1 unless ``max_jobs`` is set).
    size, interruptions, jobs, warmup, replications, seed, executor, level, batches, max_jobs, progress
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
    >>> sim = simulate_random_assignment(100, 2, 60.0, interruptions=1.0, jobs=200_000, seed=2)
    >>> compare(sim.delay_estimate(), random_assignment(100, 2, 60.0).mean_delay).verdict
    'agrees'
    """
    s = integer("servers", servers)
    k_servers = integer("d", d)
    if k_servers > s:
        raise InvalidParameterError("d", d, f"must be <= servers = {s}")
    lam = positive("arrival_rate", arrival_rate)
    law, m, theta, runs, k, per_run, skip, limit = _common(size, interruptions, jobs, warmup, replications, executor,
                                                           level, batches, max_jobs, ("arrival_rate", lam))
    if max_jobs is None and lam * law.mean >= s:
        raise UnstableSystemError("load λσ/S", lam * law.mean / s, 1.0, "Theorem 1 with random assignment")
    require(64 * s, f"the state of {s} servers", s)
    setup = _Setup(np.ones(s), None, None, None, k_servers, 1, lam, law, theta, limit, per_run, skip, k)
    return _run(setup, runs, seed, executor, level, progress, m, np.array([lam]), max_jobs, per_run * runs)
