"""Speed of the package's Algorithm 1, DGP, ADGP and Max-Weight simulators against plain compiled loops.

Run as ``python benchmarks/simulation_engines.py`` (about two minutes; ``--scale 0.1`` for a quick
look). The yardsticks are the plain ``numba.njit`` loops of ``benchmarks/reference_fairness_partitioning.py``
(one function per policy, arrays local to the loop). For each simulator and setting the package and
its loop run alternately, three times each, on the same work (the same arrivals for Algorithm 1,
the same simulated time for the partitioning algorithms), after a warm-up call that compiles or
loads both; the best time of each is kept. Printed: jobs (Algorithm 1) or events per second of
both, the ratio package / loop (the target is at least 1), and both estimates, which must agree
within a few standard errors (the loop's estimate carries none: it is one run).

Settings: Algorithm 1 on the three-server graph of Bonald & Comte's Section 5 (servers 0 and 1
dedicated, 2 shared), unit capacities, exponential unit sizes, load 0.7, m = 0, 1, 5 interruptions
per job; DGP and ADGP (λ̂ = 0.2) on Ghaderi et al.'s Figure 1 cluster and job, α = β = 1, f = log,
h = 1, started at their operating points; Max-Weight there with α = 1, T = 1.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable

import numpy as np
from reference_fairness_partitioning import ADGP, DGP, algorithm1, max_weight, start_queue, templates

from analytic.fairness import three_server_graph
from analytic.fairness.simulation import simulate_interruptions
from analytic.partitioning import simulate_adgp, simulate_dgp, simulate_max_weight
from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
from analytic.partitioning.static import cheapest_packings


def best_of_three(package: Callable[[], object], loop: Callable[[], object]) -> tuple[float, float, object, object]:
    """Best seconds of ``package`` and ``loop``, called alternately three times each after one warm-up call."""
    package(), loop()
    times = {"package": math.inf, "loop": math.inf}
    results = {}
    for _ in range(3):
        for name, function in (("package", package), ("loop", loop)):
            start = time.perf_counter()
            results[name] = function()
            times[name] = min(times[name], time.perf_counter() - start)
    return times["package"], times["loop"], results["package"], results["loop"]


def algorithm1_rows(jobs: int) -> None:
    graph = three_server_graph()
    rates = np.array([1.05, 1.05])
    table = np.array([[0, 2], [1, 2]], dtype=np.int64)
    widths = np.array([2, 2], dtype=np.int64)
    print(f"Algorithm 1, three-server graph, load 0.7, {jobs:,} arrivals (jobs per second; mean number of jobs)")
    for m in (0.0, 1.0, 5.0):
        theta = 1.0 / m if m > 0 else math.inf
        package_s, loop_s, sim, (jobs_loop, events) = best_of_three(
            lambda m=m: simulate_interruptions(graph, rates, interruptions=m, arrivals=jobs, seed=1),
            lambda theta=theta: algorithm1(table, widths, graph.capacities, rates, theta, jobs, jobs // 10, 1))
        print(f"  m = {m:g}: package {jobs / package_s:12,.0f}/s, loop {jobs / loop_s:12,.0f}/s, "
              f"ratio {loop_s / package_s:5.2f}; E[x] package {sim.mean_jobs.value.sum():.4f} ± "
              f"{sim.mean_jobs.half_width.sum():.4f}, "
              f"loop {jobs_loop.sum():.4f} ({events / jobs:.2f} events per arrival)")


def partitioning_rows(horizon: float) -> None:
    cluster, job = FIGURE1_CLUSTER, FIGURE1_JOB
    edges = np.array(job.edges, dtype=np.int64)
    weights = np.array(job.edge_weights, dtype=float)
    packings = cheapest_packings(cluster, [job])
    counts = packings.templates[:, 0].astype(np.int64)
    warmup = horizon / 10
    print(f"Partitioning, Figure 1, simulated time {horizon:g} (events per second; mean partition cost)")
    rows = []
    for name, mode, clock in (("DGP", DGP, 0.0), ("ADGP", ADGP, 0.2)):
        start = start_queue(clock)
        function = simulate_dgp if mode == DGP else simulate_adgp
        extra = {} if mode == DGP else {"clock_rate": clock}
        rows.append((name,
                     lambda function=function, extra=extra, start=start: function(
                         cluster, job, 1.0, 1.0, **extra, b=0.0, h=1.0, time=horizon, initial_queues=[start], seed=1),
                     lambda mode=mode, clock=clock, start=start: templates(
                         mode, cluster.machine_of_slot, cluster.distance, edges, weights, job.nodes, 1.0, 1.0, 1.0, 1.0,
                         0.0, 1.0, clock, horizon, warmup, start, 1)))
    rows.append(("Max-Weight",
                 lambda: simulate_max_weight(cluster, job, alpha=1.0, frame=1.0, time=horizon, seed=1),
                 lambda: max_weight(counts, packings.cost, 1.0, 1.0, 1.0, 0.0, 1.0, horizon, warmup, 0, 1)))
    for name, package, loop in rows:
        package_s, loop_s, run, (cost, _, events) = best_of_three(package, loop)
        print(f"  {name:10s} package {events / package_s:12,.0f}/s, loop {events / loop_s:12,.0f}/s, "
              f"ratio {loop_s / package_s:5.2f}; cost package {run.expected_cost:.4f}, loop {cost:.4f} "
              f"({events:,} events)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies the work of every row (default 1)")
    parser.add_argument("--only", choices=("algorithm1", "partitioning"), help="run one group of rows")
    scale = parser.parse_args().scale
    only = parser.parse_args().only
    if only != "partitioning":
        algorithm1_rows(int(1_000_000 * scale))
    if only != "algorithm1":
        partitioning_rows(200_000.0 * scale)


if __name__ == "__main__":
    main()
