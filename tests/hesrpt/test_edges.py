"""Tests of analytic.hesrpt at the ends of the double range and for counts beyond memory.

References, at 50 digits with mpmath (whose exponent range is unbounded): Theorem 8 of Berg, Vesilo &
Harchol-Balter (heSRPT) in Lemma 5's form T* = N^-p Σ_k x_k (k^c - (k-1)^c)^(1-p), sizes decreasing;
the makespan ||x||_(1/p) / N^p of Theorem 2, at which heLRPT ends every job; and closed forms derived by
hand for EQUI (N/m servers each while m jobs remain) and SRPT (all N servers to the shortest job);
heSRPT's policy (Theorem 7) and KNEE (Section 4.2's description) evaluated departure by departure.
Memory refusals are checked against the peaks tracemalloc measures.
"""

import re
import tracemalloc

import mpmath
import numpy as np
import pytest

from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.hesrpt import (
    closed_form,
    compare_policies,
    comparison,
    flow_time,
    hesrpt_allocation,
    knee_search,
    optimal_allocation,
    pareto_sizes,
    policies,
    scale_free_constants,
)
from analytic.hesrpt.closed_form import mean_time
from analytic.speedup import SpeedupCurve, SpeedupTable

mpmath.mp.dps = 50

LARGEST = 1.7976931348623157e308
#: The issue's jobs: the total flow time of heSRPT, 2.47e308, is beyond the double range; its mean is not.
SIZES, P, SERVERS = [1e300, 1.7e308, 1e308], 0.05, 10.0


def mp_theorem8(sizes, p, servers):
    p = mpmath.mpf(p)
    c = 1 / (1 - p)
    ranked = sorted((mpmath.mpf(x) for x in sizes), reverse=True)
    return mpmath.fsum(x * (k ** c - (k - 1) ** c) ** (1 - p) for k, x in enumerate(ranked, 1)) / mpmath.mpf(servers) ** p


def mp_makespan(sizes, p, servers):
    p = mpmath.mpf(p)
    return mpmath.fsum(mpmath.mpf(x) ** (1 / p) for x in sizes) ** p / mpmath.mpf(servers) ** p


def mp_equi(sizes, p, servers):
    """EQUI's completion times in increasing size order: between the (k-1)-th and k-th departures the M - k + 1 jobs
    left each run at (N/(M-k+1))^p, so T_k = T_(k-1) + (x_(k) - x_(k-1)) / (N/(M-k+1))^p."""
    ranked, times, clock, done = sorted(mpmath.mpf(x) for x in sizes), [], mpmath.mpf(0), mpmath.mpf(0)
    for k, x in enumerate(ranked):
        clock += (x - done) / (mpmath.mpf(servers) / (len(ranked) - k)) ** p
        times.append(clock)
        done = x
    return times


def mp_srpt(sizes, p, servers):
    """SRPT's completion times in increasing size order: the partial sums of x / N^p."""
    return list(np.cumsum([mpmath.mpf(x) / mpmath.mpf(servers) ** p for x in sorted(sizes)]))


def assert_nearest_double(value, exact, rel=1e-14):
    """``value`` is ``exact`` as a double: within ``rel``, or inf when beyond the largest double."""
    if exact > LARGEST * (1 + 2.0 ** -53):
        assert value == float("inf")
    else:
        assert value == pytest.approx(float(exact), rel=rel, abs=0)


def test_mean_time_is_formed_without_the_total():
    """Three times of 1.7e308: the sum overflows, the mean is 1.7e308 (by hand); per row of a 2-D array; inf only
    when a time is inf."""
    assert mean_time(np.array([1.7e308, 1.7e308, 1.7e308])) == pytest.approx(1.7e308, rel=1e-15, abs=0)
    assert mean_time(np.array([[1.7e308, 1e308], [1.0, 3.0]])).tolist() == pytest.approx([1.35e308, 2.0], rel=1e-15, abs=0)
    assert mean_time(np.array([5e-324, 1e-323])) == pytest.approx(1e-323, rel=0, abs=5e-324)
    assert mean_time(np.array([np.inf, 1.0])) == np.inf


def test_flow_time_means_at_the_issue_sizes():
    """flow_time(..., "hesrpt" | "equi" | "helrpt") had mean inf (the total overflowed first); the means are 8.2e307,
    8.2e307 and the makespan 1.5e308. References: Theorem 8, EQUI by hand, Theorem 2's makespan."""
    hesrpt = flow_time(SIZES, "hesrpt", P, SERVERS)
    assert hesrpt.total == float("inf") and mp_theorem8(SIZES, P, SERVERS) > LARGEST
    assert_nearest_double(hesrpt.mean, mp_theorem8(SIZES, P, SERVERS) / 3, rel=1e-13)
    equi = flow_time(SIZES, "equi", P, SERVERS)
    assert_nearest_double(equi.mean, mpmath.fsum(mp_equi(SIZES, P, SERVERS)) / 3, rel=1e-13)
    helrpt = flow_time(SIZES, "helrpt", P, SERVERS)
    assert_nearest_double(helrpt.mean, mp_makespan(SIZES, P, SERVERS), rel=1e-13)


def test_optimal_allocation_mean_at_the_issue_sizes():
    """optimal_allocation's mean was T*/M with T* = inf; for k^p it is heSRPT's, Theorem 8 / 3 = 8.2e307."""
    result = optimal_allocation(SIZES, P, SERVERS)
    assert result.total == float("inf")
    assert_nearest_double(result.mean, mp_theorem8(SIZES, P, SERVERS) / 3, rel=1e-13)


def test_srpt_departure_beyond_the_range_is_inf_without_a_warning():
    """SRPT finishes the largest job at 2.4e308 (by hand: the sum of all sizes over 10^0.05): that completion time
    is inf, the two others 8.9e299 and 8.9e307; the clock's overflow used to raise numpy's RuntimeWarning."""
    with np.errstate(all="raise"):
        result = flow_time(SIZES, "srpt", P, SERVERS)
    exact = mp_srpt(SIZES, P, SERVERS)
    for value, reference in zip(np.sort(result.completion_times), exact, strict=True):
        assert_nearest_double(value, reference)
    assert exact[-1] > LARGEST and result.total == float("inf")


@pytest.mark.parametrize("policy,first_departure", [("equi", lambda sizes, p: mp_equi(sizes, p, 1.0)[0]),
                                                     ("helrpt", lambda sizes, p: mp_makespan(sizes, p, 1.0))])
def test_departures_beyond_the_range_are_not_blamed_on_the_policy(policy, first_departure):
    """p = 1 - 1e-6, sizes 1.7e308 and 1e308 on one server: EQUI's first departure is at 2e308 (by hand), heLRPT
    ends both at the makespan 2.7e308. Both raised "allocates no service to any remaining job"; the completion
    times, beyond the range, are inf."""
    sizes, p = [1.7e308, 1e308], 1 - 1e-6
    assert first_departure(sizes, p) > LARGEST
    assert flow_time(sizes, policy, p, 1.0).completion_times.tolist() == [np.inf, np.inf]


# --------------------------------------------------------------------------------------------------
# The bad-input sweep's families at both ends of the double range and beyond memory (issue 28)


def mp_hesrpt_run(sizes, p, servers):
    """heSRPT evaluated departure by departure in mpmath from Theorem 7's shares alone: with m jobs left, the i-th
    largest holds θ_i = (i/m)^c - ((i-1)/m)^c of the N servers and runs at (N θ_i)^p; the smallest leaves first.
    Returns completion times (input order), phase lengths (M jobs first) and the shares of each phase by rank."""
    p, n = mpmath.mpf(p), mpmath.mpf(servers)
    c = 1 / (1 - p)
    ranked = sorted(range(len(sizes)), key=lambda j: -sizes[j])       # distinct sizes in these tests
    remaining = [mpmath.mpf(sizes[j]) for j in ranked]
    completion, durations, shares, clock = [None] * len(sizes), [], [], mpmath.mpf(0)
    for m in range(len(sizes), 0, -1):
        theta = [(mpmath.mpf(i) / m) ** c - (mpmath.mpf(i - 1) / m) ** c for i in range(1, m + 1)]
        rates = [(n * t) ** p for t in theta]
        step = remaining[m - 1] / rates[m - 1]
        remaining = [r - rate * step for r, rate in zip(remaining[:m - 1], rates, strict=False)]
        clock += step
        completion[ranked[m - 1]] = clock
        durations.append(step)
        shares.append(theta)
    return completion, durations, shares


def assert_all_nearest(values, exact, rel):
    for value, reference in zip(values, exact, strict=True):
        assert_nearest_double(value, reference, rel=rel)


@pytest.mark.parametrize("p", [5e-324, 1e-300, 0.5, 1 - 2.0 ** -53])
@pytest.mark.parametrize("servers", [5e-324, 2.2e-308, 10.0, 1.7e308])
def test_optimal_allocation_for_k_p_at_the_ends_of_the_double_range(p, servers):
    """speedup = 5e-324 and servers = 5e-324 raised "slope = nan" / "slope = inf" (the solver's internal name); k^p is
    now solved on one server and its times scaled by N^-p. References: Theorem 8 and Theorem 7's policy evaluated
    departure by departure, both in mpmath at 50 digits; multipliers μ_k = N^-p (k^c - (k-1)^c)^(1-p) (Theorem 8)."""
    sizes = [3.0, 1e-300, 2.0]
    result = optimal_allocation(sizes, p, servers)
    completion, durations, shares = mp_hesrpt_run(sizes, p, servers)
    assert_nearest_double(result.total, mp_theorem8(sizes, p, servers), rel=1e-13)
    assert_nearest_double(result.mean, mp_theorem8(sizes, p, servers) / 3, rel=1e-13)
    assert_all_nearest(result.completion_times, completion, rel=1e-13)
    assert_all_nearest(result.durations, durations, rel=1e-12)
    by_rank = [0, 2, 1]                                              # largest first
    for phase, theta in enumerate(shares):
        assert result.allocations[phase, by_rank[:len(theta)]].tolist() == pytest.approx(
            [float(t) for t in theta], rel=1e-12, abs=1e-300)
    mp_p = mpmath.mpf(p)
    c = 1 / (1 - mp_p)
    mu = [(k ** c - (k - 1) ** c) ** (1 - mp_p) / mpmath.mpf(servers) ** mp_p for k in (1, 2, 3)]
    assert_all_nearest(result.multipliers[by_rank], mu, rel=1e-13)


def test_a_table_on_fewer_than_one_server_is_srpt_at_any_scale():
    """On N <= 1 servers a table's interpolation is s(k) = k: the optimum is SRPT (all servers to the smallest job,
    completion times the partial sums of the sizes over N, by hand). N = 5e-324 raised ConvergenceError (1/s(N)
    overflowed); N = 2.2e-308 puts the total, 1.8e308, beyond the range while the mean is not."""
    table = SpeedupTable([1.0, 1.8, 2.5])
    result = optimal_allocation([2e-310, 1e-310], table, 5e-324)
    exact = [mpmath.mpf(2e-310) / mpmath.mpf(5e-324) + mpmath.mpf(1e-310) / mpmath.mpf(5e-324),
             mpmath.mpf(1e-310) / mpmath.mpf(5e-324)]
    assert_all_nearest(result.completion_times, exact, rel=1e-15)
    assert result.allocations.tolist() == [[0.0, 1.0], [1.0, 0.0]]
    wide = optimal_allocation([1.0, 3.0], table, 2.2e-308)
    assert_nearest_double(wide.total, mpmath.mpf(5) / mpmath.mpf(2.2e-308))
    assert wide.total == float("inf")
    assert_nearest_double(wide.mean, mpmath.mpf(5) / mpmath.mpf(2.2e-308) / 2)


@pytest.mark.parametrize("curve,servers,quantity", [
    (SpeedupCurve.amdahl(0.9), 1e300, r"μ_1 s'\(N/2\) = 0"),
    (SpeedupCurve.amdahl(0.9), 5e-324, r"μ_1 = 1/s\(N\) = inf"),
    (SpeedupCurve.amdahl(0.9), 2.2e-308, r"the marginal value e\^y of a server with 3 jobs = inf"),
    (SpeedupCurve.amdahl(1e-300), 1e-300, r"μ_1 s'\(N/2\) = inf"),
])
def test_smooth_curves_beyond_double_precision_are_refused_by_name(curve, servers, quantity):
    """Amdahl's law at N = 1e300 (s' underflows) or 5e-324 (1/s(N) overflows) raised "slope = nan": the solver's
    name for its own intermediate. The refusal names servers, its value, the speed-up and the quantity."""
    start = re.escape(f"servers = {servers:.10g}: with speedup {curve.name}, ")
    with pytest.raises(InvalidParameterError, match=rf"^{start}{quantity} is beyond double precision"):
        optimal_allocation([1.0, 2.0, 3.0], curve, servers)


def mp_knee(sizes, p, servers, alpha):
    """KNEE from Section 4.2's description in mpmath: a job's knee is the first k whose next server cuts its run time
    x/s(k) by less than α (N if none); jobs by increasing knee get their knee until the servers run out."""
    p, alpha = mpmath.mpf(p), mpmath.mpf(alpha)

    def knee(x):
        return next((k for k in range(1, servers) if x / mpmath.mpf(k) ** p - x / mpmath.mpf(k + 1) ** p < alpha), servers)

    remaining = {j: mpmath.mpf(x) for j, x in enumerate(sizes)}
    clock, total = mpmath.mpf(0), mpmath.mpf(0)
    while remaining:
        free, rates = servers, {}
        for j in sorted(remaining, key=lambda j: (knee(remaining[j]), remaining[j], j)):
            held = min(knee(remaining[j]), free)
            free -= held
            rates[j] = mpmath.mpf(held) ** p if held else mpmath.mpf(0)
        step = min(remaining[j] / rates[j] for j in remaining if rates[j])
        clock += step
        for j in list(remaining):
            remaining[j] -= rates[j] * step
            if rates[j] and remaining[j] <= step * rates[j] * mpmath.mpf("1e-30"):
                total += clock
                del remaining[j]
    return total / len(sizes)


@pytest.mark.parametrize("last", [5e-324, 1.7e308])
def test_knee_search_with_a_size_at_the_ends_of_the_double_range(last):
    """knee_search([1, 2, 5e-324] or [1, 2, 1.7e308]) returned α = NaN: the bounds of its grid, products of sizes and
    run-time gains, under- or overflowed. The best α is now a positive double; references: its mean from KNEE's
    description in mpmath, and the best of 120 thresholds log-spaced over the whole double range, in mpmath."""
    sizes, p, servers = [1.0, 2.0, last], 0.5, 20
    search = knee_search(sizes, p, servers)
    assert 5e-324 <= search.alpha < float("inf")
    assert search.mean == pytest.approx(float(mp_knee(sizes, p, servers, search.alpha)), rel=1e-13, abs=0)
    grid = [mpmath.mpf(10) ** e for e in mpmath.linspace(-323, 308, 120)]
    best = min(mp_knee(sizes, p, servers, alpha) for alpha in grid)
    assert float(best) * (1 - 1e-13) <= search.mean <= float(best) * (1 + 2e-3)


@pytest.mark.parametrize("m, written", [(10**12, "1,000,000,000,000"), (10**400, r"1.00e\+400")])
@pytest.mark.parametrize("function", [hesrpt_allocation, scale_free_constants])
def test_counts_of_jobs_beyond_memory_are_refused_before_allocating(function, m, written):
    """m = 10**400 raised OverflowError (32.0 * m in floats); the bytes are now counted in integers (a count from
    10**30 up is written in exponent form)."""
    with pytest.raises(StateSpaceTooLargeError, match=rf"^heSRPT's allocation to m jobs needs {written} states and about "
                                                      r"\S+ GiB of memory, more than the \S+ GiB available"):
        function(m, 0.5)


@pytest.mark.parametrize("jobs, written, evaluated", [
    (10**12, "1,000,000,000,000", "34,000,000,000,000"),
    (10**18, "1,000,000,000,000,000,000", "34,000,000,000,000,000,000"),
    (10**30, r"1.00e\+30", r"3.40e\+31"),
    (10**400, r"1.00e\+400", r"3.40e\+401"),
])
def test_pareto_sizes_and_compare_policies_refuse_sets_beyond_memory(jobs, written, evaluated):
    """jobs = 10**12 and 10**18 exhausted memory in numpy's generator; 10**30 and 10**400 hit its bound on array sizes
    (a raw ValueError). Both now refuse first; compare_policies counts its whole evaluation (2 sets x 17 KNEE runs)."""
    with pytest.raises(StateSpaceTooLargeError, match=rf"^drawing `jobs` Pareto sizes needs {written} states"):
        pareto_sizes(jobs, 1.5, 0)
    with pytest.raises(StateSpaceTooLargeError, match=rf"^evaluating 34 runs of the jobs at once \(an entry per run "
                                                      rf"and job\) needs {evaluated} states"):
        compare_policies(exponents=(0.5,), servers=100, jobs=jobs, seeds=(0, 1))


def peak_bytes(call):
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_the_memory_estimates_cover_the_measured_peaks():
    """The refusals above are only as good as the bytes per job they assume: each covers the peak tracemalloc sees."""
    m = 200_000
    assert peak_bytes(lambda: hesrpt_allocation(m, 0.5)) <= closed_form._SHARE_BYTES * m
    assert peak_bytes(lambda: scale_free_constants(m, 0.5)) <= closed_form._SHARE_BYTES * m
    assert peak_bytes(lambda: pareto_sizes(m, 1.5, 0)) <= comparison._DRAW_BYTES * m
    for policy in ("srpt", "equi", "hell", "knee"):
        runs = 2 * (policies.KNEE_COARSE if policy == "knee" else 1)
        used = peak_bytes(lambda chosen=policy: compare_policies(exponents=(0.5,), servers=100, jobs=400, seeds=(0, 1),
                                                                 policies=("hesrpt", chosen)))
        assert used <= policies._RUN_BYTES * runs * 400, policy
