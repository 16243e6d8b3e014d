"""Tests of analytic.hesrpt.closed_form: Theorems 2, 7 and 8 of Berg, Vesilo & Harchol-Balter, heSRPT.

References: the paper's formulas evaluated with mpmath at 50 digits, an mpmath simulation of heSRPT
departure by departure, and the exact (float) event engine of analytic.hesrpt.policies.
"""

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.errors import InvalidParameterError
from analytic.hesrpt import (
    flow_time,
    helrpt_allocation,
    hesrpt_allocation,
    hesrpt_flow_time,
    optimal_makespan,
    scale_free_constants,
    symbolic_check,
)

mpmath.mp.dps = 50

P_VALUES = (1e-6, 0.05, 0.3, 0.5, 0.9, 0.99, 1 - 1e-6)

#: Exponents over the whole of (0, 1), the hard ends included: p -> 0 (EQUI-like, c -> 1) and
#: p -> 1 (SRPT-like, c = 1/(1-p) up to 1e8, where the shares under- and overflow).
EXPONENTS = st.one_of(st.floats(0.01, 0.99), st.floats(1e-8, 0.01), st.integers(2, 8).map(lambda k: 1 - 10.0 ** -k))

#: Job sizes with ties (heSRPT ranks them) and a spread of six orders of magnitude.
SIZES = st.lists(st.one_of(st.sampled_from([1.0, 2.0]), st.floats(0.01, 1e4)), min_size=1, max_size=40)


def mp_omega(k, p):
    """ω*_k of Theorem 8 as printed, at 50 digits."""
    if k == 1:
        return mpmath.mpf(0)
    return 1 / ((mpmath.mpf(k) / (k - 1)) ** (1 / (1 - mpmath.mpf(p))) - 1)


def mp_theorem8(sizes, p, servers):
    """T* = (1/s(N)) Σ_k x_k [k s(1 + ω_k) - (k-1) s(ω_k)], sizes decreasing, as printed in Theorem 8."""
    p = mpmath.mpf(p)
    ranked = sorted((mpmath.mpf(float(x)) for x in sizes), reverse=True)
    total = mpmath.fsum(x * (k * (1 + mp_omega(k, p)) ** p - (k - 1) * mp_omega(k, p) ** p)
                        for k, x in enumerate(ranked, start=1))
    return total / mpmath.mpf(servers) ** p


def mp_hesrpt_simulation(sizes, p, servers):
    """Completion times under Theorem 7's allocation, phase by phase, in mpmath (independent of the
    package): with m jobs left, the i-th largest holds ((i/m)^c - ((i-1)/m)^c) N servers."""
    p = mpmath.mpf(p)
    c = 1 / (1 - p)
    remaining = {j: mpmath.mpf(float(x)) for j, x in enumerate(sizes)}
    clock, completion = mpmath.mpf(0), {}
    while remaining:
        ranked = sorted(remaining, key=lambda j: (-remaining[j], j))
        m = len(ranked)
        rate = {j: (mpmath.mpf(servers) * ((mpmath.mpf(i) / m) ** c - (mpmath.mpf(i - 1) / m) ** c)) ** p
                for i, j in enumerate(ranked, start=1)}
        first = min(ranked, key=lambda j: remaining[j] / rate[j])
        step = remaining[first] / rate[first]
        clock += step
        for j in ranked:
            remaining[j] -= rate[j] * step
        completion[first] = clock
        del remaining[first]
    return [completion[j] for j in range(len(sizes))]


@pytest.mark.parametrize("p", P_VALUES)
def test_scale_free_constants_match_the_printed_formula_at_50_digits(p):
    omega = scale_free_constants(40, p)
    reference = np.array([float(mp_omega(k, p)) for k in range(1, 41)])
    assert omega[0] == 0.0
    np.testing.assert_allclose(omega[1:], reference[1:], rtol=1e-13)
    representable = omega > 1e-300  # for p -> 1 the constants underflow, as they should
    assert np.all(np.diff(omega[representable]) > 0)  # Lemma 3


@pytest.mark.parametrize("p", P_VALUES)
@pytest.mark.parametrize("m", (60, 207, 2000))
def test_allocation_matches_theorem7_at_50_digits(p, m):
    """Each share to 2ε(1 + |log θ|), the rounding of its exponent, down to 1e-300 (below: 0 or tiny)."""
    c = 1 / (1 - mpmath.mpf(p))
    reference = [(mpmath.mpf(i) / m) ** c - (mpmath.mpf(i - 1) / m) ** c for i in range(1, m + 1)]
    tolerance = np.array([2.2e-16 * 2 * (1 + abs(float(mpmath.log(r)))) for r in reference])
    theta, exact = hesrpt_allocation(m, p), np.array([float(r) for r in reference])
    normal = exact > 1e-300
    assert np.all(np.abs(theta[normal] / exact[normal] - 1) <= tolerance[normal])
    assert np.all(theta[~normal] <= 1e-300)


def test_section1_example_gives_75_and_25_percent():
    """Section 1: two equal jobs, s(k) = k^0.5: 75% to one job, 25% to the other (paper's numbers)."""
    np.testing.assert_allclose(hesrpt_allocation(2, 0.5), [0.25, 0.75], rtol=1e-15)


@settings(max_examples=100, deadline=None)
@given(m=st.integers(1, 2000), p=EXPONENTS)
def test_allocation_is_a_distribution_increasing_towards_small_jobs(m, p):
    theta = hesrpt_allocation(m, p)
    assert theta.shape == (m,)
    assert abs(theta.sum() - 1.0) < 1e-12
    assert np.all(theta >= 0) and np.all(np.diff(theta) >= -1e-16)
    # Definition 1: (θ_1 + ... + θ_(k-1)) / θ_k = ω*_k where θ_k and the prefix sum are normal numbers
    # (for p -> 1 the first shares underflow, as documented); the prefix is summed to ~m ulps
    omega = scale_free_constants(m, p)
    ok = (theta > 1e-250) & (omega * theta > 1e-290)
    prefix = np.concatenate([[0.0], np.cumsum(theta)[:-1]])
    np.testing.assert_allclose((prefix / np.where(ok, theta, 1.0))[ok], omega[ok], rtol=1e-12, atol=0)


@pytest.mark.parametrize("p", P_VALUES)
def test_total_flow_time_matches_theorem8_at_50_digits(p):
    sizes = 1.0 + np.random.default_rng(5).pareto(1.5, 300)
    result = hesrpt_flow_time(sizes, p, 1e6)
    assert result.total == pytest.approx(float(mp_theorem8(sizes, p, 1e6)), rel=1e-13, abs=0)
    assert result.mean == pytest.approx(result.total / 300, rel=1e-15, abs=0)


@pytest.mark.parametrize("p", (0.05, 0.5, 0.99, 0.9999))
def test_completion_times_match_an_mpmath_simulation(p):
    sizes = np.round(1.0 + np.random.default_rng(7).pareto(1.5, 25), 3)
    sizes[3] = sizes[4]  # a tie
    result = hesrpt_flow_time(sizes, p, 1000.0)
    reference = np.array([float(t) for t in mp_hesrpt_simulation(sizes, p, 1000.0)])
    np.testing.assert_allclose(result.completion_times, reference, rtol=1e-12)
    assert result.total == pytest.approx(reference.sum(), rel=1e-13, abs=0)


@pytest.mark.parametrize("p", (0.05, 0.5, 0.99))
def test_completion_times_match_the_exact_event_engine(p):
    sizes = 1.0 + np.random.default_rng(8).pareto(1.5, 500)
    closed = hesrpt_flow_time(sizes, p, 1e6)
    evaluated = flow_time(sizes, "hesrpt", p, 1e6)
    np.testing.assert_allclose(closed.completion_times, evaluated.completion_times, rtol=1e-11)


def test_a_hundred_thousand_jobs_stay_finite_and_consistent():
    sizes = 1.0 + np.random.default_rng(9).pareto(1.5, 100_000)
    for p in (1e-3, 0.5, 0.999):
        result = hesrpt_flow_time(sizes, p, 1e6)
        assert np.all(np.isfinite(result.completion_times)) and np.all(result.completion_times > 0)
        assert result.completion_times.sum() == pytest.approx(result.total, rel=1e-10, abs=0)
        order = np.argsort(sizes)
        assert np.all(np.diff(result.completion_times[order]) >= 0)  # shortest job first


@settings(max_examples=80, deadline=None)
@given(sizes=SIZES, p=EXPONENTS, servers=st.floats(0.5, 1e7), scale=st.floats(0.1, 10.0))
def test_flow_time_scales_and_ignores_the_order_of_the_sizes(sizes, p, servers, scale):
    base = hesrpt_flow_time(sizes, p, servers)
    assert hesrpt_flow_time(np.array(sizes) * scale, p, servers).total == pytest.approx(scale * base.total, rel=1e-12, abs=0)
    assert hesrpt_flow_time(sizes, p, 2 * servers).total == pytest.approx(base.total / 2 ** p, rel=1e-12, abs=0)
    assert hesrpt_flow_time(sizes[::-1], p, servers).total == pytest.approx(base.total, rel=1e-12, abs=0)
    bigger = list(sizes)
    bigger[0] *= 1.5
    assert hesrpt_flow_time(bigger, p, servers).total > base.total


def test_helrpt_allocation_is_proportional_to_size_power():
    gamma = helrpt_allocation([1.0, 2.0, 4.0], 0.5)
    np.testing.assert_allclose(gamma, np.array([1.0, 4.0, 16.0]) / 21.0, rtol=1e-15)
    huge = helrpt_allocation([1e300, 1.0], 0.01)  # (1e300)^100 would overflow unscaled; (1e-300)^100 underflows
    np.testing.assert_array_equal(huge, [1.0, 0.0])


@pytest.mark.parametrize("servers", (1.0, 7.0, 1e6))
def test_optimal_makespan_with_servers_equals_evaluated_helrpt(servers):
    """Theorem 2 with N servers, against heLRPT evaluated exactly: every job ends at ||x||_(1/p)/N^p."""
    sizes = np.array([3.0, 1.0, 2.0, 0.5, 2.0])
    for p in (0.1, 0.5, 0.9):
        evaluated = flow_time(sizes, "helrpt", p, servers).completion_times
        np.testing.assert_allclose(evaluated, optimal_makespan(sizes, p, servers), rtol=1e-12)
        norm = np.sum(sizes ** (1 / p)) ** p
        assert optimal_makespan(sizes, p, servers) == pytest.approx(norm / servers ** p, rel=1e-14, abs=0)


def test_printed_makespan_formula_holds_only_for_one_server():
    """The paper's T*_max = ||X||_(1/p) lacks the factor 1/s(N): it is the N = 1 value."""
    sizes, p = [3.0, 4.0], 0.5
    assert optimal_makespan(sizes, p, 1.0) == pytest.approx(5.0, rel=1e-15, abs=0)
    assert optimal_makespan(sizes, p, 100.0) == pytest.approx(0.5, rel=1e-15, abs=0)


@settings(max_examples=100, deadline=None)
@given(sizes=st.lists(st.floats(0.1, 100.0), min_size=2, max_size=6), p=st.floats(0.05, 0.95),
       noise=st.lists(st.floats(-1.0, 1.0), min_size=6, max_size=6), scale=st.sampled_from([1.0, 1e-3, 1e-6, 1e-9]))
def test_no_constant_allocation_beats_the_optimal_makespan(sizes, p, noise, scale):
    """Constant shares anywhere (scale 1) or within a relative 1e-3 .. 1e-9 of the optimum
    x_i^(1/p)/Σ x_j^(1/p) (written out here), where the makespan exceeds the optimum by ~scale^2."""
    x = np.array(sizes)
    best = x ** (1 / p) / np.sum(x ** (1 / p))
    shares = best * np.exp(scale * np.array(noise[:x.size])) if scale < 1 else np.exp(np.array(noise[:x.size]))
    shares /= shares.sum()
    makespan = np.max(x / (shares * 10.0) ** p)
    assert makespan >= optimal_makespan(sizes, p, 10.0) * (1 - 1e-14)


@pytest.mark.parametrize("m", (1, 2, 4))
def test_symbolic_check_reduces_every_residual_to_zero(m):
    check = symbolic_check(m)
    assert check.holds
    assert check.sum_minus_one == 0
    assert len(check.first_order_conditions) == m - 1
    assert all(r == 0 for r in (*check.first_order_conditions, *check.scale_free_ratios, *check.coefficients))


# -- the ends of the double range -------------------------------------------------------------------------

LARGEST, SMALLEST_NORMAL, SUBNORMAL_UNIT = 1.7976931348623157e308, 2.2250738585072014e-308, 5e-324


def assert_nearest_double(value, exact, rel=1e-14):
    """``value`` is ``exact`` (an mpmath number) as a double: within ``rel`` when normal, and below 2.2e-308 within
    that plus one unit of the subnormal grid (5e-324; 0 below half a unit), inf beyond the largest double."""
    if exact > LARGEST * (1 + 2.0 ** -53):
        assert value == float("inf")
    elif exact >= SMALLEST_NORMAL:
        assert value == pytest.approx(float(exact), rel=rel, abs=0)
    else:
        assert abs(mpmath.mpf(value) - exact) <= SUBNORMAL_UNIT + rel * exact


EDGES = [
    ([1e300, 1.7e308, 1e308], 0.05, 10.0),     # the issue: mean 8.2e307 was inf (the total, 2.5e308, is beyond the range)
    ([1.7e308, 1.7e308, 1.7e308], 0.5, 10.0),  # mean 8.9e307, total 2.7e308
    ([1.7e308, 1e308], 1e-6, 1.0),             # p -> 0: completion times 1.7e308 and 1.0e308 next to the largest double
    ([1.7e308, 1e308], 1 - 1e-6, 1.0),         # p -> 1: the larger job finishes at 2.7e308 (inf), the other at 1.0e308
    ([1e-300, 1.7e308], 0.5, 1e-300),          # sizes and completion times 450 orders of magnitude apart
    ([1e308, 1e-308, 1.0], 0.9, 3.0),
    ([1.0, 2.0], 0.5, 5e-324),                 # N^-p = 4.5e161 from a subnormal N
    ([1.0, 2.0], 1 - 1e-3, 5e-324),            # N^p = 4.9e-324^0.999, subnormal
    ([1.0, 2.0], 0.5, 1.7e308),
    ([5e-324, 1e-323], 0.5, 1.0),              # subnormal sizes and times: rounded to the subnormal grid
    ([1e-320, 2e-320], 0.5, 1e300),            # times of 3.7e-470: 0
    ([3.0, 1e-310], 0.3, 1e-5),
    ([1e-300, 1e300, 1e-310, 1e100, 1e-100], 0.7, 1e3),   # three blocks of the scaled suffix sums
]


@pytest.mark.parametrize("sizes,p,servers", EDGES)
def test_flow_times_at_the_ends_of_the_double_range(sizes, p, servers):
    """Every field of Theorem 8 that is a double is returned as one (hesrpt_flow_time([1e300, 1.7e308, 1e308], 0.05, 10)
    had mean inf; sizes near 1.8e308 overflowed in the sum, servers of 5e-324 lost digits in p log N). References:
    Theorem 8 as printed and the mpmath simulation of heSRPT, at 50 digits (their exponent range is unbounded)."""
    result = hesrpt_flow_time(sizes, p, servers)
    total = mp_theorem8(sizes, p, servers)
    assert_nearest_double(result.total, total)
    assert_nearest_double(result.mean, total / len(sizes))
    for value, exact in zip(result.completion_times, mp_hesrpt_simulation(sizes, p, servers), strict=True):
        assert_nearest_double(value, exact)


def test_the_issue_mean_is_finite_while_the_total_is_beyond_the_range():
    """The issue's numbers, from Theorem 8 at 50 digits: total 2.47e308 > 1.8e308 (inf), mean 8.23e307 (a double)."""
    result = hesrpt_flow_time([1e300, 1.7e308, 1e308], 0.05, 10.0)
    total = mp_theorem8([1e300, 1.7e308, 1e308], 0.05, 10.0)
    assert total > LARGEST and result.total == float("inf")
    assert result.mean == pytest.approx(float(total / 3), rel=1e-14, abs=0)
    assert result.mean == pytest.approx(8.2e307, rel=0.01, abs=0)


def mp_makespan(sizes, p, servers):
    """||x||_(1/p) / N^p (Theorem 2 with N servers) at 50 digits."""
    p = mpmath.mpf(p)
    return mpmath.fsum(mpmath.mpf(float(x)) ** (1 / p) for x in sizes) ** p / mpmath.mpf(servers) ** p


@pytest.mark.parametrize("sizes,p,servers", EDGES)
def test_makespan_at_the_ends_of_the_double_range(sizes, p, servers):
    """optimal_makespan([1.7e308] * 3, 0.5, 10) was inf (top * Σ^p overflowed before the division by N^p) where the
    makespan is 9.3e307. Reference: the norm at 50 digits."""
    assert_nearest_double(optimal_makespan(sizes, p, servers), mp_makespan(sizes, p, servers))


@pytest.mark.parametrize("p", [1 - 1 / 1030, 1 - 1 / 1060, 1 - 1 / 1070])
def test_scale_free_constants_reach_the_subnormals(p):
    """1/expm1(L) overflowed to inf and returned 0 where ω*_k is a subnormal double (8.1e-320 at k = 2, c = 1060).
    Reference: the printed formula at 50 digits, within the documented 3ε(1 + |log ω|) where normal."""
    omega = scale_free_constants(4, p)
    for k in range(2, 5):
        exact = mp_omega(k, p)
        assert_nearest_double(omega[k - 1], exact, rel=3 * 2.2e-16 * (1 + abs(float(mpmath.log(exact)))))


@pytest.mark.parametrize("call,match", [
    (lambda: hesrpt_allocation(0, 0.5), "m = 0: must be a positive integer"),
    (lambda: hesrpt_allocation(2.5, 0.5), "m = 2.5"),
    (lambda: hesrpt_allocation(True, 0.5), "m = True"),
    (lambda: hesrpt_allocation(3, 1.0), r"exponent = 1: must lie in the open interval \(0, 1\)"),
    (lambda: scale_free_constants(3, 0.0), "exponent = 0"),
    (lambda: scale_free_constants(3, float("nan")), "exponent = nan"),
    (lambda: hesrpt_flow_time([], 0.5, 1), "sizes = .*non-empty 1-D"),
    (lambda: hesrpt_flow_time([[1.0, 2.0]], 0.5, 1), "non-empty 1-D"),
    (lambda: hesrpt_flow_time([1.0, 0.0], 0.5, 1), r"finite and > 0 \(found 0\)"),
    (lambda: hesrpt_flow_time([1.0, float("inf")], 0.5, 1), "found inf"),
    (lambda: hesrpt_flow_time([1.0], 0.5, 0), "servers = 0: must be positive and finite"),
    (lambda: hesrpt_flow_time([1.0], 0.5, float("inf")), "servers = inf"),
    (lambda: helrpt_allocation([1.0, -2.0], 0.5), "found -2"),
    (lambda: optimal_makespan([1.0], -0.5, 1), "exponent = -0.5"),
    (lambda: symbolic_check(13), "m = 13: must be at most 12"),
])
def test_invalid_input_raises_a_named_error(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


def test_repr_shows_the_completion_times():
    """Two unit jobs, p = 1/2, N = 10 (Theorem 8's example): q = 1, c = 2 and D_j = N^-p (j^c - (j-1)^c)^-p,
    so job 0 finishes at D_1 + D_2 = 1/√10 + 1/√30 and job 1 at 2 D_2 = 2/√30, by hand."""
    text = repr(hesrpt_flow_time([1.0, 1.0], 0.5, 10))
    first, second = 1 / math.sqrt(10) + 1 / math.sqrt(30), 2 / math.sqrt(30)
    assert f"completion_times=[{first:.6f}, {second:.6f}]" in text
    assert "total=0.863950323522" in text


@pytest.mark.parametrize("call,match", [
    (lambda: __import__("analytic.hesrpt", fromlist=["x"]).hesrpt_flow_time([1.0, 2 + 1j], 0.5, 10),
     r"^sizes = \[1.0, \(2\+1j\)\]: must be a non-empty 1-D sequence of real numbers \(job sizes\)$"),
    (lambda: __import__("analytic.hesrpt", fromlist=["x"]).hesrpt_allocation(10**18, 0.5),
     r"^heSRPT's allocation to m jobs needs 1,000,000,000,000,000,000 states and about"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()


def test_equal_sizes_finish_in_one_order_across_heSRPT():
    """hesrpt_flow_time and flow_time(..., "hesrpt", ...) ordered two equal jobs' completions oppositely. The rule:
    of equal sizes, the one listed first ranks as the larger and finishes later. References: the closed form
    (Theorem 8), the event-by-event evaluation and the optimization of optimal_allocation, three computations."""
    from analytic.hesrpt import flow_time, hesrpt_flow_time, optimal_allocation

    sizes = [1.0, 1.0, 2.0, 1.0]
    closed = hesrpt_flow_time(sizes, 0.5, 10).completion_times
    assert closed[0] > closed[1] > closed[3]
    assert flow_time(sizes, "hesrpt", 0.5, 10).completion_times == pytest.approx(closed, rel=1e-12, abs=1e-15)
    assert optimal_allocation(sizes, 0.5, 10).completion_times == pytest.approx(closed, rel=1e-9, abs=1e-12)
