"""Balanced Splitting for multiserver jobs: the server partition, stability, P_H and its limits.

Anselmi & Doncel, *Balanced Splitting: A Framework for Achieving Zero-wait in the
Multiserver-job Model* (IEEE TPDS 2024). k servers; jobs arrive as a Poisson process of rate λ
and are of class i with probability α_i; a class-i job holds n_i servers for a time of mean d_i.
The servers are split into reserved sets A_i of a_i servers (eq. 2a), each serving only class i
in FCFS order, and helpers H (eq. 2b). Under ModifiedBS the A_i behave as independent
M/GI/s_i/s_i loss systems (Property 1), which gives the stability condition (5), the probability
(16) that a job is sent to the helpers, and the many-server limits of Theorems 1 and 2.

Inputs given as floats are read as the decimal numbers they print as (0.95 is 19/20), so that the
partition is computed in exact rational arithmetic; pass ``fractions.Fraction`` for other exact
values (the Figure 1 model uses 1/60).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from numbers import Integral, Real

import numpy as np

from analytic.ctmc import CTMC
from analytic.erlang import erlang_b, halfin_whitt_blocking
from analytic.errors import InvalidParameterError, UnstableSystemError
from analytic.reproduce import Row, reproduces
from analytic.validation import instances, integer, positive

__all__ = [
    "KIT_FH2",
    "SDSC_SP2",
    "JobClass",
    "Partition",
    "ResponseTimeBound",
    "ScaledSystem",
    "Stability",
    "balanced_partition",
    "critical_system",
    "figure1_classes",
    "figure1_need_scale",
    "helper_probability_bound",
    "modified_bs_chain",
    "modified_bs_helper_probability",
    "response_time_bound",
    "stability_margin",
    "subcritical_system",
    "theorem1_limit",
    "theorem2_limit",
]

#: Tolerance on sum_i α_i = 1.
_PROBABILITY_SUM_TOLERANCE = 1e-9


def _exact(value: Real) -> Fraction:
    """A float as the decimal it prints as (0.1 -> 1/10); ints and Fractions unchanged."""
    if isinstance(value, (Fraction, Integral)):
        return Fraction(value)
    return Fraction(repr(float(value)))


@dataclass(frozen=True)
class JobClass:
    """One job class of Section 3.1: server need n_i, probability α_i, mean size d_i.

    Parameters
    ----------
    need : int
        n_i >= 1, the number of servers a job holds for its whole service.
    probability : float or Fraction
        α_i in (0, 1], the probability that a job is of this class.
    mean_size : float or Fraction
        d_i = E[D_i] > 0, the mean service time (time units).
    size_std : float, optional
        std(D_i), as listed in Tables 2 and 3. The results of the paper depend on the service
        time only through its mean (the loss systems of Property 1 are insensitive).

    Raises
    ------
    InvalidParameterError
        need not a positive integer, probability outside (0, 1], mean_size or size_std not
        positive and finite.

    Examples
    --------
    >>> JobClass(need=4, probability=0.25, mean_size=2.0).demand
    Fraction(2, 1)
    """

    need: int
    probability: Real
    mean_size: Real
    size_std: float | None = None

    def __post_init__(self) -> None:
        integer("need", self.need, meaning=" (servers held by a job)")
        if not isinstance(self.probability, Real) or not 0 < self.probability <= 1:
            raise InvalidParameterError("probability", self.probability, "must lie in (0, 1]")
        positive("mean_size", self.mean_size)
        if self.size_std is not None and not 0 <= self.size_std < math.inf:
            raise InvalidParameterError("size_std", self.size_std, "must be non-negative and finite")

    @property
    def demand(self) -> Fraction:
        """ϱ_i = α_i d_i n_i, the relative demand of the class (exact)."""
        return _exact(self.probability) * _exact(self.mean_size) * self.need


def _classes(classes: Iterable[JobClass]) -> tuple[JobClass, ...]:
    result = instances("classes", classes, JobClass)
    total = sum(float(c.probability) for c in result)
    if abs(total - 1) > _PROBABILITY_SUM_TOLERANCE:
        raise InvalidParameterError("classes", [float(c.probability) for c in result],
                                    f"probabilities must sum to 1 (they sum to {total:.12g})")
    return result


def _servers(servers: int, classes: Sequence[JobClass]) -> int:
    integer("servers", servers)
    largest = max(c.need for c in classes)
    if largest > servers:
        raise InvalidParameterError("servers", servers, f"must be >= every server need (largest need is {largest})")
    return int(servers)


# ---------------------------------------------------------------------------------------------
# The partition (Section 3.2)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Partition:
    """The balanced partition of eqs. (2a)–(2b).

    Attributes
    ----------
    servers : int
        k.
    psi : float
        ψ: the supremum of the x in [0, 1] that satisfy the condition of Section 3.2, 1 when
        x = 1 satisfies it (or when every k ϱ_i/(n_i ϱ) is an integer). Below 1 the supremum is a
        breakpoint of the floors and is not attained: (2a) evaluated at x = psi itself gives a
        partition with too few helpers.
    piece : tuple of float
        (lower, psi): the x on which (2a) gives the reported partition, lower inclusive; evaluate
        (2a) at ``piece[0]`` to reproduce it.
    reserved : tuple of int
        a_i = |A_i|, a multiple of n_i, one per class.
    servers_per_class : tuple of int
        s_i = a_i / n_i, the servers of the M/GI/s_i/s_i queue of Property 1.
    helpers : int
        |H| = k - sum_i a_i (>= max_i n_i unless the helper set is empty).
    """

    servers: int
    psi: float
    piece: tuple[float, float]
    reserved: tuple[int, ...]
    servers_per_class: tuple[int, ...]
    helpers: int


def balanced_partition(servers: int, classes: Iterable[JobClass]) -> Partition:
    """The reserved sets a_i and helpers |H| of eqs. (2a)–(2b), with ψ computed exactly.

    With c_i = k ϱ_i / (n_i ϱ), the number of servers left to helpers, h(x) = k - sum_i
    floor(x c_i) n_i, is a non-increasing step function of x that jumps at the breakpoints
    m / c_i. The admissible set {x in [0, 1] : h(x) >= max_i n_i} is therefore [0, b) with b a
    breakpoint (or all of [0, 1]). b is found exactly in rational arithmetic: for each class, the
    smallest m with h(m / c_i) < max n by bisection over m; b is the smallest of these m / c_i.
    ψ = b and the partition is the one on [b_prev, b), where floor(x c_i) = ceil(b c_i) - 1.

    Parameters
    ----------
    servers : int
        k >= max_i n_i.
    classes : sequence of JobClass
        The C classes; probabilities sum to 1.

    Returns
    -------
    Partition

    Raises
    ------
    InvalidParameterError
        A bad server count, a need above k, or probabilities not summing to 1.

    References
    ----------
    Anselmi & Doncel, Section 3.2, eqs. (2a)–(2b); Property 1 for s_i.

    Examples
    --------
    >>> p = balanced_partition(10, [JobClass(1, 0.5, 1.0), JobClass(2, 0.5, 1.0)])
    >>> p.psi, p.reserved, p.helpers  # c_i = 10/3: floor(10x/3) (1 + 2) <= 10 - 2 iff x < 0.9
    (0.9, (2, 4), 4)
    """
    classes = _classes(classes)
    k = _servers(servers, classes)
    needs = [c.need for c in classes]
    demands = [c.demand for c in classes]
    total = sum(demands)
    ratios = [k * d / (n * total) for d, n in zip(demands, needs, strict=True)]
    budget = k - max(needs)  # sum_i floor(x c_i) n_i must stay <= budget

    def used(x: Fraction) -> int:
        return sum(math.floor(x * c) * n for c, n in zip(ratios, needs, strict=True))

    if all(c.denominator == 1 for c in ratios) or used(Fraction(1)) <= budget:
        psi = Fraction(1)
        counts = [math.floor(c) for c in ratios]
    else:  # used(1) > budget, so some class has a breakpoint in (0, 1] where the budget is exceeded
        psi = min(x for c in ratios if (x := _first_excess(c, used, budget)) is not None)
        counts = [math.ceil(psi * c) - 1 for c in ratios]  # floor(x c) just below x = ψ
    lower = max((Fraction(m) / c for m, c in zip(counts, ratios, strict=True) if m > 0), default=Fraction(0))
    reserved = tuple(m * n for m, n in zip(counts, needs, strict=True))
    return Partition(servers=k, psi=float(psi), piece=(float(lower), float(psi)), reserved=reserved,
                     servers_per_class=tuple(counts), helpers=k - sum(reserved))


def _first_excess(ratio: Fraction, used, budget: int) -> Fraction | None:
    """Smallest breakpoint m/ratio (1 <= m <= floor(ratio)) with used(m/ratio) > budget, if any."""
    lo, hi = 0, math.floor(ratio)  # invariant: used(lo/ratio) <= budget (lo = 0: nothing used)
    if hi == 0 or used(Fraction(hi) / ratio) <= budget:
        return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if used(Fraction(mid) / ratio) > budget:
            hi = mid
        else:
            lo = mid
    return Fraction(hi) / ratio


# ---------------------------------------------------------------------------------------------
# Stability (Prop. 1), helper probability (eq. 16), response time
# ---------------------------------------------------------------------------------------------


def _reserved_system(servers: int, arrival_rate: float,
                     classes: Iterable[JobClass]) -> tuple[tuple[JobClass, ...], float, Partition, np.ndarray]:
    """Validated classes and rate, the partition, and E_{s_i}(λ α_i d_i) of every class (Property 1)."""
    classes = _classes(classes)
    rate = positive("arrival_rate", arrival_rate)
    partition = balanced_partition(servers, classes)
    loads = [rate * float(c.probability) * float(c.mean_size) for c in classes]
    blocking = np.asarray(erlang_b(np.array(partition.servers_per_class, dtype=float), np.array(loads)))
    return classes, rate, partition, blocking


def _probabilities(classes: Sequence[JobClass]) -> np.ndarray:
    return np.array([float(c.probability) for c in classes])


@dataclass(frozen=True)
class Stability:
    """The sufficient stability condition of Proposition 1.

    Attributes
    ----------
    margin : float
        λ/|H| sum_i ϱ_i E_{s_i}(λ α_i d_i), the left side of eq. (5) (+inf if H is empty):
        the load that the jobs blocked by the A_i bring to the helpers under ModifiedBS.
    stable : bool
        margin < 1: BS-π is stable whenever π is throughput optimal on the helpers.
    load : float
        ρ = λ ϱ / k of eq. (1), which must be < 1 for any policy.
    partition : Partition
    """

    margin: float
    stable: bool
    load: float
    partition: Partition


def stability_margin(servers: int, arrival_rate: float, classes: Iterable[JobClass]) -> Stability:
    """The left side of eq. (5) and whether it is below one (Proposition 1).

    Parameters
    ----------
    servers : int
        k.
    arrival_rate : float
        λ > 0, jobs per unit time.
    classes : sequence of JobClass

    Returns
    -------
    Stability

    Raises
    ------
    InvalidParameterError
        Bad servers, rate or classes.

    References
    ----------
    Anselmi & Doncel, Proposition 1, eq. (5) (proof in Section 5.2).

    Examples
    --------
    >>> result = stability_margin(64, 30.0, [JobClass(1, 0.5, 1.0), JobClass(4, 0.5, 0.5)])
    >>> result.stable, round(result.margin, 4), result.partition.servers_per_class
    (True, 0.9176, (20, 10))
    """
    classes, rate, partition, blocking = _reserved_system(servers, arrival_rate, classes)
    demands = np.array([float(c.demand) for c in classes])
    blocked = float(demands @ blocking)
    margin = rate * blocked / partition.helpers if partition.helpers else math.inf
    load = rate * float(demands.sum()) / partition.servers
    return Stability(margin=margin, stable=margin < 1, load=load, partition=partition)


def helper_probability_bound(servers: int, arrival_rate: float, classes: Iterable[JobClass]) -> float:
    """Eq. (16): P_H under ModifiedBS, sum_i α_i E_{s_i}(λ α_i d_i), an upper bound on P_H of BS-π.

    Exact for ModifiedBS by Property 1 (the A_i are independent M/GI/s_i/s_i queues, insensitive
    to the service distribution, and PASTA); an upper bound for BS-π by Corollary 1.

    Parameters
    ----------
    servers : int
        k.
    arrival_rate : float
        λ > 0.
    classes : sequence of JobClass

    Returns
    -------
    float
        The probability, with the relative accuracy of :func:`analytic.erlang.erlang_b`.

    Raises
    ------
    InvalidParameterError
        Bad servers, rate or classes.

    References
    ----------
    Anselmi & Doncel, eq. (16), Property 1, Corollary 1.

    Examples
    --------
    >>> round(helper_probability_bound(11, 1.0, [JobClass(2, 1.0, 2.0)]), 12)  # s_1 = 4: E_4(2) = 2/21
    0.095238095238
    """
    classes, _, _, blocking = _reserved_system(servers, arrival_rate, classes)
    return float(_probabilities(classes) @ blocking)


@dataclass(frozen=True)
class ResponseTimeBound:
    """What eqs. (4) and (16) say about the mean response time R of BS-π.

    Attributes
    ----------
    lower : float
        sum_i α_i d_i: R >= lower (a job's response time is at least its service time); also
        the limit of Theorem 1.
    accepted : float
        sum_i α_i d_i (1 - E_{s_i}(λ α_i d_i)): the response time that the jobs served in the A
        system contribute per arriving job under ModifiedBS (eq. (4) per class).
    helper_probability : float
        Eq. (16): a job can wait only if it is sent to the helpers, so P(wait > 0) <= this.
    """

    lower: float
    accepted: float
    helper_probability: float


def response_time_bound(servers: int, arrival_rate: float, classes: Iterable[JobClass]) -> ResponseTimeBound:
    """Bounds on the mean response time of BS-π from eqs. (4) and (16).

    R = lower + (mean wait), and a job waits only when sent to the helpers: the paper bounds the
    probability of that (eq. 16) but not the wait itself, which depends on the helper policy π,
    so no finite-k upper bound on R follows. Theorem 1 states R -> lower as k grows.

    Parameters
    ----------
    servers : int
        k.
    arrival_rate : float
        λ > 0.
    classes : sequence of JobClass

    Returns
    -------
    ResponseTimeBound

    Raises
    ------
    InvalidParameterError
        Bad servers, rate or classes.

    References
    ----------
    Anselmi & Doncel, eq. (4), eq. (16), Theorem 1.

    Examples
    --------
    >>> bound = response_time_bound(11, 1.0, [JobClass(2, 1.0, 2.0)])
    >>> bound.lower, round(bound.accepted, 12)  # 2 (1 - E_4(2)) = 38/21
    (2.0, 1.809523809524)
    """
    classes, _, _, blocking = _reserved_system(servers, arrival_rate, classes)
    weights = np.array([float(c.probability) * float(c.mean_size) for c in classes])
    probabilities = _probabilities(classes)
    return ResponseTimeBound(lower=float(weights.sum()), accepted=float(weights @ (1 - blocking)),
                             helper_probability=float(probabilities @ blocking))


# ---------------------------------------------------------------------------------------------
# The exact CTMC of ModifiedBS's reserved system (Definition 2), independent of Property 1
# ---------------------------------------------------------------------------------------------


def modified_bs_chain(servers: int, arrival_rate: float, classes: Iterable[JobClass],
                      hyperexponential: Mapping[int, tuple[float, float]] | None = None,
                      max_states: int = 200_000) -> CTMC:
    """The CTMC of the A system under ModifiedBS, built from Definition 2 with analytic.ctmc.

    A state holds, per class, the number of busy servers of A_i (per service phase for the
    classes given in ``hyperexponential``). A class-i job (rate λ α_i) is admitted when at least
    n_i of the a_i servers of A_i are idle, otherwise it goes to the helpers; a job in phase j
    leaves at its phase's rate. Nothing here assumes Property 1, so the chain checks it.

    Parameters
    ----------
    servers : int
        k.
    arrival_rate : float
        λ > 0.
    classes : sequence of JobClass
    hyperexponential : mapping, optional
        ``{i: (q, rate)}``: class i's service time is exponential with ``rate`` with probability
        q, else exponential with the rate that keeps its mean d_i (it must be positive).
    max_states : int
        Passed to :meth:`analytic.ctmc.CTMC.from_function`.

    Returns
    -------
    analytic.ctmc.CTMC
        States are tuples of per-class tuples of busy-server counts.

    Raises
    ------
    InvalidParameterError
        Bad inputs, or a hyperexponential phase that cannot keep the mean.
    StateSpaceTooLargeError
        More than ``max_states`` states.

    References
    ----------
    Anselmi & Doncel, Definition 2 (ModifiedBS), Property 1.

    Examples
    --------
    >>> modified_bs_chain(8, 2.0, [JobClass(1, 0.5, 1.0), JobClass(2, 0.5, 1.0)]).n_states  # s = (2, 2)
    9
    """
    classes = _classes(classes)
    rate = positive("arrival_rate", arrival_rate)
    reserved = balanced_partition(servers, classes).reserved
    phases = [_service_phases(i, c, (hyperexponential or {}).get(i)) for i, c in enumerate(classes)]

    def moved(state, i, phase, change):
        busy = list(state[i])
        busy[phase] += change
        return (*state[:i], tuple(busy), *state[i + 1:])

    def transitions(state):
        for i, (c, (weights, rates)) in enumerate(zip(classes, phases, strict=True)):
            busy = state[i]
            if reserved[i] - sum(busy) >= c.need:
                for phase, weight in enumerate(weights):
                    yield moved(state, i, phase, c.need), rate * float(c.probability) * weight
            for phase, phase_rate in enumerate(rates):
                if busy[phase]:
                    yield moved(state, i, phase, -c.need), busy[phase] // c.need * phase_rate

    initial = tuple((0,) * len(weights) for weights, _ in phases)
    return CTMC.from_function(initial, transitions, max_states=max_states)


def _service_phases(index: int, job_class: JobClass, spec: tuple[float, float] | None):
    """(phase probabilities, phase rates) of a class's service time with mean d_i."""
    mean = float(job_class.mean_size)
    if spec is None:
        return (1.0,), (1 / mean,)
    q, first = spec
    if not 0 < q < 1 or not 0 < first < math.inf or q / first >= mean:
        raise InvalidParameterError(f"hyperexponential[{index}]", spec,
                                    f"needs 0 < q < 1 and q/rate < d_i = {mean:g} so that the second phase keeps the mean")
    return (q, 1 - q), (first, (1 - q) / (mean - q / first))


def modified_bs_helper_probability(servers: int, arrival_rate: float, classes: Iterable[JobClass],
                                   hyperexponential: Mapping[int, tuple[float, float]] | None = None) -> float:
    """P_H under ModifiedBS from the exact CTMC: sum_i α_i P(fewer than n_i idle servers in A_i) (PASTA).

    The independent counterpart of :func:`helper_probability_bound` (eq. 16); see
    :func:`modified_bs_chain` for the parameters.

    Examples
    --------
    >>> round(modified_bs_helper_probability(11, 1.0, [JobClass(2, 1.0, 2.0)]), 12)  # E_4(2) = 2/21
    0.095238095238
    """
    classes = _classes(classes)
    reserved = balanced_partition(servers, classes).reserved
    pi = modified_bs_chain(servers, arrival_rate, classes, hyperexponential).stationary()
    return sum(float(c.probability) * pi.expected(lambda x, i=i, c=c: float(reserved[i] - sum(x[i]) < c.need))
               for i, c in enumerate(classes))


# ---------------------------------------------------------------------------------------------
# Many-server limits (Theorems 1 and 2)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScaledSystem:
    """The k-th system of a many-server sequence: k servers, arrival rate λ^(k), scaled classes.

    Attributes
    ----------
    servers : int
    arrival_rate : float
    classes : tuple of JobClass
        Needs n_i f_k, probabilities and sizes unchanged.
    load : float
        ρ^(k) = λ^(k) ϱ^(k) / k.
    """

    servers: int
    arrival_rate: float
    classes: tuple[JobClass, ...]
    load: float


def _scaled_classes(classes: Sequence[JobClass], scale: int) -> tuple[JobClass, ...]:
    scale = integer("need_scale", scale, meaning=" (f_k)")
    return tuple(JobClass(c.need * scale, c.probability, c.mean_size, c.size_std) for c in classes)


def subcritical_system(servers: int, need_scale: int, arrival_rate: float, classes: Iterable[JobClass]) -> ScaledSystem:
    """The k-th system of the subcritical scaling (7): λ^(k) = λ k / f_k, n_i^(k) = n_i f_k.

    Parameters
    ----------
    servers : int
        k.
    need_scale : int
        f_k >= 1 (f_k = o(k), eq. (6)).
    arrival_rate : float
        The base rate λ, with ρ = λ ϱ < 1 for the base classes.
    classes : sequence of JobClass
        The base classes (needs n_i).

    Returns
    -------
    ScaledSystem
        With load ρ^(k) = λ ϱ for every k.

    Raises
    ------
    InvalidParameterError
        Bad inputs, or a scaled need above k.
    UnstableSystemError
        λ ϱ >= 1.

    References
    ----------
    Anselmi & Doncel, eq. (7), Theorem 1.

    Examples
    --------
    >>> system = subcritical_system(100, 2, 0.5, [JobClass(1, 1.0, 1.0)])
    >>> system.arrival_rate, system.classes[0].need, system.load
    (25.0, 2, 0.5)
    """
    classes = _classes(classes)
    rate = positive("arrival_rate", arrival_rate)
    load = rate * float(sum(c.demand for c in classes))
    if load >= 1:
        raise UnstableSystemError("λ ϱ", load, 1.0, "the subcritical scaling (7) needs a base load below 1")
    scaled = _scaled_classes(classes, need_scale)
    k = _servers(servers, scaled)
    return ScaledSystem(servers=k, arrival_rate=rate * k / need_scale, classes=scaled, load=load)


def critical_system(servers: int, need_scale: int, theta: float, classes: Iterable[JobClass]) -> ScaledSystem:
    """The k-th system of the Halfin–Whitt scaling (8) with (1 - ρ^(k)) √(k/f_k) = θ exactly.

    ρ^(k) = 1 - θ √(f_k/k) and λ^(k) = ρ^(k) k / ϱ^(k), with ϱ^(k) = f_k sum_i α_i d_i n_i.

    Parameters
    ----------
    servers : int
        k.
    need_scale : int
        f_k >= 1 (f_k = o(k)); e.g. :func:`figure1_need_scale`.
    theta : float
        θ > 0 with θ √(f_k/k) < 1.
    classes : sequence of JobClass
        The base classes (needs n_i).

    Returns
    -------
    ScaledSystem

    Raises
    ------
    InvalidParameterError
        Bad inputs, θ <= 0, θ √(f_k/k) >= 1, or a scaled need above k.

    References
    ----------
    Anselmi & Doncel, eq. (8), Theorem 2.

    Examples
    --------
    >>> system = critical_system(400, 1, 2.0, [JobClass(1, 1.0, 1.0)])
    >>> system.load, system.arrival_rate
    (0.9, 360.0)
    """
    classes = _classes(classes)
    theta = positive("theta", theta)
    scaled = _scaled_classes(classes, need_scale)
    k = _servers(servers, scaled)
    gap = theta * math.sqrt(need_scale / k)
    if gap >= 1:
        raise InvalidParameterError("theta", theta, f"must satisfy θ √(f_k/k) < 1 (it is {gap:.6g})")
    load = 1 - gap
    return ScaledSystem(servers=k, arrival_rate=load * k / float(sum(c.demand for c in scaled)),
                        classes=scaled, load=load)


def theorem1_limit(classes: Iterable[JobClass]) -> float:
    """Theorem 1's limit of the mean response time, sum_i α_i d_i (P_H -> 0 under scaling (7)).

    Examples
    --------
    >>> theorem1_limit([JobClass(1, 0.5, 1.0), JobClass(2, 0.5, 3.0)])
    2.0
    """
    return float(sum(_exact(c.probability) * _exact(c.mean_size) for c in _classes(classes)))


def theorem2_limit(theta: float, classes: Iterable[JobClass]) -> float:
    """Theorem 2's limit of √(k/f_k) P_H^(k): θ sum_i α_i φ(θ_i) / (θ_i Φ(θ_i)), θ_i = θ √(ϱ_i/(n_i ϱ)).

    An upper bound for BS-π and, by Property 1 and Lemma 1, the exact limit for ModifiedBS.

    Parameters
    ----------
    theta : float
        θ > 0 of eq. (8b).
    classes : sequence of JobClass
        The base classes (needs n_i before scaling by f_k).

    Returns
    -------
    float

    Raises
    ------
    InvalidParameterError
        θ <= 0 or bad classes.

    References
    ----------
    Anselmi & Doncel, Theorem 2, eq. (9).

    Examples
    --------
    >>> round(theorem2_limit(1.0, [JobClass(1, 1.0, 1.0)]), 12)  # φ(1)/Φ(1)
    0.287599970939
    """
    classes = _classes(classes)
    theta = positive("theta", theta)
    total = sum(c.demand for c in classes)
    thetas = np.array([theta * math.sqrt(float(c.demand / (c.need * total))) for c in classes])
    return float(theta * _probabilities(classes) @ (np.asarray(halfin_whitt_blocking(thetas)) / thetas))


# ---------------------------------------------------------------------------------------------
# Class models of the paper
# ---------------------------------------------------------------------------------------------


def _table(rows: Sequence[tuple[float, float, int, float]], total: float = 1.0) -> tuple[JobClass, ...]:
    """Classes from (E[D_i], std(D_i), n_i, α_i) rows; α_i divided by their printed sum."""
    return tuple(JobClass(need=n, probability=_exact(alpha) / _exact(total), mean_size=mean, size_std=std)
                 for mean, std, n, alpha in rows)


#: Table 2, SDSC SP2 (E[D_i] in seconds, std(D_i), n_i, α_i): the α_i sum to 1.
SDSC_SP2 = _table([
    (10519.71, 18267.03, 1, 0.2321),
    (1436.82, 6250.19, 2, 0.1496),
    (5643.69, 18123.7, 4, 0.1624),
    (9248.53, 18468.51, 8, 0.1652),
    (10601.46, 17050.63, 16, 0.156),
    (12139.59, 22654.86, 32, 0.0807),
    (8302.33, 19074.81, 64, 0.054),
])

#: Table 3, KIT FH2. The printed α_i sum to 0.9999 (rounding); they are divided by that sum.
KIT_FH2 = _table([
    (1845.19, 11440.31, 1, 0.7851),
    (1470.13, 5237.83, 2, 0.018),
    (11169.87, 38631.83, 4, 0.0406),
    (3167.33, 19727.29, 8, 0.0137),
    (5706.45, 17212.04, 16, 0.0539),
    (60673.08, 92531.56, 32, 0.0493),
    (61343.42, 106094.97, 64, 0.0393),
], total=0.9999)


def figure1_need_scale(servers: int) -> int:
    """f_k = floor((k/32)^(2/3)) of Figure 1, computed exactly (integer cube root).

    Examples
    --------
    >>> figure1_need_scale(1024), figure1_need_scale(32768)  # 32^(2/3) = 10.08, 1024^(2/3) = 101.6
    (10, 101)
    """
    integer("servers", servers, minimum=32)
    # largest f with f^3 <= (k/32)^2, i.e. 32^2 f^3 <= k^2
    f = round((servers / 32) ** (2 / 3))
    while 1024 * f**3 > servers**2:
        f -= 1
    while 1024 * (f + 1) ** 3 <= servers**2:
        f += 1
    return f


def figure1_classes(need_scale: int = 1) -> tuple[JobClass, ...]:
    """The "several small and few large" model of Figure 1, needs scaled by f.

    Small jobs (f, mean 1) with probability 0.95; large jobs (2f, 40), (4f, 20), (8f, 10), each
    with probability 0.05/3 (kept exact as 1/60). Relative demands 0.95 f and 4 f.

    Examples
    --------
    >>> [(c.need, float(c.mean_size)) for c in figure1_classes(2)]
    [(2, 1.0), (4, 40.0), (8, 20.0), (16, 10.0)]
    """
    large = Fraction(1, 60)
    base = (JobClass(1, Fraction(19, 20), 1), JobClass(2, large, 40), JobClass(4, large, 20), JobClass(8, large, 10))
    return _scaled_classes(base, need_scale)


# ---------------------------------------------------------------------------------------------
# Checks shown by `analytic reproduce`
# ---------------------------------------------------------------------------------------------


def _partition_by_scan(servers: int, classes: Sequence[JobClass]) -> tuple[float, tuple[int, ...], int]:
    """ψ and the partition by walking through every breakpoint in increasing order (reference)."""
    needs = [c.need for c in classes]
    total = sum(c.demand for c in classes)
    ratios = [servers * c.demand / (c.need * total) for c in classes]
    points = sorted({Fraction(m) / c for c in ratios for m in range(1, math.floor(c) + 1)})
    best = (0.0, tuple(0 for _ in classes))
    for x in [Fraction(0), *points]:
        counts = tuple(math.floor(x * c) for c in ratios)
        if servers - sum(m * n for m, n in zip(counts, needs, strict=True)) < max(needs):
            return float(x), best[1], servers - sum(m * n for m, n in zip(best[1], needs, strict=True))
        best = (float(x), counts)
    return 1.0, tuple(math.floor(c) for c in ratios), servers - sum(math.floor(c) * n for c, n in zip(ratios, needs, strict=True))


def _describe_partition(psi: float, counts: Sequence[int], helpers: int) -> str:
    return f"{psi:.5f};{','.join(map(str, counts))};{helpers}"


@reproduces
def _table_partition_rows() -> list[Row]:
    rows = []
    for name, classes in (("SDSC SP2, Table 2", SDSC_SP2), ("KIT FH2, Table 3", KIT_FH2)):
        for k in (512, 1024):
            p = balanced_partition(k, classes)
            psi, counts, helpers = _partition_by_scan(k, classes)
            rows.append(Row(paper="Anselmi & Doncel, eqs. (2a)-(2b)",
                            statement=f"{name}, k = {k}: ψ; s_i; |H| by exact bisection (left: scan of all breakpoints)",
                            paper_value=_describe_partition(psi, counts, helpers),
                            value=_describe_partition(p.psi, p.servers_per_class, p.helpers)))
    return rows


@reproduces
def _proposition3_rows() -> list[Row]:
    """Prop. 3: ψ^(k) -> 1 (1 - ψ <= max_i n_i^(k) / k); eq. (15): ψ^(k) = 1 for all k large enough."""
    ks = [int(k) for k in np.unique(np.round(np.logspace(6, 18, 100)))]     # twelve orders of magnitude
    psis = np.array([balanced_partition(k, figure1_classes(figure1_need_scale(k))).psi for k in ks])
    bounds = np.array([8 * figure1_need_scale(k) / k for k in ks])          # the largest need is 8 f_k
    below = [(k, psi) for k, psi in zip(ks, psis, strict=True) if psi < 1]
    return [
        Row(paper="Anselmi & Doncel, Prop. 3",
            statement=f"ψ^(k) -> 1: Figure 1 model, f_k = ⌊(k/32)^(2/3)⌋, {len(ks)} k from 1e6 to 1e18 (log-spaced): "
                      "1 - ψ^(k) <= 8 f_k / k at every one",
            paper_value=True, value=bool(np.all(1 - psis <= bounds))),
        Row(paper="Anselmi & Doncel, eq. (15)",
            statement=f"ψ^(k) = 1 for all k large enough: how many of those {len(ks)} k have ψ^(k) < 1",
            paper_value=0, value=len(below), tolerance=0, expect_agreement=False, kind="contradicted",
            note="The proof of Prop. 3 concludes '(15) ψ^(k) = 1, ∀k large enough' from (14). At x = 1 the helpers "
                 "number f_k sum_i frac(k ϱ_i/(n_i f_k ϱ)) n_i, which does not grow with k, so ψ^(k) < 1 recurs at "
                 f"every scale: the largest such k sampled is {below[-1][0]:.3g} (ψ = {below[-1][1]:.12g}). ψ^(k) -> 1 "
                 "and Theorem 2 still hold since 1 - ψ^(k) <= max_i n_i^(k) / k (the row above)."),
    ]


@reproduces
def _stability_rows() -> list[Row]:
    """Section 4.2: "(5) is eventually true if the number of servers is large enough", in either regime."""
    base = figure1_classes()
    subcritical = subcritical_system(2**22, figure1_need_scale(2**22), 0.5 / float(sum(c.demand for c in base)), base)
    sub = stability_margin(subcritical.servers, subcritical.arrival_rate, subcritical.classes)
    margins = []
    for k in (2**20, 2**30, 2**40):
        system = critical_system(k, figure1_need_scale(k), 0.7, base)
        margins.append(stability_margin(system.servers, system.arrival_rate, system.classes).margin)
    claim = "Section 4.2: '(5) is eventually true if the number of servers is large enough'"
    return [
        Row(paper="Anselmi & Doncel, Sec. 4.2",
            statement=f"{claim}, read in the subcritical scaling (7) of Sec. 4.3: Figure 1 model, ρ = 0.5, k = 2^22",
            paper_value=True, value=sub.stable, kind="reading", note=f"left side of (5) = {sub.margin:.3g}"),
        Row(paper="Anselmi & Doncel, Sec. 4.2",
            statement=f"{claim}, read in the Halfin–Whitt scaling (8) of Sec. 4.4: Figure 1 model, θ = 0.7, k = 2^40",
            paper_value=True, value=margins[-1] < 1, expect_agreement=False, kind="reading",
            note="left side of (5) = " + ", ".join(f"{m:.3g}" for m in margins) + " at k = 2^20, 2^30, 2^40: "
                 "it grows like √(k/f_k), since the overflow to the helpers is of order √(k f_k) server units while "
                 "|H| <= f_k sum_i n_i: in the Halfin–Whitt regime the sufficient condition of Prop. 1 fails for large "
                 "k. The sentence does not name a regime; Sec. 4.2 precedes both scalings."),
    ]


@reproduces
def _property1_row() -> Row:
    """Property 1 / eq. (16): the loss-formula value equals P_H of the exact ModifiedBS chain."""
    classes = [JobClass(1, 0.6, 1.0), JobClass(2, 0.3, 1.5), JobClass(4, 0.1, 2.0)]
    return Row(paper="Anselmi & Doncel, Property 1, eq. (16)",
               statement="P_H of ModifiedBS: eq. (16) vs exact CTMC of Definition 2 (k = 40, λ = 9, "
                         "hyperexponential sizes for the 2-server class)",
               paper_value=modified_bs_helper_probability(40, 9.0, classes, hyperexponential={1: (0.2, 2.0)}),
               value=helper_probability_bound(40, 9.0, classes), tolerance=1e-12)
