"""State spaces of a :class:`~analytic.ctmc.CTMC`: how states are stored, looked up, enumerated and
mapped to rewards, and the checks of the rates and moves that build them."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

import numpy as np

from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.validation import numeric_array, real_array

__all__ = ["ExplicitSpace", "LatticeSpace", "check_rates", "enumerate_lower_set", "plain", "raise_leaves_space",
           "validate_moves", "validate_upper", "vector_result"]

class ExplicitSpace:
    """States as a list of hashable objects, looked up through a dict."""

    def __init__(self, states: list, index: dict | None = None) -> None:
        self.states = states
        self._index = index if index is not None else {s: i for i, s in enumerate(states)}

    def __len__(self) -> int:
        return len(self.states)

    def index(self, state: Hashable, name: str = "state") -> int:
        try:
            return self._index[state]
        except (KeyError, TypeError):
            raise InvalidParameterError(name, state, "is not a state of this chain") from None

    def evaluate(self, function: Callable[[Any], float]) -> np.ndarray:
        """``function`` applied to each state."""
        return np.fromiter((function(s) for s in self.states), dtype=float, count=len(self))

    def subset(self, keep: np.ndarray) -> ExplicitSpace:
        return ExplicitSpace([self.states[i] for i in keep])


class LatticeSpace:
    """States as rows of an integer array, sorted by their mixed-radix rank."""

    def __init__(self, states: np.ndarray, upper: np.ndarray) -> None:
        self.states = states
        self.upper = upper
        self.strides = strides(upper)
        self.is_box = len(states) == int(np.prod(upper + 1))
        self.ranks = np.arange(len(states)) if self.is_box else states @ self.strides

    def __len__(self) -> int:
        return len(self.states)

    def positions(self, ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Indices of the states with the given ranks, and which of the ranks are states."""
        if self.is_box:
            return ranks, np.ones(ranks.shape, dtype=bool)
        pos = np.minimum(np.searchsorted(self.ranks, ranks), len(self.ranks) - 1)
        return pos, self.ranks[pos] == ranks

    def index(self, state: Sequence[int], name: str = "state") -> int:
        condition = f"must be an integer vector with 0 <= x <= {self.upper.tolist()}"
        x = numeric_array(name, state, condition)
        if x.shape != self.upper.shape or np.any(x < 0) or np.any(x > self.upper) or np.any(x != np.round(x)):
            raise InvalidParameterError(name, state, condition)
        pos, found = self.positions(np.array([x.astype(np.int64) @ self.strides]))
        if not found[0]:
            raise InvalidParameterError(name, state, "is not a state of this chain (infeasible)")
        return int(pos[0])

    def evaluate(self, function: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """``function`` applied once to the array of all states (one row each)."""
        return vector_result(function(self.states), len(self), "reward")

    def subset(self, keep: np.ndarray) -> LatticeSpace:
        return LatticeSpace(self.states[keep], self.upper)


def strides(upper: np.ndarray) -> np.ndarray:
    """Mixed-radix weights: the rank of x is x @ strides, the last coordinate varying fastest."""
    sizes = upper + 1
    return np.concatenate([np.cumprod(sizes[::-1])[::-1][1:], [1]]).astype(np.int64)


def vector_result(values: Any, n: int, what: str) -> np.ndarray:
    """A user function's output as a float vector of length n (scalars broadcast)."""
    array = real_array(what, values, " (one value per state)", allow_infinite=True)
    if array.ndim == 0:
        return np.full(n, float(array))
    if array.shape != (n,):
        raise InvalidParameterError(what, array, f"must return one value per state: shape ({n},), got {array.shape}")
    return array


def check_rates(rates: np.ndarray, what: str, where: Callable[[int], str]) -> None:
    """Raise for the first rate that is negative, NaN or infinite; ``where(i)`` locates entry i."""
    bad = ~(rates >= 0) | np.isinf(rates)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidParameterError(what, rates[i], f"must be real, finite and >= 0 ({where(i)})")


def plain(state: Any) -> Any:
    """A state for a message: lattice rows become lists."""
    return state.tolist() if isinstance(state, np.ndarray) else state


def validate_upper(upper: Sequence[int]) -> np.ndarray:
    bound = numeric_array("upper", upper, "must be a non-empty sequence of integers >= 0")
    if bound.ndim != 1 or bound.size == 0 or bound.dtype.kind not in "iu" or np.any(bound < 0):
        raise InvalidParameterError("upper", upper, "must be a non-empty sequence of integers >= 0")
    if np.prod((bound + 1).astype(float)) >= 2.0**62:
        raise InvalidParameterError("upper", upper, "the box 0 <= x <= upper must have fewer than 2**62 points")
    return bound.astype(np.int64)


def validate_moves(moves: Sequence, d: int) -> list[tuple[np.ndarray, Callable]]:
    if isinstance(moves, str | bytes | dict) or not isinstance(moves, Iterable):
        raise InvalidParameterError("moves", moves, "must be a sequence of (displacement, rate) pairs")
    checked = []
    for m, move in enumerate(moves):
        try:
            displacement, rate = move
        except (TypeError, ValueError):
            raise InvalidParameterError(f"moves[{m}]", move, "must be a (displacement, rate) pair") from None
        vector = np.asarray(displacement)
        if vector.shape != (d,) or vector.dtype.kind not in "iu" or not vector.any():
            raise InvalidParameterError(f"moves[{m}] displacement", displacement,
                                        f"must be a non-zero integer vector of length {d}")
        if not callable(rate):
            raise InvalidParameterError(f"moves[{m}] rate", rate, "must be a function of the state array")
        checked.append((vector.astype(np.int64), rate))
    return checked


def enumerate_lower_set(bound: np.ndarray, feasible: Callable, max_states: int) -> np.ndarray:
    """All lattice points where a downward-closed predicate holds, in rank order.

    Coordinates are added one at a time: for each feasible prefix (later coordinates zero), the
    feasible values of the next coordinate form an interval 0..m, found by raising the value while
    the predicate holds. Work is proportional to the number of feasible points, not the box.
    """
    d = len(bound)
    origin = np.zeros((1, d), dtype=np.int64)
    if not predicate(feasible, origin)[0]:
        raise InvalidParameterError("feasible", feasible, "must hold at the origin (the set must be downward closed)")
    states = origin
    for k in range(d):
        blocks = [states]
        total = len(states)
        active = states
        for value in range(1, bound[k] + 1):
            candidates = active.copy()
            candidates[:, k] = value
            active = candidates[predicate(feasible, candidates)]
            if not len(active):
                break
            total += len(active)
            if total > max_states:
                raise StateSpaceTooLargeError(total, max_states, "the feasible set", at_least=True)
            blocks.append(active)
        states = np.concatenate(blocks)
    ranks = states @ strides(bound)
    return states[np.argsort(ranks, kind="stable")]


def predicate(feasible: Callable, states: np.ndarray) -> np.ndarray:
    mask = np.asarray(feasible(states))
    if mask.shape != (len(states),) or mask.dtype != bool:
        raise InvalidParameterError("feasible", mask, f"must return a boolean array of shape ({len(states)},)")
    return mask


def raise_leaves_space(m: int, displacement: np.ndarray, state: np.ndarray,
                        feasible: Callable | None, outside: bool) -> None:
    target = state + displacement
    if outside:
        reason = "outside 0 <= x <= upper"
    elif feasible is not None and predicate(feasible, target[None, :])[0]:
        reason = "a feasible state never enumerated, so `feasible` is not downward closed"
    else:
        reason = "an infeasible state"
    raise InvalidParameterError(
        f"rate of move {m}", state.tolist(),
        f"is positive at this state but the move {displacement.tolist()} leads to {target.tolist()}, "
        f"{reason}; the rate must be 0 there")
