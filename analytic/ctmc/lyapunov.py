"""Lyapunov functions found by the package and proved on infinitely many states.

For a :class:`~analytic.ctmc.population.PopulationModel` with one unbounded count ``x`` (the other
counts bounded: its *phase* ``p``), the package looks for ``V(x, p) = β^x g_p`` with a drift
``GV <= -η`` on every state with ``x > L``, and proves it there (theorem (i) of
:mod:`analytic.ctmc.truncation`; the approach of Dayar, Hermanns, Spieler & Wolf, "Bounding the
equilibrium distribution of Markov population models", Numer. Linear Algebra Appl. 18 (2011),
Sec. 4, who prove the drift of a polynomial ``V`` symbolically; here ``V`` is geometric, so rates of
any polynomial degree are pushed back).

The search is numerical; only the proof vouches
------------------------------------------------
* *Search* (:func:`find_geometric`): for dyadic bases ``β = 1 + j/2^k`` (exact doubles), the phase
  weights ``g`` come from a linear program on the leading coefficients of the drift factors
  ``D_p(x) = Σ_k r_k(x, p) (β^{v_k} g_{p + v_k} - g_p)`` (``GV = β^x D``; every ``g_p = 1`` when
  there is one phase): each must be negative, by the largest margin. ``D`` is then evaluated in
  floating point on a grid of states, and the base that needs the fewest kept levels ``L`` for a
  target neglected mass ``c / (c + η)`` is chosen.
* *Proof* (:func:`prove_geometric`): ``V`` is the double ``fl(fl(β^x) g_p)`` (within ``2^-50``
  relative of ``β^x g_p``: ``β`` and ``g_p`` are exact doubles and libm's ``pow`` is accurate to
  about half an ulp). For every phase the rates are replaced by the polynomials they equal beyond a
  rational threshold (:func:`~analytic.ctmc.tails.eventual_polynomial`), and with
  ``a_k = β^{v_k} g_{p + v_k} (1 + 2^-50) - g_p (1 - 2^-50)`` (the rounding of ``V`` at both ends of
  each jump, bounded above)

      ``GV(x, p) <= β^x D̃_p(x)``,  ``D̃_p(x) = Σ_k r_k(x, p) a_k``,

  a polynomial with rational coefficients. A rational rate (a Hill function) is replaced by its
  polynomial envelopes ``l_k <= r_k <= u_k`` beyond the threshold
  (:func:`~analytic.ctmc.tails.envelope`): ``r_k a_k <= u_k a_k`` where the exact ``a_k >= 0`` (the
  jump raises ``V``) and ``<= l_k a_k`` where ``a_k < 0``, so ``D̃_p`` stays a polynomial bound
  (its envelopes taken from ``x = L + 1``, where they are tightest). It is proved ``<= -m_p < 0``
  on all real ``x >= L + 1`` by exact real-root counting (sympy), so ``GV <= -η`` outside with ``η = β^{L+1} min_p m_p``. Rates
  are checked ``>= 0`` on the same range the same way. On the kept levels ``GV`` is evaluated state
  by state with the rounding of each sum bounded
  (``lattice_generator_drift`` of :mod:`analytic.ctmc.truncation`), which gives ``c``.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import sympy
from scipy.optimize import linprog

from analytic.ctmc.population import PopulationModel, lattice_points
from analytic.ctmc.tails import envelope, eventual_rational, last_root_bound, level_after
from analytic.ctmc.truncation import Drift, TruncatedChain, lattice_generator_drift
from analytic.errors import ConvergenceError, InvalidParameterError, StateSpaceTooLargeError, UnstableSystemError

__all__ = ["GeometricLyapunov", "TailDrift", "find_geometric", "phase_index", "phase_weights", "prove_geometric",
           "proved_drift", "rounded_gain", "tail_drift"]

#: Relative accuracy granted to ``fl(fl(β^x) g_p)`` (libm's pow is within about half an ulp, 2^-53).
POWER_SLACK = sympy.Rational(1, 2**50)
#: The largest ``V`` on the states evaluated numerically (so that ``fl(β^x)`` stays finite).
LARGEST_LOG2_V = 1000
#: Phases (assignments of the bounded counts) the symbolic proof handles.
MAX_PHASES = 4096
#: States (levels times phases) the numerical search for a base evaluates at most.
GRID_STATES = 4_000_000
#: Phase weights are kept in [1, MAX_WEIGHT] and rounded to multiples of 2^-WEIGHT_BITS (exact doubles).
MAX_WEIGHT = 1e4
WEIGHT_BITS = 24
#: Candidate bases: dyadic, so that β is an exact double.
BASES = tuple(sorted({1 + sympy.Rational(1, 2**k) for k in range(1, 13)}
                     | {1 + sympy.Rational(j, 64) for j in range(1, 193)}))
#: The bases a search that solves a linear program per base tries: a quarter of them, with every ``1 + 2^-k``.
SEARCH_BASES = tuple(b for k, b in enumerate(BASES) if k % 4 == 0 or b.p == b.q + 1)


def rounded_gain(base: sympy.Rational, jump: int, target: object = 1, source: object = 1) -> sympy.Rational:
    """``β^jump g_target (1 + 2^-50) - g_source (1 - 2^-50)``: an upper bound on ``(V(y) - V(x)) / β^x``
    for a jump that moves the geometric count by ``jump``, whatever the rounding of the doubles
    ``V`` takes (each within ``2^-50`` of its exact value; module docstring).

    Parameters
    ----------
    base : sympy.Rational
        ``β``.
    jump : int
        The change of the count in the exponent.
    target, source : rational
        The weights of ``V`` at the target and at the source (1 without weights).

    Returns
    -------
    sympy.Rational

    Examples
    --------
    >>> rounded_gain(sympy.Rational(2), 1) - 1 == 3 * POWER_SLACK
    True
    """
    return base**jump * target * (1 + POWER_SLACK) - source * (1 - POWER_SLACK)


def _phase_values(model: PopulationModel) -> np.ndarray:
    """Every assignment of the bounded counts, in the order of the phases."""
    return lattice_points([model.upper[i] for i in model.bounded])


@dataclass(frozen=True)
class GeometricLyapunov:
    """``V(x, p) = β^x g_p``: geometric in the unbounded count ``x``, weighted per phase ``p``.

    Attributes
    ----------
    base : sympy.Rational
        ``β > 1``, a dyadic rational (an exact double).
    weights : numpy.ndarray
        ``g_p >= 1`` per phase (exact doubles), in the order of :attr:`TailDrift.phases`.
    model : PopulationModel

    Examples
    --------
    >>> x = sympy.Symbol("x")
    >>> V = GeometricLyapunov(sympy.Rational(3, 2), np.ones(1), PopulationModel([x], [((1,), 1), ((-1,), 2)]))
    >>> V.expression, V(np.array([[0], [2]])).tolist()
    ((3/2)**x, [1.0, 2.25])
    """

    base: sympy.Rational
    weights: np.ndarray
    model: PopulationModel

    @property
    def expression(self) -> sympy.Expr:
        """``V`` as a sympy expression (the weights as a ``Piecewise`` in the bounded counts)."""
        model = self.model
        power = self.base ** model.variables[model.unbounded[0]]
        if np.all(self.weights == 1):
            return power
        branches = [(sympy.Rational(float(g)), sympy.And(*(sympy.Eq(model.variables[i], int(v))
                                                           for i, v in zip(model.bounded, phase, strict=True))))
                    for g, phase in zip(self.weights, _phase_values(model), strict=True)]
        return power * sympy.Piecewise(*branches[:-1], (branches[-1][0], True))

    def __call__(self, states: np.ndarray) -> np.ndarray:
        """``fl(fl(β^x) g_p)`` at each row of ``states`` (states of the chain)."""
        X = np.asarray(states)
        axis = self.model.unbounded[0]
        return float(self.base) ** X[:, axis].astype(float) * self.weights[phase_index(self.model, X)]


def phase_index(model: PopulationModel, states: np.ndarray) -> np.ndarray:
    """The index of each state's phase (its bounded counts) in :attr:`TailDrift.phases`.

    Parameters
    ----------
    model : PopulationModel
    states : int array, shape (m, d)
        States of the chain.

    Returns
    -------
    numpy.ndarray of int

    Examples
    --------
    >>> x, y = sympy.symbols("x y")
    >>> model = PopulationModel([x, y], [((1, 0), 1), ((0, 1), 1)], upper=[None, 2])
    >>> phase_index(model, np.array([[7, 0], [0, 2]])).tolist()
    [0, 2]
    """
    bounded = list(model.bounded)
    if not bounded:
        return np.zeros(len(states), dtype=np.int64)
    shape = tuple(model.upper[i] + 1 for i in bounded)
    return np.ravel_multi_index(tuple(np.asarray(states)[:, bounded].T), shape)


@dataclass(frozen=True)
class TailDrift:
    """The polynomials the model's rates equal (or lie between) in each phase, far along the unbounded count.

    Attributes
    ----------
    axis : int
    phases : numpy.ndarray
        Every assignment of the bounded counts, shape (P, d) (the unbounded column is 0).
    rates : list of list of (int, int, Envelope)
        Per phase, each transition taken in that phase: its change of the unbounded count, the
        index of the phase it leads to, and the polynomials its rate lies between on every real
        ``x`` from the least integer beyond ``threshold`` (one polynomial, its rate, unless the rate
        divides: :class:`~analytic.ctmc.tails.Envelope`).
    threshold : sympy.Rational
        Beyond it every rate is within its envelope and ``>= 0``, in every phase.

    Examples
    --------
    >>> x = sympy.Symbol("x")
    >>> tail = tail_drift(PopulationModel([x], [((1,), 2), ((-1,), sympy.Min(x, 3))]))
    >>> [(jump, rate.upper.as_expr()) for jump, _, rate in tail.rates[0]], tail.threshold >= 3
    ([(1, 2), (-1, 3)], True)
    """

    axis: int
    phases: np.ndarray
    rates: list
    threshold: sympy.Rational

    def factor(self, base: sympy.Rational, weights: np.ndarray, phase: int, start: int | None = None) -> sympy.Poly:
        """``D̃_p``: the bound on ``GV / β^x`` in ``phase`` beyond the threshold, or on every real
        ``x >= start`` (an integer beyond the threshold: the envelopes of rates that divide are
        taken from there) (module docstring).

        Parameters
        ----------
        base : sympy.Rational
            ``β > 1``.
        weights : numpy.ndarray
            ``g``, exact doubles.
        phase : int
            An index into :attr:`phases`.
        start : int, optional

        Returns
        -------
        sympy.Poly

        Examples
        --------
        >>> x = sympy.Symbol("x")
        >>> tail = tail_drift(PopulationModel([x], [((1,), 1), ((-1,), 2)]))
        >>> float(tail.factor(sympy.Rational(3, 2), np.ones(1), 0).as_expr())   # 1 (3/2 - 1) + 2 (2/3 - 1), plus rounding
        -0.1666666666666615
        """
        g = [sympy.Rational(float(w)) for w in weights]
        x = self._symbol(phase)
        total = sympy.Poly(0, x, domain="QQ")
        for jump, target, rate in self.rates[phase]:
            within = rate if start is None else rate.beyond({x: start})
            total += within.times(rounded_gain(base, jump, g[target], g[phase]))
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
        return sum((rate.asymptote * jump for jump, _, rate in self.rates[phase]),
                   sympy.Poly(0, self._symbol(phase), domain="QQ"))

    def _symbol(self, phase: int) -> sympy.Symbol:
        return self.rates[phase][0][2].upper.gens[0] if self.rates[phase] else sympy.Symbol("x")


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
    count = model.phase_count
    if count > MAX_PHASES:
        raise StateSpaceTooLargeError(count, MAX_PHASES, what="phases (assignments of the bounded counts) for the symbolic "
                                                              "drift proof")
    phases = np.zeros((count, model.dimension), dtype=np.int64)
    phases[:, list(model.bounded)] = _phase_values(model)
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
            numerator, denominator, found = eventual_rational(rate.subs(values), (x,))
            if numerator.is_zero:
                threshold = max(threshold, found.get(x, threshold))
                continue
            if numerator.LC() < 0:
                raise InvalidParameterError("transitions", rate, f"is negative for every large {x} in phase "
                                                                 f"{_phase_text(model, phase)}: a rate must be >= 0")
            t = max(found.get(x, sympy.S.NegativeInfinity), last_root_bound(numerator))
            threshold = max(threshold, t)
            taken.append((change[axis], int(phase_index(model, target[None, :])[0]),
                          envelope(numerator, denominator, {x: level_after(t)})))
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
        large ``x``; or, where every rate is eventually constant, its mean drift under the
        stationary law of the phases far out is ``>= 0`` (Neuts' condition for a
        quasi-birth-and-death tail, *Matrix-Geometric Solutions in Stochastic Models*, 1981,
        Thm. 1.7.1): the chain is not positive recurrent.
    ConvergenceError
        As above with a drift that tends to 0, where a rate divides: the drift's polynomial part
        vanishes and the remainders decide (births 1 and deaths ``1 + 3 / (1 + x)`` make a
        positive recurrent chain with a tail like ``x^-3``, which no geometric ``V`` controls).
    """
    x = model.variables[tail.axis]
    pushes = [tail.push(p) for p in range(len(tail.phases))]
    lead = [sympy.Integer(0) if q.is_zero else q.LC() for q in pushes]
    failing = [p for p, c in enumerate(lead) if c >= 0]
    rational = any(not rate.is_exact for rates in tail.rates for _, _, rate in rates)
    if len(failing) == len(pushes):
        p = max(failing, key=lambda i: lead[i])
        where = f" in phase {_phase_text(model, tail.phases[p])}" if len(pushes) > 1 else ""
        if rational and lead[p] == 0:
            raise ConvergenceError(f"no Lyapunov function found: the mean drift of {x} tends to 0 far out{where} (its "
                                   f"polynomial part is {pushes[p].as_expr()}), so no V = β^{x} g(phase) has a negative "
                                   "drift there; whether the chain is positive recurrent depends on the remainders of "
                                   "its rational rates")
        raise UnstableSystemError(f"the leading coefficient of {x}'s mean drift {pushes[p].as_expr()} for large {x}{where}",
                                  float(lead[p]), 0.0, context="arrivals are not outweighed by departures far out, so "
                                  "the chain is not positive recurrent and has no stationary law")
    if failing and all(rate.asymptote.degree() <= 0 for rates in tail.rates for _, _, rate in rates):
        drift = _mean_phase_drift(tail, pushes)
        if drift is not None and (drift > 0 or (drift == 0 and not rational)):
            raise UnstableSystemError(f"the mean drift of {x} far out, averaged over the stationary law of the phases",
                                      float(drift), 0.0, context="Neuts' condition for a level-independent tail fails, "
                                      "so the chain is not positive recurrent")


def _mean_phase_drift(tail: TailDrift, pushes: list) -> sympy.Rational | None:
    """``Σ_p α_p push_p`` with ``α`` the stationary law of the phase process far out (exact
    rationals; None if that process has no unique stationary law or is too large to solve exactly)."""
    P = len(tail.phases)
    if P > 64:
        return None
    generator = sympy.zeros(P, P)
    for p, rates in enumerate(tail.rates):
        for _, target, rate in rates:
            if target != p:
                generator[p, target] += rate.asymptote.as_expr()
                generator[p, p] -= rate.asymptote.as_expr()
    null = generator.T.nullspace()
    if len(null) != 1:
        return None
    alpha = null[0] / sum(null[0])
    if any(a < 0 for a in alpha):
        return None
    return sum(alpha[p] * pushes[p].as_expr() for p in range(P))


def _grid_rates(model: PopulationModel, tail: TailDrift, levels: int) -> tuple[np.ndarray, list]:
    """Which grid states ``x = 0..levels-1`` times every phase are states, and per transition its
    change of ``x``, the index of the phase it leads to from each phase, and its numeric rates
    (shape (levels, P))."""
    axis = tail.axis
    P = len(tail.phases)
    grid = np.repeat(tail.phases[None, :, :], levels, axis=0)
    grid[:, :, axis] = np.arange(levels)[:, None]
    states = grid.reshape(-1, model.dimension)
    feasible = model.feasible(states)
    moves = []
    for change, rate in model.moves:
        targets = tail.phases + np.asarray(change)
        targets[:, axis] = 0
        ok = model.feasible(targets)
        index = np.zeros(P, dtype=np.int64)
        index[ok] = phase_index(model, targets[ok])
        moves.append((change[axis], index, np.where(feasible, rate(states), 0.0).reshape(levels, P)))
    return feasible.reshape(levels, P), moves


def phase_weights(tail: TailDrift, base: sympy.Rational) -> np.ndarray | None:
    """Weights ``g >= 1`` (multiples of ``2^-WEIGHT_BITS``) that make the leading coefficient of
    every phase's drift factor ``D_p`` negative, by the largest margin relative to the phase's
    leading rates (a linear program, HiGHS); None where no weights do.

    Parameters
    ----------
    tail : TailDrift
    base : sympy.Rational
        ``β``.

    Returns
    -------
    numpy.ndarray or None

    Examples
    --------
    >>> x, y = sympy.symbols("x y")
    >>> model = PopulationModel([x, y], [((1, 0), 0.5), ((-1, 0), 3.0 * y), ((0, 1), 1.0), ((0, -1), 1.0)],
    ...                         upper=[None, 1])
    >>> g = phase_weights(tail_drift(model), sympy.Rational(17, 16))
    >>> bool(g[0] > g[1] >= 1)          # far out, phase 0 (no service) weighs more: it leads to the service phase
    True
    """
    P = len(tail.phases)
    if P == 1:
        return np.ones(1)
    b = float(base)
    rows, normal = [], []
    for p, rates in enumerate(tail.rates):
        if not rates:
            return None
        top = max(rate.asymptote.degree() for _, _, rate in rates)
        row = np.zeros(P)
        scale = 0.0
        for jump, target, rate in rates:
            if rate.asymptote.degree() == top:
                lc = float(rate.asymptote.LC())
                row[target] += lc * b**jump
                row[p] -= lc
                scale += lc
        rows.append(row)
        normal.append(scale)
    A = np.hstack([np.array(rows), np.array(normal)[:, None]])           # c_p(g) + t s_p <= 0
    objective = np.zeros(P + 1)
    objective[-1] = -1.0
    bounds = [(1.0, MAX_WEIGHT)] * P + [(None, 1.0)]
    result = linprog(objective, A_ub=A, b_ub=np.zeros(P), bounds=bounds, method="highs")
    if result.status != 0 or not result.x[-1] > 1e-9:
        return None
    g = result.x[:P] / result.x[:P].min()                   # the scale of g is free: the least weight is 1
    return np.maximum(1.0, np.round(g * 2.0**WEIGHT_BITS) / 2.0**WEIGHT_BITS)


def find_geometric(model: PopulationModel, tail: TailDrift, neglected: float, first_level: int = 0
                   ) -> tuple[GeometricLyapunov, int]:
    """A function ``V = β^x g_p`` and a level ``L >= first_level`` for which it should give a neglected
    mass ``<= neglected`` with the levels ``0..L`` kept (a floating-point search;
    :func:`prove_geometric` vouches).

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
    (GeometricLyapunov, int)
        ``V`` and ``L``.

    Raises
    ------
    UnstableSystemError
        From ``check_recurrent``: the unbounded count is not pushed back.
    ConvergenceError
        No base and weights make every phase's drift negative far out (the message says what was tried).
    StateSpaceTooLargeError
        No candidate reaches ``neglected`` with ``V`` finite in double precision on the levels evaluated.

    Examples
    --------
    >>> x = sympy.Symbol("x")
    >>> model = PopulationModel([x], [((1,), 1.0), ((-1,), 2.0)])
    >>> V, level = find_geometric(model, tail_drift(model), 1e-10)
    >>> V.expression, level
    ((125/64)**x, 39)
    """
    check_recurrent(model, tail)
    bases = BASES if len(tail.phases) == 1 else SEARCH_BASES            # one linear program per base with phases
    candidates = [(base, g) for base in bases if (g := phase_weights(tail, base)) is not None]
    if not candidates:
        x = model.variables[tail.axis]
        raise ConvergenceError(f"no Lyapunov function found: no V = β^{x} g(phase) with β in [{float(bases[0])}, "
                               f"{float(bases[-1])}] and weights g in [1, {MAX_WEIGHT:g}] has a negative drift far out in "
                               f"every one of the {len(tail.phases)} phases (a linear program on the leading coefficients "
                               "of the drift, per base)")
    reach = _reach(model, tail.axis)
    start = max(level_after(tail.threshold), first_level, reach)
    levels = max(2048, 4 * start + 64)
    while True:
        found = _search(model, tail, candidates, neglected, start, levels, reach)
        if found is not None:
            return found
        if levels * len(tail.phases) > GRID_STATES:
            raise StateSpaceTooLargeError(levels * len(tail.phases), GRID_STATES, what=(
                f"the search for V = β^{model.variables[tail.axis]} g(phase) (β from {float(BASES[0])} to "
                f"{float(BASES[-1])}) for a neglected mass of {neglected:.3g}"), at_least=True, advice="no candidate "
                "reached it with V finite in double precision on the levels searched; ask for a wider interval")
        levels *= 4


def _search(model: PopulationModel, tail: TailDrift, candidates: list, neglected: float, start: int, levels: int,
            reach: int) -> tuple[GeometricLyapunov, int] | None:
    """The candidate needing the fewest kept levels on the grid ``x < levels`` (None if none suffices there)."""
    feasible, moves = _grid_rates(model, tail, levels)
    log_target = math.log(neglected)
    x = np.arange(levels, dtype=float)
    best: tuple[int, GeometricLyapunov] | None = None
    for base, g in candidates:
        b = float(base)
        D = sum(rates * (b**jump * g[targets] - g) for jump, targets, rates in moves)
        worst = np.where(feasible, D, -np.inf).max(axis=1)       # the largest factor over phases, per level
        nonnegative = np.flatnonzero(worst >= 0)
        first = max(int(nonnegative[-1]) + 1 if len(nonnegative) else 0, start)
        last = min(levels - reach - 2, int((LARGEST_LOG2_V - math.log2(g.max())) / math.log2(b)) - reach - 1)
        if first > last:
            continue
        with np.errstate(divide="ignore"):
            log_c = np.maximum.accumulate(x * math.log(b) + np.log(np.maximum(worst, 0.0)))   # log max GV+ up to L
            log_eta = x * math.log(b) + np.log(np.maximum(-worst, 1e-300))                 # log(-GV) at each level
        log_eta_after = np.minimum.accumulate(log_eta[::-1])[::-1]                         # least -GV beyond each level
        L = np.arange(first, last + 1)
        good = np.flatnonzero(log_c[L] - log_eta_after[L + 1] <= log_target)
        if len(good) and (best is None or L[good[0]] < best[0]):
            best = (int(L[good[0]]), GeometricLyapunov(base, g, model))
    return None if best is None else (best[1], best[0])


def prove_geometric(model: PopulationModel, tail: TailDrift, lyapunov: GeometricLyapunov, level: int,
                    chain: TruncatedChain) -> Drift | None:
    """Prove ``GV <= -η`` for ``V = β^x g_p`` on every state with ``x > level`` and bound ``GV`` on
    the kept states of ``chain`` (all states with ``x <= level``).

    Parameters
    ----------
    model : PopulationModel
    tail : TailDrift
        Its eventual rates (:func:`tail_drift`).
    lyapunov : GeometricLyapunov
        ``V``.
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
    >>> V = GeometricLyapunov(sympy.Rational(125, 64), np.ones(1), model)
    >>> drift = prove_geometric(model, tail_drift(model), V, 39, chain)
    >>> drift.neglected_mass < 1e-10, drift.states_checked is None
    (True, True)
    """
    start = sympy.Integer(level + 1)
    if start <= tail.threshold or start < _reach(model, tail.axis):     # every jump taken beyond the level
        return None
    least = None
    for p in range(len(tail.phases)):
        margin = _negative_margin(tail.factor(lyapunov.base, lyapunov.weights, p, int(start)), start)
        if margin is None:
            return None
        least = margin if least is None else min(least, margin)
    variable = model.variables[tail.axis]
    return proved_drift(model, lyapunov, least * lyapunov.base ** start, chain,
                        f"every state with {variable} > {level} (exact real-root counting of the rate polynomials of "
                        f"{len(tail.phases)} phase(s))")


def proved_drift(model: PopulationModel, lyapunov: object, eta: sympy.Rational, chain: TruncatedChain, where: str
                 ) -> Drift:
    """The :class:`~analytic.ctmc.truncation.Drift` of a proof: ``GV <= -eta`` outside (``eta`` exact,
    rounded down to a double), and ``c`` from ``GV`` evaluated on the kept states of ``chain``.

    Parameters
    ----------
    model : PopulationModel
    lyapunov : callable
        ``V`` on an array of states.
    eta : sympy.Rational
        The proved bound ``-GV >= eta`` outside the kept set.
    chain : TruncatedChain
    where : str
        Which states the proof covered, and how (for ``Drift.check``).

    Returns
    -------
    Drift

    Examples
    --------
    >>> from analytic.ctmc.truncation import truncate_lattice
    >>> x = sympy.Symbol("x")
    >>> model = PopulationModel([x], [((1,), 1.0), ((-1,), 2.0)])
    >>> chain = truncate_lattice(np.arange(5)[:, None], model.moves, model.feasible, (0,))
    >>> V = GeometricLyapunov(sympy.Rational(3, 2), np.ones(1), model)
    >>> proved_drift(model, V, sympy.Rational(1, 3), chain, "an example").outside
    0.33333333333333326
    """
    largest = sys.float_info.max
    outside = math.nextafter(float(Fraction(int(eta.p), int(eta.q))), 0.0) if eta < largest else largest
    inside = max(0.0, float(lattice_generator_drift(chain.states, model.moves, lyapunov).max()))
    text = (f"V = {lyapunov.expression}: GV <= -{outside:.6g} checked symbolically on {where}, and evaluated on the "
            f"{chain.n_kept:,} kept states with rounding bounded")
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
