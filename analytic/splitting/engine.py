"""The compiled event loops of the multiserver-job simulator (numba; ``NUMBA_DISABLE_JIT=1`` runs the same code).

Two loops advance a replication by one chunk of arrivals and keep their state in arrays between
calls (:mod:`~analytic.splitting.simulation` drives them and owns the randomness):

* ``advance_dispatch`` — the non-preemptive policies: FCFS, First-Fit Back-Filling and myopic
  MaxWeight on a server set, optionally split as in Section 3.2 (BS-FCFS, ModifiedBS-FCFS: reserved
  sets A_i and helpers H). Waiting jobs sit in one FIFO list per class (linked through the job
  table); departures wait in an array heap; each event costs O(C log k) (MaxWeight: a knapsack
  over the idle servers when the waiting jobs do not all fit).
* ``advance_preemptive`` — the preemptive policies. Most Servers First and ServerFilling serve
  the oldest jobs of each need group, so they keep one arrival-ordered list per group and adjust
  its served prefix: O(groups + changes) per event. The others (SRPT, Gittins orders) put the jobs
  present in the policy's order (partial heap selection, or nothing to do when all fit) and pack
  them first-fit or ServerFilling-style: O(n) per event with n jobs present, plus O(log n) per job
  taken. The decision is a function argument, so a Python callable runs through the same loop (in
  Python, via ``advance_preemptive.py_func``).

Jobs live in a table of slots (``job_i`` integer and ``job_f`` float columns) that the driver
enlarges when a loop returns early for lack of free slots. Measurement: arrivals are numbered;
those in ``[boundaries[0], boundaries[-1])`` are counted, in batch ``b`` when their number lies in
``[boundaries[b], boundaries[b + 1])``; at its departure a counted job adds to its batch its
response time, whether it waited (first service after its arrival), whether it was sent to the
helpers on arrival and whether it was served there (under BS-FCFS rule 3 may move it to A_i); the
number of jobs present is integrated over each batch's time span.
"""

from __future__ import annotations

import numba
import numpy as np

from analytic._kernels import kernel
from analytic.simulation import heap_pop, heap_push

# job_i columns: PLACE is the reserved set A_c a job runs on (c >= 0) or -1 (the helpers, or the
# whole server set); SENT marks a job that rule 1 sent to the helpers
# (NEXT links a job into its class's queue; NEXT and PREV into its need group's list, GNEXT and GPREV
# into the list of all jobs present in arrival order)
CLASS, SEQ, BATCH, NEXT, PLACE, POS, SERVING, SENT, PREV, GNEXT, GPREV = range(11)
JOB_INT_COLUMNS = 11
# job_f columns
ARRIVAL, SIZE, START, REMAINING, FINISH = range(5)
JOB_FLOAT_COLUMNS = 5
# state (int64 array)
HEAP, FREE, BATCH_NOW, PRESENT, PENDING, HELPER_BUSY, NEXT_SEQ = range(7)
STATE_LENGTH = 7
# clock (float64 array): the last event, the end of the integrated area, the last arrival
NOW, AREA_SINCE, ARRIVED = range(3)
# helper modes and preemptive orders / packings
FCFS, FIRST_FIT, MAXWEIGHT = range(3)
BY_NEED, BY_ARRIVAL, BY_WORK, BY_GITTINS, BY_REMAINING = range(5)
PACK_FIRST_FIT, PACK_SERVER_FILLING = range(2)
# events passed to a preemptive decision
ARRIVAL_EVENT, DEPARTURE_EVENT = range(2)
# the state of the incremental decisions (aux: 6 arrays of one entry per need group, then 4 scalars)
HEAD, TAIL, COUNT, SERVED, BOUNDARY, IN_M = range(6)
AUX_GROUP_ROWS = 6
GHEAD, GTAIL, M_END, M_NEED = range(4)


# ---------------------------------------------------------------------------------------------
# Shared bookkeeping
# ---------------------------------------------------------------------------------------------

@kernel
def _integrate(t, state, clock, area):
    """Add the number of jobs present times the elapsed time to the current batch's area."""
    b = state[BATCH_NOW]
    if 0 <= b < area.shape[0]:
        area[b] += state[PRESENT] * (t - clock[AREA_SINCE])
    clock[AREA_SINCE] = t


@kernel
def _new_job(t, job_class, size, boundaries, state, clock, area, starts, free, job_i, job_f):
    """Take a slot for an arrival at time t; move to the next batch at its boundary; return the slot."""
    _integrate(t, state, clock, area)
    seq = state[NEXT_SEQ]
    batches = area.shape[0]
    while state[BATCH_NOW] < batches and seq == boundaries[state[BATCH_NOW] + 1]:
        state[BATCH_NOW] += 1
        starts[state[BATCH_NOW]] = t
    b = state[BATCH_NOW]
    state[FREE] -= 1
    slot = free[state[FREE]]
    job_i[slot, CLASS] = job_class
    job_i[slot, SEQ] = seq
    job_i[slot, BATCH] = b if 0 <= b < batches else -1
    job_i[slot, NEXT] = -1
    job_i[slot, PLACE] = -1
    job_i[slot, SERVING] = 0
    job_i[slot, SENT] = 0
    job_f[slot, ARRIVAL] = t
    job_f[slot, SIZE] = size
    job_f[slot, START] = -1.0
    job_f[slot, REMAINING] = size
    state[NEXT_SEQ] = seq + 1
    state[PRESENT] += 1
    if job_i[slot, BATCH] >= 0:
        state[PENDING] += 1
    return slot


@kernel
def _job_leaves(t, slot, state, clock, area, free, job_i, job_f, count, response, waited, helped):
    """Tally a departing job in its batch and free its slot.

    ``helped[b, c]`` counts the jobs sent to the helpers on arrival (0) and those served on them (1).
    """
    _integrate(t, state, clock, area)
    b = job_i[slot, BATCH]
    if b >= 0:
        c = job_i[slot, CLASS]
        count[b, c] += 1
        response[b, c] += t - job_f[slot, ARRIVAL]
        if job_f[slot, START] > job_f[slot, ARRIVAL]:
            waited[b, c] += 1
        if job_i[slot, SENT]:
            helped[b, c, 0] += 1
        if job_i[slot, PLACE] < 0:
            helped[b, c, 1] += 1
        state[PENDING] -= 1
    state[PRESENT] -= 1
    free[state[FREE]] = slot
    state[FREE] += 1


# ---------------------------------------------------------------------------------------------
# Non-preemptive policies, on a server set split or not (Section 3.2)
# ---------------------------------------------------------------------------------------------

@kernel
def _push_back(heads, tails, lengths, c, slot, job_i):
    if tails[c] < 0:
        heads[c] = slot
    else:
        job_i[tails[c], NEXT] = slot
    tails[c] = slot
    lengths[c] += 1


@kernel
def _pop_front(heads, tails, lengths, c, job_i):
    slot = heads[c]
    heads[c] = job_i[slot, NEXT]
    if heads[c] < 0:
        tails[c] = -1
    lengths[c] -= 1
    return slot


@kernel
def _start(t, slot, place, state, keys, items, job_i, job_f):
    """Start a job for good (non-preemptive): on A_place (place >= 0) or on the helpers (place -1)."""
    job_i[slot, PLACE] = place
    job_f[slot, START] = t
    state[HEAP] = heap_push(keys, items, state[HEAP], t + job_f[slot, SIZE], slot)


@kernel
def _oldest(heads, needs, free, fits_only, job_i):
    """The class whose first waiting job arrived first (among those that fit if ``fits_only``), or -1."""
    best = -1
    for c in range(heads.shape[0]):
        if heads[c] >= 0 and (not fits_only or needs[c] <= free):
            if best < 0 or job_i[heads[c], SEQ] < job_i[heads[best], SEQ]:
                best = c
    return best


@kernel
def _knapsack(values, weights, counts, capacity, take, item_group, item_copies, best, keep):
    """Bounded knapsack: maximize Σ values[g] x[g] s.t. Σ weights[g] x[g] <= capacity, x[g] <= counts[g].

    Binary splitting into 0/1 items and the textbook dynamic program; ``take[g]`` receives x[g].
    """
    items = 0
    for g in range(values.shape[0]):
        remaining = min(counts[g], capacity // weights[g])
        copies = 1
        while remaining > 0:
            m = min(copies, remaining)
            item_group[items] = g
            item_copies[items] = m
            items += 1
            remaining -= m
            copies *= 2
    best[:capacity + 1] = 0
    for j in range(items):
        w = weights[item_group[j]] * item_copies[j]
        v = values[item_group[j]] * item_copies[j]
        for cap in range(capacity, -1, -1):
            keep[j, cap] = False
            if cap >= w and best[cap - w] + v > best[cap]:
                best[cap] = best[cap - w] + v
                keep[j, cap] = True
    take[:] = 0
    cap = capacity
    for j in range(items - 1, -1, -1):
        if keep[j, cap]:
            take[item_group[j]] += item_copies[j]
            cap -= weights[item_group[j]] * item_copies[j]


@kernel
def _fill_helpers(t, mode, needs, helpers, heads, tails, lengths, state, keys, items, job_i, job_f,
                  groups, group_needs, present_by_class, scratch_i, best, keep):
    """Start waiting jobs on the helper (or whole) server set by FCFS, first fit or myopic MaxWeight."""
    place = -1
    while True:
        free = helpers - state[HELPER_BUSY]
        if mode == FCFS:
            c = _oldest(heads, needs, free, False, job_i)
            if c < 0 or needs[c] > free:
                return
        elif mode == FIRST_FIT:
            c = _oldest(heads, needs, free, True, job_i)
            if c < 0:
                return
        else:
            break
        slot = _pop_front(heads, tails, lengths, c, job_i)
        state[HELPER_BUSY] += needs[c]
        _start(t, slot, place, state, keys, items, job_i, job_f)
    # myopic MaxWeight: choose how many of each need start
    free = helpers - state[HELPER_BUSY]
    waiting_need = 0
    for c in range(needs.shape[0]):
        waiting_need += lengths[c] * needs[c]
    g_count = group_needs.shape[0]
    values, counts, take = scratch_i[0, :g_count], scratch_i[1, :g_count], scratch_i[2, :g_count]
    values[:] = 0
    counts[:] = 0
    for c in range(needs.shape[0]):
        values[groups[c]] += present_by_class[c]
        counts[groups[c]] += lengths[c]
    if waiting_need <= free:
        take[:] = counts
    else:
        _knapsack(values, group_needs, counts, free, take, scratch_i[3], scratch_i[4], best, keep)
    for g in range(g_count):
        for _ in range(take[g]):  # the oldest jobs of need group_needs[g]
            c = -1
            for d in range(needs.shape[0]):
                if groups[d] == g and heads[d] >= 0 and (c < 0 or job_i[heads[d], SEQ] < job_i[heads[c], SEQ]):
                    c = d
            slot = _pop_front(heads, tails, lengths, c, job_i)
            state[HELPER_BUSY] += needs[c]
            _start(t, slot, place, state, keys, items, job_i, job_f)


@kernel
def advance_dispatch(interarrival, job_classes, sizes, drain, boundaries, needs, slots, helpers, rule3, mode,
                     groups, group_needs, state, clock, keys, items, free, job_i, job_f, heads, tails, lengths,
                     reserved_busy, present_by_class, scratch_i, best, keep, count, response, waited, helped, area,
                     starts):
    """Advance a non-preemptive replication through a chunk of arrivals; return how many were taken.

    It returns early (fewer than ``interarrival.shape[0]``) when no job slot is free, so that the
    driver can enlarge the job table. With ``drain`` it ignores the arrivals and serves until no
    counted job is left (or the system is empty).
    """
    t = clock[NOW]
    n = interarrival.shape[0]
    j = 0
    while True:
        if drain:
            if state[PENDING] == 0 or state[HEAP] == 0:
                break
            arrival = np.inf
        else:
            if j >= n:
                break
            arrival = clock[ARRIVED] + interarrival[j]
        if state[HEAP] > 0 and keys[0] <= arrival:
            t, slot, state[HEAP] = heap_pop(keys, items, state[HEAP])
            c = job_i[slot, CLASS]
            place = job_i[slot, PLACE]
            present_by_class[c] -= 1
            _job_leaves(t, slot, state, clock, area, free, job_i, job_f, count, response, waited, helped)
            if place >= 0:  # a reserved set A_c
                if rule3 and lengths[c] > 0:  # rule 3: the oldest class-c job waiting in H takes the servers
                    _start(t, _pop_front(heads, tails, lengths, c, job_i), c, state, keys, items, job_i, job_f)
                else:
                    reserved_busy[c] -= 1
            else:
                state[HELPER_BUSY] -= needs[c]
        else:
            if state[FREE] == 0:
                break
            t = arrival
            clock[ARRIVED] = t
            c = job_classes[j]
            slot = _new_job(t, c, sizes[j], boundaries, state, clock, area, starts, free, job_i, job_f)
            present_by_class[c] += 1
            j += 1
            if reserved_busy[c] < slots[c]:  # rule 1: room in A_c
                reserved_busy[c] += 1
                _start(t, slot, c, state, keys, items, job_i, job_f)
                continue
            job_i[slot, SENT] = 1
            _push_back(heads, tails, lengths, c, slot, job_i)
        _fill_helpers(t, mode, needs, helpers, heads, tails, lengths, state, keys, items, job_i, job_f,
                      groups, group_needs, present_by_class, scratch_i, best, keep)
    clock[NOW] = t
    return j



# ---------------------------------------------------------------------------------------------
# Preemptive policies
# ---------------------------------------------------------------------------------------------

@kernel(inline="always")
def _remaining(t, slot, job_i, job_f):
    """Remaining service time of a job at time t."""
    return job_f[slot, FINISH] - t if job_i[slot, SERVING] else job_f[slot, REMAINING]


@kernel(inline="always")
def _interpolate(x, ages, ranks, first, last):
    """Linear interpolation of ranks[first:last] over ages[first:last] at x (constant beyond the ends)."""
    if x <= ages[first]:
        return ranks[first]
    if x >= ages[last - 1]:
        return ranks[last - 1]
    lo, hi = first, last - 1
    while hi - lo > 1:
        mid = (lo + hi) >> 1
        if ages[mid] <= x:
            lo = mid
        else:
            hi = mid
    share = (x - ages[lo]) / (ages[hi] - ages[lo])
    return ranks[lo] + share * (ranks[hi] - ranks[lo])


@kernel(inline="always")
def _before(p, q, key, tie):
    """Whether position p comes before position q: smaller key, ties by arrival (``tie``)."""
    return key[p] < key[q] or (key[p] == key[q] and tie[p] < tie[q])


@kernel(inline="always")
def _sift_down(heap, size, i, key, tie):
    item = heap[i]
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and _before(heap[child + 1], heap[child], key, tie):
            child += 1
        if not _before(heap[child], item, key, tie):
            break
        heap[i] = heap[child]
        i = child
    heap[i] = item


@kernel
def _ranked_target(t, servers, needs, groups, group_needs, present, n, job_i, job_f, config, tables, key, scratch, target):
    """The jobs to serve under a preemptive policy that ranks jobs: ``target[pos] = 1`` for each served.

    ``config`` = (order, packing, incremental, offsets of each class's Gittins table...), ``tables``
    = (ages, ranks). When all the jobs fit, all are served (O(n)); otherwise they are taken in order
    from a binary heap of their positions (built in O(n)) until the packing is done, so only the
    jobs that matter are sorted.
    """
    order, packing = config[0], config[1]
    heap, chosen, tie = scratch[0], scratch[1], scratch[2]
    total = 0
    for pos in range(n):
        total += needs[job_i[present[pos], CLASS]]
    if total <= servers:  # every job fits: every policy serves them all
        target[:n] = 1
        return
    smallest = servers + 1
    for pos in range(n):
        slot = present[pos]
        c = job_i[slot, CLASS]
        need = needs[c]
        smallest = min(smallest, need)
        if order == BY_NEED:
            key[pos] = -need
        elif order == BY_ARRIVAL:
            key[pos] = job_i[slot, SEQ]
        elif order == BY_WORK:
            key[pos] = need * _remaining(t, slot, job_i, job_f)
        elif order == BY_GITTINS:
            attained = job_f[slot, SIZE] - _remaining(t, slot, job_i, job_f)
            key[pos] = need * _interpolate(attained, tables[0], tables[1], config[3 + c], config[4 + c])
        else:
            key[pos] = _remaining(t, slot, job_i, job_f)
        tie[pos] = job_i[slot, SEQ]
        heap[pos] = pos
        target[pos] = 0
    for i in range(n // 2 - 1, -1, -1):
        _sift_down(heap, n, i, key, tie)
    size = n
    free = servers
    if packing == PACK_FIRST_FIT:
        while size > 0 and free >= smallest:
            pos = heap[0]
            size -= 1
            heap[0] = heap[size]
            _sift_down(heap, size, 0, key, tie)
            need = needs[job_i[present[pos], CLASS]]
            if need <= free:
                target[pos] = 1
                free -= need
        return
    # ServerFilling: M, the shortest prefix in this order whose needs reach k ...
    m = 0
    total = 0
    while size > 0 and total < servers:
        pos = heap[0]
        size -= 1
        heap[0] = heap[size]
        _sift_down(heap, size, 0, key, tie)
        chosen[m] = pos
        m += 1
        total += needs[job_i[present[pos], CLASS]]
    # ... placed by decreasing need: a stable counting sort by need group keeps the order among equal needs
    start = np.zeros(group_needs.shape[0] + 1, dtype=np.int64)
    for i in range(m):
        start[groups[job_i[present[chosen[i]], CLASS]]] += 1
    offset = 0
    for g in range(group_needs.shape[0] - 1, -1, -1):  # decreasing need
        count = start[g]
        start[g] = offset
        offset += count
    placed = heap  # the heap is spent: reuse it
    for i in range(m):
        g = groups[job_i[present[chosen[i]], CLASS]]
        placed[start[g]] = chosen[i]
        start[g] += 1
    for i in range(m):
        need = needs[job_i[present[placed[i]], CLASS]]
        if need > free:
            break
        target[placed[i]] = 1
        free -= need


@kernel
def _rebuild_heap(keys, items, state, present, job_i, job_f):
    """Drop the stale entries of the departure heap (jobs preempted since they were pushed)."""
    size = 0
    for pos in range(state[PRESENT]):
        slot = present[pos]
        if job_i[slot, SERVING]:
            size = heap_push(keys, items, size, job_f[slot, FINISH], slot)
    state[HEAP] = size


@kernel
def _serve(t, slot, state, keys, items, present, job_i, job_f):
    """Start or resume a job: it completes at t + its remaining size unless preempted."""
    if state[HEAP] == keys.shape[0]:
        _rebuild_heap(keys, items, state, present, job_i, job_f)
    if job_f[slot, START] < 0:
        job_f[slot, START] = t
    job_f[slot, FINISH] = t + job_f[slot, REMAINING]
    job_i[slot, SERVING] = 1
    state[HEAP] = heap_push(keys, items, state[HEAP], job_f[slot, FINISH], slot)


@kernel
def _preempt(t, slot, job_i, job_f):
    """Stop a job; its heap entry becomes stale."""
    job_f[slot, REMAINING] = job_f[slot, FINISH] - t
    job_i[slot, SERVING] = 0


@kernel
def apply_target(t, target, state, keys, items, present, job_i, job_f):
    """Start, resume or preempt jobs so that exactly the targeted ones are in service."""
    for pos in range(state[PRESENT]):
        slot = present[pos]
        if target[pos] and not job_i[slot, SERVING]:
            _serve(t, slot, state, keys, items, present, job_i, job_f)
        elif not target[pos] and job_i[slot, SERVING]:
            _preempt(t, slot, job_i, job_f)


# -- Most Servers First and ServerFilling, incrementally --------------------------------------
# Both serve, in each need group, the oldest jobs of the group (MSF: of all jobs present;
# ServerFilling: of M, a prefix of the jobs in arrival order, so again the oldest of the group), as
# many as a greedy packing of the group counts by decreasing need allows (with powers of two,
# ServerFilling's "until one does not fit" packs as the greedy does). Each group keeps its jobs in
# arrival order with a pointer to its last served one, so an event costs O(groups + changes).


@kernel
def _link(slot, g, aux, job_i):
    """Append a job to its group's list and to the list of all jobs (arrival order)."""
    tail = aux[TAIL, g]
    job_i[slot, PREV], job_i[slot, NEXT] = tail, -1
    if tail < 0:
        aux[HEAD, g] = slot
    else:
        job_i[tail, NEXT] = slot
    aux[TAIL, g] = slot
    aux[COUNT, g] += 1


@kernel
def _unlink(slot, g, aux, job_i):
    prev, nxt = job_i[slot, PREV], job_i[slot, NEXT]
    if prev < 0:
        aux[HEAD, g] = nxt
    else:
        job_i[prev, NEXT] = nxt
    if nxt < 0:
        aux[TAIL, g] = prev
    else:
        job_i[nxt, PREV] = prev
    if aux[BOUNDARY, g] == slot:
        aux[BOUNDARY, g] = prev
    aux[COUNT, g] -= 1


@kernel
def _incremental(event, slot, t, servers, needs, groups, group_needs, present, state, job_i, job_f, filling, aux,
                 scalars, keys, items):
    """Update the group lists (and, for ServerFilling, M) for one event, then serve each group's prefix."""
    g = groups[job_i[slot, CLASS]]
    need = needs[job_i[slot, CLASS]]
    if event == ARRIVAL_EVENT:
        _link(slot, g, aux, job_i)
        if filling:
            tail = scalars[GTAIL]
            job_i[slot, GPREV], job_i[slot, GNEXT] = tail, -1
            if tail < 0:
                scalars[GHEAD] = slot
            else:
                job_i[tail, GNEXT] = slot
            scalars[GTAIL] = slot
            if scalars[M_NEED] < servers:  # M holds every job: the new one joins it
                scalars[M_END] = slot
                scalars[M_NEED] += need
                aux[IN_M, g] += 1
    else:  # a departure: the job was served, so it was in its group's served prefix (and in M)
        _unlink(slot, g, aux, job_i)
        aux[SERVED, g] -= 1
        if filling:
            prev, nxt = job_i[slot, GPREV], job_i[slot, GNEXT]
            if prev < 0:
                scalars[GHEAD] = nxt
            else:
                job_i[prev, GNEXT] = nxt
            if nxt < 0:
                scalars[GTAIL] = prev
            else:
                job_i[nxt, GPREV] = prev
            if scalars[M_END] == slot:
                scalars[M_END] = prev
            scalars[M_NEED] -= need
            aux[IN_M, g] -= 1
            while scalars[M_NEED] < servers:  # extend M in arrival order
                nxt = scalars[GHEAD] if scalars[M_END] < 0 else job_i[scalars[M_END], GNEXT]
                if nxt < 0:
                    break
                scalars[M_END] = nxt
                scalars[M_NEED] += needs[job_i[nxt, CLASS]]
                aux[IN_M, groups[job_i[nxt, CLASS]]] += 1
    free = servers
    for h in range(group_needs.shape[0] - 1, -1, -1):  # decreasing need
        wanted = min(aux[IN_M, h] if filling else aux[COUNT, h], free // group_needs[h])
        free -= wanted * group_needs[h]
        while aux[SERVED, h] < wanted:
            node = aux[HEAD, h] if aux[BOUNDARY, h] < 0 else job_i[aux[BOUNDARY, h], NEXT]
            _serve(t, node, state, keys, items, present, job_i, job_f)
            aux[BOUNDARY, h] = node
            aux[SERVED, h] += 1
        while aux[SERVED, h] > wanted:
            node = aux[BOUNDARY, h]
            _preempt(t, node, job_i, job_f)
            aux[BOUNDARY, h] = job_i[node, PREV]
            aux[SERVED, h] -= 1


@kernel
def decide_builtin(event, slot, t, servers, needs, groups, group_needs, present, state, job_i, job_f, config, tables,
                   aux, scalars, key, scratch, target, keys, items):
    """Apply a built-in preemptive policy after an event (arrival or departure of ``slot``)."""
    if config[2]:
        _incremental(event, slot, t, servers, needs, groups, group_needs, present, state, job_i, job_f,
                     config[1] == PACK_SERVER_FILLING, aux, scalars, keys, items)
    else:
        _ranked_target(t, servers, needs, groups, group_needs, present, state[PRESENT], job_i, job_f, config, tables, key,
                       scratch, target)
        apply_target(t, target, state, keys, items, present, job_i, job_f)


@kernel
def _drop_stale(keys, items, state, job_i, job_f):
    """Pop heap entries of jobs that were preempted (or have left) since they were pushed."""
    while state[HEAP] > 0:
        slot = items[0]
        if job_i[slot, SERVING] and job_f[slot, FINISH] == keys[0]:
            return
        _, _, state[HEAP] = heap_pop(keys, items, state[HEAP])


# Not cached: its signature holds the type of the ``decide`` dispatcher, which numba's cache index
# does not round-trip between processes (every process missed and appended an entry, and saving the
# index failed once it held one whose dispatcher had vanished). It compiles in a few seconds per process.
@numba.njit
def advance_preemptive(interarrival, job_classes, sizes, drain, boundaries, needs, servers, decide, groups, group_needs,
                       config, tables, aux, scalars, state, clock, keys, items, free, job_i, job_f, present, key, scratch,
                       target, count, response, waited, helped, area, starts):
    """Advance a preemptive replication through a chunk of arrivals; return how many were taken.

    After each arrival or departure ``decide(event, slot, t, servers, needs, groups, group_needs,
    present, state, job_i, job_f, config, tables, aux, scalars, key, scratch, target, keys, items)``
    starts, resumes and preempts jobs (:func:`decide_builtin`, or a Python callable's adapter under
    ``advance_preemptive.py_func``). Returns early when no job slot is free; with ``drain`` it
    ignores the arrivals and serves until no counted job is left.
    """
    t = clock[NOW]
    n = interarrival.shape[0]
    j = 0
    while True:
        _drop_stale(keys, items, state, job_i, job_f)
        if drain:
            if state[PENDING] == 0 or state[HEAP] == 0:
                break
            arrival = np.inf
        else:
            if j >= n:
                break
            arrival = clock[ARRIVED] + interarrival[j]
        if state[HEAP] > 0 and keys[0] <= arrival:
            t, slot, state[HEAP] = heap_pop(keys, items, state[HEAP])
            job_i[slot, SERVING] = 0
            pos = job_i[slot, POS]
            last = present[state[PRESENT] - 1]
            present[pos] = last
            job_i[last, POS] = pos
            _job_leaves(t, slot, state, clock, area, free, job_i, job_f, count, response, waited, helped)
            event = DEPARTURE_EVENT
        else:
            if state[FREE] == 0:
                break
            t = arrival
            clock[ARRIVED] = t
            slot = _new_job(t, job_classes[j], sizes[j], boundaries, state, clock, area, starts, free, job_i, job_f)
            present[state[PRESENT] - 1] = slot
            job_i[slot, POS] = state[PRESENT] - 1
            j += 1
            event = ARRIVAL_EVENT
        decide(event, slot, t, servers, needs, groups, group_needs, present, state, job_i, job_f, config, tables, aux,
               scalars, key, scratch, target, keys, items)
    clock[NOW] = t
    return j
