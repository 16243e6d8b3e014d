"""The simulation experiments of Anselmi & Doncel, Section 6 (Figures 1–3), as systems and a policy sweep.

Each figure plots the mean response time of every policy against k or the load. The paper states
the class models (Figure 1's caption, Tables 2–3) but not every parameter; the choices made here:

* Figure 1 (critical regime): θ = 0.7, and the load at k servers in one of two readings
  (:data:`FIGURE1_READINGS`). Scaling (8b) of Section 4.4 reads (1 - ρ^(k)) √(k/f_k) = θ, so
  ρ^(k) = 1 - θ √(f_k/k); Section 1.3, which introduces Figure 1, prints "(1 - ρ)√k/f_k -> θ", so
  ρ^(k) = 1 - θ f_k/√k. At k = 32 (f_k = 1) both give 0.8763; at k = 256, 2048, 16384 scaling (8b)
  gives 0.9125, 0.9381, 0.9563 and the printed formula 0.8250, 0.7525, 0.6500 (it falls below 0
  from k ≈ 9·10⁶, since f_k/√k grows like k^(1/6), so it cannot be the limit regime of Theorem 2,
  but it is a valid load at every k of the figure). The values of k are those where k and every
  need (f_k, 2f_k, 4f_k, 8f_k) are powers of two, as Remark 2 requires: 32, 256, 2048, 16384.
* Figure 2 (same classes): heavy traffic at k = 2048 (f_k = 16) for loads up to 0.98, and the
  subcritical scaling (7) at load 0.8 for the values of k of Figure 1. The paper gives neither k
  nor the load.
* Figure 3: Tables 2–3 at k = 512 and 1024 for loads 0.3 to 0.9. The traces are not available:
  sizes follow the two-moment fit of each class's mean and standard deviation
  (:func:`analytic.simulation.fitted`, a two-phase hyperexponential here, every class having
  std > mean) and arrivals are Poisson.

:func:`sweep` runs every (system, policy) pair — one simulation each, the same seed for every
policy of a system (common random numbers) — through an executor, one task per pair.

The rows of ``analytic reproduce`` for Figures 1–3 simulate the paper's 10⁶ arrivals per point for
the policies each sentence names (a few minutes on two cores): Figure 1's sentences under both
readings of its load, Section 6.1's on Figure 2, and Figure 3's as *not reproduced* (class models
instead of the traces). Every point of Figures 1-2 gets two more rows from the same runs (each sweep
runs once per process): condition (5) of Proposition 1 with the helpers' load and eq. (16), and the
classes whose mean response time under BS-FCFS lies below FCFS's and ServerFilling's.

One module (over 700 lines): the rows of Figures 1–3 read the sweeps of the systems defined here, run once per
process, so splitting the systems from their rows would split one experiment.
"""

from __future__ import annotations

import functools
import math
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from numbers import Integral

import numpy as np
from tqdm import tqdm

from analytic._deprecation import renamed_arguments, renamed_attribute
from analytic.errors import InvalidParameterError
from analytic.reproduce import Row, reproduces
from analytic.simulation import Estimates, SerialExecutor, check_executor
from analytic.splitting.bounds import helper_probability_bound, stability_margin
from analytic.splitting.classes import RigidClass, check_classes, check_server_count, check_servers, total_rate
from analytic.splitting.limits import subcritical_system
from analytic.splitting.paper import figure1_classes, figure1_need_scale
from analytic.splitting.policies import POLICIES
from analytic.splitting.simulation import MultiserverSimulation, simulate_multiserver
from analytic.validation import instances, integer, positive, real_array

__all__ = ["FIGURE1_READINGS", "FIGURE1_SERVERS", "FIGURE_POLICIES", "Sweep", "System", "figure1_load",
           "figure1_systems", "figure2_heavy_traffic", "figure2_subcritical", "figure3_systems", "sweep"]

#: The policies the figures compare (every built-in one but ModifiedBS, which the paper only analyses).
FIGURE_POLICIES = ("bs-fcfs", "fcfs", "ffbf", "maxweight", "msf", "server-filling", "server-filling-srpt",
                   "server-filling-gittins", "ff-srpt")

#: Values of k of Figures 1 and 2b: k and every need f_k, ..., 8 f_k powers of two.
FIGURE1_SERVERS = (32, 256, 2048, 16384)

#: The two readings of Figure 1's load: scaling (8b), (1 - ρ) √(k/f_k) = θ, and Section 1.3 as printed,
#: (1 - ρ) √k / f_k = θ.
FIGURE1_READINGS = ("scaling (8b)", "as printed")


@dataclass(frozen=True)
class System:
    """One point of a figure: k servers, the classes, the total arrival rate and the load.

    Attributes
    ----------
    label : str
    x : float
        The abscissa of the figure (k or the load).
    servers : int
    classes : tuple of RigidClass
    arrival_rate : float
    load : float

    Examples
    --------
    >>> from analytic.splitting import figure2_subcritical
    >>> figure2_subcritical(0.8, (32,))[0].label
    'k = 32'
    """

    label: str
    x: float
    servers: int
    classes: tuple[RigidClass, ...]
    arrival_rate: float
    load: float


def figure1_load(servers: int, theta: float = 0.7, reading: str = "scaling (8b)") -> float:
    """The load of Figure 1 at k servers: 1 - θ √(f_k/k) (scaling (8b)) or 1 - θ f_k/√k (Section 1.3 as printed).

    Parameters
    ----------
    servers : int
        k, an integer in [32, 1.8e308].
    theta : float
        θ > 0 (Figure 1: 0.7).
    reading : str
        One of :data:`FIGURE1_READINGS`.

    Returns
    -------
    float
        ρ^(k) in (0, 1).

    Raises
    ------
    InvalidParameterError
        Bad inputs, an unknown reading, or a load outside (0, 1) (the printed formula at k ≳ 9·10⁶; a
        load that rounds to 1 in doubles, scaling (8b) at k ≳ 10⁹⁷).

    Examples
    --------
    >>> [round(figure1_load(k, 0.7, r), 4) for r in FIGURE1_READINGS for k in (32, 2048)]
    [0.8763, 0.9381, 0.8763, 0.7525]
    """
    k = check_server_count(servers, minimum=32)
    theta = positive("theta", theta)
    if not isinstance(reading, str) or reading not in FIGURE1_READINGS:
        raise InvalidParameterError("reading", reading, f"must be one of {', '.join(map(repr, FIGURE1_READINGS))}")
    f = figure1_need_scale(k)
    gap = theta * math.sqrt(f / k) if reading == FIGURE1_READINGS[0] else theta * f / math.sqrt(k)
    if not 0 < 1 - gap < 1:
        raise InvalidParameterError("theta", theta, f"gives the load 1 - {gap:.6g} at k = {k:.6g} ({reading}): it must lie "
                                                    "in (0, 1) in double precision")
    return 1 - gap


def figure1_systems(servers: Sequence[int] = FIGURE1_SERVERS, theta: float = 0.7,
                    reading: str = "scaling (8b)") -> tuple[System, ...]:
    """Figure 1: the "several small and few large" model at the critical load of :func:`figure1_load`.

    Parameters
    ----------
    servers : sequence of int
        The values of k (default :data:`FIGURE1_SERVERS`).
    theta : float
        θ (Figure 1: 0.7).
    reading : str
        How the load follows k, one of :data:`FIGURE1_READINGS` (the module's docstring).

    Returns
    -------
    tuple of System

    Raises
    ------
    InvalidParameterError
        Bad inputs (those of :func:`figure1_load`).

    Examples
    --------
    >>> [(s.servers, s.classes[0].need, round(s.load, 4)) for s in figure1_systems((256, 2048))]
    [(256, 4, 0.9125), (2048, 16, 0.9381)]
    >>> [round(s.load, 4) for s in figure1_systems((256, 2048), reading="as printed")]
    [0.825, 0.7525]
    """
    result = []
    for k in instances("servers", servers, Integral):
        load = figure1_load(k, theta, reading)
        result.append(_system(f"k = {k}", k, k, figure1_classes(figure1_need_scale(k)), load))
    return tuple(result)


def figure2_heavy_traffic(servers: int = 2048, loads: Sequence[float] = (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.98)
                          ) -> tuple[System, ...]:
    """Figure 2a: Figure 1's classes at fixed k, the load rising towards one.

    Parameters
    ----------
    servers : int
        k, an integer in [32, 1.8e308].
    loads : sequence of float
        The loads ρ, in (0, 1).

    Returns
    -------
    tuple of System

    Raises
    ------
    InvalidParameterError
        Bad servers or loads.

    Examples
    --------
    >>> [round(s.arrival_rate, 6) for s in figure2_heavy_traffic(256, (0.5,))]
    [6.464646]
    """
    k = check_server_count(servers, minimum=32)
    classes = figure1_classes(figure1_need_scale(k))
    return tuple(_system(f"ρ = {rho:g}", rho, k, classes, rho) for rho in _loads(loads))


def figure2_subcritical(load: float = 0.8, servers: Sequence[int] = FIGURE1_SERVERS) -> tuple[System, ...]:
    """Figure 2b: Figure 1's classes in the subcritical scaling (7) at a fixed load.

    Parameters
    ----------
    load : float
        ρ in [2**-1022 ϱ, 1), fixed (ϱ = 4.95, the relative demand of Figure 1's classes).
    servers : sequence of int
        The values of k.

    Returns
    -------
    tuple of System

    Raises
    ------
    InvalidParameterError
        Bad servers or load (those of :func:`subcritical_system`).
    UnstableSystemError
        ρ >= 1.

    Examples
    --------
    >>> [(s.servers, round(s.load, 12)) for s in figure2_subcritical(0.8, (32, 256))]
    [(32, 0.8), (256, 0.8)]
    """
    base = figure1_classes()
    demand = float(sum(c.demand for c in base))
    rate = positive("load", load) / demand
    if rate < sys.float_info.min:
        raise InvalidParameterError("load", load, f"must be at least 2**-1022 ϱ = {sys.float_info.min * demand:.6g} (ϱ = "
                                                  f"{demand:g}): the base arrival rate ρ / ϱ of scaling (7) is otherwise "
                                                  "below the normal doubles")
    result = []
    for k in instances("servers", servers, Integral):
        system = subcritical_system(k, figure1_need_scale(k), rate, base)
        result.append(System(f"k = {k}", k, k, system.classes, system.arrival_rate, system.load))
    return tuple(result)


def figure3_systems(classes: Iterable[RigidClass], servers: int,
                    loads: Sequence[float] = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)) -> tuple[System, ...]:
    """Figure 3: a class table (SDSC_SP2 or KIT_FH2) at k servers over a range of loads.

    Parameters
    ----------
    classes : sequence of RigidClass
        A class table.
    servers : int
        k, an integer in [max_i n_i, 1.8e308].
    loads : sequence of float
        The loads ρ, in (0, 1).

    Returns
    -------
    tuple of System

    Raises
    ------
    InvalidParameterError
        Bad classes, servers or loads, or an arrival rate ρ k / ϱ beyond the largest float.

    Examples
    --------
    >>> from analytic.splitting import SDSC_SP2
    >>> [round(s.arrival_rate * 1e3, 6) for s in figure3_systems(SDSC_SP2, 1024, (0.5,))]
    [4.863966]
    """
    classes = check_classes(classes)
    k = check_servers(servers, classes)
    return tuple(_system(f"ρ = {rho:g}", rho, k, classes, rho) for rho in _loads(loads))


def _system(label: str, x: float, servers: int, classes: tuple[RigidClass, ...], load: float) -> System:
    """The system at load ρ on k servers: λ = ρ k / ϱ (eq. 1)."""
    return System(label, x, servers, classes, total_rate(load, servers, float(sum(c.demand for c in classes)), "ρ k / ϱ"),
                  load)


def _loads(loads: object) -> list[float]:
    values = real_array("loads", loads, ndim=1, allow_empty=False)
    if np.any((values <= 0) | (values >= 1)):
        raise InvalidParameterError("loads", loads, "must lie in (0, 1): a load ρ = λ ϱ / k of eq. (1) at or above 1 is "
                                                    "unstable under every policy")
    return values.tolist()


@dataclass(frozen=True, repr=False)
class Sweep:
    """Simulations of every policy at every system: ``results[p][s]`` for ``policies[p]``, ``systems[s]``.

    Attributes
    ----------
    systems : tuple of System
        The systems, in order.
    policies : tuple of str
        The policies, in order.
    results : tuple of tuple of MultiserverSimulation
        One simulation per policy and system.
    arrivals : int
        Arrivals per simulation.

    Examples
    --------
    >>> from analytic.splitting import figure2_subcritical, sweep
    >>> small = sweep(figure2_subcritical(0.5, (32,)), ("fcfs", "bs-fcfs"), arrivals=4000, progress=False)
    >>> small.mean_response_time.value.shape
    (2, 1)
    """

    systems: tuple[System, ...]
    policies: tuple[str, ...]
    results: tuple[tuple[MultiserverSimulation, ...], ...]
    arrivals: int

    jobs = renamed_attribute("arrivals")
    mean_response_time_ci = renamed_attribute("mean_response_time.half_width")

    def _field(self, name: str) -> np.ndarray:
        return np.array([[getattr(r, name) for r in row] for row in self.results])

    @property
    def mean_response_time(self) -> Estimates:
        """E[R] with its intervals, shape (policies, systems) (every run has the level and batches of the first)."""
        first = self.results[0][0]
        estimates = [[r.mean_response_time for r in row] for row in self.results]
        return Estimates(np.array([[e.value for e in row] for row in estimates]),
                         np.array([[e.half_width for e in row] for row in estimates]), first.level, first.method, first.samples)

    @property
    def stationary(self) -> np.ndarray:
        """Whether each run looked stationary (:class:`~analytic.simulation.Growth`), shape (policies, systems)."""
        return self._field("stationary")

    def result(self, policy: str, index: int) -> MultiserverSimulation:
        """The simulation of ``policy`` at ``systems[index]``.

        Parameters
        ----------
        policy : str
            One of :attr:`policies`.
        index : int
            Position of the system.

        Returns
        -------
        MultiserverSimulation

        Examples
        --------
        >>> from analytic.splitting import figure2_subcritical, sweep
        >>> small = sweep(figure2_subcritical(0.5, (32,)), ("fcfs",), arrivals=4000, progress=False)
        >>> small.result("fcfs", 0).policy
        'fcfs'
        """
        if not isinstance(policy, str) or policy not in self.policies:
            raise InvalidParameterError("policy", policy, f"must be one of {', '.join(self.policies)}")
        position = integer("index", index, minimum=0)
        if position >= len(self.systems):
            raise InvalidParameterError("index", index, f"must be below the number of systems, {len(self.systems)}")
        return self.results[self.policies.index(policy)][position]

    def __repr__(self) -> str:
        return (f"Sweep({len(self.policies)} policies x {len(self.systems)} systems, {self.arrivals:,} arrivals each, "
                f"{int((~self.stationary).sum())} runs not stationary)")


def _simulate(policy: str, system: System, arrivals: int, seed: int) -> MultiserverSimulation:
    return simulate_multiserver(policy, system.servers, system.classes, system.arrival_rate, arrivals=arrivals, seed=seed,
                                executor=SerialExecutor())


@renamed_arguments(jobs="arrivals")
def sweep(systems: Sequence[System], policies: Sequence[str] = FIGURE_POLICIES, arrivals: int = 1_000_000, seed: int = 1,
          executor: Executor | None = None, progress: bool | None = None) -> Sweep:
    """Simulate every policy at every system: one run of ``arrivals`` arrivals (batch means) per pair.

    Parameters
    ----------
    systems : sequence of System
    policies : sequence of str
        Names of built-in policies.
    arrivals : int
        Arrivals per run (the paper: 10^6).
    seed : int
        The same for every policy of a system: they see the same arrivals and sizes.
    executor : concurrent.futures.Executor, optional
        Runs the pairs (default: a process per core).
    progress : bool, optional
        tqdm bar (default: when standard error is a terminal).

    Returns
    -------
    Sweep

    Raises
    ------
    InvalidParameterError
        An unknown policy or a bad executor; the errors of :func:`simulate_multiserver`.

    Examples
    --------
    >>> from analytic.simulation import SerialExecutor
    >>> s = sweep(figure2_heavy_traffic(256, (0.5,)), ("fcfs", "bs-fcfs"), arrivals=5_000, executor=SerialExecutor())
    >>> s.mean_response_time.value.shape
    (2, 1)
    """
    systems, policies = instances("systems", systems, System), instances("policies", policies, str)
    for name in policies:
        if name not in POLICIES:
            raise InvalidParameterError("policies", name, f"must be names of {', '.join(POLICIES)}")
    total, root = integer("arrivals", arrivals), integer("seed", seed, minimum=0)
    if progress is not None and not isinstance(progress, bool):
        raise InvalidParameterError("progress", progress, "must be True, False or None")
    pool = check_executor(executor)
    owned = pool is None
    if owned:
        pool = ProcessPoolExecutor(max_workers=os.cpu_count() or 1)
    show = progress if progress is not None else bool(getattr(sys.stderr, "isatty", lambda: False)())
    try:
        futures = [[pool.submit(functools.partial(_simulate, name, system, total, root)) for system in systems]
                   for name in policies]
        with tqdm(total=len(systems) * len(policies), desc="sweep", unit="run", disable=not show, leave=False) as bar:
            for row in futures:
                for future in row:
                    future.add_done_callback(lambda _: bar.update(1))
            results = tuple(tuple(future.result() for future in row) for row in futures)
    finally:
        if owned:
            pool.shutdown(cancel_futures=True)
    return Sweep(systems, policies, results, total)


# -- rows of `analytic reproduce`: Figures 1-3 at the paper's 10^6 arrivals per point -------------------------

_PAPER = "Anselmi & Doncel"

#: What the claims of Figure 1 compare: BS-FCFS, the two policies it "outperforms", the two it is "competitive" with.
_FIGURE1_POLICIES = ("bs-fcfs", "fcfs", "server-filling", "server-filling-srpt", "ff-srpt")


@functools.cache
def _figure1_sweep(reading: str) -> Sweep:
    """Figure 1 under one reading of its load, the policies of its sentences: run once per process, for every row."""
    return sweep(figure1_systems(reading=reading), _FIGURE1_POLICIES, arrivals=10**6, seed=1, progress=False)


@functools.cache
def _figure2_sweeps() -> tuple[Sweep, Sweep, Sweep]:
    """Figure 2a at loads up to 0.9 (every policy) and at 0.95, 0.98 (BS-FCFS and the three rivals of Section 6.1),
    Figure 2b (BS-FCFS, the two SRPT policies of Section 6.1, FCFS and ServerFilling): run once per process."""
    moderate = sweep(figure2_heavy_traffic(2048, (0.5, 0.6, 0.7, 0.8, 0.85, 0.9)), FIGURE_POLICIES, arrivals=10**6, seed=1,
                     progress=False)
    high = sweep(figure2_heavy_traffic(2048, (0.95, 0.98)), ("bs-fcfs", "fcfs", "msf", "server-filling"), arrivals=10**6,
                 seed=1, progress=False)
    sub = sweep(figure2_subcritical(0.8), ("bs-fcfs", "server-filling-srpt", "ff-srpt", "fcfs", "server-filling"),
                arrivals=10**6, seed=1, progress=False)
    return moderate, high, sub


def _below(a: float, a_ci: float, b: float, b_ci: float) -> bool:
    """Estimate a below estimate b, their 95 % intervals disjoint (False when either is NaN)."""
    return bool(a + a_ci < b - b_ci)


def _lower(sw: Sweep, a: str, b: str, i: int) -> bool:
    """E[R] of policy a below b's at point i, the 95 % intervals disjoint."""
    r = sw.mean_response_time
    pa, pb = sw.policies.index(a), sw.policies.index(b)
    return _below(r.value[pa, i], r.half_width[pa, i], r.value[pb, i], r.half_width[pb, i])


def _ratio(sw: Sweep, a: str, others: Sequence[str], i: int) -> float:
    """E[R] of a over the smallest E[R] among ``others`` at point i."""
    r = sw.mean_response_time.value
    return float(r[sw.policies.index(a), i] / min(r[sw.policies.index(o), i] for o in others))


def _where(sw: Sweep, holds: Sequence[bool]) -> str:
    """The abscissas (k or ρ) of the points where a statement holds, or "none"."""
    return ", ".join(f"{s.x:g}" for s, ok in zip(sw.systems, holds, strict=True) if ok) or "none"


def _everywhere(sw: Sweep) -> str:
    return _where(sw, [True] * len(sw.systems))


def _numbers(sw: Sweep, policy: str) -> str:
    column = sw.policies.index(policy)
    r = sw.mean_response_time
    return ", ".join(f"{r.value[column, i]:.3g} ± {r.half_width[column, i]:.2g}" for i in range(len(sw.systems)))


@reproduces
def _figure1_rows() -> list[Row]:
    """Figure 1's three sentences under both readings of its load (Section 1.3 as printed, scaling (8b))."""
    sweeps = {reading: _figure1_sweep(reading) for reading in FIGURE1_READINGS}
    facts = {}
    for reading, sw in sweeps.items():
        n = range(len(sw.systems))
        facts[reading] = dict(
            loads=", ".join(f"{s.load:.3f}" for s in sw.systems),
            beats=_where(sw, [_lower(sw, "bs-fcfs", "fcfs", i) and _lower(sw, "bs-fcfs", "server-filling", i) for i in n]),
            to_fcfs=", ".join(f"{_ratio(sw, 'bs-fcfs', ('fcfs',), i):.2f}" for i in n),
            close=[_ratio(sw, "bs-fcfs", ("server-filling-srpt", "ff-srpt"), i) for i in n],
            overlap=[_ratio(sw, "server-filling-srpt", ("ff-srpt",), i) for i in n])
    both = "; ".join(f"{reading}: loads {f['loads']}" for reading, f in facts.items())
    claims = {
        "beats": "'BalancedSplitting-π outperforms FCFS. It also performs better than ServerFilling', read as a lower "
                 "E[R] than both with disjoint 95% intervals",
        "close": "'average response times that are competitive with those achieved by ServerFilling-SRPT and First-Fit "
                 "SRPT', read as within 25% of the better of the two",
        "overlap": "'The curves associated to ServerFilling-SRPT and First-Fit SRPT almost overlap', read as within 10%",
    }
    rows = []
    for reading, sw in sweeps.items():
        f, other = facts[reading], facts[FIGURE1_READINGS[1 - FIGURE1_READINGS.index(reading)]]
        where = (f"Figure 1 model, θ = 0.7, load read as {reading} "
                 f"({'(1 - ρ)√(k/f_k) = θ' if reading == FIGURE1_READINGS[0] else '(1 - ρ)√k/f_k = θ, Sec. 1.3'}), "
                 "10^6 arrivals per point: the k of Figure 1 where it holds")
        header = f"Both readings ({both}). "
        close = _where(sw, [c <= 1.25 for c in f["close"]])
        overlap = _where(sw, [abs(math.log(c)) <= math.log(1.1) for c in f["overlap"]])
        rows += [
            Row(_PAPER + ", Sec. 1.3 / Fig. 1", f"{claims['beats']}. {where}", _everywhere(sw), f["beats"],
                expect_agreement=False, kind="reading",
                note=header + f"E[R] of BS-FCFS ({_numbers(sw, 'bs-fcfs')}) over FCFS's ({_numbers(sw, 'fcfs')}): "
                     f"{f['to_fcfs']} at k = {_everywhere(sw)}; under the other reading ({other['loads']}) it holds at "
                     f"k = {other['beats']}. The paper does not state its values of k; the asymptotic policy needs large "
                     "k, and at k = 32 the intervals of BS-FCFS are wide (its large jobs wait behind a few helpers)."),
            Row(_PAPER + ", Sec. 1.3 / Fig. 1", f"{claims['close']}. {where}", _everywhere(sw), close,
                expect_agreement=False, kind="reading",
                note=header + "E[R] of BS-FCFS over the better SRPT policy: "
                     + ", ".join(f"{c:.2f}" for c in f["close"]) + "; under the other reading: "
                     + ", ".join(f"{c:.2f}" for c in other["close"]) + ". First-Fit Back-Filling and myopic MaxWeight, "
                     "also non-preemptive, are not part of the sentence."),
            Row(_PAPER + ", Fig. 1 (caption)", f"{claims['overlap']}. {where}", _everywhere(sw), overlap, kind="reading",
                note=header + "E[R] of ServerFilling-SRPT over First-Fit SRPT: " + ", ".join(f"{c:.3f}" for c in f["overlap"])),
        ]
    return rows


@reproduces
def _figure2_rows() -> list[Row]:
    """Section 6.1 on Figure 2: heavy traffic at k = 2048, the subcritical scaling (7) at ρ = 0.8."""
    moderate, high, sub = _figure2_sweeps()
    rivals = ("fcfs", "msf", "server-filling")
    both = ("The same under both readings of Figure 1's load: Figure 2 fixes k (a) or the load (b), so the critical "
            "scaling does not enter; the paper states neither, k = 2048 (f_k = 16) and ρ = 0.8 are the package's. ")
    optimal = [_ratio(moderate, "bs-fcfs", FIGURE_POLICIES, i) for i in range(len(moderate.systems))]
    smaller = [all(_ratio(high, "bs-fcfs", (o,), i) < 1 for o in rivals) for i in range(len(high.systems))]
    disjoint = [all(_lower(high, "bs-fcfs", o, i) for o in rivals) for i in range(len(high.systems))]
    close = [_ratio(sub, "bs-fcfs", ("server-filling-srpt", "ff-srpt"), i) for i in range(len(sub.systems))]
    return [
        Row(_PAPER + ", Sec. 6.1 / Fig. 2a", "'BS-π performs almost optimally up until moderate loads ρ <= 0.9', read as "
            "E[R] within 10% of the best of the nine policies of Section 2, k = 2048, 10^6 arrivals per point: the "
            "loads where it holds", _everywhere(moderate), _where(moderate, [c <= 1.1 for c in optimal]),
            expect_agreement=False, kind="reading",
            note=both + "E[R] of BS-FCFS over the best policy: " + ", ".join(f"{c:.3f}" for c in optimal) + " at ρ = "
                 + _everywhere(moderate) + "; BS-FCFS's E[R] " + _numbers(moderate, "bs-fcfs") + ". At ρ = 0.8 the ratio "
                 "is within the simulation's resolution of the 10% threshold; from 0.85 on it is beyond it."),
        Row(_PAPER + ", Sec. 6.1 / Fig. 2a", "'For higher loads ... the resulting response times are significantly smaller "
            "than the ones induced by FCFS, Most-Servers-First and ServerFilling', read as a lower E[R] than each with "
            "disjoint 95% intervals (the standard of Figure 1's 'outperforms'), k = 2048, ρ > 0.9, 10^6 arrivals per "
            "point: the loads where it holds", _everywhere(high), _where(high, disjoint), expect_agreement=False,
            kind="not reproduced",
            note=both + "E[R] of BS-FCFS " + _numbers(high, "bs-fcfs") + ", FCFS " + _numbers(high, "fcfs")
                 + ", ServerFilling " + _numbers(high, "server-filling") + ", MSF " + _numbers(high, "msf")
                 + f" at ρ = {_everywhere(high)}: BS-FCFS's estimate is the lowest at ρ = {_where(high, smaller)}, but "
                 f"its interval is disjoint from the three others' at ρ = {_where(high, disjoint)} only; 10^6 arrivals "
                 "do not decide the heaviest load, so no verdict on the paper there."),
        Row(_PAPER + ", Sec. 6.1 / Fig. 2b", "'average response times that are close to those achieved by "
            "ServerFilling-SRPT and First-Fit SRPT' (subcritical regime), read as within 25% of the better of the two, "
            "ρ = 0.8, 10^6 arrivals per point: the k where it holds", _everywhere(sub), _where(sub, [c <= 1.25 for c in close]),
            expect_agreement=False, kind="reading",
            note=both + "E[R] of BS-FCFS over the better SRPT policy: " + ", ".join(f"{c:.2f}" for c in close)
                 + f" at k = {_everywhere(sub)}: the distance shrinks as k grows, as Theorem 1 predicts."),
    ]


# -- every simulated point of Figures 1-2: condition (5), the helpers, the classes ------------------------------

#: The rivals each class of BS-FCFS is held against, as Section 1.3 names them: "outperforms FCFS ... better than
#: ServerFilling".
_GAIN_RIVALS = ("fcfs", "server-filling")

#: Exact (the paper's formula (5), no simulation): the points of each panel where condition (5) holds; it fails at
#: every other point.
_CONDITION5_HOLDS = {"Fig. 1, scaling (8b)": (), "Fig. 1, as printed": (16384,), "Fig. 2a": (0.5, 0.6), "Fig. 2b": (32,)}

#: Simulated (10^6 arrivals, seed 1): the points of each panel where every class gains under BS-FCFS against both
#: rivals (none: at most the smallest class does).
_EVERY_CLASS_GAINS: dict[str, tuple[float, ...]] = {"Fig. 1, scaling (8b)": (), "Fig. 1, as printed": (), "Fig. 2a": (),
                                                    "Fig. 2b": ()}


def _figure_panels() -> list[tuple[str, str, Sweep]]:
    """Every simulated point of Figures 1-2 in the sweeps of their rows: (panel, where in words, sweep)."""
    moderate, high, sub = _figure2_sweeps()
    panels = [(f"Fig. 1, {reading}", f"Figure 1, load read as {reading} "
               f"({'(1 - ρ)√(k/f_k) = θ' if reading == FIGURE1_READINGS[0] else '(1 - ρ)√k/f_k = θ, Sec. 1.3'})",
               _figure1_sweep(reading)) for reading in FIGURE1_READINGS]
    return [*panels, ("Fig. 2a", "Figure 2a, k = 2048", moderate), ("Fig. 2a", "Figure 2a, k = 2048", high),
            ("Fig. 2b", "Figure 2b, ρ = 0.8", sub)]


def _class_gains(sw: Sweep, i: int, rival: str) -> tuple[str, ...]:
    """Per class at point i, BS-FCFS against ``rival``: "gains" or "loses" (E[R_i] intervals disjoint), or "not resolved"."""
    result = []
    ours, theirs = sw.result("bs-fcfs", i).per_class_response_time, sw.result(rival, i).per_class_response_time
    for a, a_ci, b, b_ci in zip(ours.value, ours.half_width, theirs.value, theirs.half_width, strict=True):
        result.append("gains" if _below(a, a_ci, b, b_ci) else "loses" if _below(b, b_ci, a, a_ci) else "not resolved")
    return tuple(result)


def _per_class(result: MultiserverSimulation) -> Iterator[tuple[float, float, float, float]]:
    """E[R_i], its half-width, P(wait_i) and its half-width, class by class."""
    r, w = result.per_class_response_time, result.per_class_wait_probability
    return zip(r.value, r.half_width, w.value, w.half_width, strict=True)


def _classes_text(needs: Sequence[int]) -> str:
    """Classes named by their needs: "n = 16, 32", or "none"."""
    return f"n = {', '.join(map(str, needs))}" if needs else "none"


def _point_rows(panel: str, where: str, sw: Sweep, i: int) -> list[Row]:
    """Point i of a figure's sweep: condition (5) of Proposition 1 with the helpers' load and eq. (16) (Anselmi & Doncel,
    Sections 4.2 and 5.2), and which classes gain under BS-FCFS on the rivals Section 1.3 names."""
    system = sw.systems[i]
    at = f"{where}, {system.label} (ρ = {system.load:.4f})"
    stability = stability_margin(system.servers, system.arrival_rate, system.classes)
    partition = stability.partition
    needs = [c.need for c in system.classes]
    bs = sw.result("bs-fcfs", i)
    holds = system.x in _CONDITION5_HOLDS[panel]
    empty = [n for n, s in zip(needs, partition.servers_per_class, strict=True) if s == 0]
    eq16 = helper_probability_bound(system.servers, system.arrival_rate, system.classes)
    helpers = (f"Left side of (5) = {stability.margin:.4f}, the helpers' load under ModifiedBS-π (Sec. 5.2): |H| = "
               f"{partition.helpers}, s_i = {', '.join(map(str, partition.servers_per_class))} for n_i = "
               f"{', '.join(map(str, needs))}. Eq. (16), P_H of ModifiedBS-π (Erlang's loss formula, exact by Property 1) "
               f"and Corollary 1's bound for BS-π: {eq16:.4f}; "
               f"BS-FCFS simulated: sent to H {bs.helper_probability.value:.4f} ± {bs.helper_probability.half_width:.1g}, "
               f"served on H {bs.helper_service_probability.value:.4f} ± {bs.helper_service_probability.half_width:.1g}, "
               f"E[R] {bs.mean_response_time.value:.3g} ± {bs.mean_response_time.half_width:.2g}, the run "
               f"{'stationary' if bs.stationary else 'growing (a transient, not a steady state)'}. "
               + (f"s_i = 0 for n_i = {', '.join(map(str, empty))}: no reserved server (Sec. 3.2 assumes a_i > 0), "
                  "E_0 = 1. " if empty else "")
               + ("" if stability.stable else "(5) is sufficient, not necessary: where it fails, ModifiedBS-π overloads "
                  "its helpers (unstable under any π) and Proposition 1 says nothing of BS-π; it does not make BS-π "
                  "unstable. The paper says only that (5) holds once k is large enough (Sec. 4.2). ")
               + "π = FCFS is not throughput optimal (Table 1), so Proposition 1 does not cover the simulated BS-FCFS "
                 "even where (5) holds.")
    gains = {rival: _class_gains(sw, i, rival) for rival in _GAIN_RIVALS}
    both = [n for c, n in enumerate(needs) if all(g[c] == "gains" for g in gains.values())]
    numbers = "; ".join(f"{policy}: " + ", ".join(f"{r:.3g} ± {r_ci:.2g} / {w:.3g} ± {w_ci:.1g}" for r, r_ci, w, w_ci
                                                  in _per_class(sw.result(policy, i)))
                        for policy in sw.policies)
    return [
        Row(f"{_PAPER}, Prop. 1 / {panel}", "Condition (5) of Proposition 1, (λ/|H|) Σ_i ϱ_i E_(s_i)(λ α_i d_i) < 1, "
            "the paper's sufficient condition for a finite E[R] of BS-π (π throughput optimal), at a point where the "
            f"figure plots BS-FCFS's E[R]: {at}", True, stability.stable, expect_agreement=holds,
            kind="reading" if holds else "assumption fails", note=helpers),
        Row(f"{_PAPER}, Sec. 1.3 / {panel}", "'BalancedSplitting-π outperforms FCFS. It also performs better than "
            "ServerFilling', read per class: E[R_i] of BS-FCFS below FCFS's and ServerFilling's, 95% intervals "
            f"disjoint, 10^6 arrivals, {at}: the classes (by need n_i) where it holds", _classes_text(needs),
            _classes_text(both), expect_agreement=system.x in _EVERY_CLASS_GAINS[panel], kind="reading",
            note="; ".join(f"against {rival}: " + ", ".join(f"n = {n} {g}" for n, g in zip(needs, gains[rival], strict=True))
                           for rival in _GAIN_RIVALS)
                 + f". Per class (n_i = {', '.join(map(str, needs))}), E[R_i] / P(wait_i), each ± its 95% half-width: "
                 + numbers + "".join(f". Not stationary (a transient): {policy}" for policy in sw.policies
                                     if not sw.result(policy, i).stationary)),
    ]


@reproduces
def _figure_point_rows() -> list[Row]:
    """Every point of Figures 1-2, both readings of Figure 1's load: condition (5), the helpers and the classes that
    gain, from the sweeps of the figures' rows (no run of its own)."""
    return [row for panel, where, sw in _figure_panels() for i in range(len(sw.systems))
            for row in _point_rows(panel, where, sw, i)]


@reproduces
def _figure3_rows() -> list[Row]:
    """Section 6.2, Figure 3: not reproduced (the traces are not available; the class models of Tables 2-3 instead)."""
    from analytic.splitting.paper import KIT_FH2, SDSC_SP2

    loads = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
    panels = {(name, k): sweep(figure3_systems(classes, k, loads), ("bs-fcfs", "fcfs", "server-filling"), arrivals=10**6,
                               seed=1, progress=False)
              for name, classes in (("SDSC SP2", SDSC_SP2), ("KIT FH2", KIT_FH2)) for k in (512, 1024)}
    below = {key: sum(_lower(sw, "bs-fcfs", "fcfs", i) and _lower(sw, "bs-fcfs", "server-filling", i)
                      for i in range(len(loads))) for key, sw in panels.items()}
    ratios = {key: [_ratio(sw, "bs-fcfs", ("fcfs",), i) for i in range(len(loads))] for key, sw in panels.items()}
    slower = {key: _where(sw, [r > 1 for r in ratios[key]]) for key, sw in panels.items()}
    return [Row(_PAPER + ", Sec. 6.2 / Fig. 3",
                "'all plots show that the proposed policy BalanceSplitting provides significantly better results than "
                "ServerFilling ... and FCFS, for almost all loads', read as below both with disjoint 95% intervals at all "
                "but at most one of the 7 loads 0.3..0.9 of each of the 4 panels (SDSC SP2 and KIT FH2, k = 512 and "
                "1024), 10^6 arrivals per point",
                True, all(count >= len(loads) - 1 for count in below.values()), expect_agreement=False,
                kind="not reproduced",
                note=("The paper simulates the traces of the Parallel Workloads Archive, which are not available here. "
                      "The reconstruction: the class models of Tables 2-3 (α_i, n_i, E[D_i], std(D_i)) with Poisson "
                      "arrivals and each class's sizes from the two-moment fit of its mean and standard deviation (a "
                      "two-phase hyperexponential; every class has std > mean). With these models BS-FCFS is below both at "
                      + ", ".join(f"{count} of 7 loads ({name}, k = {k})" for (name, k), count in below.items())
                      + "; its E[R] over FCFS's is "
                      + "; ".join(f"{name}, k = {k}: " + ", ".join(f"{r:.2f}" for r in ratios[name, k])
                                  for name, k in panels)
                      + " at ρ = 0.3..0.9 (above 1 at ρ = "
                      + "; ".join(f"{slower[key]}" for key in panels) + "). Whether the difference lies in the workload "
                      "(trace arrivals and sizes are neither Poisson nor hyperexponential) or elsewhere cannot be told "
                      "without the traces: no verdict on the paper."))]
