"""Speed and accuracy of analytic.fairness (Bonald & Comte, balanced fairness), against baselines run here.

Targets of the issue: recursion (4) on 10^6 lattice points in about a second; balanced_fairness
practical to N = 20 classes; random assignment with S = 100, d = 2 and 3 in well under a second;
stability decided in polynomial time, fast for N in the thousands; the simulator fast enough for
Figures 1-4 at 10^6 jobs per point. Baselines, measured in the same run:

- recursion (4) written as a plain Python dict over tuples (the textbook implementation);
- the subset recursion as a plain Python loop over the 2^N sets;
- balanced_fairness on the C(S, d) explicit classes (the only other exact route to Figures 3-4);
- brute force over the 2^N sets for Theorem 1;
- Algorithm 1 written literally from the paper's pseudo-code in pure Python (per-server timers
  a_s, t_s; the queue as a Python list), on the three-server system.

Accuracy: each fast path against its baseline, and the simulator's estimates against the exact
values. Run: python benchmarks/fairness.py; ``--random-assignment-scale`` times random_assignment alone at
S = 10^4..7.3·10^6 against the previous per-level numpy loop.
"""

import itertools
import math
import random
import sys
import time
from fractions import Fraction

import numpy as np

from analytic.fairness import (
    CompatibilityGraph,
    balance_function,
    balanced_fairness,
    random_assignment,
    random_assignment_graph,
    service_rate,
    simulate_interruptions,
    simulate_random_assignment,
    stability,
    three_server_graph,
)


def seconds(function, repeat=3):
    best, result = math.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def plain_recursion(graph, rates, max_jobs):
    """q(x) = Φ(x) Π λ^x by recursion (4), a dict over tuples, level by level."""
    n = graph.n_classes
    q = {(0,) * n: 1.0}
    for level in range(1, max_jobs + 1):
        for x in itertools.product(range(level + 1), repeat=n):
            if sum(x) != level:
                continue
            active = [i for i in range(n) if x[i]]
            total = sum(rates[i] * q[tuple(x[j] - (j == i) for j in range(n))] for i in active)
            q[x] = total / service_rate(graph, active)
    return q


def plain_subsets(graph, rates):
    """The subset recursion of analytic.fairness.subsets, one set at a time in Python."""
    n = graph.n_classes
    g, h = {0: 1.0}, {0: [0.0] * n}
    for mask in range(1, 2 ** n):
        members = [i for i in range(n) if mask >> i & 1]
        slack = service_rate(graph, members) - sum(rates[i] for i in members)
        g[mask] = sum(rates[i] * g[mask ^ (1 << i)] for i in members) / slack
        h[mask] = [(sum(rates[i] * h[mask ^ (1 << i)][j] for i in members)
                    + (rates[j] * (g[mask] + g[mask ^ (1 << j)]) if j in members else 0.0)) / slack for j in range(n)]
    total = sum(g.values())
    return [sum(h[m][j] for m in h) / total for j in range(n)]


def pseudo_code_simulation(capacities, sets, rates, m, jobs, seed):
    """Algorithm 1 as printed: a_s, t_s per server, exponential timers of rate C_s/θ, exponential sizes of mean 1.

    Returns the time-average number of jobs of class 0 after a tenth of the arrivals.
    """
    rng = random.Random(seed)
    theta = 1.0 / m if m > 0 else math.inf
    queue = []                      # [class, remaining work] in queue order
    holder = [None] * len(capacities)
    t, area, since, warm, arrivals = 0.0, 0.0, 0.0, jobs // 10, 0
    total_rate = sum(rates)
    next_arrival = rng.expovariate(total_rate)

    def allocate():
        for s in range(len(capacities)):
            holder[s] = next((job for job in queue if s in sets[job[0]]), None)

    while arrivals < jobs:
        served = {}
        for s, job in enumerate(holder):
            if job is not None:
                served[id(job)] = served.get(id(job), 0.0) + capacities[s]
        in_service = [job for job in queue if id(job) in served]
        finishing = min(in_service, key=lambda job: job[1] / served[id(job)], default=None)
        completion = finishing[1] / served[id(finishing)] if finishing is not None else math.inf
        timer_rate = sum(capacities[s] for s, job in enumerate(holder) if job is not None) / theta
        timer = rng.expovariate(timer_rate) if timer_rate > 0 else math.inf
        step = min(next_arrival - t, completion, timer)
        if arrivals >= warm:
            area += sum(job[0] == 0 for job in queue) * step
            since += step
        for job in in_service:
            job[1] -= served[id(job)] * step
        t += step
        if step == completion:
            queue.remove(finishing)
        elif step == timer:
            pick = rng.random() * timer_rate * theta
            for s, job in enumerate(holder):
                if job is not None:
                    pick -= capacities[s]
                    if pick <= 0:
                        queue.remove(job)
                        queue.append(job)
                        break
        else:
            cls = 0 if rng.random() < rates[0] / total_rate else 1
            queue.append([cls, rng.expovariate(1.0)])
            arrivals += 1
            next_arrival = t + rng.expovariate(total_rate)
        allocate()
    return area / since


def lattice():
    print("Recursion (4) on the lattice {x : Σx <= n} (three-server graph, λ = (1.2, 0.9))")
    graph, rates = three_server_graph(), [1.2, 0.9]
    plain_time, plain = seconds(lambda: plain_recursion(graph, rates, 140), repeat=1)
    small = balance_function(graph, rates, 140)
    error = max(abs(math.exp(small.log_measure[small.lattice.index(np.array(x))]) / v - 1) for x, v in plain.items())
    print(f"  plain dict recursion, {len(plain):,} points: {plain_time:.2f} s ({len(plain) / plain_time:,.0f} points/s); "
          f"max relative gap to balance_function {error:.1e}")
    for n, classes in ((1412, 2), (180, 3), (45, 5)):
        big_graph = graph if classes == 2 else CompatibilityGraph([[i, classes] for i in range(classes)])
        took, phi = seconds(lambda c=classes, n=n, g=big_graph: balance_function(g, np.linspace(0.3, 0.9, c), n))
        speed = len(phi.lattice) / took
        print(f"  balance_function, N = {classes}, n = {n}: {len(phi.lattice):,} points in {took:.2f} s "
              f"({speed:,.0f} points/s, {speed / (len(plain) / plain_time):.0f}x the plain loop)")


def subsets():
    print("Subset recursion (balanced_fairness, no truncation)")
    rng = np.random.default_rng(1)
    graph = CompatibilityGraph([list(rng.choice(12, 3, replace=False)) for _ in range(12)])
    rates = np.full(12, 0.25)
    plain_time, plain = seconds(lambda: plain_subsets(graph, rates), repeat=1)
    fast_time, fast = seconds(lambda: balanced_fairness(graph, rates))
    print(f"  N = 12: plain Python {plain_time:.2f} s, balanced_fairness {fast_time:.3f} s ({plain_time / fast_time:.0f}x); "
          f"max relative gap {np.abs(np.array(plain) / fast.mean_jobs - 1).max():.1e}")
    for n in (16, 20):
        graph = CompatibilityGraph([list(rng.choice(30, 3, replace=False)) for _ in range(n)])
        took, _ = seconds(lambda g=graph, n=n: balanced_fairness(g, np.full(n, 0.3)), repeat=1)
        print(f"  N = {n} ({2 ** n:,} sets): {took:.2f} s")


def random_assignments():
    print("Random assignment (Figures 3-4)")
    graph = random_assignment_graph(6, 2)
    explicit_time, explicit = seconds(lambda: balanced_fairness(graph, np.full(15, 4.8 / 15)))
    fast_time, fast = seconds(lambda: random_assignment(6, 2, 4.8))
    print(f"  S = 6, d = 2 (15 classes): explicit {explicit_time * 1e3:.1f} ms, coverage recursion {fast_time * 1e3:.2f} ms; "
          f"relative gap {abs(fast.mean_response_time / explicit.mean_response_time[0] - 1):.1e}")
    took, _ = seconds(lambda: [random_assignment(100, d, 100 * rho) for d in (2, 3) for rho in np.linspace(0.05, 0.95, 19)])
    print(f"  S = 100, d = 2 and 3, 19 loads each (38 systems of 4 950 and 161 700 classes): {took:.3f} s")


def stability_lp():
    print("Theorem 1: LP + minimum cut against brute force over the 2^N sets")
    rng = np.random.default_rng(2)
    n = 16
    graph = CompatibilityGraph([list(rng.choice(10, 3, replace=False)) for _ in range(n)])
    rates = rng.uniform(0, 0.5, n)
    brute_time, brute = seconds(lambda: max(rates[list(a)].sum() / service_rate(graph, a) for k in range(1, n + 1)
                                            for a in itertools.combinations(range(n), k)), repeat=1)
    lp_time, lp = seconds(lambda: stability(graph, rates))
    print(f"  N = {n}: brute force {brute_time:.2f} s, LP {lp_time * 1e3:.1f} ms; |Δ load| = {abs(lp.load - brute):.1e}")
    for n, s in ((1000, 300), (3000, 1000), (10000, 3000)):
        graph = CompatibilityGraph([list(rng.choice(s, 3, replace=False)) for _ in range(n)], rng.uniform(0.5, 2, s))
        took, result = seconds(lambda g=graph, n=n: stability(g, rng.uniform(0, 0.6, n)), repeat=1)
        print(f"  N = {n}, S = {s}: {took:.2f} s (load {result.load:.3f}, bottleneck of {len(result.bottleneck)} classes)")


def simulator():
    print("Algorithm 1 simulated (jobs per second of CPU)")
    graph, rates = three_server_graph(), [1.0, 1.0]
    exact = balanced_fairness(graph, rates).mean_jobs[0]
    simulate_interruptions(graph, rates, interruptions=1.0, arrivals=10_000, seed=0)        # compile
    simulate_random_assignment(100, 2, 60.0, interruptions=1.0, arrivals=10_000, seed=0)
    plain_jobs = 20_000
    start = time.process_time()
    plain = pseudo_code_simulation([1.0, 1.0, 1.0], [{0, 2}, {1, 2}], rates, 1.0, plain_jobs, 3)
    plain_rate = plain_jobs / (time.process_time() - start)
    print(f"  pseudo-code in pure Python, 3 servers, m = 1: {plain_rate:,.0f} jobs/s; E[x_0] = {plain:.3f} (exact {exact:.3f})")
    for m in (0.0, 1.0, 5.0):
        start = time.process_time()
        sim = simulate_interruptions(graph, rates, interruptions=m, arrivals=1_000_000, seed=1)
        rate = 1e6 / (time.process_time() - start)
        print(f"  simulate_interruptions, 3 servers, m = {m:g}: {rate:,.0f} jobs/s ({rate / plain_rate:.0f}x); "
              f"E[x_0] = {sim.mean_jobs[0]:.4f} (exact {exact:.4f})")
    for d in (2, 3):
        exact_response_time = random_assignment(100, d, 80.0).mean_response_time
        for m in (0.0, 1.0, 5.0):
            start = time.process_time()
            sim = simulate_random_assignment(100, d, 80.0, interruptions=m, arrivals=1_000_000, seed=1)
            rate = 1e6 / (time.process_time() - start)
            print(f"  simulate_random_assignment, S = 100, d = {d}, ρ = 0.8, m = {m:g}: {rate:,.0f} jobs/s; "
                  f"δ = {sim.mean_response_time[0]:.4f} (exact, exponential sizes {exact_response_time:.4f})")


def random_assignment_scale():
    """random_assignment at S = 10^4..7.3·10^6 (d = 2, ρ = 0.9), and the per-level cost of the previous
    implementation (numpy operations per level: the hypergeometric law, indexed updates, C(u, d)/C(S, d) as a
    Fraction) timed here on S = 10^4."""
    print("Random assignment, large S (d = 2, ρ = 0.9)")
    random_assignment(10, 2, 5.0)                                                   # compile
    old_time, _ = seconds(lambda: per_level_numpy(10**4, 2, 0.9e4), repeat=1)
    old_level = old_time / 10**4
    print(f"  previous per-level Python loop: {old_level * 1e6:.1f} µs a level")
    for s in (10**4, 10**5, 10**6, 7_300_000):
        took, _ = seconds(lambda s=s: random_assignment(s, 2, 0.9 * s), repeat=3 if s <= 10**6 else 1)
        print(f"  S = {s:,}: {took:.3f} s, {took / s * 1e9:.0f} ns a level ({old_level * s / took:.0f}x the previous loop)")


def per_level_numpy(s, k, work):
    """E[jobs] by the coverage recursion written per level in numpy, rescaled over all S + 1 values (the previous
    random_assignment, for the comparison)."""
    weights, first_moment = np.zeros(s + 1), np.zeros(s + 1)
    weights[0] = 1.0
    total = math.comb(s, k)
    for v in [0, *range(k, s + 1)]:
        if v > 0:
            stay = work * float(Fraction(math.comb(v, k), total)) / v
            weights[v] /= 1 - stay
            first_moment[v] = (first_moment[v] + weights[v] * stay) / (1 - stay)
        j = np.arange(max(0, k - (s - v)), min(k, v) + 1)
        law = np.array([math.comb(v, i) * math.comb(s - v, k - i) for i in j.tolist()], dtype=float)
        law, j = law[j < k] / law.sum(), j[j < k]
        step = law * (work if v > 0 else 1.0) / (v + k - j)
        weights[v + k - j] += weights[v] * step
        first_moment[v + k - j] += (first_moment[v] + weights[v]) * step
        if max(weights[v], weights[v + k - j].max(initial=0.0)) > 1e200:
            shift = -int(np.frexp(weights.max())[1])
            weights, first_moment = np.ldexp(weights, shift), np.ldexp(first_moment, shift)
    return work * first_moment.sum() / (weights[0] + work * weights[1:].sum())


def main():
    if "--random-assignment-scale" in sys.argv:
        random_assignment_scale()
        return
    lattice()
    subsets()
    random_assignments()
    stability_lp()
    simulator()


if __name__ == "__main__":
    main()
