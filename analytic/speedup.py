"""Speed-up models of parallel jobs: a discrete table s_1..s_d and a continuous concave curve s(k).

A job that holds k servers runs s(k) times as fast as on one server (s(0) = 0). The papers use two
forms of the same object:

* :class:`SpeedupTable`, the table ``s_1, ..., s_d`` of Ghanbarian, Mukhopadhyay, Mazumdar & Guillemin,
  *On Optimal Server Allocation for Moldable Jobs with Concave Speed-Up*, Section 2, which requires
  **P1** (eq. 1) ``0 = s_0 < 1 = s_1 < s_2 < ... < s_d`` and **P2** (eq. 2) concavity, which implies
  ``1 = s_1/1 >= s_2/2 >= ... >= s_d/d``; a job uses at most ``d`` servers.
* :class:`SpeedupCurve`, the curve s(k) on a real number k >= 0 of servers of Berg, Vesilo &
  Harchol-Balter, *heSRPT*, Section 1 ("Our Model": s(k) = k^p, 0 < p < 1), extended to any
  increasing concave s with s(0) = 0, such as Amdahl's law 1/((1 - f) + f/k).

One function, :func:`check_shape`, validates both: finite values, s(0) = 0, monotone (strictly for
P1), concave (slopes between consecutive points non-increasing), so both forms report a defect in
the same words. The conversions go both ways:

* :meth:`SpeedupTable.from_curve` samples a curve at ``1, ..., d`` and normalises it to ``s_1 = 1``;
* :meth:`SpeedupCurve.from_discrete` is the piecewise-linear interpolation through
  ``(0, 0), (1, s_1), ..., (d, s_d)``, flat beyond ``d``. It is the rate a job actually gets with a
  real number k of servers: holding ``i`` servers for a fraction ``i + 1 - k`` of the time and
  ``i + 1`` for the rest gives the chord; more than ``d`` servers do not help.

Functions that take a speed-up accept either form where the meaning is clear, through
:func:`as_curve` (any form: a table is interpolated) and :func:`as_discrete` (a table, or the
interpolation of one; a curve alone does not say how many servers ``d`` a job can use).

One module for both forms (over 700 lines): the table and the curve convert into each other
(:meth:`SpeedupTable.from_curve`, :meth:`SpeedupCurve.from_discrete`, :func:`as_curve`, :func:`as_discrete`), so two
modules would import each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from analytic import _deprecation
from analytic.errors import InvalidParameterError
from analytic.memory import require
from analytic.validation import as_number, integer, positive, real_array, unit_fraction, user_code

__all__ = ["TOLERANCE", "SpeedupCurve", "SpeedupTable", "as_curve", "as_discrete", "check_shape"]

#: Relative slack of every comparison of :func:`check_shape`, so that values computed in floating
#: point (Amdahl's law, powers, a user's callable) are not rejected for round-off.
TOLERANCE = 1e-12

#: Bisection steps for the inverse derivative of a callable (in log k over 700 e-folds: 2^-80 relative).
_BISECTION_STEPS = 80


def check_shape(points: np.ndarray, values: np.ndarray, *, strict: bool, unit: bool = False,
                parameter: str = "speedup", shown: object = None) -> None:
    """Validate a speed-up from its values at points ``0 = k_0 < k_1 < ... < k_m``: the one check of both forms.

    In order: every value finite; ``s(1) = 1`` when ``unit`` (P1 of Ghanbarian et al.); ``s(0) = 0``;
    ``s(k_m) > 0``; increasing, strictly when ``strict`` (P1) and non-decreasing otherwise; concave,
    i.e. the slope on ``[k_j, k_(j+1)]`` at most the slope on ``[k_(j-1), k_j]`` (P2 for the table,
    eq. 2 following from it). Each comparison allows the relative slack :data:`TOLERANCE` of the
    largest value so far.

    Parameters
    ----------
    points : numpy.ndarray
        Increasing server counts, ``points[0] = 0``.
    values : numpy.ndarray
        ``s`` at ``points``.
    strict : bool
        Require strictly increasing values (P1) instead of non-decreasing ones.
    unit : bool
        Require ``s(1) = 1`` (``points[1]`` must then be 1).
    parameter : str
        Name of the parameter in the error message.
    shown : object
        Value shown in the error message (default: ``values[1:]``).

    Raises
    ------
    InvalidParameterError
        Naming the first offending point (server counts as given) and its values.

    Examples
    --------
    >>> check_shape(np.arange(4.0), np.array([0, 1, 1.8, 2.7]), strict=True)
    Traceback (most recent call last):
    ...
    analytic.errors.InvalidParameterError: speedup = [1. , 1.8, 2.7]: must be concave: the slope rises at k = 2, from 0.8 to 0.9
    """
    shown = values[1:] if shown is None else shown

    def fail(condition: str) -> None:
        raise InvalidParameterError(parameter, shown, condition)

    def s(j: int) -> str:
        return f"s({points[j]:g}) = {values[j]:.10g}"

    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        fail(f"must be finite: {s(bad[0])}")
    if unit and abs(values[1] - 1.0) > TOLERANCE:
        fail(f"must satisfy P1, s(1) = 1: {s(1)}")
    slack = TOLERANCE * np.maximum.accumulate(np.abs(values))
    if abs(values[0]) > slack[-1]:
        fail(f"must satisfy s(0) = 0 (a job without servers makes no progress): {s(0)}")
    if values[-1] <= 0:
        fail(f"must be positive: {s(len(values) - 1)} <= 0")
    steps = np.diff(values)
    falling = np.flatnonzero(steps <= slack[1:] if strict else steps < -slack[1:])
    if falling.size:
        j = int(falling[0]) + 1
        fail(f"must be strictly increasing (P1): {s(j)} <= {s(j - 1)}" if strict
             else f"must be non-decreasing: {s(j)} < {s(j - 1)}")
    widths = np.diff(points)
    slopes = steps / widths
    rising = np.flatnonzero(steps[1:] - slopes[:-1] * widths[1:] > slack[2:])
    if rising.size:
        j = int(rising[0]) + 1
        fail(f"must be concave: the slope rises at k = {points[j]:g}, from {slopes[j - 1]:.10g} to {slopes[j]:.10g}")


@dataclass(frozen=True, repr=False)
class SpeedupTable:
    """A speed-up table ``(s_1, ..., s_d)`` satisfying P1 and concavity (Ghanbarian et al., eqs. 1–2).

    Parameters
    ----------
    values : sequence of float
        ``s_1, ..., s_d`` (``s_0 = 0`` is implied): ``s_1 = 1``, strictly increasing, with
        non-increasing increments (:func:`check_shape`, relative slack ``1e-12``).

    Attributes
    ----------
    values : numpy.ndarray
        The speed-ups, ``values[i - 1] = s_i`` (read-only).

    Raises
    ------
    InvalidParameterError
        Not a non-empty 1-D sequence of real numbers, or it breaks P1 or concavity; the message
        names the first offending server count and its values.

    Examples
    --------
    >>> s = SpeedupTable([1, 1.8, 2.5, 3, 3.4])
    >>> s.d, s.efficiency.round(3).tolist()
    (5, [1.0, 0.9, 0.833, 0.75, 0.68])
    >>> SpeedupTable([1, 1.8, 2.7])
    Traceback (most recent call last):
    ...
    analytic.errors.InvalidParameterError: speedup = [1. , 1.8, 2.7]: must be concave: the slope rises at k = 2, from 0.8 to 0.9
    """

    values: np.ndarray

    def __post_init__(self) -> None:
        s = _real_vector(self.values)
        check_shape(np.arange(s.size + 1.0), np.concatenate([[0.0], s]), strict=True, unit=True, shown=s)
        s.setflags(write=False)
        object.__setattr__(self, "values", s)

    # -- constructors -----------------------------------------------------------------------------

    @classmethod
    def linear(cls, d: int) -> SpeedupTable:
        """The linear speed-up ``s_i = i`` up to ``d`` servers.

        Parameters
        ----------
        d : int
            Largest number of servers a job can use (>= 1).

        Returns
        -------
        SpeedupTable

        Examples
        --------
        >>> SpeedupTable.linear(3).values.tolist()
        [1.0, 2.0, 3.0]
        """
        return cls(_servers(d))

    @classmethod
    def amdahl(cls, parallel_fraction: float, d: int) -> SpeedupTable:
        """Amdahl's law ``s_i = 1 / ((1 - f) + f / i)`` for a parallel fraction ``f`` in (0, 1].

        Parameters
        ----------
        parallel_fraction : float
            f in (0, 1].
        d : int
            Largest number of servers a job can use (>= 1).

        Returns
        -------
        SpeedupTable

        Examples
        --------
        >>> SpeedupTable.amdahl(0.5, 3).values.round(4).tolist()
        [1.0, 1.3333, 1.5]
        """
        f = unit_fraction("parallel_fraction", parallel_fraction, closed=True,
                          meaning=" (f = 0 gives no speed-up, violating P1)")
        return _table("parallel_fraction", parallel_fraction, 1.0 / ((1.0 - f) + f / _servers(d)))

    @classmethod
    def power(cls, exponent: float, d: int) -> SpeedupTable:
        """The power law ``s_i = i ** exponent`` for an exponent in (0, 1].

        Parameters
        ----------
        exponent : float
            In (0, 1].
        d : int
            Largest number of servers a job can use (>= 1).

        Returns
        -------
        SpeedupTable

        Examples
        --------
        >>> SpeedupTable.power(0.5, 4).values.tolist()
        [1.0, 1.4142135623730951, 1.7320508075688772, 2.0]
        """
        a = unit_fraction("exponent", exponent, closed=True, meaning=" (increasing and concave)")
        return _table("exponent", exponent, _servers(d) ** a)

    @classmethod
    def from_curve(cls, curve: SpeedupCurve | float | Callable, d: int | None = None) -> SpeedupTable:
        """A continuous curve sampled at ``1, ..., d`` and normalised: ``s_i = s(i) / s(1)``.

        The table of a job that can use at most ``d`` servers and gets ``s(k)`` on ``k`` of them
        (the normalisation makes ``s_1 = 1``, as P1 requires; ratios of times are unchanged).

        Parameters
        ----------
        curve : SpeedupCurve, float or callable
            Anything :func:`as_curve` accepts (a number p means k^p; a callable is validated on
            ``[0, d]``).
        d : int, optional
            Largest number of servers, ``d >= 1``. May be omitted for the interpolation of a
            table (:meth:`SpeedupCurve.from_discrete`), whose ``d`` it then recovers.

        Returns
        -------
        SpeedupTable
            Validated by P1 and concavity (a curve flat somewhere in ``[1, d]`` breaks P1).

        Raises
        ------
        InvalidParameterError
            Bad curve or ``d``, or samples that break P1.

        Examples
        --------
        >>> SpeedupTable.from_curve(SpeedupCurve.amdahl(0.5), 3).values.round(4).tolist()
        [1.0, 1.3333, 1.5]
        >>> SpeedupTable.from_curve(np.log1p, 3).values.round(4).tolist()
        [1.0, 1.585, 2.0]
        """
        if d is None:
            if isinstance(curve, SpeedupCurve) and curve.discrete is not None:
                return curve.discrete
            raise InvalidParameterError("d", d, "must be given: a curve does not say how many servers a job can use")
        servers = _servers(d)
        samples = np.asarray(as_curve(curve, servers[-1])(servers), dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):  # s(1) = 0 or NaN: the check names it
            return cls(samples / samples[0])

    # -- derived quantities -----------------------------------------------------------------------

    @property
    def d(self) -> int:
        """Largest number of servers a job can use, ``d``."""
        return len(self.values)

    @property
    def servers(self) -> np.ndarray:
        """The server counts ``1, ..., d`` aligned with :attr:`values`."""
        return np.arange(1, self.d + 1)

    @property
    def efficiency(self) -> np.ndarray:
        """``s_i / i`` for ``i = 1, ..., d``: non-increasing by P2, starting at 1."""
        return self.values / self.servers

    @property
    def increments(self) -> np.ndarray:
        """``s_i - s_{i-1}`` for ``i = 1, ..., d`` (``s_0 = 0``): non-increasing by concavity."""
        return np.diff(self.values, prepend=0.0)

    @property
    def is_linear(self) -> bool:
        """Whether ``s_i = i`` for every ``i`` (within the relative slack ``1e-12``)."""
        return bool(np.allclose(self.values, self.servers, rtol=TOLERANCE, atol=0))

    def __repr__(self) -> str:
        return f"SpeedupTable({np.round(self.values, 10).tolist()})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SpeedupTable) and np.array_equal(self.values, other.values)

    def __hash__(self) -> int:
        return hash(self.values.tobytes())


def _real_vector(values: object) -> np.ndarray:
    """``values`` as a new non-empty 1-D float array, or :class:`InvalidParameterError`."""
    return real_array("speedup", values, " s_1, ..., s_d", ndim=1, allow_empty=False, allow_nan=True)


def _servers(d: object) -> np.ndarray:
    """``1, ..., d`` as floats, refused before allocating when the table would not fit in memory.

    A table built from them peaks at about 96 bytes per server (measured: 3.8 GB at d = 4e7 for the
    samples, the normalised table and the differences its checks take).
    """
    d = integer("d", d)
    require(96 * d, f"a speed-up table with d = {d:,}", d)
    return np.arange(1, d + 1, dtype=float)


def _table(parameter: str, value: object, values: np.ndarray) -> SpeedupTable:
    """The table computed from ``parameter``, its defect reported against that parameter."""
    try:
        return SpeedupTable(values)
    except InvalidParameterError as error:
        raise InvalidParameterError(parameter, value, f"gives a table that {error.condition}") from None


@dataclass(frozen=True, repr=False)
class SpeedupCurve:
    """A service-rate curve s(k) on k >= 0 servers: increasing, concave, s(0) = 0.

    Build one with :meth:`power`, :meth:`amdahl`, :meth:`from_callable` or :meth:`from_discrete`;
    calling it evaluates s on numpy arrays.

    Attributes
    ----------
    name : str
        Readable description, e.g. ``"k**0.5"``.
    exponent : float or None
        p when s(k) = k^p (the heSRPT paper's family), else None.
    discrete : SpeedupTable or None
        The table this curve interpolates (:meth:`from_discrete`), else None.

    Examples
    --------
    >>> s = SpeedupCurve.amdahl(0.9)
    >>> round(float(s(10.0)), 6), round(float(s.derivative(1.0)), 6)
    (5.263158, 0.9)
    """

    name: str
    function: Callable[[np.ndarray], np.ndarray] = field(compare=False)
    _derivative: Callable[[np.ndarray], np.ndarray] = field(compare=False)
    _inverse_derivative: Callable[[np.ndarray, float], np.ndarray] | None = field(default=None, compare=False)
    exponent: float | None = None
    discrete: SpeedupTable | None = None

    def __repr__(self) -> str:
        return f"SpeedupCurve({self.name})"

    def __call__(self, servers: np.ndarray | float) -> np.ndarray:
        """s(k) for k >= 0, elementwise."""
        return self.function(_server_counts("servers", servers))

    @property
    def d(self) -> int | None:
        """Servers beyond which the curve is flat (the table's ``d``), or None if it keeps rising."""
        return None if self.discrete is None else self.discrete.d

    def derivative(self, servers: np.ndarray | float) -> np.ndarray:
        """s'(k) for k >= 0, elementwise (infinite at k = 0 for k^p; the left slope at a knot of an interpolation).

        Parameters
        ----------
        servers : float or array_like
            k >= 0.

        Returns
        -------
        numpy.ndarray

        Examples
        --------
        >>> float(SpeedupCurve.power(0.5).derivative(4.0))
        0.25
        """
        return self._derivative(_server_counts("servers", servers))

    def inverse_derivative(self, slope: np.ndarray, upper: float) -> np.ndarray:
        """The largest k in [0, upper] with s'(k) >= slope (0 where no k qualifies), elementwise.

        Closed form for :meth:`power`, :meth:`amdahl` and :meth:`from_discrete`; bisection in log k
        to 2^-80 relative for a callable (s' is non-increasing because s is concave).

        Parameters
        ----------
        slope : float or array_like
            The slopes.
        upper : float
            Largest server count considered (> 0).

        Returns
        -------
        numpy.ndarray

        Examples
        --------
        >>> float(SpeedupCurve.power(0.5).inverse_derivative(0.25, upper=100.0))
        4.0
        """
        slope = real_array("slope", slope)
        upper = positive("upper", upper)
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
    def power(cls, p: float) -> SpeedupCurve:
        """s(k) = k^p, 0 < p < 1: the family of the heSRPT paper (Section 1, Figure 1).

        Parameters
        ----------
        p : float
            The exponent, in (0, 1).

        Returns
        -------
        SpeedupCurve


        Raises
        ------
        InvalidParameterError
            If p is not in (0, 1).

        Examples
        --------
        >>> s = SpeedupCurve.power(0.5)
        >>> float(s(100.0)), float(s.derivative(100.0)), float(s.inverse_derivative(0.05, upper=1000.0))
        (10.0, 0.05, 100.0)
        """
        p = unit_fraction("p", p)
        return cls(name=f"k**{p:g}", function=lambda k: k ** p,
                   _derivative=lambda k: p * _power_or_inf(k, p - 1.0),
                   _inverse_derivative=lambda z, upper: _power_or_inf(p / z, 1.0 / (1.0 - p)),
                   exponent=p)

    @classmethod
    def amdahl(cls, parallel_fraction: float) -> SpeedupCurve:
        """Amdahl's law s(k) = 1/((1 - f) + f/k) = k/((1 - f) k + f), 0 < f < 1 (the paper's [17]).

        s(1) = 1, s(0) = 0, s'(0) = 1/f is finite, and s(k) -> 1/(1 - f) as k grows.

        Parameters
        ----------
        parallel_fraction : float
            f in (0, 1).

        Returns
        -------
        SpeedupCurve


        Raises
        ------
        InvalidParameterError
            If f is not in (0, 1).

        Examples
        --------
        >>> round(float(SpeedupCurve.amdahl(0.5)(1e12)), 9)
        2.0
        """
        f = unit_fraction("parallel_fraction", parallel_fraction)
        return cls(name=f"amdahl(f={f:g})", function=lambda k: k / ((1.0 - f) * k + f),
                   _derivative=lambda k: f / ((1.0 - f) * k + f) ** 2,
                   _inverse_derivative=lambda z, upper: (np.sqrt(f / z) - f) / (1.0 - f))

    @classmethod
    def from_discrete(cls, speedup: SpeedupTable | object) -> SpeedupCurve:
        """The piecewise-linear interpolation of a table: s(i) = s_i at ``i = 0, ..., d``, flat beyond d.

        Between ``i`` and ``i + 1`` servers the chord is the rate of a job that time-shares the two
        allocations; a job cannot use more than ``d`` servers (Ghanbarian et al., Section 2), so
        extra servers add nothing. Concave because the table is (P2). s'(k) is the slope of the
        segment ending at or after k (the left slope at a knot), 0 beyond d.

        Parameters
        ----------
        speedup : SpeedupTable or sequence of float
            The table ``s_1, ..., s_d``.

        Raises
        ------
        InvalidParameterError
            If ``speedup`` is not a valid table.

        Examples
        --------
        >>> s = SpeedupCurve.from_discrete(SpeedupTable([1, 1.8, 2.5]))
        >>> s(np.array([0.5, 2.0, 2.5, 7.0])).tolist(), s.d
        ([0.5, 1.8, 2.15, 2.5], 3)
        """
        table = as_discrete(speedup)
        knots = np.arange(table.d + 1.0)
        values = np.concatenate([[0.0], table.values])
        slopes = np.append(table.increments, 0.0)  # slope of segment (i-1, i] at index i - 1; 0 beyond d

        def derivative(k: np.ndarray) -> np.ndarray:
            return slopes[np.clip(np.ceil(k), 1, table.d + 1).astype(np.int64) - 1]

        def inverse_derivative(z: np.ndarray, upper: float) -> np.ndarray:
            steep = np.searchsorted(-table.increments, -z, side="right").astype(float)  # segments with slope >= z
            return np.where(z > 0, steep, np.inf)

        return cls(name=f"interpolation of {table!r}", function=lambda k: np.interp(k, knots, values),
                   _derivative=derivative, _inverse_derivative=inverse_derivative, discrete=table)

    @classmethod
    def from_callable(cls, function: Callable, servers: float, name: str | None = None) -> SpeedupCurve:
        """Validate ``function`` as a speed-up on [0, servers] and wrap it.

        ``function`` is called with numpy arrays of server counts. It is checked by
        :func:`check_shape` on test points (129 geometrically spaced in [servers*1e-9, servers], 65
        evenly spaced in [0, servers]): finite, s(0) = 0, non-decreasing, concave, s(servers) > 0
        (relative slack 1e-12). The derivative is taken by complex step when ``function`` accepts
        complex input (exact to rounding), otherwise by central differences (about 1e-10 relative).

        Parameters
        ----------
        function : callable
            s(k) on numpy arrays of server counts.
        servers : float
            The interval [0, servers] on which it is checked (> 0).
        name : str, optional
            Shown in the repr (default: the function's name).

        Returns
        -------
        SpeedupCurve


        Raises
        ------
        InvalidParameterError
            If a check fails; the message names the test points.

        Examples
        --------
        >>> s = SpeedupCurve.from_callable(np.log1p, servers=100.0)
        >>> round(float(s.derivative(1.0)), 12)
        0.5
        """
        servers = positive("servers", servers)
        if not callable(function):
            raise InvalidParameterError("function", function, "must be callable: s(k) on numpy arrays of server counts")
        name = name or getattr(function, "__name__", "callable")
        vectorized = _vectorized(function)
        # servers × 10^-9..10^0 rather than geomspace, which refuses the 0 that servers * 1e-9 is below 5e-315
        points = np.union1d(servers * np.logspace(-9.0, 0.0, 129), np.linspace(0.0, servers, 65))
        values = real_array("function", vectorized(points), f" (s(k) at k in [0, {servers:g}])", allow_infinite=True,
                            allow_nan=True)
        check_shape(points, values, strict=False, shown=name)
        return cls(name=name, function=vectorized, _derivative=_numerical_derivative(vectorized))


def as_curve(speedup: SpeedupCurve | SpeedupTable | float | Callable | object, servers: float | None = None) -> SpeedupCurve:
    """A :class:`SpeedupCurve` from any form of speed-up.

    A curve is returned as is; a :class:`SpeedupTable` or a sequence ``s_1, ..., s_d`` gives its
    interpolation (:meth:`SpeedupCurve.from_discrete`); a number p means k^p; a callable is
    validated on [0, servers] (:meth:`SpeedupCurve.from_callable`).

    Parameters
    ----------
    speedup : SpeedupCurve, SpeedupTable, sequence of float, float or callable
        The speed-up in any of its forms.
    servers : float, optional
        For a callable: the interval [0, servers] on which it is validated.

    Returns
    -------
    SpeedupCurve


    Raises
    ------
    InvalidParameterError
        If the speed-up fails its checks, or is none of these forms.

    Examples
    --------
    >>> as_curve(0.5).name
    'k**0.5'
    >>> as_curve([1, 1.8, 2.5]).d
    3
    """
    if servers is not None:
        servers = positive("servers", servers)
    if isinstance(speedup, SpeedupCurve):
        return speedup
    if isinstance(speedup, SpeedupTable):
        return SpeedupCurve.from_discrete(speedup)
    if callable(speedup):
        if servers is None:
            raise InvalidParameterError("servers", servers, "must be given to validate a callable speed-up on [0, servers]")
        return SpeedupCurve.from_callable(speedup, servers)
    if as_number(speedup) is not None:
        return SpeedupCurve.power(unit_fraction("speedup", speedup, meaning=" (an exponent p of s(k) = k^p)"))
    if _is_sequence(speedup):
        return SpeedupCurve.from_discrete(speedup)
    raise InvalidParameterError("speedup", speedup, "must be a SpeedupCurve, a SpeedupTable, a sequence s_1, ..., s_d, "
                                                    "an exponent p in (0, 1) or a callable s(k)")


def as_discrete(speedup: SpeedupTable | SpeedupCurve | object) -> SpeedupTable:
    """A :class:`SpeedupTable` from a table, a sequence ``s_1, ..., s_d`` or the interpolation of a table.

    A curve that does not interpolate a table has no ``d``; :meth:`SpeedupTable.from_curve` samples it.

    Parameters
    ----------
    speedup : SpeedupTable, sequence of float or SpeedupCurve
        A table, ``s_1, ..., s_d``, or the interpolation of a table.

    Returns
    -------
    SpeedupTable


    Raises
    ------
    InvalidParameterError
        If the speed-up fails P1 or concavity, or is a curve without ``d``, or none of these forms.

    Examples
    --------
    >>> as_discrete([1, 1.8, 2.5])
    SpeedupTable([1.0, 1.8, 2.5])
    >>> as_discrete(SpeedupCurve.power(0.5))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    analytic.errors.InvalidParameterError: speedup = SpeedupCurve(k**0.5): is a curve without a largest server count d: ...
    """
    if isinstance(speedup, SpeedupTable):
        return speedup
    if isinstance(speedup, SpeedupCurve):
        if speedup.discrete is None:
            raise InvalidParameterError("speedup", speedup, "is a curve without a largest server count d: "
                                                            "sample it with SpeedupTable.from_curve(curve, d)")
        return speedup.discrete
    if _is_sequence(speedup):
        return SpeedupTable(speedup)
    raise InvalidParameterError("speedup", speedup, "must be a SpeedupTable (s_1, ..., s_d satisfying P1 and concavity), "
                                                    "a sequence of numbers or the interpolation of a SpeedupTable")


def _server_counts(name: str, value: object) -> np.ndarray:
    counts = real_array(name, value, " (server counts)", allow_infinite=True)
    if (counts < 0).any():
        raise InvalidParameterError(name, value, "must be >= 0 (server counts)")
    return counts


def _is_sequence(value: object) -> bool:
    return isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.ndim >= 1)


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
            except Exception:  # tried again point by point, where a failure is reported
                values = None
            if values is None or values.shape != np.shape(k):
                with user_code("function", k, "a speed-up maps server counts k >= 0 to s(k), on arrays or one k at a time"):
                    values = np.vectorize(lambda v: function(v), otypes=[complex if np.iscomplexobj(k) else float])(k)
        return values
    return call


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


# Names before issue 32's vocabulary (a table and a curve, named alike): they warn, and go in version 0.3.
__getattr__ = _deprecation.old_names(globals(), {"SpeedUp": "SpeedupTable", "ConcaveSpeedup": "SpeedupCurve"})
