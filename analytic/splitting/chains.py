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

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from analytic.ctmc import CTMC, Stationary
from analytic.ctmc._rounding import gamma
from analytic.splitting._exact_chain import REPRESENTATIONS, ExactSystem, phase_law, plus
from analytic.splitting.classes import RigidClass, check_classes, check_servers

__all__ = ["EXACT_POLICIES", "ExactMetrics", "Saturation", "exact_multiserver", "fcfs_saturation", "multiserver_chain"]

#: The policies with an exact chain (exponential or phase-type sizes).
EXACT_POLICIES = tuple(REPRESENTATIONS)


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
    return ExactSystem.build(policy, servers, classes, arrival_rate, max_waiting, representation, max_states).chain(max_states)


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
    system = ExactSystem.build(policy, servers, classes, arrival_rate, max_waiting, representation, max_states)
    chain = system.chain(max_states)
    return read_metrics(system, chain.stationary(method=method, tolerance=tolerance), chain.n_states)


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
    classes = check_classes(classes)
    k = check_servers(servers, classes)
    phases = tuple(phase_law(i, c) for i, c in enumerate(classes))
    alpha = tuple(float(c.probability) for c in classes)
    mu = tuple(1 / float(c.mean_size) for c in classes)
    system = ExactSystem("fcfs", "lumped", tuple(c.need for c in classes), alpha, mu, (0,) * len(classes), k, math.inf, phases)
    system.refuse_large(SATURATION_MAX_STATES)      # before the first state is settled, job by job

    def transitions(state):
        for (busy, new_head, _), rate in system.lumped_transitions((*state, math.inf)):   # departures and phase moves
            yield (busy, new_head), rate

    # class-0 jobs fill the servers, each in a phase it may start in, and a class-0 head
    start = (plus((0,) * len(system.column_needs), system.entry_column(0), k // classes[0].need), 0)
    chain = CTMC.from_function(start, transitions, max_states=SATURATION_MAX_STATES)
    pi = chain.stationary(method=method, tolerance=tolerance)
    exits = [t for law in phases for t in law.exits]
    throughput = pi.expected(lambda state: sum(x * rate for x, rate in zip(state[0], exits, strict=True)))
    return Saturation(throughput=throughput, max_load=throughput * float(sum(c.demand for c in classes)) / k,
                      n_states=chain.n_states)


def read_metrics(system: ExactSystem, pi: Stationary, n_states: int) -> ExactMetrics:
    """The metrics of a solved chain of ``system``: Little's law per class, and PASTA for the probabilities."""
    counts, admitted, waits, helper, on_helpers = system.readings(pi.states)
    probabilities = pi.probabilities
    rates = np.array(system.arrival_rates)
    kept = probabilities @ admitted  # per class, the fraction of arrivals admitted
    per_class_r = probabilities @ counts / (rates * kept)
    per_class_w = probabilities @ (admitted & waits) / kept
    weights = rates * kept / (rates @ kept)  # the classes among admitted jobs
    per_class_h = None if helper is None else probabilities @ (admitted & helper) / kept
    per_class_s = None if on_helpers is None else probabilities @ on_helpers * np.array(system.service_rates) / (rates * kept)
    return ExactMetrics(
        policy=system.policy, mean_response_time=float(weights @ per_class_r),
        per_class_response_time=tuple(map(float, per_class_r)),
        wait_probability=float(weights @ per_class_w), per_class_wait_probability=tuple(map(float, per_class_w)),
        helper_probability=None if per_class_h is None else float(weights @ per_class_h),
        per_class_helper_probability=None if per_class_h is None else tuple(map(float, per_class_h)),
        helper_service_probability=None if per_class_s is None else float(weights @ per_class_s),
        per_class_helper_service_probability=None if per_class_s is None else tuple(map(float, per_class_s)),
        lost_fraction=float(1 - rates @ kept / rates.sum()), max_waiting=system.max_waiting, n_states=n_states,
        accuracy=_accuracy(pi, len(system.needs)), residual=pi.residual)


def _accuracy(pi: Stationary, classes: int) -> float:
    """:attr:`ExactMetrics.accuracy`. Each sum ``Σ_x π(x) r(x)`` of non-negative terms over the vouched states
    is within ``δ = (ε + γ_{N+1}) / (1 - γ_{N+1})`` of its computed value, relative (``ε`` the largest
    ``e / (1 - e)`` of the per-state bounds ``e``, relative to the exact probability; ``γ_k = k u / (1 - k u)``);
    every reported quantity is, in exact arithmetic, a ratio ``Σ_i A_i / Σ_i B_i`` of such sums over the
    classes (the overall mean response time is ``Σ_i E[N_i] / Σ_i λ_i P(admitted_i)``), computed with at
    most ``2c + 6`` roundings more."""
    bounds = pi.error_bounds[pi.error_bounds <= pi.accuracy]
    epsilon = float((bounds / (1 - np.minimum(bounds, 0.5))).max(initial=0.0))
    delta = (epsilon + gamma(len(pi) + 1)) / (1 - gamma(len(pi) + 1))
    sums = delta + gamma(classes)
    return float((delta + sums) / (1 - sums) + gamma(2 * classes + 6))
