"""The cost of phase-type sizes in greedy(p)'s exact chain: states and seconds against exponential sizes.

Run as ``python benchmarks/phases.py`` (a few minutes; ``--largest`` also finds, for each law, the
largest n whose chain the memory check accepts, without solving it).

Table 1's mean-field cell of Ghanbarian et al. (sub-linear speed-up, λ = 0.8, p* on 3 and 4 servers,
jobs squeezed onto 1 to 4) at n = 20 and 40: ``greedy_metrics(..., size=law)`` with the exponential
law (the baseline, timed in the same run), Erlang-2 (scv 1/2) and the balanced hyperexponential of
scv 4. Each job in service carries its phase, so with m phases the chain's coordinates are the
counts per (server count, phase): about m^4 times more states here, four server counts.
"""

from __future__ import annotations

import argparse
import time

from analytic.errors import StateSpaceTooLargeError
from analytic.moldable import greedy_metrics
from analytic.moldable.greedy import allocations, resolve_p, simplex_points
from analytic.simulation import erlang, exponential, fitted
from analytic.speedup import SpeedupTable

SUBLINEAR = SpeedupTable([1, 1.8, 2.5, 3, 3.4])
LAWS = {"exponential": exponential(), "Erlang-2": erlang(2), "H2 (scv 4)": fitted(1.0, 2.0)}


def timed(law, n: int) -> tuple[float, object]:
    start = time.perf_counter()
    metrics = greedy_metrics(SUBLINEAR, 0.8, n, size=law)
    return time.perf_counter() - start, metrics


def main() -> None:
    greedy_metrics(SUBLINEAR, 0.8, 6, size=erlang(2))          # compile the kernels once
    print(f"{'n':>4s} {'law':12s} {'states':>10s} {'seconds':>8s} {'x states':>9s} {'x time':>7s} {'P_b':>10s} {'E[D]':>10s}")
    for n in (20, 40):
        base_seconds, base = timed(LAWS["exponential"], n)
        for name, law in LAWS.items():
            seconds, metrics = (base_seconds, base) if name == "exponential" else timed(law, n)
            print(f"{n:4d} {name:12s} {metrics.n_states:10,d} {seconds:8.2f} {metrics.n_states / base.n_states:9.0f} "
                  f"{seconds / base_seconds:7.0f} {metrics.blocking:10.6f} {metrics.mean_response_time:10.6f}")


def largest() -> None:
    """For each law, the largest n (steps of 4) whose chain the memory check of greedy_metrics accepts."""
    p = resolve_p(SUBLINEAR, 0.8, None)
    for name, law in LAWS.items():
        phases = len(law.to_phase_type().initial)
        n = 40
        while True:
            sizes = allocations(n + 4, p)[1]
            try:
                if simplex_points(n + 4, sizes.repeat(phases)) > 10**9:
                    break
                greedy_metrics(SUBLINEAR, 0.8, n + 4, size=law, max_states=1)   # refused at once: by memory or by max_states
            except StateSpaceTooLargeError as exc:
                if exc.memory is not None:
                    break
            n += 4
        print(f"{name:12s}: largest n accepted by the memory check {n} "
              f"(simplex of {simplex_points(n, allocations(n, p)[1].repeat(phases)):,} points)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--largest", action="store_true", help="the largest n whose chain fits, per law")
    arguments = parser.parse_args()
    main()
    if arguments.largest:
        largest()
