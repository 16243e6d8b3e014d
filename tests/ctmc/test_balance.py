"""The sparse kernels of analytic.ctmc._balance against scipy.sparse and numpy (independent implementations)."""

import numpy as np
import pytest
import scipy.sparse as sp

from analytic.ctmc._balance import _POWERS, Balance, _ldexp, _off_diagonal, transpose
from analytic.ctmc._spanning import spanning_tree


def random_generator(rng, n, density):
    """A random generator (rates of a few distinct values, so that ties occur), some pairs joined both ways."""
    rates = sp.random_array((n, n), density=density, random_state=rng, format="csr")
    rates = sp.csr_array(rates + (rates.T if rng.random() < 0.5 else 0 * rates))
    rates.data = rng.choice([0.5, 1.0, 3.0], len(rates.data))
    rates.setdiag(0.0)
    rates.eliminate_zeros()
    return sp.csr_array(rates - sp.diags_array(rates.sum(axis=1)))


@pytest.mark.parametrize("seed", range(10))
def test_transpose_matches_scipy_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 80))
    matrix = sp.random_array((n, n), density=float(rng.uniform(0.0, 0.5)), random_state=rng, format="csr")
    matrix.data = rng.standard_normal(len(matrix.data)) * np.ldexp(1.0, rng.integers(-1070, 1000, len(matrix.data)))
    indptr, indices, data = transpose(matrix.indptr.astype(np.int64), matrix.indices.astype(np.int64), matrix.data, n)
    reference = sp.csr_array(matrix.T)     # scipy's own transpose, canonical (sorted indices)
    reference.sort_indices()
    assert indptr.tolist() == reference.indptr.tolist() and indices.tolist() == reference.indices.tolist()
    assert np.array_equal(data.view(np.int64), reference.data.view(np.int64))


def test_power_of_two_scaling_is_ldexp_bit_for_bit():
    # numpy's ldexp as the reference, subnormal and overflowing results included
    rng = np.random.default_rng(0)
    x = rng.standard_normal(4000) * np.ldexp(1.0, rng.integers(-1074, 1023, 4000))
    k = rng.integers(-2200, 2200, 4000)
    ours = np.array([_ldexp(a, b) for a, b in zip(x.tolist(), k.tolist(), strict=True)])
    with np.errstate(over="ignore"):
        assert np.array_equal(ours.view(np.int64), np.ldexp(x, k).view(np.int64))
    assert _POWERS[0] == 2.0**-1074 and _POWERS[-1] == 2.0**1023


@pytest.mark.parametrize("seed", range(10))
def test_reverse_rates_and_tree_over_one_transition_per_pair(seed):
    rng = np.random.default_rng(seed)
    generator = random_generator(rng, int(rng.integers(2, 60)), float(rng.uniform(0.05, 0.3)))
    balance = Balance(generator)
    dense = balance.rates.toarray()
    indptr, indices, _ = _off_diagonal(generator)
    rows = np.repeat(np.arange(balance.n), np.diff(indptr))
    assert np.array_equal(balance.reverse_rates(), dense[indices, rows])      # the dense matrix's transpose
    # the tree over the first transition of each pair joined both ways is the tree over all of them
    back = balance.reverse_rates()
    weight = np.where(back > 0, -np.log2(balance.rates.data) - np.log2(np.where(back > 0, back, 1.0)), np.inf)
    among = np.flatnonzero((indices > rows) | (back == 0))
    everything = spanning_tree(indptr, indices, weight, 0)
    halved = spanning_tree(indptr, indices, weight[among], 0, among)
    assert all(np.array_equal(a, b) for a, b in zip(everything, halved, strict=True))
