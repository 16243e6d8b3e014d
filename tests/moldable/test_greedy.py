"""Tests of analytic.moldable.greedy: eq. (10) and the exact loss system of greedy(p).

References: eq. (10) against a direct enumeration of the rule "draw i, get min(i, idle)"; the loss
system against a brute-force dense generator over the whole simplex Σ i X_i <= n (every server
count, no reachability reduction) solved by numpy least squares; the linear speed-up against
Erlang's loss formula computed by its recursion in mpmath at 50 digits; light loads (down to
λ = 5e-324) against the chain's law in exact rationals (GTH elimination of its float rates) and
against the λ -> 0 limit Σ p_i / s_i.
"""

import itertools
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import analytic.moldable.metrics as greedy_module
from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.moldable import allocation_probabilities, greedy_chain, greedy_metrics, optimal_occupancy
from analytic.speedup import SpeedupCurve, SpeedupTable

mpmath.mp.dps = 50
SUBLINEAR = SpeedupTable([1, 1.8, 2.5, 3, 3.4])


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


@pytest.mark.slow
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
    (SpeedupTable.power(0.5, 4), 0.7, 10, [0, 0.5, 0, 0.5]),  # gcd 2: only even counts
    (SpeedupTable.amdahl(0.8, 3), 1.0, 7, None),
    (SUBLINEAR, 0.8, 10, "greedy"),                   # one size, 5 divides 10: Erlang's loss system, 2 slots
    (SpeedupTable.linear(4), 0.9, 12, None),               # p* = e_4: Erlang, 3 slots
    (SpeedupTable.linear(4), 0.7, 6, [1, 0, 0, 0]),        # every job on 1 < i1 = 4 servers: Erlang, the law of X
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
    assert exact.mean_response_time == pytest.approx(occupancy.sum() / (lam * (1 - blocking)), rel=1e-10, abs=0)
    assert exact.distance == pytest.approx(pi @ np.abs(X / n - y).sum(axis=1), abs=1e-11)
    law = np.bincount(small, weights=pi)
    assert exact.small_jobs == pytest.approx(law[: len(exact.small_jobs)], abs=1e-11)
    assert law[len(exact.small_jobs):].sum() == pytest.approx(0, abs=1e-11)


@pytest.mark.parametrize("n,lam", [(5, 0.9), (100, 0.8), (4000, 0.9984188611699158)])
def test_linear_speedup_is_an_erlang_loss_system(n, lam):
    """d | n: only 5-server jobs, n/5 slots, offered load nλ/5 (Section 7, Table 1)."""
    exact = greedy_metrics(SpeedupTable.linear(5), lam, n)
    assert exact.n_states == n // 5 + 1
    assert exact.blocking == pytest.approx(erlang_b(n // 5, n * lam / 5), rel=1e-10, abs=0)
    assert exact.mean_response_time == pytest.approx(0.2, rel=1e-12, abs=0)


def chain_metrics(speedup, lam, n, p=None):
    """P_b, E[x], E||x - y*||_1 and the law of X from the whole CTMC of greedy_chain, solved by CTMC.stationary."""
    loss = greedy_chain(speedup, lam, n, p)
    pi = loss.chain.stationary(tolerance=1e-12).probabilities
    X, sizes, y = loss.states, loss.sizes, optimal_occupancy(speedup, lam).y
    occupancy = np.zeros(speedup.d)
    occupancy[sizes - 1] = pi @ X / n
    spread = np.abs(X / n - y[sizes - 1]).sum(axis=1) + np.delete(y, sizes - 1).sum()
    return pi[X @ sizes == n].sum(), occupancy, pi @ spread, np.bincount(X[:, 0], weights=pi)


@pytest.mark.parametrize("speedup,lam,n,p", [(SpeedupTable.linear(4), 0.5, 4, None), (SpeedupTable.linear(4), 0.9, 40, None),
                                             (SpeedupTable.linear(4), 1.0, 400, None), (SUBLINEAR, 0.8, 20, "greedy"),
                                             (SpeedupTable.linear(4), 0.7, 30, [1, 0, 0, 0])])
def test_one_allocation_size_is_erlangs_loss_system_like_the_whole_chain(speedup, lam, n, p):
    """The closed form (Erlang's loss system) against the whole chain at sizes it solves (tolerance 1e-12 asked)."""
    exact = greedy_metrics(speedup, lam, n, p)
    blocking, occupancy, distance, law = chain_metrics(speedup, lam, n, p)
    assert exact.residual == 0 and exact.n_states == greedy_chain(speedup, lam, n, p).chain.n_states
    assert exact.blocking == pytest.approx(blocking, rel=1e-11, abs=0)
    assert exact.mean_occupancy == pytest.approx(occupancy, rel=1e-11, abs=0)
    assert exact.distance == pytest.approx(distance, rel=1e-11, abs=0)
    assert exact.mean_response_time == pytest.approx(occupancy.sum() / (lam * (1 - blocking)), rel=1e-11, abs=0)
    if exact.small_jobs.size > 1:   # jobs on 1 < i1 servers: their number is X
        assert exact.small_jobs == pytest.approx(law, rel=1e-10, abs=1e-300)


def test_linear_speedup_with_a_billion_servers_against_mpmath():
    """n = 1e9, d = 4 (the issue's call): 2.5e8 slots, in constant time. References in mpmath at 40 digits: at
    λ = 0.9, P_b < 1e-300 (π_C, F_C >= ½) and E|X - a| = 2 a π_a (de Moivre's mean absolute deviation of a
    Poisson law about an integer mean; the truncation at C moves it by less than 1e-300); at λ = 1,
    a = C: P_b = a^C e^{-a} / Γ(C+1, a) (mpmath's gammainc) and E|X - C| = C - E[X] = a P_b."""
    with mpmath.workdps(40):
        metrics = greedy_metrics(SpeedupTable.linear(4), 0.9, 10**9)
        a = mpmath.mpf(225_000_000)
        log_top = 250_000_000 * mpmath.log(a) - a - mpmath.loggamma(250_000_001)
        assert mpmath.exp(log_top) * 2 < mpmath.mpf(10) ** -320 and metrics.blocking == 0
        deviation = 2 * a * mpmath.exp(a * mpmath.log(a) - a - mpmath.loggamma(a + 1))
        assert metrics.distance == pytest.approx(float(deviation / 10**9), rel=1e-12, abs=0)
        assert metrics.mean_occupancy.tolist() == [0, 0, 0, 0.225] and metrics.mean_response_time == 0.25
        assert metrics.n_states == 250_000_001 and metrics.small_jobs.tolist() == [1.0]

        full = greedy_metrics(SpeedupTable.linear(4), 1.0, 10**9)
        c = mpmath.mpf(250_000_000)
        blocking = mpmath.exp(c * mpmath.log(c) - c) / mpmath.gammainc(c + 1, c)
        assert full.blocking == pytest.approx(float(blocking), rel=1e-14, abs=0)
        assert full.mean_occupancy[3] == pytest.approx(float(0.25 * (1 - blocking)), rel=1e-15, abs=0)
        assert full.distance == pytest.approx(float(blocking / 4), rel=1e-13, abs=0)


def test_erlang_route_is_correctly_rounded_at_the_smallest_tolerance():
    """tolerance = 2**-50 takes erlang_b's 20-digit path: P_b is the float nearest mpmath's value."""
    metrics = greedy_metrics(SpeedupTable.linear(4), 0.95, 4000, tolerance=2.0**-50)
    with mpmath.workdps(40):
        a, c = mpmath.mpf(4000 * 0.95 / 4), 1000
        exact = mpmath.exp(c * mpmath.log(a) - a) / mpmath.gammainc(c + 1, a)
        assert metrics.blocking == float(exact)
        assert metrics.mean_occupancy[3] == float(a * (1 - exact) / 4000)


@pytest.mark.parametrize("kwargs,match", [
    (dict(method="bogus"), r"^method = 'bogus': must be one of 'auto', 'gth', 'direct', 'iterative'$"),
    (dict(tolerance=1e-20), r"^tolerance = 1e-20: must be at least 2\*\*-50"),
    (dict(max_states=0), r"^max_states = 0: must be a positive integer$"),
    (dict(servers=4 * 10**15 + 4), r"^servers = 4000000000000004: must be at most 1e\+15 x 4: every job holds 4 "
                                   r"servers, so greedy\(p\) is Erlang's loss system with n/4 slots"),
])
def test_erlang_route_checks_its_arguments(kwargs, match):
    arguments = dict(speedup=SpeedupTable.linear(4), rate_per_server=0.9, servers=40) | kwargs
    with pytest.raises(InvalidParameterError, match=match):
        greedy_metrics(**arguments)


@pytest.mark.slow
def test_rate_conservation_eq3():
    """E[x_i] comes from the arrivals (λ a_i / s_i, Little's law per allocation size): it equals the mean of
    X_i / n under the chain's stationary law (flow balance of each X_i), and λ (1 - P_b) = Σ s_i E[x_i] (eq. 3)."""
    exact = greedy_metrics(SUBLINEAR, 0.8, 30)
    loss = greedy_chain(SUBLINEAR, 0.8, 30)
    direct = np.zeros(SUBLINEAR.d)
    direct[loss.sizes - 1] = loss.chain.stationary(tolerance=1e-12).probabilities @ loss.states / 30
    assert exact.mean_occupancy == pytest.approx(direct, rel=1e-10, abs=1e-300)
    assert SUBLINEAR.values @ exact.mean_occupancy == pytest.approx(0.8 * (1 - exact.blocking), rel=1e-12, abs=0)


@pytest.mark.slow
def test_iterative_and_direct_solutions_agree():
    direct = greedy_metrics(SUBLINEAR, 0.8, 40, method="direct")
    iterative = greedy_metrics(SUBLINEAR, 0.8, 40, method="iterative")
    assert iterative.blocking == pytest.approx(direct.blocking, rel=1e-9, abs=0)
    assert iterative.mean_response_time == pytest.approx(direct.mean_response_time, rel=1e-9, abs=0)
    assert iterative.small_jobs == pytest.approx(direct.small_jobs, abs=1e-10)


def test_reachable_coordinates_only():
    """Greedy with d | n reaches only full-width jobs; p* on {3, 4} reaches 1..4."""
    assert greedy_chain(SUBLINEAR, 0.8, 100, "greedy").sizes.tolist() == [5]
    assert greedy_chain(SUBLINEAR, 0.8, 101, "greedy").sizes.tolist() == [1, 2, 3, 4, 5]
    assert greedy_chain(SUBLINEAR, 0.8, 12).sizes.tolist() == [1, 2, 3, 4]


# -- light loads, down to the least double -------------------------------------------------------------


def exact_law(generator):
    """The stationary law of a generator (its float rates) in exact rationals, by GTH elimination."""
    Q = generator.toarray()
    size = len(Q)
    rates = [[Fraction(float(Q[i, j])) if i != j else Fraction(0) for j in range(size)] for i in range(size)]
    for k in range(size - 1, 0, -1):
        out = sum(rates[k][:k], Fraction(0))
        for i in range(k):
            if rates[i][k]:
                share = rates[i][k] / out
                for j in range(k):
                    if j != i:
                        rates[i][j] += share * rates[k][j]
    weights = [Fraction(1)]
    for k in range(1, size):
        weights.append(sum((weights[i] * rates[i][k] for i in range(k)), Fraction(0)) / sum(rates[k][:k], Fraction(0)))
    total = sum(weights)
    return [w / total for w in weights]


def exact_metrics(speedup, lam, n, p=None):
    """P_b, E[x], E[D] and E||x - y*||_1 of greedy_chain's chain from its exact law: E[x_i] = E[X_i] / n and
    E[D] = E[number of jobs] / (rate of the jumps that add a job), Little's law with the chain's own rates."""
    loss = greedy_chain(speedup, lam, n, p)
    pi = exact_law(loss.chain.generator)
    X, sizes = loss.states.tolist(), loss.sizes.tolist()
    jobs = [sum(x) for x in X]
    jumps = loss.chain.generator.tocoo()
    accepted = sum(pi[i] * Fraction(float(r)) for i, j, r in zip(jumps.row, jumps.col, jumps.data, strict=True)
                   if jobs[j] == jobs[i] + 1)
    y = [Fraction(float(v)) for v in optimal_occupancy(speedup, lam).y]
    occupancy = [Fraction(0)] * speedup.d
    for k, size in enumerate(sizes):
        occupancy[size - 1] = sum(q * x[k] for q, x in zip(pi, X, strict=True)) / n
    distance = sum(q * sum(abs(Fraction(x[k], n) - y[size - 1]) for k, size in enumerate(sizes))
                   for q, x in zip(pi, X, strict=True)) + sum(v for i, v in enumerate(y, 1) if i not in sizes)
    blocking = sum(q for q, x in zip(pi, X, strict=True) if sum(c * s for c, s in zip(x, sizes, strict=True)) == n)
    return dict(blocking=float(blocking), occupancy=[float(v) for v in occupancy], distance=float(distance),
                mean_response_time=float(sum(q * N for q, N in zip(pi, jobs, strict=True)) / accepted))


THREE = SpeedupTable([1, 1.8, 2.5])


@pytest.mark.parametrize("lam,n,p", [
    (1e-3, 10, None), (1e-100, 10, None), (1e-289, 10, None),
    (2e-291, 10, None),                               # z = nλ = 2e-290: just above the empty-system limit, the chain
    (1e-291, 10, None),                               # z = 1e-290: the limit
    (1e-300, 10, None), (1e-305, 10, None), (1e-305, 20, None),     # E[D] was 1.4, 4e9 and 4e9 (E[N]/λ)
    (1e-310, 10, None), (5e-324, 10, None),           # the solver refused these chains (rates beyond the double range)
    (1e-150, 6, [0.2, 0.3, 0.5]), (1e-290, 6, [0.2, 0.3, 0.5]), (1e-305, 6, [0.2, 0.3, 0.5]),
])
def test_light_loads_against_the_exact_law(lam, n, p):
    """Against the chain's law in exact rationals, and E[D] against its λ -> 0 limit Σ p_i / s_i (1/s_3 = 0.4
    for p* = e_3: every job finds the system empty)."""
    metrics, exact = greedy_metrics(THREE, lam, n, p), exact_metrics(THREE, lam, n, p)
    assert metrics.mean_response_time == pytest.approx(exact["mean_response_time"], rel=1e-13, abs=0)
    assert metrics.blocking == pytest.approx(exact["blocking"], rel=1e-10, abs=1e-290)
    assert metrics.mean_occupancy == pytest.approx(exact["occupancy"], rel=1e-12, abs=2.0**-1074)
    assert metrics.distance == pytest.approx(exact["distance"], rel=1e-12, abs=2.0**-1073)
    if lam <= 1e-100:
        limit = (np.eye(3)[2] if p is None else np.array(p)) @ (1 / THREE.values)
        assert metrics.mean_response_time == pytest.approx(limit, rel=1e-15, abs=0)


# -- the accuracy each result carries ---------------------------------------------------------------------


def within(value, exact, accuracy):
    """``|value - exact| <= accuracy |value|``: what GreedyMetrics.accuracy promises."""
    return abs(value - exact) <= accuracy * abs(value)


@pytest.mark.parametrize("speedup,lam,n,p", [(THREE, 0.8, 6, None), (THREE, 0.95, 9, [0.2, 0.3, 0.5]),
                                             (SUBLINEAR, 0.8, 7, None), (SUBLINEAR, 0.5, 8, "greedy")])
def test_the_chain_accuracy_bounds_the_error_against_the_exact_law(speedup, lam, n, p):
    """The whole chain's metrics against its law in exact rationals (exact_metrics): each error within
    ``accuracy`` relative, and the accuracy small (the per-state bounds of the solver are about 1e-14)."""
    metrics, exact = greedy_metrics(speedup, lam, n, p), exact_metrics(speedup, lam, n, p)
    assert 0 < metrics.accuracy <= 1e-12
    assert within(metrics.blocking, exact["blocking"], metrics.accuracy)
    assert within(metrics.mean_response_time, exact["mean_response_time"], metrics.accuracy)
    assert within(metrics.distance, exact["distance"], metrics.accuracy)
    for value, reference in zip(metrics.mean_occupancy, exact["occupancy"], strict=True):
        assert within(value, reference, metrics.accuracy)


@pytest.mark.parametrize("n,lam,tolerance", [(20, 0.9, 1e-10), (400, 1.0, 1e-10), (400, 0.95, 2.0**-50)])
def test_the_erlang_accuracy_bounds_the_error_against_mpmath(n, lam, tolerance):
    """The closed form (linear speed-up, d = 4, n/4 slots) against Erlang B by its recursion at 50 digits."""
    metrics = greedy_metrics(SpeedupTable.linear(4), lam, n, tolerance=tolerance)
    with mpmath.workdps(50):
        load, blocking = mpmath.mpf(n) * lam / 4, mpmath.mpf(1)
        for k in range(1, n // 4 + 1):
            blocking = load * blocking / (k + load * blocking)
        assert 0 < metrics.accuracy <= 1e-12
        assert abs(metrics.blocking - blocking) <= metrics.accuracy * metrics.blocking
        assert abs(metrics.mean_occupancy[3] - load * (1 - blocking) / n) <= metrics.accuracy * metrics.mean_occupancy[3]


def test_a_shifted_value_falls_outside_the_accuracy():
    """The check above can fail: the exact blocking moved by ten times the accuracy is refused."""
    metrics, exact = greedy_metrics(THREE, 0.8, 6), exact_metrics(THREE, 0.8, 6)
    assert not within(metrics.blocking, exact["blocking"] * (1 + 10 * metrics.accuracy), metrics.accuracy)


def test_the_empty_system_limit_carries_its_deviation():
    """λ = 1e-300: E[D] = Σ p_i / s_i (1/s_3 = 0.4), the accuracy its proven deviation, far below 1e-12."""
    metrics = greedy_metrics(THREE, 1e-300, 10)
    assert metrics.n_states == 1 and 0 < metrics.accuracy <= 1e-14
    assert abs(metrics.mean_response_time - 0.4) <= metrics.accuracy * 0.4


@pytest.mark.parametrize("lam,n", [(1e-300, 10), (1e-305, 10), (1e-305, 20)])
def test_the_chain_route_leaves_unvouched_states_out(monkeypatch, lam, n):
    """Below the empty-system limit, the chain route itself (forced here) is right: the solver vouches for no
    probability but the empty system's (some bounds are infinite; at λ = 1e-305 one state holds 4e-295
    for 4e-305), and E[x], E[D] and the distance come from the arrivals, not from those states."""
    monkeypatch.setattr(greedy_module, "empty_limit", lambda *args: None)
    loss = greedy_chain(THREE, lam, n)
    assert np.isinf(loss.chain.stationary(reference=loss.chain.states[loss.equilibrium]).error_bounds).any()
    metrics, exact = greedy_metrics(THREE, lam, n), exact_metrics(THREE, lam, n)
    assert metrics.n_states == loss.chain.n_states
    assert metrics.mean_response_time == pytest.approx(exact["mean_response_time"], rel=1e-13, abs=0)
    assert metrics.mean_occupancy == pytest.approx(exact["occupancy"], rel=1e-12, abs=2.0**-1074)
    assert metrics.distance == pytest.approx(exact["distance"], rel=1e-12, abs=0)
    assert metrics.blocking == pytest.approx(exact["blocking"], rel=0, abs=1e-290)


def test_the_empty_system_limit_needs_no_chain():
    """λ = 1e-310 with 10^7 servers: z = nλ = 1e-303, no chain built (max_states = 10 would refuse it). P(N >= 1)
    <= z, so E[D] = 1/s_3, E[x_3] = λ/s_3 and E||x - y*|| = 2 y*_3 = 2 λ/s_3 to double precision."""
    metrics = greedy_metrics(THREE, 1e-310, 10**7, max_states=10)
    assert metrics.n_states == 1 and metrics.residual == 0 and metrics.blocking == 0
    assert metrics.mean_response_time == pytest.approx(0.4, rel=1e-15, abs=0)
    assert metrics.mean_occupancy == pytest.approx([0, 0, 0.4e-310], rel=1e-12, abs=2.0**-1074)
    assert metrics.distance == pytest.approx(0.8e-310, rel=1e-12, abs=2.0**-1073)
    assert metrics.small_jobs.tolist() == [1.0]


def test_tiny_entries_of_p_are_named():
    """p_1 = 1e-310 makes an arrival rate 5e-310 against a total of 5 out of the empty system: the solver refuses its
    internal 'rate'; the refusal names p (the solver's error chained)."""
    with pytest.raises(InvalidParameterError, match=r"^p = \[1e-310, 0, 1\]: makes arrival rates .* exact solver refuses "
                                                    r"\(rate = 5e-310: .*set the tiny entries of p to 0$") as caught:
        greedy_metrics(THREE, 0.5, 10, [1e-310, 0, 1])
    assert caught.value.parameter == "p" and caught.value.__cause__.parameter == "rate"


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
    (dict(rate_per_server=1.5), r"rate_per_server = 1.5: must lie in \(0, 1\]"),
    (dict(rate_per_server=0), r"rate_per_server = 0: must lie in \(0, 1\]"),
    (dict(p="random"), r"p = 'random': must be None \(p\*\), \"greedy\" or a probability vector"),
    (dict(p=[0.5, 0.5]), r"must be a probability vector of length 5 \(d = 5\)"),
    (dict(p=[0.5, 0.5, 0.5, 0, 0]), r"entries sum to 1.5, not 1"),
    (dict(max_states=100), r"needs more than 100 states, above max_states=100"),
])
def test_errors(kwargs, match):
    args = dict(speedup=SUBLINEAR, rate_per_server=0.8, servers=20) | kwargs
    error = StateSpaceTooLargeError if "max_states" in kwargs else InvalidParameterError
    with pytest.raises(error, match=match):
        greedy_metrics(**args)


def test_repr_is_readable():
    text = repr(greedy_metrics(SpeedupTable.linear(5), 0.5, 10))
    assert text.startswith("GreedyMetrics(servers=10, blocking=")
    assert "n_states=3" in text


# -- the forms of a speed-up --------------------------------------------------------------------------


def test_a_table_and_its_interpolation_give_the_same_loss_system():
    """greedy_metrics of the table, its interpolation and a plain list: equal, and equal to brute force."""
    forms = [SUBLINEAR, SpeedupCurve.from_discrete(SUBLINEAR), [1, 1.8, 2.5, 3, 3.4]]
    results = [greedy_metrics(form, 0.8, 7) for form in forms]
    X, pi = brute_force(SUBLINEAR, 0.8, 7, optimal_occupancy(SUBLINEAR, 0.8).p)
    assert results[0].blocking == pytest.approx(pi[X @ SUBLINEAR.servers == 7].sum(), abs=1e-11)
    for other in results[1:]:
        assert other.blocking == results[0].blocking and np.array_equal(other.mean_occupancy, results[0].mean_occupancy)
    assert greedy_chain(forms[1], 0.8, 7).sizes.tolist() == greedy_chain(SUBLINEAR, 0.8, 7).sizes.tolist()


def test_a_sampled_power_curve_is_an_erlang_system_when_linear():
    """k^1 sampled at 1..5 is the linear table: greedy with n = 100 is Erlang's loss system (mpmath)."""
    table = SpeedupTable.from_curve(lambda k: k, 5)
    assert table.is_linear
    assert greedy_metrics(table, 0.8, 100).blocking == pytest.approx(erlang_b(20, 16.0), rel=1e-12, abs=0)


def test_a_curve_without_d_is_refused():
    with pytest.raises(InvalidParameterError, match="is a curve without a largest server count d"):
        greedy_metrics(SpeedupCurve.power(0.5), 0.8, 10)
    with pytest.raises(InvalidParameterError, match="speedup = None: must be a SpeedupTable"):
        greedy_chain(None, 0.8, 10)


def test_greedy_chain_refuses_a_billion_servers_before_allocating():
    """n = 1e9 with d = 2 allocated an (n + 1) x 3 table (7.5 GB for d = 5) before any check."""
    from analytic.errors import StateSpaceTooLargeError
    from analytic.moldable import greedy_chain
    from analytic.speedup import SpeedupTable

    with pytest.raises(StateSpaceTooLargeError, match="the greedy\\(p\\) chain needs more than 30,000,000 states"):
        greedy_chain(SpeedupTable.linear(2), 0.8, 10**9)


@pytest.mark.parametrize("call,match", [
    (lambda: __import__("analytic.moldable", fromlist=["x"]).allocation_probabilities(3, [[1.0], [1.0, 2.0]]),
     r"^p = \[\[1.0\], \[1.0, 2.0\]\]: must be a probability vector \(must be a non-empty 1-D sequence of real numbers"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()


def test_greedy_metrics_gives_erlangs_formula_where_the_chain_is_too_large():
    """greedy_metrics(linear, 0.9, 10**9) refused, naming Erlang's loss system. With one allocation size m dividing n
    the chain is that system: greedy_metrics now gives its numbers, and the chain builder's refusal points there.
    Reference: erlang_b at n/m slots and load nλ/s_m (analytic.erlang), and E[D] = 1/s_m."""
    from analytic.erlang import erlang_b
    from analytic.errors import StateSpaceTooLargeError
    from analytic.moldable import greedy_chain, greedy_metrics
    from analytic.speedup import SpeedupTable

    with pytest.raises(StateSpaceTooLargeError, match=r"Erlang's loss system with 250,000,000 slots: "
                                                      r"P_b = erlang_b\(250000000, 225000000.0\)"):
        greedy_chain(SpeedupTable.linear(4), 0.9, 10**9)
    metrics = greedy_metrics(SpeedupTable.linear(4), 0.9, 10**9)
    assert metrics.blocking == pytest.approx(erlang_b(250_000_000, 225_000_000.0), rel=1e-12, abs=0)
    assert metrics.mean_response_time == pytest.approx(0.25, rel=1e-12, abs=0)
