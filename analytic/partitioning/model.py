"""The cluster of slotted machines and the graph-structured job types (Ghaderi, Shakkottai & Srikant, Section 2).

A cluster is a collection of machines ℓ, machine ℓ holding ``|m_ℓ|`` slots (``M = Σ_ℓ |m_ℓ|`` in all).
A job type 𝒢_j is a graph: each node needs a slot of its own, each edge is a data flow whose cost is
paid when its two nodes sit on different machines. Jobs of type j arrive as a Poisson process of
rate λ_j and stay for an exponential time of mean 1/μ_j; ``ρ_j = λ_j/μ_j``.

The paper prices every broken edge at 1 and notes that per-edge weights and a machine-pair cost
matrix leave the analysis unchanged ("we only need to redefine the appropriate cost in (2)"): a
:class:`GraphJob` may carry ``edge_weights`` and a :class:`Cluster` a ``distance`` matrix, and the
cost of a template is then ``Σ_(x,y)∈E w_xy d[ℓ(x), ℓ(y)]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from analytic._deprecation import renamed_attribute
from analytic.errors import InvalidParameterError
from analytic.memory import require
from analytic.validation import instances, integer, numeric_array, positive, real_array

__all__ = ["Cluster", "GraphJob", "check_jobs"]


def _readonly(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False, repr=False)
class Cluster:
    """Machines with slots, and the cost of a data flow between two machines.

    Parameters
    ----------
    slots : sequence of int
        ``|m_ℓ|``, the number of slots of each machine (each >= 1; at least one machine).
    distance : array_like, shape (L, L), optional
        Cost of one unit of data flow from machine ℓ to machine ℓ' (finite, >= 0, zero on the
        diagonal: flows inside a machine are free). Default: 1 between any two machines, the
        paper's unit cost of a broken edge (eq. 2).

    Attributes
    ----------
    slots : numpy.ndarray
        Slots per machine (read-only).
    distance : numpy.ndarray
        The machine-pair cost matrix (read-only).
    machines : int
        L, the number of machines.
    total_slots : int
        ``M = Σ_ℓ |m_ℓ|``.
    machine_of_slot : numpy.ndarray
        Machine of each slot; slots are numbered machine by machine, ``0 ... M-1``.

    Raises
    ------
    InvalidParameterError
        No machine, a machine without slots, or a distance matrix of the wrong shape, negative,
        not finite, or non-zero on the diagonal.

    Examples
    --------
    Figure 1's cluster: three machines of four slots each.

    >>> Cluster([4, 4, 4])
    Cluster(slots=[4, 4, 4])
    >>> Cluster([4, 4, 4]).machine_of_slot.tolist()
    [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]
    """

    slots: Any
    distance: Any = None
    machine_of_slot: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        raw = numeric_array("slots", self.slots, "must be a non-empty sequence of slot counts, one per machine")
        if raw.ndim != 1 or raw.size == 0:
            raise InvalidParameterError("slots", self.slots, "must be a non-empty sequence of slot counts, one per machine")
        entries = self.slots if isinstance(self.slots, list | tuple) else raw.tolist()   # as given: one float entry
        counts = [integer(f"slots[{i}]", value) for i, value in enumerate(entries)]       # must not blame the others
        require(8 * sum(counts), f"the table of {sum(counts):,} slots", sum(counts))
        slots = _readonly(np.array(counts, dtype=np.int64))
        size = len(slots)
        if self.distance is None:
            distance = 1.0 - np.eye(size)
        else:
            distance = real_array("distance", self.distance, allow_infinite=True, allow_nan=True)
            if distance.shape != (size, size):
                raise InvalidParameterError("distance", self.distance, f"must be a {size} x {size} matrix (one row per machine)")
            if not np.all(np.isfinite(distance)) or (distance < 0).any():
                raise InvalidParameterError("distance", self.distance, "must hold finite costs >= 0")
            if np.any(np.diag(distance) != 0):
                raise InvalidParameterError("distance", self.distance,
                                            "must be 0 on the diagonal (flows inside a machine are free)")
        object.__setattr__(self, "slots", slots)
        object.__setattr__(self, "distance", _readonly(distance))
        object.__setattr__(self, "machine_of_slot", _readonly(np.repeat(np.arange(size), slots)))

    @property
    def machines(self) -> int:
        """L, the number of machines."""
        return len(self.slots)

    @property
    def total_slots(self) -> int:
        """M, the slots of all machines."""
        return int(self.slots.sum())

    @property
    def unit_costs(self) -> bool:
        """Whether every pair of distinct machines costs 1 (the paper's model)."""
        return bool(np.array_equal(self.distance, 1.0 - np.eye(self.machines)))

    def __repr__(self) -> str:
        extra = "" if self.unit_costs else f", distance={self.distance.tolist()}"
        return f"Cluster(slots={self.slots.tolist()}{extra})"


@dataclass(frozen=True, eq=False, repr=False)
class GraphJob:
    """A job type 𝒢_j: a graph of compute tasks with its arrival and service rates.

    Parameters
    ----------
    nodes : int
        ``|V_j|``, the number of nodes (tasks), numbered ``0 ... nodes-1``; each needs one slot.
    edges : sequence of (int, int)
        The data flows, as pairs of distinct node numbers; no pair may repeat (give a heavier flow a
        larger edge weight instead).
    arrival_rate : float
        λ_j > 0, jobs per unit time (Poisson arrivals).
    service_rate : float
        μ_j > 0; a job stays an exponential time of mean 1/μ_j.
    edge_weights : sequence of float, optional
        Cost of breaking each edge (finite, >= 0), in the order of ``edges``; default 1 each.
    name : str
        A label used in reprs and plots.

    Attributes
    ----------
    load : float
        ``ρ_j = λ_j / μ_j``.

    Raises
    ------
    InvalidParameterError
        A non-positive node count or rate, an edge naming a missing node, a self-loop, a repeated
        edge, or bad edge weights.

    Examples
    --------
    >>> job = GraphJob(3, [(0, 1), (1, 2)], arrival_rate=0.5, service_rate=1.0)
    >>> job
    GraphJob(nodes=3, edges=[(0, 1), (1, 2)], arrival_rate=0.5, service_rate=1)
    >>> job.offered_load
    0.5
    >>> GraphJob(3, [(0, 3)], 1.0, 1.0)
    Traceback (most recent call last):
    ...
    analytic.errors.InvalidParameterError: edges = [(0, 3)]: edge 0 = (0, 3) names a node outside 0 ... 2
    """

    nodes: int
    edges: Any
    arrival_rate: float
    service_rate: float
    edge_weights: Any = None
    name: str = ""

    def __post_init__(self) -> None:
        nodes = integer("nodes", self.nodes)
        pairs = _validate_edges(self.edges, nodes)
        if self.edge_weights is None:
            weights = np.ones(len(pairs))
        else:
            weights = real_array("edge_weights", self.edge_weights, allow_infinite=True, allow_nan=True).ravel()
            if weights.shape != (len(pairs),):
                raise InvalidParameterError("edge_weights", self.edge_weights, f"must hold one weight per edge ({len(pairs)})")
            if not np.all(np.isfinite(weights)) or (weights < 0).any():
                raise InvalidParameterError("edge_weights", self.edge_weights, "must be finite and >= 0")
        object.__setattr__(self, "nodes", nodes)
        object.__setattr__(self, "edges", _readonly(pairs))
        object.__setattr__(self, "edge_weights", _readonly(weights))
        object.__setattr__(self, "arrival_rate", positive("arrival_rate", self.arrival_rate))
        object.__setattr__(self, "service_rate", positive("service_rate", self.service_rate))

    @property
    def offered_load(self) -> float:
        """ρ_j = λ_j/μ_j, the offered load in Erlangs: the mean number of jobs of this type a system
        without limits would hold."""
        return self.arrival_rate / self.service_rate

    load = renamed_attribute("offered_load")

    def __repr__(self) -> str:
        name = f"{self.name!r}, " if self.name else ""
        edges = [tuple(e) for e in self.edges.tolist()]
        weights = "" if np.all(self.edge_weights == 1) else f", edge_weights={self.edge_weights.tolist()}"
        return (f"GraphJob({name}nodes={self.nodes}, edges={edges}, arrival_rate={self.arrival_rate:.10g}, "
                f"service_rate={self.service_rate:.10g}{weights})")


def _validate_edges(edges: Any, nodes: int) -> np.ndarray:
    try:
        pairs = [tuple(edge) for edge in edges]
    except TypeError:
        raise InvalidParameterError("edges", edges, "must be a sequence of (node, node) pairs") from None
    seen = set()
    for k, pair in enumerate(pairs):
        if len(pair) != 2 or not all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in pair):
            raise InvalidParameterError("edges", edges, f"edge {k} = {pair!r} must be a pair of integer node numbers")
        x, y = int(pair[0]), int(pair[1])
        if not (0 <= x < nodes and 0 <= y < nodes):
            raise InvalidParameterError("edges", edges, f"edge {k} = ({x}, {y}) names a node outside 0 ... {nodes - 1}")
        if x == y:
            raise InvalidParameterError("edges", edges, f"edge {k} = ({x}, {y}) joins a node to itself")
        if frozenset((x, y)) in seen:
            raise InvalidParameterError("edges", edges, f"edge {k} = ({x}, {y}) repeats an earlier edge; use edge_weights")
        seen.add(frozenset((x, y)))
    return np.array(pairs, dtype=np.int64).reshape(len(pairs), 2)


def check_cluster(cluster: object) -> Cluster:
    """``cluster``, which must be a :class:`Cluster`."""
    if not isinstance(cluster, Cluster):
        raise InvalidParameterError("cluster", cluster, "must be a Cluster")
    return cluster


def check_jobs(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob]) -> tuple[GraphJob, ...]:
    """The job types as a tuple, checked against the cluster (each graph must fit in its slots).

    Parameters
    ----------
    cluster : Cluster
        Machines and their slots.
    jobs : GraphJob or sequence of GraphJob
        The job types.

    Returns
    -------
    tuple of GraphJob


    Raises
    ------
    InvalidParameterError
        ``cluster`` is not a :class:`Cluster`, ``jobs`` is empty or holds a non-:class:`GraphJob`,
        or a graph has more nodes than the cluster has slots.

    Examples
    --------
    >>> check_jobs(Cluster([2, 2]), GraphJob(5, [], 1.0, 1.0))
    Traceback (most recent call last):
    ...
    analytic.errors.InvalidParameterError: jobs[0].nodes = 5: must be <= M = 4, the slots of the cluster (one per node)
    """
    check_cluster(cluster)
    types = instances("jobs", jobs, GraphJob)
    for j, job in enumerate(types):
        if job.nodes > cluster.total_slots:
            raise InvalidParameterError(f"jobs[{j}].nodes", job.nodes,
                                        f"must be <= M = {cluster.total_slots}, the slots of the cluster (one per node)")
    return types
