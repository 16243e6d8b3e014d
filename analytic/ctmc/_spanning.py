"""A minimum spanning tree of a chain's graph, in breadth-first order from a root.

Kruskal's algorithm (*On the shortest spanning subtree of a graph and the traveling salesman
problem*, Proc. AMS 7, 1956) over the transitions, each weighing what the caller says; a pair of
states joined both ways counts with the lighter of its two weights. One compiled pass: for chains of
a few dozen states, the sparse-graph routines of scipy cost more in matrix constructions than the
tree itself.
"""

from __future__ import annotations

import numpy as np

from analytic._kernels import kernel

__all__ = ["spanning_tree"]


def spanning_tree(indptr: np.ndarray, indices: np.ndarray, weight: np.ndarray, root: int,
                  among: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A minimum spanning tree of the undirected graph of a CSR pattern, as the states in
    breadth-first order from ``root`` and each one's parent (-1 for the root); the order holds
    only the states connected to ``root``. Ties go to the earlier transition.

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        The CSR pattern (int64): transition ``p`` goes from its row to ``indices[p]``.
    weight : numpy.ndarray
        The weight of each transition (float), or of each of ``among``.
    root : int
        The state the order starts from.
    among : numpy.ndarray, optional
        Only these transitions, by increasing index (default all). Leaving out the later of two
        transitions joining the same pair with the same weight changes nothing: Kruskal meets it
        after the earlier one, its ends already joined, and half the sort is saved.

    Returns
    -------
    order : numpy.ndarray
        The states reached from ``root`` in the tree, breadth first (int64).
    parent : numpy.ndarray
        Each state's parent in the tree (int64; -1 for the root and for states not reached).

    Examples
    --------
    On the triangle 0 - 1 - 2 with the edge {0, 2} heaviest, the tree is the path 0 - 1 - 2:

    >>> indptr = np.array([0, 2, 4, 6])
    >>> indices = np.array([1, 2, 0, 2, 0, 1])
    >>> order, parent = spanning_tree(indptr, indices, np.array([1.0, 5.0, 1.0, 2.0, 5.0, 2.0]), 0)
    >>> order.tolist(), parent.tolist()
    ([0, 1, 2], [-1, 0, 1])
    """
    by_weight = np.argsort(np.asarray(weight, float), kind="stable")  # not compiled: numba's sort takes 1 s to compile
    if among is not None:
        by_weight = np.asarray(among)[by_weight]
    return _tree(np.asarray(indptr, np.int64), np.asarray(indices, np.int64), by_weight.astype(np.int64), int(root))


@kernel
def _tree(indptr, indices, by_weight, root):  # pragma: no cover - compiled
    n = len(indptr) - 1
    rows = np.empty(len(indices), np.int64)
    for i in range(n):
        rows[indptr[i]:indptr[i + 1]] = i
    boss = np.arange(n)
    ends = np.empty((max(n - 1, 0), 2), np.int64)
    count = 0
    for p in by_weight:
        if count == n - 1:
            break
        a, b = _find(boss, rows[p]), _find(boss, indices[p])
        if a != b:
            boss[a] = b
            ends[count, 0], ends[count, 1] = rows[p], indices[p]
            count += 1
    start = np.zeros(n + 1, np.int64)
    for k in range(count):
        start[ends[k, 0] + 1] += 1
        start[ends[k, 1] + 1] += 1
    for i in range(n):
        start[i + 1] += start[i]
    fill = start[:-1].copy()
    neighbours = np.empty(2 * count, np.int64)
    for k in range(count):
        a, b = ends[k, 0], ends[k, 1]
        neighbours[fill[a]], neighbours[fill[b]] = b, a
        fill[a] += 1
        fill[b] += 1
    parent = -np.ones(n, np.int64)
    seen = np.zeros(n, np.bool_)
    order = np.empty(n, np.int64)
    order[0], seen[root] = root, True
    size = 1
    for position in range(n):
        if position == size:
            break
        state = order[position]
        for q in range(start[state], start[state + 1]):
            child = neighbours[q]
            if not seen[child]:
                seen[child], parent[child] = True, state
                order[size] = child
                size += 1
    return order[:size], parent


@kernel
def _find(boss, state):  # pragma: no cover - compiled
    """The representative of ``state``'s component, halving the path on the way."""
    while boss[state] != state:
        boss[state] = boss[boss[state]]
        state = boss[state]
    return state
