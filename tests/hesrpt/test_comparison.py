"""Tests of analytic.hesrpt.comparison: the Figure 4 evaluation of Berg, Vesilo & Harchol-Balter, heSRPT.

References, one per column and none through the code that fills it: heSRPT by Theorem 8 as printed,
evaluated in mpmath at 50 digits; SRPT's and EQUI's completion times written out (EQUI in mpmath);
HELL from its description (s(k)^2/k = k^(2p-1): one server per job for p < 1/2, everything to the
shortest job above); KNEE at the reported threshold replayed by a departure loop in this file that
allocates knees straight from Section 4.2's description.
"""

import mpmath
import numpy as np
import pytest

from analytic.errors import InvalidParameterError
from analytic.hesrpt import compare_policies, pareto_sizes

mpmath.mp.dps = 50
SERVERS, JOBS, SEEDS = 2000, 30, (0, 1, 2)


def theorem8_mean(sizes, p, servers):
    """T*/M with T* = (1/s(N)) Σ_k x_k [k (1 + ω_k)^p - (k-1) ω_k^p], x decreasing (Theorem 8 as printed)."""
    p = mpmath.mpf(p)
    ranked = sorted((mpmath.mpf(float(x)) for x in sizes), reverse=True)
    omega = [mpmath.mpf(0)] + [1 / ((mpmath.mpf(k) / (k - 1)) ** (1 / (1 - p)) - 1) for k in range(2, len(ranked) + 1)]
    total = mpmath.fsum(x * (k * (1 + omega[k - 1]) ** p - (k - 1) * omega[k - 1] ** p) for k, x in enumerate(ranked, 1))
    return float(total / mpmath.mpf(servers) ** p / len(ranked))


def equi_mean(sizes, p, servers):
    """EQUI: the j-th smallest job ends at Σ_(i<=j) (y_i - y_(i-1)) / s(N/(M-i+1)), in mpmath."""
    y = sorted(mpmath.mpf(float(x)) for x in sizes)
    clock, previous, total = mpmath.mpf(0), mpmath.mpf(0), mpmath.mpf(0)
    for i, size in enumerate(y):
        clock += (size - previous) / (mpmath.mpf(servers) / (len(y) - i)) ** p
        previous, total = size, total + clock
    return float(total / len(y))


def knee_mean(sizes, p, servers, alpha):
    """KNEE replayed departure by departure: a job's knee is the first k whose extra server cuts its
    run time x/s(k) by less than α (N if none); by increasing knee, jobs get their knee while servers last."""
    gain = 1.0 / np.arange(1, servers) ** p - 1.0 / np.arange(2, servers + 1) ** p   # per unit of size

    def knee(x):
        below = np.flatnonzero(x * gain < alpha)
        return int(below[0]) + 1 if below.size else servers

    remaining, clock, total = {j: float(x) for j, x in enumerate(sizes)}, 0.0, 0.0
    while remaining:
        free, rates = servers, {}
        for j in sorted(remaining, key=lambda j: (knee(remaining[j]), remaining[j], j)):
            rates[j] = float(min(knee(remaining[j]), free)) ** p if free > 0 else 0.0
            free = max(free - knee(remaining[j]), 0)
        step = min(remaining[j] / rates[j] for j in remaining if rates[j] > 0)
        clock += step
        for j in list(remaining):
            remaining[j] -= rates[j] * step
            if rates[j] > 0 and remaining[j] <= 1e-12 * step * rates[j]:
                total += clock
                del remaining[j]
    return total / len(sizes)


@pytest.fixture(scope="module")
def small():
    return compare_policies(exponents=(0.3, 0.9), servers=SERVERS, jobs=JOBS, seeds=SEEDS)


def test_pareto_sizes_have_the_pareto_tail():
    sizes = pareto_sizes(200_000, 1.5, seed=4)
    assert sizes.min() >= 1.0
    for x in (2.0, 10.0, 50.0, 1000.0):
        tail = x ** -1.5                                            # P(X > x) = x^-1.5
        sd = np.sqrt(tail * (1 - tail) / sizes.size)                # binomial standard deviation
        assert np.mean(sizes > x) == pytest.approx(tail, abs=4 * sd)
    np.testing.assert_array_equal(pareto_sizes(5, 1.5, seed=4), pareto_sizes(5, 1.5, np.random.default_rng(4)))


def test_each_column_agrees_with_an_independent_evaluation(small):
    sets = [pareto_sizes(JOBS, 1.5, seed) for seed in SEEDS]
    for row, p in enumerate(small.exponents):
        np.testing.assert_allclose(small.per_set[row, 0], [theorem8_mean(x, p, SERVERS) for x in sets], rtol=1e-13, atol=0)
        srpt = [np.mean(np.cumsum(np.sort(x))) / SERVERS ** p for x in sets]
        np.testing.assert_allclose(small.per_set[row, 1], srpt, rtol=1e-13, atol=0)
        np.testing.assert_allclose(small.per_set[row, 2], [equi_mean(x, p, SERVERS) for x in sets], rtol=1e-13, atol=0)
        hell = [np.mean(x) for x in sets] if p < 0.5 else srpt
        np.testing.assert_allclose(small.per_set[row, 3], hell, rtol=1e-13, atol=0)
        knee = [knee_mean(x, p, SERVERS, alpha) for x, alpha in zip(sets, small.knee_alpha[row], strict=True)]
        np.testing.assert_allclose(small.per_set[row, 4], knee, rtol=1e-12, atol=0)
    np.testing.assert_array_equal(small.median, np.median(small.per_set, axis=2))


def test_hesrpt_is_never_beaten(small):
    assert small.policies == ("hesrpt", "srpt", "equi", "hell", "knee")
    assert np.all(small.ratio() >= 1.0 - 1e-12)
    np.testing.assert_array_equal(small.ratio()[:, 0], 1.0)
    assert repr(small) == "PolicyComparison(exponents=(0.3, 0.9), policies=('hesrpt', 'srpt', 'equi', 'hell', 'knee'), sets=3)"


def test_a_subset_of_policies_skips_knee():
    subset = compare_policies(exponents=(0.5,), servers=100, jobs=10, seeds=(1,), policies=("equi", "hesrpt"))
    assert subset.policies == ("equi", "hesrpt")
    assert subset.ratio()[0, 1] == 1.0 and subset.ratio()[0, 0] > 1.0
    assert np.isnan(subset.knee_alpha).all()


@pytest.mark.parametrize("call,match", [
    (lambda: pareto_sizes(0, 1.5, 0), "jobs = 0: must be a positive integer"),
    (lambda: pareto_sizes(5, -1.0, 0), r"shape = -1: must be positive and finite \(the tail index\)"),
    (lambda: compare_policies(seeds=()), r"seeds = \(\): must be a non-empty sequence of int"),
    (lambda: compare_policies(policies=("srpt", "equi")), "policies = .*include 'hesrpt'"),
    (lambda: compare_policies(policies=("hesrpt", "lrpt")), "policies = "),
    (lambda: compare_policies(servers=10.5), "servers = 10.5"),
    (lambda: compare_policies(exponents=(1.2,), jobs=3, seeds=(0,)),
     r"exponents = \(1.2,\): must each lie in the open interval \(0, 1\)"),
])
def test_invalid_input_raises_a_named_error(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


@pytest.mark.parametrize("call,match", [
    (lambda: __import__("analytic.hesrpt", fromlist=["x"]).pareto_sizes(3, 1e-300, 0),
     r"^shape = 1e-300: is so small that Pareto sizes overflow double precision"),
    (lambda: __import__("analytic.hesrpt", fromlist=["x"]).compare_policies(exponents=(0.5,), servers=100, jobs=5, seeds=(-1,)),
     r"^seeds = \(-1,\): must be integers >= 0"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()
