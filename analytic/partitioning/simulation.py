"""DGP (Algorithm 3), ADGP (Algorithm 4) and the frame-based Max-Weight algorithm (Algorithm 1), simulated.

Ghaderi, Shakkottai & Srikant, Sections 4–5 and Appendix B. Every simulator runs the continuous-time
Markov chain of its algorithm event by event (Gillespie: exponential clocks for arrivals, template
departures and, for ADGP, the dedicated clocks), compiled with numba (``NUMBA_DISABLE_JIT=1`` runs the
same code in Python with the same numbers). Uniform random numbers are drawn in chunks outside the
loop from the replication's own stream (``SeedSequence.spawn``), so a seed gives the same run
serially or through any executor (:func:`analytic.simulation.replicate`).

* **DGP** keeps explicit templates (the slot of every node). At an arrival of type j the job joins
  ``Q^(j)``, the Random Partition Procedure (Algorithm 2) places a virtual graph node by node in
  uniformly chosen free slots, and the template is kept with probability ``e^(w/β)/(1 + e^(w/β))``,
  ``w = α f^(j)(h + Q) - b_A`` (eqs. 11–12, ``f = log^(1-b)``); every template leaves at rate μ_j
  and is put back, as a virtual template on the same slots, with that same probability; a waiting job
  fills a virtual template of its type (chosen at random) whenever one is idle.
* **ADGP** replaces the decisions at arrivals and departures by a clock per type ticking at
  ``λ̂ e^(α f^(j)(h + Q)/β)``: a tick proposes a template by Algorithm 2, kept with probability
  ``e^(-b_A/β)``; departing templates are always removed. Reading: Algorithm 4 lets only a tick fill
  a template; here a job arriving while a virtual template of its type is idle takes it, as in DGP
  (step 3) — the configuration's law (Prop. 4) does not depend on this.
* **Max-Weight** (Algorithm 1) installs at every epoch kT a configuration solving eq. (10),
  ``max_C Σ_A (α f(Q^(j)(kT)) - b_A)`` (the cheapest packing of the best template counts,
  :func:`~.static.cheapest_packings`; ties broken at random), and keeps it for T: jobs fill its
  templates (cheapest first) and leave at rate μ_j. Changing configuration migrates the jobs in
  service; the simulator counts those interruptions.

``frozen_queues`` freezes the weights at those of a given queue vector: the configuration process
is then DGP-bar (ADGP-bar), whose stationary law is eq. (15) (Prop. 4), which the tests check by the
coverage of the intervals. All estimates are time averages after ``warmup``, with intervals from
independent replications, or from ``batches`` batch means of a single run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from analytic._deprecation import renamed_attribute, renamed_entry, warn
from analytic.errors import InvalidParameterError, UnstableSystemError
from analytic.memory import require
from analytic.partitioning._engine import ADGP, DGP, DONE, OVERFLOW, frame_loop, template_loop, update_weights
from analytic.partitioning.configurations import state_space
from analytic.partitioning.model import Cluster, GraphJob, check_jobs
from analytic.partitioning.static import cheapest_packings
from analytic.partitioning.weights import check_exponent
from analytic.simulation import CHUNK, Estimate, Estimates, check_executor, growth_rate
from analytic.simulation._runs import column_estimates, pooled, run_control, run_replications
from analytic.simulation.runs import SimulationRun
from analytic.validation import confidence, integer, numeric_array, positive, real, real_array

__all__ = ["ALGORITHMS", "PartitioningSimulation", "simulate_adgp", "simulate_dgp", "simulate_max_weight"]

#: The simulated algorithms.
ALGORITHMS = ("DGP", "ADGP", "Max-Weight")


@dataclass(frozen=True, repr=False)
class PartitioningSimulation(SimulationRun):
    """Time averages of a simulated partitioning algorithm, each an estimate with its confidence interval.

    ``expected_templates`` and ``expected_cost`` have the names of the exact law's
    (:class:`~analytic.partitioning.ConfigurationLaw`): ``compare(law, run)``
    (:func:`~analytic.simulation.compare`) pairs them up.

    Attributes
    ----------
    algorithm : str
        ``"DGP"``, ``"ADGP"`` or ``"Max-Weight"``.
    queue : Estimates
        Mean jobs of each type in the system, ``E Q^(j)`` (waiting or in service).
    expected_templates : Estimates
        Mean templates of each type in the configuration, ``E|C^(j)|`` (actual and virtual).
    actual : Estimates
        Mean templates holding a job (jobs in service).
    expected_cost : Estimate
        Mean partition cost of the configuration, ``E Σ_j Σ_(A ∈ C^(j)) b_A`` (Theorems 1 and 2).
    actual_cost : Estimate
        Mean partition cost of the templates holding jobs (the traffic actually carried).
    cost_levels : numpy.ndarray
        The configuration costs that can occur.
    cost_law : Estimates
        Fraction of time spent at each cost level.
    throughput : Estimates
        Departures of each type per unit time.
    interruptions : Estimate
        Jobs migrated per unit time by configuration changes (0 for DGP and ADGP: none by design).
    stationary : bool
        False when the total queue grows significantly over the run (:func:`analytic.simulation.growth_rate`
        on the batch averages of the first replication): the loads are then likely outside Λ, or the
        run too short.
    duration : float
        Simulated time per replication (warm-up included).
    level, method, samples, replications, warmup, seed
        The run (:class:`~analytic.simulation.SimulationRun`); ``warmup`` is the time each
        replication discards.

    Examples
    --------
    >>> from analytic.partitioning import simulate_dgp
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> run = simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, alpha=0.5, beta=0.5, frozen_queues=[20], time=2_000, seed=1)
    >>> run.samples, run.method, run.expected_templates[0].samples
    (20, 'batch means', 20)
    """

    algorithm: str
    queue: Estimates
    expected_templates: Estimates
    actual: Estimates
    expected_cost: Estimate
    actual_cost: Estimate
    cost_levels: np.ndarray
    cost_law: Estimates
    throughput: Estimates
    interruptions: Estimate
    stationary: bool
    duration: float

    cost = renamed_attribute("expected_cost")
    templates = renamed_attribute("expected_templates")
    cost_estimate = renamed_attribute("expected_cost")
    queue_ci = renamed_attribute("queue.half_width")
    templates_ci = renamed_attribute("expected_templates.half_width")
    actual_ci = renamed_attribute("actual.half_width")
    cost_ci = renamed_attribute("expected_cost.half_width")
    actual_cost_ci = renamed_attribute("actual_cost.half_width")
    cost_law_ci = renamed_attribute("cost_law.half_width")
    throughput_ci = renamed_attribute("throughput.half_width")
    interruptions_ci = renamed_attribute("interruptions.half_width")

    def templates_estimate(self, job: int = 0) -> Estimate:
        """Deprecated: ``expected_templates[job]``, the estimate of the job type ``job``."""
        return self._entry("templates_estimate", "expected_templates", job)

    def queue_estimate(self, job: int = 0) -> Estimate:
        """Deprecated: ``queue[job]``, the estimate of the job type ``job``."""
        return self._entry("queue_estimate", "queue", job)

    def _entry(self, old: str, name: str, job: object) -> Estimate:
        return renamed_entry("PartitioningSimulation", old, f"{name}[job]", getattr(self, name), "job", job)

    def cost_law_estimate(self, cost: float) -> Estimate:
        """Deprecated: ``cost_law[i]`` with ``cost_levels[i]`` the cost.

        Parameters
        ----------
        cost : float
            A partition cost.

        Returns
        -------
        Estimate
        """
        cost = real("cost", cost)
        hits = np.flatnonzero(np.abs(self.cost_levels - cost) <= 1e-9 * max(1.0, abs(cost)))
        if not hits.size:
            raise InvalidParameterError("cost", cost, f"must be one of the cost levels {self.cost_levels.tolist()}")
        warn("PartitioningSimulation.cost_law_estimate()", "PartitioningSimulation.cost_law[i] (cost_levels[i] the cost)")
        return self.cost_law[int(hits[0])]

    def __repr__(self) -> str:
        def vector(estimates: Estimates) -> str:
            return "[" + ", ".join(f"{e.value:.6g} ± {e.half_width:.2g}" for e in estimates) + "]"
        return (f"PartitioningSimulation({self.algorithm}, expected_cost={self.expected_cost:.6g}, "
                f"queue={vector(self.queue)}, expected_templates={vector(self.expected_templates)}, "
                f"interruptions={self.interruptions:.4g}, stationary={self.stationary}, level={self.level:.0%}, "
                f"{self.samples} {self.method})")


# ---------------------------------------------------------------------------------------------
# Set-up, replications and estimates
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Setup:
    """What a replication needs (picklable, for process and cluster executors)."""

    algorithm: str
    cluster: Cluster
    jobs: tuple[GraphJob, ...]
    weight_parameters: np.ndarray        # (α, h, ε, b)
    beta: float
    clock_rate: float
    frozen: np.ndarray | None            # frozen queue weights q_j, or None
    frame: float
    initial_queues: np.ndarray
    levels: np.ndarray
    edges: np.ndarray                    # warm-up end, then batch ends


@dataclass(frozen=True)
class _Tallies:
    area_q: np.ndarray
    area_n: np.ndarray
    area_a: np.ndarray
    area_cost: np.ndarray
    area_actual: np.ndarray
    level_time: np.ndarray
    departures: np.ndarray
    migrated: np.ndarray


def _tallies(batches: int, types: int, levels: int) -> _Tallies:
    return _Tallies(np.zeros((batches, types)), np.zeros((batches, types)), np.zeros((batches, types)), np.zeros(batches),
                    np.zeros(batches), np.zeros((batches, levels)), np.zeros((batches, types)), np.zeros(batches))


def _run_templates(setup: _Setup, seed: np.random.SeedSequence) -> _Tallies:
    cluster, jobs = setup.cluster, setup.jobs
    rng = np.random.default_rng(seed)
    types, total = len(jobs), cluster.total_slots
    nodes = np.array([job.nodes for job in jobs], dtype=np.int64)
    width = max(1, max(len(job.edges) for job in jobs))
    edges = np.zeros((types, width, 2), dtype=np.int64)
    edge_weights = np.zeros((types, width))
    for j, job in enumerate(jobs):
        edges[j, :len(job.edges)] = job.edges
        edge_weights[j, :len(job.edges)] = job.edge_weights
    tallies = _tallies(len(setup.edges) - 1, types, len(setup.levels))
    queues = setup.initial_queues.astype(np.int64).copy()
    q = np.zeros(types) if setup.frozen is None else setup.frozen.copy()
    update_weights(q, queues.astype(float), setup.frozen is not None, setup.weight_parameters, total)
    capacity = total
    arrays = dict(slot_owner=np.full(total, -1, dtype=np.int64), free=np.arange(total, dtype=np.int64),
                  free_pos=np.arange(total, dtype=np.int64), template_type=np.zeros(capacity, dtype=np.int64),
                  template_actual=np.zeros(capacity, dtype=np.bool_), template_cost=np.zeros(capacity),
                  template_slots=np.zeros((capacity, int(nodes.max())), dtype=np.int64),
                  members=np.zeros((types, 2 * capacity), dtype=np.int64), member_pos=np.zeros(capacity, dtype=np.int64),
                  member_count=np.zeros((types, 2), dtype=np.int64), spare=np.arange(capacity, dtype=np.int64)[::-1].copy())
    state = np.array([0, total, capacity, _level_index(setup.levels, 0.0)], dtype=np.int64)
    times = np.zeros(3)
    mode = DGP if setup.algorithm == "DGP" else ADGP
    arrival = np.array([job.arrival_rate for job in jobs])
    service = np.array([job.service_rate for job in jobs])
    while True:
        uniforms = rng.random(CHUNK)
        state[0] = 0
        status = template_loop(mode, uniforms, setup.frozen is not None, setup.weight_parameters, setup.beta,
                               setup.clock_rate, arrival, service, nodes, edges, edge_weights,
                               np.array([len(job.edges) for job in jobs], dtype=np.int64), cluster.machine_of_slot,
                               np.ascontiguousarray(cluster.distance), setup.levels, setup.edges, state, times, queues, q,
                               np.zeros(5 * types), arrays["slot_owner"], arrays["free"], arrays["free_pos"],
                               arrays["template_type"], arrays["template_actual"], arrays["template_cost"],
                               arrays["template_slots"], arrays["members"], arrays["member_pos"], arrays["member_count"],
                               arrays["spare"],
                               tallies.area_q, tallies.area_n, tallies.area_a, tallies.area_cost, tallies.area_actual,
                               tallies.level_time, tallies.departures)
        if status == DONE:
            return tallies
        if status == OVERFLOW:
            raise UnstableSystemError("ADGP clock exponent max_j q_j/β", float(np.max(q) / setup.beta), 700.0,
                                      "the dedicated clocks' rate λ̂ e^(q/β) overflows; the queues grew without bound")


def _level_index(levels: np.ndarray, cost: float) -> int:
    return int(np.argmin(np.abs(levels - cost)))


def _run_frames(setup: _Setup, seed: np.random.SeedSequence) -> _Tallies:
    cluster, jobs = setup.cluster, setup.jobs
    packings = cheapest_packings(cluster, jobs)
    types = len(jobs)
    most = int(packings.templates.max())
    filled = np.zeros((len(packings.cost), types, most + 1))
    for i, state in enumerate(packings.state.tolist()):
        for j in range(types):
            costs = sorted(b for t, _, b in packings.configurations.describe(state) if t == j)
            filled[i, j, 1:len(costs) + 1] = np.cumsum(costs)
            filled[i, j, len(costs) + 1:] = filled[i, j, len(costs)]
    rng = np.random.default_rng(seed)
    tallies = _tallies(len(setup.edges) - 1, types, len(setup.levels))
    queues = setup.initial_queues.astype(np.int64).copy()
    state = np.zeros(3, dtype=np.int64)
    times = np.zeros(2)
    arrival = np.array([job.arrival_rate for job in jobs])
    service = np.array([job.service_rate for job in jobs])
    while True:
        uniforms = rng.random(CHUNK)
        state[0] = 0
        status = frame_loop(uniforms, setup.frame, setup.weight_parameters, arrival, service,
                            packings.templates.astype(np.int64), packings.cost, filled, setup.levels, setup.edges, state,
                            times, queues, np.zeros(5 * types), tallies.area_q, tallies.area_n, tallies.area_a,
                            tallies.area_cost, tallies.area_actual, tallies.level_time, tallies.departures, tallies.migrated)
        if status == DONE:
            return tallies


def _replication(setup: _Setup, seed: np.random.SeedSequence) -> _Tallies:
    return _run_frames(setup, seed) if setup.algorithm == "Max-Weight" else _run_templates(setup, seed)


def _summarise(setup: _Setup, runs: list[_Tallies], level: float, seed: np.random.SeedSequence) -> PartitioningSimulation:
    """Time averages with intervals: over replications when there are several, else over the batches of one."""
    spans = np.diff(setup.edges)
    method, sums = pooled(runs)
    widths = spans if len(runs) == 1 else np.full(len(runs), spans.sum())    # the time of each sample

    samples = len(runs) if len(runs) > 1 else len(spans)

    def estimate(name: str) -> Estimates:
        values = sums[name]
        value, half = column_estimates(values / widths.reshape((-1,) + (1,) * (values.ndim - 1)), level, method)
        return Estimates(value, half, level, method, samples)

    totals = runs[0].area_q.sum(axis=1) / spans
    growth = growth_rate(totals, 0.5 * (setup.edges[1:] + setup.edges[:-1])) if len(spans) >= 3 else None
    scalars = {name: estimate(column)[()] for name, column in
               (("expected_cost", "area_cost"), ("actual_cost", "area_actual"), ("interruptions", "migrated"))}
    return PartitioningSimulation(
        algorithm=setup.algorithm, queue=estimate("area_q"), expected_templates=estimate("area_n"), actual=estimate("area_a"),
        **scalars, cost_levels=setup.levels, cost_law=estimate("level_time"), throughput=estimate("departures"),
        stationary=True if growth is None else growth.stationary, level=level, method=method, samples=samples,
        duration=float(setup.edges[-1]), warmup=float(setup.edges[0]), replications=len(runs), seed=seed.entropy)

#: Most clock ticks (ADGP) or frames (Max-Weight) one run may ask for: each is an event of the loop.
MAX_EVENTS = 1e12


def _simulate(algorithm: str, cluster: Cluster, jobs, alpha: float, beta: float, b: float, h: float, epsilon: float,
              frozen_queues, clock_rate: float, frame: float, time: float, warmup: float | None, replications: int,
              seed, executor: Executor | None, level: float, batches: int, initial_queues, progress: bool | None
              ) -> PartitioningSimulation:
    types = check_jobs(cluster, jobs)
    a = positive("alpha", alpha)
    temperature = positive("beta", beta)
    b, _ = check_exponent(b)
    bias = real("h", h, allow_infinite=True)
    if not bias >= 1 or not math.isfinite(bias):
        raise InvalidParameterError("h", h, "must be finite and >= 1 (f = log^(1-b) is evaluated at h + Q)")
    share = positive("epsilon", epsilon)
    if share >= 1:
        raise InvalidParameterError("epsilon", epsilon, "must lie in (0, 1) (eq. 12)")
    horizon = positive("time", time)
    skip = 0.1 * horizon if warmup is None else real("warmup", warmup)
    if clock_rate * horizon > MAX_EVENTS:
        raise InvalidParameterError("clock_rate", clock_rate, f"times time = {horizon:g} asks for {clock_rate * horizon:.3g} "
                                                              f"clock ticks, more than {MAX_EVENTS:g}")
    if frame > 0 and horizon / frame > MAX_EVENTS:
        raise InvalidParameterError("frame", frame, f"divides time = {horizon:g} into {horizon / frame:.3g} frames, "
                                                    f"more than {MAX_EVENTS:g}")
    if not 0 <= skip < horizon:
        raise InvalidParameterError("warmup", warmup, f"must lie in [0, time = {horizon:g})")
    runs = integer("replications", replications)
    k = integer("batches", batches, minimum=2 if runs == 1 else 1)
    require(8 * k * (6 * len(types) + 4), f"the tallies of {k:,} batches", k)
    edges = skip + (horizon - skip) * np.arange(k + 1) / k
    if not np.all(np.diff(edges) > 0):
        raise InvalidParameterError("time", time, f"leaves {horizon - skip:g} after a warm-up of {skip:g}: too short to "
                                                  f"split into {k} batches of positive length in double precision")
    confidence("level", level)
    check_executor(executor)
    start = np.zeros(len(types), dtype=np.int64) if initial_queues is None else numeric_array(
        "initial_queues", initial_queues, f"must be {len(types)} non-negative integers")
    if start.shape != (len(types),) or not np.issubdtype(start.dtype, np.integer) or (start < 0).any():
        raise InvalidParameterError("initial_queues", initial_queues, f"must be {len(types)} non-negative integers")
    parameters = np.array([a, bias, share, float(b)])
    frozen = None
    if frozen_queues is not None:
        fixed = real_array("frozen_queues", frozen_queues, allow_infinite=True, allow_nan=True)
        if fixed.shape != (len(types),) or not np.all(np.isfinite(fixed)) or (fixed < 0).any():
            raise InvalidParameterError("frozen_queues", frozen_queues, f"must be {len(types)} finite numbers >= 0")
        frozen = np.zeros(len(types))
        update_weights(frozen, fixed, False, parameters, cluster.total_slots)
    if clock_rate > 0:
        _check_ticks(frozen, parameters, cluster, len(types), clock_rate, horizon, temperature, frozen_queues)
    if algorithm == "Max-Weight":
        levels = np.unique(cheapest_packings(cluster, types).cost)
    else:
        levels = np.unique(state_space(cluster, types).cost)
    setup = _Setup(algorithm=algorithm, cluster=cluster, jobs=types, weight_parameters=parameters, beta=temperature,
                   clock_rate=clock_rate, frozen=frozen, frame=frame, initial_queues=start, levels=levels, edges=edges)
    root, results = run_replications(_replication, setup, runs, seed, executor, progress, algorithm)
    return _summarise(setup, results, level, root)


def _check_ticks(frozen: np.ndarray | None, parameters: np.ndarray, cluster: Cluster, n_types: int, clock_rate: float,
                 horizon: float, temperature: float, frozen_queues) -> None:
    """ADGP's clocks tick at ``λ̂ e^(q_j/β)`` per type, with weights ``q`` nondecreasing in the queues:
    at least at their value with empty queues (known in advance when ``q`` is frozen). Refuse a run
    whose ticks would exceed ``MAX_EVENTS``, naming what makes them many."""
    least = frozen
    if least is None:
        least = np.zeros(n_types)
        update_weights(least, np.zeros(n_types), False, parameters, cluster.total_slots)
    log_ticks = math.log(clock_rate) + math.log(horizon) + float(logsumexp(least / temperature))
    if log_ticks <= math.log(MAX_EVENTS):
        return
    alpha, h = float(parameters[0]), float(parameters[1])
    clocks = (f"whose clocks λ̂ e^(q/β) at beta = {temperature:g} tick about e^{log_ticks:.4g} times over time = "
              f"{horizon:g}, more than {MAX_EVENTS:g}")
    if frozen is not None:
        raise InvalidParameterError("frozen_queues", frozen_queues, f"give weights q = {frozen.tolist()} (alpha = "
                                    f"{alpha:g}) {clocks}")
    raise InvalidParameterError("h", h, f"gives weights q = α f(h) >= {least.tolist()} even with empty queues (alpha = "
                                f"{alpha:g}) {clocks}")


_COMMON = """
    cluster : Cluster
    jobs : GraphJob or sequence of GraphJob
    alpha : float
        α > 0, the weight of the queues (eq. 11).
    beta : float
        β > 0, the temperature.
    b : float
        Exponent of ``f(x) = log^(1-b)(x)``, in [0, 1) (Theorem 2 takes b in (0, 1); 0 gives ``log``).
    h : float
        The bias h >= 1 added to the queues.
    epsilon : float
        ε in (0, 1): the floor ``ε/(8M) f(h + Q_max)`` of eq. (12).
    frozen_queues : sequence of float, optional
        Freeze the weights at ``α f^(j)(h + Q)`` for this queue vector: the configuration then
        evolves as DGP-bar (ADGP-bar) of Section 6 (Appendix B), independently of the queues.
    time : (run control)
    warmup : (run control)
    replications : (run control)
    seed : (run control)
    executor : (run control)
    level : (run control)
    batches : (run control)
        At least 2 with one replication, else at least 1.
    initial_queues : sequence of int, optional
        Jobs of each type in the system at time 0 (default none): starting near the operating queue
        (:func:`~.operating.operating_point`) shortens the warm-up.
    progress : (run control)
"""


def _shared_parameters(function: Callable) -> Callable:
    """Write the parameters the DGP simulators share (:data:`_COMMON`) into ``function``'s docstring."""
    function.__doc__ = function.__doc__.replace("\n    (parameters shared by the simulators)\n", _COMMON)
    return function


@run_control("time")
@_shared_parameters
def simulate_dgp(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob], alpha: float, beta: float, *, b: float = 0.5,
                 h: float = math.e, epsilon: float = 0.5, frozen_queues: Sequence[float] | None = None,
                 time: float = 10_000.0, warmup: float | None = None, replications: int = 1,
                 seed: int | np.random.SeedSequence | np.random.Generator | None = None, executor: Executor | None = None,
                 level: float = 0.95, batches: int = 20, initial_queues: Sequence[int] | None = None,
                 progress: bool | None = None) -> PartitioningSimulation:
    """Simulate the Dynamic Graph Partitioning algorithm (Algorithm 3 with Algorithm 2).

    Parameters
    ----------
    (parameters shared by the simulators)

    Returns
    -------
    PartitioningSimulation
        Mean queues, templates, partition cost and the cost's law, with half-widths.

    Raises
    ------
    InvalidParameterError
        Bad cluster, jobs or parameters (non-positive α or β, h < 1, ε outside (0, 1), b outside
        [0, 1), warm-up not below ``time``, a non-executor).

    Examples
    --------
    With frozen weights the configuration follows π* of eq. (15):

    >>> from analytic.partitioning.distributions import dgp_distribution
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> from analytic.partitioning.weights import dgp_queue_weights
    >>> from analytic.simulation import compare
    >>> run = simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, alpha=0.5, beta=0.5, frozen_queues=[20], time=20_000, seed=1)
    >>> q = dgp_queue_weights([20], 0.5, 2.718281828459045, 0.5, 12, 0.5)
    >>> compare(run.expected_cost, dgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, q, 0.5).expected_cost).verdict
    'agrees'
    """
    return _simulate("DGP", cluster, jobs, alpha, beta, b, h, epsilon, frozen_queues, 0.0, 0.0, time, warmup, replications,
                     seed, executor, level, batches, initial_queues, progress)


@run_control("time")
@_shared_parameters
def simulate_adgp(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob], alpha: float, beta: float, clock_rate: float, *,
                  b: float = 0.5, h: float = math.e, epsilon: float = 0.5, frozen_queues: Sequence[float] | None = None,
                  time: float = 10_000.0, warmup: float | None = None, replications: int = 1,
                  seed: int | np.random.SeedSequence | np.random.Generator | None = None, executor: Executor | None = None,
                  level: float = 0.95, batches: int = 20, initial_queues: Sequence[int] | None = None,
                  progress: bool | None = None) -> PartitioningSimulation:
    """Simulate the Alternative Dynamic Graph Partitioning algorithm (Algorithm 4, dedicated clocks).

    Parameters
    ----------
    (parameters shared by the simulators)
    clock_rate : float
        λ̂ > 0, the base rate of the dedicated clocks.

    Returns
    -------
    PartitioningSimulation

    Raises
    ------
    InvalidParameterError
        As :func:`simulate_dgp`, or a non-positive clock rate.
    UnstableSystemError
        The clocks' rate ``λ̂ e^(q/β)`` overflowed (the queues grew without bound).

    Examples
    --------
    >>> from analytic.partitioning.distributions import adgp_distribution
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> from analytic.partitioning.weights import dgp_queue_weights
    >>> from analytic.simulation import compare
    >>> run = simulate_adgp(FIGURE1_CLUSTER, FIGURE1_JOB, 0.5, 0.5, 0.05, frozen_queues=[20], time=20_000, seed=2)
    >>> q = dgp_queue_weights([20], 0.5, 2.718281828459045, 0.5, 12, 0.5)
    >>> compare(run.expected_cost, adgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, 0.05, q, 0.5).expected_cost).verdict
    'agrees'
    """
    rate = positive("clock_rate", clock_rate)
    return _simulate("ADGP", cluster, jobs, alpha, beta, b, h, epsilon, frozen_queues, rate, 0.0, time, warmup, replications,
                     seed, executor, level, batches, initial_queues, progress)


def simulate_max_weight(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob], alpha: float, frame: float, *, b: float = 0.0,
                        time: float = 10_000.0, warmup: float | None = None, replications: int = 1,
                        seed: int | np.random.SeedSequence | np.random.Generator | None = None,
                        executor: Executor | None = None, level: float = 0.95, batches: int = 20,
                        initial_queues: Sequence[int] | None = None, progress: bool | None = None) -> PartitioningSimulation:
    """Simulate the frame-based Max-Weight algorithm (Algorithm 1) with ``f(x) = log^(1-b)(1 + x)``.

    Parameters
    ----------
    cluster : Cluster
    jobs : GraphJob or sequence of GraphJob
    alpha : float
        α > 0 in eq. (10).
    frame : float
        T > 0, the time between configuration updates.
    b : float
        Exponent of f, in [0, 1); the default ``f(x) = log(1 + x)``.
    time, warmup, replications, seed, executor, level, batches, initial_queues, progress
        As in :func:`simulate_dgp`.

    Returns
    -------
    PartitioningSimulation
        With ``interruptions``: jobs in service per unit time whose configuration was replaced.

    Examples
    --------
    Figure 1 at ρ = 1: Max-Weight uses only cost-1 templates, so its mean cost is the mean number of
    templates installed (each costs 1), which is at least G(x*) = 1.

    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> run = simulate_max_weight(FIGURE1_CLUSTER, FIGURE1_JOB, alpha=1.0, frame=1.0, time=5_000, seed=3)
    >>> cost = run.expected_cost.value
    >>> bool(abs(cost - run.expected_templates.value[0]) < 1e-12), bool(cost > 1.0), run.stationary
    (True, True, True)
    """
    span = positive("frame", frame)
    return _simulate("Max-Weight", cluster, jobs, alpha, 1.0, b, 1.0, 0.5, None, 0.0, span, time, warmup, replications,
                     seed, executor, level, batches, initial_queues, progress)
