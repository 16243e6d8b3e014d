"""Exact CTMCs of the multiserver-job queue under FCFS, BS-FCFS, ModifiedBS-FCFS and Most Servers First.

With Poisson arrivals and phase-type service times these policies are Markov chains on a finite
description of the jobs present. Truncated at ``max_waiting`` waiting jobs (an arrival is lost if
it would leave more jobs waiting; the jobs in service are bounded by k anyway), they are solved
exactly with :mod:`analytic.ctmc`. The fraction of arrivals lost at the cap is reported with every
result: it bounds the error of the truncation and must be negligible for the values to be those
of the untruncated queue. The simulator of :mod:`~analytic.splitting.simulation` is checked against these values.

Service times. Class i's service time is the phase-type law PH(β_i, T_i) of
``RigidClass.law.to_phase_type()`` (β_i is its ``initial``, the α of
:class:`~analytic.simulation.PhaseType`, renamed here because α_i is the class probability;
its phases reachable from β_i), with ``m_i`` phases, in time
units and of mean d_i (:class:`~analytic.splitting.RigidClass` scales its law to ``mean_size``). A job in service
carries its phase: drawn from β_i when it starts service, it moves from phase j to j' at rate
T_i[j, j'] and completes at rate t_{i,j} = -(T_i 1)_j. Waiting jobs carry none (they have not
started). An exponential class is the case ``m_i = 1``, of rate 1/d_i; laws that are not
phase-type (deterministic, Pareto) are refused: ``law.to_phase_type()`` approximates them, and the
chain then solves that approximation. Wherever the states below count the jobs in service of
each class, they count them per (class, phase): one coordinate per phase, class-major (class i's
phase j is coordinate m_0 + ... + m_{i-1} + j). With exponential classes these are the counts per
class, and the chain is the exponential one, state for state.

States (``representation``):

- ``"sequence"`` — FCFS, BS-FCFS and ModifiedBS-FCFS (one builder; plain FCFS is the case
  without reserved sets): ``(reserved, serving, waiting)``, the number of class-i jobs in A_i and
  of class-i jobs in service on the helper (for FCFS: the whole) server set, both per phase, and
  the classes of the waiting jobs in arrival order. This is the paper's "ordered sequence of
  classes present" with the jobs in service kept as counts: under FCFS they precede every waiting
  job and a job's future depends on its class and phase alone, so their order is irrelevant, an
  exact lumping. Its size grows like C^q with q waiting jobs.
- ``"lumped"`` — FCFS only: ``(serving, head, waiting)``, the class of the first waiting job
  (-1 if none) and the number of waiting jobs. Under FCFS nothing depends on the class of a
  waiting job until it reaches the head, and classes are drawn independently of the past at
  arrival, so the classes behind the head are i.i.d. with law (α_i) (the principle of deferred
  decisions): the class of the next head is drawn when it is revealed, its phase when it starts.
  The chain is an exact lumping of the sequence chain (a test compares the two at equal
  truncation) and has O(q) states, so the truncation can be taken deep enough to be negligible.
- ``"counts"`` — Most Servers First (preemptive, preempt-resume): with exponential classes, the
  number of jobs of each class; the classes are served in decreasing order of need, as many jobs
  of each as fit (the oldest first). With phase-type classes a preempted job keeps its phase, and
  the job preempted is the youngest in service of its class, so counts per phase are not a Markov
  state: the state is, per class, ``(started, fresh)``, the phases of the jobs that have started
  service, oldest first, and the number of jobs that have not. The started jobs are the oldest of
  their class, at most ⌊k/n_i⌋ of them (a job starts only when every older one of its class is in
  service), so ``started`` is one of at most m_i + m_i² + ... + m_i^⌊k/n_i⌋ sequences. The first
  ``x_i`` started jobs are in service, ``x_i`` the packing above applied to the numbers of jobs;
  the others wait, preempted, in their phase. A class of one phase keeps ``started = ()`` and
  ``fresh`` its number of jobs (its phases need no record).

Anselmi & Doncel, Section 2 (FCFS, Most Servers First), Definitions 1 (BS-π) and 2 (ModifiedBS-π)
with π = FCFS on the helpers.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from analytic.ctmc import CTMC, Stationary
from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.simulation.laws import exact_phase_type
from analytic.splitting.bounds import split_servers
from analytic.splitting.classes import (
    _SMALLEST_RELATIVE_RATE,
    RigidClass,
    _check_rate_span,
    _classes,
    _servers,
    check_load,
)
from analytic.validation import integer

__all__ = ["EXACT_POLICIES", "ExactMetrics", "Saturation", "exact_multiserver", "fcfs_saturation", "multiserver_chain"]

#: The policies with an exact chain (exponential or phase-type sizes).
EXACT_POLICIES = ("fcfs", "bs-fcfs", "modified-bs-fcfs", "msf")


@dataclass(frozen=True)
class ExactMetrics:
    """Stationary metrics of a multiserver-job queue from its exact (truncated) chain.

    They hold for phase-type sizes as for exponential ones: the mean response times come from
    Little's law (E[jobs present] over the admitted rate, for any size law), and the probabilities
    of waiting and of being sent to the helpers from the state an arrival finds, Poisson arrivals
    seeing time averages (PASTA), whatever the phases of the jobs in service.

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
    accuracy : float
        A proven bound on the relative error of every reported mean and probability (overall and
        per class; ``lost_fraction``, computed as one minus the admitted fraction, within it
        *absolutely*) against its exact value on the truncated chain, ``|q - q_exact| <= accuracy
        |q|``: each is a ratio of two sums ``Σ_x π(x) r(x)`` of non-negative terms, which inherit the
        largest relative error ``ε`` of the per-state bounds of :attr:`Stationary.error_bounds
        <analytic.ctmc.Stationary.error_bounds>`, so ``accuracy`` is about ``2 ε`` plus the rounding
        of the sums (Higham, *Accuracy and Stability of Numerical Algorithms*, 2002, Lemma 3.1).
        States whose probabilities lie below the solver's floor are left out of it, as in
        :attr:`Stationary.accuracy <analytic.ctmc.Stationary.accuracy>` (each adds at most about
        ``1e-290`` times its reward, absolute). The truncation's own error is ``lost_fraction``'s
        concern, not this one's.
    residual : float
        ||π Q||_1 of the stationary solution, for information only: it certifies nothing (the
        accuracy is :attr:`accuracy`).

    Examples
    --------
    >>> from analytic.splitting import RigidClass, exact_multiserver
    >>> exact = exact_multiserver("fcfs", 2, [RigidClass(1, 1.0, 1.0)], 1.0)   # M/M/2 at load 1/2: E[R] = 4/3
    >>> round(exact.mean_response_time, 12), exact.accuracy < 1e-12
    (1.333333333333, True)
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
    accuracy: float
    residual: float


def multiserver_chain(policy: str, servers: int, classes: Iterable[RigidClass], arrival_rate: float,
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
    classes : sequence of RigidClass
        Their service times (:attr:`RigidClass.law`, of mean d_i) must be phase-type: exponential, an
        :class:`~analytic.simulation.ErlangMixture` (:func:`~analytic.simulation.erlang`,
        :func:`~analytic.simulation.hyperexponential`, :func:`~analytic.simulation.mixed_erlang`,
        :func:`~analytic.simulation.fitted`) or a :class:`~analytic.simulation.PhaseType`. Each
        job in service then carries its phase (module docstring); exponential classes give the
        exponential chain itself. A deterministic or Pareto law is refused: ``law.to_phase_type()``
        approximates it, and the chain of that approximation is then what is solved.
    arrival_rate : float
        Total rate λ > 0 of the Poisson arrivals, with load λ ϱ / k < 1.
    max_waiting : int
        An arrival is lost if it would leave more than this many jobs waiting (not in service);
        under the BS policies every arrival is lost while this many jobs wait on the helpers, a
        class-i arrival with room in A_i included.
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
        phase-type (named ``classes[i]``, with the advice to approximate it by ``to_phase_type()``),
        repeated needs under "msf", or an arrival rate λ α_i, or a rate of a class's phases, below
        2**-1021 times the total rate out of a state (the exact solver cannot represent it).
    UnstableSystemError
        Load λ ϱ / k >= 1.
    StateSpaceTooLargeError
        More than ``max_states`` states.

    References
    ----------
    Anselmi & Doncel, Section 2 and Definitions 1–2.

    Examples
    --------
    >>> from analytic.splitting import RigidClass
    >>> classes = [RigidClass(1, 0.5, 1.0), RigidClass(2, 0.5, 1.0)]
    >>> multiserver_chain("fcfs", 4, classes, 2.0, max_waiting=3, representation="sequence").n_states
    65
    >>> multiserver_chain("fcfs", 4, classes, 2.0, max_waiting=3).n_states
    33

    Erlang-2 sizes for the second class: its jobs in service are counted per phase.

    >>> from analytic.simulation import erlang
    >>> phased = [RigidClass(1, 0.5, 1.0), RigidClass(2, 0.5, 1.0, size=erlang(2))]
    >>> chain = multiserver_chain("fcfs", 4, phased, 2.0, max_waiting=3)
    >>> chain.n_states, chain.states[1]       # (class-0 jobs, class-1 jobs in phases 1 and 2), head, waiting
    (59, ((1, 0, 0), -1, 0))
    """
    return _System.build(policy, servers, classes, arrival_rate, max_waiting, representation, max_states).chain(max_states)


def exact_multiserver(policy: str, servers: int, classes: Iterable[RigidClass], arrival_rate: float,
                      max_waiting: int = 60, representation: str | None = None, max_states: int = 500_000,
                      method: str = "auto", tolerance: float = 1e-10) -> ExactMetrics:
    """Mean response time, probability of waiting and P_H of a multiserver-job queue, exactly.

    Solves :func:`multiserver_chain` and reads the metrics off the stationary law: mean response
    times by Little's law, and the probabilities of waiting and of being sent to the helpers
    from the state an arrival finds (PASTA); both hold for phase-type sizes as for exponential ones.

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

    >>> from analytic.splitting import RigidClass
    >>> round(exact_multiserver("fcfs", 4, [RigidClass(2, 1.0, 1.0)], 1.0, max_waiting=60).mean_response_time, 10)
    1.3333333333

    With hyperexponential sizes of squared coefficient of variation 4 (H2) and one server's worth of
    slots it is an M/H2/1 queue: Pollaczek–Khinchine's E[R] = E[S] (1 + ρ (1 + c²) / (2 (1 - ρ))) = 3.5
    at ρ = 1/2:

    >>> from analytic.simulation import fitted
    >>> h2 = RigidClass(2, 1.0, 1.0, size=fitted(1.0, 2.0))
    >>> round(exact_multiserver("fcfs", 3, [h2], 0.5, max_waiting=200).mean_response_time, 8)
    3.5
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
    >>> from analytic.splitting import RigidClass, fcfs_saturation
    >>> round(fcfs_saturation(4, [RigidClass(1, 0.8, 1.0), RigidClass(4, 0.2, 1.0)]).max_load, 4)
    0.7136
    """

    throughput: float
    max_load: float
    n_states: int


#: Most states of the saturated FCFS chain explored by :func:`fcfs_saturation`.
SATURATION_MAX_STATES = 2_000_000


def fcfs_saturation(servers: int, classes: Iterable[RigidClass], method: str = "auto",
                    tolerance: float = 1e-10) -> Saturation:
    """The stability limit of FCFS: the throughput of the saturated multiserver-job queue, exactly.

    With an infinite backlog the state is the jobs in service (per class and phase) and the class
    of the first job that does not fit; when a job leaves, jobs start in order while they fit, the
    class of each new head drawn from (α_i), its phase from its class's β_i when it starts (the lumped
    chain of the module docstring with infinitely many waiting jobs, the same builder). The
    throughput is the rate of completions, Σ over (class, phase) of the jobs there times t_{i,j}.
    This throughput, λ_max, bounds the arrival rates at which FCFS is stable (the saturated
    system's throughput, as in Rumyantsev & Morozov and Grosof et al.); a load λ ϱ / k between
    λ_max ϱ / k and 1 is one at which FCFS is unstable but a throughput-optimal policy is not.

    Parameters
    ----------
    servers : int
        k >= every need.
    classes : sequence of RigidClass
        Exponential or phase-type service times, as in :func:`multiserver_chain`.
    method, tolerance
        Passed to :meth:`analytic.ctmc.CTMC.stationary`.

    Returns
    -------
    Saturation

    Raises
    ------
    InvalidParameterError
        Bad servers or classes, or a class whose service time is not phase-type (named
        ``classes[i]``, with the advice to approximate it by ``to_phase_type()``).

    References
    ----------
    Anselmi & Doncel, Section 2 and Table 1 (FCFS is not throughput optimal).

    Examples
    --------
    One class: all ⌊k/n⌋ slots stay busy.

    >>> from analytic.splitting import RigidClass
    >>> fcfs_saturation(5, [RigidClass(2, 1.0, 0.5)]).throughput
    4.0

    The throughput depends on the size laws beyond their means: with H2 sizes (scv 4) for the
    class needing one server, FCFS saturates at a lower load than the exponential 0.7136 of
    :class:`Saturation`'s example (the servers idle longer while a job needing all four waits
    for the last small job to finish).

    >>> from analytic.simulation import fitted
    >>> round(fcfs_saturation(4, [RigidClass(1, 0.8, 1.0, size=fitted(1.0, 2.0)), RigidClass(4, 0.2, 1.0)]).max_load, 4)
    0.6091
    """
    classes = _classes(classes)
    k = _servers(servers, classes)
    phases = tuple(_phase_law(i, c) for i, c in enumerate(classes))
    alpha = tuple(float(c.probability) for c in classes)
    mu = tuple(1 / float(c.mean_size) for c in classes)
    system = _System("fcfs", "lumped", tuple(c.need for c in classes), alpha, mu, (0,) * len(classes), k, math.inf, phases)
    system.refuse_large(SATURATION_MAX_STATES)      # before the first state is settled, job by job

    def transitions(state):
        for (busy, new_head, _), rate in system.lumped_transitions((*state, math.inf)):   # departures and phase moves
            yield (busy, new_head), rate

    # class-0 jobs fill the servers, each in a phase it may start in, and a class-0 head
    start = (_plus((0,) * len(system.column_needs), system._entry_column(0), k // classes[0].need), 0)
    chain = CTMC.from_function(start, transitions, max_states=SATURATION_MAX_STATES)
    pi = chain.stationary(method=method, tolerance=tolerance)
    exits = [t for law in phases for t in law.exits]
    throughput = pi.expected(lambda state: sum(x * rate for x, rate in zip(state[0], exits, strict=True)))
    return Saturation(throughput=throughput, max_load=throughput * float(sum(c.demand for c in classes)) / k,
                      n_states=chain.n_states)


@dataclass(frozen=True)
class _Phases:
    """One class's service time as PH(β, T) in time units: ``initial`` β, ``moves[j]`` the pairs
    ``(j', T[j, j'])`` with ``T[j, j'] > 0``, ``exits`` the completion rates ``t = -T 1``. One phase:
    the exponential law."""

    initial: tuple[float, ...]
    moves: tuple[tuple[tuple[int, float], ...], ...]
    exits: tuple[float, ...]

    @classmethod
    def exponential(cls, rate: float) -> _Phases:
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


def _phase_law(i: int, job_class: RigidClass) -> _Phases:
    """The service time of ``classes[i]`` as :class:`_Phases`: its phases reachable from β, or the
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
        return _Phases.exponential(1 / float(job_class.mean_size))
    index = {j: n for n, j in enumerate(kept)}
    return _Phases(tuple(float(initial[j]) for j in kept),
                   tuple(tuple((index[to], float(generator[j, to])) for to in kept if to != j and generator[j, to] > 0)
                         for j in kept),
                   tuple(float(exits[j]) for j in kept))


def _check_phase_rates(arrival_rate: float, classes: Sequence[RigidClass], phases: Sequence[_Phases], busy: float) -> None:
    """Refuse a class whose phase rates (a move, a completion, an arrival that starts at once in a phase)
    fall below 2**-1021 times ``arrival_rate + busy``, a bound on the total rate out of a state, or below
    the normal doubles: the exact solver could not represent them (as :func:`_check_rate_span` for arrivals)."""
    total = arrival_rate + busy
    least = max(_SMALLEST_RELATIVE_RATE * total, sys.float_info.min)
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
class _System:
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
    phases: tuple[_Phases, ...]
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
        phases = tuple(_phase_law(i, c) for i, c in enumerate(classes))
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
        _check_rate_span(rate, classes, [busy] * len(classes))
        _check_phase_rates(rate, classes, phases, busy)
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

    def metrics(self, pi: Stationary, n_states: int) -> ExactMetrics:
        read = {"sequence": self._sequence_metrics, "lumped": self._lumped_metrics, "counts": self._msf_metrics}
        states = pi.states
        if self.representation == "counts" and self.phased:
            states = [[len(started) + fresh for started, fresh in state] for state in states]
        return self._metrics(pi, *read[self.representation](states), n_states)

    def _free(self, serving: Sequence[int]) -> int:
        """Idle helper servers (all servers under FCFS); ``serving`` counts per (class, phase)."""
        return self.helpers - sum(n * x for n, x in zip(self.column_needs, serving, strict=True))

    def _per_class(self, counts: Sequence[int]) -> tuple[int, ...]:
        """Counts per (class, phase) summed over the phases of each class."""
        return tuple(sum(counts[c] for c in columns) for columns in self.columns)

    def _entry_column(self, i: int) -> int:
        """The coordinate of the first phase a class-i job may start in."""
        return self.entries[i][0][0]

    def _start(self, counts: tuple[int, ...], i: int, weight: float) -> list[tuple[tuple[int, ...], float]]:
        """A class-i job starts service: ``(counts', weight β_ij)`` for each phase j it may start in."""
        return [(_plus(counts, column, 1), weight * a) for column, a in self.entries[i]]

    def _waits(self, free: np.ndarray, queued: np.ndarray) -> np.ndarray:
        """Whether an arrival of each class (columns) sent to the helpers waits: a queue, or no room."""
        return queued[:, None] | (free[:, None] < np.array(self.needs)[None, :])

    # -- FCFS on the helpers, with or without reserved sets: the ordered sequence ---------------

    def _admit(self, serving: tuple[int, ...], waiting: tuple[int, ...]) -> list[tuple[tuple[int, ...], tuple[int, ...], float]]:
        """Start waiting jobs in order while the head fits on the helper servers, each in a phase drawn
        from its class's β: the ``(serving', waiting', probability)`` outcomes."""
        free = self._free(serving)
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
                outcomes = {_plus(counts, column, 1): weight for counts, weight in outcomes.items()}
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
                    left = _plus(reserved, column, -1)
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
                        yield (_plus(left, to, 1), serving, waiting), count * rate
                for column, exit_rate, moves in self.services[i]:
                    count = serving[column]
                    if not count:
                        continue
                    left = _plus(serving, column, -1)
                    for busy, rest, weight in self._admit(left, waiting):
                        yield (reserved, busy, rest), count * exit_rate * weight
                    for to, rate in moves:
                        yield (reserved, _plus(left, to, 1), waiting), count * rate

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
        waits = full & self._waits(np.array([self._free(s) for _, s, _ in states]), np.array([len(w) > 0 for *_, w in states]))
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
                if not (waiting and self.needs[head] <= self._free(serving)):
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
                    left = _plus(serving, column, -1)
                    yield from self._settle(left, head, waiting, count * exit_rate)
                    for to, rate in moves:
                        yield (_plus(left, to, 1), head, waiting), count * rate

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
                                drawn[_put(entries, i, ((*started, j), fresh - 1))] += w * a
                    outcomes = drawn
            return outcomes.items()

        def transitions(state: tuple):
            in_service, admitted = packing(state)
            for i, (lam, law) in enumerate(zip(self.arrival_rates, self.phases, strict=True)):
                started, fresh = state[i]
                if admitted[i]:
                    yield from settle(_put(state, i, (started, fresh + 1)), lam)
                if law.order == 1:
                    if in_service[i]:
                        yield from settle(_put(state, i, (started, fresh - 1)), in_service[i] * law.exits[0])
                    continue
                for position in range(in_service[i]):  # the oldest started jobs are in service
                    j = started[position]
                    rest = started[:position] + started[position + 1:]
                    if law.exits[j] > 0:
                        yield from settle(_put(state, i, (rest, fresh)), law.exits[j])
                    for to, rate in law.moves[j]:
                        yield _put(state, i, ((*rest[:position], to, *rest[position:]), fresh)), rate

        empty = tuple(((), 0) for _ in self.needs)
        return CTMC.from_function(empty, transitions, max_states=max_states)

    def _msf_metrics(self, states: np.ndarray) -> tuple[np.ndarray, ...]:
        counts = np.asarray(states)
        arrivals = np.eye(len(self.needs), dtype=int)
        # an arrival of class i (the youngest of its class) is served at once iff the packing takes it
        waits = np.column_stack([self._msf_served(counts + arrivals[i])[:, i] <= counts[:, i] for i in range(len(self.needs))])
        return counts.astype(float), self._msf_admitted(counts), waits, None, None

    # -- shared ---------------------------------------------------------------------------------

    def _metrics(self, pi: Stationary, counts, admitted, waits, helper, on_helpers, n_states) -> ExactMetrics:
        """Little's law per class and PASTA; ``admitted``, ``waits``, ``helper``, ``on_helpers``: states x classes."""
        probabilities = pi.probabilities
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
            accuracy=_accuracy(pi, len(self.needs)), residual=pi.residual)


def _accuracy(pi: Stationary, classes: int) -> float:
    """:attr:`ExactMetrics.accuracy`. Each sum ``Σ_x π(x) r(x)`` of non-negative terms over the vouched states
    is within ``δ = (ε + γ_{N+1}) / (1 - γ_{N+1})`` of its computed value, relative (``ε`` the largest
    ``e / (1 - e)`` of the per-state bounds ``e``, relative to the exact probability; ``γ_k = k u / (1 - k u)``);
    every reported quantity is, in exact arithmetic, a ratio ``Σ_i A_i / Σ_i B_i`` of such sums over the
    classes (the overall mean response time is ``Σ_i E[N_i] / Σ_i λ_i P(admitted_i)``), computed with at
    most ``2c + 6`` roundings more."""
    bounds = pi.error_bounds[pi.error_bounds <= pi.accuracy]
    epsilon = float((bounds / (1 - np.minimum(bounds, 0.5))).max(initial=0.0))
    delta = (epsilon + _gamma(len(pi) + 1)) / (1 - _gamma(len(pi) + 1))
    sums = delta + _gamma(classes)
    return float((delta + sums) / (1 - sums) + _gamma(2 * classes + 6))


def _gamma(terms: int) -> float:
    """``γ_k = k u / (1 - k u)``, ``u = 2^-53`` (Higham, 2002, Lemma 3.1)."""
    return terms * 2.0**-53 / (1 - terms * 2.0**-53)


def _plus(values: Sequence[int], i: int, change: int) -> tuple[int, ...]:
    return (*values[:i], values[i] + change, *values[i + 1:])


def _put(values: Sequence, i: int, value: object) -> tuple:
    return (*values[:i], value, *values[i + 1:])
