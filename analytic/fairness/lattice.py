"""The truncated lattice {x ∈ ℕ^N : x_1 + ... + x_N <= n}, stored level by level, with its ranks.

The states of a Whittle network or of the aggregate OI queue truncated at n jobs in total. Level
k holds the C(k + N - 1, N - 1) states with k jobs, in lexicographic order; the whole lattice is
levels 0, 1, ..., n one after the other, so that a state's index is the offset of its level plus
its rank within the level. The rank is computed arithmetically (a sum of binomial coefficients:
the combinatorial number system), which makes ``x - e_i`` and ``x + e_i`` found by array
operations, with no dictionary and no search.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.memory import require
from analytic.validation import integer, numeric_array, real_array

__all__ = ["SimplexLattice", "simplex_lattice"]

#: Default limit on the number of lattice points (each costs N int64 and a few float64).
DEFAULT_MAX_STATES = 30_000_000


@dataclass(frozen=True, repr=False, eq=False)
class SimplexLattice:
    """All x ∈ ℕ^N with Σ x_i <= ``max_jobs``, level by level.

    Attributes
    ----------
    dimension : int
        N, the number of coordinates (classes).
    max_jobs : int
        n, the largest total.
    states : numpy.ndarray of int64, shape (M, N)
        The points, level 0 first; within a level, lexicographic order.
    offsets : numpy.ndarray of int64, shape (n + 2,)
        Level k is ``states[offsets[k]:offsets[k + 1]]``.

    Examples
    --------
    >>> lattice = simplex_lattice(2, 2)
    >>> len(lattice), lattice.states.tolist()
    (6, [[0, 0], [0, 1], [1, 0], [0, 2], [1, 1], [2, 0]])
    """

    dimension: int
    max_jobs: int
    states: np.ndarray
    offsets: np.ndarray
    _tail_counts: np.ndarray

    def __repr__(self) -> str:
        return f"SimplexLattice(dimension={self.dimension}, max_jobs={self.max_jobs}, n_states={len(self)})"

    def __len__(self) -> int:
        return int(self.offsets[-1])

    def level(self, k: int) -> np.ndarray:
        """The states with ``k`` jobs in total, shape (C(k + N - 1, N - 1), N).

        Parameters
        ----------
        k : int
            Jobs in total, from 0 to ``max_jobs``.

        Returns
        -------
        numpy.ndarray of int

        Examples
        --------
        >>> simplex_lattice(2, 3).level(2).tolist()
        [[0, 2], [1, 1], [2, 0]]
        """
        k = integer("k", k, minimum=0)
        if k > self.max_jobs:
            raise InvalidParameterError("k", k, f"must be <= max_jobs = {self.max_jobs}")
        return self.states[self.offsets[k]:self.offsets[k + 1]]

    def index(self, points: np.ndarray) -> np.ndarray:
        """Indices of lattice points (rows of ``points``, shape (..., N)) in :attr:`states`.

        Raises :class:`~analytic.errors.InvalidParameterError` for a point outside the lattice
        (see :meth:`contains`).

        Parameters
        ----------
        points : array_like of int, shape (..., N)
            Lattice points.

        Returns
        -------
        numpy.ndarray of int

        Examples
        --------
        >>> simplex_lattice(2, 3).index(np.array([[0, 0], [1, 1]])).tolist()
        [0, 4]
        """
        x = check_points(self, points, "points")
        remaining = x.sum(axis=-1)
        index = self.offsets[remaining].copy()
        # Lexicographic rank within the level: before x come the points that agree on the first
        # k - 1 coordinates and have a smaller k-th one. With r jobs left for the last m + 1
        # coordinates, those with k-th coordinate v < x_k number Σ_v C(r - v + m, m)
        # = C(r + m + 1, m + 1) - C(r - x_k + m + 1, m + 1), i.e. tail[r, m] - tail[r - x_k, m].
        for k in range(self.dimension - 1):
            m = self.dimension - 2 - k
            index += self._tail_counts[remaining, m] - self._tail_counts[remaining - x[..., k], m]
            remaining = remaining - x[..., k]
        return index

    def contains(self, points: np.ndarray) -> np.ndarray:
        """Whether each row of ``points`` (real vectors of length N) lies in the lattice.

        Parameters
        ----------
        points : array_like, shape (..., N)
            Points to test.

        Returns
        -------
        numpy.ndarray of bool

        Examples
        --------
        >>> simplex_lattice(2, 3).contains(np.array([[1, 1], [2, 2], [0, -1]])).tolist()
        [True, False, False]
        """
        x = real_array("points", points, allow_infinite=True)
        if x.shape[-1:] != (self.dimension,):
            raise InvalidParameterError("points", points, f"must be vectors of length {self.dimension}")
        return np.all((x >= 0) & (x == np.floor(x)), axis=-1) & (x.sum(axis=-1) <= self.max_jobs)


def lattice_size(dimension: int, max_jobs: int) -> int:
    """C(n + N, N), the number of points of the truncated lattice."""
    return math.comb(max_jobs + dimension, dimension)


def simplex_lattice(dimension: int, max_jobs: int, max_states: int = DEFAULT_MAX_STATES) -> SimplexLattice:
    """The lattice {x ∈ ℕ^N : Σ x_i <= n}, built level by level with array operations.

    Parameters
    ----------
    dimension : int
        N >= 1.
    max_jobs : int
        n >= 0.
    max_states : int
        :class:`~analytic.errors.StateSpaceTooLargeError` is raised before allocating more points
        than this.

    Returns
    -------
    SimplexLattice

    Examples
    --------
    >>> lattice = simplex_lattice(2, 2)
    >>> lattice.states.tolist()
    [[0, 0], [0, 1], [1, 0], [0, 2], [1, 1], [2, 0]]
    >>> lattice.index(np.array([[1, 1], [0, 0]])).tolist()
    [4, 0]
    """
    n_dim = integer("dimension", dimension)
    n = integer("max_jobs", max_jobs, minimum=0)
    integer("max_states", max_states)
    size = lattice_size(n_dim, n)
    if size > max_states:
        raise StateSpaceTooLargeError(size, max_states, f"the lattice of {n_dim} classes up to {n} jobs")
    require(32 * size * n_dim, f"the lattice of {n_dim} classes up to {n} jobs", size)  # points, states, index sums
    # tail[r, m] = C(r + m + 1, m + 1): points with r jobs on m + 2 coordinates, summed over r.
    tail = np.array([[math.comb(r + m + 1, m + 1) for m in range(max(n_dim - 1, 1))] for r in range(n + 1)],
                    dtype=np.int64)
    counts = [math.comb(k + n_dim - 1, n_dim - 1) for k in range(n + 1)]
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    points = _points(n_dim, n)
    states = np.empty_like(points)
    lattice = SimplexLattice(n_dim, n, states, offsets, tail)
    states[lattice.index(points)] = points
    return lattice


def _points(dimension: int, max_jobs: int) -> np.ndarray:
    """All points of the lattice in some order, one coordinate at a time.

    Each coordinate's values are stored with the prefix they extend, and the rows are assembled
    once at the end: O(N · points) work (copying the growing rows at every coordinate was
    O(N² · points): 16 s for N = 3000, n = 1).
    """
    values, parents = [], []
    totals = np.zeros(1, dtype=np.int64)
    for _ in range(dimension):
        choices = max_jobs - totals + 1          # the next coordinate takes 0 .. n - total
        first = np.cumsum(choices) - choices
        parent = np.repeat(np.arange(len(totals)), choices)
        value = np.arange(len(parent)) - first[parent]
        values.append(value)
        parents.append(parent)
        totals = totals[parent] + value
    points = np.empty((len(totals), dimension), dtype=np.int64)
    row = np.arange(len(totals))
    for k in range(dimension - 1, -1, -1):
        points[:, k] = values[k][row]
        row = parents[k][row]
    return points


def check_points(lattice: SimplexLattice, points: np.ndarray, name: str = "x") -> np.ndarray:
    """``points`` as int64 rows of the lattice, or :class:`InvalidParameterError` naming ``name``."""
    x = numeric_array(name, points, f"must be integer vectors of length {lattice.dimension}")
    if x.shape[-1:] != (lattice.dimension,) or x.dtype.kind not in "iu" or not np.all(
            np.all(x >= 0, axis=-1) & (x.sum(axis=-1) <= lattice.max_jobs)):
        raise InvalidParameterError(name, points, f"must be integer vectors of length {lattice.dimension} with entries >= 0 "
                                    f"and total <= max_jobs = {lattice.max_jobs}")
    return x.astype(np.int64)
