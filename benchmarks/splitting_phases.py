"""The cost of phases in the multiserver-job chains of Anselmi & Doncel (analytic.splitting.chains).

The same systems solved with exponential, Erlang-2 (scv 1/2) and hyperexponential H2 (scv 4, the
balanced-means fit of ``fitted(d, 2 d)``) service times of the same means, every class with the
same family: states, seconds to build the chain, seconds to solve it (``stationary()``, method
"auto"), and their ratios to the exponential chain measured in the same run, with E[R] and the
fraction of arrivals lost at the truncation (the phase-type laws change the queue, so the same
``max_waiting`` is more or less deep: compare the lost fractions). ``fcfs_bounds`` is timed on the
FCFS systems too, as the certified counterpart with no truncation error.

Classes: needs 1 and 2, probabilities 0.6 and 0.4, means 1 and 1.5 (``TWO`` of the tests), at
load 0.5: k = 4 and 8 for FCFS (lumped chain), k = 4 and 6 for Most Servers First (with phases its
state records the phases of the started jobs of each class in age order, since a preempted job
keeps its phase and the youngest is preempted: up to m_i^⌊k/n_i⌋ sequences per count), k = 5 and 8
for BS-FCFS (its sequence chain grows like 2^q in the waiting jobs, hence its small ``max_waiting``).
The ``fcfs_bounds`` rows show the kept states, the seconds, the upper end of the E[R] interval
and the interval's relative width in the last column.

Run: ``python benchmarks/splitting_phases.py`` (about half a minute).
"""

from __future__ import annotations

import time

from analytic.simulation import erlang, exponential, fitted
from analytic.splitting import RigidClass, fcfs_bounds
from analytic.splitting.chains import ExactSystem, read_metrics

SPECS = ((1, 0.6, 1.0), (2, 0.4, 1.5))
LAWS = {"exponential": exponential, "Erlang-2": lambda mean: erlang(2, mean), "H2 (scv 4)": lambda mean: fitted(mean, 2 * mean)}
#: (policy, k, max_waiting)
SYSTEMS = [("fcfs", 4, 150), ("fcfs", 8, 150), ("msf", 4, 20), ("msf", 6, 10), ("bs-fcfs", 5, 8), ("bs-fcfs", 8, 6)]
LOAD = 0.5


def classes(law):
    return [RigidClass(n, p, d, size=law(d)) for n, p, d in SPECS]


def rate_at(k, job_classes):
    return LOAD * k / float(sum(c.demand for c in job_classes))


def measure(policy, k, depth, law):
    job_classes = classes(law)
    rate = rate_at(k, job_classes)
    system = ExactSystem.build(policy, k, job_classes, rate, depth, None, 5_000_000)
    start = time.perf_counter()
    chain = system.chain(5_000_000)
    built = time.perf_counter() - start
    start = time.perf_counter()
    pi = chain.stationary()
    solved = time.perf_counter() - start
    metrics = read_metrics(system, pi, chain.n_states)
    return chain.n_states, built, solved, metrics.mean_response_time, metrics.lost_fraction


def main() -> None:
    measure("fcfs", 2, 5, LAWS["Erlang-2"])            # compile the solver's numba kernels outside the table
    header = (f"{'system':24} {'sizes':12} {'states':>9} {'x exp':>6} {'build s':>8} {'solve s':>8} {'x exp':>6} "
              f"{'E[R]':>10} {'lost':>9}")
    print(header)
    print("-" * len(header))
    for policy, k, depth in SYSTEMS:
        base = None
        for name, law in LAWS.items():
            states, built, solved, response, lost = measure(policy, k, depth, law)
            base = base or (states, built + solved)
            label = f"{policy}, k={k}, q<={depth}"
            print(f"{label:24} {name:12} {states:9,} {states / base[0]:6.1f} {built:8.2f} {solved:8.2f} "
                  f"{(built + solved) / base[1]:6.1f} {response:10.6f} {lost:9.2e}")
        print()
    print("fcfs_bounds (certified, width 1e-8): kept states, seconds, upper end of E[R], width")
    for k in (4, 8):
        base = None
        for name, law in LAWS.items():
            job_classes = classes(law)
            start = time.perf_counter()
            bounds = fcfs_bounds(k, job_classes, rate_at(k, job_classes))
            seconds = time.perf_counter() - start
            base = base or (bounds.n_states, seconds)
            print(f"{f'fcfs, k={k}':24} {name:12} {bounds.n_states:9,} {bounds.n_states / base[0]:6.1f} {seconds:8.2f} "
                  f"{'':8} {seconds / base[1]:6.1f} {bounds.response_time[1]:10.6f} {bounds.relative_width:9.2e}")


if __name__ == "__main__":
    main()
