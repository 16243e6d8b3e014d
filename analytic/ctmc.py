"""Exact analysis of finite continuous-time Markov chains (CTMCs).

A :class:`CTMC` is a sparse generator ``Q`` (``Q[i, j]`` is the rate from state ``i`` to state
``j``, rows sum to zero) together with the states it is indexed by. Chains are built from a
transition function (:meth:`CTMC.from_function`, any hashable state) or from vectorized moves on
an integer lattice (:meth:`CTMC.from_lattice`, millions of states without a Python loop per
state). The package uses these chains to cross-validate its closed forms.

Solvers (measured in ``benchmarks/ctmc.py``): the balance equation of one reference state is
replaced by ``pi[k] = 1``, which leaves (up to sign) a nonsingular M-matrix with the sparsity of
``Q``; the solution is normalized afterwards. ``method="direct"`` factorizes it with SuperLU
(``MMD_AT_PLUS_A`` ordering, diagonal pivots); ``method="iterative"`` runs restarted GMRES
preconditioned by an incomplete LU factorization (ILUTP, same ordering). Both report the residual
``||pi Q||_1``, and a solution whose scaled residual is poor is recomputed from a likelier
reference state (see ``_solve_stationary``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.csgraph import breadth_first_order, connected_components

from analytic.errors import (
    ConvergenceError,
    InvalidParameterError,
    ReducibleChainError,
    StateSpaceTooLargeError,
    describe,
)
from analytic.reproduce import Row, reproduces
from analytic.validation import integer

__all__ = ["CTMC", "Stationary"]

#: ``method="auto"`` solves directly up to this many states and iteratively above, by the mean
#: number of transitions per state: LU fill grows with the chain's dimension. Measured: no fill for
#: birth–death-like chains; on two-dimensional chains LU is at worst 1.7x slower than GMRES (two
#: M/M/1 queues, 6.4e5 states: 8.0 s vs 4.9 s, benchmarks/ctmc.py) while GMRES can be 8x slower
#: when the cheap ILU stalls (moldable greedy(p*) chain, 2.5e5 states: 3.1 s vs 25 s; 1e6 states:
#: 20 s and 1.8 GB vs 100 s, benchmarks/moldable.py); on four-dimensional chains LU loses early
#: (31 750 states: 10.6 s vs 3.6 s).
DIRECT_SOLVE_LIMITS = ((2.5, math.inf), (4.5, 2_000_000), (math.inf, 10_000))

#: Incomplete-LU settings tried in turn by the iterative solver: (drop tolerance, fill factor).
_ILU_SETTINGS = ((1e-2, 3.0), (1e-4, 10.0))

#: A direct solution is recomputed from the likeliest state when the reference state's
#: probability is below this fraction of the largest (see ``_solve_stationary``).
_MODE_RATIO = 1e-3

#: Restart cycles of GMRES(100) allowed per preconditioner while each halves the residual.
_GMRES_CYCLES = 20

#: SuperLU options: fill-reducing ordering of B + B^T, pivots taken on the diagonal.
_DIAGONAL_PIVOTING = dict(permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0, options=dict(SymmetricMode=True))

#: Largest accepted scaled residual ||pi Q||_1 / max|q_ii| before other reference states are tried.
_RESIDUAL_LIMIT = 1e-9


# ---------------------------------------------------------------------------------------------
# State spaces: how states are stored, looked up and mapped to rewards.
# ---------------------------------------------------------------------------------------------


class _ExplicitSpace:
    """States as a list of hashable objects, looked up through a dict."""

    def __init__(self, states: list, index: dict | None = None) -> None:
        self.states = states
        self._index = index if index is not None else {s: i for i, s in enumerate(states)}

    def __len__(self) -> int:
        return len(self.states)

    def index(self, state: Hashable) -> int:
        try:
            return self._index[state]
        except (KeyError, TypeError):
            raise InvalidParameterError("state", state, "is not a state of this chain") from None

    def evaluate(self, function: Callable[[Any], float]) -> np.ndarray:
        """``function`` applied to each state."""
        return np.fromiter((function(s) for s in self.states), dtype=float, count=len(self))

    def subset(self, keep: np.ndarray) -> _ExplicitSpace:
        return _ExplicitSpace([self.states[i] for i in keep])


class _LatticeSpace:
    """States as rows of an integer array, sorted by their mixed-radix rank."""

    def __init__(self, states: np.ndarray, upper: np.ndarray) -> None:
        self.states = states
        self.upper = upper
        self.strides = _strides(upper)
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

    def index(self, state: Sequence[int]) -> int:
        x = np.asarray(state)
        if x.shape != self.upper.shape or np.any(x < 0) or np.any(x > self.upper):
            raise InvalidParameterError("state", state, f"must be an integer vector with 0 <= x <= {self.upper.tolist()}")
        pos, found = self.positions(np.array([x.astype(np.int64) @ self.strides]))
        if not found[0]:
            raise InvalidParameterError("state", state, "is not a state of this chain (infeasible)")
        return int(pos[0])

    def evaluate(self, function: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """``function`` applied once to the array of all states (one row each)."""
        return _vector_result(function(self.states), len(self), "reward")

    def subset(self, keep: np.ndarray) -> _LatticeSpace:
        return _LatticeSpace(self.states[keep], self.upper)


def _strides(upper: np.ndarray) -> np.ndarray:
    """Mixed-radix weights: the rank of x is x @ strides, the last coordinate varying fastest."""
    sizes = upper + 1
    return np.concatenate([np.cumprod(sizes[::-1])[::-1][1:], [1]]).astype(np.int64)


def _vector_result(values: Any, n: int, what: str) -> np.ndarray:
    """A user function's output as a float vector of length n (scalars broadcast)."""
    array = np.asarray(values, dtype=float)
    if array.ndim == 0:
        return np.full(n, float(array))
    if array.shape != (n,):
        raise InvalidParameterError(what, array, f"must return one value per state: shape ({n},), got {array.shape}")
    return array


# ---------------------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class Stationary:
    """The stationary distribution of a :class:`CTMC`.

    Attributes
    ----------
    probabilities : numpy.ndarray
        ``pi``, aligned with ``states``; non-negative, sums to one.
    residual : float
        ``||pi Q||_1`` of the returned vector (0 for an exact solution).
    method : str
        Which solver produced it.
    iterations : int
        Krylov iterations (0 for the direct solver).
    states : list or numpy.ndarray
        The chain's states, as in :attr:`CTMC.states`.
    """

    probabilities: np.ndarray
    residual: float
    method: str
    iterations: int
    states: Any = field(repr=False)
    _space: Any = field(repr=False, compare=False)

    def __repr__(self) -> str:
        return (f"Stationary(n_states={len(self.probabilities)}, residual={self.residual:.3g}, "
                f"method={self.method!r}, iterations={self.iterations})")

    def expected(self, reward: np.ndarray | Callable) -> float:
        """Expected stationary reward ``sum_x pi(x) r(x)``.

        ``reward`` is an array aligned with the states, or a function: for lattice chains it is
        called once with the array of all states (one row each) and returns one value per row;
        for chains built from a transition function it is called on each state.
        """
        values = self._space.evaluate(reward) if callable(reward) else _vector_result(
            reward, len(self.probabilities), "reward")
        if not np.all(np.isfinite(values)):
            bad = int(np.flatnonzero(~np.isfinite(values))[0])
            raise InvalidParameterError("reward", values[bad], f"must be finite (at state {self.states[bad]})")
        return float(self.probabilities @ values)

    def probability(self, state: Any) -> float:
        """Stationary probability of one state."""
        return float(self.probabilities[self._space.index(state)])


# ---------------------------------------------------------------------------------------------
# The chain
# ---------------------------------------------------------------------------------------------


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
        matrix = sp.coo_array(generator)
        n = matrix.shape[0]
        if matrix.ndim != 2 or matrix.shape != (n, n) or n == 0:
            raise InvalidParameterError("generator", matrix.shape, "must be a non-empty square matrix")
        if states is None:
            space = _ExplicitSpace(list(range(n)))
        else:
            space = _ExplicitSpace(list(states))
            if len(space) != n or len(space._index) != n:
                raise InvalidParameterError("states", len(space), f"must be {n} distinct labels, one per row of the generator")
        off = matrix.row != matrix.col
        rows, cols, rates = matrix.row[off], matrix.col[off], matrix.data[off].astype(float)
        _check_rates(rates, "rate", lambda i: f"generator[{rows[i]}, {cols[i]}]")
        self._init(n, rows, cols, rates, space)

    def _init(self, n: int, rows: np.ndarray, cols: np.ndarray, rates: np.ndarray,
              space: _ExplicitSpace | _LatticeSpace) -> None:
        """Assemble the generator from validated rates (shared by all constructors)."""
        keep = (rows != cols) & (rates > 0)
        if not keep.all():
            rows, cols, rates = rows[keep], cols[keep], rates[keep]
        outflow = np.bincount(rows, weights=rates, minlength=n)
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
                    if not rate > 0:
                        if rate == 0:
                            continue
                        raise InvalidParameterError("rate", rate, f"must be finite and >= 0 (from state {state!r} to {target!r})")
                    j = index.get(target)
                    if j is None:
                        j = len(states)
                        if j == max_states:
                            raise StateSpaceTooLargeError(j + 1, max_states, "exploration", at_least=True)
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
        _check_rates(rate_array, "rate", lambda k: f"from state {states[row_array[k]]!r} to {states[col_array[k]]!r}")
        chain._init(len(states), row_array, col_array, rate_array, _ExplicitSpace(states, index))
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
        bound = _validate_upper(upper)
        if feasible is None:
            size = int(np.prod(bound + 1, dtype=object))
            if size > max_states:
                raise StateSpaceTooLargeError(size, max_states, "the lattice")
            states = np.stack(np.unravel_index(np.arange(size), tuple(bound + 1)), axis=1).astype(np.int64)
        else:
            states = _enumerate_lower_set(bound, feasible, max_states)
        space = _LatticeSpace(states, bound)
        rows, cols, rates = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)], [np.zeros(0)]
        for m, (displacement, rate) in enumerate(_validate_moves(moves, len(bound))):
            r = _vector_result(rate(states), len(states), f"rate of move {m}")
            _check_rates(r, f"rate of move {m}", lambda i: f"at state {states[i].tolist()}")
            source = np.flatnonzero(r > 0)
            inside = np.ones(len(source), dtype=bool)
            for c in np.flatnonzero(displacement):
                coordinate = states[source, c] + displacement[c]
                inside &= (coordinate >= 0) & (coordinate <= bound[c])
            positions, found = space.positions(space.ranks[source] + displacement @ space.strides)
            found &= inside
            if not found.all():
                _raise_leaves_space(m, displacement, states[source[~found][0]], feasible, not inside[~found][0])
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
        """Position of ``state`` in :attr:`states`."""
        return self._space.index(state)

    def reachable(self, initial: Any = None) -> CTMC:
        """The chain restricted to the states reachable from ``initial`` (default: state 0).

        A reachable set is closed, so the rows of the restricted generator still sum to zero.
        States keep their relative order (a lattice chain stays sorted by rank); the chain itself
        is returned when every state is reachable.

        Examples
        --------
        A pure-birth chain on 0..4 started at 2 reaches 2, 3 and 4:

        >>> chain = CTMC.from_lattice((4,), [((1,), lambda X: 1.0 * (X[:, 0] < 4))])
        >>> chain.reachable((2,)).states.ravel().tolist()
        [2, 3, 4]
        """
        start = 0 if initial is None else self.index(initial)
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

    def stationary(self, method: str = "auto", rtol: float = 1e-12, reference: Any = None) -> Stationary:
        """Stationary distribution ``pi`` (``pi Q = 0``, ``sum pi = 1``).

        Parameters
        ----------
        method : {"auto", "direct", "iterative"}
            ``"direct"``: sparse LU (SuperLU, ``MMD_AT_PLUS_A`` ordering). ``"iterative"``: GMRES
            with an incomplete-LU preconditioner, for chains whose LU factors do not fit.
            ``"auto"`` (default): direct up to ``DIRECT_SOLVE_LIMITS`` states (a limit that
            falls with the mean number of transitions per state), iterative above.
        rtol : float
            Relative residual at which GMRES stops (iterative solver only).
        reference : state, optional
            The state whose balance equation is replaced by ``pi = 1`` first (default: state 0).
            Accuracy and GMRES convergence are best when it is among the likeliest states; pass
            one where it is known (e.g. a fluid equilibrium) and the initial state is unlikely.
            If the result's residual is poor, likelier states are tried automatically.

        Returns
        -------
        Stationary
            The probabilities aligned with :attr:`states` and the residual ``||pi Q||_1``.

        Raises
        ------
        ReducibleChainError
            The chain is not irreducible (an absorbing state, several closed classes, or
            transient states), so no stationary law with full support exists.
        ConvergenceError
            The iterative solver did not reach ``rtol``.
        """
        if method not in ("auto", "direct", "iterative"):
            raise InvalidParameterError("method", method, 'must be "auto", "direct" or "iterative"')
        if not 0 < rtol < 1:
            raise InvalidParameterError("rtol", rtol, "must lie in (0, 1)")
        self._require_irreducible()
        n = self.n_states
        if method == "auto":
            degree = (self._generator.nnz - n) / n
            limit = next(states for bound, states in DIRECT_SOLVE_LIMITS if degree <= bound)
            method = "direct" if n <= limit else "iterative"
        if n == 1:
            pi, iterations, label = np.ones(1), 0, "trivial"
        else:
            first = 0 if reference is None else self.index(reference)
            pi, iterations, label = _solve_stationary(self._generator, method, rtol, first)
        residual = float(np.abs(self._generator.T @ pi).sum())
        return Stationary(pi, residual, label, iterations, self.states, self._space)

    def detailed_balance_residual(self, probabilities: np.ndarray | Stationary) -> float:
        """Total imbalance of the probability flows, ``sum_{i<j} |pi_i q_ij - pi_j q_ji|``.

        Zero (up to round-off) exactly when the chain is reversible with respect to ``pi``.
        """
        pi = probabilities.probabilities if isinstance(probabilities, Stationary) else np.asarray(probabilities, float)
        self._check_distribution(pi, "probabilities")
        flows = sp.diags_array(pi) @ self._generator
        flows.setdiag(0)
        return float(abs(flows - flows.T).sum() / 2)

    def transient(self, times: float | Sequence[float], initial: Any) -> np.ndarray:
        """Distribution at time(s) t: ``p(t) = p(0) exp(Q t)``.

        Parameters
        ----------
        times : float or sequence of float
            Times ``t >= 0``, in any order.
        initial : state or array
            A state of the chain (point mass) or a probability vector aligned with :attr:`states`.

        Returns
        -------
        numpy.ndarray
            Shape ``(n_states,)`` for a scalar time, ``(len(times), n_states)`` otherwise. Entries
            below zero from round-off (about 1e-16) are set to zero.
        """
        t = np.asarray(times, dtype=float)
        if t.ndim > 1 or not np.all(np.isfinite(t)) or np.any(t < 0):
            raise InvalidParameterError("times", t, "must be finite and >= 0")
        p = self._initial_distribution(initial)
        order = np.argsort(t.ravel())
        out = np.empty((t.size, self.n_states))
        clock = 0.0
        qt = self._generator.T.tocsr()
        for k in order:
            p = spla.expm_multiply(qt * (t.ravel()[k] - clock), p)
            clock = t.ravel()[k]
            out[k] = np.maximum(p, 0.0)
        return out[0] if t.ndim == 0 else out

    # -- helpers --------------------------------------------------------------------------------

    def _initial_distribution(self, initial: Any) -> np.ndarray:
        if isinstance(initial, np.ndarray) and initial.dtype.kind == "f" and initial.shape == (self.n_states,):
            self._check_distribution(initial, "initial")
            return initial.astype(float)
        p = np.zeros(self.n_states)
        p[self.index(initial)] = 1.0
        return p

    def _check_distribution(self, pi: np.ndarray, name: str) -> None:
        if pi.shape != (self.n_states,) or not np.all(np.isfinite(pi)) or np.any(pi < 0) \
                or not np.isclose(pi.sum(), 1.0, rtol=0, atol=1e-9):
            raise InvalidParameterError(name, pi, f"must be a probability vector of length {self.n_states}")

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
            details.append(f"absorbing state(s) {', '.join(repr(_plain(states[i])) for i in absorbing[:3])}")
        examples = ", ".join(repr(_plain(states[int(np.flatnonzero(labels == c)[0])])) for c in closed[:3])
        raise ReducibleChainError(
            "the chain is not irreducible, so it has no stationary distribution with full support: "
            + "; ".join(details) + f"; closed classes contain e.g. {examples}")


# ---------------------------------------------------------------------------------------------
# Solvers
# ---------------------------------------------------------------------------------------------


def _solve_stationary(generator: sp.csr_array, method: str, rtol: float, first: int) -> tuple[np.ndarray, int, str]:
    """Solve pi Q = 0 with pi[k] = 1 for a reference state k, then normalize.

    With the balance equation of state k replaced by ``pi_k = 1`` the system matrix is, up to
    sign, a nonsingular M-matrix. It is factorized with diagonal pivots: row interchanges destroy
    the sign pattern (partial pivoting returned garbage for an M/M/1/200 queue at load 1.3). The
    accuracy then hinges on k: LU pivots are differences, and when k is far less likely than
    other states the late pivots are tiny differences of O(1) numbers (the cancellation the GTH
    algorithm avoids), and GMRES stalls. Hence:

    * a solution whose scaled residual ``||pi Q||_1 / max|q_ii|`` exceeds ``_RESIDUAL_LIMIT`` is
      rejected and likelier reference states are tried; only when every one fails does the
      iterative solver move on to a tighter (costlier) ILU;
    * an accepted direct solution whose reference state has probability below ``_MODE_RATIO``
      times the largest is solved once more from the likeliest state: with the reference a
      million times less likely than the mode, its own probability had lost 1e-10 relative.
    """
    qt = generator.T
    scale = float(np.abs(generator.diagonal()).max())
    references = _ReferenceStates(qt, scale, first)
    tried: list[int] = []
    failure = ""
    for setting in [None] if method == "direct" else _ILU_SETTINGS:
        for reference in references:
            tried.append(reference)
            outcome = _attempt(generator, scale, reference, setting, rtol)
            if isinstance(outcome, str):
                failure = outcome
                continue
            pi, iterations, label = outcome
            mode = int(np.argmax(pi))
            if setting is None and pi[reference] < _MODE_RATIO * pi[mode]:
                again = _attempt(generator, scale, mode, setting, rtol)
                if not isinstance(again, str):
                    (pi, iterations, label), reference = again, mode
            return pi, iterations, label + ("" if reference == first else f", reference state {reference}")
    raise ConvergenceError(
        f"no reference state among {sorted(set(tried))} gave an accurate stationary vector (last: {failure}); "
        "the probabilities range too widely for double precision, or the chain is nearly decomposable")


def _attempt(generator: sp.csr_array, scale: float, reference: int, setting: tuple[float, float] | None,
             rtol: float) -> tuple[np.ndarray, int, str] | str:
    """The normalized solution pinned at ``reference``, or why it was rejected."""
    matrix, rhs = _pinned_system(generator, reference)
    try:
        x, iterations, label = _solve_pinned(matrix, rhs, setting, rtol)
    except RuntimeError as exc:  # a vanished SuperLU pivot, or GMRES stalling
        return str(exc)
    if not np.all(np.isfinite(x)):
        return "the solution overflowed"
    x = np.maximum(x, 0.0)
    pi = x / x.sum()
    scaled = float(np.abs(generator.T @ pi).sum()) / scale
    if scaled > _RESIDUAL_LIMIT:
        return f"scaled residual ||pi Q||_1 / max|q_ii| = {scaled:.3g} > {_RESIDUAL_LIMIT:g}"
    return pi, iterations, label


class _ReferenceStates:
    """Reference states to try, without repeats: the given one, the likeliest after 500 steps of
    the uniformized chain from the uniform law (computed once, when first needed), the last."""

    def __init__(self, qt: sp.csc_array, scale: float, first: int) -> None:
        self._qt, self._scale, self._first = qt, scale, first
        self._likeliest: int | None = None

    def __iter__(self) -> Iterator[int]:
        yield self._first
        if self._likeliest is None:
            p = np.full(self._qt.shape[0], 1.0 / self._qt.shape[0])
            step = (self._qt / (1.05 * self._scale)).tocsr()
            for _ in range(500):
                p += step @ p
            self._likeliest = int(np.argmax(p))
        yield from dict.fromkeys(k for k in (self._likeliest, self._qt.shape[0] - 1) if k != self._first)


def _pinned_system(generator: sp.csr_array, k: int) -> tuple[sp.csc_array, np.ndarray]:
    """``Q^T`` with the balance equation of state k replaced by ``-x_k = -1``, and its right side.

    Replacing the row instead of slicing row and column k out keeps the sparsity and needs no
    copy of the structure; the matrix is block triangular with M-matrix blocks (up to sign).
    """
    pinned = generator.copy()
    in_column_k = np.flatnonzero(pinned.indices == k)
    row_of_entry = np.searchsorted(pinned.indptr, in_column_k, side="right") - 1
    pinned.data[in_column_k] = np.where(row_of_entry == k, -1.0, 0.0)
    pinned.eliminate_zeros()
    rhs = np.zeros(generator.shape[0])
    rhs[k] = -1.0
    return pinned.T, rhs


def _solve_pinned(matrix: sp.csc_array, rhs: np.ndarray, setting: tuple[float, float] | None,
                  rtol: float) -> tuple[np.ndarray, int, str]:
    """Solve the pinned system: SuperLU (``setting`` None) or GMRES(100) with ILUTP(drop tolerance,
    fill factor), both with diagonal pivots.

    GMRES runs one restart cycle at a time and gives up as soon as a cycle fails to halve the
    residual: a hopeless system (an unlikely reference state) costs one cycle, not thousands of
    iterations, while slow steady convergence may take up to ``_GMRES_CYCLES`` cycles.
    """
    if setting is None:
        return spla.splu(matrix, **_DIAGONAL_PIVOTING).solve(rhs), 0, "direct (SuperLU, MMD_AT_PLUS_A)"
    drop_tol, fill_factor = setting
    ilu = spla.spilu(matrix, drop_tol=drop_tol, fill_factor=fill_factor, **_DIAGONAL_PIVOTING)
    preconditioner = spla.LinearOperator(matrix.shape, ilu.solve)
    norm = np.linalg.norm(rhs)
    y, residuals, previous = np.zeros_like(rhs), [], np.inf
    for _ in range(_GMRES_CYCLES):
        y, _ = spla.gmres(matrix, rhs, x0=y, M=preconditioner, rtol=rtol, atol=0.0, restart=100,
                          maxiter=1, callback=residuals.append, callback_type="pr_norm")
        residual = np.linalg.norm(matrix @ y - rhs) / norm  # GMRES's own test uses a preconditioned estimate
        if residual <= 10 * rtol:
            return y, len(residuals), f"iterative (GMRES(100), ILUTP drop_tol={drop_tol:g}, fill_factor={fill_factor:g})"
        if not residual < previous / 2:
            break
        previous = residual
    raise ConvergenceError(f"GMRES with ILUTP(drop_tol={drop_tol:g}) stopped at relative residual {residual:.3g} > rtol={rtol:g}")


# ---------------------------------------------------------------------------------------------
# Validation helpers
# ---------------------------------------------------------------------------------------------


def _check_rates(rates: np.ndarray, what: str, where: Callable[[int], str]) -> None:
    """Raise for the first rate that is negative, NaN or infinite; ``where(i)`` locates entry i."""
    bad = ~(rates >= 0) | np.isinf(rates)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidParameterError(what, rates[i], f"must be finite and >= 0 ({where(i)})")


def _plain(state: Any) -> Any:
    """A state for a message: lattice rows become lists."""
    return state.tolist() if isinstance(state, np.ndarray) else state


def _validate_upper(upper: Sequence[int]) -> np.ndarray:
    bound = np.asarray(upper)
    if bound.ndim != 1 or bound.size == 0 or bound.dtype.kind not in "iu" or np.any(bound < 0):
        raise InvalidParameterError("upper", upper, "must be a non-empty sequence of integers >= 0")
    if np.prod((bound + 1).astype(float)) >= 2.0**62:
        raise InvalidParameterError("upper", upper, "the box 0 <= x <= upper must have fewer than 2**62 points")
    return bound.astype(np.int64)


def _validate_moves(moves: Sequence, d: int) -> list[tuple[np.ndarray, Callable]]:
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


def _enumerate_lower_set(bound: np.ndarray, feasible: Callable, max_states: int) -> np.ndarray:
    """All lattice points where a downward-closed predicate holds, in rank order.

    Coordinates are added one at a time: for each feasible prefix (later coordinates zero), the
    feasible values of the next coordinate form an interval 0..m, found by raising the value while
    the predicate holds. Work is proportional to the number of feasible points, not the box.
    """
    d = len(bound)
    origin = np.zeros((1, d), dtype=np.int64)
    if not _predicate(feasible, origin)[0]:
        raise InvalidParameterError("feasible", feasible, "must hold at the origin (the set must be downward closed)")
    states = origin
    for k in range(d):
        blocks = [states]
        total = len(states)
        active = states
        for value in range(1, bound[k] + 1):
            candidates = active.copy()
            candidates[:, k] = value
            active = candidates[_predicate(feasible, candidates)]
            if not len(active):
                break
            total += len(active)
            if total > max_states:
                raise StateSpaceTooLargeError(total, max_states, "the feasible set", at_least=True)
            blocks.append(active)
        states = np.concatenate(blocks)
    ranks = states @ _strides(bound)
    return states[np.argsort(ranks, kind="stable")]


def _predicate(feasible: Callable, states: np.ndarray) -> np.ndarray:
    mask = np.asarray(feasible(states))
    if mask.shape != (len(states),) or mask.dtype != bool:
        raise InvalidParameterError("feasible", mask, f"must return a boolean array of shape ({len(states)},)")
    return mask


def _raise_leaves_space(m: int, displacement: np.ndarray, state: np.ndarray,
                        feasible: Callable | None, outside: bool) -> None:
    target = state + displacement
    if outside:
        reason = "outside 0 <= x <= upper"
    elif feasible is not None and _predicate(feasible, target[None, :])[0]:
        reason = "a feasible state never enumerated, so `feasible` is not downward closed"
    else:
        reason = "an infeasible state"
    raise InvalidParameterError(
        f"rate of move {m}", state.tolist(),
        f"is positive at this state but the move {displacement.tolist()} leads to {target.tolist()}, "
        f"{reason}; the rate must be 0 there")


# ---------------------------------------------------------------------------------------------
# Checks shown by `analytic reproduce`
# ---------------------------------------------------------------------------------------------


def _erlang_recursion(servers: int, load: float) -> float:
    """E_s(a) by the textbook recursion E_k = a E_{k-1} / (k + a E_{k-1}), E_0 = 1."""
    blocking = 1.0
    for k in range(1, servers + 1):
        blocking = load * blocking / (k + load * blocking)
    return blocking


def _loss_system(servers: int, load: float) -> CTMC:
    """M/M/s/s: arrivals at rate ``load``, unit-rate service, states 0..s busy servers."""
    return CTMC.from_function(0, lambda x: [(x + 1, load)] * (x < servers) + [(x - 1, float(x))] * (x > 0))


@reproduces
def _erlang_loss_rows() -> list[Row]:
    return [Row(paper="Erlang (1917), loss formula",
                statement=f"M/M/{s}/{s} at load {a:g}: stationary P(all busy) = E_s(a) by recursion",
                paper_value=_erlang_recursion(s, a),
                value=_loss_system(s, a).stationary().probability(s), tolerance=1e-12)
            for s, a in ((10, 7.0), (50, 45.0))]


@reproduces
def _product_form_row() -> Row:
    capacity, loads = 30, (0.6, 0.9)
    moves = [((1, 0), lambda X: loads[0] * (X[:, 0] < capacity)), ((-1, 0), lambda X: 1.0 * (X[:, 0] > 0)),
             ((0, 1), lambda X: loads[1] * (X[:, 1] < capacity)), ((0, -1), lambda X: 1.0 * (X[:, 1] > 0))]
    pi = CTMC.from_lattice((capacity, capacity), moves).stationary().probabilities
    marginals = [np.asarray(rho) ** np.arange(capacity + 1) for rho in loads]
    product = np.outer(*[m / m.sum() for m in marginals]).ravel()
    return Row(paper="Jackson (1957), product form",
               statement="two independent M/M/1/30 queues (loads 0.6, 0.9): max |pi - product form|",
               paper_value=0.0, value=float(np.abs(pi - product).max()), tolerance=1e-12)
