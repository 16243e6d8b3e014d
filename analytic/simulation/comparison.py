"""Comparing a simulated estimate with an exact value: the z-score and a verdict at a level.

The one check behind the package's tests, its notebooks and a user's own simulation: given an
:class:`~analytic.simulation.estimates.Estimate` (or the raw observations of any simulator, from
which batch means are formed) and the exact value of the same quantity, is the difference
consistent with the simulation's own noise? The statistic ``z = (estimate - exact) / standard
error`` follows Student's t with ``samples - 1`` degrees of freedom when the estimate is unbiased;
the verdict at ``level`` is "agrees" when ``|z| <= t_{samples-1, (1+level)/2}``, i.e. when the
exact value lies in the interval at that level.

Over many independent runs, an unbiased simulation agrees in a fraction ``level`` of them: a
single disagreement is expected now and then, a coverage far from ``level`` over many seeds is
not (:func:`coverage_band`).

Examples
--------
>>> from analytic.simulation import compare, mean_estimate
>>> compare(mean_estimate([0.98, 1.03, 1.01, 0.99, 1.02]), 1.0)
Comparison(estimate=Estimate(1.006 ± 0.02575, 95%, 5 independent replications), exact=1, z=0.647, verdict='agrees')
>>> compare([0, 0, 1, 0, 0, 0, 1, 0] * 50, 0.25, batches=10).verdict       # raw 0/1 observations
'agrees'
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from scipy import special

from analytic.errors import InvalidParameterError
from analytic.simulation.estimates import Estimate, batch_means, t_quantile
from analytic.validation import confidence, integer, real

__all__ = ["Comparison", "compare", "coverage_band"]


@dataclass(frozen=True, repr=False)
class Comparison:
    """A simulated estimate set beside the exact value.

    Attributes
    ----------
    estimate : Estimate
    exact : float
    z : float
        ``(estimate.value - exact) / estimate.standard_error``; ``±inf`` when the estimate has no
        spread and differs from the exact value, 0 when it has none and equals it.
    level : float
        Level of the verdict.
    p_value : float
        Two-sided ``P(|T| >= |z|)``, ``T`` Student-t with ``estimate.samples - 1`` degrees of freedom.
    agrees : bool
        ``|z| <= t_{samples-1, (1+level)/2}``: the exact value lies in the interval at ``level``.

    Examples
    --------
    >>> from analytic.simulation import Estimate, compare
    >>> c = compare(Estimate(0.0280, 0.0010, 0.95, "batch means", 20), 0.0267)
    >>> c.verdict, round(c.p_value, 4)
    ('disagrees', 0.0136)
    """

    estimate: Estimate
    exact: float
    z: float
    level: float
    p_value: float
    agrees: bool

    @property
    def verdict(self) -> str:
        """``"agrees"`` or ``"disagrees"``."""
        return "agrees" if self.agrees else "disagrees"

    def __repr__(self) -> str:
        return f"Comparison(estimate={self.estimate!r}, exact={self.exact:.10g}, z={self.z:.4g}, verdict={self.verdict!r})"


def compare(simulated: Estimate | object, exact: float, level: float | None = None, batches: int = 20,
            warmup: int = 0) -> Comparison:
    """Compare a simulated estimate, or raw observations, with an exact value.

    Parameters
    ----------
    simulated : Estimate or array_like
        An :class:`Estimate`, or a one-dimensional series of observations in simulation order
        (per-job response times, 0/1 blocking indicators, ... from any simulator), from which
        :func:`~analytic.simulation.estimates.batch_means` forms the estimate.
    exact : float
        The exact value of the quantity (finite).
    level : float, optional
        Level of the verdict; default the estimate's level (0.95 for raw observations).
    batches, warmup : int
        For raw observations only: number of batches and observations dropped at the start.

    Returns
    -------
    Comparison

    Raises
    ------
    InvalidParameterError
        A non-finite exact value, a level outside (0, 1), or observations that cannot form the
        batches.

    Examples
    --------
    >>> from analytic.simulation import Estimate
    >>> c = compare(Estimate(0.0280, 0.0010, 0.95, "batch means", 20), 0.0267)
    >>> round(c.z, 3), c.verdict
    (2.721, 'disagrees')
    """
    if isinstance(simulated, Estimate):
        estimate = simulated
    else:
        estimate = batch_means(simulated, batches=batches, level=0.95 if level is None else level, warmup=warmup)
    at = estimate.level if level is None else confidence("level", level)
    reference = real("exact", exact)
    difference = estimate.value - reference
    error = estimate.standard_error
    if error > 0:
        z = difference / error
    else:
        z = 0.0 if difference == 0 else math.copysign(math.inf, difference)
    dof = estimate.samples - 1
    p_value = float(2.0 * special.stdtr(dof, -abs(z))) if math.isfinite(z) else 0.0
    return Comparison(estimate, reference, float(z), at, p_value, bool(abs(z) <= t_quantile(at, estimate.samples)))


#: Most intervals :func:`coverage_band` takes: the binomial counts must be exact in double precision.
MAX_RUNS = 2**52


def coverage_band(runs: int, level: float = 0.95, false_alarm: float = 1e-4) -> tuple[int, int]:
    """Range of the number of intervals, out of ``runs``, expected to contain the exact value.

    With ``runs`` independent intervals of exact coverage ``level``, the count is
    Binomial(runs, level); the band ``[low, high]`` holds it except with probability at most
    ``false_alarm``, split evenly between ``P(count < low)`` and ``P(count > high)``. Use it to test
    a simulator over many fixed seeds. ``low`` is the least k with ``P(count <= k) >= false_alarm/2``
    and ``high`` the least k with ``P(count > k) <= false_alarm/2``, found by bisection on the
    binomial tails ``I_(1-level)(runs - k, k + 1)`` and ``I_level(k + 1, runs - k)`` (regularized
    incomplete beta, :func:`scipy.special.betainc`).

    Parameters
    ----------
    runs : int
        Number of seeded intervals, at most ``MAX_RUNS`` (2^52).
    level : float
        Their confidence level.
    false_alarm : float
        Probability that a correct simulator falls outside the band.

    Returns
    -------
    tuple of (int, int)
        ``(low, high)``.

    Raises
    ------
    InvalidParameterError
        ``runs`` not a positive integer or above ``MAX_RUNS``; ``level`` or ``false_alarm`` outside (0, 1).

    Examples
    --------
    >>> coverage_band(200)
    (176, 199)
    """
    n = integer("runs", runs)
    if n > MAX_RUNS:
        raise InvalidParameterError("runs", runs, f"must be at most 2**52 = {MAX_RUNS:,} (the binomial tails are "
                                                  "evaluated at counts that must be exact in double precision)")
    p = confidence("level", level)
    tail = confidence("false_alarm", false_alarm) / 2
    low = _least(lambda k: k == n or special.betainc(n - k, k + 1, 1.0 - p) >= tail, n)
    high = _least(lambda k: k == n or special.betainc(k + 1, n - k, p) <= tail, n)
    return low, high


def _least(holds: Callable[[int], bool], n: int) -> int:
    """The least k in ``0..n`` at which the monotone predicate ``holds`` (true at n), by bisection."""
    low, high = 0, n
    while low < high:
        middle = (low + high) // 2
        if holds(middle):
            high = middle
        else:
            low = middle + 1
    return low
