"""Drift proofs for population models with several unbounded counts, region by region.

With unbounded counts ``x_1, ..., x_d`` (and bounded ones, the phase), the package looks for
``V(x) = β^{w·x}`` (``w`` a vector of positive integers, ``β`` a dyadic rational) and keeps
``K = {w·x <= L}``. Outside ``K`` the drift is proved region by region:

* Each unbounded count ``x_i`` has a threshold ``T_i`` beyond which every comparison of that count
  with constants is decided (:func:`~analytic.ctmc.tails.eventual_form`), and ``T_i`` is at least
  the largest jump down of ``x_i``.
* A *region* fixes each unbounded count either at a value below ``T_i`` or as *large*
  (``x_i >= T_i``), and fixes the phase. Counts that a rate compares through their difference
  (``x < y``, ``x > y + 2``: join the shortest queue) are *ordered* instead: a region of such a
  group orders its counts (ties by index), fixes the least below the group's threshold or makes it
  large, and fixes each gap between neighbours below a gap threshold ``M`` or makes it wide
  (``>= M``). A region is then ``x = corner + Σ_k y_k d_k`` over integers ``y_k >= 0``, each
  direction ``d_k`` raising the counts above a wide gap, or all of the group for the least
  (:class:`Region`). The thresholds rise until every comparison is decided in every region (a
  comparison along one parameter beyond a positive level raises that parameter's threshold), so
  there every rate is a polynomial ``r_k(y)`` in the parameters, with exact rational
  coefficients. The drift factor ``GV / β^{w·x} <= D(y) =
  Σ_k r_k(y) (β^{w·v_k} (1 + 2^-50) - (1 - 2^-50))`` (the rounding of the doubles ``V`` takes,
  bounded as in :mod:`analytic.ctmc.lyapunov`) is a polynomial too. A rate that divides (a Hill
  function) lies between two polynomials in the region (:func:`region_envelope`): ``D`` takes the
  upper one where ``β^{w·v_k} (1 + 2^-50) - (1 - 2^-50) >= 0`` and the lower one elsewhere.
  A comparison no region decides (``x > 2 y``) is refused by name.
* If every coefficient of ``D`` in ``y`` of degree two and more is ``<= 0``, and every linear one
  ``a_k <= 0``, then ``D <= p_0 + Σ_k a_k y_k``. On the states of the region outside ``K``
  (``w·x >= L + 1``) this is at most ``p_0 + max(0, B) max_k a_k / (w·d_k)``, where ``B`` is what
  ``L + 1`` leaves of ``w·x`` at the region's corner (for a count large on its own, ``d_k`` is its
  unit vector and ``y_k = x_k - T_k``). All of it is exact rational arithmetic. A negative value
  ``-m`` in every region gives ``GV <= -β^{L+1} min m`` outside ``K``. That sufficient condition
  covers queueing networks, priority queues, join-the-shortest-queue routing and first-order
  reaction networks; a polynomial with a positive higher-order coefficient is not proved, and the
  model is refused.

The search for ``w`` and ``β`` runs the same test in floating point over small integer vectors and
dyadic bases and keeps the candidate that needs the fewest kept states; only the exact check vouches.

A tandem queue at high load has no such ``β^{w·x}`` (no one direction ``w`` serves both of its
faces): there ``V(x) = β^{w·x} g_c`` is weighted per *boundary cell* ``c`` (each unbounded count
clamped at a depth ``S_i``), the weights from a linear program on the regions' coefficients, and
the drift factor of each region stays a polynomial proved exactly as above (the documentation's page
"Bounds for your own model", section "Several unbounded counts"; Down & Meyn, "Piecewise linear test
functions for stability and instability of queueing networks", Queueing Systems 27, 1997).

One module, like :mod:`analytic.ctmc.lyapunov` and :mod:`analytic.ctmc.separable` for their
families: the floating-point search (:func:`find_linear_geometric`, :func:`find_face_geometric`)
runs the very region test the exact proof (:func:`prove_linear_geometric`) then checks, on the same
regions and thresholds, so the two are kept side by side to stay the same test.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
import sympy
from scipy.optimize import linprog

from analytic._deprecation import deprecated
from analytic.ctmc.lyapunov import LARGEST_LOG2_V, SEARCH_BASES, proved_drift, rounded_gain
from analytic.ctmc.population import PopulationModel, lattice_points
from analytic.ctmc.tails import Envelope, MixedComparison, envelope, eventual_form, eventual_rational, level_after
from analytic.ctmc.truncation import Drift, TruncatedChain, lattice_generator_drift
from analytic.errors import ConvergenceError, InvalidParameterError, StateSpaceTooLargeError

__all__ = ["LinearGeometric", "Region", "affine_bound", "find_face_geometric", "find_linear_geometric",
           "prove_linear_geometric", "region_envelope", "region_form", "regions"]

#: Regions (small values times phases) the proof enumerates at most.
MAX_REGIONS = 100_000
#: Rounds of raising thresholds until every comparison is decided in every region, at most.
MAX_ROUNDS = 32
#: The largest weight of a count in ``w`` the linear program may choose.
MAX_WEIGHT = 32
#: Depths of the boundary layer tried for the cell weights, per count (none, or one of these).
LAYER_DEPTHS = (1, 2, 4, 8, 16, 32, 64, 128)
#: The largest cell weight ``g`` (the least is 1), and its grid (multiples of ``2^-CELL_BITS``).
MAX_CELL_WEIGHT = 1e4
CELL_BITS = 24


@dataclass(frozen=True)
class Region:
    """Part of the state space where every rate is one polynomial in the region's parameters.

    The region is ``x = corner + Σ_k y_k directions[k]`` over integers ``y_k >= 0``, one parameter
    per count of ``large``, written with that count's symbol. A count compared with constants only
    is fixed or large on its own (``x_i = T_i + y_i``). Counts compared through their difference
    (``x > y``) are ordered: the parameter of the least raises them all, that of a wide gap the
    counts above it (module docstring).

    Attributes
    ----------
    fixed : dict of int to int
        The counts fixed in the region (unbounded ones at small values, and the phase).
    large : tuple of int
        The counts that name the parameters.
    rates : list of (numpy.ndarray, Envelope)
        Each transition taken in the region: its change vector and its rate, a polynomial in the
        parameters (or, for a rate that divides, the polynomials it lies between there:
        :class:`~analytic.ctmc.tails.Envelope`).
    corner : tuple of int
        The region's least state (every parameter 0).
    directions : tuple of tuple of int
        Per parameter, 1 for each count it raises, 0 elsewhere.

    Examples
    --------
    >>> x, y = sympy.symbols("x y")
    >>> T, found = regions(PopulationModel([x, y], [((1, 0), 1), ((0, -1), sympy.Min(y, 2))]))
    >>> region = found[-1]                                   # both counts large
    >>> region.fixed, region.large, [rate.upper.as_expr() for _, rate in region.rates]
    ({}, (0, 1), [1, 2])
    >>> region.corner, region.directions
    ((0, 3), ((1, 0), (0, 1)))
    """

    fixed: dict
    large: tuple
    rates: list
    corner: tuple
    directions: tuple


@dataclass(frozen=True)
class LinearGeometric:
    """``V(x) = β^{w·x} g_c``: geometric over the unbounded counts, weighted per boundary cell ``c``
    (module docstring; without ``cells``, every ``g_c = 1``).

    Attributes
    ----------
    base : sympy.Rational
        ``β > 1``, dyadic.
    weights : tuple of int
        ``w_i >= 1`` per unbounded count, in the order of ``model.unbounded``.
    model : PopulationModel
    layers : tuple of int
        The depth ``S_i >= 0`` of the boundary layer per unbounded count (empty without ``cells``).
    cells : numpy.ndarray or None
        ``g_c >= 1`` (exact doubles), shaped ``S_i + 1`` per unbounded count and ``upper + 1`` per
        bounded one, in the order of ``model.variables``.

    Examples
    --------
    >>> x, y = sympy.symbols("x y")
    >>> model = PopulationModel([x, y], [((1, 0), 1), ((0, 1), 1)])
    >>> V = LinearGeometric(sympy.Rational(3, 2), (1, 2), model)
    >>> V.expression, V(np.array([[1, 1]])).tolist()
    ((3/2)**(x + 2*y), [3.375])
    >>> W = LinearGeometric(sympy.Rational(3, 2), (1, 1), model, (0, 1), np.array([[4.0, 1.0]]))
    >>> W.expression, W(np.array([[1, 0], [1, 5]])).tolist()                # g = 4 on the face y = 0
    ((3/2)**(x + y)*g(Min(1, y)), [6.0, 11.390625])
    """

    base: sympy.Rational
    weights: tuple
    model: PopulationModel
    layers: tuple = ()
    cells: np.ndarray | None = None

    @property
    def expression(self) -> sympy.Expr:
        """``V`` as a sympy expression (the cell weights as a function ``g``: their values are :attr:`cells`)."""
        model = self.model
        exponent = sum(w * model.variables[i] for w, i in zip(self.weights, model.unbounded, strict=True))
        if self.cells is None:
            return self.base ** exponent
        depth = dict(zip(model.unbounded, self.layers, strict=True))
        arguments = [v if i not in depth else sympy.Min(v, depth[i]) for i, v in enumerate(model.variables)
                     if depth.get(i, 1)]
        return self.base ** exponent * sympy.Function("g")(*arguments)

    def __call__(self, states: np.ndarray) -> np.ndarray:
        """``fl(fl(β^{w·x}) g_c)`` at each row of ``states``."""
        power = float(self.base) ** self._exponents(states).astype(float)
        return power if self.cells is None else power * self.cells[self.cell(states)]

    def cell(self, states: np.ndarray) -> tuple:
        """The cell of each row of ``states``: an index into :attr:`cells`.

        Parameters
        ----------
        states : numpy.ndarray, shape (m, n_variables)

        Returns
        -------
        tuple of numpy.ndarray

        Examples
        --------
        >>> x, y = sympy.symbols("x y")
        >>> model = PopulationModel([x, y], [((1, 0), 1), ((0, 1), 1)])
        >>> V = LinearGeometric(sympy.Integer(2), (1, 1), model, (0, 2), np.ones((1, 3)))
        >>> [v.tolist() for v in V.cell(np.array([[5, 1], [0, 7]]))]
        [[0, 0], [1, 2]]
        """
        X = np.array(states, dtype=np.int64, ndmin=2)
        for i, depth in zip(self.model.unbounded, self.layers, strict=True):
            X[:, i] = np.minimum(X[:, i], depth)
        return tuple(X.T)

    def _exponents(self, states: np.ndarray) -> np.ndarray:
        return np.asarray(states)[:, list(self.model.unbounded)] @ np.asarray(self.weights)

    def level_of(self, state: tuple) -> int:
        """``w·x`` at ``state``: the least level whose kept set holds it.

        Parameters
        ----------
        state : sequence of int

        Returns
        -------
        int

        Examples
        --------
        >>> x, y = sympy.symbols("x y")
        >>> LinearGeometric(2, (1, 2), PopulationModel([x, y], [((1, 0), 1), ((0, 1), 1)])).level_of((3, 1))
        5
        """
        return int(self._exponents(np.asarray([state]))[0])

    def states(self, level: int) -> np.ndarray:
        """The kept set ``w·x <= level`` over the unbounded counts, every phase.

        Parameters
        ----------
        level : int
            ``L``.

        Returns
        -------
        numpy.ndarray, shape (m, d)

        Examples
        --------
        >>> x, y = sympy.symbols("x y")
        >>> LinearGeometric(2, (1, 2), PopulationModel([x, y], [((1, 0), 1), ((0, 1), 1)])).states(2).tolist()
        [[0, 0], [0, 1], [1, 0], [2, 0]]
        """
        model = self.model
        tops = [level // self.weights[model.unbounded.index(i)] if u is None else u for i, u in enumerate(model.upper)]
        grid = lattice_points(tops)
        return grid[self._exponents(grid) <= level]

    def count(self, level: int) -> int:
        """``|K|`` for ``K = {w·x <= level}`` times the phases (beyond ``10^7``, the simplex's volume
        ``level^d / (d! Π w)``, a lower bound: the count is then only compared with a ``max_states``).

        Parameters
        ----------
        level : int

        Returns
        -------
        int

        Examples
        --------
        >>> x, y = sympy.symbols("x y")
        >>> LinearGeometric(2, (1, 2), PopulationModel([x, y], [((1, 0), 1), ((0, 1), 1)])).count(2)
        4
        """
        phases, d = self.model.phase_count, len(self.weights)
        volume = phases * level**d / math.factorial(d) / math.prod(self.weights)
        if volume > 1e7:
            return int(volume)
        ways = np.zeros(level + 1, dtype=np.int64)           # ways[s]: points with w·x = s
        ways[0] = 1
        for w in self.weights:                               # add one count: cumulative sums per residue mod w
            for r in range(min(w, level + 1)):
                ways[r::w] = np.cumsum(ways[r::w])
        return phases * int(ways.sum())


def _thresholds(model: PopulationModel, phases: list[dict], extra: list) -> dict[int, int]:
    """Per unbounded count, the least level from which the comparisons of that count alone are
    decided (a first guess: :func:`regions` raises it where a region needs more)."""
    unbounded = [model.variables[i] for i in model.unbounded]
    thresholds = {i: max(0, max(-c[i] for c, _ in model.transitions)) for i in model.unbounded}
    for values in phases:
        for expression in [rate for _, rate in model.transitions] + list(extra):
            try:
                _, _, found = eventual_rational(expression.subs(values), tuple(unbounded))
            except MixedComparison:
                continue                 # decided region by region, once the counts it compares are ordered
            for v, t in found.items():
                i = model.variables.index(v)
                thresholds[i] = max(thresholds[i], level_after(t))
    return thresholds


def _group_pieces(group: tuple, low: int, gap: int) -> list[tuple[dict, dict, list]]:
    """The pieces of the counts of ``group``, compared through their differences (module docstring).

    A piece orders the counts (ties in index order), fixes the least below ``low`` or makes it large
    (``>= low``), and fixes each gap between neighbours below ``gap`` or makes it wide (``>= gap``).
    Returns, per piece, the counts at its corner, the fixed counts, and the parameters (the count
    naming each, the counts it raises, and whether it is the least count's or a gap's)."""
    pieces = []
    for order in itertools.permutations(group):
        for least in [*range(low), None]:
            for gaps in itertools.product([*range(gap), None], repeat=len(group) - 1):
                if any(g == 0 and a > b for g, a, b in zip(gaps, order, order[1:], strict=False)):
                    continue
                value = low if least is None else least
                parameters = [] if least is not None else [(order[0], order, "least")]
                corner = {order[0]: value}
                for m, g in enumerate(gaps, start=1):
                    value += gap if g is None else g
                    corner[order[m]] = value
                    if g is None:
                        parameters.append((order[m], order[m:], "gap"))
                moved = {i for _, raised, _ in parameters for i in raised}
                pieces.append((corner, {i: v for i, v in corner.items() if i not in moved}, parameters))
    return pieces


def regions(model: PopulationModel, extra: list = (), layers: tuple = ()) -> tuple[dict[int, int], list[Region]]:
    """The thresholds ``T_i`` of the unbounded counts and the regions of ``model`` (module docstring).

    Parameters
    ----------
    model : PopulationModel
    extra : list of sympy expressions
        Rewards whose comparisons the regions must also decide.
    layers : tuple of int
        Depths ``S_i`` of a boundary layer per unbounded count: ``T_i`` is then at least ``S_i``
        plus the largest jump down of ``x_i`` (cell weights, module docstring).

    Returns
    -------
    (dict of int to int, list of Region)

    Raises
    ------
    InvalidParameterError
        A comparison the regions do not decide (of two counts other than through their difference,
        ``x > 2 y``), or a construct the tail analysis does not know.
    StateSpaceTooLargeError
        More than ``MAX_REGIONS`` regions.

    Examples
    --------
    >>> x, y = sympy.symbols("x y")
    >>> model = PopulationModel([x, y], [((1, 0), 1), ((0, 1), 1), ((-1, 0), 2 * sympy.Min(x, 1)),
    ...                                  ((0, -1), 2 * sympy.Min(y, 1))])
    >>> T, found = regions(model)
    >>> T, len(found)
    ({0: 2, 1: 2}, 9)

    Join the shortest queue: the two counts are compared, so they are ordered, with the least fixed
    below 2 or large and the gap fixed below 2 or wide:

    >>> to_x = sympy.Piecewise((1, x <= y), (0, True))
    >>> model = PopulationModel([x, y], [((1, 0), 1.5 * to_x), ((0, 1), 1.5 * (1 - to_x)),
    ...                                  ((-1, 0), sympy.Min(x, 1)), ((0, -1), sympy.Min(y, 1))])
    >>> T, found = regions(model)
    >>> T, len(found), found[-1].corner, found[-1].directions   # y >= 2 raises both, x - y >= 2 raises x
    ({0: 2, 1: 2}, 15, (4, 2), ((1, 0), (1, 1)))
    """
    bounded = [model.variables[i] for i in model.bounded]
    phase_values = [dict(zip(bounded, map(int, values), strict=True))
                    for values in lattice_points([model.upper[i] for i in model.bounded])]
    expressions = [rate for _, rate in model.transitions] + list(extra)
    thresholds = _thresholds(model, phase_values, extra)
    for i, depth in zip(model.unbounded, layers, strict=False):
        thresholds[i] = max(thresholds[i], depth + max(0, max(-c[i] for c, _ in model.transitions)))
    groups = {i: (i,) for i in model.unbounded}                  # count -> the counts it is compared with
    gaps: dict[tuple, int] = {}
    used = _used(model, expressions)
    for _ in range(MAX_ROUNDS):
        # a group shares the threshold of its least count, and its gaps are at least that threshold, so
        # that a count above a wide gap is as large as a large count on its own
        for group in set(groups.values()):
            thresholds.update(dict.fromkeys(group, max(thresholds[i] for i in group)))
            if len(group) > 1:
                gaps[group] = max(gaps.get(group, 1), thresholds[group[0]], 1)
        found, roles = _partition(model, phase_values, sorted(set(groups.values())), thresholds, gaps)
        try:
            forms: dict = {}
            raise_to = _undecided(model, found, roles, expressions, used, forms)
        except MixedComparison as mixed:
            compared = {groups[model.variables.index(v)] for v in mixed.variables}
            if len(compared) == 1:
                names = ", ".join(str(model.variables[i]) for i in sorted(compared.pop()))
                raise InvalidParameterError("rate", mixed.expression, f"compares {names} other than through a "
                                            "difference of two counts: the drift proof decides comparisons of one count "
                                            "with a constant, or of two counts' difference (x > y + c)") from None
            merged = tuple(sorted(i for g in compared for i in g))
            groups.update(dict.fromkeys(merged, merged))
            continue
        if not raise_to:
            break
        for (group, kind), need in raise_to.items():
            if kind == "least":
                thresholds.update(dict.fromkeys(group, thresholds[group[0]] + need))
            else:
                gaps[group] += need
    else:
        raise ConvergenceError(f"the comparisons of the rates are still not decided after raising the regions' "
                               f"thresholds {MAX_ROUNDS} times (thresholds {thresholds}, gaps {gaps})")
    envelopes = {}
    for region in found:
        for k, (change, _) in enumerate(model.transitions):
            if _stays(model, region.fixed, change):
                key = _form_key(region, k, used[k])
                if key not in envelopes:
                    envelopes[key] = envelope(*_form(model, region, expressions[k], key, forms)[:2])
                bounds = envelopes[key]
                if not (bounds.is_exact and bounds.upper.is_zero):
                    region.rates.append((np.asarray(change), bounds))
    return thresholds, found


def _partition(model: PopulationModel, phase_values: list[dict], groups: list[tuple], thresholds: dict,
               gaps: dict) -> tuple[list[Region], list[tuple]]:
    """The regions (without rates), the groups' pieces times the phases, and per region the role of
    each parameter (its group, and ``"least"`` or ``"gap"``)."""
    per_group = [_group_pieces(group, thresholds[group[0]], gaps.get(group, 1)) for group in groups]
    count = math.prod(len(p) for p in per_group) * len(phase_values)
    if count > MAX_REGIONS:
        raise StateSpaceTooLargeError(count, MAX_REGIONS, what="regions (small values of the unbounded counts times "
                                                               "phases) for the drift proof")
    d = len(model.variables)
    found, roles = [], []
    for phase in phase_values:
        for pieces in itertools.product(*per_group):
            corner = [0] * d
            fixed = {model.variables.index(v): int(value) for v, value in phase.items()}
            for i, value in fixed.items():
                corner[i] = value
            parameters = []
            for group, (piece_corner, piece_fixed, piece_parameters) in zip(groups, pieces, strict=True):
                for i, value in piece_corner.items():
                    corner[i] = value
                fixed.update(piece_fixed)
                parameters += [(i, raised, (group, kind)) for i, raised, kind in piece_parameters]
            parameters.sort()
            directions = tuple(tuple(int(i in raised) for i in range(d)) for _, raised, _ in parameters)
            found.append(Region(fixed, tuple(i for i, _, _ in parameters), [], tuple(corner), directions))
            roles.append(tuple(role for _, _, role in parameters))
    return found, roles


def _undecided(model: PopulationModel, found: list[Region], roles: list[tuple], expressions: list,
               used: list[list[int]], forms: dict) -> dict:
    """What the regions' thresholds still lack: ``{(group, "least" or "gap"): levels}`` for the
    parameters along which some expression's comparisons are decided only beyond a positive level
    (empty when every region decides them all). Fills ``forms`` with each expression's
    ``(numerator, denominator, thresholds)`` per region with a parameter."""
    raise_to: dict = {}
    for region, role in zip(found, roles, strict=True):
        if not region.large:
            continue                                   # fixed counts: every comparison is between numbers
        for k, expression in enumerate(expressions):
            for v, t in _form(model, region, expression, _form_key(region, k, used[k]), forms)[2].items():
                need = level_after(t)
                if need > 0:
                    which = role[region.large.index(model.variables.index(v))]
                    raise_to[which] = max(raise_to.get(which, 0), need)
    return raise_to


def _form(model: PopulationModel, region: Region, expression: sympy.Expr, key: tuple, forms: dict) -> tuple:
    """``(numerator, denominator, thresholds)`` of ``expression`` on ``region``, cached in ``forms``
    under ``key`` (:func:`_form_key`); a comparison left undecided names the expression."""
    if key not in forms:
        try:
            forms[key] = eventual_rational(*_shifted(model, region, expression))
        except MixedComparison as mixed:
            mixed.expression = expression
            raise
    return forms[key]


def _form_key(region: Region, k: int, used: list[int]) -> tuple:
    """What the ``k``-th expression becomes in ``region`` depends on: the region's parameters, and
    each count it ``used`` at the corner with the parameters that raise it."""
    return k, region.large, tuple((i, region.corner[i], tuple(d[i] for d in region.directions)) for i in used)


def _used(model: PopulationModel, expressions: list) -> list[list[int]]:
    """The counts each expression uses."""
    return [sorted(model.variables.index(v) for v in sympy.sympify(e).free_symbols if v in model.variables)
            for e in expressions]


def region_form(model: PopulationModel, region: Region, expression: sympy.Expr, *old: sympy.Expr) -> sympy.Poly:
    """``expression`` in ``region``: a polynomial in the region's parameters (:class:`Region`).

    Parameters
    ----------
    model : PopulationModel
    region : Region
        From :func:`regions`, computed with ``expression`` among its ``extra``.
    expression : sympy expression
    *old : sympy expression
        Only in the call of version 0.1, ``region_form(model, region, thresholds, expression)``:
        the expression, after the thresholds (it warns: a region now holds its corner).

    Returns
    -------
    sympy.Poly

    Examples
    --------
    >>> x, y = sympy.symbols("x y")
    >>> model = PopulationModel([x, y], [((1, 0), 1), ((0, 1), 1), ((-1, 0), x), ((0, -1), y)])
    >>> T, found = regions(model, [sympy.Min(x, 3) + y])
    >>> region_form(model, found[-1], sympy.Min(x, 3) + y).as_expr()      # y counts from T_y = 1
    y + 4
    """
    poly, _ = eventual_form(*_shifted(model, region, _expression("region_form", expression, old)))
    return poly


def region_envelope(model: PopulationModel, region: Region, expression: sympy.Expr, *old: sympy.Expr) -> Envelope:
    """``expression`` in ``region`` between two polynomials in the region's parameters ``y >= 0``
    (:func:`~analytic.ctmc.tails.envelope`; one polynomial for a polynomial rate).

    Parameters
    ----------
    model : PopulationModel
    region : Region
        From :func:`regions`.
    expression : sympy expression
        A rate of ``model``.
    *old : sympy expression
        Only in the call of version 0.1, ``region_envelope(model, region, thresholds, expression)``:
        the rate, after the thresholds (it warns: a region now holds its corner).

    Returns
    -------
    Envelope

    Examples
    --------
    The repressed production of a toggle switch, with ``y`` large (``y >= T_y = 1``):

    >>> x, y = sympy.symbols("x y")
    >>> model = PopulationModel([x, y], [((1, 0), 10 / (1 + y**2)), ((-1, 0), x), ((0, 1), 1), ((0, -1), y)])
    >>> T, found = regions(model)
    >>> bounds = region_envelope(model, found[-1], 10 / (1 + y**2))
    >>> bounds.lower.as_expr(), bounds.upper.as_expr()                      # 10 / (1 + 1) at y = T_y
    (0, 5)
    """
    numerator, denominator, _ = eventual_rational(*_shifted(model, region, _expression("region_envelope", expression,
                                                                                          old)))
    return envelope(numerator, denominator)


def _expression(function: str, expression: object, old: tuple) -> sympy.Expr:
    """The expression of :func:`region_form` or :func:`region_envelope`, from the call of version 0.1
    (the thresholds before it) with a warning."""
    if isinstance(expression, dict) and len(old) == 1:
        deprecated(f"{function}(model, region, thresholds, expression) is now {function}(model, region, expression) "
                   "(a region holds its corner); the old call will be removed in version 0.3", 4)
        return old[0]
    if old:
        raise TypeError(f"{function}() takes model, region and expression")
    return expression


def _shifted(model: PopulationModel, region: Region, expression: sympy.Expr) -> tuple:
    """``expression``, the parameters' symbols, and each count on the region as a polynomial in them
    (``x = corner + Σ_k y_k directions[k]``): the arguments of :func:`~analytic.ctmc.tails.eventual_rational`."""
    gens = tuple(model.variables[j] for j in region.large) or (sympy.Dummy("none"),)
    values = {v: sympy.Poly(region.corner[i] + sum(model.variables[j] for j, d in zip(region.large, region.directions,
                                                                                     strict=True) if d[i]),
                            *gens, domain="QQ")
              for i, v in enumerate(model.variables)}
    return expression, gens, values


def _stays(model: PopulationModel, fixed: dict, change: tuple) -> bool:
    """Whether a jump from the fixed counts stays on the lattice (large counts exceed every jump down)."""
    for i, value in fixed.items():
        target = value + change[i]
        if target < 0 or (model.upper[i] is not None and target > model.upper[i]):
            return False
    return True


def _corner(region: Region, weights: dict) -> int:
    """``w·x`` at the region's least state."""
    return sum(w * region.corner[i] for i, w in weights.items())


def _direction_weight(direction: tuple, weights: dict) -> int:
    """How much ``w·x`` grows with a parameter of the region."""
    return sum(w * direction[i] for i, w in weights.items())


def affine_bound(poly: sympy.Poly) -> tuple[sympy.Rational, list] | None:
    """``(p_0, [a_j])`` with ``poly(y) <= p_0 + Σ_j a_j y_j`` for every ``y >= 0``: the constant and the
    slopes, when every slope and every coefficient of degree two and more is ``<= 0`` (else None).

    Parameters
    ----------
    poly : sympy.Poly
        In the shifts ``y >= 0``, rational coefficients.

    Returns
    -------
    (sympy.Rational, list of sympy.Rational) or None

    Examples
    --------
    >>> y1, y2 = sympy.symbols("y1 y2")
    >>> affine_bound(sympy.Poly(3 - y1 - 2 * y1 * y2, y1, y2))
    (3, [-1, 0])
    >>> affine_bound(sympy.Poly(3 + y2**2, y1, y2)) is None
    True
    """
    constant, slopes = sympy.S.Zero, [sympy.S.Zero] * len(poly.gens)
    for monomial, coefficient in poly.terms():
        order = sum(monomial)
        if order == 0:
            constant = coefficient
        elif order == 1:
            slopes[monomial.index(1)] = coefficient
        elif coefficient > 0:
            return None
    return None if any(a > 0 for a in slopes) else (constant, slopes)


def _ends(region: Region, change: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The region's least state (its corner) and the target of ``change`` from it: their cells are
    those of every state of the region and of its targets (the thresholds exceed the layers)."""
    corner = np.array(region.corner, dtype=np.int64)
    return corner, corner + np.asarray(change, dtype=np.int64)


def _cell_weights(lyapunov: LinearGeometric, region: Region, change: np.ndarray) -> tuple[sympy.Rational, sympy.Rational]:
    """``(g_target, g_source)`` of a jump from the region, exact (1 without cell weights)."""
    if lyapunov.cells is None:
        return sympy.S.One, sympy.S.One
    source, target = _ends(region, change)
    cells = lyapunov.cells[lyapunov.cell(np.stack([target, source]))]
    return sympy.Rational(float(cells[0])), sympy.Rational(float(cells[1]))


def _factor(region: Region, lyapunov: LinearGeometric) -> sympy.Poly:
    """``Σ_k r_k (β^{w·v_k} g_{c(x + v_k)} (1 + 2^-50) - g_{c(x)} (1 - 2^-50))`` in the region
    (module docstring)."""
    weights = dict(zip(lyapunov.model.unbounded, lyapunov.weights, strict=True))
    total = sympy.Poly(0, *region.rates[0][1].upper.gens, domain="QQ")
    for change, rate in region.rates:
        jump = sum(weights[i] * int(change[i]) for i in weights)
        total += rate.times(rounded_gain(lyapunov.base, jump, *_cell_weights(lyapunov, region, change)))
    return total


def _region_bound(region: Region, lyapunov: LinearGeometric, level: int) -> sympy.Rational | None:
    """``m > 0`` with ``D <= -m`` on the region's states with ``w·x >= level + 1`` (exact), or None."""
    if not region.rates or not region.large:
        return None
    bound = affine_bound(_factor(region, lyapunov))
    if bound is None:
        return None
    weights = dict(zip(lyapunov.model.unbounded, lyapunov.weights, strict=True))
    constant, slopes = bound
    budget = level + 1 - _corner(region, weights)
    rate = max(slope / _direction_weight(direction, weights) for slope, direction in zip(slopes, region.directions,
                                                                                        strict=True))
    value = constant + max(0, budget) * rate
    return -value if value < 0 else None


@dataclass(frozen=True)
class _Numeric:
    """The regions' rate polynomials as float coefficient arrays, for the search."""

    jumps: np.ndarray         # (transitions, d): change of the unbounded counts
    side: np.ndarray          # 0: the rate; 1 (-1): its upper (lower) envelope, for jumps that raise (lower) V
    owner: np.ndarray         # region of each transition
    constant: np.ndarray      # constant coefficient of each transition's rate
    linear: np.ndarray        # (transitions, d): linear coefficients in the large counts
    higher: object            # sparse (region-monomial pairs, transitions): coefficients of degree >= 2
    corner: np.ndarray        # (regions, d): the unbounded counts at the region's least state
    large: np.ndarray         # (regions, d): which counts name a parameter
    directions: np.ndarray    # (regions, d, d): the unbounded counts each parameter raises
    source: np.ndarray        # cell (flat index) of each transition's source, under ``layers`` (0 without)
    target: np.ndarray        # cell of its target
    shape: tuple              # the shape of the cell weights


def _numeric(model: PopulationModel, found: list[Region], layers: tuple = ()) -> _Numeric:
    d = len(model.unbounded)
    position = {i: k for k, i in enumerate(model.unbounded)}
    jumps, side, owner, constant, linear = [], [], [], [], []
    source, target = [], []
    shape = tuple(layers[position[i]] + 1 if i in position else u + 1 for i, u in enumerate(model.upper)) if layers else ()
    cells = LinearGeometric(sympy.S.One, (1,) * d, model, tuple(layers), np.ones(shape)) if layers else None
    rows, cols, values, keys = [], [], [], {}
    unbounded = list(model.unbounded)
    corner = np.array([[region.corner[i] for i in unbounded] for region in found], dtype=float).reshape(-1, d)
    large = np.zeros((len(found), d), dtype=bool)
    directions = np.zeros((len(found), d, d))
    for r, region in enumerate(found):
        for j, direction in zip(region.large, region.directions, strict=True):
            large[r, position[j]] = True
            directions[r, position[j]] = [direction[i] for i in unbounded]
        for change, rate in region.rates:
            ends = np.ravel_multi_index(cells.cell(np.stack(_ends(region, change)[::-1])), shape) \
                if cells is not None else (0, 0)
            for which, poly in [(0, rate.upper)] if rate.is_exact else [(1, rate.upper), (-1, rate.lower)]:
                k = len(jumps)
                jumps.append([int(change[i]) for i in model.unbounded])
                target.append(int(ends[0]))
                source.append(int(ends[1]))
                side.append(which)
                owner.append(r)
                row, c0 = np.zeros(d), 0.0
                for monomial, coefficient in poly.terms():
                    order = sum(monomial) if region.large else 0
                    if order == 0:
                        c0 += float(coefficient)
                    elif order == 1:
                        row[position[region.large[monomial.index(1)]]] += float(coefficient)
                    else:
                        rows.append(keys.setdefault((r, monomial), len(keys)))
                        cols.append(k)
                        values.append(float(coefficient))
                constant.append(c0)
                linear.append(row)
    higher = sp.csr_array((values, (rows, cols)), shape=(len(keys), len(jumps)))
    return _Numeric(np.array(jumps, dtype=float).reshape(-1, d), np.array(side, dtype=np.int64),
                    np.array(owner, dtype=np.int64), np.array(constant),
                    np.array(linear).reshape(-1, d), higher, corner, large, directions,
                    np.array(source, dtype=np.int64),
                    np.array(target, dtype=np.int64), shape)


def _weight_vectors(numeric: _Numeric) -> list[tuple[int, ...]]:
    """Candidate ``w``: small integer vectors, and the direction of steepest descent of ``w·x`` (a
    linear program, HiGHS) scaled to integers."""
    d = numeric.large.shape[1]
    top = {1: 1, 2: 6, 3: 3}.get(d, 2)
    found = {w for w in itertools.product(range(1, top + 1), repeat=d) if math.gcd(*w) == 1}
    for direction in _descent(numeric):
        for scale in (1, 2, 4, 8, 16, 32, 64):
            w = np.maximum(1, np.round(direction / direction.min() * scale)).astype(int)
            found.add(tuple(int(v) // math.gcd(*map(int, w)) for v in w))
    return sorted(found, key=lambda w: (max(w), w))


def _descent(numeric: _Numeric) -> list[np.ndarray]:
    """Directions ``w >= 1`` making the drift of ``w·x`` negative in every region with a large count:
    in a region whose rates grow along every large count (linear deaths) its slopes must be negative,
    elsewhere its constant (the first order in ``log β`` of the drift factor). Two linear programs
    (HiGHS): the largest margin, and the least ``Σ w`` with a quarter of it (the first tends to the
    bounds on ``w``, which makes the kept set long and thin)."""
    d = numeric.large.shape[1]
    regions = numeric.large.shape[0]
    constant = np.zeros((regions, d))
    slopes = np.zeros((regions, d, d))
    # an envelope's side by the sign of the jump's total (w is not chosen yet; the exact test decides)
    use = (numeric.side == 0) | (numeric.side == np.where(numeric.jumps.sum(axis=1) >= 0, 1, -1))
    np.add.at(constant, numeric.owner, (use * numeric.constant)[:, None] * numeric.jumps)
    np.add.at(slopes, numeric.owner, (use[:, None] * numeric.linear)[:, :, None] * numeric.jumps[:, None, :])
    grows = np.zeros((regions, d), dtype=bool)
    np.logical_or.at(grows, numeric.owner, numeric.linear != 0)
    rows, margin = [], []
    for r in range(regions):
        large = np.flatnonzero(numeric.large[r])
        if not len(large):
            continue
        if grows[r, large].all():
            for j in large:
                rows.append(slopes[r, j])
                margin.append(np.abs(slopes[r, j]).sum() or 1.0)
        else:
            rows.append(constant[r])
            margin.append(np.abs(constant[r]).sum() or 1.0)
            for j in large:
                rows.append(slopes[r, j])
                margin.append(0.0)
    if not rows:
        return []
    A = np.hstack([np.array(rows), np.array(margin)[:, None]])
    objective = np.zeros(d + 1)
    objective[-1] = -1.0
    bounds = [(1.0, MAX_WEIGHT)] * d
    widest = linprog(objective, A_ub=A, b_ub=np.zeros(len(rows)), bounds=[*bounds, (None, 1.0)], method="highs")
    if widest.status != 0 or not widest.x[-1] > 1e-12:
        return []
    margin_needed = widest.x[-1] / 4
    least = linprog(np.ones(d), A_ub=A[:, :d], b_ub=-margin_needed * A[:, d], bounds=bounds, method="highs")
    return [widest.x[:d]] + ([least.x] if least.status == 0 else [])


def find_linear_geometric(model: PopulationModel, found: list[Region], thresholds: dict, neglected: float,
                          max_states: int) -> tuple[LinearGeometric, int]:
    """A function ``V = β^{w·x}`` and a level ``L`` that should give a neglected mass ``<= neglected``
    with ``K = {w·x <= L}`` (a floating-point search; :func:`prove_linear_geometric` vouches).

    Parameters
    ----------
    model : PopulationModel
    found : list of Region
        From :func:`regions`.
    thresholds : dict
        From :func:`regions`; not read since each region holds its corner (kept for the calls of
        version 0.1).
    neglected : float
        The target for ``c / (c + η)``.
    max_states : int
        The most kept states considered.

    Returns
    -------
    (LinearGeometric, int)

    Raises
    ------
    ConvergenceError
        No candidate passes the test of every region (the message says what was tried).

    Examples
    --------
    A preemptive priority queue (class ``y`` served only when there is no ``x``):

    >>> x, y = sympy.symbols("x y")
    >>> second = sympy.Min(y, 1) * sympy.Piecewise((1, sympy.Eq(x, 0)), (0, True))
    >>> model = PopulationModel([x, y], [((1, 0), 0.3), ((0, 1), 0.4), ((-1, 0), sympy.Min(x, 1)), ((0, -1), second)])
    >>> T, found = regions(model)
    >>> find_linear_geometric(model, found, T, 1e-10, 10**6)[0].expression
    (91/64)**(x + y)
    """
    numeric = _numeric(model, found)
    best, tried = None, 0
    candidates = _weight_vectors(numeric)
    for w in candidates:
        for base in SEARCH_BASES:
            tried += 1
            best = _better(model, numeric, LinearGeometric(base, w, model), neglected, max_states, best)
    if best is None:
        names = [str(model.variables[i]) for i in model.unbounded]
        raise ConvergenceError(f"no Lyapunov function found: none of the {tried:,} candidates V = β^(w·x) over {names} "
                               f"({len(candidates)} integer vectors w, β from {float(SEARCH_BASES[0])} to "
                               f"{float(SEARCH_BASES[-1])}) has a negative drift in every one of the {len(found):,} regions "
                               f"within max_states={max_states:,} kept states (a region's drift must be, beyond its "
                               "corner, a polynomial with no positive coefficient of degree 2 or more and no positive slope)")
    return best[1], best[2]


def _better(model: PopulationModel, numeric: _Numeric, candidate: LinearGeometric, neglected: float,
            max_states: int, best: tuple | None) -> tuple | None:
    """``(states, candidate, level)`` if ``candidate`` passes the floating-point test of every region
    and needs fewer kept states than ``best``; else ``best``."""
    d = len(model.unbounded)
    wv = np.asarray(candidate.weights, dtype=float)
    has_large = numeric.large.any(axis=1)
    corner = numeric.corner @ wv
    inner = int(corner[~has_large].max(initial=0))                          # regions of fixed states lie in K
    exponent = numeric.jumps @ wv
    with np.errstate(over="ignore", invalid="ignore"):
        power = float(candidate.base) ** exponent
        factor = power - 1.0 if candidate.cells is None else (
            power * candidate.cells.ravel()[numeric.target] - candidate.cells.ravel()[numeric.source])
    if not np.all(np.isfinite(factor)):
        return best
    factor = np.where(numeric.side * factor >= 0, factor, 0.0)      # upper envelopes where V rises, lower elsewhere
    if numeric.higher.shape[0] and np.any(numeric.higher @ factor > 0):
        return best
    regions_count = len(numeric.large)
    constant = np.bincount(numeric.owner, weights=numeric.constant * factor, minlength=regions_count)
    slopes = np.zeros((regions_count, d))
    np.add.at(slopes, numeric.owner, numeric.linear * factor[:, None])
    if np.any(slopes > 0):
        return best
    grow = numeric.directions @ wv                                          # w·x per unit of each parameter
    rate = np.where(numeric.large, slopes / np.where(numeric.large, grow, 1.0), -np.inf).max(axis=1)[has_large]
    p0, start = constant[has_large], corner[has_large]
    negative = rate < 0
    # the least L with p0 + max(0, L + 1 - corner) rate < 0, per region with a large count
    need = np.where(negative, start + np.floor(np.maximum(p0, 0) / np.where(negative, -rate, 1.0)),
                    np.where(p0 < 0, 0.0, np.inf))
    if not np.all(np.isfinite(need)):
        return best
    first = max(inner, int(need.max(initial=0)))
    if best is not None and candidate.count(first) >= best[0]:
        return best                                      # cannot beat the best candidate so far
    level = _level_for(candidate, first, p0, rate, start, neglected, max_states)
    if level is None:
        return best
    states = candidate.count(level)
    return (states, candidate, level) if states <= max_states and (best is None or states < best[0]) else best


def _layer_candidates(d: int) -> list[tuple[int, ...]]:
    """Depths of the boundary layer to try: one count layered, then every count, deeper and deeper."""
    found = []
    for depth in LAYER_DEPTHS:
        found += [tuple(depth if k == j else 0 for k in range(d)) for j in range(d)]
        if d > 1:
            found.append((depth,) * d)
    return found


def _fit_cells(numeric: _Numeric, weights: tuple, base: sympy.Rational) -> np.ndarray | None:
    """Cell weights ``g >= 1`` (multiples of ``2^-CELL_BITS``, at most ``MAX_CELL_WEIGHT``) that make
    every region's drift factor push back, by the largest margin (a linear program, HiGHS): its
    constant negative (its slopes, where its rates grow along every large count) and no positive
    slope or higher-order coefficient; None where no weights do."""
    d = len(weights)
    exponent = numeric.jumps @ np.asarray(weights, dtype=float)
    use = (numeric.side == 0) | (numeric.side == np.where(exponent >= 0, 1, -1))
    k = np.arange(len(exponent))
    cells = math.prod(numeric.shape)
    change = sp.csr_array((np.concatenate([float(base) ** exponent, -np.ones(len(k))]),
                           (np.concatenate([k, k]), np.concatenate([numeric.target, numeric.source]))),
                          shape=(len(k), cells))
    regions_count = len(numeric.large)

    def by_region(values: np.ndarray) -> sp.csr_array:
        return sp.csr_array((values * use, (numeric.owner, k)), shape=(regions_count, len(k)))

    has_large = numeric.large.any(axis=1)
    grows = np.zeros((regions_count, d), dtype=bool)
    np.logical_or.at(grows, numeric.owner, numeric.linear != 0)
    steep = has_large & np.where(numeric.large, grows, True).all(axis=1)
    blocks, margins = [], []
    constant_scale = by_region(np.abs(numeric.constant)).sum(axis=1)
    blocks.append(by_region(numeric.constant)[has_large & ~steep] @ change)
    margins.append(constant_scale[has_large & ~steep])
    for j in range(d):
        rows = by_region(numeric.linear[:, j]) @ change
        large = numeric.large[:, j]
        slope_scale = by_region(np.abs(numeric.linear[:, j])).sum(axis=1)
        blocks.append(rows[large])
        margins.append(np.where(steep[large], slope_scale[large], 0.0))
    if numeric.higher.shape[0]:
        blocks.append(numeric.higher.multiply(use[None, :]).tocsr() @ change)
        margins.append(np.zeros(numeric.higher.shape[0]))
    A = sp.hstack([sp.vstack(blocks), np.concatenate(margins)[:, None]]).tocsr()
    objective = np.zeros(cells + 1)
    objective[-1] = -1.0
    bounds = [(1.0, MAX_CELL_WEIGHT)] * cells + [(None, 1.0)]
    result = linprog(objective, A_ub=A, b_ub=np.zeros(A.shape[0]), bounds=bounds, method="highs")
    if result.status != 0 or not result.x[-1] > 1e-9:
        return None
    g = result.x[:cells] / result.x[:cells].min()
    return np.maximum(1.0, np.round(g * 2.0**CELL_BITS) / 2.0**CELL_BITS).reshape(numeric.shape)


def find_face_geometric(model: PopulationModel, neglected: float, max_states: int, extra: list = (),
                        layers: tuple | None = None) -> tuple[LinearGeometric, int, dict, list[Region]]:
    """A function ``V = β^{w·x} g_c``, weighted per boundary cell (module docstring), and a level ``L``
    that should give a neglected mass ``<= neglected`` with ``K = {w·x <= L}`` (a floating-point
    search; :func:`prove_linear_geometric` vouches, with the regions returned).

    The layers of ``LAYER_DEPTHS`` are tried from the shallowest, up to twice the first depth
    where some ``w`` and ``β`` pass, and the candidate with the fewest kept states is kept.

    Parameters
    ----------
    model : PopulationModel
    neglected : float
        The target for ``c / (c + η)``.
    max_states : int
        The most kept states considered.
    extra : list of sympy expressions
        Rewards whose comparisons the thresholds must also decide (as for :func:`regions`).
    layers : tuple of int, optional
        Try these depths only (a search again, for another ``neglected``).

    Returns
    -------
    (LinearGeometric, int, dict, list of Region)
        ``V``, ``L``, and the thresholds and regions of ``V``'s layers.

    Raises
    ------
    ConvergenceError
        No candidate passes the test of every region (the message says what was tried).

    Examples
    --------
    A tandem queue at load 0.9 at both stations, which no ``β^{w·x}`` controls:

    >>> x, y = sympy.symbols("x y")
    >>> model = PopulationModel([x, y], [((1, 0), 0.9), ((-1, 1), sympy.Min(x, 1)), ((0, -1), sympy.Min(y, 1))])
    >>> V, level, T, found = find_face_geometric(model, 1e-8, 10**6)
    >>> V.expression, V.layers, T
    ((71/64)**(x + y)*g(Min(128, y)), (0, 128), {0: 2, 1: 129})
    """
    best, chosen, tried, depths = None, None, 0, set()
    for depths_tried in _layer_candidates(len(model.unbounded)) if layers is None else [tuple(layers)]:
        if chosen is not None and max(depths_tried) > 2 * max(chosen[0]):
            break                                    # up to twice the shallowest depth that works
        try:
            thresholds, found = regions(model, extra, depths_tried)
        except StateSpaceTooLargeError:
            break
        numeric = _numeric(model, found, depths_tried)
        depths.add(max(depths_tried))
        for w in [w for w in _weight_vectors(numeric) if max(w) <= 3]:
            # the largest base with weights (bisection: a smaller base is nearer the first order in log β,
            # where weights exist if any do), and two smaller ones, whose margins are wider
            low, high = -1, len(SEARCH_BASES)
            while high - low > 1:
                middle = (low + high) // 2
                tried += 1
                low, high = (middle, high) if _fit_cells(numeric, w, SEARCH_BASES[middle]) is not None else (low, middle)
            for k in range(low, max(low - 5, -1), -2):
                g = _fit_cells(numeric, w, SEARCH_BASES[k])
                if g is None:
                    continue
                candidate = LinearGeometric(SEARCH_BASES[k], w, model, depths_tried, g)
                better = _better(model, numeric, candidate, neglected, max_states, best)
                if better is not best:
                    best, chosen = better, (depths_tried, thresholds, found)
    if best is None:
        names = [str(model.variables[i]) for i in model.unbounded]
        raise ConvergenceError(f"no Lyapunov function found: none of the {tried:,} candidates V = β^(w·x) g(cell) over "
                               f"{names} with boundary layers up to depth {max(depths, default=0)} has a negative drift "
                               f"in every region within max_states={max_states:,} kept states")
    return best[1], best[2], chosen[1], chosen[2]


def _level_for(lyapunov: LinearGeometric, level: int, p0: np.ndarray, rate: np.ndarray, corner: np.ndarray,
               neglected: float, max_states: int) -> int | None:
    """The least level from ``level`` whose estimated neglected mass ``c / (β^{L+1} m)`` is below
    ``neglected``, with ``c`` the largest positive drift on the kept states of the first level."""
    b = float(lyapunov.base)
    if (level + 1) * math.log2(b) > LARGEST_LOG2_V:
        return None
    model = lyapunov.model
    c = max(float(lattice_generator_drift(lyapunov.states(level), model.moves, lyapunov).max()), 0.0)
    top = int(LARGEST_LOG2_V / math.log2(b))
    reach = level + 1
    while reach < top and lyapunov.count(reach) <= max_states:
        reach *= 2
    levels = np.arange(level, min(top, reach))
    margin = -(p0[:, None] + np.maximum(0.0, levels[None, :] + 1 - corner[:, None]) * rate[:, None]).max(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = math.log(c) - (levels + 1) * math.log(b) - np.log(margin) if c > 0 else np.full(len(levels), -np.inf)
    good = np.flatnonzero((margin > 0) & (estimate <= math.log(neglected)))
    return int(levels[good[0]]) if len(good) else None


def prove_linear_geometric(model: PopulationModel, found: list[Region], thresholds: dict, lyapunov: LinearGeometric,
                           level: int, chain: TruncatedChain) -> Drift | None:
    """Prove ``GV <= -η`` for ``V = β^{w·x}`` on every state with ``w·x > level`` and bound ``GV`` on
    the kept states of ``chain`` (those with ``w·x <= level``).

    Parameters
    ----------
    model : PopulationModel
    found : list of Region
        From :func:`regions`.
    thresholds : dict
        From :func:`regions`; not read since each region holds its corner (kept for the calls of
        version 0.1).
    lyapunov : LinearGeometric
    level : int
        ``L``.
    chain : TruncatedChain
        The truncation to ``K``.

    Returns
    -------
    Drift or None
        None where some region's test fails at this level (the caller keeps more states).

    Examples
    --------
    >>> from analytic.ctmc.truncation import truncate_lattice
    >>> x, y = sympy.symbols("x y")
    >>> second = sympy.Min(y, 1) * sympy.Piecewise((1, sympy.Eq(x, 0)), (0, True))
    >>> model = PopulationModel([x, y], [((1, 0), 0.3), ((0, 1), 0.4), ((-1, 0), sympy.Min(x, 1)), ((0, -1), second)])
    >>> T, found = regions(model)
    >>> V = LinearGeometric(sympy.Rational(91, 64), (1, 1), model)
    >>> chain = truncate_lattice(V.states(80), model.moves, model.feasible, (0, 0))
    >>> drift = prove_linear_geometric(model, found, T, V, 80, chain)
    >>> drift.neglected_mass < 1e-10
    True
    """
    weights = dict(zip(model.unbounded, lyapunov.weights, strict=True))
    least = None
    for region in found:
        if not region.large:
            if _corner(region, weights) > level:
                return None                         # a region of fixed states must lie inside K
            continue
        m = _region_bound(region, lyapunov, level)
        if m is None:
            return None
        least = m if least is None else min(least, m)
    if least is None:
        return None
    return proved_drift(model, lyapunov, least * lyapunov.base ** (level + 1), chain,
                        f"every state with w·x > {level} ({len(found):,} regions, each a polynomial with no positive "
                        "slope or higher-order coefficient beyond its corner, in exact rationals)")
