"""Exact CTMCs of the multiserver-job queue under FCFS, BS-FCFS, ModifiedBS-FCFS and Most Servers First.

With Poisson arrivals and exponential service times these policies are Markov chains on a finite
description of the jobs present. Truncated at ``max_waiting`` waiting jobs (an arrival is lost if
it would leave more jobs waiting; the jobs in service are bounded by k anyway), they are solved
exactly with :mod:`analytic.ctmc`. The fraction of arrivals lost at the cap is reported with every
result: it bounds the error of the truncation and must be negligible for the values to be those
of the untruncated queue. The simulator of :mod:`~analytic.splitting.simulation` is checked against these values.

States (``representation``):

- ``"sequence"`` — FCFS, BS-FCFS and ModifiedBS-FCFS (one builder; plain FCFS is the case
  without reserved sets): ``(reserved, serving, waiting)``, the number of class-i jobs in A_i, the
  number of class-i jobs in service on the helper (for FCFS: the whole) server set, and the
  classes of the waiting jobs in arrival order. This is the paper's "ordered sequence of classes
  present" with the jobs in service kept as counts: under FCFS they precede every waiting job and
  exponential sizes make their order irrelevant, an exact lumping. Its size grows like C^q with q
  waiting jobs.
- ``"lumped"`` — FCFS only: ``(serving, head, waiting)``, the class of the first waiting job
  (-1 if none) and the number of waiting jobs. Under FCFS nothing depends on the class of a
  waiting job until it reaches the head, and classes are drawn independently of the past at
  arrival, so the classes behind the head are i.i.d. with law (α_i) (the principle of deferred
  decisions): the class of the next head is drawn when it is revealed. The chain is an exact
  lumping of the sequence chain (a test compares the two at equal truncation) and has O(q)
  states, so the truncation can be taken deep enough to be negligible.
- ``"counts"`` — Most Servers First (preemptive): the number of jobs of each class; the classes
  are served in decreasing order of need, as many jobs of each as fit (the oldest first).

Anselmi & Doncel, Section 2 (FCFS, Most Servers First), Definitions 1 (BS-π) and 2 (ModifiedBS-π)
with π = FCFS on the helpers.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from analytic.ctmc import CTMC, Stationary
from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.splitting.bounds import split_servers
from analytic.splitting.classes import JobClass, _check_rate_span, _classes, _servers, check_load
from analytic.validation import integer

__all__ = ["EXACT_POLICIES", "ExactMetrics", "Saturation", "exact_multiserver", "fcfs_saturation", "multiserver_chain"]

#: The policies with an exact chain (exponential sizes).
EXACT_POLICIES = ("fcfs", "bs-fcfs", "modified-bs-fcfs", "msf")


@dataclass(frozen=True)
class ExactMetrics:
    """Stationary metrics of a multiserver-job queue from its exact (truncated) chain.

    Attributes
    ----------
    policy : str
    mean_response_time : float
        E[R] over admitted jobs (Little's law: E[jobs present] / admitted rate), time units.
    per_class_response_time : tuple of float
        E[R_i], one per class.
    wait_probability : float
        Probability that an admitted job does not enter service on arrival (PASTA).
    per_class_wait_probability : tuple of float
    helper_probability : float or None
        P_H, the probability that a job is sent to the helpers on arrival (BS policies; None
        otherwise).
    per_class_helper_probability : tuple of float or None
    helper_service_probability : float or None
        The probability that a job is served on the helpers (rule 3 of BS-FCFS moves some jobs
        sent there to A_i): by Little's law, E[class-i jobs in service on H] / (d_i λ_i).
    per_class_helper_service_probability : tuple of float or None
    lost_fraction : float
        Fraction of arrivals lost at the truncation (the chain's probability of holding
        ``max_waiting`` waiting jobs): the error made by truncating is of this order.
    max_waiting : int
    n_states : int
    residual : float
        ||π Q||_1 of the stationary solution.

    Examples
    --------
    >>> from analytic.splitting import JobClass, exact_multiserver
    >>> exact = exact_multiserver("fcfs", 2, [JobClass(1, 1.0, 1.0)], 1.0)   # M/M/2 at load 1/2: E[R] = 4/3
    >>> round(exact.mean_response_time, 12)
    1.333333333333
    """

    policy: str
    mean_response_time: float
    per_class_response_time: tuple[float, ...]
    wait_probability: float
    per_class_wait_probability: tuple[float, ...]
    helper_probability: float | None
    per_class_helper_probability: tuple[float, ...] | None
    helper_service_probability: float | None
    per_class_helper_service_probability: tuple[float, ...] | None
    lost_fraction: float
    max_waiting: int
    n_states: int
    residual: float


def multiserver_chain(policy: str, servers: int, classes: Iterable[JobClass], arrival_rate: float,
                      max_waiting: int = 60, representation: str | None = None, max_states: int = 500_000) -> CTMC:
    """The CTMC of the multiserver-job queue under ``policy``, truncated at ``max_waiting`` waiting jobs.

    Parameters
    ----------
    policy : {"fcfs", "bs-fcfs", "modified-bs-fcfs", "msf"}
        FCFS (head-of-line blocking), Balanced Splitting with FCFS on the helpers (Definition 1,
        rules 1–3), its modified version (Definition 2: no rule 3) or Most Servers First
        (preemptive; the needs of the classes must differ).
    servers : int
        k >= every need.
    classes : sequence of JobClass
        Their service times must be exponential (:attr:`JobClass.law`).
    arrival_rate : float
        Total rate λ > 0 of the Poisson arrivals, with load λ ϱ / k < 1.
    max_waiting : int
        An arrival is lost if it would leave more than this many jobs waiting (not in service).
    representation : {"sequence", "lumped", "counts"}, optional
        The state description (module docstring). Default: "lumped" for FCFS, "sequence" for the
        BS policies, "counts" for Most Servers First, the only one each of them allows except
        that FCFS also takes "sequence".
    max_states : int
        :class:`~analytic.errors.StateSpaceTooLargeError` beyond this many states.

    Returns
    -------
    analytic.ctmc.CTMC
        States as described in the module docstring.

    Raises
    ------
    InvalidParameterError
        Unknown policy or representation, bad classes or servers, a class whose service time is not
        exponential, repeated needs under "msf", or an arrival rate λ α_i below 2**-1021 times the total
        rate out of a state (the exact solver cannot represent it).
    UnstableSystemError
        Load λ ϱ / k >= 1.
    StateSpaceTooLargeError
        More than ``max_states`` states.

    References
    ----------
    Anselmi & Doncel, Section 2 and Definitions 1–2.

    Examples
    --------
    >>> from analytic.splitting import JobClass
    >>> classes = [JobClass(1, 0.5, 1.0), JobClass(2, 0.5, 1.0)]
    >>> multiserver_chain("fcfs", 4, classes, 2.0, max_waiting=3, representation="sequence").n_states
    65
    >>> multiserver_chain("fcfs", 4, classes, 2.0, max_waiting=3).n_states
    33
    """
    return _System.build(policy, servers, classes, arrival_rate, max_waiting, representation, max_states).chain(max_states)


def exact_multiserver(policy: str, servers: int, classes: Iterable[JobClass], arrival_rate: float,
                      max_waiting: int = 60, representation: str | None = None, max_states: int = 500_000,
                      method: str = "auto", tolerance: float = 1e-10) -> ExactMetrics:
    """Mean response time, probability of waiting and P_H of a multiserver-job queue, exactly.

    Solves :func:`multiserver_chain` and reads the metrics off the stationary law: mean response
    times by Little's law, and the probabilities of waiting and of being sent to the helpers
    from the state an arrival finds (PASTA).

    Parameters
    ----------
    policy, servers, classes, arrival_rate, max_waiting, representation, max_states
        As in :func:`multiserver_chain`.
    method, tolerance
        Passed to :meth:`analytic.ctmc.CTMC.stationary`: the solver and the componentwise relative
        accuracy vouched for every stationary probability.

    Returns
    -------
    ExactMetrics
        Its ``lost_fraction`` says how far the truncation is from the untruncated queue; raise
        ``max_waiting`` until it is negligible. For FCFS, :func:`~analytic.splitting.fcfs_bounds`
        gives intervals that provably contain the untruncated queue's E[R] and P(wait).

    Raises
    ------
    As :func:`multiserver_chain`.

    References
    ----------
    Anselmi & Doncel, Section 2 and Definitions 1–2; Little's law; PASTA.

    Examples
    --------
    One class needing 2 of 4 servers is an M/M/2 queue (Erlang C: E[R] = 1/(1 - ρ^2) at ρ = 1/2):

    >>> from analytic.splitting import JobClass
    >>> round(exact_multiserver("fcfs", 4, [JobClass(2, 1.0, 1.0)], 1.0, max_waiting=60).mean_response_time, 10)
    1.3333333333
    """
    system = _System.build(policy, servers, classes, arrival_rate, max_waiting, representation, max_states)
    chain = system.chain(max_states)
    return system.metrics(chain.stationary(method=method, tolerance=tolerance), chain.n_states)


#: The state descriptions each policy allows; the first is the default.
_REPRESENTATIONS = {"fcfs": ("lumped", "sequence"), "bs-fcfs": ("sequence",), "modified-bs-fcfs": ("sequence",),
                    "msf": ("counts",)}


@dataclass(frozen=True)
class Saturation:
    """FCFS with an infinite backlog: the largest arrival rate it can sustain.

    Attributes
    ----------
    throughput : float
        λ_max, departures per unit time of the saturated system: FCFS is stable for λ < λ_max and
        its number of jobs grows at rate λ - λ_max above.
    max_load : float
        λ_max ϱ / k, the load at which FCFS becomes unstable (1 for a throughput-optimal policy).
    n_states : int

    Examples
    --------
    >>> from analytic.splitting import JobClass, fcfs_saturation
    >>> round(fcfs_saturation(4, [JobClass(1, 0.8, 1.0), JobClass(4, 0.2, 1.0)]).max_load, 4)
    0.7136
    """

    throughput: float
    max_load: float
    n_states: int


#: Most states of the saturated FCFS chain explored by :func:`fcfs_saturation`.
SATURATION_MAX_STATES = 2_000_000


def fcfs_saturation(servers: int, classes: Iterable[JobClass], method: str = "auto",
                    tolerance: float = 1e-10) -> Saturation:
    """The stability limit of FCFS: the throughput of the saturated multiserver-job queue, exactly.

    With an infinite backlog the state is the jobs in service and the class of the first job that
    does not fit; when a job leaves, jobs start in order while they fit, the class of each new
    head drawn from (α_i) (the lumped chain of the module docstring with infinitely many waiting
    jobs). Its throughput λ_max bounds the arrival rates at which FCFS is stable (the saturated
    system's throughput, as in Rumyantsev & Morozov and Grosof et al.); a load λ ϱ / k between
    λ_max ϱ / k and 1 is one at which FCFS is unstable but a throughput-optimal policy is not.

    Parameters
    ----------
    servers : int
        k >= every need.
    classes : sequence of JobClass
        Exponential service times.
    method, tolerance
        Passed to :meth:`analytic.ctmc.CTMC.stationary`.

    Returns
    -------
    Saturation

    Raises
    ------
    InvalidParameterError
        Bad servers or classes, or a class whose service time is not exponential.

    References
    ----------
    Anselmi & Doncel, Section 2 and Table 1 (FCFS is not throughput optimal).

    Examples
    --------
    One class: all ⌊k/n⌋ slots stay busy.

    >>> from analytic.splitting import JobClass
    >>> fcfs_saturation(5, [JobClass(2, 1.0, 0.5)]).throughput
    4.0
    """
    classes = _classes(classes)
    k = _servers(servers, classes)
    for i, c in enumerate(classes):
        if not c.exponential:
            raise InvalidParameterError(f"classes[{i}]", c.law, "must have exponential service times for an exact chain")
    alpha = tuple(float(c.probability) for c in classes)
    mu = tuple(1 / float(c.mean_size) for c in classes)
    system = _System("fcfs", "lumped", tuple(c.need for c in classes), alpha, mu, (0,) * len(classes), k, 1)
    system.refuse_large(SATURATION_MAX_STATES)      # before the first state is settled, job by job

    def transitions(state):
        serving, head = state
        for i, rate in enumerate(mu):
            if serving[i]:
                for (busy, new_head, _), weight in system._settle(_plus(serving, i, -1), head, math.inf, serving[i] * rate):
                    yield (busy, new_head), weight

    start = (_plus((0,) * len(classes), 0, k // classes[0].need), 0)  # class-0 jobs fill the servers, a class-0 head
    chain = CTMC.from_function(start, transitions, max_states=SATURATION_MAX_STATES)
    pi = chain.stationary(method=method, tolerance=tolerance)
    throughput = pi.expected(lambda state: sum(x * rate for x, rate in zip(state[0], mu, strict=True)))
    return Saturation(throughput=throughput, max_load=throughput * float(sum(c.demand for c in classes)) / k,
                      n_states=chain.n_states)


@dataclass(frozen=True)
class _System:
    """A validated system: needs, rates, reserved slots s_i and helper servers."""

    policy: str
    representation: str
    needs: tuple[int, ...]
    arrival_rates: tuple[float, ...]
    service_rates: tuple[float, ...]
    slots: tuple[int, ...]
    helpers: int
    max_waiting: int

    @classmethod
    def build(cls, policy: str, servers: int, classes: Iterable[JobClass], arrival_rate: float, max_waiting: int,
              representation: str | None, max_states: int) -> _System:
        """The validated system, refused when one class alone exceeds ``max_states`` (:meth:`refuse_large`)."""
        if not isinstance(policy, str) or policy not in EXACT_POLICIES:
            raise InvalidParameterError("policy", policy, f"must be one of {', '.join(EXACT_POLICIES)} for an exact chain")
        allowed = _REPRESENTATIONS[policy]
        representation = allowed[0] if representation is None else representation
        if not isinstance(representation, str) or representation not in allowed:
            raise InvalidParameterError("representation", representation, f"must be one of {', '.join(allowed)} for {policy}")
        classes = _classes(classes)
        k = _servers(servers, classes)
        rate = check_load(k, arrival_rate, classes)
        integer("max_waiting", max_waiting)
        for i, c in enumerate(classes):
            if not c.exponential:
                raise InvalidParameterError(f"classes[{i}]", c.law, "must have exponential service times for an exact chain")
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
                     tuple(slots), helpers, max_waiting)
        system.refuse_large(integer("max_states", max_states))   # first: a bound on the rates of a vast chain may be inf
        # jobs arrive in every state below the cap: at most s_i class-i jobs in each A_i, n_i servers per job on H
        busy = sum(s * m for s, m in zip(slots, mu, strict=True)) + helpers * max(m / n for m, n in zip(mu, needs, strict=True))
        _check_rate_span(rate, classes, [busy] * len(classes))
        return system

    def chain(self, max_states: int) -> CTMC:
        """The chain of :meth:`build` (which checked ``max_states``), refused when the waiting jobs alone exceed it."""
        if self.max_waiting >= max_states:  # every count of waiting jobs from 0 to max_waiting is a state
            raise StateSpaceTooLargeError(self.max_waiting + 1, max_states, f"the chain truncated at max_waiting = "
                                                                           f"{self.max_waiting} waiting jobs", at_least=True)
        build = {"sequence": self._sequence_chain, "lumped": self._lumped_chain, "counts": self._msf_chain}
        return build[self.representation](max_states)

    def metrics(self, pi: Stationary, n_states: int) -> ExactMetrics:
        read = {"sequence": self._sequence_metrics, "lumped": self._lumped_metrics, "counts": self._msf_metrics}
        return self._metrics(pi.probabilities, *read[self.representation](pi.states), n_states, pi.residual)

    def _free(self, serving: Sequence[int]) -> int:
        """Idle helper servers (all servers under FCFS)."""
        return self.helpers - sum(n * x for n, x in zip(self.needs, serving, strict=True))

    def _waits(self, free: np.ndarray, queued: np.ndarray) -> np.ndarray:
        """Whether an arrival of each class (columns) sent to the helpers waits: a queue, or no room."""
        return queued[:, None] | (free[:, None] < np.array(self.needs)[None, :])

    # -- FCFS on the helpers, with or without reserved sets: the ordered sequence ---------------

    def _admit(self, serving: list[int], waiting: tuple[int, ...]) -> tuple[int, ...]:
        """Start waiting jobs in order while the head fits on the helper servers."""
        free = self._free(serving)
        start = 0
        while start < len(waiting) and self.needs[waiting[start]] <= free:
            free -= self.needs[waiting[start]]
            serving[waiting[start]] += 1
            start += 1
        return waiting[start:]

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
            for i, (lam, mu) in enumerate(zip(self.arrival_rates, self.service_rates, strict=True)):
                if len(waiting) < self.max_waiting:
                    if reserved[i] < self.slots[i]:  # rule 1: room in A_i
                        yield (_plus(reserved, i, 1), serving, waiting), lam
                    else:  # sent to the helpers, served there by FCFS
                        busy = list(serving)
                        rest = self._admit(busy, (*waiting, i))
                        yield (reserved, tuple(busy), rest), lam
                if reserved[i]:
                    if rule3 and i in waiting:  # rule 3: A_i takes the oldest class-i job waiting in H
                        position = waiting.index(i)
                        busy = list(serving)  # a new head may now fit on the helpers
                        rest = self._admit(busy, waiting[1:]) if position == 0 else waiting[:position] + waiting[position + 1:]
                        yield (reserved, tuple(busy), rest), reserved[i] * mu
                    else:
                        yield (_plus(reserved, i, -1), serving, waiting), reserved[i] * mu
                if serving[i]:
                    busy = list(serving)
                    busy[i] -= 1
                    rest = self._admit(busy, waiting)
                    yield (reserved, tuple(busy), rest), serving[i] * mu

        empty = (0,) * len(self.needs)
        return CTMC.from_function((empty, empty, ()), transitions, max_states=max_states)

    def _sequence_metrics(self, states: list) -> tuple[np.ndarray, ...]:
        c = len(self.needs)
        admitted = np.repeat(np.array([[len(w) < self.max_waiting] for _, _, w in states]), c, axis=1)
        counts = np.array([[r[i] + s[i] + w.count(i) for i in range(c)] for r, s, w in states], dtype=float)
        full = np.array([[r[i] >= self.slots[i] for i in range(c)] for r, _, _ in states])  # rule 1 sends to H
        waits = full & self._waits(np.array([self._free(s) for _, s, _ in states]), np.array([len(w) > 0 for *_, w in states]))
        on_helpers = np.array([s for _, s, _ in states], dtype=float)
        return (counts, admitted, waits) + ((full, on_helpers) if self.policy != "fcfs" else (None, None))

    # -- FCFS, lumped: the class of the head and the number waiting ------------------------------

    def _settle(self, serving: tuple[int, ...], head: int, waiting: int, weight: float):
        """Start heads while they fit, drawing each new head's class from (α_i); the (state, weight) pairs.

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
                if not (waiting and self.needs[head] <= self._free(serving)):
                    settled[serving, head, waiting] += weight
                    continue
                served = _plus(serving, head, 1)
                if waiting == 1:
                    started[served, -1, 0] += weight
                else:
                    for j, lam in enumerate(self.arrival_rates):
                        started[served, j, waiting - 1] += weight * lam / total
            frontier = started
        return settled.items()

    def lumped_transitions(self, state: tuple):
        """The jumps ``(state', rate)`` of the lumped chain from ``(serving, head, waiting)``
        (``max_waiting = inf``: the untruncated queue)."""
        serving, head, waiting = state
        for i, (lam, mu) in enumerate(zip(self.arrival_rates, self.service_rates, strict=True)):
            if waiting == 0:
                yield from self._settle(serving, i, 1, lam)
            elif waiting < self.max_waiting:
                yield (serving, head, waiting + 1), lam
            if serving[i]:
                yield from self._settle(_plus(serving, i, -1), head, waiting, serving[i] * mu)

    def _lumped_chain(self, max_states: int) -> CTMC:
        return CTMC.from_function(((0,) * len(self.needs), -1, 0), self.lumped_transitions, max_states=max_states)

    def _lumped_metrics(self, states: list) -> tuple[np.ndarray, ...]:
        c = len(self.needs)
        alpha = np.array(self.arrival_rates) / sum(self.arrival_rates)
        serving = np.array([s for s, _, _ in states], dtype=float)
        heads = np.array([h for _, h, _ in states])
        waiting = np.array([w for _, _, w in states])
        behind = np.maximum(waiting - 1, 0)[:, None] * alpha  # the classes behind the head are i.i.d. (α_i)
        counts = serving + (heads[:, None] == np.arange(c)) + behind
        admitted = np.repeat((waiting < self.max_waiting)[:, None], c, axis=1)
        waits = self._waits(np.array([self._free(s) for s, _, _ in states]), waiting > 0)
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

    def _msf_metrics(self, states: np.ndarray) -> tuple[np.ndarray, ...]:
        counts = np.asarray(states)
        arrivals = np.eye(len(self.needs), dtype=int)
        # an arrival of class i (the youngest of its class) is served at once iff the packing takes it
        waits = np.column_stack([self._msf_served(counts + arrivals[i])[:, i] <= counts[:, i] for i in range(len(self.needs))])
        return counts.astype(float), self._msf_admitted(counts), waits, None, None

    # -- shared ---------------------------------------------------------------------------------

    def _metrics(self, probabilities, counts, admitted, waits, helper, on_helpers, n_states, residual) -> ExactMetrics:
        """Little's law per class and PASTA; ``admitted``, ``waits``, ``helper``, ``on_helpers``: states x classes."""
        rates = np.array(self.arrival_rates)
        kept = probabilities @ admitted  # per class, the fraction of arrivals admitted
        per_class_r = probabilities @ counts / (rates * kept)
        per_class_w = probabilities @ (admitted & waits) / kept
        weights = rates * kept / (rates @ kept)  # the classes among admitted jobs
        per_class_h = None if helper is None else probabilities @ (admitted & helper) / kept
        per_class_s = None if on_helpers is None else probabilities @ on_helpers * np.array(self.service_rates) / (rates * kept)
        return ExactMetrics(
            policy=self.policy, mean_response_time=float(weights @ per_class_r),
            per_class_response_time=tuple(map(float, per_class_r)),
            wait_probability=float(weights @ per_class_w), per_class_wait_probability=tuple(map(float, per_class_w)),
            helper_probability=None if per_class_h is None else float(weights @ per_class_h),
            per_class_helper_probability=None if per_class_h is None else tuple(map(float, per_class_h)),
            helper_service_probability=None if per_class_s is None else float(weights @ per_class_s),
            per_class_helper_service_probability=None if per_class_s is None else tuple(map(float, per_class_s)),
            lost_fraction=float(1 - rates @ kept / rates.sum()), max_waiting=self.max_waiting, n_states=n_states,
            residual=residual)


def _plus(values: Sequence[int], i: int, change: int) -> tuple[int, ...]:
    return (*values[:i], values[i] + change, *values[i + 1:])
