"""The compiled event loop of :mod:`analytic.fairness.simulation` (Algorithm 1 of Bonald & Comte) and its job arrays.

:func:`advance` runs the virtual queue of Algorithm 1 over a chunk of arrivals: servers held in
queue order, exponential interruption timers, and time-averaged occupancies per batch; a
:class:`JobPool` holds the per-job arrays it works on, grown between chunks. How the loop keeps
its state is described in the docstring of :mod:`analytic.fairness.simulation`.
"""


from __future__ import annotations

import numpy as np

from analytic._kernels import kernel
from analytic.simulation._runs import integrate

#: Positions in the integer state vector of a replication.
HEAP, FREE, BATCH, JOBS = range(4)


@kernel
def advance(interarrival, labels, servers, widths, sizes, first, boundaries, capacities, theta, max_jobs, rng,
            clock, state, head, tail, job_label, job_servers, job_width, remaining, to_interrupt, rate, since,
            node_next, node_prev, heap_slot, heap_key, heap_pos, free, count, last, area, start, arrivals, admitted,
            interrupted, departed):
    """Process the arrivals ``first .. first + len(interarrival) - 1`` and the events before each.

    ``clock[0]`` is the time of the last arrival; ``state`` = (jobs in the event heap, free slots,
    batch or -1 during the warm-up, jobs in the system). Batch k starts at arrival ``boundaries[k]``.

    Why one function without helpers: numba counts references to every array handed to another
    compiled function, inlined or not (an atomic increment and decrement per array per call), and
    with the heap, the per-server lists and the work of the jobs passed to a helper at every step,
    that counting took most of the time. Here the arrays are unpacked once per chunk of arrivals
    and every step of the loop only indexes them.

    The loop is a small state machine so that the heap is updated in one place: a step of Algorithm
    1 (a job leaving service at the top of the heap, the end of its service or interruption, an
    arrival) lists the rate changes it causes, each an amount added to a job's rate (a job leaving
    service: minus its rate; the next job of a list that it headed: the server's capacity; a job
    joining the end of the queue: the capacity of the servers it heads at once), and the next pass
    applies them in that order: bring the job's work up to date at its old rate, then move its next
    event in the heap (remove it when the job holds no server). The changes are those, and in the
    order, of Algorithm 1 served one at a time, so the numbers do not depend on this arrangement.
    """
    width = job_servers.shape[1]
    n = interarrival.shape[0]
    t = clock[0]
    heap_size, n_free, b, jobs = state[HEAP], state[FREE], state[BATCH], state[JOBS]
    change_slot = np.empty(width + 1, dtype=np.int64)      # pending rate changes: at most one per server, plus one
    change_rate = np.empty(width + 1)
    changes = 0
    retiring = -1                                         # job at the top of the heap, its work up to date
    j = 0
    arrival_time = t + interarrival[0] if n > 0 else t
    while True:
        for c in range(changes):
            slot = change_slot[c]
            new_rate = rate[slot] + change_rate[c]
            done = rate[slot] * (t - since[slot])
            remaining[slot] -= done
            to_interrupt[slot] -= done
            since[slot] = t
            rate[slot] = new_rate
            key = np.inf
            if new_rate > 0.0:
                key = t + max(min(remaining[slot], to_interrupt[slot]), 0.0) / new_rate
            position = heap_pos[slot]
            if key == np.inf:                             # out of service: the heap's last entry fills its place
                if position < 0:
                    continue
                heap_pos[slot] = -1
                heap_size -= 1
                if position == heap_size:
                    continue
                slot, key = heap_slot[heap_size], heap_key[heap_size]
            elif position < 0:
                position = heap_size
                heap_size += 1
            while position > 0:                           # sift (slot, key) up from position, then down
                parent = (position - 1) >> 1
                if heap_key[parent] <= key:
                    break
                heap_slot[position], heap_key[position] = heap_slot[parent], heap_key[parent]
                heap_pos[heap_slot[position]] = position
                position = parent
            while True:
                child = 2 * position + 1
                if child >= heap_size:
                    break
                if child + 1 < heap_size and heap_key[child + 1] < heap_key[child]:
                    child += 1
                if heap_key[child] >= key:
                    break
                heap_slot[position], heap_key[position] = heap_slot[child], heap_key[child]
                heap_pos[heap_slot[position]] = position
                position = child
            heap_slot[position], heap_key[position] = slot, key
            heap_pos[slot] = position
        changes = 0
        entering, label, step = -1, -1, 0                 # a job joining the queue; a class whose count steps
        if retiring >= 0:
            # Out of every list: the next job of each list it headed gets that server (node slot * width + k
            # stands for the job's k-th server; a job holds a server exactly when it heads that server's list).
            event, retiring = retiring, -1
            for k in range(job_width[event]):
                s = job_servers[event, k]
                node = event * width + k
                before, after = node_prev[node], node_next[node]
                if before >= 0:
                    node_next[before] = after
                else:
                    head[s] = after
                if after >= 0:
                    node_prev[after] = before
                else:
                    tail[s] = before
                if before < 0 and after >= 0 and capacities[s] > 0.0:
                    change_slot[changes], change_rate[changes] = after // width, capacities[s]
                    changes += 1
            if remaining[event] <= to_interrupt[event]:
                label, step = job_label[event], -1
                free[n_free] = event
                n_free += 1
                if b >= 0:
                    departed[b] += 1
            else:
                to_interrupt[event] = np.inf if theta == np.inf else theta * rng.standard_exponential()
                entering = event
                if b >= 0:
                    interrupted[b] += 1
        elif j == n:
            break
        elif heap_size > 0 and heap_key[0] <= arrival_time:
            t = heap_key[0]
            retiring = heap_slot[0]
            change_slot[0], change_rate[0] = retiring, -rate[retiring]
            changes = 1
            continue
        else:
            t = arrival_time
            if first + j == boundaries[b + 1]:
                integrate(count, last, area, b, t)
                b += 1
                start[b] = t
            if b >= 0:
                arrivals[b, labels[j]] += 1
            if jobs < max_jobs:
                if b >= 0:
                    admitted[b, labels[j]] += 1
                n_free -= 1
                entering = free[n_free]
                label, step = labels[j], 1
                job_label[entering] = label
                job_width[entering] = widths[j]
                for k in range(widths[j]):
                    job_servers[entering, k] = servers[j, k]
                remaining[entering] = sizes[j]
                to_interrupt[entering] = np.inf if theta == np.inf else theta * rng.standard_exponential()
                rate[entering] = 0.0
                since[entering] = t
            j += 1
            if j < n:
                arrival_time = t + interarrival[j]
        if entering >= 0:                                 # to the end of the queue, with the servers it heads
            held = 0.0
            for k in range(job_width[entering]):
                s = job_servers[entering, k]
                node = entering * width + k
                node_next[node] = -1
                node_prev[node] = tail[s]
                if tail[s] >= 0:
                    node_next[tail[s]] = node
                else:
                    head[s] = node
                tail[s] = node
                if head[s] == node:
                    held += capacities[s]
            change_slot[changes], change_rate[changes] = entering, held
            changes += 1
        if step != 0:                                     # ∫ x_label dt up to t, then x_label changes
            if b >= 0:
                area[b, label] += count[label] * (t - last[label])
            last[label] = t
            count[label] += step
            jobs += step
    state[HEAP], state[FREE], state[BATCH], state[JOBS] = heap_size, n_free, b, jobs
    clock[0] = t


class JobPool:
    """Per-job arrays of a replication, grown (doubled) before a chunk of arrivals could overflow them."""

    _FLOAT = ("remaining", "to_interrupt", "rate", "since", "heap_key")
    _INT = ("job_label", "job_width", "heap_slot")
    _LINKS = ("heap_pos", "node_next", "node_prev")

    def __init__(self, slots: int, width: int) -> None:
        self.width = width
        for name in self._FLOAT:
            setattr(self, name, np.zeros(slots))
        for name in self._INT:
            setattr(self, name, np.zeros(slots, dtype=np.int64))
        self.heap_pos = np.full(slots, -1, dtype=np.int64)
        self.node_next = np.full(slots * width, -1, dtype=np.int64)
        self.node_prev = np.full(slots * width, -1, dtype=np.int64)
        self.job_servers = np.zeros((slots, width), dtype=np.int64)
        self.free = np.arange(slots - 1, -1, -1, dtype=np.int64)

    def ensure(self, state: np.ndarray, needed: int) -> None:
        """Enlarge every array so that ``needed`` more jobs fit (slots and nodes keep their indices)."""
        if state[FREE] >= needed:
            return
        size = self.rate.size
        extra = max(size, needed)
        for name in self._FLOAT + self._INT:
            setattr(self, name, np.concatenate([getattr(self, name), np.zeros(extra, getattr(self, name).dtype)]))
        self.heap_pos = np.concatenate([self.heap_pos, np.full(extra, -1, dtype=np.int64)])
        for name in ("node_next", "node_prev"):
            setattr(self, name, np.concatenate([getattr(self, name), np.full(extra * self.width, -1, dtype=np.int64)]))
        self.job_servers = np.concatenate([self.job_servers, np.zeros((extra, self.width), dtype=np.int64)])
        top = int(state[FREE])
        self.free = np.concatenate([self.free[:top], np.arange(size + extra - 1, size - 1, -1, dtype=np.int64)])
        state[FREE] = top + extra
