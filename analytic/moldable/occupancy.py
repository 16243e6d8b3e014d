"""The occupancy LP (P) of moldable jobs: Theorem 1 in closed form, an exact LP solver and KKT checks.

Ghanbarian, Mukhopadhyay, Mazumdar & Guillemin, *On Optimal Server Allocation for Moldable Jobs
with Concave Speed-Up*, Section 3. With ``y_i`` the (scaled) mean number of jobs on ``i`` servers,

    (P)  minimize (1/λ) Σ_i y_i  subject to  Σ_i s_i y_i = λ,  Σ_i i y_i <= 1,  y >= 0.

Its optimum ``D*`` is the least mean execution time any scheme with vanishing blocking can reach
(Prop. 1). Theorem 1 solves (P) in closed form; :func:`occupancy_lp` solves it as an LP (HiGHS or
cvxpy, then the simplex method in exact rationals) and returns the multipliers ``(nu, theta_0, theta_i)``
of the Lagrangian of Appendix B multiplied by λ, i.e. of (P) with the objective ``Σ_i y_i`` (same optima),

    λ L = Σ y_i + nu (Σ s_i y_i - λ) + theta_0 (Σ i y_i - 1) - Σ theta_i y_i,

so that :func:`kkt_residual` can certify either solution against the KKT system (35)–(38). Appendix
B's multipliers are these divided by λ; they grow like 1/λ and leave the double range for λ below
about 1e-308, where these stay put (they do not depend on λ within a case of Theorem 1).

Both solutions are exact for the float inputs (rounded once at the end): every decision (which
case, which support, which basis) is taken in exact rationals, since for nearly linear speed-ups the
efficiencies ``s_i/i`` differ by less than the rounding of λ.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np
import scipy.linalg
from scipy.optimize import linprog

from analytic._deprecation import renamed_arguments, renamed_attribute
from analytic.errors import ConvergenceError, InvalidParameterError
from analytic.speedup import TOLERANCE, SpeedupCurve, SpeedupTable, as_discrete
from analytic.validation import as_number, real, real_array

if TYPE_CHECKING:  # sympy is imported by the symbolic check only (it takes ~0.7 s)
    import sympy

__all__ = ["LPOptimum", "Occupancy", "kkt_residual", "occupancy_lp", "optimal_occupancy", "symbolic_kkt_residuals"]


def __getattr__(name: str) -> float:
    """``FEASIBILITY`` (removed: :func:`occupancy_lp` returns exact optima) for one more release."""
    if name == "FEASIBILITY":
        warnings.warn("analytic.moldable.occupancy.FEASIBILITY is deprecated and will be removed: occupancy_lp "
                      "returns exact optima, so no feasibility tolerance applies", DeprecationWarning, stacklevel=2)
        return 1e-13
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
        ``y*``, indexed like the speed-up's values (``y[i - 1]`` belongs to ``i`` servers). Its
        entries are of order λ: subnormal, with fewer digits, for λ below about 2e-308 (at
        λ = 5e-324, ``y*_3 = 2e-324`` rounds to 0); ``p`` and ``mean_response_time`` are computed from the
        exact ``y*`` and keep every digit.
    p : numpy.ndarray
        ``p*_i = s_i y*_i / λ``, the allocation probabilities of greedy(p*) (sum to one).
    mean_response_time : float
        ``D* = Σ y*_i / λ``, the optimal value of (P).
    unique : bool
        Whether (P) has no other optimum: always in case i; in case ii when
        ``s_{i1} - s_{i1-1} > s_{i1+1} - s_{i1}`` (Theorem 1 (ii) says always, but when ``s_{i1-1}``,
        ``s_{i1}``, ``s_{i1+1}`` are collinear mass can move from ``i1`` to its two neighbours at
        equal cost: ``s = (1, 1.75, 2.5)``, ``λ = 0.875`` has the optima ``(0, 0.5, 0)`` and
        ``(0.25, 0, 0.25)``); in case iii when ``s_i - s_{i-1} > s_{i+1} - s_i > s_{i+2} - s_{i+1}``
        (Theorem 1 (iii), a condition that is also necessary).
    nu, theta0 : float
        Lagrange multipliers of the equality and of the capacity constraint that certify ``y*``:
        λ times those of Appendix B (eq. 39), see the module's introduction, so that
        ``theta_i = 1 + nu s_i + theta0 i >= 0``, zero on ``I*``.
    rate_per_server : float
        λ, arrivals per server per unit time.

    Examples
    --------
    >>> from analytic.moldable import optimal_occupancy
    >>> from analytic.speedup import SpeedupTable
    >>> optimum = optimal_occupancy(SpeedupTable([1, 1.8, 2.5, 3, 3.4]), 0.8)
    >>> optimum.case, optimum.support, round(optimum.mean_response_time, 12)
    ('iii', (3, 4), 0.375)
    """

    case: str
    support: tuple[int, ...]
    i1: int
    i2: int
    y: np.ndarray
    p: np.ndarray
    mean_response_time: float
    unique: bool
    nu: float
    theta0: float
    rate_per_server: float
    arrival_rate = renamed_attribute("rate_per_server")
    mean_time = renamed_attribute("mean_response_time")

    def __repr__(self) -> str:
        return (f"Occupancy(case={self.case!r}, support={self.support}, y={_rounded(self.y)}, "
                f"p={_rounded(self.p)}, mean_response_time={self.mean_response_time:.12g}, unique={self.unique})")


@dataclass(frozen=True, repr=False)
class LPOptimum:
    """A numerical solution of (P) with its KKT multipliers (signs as in Appendix B).

    Attributes
    ----------
    y : numpy.ndarray
        Primal optimum (a vertex), indexed like the speed-up's values; subnormal for tiny λ, as in
        :class:`Occupancy`.
    mean_response_time : float
        Optimal value ``(1/λ) Σ y_i``.
    nu : float
        Multiplier of ``Σ s_i y_i = λ`` (free sign), for the objective ``Σ y_i`` (λ times Appendix B's).
    theta0 : float
        Multiplier of ``Σ i y_i <= 1`` (>= 0), likewise.
    theta : numpy.ndarray
        Multipliers of ``y_i >= 0`` (>= 0), indexed like ``y``, likewise.
    solver : str
        The floating-point solver that proposed the starting basis: ``"highs"`` or ``"cvxpy (Clarabel)"``,
        or ``"exact simplex (...)"`` with the solver's failure when it did not solve the problem.

    Examples
    --------
    >>> from analytic.moldable import occupancy_lp
    >>> from analytic.speedup import SpeedupTable
    >>> round(occupancy_lp(SpeedupTable([1, 1.8, 2.5, 3, 3.4]), 0.8).mean_response_time, 9)
    0.375
    """

    y: np.ndarray
    mean_response_time: float
    mean_time = renamed_attribute("mean_response_time")
    nu: float
    theta0: float
    theta: np.ndarray
    solver: str

    def __repr__(self) -> str:
        return (f"LPOptimum(y={_rounded(self.y)}, mean_response_time={self.mean_response_time:.12g}, nu={self.nu:.10g}, "
                f"theta0={self.theta0:.10g}, solver={self.solver!r})")


def _rounded(values: np.ndarray) -> list[float]:
    return np.round(values, 10).tolist()


def check_rate_per_server(rate_per_server: float) -> float:
    """λ as a float in (0, 1], or :class:`InvalidParameterError` citing Prop. 1.

    Compared before it is rounded, so that an integer or ``Fraction`` beyond the double range is
    refused like any λ > 1, and a positive ``Fraction`` below the least double (5e-324) is refused
    for rounding to 0, not called non-positive.
    """
    number = as_number(rate_per_server)
    if number is None:
        raise InvalidParameterError("rate_per_server", rate_per_server, "must be a real number in (0, 1]")
    if number > 1:
        raise InvalidParameterError("rate_per_server", rate_per_server,
                                    "must lie in (0, 1]: (P) has no feasible point for λ > 1 (Prop. 1)")
    if not number > 0:
        raise InvalidParameterError("rate_per_server", rate_per_server, "must lie in (0, 1]: arrivals need a positive rate")
    rate = float(number)
    if rate == 0:
        raise InvalidParameterError("rate_per_server", rate_per_server,
                                    "must be at least 5e-324, the least positive double: it rounds to 0")
    return rate


@renamed_arguments(arrival_rate="rate_per_server")
def optimal_occupancy(speedup: SpeedupTable | SpeedupCurve | object, rate_per_server: float) -> Occupancy:
    """Optimal solution of (P) in closed form (Ghanbarian et al., Theorem 1, eqs. 7–9).

    Parameters
    ----------
    speedup : SpeedupTable, sequence of float or SpeedupCurve
        ``s_1, ..., s_d`` satisfying P1 and concavity, as a table, a sequence, or the interpolation
        of a table (:func:`analytic.speedup.as_discrete`; sample a curve with
        :meth:`SpeedupTable.from_curve <analytic.speedup.SpeedupTable.from_curve>`).
    rate_per_server : float
        λ in (0, 1], arrivals per server per unit time (unit-mean job sizes).

    Returns
    -------
    Occupancy
        Case, support ``I*``, ``y*``, ``p*``, ``D*``, uniqueness and certifying multipliers, each the
        float nearest its exact value for the given float inputs: the case is decided by comparing
        λ with the efficiencies ``s_i/i`` in exact rationals, and eqs. (7)–(8), ``p*``, ``D*`` and
        the multipliers are evaluated in exact rationals too. For nearly linear speed-ups the
        efficiencies differ by less than the rounding of λ: for ``s_k = k (1 - 1.15e-11 (k - 1))``,
        ``λ = fl(s_5/5)`` lies 2.2e-17 above the exact ``s_5/5``, which makes it case iii with
        ``D* = 0.20000009655``, not case i with 0.2; and eqs. (7)–(8) in floating point lost 5
        digits. A tie ``λ = s_i/i`` is case (ii) only when exact.

    Raises
    ------
    InvalidParameterError
        λ outside (0, 1] (Prop. 1: (P) is infeasible for λ > 1), or ``speedup`` not a valid table.

    Examples
    --------
    Section 7, sub-linear speed-up at λ = 0.8: ``y* = (0, 0, 0.2, 0.1, 0)``, ``D* = 0.375``.

    >>> from analytic.speedup import SpeedupTable
    >>> optimal_occupancy(SpeedupTable([1, 1.8, 2.5, 3, 3.4]), 0.8)
    Occupancy(case='iii', support=(3, 4), y=[0.0, 0.0, 0.2, 0.1, 0.0], p=[0.0, 0.0, 0.625, 0.375, 0.0],
        mean_response_time=0.375, unique=True)
    """
    speedup = as_discrete(speedup)
    lam = check_rate_per_server(rate_per_server)
    s, rate = [Fraction(float(v)) for v in speedup.values], Fraction(lam)
    case, i1 = _theorem1_case(s, rate)
    i2 = i1 + 1 if case == "iii" else i1
    y = _theorem1_vertex(s, rate, case, i1)
    nu, theta0 = _certifying_multipliers(s, case, i1)
    return Occupancy(case=case, support=tuple(sorted({i1, i2})), i1=i1, i2=i2, y=_floats(y),
                     p=_floats([v * w / rate for v, w in zip(s, y, strict=True)]), mean_response_time=float(sum(y) / rate),
                     unique=_is_unique(speedup, case, i1), nu=nu, theta0=theta0, rate_per_server=lam)


def _floats(values: list[Fraction]) -> np.ndarray:
    """Exact rationals rounded once each to the nearest float."""
    return np.array([float(v) for v in values])


def _theorem1_case(s: list[Fraction], rate: Fraction) -> tuple[str, int]:
    """Theorem 1's case and ``i1``, comparing λ with the efficiencies ``s_i/i`` exactly.

    Case i: λ <= s_d/d (``i1 = d``); case ii: λ = s_i/i, the largest such i; case iii: the largest i
    with s_i/i > λ (it exists: s_1/1 = 1 >= λ, and a tie is case ii), so s_(i+1)/(i+1) < λ < s_i/i.
    """
    efficiency = [v / i for i, v in enumerate(s, 1)]
    if rate <= efficiency[-1]:
        return "i", len(s)
    ties = [i for i, e in enumerate(efficiency, 1) if e == rate]
    if ties:
        return "ii", ties[-1]
    return "iii", max(i for i, e in enumerate(efficiency, 1) if e > rate)


def _theorem1_vertex(s: list[Fraction], rate: Fraction, case: str, i1: int) -> list[Fraction]:
    """``y*`` of Theorem 1 in exact rationals: ``λ/s_i1`` on ``i1`` (cases i, ii), else eqs. (7)–(8).

    Eqs. (7)–(8) divide by ``s_i/i - s_(i+1)/(i+1)``, positive in case iii (:func:`_theorem1_case`);
    for a nearly linear speed-up it is a difference of nearly equal numbers, exact here.
    """
    y = [Fraction(0)] * len(s)
    if case != "iii":
        y[i1 - 1] = rate / s[i1 - 1]
        return y
    e_i, e_next = s[i1 - 1] / i1, s[i1] / (i1 + 1)
    gap = e_i - e_next
    y[i1 - 1], y[i1] = (rate - e_next) / i1 / gap, (e_i - rate) / (i1 + 1) / gap
    return y


def _is_unique(speedup: SpeedupTable, case: str, i1: int) -> bool:
    """Theorem 1's uniqueness conditions (see :class:`Occupancy`), increments compared with slack TOLERANCE."""
    s, increments = speedup.values, np.append(speedup.increments, -np.inf)   # no s_{d+1}: nothing to tie with
    if case == "i":
        return True
    if case == "ii":                                                         # i1 < d here: s_{i1+1} exists
        return bool(increments[i1 - 1] > increments[i1] + TOLERANCE * s[i1])
    slack = TOLERANCE * s[i1]
    return bool(increments[i1 - 1] > increments[i1] + slack > increments[i1 + 1] + 2 * slack)


def _certifying_multipliers(s: list[Fraction], case: str, i1: int) -> tuple[float, float]:
    """(nu, theta0) solving (35) with theta_i = 0 on the support, for the objective Σ y_i (Appendix B, eq. 39, times λ).

    The line ``i -> s_a + Δ (i - a)`` through the anchor ``a`` with slope ``Δ`` supports the concave
    speed-up; then ``nu = -1 / (s_a - Δ a)`` and ``theta0 = Δ / (s_a - Δ a)`` give
    ``theta_i = (s_a + Δ (i - a) - s_i) / (s_a - Δ a) >= 0``. Case i: a = d, Δ = 0. Cases ii and
    iii: a = i1, Δ = s_{i1+1} - s_{i1} (< s_{i1}/i1 because s_{i1+1}/(i1+1) < s_{i1}/i1). Exact:
    ``s_a - Δ a`` cancels for nearly linear speed-ups; being a positive multiple of 2^-52 (the s_i
    are doubles >= 1), it keeps ``|nu| <= 2^52`` whatever λ.
    """
    anchor = len(s) if case == "i" else i1
    slope = Fraction(0) if case == "i" else s[anchor] - s[anchor - 1]
    intercept = s[anchor - 1] - slope * anchor
    return float(-1 / intercept), float(slope / intercept)


@renamed_arguments(arrival_rate="rate_per_server")
def kkt_residual(speedup: SpeedupTable | SpeedupCurve | object, rate_per_server: float, y: np.ndarray, nu: float,
                 theta0: float) -> float:
    """Largest violation of the KKT system (35)–(38) of (P) by ``(y, nu, theta0)``.

    The multipliers are those of :class:`Occupancy` (λ times Appendix B's) and ``theta_i`` is taken
    from stationarity (35), ``theta_i = 1 + nu s_i + theta0 i``. Every term is measured in the
    scale-free variables ``z = y/λ`` (the rate equality then reads ``Σ s_i z_i = 1``), so that the
    residual means the same for λ = 1e-300 as for λ = 0.5: the result is the maximum of the primal
    violations (38) ``|Σ s_i y_i - λ|/λ``, ``Σ i y_i - 1`` and ``-y_i/λ``, the dual violations
    ``-theta0``, ``-theta_i`` (36) and the complementary products ``|theta0 (Σ i y_i - 1)|``,
    ``|theta_i y_i|/λ`` (37), the dual terms divided by the multipliers' scale
    ``max(1, |nu| s_d, theta0 d)`` (near-ties ``s_i/i ≈ s_{i+1}/(i+1)`` make the multipliers large).
    Zero (up to round-off) certifies that ``y`` is optimal for (P): an LP needs no constraint
    qualification. (Appendix B invokes Slater's condition through ``y = (λ, 0, ..., 0)``, which is
    strictly feasible only for λ < 1.) A candidate ``y`` beyond ``1e308 λ`` gives ``inf``.

    Parameters
    ----------
    speedup : SpeedupTable, sequence of float or SpeedupCurve
        As in :func:`optimal_occupancy`.
    rate_per_server : float
        λ in (0, 1].
    y : array_like, shape (d,)
        Candidate primal solution, indexed like the speed-up's values.
    nu, theta0 : float
        Candidate multipliers (signs as in Appendix B, scaled by λ as in :class:`Occupancy`).

    Returns
    -------
    float
        The largest violation (>= 0).

    Examples
    --------
    >>> from analytic.speedup import SpeedupTable
    >>> s = SpeedupTable([1, 1.8, 2.5, 3, 3.4])
    >>> opt = optimal_occupancy(s, 0.8)
    >>> kkt_residual(s, 0.8, opt.y, opt.nu, opt.theta0) < 1e-14
    True
    """
    speedup = as_discrete(speedup)
    s = speedup.values
    lam = check_rate_per_server(rate_per_server)
    y = real_array("y", y, ndim=1)
    nu, theta0 = real("nu", nu), real("theta0", theta0)
    if y.shape != s.shape:
        raise InvalidParameterError("y", y, f"must have one entry per server count, shape ({len(s)},)")
    i = speedup.servers
    with np.errstate(over="ignore"):
        z = y / lam
    if not np.isfinite(z).all():                 # some |y_i| > 1.8e308 λ: so is the rate violation
        return math.inf
    theta = 1.0 + nu * s + theta0 * i
    capacity = float(i @ y) - 1.0
    scale = max(1.0, abs(nu) * s[-1], abs(theta0) * len(s))
    primal = [abs(float(s @ z) - 1.0), max(capacity, 0.0), max(-z.min(), 0.0)]
    dual = [max(-theta0, 0.0), max(-theta.min(), 0.0), abs(theta0 * capacity), float(np.abs(theta * z).max())]
    return float(max(*primal, *(v / scale for v in dual)))


@renamed_arguments(arrival_rate="rate_per_server")
def occupancy_lp(speedup: SpeedupTable | SpeedupCurve | object, rate_per_server: float, solver: str = "highs") -> LPOptimum:
    """Solve (P) as a linear program, exactly for the float inputs, with its KKT multipliers.

    A floating-point solver finds a basis; the simplex method in exact rationals (the ``Fraction`` of
    each float input) checks it and pivots on to an exact optimum when it is not one. This matters
    near ties ``λ ≈ s_i/i``, which no floating-point tolerance resolves: for
    ``s_k = k (1 - 1.15e-11 (k - 1))`` at ``λ = fl(s_5/5)``, HiGHS's vertex ``y_5 = λ/s_5`` breaks
    ``Σ i y_i <= 1`` by 2.2e-17 and its value, 0.2, is 4.8e-7 below the optimum 0.20000009655. The
    method is independent of Theorem 1 (no case analysis), so it cross-checks :func:`optimal_occupancy`.

    Parameters
    ----------
    speedup : SpeedupTable, sequence of float or SpeedupCurve
        As in :func:`optimal_occupancy`.
    rate_per_server : float
        λ in (0, 1].
    solver : {"highs", "cvxpy"}
        The floating-point solver that proposes the starting basis, on the problem rescaled to
        ``z = y/λ`` (well scaled for any λ): ``"highs"``, ``scipy.optimize.linprog`` with HiGHS
        (a vertex, feasibility tolerance 1e-10); ``"cvxpy"``, cvxpy with the Clarabel
        interior-point solver (tolerances 1e-13; the basis is read off the largest entries). When
        the solver fails (Clarabel may stop short near ties and at λ = 1, where (P) has no strictly
        feasible point) or its basis is not exactly feasible, the exact method starts from
        ``{y_1 = λ, slack 1 - λ}`` instead; the result is the same, only ``solver`` says so.

    Returns
    -------
    LPOptimum
        An optimal vertex ``y``, the optimal value and ``(nu, theta0, theta)`` (signs of Appendix B,
        scaled by λ), each the float nearest its exact value.

    Raises
    ------
    InvalidParameterError
        Bad λ, speed-up or solver name.

    Examples
    --------
    >>> from analytic.speedup import SpeedupTable
    >>> occupancy_lp(SpeedupTable([1, 1.8, 2.5, 3, 3.4]), 0.8).y.round(12).tolist()
    [0.0, 0.0, 0.2, 0.1, 0.0]
    """
    s = as_discrete(speedup).values
    lam = check_rate_per_server(rate_per_server)
    y, value, nu, theta0, theta, label = solve_occupancy_lp([s], np.array([lam]), lam, solver)
    return LPOptimum(y=y, mean_response_time=value, nu=float(nu[0]), theta0=theta0, theta=theta, solver=label)


def solve_occupancy_lp(speeds: list[np.ndarray], loads: np.ndarray, rate: float,
                       solver: str) -> tuple[np.ndarray, float, np.ndarray, float, np.ndarray, str]:
    """Solve (Q) of Section 6 exactly for the float inputs; (P) is the case of one class with load λ.

    ``minimize (1/rate) Σ y  s.t.  Σ_i s_ij y_ij = loads[j] for each class j,  Σ i y_ij <= 1,  y >= 0``
    with ``speeds[j]`` the speed-ups of class j, as :func:`occupancy_lp` does for (P). Returns
    ``(y, value, nu, theta0, theta, label)``: ``y`` and ``theta`` concatenated over the classes,
    ``nu`` one multiplier per class, with the signs of the Lagrangian of Appendix B for the
    objective ``Σ y`` (``rate`` times those of ``(1/rate) Σ y``), each rounded once from its exact value.
    The capacity is ``max(1, Σ_j loads[j])``: callers check ``Σ_j loads[j] <= 1`` in floating point,
    which lets the exact sum exceed 1 by a rounding (0.4 + 0.6000000000000001); no point has
    capacity 1 then, and the exact total load is the least capacity that serves it.
    """
    solve = {"highs": _solve_highs, "cvxpy": _solve_cvxpy}.get(solver) if isinstance(solver, str) else None
    if solve is None:
        raise InvalidParameterError("solver", solver, 'must be "highs" or "cvxpy"')
    program = _StandardForm.of(speeds, loads)
    # (Q) is homogeneous in the loads: the floating-point solver gets z = y / scale, so that its
    # absolute tolerances (1e-10, 1e-13) act relative to the loads (unscaled, HiGHS returned y = 0 for
    # λ = 1e-12). Since s_ij >= 1 and s_j . z_j <= 1, Σ i z <= Σ_j d_j: a larger capacity bound is
    # slack, and capping it keeps the problem well scaled (1/scale overflows for λ = 5e-324).
    scale = float(np.max(loads))
    bound = min(1.0 / scale, sum(len(s) for s in speeds) + 1.0)
    try:
        z, label = solve(speeds, loads / scale, bound)
        point = np.append(z, bound - _constraint_rows(speeds)[1] @ z)
    except ConvergenceError as error:                  # the exact method does not need it: start elsewhere
        point, label = None, f"exact simplex ({error})"
    basis, x, duals, reduced = _exact_simplex(program, program.starting_basis(point))
    y = [Fraction(0)] * program.variables
    for j, value in zip(basis, x, strict=True):
        if j < program.variables:
            y[j] = value
    return (_floats(y), float(sum(y) / Fraction(rate)), _floats([-u for u in duals[:-1]]), float(-duals[-1]),
            _floats(reduced[:program.variables]), label)


@dataclass(frozen=True)
class _StandardForm:
    """(Q) as ``min c.x, A x = b, x >= 0`` in exact rationals: the y columns, then the capacity slack.

    ``columns[j]`` is column j of A (rates rows, one per class, then the capacity row); ``rhs`` the
    loads, then the capacity (see :func:`solve_occupancy_lp`).
    """

    columns: list[tuple[Fraction, ...]]
    costs: list[Fraction]
    rhs: list[Fraction]
    first: list[int]              # column of y_1 of each class

    @classmethod
    def of(cls, speeds: list[np.ndarray], loads: np.ndarray) -> _StandardForm:
        classes = len(speeds)
        columns, first = [], []
        for j, s in enumerate(speeds):
            first.append(len(columns))
            for i, value in enumerate(s, 1):
                column = [Fraction(0)] * (classes + 1)
                column[j], column[classes] = Fraction(float(value)), Fraction(i)
                columns.append(tuple(column))
        slack = tuple([Fraction(0)] * classes + [Fraction(1)])
        rhs = [Fraction(float(v)) for v in loads]
        return cls(columns=[*columns, slack], costs=[Fraction(1)] * len(columns) + [Fraction(0)],
                   rhs=[*rhs, max(Fraction(1), sum(rhs))], first=first)

    @property
    def variables(self) -> int:
        """Number of y columns (the slack is the last column)."""
        return len(self.columns) - 1

    def solve_basis(self, basis: list[int], rhs: list[Fraction] | None = None) -> list[Fraction]:
        """``x`` with ``B x = rhs`` (default ``b``: the basic solution), B the basis's columns."""
        return _solve_exactly([[self.columns[j][r] for j in basis] for r in range(len(self.rhs))],
                              self.rhs if rhs is None else rhs)

    def starting_basis(self, point: np.ndarray | None) -> list[int]:
        """A feasible basis: the independent columns with the largest values at a solver's ``point``
        (one value per column, slack last) when exactly feasible, else ``{y_1j} + slack``."""
        if point is not None:
            basis = self.largest_columns(point)
            if min(self.solve_basis(basis)) >= 0:
                return basis
        return [*self.first, self.variables]                  # y_1j = loads_j, slack = capacity - Σ loads >= 0

    def largest_columns(self, point: np.ndarray) -> list[int]:
        """A basis of independent columns, taken greedily in decreasing order of their values at ``point``."""
        basis: list[int] = []
        for j in np.argsort(-point, kind="stable").tolist():
            if _rank([self.columns[k] for k in (*basis, j)]) > len(basis):
                basis.append(j)
            if len(basis) == len(self.rhs):
                break
        return basis


def _exact_simplex(program: _StandardForm, basis: list[int]
                   ) -> tuple[list[int], list[Fraction], list[Fraction], list[Fraction]]:
    """The primal simplex method in exact rationals from a feasible basis.

    Returns the optimal basis, ``x_B``, the duals ``u`` (``B^T u = c_B``) and the reduced costs
    ``c_j - u . A_j`` of every column (>= 0 at the optimum, 0 on the basis). The entering column
    has the most negative reduced cost (Dantzig; from ``y_1 = λ`` it jumps to ``y_d`` at once,
    where Bland's smallest index walked through all d sizes: 11 s for d = 1000), except at a
    degenerate vertex (a basic ``x`` is 0), where Bland's rule is used: a cycle would stay at one
    degenerate vertex, so Bland's rule would govern all of it, and it cannot cycle. (Q) is bounded
    below (costs >= 0), so the method ends at an optimum.
    """
    basis = list(basis)
    while True:
        x = program.solve_basis(basis)
        duals = _solve_exactly([list(program.columns[j]) for j in basis], [program.costs[j] for j in basis])
        reduced = [c - sum(u * a for u, a in zip(duals, column, strict=True))
                   for c, column in zip(program.costs, program.columns, strict=True)]
        improving = [j for j, r in enumerate(reduced) if r < 0]
        if not improving:
            return basis, x, duals, reduced
        entering = improving[0] if min(x) == 0 else min(improving, key=reduced.__getitem__)
        direction = program.solve_basis(basis, list(program.columns[entering]))
        _, _, leaving = min((x[k] / step, basis[k], k) for k, step in enumerate(direction) if step > 0)
        basis[leaving] = entering


def _reduced_echelon(rows: list[list[Fraction]]) -> tuple[list[list[Fraction]], list[int]]:
    """Gauss–Jordan elimination in exact rationals: the reduced row echelon form and its pivot columns."""
    rows, pivots = [list(row) for row in rows], []
    for column in range(len(rows[0]) if rows else 0):
        top = len(pivots)
        pivot = next((r for r in range(top, len(rows)) if rows[r][column] != 0), None)
        if pivot is None:
            continue
        rows[top], rows[pivot] = rows[pivot], rows[top]
        rows[top] = [v / rows[top][column] for v in rows[top]]
        for r in range(len(rows)):
            if r != top and rows[r][column] != 0:
                rows[r] = [a - rows[r][column] * b for a, b in zip(rows[r], rows[top], strict=True)]
        pivots.append(column)
    return rows, pivots


def _rank(vectors: list[tuple[Fraction, ...]]) -> int:
    """The dimension of the span of ``vectors``, exactly."""
    return len(_reduced_echelon([list(v) for v in vectors])[1])


def _solve_exactly(matrix: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction]:
    """The solution of a non-singular square system, exactly."""
    rows, _ = _reduced_echelon([[*row, b] for row, b in zip(matrix, rhs, strict=True)])
    return [row[-1] for row in rows]


def _constraint_rows(speeds: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The rate rows (block diagonal, one per class) and the capacity row of (Q)."""
    rates = scipy.linalg.block_diag(*[s[None, :] for s in speeds])
    capacity = np.concatenate([np.arange(1, len(s) + 1, dtype=float) for s in speeds])
    return rates, capacity


#: HiGHS's smallest feasibility tolerances. With its defaults (1e-7) it returned y = (0, 0.5), violating
#: the rate equality by 8.75e-9, for s = (1, 1.75) at λ = 0.875 (1 + 1e-8), where the optimum is case iii.
_HIGHS_TOLERANCES = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


def _solve_highs(speeds: list[np.ndarray], loads: np.ndarray, bound: float) -> tuple[np.ndarray, str]:
    """HiGHS's vertex of ``min Σ z s.t. rates z = loads, capacity z <= bound, z >= 0``."""
    rates, capacity = _constraint_rows(speeds)
    result = linprog(np.ones(len(capacity)), A_ub=capacity[None, :], b_ub=[bound], A_eq=rates, b_eq=loads,
                     bounds=(0, None), method="highs", options=_HIGHS_TOLERANCES)
    if result.status != 0:
        raise ConvergenceError(f"HiGHS did not solve the occupancy LP: {result.message}")
    return np.asarray(result.x, float), "highs"


def _solve_cvxpy(speeds: list[np.ndarray], loads: np.ndarray, bound: float) -> tuple[np.ndarray, str]:
    """Clarabel's (interior) point of the same problem as :func:`_solve_highs`."""
    import cvxpy as cp

    rates, capacity = _constraint_rows(speeds)
    z = cp.Variable(len(capacity))
    problem = cp.Problem(cp.Minimize(cp.sum(z)), [rates @ z == loads, capacity @ z <= bound, z >= 0])
    with warnings.catch_warnings():  # cvxpy warns "Solution may be inaccurate": the status check below says so
        warnings.simplefilter("ignore", UserWarning)
        try:
            problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-13, tol_gap_rel=1e-13, tol_feas=1e-13)
        except cp.error.SolverError as error:
            raise ConvergenceError(f"cvxpy (Clarabel) did not solve the occupancy LP: {error}") from None
    if problem.status != cp.OPTIMAL:
        raise ConvergenceError(f"cvxpy (Clarabel) did not solve the occupancy LP: status {problem.status}")
    return np.asarray(z.value, float), "cvxpy (Clarabel)"


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
