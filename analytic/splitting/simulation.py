"""Simulation of the multiserver-job queue under the policies of Anselmi & Doncel, Section 2.

k servers; jobs arrive as a Poisson process of total rate λ, are of class i with probability α_i,
hold n_i servers for their whole service and need a service time drawn from the class's law
(:attr:`RigidClass.law`: exponential unless given). Policies: :mod:`~analytic.splitting.policies` (BS-FCFS of Definition
1 and ModifiedBS-FCFS of Definition 2 among them) or any callable.

Randomness: each replication has its own ``SeedSequence`` child, spawned into three streams —
interarrival times, classes, sizes — drawn in chunks, so that two policies simulated with one seed
see the same arrivals and the same sizes (common random numbers: their difference is estimated
more precisely than either). A replication starts empty, discards the first ``warmup`` arrivals
and counts the next ones, in ``batches`` consecutive batches; after the last counted arrival it
keeps the arrival stream going (uncounted) until every counted job has left, so that the last
counted jobs see the same traffic as the others (up to as many extra arrivals as counted ones,
then the system drains).

Estimators, over counted jobs: the mean response time (departure minus arrival), the probability
of waiting (first service later than the arrival), the probability of being sent to the helpers
(BS policies: P_H), per class and overall, and the time-average number of jobs present. With
several replications the intervals come from the replication totals, with one from the batches
(ratio estimators, Student-t). A least-squares fit of the number present per batch against time
flags a run whose queue keeps growing (:func:`analytic.simulation.growth_rate`): ``stationary``
is False and ``growth`` holds the rate, in jobs per unit time.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from concurrent.futures import Executor
from dataclasses import dataclass

import numpy as np

from analytic._deprecation import renamed_arguments, renamed_attribute, warn
from analytic.errors import InvalidParameterError
from analytic.memory import require
from analytic.simulation import (
    CHUNK,
    Estimate,
    Estimates,
    Growth,
    SerialExecutor,
    check_executor,
    growth_rate,
    ratio_estimate,
)
from analytic.simulation._runs import (
    batch_boundaries,
    column_estimates,
    pooled,
    run_control,
    run_replications,
    split_jobs,
    warmup_of,
)
from analytic.simulation.clock import check_horizon
from analytic.simulation.runs import ArrivalRun
from analytic.splitting import _engine as engine
from analytic.splitting.bounds import split_servers
from analytic.splitting.classes import RigidClass, check_classes, check_load, check_servers
from analytic.splitting.policies import Policy, PolicyState, gittins_table, resolve_policy
from analytic.validation import confidence, user_code

__all__ = ["ClassEstimates", "MultiserverSimulation", "simulate_multiserver"]

_HELPER_MODES = {"fcfs": engine.FCFS, "first-fit": engine.FIRST_FIT, "maxweight": engine.MAXWEIGHT}
_ORDERS = {"need": engine.BY_NEED, "arrival": engine.BY_ARRIVAL, "work": engine.BY_WORK, "gittins": engine.BY_GITTINS,
           "remaining": engine.BY_REMAINING}
_PACKINGS = {"first-fit": engine.PACK_FIRST_FIT, "server-filling": engine.PACK_SERVER_FILLING}


@dataclass(frozen=True, repr=False)
class ClassEstimates:
    """Deprecated view of one class's estimates (read :attr:`MultiserverSimulation.per_class_response_time` and the
    other ``per_class_*`` fields instead); :attr:`MultiserverSimulation.per_class` builds it, for one release.

    Its fields are those of version 0.1: floats with their half-widths (``*_ci``); ``helper_probability``
    and ``helper_service_probability`` are None unless the policy splits the servers; a value is NaN
    (with a NaN half-width) when no job of the class was counted.

    Attributes
    ----------
    need : int
        n_i.
    jobs : int
        Jobs of the class counted.
    mean_response_time, mean_response_time_ci : float
    wait_probability, wait_probability_ci : float
    helper_probability, helper_probability_ci : float or None
    helper_service_probability, helper_service_probability_ci : float or None
    level, method, samples
        Confidence level; "independent replications" or "batch means"; how many of them.
    """

    need: int
    jobs: int
    mean_response_time: float
    mean_response_time_ci: float
    wait_probability: float
    wait_probability_ci: float
    helper_probability: float | None
    helper_probability_ci: float | None
    helper_service_probability: float | None
    helper_service_probability_ci: float | None
    level: float
    method: str
    samples: int

    def estimate(self, name: str) -> Estimate:
        """Deprecated with the class: a metric of the class as an :class:`~analytic.simulation.Estimate`.

        Parameters
        ----------
        name : str
            ``"mean_response_time"``, ``"wait_probability"``, ``"helper_probability"`` or
            ``"helper_service_probability"``.

        Returns
        -------
        Estimate
        """
        names = ("mean_response_time", "wait_probability", "helper_probability", "helper_service_probability")
        if name not in names:
            raise InvalidParameterError("name", name, f"must be one of {list(names)}")
        value = getattr(self, name)
        if value is None or math.isnan(value):
            raise InvalidParameterError("name", name, "has no estimate in this result (not a split policy, or no job counted)")
        return Estimate(value, getattr(self, name + "_ci"), self.level, self.method, self.samples)

    def __repr__(self) -> str:
        helper = ("" if self.helper_probability is None
                  else f", P_H={self.helper_probability:.4g} ± {self.helper_probability_ci:.2g}")
        return (f"ClassEstimates(need={self.need}, R={self.mean_response_time:.6g} ± {self.mean_response_time_ci:.2g}, "
                f"P(wait)={self.wait_probability:.4g} ± {self.wait_probability_ci:.2g}{helper}, jobs={self.jobs:,})")


#: The simulated metrics, overall and per class (the names of :class:`~analytic.splitting.ExactMetrics`).
_METRICS = ("mean_response_time", "wait_probability", "helper_probability", "helper_service_probability")


def _class_views(result: MultiserverSimulation) -> tuple[ClassEstimates, ...]:
    """The deprecated :class:`ClassEstimates` of each class, from the ``per_class_*`` estimates."""
    def entry(name: str, i: int) -> dict:
        estimates = getattr(result, f"per_class_{name.removeprefix('mean_')}")
        if estimates is None:
            return {name: None, f"{name}_ci": None}
        return {name: float(estimates.value[i]), f"{name}_ci": float(estimates.half_width[i])}

    return tuple(ClassEstimates(need=need, jobs=int(result.per_class_measured[i]), level=result.level, method=result.method,
                                samples=result.samples, **{k: v for name in _METRICS for k, v in entry(name, i).items()})
                 for i, need in enumerate(result.needs))


@dataclass(frozen=True, repr=False)
class MultiserverSimulation(ArrivalRun):
    """Simulated metrics of a multiserver-job queue, each an estimate with its confidence interval at ``level``.

    The metrics have the names of :class:`~analytic.splitting.ExactMetrics` (the exact result of the
    same model): ``compare(exact, sim)`` (:func:`~analytic.simulation.compare`) pairs them up.

    Attributes
    ----------
    policy : str
        The policy's name (``"callable"`` for a callable).
    mean_response_time : Estimate
        E[R] over counted jobs (time units).
    wait_probability : Estimate
        Probability that a job does not enter service on arrival.
    helper_probability : Estimate or None
        P_H, the probability that a job is sent to the helpers on arrival (Sections 1.3, 3.4; BS
        policies only).
    helper_service_probability : Estimate or None
        The probability that a job is served on the helpers: under BS-FCFS rule 3 moves some jobs
        sent there to A_i, so it is smaller than P_H (the quantity the proof of Proposition 2
        bounds by E_{s_i}); under ModifiedBS it equals P_H.
    mean_jobs : Estimate
        Time-average number of jobs present.
    per_class_response_time, per_class_wait_probability : Estimates
        E[R_i] and the probability of waiting of each class (NaN, with a NaN half-width, for a
        class of which no job was counted: indexing that entry raises).
    per_class_helper_probability, per_class_helper_service_probability : Estimates or None
        Per class, as ``helper_probability`` and ``helper_service_probability``.
    needs : tuple of int
        n_i of each class.
    per_class_measured : numpy.ndarray
        Jobs of each class counted.
    stationary : bool
        False when the number of jobs present grows significantly over the run: the estimates
        then describe a transient, not a steady state.
    growth : Growth
        The fitted growth rate of the number present (jobs per unit time).
    level, method, samples, arrivals, measured, replications, warmup, seed
        The run (:class:`~analytic.simulation.ArrivalRun`).
    servers, arrival_rate, load
        k, λ and ρ = λ ϱ / k.

    Examples
    --------
    >>> from analytic.splitting import RigidClass, simulate_multiserver
    >>> sim = simulate_multiserver("bs-fcfs", 8, [RigidClass(1, 0.6, 1.0), RigidClass(2, 0.4, 1.5)], 16 / 9, arrivals=4000,
    ...                            seed=1)
    >>> sim.policy, sim.helper_probability is not None, sim.per_class_response_time.value.shape
    ('bs-fcfs', True, (2,))
    """

    policy: str
    mean_response_time: Estimate
    wait_probability: Estimate
    helper_probability: Estimate | None
    helper_service_probability: Estimate | None
    mean_jobs: Estimate
    per_class_response_time: Estimates
    per_class_wait_probability: Estimates
    per_class_helper_probability: Estimates | None
    per_class_helper_service_probability: Estimates | None
    needs: tuple[int, ...]
    per_class_measured: np.ndarray
    stationary: bool
    growth: Growth
    servers: int
    arrival_rate: float
    load: float

    mean_response_time_ci = renamed_attribute("mean_response_time.half_width")
    wait_probability_ci = renamed_attribute("wait_probability.half_width")
    helper_probability_ci = renamed_attribute("helper_probability.half_width")
    helper_service_probability_ci = renamed_attribute("helper_service_probability.half_width")
    mean_jobs_ci = renamed_attribute("mean_jobs.half_width")
    jobs = renamed_attribute("arrivals")
    per_class = renamed_attribute("per_class_response_time (and the other per_class_* estimates)", _class_views)

    def estimate(self, name: str) -> Estimate:
        """Deprecated: read the field ``name`` (``sim.mean_response_time``), an :class:`~analytic.simulation.Estimate`.

        Parameters
        ----------
        name : str
            ``"mean_response_time"``, ``"wait_probability"``, ``"helper_probability"``,
            ``"helper_service_probability"`` or ``"mean_jobs"``.

        Returns
        -------
        Estimate
        """
        names = (*_METRICS, "mean_jobs")
        if name not in names:
            raise InvalidParameterError("name", name, f"must be one of {list(names)}")
        warn("MultiserverSimulation.estimate()", f"MultiserverSimulation.{name}")
        value = getattr(self, name)
        if value is None:
            raise InvalidParameterError("name", name, "has no estimate in this result (not a split policy)")
        return value

    def __repr__(self) -> str:
        helper = "" if self.helper_probability is None else f", P_H={self.helper_probability:.4g}"
        flag = "" if self.stationary else f", NOT STATIONARY (jobs grow at {self.growth.rate:.3g} per unit time)"
        return (f"MultiserverSimulation({self.policy}, k={self.servers}, load={self.load:.4g}: "
                f"R={self.mean_response_time:.6g}, P(wait)={self.wait_probability:.4g}{helper}, "
                f"{self.samples} {self.method}, measured={self.measured:,} of {self.arrivals:,} arrivals{flag})")


# ---------------------------------------------------------------------------------------------
# One replication
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Setup:
    """What a replication needs (picklable for process and cluster executors)."""

    policy: Policy | Callable[[PolicyState], object]
    servers: int
    arrival_rate: float
    classes: tuple[RigidClass, ...]
    slots: tuple[int, ...]
    helpers: int
    arrivals: int
    warmup: int
    batches: int


@dataclass(frozen=True)
class _Tallies:
    """Per-batch sums of one replication (batches x classes, or batches)."""

    count: np.ndarray
    response: np.ndarray
    waited: np.ndarray
    helped: np.ndarray
    area: np.ndarray
    duration: np.ndarray
    middle: np.ndarray


class _Loop:
    """The state of one replication's event loop and the compiled function that advances it."""

    def __init__(self, setup: _Setup) -> None:
        self.setup = setup
        k, c = setup.servers, len(setup.classes)
        self.needs = np.array([cls.need for cls in setup.classes], dtype=np.int64)
        capacity = 4 * k + 64
        self.state = np.zeros(engine.STATE_LENGTH, dtype=np.int64)
        self.state[engine.BATCH_NOW] = -1
        self.clock = np.zeros(3)
        self.keys, self.items = np.empty(capacity), np.empty(capacity, dtype=np.int64)
        self.job_i = np.empty((0, engine.JOB_INT_COLUMNS), dtype=np.int64)
        self.job_f = np.empty((0, engine.JOB_FLOAT_COLUMNS))
        self.free = np.empty(0, dtype=np.int64)
        b = setup.batches
        self.boundaries = batch_boundaries(setup.warmup, setup.arrivals, b)
        self.count, self.response = np.zeros((b, c), dtype=np.int64), np.zeros((b, c))
        self.waited, self.helped = np.zeros((b, c), dtype=np.int64), np.zeros((b, c, 2), dtype=np.int64)
        self.area, self.starts = np.zeros(b), np.full(b + 1, np.nan)
        group_needs, groups = np.unique(self.needs, return_inverse=True)  # classes grouped by need
        self.groups, self.group_needs = groups.astype(np.int64), group_needs.astype(np.int64)
        policy = setup.policy
        self.preemptive = not isinstance(policy, Policy) or policy.preemptive
        if self.preemptive:
            self._init_preemptive(policy)
        else:
            self._init_dispatch(policy)
        self._grow(max(256, 2 * k))

    def _init_dispatch(self, policy: Policy) -> None:
        c, k = len(self.setup.classes), self.setup.servers
        self.slots = np.array(self.setup.slots, dtype=np.int64)
        self.heads, self.tails = np.full(c, -1, dtype=np.int64), np.full(c, -1, dtype=np.int64)
        self.lengths, self.reserved_busy = np.zeros(c, dtype=np.int64), np.zeros(c, dtype=np.int64)
        self.present_by_class = np.zeros(c, dtype=np.int64)
        items = self.group_needs.size * (int(k).bit_length() + 1)
        self.scratch_i = np.zeros((5, max(items, self.group_needs.size)), dtype=np.int64)
        self.best = np.zeros(k + 1, dtype=np.int64)
        self.keep = np.zeros((items, k + 1), dtype=np.bool_)
        self.mode = _HELPER_MODES[policy.helper_mode]

    def _init_preemptive(self, policy: Policy | Callable) -> None:
        classes = self.setup.classes
        if isinstance(policy, Policy):
            tables = [gittins_table(cls.law) for cls in classes] if policy.order == "gittins" else []
            offsets = np.cumsum([0] + [ages.size for ages, _ in tables]) if tables else np.zeros(len(classes) + 1)
            self.grouped = (policy.order, policy.packing) in (("need", "first-fit"), ("arrival", "server-filling"))
            self.config = np.concatenate([[_ORDERS[policy.order], _PACKINGS[policy.packing], self.grouped], offsets])
            self.config = self.config.astype(np.int64)
            self.tables = (np.vstack([np.concatenate([a for a, _ in tables]), np.concatenate([r for _, r in tables])])
                           if tables else np.zeros((2, 1)))
            self.decide, self.advance = engine.decide_ranked, engine.advance_preemptive
        else:
            self.grouped = False
            self.config, self.tables = np.zeros(3, dtype=np.int64), np.zeros((2, 1))
            self.decide, self.advance = _CallableDecision(policy), engine.advance_preemptive.py_func
        self.aux = np.zeros((engine.AUX_GROUP_ROWS, self.group_needs.size), dtype=np.int64)
        self.aux[[engine.HEAD, engine.TAIL, engine.BOUNDARY]] = -1
        self.scalars = np.array([-1, -1, -1, 0], dtype=np.int64)
        self.present = np.empty(0, dtype=np.int64)
        self.key, self.scratch, self.target = np.empty(0), np.empty((4, 0), dtype=np.int64), np.empty(0, dtype=np.int8)

    def _grow(self, capacity: int) -> None:
        """Enlarge the job table (and the arrays indexed by jobs present) to ``capacity`` slots."""
        old = self.job_i.shape[0]
        self.job_i = np.concatenate([self.job_i, np.zeros((capacity - old, engine.JOB_INT_COLUMNS), dtype=np.int64)])
        self.job_f = np.concatenate([self.job_f, np.zeros((capacity - old, engine.JOB_FLOAT_COLUMNS))])
        n_free = self.state[engine.FREE]
        free = np.empty(capacity, dtype=np.int64)
        free[:n_free] = self.free[:n_free]
        free[n_free:n_free + capacity - old] = np.arange(old, capacity)
        self.free = free
        self.state[engine.FREE] = n_free + capacity - old
        if self.preemptive:
            present = np.empty(capacity, dtype=np.int64)
            present[:old] = self.present[:old]
            self.present = present
            self.key, self.scratch = np.empty(capacity), np.empty((4, capacity), dtype=np.int64)
            self.target = np.empty(capacity, dtype=np.int8)

    def run(self, interarrival: np.ndarray, job_classes: np.ndarray, sizes: np.ndarray,
            phase: int = engine.ARRIVALS) -> None:
        """Process a chunk of arrivals (in phase ``EXTRA`` until no counted job is left; ``DRAIN``: none),
        enlarging the job table whenever it fills."""
        taken = 0
        while True:
            chunk = slice(taken, None)
            taken += self._advance(interarrival[chunk], job_classes[chunk], sizes[chunk], phase)
            if (phase == engine.DRAIN or taken == interarrival.size
                    or (phase == engine.EXTRA and self.state[engine.PENDING] == 0)):
                return
            self._grow(2 * self.job_i.shape[0])

    def _advance(self, interarrival, job_classes, sizes, phase) -> int:
        """One call of the policy family's compiled loop (chosen here, outside the loop)."""
        s = self.setup
        chunk = (interarrival, job_classes, sizes, phase, self.boundaries, self.needs)
        tallies = (self.count, self.response, self.waited, self.helped, self.area, self.starts)
        if not self.preemptive:
            return engine.advance_dispatch(*chunk, self.slots, s.helpers, s.policy.rule3, self.mode, self.groups,
                                           self.group_needs, self.state, self.clock, self.keys, self.items, self.free,
                                           self.job_i, self.job_f, self.heads, self.tails, self.lengths, self.reserved_busy,
                                           self.present_by_class, self.scratch_i, self.best, self.keep, *tallies)
        if self.grouped:
            return engine.advance_grouped(*chunk, s.servers, s.policy.packing == "server-filling", self.groups,
                                          self.group_needs, self.aux, self.scalars, self.state, self.clock, self.keys,
                                          self.items, self.free, self.job_i, self.job_f, self.present, *tallies)
        return self.advance(*chunk, s.servers, self.decide, self.groups, self.group_needs, self.config, self.tables,
                            self.state, self.clock, self.keys, self.items, self.free, self.job_i, self.job_f, self.present,
                            self.key, self.scratch, self.target, *tallies)

    def tallies(self) -> _Tallies:
        starts = self.starts.copy()
        starts[np.isnan(starts)] = self.clock[engine.NOW]
        duration = np.diff(starts)
        return _Tallies(self.count, self.response, self.waited, self.helped, self.area, duration, starts[:-1] + duration / 2)


class _CallableDecision:
    """Adapts a callable policy to the loop's decision interface (picklable if the callable is)."""

    def __init__(self, policy: Callable[[PolicyState], object]) -> None:
        self.policy = policy

    def __call__(self, t, servers, needs, groups, group_needs, present, state, job_i, job_f, config, tables, key, scratch,
                 target, keys, items) -> None:
        n = state[engine.PRESENT]
        slots = present[:n]
        order = np.argsort(job_i[slots, engine.SEQ], kind="stable")
        jobs = slots[order]
        serving = job_i[jobs, engine.SERVING] == 1
        remaining = np.where(serving, job_f[jobs, engine.FINISH] - t, job_f[jobs, engine.REMAINING])
        classes = job_i[jobs, engine.CLASS]
        view = PolicyState(time=t, servers=servers, job_class=classes, need=needs[classes], arrival=job_f[jobs, engine.ARRIVAL],
                           attained=job_f[jobs, engine.SIZE] - remaining, remaining=remaining, serving=serving)
        with user_code("policy", view, "a policy maps the state of the jobs present to a boolean array of the jobs to serve"):
            mask = np.asarray(self.policy(view))
        if mask.shape != (n,) or mask.dtype.kind not in "bi":
            raise InvalidParameterError("policy", self.policy, f"must return a boolean array of shape ({n},), one entry per job "
                                                               f"present (got {mask.dtype} of shape {mask.shape})")
        used = int(needs[classes] @ mask.astype(bool))
        if used > servers:
            raise InvalidParameterError("policy", self.policy, f"must serve jobs whose needs sum to at most k = {servers} "
                                                               f"(at time {t:.6g} they sum to {used})")
        target[:n] = 0
        target[order] = mask.astype(bool)
        state[engine.HEAP] = engine.apply_target(t, target, state[engine.HEAP], n, keys, items, present, job_i, job_f)


def _replication(setup: _Setup, seed: np.random.SeedSequence) -> _Tallies:
    """One replication: streams for interarrival times, classes and sizes (module docstring)."""
    arrival_rng, class_rng, size_rng = (np.random.default_rng(s) for s in seed.spawn(3))
    loop = _Loop(setup)
    cumulative = np.cumsum([float(c.probability) for c in setup.classes])
    cumulative[-1] = 1.0
    laws = [c.law for c in setup.classes]

    def chunk(count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        interarrival = arrival_rng.standard_exponential(count) / setup.arrival_rate
        classes, counts = engine.draw_classes(class_rng.random(count), cumulative)
        # each class's sizes in one draw, class after class, then put in arrival order
        samples = np.concatenate([law.sample(size_rng, int(n)) for law, n in zip(laws, counts, strict=True)])
        return interarrival, classes, engine.in_arrival_order(classes, counts, samples)

    done = 0
    while done < setup.arrivals:
        count = min(CHUNK, setup.arrivals - done)
        loop.run(*chunk(count))
        done += count
    extra = 0  # uncounted arrivals while counted jobs are present: the loop stops when the last one leaves
    while loop.state[engine.PENDING] > 0 and extra < setup.arrivals - setup.warmup:
        count = min(CHUNK, setup.arrivals - setup.warmup - extra)
        loop.run(*chunk(count), phase=engine.EXTRA)
        extra += count
    loop.run(np.zeros(0), np.zeros(0, dtype=np.int64), np.zeros(0), phase=engine.DRAIN)
    return loop.tallies()


# ---------------------------------------------------------------------------------------------
# The public function
# ---------------------------------------------------------------------------------------------

#: Memory of the event loop per server (its job, the job's remaining work, free lists), an upper estimate.
_BYTES_PER_SERVER = 64
#: The event loop's counters and batch boundaries (arrivals times batches) are 64-bit integers.


@run_control("arrivals")
@renamed_arguments(jobs="arrivals")
def simulate_multiserver(policy: str | Callable[[PolicyState], object], servers: int, classes: Iterable[RigidClass],
                         arrival_rate: float, arrivals: int = 1_000_000, warmup: int | None = None, replications: int = 1,
                         seed: int | np.random.SeedSequence | np.random.Generator | None = None,
                         executor: Executor | None = None, *, level: float = 0.95, batches: int = 20,
                         progress: bool | None = None) -> MultiserverSimulation:
    """Simulate a multiserver-job queue under a policy of Section 2; estimates with confidence intervals.

    Anselmi & Doncel, *Balanced Splitting*, Section 3.1 (the model), Section 2 and Definitions 1–2
    (the policies), Section 6 (the simulations of Figures 1–3).

    Parameters
    ----------
    policy : str or callable
        ``"bs-fcfs"``, ``"modified-bs-fcfs"``, ``"fcfs"``, ``"ffbf"``, ``"maxweight"``, ``"msf"``,
        ``"server-filling"``, ``"server-filling-srpt"``, ``"server-filling-gittins"``, ``"ff-srpt"``
        (:mod:`analytic.splitting.policies`), or a callable taking a :class:`PolicyState`.
    servers : int
        k >= every need (a power of two, as every need, for the ServerFilling policies).
    classes : sequence of RigidClass
        Needs, probabilities and service-time laws (:attr:`RigidClass.law`).
    arrival_rate : float
        Total arrival rate λ, with load λ ϱ / k < 1, and large enough that the arrivals of one
        replication span at most 1e12 of the smallest mean size, (arrivals / replications) / λ
        <= 1e12 min_i d_i: the clock then resolves 2e-4 of it.
    arrivals : (run control)
        At most ``(2**63 - batches) // batches`` per replication (the event loop's 64-bit integers).
    warmup : (run control)
    replications : (run control)
    seed : (run control)
        Every policy sees the same arrivals and sizes (common random numbers).
    executor : (run control)
        A callable policy runs in the calling process by default.
    level : (run control)
    batches : (run control)
        At least 3: they are also the points of the growth fit.
    progress : (run control)

    Returns
    -------
    MultiserverSimulation

    Raises
    ------
    InvalidParameterError
        An unknown policy, a need above k, a ServerFilling policy with k or a need that is not a
        power of two, bad classes, fewer arrivals per replication than ``warmup + batches``, more
        than ``(2**63 - batches) // batches`` per replication (4.6e17 with 20 batches: the event
        loop's 64-bit integers), or a non-executor; an arrival rate so small, or so many arrivals
        per replication, that they span more than 1e12 of the smallest mean size (the clock, a
        double, would no longer resolve a service time next to arrivals/λ).
    UnstableSystemError
        Load λ ϱ / k >= 1 (no policy is stable), or ModifiedBS with an empty helper set.

    Examples
    --------
    One class needing 2 of 8 servers is an M/M/4 queue (Erlang C):

    >>> from analytic.erlang import erlang_c
    >>> from analytic.simulation import compare
    >>> sim = simulate_multiserver("fcfs", 8, [RigidClass(2, 1.0, 1.0)], 3.0, arrivals=200_000, seed=1)
    >>> exact = 1 + erlang_c(4, 3.0) / (4 - 3.0)
    >>> compare(sim.mean_response_time, exact).verdict
    'agrees'
    """
    classes = check_classes(classes)
    k = check_servers(servers, classes)
    require(_BYTES_PER_SERVER * k, f"the state of {k:,} servers", k)
    chosen = resolve_policy(policy, k, classes)
    rate = check_load(k, arrival_rate, classes)
    _, runs, b, share = split_jobs(arrivals, replications, batches, minimum=3, meaning=" (the growth fit needs three)",
                                   name="arrivals")
    confidence("level", level)
    if check_executor(executor) is None and not isinstance(chosen, Policy):
        executor = SerialExecutor()
    skip = warmup_of(arrivals, warmup, share, runs, b, name="arrivals")
    check_horizon(arrivals, share, rate * min(float(c.mean_size) for c in classes), ("arrival_rate", arrival_rate),
                  "smallest mean size of a class")
    if isinstance(chosen, Policy) and chosen.split:
        slots, helpers = split_servers(k, rate, classes, modified=not chosen.rule3)
    else:
        slots, helpers = (0,) * len(classes), k
    setup = _Setup(chosen, k, rate, classes, slots, helpers, share, skip, b)
    root, tallies = run_replications(_replication, setup, runs, seed, executor, progress, "simulate_multiserver")
    return _summarize(tallies, setup, runs, level, root)


def _summarize(tallies: list[_Tallies], setup: _Setup, runs: int, level: float,
               root: np.random.SeedSequence) -> MultiserverSimulation:
    """Estimates from the tallies: over replications when there are several, over batches otherwise."""
    method, sums = pooled(tallies)
    split = isinstance(setup.policy, Policy) and setup.policy.split
    count = sums["count"]
    seen = count.sum(axis=0) > 0                 # classes of which a job was counted
    samples = count.shape[0]

    def estimates(numerators: np.ndarray) -> tuple[Estimate, Estimates]:
        """Overall (the ratio of the totals over the classes) and per class (NaN for a class never counted)."""
        overall = ratio_estimate(numerators.sum(axis=1), count.sum(axis=1), level, method)
        value, half = np.full(len(setup.classes), math.nan), np.full(len(setup.classes), math.nan)
        if seen.any():
            value[seen], half[seen] = column_estimates(numerators[:, seen], level, method, count[:, seen])
        return overall, Estimates(value, half, level, method, samples)

    tallied = {"mean_response_time": sums["response"], "wait_probability": sums["waited"]}
    if split:
        tallied |= {"helper_probability": sums["helped"][..., 0], "helper_service_probability": sums["helped"][..., 1]}
    fields = {}
    for name in _METRICS:
        fields[name], fields[f"per_class_{name.removeprefix('mean_')}"] = (estimates(tallied[name]) if name in tallied
                                                                            else (None, None))
    levels = np.mean([t.area / t.duration for t in tallies], axis=0)
    growth = growth_rate(levels, np.mean([t.middle for t in tallies], axis=0))
    name = setup.policy.name if isinstance(setup.policy, Policy) else "callable"
    load = setup.arrival_rate * float(sum(c.demand for c in setup.classes)) / setup.servers
    return MultiserverSimulation(
        policy=name, **fields, mean_jobs=ratio_estimate(sums["area"], sums["duration"], level, method),
        needs=tuple(c.need for c in setup.classes), per_class_measured=count.sum(axis=0), stationary=growth.stationary,
        growth=growth, level=level, method=method, samples=samples, arrivals=setup.arrivals * runs,
        measured=int(count.sum()), replications=runs, warmup=setup.warmup, seed=root.entropy, servers=setup.servers,
        arrival_rate=setup.arrival_rate, load=load)
