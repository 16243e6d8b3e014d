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

ROOT = Path(__file__).parent.parent
#: Frozen weights of the coverage tests: Q = 20, α = 1, β = 1, f = log (b = 0), h = e, ε = 1/2:
#: q = log(20 + e) = 3.12, a relaxation time of 9.8 (spectral gap of DGP-bar's chain).
FROZEN = dict(alpha=1.0, beta=1.0, b=0.0, frozen_queues=[20])
Q_FROZEN = dgp_queue_weights([20], 1.0, np.e, 0.5, 12, 0.0)
RUNS = 100


def coverage(runs, exact, attribute):
    return sum(compare(getattr(run, attribute)(*args) if callable(getattr(run, attribute)) else getattr(run, attribute),
                       exact).agrees for run, args in runs)


def test_frozen_dgp_covers_pi_star():
    """DGP-bar (Section 6): E cost, E|C| and P(cost = 2) of eq. (15) inside the intervals at the nominal rate."""
    law = dgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, Q_FROZEN, 1.0)
    costs, probabilities = law.cost_distribution()
    runs = [simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, **FROZEN, time=4000, warmup=200, seed=seed) for seed in range(RUNS)]
    low, high = coverage_band(RUNS)
    hits = [sum(compare(run.cost_estimate, law.expected_cost).agrees for run in runs),
            sum(compare(run.templates_estimate(0), law.expected_templates[0]).agrees for run in runs),
            sum(compare(run.cost_law_estimate(2.0), probabilities[costs == 2.0][0]).agrees for run in runs)]
    assert all(low <= h <= high for h in hits), (hits, (low, high))
    pooled = np.mean([run.cost for run in runs])
    assert pooled == pytest.approx(law.expected_cost, rel=0.01, abs=0)


def test_frozen_adgp_covers_its_law():
    """ADGP-bar (Prop. 4): the configuration's law is γ̂ e^(W/β)."""
    law = adgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, 0.2, Q_FROZEN, 1.0)
    runs = [simulate_adgp(FIGURE1_CLUSTER, FIGURE1_JOB, clock_rate=0.2, **FROZEN, time=2000, warmup=100, seed=1000 + seed)
            for seed in range(RUNS)]
    low, high = coverage_band(RUNS)
    hits = [sum(compare(run.cost_estimate, law.expected_cost).agrees for run in runs),
            sum(compare(run.templates_estimate(0), law.expected_templates[0]).agrees for run in runs)]
    assert all(low <= h <= high for h in hits), (hits, (low, high))


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
    assert abs(run.templates[0] - exact_templates) <= run.templates_ci[0] + 0.02
    assert abs(run.queue[0] - exact_queue) <= run.queue_ci[0] + 0.05
    assert run.cost == pytest.approx(run.templates[0], rel=1e-12, abs=0)       # every installed template costs 1
    assert run.actual_cost == pytest.approx(run.actual[0], rel=1e-12, abs=0)


def test_max_weight_interrupts_and_longer_frames_cost_more():
    short = simulate_max_weight(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 0.1, time=20_000, seed=6)
    long = simulate_max_weight(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 10.0, time=20_000, seed=6)
    assert short.interruptions > 0 and long.interruptions > 0
    assert long.cost - long.cost_ci > short.cost + short.cost_ci          # Theorem 1: cost grows with T
    assert short.stationary and long.stationary


@pytest.mark.parametrize("beta", [1.0, 0.3])
def test_live_dgp_settles_at_its_operating_point(beta):
    """α = β, f = log, h = 1: the queue settles where DGP-bar serves the load; cost and queue as predicted."""
    point = operating_point(FIGURE1_CLUSTER, FIGURE1_JOB, beta)
    queue = point.queues(beta, 1.0, 0.0)[0]
    run = simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, beta, beta, b=0.0, h=1.0, time=200_000, initial_queues=[int(queue)],
                       seed=7)
    assert run.stationary
    assert run.templates[0] == pytest.approx(1.0, abs=max(3 * run.templates_ci[0], 0.02))   # throughput = ρ
    assert run.throughput[0] == pytest.approx(1.0, abs=max(3 * run.throughput_ci[0], 0.02))
    assert run.cost == pytest.approx(point.expected_cost, rel=0.05, abs=0)
    assert run.queue[0] == pytest.approx(queue, rel=0.15, abs=0)
    assert run.interruptions == 0.0


def test_outside_the_capacity_region_the_queue_grows():
    heavy = GraphJob(5, FIGURE1_JOB.edges, arrival_rate=2.4, service_rate=1.0)      # Λ = [0, 2]
    run = simulate_dgp(FIGURE1_CLUSTER, heavy, 1.0, 1.0, b=0.0, time=20_000, seed=8)
    assert not run.stationary
    assert run.templates[0] < 2.0


def test_same_seed_same_numbers_through_any_executor():
    kwargs = dict(time=500, replications=3, seed=11)
    serial = simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 1.0, b=0.0, executor=SerialExecutor(), **kwargs)
    with ThreadPoolExecutor(2) as pool:
        threaded = simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 1.0, b=0.0, executor=pool, **kwargs)
    assert serial.cost == threaded.cost and np.array_equal(serial.queue, threaded.queue)
    assert serial.method == "independent replications" and serial.samples == 3 and serial.seed == 11


def test_python_and_compiled_loops_agree():
    """NUMBA_DISABLE_JIT=1 runs the same code in Python, with the same numbers."""
    code = ("from analytic.partitioning import simulate_dgp, simulate_adgp, simulate_max_weight\n"
            "from analytic.partitioning.paper import FIGURE1_CLUSTER as C, FIGURE1_JOB as J\n"
            "print(repr(simulate_dgp(C, J, 1.0, 1.0, b=0.0, time=300, seed=3).cost),"
            " repr(simulate_adgp(C, J, 1.0, 1.0, 0.2, b=0.0, time=300, seed=3).cost),"
            " repr(simulate_max_weight(C, J, 1.0, 1.0, time=300, seed=3).cost))")
    outputs = []
    for disable in ("0", "1"):
        env = dict(os.environ, NUMBA_DISABLE_JIT=disable, PYTHONPATH=str(ROOT))
        result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT, timeout=600)
        assert result.returncode == 0, result.stderr
        outputs.append(result.stdout.split())
    assert outputs[0] == outputs[1]


def test_result_accessors():
    run = simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, **FROZEN, time=500, seed=2)
    assert run.cost_law.sum() == pytest.approx(1.0, abs=1e-9)
    assert run.cost_estimate.value == run.cost and run.queue_estimate(0).value == run.queue[0]
    assert repr(run).startswith("PartitioningSimulation(DGP, cost=")
    with pytest.raises(InvalidParameterError, match="cost = 0.5: must be one of the cost levels"):
        run.cost_law_estimate(0.5)


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
        assert (run.cost, run.cost_ci, run.queue[0], run.templates[0]) == pytest.approx((0.0, 0.0, 0.0, 0.0), abs=0)
