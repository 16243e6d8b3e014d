"""Tests of analytic.moldable.occupancy at the ends of the double range and at near-ties of Theorem 1.

References: (P) solved by enumerating its vertices in exact rationals (``fractions.Fraction`` of the
float inputs; a vertex has at most two positive entries, found by Cramer's rule), so every expected
value is the exact optimum of the given float inputs rounded once; and, where stated, closed forms
derived by hand (the supporting line of the speed-up for the multipliers).
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import analytic.moldable.occupancy as occupancy
from analytic.errors import ConvergenceError, InvalidParameterError
from analytic.moldable import kkt_residual, occupancy_lp, optimal_occupancy
from analytic.moldable.occupancy import solve_occupancy_lp
from analytic.speedup import SpeedupTable

SMALL = SpeedupTable([1, 1.8, 2.5])
#: s_k = k (1 - 1.15e-11 (k - 1)) in floats: efficiencies 1.15e-11 apart, below the rounding of λ = s_k/k.
K = np.arange(1, 6)
NEARLY_LINEAR = SpeedupTable(K * (1 - 1.15e-11 * (K - 1)))
#: λ from 5e-324 (the least double) through the subnormals (< 2.2e-308) to the smallest normal number.
TINY_RATES = [5e-324, 1e-323, 1e-310, 2.2250738585072014e-308, 1e-300]


def exact_optimum(values, rate):
    """(y*, D*) of (P) in exact rationals, by enumerating its vertices; y* the first optimal vertex found."""
    s, lam, d = [Fraction(v) for v in values], Fraction(rate), len(values)
    vertices = []
    for i in range(1, d + 1):
        if i * lam <= s[i - 1]:                                   # y_i = λ/s_i alone, capacity slack or tight
            vertices.append({i: lam / s[i - 1]})
        for j in range(i + 1, d + 1):                             # s_i y_i + s_j y_j = λ, i y_i + j y_j = 1
            det = s[i - 1] * j - s[j - 1] * i
            if det != 0:
                yi, yj = (lam * j - s[j - 1]) / det, (s[i - 1] - lam * i) / det
                if yi >= 0 and yj >= 0:
                    vertices.append({i: yi, j: yj})
    best = min(vertices, key=lambda v: sum(v.values()))
    return [best.get(i, Fraction(0)) for i in range(1, d + 1)], sum(best.values()) / lam


def rounded(values):
    return [float(v) for v in values]


# -- arrival rates at the bottom of the double range ------------------------------------------------------


@pytest.mark.parametrize("lam", TINY_RATES)
def test_closed_form_at_tiny_rates(lam):
    """_certifying_multipliers raised OverflowError (Appendix B's nu = -1/(λ s_d) is -8e322 at λ = 5e-324). y* is
    the exact λ/2.5 rounded once (2e-324 rounds to 0), p* and D* keep every digit. Multipliers by hand: in case i
    the supporting line is horizontal at s_d, so (scaled by λ) nu = -1/s_d = -0.4 and theta0 = 0."""
    y, value = exact_optimum(SMALL.values, lam)
    opt = optimal_occupancy(SMALL, lam)
    assert opt.case == "i" and opt.support == (3,)
    assert opt.y.tolist() == pytest.approx(rounded(y), rel=1e-15, abs=0)
    assert opt.mean_response_time == pytest.approx(float(value), rel=1e-15, abs=0)
    assert float(value) == pytest.approx(0.4, rel=1e-15, abs=0)
    assert opt.p.tolist() == pytest.approx([0.0, 0.0, 1.0], rel=1e-15, abs=0)
    assert (opt.nu, opt.theta0) == pytest.approx((-0.4, 0.0), rel=1e-15, abs=0)


@pytest.mark.parametrize("solver", ["highs", "cvxpy"])
@pytest.mark.parametrize("lam", TINY_RATES)
def test_lp_at_tiny_rates(lam, solver):
    """occupancy_lp returned mean_response_time = 0 and nu = -inf at λ = 5e-324 (value * λ / λ underflowed). Reference: the exact
    vertices; multipliers as in the test above, theta_i = 1 + nu s_i + theta0 i = (0.6, 0.28, 0) by hand."""
    y, value = exact_optimum(SMALL.values, lam)
    lp = occupancy_lp(SMALL, lam, solver)
    assert lp.y.tolist() == pytest.approx(rounded(y), rel=1e-15, abs=0)
    assert lp.mean_response_time == pytest.approx(float(value), rel=1e-15, abs=0)
    assert (lp.nu, lp.theta0) == pytest.approx((-0.4, 0.0), rel=1e-15, abs=1e-300)
    assert lp.theta.tolist() == pytest.approx([0.6, 0.28, 0.0], rel=1e-15, abs=1e-16)


def test_kkt_residual_is_relative_to_the_rate():
    """At λ = 1e-310 y*_3 = 4e-311 is subnormal: its rounding, at most 2^-1075, bounds the rate violation
    |s_3 y_3 - λ|/λ by 2.5 * 2^-1075 / 1e-310 = 6.2e-14 (by hand; plus 1e-15 for the rounding of the sums in
    kkt_residual). At λ = 5e-324 y*_3 rounds to 0, which meets
    no part of the rate equality: violation |0 - λ|/λ = 1 exactly. Absolute violations (the former residual)
    were below 1e-309 at both, certifying nothing."""
    tiny = optimal_occupancy(SMALL, 1e-310)
    bound = float(Fraction(5, 2) * Fraction(1, 2 ** 1075) / Fraction(1e-310)) + 1e-15
    assert 0 <= kkt_residual(SMALL, 1e-310, tiny.y, tiny.nu, tiny.theta0) <= bound
    least = optimal_occupancy(SMALL, 5e-324)
    assert kkt_residual(SMALL, 5e-324, least.y, least.nu, least.theta0) == pytest.approx(1.0, rel=1e-15, abs=0)


def test_kkt_residual_of_a_candidate_beyond_the_double_range():
    """y_3 = 1 at λ = 5e-324 breaks the rate equality by a factor 5e323 (relative violation beyond 1.8e308): inf."""
    assert kkt_residual(SMALL, 5e-324, [0.0, 0.0, 1.0], -0.4, 0.0) == float("inf")


# -- near-ties: the case decided in exact rationals ----------------------------------------------------------


@pytest.mark.parametrize("k,support,issue,digits", [(5, (4, 5), 0.20000009654995, 5e-15),
                                                     (3, (2, 3), 0.33333386968, 5e-12)])
def test_nearly_linear_rate_at_a_rounded_efficiency(k, support, issue, digits):
    """λ = fl(s_k/k) lies above the exact s_k/k (by 2.2e-17 for k = 5, 3.7e-17 for k = 3), so the optimum is case iii
    on {k-1, k}; the float comparison said case i / ii, off by 4.8e-7 and 1.6e-6 relative (0.2000000000092 and
    0.333333333341). Reference: the exact vertices (and the issue's values to their printed digits)."""
    lam = float(NEARLY_LINEAR.values[k - 1] / k)
    y, value = exact_optimum(NEARLY_LINEAR.values, lam)
    assert float(value) == pytest.approx(issue, rel=0, abs=digits)          # half a unit of the last printed digit
    opt = optimal_occupancy(NEARLY_LINEAR, lam)
    assert (opt.case, opt.support) == ("iii", support)
    assert opt.mean_response_time == pytest.approx(float(value), rel=1e-15, abs=0)
    assert opt.y.tolist() == pytest.approx(rounded(y), rel=1e-15, abs=0)
    assert kkt_residual(NEARLY_LINEAR, lam, opt.y, opt.nu, opt.theta0) < 1e-15
    for solver in ("highs", "cvxpy"):
        lp = occupancy_lp(NEARLY_LINEAR, lam, solver)
        assert lp.mean_response_time == pytest.approx(float(value), rel=1e-15, abs=0)
        assert lp.y.tolist() == pytest.approx(rounded(y), rel=1e-15, abs=0)
        assert kkt_residual(NEARLY_LINEAR, lam, lp.y, lp.nu, lp.theta0) < 1e-15


def test_an_exact_tie_is_case_ii():
    """λ = 0.75 = s_2/2 exactly (1.5/2 in binary): case ii on {2}, y*_2 = 0.5 by hand."""
    opt = optimal_occupancy(SpeedupTable([1, 1.5, 1.75]), 0.75)
    assert (opt.case, opt.support) == ("ii", (2,))
    assert opt.y.tolist() == pytest.approx([0.0, 0.5, 0.0], rel=1e-15, abs=0)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(1e-6, 1.0), min_size=0, max_size=6),
       st.one_of(st.floats(5e-324, 1.0), st.sampled_from(TINY_RATES), st.integers(1, 7)))
def test_both_solutions_are_the_exact_optimum(increments, rate):
    """Any concave speed-up and λ anywhere in (0, 1], subnormals included, or λ = fl(s_i/i) (an integer i drawn),
    the rounded efficiencies where the float case decision failed: closed form and LP equal the exact optimum."""
    speedup = SpeedupTable(np.cumsum([1.0, *sorted(increments, reverse=True)]))
    lam = rate if isinstance(rate, float) else float(speedup.efficiency[min(rate, speedup.d) - 1])
    value = float(exact_optimum(speedup.values, lam)[1])
    assert optimal_occupancy(speedup, lam).mean_response_time == pytest.approx(value, rel=1e-15, abs=0)
    assert occupancy_lp(speedup, lam).mean_response_time == pytest.approx(value, rel=1e-15, abs=0)


# -- the LP's exact method -----------------------------------------------------------------------------------


def test_lp_starts_from_y1_when_the_solver_fails(monkeypatch):
    """A failing floating-point solver (Clarabel stops short near ties) no longer ends the solve: the exact method
    starts from y_1 = λ and reaches the exact optimum of the nearly linear case above; the label says so."""
    def failing(speeds, loads, bound):
        raise ConvergenceError("cvxpy (Clarabel) did not solve the occupancy LP: status infeasible_inaccurate")

    monkeypatch.setattr(occupancy, "_solve_cvxpy", failing)
    lam = float(NEARLY_LINEAR.values[2] / 3)
    lp = occupancy_lp(NEARLY_LINEAR, lam, "cvxpy")
    assert lp.solver.startswith("exact simplex (cvxpy (Clarabel) did not solve")
    assert lp.mean_response_time == pytest.approx(float(exact_optimum(NEARLY_LINEAR.values, lam)[1]), rel=1e-15, abs=0)


def test_loads_summing_to_one_only_in_floating_point():
    """0.4 + 0.6000000000000001 is 1.0 in floats but 1 + 1.1e-16 exactly (the float check of heterogeneous classes
    passes it): the capacity becomes the exact total load. By hand: s_ij < i for i > 1, so Σ i y >= Σ s y = Σ ρ_j
    with equality only on single servers: y = (0.4, 0 | 0.6000000000000001, 0), mean time Σ ρ_j / rate."""
    loads = np.array([0.4, 0.6000000000000001])
    y, value, *_ = solve_occupancy_lp([np.array([1.0, 1.5]), np.array([1.0, 1.8])], loads, 2.0, "highs")
    assert y.tolist() == pytest.approx([0.4, 0.0, 0.6000000000000001, 0.0], rel=1e-15, abs=0)
    assert value == pytest.approx(float((Fraction(0.4) + Fraction(0.6000000000000001)) / 2), rel=1e-15, abs=0)


@pytest.mark.parametrize("solver", ["highs", "cvxpy"])
def test_two_classes_with_a_subnormal_load(solver):
    """Loads 5e-324 and 0.3 (scaled by 0.3, the solvers see 1.6e-323, i.e. 0): capacity is slack (3 * 0.3/2.5 < 1), so
    each class runs on d = 3 servers (by hand): y = (0, 0, 5e-324/2.5 -> 0 | 0, 0, 0.12), mean time
    (5e-324 + 0.3)/(2.5 rate) rounded once."""
    speeds = [SMALL.values, SMALL.values]
    y, value, nu, theta0, _, _ = solve_occupancy_lp(speeds, np.array([5e-324, 0.3]), 0.5, solver)
    assert y.tolist() == pytest.approx([0, 0, 0, 0, 0, float(Fraction(0.3) / Fraction(2.5))], rel=1e-15, abs=0)
    assert value == pytest.approx(float((Fraction(5e-324) + Fraction(0.3)) / Fraction(2.5) / Fraction(0.5)), rel=1e-15, abs=0)
    assert nu.tolist() == pytest.approx([-0.4, -0.4], rel=1e-15, abs=0) and theta0 == 0


# -- arrival rates that are not doubles ----------------------------------------------------------------------


@pytest.mark.parametrize("lam,match", [
    (Fraction(1, 10 ** 400), r"must be at least 5e-324, the least positive double: it rounds to 0"),
    (Fraction(10 ** 400), r"\(P\) has no feasible point for λ > 1"),
    (10 ** 400, r"\(P\) has no feasible point for λ > 1"),
    (-10 ** 400, r"arrivals need a positive rate"),
])
def test_rates_beyond_the_double_range_are_named(lam, match):
    """Such a λ raised OverflowError (float(10**400)) or was called non-positive (a positive Fraction below 5e-324)."""
    for function in (optimal_occupancy, occupancy_lp):
        with pytest.raises(InvalidParameterError, match=r"^rate_per_server = .*" + match):
            function(SMALL, lam)


def test_a_rational_rate_is_rounded_once():
    """Fraction(1, 3) is read as the double nearest 1/3: the optimum for that double (exact vertices)."""
    value = float(exact_optimum(SMALL.values, float(Fraction(1, 3)))[1])
    assert optimal_occupancy(SMALL, Fraction(1, 3)).mean_response_time == pytest.approx(value, rel=1e-15, abs=0)


def test_the_removed_feasibility_tolerance_warns_for_one_release():
    # FEASIBILITY was public (in __all__) before the LP became exact: it stays readable, deprecated.
    from analytic.moldable import occupancy

    with pytest.warns(DeprecationWarning, match="FEASIBILITY is deprecated"):
        assert occupancy.FEASIBILITY == 1e-13
    with pytest.raises(AttributeError):
        occupancy.NO_SUCH_NAME  # noqa: B018
