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
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from analytic._deprecation import renamed_attribute
from analytic.errors import InvalidParameterError, UnstableSystemError
from analytic.fairness.graph import CompatibilityGraph, check_mean_size
from analytic.memory import require
from analytic.validation import integer, positive

__all__ = ["RandomAssignment", "random_assignment", "random_assignment_graph"]

#: V and V1 are rescaled whenever they exceed this (their ratios are what matter).
_RESCALE_ABOVE = 1e200


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
    require(8 * (s + 1) * (k + 4), f"the recursion over 0..{s} covered servers", s + 1)
    covered = np.arange(k, s + 1)
    stay = work * _stay_probability(s, k, covered) / covered
    if stay.max() >= 1:
        u = int(covered[np.argmax(stay)])
        raise UnstableSystemError(
            f"arrival rate × mean size of the C({u}, {k}) classes within {u} given servers",
            float(work * _stay_probability(s, k, np.array([u]))[0]), float(u),
            "Theorem 1; with random assignment it reduces to the load λσ/S < 1")
    # weights[u] = V(u)/(λσ) and first_moment[u] = V1(u)/(λσ) for u > 0, weights[0] = V(0), all times one power of two.
    weights, first_moment = np.zeros(s + 1), np.zeros(s + 1)
    weights[0] = 1.0
    for v in [0, *covered.tolist()]:
        if v > 0:
            weights[v] /= 1 - stay[v - k]
            first_moment[v] = (first_moment[v] + weights[v] * stay[v - k]) / (1 - stay[v - k])
        j, overlap = _overlap(s, k, v)
        j, overlap = j[j < k], overlap[j < k]  # j = d stays at v
        targets = v + k - j
        step = overlap * (work if v > 0 else 1.0) / targets
        weights[targets] += weights[v] * step
        first_moment[targets] += (first_moment[v] + weights[v]) * step
        if max(weights[v], weights[targets].max(initial=0.0)) > _RESCALE_ABOVE:  # only these changed: O(d), not O(S)
            shift = -int(np.frexp(weights.max())[1])
            weights, first_moment = np.ldexp(weights, shift), np.ldexp(first_moment, shift)
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


def _overlap(servers: int, d: int, covered: int) -> tuple[np.ndarray, np.ndarray]:
    """The support j and law P(j) of the number of a new job's d servers among ``covered`` ones (hypergeometric).

    Multiplied out from the mode by P(j+1)/P(j) = (u-j)(d-j) / ((j+1)(S-u-d+j+1)) and normalised:
    every factor is at most 1, so nothing overflows, and each value is within a few ulps times its
    distance from the mode. (scipy's pmf, by prime factorisation for S up to about 10^5, took 33 s
    for S = 10^5, d = 2.)
    """
    j = np.arange(max(0, d - (servers - covered)), min(d, covered) + 1)
    up = (covered - j[:-1]) * (d - j[:-1]) / ((j[:-1] + 1) * (servers - covered - d + j[:-1] + 1))
    mode = min(max((d + 1) * (covered + 1) // (servers + 2), int(j[0])), int(j[-1])) - int(j[0])
    law = np.ones(len(j))
    law[mode + 1:] = np.cumprod(up[mode:])
    law[:mode] = np.cumprod(1 / up[:mode][::-1])[::-1]
    return j, law / law.sum()


def _stay_probability(servers: int, d: int, covered: np.ndarray) -> np.ndarray:
    """C(u, d)/C(S, d): probability that a new job's d servers are all among u covered ones.

    In exact integers (correctly rounded), so that the stability boundary ρ = 1 is met exactly.
    """
    total = math.comb(servers, d)
    return np.array([float(Fraction(math.comb(int(u), d), total)) for u in covered])


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
