"""DGP's operating point: the queue weights at which DGP-bar's throughput equals the load.

Not a formula of the paper but the fixed point its proof of Theorem 2 steers to. Under the
time-scale separation of Step 2 the configuration follows π* of eq. (15) for the current weights
``q_j = α f^(j)(h + Q)``; the queues grow while the templates DGP-bar holds serve less than the load
and shrink otherwise, so they settle where

    ``E_π*(q)[|C^(j)|] = ρ_j``   for every type j.

The left side is the gradient of ``β log Z(q)``, ``Z(q) = Σ_C γ_C e^(W_q(C)/β)``, so ``q*`` minimises
the convex function ``β log Z(q) - q·ρ`` (Hessian ``Cov_π*(|C|)/β``); it exists when ρ lies inside Λ.
By convex duality π*(q*) maximises ``-E_π[cost] - β D_KL(π ‖ γ)`` subject to ``E_π|C^(j)| = ρ_j``, so
its mean cost decreases to G(x*) of Definition 2 as β -> 0: Corollary 1's limit, computed exactly.
The price is in the queues: with ``q_j = α f(h + Q_j)`` the operating queue is
``Q_j = f⁻¹(q*_j / α) - h``, with ``f = log^(1-b)`` equal to ``exp((q*_j/α)^(1/(1-b))) - h``
(:meth:`OperatingPoint.queues`; the floor of eq. (12) is ignored there).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import logsumexp

from analytic.errors import ConvergenceError, InvalidParameterError
from analytic.partitioning.distributions import ConfigurationLaw, adgp_distribution, dgp_distribution, loss_distribution
from analytic.partitioning.model import Cluster, GraphJob
from analytic.partitioning.static import capacity_margin
from analytic.partitioning.weights import check_exponent
from analytic.validation import positive, real

__all__ = ["OperatingPoint", "operating_point"]


@dataclass(frozen=True, repr=False)
class OperatingPoint:
    """The queue weights ``q*`` at which DGP-bar serves exactly the load, and its law there.

    Attributes
    ----------
    queue_weights : numpy.ndarray
        ``q*_j``.
    law : ConfigurationLaw
        π* of eq. (15) at ``q*``: ``law.expected_templates`` equals ρ.
    beta : float
    residual : float
        ``max_j |E|C^(j)| - ρ_j|`` at the solution.

    Examples
    --------
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> from analytic.partitioning import operating_point
    >>> round(operating_point(FIGURE1_CLUSTER, FIGURE1_JOB, beta=0.3).expected_cost, 4)
    1.323
    """

    queue_weights: np.ndarray
    law: ConfigurationLaw
    beta: float
    residual: float

    @property
    def expected_cost(self) -> float:
        """Mean partition cost of the configuration at the operating point."""
        return self.law.expected_cost

    def queues(self, alpha: float, h: float, b: float) -> np.ndarray:
        """``Q_j = exp((q*_j/α)^(1/(1-b))) - h``, the queue lengths at which ``α f(h + Q_j) = q*_j``.

        Returns ``inf`` where the queue overflows a double and a negative number where the bias
        alone exceeds the weight (DGP then runs near empty queues and the fixed point does not apply).

        Parameters
        ----------
        alpha : float
            α > 0.
        h : float
            The bias h >= 1.
        b : float
            The exponent of f, in [0, 1).

        Returns
        -------
        numpy.ndarray

        Examples
        --------
        >>> from analytic.partitioning import operating_point
        >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
        >>> point = operating_point(FIGURE1_CLUSTER, FIGURE1_JOB, beta=0.3)
        >>> point.queues(0.3, 1.0, 0.0).round(0).tolist()
        [2119.0]
        """
        scale = positive("alpha", alpha)
        _, power = check_exponent(b)
        bias = real("h", h)
        ratio = np.maximum(self.queue_weights / scale, 0.0)
        with np.errstate(over="ignore"):
            return np.exp(ratio ** (1.0 / power)) - bias

    def __repr__(self) -> str:
        return (f"OperatingPoint(beta={self.beta:g}, queue_weights={np.round(self.queue_weights, 10).tolist()}, "
                f"expected_cost={self.expected_cost:.10g}, residual={self.residual:.2g})")


#: Smallest β / max(1, largest partition cost) at which :func:`operating_point` resolves q*.
MIN_BETA_RATIO = 1e-9


def operating_point(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob], beta: float,
                    clock_rate: float | None = None) -> OperatingPoint:
    """Queue weights at which DGP-bar's mean template counts equal the loads (a convex dual, Newton's method).

    Parameters
    ----------
    cluster : Cluster
    jobs : GraphJob or sequence of GraphJob
        The loads ρ_j must lie strictly inside Λ.
    beta : float
        β > 0.
    clock_rate : float, optional
        For ADGP (Algorithm 4): its clock rate λ̂, so that γ̂ of eq. (33) replaces γ (Prop. 4).

    Returns
    -------
    OperatingPoint
        ``q*`` with ``E_π*(q*)|C^(j)| = ρ_j`` (residual typically 1e-15; an error above 1e-7).

    Raises
    ------
    InvalidParameterError
        ρ not strictly inside Λ (no finite weights serve it), or β not positive.
    ConvergenceError
        The minimisation stopped short.

    Examples
    --------
    Figure 1 at ρ = 1: as β falls the mean cost tends to G(x*) = 1 and the weight to the cheapest
    template's cost, 1.

    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> [round(operating_point(FIGURE1_CLUSTER, FIGURE1_JOB, beta).expected_cost, 4) for beta in (1.0, 0.3, 0.1)]
    [2.719, 1.323, 1.0005]
    """
    temperature = positive("beta", beta)
    margin = capacity_margin(cluster, jobs)
    gamma = loss_distribution(cluster, jobs) if clock_rate is None else adgp_distribution(cluster, jobs, clock_rate)
    space = gamma.configurations
    loads = np.array([job.offered_load for job in space.jobs])
    if margin <= 1e-9:
        raise InvalidParameterError("jobs", [round(r, 10) for r in loads.tolist()], "loads must lie strictly inside the "
                                    f"capacity region Λ (largest δ with ρ(1+δ) ∈ Λ: {margin:.6g})")
    # q* is of the order of the costs and resolved to an ulp of it; the law weighs states by e^(q/β),
    # so an ulp of q must stay far below β: below this ratio the fixed point is not resolved.
    smallest = MIN_BETA_RATIO * max(1.0, float(space.cost.max()))
    if temperature < smallest:
        raise InvalidParameterError("beta", beta, f"must be at least {smallest:.3g} (1e-9 times the largest cost): below, "
                                                  "double precision does not resolve q/β; the β → 0 limit is "
                                                  "static_partitioning (Definition 2)")
    counts = space.templates.astype(float)

    def law_of(q: np.ndarray) -> np.ndarray:
        log_weight = gamma.log_probabilities + (counts @ q - space.cost) / temperature
        return np.exp(log_weight - logsumexp(log_weight))

    def dual(q: np.ndarray) -> tuple[float, np.ndarray]:
        log_weight = gamma.log_probabilities + (counts @ q - space.cost) / temperature
        p = np.exp(log_weight - logsumexp(log_weight))
        return float(temperature * logsumexp(log_weight) - q @ loads), p @ counts - loads

    def hessian(q: np.ndarray) -> np.ndarray:
        p = law_of(q)
        mean = p @ counts
        return ((counts - mean).T * p) @ (counts - mean) / temperature

    start = np.full(len(loads), float(space.cost.max()))
    result = minimize(dual, start, jac=True, hess=hessian, method="trust-exact", options={"gtol": 1e-12, "maxiter": 500})
    q = result.x
    for _ in range(8):                     # Newton polish: the trust region may stop a little short
        gradient = law_of(q) @ counts - loads
        step = np.linalg.lstsq(hessian(q), gradient, rcond=None)[0]
        better = q - step
        if np.abs(law_of(better) @ counts - loads).max() >= np.abs(gradient).max():
            break
        q = better
    residual = float(np.abs(law_of(q) @ counts - loads).max())
    if residual > 1e-7 * max(1.0, float(loads.max())):
        raise ConvergenceError(f"operating point: mean templates miss the loads by {residual:.3g} ({result.message})")
    law = (dgp_distribution(cluster, space.jobs, q, temperature) if clock_rate is None
           else adgp_distribution(cluster, space.jobs, clock_rate, q, temperature))
    return OperatingPoint(queue_weights=q, law=law, beta=temperature, residual=residual)
