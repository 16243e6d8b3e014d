"""Certified intervals for population models a user writes: time, memory, states kept, V found.

Run as ``python benchmarks/bounds.py`` (a few minutes); ``--applications`` times the package's own
certified chains instead (about ten minutes): FCFS multiserver jobs with three and four classes up to
k = 64 servers at 0.9 of the FCFS saturation throughput (``fcfs_bounds``), and greedy(p*) of Table 1's
mean-field cell (α = 0, λ = 0.8, four allocation sizes) against n (``greedy_bounds``), with the peak
resident memory of the process.

For each model, ``stationary_bounds(model, rewards, width=1e-8)`` is timed. The baseline, timed in
the same run, is the plain solve a user would otherwise write: ``CTMC.from_lattice`` on the same
kept states, the jumps out of them cut, and ``stationary()``. That solve is unverified, and it says
nothing about the mass left out. The ratio is the cost of the certificate: the search, the exact
proof and the hitting-time bounds. Peak memory is the peak of Python allocations (tracemalloc),
numpy arrays included. The error column is the certified interval's distance from an independent
reference, where one exists: a product form in mpmath at 50 digits for the birth–death models, and
closed forms of E[x] for the two-count models (class 1 of the priority queue is an M/M/1 queue; the
tandem's law is a product of geometric laws; the mRNA count is Poisson with mean 2/0.5), and for the
toggle switch (Hill repression, rational rates) and the queues that compare their counts (join the
shortest, serve the longest) the chain cut to the box 0..100 squared, solved with scipy's spsolve.
The phase models are checked against their matrix-geometric solutions in the tests.
"""

from __future__ import annotations

import argparse
import resource
import time
import tracemalloc

import mpmath
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
import sympy

from analytic.ctmc import CTMC, PopulationModel, stationary_bounds

x, y = sympy.symbols("x y")
mpmath.mp.dps = 50
#: Join the shortest queue: an arrival goes to x when x is shorter, to either with probability 1/2 on a tie.
SHORTER_X = sympy.Piecewise((1, x < y), (sympy.Rational(1, 2), sympy.Eq(x, y)), (0, True))


def product_form_mean(birth, death) -> float:
    weights, k = [mpmath.mpf(1)], 0
    while k < 20 or weights[-1] > mpmath.mpf(10) ** -60:
        k += 1
        weights.append(weights[-1] * mpmath.mpf(birth(k - 1)) / mpmath.mpf(death(k)))
    return float(mpmath.fsum(j * w for j, w in enumerate(weights)) / mpmath.fsum(weights))


def box_mean(moves: list, N: int = 100) -> float:
    """E[x] of a two-count chain cut to 0..N squared (jumps out of the box dropped), from numpy rates
    ``rate(i, j)`` per move ``(rate, di, dj)``."""
    i, j = (g.ravel() for g in np.meshgrid(np.arange(N + 1), np.arange(N + 1), indexing="ij"))
    rows, cols, rates = [], [], []
    for rate, di, dj in moves:
        ok = (i + di >= 0) & (i + di <= N) & (j + dj >= 0) & (j + dj <= N)
        rows.append(i[ok] * (N + 1) + j[ok])
        cols.append((i[ok] + di) * (N + 1) + j[ok] + dj)
        rates.append(np.broadcast_to(rate(i, j), i.shape)[ok])
    size = (N + 1) ** 2
    Q = sp.csr_array((np.concatenate(rates), (np.concatenate(rows), np.concatenate(cols))), shape=(size, size))
    system = (Q.T - sp.diags_array(Q.sum(axis=1))).tolil()
    system[0, :] = 1.0
    return float(spla.spsolve(system.tocsc(), np.eye(1, size).ravel()) @ i)


MODELS = {
    "M/M/3, arrival rate 2": (PopulationModel([x], [((1,), 2.0), ((-1,), sympy.Min(x, 3))]),
                              product_form_mean(lambda k: 2.0, lambda k: min(k, 3))),
    "M/M/1 at load 0.99": (PopulationModel([x], [((1,), 0.99), ((-1,), sympy.Min(x, 1))]),
                           product_form_mean(lambda k: 0.99, lambda k: min(k, 1))),
    "M/M/100 at load 0.95 (Halfin-Whitt scale)": (PopulationModel([x], [((1,), 95.0), ((-1,), sympy.Min(x, 100))]),
                                                  product_form_mean(lambda k: 95.0, lambda k: min(k, 100))),
    "reneging, 2 servers": (PopulationModel([x], [((1,), 5.0), ((-1,), sympy.Min(x, 2) + 0.1 * sympy.Max(x - 2, 0))]),
                            product_form_mean(lambda k: 5.0, lambda k: min(k, 2) + 0.1 * max(k - 2, 0))),
    "birth 10, quadratic death": (PopulationModel([x], [((1,), 10.0), ((-1,), x + x * (x - 1) / 20)]),
                                  product_form_mean(lambda k: 10.0, lambda k: k + k * (k - 1) / 20)),
    "Schlögl-type cubic rates": (PopulationModel([x], [((1,), 6 + x * (x - 1) * sympy.Rational(3, 10)),
                                                       ((-1,), x + x * (x - 1) * (x - 2) / 100)]),
                                 product_form_mean(lambda k: 6 + 0.3 * k * (k - 1), lambda k: k + k * (k - 1) * (k - 2) / 100)),
    "queue served in one phase only": (PopulationModel([x, y], [((1, 0), 0.5), ((-1, 0), 3.0 * y), ((0, 1), 1.0),
                                                                ((0, -1), 1.0)], upper=[None, 1]), None),
    "M/M/2 in a random environment": (PopulationModel([x, y], [((1, 0), 1 + 1.5 * y), ((-1, 0), 1.5 * sympy.Min(x, 2)),
                                                               ((0, 1), 0.3), ((0, -1), 0.7)], upper=[None, 1]), None),
    "M/M/1 with 20 service phases": (PopulationModel([x, y], [((1, 0), 0.8), ((-1, 0), (1 + y / 10) * sympy.Min(x, 1)),
                                                              ((0, 1), 0.5), ((0, -1), 0.5)], upper=[None, 19]), None),
    "priority queue, loads 0.3 + 0.4 (x, y unbounded)": (
        PopulationModel([x, y], [((1, 0), 0.3), ((0, 1), 0.4), ((-1, 0), sympy.Min(x, 1)),
                                 ((0, -1), sympy.Min(y, 1) * sympy.Piecewise((1, sympy.Eq(x, 0)), (0, True)))]),
        0.3 / 0.7),
    "tandem queue 1 -> 3 -> 2 (x, y unbounded)": (
        PopulationModel([x, y], [((1, 0), 1.0), ((-1, 1), 3.0 * sympy.Min(x, 1)), ((0, -1), 2.0 * sympy.Min(y, 1))]),
        0.5),
    "tandem queue at load 0.9, both stations (x, y)": (
        PopulationModel([x, y], [((1, 0), 0.9), ((-1, 1), sympy.Min(x, 1)), ((0, -1), sympy.Min(y, 1))]), 9.0),
    "tandem queue at load 0.95, both stations (x, y)": (
        PopulationModel([x, y], [((1, 0), 0.95), ((-1, 1), sympy.Min(x, 1)), ((0, -1), sympy.Min(y, 1))]), 19.0),
    "tandem 0.95 -> 1.2 -> 1 (x, y unbounded)": (
        PopulationModel([x, y], [((1, 0), 0.95), ((-1, 1), 1.2 * sympy.Min(x, 1)), ((0, -1), sympy.Min(y, 1))]),
        0.95 / 0.25),
    "two independent M/M/1 queues at 0.7 (x, y unbounded)": (
        PopulationModel([x, y], [((1, 0), 0.7), ((0, 1), 0.7), ((-1, 0), sympy.Min(x, 1)), ((0, -1), sympy.Min(y, 1))]),
        0.7 / 0.3),
    "mRNA-protein, linear (x, y unbounded)": (
        PopulationModel([x, y], [((1, 0), 2.0), ((-1, 0), 0.5 * x), ((0, 1), 0.5 * x), ((0, -1), 1.0 * y)]), 4.0),
    "toggle switch, Hill repression 30/(1+y^2) (x, y unbounded)": (
        PopulationModel([x, y], [((1, 0), 30 / (1 + y**2)), ((-1, 0), x), ((0, 1), 30 / (1 + x**2)), ((0, -1), y)]),
        box_mean([(lambda i, j: 30 / (1 + j**2.0), 1, 0), (lambda i, j: 1.0 * i, -1, 0),
                  (lambda i, j: 30 / (1 + i**2.0), 0, 1), (lambda i, j: 1.0 * j, 0, -1)])),
    "join the shortest queue, 1.5 to two servers of 1 (x, y)": (
        PopulationModel([x, y], [((1, 0), 1.5 * SHORTER_X), ((0, 1), 1.5 * (1 - SHORTER_X)),
                                 ((-1, 0), sympy.Min(x, 1)), ((0, -1), sympy.Min(y, 1))]),
        box_mean([(lambda i, j: 1.5 * np.where(i < j, 1.0, np.where(i == j, 0.5, 0.0)), 1, 0),
                  (lambda i, j: 1.5 * np.where(i > j, 1.0, np.where(i == j, 0.5, 0.0)), 0, 1),
                  (lambda i, j: 1.0 * (i > 0), -1, 0), (lambda i, j: 1.0 * (j > 0), 0, -1)])),
    "serve the longest queue, loads 0.3 + 0.4 (x, y)": (
        PopulationModel([x, y], [((1, 0), 0.3), ((0, 1), 0.4),
                                 ((-1, 0), sympy.Piecewise((1, (x >= y) & (x >= 1)), (0, True))),
                                 ((0, -1), sympy.Piecewise((1, y > x), (0, True)))]),
        box_mean([(lambda i, j: 0.3, 1, 0), (lambda i, j: 0.4, 0, 1),
                  (lambda i, j: 1.0 * ((i >= j) & (i >= 1)), -1, 0), (lambda i, j: 1.0 * (j > i), 0, -1)])),
}


def plain_solve(model: PopulationModel, states: np.ndarray) -> float:
    """The uncertified baseline: the box of kept states as a finite chain (jumps out cut), solved."""
    limits = states.max(axis=0)
    cut = [(change, (lambda r, c: lambda X: r(X) * np.all(X + c <= limits, axis=1))(rate, np.asarray(change)))
           for change, rate in model.moves]
    start = time.perf_counter()
    CTMC.from_lattice(limits.tolist(), cut).stationary()
    return time.perf_counter() - start


def main() -> None:
    stationary_bounds(*next(iter(MODELS.values()))[:1], {"mean": x})          # compile the kernels once
    print(f"{'model':44s} {'states':>7s} {'bounds s':>9s} {'plain s':>8s} {'ratio':>6s} {'peak MB':>8s} "
          f"{'width':>8s} {'error':>8s}  V")
    for name, (model, mean) in MODELS.items():
        tracemalloc.start()
        start = time.perf_counter()
        bounds = stationary_bounds(model, {"mean": x}, width=1e-8)
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        plain = plain_solve(model, bounds.truncation.states)
        interval = bounds["mean"]
        error = "-" if mean is None else ("inside" if mean in interval else f"OUT {mean:.6g}")
        print(f"{name:44s} {bounds.n_states:7,d} {seconds:9.3f} {plain:8.4f} {seconds / plain:6.0f} {peak:8.1f} "
              f"{interval.width:8.1e} {error:>8s}  {bounds.lyapunov}")


def applications() -> None:
    """The package's certified chains at the sizes of issue 29: time, states kept, width, peak memory."""
    from analytic.moldable import greedy_bounds
    from analytic.speedup import SpeedupTable
    from analytic.splitting import RigidClass, fcfs_bounds, fcfs_saturation

    print(f"{'chain':58s} {'states':>10s} {'seconds':>8s} {'width':>8s} {'peak GB':>8s}")
    for servers, needs in [(8, (1, 2, 4)), (16, (1, 4, 8)), (32, (1, 4, 16)), (64, (1, 8, 32)), (16, (1, 2, 4, 8))]:
        classes = [RigidClass(need, 1 / len(needs), 1.0) for need in needs]
        arrival_rate = 0.9 * fcfs_saturation(servers, classes).throughput
        start = time.perf_counter()
        bounds = fcfs_bounds(servers, classes, arrival_rate, width=1e-6, max_states=3_000_000)
        print(f"{f'FCFS, k = {servers}, needs {needs}, 0.9 of saturation':58s} {bounds.n_states:10,d} "
              f"{time.perf_counter() - start:8.1f} {bounds.relative_width:8.1e} {_peak_gb():8.2f}")
    for n in (50, 100, 150, 200):
        start = time.perf_counter()
        bounds = greedy_bounds(SpeedupTable([1, 1.8, 2.5, 3, 3.4]), 0.8, n, max_states=60_000_000)
        print(f"{f'greedy(p*), Table 1 mean-field cell, n = {n}':58s} {bounds.n_states:10,d} "
              f"{time.perf_counter() - start:8.1f} {bounds.width:8.1e} {_peak_gb():8.2f}")


def _peak_gb() -> float:
    """Peak resident memory of this process so far (Linux reports kilobytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--applications", action="store_true", help="the package's own certified chains (minutes)")
    if parser.parse_args().applications:
        applications()
    else:
        main()
