"""Tests of analytic.partitioning.simulation: DGP, ADGP and Max-Weight simulated.

References: with frozen weights, π* of eq. (15) and ADGP-bar's law γ̂ e^(W/β) (Prop. 4) — exact
values the intervals must cover at their nominal rate over 100 fixed seeds (binomial acceptance
band of analytic.simulation.coverage_band); for Max-Weight with short frames, the birth–death
chain of the queue under the continuous Max-Weight rule, solved by analytic.ctmc; with live
queues, DGP's operating point (analytic.partitioning.operating) and the capacity region.
"""

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from analytic import partitioning as P
from analytic.ctmc import CTMC
from analytic.errors import InvalidParameterError
from analytic.partitioning import (
    GraphJob,
    adgp_distribution,
    dgp_distribution,
    dgp_queue_weights,
    operating_point,
    simulate_adgp,
    simulate_dgp,
    simulate_max_weight,
)
from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
from analytic.simulation import SerialExecutor, compare, coverage_band

ROOT = Path(__file__).parents[2]
#: Frozen weights of the coverage tests: Q = 20, α = 1, β = 1, f = log (b = 0), h = e, ε = 1/2:
#: q = log(20 + e) = 3.12, a relaxation time of 9.8 (spectral gap of DGP-bar's chain).
FROZEN = dict(alpha=1.0, beta=1.0, b=0.0, frozen_queues=[20])
Q_FROZEN = dgp_queue_weights([20], 1.0, np.e, 0.5, 12, 0.0)
RUNS = 100


@pytest.mark.slow
def test_frozen_dgp_covers_pi_star():
    """DGP-bar (Section 6): E cost, E|C| and P(cost = 2) of eq. (15) inside the intervals at the nominal rate."""
    law = dgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, Q_FROZEN, 1.0)
    costs, probabilities = law.cost_distribution()
    runs = [simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, **FROZEN, time=4000, warmup=200, seed=seed) for seed in range(RUNS)]
    low, high = coverage_band(RUNS)
    level = int(np.flatnonzero(runs[0].cost_levels == 2.0)[0])
    hits = [sum(compare(law, run)["expected_cost"].agrees for run in runs),        # the fields of the same name
            sum(compare(law, run)["expected_templates"][0].agrees for run in runs),
            sum(compare(run.cost_law[level], probabilities[costs == 2.0][0]).agrees for run in runs)]
    assert all(low <= h <= high for h in hits), (hits, (low, high))
    pooled = np.mean([run.expected_cost.value for run in runs])
    assert pooled == pytest.approx(law.expected_cost, rel=0.01, abs=0)


@pytest.mark.slow
def test_frozen_adgp_covers_its_law():
    """ADGP-bar (Prop. 4): the configuration's law is γ̂ e^(W/β)."""
    law = adgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, 0.2, Q_FROZEN, 1.0)
    runs = [simulate_adgp(FIGURE1_CLUSTER, FIGURE1_JOB, clock_rate=0.2, **FROZEN, time=2000, warmup=100, seed=1000 + seed)
            for seed in range(RUNS)]
    low, high = coverage_band(RUNS)
    hits = [sum(compare(run.expected_cost, law.expected_cost).agrees for run in runs),
            sum(compare(run.expected_templates[0], law.expected_templates[0]).agrees for run in runs)]
    assert all(low <= h <= high for h in hits), (hits, (low, high))


@pytest.mark.slow
def test_max_weight_with_short_frames_against_the_birth_death_chain():
    """Frames of T = 0.005: Algorithm 1 is nearly the continuous rule n*(Q) = 2 if log(1 + Q) > 1 else 0.

    The queue is then a birth–death chain (rate λ up, μ min(Q, 2) down when Q >= 2; a lone job waits
    for company, so Q = 0 is left for good); staleness of at most T after each of at most 2λ changes
    per unit time bounds the bias of E|C| by 2 · 2λT = 0.02.
    """
    top = 400
    chain = CTMC.from_function(1, lambda n: [(n + 1, 1.0)] * (n < top) + [(n - 1, 1.0 * min(n, 2))] * (n >= 2))
    pi = chain.stationary()
    exact_queue = pi.expected(lambda n: n)
    exact_templates = pi.expected(lambda n: 2.0 * (n >= 2))
    run = simulate_max_weight(FIGURE1_CLUSTER, FIGURE1_JOB, alpha=1.0, frame=0.005, time=4000, warmup=200, replications=6,
                              seed=5, executor=SerialExecutor())
    templates, queue = run.expected_templates[0], run.queue[0]
    assert abs(templates.value - exact_templates) <= templates.half_width + 0.02
    assert abs(queue.value - exact_queue) <= queue.half_width + 0.05
    assert run.expected_cost.value == pytest.approx(templates.value, rel=1e-12, abs=0)   # every installed template costs 1
    assert run.actual_cost.value == pytest.approx(run.actual.value[0], rel=1e-12, abs=0)


def test_max_weight_interrupts_and_longer_frames_cost_more():
    short = simulate_max_weight(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 0.1, time=20_000, seed=6)
    long = simulate_max_weight(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 10.0, time=20_000, seed=6)
    assert short.interruptions.value > 0 and long.interruptions.value > 0
    assert long.expected_cost.interval[0] > short.expected_cost.interval[1]          # Theorem 1: cost grows with T
    assert short.stationary and long.stationary


@pytest.mark.parametrize("beta", [1.0, 0.3])
def test_live_dgp_settles_at_its_operating_point(beta):
    """α = β, f = log, h = 1: the queue settles where DGP-bar serves the load; cost and queue as predicted."""
    point = operating_point(FIGURE1_CLUSTER, FIGURE1_JOB, beta)
    queue = point.queues(beta, 1.0, 0.0)[0]
    run = simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, beta, beta, b=0.0, h=1.0, time=200_000, initial_queues=[int(queue)],
                       seed=7)
    assert run.stationary
    templates, throughput = run.expected_templates[0], run.throughput[0]
    assert templates.value == pytest.approx(1.0, abs=max(3 * templates.half_width, 0.02))   # throughput = ρ
    assert throughput.value == pytest.approx(1.0, abs=max(3 * throughput.half_width, 0.02))
    assert run.expected_cost.value == pytest.approx(point.expected_cost, rel=0.05, abs=0)
    assert run.queue.value[0] == pytest.approx(queue, rel=0.15, abs=0)
    assert run.interruptions.value == 0.0


def test_outside_the_capacity_region_the_queue_grows():
    heavy = GraphJob(5, FIGURE1_JOB.edges, arrival_rate=2.4, service_rate=1.0)      # Λ = [0, 2]
    run = simulate_dgp(FIGURE1_CLUSTER, heavy, 1.0, 1.0, b=0.0, time=20_000, seed=8)
    assert not run.stationary
    assert run.expected_templates.value[0] < 2.0


def test_same_seed_same_numbers_through_any_executor():
    kwargs = dict(time=500, replications=3, seed=11)
    serial = simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 1.0, b=0.0, executor=SerialExecutor(), **kwargs)
    with ThreadPoolExecutor(2) as pool:
        threaded = simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 1.0, b=0.0, executor=pool, **kwargs)
    assert serial.expected_cost == threaded.expected_cost and np.array_equal(serial.queue.value, threaded.queue.value)
    assert serial.method == "independent replications" and serial.samples == 3 and serial.seed == 11


@pytest.mark.slow
def test_python_and_compiled_loops_agree():
    """NUMBA_DISABLE_JIT=1 runs the same code in Python, with the same numbers."""
    code = ("from analytic.partitioning import simulate_dgp, simulate_adgp, simulate_max_weight\n"
            "from analytic.partitioning.paper import FIGURE1_CLUSTER as C, FIGURE1_JOB as J\n"
            "print(repr(simulate_dgp(C, J, 1.0, 1.0, b=0.0, time=300, seed=3).expected_cost.value),"
            " repr(simulate_adgp(C, J, 1.0, 1.0, 0.2, b=0.0, time=300, seed=3).expected_cost.value),"
            " repr(simulate_max_weight(C, J, 1.0, 1.0, time=300, seed=3).expected_cost.value))")
    outputs = []
    for disable in ("0", "1"):
        env = dict(os.environ, NUMBA_DISABLE_JIT=disable, PYTHONPATH=str(ROOT))
        result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT, timeout=600)
        assert result.returncode == 0, result.stderr
        outputs.append(result.stdout.split())
    assert outputs[0] == outputs[1]


def test_result_fields_and_the_old_names():
    from analytic.errors import AnalyticDeprecationWarning

    run = simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, **FROZEN, time=500, seed=2)
    assert run.cost_law.value.sum() == pytest.approx(1.0, abs=1e-9)
    e = run.expected_cost
    assert repr(run).startswith(f"PartitioningSimulation(DGP, expected_cost={e.value:.6g} ± {e.half_width:.6g}, queue=[")
    for old, new in [("queue", "queue"), ("templates", "expected_templates"), ("actual", "actual"), ("cost", "expected_cost"),
                     ("actual_cost", "actual_cost"), ("cost_law", "cost_law"), ("throughput", "throughput"),
                     ("interruptions", "interruptions")]:
        with pytest.warns(AnalyticDeprecationWarning, match=rf"PartitioningSimulation\.{old}_ci is renamed {new}\.half_width"):
            assert getattr(run, f"{old}_ci") is getattr(run, new).half_width
    with pytest.warns(AnalyticDeprecationWarning, match=r"PartitioningSimulation\.templates_estimate\(\) is renamed "
                                                        r"PartitioningSimulation\.expected_templates\[job\]"):
        assert run.templates_estimate(0) == run.expected_templates[0]
    with pytest.warns(AnalyticDeprecationWarning, match=r"queue_estimate\(\) is renamed PartitioningSimulation\.queue\[job\]"):
        assert run.queue_estimate(0) == run.queue[0]
    with pytest.warns(AnalyticDeprecationWarning, match=r"cost_law_estimate\(\) is renamed PartitioningSimulation\.cost_law"):
        assert run.cost_law_estimate(2.0) == run.cost_law[int(np.flatnonzero(run.cost_levels == 2.0)[0])]
    with pytest.raises(InvalidParameterError, match="cost = 0.5: must be one of the cost levels"):
        run.cost_law_estimate(0.5)
    with pytest.warns(AnalyticDeprecationWarning), pytest.raises(InvalidParameterError, match="job = 1: must be below 1"):
        run.queue_estimate(1)


@pytest.mark.parametrize("replications", [1, 3])
def test_every_quantity_is_an_estimate_equal_to_the_mean_of_the_raw_time_averages(monkeypatch, replications):
    """Each field is mean_estimate of the samples' time averages (each batch's, or each replication's area over its
    span), the numbers the float and array fields held before, bit for bit."""
    import analytic.partitioning.simulation as module
    from analytic.simulation import Estimate, Estimates, mean_estimate

    caught = []
    summarise = module._summarise
    monkeypatch.setattr(module, "_summarise", lambda setup, runs, *rest: caught.append((setup, runs)) or summarise(setup, runs,
                                                                                                                    *rest))
    run = simulate_max_weight(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 1.0, time=600, replications=replications, seed=4,
                              executor=SerialExecutor())
    (setup, tallies), = caught
    spans = np.diff(setup.edges)
    method = "batch means" if replications == 1 else "independent replications"
    for name, column in [("queue", "area_q"), ("expected_templates", "area_n"), ("actual", "area_a"),
                         ("expected_cost", "area_cost"), ("actual_cost", "area_actual"), ("cost_law", "level_time"),
                         ("throughput", "departures"), ("interruptions", "migrated")]:
        if replications == 1:
            samples = getattr(tallies[0], column) / (spans if getattr(tallies[0], column).ndim == 1 else spans[:, None])
        else:
            samples = np.array([getattr(t, column).sum(axis=0) / spans.sum() for t in tallies])
        field = getattr(run, name)
        if samples.ndim == 1:
            assert isinstance(field, Estimate) and field == mean_estimate(samples, 0.95, method), name
        else:
            assert isinstance(field, Estimates), name
            for j in range(samples.shape[1]):
                assert field[j] == mean_estimate(samples[:, j], 0.95, method), (name, j)


def test_compare_pairs_the_law_and_the_run():
    """Frozen DGP-bar against π* of eq. (15): compare(law, run) pairs expected_cost and expected_templates; a cost
    shifted by 20 % disagrees."""
    law = dgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, Q_FROZEN, 1.0)
    run = simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, **FROZEN, time=20_000, warmup=200, seed=3)
    verdicts = compare(law, run)
    assert set(verdicts) == {"expected_cost", "expected_templates"}
    assert verdicts["expected_cost"].verdict == "agrees" and verdicts["expected_cost"].exact == law.expected_cost
    assert compare(run.expected_cost, 1.2 * law.expected_cost).verdict == "disagrees"


TOO_SHORT = "time = 4.94.*e-324: leaves 4.94.*e-324 after a warm-up of 0: too short to split into 20 batches of positive length"


@pytest.mark.parametrize("call, message", [
    (lambda: simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, 0.0, 1.0), "alpha = 0: must be positive"),
    (lambda: simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, -1.0), "beta = -1: must be positive"),
    (lambda: simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 1.0, h=0.5), "h = 0.5: must be finite and >= 1"),
    (lambda: simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 1.0, epsilon=1.0), "epsilon = 1: must lie in \\(0, 1\\)"),
    (lambda: simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 1.0, b=1.0), "b = 1: must lie in \\[0, 1\\)"),
    (lambda: simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 1.0, time=10, warmup=10), "warmup = 10: must lie in \\[0, time"),
    (lambda: simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 1.0, frozen_queues=[-1]), "frozen_queues = \\[-1\\]: must be 1"),
    (lambda: simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 1.0, initial_queues=[1.5]), "initial_queues = \\[1.5\\]"),
    (lambda: simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 1.0, executor=3), "executor = 3: must be a concurrent"),
    (lambda: simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 1.0, batches=1), "batches = 1: must be an integer >= 2"),
    (lambda: simulate_adgp(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 1.0, 0.0), "clock_rate = 0: must be positive"),
    (lambda: simulate_max_weight(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 0.0), "frame = 0: must be positive"),
    # batches of no length: time = 5e-324 raised a raw "math domain error" (ADGP) or named `levels` (DGP)
    (lambda: simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, **FROZEN, time=5e-324), TOO_SHORT),
    (lambda: simulate_adgp(FIGURE1_CLUSTER, FIGURE1_JOB, 0.5, 0.5, 0.05, frozen_queues=[20], time=5e-324), TOO_SHORT),
    (lambda: simulate_max_weight(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 1.0, time=5e-324), TOO_SHORT),
    (lambda: simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 1.0, time=100.0, warmup=np.nextafter(100.0, 0.0)),
     "time = 100: leaves 1.42109e-14 after a warm-up of 100: too short to split into 20 batches"),
])
def test_errors(call, message):
    with pytest.raises(InvalidParameterError, match=message):
        call()


@pytest.mark.parametrize("simulate", [
    lambda seed: simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, **FROZEN, time=1e-300, seed=seed, executor=SerialExecutor()),
    lambda seed: simulate_adgp(FIGURE1_CLUSTER, FIGURE1_JOB, 0.5, 0.5, 0.05, frozen_queues=[20], time=1e-300, seed=seed,
                               executor=SerialExecutor()),
    lambda seed: simulate_max_weight(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 1.0, time=1e-300, seed=seed, executor=SerialExecutor()),
])
def test_a_horizon_near_the_end_of_the_double_range_sees_the_empty_cluster(simulate):
    """Over 1e-300 time units every run stays empty: an arrival, a tick or a frame comes with probability below
    1e-298 (rates of order one), so over any seeds the time averages are 0 with no spread."""
    for seed in range(5):
        run = simulate(seed)
        values = (run.expected_cost.value, run.expected_cost.half_width, run.queue.value[0], run.expected_templates.value[0])
        assert values == pytest.approx((0.0, 0.0, 0.0, 0.0), abs=0)


@pytest.mark.parametrize("call,match", [
    (lambda: P.simulate_adgp(P.Cluster([2, 2]), P.GraphJob(2, [(0, 1)], 0.5, 1.0), 1.0, 0.5, 10**18, time=100.0),
     r"^clock_rate = 1e\+18: times time = 100 asks for 1e\+20 clock ticks"),
    (lambda: P.simulate_max_weight(P.Cluster([2, 2]), P.GraphJob(2, [(0, 1)], 0.5, 1.0), 1.0, 1e-300, time=100.0),
     r"^frame = 1e-300: divides time = 100 into 1e\+302 frames"),
    (lambda: P.simulate_adgp(P.Cluster([2, 2]), P.GraphJob(2, [(0, 1)], 0.5, 1.0), 50.0, 0.5, 0.05, frozen_queues=[20],
                             time=100.0),
     r"^frozen_queues = \[20\]: give weights q = \[88.36\d*\] \(alpha = 50\) whose clocks λ̂ e\^\(q/β\) at beta = 0.5 "
     r"tick about e\^178.3 times over time = 100, more than 1e\+12$"),
    # queues only raise the weights: with h = 1e147 even empty ones give q = 50 log(1e147)^(1/2) = 919.89
    (lambda: P.simulate_adgp(P.Cluster([2, 2]), P.GraphJob(2, [(0, 1)], 0.5, 1.0), 50.0, 0.5, 0.05, h=1e147, time=100.0),
     r"^h = 1e\+147: gives weights q = α f\(h\) >= \[919.89\d*\] even with empty queues \(alpha = 50\) whose clocks "
     r"λ̂ e\^\(q/β\) at beta = 0.5 tick about e\^1841 times over time = 100, more than 1e\+12$"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()


@pytest.mark.parametrize("build", [
    lambda n: P.simulate_dgp(P.Cluster([2, 2]), P.GraphJob(2, [(0, 1)], 1.0, 1.0), 0.5, 0.5, frozen_queues=[20], time=100.0,
                             seed=1, batches=n),
])
def test_counts_beyond_the_float_range_are_refused_as_too_large(build):
    """A count of 10**400 (servers, sample size, batches, d) raised a raw OverflowError where its table's bytes were
    estimated in floats before the memory check; like 10**12, it is refused before anything is allocated."""
    from analytic.errors import StateSpaceTooLargeError

    for count in (10**12, 10**400):
        with pytest.raises(StateSpaceTooLargeError, match="needs .* of memory, more than the"):
            build(count)
