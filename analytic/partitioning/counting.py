"""How many configurations a cluster has, counted before any is enumerated (Section 2, eq. 3).

The template classes of every job type (:func:`~analytic.partitioning.class_table`), the
permutations of identical machines (:func:`~analytic.partitioning.machine_symmetries`) and a
dynamic program over the used capacity that counts the count vectors and, by Burnside's lemma,
their orbits (:func:`~analytic.partitioning.configuration_count`), so that
:func:`~analytic.partitioning.configurations` can refuse a space too large before building it.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.partitioning.model import Cluster, GraphJob, check_cluster, check_jobs
from analytic.partitioning.templates import template_classes
from analytic.validation import flag, integer

__all__ = ["ClassTable", "ConfigurationCount", "class_table", "configuration_count", "machine_symmetries"]

#: Largest group of machine permutations used for the reduction (6! = 720: six identical machines).
MAX_SYMMETRIES = 720

#: Largest ``limit`` of :func:`machine_symmetries`: candidates are tried one at a time (about 10 µs each).
MAX_SYMMETRY_LIMIT = 1_000_000

#: Largest capacity lattice ``Π_ℓ (|m_ℓ| + 1)`` on which configurations are counted before enumeration.
MAX_LATTICE = 2_000_000



@dataclass(frozen=True, repr=False)
class ClassTable:
    """The template classes of all job types, one row per class ``(j, u, b)``.

    Attributes
    ----------
    job : numpy.ndarray, shape (K,)
        Type index j of each class.
    loads : numpy.ndarray, shape (K, L)
        Nodes per machine ``u``.
    costs : numpy.ndarray, shape (K,)
        Partition cost ``b`` (eq. 2).
    assignments : numpy.ndarray, shape (K,)
        ``N_k``, node-to-machine maps in the class.
    nodes : numpy.ndarray, shape (K,)
        ``|V_j|`` of the class's type.

    Examples
    --------
    >>> from analytic.partitioning import Cluster, GraphJob, class_table
    >>> table = class_table(Cluster([2, 2]), GraphJob(2, [(0, 1)], 1.0, 1.0))
    >>> table.costs.tolist()   # both nodes on machine 0, split, both on machine 1
    [0.0, 1.0, 0.0]
    """

    job: np.ndarray
    loads: np.ndarray
    costs: np.ndarray
    assignments: np.ndarray
    nodes: np.ndarray

    def __len__(self) -> int:
        return len(self.job)

    def __repr__(self) -> str:
        return f"ClassTable(classes={len(self)}, types={int(self.job.max()) + 1})"


def class_table(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob], cheapest: bool = False) -> ClassTable:
    """The classes of every job type (:func:`~.templates.template_classes`), concatenated.

    ``cheapest=True`` keeps, for each type and load vector, only the cheapest class: a template can
    always be exchanged for a cheaper one with the same load vector without touching the others, so
    optimisation over configurations (Definition 2, eq. 10) never needs the others.

    Parameters
    ----------
    cluster : Cluster
        Machines and their slots.
    jobs : GraphJob or sequence of GraphJob
        The job types.
    cheapest : bool
        Keep only the cheapest class of each load vector.

    Returns
    -------
    ClassTable


    Examples
    --------
    >>> from analytic.partitioning.model import GraphJob
    >>> class_table(Cluster([2, 2]), [GraphJob(2, [(0, 1)], 1.0, 1.0), GraphJob(1, [], 1.0, 1.0)])
    ClassTable(classes=5, types=2)
    """
    types = check_jobs(cluster, jobs)
    cheapest = flag("cheapest", cheapest)
    parts = []
    for j, job in enumerate(types):
        classes = template_classes(cluster, job)
        keep = np.ones(len(classes), dtype=bool)
        if cheapest:  # classes are sorted by load vector, then cost: keep the first of each load vector
            keep[1:] = (classes.loads[1:] != classes.loads[:-1]).any(axis=1)
        parts.append((np.full(keep.sum(), j), classes.loads[keep], classes.costs[keep], classes.assignments[keep],
                      np.full(keep.sum(), job.nodes)))
    job, loads, costs, assignments, nodes = (np.concatenate(column) for column in zip(*parts, strict=True))
    return ClassTable(job=job, loads=loads, costs=costs, assignments=assignments, nodes=nodes)


def machine_symmetries(cluster: Cluster, limit: int = MAX_SYMMETRIES) -> np.ndarray:
    """Permutations σ of the machines that preserve slot counts and the distance matrix.

    Parameters
    ----------
    cluster : Cluster
    limit : int
        Largest candidate group tried, at most ``MAX_SYMMETRY_LIMIT``.

    Returns
    -------
    numpy.ndarray, shape (G, L)
        One permutation per row (``σ[ℓ]`` is the image of machine ℓ), the identity first. When the
        candidate group (permutations within groups of equal slot counts) has more than ``limit``
        elements only the identity is returned: the reduction is then by identical slots only.

    Examples
    --------
    >>> machine_symmetries(Cluster([4, 4, 2])).tolist()
    [[0, 1, 2], [1, 0, 2]]
    """
    check_cluster(cluster)
    limit = integer("limit", limit)
    if limit > MAX_SYMMETRY_LIMIT:
        raise InvalidParameterError("limit", limit, f"must be at most {MAX_SYMMETRY_LIMIT} (the candidate permutations "
                                    "are checked one at a time)")
    groups = [np.flatnonzero(cluster.slots == s) for s in np.unique(cluster.slots)]
    if math.prod(math.factorial(len(g)) for g in groups) > limit:
        return np.arange(cluster.machines)[None, :]
    found = []
    for images in itertools.product(*(itertools.permutations(g) for g in groups)):
        sigma = np.empty(cluster.machines, dtype=np.int64)
        for group, image in zip(groups, images, strict=True):
            sigma[group] = image
        if np.array_equal(cluster.distance[np.ix_(sigma, sigma)], cluster.distance):
            found.append(sigma)
    found.sort(key=lambda s: (not np.array_equal(s, np.arange(cluster.machines)), s.tolist()))
    return np.array(found)


def class_permutations(table: ClassTable, symmetries: np.ndarray) -> np.ndarray:
    """``perm[g, k]``: the class that σ_g maps class k to (σ sends machine ℓ's nodes to σ[ℓ])."""
    index = {(int(j), tuple(u), float(b)): k for k, (j, u, b) in
             enumerate(zip(table.job, table.loads.tolist(), table.costs, strict=True))}
    perm = np.empty((len(symmetries), len(table)), dtype=np.int64)
    for g, sigma in enumerate(symmetries):
        for k, (j, u, b) in enumerate(zip(table.job, table.loads, table.costs, strict=True)):
            image = np.empty_like(u)
            image[sigma] = u
            perm[g, k] = index[int(j), tuple(image.tolist()), float(b)]
    return perm


@dataclass(frozen=True)
class ConfigurationCount:
    """How many states an enumeration would produce, counted without enumerating.

    Attributes
    ----------
    count_vectors : int
        Feasible count vectors (configurations up to identical slots).
    orbits : int
        Count vectors up to the machine symmetries as well (Burnside's lemma): the states stored.
    symmetries : int
        Order of the group of machine permutations used.

    Examples
    --------
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> from analytic.partitioning import configuration_count
    >>> configuration_count(FIGURE1_CLUSTER, FIGURE1_JOB).orbits
    105
    """

    count_vectors: int
    orbits: int
    symmetries: int


def _shift(array: np.ndarray, step: np.ndarray) -> np.ndarray:
    """``out[x] = array[x - step]`` (zero where ``x - step`` leaves the lattice)."""
    out = np.zeros_like(array)
    if (step >= np.array(array.shape)).any():
        return out
    out[tuple(slice(s, None) for s in step)] = array[tuple(slice(0, n - s) for n, s in zip(array.shape, step, strict=True))]
    return out


def _count_multisets(loads: np.ndarray, capacity: np.ndarray) -> int:
    """Count vectors ``c >= 0`` with ``Σ_k c_k loads[k] <= capacity`` (knapsack over the used-capacity lattice)."""
    ways = np.zeros(tuple(capacity + 1), dtype=float)
    ways[(0,) * len(capacity)] = 1.0
    for step in loads:
        total, term = ways.copy(), ways
        while True:
            term = _shift(term, step)
            if not term.any():
                break
            total += term
        ways = total
    return round(float(ways.sum()))


def configuration_count(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob], symmetry: bool = True,
                        cheapest: bool = False) -> ConfigurationCount:
    """Count the states :func:`~analytic.partitioning.configurations` would enumerate, by dynamic programming (no enumeration).

    The count vectors are counted by a knapsack recursion over the used capacity (a lattice of
    ``Π_ℓ (|m_ℓ| + 1)`` points); the orbits under the machine symmetries by Burnside's lemma,
    ``(1/|G|) Σ_σ #{c : c∘σ = c}``, a count vector fixed by σ being constant on the cycles of σ's
    action on the classes.

    Parameters
    ----------
    cluster : Cluster
        Machines and their slots.
    jobs : GraphJob or sequence of GraphJob
        The job types.
    symmetry : bool
        Count the orbits under the machine symmetries too.
    cheapest : bool
        As in :func:`class_table`.

    Returns
    -------
    ConfigurationCount


    Raises
    ------
    StateSpaceTooLargeError
        The capacity lattice has more than ``MAX_LATTICE`` points.

    Examples
    --------
    Figure 1's cluster with a five-node graph: empty, one template (60 classes) or two.

    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> configuration_count(FIGURE1_CLUSTER, FIGURE1_JOB)
    ConfigurationCount(count_vectors=523, orbits=105, symmetries=6)
    """
    table = class_table(cluster, jobs, cheapest)
    symmetry = flag("symmetry", symmetry)
    lattice = int(np.prod(cluster.slots + 1))
    if lattice > MAX_LATTICE:
        raise StateSpaceTooLargeError(lattice, MAX_LATTICE, "counting configurations on the capacity lattice")
    symmetries = machine_symmetries(cluster) if symmetry else np.arange(cluster.machines)[None, :]
    perms = class_permutations(table, symmetries)
    fixed = []
    for perm in perms:
        cycles, seen = [], np.zeros(len(table), dtype=bool)
        for k in range(len(table)):
            if not seen[k]:
                members = [k]
                while perm[members[-1]] != k:
                    members.append(int(perm[members[-1]]))
                seen[members] = True
                cycles.append(table.loads[members].sum(axis=0))
        fixed.append(_count_multisets(np.array(cycles).reshape(-1, cluster.machines), cluster.slots))
    return ConfigurationCount(count_vectors=fixed[0], orbits=sum(fixed) // len(perms), symmetries=len(perms))
