"""The many-server scalings (7) and (8) and the limits of Theorems 1 and 2 (Anselmi & Doncel)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from analytic._deprecation import old_names
from analytic.erlang import halfin_whitt_blocking
from analytic.errors import InvalidParameterError, UnstableSystemError
from analytic.splitting.classes import RigidClass, check_classes, check_servers, class_probabilities, decimal_fraction, total_rate
from analytic.validation import integer, positive

__all__ = ["ScaledSystem", "critical_helper_limit", "critical_system", "subcritical_system", "zero_wait_response_time"]


@dataclass(frozen=True)
class ScaledSystem:
    """The k-th system of a many-server sequence: k servers, arrival rate λ^(k), scaled classes.

    Attributes
    ----------
    servers : int
    arrival_rate : float
    classes : tuple of RigidClass
        Needs n_i f_k, probabilities and sizes unchanged.
    load : float
        ρ^(k) = λ^(k) ϱ^(k) / k.

    Examples
    --------
    >>> from analytic.splitting import RigidClass, critical_system
    >>> critical_system(400, 1, 2.0, [RigidClass(1, 1.0, 1.0)]).load
    0.9
    """

    servers: int
    arrival_rate: float
    classes: tuple[RigidClass, ...]
    load: float


def scaled_classes(classes: Sequence[RigidClass], scale: int) -> tuple[RigidClass, ...]:
    scale = integer("need_scale", scale, meaning=" (f_k)")
    return tuple(dataclasses.replace(c, need=c.need * scale) for c in classes)


def subcritical_system(servers: int, need_scale: int, arrival_rate: float, classes: Iterable[RigidClass]) -> ScaledSystem:
    """The k-th system of the subcritical scaling (7): λ^(k) = λ k / f_k, n_i^(k) = n_i f_k.

    Parameters
    ----------
    servers : int
        k.
    need_scale : int
        f_k >= 1 (f_k = o(k), eq. (6)).
    arrival_rate : float
        The base rate λ, with ρ = λ ϱ < 1 for the base classes.
    classes : sequence of RigidClass
        The base classes (needs n_i).

    Returns
    -------
    ScaledSystem
        With load ρ^(k) = λ ϱ for every k.

    Raises
    ------
    InvalidParameterError
        Bad inputs (k above 1.8e308 included), a scaled need above k, or λ^(k) beyond the largest float.
    UnstableSystemError
        λ ϱ >= 1.

    References
    ----------
    Anselmi & Doncel, eq. (7), Theorem 1.

    Examples
    --------
    >>> system = subcritical_system(100, 2, 0.5, [RigidClass(1, 1.0, 1.0)])
    >>> system.arrival_rate, system.classes[0].need, system.load
    (25.0, 2, 0.5)
    """
    classes = check_classes(classes)
    rate = positive("arrival_rate", arrival_rate)
    load = rate * float(sum(c.demand for c in classes))
    if load >= 1:
        raise UnstableSystemError("λ ϱ", load, 1.0, "the subcritical scaling (7) needs a base load below 1")
    scaled = scaled_classes(classes, need_scale)
    k = check_servers(servers, scaled)
    return ScaledSystem(servers=k, arrival_rate=total_rate(rate, k, need_scale, "λ k / f_k"), classes=scaled,
                        load=load)


def critical_system(servers: int, need_scale: int, theta: float, classes: Iterable[RigidClass]) -> ScaledSystem:
    """The k-th system of the Halfin–Whitt scaling (8) with (1 - ρ^(k)) √(k/f_k) = θ exactly.

    ρ^(k) = 1 - θ √(f_k/k) and λ^(k) = ρ^(k) k / ϱ^(k), with ϱ^(k) = f_k sum_i α_i d_i n_i.

    Parameters
    ----------
    servers : int
        k.
    need_scale : int
        f_k >= 1 (f_k = o(k)); e.g. :func:`figure1_need_scale`.
    theta : float
        θ > 0 with 0 < 1 - θ √(f_k/k) < 1 in doubles.
    classes : sequence of RigidClass
        The base classes (needs n_i).

    Returns
    -------
    ScaledSystem

    Raises
    ------
    InvalidParameterError
        Bad inputs (k above 1.8e308 included), θ <= 0, a load 1 - θ √(f_k/k) outside (0, 1) in double
        precision, a scaled need above k, or λ^(k) beyond the largest float.

    References
    ----------
    Anselmi & Doncel, eq. (8), Theorem 2.

    Examples
    --------
    >>> system = critical_system(400, 1, 2.0, [RigidClass(1, 1.0, 1.0)])
    >>> system.load, system.arrival_rate
    (0.9, 360.0)
    """
    classes = check_classes(classes)
    theta = positive("theta", theta)
    scaled = scaled_classes(classes, need_scale)
    k = check_servers(servers, scaled)
    gap = theta * math.sqrt(need_scale / k)
    load = 1 - gap
    if not 0 < load < 1:
        raise InvalidParameterError("theta", theta, f"must give a load 1 - θ √(f_k/k) in (0, 1) in double precision "
                                                    f"(θ √(f_k/k) = {gap:.6g} at k = {k:.6g})")
    rate = total_rate(load, k, float(sum(c.demand for c in scaled)), "ρ^(k) k / ϱ^(k)")
    return ScaledSystem(servers=k, arrival_rate=rate, classes=scaled, load=load)


def zero_wait_response_time(classes: Iterable[RigidClass]) -> float:
    """Theorem 1's limit of the mean response time, sum_i α_i d_i (P_H -> 0 under scaling (7)).

    Parameters
    ----------
    classes : sequence of RigidClass
        The job classes.

    Returns
    -------
    float


    Examples
    --------
    >>> zero_wait_response_time([RigidClass(1, 0.5, 1.0), RigidClass(2, 0.5, 3.0)])
    2.0
    """
    return float(sum(decimal_fraction(c.probability) * decimal_fraction(c.mean_size) for c in check_classes(classes)))


def critical_helper_limit(theta: float, classes: Iterable[RigidClass]) -> float:
    """Theorem 2's limit of √(k/f_k) P_H^(k): θ sum_i α_i φ(θ_i) / (θ_i Φ(θ_i)), θ_i = θ √(ϱ_i/(n_i ϱ)).

    An upper bound for BS-π and, by Property 1 and Lemma 1, the exact limit for ModifiedBS.

    Parameters
    ----------
    theta : float
        θ > 0 of eq. (8b).
    classes : sequence of RigidClass
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
    >>> round(critical_helper_limit(1.0, [RigidClass(1, 1.0, 1.0)]), 12)  # φ(1)/Φ(1)
    0.287599970939
    """
    classes = check_classes(classes)
    theta = positive("theta", theta)
    total = sum(c.demand for c in classes)
    thetas = np.array([theta * math.sqrt(float(c.demand / (c.need * total))) for c in classes])
    return float(theta * class_probabilities(classes) @ (np.asarray(halfin_whitt_blocking(thetas)) / thetas))


# Names before issue 32's vocabulary: they warn, and go in version 0.3.
__getattr__ = old_names(globals(), {"theorem1_limit": "zero_wait_response_time", "theorem2_limit": "critical_helper_limit"})
