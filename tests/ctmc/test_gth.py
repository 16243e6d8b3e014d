"""The sparse multifrontal GTH of analytic.ctmc._gth: orders, symbolic analysis, extreme ranges.

References: the product forms of birth–death chains (mpmath at 50 digits, in log space where the
probabilities leave the double range), a dense GTH written in the test, and the structure of
nested dissection itself (a separator must disconnect what it separates).
"""

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from analytic.ctmc import CTMC, stationary
from analytic.ctmc import _gth as multifrontal
from analytic.ctmc import _gth_analysis as analysis
from analytic.ctmc._balance import Balance, Measure
from analytic.ctmc._ordering import LEAF_SIZE, nested_dissection
from analytic.ctmc._refinement import ScaledSolver, refine
from analytic.ctmc.stationary import ACCURACY, FLOOR
from analytic.errors import InvalidParameterError, StateSpaceTooLargeError

mpmath.mp.dps = 50


def grid(k):
    """The symmetric transition graph of a k x k lattice with nearest-neighbour moves."""
    path = sp.diags_array([np.ones(k - 1), np.ones(k - 1)], offsets=[-1, 1])
    eye = sp.identity(k)
    return (sp.kron(path, eye) + sp.kron(eye, path)).tocsr()


def test_nested_dissection_is_a_permutation_whose_last_separator_disconnects_the_grid():
    graph = grid(40)
    order = nested_dissection(graph.indptr, graph.indices)
    assert np.array_equal(np.sort(order), np.arange(1600))
    # The top separator is a trailing block of the order: removing the last 40 states (one BFS
    # level, at most a diagonal of the grid) must leave at least two components.
    keep = np.setdiff1d(np.arange(1600), order[-40:])
    n_parts, _ = connected_components(graph[keep][:, keep], directed=False)
    assert n_parts >= 2


def test_small_graphs_are_one_leaf():
    path = sp.diags_array([np.ones(9), np.ones(9)], offsets=[-1, 1]).tocsr()
    assert sorted(nested_dissection(path.indptr, path.indices).tolist()) == list(range(10))
    assert LEAF_SIZE >= 10


def test_analysis_picks_the_banded_order_on_a_line_and_dissection_on_a_grid():
    up, down = np.full(9999, 0.5), np.ones(9999)
    line = multifrontal.analyse(sp.diags_array([down, up], offsets=[-1, 1]).tocsr())
    assert line.stored <= 10 * 10_000  # no fill beyond the relaxed supernodes
    lattice = CTMC.from_lattice((99, 99), [((1, 0), lambda X: 0.5 * (X[:, 0] < 99)), ((-1, 0), lambda X: 1.0 * (X[:, 0] > 0)),
                                           ((0, 1), lambda X: 0.5 * (X[:, 1] < 99)), ((0, -1), lambda X: 1.0 * (X[:, 1] > 0))])
    rates = Balance(lattice.generator).rates
    plan = multifrontal.analyse(rates)
    banded = analysis._profile(analysis.symmetric(rates), np.arange(lattice.n_states))
    assert plan.stored < banded  # nested dissection beats the band of width 100
    assert plan.bytes > 16 * plan.stored  # both factors
    assert repr(plan).startswith("GTHPlan(n_states=10000, supernodes=")


def test_analysis_with_a_budget_stops_once_the_factors_exceed_it(monkeypatch):
    # The 99 x 99 lattice's plan (computed whole, without a budget) is the reference: a budget at
    # its factors' size minus one byte refuses it with a lower bound on the bytes, any budget at or
    # above its bytes gives the same plan; the auto ladder of a solver that may not plan it (the
    # budget taken from the memory available) goes iterative and says why GTH was not tried.
    lattice = CTMC.from_lattice((99, 99), [((1, 0), lambda X: 0.5 * (X[:, 0] < 99)), ((-1, 0), lambda X: 1.0 * (X[:, 0] > 0)),
                                           ((0, 1), lambda X: 0.5 * (X[:, 1] < 99)), ((0, -1), lambda X: 1.0 * (X[:, 1] > 0))])
    rates = Balance(lattice.generator).rates
    whole = multifrontal.analyse(rates)
    assert multifrontal.analyse(rates, budget=whole.bytes).stored == whole.stored
    with pytest.raises(StateSpaceTooLargeError, match="the GTH factorization needs 10,000 states and about .* GiB"):
        multifrontal.analyse(rates, budget=8 * whole.stored)   # both factors need 16 bytes per stored entry
    monkeypatch.setattr(stationary, "available_bytes", lambda: 8 * whole.stored)
    ladder, plan = stationary._plan_methods(Balance(lattice.generator), "auto", attempts := stationary._Attempts(1e-10))
    assert plan is None and ladder[0] == "iterative" and "gth" not in ladder
    assert attempts.tried[0].startswith("gth: the GTH factorization needs 10,000 states")


def test_analysis_puts_the_root_last():
    moves = [((1, 0), lambda X: 0.5 * (X[:, 0] < 20)), ((-1, 0), lambda X: 1.0 * (X[:, 0] > 0)),
             ((0, 1), lambda X: 0.5 * (X[:, 1] < 20)), ((0, -1), lambda X: 1.0 * (X[:, 1] > 0))]
    rates = Balance(CTMC.from_lattice((20, 20), moves).generator).rates
    for root in (0, 210, 440):
        assert multifrontal.analyse(rates, root=root).order[-1] == root


def test_factorization_is_subtraction_free_and_sized_as_planned():
    chain = CTMC.from_lattice((30, 30), [((1, 0), lambda X: 0.7 * (X[:, 0] < 30)), ((-1, 0), lambda X: 1.0 * (X[:, 0] > 0)),
                                         ((0, 1), lambda X: 0.9 * (X[:, 1] < 30)), ((0, -1), lambda X: 1.0 * (X[:, 1] > 0))])
    balance = Balance(chain.generator)
    plan = multifrontal.analyse(balance.rates, root=0)
    factorization = multifrontal.Factorization(balance, plan)
    assert len(factorization._lower) == len(factorization._upper) == plan.stored
    pivots = factorization._pivot
    assert np.count_nonzero(pivots == 0) == 1 and pivots[-1] == 0  # only the root has nothing left after it
    assert np.all(pivots[:-1] > 0) and np.all(factorization._lower >= 0) and np.all(factorization._upper >= 0)


def test_solve_with_sources_matches_a_dense_solve():
    # u with u_i q_i - sum_j u_j q_ji = w_i off the root and u_root = 0: the pinned system of the
    # certificate, against numpy's dense solve of the same equations.
    rng = np.random.default_rng(7)
    rates = rng.uniform(0.1, 10, (30, 30)) * (rng.random((30, 30)) < 0.3)
    rates[np.arange(29), np.arange(1, 30)] = 1.0
    rates[np.arange(1, 30), np.arange(29)] = 2.0
    np.fill_diagonal(rates, 0)
    balance = Balance(CTMC(rates).generator)
    factorization = multifrontal.Factorization(balance, multifrontal.analyse(balance.rates, root=5))
    sources = rng.uniform(0, 1, 30)
    sources[5] = 0
    mantissa, exponent = factorization.solve(sources, np.zeros(30, np.int64))
    scaled = balance.rates.toarray()
    system = np.diag(scaled.sum(axis=1)) - scaled.T
    system[5] = 0
    system[5, 5] = 1
    assert np.ldexp(mantissa, exponent) == pytest.approx(np.linalg.solve(system, sources), rel=1e-12, abs=0)


@pytest.mark.parametrize("n,load", [(1000, 4.0), (3000, 0.25), (3000, 4.0)])
def test_probabilities_far_beyond_the_double_range(n, load):
    # M/M/1/n: pi(x) ∝ load^x spans load^3000 ~ 1e1806. Every probability >= 1e-290 is exact to
    # the last few digits, the rest are what doubles can hold.
    chain = CTMC.from_function(0, lambda x: ([(x + 1, load)] if x < n else []) + ([(x - 1, 1.0)] if x > 0 else []))
    pi = np.asarray(chain.stationary(method="gth"))
    log_w = np.arange(n + 1) * mpmath.log(load)
    top = max(log_w)
    log_total = top + mpmath.log(mpmath.fsum(mpmath.exp(w - top) for w in log_w))
    exact = np.array([float(mpmath.exp(w - log_total)) for w in log_w])
    vouched = exact >= FLOOR
    assert pi[vouched] == pytest.approx(exact[vouched], rel=ACCURACY, abs=0)
    assert np.all(pi[~vouched] <= 1e-280)


def test_rates_spanning_three_hundred_decades():
    # A birth–death chain whose rates alternate between 1e-150 and 1e150: the embedded-chain
    # scaling keeps every intermediate in range. pi(x) ∝ prod birth/death.
    births = [1e150, 1e-150] * 10
    deaths = [1e-150, 1e150] * 10
    chain = CTMC.from_function(0, lambda x: ([(x + 1, births[x])] if x < 20 else [])
                               + ([(x - 1, deaths[x - 1])] if x > 0 else []))
    weights = [mpmath.mpf(1)]
    for b, d in zip(births, deaths, strict=True):
        weights.append(weights[-1] * mpmath.mpf(b) / mpmath.mpf(d))
    total = mpmath.fsum(weights)
    exact = np.array([float(w / total) for w in weights])
    pi = chain.stationary()
    vouched = exact >= FLOOR
    assert np.asarray(pi)[vouched] == pytest.approx(exact[vouched], rel=pi.accuracy, abs=0)


@pytest.mark.parametrize("rates", [(1e200, 1e150), (1e300, 0.5), (1e-150, 1e150)])
def test_loss_systems_at_huge_arrival_rates(rates):
    """Two independent M/M/c/c queues (c = 3, 4): a product of truncated Poisson laws, in mpmath.
    Pivots of 1e-200 made the back-substitution's total / pivot overflow to inf (NaN probabilities
    vouched for; found by the sweep at ModifiedBS's arrival rate 1.3e103)."""
    capacity = (3, 4)
    moves = [((1, 0), lambda X: rates[0] * (X[:, 0] < capacity[0])), ((-1, 0), lambda X: X[:, 0] * 1.0),
             ((0, 1), lambda X: rates[1] * (X[:, 1] < capacity[1])), ((0, -1), lambda X: X[:, 1] * 1.0)]
    pi = CTMC.from_lattice(capacity, moves).stationary()
    marginals = []
    for a, c in zip(rates, capacity, strict=True):
        weights = [mpmath.mpf(a) ** x / mpmath.factorial(x) for x in range(c + 1)]
        marginals.append([w / mpmath.fsum(weights) for w in weights])
    exact = np.array([float(p * q) for p in marginals[0] for q in marginals[1]])
    vouched = exact >= FLOOR
    assert np.all(np.isfinite(pi.probabilities))
    assert np.asarray(pi)[vouched] == pytest.approx(exact[vouched], rel=pi.accuracy, abs=0)
    assert np.all(np.asarray(pi)[~vouched] <= 1e-280)


def test_rates_out_of_one_state_beyond_the_double_range_are_refused_by_name():
    # Out of (0, 0): 1e-200 and 1e200. Scaled to a unit outflow, the first is 1e-400: no double holds
    # it, and dropping it would change the law.
    moves = [((1, 0), lambda X: 1e-200 * (X[:, 0] < 3)), ((-1, 0), lambda X: X[:, 0] * 1.0),
             ((0, 1), lambda X: 1e200 * (X[:, 1] < 4)), ((0, -1), lambda X: X[:, 1] * 1.0)]
    with pytest.raises(InvalidParameterError, match=r"rate = 1e-200: from state 0 to 5 is too small against the total "
                       r"rate out of state 0 \(1e\+200\): relative to it, it falls below the normal doubles"):
        CTMC.from_lattice((3, 4), moves).stationary()


def test_two_wells_whose_escape_probability_underflows():
    # Two wells of a birth–death chain separated by a barrier 2000 states wide with drift 4:1
    # towards each well: in the censored chain the escape probability from one well to the other
    # is 4^-1000 ~ 1e-602, below the double range. The old solver's pivot underflowed; GTH rooted
    # at a likely state (and auto) must give the two equal wells.
    width = 1000
    births = [1.0] * 50 + [0.25] * width + [1.0] * width + [1.0] * 50
    deaths = [1.0] * 50 + [1.0] * width + [0.25] * width + [1.0] * 50
    n = len(births)
    chain = CTMC.from_function(0, lambda x: ([(x + 1, births[x])] if x < n else []) + ([(x - 1, deaths[x - 1])] if x > 0 else []))
    pi = chain.stationary(method="gth")
    weights = [mpmath.mpf(1)]
    for b, d in zip(births, deaths, strict=True):
        weights.append(weights[-1] * mpmath.mpf(b) / mpmath.mpf(d))
    total = mpmath.fsum(weights)
    exact = np.array([float(w / total) for w in weights])
    vouched = exact >= FLOOR
    assert np.asarray(pi)[vouched] == pytest.approx(exact[vouched], rel=ACCURACY, abs=0)
    assert pi.probabilities[:50].sum() == pytest.approx(pi.probabilities[-50:].sum(), rel=1e-13, abs=0)
    assert np.asarray(chain.stationary())[vouched] == pytest.approx(exact[vouched], rel=ACCURACY, abs=0)


def test_censored_rates_below_the_double_range_carry_row_exponents():
    # M/M/1/1000 at load 4 eliminated from the empty state up to the full one (the root): the rate
    # from the root into state t, censored on {t, ..., 1000}, is about 4^-(1000 - t), down to
    # 1e-602; without the row exponents it underflowed to zero and with it pi(0).
    n = 1000
    chain = CTMC.from_function(0, lambda x: ([(x + 1, 4.0)] if x < n else []) + ([(x - 1, 1.0)] if x > 0 else []))
    balance = Balance(chain.generator)
    factorization = multifrontal.Factorization(balance, multifrontal.analyse(balance.rates, root=n))
    assert factorization._lower_exponent.min() < -1000
    x = factorization.measure()
    log_x = np.log2(x.hi) + x.exponent - balance.row_exponent
    assert np.diff(log_x) == pytest.approx(np.full(n, 2.0), abs=1e-12)  # pi(t+1)/pi(t) = 4 all the way down


def test_zeros_of_a_measure_are_filled_by_detailed_balance_ratios():
    # Two independent M/M/1/59 queues at loads 1e-4 and 1e-3: pi(x, y) ∝ 1e-4^x 1e-3^y (product
    # form). The measure is zeroed on x + y >= 40 (what underflows in GTH's deep tail) and filled
    # again: continuing each state's likeliest neighbour by the spanning-tree measure's
    # ratio is exact for this reversible chain, 80 steps deep. Filling by the inflow from the
    # positive side alone lost a factor of about (1 + load) per step: 2^-3 at the far corner. Down to 2^-1373.
    capacity, loads = 59, (1e-4, 1e-3)
    moves = [((1, 0), lambda X: loads[0] * (X[:, 0] < capacity)), ((-1, 0), lambda X: 1.0 * (X[:, 0] > 0)),
             ((0, 1), lambda X: loads[1] * (X[:, 1] < capacity)), ((0, -1), lambda X: 1.0 * (X[:, 1] > 0))]
    chain = CTMC.from_lattice((capacity, capacity), moves)
    balance = Balance(chain.generator)
    grid_x, grid_y = np.divmod(np.arange(chain.n_states), capacity + 1)
    log2_pi = grid_x * np.log2(loads[0]) + grid_y * np.log2(loads[1])
    whole = np.floor(log2_pi)
    kept = grid_x + grid_y < 40
    measure = Measure.from_parts(np.where(kept, np.exp2(log2_pi - whole), 0.0), whole.astype(np.int64) + balance.row_exponent)
    mantissa, exponent = balance.probabilities(balance.positive(measure))
    log2_filled = np.log2(mantissa) + exponent
    assert log2_filled.min() < -1000
    assert log2_filled - log2_filled[0] == pytest.approx(log2_pi, rel=0, abs=1e-9)


def test_refinement_raises_states_whose_measure_is_too_small_by_more_than_the_double_range():
    # M/M/1/1500 at load 1/4: pi(x) ∝ 4^-x = 2^-2x. GTH's measure made 2^-1500 too small from
    # x = 1000 on (the relative flow excess of state 1000 is then 2^1500, beyond the doubles) is
    # raised by capped corrections, round after round through the same factorization, to the law.
    n = 1500
    chain = CTMC.from_function(0, lambda x: ([(x + 1, 0.25)] if x < n else []) + ([(x - 1, 1.0)] if x > 0 else []))
    balance = Balance(chain.generator)
    factorization = multifrontal.Factorization(balance, multifrontal.analyse(balance.rates, root=0))
    x = factorization.measure()
    wrong = Measure(x.hi, x.lo, x.exponent - 1500 * (np.arange(n + 1) >= 1000))
    refined = refine(balance, wrong, 0, 1e-25, ScaledSolver(balance, "gth", factorization))
    mantissa, exponent = balance.probabilities(refined.x)
    log2_pi = np.log2(mantissa) + exponent
    assert refined.residual <= 1e-25
    assert log2_pi - log2_pi[0] == pytest.approx(-2.0 * np.arange(n + 1), rel=0, abs=1e-12)


def test_a_pivot_vanishing_towards_an_unlikely_root_is_retried_at_its_state():
    # States a = 0 and b = 1 exchange at rate 1; a path p_1..p_L (states 2..L+1) leads from a to
    # r = L + 2 with rates 1/4 outwards and 1 back. Eliminated through the path first, then b and a
    # with r as root (as when a rough measure guesses the root in a far tail): a's censored rate
    # to r, 4^-L, reaches a's front in a row whose other entry (a -> b -> a) is O(1), and
    # underflows there; a's pivot vanishes. The failure names a, and the solver factors again
    # rooted at a: the law is pi(a) = pi(b), then 4^-x along the path (exact in binary).
    length = 1000
    root = length + 2

    def moves(x):
        if x <= 1:
            return [(1 - x, 1.0)] + ([(2, 0.25)] if x == 0 else [])
        return [(x - 1 if x > 2 else 0, 1.0)] + ([(x + 1, 0.25)] if x < root else [])
    chain = CTMC.from_function(0, moves)
    balance = Balance(chain.generator)
    states = np.array([chain.index(x) for x in range(root + 1)])
    order = states[np.r_[2:root, 1, 0, root]].astype(np.int64)
    unlikely_root = analysis._plan((balance.rates + balance.rates.T).tocsr(), order, balance.rates.nnz)
    with pytest.raises(multifrontal.VanishedPivot) as vanished:
        multifrontal.Factorization(balance, unlikely_root)
    assert vanished.value.state == states[0]
    factorization = stationary._rooted_factorization(balance, unlikely_root)
    mantissa, exponent = balance.probabilities(factorization.measure())
    log2_pi = (np.log2(mantissa) + exponent)[states]
    assert factorization.root == states[0]
    assert log2_pi - log2_pi[0] == pytest.approx(np.r_[0.0, 0.0, -2.0 * np.arange(1, root)], rel=0, abs=1e-12)
