"""Truncated solves with certified bounds (analytic.ctmc.truncation), against chains with closed forms.

References, each computed in the test independently of the package: the M/M/1 law (1 - ρ) ρ^k and
the M/M/c law (Erlang's birth-death products) in exact rationals (fractions.Fraction); a reversible
two-queue network on {x + y <= N}, whose law is the product form ρ1^x ρ2^y restricted to the space
(Kelly, *Reversibility and Stochastic Networks*, 1979, Cor. 1.10), summed in exact rationals; mean
hitting times by a dense solve of (-Q) m = 1 with numpy.
"""

import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp

import analytic.ctmc.truncation as truncation
from analytic.ctmc.truncation import (
    Drift,
    TruncatedChain,
    Truncation,
    function_drift_inside,
    hitting_time_bound,
    lattice_drift,
    level_drift,
    solve_truncated,
    truncate_function,
    truncate_lattice,
)
from analytic.errors import ConvergenceError, InvalidParameterError, ReducibleChainError


def _contains(interval, value):
    return interval[0] <= value <= interval[1]


# ---------------------------------------------------------------------------------------------
# Birth-death chains on {0, 1, 2, ...}: kept levels 0..L, the tail by a level-independent drift


def _birth_death(arrival, service, servers):
    return lambda x: [(x + 1, arrival), (x - 1, service * min(x, servers) * 1.0)]


def _birth_death_truncation(arrival, service, servers, level, theta):
    step = _birth_death(arrival, service, servers)
    chain = truncate_function(list(range(level + 1)), step, [level + 1], 0)
    inside = function_drift_inside(range(level + 1), step, lambda x: math.exp(theta * x))
    drift = level_drift([0], lambda phase: [(0, 1, arrival), (0, -1, service * servers)], theta, np.ones(1), level,
                        inside, f"M/M/{servers}: above {servers} the rates do not depend on the level", kept=chain)
    return solve_truncated(chain, drift)


def _birth_death_law(arrival, service, servers, top):
    """π(0..top) of the M/M/c queue in exact rationals (the tail is geometric: summed in closed form)."""
    a, c = Fraction(arrival) / Fraction(service), servers
    rho = a / c
    weights = [a**k / math.factorial(k) if k <= c else a**c / math.factorial(c) * rho ** (k - c) for k in range(top + 1)]
    total = sum(a**k / math.factorial(k) for k in range(c)) + a**c / math.factorial(c) / (1 - rho)
    return [w / total for w in weights]


@pytest.mark.parametrize("arrival,service,servers,level,theta", [
    (1.0, 2.0, 1, 40, math.log(1.5)),     # M/M/1, ρ = 1/2
    (3.0, 4.0, 1, 200, 0.14),             # M/M/1, ρ = 3/4 (e^θ near the optimal √(μ/λ))
    (4.0, 1.0, 6, 150, 0.2),              # M/M/6, a = 4
])
def test_birth_death_intervals_contain_the_closed_form(arrival, service, servers, level, theta):
    result = _birth_death_truncation(arrival, service, servers, level, theta)
    law = _birth_death_law(arrival, service, servers, level + 1)
    outside = 1 - float(sum(law[:level + 1]))
    assert result.neglected_mass >= outside
    for k in (0, 1, servers, servers + 3):
        interval = result.interval(lambda x, k=k: 1.0 * (x == k), 0.0, 1.0)
        assert _contains(interval, float(law[k]))
        assert interval[1] - interval[0] < 1e-4
    busy = 1 - float(sum(law[:servers]))          # P(all servers busy): Erlang C
    assert _contains(result.interval(lambda x: 1.0 * (x >= servers), 0.0, 1.0), busy)


def test_unbounded_reward_through_the_drift_moment():
    """E[X] = ρ / (1 - ρ) = 1 for the M/M/1 queue with ρ = 1/2: X <= 6 (-GV) off the kept set for V = 1.5^x."""
    result = _birth_death_truncation(1.0, 2.0, 1, 40, math.log(1.5))
    bound = result.drift.outside_expectation(6.0)
    low, high = result.interval(lambda x: float(x), outside=(0.0, bound))
    assert low <= 1.0 <= high
    assert bound == pytest.approx(3.0, abs=1e-12)         # c = e^θ - 1 = 1/2 at the empty state


# ---------------------------------------------------------------------------------------------
# A reversible two-queue network on {x + y <= N}: product form


N, RATES = 80, (1.0, 2.0, 1.2, 2.0)


def _network_moves():
    l1, m1, l2, m2 = RATES
    return [((1, 0), lambda X: l1 * (X.sum(axis=1) < N)), ((-1, 0), lambda X: m1 * (X[:, 0] > 0)),
            ((0, 1), lambda X: l2 * (X.sum(axis=1) < N)), ((0, -1), lambda X: m2 * (X[:, 1] > 0))]


def _network_states():
    return np.array([(x, y) for x in range(N + 1) for y in range(N + 1 - x)], dtype=np.int64)


def _network_law():
    rho1, rho2 = Fraction(RATES[0]) / Fraction(RATES[1]), Fraction(RATES[2]) / Fraction(RATES[3])
    weights = {(x, y): rho1**x * rho2**y for x in range(N + 1) for y in range(N + 1 - x)}
    total = sum(weights.values())
    return {state: w / total for state, w in weights.items()}


def _network_truncation(top):
    states = _network_states()
    kept = states[(states[:, 0] <= top) & (states[:, 1] <= top)]
    moves = _network_moves()
    chain = truncate_lattice(kept, moves, lambda X: X.sum(axis=1) <= N, (0, 0))
    drift = lattice_drift([states[: len(states) // 2], states[len(states) // 2:]], moves,
                          lambda X: 1.5 ** X[:, 0] + 1.5 ** X[:, 1], chain)
    return solve_truncated(chain, drift), kept


@pytest.mark.slow
def test_product_form_network_intervals_contain_the_exact_law():
    result, kept = _network_truncation(45)
    law = _network_law()
    outside = 1 - float(sum(law[tuple(s)] for s in kept.tolist()))
    assert 0 < outside <= result.neglected_mass < 1e-5
    assert result.drift.states_checked == len(_network_states()) - len(kept)
    for reward, exact in [
        (lambda X: 1.0 * (X.sum(axis=1) == 0), law[0, 0]),
        (lambda X: 1.0 * (X[:, 0] == 2), sum(p for (x, _), p in law.items() if x == 2)),
        (lambda X: np.minimum(X[:, 1], 5) / 5.0, sum(min(y, 5) / 5 * p for (_, y), p in law.items())),
    ]:
        interval = result.interval(reward, 0.0, 1.0)
        assert _contains(interval, float(exact))
        assert interval[1] - interval[0] < 1e-3


def test_a_shrunk_neglected_mass_excludes_the_exact_value(monkeypatch):
    """Deliberately wrong bounds must fail: the M/M/1 queue at ρ = 3/4 kept at 0..30 leaves out
    (3/4)^31 = 1.3e-4; divided by 1e4 the neglected mass no longer covers it."""
    law = _birth_death_law(3.0, 4.0, 1, 40)

    def contained() -> bool:
        result = _birth_death_truncation(3.0, 4.0, 1, 30, 0.15)
        return all(_contains(result.interval(lambda x, k=k: 1.0 * (x == k), 0.0, 1.0), float(law[k])) for k in range(5))

    assert contained()
    honest = Drift.neglected_mass.fget
    monkeypatch.setattr(Drift, "neglected_mass", property(lambda self: honest(self) / 1e4))
    assert not contained()


# ---------------------------------------------------------------------------------------------
# Hitting times


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_hitting_time_bound_is_above_the_exact_mean_hitting_times(seed):
    rng = np.random.default_rng(seed)
    size = 30
    rates = rng.exponential(size=(size, size)) * (rng.random((size, size)) < 0.2)
    rates += np.diag(np.ones(size - 1), 1) + np.diag(np.ones(size - 1), -1)         # irreducible
    np.fill_diagonal(rates, 0.0)
    reference = int(rng.integers(size))
    bound = hitting_time_bound(sp.csr_array(rates), reference)
    others = [i for i in range(size) if i != reference]
    generator = rates - np.diag(rates.sum(axis=1))
    exact = np.linalg.solve(-generator[np.ix_(others, others)], np.ones(size - 1))
    assert bound[reference] == 0
    assert np.all(bound[others] >= exact)
    np.testing.assert_allclose(bound[others], exact, rtol=1e-5, atol=0)


def test_truncation_records_its_parts():
    result = _birth_death_truncation(1.0, 2.0, 1, 40, math.log(1.5))
    assert isinstance(result, Truncation) and isinstance(result.chain, TruncatedChain)
    assert result.states == list(range(41))
    assert result.entry_cost == pytest.approx(2.0 * result.hitting_times[40], rel=1e-12, abs=0)
    assert "neglected_mass=" in repr(result) and "kept=41" in repr(result)


def test_a_whole_chain_needs_no_hitting_times():
    """Nothing outside jumps in: κ = 0 and the mean hitting times are not computed (a factorization of a
    large whole chain's M-matrix would cost more than its solve)."""
    moves = [((1,), lambda X: 1.0 * (X[:, 0] < 9)), ((-1,), lambda X: 2.0 * (X[:, 0] > 0))]
    chain = truncate_lattice(np.arange(10)[:, None], moves, lambda X: X[:, 0] <= 9, (0,))
    result = solve_truncated(chain, Drift.nothing_left_out())
    assert result.entry_cost == 0 and result.hitting_times is None and result.neglected_mass == 0


def test_unverified_hitting_times_are_refused_naming_the_state_and_the_shortfall(monkeypatch):
    """A linear solve that returns nothing useful (zeros): after the rounds of correction the refusal says
    which state fell short of (-Q w) >= 1 and by how much, with enough digits to read it."""
    monkeypatch.setattr(truncation, "_factor", lambda matrix: (lambda rhs: np.zeros(len(rhs))))
    step = _birth_death(1.0, 2.0, 1)
    chain = truncate_function(list(range(5)), step, [5], 0)
    drift = level_drift([0], lambda phase: [(0, 1, 1.0), (0, -1, 2.0)], math.log(1.5), np.ones(1), 4,
                        function_drift_inside(range(5), step, lambda x: 1.5**x), "M/M/1", kept=chain)
    with pytest.raises(ConvergenceError, match=r"no upper bound on the mean hitting times .* at state 1 the last w gave "
                                               r"-?[0-9.e-]+ \(short by 1\); with hitting times up to 0, "):
        solve_truncated(chain, drift)


# ---------------------------------------------------------------------------------------------
# A drift holds for the kept set it was checked for, and for no other


def test_a_drift_is_refused_for_a_kept_set_it_was_not_checked_for():
    """Issue 28: an M/M/1 drift (λ = 1, μ = 2, V = 1.5^x) checked for the 41 states 0..40, handed a truncation
    to 0..5, gave P(X = 0) in [0.5249995, 0.5250004], without the exact 1/2. Refused now, naming both sizes;
    on 0..40 it holds."""
    step = _birth_death(1.0, 2.0, 1)
    inside = function_drift_inside(range(41), step, lambda x: 1.5**x)
    proved = truncate_function(list(range(41)), step, [41], 0)
    arguments = ([0], lambda phase: [(0, 1, 1.0), (0, -1, 2.0)], math.log(1.5), np.ones(1), 40, inside, "M/M/1")
    drift = level_drift(*arguments, kept=proved)
    with pytest.raises(InvalidParameterError, match=r"drift = KeptSet\(count=41, .*was checked for a kept set of 41 "
                                                    r"states, not for this chain's 6"):
        solve_truncated(truncate_function(list(range(6)), step, [6], 0), drift)
    with pytest.raises(InvalidParameterError, match=r"does not say which kept set it was checked for"):
        solve_truncated(truncate_function(list(range(6)), step, [6], 0), level_drift(*arguments))
    assert _contains(solve_truncated(proved, drift).interval(lambda x: 1.0 * (x == 0), 0.0, 1.0), 0.5)


def test_a_lattice_drift_holds_for_the_states_its_membership_test_accepted():
    """kept(X) = X < 40 on 0..99: the drift is for those 40 states, in any order, and no other set."""
    moves = [((1,), lambda X: 1.0 * (X[:, 0] < 99)), ((-1,), lambda X: 2.0 * (X[:, 0] > 0))]
    drift = lattice_drift([np.arange(100)[:, None]], moves, lambda X: 1.5 ** X[:, 0], lambda X: X[:, 0] < 40)
    shuffled = np.random.default_rng(1).permutation(40)[:, None]
    same = truncate_lattice(shuffled, moves, lambda X: X[:, 0] <= 99, (0,))
    assert _contains(solve_truncated(same, drift).interval(lambda X: 1.0 * (X[:, 0] == 0), 0.0, 1.0), 0.5)
    for other in (np.arange(6)[:, None], np.array([[k] for k in range(41) if k != 7])):
        chain = truncate_lattice(other, moves, lambda X: X[:, 0] <= 99, (0,))
        with pytest.raises(InvalidParameterError, match=r"was checked for a kept set of 40 states"):
            solve_truncated(chain, drift)


def test_a_state_listed_twice_does_not_hide_one_never_evaluated():
    """Chunks listing state 3 twice and state 4 never hold as many kept rows as the 10 kept states: the
    missing state is named (a truncated chain) or the kept set differs (a membership test)."""
    chunks = [np.array([[0], [1], [2], [3], [3]]), np.arange(5, 51)[:, None]]
    with pytest.raises(InvalidParameterError, match=r"chunks = \[4\]: is a kept state the chunks never list"):
        lattice_drift(chunks, _mm1_moves(), lambda X: 1.5 ** X[:, 0], _mm1_chain())
    drift = lattice_drift(chunks, _mm1_moves(), lambda X: 1.5 ** X[:, 0], lambda X: X[:, 0] < 10)
    assert drift.kept.count == 9
    with pytest.raises(InvalidParameterError, match=r"was checked for a kept set of 9 states, not for this chain's 10"):
        solve_truncated(_mm1_chain(), drift)


# ---------------------------------------------------------------------------------------------
# The drift condition fails: refused, naming the state


def test_lattice_drift_refuses_a_kept_set_where_the_drift_is_not_negative_outside():
    moves = [((1,), lambda X: 1.0 * (X[:, 0] < 99)), ((-1,), lambda X: 2.0 * (X[:, 0] > 0))]
    with pytest.raises(InvalidParameterError, match=r"kept = \[40\]: is a state outside the kept set where the drift"):
        lattice_drift([np.arange(100)[:, None]], moves, lambda X: 0.5 ** X[:, 0], lambda X: X[:, 0] < 40)


def test_level_drift_refuses_a_tilt_beyond_the_decay_rate():
    with pytest.raises(InvalidParameterError, match=r"theta = 1: gives D = .* >= 0 at phase 0"):
        level_drift([0], lambda p: [(0, 1, 1.0), (0, -1, 2.0)], 1, np.ones(1), 30, 1.0, "M/M/1")


def test_an_unstable_queue_has_no_drift_condition():
    with pytest.raises(InvalidParameterError, match=r"gives D = .* >= 0"):
        level_drift([0], lambda p: [(0, 1, 2.0), (0, -1, 1.0)], 0.1, np.ones(1), 30, 1.0, "M/M/1, ρ = 2")


# ---------------------------------------------------------------------------------------------
# Bad input


def _mm1_moves():
    return [((1,), lambda X: 1.0 * (X[:, 0] < 50)), ((-1,), lambda X: 2.0 * (X[:, 0] > 0))]


def _mm1_chain(size=10):
    return truncate_lattice(np.arange(size)[:, None], _mm1_moves(), lambda X: X[:, 0] <= 50, (0,))


@pytest.mark.parametrize("build,match", [
    (lambda: Drift(-1.0, 1.0, "x"), r"inside = -1: must be finite and >= 0"),
    (lambda: Drift(1.0, 0.0, "x"), r"outside = 0: must be > 0 .* the drift condition does not hold"),
    (lambda: Drift(1.0, 1.0, "x").outside_expectation(-2.0), r"ratio = -2: must be >= 0"),
    (lambda: truncate_lattice(np.array([[0], [0]]), _mm1_moves(), lambda X: X[:, 0] <= 50, (0,)),
     r"kept = 'repeated rows': must list each kept state once"),
    (lambda: truncate_lattice(np.array([[0.5]]), _mm1_moves(), lambda X: X[:, 0] <= 50, (0,)),
     r"kept = \(1, 1\): must be a non-empty 2-D array of integer states >= 0"),
    (lambda: truncate_lattice(np.arange(3)[:, None], _mm1_moves(), lambda X: X[:, 0] <= 50, (7,)),
     r"reference = \(7,\): must be one of the kept states"),
    (lambda: truncate_lattice(np.arange(3)[:, None], _mm1_moves(), lambda X: X[:, 0] <= 1, (0,)),
     r"rate of move 0 = 1: is positive at state \[2\] but leads to \[3\], which is not a feasible state"),
    (lambda: truncate_lattice(np.arange(3)[:, None], _mm1_moves(), "all", (0,)), r"feasible = 'all': must be a function"),
    (lambda: truncate_function([0, 0], _birth_death(1.0, 2.0, 1), [1], 0), r"kept = 0: must list each kept state once"),
    (lambda: truncate_function([0, 1], _birth_death(1.0, 2.0, 1), [2], 5), r"reference = 5: must be one of the kept"),
    (lambda: truncate_function([0, 1], _birth_death(1.0, 2.0, 1), [1], 0), r"boundary = 1: is a kept state"),
    (lambda: truncate_function([], _birth_death(1.0, 2.0, 1), [1], 0), r"kept = \[\]: must hold at least one state"),
    (lambda: truncate_function([0, 1], lambda x: [(x + 1, -1.0)], [2], 0), r"rate = -1: must be real, finite"),
    (lambda: solve_truncated("chain", Drift.nothing_left_out()), r"chain = 'chain': must be a TruncatedChain"),
    (lambda: solve_truncated(_mm1_chain(), 0.1), r"drift = 0\.1: must be a Drift"),
    (lambda: solve_truncated(_mm1_chain(), Drift.nothing_left_out()), r"says nothing is left out, but the kept set"),
    (lambda: solve_truncated(_mm1_chain(), Drift(1.0, 1e9, "x", kept=_mm1_chain(5))),
     r"drift = KeptSet\(count=5, .*\): was checked for a kept set of 5 states, not for this chain's 10"),
    (lambda: solve_truncated(_mm1_chain(), Drift(1.0, 1e9, "x")), r"drift = .*: does not say which kept set"),
    (lambda: Drift(1.0, 1e9, "x", kept=10), r"kept = 10: must be the TruncatedChain .* a count does not say"),
    (lambda: lattice_drift([np.arange(51)[:, None]], _mm1_moves(), lambda X: 1.5 ** X[:, 0], "kept"),
     r"kept = 'kept': must be a TruncatedChain or a function"),
    (lambda: lattice_drift([np.arange(5, 51)[:, None]], _mm1_moves(), lambda X: 1.5 ** X[:, 0], _mm1_chain()),
     r"chunks = \[0\]: is a kept state the chunks never list \(5 of the 10 kept states are missing\)"),
    (lambda: lattice_drift([np.arange(51)[:, None]], _mm1_moves(), lambda X: 1.5 ** X[:, 0] - 2, _mm1_chain()),
     r"lyapunov = -1: must be finite and >= 0 \(at state \[0\]\)"),
    (lambda: lattice_drift([np.arange(51)[:, None]], _mm1_moves(), lambda X: 1.5 ** X[:, 0], lambda X: X[:2, 0] < 5),
     r"kept = \(2,\): must return one boolean per state \(51\)"),
    (lambda: level_drift([0], lambda p: [(0, 1, 1.0)], 0.0, np.ones(1), 3, 1.0, "x"), r"theta = 0: must be > 0"),
    (lambda: level_drift([0], lambda p: [(0, 1, 1.0)], 0.5, np.ones(2), 3, 1.0, "x"), r"weights = .*: must be 1 finite"),
    (lambda: level_drift([0], lambda p: [(1, 1, 1.0)], 0.5, np.ones(1), 3, 1.0, "x"), r"phases = 1: is reached from"),
    (lambda: level_drift([0], lambda p: [(0, -1, 2.0)], 0.5, np.ones(1), 3000, 1.0, "x"), r"level = 3000: makes e\^"),
    (lambda: function_drift_inside([0, 1], _birth_death(1.0, 2.0, 1), lambda x: -1.0),
     r"lyapunov = -1: must be finite and >= 0 \(at state 0\)"),
])
def test_bad_input_names_parameter_value_and_condition(build, match):
    with pytest.raises(InvalidParameterError, match=match):
        build()


def _interval_of_a_small_truncation():
    chain = _mm1_chain()
    drift = lattice_drift([np.arange(51)[:, None]], _mm1_moves(), lambda X: 1.5 ** X[:, 0], chain)
    return solve_truncated(chain, drift)


@pytest.mark.parametrize("kwargs,match", [
    (dict(), r"low = None: and high must bound the reward on every state"),
    (dict(low=0.0, high=0.5), r"reward = \(0\.0, 1\.0\): must lie within \[low, high\] = \[0\.0, 0\.5\]"),
    (dict(outside=(1.0, 0.0)), r"outside = \(1\.0, 0\.0\): must be an interval"),
])
def test_interval_refuses_missing_or_wrong_bounds(kwargs, match):
    result = _interval_of_a_small_truncation()
    with pytest.raises(InvalidParameterError, match=match):
        result.interval(lambda X: 1.0 * (X[:, 0] == 0), **kwargs)


def test_interval_refuses_a_reward_that_is_not_finite_on_the_kept_states():
    result = _interval_of_a_small_truncation()
    with pytest.raises(InvalidParameterError, match=r"reward = inf: must be finite on the kept states"):
        result.interval(lambda X: np.where(X[:, 0] == 3, np.inf, 0.0), 0.0, 1.0)


def test_a_kept_set_the_reference_cannot_reach_is_reducible():
    moves = [((1,), lambda X: 1.0 * (X[:, 0] < 50)), ((-1,), lambda X: 2.0 * (X[:, 0] > 0))]
    chain = truncate_lattice(np.array([[0], [1], [5], [6]]), moves, lambda X: X[:, 0] <= 50, (0,))
    with pytest.raises(ReducibleChainError):
        solve_truncated(chain, Drift(1.0, 1e12, "for the test", kept=chain))
