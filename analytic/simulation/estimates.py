"""Point estimates with Student-t confidence intervals: independent replications and batch means.

A simulation estimates a mean, or a ratio of means (blocked arrivals per arrival, total response
time per departed job, time-integrated occupancy per unit time), from ``k`` samples that are
independent (replications) or nearly so (batch means of a long run). :func:`mean_estimate` treats
samples as i.i.d.; :func:`ratio_estimate` is the classical ratio estimator ``R = Σ x_b / Σ y_b``
with the delta-method standard error ``sqrt(Σ (x_b - R y_b)² / (k (k - 1))) / ȳ``;
:func:`batch_means` cuts one long series of observations into ``batches`` contiguous batches. The
half-width is ``t_{k-1, (1+level)/2}`` standard errors (Law, *Simulation Modeling and Analysis*,
Sections 9.4–9.5).

Examples
--------
>>> mean_estimate([1.0, 2.0, 3.0, 4.0])
Estimate(2.5 ± 2.054, 95%, 4 independent replications)
>>> ratio_estimate([3, 5, 4], [100, 100, 100], method="batch means").value
0.04
"""

from __future__ import annotations

import math
import operator
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
from scipy import special

from analytic.errors import AnalyticDeprecationWarning, InvalidParameterError
from analytic.validation import confidence, integer, real_array

__all__ = ["METHODS", "Estimate", "Estimates", "batch_means", "difference", "mean_estimate", "ratio_estimate", "t_quantile"]

#: How an estimate's samples were obtained.
METHODS = ("independent replications", "batch means")


def t_quantile(level: float, samples: int) -> float:
    """The two-sided Student-t quantile ``t_{samples-1, (1+level)/2}``.

    Parameters
    ----------
    level : float
        Confidence level in (0, 1).
    samples : int
        Number of replications or batches (>= 2).

    Returns
    -------
    float

    Examples
    --------
    >>> round(t_quantile(0.95, 11), 6)
    2.228139
    """
    freedom = integer("samples", samples, minimum=2) - 1
    # beyond 1e300 degrees of freedom (a count of 10**400 has no float) the t law is the normal one to double precision
    return float(special.stdtrit(min(freedom, 1e300), 0.5 + 0.5 * confidence("level", level)))


@dataclass(frozen=True, repr=False)
class Estimate:
    """A simulated mean with its confidence interval ``value ± half_width``.

    Attributes
    ----------
    value : float
        The point estimate.
    half_width : float
        Half-width of the confidence interval at ``level`` (Student-t with ``samples - 1`` degrees
        of freedom); ``inf`` when it exceeds the double range (samples of opposite signs near 1e308).
    level : float
        Confidence level in (0, 1).
    method : str
        ``"independent replications"`` or ``"batch means"`` (:data:`METHODS`).
    samples : int
        Number of replications or batches (>= 2).

    Notes
    -----
    A simulation result holds each simulated quantity as an ``Estimate`` (issue 32 of the package:
    ``sim.blocking.value``, ``sim.blocking.half_width``). Where a quantity was a plain float before,
    using the estimate as a number (arithmetic, comparisons, ``float()`` aside, numpy) still works for
    one release and warns: read :attr:`value`.

    Examples
    --------
    >>> e = Estimate(2.0, 0.1, 0.95, "batch means", 20)
    >>> e.interval, round(e.standard_error, 6), 2.05 in e, float(e)
    ((1.9, 2.1), 0.047778, True, 2.0)
    >>> f"{e:.3f}"
    '2.000 ± 0.100'
    """

    value: float
    half_width: float
    level: float
    method: str
    samples: int

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise InvalidParameterError("method", self.method, f"must be one of {METHODS}")
        integer("samples", self.samples, minimum=2, meaning=" (an interval needs two samples)")
        confidence("level", self.level)
        if not math.isfinite(self.value):
            raise InvalidParameterError("value", self.value, "must be finite")
        if not 0 <= self.half_width:
            raise InvalidParameterError("half_width", self.half_width, "must be >= 0 (inf when beyond the double range)")

    @property
    def standard_error(self) -> float:
        """Estimated standard deviation of :attr:`value` (half-width over the t quantile)."""
        return self.half_width / t_quantile(self.level, self.samples)

    @property
    def interval(self) -> tuple[float, float]:
        """``(value - half_width, value + half_width)``."""
        return self.value - self.half_width, self.value + self.half_width

    def __repr__(self) -> str:
        return f"Estimate({self.value:.6g} ± {self.half_width:.4g}, {self.level:.0%}, {self.samples} {self.method})"

    def __contains__(self, value: float) -> bool:
        """Whether ``value`` lies in the confidence interval."""
        low, high = self.interval
        return low <= value <= high

    def __float__(self) -> float:
        return float(self.value)

    def __format__(self, spec: str) -> str:
        """``value ± half_width``, both in the format ``spec`` (``f"{e:.4f}"``)."""
        return f"{self.value:{spec}} ± {self.half_width:{spec}}" if spec else repr(self)


@dataclass(frozen=True, repr=False, eq=False)
class Estimates:
    """Simulated means of several quantities (one per class, per job type, per number of busy servers),
    each with its confidence interval: ``estimates[k]`` is the :class:`Estimate` of entry ``k``.

    Attributes
    ----------
    value : numpy.ndarray
        The point estimates.
    half_width : numpy.ndarray
        Their half-widths at ``level`` (Student-t with ``samples - 1`` degrees of freedom).
    level : float
        Confidence level in (0, 1).
    method : str
        ``"independent replications"`` or ``"batch means"`` (:data:`METHODS`).
    samples : int
        Number of replications or batches (>= 2).

    Examples
    --------
    >>> import numpy as np
    >>> e = Estimates(np.array([1.0, 2.0]), np.array([0.1, 0.2]), 0.95, "batch means", 20)
    >>> e[1], len(e), e.value.tolist()
    (Estimate(2 ± 0.2, 95%, 20 batch means), 2, [1.0, 2.0])
    """

    value: np.ndarray
    half_width: np.ndarray
    level: float
    method: str
    samples: int

    def __post_init__(self) -> None:
        value, half_width = np.asarray(self.value, dtype=float), np.asarray(self.half_width, dtype=float)
        if value.shape != half_width.shape:
            raise InvalidParameterError("half_width", self.half_width, f"must have the shape of value, {value.shape}")
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "half_width", half_width)

    def __getitem__(self, key: object) -> Estimate | Estimates:
        value, half_width = self.value[key], self.half_width[key]
        if np.ndim(value) == 0:
            return Estimate(float(value), float(half_width), self.level, self.method, self.samples)
        return Estimates(value, half_width, self.level, self.method, self.samples)

    def __len__(self) -> int:
        return len(self.value)

    def __iter__(self) -> Iterator[Estimate | Estimates]:
        return (self[k] for k in range(len(self)))

    @property
    def interval(self) -> tuple[np.ndarray, np.ndarray]:
        """``(value - half_width, value + half_width)``, entry by entry."""
        return self.value - self.half_width, self.value + self.half_width

    def __repr__(self) -> str:
        entries = ", ".join(f"{v:.6g} ± {h:.4g}" for v, h in zip(self.value.ravel(), self.half_width.ravel(), strict=True))
        return f"Estimates([{entries}], {self.level:.0%}, {self.samples} {self.method})"


#: The numeric behaviour of a float, on an estimate's value, kept for one release: simulation results held
#: plain floats where they now hold estimates (``sim.blocking < 0.01``, ``np.isclose(sim.blocking, p)``).
_NUMBER_OPERATIONS = {
    "__lt__": operator.lt, "__le__": operator.le, "__gt__": operator.gt, "__ge__": operator.ge,
    "__add__": operator.add, "__sub__": operator.sub, "__mul__": operator.mul, "__truediv__": operator.truediv,
    "__pow__": operator.pow, "__radd__": lambda a, b: b + a, "__rsub__": lambda a, b: b - a,
    "__rmul__": lambda a, b: b * a, "__rtruediv__": lambda a, b: b / a, "__rpow__": lambda a, b: b**a,
    "__neg__": operator.neg, "__abs__": abs, "__round__": round,
    "__array__": lambda value, dtype=None, copy=None: np.asarray(value, dtype=dtype),
}


def _as_number(name: str, operation: Callable) -> Callable:
    def method(self: Estimate | Estimates, *others: object, **options: object) -> object:
        warnings.warn(f"an {type(self).__name__} used as a number ({name}); use its .value: this goes in version 0.3",
                      AnalyticDeprecationWarning, stacklevel=2)
        return operation(self.value, *(other.value if isinstance(other, Estimate | Estimates) else other
                                       for other in others), **options)
    method.__name__ = name
    return method


for _name, _operation in _NUMBER_OPERATIONS.items():
    setattr(Estimate, _name, _as_number(_name, _operation))
    setattr(Estimates, _name, _as_number(_name, _operation))


def _samples(name: str, values: object) -> np.ndarray:
    array = real_array(name, values, ndim=1)
    if array.size < 2:
        raise InvalidParameterError(name, values, "must be a one-dimensional sequence of at least two samples")
    return array


def _binary_exponent(array: np.ndarray) -> int:
    """``e`` with ``max|array| / 2^e`` in [1, 2) (0 for zeros): scaling by ``2^-e`` is exact and keeps sums finite.

    Sums and squares of samples near 1e308 overflowed: ``mean_estimate([1.7e308, 1.7e308])`` was refused
    as "value = inf". The estimators work on the scaled samples and scale back once, at the end.
    """
    top = float(np.max(np.abs(array)))
    return math.frexp(top)[1] - 1 if top > 0 else 0


def _scaled(array: np.ndarray) -> tuple[np.ndarray, int]:
    exponent = _binary_exponent(array)
    return np.ldexp(array, -exponent), exponent


def _method(method: str) -> str:
    if not isinstance(method, str) or method not in METHODS:
        raise InvalidParameterError("method", method, f"must be one of {METHODS}")
    return method


def mean_estimate(values: object, level: float = 0.95, method: str = "independent replications") -> Estimate:
    """The mean of i.i.d. samples with its Student-t interval.

    Parameters
    ----------
    values : array_like, shape (k,)
        ``k >= 2`` finite samples (replication results or batch means).
    level : float
        Confidence level in (0, 1).
    method : str
        How the samples were obtained (:data:`METHODS`).

    Returns
    -------
    Estimate
        ``mean ± t_{k-1} s / sqrt(k)`` with ``s`` the sample standard deviation.

    Raises
    ------
    InvalidParameterError
        Fewer than two samples, a non-finite sample, a level outside (0, 1) or an unknown method.

    Examples
    --------
    >>> [round(x, 6) for x in mean_estimate([0.1, 0.3], level=0.9).interval]
    [-0.431375, 0.831375]
    """
    array, exponent = _scaled(_samples("values", values))
    k = array.size
    half = t_quantile(confidence("level", level), k) * float(np.std(array, ddof=1)) / math.sqrt(k)
    with np.errstate(over="ignore"):
        value, half = np.ldexp([array.mean(), half], exponent)
    return Estimate(float(value), float(half), level, _method(method), k)


def ratio_estimate(numerators: object, denominators: object, level: float = 0.95,
                   method: str = "independent replications") -> Estimate:
    """The ratio ``Σ x_b / Σ y_b`` of two sums over samples, with its delta-method interval.

    Use it when each sample is a ratio with a random denominator (mean response time = total
    response time / number of jobs of a batch); with equal denominators it is :func:`mean_estimate`
    of the ratios.

    Parameters
    ----------
    numerators, denominators : array_like, shape (k,)
        ``x_b`` and ``y_b`` of each of ``k >= 2`` samples; ``Σ y_b > 0``.
    level : float
        Confidence level in (0, 1).
    method : str
        How the samples were obtained (:data:`METHODS`).

    Returns
    -------
    Estimate
        ``R ± t_{k-1} sqrt(Σ (x_b - R y_b)² / (k (k-1))) / ȳ``.

    Raises
    ------
    InvalidParameterError
        Shapes differ, fewer than two samples, non-finite values, ``Σ y_b <= 0``, or a bad level.

    Examples
    --------
    >>> ratio_estimate([2.0, 4.0], [1.0, 2.0]).half_width      # every ratio equals 2: no spread
    0.0
    """
    x = _samples("numerators", numerators)
    y = _samples("denominators", denominators)
    if x.shape != y.shape:
        raise InvalidParameterError("denominators", denominators, f"must have the shape of numerators, {x.shape}")
    if not y.sum() > 0:
        raise InvalidParameterError("denominators", y, "must have a positive sum")
    k = x.size
    (x, x_exponent), (y, y_exponent) = _scaled(x), _scaled(y)
    ratio = float(x.sum() / y.sum())                # of the scaled sums; the scales come back once below
    spread = float(np.sqrt(np.sum((x - ratio * y) ** 2) / (k * (k - 1)))) / float(y.mean())
    with np.errstate(over="ignore"):
        value, half = np.ldexp([ratio, t_quantile(confidence("level", level), k) * spread], x_exponent - y_exponent)
    return Estimate(float(value), float(half), level, _method(method), k)


def batch_means(observations: object, batches: int = 20, level: float = 0.95, warmup: int = 0) -> Estimate:
    """The mean of one long series of observations, by the method of batch means.

    The first ``warmup`` observations are dropped; the rest are cut into ``batches`` contiguous
    batches of (nearly) equal length, and :func:`ratio_estimate` of the batch sums over the batch
    lengths gives the overall mean with its interval. Batches must be long compared with the
    series' correlation time for the interval to hold its level (the usual advice: 10 to 30
    batches; Law, Section 9.5.3).

    Parameters
    ----------
    observations : array_like, shape (N,)
        Per-job response times, blocking indicators (0/1), queue lengths at arrivals, ... in the
        order the simulation produced them.
    batches : int
        Number of batches, ``2 <= batches <= N - warmup``.
    level : float
        Confidence level in (0, 1).
    warmup : int
        Observations to drop at the start (>= 0).

    Returns
    -------
    Estimate
        With ``method = "batch means"`` and ``samples = batches``.

    Raises
    ------
    InvalidParameterError
        Non-finite observations, too few observations for the batches, or bad parameters.

    Examples
    --------
    >>> batch_means([0, 1, 0, 0, 1, 0, 0, 0], batches=4)
    Estimate(0.25 ± 0.4593, 95%, 4 batch means)
    """
    k = integer("batches", batches, minimum=2)
    skip = integer("warmup", warmup, minimum=0)
    array = real_array("observations", observations, ndim=1)
    if array.size - skip < k:
        raise InvalidParameterError("observations", observations,
                                    f"must be a one-dimensional series with at least warmup + batches = {skip + k} values")
    pieces = np.array_split(_scaled(array[skip:])[0], k)
    exponent = _binary_exponent(array[skip:])
    scaled = ratio_estimate([piece.sum() for piece in pieces], [piece.size for piece in pieces], level, "batch means")
    with np.errstate(over="ignore"):
        value, half = np.ldexp([scaled.value, scaled.half_width], exponent)
    return Estimate(float(value), float(half), scaled.level, scaled.method, scaled.samples)


def difference(first: Estimate, second: Estimate) -> Estimate:
    """The difference ``first - second`` of two independent estimates (e.g. two laws, two policies).

    Standard error ``sqrt(se₁² + se₂²)``; the t quantile takes ``min(k₁, k₂) - 1`` degrees of
    freedom, at most Welch–Satterthwaite's, so the interval is conservative. Both estimates must
    have the same level and come from independent streams (different seeds).

    Parameters
    ----------
    first, second : Estimate

    Returns
    -------
    Estimate
        At the common level, with the method of ``first`` and ``min(k₁, k₂)`` samples.

    Raises
    ------
    InvalidParameterError
        Not two estimates, or levels that differ.

    Examples
    --------
    >>> a = Estimate(0.2304, 0.0002, 0.95, "independent replications", 20)
    >>> b = Estimate(0.2338, 0.0003, 0.95, "independent replications", 20)
    >>> difference(a, b)
    Estimate(-0.0034 ± 0.0003606, 95%, 20 independent replications)
    """
    for name, value in (("first", first), ("second", second)):
        if not isinstance(value, Estimate):
            raise InvalidParameterError(name, value, "must be an Estimate")
    if first.level != second.level:
        raise InvalidParameterError("second", second, f"must have the level of first, {first.level}")
    samples = min(first.samples, second.samples)
    error = math.hypot(first.standard_error, second.standard_error)
    return Estimate(first.value - second.value, t_quantile(first.level, samples) * error, first.level, first.method, samples)
