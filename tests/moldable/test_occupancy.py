"""Tests of analytic.moldable.occupancy: Theorem 1 against the LP (P), KKT and sympy.

References: the paper's numbers (Section 7), (P) solved by enumerating its vertices in exact rationals
(vertex_optimum below), the KKT system (35)–(38) evaluated on each candidate, and for uniqueness an LP
over the optimal face (HiGHS minimizing and maximizing every y_i at the optimal value). occupancy_lp is
checked against the same exact vertices. Values at the ends of the double range: tests/moldable/test_occupancy_edges.py.
"""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from analytic.errors import InvalidParameterError
from analytic.moldable import kkt_residual, occupancy_lp, optimal_occupancy, symbolic_kkt_residuals
from analytic.speedup import SpeedupCurve, SpeedupTable

mpmath.mp.dps = 50
SUBLINEAR = SpeedupTable([1, 1.8, 2.5, 3, 3.4])


#: Increments that reach the hard cases: exact ties (several optima, s_i/i = s_(i+1)/(i+1)), linear
#: pieces (increment 1), and increments spread over six orders of magnitude (nearly flat tails).
INCREMENTS = st.one_of(st.sampled_from([1.0, 0.75, 0.5, 0.25]), st.floats(1e-6, 1.0))


def concave_speedups(increments=INCREMENTS):
    """Speed-ups s_1 = 1 followed by non-increasing increments drawn from ``increments``."""
    return st.lists(increments, min_size=0, max_size=7).map(
        lambda raw: SpeedupTable(np.cumsum(np.concatenate([[1.0], np.sort(raw)[::-1]]))))


@st.composite
def speedups_and_rates(draw, low=1e-3, high=0.999):
    """A speed-up and λ in [low, high]: anywhere, exactly at an efficiency s_i/i (case ii), or within
    a relative 1e-12..1e-3 of one (case iii with a tiny gap, where the multipliers are huge)."""
    speedup = draw(concave_speedups())
    efficiency = draw(st.sampled_from(speedup.efficiency.tolist()))
    near = efficiency * (1 + draw(st.sampled_from([-1, 1])) * 10.0 ** -draw(st.integers(3, 12)))
    lam = draw(st.one_of(st.floats(low, high), st.just(efficiency), st.just(near)))
    assume(low <= lam <= high)
    return speedup, lam


def face_is_a_point(speedup, lam):
    """Independent uniqueness test: every y_i has a single value over the optimal face of (P)."""
    s, i = speedup.values, speedup.servers.astype(float)
    base = linprog(np.ones(len(s)), A_ub=[i], b_ub=[1], A_eq=[s], b_eq=[lam], method="highs")
    A_ub = np.vstack([i, np.ones(len(s))])
    b_ub = [1, base.fun + 1e-12]
    for k in range(len(s)):
        c = np.eye(len(s))[k]
        low = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=[s], b_eq=[lam], method="highs").fun
        high = -linprog(-c, A_ub=A_ub, b_ub=b_ub, A_eq=[s], b_eq=[lam], method="highs").fun
        if high - low > 1e-8:
            return False
    return True


def vertex_optimum(s, lam):
    """min (1/λ) Σ y over the vertices of (P), in the arithmetic of the inputs (Fraction or mpmath).

    (P) has two constraints, so a vertex has at most two positive entries: y_i = λ/s_i alone (when
    i λ/s_i <= 1), or y_i, y_j with both constraints tight (Cramer's rule, when both are >= 0).
    """
    d, candidates = len(s), []
    for i in range(1, d + 1):
        if i * lam <= s[i - 1]:
            candidates.append(lam / s[i - 1])
        for j in range(i + 1, d + 1):
            det = s[i - 1] * j - s[j - 1] * i
            if det != 0:
                yi, yj = (lam * j - s[j - 1]) / det, (s[i - 1] - lam * i) / det
                if yi >= 0 and yj >= 0:
                    candidates.append(yi + yj)
    return min(candidates) / lam


def exact_value(speedup, lam):
    """The optimal value of (P) for the float inputs, in exact rationals, rounded once."""
    return float(vertex_optimum([Fraction(v) for v in speedup.values], Fraction(lam)))


# -- the paper's numbers ---------------------------------------------------------------------------


def test_section7_sublinear_mean_field():
    """Section 7: y* = (0, 0, 0.2, 0.1, 0) and D* = 0.375 at α = 0, β = 0.2."""
    opt = optimal_occupancy(SUBLINEAR, 0.8)
    assert opt.case == "iii" and opt.support == (3, 4) and (opt.i1, opt.i2) == (3, 4)
    assert opt.y == pytest.approx([0, 0, 0.2, 0.1, 0], abs=1e-15)
    assert opt.mean_response_time == pytest.approx(0.375, abs=1e-15)
    assert opt.p == pytest.approx([0, 0, 0.625, 0.375, 0], abs=1e-15)
    assert opt.unique


@pytest.mark.parametrize("lam", [0.05, 0.5, 0.9, 1.0])
def test_section7_linear_gives_full_width(lam):
    """Remark 1 and Section 7: linear speed-up -> y* = (0, ..., λ/s_d), D* = 1/d."""
    opt = optimal_occupancy(SpeedupTable.linear(5), lam)
    assert opt.case == "i" and opt.support == (5,)
    assert opt.y == pytest.approx([0, 0, 0, 0, lam / 5], abs=1e-16)
    assert opt.mean_response_time == pytest.approx(0.2, abs=1e-15)


def test_case_ii_takes_the_largest_tied_index():
    """λ = s_4/4 = 0.75: case (ii) with i1 = 4, y*_4 = 1/4 (Theorem 1 (ii))."""
    opt = optimal_occupancy(SUBLINEAR, 0.75)
    assert opt.case == "ii" and opt.support == (4,)
    assert opt.y == pytest.approx([0, 0, 0, 0.25, 0], abs=1e-15)
    tied = optimal_occupancy(SpeedupTable([1, 2, 2.5]), 1.0)       # s_1/1 = s_2/2 = 1
    assert tied.case == "ii" and tied.support == (2,)


def test_non_unique_case_iii_is_flagged():
    """Equal increments 0.5, 0.5, 0.5: λ in (s_3/3, s_2/2) admits a face of optima (Theorem 1)."""
    s = SpeedupTable([1, 1.5, 2, 2.5])
    opt = optimal_occupancy(s, 0.7)
    assert opt.case == "iii" and not opt.unique
    assert not face_is_a_point(s, 0.7)
    assert occupancy_lp(s, 0.7).mean_response_time == pytest.approx(opt.mean_response_time, abs=1e-14)


# -- cross-validation against the LP ------------------------------------------------------------------


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(speedups_and_rates())
def test_closed_form_and_lp_match_the_exact_vertices_and_are_kkt_optimal(case):
    """Both are exact for the float inputs, so both must equal the exact optimum rounded once, also within a
    relative 1e-12 of a tie, where HiGHS's tolerance (1e-10) let it pick the neighbouring vertex (found at
    s = (1, 2, 2.75), λ = 11/12 + 9e-12) and Clarabel may stop short (found at s = (1, 1.75), λ = 0.875 (1 - 1e-10)):
    occupancy_lp then pivots in exact rationals from that vertex or from y_1 = λ."""
    speedup, lam = case
    opt = optimal_occupancy(speedup, lam)
    exact = exact_value(speedup, lam)
    assert opt.mean_response_time == pytest.approx(exact, rel=1e-15, abs=0)
    assert kkt_residual(speedup, lam, opt.y, opt.nu, opt.theta0) < 1e-14
    assert speedup.values @ opt.y == pytest.approx(lam, rel=1e-13, abs=0)
    assert speedup.servers @ opt.y <= 1 + 1e-14 and opt.y.min() >= 0
    assert opt.p.sum() == pytest.approx(1.0, abs=1e-13)
    for solver in ("highs", "cvxpy"):
        lp = occupancy_lp(speedup, lam, solver)
        assert lp.mean_response_time == pytest.approx(exact, rel=1e-15, abs=0)
        if opt.unique:
            assert lp.y == pytest.approx(opt.y, rel=1e-15, abs=0)
        assert kkt_residual(speedup, lam, lp.y, lp.nu, lp.theta0) < 1e-14    # certifies y, also on a face of optima
        theta = 1 + lp.nu * speedup.values + lp.theta0 * speedup.servers        # stationarity (35), scaled by λ
        scale = max(1, abs(lp.nu) * speedup.values[-1], lp.theta0 * speedup.d)  # near ties: ~ 1/gap
        assert np.max(np.abs(lp.theta - theta)) <= 1e-14 * scale


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(concave_speedups())
@example(SpeedupTable([1.0, 2.0, 3.0, 4.0, 5.0, 5.99999]))
def test_full_load_matches_the_exact_vertices(speedup):
    """λ = 1: only server counts with s_i = i can be used. HiGHS's vertex broke y >= 0 by 2.2e-12 at
    s = (1, 2, 3, 4, 5, 5.99999) and was refused; it is now pivoted to the exact optimum."""
    opt = optimal_occupancy(speedup, 1.0)
    lp = occupancy_lp(speedup, 1.0, "highs")
    assert opt.mean_response_time == pytest.approx(exact_value(speedup, 1.0), rel=1e-15, abs=0)
    assert lp.mean_response_time == pytest.approx(opt.mean_response_time, rel=1e-15, abs=0)
    assert lp.y == pytest.approx(opt.y, rel=1e-15, abs=0)
    assert kkt_residual(speedup, 1.0, opt.y, opt.nu, opt.theta0) < 1e-14


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(concave_speedups(st.sampled_from([1.0, 0.75, 0.5, 0.25])), st.data())
def test_uniqueness_flag_matches_the_optimal_face(speedup, data):
    """Increments from a small set make collinear points, hence non-unique optima, frequent; λ is
    drawn anywhere or exactly at an efficiency s_i/i (case ii: Theorem 1 (ii) claims uniqueness,
    which fails when s_(i-1), s_i, s_(i+1) are collinear). Near, but not at, a tie the face LP
    cannot resolve a point from a segment, so those λ are left out; a tie is exact equality in rationals
    (fl(2.5/3) is above 2.5/3, so for s = (1, 1.75, 2.5) it is case iii with a face of length 1e-15)."""
    lam = data.draw(st.one_of(st.floats(0.05, 1.0), st.sampled_from(speedup.efficiency.tolist())), label="lambda")
    gaps = [Fraction(v) / i - Fraction(lam) for i, v in enumerate(speedup.values, 1)]
    assume(all(gap == 0 or abs(gap) > 1e-6 for gap in gaps))
    assert optimal_occupancy(speedup, lam).unique == face_is_a_point(speedup, lam)


def test_case_ii_is_not_unique_when_three_speedups_are_collinear():
    """s = (1, 1.75, 2.5), λ = s_2/2 = 0.875: (0, 0.5, 0) and (0.25, 0, 0.25) are both optimal, with
    D = 0.5/0.875 (checked by hand: rates 0.875, capacity 1), against Theorem 1 (ii)'s "unique"."""
    s = SpeedupTable([1, 1.75, 2.5])
    opt = optimal_occupancy(s, 0.875)
    assert opt.case == "ii" and not opt.unique and not face_is_a_point(s, 0.875)
    other = np.array([0.25, 0.0, 0.25])
    assert s.values @ other == pytest.approx(0.875, rel=1e-15, abs=0)
    assert s.servers @ other == pytest.approx(1.0, rel=1e-15, abs=0)
    assert other.sum() / 0.875 == pytest.approx(opt.mean_response_time, rel=1e-15, abs=0)
    assert kkt_residual(s, 0.875, other, opt.nu, opt.theta0) < 1e-15


def test_kkt_residual_rejects_a_suboptimal_point():
    """The optimum at λ = 0.8 padded to λ = 0.8 on the wrong support is feasible but not optimal."""
    y = np.array([0.8, 0, 0, 0, 0])
    opt = optimal_occupancy(SUBLINEAR, 0.8)
    assert kkt_residual(SUBLINEAR, 0.8, y, opt.nu, opt.theta0) > 0.1


def test_symbolic_kkt_residuals_vanish():
    residuals = symbolic_kkt_residuals()
    assert set(residuals) == {"rate", "capacity", "stationarity_i", "stationarity_i+1", "theta_k", "denominator"}
    assert all(expr == 0 for expr in residuals.values())


# -- errors -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lam,match", [
    (0.0, r"rate_per_server = 0: must lie in \(0, 1\]: arrivals need a positive rate"),
    (-0.5, r"rate_per_server = -0.5"),
    (1.2, r"rate_per_server = 1.2: must lie in \(0, 1\]: \(P\) has no feasible point for λ > 1 \(Prop. 1\)"),
    (float("nan"), r"rate_per_server = nan"),
    ("fast", r"rate_per_server = 'fast': must be a real number"),
])
def test_bad_arrival_rate(lam, match):
    with pytest.raises(InvalidParameterError, match=match):
        optimal_occupancy(SUBLINEAR, lam)
    with pytest.raises(InvalidParameterError, match=match):
        occupancy_lp(SUBLINEAR, lam)


def test_bad_speedup_and_solver():
    for bad, match in [("fast", "speedup = 'fast': must be a SpeedupTable"), ([1, 3], "must be concave"),
                       (SpeedupCurve.power(0.5), "is a curve without a largest server count d")]:
        with pytest.raises(InvalidParameterError, match=match):
            optimal_occupancy(bad, 0.5)
    with pytest.raises(InvalidParameterError, match=r'solver = \'glpk\': must be "highs" or "cvxpy"'):
        occupancy_lp(SUBLINEAR, 0.5, solver="glpk")
    with pytest.raises(InvalidParameterError, match=r"y = .*shape \(5,\)"):
        kkt_residual(SUBLINEAR, 0.5, [0.1, 0.2], 0.0, 0.0)


def test_repr_is_readable():
    text = repr(optimal_occupancy(SUBLINEAR, 0.8))
    assert text.startswith("Occupancy(case='iii', support=(3, 4), y=[0.0, 0.0, 0.2, 0.1, 0.0]")
    assert "LPOptimum(y=[0.0, 0.0, 0.2, 0.1, 0.0]" in repr(occupancy_lp(SUBLINEAR, 0.8))


# -- the forms of a speed-up --------------------------------------------------------------------------


@pytest.mark.parametrize("lam", [0.3, 0.75, 0.8, 0.97, 1.0])
def test_every_form_of_a_table_gives_the_same_optimum(lam):
    """A SpeedupTable, a list, an array and the interpolation of the table: one answer, (P)'s (exact vertices)."""
    forms = [SUBLINEAR, [1, 1.8, 2.5, 3, 3.4], np.array([1, 1.8, 2.5, 3, 3.4]), SpeedupCurve.from_discrete(SUBLINEAR)]
    reference = optimal_occupancy(SUBLINEAR, lam)
    assert reference.mean_response_time == pytest.approx(exact_value(SUBLINEAR, lam), rel=1e-15, abs=0)
    for form in forms:
        opt = optimal_occupancy(form, lam)
        assert opt.mean_response_time == reference.mean_response_time
        assert np.array_equal(opt.y, reference.y) and opt.case == reference.case
        assert occupancy_lp(form, lam).mean_response_time == occupancy_lp(SUBLINEAR, lam).mean_response_time
        assert kkt_residual(form, lam, opt.y, opt.nu, opt.theta0) == kkt_residual(SUBLINEAR, lam, opt.y, opt.nu, opt.theta0)


@pytest.mark.parametrize("f,d", [(0.9, 6), (0.5, 3), (0.99, 20)])
@pytest.mark.parametrize("lam", [0.2, 0.6, 0.95])
def test_an_amdahl_curve_sampled_at_one_to_d(f, d, lam):
    """Amdahl's curve of paper 002 carried to paper 000: its samples give (P)'s optimum for Amdahl's
    speed-ups, with the vertices of (P) enumerated in mpmath at 50 digits."""
    table = SpeedupTable.from_curve(SpeedupCurve.amdahl(f), d)
    exact = [1 / (1 - mpmath.mpf(f) + mpmath.mpf(f) / i) for i in range(1, d + 1)]
    value = float(vertex_optimum(exact, mpmath.mpf(lam)))
    assert optimal_occupancy(table, lam).mean_response_time == pytest.approx(value, rel=1e-14, abs=0)


#: A nearly linear speed-up s_k = k (1 - c (k - 1)), c ≈ 1.15e-11, at λ just above s_4/4 (the issue's probe).
NEARLY_LINEAR = [1.0, 1.999999999988547, 2.9999999999656413, 3.9999999999312825, 4.999999999885471]
NEARLY_LINEAR_RATE = 0.9999999999885469


def test_nearly_linear_vertex_is_solved_exactly():
    """Eqs. (7)–(8) divide by s_3/3 - s_4/4 ≈ 1.1e-11: in floats D* was 0.33333171769 (relative error 1.6e-6) and
    y_4 = 4.85e-6. Reference: the vertex of (P) on {3, 4} (rate equality and tight capacity) solved in exact
    rationals with fractions.Fraction, independently of eqs. (7)–(8)."""
    s = [Fraction(v) for v in NEARLY_LINEAR]
    lam = Fraction(NEARLY_LINEAR_RATE)
    # s_3 y_3 + s_4 y_4 = λ and 3 y_3 + 4 y_4 = 1 by Cramer's rule
    det = s[2] * 4 - s[3] * 3
    y3, y4 = (lam * 4 - s[3]) / det, (s[2] - lam * 3) / det
    opt = optimal_occupancy(SpeedupTable(NEARLY_LINEAR), NEARLY_LINEAR_RATE)
    assert opt.support == (3, 4) and opt.unique
    assert opt.y[2] == pytest.approx(float(y3), rel=2e-16, abs=0)
    assert opt.y[3] == pytest.approx(float(y4), rel=2e-16, abs=0)
    assert opt.mean_response_time == pytest.approx(float((y3 + y4) / lam), rel=4e-16, abs=0)
    assert opt.mean_response_time == pytest.approx(0.3333311791582594, rel=4e-16, abs=0)
    assert kkt_residual(SpeedupTable(NEARLY_LINEAR), NEARLY_LINEAR_RATE, opt.y, opt.nu, opt.theta0) < 1e-15


@pytest.mark.parametrize("solver", ["highs", "cvxpy"])
def test_lp_pivots_to_the_exact_vertex(solver):
    """HiGHS returned y = (0, 0, 0, 0, 0.2), breaking Σ i y_i <= 1 by 1.1e-11 with D = 0.2 (infeasible, 40 % below
    the optimum), and Clarabel failed; both were refused. The exact simplex now ends at the vertex of the test above."""
    s = [Fraction(v) for v in NEARLY_LINEAR]
    lam = Fraction(NEARLY_LINEAR_RATE)
    det = s[2] * 4 - s[3] * 3                       # Cramer's rule on {3, 4}, as above
    y3, y4 = (lam * 4 - s[3]) / det, (s[2] - lam * 3) / det
    lp = occupancy_lp(SpeedupTable(NEARLY_LINEAR), NEARLY_LINEAR_RATE, solver)
    assert lp.y.tolist() == pytest.approx([0, 0, float(y3), float(y4), 0], rel=2e-16, abs=0)
    assert lp.mean_response_time == pytest.approx(float((y3 + y4) / lam), rel=2e-16, abs=0)
    assert kkt_residual(SpeedupTable(NEARLY_LINEAR), NEARLY_LINEAR_RATE, lp.y, lp.nu, lp.theta0) < 1e-15


def test_kkt_residual_refuses_a_nan_multiplier():
    """A NaN multiplier used to give residual 0.0 (max() skips NaN), certifying optimality."""
    from analytic.moldable import kkt_residual
    from analytic.speedup import SpeedupTable

    s = SpeedupTable([1, 1.8, 2.5, 3, 3.4])
    for nu, theta0, name in [(math.nan, 0.625, "nu"), (-1.25, math.nan, "theta0")]:
        with pytest.raises(InvalidParameterError, match=f"^{name} = nan: must be a finite real number$"):
            kkt_residual(s, 0.8, [0.0, 0.0, 0.2, 0.1, 0.0], nu, theta0)
    with pytest.raises(InvalidParameterError, match=r"^y = .*: must be a 1-D sequence of real numbers$"):
        kkt_residual(s, 0.8, np.array([0, 0, 0.2, 0.1, 0]) + 0j, -1.25, 0.625)


@pytest.mark.parametrize("load", [1e-7, 1e-12, 1e-300])
def test_occupancy_lp_at_tiny_load_matches_theorem_1(load):
    """HiGHS returned y = 0 below its feasibility tolerance (λ = 1e-12); the LP is now solved scaled.
    Reference: Theorem 1's closed form, y* = λ/s_d on d servers at low load (optimal_occupancy)."""
    from analytic.moldable import occupancy_lp, optimal_occupancy
    from analytic.speedup import SpeedupTable

    s = SpeedupTable([1, 1.8, 2.5, 3, 3.4])
    lp, exact = occupancy_lp(s, load), optimal_occupancy(s, load)
    assert np.allclose(lp.y / load, exact.y / load, rtol=1e-12, atol=1e-12)
    assert lp.y[-1] == pytest.approx(load / 3.4, rel=1e-12, abs=0)
    assert lp.mean_response_time == pytest.approx(exact.mean_response_time, rel=1e-12, abs=0)


@pytest.mark.parametrize("call,match", [
    (lambda: __import__("analytic.moldable", fromlist=["x"]).optimal_occupancy([[1.0], [1.0, 2.0]], 0.5),
     r"^speedup = \[\[1.0\], \[1.0, 2.0\]\]: must be a non-empty 1-D sequence of real numbers s_1, ..., s_d$"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()
