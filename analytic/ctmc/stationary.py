"""The stationary law of a chain: which solver runs, what it vouches for, and the result.

The contract: every probability at or above :attr:`Stationary.floor` is within
:attr:`Stationary.accuracy` of the exact stationary probability, *relative to itself*, or the call
raises :class:`~analytic.errors.ConvergenceError` saying that it cannot vouch for the answer.

* ``"gth"`` (the default whenever its factorization fits in memory and in about half a minute of
  work, which covers every chain of the package's papers up to millions of states): the sparse
  GTH algorithm of :mod:`analytic.ctmc.gth`, subtraction-free and entrywise stable. It vouches
  for ``ACCURACY = 1e-10`` down to ``FLOOR = 1e-290``; the test suite holds it on birth–death
  chains with rates over 8 decades, random reversible chains, nearly completely decomposable
  chains with couplings down to 1e-15 and lattices with rates over many decades (measured errors
  are about 1e-13), and ``benchmarks/ctmc.py`` on 10^6 states.
* ``"direct"`` / ``"iterative"`` (above that size, or when asked for): SuperLU or GMRES, then
  mixed-precision refinement (:mod:`analytic.ctmc.linear`). Where GTH fits, the answer is checked
  against it; above, against solves pinned at other states and against the probability flow
  across cuts, which *measure* each probability's remaining error. The states measured within
  ``ACCURACY`` are vouched for and the floor is set above the others; a chain whose probabilities
  leave the double range along the way, or whose checks disagree, is refused.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from analytic.ctmc import gth, linear
from analytic.ctmc.spaces import vector_result
from analytic.errors import ConvergenceError, InvalidParameterError
from analytic.memory import available_bytes, require
from analytic.validation import integer, option, unit_fraction

__all__ = ["ACCURACY", "FLOOR", "Stationary", "solve", "solve_bytes"]

#: Componentwise relative accuracy vouched for every probability at or above the floor.
ACCURACY = 1e-10

#: Smallest probability the accuracy is vouched for by GTH (normal doubles reach 2.2e-308; the
#: margin keeps the relative accuracy of values rescaled near the bottom of the range).
FLOOR = 1e-290

#: ``method="auto"`` runs GTH when its factorization needs at most this many multiply-adds (about
#: half a minute on one core; the 10^6-state two-queue lattice needs 1.4e10).
GTH_FLOPS = 5e10

METHODS = ("auto", "gth", "direct", "iterative")


@dataclass(frozen=True, repr=False)
class Stationary:
    """The stationary distribution of a :class:`~analytic.ctmc.CTMC`, with what it vouches for.

    ``numpy.asarray(result)`` is the probability vector.

    Attributes
    ----------
    probabilities : numpy.ndarray
        ``pi``, aligned with ``states``; non-negative, sums to one.
    accuracy : float
        Every probability ``>= floor`` has relative error at most this.
    floor : float
        Probabilities below it carry no relative guarantee (their absolute error is below
        ``floor * accuracy``).
    residual : float
        ``||pi Q||_1`` of the returned vector, for information only: a small residual certifies
        nothing.
    method : str
        Which solver produced it.
    iterations : int
        Krylov iterations (0 for GTH and the direct solver).
    check : str
        How the accuracy was established.
    states : list or numpy.ndarray
        The chain's states, as in :attr:`CTMC.states`.
    """

    probabilities: np.ndarray
    accuracy: float
    floor: float
    residual: float
    method: str
    iterations: int
    check: str
    states: Any = field(repr=False)
    _space: Any = field(repr=False, compare=False)

    def __repr__(self) -> str:
        return (f"Stationary(n_states={len(self.probabilities)}, method={self.method!r}, "
                f"accuracy={self.accuracy:.2g}, floor={self.floor:.3g}, residual={self.residual:.3g})")

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        return np.array(self.probabilities, dtype=dtype, copy=True if copy is None else copy)

    def __len__(self) -> int:
        return len(self.probabilities)

    def expected(self, reward: np.ndarray | Callable) -> float:
        """Expected stationary reward ``sum_x pi(x) r(x)``.

        ``reward`` is an array aligned with the states, or a function: for lattice chains it is
        called once with the array of all states (one row each) and returns one value per row;
        for chains built from a transition function it is called on each state.
        """
        values = self._space.evaluate(reward) if callable(reward) else vector_result(
            reward, len(self.probabilities), "reward")
        if not np.all(np.isfinite(values)):
            bad = int(np.flatnonzero(~np.isfinite(values))[0])
            raise InvalidParameterError("reward", values[bad], f"must be finite (at state {self.states[bad]})")
        return float(self.probabilities @ values)

    def probability(self, state: Any) -> float:
        """Stationary probability of one state."""
        return float(self.probabilities[self._space.index(state)])


def check_tolerance(tolerance: object) -> float:
    """``tolerance`` as a float in (0, 1): the componentwise relative accuracy a caller asks for."""
    return unit_fraction("tolerance", tolerance, meaning=" (a relative accuracy, e.g. 1e-10)")


def solve_bytes(states: int, entries: int) -> int:
    """The least memory :meth:`CTMC.stationary` needs for a generator with ``entries`` stored
    entries: the iterative solver's (the tighter incomplete LU, ten times the generator, and the
    GMRES basis); GTH and SuperLU need more wherever they fill in.

    Examples
    --------
    >>> solve_bytes(10**6, 5 * 10**6)
    1464000000
    """
    states, entries = integer("states", states, minimum=0), integer("entries", entries, minimum=0)
    return entries * 10 * 12 + (linear.RESTART + 8) * states * 8


def _gth(generator: sp.csr_array, plan: gth.GTHPlan, tolerance: float) -> tuple[np.ndarray, float, float, str, int, str]:
    if tolerance < ACCURACY:
        raise ConvergenceError(f"GTH vouches for a relative accuracy of {ACCURACY:g}, not tolerance={tolerance:g}")
    pi = gth.stationary(generator, plan)
    return (pi, tolerance, FLOOR, "gth (multifrontal, subtraction-free)", 0,
            f"GTH is entrywise stable (O'Cinneide 1993); {plan.largest_front}-state largest front")


def _refined(generator: sp.csr_array, method: str, first: int | None, why: str,
             exact: np.ndarray | None, tolerance: float) -> tuple[np.ndarray, float, float, str, int, str]:
    n = generator.shape[0]
    if method == "iterative":
        require(solve_bytes(n, generator.nnz), "the iterative solve", n)
    try:
        refined = linear.solve(generator, method, first, FLOOR, tolerance, exact)
    except ConvergenceError as exc:
        raise ConvergenceError(f"{exc}{why} (method='gth' is exact where it fits)") from None
    pi, error = refined.probabilities, refined.error
    unsettled = error > tolerance
    floor = max(FLOOR, float(pi[unsettled].max()) * (1 + 1e-12)) if unsettled.any() else FLOOR
    if floor >= float(pi.max()):
        raise ConvergenceError(
            f"{refined.label} with mixed-precision refinement cannot vouch for any probability: the likeliest "
            f"state's estimated relative error is {error[np.argmax(pi)]:.3g} > {tolerance:g}{why}; the chain is too "
            "ill conditioned for double precision (use method='gth')")
    vouched = pi >= floor
    how = "agrees with GTH" if exact is not None else "estimated relative error"
    return (pi, tolerance, floor, refined.label, refined.iterations,
            f"mixed-precision refinement, {refined.steps} steps; {how}: <= {float(error[vouched].max()):.2g} for the "
            f"{int(vouched.sum())} probabilities >= {floor:.3g}{why}")


def _fits(plan: gth.GTHPlan) -> bool:
    """Whether ``method="auto"`` runs (or checks with) GTH: within ``GTH_FLOPS`` and in memory."""
    return plan.flops <= GTH_FLOPS and plan.bytes <= available_bytes()


def solve(generator: sp.csr_array, method: str, first: int | None, tolerance: float = ACCURACY) -> tuple[np.ndarray, float, float, str, int, str]:
    """Stationary law of an irreducible generator: probabilities, accuracy, floor, method label,
    Krylov iterations and how the accuracy was established (see the module docstring)."""
    option("method", method, METHODS)
    n = generator.shape[0]
    if n == 1:
        return np.ones(1), 0.0, 0.0, "trivial", 0, "one state"
    plan = gth.analyse(generator)
    why = ""
    if method == "gth":
        require(plan.bytes, "the GTH factorization", n)
    if method == "gth" or (method == "auto" and _fits(plan)):
        try:
            return _gth(generator, plan, tolerance)
        except FloatingPointError as exc:
            if method == "gth":
                raise ConvergenceError(f"GTH cannot vouch for this chain: {exc} (probabilities span more "
                                       "than the double range between states censored together)") from exc
            why = f" (GTH: {exc})"
    exact = None
    if method == "auto":
        why = why or f" (GTH would need {plan.flops:.2g} multiply-adds and {plan.bytes / 2**30:.3g} GiB)"
        degree = (generator.nnz - n) / n
        limit = next(states for bound, states in linear.DIRECT_SOLVE_LIMITS if degree <= bound)
        method = "direct" if n <= limit else "iterative"
    elif _fits(plan):
        try:
            exact = gth.stationary(generator, plan)
        except FloatingPointError:
            exact = None
    return _refined(generator, method, first, why, exact, tolerance)
