"""Configurations of a cluster, enumerated up to the symmetry of identical slots and machines (Section 2, eq. 3).

A configuration C is a set of templates, at most one per slot (``C^(j)`` the templates of type j).
The number of configurations explodes (Figure 1's cluster with one five-node graph has
119 845 441), but every quantity of the paper — γ (14), π* (15), the static problem (Definition 2),
DGP-bar's chain — depends on C only through how many templates of each *class* ``(j, u, b)`` it
holds (type, nodes per machine, cost; :mod:`.templates`). The package therefore enumerates count
vectors ``c`` (one count per class) with ``Σ_k c_k u_k <= |m|`` on every machine, each standing for

    ``n(c) = Π_ℓ (|m_ℓ|)_(U_ℓ) · Π_k N_k^(c_k) / c_k!``          (U = Σ_k c_k u_k, the used slots)

configurations: order the templates within each class, give each a node-to-machine map (``N_k``
per class) and give the U_ℓ nodes on machine ℓ distinct slots; a set of distinct templates is
counted ``Π_k c_k!`` times this way. DGP-bar's chain is exactly lumpable on this partition (its
rates out of C depend on C only through c; :mod:`~analytic.partitioning.chain` checks the lumped chain against the
unreduced one).

Identical machines (equal slot counts, a distance matrix invariant under swapping them) reduce the
space further: a permutation σ of machines maps class ``(j, u, b)`` to ``(j, u∘σ⁻¹, b)``, and the
count vectors of one orbit are stored once, with the orbit's size folded into ``n(c)``. The number
of count vectors and of orbits (Burnside's lemma) is counted by a dynamic program over the used
capacity before anything is enumerated, and :class:`~analytic.errors.StateSpaceTooLargeError`
says how many there would be.

One module (over 700 lines): the counting (:func:`~analytic.partitioning.configuration_count`) and the enumeration
(:class:`~analytic.partitioning.Configurations`) are the same recursion over used capacity and the same orbits,
and must agree count for count.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.special import gammaln

from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.partitioning.model import Cluster, GraphJob, check_cluster, check_jobs
from analytic.partitioning.templates import falling_factorial, template_classes
from analytic.validation import flag, integer, numeric_array, real_array

__all__ = ["ClassTable", "ConfigurationCount", "Configurations", "class_table", "configuration_count",
           "configurations", "machine_symmetries", "state_space"]

#: Largest group of machine permutations used for the reduction (6! = 720: six identical machines).
MAX_SYMMETRIES = 720

#: Largest ``limit`` of :func:`machine_symmetries`: candidates are tried one at a time (about 10 µs each).
MAX_SYMMETRY_LIMIT = 1_000_000

#: Largest capacity lattice ``Π_ℓ (|m_ℓ| + 1)`` on which configurations are counted before enumeration.
MAX_LATTICE = 2_000_000

#: Multisets extended at once during enumeration (bounds the working memory).
_CHUNK = 1 << 18


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


def _class_permutations(table: ClassTable, symmetries: np.ndarray) -> np.ndarray:
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
    """Count the states :func:`configurations` would enumerate, by dynamic programming (no enumeration).

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
    perms = _class_permutations(table, symmetries)
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


def _multisets(loads: np.ndarray, capacity: np.ndarray) -> Iterator[np.ndarray]:
    """Every multiset of classes that fits the capacity, as rows of non-decreasing class ids.

    Multisets are grown one template at a time (all those of size t, then t + 1, ...), a row
    extended only by classes >= its last one, in chunks of parents that bound the working memory.
    """
    classes = np.arange(len(loads))
    size = int(np.prod(capacity + 1))
    if size * len(loads) <= 50_000_000:   # which classes fit each free-slot vector, looked up by its rank
        radix = np.append(np.cumprod((capacity + 1)[::-1])[::-1][1:], 1)
        lattice = np.stack(np.unravel_index(np.arange(size), tuple(capacity + 1)), axis=1)
        table = (loads[None, :, :] <= lattice[:, None, :]).all(axis=2)

        def fitting(room: np.ndarray) -> np.ndarray:
            return table[room @ radix]
    else:
        def fitting(room: np.ndarray) -> np.ndarray:
            return (loads[None, :, :] <= room[:, None, :]).all(axis=2)

    rows, remaining = np.zeros((1, 0), dtype=np.int64), capacity[None, :].astype(np.int64)
    while len(rows):
        yield rows
        grown, left = [], []
        for start in range(0, len(rows), _CHUNK):
            part, room = rows[start:start + _CHUNK], remaining[start:start + _CHUNK]
            last = part[:, -1] if part.shape[1] else np.zeros(len(part), dtype=np.int64)
            fits = fitting(room) & (classes[None, :] >= last[:, None])
            parent, k = np.nonzero(fits)
            grown.append(np.column_stack([part[parent], k]))
            left.append(room[parent] - loads[k])
        rows, remaining = np.concatenate(grown), np.concatenate(left)


def _descending_image(ids: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """The multisets ``ids`` (one per row) mapped by the class permutation ``perm``, sorted in decreasing order."""
    return np.sort(perm[ids], axis=1)[:, ::-1]


def _lexicographic_compare(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row by row: 1 where ``a > b``, 0 where equal, -1 where ``a < b`` (lexicographic order)."""
    if a.shape[1] == 0:
        return np.zeros(len(a), dtype=np.int64)
    differ = a != b
    first = differ.argmax(axis=1)
    rows = np.arange(len(a))
    return np.where(differ[rows, first], np.sign(a[rows, first] - b[rows, first]), 0)


def _canonical_rows(ids: np.ndarray, perms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which multisets represent their orbit (the lexicographically largest decreasing image) and the orbit sizes."""
    canonical = np.ones(len(ids), dtype=bool)
    stabilizer = np.zeros(len(ids), dtype=np.int64)
    small = ids.astype(np.int16 if perms.shape[1] < 2**15 else np.int64)
    own = small[:, ::-1]
    for perm in perms.astype(small.dtype):
        order = _lexicographic_compare(own, _descending_image(small, perm))
        canonical &= order >= 0
        stabilizer += order == 0
    return canonical, len(perms) // stabilizer


@dataclass(frozen=True, repr=False)
class Configurations:
    """The configurations of a cluster, one state per count vector (up to machine symmetry).

    Attributes
    ----------
    cluster : Cluster
    jobs : tuple of GraphJob
    classes : ClassTable
        The template classes the counts refer to.
    counts : numpy.ndarray, shape (S, K)
        Templates of each class in each state (the orbit's representative).
    orbit : numpy.ndarray, shape (S,)
        Count vectors in the state's orbit under the machine symmetries (1 without them).
    log_multiplicity : numpy.ndarray, shape (S,)
        ``log n(c)``: the logarithm of the number of configurations the state stands for
        (its whole orbit).
    templates : numpy.ndarray, shape (S, J)
        ``|C^(j)|``, templates of each type.
    used : numpy.ndarray, shape (S, L)
        Occupied slots on each machine (of the representative).
    free : numpy.ndarray, shape (S,)
        Free slots ``F = M - Σ_j |C^(j)| |V_j|``.
    cost : numpy.ndarray, shape (S,)
        ``Σ_j Σ_(A ∈ C^(j)) b_A``, the partition cost of the configuration.
    symmetries : numpy.ndarray, shape (G, L)
        The machine permutations the states are reduced by (identity only when none is used).

    Examples
    --------
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> from analytic.partitioning import state_space
    >>> space = state_space(FIGURE1_CLUSTER, FIGURE1_JOB)
    >>> len(space), space.configuration_count
    (105, 119845441)
    """

    cluster: Cluster
    jobs: tuple[GraphJob, ...]
    classes: ClassTable
    counts: np.ndarray
    orbit: np.ndarray
    log_multiplicity: np.ndarray
    templates: np.ndarray
    used: np.ndarray
    free: np.ndarray
    cost: np.ndarray
    symmetries: np.ndarray
    _perms: np.ndarray = field(repr=False)
    _index: dict = field(repr=False)

    def __len__(self) -> int:
        return len(self.counts)

    def __repr__(self) -> str:
        return (f"Configurations(states={len(self)}, classes={len(self.classes)}, "
                f"configurations={self.configuration_count}, symmetries={len(self.symmetries)})")

    @property
    def configuration_count(self) -> int:
        """``|𝒞|``, the number of configurations (exact integer): ``Σ_c n(c)``."""
        return sum(self.multiplicity(i) for i in range(len(self)))

    @property
    def log_configuration_count(self) -> float:
        """``log |𝒞|`` in floating point (for spaces whose count overflows a double)."""
        top = self.log_multiplicity.max()
        return float(top + np.log(np.exp(self.log_multiplicity - top).sum()))

    def multiplicity(self, i: int) -> int:
        """``n(c)`` of state i as an exact integer.

        Parameters
        ----------
        i : int
            A state.

        Returns
        -------
        int

        Examples
        --------
        >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
        >>> space = state_space(FIGURE1_CLUSTER, FIGURE1_JOB)
        >>> sum(space.multiplicity(i) for i in range(len(space))) == space.configuration_count
        True
        """
        i = self._state(i)
        present = np.flatnonzero(self.counts[i])
        counts = [int(k) for k in self.counts[i, present]]
        slots = math.prod(falling_factorial(int(m), int(u)) for m, u in zip(self.cluster.slots, self.used[i], strict=True))
        maps = math.prod(int(n) ** k for n, k in zip(self.classes.assignments[present], counts, strict=True))
        return int(self.orbit[i]) * slots * maps // math.prod(math.factorial(k) for k in counts)

    def key(self, counts: Sequence[int]) -> tuple[int, ...]:
        """The key of a count vector's orbit: the class ids of its representative's templates, decreasing.

        Keys label the states of the chains of :mod:`~analytic.partitioning.chain` (short tuples, cheap to hash).

        Parameters
        ----------
        counts : sequence of int
            A count vector (templates of each class).

        Returns
        -------
        tuple of int

        Examples
        --------
        >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
        >>> space = state_space(FIGURE1_CLUSTER, FIGURE1_JOB)
        >>> space.index(space.key(space.counts_of(space.key(space.counts[7])))) == 7
        True
        """
        vector = numeric_array("counts", counts, f"must be {len(self.classes)} template counts >= 0, one per class")
        if vector.shape != (len(self.classes),) or vector.dtype.kind not in "iu" or np.any(vector < 0):
            raise InvalidParameterError("counts", counts, f"must be {len(self.classes)} template counts >= 0, one per class")
        # no count above the slot total (so the product cannot overflow), then no machine over its slots
        if vector.max(initial=0) > self.cluster.total_slots or np.any(vector @ self.classes.loads > self.cluster.slots):
            raise InvalidParameterError("counts", counts, "must be a configuration: its templates need more slots of some "
                                        f"machine than it has ({self.cluster.slots.tolist()})")
        ids = np.repeat(np.arange(len(self.classes)), vector)[None, :]
        return max(tuple(_descending_image(ids, perm)[0].tolist()) for perm in self._perms)

    def counts_of(self, key: Sequence[int]) -> np.ndarray:
        """The count vector of a key (the orbit's representative).

        Parameters
        ----------
        key : sequence of int
            A key of :meth:`key`.

        Returns
        -------
        numpy.ndarray of int

        Examples
        --------
        >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
        >>> space = state_space(FIGURE1_CLUSTER, FIGURE1_JOB)
        >>> int(space.counts_of(()).sum())   # the empty configuration
        0
        """
        ids = numeric_array("key", key, f"must be class ids in 0..{len(self.classes) - 1}")
        if ids.ndim != 1 or (ids.size and (ids.dtype.kind not in "iu" or np.any((ids < 0) | (ids >= len(self.classes))))):
            raise InvalidParameterError("key", key, f"must be class ids in 0..{len(self.classes) - 1}")
        return np.bincount(ids.astype(np.int64), minlength=len(self.classes))

    def index(self, key: Sequence[int]) -> int:
        """Position among the states of the orbit with this key (see :meth:`key`).

        Parameters
        ----------
        key : sequence of int
            A key of :meth:`key`.

        Returns
        -------
        int

        Examples
        --------
        >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
        >>> space = state_space(FIGURE1_CLUSTER, FIGURE1_JOB)
        >>> space.describe(space.index(()))
        []
        """
        try:
            ids = numeric_array("key", key, "must be the key of a state (see key())")
            if ids.size and ids.dtype.kind not in "iu":
                raise TypeError
            return self._index[tuple(ids.tolist())]
        except (KeyError, TypeError, InvalidParameterError):
            raise InvalidParameterError("key", key, "must be the key of a state (see key())") from None

    def weight(self, queue_weights: Sequence[float]) -> np.ndarray:
        """``Σ_j Σ_(A ∈ C^(j)) w_A = Σ_j q_j |C^(j)| - Σ_A b_A`` for ``w_A = q_j - b_A`` (eqs. 10, 11).

        Parameters
        ----------
        queue_weights : sequence of float
            q_j, one per type.

        Returns
        -------
        numpy.ndarray
            One weight per state.

        Examples
        --------
        >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
        >>> space = state_space(FIGURE1_CLUSTER, FIGURE1_JOB)
        >>> float(space.weight([3.0]).max())   # two cost-1 templates: 2 (3 - 1)
        4.0
        """
        weights = real_array("queue_weights", queue_weights, ndim=1)
        if weights.shape != (len(self.jobs),):
            raise InvalidParameterError("queue_weights", queue_weights, f"must hold {len(self.jobs)} weights, one per job type")
        return self.templates @ weights - self.cost

    def describe(self, i: int) -> list[tuple[int, tuple[int, ...], float]]:
        """The templates of state i as ``(type, nodes per machine, cost)``, one entry per template.

        Parameters
        ----------
        i : int
            A state.

        Returns
        -------
        list of (int, tuple of int, float)

        Examples
        --------
        >>> from analytic.partitioning import Cluster, GraphJob
        >>> space = state_space(Cluster([2, 2]), GraphJob(2, [(0, 1)], 1.0, 1.0))
        >>> for state in sorted(space.describe(i) for i in range(len(space))):
        ...     print(state)
        []
        [(0, (0, 2), 0.0), (0, (2, 0), 0.0)]
        [(0, (1, 1), 1.0)]
        [(0, (1, 1), 1.0), (0, (1, 1), 1.0)]
        [(0, (2, 0), 0.0)]
        """
        i = self._state(i)
        return [(int(self.classes.job[k]), tuple(self.classes.loads[k].tolist()), float(self.classes.costs[k]))
                for k in np.flatnonzero(self.counts[i]) for _ in range(int(self.counts[i, k]))]


    def _state(self, i: object) -> int:
        position = integer("i", i, minimum=0)
        if position >= len(self):
            raise InvalidParameterError("i", i, f"must be a state index below {len(self)}")
        return position


def _log_multiplicity(cluster: Cluster, table: ClassTable, counts: np.ndarray, used: np.ndarray) -> np.ndarray:
    """``log n(c)`` without the orbit factor."""
    slots = (gammaln(cluster.slots + 1.0) - gammaln(cluster.slots - used + 1.0)).sum(axis=1)
    log_factorial = gammaln(np.arange(int(counts.max(initial=0)) + 1) + 1.0)
    return slots + counts.astype(float) @ np.log(table.assignments.astype(float)) - log_factorial[counts].sum(axis=1)


def configurations(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob], symmetry: bool = True,
                   cheapest: bool = False, max_states: int = 2_000_000) -> Configurations:
    """Enumerate the configurations of a cluster as count vectors over template classes.

    Parameters
    ----------
    cluster : Cluster
    jobs : GraphJob or sequence of GraphJob
    symmetry : bool
        Reduce by the permutations of identical machines (:func:`machine_symmetries`) as well as
        by identical slots.
    cheapest : bool
        Keep only the cheapest class of each type and load vector (enough for Definition 2 and
        eq. 10, not for the distributions (14), (15)).
    max_states : int
        Largest number of states stored.

    Returns
    -------
    Configurations
        States in lexicographic order of their count vectors; state 0 is the empty configuration.

    Raises
    ------
    StateSpaceTooLargeError
        The states counted beforehand (:func:`configuration_count`) exceed ``max_states``; on a
        capacity lattice too large to count on, the enumeration stops once it has visited more count
        vectors than ``max_states`` times the symmetries.

    Examples
    --------
    Figure 1: 105 states stand for the 119 845 441 configurations (1 empty, 95 040 with one template,
    119 750 400 with two).

    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> configurations(FIGURE1_CLUSTER, FIGURE1_JOB)
    Configurations(states=105, classes=60, configurations=119845441, symmetries=6)
    """
    types = check_jobs(cluster, jobs)
    limit = integer("max_states", max_states)
    table = class_table(cluster, types, cheapest)
    symmetries = machine_symmetries(cluster) if flag("symmetry", symmetry) else np.arange(cluster.machines)[None, :]
    perms = _class_permutations(table, symmetries)
    visit_limit = None
    if int(np.prod(cluster.slots + 1)) <= MAX_LATTICE:
        counted = configuration_count(cluster, types, symmetry, cheapest)
        if counted.orbits > limit:
            raise StateSpaceTooLargeError(counted.orbits, limit, f"the configuration space ({counted.count_vectors:,} count "
                                          f"vectors, reduced by {counted.symmetries} machine symmetries)")
    else:
        visit_limit = limit * len(perms)
    dtype = np.int16 if cluster.total_slots < 2**15 else np.int64
    kept, sizes, keys, visited = [], [], [], 0
    for ids in _multisets(table.loads, cluster.slots):
        visited += len(ids)
        if visit_limit is not None and visited > visit_limit:
            raise StateSpaceTooLargeError(limit + 1, limit, "the configuration space", at_least=True)
        canonical, orbit = _canonical_rows(ids, perms)
        chosen = ids[canonical]
        flat = (np.arange(len(chosen))[:, None] * len(table) + chosen).ravel()
        kept.append(np.bincount(flat, minlength=len(chosen) * len(table)).reshape(len(chosen), len(table)).astype(dtype))
        sizes.append(orbit[canonical])
        keys += [tuple(row) for row in chosen[:, ::-1].tolist()]
    counts, orbit = np.concatenate(kept), np.concatenate(sizes)
    counts.setflags(write=False)
    dense = counts.astype(float)
    templates = np.rint(dense @ (table.job[:, None] == np.arange(len(types))[None, :])).astype(np.int64)
    used = np.rint(dense @ table.loads).astype(np.int64)
    return Configurations(
        cluster=cluster, jobs=types, classes=table, counts=counts, orbit=orbit,
        log_multiplicity=np.log(orbit) + _log_multiplicity(cluster, table, counts, used),
        templates=templates, used=used, free=cluster.total_slots - used.sum(axis=1), cost=dense @ table.costs,
        symmetries=symmetries, _perms=perms, _index={key: i for i, key in enumerate(keys)})


@functools.lru_cache(maxsize=32)
def _cached(cluster: Cluster, jobs: tuple[GraphJob, ...], cheapest: bool) -> Configurations:
    return configurations(cluster, jobs, symmetry=True, cheapest=cheapest)


def state_space(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob], cheapest: bool = False) -> Configurations:
    """:func:`configurations` reduced by all symmetries, remembered for the last 32 (cluster, jobs) pairs.

    The distributions, the static problem and the chains of this package call it, so a sweep
    over β or over queue weights enumerates the configurations once. Clusters and jobs are
    compared by identity.

    Parameters
    ----------
    cluster : Cluster
        Machines and their slots.
    jobs : GraphJob or sequence of GraphJob
        The job types.
    cheapest : bool
        As in :func:`class_table`.

    Returns
    -------
    Configurations

    Examples
    --------
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> len(state_space(FIGURE1_CLUSTER, FIGURE1_JOB))
    105
    """
    return _cached(cluster, check_jobs(cluster, jobs), flag("cheapest", cheapest))
