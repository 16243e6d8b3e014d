# ruff: noqa: NPY002 (numba draws from its own legacy-API generator inside compiled code)
"""Plain compiled loops of the multiserver-job policies: the yardstick of ``benchmarks/simulation.py``.

One ``numba.njit`` function per policy, written as one would write a single simulation by hand:
every array local to the function, the departure heap and the queues inline, the random numbers
drawn inside the loop (numba's generator), no measurement batches. The model is the package's
(:func:`analytic.splitting.simulate_multiserver`): Poisson arrivals of rate ``rate``, classes
drawn with cumulative probabilities ``cumulative``, needs ``needs`` and exponential sizes of means
``means``, k servers. Each loop simulates ``jobs`` arrivals, counts those after the first
``warmup``, keeps arrivals coming (uncounted) until every counted job has left, and returns the
mean response time of the counted jobs and their number.

The algorithms are the package's (per-class FIFO queues and a departure heap for the
non-preemptive policies; per-need-group lists with a served prefix for MSF and ServerFilling;
partial heap selection for the ranked orders), so that the two do equal work and a ratio of speeds
measures what the package's structure costs. The ServerFilling-Gittins loop uses the Gittins rank
of an exponential size, its mean (constant in the attained service). MaxWeight has no reference.

The balanced-splitting loop agrees with the exact chain of a small system (BS-FCFS, k = 8, needs 1
and 2, load 0.4: E[R] 1.2650 ± 0.0008 over 20 runs of 10⁶ against the chain's 1.26509) and with the
package at k = 16, load 0.9 over 20 runs of each (BS-FCFS 5 479 ± 450 against 5 752 ± 478;
ModifiedBS 15 855 ± 352 against 15 984 ± 377). There a single run's E[R] varies by about 16 %
(BS-FCFS) between seeds, so one run of each can differ by thousands.

:func:`reference` maps a policy name and a class table to a call.
"""

from __future__ import annotations

import numba
import numpy as np

#: Job slots of a loop (jobs present at once); a loop raises if they run out.
CAPACITY = 1 << 18


@numba.njit
def _push(keys, items, size, key, item):
    """Binary min-heap insertion; returns the new size."""
    i = size
    while i > 0:
        parent = (i - 1) >> 1
        if keys[parent] <= key:
            break
        keys[i] = keys[parent]
        items[i] = items[parent]
        i = parent
    keys[i] = key
    items[i] = item
    return size + 1


@numba.njit
def _pop(keys, items, size):
    """Remove the root of a binary min-heap; returns (key, item, new size)."""
    key, item = keys[0], items[0]
    size -= 1
    last_key, last_item = keys[size], items[size]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and keys[child + 1] < keys[child]:
            child += 1
        if keys[child] >= last_key:
            break
        keys[i] = keys[child]
        items[i] = items[child]
        i = child
    keys[i] = last_key
    items[i] = last_item
    return key, item, size


@numba.njit
def _draw_class(cumulative):
    u = np.random.random()
    c = 0
    while c < cumulative.shape[0] - 1 and u >= cumulative[c]:
        c += 1
    return c


@numba.njit
def fcfs(servers, rate, cumulative, needs, means, jobs, warmup, seed):
    """FCFS: one FIFO queue; its head starts while it fits."""
    np.random.seed(seed)
    arrival, size, job_class = np.empty(CAPACITY), np.empty(CAPACITY), np.empty(CAPACITY, np.int64)
    counted_job = np.empty(CAPACITY, np.bool_)
    free = np.arange(CAPACITY)
    n_free = CAPACITY
    keys, items = np.empty(CAPACITY), np.empty(CAPACITY, np.int64)
    heap = 0
    queue = np.empty(CAPACITY, np.int64)
    q_head, q_len = 0, 0
    idle = servers
    t = 0.0
    next_arrival = np.random.exponential(1.0) / rate
    arrived = pending = counted = 0
    total = 0.0
    while arrived < jobs or pending > 0:
        if heap > 0 and keys[0] <= next_arrival:
            t, slot, heap = _pop(keys, items, heap)
            idle += needs[job_class[slot]]
            if counted_job[slot]:
                total += t - arrival[slot]
                counted += 1
                pending -= 1
            free[n_free] = slot
            n_free += 1
        else:
            t = next_arrival
            n_free -= 1
            slot = free[n_free]
            c = _draw_class(cumulative)
            job_class[slot], arrival[slot] = c, t
            size[slot] = np.random.exponential(means[c])
            counted_job[slot] = warmup <= arrived < jobs
            pending += counted_job[slot]
            arrived += 1
            next_arrival = t + np.random.exponential(1.0) / rate
            queue[(q_head + q_len) % CAPACITY] = slot
            q_len += 1
        while q_len > 0 and needs[job_class[queue[q_head]]] <= idle:
            slot = queue[q_head]
            q_head = (q_head + 1) % CAPACITY
            q_len -= 1
            idle -= needs[job_class[slot]]
            heap = _push(keys, items, heap, t + size[slot], slot)
    return total / counted, counted


@numba.njit
def ffbf(servers, rate, cumulative, needs, means, jobs, warmup, seed):
    """First-Fit Back-Filling: one FIFO list per class; the oldest head that fits starts, repeatedly."""
    np.random.seed(seed)
    classes = needs.shape[0]
    arrival, size, job_class = np.empty(CAPACITY), np.empty(CAPACITY), np.empty(CAPACITY, np.int64)
    seq, nxt = np.empty(CAPACITY, np.int64), np.empty(CAPACITY, np.int64)
    counted_job = np.empty(CAPACITY, np.bool_)
    free = np.arange(CAPACITY)
    n_free = CAPACITY
    keys, items = np.empty(CAPACITY), np.empty(CAPACITY, np.int64)
    heap = 0
    heads, tails = np.full(classes, -1, np.int64), np.full(classes, -1, np.int64)
    idle = servers
    t = 0.0
    next_arrival = np.random.exponential(1.0) / rate
    arrived = pending = counted = 0
    total = 0.0
    while arrived < jobs or pending > 0:
        if heap > 0 and keys[0] <= next_arrival:
            t, slot, heap = _pop(keys, items, heap)
            idle += needs[job_class[slot]]
            if counted_job[slot]:
                total += t - arrival[slot]
                counted += 1
                pending -= 1
            free[n_free] = slot
            n_free += 1
        else:
            t = next_arrival
            n_free -= 1
            slot = free[n_free]
            c = _draw_class(cumulative)
            job_class[slot], arrival[slot], seq[slot], nxt[slot] = c, t, arrived, -1
            size[slot] = np.random.exponential(means[c])
            counted_job[slot] = warmup <= arrived < jobs
            pending += counted_job[slot]
            arrived += 1
            next_arrival = t + np.random.exponential(1.0) / rate
            if tails[c] < 0:
                heads[c] = slot
            else:
                nxt[tails[c]] = slot
            tails[c] = slot
        while True:
            best = -1
            for c in range(classes):
                if heads[c] >= 0 and needs[c] <= idle and (best < 0 or seq[heads[c]] < seq[heads[best]]):
                    best = c
            if best < 0:
                break
            slot = heads[best]
            heads[best] = nxt[slot]
            if heads[best] < 0:
                tails[best] = -1
            idle -= needs[best]
            heap = _push(keys, items, heap, t + size[slot], slot)
    return total / counted, counted


@numba.njit
def balanced_splitting(servers, rate, cumulative, needs, means, jobs, warmup, seed, slots, helpers, rule3):
    """BS-FCFS (``rule3``) and ModifiedBS-FCFS: reserved sets of ``slots[c]`` class-c jobs, FCFS on the helpers."""
    np.random.seed(seed)
    classes = needs.shape[0]
    arrival, size, job_class = np.empty(CAPACITY), np.empty(CAPACITY), np.empty(CAPACITY, np.int64)
    seq, nxt, place = np.empty(CAPACITY, np.int64), np.empty(CAPACITY, np.int64), np.empty(CAPACITY, np.int64)
    counted_job = np.empty(CAPACITY, np.bool_)
    free = np.arange(CAPACITY)
    n_free = CAPACITY
    keys, items = np.empty(CAPACITY), np.empty(CAPACITY, np.int64)
    heap = 0
    heads, tails = np.full(classes, -1, np.int64), np.full(classes, -1, np.int64)
    reserved = np.zeros(classes, np.int64)
    idle = helpers
    t = 0.0
    next_arrival = np.random.exponential(1.0) / rate
    arrived = pending = counted = 0
    total = 0.0
    while arrived < jobs or pending > 0:
        if heap > 0 and keys[0] <= next_arrival:
            t, slot, heap = _pop(keys, items, heap)
            c = job_class[slot]
            if counted_job[slot]:
                total += t - arrival[slot]
                counted += 1
                pending -= 1
            free[n_free] = slot
            n_free += 1
            if place[slot] < 0:
                idle += needs[c]
            elif rule3 and heads[c] >= 0:  # the oldest class-c job waiting for the helpers takes the servers
                slot = heads[c]
                heads[c] = nxt[slot]
                if heads[c] < 0:
                    tails[c] = -1
                place[slot] = c
                heap = _push(keys, items, heap, t + size[slot], slot)
            else:
                reserved[c] -= 1
        else:
            t = next_arrival
            n_free -= 1
            slot = free[n_free]
            c = _draw_class(cumulative)
            job_class[slot], arrival[slot], seq[slot], nxt[slot] = c, t, arrived, -1
            size[slot] = np.random.exponential(means[c])
            counted_job[slot] = warmup <= arrived < jobs
            pending += counted_job[slot]
            arrived += 1
            next_arrival = t + np.random.exponential(1.0) / rate
            if reserved[c] < slots[c]:
                reserved[c] += 1
                place[slot] = c
                heap = _push(keys, items, heap, t + size[slot], slot)
                continue
            place[slot] = -1
            if tails[c] < 0:
                heads[c] = slot
            else:
                nxt[tails[c]] = slot
            tails[c] = slot
        while True:
            best = -1
            for c in range(classes):
                if heads[c] >= 0 and (best < 0 or seq[heads[c]] < seq[heads[best]]):
                    best = c
            if best < 0 or needs[best] > idle:
                break
            slot = heads[best]
            heads[best] = nxt[slot]
            if heads[best] < 0:
                tails[best] = -1
            idle -= needs[best]
            heap = _push(keys, items, heap, t + size[slot], slot)
    return total / counted, counted


@numba.njit
def grouped(servers, rate, cumulative, needs, means, jobs, warmup, seed, groups, group_needs, filling):
    """MSF (``filling`` False) and ServerFilling: per need group, the oldest jobs are served, as many as fit
    greedily by decreasing need (of all jobs for MSF, of M, the shortest arrival-order prefix reaching k, for
    ServerFilling); each group keeps its jobs in arrival order and a pointer to its last served one."""
    np.random.seed(seed)
    n_groups = group_needs.shape[0]
    arrival, finish, remaining = np.empty(CAPACITY), np.empty(CAPACITY), np.empty(CAPACITY)
    job_class, prev, nxt = np.empty(CAPACITY, np.int64), np.empty(CAPACITY, np.int64), np.empty(CAPACITY, np.int64)
    all_prev, all_next = np.empty(CAPACITY, np.int64), np.empty(CAPACITY, np.int64)
    serving, counted_job = np.zeros(CAPACITY, np.bool_), np.empty(CAPACITY, np.bool_)
    free = np.arange(CAPACITY)
    n_free = CAPACITY
    keys, items = np.empty(4 * CAPACITY), np.empty(4 * CAPACITY, np.int64)
    heap = 0
    head, tail = np.full(n_groups, -1, np.int64), np.full(n_groups, -1, np.int64)
    last_served = np.full(n_groups, -1, np.int64)
    count, served, in_m = np.zeros(n_groups, np.int64), np.zeros(n_groups, np.int64), np.zeros(n_groups, np.int64)
    all_head = all_tail = m_end = -1
    m_need = 0
    t = 0.0
    next_arrival = np.random.exponential(1.0) / rate
    arrived = pending = counted = 0
    total = 0.0
    while arrived < jobs or pending > 0:
        while heap > 0 and not (serving[items[0]] and finish[items[0]] == keys[0]):  # stale entries
            _, _, heap = _pop(keys, items, heap)
        if heap > 0 and keys[0] <= next_arrival:
            t, slot, heap = _pop(keys, items, heap)
            serving[slot] = False
            c = job_class[slot]
            g = groups[c]
            if counted_job[slot]:
                total += t - arrival[slot]
                counted += 1
                pending -= 1
            free[n_free] = slot
            n_free += 1
            p, q = prev[slot], nxt[slot]
            if p < 0:
                head[g] = q
            else:
                nxt[p] = q
            if q < 0:
                tail[g] = p
            else:
                prev[q] = p
            if last_served[g] == slot:
                last_served[g] = p
            count[g] -= 1
            served[g] -= 1
            if filling:
                p, q = all_prev[slot], all_next[slot]
                if p < 0:
                    all_head = q
                else:
                    all_next[p] = q
                if q < 0:
                    all_tail = p
                else:
                    all_prev[q] = p
                if m_end == slot:
                    m_end = p
                m_need -= needs[c]
                in_m[g] -= 1
                while m_need < servers:
                    q = all_head if m_end < 0 else all_next[m_end]
                    if q < 0:
                        break
                    m_end = q
                    m_need += needs[job_class[q]]
                    in_m[groups[job_class[q]]] += 1
        else:
            t = next_arrival
            n_free -= 1
            slot = free[n_free]
            c = _draw_class(cumulative)
            g = groups[c]
            job_class[slot], arrival[slot] = c, t
            remaining[slot] = np.random.exponential(means[c])
            counted_job[slot] = warmup <= arrived < jobs
            pending += counted_job[slot]
            arrived += 1
            next_arrival = t + np.random.exponential(1.0) / rate
            prev[slot], nxt[slot] = tail[g], -1
            if tail[g] < 0:
                head[g] = slot
            else:
                nxt[tail[g]] = slot
            tail[g] = slot
            count[g] += 1
            if filling:
                all_prev[slot], all_next[slot] = all_tail, -1
                if all_tail < 0:
                    all_head = slot
                else:
                    all_next[all_tail] = slot
                all_tail = slot
                if m_need < servers:
                    m_end = slot
                    m_need += needs[c]
                    in_m[g] += 1
        idle = servers
        for h in range(n_groups - 1, -1, -1):
            wanted = min(in_m[h] if filling else count[h], idle // group_needs[h])
            idle -= wanted * group_needs[h]
            while served[h] < wanted:
                node = head[h] if last_served[h] < 0 else nxt[last_served[h]]
                serving[node] = True
                finish[node] = t + remaining[node]
                heap = _push(keys, items, heap, finish[node], node)
                last_served[h] = node
                served[h] += 1
            while served[h] > wanted:
                node = last_served[h]
                serving[node] = False
                remaining[node] = finish[node] - t
                last_served[h] = prev[node]
                served[h] -= 1
    return total / counted, counted


@numba.njit
def _before(p, q, key, tie):
    return key[p] < key[q] or (key[p] == key[q] and tie[p] < tie[q])


@numba.njit
def _sift(order, size, i, key, tie):
    item = order[i]
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and _before(order[child + 1], order[child], key, tie):
            child += 1
        if not _before(order[child], item, key, tie):
            break
        order[i] = order[child]
        i = child
    order[i] = item


@numba.njit
def ranked(servers, rate, cumulative, needs, means, jobs, warmup, seed, groups, group_needs, rank, filling):
    """The ranked preemptive policies: key ``need x remaining`` (rank 0, SF-SRPT), ``need x mean``
    (rank 1, the Gittins rank of an exponential size) or ``remaining`` (rank 2, FF-SRPT), ties by arrival;
    ServerFilling packing (``filling``) or first fit. All jobs are served when they fit; otherwise they
    are taken from a heap of the jobs present until the packing is done."""
    np.random.seed(seed)
    n_groups = group_needs.shape[0]
    arrival, finish, remaining = np.empty(CAPACITY), np.empty(CAPACITY), np.empty(CAPACITY)
    job_class, seq, where = np.empty(CAPACITY, np.int64), np.empty(CAPACITY, np.int64), np.empty(CAPACITY, np.int64)
    serving, counted_job = np.zeros(CAPACITY, np.bool_), np.empty(CAPACITY, np.bool_)
    free = np.arange(CAPACITY)
    n_free = CAPACITY
    keys, items = np.empty(4 * CAPACITY), np.empty(4 * CAPACITY, np.int64)
    heap = 0
    present, key, tie = np.empty(CAPACITY, np.int64), np.empty(CAPACITY), np.empty(CAPACITY, np.int64)
    order, chosen, target = np.empty(CAPACITY, np.int64), np.empty(CAPACITY, np.int64), np.empty(CAPACITY, np.bool_)
    start = np.zeros(n_groups + 1, np.int64)
    n = 0
    t = 0.0
    next_arrival = np.random.exponential(1.0) / rate
    arrived = pending = counted = 0
    total = 0.0
    while arrived < jobs or pending > 0:
        while heap > 0 and not (serving[items[0]] and finish[items[0]] == keys[0]):  # stale entries
            _, _, heap = _pop(keys, items, heap)
        if heap > 0 and keys[0] <= next_arrival:
            t, slot, heap = _pop(keys, items, heap)
            serving[slot] = False
            if counted_job[slot]:
                total += t - arrival[slot]
                counted += 1
                pending -= 1
            free[n_free] = slot
            n_free += 1
            n -= 1
            present[where[slot]] = present[n]
            where[present[n]] = where[slot]
        else:
            t = next_arrival
            n_free -= 1
            slot = free[n_free]
            c = _draw_class(cumulative)
            job_class[slot], arrival[slot], seq[slot] = c, t, arrived
            remaining[slot] = np.random.exponential(means[c])
            counted_job[slot] = warmup <= arrived < jobs
            pending += counted_job[slot]
            arrived += 1
            next_arrival = t + np.random.exponential(1.0) / rate
            present[n], where[slot] = slot, n
            n += 1
        need_present = 0
        for pos in range(n):
            need_present += needs[job_class[present[pos]]]
        if need_present <= servers:
            for pos in range(n):
                target[pos] = True
        else:
            for pos in range(n):
                slot = present[pos]
                c = job_class[slot]
                left = finish[slot] - t if serving[slot] else remaining[slot]
                key[pos] = needs[c] * left if rank == 0 else (needs[c] * means[c] if rank == 1 else left)
                tie[pos] = seq[slot]
                order[pos] = pos
                target[pos] = False
            for i in range(n // 2 - 1, -1, -1):
                _sift(order, n, i, key, tie)
            size = n
            idle = servers
            if not filling:
                smallest = group_needs[0]
                while size > 0 and idle >= smallest:
                    pos = order[0]
                    size -= 1
                    order[0] = order[size]
                    _sift(order, size, 0, key, tie)
                    if needs[job_class[present[pos]]] <= idle:
                        target[pos] = True
                        idle -= needs[job_class[present[pos]]]
            else:
                m = 0
                reach = 0
                while size > 0 and reach < servers:
                    pos = order[0]
                    size -= 1
                    order[0] = order[size]
                    _sift(order, size, 0, key, tie)
                    chosen[m] = pos
                    m += 1
                    reach += needs[job_class[present[pos]]]
                start[:] = 0
                for i in range(m):
                    start[groups[job_class[present[chosen[i]]]]] += 1
                offset = 0
                for g in range(n_groups - 1, -1, -1):
                    number = start[g]
                    start[g] = offset
                    offset += number
                for i in range(m):
                    g = groups[job_class[present[chosen[i]]]]
                    order[start[g]] = chosen[i]
                    start[g] += 1
                for i in range(m):
                    need = needs[job_class[present[order[i]]]]
                    if need > idle:
                        break
                    target[order[i]] = True
                    idle -= need
        for pos in range(n):
            slot = present[pos]
            if target[pos] and not serving[slot]:
                serving[slot] = True
                finish[slot] = t + remaining[slot]
                if heap == keys.shape[0]:
                    raise IndexError("departure heap full")
                heap = _push(keys, items, heap, finish[slot], slot)
            elif not target[pos] and serving[slot]:
                serving[slot] = False
                remaining[slot] = finish[slot] - t
    return total / counted, counted


def reference(policy: str, servers: int, rate: float, classes, jobs: int, warmup: int, seed: int):
    """Run the plain loop of ``policy`` (a name of :data:`analytic.splitting.POLICIES` but MaxWeight) on
    exponential classes; returns (mean response time, counted jobs)."""
    from analytic.splitting.bounds import split_servers

    needs = np.array([c.need for c in classes], dtype=np.int64)
    means = np.array([float(c.mean_size) for c in classes])
    cumulative = np.cumsum([float(c.probability) for c in classes])
    cumulative[-1] = 1.0
    group_needs, groups = np.unique(needs, return_inverse=True)
    groups, group_needs = groups.astype(np.int64), group_needs.astype(np.int64)
    common = (servers, rate, cumulative, needs, means, jobs, warmup, seed)
    if policy == "fcfs":
        return fcfs(*common)
    if policy == "ffbf":
        return ffbf(*common)
    if policy in ("bs-fcfs", "modified-bs-fcfs"):
        rule3 = policy == "bs-fcfs"
        slots, helpers = split_servers(servers, rate, classes, modified=not rule3)
        return balanced_splitting(*common, np.array(slots, dtype=np.int64), helpers, rule3)
    if policy in ("msf", "server-filling"):
        return grouped(*common, groups, group_needs, policy == "server-filling")
    ranks = {"server-filling-srpt": (0, True), "server-filling-gittins": (1, True), "ff-srpt": (2, False)}
    if policy in ranks:
        return ranked(*common, groups, group_needs, *ranks[policy])
    raise ValueError(f"no reference loop for {policy!r}")
