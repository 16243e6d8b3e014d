"""Tests of analytic.simulation.estimates and .comparison: intervals, their coverage, the verdict.

References: Student-t intervals from scipy.stats.t (independent code); coverage over fixed seeds
of normal samples (exact t intervals), of ratio estimates of Poisson-sized batches, and of batch
means of an AR(1) series of known mean, each count inside the binomial band of coverage_band,
whose tails are checked against scipy.stats.binom, exact rational tails and, for counts beyond exact
sums, the Cornish-Fisher expansion at 40 digits.
"""

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import signal, stats

from analytic.errors import InvalidParameterError
from analytic.simulation import (
    Estimate,
    batch_means,
    compare,
    coverage_band,
    difference,
    mean_estimate,
    ratio_estimate,
    t_quantile,
)

RUNS = 400


def test_mean_estimate_is_scipys_t_interval():
    x = np.random.default_rng(0).normal(3.0, 2.0, 12)
    estimate = mean_estimate(x, level=0.9)
    low, high = stats.t.interval(0.9, 11, loc=x.mean(), scale=stats.sem(x))
    assert estimate.interval == pytest.approx((low, high), rel=1e-12, abs=0)
    assert estimate.standard_error == pytest.approx(stats.sem(x), rel=1e-12, abs=0)
    assert (estimate.method, estimate.samples, estimate.level) == ("independent replications", 12, 0.9)


def test_ratio_estimate_with_equal_denominators_is_the_mean_of_the_ratios():
    x = np.random.default_rng(1).poisson(30, 15).astype(float)
    by_ratio = ratio_estimate(x, np.full(15, 100.0))
    by_mean = mean_estimate(x / 100.0)
    assert by_ratio.value == pytest.approx(by_mean.value, rel=1e-14, abs=0)
    assert by_ratio.half_width == pytest.approx(by_mean.half_width, rel=1e-12, abs=0)


def test_t_quantile_is_scipys():
    assert t_quantile(0.95, 20) == pytest.approx(stats.t.ppf(0.975, 19), rel=1e-12, abs=0)


def test_normal_samples_are_covered_at_the_level():
    hits = sum(compare(mean_estimate(np.random.default_rng(seed).normal(5.0, 1.0, 5)), 5.0).agrees for seed in range(RUNS))
    low, high = coverage_band(RUNS)
    assert low <= hits <= high


def test_ratio_estimates_are_covered_at_the_level():
    """Batches of Poisson(40) jobs with exponential times of mean 2: the ratio estimates 2."""
    hits = 0
    for seed in range(RUNS):
        rng = np.random.default_rng(seed)
        counts = rng.poisson(40, 20)
        sums = np.array([rng.exponential(2.0, c).sum() for c in counts])
        hits += compare(ratio_estimate(sums, counts, method="batch means"), 2.0).agrees
    low, high = coverage_band(RUNS)
    assert low <= hits <= high


def ar1(seed, n, phi=0.9, mean=2.0):
    """x_k - mean = phi (x_{k-1} - mean) + noise_k, started in its stationary law."""
    noise = np.random.default_rng(seed).normal(0.0, 1.0, n)
    noise[0] /= math.sqrt(1 - phi ** 2)
    return mean + signal.lfilter([1.0], [1.0, -phi], noise)


def test_batch_means_of_a_correlated_series_are_covered_at_the_level():
    hits = sum(compare(ar1(seed, 20_000), 2.0, batches=20).agrees for seed in range(200))
    low, high = coverage_band(200)
    assert low <= hits <= high


def test_batch_means_drop_the_warmup_and_split_evenly():
    x = np.arange(23.0)
    estimate = batch_means(x, batches=4, warmup=3)
    assert estimate.value == pytest.approx(x[3:].mean(), rel=1e-14, abs=0)
    pieces = np.array_split(x[3:], 4)
    assert estimate.half_width == pytest.approx(
        ratio_estimate([p.sum() for p in pieces], [p.size for p in pieces], method="batch means").half_width, rel=1e-14, abs=0)
    assert estimate.method == "batch means" and estimate.samples == 4


def test_comparison_agrees_exactly_when_the_interval_holds_the_exact_value():
    rng = np.random.default_rng(4)
    for _ in range(200):
        estimate = mean_estimate(rng.normal(0, 1, 6), level=0.9)
        exact = rng.normal(0, 0.6)
        c = compare(estimate, exact)
        low, high = estimate.interval
        assert c.agrees == (low <= exact <= high)
        assert c.z == pytest.approx((estimate.value - exact) / estimate.standard_error, rel=1e-12, abs=0)
        assert c.p_value == pytest.approx(2 * stats.t.sf(abs(c.z), 5), rel=1e-9, abs=0)
        assert c.agrees == (c.p_value >= 0.1 - 1e-12)


def test_comparison_at_another_level():
    estimate = Estimate(1.0, 0.1, 0.95, "batch means", 20)
    assert compare(estimate, 1.09).agrees
    assert not compare(estimate, 1.09, level=0.5).agrees and compare(estimate, 1.09, level=0.5).level == 0.5


def test_comparison_of_raw_observations_forms_batch_means():
    x = np.random.default_rng(8).exponential(1.0, 1000)
    raw = compare(x, 1.0, batches=10, warmup=100)
    assert raw.estimate == batch_means(x, batches=10, warmup=100)
    assert raw.z == compare(batch_means(x, batches=10, warmup=100), 1.0).z


def test_comparison_without_spread():
    none = Estimate(0.0, 0.0, 0.95, "independent replications", 100)
    assert compare(none, 0.0).agrees and compare(none, 0.0).z == 0.0
    far = compare(none, 1e-20)
    assert not far.agrees and far.z == -math.inf and far.p_value == 0.0


@pytest.mark.parametrize("runs,level", [(100, 0.95), (200, 0.95), (1000, 0.9)])
def test_coverage_band_tails(runs, level):
    low, high = coverage_band(runs, level, false_alarm=1e-3)
    law = stats.binom(runs, level)
    assert law.cdf(low - 1) <= 5e-4 < law.cdf(low)
    assert law.sf(high) <= 5e-4 < law.sf(high - 1) or high == runs


def exact_band(runs, level, false_alarm):
    """The band from exact rational binomial tails (level and false_alarm as the floats they are)."""
    p, tail = Fraction(level), Fraction(false_alarm) / 2
    cdf = list(itertools.accumulate(math.comb(runs, k) * p**k * (1 - p) ** (runs - k) for k in range(runs + 1)))
    return next(k for k, c in enumerate(cdf) if c >= tail), next(k for k, c in enumerate(cdf) if 1 - c <= tail)


@pytest.mark.parametrize("runs, level, false_alarm", [
    (1, 0.95, 1e-4), (7, 0.5, 0.3), (100, 0.95, 1e-4), (200, 0.95, 1e-4), (300, 0.8, 0.05), (250, 0.999, 1e-6),
    (120, 0.01, 1e-3), (64, 1 - 2**-40, 0.5)])
def test_coverage_band_against_exact_rational_tails(runs, level, false_alarm):
    assert coverage_band(runs, level, false_alarm) == exact_band(runs, level, false_alarm)


def cornish_fisher_least(runs, p, tail):
    """The least k with P(Bin(runs, p) <= k) >= tail from the Cornish-Fisher expansion (three terms, continuity
    correction) at 40 digits: its error is O(1/σ) counts, 1e-4 at σ = 6 892 (runs = 1e9)."""
    with mpmath.workdps(40):
        n, p = mpmath.mpf(runs), mpmath.mpf(p)
        q = 1 - p
        sigma = mpmath.sqrt(n * p * q)
        skew, kurtosis = (q - p) / sigma, (1 - 6 * p * q) / (n * p * q)
        z = -mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * mpmath.mpf(tail))
        w = z + (z**2 - 1) * skew / 6 + (z**3 - 3 * z) * kurtosis / 24 - (2 * z**3 - 5 * z) * skew**2 / 36
        x = n * p + sigma * w - mpmath.mpf(0.5)
        assert abs(x - mpmath.nint(x)) > 0.01      # the rounding is decided by the expansion, not by its error
        return int(mpmath.ceil(x))


@pytest.mark.parametrize("runs", [10**9, 10**12, 2**52])
@pytest.mark.parametrize("level", [0.95, 0.5, 0.3])
def test_coverage_band_of_many_runs_against_cornish_fisher(runs, level):
    """Counts where exact sums are out of reach (and scipy.stats.binom.ppf gave NaN at 2^52, level 0.95):
    low is the least k with P(count <= k) >= 5e-5, high is runs - 1 - (the same for runs - count)."""
    low, high = coverage_band(runs, level, 1e-4)
    assert low == cornish_fisher_least(runs, level, 5e-5)
    assert high == runs - 1 - (cornish_fisher_least(runs, 1 - level, 5e-5) - 1)


@pytest.mark.parametrize("runs", [2**52 + 1, 2**62, 10**30, 10**400])
def test_coverage_band_refuses_counts_beyond_double_precision(runs):
    """10**30 and 10**400 raised a raw TypeError inside scipy, 2**62 ran for minutes."""
    with pytest.raises(InvalidParameterError, match=r"replications = \d+.*: must be at most 2\*\*52 = 4,503,599,627,370,496"):
        coverage_band(runs)


def test_difference_of_independent_estimates_is_covered_at_least_at_the_level():
    """Samples of N(1, 1) (k = 5) and N(0.5, 2²) (k = 12): the interval of the difference holds 0.5."""
    hits = 0
    for seed in range(RUNS):
        rng = np.random.default_rng(seed)
        d = difference(mean_estimate(rng.normal(1.0, 1.0, 5)), mean_estimate(rng.normal(0.5, 2.0, 12)))
        hits += compare(d, 0.5).agrees
    low, _ = coverage_band(RUNS)
    assert low <= hits <= RUNS            # conservative degrees of freedom: at least the level


def test_difference_adds_the_variances():
    a, b = Estimate(1.0, 0.3, 0.9, "batch means", 10), Estimate(0.4, 0.4, 0.9, "batch means", 30)
    d = difference(a, b)
    assert d.value == pytest.approx(0.6, rel=1e-14, abs=0) and d.samples == 10
    assert d.standard_error == pytest.approx(np.hypot(a.standard_error, b.standard_error), rel=1e-12, abs=0)
    with pytest.raises(InvalidParameterError, match="second = .*: must have the level of first, 0.9"):
        difference(a, Estimate(0.4, 0.4, 0.95, "batch means", 30))
    with pytest.raises(InvalidParameterError, match="second = 0.4: must be an Estimate"):
        difference(a, 0.4)


def test_estimate_repr_and_interval():
    estimate = Estimate(0.0267, 0.0003, 0.95, "independent replications", 100)
    assert repr(estimate) == "Estimate(0.0267 ± 0.0003, 95%, 100 independent replications)"
    assert estimate.interval == pytest.approx((0.0264, 0.0270), rel=1e-12, abs=0)


@pytest.mark.parametrize("make,match", [
    (lambda: mean_estimate([1.0]), "values = .*: must be a one-dimensional sequence of at least two samples"),
    (lambda: mean_estimate([1.0, float("nan")]), "values = .*: must be finite"),
    (lambda: mean_estimate([1.0, 2.0], level=1.0), "level = 1: must lie strictly between 0 and 1"),
    (lambda: mean_estimate([1.0, 2.0], method="bootstrap"), "method = 'bootstrap': must be one of"),
    (lambda: ratio_estimate([1.0, 2.0], [0.0, 0.0]), "denominators = .*: must have a positive sum"),
    (lambda: ratio_estimate([1.0, 2.0], [1.0, 2.0, 3.0]), r"denominators = .*: must have the shape of numerators, \(2,\)"),
    (lambda: batch_means([1.0, 2.0, 3.0], batches=4), "must be a one-dimensional series with at least warmup \\+ batches = 4"),
    (lambda: batch_means(np.ones(10), batches=1), "batches = 1: must be an integer >= 2"),
    (lambda: Estimate(1.0, -0.1, 0.95, "batch means", 5), "half_width = -0.1: must be >= 0"),
    (lambda: Estimate(1.0, 0.1, 0.95, "batch means", 1), "samples = 1: must be an integer >= 2"),
    (lambda: compare(Estimate(1.0, 0.1, 0.95, "batch means", 5), float("nan")), "exact = nan: must be a finite real number"),
    (lambda: compare(Estimate(1.0, 0.1, 0.95, "batch means", 5), 1.0, level=0), "level = 0: must lie strictly between"),
    (lambda: coverage_band(0), "replications = 0: must be a positive integer"),
    (lambda: mean_estimate("abc"), "values = 'abc': must be a 1-D sequence of real numbers"),
    (lambda: mean_estimate([[1.0], [1.0, 2.0]]), "values = .*: must be a 1-D sequence of real numbers"),
    (lambda: mean_estimate([1.0, 2.0], method=np.array([2.0, 1.0])), "method = .*: must be one of"),
    (lambda: batch_means([1 + 2j, 1.0]), "observations = .*: must be a 1-D sequence of real numbers"),
    (lambda: t_quantile(0.95, 1), "samples = 1: must be an integer >= 2"),
    (lambda: t_quantile("abc", 10), "level = 'abc': must lie strictly between 0 and 1"),
    # 0.5 + 1e-300 / 2 rounds to 0.5: the quantile would be 0 and every standard error 0/0
    (lambda: compare(Estimate(1.0, 0.1, 0.95, "batch means", 5), 1.0, level=1e-300), "level = 1e-300: must lie strictly"),
])
def test_bad_input_raises(make, match):
    with pytest.raises(InvalidParameterError, match=match):
        make()


def test_an_estimate_is_the_field_a_result_holds():
    """What a simulation result's fields offer (issue 32): the interval, membership, formatting, and the entries
    of a vector of estimates. Expected values by hand from value ± half_width."""
    from analytic.simulation import Estimates

    e = Estimate(2.0, 0.1, 0.95, "batch means", 20)
    assert (1.9 in e, 2.1 in e, 2.11 in e) == (True, True, False)
    assert float(e) == 2.0 and f"{e:.2f}" == "2.00 ± 0.10"
    many = Estimates(np.array([1.0, 2.0, 3.0]), np.array([0.1, 0.2, 0.3]), 0.9, "independent replications", 5)
    assert many[2] == Estimate(3.0, 0.3, 0.9, "independent replications", 5)
    assert [x.value for x in many[1:]] == [2.0, 3.0] and len(many) == 3
    np.testing.assert_array_equal(many.interval[0], [0.9, 1.8, 2.7])
    with pytest.raises(InvalidParameterError, match="half_width .* must have the shape of value"):
        Estimates(np.zeros(2), np.zeros(3), 0.95, "batch means", 20)


def test_an_estimate_used_as_a_number_warns_and_uses_its_value():
    """Results held floats where they now hold estimates: for one release arithmetic, comparisons and numpy
    still see the value, with a warning naming .value."""
    from analytic.errors import AnalyticDeprecationWarning
    from analytic.simulation import Estimates

    e = Estimate(2.0, 0.1, 0.95, "batch means", 20)
    with pytest.warns(AnalyticDeprecationWarning, match=r"an Estimate used as a number .*use its \.value"):
        assert (e < 3, 1 + e, e * 2, 4 / e, -e, round(e, 1)) == (True, 3.0, 4.0, 2.0, -2.0, 2.0)
    with pytest.warns(AnalyticDeprecationWarning, match=r"an Estimates used as a number"):
        np.testing.assert_array_equal(np.asarray(Estimates(np.ones(2), np.zeros(2), 0.95, "batch means", 20)) * 3,
                                      [3.0, 3.0])


def test_estimators_take_valid_data_near_the_top_of_the_double_range():
    """mean_estimate([1.7e308] * 2) was refused as "value = inf", batch_means of 1e307s as "numerators = inf".
    Reference: exact rational means (fractions.Fraction)."""
    from fractions import Fraction

    from analytic.simulation import batch_means, mean_estimate

    top = mean_estimate([1.7e308, 1.7e308])
    assert top.value == pytest.approx(1.7e308, rel=1e-16, abs=0) and top.half_width == pytest.approx(0, abs=1e-300)
    spread = mean_estimate([1e308, -1e308, 1e308])
    assert spread.value == pytest.approx(float(Fraction(1e308) / 3), rel=1e-15, abs=0)
    assert spread.half_width == math.inf          # t_2 s / √3 = 2.87e308: beyond the double range, said as inf
    batched = batch_means(np.full(1000, 1e307))
    assert batched.value == pytest.approx(1e307, rel=1e-15, abs=0) and batched.half_width < 1e293


def test_t_quantile_of_a_count_beyond_the_float_range_is_the_normal_quantile():
    """t_quantile(0.95, 10**400) raised a raw OverflowError converting the degrees of freedom to a float. Reference:
    the normal quantile, z_0.975 = sqrt(2) erfinv(0.95), in mpmath at 30 digits (the t law's limit)."""
    import mpmath

    from analytic.simulation import t_quantile

    mpmath.mp.dps = 30
    normal = float(mpmath.sqrt(2) * mpmath.erfinv(mpmath.mpf("0.95")))
    for samples in (10**30, 10**400):
        assert t_quantile(0.95, samples) == pytest.approx(normal, rel=1e-15, abs=0)
