"""The exact stationary performance of greedy(p): blocking, mean response time, occupancy, distance to y*.

Ghanbarian, Mukhopadhyay, Mazumdar & Guillemin, *On Optimal Server Allocation for Moldable Jobs
with Concave Speed-Up*, Sections 4–5. :func:`greedy_metrics` takes each metric from the cheapest
exact source that applies: Erlang's loss system in closed form where every job holds the same
number of servers, the empty-system limit at vanishing load, else the stationary law of the chain of
:func:`~analytic.moldable.greedy_chain`, with the accuracy each of them is vouched to.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np

from analytic._deprecation import renamed_arguments, renamed_attribute
from analytic.ctmc._rounding import gamma
from analytic.ctmc.stationary import FLOOR, METHODS, Stationary, check_tolerance
from analytic.erlang import MAX_SERVERS, erlang_b, loss_occupancy, loss_response_time
from analytic.errors import InvalidParameterError
from analytic.memory import require
from analytic.moldable.greedy import (
    UNIT,
    LossChain,
    allocation_probabilities,
    allocations,
    empty_limit,
    greedy_chain,
    phase_representation,
    rates_in_range,
    resolve_p,
)
from analytic.moldable.occupancy import Occupancy, check_rate_per_server, optimal_occupancy
from analytic.simulation.laws import SizeLaw
from analytic.speedup import SpeedupCurve, SpeedupTable, as_discrete
from analytic.validation import integer, option

__all__ = ["GreedyMetrics", "greedy_metrics"]


@dataclass(frozen=True, repr=False)
class GreedyMetrics:
    """Exact stationary performance of greedy(p) with ``n`` servers.

    Attributes
    ----------
    blocking : float
        ``P_b``: stationary probability that all servers are busy (= blocking, by PASTA).
    mean_response_time : float
        ``E[D]``, mean execution time of accepted jobs (Little's law, eq. 4):
        ``Σ_i a_i / s_i / Σ_i a_i``, with ``a_i`` the probability that an arrival gets ``i`` servers.
    mean_occupancy : numpy.ndarray
        ``E[x_i] = E[X_i]/n = λ a_i / s_i`` (Little's law for the jobs on ``i`` servers), indexed like
        the speed-up's values.
    distance : float
        ``E||x - y*||_1`` with ``y*`` the optimum of (P) (Theorem 1).
    small_jobs : numpy.ndarray
        ``small_jobs[k] = P(k jobs hold fewer than i1 servers)``, ``k = 0, 1, ...`` (Lemma 2 says
        ``k <= 1``).
    n_states : int
        States of the chain (the states reachable from the empty system); 1 in the empty-system
        limit, where no chain is built.
    accuracy : float
        A bound on the relative error of every reported quantity (``blocking``, ``mean_response_time``, each
        entry of ``mean_occupancy`` and ``small_jobs``, ``distance``) against the exact stationary
        value: ``|q - q_exact| <= accuracy |q|``. On a solved chain it is proven, from the per-state
        bounds of :attr:`Stationary.error_bounds <analytic.ctmc.Stationary.error_bounds>` (a sum
        ``Σ_x π(x) r(x)`` of non-negative terms inherits their largest relative error ``ε``; a
        ratio such as ``E[D]``, about ``2 ε``) and the rounding of the sums (Higham, *Accuracy and
        Stability of Numerical Algorithms*, 2002, Lemma 3.1), apart from the states whose
        probabilities lie below the solver's floor, left out as in :attr:`Stationary.accuracy
        <analytic.ctmc.Stationary.accuracy>` (each adds at most ``1e-290`` times its reward,
        absolute). In Erlang's closed form it is the accuracy of :func:`~analytic.erlang.erlang_b`
        and :func:`~analytic.erlang.loss_occupancy` measured against mpmath (``benchmarks/erlang.py``,
        not a proof), propagated; in the empty-system limit, the proven deviation of its Returns.
    residual : float
        ``||pi Q||_1`` of the stationary solution, for information only: it certifies nothing (the
        accuracy is :attr:`accuracy`); 0 where no chain is solved (Erlang's closed form, the
        empty-system limit).
    p : numpy.ndarray
        The allocation probabilities used.
    i1 : int
        Smallest element of the support of ``y*``.
    servers : int
    rate_per_server : float

    Examples
    --------
    >>> from analytic.moldable import greedy_metrics
    >>> from analytic.speedup import SpeedupTable
    >>> metrics = greedy_metrics(SpeedupTable([1, 1.8, 2.5, 3, 3.4]), 0.8, 20)
    >>> metrics.n_states, round(metrics.blocking, 6)
    (686, 0.233769)
    """

    blocking: float
    mean_response_time: float
    mean_occupancy: np.ndarray
    distance: float
    small_jobs: np.ndarray
    n_states: int
    accuracy: float
    residual: float
    p: np.ndarray
    i1: int
    servers: int
    rate_per_server: float
    arrival_rate = renamed_attribute("rate_per_server")
    mean_time = renamed_attribute("mean_response_time")

    def __repr__(self) -> str:
        return (f"GreedyMetrics(servers={self.servers}, blocking={self.blocking:.10g}, "
                f"mean_response_time={self.mean_response_time:.10g}, distance={self.distance:.10g}, "
                f"mean_occupancy={np.round(self.mean_occupancy, 10).tolist()}, "
                f"small_jobs={np.round(self.small_jobs, 10).tolist()}, n_states={self.n_states})")



@renamed_arguments(arrival_rate="rate_per_server")
def greedy_metrics(speedup: SpeedupTable | SpeedupCurve | object, rate_per_server: float, servers: int, p: object = None,
                   method: str = "auto", max_states: int = 30_000_000, tolerance: float = 1e-10,
                   size: SizeLaw | str = "exponential") -> GreedyMetrics:
    """Exact blocking, mean execution time and distance to y* of greedy(p) with n servers.

    The stationary law of :func:`~analytic.moldable.greedy_chain` (unit-mean job sizes, exponential or phase-type) gives
    ``P_b = P(all servers busy)`` and the probabilities ``a_i`` that an arrival gets ``i`` servers
    (eq. 10; PASTA), hence ``E[x_i] = λ a_i / s_i`` and ``E[D] = Σ_i a_i/s_i / Σ_i a_i`` (Little's
    law, eq. 4, for the jobs on each allocation size: they arrive at rate ``nλ a_i`` and stay
    ``1/s_i``), ``E||x - y*||_1``, and the law of the number of jobs on fewer than ``i1`` servers
    (Lemma 2). Ghanbarian et al., Sections 4–5. No probability is divided by λ, so ``E[x]`` and
    ``E[D]`` keep their accuracy at any load. These formulas hold for any size law of mean 1 (an
    arrival's allocation depends on the idle servers it finds, and a job on ``i`` servers stays
    ``S / s_i``); with a phase-type ``size`` the chain carries each job's phase, which is how the
    section's "nearly insensitive" is measured exactly at finite n.

    Where every job holds the same m servers and m divides n (p* of a linear speed-up, or
    ``p = "greedy"`` with d dividing n) the chain is Erlang's loss system with n/m slots and offered
    load ``a = nλ/s_m``: the metrics come in closed form, in constant time at any n, from
    :func:`~analytic.erlang.erlang_b` and :func:`~analytic.erlang.loss_occupancy`, whatever the size
    law (Erlang's loss system is insensitive: its law depends on the sizes only through their mean;
    Sevastyanov 1957) (``E[D] = 1/s_m``
    exactly, ``E[X] = a (1 - P_b)``, the distance from ``P(X = ⌊n y*_m⌋)``), with no chain and no
    ``max_states``; ``P_b`` and ``E[x]`` to 1e-14 relative (correctly rounded, by erlang_b's
    20-digit path, for a ``tolerance`` below that), the distance to about 1e-12.

    Where ``z = nλ/s_1`` is at most the solver's floor, 1e-290 (below it the solver vouches for no
    probability but that of the empty system), the metrics are those of the empty system, with no
    chain: with ``N`` the number of jobs, Little's law gives ``P(N >= 1) <= E[N] <= nλ E[S] / s_1 = z``
    for any size law of mean 1 (and, for exponential sizes, the cut equations
    ``k s_1 P(N = k) <= nλ P(N = k - 1)`` the sharper ``1 - e^{-z}``), so ``P_b = 0``, ``a = p``, ``E[x_i] = λ p_i / s_i``,
    ``E[D] = Σ_i p_i / s_i``, ``E||x - y*||_1 = Σ_i (λ p_i / s_i + y*_i)`` (as ``n y*_i <= z < 1``,
    ``E|x_i - y*_i| = E[x_i] + y*_i - 2 y*_i P(X_i >= 1)``) and ``small_jobs = [1]``: within
    ``(d + 2) z`` relative to λ for ``E[x]`` and the distance, ``z s_d`` relative for ``E[D]``, ``z``
    absolute for ``P_b`` and the law, far below the rounding of doubles.

    Parameters
    ----------
    speedup : SpeedupTable, sequence of float or SpeedupCurve
        ``s_1, ..., s_d`` (P1 and concavity), as in :func:`~analytic.moldable.optimal_occupancy`.
    rate_per_server : float
        λ in (0, 1] (per server).
    servers : int
        ``n >= d``.
    p : None, "greedy" or array_like
        ``None``: greedy(p*) with p* of Theorem 1; ``"greedy"``: the greedy scheme (``p_d = 1``);
        or any probability vector indexed like the speed-up's values.
    method : {"auto", "gth", "direct", "iterative"}
        Stationary solver of :meth:`CTMC.stationary`; ``"auto"`` runs the subtraction-free GTH
        factorization where its cost is small, otherwise GMRES rounds in double-double, then
        SuperLU and GTH, until the certificate reaches ``tolerance``.
    max_states : int
        Largest chain to build.
    tolerance : float
        Componentwise relative accuracy vouched for every stationary probability (passed to
        :meth:`CTMC.stationary`).
    size : SizeLaw or str
        The law of the inherent job sizes, of mean 1: ``"exponential"`` (default) or a phase-type
        law, as in :func:`~analytic.moldable.greedy_chain`.

    Returns
    -------
    GreedyMetrics
        Sums over the states whose probabilities the solver vouches for, each within ``tolerance``
        relative (the contract of :meth:`CTMC.stationary`); the other states, whose probabilities
        are below its floor (1e-290), are left out. So ``P_b`` and the small-jobs law are within
        ``tolerance`` relative plus 1e-290 absolute per state left out, ``E[x]`` within
        ``tolerance`` relative plus ``λ 1e-290 / s_1`` per state left out, ``E[D]`` (a ratio of such
        sums) within ``2 tolerance`` relative to first order, and each term ``E|x_i - y*_i|`` of the
        distance within the smaller error proven for ``Σ_x π(x) |x_i - y*_i|`` and for Little's form
        ``E[x_i] - y*_i + 2 E[(y*_i - x_i)^+]`` (the one that holds at light load, where the states
        with jobs are left out).

    Raises
    ------
    InvalidParameterError
        λ outside (0, 1], ``servers < d``, ``p`` not a probability vector, or, for Erlang's loss
        system, more than 1e15 slots; a ``p`` with entries so small that the chain's rates span
        more than the double range (the solver refuses them; named ``p``); a ``size`` that is not
        phase-type or whose mean is not 1.
    StateSpaceTooLargeError
        The chain would exceed ``max_states``.

    Examples
    --------
    Sub-linear speed-up of Section 7 at λ = 0.8 (p* on 3 and 4 servers), n = 12:

    >>> from analytic.speedup import SpeedupCurve, SpeedupTable, as_discrete
    >>> m = greedy_metrics(SpeedupTable([1, 1.8, 2.5, 3, 3.4]), 0.8, 12)
    >>> round(m.blocking, 6), round(m.mean_response_time, 6), m.n_states
    (0.282633, 0.443135, 136)

    A linear speed-up at λ = 1 with a billion servers (Erlang's loss system, 2.5e8 slots):

    >>> m = greedy_metrics(SpeedupTable.linear(4), 1.0, 10**9)
    >>> f"{m.blocking:.6e}", m.mean_response_time, m.n_states
    ('5.046095e-05', 0.25, 250000001)

    At λ = 1e-300 every job finds the system empty and runs on 3 servers: ``E[D] = 1/s_3``.

    >>> greedy_metrics(SpeedupTable([1, 1.8, 2.5]), 1e-300, 10).mean_response_time
    0.4

    Hyperexponential sizes of squared coefficient of variation 4 at n = 12 (the exponential
    chain's blocking above: 0.282633):

    >>> from analytic.simulation import fitted
    >>> round(greedy_metrics(SpeedupTable([1, 1.8, 2.5, 3, 3.4]), 0.8, 12, size=fitted(1.0, 2.0)).blocking, 6)
    0.284067
    """
    speedup = as_discrete(speedup)
    lam = check_rate_per_server(rate_per_server)
    probabilities = resolve_p(speedup, lam, p)
    phase_representation(size)
    n = integer("servers", servers, minimum=speedup.d, meaning=f" (at least d = {speedup.d})")
    option("method", method, METHODS)
    integer("max_states", max_states)
    tolerance = check_tolerance(tolerance)
    sizes = allocations(n, probabilities)[1]
    if sizes.size == 1:
        return _loss_system_metrics(speedup, lam, n, probabilities, int(sizes[0]), tolerance)
    optimum = optimal_occupancy(speedup, lam)
    limit = empty_limit(speedup.values, lam, n, probabilities)
    if limit is not None:
        occupancy = lam * probabilities / speedup.values
        distance = float(occupancy.sum() + optimum.y.sum())
        # E[x] and the distance within (d + 2) z λ (Returns), E[D] within the deviation; P_b = 0 within z <= FLOOR
        spread = (speedup.d + 2) * limit.occupied * lam
        accuracy = max(limit.deviation / limit.mean_response_time, limit.occupied,
                       _ratio(spread, distance) + gamma(2 * speedup.d),
                       *(_ratio(spread, x) + gamma(2) for x in occupancy[probabilities > 0]))
        return GreedyMetrics(
            blocking=0.0, mean_response_time=limit.mean_response_time, mean_occupancy=occupancy, distance=distance,
            small_jobs=np.ones(1), n_states=1, accuracy=float(accuracy), residual=0.0, p=probabilities, i1=optimum.i1,
            servers=n, rate_per_server=lam)
    loss = greedy_chain(speedup, lam, n, probabilities, max_states=max_states, size=size)
    with rates_in_range(p, lam):
        stationary = loss.chain.stationary(method=method, reference=loss.chain.states[loss.equilibrium],
                                           tolerance=tolerance)
    return _chain_metrics(loss, stationary, speedup, lam, n, probabilities, optimum, tolerance)



def _chain_metrics(loss: LossChain, stationary: Stationary, speedup: SpeedupTable, lam: float, n: int, p: np.ndarray,
                   optimum: Occupancy, tolerance: float) -> GreedyMetrics:
    """The metrics of :func:`greedy_metrics` from the probabilities ``stationary`` vouches for (its Returns)."""
    X, sizes = loss.states, loss.sizes
    speeds = speedup.values[sizes - 1]
    bounds = stationary.error_bounds
    vouched = bounds <= tolerance
    pi = np.where(vouched, stationary.probabilities, 0.0)
    # per state and unit reward, a bound on |exact - pi|: the proven error on the vouched states (relative to the
    # exact probability, hence e / (1 - e) relative to pi); on the others, left out, the exact probability itself,
    # below FLOOR / (1 - tolerance) (the solver's contract)
    relative = np.where(vouched, bounds / (1 - np.minimum(bounds, 0.5)), 0.0)
    slack = np.where(vouched, pi * relative, FLOOR / (1 - tolerance))
    rounding = gamma(len(pi) + 1)              # a dot product of len(pi) non-negative terms
    # each sum π(r) of non-negative terms over the vouched states, relative to the computed sum
    sums = (float(relative.max(initial=0.0)) + rounding) / (1 - rounding)
    allocation = allocation_probabilities(n - X @ sizes, p)[:, np.concatenate([[0], sizes])]
    a, a_error = pi @ allocation, slack @ allocation
    occupancy = np.zeros(speedup.d)
    occupancy[sizes - 1] = lam * a[1:] / speeds
    y = optimum.y[sizes - 1]
    deviation, shortfall = np.abs(X / n - y), np.maximum(y - X / n, 0.0)
    direct, short = pi @ deviation, pi @ shortfall
    mean = occupancy[sizes - 1]
    # |x_i - y_i| is rounded within 2u (x_i + y_i) per state, absolute
    direct_error = slack @ deviation + rounding * direct + 4 * UNIT * (mean + y)
    # Little's form E|x_i - y_i| = E[x_i] - y_i + 2 E[(y_i - x_i)^+], exact where the states with jobs are left out
    little = mean - y + 2 * short
    little_error = (lam * a_error[1:] / speeds + 2 * (slack @ shortfall)
                    + (rounding + 4 * UNIT) * (mean + y + 2 * short))
    use_little = little_error < direct_error
    distance = np.where(use_little, little, direct).sum() + np.delete(optimum.y, sizes - 1).sum()
    distance_error = np.where(use_little, little_error, direct_error).sum() + gamma(speedup.d) * distance
    served = sums + gamma(len(sizes) + 1)      # Σ_i a_i / s_i: a division and a sum more
    accepted = sums + gamma(len(sizes))
    accuracy = max(sums + gamma(2),            # P_b, the small-jobs law, E[x_i] = λ a_i / s_i
                   (served + accepted) / (1 - accepted) + 2 * UNIT,       # E[D], a ratio
                   _ratio(distance_error, distance))
    small = X[:, sizes < optimum.i1].sum(axis=1)
    return GreedyMetrics(
        blocking=float(a[0]), mean_response_time=float((a[1:] / speeds).sum() / a[1:].sum()), mean_occupancy=occupancy,
        distance=float(distance), small_jobs=np.bincount(small, weights=pi), n_states=loss.chain.n_states,
        accuracy=float(accuracy), residual=stationary.residual, p=p, i1=optimum.i1, servers=n, rate_per_server=lam)


def _ratio(error: float, value: float) -> float:
    """``error / |value|``, 0 for an exact zero and ``inf`` for an uncertain one."""
    return error / abs(value) if value else (0.0 if error == 0 else math.inf)


#: Relative accuracy of erlang_b in double precision (4.1e-15 at most on the grid of benchmarks/erlang.py);
#: a smaller tolerance takes its high-precision path.
_ERLANG_ACCURACY = 1e-14


def _loss_system_metrics(speedup: SpeedupTable, lam: float, n: int, p: np.ndarray, m: int, tolerance: float) -> GreedyMetrics:
    """greedy(p) when every job holds the same m servers and m divides n: Erlang's loss system, in closed form.

    Idle counts stay multiples of m, so every arrival that finds m idle servers gets them: C = n/m
    slots, arrivals at rate nλ, each job served at speed s_m, offered load a = nλ/s_m (the chain's
    rates as floats). X ~ truncated Poisson(a) on 0..C, so P_b = E_C(a) (:func:`~analytic.erlang.erlang_b`),
    E[X] = a (1 - P_b), E[D] = E[X]/(nλ(1 - P_b)) = 1/s_m, and with c = n y*_m, K = ⌊c⌋ < C,
    E|X - c| = E[X] - c + 2 E[(c - X)^+], E[(c - X)^+] = P(X = K) ((c - a)/E_K(a) + a) (from
    Σ_{k<=K} k π_k = a Σ_{k<K} π_k and P(X <= K) = P(X = K)/E_K(a)).
    """
    slots = n // m
    if slots > MAX_SERVERS:
        raise InvalidParameterError("servers", n, f"must be at most {MAX_SERVERS:.0e} x {m}: every job holds {m} servers, so "
                                                  f"greedy(p) is Erlang's loss system with n/{m} slots, evaluated for at "
                                                  f"most {MAX_SERVERS:.0e} slots")
    speed = float(speedup.values[m - 1])
    load = n * lam / speed
    optimum = optimal_occupancy(speedup, lam)
    if tolerance < _ERLANG_ACCURACY:  # correctly rounded: 20 digits, then the float nearest
        with mpmath.workdps(20):
            blocking_mp = erlang_b(slots, load, precision=20)
            blocking, served = float(blocking_mp), float(load * (1 - blocking_mp))
        accurate = UNIT
    else:
        blocking, served = erlang_b(slots, load), load * loss_response_time(slots, load, 1.0)
        accurate = _ERLANG_ACCURACY
    target = n * optimum.y[m - 1]
    gap = target - load  # E[X] - c = -gap - a P_b, written so that c = a (p* of a linear speed-up) cancels nothing
    # absolute errors of the terms of the deviation (gap: the rounding of c and of the subtraction)
    error = 2 * UNIT * (target + load) + load * blocking * (accurate + gamma(2))
    if target >= slots:
        deviation = gap + load * blocking
    else:
        below = math.floor(target)
        mass = loss_occupancy(slots, load, below)
        first = 2 * mass * (gap / erlang_b(below, load) + load)
        deviation = first - gap - load * blocking
        error += 2 * mass * (abs(gap) / erlang_b(below, load) + load) * (_occupancy_accuracy(mass) + _ERLANG_ACCURACY
                                                                         + gamma(4))
    error += gamma(3) * abs(deviation)
    occupancy = np.zeros(speedup.d)
    occupancy[m - 1] = served / n
    others = np.ones(speedup.d, dtype=bool)
    others[m - 1] = False
    if m >= optimum.i1:
        small, small_accuracy = np.ones(1), 0.0
    else:  # every job holds fewer than i1 servers: their number's law is X's, C + 1 values
        require(400.0 * (slots + 1), f"the law of the jobs on fewer than i1 = {optimum.i1} servers", slots + 1)
        small = loss_occupancy(slots, load, np.arange(slots + 1))
        small_accuracy = float(_occupancy_accuracy(small[small > 0]).max())
    distance = float(deviation / n + optimum.y[others].sum())
    accuracy = max(accurate + gamma(2), small_accuracy, _ratio(error / n + gamma(speedup.d + 1) * distance, distance))
    return GreedyMetrics(
        blocking=blocking, mean_response_time=1.0 / speed, mean_occupancy=occupancy, distance=distance, small_jobs=small,
        n_states=slots + 1, accuracy=float(accuracy), residual=0.0, p=p, i1=optimum.i1, servers=n, rate_per_server=lam)


def _occupancy_accuracy(probability: float | np.ndarray) -> float | np.ndarray:
    """The relative accuracy of :func:`~analytic.erlang.loss_occupancy`, ``1e-14 + 5e-16 |log P|`` (measured
    against mpmath at 50 digits, ``tests/test_erlang.py``)."""
    return 1e-14 + 5e-16 * np.abs(np.log(probability))
