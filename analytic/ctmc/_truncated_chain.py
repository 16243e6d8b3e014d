"""The truncated chain of :mod:`analytic.ctmc.truncation`: the kept states, the jumps that leave them and the
states outside that jump in.

:func:`truncate_lattice` finds the states that enter ``K`` from the moves, backwards;
:func:`truncate_function` takes them from the caller. A :class:`KeptSet` names the set a drift
condition was checked for. The theorem these feed: :doc:`/truncation`.
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

from analytic.ctmc._rounding import gamma
from analytic.ctmc.spaces import check_rates, validate_moves, vector_result
from analytic.errors import ConvergenceError, InvalidParameterError

#: Relative rounding of one double operation.
UNIT = 2.0**-53


def rounding(terms: int) -> float:
    """A bound on the relative rounding error of a sum of ``terms`` products of two doubles
    (``γ_{k+2}`` of Higham, *Accuracy and Stability of Numerical Algorithms*, 2002, Lemma 3.1),
    with a margin."""
    k = terms + 3
    return gamma(k, margin=1.01)


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
        for target, rate in yielded(transitions, s):
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
        into = [(index[t], rate) for t, rate in yielded(transitions, y) if t in index]
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


def yielded(transitions: Callable, state: Any) -> Iterable[tuple[Hashable, float]]:
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
