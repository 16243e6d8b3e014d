"""Truncated stationary solves with a certified bound on what was left out.

A chain too large to build (or infinite) is solved on a finite set ``K`` of kept states, and
every stationary expectation of a bounded reward comes back as an interval that provably contains
the exact value: a drift condition bounds the mass outside ``K`` (:class:`Drift`, checked by
:func:`lattice_drift`, :func:`function_drift_inside` or :func:`level_drift`), the truncated chain
(:class:`TruncatedChain`, from :func:`truncate_lattice` or :func:`truncate_function`) is solved
with its mean hitting times of a reference state bounded, and :func:`solve_truncated` combines them
into a :class:`Truncation`. The theorem (Dayar, Hermanns, Spieler & Wolf 2011; Courtois & Semal
1984) and how each hypothesis is checked: :doc:`/truncation`.

Examples
--------
An M/M/1/500 queue (arrivals 1, service 2) kept at 0..30, with ``V = 1.9**x``:
``GV = 1.9**x (0.9 + 2 (1/1.9 - 1)) < 0`` for ``1 <= x < 500`` (and at 500), checked on all 501 states:

>>> import numpy as np
>>> moves = [((1,), lambda X: 1.0 * (X[:, 0] < 500)), ((-1,), lambda X: 2.0 * (X[:, 0] > 0))]
>>> chain = truncate_lattice(np.arange(31)[:, None], moves, lambda X: X[:, 0] <= 500, reference=(0,))
>>> drift = lattice_drift([np.arange(501)[:, None]], moves, lambda X: 1.9 ** X[:, 0], chain)
>>> result = solve_truncated(chain, drift)
>>> low, high = result.interval(lambda X: 1.0 * (X[:, 0] == 0), 0.0, 1.0)     # P(empty) = 1/2
>>> bool(low <= 0.5 <= high), high - low < 1e-5
(True, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from analytic.ctmc._drift import (  # noqa: F401 - lattice_generator_drift: the bounds modules import it from here
    Drift,
    function_drift_inside,
    lattice_drift,
    lattice_generator_drift,
    level_drift,
)
from analytic.ctmc._truncated_chain import UNIT, TruncatedChain, rounding, truncate_function, truncate_lattice
from analytic.ctmc.chain import CTMC
from analytic.ctmc.spaces import vector_result
from analytic.ctmc.stationary import ACCURACY, Stationary
from analytic.errors import ConvergenceError, InvalidParameterError
from analytic.validation import real

__all__ = [
    "Drift",
    "TruncatedChain",
    "Truncation",
    "function_drift_inside",
    "lattice_drift",
    "level_drift",
    "solve_truncated",
    "truncate_function",
    "truncate_lattice",
]

#: Rounds of correction of the hitting-time supersolution before giving up.
_HITTING_ROUNDS = 4


#: Narrowest interval a certified computation is asked for (double precision, relative accuracy
#: of the solves).
MINIMUM_WIDTH = 1e-13


def checked_width(width: float) -> tuple[float, float]:
    """``width`` of the intervals asked of a certified computation (in ``[MINIMUM_WIDTH, 1)``) and
    the componentwise tolerance its stationary solves need for it (an eighth of it, at most the
    default accuracy); shared by :func:`~analytic.moldable.greedy_bounds` and
    :func:`~analytic.splitting.fcfs_bounds`."""
    target = real("width", width)
    if not MINIMUM_WIDTH <= target < 1:
        raise InvalidParameterError("width", width, f"must lie in [{MINIMUM_WIDTH:g}, 1)")
    return target, min(ACCURACY, target / 8)


# ---------------------------------------------------------------------------------------------
# (ii) Hitting times of the reference state
# ---------------------------------------------------------------------------------------------


def hitting_time_bound(generator: sp.csr_array, reference: int, states: Any = None) -> np.ndarray:
    """A proven upper bound on the mean time ``m_j = E_j σ_z`` to reach ``z`` from each state of a
    finite irreducible chain (``m_z = 0``).

    Solves ``(-Q)_{K'K'} w = 1`` (a little more) on ``K' = K \\ {z}`` and checks ``(-Q w)_i >= 1`` on every row with
    a bound on the rounding; ``-Q_{K'K'}`` is a nonsingular M-matrix, so a checked ``w >= 0`` is
    ``>= m`` (theorem (ii)). A ``w`` that falls short by less than half is scaled up by what each
    row lacks, with room for the rounding of the scaled ``w`` itself, and checked again.

    Parameters
    ----------
    generator : scipy.sparse.csr_array
        Off-diagonal rates (a diagonal is ignored).
    reference : int
        Index of ``z``.
    states : sequence, optional
        The states of the rows, to name one in an error message.

    Returns
    -------
    numpy.ndarray
        ``w >= m``, with ``w_z = 0``.

    Raises
    ------
    ConvergenceError
        No ``w`` was verified in four rounds (the chain is too ill-conditioned for double
        precision); the message gives the row that fell short and by how much.

    Examples
    --------
    Two states, rates 1 and 3: from state 1 the time to reach 0 is 1/3.

    >>> hitting_time_bound(sp.csr_array([[0.0, 1.0], [3.0, 0.0]]), 0).tolist()[0]
    0.0
    >>> bool(1 / 3 <= hitting_time_bound(sp.csr_array([[0.0, 1.0], [3.0, 0.0]]), 0)[1] < 0.67)
    True
    """
    rates = sp.csr_array(generator, dtype=float)
    rates.setdiag(0)
    rates.eliminate_zeros()
    n = rates.shape[0]
    if n == 1:
        return np.zeros(1)
    others = np.flatnonzero(np.arange(n) != reference)
    outflow = np.asarray(rates.sum(axis=1)).ravel()
    inner = rates[others][:, others]
    matrix = (sp.diags_array(outflow[others]) - inner).tocsc()
    rhs = np.full(len(others), 1.0 + 2.0**-20)
    solve = _factor(matrix)
    w = np.zeros(n)
    w[others] = np.maximum(solve(rhs), 0.0)
    for _ in range(_HITTING_ROUNDS):
        lower, kept = _supplied_lower(rates, w)
        lower[reference] = kept[reference] = np.inf
        least = float(lower.min())
        if least >= 1:
            return w
        worst = float(kept.min())
        if worst > 0.5:
            w = w * ((1 + 16 * UNIT) / worst)
            w[reference] = 0.0
            continue
        correction = solve(np.maximum(rhs - lower[others], 0.0) + 1.0)
        w[others] = w[others] + np.maximum(correction, 0.0)
    row = int(np.argmin(lower))
    where = f"state {states[row]!r}" if states is not None else f"row {row}"
    rounding = float(np.max(lower[others] - kept[others]))
    raise ConvergenceError(f"no upper bound on the mean hitting times of the reference state was verified in "
                           f"{_HITTING_ROUNDS} rounds: it needs w with (-Q w) >= 1 at every state but the reference, and "
                           f"at {where} the last w gave {least:.12g} (short by {1 - least:.3g}); with hitting times up to "
                           f"{float(w.max()):.3g}, the rounding of the check and of w moves a row by up to {rounding:.3g}: "
                           "near 1, the truncated chain is too ill-conditioned for double precision (a reference state "
                           "nearer the bulk of the law has shorter hitting times)")


def _supplied_lower(rates: sp.csr_array, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each row, a lower bound on ``(-Q w)_i = Σ_j q_ij (w_i - w_j)``, rounding included, and
    what is left of it for ``w`` scaled by any factor ``a`` and rounded, divided by ``a``: the
    rounding of the check counted twice more and the rounding of each scaled entry of ``w``
    (relative ``2^-53``, so at most ``2^-53 Σ_j q_ij (w_i + w_j)`` on the row)."""
    coo = rates.tocoo()
    terms = coo.data * (w[coo.row] - w[coo.col])
    n = rates.shape[0]
    total = np.bincount(coo.row, weights=terms, minlength=n)
    magnitude = np.bincount(coo.row, weights=np.abs(terms), minlength=n)
    spread = np.bincount(coo.row, weights=coo.data * (w[coo.row] + w[coo.col]), minlength=n)
    row_length = np.diff(rates.indptr)
    lengths, position = np.unique(row_length, return_inverse=True)
    slack = np.array([rounding(int(k)) for k in lengths])[position] * magnitude
    lower = total - slack - 2.0**-1070
    return lower, lower - 2 * slack - 4 * UNIT * spread


def _factor(matrix: sp.csc_array) -> Callable[[np.ndarray], np.ndarray]:
    """A solver for the M-matrix of the hitting times: SuperLU, or GMRES with ILU when that fails."""
    try:
        lu = spla.splu(matrix, permc_spec="COLAMD")
        return lu.solve
    except (MemoryError, RuntimeError):
        ilu = spla.spilu(matrix, drop_tol=1e-6, fill_factor=5)
        preconditioner = spla.LinearOperator(matrix.shape, ilu.solve)

        def iterate(rhs: np.ndarray) -> np.ndarray:
            x, _ = spla.gmres(matrix, rhs, M=preconditioner, rtol=1e-12, restart=50, maxiter=200)
            return x
        return iterate


# ---------------------------------------------------------------------------------------------
# (iii) The result and its intervals
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class Truncation:
    """A truncated stationary solve and what it vouches for (the theorem of :doc:`/truncation`).

    Attributes
    ----------
    law : Stationary
        ``ν``, the stationary law of ``Q^z`` (exits sent to the reference state), with its proven
        per-state accuracy.
    neglected_mass : float
        ``ε >= π(S \\ K)``, from the drift condition.
    entry_cost : float
        ``κ = max_{y ∉ K} Σ_j q(y, j) m_j``: how much the stationary flow into ``K`` can move the
        law on ``K``, per unit of neglected mass.
    hitting_times : numpy.ndarray or None
        The checked upper bounds ``m_j`` on the mean time to reach the reference state (None when
        no state outside jumps into the kept set: then ``κ = 0`` and they are not needed).
    drift : Drift
        The checked drift condition behind ``neglected_mass``.
    chain : TruncatedChain
        The kept set and its rates.

    Examples
    --------
    >>> step = lambda x: [(x + 1, 1.0), (x - 1, 2.0 * (x > 0))]          # M/M/1, λ = 1, μ = 2
    >>> chain = truncate_function(list(range(41)), step, [41], 0)
    >>> inside = function_drift_inside(range(41), step, lambda x: 1.5 ** x)
    >>> drift = level_drift([0], lambda p: [(0, 1, 1.0), (0, -1, 2.0)], math.log(1.5), np.ones(1), 40, inside, "M/M/1",
    ...                     kept=chain)
    >>> result = solve_truncated(chain, drift)
    >>> result.neglected_mass < 1e-6, result.law.accuracy <= 1e-10
    (True, True)
    """

    law: Stationary
    neglected_mass: float
    entry_cost: float
    hitting_times: np.ndarray
    drift: Drift
    chain: TruncatedChain

    def __repr__(self) -> str:
        return (f"Truncation(kept={self.chain.n_kept:,}, neglected_mass={self.neglected_mass:.3g}, "
                f"entry_cost={self.entry_cost:.3g}, law accuracy={self.law.accuracy:.2g})")

    @property
    def states(self) -> Any:
        """The kept states (those of :attr:`chain`)."""
        return self.chain.states

    def _values(self, reward: Any) -> np.ndarray:
        """``reward`` on the kept states: an array aligned with them, or a function (of the state
        array for lattice chains, of one state otherwise)."""
        states = self.chain.states
        if callable(reward):
            if isinstance(states, np.ndarray):
                values = vector_result(reward(states), len(states), "reward")
            else:
                values = np.fromiter((reward(s) for s in states), dtype=float, count=len(states))
        else:
            values = vector_result(reward, self.chain.n_kept, "reward")
        if not np.all(np.isfinite(values)):
            raise InvalidParameterError("reward", values[~np.isfinite(values)][0], "must be finite on the kept states")
        return values

    def _law_interval(self, values: np.ndarray) -> tuple[float, float]:
        """``[ν_lo, ν_hi] ∋ ν(f)`` from the per-state bounds of the truncated law (rounding included)."""
        base = float(values.min())
        shifted = values - base
        pi = self.law.probabilities
        bounds = self.law.error_bounds
        vouched = np.isfinite(bounds) & (bounds < 1)
        low_terms = pi[vouched] * (1 - bounds[vouched]) * shifted[vouched]
        high_terms = pi[vouched] * (1 + bounds[vouched]) * shifted[vouched]
        # the states without a bound hold at most what the vouched ones leave of the total 1
        lost = 0.0 if vouched.all() else max(0.0, 1.0 - math.fsum(pi[vouched] * (1 - bounds[vouched])) * (1 - 8 * UNIT))
        spread = float(shifted.max())
        low = math.fsum(low_terms) * (1 - 8 * UNIT)
        high = math.fsum(high_terms) * (1 + 8 * UNIT) + lost * spread
        return base + low - abs(base) * 4 * UNIT, base + high + abs(base) * 4 * UNIT

    def interval(self, reward: Any, low: float | None = None, high: float | None = None,
                 outside: tuple[float, float] | None = None) -> tuple[float, float]:
        """An interval that contains ``π(f)``, the exact stationary expectation of ``f``.

        Parameters
        ----------
        reward : array or callable
            ``f`` on the kept states: an array aligned with them, or a function (of the state array for
            lattice chains, of one state otherwise).
        low, high : float, optional
            Bounds of ``f`` on *every* state of the chain (outside the kept set too); they bound its
            contribution outside by ``[low δ, high δ]``. Required unless ``outside`` is given.
        outside : (float, float), optional
            An interval for ``π(f 1_{S \\ K})`` itself (e.g. from :meth:`Drift.outside_expectation`
            for an unbounded reward); then ``f`` need only be bounded on the kept set.

        Returns
        -------
        (float, float)

        Raises
        ------
        InvalidParameterError
            Neither bounds nor ``outside``, or values on the kept states outside ``[low, high]``.

        Examples
        --------
        The M/M/1 queue of :class:`Truncation` (λ = 1, μ = 2): ``P(X = 0) = 1/2``, and
        ``E[min(X, 10)] = 1 - 2^-10``:

        >>> step = lambda x: [(x + 1, 1.0), (x - 1, 2.0 * (x > 0))]
        >>> chain = truncate_function(list(range(41)), step, [41], 0)
        >>> inside = function_drift_inside(range(41), step, lambda x: 1.5 ** x)
        >>> drift = level_drift([0], lambda p: [(0, 1, 1.0), (0, -1, 2.0)], math.log(1.5), np.ones(1), 40, inside,
        ...                     "M/M/1", kept=chain)
        >>> result = solve_truncated(chain, drift)
        >>> low, high = result.interval(lambda x: 1.0 * (x == 0), 0.0, 1.0)
        >>> bool(low <= 0.5 <= high), high - low < 1e-5
        (True, True)
        >>> low, high = result.interval(lambda x: min(x, 10.0), 0.0, 10.0)
        >>> bool(low <= 1 - 2.0**-10 <= high), high - low < 1e-4
        (True, True)
        """
        f = self._values(reward)
        a_k, b_k = float(f.min()), float(f.max())
        if outside is None:
            if low is None or high is None:
                raise InvalidParameterError("low", low, "and high must bound the reward on every state (or give outside=)")
            low_value, high_value = real("low", low), real("high", high)
            if not low_value <= a_k <= b_k <= high_value:
                raise InvalidParameterError("reward", (a_k, b_k), f"must lie within [low, high] = [{low_value}, {high_value}] "
                                                                  "on the kept states")

            def extra(delta: float, upper: bool) -> float:
                return (high_value if upper else low_value) * delta
        else:
            if not (isinstance(outside, tuple | list) and len(outside) == 2):
                raise InvalidParameterError("outside", outside, "must be a pair (low, high) bounding π(f 1_(S \\ K))")
            o_low, o_high = (real("outside", v) for v in outside)
            if not o_low <= o_high:
                raise InvalidParameterError("outside", outside, "must be an interval (low <= high)")

            def extra(delta: float, upper: bool) -> float:
                return o_high if upper else o_low
            low_value, high_value = -math.inf, math.inf
        nu_low, nu_high = self._law_interval(f)
        nu_low, nu_high = max(nu_low, a_k), min(nu_high, b_k)        # ν is a law on K: a_K <= ν(f) <= b_K
        eps, kappa = self.neglected_mass, self.entry_cost
        lows, highs = [], []
        for nu in (nu_low, nu_high):
            for delta in (0.0, eps):
                mass = delta * kappa
                lows.append((1 - delta) * nu + (a_k - nu) * mass + extra(delta, False))
                highs.append((1 - delta) * nu + (b_k - nu) * mass + extra(delta, True))
        lower, upper = min(lows), max(highs)
        # the rounding of each corner: relative to its terms, (1 - δ) ν, (f - ν) δ κ and the part outside
        outer = max(abs(extra(eps, False)), abs(extra(eps, True)))
        slack = 16 * UNIT * (abs(lower) + abs(upper) + (abs(a_k) + abs(b_k)) * eps * (1 + kappa) + outer)
        return max(low_value, lower - slack), min(high_value, upper + slack)


def solve_truncated(chain: TruncatedChain, drift: Drift, tolerance: float = ACCURACY, method: str = "auto") -> Truncation:
    """Solve a truncated chain and bound what the truncation leaves out (module docstring).

    Parameters
    ----------
    chain : TruncatedChain
        From :func:`truncate_lattice` or :func:`truncate_function`.
    drift : Drift
        The checked drift condition for this kept set (:func:`lattice_drift`, :func:`level_drift`),
        or :meth:`Drift.nothing_left_out` when the kept set is the whole chain (then the chain must
        have no exits).
    tolerance, method : float, str
        Passed to :meth:`CTMC.stationary` for the truncated chain ``Q^z``.

    Returns
    -------
    Truncation

    Raises
    ------
    ReducibleChainError
        ``Q^z`` is not irreducible (some kept state cannot be reached from the reference without
        leaving the kept set): keep a connected set.
    InvalidParameterError
        A drift checked for another kept set than the chain's, or for none (the message gives
        both sizes); a kept set with exits declared to be the whole chain.
    ConvergenceError
        The mean hitting times of the reference state could not be bounded in double precision
        (``hitting_time_bound``).

    Examples
    --------
    An M/M/1/500 queue (λ = 1, μ = 2) kept at 0..30; ``V = 1.9^x`` has ``GV < 0`` above 0:

    >>> moves = [((1,), lambda X: 1.0 * (X[:, 0] < 500)), ((-1,), lambda X: 2.0 * (X[:, 0] > 0))]
    >>> chain = truncate_lattice(np.arange(31)[:, None], moves, lambda X: X[:, 0] <= 500, (0,))
    >>> drift = lattice_drift([np.arange(501)[:, None]], moves, lambda X: 1.9 ** X[:, 0], chain)
    >>> solve_truncated(chain, drift).neglected_mass < 1e-7
    True
    """
    if not isinstance(chain, TruncatedChain):
        raise InvalidParameterError("chain", chain, "must be a TruncatedChain (truncate_lattice, truncate_function)")
    if not isinstance(drift, Drift):
        raise InvalidParameterError("drift", drift, "must be a Drift (lattice_drift, level_drift, Drift.nothing_left_out)")
    if math.isinf(drift.outside):
        if chain.exits.any() or chain.entries.nnz:
            raise InvalidParameterError("drift", drift, "says nothing is left out, but the kept set has jumps leaving it")
    elif drift.kept is None:
        raise InvalidParameterError("drift", drift, "does not say which kept set it was checked for: build it for this "
                                                    "chain (lattice_drift(..., chain), level_drift(..., kept=chain))")
    elif drift.kept != chain.fingerprint:
        raise InvalidParameterError("drift", drift.kept, f"was checked for a kept set of {drift.kept.count:,} states, not "
                                                         f"for this chain's {chain.n_kept:,} (KeptSet digests "
                                                         f"{drift.kept.digest[:12]} and {chain.fingerprint.digest[:12]}): "
                                                         "its bound on the mass left out holds for that set only")
    markov = CTMC(chain.generator())
    law = markov.stationary(method=method, reference=chain.reference, tolerance=tolerance)
    hitting, kappa = None, 0.0
    if chain.entries.nnz:
        hitting = hitting_time_bound(markov.generator, chain.reference, chain.states)
        coo = chain.entries.tocoo()
        terms = coo.data * hitting[coo.col]
        per_state = np.bincount(coo.row, weights=terms, minlength=chain.entries.shape[0])
        kappa = float(per_state.max()) * (1 + rounding(int(np.diff(chain.entries.indptr).max())))
    return Truncation(law, drift.neglected_mass, kappa, hitting, drift, chain)
