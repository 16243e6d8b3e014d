"""Stability (Proposition 1), the helper probability (eq. 16) and response-time bounds of BS-π.

Under ModifiedBS (Definition 2) the reserved sets A_i behave as independent M/GI/s_i/s_i loss
systems (Property 1); eq. (16) is then the probability that a job is sent to the helpers, an upper
bound on that probability under BS-π (Corollary 1), and eq. (5) the load the blocked jobs bring
to the helpers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from analytic._deprecation import old_names
from analytic.erlang import MAX_SERVERS, erlang_b
from analytic.errors import InvalidParameterError, UnstableSystemError
from analytic.splitting.classes import RigidClass, check_classes, class_probabilities
from analytic.splitting.partition import Partition, balanced_partition
from analytic.validation import positive

__all__ = ["ResponseTimeBound", "StabilityMargin", "helper_probability_bound", "response_time_bound", "split_servers",
           "stability_margin"]


def _reserved_system(servers: int, arrival_rate: float,
                     classes: Iterable[RigidClass]) -> tuple[tuple[RigidClass, ...], float, Partition, np.ndarray]:
    """Validated classes and rate, the partition, and E_{s_i}(λ α_i d_i) of every class (Property 1)."""
    classes = check_classes(classes)
    rate = positive("arrival_rate", arrival_rate)
    partition = balanced_partition(servers, classes)
    largest = max(partition.servers_per_class)
    if largest > MAX_SERVERS:
        raise InvalidParameterError("servers", servers, f"gives a reserved set A_i of s_i = {largest:,} slots, beyond "
                                                        f"{MAX_SERVERS:.0e}, the range where Erlang B (eq. 16) is validated")
    loads = [rate * float(c.probability) * float(c.mean_size) for c in classes]
    blocking = np.asarray(erlang_b(np.array(partition.servers_per_class, dtype=float), np.array(loads)))
    return classes, rate, partition, blocking


@dataclass(frozen=True)
class StabilityMargin:
    """The sufficient stability condition of Proposition 1.

    Attributes
    ----------
    margin : float
        λ/``|H|`` sum_i ϱ_i E_{s_i}(λ α_i d_i), the left side of eq. (5) (+inf if H is empty):
        the load that the jobs blocked by the A_i bring to the helpers under ModifiedBS.
    stable : bool
        margin < 1: BS-π is stable whenever π is throughput optimal on the helpers.
    load : float
        ρ = λ ϱ / k of eq. (1), which must be < 1 for any policy.
    partition : Partition

    Examples
    --------
    >>> from analytic.splitting import RigidClass, stability_margin
    >>> round(stability_margin(64, 30.0, [RigidClass(1, 0.5, 1.0), RigidClass(4, 0.5, 0.5)]).margin, 4)
    0.9176
    """

    margin: float
    stable: bool
    load: float
    partition: Partition


def stability_margin(servers: int, arrival_rate: float, classes: Iterable[RigidClass]) -> StabilityMargin:
    """The left side of eq. (5) and whether it is below one (Proposition 1).

    Parameters
    ----------
    servers : int
        k.
    arrival_rate : float
        λ > 0, jobs per unit time.
    classes : sequence of RigidClass

    Returns
    -------
    StabilityMargin

    Raises
    ------
    InvalidParameterError
        Bad servers, rate or classes, or some s_i above 1e15 (the range of :func:`analytic.erlang.erlang_b`).

    References
    ----------
    Anselmi & Doncel, Proposition 1, eq. (5) (proof in Section 5.2).

    Examples
    --------
    >>> result = stability_margin(64, 30.0, [RigidClass(1, 0.5, 1.0), RigidClass(4, 0.5, 0.5)])
    >>> result.stable, round(result.margin, 4), result.partition.servers_per_class
    (True, 0.9176, (20, 10))
    """
    classes, rate, partition, blocking = _reserved_system(servers, arrival_rate, classes)
    demands = np.array([float(c.demand) for c in classes])
    blocked = float(demands @ blocking)
    margin = rate * blocked / partition.helpers if partition.helpers else math.inf
    load = rate * float(demands.sum()) / partition.servers
    return StabilityMargin(margin=margin, stable=margin < 1, load=load, partition=partition)


def helper_probability_bound(servers: int, arrival_rate: float, classes: Iterable[RigidClass]) -> float:
    """Eq. (16): P_H under ModifiedBS, sum_i α_i E_{s_i}(λ α_i d_i), an upper bound on P_H of BS-π.

    Exact for ModifiedBS by Property 1 (the A_i are independent M/GI/s_i/s_i queues, insensitive
    to the service distribution, and PASTA); an upper bound for BS-π by Corollary 1.

    Parameters
    ----------
    servers : int
        k.
    arrival_rate : float
        λ > 0.
    classes : sequence of RigidClass

    Returns
    -------
    float
        The probability, with the relative accuracy of :func:`analytic.erlang.erlang_b`.

    Raises
    ------
    InvalidParameterError
        Bad servers, rate or classes, or some s_i above 1e15 (the range of :func:`analytic.erlang.erlang_b`).

    References
    ----------
    Anselmi & Doncel, eq. (16), Property 1, Corollary 1.

    Examples
    --------
    >>> round(helper_probability_bound(11, 1.0, [RigidClass(2, 1.0, 2.0)]), 12)  # s_1 = 4: E_4(2) = 2/21
    0.095238095238
    """
    classes, _, _, blocking = _reserved_system(servers, arrival_rate, classes)
    return float(class_probabilities(classes) @ blocking)


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

    Examples
    --------
    >>> from analytic.splitting import RigidClass, response_time_bound
    >>> response_time_bound(11, 1.0, [RigidClass(2, 1.0, 2.0)]).lower
    2.0
    """

    lower: float
    accepted: float
    helper_probability: float


def response_time_bound(servers: int, arrival_rate: float, classes: Iterable[RigidClass]) -> ResponseTimeBound:
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
    classes : sequence of RigidClass

    Returns
    -------
    ResponseTimeBound

    Raises
    ------
    InvalidParameterError
        Bad servers, rate or classes, or some s_i above 1e15 (the range of :func:`analytic.erlang.erlang_b`).

    References
    ----------
    Anselmi & Doncel, eq. (4), eq. (16), Theorem 1.

    Examples
    --------
    >>> bound = response_time_bound(11, 1.0, [RigidClass(2, 1.0, 2.0)])
    >>> bound.lower, round(bound.accepted, 12)  # 2 (1 - E_4(2)) = 38/21
    (2.0, 1.809523809524)
    """
    classes, _, _, blocking = _reserved_system(servers, arrival_rate, classes)
    weights = np.array([float(c.probability) * float(c.mean_size) for c in classes])
    probabilities = class_probabilities(classes)
    return ResponseTimeBound(lower=float(weights.sum()), accepted=float(weights @ (1 - blocking)),
                             helper_probability=float(probabilities @ blocking))


def split_servers(servers: int, arrival_rate: float, classes: Iterable[RigidClass],
                  modified: bool) -> tuple[tuple[int, ...], int]:
    """The slots s_i of each A_i and the helpers ``|H|`` under BS-FCFS or (``modified``) ModifiedBS-FCFS.

    Parameters
    ----------
    servers : int
        k.
    arrival_rate : float
        λ > 0.
    classes : sequence of RigidClass
        The job classes.
    modified : bool
        ModifiedBS-FCFS (True) or BS-FCFS (False).

    Returns
    -------
    tuple of (tuple of int, int)
        ``(s_1, ..., s_N)`` and ``|H|``.


    Raises
    ------
    UnstableSystemError
        ModifiedBS with an empty helper set: the jobs its reserved sets block (eq. 16 of them per
        arrival) are never served.

    Examples
    --------
    >>> split_servers(10, 2.0, [RigidClass(1, 0.5, 1.0), RigidClass(2, 0.5, 1.0)], modified=False)
    ((2, 2), 4)
    """
    classes = check_classes(classes)
    partition = balanced_partition(servers, classes)
    if modified and partition.helpers == 0:
        sent = arrival_rate * helper_probability_bound(servers, arrival_rate, classes)
        raise UnstableSystemError("rate of jobs sent to the helpers (eq. 16)", sent, 0.0,
                                  "ModifiedBS with an empty helper set (all k ϱ_i/(n_i ϱ) integers) never serves them")
    return partition.servers_per_class, partition.helpers


# Names before issue 32's vocabulary: they warn, and go in version 0.3.
__getattr__ = old_names(globals(), {"Stability": "StabilityMargin"})
