"""Speed and accuracy of analytic.ctmc against a plain implementation measured in the same run.

The test chain is two independent M/M/1/K queues (arrival rates 0.6 and 0.8, unit service
rates), whose stationary law is the product of two truncated geometric laws. The plain
implementation explores the states breadth first with a dict and solves with
``scipy.sparse.linalg.spsolve``. Printed: state counts, seconds, ratios (plain / ours, so > 1 means
faster), the error against the product form, and the solver and ordering measurements behind
``DIRECT_SOLVE_LIMITS`` and the ILU settings.

Run: ``python benchmarks/ctmc.py`` (about two minutes); add ``--large`` for the 10^7-state chain
(run in a child process that reports its peak memory; several minutes, about 10 GB).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from collections import deque

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from analytic.ctmc import _DIAGONAL_PIVOTING, CTMC, _pinned_system, _solve_pinned

LOADS = (0.6, 0.8)


def transitions(capacity):
    """Transition function of two independent M/M/1/capacity queues on (i, j)."""

    def moves(state):
        i, j = state
        if i < capacity:
            yield (i + 1, j), LOADS[0]
        if i > 0:
            yield (i - 1, j), 1.0
        if j < capacity:
            yield (i, j + 1), LOADS[1]
        if j > 0:
            yield (i, j - 1), 1.0

    return moves


def lattice_moves(capacity):
    return [((1, 0), lambda X: LOADS[0] * (X[:, 0] < capacity)), ((-1, 0), lambda X: 1.0 * (X[:, 0] > 0)),
            ((0, 1), lambda X: LOADS[1] * (X[:, 1] < capacity)), ((0, -1), lambda X: 1.0 * (X[:, 1] > 0))]


def product_form(capacity):
    """Exact stationary law in lattice order (first queue is the slow coordinate)."""
    marginals = [rho ** np.arange(capacity + 1) for rho in LOADS]
    return np.outer(*[m / m.sum() for m in marginals]).ravel()


def plain_build(initial, step):
    """The baseline: breadth-first exploration with a dict, then a CSR generator."""
    index, states, queue = {initial: 0}, [initial], deque([initial])
    rows, cols, rates = [], [], []
    while queue:
        state = queue.popleft()
        i = index[state]
        for target, rate in step(state):
            j = index.get(target)
            if j is None:
                j = index[target] = len(states)
                states.append(target)
                queue.append(target)
            rows.append(i)
            cols.append(j)
            rates.append(rate)
    n = len(states)
    q = sp.csr_matrix((rates, (rows, cols)), shape=(n, n))
    return q - sp.diags(np.asarray(q.sum(axis=1)).ravel()), states


def plain_solve(q):
    """The baseline: drop state 0's balance equation, spsolve, normalize."""
    qt = q.T.tocsc()
    keep = np.arange(1, q.shape[0])
    y = spla.spsolve(qt[keep][:, keep].tocsc(), -qt[keep][:, [0]].toarray().ravel())
    x = np.concatenate([[1.0], y])
    return x / x.sum()


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - start


def errors(pi, exact):
    return f"L1 error {np.abs(pi - exact).sum():.2e}, max error {np.abs(pi - exact).max():.2e}"


def headline(capacity=999):
    n = (capacity + 1) ** 2
    exact = product_form(capacity)
    print(f"== two M/M/1/{capacity} queues: {n:,} states ==")
    (q_plain, states), t_plain_build = timed(plain_build, (0, 0), transitions(capacity))
    chain_f, t_function = timed(CTMC.from_function, (0, 0), transitions(capacity))
    assert chain_f.n_states == len(states) == n
    chain_l, t_lattice = timed(CTMC.from_lattice, (capacity, capacity), lattice_moves(capacity))
    print(f"build   plain dict BFS {t_plain_build:6.2f} s | from_function {t_function:6.2f} s "
          f"(ratio {t_function / t_plain_build:.2f}x of plain; target <= 1.5x) | "
          f"from_lattice {t_lattice:6.2f} s (target < 1 s; {t_plain_build / t_lattice:.1f}x faster than plain)")
    pi_plain, t_plain_solve = timed(plain_solve, q_plain)
    order = np.array([i * (capacity + 1) + j for i, j in states])
    print(f"solve   plain spsolve {t_plain_solve:6.2f} s, {errors(pi_plain, exact[order])}")
    pi, t_solve = timed(chain_l.stationary, method="iterative")  # "auto" picks LU here: 12 s
    total = t_lattice + t_solve
    print(f"solve   stationary() {t_solve:6.2f} s [{pi.method}, {pi.iterations} iterations, residual {pi.residual:.1e}], "
          f"{errors(pi.probabilities, exact)}")
    print(f"total   from_lattice + stationary {total:.2f} s (target < 10 s); plain build + solve "
          f"{t_plain_build + t_plain_solve:.2f} s; speed-up {(t_plain_build + t_plain_solve) / total:.1f}x\n")


def solver_sweep():
    print("== direct vs iterative by size on this chain (4 transitions per state; see DIRECT_SOLVE_LIMITS) ==")
    for capacity in (99, 299, 449, 599, 799):
        chain = CTMC.from_lattice((capacity, capacity), lattice_moves(capacity))
        exact = product_form(capacity)
        cells = []
        for method in ("direct", "iterative"):
            pi, seconds = timed(chain.stationary, method=method)
            cells.append(f"{method} {seconds:6.2f} s ({np.abs(pi.probabilities - exact).sum():.0e})")
        print(f"{chain.n_states:>9,} states: " + " | ".join(cells))
    print()


def ordering_sweep(capacity=299):
    chain = CTMC.from_lattice((capacity, capacity), lattice_moves(capacity))
    print(f"== SuperLU column orderings, diagonal pivots, {chain.n_states:,} states ==")
    matrix, rhs = _pinned_system(chain.generator, 0)
    exact = product_form(capacity)
    for spec in ("MMD_AT_PLUS_A", "COLAMD", "MMD_ATA"):
        lu, seconds = timed(spla.splu, matrix, **dict(_DIAGONAL_PIVOTING, permc_spec=spec))
        x = lu.solve(rhs)
        print(f"{spec:>14}: factor {seconds:6.2f} s, nnz(L+U) {lu.L.nnz + lu.U.nnz:>11,}, "
              f"L1 error {np.abs(x / x.sum() - exact).sum():.1e}")
    lu, seconds = timed(spla.splu, matrix, permc_spec="COLAMD")
    x = lu.solve(rhs)
    print(f"{'COLAMD+pivots':>14}: factor {seconds:6.2f} s, nnz(L+U) {lu.L.nnz + lu.U.nnz:>11,}, "
          f"L1 error {np.abs(x / x.sum() - exact).sum():.1e} (scipy's default: partial pivoting)")
    print()


def ilu_sweep(capacity=999):
    chain = CTMC.from_lattice((capacity, capacity), lattice_moves(capacity))
    exact = product_form(capacity)
    matrix, rhs = _pinned_system(chain.generator, 0)
    print(f"== ILU settings for GMRES(100), {chain.n_states:,} states ==")
    for setting in ((3e-2, 2.0), (1e-2, 2.0), (1e-2, 3.0), (3e-3, 4.0), (1e-3, 5.0)):
        try:
            (x, iterations, _), seconds = timed(_solve_pinned, matrix, rhs, setting, 1e-12)
            print(f"drop_tol {setting[0]:g}, fill_factor {setting[1]:g}: {seconds:6.2f} s, {iterations} iterations, "
                  f"L1 error {np.abs(x / x.sum() - exact).sum():.1e}")
        except RuntimeError as exc:
            print(f"drop_tol {setting[0]:g}, fill_factor {setting[1]:g}: failed ({exc})")
    print()


def large(capacity=3161):
    n = (capacity + 1) ** 2
    chain, t_build = timed(CTMC.from_lattice, (capacity, capacity), lattice_moves(capacity))
    pi, t_solve = timed(chain.stationary)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(f"== two M/M/1/{capacity} queues: {n:,} states ==")
    print(f"from_lattice {t_build:.1f} s, stationary {t_solve:.1f} s [{pi.method}, {pi.iterations} iterations, "
          f"residual {pi.residual:.1e}], {errors(pi.probabilities, product_form(capacity))}, peak memory {peak:.1f} GB")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", action="store_true", help="also solve the 10^7-state chain")
    parser.add_argument("--case", choices=["large"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case == "large":
        large()
        return
    headline()
    solver_sweep()
    ordering_sweep()
    ilu_sweep()
    if args.large:
        subprocess.run([sys.executable, __file__, "--case", "large"], check=True)


if __name__ == "__main__":
    main()
