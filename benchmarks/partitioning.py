"""Speed of analytic.partitioning (Ghaderi, Shakkottai & Srikant) against baselines measured in the same run.

- Configurations: the reduced enumeration (count vectors of template classes up to identical
  machines) against listing every configuration as a set of explicit templates (the brute force of
  tests/partitioning/test_bruteforce.py), on 3 machines x 3 slots with a 3-node path; then the
  reduced enumeration alone on larger clusters, where listing is out of reach.
- DGP-bar's chain: lumped by slots and machines against the paper's chain of explicit templates
  (built and solved), same cluster.
- The DGP event loop compiled by numba against the same code run in Python (NUMBA_DISABLE_JIT=1, in a
  subprocess), events per second.

Run: PYTHONPATH=. python benchmarks/partitioning.py
"""

import itertools
import os
import subprocess
import sys
import time
from pathlib import Path

from analytic.partitioning import Cluster, configurations, dgp_chain, simulate_dgp
from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB, SMALL_CLUSTER, SMALL_JOB, TRIANGLE

ROOT = Path(__file__).parent.parent


def seconds(function, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def listed(cluster, job):
    every = list(itertools.permutations(range(cluster.total_slots), job.nodes))
    found = []

    def grow(start, chosen, used):
        found.append(chosen)
        for i in range(start, len(every)):
            if used.isdisjoint(every[i]):
                grow(i + 1, (*chosen, every[i]), used | set(every[i]))

    grow(0, (), frozenset())
    return found


def main():
    print("configurations")
    nine = Cluster([3, 3, 3])
    brute = seconds(lambda: listed(nine, SMALL_JOB), 1)
    reduced = seconds(lambda: configurations(nine, SMALL_JOB))
    print(f"  3 x 3 slots, path: listing {len(listed(nine, SMALL_JOB)):,} configurations {brute:.3f} s, "
          f"reduced ({len(configurations(nine, SMALL_JOB))} states) {reduced:.4f} s: {brute / reduced:.0f}x")
    for cluster, jobs in ((FIGURE1_CLUSTER, [FIGURE1_JOB]), (Cluster([4, 4, 4, 4]), [FIGURE1_JOB, TRIANGLE]),
                          (Cluster([5, 5, 5, 5]), [FIGURE1_JOB, TRIANGLE])):
        start = time.perf_counter()
        space = configurations(cluster, jobs)
        print(f"  {cluster}, {len(jobs)} type(s): {len(space):,} states for {space.configuration_count:.3e} configurations "
              f"in {time.perf_counter() - start:.2f} s")
    print("DGP-bar's chain, built and solved")
    full = seconds(lambda: dgp_chain(SMALL_CLUSTER, SMALL_JOB, 1.0, 0.5, reduce="none").stationary(), 1)
    lumped = seconds(lambda: dgp_chain(SMALL_CLUSTER, SMALL_JOB, 1.0, 0.5).stationary())
    print(f"  explicit templates {full:.3f} s, lumped {lumped:.4f} s: {full / lumped:.0f}x")
    print("DGP event loop (Figure 1, α = β = 0.5, f = log, h = 1, time 2000)")
    code = ("import time; from analytic.partitioning import simulate_dgp\n"
            "from analytic.partitioning.paper import FIGURE1_CLUSTER as C, FIGURE1_JOB as J\n"
            "simulate_dgp(C, J, 0.5, 0.5, b=0.0, h=1.0, time=10, seed=1)\n"
            "t = time.perf_counter(); simulate_dgp(C, J, 0.5, 0.5, b=0.0, h=1.0, time=2000, seed=1)\n"
            "print(time.perf_counter() - t)")
    timings = {}
    for disable in ("0", "1"):
        env = dict(os.environ, NUMBA_DISABLE_JIT=disable, PYTHONPATH=str(ROOT))
        timings[disable] = float(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                                cwd=ROOT, check=True).stdout)
    print(f"  Python {timings['1']:.2f} s, numba {timings['0']:.4f} s: {timings['1'] / timings['0']:.0f}x")
    start = time.perf_counter()
    run = simulate_dgp(FIGURE1_CLUSTER, FIGURE1_JOB, 0.3, 0.3, b=0.0, h=1.0, time=1e6, initial_queues=[2119], seed=1)
    elapsed = time.perf_counter() - start
    print(f"  time 1e6 at β = 0.3 (about 4e6 events): {elapsed:.2f} s, cost {run.expected_cost:.4f}")


if __name__ == "__main__":
    main()
