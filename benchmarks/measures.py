"""Speed of the CTMC measures (analytic.ctmc.measures) against one stationary solve in the same run.

The chain: two M/M/1 queues of capacity 315 (arrival rates 0.6 and 0.5, unit service) where a job
of the first queue moves to the second at rate 0.3, built with ``CTMC.from_lattice``: 99 856
states. Each measure is timed once (after a first call of each method compiled its numba kernels)
and divided by the time of one ``stationary()`` solve of the same chain measured in this run
(issue 30's target: at most 10x). Printed: seconds, the ratio, and the value.

Times in the unit of the mean service time; the reward is the number of jobs in the system. Rewards
over time cost about ``Λ t`` sparse products (``Λ`` = 3.4 here), so their ratios grow with t until
the reward has settled (in total variation: the law's far tail, down to 1e-168, settles state by
state only after more iterates than ``transient.MAX_WORK`` allows, 3 240 on this chain, where
``CTMC.transient`` refuses t = 1000); the last rows (t = 1000 and 1e6) are answered at about one
stationary solve.

Run: ``python benchmarks/measures.py`` (about a minute).
"""

from __future__ import annotations

import time

import numpy as np

from analytic.ctmc import CTMC
from analytic.errors import ConvergenceError

CAPACITY = 315
ARRIVALS = (0.6, 0.5)
ROUTING = 0.3


def lattice_queue() -> CTMC:
    moves = [((1, 0), lambda X: ARRIVALS[0] * (X[:, 0] < CAPACITY)), ((-1, 0), lambda X: 1.0 * (X[:, 0] > 0)),
             ((0, 1), lambda X: ARRIVALS[1] * (X[:, 1] < CAPACITY)), ((0, -1), lambda X: 1.0 * (X[:, 1] > 0)),
             ((-1, 1), lambda X: ROUTING * (X[:, 0] > 0) * (X[:, 1] < CAPACITY))]
    return CTMC.from_lattice((CAPACITY, CAPACITY), moves)


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    try:
        result = function(*args, **kwargs)
    except ConvergenceError as error:
        result = f"refused: {str(error)[:70]}..."
    return result, time.perf_counter() - start


def main() -> None:
    chain = lattice_queue()
    jobs = lambda X: X.sum(axis=1)                       # noqa: E731
    empty = lambda X: X.sum(axis=1) == 0                 # noqa: E731
    first_full = lambda X: X[:, 0] >= 20                 # noqa: E731
    start = (5, 5)
    # compile every kernel once (numba caches them on disk)
    warm = CTMC.from_lattice((3, 3), [((1, 0), lambda X: 1.0 * (X[:, 0] < 3)), ((-1, 0), lambda X: 1.0 * (X[:, 0] > 0)),
                                      ((0, 1), lambda X: 1.0 * (X[:, 1] < 3)), ((0, -1), lambda X: 1.0 * (X[:, 1] > 0))])
    warm.stationary()
    warm.passage_time(lambda X: X.sum(axis=1) == 0, (1, 1)).moment(2)
    _, reference = timed(chain.stationary)
    print(f"chain: {chain.n_states:,} states, {chain.generator.nnz - chain.n_states:,} transitions")
    print(f"one stationary() solve: {reference:.2f} s\n")
    passage, seconds = timed(chain.passage_time, empty, start)
    rows = [("passage_time(empty, (5, 5)).mean", passage.mean, seconds)]
    rows.append(("  .moment(2), first call", *timed(passage.moment, 2)))
    rows.append(("  .moment(3), after moment(2)", *timed(passage.moment, 3)))
    rows.append(("  .cdf([1, 10, 100])", *timed(passage.cdf, [1.0, 10.0, 100.0])))
    rows.append(("reward_until(empty, jobs, (5, 5))", *timed(chain.reward_until, empty, jobs, start)))
    rows.append(("reach_probability(x1 >= 20, inf, avoid=empty)",
                 *timed(chain.reach_probability, first_full, np.inf, start, avoid=empty)))
    rows.append(("reach_probability(x1 >= 20, 100, avoid=empty)",
                 *timed(chain.reach_probability, first_full, 100.0, start, avoid=empty)))
    for t in (10.0, 100.0, 1000.0, 1e6):
        rows.append((f"transient_reward(jobs, {t:g}, (5, 5))", *timed(chain.transient_reward, jobs, t, start)))
        rows.append((f"accumulated_reward(jobs, {t:g}, (5, 5))", *timed(chain.accumulated_reward, jobs, t, start)))
    width = max(len(name) for name, _, _ in rows)
    print(f"{'measure':{width}}  {'seconds':>8}  {'/ stationary':>12}  value")
    for name, value, seconds in rows:
        shown = f"{value:.10g}" if isinstance(value, float) else (str(np.round(value, 10).tolist())
                                                                 if isinstance(value, np.ndarray) else str(value))
        print(f"{name:{width}}  {seconds:8.2f}  {seconds / reference:12.2f}  {shown}")


if __name__ == "__main__":
    main()
