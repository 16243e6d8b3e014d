"""Certified intervals for the blocking and the mean execution time of greedy(p), without the whole chain.

Ghanbarian, Mukhopadhyay, Mazumdar & Guillemin, *On Optimal Server Allocation for Moldable Jobs
with Concave Speed-Up*, Sections 4 and 7: Table 1 is at ``n = 4000`` servers, where the loss chain
of greedy(p*) in the Halfin–Whitt and super-Halfin–Whitt rows (p* on 1 and 2 servers) has 4·10⁶
states but its mass sits on a few ten thousand of them, near the face ``x_1 + 2 x_2 = n``.
:func:`greedy_bounds` solves the chain only there and returns intervals that provably contain the
exact ``P_b`` and ``E[D]``, by the theorem of :mod:`analytic.ctmc.truncation`:

* the *drift* of ``V = φ(θ_b (X_b - m_b)) + φ(θ_I (I - m_I))`` (``X_b`` the jobs on the larger
  allocation, ``I`` the idle servers, ``φ(u) = e^u`` continued linearly above ``u = 600`` so that
  ``V`` stays finite) is evaluated on *every* state of the chain (the simplex
  ``c_1 X_a + c_2 X_b <= n``, enumerated in chunks), and the kept set is the box
  ``{X_b <= B_b, I <= B_I}`` outside which ``GV <= -η``: the neglected mass is at most
  ``c / (c + η)`` (Dayar, Hermanns, Spieler & Wolf, 2011);
* the truncated chain sends the jumps leaving the box to the state nearest the fluid point, and
  its law is bounded against the exact conditional law through the checked mean hitting times of
  that state (Courtois & Semal, 1984; Kuntz, Thomas, Stan & Barahona, 2021).

Chains with one allocation size (``p`` on one server count, e.g. the greedy scheme) are small and
solved whole; so are chains with three or more sizes when they fit (for those no drift condition
is known to the package: the jobs that greedy(p*) squeezes onto the last one or two free servers
arrive at rate ``n λ`` whenever one or two servers are free, where the drift function above fails;
and their mass spreads over 10⁷ states and more at Table 1's ``n = 4000``, see
``benchmarks/moldable.py --mass``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from analytic._deprecation import renamed_arguments, renamed_attribute
from analytic.ctmc import lattice_bytes, solve_bytes
from analytic.ctmc.truncation import (
    Drift,
    Truncation,
    checked_width,
    lattice_drift,
    lattice_generator_drift,
    solve_truncated,
    truncate_lattice,
)
from analytic.errors import StateSpaceTooLargeError
from analytic.intervals import Interval
from analytic.memory import require
from analytic.moldable.greedy import (
    allocation_probabilities,
    empty_limit,
    fluid_point,
    greedy_chain,
    lattice_moves,
    rates_in_range,
    resolve_p,
)
from analytic.moldable.occupancy import check_rate_per_server
from analytic.speedup import SpeedupCurve, SpeedupTable, as_discrete
from analytic.validation import integer

__all__ = ["GreedyBounds", "greedy_bounds"]

#: Relative rounding of one double operation.
_UNIT = 2.0**-53

#: Targets of the neglected mass tried in turn until the intervals are narrow enough.
_MASS_TARGETS = (1e-12, 1e-14, 1e-16, 1e-18, 1e-21, 1e-24)

#: Scales ``t`` of the Lyapunov exponents ``θ = t / (2 σ)`` tried (σ the spread of the coordinate).
_SCALES = (6.0, 8.0, 10.0, 12.0, 14.0)

#: Above this exponent the Lyapunov function grows linearly (keeps it finite on the whole simplex).
_EXPONENT_CAP = 600.0

#: States of the simplex enumerated per chunk (bounds the memory of the drift evaluation).
_CHUNK = 1 << 19

#: Bytes per state of the simplex held during the search (coordinates, drift, masks).
_BYTES_PER_SIMPLEX_STATE = 64


@dataclass(frozen=True, repr=False)
class GreedyBounds:
    """Intervals that contain the exact stationary blocking and mean execution time of greedy(p).

    Attributes
    ----------
    blocking : Interval
        Contains ``P_b`` (the stationary probability that all servers are busy; blocking by PASTA).
    mean_response_time : Interval
        Contains ``E[D] = Σ E[x_i] / (λ (1 - P_b))`` (Little's law, eq. 4).
    neglected_mass : float
        A proven bound on the stationary probability of the states left out (0 when the whole
        chain was solved; all but the empty system in the empty-system limit of
        :func:`greedy_bounds`).
    n_states : int
        States kept (and solved; 1 in the empty-system limit).
    method : str
        How the intervals were obtained (the drift check, the kept box, the truncated solve).
    entry_cost : float
        ``κ`` of :mod:`analytic.ctmc.truncation` (0 for a whole chain).
    p : numpy.ndarray
    servers : int
    rate_per_server : float

    Examples
    --------
    >>> from analytic.moldable import greedy_bounds
    >>> from analytic.speedup import SpeedupTable
    >>> b = greedy_bounds(SpeedupTable([1, 1.8, 2.5, 3, 3.4]), 0.99, 200)
    >>> b.blocking.width < 1e-8, b.neglected_mass < 1e-10
    (True, True)
    """

    blocking: Interval
    mean_response_time: Interval
    neglected_mass: float
    n_states: int
    method: str
    entry_cost: float
    p: np.ndarray
    servers: int
    rate_per_server: float
    arrival_rate = renamed_attribute("rate_per_server")
    states = renamed_attribute("n_states")
    mean_time = renamed_attribute("mean_response_time")

    def __repr__(self) -> str:
        return (f"GreedyBounds(servers={self.servers}, blocking={self.blocking!r}, "
                f"mean_response_time={self.mean_response_time!r}, neglected_mass={self.neglected_mass:.3g}, "
                f"n_states={self.n_states:,})")

    @property
    def width(self) -> float:
        """The larger (absolute) width of the two intervals."""
        return max(self.blocking.width, self.mean_response_time.width)


@renamed_arguments(arrival_rate="rate_per_server")
def greedy_bounds(speedup: SpeedupTable | SpeedupCurve | object, rate_per_server: float, servers: int, p: object = None,
                  width: float = 1e-8, max_states: int = 30_000_000) -> GreedyBounds:
    """Intervals that provably contain ``P_b`` and ``E[D]`` of greedy(p) with ``n`` servers.

    The loss system of :func:`~analytic.moldable.greedy_chain` (Ghanbarian et al., Sections 4 and
    7; exponential sizes of unit mean) is solved on a set of states that grows until both intervals
    are at most ``width`` wide, with a certified bound on the mass left out and on its effect
    (module docstring; the theorem is in :mod:`analytic.ctmc.truncation`). Where the whole chain is
    solved (``p`` on one server count, whose reachable chain is small, or three and more
    allocation sizes), the intervals come from the proven per-state accuracy of the stationary law
    alone. ``E[D] = π(Σ_i A_i / s_i) / (1 - P_b)`` (Little's law, eq. 4, for the jobs on each
    allocation size, which arrive at rate ``nλ π(A_i)``, eq. 10) is bounded without dividing by λ,
    so its interval stays narrow at any load. Where ``z = nλ/s_1 <= 1e-290`` (the solver's floor)
    no chain is solved: the cut equations bound the mass of the states with jobs by ``z``, so
    ``P_b`` lies in ``[0, z]`` and ``E[D]`` within ``z (1/s_1 - 1/s_d) / (1 - z)`` and the rounding
    of ``Σ_i p_i / s_i``, its value when every job finds the system empty.

    Parameters
    ----------
    speedup : SpeedupTable, sequence of float or SpeedupCurve
        ``s_1, ..., s_d`` (P1 and concavity).
    rate_per_server : float
        λ in (0, 1]; arrivals at rate ``n λ``.
    servers : int
        ``n >= d``.
    p : None, "greedy" or array_like
        ``None``: p* of Theorem 1; ``"greedy"``: always ``d``; or a probability vector.
    width : float
        Largest absolute width wanted for each interval, in ``[1e-13, 1)`` (default 1e-8); the stationary
        solves are asked for a componentwise relative accuracy of ``min(1e-10, width / 8)``.
    max_states : int
        Most states to handle: of the chain solved (whole, or the kept box), and, for two
        allocation sizes, of the simplex ``c_1 X_1 + c_2 X_2 <= n`` on whose every state the drift
        is checked (chunk by chunk, about ``n^2 / (2 c_1 c_2)`` states), refused before the scan.

    Returns
    -------
    GreedyBounds
        Intervals that contain the exact values whatever their width. They are at most ``width``
        wide unless the kept set stopped growing first (after a neglected mass of 1e-24): then
        :attr:`GreedyBounds.width` says how wide they are.

    Raises
    ------
    InvalidParameterError
        Bad λ, n, p or width; a ``p`` with entries so small that the chain's rates span more than
        the double range (the solver refuses them; named ``p``).
    StateSpaceTooLargeError
        The chain has three or more allocation sizes and is too large to solve whole; for two
        sizes, the simplex exceeds ``max_states`` (before it is scanned) or the memory of the
        scan, or the kept box needed for ``width`` exceeds the memory.

    Examples
    --------
    Table 1, sub-linear speed-up, Halfin–Whitt row (α = 1/2, β = 0.1) at n = 400:

    >>> from analytic.moldable import traffic
    >>> from analytic.speedup import SpeedupTable
    >>> b = greedy_bounds(SpeedupTable([1, 1.8, 2.5, 3, 3.4]), traffic(400, 0.5, 0.1), 400)
    >>> round(b.blocking[0], 6), round(b.mean_response_time[0], 6), b.width <= 1e-8      # whole chain: 0.039541, 0.980691
    (0.039541, 0.980691, True)
    """
    speedup = as_discrete(speedup)
    n = integer("servers", servers, minimum=speedup.d, meaning=f" (at least d = {speedup.d})")
    lam = check_rate_per_server(rate_per_server)
    target, tolerance = checked_width(width)
    integer("max_states", max_states)
    probabilities = resolve_p(speedup, lam, p)
    limit = empty_limit(speedup.values, lam, n, probabilities)
    if limit is not None:
        return GreedyBounds(blocking=Interval(0.0, limit.occupied),
                            mean_response_time=Interval(limit.mean_response_time - limit.deviation,
                                                        limit.mean_response_time + limit.deviation),
                            neglected_mass=limit.occupied, n_states=1, method=(
                                f"the empty-system limit: nλ/s_1 <= {limit.occupied:.3g} bounds the mass of the states "
                                "with jobs (cut equations), no chain solved"),
                            entry_cost=0.0, p=probabilities, servers=n, rate_per_server=lam)
    support = np.flatnonzero(probabilities > 0) + 1
    step = math.gcd(n, *support.tolist())
    sizes = np.arange(step, support.max() + 1, step)
    speeds = speedup.values[sizes - 1]
    with rates_in_range(p, lam):
        if len(sizes) == 2 and len(support) == 2:
            result = _truncated(n, lam, probabilities, sizes, speeds, speedup.values, target, tolerance, max_states)
        else:
            result = _whole(speedup, n, lam, probabilities, sizes, speeds, tolerance, max_states)
    truncation, how = result
    blocking, mean_response_time = _intervals(truncation, n, probabilities, sizes, speeds)
    return GreedyBounds(blocking=blocking, mean_response_time=mean_response_time, neglected_mass=truncation.neglected_mass,
                        n_states=truncation.chain.n_kept, method=how, entry_cost=truncation.entry_cost, p=probabilities,
                        servers=n, rate_per_server=lam)


def _intervals(truncation: Truncation, n: int, p: np.ndarray, sizes: np.ndarray, speeds: np.ndarray
               ) -> tuple[Interval, Interval]:
    """Intervals for ``P_b = π(I = 0)`` and ``E[D] = π(g) / (1 - P_b)``, ``g = Σ_k A_{c_k} / s_{c_k}``:
    Little's law (eq. 4) for the jobs on each allocation size ``c_k``, which arrive at rate
    ``nλ π(A_{c_k})`` (eq. 10) and stay ``1/s_{c_k}``. Scale-free: ``π(Σ X_i / n) / λ`` would
    divide the interval of a mass of order λ by λ. ``E[D]``, a mean of the ``1/s_{c_k}``, also lies
    between the least and the largest of them."""
    blocking = Interval(*truncation.interval(lambda X: 1.0 * (X @ sizes == n), 0.0, 1.0))
    served = truncation.interval(lambda X: allocation_probabilities(n - X @ sizes, p)[:, sizes] @ (1 / speeds),
                                 0.0, 1 / float(speeds[0]))
    fastest, slowest = 1 / float(speeds[-1]) * (1 - 2 * _UNIT), 1 / float(speeds[0]) * (1 + 2 * _UNIT)
    high = served[1] / (1 - blocking[1]) * (1 + 8 * _UNIT) if blocking[1] < 1 else slowest
    mean_response_time = Interval(max(served[0] / (1 - blocking[0]) * (1 - 8 * _UNIT), fastest), min(high, slowest))
    return blocking, mean_response_time


def _whole(speedup: SpeedupTable, n: int, lam: float, p: np.ndarray, sizes: np.ndarray, speeds: np.ndarray,
           tolerance: float, max_states: int) -> tuple[Truncation, str]:
    """The whole chain, solved: nothing left out."""
    try:
        loss = greedy_chain(speedup, lam, n, p, max_states=max_states)
    except StateSpaceTooLargeError as exc:
        if len(sizes) < 3:
            raise
        raise StateSpaceTooLargeError(
            exc.needed, exc.limit, f"the greedy(p) chain with {len(sizes)} allocation sizes {sizes.tolist()}", at_least=True,
            memory=exc.memory,
            advice=("no certified truncation is available for chains of three or more sizes: the package knows no "
                    "drift condition for them (jobs squeezed onto the last free servers arrive at rate nλ whenever one "
                    "or two servers are free, where the drift function of the two-size chains fails); simulate it "
                    "(simulate_moldable) or use fewer servers")) from None
    states = np.asarray(loss.states, dtype=np.int64)
    # the reachable states are the whole chain: no state outside them is one of its states
    kept = truncate_lattice(states, lattice_moves(n, lam, p, sizes, speeds), lambda X: np.zeros(len(X), dtype=bool),
                            states[loss.equilibrium])
    truncation = solve_truncated(kept, Drift.nothing_left_out(), tolerance=tolerance)
    return truncation, (f"the whole chain ({len(states):,} states) solved, the intervals from the proven per-state "
                        f"accuracy of its stationary law ({truncation.law.method})")


# ---------------------------------------------------------------------------------------------
# Two allocation sizes: a drift condition checked on the whole simplex, a box of kept states
# ---------------------------------------------------------------------------------------------


def _simplex_chunks(n: int, sizes: np.ndarray) -> Iterator[np.ndarray]:
    """Every ``(X_a, X_b) >= 0`` with ``c_1 X_a + c_2 X_b <= n``, in chunks of about ``_CHUNK`` states."""
    c1, c2 = int(sizes[0]), int(sizes[1])
    top = n // c2
    b = 0
    while b <= top:
        counts = (n - c2 * np.arange(b, top + 1)) // c1 + 1
        take = max(1, int(np.searchsorted(np.cumsum(counts), _CHUNK)))
        counts = counts[:take]
        xb = np.repeat(np.arange(b, b + take), counts)
        xa = np.arange(len(xb)) - np.repeat(np.cumsum(counts) - counts, counts)
        yield np.stack([xa, xb], axis=1).astype(np.int64)
        b += take


def _simplex_size(n: int, sizes: np.ndarray) -> int:
    c1, c2 = int(sizes[0]), int(sizes[1])
    return int(((n - c2 * np.arange(n // c2 + 1)) // c1 + 1).sum())


def _phi(u: np.ndarray) -> np.ndarray:
    """``e^u``, continued linearly (C¹) above ``_EXPONENT_CAP`` so that it stays finite."""
    capped = np.minimum(u, _EXPONENT_CAP)
    return np.exp(capped) * (1 + np.maximum(u - _EXPONENT_CAP, 0.0))


@dataclass(frozen=True)
class _Lyapunov:
    """``V = φ(θ_b (X_b - m_b)) + φ(θ_I (I - m_I))`` for the two-size chain."""

    n: int
    sizes: tuple[int, int]
    theta_b: float
    centre_b: float
    theta_i: float
    centre_i: float

    def __call__(self, X: np.ndarray) -> np.ndarray:
        idle = self.n - X @ np.asarray(self.sizes)
        return _phi(self.theta_b * (X[:, 1] - self.centre_b)) + _phi(self.theta_i * (idle - self.centre_i))

    def describe(self) -> str:
        return (f"V = φ({self.theta_b:.4g} (X_{self.sizes[1]} - {self.centre_b:.4g})) + "
                f"φ({self.theta_i:.4g} (I - {self.centre_i:.4g})), φ(u) = e^u continued linearly above {_EXPONENT_CAP:g}")


def _candidates(n: int, lam: float, p: np.ndarray, sizes: np.ndarray, speeds: np.ndarray, values: np.ndarray
                ) -> list[_Lyapunov]:
    """Lyapunov functions to try: exponents ``t / (2 σ)`` around the fluid point, σ the spread of the
    coordinate there (Poisson for ``X_b``, an Ornstein–Uhlenbeck variance for the idle servers)."""
    fluid = fluid_point(values, lam, p) * n
    c1, c2 = int(sizes[0]), int(sizes[1])
    s1, s2 = float(speeds[0]), float(speeds[1])
    xa, xb = float(fluid[c1 - 1]), float(fluid[c2 - 1])
    idle = max(0.0, n - c1 * xa - c2 * xb)
    pa, pb = float(p[c1 - 1:c2 - 1].sum()), float(p[c2 - 1])
    jumps = c1**2 * s1 * xa + c2**2 * s2 * xb + n * lam * (c1**2 * pa + c2**2 * pb)
    sigma_i = math.sqrt(max(jumps / (2 * s1), 1.0))
    sigma_b = math.sqrt(xb + 1.0)
    return [_Lyapunov(n, (c1, c2), t / (2 * sigma_b), xb, t / (2 * sigma_i), idle) for t in _SCALES]


@dataclass(frozen=True)
class _Box:
    """The kept set ``{X_b <= top_b, I <= top_i}`` and what it costs."""

    lyapunov: _Lyapunov
    top_b: int
    top_i: int
    n_states: int


def _box_rows(n: int, sizes: np.ndarray, top_b: int, top_i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per ``X_b = 0..top_b``, the least and largest ``X_a`` of the states of the simplex with ``I <= top_i``."""
    c1, c2 = int(sizes[0]), int(sizes[1])
    xb = np.arange(min(top_b, n // c2) + 1 if top_i >= 0 else 0, dtype=np.int64)
    room = n - c2 * xb
    return xb, np.maximum(0, -((top_i - room) // c1)), room // c1          # c1 X_a >= room - top_i


def _box_count(n: int, sizes: np.ndarray, top_b: int, top_i: int) -> int:
    """The number of states of the simplex with ``X_b <= top_b`` and ``I <= top_i``."""
    _, low_a, high_a = _box_rows(n, sizes, top_b, top_i)
    return int(np.maximum(high_a - low_a + 1, 0).sum())


def _smallest_box(lyapunov: _Lyapunov, n: int, sizes: np.ndarray, xb: np.ndarray, idle: np.ndarray, drift: np.ndarray,
                  mass: float) -> _Box:
    """The smallest box holding every state of the simplex where ``GV > -η``, with ``η`` chosen so that
    ``c / (c + η) = mass`` (``c`` the largest drift on the simplex)."""
    c = max(float(drift.max()), 0.0)
    eta = c * (1 / mass - 1) if c > 0 else 1.0
    high = drift > -eta
    top_b, top_i = int(xb[high].max()), int(idle[high].max())
    return _Box(lyapunov, top_b, top_i, _box_count(n, sizes, top_b, top_i))


def _box_states(n: int, sizes: np.ndarray, top_b: int, top_i: int) -> np.ndarray:
    """The states of the simplex with ``X_b <= top_b`` and ``I <= top_i``."""
    xb, low_a, high_a = _box_rows(n, sizes, top_b, top_i)
    counts = np.maximum(high_a - low_a + 1, 0)
    start = np.repeat(low_a - (np.cumsum(counts) - counts), counts)
    return np.stack([np.arange(int(counts.sum())) + start, np.repeat(xb, counts)], axis=1)


def _truncated(n: int, lam: float, p: np.ndarray, sizes: np.ndarray, speeds: np.ndarray, values: np.ndarray,
               target: float, tolerance: float, max_states: int) -> tuple[Truncation, str]:
    """Two allocation sizes: grow the kept box until both intervals are at most ``target`` wide."""
    total = _simplex_size(n, sizes)
    c1, c2 = int(sizes[0]), int(sizes[1])
    if total > max_states:
        raise StateSpaceTooLargeError(total, max_states, f"the drift check of greedy(p) on every state of the simplex "
                                      f"{c1} X_{c1} + {c2} X_{c2} <= {n}, before a kept box is chosen,",
                                      advice="raise max_states if the time allows it (the simplex is scanned chunk by "
                                             "chunk, O(n^2) states), or use fewer servers")
    require(total * _BYTES_PER_SIMPLEX_STATE * len(_SCALES) / 4, "the drift check on the greedy(p) simplex", total)
    moves = lattice_moves(n, lam, p, sizes, speeds)
    lyapunovs = _candidates(n, lam, p, sizes, speeds, values)
    fluid = fluid_point(values, lam, p) * n
    drifts = [[] for _ in lyapunovs]
    coordinates = []
    for chunk in _simplex_chunks(n, sizes):
        coordinates.append((chunk[:, 1].astype(np.int32), (n - chunk @ sizes).astype(np.int32)))
        for k, lyapunov in enumerate(lyapunovs):
            drifts[k].append(lattice_generator_drift(chunk, moves, lyapunov))
    xb = np.concatenate([c[0] for c in coordinates])
    idle = np.concatenate([c[1] for c in coordinates])
    drifts = [np.concatenate(parts) for parts in drifts]
    last = None
    for mass in _MASS_TARGETS:
        box = min((_smallest_box(v, n, sizes, xb, idle, d, mass) for v, d in zip(lyapunovs, drifts, strict=True)),
                  key=lambda b: b.n_states)
        require(lattice_bytes(box.n_states, 2, 4) + solve_bytes(box.n_states, 5 * box.n_states),
                f"the kept box of greedy(p) for a neglected mass of {mass:g}, built and solved,", box.n_states)
        if last is not None and (box.top_b, box.top_i) == (last.top_b, last.top_i):
            continue
        whole = box.n_states == total
        kept = _box_states(n, sizes, box.top_b, box.top_i)
        equilibrium = kept[np.argmin(np.abs(kept[:, 0] - fluid[c1 - 1]) + np.abs(kept[:, 1] - fluid[c2 - 1]))]
        chain = truncate_lattice(kept, moves, lambda X: X @ sizes <= n, equilibrium)
        if whole:
            drift = Drift.nothing_left_out()
        else:
            drift = lattice_drift(_simplex_chunks(n, sizes), moves, box.lyapunov, chain)
        truncation = solve_truncated(chain, drift, tolerance=tolerance)
        blocking, mean_response_time = _intervals(truncation, n, p, sizes, speeds)
        last = box
        if whole or max(blocking.width, mean_response_time.width) <= target:
            break
    how = ("the whole chain solved (the kept box is the simplex)" if whole else
           f"kept box X_{c2} <= {box.top_b}, I <= {box.top_i} ({box.n_states:,} of the {total:,} states); drift of "
           f"{box.lyapunov.describe()} checked on each of the {drift.states_checked:,} states outside; neglected mass "
           f"<= {truncation.neglected_mass:.3g}; entry cost {truncation.entry_cost:.3g}")
    return truncation, how + f"; truncated law: {truncation.law.method}"
