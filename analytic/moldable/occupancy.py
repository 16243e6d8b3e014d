"""The occupancy LP (P) of moldable jobs: Theorem 1 in closed form, numerical solvers and KKT checks.

Ghanbarian, Mukhopadhyay, Mazumdar & Guillemin, *On Optimal Server Allocation for Moldable Jobs
with Concave Speed-Up*, Section 3. With ``y_i`` the (scaled) mean number of jobs on ``i`` servers,

    (P)  minimize (1/λ) Σ_i y_i  subject to  Σ_i s_i y_i = λ,  Σ_i i y_i <= 1,  y >= 0.

Its optimum ``D*`` is the least mean execution time any scheme with vanishing blocking can reach
(Prop. 1). Theorem 1 solves (P) in closed form; :func:`occupancy_lp` solves it numerically (HiGHS
or cvxpy) and returns the multipliers ``(nu, theta_0, theta_i)`` of the Lagrangian of Appendix B,

    L = (1/λ) Σ y_i + nu (Σ s_i y_i - λ) + theta_0 (Σ i y_i - 1) - Σ theta_i y_i,

so that :func:`kkt_residual` can certify either solution against the KKT system (35)–(38).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np
import scipy.linalg
from scipy.optimize import linprog

from analytic.errors import ConvergenceError, InvalidParameterError
from analytic.speedup import TOLERANCE, ConcaveSpeedup, SpeedUp, as_discrete
from analytic.validation import as_number, real, real_array

if TYPE_CHECKING:  # sympy is imported by the symbolic check only (it takes ~0.7 s)
    import sympy

__all__ = ["FEASIBILITY", "LPOptimum", "Occupancy", "kkt_residual", "occupancy_lp", "optimal_occupancy", "symbolic_kkt_residuals"]


@dataclass(frozen=True, repr=False)
class Occupancy:
    """The optimum of (P) by Theorem 1.

    Attributes
    ----------
    case : str
        ``"i"`` (λ <= s_d/d), ``"ii"`` (λ = s_i/i for some i < d) or ``"iii"`` (λ strictly between
        two consecutive efficiencies s_{i+1}/(i+1) < s_i/i).
    support : tuple of int
        ``I* = {i : y*_i > 0}`` (server counts, one or two consecutive ones).
    i1, i2 : int
        Smallest and largest element of ``I*``.
    y : numpy.ndarray
        ``y*``, indexed like the speed-up's values (``y[i - 1]`` belongs to ``i`` servers).
    p : numpy.ndarray
        ``p*_i = s_i y*_i / λ``, the allocation probabilities of greedy(p*) (sum to one).
    mean_time : float
        ``D* = Σ y*_i / λ``, the optimal value of (P).
    unique : bool
        Whether (P) has no other optimum: always in case i; in case ii when
        ``s_{i1} - s_{i1-1} > s_{i1+1} - s_{i1}`` (Theorem 1 (ii) says always, but when ``s_{i1-1}``,
        ``s_{i1}``, ``s_{i1+1}`` are collinear mass can move from ``i1`` to its two neighbours at
        equal cost: ``s = (1, 1.75, 2.5)``, ``λ = 0.875`` has the optima ``(0, 0.5, 0)`` and
        ``(0.25, 0, 0.25)``); in case iii when ``s_i - s_{i-1} > s_{i+1} - s_i > s_{i+2} - s_{i+1}``
        (Theorem 1 (iii), a condition that is also necessary).
    nu, theta0 : float
        Lagrange multipliers of the equality and of the capacity constraint that certify ``y*``
        (Appendix B): ``theta_i = 1/λ + nu s_i + theta0 i >= 0``, zero on ``I*``.
    arrival_rate : float
        λ, arrivals per server per unit time.

    Examples
    --------
    >>> from analytic.moldable import optimal_occupancy
    >>> from analytic.speedup import SpeedUp
    >>> optimum = optimal_occupancy(SpeedUp([1, 1.8, 2.5, 3, 3.4]), 0.8)
    >>> optimum.case, optimum.support, round(optimum.mean_time, 12)
    ('iii', (3, 4), 0.375)
    """

    case: str
    support: tuple[int, ...]
    i1: int
    i2: int
    y: np.ndarray
    p: np.ndarray
    mean_time: float
    unique: bool
    nu: float
    theta0: float
    arrival_rate: float

    def __repr__(self) -> str:
        return (f"Occupancy(case={self.case!r}, support={self.support}, y={_rounded(self.y)}, "
                f"p={_rounded(self.p)}, mean_time={self.mean_time:.12g}, unique={self.unique})")


@dataclass(frozen=True, repr=False)
class LPOptimum:
    """A numerical solution of (P) with its KKT multipliers (signs as in Appendix B).

    Attributes
    ----------
    y : numpy.ndarray
        Primal optimum, indexed like the speed-up's values.
    mean_time : float
        Optimal value ``(1/λ) Σ y_i``.
    nu : float
        Multiplier of ``Σ s_i y_i = λ`` (free sign).
    theta0 : float
        Multiplier of ``Σ i y_i <= 1`` (>= 0).
    theta : numpy.ndarray
        Multipliers of ``y_i >= 0`` (>= 0), indexed like ``y``.
    solver : str
        ``"highs"`` or ``"cvxpy"`` (with the conic solver used).

    Examples
    --------
    >>> from analytic.moldable import occupancy_lp
    >>> from analytic.speedup import SpeedUp
    >>> round(occupancy_lp(SpeedUp([1, 1.8, 2.5, 3, 3.4]), 0.8).mean_time, 9)
    0.375
    """

    y: np.ndarray
    mean_time: float
    nu: float
    theta0: float
    theta: np.ndarray
    solver: str

    def __repr__(self) -> str:
        return (f"LPOptimum(y={_rounded(self.y)}, mean_time={self.mean_time:.12g}, nu={self.nu:.10g}, "
                f"theta0={self.theta0:.10g}, solver={self.solver!r})")


def _rounded(values: np.ndarray) -> list[float]:
    return np.round(values, 10).tolist()


def check_arrival_rate(arrival_rate: float) -> float:
    """λ as a float in (0, 1], or :class:`InvalidParameterError` citing Prop. 1."""
    number = as_number(arrival_rate)
    if number is None:
        raise InvalidParameterError("arrival_rate", arrival_rate, "must be a real number in (0, 1]")
    rate = float(number)
    if rate > 1:
        raise InvalidParameterError("arrival_rate", arrival_rate,
                                    "must lie in (0, 1]: (P) has no feasible point for λ > 1 (Prop. 1)")
    if not rate > 0:
        raise InvalidParameterError("arrival_rate", arrival_rate, "must lie in (0, 1]: arrivals need a positive rate")
    return rate


def optimal_occupancy(speedup: SpeedUp | ConcaveSpeedup | object, arrival_rate: float) -> Occupancy:
    """Optimal solution of (P) in closed form (Ghanbarian et al., Theorem 1, eqs. 7–9).

    Parameters
    ----------
    speedup : SpeedUp, sequence of float or ConcaveSpeedup
        ``s_1, ..., s_d`` satisfying P1 and concavity, as a table, a sequence, or the interpolation
        of a table (:func:`analytic.speedup.as_discrete`; sample a curve with
        :meth:`SpeedUp.from_curve <analytic.speedup.SpeedUp.from_curve>`).
    arrival_rate : float
        λ in (0, 1], arrivals per server per unit time (unit-mean job sizes).

    Returns
    -------
    Occupancy
        Case, support ``I*``, ``y*``, ``p*``, ``D*``, uniqueness and certifying multipliers.
        Each the float nearest its exact value for the given float inputs: eqs. (7)–(8), ``p*``,
        ``D*`` and the multipliers are evaluated in exact rationals, since their differences of
        efficiencies cancel for nearly linear speed-ups (in floating point ``D*`` lost 5 digits for
        ``s_k = k (1 - 1.15e-11 (k - 1))``). A tie
        ``λ = s_i/i`` is case (ii) when exact; a λ off a tie by rounding is case (iii), with one
        entry of ``y*`` as small as the offset (the solution is continuous there), so that ``y*``
        meets both constraints to rounding.

    Raises
    ------
    InvalidParameterError
        λ outside (0, 1] (Prop. 1: (P) is infeasible for λ > 1), or ``speedup`` not a valid table.

    Examples
    --------
    Section 7, sub-linear speed-up at λ = 0.8: ``y* = (0, 0, 0.2, 0.1, 0)``, ``D* = 0.375``.

    >>> from analytic.speedup import SpeedUp
    >>> optimal_occupancy(SpeedUp([1, 1.8, 2.5, 3, 3.4]), 0.8)
    Occupancy(case='iii', support=(3, 4), y=[0.0, 0.0, 0.2, 0.1, 0.0], p=[0.0, 0.0, 0.625, 0.375, 0.0],
        mean_time=0.375, unique=True)
    """
    speedup = as_discrete(speedup)
    s = speedup.values
    lam = check_arrival_rate(arrival_rate)
    d = len(s)
    efficiency = speedup.efficiency
    y = np.zeros(d)
    if lam <= efficiency[-1]:
        case, i1, i2, unique = "i", d, d, True
        y[d - 1] = lam / s[d - 1]
    else:
        ties = np.flatnonzero(efficiency == lam)
        if ties.size:
            case = "ii"
            i1 = i2 = int(ties[-1]) + 1
            y[i1 - 1] = lam / s[i1 - 1]
            increments = speedup.increments                            # i1 < d here: s_{i1+1} exists
            unique = bool(increments[i1 - 1] > increments[i1] + TOLERANCE * s[i1])
        else:
            case = "iii"
            i1 = int(np.flatnonzero(efficiency > lam)[-1]) + 1
            i2 = i1 + 1
            y[i1 - 1], y[i2 - 1] = _two_point_vertex(s[i1 - 1], s[i2 - 1], i1, lam)
            increments = np.append(speedup.increments, -np.inf)        # no s_{d+1}: nothing to tie with
            slack = TOLERANCE * s[i2 - 1]
            unique = bool(increments[i1 - 1] > increments[i2 - 1] + slack > increments[i2] + 2 * slack)
    nu, theta0 = _certifying_multipliers(speedup, lam, case, i1)
    support = tuple(sorted({i1, i2}))
    exact_y = [Fraction(float(v)) for v in y]
    return Occupancy(case=case, support=support, i1=i1, i2=i2, y=y,
                     p=np.array([float(Fraction(float(v)) * w / Fraction(lam)) for v, w in zip(s, exact_y, strict=True)]),
                     mean_time=float(sum(exact_y) / Fraction(lam)), unique=unique, nu=nu, theta0=theta0, arrival_rate=lam)


def _two_point_vertex(s_i: float, s_next: float, i: int, lam: float) -> tuple[float, float]:
    """``(y_i, y_(i+1))`` of eqs. (7)–(8), each the float nearest the exact value for these float inputs.

    Eqs. (7)–(8) divide by ``s_i/i - s_(i+1)/(i+1)``, a difference of nearly equal efficiencies when
    the speed-up is nearly linear: in floating point it lost 5 digits for ``s_k = k(1 - 1.15e-11 (k-1))``
    (y_4 = 4.85e-6 against 6.46e-6), so the vertex is solved in exact rationals (a few microseconds).
    The float case selection guarantees positive values: rounding is monotone, so
    ``fl(s_(i+1)/(i+1)) < λ < fl(s_i/i)`` implies the same order for the exact efficiencies.
    """
    e_i, e_next, rate = Fraction(s_i) / i, Fraction(s_next) / (i + 1), Fraction(lam)
    gap = e_i - e_next
    return float((rate - e_next) / i / gap), float((e_i - rate) / (i + 1) / gap)


def _certifying_multipliers(speedup: SpeedUp, lam: float, case: str, i1: int) -> tuple[float, float]:
    """(nu, theta0) solving (35) with theta_i = 0 on the support (derived in Appendix B, eq. 39).

    The line ``i -> s_a + Δ (i - a)`` through the anchor ``a`` with slope ``Δ`` supports the concave
    speed-up; then ``nu = -1 / (λ (s_a - Δ a))`` and ``theta0 = Δ / (λ (s_a - Δ a))`` give
    ``theta_i = (s_a + Δ (i - a) - s_i) / (λ (s_a - Δ a)) >= 0``. Case i: a = d, Δ = 0. Cases ii and
    iii: a = i1, Δ = s_{i1+1} - s_{i1} (< s_{i1}/i1 because s_{i1+1}/(i1+1) < s_{i1}/i1).
    """
    s = [Fraction(float(v)) for v in speedup.values]    # exact: s_a - Δ a cancels for nearly linear speed-ups
    anchor = speedup.d if case == "i" else i1
    slope = Fraction(0) if case == "i" else s[anchor] - s[anchor - 1]
    scale = Fraction(lam) * (s[anchor - 1] - slope * anchor)
    return float(-1 / scale), float(slope / scale)


def kkt_residual(speedup: SpeedUp | ConcaveSpeedup | object, arrival_rate: float, y: np.ndarray, nu: float,
                 theta0: float) -> float:
    """Largest violation of the KKT system (35)–(38) of (P) by ``(y, nu, theta0)``.

    ``theta_i`` is taken from stationarity (35), ``theta_i = 1/λ + nu s_i + theta0 i``; the result
    is the maximum of the primal violations (38), the dual violations ``-theta0``, ``-theta_i``
    (36) and the complementary products ``|theta0 (Σ i y_i - 1)|``, ``|theta_i y_i|`` (37), the
    dual terms divided by the multipliers' scale ``max(1/λ, |nu| s_d, theta0 d)`` (near-ties
    ``s_i/i ≈ s_{i+1}/(i+1)`` make the multipliers large). Zero (up to round-off) certifies that
    ``y`` is optimal for (P): an LP needs no constraint qualification. (Appendix B invokes Slater's
    condition through ``y = (λ, 0, ..., 0)``, which is strictly feasible only for λ < 1.)

    Parameters
    ----------
    speedup : SpeedUp, sequence of float or ConcaveSpeedup
        As in :func:`optimal_occupancy`.
    arrival_rate : float
        λ in (0, 1].
    y : array_like, shape (d,)
        Candidate primal solution, indexed like the speed-up's values.
    nu, theta0 : float
        Candidate multipliers (signs as in Appendix B).

    Returns
    -------
    float
        The largest violation (>= 0).

    Examples
    --------
    >>> from analytic.speedup import SpeedUp
    >>> s = SpeedUp([1, 1.8, 2.5, 3, 3.4])
    >>> opt = optimal_occupancy(s, 0.8)
    >>> kkt_residual(s, 0.8, opt.y, opt.nu, opt.theta0) < 1e-14
    True
    """
    speedup = as_discrete(speedup)
    s = speedup.values
    lam = check_arrival_rate(arrival_rate)
    y = real_array("y", y, ndim=1)
    nu, theta0 = real("nu", nu), real("theta0", theta0)
    if y.shape != s.shape:
        raise InvalidParameterError("y", y, f"must have one entry per server count, shape ({len(s)},)")
    i = speedup.servers
    theta = 1.0 / lam + nu * s + theta0 * i
    capacity = float(i @ y) - 1.0
    scale = max(1.0 / lam, abs(nu) * s[-1], abs(theta0) * len(s))
    primal = [abs(float(s @ y) - lam), max(capacity, 0.0), max(-y.min(), 0.0)]
    dual = [max(-theta0, 0.0), max(-theta.min(), 0.0), abs(theta0 * capacity), float(np.abs(theta * y).max())]
    return float(max(*primal, *(v / scale for v in dual)))


def occupancy_lp(speedup: SpeedUp | ConcaveSpeedup | object, arrival_rate: float, solver: str = "highs") -> LPOptimum:
    """Solve (P) numerically and return the primal optimum with its KKT multipliers.

    Parameters
    ----------
    speedup : SpeedUp, sequence of float or ConcaveSpeedup
        As in :func:`optimal_occupancy`.
    arrival_rate : float
        λ in (0, 1].
    solver : {"highs", "cvxpy"}
        ``"highs"``: ``scipy.optimize.linprog`` with HiGHS (a vertex; HiGHS meets the constraints to
        its feasibility tolerance, set to its smallest, 1e-10, so within 1e-10 of a tie it may pick
        the neighbouring vertex, which is then refused, see below);
        ``"cvxpy"``: cvxpy with the Clarabel interior-point solver at tolerances 1e-13 (agrees with
        the closed form to about 1e-12). At λ = 1, (P) has no strictly feasible point and Clarabel
        may stop short (:class:`~analytic.errors.ConvergenceError`); HiGHS solves it.
        Either way, a point that breaks a constraint by more than :data:`FEASIBILITY` (relative) is
        refused, not returned: within the solvers' tolerances such a point can be far from optimal
        (for a nearly linear speed-up, 40 % above ``D*``).

    Returns
    -------
    LPOptimum
        ``y``, the optimal value and ``(nu, theta0, theta)`` with the signs of Appendix B.

    Raises
    ------
    InvalidParameterError
        Bad λ, speed-up or solver name.
    ConvergenceError
        The solver did not report an optimum, or reported a point that breaks a constraint of (P).

    Examples
    --------
    >>> from analytic.speedup import SpeedUp
    >>> occupancy_lp(SpeedUp([1, 1.8, 2.5, 3, 3.4]), 0.8).y.round(12).tolist()
    [0.0, 0.0, 0.2, 0.1, 0.0]
    """
    s = as_discrete(speedup).values
    lam = check_arrival_rate(arrival_rate)
    y, value, nu, theta0, theta, label = solve_occupancy_lp([s], np.array([lam]), lam, solver)
    return LPOptimum(y=y, mean_time=value, nu=float(nu[0]), theta0=theta0, theta=theta, solver=label)


def solve_occupancy_lp(speeds: list[np.ndarray], loads: np.ndarray, rate: float,
                       solver: str) -> tuple[np.ndarray, float, np.ndarray, float, np.ndarray, str]:
    """Solve (Q) of Section 6 numerically; (P) is the case of one class with load λ.

    ``minimize (1/rate) Σ y  s.t.  Σ_i s_ij y_ij = loads[j] for each class j,  Σ i y_ij <= 1,  y >= 0``
    with ``speeds[j]`` the speed-ups of class j. Returns ``(y, value, nu, theta0, theta, label)``:
    ``y`` and ``theta`` concatenated over the classes, ``nu`` one multiplier per class, with the
    signs of the Lagrangian of Appendix B.
    """
    solve = {"highs": _solve_highs, "cvxpy": _solve_cvxpy}.get(solver) if isinstance(solver, str) else None
    if solve is None:
        raise InvalidParameterError("solver", solver, 'must be "highs" or "cvxpy"')
    # (Q) is homogeneous in the loads: solve for z = y / scale with unit costs, so that the solvers'
    # absolute tolerances (1e-10, 1e-13) act relative to the loads. Unscaled, HiGHS returned y = 0 for
    # λ = 1e-12 (every entry below its tolerance) and Clarabel failed. The multipliers scale with the
    # costs (1/rate). Since s_ij >= 1 and s_j . z_j <= 1, Σ i z <= Σ_j d_j: a larger capacity bound is
    # slack, and capping it keeps the problem well scaled without changing its solution.
    scale = float(np.max(loads))
    bound = min(1.0 / scale, sum(len(s) for s in speeds) + 1.0)
    z, value, nu, theta0, theta, label = solve(speeds, loads / scale, 1.0, bound)
    _check_feasible(speeds, loads / scale, bound, z, label)
    return z * scale, value * scale / rate, nu / rate, theta0 / rate, theta / rate, label


#: Largest violation of a constraint of the scaled problem accepted from a solver: a few hundred ulps
#: of its unit-sized right-hand sides. The solvers' own tolerances (1e-10, 1e-13) are looser, and for a
#: nearly linear speed-up a vertex off by 1.1e-11 had a value 40 % above the optimum.
FEASIBILITY = 1e-13


def _check_feasible(speeds: list[np.ndarray], loads: np.ndarray, bound: float, z: np.ndarray, label: str) -> None:
    """:class:`~analytic.errors.ConvergenceError` when the solver's point breaks a constraint of (Q) by more than FEASIBILITY."""
    rates, capacity = _constraint_rows(speeds)
    violations = {"Σ_i s_i y_i = λ": float(np.abs(rates @ z - loads).max() / max(1.0, float(loads.max()))),
                  "Σ_i i y_i <= 1": float(capacity @ z - bound) / max(1.0, bound), "y >= 0": float(-z.min())}
    constraint, worst = max(violations.items(), key=lambda item: item[1])
    if worst > FEASIBILITY:
        raise ConvergenceError(f"{label} returned a point that breaks {constraint} by {worst:.3g} (relative; at most "
                               f"{FEASIBILITY:g} is accepted): the LP is too ill-conditioned for a floating-point solver "
                               "here (nearly equal efficiencies s_i/i); optimal_occupancy solves the vertex in exact "
                               "rationals")


def _constraint_rows(speeds: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The rate rows (block diagonal, one per class) and the capacity row of (Q)."""
    rates = scipy.linalg.block_diag(*[s[None, :] for s in speeds])
    capacity = np.concatenate([np.arange(1, len(s) + 1, dtype=float) for s in speeds])
    return rates, capacity


#: HiGHS's smallest feasibility tolerances. With its defaults (1e-7) it returned y = (0, 0.5), violating
#: the rate equality by 8.75e-9, for s = (1, 1.75) at λ = 0.875 (1 + 1e-8), where the optimum is case iii.
_HIGHS_TOLERANCES = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


def _solve_highs(speeds: list[np.ndarray], loads: np.ndarray, rate: float, bound: float):
    rates, capacity = _constraint_rows(speeds)
    result = linprog(np.full(len(capacity), 1.0 / rate), A_ub=capacity[None, :], b_ub=[bound], A_eq=rates, b_eq=loads,
                     bounds=(0, None), method="highs", options=_HIGHS_TOLERANCES)
    if result.status != 0:
        raise ConvergenceError(f"HiGHS did not solve the occupancy LP: {result.message}")
    # linprog's marginals are derivatives of the optimum with respect to the right-hand sides and
    # bounds; in the Lagrangian of Appendix B these are -nu, -theta0 and +theta.
    return (result.x, float(result.fun), -np.asarray(result.eqlin.marginals, float), float(-result.ineqlin.marginals[0]),
            np.asarray(result.lower.marginals, float), "highs")


def _solve_cvxpy(speeds: list[np.ndarray], loads: np.ndarray, rate: float, bound: float):
    import cvxpy as cp

    rates, capacity = _constraint_rows(speeds)
    y = cp.Variable(len(capacity))
    constraints = [rates @ y == loads, capacity @ y <= bound, y >= 0]
    problem = cp.Problem(cp.Minimize(cp.sum(y) / rate), constraints)
    with warnings.catch_warnings():  # cvxpy warns "Solution may be inaccurate": the status check below says so
        warnings.simplefilter("ignore", UserWarning)
        try:
            problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-13, tol_gap_rel=1e-13, tol_feas=1e-13)
        except cp.error.SolverError as error:
            raise ConvergenceError(f"cvxpy (Clarabel) did not solve the occupancy LP: {error}") from None
    if problem.status != cp.OPTIMAL:
        raise ConvergenceError(f"cvxpy (Clarabel) did not solve the occupancy LP: status {problem.status}")
    # cvxpy's Lagrangian adds  nu (A y - b)  for equalities and  theta g  for constraints g <= 0,
    # the signs of Appendix B; y >= 0 is -y <= 0, so its dual is theta directly.
    return (np.asarray(y.value, float), float(problem.value), np.atleast_1d(np.asarray(constraints[0].dual_value, float)),
            float(constraints[1].dual_value), np.asarray(constraints[2].dual_value, float), "cvxpy (Clarabel)")


def symbolic_kkt_residuals() -> dict[str, sympy.Expr]:
    """Check with sympy that eqs. (7)–(8) satisfy the KKT system (35)–(38) in case iii.

    Symbols: the support ``{i, i+1}``, ``s_i``, ``s_{i+1}``, λ, and any other server count ``k``
    with speed-up ``s_k``. With ``Δ = s_{i+1} - s_i``, the multipliers of Appendix B (eq. 39) are
    ``nu = -1/(λ (s_i - Δ i))``, ``theta0 = Δ/(λ (s_i - Δ i))``. Each returned expression is a
    difference that must simplify to zero:

    * ``rate``: ``s_i y_i + s_{i+1} y_{i+1} - λ`` (equality of (38));
    * ``capacity``: ``i y_i + (i+1) y_{i+1} - 1`` (tight, so ``theta0 (Σ i y_i - 1) = 0`` in (37));
    * ``stationarity_i``, ``stationarity_i+1``: (35) with ``theta = 0`` on the support;
    * ``theta_k``: ``theta_k - (s_i + Δ (k - i) - s_k)/(λ (s_i - Δ i))`` — so ``theta_k >= 0`` (36)
      is concavity (the chord through i, i+1 lies above ``s_k``);
    * ``denominator``: ``(s_i - Δ i) - i (i+1) (s_i/i - s_{i+1}/(i+1))`` — positive in case iii,
      which makes ``theta0 >= 0`` (P1: Δ > 0);

    ``y >= 0`` in (38) is read off (7)–(8): both numerators are positive for λ in
    ``(s_{i+1}/(i+1), s_i/i)`` and so is the common denominator.

    Returns
    -------
    dict of str to sympy.Expr
        Each simplified difference (all zero when the theorem holds).

    Examples
    --------
    >>> all(expr == 0 for expr in symbolic_kkt_residuals().values())
    True
    """
    import sympy

    i, k = sympy.symbols("i k", positive=True, integer=True)
    lam, s_i, s_next, s_k = sympy.symbols("lambda s_i s_i1 s_k", positive=True)
    e_i, e_next = s_i / i, s_next / (i + 1)
    y_i = (lam - e_next) / i / (e_i - e_next)                 # eq. (7)
    y_next = (e_i - lam) / (i + 1) / (e_i - e_next)           # eq. (8)
    delta = s_next - s_i
    scale = lam * (s_i - delta * i)
    nu, theta0 = -1 / scale, delta / scale
    theta = lambda server, speed: 1 / lam + nu * speed + theta0 * server  # noqa: E731  (eq. 35)
    residuals = {
        "rate": s_i * y_i + s_next * y_next - lam,
        "capacity": i * y_i + (i + 1) * y_next - 1,
        "stationarity_i": theta(i, s_i),
        "stationarity_i+1": theta(i + 1, s_next),
        "theta_k": theta(k, s_k) - (s_i + delta * (k - i) - s_k) / scale,
        "denominator": (s_i - delta * i) - i * (i + 1) * (e_i - e_next),
    }
    return {name: sympy.simplify(expr) for name, expr in residuals.items()}
