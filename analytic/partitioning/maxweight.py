"""The Max-Weight configuration of the frame-based algorithm (Ghaderi, Shakkottai & Srikant, Algorithm 1, eq. 10).

At the start of each frame Algorithm 1 installs a configuration solving

    max_(C ∈ 𝒞) Σ_j Σ_(A ∈ C^(j)) (α f(Q^(j)) - b_A)                    (10)

and eq. (17) is the same problem for any fixed weights ``w_A = q_j - b_A``. Since the weight of a
configuration depends only on its template counts ``n`` and cost, the maximum is
``max_n (q·n - c(n))`` over the cheapest packings ``c(n)`` of :func:`~.static.cheapest_packings`
(exhaustive, hence exact; the problem is NP-hard in general, as the paper says).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from analytic.errors import InvalidParameterError
from analytic.partitioning.distributions import queue_weight_vector
from analytic.partitioning.model import Cluster, GraphJob, check_jobs
from analytic.partitioning.static import Packings, cheapest_packings
from analytic.validation import positive, real_array, user_code

__all__ = ["MaxWeight", "max_weight", "max_weight_configuration"]


@dataclass(frozen=True, repr=False)
class MaxWeight:
    """A maximum-weight configuration.

    Attributes
    ----------
    weight : float
        ``W* = max_C Σ_j Σ_(A ∈ C^(j)) w_A`` (>= 0: the empty configuration weighs 0).
    templates : tuple of int
        Templates of each type in the maximiser returned.
    cost : float
        Its partition cost.
    configuration : list of (int, tuple of int, float)
        Its templates as (type, nodes per machine, cost).
    ties : int
        Number of template-count vectors attaining ``W*`` (Algorithm 1 picks one at random).
    queue_weights : numpy.ndarray
        The ``q_j`` used.

    Examples
    --------
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> from analytic.partitioning import max_weight_configuration
    >>> max_weight_configuration(FIGURE1_CLUSTER, FIGURE1_JOB, [5], alpha=1.0).templates
    (2,)
    """

    weight: float
    templates: tuple[int, ...]
    cost: float
    configuration: list
    ties: int
    queue_weights: np.ndarray

    def __repr__(self) -> str:
        return (f"MaxWeight(weight={self.weight:.12g}, templates={self.templates}, cost={self.cost:.12g}, "
                f"configuration={self.configuration}, ties={self.ties})")


def max_weight(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob], queue_weights: Sequence[float] | float) -> MaxWeight:
    """A configuration of maximum weight for fixed weights ``w_A = q_j - b_A`` (eq. 17).

    Parameters
    ----------
    cluster : Cluster
    jobs : GraphJob or sequence of GraphJob
    queue_weights : float or sequence of float
        ``q_j`` per type (a scalar applies to all).

    Returns
    -------
    MaxWeight

    Raises
    ------
    InvalidParameterError
        Non-finite weights, or weights so large that a configuration's weight overflows.

    Examples
    --------
    Figure 1 with weight 1.5 per graph: two graphs split 4 + 1 weigh 2 (1.5 - 1) = 1.

    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> max_weight(FIGURE1_CLUSTER, FIGURE1_JOB, 1.5)
    MaxWeight(weight=1, templates=(2,), cost=2, configuration=[(0, (0, 1, 4), 1.0), (0, (4, 1, 0), 1.0)], ties=1)
    """
    packings = cheapest_packings(cluster, jobs)
    return _heaviest(packings, queue_weight_vector(queue_weights, packings.templates.shape[1]), "queue_weights", queue_weights)


def _heaviest(packings: Packings, q: np.ndarray, name: str, value: object) -> MaxWeight:
    """The maximiser of ``q·n - c(n)`` over the packings; ``name = value`` is blamed if a weight overflows."""
    with np.errstate(over="ignore", invalid="ignore"):  # an infinite q_j times no template is NaN: refused below
        weights = packings.templates @ q - packings.cost
    if not np.all(np.isfinite(weights)):
        raise InvalidParameterError(name, value, "must keep every configuration's weight q·n - b finite (q = "
                                    f"{q.tolist()} on up to {int(packings.templates.sum(axis=1).max())} templates "
                                    "overflows a double)")
    best = float(weights.max())
    winners = np.flatnonzero(weights >= best - 1e-12 * max(1.0, abs(best)))
    i = int(winners[0])
    return MaxWeight(weight=best, templates=tuple(int(n) for n in packings.templates[i]), cost=float(packings.cost[i]),
                     configuration=packings.configurations.describe(int(packings.state[i])), ties=len(winners),
                     queue_weights=q)


def max_weight_configuration(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob], queues: Sequence[float],
                             alpha: float, f: Callable[[np.ndarray], np.ndarray] = np.log1p) -> MaxWeight:
    """The configuration Algorithm 1 installs at a frame epoch: eq. (10) with weights ``α f(Q^(j)) - b_A``.

    Parameters
    ----------
    cluster : Cluster
    jobs : GraphJob or sequence of GraphJob
    queues : sequence of float
        ``Q^(j)(kT)`` >= 0, jobs of each type in the system at the epoch.
    alpha : float
        α > 0, the trade-off parameter.
    f : callable
        A concave increasing function ``R+ -> R+`` applied elementwise (default ``log(1 + x)``).

    Returns
    -------
    MaxWeight

    Raises
    ------
    InvalidParameterError
        Negative queues, non-positive α, ``f`` returning non-finite values, or weights α f(Q) so large that
        a configuration's weight overflows.

    Examples
    --------
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> max_weight_configuration(FIGURE1_CLUSTER, FIGURE1_JOB, [1], alpha=1.0).templates   # log 2 < 1: keep none
    (0,)
    >>> max_weight_configuration(FIGURE1_CLUSTER, FIGURE1_JOB, [5], alpha=1.0).templates   # log 6 > 1
    (2,)
    """
    types = check_jobs(cluster, jobs)
    q = real_array("queues", queues, allow_infinite=True, allow_nan=True)
    if q.shape != (len(types),) or not np.all(np.isfinite(q)) or (q < 0).any():
        raise InvalidParameterError("queues", queues, f"must be {len(types)} finite numbers >= 0, one per job type")
    scale = positive("alpha", alpha)
    if not callable(f):
        raise InvalidParameterError("f", f, "must be a function of the queue vector (e.g. numpy.log1p)")
    with user_code("f", q, "f maps the queue vector to finite values, elementwise"):
        returned = f(q)
    values = real_array("f", returned, " (its values at the queues)", allow_infinite=True, allow_nan=True)
    if values.shape != q.shape or not np.all(np.isfinite(values)):
        raise InvalidParameterError("f", f, f"must map the queues {q.tolist()} to finite values, elementwise")
    with np.errstate(over="ignore"):
        q = scale * values
    return _heaviest(cheapest_packings(cluster, types), q, "alpha", alpha)
