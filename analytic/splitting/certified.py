"""Certified intervals for the mean response time and the probability of waiting of FCFS.

Anselmi & Doncel, *Balanced Splitting* (IEEE TPDS 2024), Section 2: the multiserver-job queue under
FCFS with Poisson arrivals and exponential or phase-type sizes. Its lumped chain of
:mod:`~analytic.splitting.chains` (the jobs in service, counted per class and phase, the class of the
head and the number ``ℓ`` of waiting jobs) is infinite; :func:`fcfs_bounds` solves it on the levels
``ℓ <= L`` and returns intervals that provably contain the untruncated queue's ``E[R]`` and
``P(wait)``, by the theorem of :mod:`analytic.ctmc.truncation`:

* *The tail is alike at every level above s.* While jobs wait, fewer than ``max_i n_i`` servers
  are free (the head does not fit); a departure frees at most ``max_i n_i`` more, so it starts at
  most ``s = ⌊min(k, 2 max_i n_i - 1) / min_i n_i⌋`` waiting jobs, and above ``s`` waiting jobs the queue never empties during
  the starts and every new head is drawn from ``(α_i)``: the jumps of ``(phase, ℓ)``, with
  ``phase = (serving, head)``, do not depend on ``ℓ``. Arrivals raise ``ℓ`` by one and keep the
  phase; departures lower it by the number of jobs started. With phase-type sizes the phases of
  the jobs in service are part of ``serving``, hence of the (finite) phase of this
  level-independent structure: a job's phase is drawn from its class's initial law β_i when it starts, which
  depends on its class only, and a phase move of a job in service changes neither ``ℓ`` nor the
  free servers (``Δ = 0``). So the argument below carries over unchanged, on more phases.
* *Drift.* ``V = e^{θ ℓ} w(phase)`` for ``ℓ >= 1`` and ``V = 0`` at ``ℓ = 0``, with
  ``w = (-M(θ))^{-1} 1`` for the tilted phase generator ``M(θ)[p, p'] = Σ rate e^{θ Δ}`` (minus the
  rates out of ``p`` on the diagonal): ``w > 0`` exists exactly when ``-M(θ)`` is a nonsingular
  M-matrix (Berman & Plemmons, 1994, Thm. 6.2.3), i.e. the level decays at rate ``θ``, and then
  ``D = M(θ) w = -1``. ``D(phase) < 0`` is checked on every blocked phase by
  :func:`~analytic.ctmc.truncation.level_drift`, so ``GV = e^{θ ℓ} D <= 0`` at every level above
  ``s``; ``c = max GV`` is evaluated on the kept levels ``0..s``.
* *The unbounded number waiting.* Every job is served, so by Little's law ``E[R] = Σ_i α_i d_i +
  E[ℓ] / λ``. Off the kept set ``-GV >= e^{θ ℓ} (-max D)``, so ``ℓ <= r (-GV)`` there with
  ``r = max_{ℓ > L} ℓ e^{-θ ℓ} / (-max D)``, and ``π(ℓ 1_{ℓ > L}) <= r c``
  (:meth:`~analytic.ctmc.truncation.Drift.outside_expectation`). PASTA gives
  ``P(wait) = Σ_i α_i P(ℓ > 0 or fewer than n_i servers free)``.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from analytic._deprecation import renamed_attribute
from analytic.ctmc.truncation import (
    Drift,
    TruncatedChain,
    Truncation,
    checked_width,
    function_drift_inside,
    level_drift,
    solve_truncated,
    truncate_function,
)
from analytic.errors import InvalidParameterError, StateSpaceTooLargeError, UnstableSystemError
from analytic.intervals import Interval
from analytic.splitting._exact_chain import ExactSystem
from analytic.splitting.chains import fcfs_saturation
from analytic.splitting.classes import RigidClass, check_classes

__all__ = ["FCFSBounds", "fcfs_bounds"]

#: Relative rounding of one double operation.
_UNIT = 2.0**-53

#: Fractions of the largest verified decay rate tried as θ; the one with the least neglected mass is kept.
_FRACTIONS = (0.5, 0.7, 0.85, 0.95)

#: Smallest decay rate looked for: below it the queue is treated as too close to saturation.
_SMALLEST_THETA = 1e-9

#: Largest θ (L + 1): keeps e^{θ ℓ} w(phase) finite on the levels where V is evaluated.
_LARGEST_EXPONENT = 600.0

#: Rounds of growing the kept levels before returning wider intervals.
_ROUNDS = 12


@dataclass(frozen=True, repr=False)
class FCFSBounds:
    """Intervals that contain the exact stationary ``E[R]`` and ``P(wait)`` of the FCFS multiserver-job queue.

    Attributes
    ----------
    response_time : Interval
        Contains ``E[R] = Σ α_i d_i + E[waiting jobs] / λ`` (Little's law), time units.
    wait_probability : Interval
        Contains the probability that an arrival does not enter service at once (PASTA).
    levels : int
        ``L``: the kept states are those with at most ``L`` waiting jobs.
    n_states : int
        States kept (and solved).
    neglected_mass : float
        A proven bound on the stationary probability of more than ``L`` waiting jobs.
    entry_cost : float
        ``κ`` of :mod:`analytic.ctmc.truncation`.
    theta : float
        The decay rate of the Lyapunov function ``e^{θ ℓ} w(phase)``.
    method : str
        How the intervals were obtained.

    Examples
    --------
    >>> from analytic.splitting import RigidClass, fcfs_bounds
    >>> b = fcfs_bounds(2, [RigidClass(1, 1.0, 1.0)], 1.0)            # M/M/2 at load 1/2: E[R] = 4/3
    >>> 4 / 3 in b.response_time, b.width < 1e-8
    (True, True)
    """

    response_time: Interval
    wait_probability: Interval
    levels: int
    n_states: int
    neglected_mass: float
    entry_cost: float
    theta: float
    method: str
    states = renamed_attribute("n_states")

    def __repr__(self) -> str:
        return (f"FCFSBounds(response_time={self.response_time!r}, wait_probability={self.wait_probability!r}, "
                f"levels={self.levels}, n_states={self.n_states:,}, neglected_mass={self.neglected_mass:.3g})")

    @property
    def width(self) -> float:
        """The larger (absolute) width of the two intervals, as :attr:`GreedyBounds.width
        <analytic.moldable.GreedyBounds.width>` and :attr:`StationaryBounds.width
        <analytic.ctmc.bounds.StationaryBounds.width>`."""
        return max(self.response_time.width, self.wait_probability.width)

    @property
    def relative_width(self) -> float:
        """The larger of the width of ``E[R]`` relative to its upper end and the (absolute) width of
        ``P(wait)``: what the ``width`` argument of :func:`fcfs_bounds` bounds."""
        return max(self.response_time.width / self.response_time.high, self.wait_probability.width)


def fcfs_bounds(servers: int, classes: Iterable[RigidClass], arrival_rate: float, width: float = 1e-8,
                max_states: int = 1_000_000) -> FCFSBounds:
    """Intervals that provably contain ``E[R]`` and ``P(wait)`` of the untruncated FCFS queue.

    The lumped FCFS chain (Anselmi & Doncel, Section 2; :func:`multiserver_chain` with
    ``representation="lumped"``, the jobs in service counted per class and phase) is solved on the
    states with at most ``L`` waiting jobs, ``L``
    growing until both intervals are narrow enough, with a certified bound on the mass above ``L``
    and on its effect (module docstring; the theorem is in :mod:`analytic.ctmc.truncation`).

    Parameters
    ----------
    servers : int
        k >= every need.
    classes : sequence of RigidClass
        Exponential or phase-type service times, as in :func:`multiserver_chain`: the phases of the
        jobs in service are part of the phase of the level-independent tail, and the drift argument
        of the module docstring holds unchanged.
    arrival_rate : float
        λ > 0, below the throughput of saturated FCFS (:func:`fcfs_saturation`).
    width : float
        In ``[1e-13, 1)`` (default 1e-8): the largest :attr:`FCFSBounds.relative_width` wanted, that
        is, the width of the ``E[R]`` interval *relative to its upper end* and the *absolute* width of
        the ``P(wait)`` interval, both at most ``width``; the stationary solves are asked for a
        componentwise relative accuracy of ``min(1e-10, width / 8)``.
    max_states : int
        Most kept states.

    Returns
    -------
    FCFSBounds
        Intervals that contain the exact values whatever their width. Their
        :attr:`~FCFSBounds.relative_width` is at most ``width`` unless the growth of ``L`` stopped
        helping (the accuracy of the stationary solve is the limit, e.g. probabilities of a queue
        below the solver's floor at a load near 0) or ``L`` stopped after 12 rounds: then it says
        how wide they are.

    Raises
    ------
    InvalidParameterError
        Bad servers, classes, arrival rate, width or max_states; a class whose service time is not
        phase-type (named ``classes[i]``, with the advice to approximate it by ``to_phase_type()``);
        rates too small for the exact solver (as in :func:`multiserver_chain`); a queue so close to
        saturation that no decay rate ``θ >= 1e-9`` is verified.
    UnstableSystemError
        Load ``λ ϱ / k >= 1`` (eq. 1), or ``λ`` at least the saturation throughput of FCFS.
    StateSpaceTooLargeError
        The kept set needed exceeds ``max_states``.

    References
    ----------
    Anselmi & Doncel, Section 2; Little's law; PASTA; the truncation theorem of
    :mod:`analytic.ctmc.truncation` (Dayar et al. 2011; Courtois & Semal 1984).

    Examples
    --------
    The FCFS counterpart of the BS-FCFS example (k = 8, classes needing 1 and 2 servers):

    >>> from analytic.splitting import RigidClass, fcfs_bounds
    >>> b = fcfs_bounds(8, [RigidClass(1, 0.6, 1.0), RigidClass(2, 0.4, 1.5)], 16 / 9, width=1e-6)
    >>> b.relative_width <= 1e-6, round(b.response_time.low, 4)
    (True, 1.2415)

    Erlang-2 sizes: one class needing 2 of 3 servers is an M/E2/1 queue, whose E[R] is
    Pollaczek–Khinchine's E[S] + λ E[S²] / (2 (1 - λ E[S])) = 1.5 + 0.5 · 3.375 / 0.5 = 4.875:

    >>> from analytic.simulation import erlang
    >>> b = fcfs_bounds(3, [RigidClass(2, 1.0, 1.5, size=erlang(2))], 0.5)
    >>> 4.875 in b.response_time, b.relative_width < 1e-8
    (True, True)
    """
    target, tolerance = checked_width(width)
    classes = check_classes(classes)
    system = replace(ExactSystem.build("fcfs", servers, classes, arrival_rate, 1, "lumped", max_states), max_waiting=math.inf)
    tail = _Tail.of(system, max_states)
    top = _largest_theta(tail)
    if top is None:
        _refuse(servers, classes, sum(system.arrival_rates))
    levels = tail.starts + max(1, math.ceil(math.log(1 / target) / top))
    for _ in range(_ROUNDS):
        truncation, theta = _solve(system, tail, top, levels, tolerance, max_states)
        response, wait = _intervals(truncation, system, theta)
        result = FCFSBounds(response, wait, levels, truncation.chain.n_kept, truncation.neglected_mass,
                            truncation.entry_cost, theta, _describe(tail, truncation, levels, theta))
        tail_part = truncation.neglected_mass * (1 + truncation.entry_cost) * (levels + 1)
        if result.relative_width <= target or tail_part < target * 1e-3:
            break
        # each level more divides the neglected mass by about e^θ; grow by half at least
        levels += max(levels // 2, math.ceil(math.log(max(tail_part, result.relative_width) / target) / theta))
    return result


@dataclass(frozen=True)
class _Tail:
    """The phases (serving, head) of the states with waiting jobs, and the level-free moves between them."""

    phases: list
    configurations: list
    starts: int
    system: ExactSystem

    @classmethod
    def of(cls, system: ExactSystem, max_states: int) -> _Tail:
        k, needs = system.helpers, system.needs
        # the counts of jobs in service per (class, phase) that fit
        configurations = list(itertools.islice(_configurations(system.column_needs, k), min(max_states + 1, sys.maxsize)))
        if len(configurations) > max_states:
            raise StateSpaceTooLargeError(max_states + 1, max_states, "the FCFS chain with no job waiting", at_least=True)
        phases = [(s, h) for s in configurations for h in range(len(needs)) if system.free_servers(s) < needs[h]]
        # before a departure at least one job waits, so fewer than max n_i servers are free; the
        # departing job frees at most max n_i more, and each start takes at least min n_i
        starts = min(k, 2 * max(needs) - 1) // min(needs)
        return cls(phases, configurations, starts, system)

    def moves(self, phase: tuple) -> Iterator[tuple[tuple, int, float]]:
        """``(phase', Δ, rate)`` above ``starts`` waiting jobs (computed at ``starts + 1``: the same at every level)."""
        level = self.starts + 1
        for (serving, head, waiting), rate in self.system.lumped_transitions((*phase, level)):
            yield (serving, head), waiting - level, rate

    def tilted(self, theta: float) -> sp.csc_array:
        """``-M(θ)``: the rates out of each phase minus ``Σ rate e^{θ Δ}`` to each phase."""
        index = {p: i for i, p in enumerate(self.phases)}
        rows, cols, values = [], [], []
        for i, phase in enumerate(self.phases):
            for target, step, rate in self.moves(phase):
                rows += [i, i]
                cols += [index[target], i]
                values += [-rate * math.exp(theta * step), rate]
        n = len(self.phases)
        return sp.csc_array((values, (rows, cols)), shape=(n, n))


def _configurations(needs: tuple[int, ...], free: int) -> Iterator[tuple[int, ...]]:
    """Every count of jobs in service per class that fits on ``free`` servers."""
    if not needs:
        yield ()
        return
    for count in range(free // needs[0] + 1):
        for rest in _configurations(needs[1:], free - count * needs[0]):
            yield (count, *rest)


def _weights(tail: _Tail, theta: float) -> np.ndarray | None:
    """``w = (-M(θ))^{-1} 1`` if it is finite and positive (then ``-M(θ)`` is a nonsingular M-matrix), else None."""
    try:
        w = spla.splu(tail.tilted(theta)).solve(np.ones(len(tail.phases)))
    except RuntimeError:            # exactly singular
        return None
    return w if np.all(np.isfinite(w)) and np.all(w > 0) else None


def _largest_theta(tail: _Tail) -> float | None:
    """The largest θ (to a relative 1e-3) with ``w(θ) > 0``, or None if there is none above 1e-9."""
    if _weights(tail, _SMALLEST_THETA) is None:
        return None
    low, high = _SMALLEST_THETA, 1.0
    while _weights(tail, high) is not None:
        low, high = high, 2 * high
        if high > 700:
            return low
    while high - low > 1e-3 * low:
        middle = math.sqrt(low * high)
        low, high = (middle, high) if _weights(tail, middle) is not None else (low, middle)
    return low


def _refuse(servers: int, classes: tuple[RigidClass, ...], arrival_rate: float) -> None:
    """No decay rate: unstable beyond the saturation throughput, too close to it otherwise."""
    saturation = fcfs_saturation(servers, classes)
    if arrival_rate >= saturation.throughput:
        raise UnstableSystemError("arrival rate λ", arrival_rate, saturation.throughput,
                                  "FCFS with an infinite backlog serves jobs at this rate (Anselmi & Doncel, Section 2)")
    raise InvalidParameterError("arrival_rate", arrival_rate, f"is too close to the saturation throughput "
                                f"{saturation.throughput:.10g} of FCFS: no drift condition with a decay rate >= "
                                f"{_SMALLEST_THETA:g} was verified")


def _solve(system: ExactSystem, tail: _Tail, top: float, levels: int, tolerance: float, max_states: int
           ) -> tuple[Truncation, float]:
    """The truncated chain on levels ``0..levels`` with the θ (of :data:`_FRACTIONS`) of least neglected mass."""
    count = len(tail.configurations) + levels * len(tail.phases)
    if count > max_states:
        raise StateSpaceTooLargeError(count, max_states, f"the FCFS chain kept up to {levels} waiting jobs")
    kept = [(s, -1, 0) for s in tail.configurations]
    kept += [(*p, level) for level in range(1, levels + 1) for p in tail.phases]
    boundary = [(*p, level) for level in range(levels + 1, levels + tail.starts + 1) for p in tail.phases]
    chain = truncate_function(kept, system.lumped_transitions, boundary, _reference(system))
    low = kept[:len(tail.configurations) + tail.starts * len(tail.phases)]
    best = None
    for fraction in _FRACTIONS:
        theta = min(fraction * top, _LARGEST_EXPONENT / (levels + 1))
        drift = _drift(tail, low, theta, levels, chain)
        if drift is not None and (best is None or drift.neglected_mass < best[0].neglected_mass):
            best = (drift, theta)
    if best is None:
        raise InvalidParameterError("arrival_rate", sum(system.arrival_rates), f"gives no verified drift condition at any "
                                    f"θ tried (the largest decay rate found is {top:.6g})")
    return solve_truncated(chain, best[0], tolerance=tolerance), best[1]


def _reference(system: ExactSystem) -> tuple:
    """No job waiting and ``⌊λ_i d_i⌋`` class-i jobs in service (in the first phase a job may start in), near the
    bulk of the law (a reference far from it, such as the empty queue of many servers, has mean hitting times too
    large to certify)."""
    serving = [0] * len(system.column_needs)
    for i, (rate, mu) in enumerate(zip(system.arrival_rates, system.service_rates, strict=True)):
        serving[system.entry_column(i)] = int(rate / mu)
    return tuple(serving), -1, 0


def _drift(tail: _Tail, low: list, theta: float, levels: int, kept: TruncatedChain) -> Drift | None:
    """The drift condition of ``V = e^{θ ℓ} w(phase)`` (module docstring), or None when ``w`` is not positive."""
    w = _weights(tail, theta)
    if w is None:
        return None
    index = {p: i for i, p in enumerate(tail.phases)}

    def lyapunov(state: tuple) -> float:
        serving, head, level = state
        return 0.0 if level == 0 else math.exp(theta * level) * w[index[serving, head]]

    inside = function_drift_inside(low, tail.system.lumped_transitions, lyapunov)
    try:
        return level_drift(tail.phases, tail.moves, theta, w, levels, inside,
                           f"a departure starts at most ⌊min(k, 2 max n_i - 1) / min n_i⌋ = {tail.starts} waiting jobs, so above "
                           f"{tail.starts} the queue does not empty and each new head is drawn from (α_i)"
                           f"{', its phase at its start from its class' if tail.system.phased else ''}; GV <= 0 on "
                           f"the kept levels {tail.starts + 1}..{levels} by the same D < 0", kept=kept)
    except InvalidParameterError:
        return None


def _intervals(truncation: Truncation, system: ExactSystem, theta: float) -> tuple[Interval, Interval]:
    """``E[R] = Σ α_i d_i + E[ℓ] / λ`` (the part of ``ℓ`` above the kept levels by the drift) and ``P(wait)``
    (a reward in [0, 1])."""
    levels = max(level for *_, level in truncation.states)
    drift = truncation.drift
    # -GV >= e^{θ ℓ} (-max D) with -max D >= η e^{-θ (L + 1)}; ℓ e^{-θ (ℓ - L - 1)} is largest at ℓ - L - 1 = x
    x = max(0.0, 1 / theta - levels - 1)
    ratio = (levels + 1 + x) * math.exp(-theta * x) / drift.outside * (1 + 16 * _UNIT)
    queue = truncation.interval(lambda state: state[2], outside=(0.0, drift.outside_expectation(ratio)))
    lam = sum(system.arrival_rates)
    size = math.fsum(rate / mu for rate, mu in zip(system.arrival_rates, system.service_rates, strict=True)) / lam
    response = Interval((size + max(queue[0], 0.0) / lam) * (1 - 4 * _UNIT), (size + queue[1] / lam) * (1 + 4 * _UNIT))
    alpha = [rate / lam for rate in system.arrival_rates]

    def waits(state: tuple) -> float:
        serving, _, level = state
        free = system.free_servers(serving)
        return 1.0 if level else sum(a for a, n in zip(alpha, system.needs, strict=True) if free < n)

    return response, Interval(*truncation.interval(waits, 0.0, 1.0))


def _describe(tail: _Tail, truncation: Truncation, levels: int, theta: float) -> str:
    return (f"levels 0..{levels} kept ({truncation.chain.n_kept:,} states, {len(tail.phases)} phases per level above 0); "
            f"{truncation.drift.check}; neglected mass <= {truncation.neglected_mass:.3g}; entry cost "
            f"{truncation.entry_cost:.3g}; truncated law: {truncation.law.method}")
