"""Theorem 2's weight functions, its parameter conditions, its bounds, and Corollary 1's parameters.

Ghaderi, Shakkottai & Srikant, Section 5 and Section 6 (proof of Theorem 2). DGP weighs a template
``A`` of type j by ``w̃_A = α f^(j)(h + Q) - b_A`` (11), with ``f(x) = log^(1-b)(x)`` and

    f^(j)(x) = max{ f(x_j), (ε / 8M) f(x_max) }                        (12)

Theorem 2 assumes ``ρ(1 + δ*) ∈ Λ`` for some ``0 < δ* < 1``, ``α <= β < 1``, ``ε <= δ*`` and
``h >= exp(C_0 β⁻¹ ε^(-(2 - b + 1/b)/(1 - b)))`` (28). Λ is closed downwards, so any δ* up to
``min(δ_max, 1)`` qualifies, δ_max being the largest δ with ``ρ(1 + δ) ∈ Λ``
(:func:`~.static.capacity_margin`): the package takes ``δ* = min(δ_max, 1)`` (the bounds improve
with δ*). The proof needs

    C_0 >= 8M (8M b_max + 2 ``|log(512 ξ² / K_0²)|`` + 2 + (8M)^(2/b) μ_max^((1-b)/b)).

:func:`dgp_conditions` evaluates each condition with that C_0 and says which fail;
:func:`dgp_bounds` evaluates the two bounds of the theorem with ``K̂_2 = f'(h)(M + Σ ρ_j)``
and ``K̂_3 = f(M + h) M``. The thresholds are astronomically large, so ``h`` enters as ``log h``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from analytic.errors import InvalidParameterError
from analytic.partitioning.chain import log_mixing_constant, uniformization_rate
from analytic.partitioning.distributions import loss_distribution
from analytic.partitioning.model import Cluster, GraphJob, check_jobs
from analytic.partitioning.static import capacity_margin, static_partitioning
from analytic.partitioning.templates import max_template_cost
from analytic.validation import integer, positive, real, real_array

__all__ = [
    "DGPBounds",
    "DGPConditions",
    "DGPParameters",
    "dgp_bounds",
    "dgp_conditions",
    "dgp_parameters",
    "dgp_queue_weights",
    "log_power",
]


def check_exponent(b: float) -> tuple[float, float]:
    """``(b, 1 - b)`` with b as a float in [0, 1) (any kind of real number: a Decimal too)."""
    value = real("b", b)
    if not 0 <= value < 1:
        raise InvalidParameterError("b", b, "must lie in [0, 1) (Theorem 2 takes b in (0, 1); b = 0 gives f = log)")
    return value, 1.0 - value


def log_power(x: float | np.ndarray, b: float) -> float | np.ndarray:
    """``f(x) = log^(1-b)(x)``, Theorem 2's weight function, for ``x >= 1``.

    Parameters
    ----------
    x : float or array_like
        Arguments >= 1 (DGP evaluates f at ``h + Q`` with the bias ``h >= 1``).
    b : float
        In [0, 1); ``b = 0`` is the plain logarithm.

    Returns
    -------
    float or numpy.ndarray

    Raises
    ------
    InvalidParameterError
        ``x < 1`` (``log x < 0`` has no real power) or ``b`` outside [0, 1).

    Examples
    --------
    >>> round(log_power(np.e ** 4, 0.5), 12)
    2.0
    """
    b, power = check_exponent(b)
    values = real_array("x", x, allow_infinite=True)
    if not np.all(np.isfinite(values)) or (values < 1).any():
        raise InvalidParameterError("x", x, "must be finite and >= 1 (f(x) = log^(1-b) x is real only there)")
    result = np.log(values) ** power
    return float(result) if result.ndim == 0 else result


def dgp_queue_weights(queues: Sequence[float], alpha: float, h: float, epsilon: float, total_slots: int,
                      b: float) -> np.ndarray:
    """``q_j = α f^(j)(h + Q)`` of eqs. (11)–(12): the queue part of DGP's template weights.

    Parameters
    ----------
    queues : sequence of float
        ``Q^(j)`` >= 0.
    alpha : float
        α > 0.
    h : float
        The bias h >= 1.
    epsilon : float
        ε in (0, 1).
    total_slots : int
        M.
    b : float
        The exponent of f, in [0, 1).

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    InvalidParameterError
        Negative or non-finite queues, h < 1, ε outside (0, 1), or α f beyond the double range.

    Examples
    --------
    The floor ``ε/(8M) f(x_max)`` lifts a short queue's weight:

    >>> dgp_queue_weights([0, 1000], alpha=1.0, h=1.0, epsilon=0.9, total_slots=1, b=0.0).round(6).tolist()
    [0.777235, 6.908755]
    """
    q = real_array("queues", queues, ndim=1, allow_infinite=True, allow_empty=False)
    if not np.all(np.isfinite(q)) or (q < 0).any():
        raise InvalidParameterError("queues", queues, "must be finite numbers >= 0, one per job type")
    bias = real("h", h)
    if not bias >= 1:
        raise InvalidParameterError("h", h, "must be >= 1 (f is evaluated at h + Q)")
    share = positive("epsilon", epsilon)
    if share >= 1:
        raise InvalidParameterError("epsilon", epsilon, "must lie in (0, 1) (eq. 12)")
    f = log_power(bias + q, b)
    slots = integer("total_slots", total_slots)
    floor = float(Fraction(share) / (8 * slots)) * f.max()      # in rationals: an M beyond the floats gives floor 0
    a = positive("alpha", alpha)
    with np.errstate(over="ignore"):
        weights = a * np.maximum(f, floor)
    if not np.all(np.isfinite(weights)):
        raise InvalidParameterError("alpha", alpha, f"times f^(j)(h + Q) up to {f.max():.6g} must stay within the double range")
    return weights


@dataclass(frozen=True)
class DGPConditions:
    """Theorem 2's hypotheses for given parameters, each checked.

    Attributes
    ----------
    delta_star : float
        ``min(δ_max, 1)``, δ_max the capacity margin of the loads (Definition 1,
        :func:`~.static.capacity_margin`).
    log_h_required : float
        ``C_0 β⁻¹ ε^(-(2 - b + 1/b)/(1 - b))`` with the proof's C_0: h must be at least its exponential.
    c0 : float
        The C_0 used.
    conditions : tuple of (str, bool)
        Each hypothesis in words and whether it holds.

    Examples
    --------
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> from analytic.partitioning import dgp_conditions
    >>> dgp_conditions(FIGURE1_CLUSTER, FIGURE1_JOB, 0.01, 0.1, 0.5, 100.0, 0.5).holds
    False
    """

    delta_star: float
    log_h_required: float
    c0: float
    conditions: tuple[tuple[str, bool], ...]

    @property
    def holds(self) -> bool:
        """Whether every hypothesis of Theorem 2 holds."""
        return all(ok for _, ok in self.conditions)

    @property
    def failures(self) -> tuple[str, ...]:
        """The hypotheses that fail, in words."""
        return tuple(text for text, ok in self.conditions if not ok)


def dgp_conditions(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob], alpha: float, beta: float,
                        epsilon: float, log_h: float, b: float) -> DGPConditions:
    """Check Theorem 2's hypotheses (ρ inside Λ, α <= β < 1, ε <= δ*, h above (28)) and say which fail.

    Parameters
    ----------
    cluster : Cluster
        Machines and their slots.
    jobs : GraphJob or sequence of GraphJob
        The job types.
    alpha, beta, epsilon : float
        The algorithm's parameters (positive).
    log_h : float
        ``log h``, the logarithm of the bias (h itself overflows at the theorem's scale).
    b : float
        The exponent of ``f = log^(1-b)``, in (0, 1).

    Returns
    -------
    DGPConditions

    Examples
    --------
    Corollary 1's parameters at β = 0.1, b = 1/2 on Figure 1's graph at ρ = 1.5 (δ_max = 1/3):
    ε = β^(b²/4) = 0.87 exceeds δ*, and h = e^(β^(-2)) = e^100 is far below (28).

    >>> from analytic.partitioning.model import GraphJob
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> job = GraphJob(5, FIGURE1_JOB.edges, arrival_rate=1.5, service_rate=1.0)
    >>> p = dgp_parameters(0.1, 0.5)
    >>> for failure in dgp_conditions(FIGURE1_CLUSTER, job, p.alpha, 0.1, p.epsilon, p.log_h, 0.5).failures:
    ...     print(failure)
    ε <= δ*: ε = 0.865964, δ* = 0.333333
    h >= exp(C_0 β⁻¹ ε^-(2-b+1/b)/(1-b)) (28): log h = 100 < 2.233e+11
    """
    types = check_jobs(cluster, jobs)
    a, t, e = positive("alpha", alpha), positive("beta", beta), positive("epsilon", epsilon)
    b, power = check_exponent(b)
    if b == 0:
        raise InvalidParameterError("b", b, "must lie in (0, 1) for Theorem 2 (its h threshold involves 1/b)")
    margin = capacity_margin(cluster, types)
    delta = min(margin, 1.0)
    slots = cluster.total_slots
    b_max = max_template_cost(cluster, types)
    mu_max = max(job.service_rate for job in types)
    xi = uniformization_rate(cluster, types)
    log_k0 = log_mixing_constant(cluster, types)
    log_h = real("log_h", log_h, allow_infinite=True)
    with np.errstate(over="ignore"):        # at small b or ε the threshold exceeds double precision: inf
        c0 = 8 * slots * (8 * slots * b_max + 2 * abs(np.log(512.0) + 2 * np.log(xi) - 2 * log_k0) + 2
                          + np.float64(8.0 * slots) ** (2 / b) * np.float64(mu_max) ** (power / b))
        required = c0 / t * np.float64(e) ** (-(2 - b + 1 / b) / power)
    conditions = (
        (f"ρ(1 + δ*) ∈ Λ for some δ* > 0: largest δ = {margin:.6g}", margin > 0),
        (f"α <= β: α = {a:.6g}, β = {t:.6g}", a <= t),
        (f"β < 1: β = {t:.6g}", t < 1),
        (f"ε < 1: ε = {e:.6g}", e < 1),
        (f"ε <= δ*: ε = {e:.6g}, δ* = {delta:.6g}", e <= delta),
        (f"h >= exp(C_0 β⁻¹ ε^-(2-b+1/b)/(1-b)) (28): log h = {log_h:.6g} < {required:.4g}" if log_h < required
         else f"h >= exp(C_0 β⁻¹ ε^-(2-b+1/b)/(1-b)) (28): log h = {log_h:.6g} >= {required:.4g}", bool(log_h >= required)),
    )
    return DGPConditions(delta_star=delta, log_h_required=float(required), c0=float(c0), conditions=conditions)


@dataclass(frozen=True)
class DGPParameters:
    """Corollary 1's choice for a given β and b: α = β², h = exp(β^(-1/(1-b))), ε = β^(b²/4).

    Attributes
    ----------
    alpha, epsilon : float
    log_h : float
        ``log h = β^(-1/(1-b))``.

    Examples
    --------
    >>> from analytic.partitioning import dgp_parameters
    >>> round(dgp_parameters(0.1, 0.5).alpha, 12)   # α = β²
    0.01
    """

    alpha: float
    log_h: float
    epsilon: float


def dgp_parameters(beta: float, b: float) -> DGPParameters:
    """The parameters of Corollary 1 (α = β², h = exp((1/β)^(1/(1-b))), ε = β^(b²/4)).

    Parameters
    ----------
    beta : float
        β in (0, 1).
    b : float
        The exponent of f, in (0, 1).

    Returns
    -------
    DGPParameters


    Examples
    --------
    >>> dgp_parameters(0.1, 0.5)
    DGPParameters(alpha=0.010000000000000002, log_h=99.99999999999999, epsilon=0.8659643233600653)
    """
    t = positive("beta", beta)
    b, power = check_exponent(b)
    with np.errstate(over="ignore", under="ignore"):       # log h = β^(-1/(1-b)) and α = β² are inf beyond double precision
        log_h = float(np.float64(t) ** (-1 / power))
        alpha = float(np.float64(t) ** 2)
    return DGPParameters(alpha=alpha, log_h=log_h, epsilon=t ** (b**2 / 4))


@dataclass(frozen=True)
class DGPBounds:
    """The right-hand sides of Theorem 2.

    Attributes
    ----------
    queue : float
        Bound on ``Σ_j E f(Q_j(∞))``.
    cost : float
        Bound on the mean partition cost.
    static_cost : float
        ``G(x*)``.
    log_gamma_min : float
        ``log γ_min``.

    Examples
    --------
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> from analytic.partitioning import dgp_bounds
    >>> dgp_bounds(FIGURE1_CLUSTER, FIGURE1_JOB, 0.1, 0.1, 0.5, 10.0, 0.5).static_cost
    1.0
    """

    queue: float
    cost: float
    static_cost: float
    log_gamma_min: float


def dgp_bounds(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob], alpha: float, beta: float, epsilon: float,
                    log_h: float, b: float) -> DGPBounds:
    """Evaluate Theorem 2's bounds with ``K̂_2 = f'(h)(M + Σ_j ρ_j)``, ``K̂_3 = f(M + h) M``, ``δ* = min(δ_max, 1)``.

    queue: ``(2/(ρ_min δ*)) (K̂_2 + K̂_3 - (β/α) log γ_min + (1 + δ*/2) G(x*)/α + ε b_max/α)``;
    cost: ``G(x*) + α(K̂_2 + K̂_3) - β log γ_min + ε b_max``.

    Parameters
    ----------
    cluster : Cluster
        Machines and their slots.
    jobs : GraphJob or sequence of GraphJob
        The job types.
    alpha, beta, epsilon : float
        The algorithm's parameters (positive).
    log_h : float
        ``log h``.
    b : float
        The exponent of ``f = log^(1-b)``, in (0, 1).

    Returns
    -------
    DGPBounds


    Examples
    --------
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> bounds = dgp_bounds(FIGURE1_CLUSTER, FIGURE1_JOB, 0.1, 0.1, 0.5, 10.0, 0.5)
    >>> round(bounds.static_cost, 12), round(bounds.cost, 4)
    (1.0, 9.3159)
    """
    types = check_jobs(cluster, jobs)
    a, t, e = positive("alpha", alpha), positive("beta", beta), positive("epsilon", epsilon)
    b, power = check_exponent(b)
    log_bias = positive("log_h", log_h)
    slots = cluster.total_slots
    loads = np.array([job.offered_load for job in types])
    static = static_partitioning(cluster, types)
    delta = min(static.delta_star, 1.0)
    b_max = max_template_cost(cluster, types)
    log_gamma_min = loss_distribution(cluster, types).min_log_probability
    derivative = power * log_bias ** (power - 1) * np.exp(-log_bias)       # f'(h) for f = log^(1-b), h = e^log_h
    k2 = derivative * (slots + loads.sum())
    k3 = (log_bias + np.log1p(slots * np.exp(-log_bias))) ** power * slots  # f(M + h) M
    queue = 2 / (loads.min() * delta) * (k2 + k3 - t / a * log_gamma_min + (1 + delta / 2) * static.cost / a + e * b_max / a)
    cost = static.cost + a * (k2 + k3) - t * log_gamma_min + e * b_max
    return DGPBounds(queue=float(queue), cost=float(cost), static_cost=static.cost, log_gamma_min=log_gamma_min)

