"""How far the exact loss system of greedy(p) goes: states, seconds, memory, ratios to a plain solver.

Run as ``python benchmarks/moldable.py`` (about three minutes). ``--large 4d`` solves the
4-dimensional chain of greedy(p*) at n = 200 (about 3e6 states) and ``--large 2d`` the
2-dimensional chains of the α = 1/2 and α = 2/3 sub-linear rows of Table 1 at n = 4000 (4e6
states each); run those alone, they need several GB. ``--bounds`` computes the certified intervals
of those two cells (:func:`analytic.moldable.greedy_bounds`, a kept box of the chain) and then, as
the baseline, the whole chain, in the same run: time, peak memory, states, neglected mass, widths.
``--mass`` measures where the mass of the α = 0 (mean-field) chain lies, n = 40 to 200: the fewest
states holding all but 1e-9 and 1e-12 of it, their growth in n, and the memory of the whole solve —
what a truncated solve of Table 1's α = 0 cell at n = 4000 would have to hold (run it alone).

Chains (Ghanbarian et al., Section 7, d = 5):
* greedy(p*), sub-linear speed-up, mean-field λ = 0.8: p* on {3, 4}, coordinates 1..4 (4-D simplex);
* greedy(p*), sub-linear, Halfin–Whitt λ(n) = 1 - 0.1/√n: p* on {1, 2} (2-D simplex);
* greedy = greedy(p*), linear speed-up, d | n: one coordinate (n/5 + 1 states).

Baseline, measured in the same run: a plain implementation — states explored breadth first into a
dict, the generator assembled from Python lists, and ``scipy.sparse.linalg.spsolve`` on ``Q^T`` with
one balance equation replaced by the normalization.
"""

from __future__ import annotations

import argparse
import resource
import time
from collections import deque

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from analytic.moldable import greedy_bounds, greedy_chain, greedy_metrics, optimal_occupancy, traffic
from analytic.moldable.greedy import allocation_probabilities
from analytic.speedup import SpeedupTable

SUBLINEAR = SpeedupTable([1, 1.8, 2.5, 3, 3.4])


def peak_gb() -> float:
    """Peak resident memory of this process so far (GB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6


def plain_blocking(speedup: SpeedupTable, lam: float, n: int) -> tuple[float, int]:
    """P_b of greedy(p*) by the plain method: dict BFS over all d coordinates and spsolve."""
    p, d = optimal_occupancy(speedup, lam).p, speedup.d
    start = (0,) * d
    index, queue, rows, cols, rates = {start: 0}, deque([start]), [], [], []
    while queue:
        x = queue.popleft()
        idle = n - sum((i + 1) * c for i, c in enumerate(x))
        moves = [((*x[:i], x[i] - 1, *x[i + 1:]), speedup.values[i] * x[i]) for i in range(d) if x[i]]
        allocation = allocation_probabilities(idle, p)
        moves += [((*x[:i - 1], x[i - 1] + 1, *x[i:]), n * lam * allocation[i]) for i in range(1, d + 1) if allocation[i]]
        for y, rate in moves:
            if y not in index:
                index[y] = len(index)
                queue.append(y)
            rows.append(index[x])
            cols.append(index[y])
            rates.append(rate)
    m = len(index)
    Q = sp.coo_array((rates, (rows, cols)), shape=(m, m)).tocsr()
    Q = Q - sp.diags_array(np.asarray(Q.sum(axis=1)).ravel())
    A = Q.T.tolil()
    A[0, :] = np.ones(m)
    b = np.zeros(m)
    b[0] = 1.0
    pi = spla.spsolve(A.tocsc(), b)
    states = list(index)
    return float(sum(pi[k] for k, x in enumerate(states) if sum((i + 1) * c for i, c in enumerate(x)) == n)), m


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


def against_plain(sizes: list[int]) -> None:
    print("greedy(p*), sub-linear, λ = 0.8 (4-D chain): analytic against the plain dict + spsolve baseline")
    print(f"{'n':>5} {'states':>9} {'plain s':>9} {'analytic s':>11} {'ratio':>7} {'|ΔP_b|':>9}")
    for n in sizes:
        (plain, states), plain_s = timed(plain_blocking, SUBLINEAR, 0.8, n)
        exact, seconds = timed(greedy_metrics, SUBLINEAR, 0.8, n)
        change = abs(exact.blocking - plain)
        print(f"{n:>5} {states:>9} {plain_s:>9.2f} {seconds:>11.2f} {plain_s / seconds:>6.1f}x {change:>9.1e}")


def solver_choice(label: str, speedup: SpeedupTable, rate, sizes: list[int]) -> None:
    print(f"\nsolver choice, {label} (basis of ctmc.stationary.GTH_FLOPS)")
    print(f"{'n':>5} {'states':>9} {'gth s':>9} {'iterative s':>12} {'|ΔP_b|':>9}")
    for n in sizes:
        exact, gth_s = timed(greedy_metrics, speedup, rate(n), n, method="gth")
        iterative, iterative_s = timed(greedy_metrics, speedup, rate(n), n, method="iterative")
        change = abs(exact.blocking - iterative.blocking)
        print(f"{n:>5} {exact.n_states:>9} {gth_s:>9.2f} {iterative_s:>12.2f} {change:>9.1e}")


def how_far(label: str, speedup: SpeedupTable, rate, sizes: list[int]) -> None:
    print(f"\n{label}")
    print(f"{'n':>6} {'states':>9} {'build s':>8} {'total s':>8} {'P_b':>12} {'E[D]':>10} {'residual':>9} {'peak GB':>8}")
    for n in sizes:
        lam = rate(n)
        _, build_s = timed(greedy_chain, speedup, lam, n)
        exact, seconds = timed(greedy_metrics, speedup, lam, n)
        print(f"{n:>6} {exact.n_states:>9} {build_s:>8.2f} {seconds:>8.2f} {exact.blocking:>12.6g} "
              f"{exact.mean_response_time:>10.6f} {exact.residual:>9.1e} {peak_gb():>8.2f}")


def bounds_against_whole(alphas: tuple[float, ...], n: int = 4000) -> None:
    """Table 1's sub-linear cells with α > 0: certified intervals on a kept box, then the whole chain."""
    print(f"greedy(p*), sub-linear, β = 0.1, n = {n}: greedy_bounds (kept box) against the whole chain (greedy_metrics)")
    for alpha in alphas:
        lam = traffic(n, alpha, 0.1)
        bounds, bounds_s = timed(greedy_bounds, SUBLINEAR, lam, n)
        bounds_gb = peak_gb()
        print(f"\nα = {alpha:.3g}: {bounds.n_states:,} states kept, neglected mass {bounds.neglected_mass:.2g}, entry cost "
              f"{bounds.entry_cost:.3g}, {bounds_s:.1f} s, peak {bounds_gb:.2f} GB")
        print(f"  P_b  in [{bounds.blocking[0]:.12f}, {bounds.blocking[1]:.12f}]  width "
              f"{bounds.blocking[1] - bounds.blocking[0]:.2g}")
        print(f"  E[D] in [{bounds.mean_response_time[0]:.12f}, {bounds.mean_response_time[1]:.12f}]  width "
              f"{bounds.mean_response_time[1] - bounds.mean_response_time[0]:.2g}")
        print(f"  {bounds.method}")
        exact, exact_s = timed(greedy_metrics, SUBLINEAR, lam, n)
        inside = (bounds.blocking[0] <= exact.blocking <= bounds.blocking[1]
                  and bounds.mean_response_time[0] <= exact.mean_response_time <= bounds.mean_response_time[1])
        print(f"  whole chain: {exact.n_states:,} states, {exact_s:.1f} s, peak {peak_gb():.2f} GB; P_b {exact.blocking:.12f}, "
              f"E[D] {exact.mean_response_time:.12f}, inside the intervals: {inside}")
        print(f"  ratios whole / bounds: time {exact_s / bounds_s:.1f}x, states {exact.n_states / bounds.n_states:.1f}x")


def mass_spread(sizes: list[int]) -> None:
    """The fewest states of the mean-field chain holding all but ε of its mass, and their growth in n."""
    print("greedy(p*), sub-linear, λ = 0.8 (4-D chain): the fewest states holding all but ε of the stationary mass")
    print(f"{'n':>5} {'states':>9} {'ε = 1e-9':>10} {'ε = 1e-12':>10} {'share':>6} {'solve s':>8} {'peak GB':>8} "
          f"{'P_b':>10} {'E[D]':>8}")
    kept = []
    for n in sizes:
        loss = greedy_chain(SUBLINEAR, 0.8, n)
        solution, seconds = timed(loss.chain.stationary)
        law = solution.probabilities
        tail = 1.0 - np.cumsum(np.sort(law)[::-1])
        counts = [int(np.searchsorted(-tail, -eps)) + 1 for eps in (1e-9, 1e-12)]
        kept.append(counts[0])
        blocking = law[loss.states @ loss.sizes == n].sum()
        mean_response_time = loss.states.sum(axis=1) @ law / (0.8 * n * (1 - blocking))       # Little's law, eq. (4)
        print(f"{n:>5} {loss.chain.n_states:>9} {counts[0]:>10} {counts[1]:>10} {counts[0] / loss.chain.n_states:>6.1%} "
              f"{seconds:>8.1f} {peak_gb():>8.2f} {blocking:>10.6f} {mean_response_time:>8.5f}")
    slope = np.polyfit(np.log(sizes[-3:]), np.log(kept[-3:]), 1)[0]
    print(f"states for ε = 1e-9 grow like n^{slope:.2f} over n = {sizes[-3]}..{sizes[-1]}; at n = 4000 that is "
          f"{kept[-1] * (4000 / sizes[-1]) ** slope:.2g} states (with n^2: {kept[-1] * (4000 / sizes[-1]) ** 2:.2g}); "
          f"the whole solve at n = {sizes[-1]} held {peak_gb() * 1e9 / loss.chain.n_states:.0f} bytes per state")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--large", choices=("4d", "2d"),
                        help="only one large chain, in a fresh process for its peak memory: "
                             "4d = greedy(p*) at λ = 0.8, n = 200; 2d = the α > 0 sub-linear rows of Table 1 at n = 4000")
    parser.add_argument("--bounds", action="store_true",
                        help="Table 1's α = 1/2 and α = 2/3 sub-linear cells at n = 4000: certified intervals, then the "
                             "whole chain as the baseline (minutes and several GB)")
    parser.add_argument("--mass", action="store_true",
                        help="where the mass of the α = 0 chain lies, n = 40 to 200 (minutes and 5 GB)")
    args = parser.parse_args()
    if args.mass:
        mass_spread([40, 60, 80, 100, 120, 150, 200])
        return
    if args.bounds:
        bounds_against_whole((0.5, 2 / 3))
        return
    if args.large == "4d":
        how_far("greedy(p*), sub-linear, λ = 0.8: the 4-D chain at n = 200", SUBLINEAR, lambda n: 0.8, [200])
        return
    if args.large == "2d":
        for alpha in (0.5, 2 / 3):
            lam = traffic(4000, alpha, 0.1)
            how_far(f"greedy(p*), sub-linear, α = {alpha:.3g}, β = 0.1: Table 1 at n = 4000 (D* = "
                    f"{optimal_occupancy(SUBLINEAR, lam).mean_response_time:.6f})", SUBLINEAR, lambda n, lam=lam: lam, [4000])
        return
    against_plain([10, 20, 30, 40])
    solver_choice("4-D chain, λ = 0.8", SUBLINEAR, lambda n: 0.8, [20, 40, 60])
    solver_choice("2-D chain, Halfin-Whitt", SUBLINEAR, lambda n: traffic(n, 0.5, 0.1), [500, 1000])
    how_far("greedy(p*), sub-linear, λ = 0.8 (4-D chain)", SUBLINEAR, lambda n: 0.8, [60, 80, 100])
    how_far("greedy(p*), sub-linear, Halfin-Whitt λ(n) = 1 - 0.1/√n (2-D chain)", SUBLINEAR,
            lambda n: traffic(n, 0.5, 0.1), [100, 500, 1000, 2000])
    how_far("linear speed-up, Halfin-Whitt (1-D chain)", SpeedupTable.linear(5), lambda n: traffic(n, 0.5, 0.1),
            [4000, 40000, 400000])


if __name__ == "__main__":
    main()
