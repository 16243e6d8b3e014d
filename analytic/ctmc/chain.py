"""Finite continuous-time Markov chains: construction, stationary and transient analysis.

A :class:`CTMC` is a sparse generator ``Q`` (``Q[i, j]`` is the rate from state ``i`` to state
``j``, rows sum to zero) together with the states it is indexed by. Chains are built from a
transition function (:meth:`CTMC.from_function`, any hashable state) or from vectorized moves on
an integer lattice (:meth:`CTMC.from_lattice`, millions of states without a Python loop per
state); both estimate their memory before allocating it. The package uses these chains as the
yardstick its closed forms and simulators are checked against, so :meth:`CTMC.stationary` returns
probabilities with a stated componentwise relative accuracy (:mod:`analytic.ctmc.stationary`).

The module holds one class of about 900 lines, most of them the documentation of the methods a
user calls; the computations behind those methods live in :mod:`analytic.ctmc.stationary`,
:mod:`analytic.ctmc.transient` and :mod:`analytic.ctmc.measures`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order, connected_components

from analytic._deprecation import renamed_arguments
from analytic.ctmc import measures
from analytic.ctmc import stationary as stationary_law
from analytic.ctmc._targets import check_times, check_tolerance, state_set
from analytic.ctmc.spaces import (
    ExplicitSpace,
    LatticeSpace,
    check_rates,
    enumerate_lower_set,
    plain,
    raise_leaves_space,
    reward_values,
    validate_moves,
    validate_upper,
    vector_result,
)
from analytic.ctmc.stationary import Stationary
from analytic.ctmc.transient import transient as uniformized
from analytic.errors import (
    InvalidParameterError,
    ReducibleChainError,
    StateSpaceTooLargeError,
    describe,
)
from analytic.memory import available_bytes, require
from analytic.validation import integer, option, real_array

__all__ = ["CTMC", "lattice_bytes"]

#: Exploration by :meth:`CTMC.from_function` checks its memory every this many new states, at
#: these costs: a state costs its Python object, its dict entry and list slot (about 200 bytes for
#: a small tuple), a transition three list slots holding Python numbers (about 100 bytes).
_MEMORY_CHECK_EVERY = 1 << 16
_BYTES_PER_EXPLORED_STATE = 200
_BYTES_PER_EXPLORED_TRANSITION = 100

#: :meth:`CTMC.from_lattice` needs about this many bytes per state, plus 8 per coordinate, plus
#: this many per move (the move's rates, sources and targets, their concatenation and the CSR
#: generator), measured in benchmarks/ctmc.py.
_BYTES_PER_LATTICE_STATE = 48
_BYTES_PER_LATTICE_MOVE = 96


class CTMC:
    """A finite continuous-time Markov chain.

    Parameters
    ----------
    generator : sparse matrix or array, shape (n, n)
        Off-diagonal entries are the transition rates (finite, >= 0); the diagonal is recomputed
        so that rows sum to zero (a supplied diagonal is ignored).
    states : sequence of hashable, optional
        Labels of the n states (default ``0, ..., n-1``).

    Examples
    --------
    An M/M/1/2 queue with arrival rate 1 and service rate 2:

    >>> chain = CTMC.from_function(0, lambda x: [(x + 1, 1.0)] * (x < 2) + [(x - 1, 2.0)] * (x > 0))
    >>> chain.stationary().probabilities.round(4).tolist()
    [0.5714, 0.2857, 0.1429]
    """

    def __init__(self, generator: Any, states: Sequence[Hashable] | None = None) -> None:
        matrix = _square_matrix(generator)
        n = matrix.shape[0]
        # Before the n labels, their index and the CSR generator (measured: about 175 bytes a state and
        # 60 a transition) are built: a sparse matrix of shape (10**12, 10**12) costs nothing until then.
        require(n * _BYTES_PER_EXPLORED_STATE + matrix.nnz * _BYTES_PER_EXPLORED_TRANSITION,
                "the chain (state labels and generator)", n)
        if states is None:
            space = ExplicitSpace(list(range(n)))
        else:
            try:
                space = ExplicitSpace(list(states))
            except TypeError as exc:
                raise InvalidParameterError("states", states, f"must be hashable labels ({exc})") from None
            if any(label != label for label in space.states):       # NaN: never found again by its value
                raise InvalidParameterError("states", states, "must be labels equal to themselves (no NaN)")
            if len(space) != n or len(space._index) != n:
                raise InvalidParameterError("states", len(space), f"must be {n} distinct labels, one per row of the generator")
        off = matrix.row != matrix.col
        rows, cols, rates = matrix.row[off], matrix.col[off], matrix.data[off].astype(float)
        check_rates(rates, "rate", lambda i: f"generator[{rows[i]}, {cols[i]}]")
        self._init(n, rows, cols, rates, space)

    def _init(self, n: int, rows: np.ndarray, cols: np.ndarray, rates: np.ndarray,
              space: ExplicitSpace | LatticeSpace) -> None:
        """Assemble the generator from validated rates (shared by all constructors)."""
        keep = (rows != cols) & (rates > 0)
        if not keep.all():
            rows, cols, rates = rows[keep], cols[keep], rates[keep]
        with np.errstate(over="ignore"):
            outflow = np.bincount(rows, weights=rates, minlength=n)
        if not np.all(np.isfinite(outflow)):
            i = int(np.flatnonzero(~np.isfinite(outflow))[0])
            raise InvalidParameterError(
                "rates", rates[rows == i], f"out of state {plain(space.states[i])!r} sum to more than the largest double "
                "(1.8e308); measure time in a larger unit so that the rates shrink")
        diagonal = np.arange(n)
        self._space = space
        self._generator = sp.csr_array(
            (np.concatenate([rates, -outflow]),
             (np.concatenate([rows, diagonal]), np.concatenate([cols, diagonal]))),
            shape=(n, n))
        self._generator.sum_duplicates()

    # -- constructors ---------------------------------------------------------------------------

    @classmethod
    def from_function(cls, initial: Hashable,
                      transitions: Callable[[Any], Iterable[tuple[Hashable, float]]],
                      max_states: int = 2_000_000) -> CTMC:
        """Build the chain of all states reachable from ``initial``, breadth first.

        Parameters
        ----------
        initial : hashable
            The starting state; it gets index 0.
        transitions : callable
            ``transitions(state)`` yields ``(next_state, rate)`` pairs. Rates must be finite and
            >= 0; zero rates are skipped (their targets are not explored), repeated targets add up
            and self-loops are ignored.
        max_states : int
            :class:`~analytic.errors.StateSpaceTooLargeError` is raised as soon as exploration
            finds more states than this, before the memory is spent.

        Raises
        ------
        InvalidParameterError
            A negative, NaN or infinite rate, or ``transitions`` failing on a state (the message
            names the state and chains the original exception).
        StateSpaceTooLargeError
            More than ``max_states`` reachable states.

        Examples
        --------
        >>> CTMC.from_function((0, 0), lambda s: [((s[0] + 1, s[1]), 1.0)] if s[0] < 3 else []).n_states
        4
        """
        integer("max_states", max_states)
        try:
            hash(initial)
        except TypeError:
            raise InvalidParameterError("initial", initial, "must be a hashable state (e.g. a tuple, not a list)") from None
        states: list = [initial]
        index = {initial: 0}
        rows: list[int] = []
        cols: list[int] = []
        rates: list[float] = []
        i = 0
        state = initial
        try:
            while i < len(states):
                state = states[i]
                for target, rate in transitions(state):
                    if isinstance(rate, (complex, np.complexfloating)) or not rate > 0:
                        if rate == 0:
                            continue
                        raise InvalidParameterError("rate", rate,
                                                    f"must be real, finite and >= 0 (from state {state!r} to {target!r})")
                    j = index.get(target)
                    if j is None:
                        j = len(states)
                        if j == max_states:
                            raise StateSpaceTooLargeError(j + 1, max_states, "exploration", at_least=True)
                        if j % _MEMORY_CHECK_EVERY == 0:
                            require(j * _BYTES_PER_EXPLORED_STATE + len(rates) * _BYTES_PER_EXPLORED_TRANSITION,
                                    "exploration", j, at_least=True)
                        index[target] = j
                        states.append(target)
                    rows.append(i)
                    cols.append(j)
                    rates.append(rate)
                i += 1
        except (InvalidParameterError, StateSpaceTooLargeError):
            raise
        except Exception as exc:
            raise InvalidParameterError(
                "transitions", state,
                f"failed on this state ({type(exc).__name__}: {exc}); it must yield (next_state, rate) "
                "pairs with hashable next states") from exc
        chain = cls.__new__(cls)
        row_array, col_array = np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64)
        rate_array = np.array(rates, dtype=float)
        check_rates(rate_array, "rate", lambda k: f"from state {states[row_array[k]]!r} to {states[col_array[k]]!r}")
        chain._init(len(states), row_array, col_array, rate_array, ExplicitSpace(states, index))
        return chain

    @classmethod
    def from_lattice(cls, upper: Sequence[int],
                     moves: Sequence[tuple[Sequence[int], Callable[[np.ndarray], np.ndarray]]],
                     feasible: Callable[[np.ndarray], np.ndarray] | None = None,
                     max_states: int = 30_000_000) -> CTMC:
        """Build a chain on integer vectors ``0 <= x <= upper`` with vectorized moves.

        Parameters
        ----------
        upper : sequence of int
            Upper bound of each coordinate (d coordinates).
        moves : sequence of (displacement, rate)
            ``displacement`` is an integer vector of length d; ``rate(X)`` receives the array of
            all states (shape (n, d), one row each) and returns their rates of moving to
            ``x + displacement``: finite, >= 0, and 0 wherever the move is not allowed. A positive
            rate that leads outside the state space is an error.
        feasible : callable, optional
            ``feasible(X)`` returns a boolean per row; the state space is the set of lattice points
            where it holds. It must contain the origin and be downward closed (``x`` feasible and
            ``0 <= y <= x`` imply ``y`` feasible), as every capacity constraint
            ``sum_i w_i x_i <= c`` with ``w >= 0`` is; this lets the states be enumerated without
            scanning the whole box.
        max_states : int
            Upper limit on the number of states.

        Notes
        -----
        States are sorted by their mixed-radix rank (the last coordinate varies fastest), so the
        origin is state 0. The target of a move is found arithmetically (rank + rank of the
        displacement) and the generator is assembled with array operations only.

        Examples
        --------
        Two independent M/M/1/3 queues:

        >>> moves = [((1, 0), lambda X: 0.5 * (X[:, 0] < 3)), ((-1, 0), lambda X: 1.0 * (X[:, 0] > 0)),
        ...          ((0, 1), lambda X: 0.2 * (X[:, 1] < 3)), ((0, -1), lambda X: 1.0 * (X[:, 1] > 0))]
        >>> CTMC.from_lattice((3, 3), moves).n_states
        16
        """
        integer("max_states", max_states)
        bound = validate_upper(upper)
        checked = validate_moves(moves, len(bound))
        if feasible is not None and not callable(feasible):
            raise InvalidParameterError("feasible", feasible, "must be None or a function of the state array")
        per_state = lattice_bytes(1, len(bound), len(checked))
        if feasible is None:
            size = int(np.prod(bound + 1, dtype=object))
            if size > max_states:
                raise StateSpaceTooLargeError(size, max_states, "the lattice")
            require(size * per_state, "the lattice", size)
            states = np.stack(np.unravel_index(np.arange(size), tuple(bound + 1)), axis=1).astype(np.int64)
        else:
            fitting = available_bytes() // per_state
            try:
                states = enumerate_lower_set(bound, feasible, min(max_states, fitting))
            except StateSpaceTooLargeError as exc:
                if fitting < max_states:
                    require(exc.needed * per_state, "the feasible set", exc.needed, at_least=True)
                raise
        space = LatticeSpace(states, bound)
        rows, cols, rates = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)], [np.zeros(0)]
        for m, (displacement, rate) in enumerate(checked):
            r = vector_result(rate(states), len(states), f"rate of move {m}")
            check_rates(r, f"rate of move {m}", lambda i: f"at state {states[i].tolist()}")
            source = np.flatnonzero(r > 0)
            inside = np.ones(len(source), dtype=bool)
            for c in np.flatnonzero(displacement):
                coordinate = states[source, c] + displacement[c]
                inside &= (coordinate >= 0) & (coordinate <= bound[c])
            positions, found = space.positions(space.ranks[source] + displacement @ space.strides)
            found &= inside
            if not found.all():
                raise_leaves_space(m, displacement, states[source[~found][0]], feasible, not inside[~found][0])
            rows.append(source)
            cols.append(positions)
            rates.append(r[source])
        chain = cls.__new__(cls)
        chain._init(len(states), np.concatenate(rows), np.concatenate(cols), np.concatenate(rates), space)
        return chain

    # -- accessors ------------------------------------------------------------------------------

    @property
    def generator(self) -> sp.csr_array:
        """The generator ``Q`` (CSR, rows sum to zero)."""
        return self._generator

    @property
    def states(self) -> list | np.ndarray:
        """The states in index order: a list (:meth:`from_function`, constructor) or an integer
        array with one row per state (:meth:`from_lattice`)."""
        return self._space.states

    @property
    def n_states(self) -> int:
        """Number of states."""
        return self._generator.shape[0]

    def index(self, state: Any) -> int:
        """Position of ``state`` in :attr:`states`.

        Parameters
        ----------
        state : hashable or sequence of int
            A state of the chain: a label (chains built by the constructor or
            :meth:`from_function`) or an integer vector ``0 <= x <= upper`` (:meth:`from_lattice`).

        Returns
        -------
        int
            Its index, from 0 to ``n_states - 1``: its row and column in :attr:`generator`.

        Raises
        ------
        InvalidParameterError
            ``state`` is not a state of the chain.

        Examples
        --------
        Lattice states are sorted by rank, the last coordinate varying fastest: in the box
        ``0 <= x <= (2, 1)`` the state ``(1, 0)`` has rank ``1 * 2 + 0 = 2``.

        >>> moves = [((1, 0), lambda X: 1.0 * (X[:, 0] < 2)), ((-1, 0), lambda X: 1.0 * (X[:, 0] > 0)),
        ...          ((0, 1), lambda X: 1.0 * (X[:, 1] < 1)), ((0, -1), lambda X: 1.0 * (X[:, 1] > 0))]
        >>> CTMC.from_lattice((2, 1), moves).index((1, 0))
        2
        """
        return self._space.index(state)

    def reachable(self, initial: Any = None) -> CTMC:
        """The chain restricted to the states reachable from ``initial`` (default: state 0).

        A reachable set is closed, so the rows of the restricted generator still sum to zero.
        States keep their relative order (a lattice chain stays sorted by rank); the chain itself
        is returned when every state is reachable.

        Parameters
        ----------
        initial : state, optional
            A state of the chain (default: the state of index 0).

        Returns
        -------
        CTMC
            The chain on the reachable states (``self`` when every state is reachable).

        Raises
        ------
        InvalidParameterError
            ``initial`` is not a state of the chain.

        Examples
        --------
        A pure-birth chain on 0..4 started at 2 reaches 2, 3 and 4:

        >>> chain = CTMC.from_lattice((4,), [((1,), lambda X: 1.0 * (X[:, 0] < 4))])
        >>> chain.reachable((2,)).states.ravel().tolist()
        [2, 3, 4]
        """
        start = 0 if initial is None else self._space.index(initial, "initial")
        found = breadth_first_order(self._generator, start, directed=True, return_predecessors=False)
        if len(found) == self.n_states:
            return self
        keep = np.sort(found)
        chain = CTMC.__new__(CTMC)
        chain._space = self._space.subset(keep)
        chain._generator = self._generator[keep][:, keep]
        return chain

    def __repr__(self) -> str:
        return f"CTMC(n_states={self.n_states}, transitions={self._generator.nnz - self.n_states})"

    # -- analysis -------------------------------------------------------------------------------

    def stationary(self, method: str = "auto", reference: Any = None, tolerance: float = stationary_law.ACCURACY) -> Stationary:
        """Stationary distribution ``pi`` (``pi Q = 0``, ``sum pi = 1``), with a proven accuracy.

        Every probability at or above ``result.floor`` (1e-290) is within ``tolerance`` of the
        exact stationary probability *relative to itself*, or this raises
        :class:`~analytic.errors.ConvergenceError` saying the best accuracy reached. Whatever the
        method, the answer is certified state by state (``analytic.ctmc._certificate``): a small
        residual is not taken as evidence; ``result.error_bounds`` holds the proven bounds.

        Parameters
        ----------
        method : {"auto", "gth", "direct", "iterative"}
            ``"gth"``: the subtraction-free Grassmann–Taksar–Heyman algorithm as a sparse
            multifrontal factorization (``"auto"`` runs the same elimination in a band on chains of
            at most ``SMALL_STATES`` states, where it compiles and runs faster). ``"iterative"``:
            rounds of relative correction by GMRES with an ILU(0) preconditioner; ``"direct"``: the same with SuperLU. ``"auto"``
            (default): GTH when it fits in memory and costs at most ``GTH_FLOPS`` multiply-adds
            (or ``GTH_FLOPS_PER_STATE`` per state), the iterative rounds otherwise, and the other
            methods in turn when the certificate falls short of the tolerance (see
            :mod:`analytic.ctmc.stationary`).
        reference : state, optional
            For ``"direct"`` and ``"iterative"``: the state pinned first (default: the likeliest
            state of a first rough measure); the rounds move it to the likeliest state.
        tolerance : float
            The componentwise relative accuracy to vouch for, in [2**-50, 1) (default 1e-10).

        Returns
        -------
        Stationary
            The probabilities aligned with :attr:`states`, their accuracy and floor, the method.

        Raises
        ------
        InvalidParameterError
            ``method``, ``reference`` or ``tolerance`` is invalid, or the rates out of one state
            span more than the double range.
        ReducibleChainError
            The chain is not irreducible (an absorbing state, several closed classes, or
            transient states), so no stationary law with full support exists.
        ConvergenceError
            The solver cannot vouch for the answer (GTH's pivots underflow, or refinement does not
            settle the likeliest state).
        StateSpaceTooLargeError
            The factorization would not fit in the memory available.

        Examples
        --------
        A nearly completely decomposable chain: two pairs of states coupled by rates of 1e-14.
        Its exact stationary law is ``(1, 1, 1 + 1e-14, 1) / (4 + 1e-14)``, uniform to 14 digits;
        GTH gets it to the last digit:

        >>> chain = CTMC([[0, 1, 1e-14, 0], [1, 0, 0, 0], [0, 0, 0, 1], [1e-14, 0, 1, 0]])
        >>> pi = chain.stationary().probabilities
        >>> pi.round(14).tolist()
        [0.25, 0.25, 0.25, 0.25]
        >>> exact = np.array([1, 1, 1 + 1e-14, 1]) / (4 + 1e-14)
        >>> bool(np.abs(pi / exact - 1).max() < 1e-15)
        True
        """
        method = option("method", method, stationary_law.METHODS)
        tolerance = stationary_law.check_tolerance(tolerance)
        first = None if reference is None else self._space.index(reference, "reference")
        self._require_irreducible()
        solution = stationary_law.solve(self._generator, method, first, tolerance)
        pi = solution.probabilities
        residual = float(np.abs(self._generator.T @ pi).sum())
        return Stationary(pi, tolerance, stationary_law.FLOOR, solution.error_bounds, solution.conditioning, residual,
                          solution.method, solution.iterations, solution.check, self.states, self._space)

    def detailed_balance_residual(self, probabilities: np.ndarray | Stationary) -> float:
        """Total imbalance of the probability flows, ``sum_{i<j} |pi_i q_ij - pi_j q_ji|``.

        Zero (up to round-off) exactly when the chain is reversible with respect to ``pi``.

        Parameters
        ----------
        probabilities : numpy.ndarray or Stationary
            A probability vector aligned with :attr:`states` (non-negative, summing to 1 within
            1e-9), or the result of :meth:`stationary`.

        Returns
        -------
        float
            The imbalance, in probability per unit time (>= 0).

        Raises
        ------
        InvalidParameterError
            ``probabilities`` is not a probability vector of length :attr:`n_states`.

        Examples
        --------
        A birth–death chain is reversible. A cycle 0 -> 1 -> 2 -> 0 at unit rates is not: under
        its uniform law each of the three pairs carries a net flow of 1/3.

        >>> queue = CTMC.from_function(0, lambda x: [(x + 1, 1.0)] * (x < 2) + [(x - 1, 2.0)] * (x > 0))
        >>> round(queue.detailed_balance_residual(queue.stationary()), 12)
        0.0
        >>> cycle = CTMC([[0, 1.0, 0], [0, 0, 1.0], [1.0, 0, 0]])
        >>> round(cycle.detailed_balance_residual([1 / 3, 1 / 3, 1 / 3]), 12)
        1.0
        """
        pi = self._check_distribution(probabilities, "probabilities")
        flows = sp.diags_array(pi) @ self._generator
        flows.setdiag(0)
        return float(abs(flows - flows.T).sum() / 2)

    def transient(self, times: float | Sequence[float], initial: Any) -> np.ndarray:
        """Distribution at time(s) t: ``p(t) = p(0) exp(Q t)``.

        Uniformization with steady-state detection (:mod:`analytic.ctmc.transient`): every term is
        non-negative, and once the chain has mixed the rest is the stationary law, so a large t
        costs about one stationary solve.

        Parameters
        ----------
        times : float or sequence of float
            Times ``t >= 0``, in any order.
        initial : state or array
            A state of the chain (point mass) or a probability vector aligned with :attr:`states`.

        Returns
        -------
        numpy.ndarray
            Shape ``(n_states,)`` for a scalar time, ``(len(times), n_states)`` otherwise.

        Raises
        ------
        ConvergenceError
            A stiff chain that has not mixed by time t and would need more than
            ``transient.MAX_WORK`` operations (whether a chain of at most
            ``transient.SPECTRAL_STATES`` states has mixed is decided by its eigen-decomposition).

        Examples
        --------
        >>> chain = CTMC([[0, 1.0], [2.0, 0]])
        >>> chain.transient([0.0, 1e12], 0).round(6).tolist()
        [[1.0, 0.0], [0.666667, 0.333333]]
        """
        t = real_array("times", times, " >= 0 (a scalar or a 1-D sequence)", allow_empty=False)
        if t.ndim > 1 or np.any(t < 0):
            raise InvalidParameterError("times", times, "must be finite real numbers >= 0 (a scalar or a 1-D sequence)")
        p = self._initial_distribution(initial)
        out = uniformized(self._generator, t.ravel(), p, lambda: self._limit(p))
        return out[0] if t.ndim == 0 else out

    def limit(self, initial: Any) -> np.ndarray:
        """The limiting law ``lim_{t -> inf} p(t)`` from ``initial``: the stationary law for an
        irreducible chain; otherwise, for each closed class, the probability of being absorbed in
        it times its own stationary law (transient states get 0).

        The absorption probabilities are the stationary law of an auxiliary irreducible chain — the
        transient states, one state per closed class, and a restart from each class into the
        initial law on the transient states at rate 1 — so they carry the same certified
        accuracy as every stationary law here (:meth:`stationary`).

        Parameters
        ----------
        initial : state or array
            A state of the chain (point mass) or a probability vector aligned with :attr:`states`.

        Returns
        -------
        numpy.ndarray
            Probabilities aligned with :attr:`states`.

        Examples
        --------
        From state 1, a step to 0 (rate 1) or to 2 (rate 3), both absorbing: absorbed in 2 w.p. 3/4.

        >>> chain = CTMC([[0, 0, 0], [1.0, 0, 3.0], [0, 0, 0]])
        >>> chain.limit(1).round(12).tolist()
        [0.25, 0.0, 0.75]
        """
        return np.asarray(self._limit(self._initial_distribution(initial)), dtype=float)

    # -- measures (analytic.ctmc.measures) ------------------------------------------------------

    def transient_reward(self, reward: Any, t: float | Sequence[float], initial: Any) -> float | np.ndarray:
        """Expected reward at time(s) t: ``E[r(X_t)] = p(t) r``.

        ``p(t)`` is :meth:`transient`'s (uniformization with steady-state detection), so a large t
        costs about one stationary solve. For a reward of one sign the relative error is that of
        ``p(t)``: about ``Λ t`` units of ``2**-53`` (``Λ`` the largest outflow; 4e-11 measured at
        ``Λ t = 34 600``). Once the chain has mixed, the error is 1e-13 plus the proven error of
        the stationary law (:attr:`Stationary.error_bounds`); where the reward settles before
        the law's far tail does (total variation never grows, :mod:`analytic.ctmc.transient`),
        at most ``transient.REWARD_TOLERANCE`` = 1e-10 relative to the limit's ``E[|r|]``. For a
        reward of both signs the bounds hold relative to ``E[|r(X_t)|]``.

        Parameters
        ----------
        reward : array or callable
            One finite value per state, aligned with :attr:`states` (a scalar for every state), or
            a function, as in :meth:`Stationary.expected`: of the array of all states (one row
            each) for lattice chains, of each state otherwise.
        t : float or sequence of float
            Times ``t >= 0``, finite, in any order.
        initial : state or array
            A state of the chain (point mass) or a probability vector aligned with :attr:`states`.

        Returns
        -------
        float or numpy.ndarray
            A float for a scalar ``t``, one value per time otherwise (in the reward's unit).

        Raises
        ------
        InvalidParameterError
            A bad reward, time or initial state.
        ConvergenceError
            A stiff chain that has not mixed by time t (as :meth:`transient`).

        References
        ----------
        Jensen, *Markoff chains as an aid in the study of Markoff processes*, Skand. Aktuarietidskr.
        36 (1953); Sericola, *Availability analysis of repairable computer systems and
        stationarity detection*, IEEE Trans. Comput. 48 (1999).

        Examples
        --------
        The number in an M/M/1/2 queue (arrivals 1, service 2) from empty: 0 at t = 0, then
        ``4/7`` in the limit (its stationary mean):

        >>> queue = CTMC.from_function(0, lambda x: [(x + 1, 1.0)] * (x < 2) + [(x - 1, 2.0)] * (x > 0))
        >>> queue.transient_reward(lambda x: x, [0.0, 1e9], 0).round(12).tolist()
        [0.0, 0.571428571429]
        """
        values = reward_values(self._space, reward, self.n_states)
        times = check_times(t)
        p = self._initial_distribution(initial)
        out = measures.transient_reward(self._generator, times.ravel(), p, values, lambda: self._limit(p))
        return float(out[0]) if times.ndim == 0 else out

    def accumulated_reward(self, reward: Any, t: float | Sequence[float], initial: Any) -> float | np.ndarray:
        """Expected reward accumulated over ``[0, t]``: ``E[∫_0^t r(X_s) ds]``.

        By uniformization, ``sum_k P(N > k) / Λ * p(0) P^k r`` with ``N`` Poisson of mean ``Λ t``
        (the integral of the Poisson weights), summed until the iterates settle (as in
        :meth:`transient_reward`), after which the remaining time counts at the limiting reward
        rate: a large t costs about one stationary solve. For a reward of one sign the relative
        error is about ``Λ t`` units of ``2**-53`` (as :meth:`transient`), plus what the
        detection allows (:meth:`transient_reward`); the Poisson tail cut loses less than
        ``1e-16 t max |r|``. For a reward of both signs the bound holds relative to the
        accumulated ``|r|``.

        Parameters
        ----------
        reward : array or callable
            One finite value per state, or a function, as in :meth:`transient_reward`.
        t : float or sequence of float
            Times ``t >= 0``, finite, in any order.
        initial : state or array
            A state of the chain (point mass) or a probability vector aligned with :attr:`states`.

        Returns
        -------
        float or numpy.ndarray
            A float for a scalar ``t``, one value per time otherwise (reward unit times time unit).

        Raises
        ------
        InvalidParameterError
            A bad reward, time or initial state, or a result beyond the double range.
        ConvergenceError
            A stiff chain that has not mixed by time t would need more than ``transient.MAX_WORK``
            operations.

        References
        ----------
        de Souza e Silva & Gail, *Calculating availability and performability measures of
        repairable computer systems using randomization*, J. ACM 36 (1989); Sericola (1999), as in
        :meth:`transient_reward`.

        Examples
        --------
        Time spent in state 1 over ``[0, t]`` by the chain of rates 1 (0 -> 1) and 2 (1 -> 0) from
        0: ``t / 3 - (1 - exp(-3 t)) / 9``.

        >>> chain = CTMC([[0, 1.0], [2.0, 0]])
        >>> round(chain.accumulated_reward([0.0, 1.0], 1.0, 0), 12)
        0.227754118708
        >>> round(1 / 3 - (1 - float(np.exp(-3))) / 9, 12)
        0.227754118708
        """
        values = reward_values(self._space, reward, self.n_states)
        times = check_times(t)
        p = self._initial_distribution(initial)
        out = measures.accumulated_reward(self._generator, times.ravel(), p, values, lambda: self._limit(p))
        return float(out[0]) if times.ndim == 0 else out

    def passage_time(self, target: Any, initial: Any, tolerance: float = measures.ACCURACY) -> measures.PassageTime:
        """The first time ``T`` the chain enters ``target``: its mean, moments and distribution.

        The mean is the total of the occupation measure ``p(0) (-Q_TT)^-1`` on the non-target
        states, computed as the stationary law of an auxiliary chain restarted at ``initial``
        whenever it hits the target, so it carries :meth:`stationary`'s certified accuracy: within
        ``tolerance`` relative, whatever the conditioning of ``Q``. Higher moments solve
        ``-Q_TT m_k = k m_(k-1)`` (refined and certified), the distribution is the transient law of
        the chain with the target made absorbing (:mod:`analytic.ctmc.measures`).

        Parameters
        ----------
        target : array of bool or callable
            The target set: a boolean mask aligned with :attr:`states`, or a predicate returning
            ``True`` or ``False`` (called with the array of all states for a lattice chain, one
            boolean per row; on each state otherwise). A set ``S`` of states: ``lambda x: x in S``.
        initial : state or array
            A state of the chain (point mass) or a probability vector aligned with :attr:`states`.
        tolerance : float
            The relative accuracy vouched for the mean and every moment, in [``2**-48``, 1)
            (default 1e-10).

        Returns
        -------
        PassageTime
            ``mean``, ``moment(k)``, ``cdf(t)`` and ``survival(t)``.

        Raises
        ------
        InvalidParameterError
            An empty or malformed ``target``, a bad ``initial`` or ``tolerance``, or a target the
            chain may never reach from ``initial`` (then ``T`` is infinite with positive
            probability: the message names ``target`` and gives the probability of reaching it).
        ConvergenceError
            The stationary solve cannot vouch for ``tolerance``.

        References
        ----------
        Neuts, *Matrix-Geometric Solutions in Stochastic Models* (1981), Theorem 2.2.1 (phase-type
        moments ``E[T^k] = k! p(0) (-Q_TT)^-k 1``); Grassmann, Taksar & Heyman, *Regenerative
        analysis and steady state distributions for Markov chains*, Oper. Res. 33 (1985).

        Examples
        --------
        The busy period of an M/M/1 queue (arrivals 0.5, service 1), truncated far beyond where
        it matters: mean ``1 / (μ - λ) = 2``, second moment ``2 / (μ^2 (1 - ρ)^3) = 16``.

        >>> queue = CTMC.from_function(1, lambda x: [(x + 1, 0.5)] * (x < 200) + [(x - 1, 1.0)] * (x > 0))
        >>> busy = queue.passage_time(lambda x: x == 0, 1)
        >>> round(busy.mean, 12), round(busy.moment(2), 12)
        (2.0, 16.0)
        """
        mask = state_set(self._space, target, "target", self.n_states)
        p = self._initial_distribution(initial)
        tolerance = check_tolerance(tolerance)
        return measures.passage_time(self._generator, p, mask, target, self.states, tolerance)

    def reach_probability(self, target: Any, t: float | Sequence[float], initial: Any, avoid: Any = None,
                          tolerance: float = measures.ACCURACY) -> float | np.ndarray:
        """Probability of reaching ``target`` by time t without entering ``avoid`` first.

        Time-bounded reachability (CSL's bounded until, ``¬avoid U[0,t] target``): a state in both
        sets counts as reached. Finite t: the transient law of the chain with the target and the
        avoided states made absorbing, as accurate as :meth:`transient` (about ``Λ t`` units of
        ``2**-53`` relative). ``t = inf``: the probability of ever reaching it, from the occupation
        measure of the states that can still reach it (an auxiliary stationary solve), within
        ``tolerance`` relative.

        Parameters
        ----------
        target : array of bool or callable
            The target set, as in :meth:`passage_time`; not empty.
        t : float or sequence of float
            Times ``t >= 0``; ``inf`` for unbounded reachability.
        initial : state or array
            A state of the chain (point mass) or a probability vector aligned with :attr:`states`.
        avoid : array of bool or callable, optional
            The states to avoid, as ``target`` (default: none).
        tolerance : float
            The relative accuracy vouched at ``t = inf`` (and for the limit steady-state detection
            uses), in [``2**-48``, 1) (default 1e-10).

        Returns
        -------
        float or numpy.ndarray
            A float for a scalar ``t``, one probability per time otherwise.

        Raises
        ------
        InvalidParameterError
            An empty or malformed ``target``, a malformed ``avoid``, a bad time, ``initial`` or
            ``tolerance``.
        ConvergenceError
            A stiff chain not absorbed by time t (as :meth:`transient`), or an accuracy that cannot
            be vouched for.

        References
        ----------
        Baier, Haverkort, Hermanns & Katoen, *Model-checking algorithms for continuous-time Markov
        chains*, IEEE Trans. Softw. Eng. 29 (2003), Theorem 1.

        Examples
        --------
        Gambler's ruin on 0..4 from 2, up with rate 2 and down with rate 1: the top is reached
        before 0 with probability ``(1 - 2^-2) / (1 - 2^-4) = 0.8``.

        >>> walk = CTMC.from_function(2, lambda x: [(x + 1, 2.0), (x - 1, 1.0)] if 0 < x < 4 else [])
        >>> round(walk.reach_probability(lambda x: x == 4, np.inf, 2, avoid=lambda x: x == 0), 12)
        0.8
        >>> walk.reach_probability(lambda x: x == 4, [0.0, 1.0], 2).round(12).tolist()
        [0.0, 0.433468148228]
        """
        mask = state_set(self._space, target, "target", self.n_states)
        avoided = np.zeros(self.n_states, dtype=bool) if avoid is None else state_set(
            self._space, avoid, "avoid", self.n_states)
        times = check_times(t, allow_infinite=True)
        p = self._initial_distribution(initial)
        tolerance = check_tolerance(tolerance)
        out = measures.reachability(self._generator, p, mask, avoided, target, times.ravel(), tolerance)
        return float(out[0]) if times.ndim == 0 else out

    def reward_until(self, target: Any, reward: Any, initial: Any, tolerance: float = measures.ACCURACY) -> float:
        """Expected reward accumulated until the chain enters ``target``: ``E[∫_0^T r(X_s) ds]``.

        The occupation measure of :meth:`passage_time` weighted by the reward: within
        ``tolerance`` relative for a reward of one sign (``tolerance`` times the reward of ``|r|``
        for one of both signs), whatever the conditioning of ``Q``.

        Parameters
        ----------
        target : array of bool or callable
            The target set, as in :meth:`passage_time`; not empty.
        reward : array or callable
            One finite value per state, or a function, as in :meth:`transient_reward` (its values
            on the target do not count).
        initial : state or array
            A state of the chain (point mass) or a probability vector aligned with :attr:`states`.
        tolerance : float
            The relative accuracy vouched for, in [``2**-48``, 1) (default 1e-10).

        Returns
        -------
        float
            In the reward's unit times the time unit (0 when the chain starts in the target).

        Raises
        ------
        InvalidParameterError
            An empty or malformed ``target``, a bad reward, ``initial`` or ``tolerance``, or a
            target the chain may never reach (the message gives the probability of reaching it).
        ConvergenceError
            The stationary solve cannot vouch for ``tolerance``.

        References
        ----------
        Kemeny & Snell, *Finite Markov Chains* (1960), Theorem 3.2.4 (the fundamental matrix of an
        absorbing chain); Grassmann, Taksar & Heyman (1985), as in :meth:`passage_time`.

        Examples
        --------
        The area under the number in an M/M/1 queue (arrivals 0.5, service 1) over a busy period
        started by one job: ``1 / (μ (1 - ρ)^2) = 4`` (job-time units).

        >>> queue = CTMC.from_function(1, lambda x: [(x + 1, 0.5)] * (x < 200) + [(x - 1, 1.0)] * (x > 0))
        >>> round(queue.reward_until(lambda x: x == 0, lambda x: x, 1), 12)
        4.0
        """
        mask = state_set(self._space, target, "target", self.n_states)
        values = reward_values(self._space, reward, self.n_states)
        p = self._initial_distribution(initial)
        tolerance = check_tolerance(tolerance)
        return measures.reward_until(self._generator, p, mask, target, self.states, values, tolerance)

    def _limit(self, p: np.ndarray) -> Stationary | np.ndarray:
        """:meth:`limit` from a probability vector: the :class:`Stationary` result of an irreducible
        chain (its error bounds let rewards settle early, ``transient.reward_settled``), an
        array otherwise."""
        n_classes, labels = connected_components(self._generator, directed=True, connection="strong")
        if n_classes == 1:
            return self.stationary()
        graph = self._generator.tocoo()
        leaving = (labels[graph.row] != labels[graph.col]) & (graph.data > 0)
        open_class = np.zeros(n_classes, dtype=bool)
        open_class[labels[graph.row[leaving]]] = True
        absorbed = np.bincount(labels, weights=p, minlength=n_classes) * ~open_class
        transient_mass = float(p[open_class[labels]].sum())
        if transient_mass > 0:
            absorbed += transient_mass * self._absorption(p, labels, open_class)
        limit = np.zeros(self.n_states)
        for c in np.flatnonzero(absorbed > 0):
            members = np.flatnonzero(labels == c)
            inner = CTMC.__new__(CTMC)
            inner._space, inner._generator = ExplicitSpace(list(range(len(members)))), self._generator[members][:, members]
            limit[members] = absorbed[c] * (inner.stationary().probabilities if len(members) > 1 else 1.0)
        return limit

    def _absorption(self, p: np.ndarray, labels: np.ndarray, open_class: np.ndarray) -> np.ndarray:
        """Probability of being absorbed in each closed class from the law ``p`` restricted to the
        transient states: the stationary law of the auxiliary chain of :meth:`limit`, at its class states."""
        transient = np.flatnonzero(open_class[labels])
        closed = np.flatnonzero(~open_class)
        position = np.full(self.n_states, -1)
        position[transient] = np.arange(len(transient))
        class_state = np.full(len(open_class), -1)
        class_state[closed] = len(transient) + np.arange(len(closed))
        graph = self._generator.tocoo()
        off = (graph.row != graph.col) & (graph.data > 0) & (position[graph.row] >= 0)
        rows = position[graph.row[off]]
        cols = np.where(position[graph.col[off]] >= 0, position[graph.col[off]], class_state[labels[graph.col[off]]])
        start = p[transient] / p[transient].sum()
        restart_rows = np.repeat(class_state[closed], np.count_nonzero(start))
        restart_cols = np.tile(np.flatnonzero(start > 0), len(closed))
        size = len(transient) + len(closed)
        auxiliary = sp.coo_array((np.concatenate([graph.data[off], np.tile(start[start > 0], len(closed))]),
                                  (np.concatenate([rows, restart_rows]), np.concatenate([cols, restart_cols]))),
                                 shape=(size, size))
        reached = CTMC(auxiliary).reachable(int(restart_rows[0]) if len(restart_rows) else 0)
        law = reached.stationary().probabilities
        found = np.asarray(reached.states)
        weights = np.zeros(size)
        weights[found] = law
        result = np.zeros(len(open_class))
        result[closed] = weights[class_state[closed]]
        return result / result.sum()

    # -- helpers --------------------------------------------------------------------------------

    def _initial_distribution(self, initial: Any) -> np.ndarray:
        """A state (point mass), or a probability vector aligned with the states (a list, or a float
        or complex array: integer arrays are lattice states)."""
        if isinstance(initial, list) or (isinstance(initial, np.ndarray) and initial.dtype.kind in "fc"):
            return self._check_distribution(initial, "initial")
        p = np.zeros(self.n_states)
        p[self._space.index(initial, "initial")] = 1.0
        return p

    def _check_distribution(self, values: Any, name: str) -> np.ndarray:
        """``values`` as a probability vector of length n_states, or an error saying why not."""
        pi = values.probabilities if isinstance(values, Stationary) else real_array(
            name, values, " (a vector of probabilities)", allow_nan=True)
        if pi.shape != (self.n_states,) or not np.all(np.isfinite(pi)) or np.any(pi < 0) \
                or not np.isclose(pi.sum(), 1.0, rtol=0, atol=1e-9):
            raise InvalidParameterError(name, values, f"must be a probability vector of length {self.n_states} "
                                                      "(non-negative, summing to 1)")
        return pi

    def _require_irreducible(self) -> None:
        """Raise ReducibleChainError unless every state reaches every other."""
        n_classes, labels = connected_components(self._generator, directed=True, connection="strong")
        if n_classes == 1:
            return
        counts = np.bincount(labels, minlength=n_classes)
        graph = self._generator.tocoo()
        leaving = labels[graph.row] != labels[graph.col]
        open_classes = np.zeros(n_classes, dtype=bool)
        open_classes[labels[graph.row[leaving]]] = True
        closed = np.flatnonzero(~open_classes)
        states = self.states
        absorbing = [int(np.flatnonzero(labels == c)[0]) for c in closed if counts[c] == 1]
        transient = int(counts[open_classes].sum())
        details = [f"{len(closed)} closed class(es) of sizes {describe(counts[closed])}",
                   f"{transient} transient state(s)"]
        if absorbing:
            details.append(f"absorbing state(s) {', '.join(repr(plain(states[i])) for i in absorbing[:3])}")
        examples = ", ".join(repr(plain(states[int(np.flatnonzero(labels == c)[0])])) for c in closed[:3])
        raise ReducibleChainError(
            "the chain is not irreducible, so it has no stationary distribution with full support: "
            + "; ".join(details) + f"; closed classes contain e.g. {examples}")


@renamed_arguments(states="n_states")
def lattice_bytes(n_states: int, dimension: int, moves: int) -> int:
    """Bytes :meth:`CTMC.from_lattice` needs to build a chain of ``n_states`` states with
    ``dimension`` coordinates and ``moves`` moves (an upper estimate: greedy(p*)'s 4-dimensional
    chains with 8 moves measured 630 bytes per state, this gives 848).

    Parameters
    ----------
    n_states : int
        Number of states (>= 0).
    dimension : int
        Number of coordinates of a state (>= 0).
    moves : int
        Number of moves (>= 0).

    Returns
    -------
    int
        Bytes: 48 per state, plus 8 per state and coordinate, plus 96 per state and move.

    Raises
    ------
    InvalidParameterError
        An argument is not an integer >= 0.

    Examples
    --------
    A million states of two coordinates with four moves: ``10**6 * (48 + 2 * 8 + 4 * 96)``.

    >>> lattice_bytes(10**6, 2, 4)
    448000000
    """
    n_states, dimension, moves = (integer(name, value, minimum=0) for name, value in
                                  (("n_states", n_states), ("dimension", dimension), ("moves", moves)))
    return n_states * (_BYTES_PER_LATTICE_STATE + 8 * dimension + _BYTES_PER_LATTICE_MOVE * moves)


def _square_matrix(generator: Any) -> sp.coo_array:
    """``generator`` as a real square COO matrix, or an error naming what is wrong with it."""
    if sp.issparse(generator):
        matrix = sp.coo_array(generator)
    else:
        try:
            array = np.asarray(generator)
        except (ValueError, TypeError) as exc:
            raise InvalidParameterError("generator", generator, f"must be a square array of rates ({exc})") from None
        if array.dtype.kind == "O":   # Python ints beyond 64 bits, Fractions, Decimals: as floats, or the reason why not
            array = real_array("generator", generator, " (rates)", ndim=2, allow_infinite=True, allow_nan=True)
        if array.dtype.kind not in "biuf":
            kind = "complex" if array.dtype.kind == "c" else f"of dtype {array.dtype}"
            raise InvalidParameterError("generator", generator, f"must hold real rates, not {kind} values")
        matrix = sp.coo_array(array) if array.ndim == 2 else None
    if matrix is None or matrix.shape[0] != matrix.shape[1] or matrix.shape[0] == 0:
        shape = np.shape(generator) if matrix is None else matrix.shape
        raise InvalidParameterError("generator", shape, "must be a non-empty square matrix")
    if matrix.dtype.kind not in "biuf":
        raise InvalidParameterError("generator", matrix.dtype, "must hold real rates")
    return matrix
