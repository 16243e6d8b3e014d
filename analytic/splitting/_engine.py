"""The compiled event loops of the multiserver-job simulator (numba; ``NUMBA_DISABLE_JIT=1`` runs the same code).

Three loops, one per policy family (the driver, :mod:`~analytic.splitting.simulation`, picks one
per replication, so no loop dispatches on the family), advance a replication by one chunk of
arrivals and keep their state in arrays between calls (the driver owns the randomness):

* ``advance_dispatch`` — the non-preemptive policies: FCFS, First-Fit Back-Filling and myopic
  MaxWeight on a server set, optionally split as in Section 3.2 (BS-FCFS, ModifiedBS-FCFS: reserved
  sets A_i and helpers H). Waiting jobs sit in FIFO lists linked through the job table: one for
  all classes under FCFS and ModifiedBS-FCFS, which need only the arrival order, one per class
  otherwise; departures wait in an array heap; each event costs O(C log k) (MaxWeight: a knapsack
  over the idle servers when the waiting jobs do not all fit).
* ``advance_grouped`` — Most Servers First and ServerFilling, which serve the oldest jobs of each
  need group: one arrival-ordered list per group and its served prefix, adjusted at each event in
  O(groups + changes).
* ``advance_preemptive`` — the other preemptive policies (SRPT and Gittins orders), which put the
  jobs present in the policy's order (partial heap selection, or nothing to do when all fit) and
  pack them first-fit or ServerFilling-style: O(n) per event with n jobs present, plus O(log n)
  per job taken. The decision is a function argument, so a Python callable runs through the same
  loop (in Python, via ``advance_preemptive.py_func``).

Why the code is shaped as it is: every kernel here allocates nothing and is compiled without
numba's runtime (``_refcount_free``), so that no call increments or decrements the reference
count of the arrays it receives (with the runtime, those atomic operations took half of all the
time); the loops hold the scalars of the state in local variables, loaded on entry and stored on
exit; the helpers called at every event are small and take few arrays, so LLVM inlines them.
The results are those of the former loops, number for number.

Jobs live in a table of slots (``job_i`` integer and ``job_f`` float fields) that the driver
allocates and enlarges by rows when a loop returns early for lack of free slots. The kernels index
it ``[field, slot]``. The dispatch loop lays its memory out field by field (:func:`_by_column`),
as separate arrays would be, and a job writes only the fields its loop reads: with 10^5 jobs
waiting (ModifiedBS at k = 16, load 0.9) each field touched costs a cache miss per job, and rows of
16 fields made that loop 15-20 % slower. The preemptive loops read the driver's rows through a
transposed view: by field, the grouped loop ran 3-8 % slower (its few jobs stay in cache), and a
callable policy's adapter reads the rows.

A call runs in one of three phases: the counted arrivals (``ARRIVALS``); the uncounted arrivals
after them, until the last counted job leaves (``EXTRA``: the loop returns then, however much of
the chunk is left); no arrivals (``DRAIN``). Measurement: arrivals are numbered; those in
``[boundaries[0], boundaries[-1])`` are counted, in batch ``b`` when their number lies in
``[boundaries[b], boundaries[b + 1])``; at its departure a counted job adds to its batch its
response time, whether it waited (first service after its arrival), whether it was sent to the
helpers on arrival and whether it was served there (under BS-FCFS rule 3 may move it to A_i); the
number of jobs present is integrated over each batch's time span.

Why one module (about 850 lines): the three loops share the helpers, the job table's fields and its
layout, and numba inlines the helpers into each loop; split apart, code compiled together would be
read in several files.
"""

from __future__ import annotations

import numba
import numpy as np

from analytic._kernels import kernel
from analytic.simulation import heap_pop, heap_push

#: ``@kernel`` compiled without numba's runtime (NRT): these kernels allocate nothing, so they need
#: no reference counts, and numba then neither increments nor decrements the count of every array a
#: call receives (atomic operations that took half of all the time when each event called helpers
#: passed 5-18 arrays). An allocation in one of them fails to compile.
_refcount_free = kernel(_nrt=False)

# job_i fields (the kernels index ``job_i[field, slot]``, module docstring): FLAGS holds the bits below
# (NEXT links a job into its class's queue; NEXT and PREV into its need group's list, GNEXT and GPREV
# into the list of all jobs present in arrival order)
CLASS, SEQ, BATCH, NEXT, FLAGS, POS, SERVING, PREV, GNEXT, GPREV = range(10)
JOB_INT_COLUMNS = 10
# FLAGS: rule 1 sent the job to the helpers; its first service came after its arrival; it runs on its
# class's reserved set A_c (not on the helpers, nor on the whole server set); it has been served
SENT, WAITED, RESERVED, STARTED = 1, 2, 4, 8
# job_f fields
ARRIVAL, SIZE, REMAINING, FINISH = range(4)
JOB_FLOAT_COLUMNS = 4
# state (int64 array); LAID_OUT: the number of slots the dispatch loop laid the job tables out for
HEAP, FREE, BATCH_NOW, PRESENT, PENDING, HELPER_BUSY, NEXT_SEQ, LAID_OUT = range(8)
STATE_LENGTH = 8
# clock (float64 array): the last event, the end of the integrated area, the last arrival
NOW, AREA_SINCE, ARRIVED = range(3)
# phases of a call: the counted arrivals; the extra (uncounted) arrivals until no counted job is
# left; the drain without arrivals
ARRIVALS, EXTRA, DRAIN = range(3)
# helper modes and preemptive orders / packings
FCFS, FIRST_FIT, MAXWEIGHT = range(3)
BY_NEED, BY_ARRIVAL, BY_WORK, BY_GITTINS, BY_REMAINING = range(5)
PACK_FIRST_FIT, PACK_SERVER_FILLING = range(2)
# the state of the incremental decisions (aux: 6 arrays of one entry per need group, then 4 scalars)
HEAD, TAIL, COUNT, SERVED, BOUNDARY, IN_M = range(6)
AUX_GROUP_ROWS = 6
GHEAD, GTAIL, M_END, M_NEED = range(4)


# ---------------------------------------------------------------------------------------------
# Shared bookkeeping
# ---------------------------------------------------------------------------------------------
@_refcount_free
def _by_column(table, laid_out):
    """Lay the job table (``slots`` rows of ``width`` by the driver) out as ``width`` columns of ``slots``,
    in place; the caller then views it as ``table.reshape((width, slots))`` (module docstring: why).

    The driver enlarges a table by rows (``np.concatenate``), which keeps its memory's prefix: the
    columns laid out for ``laid_out`` slots move to the stride of the current size, the last column
    first and each from its end, so that nothing is overwritten before it moves.
    """
    slots, width = table.shape
    flat = table.reshape(slots * width)
    if laid_out != slots:
        for column in range(width - 1, 0, -1):
            for slot in range(laid_out - 1, -1, -1):
                flat[column * slots + slot] = flat[column * laid_out + slot]


@_refcount_free
def _integrate(t, since, batch, present, area):
    """Add the number of jobs present times the time elapsed since ``since`` to the batch's area."""
    if 0 <= batch < area.shape[0]:
        area[batch] += present * (t - since)


@_refcount_free
def _next_batch(t, seq, batch, boundaries, starts):
    """The batch of arrival number ``seq`` (recording the start time of each batch entered)."""
    while batch < starts.shape[0] - 1 and seq == boundaries[batch + 1]:
        batch += 1
        starts[batch] = t
    return batch


@_refcount_free
def _admit(slot, t, job_class, size, seq, batch, job_i, job_f):
    """Fill the fields of an arriving job that every loop reads (``batch`` -1 when it is not counted).

    The others are written where a loop needs them (NEXT when a job joins a queue, FLAGS when it
    starts, :func:`_add_present` in the preemptive loops): each field written is one more cache line
    per job when 10^5 of them wait.
    """
    job_i[CLASS, slot] = job_class
    job_i[SEQ, slot] = seq
    job_i[BATCH, slot] = batch
    job_i[FLAGS, slot] = 0
    job_f[ARRIVAL, slot] = t
    job_f[SIZE, slot] = size


@_refcount_free
def _tally(t, slot, job_i, job_f, count, response, waited, helped):
    """Add a departing job to its batch's sums; return whether it was counted.

    ``helped[b, c]`` counts the jobs sent to the helpers on arrival (0) and those served on them (1).
    """
    b = job_i[BATCH, slot]
    if b < 0:
        return False
    c = job_i[CLASS, slot]
    count[b, c] += 1
    response[b, c] += t - job_f[ARRIVAL, slot]
    flags = job_i[FLAGS, slot]
    if flags & WAITED:
        waited[b, c] += 1
    if flags & SENT:
        helped[b, c, 0] += 1
    if not flags & RESERVED:
        helped[b, c, 1] += 1
    return True


@kernel
def draw_classes(uniforms, cumulative):
    """The class of each arrival, the number of cumulative probabilities <= its uniform (at most the
    last class), and the number of arrivals of each class."""
    classes = np.empty(uniforms.shape[0], dtype=np.int64)
    counts = np.zeros(cumulative.shape[0], dtype=np.int64)
    last = cumulative.shape[0] - 1
    for j in range(uniforms.shape[0]):
        c = 0
        while c < last and cumulative[c] <= uniforms[j]:
            c += 1
        classes[j] = c
        counts[c] += 1
    return classes, counts


@kernel
def in_arrival_order(classes, counts, samples):
    """The sizes in arrival order from ``samples``, the sizes of class 0, then class 1, ... (``counts``
    of each): the j-th arrival of class c takes the j-th size of class c."""
    offsets = np.zeros(counts.shape[0], dtype=np.int64)
    for c in range(1, counts.shape[0]):
        offsets[c] = offsets[c - 1] + counts[c - 1]
    sizes = np.empty(classes.shape[0])
    for j in range(classes.shape[0]):
        sizes[j] = samples[offsets[classes[j]]]
        offsets[classes[j]] += 1
    return sizes


# ---------------------------------------------------------------------------------------------
# Non-preemptive policies, on a server set split or not (Section 3.2)
# ---------------------------------------------------------------------------------------------

@_refcount_free
def _push_back(heads, tails, lengths, c, slot, job_i):
    job_i[NEXT, slot] = -1
    if tails[c] < 0:
        heads[c] = slot
    else:
        job_i[NEXT, tails[c]] = slot
    tails[c] = slot
    lengths[c] += 1


@_refcount_free
def _pop_front(heads, tails, lengths, c, job_i):
    slot = heads[c]
    heads[c] = job_i[NEXT, slot]
    if heads[c] < 0:
        tails[c] = -1
    lengths[c] -= 1
    return slot


@_refcount_free
def _start(t, slot, reserved, heap, keys, items, job_i, job_f):
    """Start a job for good (non-preemptive) on its class's reserved set (``reserved``) or on the helpers;
    return the heap size."""
    job_i[FLAGS, slot] |= (RESERVED if reserved else 0) | (WAITED if t > job_f[ARRIVAL, slot] else 0)
    return heap_push(keys, items, heap, t + job_f[SIZE, slot], slot)


@kernel(inline="always", _nrt=False)
def _depart(keys, items, heap, n_present, since, batch, area, job_i, job_f, count, response, waited, helped, free,
            n_free):
    """The next departure, common to every loop: off the heap, the ``n_present`` jobs integrated up to
    its time, its response tallied, its slot returned to ``free[n_free]``. Returns its time, its slot,
    the heap's size and whether it was counted."""
    t, slot, heap = heap_pop(keys, items, heap)
    _integrate(t, since, batch, n_present, area)
    counted = _tally(t, slot, job_i, job_f, count, response, waited, helped)
    free[n_free] = slot
    return t, slot, heap, counted


@kernel(inline="always", _nrt=False)
def _arrive(t, j, since, batch, present, seq, n_free, area, boundaries, starts, free, job_classes, sizes, job_i, job_f):
    """Admit arrival ``j`` at time ``t`` into the last free slot (the caller drops it from ``free``):
    the number present integrated up to ``t``, the arrival's batch, its record. Returns the batch,
    whether it is counted and the slot."""
    _integrate(t, since, batch, present, area)
    batch = _next_batch(t, seq, batch, boundaries, starts)
    counted = 0 <= batch < area.shape[0]
    slot = free[n_free - 1]
    _admit(slot, t, job_classes[j], sizes[j], seq, batch if counted else -1, job_i, job_f)
    return batch, counted, slot


@kernel(inline="always", _nrt=False)
def _next_arrival(phase, pending, heap, j, arrived, interarrival):
    """The time of the next arrival the loop takes: ``inf`` while draining, -1 when the loop is done
    (draining with no counted job left or nothing in service; the chunk used up; in phase ``EXTRA``,
    no counted job left)."""
    if phase == DRAIN:
        return -1.0 if pending == 0 or heap == 0 else np.inf
    if j >= interarrival.shape[0] or (phase == EXTRA and pending == 0):
        return -1.0
    return arrived + interarrival[j]


@kernel(inline="always", _nrt=False)  # called once or twice per event: inlined, saves 5-10 % of the loop's time
def _oldest(heads, needs, free, fits_only, job_i):
    """The class whose first waiting job arrived first (among those that fit if ``fits_only``), or -1."""
    best = -1
    for c in range(heads.shape[0]):
        if heads[c] >= 0 and (not fits_only or needs[c] <= free):
            if best < 0 or job_i[SEQ, heads[c]] < job_i[SEQ, heads[best]]:
                best = c
    return best


@_refcount_free
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


@_refcount_free
def _fill_maxweight(t, free, heap, needs, heads, tails, lengths, keys, items, job_i, job_f, groups, group_needs,
                    present_by_class, scratch_i, best, keep):
    """Myopic MaxWeight on the ``free`` idle servers: choose how many of each need start (the oldest of
    each need); return the servers taken and the heap size. Called at every event of MaxWeight only."""
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
        for g in range(g_count):
            take[g] = counts[g]
    else:
        _knapsack(values, group_needs, counts, free, take, scratch_i[3], scratch_i[4], best, keep)
    taken = 0
    for g in range(g_count):
        for _ in range(take[g]):  # the oldest jobs of need group_needs[g]
            c = -1
            for d in range(needs.shape[0]):
                if groups[d] == g and heads[d] >= 0 and (c < 0 or job_i[SEQ, heads[d]] < job_i[SEQ, heads[c]]):
                    c = d
            slot = _pop_front(heads, tails, lengths, c, job_i)
            taken += needs[c]
            heap = _start(t, slot, False, heap, keys, items, job_i, job_f)
    return taken, heap


@_refcount_free
def advance_dispatch(interarrival, job_classes, sizes, phase, boundaries, needs, slots, helpers, rule3, mode,
                     groups, group_needs, state, clock, keys, items, free, job_i, job_f, heads, tails, lengths,
                     reserved_busy, present_by_class, scratch_i, best, keep, count, response, waited, helped, area,
                     starts):
    """Advance a non-preemptive replication through a chunk of arrivals; return how many were taken.

    It returns early (fewer than ``interarrival.shape[0]``) when no job slot is free, so that the
    driver can enlarge the job table, and in phase ``EXTRA`` as soon as no counted job is left. In
    phase ``DRAIN`` it ignores the arrivals and serves until no counted job is left (or the system
    is empty). The policy's branches (``mode``, ``rule3``) are constant within a call.
    """
    heap, n_free, batch, present, pending = state[HEAP], state[FREE], state[BATCH_NOW], state[PRESENT], state[PENDING]
    busy, seq = state[HELPER_BUSY], state[NEXT_SEQ]
    _by_column(job_i, state[LAID_OUT])
    _by_column(job_f, state[LAID_OUT])
    state[LAID_OUT] = job_i.shape[0]
    job_i, job_f = job_i.reshape((JOB_INT_COLUMNS, job_i.shape[0])), job_f.reshape((JOB_FLOAT_COLUMNS, job_f.shape[0]))
    t, since, arrived = clock[NOW], clock[AREA_SINCE], clock[ARRIVED]
    # one queue (the first class's) holds every class when only the arrival order matters: the oldest job is its
    # head, not found by scanning the head of each class (FCFS at k = 16, load 0.9: 8 % of the time)
    single = mode == FCFS and not rule3
    j = 0
    while True:
        arrival = _next_arrival(phase, pending, heap, j, arrived, interarrival)
        if arrival < 0.0:
            break
        if heap > 0 and keys[0] <= arrival:
            t, slot, heap, counted = _depart(keys, items, heap, present, since, batch, area, job_i, job_f, count,
                                             response, waited, helped, free, n_free)
            since = t
            if counted:
                pending -= 1
            present -= 1
            n_free += 1
            c = job_i[CLASS, slot]
            present_by_class[c] -= 1
            if job_i[FLAGS, slot] & RESERVED:  # a reserved set A_c
                if rule3 and lengths[c] > 0:  # rule 3: the oldest class-c job waiting in H takes the servers
                    heap = _start(t, _pop_front(heads, tails, lengths, c, job_i), True, heap, keys, items, job_i, job_f)
                else:
                    reserved_busy[c] -= 1
            else:
                busy -= needs[c]
        else:
            if n_free == 0:
                break
            t = arrival
            arrived = t
            c = job_classes[j]
            batch, counted, slot = _arrive(t, j, since, batch, present, seq, n_free, area, boundaries, starts, free,
                                           job_classes, sizes, job_i, job_f)
            since = t
            n_free -= 1
            seq += 1
            present += 1
            pending += counted
            present_by_class[c] += 1
            j += 1
            if reserved_busy[c] < slots[c]:  # rule 1: room in A_c
                reserved_busy[c] += 1
                heap = _start(t, slot, True, heap, keys, items, job_i, job_f)
                continue
            job_i[FLAGS, slot] = SENT
            _push_back(heads, tails, lengths, 0 if single else c, slot, job_i)
        if single:
            while heads[0] >= 0 and needs[job_i[CLASS, heads[0]]] <= helpers - busy:
                busy += needs[job_i[CLASS, heads[0]]]
                heap = _start(t, _pop_front(heads, tails, lengths, 0, job_i), False, heap, keys, items, job_i, job_f)
            continue
        if mode == MAXWEIGHT:
            taken, heap = _fill_maxweight(t, helpers - busy, heap, needs, heads, tails, lengths, keys, items, job_i, job_f,
                                          groups, group_needs, present_by_class, scratch_i, best, keep)
            busy += taken
            continue
        while True:  # BS-FCFS: the oldest waiting job if it fits; first fit: the oldest of those that fit
            c = _oldest(heads, needs, helpers - busy, mode == FIRST_FIT, job_i)
            if c < 0 or needs[c] > helpers - busy:
                break
            busy += needs[c]
            heap = _start(t, _pop_front(heads, tails, lengths, c, job_i), False, heap, keys, items, job_i, job_f)
    state[HEAP], state[FREE], state[BATCH_NOW], state[PRESENT], state[PENDING] = heap, n_free, batch, present, pending
    state[HELPER_BUSY], state[NEXT_SEQ] = busy, seq
    clock[NOW], clock[AREA_SINCE], clock[ARRIVED] = t, since, arrived
    return j


# ---------------------------------------------------------------------------------------------
# Preemptive policies
# ---------------------------------------------------------------------------------------------

@kernel(inline="always")
def _remaining(t, slot, job_i, job_f):
    """Remaining service time of a job at time t."""
    return job_f[FINISH, slot] - t if job_i[SERVING, slot] else job_f[REMAINING, slot]


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


@_refcount_free
def _ranked_target(t, servers, needs, groups, group_needs, present, n, job_i, job_f, config, tables, key, scratch, target):
    """The jobs to serve under a preemptive policy that ranks jobs: ``target[pos] = 1`` for each served.

    ``config`` = (order, packing, incremental, offsets of each class's Gittins table...), ``tables``
    = (ages, ranks). When all the jobs fit, all are served (O(n)); otherwise they are taken in order
    from a binary heap of their positions (built in O(n)) until the packing is done, so only the
    jobs that matter are sorted.
    """
    order, packing = config[0], config[1]
    heap, chosen, tie = scratch[0], scratch[1], scratch[2]  # scratch[3]: the placement's counting sort
    total = 0
    for pos in range(n):
        total += needs[job_i[CLASS, present[pos]]]
    if total <= servers:  # every job fits: every policy serves them all
        target[:n] = 1
        return
    smallest = servers + 1
    for pos in range(n):
        slot = present[pos]
        c = job_i[CLASS, slot]
        need = needs[c]
        smallest = min(smallest, need)
        if order == BY_NEED:
            key[pos] = -need
        elif order == BY_ARRIVAL:
            key[pos] = job_i[SEQ, slot]
        elif order == BY_WORK:
            key[pos] = need * _remaining(t, slot, job_i, job_f)
        elif order == BY_GITTINS:
            attained = job_f[SIZE, slot] - _remaining(t, slot, job_i, job_f)
            key[pos] = need * _interpolate(attained, tables[0], tables[1], config[3 + c], config[4 + c])
        else:
            key[pos] = _remaining(t, slot, job_i, job_f)
        tie[pos] = job_i[SEQ, slot]
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
            need = needs[job_i[CLASS, present[pos]]]
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
        total += needs[job_i[CLASS, present[pos]]]
    # ... placed by decreasing need: a stable counting sort by need group keeps the order among equal needs
    start = scratch[3]
    start[:group_needs.shape[0] + 1] = 0
    for i in range(m):
        start[groups[job_i[CLASS, present[chosen[i]]]]] += 1
    offset = 0
    for g in range(group_needs.shape[0] - 1, -1, -1):  # decreasing need
        count = start[g]
        start[g] = offset
        offset += count
    placed = heap  # the heap is spent: reuse it
    for i in range(m):
        g = groups[job_i[CLASS, present[chosen[i]]]]
        placed[start[g]] = chosen[i]
        start[g] += 1
    for i in range(m):
        need = needs[job_i[CLASS, present[placed[i]]]]
        if need > free:
            break
        target[placed[i]] = 1
        free -= need


@_refcount_free
def _rebuild_heap(keys, items, n, present, job_i, job_f):
    """Drop the stale entries of the departure heap (jobs preempted since they were pushed); return its size."""
    size = 0
    for pos in range(n):
        slot = present[pos]
        if job_i[SERVING, slot]:
            size = heap_push(keys, items, size, job_f[FINISH, slot], slot)
    return size


@_refcount_free
def _serve(t, slot, heap, keys, items, n, present, job_i, job_f):
    """Start or resume a job: it completes at t + its remaining size unless preempted; return the heap size."""
    if heap == keys.shape[0]:
        heap = _rebuild_heap(keys, items, n, present, job_i, job_f)
    flags = job_i[FLAGS, slot]
    if not flags & STARTED:
        job_i[FLAGS, slot] = flags | STARTED | (WAITED if t > job_f[ARRIVAL, slot] else 0)
    job_f[FINISH, slot] = t + job_f[REMAINING, slot]
    job_i[SERVING, slot] = 1
    return heap_push(keys, items, heap, job_f[FINISH, slot], slot)


@_refcount_free
def _preempt(t, slot, job_i, job_f):
    """Stop a job; its heap entry becomes stale."""
    job_f[REMAINING, slot] = job_f[FINISH, slot] - t
    job_i[SERVING, slot] = 0


@_refcount_free
def apply_target(t, target, heap, n, keys, items, present, job_i, job_f):
    """Start, resume or preempt jobs so that exactly the targeted ones are in service; return the heap size.

    ``job_i`` and ``job_f`` are the driver's tables (rows), as a callable policy's adapter passes them.
    """
    columns_i, columns_f = job_i.T, job_f.T
    for pos in range(n):
        slot = present[pos]
        if target[pos] and not columns_i[SERVING, slot]:
            heap = _serve(t, slot, heap, keys, items, n, present, columns_i, columns_f)
        elif not target[pos] and columns_i[SERVING, slot]:
            _preempt(t, slot, columns_i, columns_f)
    return heap


@_refcount_free
def _drop_stale(keys, items, heap, job_i, job_f):
    """Pop heap entries of jobs that were preempted (or have left) since they were pushed; return the heap size."""
    while heap > 0:
        slot = items[0]
        if job_i[SERVING, slot] and job_f[FINISH, slot] == keys[0]:
            break
        _, _, heap = heap_pop(keys, items, heap)
    return heap


@_refcount_free
def _add_present(slot, n, present, job_i, job_f):
    """Put an arriving job at position n of the jobs present, on the whole server set, not yet started."""
    present[n] = slot
    job_i[POS, slot] = n
    job_i[SERVING, slot] = 0
    job_f[REMAINING, slot] = job_f[SIZE, slot]


@_refcount_free
def _remove_present(slot, n, present, job_i):
    """Remove a job from the n jobs present (the last one takes its position)."""
    pos = job_i[POS, slot]
    last = present[n - 1]
    present[pos] = last
    job_i[POS, last] = pos


# -- Most Servers First and ServerFilling, incrementally --------------------------------------
# Both serve, in each need group, the oldest jobs of the group (MSF: of all jobs present;
# ServerFilling: of M, a prefix of the jobs in arrival order, so again the oldest of the group), as
# many as a greedy packing of the group counts by decreasing need allows (with powers of two,
# ServerFilling's "until one does not fit" packs as the greedy does). Each group keeps its jobs in
# arrival order with a pointer to its last served one, so an event costs O(groups + changes).


@_refcount_free
def _link(slot, g, aux, job_i):
    """Append a job to its group's list (arrival order)."""
    tail = aux[TAIL, g]
    job_i[PREV, slot], job_i[NEXT, slot] = tail, -1
    if tail < 0:
        aux[HEAD, g] = slot
    else:
        job_i[NEXT, tail] = slot
    aux[TAIL, g] = slot
    aux[COUNT, g] += 1


@_refcount_free
def _unlink(slot, g, aux, job_i):
    prev, nxt = job_i[PREV, slot], job_i[NEXT, slot]
    if prev < 0:
        aux[HEAD, g] = nxt
    else:
        job_i[NEXT, prev] = nxt
    if nxt < 0:
        aux[TAIL, g] = prev
    else:
        job_i[PREV, nxt] = prev
    if aux[BOUNDARY, g] == slot:
        aux[BOUNDARY, g] = prev
    aux[COUNT, g] -= 1


@_refcount_free
def advance_grouped(interarrival, job_classes, sizes, phase, boundaries, needs, servers, filling, groups, group_needs,
                    aux, scalars, state, clock, keys, items, free, job_i, job_f, present, count, response, waited, helped,
                    area, starts):
    """Advance an MSF (``filling`` false) or ServerFilling replication through a chunk of arrivals.

    As :func:`advance_dispatch` (returns the arrivals taken; phases ``ARRIVALS``, ``EXTRA``,
    ``DRAIN``). ServerFilling also links all jobs in arrival order (GPREV, GNEXT) and keeps M, the
    shortest prefix of that list whose needs reach k, by its last job and its need.
    """
    heap, n_free, batch, n, pending, seq = (state[HEAP], state[FREE], state[BATCH_NOW], state[PRESENT], state[PENDING],
                                            state[NEXT_SEQ])
    g_head, g_tail, m_end, m_need = scalars[GHEAD], scalars[GTAIL], scalars[M_END], scalars[M_NEED]
    t, since, arrived = clock[NOW], clock[AREA_SINCE], clock[ARRIVED]
    columns_i, columns_f = job_i.T, job_f.T  # the driver's rows, indexed [field, slot]
    j = 0
    while True:
        heap = _drop_stale(keys, items, heap, columns_i, columns_f)
        arrival = _next_arrival(phase, pending, heap, j, arrived, interarrival)
        if arrival < 0.0:
            break
        if heap > 0 and keys[0] <= arrival:  # a departure: the job was in its group's served prefix (and in M)
            t, slot, heap, counted = _depart(keys, items, heap, n, since, batch, area, columns_i, columns_f, count,
                                             response, waited, helped, free, n_free)
            since = t
            if counted:
                pending -= 1
            columns_i[SERVING, slot] = 0
            _remove_present(slot, n, present, columns_i)
            n -= 1
            n_free += 1
            g = groups[columns_i[CLASS, slot]]
            _unlink(slot, g, aux, columns_i)
            aux[SERVED, g] -= 1
            if filling:
                prev, nxt = columns_i[GPREV, slot], columns_i[GNEXT, slot]
                if prev < 0:
                    g_head = nxt
                else:
                    columns_i[GNEXT, prev] = nxt
                if nxt < 0:
                    g_tail = prev
                else:
                    columns_i[GPREV, nxt] = prev
                if m_end == slot:
                    m_end = prev
                m_need -= needs[columns_i[CLASS, slot]]
                aux[IN_M, g] -= 1
                while m_need < servers:  # extend M in arrival order
                    nxt = g_head if m_end < 0 else columns_i[GNEXT, m_end]
                    if nxt < 0:
                        break
                    m_end = nxt
                    m_need += needs[columns_i[CLASS, nxt]]
                    aux[IN_M, groups[columns_i[CLASS, nxt]]] += 1
        else:
            if n_free == 0:
                break
            t = arrival
            arrived = t
            c = job_classes[j]
            batch, counted, slot = _arrive(t, j, since, batch, n, seq, n_free, area, boundaries, starts, free,
                                           job_classes, sizes, columns_i, columns_f)
            since = t
            n_free -= 1
            _add_present(slot, n, present, columns_i, columns_f)
            seq += 1
            n += 1
            pending += counted
            j += 1
            g = groups[c]
            _link(slot, g, aux, columns_i)
            if filling:
                columns_i[GPREV, slot], columns_i[GNEXT, slot] = g_tail, -1
                if g_tail < 0:
                    g_head = slot
                else:
                    columns_i[GNEXT, g_tail] = slot
                g_tail = slot
                if m_need < servers:  # M holds every job: the new one joins it
                    m_end = slot
                    m_need += needs[c]
                    aux[IN_M, g] += 1
        idle = servers
        for h in range(group_needs.shape[0] - 1, -1, -1):  # decreasing need: serve each group's prefix
            wanted = min(aux[IN_M, h] if filling else aux[COUNT, h], idle // group_needs[h])
            idle -= wanted * group_needs[h]
            while aux[SERVED, h] < wanted:
                node = aux[HEAD, h] if aux[BOUNDARY, h] < 0 else columns_i[NEXT, aux[BOUNDARY, h]]
                heap = _serve(t, node, heap, keys, items, n, present, columns_i, columns_f)
                aux[BOUNDARY, h] = node
                aux[SERVED, h] += 1
            while aux[SERVED, h] > wanted:
                node = aux[BOUNDARY, h]
                _preempt(t, node, columns_i, columns_f)
                aux[BOUNDARY, h] = columns_i[PREV, node]
                aux[SERVED, h] -= 1
    state[HEAP], state[FREE], state[BATCH_NOW], state[PRESENT], state[PENDING], state[NEXT_SEQ] = (heap, n_free, batch, n,
                                                                                                  pending, seq)
    scalars[GHEAD], scalars[GTAIL], scalars[M_END], scalars[M_NEED] = g_head, g_tail, m_end, m_need
    clock[NOW], clock[AREA_SINCE], clock[ARRIVED] = t, since, arrived
    return j


# -- The policies that rank the jobs (SRPT, Gittins orders) and callables ---------------------

@_refcount_free
def decide_ranked(t, servers, needs, groups, group_needs, present, state, job_i, job_f, config, tables, key, scratch,
                  target, keys, items):
    """Serve the jobs a ranked policy chooses (:func:`_ranked_target`) after an event."""
    n = state[PRESENT]
    _ranked_target(t, servers, needs, groups, group_needs, present, n, job_i.T, job_f.T, config, tables, key, scratch,
                   target)
    state[HEAP] = apply_target(t, target, state[HEAP], n, keys, items, present, job_i, job_f)


# Not cached: its signature holds the type of the ``decide`` dispatcher, which numba's cache index
# does not round-trip between processes (every process missed and appended an entry, and saving the
# index failed once it held one whose dispatcher had vanished). It compiles in a few seconds per process.
@numba.njit(_nrt=False)
def advance_preemptive(interarrival, job_classes, sizes, phase, boundaries, needs, servers, decide, groups, group_needs,
                       config, tables, state, clock, keys, items, free, job_i, job_f, present, key, scratch,
                       target, count, response, waited, helped, area, starts):
    """Advance a preemptive replication whose decision recomputes the jobs in service at each event.

    As :func:`advance_dispatch` (returns the arrivals taken; phases ``ARRIVALS``, ``EXTRA``,
    ``DRAIN``). After each arrival or departure ``decide(t, servers, needs, groups, group_needs,
    present, state, job_i, job_f, config, tables, key, scratch, target, keys, items)`` starts,
    resumes and preempts jobs (:func:`decide_ranked`, or a Python callable's adapter under
    ``advance_preemptive.py_func``); it reads the heap size and the number present in ``state``.
    """
    heap, n_free, batch, n, pending, seq = (state[HEAP], state[FREE], state[BATCH_NOW], state[PRESENT], state[PENDING],
                                            state[NEXT_SEQ])
    t, since, arrived = clock[NOW], clock[AREA_SINCE], clock[ARRIVED]
    columns_i, columns_f = job_i.T, job_f.T  # the driver's rows (a callable's adapter reads them), [field, slot]
    j = 0
    while True:
        heap = _drop_stale(keys, items, heap, columns_i, columns_f)
        arrival = _next_arrival(phase, pending, heap, j, arrived, interarrival)
        if arrival < 0.0:
            break
        if heap > 0 and keys[0] <= arrival:
            t, slot, heap, counted = _depart(keys, items, heap, n, since, batch, area, columns_i, columns_f, count,
                                             response, waited, helped, free, n_free)
            since = t
            if counted:
                pending -= 1
            columns_i[SERVING, slot] = 0
            _remove_present(slot, n, present, columns_i)
            n -= 1
            n_free += 1
        else:
            if n_free == 0:
                break
            t = arrival
            arrived = t
            batch, counted, slot = _arrive(t, j, since, batch, n, seq, n_free, area, boundaries, starts, free,
                                           job_classes, sizes, columns_i, columns_f)
            since = t
            n_free -= 1
            _add_present(slot, n, present, columns_i, columns_f)
            seq += 1
            n += 1
            pending += counted
            j += 1
        state[HEAP], state[PRESENT] = heap, n
        decide(t, servers, needs, groups, group_needs, present, state, job_i, job_f, config, tables, key, scratch, target,
               keys, items)
        heap = state[HEAP]
    state[HEAP], state[FREE], state[BATCH_NOW], state[PRESENT], state[PENDING], state[NEXT_SEQ] = (heap, n_free, batch, n,
                                                                                                  pending, seq)
    clock[NOW], clock[AREA_SINCE], clock[ARRIVED] = t, since, arrived
    return j
