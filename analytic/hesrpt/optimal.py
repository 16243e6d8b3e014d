"""The optimal allocation policy for any concave speed-up (beyond the paper, which solves k^p).

Berg, Vesilo & Harchol-Balter, *heSRPT*, prove Theorem 3 (allocations change only at departures) for
any concave s, and the rest of Section 3 for s(k) = k^p only ("it is unclear whether the other
results of Section 3 hold for arbitrary or even concave speedup functions", Section 4.3). The
structure below shows that they do, for every increasing concave s with s(0) = 0; it is what
:func:`optimal_allocation` computes.

1. *Completion order (Theorem 5 in general).* Fix phase durations and per-phase allocations. If a
   smaller job a finishes after a larger job b, give the early "slot" to a and the late one to b,
   and during the phases both are present mix their allocations: slot-early gets (1-λ)θ_b + λθ_a,
   slot-late the rest, with λ = (x_b - x_a)/(x_b - A), A the work the late slot receives while both
   are present. By concavity the early slot still completes x_a and the late slot x_b, with the same
   durations: shortest-job-first is optimal for every concave s.
2. *Convexity per order.* With w = d·θ (server-time of a job in a phase of length d), job i's work
   Σ_j d_j s(N w_ij/d_j) is a sum of perspectives of s, hence jointly concave: minimizing the total
   flow time Σ_j j d_j subject to work >= x_i and Σ_i w_ij <= d_j is a convex program.
3. *Its dual* is: maximize Σ_i μ_i x_i subject to V_j(μ_1..μ_j) <= j for every j, where
   V_j(μ) = max over allocations Σ_(i<=j) μ_i s(k_i), Σ k_i = N (jobs indexed largest first; the
   primal phase durations are the dual's multipliers). Choosing μ_1 = 1/s(N), then each μ_j so that
   V_j = j, makes every constraint tight. V is submodular in the set of jobs (adding a copy of job j
   gains at most what job j gained), so μ_j is non-decreasing, the allocations favour smaller jobs,
   and the back-substituted phase durations are non-negative for sizes in decreasing order: primal
   and dual are feasible with equal values, hence optimal.

So the optimal policy completes jobs smallest first, the allocation with m jobs left depends only
on m (size invariance, Theorem 6, in general), and T* = Σ_i μ_i x_i with μ_i = ∂T*/∂x_i. For k^p
this is heSRPT: μ_k = N^-p (k^c - (k-1)^c)^(1-p) is Theorem 8's coefficient. The same rule (the ratio
of the derivatives s' of two jobs stays constant over time) appears as the "consistent derivative
ratio" of Li, Ju, Eryilmaz & Shroff, *Optimal Parallel Scheduling under Concave Speedup Functions*
(2025). Unlike heSRPT, a speed-up with finite s'(0) (Amdahl's law) can leave a large job without
servers while smaller ones run.

A table s_1..s_d (:class:`~analytic.speedup.SpeedupTable`) is the piecewise-linear curve through its
points, flat beyond d (:meth:`~analytic.speedup.SpeedupCurve.from_discrete`). V_j is then a
water-filling over unit segments of value μ_i (s_l - s_(l-1)), exact by sorting, and μ_j solves
V_j = j by Newton's method from above (V_j is convex and piecewise linear in μ_j, so the iterates
decrease to the root in finitely many steps). Segments of equal value go to the smaller job first;
allocations are then no longer unique, and this choice is the one that keeps every back-substituted
phase duration non-negative (the guard below would say otherwise).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from analytic.errors import ConvergenceError, InvalidParameterError
from analytic.hesrpt.closed_form import check_sizes, mean_time, scaled_power
from analytic.speedup import SpeedupCurve, SpeedupTable, as_curve
from analytic.validation import positive

__all__ = ["OptimalAllocation", "optimal_allocation"]

#: Relative slack on a phase duration before a negative one counts as a failure (rounding).
_DURATION_SLACK = 1e-9

#: Segment values of a table within this relative distance count as equal (they go to the smaller job).
_TIE = 1e-12

#: Newton steps allowed per phase for a table (each step crosses at least one piece of V_j).
_NEWTON_STEPS = 500

#: Binary exponent of the largest size once scaled, less 2 log2 M: on one server no phase duration
#: (<= j x_j) or completion time (<= M^2 max x) of a scale-free speed-up then overflows.
_TOP_EXPONENT = 1020

#: Largest log-price y the smooth solver may try: beyond it e^y overflows (below, e^y = 0 gives all servers away).
_LOG_PRICE_MAX = math.log(np.finfo(float).max)


@dataclass(frozen=True, repr=False)
class OptimalAllocation:
    """The flow-time-optimal policy for one set of jobs and a concave speed-up.

    Attributes
    ----------
    total : float
        Minimal total flow time T* = Σ_i μ_i x_i.
    mean : float
        T*/M, from the completion times without forming T* (``analytic.hesrpt.closed_form.mean_time``):
        within the double range even when T* (then ``inf``) is not.
    completion_order : numpy.ndarray
        Job indices (input order) in the order they complete, first to last (shortest first). The
        paper's C = (c_1, ..., c_M) lists them last to first.
    completion_times : numpy.ndarray
        Completion time of each job, input order.
    durations : numpy.ndarray, shape (M,)
        Length of each phase in time order; phase t has M - t jobs.
    allocations : numpy.ndarray, shape (M, M)
        ``allocations[t, i]``: fraction of the system job i holds during phase t (0 once it left).
    multipliers : numpy.ndarray
        μ_i = ∂T*/∂x_i, input order (the dual solution).

    Examples
    --------
    >>> from analytic.hesrpt import optimal_allocation
    >>> from analytic.speedup import SpeedupCurve
    >>> optimum = optimal_allocation([1.0, 1.0], SpeedupCurve.amdahl(0.9), 10)
    >>> optimum.allocations[0].round(4).tolist()   # Section 1's Amdahl example: 28.93 % / 71.07 %
    [0.2893, 0.7107]
    """

    total: float
    mean: float
    completion_order: np.ndarray
    completion_times: np.ndarray
    durations: np.ndarray
    allocations: np.ndarray
    multipliers: np.ndarray

    def __repr__(self) -> str:
        return (f"OptimalAllocation(jobs={self.completion_times.size}, total={self.total:.12g}, "
                f"mean={self.mean:.12g}, first_phase={np.array2string(self.allocations[0], precision=6)})")


def _scale_exponent(curve: SpeedupCurve, servers: float) -> float | None:
    """e with s(Nθ) = N^e s(θ) for every share θ in [0, 1], where the curve has one, else None.

    p for s(k) = k^p; 1 for a table on N <= 1 servers (its interpolation is s(k) = s_1 k = k there).
    The policy is then solved on one server and its times divided by N^e, so that a subnormal or huge
    N (or p near 0, whose derivatives p k^(p-1) at N/m under- or overflow) never enters the solver.
    """
    if curve.exponent is not None:
        return curve.exponent
    return 1.0 if curve.discrete is not None and servers <= 1.0 else None


def _phase(speedup: SpeedupCurve, servers: float, weights: np.ndarray, count: int) -> tuple[np.ndarray, float]:
    """Servers of jobs 1..count (largest first) and μ_count, given μ_1..μ_(count-1): V_count = count.

    Solves in y = log(marginal value of a server): the earlier jobs take the largest k with
    μ_i s'(k) >= e^y, the new job the rest, μ_count = e^y / s'(rest); V increases with y.
    """
    def split(log_price: float) -> tuple[np.ndarray, float, float]:
        price = np.exp(log_price)
        held = speedup.inverse_derivative(price / weights, servers)
        rest = servers - held.sum()
        if rest <= 0:
            return held, 0.0, -1.0
        weight = price / float(speedup.derivative(rest))
        value = float(weights @ speedup(held)) + weight * float(speedup(rest))
        if not np.isfinite(value):
            raise _beyond_doubles(speedup, servers, f"V_{count} = Σ μ_i s(k_i) at e^y = {price:.3g}", value)
        return held, weight, value - count

    def excess(log_price: float) -> float:
        if log_price > _LOG_PRICE_MAX:
            raise _beyond_doubles(speedup, servers, f"the marginal value e^y of a server with {count} jobs", math.inf)
        return split(log_price)[2]

    slope = float(speedup.derivative(servers / count))
    with np.errstate(divide="ignore"):
        start = np.log(weights[-1] * slope)
    if not np.isfinite(start):
        raise _beyond_doubles(speedup, servers, f"μ_{count - 1} s'(N/{count})", weights[-1] * slope)
    low, high = start - 1.0, start + 1.0
    while excess(low) >= 0:
        low -= 2.0 * (high - low)
    while excess(high) <= 0:
        high += 2.0 * (high - low)
    root = brentq(excess, low, high, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)
    held, weight, _ = split(root)
    return np.append(held, servers - held.sum()), weight


def _smooth_phases(curve: SpeedupCurve, servers: float, jobs: int) -> tuple[np.ndarray, np.ndarray]:
    """held[j - 1, :j] (servers of jobs 1..j while j remain) and the multipliers μ, for a smooth curve."""
    weights = np.empty(jobs)
    weights[0] = 1.0 / float(curve(servers))
    if not np.isfinite(weights[0]):
        raise _beyond_doubles(curve, servers, "μ_1 = 1/s(N)", weights[0])
    held = np.zeros((jobs, jobs))
    held[0, 0] = servers
    for count in range(2, jobs + 1):
        held[count - 1, :count], weights[count - 1] = _phase(curve, servers, weights[:count - 1], count)
    return held, weights


def _beyond_doubles(curve: SpeedupCurve, servers: float, quantity: str, value: float) -> InvalidParameterError:
    """The refusal of a smooth curve whose dual quantities leave the double range at this N."""
    return InvalidParameterError("servers", servers, f"with speedup {curve.name}, {quantity} = {value:.3g} is beyond "
                                 "double precision, so the optimal policy cannot be computed at this N (a k^p "
                                 "speed-up, or a table on N <= 1 servers, is solved at any N)")


def _fill(weights: np.ndarray, table: SpeedupTable, servers: float) -> tuple[np.ndarray, float]:
    """max Σ_i μ_i s(k_i) subject to Σ_i k_i <= N for the interpolation of a table: (k, value).

    The unit segments (i, l), of value μ_i (s_l - s_(l-1)), are taken best first; among equal values
    (relative 1e-12) the later, smaller job first, and each job's segments in order.
    """
    count, d = weights.size, table.d
    value = (weights[:, None] * table.increments[None, :]).ravel()
    job, segment = np.repeat(np.arange(count), d), np.tile(np.arange(d), count)
    order = np.argsort(-value, kind="stable")
    ranked = value[order]
    tie_group = np.concatenate([[0], np.cumsum(ranked[1:] < ranked[:-1] * (1.0 - _TIE))])
    order = order[np.lexsort((segment[order], -job[order], tie_group))]
    taken = np.clip(servers - np.arange(order.size), 0.0, 1.0)
    return np.bincount(job[order], weights=taken, minlength=count), float(taken @ value[order])


def _table_phases(table: SpeedupTable, servers: float, jobs: int) -> tuple[np.ndarray, np.ndarray]:
    """held and μ for a table: μ_j solves V_j = j by Newton's method from the bound μ_j <= j / s(min(N, d))."""
    curve = SpeedupCurve.from_discrete(table)
    top = float(curve(servers))
    weights = np.empty(jobs)
    held = np.zeros((jobs, jobs))
    for count in range(1, jobs + 1):
        weight = count / top  # the new job alone on min(N, d) servers already reaches V = count
        for _ in range(_NEWTON_STEPS):
            weights[count - 1] = weight
            servers_held, value = _fill(weights[:count], table, servers)
            rate = float(curve(servers_held[-1]))  # dV/dμ_j from the right
            excess = value - count
            if excess <= 4 * np.finfo(float).eps * count or rate <= 0:
                break
            weight -= excess / rate
        else:
            raise ConvergenceError(f"phase with {count} jobs: V_j = j not reached in {_NEWTON_STEPS} Newton steps "
                                   f"(excess {excess:.3g})")
        held[count - 1, :count] = servers_held
    return held, weights


def optimal_allocation(sizes: object, speedup: SpeedupCurve | SpeedupTable | float | Callable,
                       servers: float) -> OptimalAllocation:
    """The allocation policy minimizing total flow time, for any increasing concave speed-up.

    Jobs complete shortest first and the allocation while m jobs remain depends only on m; it is
    found phase by phase from the dual (see :mod:`analytic.hesrpt.optimal` for the derivation, which
    extends Berg, Vesilo & Harchol-Balter, *heSRPT*, Theorems 3, 5 and 6 beyond s(k) = k^p). Cost:
    M one-dimensional root findings over up to M water-filling terms. For k^p it reproduces
    heSRPT (Theorems 7 and 8): total and completion times to 1e-13 relative, shares to 1e-12, for
    every p in (0, 1) and N from 5e-324 to 1.8e308 (solved on one server, times scaled by N^-p, sizes
    by a power of two); for a callable speed-up the accuracy is that of its derivative (complex
    step: rounding; central differences: about 1e-10). For a table, M Newton solves over M·d unit
    segments, exact to rounding. Times beyond 1.8e308 are ``inf``.

    Parameters
    ----------
    sizes : sequence of float
        Job sizes x_i > 0 (time on one server).
    speedup : SpeedupCurve, SpeedupTable, float or callable
        s(k), increasing and concave with s(0) = 0; a number p means k^p; a table ``SpeedupTable`` (or its
        interpolation) means its piecewise-linear interpolation, flat beyond d, solved exactly.
    servers : float
        N > 0 (one divisible resource).

    Returns
    -------
    OptimalAllocation
        ``total``, ``completion_order``, ``allocations`` per phase, ``durations``,
        ``completion_times`` and the ``multipliers`` μ_i = ∂T*/∂x_i.

    Raises
    ------
    InvalidParameterError
        For invalid sizes, servers or speed-up (not increasing, concave, or s(0) != 0 on the tested
        points), or servers at which a smooth speed-up other than k^p leaves the double range
        (s(N) or s'(N/m) under- or overflows, as for Amdahl's law at N = 1e300).
    ConvergenceError
        If a phase duration comes out negative beyond rounding, which happens only when the
        speed-up is not concave between the tested points.

    Examples
    --------
    Section 1 of the paper: two jobs of size 1, N = 10, s(k) = k^0.5; the optimum gives 75% to one job.

    >>> optimal_allocation([1.0, 1.0], 0.5, 10).allocations[0].round(12)
    array([0.25, 0.75])
    """
    x = check_sizes(sizes)
    n = positive("servers", servers)
    curve = as_curve(speedup, n)
    jobs = x.size
    order = np.argsort(-x, kind="stable")  # largest first: the paper's job 1, 2, ..., M
    exponent = _scale_exponent(curve, n)
    if exponent is None:                   # solved as given: times in the units of the sizes
        solved, size_shift, speed, shift = n, 0, 1.0, 0
    else:                                  # solved on one server, sizes scaled by 2^-size_shift, times by N^-e
        solved, size_shift = 1.0, math.frexp(x.max())[1] - (_TOP_EXPONENT - 2 * jobs.bit_length())
        speed, shift = scaled_power(n, exponent)
    ranked = np.ldexp(x[order], -size_shift)
    # held[j - 1, :j]: servers of jobs 1..j while j remain; weights: the multipliers μ
    held, weights = (_smooth_phases(curve, solved, jobs) if curve.discrete is None
                     else _table_phases(curve.discrete, solved, jobs))
    rates = curve(held)
    durations = np.empty(jobs)  # durations[j - 1]: length of the phase with j jobs
    for job in range(jobs, 0, -1):
        done = float(durations[job:] @ rates[job:, job - 1])
        durations[job - 1] = (ranked[job - 1] - done) / rates[job - 1, job - 1]
    if np.any(durations < -_DURATION_SLACK * durations.max()):
        raise ConvergenceError(f"negative phase duration {durations.min():.3g}: the speed-up is not concave "
                               "between the tested points")
    durations = np.maximum(durations, 0.0)
    finish = np.cumsum(durations[::-1])[::-1]  # job j finishes when the phase with j jobs ends
    completion, multipliers = np.empty(jobs), np.empty(jobs)
    completion[order], multipliers[order] = finish, weights
    allocations = np.zeros((jobs, jobs))
    allocations[:, order] = held[::-1] / solved

    def rescaled(values: np.ndarray | float, binades: int) -> np.ndarray:
        """Back in the caller's units: times 2^binades / N^e (times: binades = size_shift; μ: 0)."""
        with np.errstate(over="ignore"):           # beyond 1.8e308: inf; the mean, formed first, need not be
            return np.ldexp(np.divide(values, speed), binades - shift)

    return OptimalAllocation(total=float(rescaled(weights @ ranked, size_shift)),
                             mean=float(rescaled(mean_time(completion), size_shift)),
                             completion_order=order[::-1].copy(), completion_times=rescaled(completion, size_shift),
                             durations=rescaled(durations[::-1], size_shift), allocations=allocations,
                             multipliers=rescaled(multipliers, 0))
