"""The greedy(p) allocation scheme (eq. 10) and its exact finite-n loss system.

Ghanbarian, Mukhopadhyay, Mazumdar & Guillemin, *On Optimal Server Allocation for Moldable Jobs
with Concave Speed-Up*, Sections 2 and 4. ``n`` unit-rate servers; jobs arrive as a Poisson
process of rate ``n λ`` with exponential inherent sizes of unit mean. An arrival that finds ``j``
idle servers draws ``i`` with probability ``p_i`` and gets ``min(i, j)`` servers; with ``j = 0`` it
is blocked. A job on ``i`` servers runs at speed ``s_i``. The state ``X_i`` counts jobs on ``i``
servers, and ``X`` is a finite CTMC solved exactly by :mod:`analytic.ctmc`, or in closed form
(Erlang's loss system, :mod:`analytic.erlang`) where every job holds the same number of servers.

The metrics of this chain are :func:`~analytic.moldable.greedy_metrics` (exact,
:mod:`analytic.moldable.metrics`) and :func:`~analytic.moldable.greedy_bounds` (certified bounds,
:mod:`analytic.moldable.certified`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from analytic._deprecation import old_names, renamed_arguments
from analytic.ctmc import CTMC, lattice_bytes, solve_bytes
from analytic.ctmc.stationary import FLOOR
from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.memory import require
from analytic.moldable.occupancy import check_rate_per_server, optimal_occupancy
from analytic.simulation.laws import SizeLaw, exact_phase_type, size_law
from analytic.speedup import SpeedupCurve, SpeedupTable, as_discrete
from analytic.validation import integer, numeric_array, probabilities

__all__ = ["LossChain", "allocation_probabilities", "greedy_chain"]


def check_probabilities(p: object, d: int) -> np.ndarray:
    """``p`` as a float vector of length d, non-negative and summing to one."""
    return probabilities("p", p, length=d, meaning=f" (d = {d})")


def allocation_probabilities(idle: int | np.ndarray, p: np.ndarray) -> np.ndarray:
    """Probabilities ``A_i`` that an arrival gets ``i`` servers under greedy(p) (eq. 10).

    ``A_i(x) = 1(n q_0(x) >= i) p_i + 1(n q_0(x) = i) Σ_{j>i} p_j`` for ``i = 1, ..., d`` and
    ``A_0(x) = 1(n q_0(x) = 0)``, the blocking probability in state x.

    Parameters
    ----------
    idle : int or array of int
        ``n q_0(x)``, the number of idle servers (>= 0), any shape.
    p : array_like, shape (d,)
        Probability vector, ``p[i - 1]`` for ``i`` servers.

    Returns
    -------
    numpy.ndarray, shape ``idle.shape + (d + 1,)``
        ``[..., i]`` is ``A_i``; each row sums to one.

    Raises
    ------
    InvalidParameterError
        ``p`` not a probability vector, or ``idle`` negative or not integral.

    Examples
    --------
    >>> allocation_probabilities([0, 1, 3, 9], [0, 0, 0.625, 0.375]).tolist()
    [[1.0, 0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.625, 0.375]]
    """
    vector = probabilities("p", p)
    condition = "must be integers >= 0 (numbers of idle servers)"
    free = numeric_array("idle", idle, condition)
    if free.dtype.kind not in "iu" or np.any(free < 0):
        raise InvalidParameterError("idle", idle, condition)
    i = np.arange(1, vector.size + 1)
    tail = vector[::-1].cumsum()[::-1] - vector                      # Σ_{j>i} p_j
    f = free[..., None]
    allocation = (f >= i) * vector + (f == i) * tail
    return np.concatenate([(f == 0).astype(float), allocation], axis=-1)


def resolve_p(speedup: SpeedupTable, rate_per_server: float, p: object) -> np.ndarray:
    if p is None:
        return optimal_occupancy(speedup, rate_per_server).p
    if isinstance(p, str):
        if p != "greedy":
            raise InvalidParameterError("p", p, 'must be None (p*), "greedy" or a probability vector')
        return np.eye(speedup.d)[-1]
    return check_probabilities(p, speedup.d)


@dataclass(frozen=True, repr=False)
class LossChain:
    """The CTMC of greedy(p) and what its states mean.

    Attributes
    ----------
    chain : CTMC
        The generator over the states reachable from the empty system.
    states : numpy.ndarray, shape (n_states, len(sizes))
        Row ``j`` is state ``j`` of ``chain``: ``states[j, k]`` jobs hold ``sizes[k]`` servers (in
        any phase; the chain's own states count them per phase, see :func:`greedy_chain`).
    sizes : numpy.ndarray
        The server counts greedy(p) can allocate (the coordinates).
    equilibrium : int
        Index of the state nearest the fluid equilibrium ``x_i = c p_i / s_i``
        (``c = min(λ, 1/Σ i p_i/s_i)``): the reference state of the stationary solve. The empty
        system, exponentially unlikely at high load, is a poor one (with it GMRES ran 4000
        iterations in vain at n = 40 before a likelier reference state succeeded).
    phases : int
        Phases of the job-size law (1 for exponential sizes).

    Examples
    --------
    >>> from analytic.moldable import greedy_chain
    >>> from analytic.speedup import SpeedupTable
    >>> greedy_chain(SpeedupTable.linear(5), 0.9, 4000).sizes.tolist()
    [5]
    """

    chain: CTMC
    states: np.ndarray
    sizes: np.ndarray
    equilibrium: int
    phases: int = 1

    def __repr__(self) -> str:
        phases = f", phases={self.phases}" if self.phases > 1 else ""
        return f"LossChain(n_states={self.chain.n_states}, sizes={self.sizes.tolist()}{phases})"


@renamed_arguments(arrival_rate="rate_per_server")
def greedy_chain(speedup: SpeedupTable | SpeedupCurve | object, rate_per_server: float, servers: int, p: object = None,
                 max_states: int = 30_000_000, size: SizeLaw | str = "exponential") -> LossChain:
    """The CTMC of greedy(p) with ``n`` servers, over the states reachable from the empty system.

    Coordinates: only server counts that greedy(p) can allocate. With ``P`` the support of ``p``
    and ``g = gcd(P ∪ {n})``, idle counts stay multiples of ``g``, so allocations are multiples of
    ``g`` up to ``max P``. If ``p`` has one support point ``m``, at most one job ever holds fewer
    than ``m`` servers (idle counts stay multiples of ``m`` while that job runs), so the reachable
    states are few and are explored breadth first (:meth:`CTMC.from_function`); otherwise they
    fill most of the simplex ``Σ c X_c <= n``, which is enumerated with :meth:`CTMC.from_lattice`
    and pruned to the states reachable from the empty one (a set closed under departures, hence
    downward closed) — or, where the box around the simplex has ``2**62`` points or more (many
    phases), explored breadth first too, once the simplex is known to fit.

    Parameters
    ----------
    speedup : SpeedupTable, sequence of float or SpeedupCurve
        ``s_1, ..., s_d`` (P1 and concavity), as in :func:`~analytic.moldable.optimal_occupancy`.
    rate_per_server : float
        λ in (0, 1]; arrivals come at rate ``n λ``.
    servers : int
        ``n >= d``.
    p : None, "greedy" or array_like
        ``None``: p* of Theorem 1; ``"greedy"``: always ``d``; or a probability vector of length d.
    max_states : int
        Passed to the chain constructors (:class:`~analytic.errors.StateSpaceTooLargeError`).
    size : SizeLaw or str
        The law of the inherent job sizes, of mean 1: ``"exponential"`` (default, the paper's
        chain) or a phase-type law (an :class:`~analytic.simulation.ErlangMixture` — Erlang,
        hyperexponential, mixed Erlang, :func:`~analytic.simulation.fitted` — or a
        :class:`~analytic.simulation.PhaseType`). Then each job in service carries its phase: the
        chain's coordinates count the jobs per server count and phase (server count major), and a
        job on ``c`` servers does its work at speed ``s_c``.

    Returns
    -------
    LossChain
        The chain, its states' job counts per server count, and the server counts of the coordinates.

    Examples
    --------
    Linear speed-up, d = 5 dividing n = 4000: only full-width jobs exist.

    >>> from analytic.speedup import SpeedupCurve, SpeedupTable, as_discrete
    >>> greedy_chain(SpeedupTable.linear(5), 0.9, 4000)
    LossChain(n_states=801, sizes=[5])

    Erlang-2 sizes: each job in service is in its first or second phase.

    >>> from analytic.simulation import erlang
    >>> greedy_chain(SpeedupTable.linear(5), 0.9, 20, size=erlang(2))
    LossChain(n_states=15, sizes=[5], phases=2)
    """
    speedup = as_discrete(speedup)
    n = integer("servers", servers, minimum=speedup.d, meaning=f" (at least d = {speedup.d})")
    lam = check_rate_per_server(rate_per_server)
    probabilities = resolve_p(speedup, lam, p)
    phases = phase_representation(size)
    support, sizes = allocations(n, probabilities)
    speeds = speedup.values[sizes - 1]
    m = 1 if phases is None else len(phases[0])
    build = _explore if len(support) == 1 else _enumerate
    chain = build(n, lam, probabilities, sizes, speeds, max_states, phases)
    states = np.asarray(chain.states, dtype=np.int64).reshape(chain.n_states, len(sizes), m).sum(axis=2)
    fluid = fluid_point(speedup.values, lam, probabilities)
    equilibrium = int(np.argmin(np.abs(states - n * fluid[sizes - 1]).sum(axis=1)))
    return LossChain(chain, states, sizes, equilibrium, m)


def phase_representation(size: SizeLaw | str) -> tuple[np.ndarray, np.ndarray] | None:
    """``(α, T)`` of a phase-type size law of mean 1, or None for the unit exponential law (one phase).

    Exact for the laws that are phase-type (:class:`~analytic.simulation.ErlangMixture` and
    :class:`~analytic.simulation.PhaseType`); the others (deterministic, Pareto) are refused with
    the advice to fit one, which is then the law of the chain, not an approximation inside it.
    """
    law = size if isinstance(size, SizeLaw) else size_law(size)
    phase_type = exact_phase_type(law, "size", size, "size law")
    if not math.isclose(law.mean, 1.0, rel_tol=1e-12):
        raise InvalidParameterError("size", size, f"must have mean 1 (the unit-mean sizes of Section 2), not {law.mean!r}: "
                                                  "rescale it with law.scaled(1.0)")
    if len(phase_type.initial) == 1 and phase_type.generator[0, 0] == -1.0:
        return None
    return np.asarray(phase_type.initial, dtype=float), np.asarray(phase_type.generator, dtype=float)


def allocations(n: int, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The support P of ``p`` and the server counts greedy(p) can allocate: multiples of g = gcd(P ∪ {n}) up to max P."""
    support = np.flatnonzero(p > 0) + 1
    step = math.gcd(n, *support.tolist())
    return support, np.arange(step, support.max() + 1, step)


def fluid_point(speeds: np.ndarray, rate_per_server: float, p: np.ndarray) -> np.ndarray:
    """Fluid equilibrium of greedy(p): ``x_i = c p_i / s_i`` with ``c = min(λ, 1 / Σ_i i p_i / s_i)``.

    Jobs on ``i`` servers per server when allocations are never truncated: the arrivals that draw
    ``i`` (rate ``c p_i``, with ``c = λ`` unless the servers are all busy) each stay ``1/s_i``.
    """
    fluid = p / speeds
    return fluid * min(rate_per_server, 1.0 / float(np.arange(1, speeds.size + 1) @ fluid))


def _erlang_advice(n: int, lam: float, sizes: np.ndarray, speeds: np.ndarray) -> str | None:
    """Where every job holds the same m servers and m divides n (e.g. a linear speed-up, p* = e_d), the chain is
    Erlang's loss system with n/m slots, exact at any n: say so instead of suggesting a larger chain."""
    if len(sizes) != 1:
        return None
    m, speed = int(sizes[0]), float(speeds[0])
    slots, load = n // m, n * lam / speed
    return (f"every job holds {m} servers and {m} divides n, so this is Erlang's loss system with {slots:,} slots: "
            f"P_b = erlang_b({slots}, {load!r}) and E[D] = 1/s_{m} = {1 / speed!r} exactly at any n "
            "(analytic.erlang.erlang_b), no chain needed: greedy_metrics returns every metric this way")


def _explore(n: int, lam: float, p: np.ndarray, sizes: np.ndarray, speeds: np.ndarray, max_states: int,
             phases: tuple[np.ndarray, np.ndarray] | None) -> CTMC:
    """Breadth-first exploration from the empty system (few reachable states), on the coordinates of
    :func:`lattice_moves`.

    Refused before allocating: 0, 1, ..., n // max(sizes) jobs of the largest size are all reachable,
    and the table of allocations by idle count has n + 1 rows.
    """
    reachable = n // int(sizes.max()) + 1
    advice = _erlang_advice(n, lam, sizes, speeds)
    if reachable > max_states:
        raise StateSpaceTooLargeError(reachable, max_states, "the greedy(p) chain", at_least=True, advice=advice)
    require(16.0 * (n + 1) * (len(p) + 1), "the greedy(p) allocation table", reachable, at_least=True, advice=advice)
    initial, generator = (np.ones(1), -np.ones((1, 1))) if phases is None else phases
    m = len(initial)
    exits = (-generator.sum(axis=1)).tolist()
    arrivals = n * lam * allocation_probabilities(np.arange(n + 1), p)[:, sizes]     # by idle count
    weights = np.repeat(sizes, m).tolist()
    columns = [(column, *divmod(column, m)) for column in range(len(weights))]           # (column, size index, phase)

    def transitions(state: tuple[int, ...]):
        allocation = arrivals[n - sum(w * c for w, c in zip(weights, state, strict=True))]
        for column, k, j in columns:
            count = state[column]
            if count:
                if exits[j] > 0:
                    yield (*state[:column], count - 1, *state[column + 1:]), speeds[k] * exits[j] * count
                for to in range(m):
                    if to != j and generator[j, to] > 0:
                        target = list(state)
                        target[column] -= 1
                        target[k * m + to] += 1
                        yield tuple(target), speeds[k] * generator[j, to] * count
            if allocation[k] > 0 and initial[j] > 0:
                yield (*state[:column], count + 1, *state[column + 1:]), allocation[k] * initial[j]
    return CTMC.from_function((0,) * len(weights), transitions, max_states=max_states)


def simplex_points(n: int, sizes: np.ndarray) -> int:
    """Number of integer vectors X >= 0 with Σ c X_c <= n (counting solutions by total, exact)."""
    ways = [1] + [0] * n
    for size in sizes.tolist():
        for total in range(size, n + 1):
            ways[total] += ways[total - size]
    return sum(ways)


def _enumerate(n: int, lam: float, p: np.ndarray, sizes: np.ndarray, speeds: np.ndarray, max_states: int,
               phases: tuple[np.ndarray, np.ndarray] | None) -> CTMC:
    """The simplex Σ c X_c <= n (on the coordinates of :func:`lattice_moves`) by vectorized moves,
    restricted to the states reachable from 0; explored breadth first instead where the box around
    it has ``2**62`` points or more (many phases), beyond the lattice's arithmetic ranks.

    The simplex is counted first, and refused (:class:`~analytic.errors.StateSpaceTooLargeError`)
    when building and solving its chain would not fit in memory.
    """
    moves = lattice_moves(n, lam, p, sizes, speeds, phases)
    weights = sizes if phases is None else np.repeat(sizes, len(phases[0]))

    def fits(points: int, at_least: bool) -> None:
        require(lattice_bytes(points, len(weights), len(moves)) + solve_bytes(points, points * (len(moves) + 1)),
                "the greedy(p) chain, built and solved,", points, at_least)

    # Each lattice point's unit cube covers the simplex (it is downward closed), so its volume
    # n^k / (k! Π c) bounds the number of points below: checked before they are counted in O(n).
    k = len(weights)
    fits(int(math.exp(min(k * math.log(n) - math.lgamma(k + 1) - float(np.log(weights).sum()), 43.0))), True)
    points = simplex_points(n, weights)
    fits(points, False)
    if math.prod(n // int(w) + 1 for w in weights) >= 2**62:      # beyond the lattice's ranks (many phases)
        return _explore(n, lam, p, sizes, speeds, max_states, phases)
    chain = CTMC.from_lattice(n // weights, moves, feasible=lambda X: X @ weights <= n, max_states=max_states)
    return chain.reachable()


def lattice_moves(n: int, lam: float, p: np.ndarray, sizes: np.ndarray, speeds: np.ndarray,
                  phases: tuple[np.ndarray, np.ndarray] | None = None) -> list:
    """The moves of the greedy(p) chain (for :meth:`CTMC.from_lattice`), valid on every state with
    ``Σ sizes X <= n``: an arrival allocated ``sizes[k]`` servers at rate ``n λ A_{sizes[k]}``
    (eq. 10), a departure of a job on ``sizes[k]`` servers at rate ``speeds[k] X_k``.

    With ``phases = (α, T)``, the inherent sizes are phase-type (``α`` the initial law over the
    ``m`` phases, ``T`` the sub-generator, in units of work): the coordinates are the counts
    ``X_{k, j}`` of jobs on ``sizes[k]`` servers in phase ``j`` (``k`` major), an arrival starts
    in phase ``j`` with probability ``α_j``, and a job on ``sizes[k]`` servers moves from phase
    ``j`` to ``j'`` at rate ``speeds[k] T[j, j']`` and leaves at rate ``speeds[k] t_j``,
    ``t = -T 1``: it does its work at speed ``speeds[k]``. ``None`` is the exponential law of unit
    mean, one phase.
    """
    initial, generator = (np.ones(1), -np.ones((1, 1))) if phases is None else phases
    m = len(initial)
    exits = -generator.sum(axis=1)
    weights = np.repeat(sizes, m)
    eye = np.eye(len(sizes) * m, dtype=np.int64)
    moves = []
    for k, size in enumerate(sizes):
        for j in range(m):
            column = k * m + j
            if exits[j] > 0:
                moves.append((-eye[column], lambda X, c=column, r=speeds[k] * exits[j]: r * X[:, c]))
            moves.extend((eye[k * m + to] - eye[column], lambda X, c=column, r=speeds[k] * generator[j, to]: r * X[:, c])
                         for to in range(m) if to != j and generator[j, to] > 0)
            if initial[j] > 0:
                moves.append((eye[column], lambda X, size=size, a=initial[j]:
                              n * lam * a * allocation_probabilities(n - X @ weights, p)[:, size]))
    return moves



#: Relative rounding of one double operation.
UNIT = 2.0**-53


@dataclass(frozen=True)
class EmptyLimit:
    """greedy(p) as λ → 0: the arrivals find the system empty but for a mass ``occupied``.

    Attributes
    ----------
    occupied : float
        A proven bound on ``P(N >= 1)``, the probability of the states with jobs.
    mean_response_time : float
        ``Σ_i p_i / s_i``, the mean execution time of the jobs that find the system empty.
    deviation : float
        A proven bound on ``|E[D] - mean_response_time|`` (rounding included).
    """

    occupied: float
    mean_response_time: float
    deviation: float


def empty_limit(values: np.ndarray, rate_per_server: float, servers: int, p: np.ndarray) -> EmptyLimit | None:
    """The empty-system limit of greedy(p), where ``z = nλ/s_1 <= FLOOR``; None above.

    With ``N`` the number of jobs, the flow across the cut between ``N = k - 1`` and ``N = k`` is at
    most ``nλ P(N = k - 1)`` up and at least ``k s_1 P(N = k)`` down, so
    ``P(N = k) <= P(N = 0) z^k / k!`` and ``P(N >= 1) <= 1 - e^{-z} <= z``. An arrival that finds
    the system empty gets ``i`` servers with probability ``p_i`` (``n >= d``, eq. 10); the others,
    of mass at most ``z``, run at speeds between ``s_1`` and ``s_d``, so ``E[D]`` (a mean of the
    ``1/s_i`` over the accepted arrivals, by Little's law) is ``Σ_i p_i / s_i`` within
    ``z max(Σ_i p_i/s_i - 1/s_d, 1/s_1 - Σ_i p_i/s_i) / (1 - z)``.
    """
    if Fraction(rate_per_server) * servers > Fraction(FLOOR) * Fraction(float(values[0])):
        return None
    occupied = servers * rate_per_server / float(values[0]) * (1 + 4 * UNIT) + 2.0**-1073   # rounded twice
    mean_response_time = float(p @ (1 / values))
    spread = max(mean_response_time - 1 / float(values[-1]), 1 / float(values[0]) - mean_response_time, 0.0)
    deviation = occupied * spread / (1 - occupied) + 4 * (len(p) + 1) * UNIT * mean_response_time
    return EmptyLimit(occupied, mean_response_time, deviation)


@contextmanager
def rates_in_range(p: object, rate_per_server: float) -> Iterator[None]:
    """Name the parameter behind the solver's refusal of rates that span more than the double range.

    Above the empty-system limit (:func:`empty_limit`) λ alone cannot cause it: the chain's
    arrival rates ``nλ A_i`` (eq. 10) then exceed 1e-290 ``A_i``, so tiny entries of an explicit
    ``p`` do; the solver's :class:`~analytic.errors.InvalidParameterError` for its internal
    ``rate`` is raised again naming ``p`` (or ``rate_per_server`` for p* and the greedy scheme).
    """
    try:
        yield
    except InvalidParameterError as exc:
        if exc.parameter != "rate":
            raise
        explicit = p is not None and not isinstance(p, str)
        raise InvalidParameterError(
            "p" if explicit else "rate_per_server", p if explicit else rate_per_server,
            f"makes arrival rates n λ A_i of the greedy(p) chain (eq. 10) that span more than the double range "
            f"against its service rates, which the exact solver refuses ({exc})"
            + ("; set the tiny entries of p to 0" if explicit else "")) from exc



# Names that moved to analytic.moldable.metrics (issue 32): they warn, and go in version 0.3.
__getattr__ = old_names(globals(), {"GreedyMetrics": "analytic.moldable.metrics.GreedyMetrics",
                                    "greedy_metrics": "analytic.moldable.metrics.greedy_metrics"})
