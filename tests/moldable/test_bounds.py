"""Tests of analytic.moldable.bounds: λ(n), the regimes and the Stein bounds of Section 5.

References: λ(n) and the bounds (19), (31), (33), (34) transcribed from the paper and evaluated in
mpmath at 50 digits; the exact loss chain (analytic.moldable.greedy_metrics) for the check that
the bounds hold at finite n.
"""

import mpmath
import numpy as np
import pytest

from analytic.errors import InvalidParameterError
from analytic.moldable import greedy_metrics, optimal_occupancy, stein_bounds, traffic, traffic_regime
from analytic.speedup import SpeedupCurve, SpeedupTable

mpmath.mp.dps = 50
SUBLINEAR = SpeedupTable([1, 1.8, 2.5, 3, 3.4])


def test_traffic_matches_mpmath_and_broadcasts():
    n = np.array([10, 4000, 1e9])
    for alpha, beta in [(0, 0.2), (0.5, 0.1), (2 / 3, 0.1), (1.5, 3.0)]:
        exact = [float(1 - mpmath.mpf(beta) * mpmath.mpf(k) ** (-mpmath.mpf(alpha))) for k in n]
        assert traffic(n, alpha, beta) == pytest.approx(exact, rel=1e-15, abs=0)
    assert isinstance(traffic(100, 0.5, 0.1), float)


@pytest.mark.parametrize("alpha,name", [(0, "mean-field"), (0.25, "sub-Halfin-Whitt"), (0.5, "Halfin-Whitt"),
                                        (2 / 3, "super-Halfin-Whitt"), (1, "super-NDS"), (3, "super-NDS")])
def test_regime_names(alpha, name):
    assert traffic_regime(alpha, 0.1) == name


@pytest.mark.parametrize("call,match", [
    (lambda: traffic(10, -1, 0.1), r"alpha = -1: must be finite and >= 0"),
    (lambda: traffic(10, 0.5, 0), r"beta = 0: must be finite and > 0"),
    (lambda: traffic(0.5, 0.5, 0.1), r"n = 0.5: must be finite and >= 1"),
    (lambda: traffic(4, 0.5, 2.0), r"beta = 2: must satisfy β n\^\(-α\) < 1 so that λ\(n\) > 0 \(n = 4, α = 0.5\)"),
    (lambda: traffic_regime(0, 1.5), r"beta = 1.5: must lie in \(0, 1\) in the mean-field regime"),
    (lambda: stein_bounds(SUBLINEAR, 100, 0.5, 0.1, delta=0.5), r"delta = 0.5: must lie in \(0, 1 - λ\) = \(0, 0.01\)"),
    (lambda: stein_bounds(SUBLINEAR, 4, 0.5, 0.1), r"n = 4: must be an integer >= 5 \(at least d = 5\)"),
])
def test_errors(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


def bounds_in_mpmath(speedup, n, alpha, beta, delta):
    """(19), the distance bound of the proof of Theorem 2, (31), (33) and (34), in mpmath."""
    n, beta, d = mpmath.mpf(n), mpmath.mpf(beta), speedup.d
    lam = 1 - beta * n ** (-mpmath.mpf(alpha))
    delta = mpmath.mpf(delta)
    opt = optimal_occupancy(speedup, float(lam))
    rhs = (1 + 2 * d) / n
    if len(opt.support) == 2:
        gap = mpmath.mpf(speedup.values[opt.i1 - 1]) / opt.i1 - mpmath.mpf(speedup.values[opt.i2 - 1]) / opt.i2
        rhs += 2 * d / n * (1 / lam + 1 / gap) + 4 * d / (n * lam * delta) + 2 * delta / gap
    distance = 1 / n + mpmath.sqrt(2 * rhs)
    blocking = d * distance / lam
    if blocking >= 1:                                          # (33) and (34) then bound nothing
        return [float(rhs), float(distance), float(blocking), float("inf"), float("inf")]
    gap_33 = (distance + blocking) / (lam * (1 - blocking))
    return [float(v) for v in (rhs, distance, blocking, gap_33, 1 / (n * lam * (1 - blocking)))]


@pytest.mark.parametrize("speedup,n,alpha,beta", [
    (SUBLINEAR, 10**9, 0.5, 0.1), (SUBLINEAR, 10**12, 2 / 3, 0.1), (SUBLINEAR, 10**10, 0.0, 0.2),
    (SpeedupTable.linear(5), 10**6, 0.5, 0.1), (SpeedupTable.linear(5), 10**3, 0.5, 0.1)])
def test_bounds_match_the_paper_formulas(speedup, n, alpha, beta):
    delta = beta / (2 * n ** max(alpha, 0.5))                 # the proof of Theorem 2
    expected = bounds_in_mpmath(speedup, n, alpha, beta, delta)
    bounds = stein_bounds(speedup, n, alpha, beta)
    assert bounds.delta == pytest.approx(delta, rel=1e-15, abs=0)
    got = [bounds.squared_distance, bounds.distance, bounds.blocking, bounds.mean_response_time_gap]
    assert got == pytest.approx(expected[:4], rel=1e-12, abs=0)
    single = len(optimal_occupancy(speedup, bounds.rate_per_server).support) == 1
    if single:
        assert bounds.mean_response_time_gap_single == pytest.approx(expected[4], rel=1e-12, abs=0)
    else:
        assert bounds.mean_response_time_gap_single is None


@pytest.mark.parametrize("n,alpha,beta", [(1001, 0.5, 0.1), (4001, 0.5, 0.1), (2003, 2 / 3, 0.1), (4001, 0.0, 0.2),
                                          (3001, 1.0, 0.5)])
def test_exact_values_lie_below_non_vacuous_bounds(n, alpha, beta):
    """Linear speed-up, d = 5 not dividing n (so some jobs get fewer than d servers and E[D] > D*):
    the bounds are informative (P_b bound < 1, distance bound < 2 = the largest ||x - y*||_1 can be,
    finite (33)) and the exact values of the loss chain lie below them."""
    speedup = SpeedupTable.linear(5)
    bounds = stein_bounds(speedup, n, alpha, beta)
    assert bounds.blocking < 1 and bounds.distance < 2 and np.isfinite(bounds.mean_response_time_gap)
    exact = greedy_metrics(speedup, bounds.rate_per_server, n)
    gap = exact.mean_response_time - optimal_occupancy(speedup, bounds.rate_per_server).mean_response_time
    assert 0 < exact.distance <= bounds.distance
    assert 0 < exact.blocking <= bounds.blocking
    assert 0 < gap <= bounds.mean_response_time_gap_single <= bounds.mean_response_time_gap   # after eq. (34), one-sided


@pytest.mark.parametrize("n,alpha,beta", [(20, 0.0, 0.2), (200, 0.5, 0.1)])
def test_two_point_bounds_say_nothing_at_sizes_an_exact_chain_reaches(n, alpha, beta):
    """Sub-linear speed-up, |I*| = 2: the terms 4d/(nλδ) + 2δ/gap of (19) keep the bounds above
    their trivial values (P_b <= 1, ||x - y*||_1 <= 2) at every n the exact chain can be built for,
    so there is nothing to check them against; the exact values are informative."""
    bounds = stein_bounds(SUBLINEAR, n, alpha, beta)
    assert bounds.blocking > 1 and bounds.distance > 2 and bounds.mean_response_time_gap == float("inf")
    exact = greedy_metrics(SUBLINEAR, bounds.rate_per_server, n)
    assert 0 < exact.blocking < 0.3 and 0 < exact.distance < 0.2


def test_every_form_of_a_table_gives_the_same_bounds():
    """The table, its interpolation and a list: the same numbers, those of the formulas in mpmath."""
    n, alpha, beta = 10**9, 0.5, 0.1
    delta = beta / (2 * n ** 0.5)
    expected = bounds_in_mpmath(SUBLINEAR, n, alpha, beta, delta)
    for form in (SUBLINEAR, SpeedupCurve.from_discrete(SUBLINEAR), [1, 1.8, 2.5, 3, 3.4]):
        bounds = stein_bounds(form, n, alpha, beta)
        assert [bounds.squared_distance, bounds.distance, bounds.blocking] == pytest.approx(expected[:3], rel=1e-12, abs=0)
    with pytest.raises(InvalidParameterError, match="is a curve without a largest server count d"):
        stein_bounds(SpeedupCurve.amdahl(0.9), n, alpha, beta)


@pytest.mark.parametrize("call,match", [
    (lambda: __import__("analytic.moldable", fromlist=["x"]).traffic("abc", 0.5, 0.1),
     r"^n = 'abc': must be a real number or an array of real numbers$"),
    (lambda: __import__("analytic.moldable", fromlist=["x"]).stein_bounds(
        __import__("analytic.speedup", fromlist=["x"]).SpeedupTable([1, 1.8, 2.5]), 4000, 10**18, 0.1),
     r"^alpha = 1000000000000000000: makes β n\^\(-α\) underflow"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()
