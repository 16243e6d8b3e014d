"""Stationary laws by the Grassmann–Taksar–Heyman (GTH) algorithm on sparse chains.

GTH eliminates states one at a time. Eliminating state t from a chain leaves the chain *censored*
on the other states: the rate from j to i gains ``rate(j -> t) * P(t -> i)``, where ``P(t -> i)``
is the censored rate from t to i divided by t's censored total outflow ``s_t``. The pivot ``s_t``
is computed as that sum of off-diagonal rates, never as a diagonal entry minus something, so
every operation adds, multiplies or divides non-negative numbers: no cancellation anywhere. Then
back-substitution gives ``pi_t = sum_j pi_j rate(j -> t) / s_t`` over the states eliminated after
t (Grassmann, Taksar & Heyman, *Regenerative analysis and steady state distributions for Markov
chains*, Oper. Res. 33, 1985). O'Cinneide (*Entrywise perturbation theory and error analysis for
Markov chains*, Numer. Math. 65, 1993) proved the algorithm entrywise stable and the problem
entrywise well conditioned: every probability, however small, comes out with a small relative
error, whatever the condition number of the generator.

This module runs GTH as a sparse *multifrontal* factorization:

* the states are ordered by nested dissection (:mod:`analytic.ctmc.ordering`) and the elimination
  tree of the symmetrized transition graph is post-ordered;
* chains of the tree with nested structure are grouped into supernodes; each supernode is
  eliminated in a dense *front* holding its states and the later states they reach, assembled from
  the original rates and from its children's contribution blocks (the censored rates among later
  states), and eliminated in blocks whose trailing update is a matrix product of non-negative
  matrices (BLAS);
* back-substitution holds each unnormalized probability as a mantissa and a binary exponent, so
  no value over- or underflows however widely the probabilities range.

Rates are first divided by each state's total outflow (the embedded jump chain, whose rates lie in
[0, 1] and cannot overflow), and ``log pi_i = log nu_i - log q_i`` undoes it. The analysis phase
(:func:`analyse`) returns the exact memory and work the factorization will need before anything is
allocated, so callers can refuse a chain that does not fit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import reverse_cuthill_mckee

from analytic.ctmc.balance import Balance, Measure
from analytic.ctmc.ordering import nested_dissection

__all__ = ["GTHPlan", "analyse", "stationary"]

#: Columns eliminated together before the trailing update of a front (the BLAS block size).
_BLOCK = 64

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
    """

    order: np.ndarray
    start: np.ndarray
    update_ptr: np.ndarray
    update: np.ndarray
    n_children: np.ndarray
    stored: int
    stack: int
    largest_front: int
    flops: float
    transitions: int

    @property
    def bytes(self) -> int:
        floats = self.stored + self.stack + self.largest_front**2 + 2 * self.transitions + 4 * len(self.order)
        integers = len(self.update) + 2 * self.transitions + 8 * len(self.order)
        return 8 * (floats + integers)

    def __repr__(self) -> str:
        return (f"GTHPlan(n_states={len(self.order)}, supernodes={len(self.start) - 1}, "
                f"largest_front={self.largest_front}, stored={self.stored:,}, flops={self.flops:.3g}, "
                f"bytes={self.bytes:,})")


# ---------------------------------------------------------------------------------------------
# Symbolic analysis (compiled)
# ---------------------------------------------------------------------------------------------


@numba.njit(cache=True)
def _etree(indptr, indices, n):  # pragma: no cover - compiled
    """Elimination tree of a symmetric pattern (Liu's algorithm with path compression)."""
    parent = -np.ones(n, np.int64)
    ancestor = -np.ones(n, np.int64)
    for k in range(n):
        for p in range(indptr[k], indptr[k + 1]):
            i = indices[p]
            while i != -1 and i < k:
                following = ancestor[i]
                ancestor[i] = k
                if following == -1:
                    parent[i] = k
                i = following
    return parent


@numba.njit(cache=True)
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


@numba.njit(cache=True)
def _column_counts(indptr, indices, parent, n):  # pragma: no cover - compiled
    """Number of entries of each column of the factor, diagonal included (row subtrees, O(|L|))."""
    count = np.ones(n, np.int64)
    mark = -np.ones(n, np.int64)
    for k in range(n):
        mark[k] = k
        for p in range(indptr[k], indptr[k + 1]):
            i = indices[p]
            while i < k and mark[i] != k:
                count[i] += 1
                mark[i] = k
                i = parent[i]
    return count


@numba.njit(cache=True)
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


@numba.njit(cache=True)
def _grow(array, needed):  # pragma: no cover - compiled
    if needed <= len(array):
        return array
    grown = np.empty(max(needed, 2 * len(array)), array.dtype)
    grown[: len(array)] = array
    return grown


@numba.njit(cache=True)
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


@numba.njit(cache=True)
def _sizes(start, update_ptr, n_children):  # pragma: no cover - compiled
    """Stored factor entries, peak contribution stack, largest front and multiply-adds."""
    m = len(start) - 1
    stored, largest, alive, peak = 0, 0, 0, 0
    flops = 0.0
    blocks = np.zeros(m + 1, np.int64)
    depth = 0
    for s in range(m):
        pivots = start[s + 1] - start[s]
        rest = update_ptr[s + 1] - update_ptr[s]
        size = pivots + rest
        stored += pivots * size
        flops += pivots * float(size) * size
        largest = max(largest, size)
        for _ in range(n_children[s]):
            depth -= 1
            alive -= blocks[depth]
        blocks[depth] = rest * rest
        depth += 1
        alive += rest * rest
        peak = max(peak, alive)
    return stored, peak, largest, flops


# ---------------------------------------------------------------------------------------------
# Numerical factorization and back-substitution (compiled)
# ---------------------------------------------------------------------------------------------


@numba.njit(cache=True)
def _eliminate(G, pivots, first, p, block):  # pragma: no cover - compiled
    """GTH elimination of the first p states of a dense front, in place.

    ``G[j, i]`` is the censored rate from front state j to front state i (row j: j's outflows).
    Eliminating pivot t: ``s_t = sum_{i > t} G[t, i]`` (the pivot), ``G[t, i] /= s_t`` (routing
    probabilities), and ``G[j, i] += G[j, t] * G[t, i]`` for later j, i. Done in blocks: the block's
    own columns first (panel), then a forward substitution on the rows below, then one matrix
    product for the trailing part. Afterwards ``G[j, t]`` (j > t) holds rate(j -> t) in the chain
    censored on {t, t+1, ...}: the back-substitution coefficients.
    """
    f = G.shape[0]
    for b0 in range(0, p, block):
        b1 = min(b0 + block, p)
        for t in range(b0, b1):
            total = 0.0
            for i in range(t + 1, f):
                total += G[t, i]
            pivots[first + t] = total
            if total > 0.0:
                for i in range(t + 1, f):
                    G[t, i] /= total
            for j in range(t + 1, b1):
                w = G[j, t]
                if w != 0.0:
                    for i in range(t + 1, f):
                        G[j, i] += w * G[t, i]
        if b1 < f:
            for j in range(b1, f):
                for t in range(b0, b1):
                    w = G[j, t]
                    if w != 0.0:
                        for i in range(t + 1, b1):
                            G[j, i] += w * G[t, i]
            if f - b1 > 16:
                G[b1:, b1:] += np.dot(np.ascontiguousarray(G[b1:, b0:b1]), np.ascontiguousarray(G[b0:b1, b1:]))
            else:
                for j in range(b1, f):
                    for t in range(b0, b1):
                        w = G[j, t]
                        if w != 0.0:
                            for i in range(b1, f):
                                G[j, i] += w * G[t, i]


@numba.njit(cache=True)
def _factor(out_ptr, out_idx, out_val, in_ptr, in_idx, in_val, start, update_ptr, update, n_children,
            stored, stack_size, block):  # pragma: no cover - compiled
    """Multifrontal GTH: pivots ``s_t`` and, per supernode, the back-substitution coefficients
    ``coef[t, j] = rate(front state j -> pivot t)`` in the censored chain (row-major, pivots x front).

    ``out_*`` is the CSR of the (scaled, permuted) rates, row c = rates out of c; ``in_*`` the CSR
    of its transpose, row c = rates into c.
    """
    n = len(out_ptr) - 1
    m = len(start) - 1
    pivots = np.zeros(n)
    coef_ptr = np.zeros(m + 1, np.int64)
    coef = np.empty(stored)
    local = np.empty(n, np.int64)
    stack = np.empty(max(stack_size, 1))
    block_at = np.empty(m + 1, np.int64)
    block_of = np.empty(m + 1, np.int64)
    depth, top = 0, 0
    for s in range(m):
        first, end = start[s], start[s + 1]
        p = end - first
        base = update_ptr[s]
        rest = update_ptr[s + 1] - base
        f = p + rest
        G = np.zeros((f, f))
        for t in range(p):
            local[first + t] = t
        for a in range(rest):
            local[update[base + a]] = p + a
        for t in range(p):  # original rates out of the pivots, and into them from later states
            c = first + t
            for q in range(out_ptr[c], out_ptr[c + 1]):
                if out_idx[q] >= first:
                    G[t, local[out_idx[q]]] += out_val[q]
            for q in range(in_ptr[c], in_ptr[c + 1]):
                if in_idx[q] >= end:
                    G[local[in_idx[q]], t] += in_val[q]
        for _ in range(n_children[s]):  # extend-add the children's censored rates
            depth -= 1
            child, at = block_of[depth], block_at[depth]
            cbase = update_ptr[child]
            crest = update_ptr[child + 1] - cbase
            top = at
            for a in range(crest):
                row = local[update[cbase + a]]
                for b in range(crest):
                    G[row, local[update[cbase + b]]] += stack[at + a * crest + b]
        _eliminate(G, pivots, first, p, block)
        at = coef_ptr[s]
        for t in range(p):
            for j in range(f):
                coef[at + t * f + j] = G[j, t]
        coef_ptr[s + 1] = at + p * f
        for a in range(rest):
            for b in range(rest):
                stack[top + a * rest + b] = G[p + a, p + b]
        block_at[depth], block_of[depth] = top, s
        depth += 1
        top += rest * rest
    return pivots, coef_ptr, coef


@numba.njit(cache=True)
def _back_substitute(start, update_ptr, update, pivots, coef_ptr, coef):  # pragma: no cover - compiled
    """``nu_t = sum_j coef[t, j] nu_j / s_t`` from the root (``nu = 1``) down, each ``nu`` held as a
    mantissa and a binary exponent so that no value over- or underflows.

    Each front's sums are formed in doubles scaled by a common power of two (the largest exponent
    among its later states, raised when a new value exceeds it by 2^900); a row whose terms all
    underflow at that scale is summed at the scale of its own largest term instead.
    """
    n = len(pivots)
    m = len(start) - 1
    mantissa = np.zeros(n)
    exponent = np.zeros(n, np.int64)
    for s in range(m - 1, -1, -1):
        first, end = start[s], start[s + 1]
        p = end - first
        base = update_ptr[s]
        f = p + update_ptr[s + 1] - base
        at = coef_ptr[s]
        index = np.empty(f, np.int64)
        for j in range(f):
            index[j] = first + j if j < p else update[base + j - p]
        shift = -(1 << 60)
        for j in range(p, f):
            if mantissa[index[j]] > 0.0:
                shift = max(shift, exponent[index[j]])
        scaled = np.zeros(f)
        for j in range(p, f):
            if mantissa[index[j]] > 0.0:
                scaled[j] = math.ldexp(mantissa[index[j]], exponent[index[j]] - shift)
        for t in range(p - 1, -1, -1):
            g = first + t
            if pivots[g] == 0.0:  # the root: nothing left after it
                mantissa[g], exponent[g] = 0.5, 1
            else:
                total = 0.0
                for j in range(t + 1, f):
                    total += coef[at + t * f + j] * scaled[j]
                reference = shift
                if not total > 1e-280:  # every term tiny at this scale: sum at the largest term's scale
                    reference = -(1 << 60)
                    for j in range(t + 1, f):
                        if coef[at + t * f + j] > 0.0 and mantissa[index[j]] > 0.0:
                            reference = max(reference, exponent[index[j]] + math.frexp(coef[at + t * f + j])[1])
                    total = 0.0
                    for j in range(t + 1, f):
                        if coef[at + t * f + j] > 0.0 and mantissa[index[j]] > 0.0:
                            total += math.ldexp(coef[at + t * f + j] * mantissa[index[j]], exponent[index[j]] - reference)
                if total > 0.0:  # total / pivot by mantissas and exponents: it overflowed at a pivot of 1e-200
                    top, top_power = math.frexp(total)
                    bottom, bottom_power = math.frexp(pivots[g])
                    value, power = math.frexp(top / bottom)
                    mantissa[g], exponent[g] = value, power + top_power - bottom_power + reference
            if mantissa[g] > 0.0:
                if exponent[g] > shift + 900:
                    for j in range(t + 1, f):
                        scaled[j] = math.ldexp(scaled[j], shift - exponent[g])
                    shift = exponent[g]
                scaled[t] = math.ldexp(mantissa[g], exponent[g] - shift)
    return mantissa, exponent


# ---------------------------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------------------------


def _embedded(rates: sp.csr_array, outflow: np.ndarray) -> sp.csr_array:
    """The jump chain: off-diagonal rates divided by each state's total outflow."""
    return (sp.diags_array(1.0 / outflow) @ rates).tocsr()


def _symmetric(rates: sp.csr_array) -> sp.csr_array:
    return (rates + rates.T).tocsr()


@numba.njit(cache=True)
def _permute(indptr, indices, data, order):  # pragma: no cover - compiled
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


@numba.njit(cache=True)
def _envelope(indptr, indices):  # pragma: no cover - compiled
    """Sum over rows of (row index - smallest column index in the row, if smaller)."""
    total = 0
    for k in range(len(indptr) - 1):
        first = k
        for q in range(indptr[k], indptr[k + 1]):
            first = min(first, indices[q])
        total += k - first
    return total


def _permuted(matrix: sp.csr_array, order: np.ndarray) -> sp.csr_array:
    """``matrix[order][:, order]`` in CSR (column indices unsorted)."""
    indptr, indices, data = _permute(matrix.indptr.astype(np.int64), matrix.indices.astype(np.int64),
                                     matrix.data.astype(float), order)
    return sp.csr_array((data, indices, indptr), shape=matrix.shape)


def _profile(pattern: sp.csr_array, order: np.ndarray) -> int:
    """Envelope size of the pattern under ``order``: a bound on the fill of a banded elimination."""
    permuted = _permuted(pattern, order)
    return int(_envelope(permuted.indptr, permuted.indices))


def _plan(pattern: sp.csr_array, order: np.ndarray, transitions: int) -> GTHPlan:
    """Supernodes, fronts and sizes of the elimination in ``order`` (post-ordered first)."""
    n = pattern.shape[0]
    permuted = _permuted(pattern, order)
    parent = _etree(permuted.indptr.astype(np.int64), permuted.indices.astype(np.int64), n)
    order = order[_postorder(parent, n)]
    permuted = _permuted(pattern, order)
    indptr, indices = permuted.indptr.astype(np.int64), permuted.indices.astype(np.int64)
    parent = _etree(indptr, indices, n)
    start = _supernodes(parent, _column_counts(indptr, indices, parent, n), n, _RELAX)
    update_ptr, update, n_children = _fronts(indptr, indices, parent, start, n)
    stored, stack, largest, flops = _sizes(start, update_ptr, n_children)
    return GTHPlan(order, start, update_ptr, update, n_children, int(stored), int(stack), int(largest),
                   float(flops), transitions)


def analyse(rates: sp.csr_array) -> GTHPlan:
    """Symbolic analysis of the GTH factorization of an irreducible chain given by its off-diagonal
    ``rates``: the elimination order and the exact memory and work of the numerical phase,
    computed without allocating it.

    Two orders are considered: nested dissection, and the banded reverse Cuthill–McKee order,
    taken whenever its envelope is no larger than nested dissection's factor. A banded order
    censors only between nearby states, so on birth–death and other level-structured chains it
    creates no long-range censored rates, which could otherwise underflow where probabilities
    span more than the double range.

    Examples
    --------
    A birth–death chain of 1000 states needs no fill:

    >>> import scipy.sparse as sp
    >>> up, down = np.full(999, 0.5), np.ones(999)
    >>> plan = analyse(sp.diags_array([down, up], offsets=[-1, 1]).tocsr())
    >>> plan.stored <= 10 * 1000
    True
    """
    pattern = _symmetric(rates)
    dissection = _plan(pattern, nested_dissection(pattern.indptr, pattern.indices), rates.nnz)
    banded = reverse_cuthill_mckee(pattern, symmetric_mode=True).astype(np.int64)
    if _profile(pattern, banded) <= dissection.stored:
        return _plan(pattern, banded, rates.nnz)
    return dissection


def stationary(balance: Balance, plan: GTHPlan) -> Measure:
    """The invariant measure of the scaled chain ``balance`` (:mod:`analytic.ctmc.balance`) by sparse
    GTH, each value held as a mantissa and a binary exponent.

    Raises ``FloatingPointError`` when a pivot underflows to zero before the last state or a value
    leaves the double range, where no accurate answer is given.
    """
    order = plan.order
    scaled = _permuted(_embedded(balance.rates, balance.outflow), order)
    into = scaled.T.tocsr()
    pivots, coef_ptr, coef = _factor(
        scaled.indptr.astype(np.int64), scaled.indices.astype(np.int64), scaled.data,
        into.indptr.astype(np.int64), into.indices.astype(np.int64), into.data,
        plan.start, plan.update_ptr, plan.update, plan.n_children, plan.stored, plan.stack, _BLOCK)
    if np.count_nonzero(pivots == 0.0) != 1 or pivots[-1] != 0.0:
        raise FloatingPointError("a GTH pivot underflowed to zero before the last state")
    mantissa, exponent = np.empty(len(order)), np.empty(len(order), np.int64)
    mantissa[order], exponent[order] = _back_substitute(plan.start, plan.update_ptr, plan.update, pivots, coef_ptr, coef)
    if not (np.all(np.isfinite(mantissa)) and np.all(mantissa > 0)):
        raise FloatingPointError("a value of the back-substitution left the double range")
    return Measure.from_parts(mantissa / balance.outflow, exponent)
