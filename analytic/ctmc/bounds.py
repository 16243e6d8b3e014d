"""Certified stationary intervals for a population model a user writes down.

:func:`stationary_bounds` takes a :class:`~analytic.ctmc.population.PopulationModel` and rewards
written as sympy expressions, finds a Lyapunov function, proves its drift on the infinitely many
states it leaves out (:mod:`analytic.ctmc.lyapunov` for one unbounded count,
:mod:`analytic.ctmc.regions` and :mod:`analytic.ctmc.separable` for several), solves the kept
states and returns, per reward,
an interval that provably contains its exact stationary expectation (the theorem of
:mod:`analytic.ctmc.truncation`: Dayar, Hermanns, Spieler & Wolf 2011 for the mass left out;
Courtois & Semal 1984 and Kuntz, Thomas, Stan & Barahona 2021 for the law on the kept states).

Rewards may be bounded or grow polynomially in the unbounded counts. Outside the kept set a reward is
dominated by ``r (-GV)``, with ``V`` geometric, and the stationary mean of ``-GV`` there is at most
``c``: the comparison theorem of Meyn & Tweedie, "Stability of Markovian processes III", Adv. Appl.
Probab. 25, 1993, Thm. 4.3.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
import sympy
from scipy.sparse.csgraph import breadth_first_order

from analytic._deprecation import renamed_attribute
from analytic.ctmc.chain import CTMC
from analytic.ctmc.lyapunov import GeometricLyapunov, find_geometric, prove_geometric, tail_drift
from analytic.ctmc.population import PopulationModel, expression, lattice_points
from analytic.ctmc.regions import (
    LinearGeometric,
    find_face_geometric,
    find_linear_geometric,
    prove_linear_geometric,
    region_form,
    regions,
)
from analytic.ctmc.separable import SumGeometric, find_sum_geometric, prove_sum_geometric
from analytic.ctmc.stationary import METHODS
from analytic.ctmc.tails import eventual_polynomial, last_root_bound, level_after
from analytic.ctmc.truncation import (
    Drift,
    TruncatedChain,
    Truncation,
    checked_width,
    lattice_generator_drift,
    solve_truncated,
    truncate_lattice,
)
from analytic.errors import ConvergenceError, InvalidParameterError, ReducibleChainError, StateSpaceTooLargeError
from analytic.intervals import Interval
from analytic.validation import integer, option

__all__ = ["Interval", "StationaryBounds", "stationary_bounds"]

_UNIT = 2.0**-53
#: Rounds of widening the kept set before the intervals are returned as wide as they came.
MAX_ROUNDS = 6


@dataclass(frozen=True, repr=False)
class StationaryBounds:
    """Certified intervals for stationary expectations of a population model.

    Attributes
    ----------
    intervals : dict of str to Interval
        Per reward (also ``bounds[name]``).
    lyapunov : sympy expression or None
        The Lyapunov function found and proved (None: the chain is finite and solved whole).
    neglected_mass : float
        A proven upper bound on the stationary mass of the states left out.
    n_states : int
        The number of kept states solved (``states``, its old name, is deprecated).
    theorem : str
        How the bound on what was left out was established.
    truncation : Truncation
        The solve behind the intervals (its law, hitting-time bounds, drift).

    Examples
    --------
    >>> x = sympy.Symbol("x")
    >>> bounds = stationary_bounds(PopulationModel([x], [((1,), 1.0), ((-1,), 2.0)]), {"empty": 1 - sympy.Min(x, 1)})
    >>> 0.5 in bounds["empty"], bounds.lyapunov
    (True, (121/64)**x)
    """

    intervals: dict
    lyapunov: object
    neglected_mass: float
    n_states: int
    theorem: str
    truncation: Truncation = field(compare=False)

    states = renamed_attribute("n_states")

    def __getitem__(self, name: str) -> Interval:
        return self.intervals[name]

    def __repr__(self) -> str:
        body = ", ".join(f"{k}={v!r}" for k, v in self.intervals.items())
        return (f"StationaryBounds({body}; V={self.lyapunov}, neglected_mass={self.neglected_mass:.3g}, "
                f"n_states={self.n_states:,})")

    @property
    def width(self) -> float:
        """The widest interval's width."""
        return max((i.width for i in self.intervals.values()), default=0.0)


@dataclass(frozen=True)
class _Reward:
    name: str
    expression: sympy.Expr
    numeric: object


def _rewards(model: PopulationModel, rewards: object) -> list[_Reward]:
    if not isinstance(rewards, Mapping) or not rewards:
        raise InvalidParameterError("rewards", rewards, "must be a non-empty mapping of names to sympy expressions")
    checked = []
    for name, reward in rewards.items():
        value = expression(f"rewards[{name!r}]", reward, model.variables)
        checked.append(_Reward(str(name), value, sympy.lambdify(model.variables, value, "numpy")))
    return checked


def _values(reward: _Reward, states: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        values = np.broadcast_to(np.asarray(reward.numeric(*states.astype(float).T), dtype=float), (len(states),))
    if not np.all(np.isfinite(values)):
        i = int(np.flatnonzero(~np.isfinite(values))[0])
        raise InvalidParameterError(f"rewards[{reward.name!r}]", reward.expression, f"is not finite at the state "
                                                                                    f"{states[i].tolist()}")
    return np.array(values)


class _OneCount:
    """One unbounded count ``x``: ``V = β^x g(phase)`` (:mod:`analytic.ctmc.lyapunov`); the pieces of
    a reward are its polynomials in ``x`` per phase, beyond the first level."""

    def __init__(self, model: PopulationModel, rewards: list[_Reward]) -> None:
        self.model, self.tail = model, tail_drift(model)
        x = model.variables[self.tail.axis]
        self.first = model.initial[self.tail.axis]
        self.polys = []
        for reward in rewards:
            polys = []
            for phase in self.tail.phases:
                values = {v: int(phase[i]) for i, v in enumerate(model.variables) if i != self.tail.axis}
                poly, t = eventual_polynomial(reward.expression.subs(values), x)
                polys.append(poly)
                self.first = max(self.first, level_after(t))
            self.polys.append(polys)

    def pieces(self, lyapunov: GeometricLyapunov) -> list:
        return self.polys

    def find(self, neglected: float, first: int, limit: int) -> tuple[GeometricLyapunov, int]:
        return find_geometric(self.model, self.tail, neglected, max(first, self.first))

    def cap(self, lyapunov: GeometricLyapunov, limit: int) -> int:
        return limit // len(self.tail.phases) - 1

    def kept(self, lyapunov: GeometricLyapunov, level: int) -> np.ndarray:
        return lattice_points([level if i == self.tail.axis else u for i, u in enumerate(self.model.upper)])

    def prove(self, lyapunov: GeometricLyapunov, level: int, chain: TruncatedChain) -> Drift | None:
        if level < self.first:
            return None                       # the rewards' polynomials hold only beyond their thresholds
        return prove_geometric(self.model, self.tail, lyapunov, level, chain)


class _SeveralCounts:
    """Several unbounded counts: ``V = β^{w·x}`` proved region by region (:mod:`analytic.ctmc.regions`),
    or else ``V = Σ_i β^{x_i}`` (:mod:`analytic.ctmc.separable`), or else ``β^{w·x}`` weighted per
    boundary cell (regions with thresholds past the cells' layers); the pieces of a reward are its
    polynomials in the large counts of each region."""

    def __init__(self, model: PopulationModel, rewards: list[_Reward]) -> None:
        self.model = model
        self.expressions = [r.expression for r in rewards]
        self.partitions: dict[tuple, tuple] = {}
        self.thresholds, self.regions = self._partition(())[:2]
        self.layers: tuple | None = None                # the cells' layers, once the weighted family is used

    def _partition(self, layers: tuple, found: tuple | None = None) -> tuple:
        """The thresholds, regions and reward pieces of ``layers`` (cached)."""
        if layers not in self.partitions:
            thresholds, regions_found = found or regions(self.model, self.expressions, layers)
            pieces = [[region_form(self.model, region, expression) for region in regions_found
                       if region.large] for expression in self.expressions]
            self.partitions[layers] = (thresholds, regions_found, pieces)
        return self.partitions[layers]

    def pieces(self, lyapunov: LinearGeometric | SumGeometric) -> list:
        return self._partition(getattr(lyapunov, "layers", ()))[2]

    def find(self, neglected: float, first: int, limit: int) -> tuple[LinearGeometric | SumGeometric, int]:
        if self.layers is None:
            try:
                lyapunov, level = find_linear_geometric(self.model, self.regions, self.thresholds, neglected, limit)
            except ConvergenceError as linear:
                try:
                    lyapunov, level = find_sum_geometric(self.model, self.regions, neglected, limit)
                except ConvergenceError as separable:
                    try:
                        lyapunov, level = self._faces(neglected, limit)
                    except ConvergenceError as faces:
                        raise ConvergenceError(f"{linear}; and {separable}; and {faces}") from None
        else:
            lyapunov, level = self._faces(neglected, limit)
        return lyapunov, max(level, first, lyapunov.level_of(self.model.initial))

    def _faces(self, neglected: float, limit: int) -> tuple[LinearGeometric, int]:
        lyapunov, level, thresholds, found = find_face_geometric(self.model, neglected, limit, self.expressions,
                                                                 self.layers)
        self.layers = lyapunov.layers
        self._partition(lyapunov.layers, (thresholds, found))
        return lyapunov, level

    def cap(self, lyapunov: LinearGeometric | SumGeometric, limit: int) -> int:
        low, high = 0, 1
        while lyapunov.count(high) <= limit:
            low, high = high, 2 * high
        while high - low > 1:
            middle = (low + high) // 2
            low, high = (middle, high) if lyapunov.count(middle) <= limit else (low, middle)
        return low if lyapunov.count(low) <= limit else -1

    def kept(self, lyapunov: LinearGeometric | SumGeometric, level: int) -> np.ndarray:
        return lyapunov.states(level)

    def prove(self, lyapunov: LinearGeometric | SumGeometric, level: int, chain: TruncatedChain) -> Drift | None:
        if isinstance(lyapunov, SumGeometric):
            return prove_sum_geometric(self.model, self.regions, lyapunov, level, chain)
        thresholds, found, _ = self._partition(lyapunov.layers)
        return prove_linear_geometric(self.model, found, thresholds, lyapunov, level, chain)


def _outside(pieces: list, base: sympy.Rational, level: int, drift: Drift) -> tuple[float, float]:
    """An interval for ``π(f 1_{S \\ K})``. Each piece of ``f`` is a polynomial in counts that are at
    most ``n``: ``x`` for ``β^x g``, ``w·x`` for ``β^{w·x}``, ``max_i x_i`` for ``Σ_i β^{x_i}``,
    with ``-GV >= η β^{n - L - 1}`` outside in each case. The piece lies between ``-q⁻(n)`` and
    ``q⁺(n)``, the sums of its negative and positive terms with every count replaced by ``n``; and
    ``q(n) <= r β^{n - L - 1} <= (r / η) (-GV)`` with ``r = sup_{n > L} q(n) β^{L + 1 - n}``, whose
    stationary mean outside is at most ``(r / η) c`` (Meyn & Tweedie, Thm. 4.3)."""
    n = sympy.Symbol("n")
    positive: dict[int, sympy.Rational] = {}
    negative: dict[int, sympy.Rational] = {}
    for poly in pieces:
        for monomial, coefficient in poly.terms():
            side = positive if coefficient > 0 else negative
            order = sum(monomial)
            side[order] = max(side.get(order, sympy.S.Zero), abs(coefficient))
    per_unit = drift.inside / drift.outside
    ends = []
    for side in (negative, positive):
        q = sympy.Poly(sum((c * n**k for k, c in side.items()), sympy.S.Zero), n, domain="QQ")
        ends.append(0.0 if q.is_zero else float(_ratio(q, base, level)) * per_unit)
    return -ends[0] * (1 + 16 * _UNIT) - 1e-300, ends[1] * (1 + 16 * _UNIT) + 1e-300


def _ratio(poly: sympy.Poly, base: sympy.Rational, level: int) -> sympy.Rational:
    """``sup`` over integers ``x > level`` of ``poly(x) β^{level + 1 - x}`` (``poly`` positive there)."""
    x = poly.gens[0]
    step = sympy.Poly(poly.as_expr().subs(x, x + 1), x, domain="QQ") - poly * base
    stop = max(level + 1, level_after(last_root_bound(step)))
    best, scale = sympy.S.Zero, sympy.S.One
    for k in range(level + 1, stop + 1):
        best = max(best, poly.eval(k) * scale)
        scale /= base
    return best


def stationary_bounds(model: PopulationModel, rewards: Mapping, width: float = 1e-8, max_states: int = 1_000_000,
                      method: str = "auto") -> StationaryBounds:
    """Intervals that provably contain the stationary expectations of ``rewards`` under ``model``.

    A Lyapunov function is searched for and proved: ``V = β^x g(phase)`` for one unbounded count
    (:mod:`analytic.ctmc.lyapunov`); ``β^{w·x}``, or else ``Σ_i β^{x_i}``, or else ``β^{w·x}``
    weighted per boundary cell (a tandem queue at high load), for several
    (:mod:`analytic.ctmc.regions`, :mod:`analytic.ctmc.separable`). The states below a level of
    ``V`` are kept and solved, and the level grows until every interval is at most ``width`` wide.
    If ``max_states`` stops it, the intervals are returned as wide as they are, still certified,
    with a ``RuntimeWarning``. A model with every count bounded is solved whole, on the states its
    initial state reaches.

    Parameters
    ----------
    model : PopulationModel
        Its rates' comparisons (``Min``, ``Piecewise``, ...) may involve one unbounded count each, or
        two through their difference (``x < y``: join the shortest queue).
    rewards : mapping of str to sympy expression
        Functions of the counts: bounded, or eventually polynomial in the unbounded counts (built
        like rates: polynomials, ``Min``, ``Max``, ``Abs``, ``Heaviside``, ``Piecewise``).
    width : float
        The width asked of each interval, in ``[1e-14, 1)`` (absolute).
    max_states : int
        The most kept states solved.
    method : {"auto", "gth", "direct", "iterative"}
        Passed to :meth:`CTMC.stationary` for the kept states (``"gth"`` is often the fastest on
        the long, thin kept sets of two counts).

    Returns
    -------
    StationaryBounds

    Raises
    ------
    UnstableSystemError
        One unbounded count, not pushed back far out (the chain is not positive recurrent).
    ConvergenceError
        No Lyapunov function found (the message says what was tried).
    StateSpaceTooLargeError
        Even ``max_states`` kept states are too few for the drift proof to close.
    InvalidParameterError
        Rewards or rates the proof cannot handle, or bad arguments (named).

    Examples
    --------
    An M/M/3 queue with arrival rate 2 and unit service rate: Erlang's formula C gives
    ``P(wait) = 4/9``, so ``P(empty) = 1/9`` and ``E[x] = a + P(wait) a / (s - a) = 26/9``:

    >>> x = sympy.Symbol("x", integer=True, nonnegative=True)
    >>> model = PopulationModel([x], [((1,), 2.0), ((-1,), sympy.Min(x, 3))])
    >>> bounds = stationary_bounds(model, {"mean": x, "empty": 1 - sympy.Min(x, 1)})
    >>> 26 / 9 in bounds["mean"], 1 / 9 in bounds["empty"], bounds.width <= 1e-8
    (True, True, True)
    """
    if not isinstance(model, PopulationModel):
        raise InvalidParameterError("model", model, "must be a PopulationModel")
    target, tolerance = checked_width(width)
    limit = integer("max_states", max_states)
    option("method", method, METHODS)
    checked = _rewards(model, rewards)
    if not model.unbounded:
        return _whole(model, checked, tolerance, limit, method)
    strategy = _OneCount(model, checked) if len(model.unbounded) == 1 else _SeveralCounts(model, checked)
    neglected, first, result = target / 16, 0, None
    for _ in range(MAX_ROUNDS):
        lyapunov, level = strategy.find(neglected, first, limit)
        drift, chain, level = _proved(strategy, lyapunov, level, limit)
        if result is not None and chain.n_kept <= result.n_states:
            break                                     # max_states stops the kept set from growing
        truncation = solve_truncated(chain, drift, tolerance=tolerance, method=method)
        intervals = {}
        for reward, pieces in zip(checked, strategy.pieces(lyapunov), strict=True):
            values = _values(reward, chain.states)
            low, high = truncation.interval(values, outside=_outside(pieces, lyapunov.base, level, drift))
            intervals[reward.name] = Interval(low, high)
        result = StationaryBounds(intervals, lyapunov.expression, drift.neglected_mass, chain.n_kept, drift.check,
                                  truncation)
        if result.width <= target or level >= strategy.cap(lyapunov, limit):
            break
        neglected = neglected * max(1e-6, min(0.01, target / result.width / 16))
        first = level + 1
    if result.width > target:
        warnings.warn(f"the intervals are {result.width:.3g} wide, wider than width={target:g}: the kept set stopped at "
                      f"{result.n_states:,} states (max_states={limit:,}); they are certified as they are", RuntimeWarning,
                      stacklevel=2)
    return result


def _proved(strategy: _OneCount | _SeveralCounts, lyapunov: GeometricLyapunov | LinearGeometric | SumGeometric,
            level: int, limit: int) -> tuple[Drift, TruncatedChain, int]:
    """The kept set of ``level`` (widened until the proof holds, at most ``limit`` states), its
    truncated chain and drift."""
    model = strategy.model
    cap = strategy.cap(lyapunov, limit)
    level = min(level, cap)
    while 0 <= level <= cap:
        states = strategy.kept(lyapunov, level)
        chain = truncate_lattice(states[model.feasible(states)], model.moves, model.feasible, reference=model.initial)
        chain, unreached = _reached_part(model, chain)
        _check_returns(model, chain)
        chain = _at_the_mode(chain)
        drift = strategy.prove(lyapunov, level, chain)
        if drift is not None and len(unreached):
            drift = _with_unreached(drift, unreached, model, lyapunov, chain)
        if drift is not None:
            return drift, chain, level
        level = min(cap + 1, level + max(1, level // 8)) if level < cap else cap + 1
    raise StateSpaceTooLargeError(limit + 1, limit, at_least=True, what=f"the proof of V = {lyapunov.expression}'s drift")


def _reached_part(model: PopulationModel, chain: TruncatedChain) -> tuple[TruncatedChain, np.ndarray]:
    """The truncation to the kept states the initial state reaches without leaving them, and the
    others (in a tandem queue kept at ``w·x <= L``, a state of the second queue just below ``L`` is
    entered only from above ``L``): the truncated chain must have one class."""
    keep = _reached(chain.kept, chain.reference)
    if keep.all():
        return chain, chain.states[:0]
    return (truncate_lattice(chain.states[keep], model.moves, model.feasible, reference=model.initial),
            chain.states[~keep])


def _with_unreached(drift: Drift, unreached: np.ndarray, model: PopulationModel, lyapunov: object,
                    chain: TruncatedChain) -> Drift | None:
    """``drift`` extended to the states left out of the kept set because it cannot reach them: there
    ``GV`` is evaluated state by state (rounding bounded) and must be negative; ``η`` is the least
    ``-GV`` over them and the proved remainder (None if ``GV >= 0`` at one of them)."""
    worst = float(lattice_generator_drift(unreached, model.moves, lyapunov).max())
    if not worst < 0:
        return None
    return Drift(drift.inside, min(drift.outside, -worst), f"{drift.check}; GV evaluated on the {len(unreached):,} states "
                 "below the level the kept set cannot reach", states_checked=len(unreached), kept=chain)


def _at_the_mode(chain: TruncatedChain) -> TruncatedChain:
    """The same truncation with its reference at the most likely kept state (by a plain sparse LU
    solve: only the argmax is used), if its ``Q^z`` is irreducible: the mean
    hitting times of the reference, and with them the width the law on the kept set adds, are then
    smallest (from a state in a tail, such as the empty M/M/100 queue at load 0.95, they can leave
    the double range)."""
    generator = CTMC(chain.generator()).generator.T.tocsr()
    others = np.flatnonzero(np.arange(chain.n_kept) != chain.reference)
    law = np.ones(chain.n_kept)             # the law over its value at the reference (no dense row to fill the LU)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        law[others] = spla.spsolve(generator[others][:, others].tocsc(), -generator[others][:, [chain.reference]]
                                   .toarray().ravel())
    if not np.all(np.isfinite(law)):
        return chain
    moved = replace(chain, reference=int(np.argmax(law)))
    rates = moved.generator()
    irreducible = _returning(rates, moved.reference).all() and _reached(rates, moved.reference).all()
    return moved if irreducible else chain


def _check_returns(model: PopulationModel, chain: TruncatedChain) -> None:
    """Every kept state must reach the initial state, inside the kept set or through the states at
    most two jumps outside it: the theorem asks an irreducible chain, and ``Q^z`` (which lands the
    jumps leaving the kept set on the initial state) then has finite mean hitting times. In a tandem
    queue kept at ``x + 2 y <= L``, every jump from ``(L, 0)`` leaves the set and it returns
    through ``(L - 1, 1)``; a state the chain never leaves for the initial state is refused."""
    missing = np.flatnonzero(~_returning(chain.kept, chain.reference))
    if len(missing):
        wider = chain.states
        for _ in range(2):
            wider = _with_targets(model, wider)
        around = truncate_lattice(wider, model.moves, model.feasible, reference=chain.states[chain.reference])
        missing = missing[~_returning(around.kept, around.reference)[around._lookup(chain.states[missing])]]
    if len(missing):
        raise ReducibleChainError(f"the state {chain.states[missing[0]].tolist()} (and {len(missing) - 1:,} more of the "
                                  f"{chain.n_kept:,} kept states) cannot reach the initial state {list(model.initial)} "
                                  "without going more than two jumps out of the kept set: the model has transient states "
                                  "or several closed classes there; give an initial state from which every state of the "
                                  "chain is reached and back")


def _reached(rates: sp.csr_array, start: int) -> np.ndarray:
    """Which states ``start`` reaches along positive ``rates``."""
    reached = np.zeros(rates.shape[0], dtype=bool)
    reached[breadth_first_order(rates, start, directed=True, return_predecessors=False)] = True
    return reached


def _returning(rates: sp.csr_array, reference: int) -> np.ndarray:
    """Which states reach ``reference`` along positive ``rates``."""
    return _reached(rates.T.tocsr(), reference)


def _with_targets(model: PopulationModel, states: np.ndarray) -> np.ndarray:
    """``states`` and the states of the model they jump to."""
    targets = [states[rate(states) > 0] + np.asarray(d) for d, rate in model.moves]
    merged = np.unique(np.concatenate([states, *targets]), axis=0)
    return merged[model.feasible(merged)]


def _whole(model: PopulationModel, checked: list[_Reward], tolerance: float, limit: int, method: str
           ) -> StationaryBounds:
    """A model with every count bounded: the whole chain (the states the initial state reaches),
    solved with its proven accuracy."""
    count = math.prod(u + 1 for u in model.upper)
    if count > limit:
        raise StateSpaceTooLargeError(count, limit, what="the bounded lattice")
    states = lattice_points(model.upper)
    chain, _ = _reached_part(model, truncate_lattice(states, model.moves, model.feasible, reference=model.initial))
    _check_returns(model, chain)
    # the reached states are closed under the moves; states outside that jump in are never reached
    chain = replace(chain, boundary=chain.states[:0], entries=sp.csr_array((0, chain.n_kept)))
    truncation = solve_truncated(chain, Drift.nothing_left_out(), tolerance=tolerance, method=method)
    intervals = {}
    for reward in checked:
        values = _values(reward, chain.states)
        intervals[reward.name] = Interval(*truncation.interval(values, float(values.min()), float(values.max())))
    return StationaryBounds(intervals, None, 0.0, chain.n_kept, "the whole (finite) chain", truncation)
