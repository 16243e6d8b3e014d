"""Templates of a graph on a cluster and their partition cost (Ghaderi, Shakkottai & Srikant, Section 2, eq. 2).

A template A of 𝒢_j is an injective map from the graph's nodes to the cluster's slots; its cost
``b_A`` (eq. 2) counts the edges whose ends sit on different machines (weighted by the edge weights
and the machine-pair costs when given). With ``F`` free slots there are

    ``|𝒜^(j)(C)| = C(F, |V_j|) |V_j|! = F! / (F - |V_j|)!``                  (proof of Prop. 1)

feasible templates (:func:`template_count`). The cost of a template depends only on which
*machine* each node lands on, so templates fall into classes ``(u, b)``: the load vector ``u``
(nodes per machine) and the cost ``b``. A class holds ``N(u, b)`` node-to-machine maps, each
realised by ``Π_ℓ (f_ℓ)_(u_ℓ)`` templates when machine ℓ has ``f_ℓ`` free slots (falling
factorials). :func:`template_classes` computes the classes by enumerating the ``L^|V|``
node-to-machine maps; :func:`templates` enumerates the templates themselves for small instances,
the brute-force reference the tests compare the classes with.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.partitioning.model import Cluster, GraphJob, check_jobs
from analytic.validation import integer, numeric_array

__all__ = ["TemplateClasses", "TemplateCosts", "cost_distribution", "falling_factorial", "max_template_cost",
           "partition_cost", "template_classes", "template_count", "templates"]

#: Largest number of node-to-machine maps (L^|V|) :func:`template_classes` enumerates by default.
MAX_ASSIGNMENTS = 4_000_000


#: Most decimal digits of an exact :func:`falling_factorial` (10^5! has 456 574 and takes 0.1 s; 10^6! takes 6 s).
MAX_DIGITS = 1_000_000


def falling_factorial(n: int, k: int) -> int:
    """``(n)_k = n (n-1) ... (n-k+1)``, exact; 0 when ``k > n``.

    Parameters
    ----------
    n, k : int
        Non-negative integers.

    Returns
    -------
    int


    Raises
    ------
    InvalidParameterError
        Negative or non-integer arguments, or a result of more than ``MAX_DIGITS`` digits.

    Examples
    --------
    >>> falling_factorial(12, 5)
    95040
    """
    n, k = integer("n", n, minimum=0), integer("k", k, minimum=0)
    if k > n:
        return 0
    digits = _log10_falling_factorial(n, k)
    if digits > MAX_DIGITS:
        raise InvalidParameterError("k", k, f"must leave (n)_k = ({n})_{k} at most {MAX_DIGITS} decimal digits "
                                    f"(it has about {digits:.3g}); use gammaln(n + 1) - gammaln(n - k + 1) for its logarithm")
    return math.perm(n, k)


def _log10_falling_factorial(n: int, k: int) -> float:
    """``log10 (n)_k`` for integers ``0 <= k <= n`` of any size, to a few per cent (``inf`` beyond the floats).

    Below 2^53, where the floats hold n exactly, ``lgamma(n + 1) - lgamma(n - k + 1)``. Beyond,
    ``k log10 n``: it exceeds the truth by ``-Σ_(i<k) log10(1 - i/n)``, under 0.2 digits for
    ``k <= 2^26`` and under 3 % of ``log10 n! ~ n (log10 n - 0.43)`` for any larger k (``log10 n > 15.9``).
    """
    if n < 2**53:
        return (math.lgamma(n + 1) - math.lgamma(n - k + 1)) / math.log(10)
    return k * math.log10(n) if k < 2**1000 else math.inf


def partition_cost(cluster: Cluster, job: GraphJob, template: Any) -> float | np.ndarray:
    """Cost ``b_A`` of partitioning a graph by a template (eq. 2).

    Parameters
    ----------
    cluster : Cluster
    job : GraphJob
    template : array_like of int, shape (``|V|``,) or (T, ``|V|``)
        The slot of each node (``template[x]`` for node x), distinct, in ``0 ... M-1``; slots are
        numbered machine by machine (:attr:`Cluster.machine_of_slot`). A 2-D array holds one
        template per row.

    Returns
    -------
    float or numpy.ndarray
        ``Σ_(x,y)∈E w_xy d[ℓ(A(x)), ℓ(A(y))]``: with unit weights and costs, the number of edges
        whose nodes sit on different machines. One value per row for a 2-D input.

    Raises
    ------
    InvalidParameterError
        The graph does not fit the cluster, or a template is not an injective map of the nodes
        into the slots.

    Examples
    --------
    A path 0-1-2 on two machines of two slots: nodes 0, 1 on machine 0 and node 2 on machine 1.

    >>> partition_cost(Cluster([2, 2]), GraphJob(3, [(0, 1), (1, 2)], 1.0, 1.0), [0, 1, 2])
    1.0
    """
    (job,) = check_jobs(cluster, job)
    slots = numeric_array("template", template, f"must give one integer slot per node ({job.nodes}) in each row")
    rows = np.atleast_2d(slots)
    if slots.ndim not in (1, 2) or rows.shape[1] != job.nodes or not np.issubdtype(rows.dtype, np.integer):
        raise InvalidParameterError("template", template, f"must give one integer slot per node ({job.nodes}) in each row")
    if rows.size and (rows.min() < 0 or rows.max() >= cluster.total_slots):
        raise InvalidParameterError("template", template, f"slots must lie in 0 ... {cluster.total_slots - 1}")
    ordered = np.sort(rows, axis=1)
    if (ordered[:, 1:] == ordered[:, :-1]).any():
        raise InvalidParameterError("template", template, "must be injective: two nodes cannot share a slot")
    costs = _costs(cluster, job, cluster.machine_of_slot[rows])
    return float(costs[0]) if slots.ndim == 1 else costs


def _costs(cluster: Cluster, job: GraphJob, machines: np.ndarray) -> np.ndarray:
    """Cost of each row of ``machines`` (the machine of every node), eq. (2)."""
    cost = np.zeros(len(machines))
    for (x, y), weight in zip(job.edges, job.edge_weights, strict=True):
        cost += weight * cluster.distance[machines[:, x], machines[:, y]]
    return cost


def template_count(cluster: Cluster, job: GraphJob, free: int | Sequence[int] | None = None) -> int:
    """Number of feasible templates ``|𝒜^(j)(C)| = F! / (F - |V_j|)!`` (proof of Prop. 1), exact.

    Parameters
    ----------
    cluster : Cluster
    job : GraphJob
    free : int or sequence of int, optional
        The free slots F of the configuration C: a total, or one count per machine (summed).
        Default: all M slots.

    Returns
    -------
    int
        ``C(F, |V|) |V|!``; 0 when the graph does not fit in the free slots.

    Raises
    ------
    InvalidParameterError
        ``free`` negative or above the cluster's slots.

    Examples
    --------
    Figure 1: a five-node graph on an empty cluster of three machines with four slots each.

    >>> template_count(Cluster([4, 4, 4]), GraphJob(5, [(0, 1)], 1.0, 1.0))
    95040
    """
    (job,) = check_jobs(cluster, job)
    if free is None:
        total = cluster.total_slots
    else:
        values = np.atleast_1d(numeric_array("free", free, "must be a non-negative integer or one per machine"))
        if not np.issubdtype(values.dtype, np.integer) or values.ndim != 1 or (values < 0).any():
            raise InvalidParameterError("free", free, "must be a non-negative integer or one per machine")
        if len(values) > 1 and (len(values) != cluster.machines or (values > cluster.slots).any()):
            raise InvalidParameterError("free", free,
                                        f"per machine, must have {cluster.machines} entries <= {cluster.slots.tolist()}")
        total = int(values.sum())
        if total > cluster.total_slots:
            raise InvalidParameterError("free", free, f"must be <= M = {cluster.total_slots}")
    return falling_factorial(total, job.nodes)


def templates(cluster: Cluster, job: GraphJob, max_templates: int = 2_000_000) -> np.ndarray:
    """Every template of a graph on an empty cluster, one row each (brute-force enumeration).

    Parameters
    ----------
    cluster : Cluster
        Machines and their slots.
    job : GraphJob
        The graph.
    max_templates : int
        Most templates enumerated.

    Returns
    -------
    numpy.ndarray, shape (M! / (M - ``|V|``)!, ``|V|``)
        ``row[x]`` is the slot of node x; rows in lexicographic order.

    Raises
    ------
    StateSpaceTooLargeError
        More than ``max_templates`` templates (the count is in the message).

    Examples
    --------
    >>> templates(Cluster([1, 2]), GraphJob(2, [(0, 1)], 1.0, 1.0)).tolist()
    [[0, 1], [0, 2], [1, 0], [1, 2], [2, 0], [2, 1]]
    """
    (job,) = check_jobs(cluster, job)
    count = template_count(cluster, job)
    if count > integer("max_templates", max_templates):
        raise StateSpaceTooLargeError(count, max_templates, "enumerating the templates")
    rows = np.zeros((1, 0), dtype=np.int64)
    for _ in range(job.nodes):
        used = np.zeros((len(rows), cluster.total_slots), dtype=bool)
        np.put_along_axis(used, rows, True, axis=1)
        parent, slot = np.nonzero(~used)
        rows = np.column_stack([rows[parent], slot])
    return rows


@dataclass(frozen=True, repr=False)
class TemplateClasses:
    """The templates of one graph grouped by load vector and cost.

    Attributes
    ----------
    loads : numpy.ndarray, shape (K, L)
        ``u``: nodes on each machine (each row sums to ``|V|``, ``u_ℓ <= |m_ℓ|``).
    costs : numpy.ndarray, shape (K,)
        ``b``, the partition cost of every template in the class (eq. 2).
    assignments : numpy.ndarray, shape (K,)
        ``N(u, b)``: node-to-machine maps with these loads and this cost.
    templates : tuple of int
        Templates of the class on the empty cluster, ``N(u, b) Π_ℓ (|m_ℓ|)_(u_ℓ)`` (exact).

    Examples
    --------
    >>> from analytic.partitioning import Cluster, GraphJob, template_classes
    >>> template_classes(Cluster([2, 2]), GraphJob(2, [(0, 1)], 1.0, 1.0)).costs.tolist()
    [0.0, 1.0, 0.0]
    """

    loads: np.ndarray
    costs: np.ndarray
    assignments: np.ndarray
    templates: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.costs)

    def __repr__(self) -> str:
        return (f"TemplateClasses(classes={len(self)}, templates={sum(self.templates)}, "
                f"costs={np.unique(self.costs).tolist()})")


def template_classes(cluster: Cluster, job: GraphJob, max_assignments: int = MAX_ASSIGNMENTS) -> TemplateClasses:
    """Group a graph's templates by load vector ``u`` and cost ``b`` (eq. 2), counting each class.

    Parameters
    ----------
    cluster : Cluster
    job : GraphJob
    max_assignments : int
        Limit on the ``L^|V|`` node-to-machine maps enumerated.

    Returns
    -------
    TemplateClasses
        Classes sorted by load vector then cost; their template counts add up to
        ``M! / (M - |V|)!`` (:func:`template_count`).

    Raises
    ------
    StateSpaceTooLargeError
        ``L^|V| > max_assignments``.

    Examples
    --------
    A path 0-1-2 on two machines of two slots: loads (2, 1) or (1, 2), cost 1 or 2.

    >>> classes = template_classes(Cluster([2, 2]), GraphJob(3, [(0, 1), (1, 2)], 1.0, 1.0))
    >>> classes.loads.tolist(), classes.costs.tolist(), classes.assignments.tolist()
    ([[1, 2], [1, 2], [2, 1], [2, 1]], [1.0, 2.0, 1.0, 2.0], [2, 1, 2, 1])
    """
    (job,) = check_jobs(cluster, job)
    size, nodes = cluster.machines, job.nodes
    count = size**nodes
    if count > integer("max_assignments", max_assignments):
        raise StateSpaceTooLargeError(count, max_assignments, "enumerating the node-to-machine maps (L^|V|)")
    machines = np.stack(np.unravel_index(np.arange(count), (size,) * nodes), axis=1) if nodes else np.zeros((1, 0), int)
    loads = np.zeros((count, size), dtype=np.int64)
    for x in range(nodes):
        loads[np.arange(count), machines[:, x]] += 1
    fits = (loads <= cluster.slots).all(axis=1)
    loads, costs = loads[fits], _costs(cluster, job, machines[fits])
    keys, assignments = np.unique(np.column_stack([loads, costs]), axis=0, return_counts=True)
    class_loads = keys[:, :size].astype(np.int64)
    per_map = [math.prod(falling_factorial(int(m), int(u)) for m, u in zip(cluster.slots, row, strict=True))
               for row in class_loads]
    return TemplateClasses(loads=class_loads, costs=keys[:, size].copy(), assignments=assignments.astype(np.int64),
                           templates=tuple(int(n) * p for n, p in zip(assignments, per_map, strict=True)))


@dataclass(frozen=True, repr=False)
class TemplateCosts:
    """Law of the partition cost of a template drawn uniformly (the Random Partition Procedure, Alg. 2, on an empty cluster).

    Attributes
    ----------
    costs : numpy.ndarray
        The distinct costs, increasing.
    counts : tuple of int
        Templates of each cost (exact).
    total : int
        All templates, ``M! / (M - |V|)!``.

    Examples
    --------
    >>> from analytic.partitioning import Cluster, GraphJob, cost_distribution
    >>> cost_distribution(Cluster([2, 2]), GraphJob(3, [(0, 1), (1, 2)], 1.0, 1.0)).counts
    (16, 8)
    """

    costs: np.ndarray
    counts: tuple[int, ...]
    total: int

    @property
    def probabilities(self) -> np.ndarray:
        """The fraction of the templates with each cost."""
        return np.array([count / self.total for count in self.counts])

    @property
    def mean(self) -> float:
        """Expected cost of a uniformly random template."""
        return float(self.costs @ self.probabilities)

    def __repr__(self) -> str:
        return f"TemplateCosts(costs={self.costs.tolist()}, counts={list(self.counts)}, total={self.total})"


def cost_distribution(cluster: Cluster, job: GraphJob, max_assignments: int = MAX_ASSIGNMENTS) -> TemplateCosts:
    """How many templates of a graph have each partition cost (eq. 2), from the template classes.

    Parameters
    ----------
    cluster : Cluster
        Machines and their slots.
    job : GraphJob
        The graph.
    max_assignments : int
        Most node-to-machine maps enumerated.

    Returns
    -------
    TemplateCosts


    Examples
    --------
    >>> cost_distribution(Cluster([2, 2]), GraphJob(3, [(0, 1), (1, 2)], 1.0, 1.0))
    TemplateCosts(costs=[1.0, 2.0], counts=[16, 8], total=24)
    """
    classes = template_classes(cluster, job, max_assignments)
    costs, inverse = np.unique(classes.costs, return_inverse=True)
    counts = [0] * len(costs)
    for k, n in zip(inverse.tolist(), classes.templates, strict=True):
        counts[k] += n
    return TemplateCosts(costs=costs, counts=tuple(counts), total=sum(counts))


def max_template_cost(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob]) -> float:
    """``b_max``, the largest partition cost of any template of any type (Theorem 2; at most ``M²``).

    Parameters
    ----------
    cluster : Cluster
        Machines and their slots.
    jobs : GraphJob or sequence of GraphJob
        The job types.

    Returns
    -------
    float

    Examples
    --------
    >>> max_template_cost(Cluster([2, 2]), GraphJob(3, [(0, 1), (1, 2)], 1.0, 1.0))
    2.0
    """
    return max(float(template_classes(cluster, job).costs.max()) for job in check_jobs(cluster, jobs))
