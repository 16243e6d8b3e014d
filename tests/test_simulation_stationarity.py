"""Tests of analytic.simulation.stationarity: the growth rate flags unstable runs, rarely stable ones.

References: the waiting times of an M/M/1 queue by Lindley's recursion W_{k+1} = max(0, W_k + S_k -
A_{k+1}); unstable (ρ = 1.25), they grow by E[S] - E[A] per customer (the drift of the random
walk); stable (ρ = 0.7), a run is flagged with probability about (1 - level)/2, checked over
fixed seeds against a binomial bound.
"""

import numpy as np
import pytest
from scipy import stats

from analytic.errors import InvalidParameterError
from analytic.simulation import growth_rate


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


@pytest.mark.parametrize("seed", range(5))
def test_unstable_queue_is_flagged_with_its_drift(seed):
    levels, times = batch_levels(lindley(seed, 100_000, arrival_rate=1.25))
    growth = growth_rate(levels, times)
    drift = 1.0 - 1 / 1.25                                  # E[S] - E[A] per customer
    assert not growth.stationary
    assert growth.rate == pytest.approx(drift, rel=0.05)


def test_stable_queue_is_rarely_flagged():
    runs = 200
    flagged = sum(not growth_rate(*batch_levels(lindley(seed, 40_000, arrival_rate=0.7))).stationary for seed in range(runs))
    assert stats.binom(runs, 0.005).sf(flagged - 1) > 1e-4      # flagged no more often than (1 - 0.99)/2 allows


def test_growth_of_an_exact_line_has_no_spread():
    growth = growth_rate(3.0 + 0.25 * np.arange(5.0), np.arange(5.0))
    assert growth.rate == pytest.approx(0.25, rel=1e-14) and growth.half_width == pytest.approx(0.0, abs=1e-14)
    assert not growth.stationary and repr(growth).endswith("not stationary)")


def test_level_is_in_the_interval_quantile():
    """The half-width is t_{k-2} standard errors of the OLS slope (scipy.stats.linregress)."""
    rng = np.random.default_rng(2)
    times = np.arange(10.0)
    levels = rng.normal(size=10) + 0.1 * times
    fit = stats.linregress(times, levels)
    growth = growth_rate(levels, times, level=0.9)
    assert growth.rate == pytest.approx(fit.slope, rel=1e-12)
    assert growth.half_width == pytest.approx(stats.t.ppf(0.95, 8) * fit.stderr, rel=1e-10)


@pytest.mark.parametrize("levels,times,match", [
    ([1.0, 2.0], [0.0, 1.0], "levels = .*: must hold at least three batch averages"),
    ([1.0, 2.0, 3.0], [0.0, 1.0], "times = .*: must have the shape of levels"),
    ([1.0, 2.0, 3.0], [0.0, 2.0, 1.0], "times = .*: must be increasing"),
    ([1.0, np.nan, 3.0], [0.0, 1.0, 2.0], "levels = .*: and times must be finite"),
])
def test_bad_input_raises(levels, times, match):
    with pytest.raises(InvalidParameterError, match=match):
        growth_rate(levels, times)
