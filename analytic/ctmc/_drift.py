"""The drift conditions of :mod:`analytic.ctmc.truncation`: Foster–Lyapunov bounds on the stationary mass
outside the kept set, checked state by state with their rounding bounded.

:func:`lattice_drift` checks every state of a finite lattice chain, :func:`function_drift_inside`
the kept states of a chain given by its transitions, :func:`level_drift` the phases of a chain alike
at every level beyond some level. The theorem: :doc:`/truncation`, part (i).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from analytic.ctmc._truncated_chain import UNIT, KeptSet, TruncatedChain, rounding, yielded
from analytic.ctmc.spaces import check_rates, validate_moves, vector_result
from analytic.errors import InvalidParameterError
from analytic.validation import integer, real


@dataclass(frozen=True)
class Drift:
    """A checked Foster–Lyapunov drift condition: ``GV <= inside`` on the kept set, ``GV <= -outside``
    on every state outside it (theorem (i) of :doc:`/truncation`).

    Attributes
    ----------
    inside : float
        ``c >= 0``, an upper bound on ``GV`` over the kept states.
    outside : float
        ``η > 0`` with ``GV <= -η`` on every state outside (``inf``: nothing is outside).
    check : str
        How the inequality outside was established.
    states_checked : int or None
        How many states outside were evaluated one by one (a state listed twice counts twice;
        None: by an argument over all levels).
    kept : KeptSet or None
        The kept set the condition was checked for (pass the :class:`TruncatedChain`; its
        ``KeptSet`` is kept): :func:`solve_truncated` refuses the drift for any other, and
        for none at all unless nothing is outside.

    Raises
    ------
    InvalidParameterError
        ``inside`` negative or not finite, ``outside <= 0``, ``check`` not a text, or ``kept`` not
        a truncated chain (a count of states does not say which states were kept).

    Examples
    --------
    >>> Drift(2.0, 2e14, "an example").neglected_mass < 1e-14
    True
    >>> Drift.nothing_left_out().neglected_mass
    0.0
    """

    inside: float
    outside: float
    check: str
    states_checked: int | None = None
    kept: KeptSet | TruncatedChain | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "inside", real("inside", self.inside, allow_infinite=True))
        object.__setattr__(self, "outside", real("outside", self.outside, allow_infinite=True))
        if not (math.isfinite(self.inside) and self.inside >= 0):
            raise InvalidParameterError("inside", self.inside, "must be finite and >= 0 (a bound on GV over the kept states)")
        if not self.outside > 0:
            raise InvalidParameterError("outside", self.outside, "must be > 0 (GV <= -outside off the kept set): the drift "
                                                                 "condition does not hold")
        if not isinstance(self.check, str):
            raise InvalidParameterError("check", self.check, "must be a text saying how the drift condition was checked")
        if self.states_checked is not None:
            object.__setattr__(self, "states_checked", integer("states_checked", self.states_checked))
        if isinstance(self.kept, TruncatedChain):
            object.__setattr__(self, "kept", self.kept.fingerprint)
        elif not (self.kept is None or isinstance(self.kept, KeptSet)):
            raise InvalidParameterError("kept", self.kept, "must be the TruncatedChain the drift condition was checked for "
                                                           "(or its KeptSet): a count does not say which states were kept")

    @classmethod
    def nothing_left_out(cls) -> Drift:
        """The kept set is the whole state space: no mass is neglected.

        Returns
        -------
        Drift
            ``c = 0``, ``η = inf``: for :func:`solve_truncated` on a chain with no exits.

        Examples
        --------
        >>> Drift.nothing_left_out().outside
        inf
        """
        return cls(0.0, math.inf, "the kept set is the whole state space")

    @property
    def neglected_mass(self) -> float:
        """``ε = c / (c + η) >= π(S \\ K)``, rounded up."""
        if self.inside == 0 or math.isinf(self.outside):
            return 0.0
        return min(1.0, self.inside / (self.inside + self.outside) * (1 + 4 * UNIT))

    def outside_expectation(self, ratio: float) -> float:
        """A bound on ``π(f 1_{S \\ K})`` for a reward ``0 <= f <= ratio · (-GV)`` off ``K``
        (theorem (i): ``π((-GV) 1_{S \\ K}) <= c``, the comparison theorem of Meyn & Tweedie with
        ``GV <= -(-GV) 1_{S \\ K} + c 1_K``).

        Parameters
        ----------
        ratio : float
            ``r >= 0`` with ``f <= r · (-GV)`` on every state outside the kept set.

        Returns
        -------
        float
            ``r · c``, rounded up: ``0 <= π(f 1_{S \\ K}) <=`` this (pass ``(0, bound)`` as
            ``outside=`` to :meth:`Truncation.interval`).

        Raises
        ------
        InvalidParameterError
            ``ratio`` negative or not finite.

        Examples
        --------
        >>> Drift(0.5, 10.0, "an example").outside_expectation(2.0)
        1.0000000000000004
        """
        r = real("ratio", ratio)
        if not r >= 0:
            raise InvalidParameterError("ratio", ratio, "must be >= 0 (f <= ratio · (-GV) outside the kept set)")
        return r * self.inside * (1 + 4 * UNIT)


def lattice_generator_drift(states: np.ndarray, moves: Sequence, lyapunov: Callable[[np.ndarray], np.ndarray]
                            ) -> np.ndarray:
    """An upper bound on ``GV(x) = Σ_moves rate(x) (V(x + d) - V(x))`` at each row of ``states``,
    rounding included. ``V`` is evaluated on the targets of the moves with a positive rate only.

    Examples
    --------
    >>> moves = [((1,), lambda X: np.ones(len(X))), ((-1,), lambda X: 2.0 * (X[:, 0] > 0))]
    >>> lattice_generator_drift(np.array([[0], [3]]), moves, lambda X: 2.0 ** X[:, 0]).round(12).tolist()
    [1.0, 0.0]
    """
    checked = validate_moves(moves, states.shape[1])
    base = vector_result(lyapunov(states), len(states), "lyapunov")
    _check_lyapunov(base, states)
    total = np.zeros(len(states))
    magnitude = np.zeros(len(states))
    for m, (displacement, rate) in enumerate(checked):
        r = vector_result(rate(states), len(states), f"rate of move {m}")
        check_rates(r, f"rate of move {m}", lambda i: f"at state {states[i].tolist()}")
        active = np.flatnonzero(r > 0)
        if not len(active):
            continue
        target = vector_result(lyapunov(states[active] + displacement), len(active), "lyapunov")
        _check_lyapunov(target, states[active] + displacement)
        term = r[active] * (target - base[active])
        total[active] += term
        magnitude[active] += np.abs(term)
    return total + rounding(len(checked)) * magnitude + 2.0**-1070


def _check_lyapunov(values: np.ndarray, states: np.ndarray) -> None:
    bad = ~(np.isfinite(values) & (values >= 0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidParameterError("lyapunov", values[i], f"must be finite and >= 0 (at state {states[i].tolist()})")


def lattice_drift(chunks: Iterable[np.ndarray], moves: Sequence, lyapunov: Callable[[np.ndarray], np.ndarray],
                  kept: TruncatedChain | Callable[[np.ndarray], np.ndarray]) -> Drift:
    """Check a drift condition on every state of a finite lattice chain (theorem (i)).

    Parameters
    ----------
    chunks : iterable of int arrays, shape (m, d)
        Together, every state of the chain (each once or more; states that no jump reaches do no
        harm). The check is only as complete as this enumeration.
    moves : sequence of (displacement, rate)
        As in :meth:`CTMC.from_lattice`: ``rate(X)`` for an array of states.
    lyapunov : callable
        ``V(X) >= 0``, finite, for an array of states (also called on the targets of the moves).
    kept : TruncatedChain or callable
        The kept set: a truncated chain (its states, each of which the chunks must list), or
        ``kept(X)`` saying which rows of ``X`` belong to it (then the kept set is the states of
        the chunks it accepts).

    Returns
    -------
    Drift
        ``inside`` the largest ``GV`` on kept states (at least 0), ``outside`` the least ``-GV``
        elsewhere, both with the rounding of each sum bounded; ``kept`` the kept set it holds for,
        which :func:`solve_truncated` compares with the truncated chain's.

    Raises
    ------
    InvalidParameterError
        ``V`` negative or not finite somewhere, ``GV >= 0`` at some state outside (the message
        names it: the condition does not hold for this kept set), or a state of the truncated
        chain missing from the chunks.

    Examples
    --------
    >>> moves = [((1,), lambda X: 1.0 * (X[:, 0] < 99)), ((-1,), lambda X: 2.0 * (X[:, 0] > 0))]
    >>> drift = lattice_drift([np.arange(100)[:, None]], moves, lambda X: 1.5 ** X[:, 0], lambda X: X[:, 0] < 40)
    >>> drift.neglected_mass < 1e-6, drift.kept.count
    (True, 40)
    """
    chain = kept if isinstance(kept, TruncatedChain) else None
    if chain is not None:
        seen = np.zeros(chain.n_kept, dtype=bool)
        kept = lambda X: chain._lookup(X) >= 0          # noqa: E731
    elif not callable(kept):
        raise InvalidParameterError("kept", kept, "must be a TruncatedChain or a function of the state array returning a "
                                                  "boolean per row")
    inside, outside, count, worst, members = 0.0, math.inf, 0, None, []
    for chunk in chunks:
        states = np.asarray(chunk, dtype=np.int64)
        if states.ndim != 2 or not len(states):
            continue
        drift = lattice_generator_drift(states, moves, lyapunov)
        member = np.asarray(kept(states), dtype=bool)
        if member.shape != (len(states),):
            raise InvalidParameterError("kept", member.shape, f"must return one boolean per state ({len(states)})")
        if member.any():
            inside = max(inside, float(drift[member].max()))
            if chain is None:
                members.append(states[member])
            else:
                seen[chain._lookup(states[member])] = True
        if (~member).any():
            out = drift[~member]
            k = int(np.argmax(out))
            count += len(out)
            if -out[k] < outside:
                outside, worst = float(-out[k]), states[~member][k]
    if not outside > 0:
        raise InvalidParameterError("kept", None if worst is None else worst.tolist(),
                                    f"is a state outside the kept set where the drift GV = {-outside:.3g} is not negative: "
                                    "the drift condition fails; keep more states or choose another Lyapunov function")
    if chain is None:
        proved_for = KeptSet.of(np.concatenate(members) if members else np.zeros((0, 1), dtype=np.int64))
    else:
        if not seen.all():
            missing = np.flatnonzero(~seen)
            raise InvalidParameterError("chunks", chain.states[missing[0]].tolist(), f"is a kept state the chunks never list "
                                        f"({len(missing):,} of the {chain.n_kept:,} kept states are missing): GV was not "
                                        "evaluated there, so the enumeration is not the whole state space")
        proved_for = chain.fingerprint
    return Drift(inside, outside, f"GV evaluated on each of the {count:,} rows outside the kept set (enumerated), rounding "
                                  "bounded", states_checked=count, kept=proved_for)


def function_drift_inside(kept: Sequence[Hashable], transitions: Callable[[Any], Iterable[tuple[Hashable, float]]],
                          lyapunov: Callable[[Any], float]) -> float:
    """``c``: an upper bound on ``GV`` over the kept states of a chain given by a transition function,
    rounding included (for :func:`level_drift`).

    Parameters
    ----------
    kept : iterable of hashable
        The kept states.
    transitions : callable
        ``transitions(state)`` yields ``(next_state, rate)`` pairs, as in :meth:`CTMC.from_function`.
    lyapunov : callable
        ``V(state) >= 0``, finite.

    Returns
    -------
    float
        ``max(0, max_{x ∈ K} GV(x))`` with the rounding of each sum bounded.

    Raises
    ------
    InvalidParameterError
        ``V`` negative or not finite, a bad rate.

    Examples
    --------
    >>> function_drift_inside(range(3), lambda x: [(x + 1, 1.0), (x - 1, 2.0 * (x > 0))], lambda x: 1.5 ** x)
    0.5000000000000002
    """
    inside = 0.0
    for state in kept:
        base = float(lyapunov(state))
        if not (math.isfinite(base) and base >= 0):
            raise InvalidParameterError("lyapunov", base, f"must be finite and >= 0 (at state {state!r})")
        total, magnitude, count = 0.0, 0.0, 0
        for target, rate in yielded(transitions, state):
            value = float(lyapunov(target))
            if not (math.isfinite(value) and value >= 0):
                raise InvalidParameterError("lyapunov", value, f"must be finite and >= 0 (at state {target!r})")
            term = rate * (value - base)
            total += term
            magnitude += abs(term)
            count += 1
        inside = max(inside, total + rounding(count) * magnitude)
    return inside


def level_drift(phases: Sequence[Hashable], transitions: Callable[[Hashable], Iterable[tuple[Hashable, int, float]]],
                theta: float, weights: np.ndarray, level: int, kept_inside: float, invariance: str,
                kept: TruncatedChain | None = None) -> Drift:
    """Check a drift condition on every state above ``level`` of a chain alike at all high levels.

    Suppose that from every state ``(phase, ℓ)`` with ``ℓ > level`` the chain jumps to
    ``(phase', ℓ + Δ)`` at a rate that does not depend on ``ℓ`` (``transitions(phase)`` yields
    ``(phase', Δ, rate)``), and the phases of those states are the given ones. With
    ``V(phase, ℓ) = e^{θ ℓ} w(phase)``, ``GV(phase, ℓ) = e^{θ ℓ} D(phase)`` with
    ``D(phase) = Σ rate (w(phase') e^{θ Δ} - w(phase))``: if every ``D`` is negative, ``GV <=
    -η = e^{θ (level + 1)} max_phase D`` on every state above the kept levels. A good ``w`` is the
    right Perron vector of the tilted phase generator, for which ``D = ζ(θ) w`` with ``ζ(θ) < 0``
    for ``0 < θ`` below the decay rate of the level (Neuts, *Matrix-Geometric Solutions in
    Stochastic Models*, 1981, Ch. 1).

    Parameters
    ----------
    phases : sequence of hashable
        Every phase of a state above ``level``.
    transitions : callable
        ``transitions(phase)`` yields ``(phase', Δ, rate)`` for a state of that phase above ``level``.
    theta : float
        ``θ > 0``.
    weights : array, shape (len(phases),)
        ``w > 0``.
    level : int
        The highest kept level (the kept set holds every state at levels ``<= level``).
    kept_inside : float
        ``c``, an upper bound on ``GV`` over the kept states, computed by the caller from the kept
        states' transitions (:func:`function_drift_inside`).
    invariance : str
        Why the transitions above ``level`` do not depend on the level (stated in the check).
    kept : TruncatedChain
        The truncated chain on the kept states: every state at levels ``<= level`` and no other
        (the caller's claim, as is ``kept_inside``), the set :func:`solve_truncated` accepts the
        drift for. Without it the drift is refused there.

    Returns
    -------
    Drift

    Raises
    ------
    InvalidParameterError
        A ``D(phase) >= 0`` (the message names the phase), a phase jumping to a phase not listed,
        or bad weights.

    Examples
    --------
    An M/M/1 queue (arrival 1, service 2) as one phase: ``D = 1 e^θ + 2 e^{-θ} - 3 < 0`` at ``θ = 0.5``.

    >>> from analytic.ctmc.truncation import truncate_function
    >>> step = lambda x: [(x + 1, 1.0), (x - 1, 2.0 * (x > 0))]
    >>> chain = truncate_function(list(range(31)), step, [31], 0)
    >>> drift = level_drift([0], lambda p: [(0, 1, 1.0), (0, -1, 2.0)], 0.5, np.ones(1), 30, 1.0, "M/M/1", kept=chain)
    >>> drift.neglected_mass < 1e-5, drift.kept.count
    (True, 31)
    """
    t = real("theta", theta)
    if not t > 0:
        raise InvalidParameterError("theta", theta, "must be > 0")
    w = np.asarray(weights, dtype=float)
    if w.shape != (len(phases),) or not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise InvalidParameterError("weights", weights, f"must be {len(phases)} finite positive numbers, one per phase")
    index = {p: i for i, p in enumerate(phases)}
    worst, worst_phase = -math.inf, None
    for i, phase in enumerate(phases):
        total, magnitude, count = 0.0, 0.0, 0
        for target, step, rate in transitions(phase):
            if target not in index:
                raise InvalidParameterError("phases", target, f"is reached from phase {phase!r} above level {level} but is "
                                                              "not listed among the phases")
            term = rate * (w[index[target]] * math.exp(t * step) - w[i])
            total += term
            magnitude += abs(term)
            count += 1
        bound = total + rounding(2 * count + 8) * magnitude
        if bound > worst:
            worst, worst_phase = bound, phase
    if not worst < 0:
        raise InvalidParameterError("theta", theta, f"gives D = {worst:.3g} >= 0 at phase {worst_phase!r}: the drift above "
                                                    "the kept levels is not negative; lower θ or change the weights")
    exponent = t * (level + 1)
    outside = math.exp(exponent) * -worst * (1 - 8 * UNIT) if exponent < 709 else math.inf
    if math.isinf(outside):
        raise InvalidParameterError("level", level, f"makes e^(θ level) overflow at θ = {t:g}: lower θ")
    return Drift(kept_inside, outside, f"GV = e^(θ ℓ) D(phase) with D < 0 checked on each of the {len(phases)} phases above "
                                       f"level {level} (θ = {t:.6g}); the transitions there do not depend on the level: "
                                       f"{invariance}", kept=kept)
