"""Configuration chains built from the algorithms' rules, their spectral gap, and Lemma 1's bound (21).

Ghaderi, Shakkottai & Srikant, Section 6. With fixed weights ``w_A = q_j - b_A``, DGP-bar's
configuration evolves as a CTMC (Step 1): a type-j graph arrives at rate λ_j, the Random Partition
Procedure (Algorithm 2) places its nodes one by one in uniformly chosen free slots, and the template
is added with probability ``e^(w_A/β) / (1 + e^(w_A/β))``; each template leaves at rate μ_j and is
put straight back with that same probability. The chains here are built from these rules alone,
never from eq. (15), so that their stationary laws (solved by :mod:`analytic.ctmc`) check (14), (15)
and (33) independently:

* ``reduce="none"``: the paper's chain, one state per configuration (a set of templates, each an
  explicit node-to-slot map); for tiny clusters only.
* ``reduce="slots"``: one state per count vector of template classes (:mod:`.configurations`): a
  class ``(j, u, b)`` receives a placement with probability ``N_k Π_ℓ (f_ℓ)_(u_ℓ) / (F)_(|V_j|)`` —
  the chance that the sequential uniform placement puts the nodes on the machines of one of its
  ``N_k`` node-to-machine maps. The chain out of a configuration depends only on its count
  vector, so this is an exact lumping.
* ``reduce="machines"`` (default): the same, with count vectors identified under permutations of
  identical machines (:func:`~.configurations.machine_symmetries`).

Lemma 1 bounds the relaxation time of the uniformised jump chain ``P_ξ = I + Q/ξ`` with
ξ = 2(Σ_j λ_j + M Σ_j μ_j) (18):

    1/(1 - θ_2) <= (2 ξ² / K_0²) exp[ (2(M+1)/β) (α f(Q_max + h) + b_max) ]          (21)

with ``K_0 = ((ρ_min ∧ 1)/(ρ_max ∨ 1))^M ∧_j(μ_j ∧ λ_j) / (|𝒞| (M!)²)``. :func:`spectral_gap`
computes θ_2 itself from the chain and sets it beside the bound (taking ``α f(Q_max + h) =
max_j q_j``). The lumped chains' eigenvalues are a subset of the full chain's, so their gap can
only be larger: use ``reduce="none"`` to test the bound.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from numbers import Integral

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.special import expit, gammaln

from analytic._deprecation import renamed_attribute
from analytic.ctmc import CTMC
from analytic.errors import InvalidParameterError
from analytic.partitioning.configurations import Configurations, configurations, state_space
from analytic.partitioning.distributions import queue_weight_vector
from analytic.partitioning.model import Cluster, GraphJob, check_jobs
from analytic.partitioning.templates import max_template_cost, partition_cost
from analytic.validation import option, positive

__all__ = [
    "SpectralGap",
    "adgp_chain",
    "dgp_chain",
    "log_mixing_constant",
    "log_relaxation_bound",
    "loss_chain",
    "lump",
    "spectral_gap",
    "uniformization_rate",
]

_REDUCTIONS = ("none", "slots", "machines")

#: Largest chain whose spectrum is computed densely; above, shift-invert Lanczos on the symmetrised generator.
_DENSE_LIMIT = 200


@dataclass(frozen=True)
class _Rules:
    """An algorithm's rates: arrivals of type j at ``arrival[j]``, a proposed template of type j and
    cost b kept with probability ``keep(j, b)``, a departing one removed with ``remove(j, b)``."""

    arrival: np.ndarray
    service: np.ndarray
    keep: Callable[[np.ndarray, np.ndarray], np.ndarray]
    remove: Callable[[np.ndarray, np.ndarray], np.ndarray]


def _dgp_rules(types: tuple[GraphJob, ...], q: np.ndarray, beta: float) -> _Rules:
    return _Rules(arrival=np.array([job.arrival_rate for job in types]), service=np.array([job.service_rate for job in types]),
                  keep=lambda j, b: expit((q[j] - b) / beta), remove=lambda j, b: expit(-(q[j] - b) / beta))


def _loss_rules(types: tuple[GraphJob, ...], rates: np.ndarray) -> _Rules:
    return _Rules(arrival=rates, service=np.array([job.service_rate for job in types]),
                  keep=lambda j, b: np.ones(np.shape(b)), remove=lambda j, b: np.ones(np.shape(b)))


def _check_reduce(reduce: str) -> str:
    return option("reduce", reduce, _REDUCTIONS)


def _build(cluster: Cluster, types: tuple[GraphJob, ...], rules: _Rules, reduce: str, max_states: int) -> CTMC:
    if _check_reduce(reduce) == "none":
        return _slot_chain(cluster, types, rules, max_states)
    space = state_space(cluster, types) if reduce == "machines" else configurations(cluster, types, symmetry=False)
    return _class_chain(space, rules, max_states)


def _class_chain(space: Configurations, rules: _Rules, max_states: int) -> CTMC:
    """The chain on count vectors: placement probabilities of Algorithm 2 summed over each class."""
    table, cluster = space.classes, space.cluster
    top = int(cluster.slots.max())
    f, u = np.meshgrid(np.arange(top + 1), np.arange(top + 1), indexing="ij")
    falling = np.where(u <= f, np.exp(gammaln(f + 1.0) - gammaln(np.maximum(f - u, 0) + 1.0)), 0.0)  # (f)_u
    keep = rules.keep(table.job, table.costs)
    remove = rules.remove(table.job, table.costs) * rules.service[table.job]
    arrival = rules.arrival[table.job]

    def transitions(state: tuple[int, ...]):
        counts = space.counts_of(state)
        free = cluster.slots - counts @ table.loads
        total = int(free.sum())
        ways = table.assignments * falling[free[None, :], table.loads].prod(axis=1)
        placements = np.exp(gammaln(total + 1.0) - gammaln(np.maximum(total - table.nodes, 0) + 1.0))  # (F)_|V|
        add = np.where(table.nodes <= total, arrival * keep * ways / placements, 0.0)
        for k in np.flatnonzero(add > 0):
            counts[k] += 1
            yield space.key(counts), float(add[k])
            counts[k] -= 1
        for k in np.flatnonzero(counts):
            counts[k] -= 1
            yield space.key(counts), float((counts[k] + 1) * remove[k])
            counts[k] += 1

    return CTMC.from_function((), transitions, max_states=max_states)


def _slot_chain(cluster: Cluster, types: tuple[GraphJob, ...], rules: _Rules, max_states: int) -> CTMC:
    """The paper's chain: a state is a sorted tuple of ``(type, template)``, a template the slot of each node."""
    slots = range(cluster.total_slots)

    def transitions(state: tuple):
        taken = {s for _, template in state for s in template}
        free = [s for s in slots if s not in taken]
        for j, job in enumerate(types):
            if job.nodes > len(free):
                continue
            placed = np.array(list(itertools.permutations(free, job.nodes)), dtype=np.int64).reshape(-1, job.nodes)
            costs = partition_cost(cluster, job, placed)
            rates = rules.arrival[j] * rules.keep(np.full(len(costs), j), costs) / len(placed)
            for template, rate in zip(placed.tolist(), rates.tolist(), strict=True):
                yield tuple(sorted((*state, (j, tuple(template))))), rate
        for i, (j, template) in enumerate(state):
            cost = partition_cost(cluster, types[j], template)
            rate = rules.service[j] * float(rules.remove(np.array([j]), np.array([cost]))[0])
            yield state[:i] + state[i + 1:], rate

    return CTMC.from_function((), transitions, max_states=max_states)


def lump(space: Configurations, configuration: Sequence[tuple[int, Sequence[int]]]) -> int:
    """The state of ``space`` that a configuration of explicit templates belongs to.

    Parameters
    ----------
    space : Configurations
        The lumped states (:func:`~analytic.partitioning.state_space`).
    configuration : sequence of (int, sequence of int)
        ``(type, slot of each node)`` for every template, as in the states of ``reduce="none"``.

    Returns
    -------
    int
        The index of the state.

    Raises
    ------
    InvalidParameterError
        A malformed entry, two templates sharing a slot, or a template whose class the space does not keep.

    Examples
    --------
    >>> from analytic.partitioning.configurations import state_space
    >>> from analytic.partitioning.model import GraphJob
    >>> cluster, job = Cluster([2, 2]), GraphJob(2, [(0, 1)], 1.0, 1.0)
    >>> space = state_space(cluster, job)
    >>> space.describe(lump(space, [(0, (0, 2))]))   # one template split across the machines, cost 1
    [(0, (1, 1), 1.0)]
    """
    if not isinstance(space, Configurations):
        raise InvalidParameterError("space", space, "must be a Configurations (from configurations or state_space)")
    condition = f"must be (type in 0..{len(space.jobs) - 1}, slot of each node) pairs, one per template"
    if isinstance(configuration, str | bytes | dict) or not isinstance(configuration, Iterable):
        raise InvalidParameterError("configuration", configuration, condition)
    index = {(int(j), tuple(u), float(b)): k for k, (j, u, b) in
             enumerate(zip(space.classes.job, space.classes.loads.tolist(), space.classes.costs, strict=True))}
    counts = np.zeros(len(space.classes), dtype=np.int64)
    taken: set[int] = set()
    for entry in configuration:
        j, slots, cost = _template_entry(space, entry, configuration, condition)
        used = slots.tolist()
        if shared := taken.intersection(used):
            raise InvalidParameterError("configuration", configuration, f"{condition}: slot {min(shared)} is in two "
                                        "templates (the templates of a configuration are disjoint)")
        taken.update(used)
        loads = tuple(np.bincount(space.cluster.machine_of_slot[slots], minlength=space.cluster.machines).tolist())
        if (j, loads, cost) not in index:
            raise InvalidParameterError("configuration", configuration, f"holds a template of type {j} with loads {loads} "
                                        "that is no class of the space (a cheapest-class space keeps fewer)")
        counts[index[j, loads, cost]] += 1
    return space.index(space.key(counts))


def _template_entry(space: Configurations, entry: object, configuration: object,
                    condition: str) -> tuple[int, np.ndarray, float]:
    """One ``(type, slots)`` entry of a configuration, checked: its type, slots and partition cost."""
    try:
        j, template = entry
    except (TypeError, ValueError):
        raise InvalidParameterError("configuration", configuration, condition) from None
    if isinstance(j, bool) or not isinstance(j, Integral) or not 0 <= j < len(space.jobs):
        raise InvalidParameterError("configuration", configuration, condition)
    try:
        cost = partition_cost(space.cluster, space.jobs[j], template)
    except InvalidParameterError as error:
        raise InvalidParameterError("configuration", configuration, f"{condition}: {error}") from None
    if not isinstance(cost, float):
        raise InvalidParameterError("configuration", configuration, f"{condition}: one template per entry")
    return int(j), np.asarray(template), cost


def dgp_chain(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob], queue_weights: Sequence[float] | float, beta: float,
              reduce: str = "machines", max_states: int = 500_000) -> CTMC:
    """DGP-bar's configuration chain with fixed weights ``w_A = q_j - b_A`` (Section 6, Step 1), from its rules.

    Parameters
    ----------
    cluster : Cluster
    jobs : GraphJob or sequence of GraphJob
    queue_weights : float or sequence of float
        ``q_j`` per type.
    beta : float
        β > 0. Acceptance probabilities are computed as logistic functions, so extreme ``w/β``
        leave rates of exactly 0 and the chain reducible (:class:`~analytic.errors.ReducibleChainError`
        from ``stationary()``); eq. (15) itself holds for any β (:func:`~.distributions.dgp_distribution`).
    reduce : {"machines", "slots", "none"}
        The state space (see the module docstring). With ``"machines"`` the states are the keys of
        :func:`~.configurations.state_space` (:meth:`Configurations.index` finds them), with
        ``"slots"`` those of ``configurations(cluster, jobs, symmetry=False)``, and with ``"none"``
        sorted tuples of ``(type, template)`` (:func:`lump` maps them to reduced states).
    max_states : int
        Limit passed to :meth:`analytic.ctmc.CTMC.from_function`.

    Returns
    -------
    CTMC

    Examples
    --------
    The stationary law of the chain is π* of eq. (15):

    >>> from analytic.partitioning.distributions import dgp_distribution
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> chain = dgp_chain(FIGURE1_CLUSTER, FIGURE1_JOB, 1.5, 0.5)
    >>> law = dgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, 1.5, 0.5)
    >>> order = [law.configurations.index(state) for state in chain.states]
    >>> bool(np.abs(chain.stationary().probabilities - law.probabilities[order]).max() < 1e-13)
    True
    """
    types = check_jobs(cluster, jobs)
    q = queue_weight_vector(queue_weights, len(types))
    return _build(cluster, types, _dgp_rules(types, q, positive("beta", beta)), reduce, max_states)


def loss_chain(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob], reduce: str = "machines",
               max_states: int = 500_000) -> CTMC:
    """The associated loss system (Prop. 1, remark iii): every arrival placed by Algorithm 2 if it fits, else lost.

    Its stationary law is γ of eq. (14).

    Parameters
    ----------
    cluster : Cluster
        Machines and their slots.
    jobs : GraphJob or sequence of GraphJob
        The job types.
    reduce : str
        ``"machines"`` (lumped up to identical slots and machines), or ``"none"`` (explicit templates).
    max_states : int
        Largest chain to build.

    Returns
    -------
    CTMC


    Examples
    --------
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> loss_chain(FIGURE1_CLUSTER, FIGURE1_JOB)
    CTMC(n_states=105, transitions=358)
    """
    types = check_jobs(cluster, jobs)
    return _build(cluster, types, _loss_rules(types, np.array([job.arrival_rate for job in types])), reduce, max_states)


def adgp_chain(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob], clock_rate: float,
               queue_weights: Sequence[float] | float | None = None, beta: float | None = None,
               reduce: str = "machines", max_states: int = 500_000) -> CTMC:
    """ADGP-bar's configuration chain (Appendix B, Algorithm 4 with fixed weights), from its rules.

    The clock of queue j ticks at rate ``λ̂ e^(q_j/β)``; at a tick Algorithm 2 proposes a template,
    kept with probability ``e^(-b_A/β)``; templates leave at rate μ_j and are always removed.
    Without ``queue_weights`` the clocks tick at λ̂ and every placement is kept: the loss system
    of γ̂ (33).

    Parameters
    ----------
    cluster : Cluster
        Machines and their slots.
    jobs : GraphJob or sequence of GraphJob
        The job types.
    clock_rate : float
        λ̂ > 0.
    queue_weights : float or sequence of float, optional
        q_j; omitted: the loss system of γ̂.
    beta : float, optional
        β > 0, with ``queue_weights``.
    reduce : str
        As in :func:`loss_chain`.
    max_states : int
        Largest chain to build.

    Returns
    -------
    CTMC


    Examples
    --------
    >>> from analytic.partitioning.distributions import adgp_distribution
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> chain = adgp_chain(FIGURE1_CLUSTER, FIGURE1_JOB, 2.0, 1.5, 0.5)
    >>> law = adgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, 2.0, 1.5, 0.5)
    >>> order = [law.configurations.index(state) for state in chain.states]
    >>> bool(np.abs(chain.stationary().probabilities - law.probabilities[order]).max() < 1e-13)
    True
    """
    types = check_jobs(cluster, jobs)
    rate = positive("clock_rate", clock_rate)
    if queue_weights is None:
        if beta is not None:
            raise InvalidParameterError("beta", beta, "applies only with queue_weights")
        return _build(cluster, types, _loss_rules(types, np.full(len(types), rate)), reduce, max_states)
    if beta is None:
        raise InvalidParameterError("beta", beta, "must be given with queue_weights")
    q = queue_weight_vector(queue_weights, len(types))
    temperature = positive("beta", beta)
    with np.errstate(over="ignore"):
        arrival = rate * np.exp(q / temperature)
    if not np.all(np.isfinite(arrival)):
        raise InvalidParameterError("queue_weights", queue_weights, f"over beta = {temperature:g} give arrival rates "
                                                                   "clock_rate e^(q/β) beyond double precision")
    rules = _Rules(arrival=arrival, service=np.array([job.service_rate for job in types]),
                   keep=lambda j, b: np.exp(-b / temperature), remove=lambda j, b: np.ones(np.shape(b)))
    return _build(cluster, types, rules, reduce, max_states)


def uniformization_rate(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob]) -> float:
    """ξ = 2 (Σ_j λ_j + M Σ_j μ_j) of eq. (18).

    Parameters
    ----------
    cluster : Cluster
        Machines and their slots.
    jobs : GraphJob or sequence of GraphJob
        The job types.

    Returns
    -------
    float

    Examples
    --------
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> uniformization_rate(FIGURE1_CLUSTER, FIGURE1_JOB)
    26.0
    """
    types = check_jobs(cluster, jobs)
    return 2.0 * (sum(job.arrival_rate for job in types) + cluster.total_slots * sum(job.service_rate for job in types))


def log_mixing_constant(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob]) -> float:
    """``log K_0`` of Lemma 1: ``K_0 = ((ρ_min ∧ 1)/(ρ_max ∨ 1))^M ∧_j(μ_j ∧ λ_j) / (|𝒞| (M!)²)``.

    Parameters
    ----------
    cluster : Cluster
        Machines and their slots.
    jobs : GraphJob or sequence of GraphJob
        The job types.

    Returns
    -------
    float

    Examples
    --------
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> round(log_mixing_constant(FIGURE1_CLUSTER, FIGURE1_JOB), 6)   # -log(119845441) - 2 log(12!)
    -58.576142
    """
    types = check_jobs(cluster, jobs)
    slots = cluster.total_slots
    loads = np.array([job.offered_load for job in types])
    slowest = min(min(job.service_rate, job.arrival_rate) for job in types)
    return float(slots * np.log(min(loads.min(), 1.0) / max(loads.max(), 1.0)) + np.log(slowest)
                 - state_space(cluster, types).log_configuration_count - 2.0 * gammaln(slots + 1.0))


def log_relaxation_bound(cluster: Cluster, jobs: GraphJob | Sequence[GraphJob], queue_weights: Sequence[float] | float,
                     beta: float) -> float:
    """Logarithm of the right-hand side of (21), Lemma 1's bound on ``1/(1 - θ_2)``.

    ``α f(Q_max + h)`` is taken as ``max_j q_j`` (in DGP, ``q_j = α f^(j)(h + Q) <= α f(h + Q_max)``);
    ``b_max`` is the largest template cost of any type and ``|𝒞|`` the number of configurations.

    Parameters
    ----------
    cluster : Cluster
        Machines and their slots.
    jobs : GraphJob or sequence of GraphJob
        The job types.
    queue_weights : float or sequence of float
        q_j, one per type (a scalar is repeated).
    beta : float
        β > 0.

    Returns
    -------
    float


    Raises
    ------
    InvalidParameterError
        A negative queue weight (the proof bounds ``e^(w_min/β) ∧ 1`` by ``e^(-b_max/β)``, which
        needs ``q_j >= 0``; DGP's weights are).

    Examples
    --------
    >>> from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
    >>> round(log_relaxation_bound(FIGURE1_CLUSTER, FIGURE1_JOB, 1.5, 0.5) / 2.302585092994046, 3)   # log10 of the bound
    200.801
    """
    types = check_jobs(cluster, jobs)
    q = queue_weight_vector(queue_weights, len(types))
    if (q < 0).any():
        raise InvalidParameterError("queue_weights", queue_weights, "must be >= 0 for Lemma 1 (DGP's α f^(j)(h + Q) are)")
    temperature = positive("beta", beta)
    exponent = 2.0 * (cluster.total_slots + 1) / temperature * (q.max() + max_template_cost(cluster, types))
    return float(np.log(2.0) + 2.0 * np.log(uniformization_rate(cluster, types)) - 2.0 * log_mixing_constant(cluster, types)
                 + exponent)


@dataclass(frozen=True)
class SpectralGap:
    """The spectral gap of a reversible configuration chain, uniformised as in (18).

    Attributes
    ----------
    gap : float
        ``-λ_2`` of the generator Q: its smallest non-zero relaxation rate.
    xi : float
        ξ of eq. (18).
    theta2 : float
        ``1 - gap/ξ``, the second largest eigenvalue of ``P_ξ = I + Q/ξ``.
    relaxation_time : float
        ``1/(1 - θ_2) = ξ/gap``, in jump-chain steps.
    n_states : int
        States of the chain.

    Examples
    --------
    >>> from analytic.ctmc import CTMC
    >>> from analytic.partitioning import spectral_gap
    >>> chain = CTMC.from_function(0, lambda x: [(1, 1.0)] if x == 0 else [(0, 2.0)])
    >>> spectral_gap(chain, xi=6.0).gap
    3.0
    """

    gap: float
    xi: float
    theta2: float
    relaxation_time: float
    n_states: int
    states = renamed_attribute("n_states")


def spectral_gap(chain: CTMC, xi: float) -> SpectralGap:
    """Spectral gap of a reversible chain, from its generator symmetrised by its stationary law.

    ``S = D^(1/2) Q D^(-1/2)`` with ``D = diag(π)`` is symmetric for a reversible chain and shares
    Q's eigenvalues; they are computed densely up to 200 states and by shift-invert Lanczos above.

    Parameters
    ----------
    chain : CTMC
        A reversible chain.
    xi : float
        The uniformization rate ξ (for the relaxation time in steps).

    Returns
    -------
    SpectralGap


    Examples
    --------
    An M/M/1/1 queue (rates 1 and 2) relaxes at rate 3:

    >>> chain = CTMC.from_function(0, lambda x: [(1, 1.0)] if x == 0 else [(0, 2.0)])
    >>> spectral_gap(chain, xi=6.0).gap
    3.0
    """
    rate = positive("xi", xi)
    if not isinstance(chain, CTMC):
        raise InvalidParameterError("chain", chain, "must be a CTMC")
    pi = chain.stationary().probabilities
    root = np.sqrt(pi)
    generator = sp.csr_array(chain.generator)
    symmetric = sp.diags_array(root) @ generator @ sp.diags_array(1.0 / root)
    symmetric = (symmetric + symmetric.T) / 2
    if chain.n_states <= _DENSE_LIMIT:
        eigenvalues = np.linalg.eigvalsh(symmetric.toarray())
    else:
        shift = 1e-3 * float(np.abs(generator.diagonal()).min())
        eigenvalues = spla.eigsh(symmetric.tocsc(), k=2, sigma=shift, which="LM", return_eigenvectors=False)
    gap = float(-np.sort(eigenvalues)[-2])
    return SpectralGap(gap=gap, xi=rate, theta2=1.0 - gap / rate, relaxation_time=rate / gap, n_states=chain.n_states)
