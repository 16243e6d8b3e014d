"""Multilevel aggregation: the starting measure and the preconditioner of the iterative solves.

References: the product form of two independent M/M/1/K queues (exact), and ILU(0) on the same
scaled systems (the preconditioner it replaces on large chains)."""

import numpy as np
import pytest
import scipy.sparse as sp

from analytic.ctmc import CTMC, stationary
from analytic.ctmc import _multilevel as multilevel
from analytic.ctmc._balance import Balance, Measure
from analytic.ctmc._certificate import relative_residual
from analytic.ctmc._krylov import gmres
from analytic.ctmc._preconditioner import ILU0

LOADS = (0.6, 0.8)


def two_queues(capacity):
    moves = [((1, 0), lambda X: LOADS[0] * (X[:, 0] < capacity)), ((-1, 0), lambda X: 1.0 * (X[:, 0] > 0)),
             ((0, 1), lambda X: LOADS[1] * (X[:, 1] < capacity)), ((0, -1), lambda X: 1.0 * (X[:, 1] > 0))]
    chain = CTMC.from_lattice((capacity, capacity), moves)
    marginals = [rho ** np.arange(capacity + 1) for rho in LOADS]
    return chain, np.outer(*[m / m.sum() for m in marginals]).ravel()


def measure_of(law, balance):
    log_x = np.log2(law) + balance.row_exponent
    whole = np.floor(log_x)
    return Measure.from_parts(np.exp2(log_x - whole), whole.astype(np.int64))


@pytest.mark.slow
def test_aggregation_measure_approaches_the_product_form():
    # 150 x 150 lattice (22 801 states, three levels above the exact coarsest solve): on the states
    # within 2^-20 of the mode the largest error in log2 falls geometrically with the cycles
    # (measured 4.3, 0.92, 0.041 and 7e-5 after 5, 10, 20 and 40).
    chain, exact = two_queues(150)
    balance = Balance(chain.generator)
    top = exact >= exact.max() * 2.0**-20

    def error(x):
        law = x.hi * np.exp2(x.exponent - balance.row_exponent.astype(float))
        law = law / law[np.argmax(exact)] * exact.max()
        return float(np.max(np.abs(np.log2(law[top] / exact[top]))))

    errors = [error(multilevel.aggregation_measure(balance, cycles)) for cycles in (10, 20, 40)]
    assert errors[0] < 1 and errors[1] < 0.1 and errors[2] < 1e-3


@pytest.mark.slow
def test_preconditioner_needs_fewer_iterations_than_ilu0_and_leaves_its_matrix_alone():
    # The scaled system of a measure 10 % off in a smooth way, on the 150 x 150 lattice: GMRES
    # to 1e-10 with the V-cycle takes a fraction of ILU(0)'s iterations; the matrix handed in is not
    # modified (its diagonal was once zeroed in place by a shared-data copy).
    chain, exact = two_queues(150)
    balance = Balance(chain.generator)
    states = np.arange(len(exact))
    x = measure_of(exact * (1 + 0.1 * np.sin(states / 500)), balance)
    reference = int(np.argmax(exact))
    matrix = balance.scaled_matrix(x, reference)
    before = matrix.copy()
    rho, _ = relative_residual(balance, x, reference)
    log_flow = np.log2(x.hi) + x.exponent + np.log2(balance.outflow)
    _, ml_iterations, ml_residual = gmres(lambda v: matrix @ v, multilevel.Multilevel(matrix, log_flow).solve, rho, 1e-10,
                                          100, 30)
    assert (matrix != before).nnz == 0
    ilu = ILU0(matrix, balance.order_toward(reference))
    _, ilu_iterations, ilu_residual = gmres(lambda v: matrix @ v, ilu.solve, rho, 1e-10, 100, 30)
    assert ml_residual <= 1e-10 and ilu_residual <= 1e-10
    assert ml_iterations < ilu_iterations / 2


def test_coarse_diagonal_is_at_least_the_aggregate_flow_out():
    # At the exact measure each aggregate's coarse diagonal is its flow out to other aggregates
    # over its total flow; computed as a difference it may cancel, so the level takes the larger of
    # the two. Here the flows out computed directly from the rates of the chain must be matched.
    chain, exact = two_queues(60)
    balance = Balance(chain.generator)
    x = measure_of(exact, balance)
    reference = int(np.argmax(exact))
    matrix = balance.scaled_matrix(x, reference)
    log_flow = np.log2(x.hi) + x.exponent + np.log2(balance.outflow)
    level = multilevel.Multilevel(matrix, log_flow)
    aggregate = level.aggregates[0]
    coarse = level._next.matrix.diagonal()
    rates = chain.generator.tocoo()
    off = rates.row != rates.col
    row, col, rate = rates.row[off], rates.col[off], rates.data[off]
    leaving = aggregate[row] != aggregate[col]
    out = np.bincount(aggregate[row[leaving]], exact[row[leaving]] * rate[leaving], minlength=len(coarse))
    total = np.bincount(aggregate[row], exact[row] * rate, minlength=len(coarse))
    others = np.flatnonzero(np.arange(len(coarse)) != aggregate[reference])
    assert coarse[others] == pytest.approx(out[others] / total[others], rel=1e-9, abs=0)


def test_iterative_solves_above_the_threshold_go_multilevel_and_are_exact(monkeypatch):
    # With the threshold lowered to the 100 x 100 lattice, the iterative method starts from the
    # aggregation measure and preconditions by V-cycles; the law is the product form to 1e-12.
    monkeypatch.setattr(multilevel, "MULTILEVEL_STATES", 5_000)
    monkeypatch.setattr(stationary, "MULTILEVEL_STATES", 5_000)
    import analytic.ctmc._refinement as refinement
    monkeypatch.setattr(refinement, "MULTILEVEL_STATES", 5_000)
    chain, exact = two_queues(100)
    law = chain.stationary(method="iterative")
    assert "multilevel" in law.method
    assert np.max(np.abs(np.asarray(law) / exact - 1)) < 1e-12
    assert np.all(law.error_bounds <= 1e-10)


def test_laws_beyond_the_double_range_give_finite_measures():
    # Birth-death chains of 8 000 states whose law falls, or rises, by a factor 4 a step (over
    # 2^16000): the coarsest chain's law lies beyond the double range, and is taken relative to its
    # largest value; the measure stays finite and positive and its likeliest states step by the
    # law's ratio.
    for up, down in ((1.0, 4.0), (4.0, 1.0)):
        balance = Balance(sp.diags_array([np.full(7999, down), np.full(7999, up)], offsets=[-1, 1]).tocsr())
        x = multilevel.aggregation_measure(balance, 20)
        assert np.all(np.isfinite(x.hi)) and np.all(x.hi > 0)
        law = x.hi * np.exp2(x.exponent - balance.row_exponent.astype(float))
        top = np.argsort(law)[-30:]
        mode = int(np.argmax(law))
        near = np.sort(top[np.abs(top - mode) < 30])
        assert np.allclose(law[near[1:]] / law[near[:-1]], up / down, rtol=1e-3, atol=0)


@pytest.mark.slow
def test_the_leaves_of_a_hub_are_aggregated_and_a_star_is_solved_exactly():
    """A hub with 20 000 leaves (rates hub -> leaf a_i, leaf -> hub b_i): pairwise matching alone
    pairs the hub with one leaf and leaves the others alone, level after level (the V-cycle's
    recursion overflowed on such chains). The leaves must join the hub's aggregate, and the
    iterative solve must give the closed form pi_i / pi_hub = a_i / b_i."""
    leaves = 20_000
    rng = np.random.default_rng(5)
    a, b = rng.uniform(0.5, 2.0, leaves), rng.uniform(0.5, 2.0, leaves)
    hub = np.zeros(leaves, dtype=np.int64)
    leaf = np.arange(1, leaves + 1)
    rates = sp.csr_array((np.concatenate([a, b]), (np.concatenate([hub, leaf]), np.concatenate([leaf, hub]))),
                         shape=(leaves + 1, leaves + 1))
    aggregate, coarse = multilevel._coarsen(rates, 1)
    assert coarse.shape[0] == 1 and np.all(aggregate == 0)
    law = CTMC(rates).stationary(method="iterative").probabilities
    expected = np.concatenate([[1.0], a / b])
    np.testing.assert_allclose(law, expected / expected.sum(), rtol=1e-10, atol=0)
