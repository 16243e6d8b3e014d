"""The interval type of every certified quantity of the package.

:func:`~analytic.ctmc.stationary_bounds`, :func:`~analytic.moldable.greedy_bounds` and
:func:`~analytic.splitting.fcfs_bounds` return each quantity they certify as an :class:`Interval`
``[low, high]`` that provably contains its exact value. It is a tuple ``(low, high)``, so code that
indexes or unpacks it works unchanged.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Interval"]


class Interval(NamedTuple):
    """A certified interval ``[low, high]`` that contains an exact value.

    A :class:`tuple` ``(low, high)``: it indexes, unpacks and compares as one.

    Attributes
    ----------
    low, high : float
    width : float
        ``high - low`` (absolute).
    midpoint : float
        ``(low + high) / 2``.

    Examples
    --------
    >>> interval = Interval(0.25, 0.75)
    >>> 0.5 in interval, interval.width, interval.midpoint
    (True, 0.5, 0.5)
    >>> low, high = interval
    >>> interval, interval == (0.25, 0.75)
    ([0.25, 0.75], True)
    """

    low: float
    high: float

    @property
    def width(self) -> float:
        """``high - low``."""
        return self.high - self.low

    @property
    def midpoint(self) -> float:
        """``(low + high) / 2``."""
        return self.low / 2 + self.high / 2

    def __contains__(self, value: object) -> bool:
        """Whether ``low <= value <= high`` (not membership of the tuple's entries)."""
        return self.low <= value <= self.high

    def __repr__(self) -> str:
        return f"[{self.low:.12g}, {self.high:.12g}]"
