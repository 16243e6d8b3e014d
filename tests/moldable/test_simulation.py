"""Tests of analytic.moldable.simulation: the simulated loss system against exact values.

References, all independent of the simulator:
* the exact loss chain of greedy(p) (greedy_metrics, analytic.ctmc) on small systems with
  exponential sizes: blocking, E[D] and occupancy, by the coverage of 95% intervals over 100
  fixed seeds per system, inside the binomial band of coverage_band;
* Erlang's formula (analytic.erlang) for the linear speed-up with d | n, for deterministic,
  mixed-Erlang and Pareto sizes (insensitivity of the Erlang loss system);
* the expected fraction of blocked arrivals among the first m arrivals of an M/M/c/c system
  started empty, from the embedded chain at arrival epochs (matrix products in numpy), for the
  paper's procedure (start="empty", warmup=0).
"""

import functools
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from scipy import linalg

from analytic.erlang import erlang_b
from analytic.errors import AnalyticDeprecationWarning, InvalidParameterError
from analytic.moldable import greedy_metrics, simulate_moldable, traffic
from analytic.simulation import SerialExecutor, compare, coverage_band, deterministic, mixed_erlang, pareto
from analytic.speedup import SpeedupTable

ROOT = Path(__file__).parents[2]
SUBLINEAR = SpeedupTable([1, 1.8, 2.5, 3, 3.4])
SERIAL = SerialExecutor()
SEEDS = range(100)

#: (speed-up, λ, n, p, replications): both schemes, several loads and speed-ups, n = 10 ... 60.
SYSTEMS = {
    "sub-linear p* λ=0.8 n=10": (SUBLINEAR, 0.8, 10, None, 1),
    "sub-linear greedy λ=0.8 n=20": (SUBLINEAR, 0.8, 20, "greedy", 4),
    "sub-linear p* Halfin-Whitt n=40": (SUBLINEAR, float(traffic(40, 0.5, 0.1)), 40, None, 1),
    "Amdahl(0.9) p* λ=0.6 n=60": (SpeedupTable.amdahl(0.9, 4), 0.6, 60, None, 4),
    "power(1/2) greedy λ=0.95 n=30": (SpeedupTable.power(0.5, 3), 0.95, 30, "greedy", 1),
    "sub-linear greedy λ=0.5 n=60": (SUBLINEAR, 0.5, 60, "greedy", 1),
}


@functools.cache
def coverage(name):
    """How many of the 100 seeded 95% intervals of (P_b, E[D], E[x_i] of the busiest i) hold the exact values."""
    speedup, lam, n, p, replications = SYSTEMS[name]
    exact = greedy_metrics(speedup, lam, n, p)
    largest = int(np.argmax(exact.mean_occupancy)) + 1
    hits = np.zeros(3, dtype=int)
    offset = 1000 * list(SYSTEMS).index(name)          # distinct seeds: the pooled count is of independent runs
    for seed in SEEDS:
        sim = simulate_moldable(speedup, lam, n, p, arrivals=40_000, replications=replications, seed=offset + seed,
                                executor=SERIAL)
        hits += [compare(sim.blocking, exact.blocking).agrees,
                 compare(sim.mean_response_time, exact.mean_response_time).agrees,
                 compare(sim.mean_occupancy[largest - 1], exact.mean_occupancy[largest - 1]).agrees]
    return hits


@pytest.mark.slow
@pytest.mark.parametrize("name", SYSTEMS)
def test_exact_chain_values_are_covered_at_the_stated_rate(name):
    low, high = coverage_band(len(SEEDS))
    hits = coverage(name)
    assert np.all((low <= hits) & (hits <= high)), f"coverage of (P_b, E[D], E[x_i]): {hits.tolist()} not in [{low}, {high}]"


@pytest.mark.slow
def test_pooled_coverage_is_neither_too_low_nor_too_high():
    """Over the six systems, 600 intervals per quantity: too wide intervals would show here."""
    low, high = coverage_band(len(SEEDS) * len(SYSTEMS))
    pooled = sum(coverage(name) for name in SYSTEMS)
    assert np.all((low <= pooled) & (pooled <= high)), f"pooled coverage {pooled.tolist()} not in [{low}, {high}]"


@pytest.mark.slow
@pytest.mark.parametrize("law", [deterministic(), mixed_erlang(), pareto(1.5)], ids=["deterministic", "mixed_erlang", "pareto"])
def test_linear_speedup_blocking_is_erlang_b_for_every_size_law(law):
    """d = 5 divides n = 50: 10 slots of 5 servers, offered load 50 λ / 5; the start is stationary."""
    lam = 0.9
    exact = float(erlang_b(10, 50 * lam / 5))
    hits = sum(compare(simulate_moldable(SpeedupTable.linear(5), lam, 50, size=law, arrivals=20_000, replications=10, warmup=0,
                                         seed=seed, executor=SERIAL).blocking, exact).agrees for seed in SEEDS)
    low, high = coverage_band(len(SEEDS))
    assert low <= hits <= high


def blocked_fraction_from_empty(slots, rate_per_server, service_rate, arrivals):
    """E[blocked among the first `arrivals` arrivals] / arrivals for M/M/c/c started empty.

    Between arrivals only departures happen: over an Exp(Λ) time the pure-death chain moves by
    M = Λ (Λ I - Q_death)^-1. The law seen by arrival j+1 is (law after arrival j) M.
    """
    k = np.arange(slots + 1)
    death = np.diag(-service_rate * k) + np.diag(service_rate * k[1:], -1)
    M = rate_per_server * linalg.inv(rate_per_server * np.eye(slots + 1) - death)
    seen, total = np.eye(slots + 1)[0], 0.0
    for _ in range(arrivals):
        total += seen[slots]
        after = np.append(0.0, seen[:-1])
        after[slots] += seen[slots]
        seen = after @ M
    return total / arrivals


@pytest.mark.slow
def test_paper_procedure_from_empty_has_the_exact_transient_blocking():
    """Linear speed-up, n = 20 (4 slots), λ = 1, 60 arrivals per run from empty, no warm-up."""
    exact = blocked_fraction_from_empty(slots=4, rate_per_server=20.0, service_rate=5.0, arrivals=60)
    stationary = float(erlang_b(4, 4.0))
    assert exact < stationary - 0.02                        # the transient matters at this length
    hits = sum(compare(simulate_moldable(SpeedupTable.linear(5), 1.0, 20, arrivals=60 * 20, replications=20, warmup=0, batches=2,
                                         start="empty", seed=seed, executor=SERIAL).blocking, exact).agrees
               for seed in SEEDS)
    low, high = coverage_band(len(SEEDS))
    assert low <= hits <= high


def test_completed_jobs_only_shorten_the_mean_time_of_heavy_tails():
    """Deterministic sizes: every job runs 1/5, counted at completion or not. Pareto: long jobs are censored."""
    det = simulate_moldable(SpeedupTable.linear(5), 0.9, 50, size=deterministic(), arrivals=20_000, seed=3, executor=SERIAL,
                            response_time_of="completed")
    assert det.mean_response_time.value == pytest.approx(0.2, rel=1e-12, abs=0)
    assert det.mean_response_time.half_width == pytest.approx(0.0, abs=1e-12)
    runs = [simulate_moldable(SpeedupTable.linear(5), 0.9, 50, size=pareto(), arrivals=20_000, seed=3, executor=SERIAL,
                              start="empty", warmup=0, response_time_of=of) for of in ("accepted", "completed")]
    assert runs[1].mean_response_time.value < runs[0].mean_response_time.value and runs[0].blocking == runs[1].blocking


def fields(sim):
    return (sim.blocking, sim.mean_response_time, sim.mean_occupancy.value.tolist(), sim.mean_occupancy.half_width.tolist(),
            sim.measured)


@pytest.mark.slow
def test_same_seed_same_numbers_serial_in_processes_and_on_dask():
    distributed = pytest.importorskip("distributed")
    arguments = dict(speedup=SUBLINEAR, rate_per_server=0.8, servers=30, size="mixed_erlang", arrivals=60_000, replications=3,
                     seed=42)
    serial = simulate_moldable(**arguments, executor=SERIAL)
    with ProcessPoolExecutor(2) as pool:
        processes = simulate_moldable(**arguments, executor=pool)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        dask = simulate_moldable(**arguments, executor=client.get_executor())
    assert fields(serial) == fields(processes) == fields(dask)
    assert serial.seed == 42 and serial.method == "independent replications" and serial.samples == 3


def test_seed_none_records_its_entropy_for_a_rerun():
    first = simulate_moldable(SUBLINEAR, 0.8, 10, arrivals=5_000, executor=SERIAL)
    again = simulate_moldable(SUBLINEAR, 0.8, 10, arrivals=5_000, executor=SERIAL, seed=first.seed)
    assert fields(first) == fields(again)


@pytest.mark.slow
def test_no_jit_runs_the_same_code_with_the_same_numbers():
    script = ("from analytic.moldable import simulate_moldable\nfrom analytic.speedup import SpeedupTable\n"
              "from analytic.simulation import SerialExecutor\n"
              "print(simulate_moldable(SpeedupTable([1, 1.8, 2.5]), 0.7, 9, size='pareto', arrivals=3_000, seed=5, "
              "executor=SerialExecutor(), response_time_of='completed'))")
    outputs = []
    for disable in ("0", "1"):
        env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_DISABLE_JIT=disable)
        outputs.append(subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True).stdout)
    assert outputs[0] == outputs[1] and "MoldableSimulation(servers=9" in outputs[0]


def test_result_fields_and_repr():
    sim = simulate_moldable(SUBLINEAR, 0.8, 12, arrivals=10_000, warmup=1_000, seed=1, executor=SERIAL)
    assert (sim.arrivals, sim.measured, sim.warmup, sim.replications, sim.samples) == (10_000, 9_000, 1_000, 1, 20)
    assert sim.method == "batch means" and sim.p.tolist() == pytest.approx([0, 0, 0.625, 0.375, 0], rel=1e-12, abs=0)
    blocking = sim.blocking
    assert repr(sim).startswith(f"MoldableSimulation(servers=12, blocking={blocking.value:.6g} ± {blocking.half_width:.6g}, ")


def test_each_field_is_the_estimate_of_the_raw_tallies():
    """blocking, mean_response_time and mean_occupancy hold, bit for bit, the ratio estimates of the replications' tallies
    (summed here from the event loop's own per-batch counts, not through the simulator's summary)."""
    from analytic.moldable.simulation import _replication, _Setup
    from analytic.simulation import Estimate, Estimates, ratio_estimate

    sim = simulate_moldable(SUBLINEAR, 0.8, 12, arrivals=30_000, replications=3, seed=5, executor=SERIAL)
    setup = _Setup(12, 0.8, SUBLINEAR.values, sim.p, sim.size, 10_000, 1_000, 20, "equilibrium")
    tallies = [_replication(setup, child) for child in np.random.SeedSequence(5).spawn(3)]
    total = {name: np.array([getattr(t, name).sum(axis=0) for t in tallies]) for name in ("arrivals", "blocked",
                                                                                          "counted", "time_sum", "area",
                                                                                          "duration")}
    method = "independent replications"
    assert isinstance(sim.blocking, Estimate) and isinstance(sim.mean_response_time, Estimate)
    assert isinstance(sim.mean_occupancy, Estimates)
    assert sim.blocking == ratio_estimate(total["blocked"], total["arrivals"], 0.95, method)
    assert sim.mean_response_time == ratio_estimate(total["time_sum"], total["counted"], 0.95, method)
    for i in range(SUBLINEAR.d):
        assert sim.mean_occupancy[i] == ratio_estimate(total["area"][:, i] / 12, total["duration"], 0.95, method)


def test_old_names_warn_and_give_the_fields():
    sim = simulate_moldable(SUBLINEAR, 0.8, 12, arrivals=10_000, seed=1, executor=SERIAL)
    with pytest.warns(AnalyticDeprecationWarning, match=r"MoldableSimulation.blocking_estimate is renamed"):
        assert sim.blocking_estimate is sim.blocking
    with pytest.warns(AnalyticDeprecationWarning, match=r"MoldableSimulation.mean_time_estimate is renamed"):
        assert sim.mean_time_estimate is sim.mean_response_time
    with pytest.warns(AnalyticDeprecationWarning, match=r"occupancy_estimate\(\) is renamed .*mean_occupancy\[servers - 1\]"):
        assert sim.occupancy_estimate(3) == sim.mean_occupancy[2]
    with pytest.warns(AnalyticDeprecationWarning), pytest.raises(InvalidParameterError, match="servers = 6: must be below 6"):
        sim.occupancy_estimate(6)


@pytest.mark.parametrize("kwargs,match", [
    (dict(size="lognormal"), r"size = 'lognormal': must be a SizeLaw or one of"),
    (dict(size=2.5), r"size = 2.5: must be a SizeLaw"),
    (dict(rate_per_server=-0.5), r"rate_per_server = -0.5: must lie in \(0, 1\]"),
    (dict(arrivals=1_000, warmup=995),
     r"arrivals = 1000: must give each of the 1 replications at least warmup \+ batches = 1015"),
    (dict(arrivals=100, replications=10), r"arrivals = 100: must give each of the 10 replications at least"),
    (dict(executor="pool"), "executor = 'pool': must be a concurrent.futures.Executor"),
    (dict(start="stationary"), r"start = 'stationary': must be one of \('equilibrium', 'empty'\)"),
    (dict(response_time_of="departed"), r"response_time_of = 'departed': must be one of \('accepted', 'completed'\)"),
    (dict(servers=4), r"servers = 4: must be an integer >= 5 \(at least d = 5\)"),
    (dict(p=[1.0]), r"p = \[1.0\]: must be a probability vector of length 5"),
    (dict(speedup=[1, 2]), r"speedup = \[1, 2\]: must be an analytic.speedup.SpeedupTable"),
    (dict(batches=1), "batches = 1: must be an integer >= 2"),
    (dict(level=95), "level = 95: must lie strictly between 0 and 1"),
])
def test_bad_input_raises(kwargs, match):
    arguments = dict(speedup=SUBLINEAR, rate_per_server=0.8, servers=10, arrivals=10_000, executor=SERIAL) | kwargs
    with pytest.raises(InvalidParameterError, match=match):
        simulate_moldable(**arguments)


def test_a_law_without_finite_mean_is_refused():
    with pytest.raises(InvalidParameterError, match="shape = 1: must exceed 1: a Pareto law with shape <= 1 has no finite mean"):
        simulate_moldable(SUBLINEAR, 0.8, 10, size=pareto(1.0), executor=SERIAL)


@pytest.mark.parametrize("arrivals", [(2**63 - 20) // 20 + 1, 10**30])
def test_arrivals_beyond_the_event_loops_integers_are_refused_up_front(arrivals):
    """10**30 arrivals used to fail inside the replication (an OverflowError blamed on its SeedSequence); the 20
    batch boundaries of a replication, 20·arrivals + 19, must stay below 2**63."""
    from analytic.moldable.paper import LINEAR, table1_simulation

    refusal = r" = \d+: must be at most 461,168,601,842,738,789 = 1 x \(2\*\*63 - 20\) // 20: each replication's"
    with pytest.raises(InvalidParameterError, match="^arrivals" + refusal):
        simulate_moldable(SpeedupTable([1.0, 1.8]), 0.5, 6, arrivals=arrivals, seed=1)
    with pytest.raises(InvalidParameterError, match="^arrivals_per_replication" + refusal):
        table1_simulation(LINEAR, 0.5, 0.1, "exponential", 1, arrivals, seed=1)
