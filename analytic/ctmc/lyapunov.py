"""Lyapunov functions found by the package and proved on infinitely many states.

For a :class:`~analytic.ctmc.population.PopulationModel` with one unbounded count ``x`` (the other
counts bounded: its *phase* ``p``), the package looks for ``V(x, p) = β^x`` with a drift
``GV <= -η`` on every state with ``x > L``, and proves it there (theorem (i) of
:mod:`analytic.ctmc.truncation`; the approach of Dayar, Hermanns, Spieler & Wolf, "Bounding the
equilibrium distribution of Markov population models", Numer. Linear Algebra Appl. 18 (2011),
Sec. 4, who prove the drift of a polynomial ``V`` symbolically; here ``V`` is geometric, so rates of
any polynomial degree are pushed back).

The search is numerical; only the proof vouches
------------------------------------------------
* *Search* (:func:`find_geometric`): for dyadic bases ``β = 1 + j/2^k`` (exact doubles), the drift
  factor ``D(x, p) = Σ_k r_k(x, p) (β^{v_k} - 1)`` (``GV = β^x D``) is evaluated in floating point on
  a grid of states, and the base that needs the fewest kept levels ``L`` for a target neglected mass
  ``c / (c + η)`` is chosen.
* *Proof* (:func:`prove_geometric`): ``V`` is the double ``fl(β^x)`` (within ``2^-50`` relative of
  ``β^x``: ``β`` is exact and libm's ``pow`` is accurate to about half an ulp). For every phase the
  rates are replaced by the polynomials they equal beyond a rational threshold
  (:func:`~analytic.ctmc.tails.eventual_polynomial`), and with ``a_k = β^{v_k}(1 + 2^-50) - (1 - 2^-50)``
  (the rounding of ``V`` at both ends of each jump, bounded above)

      ``GV(x, p) <= β^x D̃_p(x)``,  ``D̃_p(x) = Σ_k r_k(x, p) a_k``,

  a polynomial with rational coefficients. It is proved ``<= -m_p < 0`` on all real ``x >= L + 1``
  by exact real-root counting (sympy), so ``GV <= -η`` outside with ``η = β^{L+1} min_p m_p``. Rates
  are checked ``>= 0`` on the same range the same way. On the kept levels ``GV`` is evaluated state
  by state with the rounding of each sum bounded
  (``lattice_generator_drift`` of :mod:`analytic.ctmc.truncation`), which gives ``c``.
"""

from __future__ import annotations

import itertools
import math
import sys
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import sympy

from analytic.ctmc.population import PopulationModel
from analytic.ctmc.tails import eventual_polynomial, last_root_bound, level_after
from analytic.ctmc.truncation import Drift, TruncatedChain, lattice_generator_drift
from analytic.errors import ConvergenceError, InvalidParameterError, StateSpaceTooLargeError, UnstableSystemError

__all__ = ["GeometricLyapunov", "TailDrift", "find_geometric", "prove_geometric", "tail_drift"]

#: Relative accuracy granted to ``fl(β^x)`` (libm's pow is within about half an ulp, 2^-53).
POWER_SLACK = sympy.Rational(1, 2**50)
#: The largest ``V`` on the states evaluated numerically (so that ``fl(β^x)`` stays finite).
LARGEST_LOG2_V = 1000
#: Phases (assignments of the bounded counts) the symbolic proof handles.
MAX_PHASES = 4096
#: States (levels times phases) the numerical search for a base evaluates at most.
GRID_STATES = 4_000_000
#: Candidate bases: dyadic, so that β is an exact double.
BASES = tuple(sorted({1 + sympy.Rational(1, 2**k) for k in range(1, 13)}
                     | {1 + sympy.Rational(j, 64) for j in range(1, 193)}))


@dataclass(frozen=True)
class GeometricLyapunov:
    """``V(x) = β^{x_i}``, the count ``i`` being the model's unbounded one.

    Attributes
    ----------
    base : sympy.Rational
        ``β > 1``, a dyadic rational (an exact double).
    axis : int
        The index of the unbounded count.
    variable : sympy.Symbol

    Examples
    --------
    >>> x = sympy.Symbol("x")
    >>> V = GeometricLyapunov(sympy.Rational(3, 2), 0, x)
    >>> V.expression, V(np.array([[0], [2]])).tolist()
    ((3/2)**x, [1.0, 2.25])
    """

    base: sympy.Rational
    axis: int
    variable: sympy.Symbol

    @property
    def expression(self) -> sympy.Expr:
        """``V`` as a sympy expression (printable)."""
        return self.base ** self.variable

    def __call__(self, states: np.ndarray) -> np.ndarray:
        """``fl(β^x)`` at each row of ``states``."""
        return float(self.base) ** np.asarray(states)[:, self.axis].astype(float)


@dataclass(frozen=True)
class TailDrift:
    """The polynomials the model's rates equal in each phase, far along the unbounded count.

    Attributes
    ----------
    axis : int
    phases : numpy.ndarray
        Every assignment of the bounded counts, shape (P, d) (the unbounded column is 0).
    rates : list of list of (int, sympy.Poly)
        Per phase, each transition taken in that phase: its change of the unbounded count and the
        polynomial its rate equals beyond ``threshold``.
    threshold : sympy.Rational
        Beyond it every rate is its polynomial and ``>= 0``, in every phase.

    Examples
    --------
    >>> x = sympy.Symbol("x")
    >>> tail = tail_drift(PopulationModel([x], [((1,), 2), ((-1,), sympy.Min(x, 3))]))
    >>> [(jump, poly.as_expr()) for jump, poly in tail.rates[0]], tail.threshold >= 3
    ([(1, 2), (-1, 3)], True)
    """

    axis: int
    phases: np.ndarray
    rates: list
    threshold: sympy.Rational

    def factor(self, base: sympy.Rational, phase: int) -> sympy.Poly:
        """``D̃_p``: the bound on ``GV / β^x`` in ``phase`` beyond the threshold (module docstring).

        Parameters
        ----------
        base : sympy.Rational
            ``β > 1``.
        phase : int
            An index into :attr:`phases`.

        Returns
        -------
        sympy.Poly

        Examples
        --------
        >>> x = sympy.Symbol("x")
        >>> tail = tail_drift(PopulationModel([x], [((1,), 1), ((-1,), 2)]))
        >>> float(tail.factor(sympy.Rational(3, 2), 0).as_expr())      # 1 (3/2 - 1) + 2 (2/3 - 1), plus rounding
        -0.1666666666666615
        """
        x = self.rates[phase][0][1].gens[0] if self.rates[phase] else sympy.Symbol("x")
        total = sympy.Poly(0, x, domain="QQ")
        for jump, poly in self.rates[phase]:
            total += poly * (base**jump * (1 + POWER_SLACK) - (1 - POWER_SLACK))
        return total

    def push(self, phase: int) -> sympy.Poly:
        """``Σ_k v_k r_k``: the mean drift of the unbounded count in ``phase``, far out.

        Parameters
        ----------
        phase : int
            An index into :attr:`phases`.

        Returns
        -------
        sympy.Poly

        Examples
        --------
        >>> x = sympy.Symbol("x")
        >>> tail_drift(PopulationModel([x], [((1,), 1), ((-1,), x)])).push(0).as_expr()
        1 - x
        """
        x = self.rates[phase][0][1].gens[0] if self.rates[phase] else sympy.Symbol("x")
        return sum((poly * jump for jump, poly in self.rates[phase]), sympy.Poly(0, x, domain="QQ"))


def tail_drift(model: PopulationModel) -> TailDrift:
    """The eventual polynomial rates of ``model`` per phase (:class:`TailDrift`).

    Parameters
    ----------
    model : PopulationModel

    Returns
    -------
    TailDrift

    Raises
    ------
    InvalidParameterError
        Not exactly one unbounded count, more than ``MAX_PHASES`` phases, a rate the tail analysis
        does not know, or a rate that is negative at every large value of the count in some phase.

    Examples
    --------
    >>> x, y = sympy.symbols("x y")
    >>> model = PopulationModel([x, y], [((1, 0), 1 + y), ((-1, 0), 3 * sympy.Min(x, 2)), ((0, 1), 1), ((0, -1), 1)],
    ...                         upper=[None, 1])
    >>> tail = tail_drift(model)
    >>> tail.phases.tolist(), [tail.push(p).as_expr() for p in range(2)]
    ([[0, 0], [0, 1]], [-5, -4])
    """
    if not isinstance(model, PopulationModel):
        raise InvalidParameterError("model", model, "must be a PopulationModel")
    free = model.unbounded
    if len(free) != 1:
        names = [str(model.variables[i]) for i in free]
        raise InvalidParameterError("model", model, f"has {len(free)} unbounded counts {names}: the package proves drift "
                                                    "conditions for models with exactly one unbounded count (the others "
                                                    "bounded) in this release")
    axis = free[0]
    x = model.variables[axis]
    ranges = [range(1) if i == axis else range(u + 1) for i, u in enumerate(model.upper)]
    count = math.prod(len(r) for r in ranges)
    if count > MAX_PHASES:
        raise StateSpaceTooLargeError(count, MAX_PHASES, what="phases (assignments of the bounded counts) for the symbolic "
                                                              "drift proof")
    phases = np.array(list(itertools.product(*ranges)), dtype=np.int64).reshape(count, model.dimension)
    threshold = sympy.S.NegativeInfinity
    per_phase = []
    for phase in phases:
        values = {v: int(phase[i]) for i, v in enumerate(model.variables) if i != axis}
        taken = []
        for change, rate in model.transitions:
            target = phase + np.asarray(change)
            target[axis] = 0
            if not model.feasible(target[None, :])[0]:
                continue
            poly, t = eventual_polynomial(rate.subs(values), x)
            if poly.is_zero:
                threshold = max(threshold, t)
                continue
            if poly.LC() < 0:
                raise InvalidParameterError("transitions", rate, f"is negative for every large {x} in phase "
                                                                 f"{_phase_text(model, phase)}: a rate must be >= 0")
            taken.append((change[axis], poly))
            threshold = max(threshold, t, last_root_bound(poly))
        per_phase.append(taken)
    return TailDrift(axis, phases, per_phase, threshold)


def _phase_text(model: PopulationModel, phase: np.ndarray) -> str:
    return ", ".join(f"{v} = {int(phase[i])}" for i, v in enumerate(model.variables) if model.upper[i] is not None) or "-"


def _reach(model: PopulationModel, axis: int) -> int:
    return max(abs(change[axis]) for change, _ in model.transitions)


def check_recurrent(model: PopulationModel, tail: TailDrift) -> None:
    """Refuse a model whose unbounded count is not pushed back far out.

    Parameters
    ----------
    model : PopulationModel
    tail : TailDrift
        Its eventual rates (:func:`tail_drift`).

    Raises
    ------
    UnstableSystemError
        In every phase the mean drift ``Σ_k v_k r_k(x)`` of the unbounded count is ``>= 0`` for all
        large ``x``: the count is not pushed back, and the chain is not positive recurrent.
    ConvergenceError
        Pushed back in some phases only: no ``V = β^x`` has a negative drift in the others, and
        the package does not yet search phase-weighted functions.
    """
    x = model.variables[tail.axis]
    pushes = [tail.push(p) for p in range(len(tail.phases))]
    lead = [sympy.Integer(0) if q.is_zero else q.LC() for q in pushes]
    failing = [p for p, c in enumerate(lead) if c >= 0]
    if not failing:
        return
    p = max(failing, key=lambda i: lead[i])
    where = f" in phase {_phase_text(model, tail.phases[p])}" if model.dimension > 1 else ""
    if len(failing) == len(pushes):
        raise UnstableSystemError(f"the leading coefficient of the mean drift {pushes[p].as_expr()} of {x} for large {x}"
                                  f"{where}", float(lead[p]), 0.0, context="arrivals are not outweighed by departures far "
                                  "out, so the chain is not positive recurrent and has no stationary law")
    raise ConvergenceError(f"no Lyapunov function found: far out{where} the mean drift of {x} is {pushes[p].as_expr()} >= 0, "
                           f"so no V = β^{x} has a negative drift there (pushed back in {len(pushes) - len(failing)} of "
                           f"{len(pushes)} phases); phase-weighted functions are not searched yet")


def _grid_factors(model: PopulationModel, tail: TailDrift, levels: int) -> tuple[np.ndarray, dict[int, np.ndarray]]:
    """Per jump size of the unbounded count, the summed numeric rates on the grid ``x = 0..levels-1``
    times every phase (shape (levels, P))."""
    axis = tail.axis
    P = len(tail.phases)
    grid = np.repeat(tail.phases[None, :, :], levels, axis=0)
    grid[:, :, axis] = np.arange(levels)[:, None]
    states = grid.reshape(-1, model.dimension)
    feasible = model.feasible(states)
    by_jump: dict[int, np.ndarray] = {}
    for change, rate in model.moves:
        values = np.where(feasible, rate(states), 0.0).reshape(levels, P)
        by_jump[change[axis]] = by_jump.get(change[axis], 0.0) + values
    return feasible.reshape(levels, P), by_jump


def find_geometric(model: PopulationModel, tail: TailDrift, neglected: float, first_level: int = 0
                   ) -> tuple[sympy.Rational, int]:
    """A base ``β`` and a level ``L >= first_level`` for which ``V = β^x`` should give a neglected mass
    ``<= neglected`` with the levels ``0..L`` kept (a floating-point search; :func:`prove_geometric`
    vouches).

    Parameters
    ----------
    model : PopulationModel
    tail : TailDrift
        Its eventual rates (:func:`tail_drift`).
    neglected : float
        The target for ``c / (c + η)``.
    first_level : int
        The least ``L`` wanted (e.g. beyond the thresholds of the rewards).

    Returns
    -------
    (sympy.Rational, int)
        ``β`` and ``L``.

    Raises
    ------
    UnstableSystemError, ConvergenceError
        From ``check_recurrent`` (the unbounded count is not pushed back in some phase).
    StateSpaceTooLargeError
        No candidate base reaches ``neglected`` with ``fl(β^x)`` finite on the levels evaluated.

    Examples
    --------
    >>> x = sympy.Symbol("x")
    >>> model = PopulationModel([x], [((1,), 1.0), ((-1,), 2.0)])
    >>> find_geometric(model, tail_drift(model), 1e-10)
    (125/64, 39)
    """
    check_recurrent(model, tail)
    reach = _reach(model, tail.axis)
    start = max(level_after(tail.threshold), first_level, reach)
    levels = max(2048, 4 * start + 64)
    while True:
        found = _search(model, tail, neglected, start, levels, reach)
        if found is not None:
            return found
        if levels * len(tail.phases) > GRID_STATES:
            raise StateSpaceTooLargeError(levels * len(tail.phases), GRID_STATES, what=(
                f"the search for V = β^{model.variables[tail.axis]} (β from {float(BASES[0])} to {float(BASES[-1])}) for "
                f"a neglected mass of {neglected:.3g}"), at_least=True, advice="no base reached it with V finite in "
                "double precision on the levels searched; ask for a wider interval")
        levels *= 4


def _search(model: PopulationModel, tail: TailDrift, neglected: float, start: int, levels: int, reach: int
            ) -> tuple[sympy.Rational, int] | None:
    """The base needing the fewest kept levels on the grid ``x < levels`` (None if none suffices there)."""
    feasible, by_jump = _grid_factors(model, tail, levels)
    log_target = math.log(neglected)
    x = np.arange(levels, dtype=float)
    best: tuple[int, sympy.Rational] | None = None
    for base in BASES:
        b = float(base)
        D = sum(rates * (b**jump - 1.0) for jump, rates in by_jump.items())
        worst = np.where(feasible, D, -np.inf).max(axis=1)       # the largest factor over phases, per level
        nonnegative = np.flatnonzero(worst >= 0)
        first = max(int(nonnegative[-1]) + 1 if len(nonnegative) else 0, start)
        last = min(levels - reach - 2, int(LARGEST_LOG2_V / math.log2(b)) - reach - 1)
        if first > last:
            continue
        with np.errstate(divide="ignore"):
            log_c = np.maximum.accumulate(x * math.log(b) + np.log(np.maximum(worst, 0.0)))   # log max GV+ up to L
            log_eta = x * math.log(b) + np.log(np.maximum(-worst, 1e-300))                 # log(-GV) at each level
        log_eta_after = np.minimum.accumulate(log_eta[::-1])[::-1]                         # least -GV beyond each level
        L = np.arange(first, last + 1)
        good = np.flatnonzero(log_c[L] - log_eta_after[L + 1] <= log_target)
        if len(good) and (best is None or L[good[0]] < best[0]):
            best = (int(L[good[0]]), base)
    return None if best is None else (best[1], best[0])


def prove_geometric(model: PopulationModel, tail: TailDrift, base: sympy.Rational, level: int,
                    chain: TruncatedChain) -> Drift | None:
    """Prove ``GV <= -η`` for ``V = β^x`` on every state with ``x > level`` and bound ``GV`` on the
    kept states of ``chain`` (all states with ``x <= level``).

    Parameters
    ----------
    model : PopulationModel
    tail : TailDrift
        Its eventual rates (:func:`tail_drift`).
    base : sympy.Rational
        ``β``, dyadic.
    level : int
        ``L``.
    chain : TruncatedChain
        The truncation to the states with ``x <= L``.

    Returns
    -------
    Drift or None
        The checked condition (``kept`` = the chain), or None where the tail polynomial of some phase
        is not negative on all of ``[level + 1, ∞)`` (the caller keeps more levels).

    Examples
    --------
    >>> from analytic.ctmc.truncation import truncate_lattice
    >>> x = sympy.Symbol("x")
    >>> model = PopulationModel([x], [((1,), 1.0), ((-1,), 2.0)])
    >>> chain = truncate_lattice(np.arange(40)[:, None], model.moves, model.feasible, (0,))
    >>> drift = prove_geometric(model, tail_drift(model), sympy.Rational(125, 64), 39, chain)
    >>> drift.neglected_mass < 1e-10, drift.states_checked is None
    (True, True)
    """
    V = GeometricLyapunov(base, tail.axis, model.variables[tail.axis])
    start = sympy.Integer(level + 1)
    if start <= tail.threshold or start < _reach(model, tail.axis):     # every jump taken beyond the level
        return None
    least = None
    for p in range(len(tail.phases)):
        factor = tail.factor(base, p)
        margin = _negative_margin(factor, start)
        if margin is None:
            return None
        least = margin if least is None else min(least, margin)
    eta = least * base ** start
    largest = sys.float_info.max
    outside = math.nextafter(float(Fraction(int(eta.p), int(eta.q))), 0.0) if eta < largest else largest
    inside = max(0.0, float(lattice_generator_drift(chain.states, model.moves, V).max()))
    text = (f"V = {V.expression}: GV <= -{outside:.6g} checked symbolically on every state with "
            f"{V.variable} > {level} (exact real-root counting of the rate polynomials of {len(tail.phases)} phase(s)), "
            f"and evaluated on the {chain.n_kept:,} kept states with rounding bounded")
    return Drift(inside, outside, text, states_checked=None, kept=chain)


def _negative_margin(poly: sympy.Poly, start: sympy.Integer) -> sympy.Rational | None:
    """A rational ``m > 0`` with ``poly(x) <= -m`` for every real ``x >= start``, or None."""
    if poly.is_zero:
        return None
    value = poly.eval(start)
    if value >= 0 or (poly.degree() > 0 and poly.LC() > 0):
        return None
    margin = -value * (1 - sympy.Rational(1, 2**20))      # the least value is at ``start`` when poly decreases
    for _ in range(60):
        shifted = poly + margin
        if shifted.degree() <= 0 or shifted.count_roots(start, None) == 0:
            return margin
        margin /= 2
    return None
