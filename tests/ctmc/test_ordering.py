"""Orders of the GTH elimination under a permutation, computed without forming the permuted pattern.

References: the elimination tree and the envelope read off a dense boolean symbolic elimination of
the explicitly permuted pattern (brute force, written in the test), and the compact factor storage
counted entry by entry from the plan's fronts.
"""

import numpy as np
import scipy.sparse as sp

from analytic.ctmc import CTMC
from analytic.ctmc import _gth_analysis as analysis
from analytic.ctmc._balance import Balance
from analytic.ctmc._ordering import nested_dissection


def random_pattern(n, density, rng):
    """A symmetric pattern with a path through all states (connected), no diagonal."""
    upper = sp.random_array((n, n), density=density, rng=rng, format="csr")
    path = sp.diags_array([np.ones(n - 1)], offsets=[1])
    matrix = (upper + upper.T + path + path.T).tocsr()
    matrix.setdiag(0)
    matrix.eliminate_zeros()
    matrix.sort_indices()
    return sp.csr_array((np.ones(matrix.nnz), matrix.indices, matrix.indptr), shape=(n, n))


def brute_force(pattern, order):
    """Elimination tree and envelope of ``pattern[order][:, order]`` by dense symbolic elimination."""
    dense = pattern.toarray()[np.ix_(order, order)] != 0
    n = len(order)
    envelope = sum(k - min([j for j in range(k) if dense[k, j]], default=k) for k in range(n))
    filled = dense.copy()
    parent = -np.ones(n, np.int64)
    for k in range(n):
        later = np.flatnonzero(filled[k + 1:, k]) + k + 1
        if later.size:
            parent[k] = later[0]
        filled[np.ix_(later, later)] = True
    return parent, envelope


def test_etree_and_envelope_under_an_order_are_those_of_the_permuted_pattern():
    rng = np.random.default_rng(3)
    for n, density in ((12, 0.2), (30, 0.08), (45, 0.05)):
        pattern = random_pattern(n, density, rng)
        indptr, indices = pattern.indptr.astype(np.int64), pattern.indices.astype(np.int64)
        for order in (rng.permutation(n), nested_dissection(indptr, indices), np.arange(n)):
            parent, envelope = brute_force(pattern, order)
            assert analysis._ordered_etree(indptr, indices, order.astype(np.int64)).tolist() == parent.tolist()
            assert analysis._envelope(indptr, indices, order.astype(np.int64)) == envelope


def test_the_factors_store_only_the_entries_after_each_pivot():
    # Per supernode of p pivots and a front of f states, pivot t keeps the f - t - 1 front states
    # after it: p f - p (p + 1) / 2 entries in each factor.
    chain = CTMC.from_lattice((25, 25), [((1, 0), lambda x: 0.7 * (x[:, 0] < 25)), ((-1, 0), lambda x: 1.0 * (x[:, 0] > 0)),
                                         ((0, 1), lambda x: 0.9 * (x[:, 1] < 25)), ((0, -1), lambda x: 1.0 * (x[:, 1] > 0))])
    plan = analysis.analyse(Balance(chain.generator).rates)
    expected = 0
    for s in range(len(plan.start) - 1):
        p = int(plan.start[s + 1] - plan.start[s])
        f = p + int(plan.update_ptr[s + 1] - plan.update_ptr[s])
        expected += sum(f - t - 1 for t in range(p))
    assert plan.stored == expected
