"""The symbolic analysis of the GTH factorization (:mod:`analytic.ctmc._gth`): order, supernodes, fronts.

:func:`analyse` orders the states by nested dissection (or minimum degree, where it does better),
builds the post-ordered elimination tree of the symmetrized transition graph, groups it into
supernodes and sizes their fronts, so that the memory and work of the numerical factorization are
known before anything is allocated (a :class:`GTHPlan`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import reverse_cuthill_mckee

from analytic._kernels import kernel
from analytic.ctmc._balance import transpose
from analytic.ctmc._ordering import minimum_degree, nested_dissection
from analytic.errors import StateSpaceTooLargeError

#: Up to this many states, a nested dissection needing more than ``WIDE_SEPARATORS`` multiply-adds
#: per state (its breadth-first separators are wide: the sequence chains of Anselmi & Doncel) is
#: compared with a minimum-degree order, which costs one SuperLU factorization (0.4 s on the
#: BS-FCFS chain of 5 251 states, where it cuts the work from 1.3e9 to 4.9e8 multiply-adds).
MINIMUM_DEGREE_STATES = 50_000
WIDE_SEPARATORS = 1e4

#: A factorization needing more multiply-adds than this shows a progress bar (about half a minute).
PROGRESS_FLOPS = 1e11

#: Columns eliminated together before the trailing update of a front (the block size).
BLOCK = 64

#: A chain of the elimination tree joins its child's supernode while that supernode has fewer
#: columns than this, even if their structures are not nested (small supernodes cost more in
#: bookkeeping than a few explicit zeros in a front).
_RELAX = 8


@dataclass(frozen=True, repr=False)
class GTHPlan:
    """The symbolic analysis of a GTH factorization: order, supernodes, fronts and their sizes.

    Attributes
    ----------
    order : numpy.ndarray
        Elimination order: ``order[k]`` is the k-th state eliminated (the last is the root).
    bytes : int
        Memory the numerical factorization will allocate (stored factor, largest front,
        contribution stack).
    flops : float
        Multiply-adds of the elimination (about ``sum_fronts pivots * front_size**2``).
    work : numpy.ndarray
        The multiply-adds done before each supernode (the last entry is ``flops``).
    traffic : float
        Entries of all fronts together.

    Examples
    --------
    An M/M/1/2 queue is one front of its three states: 3 pivots times ``3**2`` entries.

    >>> import scipy.sparse as sp
    >>> plan = analyse(sp.csr_array([[0, 1.0, 0], [2.0, 0, 1.0], [0, 2.0, 0]]), root=0)
    >>> int(plan.order[-1]), plan.largest_front, plan.flops
    (0, 3, 27.0)
    """

    order: np.ndarray
    start: np.ndarray
    update_ptr: np.ndarray
    update: np.ndarray
    n_children: np.ndarray
    stored: int
    stack: int
    largest_front: int
    work: np.ndarray
    traffic: float
    transitions: int

    @property
    def flops(self) -> float:
        """Multiply-adds of the elimination (about ``sum_fronts pivots * front_size**2``)."""
        return float(self.work[-1])

    @property
    def cost(self) -> float:
        """The elimination's time in multiply-adds' worth: ``flops``, plus eight per front entry
        (fronts with few pivots cost their memory passes more than their arithmetic; measured on the
        sequence chains of Anselmi & Doncel)."""
        return self.flops + 8 * self.traffic

    @property
    def bytes(self) -> int:
        """Bytes of the numerical phase: both factors, the contribution stack with its row exponents,
        the largest front, the permuted rates and the per-state arrays."""
        floats = 2 * self.stored + self.stack + self.largest_front**2 + 2 * self.transitions + 6 * len(self.order)
        integers = len(self.update) + self.stack + self.stored // BLOCK + 2 * self.transitions + 10 * len(self.order)
        return 8 * (floats + integers)

    def __repr__(self) -> str:
        return (f"GTHPlan(n_states={len(self.order)}, supernodes={len(self.start) - 1}, "
                f"largest_front={self.largest_front}, stored={self.stored:,}, flops={self.flops:.3g}, "
                f"bytes={self.bytes:,})")


# ---------------------------------------------------------------------------------------------
# Symbolic analysis (compiled)
# ---------------------------------------------------------------------------------------------


@kernel
def etree(indptr, indices, n):  # pragma: no cover - compiled
    """Elimination tree of a symmetric pattern (Liu's algorithm with path compression)."""
    return _ordered_etree(indptr, indices, np.arange(n))


@kernel
def _ordered_etree(indptr, indices, order):  # pragma: no cover - compiled
    """Elimination tree of ``pattern[order][:, order]``, without forming it (node k is ``order[k]``)."""
    n = len(order)
    position = np.empty(n, np.int64)
    for k in range(n):
        position[order[k]] = k
    parent = -np.ones(n, np.int64)
    ancestor = -np.ones(n, np.int64)
    for k in range(n):
        for p in range(indptr[order[k]], indptr[order[k] + 1]):
            i = position[indices[p]]
            while i != -1 and i < k:
                following = ancestor[i]
                ancestor[i] = k
                if following == -1:
                    parent[i] = k
                i = following
    return parent


@kernel
def _postorder(parent, n):  # pragma: no cover - compiled
    """A post-order of the forest ``parent`` (children before parents, subtrees contiguous)."""
    head = -np.ones(n, np.int64)
    following = -np.ones(n, np.int64)
    for j in range(n - 1, -1, -1):
        if parent[j] != -1:
            following[j] = head[parent[j]]
            head[parent[j]] = j
    post = np.empty(n, np.int64)
    stack = np.empty(n, np.int64)
    k = 0
    for root in range(n):
        if parent[root] != -1:
            continue
        top = 0
        stack[0] = root
        while top >= 0:
            v = stack[top]
            child = head[v]
            if child == -1:
                post[k] = v
                k += 1
                top -= 1
            else:
                head[v] = following[child]
                top += 1
                stack[top] = child
    return post


@kernel
def _column_counts(indptr, indices, parent, n, cap):  # pragma: no cover - compiled
    """Number of entries of each column of the factor, diagonal included (row subtrees, O(|L|)),
    and their total; the count stops as soon as the total exceeds ``cap`` (so does the work)."""
    count = np.ones(n, np.int64)
    mark = -np.ones(n, np.int64)
    total = n
    for k in range(n):
        mark[k] = k
        for p in range(indptr[k], indptr[k + 1]):
            i = indices[p]
            while i < k and mark[i] != k:
                count[i] += 1
                mark[i] = k
                i = parent[i]
                total += 1
        if total > cap:
            break
    return count, total


@kernel
def _supernodes(parent, count, n, relax):  # pragma: no cover - compiled
    """First column of each supernode (and n): column j joins j - 1's supernode when j is j - 1's
    parent and only child, and either their structures nest or the supernode is still small."""
    children = np.zeros(n, np.int64)
    for j in range(n):
        if parent[j] != -1:
            children[parent[j]] += 1
    start = np.empty(n + 1, np.int64)
    m = 0
    start[0] = 0
    for j in range(1, n):
        joins = parent[j - 1] == j and children[j] == 1 and (count[j - 1] == count[j] + 1 or j - start[m] < relax)
        if not joins:
            m += 1
            start[m] = j
    start[m + 1] = n
    return start[: m + 2]


@kernel
def _grow(array, needed):  # pragma: no cover - compiled
    if needed <= len(array):
        return array
    grown = np.empty(max(needed, 2 * len(array)), array.dtype)
    for i in range(len(array)):       # a loop: a slice assignment costs numba a second of compiling
        grown[i] = array[i]
    return grown


@kernel
def _fronts(indptr, indices, parent, start, n):  # pragma: no cover - compiled
    """Update rows of every supernode's front (the later states its states reach after censoring),
    and its number of child supernodes."""
    m = len(start) - 1
    owner = np.empty(n, np.int64)
    for s in range(m):
        owner[start[s]:start[s + 1]] = s
    head = -np.ones(m, np.int64)
    sibling = -np.ones(m, np.int64)
    for s in range(m - 1, -1, -1):
        last = start[s + 1] - 1
        if parent[last] != -1:
            up = owner[parent[last]]
            sibling[s] = head[up]
            head[up] = s
    update_ptr = np.zeros(m + 1, np.int64)
    update = np.empty(4 * n + 16, np.int64)
    n_children = np.zeros(m, np.int64)
    mark = -np.ones(n, np.int64)
    for s in range(m):
        first, end = start[s], start[s + 1]
        size = update_ptr[s]
        for j in range(first, end):
            for p in range(indptr[j], indptr[j + 1]):
                i = indices[p]
                if i >= end and mark[i] != s:
                    mark[i] = s
                    update = _grow(update, size + 1)
                    update[size] = i
                    size += 1
        child = head[s]
        while child != -1:
            n_children[s] += 1
            for q in range(update_ptr[child], update_ptr[child + 1]):
                i = update[q]
                if i >= end and mark[i] != s:
                    mark[i] = s
                    update = _grow(update, size + 1)
                    update[size] = i
                    size += 1
            child = sibling[child]
        update_ptr[s + 1] = size
    return update_ptr, update[: update_ptr[m]].copy(), n_children


@kernel
def _sizes(start, update_ptr, n_children):  # pragma: no cover - compiled
    """Stored factor entries, peak contribution stack, largest front, the multiply-adds done before
    each supernode (and in all), and the entries of all fronts (each is cleared, assembled and
    scanned a few times)."""
    m = len(start) - 1
    stored, largest, alive, peak, traffic = 0, 0, 0, 0, 0.0
    work = np.zeros(m + 1)
    blocks = np.zeros(m + 1, np.int64)
    depth = 0
    for s in range(m):
        pivots = start[s + 1] - start[s]
        rest = update_ptr[s + 1] - update_ptr[s]
        size = pivots + rest
        stored += pivots * size - pivots * (pivots + 1) // 2
        traffic += float(size) * size
        work[s + 1] = work[s] + pivots * float(size) * size
        largest = max(largest, size)
        for _ in range(n_children[s]):
            depth -= 1
            alive -= blocks[depth]
        blocks[depth] = rest * rest
        depth += 1
        alive += rest * rest
        peak = max(peak, alive)
    return stored, peak, largest, work, traffic


# ---------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------


def symmetric(rates: sp.csr_array) -> sp.csr_array:
    """The pattern of ``rates + rates.T`` (entries 1, indices sorted): the undirected transition graph."""
    n = rates.shape[0]
    indptr, indices = rates.indptr.astype(np.int64), rates.indices.astype(np.int64)
    ptr, idx = _union(indptr, indices, *transpose(indptr, indices, np.ones(len(indices)), n)[:2])
    return sp.csr_array((np.ones(len(idx)), idx, ptr), shape=(n, n))


@kernel
def _union(a_ptr, a_idx, b_ptr, b_idx):  # pragma: no cover - compiled
    """CSR pattern of the union of two patterns whose rows are sorted (merged row by row, sorted)."""
    n = len(a_ptr) - 1
    ptr = np.zeros(n + 1, np.int64)
    idx = np.empty(len(a_idx) + len(b_idx), np.int64)
    at = 0
    for i in range(n):
        p, q = a_ptr[i], b_ptr[i]
        while p < a_ptr[i + 1] or q < b_ptr[i + 1]:
            if q == b_ptr[i + 1] or (p < a_ptr[i + 1] and a_idx[p] < b_idx[q]):
                idx[at] = a_idx[p]
                p += 1
            elif p == a_ptr[i + 1] or b_idx[q] < a_idx[p]:
                idx[at] = b_idx[q]
                q += 1
            else:
                idx[at] = a_idx[p]
                p += 1
                q += 1
            at += 1
        ptr[i + 1] = at
    return ptr, idx[:at].copy()


@kernel
def permute(indptr, indices, data, order):  # pragma: no cover - compiled
    """CSR arrays of ``matrix[order][:, order]`` (column indices unsorted)."""
    n = len(order)
    inverse = np.empty(n, np.int64)
    for k in range(n):
        inverse[order[k]] = k
    new_ptr = np.zeros(n + 1, np.int64)
    for k in range(n):
        new_ptr[k + 1] = new_ptr[k] + indptr[order[k] + 1] - indptr[order[k]]
    new_idx = np.empty(new_ptr[n], np.int64)
    new_val = np.empty(new_ptr[n])
    for k in range(n):
        at = new_ptr[k]
        for q in range(indptr[order[k]], indptr[order[k] + 1]):
            new_idx[at] = inverse[indices[q]]
            new_val[at] = data[q]
            at += 1
    return new_ptr, new_idx, new_val


@kernel
def _envelope(indptr, indices, order):  # pragma: no cover - compiled
    """Envelope of ``pattern[order][:, order]``, without forming it: the sum over rows of (row index -
    smallest column index in the row, if smaller)."""
    n = len(order)
    position = np.empty(n, np.int64)
    for k in range(n):
        position[order[k]] = k
    total = 0
    for k in range(n):
        first = k
        for q in range(indptr[order[k]], indptr[order[k] + 1]):
            first = min(first, position[indices[q]])
        total += k - first
    return total


def permuted_pattern(pattern: sp.csr_array, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR ``indptr`` and ``indices`` (int64) of ``pattern[order][:, order]``, without building a
    scipy matrix (whose checks cost a small chain's analysis more than the analysis itself)."""
    indptr, indices, _ = permute(pattern.indptr.astype(np.int64), pattern.indices.astype(np.int64),
                                 pattern.data.astype(float), order)
    return indptr, indices


def _profile(pattern: sp.csr_array, order: np.ndarray) -> int:
    """Envelope size of the pattern under ``order``: a bound on the fill of a banded elimination."""
    return int(_envelope(pattern.indptr.astype(np.int64), pattern.indices.astype(np.int64), order))


def _plan(pattern: sp.csr_array, order: np.ndarray, transitions: int, budget: float = math.inf) -> GTHPlan:
    """Supernodes, fronts and sizes of the elimination in ``order`` (post-ordered first); refused
    (:class:`StateSpaceTooLargeError`) as soon as the factors alone exceed ``budget`` bytes."""
    n = pattern.shape[0]
    order = order[_postorder(_ordered_etree(pattern.indptr.astype(np.int64), pattern.indices.astype(np.int64), order), n)]
    indptr, indices = permuted_pattern(pattern, order)
    parent = etree(indptr, indices, n)
    cap = int(min(budget / 16, 2**62)) + n     # both factors store each entry of L's pattern below the diagonal
    count, total = _column_counts(indptr, indices, parent, n, cap)
    if total > cap:
        below = total - n
        raise StateSpaceTooLargeError(n, int(n * budget / (16 * below)), "the GTH factorization",
                                      memory=(16 * below, int(budget)),
                                      advice="its factors alone need at least that much; the iterative method needs none")
    start = _supernodes(parent, count, n, _RELAX)
    update_ptr, update, n_children = _fronts(indptr, indices, parent, start, n)
    stored, stack, largest, work, traffic = _sizes(start, update_ptr, n_children)
    return GTHPlan(order, start, update_ptr, update, n_children, int(stored), int(stack), int(largest), work,
                   float(traffic), transitions)


def analyse(rates: sp.csr_array, root: int | None = None, thorough: bool = False, budget: float = math.inf) -> GTHPlan:
    """Symbolic analysis of the GTH factorization of an irreducible chain given by its off-diagonal
    ``rates``: the elimination order and the exact memory and work of the numerical phase,
    computed without allocating it. ``root``, if given, is eliminated last (the pinned state of the
    systems :meth:`Factorization.solve` solves).

    The orders considered: nested dissection; the banded reverse Cuthill–McKee order, taken
    whenever its envelope is no larger than nested dissection's factor (a banded order censors only
    between nearby states, so on birth–death and other level-structured chains it creates no
    long-range censored rates, which could otherwise underflow where probabilities span more than
    the double range); and with ``thorough``, on chains of at most ``MINIMUM_DEGREE_STATES``
    states whose dissection is costly, a minimum-degree order, the cheaper of the two kept.

    Parameters
    ----------
    rates : scipy.sparse.csr_array
        The off-diagonal rates of the chain, shape (n, n) (only their pattern matters here).
    root : int, optional
        The state eliminated last (default: wherever the order puts it).
    thorough : bool
        Whether a minimum-degree order (:func:`~analytic.ctmc._ordering.minimum_degree`, one SuperLU
        factorization) competes too, on chains of at most ``MINIMUM_DEGREE_STATES`` states whose
        nested dissection needs more than ``WIDE_SEPARATORS`` multiply-adds per state; the order
        with fewer multiply-adds is kept.
    budget : float
        Bytes the plan may need: an elimination whose factors alone need more is refused while it
        is being counted (the count of a plan far larger than memory costs as much as the plan).

    Returns
    -------
    GTHPlan
        The order, supernodes and fronts, with :attr:`GTHPlan.bytes` and :attr:`GTHPlan.flops`.

    Raises
    ------
    StateSpaceTooLargeError
        The factors alone need more than ``budget`` bytes in both the nested dissection and the
        banded order (the message gives a lower bound).

    Examples
    --------
    A birth–death chain of 1000 states needs no fill:

    >>> import scipy.sparse as sp
    >>> up, down = np.full(999, 0.5), np.ones(999)
    >>> plan = analyse(sp.diags_array([down, up], offsets=[-1, 1]).tocsr())
    >>> plan.stored <= 10 * 1000
    True
    """
    pattern = symmetric(rates)
    try:
        dissection = _plan(pattern, _rooted(nested_dissection(pattern.indptr, pattern.indices), root), rates.nnz, budget)
    except StateSpaceTooLargeError:
        dissection = None
    banded = _rooted(reverse_cuthill_mckee(pattern, symmetric_mode=True).astype(np.int64), root)
    if dissection is None or _profile(pattern, banded) <= dissection.stored:
        return _plan(pattern, banded, rates.nnz, budget)
    n = pattern.shape[0]
    if thorough and n <= MINIMUM_DEGREE_STATES and dissection.flops > WIDE_SEPARATORS * n:
        degree = _plan(pattern, _rooted(minimum_degree(pattern), root), rates.nnz)
        return min(dissection, degree, key=lambda plan: plan.flops)
    return dissection


def _rooted(order: np.ndarray, root: int | None) -> np.ndarray:
    """``order`` with ``root`` moved to the end."""
    return order if root is None else np.append(order[order != root], root)


def chunks(plan: GTHPlan) -> np.ndarray:
    """Supernode boundaries splitting the factorization into steps of about ``PROGRESS_FLOPS / 20``
    multiply-adds (one step for a small plan): the progress bar advances between them."""
    step = PROGRESS_FLOPS / 20
    marks = np.searchsorted(plan.work, np.arange(step, plan.flops, step))
    return np.unique(np.concatenate([[0], marks, [len(plan.start) - 1]]))
