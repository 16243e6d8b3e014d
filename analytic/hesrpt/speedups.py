"""Concave speed-up curves s(k) on a real number of servers, as used by heSRPT and its competitors.

A job of remaining size x that holds k servers is served at rate s(k) (Berg, Vesilo &
Harchol-Balter, *heSRPT*, Section 1, "Our Model"). The paper takes s(k) = k^p with 0 < p < 1; the
package also evaluates policies and finds optimal allocations for any concave increasing s with
s(0) = 0, such as Amdahl's law s(k) = 1/((1 - f) + f/k) (Hill & Marty, the paper's [17]).

:class:`ConcaveSpeedup` is the validated form. The functions of :mod:`analytic.hesrpt` accept one,
a number p (meaning k^p), or any callable, which :func:`as_speedup` validates on test points.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from analytic.errors import InvalidParameterError
from analytic.validation import positive

__all__ = ["ConcaveSpeedup", "as_speedup"]

#: Relative slack allowed when checking monotonicity and concavity of a callable on test points.
_SHAPE_TOLERANCE = 1e-9

#: Bisection steps for the inverse derivative of a callable (in log k over 700 e-folds: 2^-80 relative).
_BISECTION_STEPS = 80


def _check_open_unit(name: str, value: float) -> float:
    value = float(value)
    if not (np.isfinite(value) and 0.0 < value < 1.0):
        raise InvalidParameterError(name, value, "must lie in the open interval (0, 1)")
    return value


@dataclass(frozen=True, repr=False)
class ConcaveSpeedup:
    """A service-rate curve s(k) on k >= 0 servers: increasing, concave, s(0) = 0.

    Build one with :meth:`power`, :meth:`amdahl` or :meth:`from_callable`; calling it evaluates s
    on numpy arrays.

    Attributes
    ----------
    name : str
        Readable description, e.g. ``"k**0.5"``.
    exponent : float or None
        p when s(k) = k^p (the paper's family), else None.

    Examples
    --------
    >>> s = ConcaveSpeedup.amdahl(0.9)
    >>> round(float(s(10.0)), 6), round(float(s.derivative(1.0)), 6)
    (5.263158, 0.9)
    """

    name: str
    function: Callable[[np.ndarray], np.ndarray] = field(compare=False)
    _derivative: Callable[[np.ndarray], np.ndarray] = field(compare=False)
    _inverse_derivative: Callable[[np.ndarray, float], np.ndarray] | None = field(default=None, compare=False)
    exponent: float | None = None

    def __repr__(self) -> str:
        return f"ConcaveSpeedup({self.name})"

    def __call__(self, servers: np.ndarray | float) -> np.ndarray:
        """s(k), elementwise."""
        return self.function(np.asarray(servers, dtype=float))

    def derivative(self, servers: np.ndarray | float) -> np.ndarray:
        """s'(k), elementwise (infinite at k = 0 for k^p)."""
        return self._derivative(np.asarray(servers, dtype=float))

    def inverse_derivative(self, slope: np.ndarray, upper: float) -> np.ndarray:
        """The largest k in [0, upper] with s'(k) >= slope (0 where no k qualifies), elementwise.

        Closed form for :meth:`power` and :meth:`amdahl`; bisection in log k to 2^-80 relative for
        a callable (s' is non-increasing because s is concave).
        """
        slope = np.asarray(slope, dtype=float)
        if self._inverse_derivative is not None:
            return np.clip(self._inverse_derivative(slope, upper), 0.0, upper)
        return self._bisect_inverse_derivative(slope, upper)

    def _bisect_inverse_derivative(self, slope: np.ndarray, upper: float) -> np.ndarray:
        low = np.full(slope.shape, np.log(upper) - 700.0)
        high = np.full(slope.shape, np.log(upper))
        for _ in range(_BISECTION_STEPS):
            middle = 0.5 * (low + high)
            steep = self.derivative(np.exp(middle)) >= slope
            low = np.where(steep, middle, low)
            high = np.where(steep, high, middle)
        result = np.exp(low)
        result = np.where(self.derivative(upper) >= slope, upper, result)
        return np.where(self.derivative(np.exp(np.log(upper) - 700.0)) < slope, 0.0, result)

    @classmethod
    def power(cls, p: float) -> ConcaveSpeedup:
        """s(k) = k^p, 0 < p < 1: the family of the heSRPT paper (Section 1, Figure 1).

        Raises
        ------
        InvalidParameterError
            If p is not in (0, 1).

        Examples
        --------
        >>> s = ConcaveSpeedup.power(0.5)
        >>> float(s(100.0)), float(s.derivative(100.0)), float(s.inverse_derivative(0.05, upper=1000.0))
        (10.0, 0.05, 100.0)
        """
        p = _check_open_unit("p", p)
        return cls(name=f"k**{p:g}", function=lambda k: k ** p,
                   _derivative=lambda k: p * _power_or_inf(k, p - 1.0),
                   _inverse_derivative=lambda z, upper: _power_or_inf(p / z, 1.0 / (1.0 - p)),
                   exponent=p)

    @classmethod
    def amdahl(cls, parallel_fraction: float) -> ConcaveSpeedup:
        """Amdahl's law s(k) = 1/((1 - f) + f/k) = k/((1 - f) k + f), 0 < f < 1 (the paper's [17]).

        s(1) = 1, s(0) = 0, s'(0) = 1/f is finite, and s(k) -> 1/(1 - f) as k grows.

        Raises
        ------
        InvalidParameterError
            If f is not in (0, 1).

        Examples
        --------
        >>> round(float(ConcaveSpeedup.amdahl(0.5)(1e12)), 9)
        2.0
        """
        f = _check_open_unit("parallel_fraction", parallel_fraction)
        return cls(name=f"amdahl(f={f:g})", function=lambda k: k / ((1.0 - f) * k + f),
                   _derivative=lambda k: f / ((1.0 - f) * k + f) ** 2,
                   _inverse_derivative=lambda z, upper: (np.sqrt(f / z) - f) / (1.0 - f))

    @classmethod
    def from_callable(cls, function: Callable, servers: float, name: str | None = None) -> ConcaveSpeedup:
        """Validate ``function`` as a speed-up on [0, servers] and wrap it.

        ``function`` is called with numpy arrays of server counts. It is checked on test points
        (129 geometrically spaced in [servers*1e-9, servers], 65 evenly spaced in [0, servers]):
        s(0) = 0, finite, non-decreasing, concave, s(servers) > 0 (relative slack 1e-9). The
        derivative is taken by complex step when ``function`` accepts complex input (exact to
        rounding), otherwise by central differences (about 1e-10 relative).

        Raises
        ------
        InvalidParameterError
            If a check fails; the message names the test points.

        Examples
        --------
        >>> s = ConcaveSpeedup.from_callable(np.log1p, servers=100.0)
        >>> round(float(s.derivative(1.0)), 12)
        0.5
        """
        vectorized = _vectorized(function)
        _validate_shape(vectorized, float(servers))
        return cls(name=name or getattr(function, "__name__", "callable"), function=vectorized,
                   _derivative=_numerical_derivative(vectorized))


def _power_or_inf(base: np.ndarray, exponent: float) -> np.ndarray:
    """base**exponent with 0**negative = inf and without warnings."""
    with np.errstate(divide="ignore", over="ignore"):
        return np.power(base, exponent)


def _vectorized(function: Callable) -> Callable[[np.ndarray], np.ndarray]:
    """``function`` as a map from arrays to float arrays of the same shape."""
    def call(k: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            try:
                values = np.asarray(function(k))
            except (TypeError, ValueError, ZeroDivisionError):
                values = None
            if values is None or values.shape != np.shape(k):
                values = np.vectorize(lambda v: function(v), otypes=[complex if np.iscomplexobj(k) else float])(k)
        return values
    return call


def _validate_shape(function: Callable[[np.ndarray], np.ndarray], servers: float) -> None:
    positive("servers", servers)
    points = np.union1d(np.geomspace(servers * 1e-9, servers, 129), np.linspace(0.0, servers, 65))
    values = np.asarray(function(points), dtype=float)
    if not np.all(np.isfinite(values)):
        bad = points[~np.isfinite(values)][0]
        raise InvalidParameterError("speedup", values[~np.isfinite(values)][0], f"must be finite: s({bad:g}) is not")
    scale = abs(values[-1])
    if abs(values[0]) > _SHAPE_TOLERANCE * scale:
        raise InvalidParameterError("speedup", values[0], "must satisfy s(0) = 0 (a job without servers makes no progress)")
    if values[-1] <= 0:
        raise InvalidParameterError("speedup", values[-1], f"must be positive: s({servers:g}) <= 0")
    steps = np.diff(values)
    if np.any(steps < -_SHAPE_TOLERANCE * scale):
        i = int(np.argmax(steps < -_SHAPE_TOLERANCE * scale))
        raise InvalidParameterError("speedup", values[i:i + 2],
                                    f"must be non-decreasing on the tested points: s({points[i + 1]:g}) < s({points[i]:g})")
    slopes = steps / np.diff(points)
    rises = np.diff(slopes) * np.diff(points)[1:] > _SHAPE_TOLERANCE * scale
    if np.any(rises):
        i = int(np.argmax(rises))
        raise InvalidParameterError(
            "speedup", slopes[i:i + 2],
            f"must be concave on the tested points: slope on [{points[i + 1]:g}, {points[i + 2]:g}] = {slopes[i + 1]:.6g} "
            f"> slope on [{points[i]:g}, {points[i + 1]:g}] = {slopes[i]:.6g}")


def _numerical_derivative(function: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """s' by complex step if ``function`` propagates an imaginary part, else central differences."""
    probe = np.array([0.5, 2.0])
    try:
        with np.errstate(all="ignore"):
            response = np.asarray(function(probe + 1e-20j))
        complex_step = np.iscomplexobj(response) and np.all(np.abs(response.imag) > 0)
    except (TypeError, ValueError, ZeroDivisionError):
        complex_step = False

    if complex_step:
        def derivative(k: np.ndarray) -> np.ndarray:
            h = np.maximum(np.abs(k), 1e-300) * 1e-20
            with np.errstate(all="ignore"):
                return np.asarray(function(k + 1j * h)).imag / h
        return derivative

    def central(k: np.ndarray) -> np.ndarray:
        h = np.maximum(np.abs(k), 1e-300) * 1e-5
        return (np.asarray(function(k + h), dtype=float) - np.asarray(function(np.maximum(k - h, 0.0)), dtype=float)) / (
            k + h - np.maximum(k - h, 0.0))
    return central


def as_speedup(speedup: ConcaveSpeedup | float | Callable, servers: float) -> ConcaveSpeedup:
    """A :class:`ConcaveSpeedup` from a curve, an exponent p (meaning k^p) or a callable.

    Raises
    ------
    InvalidParameterError
        If p is not in (0, 1) or the callable fails the checks of :meth:`ConcaveSpeedup.from_callable`.

    Examples
    --------
    >>> as_speedup(0.5, servers=10).name
    'k**0.5'
    """
    if isinstance(speedup, ConcaveSpeedup):
        return speedup
    if callable(speedup):
        return ConcaveSpeedup.from_callable(speedup, servers)
    if isinstance(speedup, (int, float, np.floating, np.integer)) and not isinstance(speedup, bool):
        return ConcaveSpeedup.power(speedup)
    raise InvalidParameterError("speedup", speedup, "must be a ConcaveSpeedup, an exponent p in (0, 1) or a callable s(k)")
