"""Speed and accuracy of analytic.hesrpt (Berg, Vesilo & Harchol-Balter, heSRPT).

Targets of the issue: hesrpt_flow_time in O(M log M), at least 10^5 jobs in under a second; the
Figure 4 evaluation (N = 10^6, M = 500, 10 sets, five p, five policies) in under a minute.
Baselines are measured in the same run:
- Theorem 8 written as a plain Python loop over the sorted sizes (the textbook implementation);
- the Figure 4 policies evaluated one set of sizes at a time through the public flow_time and
  knee_search (no batching across sets), for one p, against the batched compare_policies.
Accuracy: total and completion times against mpmath at 50 digits.

Run: python benchmarks/hesrpt.py
"""

import math
import resource
import time

import mpmath

from analytic.hesrpt import (
    compare_policies,
    flow_time,
    hesrpt_flow_time,
    knee_search,
    optimal_allocation,
    pareto_sizes,
)
from analytic.speedup import SpeedupCurve


def seconds(function, repeat=3):
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def theorem8_loop(sizes, p, servers):
    """Theorem 8 as printed, one job at a time in Python."""
    ranked = sorted(sizes, reverse=True)
    total = 0.0
    for k, x in enumerate(ranked, start=1):
        omega = 0.0 if k == 1 else 1.0 / ((k / (k - 1)) ** (1.0 / (1.0 - p)) - 1.0)
        total += x * (k * (1.0 + omega) ** p - (k - 1) * omega ** p)
    return total / servers ** p


def mp_completion_times(sizes, p, servers):
    """Completion times from the phase durations of Theorem 7's allocation, at 50 digits."""
    mpmath.mp.dps = 50
    p = mpmath.mpf(p)
    c = 1 / (1 - p)
    order = sorted(range(len(sizes)), key=lambda j: -sizes[j])
    x = [mpmath.mpf(float(sizes[j])) for j in order]
    m = len(x)
    share = [[((mpmath.mpf(i) / j) ** c - (mpmath.mpf(i - 1) / j) ** c) for i in range(1, j + 1)] for j in range(m + 1)]
    durations = [mpmath.mpf(0)] * (m + 1)
    for job in range(m, 0, -1):  # job `job` (job-th largest) ends when `job` jobs are left
        done = mpmath.fsum(durations[j] * (servers * share[j][job - 1]) ** p for j in range(job + 1, m + 1))
        durations[job] = (x[job - 1] - done) / (servers * share[job][job - 1]) ** p
    finish = [mpmath.fsum(durations[job:]) for job in range(m + 1)]
    result = [0.0] * m
    for rank, j in enumerate(order, start=1):
        result[j] = finish[rank]
    return result, mpmath.fsum(finish[1:])


def main():
    print("hesrpt_flow_time (Theorem 8 and every completion time), p = 0.5, N = 1e6")
    print(f"{'M':>9} {'seconds':>10} {'plain loop s':>13} {'speed-up':>9}")
    for jobs in (10**3, 10**4, 10**5, 10**6):
        sizes = pareto_sizes(jobs, 1.5, seed=0)
        fast = seconds(lambda sizes=sizes: hesrpt_flow_time(sizes, 0.5, 1e6))
        if jobs <= 10**5:
            plain = seconds(lambda sizes=sizes: theorem8_loop(sizes.tolist(), 0.5, 1e6), repeat=1)
            print(f"{jobs:>9} {fast:>10.4f} {plain:>13.4f} {plain / fast:>8.1f}x")
        else:
            print(f"{jobs:>9} {fast:>10.4f} {'-':>13} {'-':>9}")

    print("\naccuracy against mpmath (50 digits), 300 Pareto(1.5) jobs, N = 1e6")
    for p in (0.05, 0.5, 0.99, 0.9999):
        sizes = pareto_sizes(300, 1.5, seed=2)
        result = hesrpt_flow_time(sizes, p, 1e6)
        reference, total = mp_completion_times(sizes, p, 1e6)
        worst = max(abs(a / float(b) - 1) for a, b in zip(result.completion_times, reference, strict=True))
        print(f"  p = {p:<5} total rel. error {abs(result.total / float(total) - 1):.1e}, "
              f"worst completion time {worst:.1e}")

    print("\nFigure 4 (N = 1e6, M = 500 Pareto(1.5), 10 sets, p in {0.05, 0.3, 0.5, 0.9, 0.99})")
    start = time.perf_counter()
    figure = compare_policies()
    full = time.perf_counter() - start
    print(f"  batched compare_policies: {full:.1f} s (target < 60 s)")
    print("  median mean flow time / heSRPT:")
    print("  " + " ".join(f"{name:>8}" for name in ("p", *figure.policies)))
    for p, row in zip(figure.p, figure.ratio(), strict=True):
        print("  " + " ".join([f"{p:>8g}"] + [f"{value:>8.4f}" for value in row]))

    p = 0.5
    start = time.perf_counter()
    compare_policies(exponents=(p,))
    batched = time.perf_counter() - start
    start = time.perf_counter()
    for seed in range(10):
        sizes = pareto_sizes(500, 1.5, seed)
        hesrpt_flow_time(sizes, p, 10**6)
        for policy in ("srpt", "equi", "hell"):
            flow_time(sizes, policy, p, 10**6)
        knee_search(sizes, p, 10**6)
    separate = time.perf_counter() - start
    print(f"  one p ({p}): batched {batched:.1f} s, one set at a time {separate:.1f} s, "
          f"speed-up {separate / batched:.1f}x")

    print("\noptimal_allocation (general concave speed-up), Amdahl f = 0.9, N = 100")
    for jobs in (8, 50, 200):
        sizes = pareto_sizes(jobs, 1.5, seed=1)
        took = seconds(lambda sizes=sizes: optimal_allocation(sizes, SpeedupCurve.amdahl(0.9), 100.0), repeat=1)
        print(f"  M = {jobs:>4}: {took:.3f} s")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak resident memory {peak:.0f} MB")


if __name__ == "__main__":
    main()
