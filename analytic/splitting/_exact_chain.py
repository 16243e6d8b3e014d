"""The state spaces of the exact multiserver-job chains of :mod:`analytic.splitting.chains` and their transitions.

:class:`ExactSystem` is a validated system (needs, rates, reserved slots, helpers, the phases of each
class); it builds the chain of each state description ("sequence", "lumped", "counts", described in
the docstring of :mod:`~analytic.splitting.chains`) and reads per-state quantities off it, which
:mod:`~analytic.splitting.chains` turns into metrics; :mod:`~analytic.splitting.certified` bounds the
untruncated FCFS queue with its lumped transitions.
"""

from __future__ import annotations

import itertools
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from analytic.ctmc import CTMC
from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.simulation.laws import exact_phase_type
from analytic.splitting.bounds import split_servers
from analytic.splitting.classes import (
    SMALLEST_RELATIVE_RATE,
    RigidClass,
    check_classes,
    check_load,
    check_rate_span,
    check_servers,
)
from analytic.validation import integer

#: The policies with an exact chain and the state descriptions each allows; the first is the default.
REPRESENTATIONS = {"fcfs": ("lumped", "sequence"), "bs-fcfs": ("sequence",), "modified-bs-fcfs": ("sequence",),
                   "msf": ("counts",)}


@dataclass(frozen=True)
class Phases:
    """One class's service time as PH(β, T) in time units: ``initial`` β, ``moves[j]`` the pairs
    ``(j', T[j, j'])`` with ``T[j, j'] > 0``, ``exits`` the completion rates ``t = -T 1``. One phase:
    the exponential law."""

    initial: tuple[float, ...]
    moves: tuple[tuple[tuple[int, float], ...], ...]
    exits: tuple[float, ...]

    @classmethod
    def exponential(cls, rate: float) -> Phases:
        return cls((1.0,), ((),), (rate,))

    @property
    def order(self) -> int:
        return len(self.initial)

    @property
    def fastest(self) -> float:
        """The largest total rate out of a phase, ``max_j -T[j, j]`` (the rate itself for one phase)."""
        return max(t + sum(r for _, r in moves) for t, moves in zip(self.exits, self.moves, strict=True))

    @property
    def slowest(self) -> float:
        """The smallest positive rate of a phase move or a completion."""
        return min([t for t in self.exits if t > 0] + [r for moves in self.moves for _, r in moves])


def phase_law(i: int, job_class: RigidClass) -> Phases:
    """The service time of ``classes[i]`` as :class:`Phases`: its phases reachable from β, or the
    exponential law of rate 1/d_i when one phase is; refused when the law is not phase-type."""
    phase_type = exact_phase_type(job_class.law, f"classes[{i}]", job_class.law, "service time")
    initial, generator, exits = (np.asarray(a, dtype=float) for a in
                                 (phase_type.initial, phase_type.generator, phase_type.exit_rates))
    reached = {int(j) for j in np.flatnonzero(initial > 0)}
    frontier = list(reached)
    while frontier:
        j = frontier.pop()
        for to in np.flatnonzero(generator[j] > 0):
            if int(to) != j and int(to) not in reached:
                reached.add(int(to))
                frontier.append(int(to))
    kept = sorted(reached)
    if len(kept) == 1:  # exponential; its rate is 1/d_i (the law is scaled to mean d_i)
        return Phases.exponential(1 / float(job_class.mean_size))
    index = {j: n for n, j in enumerate(kept)}
    return Phases(tuple(float(initial[j]) for j in kept),
                   tuple(tuple((index[to], float(generator[j, to])) for to in kept if to != j and generator[j, to] > 0)
                         for j in kept),
                   tuple(float(exits[j]) for j in kept))


def check_phase_rates(arrival_rate: float, classes: Sequence[RigidClass], phases: Sequence[Phases], busy: float) -> None:
    """Refuse a class whose phase rates (a move, a completion, an arrival that starts at once in a phase)
    fall below 2**-1021 times ``arrival_rate + busy``, a bound on the total rate out of a state, or below
    the normal doubles: the exact solver could not represent them (as :func:`check_rate_span` for arrivals)."""
    total = arrival_rate + busy
    least = max(SMALLEST_RELATIVE_RATE * total, sys.float_info.min)
    for i, (job_class, law) in enumerate(zip(classes, phases, strict=True)):
        if law.order == 1:
            continue
        smallest = min(law.slowest, arrival_rate * float(job_class.probability) * min(a for a in law.initial if a > 0))
        if smallest < least:
            raise InvalidParameterError(f"classes[{i}]", job_class.law, f"has a phase rate {smallest:.6g} (a phase move, a "
                                        f"completion, or an arrival starting in a phase) below 2**-1021 times "
                                        f"{total:.6g}, a bound on the total rate out of a state, or below the normal "
                                        "doubles: the exact solver cannot represent it")


@dataclass(frozen=True)
class ExactSystem:
    """A validated system: needs, rates, reserved slots s_i, helper servers and the phases of each class.

    ``columns[i]`` are the coordinates of class i's phases in the per-(class, phase) counts of the
    module docstring; ``column_needs`` the need of each coordinate's class.
    """

    policy: str
    representation: str
    needs: tuple[int, ...]
    arrival_rates: tuple[float, ...]
    service_rates: tuple[float, ...]
    slots: tuple[int, ...]
    helpers: int
    max_waiting: int
    phases: tuple[Phases, ...]
    columns: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    column_needs: tuple[int, ...] = field(init=False, repr=False)
    entries: tuple[tuple[tuple[int, float], ...], ...] = field(init=False, repr=False)
    services: tuple[tuple[tuple[int, float, tuple[tuple[int, float], ...]], ...], ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        """The coordinates of each class's phases; per class, ``entries`` the ``(column, β_ij)`` a job may
        start in and ``services`` the ``(column, completion rate, ((column', rate), ...))`` of its phases."""
        offsets = np.concatenate([[0], np.cumsum([p.order for p in self.phases])]).astype(int).tolist()
        columns = tuple(tuple(range(a, b)) for a, b in itertools.pairwise(offsets))
        object.__setattr__(self, "columns", columns)
        object.__setattr__(self, "column_needs", tuple(n for n, p in zip(self.needs, self.phases, strict=True)
                                                      for _ in range(p.order)))
        object.__setattr__(self, "entries", tuple(
            tuple((c, a) for c, a in zip(cols, law.initial, strict=True) if a > 0)
            for cols, law in zip(columns, self.phases, strict=True)))
        object.__setattr__(self, "services", tuple(
            tuple((c, t, tuple((cols[to], rate) for to, rate in moves))
                  for c, t, moves in zip(cols, law.exits, law.moves, strict=True))
            for cols, law in zip(columns, self.phases, strict=True)))

    @classmethod
    def build(cls, policy: str, servers: int, classes: Iterable[RigidClass], arrival_rate: float, max_waiting: int,
              representation: str | None, max_states: int) -> ExactSystem:
        """The validated system, refused when one class alone exceeds ``max_states`` (:meth:`refuse_large`)."""
        if not isinstance(policy, str) or policy not in REPRESENTATIONS:
            raise InvalidParameterError("policy", policy, f"must be one of {', '.join(REPRESENTATIONS)} for an exact chain")
        allowed = REPRESENTATIONS[policy]
        representation = allowed[0] if representation is None else representation
        if not isinstance(representation, str) or representation not in allowed:
            raise InvalidParameterError("representation", representation, f"must be one of {', '.join(allowed)} for {policy}")
        classes = check_classes(classes)
        k = check_servers(servers, classes)
        rate = check_load(k, arrival_rate, classes)
        integer("max_waiting", max_waiting)
        phases = tuple(phase_law(i, c) for i, c in enumerate(classes))
        needs = tuple(c.need for c in classes)
        if policy == "msf" and len(set(needs)) < len(needs):
            raise InvalidParameterError("classes", needs, "must have distinct needs for the exact Most Servers First chain "
                                        "(a per-class count does not record the arrival order between classes of equal need)")
        if policy in ("bs-fcfs", "modified-bs-fcfs"):
            slots, helpers = split_servers(k, rate, classes, modified=policy == "modified-bs-fcfs")
        else:
            slots, helpers = (0,) * len(classes), k
        mu = [1 / float(c.mean_size) for c in classes]
        system = cls(policy, representation, needs, tuple(rate * float(c.probability) for c in classes), tuple(mu),
                     tuple(slots), helpers, max_waiting, phases)
        system.refuse_large(integer("max_states", max_states))   # first: a bound on the rates of a vast chain may be inf
        # jobs arrive in every state below the cap: at most s_i class-i jobs in each A_i, n_i servers per job on H,
        # each job leaving its phase at rate at most max_j -T_i[j, j] (1/d_i if exponential)
        busy = (sum(s * p.fastest for s, p in zip(slots, phases, strict=True))
                + helpers * max(p.fastest / n for p, n in zip(phases, needs, strict=True)))
        check_rate_span(rate, classes, [busy] * len(classes))
        check_phase_rates(rate, classes, phases, busy)
        return system

    @property
    def phased(self) -> bool:
        """Whether a class has more than one phase."""
        return any(p.order > 1 for p in self.phases)

    def chain(self, max_states: int) -> CTMC:
        """The chain of :meth:`build` (which checked ``max_states``), refused when the waiting jobs alone exceed it."""
        if self.max_waiting >= max_states:  # every count of waiting jobs from 0 to max_waiting is a state
            raise StateSpaceTooLargeError(self.max_waiting + 1, max_states, f"the chain truncated at max_waiting = "
                                                                           f"{self.max_waiting} waiting jobs", at_least=True)
        build = {"sequence": self._sequence_chain, "lumped": self._lumped_chain,
                 "counts": self._msf_phase_chain if self.phased else self._msf_chain}
        return build[self.representation](max_states)

    def readings(self, states: Sequence) -> tuple[np.ndarray | None, ...]:
        """Per state (rows) and class (columns) of the chain: the jobs present, whether an arrival is admitted,
        whether it waits, whether it is sent to the helpers and the jobs served there (the last two None but
        under the BS policies)."""
        read = {"sequence": self._sequence_metrics, "lumped": self._lumped_metrics, "counts": self._msf_metrics}
        if self.representation == "counts" and self.phased:
            states = [[len(started) + fresh for started, fresh in state] for state in states]
        return read[self.representation](states)

    def free_servers(self, serving: Sequence[int]) -> int:
        """Idle helper servers (all servers under FCFS); ``serving`` counts per (class, phase)."""
        return self.helpers - sum(n * x for n, x in zip(self.column_needs, serving, strict=True))

    def _per_class(self, counts: Sequence[int]) -> tuple[int, ...]:
        """Counts per (class, phase) summed over the phases of each class."""
        return tuple(sum(counts[c] for c in columns) for columns in self.columns)

    def entry_column(self, i: int) -> int:
        """The coordinate of the first phase a class-i job may start in."""
        return self.entries[i][0][0]

    def _start(self, counts: tuple[int, ...], i: int, weight: float) -> list[tuple[tuple[int, ...], float]]:
        """A class-i job starts service: ``(counts', weight β_ij)`` for each phase j it may start in."""
        return [(plus(counts, column, 1), weight * a) for column, a in self.entries[i]]

    def _waits(self, free: np.ndarray, queued: np.ndarray) -> np.ndarray:
        """Whether an arrival of each class (columns) sent to the helpers waits: a queue, or no room."""
        return queued[:, None] | (free[:, None] < np.array(self.needs)[None, :])

    # -- FCFS on the helpers, with or without reserved sets: the ordered sequence ---------------

    def _admit(self, serving: tuple[int, ...], waiting: tuple[int, ...]) -> list[tuple[tuple[int, ...], tuple[int, ...], float]]:
        """Start waiting jobs in order while the head fits on the helper servers, each in a phase drawn
        from its class's β: the ``(serving', waiting', probability)`` outcomes."""
        free = self.free_servers(serving)
        start = 0
        while start < len(waiting) and self.needs[waiting[start]] <= free:
            free -= self.needs[waiting[start]]
            start += 1
        rest = waiting[start:]
        if not start:
            return [(serving, rest, 1.0)]
        outcomes = {serving: 1.0}
        for i in waiting[:start]:
            if len(self.entries[i]) == 1:  # one phase to start in (β_ij = 1)
                column = self.entries[i][0][0]
                outcomes = {plus(counts, column, 1): weight for counts, weight in outcomes.items()}
                continue
            drawn: defaultdict = defaultdict(float)
            for counts, weight in outcomes.items():
                for started, probability in self._start(counts, i, weight):
                    drawn[started] += probability
            outcomes = drawn
        return [(counts, rest, weight) for counts, weight in outcomes.items()]

    def refuse_large(self, max_states: int) -> None:
        """Refuse before exploring when class i alone can hold max_states jobs in service.

        Class i alone can hold 0, 1, ..., s_i + ⌊|H| / n_i⌋ jobs in service, each count a state.
        """
        in_service = max(s + self.helpers // n for s, n in zip(self.slots, self.needs, strict=True))
        if in_service >= max_states:
            raise StateSpaceTooLargeError(in_service + 1, max_states, "the chain (jobs of one class in service)",
                                          at_least=True)

    def _sequence_chain(self, max_states: int) -> CTMC:
        rule3 = self.policy == "bs-fcfs"

        def transitions(state):
            reserved, serving, waiting = state
            for i, lam in enumerate(self.arrival_rates):
                if len(waiting) < self.max_waiting:
                    if sum([reserved[c] for c in self.columns[i]]) < self.slots[i]:  # rule 1: room in A_i
                        for room, rate in self._start(reserved, i, lam):
                            yield (room, serving, waiting), rate
                    else:  # sent to the helpers, served there by FCFS
                        for busy, rest, weight in self._admit(serving, (*waiting, i)):
                            yield (reserved, busy, rest), lam * weight
                for column, exit_rate, moves in self.services[i]:
                    count = reserved[column]
                    if not count:
                        continue
                    left = plus(reserved, column, -1)
                    if rule3 and i in waiting:  # rule 3: A_i takes the oldest class-i job waiting in H, in a new phase
                        position = waiting.index(i)
                        # a new head may now fit on the helpers
                        after = (self._admit(serving, waiting[1:]) if position == 0
                                 else [(serving, waiting[:position] + waiting[position + 1:], 1.0)])
                        for room, rate in self._start(left, i, count * exit_rate):
                            for busy, rest, weight in after:
                                yield (room, busy, rest), rate * weight
                    else:
                        yield (left, serving, waiting), count * exit_rate
                    for to, rate in moves:
                        yield (plus(left, to, 1), serving, waiting), count * rate
                for column, exit_rate, moves in self.services[i]:
                    count = serving[column]
                    if not count:
                        continue
                    left = plus(serving, column, -1)
                    for busy, rest, weight in self._admit(left, waiting):
                        yield (reserved, busy, rest), count * exit_rate * weight
                    for to, rate in moves:
                        yield (reserved, plus(left, to, 1), waiting), count * rate

        empty = (0,) * len(self.column_needs)
        return CTMC.from_function((empty, empty, ()), transitions, max_states=max_states)

    def _sequence_metrics(self, states: list) -> tuple[np.ndarray, ...]:
        c = len(self.needs)
        admitted = np.repeat(np.array([[len(w) < self.max_waiting] for _, _, w in states]), c, axis=1)
        reserved = np.array([self._per_class(r) for r, _, _ in states], dtype=int).reshape(len(states), c)
        serving = np.array([self._per_class(s) for _, s, _ in states], dtype=int).reshape(len(states), c)
        queued = np.array([[w.count(i) for i in range(c)] for *_, w in states], dtype=int).reshape(len(states), c)
        counts = (reserved + serving + queued).astype(float)
        full = reserved >= np.array(self.slots)  # rule 1 sends to H
        waits = full & self._waits(np.array([self.free_servers(s) for _, s, _ in states]),
                                   np.array([len(w) > 0 for *_, w in states]))
        on_helpers = serving.astype(float)
        return (counts, admitted, waits) + ((full, on_helpers) if self.policy != "fcfs" else (None, None))

    # -- FCFS, lumped: the class of the head and the number waiting ------------------------------

    def _settle(self, serving: tuple[int, ...], head: int, waiting: int, weight: float):
        """Start heads while they fit, each in a phase drawn from its class's β, drawing each new head's
        class from (α_i); the (state, weight) pairs.

        One job starts per round; paths that reach the same state are merged, so a cascade of m
        starts costs O(m^C) states instead of C^m paths (a departure of a job needing 64 servers
        can start 64 jobs needing one), and no recursion limits its length.
        """
        total = sum(self.arrival_rates)
        settled: defaultdict = defaultdict(float)
        frontier = {(serving, head, waiting): weight}
        while frontier:
            started: defaultdict = defaultdict(float)
            for (serving, head, waiting), weight in frontier.items():
                if not (waiting and self.needs[head] <= self.free_servers(serving)):
                    settled[serving, head, waiting] += weight
                    continue
                for served, entered in self._start(serving, head, weight):
                    if waiting == 1:
                        started[served, -1, 0] += entered
                    else:
                        for j, lam in enumerate(self.arrival_rates):
                            started[served, j, waiting - 1] += entered * lam / total
            frontier = started
        return settled.items()

    def lumped_transitions(self, state: tuple):
        """The jumps ``(state', rate)`` of the lumped chain from ``(serving, head, waiting)``
        (``max_waiting = inf``: the untruncated queue; ``waiting = inf`` with it: the saturated one)."""
        serving, head, waiting = state
        for i, lam in enumerate(self.arrival_rates):
            if waiting == 0:
                yield from self._settle(serving, i, 1, lam)
            elif waiting < self.max_waiting:
                yield (serving, head, waiting + 1), lam
            for column, exit_rate, moves in self.services[i]:
                count = serving[column]
                if count:
                    left = plus(serving, column, -1)
                    yield from self._settle(left, head, waiting, count * exit_rate)
                    for to, rate in moves:
                        yield (plus(left, to, 1), head, waiting), count * rate

    def _lumped_chain(self, max_states: int) -> CTMC:
        return CTMC.from_function(((0,) * len(self.column_needs), -1, 0), self.lumped_transitions, max_states=max_states)

    def _lumped_metrics(self, states: list) -> tuple[np.ndarray, ...]:
        c = len(self.needs)
        alpha = np.array(self.arrival_rates) / sum(self.arrival_rates)
        serving = np.array([self._per_class(s) for s, _, _ in states], dtype=float).reshape(len(states), c)
        heads = np.array([h for _, h, _ in states])
        waiting = np.array([w for _, _, w in states])
        behind = np.maximum(waiting - 1, 0)[:, None] * alpha  # the classes behind the head are i.i.d. (α_i)
        counts = serving + (heads[:, None] == np.arange(c)) + behind
        admitted = np.repeat((waiting < self.max_waiting)[:, None], c, axis=1)
        waits = self._waits(np.array([self.free_servers(s) for s, _, _ in states]), waiting > 0)
        return counts, admitted, waits, None, None

    # -- Most Servers First ---------------------------------------------------------------------

    def _msf_served(self, counts: np.ndarray) -> np.ndarray:
        """Jobs in service per class (columns of ``counts``): greedy by decreasing need."""
        served = np.zeros_like(counts)
        free = np.full(len(counts), self.helpers)
        for i in sorted(range(len(self.needs)), key=lambda j: -self.needs[j]):
            served[:, i] = np.minimum(counts[:, i], free // self.needs[i])
            free = free - served[:, i] * self.needs[i]
        return served

    def _msf_waiting(self, counts: np.ndarray) -> np.ndarray:
        """Jobs not in service; it never decreases when a job is added (arrivals only displace others)."""
        return counts.sum(axis=1) - self._msf_served(counts).sum(axis=1)

    def _msf_admitted(self, counts: np.ndarray) -> np.ndarray:
        """Whether an arrival of each class (columns) is admitted: it leaves at most max_waiting jobs waiting."""
        arrivals = np.eye(len(self.needs), dtype=int)
        return np.column_stack([self._msf_waiting(counts + arrivals[i]) <= self.max_waiting for i in range(len(self.needs))])

    def _msf_chain(self, max_states: int) -> CTMC:
        c = len(self.needs)
        moves = []
        for i in range(c):
            up = np.eye(c, dtype=int)[i]
            moves.append((up, lambda X, i=i: self.arrival_rates[i] * self._msf_admitted(X)[:, i]))
            moves.append((-up, lambda X, i=i: self.service_rates[i] * self._msf_served(X)[:, i]))
        upper = [self.helpers // n + self.max_waiting for n in self.needs]
        return CTMC.from_lattice(upper, moves, feasible=lambda X: self._msf_waiting(X) <= self.max_waiting,
                                 max_states=max_states)

    def _msf_phase_chain(self, max_states: int) -> CTMC:
        """Most Servers First with phase-type classes, on the states ``((started, fresh), ...)`` of the
        module docstring."""

        packings: dict = {}     # per count of jobs of each class: (jobs in service, arrivals admitted), class by class

        def packing(state: tuple) -> tuple[list[int], list[bool]]:
            counts = tuple(len(s) + f for s, f in state)
            if counts not in packings:
                row = np.array([counts])
                packings[counts] = ([int(x) for x in self._msf_served(row)[0]], [bool(x) for x in self._msf_admitted(row)[0]])
            return packings[counts]

        def served(state: tuple) -> list[int]:
            return packing(state)[0]

        def settle(state: tuple, weight: float):
            """Start, each in a phase drawn from β_i, the jobs never started that the packing now serves."""
            outcomes = {state: weight}
            for i, starts in enumerate(served(state)):
                if self.phases[i].order == 1:
                    continue
                for _ in range(starts - len(state[i][0])):
                    drawn: defaultdict = defaultdict(float)
                    for entries, w in outcomes.items():
                        started, fresh = entries[i]
                        for j, a in enumerate(self.phases[i].initial):
                            if a > 0:
                                drawn[put(entries, i, ((*started, j), fresh - 1))] += w * a
                    outcomes = drawn
            return outcomes.items()

        def transitions(state: tuple):
            in_service, admitted = packing(state)
            for i, (lam, law) in enumerate(zip(self.arrival_rates, self.phases, strict=True)):
                started, fresh = state[i]
                if admitted[i]:
                    yield from settle(put(state, i, (started, fresh + 1)), lam)
                if law.order == 1:
                    if in_service[i]:
                        yield from settle(put(state, i, (started, fresh - 1)), in_service[i] * law.exits[0])
                    continue
                for position in range(in_service[i]):  # the oldest started jobs are in service
                    j = started[position]
                    rest = started[:position] + started[position + 1:]
                    if law.exits[j] > 0:
                        yield from settle(put(state, i, (rest, fresh)), law.exits[j])
                    for to, rate in law.moves[j]:
                        yield put(state, i, ((*rest[:position], to, *rest[position:]), fresh)), rate

        empty = tuple(((), 0) for _ in self.needs)
        return CTMC.from_function(empty, transitions, max_states=max_states)

    def _msf_metrics(self, states: np.ndarray) -> tuple[np.ndarray, ...]:
        counts = np.asarray(states)
        arrivals = np.eye(len(self.needs), dtype=int)
        # an arrival of class i (the youngest of its class) is served at once iff the packing takes it
        waits = np.column_stack([self._msf_served(counts + arrivals[i])[:, i] <= counts[:, i] for i in range(len(self.needs))])
        return counts.astype(float), self._msf_admitted(counts), waits, None, None


def plus(values: Sequence[int], i: int, change: int) -> tuple[int, ...]:
    return (*values[:i], values[i] + change, *values[i + 1:])


def put(values: Sequence, i: int, value: object) -> tuple:
    return (*values[:i], value, *values[i + 1:])
