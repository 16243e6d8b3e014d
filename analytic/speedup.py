"""Validated speed-up functions of moldable jobs.

A speed-up function gives, for each number of servers ``i = 1, ..., d``, the factor ``s_i`` by
which a job's execution time shrinks on ``i`` servers (``s_0 = 0`` is implied). Ghanbarian,
Mukhopadhyay, Mazumdar & Guillemin, *On Optimal Server Allocation for Moldable Jobs with Concave
Speed-Up*, Section 2, require

* **P1** (eq. 1): ``0 = s_0 < 1 = s_1 < s_2 < ... < s_d`` (strictly increasing), and
* **P2** (eq. 2): concavity, which implies ``1 = s_1/1 >= s_2/2 >= ... >= s_d/d``.

:class:`SpeedUp` checks P1 and concavity (non-increasing increments ``s_i - s_{i-1}``, with
``s_0 = 0``); P2 then follows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from analytic.errors import InvalidParameterError
from analytic.validation import integer

__all__ = ["SpeedUp"]

#: Relative slack allowed in the comparisons of P1 and concavity, so that values computed in
#: floating point (Amdahl's law, powers) are not rejected for round-off.
TOLERANCE = 1e-12


@dataclass(frozen=True, repr=False)
class SpeedUp:
    """A speed-up function ``(s_1, ..., s_d)`` satisfying P1 and concavity (Ghanbarian et al., eqs. 1–2).

    Parameters
    ----------
    values : sequence of float
        ``s_1, ..., s_d`` (``s_0 = 0`` is implied): ``s_1 = 1``, strictly increasing, with
        non-increasing increments. Comparisons allow a relative slack of ``1e-12``.

    Attributes
    ----------
    values : numpy.ndarray
        The speed-ups, ``values[i - 1] = s_i`` (read-only).

    Raises
    ------
    InvalidParameterError
        Empty, non-finite, ``s_1 != 1``, not strictly increasing, or not concave; the message names
        the first offending index and its values.

    Examples
    --------
    >>> s = SpeedUp([1, 1.8, 2.5, 3, 3.4])
    >>> s.d, s.efficiency.round(3).tolist()
    (5, [1.0, 0.9, 0.833, 0.75, 0.68])
    >>> SpeedUp([1, 1.8, 2.7])
    Traceback (most recent call last):
    ...
    analytic.errors.InvalidParameterError: speedup = [1. , 1.8, 2.7]: must be concave: s[3]-s[2]=0.9 > s[2]-s[1]=0.8
    """

    values: np.ndarray

    def __post_init__(self) -> None:
        s = np.array(self.values, dtype=float).ravel()
        _validate(s)
        s.setflags(write=False)
        object.__setattr__(self, "values", s)

    # -- constructors -----------------------------------------------------------------------------

    @classmethod
    def linear(cls, d: int) -> SpeedUp:
        """The linear speed-up ``s_i = i`` up to ``d`` servers.

        >>> SpeedUp.linear(3).values.tolist()
        [1.0, 2.0, 3.0]
        """
        return cls(np.arange(1, integer("d", d) + 1, dtype=float))

    @classmethod
    def amdahl(cls, parallel_fraction: float, d: int) -> SpeedUp:
        """Amdahl's law ``s_i = 1 / ((1 - f) + f / i)`` for a parallel fraction ``f`` in (0, 1].

        >>> SpeedUp.amdahl(0.5, 3).values.round(4).tolist()
        [1.0, 1.3333, 1.5]
        """
        f = float(parallel_fraction)
        if not 0 < f <= 1:
            raise InvalidParameterError("parallel_fraction", parallel_fraction,
                                        "must lie in (0, 1] (f = 0 gives no speed-up, violating P1)")
        i = np.arange(1, integer("d", d) + 1, dtype=float)
        return cls(1.0 / ((1.0 - f) + f / i))

    @classmethod
    def power(cls, exponent: float, d: int) -> SpeedUp:
        """The power law ``s_i = i ** exponent`` for an exponent in (0, 1].

        >>> SpeedUp.power(0.5, 4).values.tolist()
        [1.0, 1.4142135623730951, 1.7320508075688772, 2.0]
        """
        a = float(exponent)
        if not 0 < a <= 1:
            raise InvalidParameterError("exponent", exponent, "must lie in (0, 1] (increasing and concave)")
        return cls(np.arange(1, integer("d", d) + 1, dtype=float) ** a)

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
        return f"SpeedUp({np.round(self.values, 10).tolist()})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SpeedUp) and np.array_equal(self.values, other.values)

    def __hash__(self) -> int:
        return hash(self.values.tobytes())


def _validate(s: np.ndarray) -> None:
    """Check P1 and concavity, naming the first offending index (1-based, as in the paper)."""
    if s.size == 0:
        raise InvalidParameterError("speedup", s, "must hold at least s_1")
    if not np.all(np.isfinite(s)):
        i = int(np.flatnonzero(~np.isfinite(s))[0]) + 1
        raise InvalidParameterError("speedup", s, f"must be finite: s[{i}]={s[i - 1]}")
    if abs(s[0] - 1.0) > TOLERANCE:
        raise InvalidParameterError("speedup", s, f"must satisfy P1, s[1] = 1: s[1]={s[0]:.10g}")
    increments = np.diff(s, prepend=0.0)
    flat = np.flatnonzero(increments <= TOLERANCE * np.abs(s))
    if flat.size:
        i = int(flat[0]) + 1
        raise InvalidParameterError("speedup", s, f"must be strictly increasing (P1): s[{i}]={s[i - 1]:.10g} <= "
                                                  f"s[{i - 1}]={s[i - 2]:.10g}")
    rising = np.flatnonzero(increments[1:] > increments[:-1] + TOLERANCE * np.abs(s[1:]))
    if rising.size:
        i = int(rising[0]) + 2
        raise InvalidParameterError(
            "speedup", s,
            f"must be concave: s[{i}]-s[{i - 1}]={increments[i - 1]:.10g} > s[{i - 1}]-s[{i - 2}]={increments[i - 2]:.10g}")
