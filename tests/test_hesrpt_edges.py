"""Tests of analytic.hesrpt's policy evaluation and optimal policy at the top of the double range.

References, at 50 digits with mpmath (whose exponent range is unbounded): Theorem 8 of Berg, Vesilo &
Harchol-Balter (heSRPT) in Lemma 5's form T* = N^-p Σ_k x_k (k^c - (k-1)^c)^(1-p), sizes decreasing;
the makespan ||x||_(1/p) / N^p of Theorem 2, at which heLRPT ends every job; and closed forms derived by
hand for EQUI (N/m servers each while m jobs remain) and SRPT (all N servers to the shortest job).
"""

import mpmath
import numpy as np
import pytest

from analytic.hesrpt import flow_time, optimal_allocation
from analytic.hesrpt.closed_form import mean_time

mpmath.mp.dps = 50

LARGEST = 1.7976931348623157e308
#: The issue's jobs: the total flow time of heSRPT, 2.47e308, is beyond the double range; its mean is not.
SIZES, P, SERVERS = [1e300, 1.7e308, 1e308], 0.05, 10.0


def mp_theorem8(sizes, p, servers):
    p = mpmath.mpf(p)
    c = 1 / (1 - p)
    ranked = sorted((mpmath.mpf(x) for x in sizes), reverse=True)
    return mpmath.fsum(x * (k ** c - (k - 1) ** c) ** (1 - p) for k, x in enumerate(ranked, 1)) / mpmath.mpf(servers) ** p


def mp_makespan(sizes, p, servers):
    p = mpmath.mpf(p)
    return mpmath.fsum(mpmath.mpf(x) ** (1 / p) for x in sizes) ** p / mpmath.mpf(servers) ** p


def mp_equi(sizes, p, servers):
    """EQUI's completion times in increasing size order: between the (k-1)-th and k-th departures the M - k + 1 jobs
    left each run at (N/(M-k+1))^p, so T_k = T_(k-1) + (x_(k) - x_(k-1)) / (N/(M-k+1))^p."""
    ranked, times, clock, done = sorted(mpmath.mpf(x) for x in sizes), [], mpmath.mpf(0), mpmath.mpf(0)
    for k, x in enumerate(ranked):
        clock += (x - done) / (mpmath.mpf(servers) / (len(ranked) - k)) ** p
        times.append(clock)
        done = x
    return times


def mp_srpt(sizes, p, servers):
    """SRPT's completion times in increasing size order: the partial sums of x / N^p."""
    return list(np.cumsum([mpmath.mpf(x) / mpmath.mpf(servers) ** p for x in sorted(sizes)]))


def assert_nearest_double(value, exact, rel=1e-14):
    """``value`` is ``exact`` as a double: within ``rel``, or inf when beyond the largest double."""
    if exact > LARGEST * (1 + 2.0 ** -53):
        assert value == float("inf")
    else:
        assert value == pytest.approx(float(exact), rel=rel, abs=0)


def test_mean_time_is_formed_without_the_total():
    """Three times of 1.7e308: the sum overflows, the mean is 1.7e308 (by hand); per row of a 2-D array; inf only
    when a time is inf."""
    assert mean_time(np.array([1.7e308, 1.7e308, 1.7e308])) == pytest.approx(1.7e308, rel=1e-15, abs=0)
    assert mean_time(np.array([[1.7e308, 1e308], [1.0, 3.0]])).tolist() == pytest.approx([1.35e308, 2.0], rel=1e-15, abs=0)
    assert mean_time(np.array([5e-324, 1e-323])) == pytest.approx(1e-323, rel=0, abs=5e-324)
    assert mean_time(np.array([np.inf, 1.0])) == np.inf


def test_flow_time_means_at_the_issue_sizes():
    """flow_time(..., "hesrpt" | "equi" | "helrpt") had mean inf (the total overflowed first); the means are 8.2e307,
    8.2e307 and the makespan 1.5e308. References: Theorem 8, EQUI by hand, Theorem 2's makespan."""
    hesrpt = flow_time(SIZES, "hesrpt", P, SERVERS)
    assert hesrpt.total == float("inf") and mp_theorem8(SIZES, P, SERVERS) > LARGEST
    assert_nearest_double(hesrpt.mean, mp_theorem8(SIZES, P, SERVERS) / 3, rel=1e-13)
    equi = flow_time(SIZES, "equi", P, SERVERS)
    assert_nearest_double(equi.mean, mpmath.fsum(mp_equi(SIZES, P, SERVERS)) / 3, rel=1e-13)
    helrpt = flow_time(SIZES, "helrpt", P, SERVERS)
    assert_nearest_double(helrpt.mean, mp_makespan(SIZES, P, SERVERS), rel=1e-13)


def test_optimal_allocation_mean_at_the_issue_sizes():
    """optimal_allocation's mean was T*/M with T* = inf; for k^p it is heSRPT's, Theorem 8 / 3 = 8.2e307."""
    result = optimal_allocation(SIZES, P, SERVERS)
    assert result.total == float("inf")
    assert_nearest_double(result.mean, mp_theorem8(SIZES, P, SERVERS) / 3, rel=1e-13)


def test_srpt_departure_beyond_the_range_is_inf_without_a_warning():
    """SRPT finishes the largest job at 2.4e308 (by hand: the sum of all sizes over 10^0.05): that completion time
    is inf, the two others 8.9e299 and 8.9e307; the clock's overflow used to raise numpy's RuntimeWarning."""
    with np.errstate(all="raise"):
        result = flow_time(SIZES, "srpt", P, SERVERS)
    exact = mp_srpt(SIZES, P, SERVERS)
    for value, reference in zip(np.sort(result.completion_times), exact, strict=True):
        assert_nearest_double(value, reference)
    assert exact[-1] > LARGEST and result.total == float("inf")


@pytest.mark.parametrize("policy,first_departure", [("equi", lambda sizes, p: mp_equi(sizes, p, 1.0)[0]),
                                                     ("helrpt", lambda sizes, p: mp_makespan(sizes, p, 1.0))])
def test_departures_beyond_the_range_are_not_blamed_on_the_policy(policy, first_departure):
    """p = 1 - 1e-6, sizes 1.7e308 and 1e308 on one server: EQUI's first departure is at 2e308 (by hand), heLRPT
    ends both at the makespan 2.7e308. Both raised "allocates no service to any remaining job"; the completion
    times, beyond the range, are inf."""
    sizes, p = [1.7e308, 1e308], 1 - 1e-6
    assert first_departure(sizes, p) > LARGEST
    assert flow_time(sizes, policy, p, 1.0).completion_times.tolist() == [np.inf, np.inf]
