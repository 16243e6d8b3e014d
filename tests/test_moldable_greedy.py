"""Tests of analytic.moldable.greedy: eq. (10) and the exact loss system of greedy(p).

References: eq. (10) against a direct enumeration of the rule "draw i, get min(i, idle)"; the loss
system against a brute-force dense generator over the whole simplex Σ i X_i <= n (every server
count, no reachability reduction) solved by numpy least squares; the linear speed-up against
Erlang's loss formula computed by its recursion in mpmath at 50 digits.
"""

import itertools

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.moldable import allocation_probabilities, greedy_chain, greedy_metrics, optimal_occupancy
from analytic.speedup import ConcaveSpeedup, SpeedUp

mpmath.mp.dps = 50
SUBLINEAR = SpeedUp([1, 1.8, 2.5, 3, 3.4])


def rule(idle, p):
    """A_0..A_d by enumerating the draws of the greedy(p) rule."""
    out = np.zeros(len(p) + 1)
    for i, prob in enumerate(p, start=1):
        out[min(i, idle)] += prob
    return out


def brute_force(speedup, lam, n, p):
    """Stationary law of the loss system over the full simplex, dense, by least squares."""
    d = speedup.d
    states = [x for x in itertools.product(*(range(n // i + 1) for i in range(1, d + 1)))
              if sum(i * c for i, c in enumerate(x, start=1)) <= n]
    index = {x: k for k, x in enumerate(states)}
    Q = np.zeros((len(states), len(states)))
    for x, k in index.items():
        idle = n - sum(i * c for i, c in enumerate(x, start=1))
        for i in range(1, d + 1):
            if x[i - 1]:
                Q[k, index[(*x[:i - 1], x[i - 1] - 1, *x[i:])]] += speedup.values[i - 1] * x[i - 1]
        if idle:
            for j, prob in enumerate(p, start=1):
                got = min(j, idle)
                Q[k, index[(*x[:got - 1], x[got - 1] + 1, *x[got:])]] += n * lam * prob
    np.fill_diagonal(Q, -Q.sum(axis=1))
    A = np.vstack([Q.T, np.ones(len(states))])
    pi = np.linalg.lstsq(A, np.concatenate([np.zeros(len(states)), [1.0]]), rcond=None)[0]
    return np.array(states), pi


def erlang_b(servers, load):
    """E_s(a) by E_k = a E_{k-1} / (k + a E_{k-1}) in mpmath."""
    blocking, a = mpmath.mpf(1), mpmath.mpf(load)
    for k in range(1, servers + 1):
        blocking = a * blocking / (k + a * blocking)
    return float(blocking)


# -- eq. (10) -----------------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.just(0.0), st.floats(0, 1)), min_size=1, max_size=8).filter(lambda w: sum(w) > 0.01),
       st.lists(st.integers(0, 12), min_size=1, max_size=6))
def test_eq10_matches_the_rule(weights, idle):
    """Sparse p (zeros are half the draws) and idle counts below, at and above every i."""
    p = np.array(weights) / sum(weights)
    A = allocation_probabilities(np.array(idle), p)
    assert A.shape == (len(idle), len(p) + 1)
    for row, f in zip(A, idle, strict=True):
        assert row == pytest.approx(rule(f, p), abs=1e-15)
        assert row.sum() == pytest.approx(1.0, abs=1e-14)


@pytest.mark.parametrize("p,idle,match", [
    ([0.5, 0.6], 1, r"p = .*entries sum to 1.1, not 1"),
    ([-0.1, 1.1], 1, r"p = .*entries finite and >= 0"),
    ([0.5, 0.5], -1, r"idle = -1: must be integers >= 0"),
    ([0.5, 0.5], 1.5, r"idle = 1.5: must be integers >= 0"),
])
def test_eq10_errors(p, idle, match):
    with pytest.raises(InvalidParameterError, match=match):
        allocation_probabilities(idle, p)


# -- the loss system against brute force ---------------------------------------------------------------


@pytest.mark.parametrize("speedup,lam,n,p", [
    (SUBLINEAR, 0.8, 7, None),                        # p* on {3, 4}
    (SUBLINEAR, 0.95, 6, None),                       # p* on {1, 2}
    (SUBLINEAR, 0.8, 8, "greedy"),                    # point mass at d = 5, 5 does not divide 8
    (SUBLINEAR, 0.6, 9, [0.1, 0.2, 0.3, 0.2, 0.2]),   # all server counts
    (SpeedUp.power(0.5, 4), 0.7, 10, [0, 0.5, 0, 0.5]),  # gcd 2: only even counts
    (SpeedUp.amdahl(0.8, 3), 1.0, 7, None),
])
def test_metrics_match_brute_force(speedup, lam, n, p):
    exact = greedy_metrics(speedup, lam, n, p)
    probabilities = optimal_occupancy(speedup, lam).p if p is None else (np.eye(speedup.d)[-1] if p == "greedy" else p)
    X, pi = brute_force(speedup, lam, n, probabilities)
    busy = X @ speedup.servers
    blocking = pi[busy == n].sum()
    occupancy = pi @ X / n
    y = optimal_occupancy(speedup, lam).y
    small = X[:, : optimal_occupancy(speedup, lam).i1 - 1].sum(axis=1)
    assert exact.blocking == pytest.approx(blocking, abs=1e-11)
    assert exact.mean_occupancy == pytest.approx(occupancy, abs=1e-11)
    assert exact.mean_time == pytest.approx(occupancy.sum() / (lam * (1 - blocking)), rel=1e-10, abs=0)
    assert exact.distance == pytest.approx(pi @ np.abs(X / n - y).sum(axis=1), abs=1e-11)
    law = np.bincount(small, weights=pi)
    assert exact.small_jobs == pytest.approx(law[: len(exact.small_jobs)], abs=1e-11)
    assert law[len(exact.small_jobs):].sum() == pytest.approx(0, abs=1e-11)


@pytest.mark.parametrize("n,lam", [(5, 0.9), (100, 0.8), (4000, 0.9984188611699158)])
def test_linear_speedup_is_an_erlang_loss_system(n, lam):
    """d | n: only 5-server jobs, n/5 slots, offered load nλ/5 (Section 7, Table 1)."""
    exact = greedy_metrics(SpeedUp.linear(5), lam, n)
    assert exact.n_states == n // 5 + 1
    assert exact.blocking == pytest.approx(erlang_b(n // 5, n * lam / 5), rel=1e-10, abs=0)
    assert exact.mean_time == pytest.approx(0.2, rel=1e-12, abs=0)


def test_rate_conservation_eq3():
    """λ (1 - P_b) = Σ s_i E[x_i] (eq. 3) holds for the stationary solution."""
    exact = greedy_metrics(SUBLINEAR, 0.8, 30)
    assert SUBLINEAR.values @ exact.mean_occupancy == pytest.approx(0.8 * (1 - exact.blocking), rel=1e-12, abs=0)


def test_iterative_and_direct_solutions_agree():
    direct = greedy_metrics(SUBLINEAR, 0.8, 40, method="direct")
    iterative = greedy_metrics(SUBLINEAR, 0.8, 40, method="iterative")
    assert iterative.blocking == pytest.approx(direct.blocking, rel=1e-9, abs=0)
    assert iterative.mean_time == pytest.approx(direct.mean_time, rel=1e-9, abs=0)
    assert iterative.small_jobs == pytest.approx(direct.small_jobs, abs=1e-10)


def test_reachable_coordinates_only():
    """Greedy with d | n reaches only full-width jobs; p* on {3, 4} reaches 1..4."""
    assert greedy_chain(SUBLINEAR, 0.8, 100, "greedy").sizes.tolist() == [5]
    assert greedy_chain(SUBLINEAR, 0.8, 101, "greedy").sizes.tolist() == [1, 2, 3, 4, 5]
    assert greedy_chain(SUBLINEAR, 0.8, 12).sizes.tolist() == [1, 2, 3, 4]


# -- Lemma 2 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [6, 10, 20])
def test_lemma2_fails_for_two_point_support(n):
    """p* on {3, 4}: a 4-server departure, a 3-server arrival, then a 1-server arrival -> two small jobs."""
    exact = greedy_metrics(SUBLINEAR, 0.8, n)
    assert exact.i1 == 3
    assert exact.small_jobs[2:].sum() > 0.01


@pytest.mark.parametrize("n", [101, 103, 104])
def test_lemma2_holds_for_one_point_support(n):
    """Greedy (p_d = 1): at most one job ever holds fewer than d servers."""
    exact = greedy_metrics(SUBLINEAR, 0.6, n, "greedy")     # λ <= s_5/5: p* = greedy, i1 = 5
    assert exact.i1 == 5
    assert len(exact.small_jobs) == 2 and exact.small_jobs[1] > 0


# -- errors -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs,match", [
    (dict(servers=4), r"servers = 4: must be an integer >= 5 \(at least d = 5\)"),
    (dict(servers=10.0), r"servers = 10: must be an integer >= 5"),
    (dict(arrival_rate=1.5), r"arrival_rate = 1.5: must lie in \(0, 1\]"),
    (dict(arrival_rate=0), r"arrival_rate = 0: must lie in \(0, 1\]"),
    (dict(p="random"), r"p = 'random': must be None \(p\*\), \"greedy\" or a probability vector"),
    (dict(p=[0.5, 0.5]), r"must be a probability vector of length 5 \(d = 5\)"),
    (dict(p=[0.5, 0.5, 0.5, 0, 0]), r"entries sum to 1.5, not 1"),
    (dict(max_states=100), r"needs more than 100 states, above max_states=100"),
])
def test_errors(kwargs, match):
    args = dict(speedup=SUBLINEAR, arrival_rate=0.8, servers=20) | kwargs
    error = StateSpaceTooLargeError if "max_states" in kwargs else InvalidParameterError
    with pytest.raises(error, match=match):
        greedy_metrics(**args)


def test_repr_is_readable():
    text = repr(greedy_metrics(SpeedUp.linear(5), 0.5, 10))
    assert text.startswith("GreedyMetrics(servers=10, blocking=")
    assert "n_states=3" in text


# -- the forms of a speed-up --------------------------------------------------------------------------


def test_a_table_and_its_interpolation_give_the_same_loss_system():
    """greedy_metrics of the table, its interpolation and a plain list: equal, and equal to brute force."""
    forms = [SUBLINEAR, ConcaveSpeedup.from_discrete(SUBLINEAR), [1, 1.8, 2.5, 3, 3.4]]
    results = [greedy_metrics(form, 0.8, 7) for form in forms]
    X, pi = brute_force(SUBLINEAR, 0.8, 7, optimal_occupancy(SUBLINEAR, 0.8).p)
    assert results[0].blocking == pytest.approx(pi[X @ SUBLINEAR.servers == 7].sum(), abs=1e-11)
    for other in results[1:]:
        assert other.blocking == results[0].blocking and np.array_equal(other.mean_occupancy, results[0].mean_occupancy)
    assert greedy_chain(forms[1], 0.8, 7).sizes.tolist() == greedy_chain(SUBLINEAR, 0.8, 7).sizes.tolist()


def test_a_sampled_power_curve_is_an_erlang_system_when_linear():
    """k^1 sampled at 1..5 is the linear table: greedy with n = 100 is Erlang's loss system (mpmath)."""
    table = SpeedUp.from_curve(lambda k: k, 5)
    assert table.is_linear
    assert greedy_metrics(table, 0.8, 100).blocking == pytest.approx(erlang_b(20, 16.0), rel=1e-12, abs=0)


def test_a_curve_without_d_is_refused():
    with pytest.raises(InvalidParameterError, match="is a curve without a largest server count d"):
        greedy_metrics(ConcaveSpeedup.power(0.5), 0.8, 10)
    with pytest.raises(InvalidParameterError, match="speedup = None: must be a SpeedUp"):
        greedy_chain(None, 0.8, 10)
