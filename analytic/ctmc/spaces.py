"""State spaces of a :class:`~analytic.ctmc.CTMC`: how states are stored, looked up, enumerated and
mapped to rewards, and the checks of the rates and moves that build them."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

import numpy as np

from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.validation import numeric_array, real_array, user_code

__all__ = ["ExplicitSpace", "LatticeSpace", "check_rates", "enumerate_lower_set", "plain", "raise_leaves_space",
           "validate_moves", "validate_upper", "vector_result"]

class ExplicitSpace:
    """States as a list of hashable objects, looked up through a dict.

    Parameters
    ----------
    states : list
        The states, distinct and hashable, in index order.
    index : dict, optional
        The map from each state to its position, if already built (default: built here).

    Examples
    --------
    >>> space = ExplicitSpace(["idle", "busy"])
    >>> len(space), space.index("busy")
    (2, 1)
    """

    def __init__(self, states: list, index: dict | None = None) -> None:
        self.states = states
        self._index = index if index is not None else {s: i for i, s in enumerate(states)}

    def __len__(self) -> int:
        return len(self.states)

    def index(self, state: Hashable, name: str = "state") -> int:
        """Position of ``state``.

        Parameters
        ----------
        state : hashable
            A state.
        name : str
            The parameter's name, for the message.

        Returns
        -------
        int
            Its index.

        Raises
        ------
        InvalidParameterError
            ``state`` is not one of the states (or is not hashable).

        Examples
        --------
        >>> ExplicitSpace(["idle", "busy"]).index("off")
        Traceback (most recent call last):
        ...
        analytic.errors.InvalidParameterError: state = 'off': is not a state of this chain
        """
        try:
            return self._index[state]
        except (KeyError, TypeError):
            raise InvalidParameterError(name, state, "is not a state of this chain") from None

    def evaluate(self, function: Callable[[Any], float]) -> np.ndarray:
        """``function`` applied to each state.

        Parameters
        ----------
        function : callable
            ``function(state)`` returns a real number.

        Returns
        -------
        numpy.ndarray
            One float per state.

        Examples
        --------
        >>> ExplicitSpace(["idle", "busy"]).evaluate(len).tolist()
        [4.0, 4.0]
        """
        return np.fromiter((function(s) for s in self.states), dtype=float, count=len(self))

    def subset(self, keep: np.ndarray) -> ExplicitSpace:
        """The space of the states at the positions ``keep``.

        Parameters
        ----------
        keep : numpy.ndarray
            Positions of the states to keep, in the order wanted.

        Returns
        -------
        ExplicitSpace
            A new space, indexed from 0.

        Examples
        --------
        >>> ExplicitSpace(["idle", "busy", "broken"]).subset(np.array([0, 2])).states
        ['idle', 'broken']
        """
        return ExplicitSpace([self.states[i] for i in keep])


class LatticeSpace:
    """States as rows of an integer array, sorted by their mixed-radix rank.

    Parameters
    ----------
    states : numpy.ndarray
        The states, shape (n, d), integers with ``0 <= x <= upper``, sorted by rank.
    upper : numpy.ndarray
        The upper bound of each coordinate, shape (d,).

    Examples
    --------
    The points of ``x_0 + x_1 <= 1`` in the box ``0 <= x <= (1, 1)``: not the whole box, so
    states are found by their ranks.

    >>> space = LatticeSpace(np.array([[0, 0], [0, 1], [1, 0]]), np.array([1, 1]))
    >>> space.is_box, space.ranks.tolist(), space.index((1, 0))
    (False, [0, 1, 2], 2)
    """

    def __init__(self, states: np.ndarray, upper: np.ndarray) -> None:
        self.states = states
        self.upper = upper
        self.strides = strides(upper)
        self.is_box = len(states) == int(np.prod(upper + 1))
        self.ranks = np.arange(len(states)) if self.is_box else states @ self.strides

    def __len__(self) -> int:
        return len(self.states)

    def positions(self, ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Indices of the states with the given ranks, and which of the ranks are states.

        Parameters
        ----------
        ranks : numpy.ndarray
            Mixed-radix ranks (``x @ strides``), integers.

        Returns
        -------
        positions : numpy.ndarray
            For each rank, the index of its state (meaningless where it is not a state).
        found : numpy.ndarray
            Boolean: whether each rank is the rank of a state.

        Examples
        --------
        In the set ``x_0 + x_1 <= 1`` of the box ``0 <= x <= (1, 1)``, rank 3 is ``(1, 1)``, not a
        state:

        >>> space = LatticeSpace(np.array([[0, 0], [0, 1], [1, 0]]), np.array([1, 1]))
        >>> positions, found = space.positions(np.array([2, 3]))
        >>> positions[found].tolist(), found.tolist()
        ([2], [True, False])
        """
        if self.is_box:
            return ranks, np.ones(ranks.shape, dtype=bool)
        pos = np.minimum(np.searchsorted(self.ranks, ranks), len(self.ranks) - 1)
        return pos, self.ranks[pos] == ranks

    def index(self, state: Sequence[int], name: str = "state") -> int:
        """Position of the integer vector ``state``.

        Parameters
        ----------
        state : sequence of int
            A lattice point ``0 <= x <= upper``.
        name : str
            The parameter's name, for the message.

        Returns
        -------
        int
            Its index.

        Raises
        ------
        InvalidParameterError
            ``state`` is not an integer vector in the box, or not a state (infeasible).

        Examples
        --------
        >>> space = LatticeSpace(np.array([[0, 0], [0, 1], [1, 0]]), np.array([1, 1]))
        >>> space.index((1, 1))
        Traceback (most recent call last):
        ...
        analytic.errors.InvalidParameterError: state = (1, 1): is not a state of this chain (infeasible)
        """
        condition = f"must be an integer vector with 0 <= x <= {self.upper.tolist()}"
        x = numeric_array(name, state, condition)
        if x.shape != self.upper.shape or np.any(x < 0) or np.any(x > self.upper) or np.any(x != np.round(x)):
            raise InvalidParameterError(name, state, condition)
        pos, found = self.positions(np.array([x.astype(np.int64) @ self.strides]))
        if not found[0]:
            raise InvalidParameterError(name, state, "is not a state of this chain (infeasible)")
        return int(pos[0])

    def evaluate(self, function: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """``function`` applied once to the array of all states (one row each).

        Parameters
        ----------
        function : callable
            ``function(X)`` takes the array of states, shape (n, d), and returns one real value
            per row (or a scalar, taken for every state).

        Returns
        -------
        numpy.ndarray
            One float per state.

        Raises
        ------
        InvalidParameterError
            The result does not have one value per state.

        Examples
        --------
        >>> space = LatticeSpace(np.array([[0, 0], [0, 1], [1, 0]]), np.array([1, 1]))
        >>> space.evaluate(lambda X: X.sum(axis=1)).tolist()
        [0.0, 1.0, 1.0]
        """
        return vector_result(function(self.states), len(self), "reward")

    def subset(self, keep: np.ndarray) -> LatticeSpace:
        """The space of the states at the positions ``keep``.

        Parameters
        ----------
        keep : numpy.ndarray
            Positions of the states to keep, increasing (so that the rows stay sorted by rank).

        Returns
        -------
        LatticeSpace
            A new space in the same box, indexed from 0.

        Examples
        --------
        >>> space = LatticeSpace(np.array([[0, 0], [0, 1], [1, 0]]), np.array([1, 1]))
        >>> space.subset(np.array([0, 2])).states.tolist()
        [[0, 0], [1, 0]]
        """
        return LatticeSpace(self.states[keep], self.upper)


def strides(upper: np.ndarray) -> np.ndarray:
    """Mixed-radix weights: the rank of x is x @ strides, the last coordinate varying fastest."""
    sizes = upper + 1
    return np.concatenate([np.cumprod(sizes[::-1])[::-1][1:], [1]]).astype(np.int64)


def vector_result(values: Any, n: int, what: str) -> np.ndarray:
    """A user function's output as a float vector of length n (scalars broadcast).

    Parameters
    ----------
    values : object
        The output: a real scalar or a sequence of n real numbers (``±inf`` allowed, NaN not);
        booleans count as 1 and 0 (the indicator of a set of states).
    n : int
        The number of states.
    what : str
        What the values are, for the message (e.g. ``"reward"``).

    Returns
    -------
    numpy.ndarray
        Shape (n,), floats.

    Raises
    ------
    InvalidParameterError
        ``values`` is not real, or not a scalar or n values.

    Examples
    --------
    >>> vector_result(2.0, 3, "reward").tolist()
    [2.0, 2.0, 2.0]
    >>> vector_result([1, 2], 3, "reward")
    Traceback (most recent call last):
    ...
    analytic.errors.InvalidParameterError: reward = [1., 2.]: must return one value per state: shape (3,), got (2,)
    """
    array = real_array(what, _indicator_as_numbers(values), " (one value per state)", allow_infinite=True)
    if array.ndim == 0:
        return np.full(n, float(array))
    if array.shape != (n,):
        raise InvalidParameterError(what, array, f"must return one value per state: shape ({n},), got {array.shape}")
    return array


def reward_values(space: Any, reward: Any, n: int) -> np.ndarray:
    """``reward`` as one finite value per state, as :meth:`Stationary.expected` reads it.

    Parameters
    ----------
    space : ExplicitSpace or LatticeSpace
        The chain's states.
    reward : array or callable
        One value per state (a scalar for every state), or a function: of the array of all states
        (lattice chains), of each state (other chains). Booleans count as 1 and 0: the indicator
        of a set of states.
    n : int
        The number of states.

    Returns
    -------
    numpy.ndarray
        Shape (n,).

    Raises
    ------
    InvalidParameterError
        Not one finite value per state, or the function fails.

    Examples
    --------
    >>> from analytic.ctmc.spaces import ExplicitSpace
    >>> reward_values(ExplicitSpace([0, 1, 2]), lambda x: x * x, 3).tolist()
    [0.0, 1.0, 4.0]
    >>> reward_values(ExplicitSpace([0, 1, 2]), [True, False, True], 3).tolist()
    [1.0, 0.0, 1.0]
    """
    if callable(reward):
        with user_code("reward", reward, "it must return one finite value per state"):
            values = space.evaluate(reward)
    else:
        values = vector_result(reward, n, "reward")
    if not np.all(np.isfinite(values)):
        bad = int(np.flatnonzero(~np.isfinite(values))[0])
        raise InvalidParameterError("reward", values[bad], f"must be finite (at state {plain(space.states[bad])!r})")
    return values


def _indicator_as_numbers(values: Any) -> Any:
    """Booleans (a scalar, an array or a sequence of them) as 1.0 and 0.0, as numpy counts them: a
    reward or a rate given as the indicator of a set of states. Anything else unchanged."""
    if isinstance(values, (bool, np.bool_, list, tuple, np.ndarray)):
        try:
            array = np.asarray(values)
        except ValueError:         # ragged: real_array says what is wrong
            return values
        if array.dtype == np.bool_:
            return array.astype(float)
    return values


def check_rates(rates: np.ndarray, what: str, where: Callable[[int], str]) -> None:
    """Raise for the first rate that is negative, NaN or infinite; ``where(i)`` locates entry i.

    Parameters
    ----------
    rates : numpy.ndarray
        The rates, floats.
    what : str
        Their name, for the message.
    where : callable
        ``where(i)``: a description of where entry i comes from, for the message.

    Raises
    ------
    InvalidParameterError
        A rate is negative, NaN or infinite.

    Examples
    --------
    >>> check_rates(np.array([1.0, -1.0]), "rate", lambda i: f"entry {i}")
    Traceback (most recent call last):
    ...
    analytic.errors.InvalidParameterError: rate = -1: must be real, finite and >= 0 (entry 1)
    """
    bad = ~(rates >= 0) | np.isinf(rates)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidParameterError(what, rates[i], f"must be real, finite and >= 0 ({where(i)})")


def plain(state: Any) -> Any:
    """A state for a message: lattice rows become lists.

    Parameters
    ----------
    state : object
        A state: a lattice row (numpy array) or any hashable label.

    Returns
    -------
    object
        ``state.tolist()`` for an array, ``state`` itself otherwise.

    Examples
    --------
    >>> plain(np.array([1, 2])), plain((1, 2))
    ([1, 2], (1, 2))
    """
    return state.tolist() if isinstance(state, np.ndarray) else state


def validate_upper(upper: Sequence[int]) -> np.ndarray:
    """The upper corner of a lattice box, checked.

    Parameters
    ----------
    upper : sequence of int
        The upper bound of each coordinate: a non-empty sequence of integers >= 0.

    Returns
    -------
    numpy.ndarray
        ``upper`` as int64.

    Raises
    ------
    InvalidParameterError
        ``upper`` is not a non-empty sequence of integers >= 0, or the box has ``2**62`` points
        or more.

    Examples
    --------
    >>> validate_upper((3, 3)).tolist()
    [3, 3]
    >>> validate_upper((-1,))
    Traceback (most recent call last):
    ...
    analytic.errors.InvalidParameterError: upper = (-1,): must be a non-empty sequence of integers >= 0
    """
    bound = numeric_array("upper", upper, "must be a non-empty sequence of integers >= 0")
    if bound.ndim != 1 or bound.size == 0 or bound.dtype.kind not in "iu" or np.any(bound < 0):
        raise InvalidParameterError("upper", upper, "must be a non-empty sequence of integers >= 0")
    if np.prod((bound + 1).astype(float)) >= 2.0**62:
        raise InvalidParameterError("upper", upper, "the box 0 <= x <= upper must have fewer than 2**62 points")
    return bound.astype(np.int64)


def validate_moves(moves: Sequence, d: int) -> list[tuple[np.ndarray, Callable]]:
    """The moves of a lattice chain, checked.

    Parameters
    ----------
    moves : sequence of (displacement, rate)
        Each a non-zero integer vector of length ``d`` and a function of the state array.
    d : int
        The number of coordinates.

    Returns
    -------
    list of (numpy.ndarray, callable)
        The displacements as int64 vectors, with their rate functions.

    Raises
    ------
    InvalidParameterError
        ``moves`` is not a sequence of pairs, a displacement is not a non-zero integer vector of
        length ``d``, or a rate is not callable.

    Examples
    --------
    >>> service = lambda X: 1.0 * (X[:, 0] > 0)
    >>> [(vector.tolist(), rate is service) for vector, rate in validate_moves([((-1, 0), service)], 2)]
    [([-1, 0], True)]
    >>> validate_moves([((0, 0), service)], 2)
    Traceback (most recent call last):
    ...
    analytic.errors.InvalidParameterError: moves[0] displacement = (0, 0): must be a non-zero integer vector of length 2
    """
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

    Parameters
    ----------
    bound : numpy.ndarray
        The upper corner of the box, integers >= 0, shape (d,).
    feasible : callable
        ``feasible(X)`` returns one boolean per row of the array ``X`` of points; it must hold at
        the origin and be downward closed.
    max_states : int
        The largest number of points allowed.

    Returns
    -------
    numpy.ndarray
        The feasible points, shape (n, d), int64, sorted by rank (the last coordinate varying
        fastest).

    Raises
    ------
    InvalidParameterError
        ``feasible`` fails at the origin or does not return a boolean array of the right shape.
    StateSpaceTooLargeError
        There are more than ``max_states`` feasible points.

    Examples
    --------
    The six points of ``x_0 + x_1 <= 2``:

    >>> enumerate_lower_set(np.array([2, 2]), lambda X: X.sum(axis=1) <= 2, 100).tolist()
    [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [2, 0]]
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
    """Raise the error of a move whose rate is positive at a state it would leave the space from.

    Parameters
    ----------
    m : int
        The move's position in ``moves``.
    displacement : numpy.ndarray
        Its displacement.
    state : numpy.ndarray
        The state where its rate is positive.
    feasible : callable or None
        The feasibility predicate of the space, if any (to tell an infeasible target from a
        predicate that is not downward closed).
    outside : bool
        Whether the target lies outside the box.

    Raises
    ------
    InvalidParameterError
        Always, saying where the move leads and why that is not a state.

    Examples
    --------
    >>> raise_leaves_space(0, np.array([1]), np.array([3]), None, True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    analytic.errors.InvalidParameterError: rate of move 0 = [3]: ... leads to [4], outside 0 <= x <= upper; ...
    """
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
