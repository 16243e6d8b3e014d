"""CTMC.transient: uniformization with steady-state detection, against independent references.

References: the matrix exponential in mpmath at 50 digits (small chains), the closed form of a
two-state chain, the pure-death process, and the stationary law for very large t.
"""

import time

import mpmath
import numpy as np
import pytest
import scipy.linalg

from analytic.ctmc import CTMC
from analytic.errors import ConvergenceError, InvalidParameterError

mpmath.mp.dps = 50


def birth_death(capacity, birth, death):
    return CTMC.from_function(0, lambda x: ([(x + 1, birth(x))] if x < capacity else []) + ([(x - 1, death(x))] if x > 0 else []))


def mp_transient(chain, t, start):
    """Row ``start`` of exp(Q t) in mpmath at 50 digits."""
    q = mpmath.matrix(chain.generator.toarray().tolist())
    return np.array([float(v) for v in mpmath.expm(q * t)[start, :]])


@pytest.mark.parametrize("t", [0.0, 0.3, 2.0, 25.0])
def test_eleven_state_chain_matches_mpmath_expm(t):
    chain = birth_death(10, lambda x: 0.7 + 0.1 * x, lambda x: 1.0 + 0.05 * x * x)
    p = chain.transient(t, 3)
    exact = mp_transient(chain, t, 3)
    assert p == pytest.approx(exact, rel=1e-12, abs=1e-300)


def test_two_state_closed_form_at_many_times():
    # p_00(t) = b/(a+b) + a/(a+b) exp(-(a+b) t) for rates a: 0 -> 1, b: 1 -> 0.
    a, b = 2.0, 0.5
    chain = CTMC([[0, a], [b, 0]])
    times = np.array([5.0, 0.0, 1e-3, 0.7, 3.0])
    p = chain.transient(times, 0)
    exact = b / (a + b) + a / (a + b) * np.exp(-(a + b) * times)
    assert p[:, 0] == pytest.approx(exact, rel=1e-14, abs=0)
    assert p.sum(axis=1) == pytest.approx(np.ones(5), rel=1e-14, abs=0)


def test_pure_death_process_from_a_distribution():
    # 3 -> 2 -> 1 -> 0 at rate 1, absorbing at 0: P(still at 3 by time t) = exp(-t).
    chain = CTMC.from_function(3, lambda x: [(x - 1, 1.0)] if x > 0 else [])
    start = np.zeros(4)
    start[chain.index(3)] = 1.0
    assert chain.transient(1.5, start)[chain.index(3)] == pytest.approx(np.exp(-1.5), rel=1e-13, abs=0)


@pytest.mark.parametrize("t", [1e6, 1e12, 1e300])
def test_large_times_cost_about_one_stationary_solve(t):
    # The 11-state chain: expm_multiply took minutes at t = 1e6 and never ended at 1e12.
    chain = birth_death(10, lambda x: 0.7 + 0.1 * x, lambda x: 1.0 + 0.05 * x * x)
    start = time.perf_counter()
    p = chain.transient(t, 0)
    assert time.perf_counter() - start < 60  # a hang guard, not a speed target (benchmarks/ctmc.py measures it)
    assert p == pytest.approx(np.asarray(chain.stationary()), rel=1e-12, abs=0)


def test_mixing_is_detected_part_way_through_a_window():
    # At t = 200 the Poisson window sits around 200 * 1.3 steps; the chain mixes well before.
    chain = birth_death(20, lambda x: 0.5, lambda x: 0.8)
    p = chain.transient([200.0, 1e9], 5)
    pi = np.asarray(chain.stationary())
    assert p[0] == pytest.approx(mp_transient(chain, 200.0, 5), rel=1e-12, abs=1e-300)
    assert p[1] == pytest.approx(pi, rel=1e-12, abs=0)


@pytest.mark.slow
def test_stiff_chain_not_yet_mixed_is_refused_rather_than_answered_inaccurately():
    # Rates 1e6 and 1e-6: at t = 1e4 the slow mode has not mixed and uniformization at rate 2e6
    # would need 2e10 iterates; scipy.linalg.expm answers with a relative error of 3e-7 (checked
    # here against mpmath), so the package refuses instead.
    chain = CTMC([[0, 1e6, 0], [1e6, 0, 1e-6], [0, 1e-6, 0]])
    pade = scipy.linalg.expm(chain.generator.toarray() * 1e4)[0]
    exact = mp_transient(chain, 1e4, 0)
    assert np.max(np.abs(pade / exact - 1)) > 1e-8
    with pytest.raises(ConvergenceError, match=r"it is stiff \(its rates span 1e\+12x\)"):
        chain.transient(1e4, 0)
    # Once it has mixed (t far beyond 1e6), the answer is the stationary law.
    assert chain.transient(1e12, 0) == pytest.approx(np.full(3, 1 / 3), rel=1e-12, abs=0)


@pytest.mark.parametrize("times,initial,match", [
    ([1.0, -2.0], 0, "times = .*must be finite real numbers >= 0"),
    (np.nan, 0, "times = nan: must be finite"),
    ([[1.0]], 0, "a scalar or a 1-D sequence"),
    ([], 0, "times = \\[\\]: must be a non-empty real number or an array"),
    ("soon", 0, "times = 'soon': must be a non-empty real number"),
    ([1.0, True], 0, "times = .*a bool at index"),
    (1.0, 7, "initial = 7: is not a state of this chain"),
    (1.0, np.array([0.5, 0.5]), "initial = .*probability vector of length 3"),
    (1.0, np.array([0.5, 0.5, 0.5]), "initial = .*summing to 1"),
    (1.0, np.array([1 + 1j, 0, 0]), "initial = .*array of real numbers \\(a vector of probabilities\\)"),
])
def test_bad_input(times, initial, match):
    chain = birth_death(2, lambda x: 1.0, lambda x: 1.0)
    with pytest.raises(InvalidParameterError, match=match):
        chain.transient(times, initial)


@pytest.mark.slow
def test_steady_state_detection_does_not_cut_the_sum_short():
    # Fast rates of 20 (Λ t ~ 34 600 iterates at t = 1718) and a slowest mode decaying like
    # exp(-0.0134 t): p(1718) still differs from pi by 3.6e-10. The iterates come within 1e-9 of
    # pi after about 31 000 steps, so a detection at 1e-9 instead of 1e-13 replaced the rest of
    # the Poisson window by pi (error 3.6e-10 against mpmath's exp(Q t)); the sum itself is good
    # to about Λ t times the unit roundoff, 3.8e-12 (3.4e-13 measured; 4e-11 while the Poisson
    # weights were taken as exp(k log m - m - log k!)).
    chain = birth_death(10, lambda x: 0.05 + 20.0 * (x == 5), lambda x: 0.1 + 20.0 * (x == 6))
    t = 1718.0
    exact = mp_transient(chain, t, 0)
    assert np.max(np.abs(exact / np.asarray(chain.stationary()) - 1)) > 3e-10
    assert chain.transient(t, 0) == pytest.approx(exact, rel=34_600 * 2.0**-53, abs=0)


def test_absorbing_chain_at_any_time_is_absorbed_by_gamblers_ruin_odds():
    # Gambler's ruin on 0..10 from 3, up with probability 0.4: absorbed at 10 w.p.
    # (1 - r^3) / (1 - r^10), r = 0.6/0.4 (the closed form, in mpmath); t = 50 against exp(Q t).
    up, down = 0.4, 0.6
    chain = CTMC.from_function(3, lambda x: [(x + 1, up), (x - 1, down)] if 0 < x < 10 else [])
    r = mpmath.mpf(down) / mpmath.mpf(up)
    win = float((1 - r**3) / (1 - r**10))
    limit = chain.transient(1e12, 3)
    assert limit[chain.index(10)] == pytest.approx(win, rel=1e-12, abs=0)
    assert limit[chain.index(0)] == pytest.approx(1 - win, rel=1e-12, abs=0)
    assert np.all(limit[[chain.index(x) for x in range(1, 10)]] == 0)
    assert chain.limit(3) == pytest.approx(limit, rel=1e-12, abs=0)
    assert chain.transient(50.0, 3) == pytest.approx(mp_transient(chain, 50.0, chain.index(3)), rel=1e-10, abs=1e-300)


def test_two_closed_classes_each_with_its_own_law():
    # From state 0: to the cycle {1, 2} (rates 1 -> 2: 1, 2 -> 1: 3) at rate 2, to the pair {3, 4}
    # (3 -> 4: 5, 4 -> 3: 1) at rate 6: the limit is 1/4 (3/4, 1/4) on {1, 2}, 3/4 (1/6, 5/6) on {3, 4}.
    rates = np.zeros((5, 5))
    rates[0, 1], rates[0, 3] = 2.0, 6.0
    rates[1, 2], rates[2, 1], rates[3, 4], rates[4, 3] = 1.0, 3.0, 5.0, 1.0
    chain = CTMC(rates)
    expected = [0.0, 0.25 * 0.75, 0.25 * 0.25, 0.75 / 6, 0.75 * 5 / 6]
    assert chain.transient(1e12, 0) == pytest.approx(expected, rel=1e-13, abs=0)
    assert chain.limit(np.array([0.5, 0.5, 0.0, 0.0, 0.0])) == pytest.approx(
        [0.0, 0.5 * 0.75 + 0.5 * 0.1875, 0.5 * 0.25 + 0.5 * 0.0625, 0.0625, 0.3125], rel=1e-13, abs=0)
