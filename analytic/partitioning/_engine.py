"""The compiled event loops of :mod:`analytic.partitioning.simulation`: DGP, ADGP and Max-Weight.

Ghaderi, Shakkottai & Srikant, Algorithms 1–4: every loop runs the continuous-time Markov chain of its
algorithm event by event (Gillespie) from uniform numbers drawn outside it, and tallies time averages
per batch. The set-up, the replications and the estimates are in :mod:`analytic.partitioning.simulation`.
"""

from __future__ import annotations

import math

from analytic._kernels import kernel

#: The template loop's modes, and its exit codes.
DGP, ADGP = 0, 1
DONE, REFILL, OVERFLOW = 0, 1, 2


# ---------------------------------------------------------------------------------------------
# Shared pieces of the compiled loops
# ---------------------------------------------------------------------------------------------
# Every kernel of this module allocates nothing and is compiled without numba's runtime
# (``_nrt=False``): numba then counts no references to the arrays a call receives (an atomic
# increment and decrement per array per call, wherever it cannot prove them useless). The helpers
# called at every event are also inlined (``inline="always"``): a call passes each array as a
# handful of arguments. Both together were the larger part of the gap to a plain loop (DGP 0.83x,
# Max-Weight 0.67x of ``benchmarks/reference_fairness_partitioning.py`` before, 1.1-1.2x and 1.0x after).
# Then the tallies of a span within one batch taken apart from the loop over batches (:func:`_accumulate`)
# and no libm ``pow`` when b = 0 (:func:`_log_power`): DGP 1.45x, ADGP 1.9x, Max-Weight 1.2x.


@kernel(inline="always", _nrt=False)
def _log_power(x, b):
    """f(x) = log^(1-b)(x) for x >= 1; at b = 0 the logarithm itself (libm's pow(y, 1) returns y, slowly:
    about 15 % of Max-Weight's time)."""
    return math.log(x) if b == 0.0 else math.log(x) ** (1.0 - b)


@kernel(inline="always", _nrt=False)
def _weight(f, top, alpha, epsilon, total_slots):
    """q_j = α max(f^(j), ε/(8M) max_i f^(i)) of eq. (12), from f^(j) and ``top`` = max_i f^(i)."""
    return alpha * max(f, epsilon / (8.0 * total_slots) * top)


@kernel(_nrt=False)
def update_weights(q, queues, frozen, parameters, total_slots):
    """q_j = α f^(j)(h + Q) of eqs. (11)-(12); ``parameters`` = (α, h, ε, b); frozen weights stay.

    Outside the event loop only: the loop repeats these few lines (see :func:`template_loop`).
    """
    if frozen:
        return
    alpha, h, epsilon, b = parameters[0], parameters[1], parameters[2], parameters[3]
    top = 0.0
    for j in range(queues.shape[0]):      # f^(j) once per type: q holds it until the floor is known
        q[j] = _log_power(h + queues[j], b)
        top = max(top, q[j])
    for j in range(queues.shape[0]):
        q[j] = _weight(q[j], top, alpha, epsilon, total_slots)


@kernel(inline="always", _nrt=False)
def _level_of(levels, cost):
    """Index of ``cost`` among the sorted cost levels (nearest one)."""
    i, high = 0, levels.shape[0]          # bisection: the first level >= cost (np.searchsorted's answer)
    while i < high:
        middle = (i + high) >> 1
        if levels[middle] < cost:
            i = middle + 1
        else:
            high = middle
    if i == levels.shape[0] or (i > 0 and cost - levels[i - 1] < levels[i] - cost):
        i -= 1
    return i


@kernel(inline="always", _nrt=False)
def _add_span(k, span, queues, counts, actual, cost, actual_cost, level, area_q, area_n, area_a, area_cost, area_actual,
              level_time):
    """Add the state held for ``span`` to the integrals of batch k."""
    for j in range(queues.shape[0]):
        area_q[k, j] += queues[j] * span
        area_n[k, j] += counts[j] * span
        area_a[k, j] += actual[j] * span
    area_cost[k] += cost * span
    area_actual[k] += actual_cost * span
    level_time[k, level] += span


@kernel(inline="always", _nrt=False)
def _accumulate(t0, t1, k, edges, queues, counts, actual, cost, actual_cost, level, area_q, area_n, area_a, area_cost,
                area_actual, level_time):
    """Add the integrals of the state over [t0, t1] to the batches it overlaps (batch k is [edges[k], edges[k+1])).

    ``k`` is the batch of t0 as :func:`_batch_index` gives it. The span of most events lies within one
    batch: taken first, apart from the loop, it costs 5 % less of Max-Weight's time.
    """
    batches = area_cost.shape[0]
    if 0 <= k < batches and t1 <= edges[k + 1]:
        if t1 > t0:
            _add_span(k, t1 - t0, queues, counts, actual, cost, actual_cost, level, area_q, area_n, area_a, area_cost,
                      area_actual, level_time)
        return
    while k < batches and t0 < t1:
        if k < 0:
            t0 = min(t1, edges[0])
            k = 0
            continue
        end = min(t1, edges[k + 1])
        span = end - t0
        if span > 0:
            _add_span(k, span, queues, counts, actual, cost, actual_cost, level, area_q, area_n, area_a, area_cost,
                      area_actual, level_time)
        t0 = end
        k += 1


@kernel(inline="always", _nrt=False)
def _choose(rates, total, u):
    """Index of the event drawn with probability ``rates[i] / total`` (``u`` uniform in [0, 1))."""
    pick = u * total
    last = -1
    for i in range(rates.shape[0]):
        if rates[i] > 0:
            if pick < rates[i]:
                return i
            pick -= rates[i]
            last = i
    return last                          # rounding at the very end of the range


@kernel(inline="always", _nrt=False)
def _batch_index(edges, k, t):
    """``np.searchsorted(edges, t, side="right") - 1`` (-1 in the warm-up, the number of batches at the end),
    found by stepping on from ``k``, that of an earlier time: the clock only moves forward."""
    while k + 1 < edges.shape[0] and edges[k + 1] <= t:
        k += 1
    return k


@kernel(inline="always", _nrt=False)
def _batch_of(edges, k):
    """The batch counting an event in batch index ``k`` (:func:`_batch_index`), or -1 during the warm-up or after the end."""
    return k if k < edges.shape[0] - 1 else -1


# ---------------------------------------------------------------------------------------------
# DGP and ADGP: explicit templates on slots
# ---------------------------------------------------------------------------------------------


@kernel(_nrt=False)
def template_loop(mode, uniforms, frozen, weight_parameters, beta, clock_rate, arrival, service, nodes, edges, edge_weights,
                  edge_count, machine, distance, levels, edges_t, state, times, queues, q, scratch, slot_owner, free, free_pos,
                  template_type, template_actual, template_cost, template_slots, members, member_pos, member_count,
                  spare, area_q, area_n, area_a, area_cost, area_actual, level_time, departures):
    """Run DGP (mode 0) or ADGP (mode 1) until time ``edges_t[-1]`` or until the uniforms run short.

    ``state`` = (uniforms used, free slots, spare template ids, current cost level); ``times`` =
    (clock, configuration cost, actual cost). ``members[j, :member_count[j, 0]]`` are the actual
    templates of type j, ``members[j, T:T + member_count[j, 1]]`` its virtual ones. ``scratch``
    (5 zeros per type, from the caller: the loop allocates nothing) holds its per-type numbers.

    Shape of the loop: the weights, updated at most events, are written out once in the loop (after
    the queue changed, whatever the event), the rates of the events are kept up to date rather than
    rebuilt (ADGP's clocks only when q changed), the batch of the clock is stepped on rather than
    searched, and the cost level is found only when the cost changes.
    """
    types = arrival.shape[0]
    total_slots = slot_owner.shape[0]
    capacity = template_type.shape[0]
    need = 8 + template_slots.shape[1]   # uniforms an event may use: its width is the most nodes of a type
    position, n_free, n_spare, level = state[0], state[1], state[2], state[3]
    t, cost, actual_cost = times[0], times[1], times[2]
    alpha, bias, share, exponent = weight_parameters[0], weight_parameters[1], weight_parameters[2], weight_parameters[3]
    counts, actual = scratch[:types], scratch[types:2 * types]
    rates = scratch[2 * types:]           # arrival, departure, clock tick of each type, kept up to date
    for j in range(types):
        actual[j] = member_count[j, 0]
        counts[j] = member_count[j, 0] + member_count[j, 1]
        rates[3 * j] = arrival[j]
        rates[3 * j + 1] = service[j] * counts[j]
    end = edges_t[edges_t.shape[0] - 1]
    interval = _batch_index(edges_t, -1, t)
    reweighted = True                     # q changed: the clocks' rates follow
    status = DONE
    while t < end:
        if position + need > uniforms.shape[0]:
            status = REFILL
            break
        if reweighted and mode == ADGP:
            for j in range(types):
                rates[3 * j + 2] = clock_rate * math.exp(q[j] / beta)
        reweighted = False
        rate = 0.0
        for j in range(types):
            rate += rates[3 * j] + rates[3 * j + 1] + rates[3 * j + 2]
        if not math.isfinite(rate):
            status = OVERFLOW
            break
        dt = -math.log(1.0 - uniforms[position]) / rate
        position += 1
        _accumulate(t, min(t + dt, end), interval, edges_t, queues, counts, actual, cost, actual_cost, level, area_q, area_n,
                    area_a, area_cost, area_actual, level_time)
        t += dt
        if t >= end:
            break
        interval = _batch_index(edges_t, interval, t)
        chosen = _choose(rates, rate, uniforms[position])
        position += 1
        j, event = chosen // 3, chosen % 3           # event 0: arrival, 1: departure, 2: clock tick
        batch = _batch_of(edges_t, interval)
        requeued = event == 0
        tid = -1
        if event == 0:
            queues[j] += 1
        elif event == 1:
            # a template of type j leaves: uniform among its actual and virtual ones
            k = int(uniforms[position] * counts[j])
            position += 1
            k = min(k, int(counts[j]) - 1)
            if k < member_count[j, 0]:
                tid = members[j, k]
                queues[j] -= 1
                requeued = True
                if batch >= 0:
                    departures[batch, j] += 1
            else:
                tid = members[j, capacity + k - member_count[j, 0]]
        if requeued and not frozen:       # update_weights, written out
            top = 0.0
            for i in range(types):
                q[i] = _log_power(bias + queues[i], exponent)
                top = max(top, q[i])
            for i in range(types):
                q[i] = _weight(q[i], top, alpha, share, total_slots)
            reweighted = True
        propose = event == 2 or (event == 0 and mode == DGP)
        if event == 1:
            keep = False
            if mode == DGP:
                w = (q[j] - template_cost[tid]) / beta
                keep_probability = 1.0 / (1.0 + math.exp(-w)) if w >= 0 else math.exp(w) / (1.0 + math.exp(w))
                keep = uniforms[position] < keep_probability
                position += 1
            if template_actual[tid]:
                actual_cost -= template_cost[tid]
            if keep:                      # put back as a virtual template on the same slots
                if template_actual[tid]:
                    _move(tid, j, 0, 1, members, member_pos, member_count, capacity)
                    template_actual[tid] = False
            else:
                cost -= template_cost[tid]
                level = _level_of(levels, cost)
                _drop(tid, j, template_actual[tid], members, member_pos, member_count, capacity)
                for x in range(nodes[template_type[tid]]):
                    s = template_slots[tid, x]
                    slot_owner[s] = -1
                    free[n_free] = s
                    free_pos[s] = n_free
                    n_free += 1
                spare[n_spare] = tid
                n_spare += 1
        if propose and n_free >= nodes[j]:
            # Algorithm 2: node x goes to a uniformly chosen free slot (partial Fisher-Yates at the front)
            n = nodes[j]
            for x in range(n):
                r = x + min(int(uniforms[position] * (n_free - x)), n_free - x - 1)
                position += 1
                a, b = free[x], free[r]
                free[x], free[r] = b, a
                free_pos[b], free_pos[a] = x, r
            b_cost = 0.0
            for e in range(edge_count[j]):
                b_cost += edge_weights[j, e] * distance[machine[free[edges[j, e, 0]]], machine[free[edges[j, e, 1]]]]
            if mode == DGP:
                w = (q[j] - b_cost) / beta
                keep_probability = 1.0 / (1.0 + math.exp(-w)) if w >= 0 else math.exp(w) / (1.0 + math.exp(w))
            else:
                keep_probability = math.exp(-b_cost / beta)
            if uniforms[position] < keep_probability and n_spare > 0:
                n_spare -= 1
                tid = spare[n_spare]
                for x in range(n):
                    s = free[x]
                    template_slots[tid, x] = s
                    slot_owner[s] = tid
                for x in range(n - 1, -1, -1):      # remove the chosen slots (at the front) from the free list
                    s = template_slots[tid, x]
                    p = free_pos[s]
                    n_free -= 1
                    last = free[n_free]
                    free[p] = last
                    free_pos[last] = p
                template_type[tid] = j
                template_cost[tid] = b_cost
                template_actual[tid] = False
                cost += b_cost
                level = _level_of(levels, cost)
                _add(tid, j, 1, members, member_pos, member_count, capacity)
            position += 1
        # a waiting job takes an idle virtual template of its type (chosen at random)
        if member_count[j, 1] > 0 and queues[j] > member_count[j, 0]:
            k = min(int(uniforms[position] * member_count[j, 1]), member_count[j, 1] - 1)
            position += 1
            tid = members[j, capacity + k]
            _move(tid, j, 1, 0, members, member_pos, member_count, capacity)
            template_actual[tid] = True
            actual_cost += template_cost[tid]
        actual[j] = member_count[j, 0]
        counts[j] = member_count[j, 0] + member_count[j, 1]
        rates[3 * j + 1] = service[j] * counts[j]
    state[0], state[1], state[2], state[3] = position, n_free, n_spare, level
    times[0], times[1], times[2] = t, cost, actual_cost
    return status


@kernel(inline="always", _nrt=False)
def _add(tid, j, kind, members, member_pos, member_count, capacity):
    k = member_count[j, kind]
    members[j, kind * capacity + k] = tid
    member_pos[tid] = k
    member_count[j, kind] = k + 1


@kernel(inline="always", _nrt=False)
def _drop(tid, j, is_actual, members, member_pos, member_count, capacity):
    kind = 0 if is_actual else 1
    k = member_pos[tid]
    last = member_count[j, kind] - 1
    moved = members[j, kind * capacity + last]
    members[j, kind * capacity + k] = moved
    member_pos[moved] = k
    member_count[j, kind] = last


@kernel(inline="always", _nrt=False)
def _move(tid, j, source, target, members, member_pos, member_count, capacity):
    _drop(tid, j, source == 0, members, member_pos, member_count, capacity)
    _add(tid, j, target, members, member_pos, member_count, capacity)


# ---------------------------------------------------------------------------------------------
# Max-Weight: a configuration per frame
# ---------------------------------------------------------------------------------------------


@kernel(_nrt=False)
def frame_loop(uniforms, frame, weight_parameters, arrival, service, packings, packing_cost, filled_cost, levels, edges_t,
               state, times, queues, scratch, area_q, area_n, area_a, area_cost, area_actual, level_time, departures,
               migrated):
    """Run Algorithm 1 until ``edges_t[-1]`` or until the uniforms run short.

    ``state`` = (uniforms used, current packing, frames started); ``times`` = (clock, next epoch).
    ``filled_cost[p, j, a]``: cost of the ``a`` cheapest type-j templates of packing p; ``scratch``
    (5 entries per type, from the caller: the loop allocates nothing) holds its per-type numbers.
    """
    types = arrival.shape[0]
    position, p, epochs = state[0], state[1], state[2]
    t, epoch = times[0], times[1]
    alpha, b = weight_parameters[0], weight_parameters[3]
    end = edges_t[edges_t.shape[0] - 1]
    counts, actual, weights = scratch[:types], scratch[types:2 * types], scratch[2 * types:3 * types]
    rates = scratch[3 * types:]          # arrival, departure of each type
    interval = _batch_index(edges_t, -1, t)
    level = _level_of(levels, packing_cost[p])
    status = DONE
    while t < end:
        if position + 4 > uniforms.shape[0]:
            status = REFILL
            break
        if t >= epoch:                    # eq. (10) at the epoch
            for j in range(types):
                weights[j] = alpha * _log_power(1.0 + queues[j], b)
            best, chosen, ties = 0.0, 0, 0
            for i in range(packings.shape[0]):
                value = -packing_cost[i]
                for j in range(types):
                    value += weights[j] * packings[i, j]
                slack = 1e-12 * max(1.0, abs(best))
                if ties == 0 or value > best + slack:
                    best, chosen, ties = value, i, 1
                elif value >= best - slack:
                    ties += 1
                    if uniforms[position] * ties < 1.0:      # reservoir sampling: a uniform choice among ties
                        chosen = i
            position += 1
            if chosen != p:
                moved = 0
                for j in range(types):
                    moved += min(queues[j], packings[p, j])
                batch = _batch_of(edges_t, interval)
                if batch >= 0:
                    migrated[batch] += moved
                p = chosen
                level = _level_of(levels, packing_cost[p])
            epochs += 1
            epoch += frame
        rate = 0.0
        for j in range(types):
            counts[j] = packings[p, j]
            actual[j] = min(queues[j], packings[p, j])
            rates[2 * j] = arrival[j]
            rates[2 * j + 1] = service[j] * actual[j]
            rate += rates[2 * j] + rates[2 * j + 1]
        cost = packing_cost[p]
        actual_cost = 0.0
        for j in range(types):
            actual_cost += filled_cost[p, j, int(actual[j])]
        dt = -math.log(1.0 - uniforms[position]) / rate
        position += 1
        stop = min(t + dt, epoch, end)
        _accumulate(t, stop, interval, edges_t, queues, counts, actual, cost, actual_cost, level, area_q, area_n, area_a,
                    area_cost, area_actual, level_time)
        if t + dt >= epoch or t + dt >= end:   # memoryless: the clocks restart after the epoch
            t = stop
            interval = _batch_index(edges_t, interval, t)
            continue
        t += dt
        interval = _batch_index(edges_t, interval, t)
        chosen = _choose(rates, rate, uniforms[position])
        position += 1
        j = chosen // 2
        if chosen % 2 == 0:
            queues[j] += 1
        else:
            queues[j] -= 1
            batch = _batch_of(edges_t, interval)
            if batch >= 0:
                departures[batch, j] += 1
    state[0], state[1], state[2] = position, p, epochs
    times[0], times[1] = t, epoch
    return status
