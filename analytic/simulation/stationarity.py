"""Is a run stationary? The growth rate of a level (a queue length, a workload) over the run.

An unstable system simulated for a finite time still returns finite averages, which look
converged. The test here fits a line to the batch averages of a level against time (least
squares) and calls the run **not stationary** when the slope is positive at the given level (its
confidence interval, Student-t with ``batches - 2`` degrees of freedom, lies above zero). The slope
is the growth rate: ``λ - μ`` jobs per unit time for an unstable M/M/1 queue. Batches must be long
compared with the level's correlation time for the false-alarm rate of a stationary run to stay
near ``(1 - level) / 2``.

Examples
--------
>>> import numpy as np
>>> times = np.arange(1.0, 21.0)
>>> growth_rate(0.5 * times + np.sin(times), times)
Growth(rate=0.4882 ± 0.08384 per unit time, 99%, not stationary)
>>> growth_rate(np.cos(times), times).stationary
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from analytic.errors import InvalidParameterError
from analytic.simulation.estimates import t_quantile
from analytic.validation import confidence

__all__ = ["Growth", "growth_rate"]


@dataclass(frozen=True, repr=False)
class Growth:
    """The fitted growth rate of a level and the verdict on stationarity.

    Attributes
    ----------
    rate : float
        Least-squares slope of the batch averages against time (level units per time unit).
    half_width : float
        Half-width of its confidence interval at ``level``.
    level : float
        Confidence level in (0, 1).
    stationary : bool
        False when ``rate - half_width > 0``: the level grows significantly over the run.
    """

    rate: float
    half_width: float
    level: float
    stationary: bool

    def __repr__(self) -> str:
        verdict = "stationary" if self.stationary else "not stationary"
        return f"Growth(rate={self.rate:.4g} ± {self.half_width:.4g} per unit time, {self.level:.0%}, {verdict})"


def growth_rate(levels: object, times: object, level: float = 0.99) -> Growth:
    """Growth rate of a level from its batch averages, and whether the run looks stationary.

    Parameters
    ----------
    levels : array_like, shape (k,)
        Time-average of the level over each of ``k >= 3`` consecutive batches of the run.
    times : array_like, shape (k,)
        Midpoint (or end) time of each batch, increasing.
    level : float
        Confidence level of the slope's interval, in (0, 1); a stationary run is flagged with
        probability about ``(1 - level) / 2``.

    Returns
    -------
    Growth

    Raises
    ------
    InvalidParameterError
        Shapes differ, fewer than three batches, non-finite values, or times not increasing.
    """
    y = np.asarray(levels, dtype=float)
    t = np.asarray(times, dtype=float)
    if y.ndim != 1 or y.size < 3:
        raise InvalidParameterError("levels", levels, "must hold at least three batch averages")
    if t.shape != y.shape:
        raise InvalidParameterError("times", times, f"must have the shape of levels, {y.shape}")
    if not (np.all(np.isfinite(y)) and np.all(np.isfinite(t))):
        raise InvalidParameterError("levels", y, "and times must be finite")
    if np.any(np.diff(t) <= 0):
        raise InvalidParameterError("times", t, "must be increasing")
    at = confidence("level", level)
    centred = t - t.mean()
    slope = float(centred @ (y - y.mean()) / (centred @ centred))
    residuals = y - y.mean() - slope * centred
    error = math.sqrt(float(residuals @ residuals) / (y.size - 2) / float(centred @ centred))
    half = t_quantile(at, y.size - 1) * error
    return Growth(slope, half, at, not slope - half > 0)
