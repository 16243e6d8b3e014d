"""Simulation of the loss system of greedy(p) for any job-size law (Ghanbarian et al., Section 7).

The model of :mod:`analytic.moldable.greedy`, with general sizes: ``n`` servers; jobs arrive as a
Poisson process of rate ``n λ`` with i.i.d. inherent sizes ``S`` (unit mean by default); an arrival
that finds ``j >= 1`` idle servers draws ``i`` with probability ``p_i`` and gets ``min(i, j)``
servers, on which it runs for ``S / s_min(i, j)``; with ``j = 0`` it is lost. With exponential sizes
the simulator and :func:`~analytic.moldable.greedy_metrics` describe the same chain, which is how the
simulator is checked.

The event loop is compiled with numba (``NUMBA_DISABLE_JIT=1`` runs it in Python with the same
numbers): the departures wait in an array heap, interarrival times, sizes and allocation draws come
in chunks from three independent streams (so two schemes simulated with one seed see the same
arrivals and sizes), and each replication tallies blocked arrivals, execution times and the
time-integral of the occupancy per batch of arrivals.

Estimators (per replication, after the warm-up of ``warmup`` arrivals):

* ``blocking`` = blocked arrivals / arrivals (PASTA: the time-stationary ``P_b``);
* ``mean_response_time`` = mean of ``S / s_i`` over the accepted jobs (``E[D]``, eq. 4); with
  ``response_time_of="completed"``, over the jobs that completed before the last arrival instead —
  the estimator that a simulation logging departures yields, which under-weights long jobs;
* ``mean_occupancy[i - 1]`` = time-average of ``X_i / n`` (jobs on ``i`` servers per server).

With several replications, the intervals come from the replication means (Student-t); with one,
from ``batches`` batch means of the run. A run starts either empty (as Ghanbarian et al. do) or,
by default, near equilibrium: ``X_i`` independent Poisson with the fluid means ``n c p_i / s_i``
(``c = min(λ, 1 / Σ_i i p_i / s_i)``), conditioned on ``Σ i X_i <= n``, and residual sizes drawn
from the stationary-excess law. For a single allocation size ``m`` dividing ``n`` (the linear
speed-up of Table 1) this is exactly the stationary law of the Erlang loss system, for any size
law; elsewhere the warm-up removes the rest of the initial bias. Heavy tails make the start
matter: from empty, the occupancy of a Pareto(1.5) system approaches equilibrium only like
``t^(-1/2)``.
"""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass

import numpy as np

from analytic._deprecation import renamed_arguments, renamed_attribute, renamed_entry, warn
from analytic._kernels import kernel
from analytic.errors import InvalidParameterError
from analytic.memory import require
from analytic.moldable.greedy import fluid_point, resolve_p
from analytic.moldable.occupancy import check_rate_per_server
from analytic.simulation import (
    Estimate,
    Estimates,
    SizeLaw,
    check_executor,
    chunks,
    heap_pop,
    heap_push,
    ratio_estimate,
    size_law,
)
from analytic.simulation._runs import (
    batch_boundaries,
    estimates,
    integrate,
    pooled,
    run_control,
    run_replications,
    shown,
    split_jobs,
    warmup_of,
)
from analytic.simulation.runs import ArrivalRun
from analytic.speedup import SpeedupTable
from analytic.validation import confidence, integer

__all__ = ["MoldableSimulation", "simulate_moldable"]

#: Ways to start a replication.
STARTS = ("equilibrium", "empty")
#: Which jobs ``mean_response_time`` averages over.
RESPONSE_TIME_OF = ("accepted", "completed")
#: Bytes of the per-server arrays of one replication (heap keys and items, a job's servers, start
#: time and batch, the free list), checked before a replication allocates them.
SLOT_BYTES = 6 * 8
#: Attempts at drawing Poisson counts that fit in ``n`` servers before starting at the fluid point.
START_ATTEMPTS = 1000
#: Batches of a single replication's batch means, by default.
BATCHES = 20


@dataclass(frozen=True, repr=False)
class MoldableSimulation(ArrivalRun):
    """Simulated blocking, mean execution time and occupancy of greedy(p), each with its confidence interval.

    The fields are named as in :class:`~analytic.moldable.GreedyMetrics`, the exact result of the
    same model: compare ``exact.blocking`` with ``sim.blocking.value``.

    Attributes
    ----------
    blocking : Estimate
        ``P_b``, with the half-width of its interval at ``level``.
    mean_response_time : Estimate
        ``E[D]``, mean execution time of accepted (or completed, see ``response_time_of``) jobs.
    mean_occupancy : Estimates
        Time-average ``E[X_i] / n``, indexed like the speed-up's values.
    level, method, samples, arrivals, measured, replications, warmup, seed
        The run (:class:`~analytic.simulation.ArrivalRun`).
    p : numpy.ndarray
        The allocation probabilities used.
    size : SizeLaw
    start : str
    response_time_of : str
    servers : int
    rate_per_server : float

    Examples
    --------
    >>> from analytic.moldable import simulate_moldable
    >>> from analytic.speedup import SpeedupTable
    >>> sim = simulate_moldable(SpeedupTable([1.0]), 0.7, 10, arrivals=20_000, seed=1)   # M/M/10/10 at load 7
    >>> sim.blocking.samples, sim.method, sim.mean_occupancy[0].samples
    (20, 'batch means', 20)
    """

    blocking: Estimate
    mean_response_time: Estimate
    mean_occupancy: Estimates
    p: np.ndarray
    size: SizeLaw
    start: str
    response_time_of: str
    servers: int
    rate_per_server: float
    arrival_rate = renamed_attribute("rate_per_server")
    jobs = renamed_attribute("arrivals")
    blocking_ci = renamed_attribute("blocking.half_width")
    mean_time_ci = renamed_attribute("mean_response_time.half_width")
    mean_occupancy_ci = renamed_attribute("mean_occupancy.half_width")
    mean_time = renamed_attribute("mean_response_time")

    @property
    def blocking_estimate(self) -> Estimate:
        """Deprecated: use :attr:`blocking`."""
        warn("MoldableSimulation.blocking_estimate", "MoldableSimulation.blocking")
        return self.blocking

    @property
    def mean_time_estimate(self) -> Estimate:
        """Deprecated: use :attr:`mean_response_time`."""
        warn("MoldableSimulation.mean_time_estimate", "MoldableSimulation.mean_response_time")
        return self.mean_response_time

    def occupancy_estimate(self, servers: int) -> Estimate:
        """Deprecated: use ``mean_occupancy[servers - 1]``."""
        return renamed_entry("MoldableSimulation", "occupancy_estimate", "mean_occupancy[servers - 1]",
                             self.mean_occupancy, "servers", servers, first=1)

    def __repr__(self) -> str:
        return (f"MoldableSimulation(servers={self.servers}, blocking={shown(self.blocking)}, "
                f"mean_response_time={shown(self.mean_response_time)}, mean_occupancy={shown(self.mean_occupancy)}, "
                f"level={self.level:.0%}, {self.samples} {self.method}, measured={self.measured:,} of "
                f"{self.arrivals:,} arrivals)")


@dataclass(frozen=True)
class _Setup:
    """What a replication needs (picklable, for process and cluster executors)."""

    servers: int
    rate_per_server: float
    speeds: np.ndarray
    p: np.ndarray
    law: SizeLaw
    arrivals: int
    warmup: int
    batches: int
    start: str


@dataclass(frozen=True)
class _Tallies:
    """Per-batch sums of one replication."""

    arrivals: np.ndarray
    blocked: np.ndarray
    counted: np.ndarray
    time_sum: np.ndarray
    area: np.ndarray          # (batches, d + 1): time-integral of X_i, column i
    duration: np.ndarray
    completed_sum: np.ndarray
    completed: np.ndarray


@kernel
def _place(allocation, remaining, state, X, keys, items, slot_servers, slot_time, slot_batch, free):
    """Put jobs already in service at time 0 (not counted in any estimate) into the system."""
    busy, size, n_free = state[0], state[1], state[2]
    for k in range(allocation.shape[0]):
        a = allocation[k]
        n_free -= 1
        slot = free[n_free]
        slot_servers[slot] = a
        slot_time[slot] = remaining[k]
        slot_batch[slot] = -1
        size = heap_push(keys, items, size, remaining[k], slot)
        X[a] += 1
        busy += a
    state[0], state[1], state[2] = busy, size, n_free


@kernel
def _advance(interarrival, requested, sizes, first, n, speeds, boundaries, clock, state, X, last, keys, items,
             slot_servers, slot_time, slot_batch, free, arrivals, blocked, counted, time_sum, area, start,
             completed_sum, completed):
    """Process one chunk of arrivals ``first .. first + len(interarrival) - 1`` of a replication.

    ``state`` holds (busy servers, heap size, free slots, current batch or -1 during the warm-up);
    ``clock[0]`` the time of the last arrival; ``X[i]`` the jobs on ``i`` servers and ``last[i]``
    the time up to which ``X[i]`` has been integrated; batch ``k`` starts at arrival
    ``boundaries[k]`` (``boundaries[0]`` = the warm-up, ``boundaries[-1]`` = all arrivals).
    """
    t = clock[0]
    busy, size, n_free, b = state[0], state[1], state[2], state[3]
    for j in range(interarrival.shape[0]):
        t += interarrival[j]
        while size > 0 and keys[0] <= t:
            when, slot, size = heap_pop(keys, items, size)
            a = slot_servers[slot]
            if b >= 0:
                area[b, a] += X[a] * (when - last[a])
                last[a] = when
            if slot_batch[slot] >= 0:
                completed_sum[slot_batch[slot]] += slot_time[slot]
                completed[slot_batch[slot]] += 1
            X[a] -= 1
            busy -= a
            free[n_free] = slot
            n_free += 1
        if first + j == boundaries[b + 1]:
            integrate(X, last, area, b, t)
            b += 1
            start[b] = t
        if b >= 0:
            arrivals[b] += 1
        idle = n - busy
        if idle == 0:
            if b >= 0:
                blocked[b] += 1
            continue
        a = min(requested[j], idle)
        duration = sizes[j] / speeds[a - 1]
        n_free -= 1
        slot = free[n_free]
        slot_servers[slot] = a
        slot_time[slot] = duration
        slot_batch[slot] = b
        size = heap_push(keys, items, size, t + duration, slot)
        if b >= 0:
            area[b, a] += X[a] * (t - last[a])
            last[a] = t
            counted[b] += 1
            time_sum[b] += duration
        X[a] += 1
        busy += a
    clock[0] = t
    state[0], state[1], state[2], state[3] = busy, size, n_free, b


def _initial_jobs(setup: _Setup, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Allocations and remaining times of the jobs in service at time 0 (see the module docstring)."""
    if setup.start == "empty":
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    n, servers = setup.servers, np.arange(1, setup.speeds.size + 1)
    fluid = fluid_point(setup.speeds, setup.rate_per_server, setup.p)
    counts = np.floor(n * fluid).astype(np.int64)                 # fallback: the fluid point, rounded down
    for _ in range(START_ATTEMPTS):
        draw = rng.poisson(n * fluid)
        if draw @ servers <= n:
            counts = draw
            break
    allocation = np.repeat(servers, counts)
    return allocation, setup.law.sample_excess(rng, allocation.size) / setup.speeds[allocation - 1]


def _replication(setup: _Setup, seed: np.random.SeedSequence) -> _Tallies:
    """One replication: three streams for arrivals, sizes and allocations, a fourth for the start."""
    arrival_rng, size_rng, choice_rng, start_rng = (np.random.default_rng(s) for s in seed.spawn(4))
    n, d, batches = setup.servers, setup.speeds.size, setup.batches
    boundaries = batch_boundaries(setup.warmup, setup.arrivals, batches)
    clock, state = np.zeros(1), np.array([0, 0, n, -1], dtype=np.int64)
    X, last = np.zeros(d + 1, dtype=np.int64), np.zeros(d + 1)
    keys, items = np.empty(n), np.empty(n, dtype=np.int64)
    slot_servers, slot_time, slot_batch = np.empty(n, dtype=np.int64), np.empty(n), np.empty(n, dtype=np.int64)
    free = np.arange(n, dtype=np.int64)
    arrivals, blocked, counted = (np.zeros(batches, dtype=np.int64) for _ in range(3))
    completed = np.zeros(batches, dtype=np.int64)
    time_sum, start, completed_sum = np.zeros(batches), np.zeros(batches), np.zeros(batches)
    area = np.zeros((batches, d + 1))
    _place(*_initial_jobs(setup, start_rng), state, X, keys, items, slot_servers, slot_time, slot_batch, free)
    cumulative = np.cumsum(setup.p)
    cumulative[-1] = 1.0
    single = np.flatnonzero(setup.p == 1.0)
    rate = n * setup.rate_per_server
    for first, count in chunks(setup.arrivals):
        interarrival = arrival_rng.standard_exponential(count) / rate
        sizes = setup.law.sample(size_rng, count)
        if single.size:
            requested = np.full(count, single[0] + 1, dtype=np.int64)
        else:
            requested = np.searchsorted(cumulative, choice_rng.random(count), side="right").astype(np.int64) + 1
            np.minimum(requested, d, out=requested)
        _advance(interarrival, requested, sizes, first, n, setup.speeds, boundaries, clock, state, X, last,
                 keys, items, slot_servers, slot_time, slot_batch, free, arrivals, blocked, counted, time_sum, area,
                 start, completed_sum, completed)
    end = clock[0]
    area[batches - 1] += X * (end - last)
    duration = np.diff(np.append(start, end))
    return _Tallies(arrivals, blocked, counted, time_sum, area[:, 1:], duration, completed_sum, completed)


@run_control("arrivals")
@renamed_arguments(arrival_rate="rate_per_server", jobs="arrivals", mean_time_of="response_time_of")
def simulate_moldable(speedup: SpeedupTable, rate_per_server: float, servers: int, p: object = None,
                      size: SizeLaw | str = "exponential", arrivals: int = 1_000_000, warmup: int | None = None,
                      replications: int = 1, seed: int | np.random.SeedSequence | np.random.Generator | None = None,
                      executor: Executor | None = None, *, level: float = 0.95, batches: int = BATCHES,
                      start: str = "equilibrium", response_time_of: str = "accepted",
                      progress: bool | None = None) -> MoldableSimulation:
    """Simulate the loss system of greedy(p) with any job-size law; estimates with confidence intervals.

    Ghanbarian et al., *On Optimal Server Allocation for Moldable Jobs with Concave Speed-Up*,
    Sections 4 and 7 (Table 1): the scheme of eq. (10) exactly as :func:`greedy_metrics` defines it.

    Parameters
    ----------
    speedup : SpeedupTable
    rate_per_server : float
        λ in (0, 1]: arrivals per unit time per server (total rate ``n λ``).
    servers : int
        ``n >= d``.
    p : None, "greedy" or array_like
        ``None``: greedy(p*) with p* of Theorem 1; ``"greedy"``: always ``d``; or any probability
        vector indexed like the speed-up's values.
    size : SizeLaw or str
        The inherent-size law: a :class:`~analytic.simulation.SizeLaw` (used as is) or one of
        ``"exponential"``, ``"deterministic"``, ``"mixed_erlang"``, ``"pareto"`` (unit mean; see
        :mod:`analytic.simulation.laws`).
    arrivals : (run control)
    warmup : (run control)
    replications : (run control)
    seed : (run control)
    executor : (run control)
    level : (run control)
    batches : (run control)
        At least 2.
    start : {"equilibrium", "empty"}
        Initial state (module docstring); ``"empty"`` with ``warmup=0`` is the paper's procedure.
    response_time_of : {"accepted", "completed"}
        ``E[D]`` over all accepted jobs (unbiased), or over the accepted jobs that completed before
        the last arrival (what a log of departures gives).
    progress : (run control)

    Returns
    -------
    MoldableSimulation

    Raises
    ------
    InvalidParameterError
        λ outside (0, 1], ``servers < d``, a bad ``p``, an unknown size law or one without a
        finite mean, fewer arrivals per replication than ``warmup + batches``, a non-executor as
        ``executor``, or an unknown ``start`` / ``response_time_of``.

    Examples
    --------
    Table 1's linear speed-up at n = 100 is an Erlang loss system of 20 slots:

    >>> from analytic.erlang import erlang_b
    >>> from analytic.simulation import compare
    >>> from analytic.speedup import SpeedupTable
    >>> sim = simulate_moldable(SpeedupTable.linear(5), 0.9, 100, size="pareto", arrivals=200_000, seed=1)
    >>> compare(sim.blocking, erlang_b(20, 18.0)).verdict
    'agrees'
    """
    if not isinstance(speedup, SpeedupTable):
        raise InvalidParameterError("speedup", speedup, "must be an analytic.speedup.SpeedupTable")
    lam = check_rate_per_server(rate_per_server)
    n = integer("servers", servers, minimum=speedup.d, meaning=f" (at least d = {speedup.d})")
    require(SLOT_BYTES * n, "simulate_moldable's per-server slots", n)
    probabilities = resolve_p(speedup, lam, p)
    law = size if isinstance(size, SizeLaw) else size_law(size)
    _, runs, k, share = split_jobs(arrivals, replications, batches, name="arrivals")
    confidence("level", level)
    if not isinstance(start, str) or start not in STARTS:
        raise InvalidParameterError("start", start, f"must be one of {STARTS}")
    if not isinstance(response_time_of, str) or response_time_of not in RESPONSE_TIME_OF:
        raise InvalidParameterError("response_time_of", response_time_of, f"must be one of {RESPONSE_TIME_OF}")
    check_executor(executor)
    skip = warmup_of(arrivals, warmup, share, runs, k, name="arrivals")
    setup = _Setup(n, lam, speedup.values.copy(), probabilities, law, share, skip, k, start)
    root, tallies = run_replications(_replication, setup, runs, seed, executor, progress, "simulate_moldable")
    return _summarize(tallies, setup, runs, level, response_time_of, root)


def _summarize(tallies: list[_Tallies], setup: _Setup, runs: int, level: float, response_time_of: str,
               root: np.random.SeedSequence) -> MoldableSimulation:
    """Estimates from the tallies: over replications when there are several, over batches otherwise."""
    method, sums = pooled(tallies)
    times, counts = ((sums["time_sum"], sums["counted"]) if response_time_of == "accepted"
                     else (sums["completed_sum"], sums["completed"]))
    measured = int(sums["arrivals"].sum())
    return MoldableSimulation(
        blocking=ratio_estimate(sums["blocked"], sums["arrivals"], level, method),
        mean_response_time=ratio_estimate(times, counts, level, method),
        mean_occupancy=estimates(sums["area"] / setup.servers, level, method, sums["duration"]),
        level=level, method=method, samples=len(sums["arrivals"]), arrivals=setup.arrivals * runs, measured=measured,
        replications=runs, warmup=setup.warmup, seed=root.entropy, p=setup.p, size=setup.law, start=setup.start,
        response_time_of=response_time_of, servers=setup.servers, rate_per_server=setup.rate_per_server)
