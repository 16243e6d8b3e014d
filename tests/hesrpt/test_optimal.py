"""Tests of analytic.hesrpt.optimal: the flow-time-optimal policy for concave speed-ups.

References: heSRPT's closed forms for k^p (Berg, Vesilo & Harchol-Balter, Theorems 7 and 8), an
independent convex program solved by cvxpy for every completion order (brute force over orders),
for tables (piecewise-linear speed-ups) the same program as a linear program solved by scipy's
HiGHS, a direct mpmath minimization of the two-job flow time, and exact evaluation by flow_time.
"""

import itertools

import cvxpy as cp
import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

import analytic.hesrpt.optimal as optimal_module
from analytic.errors import ConvergenceError, InvalidParameterError
from analytic.hesrpt import flow_time, hesrpt_allocation, hesrpt_flow_time, optimal_allocation
from analytic.speedup import SpeedupCurve, SpeedupTable

SIZES = np.array([3.7, 0.9, 12.5, 2.2, 6.1, 1.4, 8.8, 5.0])


def perspective(kind, parameter, servers, w, d):
    """d s(N w / d) as a concave cvxpy expression, for s = k^p, Amdahl's law or log(1 + k)."""
    if kind == "power":
        return servers ** parameter * cp.geo_mean(cp.hstack([w, d]), [parameter, 1 - parameter])
    if kind == "amdahl":  # N w d / ((1-f) N w + f d) = 1 / ((1-f)/d + f/(N w))
        return cp.harmonic_mean(cp.hstack([d / (1 - parameter), servers * w / parameter])) / 2
    return -cp.rel_entr(d, d + servers * w)  # d log(1 + N w / d)


def convex_program(jobs, kind, parameter, servers):
    """The best policy for a given completion order as a convex program (the form of Section 3 in
    server-time w = d θ): phase j (j jobs left) lasts d_j; the job finishing when i jobs are left
    receives w_ij in each phase j >= i; minimize Σ j d_j. Returns (problem, sizes parameter)."""
    x = cp.Parameter(jobs, nonneg=True)  # x[i - 1]: size of the job finishing when i jobs are left
    d = cp.Variable(jobs, nonneg=True)
    w = {(i, j): cp.Variable(nonneg=True) for j in range(jobs) for i in range(j + 1)}
    constraints = [sum(w[i, j] for i in range(j + 1)) <= d[j] for j in range(jobs)]
    constraints += [sum(perspective(kind, parameter, servers, w[i, j], d[j]) for j in range(i, jobs)) >= x[i]
                    for i in range(jobs)]
    return cp.Problem(cp.Minimize(sum((j + 1) * d[j] for j in range(jobs))), constraints), x


def best_for_order(program, sizes_in_completion_order):
    problem, x = program
    x.value = np.asarray(sizes_in_completion_order, dtype=float)[::-1]
    problem.solve(solver=cp.CLARABEL)
    return problem.value


def table_program(values, servers, sizes_in_completion_order):
    """The program above for a table s_1..s_d, flat beyond d: d s(N w/d) = min_l (g_l N w + c_l d) over
    the pieces (slope g_l, intercept c_l) and s_d d, so with u <= each piece it is a linear program."""
    s = np.concatenate([[0.0], np.asarray(values, dtype=float)])
    slopes = np.diff(s)
    intercepts = s[1:] - slopes * np.arange(1, s.size)
    x = np.asarray(sizes_in_completion_order, dtype=float)[::-1]  # x[i]: finishes when i + 1 jobs are left
    jobs = x.size
    pairs = [(i, j) for j in range(jobs) for i in range(j + 1)]
    w = {pair: jobs + k for k, pair in enumerate(pairs)}
    u = {pair: jobs + len(pairs) + k for k, pair in enumerate(pairs)}
    rows, bounds = [], []

    def row(entries, bound):
        vector = np.zeros(jobs + 2 * len(pairs))
        for index, value in entries:
            vector[index] += value
        rows.append(vector)
        bounds.append(bound)

    for j in range(jobs):                                       # Σ_i w_ij <= d_j
        row([(w[i, j], 1.0) for i in range(j + 1)] + [(j, -1.0)], 0.0)
    for i, j in pairs:                                          # u_ij <= d_j s(N w_ij / d_j)
        for g, c in zip(slopes, intercepts, strict=True):
            row([(u[i, j], 1.0), (w[i, j], -g * servers), (j, -c)], 0.0)
        row([(u[i, j], 1.0), (j, -s[-1])], 0.0)
    for i in range(jobs):                                       # Σ_j u_ij >= x_i
        row([(u[i, j], -1.0) for j in range(i, jobs)], -x[i])
    cost = np.concatenate([np.arange(1.0, jobs + 1), np.zeros(2 * len(pairs))])
    result = linprog(cost, A_ub=np.array(rows), b_ub=bounds, method="highs",
                     bounds=[(0, None)] * (jobs + len(pairs)) + [(None, None)] * len(pairs))
    assert result.status == 0
    return result.fun


CURVES = {"power": SpeedupCurve.power, "amdahl": SpeedupCurve.amdahl,
          "log": lambda _: SpeedupCurve.from_callable(np.log1p, 10.0, name="log1p")}


@pytest.mark.parametrize("p", (0.05, 0.3, 0.5, 0.9, 0.99))
def test_power_speedup_reproduces_hesrpt(p):
    sizes = 1.0 + np.random.default_rng(11).pareto(1.5, 20)
    result = optimal_allocation(sizes, p, 1e6)
    closed = hesrpt_flow_time(sizes, p, 1e6)
    assert result.total == pytest.approx(closed.total, rel=1e-12, abs=0)
    np.testing.assert_allclose(result.completion_times, closed.completion_times, rtol=1e-10)
    by_rank = np.argsort(-sizes, kind="stable")
    for t in range(20):
        left = by_rank[:20 - t]
        np.testing.assert_allclose(result.allocations[t, left], hesrpt_allocation(20 - t, p), rtol=1e-10, atol=1e-300)
    np.testing.assert_array_equal(result.completion_order, np.argsort(sizes, kind="stable"))


@pytest.mark.parametrize("kind,parameter", [("power", 0.5), ("amdahl", 0.9), ("amdahl", 0.6), ("log", None)])
def test_brute_force_over_completion_orders_with_cvxpy(kind, parameter):
    """Every order of 4 jobs solved as a convex program: the best is shortest-first and equals the package."""
    sizes = np.array([2.0, 0.7, 3.1, 1.3])
    result = optimal_allocation(sizes, CURVES[kind](parameter), 10.0)
    program = convex_program(4, kind, parameter, 10.0)
    values = {order: best_for_order(program, sizes[list(order)]) for order in itertools.permutations(range(4))}
    best = min(values, key=values.get)
    assert values[best] == pytest.approx(result.total, rel=1e-6, abs=0)
    assert values[tuple(np.argsort(sizes))] == pytest.approx(result.total, rel=1e-6, abs=0)
    assert max(values.values()) > 1.01 * result.total  # the order matters: the check can discriminate


@pytest.mark.slow
@pytest.mark.parametrize("kind,parameter", [("amdahl", 0.9), ("log", None)])
def test_eight_jobs_against_cvxpy(kind, parameter):
    expected = best_for_order(convex_program(SIZES.size, kind, parameter, 10.0), np.sort(SIZES))
    assert optimal_allocation(SIZES, CURVES[kind](parameter), 10.0).total == pytest.approx(expected, rel=1e-6, abs=0)


def test_section1_amdahl_split_against_mpmath():
    """Two unit jobs, N = 10, Amdahl f = 0.9: the share of the first job solves d(flow time)/da = 0."""
    def total(a):
        def s(k):
            return 1 / (1 - mpmath.mpf("0.9") + mpmath.mpf("0.9") / k)
        first = 1 / s(10 * a)
        return 2 * first + (1 - first * s(10 * (1 - a))) / s(10)

    with mpmath.workdps(40):
        share = mpmath.findroot(lambda a: mpmath.diff(total, a), mpmath.mpf("0.7"))
        value = total(share)
    result = optimal_allocation([1.0, 1.0], SpeedupCurve.amdahl(0.9), 10)
    assert result.allocations[0].max() == pytest.approx(float(share), rel=1e-12, abs=0)
    assert result.total == pytest.approx(float(value), rel=1e-13, abs=0)
    assert float(share) == pytest.approx(0.7107, abs=1e-4)  # the paper states 63.5%


def test_section1_power_split_is_75_percent():
    result = optimal_allocation([1.0, 1.0], 0.5, 10)
    np.testing.assert_allclose(np.sort(result.allocations[0]), [0.25, 0.75], rtol=1e-13)


@pytest.mark.parametrize("curve", [SpeedupCurve.amdahl(0.9), SpeedupCurve.amdahl(0.5), SpeedupCurve.power(0.3)])
def test_the_optimal_schedule_evaluated_exactly_gives_the_same_total(curve):
    """Replaying the phase allocations (they depend only on the number of jobs left) through flow_time."""
    result = optimal_allocation(SIZES, curve, 10.0)
    by_size = np.argsort(SIZES, kind="stable")
    shares = {SIZES.size - t: result.allocations[t, by_size[t:]] for t in range(SIZES.size)}
    replay = flow_time(SIZES, lambda remaining: shares[remaining.size], curve, 10.0)
    np.testing.assert_allclose(replay.completion_times, result.completion_times, rtol=1e-10)
    assert replay.total == pytest.approx(result.total, rel=1e-12, abs=0)


def test_multipliers_are_the_derivatives_of_the_optimal_total():
    curve = SpeedupCurve.amdahl(0.8)
    result = optimal_allocation(SIZES, curve, 10.0)
    for i in range(SIZES.size):
        bumped = SIZES.copy()
        bumped[i] *= 1 + 1e-7
        slope = (optimal_allocation(bumped, curve, 10.0).total - result.total) / (SIZES[i] * 1e-7)
        assert slope == pytest.approx(result.multipliers[i], rel=1e-5, abs=0)


def test_amdahl_can_leave_large_jobs_without_servers():
    """s'(0) = 1/f is finite, so unlike heSRPT some jobs wait (allocation 0 while present)."""
    result = optimal_allocation(SIZES, SpeedupCurve.amdahl(0.9), 10.0)
    present = result.completion_times[None, :] > np.concatenate([[0.0], np.cumsum(result.durations)[:-1]])[:, None]
    assert np.any(present & (result.allocations == 0.0))
    assert np.all(result.durations >= 0)


@pytest.mark.slow
def test_thirty_jobs_with_a_callable_speedup():
    sizes = 1.0 + np.random.default_rng(2).pareto(1.5, 30)
    result = optimal_allocation(sizes, lambda k: np.log1p(k), 100.0)
    np.testing.assert_allclose(result.allocations.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(np.argsort(result.completion_times, kind="stable"), result.completion_order)
    assert result.total == pytest.approx(np.sum(result.completion_times), rel=1e-10, abs=0)
    assert result.total == pytest.approx(float(result.multipliers @ sizes), rel=1e-15, abs=0)


def test_a_table_against_the_linear_program_for_every_completion_order():
    """Four jobs, s = (1, 1.8, 2.5, 3, 3.4) interpolated, N = 10: the best of the 24 orders is shortest first."""
    sizes, values = np.array([2.0, 0.7, 3.1, 1.3]), [1, 1.8, 2.5, 3, 3.4]
    result = optimal_allocation(sizes, SpeedupTable(values), 10.0)
    totals = {order: table_program(values, 10.0, sizes[list(order)]) for order in itertools.permutations(range(4))}
    assert min(totals.values()) == pytest.approx(result.total, rel=1e-13, abs=0)
    assert totals[tuple(np.argsort(sizes))] == pytest.approx(result.total, rel=1e-13, abs=0)
    assert max(totals.values()) > 1.01 * result.total


TABLES = st.lists(st.one_of(st.sampled_from([1.0, 0.75, 0.5, 0.25]), st.floats(0.05, 1.0)), max_size=5).map(
    lambda raw: SpeedupTable(np.cumsum(np.concatenate([[1.0], np.sort(raw)[::-1]]))))


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(table=TABLES, servers=st.one_of(st.integers(1, 14).map(float), st.floats(0.3, 14.0)),
       sizes=st.lists(st.one_of(st.sampled_from([1.0, 2.0, 3.0]), st.floats(0.1, 5.0)), min_size=1, max_size=7))
def test_tables_match_the_linear_program(table, servers, sizes):
    """Equal increments (linear pieces), integer N (allocations on the knots) and equal sizes make the
    optimal allocation non-unique; the water-filling must still reach the LP's optimum, with
    non-negative phases, and its schedule replayed by flow_time must give the same total."""
    result = optimal_allocation(sizes, table, servers)
    assert result.total == pytest.approx(table_program(table.values, servers, np.sort(sizes)), rel=1e-12, abs=0)
    assert np.all(result.durations >= 0) and np.all(result.allocations >= 0)
    assert np.all(result.allocations.sum(axis=1) <= 1 + 1e-12)
    order = result.completion_order  # first to finish first: increasing remaining size (equal jobs: either)
    shares = {len(sizes) - t: result.allocations[t, order[t:]] for t in range(len(sizes))}
    replay = flow_time(sizes, lambda remaining: shares[remaining.size], table, servers)
    assert replay.total == pytest.approx(result.total, rel=1e-12, abs=0)


@settings(max_examples=50, deadline=None)
@given(sizes=st.lists(st.one_of(st.sampled_from([1.0, 2.0]), st.floats(0.05, 50.0)), min_size=1, max_size=8),
       fraction=st.one_of(st.floats(0.05, 0.99), st.sampled_from([1e-3, 0.999])),
       servers=st.integers(1, 100), policy=st.sampled_from(["srpt", "equi", "hell"]))
def test_no_policy_beats_the_optimum_for_amdahl(sizes, fraction, servers, policy):
    curve = SpeedupCurve.amdahl(fraction)
    result = optimal_allocation(sizes, curve, servers)
    assert flow_time(sizes, policy, curve, servers).total >= result.total * (1 - 1e-10)
    np.testing.assert_allclose(result.allocations.sum(axis=1), 1.0, rtol=1e-9)
    assert np.all(result.allocations >= 0)
    assert result.total == pytest.approx(result.completion_times.sum(), rel=1e-8, abs=0)


def test_a_schedule_with_a_negative_phase_raises(monkeypatch):
    """The guard against inconsistent phases (only a non-concave speed-up can cause them)."""
    original = optimal_module._phase

    def reversed_phase(speedup, servers, weights, count):
        held, weight = original(speedup, servers, weights, count)
        return held[::-1].copy(), weight  # the smallest job now gets the fewest servers

    monkeypatch.setattr(optimal_module, "_phase", reversed_phase)
    with pytest.raises(ConvergenceError, match="negative phase duration"):
        optimal_allocation([1.0, 1.0, 1.0], SpeedupCurve.amdahl(0.9), 10)


@pytest.mark.parametrize("call,match", [
    (lambda: optimal_allocation([1.0, -1.0], 0.5, 10), "sizes = "),
    (lambda: optimal_allocation([1.0], 0.5, -1), "servers = -1"),
    (lambda: optimal_allocation([1.0], 1.0, 10), r"p = 1: must lie in the open interval \(0, 1\)"),
    (lambda: optimal_allocation([1.0], lambda k: np.exp(k) - 1, 10), "must be concave"),
])
def test_invalid_input_raises_a_named_error(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


def test_repr_shows_the_first_phase():
    total = hesrpt_flow_time([1.0, 1.0], 0.5, 10).total  # Theorem 8's closed form
    assert repr(optimal_allocation([1.0, 1.0], 0.5, 10)).startswith(f"OptimalAllocation(jobs=2, total={total:.12g}")


def test_every_form_of_a_table_gives_the_same_policy():
    """A SpeedupTable, a list and the interpolation: the same policy, at the LP's optimum."""
    table = SpeedupTable([1, 1.8, 2.5, 3, 3.4])
    results = [optimal_allocation(SIZES, form, 7.5) for form in (table, [1, 1.8, 2.5, 3, 3.4],
                                                                  SpeedupCurve.from_discrete(table))]
    for other in results[1:]:
        assert other.total == results[0].total and np.array_equal(other.allocations, results[0].allocations)
    assert results[0].total == pytest.approx(table_program(table.values, 7.5, np.sort(SIZES)), rel=1e-12, abs=0)


@pytest.mark.parametrize("servers", [3.0, 6.0, 40.0])
def test_an_amdahl_curve_against_its_sampled_table(servers):
    """The interpolation of Amdahl's law sampled at 1..8 lies below the curve on [0, 8] and is flat
    beyond, so its optimal total is larger; with N <= 8 and one job (all servers to it) they agree."""
    curve = SpeedupCurve.amdahl(0.9)
    table = SpeedupTable.from_curve(curve, 8)
    assert optimal_allocation(SIZES, table, servers).total >= optimal_allocation(SIZES, curve, servers).total
    if servers <= 8 and servers == int(servers):
        assert optimal_allocation([2.0], table, servers).total == pytest.approx(
            2.0 / float(curve(servers)), rel=1e-15, abs=0)
