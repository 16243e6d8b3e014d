"""A Markov population model written in a few lines: counts on a lattice and transition classes.

A state is a vector of non-negative integer counts ``x = (x_1, ..., x_d)`` (each count bounded or
not). A *transition class* is a change vector ``v`` and a rate ``r(x)`` written as a sympy
expression in the counts: from ``x`` the chain jumps to ``x + v`` at rate ``r(x)``. From the same
expressions the package derives the vectorised numeric rates (for the kept states of a truncation,
:mod:`analytic.ctmc.truncation`) and the symbolic drift ``GV`` of a Lyapunov function (for the
proof on the states left out, :mod:`analytic.ctmc.lyapunov`). This is the model class of
Dayar, Hermanns, Spieler & Wolf, "Bounding the equilibrium distribution of Markov population
models", Numer. Linear Algebra Appl. 18 (2011), Sec. 2, and of the truncation literature reviewed by
Kuntz, Thomas, Stan & Barahona, SIAM Rev. 63 (2021).

One convention keeps models short: a transition is *not taken* where its target would leave the
lattice (a count below 0 or above its bound); there its rate counts as 0, whatever the expression
says. Everywhere else the rate must be finite and ``>= 0``; the package checks that on every state
it evaluates, and on the infinite remainder symbolically. A rate may divide by a polynomial (a Hill
function ``a / (1 + y^2)``): a denominator that vanishes where the transition is taken is refused
when the model is built.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np
import sympy

from analytic.ctmc.tails import exact
from analytic.errors import InvalidParameterError
from analytic.validation import as_number, integer

__all__ = ["PopulationModel", "expression", "lattice_points"]


def lattice_points(tops: Sequence[int]) -> np.ndarray:
    """Every integer vector ``0 <= v <= tops`` (componentwise), the last coordinate varying fastest.

    Parameters
    ----------
    tops : sequence of int

    Returns
    -------
    numpy.ndarray of int64, shape (Π (tops + 1), len(tops))

    Examples
    --------
    >>> lattice_points([1, 2]).tolist()
    [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]
    >>> lattice_points([]).shape
    (1, 0)
    """
    count = math.prod(t + 1 for t in tops)
    return np.array(list(itertools.product(*(range(t + 1) for t in tops))), dtype=np.int64).reshape(count, len(tops))


def expression(name: str, value: object, variables: tuple) -> sympy.Expr:
    """``value`` as an exact sympy expression in ``variables`` (floats taken as the rationals they
    store), or an :class:`~analytic.errors.InvalidParameterError` naming ``name``: text is not parsed
    (sympify would evaluate it), and booleans, containers, complex and non-finite values are refused.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    value : sympy expression or real number
    variables : tuple of sympy.Symbol
        The symbols it may use.

    Returns
    -------
    sympy.Expr

    Examples
    --------
    >>> x = sympy.Symbol("x")
    >>> expression("rate", 0.5 * x, (x,))
    x/2
    >>> expression("rate", "x", (x,))
    Traceback (most recent call last):
    ...
    analytic.errors.InvalidParameterError: rate = 'x': must be a sympy expression or a real number (text is not parsed)
    """
    number = as_number(value)
    if number is None and not isinstance(value, sympy.Expr):
        raise InvalidParameterError(name, value, "must be a sympy expression or a real number" + (
            " (text is not parsed)" if isinstance(value, str | bytes) else ""))
    if isinstance(number, Fraction):
        number = sympy.Rational(number.numerator, number.denominator)
    result = exact(value if number is None else (number.item() if isinstance(number, np.generic) else number))
    if result.has(sympy.nan, sympy.oo, -sympy.oo, sympy.zoo) or result.has(sympy.I):
        raise InvalidParameterError(name, value, "must be finite and real")
    unknown = result.free_symbols - set(variables)
    if unknown:
        raise InvalidParameterError(name, value, f"uses {sorted(map(str, unknown))}, which are not variables "
                                                 f"{list(variables)}")
    return result


def _bounds(name: str, value: object, d: int, default: object, allow_none: bool) -> tuple:
    """One entry per count (``None`` allowed where ``allow_none``), each an integer ``>= 0``."""
    if value is None:
        return (default,) * d
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Sequence | np.ndarray):
        raise InvalidParameterError(name, value, f"must be a sequence of {d} entries, one per variable")
    entries = tuple(value)
    if len(entries) != d:
        raise InvalidParameterError(name, value, f"must have one entry per variable ({d})")
    return tuple(None if (v is None and allow_none) else integer(f"{name}[{i}]", v, minimum=0)
                 for i, v in enumerate(entries))


def _check_poles(name: str, rate: sympy.Expr, change: tuple, symbols: tuple, upper: tuple) -> None:
    """Refuse a rate that divides by zero at a state of the lattice where its transition is taken.

    Each denominator (a negative power of a polynomial) is checked exactly: in one unbounded count,
    with the bounded counts set to each of their values, through its rational roots; in several
    unbounded counts, it must have non-negative coefficients and a positive constant term.
    """
    bounded = [i for i, u in enumerate(upper) if u is not None]
    for power in rate.atoms(sympy.Pow):
        if not (power.exp.is_Integer and power.exp < 0) or not power.base.is_polynomial(*symbols):
            continue
        base = power.base
        free = [i for i, v in enumerate(symbols) if v in base.free_symbols and upper[i] is None]
        if len(free) > 1:
            poly = sympy.Poly(base, *symbols)
            if any(c < 0 for c in poly.coeffs()) or poly.coeff_monomial(1) <= 0:
                raise InvalidParameterError(name, rate, f"divides by {base}, which may vanish on the lattice (a "
                                                        "denominator in several unbounded counts needs non-negative "
                                                        "coefficients and a positive constant term)")
            continue
        used = [i for i in bounded if symbols[i] in base.free_symbols]
        if math.prod(upper[i] + 1 for i in used) > 4096:
            continue                                      # the states evaluated are checked numerically
        for values in itertools.product(*(range(upper[i] + 1) for i in used)):
            state = dict(zip(used, values, strict=True))
            if any(not 0 <= state[i] + change[i] <= upper[i] for i in used):
                continue                                  # the transition is not taken there
            fixed = base.subs({symbols[i]: v for i, v in state.items()})
            if not free:
                poles = [None] if fixed == 0 else []
            else:
                i = free[0]
                roots = sympy.Poly(fixed, symbols[i]).ground_roots() if not fixed.is_zero else {0: 1}
                poles = [int(r) for r in roots if r.is_integer and r >= 0 and r + change[i] >= 0]
            if poles:
                where = {str(symbols[i]): v for i, v in state.items()}
                if free and poles[0] is not None:
                    where[str(symbols[free[0]])] = poles[0]
                raise InvalidParameterError(name, rate, f"divides by zero at {where or 'every state'} (a pole of "
                                                        f"1/({base}) on the lattice)")


def _symbols(variables: object) -> tuple[sympy.Symbol, ...]:
    if isinstance(variables, sympy.Symbol):
        variables = [variables]
    try:
        symbols = tuple(variables)
    except TypeError:
        raise InvalidParameterError("variables", variables, "must be a sequence of sympy Symbols") from None
    if not symbols:
        raise InvalidParameterError("variables", variables, "must name at least one count")
    for v in symbols:
        if not isinstance(v, sympy.Symbol):
            raise InvalidParameterError("variables", v, "must be a sympy Symbol")
    if len(set(symbols)) != len(symbols):
        raise InvalidParameterError("variables", symbols, "must be distinct symbols")
    return symbols


@dataclass(frozen=True, repr=False)
class PopulationModel:
    """A CTMC on non-negative integer counts, given by transition classes with symbolic rates.

    Parameters
    ----------
    variables : sequence of sympy.Symbol
        The counts ``x_1, ..., x_d``.
    transitions : sequence of (change, rate)
        ``change`` a non-zero integer vector of length ``d``; ``rate`` a sympy expression (or a
        number) in the variables, taken where the target is a state (module docstring).
    upper : sequence of int or None, optional
        An upper bound per count (None: unbounded). Default: every count unbounded.
    initial : sequence of int, optional
        A state of the chain (default: all counts 0). The chain is the set of states reached from
        it: a model with every count bounded is solved on those states (a capacity such as
        ``Σ c_i x_i <= n`` needs no bound of its own when no rate leads past it).

    Raises
    ------
    InvalidParameterError
        Variables that are not distinct symbols, a change vector of the wrong length or zero, a rate
        with a symbol that is not a variable, a negative bound, an initial state off the lattice.

    Examples
    --------
    An M/M/3 queue with arrival rate 2 (the rates of the example in
    :func:`~analytic.ctmc.bounds.stationary_bounds`):

    >>> x = sympy.Symbol("x")
    >>> model = PopulationModel([x], [((1,), 2.0), ((-1,), sympy.Min(x, 3))])
    >>> model
    PopulationModel(x; +(1,) at 2, +(-1,) at Min(3, x))
    >>> [rate(np.array([[0], [5]])).tolist() for _, rate in model.moves]
    [[2.0, 2.0], [0.0, 3.0]]
    >>> model.drift(x)
    2 - Min(3, x)
    """

    variables: tuple
    transitions: tuple
    upper: tuple = None
    initial: tuple = None

    def __post_init__(self) -> None:
        symbols = _symbols(self.variables)
        d = len(symbols)
        if isinstance(self.transitions, str | bytes | Mapping) or not isinstance(self.transitions, Sequence):
            raise InvalidParameterError("transitions", self.transitions, "must be a sequence of (change, rate) pairs")
        if not self.transitions:
            raise InvalidParameterError("transitions", self.transitions, "must list at least one transition class")
        classes = []
        for k, item in enumerate(self.transitions):
            try:
                change, rate = item
            except (TypeError, ValueError):
                raise InvalidParameterError(f"transitions[{k}]", item, "must be a (change, rate) pair") from None
            vector = np.asarray(change)
            if vector.shape != (d,) or vector.dtype.kind not in "iu" or not vector.any():
                raise InvalidParameterError(f"transitions[{k}] change", change, f"must be a non-zero integer vector of "
                                                                                f"length {d}")
            classes.append((tuple(int(c) for c in vector), expression(f"transitions[{k}] rate", rate, symbols)))
        upper = _bounds("upper", self.upper, d, None, allow_none=True)
        for k, (change, rate) in enumerate(classes):
            _check_poles(f"transitions[{k}] rate", rate, change, symbols, upper)
        initial = _bounds("initial", self.initial, d, 0, allow_none=False)
        for i, (v, u) in enumerate(zip(initial, upper, strict=True)):
            if u is not None and v > u:
                raise InvalidParameterError(f"initial[{i}]", v, f"must be <= its bound {u}")
        object.__setattr__(self, "variables", symbols)
        object.__setattr__(self, "transitions", tuple(classes))
        object.__setattr__(self, "upper", upper)
        object.__setattr__(self, "initial", initial)

    def __repr__(self) -> str:
        names = ", ".join(f"{v}<={u}" if u is not None else str(v) for v, u in zip(self.variables, self.upper, strict=True))
        parts = ", ".join(f"+{change} at {rate}" for change, rate in self.transitions)
        return f"PopulationModel({names}; {parts})"

    @property
    def dimension(self) -> int:
        """``d``, the number of counts."""
        return len(self.variables)

    @property
    def unbounded(self) -> tuple[int, ...]:
        """The indices of the counts without an upper bound."""
        return tuple(i for i, u in enumerate(self.upper) if u is None)

    @property
    def bounded(self) -> tuple[int, ...]:
        """The indices of the counts with an upper bound (together, the phase)."""
        return tuple(i for i, u in enumerate(self.upper) if u is not None)

    @property
    def phase_count(self) -> int:
        """The number of phases: assignments of the bounded counts."""
        return math.prod(self.upper[i] + 1 for i in self.bounded)

    def feasible(self, states: np.ndarray) -> np.ndarray:
        """Which rows of ``states`` are states of the chain (counts ``>= 0`` and within their bounds).

        Parameters
        ----------
        states : int array, shape (m, d)

        Returns
        -------
        numpy.ndarray of bool, shape (m,)

        Examples
        --------
        >>> x, y = sympy.symbols("x y")
        >>> model = PopulationModel([x, y], [((1, 0), 1.0), ((0, 1), 1.0)], upper=[None, 2])
        >>> model.feasible(np.array([[5, 2], [5, 3], [-1, 0]])).tolist()
        [True, False, False]
        """
        try:
            X = np.asarray(states) if isinstance(states, np.ndarray | list | tuple) else None
        except ValueError:                      # ragged rows
            X = None
        if X is None or X.ndim != 2 or X.shape[1] != self.dimension or X.dtype.kind not in "iu":
            raise InvalidParameterError("states", states, f"must be an integer array of shape (m, {self.dimension})")
        ok = np.all(X >= 0, axis=1)
        for i, u in enumerate(self.upper):
            if u is not None:
                ok &= X[:, i] <= u
        return ok

    @cached_property
    def moves(self) -> list[tuple[tuple[int, ...], object]]:
        """The transition classes as ``(displacement, rate(X))`` for :mod:`analytic.ctmc.truncation`
        and :meth:`CTMC.from_lattice`: the rate is vectorised over the rows of ``X`` and 0 where the
        target leaves the lattice."""
        return [(change, self._numeric(k, change, rate)) for k, (change, rate) in enumerate(self.transitions)]

    def _numeric(self, k: int, change: tuple[int, ...], rate: sympy.Expr):
        function = sympy.lambdify(self.variables, rate, "numpy")
        shift = np.asarray(change, dtype=np.int64)
        name = f"transitions[{k}] rate"

        def evaluate(X: np.ndarray) -> np.ndarray:
            X = np.asarray(X)
            with np.errstate(all="ignore"):
                values = np.broadcast_to(np.asarray(function(*X.astype(float).T), dtype=float), (len(X),))
            taken = self.feasible(X + shift)
            bad = taken & self.feasible(X) & ~(values >= 0) | taken & np.isinf(values)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise InvalidParameterError(name, rate, f"is {values[i]} at the state {X[i].tolist()}: a rate must be "
                                                        "finite and >= 0 wherever its transition is taken")
            return np.where(taken, values, 0.0)

        return evaluate

    def drift(self, lyapunov: object) -> sympy.Expr:
        """The symbolic drift ``GV(x) = Σ_k r_k(x) (V(x + v_k) - V(x))``, at states where every
        transition is taken (away from the lattice's boundary).

        Parameters
        ----------
        lyapunov : sympy expression
            ``V`` in the variables.

        Returns
        -------
        sympy.Expr

        Examples
        --------
        >>> x = sympy.Symbol("x")
        >>> sympy.expand(PopulationModel([x], [((1,), 1), ((-1,), 2 * x)]).drift(x**2))
        -4*x**2 + 4*x + 1
        """
        V = expression("lyapunov", lyapunov, self.variables)
        total = sympy.S.Zero
        for change, rate in self.transitions:
            shifted = V.subs({v: v + c for v, c in zip(self.variables, change, strict=True)}, simultaneous=True)
            total += rate * (shifted - V)
        return total
