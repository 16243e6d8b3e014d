"""Tests of analytic.hesrpt.policies: exact event-by-event evaluation of allocation policies.

References: closed forms (Theorem 8, SRPT's and EQUI's completion times written out here, in mpmath
for EQUI), and a slow pure-Python event loop in this file that allocates HELL and KNEE straight from
their descriptions in Section 4.2 of Berg, Vesilo & Harchol-Balter, heSRPT (job by job, k by k).
"""

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.errors import InvalidParameterError
from analytic.hesrpt import flow_time, hesrpt_allocation, hesrpt_flow_time, knee_search
from analytic.speedup import SpeedupCurve, SpeedupTable

mpmath.mp.dps = 50


def reference_run(sizes, allocate, speedup):
    """Departure-by-departure evaluation in plain Python; allocate(remaining: dict) -> {job: servers}."""
    remaining = dict(enumerate(float(x) for x in sizes))
    clock, completion = 0.0, {}
    while remaining:
        servers = allocate(dict(remaining))
        rates = {j: float(speedup(servers[j])) if servers.get(j, 0) > 0 else 0.0 for j in remaining}
        step = min(remaining[j] / rates[j] for j in remaining if rates[j] > 0)
        clock += step
        leaving = [j for j in remaining if rates[j] > 0 and remaining[j] / rates[j] <= step * (1 + 1e-12)]
        for j in remaining:
            remaining[j] -= rates[j] * step
        for j in leaving:
            completion[j] = clock
            del remaining[j]
    return np.array([completion[j] for j in range(len(sizes))])


def hell_by_description(speedup, servers):
    """HELL as Section 4.2 describes it: repeatedly, the (job, k) with the highest efficiency s(k)/k
    over remaining processing time x/s(k) gets k servers (ties: the larger k)."""
    def allocate(remaining):
        free, waiting, grant = servers, set(remaining), {}
        while free > 0 and waiting:
            best = None
            for j in sorted(waiting, key=lambda j: (remaining[j], j)):
                for k in range(1, free + 1):
                    ratio = (float(speedup(k)) / k) / (remaining[j] / float(speedup(k)))
                    if best is None or ratio > best[0] * (1 + 1e-12) or (ratio >= best[0] * (1 - 1e-12) and j == best[1]):
                        best = (ratio, j, k)
            grant[best[1]] = best[2]
            free -= best[2]
            waiting.discard(best[1])
        return grant
    return allocate


def knee_by_description(speedup, servers, alpha):
    """KNEE as Section 4.2 describes it: a job's knee is the first k whose extra server cuts its run
    time x/s(k) by less than α; jobs in increasing knee order receive their knee until none is left."""
    def knee(x):
        for k in range(1, servers):
            if x / float(speedup(k)) - x / float(speedup(k + 1)) < alpha:
                return k
        return servers

    def allocate(remaining):
        free, grant = servers, {}
        for j in sorted(remaining, key=lambda j: (knee(remaining[j]), remaining[j], j)):
            grant[j] = min(knee(remaining[j]), free)
            free -= grant[j]
        return grant
    return allocate


SIZES = np.array([3.7, 0.9, 12.5, 2.2, 6.1, 1.4, 8.8])

#: Exponents with the hard ends: near 0 EQUI, near 1 SRPT come within rounding of heSRPT.
EXPONENTS = st.one_of(st.floats(0.05, 0.95), st.sampled_from([1e-3, 0.01, 0.99, 0.999]))

#: Sizes with ties (equal jobs leave together) and a spread of three orders of magnitude.
JOB_SIZES = st.one_of(st.sampled_from([1.0, 2.0]), st.floats(0.05, 50.0))


@pytest.mark.parametrize("p", (0.05, 0.3, 0.5, 0.9, 0.99))
def test_hesrpt_evaluation_equals_theorem8(p):
    sizes = 1.0 + np.random.default_rng(3).pareto(1.5, 200)
    evaluated = flow_time(sizes, "hesrpt", p, 1e6)
    assert evaluated.total == pytest.approx(hesrpt_flow_time(sizes, p, 1e6).total, rel=1e-12, abs=0)
    assert evaluated.mean == pytest.approx(evaluated.total / 200, rel=1e-15, abs=0)


def test_srpt_completes_jobs_one_at_a_time_on_all_servers():
    result = flow_time(SIZES, "srpt", 0.5, 100)
    order = np.argsort(SIZES)
    np.testing.assert_allclose(result.completion_times[order], np.cumsum(SIZES[order]) / 10.0, rtol=1e-14)


@pytest.mark.parametrize("p", (0.2, 0.7))
def test_equi_matches_its_closed_form_in_mpmath(p):
    """EQUI: the j-th smallest job ends at Σ_(i<=j) (y_i - y_(i-1)) / s(N/(M-i+1))."""
    result = flow_time(SIZES, "equi", p, 50)
    y = sorted(mpmath.mpf(float(x)) for x in SIZES)
    m, previous, clock, expected = len(y), mpmath.mpf(0), mpmath.mpf(0), []
    for i, size in enumerate(y):
        clock += (size - previous) / (mpmath.mpf(50) / (m - i)) ** p
        previous = size
        expected.append(float(clock))
    np.testing.assert_allclose(np.sort(result.completion_times), expected, rtol=1e-14)


def test_equal_jobs_under_equi_leave_together():
    result = flow_time([2.0, 2.0, 2.0], "equi", 0.5, 12)
    np.testing.assert_allclose(result.completion_times, 2.0 / 2.0, rtol=1e-15)


@pytest.mark.parametrize("speedup", [SpeedupCurve.power(0.3), SpeedupCurve.power(0.5), SpeedupCurve.power(0.8),
                                     SpeedupCurve.amdahl(0.7), SpeedupCurve.amdahl(0.95)])
def test_hell_matches_its_description(speedup):
    servers = 9
    expected = reference_run(SIZES, hell_by_description(speedup, servers), speedup)
    np.testing.assert_allclose(flow_time(SIZES, "hell", speedup, servers).completion_times, expected, rtol=1e-12)


def test_hell_for_power_speedups_is_one_server_each_below_one_half_and_srpt_above():
    low = flow_time(SIZES, "hell", 0.3, 1000)
    np.testing.assert_allclose(low.completion_times, SIZES, rtol=1e-14)  # s(1) = 1: each job alone on one server
    for p in (0.5, 0.9):
        np.testing.assert_allclose(flow_time(SIZES, "hell", p, 1000).completion_times,
                                   flow_time(SIZES, "srpt", p, 1000).completion_times, rtol=1e-14)


@pytest.mark.parametrize("speedup,alpha", [(SpeedupCurve.power(0.5), 0.05), (SpeedupCurve.power(0.5), 0.3),
                                           (SpeedupCurve.power(0.9), 0.02), (SpeedupCurve.amdahl(0.8), 0.1),
                                           (SpeedupCurve.amdahl(0.99), 0.004)])
def test_knee_matches_its_description(speedup, alpha):
    servers = 40
    expected = reference_run(SIZES, knee_by_description(speedup, servers, alpha), speedup)
    result = flow_time(SIZES, "knee", speedup, servers, alpha=alpha)
    np.testing.assert_allclose(result.completion_times, expected, rtol=1e-12)
    assert result.alpha == alpha


def test_knee_extremes_are_one_server_each_and_srpt():
    one_each = flow_time(SIZES, "knee", 0.5, 1000, alpha=1e9)
    np.testing.assert_allclose(one_each.completion_times, SIZES, rtol=1e-14)
    everything = flow_time(SIZES, "knee", 0.5, 1000, alpha=1e-12)
    np.testing.assert_allclose(everything.completion_times, flow_time(SIZES, "srpt", 0.5, 1000).completion_times, rtol=1e-14)


def test_knee_search_reports_the_best_threshold_it_tried():
    search = knee_search(SIZES, 0.5, 200)
    assert search.mean == search.means.min()  # the same number, reported
    assert np.all(np.diff(search.alphas) > 0)
    assert search.alphas.size == 29
    assert flow_time(SIZES, "knee", 0.5, 200, alpha=search.alpha).mean == pytest.approx(search.mean, rel=1e-14, abs=0)
    searched = flow_time(SIZES, "knee", 0.5, 200)
    assert searched.alpha == search.alpha
    given_grid = knee_search(SIZES, 0.5, 200, alphas=[0.3, 0.01, 0.1])
    np.testing.assert_array_equal(given_grid.alphas, [0.01, 0.1, 0.3])
    for alpha, mean in zip(given_grid.alphas, given_grid.means, strict=True):
        assert flow_time(SIZES, "knee", 0.5, 200, alpha=alpha).mean == pytest.approx(mean, rel=1e-14, abs=0)


def test_knee_search_with_a_single_server():
    search = knee_search(SIZES, 0.5, 1)
    assert search.mean == pytest.approx(flow_time(SIZES, "srpt", 0.5, 1).mean, rel=1e-14, abs=0)


def test_callable_policy_equals_the_built_in_equi():
    equi = flow_time(SIZES, lambda remaining: np.full(remaining.size, 1.0 / remaining.size), 0.6, 30)
    assert equi.policy == "callable"
    np.testing.assert_allclose(equi.completion_times, flow_time(SIZES, "equi", 0.6, 30).completion_times, rtol=1e-14)


def test_callable_policy_receives_increasing_remaining_sizes():
    seen = []

    def policy(remaining):
        seen.append(remaining.copy())
        return hesrpt_allocation(remaining.size, 0.4)[::-1]  # largest-first → smallest-first

    result = flow_time(SIZES, policy, 0.4, 10)
    assert all(np.all(np.diff(r) >= 0) for r in seen)
    assert [r.size for r in seen] == list(range(SIZES.size, 0, -1))
    np.testing.assert_allclose(result.completion_times, hesrpt_flow_time(SIZES, 0.4, 10).completion_times, rtol=1e-12)


def test_trajectory_of_three_jobs():
    """Figure 3's setting: three jobs, s(k) = k^0.5, N = 500."""
    sizes = np.array([1.0, 2.0, 3.0])
    result = flow_time(sizes, "hesrpt", 0.5, 500, record=True)
    path = result.trajectory
    np.testing.assert_allclose(path.times[1:], np.sort(result.completion_times), rtol=1e-15)
    np.testing.assert_array_equal(path.remaining[0], sizes)
    np.testing.assert_allclose(path.allocations[0], hesrpt_allocation(3, 0.5)[::-1], rtol=1e-14)  # smallest gets most
    np.testing.assert_allclose(path.allocations[1][1:], hesrpt_allocation(2, 0.5)[::-1], rtol=1e-14)
    assert path.allocations[1][0] == 0.0
    at_completion = path.remaining_at(result.completion_times)
    np.testing.assert_allclose(np.diag(at_completion), 0.0, atol=1e-12)
    assert path.remaining_at(0.0).shape == (3,)
    assert repr(path) == "Trajectory(epochs=4, jobs=3)"


@settings(max_examples=80, deadline=None)
@given(sizes=st.lists(JOB_SIZES, min_size=1, max_size=12), p=EXPONENTS,
       servers=st.integers(1, 200), policy=st.sampled_from(["srpt", "equi", "hell", "helrpt"]))
def test_no_policy_beats_hesrpt(sizes, p, servers, policy):
    result = flow_time(sizes, policy, p, servers)
    assert np.all(result.completion_times > 0)
    assert result.total == pytest.approx(result.completion_times.sum(), rel=1e-14, abs=0)
    assert result.total >= hesrpt_flow_time(sizes, p, servers).total * (1 - 1e-12)


@settings(max_examples=50, deadline=None)
@given(sizes=st.lists(JOB_SIZES, min_size=1, max_size=8), alpha=st.floats(1e-4, 10.0),
       servers=st.integers(1, 300), p=EXPONENTS)
def test_knee_never_beats_hesrpt(sizes, alpha, servers, p):
    assert flow_time(sizes, "knee", p, servers, alpha=alpha).total >= hesrpt_flow_time(sizes, p, servers).total * (1 - 1e-12)


@pytest.mark.parametrize("call,match", [
    (lambda: flow_time(SIZES, "fifo", 0.5, 10), "policy = 'fifo': must be a callable or one of hesrpt"),
    (lambda: flow_time(SIZES, "equi", 0.5, 10, alpha=0.1), "alpha = 0.1: is KNEE's threshold"),
    (lambda: flow_time(SIZES, "knee", 0.5, 10, alpha=-1.0), "alpha = -1: must be positive and finite"),
    (lambda: flow_time(SIZES, "knee", 0.5, 10.5, alpha=1.0), "servers = 10.5: policy 'knee' allocates whole servers"),
    (lambda: flow_time(SIZES, "hell", 0.5, 0.5), "servers = 0.5: policy 'hell' allocates whole servers"),
    (lambda: flow_time(SIZES, "hesrpt", SpeedupCurve.amdahl(0.9), 10), "policy 'hesrpt' is defined for s.k. = k.p only"),
    (lambda: flow_time(SIZES, "helrpt", np.sqrt, 10), "policy 'helrpt' is defined for s.k. = k.p only"),
    (lambda: flow_time(SIZES, lambda r: np.full(r.size, 0.5), 0.5, 10), "sum to at most 1 .* sum = 3.5"),
    (lambda: flow_time(SIZES, lambda r: -np.ones(r.size) / r.size, 0.5, 10), "must be finite, >= 0"),
    (lambda: flow_time(SIZES, lambda r: np.ones(2), 0.5, 10), r"one fraction per remaining job: shape \(7,\)"),
    (lambda: flow_time(SIZES, lambda r: np.zeros(r.size), 0.5, 10), "allocates no service to any remaining job"),
    (lambda: flow_time([], "equi", 0.5, 10), "sizes = "),
    (lambda: flow_time(SIZES, "equi", 1.5, 10), r"p = 1.5: must lie in the open interval \(0, 1\)"),
    (lambda: flow_time(SIZES, "equi", lambda k: k ** 2, 10), "must be concave"),
    (lambda: knee_search(SIZES, 0.5, 10, alphas=[0.1, 0.0]), "alphas = .*positive finite thresholds"),
    (lambda: knee_search(SIZES, 0.5, 10, alphas=[]), "alphas = "),
])
def test_invalid_input_raises_a_named_error(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


def test_reprs_are_readable():
    result = flow_time([1.0, 1.0], "knee", 0.5, 10, alpha=0.01)
    assert repr(result).startswith("FlowTime(policy='knee', jobs=2, total=")
    assert "alpha=0.01" in repr(result)
    assert repr(knee_search([1.0], 0.5, 4, alphas=[1.0])).startswith("KneeSearch(alpha=1, mean=")


# -- a table as the speed-up ---------------------------------------------------------------------------

TABLE = SpeedupTable([1, 1.8, 2.5, 3, 3.4])


def table_rate(k):
    """The interpolation of TABLE written out: s_i on whole servers, chords between, s_5 beyond 5."""
    values = [0.0, 1.0, 1.8, 2.5, 3.0, 3.4]
    if k >= 5:
        return values[5]
    low = int(k)
    return values[low] + (k - low) * (values[low + 1] - values[low])


@pytest.mark.parametrize("policy,servers,alpha", [("hell", 9, None), ("knee", 40, 0.3), ("knee", 12, 0.05),
                                                  ("equi", 9, None), ("srpt", 9, None)])
def test_a_table_in_every_form_against_the_description(policy, servers, alpha):
    """HELL, KNEE, EQUI and SRPT with a table s_1..s_d (a job uses at most d servers): the same completion
    times for the table, a list and the interpolation, and those of the slow reference loop."""
    allocate = {"hell": lambda: hell_by_description(table_rate, servers),
                "knee": lambda: knee_by_description(table_rate, servers, alpha),
                "equi": lambda: (lambda remaining: {j: servers / len(remaining) for j in remaining}),
                "srpt": lambda: (lambda remaining: {min(remaining, key=lambda j: (remaining[j], j)): servers})}[policy]()
    expected = reference_run(SIZES, allocate, table_rate)
    for form in (TABLE, [1, 1.8, 2.5, 3, 3.4], SpeedupCurve.from_discrete(TABLE)):
        result = flow_time(SIZES, policy, form, servers, alpha=alpha)
        np.testing.assert_allclose(result.completion_times, expected, rtol=1e-12, atol=0)


def test_knee_search_with_a_table_flat_beyond_d():
    """Beyond d = 5 extra servers add nothing (run-time reduction 0): the threshold range stays finite."""
    search = knee_search(SIZES, TABLE, 200)
    assert np.all(np.isfinite(search.alphas)) and np.all(search.alphas > 0)
    assert search.mean <= flow_time(SIZES, "equi", TABLE, 200).mean
    one_each = knee_search(SIZES, SpeedupTable([1.0]), 50)        # d = 1: every knee is one server, α is irrelevant
    assert one_each.means.size == 1 and one_each.mean == pytest.approx(np.mean(SIZES), rel=1e-15, abs=0)
    with pytest.raises(InvalidParameterError, match="policy 'hesrpt' is defined for s.k. = k.p only"):
        flow_time(SIZES, "hesrpt", TABLE, 10)


@pytest.mark.parametrize("call,match", [
    (lambda: __import__("analytic.hesrpt", fromlist=["x"]).knee_search([1.0, 2.0], 0.5, 10**18),
     r"^KNEE's tables over 1,000,000,000,000,000,000 whole servers needs"),
    (lambda: __import__("analytic.hesrpt", fromlist=["x"]).flow_time([1.0, 2.0], {"a": 1}, 0.5, 10),
     r"^policy = \{'a': 1\}: must be a callable or one of hesrpt"),
    (lambda: __import__("analytic.hesrpt", fromlist=["x"]).flow_time([1.0, 2.0], "equi", 0.5, 10, record="yes"),
     r"^record = 'yes': must be True or False$"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()


@pytest.mark.parametrize("build, name", [
    (lambda: __import__("analytic.hesrpt", fromlist=["x"]).flow_time([1.0, 2.0], lambda x: "equi", 0.5, 10), "policy"),
    (lambda: __import__("analytic.hesrpt", fromlist=["x"]).flow_time([1.0, 2.0], lambda x: 1 / 0, 0.5, 10), "policy"),
])
def test_an_exception_from_a_user_callable_is_wrapped_naming_the_input(build, name):
    """One rule for user callables (analytic.validation.user_code), as CTMC.from_function: a raw ValueError from
    flow_time(..., lambda x: "equi", ...) or a user's own exception became InvalidParameterError naming the input."""
    with pytest.raises(InvalidParameterError, match=f"^{name} = "):
        build()
