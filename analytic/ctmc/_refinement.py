"""Invariant measures refined in relative variables, to double-double accuracy, at any range.

A measure ``x`` is improved by solving the balance equations for the relative correction
``delta`` (``x_true = x (1 + delta)``): ``S delta = rho``, with ``S = I - P`` the scaled matrix and
``rho`` the relative flow excesses of :mod:`analytic.ctmc._balance`, computed in double-double. In
these variables every state counts alike, however small its probability: a solve that reduces the
2-norm of the scaled residual reduces every state's relative residual. Each *round* rebuilds ``S``
for the current ``x`` and updates ``x`` in double-double (Moler, *Iterative refinement in floating
point*, J. ACM 14, 1967, with the residual in extended precision).

Starting from a rough measure (all ones, or :meth:`Balance.rough_measure`), a round resolves the
states whose correction it computes to a few digits and lowers the others to the smallest factor it
can vouch for; the next round, scaled by that, resolves the next ten or so decades. So
probabilities spanning hundreds of decades are found in a few dozen cheap rounds, and the rounds
then continue as ordinary refinement until the relative residual reaches the requested level
(about 1e-30 at best).

Through a GTH factorization, a round whose largest relative excess exceeds one is *lifted*: the
excesses and the correction are divided by powers of two so that they fit in doubles, and each
state's factor ``1 + delta`` carries its own exponent, so a measure too small by more than the
double range (where GTH's elimination lost a deep tail to underflow) is raised; such rounds stop
when ten of them have not divided the excess by ten.

The scaled system is solved by SuperLU (``"direct"``; diagonal pivots, as ``S`` is an M-matrix),
by restarted GMRES preconditioned with ILU(0) or, on chains of ``MULTILEVEL_STATES`` states and more,
with a multilevel V-cycle (``"iterative"``; :mod:`analytic.ctmc._multilevel`), or through a GTH factorization of
the chain (:class:`~analytic.ctmc._gth.Factorization`), subtraction-free for each sign of the
right-hand side.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from tqdm import tqdm

from analytic.ctmc import _gth as gth
from analytic.ctmc._balance import Balance, Measure
from analytic.ctmc._certificate import relative_residual
from analytic.ctmc._krylov import gmres
from analytic.ctmc._multilevel import MULTILEVEL_STATES, Multilevel
from analytic.ctmc._preconditioner import ILU0

__all__ = ["Refinement", "ScaledSolver", "refine"]

#: Restart length of GMRES, and the restart cycles allowed while each cycle halves the residual.
RESTART = 100
_CYCLES = 30

#: Relative 2-norm residual of each correction solve.
_RTOL = 1e-10

#: A factor ``1 + delta`` below this is not resolved by the round that computed it.
_RESOLVED = 1e-6

#: The factor given to an unresolved state (its true factor lies below ``_RESOLVED``). Larger
#: steps make the scaled system's entries overflow where a state is lowered too far.
_UNRESOLVED = 1e-10

#: At most this many rounds (ten decades a round: enough for probabilities over 1800 decades).
MAX_ROUNDS = 200

#: A lifted round (:func:`_lifted_round`) divides the relative flow excesses and the correction by
#: a power of two bringing their largest exponent to at most this.
_LIFTED_POWER = 900

#: Coarse rounds through a factorization stop when ten of them have not divided the largest
#: relative excess by ten: a factorization that lost a deep tail's censored rates to underflow
#: cannot correct it (measured on the greedy(p*) chain of Table 1's α = 1/2 row at n = 2000, whose
#: law spans 1e-1186: the excess grew from 1e58 to 1e132 over 80 rounds).
_COARSE_WINDOW = 10

#: Chains of at least this many states show their refinement rounds in a progress bar (on a
#: terminal), with the largest relative flow excess reached.
PROGRESS_STATES = 100_000

#: SuperLU options: fill-reducing ordering of S + S^T, pivots on the diagonal.
DIAGONAL_PIVOTING = dict(permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0, options=dict(SymmetricMode=True))


class ScaledSolver:
    """Approximate solves with the scaled matrix of a measure: SuperLU, GMRES(ILU(0)), or a GTH
    factorization of the chain (``factorization``), which solves it exactly for its root.

    The factorization (or preconditioner) of one scaling keeps serving while later scalings differ
    from it by little (:meth:`update`); ``iterations`` counts Krylov iterations. ``pinned`` is the
    state the solves must be pinned at (the GTH root), or None.

    Parameters
    ----------
    balance : Balance
        The scaled balance equations of the chain.
    kind : str
        ``"direct"`` for SuperLU, ``"iterative"`` for GMRES(``RESTART``) with ILU(0); a label
        (``"gth"``) when ``factorization`` is given.
    factorization : Factorization, optional
        A GTH factorization of ``balance``, which then does every solve.

    Examples
    --------
    For the scaled chain of rates 1 (0 -> 1) and 2 (1 -> 0), whose exact measure is uniform, one
    solve of ``S delta = rho`` corrects a measure 0.1 % too high at state 1:

    >>> import scipy.sparse as sp
    >>> from analytic.ctmc._certificate import relative_residual
    >>> balance = Balance(sp.csr_array([[-1.0, 1.0], [2.0, -2.0]]))
    >>> x = Measure.from_parts(np.array([1.0, 1.001]), np.zeros(2, np.int64))
    >>> solver = ScaledSolver(balance, "iterative")
    >>> solver.update(x, 0, refactor=True)
    >>> rho, _ = relative_residual(balance, x, 0)
    >>> delta = solver.solve(rho, 1e-12)
    >>> round(1.001 * (1 + float(delta[1])), 12), solver.iterations
    (1.0, 1)
    """

    def __init__(self, balance: Balance, kind: str, factorization: gth.Factorization | None = None) -> None:
        self.balance, self.kind, self.factorization = balance, kind, factorization
        self.pinned = None if factorization is None else factorization.root
        self.iterations = 0
        self._x = self._matrix = self._factor = None
        self._aggregates: list[np.ndarray] = []

    def update(self, x: Measure, reference: int, refactor: bool) -> None:
        """Use the scaled matrix of ``x``; factor it again when ``refactor`` (or first).

        Parameters
        ----------
        x : Measure
            The current measure, positive.
        reference : int
            The pinned state (its row of the scaled matrix is the unit row).
        refactor : bool
            Whether to factor the new matrix (SuperLU or ILU(0)); otherwise the previous
            factorization serves as is.

        Raises
        ------
        FloatingPointError
            The scaled matrix left the double range, or its factorization lost a pivot
            (numerically singular).

        Examples
        --------
        With the exact (uniform) measure of the scaled chain of rates 1 and 2, pinned at 0,
        ``S = [[1, 0], [-1, 1]]``:

        >>> import scipy.sparse as sp
        >>> balance = Balance(sp.csr_array([[-1.0, 1.0], [2.0, -2.0]]))
        >>> solver = ScaledSolver(balance, "direct")
        >>> solver.update(Measure.from_parts(np.ones(2), np.zeros(2, np.int64)), 0, refactor=True)
        >>> solver.solve(np.array([0.0, 1.0]), 1e-12).tolist()
        [0.0, 1.0]
        """
        self._x = x
        if self.factorization is not None:
            return
        self._matrix = self.balance.scaled_matrix(x, reference)
        if refactor or self._factor is None:
            if self.kind == "direct":
                self._factor = _superlu(self._matrix, self.balance.order_toward(reference))
            elif self.balance.n >= MULTILEVEL_STATES:
                log_flow = np.log2(x.hi) + x.exponent + np.log2(self.balance.outflow)
                self._factor = Multilevel(self._matrix, log_flow, self._aggregates)
            else:
                self._factor = ILU0(self._matrix, self.balance.order_toward(reference))

    def solve(self, rhs: np.ndarray, rtol: float, weights: np.ndarray | None = None) -> np.ndarray:
        """``S y = rhs`` to a relative residual ``rtol`` in the 2-norm of ``weights * (S y - rhs)`` where
        possible (the best iterate otherwise; the factorizations solve exactly, whatever the weights).

        Parameters
        ----------
        rhs : numpy.ndarray
            The right-hand side, length n (0 at the pinned state).
        rtol : float
            The relative residual sought by GMRES.
        weights : numpy.ndarray, optional
            Positive row weights of the residual's norm (default: all ones).

        Returns
        -------
        numpy.ndarray
            ``y``, length n.

        Raises
        ------
        FloatingPointError
            The solve left the double range.

        Examples
        --------
        With the exact (uniform) measure of the scaled chain of rates 1 and 2, pinned at 0,
        ``S = [[1, 0], [-1, 1]]``, so ``y_1 = rhs_1 + y_0``:

        >>> import scipy.sparse as sp
        >>> balance = Balance(sp.csr_array([[-1.0, 1.0], [2.0, -2.0]]))
        >>> solver = ScaledSolver(balance, "iterative")
        >>> solver.update(Measure.from_parts(np.ones(2), np.zeros(2, np.int64)), 0, refactor=True)
        >>> solver.solve(np.array([0.0, 0.25]), 1e-12).round(12).tolist()
        [0.0, 0.25]
        """
        if not np.any(rhs):
            return np.zeros_like(rhs)
        if self.factorization is not None:
            with np.errstate(over="ignore", invalid="ignore"):    # inf - inf where both overflow: reported below
                y = self._through_factorization(np.maximum(rhs, 0.0)) - self._through_factorization(np.maximum(-rhs, 0.0))
        elif self.kind == "direct":
            y = self._factor.solve(rhs)
            y = y + self._factor.solve(rhs - self._matrix @ y)
        else:
            w = np.ones_like(rhs) if weights is None else weights
            y, iterations, _ = gmres(lambda v: w * (self._matrix @ v), lambda v: self._factor.solve(v / w), w * rhs,
                                     rtol, RESTART, _CYCLES)
            self.iterations += iterations
        if not np.all(np.isfinite(y)):
            raise FloatingPointError(f"the {self.kind} solve of the scaled system left the double range")
        return y

    def _through_factorization(self, rhs: np.ndarray) -> np.ndarray:
        """``S y = rhs`` for ``rhs >= 0`` by the GTH factorization: the sources are ``rhs x q'``."""
        return np.ldexp(*self.factorization_parts(rhs))

    def factorization_parts(self, rhs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``S y = rhs`` for ``rhs >= 0`` by the GTH factorization, as ``y = mantissa * 2**exponent``
        (which may lie beyond the double range).

        Parameters
        ----------
        rhs : numpy.ndarray
            The right-hand side, >= 0, length n.

        Returns
        -------
        mantissa : numpy.ndarray
            Mantissas of ``y``, in [0, 2).
        exponent : numpy.ndarray
            Their binary exponents (int64).

        Examples
        --------
        With rates 1/2 both ways (the scaled chain of rates 1 and 2), the uniform measure and the
        root 1 (``y_1 = 0``), state 0's row of ``S`` reads ``y_0 - y_1 = rhs_0``:

        >>> import scipy.sparse as sp
        >>> balance = Balance(sp.csr_array([[-1.0, 1.0], [2.0, -2.0]]))
        >>> factorization = gth.Factorization(balance, gth.analyse(balance.rates, root=1))
        >>> solver = ScaledSolver(balance, "gth", factorization)
        >>> solver.update(Measure.from_parts(np.ones(2), np.zeros(2, np.int64)), 1, refactor=True)
        >>> mantissa, exponent = solver.factorization_parts(np.array([3.0, 0.0]))
        >>> np.ldexp(mantissa, exponent).tolist()
        [3.0, 0.0]
        """
        x = self._x
        mantissa, exponent = self.factorization.solve(rhs * x.hi * self.balance.outflow, x.exponent)
        return mantissa / x.hi, exponent - x.exponent


class _Permuted:
    """A SuperLU factorization of ``matrix[order][:, order]`` that solves with ``matrix``."""

    def __init__(self, lu: spla.SuperLU, order: np.ndarray) -> None:
        self._lu, self._order = lu, order

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        out = np.empty(len(rhs))
        out[self._order] = self._lu.solve(rhs[self._order])
        return out


def _superlu(matrix: sp.csr_array, order: np.ndarray) -> spla.SuperLU | _Permuted:
    """SuperLU of the scaled system with diagonal pivots in a fill-reducing order; where its pivots
    cancel to zero, again in ``order`` (eliminating towards the pinned state)."""
    try:
        return spla.splu(matrix.tocsc(), **DIAGONAL_PIVOTING)
    except RuntimeError:    # "Factor is exactly singular": a pivot cancelled
        pass
    try:
        permuted = sp.csc_array(matrix[order][:, order])
        return _Permuted(spla.splu(permuted, permc_spec="NATURAL", diag_pivot_thresh=0.0,
                                   options=dict(SymmetricMode=True)), order)
    except RuntimeError as exc:
        raise FloatingPointError(f"SuperLU: {exc}: the scaled system is numerically singular") from None


@dataclass(frozen=True)
class Refinement:
    """A refined measure, its pinned state, and the work done (rounds, largest relative residual).

    Attributes
    ----------
    x : Measure
        The refined measure of the scaled chain.
    reference : int
        The state it is pinned at (moved by the rounds to the likeliest state, unless the
        solver is pinned).
    rounds : int
        Rounds of correction done.
    residual : float
        The largest relative flow excess of ``x``, rounding bound included.

    Examples
    --------
    The cycle 0 -> 1 -> 2 -> 0 with rates 1, 2 and 3 has ``pi = (6, 3, 2) / 11``; from the
    all-ones measure the rounds reach it:

    >>> import scipy.sparse as sp
    >>> balance = Balance(sp.csr_array([[-1.0, 1.0, 0], [0, -2.0, 2.0], [3.0, 0, -3.0]]))
    >>> ones = Measure.from_parts(np.ones(3), np.zeros(3, np.int64))
    >>> refined = refine(balance, ones, 0, 1e-20, ScaledSolver(balance, "direct"))
    >>> mantissa, exponent = balance.probabilities(refined.x)
    >>> law = np.ldexp(mantissa, exponent)
    >>> (law / law.sum()).round(12).tolist(), refined.reference, refined.residual <= 1e-20
    ([0.545454545455, 0.272727272727, 0.181818181818], 0, True)
    """

    x: Measure
    reference: int
    rounds: int
    residual: float


def refine(balance: Balance, x: Measure, reference: int, target: float, solver: ScaledSolver) -> Refinement:
    """Rounds of relative correction (module docstring) until every relative flow excess is below
    ``target``, or the rounds stop making progress. The pinned state moves to the likeliest one.

    Parameters
    ----------
    balance : Balance
        The scaled balance equations of the chain.
    x : Measure
        The starting measure, positive.
    reference : int
        The state pinned first.
    target : float
        The largest relative flow excess sought (about 1e-30 at best).
    solver : ScaledSolver
        The solver of the scaled systems (it counts its Krylov iterations).

    Returns
    -------
    Refinement
        The measure, its pinned state, the rounds and the residual reached.

    Raises
    ------
    FloatingPointError
        A factorization or a solve of the scaled system failed (numerically singular, or out of
        the double range).

    Examples
    --------
    The cycle 0 -> 1 -> 2 -> 0 with rates 1, 2 and 3 spends in each state a time proportional to
    its mean sojourn, ``pi = (6, 3, 2) / 11``; GMRES with ILU(0) finds it from the all-ones measure:

    >>> import scipy.sparse as sp
    >>> balance = Balance(sp.csr_array([[-1.0, 1.0, 0], [0, -2.0, 2.0], [3.0, 0, -3.0]]))
    >>> ones = Measure.from_parts(np.ones(3), np.zeros(3, np.int64))
    >>> refined = refine(balance, ones, 0, 1e-20, ScaledSolver(balance, "iterative"))
    >>> mantissa, exponent = balance.probabilities(refined.x)
    >>> law = np.ldexp(mantissa, exponent)
    >>> (law / law.sum()).round(12).tolist()
    [0.545454545455, 0.272727272727, 0.181818181818]
    """
    history: list[float] = []
    coarse: list[float] = []
    refactor = True
    rounds = 0
    with tqdm(desc="refinement rounds", unit=" round", leave=False,
              disable=None if balance.n >= PROGRESS_STATES else True) as progress:
        for rounds in range(MAX_ROUNDS + 1):
            correction, need = relative_residual(balance, x, reference)
            level = float(need.max())
            if level <= target or _stalled(history, level) or _stalled(coarse, level, _COARSE_WINDOW) or rounds == MAX_ROUNDS:
                return Refinement(x, reference, rounds, level)
            progress.set_postfix_str(f"largest relative flow excess {level:.2g}", refresh=False)
            progress.update()
            history.append(level)
            solver.update(x, reference, refactor)
            if solver.pinned is not None and not level <= 1.0:     # coarse: corrections may leave the doubles
                x = _lifted_round(balance, x, reference, solver)
                coarse.append(level)
                history.clear()
                continue
            delta = solver.solve(correction, _RTOL)
            delta[reference] = 0.0
            resolved = delta >= _RESOLVED - 1.0
            x = x.corrected(delta, resolved, np.maximum(1.0 + delta, _UNRESOLVED))
            if not resolved.all():      # still resolving decades: progress is not measured by the residual
                history.clear()
            refactor = not resolved.all() or float(np.abs(delta).max()) > 0.5
            likeliest = int(np.argmax(x.relative_to_top()))
            if solver.pinned is None and x.relative_to_top()[likeliest] > 2 * x.relative_to_top()[reference]:
                reference, refactor = likeliest, True
        return Refinement(x, reference, rounds, level)  # pragma: no cover - the loop returns


def _lifted_round(balance: Balance, x: Measure, reference: int, solver: ScaledSolver) -> Measure:
    """One coarse round through a factorization, for a measure whose relative flow excesses, or the
    corrections they call for, may lie beyond the double range (a measure far too small somewhere,
    as where GTH's first measure underflowed in a deep tail): the excesses are divided by a power
    of two so that they fit, the correction ``delta`` solved in those units (linear: exact up to
    rounding) and divided by another so that it fits, and each state multiplied by
    ``1 + 2**lift delta`` with the product's exponent carried (lowered at most to ``_UNRESOLVED``)."""
    lift = max(balance.largest_shift(x) - _LIFTED_POWER, 0)
    value = balance.lifted_excess(x, lift)
    value[reference] = 0.0
    relative = value / (balance.outflow * x.hi)
    up, up_power = solver.factorization_parts(np.maximum(relative, 0.0))
    down, down_power = solver.factorization_parts(np.maximum(-relative, 0.0))
    more = max(int(max(up_power.max(), down_power.max())) - _LIFTED_POWER, 0)
    lift += more
    delta = np.ldexp(up, up_power - more) - np.ldexp(down, down_power - more)
    delta[reference] = 0.0
    fraction, power = np.frexp(delta)
    huge = power + lift > 60
    factor = np.where(huge, np.where(delta > 0, fraction, _UNRESOLVED),
                      np.maximum(1.0 + np.ldexp(delta, np.where(huge, 0, lift)), _UNRESOLVED))
    return Measure.from_parts(x.hi * factor, x.exponent + np.where(huge & (delta > 0), power + lift, 0))


def _stalled(history: list[float], level: float, window: int = 3) -> bool:
    """No tenfold progress over the last ``window`` rounds of ``history`` (the rounds in which every
    state was resolved, or the coarse rounds through a factorization)."""
    return len(history) >= window and level > 0.1 * min(history[-window:])
