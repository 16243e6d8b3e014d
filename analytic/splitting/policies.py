"""The scheduling policies of Anselmi & Doncel, Section 2, as the simulator implements them, and the Gittins rank.

Each policy decides, at every arrival and departure, which jobs hold servers; a job of class i
holds n_i servers while in service. Jobs of one class are served in arrival order unless the
policy's order says otherwise, and every tie is broken by arrival order.

Non-preemptive (a job in service keeps its servers until it completes):

- ``"fcfs"`` — First-Come First-Served: jobs start in arrival order while the oldest waiting job
  fits (head-of-line blocking).
- ``"ffbf"`` — First-Fit Back-Filling: as FCFS, but whenever servers are idle the oldest waiting
  job that fits starts, repeatedly.
- ``"maxweight"`` — MaxWeight in its myopic non-preemptive form (Maguluri, Srikant & Ying): at each
  arrival and departure, the waiting jobs to start are chosen to maximize Σ_n Q_n x_n over what
  fits in the idle servers, with Q_n the number of jobs of need n in the system and x_n the number
  started (a bounded knapsack, solved exactly); of each need, the oldest jobs start.
- ``"bs-fcfs"`` — BalancedSplitting-FCFS (Definition 1): a class-i arrival starts in A_i if n_i of
  its servers are idle (rule 1), else joins the helper set H, served by FCFS (rule 2); when a job
  completes in A_i the oldest class-i job waiting in H takes its place (rule 3).
- ``"modified-bs-fcfs"`` — ModifiedBS-FCFS (Definition 2): rules 1–2 only; a job sent to H stays there.

Preemptive (the set in service is recomputed at each event; a preempted job resumes where it stopped):

- ``"msf"`` — Most Servers First: jobs in decreasing order of need, each served if it fits.
- ``"server-filling"`` — M is the shortest prefix of the jobs in arrival order whose needs sum to
  at least k (all jobs if none); its jobs are placed in decreasing order of need until one does
  not fit.
- ``"server-filling-srpt"`` — as ServerFilling with the jobs ordered by remaining size, n_j times
  the remaining service time (ties in the placement by smaller remaining size).
- ``"server-filling-gittins"`` — as ServerFilling-SRPT with the Gittins rank n_i G_i(a) instead
  (:func:`gittins_rank`).
- ``"ff-srpt"`` — First-Fit SRPT: jobs in increasing order of remaining service time ("regardless of
  their server needs"), each served if it fits.

The ServerFilling policies need k and every n_i to be powers of two (the packing argument of Grosof
et al. behind their throughput optimality, and the paper's Remark 2); the simulator refuses other
sizes rather than run a different policy. Any callable ``policy(state: PolicyState) -> mask`` is
accepted too (see :class:`PolicyState`).

Readings, where Section 2 is ambiguous: the Gittins rank is taken at the attained service a (the
paper says "age (time spent in the system)", but the Gittins rank of [3] and of the Gittins index
literature is a function of attained service), and multiplied by n_i so that ServerFilling-Gittins
and ServerFilling-SRPT coincide for deterministic sizes, as the paper states; First-Fit SRPT orders
by remaining service time, not by remaining area.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special

from analytic._deprecation import renamed_arguments
from analytic.errors import InvalidParameterError
from analytic.memory import require
from analytic.simulation import Discrete, ErlangMixture, Pareto, SizeLaw
from analytic.splitting.classes import RigidClass
from analytic.validation import integer, real_array

__all__ = ["POLICIES", "Policy", "PolicyState", "gittins_rank", "gittins_table", "resolve_policy"]


@dataclass(frozen=True)
class Policy:
    """A built-in policy of Section 2 and how the simulator runs it.

    Attributes
    ----------
    name : str
    preemptive : bool
    size_aware : bool
        Whether it reads the jobs' sizes (SRPT orders).
    powers_of_two : bool
        Whether k and the needs must be powers of two.
    helper_mode : str or None
        Non-preemptive: how waiting jobs start ("fcfs", "first-fit", "maxweight").
    order : str or None
        Preemptive: the order of the jobs ("need", "arrival", "work", "gittins", "remaining").
    packing : str or None
        Preemptive: "first-fit" (each job in order if it fits) or "server-filling".
    split : bool
        Whether the servers are split as in Section 3.2 (reserved sets A_i and helpers H).
    rule3 : bool
        Whether a job completing in A_i pulls the oldest class-i job waiting in H (Definition 1).

    Examples
    --------
    >>> from analytic.splitting.policies import POLICIES
    >>> POLICIES["bs-fcfs"].split, POLICIES["server-filling"].preemptive
    (True, True)
    """

    name: str
    preemptive: bool
    size_aware: bool = False
    powers_of_two: bool = False
    helper_mode: str | None = None
    order: str | None = None
    packing: str | None = None
    split: bool = False
    rule3: bool = False


#: The built-in policies by name.
POLICIES = {p.name: p for p in (
    Policy("fcfs", False, helper_mode="fcfs"),
    Policy("ffbf", False, helper_mode="first-fit"),
    Policy("maxweight", False, helper_mode="maxweight"),
    Policy("bs-fcfs", False, helper_mode="fcfs", split=True, rule3=True),
    Policy("modified-bs-fcfs", False, helper_mode="fcfs", split=True),
    Policy("msf", True, order="need", packing="first-fit"),
    Policy("server-filling", True, powers_of_two=True, order="arrival", packing="server-filling"),
    Policy("server-filling-srpt", True, size_aware=True, powers_of_two=True, order="work", packing="server-filling"),
    Policy("server-filling-gittins", True, powers_of_two=True, order="gittins", packing="server-filling"),
    Policy("ff-srpt", True, size_aware=True, order="remaining", packing="first-fit"),
)}


@dataclass(frozen=True)
class PolicyState:
    """What a callable policy sees at an arrival or a departure: the jobs present, in arrival order.

    A callable policy is called as ``policy(state)`` and returns a boolean array, one entry per job
    present, saying which jobs hold servers until the next arrival or departure (their needs must
    sum to at most ``servers``). Returning the jobs in service again keeps them; leaving one out
    preempts it (it resumes later with its remaining size). It runs in Python, event by event
    (a few thousand jobs per second).

    Attributes
    ----------
    time : float
    servers : int
        k.
    job_class : numpy.ndarray of int
        Index of each job's class in the ``classes`` passed to the simulator.
    need : numpy.ndarray of int
    arrival : numpy.ndarray of float
        Arrival times.
    attained : numpy.ndarray of float
        Service received so far.
    remaining : numpy.ndarray of float
        Remaining service time (size-aware policies read it; others should not).
    serving : numpy.ndarray of bool
        Whether each job holds servers now.

    Examples
    --------
    A callable policy that serves jobs in arrival order while they fit (FCFS without blocking):

    >>> import numpy as np
    >>> from analytic.splitting import RigidClass, simulate_multiserver
    >>> def first_fit(state):
    ...     return np.cumsum(state.need) <= state.servers
    >>> simulate_multiserver(first_fit, 2, [RigidClass(1, 1.0, 1.0)], 1.0, arrivals=2000, seed=1).policy
    'callable'
    """

    time: float
    servers: int
    job_class: np.ndarray
    need: np.ndarray
    arrival: np.ndarray
    attained: np.ndarray
    remaining: np.ndarray
    serving: np.ndarray


def _power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def resolve_policy(policy: str | Callable[[PolicyState], object], servers: int,
                   classes: Sequence[RigidClass]) -> Policy | Callable[[PolicyState], object]:
    """The :class:`Policy` named ``policy`` checked against the system, or the callable itself.

    Parameters
    ----------
    policy : str or callable
        A name of :data:`POLICIES` or a callable of a :class:`PolicyState`.
    servers : int
        k.
    classes : sequence of RigidClass
        The job classes.

    Returns
    -------
    Policy or callable


    Raises
    ------
    InvalidParameterError
        An unknown name, or a ServerFilling policy with k or a need that is not a power of two.

    Examples
    --------
    >>> resolve_policy("server-filling", 12, [RigidClass(4, 1.0, 1.0)])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    analytic.errors.InvalidParameterError: servers = 12: must be a power of two for server-filling (...
    """
    if callable(policy) and not isinstance(policy, str):
        return policy
    if not isinstance(policy, str) or policy not in POLICIES:
        raise InvalidParameterError("policy", policy, f"must be one of {', '.join(POLICIES)}, or a callable")
    chosen = POLICIES[policy]
    if chosen.powers_of_two:
        reason = (f"for {policy} (its packing fills all servers only then: Grosof et al., and the paper's Remark 2); "
                  "use msf, ff-srpt or a non-preemptive policy for other sizes")
        if not _power_of_two(servers):
            raise InvalidParameterError("servers", servers, f"must be a power of two {reason}")
        odd = [c.need for c in classes if not _power_of_two(c.need)]
        if odd:
            raise InvalidParameterError("classes", [c.need for c in classes], f"needs {odd} must be powers of two {reason}")
    return chosen


# ---------------------------------------------------------------------------------------------
# The Gittins rank
# ---------------------------------------------------------------------------------------------

def _survival_and_tail(law: SizeLaw) -> tuple[Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], np.ndarray]]:
    """S(x) = P(D > x) and T(x) = ∫_x^∞ S(t) dt, in closed form for each family (no cancellation in the tail)."""
    if isinstance(law, ErlangMixture):
        w, k, r = law.weights, law.phases, law.rates

        def survival(x):
            return np.sum(w * special.gammaincc(k, r * x[..., None]), axis=-1)

        def tail(x):  # ∫_x^∞ Q(k, r t) dt = (1/r) Σ_{j=1}^{k} Q(j, r x)
            total = np.zeros(np.shape(x))
            for weight, phases, rate in zip(w, k, r, strict=True):
                total += weight / rate * special.gammaincc(np.arange(1, phases + 1), rate * x[..., None]).sum(axis=-1)
            return total

        return survival, tail
    if isinstance(law, Discrete):
        v, p = law.values, law.probabilities
        return (lambda x: np.sum(p * (v > x[..., None]), axis=-1),
                lambda x: np.sum(p * np.maximum(v - x[..., None], 0.0), axis=-1))
    if isinstance(law, Pareto):
        a, y = law.shape, law.scale

        def survival(x):
            return np.where(x < y, 1.0, (y / np.maximum(x, y)) ** a)

        def tail(x):
            top = np.maximum(x, y)
            return np.maximum(y - x, 0.0) + top * (y / top) ** a / (a - 1.0)

        return survival, tail
    mean = law.mean
    return (lambda x: 1.0 - np.asarray(law.cdf(x), dtype=float),
            lambda x: mean * (1.0 - np.asarray(law.excess_cdf(x), dtype=float)))


def _ratio(survival, tail, a: np.ndarray, b: np.ndarray, sa: np.ndarray, ta: np.ndarray) -> np.ndarray:
    """(T(a) - T(b)) / (S(a) - S(b)), +inf where the law puts no mass in (a, b]."""
    drop = sa - survival(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(drop > 0, (ta - tail(b)) / np.where(drop > 0, drop, 1.0), np.inf)


def _check_size(size: object) -> None:
    if not isinstance(size, SizeLaw):
        raise InvalidParameterError("size", size, "must be an analytic.simulation.SizeLaw")


#: Memory of the Gittins search per age: a grid of 160 trial ends b, a few float arrays of each.
_BYTES_PER_AGE = 160 * 8 * 8


@renamed_arguments(law="size")
def gittins_rank(size: SizeLaw, ages: float | np.ndarray) -> np.ndarray:
    """The Gittins rank G(a) = inf_{b > a} E[min(D, b) - a | D > a] / P(D <= b | D > a) of a size law.

    Lower is served first. With S the survival function and T(x) = ∫_x^∞ S, the ratio is
    (T(a) - T(b)) / (S(a) - S(b)). Discrete laws: the infimum over their atoms above a, exactly.
    Other laws: over 160 values of b - a spread geometrically from 10^-8 to 10^6 mean sizes and
    b = ∞, refined by golden-section search around the best. For an increasing hazard rate h the
    infimum is at b = ∞ (the mean residual size E[D - a | D > a]), for a decreasing one at b -> a
    (1/h(a)); the tests check both, and the exponential law's constant mean, to 1e-7. Ages beyond
    the support get rank 0.

    Parameters
    ----------
    size : SizeLaw
    ages : float or array_like
        Attained service a >= 0.

    Returns
    -------
    numpy.ndarray
        G(a), in time units (multiply by n_i for the rank of ServerFilling-Gittins).

    Raises
    ------
    InvalidParameterError
        Negative or non-finite ages, or ``size`` not a SizeLaw.

    References
    ----------
    Anselmi & Doncel, Section 2 (ServerFilling-Gittins); Grosof, Scully, Harchol-Balter &
    Scheller-Wolf, *Optimal scheduling in the multiserver-job model under heavy traffic* (2022).

    Examples
    --------
    >>> from analytic.simulation import deterministic, exponential
    >>> gittins_rank(exponential(2.0), [0.0, 5.0]).round(12).tolist()
    [2.0, 2.0]
    >>> gittins_rank(deterministic(3.0), [0.0, 1.0]).tolist()
    [3.0, 2.0]
    """
    _check_size(size)
    law = size
    a = real_array("ages", ages, allow_infinite=True)
    if not np.all(np.isfinite(a)) or np.any(a < 0):
        raise InvalidParameterError("ages", ages, "must be finite and >= 0")
    require(_BYTES_PER_AGE * a.size, "the Gittins search over the ages", a.size)
    shape = a.shape
    a = a.ravel()
    survival, tail = _survival_and_tail(law)
    sa, ta = survival(a), tail(a)
    alive = sa > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        best = np.where(alive, ta / np.where(alive, sa, 1.0), 0.0)  # b = ∞
    if isinstance(law, Discrete):
        for v in law.values:
            best = np.minimum(best, _ratio(survival, tail, a, np.full_like(a, v), sa, ta))
        return np.where(alive, best, 0.0).reshape(shape)
    steps = law.mean * np.geomspace(1e-8, 1e6, 160)
    grid = _ratio(survival, tail, a[:, None], a[:, None] + steps, sa[:, None], ta[:, None])
    index = np.argmin(grid, axis=1)
    low = np.log(steps[np.maximum(index - 1, 0)])
    high = np.log(steps[np.minimum(index + 1, steps.size - 1)])
    golden = (math.sqrt(5) - 1) / 2
    for _ in range(48):  # golden-section search in log(b - a), vectorized over ages
        x1, x2 = high - golden * (high - low), low + golden * (high - low)
        left = _ratio(survival, tail, a, a + np.exp(x1), sa, ta) <= _ratio(survival, tail, a, a + np.exp(x2), sa, ta)
        high, low = np.where(left, x2, high), np.where(left, low, x1)
    refined = _ratio(survival, tail, a, a + np.exp(0.5 * (low + high)), sa, ta)
    best = np.minimum(best, np.minimum(grid[np.arange(a.size), index], refined))
    return np.where(alive, best, 0.0).reshape(shape)


@renamed_arguments(law="size")
def gittins_table(size: SizeLaw, points: int = 256) -> tuple[np.ndarray, np.ndarray]:
    """Ages and Gittins ranks on which the simulator interpolates linearly.

    Ages: 0, the atoms of a discrete law (with 32 points between consecutive ones), or a geometric
    grid from 10^-4 mean sizes to the age where the survival function falls below 10^-12 (two
    points for the exponential law, whose rank is its mean). Beyond the last age the last rank is
    used.

    Parameters
    ----------
    size : SizeLaw
        A job-size law.
    points : int
        Points of the geometric grid.

    Returns
    -------
    tuple of numpy.ndarray
        Ages and ranks.


    Examples
    --------
    >>> from analytic.simulation import exponential
    >>> ages, ranks = gittins_table(exponential(1.0))
    >>> bool(np.allclose(ranks, 1.0, rtol=1e-9, atol=0))
    True
    """
    _check_size(size)
    law = size
    require(_BYTES_PER_AGE * integer("points", points, minimum=2), "the Gittins table", points)
    survival, _ = _survival_and_tail(law)
    if isinstance(law, ErlangMixture) and law.phases.tolist() == [1]:  # exponential: a constant rank
        ages = np.array([0.0, law.mean])
        return ages, np.full(2, law.mean)
    if isinstance(law, Discrete):
        atoms = np.concatenate([[0.0], np.sort(law.values)])
        ages = np.unique(np.concatenate([np.linspace(lo, hi, 33) for lo, hi in itertools.pairwise(atoms)]))
    else:
        low, high = law.mean, law.mean
        while survival(np.array([high]))[0] > 1e-12 and high < 1e30 * law.mean:
            high *= 2.0
        ages = np.concatenate([[0.0], np.geomspace(1e-4 * low, high, points - 1)])
    return ages, gittins_rank(law, ages)
