"""Drift proofs with ``V = Σ_i β^{x_i}``: one geometric term per unbounded count.

``V = β^{w·x}`` (:mod:`analytic.ctmc.regions`) needs one direction ``w`` in which the counts
decrease together. Two independent queues have none: on the face ``x = 0`` only ``y`` is served and
on ``y = 0`` only ``x``. A sum of one term per count has what they need. Each count pushes its own
term down where it is large, and a count that sits below its threshold adds at most a constant. The
kept set is the box ``max_i x_i <= L``.

The proof reuses the regions of :mod:`analytic.ctmc.regions`. In a region, count ``i`` contributes
``β^{x_i} D_i(y)``, where ``D_i = Σ_k r_k (β^{v_{k,i}} (1 + 2^-50) - (1 - 2^-50))``: the rounding of
the doubles ``V`` takes, bounded above as there (a rate that divides enters by its upper envelope
where the bound on its term's increment is ``>= 0``, by its lower one elsewhere). A large count
``j`` needs ``D_j <= -m_j < 0``: a negative constant, and no positive slope or higher-order
coefficient. A fixed count ``i`` needs its ``D_i`` bounded above by its constant ``c_i`` (no
positive slope or higher coefficient). Outside
the box some large count exceeds ``L``, so

    ``GV <= Σ_{i fixed} β^{x_i} max(c_i, 0) - β^{L+1} min_{j large} m_j``,

which must be negative in every region: that gives ``η``. All of it is exact rational arithmetic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import sympy

from analytic.ctmc.lyapunov import BASES, LARGEST_LOG2_V, proved_drift, rounded_gain
from analytic.ctmc.population import PopulationModel, lattice_points
from analytic.ctmc.regions import Region, affine_bound
from analytic.ctmc.truncation import Drift, TruncatedChain, lattice_generator_drift
from analytic.errors import ConvergenceError

__all__ = ["SumGeometric", "find_sum_geometric", "prove_sum_geometric"]


@dataclass(frozen=True)
class SumGeometric:
    """``V(x) = Σ_i β^{x_i}`` over the unbounded counts.

    Attributes
    ----------
    base : sympy.Rational
        ``β > 1``, dyadic.
    model : PopulationModel

    Examples
    --------
    >>> x, y = sympy.symbols("x y")
    >>> V = SumGeometric(sympy.Rational(2), PopulationModel([x, y], [((1, 0), 1), ((0, 1), 1)]))
    >>> V.expression, V(np.array([[1, 3]])).tolist()
    (2**x + 2**y, [10.0])
    """

    base: sympy.Rational
    model: PopulationModel

    @property
    def expression(self) -> sympy.Expr:
        """``V`` as a sympy expression."""
        return sum(self.base ** self.model.variables[i] for i in self.model.unbounded)

    def __call__(self, states: np.ndarray) -> np.ndarray:
        """``Σ_i fl(β^{x_i})`` at each row of ``states`` (within ``2^-50`` of the exact sum)."""
        X = np.asarray(states)[:, list(self.model.unbounded)].astype(float)
        return (float(self.base) ** X).sum(axis=1)

    def level_of(self, state: tuple) -> int:
        """``max_i x_i`` at ``state``: the least level whose box holds it.

        Parameters
        ----------
        state : sequence of int

        Returns
        -------
        int

        Examples
        --------
        >>> x, y = sympy.symbols("x y")
        >>> SumGeometric(2, PopulationModel([x, y], [((1, 0), 1), ((0, 1), 1)])).level_of((3, 1))
        3
        """
        return max(state[i] for i in self.model.unbounded)

    def states(self, level: int) -> np.ndarray:
        """The box ``max_i x_i <= level`` over the unbounded counts, every phase.

        Parameters
        ----------
        level : int

        Returns
        -------
        numpy.ndarray, shape (m, d)

        Examples
        --------
        >>> x, y = sympy.symbols("x y")
        >>> SumGeometric(2, PopulationModel([x, y], [((1, 0), 1), ((0, 1), 1)], upper=[None, 1])).states(1).tolist()
        [[0, 0], [0, 1], [1, 0], [1, 1]]
        """
        return lattice_points([level if u is None else u for u in self.model.upper])

    def count(self, level: int) -> int:
        """The number of kept states for ``level``: the box times the phases.

        Parameters
        ----------
        level : int

        Returns
        -------
        int

        Examples
        --------
        >>> x, y = sympy.symbols("x y")
        >>> SumGeometric(2, PopulationModel([x, y], [((1, 0), 1), ((0, 1), 1)], upper=[None, 1])).count(1)
        4
        """
        return self.model.phase_count * (level + 1) ** len(self.model.unbounded)


def _count_factors(region: Region, base: sympy.Rational, unbounded: tuple) -> dict[int, sympy.Poly]:
    """``D_i`` per unbounded count ``i`` in the region (module docstring)."""
    gens = region.rates[0][1].upper.gens
    factors = {i: sympy.Poly(0, *gens, domain="QQ") for i in unbounded}
    for change, rate in region.rates:
        for i in unbounded:
            factors[i] += rate.times(rounded_gain(base, int(change[i])))
    return factors


def _region_margin(region: Region, base: sympy.Rational, unbounded: tuple) -> tuple[sympy.Rational, sympy.Rational] | None:
    """``(C, m)``: ``GV <= C - m β^{L+1}`` on the region's states beyond any level ``L`` (exact), or None."""
    if not region.rates or not region.large:
        return None
    constant, least = sympy.S.Zero, None
    for i, factor in _count_factors(region, base, unbounded).items():
        bound = affine_bound(factor)
        if bound is None:
            return None
        if i not in region.fixed:                     # a large count (it moves with some parameter)
            if not bound[0] < 0:
                return None
            least = -bound[0] if least is None else min(least, -bound[0])
        else:
            constant += base ** region.fixed[i] * max(bound[0], 0)
    return constant, least


def find_sum_geometric(model: PopulationModel, found: list[Region], neglected: float, max_states: int
                       ) -> tuple[SumGeometric, int]:
    """A function ``V = Σ_i β^{x_i}`` and a level ``L`` that should give a neglected mass
    ``<= neglected`` with the box ``max_i x_i <= L`` kept (the exact test of every region per base;
    :func:`prove_sum_geometric` vouches).

    Parameters
    ----------
    model : PopulationModel
    found : list of Region
        From :func:`~analytic.ctmc.regions.regions`.
    neglected : float
        The target for ``c / (c + η)``.
    max_states : int
        The most kept states considered.

    Returns
    -------
    (SumGeometric, int)

    Raises
    ------
    ConvergenceError
        No base passes the test of every region within ``max_states`` (the message says what was tried).

    Examples
    --------
    Two independent M/M/1 queues, which no ``β^{w·x}`` controls:

    >>> from analytic.ctmc.regions import regions
    >>> x, y = sympy.symbols("x y")
    >>> model = PopulationModel([x, y], [((1, 0), 1), ((0, 1), 1), ((-1, 0), 2 * sympy.Min(x, 1)),
    ...                                  ((0, -1), 2 * sympy.Min(y, 1))])
    >>> V, level = find_sum_geometric(model, regions(model)[1], 1e-9, 10**6)
    >>> V.expression
    (63/32)**x + (63/32)**y
    """
    inner = max((max(region.fixed.get(i, 0) for i in model.unbounded) for region in found), default=0)
    best = None
    for base in reversed(BASES):                   # the steepest first: their boxes are the smallest
        margins = [_region_margin(region, base, model.unbounded) for region in found if region.large]
        if any(m is None for m in margins):
            continue
        constant = float(max(c for c, _ in margins))
        least = float(min(m for _, m in margins))
        b = float(base)
        # the first level where eta = least β^{L+1} - constant > 0, then where c / eta <= neglected
        start = max(inner, math.ceil(math.log(max(constant, 1e-300) / least) / math.log(b)))
        V = SumGeometric(base, model)
        top = int(LARGEST_LOG2_V / math.log2(b)) - 2
        if start > top or V.count(start) > (max_states if best is None else best[0]):
            continue                                 # cannot fit, or cannot beat the best base so far
        c = max(float(lattice_generator_drift(V.states(start), model.moves, V).max()), 0.0)
        need = math.log(max(c, 1e-300) / neglected + constant) - math.log(least)
        level = max(start, math.ceil(need / math.log(b)))
        if level > top:
            continue
        states = V.count(level)
        if states <= max_states and (best is None or states < best[0]):
            best = (states, V, level)
    if best is None:
        names = [str(model.variables[i]) for i in model.unbounded]
        raise ConvergenceError(f"no Lyapunov function found: V = Σ β^x_i over {names}, with β from {float(BASES[0])} to "
                               f"{float(BASES[-1])}, needs every large count's own drift factor negative and every fixed "
                               f"one bounded in each of the {len(found):,} regions, within max_states={max_states:,}")
    return best[1], best[2]


def prove_sum_geometric(model: PopulationModel, found: list[Region], lyapunov: SumGeometric, level: int,
                        chain: TruncatedChain) -> Drift | None:
    """Prove ``GV <= -η`` for ``V = Σ_i β^{x_i}`` on every state outside the box ``max_i x_i <= level``
    and bound ``GV`` on the kept states of ``chain`` (the box).

    Parameters
    ----------
    model : PopulationModel
    found : list of Region
        From :func:`~analytic.ctmc.regions.regions`.
    lyapunov : SumGeometric
    level : int
        ``L``.
    chain : TruncatedChain
        The truncation to the box.

    Returns
    -------
    Drift or None
        None where some region fails the test at this level (the caller keeps more states).

    Examples
    --------
    >>> from analytic.ctmc.regions import regions
    >>> from analytic.ctmc.truncation import truncate_lattice
    >>> x, y = sympy.symbols("x y")
    >>> model = PopulationModel([x, y], [((1, 0), 1), ((0, 1), 1), ((-1, 0), 2 * sympy.Min(x, 1)),
    ...                                  ((0, -1), 2 * sympy.Min(y, 1))])
    >>> V = SumGeometric(sympy.Rational(3, 2), model)
    >>> chain = truncate_lattice(V.states(60), model.moves, model.feasible, (0, 0))
    >>> prove_sum_geometric(model, regions(model)[1], V, 60, chain).neglected_mass < 1e-8
    True
    """
    eta = None
    for region in found:
        if not region.large:
            if any(region.fixed.get(i, 0) > level for i in model.unbounded):
                return None                         # a region of fixed states must lie inside the box
            continue
        margin = _region_margin(region, lyapunov.base, model.unbounded)
        if margin is None:
            return None
        value = margin[1] * lyapunov.base ** (level + 1) - margin[0]
        if not value > 0:
            return None
        eta = value if eta is None else min(eta, value)
    if eta is None:
        return None
    return proved_drift(model, lyapunov, eta, chain, f"every state outside the box max x_i <= {level} ({len(found):,} "
                        "regions: each large count's own drift factor negative, each fixed one bounded, in exact "
                        "rationals)")
