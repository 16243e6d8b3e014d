"""Tests of analytic.ctmc against closed forms computed independently in each test.

References: M/M/1/K and birth–death stationary laws from the product of rate ratios (computed
with mpmath at 50 digits), Erlang B from its recursion, random reversible chains from their
detailed-balance solution, transient laws from a dense matrix exponential (scipy.linalg.expm).
"""

import math

import mpmath
import numpy as np
import pytest
import scipy.linalg
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.ctmc import CTMC, Stationary
from analytic.ctmc.stationary import FLOOR
from analytic.errors import (
    InvalidParameterError,
    ReducibleChainError,
    StateSpaceTooLargeError,
)

mpmath.mp.dps = 50


def birth_death(capacity, birth, death):
    """Birth–death chain on 0..capacity with rate functions birth(x), death(x)."""
    return CTMC.from_function(
        0, lambda x: [(x + 1, birth(x))] * (x < capacity) + [(x - 1, death(x))] * (x > 0))


def birth_death_exact(capacity, birth, death):
    """pi(x) proportional to prod_{y<x} birth(y)/death(y+1), in mpmath at 50 digits."""
    weights = [mpmath.mpf(1)]
    for x in range(capacity):
        weights.append(weights[-1] * mpmath.mpf(birth(x)) / mpmath.mpf(death(x + 1)))
    total = mpmath.fsum(weights)
    return np.array([float(w / total) for w in weights])


def two_queues(capacity, loads):
    moves = [((1, 0), lambda X: loads[0] * (X[:, 0] < capacity)), ((-1, 0), lambda X: 1.0 * (X[:, 0] > 0)),
             ((0, 1), lambda X: loads[1] * (X[:, 1] < capacity)), ((0, -1), lambda X: 1.0 * (X[:, 1] > 0))]
    return CTMC.from_lattice((capacity, capacity), moves)


# -- closed forms ---------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["direct", "iterative"])
@pytest.mark.parametrize("capacity,rho", [(1, 0.5), (10, 0.8), (50, 1.0), (200, 1.3), (1000, 0.95)])
def test_mm1k_matches_geometric_law(capacity, rho, method):
    pi = birth_death(capacity, lambda x: rho, lambda x: 1.0).stationary(method=method)
    exact = birth_death_exact(capacity, lambda x: rho, lambda x: 1.0)
    assert np.abs(pi.probabilities - exact).max() == pytest.approx(0, abs=1e-12)
    assert pi.residual < 1e-12


@pytest.mark.parametrize("servers,load", [(1, 0.3), (5, 4.0), (30, 25.0), (100, 120.0)])
def test_mmss_blocking_equals_erlang_recursion(servers, load):
    chain = birth_death(servers, lambda x: load, lambda x: float(x))
    recursion = mpmath.mpf(1)
    for k in range(1, servers + 1):
        recursion = load * recursion / (k + load * recursion)
    assert chain.stationary().probability(servers) == pytest.approx(float(recursion), rel=1e-12, abs=0)


def test_birth_death_with_state_dependent_rates():
    birth = lambda x: 2.0 / (1 + x)  # noqa: E731 - discouraged arrivals
    death = lambda x: 0.5 + x**0.5  # noqa: E731
    pi = birth_death(60, birth, death).stationary()
    assert np.allclose(pi.probabilities, birth_death_exact(60, birth, death), rtol=1e-12, atol=1e-300)


def test_extreme_dynamic_range_rescales_reference_state():
    # pi(0)/pi(K) = 4^-600 ~ 1e-361: with state 0 as reference the unnormalized solution overflows.
    pi = birth_death(600, lambda x: 4.0, lambda x: 1.0).stationary(method="direct")
    exact = birth_death_exact(600, lambda x: 4.0, lambda x: 1.0)
    assert np.all(np.isfinite(pi.probabilities))
    assert np.abs(pi.probabilities - exact).max() < 1e-13
    assert pi.probabilities[-1] == pytest.approx(0.75, rel=1e-12, abs=0)


@pytest.mark.parametrize("method", ["direct", "iterative"])
def test_peak_in_the_middle_is_found_as_reference(method):
    # Drift towards state 600 from both sides: pi(0)/pi(600) = 4^-600 ~ 1e-361 underflows, so
    # neither end can serve as reference state; the rounds must find the peak and pin it.
    birth = lambda x: 4.0 if x < 600 else 1.0  # noqa: E731
    death = lambda x: 1.0 if x <= 600 else 4.0  # noqa: E731
    pi = birth_death(1200, birth, death).stationary(method=method)
    assert np.abs(pi.probabilities - birth_death_exact(1200, birth, death)).max() < 1e-13
    assert pi.conditioning < 1e4    # pinned at the peak: every state reaches it in a few hundred jumps


@pytest.mark.parametrize("method", ["direct", "iterative"])
def test_given_reference_state_is_used_first(method):
    chain = birth_death(200, lambda x: 1.3, lambda x: 1.0)
    pi = chain.stationary(method=method, reference=200)
    assert np.abs(pi.probabilities - birth_death_exact(200, lambda x: 1.3, lambda x: 1.0)).max() < 1e-13
    with pytest.raises(InvalidParameterError, match="reference = 201: is not a state of this chain"):
        chain.stationary(reference=201)


def test_reachable_subchain_of_a_lattice():
    # Jobs arrive and leave in pairs on 0..6: from 0 only even counts are reachable; the full lattice
    # chain is reducible, its reachable part is a birth–death chain on {0, 2, 4, 6}.
    moves = [((2,), lambda X: 1.0 * (X[:, 0] <= 4)), ((-2,), lambda X: 2.0 * (X[:, 0] >= 2))]
    chain = CTMC.from_lattice((6,), moves)
    with pytest.raises(ReducibleChainError):
        chain.stationary()
    even = chain.reachable()
    assert even.states.ravel().tolist() == [0, 2, 4, 6]
    assert np.allclose(even.generator.sum(axis=1), 0, atol=0)
    assert np.allclose(even.stationary().probabilities, birth_death_exact(3, lambda x: 1.0, lambda x: 2.0), rtol=1e-13, atol=0)
    assert even.reachable() is even
    assert chain.reachable((3,)).states.ravel().tolist() == [1, 3, 5]


def test_reachable_subchain_of_explicit_states():
    chain = CTMC(np.array([[0, 1, 0], [1, 0, 0], [0, 1, 0]], dtype=float), states=["a", "b", "c"])
    assert chain.reachable("a").states == ["a", "b"]


def test_small_probabilities_keep_relative_accuracy_when_state_0_is_unlikely():
    # Found by hypothesis: pi(0) is 1e-6 of the mode pi(4); pinned at state 0 the old direct solve
    # returned pi(0) with relative error 1e-10.
    births, deaths = [1.0, 12.0, 18.0, 8.0, 1.0], [0.5, 0.0625, 0.05, 1.0]
    birth, death = (lambda x: births[x]), (lambda x: deaths[x - 1])
    pi = birth_death(4, birth, death).stationary(method="direct", reference=0)
    assert np.allclose(pi.probabilities, birth_death_exact(4, birth, death), rtol=1e-14, atol=0)


@pytest.mark.parametrize("method", ["direct", "iterative"])
def test_lattice_product_form(method):
    capacity, loads = 40, (0.7, 1.2)
    pi = two_queues(capacity, loads).stationary(method=method)
    marginals = [birth_death_exact(capacity, lambda x, r=r: r, lambda x: 1.0) for r in loads]
    assert np.abs(pi.probabilities - np.outer(*marginals).ravel()).sum() < 1e-11


@pytest.mark.slow
def test_auto_method_is_gth_on_a_long_line_and_iterative_on_a_four_dimensional_cube():
    # A birth–death chain of 300 000 states: GTH in its banded order stores about 9 numbers per state.
    line = CTMC.from_lattice((299_999,), [((1,), lambda X: 0.5 * (X[:, 0] < 299_999)), ((-1,), lambda X: 1.0 * (X[:, 0] > 0))])
    pi = line.stationary()
    assert pi.method.startswith("gth")
    exact = 0.5 ** np.arange(300_000.0) * 0.5  # geometric law, truncation mass 2^-300000 = 0
    big = exact > FLOOR
    assert np.asarray(pi)[big] == pytest.approx(exact[big], rel=pi.accuracy, abs=0)
    # Four dimensions: GTH's fronts grow like n^(3/4), so the iterative rounds come first.
    moves = [(tuple(np.eye(4, dtype=int)[k] * sign), lambda X, k=k, sign=sign: (0.4 if sign > 0 else 1.0) * (
        (X[:, k] < 7) if sign > 0 else (X[:, k] > 0))) for k in range(4) for sign in (1, -1)]
    cube = CTMC.from_lattice((7, 7, 7, 7), moves)
    pi = cube.stationary()
    assert cube.n_states == 4096 and pi.method.startswith("iterative")
    marginal = birth_death_exact(7, lambda x: 0.4, lambda x: 1.0)
    exact = np.einsum("i,j,k,l->ijkl", marginal, marginal, marginal, marginal).ravel()
    assert np.asarray(pi) == pytest.approx(exact, rel=pi.accuracy, abs=0)


def test_lattice_with_feasible_simplex_matches_function_build():
    # Loss system with jobs of width 1 and 2 on 6 servers: x1 + 2 x2 <= 6 (a downward-closed set).
    n, lam, mu = 6, (1.5, 0.7), (1.0, 0.5)
    fits = lambda x, w: x[0] + 2 * x[1] + w <= n  # noqa: E731
    moves = [((1, 0), lambda X: lam[0] * (X[:, 0] + 2 * X[:, 1] + 1 <= n)), ((-1, 0), lambda X: mu[0] * X[:, 0]),
             ((0, 1), lambda X: lam[1] * (X[:, 0] + 2 * X[:, 1] + 2 <= n)), ((0, -1), lambda X: mu[1] * X[:, 1])]
    lattice = CTMC.from_lattice((n, n), moves, feasible=lambda X: X[:, 0] + 2 * X[:, 1] <= n)

    def transitions(x):
        if fits(x, 1):
            yield (x[0] + 1, x[1]), lam[0]
        if fits(x, 2):
            yield (x[0], x[1] + 1), lam[1]
        yield (x[0] - 1, x[1]), mu[0] * x[0]
        yield (x[0], x[1] - 1), mu[1] * x[1]

    explicit = CTMC.from_function((0, 0), transitions)
    assert lattice.n_states == explicit.n_states == 16
    p_lattice = lattice.stationary().probabilities
    p_explicit = explicit.stationary().probabilities
    order = [explicit.index(tuple(x)) for x in lattice.states.tolist()]
    assert np.allclose(p_lattice, p_explicit[order], rtol=1e-12, atol=0)
    # product form of the multi-class loss system: pi(x) ∝ prod (lam_i/mu_i)^x_i / x_i!
    from math import factorial
    weights = np.array([(lam[0] / mu[0]) ** a / factorial(a) * (lam[1] / mu[1]) ** b / factorial(b)
                        for a, b in lattice.states.tolist()])
    assert np.allclose(p_lattice, weights / weights.sum(), rtol=1e-12, atol=0)


# -- random reversible chains --------------------------------------------------------------------


def random_reversible(rng, n, density):
    """Q with q_ij = s_ij w_j for symmetric s: reversible with pi ∝ w."""
    weights = rng.uniform(0.1, 10, n)
    s = sp.random(n, n, density=density, random_state=rng).toarray()
    s = np.triu(s, 1)
    s = s + s.T
    ring = np.roll(np.eye(n), 1, axis=1)  # guarantee irreducibility
    s = s + 0.5 * (ring + ring.T)
    return CTMC(s * weights[None, :]), weights / weights.sum()


@pytest.mark.parametrize("seed", range(5))
def test_random_reversible_chain_matches_detailed_balance(seed):
    chain, exact = random_reversible(np.random.default_rng(seed), 300, 0.02)
    pi = chain.stationary()
    assert np.allclose(pi.probabilities, exact, rtol=1e-11, atol=0)
    assert chain.detailed_balance_residual(pi) < 1e-13


def test_detailed_balance_residual_detects_irreversible_cycle():
    # A 3-cycle with rates only one way round is irreversible: flows pi_i q_ij = 1/3 each way unmatched.
    chain = CTMC(np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]], dtype=float))
    pi = chain.stationary()
    assert np.allclose(pi.probabilities, 1 / 3, atol=0)
    assert chain.detailed_balance_residual(pi) == pytest.approx(1.0, rel=1e-12, abs=0)


# -- expected rewards and transient law ----------------------------------------------------------


def test_expected_reward_mean_queue_length_mm1k():
    capacity, rho = 25, 0.9
    pi = birth_death(capacity, lambda x: rho, lambda x: 1.0).stationary()
    exact = birth_death_exact(capacity, lambda x: rho, lambda x: 1.0)
    mean = float(np.arange(capacity + 1) @ exact)
    assert pi.expected(lambda x: x) == pytest.approx(mean, rel=1e-12, abs=0)
    assert pi.expected(np.arange(capacity + 1)) == pytest.approx(mean, rel=1e-12, abs=0)


def test_expected_reward_on_lattice_is_vectorized():
    pi = two_queues(20, (0.5, 0.5)).stationary()
    calls = []
    total = pi.expected(lambda X: calls.append(X.shape) or X.sum(axis=1))
    assert calls == [(441, 2)]
    m = birth_death_exact(20, lambda x: 0.5, lambda x: 1.0)
    assert total == pytest.approx(2 * float(np.arange(21) @ m), rel=1e-12, abs=0)


def test_transient_matches_dense_expm_and_tends_to_stationary():
    chain = birth_death(15, lambda x: 0.7, lambda x: 1.0 + 0.1 * x)
    dense = chain.generator.toarray()
    times = [2.0, 0.0, 0.5, 7.0]
    p = chain.transient(times, initial=3)
    for k, t in enumerate(times):
        expected = scipy.linalg.expm(dense * t)[3]
        assert np.allclose(p[k], expected, atol=1e-13, rtol=0)
    far = chain.transient(400.0, initial=0)
    assert np.allclose(far, chain.stationary().probabilities, atol=1e-12)


def test_transient_accepts_distribution_and_absorbing_chain():
    # Pure death process 3 -> 2 -> 1 -> 0 at rate 1: P(still at 3 by time t) = exp(-t).
    chain = CTMC.from_function(3, lambda x: [(x - 1, 1.0)] * (x > 0))
    start = np.zeros(4)
    start[chain.index(3)] = 1.0
    assert chain.transient(1.5, start)[chain.index(3)] == pytest.approx(np.exp(-1.5), rel=1e-12, abs=0)


# -- construction details ------------------------------------------------------------------------


def test_repeated_targets_add_and_self_loops_vanish():
    chain = CTMC.from_function("a", lambda s: [("b", 1.0), ("b", 2.0), ("a", 5.0)] if s == "a" else [("a", 1.5)])
    q = chain.generator.toarray()
    assert q[chain.index("a"), chain.index("b")] == 3.0
    assert np.allclose(q.sum(axis=1), 0, atol=0)
    assert chain.stationary().probability("a") == pytest.approx(1.5 / 4.5, rel=1e-14, abs=0)


def test_zero_rate_targets_are_not_explored():
    chain = CTMC.from_function(0, lambda x: [(1 - x, 1.0), (x + 10, 0.0)])
    assert chain.n_states == 2


def test_generator_constructor_recomputes_diagonal_and_keeps_labels():
    chain = CTMC(np.array([[99.0, 2.0], [3.0, -7.0]]), states=["up", "down"])
    assert np.allclose(chain.generator.toarray(), [[-2, 2], [3, -3]], atol=0)
    assert chain.stationary().probability("up") == pytest.approx(0.6, rel=1e-14, abs=0)


def test_lattice_index_and_origin_first():
    chain = two_queues(3, (0.5, 0.5))
    assert chain.states[0].tolist() == [0, 0]
    assert chain.states[chain.index((2, 1))].tolist() == [2, 1]


def test_single_state_chain():
    pi = CTMC.from_function("only", lambda s: []).stationary()
    assert pi.probabilities.tolist() == [1.0]


# -- hypothesis properties -----------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 25), st.integers(0, 2**32 - 1), st.sampled_from(["direct", "iterative"]))
def test_stationary_is_a_probability_vector(n, seed, method):
    rng = np.random.default_rng(seed)
    rates = rng.exponential(1.0, (n, n)) * (rng.random((n, n)) < 0.4)
    rates += np.roll(np.eye(n), 1, axis=1) * rng.uniform(0.01, 5)  # a cycle keeps it irreducible
    chain = CTMC(rates)
    pi = chain.stationary(method=method)
    assert np.all(pi.probabilities >= 0)
    assert pi.probabilities.sum() == pytest.approx(1.0, abs=1e-13)
    assert pi.residual < 1e-10 * max(1.0, np.abs(rates).max())
    dense = np.linalg.lstsq(np.vstack([chain.generator.toarray().T, np.ones(n)]),
                            np.r_[np.zeros(n), 1.0], rcond=None)[0]
    assert np.allclose(pi.probabilities, dense, atol=1e-10)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0.05, 20), min_size=2, max_size=40), st.lists(st.floats(0.05, 20), min_size=2, max_size=40))
def test_birth_death_property(births, deaths):
    capacity = min(len(births), len(deaths)) - 1  # birth(capacity) is evaluated, then discarded
    birth, death = (lambda x: births[x]), (lambda x: deaths[x - 1])
    pi = birth_death(capacity, birth, death).stationary()
    assert np.allclose(pi.probabilities, birth_death_exact(capacity, birth, death), rtol=1e-10, atol=1e-300)


# -- errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("rate", [-1.0, float("nan"), float("inf")])
def test_bad_rate_in_transition_function(rate):
    with pytest.raises(InvalidParameterError, match=r"rate = .*must be real, finite and >= 0 \(from state 0 to 1\)"):
        CTMC.from_function(0, lambda x: [(1, rate)] if x == 0 else [(0, 1.0)])


def test_transition_function_failing_on_a_state():
    table = {0: [(1, 1.0)], 1: [(2, 1.0)]}
    with pytest.raises(InvalidParameterError, match=r"transitions = 2: failed on this state \(KeyError"):
        CTMC.from_function(0, lambda x: table[x])


def test_transition_function_yielding_garbage():
    with pytest.raises(InvalidParameterError, match="must yield .next_state, rate. pairs"):
        CTMC.from_function(0, lambda x: [1.0])
    with pytest.raises(InvalidParameterError, match="unhashable"):
        CTMC.from_function(0, lambda x: [([x + 1], 1.0)])


def test_max_states_exceeded_before_memory_runs_out():
    with pytest.raises(StateSpaceTooLargeError, match="more than 1,000 states, above max_states=1,000"):
        CTMC.from_function(0, lambda x: [(x + 1, 1.0)], max_states=1000)  # an infinite chain
    with pytest.raises(StateSpaceTooLargeError, match="1,002,001 states, above max_states=1,000,000"):
        CTMC.from_lattice((1000, 1000), [], max_states=1_000_000)
    with pytest.raises(StateSpaceTooLargeError, match="the feasible set needs more than 100 states"):
        CTMC.from_lattice((50, 50), [], feasible=lambda X: X.sum(axis=1) <= 30, max_states=100)
    with pytest.raises(InvalidParameterError, match="max_states = 0: must be a positive integer"):
        CTMC.from_function(0, lambda x: [], max_states=0)


def test_absorbing_state_is_reported():
    chain = CTMC.from_function(2, lambda x: [(x - 1, 1.0)] if x > 0 else [])
    with pytest.raises(ReducibleChainError, match=r"1 closed class.*2 transient state.*absorbing state\(s\) 0"):
        chain.stationary()


def test_several_closed_classes_are_reported():
    rates = np.zeros((5, 5))
    rates[0, 1] = rates[0, 3] = 1.0  # 0 leaks into {1, 2} and {3, 4}
    rates[1, 2] = rates[2, 1] = rates[3, 4] = rates[4, 3] = 1.0
    with pytest.raises(ReducibleChainError, match=r"2 closed class\(es\) of sizes \[2, 2\]; 1 transient"):
        CTMC(rates).stationary()


def test_lattice_move_leaving_the_box():
    moves = [((1, 0), lambda X: np.ones(len(X)))]
    with pytest.raises(InvalidParameterError, match=r"move \[1, 0\] leads to \[3, 0\], outside 0 <= x <= upper"):
        CTMC.from_lattice((2, 2), moves)


def test_lattice_move_into_infeasible_state():
    moves = [((1, 0), lambda X: 1.0 * (X[:, 0] < 3))]
    with pytest.raises(InvalidParameterError, match="an infeasible state; the rate must be 0 there"):
        CTMC.from_lattice((3, 3), moves, feasible=lambda X: X.sum(axis=1) <= 3)


def test_lattice_feasible_not_downward_closed_is_detected():
    # {x: x1 + x2 is even and <= 4} is not downward closed: (1, 1) is feasible but (1, 0) is not.
    moves = [((1, 1), lambda X: 1.0 * (X.sum(axis=1) <= 2)), ((-1, -1), lambda X: 1.0 * (X.min(axis=1) > 0))]
    with pytest.raises(InvalidParameterError, match="not downward closed"):
        CTMC.from_lattice((2, 2), moves, feasible=lambda X: (X.sum(axis=1) % 2 == 0) & (X.sum(axis=1) <= 4))


@pytest.mark.parametrize("kwargs,match", [
    (dict(upper=(2, -1)), "upper = .*integers >= 0"),
    (dict(upper=(2.5, 1)), "upper = .*integers >= 0"),
    (dict(moves=[((1,), lambda X: X[:, 0])]), r"moves\[0\] displacement = .*length 2"),
    (dict(moves=[((0, 0), lambda X: X[:, 0])]), "non-zero integer vector"),
    (dict(moves=[((1, 0), 0.5)]), r"moves\[0\] rate = 0.5: must be a function"),
    (dict(moves=[((1, 0), lambda X: -1.0 * (X[:, 0] < 2))]),
     r"rate of move 0 = -1: must be real, finite and >= 0 \(at state \[0, 0\]\)"),
    (dict(moves=[((1, 0), lambda X: np.ones(3))]), r"must return one value per state: shape \(9,\)"),
    (dict(feasible=lambda X: X.sum(axis=1) < 0), "must hold at the origin"),
    (dict(feasible=lambda X: X.sum(axis=1)), "must return a boolean array"),
])
def test_lattice_bad_input(kwargs, match):
    arguments = dict(upper=(2, 2), moves=[((1, 0), lambda X: 1.0 * (X[:, 0] < 2))]) | kwargs
    with pytest.raises(InvalidParameterError, match=match):
        CTMC.from_lattice(**arguments)


def test_bad_arguments_of_analysis_methods():
    chain = birth_death(3, lambda x: 1.0, lambda x: 1.0)
    with pytest.raises(InvalidParameterError, match="method = .cholesky.: must be one of 'auto', 'gth'"):
        chain.stationary(method="cholesky")
    with pytest.raises(InvalidParameterError, match="times = .*must be finite real numbers >= 0"):
        chain.transient([1.0, -2.0], 0)
    with pytest.raises(InvalidParameterError, match="initial = 7: is not a state of this chain"):
        chain.transient(1.0, 7)
    with pytest.raises(InvalidParameterError, match="probabilities = .*probability vector of length 4"):
        chain.detailed_balance_residual(np.array([0.5, 0.5, 0.5, 0.5]))
    with pytest.raises(InvalidParameterError, match="generator = .*square"):
        CTMC(np.ones((2, 3)))
    with pytest.raises(InvalidParameterError, match=r"rate = -1: must be real, finite and >= 0 \(generator\[0, 1\]\)"):
        CTMC(np.array([[0.0, -1.0], [1.0, 0.0]]))
    with pytest.raises(InvalidParameterError, match="reward = inf: must be finite"):
        chain.stationary().expected(lambda x: np.inf if x == 2 else 0.0)


def test_stationary_result_repr_is_readable():
    """Equal birth and death rates: the stationary law is uniform, 1/4 on each of the four states."""
    pi = birth_death(3, lambda x: 1.0, lambda x: 1.0).stationary()
    assert isinstance(pi, Stationary)
    assert repr(pi) == ("Stationary(n_states=4, probabilities=[0.25, 0.25, 0.25, 0.25], "
                        "method='gth (banded, subtraction-free; half-bandwidth 1)', "
                        "accuracy=1e-10, floor=1e-290, residual=0)")
    assert np.array_equal(np.asarray(pi), pi.probabilities) and len(pi) == 4
    long = birth_death(99, lambda x: 1.0, lambda x: 1.0).stationary()
    assert "probabilities=[0.01, 0.01, 0.01, ..., 0.01, 0.01, 0.01]" in repr(long)     # summarized


def test_a_boolean_reward_is_the_indicator_of_a_set():
    """Birth rate 1, death rate 2 on 0..5: π(x) ∝ 2^-x, so P(X >= 3) = (1/8 + 1/16 + 1/32) / (63/32) = 1/9
    (exact fractions). A boolean reward, from a lattice function, an array or a list, is that indicator,
    as numpy counts booleans; the same for a reward over time."""
    chain = CTMC.from_lattice((5,), [((1,), lambda X: 1.0 * (X[:, 0] < 5)), ((-1,), lambda X: 2.0 * (X[:, 0] > 0))])
    pi = chain.stationary()
    for reward in (lambda X: X[:, 0] >= 3, np.arange(6) >= 3, [False, False, False, True, True, True]):
        assert pi.expected(reward) == pytest.approx(1 / 9, rel=1e-12, abs=0)
    assert chain.transient_reward(lambda X: X[:, 0] >= 3, 1.0, (0,)) == pytest.approx(
        chain.transient_reward(lambda X: 1.0 * (X[:, 0] >= 3), 1.0, (0,)), rel=1e-15, abs=0)
    with pytest.raises(InvalidParameterError, match="reward"):
        pi.expected([True, False])


@pytest.mark.parametrize("call,match", [
    (lambda: __import__("analytic.ctmc", fromlist=["x"]).CTMC.from_function([0], lambda x: []),
     r"^initial = \[0\]: must be a hashable state"),
    (lambda: __import__("analytic.ctmc", fromlist=["x"]).CTMC([[0, 1.0], [2.0, 0]], states=[1.0, math.nan]),
     r"^states = \[1.0, nan\]: must be labels equal to themselves \(no NaN\)$"),
    (lambda: __import__("analytic.ctmc", fromlist=["x"]).CTMC.from_lattice((2,), 0),
     r"^moves = 0: must be a sequence of \(displacement, rate\) pairs$"),
    (lambda: __import__("analytic.ctmc", fromlist=["x"]).CTMC.from_lattice((2,), [((1,), lambda x: x[:, 0] < 2)], "all"),
     r"^feasible = 'all': must be None or a function of the state array$"),
    (lambda: __import__("analytic.ctmc", fromlist=["x"]).CTMC([[0, 1.0], [2.0, 0]]).stationary(method=np.ones(2)),
     r"^method = .*: must be one of 'auto', 'gth', 'direct', 'iterative'$"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()
