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

from analytic._deprecation import renamed_arguments
from analytic.errors import InvalidParameterError
from analytic.simulation.estimates import Estimate, Estimates, batch_means, t_quantile
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


def compare(simulated: Estimate | object, exact: float | object, level: float | None = None, batches: int = 20,
            warmup: int = 0) -> Comparison | dict[str, Comparison | tuple[Comparison | None, ...]]:
    """Compare a simulated estimate, or raw observations, with an exact value; or a simulated result with an exact one.

    Parameters
    ----------
    simulated : Estimate, array_like or simulation result
        An :class:`Estimate`, or a one-dimensional series of observations in simulation order
        (per-job response times, 0/1 blocking indicators, ... from any simulator), from which
        :func:`~analytic.simulation.estimates.batch_means` forms the estimate; or a simulation
        result (a dataclass holding :class:`Estimate` and :class:`Estimates` fields, as
        :class:`~analytic.splitting.MultiserverSimulation`).
    exact : float or exact result
        The exact value of the quantity (finite); with a simulation result, the exact result of the
        same model (:class:`~analytic.splitting.ExactMetrics`,
        :class:`~analytic.partitioning.ConfigurationLaw`, ...), whose attributes of the same names
        hold the exact values. The two results may come in either order.
    level : float, optional
        Level of the verdict; default the estimate's level (0.95 for raw observations).
    batches, warmup : int
        For raw observations only: number of batches and observations dropped at the start.

    Returns
    -------
    Comparison or dict
        For two results, by the name of every field they share (an estimate of the simulated one
        whose name the exact one has, not None): its :class:`Comparison`, or for a vector of
        estimates a tuple with one per entry (None for an entry without an estimate, NaN: a class
        of which no job was counted).

    Raises
    ------
    InvalidParameterError
        A non-finite exact value, a level outside (0, 1), observations that cannot form the
        batches, or two results that share no field (or whose shared vectors differ in length).

    Examples
    --------
    >>> from analytic.simulation import Estimate
    >>> c = compare(Estimate(0.0280, 0.0010, 0.95, "batch means", 20), 0.0267)
    >>> round(c.z, 3), c.verdict
    (2.721, 'disagrees')

    A simulated M/M/2 queue against its exact chain, field by field:

    >>> from analytic.splitting import RigidClass, exact_multiserver, simulate_multiserver
    >>> classes = [RigidClass(1, 1.0, 1.0)]
    >>> sim = simulate_multiserver("fcfs", 2, classes, 1.0, arrivals=100_000, seed=3)
    >>> verdicts = compare(exact_multiserver("fcfs", 2, classes, 1.0), sim)
    >>> verdicts["mean_response_time"].verdict, [c.verdict for c in verdicts["per_class_wait_probability"]]
    ('agrees', ['agrees'])
    """
    if not isinstance(simulated, Estimate) and _holds_estimates(exact) and not _holds_estimates(simulated):
        simulated, exact = exact, simulated
    if _holds_estimates(simulated):
        return _compare_results(simulated, exact, level)
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


def _holds_estimates(result: object) -> bool:
    """Whether ``result`` is a simulation result: an object with an :class:`Estimate` or :class:`Estimates` attribute."""
    return any(isinstance(value, Estimate | Estimates) for value in getattr(result, "__dict__", {}).values())


def _compare_results(simulated: object, exact: object,
                     level: float | None) -> dict[str, Comparison | tuple[Comparison | None, ...]]:
    """Every estimate of ``simulated`` against the attribute of ``exact`` of the same name (see :func:`compare`)."""
    results: dict[str, Comparison | tuple[Comparison | None, ...]] = {}
    for name, estimate in vars(simulated).items():
        if not isinstance(estimate, Estimate | Estimates) or getattr(exact, name, None) is None:
            continue
        value = getattr(exact, name)
        if isinstance(estimate, Estimate):
            results[name] = compare(estimate, value, level)
            continue
        values = list(value) if hasattr(value, "__len__") else [value]
        if len(values) != len(estimate):
            raise InvalidParameterError("exact", exact, f"must hold {len(estimate)} values of {name} (it holds {len(values)})")
        results[name] = tuple(None if math.isnan(e) else compare(estimate[k], values[k], level)
                              for k, e in enumerate(estimate.value.tolist()))
    if not results:
        raise InvalidParameterError("exact", exact, f"must share a field with the simulated result {type(simulated).__name__}")
    return results


#: Most intervals :func:`coverage_band` takes: the binomial counts must be exact in double precision.
MAX_RUNS = 2**52


@renamed_arguments(runs="replications")
def coverage_band(replications: int, level: float = 0.95, false_alarm: float = 1e-4) -> tuple[int, int]:
    """Range of the number of intervals, out of ``replications``, expected to contain the exact value.

    With ``replications`` independent intervals of exact coverage ``level``, the count is
    Binomial(replications, level); the band ``[low, high]`` holds it except with probability at most
    ``false_alarm``, split evenly between ``P(count < low)`` and ``P(count > high)``. Use it to test
    a simulator over many fixed seeds. ``low`` is the least k with ``P(count <= k) >= false_alarm/2``
    and ``high`` the least k with ``P(count > k) <= false_alarm/2``, found by bisection on the
    binomial tails ``I_(1-level)(replications - k, k + 1)`` and ``I_level(k + 1, replications - k)`` (regularized
    incomplete beta, :func:`scipy.special.betainc`).

    Parameters
    ----------
    replications : int
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
        ``replications`` not a positive integer or above ``MAX_RUNS``; ``level`` or ``false_alarm`` outside (0, 1).

    Examples
    --------
    >>> coverage_band(200)
    (176, 199)
    """
    n = integer("replications", replications)
    if n > MAX_RUNS:
        raise InvalidParameterError("replications", replications, f"must be at most 2**52 = {MAX_RUNS:,} (the binomial "
                                    "tails are evaluated at counts that must be exact in double precision)")
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
