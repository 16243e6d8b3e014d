"""Tests of simulate_interruptions / simulate_random_assignment (Algorithm 1).

References: balanced_fairness and random_assignment (exact, no truncation) for exponential sizes,
where quasi-reversibility makes the aggregate law π̄ for every number of interruptions; the exact
job-sequence CTMC (oi_queue_law) with hyperexponential sizes and a queue truncated at 5 jobs, for
m = 0, 1, 5. Each is checked by the coverage of the simulator's own 95% intervals over many fixed
seeds, inside the binomial acceptance band of analytic.simulation.coverage_band.
"""

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from analytic.errors import AnalyticDeprecationWarning, InvalidParameterError, UnstableSystemError
from analytic.fairness import (
    balanced_fairness,
    oi_queue_law,
    random_assignment,
    random_assignment_graph,
    three_server_graph,
)
from analytic.fairness.simulation import simulate_interruptions, simulate_random_assignment
from analytic.simulation import PhaseType, SerialExecutor, compare, coverage_band, deterministic, hyperexponential, pareto

HYPER = hyperexponential([1 / 6, 5 / 6], [5.0, 0.2])
RUNS = 100


def covered(estimates, exact):
    return sum(compare(estimate, value).agrees for estimate, value in zip(estimates, exact, strict=True))


@pytest.mark.slow
def test_coverage_of_balanced_fairness_with_exponential_sizes():
    """Figures 1 and 2's graphs, ρ = 0.6, m = 0, 1, 5 in turn: δ_1 and δ_2 against the exact values."""
    cases = []
    for capacities in ((1.0, 1.0, 1.0), (1.0, 0.0, 1.0)):
        graph = three_server_graph(capacities)
        rates = np.full(2, 0.6 * sum(capacities) / 2)
        cases.append((graph, rates, balanced_fairness(graph, rates).mean_response_time))
    estimates, exact = [], []
    for seed in range(RUNS):
        graph, rates, delay = cases[seed % 2]
        sim = simulate_interruptions(graph, rates, interruptions=(0.0, 1.0, 5.0)[seed % 3], arrivals=15_000, seed=seed)
        label = (seed // 2) % 2
        estimates.append(sim.mean_response_time[label])
        exact.append(delay[label])
    low, high = coverage_band(RUNS)
    assert low <= covered(estimates, exact) <= high


@pytest.mark.slow
def test_coverage_of_random_assignment_without_building_classes():
    servers, d, load = 20, 2, 0.7
    exact = random_assignment(servers, d, load * servers).mean_response_time
    estimates = [simulate_random_assignment(servers, d, load * servers, interruptions=(0.0, 1.0)[seed % 2],
                                            arrivals=15_000, seed=seed).mean_response_time[0] for seed in range(RUNS)]
    low, high = coverage_band(RUNS)
    assert low <= covered(estimates, [exact] * RUNS) <= high


@pytest.mark.slow
def test_coverage_of_the_exact_chain_with_hyperexponential_sizes():
    """Non-exponential sizes: the truncated chain is the reference, for m = 0, 1 and 5."""
    graph, rates = three_server_graph(), [0.8, 0.8]
    exact = {m: oi_queue_law(graph, rates, 5, interruptions=m, size=HYPER).mean_jobs[0] for m in (0.0, 1.0, 5.0)}
    estimates, values = [], []
    for seed in range(RUNS):
        m = (0.0, 1.0, 5.0)[seed % 3]
        sim = simulate_interruptions(graph, rates, HYPER, m, arrivals=15_000, seed=seed, max_jobs=5)
        estimates.append(sim.mean_jobs[0])
        values.append(exact[m])
    low, high = coverage_band(RUNS)
    assert low <= covered(estimates, values) <= high


@pytest.mark.slow
def test_coverage_of_the_exact_chain_with_a_cyclic_phase_type_law():
    """A PhaseType law with feedback between its phases (not an Erlang mixture: the simulator draws it
    through the compiled phase-type kernel), mean 1: the truncated chain is the reference, m = 0 and 2."""
    law = PhaseType([0.7, 0.3], [[-3.0, 1.0], [2.0, -2.5]]).scaled(1.0)
    graph, rates = three_server_graph(), [0.8, 0.8]
    exact = {m: oi_queue_law(graph, rates, 5, interruptions=m, size=law).mean_jobs[0] for m in (0.0, 2.0)}
    estimates, values = [], []
    for seed in range(RUNS):
        m = (0.0, 2.0)[seed % 2]
        sim = simulate_interruptions(graph, rates, law, m, arrivals=15_000, seed=7000 + seed, max_jobs=5)
        estimates.append(sim.mean_jobs[0])
        values.append(exact[m])
    low, high = coverage_band(RUNS)
    assert low <= covered(estimates, values) <= high


@pytest.mark.slow
def test_random_assignment_with_hyperexponential_sizes_against_the_exact_chain():
    """S = 4, d = 2 (6 classes), m = 1, queue of 3 jobs: the chain on the explicit classes is the reference."""
    graph = random_assignment_graph(4, 2)
    total = 2.4
    exact = oi_queue_law(graph, np.full(6, total / 6), 3, interruptions=1.0, size=HYPER).mean_jobs.sum()
    runs = 60
    estimates = [simulate_random_assignment(4, 2, total, HYPER, 1.0, arrivals=15_000, seed=seed, max_jobs=3).mean_jobs[0]
                 for seed in range(runs)]
    low, high = coverage_band(runs)
    assert low <= covered(estimates, [exact] * runs) <= high


def test_interruptions_make_hyperexponential_sizes_approach_balanced_fairness():
    """FCFS is far from balanced fairness with hyperexponential sizes (ρ = 0.7); m = 5 much closer."""
    graph, rates = three_server_graph(), [1.05, 1.05]
    exact = balanced_fairness(graph, rates).mean_response_time[0]
    gaps = [abs(simulate_interruptions(graph, rates, HYPER, m, arrivals=400_000, seed=9).mean_response_time[0].value / exact - 1)
            for m in (0.0, 5.0)]
    assert gaps[0] > 1.0 and gaps[1] < 0.15


def test_measured_interruptions_per_job_and_same_numbers_through_executors():
    graph, rates = three_server_graph(), [0.7, 0.5]
    serial = simulate_interruptions(graph, rates, "deterministic", 3.0, arrivals=40_000, replications=4, seed=11,
                                    executor=SerialExecutor())
    with ThreadPoolExecutor(2) as pool:
        threaded = simulate_interruptions(graph, rates, "deterministic", 3.0, arrivals=40_000, replications=4, seed=11,
                                          executor=pool)
    assert serial.mean_response_time.value.tolist() == threaded.mean_response_time.value.tolist()
    assert serial.mean_response_time.half_width.tolist() == threaded.mean_response_time.half_width.tolist()
    assert serial.method == "independent replications" and serial.samples == 4
    # Deterministic unit sizes, θ = 1/3: interruptions per job are Poisson(3) at least... exactly, the
    # number of exponential(θ) points in [0, 1): mean 3.
    assert serial.interruptions_per_job == pytest.approx(3.0, rel=0.03, abs=0)


@pytest.mark.slow
def test_numba_disabled_runs_the_same_code():
    """The compiled event loop and the same code run by the Python interpreter give the same numbers."""
    graph, rates = three_server_graph((1, 0, 1)), [0.6, 0.5]
    compiled = simulate_interruptions(graph, rates, HYPER, 2.0, arrivals=3000, seed=5)
    script = ("from analytic.fairness import three_server_graph\n"
              "from analytic.fairness.simulation import simulate_interruptions\n"
              "from analytic.simulation import hyperexponential\n"
              "s = simulate_interruptions(three_server_graph((1, 0, 1)), [0.6, 0.5], "
              "hyperexponential([1 / 6, 5 / 6], [5.0, 0.2]), 2.0, arrivals=3000, seed=5)\n"
              "print(repr(s.mean_jobs.value.tolist()), repr(s.mean_response_time.value.tolist()))\n")
    root = Path(__file__).parents[2]
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONPATH=str(root))
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=root)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == f"{compiled.mean_jobs.value.tolist()!r} {compiled.mean_response_time.value.tolist()!r}".split()


def test_errors():
    graph = three_server_graph()
    with pytest.raises(UnstableSystemError, match=r"classes \(0, 1\) = 3 is not below the limit 3 \(it equals it\)"):
        simulate_interruptions(graph, [1.5, 1.5], arrivals=1000)
    with pytest.raises(UnstableSystemError, match=r"arrival rate × mean size of classes \(0,\) = 2.4"):
        simulate_interruptions(graph, [1.2, 0.1], size=HYPER.scaled(2.0), arrivals=1000)
    with pytest.raises(InvalidParameterError, match="interruptions"):
        simulate_interruptions(graph, [0.5, 0.5], interruptions=-1.0, arrivals=1000)
    with pytest.raises(InvalidParameterError, match="size"):
        simulate_interruptions(graph, [0.5, 0.5], size="zipf", arrivals=1000)
    with pytest.raises(InvalidParameterError, match="arrivals"):
        simulate_interruptions(graph, [0.5, 0.5], arrivals=10)
    with pytest.raises(InvalidParameterError, match="executor"):
        simulate_interruptions(graph, [0.5, 0.5], arrivals=1000, executor="pool")
    with pytest.raises(InvalidParameterError, match="graph"):
        simulate_interruptions([[0]], [0.5], arrivals=1000)
    with pytest.raises(InvalidParameterError, match="d = 3: must be <= servers = 2"):
        simulate_random_assignment(2, 3, 1.0, arrivals=1000)
    with pytest.raises(UnstableSystemError, match="load"):
        simulate_random_assignment(10, 2, 5.0, size=pareto(1.5, 2.0), arrivals=1000)
    # A loss system needs no stability: max_jobs admits any load.
    lossy = simulate_interruptions(graph, [3.0, 3.0], arrivals=20_000, max_jobs=4, seed=1)
    assert 0 < lossy.blocking[0].value < 1 and lossy.mean_jobs.value.sum() <= 4


@pytest.mark.parametrize("simulate", [
    lambda **kw: simulate_interruptions(three_server_graph(), [0.5, 0.5], **kw),
    lambda **kw: simulate_random_assignment(10, 2, 5.0, **kw),
])
def test_counts_beyond_the_double_range_are_refused_naming_them(simulate):
    """Integers beyond 1.8e308 were converted to floats (raw OverflowError); 10^18 arrivals at a unit rate span more
    mean sizes than the clock resolves (MAX_HORIZON = 1e12), which is the run's length, not the rate, at fault."""
    with pytest.raises(InvalidParameterError, match=r"^interruptions = 1000000.*: must be at most 1000"):
        simulate(interruptions=10**400, arrivals=2000)
    with pytest.raises(InvalidParameterError, match=r"^arrivals = 1000000.*: must be at most"):
        simulate(arrivals=10**400)
    # check_horizon (analytic/simulation/clock.py) still names the count "jobs"
    with pytest.raises(InvalidParameterError, match=r"^arrivals = 1000000000000000000: must be at most .* per replication"):
        simulate(arrivals=10**18)


def test_a_bound_beyond_any_count_truncates_nothing():
    """max_jobs = 10^30 or 10^400 (beyond the loop's 64-bit counters) never binds: the run of max_jobs = None."""
    graph = three_server_graph()
    plain = simulate_interruptions(graph, [0.5, 0.5], arrivals=4000, seed=7, executor=SerialExecutor())
    for bound in (10**30, 10**400):
        bounded = simulate_interruptions(graph, [0.5, 0.5], arrivals=4000, seed=7, executor=SerialExecutor(), max_jobs=bound)
        np.testing.assert_array_equal(bounded.mean_response_time.value, plain.mean_response_time.value)
        np.testing.assert_array_equal(bounded.blocking.value, [0.0, 0.0])


def test_a_class_without_measured_arrivals_is_named():
    """λ_2 = 5e-324 (or 2.2e-308): no class-2 job arrives, so δ_2 has no estimate; the error named the estimator's
    'denominators'. A job that outlasts the run with max_jobs = 1 makes every measured arrival lost."""
    graph = three_server_graph()
    for tiny in (5e-324, 2.2e-308):
        with pytest.raises(InvalidParameterError, match=r"^arrival_rates\[1\] = .*: is so small that no class-1 job "
                                                        r"arrived among the 1,800 measured arrivals"):
            simulate_interruptions(graph, [0.5, tiny], arrivals=2000, seed=1)
    with pytest.raises(InvalidParameterError, match=r"^max_jobs = 1: lost all .* measured class-0 arrivals"):
        simulate_interruptions(graph, [0.5, 0.5], size=deterministic(1e9), arrivals=2000, seed=1, max_jobs=1)
    with pytest.raises(InvalidParameterError, match=r"^arrival_rates = .*: must have a finite sum"):
        simulate_interruptions(graph, [1e308, 1e308], arrivals=2000, max_jobs=3)


def _tallies(setup, seed, replications):
    """The event loop's per-batch counts of each replication, summed over its batches (the simulator's own summary
    is not used)."""
    from analytic.fairness.simulation import _replication

    tallies = [_replication(setup, child) for child in np.random.SeedSequence(seed).spawn(replications)]
    return {name: np.array([getattr(t, name).sum(axis=0) for t in tallies])
            for name in ("area", "duration", "arrivals", "admitted")}


@pytest.mark.parametrize("random", [False, True])
def test_each_field_is_the_estimate_of_the_raw_tallies(random):
    """mean_jobs, mean_response_time, mean_service_rate and blocking hold, bit for bit, what the old float fields held: the
    ratio estimates of the tallies (time-integral over time, over admitted arrivals), σ/δ with the half-width of δ
    carried to first order, and the lost fraction 1 - admitted/arrivals (its interval that of the admitted fraction)."""
    from analytic.fairness.simulation import _Setup
    from analytic.simulation import Estimates, exponential, ratio_estimate

    law = exponential()
    if random:
        sim = simulate_random_assignment(6, 2, 4.0, interruptions=1.0, arrivals=30_000, replications=3, seed=4,
                                         max_jobs=5)
        setup = _Setup(np.ones(6), None, None, None, 2, 1, 4.0, law, 1.0, 5, 10_000, 1_000, 20)
    else:
        sim = simulate_interruptions(three_server_graph(), [0.7, 0.5], interruptions=2.0, arrivals=30_000,
                                     replications=3, seed=4, max_jobs=6)
        graph = three_server_graph()
        setup = _Setup(graph.capacities, np.array(graph.server_sets), np.array([2, 2]), np.array([0.7 / 1.2, 1.0]), 0, 2,
                       1.2, law, 0.5, 6, 10_000, 1_000, 20)
    total = _tallies(setup, 4, 3)
    method = "independent replications"
    for field in ("mean_jobs", "mean_response_time", "mean_service_rate", "blocking"):
        assert isinstance(getattr(sim, field), Estimates)
    for i in range(len(sim.mean_response_time)):
        column = total["area"][:, i]
        assert sim.mean_jobs[i] == ratio_estimate(column, total["duration"], 0.95, method)
        delay = ratio_estimate(column, total["admitted"][:, i], 0.95, method)
        assert sim.mean_response_time[i] == delay
        assert sim.mean_service_rate[i].value == 1.0 / delay.value
        assert sim.mean_service_rate[i].half_width == delay.half_width / delay.value ** 2
        admitted = ratio_estimate(total["admitted"][:, i], total["arrivals"][:, i], 0.95, method)
        assert sim.blocking[i].value == 1 - total["admitted"][:, i].sum() / total["arrivals"][:, i].sum()
        assert sim.blocking[i].half_width == admitted.half_width
    assert 0 < sim.blocking.value.min() and sim.blocking.value.max() < 1


def test_old_names_warn_and_give_the_fields():
    sim = simulate_interruptions(three_server_graph(), [0.5, 0.5], arrivals=4000, seed=1)
    for old, field in [("delay_estimate", "mean_response_time"), ("service_rate_estimate", "mean_service_rate"),
                       ("jobs_estimate", "mean_jobs")]:
        with pytest.warns(AnalyticDeprecationWarning, match=rf"InterruptionSimulation.{old}\(\) is renamed "
                                                            rf"InterruptionSimulation.{field}\[label\]"):
            assert getattr(sim, old)(1) == getattr(sim, field)[1]
        with pytest.warns(AnalyticDeprecationWarning), pytest.raises(InvalidParameterError, match="label = 2: must be below 2"):
            getattr(sim, old)(2)
    assert repr(sim).startswith(f"InterruptionSimulation(m=0, mean_response_time=[{sim.mean_response_time[0]:.5g}, ")


@pytest.mark.parametrize("build", [
    lambda n: __import__("analytic.fairness", fromlist=["x"]).simulate_random_assignment(
        n, 2, 5.0, arrivals=2000, seed=1, executor=__import__("analytic.simulation", fromlist=["x"]).SerialExecutor()),
])
def test_counts_beyond_the_float_range_are_refused_as_too_large(build):
    """A count of 10**400 (servers, sample size, batches, d) raised a raw OverflowError where its table's bytes were
    estimated in floats before the memory check; like 10**12, it is refused before anything is allocated."""
    from analytic.errors import StateSpaceTooLargeError

    for count in (10**12, 10**400):
        with pytest.raises(StateSpaceTooLargeError, match="needs .* of memory, more than the"):
            build(count)
