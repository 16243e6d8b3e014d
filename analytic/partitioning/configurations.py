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

The counting before enumeration (the template classes, the machine symmetries and the dynamic
program) is :mod:`analytic.partitioning.counting`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.special import gammaln

from analytic._deprecation import old_names
from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.partitioning import counting
from analytic.partitioning.model import Cluster, GraphJob, check_jobs
from analytic.partitioning.templates import falling_factorial
from analytic.validation import flag, integer, numeric_array, real_array

__all__ = ["Configurations", "configurations", "state_space"]

#: Multisets extended at once during enumeration (bounds the working memory).
_CHUNK = 1 << 18


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
    classes: counting.ClassTable
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


def _log_multiplicity(cluster: Cluster, table: counting.ClassTable, counts: np.ndarray, used: np.ndarray) -> np.ndarray:
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
        Reduce by the permutations of identical machines (:func:`~analytic.partitioning.machine_symmetries`) as well as
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
        The states counted beforehand (:func:`~analytic.partitioning.configuration_count`) exceed ``max_states``; on a
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
    table = counting.class_table(cluster, types, cheapest)
    symmetries = counting.machine_symmetries(cluster) if flag("symmetry", symmetry) else np.arange(cluster.machines)[None, :]
    perms = counting.class_permutations(table, symmetries)
    visit_limit = None
    if int(np.prod(cluster.slots + 1)) <= counting.MAX_LATTICE:
        counted = counting.configuration_count(cluster, types, symmetry, cheapest)
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
        As in :func:`~analytic.partitioning.class_table`.

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


# Names that moved to analytic.partitioning.counting (issue 32): they warn, and go in version 0.3.
__getattr__ = old_names(globals(), {name: f"analytic.partitioning.counting.{name}" for name in (
    "ClassTable", "ConfigurationCount", "class_table", "configuration_count", "machine_symmetries", "MAX_SYMMETRIES",
    "MAX_SYMMETRY_LIMIT", "MAX_LATTICE")})
