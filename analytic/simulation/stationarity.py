"""Is a run stationary? The growth rate of a level (a queue length, a workload) over the run.

An unstable system simulated for a finite time still returns finite averages, which look
converged. The test here takes the time averages ``L_1, ..., L_k`` of a level over consecutive
batches of the run and estimates its growth rate from the increments, ``rate = Σ ΔL_b / Σ Δt_b =
(L_k - L_1) / (t_k - t_1)``, with the interval of the ratio estimator (Student-t, ``k - 2`` degrees
of freedom) widened for the correlation of the increments (below). The run is **not stationary**
when that interval lies above zero.

Why increments rather than a least-squares line: an unstable queue grows like a random walk with
drift (``λ - μ`` jobs per unit time for an M/M/1 queue); the residuals around a fitted line are a
random walk, and a least-squares interval would be far too narrow. The walk's increments are
independent, but those of its *batch averages* are not: two consecutive ones share a batch. For a
Brownian motion averaged over equal batches, ``Var ΔL = 2/3`` and ``Cov(ΔL_b, ΔL_{b+1}) = 1/6`` (in
units of the variance per batch), a lag-one correlation of 1/4, so the sum of ``m`` increments has
variance ``(3m - 1) / (2m)`` times what independent increments would give; the half-width is
widened by the square root of that factor. (Without it, 99 % intervals held the drift of an
unstable M/M/1 queue in 387 of 400 runs; see ``tests/simulation/test_stationarity.py``.) For a
stationary level the increments are negatively correlated (their sum telescopes), which makes the
interval wider still and the test conservative: a stationary run is flagged less often than
``(1 - level) / 2``.

Examples
--------
>>> import numpy as np
>>> times = np.arange(1.0, 21.0)
>>> growth_rate(times + np.sin(times), times)
Growth(rate=1.004 ± 0.557 per unit time, 99%, not stationary)
>>> growth_rate(np.cos(times), times).stationary
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from analytic.errors import InvalidParameterError
from analytic.simulation.estimates import ratio_estimate
from analytic.validation import confidence, real_array

__all__ = ["Growth", "growth_rate"]


@dataclass(frozen=True, repr=False)
class Growth:
    """The fitted growth rate of a level and the verdict on stationarity.

    Attributes
    ----------
    rate : float
        ``(L_k - L_1) / (t_k - t_1)``: growth of the batch averages per unit time.
    half_width : float
        Half-width of its confidence interval at ``level`` (increments of the batch averages of a
        random walk, lag-one correlation 1/4).
    level : float
        Confidence level in (0, 1).
    stationary : bool
        False when ``rate - half_width > 0``: the level grows significantly over the run.

    Examples
    --------
    >>> growth_rate([1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]).stationary
    False
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
        Confidence level of the rate's interval, in (0, 1); a stationary run is flagged with
        probability below ``(1 - level) / 2``.

    Returns
    -------
    Growth

    Raises
    ------
    InvalidParameterError
        Shapes differ, fewer than three batches, non-finite values, or times not increasing.

    Examples
    --------
    >>> import numpy as np
    >>> levels = 5.0 + np.random.default_rng(1).normal(0.0, 0.1, 20)   # a level that does not grow
    >>> growth_rate(levels, np.arange(1.0, 21.0)).stationary
    True
    """
    y = real_array("levels", levels, ndim=1)
    t = real_array("times", times, ndim=1)
    if y.size < 3:
        raise InvalidParameterError("levels", levels, "must hold at least three batch averages")
    if t.shape != y.shape:
        raise InvalidParameterError("times", times, f"must have the shape of levels, {y.shape}")
    if np.any(np.diff(t) <= 0):
        raise InvalidParameterError("times", t, "must be increasing")
    at = confidence("level", level)
    # Levels and times scaled by powers of two (exact) so that the squares of the increments stay in range.
    level_power, time_power = (int(np.frexp(np.max(np.abs(v)))[1]) for v in (y, t))
    estimate = ratio_estimate(np.diff(np.ldexp(y, -level_power)), np.diff(np.ldexp(t, -time_power)), at, "batch means")
    increments = y.size - 1
    with np.errstate(over="ignore"):  # a rate beyond double precision is refused below
        rate = float(np.ldexp(estimate.value, level_power - time_power))
        half_width = float(np.ldexp(estimate.half_width * np.sqrt((3 * increments - 1) / (2 * increments)),
                                    level_power - time_power))
    if not (math.isfinite(rate) and math.isfinite(half_width)):
        raise InvalidParameterError("levels", levels, f"grow at a rate beyond double precision over times {t[0]:g} .. {t[-1]:g}")
    return Growth(rate, half_width, at, not rate - half_width > 0)
