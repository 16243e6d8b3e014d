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

* the states are ordered by nested dissection (:mod:`analytic.ctmc._ordering`) and the elimination
  tree of the symmetrized transition graph is post-ordered;
* chains of the tree with nested structure are grouped into supernodes; each supernode is
  eliminated in a dense *front* holding its states and the later states they reach, assembled from
  the original rates and from its children's contribution blocks (the censored rates among later
  states), and eliminated in blocks whose trailing update is a product of non-negative matrices
  (compiled loops on the calling thread, blocked like a matrix product: ``_trailing``);
* back-substitution holds each unnormalized probability as a mantissa and a binary exponent, so
  no value over- or underflows however widely the probabilities range.

Rates are first divided by each state's total outflow (the embedded jump chain, whose rates lie in
[0, 1] and cannot overflow), and ``log pi_i = log nu_i - log q_i`` undoes it. The analysis phase
(:func:`analyse`, in :mod:`analytic.ctmc._gth_analysis`) returns the exact memory and work the
factorization will need before anything is allocated, so callers can refuse a chain that does not
fit.

One :class:`Factorization` serves a whole solve: its :meth:`~Factorization.measure` is computed once
(a single back-substitution, whoever asks), and the refinement rounds and the certificate solve
their pinned systems through the same factors (:meth:`~Factorization.solve`: one forward sweep and
one back-substitution per non-zero source). On chains of many million multiply-adds the
factorization runs in steps for a progress bar (``chunks``): several calls of ``_factor``, one
factorization.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from tqdm import tqdm

from analytic._kernels import kernel, two_sum
from analytic.ctmc._balance import Balance, Measure, transpose
from analytic.ctmc._gth_analysis import (
    BLOCK,
    PROGRESS_FLOPS,
    GTHPlan,
    analyse,
    chunks,
    etree,
    permute,
    permuted_pattern,
    symmetric,
)
from analytic.ctmc._rounding import factorization_bound, rounding_sum

__all__ = ["Factorization", "GTHPlan", "analyse"]


# ---------------------------------------------------------------------------------------------
# Numerical factorization and back-substitution (compiled)
# ---------------------------------------------------------------------------------------------


#: Exponent marking a front row that has received nothing yet.
_NONE = -(1 << 60)

#: A row of a front whose largest entry falls below this is rescaled by a power of two (its
#: exponent carried separately), so that censored rates never underflow.
_TINY = 2.0**-500

#: The smallest normal double: a result below it is rounded absolutely, not relatively.
_SMALLEST_NORMAL = 2.0**-1022

#: The normal powers of two up to ``2**500``: multiplying by one rounds as ``ldexp`` does, without its call.
_POWERS = np.ldexp(1.0, np.arange(-1022, 501))

#: Columns of a trailing update done together (a tile of a block's pivot rows stays in cache).
_TILE = 256


@kernel
def _rescale(G, exponent, first):  # pragma: no cover - compiled
    """Rows ``first..`` of ``G``, columns ``first..``: a row whose largest entry is below ``_TINY``
    is multiplied by a power of two bringing it to [1/2, 1), and its exponent lowered to match.
    Diagonal entries (the censored self-loops, which GTH never uses: a pivot sums the rates to
    *later* states) are cleared first, lest a return probability near one hide a row of vanishing
    outflows. A row's scan stops at its first entry of at least ``_TINY`` (almost every row has one
    near its start: the scans cost a pass over every front per block otherwise)."""
    f = G.shape[0]
    for j in range(first, f):
        G[j, j] = 0.0
        top = 0.0
        for i in range(first, f):
            top = max(top, G[j, i])
            if top >= _TINY:
                break
        if 0.0 < top < _TINY:
            power = -math.frexp(top)[1]
            for i in range(first, f):
                G[j, i] = math.ldexp(G[j, i], power)
            exponent[j] -= power


@kernel
def _eliminate(G, exponent, pivot, pivot_exponent, lower, upper, lower_exponent, at, at_exponent, first, p,
               block):  # pragma: no cover - compiled
    """GTH elimination of the first p states of a dense front, in place; row j of ``G`` holds the
    censored rates out of front state j, times ``2**-exponent[j]``.

    Eliminating pivot t: ``s_t = sum_{i > t} G[t, i]`` (the pivot, never a difference, summed with
    compensation so that it is rounded once: :mod:`analytic.ctmc._rounding`),
    ``G[t, i] /= s_t`` (routing probabilities), and ``G[j, i] += G[j, t] * G[t, i]`` for later j, i.
    Done in blocks: each block's rows are first rescaled where they became tiny (``_rescale``), its
    own columns eliminated (panel), then a forward substitution on the rows below and one matrix
    product for the trailing part (``_trailing``). After each block its factor is stored: ``lower[t, j] =
    G[j, t]`` (the rate from j into t in the chain censored on {t, t+1, ...}; row j's exponent in
    ``lower_exponent``, one entry per block and front row) and ``upper[t, i] = G[t, i]`` (t's
    routing probabilities, free of scale), for the later front states ``j, i > t`` only (``_row``).
    """
    f = G.shape[0]
    for b0 in range(0, p, block):
        b1 = min(b0 + block, p)
        _rescale(G, exponent, b0)
        for t in range(b0, b1):
            total, error = 0.0, 0.0       # compensated (Sum2): one rounding whatever the front's size
            for i in range(t + 1, f):
                total, lost = two_sum(total, G[t, i])
                error += lost
            total += error
            pivot[first + t], pivot_exponent[first + t] = total, exponent[t]
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
            _trailing(G, b0, b1)
        for j in range(f):
            lower_exponent[at_exponent + (b0 // block) * f + j] = exponent[j]
        for t in range(b0, b1):
            row = _row(at, f, t)
            for j in range(t + 1, f):
                lower[row + j] = G[j, t]
                upper[row + j] = G[t, j]


@kernel(fastmath={"contract"})
def _trailing(G, b0, b1):  # pragma: no cover - compiled
    """The trailing update of a block, in place: ``G[j, i] += sum_t G[j, t] G[t, i]`` for the rows and
    columns after the block (``j, i >= b1``) and its pivots ``b0 <= t < b1``.

    Blocked like a matrix product (Goto & van de Geijn, *Anatomy of high-performance matrix
    multiplication*, ACM TOMS 34, 2008): the block's columns below it are copied once into a packed
    panel ``A``, and per tile of ``_TILE`` columns its pivot rows into ``B`` (both then contiguous in
    cache, away from the front's long rows); four rows of the tile at a time are gathered into ``C``,
    receive the products of all the block's pivots four at a time, and are written back once.

    Compiled loops rather than BLAS: the work runs on the calling thread (a threaded BLAS on many
    small fronts spent most of its time synchronizing: the 10**6-state lattice's factorization took
    three times as long on a busy two-core machine). Every term is a product of non-negative
    numbers, and a fused multiply-add rounds once where a product and a sum round twice: the
    rounding analysis of :mod:`analytic.ctmc._rounding` covers any order of the sums."""
    f = G.shape[0]
    kc, m = b1 - b0, f - b1
    work = np.empty((m + 4) * kc + kc * _TILE + 4 * _TILE)
    A = work[: (m + 4) * kc].reshape((m + 4, kc))
    B = work[(m + 4) * kc: (m + 4 + _TILE) * kc].reshape((kc, _TILE))
    C = work[(m + 4 + _TILE) * kc:].reshape((4, _TILE))
    for j in range(m + 4):
        for t in range(kc):
            A[j, t] = G[b1 + j, b0 + t] if j < m else 0.0    # four rows of zeros pad the last group
    for c0 in range(b1, f, _TILE):
        w = min(_TILE, f - c0)
        for t in range(kc):
            for i in range(w):
                B[t, i] = G[b0 + t, c0 + i]
        for j in range(0, m, 4):
            rows = min(4, m - j)
            for r in range(rows):
                for i in range(w):
                    C[r, i] = G[b1 + j + r, c0 + i]
            t = 0
            while t + 4 <= kc:
                a00, a01, a02, a03 = A[j, t], A[j, t + 1], A[j, t + 2], A[j, t + 3]
                a10, a11, a12, a13 = A[j + 1, t], A[j + 1, t + 1], A[j + 1, t + 2], A[j + 1, t + 3]
                a20, a21, a22, a23 = A[j + 2, t], A[j + 2, t + 1], A[j + 2, t + 2], A[j + 2, t + 3]
                a30, a31, a32, a33 = A[j + 3, t], A[j + 3, t + 1], A[j + 3, t + 2], A[j + 3, t + 3]
                for i in range(w):
                    x, y, z, u = B[t, i], B[t + 1, i], B[t + 2, i], B[t + 3, i]
                    C[0, i] += (a00 * x + a01 * y) + (a02 * z + a03 * u)
                    C[1, i] += (a10 * x + a11 * y) + (a12 * z + a13 * u)
                    C[2, i] += (a20 * x + a21 * y) + (a22 * z + a23 * u)
                    C[3, i] += (a30 * x + a31 * y) + (a32 * z + a33 * u)
                t += 4
            while t < kc:
                for r in range(4):
                    a = A[j + r, t]
                    for i in range(w):
                        C[r, i] += a * B[t, i]
                t += 1
            for r in range(rows):
                for i in range(w):
                    G[b1 + j + r, c0 + i] = C[r, i]


@kernel
def _floats(n):  # pragma: no cover - compiled
    """An uninitialized array of n doubles from numba's allocator. numpy advises the kernel to back
    a large array with huge pages (``madvise``), and under the usual transparent-huge-page setting
    (``defrag = madvise``) the first touch of advised memory then compacts memory synchronously when
    free huge pages are few: on a machine whose page cache had fragmented memory, the 760 MB of the
    10**6-state lattice's factors took 1.4 s of page faults that way, against 0.3 s unadvised."""
    return np.empty(n)


@kernel(inline="always")
def _row(at, f, t):  # pragma: no cover - compiled
    """Where pivot t's factor row sits, minus t + 1: the row holds front entries ``t + 1 .. f - 1``
    (``lower[_row(at, f, t) + j]``), after the rows of the supernode's earlier pivots (``at``: its
    first), each one entry shorter than the one before."""
    return at + t * f - t * (t + 1) // 2 - t - 1


@kernel
def _exponent_slots(start, update_ptr, block):  # pragma: no cover - compiled
    """Offsets of each supernode's row exponents in the factor: one per block and front row."""
    m = len(start) - 1
    offsets = np.zeros(m + 1, np.int64)
    for s in range(m):
        p = start[s + 1] - start[s]
        f = p + update_ptr[s + 1] - update_ptr[s]
        offsets[s + 1] = offsets[s] + ((p + block - 1) // block) * f
    return offsets


@kernel
def _factor(begin, end_supernode, counters, out_ptr, out_idx, out_val, in_ptr, in_idx, in_val, start, update_ptr,
            update, n_children, block, pivot, pivot_exponent, lower, upper, exponent_ptr, lower_exponent, factor_ptr,
            local, stack, stack_exponent, block_at, block_of, exponent_at, front):  # pragma: no cover - compiled
    """Multifrontal GTH of supernodes ``begin..end_supernode - 1`` (in order; ``counters`` holds the
    contribution stack's depth, top and exponent top between calls): per state its pivot (mantissa
    and exponent), per supernode its factor blocks ``lower`` and ``upper`` (a row per pivot,
    of the front states after it: ``_row``, ``_eliminate``) and the row exponents of ``lower``.

    ``out_*`` is the CSR of the embedded (permuted) rates, row c = rates out of c; ``in_*`` the CSR
    of its transpose, row c = rates into c. Each contribution block leaves a front with its rows'
    exponents; extend-add aligns a row's contributions to the largest of their exponents, and
    ``counters[3]`` counts the contributions that alignment pushed below the normal range.
    """
    depth, top, top_exponent = counters[0], counters[1], counters[2]
    for s in range(begin, end_supernode):
        first, end = start[s], start[s + 1]
        p = end - first
        base = update_ptr[s]
        rest = update_ptr[s + 1] - base
        f = p + rest
        G = front[: f * f].reshape((f, f))    # one workspace for every front: no allocation per supernode
        G[:, :] = 0.0
        row_exponent = np.full(f, _NONE)
        for t in range(p):
            local[first + t] = t
        for a in range(rest):
            local[update[base + a]] = p + a
        for t in range(p):  # original (embedded) rates have exponent 0
            c = first + t
            for q in range(out_ptr[c], out_ptr[c + 1]):
                if out_idx[q] >= first:
                    row_exponent[t] = max(row_exponent[t], 0)
            for q in range(in_ptr[c], in_ptr[c + 1]):
                if in_idx[q] >= end:
                    row_exponent[local[in_idx[q]]] = max(row_exponent[local[in_idx[q]]], 0)
        depth_children = depth
        for _ in range(n_children[s]):  # the children's rows: their exponents first
            depth_children -= 1
            child = block_of[depth_children]
            cbase = update_ptr[child]
            crest = update_ptr[child + 1] - cbase
            for a in range(crest):
                row = local[update[cbase + a]]
                row_exponent[row] = max(row_exponent[row], stack_exponent[exponent_at[depth_children] + a])
        for r in range(f):
            if row_exponent[r] == _NONE:
                row_exponent[r] = 0
        for t in range(p):
            c = first + t
            for q in range(out_ptr[c], out_ptr[c + 1]):
                if out_idx[q] >= first:
                    G[t, local[out_idx[q]]] += math.ldexp(out_val[q], -row_exponent[t])
            for q in range(in_ptr[c], in_ptr[c + 1]):
                if in_idx[q] >= end:
                    row = local[in_idx[q]]
                    G[row, t] += math.ldexp(in_val[q], -row_exponent[row])
        for _ in range(n_children[s]):  # extend-add the children's censored rates
            depth -= 1
            child, at = block_of[depth], block_at[depth]
            cbase = update_ptr[child]
            crest = update_ptr[child + 1] - cbase
            top, top_exponent = at, exponent_at[depth]
            rows = np.empty(crest, np.int64)      # the front rows (and columns) of the child's update states
            for a in range(crest):
                rows[a] = local[update[cbase + a]]
            for a in range(crest):
                row = rows[a]
                shift = stack_exponent[top_exponent + a] - row_exponent[row]     # <= 0: the row's largest
                scale = _POWERS[shift + 1022] if shift >= -1022 else 0.0   # multiplying by it is ldexp's rounding
                below = 0
                for b in range(crest):
                    value = stack[at + a * crest + b]
                    aligned = value * scale if shift >= -1022 else math.ldexp(value, shift)
                    below += value > 0.0 and aligned < _SMALLEST_NORMAL   # shifted below the double range
                    G[row, rows[b]] += aligned
                counters[3] += below
        _eliminate(G, row_exponent, pivot, pivot_exponent, lower, upper, lower_exponent, factor_ptr[s],
                   exponent_ptr[s], first, p, block)
        factor_ptr[s + 1] = factor_ptr[s] + p * f - p * (p + 1) // 2
        _rescale(G, row_exponent, p)
        for a in range(rest):
            stack_exponent[top_exponent + a] = row_exponent[p + a]
            for b in range(rest):
                stack[top + a * rest + b] = G[p + a, p + b]
        block_at[depth], block_of[depth], exponent_at[depth] = top, s, top_exponent
        depth += 1
        top += rest * rest
        top_exponent += rest
    counters[0], counters[1], counters[2] = depth, top, top_exponent


@kernel
def _products_normal(start, update_ptr, factor_ptr, lower, upper):  # pragma: no cover - compiled
    """Whether every censored rate into a pivot (``lower``), every routing probability out of it
    (``upper``) and every product of the two that the elimination formed is at least the smallest
    normal double: then no rounding of the elimination was absolute. Per pivot the least product
    is the product of the least positive entries of its two factor rows."""
    for s in range(len(start) - 1):
        p = start[s + 1] - start[s]
        f = p + update_ptr[s + 1] - update_ptr[s]
        at = factor_ptr[s]
        for t in range(p):
            into, out, row = np.inf, np.inf, _row(at, f, t)
            for j in range(t + 1, f):
                if lower[row + j] > 0.0:
                    into = min(into, lower[row + j])
                if upper[row + j] > 0.0:
                    out = min(out, upper[row + j])
            if into < _SMALLEST_NORMAL or out < _SMALLEST_NORMAL or (into < np.inf and into * out < _SMALLEST_NORMAL):
                return False
    return True


@kernel
def _add(mantissa, exponent, i, value, power):  # pragma: no cover - compiled
    """``x_i += value * 2**power`` for ``x`` held as mantissas and exponents (value >= 0). The
    mantissas are kept below ``2**500`` and renormalized only then, so an addition costs one
    multiplication by a power of two (``_POWERS``)."""
    if value <= 0.0:
        return
    if mantissa[i] == 0.0:
        mantissa[i], exponent[i] = value, power
        return
    shift = power - exponent[i]
    if shift > 500:     # the new term dominates: move to its scale
        mantissa[i], exponent[i], shift = math.ldexp(mantissa[i], -shift), power, 0
    mantissa[i] += value * _POWERS[shift + 1022] if shift >= -1022 else math.ldexp(value, shift)
    if mantissa[i] > 2.0**500:
        m, e = math.frexp(mantissa[i])
        mantissa[i], exponent[i] = m, exponent[i] + e


@kernel
def _forward(start, update_ptr, update, factor_ptr, upper, mantissa, exponent):  # pragma: no cover - compiled
    """Carry sources down the elimination: the source reaching pivot t (all of it once t's turn
    comes) is routed on to the later states by t's routing probabilities, in place."""
    m = len(start) - 1
    for s in range(m):
        first, end = start[s], start[s + 1]
        p = end - first
        base = update_ptr[s]
        f = p + update_ptr[s + 1] - base
        at = factor_ptr[s]
        for t in range(p):
            g = first + t
            if mantissa[g] == 0.0:
                continue
            row = _row(at, f, t)
            for i in range(t + 1, f):
                u = upper[row + i]
                if u > 0.0:
                    _add(mantissa, exponent, first + i if i < p else update[base + i - p], mantissa[g] * u, exponent[g])


@kernel
def _back_substitute(start, update_ptr, update, pivot, pivot_exponent, factor_ptr, lower, exponent_ptr,
                     lower_exponent, block, source, source_exponent, root):  # pragma: no cover - compiled
    """``nu_t = (W_t + sum_j lower[t, j] nu_j) / s_t`` from the root (``nu = root``) down, where
    ``W`` is the source routed to t (:func:`_forward`); every value held as a mantissa and a binary
    exponent so that nothing over- or underflows.

    Each front's sums are formed in doubles scaled by a common power of two (the largest exponent
    among its later states, raised when a new value exceeds it by 2^900); a row whose terms all
    underflow at that scale is summed at the scale of its own largest term instead.
    """
    n = len(pivot)
    m = len(start) - 1
    mantissa = np.zeros(n)
    exponent = np.zeros(n, np.int64)
    for s in range(m - 1, -1, -1):
        first, end = start[s], start[s + 1]
        p = end - first
        base = update_ptr[s]
        f = p + update_ptr[s + 1] - base
        at, at_exponent = factor_ptr[s], exponent_ptr[s]
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
            rows, row = at_exponent + (t // block) * f, _row(at, f, t)
            if pivot[g] == 0.0:  # the root: nothing left after it
                if root > 0.0:
                    mantissa[g], exponent[g] = math.frexp(root)
            else:
                total = 0.0
                for j in range(t + 1, f):
                    if scaled[j] > 0.0:
                        if lower_exponent[rows + j] == 0:
                            total += lower[row + j] * scaled[j]
                        else:
                            total += math.ldexp(lower[row + j] * scaled[j], lower_exponent[rows + j])
                if source[g] > 0.0 and total > 0.0:
                    total += math.ldexp(source[g], source_exponent[g] - shift)
                reference = shift
                if not 1e-280 < total < 1e280:  # tiny (or no) terms at this scale: sum at the largest term's scale
                    reference = -(1 << 60)
                    for j in range(t + 1, f):
                        if lower[row + j] > 0.0 and mantissa[index[j]] > 0.0:
                            reference = max(reference, exponent[index[j]] + lower_exponent[rows + j]
                                            + math.frexp(lower[row + j])[1])
                    if source[g] > 0.0:
                        reference = max(reference, source_exponent[g] + math.frexp(source[g])[1])
                    total = 0.0
                    for j in range(t + 1, f):
                        if lower[row + j] > 0.0 and mantissa[index[j]] > 0.0:
                            total += math.ldexp(lower[row + j] * mantissa[index[j]],
                                                exponent[index[j]] + lower_exponent[rows + j] - reference)
                    if source[g] > 0.0:
                        total += math.ldexp(source[g], source_exponent[g] - reference)
                if total > 0.0:  # total / pivot by mantissas and exponents: it overflowed at a pivot of 1e-200
                    top, top_power = math.frexp(total)
                    bottom, bottom_power = math.frexp(pivot[g])
                    value, power = math.frexp(top / bottom)
                    mantissa[g], exponent[g] = value, power + top_power - bottom_power + reference - pivot_exponent[g]
            if mantissa[g] > 0.0:
                if exponent[g] > shift + 900:
                    for j in range(t + 1, f):
                        scaled[j] = math.ldexp(scaled[j], shift - exponent[g])
                    shift = exponent[g]
                scaled[t] = math.ldexp(mantissa[g], exponent[g] - shift)
    return mantissa, exponent


class VanishedPivot(FloatingPointError):
    """A GTH pivot vanished before the root: every censored rate out of ``state`` towards the states
    eliminated after it fell more than the double range below its other rates. Either the chain is
    numerically reducible, or the root is far less likely than ``state`` (a root guessed from a
    rough measure), and a factorization rooted at ``state`` can succeed."""

    def __init__(self, state: int) -> None:
        super().__init__(f"a GTH pivot vanished before the root (at state {state}): the censored rates towards the "
                         "root underflowed")
        self.state = state


class Factorization:
    """The sparse GTH factorization of a scaled chain (:class:`~analytic.ctmc._balance.Balance`),
    eliminated in the order of ``plan`` towards its root, the last state.

    :meth:`measure` is the invariant measure; :meth:`solve` the solution of the balance equations
    with non-negative sources, killed at the root (the pinned system of
    :mod:`analytic.ctmc._certificate`): both by additions, multiplications and divisions of
    non-negative numbers only, so every entry comes out with a small relative error.

    Raises ``VanishedPivot`` (a ``FloatingPointError``) when a pivot vanishes before the root:
    the chain is numerically reducible, or the root far less likely than the state named.

    Parameters
    ----------
    balance : Balance
        The scaled balance equations of an irreducible chain.
    plan : GTHPlan
        Its symbolic analysis (:func:`analyse` of ``balance.rates``); the memory it states is
        allocated here.

    Attributes
    ----------
    root : int
        The state eliminated last (the pinned state of :meth:`solve`).
    normal : bool
        Whether no operation of the elimination fell below the normal range of doubles (then
        :meth:`error_bound` is finite).

    Examples
    --------
    An M/M/1/2 queue (arrivals at rate 1, service at rate 2) has the geometric law
    ``(4, 2, 1) / 7``:

    >>> import scipy.sparse as sp
    >>> balance = Balance(sp.csr_array([[-1.0, 1.0, 0], [2.0, -3.0, 1.0], [0, 2.0, -2.0]]))
    >>> factorization = Factorization(balance, analyse(balance.rates))
    >>> mantissa, exponent = balance.probabilities(factorization.measure())
    >>> law = np.ldexp(mantissa, exponent)
    >>> (law / law.sum()).round(12).tolist()
    [0.571428571429, 0.285714285714, 0.142857142857]
    """

    def __init__(self, balance: Balance, plan: GTHPlan) -> None:
        self.balance, self.plan = balance, plan
        self.root = int(plan.order[-1])
        self._measure: Measure | None = None
        indptr, indices, rates = balance.out_csr
        out = permute(indptr, indices, rates / np.repeat(balance.outflow, np.diff(indptr)), plan.order)   # jump chain
        into = transpose(*out, balance.n)
        n, m = balance.n, len(plan.start) - 1
        self._pivot, self._pivot_exponent = np.zeros(n), np.zeros(n, np.int64)
        self._lower, self._upper = _floats(plan.stored), _floats(plan.stored)
        self._exponent_ptr = _exponent_slots(plan.start, plan.update_ptr, BLOCK)
        self._lower_exponent = np.empty(self._exponent_ptr[m], np.int64)
        self._factor_ptr = np.zeros(m + 1, np.int64)
        work = (np.empty(n, np.int64), _floats(max(plan.stack, 1)), np.empty(max(plan.stack, 1), np.int64),
                np.empty(m + 1, np.int64), np.empty(m + 1, np.int64), np.empty(m + 1, np.int64),
                _floats(plan.largest_front**2))
        counters = np.zeros(4, np.int64)

        def factor(begin: int, end: int) -> None:
            _factor(begin, end, counters, *out, *into, plan.start, plan.update_ptr, plan.update, plan.n_children,
                    BLOCK, self._pivot, self._pivot_exponent, self._lower, self._upper, self._exponent_ptr,
                    self._lower_exponent, self._factor_ptr, *work)

        if plan.flops > PROGRESS_FLOPS:     # in steps, for the progress bar
            with tqdm(total=round(plan.flops), unit=" multiply-adds", unit_scale=True, desc="GTH factorization",
                      disable=None, leave=False) as progress:
                for begin, end in itertools.pairwise(chunks(plan)):
                    factor(begin, end)
                    progress.update(round(plan.work[end] - plan.work[begin]))
        else:
            factor(0, m)
        if np.count_nonzero(self._pivot == 0.0) != 1 or self._pivot[-1] != 0.0:
            raise VanishedPivot(int(plan.order[np.flatnonzero(self._pivot[:-1] == 0.0)[-1]]))
        embedded = out[2][out[2] > 0]
        self.normal = bool(counters[3] == 0 and (embedded.size == 0 or embedded.min() >= _SMALLEST_NORMAL)
                           and _products_normal(plan.start, plan.update_ptr, self._factor_ptr, self._lower, self._upper))

    def error_bound(self) -> float:
        """An a-priori bound on the relative error of every probability of the normalized
        :meth:`measure` (before the rounding of the normalization), from the operation counts of
        the elimination (:mod:`analytic.ctmc._rounding`): independent of the chain's conditioning,
        valid when no operation fell below the normal range (``inf`` otherwise).

        Returns
        -------
        float
            The bound, or ``inf``.

        Examples
        --------
        An M/M/1/2 queue: three states, a bound of a few hundred units of ``2**-53``:

        >>> import scipy.sparse as sp
        >>> balance = Balance(sp.csr_array([[-1.0, 1.0, 0], [2.0, -3.0, 1.0], [0, 2.0, -2.0]]))
        >>> bound = Factorization(balance, analyse(balance.rates)).error_bound()
        >>> bool(1e-15 < bound < 1e-13)
        True
        """
        if not self.normal:
            return math.inf
        indptr, indices = permuted_pattern(symmetric(self.balance.rates), self.plan.order)
        return factorization_bound(*rounding_sum(indptr, indices, etree(indptr, indices, self.balance.n)))

    def measure(self) -> Measure:
        """The invariant measure of the scaled chain (values whose censored rates fell more than the
        double range below the rest of their row come out zero: :meth:`Balance.positive`).

        Returns
        -------
        Measure
            The measure, unnormalized, non-negative (positive but for such underflows).

        Raises
        ------
        FloatingPointError
            A value of the back-substitution left the double range.

        Examples
        --------
        Rates 1 (0 -> 1) and 2 (1 -> 0) scale to 1/2 both ways: the measure is uniform.

        >>> import scipy.sparse as sp
        >>> balance = Balance(sp.csr_array([[-1.0, 1.0], [2.0, -2.0]]))
        >>> Factorization(balance, analyse(balance.rates)).measure().relative_to_top().tolist()
        [0.5, 0.5]
        """
        if self._measure is None:       # one back-substitution, whoever asks (the root's check, the solver)
            zero = np.zeros(self.balance.n)
            self._measure = self._flows_to_measure(*self._back(zero, zero.astype(np.int64), 1.0))
        return self._measure

    def solve(self, mantissa: np.ndarray, exponent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``u`` with ``u_i q'_i - sum_j u_j q'_ji = w_i`` for every state but the root and ``u_root = 0``,
        for sources ``w = mantissa * 2**exponent >= 0``: mantissas and exponents of ``u``.

        Parameters
        ----------
        mantissa : numpy.ndarray
            Mantissas of the sources, >= 0, aligned with the states.
        exponent : numpy.ndarray
            Their binary exponents (integers).

        Returns
        -------
        mantissa : numpy.ndarray
            Mantissas of ``u`` (0 at the root).
        exponent : numpy.ndarray
            Their binary exponents: ``u = mantissa * 2**exponent``.

        Raises
        ------
        FloatingPointError
            A value of the back-substitution left the double range.

        Examples
        --------
        With rates 1/2 both ways (the scaled chain of rates 1 and 2) and the root 1, state 0's
        equation is ``u_0 / 2 = w_0``:

        >>> import scipy.sparse as sp
        >>> balance = Balance(sp.csr_array([[-1.0, 1.0], [2.0, -2.0]]))
        >>> factorization = Factorization(balance, analyse(balance.rates, root=1))
        >>> mantissa, exponent = factorization.solve(np.ones(2), np.zeros(2, np.int64))
        >>> np.ldexp(mantissa, exponent).tolist()
        [2.0, 0.0]
        """
        if not np.any(mantissa):        # no source: nothing reaches any state (a sweep would find the same)
            return np.zeros(self.balance.n), np.zeros(self.balance.n, np.int64)
        order = self.plan.order
        source, power = np.ascontiguousarray(mantissa[order], dtype=float), exponent[order].astype(np.int64)
        _forward(self.plan.start, self.plan.update_ptr, self.plan.update, self._factor_ptr, self._upper, source, power)
        flow, flow_exponent = self._back(source, power, 0.0)
        x = self._flows_to_measure(flow, flow_exponent)
        return x.hi, x.exponent

    def _back(self, source: np.ndarray, power: np.ndarray, root: float) -> tuple[np.ndarray, np.ndarray]:
        """Back-substitution, returned in the states' own order."""
        order = self.plan.order
        values, exponents = _back_substitute(self.plan.start, self.plan.update_ptr, self.plan.update, self._pivot,
                                             self._pivot_exponent, self._factor_ptr, self._lower, self._exponent_ptr,
                                             self._lower_exponent, BLOCK, source, power, root)
        if not np.all(np.isfinite(values)):
            raise FloatingPointError("a value of the GTH back-substitution left the double range")
        mantissa, exponent = np.empty(len(order)), np.empty(len(order), np.int64)
        mantissa[order], exponent[order] = values, exponents
        return mantissa, exponent

    def _flows_to_measure(self, flow: np.ndarray, exponent: np.ndarray) -> Measure:
        """Flows ``nu_i`` (embedded units) divided by the outflows: the measure ``u_i = nu_i / q'_i``."""
        return Measure.from_parts(flow / self.balance.outflow, exponent)
