"""Job classes of the multiserver-job model (Anselmi & Doncel, Section 3.1) and their validation.

A class i is a server need n_i, a probability α_i and a service time D_i of mean d_i, whose law
(used by the simulator, and by the exact chains when it is phase-type) is exponential unless given. Inputs given
as floats are read as the decimal numbers they print as (0.95 is 19/20), so that the partition of
:mod:`.partition` is computed in exact rational arithmetic; pass ``fractions.Fraction`` for other
exact values (the Figure 1 model uses 1/60).

The checks shared by the modules of :mod:`analytic.splitting` live here too: a server count k is an
integer no larger than the largest float, 1.8e308 (arrival rates and loads proportional to k are
floats), and an arrival rate given for an exact chain must keep the rates out of every state
within the range the solver of :mod:`analytic.ctmc` represents.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from numbers import Integral, Real

import numpy as np

from analytic._deprecation import old_names
from analytic.errors import InvalidParameterError, UnstableSystemError
from analytic.simulation import SizeLaw, exponential, fitted, size_law
from analytic.validation import instances, integer, positive, real, unit_fraction

__all__ = ["RigidClass"]


#: Tolerance on sum_i α_i = 1.
_PROBABILITY_SUM_TOLERANCE = 1e-9

#: Largest server count: the largest float (rates and loads proportional to k are floats).
_MAX_SERVERS = int(sys.float_info.max)

#: Smallest ratio of a rate to the total rate out of its state that the exact solver represents:
#: :mod:`analytic.ctmc` scales the rates out of a state by the power of two just above their total,
#: and a rate at least 2**-1021 times that total stays a normal double (>= 2**-1022), losing no bits.
SMALLEST_RELATIVE_RATE = 2.0**-1021


def decimal_fraction(value: Real) -> Fraction:
    """A float as the decimal it prints as (0.1 -> 1/10); ints and Fractions unchanged."""
    if isinstance(value, (Fraction, Integral)):
        return Fraction(value)
    return Fraction(repr(float(value)))


@dataclass(frozen=True)
class RigidClass:
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
        time only through its mean (the loss systems of Property 1 are insensitive); the
        simulator draws sizes from :attr:`law`, and the exact chains of :mod:`.chains` carry its
        phases.
    size : SizeLaw or str, optional
        The law of D_i for the simulator and, when phase-type, the exact chains (an
        :class:`analytic.simulation.SizeLaw` or one of its names, e.g. ``"pareto"``), rescaled to
        mean ``mean_size``. Default: the two-moment fit
        :func:`analytic.simulation.fitted` when ``size_std`` is given, else exponential. Not
        compared by ``==``.

    Raises
    ------
    InvalidParameterError
        need not a positive integer, probability outside (0, 1], mean_size or size_std not
        positive and finite, an unknown size law, or a law whose standard deviation differs from
        ``size_std`` when both are given.

    Examples
    --------
    >>> RigidClass(need=4, probability=0.25, mean_size=2.0).demand
    Fraction(2, 1)
    >>> RigidClass(need=4, probability=0.25, mean_size=2.0, size_std=3.0).law  # two-phase hyperexponential
    ErlangMixture(weights=[0.8101, 0.1899], phases=[1, 1], rates=[0.8101, 0.1899], mean=2, scv=2.25)
    """

    need: int
    probability: Real
    mean_size: Real
    size_std: float | None = None
    size: SizeLaw | str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        integer("need", self.need, meaning=" (servers held by a job)")
        unit_fraction("probability", self.probability, closed=True)
        positive("mean_size", self.mean_size)
        if self.size_std is not None and (real("size_std", self.size_std, allow_infinite=True) < 0
                                          or math.isinf(self.size_std)):
            raise InvalidParameterError("size_std", self.size_std, "must be non-negative and finite")
        if self.size is not None:
            law = size_law(self.size, float(self.mean_size))
            if self.size_std is not None and not math.isclose(math.sqrt(law.variance), self.size_std, rel_tol=1e-9):
                raise InvalidParameterError("size", law, f"must have standard deviation size_std = {self.size_std:g} "
                                                         f"(it has {math.sqrt(law.variance):.6g}); give one of the two")

    @property
    def law(self) -> SizeLaw:
        """The law of D_i with mean d_i: ``size`` if given, else fitted to ``size_std``, else exponential."""
        mean = float(self.mean_size)
        if self.size is not None:
            return size_law(self.size, mean)
        return exponential(mean) if self.size_std is None else fitted(mean, self.size_std)

    @property
    def exponential(self) -> bool:
        """Whether D_i is exponential (an Erlang mixture of one exponential phase; the exact chains of
        :mod:`.chains` take any phase-type law, and give this one the exponential chain)."""
        law = self.law
        return getattr(law, "phases", None) is not None and law.phases.tolist() == [1] and math.isclose(law.scv, 1.0)

    @property
    def demand(self) -> Fraction:
        """ϱ_i = α_i d_i n_i, the relative demand of the class (exact)."""
        return decimal_fraction(self.probability) * decimal_fraction(self.mean_size) * self.need


def check_classes(classes: Iterable[RigidClass]) -> tuple[RigidClass, ...]:
    """The classes as a tuple of :class:`RigidClass`, refused unless their probabilities α_i sum to 1."""
    result = instances("classes", classes, RigidClass)
    total = sum(float(c.probability) for c in result)
    if abs(total - 1) > _PROBABILITY_SUM_TOLERANCE:
        raise InvalidParameterError("classes", [float(c.probability) for c in result],
                                    f"probabilities must sum to 1 (they sum to {total:.12g})")
    return result


def check_server_count(servers: int, minimum: int = 1) -> int:
    """k as an ``int``: an integer in [``minimum``, 1.8e308] (the module docstring)."""
    k = integer("servers", servers, minimum=minimum)
    if k > _MAX_SERVERS:
        raise InvalidParameterError("servers", servers, f"must be at most {sys.float_info.max:.4g} (the largest float): "
                                                        "arrival rates and loads proportional to k are floats")
    return k


def check_servers(servers: int, classes: Sequence[RigidClass]) -> int:
    """k as an ``int`` (:func:`check_server_count`), refused below the largest need n_i."""
    k = check_server_count(servers)
    largest = max(c.need for c in classes)
    if largest > k:
        raise InvalidParameterError("servers", servers, f"must be >= every server need (largest need is {largest})")
    return k


def total_rate(rate: float, servers: int, divisor: float, formula: str) -> float:
    """``rate`` k / ``divisor``, a total arrival rate proportional to k (``formula`` names it); refused beyond the floats."""
    total = rate * (servers / divisor)
    if total == math.inf:
        raise InvalidParameterError("servers", servers, f"gives the arrival rate {formula} = {rate:.6g} k / {divisor:.6g} "
                                                        "beyond the largest float")
    return total


def check_rate_span(arrival_rate: float, classes: Sequence[RigidClass], service: Sequence[float | None]) -> None:
    """Refuse an exact chain whose rates out of one state span more than its solver represents.

    Every arrival rate λ α_i must be a normal double at least 2**-1021 times λ + ``service[i]``,
    with ``service[i]`` a bound on the total service rate of the states a class-i job arrives in
    (:data:`SMALLEST_RELATIVE_RATE`; None if it arrives in none). As the rates out of the empty
    state are the λ α_i alone, α_i < 2**-1021 fails whatever λ: then the class is refused.
    """
    for i, (job_class, busy) in enumerate(zip(classes, service, strict=True)):
        if busy is None:
            continue
        alpha = float(job_class.probability)
        if alpha < SMALLEST_RELATIVE_RATE:
            raise InvalidParameterError(f"classes[{i}]", job_class, "must have a probability of at least 2**-1021 for an "
                                        "exact chain: its arrival rate λ α_i falls below the normal doubles against the "
                                        "total rate out of the empty state, λ")
        rate, least = arrival_rate * alpha, SMALLEST_RELATIVE_RATE * (arrival_rate + busy)
        if rate < max(least, sys.float_info.min):
            raise InvalidParameterError("arrival_rate", arrival_rate, f"is too small for an exact chain: the arrival rate "
                                        f"λ α_i = {rate:.6g} of classes[{i}] must be a normal double (>= 2**-1022) and at "
                                        f"least 2**-1021 times {arrival_rate + busy:.6g}, a bound on the total rate out of a "
                                        "state it leaves, for the exact solver to represent it (the rates out of one state "
                                        "would span more than the double range)")


def class_probabilities(classes: Sequence[RigidClass]) -> np.ndarray:
    """The α_i as an array of floats."""
    return np.array([float(c.probability) for c in classes])


def check_load(servers: int, arrival_rate: float, classes: Sequence[RigidClass]) -> float:
    """The arrival rate as a float, if the load λ ϱ / k of eq. (1) is below one (no policy is stable otherwise)."""
    rate = positive("arrival_rate", arrival_rate)
    load = rate * float(sum(c.demand for c in classes)) / servers
    if load >= 1:
        raise UnstableSystemError("load λ ϱ / k", load, 1.0, "eq. (1): no policy is stable at this arrival rate")
    return rate


# Names before issue 32's vocabulary: they warn, and go in version 0.3.
__getattr__ = old_names(globals(), {"JobClass": "RigidClass"})
