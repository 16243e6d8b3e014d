"""Tests of analytic.simulation.stationarity: the growth rate flags unstable runs, rarely stable ones.

References: the waiting times of an M/M/1 queue by Lindley's recursion W_{k+1} = max(0, W_k + S_k -
A_{k+1}); unstable (ρ = 1.25), they grow by E[S] - E[A] per customer (the drift of the random
walk), which the 99% intervals must hold at their rate over 400 fixed seeds (intervals that ignore
the lag-one correlation 1/4 of the increments of batch averages held it in 387 of 400, below the
band); stable (ρ = 0.7), a
run may be flagged with probability at most (1 - level)/2, checked against a binomial bound.
"""

import numpy as np
import pytest
from scipy import stats

from analytic.errors import InvalidParameterError
from analytic.simulation import coverage_band, growth_rate


def lindley(seed, customers, arrival_rate, service_rate=1.0):
    rng = np.random.default_rng(seed)
    steps = rng.exponential(1 / service_rate, customers) - rng.exponential(1 / arrival_rate, customers)
    # W_k = S_k - min_{j <= k} S_j with S the partial sums, W_0 = 0 (reflected random walk)
    walk = np.concatenate([[0.0], np.cumsum(steps)])
    return (walk - np.minimum.accumulate(walk))[1:]


def batch_levels(series, batches=20):
    pieces = np.array_split(series, batches)
    ends = np.cumsum([p.size for p in pieces])
    return np.array([p.mean() for p in pieces]), ends - np.array([p.size for p in pieces]) / 2


def test_unstable_queue_is_flagged_and_its_drift_covered():
    drift = 1.0 - 1 / 1.25                                  # E[S] - E[A] per customer
    runs = 400
    growths = [growth_rate(*batch_levels(lindley(seed, 50_000, arrival_rate=1.25))) for seed in range(runs)]
    assert all(not g.stationary for g in growths)
    low, high = coverage_band(runs, level=0.99)
    assert low <= sum(abs(g.rate - drift) <= g.half_width for g in growths) <= high
    # The band is wide at 99 %; the spread of the standardized errors is sharper. They follow
    # Student's t with 18 degrees of freedom (variance 18/16) when the half-width is right; their
    # sample variance over 400 runs has a relative sd of about 0.08, and an interval that ignored the
    # correlation of the increments would make it about 1.5 times too large.
    quantile = stats.t.ppf(0.995, 18)
    z = np.array([(g.rate - drift) / (g.half_width / quantile) for g in growths])
    assert 0.75 <= z.var() / (18 / 16) <= 1.3


def test_stable_queue_is_rarely_flagged():
    runs = 200
    flagged = sum(not growth_rate(*batch_levels(lindley(seed, 40_000, arrival_rate=0.7))).stationary for seed in range(runs))
    assert stats.binom(runs, 0.005).sf(flagged - 1) > 1e-4      # flagged no more often than (1 - 0.99)/2 allows


def test_growth_of_an_exact_line_has_no_spread():
    growth = growth_rate(3.0 + 0.25 * np.arange(5.0), np.arange(5.0))
    assert growth.rate == pytest.approx(0.25, rel=1e-14, abs=0) and growth.half_width == pytest.approx(0.0, abs=1e-14)
    assert not growth.stationary and repr(growth).endswith("not stationary)")


def test_rate_is_the_mean_increment_with_its_t_interval():
    """Equally spaced batches: rate = mean of the increments, half-width t_{k-2} s / sqrt(k - 1) (scipy.stats)
    widened by sqrt((3m - 1) / 2m), m = k - 1, the variance of a sum of m MA(1) increments with lag-one
    correlation 1/4 relative to independent ones."""
    rng = np.random.default_rng(2)
    times = 5.0 * np.arange(1, 11)
    levels = np.cumsum(rng.normal(0.3, 1.0, 10))
    increments = np.diff(levels) / 5.0
    growth = growth_rate(levels, times, level=0.9)
    assert growth.rate == pytest.approx(increments.mean(), rel=1e-12, abs=0)
    assert growth.rate == pytest.approx((levels[-1] - levels[0]) / (times[-1] - times[0]), rel=1e-12, abs=0)
    assert growth.half_width == pytest.approx(stats.t.ppf(0.95, 8) * stats.sem(increments) * np.sqrt(26 / 18), rel=1e-10, abs=0)


@pytest.mark.parametrize("levels,times,match", [
    ([1.0, 2.0], [0.0, 1.0], "levels = .*: must hold at least three batch averages"),
    ([1.0, 2.0, 3.0], [0.0, 1.0], "times = .*: must have the shape of levels"),
    ([1.0, 2.0, 3.0], [0.0, 2.0, 1.0], "times = .*: must be increasing"),
    ([1.0, np.nan, 3.0], [0.0, 1.0, 2.0], r"levels = .*: must be finite: nan at index \(1,\)"),
])
def test_bad_input_raises(levels, times, match):
    with pytest.raises(InvalidParameterError, match=match):
        growth_rate(levels, times)


def test_growth_rate_is_exact_under_scaling_by_powers_of_two():
    """Levels near 1e154 squared overflowed to an infinite half-width; scaled by 2^500 (levels) or
    2^600 (times) the estimate scales exactly, and a rate beyond double precision is refused by name."""
    t = np.arange(1.0, 21.0)
    y = 0.3 * t + np.random.default_rng(1).normal(size=20)
    plain = growth_rate(y, t)
    for big_levels, big_times, factor in ((2.0**500, 1.0, 2.0**500), (1.0, 2.0**600, 2.0**-600)):
        scaled = growth_rate(y * big_levels, t * big_times)
        assert (scaled.rate, scaled.half_width) == (plain.rate * factor, plain.half_width * factor)
    with pytest.raises(InvalidParameterError, match=r"^levels = .*: grow at a rate beyond double precision"):
        growth_rate([1e308, -1e308, 1e308, -1e308], [1e-300, 2e-300, 3e-300, 4e-300])
