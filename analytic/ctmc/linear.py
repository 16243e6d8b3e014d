"""Stationary laws by sparse LU or preconditioned GMRES, checked by mixed-precision refinement.

For chains whose GTH factorization does not fit (see :mod:`analytic.ctmc.gth`), the balance
equation of one reference state k is replaced by ``pi_k = 1``, which leaves (up to sign) a
nonsingular M-matrix with the sparsity of ``Q``. ``"direct"`` factorizes it with SuperLU
(``MMD_AT_PLUS_A`` ordering, diagonal pivots: row interchanges destroy the sign pattern, and partial
pivoting returned garbage for an M/M/1/200 queue at load 1.3); ``"iterative"`` runs restarted
GMRES preconditioned by an incomplete LU factorization (ILUTP, same ordering).

Neither is subtraction-free, and a small residual ``||pi Q||`` certifies nothing: the map from
residual to error is the chain's condition number, astronomically large for nearly decomposable
chains or probabilities spanning many decades. So the solution is *refined*: the residual of every
balance equation is computed in double-double arithmetic (about 32 digits), the correction is
solved with the same factorization, and the loop runs until the componentwise corrections stop
shrinking. Refinement with an extended-precision residual converges whenever the condition number
times the working precision is below one (Wilkinson; Moler, *Iterative refinement in floating
point*, J. ACM 14, 1967), and the size of the last correction, state by state, measures the error
that remains. The states whose measured relative error is within the package's accuracy are
vouched for; the rest lie below the reported floor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.csgraph import shortest_path

from analytic.errors import ConvergenceError

__all__ = ["DIRECT_SOLVE_LIMITS", "Refined", "solve"]

#: Without GTH, ``method="auto"`` solves directly up to this many states and iteratively above, by
#: the mean number of transitions per state: LU fill grows with the chain's dimension. Measured: no
#: fill for birth–death-like chains; on two-dimensional chains LU is at worst 1.7x slower than GMRES
#: (two M/M/1 queues, 6.4e5 states: 8.0 s vs 4.9 s) while GMRES can be 8x slower when the cheap ILU
#: stalls (moldable greedy(p*) chain, 2.5e5 states: 3.1 s vs 25 s); on four-dimensional chains LU
#: loses early (31 750 states: 10.6 s vs 3.6 s).
DIRECT_SOLVE_LIMITS = ((2.5, math.inf), (4.5, 2_000_000), (math.inf, 10_000))

#: Incomplete-LU settings tried in turn by the iterative solver: (drop tolerance, fill factor).
_ILU_SETTINGS = ((1e-2, 3.0), (1e-4, 10.0))

#: A direct solution is recomputed from the likeliest state when the reference state's
#: probability is below this fraction of the largest.
_MODE_RATIO = 1e-3

#: Restart length of GMRES, and restart cycles allowed per preconditioner while each halves the residual.
RESTART = 100
_GMRES_CYCLES = 20

#: Relative residual at which GMRES stops on the first solve, and on each refinement correction.
_RTOL, _CORRECTION_RTOL = 1e-12, 1e-12

#: SuperLU options: fill-reducing ordering of B + B^T, pivots taken on the diagonal.
DIAGONAL_PIVOTING = dict(permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0, options=dict(SymmetricMode=True))

#: Largest accepted scaled residual ||pi Q||_1 / max|q_ii| before other reference states are tried.
RESIDUAL_LIMIT = 1e-9

#: Smallest error estimate: the roundings of the last update and of the normalization.
_ROUNDING = 16 * np.finfo(float).eps

#: Error estimate of a state whose corrections stopped shrinking, in units of its last correction.
_STAGNANT = 10.0

#: Cut flows below this (probabilities and rates scaled to a largest value of 1) carry no
#: relative information.
FLOW_FLOOR = 1e-290

#: Refinement steps at most (it stops earlier when every state is settled or none progresses).
_REFINEMENTS = 10


@dataclass(frozen=True)
class Refined:
    """A refined stationary vector, the estimated relative error of each entry (``inf`` where
    refinement did not settle it), the refinement steps, Krylov iterations and the solver used."""

    probabilities: np.ndarray
    error: np.ndarray
    steps: int
    iterations: int
    label: str


# ---------------------------------------------------------------------------------------------
# Pinned systems and their solvers
# ---------------------------------------------------------------------------------------------


def pinned_system(generator: sp.csr_array, k: int) -> tuple[sp.csc_array, np.ndarray]:
    """``Q^T`` with the balance equation of state k replaced by ``-x_k = -1``, and its right side.

    Replacing the row instead of slicing row and column k out keeps the sparsity and needs no
    copy of the structure; the matrix is block triangular with M-matrix blocks (up to sign).
    """
    pinned = generator.copy()
    in_column_k = np.flatnonzero(pinned.indices == k)
    row_of_entry = np.searchsorted(pinned.indptr, in_column_k, side="right") - 1
    pinned.data[in_column_k] = np.where(row_of_entry == k, -1.0, 0.0)
    pinned.eliminate_zeros()
    rhs = np.zeros(generator.shape[0])
    rhs[k] = -1.0
    return pinned.T, rhs


class PinnedSolver:
    """A factorized pinned system: SuperLU (``setting`` None) or GMRES(100) with ILUTP(drop
    tolerance, fill factor), both with diagonal pivots. ``solve(rhs, rtol)`` returns the solution
    and the number of Krylov iterations.

    GMRES runs one restart cycle at a time and gives up as soon as a cycle fails to halve the
    residual: a hopeless system (an unlikely reference state) costs one cycle, not thousands of
    iterations, while slow steady convergence may take up to ``_GMRES_CYCLES`` cycles.
    """

    def __init__(self, generator: sp.csr_array, reference: int, setting: tuple[float, float] | None) -> None:
        self.matrix, self.rhs = pinned_system(generator, reference)
        self.reference, self.setting = reference, setting
        if setting is None:
            self._lu = spla.splu(self.matrix, **DIAGONAL_PIVOTING)
            self.label = "direct (SuperLU, MMD_AT_PLUS_A)"
        else:
            drop_tol, fill_factor = setting
            ilu = spla.spilu(self.matrix, drop_tol=drop_tol, fill_factor=fill_factor, **DIAGONAL_PIVOTING)
            self._preconditioner = spla.LinearOperator(self.matrix.shape, ilu.solve)
            self.label = f"iterative (GMRES({RESTART}), ILUTP drop_tol={drop_tol:g}, fill_factor={fill_factor:g})"

    def solve(self, rhs: np.ndarray, rtol: float, strict: bool = True) -> tuple[np.ndarray, int]:
        """The solution and the Krylov iterations; ``strict=False`` returns GMRES's last iterate
        where it stalls before ``rtol`` (a refinement correction needs only a few digits)."""
        if self.setting is None:
            return self._lu.solve(rhs), 0
        norm = np.linalg.norm(rhs)
        if norm == 0.0:
            return np.zeros_like(rhs), 0
        y, residuals, previous, residual = np.zeros_like(rhs), [], np.inf, np.inf
        for _ in range(_GMRES_CYCLES):
            y, _ = spla.gmres(self.matrix, rhs, x0=y, M=self._preconditioner, rtol=rtol, atol=0.0, restart=RESTART,
                              maxiter=1, callback=residuals.append, callback_type="pr_norm")
            residual = np.linalg.norm(self.matrix @ y - rhs) / norm  # GMRES's own test uses a preconditioned estimate
            if residual <= 10 * rtol:
                return y, len(residuals)
            if not residual < previous / 2:
                break
            previous = residual
        if not strict:
            return y, len(residuals)
        raise ConvergenceError(f"GMRES with ILUTP(drop_tol={self.setting[0]:g}) stopped at relative residual "
                               f"{residual:.3g} > rtol={rtol:g}")


def _likeliest(generator: sp.csr_array) -> int:
    """The likeliest state after 500 steps of the uniformized chain from the uniform law: a cheap
    guess of the mode that needs no linear solve."""
    rate = 1.05 * float(np.abs(generator.diagonal()).max())
    step = (sp.identity(generator.shape[0], format="csr") + generator / rate).T.tocsr()
    p = np.full(generator.shape[0], 1.0 / generator.shape[0])
    for _ in range(500):
        p = step @ p
    return int(np.argmax(p))


def _attempt(generator: sp.csr_array, reference: int,
             setting: tuple[float, float] | None) -> tuple[PinnedSolver, np.ndarray, int] | str:
    """The solver and solution pinned at ``reference`` (``x[reference] = 1``), or why it was rejected."""
    try:
        solver = PinnedSolver(generator, reference, setting)
        x, iterations = solver.solve(solver.rhs, _RTOL)
    except RuntimeError as exc:  # a vanished SuperLU pivot, or GMRES stalling
        return str(exc)
    if not np.all(np.isfinite(x)):
        return "the solution overflowed"
    x = np.maximum(x, 0.0)
    scale = float(np.abs(generator.diagonal()).max())
    scaled = float(np.abs(generator.T @ (x / x.sum())).sum()) / scale
    if scaled > RESIDUAL_LIMIT:
        return f"scaled residual ||pi Q||_1 / max|q_ii| = {scaled:.3g} > {RESIDUAL_LIMIT:g}"
    return solver, x, iterations


def _first_solution(generator: sp.csr_array, method: str,
                    references: list[int]) -> tuple[PinnedSolver, np.ndarray, int]:
    """The first accepted pinned solution, trying the reference states in turn, then (iterative
    only) a tighter preconditioner.

    A solution whose scaled residual ``||pi Q||_1 / max|q_ii|`` exceeds ``RESIDUAL_LIMIT`` is
    rejected (pinned at an unlikely state, SuperLU can even return one with residual 0.3) and the
    next reference state is tried; only when every one fails does the iterative solver move on to
    a tighter (costlier) ILU. An accepted direct solution whose reference state has probability
    below ``_MODE_RATIO`` times the largest is solved once more from the likeliest state: LU
    pivots are differences, and with the reference a million times less likely than the mode its
    own probability had lost 1e-10 relative.
    """
    failure = ""
    for setting in [None] if method == "direct" else _ILU_SETTINGS:
        for reference in references:
            outcome = _attempt(generator, reference, setting)
            if isinstance(outcome, str):
                failure = outcome
                continue
            solver, x, iterations = outcome
            mode = int(np.argmax(x))
            if setting is None and x[reference] < _MODE_RATIO * x[mode]:
                again = _attempt(generator, mode, setting)
                if not isinstance(again, str):
                    solver, x, iterations = again
            return solver, x, iterations
    raise ConvergenceError(
        f"no reference state among {sorted(set(references))} gave an accurate stationary vector (last: {failure}); "
        "the probabilities range too widely for double precision, or the chain is nearly decomposable")


# ---------------------------------------------------------------------------------------------
# Mixed-precision refinement
# ---------------------------------------------------------------------------------------------


@numba.njit(cache=True, inline="always")
def _two_sum(a, b):  # pragma: no cover - compiled
    s = a + b
    v = s - a
    return s, (a - (s - v)) + (b - v)


@numba.njit(cache=True, inline="always")
def _two_product(a, b):  # pragma: no cover - compiled
    """``a * b`` as an unevaluated sum of two doubles (Dekker's product, operands below 2**996)."""
    p = a * b
    c = 134217729.0 * a
    a_hi = c - (c - a)
    a_lo = a - a_hi
    c = 134217729.0 * b
    b_hi = c - (c - b)
    b_lo = b - b_hi
    return p, ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo


@numba.njit(cache=True)
def _balance_residual(in_ptr, in_idx, in_val, out_ptr, out_val, x):  # pragma: no cover - compiled
    """``(x Q)_j = sum_i x_i q_ij - x_j sum_k q_jk`` for every j, in double-double arithmetic.

    ``in_*``: CSR of the off-diagonal rates by target (row j: the rates into j); ``out_*``: CSR by
    source (row j: the rates out of j).
    """
    n = len(x)
    r = np.empty(n)
    for j in range(n):
        out_hi, out_lo = 0.0, 0.0
        for q in range(out_ptr[j], out_ptr[j + 1]):
            out_hi, e = _two_sum(out_hi, out_val[q])
            out_lo += e
        hi, lo = 0.0, 0.0
        for q in range(in_ptr[j], in_ptr[j + 1]):
            p, pe = _two_product(x[in_idx[q]], in_val[q])
            hi, e = _two_sum(hi, p)
            lo += e + pe
        p, pe = _two_product(x[j], out_hi)
        hi, e = _two_sum(hi, -p)
        lo += e - pe - x[j] * out_lo
        r[j] = hi + lo
    return r


def _refine(generator: sp.csr_array, solver: PinnedSolver, x: np.ndarray, floor: float,
            accuracy: float) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Iterative refinement of the pinned solution ``x`` with double-double balance residuals.

    Each step's relative correction of state i, ``c_i``, and its ratio to the previous one,
    ``r_i``, bound the error left in state i by ``c_i r_i / (1 - r_i)`` when the corrections shrink
    geometrically (``r_i < 1/2``); where they no longer shrink (the iterate jitters at the limit of
    what the solver resolves, or the first step), the error is estimated as ``_STAGNANT * c_i``.
    Refinement stops when every state above ``floor`` (relative to the largest) is within
    ``accuracy`` by this measure, when no unsettled state's correction shrank by half in the last
    step, or after ``_REFINEMENTS`` steps. Returns the refined (normalized) vector, the error
    estimate of each state (``inf`` where it is not settled), the number of steps and the Krylov
    iterations.
    """
    rates = generator.copy()
    rates.setdiag(0.0)
    rates.eliminate_zeros()
    unit = float(rates.data.max())
    rates = (rates / unit).tocsr()  # Dekker's product needs operands below 2**996
    into = rates.T.tocsr()
    arrays = (into.indptr.astype(np.int64), into.indices.astype(np.int64), into.data,
              rates.indptr.astype(np.int64), rates.data)
    reference = solver.reference
    x = x / x.max()
    previous = np.full_like(x, np.inf)
    error = np.full_like(x, np.inf)
    iterations, steps = 0, 0
    for steps in range(1, _REFINEMENTS + 1):
        residual = _balance_residual(*arrays, x) * unit
        residual[reference] = 0.0
        correction, used = solver.solve(-residual, _CORRECTION_RTOL, strict=False)
        iterations += used
        x = np.maximum(x + correction, 0.0)
        x /= x.max()
        change = np.divide(np.abs(correction), x, out=np.full_like(x, np.inf), where=x > 0)
        ratio = np.divide(change, previous, out=np.ones_like(x), where=np.isfinite(previous) & (previous > 0))
        error = change * np.where(ratio < 0.5, ratio / np.maximum(1.0 - ratio, 0.5), _STAGNANT)
        settled = error <= accuracy
        progressing = ~settled & (ratio < 0.5) | (steps == 1)
        if settled[x >= floor].all() or not progressing.any():
            break
        previous = change
    return x / x.sum(), np.maximum(error, _ROUNDING), steps, iterations


def _spread_references(generator: sp.csr_array, likeliest: int, pi: np.ndarray) -> list[int]:
    """Reference states for the check solves, chosen from the chain's structure rather than from a
    solution that may be wrong: the power iteration's likeliest state, the state farthest from it
    (in transitions), the state farthest from that one, and the likely state (within
    ``_MODE_RATIO`` of the mode of ``pi``) farthest from the likeliest."""
    graph = abs(generator)
    distance = shortest_path(graph, method="D", unweighted=True, indices=likeliest)
    distance[~np.isfinite(distance)] = -1
    far = int(np.argmax(distance))
    farther = shortest_path(graph, method="D", unweighted=True, indices=far)
    farther[~np.isfinite(farther)] = -1
    likely = np.flatnonzero(pi >= _MODE_RATIO * pi.max())
    return list(dict.fromkeys([likeliest, far, int(np.argmax(farther)), int(likely[np.argmax(distance[likely])])]))


@numba.njit(cache=True)
def _cut_flows(indptr, indices, rates, level, x, depth):  # pragma: no cover - compiled
    """Probability flow from each BFS level to the next and back, in double-double."""
    out_hi, out_lo = np.zeros(depth), np.zeros(depth)
    back_hi, back_lo = np.zeros(depth), np.zeros(depth)
    for i in range(len(x)):
        for q in range(indptr[i], indptr[i + 1]):
            j = indices[q]
            if level[j] == level[i] + 1:
                f, fe = _two_product(x[i], rates[q])
                out_hi[level[i]], e = _two_sum(out_hi[level[i]], f)
                out_lo[level[i]] += e + fe
            elif level[j] == level[i] - 1:
                f, fe = _two_product(x[i], rates[q])
                back_hi[level[j]], e = _two_sum(back_hi[level[j]], f)
                back_lo[level[j]] += e + fe
    return out_hi, out_lo, back_hi, back_lo


def _cut_error(generator: sp.csr_array, pi: np.ndarray, reference: int) -> np.ndarray:
    """Error estimate of each state from the flow balance across the level sets of a breadth-first
    search from ``reference``.

    Summing the balance equations over the states within distance l of the reference leaves the
    flow out across the cut minus the flow back in: the two are equal for the exact law, and their
    relative difference ``e_l`` is the relative error of the mass inside the cut against the mass
    outside. A pinned solve that misplaces a region behind a barrier balances every state locally
    yet fails this (the cut flows are tiny, but computed in double-double they are compared to
    their own size). A state at distance L gets ``sum_{l < L} e_l`` plus the largest finite such
    sum (the normalization). A cut whose flows are below ``FLOW_FLOOR`` (relative to the largest
    probability and rate) carries no relative information: the mass beyond it cannot be bounded,
    so its error, and through the normalization every state's, is infinite. (A solve pinned on the
    wrong side of such a cut can put a chain's whole mass on the wrong side of it.)
    """
    rates = generator.copy()
    rates.setdiag(0.0)
    rates.eliminate_zeros()
    rates = (rates / rates.data.max()).tocsr()
    level = shortest_path(abs(rates), method="D", unweighted=True, indices=reference, directed=False)
    level[~np.isfinite(level)] = 0
    level = level.astype(np.int64)
    depth = int(level.max()) + 1
    out_hi, out_lo, back_hi, back_lo = _cut_flows(rates.indptr.astype(np.int64), rates.indices.astype(np.int64),
                                                  rates.data, level, pi / pi.max(), depth)
    flow_out, flow_back = out_hi + out_lo, back_hi + back_lo
    smaller = np.minimum(flow_out, flow_back)
    gap = (out_hi - back_hi) + (out_lo - back_lo)
    cut = np.divide(np.abs(gap), smaller, out=np.full(depth, np.inf), where=smaller >= FLOW_FLOOR)[:-1]
    cumulative = np.concatenate([[0.0], np.cumsum(cut)])
    return cumulative[level] + cumulative.max()


def _relative_imbalance(generator: sp.csr_array, pi: np.ndarray) -> np.ndarray:
    """``|(pi Q)_j| / (pi_j q_j)`` for every state, the balance residual in double-double relative to
    the state's own outflow: of the order of the local relative errors of pi around j."""
    rates = generator.copy()
    rates.setdiag(0.0)
    rates.eliminate_zeros()
    rates = (rates / rates.data.max()).tocsr()
    into = rates.T.tocsr()
    x = pi / pi.max()
    residual = _balance_residual(into.indptr.astype(np.int64), into.indices.astype(np.int64), into.data,
                                 rates.indptr.astype(np.int64), rates.data, x)
    outflow = x * np.asarray(rates.sum(axis=1)).ravel()
    return np.divide(np.abs(residual), outflow, out=np.full_like(x, np.inf), where=outflow > 0)


@dataclass(frozen=True)
class _Solve:
    """One refined pinned solve: where it was pinned, its solver's label and preconditioner setting,
    its vector, error estimates, refinement steps and Krylov iterations (the factorization itself is
    not kept: on large chains two of them would not fit together)."""

    reference: int
    label: str
    setting: tuple[float, float] | None
    pi: np.ndarray
    error: np.ndarray
    steps: int
    iterations: int


def _refined(generator: sp.csr_array, outcome: tuple[PinnedSolver, np.ndarray, int], floor: float,
             accuracy: float) -> _Solve:
    solver, x, iterations = outcome
    pi, error, steps, more = _refine(generator, solver, x, floor, accuracy)
    return _Solve(solver.reference, solver.label, solver.setting, pi, error, steps, iterations + more)


def _check_solve(generator: sp.csr_array, candidate: int, a: _Solve, floor: float, accuracy: float) -> _Solve | None:
    """The refined solve pinned at ``candidate`` with ``a``'s solver, if it counts as evidence: the
    candidate must be likely in ``a``'s answer and in its own (a solve pinned at a state unlikely in
    its own answer is not evidence), and the solve accepted."""
    if candidate == a.reference or a.pi[candidate] < _MODE_RATIO * a.pi.max():
        return None
    outcome = _attempt(generator, candidate, a.setting)
    if isinstance(outcome, str) or outcome[1][candidate] < _MODE_RATIO * outcome[1].max():
        return None
    return _refined(generator, outcome, floor, accuracy)


def solve(generator: sp.csr_array, method: str, first: int | None, floor: float, accuracy: float,
          exact: np.ndarray | None = None) -> Refined:
    """Solve by ``method`` (``"direct"`` or ``"iterative"``), refine, and check the answer: against
    ``exact`` (GTH's law) when given, else against solves pinned at other reference states.

    The first solve is pinned at ``first`` (default: the likeliest state of a short power
    iteration). A pinned solve can misplace whole regions of the chain while every local balance
    equation holds (a nearly decomposable chain, or mass behind a barrier, seen from the wrong
    side): neither its residual nor its refinement shows it, only a solve pinned elsewhere or a
    balance across cuts. So without ``exact`` the answer is checked against solves pinned at the
    structurally spread states (``_spread_references``) that are likely in both answers, each
    refined, and by the flow balance across the breadth-first level sets around the reference and
    around each spread state (``_cut_error``; level sets around an end of the chain are what see a
    region misplaced on one side). The estimated error of a state is the largest of its refinement
    estimates, the relative disagreement between the solves, its relative balance imbalance and
    its cut errors. If no check solve is accepted, or the likeliest state's estimated error
    exceeds ``accuracy``, the answer is not vouched for.
    """
    likeliest = _likeliest(generator)
    n = generator.shape[0]
    references = list(dict.fromkeys([likeliest if first is None else first, likeliest, n - 1, 0]))
    a = _refined(generator, _first_solution(generator, method, references), floor, accuracy)
    label = a.label + ("" if a.reference == first else f", reference state {a.reference}")
    if exact is not None:
        disagreement = np.divide(np.abs(a.pi - exact), exact, out=np.full_like(exact, np.inf), where=exact > 0)
        return Refined(a.pi, np.maximum(a.error, disagreement), a.steps, a.iterations, label)
    iterations = a.iterations
    spread = _spread_references(generator, likeliest, a.pi)
    errors = [a.error, _relative_imbalance(generator, a.pi)]
    errors += [_cut_error(generator, a.pi, source) for source in dict.fromkeys([a.reference, *spread])]
    checked = []
    for candidate in spread:
        b = _check_solve(generator, candidate, a, floor, accuracy)
        if b is not None:
            iterations += b.iterations
            checked.append(candidate)
            errors += [b.error, np.divide(np.abs(a.pi - b.pi), a.pi, out=np.full_like(a.pi, np.inf), where=a.pi > 0)]
    error = np.maximum.reduce(errors)
    mode = int(np.argmax(a.pi))
    if not checked or error[mode] > accuracy:
        found = f"checked against the solves pinned at states {checked}" if checked else "no check solve was accepted"
        raise ConvergenceError(
            f"cannot vouch for the solve pinned at state {a.reference}: {found}, the likeliest state's "
            f"estimated relative error is {error[mode]:.3g} > {accuracy:g}; the chain is too ill conditioned for "
            "a pinned solve in double precision")
    return Refined(a.pi, error, a.steps, iterations, label)
