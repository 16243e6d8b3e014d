"""Tests of analytic.hesrpt.comparison: the Figure 4 evaluation of Berg, Vesilo & Harchol-Balter, heSRPT.

References: Theorem 8 (heSRPT), SRPT's completion times written out, knee_search on each set alone.
"""

import numpy as np
import pytest

from analytic.errors import InvalidParameterError
from analytic.hesrpt import compare_policies, hesrpt_flow_time, knee_search, pareto_sizes


def test_pareto_sizes_have_the_pareto_tail():
    sizes = pareto_sizes(200_000, 1.5, seed=4)
    assert sizes.min() >= 1.0
    for x in (2.0, 10.0, 50.0):
        assert np.mean(sizes > x) == pytest.approx(x ** -1.5, abs=0.003)  # P(X > x) = x^-1.5
    np.testing.assert_array_equal(pareto_sizes(5, 1.5, seed=4), pareto_sizes(5, 1.5, np.random.default_rng(4)))


@pytest.fixture(scope="module")
def small():
    return compare_policies(p=(0.3, 0.9), servers=2000, jobs=30, seeds=(0, 1, 2))


def test_each_column_agrees_with_an_independent_evaluation(small):
    sets = [pareto_sizes(30, 1.5, seed) for seed in (0, 1, 2)]
    for row, p in enumerate(small.p):
        hesrpt = [hesrpt_flow_time(x, p, 2000).mean for x in sets]
        np.testing.assert_allclose(small.per_set[row, 0], hesrpt, rtol=1e-14)
        srpt = [np.mean(np.cumsum(np.sort(x))) / 2000 ** p for x in sets]
        np.testing.assert_allclose(small.per_set[row, 1], srpt, rtol=1e-13)
        for column, x in enumerate(sets):
            alone = knee_search(x, p, 2000)
            assert small.per_set[row, 4, column] == pytest.approx(alone.mean, rel=1e-13)
            assert small.knee_alpha[row, column] == pytest.approx(alone.alpha, rel=1e-13)
    np.testing.assert_allclose(small.median, np.median(small.per_set, axis=2))


def test_hesrpt_is_never_beaten(small):
    assert small.policies == ("hesrpt", "srpt", "equi", "hell", "knee")
    assert np.all(small.ratio() >= 1.0 - 1e-12)
    np.testing.assert_allclose(small.ratio()[:, 0], 1.0)
    assert repr(small) == "PolicyComparison(p=(0.3, 0.9), policies=('hesrpt', 'srpt', 'equi', 'hell', 'knee'), sets=3)"


def test_a_subset_of_policies_skips_knee():
    subset = compare_policies(p=(0.5,), servers=100, jobs=10, seeds=(1,), policies=("equi", "hesrpt"))
    assert subset.policies == ("equi", "hesrpt")
    assert subset.ratio()[0, 1] == 1.0 and subset.ratio()[0, 0] > 1.0
    assert np.isnan(subset.knee_alpha).all()


@pytest.mark.parametrize("call,match", [
    (lambda: pareto_sizes(0, 1.5, 0), "jobs = 0: must be a positive integer"),
    (lambda: pareto_sizes(5, -1.0, 0), r"shape = -1: must be positive and finite \(the tail index\)"),
    (lambda: compare_policies(seeds=()), r"seeds = \(\): must contain at least one seed"),
    (lambda: compare_policies(policies=("srpt", "equi")), "policies = .*include 'hesrpt'"),
    (lambda: compare_policies(policies=("hesrpt", "lrpt")), "policies = "),
    (lambda: compare_policies(servers=10.5), "servers = 10.5"),
    (lambda: compare_policies(p=(1.2,), jobs=3, seeds=(0,)), "p = 1.2"),
])
def test_invalid_input_raises_a_named_error(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()
