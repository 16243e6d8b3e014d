"""The numbers behind the newer heSRPT rows of ``analytic reproduce``, each recomputed a second way.

Berg, Vesilo & Harchol-Balter, *heSRPT: Optimal Parallel Scheduling of Jobs With Known Sizes*. The rows
(``analytic/hesrpt/reproduction.py``) check Theorems 1, 3, 4, 6, Lemmas 1-5, Section 4.1, Figure 3 and
the abstract's "often by much more"; each test names its reference in its docstring: a closed form
worked by hand, exact rationals, sympy, or a route through the package different from the row's.
"""

from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy

from analytic.hesrpt import (
    FIGURE4_EXPONENTS,
    flow_time,
    hesrpt_allocation,
    hesrpt_flow_time,
    optimal_allocation,
    pareto_sizes,
    scale_free_constants,
)
from analytic.hesrpt.reproduction import (
    _amdahl_curve,
    _linear_order_lp,
    _order_optimum,
    _power_curve,
    _scale_free_gap,
    _scale_free_policy_total,
)
from analytic.reproduce import collect
from analytic.speedup import SpeedupCurve

ROWS = ("_theorem1_makespan_rows", "_theorem3_constant_rows", "_theorem4_scale_free_rows", "_lemmas_1_3_4_5_rows",
        "_section41_srpt_rows", "_figure3_example_rows")


@pytest.mark.parametrize("name", ROWS)
def test_new_rows_hold(name):
    """Every new row comes out as documented (all agree or hold)."""
    (outcome,) = collect(name)
    assert outcome.passed and all(row.expect_agreement for row in outcome.rows)


@pytest.mark.parametrize("sizes,p,servers", [([3.0, 1.0, 2.0, 0.5], 0.6, 10.0), ([5.0, 0.2, 1.0], 0.3, 64.0)])
def test_theorem1_all_jobs_end_together_at_the_norm_over_s_of_n(sizes, p, servers):
    """Thm 1: the makespan-minimizing phases (SLSQP) leave no time after the first completion, and the makespan is
    ||X||_(1/p) / N^p (Theorem 2 with the factor 1/s(N); reference: the norm in mpmath at 50 digits)."""
    with mpmath.workdps(50):
        norm = float(mpmath.fsum(mpmath.mpf(x) ** (1 / mpmath.mpf(p)) for x in sizes) ** mpmath.mpf(p)
                     / mpmath.mpf(servers) ** mpmath.mpf(p))
    makespan, _, durations = _order_optimum(sizes, list(np.argsort(sizes)), _power_curve(p), servers,
                                            weights=np.ones(len(sizes)))
    assert makespan == pytest.approx(norm, rel=1e-9, abs=0)
    assert durations[1:].max() < 1e-6 * makespan
    ends = flow_time(sizes, "helrpt", p, servers).completion_times
    assert ends == pytest.approx(np.full(len(sizes), norm), rel=1e-12, abs=0)


def test_theorem3_two_jobs_amdahl_by_nelder_mead():
    """Thm 3, Section 1's Amdahl pair (f = 0.9, N = 10): over (a, b), the first-to-finish job's shares in the two halves
    of the first phase, Nelder-Mead finds a = b = 0.7107 and optimal_allocation's total (reference: a different
    optimizer on a two-variable problem written out here)."""
    s = _amdahl_curve(0.9)[0]

    def total(v):
        a, b = np.clip(v, 1e-9, 1 - 1e-9)
        half = 1.0 / (s(10 * a) + s(10 * b))          # each half lasts `half`: the small job does 1 unit of work
        left = 1.0 - half * (s(10 * (1 - a)) + s(10 * (1 - b)))
        return 2 * 2 * half + left / s(10.0)

    from scipy.optimize import minimize

    best = minimize(total, [0.5, 0.9], method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-14})
    optimum = optimal_allocation([1.0, 1.0], SpeedupCurve.amdahl(0.9), 10.0)
    assert best.x == pytest.approx([0.7107, 0.7107], abs=1e-4)
    assert best.fun == pytest.approx(optimum.total, rel=1e-10, abs=0)


def test_theorem3_power_matches_theorem8():
    """Thm 3 row for k^0.5: the optimum with free half-phase shares equals Theorem 8's T* (reference: the closed form)."""
    value, theta, _ = _order_optimum([3.0, 2.0, 1.0], [2, 1, 0], _power_curve(0.5), 10.0, halves=True)
    assert value == pytest.approx(hesrpt_flow_time([3.0, 2.0, 1.0], 0.5, 10.0).total, rel=1e-10, abs=0)
    assert theta[0, 0] == pytest.approx([5 / 9, 3 / 9, 1 / 9], abs=1e-6)


def test_theorem4_shortest_first_ratios_are_one_minus_power():
    """Thm 4 for shortest first: θ_(c_i)(t')/Σ_(j<=i) θ_(c_j)(t') = 1 - ((i-1)/i)^2 at p = 1/2 in every phase
    (reference: Theorem 7 by hand, θ_i = (2i - 1)/m^2)."""
    _, theta, _ = _order_optimum([4.0, 3.0, 2.0, 1.0], [3, 2, 1, 0], _power_curve(0.5), 10.0)
    for i in range(2, 5):
        for phase in range(4 - i + 1):
            row = theta[phase, 0]
            assert row[4 - i] / row[4 - i:].sum() == pytest.approx(1 - ((i - 1) / i) ** 2, abs=1e-6)


def test_theorem4_longest_first_survives_a_second_solve():
    """Thm 4 for sizes 3, 2.8, 2.7 completed longest first: solving again with every phase cut in halves (a larger
    problem) gives the same optimum and shares, which are heSRPT's by rank in that order (reference: Theorem 7 by hand,
    5/9, 3/9, 1/9 then 3/4, 1/4)."""
    sizes, order = [3.0, 2.8, 2.7], [0, 1, 2]
    value, _, _ = _order_optimum(sizes, order, _power_curve(0.5), 10.0)
    again, halves, durations = _order_optimum(sizes, order, _power_curve(0.5), 10.0, halves=True)
    assert again == pytest.approx(value, rel=1e-9, abs=0)
    assert halves[0, 0] == pytest.approx([5 / 9, 3 / 9, 1 / 9], abs=1e-5)
    assert halves[1, 1, 1:] == pytest.approx([3 / 4, 1 / 4], abs=1e-5)
    assert _scale_free_gap(halves[:, :1], durations) < 1e-5
    assert value > hesrpt_flow_time(sizes, 0.5, 10.0).total      # the order costs: above heSRPT's optimum


def test_lemma2_by_the_event_engine():
    """Lemma 2: the scale-free policy ω = (0, 0.4, 1.5, 2) on sizes 4, 3, 2, 1, evaluated by flow_time with a
    callable (floats, departure by departure), against the mpmath phase-by-phase total and Lemma 2's expression."""
    omega = [0.0, 0.4, 1.5, 2.0]

    def shares(m):
        theta, below = np.empty(m), 1.0
        for i in range(m, 0, -1):
            theta[i - 1] = below / (1 + omega[i - 1])
            below -= theta[i - 1]
        return theta

    engine = flow_time([4.0, 3.0, 2.0, 1.0], lambda x: shares(x.size)[::-1], 0.5, 10.0).total
    with mpmath.workdps(50):
        phases = float(_scale_free_policy_total([4.0, 3.0, 2.0, 1.0], [mpmath.mpf(w) for w in omega], mpmath.mpf(0.5),
                                                10.0))
    formula = sum(x * (k * (1 + w) ** 0.5 - (k - 1) * w ** 0.5)
                  for k, (x, w) in enumerate(zip([4, 3, 2, 1], omega, strict=True), 1))
    assert engine == pytest.approx(phases, rel=1e-13, abs=0)
    assert engine == pytest.approx(formula / 10 ** 0.5, rel=1e-13, abs=0)


def test_lemma2_longest_first_is_heSRPT_shares_in_that_order():
    """Lemma 2 row: the optimum for sizes 3, 2.8, 2.7 completed longest first is heSRPT's shares applied in that
    order (reference: that policy evaluated phase by phase in mpmath, 4.50876)."""
    value, _, _ = _order_optimum([3.0, 2.8, 2.7], [0, 1, 2], _power_curve(0.5), 10.0)
    with mpmath.workdps(50):
        omega = [mpmath.mpf(0), mpmath.mpf(1) / 3, mpmath.mpf(4) / 5]     # ω*_k at p = 1/2: 1/((k/(k-1))^2 - 1)
        reference = float(_scale_free_policy_total([2.7, 2.8, 3.0], omega, mpmath.mpf(0.5), 10.0))
    assert value == pytest.approx(reference, rel=1e-9, abs=0)
    assert reference == pytest.approx(4.50876, abs=1e-5)


def test_theorem6_every_set_gets_theorem7_shares():
    """Thm 6: each of the row's three sets gets (5/9, 3/9, 1/9) in its first phase (reference: Theorem 7 by hand)."""
    for sizes in ([3.0, 2.0, 1.0], [100.0, 1.5, 1.0], [1.01, 1.005, 1.0]):
        theta = _order_optimum(sizes, np.argsort(sizes), _power_curve(0.5), 10.0)[1]
        assert theta[0, 0] == pytest.approx([5 / 9, 3 / 9, 1 / 9], abs=1e-5)


def test_lemma1_is_a_system_with_fewer_servers():
    """Lemma 1: 70 % of the servers used by heSRPT's shares is heSRPT on 0.7 N servers (s(0.7 N) = 0.7^p s(N); reference:
    the built-in policy on 70 servers)."""
    sizes = [3.0, 1.0, 2.0, 0.5, 1.5]
    reduced = flow_time(sizes, lambda x: 0.7 * hesrpt_allocation(x.size, 0.5)[::-1], 0.5, 100.0).completion_times
    fewer = flow_time(sizes, "hesrpt", 0.5, 70.0).completion_times
    assert reduced == pytest.approx(fewer, rel=1e-12, abs=0)


def test_lemmas_3_4_5_monotone_in_floats():
    """Lemmas 3-5 on a wider range in double precision (reference: the package's closed forms, not mpmath): ω*_k,
    θ*_i and Δ(k) = (k^c - (k-1)^c)^(1-p) increase, k up to 5000."""
    for p in (0.05, 0.3, 0.5, 0.9):
        assert np.all(np.diff(scale_free_constants(5000, p)) > 0)
        assert np.all(np.diff(hesrpt_allocation(500, p)) > 0)
        k, c = np.arange(1, 5001, dtype=float), 1 / (1 - p)
        assert np.all(np.diff((k ** c - (k - 1) ** c) ** (1 - p)) > 0)


def test_lemma5_printed_derivative_symbolically():
    """Lemma 5's printed derivative of (k^c - (k-1)^c)^(1-p) is exact (sympy, p = 1/2, 1/3, 3/4)."""
    k = sympy.symbols("k", positive=True)
    for p in (sympy.Rational(1, 2), sympy.Rational(1, 3), sympy.Rational(3, 4)):
        c = 1 / (1 - p)
        delta = (k ** c - (k - 1) ** c) ** (1 - p)
        printed = (1 - p) * (k ** c - (k - 1) ** c) ** (-p) * c * (k ** (c - 1) - (k - 1) ** (c - 1))
        assert sympy.simplify(sympy.diff(delta, k) - printed) == 0


def test_section41_srpt_total_and_the_capped_lp_by_hand():
    """Sec. 4.1, sizes 4, 1, 3, 2 on N = 10 with s(k) = k: SRPT's total is (4·1 + 3·2 + 2·3 + 1·4)/10 = 2; with the
    smallest job held to 90 % at first the best is 4/9 + 3·17/90 + 2·3/10 + 4/10 = 181/90 (hand: the spare 10 % goes to
    the next smallest job)."""
    sizes = np.array([4.0, 1.0, 3.0, 2.0])
    assert _linear_order_lp(sizes, [1, 3, 2, 0], 10.0) == pytest.approx(2.0, rel=1e-9, abs=0)
    assert flow_time(sizes, "srpt", lambda k: k, 10.0).total == pytest.approx(2.0, rel=1e-12, abs=0)
    assert _linear_order_lp(sizes, [1, 3, 2, 0], 10.0, cap=0.9) == pytest.approx(181 / 90, rel=1e-9, abs=0)
    # the order 4, 1, 3, 2 (s linear: one job at a time): completions 0.4, 0.5, 0.8, 1.0
    assert _linear_order_lp(sizes, [0, 1, 2, 3], 10.0) == pytest.approx(2.7, rel=1e-9, abs=0)


def test_figure3_shares_for_any_three_sizes():
    """Fig. 3: for random sizes too, heSRPT's recorded shares are (2i - 1)/m^2 by rank (reference: exact rationals)."""
    sizes = np.random.default_rng(5).uniform(0.5, 9.0, 3)
    allocations = flow_time(sizes, "hesrpt", 0.5, 500, record=True).trajectory.allocations
    ranked = np.argsort(sizes)
    for t, m in enumerate((3, 2, 1)):
        expected = [float(Fraction(2 * (m - r) - 1, m * m)) for r in range(m)]
        assert allocations[t][ranked][t:] == pytest.approx(expected, abs=1e-15)


def test_much_more_counts_from_closed_forms():
    """Abstract, 'often by much more': SRPT and EQUI over heSRPT on Figure 4's 10 sets (pareto_sizes seeds 0-9, M = 500,
    N = 1e6), recomputed from SRPT's and EQUI's completion times written out and Theorem 8: 6 of 10 (p, competitor) cells
    above 1.3, 3 of 10 at least 2."""
    sets = [np.sort(pareto_sizes(500, 1.5, seed)) for seed in range(10)]
    cells = []
    for p in FIGURE4_EXPONENTS:
        srpt = [np.cumsum(y).mean() / 1e6 ** p for y in sets]
        equi = [np.cumsum(np.diff(y, prepend=0.0) / (1e6 / np.arange(500, 0, -1)) ** p).mean() for y in sets]
        optimum = np.median([hesrpt_flow_time(y, p, 1e6).mean for y in sets])
        cells += [np.median(srpt) / optimum, np.median(equi) / optimum]
    cells = np.array(cells)
    assert int((cells > 1.3).sum()) == 6 and int((cells >= 2).sum()) == 3
