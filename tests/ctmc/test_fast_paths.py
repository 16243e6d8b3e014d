"""The exact solver's cheaper paths compute what the scipy ones did: the scaled rates and their
transpose, the symmetrized pattern, the trailing update of a front, and one measure per
factorization."""

import numpy as np
import pytest
import scipy.sparse as sp

from analytic.ctmc import CTMC
from analytic.ctmc import _gth as gth
from analytic.ctmc._balance import Balance, transpose
from analytic.ctmc._gth_analysis import symmetric


def scipy_rates(generator):
    """The off-diagonal rates as Balance built them with scipy: summed, diagonal and zeros dropped, sorted."""
    rates = sp.csr_array(generator, copy=True)
    rates.sum_duplicates()
    rates.setdiag(0.0)
    rates.eliminate_zeros()
    rates.sort_indices()
    return rates


def test_balance_reads_a_non_canonical_generator_as_scipy_does():
    rng = np.random.default_rng(3)
    rows, cols = rng.integers(0, 30, 400), rng.integers(0, 30, 400)
    values = np.where(rng.random(400) < 0.1, 0.0, rng.uniform(0, 5, 400))   # duplicates, zeros, a diagonal
    generator = sp.csr_array((values, (rows, cols)), shape=(30, 30))
    generator.has_canonical_format = False
    reference, balance = scipy_rates(generator), Balance(generator)
    assert balance.rates.indptr.tolist() == reference.indptr.tolist()
    assert balance.rates.indices.tolist() == reference.indices.tolist()
    scale = np.ldexp(1.0, -np.repeat(balance.row_exponent, np.diff(reference.indptr)))
    assert np.array_equal(balance.rates.data, reference.data * scale)
    into = reference.T.tocsr()
    into.sort_indices()
    assert np.array_equal(balance.into.toarray(), balance.rates.T.toarray())
    assert balance.into.indices.tolist() == into.indices.tolist()


def test_transpose_sorts_the_columns():
    rng = np.random.default_rng(5)
    matrix = sp.random_array((40, 40), density=0.2, rng=rng, format="csr")
    indptr, indices, data = transpose(matrix.indptr.astype(np.int64), matrix.indices.astype(np.int64), matrix.data, 40)
    expected = matrix.T.tocsr()
    expected.sort_indices()
    assert indptr.tolist() == expected.indptr.tolist() and indices.tolist() == expected.indices.tolist()
    assert np.array_equal(data, expected.data)


def test_symmetric_pattern_is_that_of_rates_plus_transpose():
    rng = np.random.default_rng(7)
    rates = sp.random_array((50, 50), density=0.1, rng=rng, format="csr")
    pattern, expected = symmetric(rates), (rates + rates.T).tocsr()
    expected.sort_indices()
    assert pattern.indptr.tolist() == expected.indptr.tolist()
    assert pattern.indices.tolist() == expected.indices.tolist()


@pytest.mark.slow
def test_the_trailing_update_is_the_product():
    rng = np.random.default_rng(11)
    for f, b0, b1 in ((7, 0, 3), (90, 0, 64), (700, 64, 128), (35, 10, 17)):
        front = rng.random((f, f)) * (rng.random((f, f)) < 0.7)
        expected = front.copy()
        expected[b1:, b1:] += front[b1:, b0:b1] @ front[b0:b1, b1:]
        gth._trailing(front, b0, b1)
        assert np.allclose(front, expected, rtol=1e-14, atol=0)


def test_one_measure_and_no_sweep_without_a_source():
    chain = CTMC.from_lattice((15, 15), [((1, 0), lambda x: 0.7 * (x[:, 0] < 15)), ((-1, 0), lambda x: 1.0 * (x[:, 0] > 0)),
                                         ((0, 1), lambda x: 0.9 * (x[:, 1] < 15)), ((0, -1), lambda x: 1.0 * (x[:, 1] > 0))])
    balance = Balance(chain.generator)
    factorization = gth.Factorization(balance, gth.analyse(balance.rates, root=balance.likely_state()))
    assert factorization.measure() is factorization.measure()
    mantissa, exponent = factorization.solve(np.zeros(balance.n), np.zeros(balance.n, np.int64))
    assert not mantissa.any() and not exponent.any()
