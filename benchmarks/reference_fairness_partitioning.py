"""Plain compiled loops of Algorithm 1 (Bonald & Comte) and of DGP, ADGP and Max-Weight (Ghaderi et al.).

The yardstick of ``benchmarks/simulation_engines.py``: what a careful programmer writes in one
sitting, one ``numba.njit`` function per policy, every array local to the function, random numbers
drawn in the loop from numba's own generator, no helper calls. Each returns the quantity the
package estimates and the number of events it processed, so that the package's speed can be set
against it at equal work (the same arrivals, or the same simulated time) and its estimate checked
against an independent implementation (``python benchmarks/reference_fairness_partitioning.py``
prints both, and the number of standard errors between them).

* :func:`algorithm1` keeps the virtual queue as an array in arrival order and recomputes the
  allocation at every event by scanning it (each server serves the first job that can use it); a
  finished job is shifted out, an interrupted one shifted to the end. O(queue length) per event, the
  fastest choice at the loads of the paper's Section 5, where a few jobs are in the system.
* :func:`templates` runs DGP (mode 0) or ADGP (mode 1) with one job type: templates in a compact
  array, the free slots listed by a scan of the slot owners at each proposal (Algorithm 2).
* :func:`max_weight` runs Algorithm 1 of Ghaderi et al. on the packings of the one job type.
"""

# numba compiles the legacy np.random functions (one global stream per thread): the plain choice in a loop.
# ruff: noqa: NPY002

from __future__ import annotations

import math

import numba
import numpy as np

DGP, ADGP = 0, 1


@numba.njit(cache=True)
def algorithm1(class_servers, class_width, capacities, rates, theta, jobs, warmup, seed):
    """Algorithm 1 with exponential unit-mean sizes, θ the mean work between interruptions (inf: none).

    Returns the time-average number of jobs of each class after ``warmup`` arrivals, up to the last
    of ``jobs`` arrivals, and the events processed (arrivals, departures, interruptions).
    """
    np.random.seed(seed)
    classes = rates.shape[0]
    total = rates.sum()
    cumulative = np.cumsum(rates) / total
    size = 1024
    label = np.empty(size, np.int64)
    remaining = np.empty(size)
    work = np.empty(size)                # work left before the next interruption
    speed = np.zeros(size)
    held = np.zeros(capacities.shape[0], np.bool_)
    count = np.zeros(classes)
    area = np.zeros(classes)
    n, arrivals, events = 0, 0, 0
    t, start = 0.0, 0.0
    next_arrival = np.random.exponential(1.0 / total)
    while True:
        held[:] = False
        step, who = next_arrival - t, -1
        for i in range(n):               # each server serves the first job of the queue that can use it
            c = label[i]
            r = 0.0
            for k in range(class_width[c]):
                s = class_servers[c, k]
                if not held[s]:
                    held[s] = True
                    r += capacities[s]
            speed[i] = r
            if r > 0.0:
                d = min(remaining[i], work[i]) / r
                if d < step:
                    step, who = d, i
        if arrivals > warmup:
            for c in range(classes):
                area[c] += count[c] * step
        for i in range(n):
            remaining[i] -= speed[i] * step
            work[i] -= speed[i] * step
        t += step
        events += 1
        if who < 0:
            arrivals += 1
            if arrivals == warmup + 1:
                start = t
            if arrivals == jobs:
                break
            u = np.random.random()
            c = 0
            while c < classes - 1 and u >= cumulative[c]:
                c += 1
            if n == size:
                size *= 2
                label = np.concatenate((label, np.empty(size - n, np.int64)))
                remaining = np.concatenate((remaining, np.empty(size - n)))
                work = np.concatenate((work, np.empty(size - n)))
                speed = np.concatenate((speed, np.zeros(size - n)))
            label[n] = c
            remaining[n] = np.random.exponential(1.0)
            work[n] = theta * np.random.exponential(1.0) if theta < np.inf else np.inf
            n += 1
            count[c] += 1
            next_arrival = t + np.random.exponential(1.0 / total)
        elif remaining[who] <= work[who]:    # departure: shift the queue behind it forward
            count[label[who]] -= 1
            for i in range(who, n - 1):
                label[i], remaining[i], work[i] = label[i + 1], remaining[i + 1], work[i + 1]
            n -= 1
        else:                                # interruption: to the end of the queue
            c, left = label[who], remaining[who]
            for i in range(who, n - 1):
                label[i], remaining[i], work[i] = label[i + 1], remaining[i + 1], work[i + 1]
            label[n - 1], remaining[n - 1], work[n - 1] = c, left, theta * np.random.exponential(1.0)
    return area / (t - start), events


@numba.njit(cache=True)
def templates(mode, machine, distance, edges, edge_weights, nodes, arrival, service, alpha, beta, b, h, clock_rate,
              horizon, warmup, queue, seed):
    """DGP (mode 0) or ADGP (mode 1) with one job type and live weights q = α log^(1-b)(h + Q).

    Returns the time averages over [warmup, horizon] of the configuration's partition cost and of
    the queue, and the events processed.
    """
    np.random.seed(seed)
    slots = machine.shape[0]
    owner = np.full(slots, -1, np.int64)
    template_slots = np.zeros((slots, nodes), np.int64)
    template_cost = np.zeros(slots)
    template_actual = np.zeros(slots, np.bool_)
    free = np.empty(slots, np.int64)
    count, in_service, events = 0, 0, 0
    t, cost, area_cost, area_queue = 0.0, 0.0, 0.0, 0.0
    while True:
        weight = alpha * math.log(h + queue) ** (1.0 - b)
        r_arrival, r_departure = arrival, service * count
        r_clock = clock_rate * math.exp(weight / beta) if mode == ADGP else 0.0
        total = r_arrival + r_departure + r_clock
        dt = np.random.exponential(1.0 / total)
        low, high = max(t, warmup), min(t + dt, horizon)
        if high > low:
            area_cost += cost * (high - low)
            area_queue += queue * (high - low)
        t += dt
        if t >= horizon:
            break
        events += 1
        u = np.random.random() * total
        propose = False
        if u < r_arrival:
            queue += 1
            propose = mode == DGP
        elif u < r_arrival + r_departure:
            k = min(int(np.random.random() * count), count - 1)
            if template_actual[k]:
                queue -= 1
                in_service -= 1
            keep = False
            if mode == DGP:
                w = (alpha * math.log(h + queue) ** (1.0 - b) - template_cost[k]) / beta
                keep = np.random.random() < 1.0 / (1.0 + math.exp(-w))
            if keep:
                template_actual[k] = False
            else:
                for x in range(nodes):
                    owner[template_slots[k, x]] = -1
                cost -= template_cost[k]
                count -= 1
                if k < count:                # the last template takes its place
                    for x in range(nodes):
                        template_slots[k, x] = template_slots[count, x]
                        owner[template_slots[k, x]] = k
                    template_cost[k], template_actual[k] = template_cost[count], template_actual[count]
        else:
            propose = True
        if propose:
            n_free = 0
            for s in range(slots):
                if owner[s] < 0:
                    free[n_free] = s
                    n_free += 1
            if n_free >= nodes:
                for x in range(nodes):       # Algorithm 2: each node to a uniformly chosen free slot
                    r = x + min(int(np.random.random() * (n_free - x)), n_free - x - 1)
                    free[x], free[r] = free[r], free[x]
                proposed = 0.0
                for e in range(edges.shape[0]):
                    proposed += edge_weights[e] * distance[machine[free[edges[e, 0]]], machine[free[edges[e, 1]]]]
                if mode == DGP:
                    weight = alpha * math.log(h + queue) ** (1.0 - b)
                    p = 1.0 / (1.0 + math.exp(-(weight - proposed) / beta))
                else:
                    p = math.exp(-proposed / beta)
                if np.random.random() < p:
                    for x in range(nodes):
                        template_slots[count, x] = free[x]
                        owner[free[x]] = count
                    template_cost[count], template_actual[count] = proposed, False
                    cost += proposed
                    count += 1
        if queue > in_service and in_service < count:   # a waiting job takes a random idle template
            k = min(int(np.random.random() * (count - in_service)), count - in_service - 1)
            for i in range(count):
                if not template_actual[i]:
                    if k == 0:
                        template_actual[i] = True
                        in_service += 1
                        break
                    k -= 1
    span = horizon - warmup
    return area_cost / span, area_queue / span, events


@numba.njit(cache=True)
def max_weight(packing_templates, packing_cost, arrival, service, alpha, b, frame, horizon, warmup, queue, seed):
    """Frame-based Max-Weight with one job type: at each epoch kT the packing maximising
    ``α log^(1-b)(1 + Q) n - cost`` (ties at random), kept for T.

    Returns the time averages over [warmup, horizon] of the configuration's cost and of the queue,
    and the events processed (arrivals, departures, epochs).
    """
    np.random.seed(seed)
    t, epoch, chosen, events = 0.0, 0.0, 0, 0
    area_cost, area_queue = 0.0, 0.0
    while t < horizon:
        if t >= epoch:
            weight = alpha * math.log(1.0 + queue) ** (1.0 - b)
            best, ties = 0.0, 0
            for i in range(packing_cost.shape[0]):
                value = weight * packing_templates[i] - packing_cost[i]
                slack = 1e-12 * max(1.0, abs(best))
                if ties == 0 or value > best + slack:
                    best, chosen, ties = value, i, 1
                elif value >= best - slack:
                    ties += 1
                    if np.random.random() * ties < 1.0:
                        chosen = i
            epoch += frame
            events += 1
        total = arrival + service * min(queue, packing_templates[chosen])
        dt = np.random.exponential(1.0 / total)
        stop = min(t + dt, epoch, horizon)
        low = max(t, warmup)
        if stop > low:
            area_cost += packing_cost[chosen] * (stop - low)
            area_queue += queue * (stop - low)
        if t + dt >= epoch or t + dt >= horizon:     # the epoch or the end comes first: the clocks restart
            t = stop
            continue
        t += dt
        events += 1
        if np.random.random() * total < arrival:
            queue += 1
        else:
            queue -= 1
    span = horizon - warmup
    return area_cost / span, area_queue / span, events


def _check() -> None:
    """Each loop against the package: the estimates within a few standard errors."""
    from analytic.fairness import balanced_fairness, three_server_graph
    from analytic.fairness.simulation import simulate_interruptions
    from analytic.partitioning import simulate_adgp, simulate_dgp, simulate_max_weight
    from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    from analytic.partitioning.static import cheapest_packings

    graph = three_server_graph()
    rates = np.array([1.05, 1.05])
    exact = balanced_fairness(graph, rates).mean_jobs
    table = np.array([[0, 2], [1, 2]], dtype=np.int64)
    for m in (0.0, 1.0, 5.0):
        theta = 1.0 / m if m > 0 else math.inf
        runs = [algorithm1(table, np.array([2, 2]), graph.capacities, rates, theta, 200_000, 20_000, seed)[0].sum()
                for seed in range(10)]
        package = simulate_interruptions(graph, rates, interruptions=m, arrivals=2_000_000, seed=1)
        ref, ref_se = np.mean(runs), np.std(runs, ddof=1) / math.sqrt(len(runs))
        pkg, pkg_se = package.mean_jobs.value.sum(), package.mean_jobs.half_width.sum() / 2.093
        print(f"Algorithm 1 m = {m:g}: reference {ref:.4f} ± {ref_se:.4f}, package {pkg:.4f} ± {pkg_se:.4f}, "
              f"exact {exact.sum():.4f}; {(ref - pkg) / math.hypot(ref_se, pkg_se):+.2f} SE")
    cluster, job = FIGURE1_CLUSTER, FIGURE1_JOB
    edges = np.array(job.edges, dtype=np.int64)
    weights = np.array(job.edge_weights, dtype=float)
    for name, mode, clock in (("DGP", DGP, 0.0), ("ADGP", ADGP, 0.2)):
        start = start_queue(clock)
        runs = np.array([templates(mode, cluster.machine_of_slot, cluster.distance, edges, weights, job.nodes, 1.0, 1.0,
                                   1.0, 1.0, 0.0, 1.0, clock, 20_000.0, 2_000.0, start, seed)[:2] for seed in range(10)])
        function = simulate_dgp if mode == DGP else simulate_adgp
        extra = {} if mode == DGP else {"clock_rate": clock}
        package = function(cluster, job, 1.0, 1.0, **extra, b=0.0, h=1.0, time=200_000.0, initial_queues=[start], seed=1)
        _report(name, runs, package)
    packings = cheapest_packings(cluster, [job])
    runs = np.array([max_weight(packings.templates[:, 0].astype(np.int64), packings.cost, 1.0, 1.0, 1.0, 0.0, 1.0, 20_000.0,
                                2_000.0, 0, seed)[:2] for seed in range(10)])
    _report("Max-Weight", runs, simulate_max_weight(cluster, job, alpha=1.0, frame=1.0, time=200_000.0, seed=1))


def start_queue(clock_rate: float) -> int:
    """The queue at DGP's (clock_rate 0) or ADGP's operating point on Figure 1 (α = β = 1, f = log, h = 1)."""
    from analytic.partitioning import operating_point
    from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB

    point = operating_point(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, clock_rate or None)
    return int(point.queues(1.0, 1.0, 0.0)[0])


def _report(name, runs, package) -> None:
    ref, ref_se = runs.mean(axis=0), runs.std(axis=0, ddof=1) / math.sqrt(len(runs))
    for i, (what, value, half) in enumerate((("cost", package.cost, package.cost_ci),
                                              ("queue", package.queue[0], package.queue_ci[0]))):
        se = half / 2.093        # batch means: 20 batches, t(19) quantile
        print(f"{name} {what}: reference {ref[i]:.4f} ± {ref_se[i]:.4f}, package {value:.4f} ± {se:.4f}; "
              f"{(ref[i] - value) / math.hypot(ref_se[i], se):+.2f} SE")


if __name__ == "__main__":
    _check()
