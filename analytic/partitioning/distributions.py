"""Stationary laws of configurations: the loss system's γ (14), DGP-bar's π* (15) and ADGP-bar's γ̂ (33).

Ghaderi, Shakkottai & Srikant, Proposition 1 and Proposition 4. With ``F(C) = M - Σ_j |C^(j)| |V_j|``
free slots,

    γ_C  ∝ F(C)! Π_j ρ_j^|C^(j)|                                   (14)
    π*_C ∝ γ_C exp( (1/β) Σ_j Σ_(A ∈ C^(j)) w_A ),  w_A = q_j - b_A  (15)
    γ̂_C ∝ F(C)! Π_j (λ̂/μ_j)^|C^(j)|                                (33)

γ is the law of the associated loss system (arrivals placed by the Random Partition Procedure or
dropped), π* that of DGP-bar with fixed weights ``w_A = q_j - b_A`` (``q_j = α f^(j)(h + Q)`` in
DGP, eq. 11), and γ̂ that of the loss system in which every type arrives at the ADGP clock rate λ̂;
ADGP-bar with fixed weights has ``γ̂ e^(W/β)`` (Prop. 4). All are computed in log space over the
reduced states of :mod:`.configurations` (a state's probability is the total over the
configurations it stands for), relative to the heaviest state with the queue part of the exponent
summed exactly, so they hold for any β > 0 and any finite weights, without overflow or absorption.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.special import gammaln, logsumexp

from analytic.errors import InvalidParameterError
from analytic.partitioning.configurations import Configurations, state_space
from analytic.partitioning.model import Cluster, GraphJob
from analytic.validation import integer, positive, real_array

__all__ = ["ConfigurationLaw", "adgp_distribution", "dgp_distribution", "loss_distribution", "queue_weight_vector"]


@dataclass(frozen=True, repr=False)
class ConfigurationLaw:
    """A probability law on the configurations of a cluster.

    Attributes
    ----------
    name : str
        Which law (and equation) it is.
    configurations : Configurations
        The reduced states the probabilities refer to.
    log_probabilities : numpy.ndarray, shape (S,)
        Log of each state's probability (the total over the configurations it stands for).
    log_normalizer : float
        ``log Z`` of the law over single configurations, e.g. ``log Z_γ`` of eq. (14); ``inf`` beyond
        the double range (``W*/β`` of eq. (15) can be).

    Examples
    --------
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> from analytic.partitioning import loss_distribution
    >>> law = loss_distribution(FIGURE1_CLUSTER, FIGURE1_JOB)   # γ of eq. (14)
    >>> law.expected_templates.round(12).tolist()   # Erlang's M/M/2/2 at load 1: 1 - E_2(1) = 0.8
    [0.8]
    """

    name: str
    configurations: Configurations
    log_probabilities: np.ndarray
    log_normalizer: float

    @property
    def probabilities(self) -> np.ndarray:
        """Probability of each state (sums to one)."""
        return np.exp(self.log_probabilities)

    @property
    def expected_templates(self) -> np.ndarray:
        """``E|C^(j)|`` for each type j: the mean number of templates (virtual or actual)."""
        return self.probabilities @ self.configurations.templates

    @property
    def expected_cost(self) -> float:
        """``E[Σ_j Σ_(A ∈ C^(j)) b_A]``, the mean partition cost of the configuration."""
        return float(self.probabilities @ self.configurations.cost)

    @property
    def min_log_probability(self) -> float:
        """``min_C log π_C`` over single configurations (γ_min of Corollary 2 and Theorem 2, in logs)."""
        return float((self.log_probabilities - self.configurations.log_multiplicity).min())

    def expected(self, values: np.ndarray) -> float:
        """``Σ_states p · values`` for values aligned with the states.

        Parameters
        ----------
        values : array_like, shape (S,)
            One value per state.

        Returns
        -------
        float

        Examples
        --------
        >>> from analytic.partitioning import loss_distribution
        >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
        >>> law = loss_distribution(FIGURE1_CLUSTER, FIGURE1_JOB)
        >>> round(law.expected(law.configurations.cost), 12) == round(law.expected_cost, 12)
        True
        """
        vector = real_array("values", values, ndim=1)
        if vector.shape != self.probabilities.shape:
            raise InvalidParameterError("values", values, f"must hold one value per state ({self.probabilities.size})")
        return float(self.probabilities @ vector)

    def cost_distribution(self) -> tuple[np.ndarray, np.ndarray]:
        """The law of the configuration's partition cost: distinct costs and their probabilities.

        Returns
        -------
        tuple of numpy.ndarray
            The distinct costs, increasing, and their probabilities.

        Examples
        --------
        >>> from analytic.partitioning import loss_distribution
        >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
        >>> costs, probabilities = loss_distribution(FIGURE1_CLUSTER, FIGURE1_JOB).cost_distribution()
        >>> costs[:3].tolist(), round(float(probabilities[0]), 12)   # cost 0: the empty cluster, 1/(1 + 1 + 1/2)
        ([0.0, 1.0, 2.0], 0.4)
        """
        costs, inverse = np.unique(self.configurations.cost, return_inverse=True)
        return costs, np.bincount(inverse, weights=self.probabilities, minlength=len(costs))

    def __repr__(self) -> str:
        return (f"ConfigurationLaw({self.name!r}, states={len(self.log_probabilities)}, "
                f"expected_templates={np.round(self.expected_templates, 10).tolist()}, "
                f"expected_cost={self.expected_cost:.10g})")


def queue_weight_vector(queue_weights: Sequence[float] | float, types: int) -> np.ndarray:
    """The queue weights ``q_j`` as a finite vector with one entry per type (a scalar is repeated).

    Parameters
    ----------
    queue_weights : float or sequence of float
        q_j.
    types : int
        Number of job types.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> queue_weight_vector(1.5, 2).tolist()
    [1.5, 1.5]
    """
    types = integer("types", types, meaning=" (job types)")
    q = real_array("queue_weights", queue_weights, " (one per job type)", allow_infinite=True, allow_nan=True)
    q = np.full(types, float(q)) if q.ndim == 0 else q
    if q.shape != (types,) or not np.all(np.isfinite(q)):
        raise InvalidParameterError("queue_weights", queue_weights, f"must be {types} finite numbers, one per job type")
    return q


def _law(name: str, space: Configurations, log_rates: np.ndarray, queue_weights: np.ndarray | None = None,
         temperature: float = 1.0) -> ConfigurationLaw:
    """Normalise ``n(c) F! Π_j r_j^|C^(j)| e^(W/β)`` over the states (``log_rates = log r_j``).

    ``W = Σ_j q_j |C^(j)| - Σ_A b_A`` (omitted without ``queue_weights``) enters through
    :func:`weight_tilt`, ``(W - W*)/β <= 0`` from exact rationals, and ``W*/β`` is added to
    ``log Z`` only at the end: at ``q/β = 1e101`` the costs (at most 10 on Figure 1's cluster) would
    vanish in the rounding of the exponents themselves (the plain log-sum-exp gave probabilities
    summing to 91), and at ``q = 1.7e308`` or ``β = 5e-324`` ``W`` or ``W/β`` leave the double range.
    The log-probabilities are accurate to a few ulps of their own size (``-inf`` where
    ``e^((W - W*)/β)`` underflows), whatever ``q`` and β; ``log Z`` is ``inf`` once it exceeds the
    double range.
    """
    log_weight = space.log_multiplicity + gammaln(space.free + 1.0) + space.templates @ log_rates
    top = 0.0
    if queue_weights is not None:
        tilt, best = weight_tilt(space, queue_weights, temperature)
        log_weight, top = log_weight + tilt, nearest_float(best / Fraction(temperature))
    heaviest = float(log_weight.max())
    relative = log_weight - heaviest
    total = float(logsumexp(relative))
    return ConfigurationLaw(name=name, configurations=space, log_probabilities=relative - total,
                            log_normalizer=top + heaviest + total)


def weight_tilt(space: Configurations, queue_weights: np.ndarray, temperature: float) -> tuple[np.ndarray, Fraction]:
    """``(W - W*)/β`` per state and ``W*`` (exact), for ``W = Σ_j q_j |C^(j)| - Σ_A b_A`` and ``W* = max W``.

    Summed and divided in exact rationals, then rounded once: half an ulp for any finite ``q`` and
    any β > 0, where ``W`` or ``W/β`` themselves overflow (``q = 1.7e308``, ``β = 5e-324``); ``-inf``
    below the double range. ``W* >= 0``: the empty configuration weighs 0.
    """
    rows, inverse = np.unique(np.column_stack([space.templates, space.cost]), axis=0, return_inverse=True)
    q = [Fraction(float(v)) for v in queue_weights]
    weights = [sum((w * int(n) for w, n in zip(q, row[:-1], strict=True)), -Fraction(float(row[-1]))) for row in rows]
    best, beta = max(weights), Fraction(temperature)
    tilt = np.array([nearest_float((w - best) / beta) for w in weights])
    return tilt[inverse.ravel()], best


def nearest_float(value: Fraction) -> float:
    """The float nearest a rational, ``±inf`` beyond the double range."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def loss_distribution(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob]) -> ConfigurationLaw:
    """γ of eq. (14): the stationary law of the associated loss system (Prop. 1, remark (iii)).

    Parameters
    ----------
    cluster : Cluster
    jobs : GraphJob or sequence of GraphJob
        The job types; only their loads ``ρ_j`` enter.

    Returns
    -------
    ConfigurationLaw
        Probabilities of the reduced states, expected templates and cost, ``log Z_γ``.

    Raises
    ------
    InvalidParameterError
        Bad cluster or jobs (a graph larger than the cluster).
    StateSpaceTooLargeError
        Too many configurations to enumerate.

    Examples
    --------
    Figure 1 at ρ = 1: the configuration is empty, holds one graph or two with weights
    ``12!, 12!, 12!/2``, so the loss system holds 0.8 graphs on average, at a mean cost of 2.909.

    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> law = loss_distribution(FIGURE1_CLUSTER, FIGURE1_JOB)
    >>> round(float(law.expected_templates[0]), 12), round(law.expected_cost, 6)
    (0.8, 2.909091)
    """
    space = state_space(cluster, jobs)
    rates = np.log([job.offered_load for job in space.jobs])
    return _law("loss system γ (14)", space, rates)


def dgp_distribution(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob], queue_weights: Sequence[float] | float,
                     beta: float) -> ConfigurationLaw:
    """π* of eq. (15): DGP-bar's stationary law with fixed weights ``w_A = q_j - b_A`` (Prop. 1).

    Parameters
    ----------
    cluster : Cluster
    jobs : GraphJob or sequence of GraphJob
    queue_weights : float or sequence of float
        ``q_j``, the queue part of the weight of a type-j template (in DGP, ``α f^(j)(h + Q)`` of
        eq. 11; see :func:`~.weights.dgp_queue_weights`). A scalar applies to every type.
    beta : float
        The temperature β > 0.

    Returns
    -------
    ConfigurationLaw
        ``π*`` over the reduced states, computed in log space (any β > 0).

    Raises
    ------
    InvalidParameterError
        β not positive and finite, or weights not finite.

    Examples
    --------
    With a large queue weight and a small β the cluster holds two templates of cost 1 each.

    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> law = dgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, queue_weights=3.0, beta=0.05)
    >>> round(float(law.expected_templates[0]), 6), round(law.expected_cost, 6)
    (2.0, 2.0)
    """
    space = state_space(cluster, jobs)
    temperature = positive("beta", beta)
    q = queue_weight_vector(queue_weights, len(space.jobs))
    rates = np.log([job.offered_load for job in space.jobs])
    return _law(f"DGP-bar π* (15), β = {temperature:g}", space, rates, q, temperature)


def adgp_distribution(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob], clock_rate: float,
                      queue_weights: Sequence[float] | float | None = None, beta: float | None = None) -> ConfigurationLaw:
    """γ̂ of eq. (33), or ADGP-bar's stationary law ``γ̂ e^(W/β)`` with fixed weights (Prop. 4).

    Parameters
    ----------
    cluster : Cluster
    jobs : GraphJob or sequence of GraphJob
        Only the service rates ``μ_j`` enter.
    clock_rate : float
        λ̂ > 0, the base rate of the dedicated clocks of Algorithm 4.
    queue_weights : float or sequence of float, optional
        ``q_j = α f^(j)(h + Q)``; with ``beta``, the law of ADGP-bar (clock of queue j at rate
        ``λ̂ e^(q_j/β)``, templates kept with probability ``e^(-b_A/β)``). Omitted: γ̂ itself.
    beta : float, optional
        β > 0, required with ``queue_weights``.

    Returns
    -------
    ConfigurationLaw

    Raises
    ------
    InvalidParameterError
        A non-positive rate or β, or weights without β.

    Examples
    --------
    γ̂ is the loss system γ with every arrival rate replaced by λ̂:

    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> round(adgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, clock_rate=1.0).expected_cost, 6)
    2.909091
    """
    space = state_space(cluster, jobs)
    rate = positive("clock_rate", clock_rate)
    rates = np.log([rate / job.service_rate for job in space.jobs])
    if queue_weights is None:
        if beta is not None:
            raise InvalidParameterError("beta", beta, "applies only with queue_weights (γ̂ itself has no temperature)")
        return _law(f"ADGP loss system γ̂ (33), λ̂ = {rate:g}", space, rates)
    if beta is None:
        raise InvalidParameterError("beta", beta, "must be given with queue_weights")
    temperature = positive("beta", beta)
    q = queue_weight_vector(queue_weights, len(space.jobs))
    return _law(f"ADGP-bar γ̂ e^(W/β) (Prop. 4), β = {temperature:g}", space, rates, q, temperature)
