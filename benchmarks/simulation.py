"""Speed of simulate_moldable against a minimal pure-Python heap loop measured in the same run.

Run as ``python benchmarks/simulation.py`` (about a minute; ``--jobs`` sets the jobs per run of
simulate_moldable, default 5·10⁶ as one run of the paper's Section 7).

Baseline: the smallest correct event loop of an M/M/800/800 loss system in Python — departures in a
``heapq``, interarrival and service times drawn with numpy beforehand — at the offered load of
Table 1's linear Halfin–Whitt row (800 λ Erlangs, λ = 1 - 0.1/√4000). Against it: one 5·10⁶-job
replication of simulate_moldable on one core for each Table 1 row (exponential sizes) and each size
law on the sub-linear Halfin–Whitt row, in jobs per second and as a ratio to the baseline (the
target is a ratio of at least 1). For context, Ciw and SimPy (if installed) simulate the same
M/M/800/800 system for a few thousand jobs. The last line extrapolates the whole of Table 1 at the
paper's scale (6 rows × 4 laws × 100 runs × 5·10⁶ jobs) on two cores.

simulate_multiserver (Anselmi & Doncel, paper 001; :func:`multiserver_section`, alone with
``--only multiserver``): every policy at k = 1024 with the SDSC SP2 classes of Table 2 at load 0.8,
one run of ``--multiserver-jobs`` jobs (default 10⁶) on one core, in jobs per second and as a ratio
to the same baseline. The targets, 5·10⁵ jobs/s for the non-preemptive policies and 10⁵ for the
preemptive ones on an idle core, are ratios 0.25 and 0.05 to the baseline's 2·10⁶ jobs/s there. Then
Figure 1 of the paper at its scale (10⁶ arrivals per point), from rates measured at its largest k.

Against plain compiled loops (:func:`reference_section`, alone with ``--only reference``): every
policy but MaxWeight beside the plain numba loop of the same policy in
``benchmarks/reference_multiserver.py`` (equal work: the same arrivals counted after the same
warm-up, exponential sizes), at k = 2048, load 0.8 with the classes of Figure 1 at its need scale
f_2048 = 16 (needs 16, 32, 64, 128) and at k = 16, load 0.9 with the unscaled Figure 1 classes
(needs 1, 2, 4, 8). Package and loop alternate, best of three, ``--reference-jobs`` arrivals each
(default 10⁶); the table gives jobs per second of both, their ratio (target >= 1) and both mean
response times (the package's with its 95 % half-width; one run each, so at k = 16, load 0.9, where
BS-FCFS's E[R] varies by about 16 % between seeds, the two may differ by more than that half-width
without either being wrong: ``benchmarks/reference_multiserver.py``). ``--only engines`` (also part of the full
run): Algorithm 1 of Bonald & Comte and the DGP, ADGP and Max-Weight simulators of Ghaderi et al.
against their plain loops (``benchmarks/simulation_engines.py``).
"""

from __future__ import annotations

import argparse
import heapq
import time

import numpy as np

from analytic.moldable import simulate_moldable, traffic
from analytic.moldable.paper import LINEAR, REGIMES, SUBLINEAR, TABLE1_SERVERS
from analytic.simulation import SerialExecutor
from analytic.splitting import POLICIES, SDSC_SP2, critical_system, figure1_classes, figure1_need_scale, simulate_multiserver

try:  # run as a script from the repository root or from benchmarks/
    from benchmarks.reference_multiserver import reference
except ImportError:
    from reference_multiserver import reference

SLOTS = 800
LOAD = SLOTS * float(traffic(TABLE1_SERVERS, 0.5, 0.1))        # Erlangs: unit-mean service, rate 800 λ


def python_heap_loop(jobs: int, seed: int = 0) -> tuple[float, float]:
    """Blocking of M/M/800/800 by a minimal heapq loop, and its jobs per second (drawing included)."""
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    interarrivals = rng.exponential(1.0 / LOAD, jobs).tolist()
    services = rng.exponential(1.0, jobs).tolist()
    departures: list[float] = []
    clock, blocked = 0.0, 0
    for gap, service in zip(interarrivals, services, strict=True):
        clock += gap
        while departures and departures[0] <= clock:
            heapq.heappop(departures)
        if len(departures) < SLOTS:
            heapq.heappush(departures, clock + service)
        else:
            blocked += 1
    return blocked / jobs, jobs / (time.perf_counter() - start)


def ciw_rate(jobs: int) -> float | None:
    """Jobs per second of Ciw on M/M/800/800 (None if Ciw is not installed)."""
    try:
        import ciw
    except ImportError:
        return None
    network = ciw.create_network(arrival_distributions=[ciw.dists.Exponential(LOAD)],
                                 service_distributions=[ciw.dists.Exponential(1.0)], number_of_servers=[SLOTS],
                                 queue_capacities=[0])
    ciw.seed(0)
    start = time.perf_counter()
    simulation = ciw.Simulation(network)
    simulation.simulate_until_max_time(jobs / LOAD)
    return len(simulation.get_all_records()) / (time.perf_counter() - start)


def simpy_rate(jobs: int) -> float | None:
    """Jobs per second of SimPy on M/M/800/800 (None if SimPy is not installed)."""
    try:
        import simpy
    except ImportError:
        return None
    rng = np.random.default_rng(0)
    env = simpy.Environment()
    servers = simpy.Resource(env, capacity=SLOTS)

    def job(service):
        with servers.request() as request:
            yield request
            yield env.timeout(service)

    def source():
        for _ in range(jobs):
            yield env.timeout(rng.exponential(1.0 / LOAD))
            if servers.count < SLOTS:
                env.process(job(rng.exponential(1.0)))

    start = time.perf_counter()
    env.process(source())
    env.run()
    return jobs / (time.perf_counter() - start)


def moldable_rate(speedup, alpha, beta, size, jobs) -> tuple[float, object]:
    lam = float(traffic(TABLE1_SERVERS, alpha, beta))
    start = time.perf_counter()
    result = simulate_moldable(speedup, lam, TABLE1_SERVERS, size=size, arrivals=jobs, seed=1, executor=SerialExecutor())
    return jobs / (time.perf_counter() - start), result


#: Ratios to the baseline that the issue's targets (5e5 and 1e5 jobs/s) mean on an idle core (baseline 2e6 jobs/s).
MULTISERVER_TARGETS = {False: 0.25, True: 0.05}
#: The points of the notebook's Figure 1 (k with f_k and every need a power of two).
FIGURE1_SERVERS = (32, 256, 2048, 16384)


def multiserver_section(baseline: float, jobs: int) -> None:
    """simulate_multiserver: jobs per second of every policy at k = 1024, SDSC SP2, load 0.8; Figure 1's cost."""
    k = 1024
    rate = 0.8 * k / float(sum(c.demand for c in SDSC_SP2))
    for policy in POLICIES:  # compile, or load numba's cache
        simulate_multiserver(policy, k, SDSC_SP2, rate, arrivals=5_000, seed=0, executor=SerialExecutor())
    print(f"\nsimulate_multiserver, k = {k}, SDSC SP2 (Table 2), load 0.8, one run of {jobs:,} jobs on one core:")
    worst = {False: np.inf, True: np.inf}
    for name, policy in POLICIES.items():
        start = time.perf_counter()
        result = simulate_multiserver(name, k, SDSC_SP2, rate, arrivals=jobs, seed=1, executor=SerialExecutor())
        speed = jobs / (time.perf_counter() - start)
        ratio = speed / baseline
        worst[policy.preemptive] = min(worst[policy.preemptive], ratio)
        flag = "" if result.stationary else f"  (not stationary: {result.growth.rate:.2g} jobs per second)"
        print(f"  {name:>22}: {speed:>10,.0f} jobs/s  ratio {ratio:5.2f} (target {MULTISERVER_TARGETS[policy.preemptive]})  "
              f"E[R] = {result.mean_response_time.value:8.1f} ± {result.mean_response_time.half_width:.2g} s{flag}")
    for preemptive, label in ((False, "non-preemptive"), (True, "preemptive")):
        print(f"slowest {label} ratio: {worst[preemptive]:.2f} (target >= {MULTISERVER_TARGETS[preemptive]})")
    # Figure 1 at the paper's scale: every policy but ModifiedBS at each k, 10^6 arrivals per point
    big = FIGURE1_SERVERS[-1]
    system = critical_system(big, figure1_need_scale(big), 0.7, figure1_classes())
    sample = max(jobs // 5, 20_000)
    total = 0.0
    for name in POLICIES:
        if name == "modified-bs-fcfs":
            continue
        start = time.perf_counter()
        simulate_multiserver(name, big, system.classes, system.arrival_rate, arrivals=sample, seed=1, executor=SerialExecutor())
        total += (time.perf_counter() - start) / sample * 1_000_000 * len(FIGURE1_SERVERS)
    print(f"Figure 1 at the paper's scale ({len(FIGURE1_SERVERS)} values of k x 9 policies x 10^6 arrivals), "
          f"at the rates of k = {big}: about {total / 60:.0f} minutes on one core")


#: The points of the comparison with the plain loops: (k, load, classes).
REFERENCE_POINTS = ((2048, 0.8, figure1_classes(figure1_need_scale(2048))), (16, 0.9, figure1_classes(1)))


def reference_section(jobs: int, policies: tuple[str, ...] | None = None) -> dict:
    """simulate_multiserver against the plain loop of each policy: best of three alternated runs of equal work."""
    names = policies or tuple(name for name in POLICIES if name != "maxweight")
    table = {}
    for k, load, classes in REFERENCE_POINTS:
        rate = load * k / float(sum(c.demand for c in classes))
        warmup = jobs // 10
        print(f"\nsimulate_multiserver against a plain compiled loop, k = {k}, load {load}, needs "
              f"{[c.need for c in classes]}, {jobs:,} arrivals (warm-up {warmup:,}), best of 3 alternated:")
        print(f"  {'policy':>22}  {'package jobs/s':>14}  {'loop jobs/s':>12}  {'ratio':>5}  {'E[R] package':>20}  "
              f"{'E[R] loop':>9}")
        for name in names:
            simulate_multiserver(name, k, classes, rate, arrivals=5_000, seed=0, executor=SerialExecutor())  # compile
            reference(name, k, rate, classes, 5_000, 500, 0)
            package_time = loop_time = np.inf
            for repeat in range(3):
                start = time.perf_counter()
                result = simulate_multiserver(name, k, classes, rate, arrivals=jobs, seed=repeat + 1, executor=SerialExecutor())
                package_time = min(package_time, time.perf_counter() - start)
                start = time.perf_counter()
                loop_mean, _ = reference(name, k, rate, classes, jobs, warmup, repeat + 1)
                loop_time = min(loop_time, time.perf_counter() - start)
            ratio = loop_time / package_time
            table[k, name] = ratio
            print(f"  {name:>22}  {jobs / package_time:>14,.0f}  {jobs / loop_time:>12,.0f}  {ratio:5.2f}  "
                  f"{result.mean_response_time.value:>10.4f} ± {result.mean_response_time.half_width:<7.2g}  {loop_mean:9.4f}")
    print(f"slowest ratio: {min(table.values()):.2f} (target >= 1)")
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=5_000_000, help="jobs per simulate_moldable run")
    parser.add_argument("--baseline-jobs", type=int, default=1_000_000)
    parser.add_argument("--multiserver-jobs", type=int, default=1_000_000, help="jobs per simulate_multiserver run")
    parser.add_argument("--reference-jobs", type=int, default=1_000_000, help="arrivals per run against the plain loops")
    parser.add_argument("--policies", nargs="*", help="policies of the comparison with the plain loops (default all)")
    parser.add_argument("--only", choices=("moldable", "multiserver", "reference", "engines"), help="run one section")
    args = parser.parse_args()
    if args.only == "reference":
        reference_section(args.reference_jobs, tuple(args.policies or ()))
        return
    if args.only == "engines":
        engines_section()
        return

    start = time.perf_counter()
    simulate_moldable(SUBLINEAR, 0.8, 40, arrivals=10_000, seed=0, executor=SerialExecutor())
    print(f"first call (numba compiles or loads its cache): {time.perf_counter() - start:.2f} s")

    blocking, baseline = python_heap_loop(args.baseline_jobs)
    print(f"baseline: pure-Python heapq loop, M/M/{SLOTS}/{SLOTS} at {LOAD:.1f} Erlangs: {baseline:,.0f} jobs/s "
          f"(blocking {blocking:.4f})")
    for name, rate in (("Ciw", ciw_rate(20_000)), ("SimPy", simpy_rate(50_000))):
        if rate is not None:
            print(f"context: {name} on the same system: {rate:,.0f} jobs/s (ratio to the baseline {rate / baseline:.3f})")
    if args.only == "multiserver":
        multiserver_section(baseline, args.multiserver_jobs)
        return

    print(f"\nsimulate_moldable, n = {TABLE1_SERVERS}, one run of {args.jobs:,} jobs on one core:")
    rates = []
    cases = [(label, speedup, alpha, beta, "exponential") for label, speedup in (("linear", LINEAR), ("sub-linear", SUBLINEAR))
             for alpha, beta in REGIMES]
    cases += [("sub-linear", SUBLINEAR, 0.5, 0.1, law) for law in ("deterministic", "mixed_erlang", "pareto")]
    for label, speedup, alpha, beta, size in cases:
        rate, result = moldable_rate(speedup, alpha, beta, size, args.jobs)
        rates.append(rate)
        print(f"  {label:>10}, α = {alpha:.3g}, {size:>13}: {rate:>12,.0f} jobs/s  ratio {rate / baseline:5.2f}   "
              f"P_b = {result.blocking.value:.5f} ± {result.blocking.half_width:.1g}, "
              f"E[D] = {result.mean_response_time.value:.5f} ± {result.mean_response_time.half_width:.1g}")
    slowest = min(rates)
    print(f"\nslowest ratio to the baseline: {slowest / baseline:.2f} (target >= 1)")
    table = 6 * 4 * 100 * 5_000_000
    print(f"Table 1 at the paper's scale ({table:.1e} jobs) on two cores at the median rate: "
          f"{table / (2 * float(np.median(rates))) / 60:.0f} minutes")
    if args.only is None:
        multiserver_section(baseline, args.multiserver_jobs)
        reference_section(args.reference_jobs, tuple(args.policies or ()))
        engines_section()


def engines_section() -> None:
    """Algorithm 1 of Bonald & Comte and the partitioning simulators against their plain loops
    (benchmarks/simulation_engines.py, beside this file)."""
    from simulation_engines import algorithm1_rows, partitioning_rows

    algorithm1_rows(1_000_000)
    partitioning_rows(200_000.0)


if __name__ == "__main__":
    main()
