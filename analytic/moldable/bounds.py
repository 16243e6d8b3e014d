"""Traffic regimes and the non-asymptotic Stein bounds of greedy(p*).

Ghanbarian, Mukhopadhyay, Mazumdar & Guillemin, *On Optimal Server Allocation for Moldable Jobs
with Concave Speed-Up*: the load ``λ(n) = 1 - β n^(-α)`` of Section 2 and the bounds of Section 5
(Prop. 2, eq. 19; the proof of Theorem 2; eqs. 31, 33 and 34).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from analytic._deprecation import renamed_attribute
from analytic.errors import InvalidParameterError
from analytic.moldable.occupancy import optimal_occupancy
from analytic.speedup import SpeedupCurve, SpeedupTable, as_discrete
from analytic.validation import integer, real, real_array

__all__ = ["SteinBounds", "stein_bounds", "traffic", "traffic_regime"]


def traffic(n: float | np.ndarray, alpha: float, beta: float) -> float | np.ndarray:
    """Normalized arrival rate ``λ(n) = 1 - β n^(-α)`` (Ghanbarian et al., Section 2).

    Parameters
    ----------
    n : float or array
        System size (servers), ``n >= 1``; broadcasts.
    alpha : float
        ``α >= 0`` (0: mean-field).
    beta : float
        ``β > 0``, with ``β n^(-α) < 1`` so that ``λ(n)`` lies in (0, 1).

    Returns
    -------
    float or numpy.ndarray
        ``λ(n)``, exact to round-off.

    Raises
    ------
    InvalidParameterError
        ``α < 0``, ``β <= 0``, ``n < 1``, or ``λ(n) <= 0``.

    Examples
    --------
    >>> traffic(4000, 0.5, 0.1)
    0.9984188611699158
    >>> traffic([100, 10000], 0, 0.2).tolist()
    [0.8, 0.8]
    """
    size = real_array("n", n, allow_infinite=True)
    a, b = _check_regime(alpha, beta)
    if not np.all(np.isfinite(size)) or np.any(size < 1):
        raise InvalidParameterError("n", n, "must be finite and >= 1")
    excess = b * size ** (-a)
    if np.any(excess >= 1):
        raise InvalidParameterError("beta", beta, f"must satisfy β n^(-α) < 1 so that λ(n) > 0 (n = {n}, α = {a:g})")
    rate = 1.0 - excess
    return float(rate) if rate.ndim == 0 else rate


def traffic_regime(alpha: float, beta: float) -> str:
    """Name of the traffic regime of ``λ(n) = 1 - β n^(-α)`` (Ghanbarian et al., Section 2).

    ``α = 0`` (with ``β < 1``): mean-field; ``0 < α < 1/2``: sub-Halfin–Whitt; ``α = 1/2``:
    Halfin–Whitt; ``1/2 < α < 1``: super-Halfin–Whitt; ``α >= 1``: super-NDS (non-degenerate
    slowdown).

    Parameters
    ----------
    alpha : float
        α >= 0.
    beta : float
        β > 0 (β < 1 when α = 0).

    Returns
    -------
    str
        ``"mean-field"``, ``"sub-Halfin-Whitt"``, ``"Halfin-Whitt"``, ``"super-Halfin-Whitt"`` or ``"super-NDS"``.


    Examples
    --------
    >>> traffic_regime(2 / 3, 0.1)
    'super-Halfin-Whitt'
    """
    a, b = _check_regime(alpha, beta)
    if a == 0:
        if b >= 1:
            raise InvalidParameterError("beta", beta, "must lie in (0, 1) in the mean-field regime (α = 0)")
        return "mean-field"
    if a < 0.5:
        return "sub-Halfin-Whitt"
    if a == 0.5:
        return "Halfin-Whitt"
    return "super-Halfin-Whitt" if a < 1 else "super-NDS"


def _check_regime(alpha: float, beta: float) -> tuple[float, float]:
    a, b = real("alpha", alpha, allow_infinite=True), real("beta", beta, allow_infinite=True)
    if not (math.isfinite(a) and a >= 0):
        raise InvalidParameterError("alpha", alpha, "must be finite and >= 0")
    if not (math.isfinite(b) and b > 0):
        raise InvalidParameterError("beta", beta, "must be finite and > 0")
    return a, b


@dataclass(frozen=True)
class SteinBounds:
    """The bounds of Section 5 for one system size.

    Attributes
    ----------
    rate_per_server : float
        ``λ(n)``.
    delta : float
        The δ in (0, 1 - λ) used by Lemmas 3–4.
    squared_distance : float
        Right side of (19), a bound on ``E[Σ_{i in I*} s_i (x_i - y*_i)^2]``.
    distance : float
        ``1/n + sqrt(2 · (19))``, the bound on ``E||x - y*||_1`` (proof of Theorem 2).
    blocking : float
        ``d · distance / λ``, the bound on ``P_b`` (eq. 31).
    mean_response_time_gap : float
        ``(distance + P_b) / (λ (1 - P_b))`` with ``P_b`` at its bound, the bound on
        ``|E[D] - D*|`` (eq. 33); infinite when the ``P_b`` bound reaches 1.
    mean_response_time_gap_single : float or None
        For ``|I*| = 1``: ``1 / (n λ (1 - P_b))``, the sharper one-sided bound on ``E[D] - D*``
        after eq. (34); None when ``|I*| = 2``.

    Examples
    --------
    >>> from analytic.moldable import stein_bounds
    >>> from analytic.speedup import SpeedupTable
    >>> round(stein_bounds(SpeedupTable.linear(5), 4000, 0.5, 0.1).distance, 6)
    0.074412
    """

    rate_per_server: float
    arrival_rate = renamed_attribute("rate_per_server")
    mean_time_gap = renamed_attribute("mean_response_time_gap")
    mean_time_gap_single = renamed_attribute("mean_response_time_gap_single")
    delta: float
    squared_distance: float
    distance: float
    blocking: float
    mean_response_time_gap: float
    mean_response_time_gap_single: float | None


def stein_bounds(speedup: SpeedupTable | SpeedupCurve | object, n: int, alpha: float, beta: float,
                 delta: float | None = None) -> SteinBounds:
    """Non-asymptotic bounds of greedy(p*) by Stein's method (Ghanbarian et al., Section 5).

    Evaluates the right side of (19) (Prop. 2), the bound on ``E||x - y*||`` of the proof of
    Theorem 2, the blocking bound (31) and the mean-time bound (33) at ``λ = λ(n)``. The paper
    proves them "for large enough n" (Lemma 3 needs ``d = o(n)``); here they are numbers to set
    against the exact values of :func:`~analytic.moldable.greedy_metrics`.

    Parameters
    ----------
    speedup : SpeedupTable, sequence of float or SpeedupCurve
        ``s_1, ..., s_d`` (P1 and concavity), as in :func:`~analytic.moldable.optimal_occupancy`.
    n : int
        Number of servers, ``n >= d``.
    alpha, beta : float
        Traffic parameters of :func:`traffic`.
    delta : float, optional
        δ in (0, 1 - λ). Default, as in the proof of Theorem 2: ``δ = β / (2 n^max(α, 1/2))``
        (``β/(2√n)`` for ``α <= 1/2``, ``β/(2 n^α)`` above).

    Returns
    -------
    SteinBounds
        Exact evaluations of the closed-form bounds (round-off only).

    Raises
    ------
    InvalidParameterError
        Bad traffic parameters, ``n < d``, or δ outside (0, 1 - λ).

    Examples
    --------
    >>> from analytic.speedup import SpeedupCurve, SpeedupTable, as_discrete
    >>> b = stein_bounds(SpeedupTable.linear(5), 4000, 0.5, 0.1)
    >>> round(b.squared_distance, 6), round(b.distance, 6), b.mean_response_time_gap_single is not None
    (0.00275, 0.074412, True)
    """
    speedup = as_discrete(speedup)
    d = speedup.d
    integer("n", n, minimum=d, meaning=f" (at least d = {d})")
    lam = traffic(n, alpha, beta)
    room = 1.0 - lam
    if room <= 0:
        raise InvalidParameterError("alpha", alpha, f"makes β n^(-α) underflow (n = {n}, β = {beta:g}): λ(n) rounds to 1, "
                                                    "and the bounds need 1 - λ > 0")
    if delta is None:
        delta = float(beta) / (2.0 * n ** max(float(alpha), 0.5))
    delta = real("delta", delta)
    if not 0 < delta < room:
        raise InvalidParameterError("delta", delta, f"must lie in (0, 1 - λ) = (0, {room:.10g})")
    optimum = optimal_occupancy(speedup, lam)
    squared = (1 + 2 * d) / n
    if len(optimum.support) == 2:
        gap = speedup.efficiency[optimum.i1 - 1] - speedup.efficiency[optimum.i2 - 1]
        squared += 2 * d / n * (1 / lam + 1 / gap) + 4 * d / (n * lam * delta) + 2 * delta / gap
    distance = 1 / n + math.sqrt(2 * squared)
    blocking = d * distance / lam
    mean_gap = (distance + blocking) / (lam * (1 - blocking)) if blocking < 1 else math.inf
    single = None
    if len(optimum.support) == 1:
        single = 1 / (n * lam * (1 - blocking)) if blocking < 1 else math.inf
    return SteinBounds(rate_per_server=lam, delta=float(delta), squared_distance=squared, distance=distance,
                       blocking=blocking, mean_response_time_gap=mean_gap, mean_response_time_gap_single=single)
