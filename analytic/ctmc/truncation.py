"""Truncated stationary solves with a certified bound on what was left out.

A chain too large to build (or infinite) is solved on a finite set ``K`` of kept states, and
every stationary expectation of a bounded reward comes back as an interval that provably contains
the exact value. Two things are bounded: the stationary mass outside ``K`` (a Foster–Lyapunov drift
condition checked on every state outside), and the error of the truncated chain's law against the
exact law conditioned on ``K`` (regeneration at a reference state, with mean hitting times
certified by a checked supersolution). Nothing here is an estimate: the change between two
truncations is never used as a bound.

The theorem
-----------
Let ``X`` be an irreducible, non-explosive, positive recurrent CTMC on a countable set ``S`` with
rates ``q(x, y)``, generator ``G`` and stationary law ``π``. Let ``K`` be a finite subset, ``z`` a
state of ``K`` (the *reference*), and ``Q^z`` the generator on ``K`` in which every jump leaving
``K`` lands on ``z`` instead; suppose ``Q^z`` is irreducible and let ``ν`` be its stationary law.

*(i) Neglected mass* (Dayar, Hermanns, Spieler & Wolf, "Bounding the equilibrium distribution of
    Markov population models", Numer. Linear Algebra Appl. 18, 2011, Thm. 1; the comparison
    theorem of Meyn & Tweedie, "Stability of Markovian processes III", Adv. Appl. Probab. 25,
    1993, Thm. 4.3). If ``V : S -> [0, ∞)`` has drift ``GV(x) = Σ_y q(x, y) (V(y) - V(x))`` with
    ``GV <= c`` on ``K`` and ``GV <= -η`` off ``K`` (``c >= 0``, ``η > 0``), then
    ``δ := π(S \\ K) <= ε := c / (c + η)``, and ``π(h 1_{S \\ K}) <= c`` for ``h = -GV``.
    (On a finite ``S``, ``π(GV) = 0`` gives ``0 <= c π(K) - η δ`` directly.)

*(ii) The law on K* (the representation of Courtois & Semal, "Bounds for the positive
    eigenvectors of nonnegative matrices and for their approximations by decomposition",
    J. ACM 31, 1984; see Kuntz, Thomas, Stan & Barahona, "Stationary distributions of
    continuous-time Markov chains: a review of theory and truncation-based approximations",
    SIAM Rev. 63, 2021, Sec. 5). Write ``b_j = Σ_{y ∉ K} π(y) q(y, j)`` for the stationary flow
    into ``j ∈ K`` from outside. The balance equations on the columns of ``K`` give
    ``π|_K = b (-Q_KK)^{-1}``, and the Poisson equation ``Q^z g = ν(f) - f`` of the truncated chain
    turns this into the identity, for every reward ``f``,

        ``π(f 1_K) = π(K) ν(f) + Σ_j b_j (g_j - g_z)``,
        ``g_j - g_z = E_j ∫_0^{σ_z} (f(X^z_t) - ν(f)) dt``,

    with ``σ_z`` the time ``Q^z`` takes to reach ``z``. Hence, for ``a_K <= f <= b_K`` on ``K``,
    ``g_j - g_z`` lies in ``[(a_K - ν f) m_j, (b_K - ν f) m_j]`` with ``m_j = E_j σ_z``, and
    ``M := Σ_j b_j m_j <= δ κ`` with ``κ = max_{y ∉ K} Σ_{j ∈ K} q(y, j) m_j`` (only the states
    outside with a jump into ``K`` count).

*(iii) Intervals.* With ``O = π(f 1_{S \\ K})`` (in ``[lo δ, hi δ]`` for ``lo <= f <= hi`` on
    ``S``, or in a range given by a moment bound from (i)):

        ``π(f) = (1 - δ) ν(f) + E + O``,  ``E ∈ [(a_K - ν f) M, (b_K - ν f) M]``,

    which is bilinear in ``(ν(f), δ)`` for the extreme ``M``: :meth:`Truncation.interval` takes the
    least and largest value over the corners ``ν(f) ∈ {ν_lo, ν_hi}``, ``δ ∈ {0, ε}``, ``M = δ κ``.

How the package checks the hypotheses
-------------------------------------
* The drift condition (i) is a :class:`Drift`: :func:`lattice_drift` evaluates ``GV`` on every
  state of a finite lattice chain, chunk by chunk, and bounds the rounding of each sum
  (``GV`` is computed from the doubles ``V`` returns, which *define* ``V``); :func:`level_drift`
  covers chains that are alike at every level beyond some level (quasi-birth-and-death tails):
  there ``V = e^{θ level} g(phase)`` has ``GV = e^{θ level} D(phase)`` and the finitely many
  ``D(phase) < 0`` are checked.
* A drift holds for the kept set it was checked for, and no other: a :class:`Drift` carries that
  set (a ``KeptSet``: its size and a digest of its states), and :func:`solve_truncated`
  refuses it for a truncated chain on any other set.
* ``ν`` and its accuracy come from :meth:`CTMC.stationary` (a proven per-state bound).
* The mean hitting times ``m`` are bounded by a vector ``w >= 0`` with ``(-Q^z) w >= 1`` off ``z``,
  checked row by row with a bound on the rounding (``-Q^z`` without the row and column of ``z`` is
  a nonsingular M-matrix, so ``w >= m``; Berman & Plemmons, *Nonnegative Matrices in the
  Mathematical Sciences*, 1994, Ch. 6).
* The states outside ``K`` that jump into it are found from the moves backwards
  (:func:`truncate_lattice`) or given by the caller with the reason they are all of them
  (:func:`truncate_function`).

Rates are the doubles the model's rate functions return; several jumps to one state add up with
one rounding each (relative 2**-53), which, as elsewhere in :mod:`analytic.ctmc`, the bounds do not
track.

Examples
--------
An M/M/1/500 queue (arrivals 1, service 2) kept at 0..30, with ``V = 1.9**x``:
``GV = 1.9**x (0.9 + 2 (1/1.9 - 1)) < 0`` for ``1 <= x < 500`` (and at 500), checked on all 501 states:

>>> import numpy as np
>>> moves = [((1,), lambda X: 1.0 * (X[:, 0] < 500)), ((-1,), lambda X: 2.0 * (X[:, 0] > 0))]
>>> chain = truncate_lattice(np.arange(31)[:, None], moves, lambda X: X[:, 0] <= 500, reference=(0,))
>>> drift = lattice_drift([np.arange(501)[:, None]], moves, lambda X: 1.9 ** X[:, 0], chain)
>>> result = solve_truncated(chain, drift)
>>> low, high = result.interval(lambda X: 1.0 * (X[:, 0] == 0), 0.0, 1.0)     # P(empty) = 1/2
>>> bool(low <= 0.5 <= high), high - low < 1e-5
(True, True)
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from analytic.ctmc.chain import CTMC
from analytic.ctmc.spaces import check_rates, validate_moves, vector_result
from analytic.ctmc.stationary import ACCURACY, Stationary
from analytic.errors import ConvergenceError, InvalidParameterError
from analytic.validation import integer, real

__all__ = [
    "Drift",
    "TruncatedChain",
    "Truncation",
    "function_drift_inside",
    "lattice_drift",
    "level_drift",
    "solve_truncated",
    "truncate_function",
    "truncate_lattice",
]

#: Relative rounding of one double operation.
_UNIT = 2.0**-53

#: Rounds of correction of the hitting-time supersolution before giving up.
_HITTING_ROUNDS = 4


#: Narrowest interval a certified computation is asked for (double precision, relative accuracy
#: of the solves).
MINIMUM_WIDTH = 1e-13


def checked_width(width: float) -> tuple[float, float]:
    """``width`` of the intervals asked of a certified computation (in ``[MINIMUM_WIDTH, 1)``) and
    the componentwise tolerance its stationary solves need for it (an eighth of it, at most the
    default accuracy); shared by :func:`~analytic.moldable.greedy_bounds` and
    :func:`~analytic.splitting.fcfs_bounds`."""
    target = real("width", width)
    if not MINIMUM_WIDTH <= target < 1:
        raise InvalidParameterError("width", width, f"must lie in [{MINIMUM_WIDTH:g}, 1)")
    return target, min(ACCURACY, target / 8)


def _rounding(terms: int) -> float:
    """A bound on the relative rounding error of a sum of ``terms`` products of two doubles
    (``γ_{k+2}`` of Higham, *Accuracy and Stability of Numerical Algorithms*, 2002, Lemma 3.1),
    with a margin."""
    k = terms + 3
    return 1.01 * k * _UNIT / (1 - k * _UNIT)


# ---------------------------------------------------------------------------------------------
# (i) The drift condition
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KeptSet:
    """Which kept set a drift condition was proved for: its number of states and a digest of them.

    Two kept sets with the same states (in any order) have equal ``KeptSet`` values; a set with one
    state more, less or different has another digest (SHA-256), so :func:`solve_truncated` can
    refuse a :class:`Drift` handed a kept set it was not checked for.

    Attributes
    ----------
    count : int
        The number of distinct kept states.
    digest : str
        SHA-256 of the states in a canonical order: the rows of an integer array sorted
        lexicographically, or the ``repr`` of hashable states sorted (equal states of different
        types, such as ``1`` and ``1.0``, count as different).

    Examples
    --------
    >>> KeptSet.of(np.array([[2], [0], [1]])) == KeptSet.of(np.arange(3)[:, None])
    True
    >>> KeptSet.of([0, 1, 2]) == KeptSet.of([0, 1]), KeptSet.of([(0, 1), (1, 0)]).count
    (False, 2)
    """

    count: int
    digest: str

    def __repr__(self) -> str:
        return f"KeptSet(count={self.count:,}, digest={self.digest[:12]}...)"

    @classmethod
    def of(cls, states: Any) -> KeptSet:
        """The kept set of ``states``: rows of a 2-D integer array, or a sequence of hashable states
        (repeated states count once).

        Parameters
        ----------
        states : int array of shape (m, d), or sequence of hashable

        Returns
        -------
        KeptSet

        Examples
        --------
        >>> KeptSet.of(np.array([[0, 1], [0, 1], [2, 0]])).count
        2
        """
        if isinstance(states, np.ndarray) and states.ndim == 2 and states.dtype.kind in "iu":
            rows = np.ascontiguousarray(states, dtype=np.int64)
            rows = rows[np.lexsort(rows.T[::-1])] if len(rows) else rows
            distinct = np.ones(len(rows), dtype=bool)
            distinct[1:] = np.any(rows[1:] != rows[:-1], axis=1)
            rows = np.ascontiguousarray(rows[distinct])
            digest = hashlib.sha256(f"lattice {rows.shape[1]}:".encode())
            digest.update(rows.astype("<i8").tobytes())
            return cls(len(rows), digest.hexdigest())
        try:
            labels = sorted({repr(state) for state in dict.fromkeys(states)})
        except TypeError:
            raise InvalidParameterError("states", states, "must be a 2-D integer array or a sequence of hashable "
                                                          "states") from None
        digest = hashlib.sha256(b"labels:")
        for label in labels:
            text = label.encode()
            digest.update(len(text).to_bytes(8, "little") + text)
        return cls(len(labels), digest.hexdigest())


@dataclass(frozen=True)
class Drift:
    """A checked Foster–Lyapunov drift condition: ``GV <= inside`` on the kept set, ``GV <= -outside``
    on every state outside it (theorem (i) of :mod:`analytic.ctmc.truncation`).

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
        return min(1.0, self.inside / (self.inside + self.outside) * (1 + 4 * _UNIT))

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
        return r * self.inside * (1 + 4 * _UNIT)


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
    return total + _rounding(len(checked)) * magnitude + 2.0**-1070


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
        for target, rate in _yielded(transitions, state):
            value = float(lyapunov(target))
            if not (math.isfinite(value) and value >= 0):
                raise InvalidParameterError("lyapunov", value, f"must be finite and >= 0 (at state {target!r})")
            term = rate * (value - base)
            total += term
            magnitude += abs(term)
            count += 1
        inside = max(inside, total + _rounding(count) * magnitude)
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
        bound = total + _rounding(2 * count + 8) * magnitude
        if bound > worst:
            worst, worst_phase = bound, phase
    if not worst < 0:
        raise InvalidParameterError("theta", theta, f"gives D = {worst:.3g} >= 0 at phase {worst_phase!r}: the drift above "
                                                    "the kept levels is not negative; lower θ or change the weights")
    exponent = t * (level + 1)
    outside = math.exp(exponent) * -worst * (1 - 8 * _UNIT) if exponent < 709 else math.inf
    if math.isinf(outside):
        raise InvalidParameterError("level", level, f"makes e^(θ level) overflow at θ = {t:g}: lower θ")
    return Drift(kept_inside, outside, f"GV = e^(θ ℓ) D(phase) with D < 0 checked on each of the {len(phases)} phases above "
                                       f"level {level} (θ = {t:.6g}); the transitions there do not depend on the level: "
                                       f"{invariance}", kept=kept)


# ---------------------------------------------------------------------------------------------
# The truncated chain
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class TruncatedChain:
    """A finite set of kept states with their rates, the rates leaving it, and the states outside
    that jump into it.

    Attributes
    ----------
    states : numpy.ndarray or list
        The kept states (rows of an integer array, or hashable labels).
    kept : scipy.sparse.csr_array
        Off-diagonal rates between kept states.
    exits : numpy.ndarray
        Per kept state, the total rate of its jumps out of the kept set.
    boundary : numpy.ndarray or list
        States outside with a jump into the kept set.
    entries : scipy.sparse.csr_array
        ``entries[b, j]``: rate from boundary state ``b`` into kept state ``j``.
    reference : int
        Index of ``z``, where the truncated chain ``Q^z`` sends every jump that leaves.

    Examples
    --------
    >>> step = lambda x: [(x + 1, 1.0), (x - 1, 2.0 * (x > 0))]
    >>> chain = truncate_function(list(range(5)), step, [5], 0)
    >>> chain.exits.tolist(), chain.boundary
    ([0.0, 0.0, 0.0, 0.0, 1.0], [5])
    """

    states: Any
    kept: sp.csr_array
    exits: np.ndarray
    boundary: Any
    entries: sp.csr_array
    reference: int
    _lookup: Callable[[Any], np.ndarray] = field(repr=False, compare=False)

    def __repr__(self) -> str:
        return (f"TruncatedChain(kept={len(self.exits):,}, boundary={self.entries.shape[0]:,}, "
                f"exit rate at most {float(self.exits.max(initial=0)):.3g})")

    @property
    def n_kept(self) -> int:
        """The number of kept states."""
        return len(self.exits)

    @cached_property
    def fingerprint(self) -> KeptSet:
        """The kept set (a ``KeptSet``) a :class:`Drift` for this chain must have been checked for."""
        return KeptSet.of(self.states)

    def generator(self) -> sp.csr_array:
        """``Q^z``: the kept rates, every exit redirected to the reference state.

        Returns
        -------
        scipy.sparse.csr_array
            The off-diagonal rates of ``Q^z`` (the diagonal is left to :class:`~analytic.ctmc.CTMC`).

        Examples
        --------
        >>> moves = [((1,), lambda X: np.ones(len(X))), ((-1,), lambda X: 2.0 * (X[:, 0] > 0))]
        >>> chain = truncate_lattice(np.arange(3)[:, None], moves, lambda X: X[:, 0] >= 0, (0,))
        >>> chain.generator().toarray().tolist()       # the jump 2 -> 3 lands on 0
        [[0.0, 1.0, 0.0], [2.0, 0.0, 1.0], [1.0, 2.0, 0.0]]
        """
        n = self.n_kept
        leaving = np.flatnonzero(self.exits > 0)
        redirect = sp.csr_array((self.exits[leaving], (leaving, np.full(len(leaving), self.reference))), shape=(n, n))
        return (self.kept + redirect).tocsr()



def truncate_lattice(kept: np.ndarray, moves: Sequence, feasible: Callable[[np.ndarray], np.ndarray],
                     reference: Sequence[int]) -> TruncatedChain:
    """The truncated chain of a lattice chain on a finite set of kept states.

    Parameters
    ----------
    kept : int array, shape (m, d)
        The kept states, distinct rows.
    moves : sequence of (displacement, rate)
        As in :meth:`CTMC.from_lattice`, but ``rate`` must also be valid on states outside the
        kept set (it is called on the states that jump into it).
    feasible : callable
        ``feasible(X)``: which rows are states of the chain (nonnegative rows are tested): the
        states outside that jump into the kept set are found by moving backwards from it and
        keeping the feasible ones with a positive rate.
    reference : sequence of int
        The kept state ``z`` that receives the jumps leaving the kept set.

    Returns
    -------
    TruncatedChain

    Raises
    ------
    InvalidParameterError
        Repeated or negative kept states, a reference that is not kept, a positive rate to an
        infeasible state.

    Examples
    --------
    >>> moves = [((1,), lambda X: np.ones(len(X))), ((-1,), lambda X: 2.0 * (X[:, 0] > 0))]
    >>> truncate_lattice(np.arange(5)[:, None], moves, lambda X: X[:, 0] >= 0, (0,))
    TruncatedChain(kept=5, boundary=1, exit rate at most 1)
    """
    states = np.asarray(kept)
    if states.ndim != 2 or not len(states) or states.dtype.kind not in "iu" or np.any(states < 0):
        raise InvalidParameterError("kept", getattr(states, "shape", states), "must be a non-empty 2-D array of integer "
                                                                            "states >= 0")
    states = states.astype(np.int64)
    d = states.shape[1]
    checked = validate_moves(moves, d)
    if not callable(feasible):
        raise InvalidParameterError("feasible", feasible, "must be a function of the state array")
    reach = max((int(np.abs(disp).max()) for disp, _ in checked), default=0)
    low = states.min(axis=0) - reach
    size = states.max(axis=0) - low + reach + 1
    ranks = np.ravel_multi_index(tuple((states - low).T), tuple(size))
    order = np.argsort(ranks)
    sorted_ranks = ranks[order]
    if np.any(np.diff(sorted_ranks) == 0):
        raise InvalidParameterError("kept", "repeated rows", "must list each kept state once")

    def lookup(X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.int64).reshape(-1, d)
        inside = np.all((X >= low) & (X < low + size), axis=1)
        out = np.full(len(X), -1, dtype=np.int64)
        if inside.any():
            r = np.ravel_multi_index(tuple((X[inside] - low).T), tuple(size))
            pos = np.minimum(np.searchsorted(sorted_ranks, r), len(sorted_ranks) - 1)
            hit = sorted_ranks[pos] == r
            out[np.flatnonzero(inside)[hit]] = order[pos[hit]]
        return out

    point = np.asarray(reference)
    z = int(lookup(point.reshape(1, d))[0]) if point.shape == (d,) and point.dtype.kind in "iu" else -1
    if z < 0:
        raise InvalidParameterError("reference", reference, "must be one of the kept states")
    n = len(states)
    rows, cols, rates = [], [], []
    exits = np.zeros(n)
    b_states, b_cols, b_rates = [], [], []
    for m, (displacement, rate) in enumerate(checked):
        r = vector_result(rate(states), n, f"rate of move {m}")
        check_rates(r, f"rate of move {m}", lambda i: f"at state {states[i].tolist()}")
        source = np.flatnonzero(r > 0)
        targets = states[source] + displacement
        position = lookup(targets)
        inner = position >= 0
        rows.append(source[inner])
        cols.append(position[inner])
        rates.append(r[source[inner]])
        leaving = source[~inner]
        if len(leaving):
            outside = targets[~inner]
            ok = np.all(outside >= 0, axis=1)
            ok[ok] = np.asarray(feasible(outside[ok]), dtype=bool)
            if not ok.all():
                bad = int(np.flatnonzero(~ok)[0])
                raise InvalidParameterError(f"rate of move {m}", r[leaving[bad]],
                                            f"is positive at state {states[leaving[bad]].tolist()} but leads to "
                                            f"{outside[bad].tolist()}, which is not a feasible state")
            np.add.at(exits, leaving, r[leaving])
        # backwards: states outside that reach a kept state by this move
        origin = states - displacement
        candidate = np.all(origin >= 0, axis=1)
        candidate[candidate] = lookup(origin[candidate]) < 0
        if candidate.any():
            idx = np.flatnonzero(candidate)
            ok = np.asarray(feasible(origin[idx]), dtype=bool)
            idx = idx[ok]
            if len(idx):
                back = vector_result(rate(origin[idx]), len(idx), f"rate of move {m}")
                sources = origin[idx]
                check_rates(back, f"rate of move {m}", lambda i, sources=sources: f"at state {sources[i].tolist()}")
                positive = back > 0
                b_states.append(origin[idx[positive]])
                b_cols.append(idx[positive])
                b_rates.append(back[positive])
    kept_rates = sp.csr_array((np.concatenate(rates), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n))
    kept_rates.sum_duplicates()
    if b_states:
        all_b = np.concatenate(b_states)
        boundary, b_row = np.unique(all_b, axis=0, return_inverse=True)
        entries = sp.csr_array((np.concatenate(b_rates), (b_row.ravel(), np.concatenate(b_cols))),
                               shape=(len(boundary), n))
        entries.sum_duplicates()
    else:
        boundary, entries = np.zeros((0, d), dtype=np.int64), sp.csr_array((0, n))
    return TruncatedChain(states, kept_rates, exits, boundary, entries, z, lookup)


def truncate_function(kept: Sequence[Hashable], transitions: Callable[[Any], Iterable[tuple[Hashable, float]]],
                      boundary: Iterable[Hashable], reference: Hashable) -> TruncatedChain:
    """The truncated chain of a chain given by a transition function, on a finite set of kept states.

    Parameters
    ----------
    kept : sequence of hashable
        The kept states.
    transitions : callable
        ``transitions(state)`` yields ``(next_state, rate)`` pairs, as in :meth:`CTMC.from_function`;
        it is called on the kept states and on the boundary states.
    boundary : iterable of hashable
        States outside the kept set that *include every state with a jump into it* (the caller's
        hypothesis: a state left out of it makes the bounds wrong). States listed that are kept
        raise an error; states without a jump into the kept set are dropped.
    reference : hashable
        The kept state ``z``.

    Returns
    -------
    TruncatedChain

    Examples
    --------
    >>> step = lambda x: [(x + 1, 1.0), (x - 1, 2.0 * (x > 0))]
    >>> truncate_function(list(range(5)), step, [5], 0)
    TruncatedChain(kept=5, boundary=1, exit rate at most 1)
    """
    states = list(kept)
    index: dict = {}
    for i, s in enumerate(states):
        try:
            if s in index:
                raise InvalidParameterError("kept", s, "must list each kept state once")
            index[s] = i
        except TypeError:
            raise InvalidParameterError("kept", s, "must be hashable states") from None
    if not states:
        raise InvalidParameterError("kept", kept, "must hold at least one state")
    try:
        z = index[reference]
    except (KeyError, TypeError):
        raise InvalidParameterError("reference", reference, "must be one of the kept states") from None
    n = len(states)
    rows, cols, rates = [], [], []
    exits = np.zeros(n)
    for i, s in enumerate(states):
        for target, rate in _yielded(transitions, s):
            j = index.get(target)
            if j is None:
                exits[i] += rate
            elif j != i:
                rows.append(i)
                cols.append(j)
                rates.append(rate)
    outside, b_rows, b_cols, b_rates = [], [], [], []
    seen = set()
    for y in boundary:
        if y in index:
            raise InvalidParameterError("boundary", y, "is a kept state; the boundary lists states outside the kept set")
        if y in seen:
            continue
        seen.add(y)
        into = [(index[t], rate) for t, rate in _yielded(transitions, y) if t in index]
        if into:
            for j, rate in into:
                b_rows.append(len(outside))
                b_cols.append(j)
                b_rates.append(rate)
            outside.append(y)
    kept_rates = sp.csr_array((np.array(rates, dtype=float), (np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64))),
                              shape=(n, n))
    kept_rates.sum_duplicates()
    entries = sp.csr_array((np.array(b_rates, dtype=float), (np.array(b_rows, dtype=np.int64),
                                                              np.array(b_cols, dtype=np.int64))), shape=(len(outside), n))
    entries.sum_duplicates()

    def lookup(values: Any) -> np.ndarray:
        return np.array([index.get(v, -1) for v in values], dtype=np.int64)

    return TruncatedChain(states, kept_rates, exits, outside, entries, z, lookup)


def _yielded(transitions: Callable, state: Any) -> Iterable[tuple[Hashable, float]]:
    """The positive-rate transitions of ``state``, validated."""
    try:
        pairs = list(transitions(state))
    except (InvalidParameterError, ConvergenceError):
        raise
    except Exception as exc:
        raise InvalidParameterError("transitions", state, f"failed on this state ({type(exc).__name__}: {exc})") from exc
    for target, rate in pairs:
        if isinstance(rate, complex | np.complexfloating) or not rate >= 0 or not math.isfinite(rate):
            raise InvalidParameterError("rate", rate, f"must be real, finite and >= 0 (from state {state!r} to {target!r})")
        if rate > 0:
            yield target, float(rate)


# ---------------------------------------------------------------------------------------------
# (ii) Hitting times of the reference state
# ---------------------------------------------------------------------------------------------


def hitting_time_bound(generator: sp.csr_array, reference: int, states: Any = None) -> np.ndarray:
    """A proven upper bound on the mean time ``m_j = E_j σ_z`` to reach ``z`` from each state of a
    finite irreducible chain (``m_z = 0``).

    Solves ``(-Q)_{K'K'} w = 1`` (a little more) on ``K' = K \\ {z}`` and checks ``(-Q w)_i >= 1`` on every row with
    a bound on the rounding; ``-Q_{K'K'}`` is a nonsingular M-matrix, so a checked ``w >= 0`` is
    ``>= m`` (theorem (ii)). A ``w`` that falls short by less than half is scaled up by what each
    row lacks, with room for the rounding of the scaled ``w`` itself, and checked again.

    Parameters
    ----------
    generator : scipy.sparse.csr_array
        Off-diagonal rates (a diagonal is ignored).
    reference : int
        Index of ``z``.
    states : sequence, optional
        The states of the rows, to name one in an error message.

    Returns
    -------
    numpy.ndarray
        ``w >= m``, with ``w_z = 0``.

    Raises
    ------
    ConvergenceError
        No ``w`` was verified in four rounds (the chain is too ill-conditioned for double
        precision); the message gives the row that fell short and by how much.

    Examples
    --------
    Two states, rates 1 and 3: from state 1 the time to reach 0 is 1/3.

    >>> hitting_time_bound(sp.csr_array([[0.0, 1.0], [3.0, 0.0]]), 0).tolist()[0]
    0.0
    >>> bool(1 / 3 <= hitting_time_bound(sp.csr_array([[0.0, 1.0], [3.0, 0.0]]), 0)[1] < 0.67)
    True
    """
    rates = sp.csr_array(generator, dtype=float)
    rates.setdiag(0)
    rates.eliminate_zeros()
    n = rates.shape[0]
    if n == 1:
        return np.zeros(1)
    others = np.flatnonzero(np.arange(n) != reference)
    outflow = np.asarray(rates.sum(axis=1)).ravel()
    inner = rates[others][:, others]
    matrix = (sp.diags_array(outflow[others]) - inner).tocsc()
    rhs = np.full(len(others), 1.0 + 2.0**-20)
    solve = _factor(matrix)
    w = np.zeros(n)
    w[others] = np.maximum(solve(rhs), 0.0)
    for _ in range(_HITTING_ROUNDS):
        lower, kept = _supplied_lower(rates, w)
        lower[reference] = kept[reference] = np.inf
        least = float(lower.min())
        if least >= 1:
            return w
        worst = float(kept.min())
        if worst > 0.5:
            w = w * ((1 + 16 * _UNIT) / worst)
            w[reference] = 0.0
            continue
        correction = solve(np.maximum(rhs - lower[others], 0.0) + 1.0)
        w[others] = w[others] + np.maximum(correction, 0.0)
    row = int(np.argmin(lower))
    where = f"state {states[row]!r}" if states is not None else f"row {row}"
    rounding = float(np.max(lower[others] - kept[others]))
    raise ConvergenceError(f"no upper bound on the mean hitting times of the reference state was verified in "
                           f"{_HITTING_ROUNDS} rounds: it needs w with (-Q w) >= 1 at every state but the reference, and "
                           f"at {where} the last w gave {least:.12g} (short by {1 - least:.3g}); with hitting times up to "
                           f"{float(w.max()):.3g}, the rounding of the check and of w moves a row by up to {rounding:.3g}: "
                           "near 1, the truncated chain is too ill-conditioned for double precision (a reference state "
                           "nearer the bulk of the law has shorter hitting times)")


def _supplied_lower(rates: sp.csr_array, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each row, a lower bound on ``(-Q w)_i = Σ_j q_ij (w_i - w_j)``, rounding included, and
    what is left of it for ``w`` scaled by any factor ``a`` and rounded, divided by ``a``: the
    rounding of the check counted twice more and the rounding of each scaled entry of ``w``
    (relative ``2^-53``, so at most ``2^-53 Σ_j q_ij (w_i + w_j)`` on the row)."""
    coo = rates.tocoo()
    terms = coo.data * (w[coo.row] - w[coo.col])
    n = rates.shape[0]
    total = np.bincount(coo.row, weights=terms, minlength=n)
    magnitude = np.bincount(coo.row, weights=np.abs(terms), minlength=n)
    spread = np.bincount(coo.row, weights=coo.data * (w[coo.row] + w[coo.col]), minlength=n)
    row_length = np.diff(rates.indptr)
    lengths, position = np.unique(row_length, return_inverse=True)
    slack = np.array([_rounding(int(k)) for k in lengths])[position] * magnitude
    lower = total - slack - 2.0**-1070
    return lower, lower - 2 * slack - 4 * _UNIT * spread


def _factor(matrix: sp.csc_array) -> Callable[[np.ndarray], np.ndarray]:
    """A solver for the M-matrix of the hitting times: SuperLU, or GMRES with ILU when that fails."""
    try:
        lu = spla.splu(matrix, permc_spec="COLAMD")
        return lu.solve
    except (MemoryError, RuntimeError):
        ilu = spla.spilu(matrix, drop_tol=1e-6, fill_factor=5)
        preconditioner = spla.LinearOperator(matrix.shape, ilu.solve)

        def iterate(rhs: np.ndarray) -> np.ndarray:
            x, _ = spla.gmres(matrix, rhs, M=preconditioner, rtol=1e-12, restart=50, maxiter=200)
            return x
        return iterate


# ---------------------------------------------------------------------------------------------
# (iii) The result and its intervals
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class Truncation:
    """A truncated stationary solve and what it vouches for (theorem of :mod:`analytic.ctmc.truncation`).

    Attributes
    ----------
    law : Stationary
        ``ν``, the stationary law of ``Q^z`` (exits sent to the reference state), with its proven
        per-state accuracy.
    neglected_mass : float
        ``ε >= π(S \\ K)``, from the drift condition.
    entry_cost : float
        ``κ = max_{y ∉ K} Σ_j q(y, j) m_j``: how much the stationary flow into ``K`` can move the
        law on ``K``, per unit of neglected mass.
    hitting_times : numpy.ndarray or None
        The checked upper bounds ``m_j`` on the mean time to reach the reference state (None when
        no state outside jumps into the kept set: then ``κ = 0`` and they are not needed).
    drift : Drift
        The checked drift condition behind ``neglected_mass``.
    chain : TruncatedChain
        The kept set and its rates.

    Examples
    --------
    >>> step = lambda x: [(x + 1, 1.0), (x - 1, 2.0 * (x > 0))]          # M/M/1, λ = 1, μ = 2
    >>> chain = truncate_function(list(range(41)), step, [41], 0)
    >>> inside = function_drift_inside(range(41), step, lambda x: 1.5 ** x)
    >>> drift = level_drift([0], lambda p: [(0, 1, 1.0), (0, -1, 2.0)], math.log(1.5), np.ones(1), 40, inside, "M/M/1",
    ...                     kept=chain)
    >>> result = solve_truncated(chain, drift)
    >>> result.neglected_mass < 1e-6, result.law.accuracy <= 1e-10
    (True, True)
    """

    law: Stationary
    neglected_mass: float
    entry_cost: float
    hitting_times: np.ndarray
    drift: Drift
    chain: TruncatedChain

    def __repr__(self) -> str:
        return (f"Truncation(kept={self.chain.n_kept:,}, neglected_mass={self.neglected_mass:.3g}, "
                f"entry_cost={self.entry_cost:.3g}, law accuracy={self.law.accuracy:.2g})")

    @property
    def states(self) -> Any:
        """The kept states (those of :attr:`chain`)."""
        return self.chain.states

    def _values(self, reward: Any) -> np.ndarray:
        """``reward`` on the kept states: an array aligned with them, or a function (of the state
        array for lattice chains, of one state otherwise)."""
        states = self.chain.states
        if callable(reward):
            if isinstance(states, np.ndarray):
                values = vector_result(reward(states), len(states), "reward")
            else:
                values = np.fromiter((reward(s) for s in states), dtype=float, count=len(states))
        else:
            values = vector_result(reward, self.chain.n_kept, "reward")
        if not np.all(np.isfinite(values)):
            raise InvalidParameterError("reward", values[~np.isfinite(values)][0], "must be finite on the kept states")
        return values

    def _law_interval(self, values: np.ndarray) -> tuple[float, float]:
        """``[ν_lo, ν_hi] ∋ ν(f)`` from the per-state bounds of the truncated law (rounding included)."""
        base = float(values.min())
        shifted = values - base
        pi = self.law.probabilities
        bounds = self.law.error_bounds
        vouched = np.isfinite(bounds) & (bounds < 1)
        low_terms = pi[vouched] * (1 - bounds[vouched]) * shifted[vouched]
        high_terms = pi[vouched] * (1 + bounds[vouched]) * shifted[vouched]
        # the states without a bound hold at most what the vouched ones leave of the total 1
        lost = 0.0 if vouched.all() else max(0.0, 1.0 - math.fsum(pi[vouched] * (1 - bounds[vouched])) * (1 - 8 * _UNIT))
        spread = float(shifted.max())
        low = math.fsum(low_terms) * (1 - 8 * _UNIT)
        high = math.fsum(high_terms) * (1 + 8 * _UNIT) + lost * spread
        return base + low - abs(base) * 4 * _UNIT, base + high + abs(base) * 4 * _UNIT

    def interval(self, reward: Any, low: float | None = None, high: float | None = None,
                 outside: tuple[float, float] | None = None) -> tuple[float, float]:
        """An interval that contains ``π(f)``, the exact stationary expectation of ``f``.

        Parameters
        ----------
        reward : array or callable
            ``f`` on the kept states: an array aligned with them, or a function (of the state array for
            lattice chains, of one state otherwise).
        low, high : float, optional
            Bounds of ``f`` on *every* state of the chain (outside the kept set too); they bound its
            contribution outside by ``[low δ, high δ]``. Required unless ``outside`` is given.
        outside : (float, float), optional
            An interval for ``π(f 1_{S \\ K})`` itself (e.g. from :meth:`Drift.outside_expectation`
            for an unbounded reward); then ``f`` need only be bounded on the kept set.

        Returns
        -------
        (float, float)

        Raises
        ------
        InvalidParameterError
            Neither bounds nor ``outside``, or values on the kept states outside ``[low, high]``.

        Examples
        --------
        The M/M/1 queue of :class:`Truncation` (λ = 1, μ = 2): ``P(X = 0) = 1/2``, and
        ``E[min(X, 10)] = 1 - 2^-10``:

        >>> step = lambda x: [(x + 1, 1.0), (x - 1, 2.0 * (x > 0))]
        >>> chain = truncate_function(list(range(41)), step, [41], 0)
        >>> inside = function_drift_inside(range(41), step, lambda x: 1.5 ** x)
        >>> drift = level_drift([0], lambda p: [(0, 1, 1.0), (0, -1, 2.0)], math.log(1.5), np.ones(1), 40, inside,
        ...                     "M/M/1", kept=chain)
        >>> result = solve_truncated(chain, drift)
        >>> low, high = result.interval(lambda x: 1.0 * (x == 0), 0.0, 1.0)
        >>> bool(low <= 0.5 <= high), high - low < 1e-5
        (True, True)
        >>> low, high = result.interval(lambda x: min(x, 10.0), 0.0, 10.0)
        >>> bool(low <= 1 - 2.0**-10 <= high), high - low < 1e-4
        (True, True)
        """
        f = self._values(reward)
        a_k, b_k = float(f.min()), float(f.max())
        if outside is None:
            if low is None or high is None:
                raise InvalidParameterError("low", low, "and high must bound the reward on every state (or give outside=)")
            low_value, high_value = real("low", low), real("high", high)
            if not low_value <= a_k <= b_k <= high_value:
                raise InvalidParameterError("reward", (a_k, b_k), f"must lie within [low, high] = [{low_value}, {high_value}] "
                                                                  "on the kept states")

            def extra(delta: float, upper: bool) -> float:
                return (high_value if upper else low_value) * delta
        else:
            if not (isinstance(outside, tuple | list) and len(outside) == 2):
                raise InvalidParameterError("outside", outside, "must be a pair (low, high) bounding π(f 1_(S \\ K))")
            o_low, o_high = (real("outside", v) for v in outside)
            if not o_low <= o_high:
                raise InvalidParameterError("outside", outside, "must be an interval (low <= high)")

            def extra(delta: float, upper: bool) -> float:
                return o_high if upper else o_low
            low_value, high_value = -math.inf, math.inf
        nu_low, nu_high = self._law_interval(f)
        nu_low, nu_high = max(nu_low, a_k), min(nu_high, b_k)        # ν is a law on K: a_K <= ν(f) <= b_K
        eps, kappa = self.neglected_mass, self.entry_cost
        lows, highs = [], []
        for nu in (nu_low, nu_high):
            for delta in (0.0, eps):
                mass = delta * kappa
                lows.append((1 - delta) * nu + (a_k - nu) * mass + extra(delta, False))
                highs.append((1 - delta) * nu + (b_k - nu) * mass + extra(delta, True))
        lower, upper = min(lows), max(highs)
        # the rounding of each corner: relative to its terms, (1 - δ) ν, (f - ν) δ κ and the part outside
        outer = max(abs(extra(eps, False)), abs(extra(eps, True)))
        slack = 16 * _UNIT * (abs(lower) + abs(upper) + (abs(a_k) + abs(b_k)) * eps * (1 + kappa) + outer)
        return max(low_value, lower - slack), min(high_value, upper + slack)


def solve_truncated(chain: TruncatedChain, drift: Drift, tolerance: float = ACCURACY, method: str = "auto") -> Truncation:
    """Solve a truncated chain and bound what the truncation leaves out (module docstring).

    Parameters
    ----------
    chain : TruncatedChain
        From :func:`truncate_lattice` or :func:`truncate_function`.
    drift : Drift
        The checked drift condition for this kept set (:func:`lattice_drift`, :func:`level_drift`),
        or :meth:`Drift.nothing_left_out` when the kept set is the whole chain (then the chain must
        have no exits).
    tolerance, method : float, str
        Passed to :meth:`CTMC.stationary` for the truncated chain ``Q^z``.

    Returns
    -------
    Truncation

    Raises
    ------
    ReducibleChainError
        ``Q^z`` is not irreducible (some kept state cannot be reached from the reference without
        leaving the kept set): keep a connected set.
    InvalidParameterError
        A drift checked for another kept set than the chain's, or for none (the message gives
        both sizes); a kept set with exits declared to be the whole chain.
    ConvergenceError
        The mean hitting times of the reference state could not be bounded in double precision
        (``hitting_time_bound``).

    Examples
    --------
    An M/M/1/500 queue (λ = 1, μ = 2) kept at 0..30; ``V = 1.9^x`` has ``GV < 0`` above 0:

    >>> moves = [((1,), lambda X: 1.0 * (X[:, 0] < 500)), ((-1,), lambda X: 2.0 * (X[:, 0] > 0))]
    >>> chain = truncate_lattice(np.arange(31)[:, None], moves, lambda X: X[:, 0] <= 500, (0,))
    >>> drift = lattice_drift([np.arange(501)[:, None]], moves, lambda X: 1.9 ** X[:, 0], chain)
    >>> solve_truncated(chain, drift).neglected_mass < 1e-7
    True
    """
    if not isinstance(chain, TruncatedChain):
        raise InvalidParameterError("chain", chain, "must be a TruncatedChain (truncate_lattice, truncate_function)")
    if not isinstance(drift, Drift):
        raise InvalidParameterError("drift", drift, "must be a Drift (lattice_drift, level_drift, Drift.nothing_left_out)")
    if math.isinf(drift.outside):
        if chain.exits.any() or chain.entries.nnz:
            raise InvalidParameterError("drift", drift, "says nothing is left out, but the kept set has jumps leaving it")
    elif drift.kept is None:
        raise InvalidParameterError("drift", drift, "does not say which kept set it was checked for: build it for this "
                                                    "chain (lattice_drift(..., chain), level_drift(..., kept=chain))")
    elif drift.kept != chain.fingerprint:
        raise InvalidParameterError("drift", drift.kept, f"was checked for a kept set of {drift.kept.count:,} states, not "
                                                         f"for this chain's {chain.n_kept:,} (KeptSet digests "
                                                         f"{drift.kept.digest[:12]} and {chain.fingerprint.digest[:12]}): "
                                                         "its bound on the mass left out holds for that set only")
    markov = CTMC(chain.generator())
    law = markov.stationary(method=method, reference=chain.reference, tolerance=tolerance)
    hitting, kappa = None, 0.0
    if chain.entries.nnz:
        hitting = hitting_time_bound(markov.generator, chain.reference, chain.states)
        coo = chain.entries.tocoo()
        terms = coo.data * hitting[coo.col]
        per_state = np.bincount(coo.row, weights=terms, minlength=chain.entries.shape[0])
        kappa = float(per_state.max()) * (1 + _rounding(int(np.diff(chain.entries.indptr).max())))
    return Truncation(law, drift.neglected_mass, kappa, hitting, drift, chain)
