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

The rows of ``analytic reproduce`` that check the paper's sentences on these sweeps are in
:mod:`analytic.splitting.figure_claims`.
"""

from __future__ import annotations

import functools
import math
import os
import sys
from collections.abc import Iterable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from numbers import Integral

import numpy as np
from tqdm import tqdm

from analytic._deprecation import renamed_arguments, renamed_attribute
from analytic.errors import InvalidParameterError
from analytic.simulation import Estimates, SerialExecutor, check_executor
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
