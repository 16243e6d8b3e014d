"""Balanced fairness with random assignment of d servers out of S, without the C(S, d) classes.

Bonald & Comte, *Balanced Fair Resource Sharing in Computer Clusters*, Section 5 ("Large system
with random assignment", Figures 3–4): S unit-capacity servers; each job is assigned d of them
chosen uniformly at random, so there are N = C(S, d) classes, each with arrival rate λ/N. The paper
takes its exact curves from Gardner et al. (*Redundancy-d*); here they are derived again from
eq. (1).

Derivation. By Corollary 2 the normalization and the mean number of jobs are sums of π(c) over
ordered job sequences c. With unit capacities μ(c_1..c_k) is the number u_k of servers covered by
the first k jobs, so by eq. (1) the sequences of length n weigh
λ^n Σ_c Π_k 1/(N u_k) = λ^n E[Π_k 1/u_k] over sequences of classes drawn uniformly: u_k is then a
Markov chain that goes from u to u + d − j, where j, the number of the new job's servers already
covered, is hypergeometric: P(j) = C(u, j) C(S − u, d − j) / C(S, d). With a(u, u') = P(u → u') λ/u',
the weights V(u) = Σ_n W_n(u) and V1(u) = Σ_n n W_n(u) of the sequences ending with u covered
servers satisfy, since coverage never decreases,

    V(u) (1 − a(u, u))  = Σ_{v<u} V(v) a(v, u),                       V(0) = 1,
    V1(u) (1 − a(u, u)) = Σ_{v<u} (V1(v) + V(v)) a(v, u) + V(u) a(u, u),  V1(0) = 0,

and 1/π̄(0) = Σ_u V(u), E[jobs] = Σ_u V1(u) π̄(0), P(u servers busy) = V(u) π̄(0). The recursion
needs a(u, u) < 1: λ C(u, d)/C(S, d) < u, the condition of Theorem 1 for the classes inside a set of
u servers; it reduces to ρ = λ/S < 1. O(S d) operations. Every sequence with u > 0 holds a job, so
V(u) and V1(u) (u > 0) are carried divided by λσ: E[jobs]/(λσ) = δ/σ = 1/γ comes out finite and
accurate however small λσ is (5e-324 included), and E[jobs] = λσ · E[jobs]/(λσ) is rounded once.

The recursion runs compiled (``_recursion``, about 20 ns a level at d = 2: S = 7.3·10^6 in well under a
second), as do the a(u, u) (``_stay_probability``: C(u, d)/C(S, d) correctly rounded, with an exact
fallback where the compiled value cannot prove its rounding).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from analytic._deprecation import renamed_attribute
from analytic._kernels import kernel, two_product, two_sum
from analytic.errors import InvalidParameterError, UnstableSystemError
from analytic.fairness.graph import CompatibilityGraph, check_mean_size
from analytic.memory import require
from analytic.validation import integer, positive

__all__ = ["RandomAssignment", "random_assignment", "random_assignment_graph"]

#: V and V1 are rescaled whenever they exceed this (their ratios are what matter).
_RESCALE_ABOVE = 1e200
#: Bound on the relative error that one step p(u - 1) = p(u) (u - d)/u adds in :func:`_stay_candidates` (double-double
#: times a double, then divided by one: at most 2u² + 3.5u², u = 2**-53, by Joldes, Muller & Popescu, *Tight and
#: rigorous error bounds for basic building blocks of double-word arithmetic*, ACM TOMS 44, 2017, Thms 3 and 5;
#: 2**-100 is eight times that).
_STEP_ERROR = 2.0**-100


@dataclass(frozen=True, repr=False)
class RandomAssignment:
    """Exact balanced-fairness metrics of the random-assignment system (all classes alike).

    Attributes
    ----------
    mean_jobs : float
        Mean number of jobs in the system (all classes together).
    mean_response_time : float
        δ = E[jobs]/λ, the mean time in the system of every job (eq. 9).
    mean_service_rate : float
        γ = σ/δ, in work per unit time (at most d).
    probability_empty : float
        π̄(0).
    busy_servers : numpy.ndarray, shape (S + 1,)
        ``busy_servers[u]`` = P(u servers busy); its mean is the load λσ (work conservation).
    servers, d : int
    arrival_rate : float
        λ, total, jobs per unit time.
    mean_size : float
        σ.

    Examples
    --------
    >>> from analytic.fairness import random_assignment
    >>> result = random_assignment(100, 2, 80.0)   # Figure 3 at ρ = 0.8
    >>> result.load
    0.8
    """

    mean_jobs: float
    mean_response_time: float
    mean_delay = renamed_attribute("mean_response_time")
    mean_service_rate: float
    probability_empty: float
    busy_servers: np.ndarray
    servers: int
    d: int
    arrival_rate: float
    mean_size: float

    def __repr__(self) -> str:
        return (f"RandomAssignment(servers={self.servers}, d={self.d}, load={self.load:.10g}, "
                f"mean_jobs={self.mean_jobs:.10g}, mean_response_time={self.mean_response_time:.10g}, "
                f"mean_service_rate={self.mean_service_rate:.10g}, probability_empty={self.probability_empty:.10g})")

    @property
    def load(self) -> float:
        """ρ = λσ/S."""
        return self.arrival_rate * self.mean_size / self.servers


def random_assignment(servers: int, d: int, arrival_rate: float, mean_size: float = 1.0) -> RandomAssignment:
    """Mean delay and service rate under balanced fairness when each job gets d random servers of S.

    Bonald & Comte, Section 5 (Figures 3–4) and eq. (9); the sums over the C(S, d) classes by the
    coverage recursion of the module docstring (O(S d), no class is built). Exact for Algorithm 1
    with exponential sizes, and its limit as interruptions become frequent for any size law.

    Parameters
    ----------
    servers : int
        S >= 1 unit-capacity servers.
    d : int
        Servers per job, 1 <= d <= S.
    arrival_rate : float
        λ > 0, the total arrival rate (jobs per unit time): load ρ = λσ/S.
    mean_size : float
        σ > 0, mean job size in work units (a server does one unit of work per unit time).

    Returns
    -------
    RandomAssignment

    Raises
    ------
    InvalidParameterError
        S, d not integers with 1 <= d <= S, or λ, σ not positive and finite.
    UnstableSystemError
        ρ >= 1 (Theorem 1).

    Examples
    --------
    d = S is one server of rate S (M/M/1: E[jobs] = ρ/(1 − ρ)); d = 1 is S separate M/M/1 queues:

    >>> round(random_assignment(4, 4, 2.0).mean_jobs, 12), round(random_assignment(4, 1, 2.0).mean_jobs, 12)
    (1.0, 4.0)
    >>> round(random_assignment(100, 2, 80.0).mean_service_rate, 6)
    0.782901
    """
    s, k = check_servers_d(servers, d)
    lam = positive("arrival_rate", arrival_rate)
    sigma = check_mean_size(mean_size)
    work = lam * sigma
    # a(u, u), V, V1, the shifts and the law of the busy servers (S + 1 values each), the overlap's scratch (d + 1)
    require(41 * (s + 1) + 16 * (k + 1) + 2048, f"the recursion over 0..{s} covered servers", s + 1)
    probability = _stay_probability(s, k)
    # a(u, u) = λσ C(u, d)/C(S, d)/u, u = d..S, from the correctly rounded C(u, d)/C(S, d): at u = S it is
    # fl(λσ/S), which reaches 1 exactly when λσ >= S, the boundary ρ = 1 (C(u, d)/u grows with u).
    stay = work * probability / np.arange(k, s + 1)
    if stay.max() >= 1:
        u = k + int(np.argmax(stay))
        raise UnstableSystemError(
            f"arrival rate × mean size of the C({u}, {k}) classes within {u} given servers",
            float(work * probability[u - k]), float(u),
            "Theorem 1; with random assignment it reduces to the load λσ/S < 1")
    del probability
    # weights[u] = V(u)/(λσ) and first_moment[u] = V1(u)/(λσ) for u > 0, weights[0] = V(0), all times one power of two.
    weights, first_moment, shifts = np.zeros(s + 1), np.zeros(s + 1), np.zeros(s + 1, dtype=np.int64)
    _recursion(s, k, work, stay, weights, first_moment, shifts, np.empty(k + 1), np.empty(k + 1), np.empty(256))
    del stay, shifts
    busy = np.concatenate([weights[:1], work * weights[1:]])
    total = busy.sum()
    jobs_per_work = float(first_moment.sum() / total)     # E[jobs]/(λσ) = δ/σ = 1/γ
    return RandomAssignment(float(work * jobs_per_work), sigma * jobs_per_work, 1 / jobs_per_work,
                            float(busy[0] / total), busy / total, s, k, lam, sigma)


def check_servers_d(servers: object, d: object) -> tuple[int, int]:
    """``(S, d)`` checked: integers with ``1 <= d <= S`` (random assignment of d servers out of S)."""
    s, k = integer("servers", servers), integer("d", d)
    if k > s:
        raise InvalidParameterError("d", d, f"must be <= servers = {s}")
    return s, k


@kernel(_nrt=False)
def _recursion(servers, d, work, stay, weights, first_moment, shifts, law, up, frames):
    """The recursion of the module docstring, level by level: V(v), V1(v) final, then pushed to v + d − j, j < d.

    ``stay[u - d]`` = a(u, u); ``weights`` and ``first_moment`` (zeros on entry) receive V/(λσ) and V1/(λσ)
    (V(0) = 1), all scaled by 2**shift whenever a value exceeds :data:`_RESCALE_ABOVE`; ``shifts`` (zeros, S + 1)
    records them; ``law``, ``up`` (d + 1 values each) and ``frames`` (256) are the scratch of :func:`_overlap`.

    A rescaling at level v changes the d + 1 values v..v + d at once (beyond them all are 0) and the finished
    ones below v at the end (:func:`_shift_finished`): a rescaling per few hundred levels made the whole pass
    O(S²) (S = 7.3·10^6, d = 2, ρ = 0.9: 6 minutes). The largest value, which sets the shift, is among the d + 1:
    every other is at most :data:`_RESCALE_ABOVE`, which the new one exceeds.
    """
    weights[0] = 1.0
    v = 0
    while v <= servers:
        if v > 0:
            a = stay[v - d]
            weights[v] /= 1 - a
            first_moment[v] = (first_moment[v] + weights[v] * a) / (1 - a)
        low, count = _overlap(servers, d, v, law, up, frames)
        factor = work if v > 0 else 1.0
        top = weights[v]
        for i in range(min(count, d - low)):  # j = d stays at v
            target = v + d - (low + i)
            step = law[i] * factor / target
            weights[target] += weights[v] * step
            first_moment[target] += (first_moment[v] + weights[v]) * step
            top = max(top, weights[target])
        if top > _RESCALE_ABOVE:  # only these changed
            end = min(v + d, servers) + 1
            largest = 0.0
            for u in range(v, end):
                largest = max(largest, weights[u])
            shifts[v] = -math.frexp(largest)[1]
            for u in range(v, end):
                weights[u] = math.ldexp(weights[u], shifts[v])
                first_moment[u] = math.ldexp(first_moment[u], shifts[v])
        v = d if v == 0 else v + 1
    total, last = 0, 0        # the shifts after level u, and the last of all
    for u in range(servers, -1, -1):
        if total != 0:
            weights[u] = _shift_finished(weights[u], total, last)
            first_moment[u] = _shift_finished(first_moment[u], total, last)
        if shifts[u] != 0:
            last = shifts[u] if last == 0 else last
            total += shifts[u]


@kernel(inline="always", _nrt=False)
def _shift_finished(value, total, last):
    """``value`` scaled by each of the shifts (all <= −665) summing to ``total`` in turn, as at the time, in one
    step: exact while the value stays normal, so 2**total at once unless it left the normal range before the last
    shift, after which that shift (a subnormal times 2**−665 or less) gave 0."""
    if value == 0.0 or math.frexp(value)[1] + total - last < -1021:
        return 0.0
    return math.ldexp(value, total)


@kernel(inline="always", _nrt=False)
def _overlap(servers, d, covered, law, up, frames):
    """The law of the number j of a new job's d servers among ``covered`` ones (hypergeometric), into ``law``.

    Returns ``(low, count)``: ``law[i]`` = P(j = low + i) for i < count. Multiplied out from the mode by
    P(j+1)/P(j) = (u-j)(d-j) / ((j+1)(S-u-d+j+1)) (into ``up``) and normalised by numpy's pairwise sum
    (:func:`_pairwise_sum`, on ``frames``): every
    factor is at most 1, so nothing overflows, and each value is within a few ulps times its distance from the
    mode. (scipy's pmf, by prime factorisation for S up to about 10^5, took 33 s for S = 10^5, d = 2.)
    """
    low, high = max(0, d - (servers - covered)), min(d, covered)
    count = high - low + 1
    for i in range(count - 1):
        j = low + i
        up[i] = float((covered - j) * (d - j)) / float((j + 1) * (servers - covered - d + j + 1))
    mode = min(max((d + 1) * (covered + 1) // (servers + 2), low), high) - low
    law[mode] = 1.0
    for i in range(mode + 1, count):
        law[i] = law[i - 1] * up[i - 1]
    for i in range(mode - 1, -1, -1):
        law[i] = law[i + 1] * (1 / up[i])
    total = _pairwise_sum(law, count, frames)
    for i in range(count):
        law[i] /= total
    return low, count


@kernel(inline="always", _nrt=False)
def _block_sum(values, start, count):
    """``values[start:start + count].sum()`` for count <= 128, in numpy's order (eight running sums)."""
    if count < 8:
        total = 0.0
        for i in range(start, start + count):
            total += values[i]
        return total
    r0, r1, r2, r3 = values[start], values[start + 1], values[start + 2], values[start + 3]
    r4, r5, r6, r7 = values[start + 4], values[start + 5], values[start + 6], values[start + 7]
    i = 8
    while i < count - count % 8:
        r0 += values[start + i]
        r1 += values[start + i + 1]
        r2 += values[start + i + 2]
        r3 += values[start + i + 3]
        r4 += values[start + i + 4]
        r5 += values[start + i + 5]
        r6 += values[start + i + 6]
        r7 += values[start + i + 7]
        i += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    for rest in range(start + i, start + count):
        total += values[rest]
    return total


@kernel(inline="always", _nrt=False)
def _pairwise_sum(values, count, frames):
    """``values[:count].sum()`` added in numpy's order (``pairwise_sum`` of its ``loops_utils``: blocks of at most
    128 terms, halves above), so that the compiled law is the one numpy gave. numpy's recursion runs on
    ``frames`` (start, count, stage, left sum; 4 × 64 values): numba cannot cache a recursive kernel."""
    frames[0], frames[1], frames[2] = 0.0, float(count), 0.0
    depth, result = 1, 0.0
    while depth > 0:
        frame = 4 * (depth - 1)
        start, size, stage = int(frames[frame]), int(frames[frame + 1]), frames[frame + 2]
        half = size // 2 - size // 2 % 8
        if size <= 128:
            result = _block_sum(values, start, size)
            depth -= 1
        elif stage == 2.0:
            result += frames[frame + 3]
            depth -= 1
        else:
            if stage == 1.0:
                frames[frame + 3] = result
                start, size = start + half, size - half
            else:
                size = half
            frames[frame + 2] = stage + 1.0
            frames[frame + 4], frames[frame + 5], frames[frame + 6] = float(start), float(size), 0.0
            depth += 1
    return result


def _stay_probability(servers: int, d: int) -> np.ndarray:
    """C(u, d)/C(S, d) for u = d..S, correctly rounded: the probability that a new job's d servers are all
    among u covered ones.

    Compiled in double-double (:func:`_stay_candidates`); the few values whose rounding that cannot prove
    (none in practice: about S²·2**-52 expected) are taken in exact integers, so that the stability boundary
    ρ = 1 is met exactly and a(u, u) is the one the exact fraction gives.
    """
    probability, doubtful = np.empty(servers - d + 1), np.zeros(servers - d + 1, dtype=np.bool_)
    _stay_candidates(servers, d, _STEP_ERROR, probability, doubtful)
    if doubtful.any():
        total = math.comb(servers, d)
        for i in np.flatnonzero(doubtful).tolist():
            probability[i] = float(Fraction(math.comb(d + i, d), total))
    return probability


@kernel(_nrt=False)
def _stay_candidates(servers, d, step_error, probability, doubtful):
    """p(u) = C(u, d)/C(S, d) into ``probability[u - d]`` by p(S) = 1, p(u − 1) = p(u) (u − d)/u in double-double
    (hi + lo) times 2**scale; each rounded to the nearest double, and ``doubtful[u - d]`` set where the error
    bound (S − u + 1) ``step_error`` relative leaves that rounding undecided."""
    hi, lo, scale = 1.0, 0.0, 0
    for u in range(servers, d - 1, -1):
        if u < servers:
            p, e = two_product(hi, float(u + 1 - d))
            hi, lo = two_sum(p, e + lo * float(u + 1 - d))
            q = hi / float(u + 1)
            p, e = two_product(q, float(u + 1))
            hi, lo = two_sum(q, ((hi - p) - e + lo) / float(u + 1))
            if hi < 2.0**-500:  # keeps every partial product of two_product normal
                hi, lo, scale = hi * 2.0**600, lo * 2.0**600, scale - 600
        margin = 4 * (servers - u + 1) * step_error * hi   # bounds |exact − (hi + lo)|, and the rounding of the tests
        if math.frexp(hi)[1] + scale >= -1020:     # >= 2**-1021: hi is the nearest double unless lo nears a half-gap
            mantissa, exponent = math.frexp(hi)
            ulp = math.ldexp(1.0, exponent - 53)
            below = ulp / 2 if mantissa == 0.5 else ulp
            probability[u - d] = math.ldexp(hi, scale)
            doubtful[u - d] = not (lo + margin < ulp / 2 and lo - margin > -below / 2)
        else:                                       # below 2**-1021: round hi + lo to a multiple of 2**-1074
            shift = scale + 1074
            if math.frexp(hi)[1] + shift < -1:       # below 2**-1076 (with the margin): 0
                probability[u - d] = 0.0
                continue
            whole_hi, whole_lo = math.ldexp(hi, shift), math.ldexp(lo, shift)   # below 2**53, |whole_lo| <= 1/2
            whole = math.floor(whole_hi)
            fraction = (whole_hi - whole) + whole_lo                              # in [-1/2, 3/2)
            probability[u - d] = math.ldexp(whole + (1.0 if fraction > 0.5 else 0.0), -1074)
            doubtful[u - d] = min(abs(fraction - 0.5), abs(fraction + 0.5)) <= math.ldexp(margin, shift) + 2.0**-50


def random_assignment_graph(servers: int, d: int, max_classes: int = 100_000) -> CompatibilityGraph:
    """The C(S, d) classes of the random-assignment system, one per d-subset (unit capacities).

    For cross-checks on small systems: with arrival rates λ/C(S, d) each,
    :func:`~analytic.fairness.balanced_fairness` on this graph gives the same metrics as
    :func:`random_assignment`.

    Parameters
    ----------
    servers : int
        S.
    d : int
        Servers per class, 1 <= d <= S.
    max_classes : int
        Largest number of classes C(S, d) built.

    Returns
    -------
    CompatibilityGraph


    Examples
    --------
    >>> random_assignment_graph(3, 2).server_sets
    ((0, 1), (0, 2), (1, 2))
    """
    s, k = check_servers_d(servers, d)
    if math.comb(s, k) > integer("max_classes", max_classes):
        raise InvalidParameterError("servers", s, f"C({s}, {k}) = {math.comb(s, k)} classes exceed max_classes = {max_classes}")
    return CompatibilityGraph(list(itertools.combinations(range(s), k)), np.ones(s))
