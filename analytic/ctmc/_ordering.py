"""Fill-reducing elimination orders for sparse elimination on a chain's transition graph.

The GTH elimination (:mod:`analytic.ctmc._gth`) eliminates states one at a time; the order decides
the fill, hence memory and time. :func:`nested_dissection` orders the states of a connected
undirected graph by George's automatic nested dissection: a breadth-first level structure from a
pseudo-peripheral state, a level near the middle as separator (removing one BFS level disconnects
the levels before it from those after), both sides ordered recursively, the separator last. On a
k × k lattice this gives O(k² log k) fill, on a path (a birth–death chain) O(k).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from analytic._kernels import kernel

__all__ = ["minimum_degree", "nested_dissection"]

#: Parts of at most this many states are not split further.
LEAF_SIZE = 64


@kernel
def _bfs(indptr, indices, part, pid, start, level, queue):  # pragma: no cover - compiled
    """Breadth-first search from ``start`` among the states of part ``pid``; returns how many were reached."""
    head, tail = 0, 1
    queue[0] = start
    level[start] = 0
    while head < tail:
        v = queue[head]
        head += 1
        for p in range(indptr[v], indptr[v + 1]):
            w = indices[p]
            if part[w] == pid and level[w] < 0:
                level[w] = level[v] + 1
                queue[tail] = w
                tail += 1
    return tail


@kernel
def _dissect(indptr, indices, n, leaf):  # pragma: no cover - compiled
    """The nested-dissection order (see the module docstring), without recursion.

    A work list holds parts as ranges of ``nodes``, the position their order starts at in
    ``order``, and a seed state. A part is split into its connected components, or into the levels
    before and after a separating BFS level (the separator takes the last positions of the part's
    range). A BFS level structure is rooted at a pseudo-peripheral state: the far end of a first
    search, or a seed inherited from the parent part's structure (its level-0 state for the part
    below the separator, its deepest state for the part above), which saves the first search.
    """
    part = np.zeros(n, np.int64)
    level = -np.ones(n, np.int64)
    queue = np.empty(n, np.int64)
    order = np.empty(n, np.int64)
    nodes = np.arange(n)
    scratch = np.empty(n, np.int64)
    lows = np.empty(n + 1, np.int64)
    highs = np.empty(n + 1, np.int64)
    outs = np.empty(n + 1, np.int64)
    seeds = np.empty(n + 1, np.int64)
    peripheral = np.zeros(n + 1, np.bool_)
    lows[0], highs[0], outs[0], seeds[0] = 0, n, 0, 0
    pending = 1
    pid = 0
    while pending > 0:
        pending -= 1
        lo, hi, out, seed, known = lows[pending], highs[pending], outs[pending], seeds[pending], peripheral[pending]
        size = hi - lo
        pid += 1
        for t in range(lo, hi):
            part[nodes[t]] = pid
        reached = _bfs(indptr, indices, part, pid, seed, level, queue)
        if reached < size:  # several components: order them one after the other
            k = 0
            for t in range(reached):
                scratch[k] = queue[t]
                k += 1
            for t in range(lo, hi):
                if level[nodes[t]] < 0:
                    scratch[k] = nodes[t]
                    k += 1
            for t in range(reached):
                level[queue[t]] = -1
            for t in range(size):      # a loop: a slice assignment costs numba a second of compiling
                nodes[lo + t] = scratch[t]
            lows[pending], highs[pending], outs[pending] = lo, lo + reached, out
            seeds[pending], peripheral[pending] = queue[reached - 1], False
            lows[pending + 1], highs[pending + 1], outs[pending + 1] = lo + reached, hi, out + reached
            seeds[pending + 1], peripheral[pending + 1] = nodes[lo + reached], False
            pending += 2
            continue
        if size > leaf and not known:
            far = queue[reached - 1]
            for t in range(reached):
                level[queue[t]] = -1
            _bfs(indptr, indices, part, pid, far, level, queue)
        depth = level[queue[reached - 1]] + 1 if size > leaf else 0
        if depth < 3:  # small or dense: no separator worth having
            for t in range(reached):
                order[out + t] = queue[t]
                level[queue[t]] = -1
            continue
        sizes = np.zeros(depth, np.int64)
        for t in range(reached):
            sizes[level[queue[t]]] += 1
        best, smallest, before = -1, size + 1, 0
        for lv in range(1, depth - 1):  # the smallest level leaving at least a quarter on each side
            before += sizes[lv - 1]
            if before >= size // 4 and size - before - sizes[lv] >= size // 4 and sizes[lv] < smallest:
                best, smallest = lv, sizes[lv]
        if best < 0:  # lopsided level structure: the median level
            before = 0
            best = depth - 2
            for lv in range(1, depth - 1):
                before += sizes[lv - 1]
                if before + sizes[lv] > size // 2:
                    best = lv
                    break
        below, above = 0, 0
        for t in range(reached):
            if level[queue[t]] < best:
                below += 1
            elif level[queue[t]] > best:
                above += 1
        i_below, i_above, i_sep = lo, lo + below, out + below + above
        for t in range(reached):
            v = queue[t]
            if level[v] < best:
                nodes[i_below] = v
                i_below += 1
            elif level[v] > best:
                nodes[i_above] = v
                i_above += 1
            else:
                order[i_sep] = v
                i_sep += 1
            level[v] = -1
        lows[pending], highs[pending], outs[pending] = lo, lo + below, out
        seeds[pending], peripheral[pending] = queue[0], True
        lows[pending + 1], highs[pending + 1], outs[pending + 1] = lo + below, lo + below + above, out + below
        seeds[pending + 1], peripheral[pending + 1] = queue[reached - 1], True
        pending += 2
    return order


def nested_dissection(indptr: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Elimination order of the states of an undirected graph given in CSR form (both directions
    of every edge present, no self-loops): a permutation of ``0..n-1``, separators last.

    Parameters
    ----------
    indptr : numpy.ndarray
        CSR row pointers of the graph, length ``n + 1``.
    indices : numpy.ndarray
        CSR column indices: the neighbours of each state.

    Returns
    -------
    numpy.ndarray
        The elimination order (int64): ``order[k]`` is the k-th state eliminated.

    Examples
    --------
    A path of at most ``LEAF_SIZE`` (64) states is not split: it is ordered from one end. A path
    of 200 states is cut by one state with at least a quarter of the states on each side, which
    comes last:

    >>> import scipy.sparse as sp
    >>> path = sp.diags_array([np.ones(4), np.ones(4)], offsets=[-1, 1]).tocsr()
    >>> nested_dissection(path.indptr, path.indices).tolist()
    [0, 1, 2, 3, 4]
    >>> path = sp.diags_array([np.ones(199), np.ones(199)], offsets=[-1, 1]).tocsr()
    >>> order = nested_dissection(path.indptr, path.indices)
    >>> sorted(order.tolist()) == list(range(200)), bool(min(order[-1], 199 - order[-1]) >= 200 // 4)
    (True, True)
    """
    n = len(indptr) - 1
    return _dissect(indptr.astype(np.int64), indices.astype(np.int64), n, LEAF_SIZE)


def minimum_degree(pattern: sp.csr_array) -> np.ndarray:
    """A minimum-degree elimination order of a symmetric pattern: the multiple minimum degree
    ordering of SuperLU (Liu, *Modification of the minimum-degree algorithm by multiple
    elimination*, ACM TOMS 11, 1985), read off the column permutation of a SuperLU factorization
    of the pattern made diagonally dominant (so that no pivot is ever exchanged). Costs one
    factorization: for chains of moderate size whose breadth-first separators are wide.

    Parameters
    ----------
    pattern : scipy.sparse.csr_array
        A symmetric sparsity pattern, shape (n, n) (only where its entries are stored matters).

    Returns
    -------
    numpy.ndarray
        The elimination order (int64): ``order[k]`` is the k-th state eliminated.

    Examples
    --------
    A star (state 0 joined to all others) is eliminated leaves first, the centre last:

    >>> star = sp.csr_array((np.ones(8), (np.r_[np.zeros(4, int), 1:5], np.r_[1:5, np.zeros(4, int)])), shape=(5, 5))
    >>> int(minimum_degree(star)[-1])
    0
    """
    n = pattern.shape[0]
    degree = np.diff(pattern.indptr).astype(float)
    dominant = (abs(pattern) + sp.diags_array(degree + 1.0)).tocsc()
    factor = spla.splu(dominant, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0, options=dict(SymmetricMode=True))
    order = np.empty(n, np.int64)
    order[factor.perm_c] = np.arange(n)
    return order
