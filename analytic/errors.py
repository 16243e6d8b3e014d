"""Exception types of :mod:`analytic`.

Every error raised for bad input names the parameter, the offending value and the condition it
violates, so that a message alone says what to change. All input errors are subclasses of
:class:`ValueError`; all errors of the package are subclasses of :class:`AnalyticError`.
"""

from __future__ import annotations

from decimal import MAX_EMAX, MIN_EMIN, Decimal, localcontext
from numbers import Rational

import numpy as np

__all__ = [
    "AnalyticDeprecationWarning",
    "AnalyticError",
    "ConvergenceError",
    "InvalidParameterError",
    "ReducibleChainError",
    "StateSpaceTooLargeError",
    "UnstableSystemError",
    "describe",
]


def describe(value: object, limit: int = 8) -> str:
    """A short rendering of a parameter value for an error message (long values are cut).

    Parameters
    ----------
    value : object
        The value to render.
    limit : int
        Most entries of an array shown.

    Returns
    -------
    str
        The value: floats to ten significant digits, arrays cut after ``limit`` entries with their
        shape, other reprs cut at 120 characters.

    Examples
    --------
    >>> describe(0.1 + 0.2)
    '0.3'
    >>> import numpy as np
    >>> describe(np.arange(10.0), limit=3)
    '[0., 1., 2., ...] (shape (10,))'
    """
    if isinstance(value, np.ndarray):
        head = np.array2string(value.ravel()[:limit], separator=", ", precision=10)
        return head if value.size <= limit else f"{head[:-1]}, ...] (shape {value.shape})"
    if isinstance(value, float):
        return f"{value:.10g}"
    try:
        text = repr(value)
    except ValueError:   # Python prints no int of more than 4300 digits
        return scientific(value) if isinstance(value, Rational) else f"<{type(value).__name__} too long to print>"
    return text if len(text) <= 120 else text[:117] + "..."


def scientific(number: Rational | Decimal) -> str:
    """An int, Fraction or Decimal of any size to three significant digits, e.g. ``'1e+400'``.

    Parameters
    ----------
    number : int, Fraction or Decimal
        The number; it need not fit a float.

    Returns
    -------
    str

    Examples
    --------
    >>> from fractions import Fraction
    >>> scientific(10**400), scientific(Fraction(-2, 3 * 10**400))
    ('1e+400', '-6.67e-401')
    """
    with localcontext(prec=3, Emax=MAX_EMAX, Emin=MIN_EMIN):
        exact = +number if isinstance(number, Decimal) else Decimal(number.numerator) / number.denominator
        return f"{exact.normalize():.3g}"


class AnalyticDeprecationWarning(DeprecationWarning):
    """Warning for a name that was renamed: the old name works for one more release.

    The message gives the new name; CHANGELOG.md lists every rename.

    Examples
    --------
    >>> import warnings
    >>> import analytic.speedup
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     analytic.speedup.SpeedUp is analytic.speedup.SpeedupTable
    True
    >>> print(caught[0].message)
    analytic.speedup.SpeedUp is renamed analytic.speedup.SpeedupTable; the old name will be removed in version 0.3
    """


class AnalyticError(Exception):
    """Base class of every error raised by :mod:`analytic`.

    Examples
    --------
    >>> from analytic.erlang import erlang_b
    >>> try:
    ...     erlang_b(-1, 2.0)
    ... except AnalyticError as error:
    ...     print(type(error).__name__)
    InvalidParameterError
    """


class InvalidParameterError(AnalyticError, ValueError):
    """A parameter is outside its domain.

    The message reads ``<parameter> = <value>: <condition>``, e.g.
    ``speedup = [1, 1.8, 2.7]: must be concave: the slope rises at k = 2, from 0.8 to 0.9``.

    Parameters
    ----------
    parameter : str
        Name of the offending argument as the caller spelled it.
    value : object
        The value received (rendered with :func:`describe`).
    condition : str
        The condition the value violates, phrased as a requirement.

    Examples
    --------
    >>> str(InvalidParameterError("servers", -1, "must be >= 0"))
    'servers = -1: must be >= 0'
    """

    def __init__(self, parameter: str, value: object, condition: str) -> None:
        self.parameter = parameter
        self.value = value
        self.condition = condition
        super().__init__(f"{parameter} = {describe(value)}: {condition}")


class UnstableSystemError(AnalyticError, ValueError):
    """A stability condition fails, so the requested stationary quantity does not exist.

    The message names the quantity, its value, the limit it must stay below and the excess (or,
    at the limit, that it equals it: the boundary is unstable too).

    Parameters
    ----------
    quantity : str
        What must stay below the limit, e.g. ``"load per server"``.
    value : float
        Its value.
    limit : float
        The bound it must stay below.
    context : str, optional
        Which condition of which paper fails, appended to the message.

    Examples
    --------
    >>> str(UnstableSystemError("load per server", 1.05, 1.0))
    'unstable: load per server = 1.05 must be < 1 (exceeds it by 0.05)'
    >>> str(UnstableSystemError("load per server", 1.0, 1.0))
    'unstable: load per server = 1 is not below the limit 1 (it equals it)'
    """

    def __init__(self, quantity: str, value: float, limit: float, context: str = "") -> None:
        self.quantity = quantity
        self.value = value
        self.limit = limit
        suffix = f"; {context}" if context else ""
        if value == limit:
            failure = f"is not below the limit {limit:.10g} (it equals it)"
        else:
            failure = f"must be < {limit:.10g} (exceeds it by {value - limit:.3g})"
        super().__init__(f"unstable: {quantity} = {value:.10g} {failure}{suffix}")


class StateSpaceTooLargeError(AnalyticError, ValueError):
    """Building or solving a model would need more states, or more memory, than is allowed.

    Raised before the memory is spent: the message says how many states would be needed (or a
    lower bound on it) and which limit was set; when memory is the limit, also how many bytes would
    be needed and how many are available.

    Parameters
    ----------
    needed : int
        States needed (a lower bound when ``at_least``).
    limit : int
        The largest number of states allowed (``max_states``, or what fits in memory).
    what : str
        What is being built, e.g. ``"the lattice"``.
    at_least : bool
        Whether ``needed`` is only a lower bound (counting stopped at the limit).
    memory : (int, int), optional
        Bytes needed and bytes available, when memory rather than ``max_states`` is the limit.
    advice : str, optional
        What to do instead, when the model has a better route than a larger chain (replaces the
        default advice to raise ``max_states`` or reduce the model).

    Examples
    --------
    >>> print(StateSpaceTooLargeError(2000, 1000, "the lattice"))
    the lattice needs 2,000 states, above max_states=1,000; raise max_states if the memory allows it, or reduce the model size
    """

    def __init__(self, needed: int, limit: int, what: str = "the chain", at_least: bool = False,
                 memory: tuple[int, int] | None = None, advice: str | None = None) -> None:
        self.needed = needed
        self.limit = limit
        self.memory = memory
        amount = _count(needed)
        if at_least:
            amount = f"more than {_count(limit)}" if memory is None else f"at least {_count(needed)}"
        if memory is None:
            message = (f"{what} needs {amount} states, above max_states={_count(limit)}; "
                       f"{advice or 'raise max_states if the memory allows it, or reduce the model size'}")
        else:
            message = (f"{what} needs {amount} states and about {_gigabytes(memory[0])} of memory, more than "
                       f"the {_gigabytes(memory[1])} available; {advice or 'reduce the model size or free memory'}")
        super().__init__(message)


def _count(count: int) -> str:
    """A count in full below 10**30, beyond as ``1.23e+400`` (from its digits: a count may exceed the
    float range)."""
    count = int(count)
    if abs(count) < 10**30:
        return f"{count:,}"
    digits = str(abs(count))
    return f"{'-' if count < 0 else ''}{digits[0]}.{digits[1:3]}e+{len(digits) - 1}"


def _gigabytes(count: int) -> str:
    if count < 2**1000:
        return f"{count / 2**30:.3g} GiB"
    return f"{_count(int(count) // 2**30)} GiB"


class ReducibleChainError(AnalyticError, ValueError):
    """A chain has no unique stationary distribution with full support.

    Raised for absorbing states, several closed classes, or transient states: the message
    counts the classes and names example states.

    Examples
    --------
    >>> from analytic.ctmc import CTMC
    >>> try:
    ...     CTMC.from_function(0, lambda x: [(x + 1, 1.0)] * (x < 2)).stationary()
    ... except ReducibleChainError:
    ...     print("state 2 is absorbing")
    state 2 is absorbing
    """


class ConvergenceError(AnalyticError, RuntimeError):
    """A solver stopped before reaching the accuracy it vouches for; the message says what it reached.

    Examples
    --------
    >>> issubclass(ConvergenceError, AnalyticError), issubclass(ConvergenceError, RuntimeError)
    (True, True)
    """
