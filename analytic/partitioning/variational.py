"""The variational form (13) of DGP-bar's stationary law, solved in closed form and by cvxpy; Corollary 2.

Ghaderi, Shakkottai & Srikant, Proposition 1 and Corollary 2. For fixed weights ``w_A = q_j - b_A``
and ``W(C) = Σ_j Σ_(A ∈ C^(j)) w_A``,

    F^(β)(π) = E_π[W] - β D_KL(π ‖ γ)                                     (13)

is strictly concave on the simplex and is maximised by π* of eq. (15), with value
``F^(β)(π*) = β log E_γ[e^(W/β)]``. :func:`solve_variational` maximises (13) directly with cvxpy
(``β D_KL`` is a sum of relative entropies, an exponential-cone program solved by Clarabel), an
optimisation that knows nothing of (15). Corollary 2 bounds the mean weight under π* from below:

    E_π*[W] >= max_C W(C) + β min_C log γ_C.

Both are computed over the reduced states of :mod:`.configurations`: for a law that is uniform over
the configurations a state stands for (γ, π* and the maximiser are), (13) on the configurations
equals (13) on the states with the states' total probabilities.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

import numpy as np
from scipy.special import logsumexp, xlogy

from analytic.errors import ConvergenceError, InvalidParameterError
from analytic.partitioning.distributions import (
    ConfigurationLaw,
    dgp_distribution,
    loss_distribution,
    nearest_float,
    queue_weight_vector,
    weight_tilt,
)
from analytic.partitioning.model import Cluster, GraphJob
from analytic.validation import positive, real_array

__all__ = [
    "VariationalSolution",
    "WeightGapBound",
    "solve_variational",
    "variational_objective",
    "variational_optimum",
    "weight_gap_bound",
]


#: Largest |W|/β handed to the conic solver (Clarabel solved Figure 1's problem up to 1e6).
MAX_SCALE = 1e6


def _weights(cluster: Cluster, jobs, queue_weights, beta) -> tuple[np.ndarray, np.ndarray, float]:
    """(W per state, log γ per state, β) after validation."""
    gamma = loss_distribution(cluster, jobs)
    space = gamma.configurations
    q = queue_weight_vector(queue_weights, len(space.jobs))
    return space.weight(q), gamma.log_probabilities, positive("beta", beta)


def _tilted(cluster: Cluster, jobs, queue_weights, beta) -> tuple[ConfigurationLaw, np.ndarray, float, float]:
    """(γ, ``(W - W*)/β`` per state from exact rationals, ``W*``, β) after validation.

    ``W*`` must be a double (``q = 1.7e308`` on two templates is not); ``W - W*`` may overflow.
    """
    gamma = loss_distribution(cluster, jobs)
    q = queue_weight_vector(queue_weights, len(gamma.configurations.jobs))
    temperature = positive("beta", beta)
    tilt, exact = weight_tilt(gamma.configurations, q, temperature)
    best = nearest_float(exact)
    if math.isinf(best):
        size = Decimal(exact.numerator) / exact.denominator
        raise InvalidParameterError("queue_weights", queue_weights, "must keep the heaviest configuration's weight "
                                    f"W* = max_C Σ_j q_j |C^(j)| - b_C within the double range (it is about {size:.3e})")
    return gamma, tilt, best, temperature


def variational_objective(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob], probabilities: Sequence[float],
                          queue_weights: Sequence[float] | float, beta: float) -> float:
    """``F^(β)(π) = E_π[W] - β D_KL(π ‖ γ)`` of eq. (13) for a law π on the reduced states.

    Parameters
    ----------
    cluster : Cluster
        Machines and their slots.
    jobs : GraphJob or sequence of GraphJob
        The job types.
    probabilities : array_like, shape (S,)
        π's total probability on each state of :func:`~.configurations.state_space` (spread
        uniformly over the configurations a state stands for); non-negative, summing to 1.
    queue_weights : float or sequence of float
        q_j, one per type (a scalar is repeated).
    beta : float
        β > 0.

    Returns
    -------
    float

    Raises
    ------
    InvalidParameterError
        ``probabilities`` of the wrong length, negative, or not summing to 1 (within 1e-9).

    Examples
    --------
    At γ itself the divergence vanishes and F = E_γ[W]:

    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> gamma = loss_distribution(FIGURE1_CLUSTER, FIGURE1_JOB).probabilities
    >>> round(variational_objective(FIGURE1_CLUSTER, FIGURE1_JOB, gamma, 0.0, 1.0), 10)
    -2.9090909091
    """
    weight, log_gamma, temperature = _weights(cluster, jobs, queue_weights, beta)
    p = real_array("probabilities", probabilities, allow_infinite=True, allow_nan=True)
    if p.shape != weight.shape or not np.all(np.isfinite(p)) or (p < 0).any() or abs(p.sum() - 1.0) > 1e-9:
        raise InvalidParameterError("probabilities", probabilities,
                                    f"must be {len(weight)} non-negative numbers summing to 1, one per state")
    divergence = float(xlogy(p, p).sum() - p @ log_gamma)
    return float(p @ weight - temperature * divergence)


def variational_optimum(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob], queue_weights: Sequence[float] | float,
                        beta: float) -> float:
    """``max_π F^(β)(π) = F^(β)(π*) = β log E_γ[e^(W/β)]`` (proof of Prop. 1), in log space.

    Computed as ``W* + β log E_γ[e^((W - W*)/β)]`` with ``(W - W*)/β`` from exact rationals: accurate
    to a few ulps for any β > 0 and any weights whose maximum ``W*`` is a double.

    Parameters
    ----------
    cluster : Cluster
        Machines and their slots.
    jobs : GraphJob or sequence of GraphJob
        The job types.
    queue_weights : float or sequence of float
        q_j, one per type (a scalar is repeated).
    beta : float
        β > 0.

    Returns
    -------
    float

    Raises
    ------
    InvalidParameterError
        β not positive and finite, weights not finite, or ``W*`` beyond the double range.

    Examples
    --------
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> round(variational_optimum(FIGURE1_CLUSTER, FIGURE1_JOB, 3.0, 0.01), 6)   # -> W* = 2 (3 - 1) = 4 as β -> 0
    3.897293
    """
    gamma, tilt, best, temperature = _tilted(cluster, jobs, queue_weights, beta)
    return best + temperature * float(logsumexp(gamma.log_probabilities + tilt))


@dataclass(frozen=True, repr=False)
class VariationalSolution:
    """The maximiser of (13) found by cvxpy.

    Attributes
    ----------
    probabilities : numpy.ndarray
        The optimal π on the reduced states.
    value : float
        ``F^(β)`` at the optimum, as reported by the solver.
    solver : str
        The conic solver used.

    Examples
    --------
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> from analytic.partitioning import solve_variational
    >>> solution = solve_variational(FIGURE1_CLUSTER, FIGURE1_JOB, 1.5, 0.5)
    >>> round(float(solution.probabilities.sum()), 6)
    1.0
    """

    probabilities: np.ndarray
    value: float
    solver: str

    def __repr__(self) -> str:
        return f"VariationalSolution(states={len(self.probabilities)}, value={self.value:.12g}, solver={self.solver!r})"


def solve_variational(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob], queue_weights: Sequence[float] | float,
                      beta: float) -> VariationalSolution:
    """Maximise (13) over the simplex with cvxpy: ``max π·W/β - Σ π log(π/γ)``, an exponential-cone program.

    The objective is divided by β (the maximiser is unchanged) and the value rescaled. Clarabel,
    asked for tolerances of 1e-12, stops near 1e-9 on the exponential cone (status
    ``optimal_inaccurate``, recorded in ``solver``); on Figure 1's setting it reproduces π* of
    eq. (15) to 1e-7 in total variation or better and F(π*) to 1e-9 (a strictly concave objective
    is flat at its maximum: the value is the sharper check).

    Parameters
    ----------
    cluster : Cluster
        Machines and their slots.
    jobs : GraphJob or sequence of GraphJob
        The job types.
    queue_weights : float or sequence of float
        q_j, one per type (a scalar is repeated).
    beta : float
        β > 0.

    Returns
    -------
    VariationalSolution


    Raises
    ------
    ConvergenceError
        The solver did not report an optimum.

    Examples
    --------
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> solution = solve_variational(FIGURE1_CLUSTER, FIGURE1_JOB, 1.5, 0.5)
    >>> exact = dgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, 1.5, 0.5).probabilities
    >>> bool(0.5 * abs(solution.probabilities - exact).sum() < 1e-6)
    True
    """
    import cvxpy as cp

    weight, log_gamma, temperature = _weights(cluster, jobs, queue_weights, beta)
    scale = float(np.abs(weight).max()) / temperature
    if scale > MAX_SCALE:
        raise InvalidParameterError("queue_weights", queue_weights,
                                    f"over beta = {temperature:g} give weights W/β up to {scale:.3g}, beyond the {MAX_SCALE:g} "
                                    "that the conic solver was checked at; the optimum is the closed form "
                                    "dgp_distribution (eq. 13's Gibbs law)")
    p = cp.Variable(len(weight), nonneg=True)
    objective = cp.Maximize((weight / temperature) @ p - cp.sum(cp.rel_entr(p, np.exp(log_gamma))))
    problem = cp.Problem(objective, [cp.sum(p) == 1])
    with warnings.catch_warnings():  # Clarabel stops at about 1e-9 on the exponential cone; the status says so
        warnings.simplefilter("ignore", UserWarning)
        problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    if problem.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE) or p.value is None:
        raise ConvergenceError(f"cvxpy (Clarabel) did not solve the variational problem (13): status {problem.status}")
    return VariationalSolution(probabilities=np.clip(p.value, 0.0, None), value=float(problem.value) * temperature,
                               solver=f"cvxpy/CLARABEL ({problem.status})")


@dataclass(frozen=True)
class WeightGapBound:
    """Corollary 2: the mean weight under π* against its lower bound.

    Attributes
    ----------
    expected_weight : float
        ``E_π*[W]``.
    max_weight : float
        ``W* = max_C W(C)`` (eq. 17).
    log_gamma_min : float
        ``min_C log γ_C`` over single configurations.
    bound : float
        ``W* + β min_C log γ_C``.
    objective : float
        ``F^(β)(π*)``, which lies between the bound and W* and tends to W* as β -> 0.
    holds : bool
        ``expected_weight >= bound``.

    Examples
    --------
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> from analytic.partitioning import weight_gap_bound
    >>> weight_gap_bound(FIGURE1_CLUSTER, FIGURE1_JOB, 1.5, 0.2).holds
    True
    """

    expected_weight: float
    max_weight: float
    log_gamma_min: float
    bound: float
    objective: float
    holds: bool


def weight_gap_bound(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob], queue_weights: Sequence[float] | float,
               beta: float) -> WeightGapBound:
    """Evaluate both sides of Corollary 2 for fixed weights ``w_A = q_j - b_A``.

    Parameters
    ----------
    cluster : Cluster
        Machines and their slots.
    jobs : GraphJob or sequence of GraphJob
        The job types.
    queue_weights : float or sequence of float
        q_j, one per type (a scalar is repeated).
    beta : float
        β > 0.

    Returns
    -------
    WeightGapBound
        ``E_π*[W] = W* + β E_π*[(W - W*)/β]`` with ``(W - W*)/β`` from exact rationals, so that
        it holds for any β > 0 and any weights whose maximum ``W*`` is a double.

    Raises
    ------
    InvalidParameterError
        β not positive and finite, weights not finite, or ``W*`` beyond the double range.

    Examples
    --------
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> check = weight_gap_bound(FIGURE1_CLUSTER, FIGURE1_JOB, 1.5, 0.2)
    >>> check.holds, round(check.max_weight, 12), round(check.expected_weight, 6), round(check.bound, 6)
    (True, 1.0, 0.042362, -3.042072)
    """
    gamma, tilt, best, temperature = _tilted(cluster, jobs, queue_weights, beta)
    p = dgp_distribution(cluster, jobs, queue_weights, beta).probabilities
    support = p > 0     # a state whose probability underflows adds nothing (its tilt may be -inf)
    mean = best + temperature * float(p[support] @ tilt[support])
    log_min = gamma.min_log_probability
    bound = best + temperature * log_min
    return WeightGapBound(expected_weight=mean, max_weight=best, log_gamma_min=log_min, bound=bound,
                      objective=variational_optimum(cluster, jobs, queue_weights, beta), holds=bool(mean >= bound))
