"""Checks of scalar parameters shared by every module.

Each returns the value in its working type or raises :class:`~analytic.errors.InvalidParameterError`
naming the parameter, the value and the violated condition, so that messages read the same across
the package.

One rule says what a number is (:func:`as_number`): a real number of any kind — ``int``, ``float``,
``fractions.Fraction``, ``decimal.Decimal``, a numpy integer or float scalar, a 0-d array of them —
and never a ``bool`` (``True`` is not the number 1 for a parameter), a complex number or text. The
scalar checks below and :func:`real_array` (for every entry of a sequence) apply it, so a bad entry
inside a well-formed list is refused like a bad scalar.

Examples
--------
>>> integer("servers", 4, minimum=5, meaning=" (at least d = 5)")
Traceback (most recent call last):
...
analytic.errors.InvalidParameterError: servers = 4: must be an integer >= 5 (at least d = 5)
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from fractions import Fraction
from numbers import Integral, Real
from typing import Any

import numpy as np

from analytic.errors import AnalyticError, InvalidParameterError, scientific

__all__ = ["as_number", "confidence", "flag", "instances", "integer", "numeric_array", "option", "positive", "probabilities",
           "real", "real_array", "unit_fraction", "user_code"]

#: Largest deviation from one allowed in the sum of a probability vector (it is then renormalized).
PROBABILITY_TOLERANCE = 1e-9

#: The largest finite float: an int or Fraction beyond it has no float value.
FLOAT_MAX = float(np.finfo(float).max)
#: The least positive (subnormal) float: a non-zero Fraction or Decimal below it rounds to 0.
FLOAT_TINY = math.ulp(0.0)
#: Decimal exponents beyond the float range are capped at ±400 (still beyond it) when :func:`as_number`
#: makes a Fraction of the Decimal: Decimal('1e-999999999') would need a gigabyte-sized integer.
_DECIMAL_EXPONENT = 400


def as_number(value: Any) -> Real | None:
    """``value`` as a real number (a ``numbers.Real``), or ``None`` when it is not one.

    Accepted: ``int`` of any size, ``float``, ``Fraction``, ``Decimal`` (as the nearest float, or as a
    ``Fraction`` when it lies beyond the float range), numpy integer and float scalars, and 0-d arrays
    of them (an object array too: ``np.array(10**30)``). Refused: ``bool`` and ``numpy.bool_``, complex
    numbers, text, anything else. A number need not fit a float: the checks that return one refuse an
    ``int``, ``Fraction`` or ``Decimal`` beyond the largest float (about 1.8e308), or non-zero below the
    least one (about 4.9e-324, where it would round to 0), with a message saying so.

    Parameters
    ----------
    value : object
        The value to read.

    Returns
    -------
    numbers.Real or None
        ``value`` itself (a ``Decimal`` as a float, or as an exact ``Fraction`` beyond the float range,
        its exponent capped at ±400; a 0-d array as its scalar), or ``None`` when it is not a real number.

    Examples
    --------
    >>> from fractions import Fraction
    >>> as_number(Fraction(1, 2)), as_number(np.array(3)), as_number(True), as_number(np.array(10**30))
    (Fraction(1, 2), 3, None, 1000000000000000000000000000000)
    >>> as_number(Decimal("0.5")), as_number(Decimal("1e-400")) == Fraction(1, 10**400)
    (0.5, True)
    """
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iufO":
        value = value.item()   # an object array holds e.g. a Python int beyond 64 bits, np.array(10**30)
    if isinstance(value, bool | np.bool_):
        return None
    if isinstance(value, Decimal):
        return _decimal(value)
    return value if isinstance(value, Real) else None


def _decimal(value: Decimal) -> float | Fraction:
    """A Decimal as the nearest float; beyond the float range (where that is 0 or inf) as a Fraction, so that
    the range checks refuse it by its magnitude as they refuse a Fraction."""
    if value.is_nan():
        return math.nan   # float() raises for a signaling NaN
    number = float(value)
    if value.is_infinite() or not value or 0 < abs(number) < math.inf:
        return number
    sign, digits, exponent = value.as_tuple()
    adjusted = value.adjusted()
    shift = max(-_DECIMAL_EXPONENT - adjusted, 0) + min(_DECIMAL_EXPONENT - adjusted, 0)
    return Fraction(Decimal((sign, digits, exponent + shift)))


def real(name: str, value: Any, meaning: str = "", allow_infinite: bool = False) -> float:
    """``value`` as a ``float``: a real number by :func:`as_number` (not NaN), finite unless ``allow_infinite``.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    value : object
        The value to check.
    meaning : str
        Appended to the condition in the message, e.g. ``" (servers)"``.
    allow_infinite : bool
        Whether ``±inf`` is accepted.

    Returns
    -------
    float

    Raises
    ------
    InvalidParameterError
        ``value`` is not such a number, or an ``int`` or ``Fraction`` beyond the largest float (1.8e308).

    Examples
    --------
    >>> real("load", 3)
    3.0
    >>> real("load", float("nan"))
    Traceback (most recent call last):
    ...
    analytic.errors.InvalidParameterError: load = nan: must be a finite real number
    >>> real("load", 10**30), real("load", 10**30 + 1) == 1e30   # an int is real if a float holds it (rounded)
    (1e+30, True)
    """
    condition = f"must be {'a real number' if allow_infinite else 'a finite real number'}{meaning}"
    number = _as_float(name, value, condition)
    if math.isnan(number) or (not allow_infinite and math.isinf(number)):
        raise InvalidParameterError(name, value, condition)
    return number



def _as_float(name: str, value: Any, condition: str, shown: Any = None) -> float:
    """``value`` as a float by :func:`as_number`, or the error: not a number, or beyond the float range (either end).

    ``shown`` is the value the message shows, when it is not ``value`` (the array that holds it).
    """
    shown = value if shown is None else shown
    number = as_number(value)
    if number is None:
        raise InvalidParameterError(name, shown, condition)
    try:
        rounded = float(number)
    except OverflowError:
        raise InvalidParameterError(name, shown, f"{condition}: its magnitude exceeds the largest float, "
                                                 f"{FLOAT_MAX:.4g} (it is about {_magnitude(value, number)})") from None
    if rounded == 0 and number != 0:
        raise InvalidParameterError(name, shown, f"{condition}: its magnitude, about {_magnitude(value, number)}, "
                                                 f"underflows the float range: it is below the least positive float, "
                                                 f"{FLOAT_TINY:.4g}, and would round to 0")
    return rounded


def _magnitude(value: Any, number: Real) -> str:
    """``|value|`` to three digits, e.g. ``1e-400``, for a number beyond the float range: a Decimal as written
    (:func:`as_number` capped its exponent), an int or Fraction from its digits."""
    source = value.item() if isinstance(value, np.ndarray) else value
    return scientific(source if isinstance(source, Decimal) else number).lstrip("-")


def _first_bool(value: Any) -> tuple[int, ...] | None:
    """The index of the first boolean entry of a (nested) sequence or array, or None."""
    if isinstance(value, bool | np.bool_):
        return ()
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "b":
            return tuple(0 for _ in range(value.ndim)) if value.size else None
        if value.dtype.kind != "O":
            return None
        for index, entry in np.ndenumerate(value):
            inner = _first_bool(entry)
            if inner is not None:
                return index + inner
        return None
    if isinstance(value, list | tuple):
        for i, entry in enumerate(value):
            inner = _first_bool(entry)
            if inner is not None:
                return (i, *inner)
    return None


def numeric_array(name: str, value: Any, condition: str, booleans: bool = False) -> np.ndarray:
    """``value`` as a numpy array of real numbers of its own dtype (integers stay integers), or the error.

    Refuses what numpy would turn into text, objects, complex numbers or a raw error (ragged nesting),
    and booleans unless ``booleans`` (a mask is meant, not numbers); a mix of booleans and numbers never passes.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    value : object
        The value to convert.
    condition : str
        The message's condition when ``value`` is refused.
    booleans : bool
        Whether an all-boolean array (a mask) is accepted.

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    InvalidParameterError
        ``value`` is not an array of real numbers.

    Examples
    --------
    >>> numeric_array("counts", [1, 2], "must be integers").dtype.kind
    'i'
    """
    try:
        if isinstance(value, str | bytes | dict) or value is None:
            raise TypeError
        array = np.asarray(value)
    except (TypeError, ValueError, OverflowError):
        raise InvalidParameterError(name, value, condition) from None
    if array.dtype.kind == "O" and array.size and all(isinstance(x, Integral) and not isinstance(x, bool | np.bool_)
                                                      for x in array.flat):
        raise InvalidParameterError(name, value, f"{condition} (an entry exceeds the 64-bit integer range)")
    if array.dtype.kind not in ("biuf" if booleans else "iuf"):
        raise InvalidParameterError(name, value, condition)
    if array.dtype.kind != "b" and _first_bool(value) is not None:   # a mask is all booleans, numbers are none
        raise InvalidParameterError(name, value, f"{condition} (a bool at index {_first_bool(value)} is not a number)")
    return array


def real_array(name: str, value: Any, meaning: str = "", ndim: int | None = None, allow_infinite: bool = False,
               allow_empty: bool = True, allow_nan: bool = False) -> np.ndarray:
    """``value`` as a new float array of real numbers: no string, complex, ragged, NaN (or inf) entry.

    Every entry must be a number by :func:`as_number`: a ``bool`` is refused, inside a list or as a
    boolean array too; ``Fraction`` and ``Decimal`` entries are converted to the nearest float.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    value : object
        The value to convert.
    meaning : str
        Appended to the condition in the message.
    ndim : int, optional
        The required number of dimensions (a scalar has 0).
    allow_infinite : bool
        Whether ``±inf`` entries are accepted.
    allow_empty : bool
        Whether an array without entries is accepted.
    allow_nan : bool
        Leave NaN entries to a caller that names the offending one in its own terms.

    Returns
    -------
    numpy.ndarray
        A new float array.

    Raises
    ------
    InvalidParameterError
        Not such an array; the message names the first bad entry.

    Examples
    --------
    >>> real_array("rates", [1, 2.5], ndim=1)
    array([1. , 2.5])
    """
    kind = {None: "a real number or an array of real numbers", 0: "a real number",
            1: "a 1-D sequence of real numbers"}.get(ndim, f"a {ndim}-D array of real numbers")
    if not allow_empty:
        kind = f"a non-empty {kind[2:]}"
    try:
        if isinstance(value, str | bytes | dict) or value is None:
            raise TypeError
        source = np.asarray(value)
        if source.dtype.kind in "cUSVM":
            raise TypeError
        array = np.array(value, dtype=float)
    except OverflowError:   # an int (or Fraction) entry beyond the float range
        raise InvalidParameterError(name, value, f"must be {kind}{meaning}: an entry's magnitude exceeds the largest "
                                                 f"float, {FLOAT_MAX:.4g}") from None
    except (TypeError, ValueError):
        raise InvalidParameterError(name, value, f"must be {kind}{meaning}") from None
    if source.dtype.kind == "O":   # a Fraction or Decimal entry beyond the float range: refused, not read as 0 or inf
        for index, entry in np.ndenumerate(source):
            if as_number(entry) is not None:
                _as_float(name, entry, f"must be {kind}{meaning}: the entry at index {index}", value)
    where = _first_bool(value)
    if where is not None:
        at = "" if not where else f" at index {where}"
        raise InvalidParameterError(name, value, f"must be {kind}{meaning}: a bool{at} is not a number")
    if ndim is not None and array.ndim != ndim:
        raise InvalidParameterError(name, value, f"must be {kind}{meaning}, not of shape {array.shape}")
    if not allow_empty and array.size == 0:
        raise InvalidParameterError(name, value, f"must be {kind}{meaning}")
    bad = np.zeros(array.shape, bool) if allow_nan else np.isnan(array) if allow_infinite else ~np.isfinite(array)
    if bad.any():
        where = "" if array.ndim == 0 else f" at index {tuple(int(i) for i in np.argwhere(bad)[0])}"
        raise InvalidParameterError(name, value, f"must be {'free of NaN' if allow_infinite else 'finite'}"
                                                 f"{meaning}: {float(array[bad].ravel()[0])}{where}")
    return array


def instances(name: str, value: Any, kind: type | tuple[type, ...], meaning: str = "") -> tuple:
    """``value`` (one ``kind`` instance or a non-empty iterable of them) as a tuple of ``kind`` instances.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    value : object
        One instance or an iterable of them.
    kind : type or tuple of type
        The accepted types.
    meaning : str
        Appended to the condition in the message.

    Returns
    -------
    tuple

    Raises
    ------
    InvalidParameterError
        Empty, not iterable, or an entry of another type (the message gives its index).

    Examples
    --------
    >>> instances("sizes", 2.0, float)
    (2.0,)
    """
    kinds = kind if isinstance(kind, tuple) else (kind,)
    label = " or ".join(k.__name__ for k in kinds)
    condition = f"must be a non-empty sequence of {label}{meaning}"
    if isinstance(value, kinds):
        return (value,)
    if isinstance(value, str | bytes | dict) or not hasattr(value, "__iter__"):
        raise InvalidParameterError(name, value, condition)
    items = tuple(value)
    if not items:
        raise InvalidParameterError(name, value, condition)
    numbers = any(issubclass(k, Real) for k in kinds)
    if numbers:   # the one rule for numbers: a 0-d array is its number, a bool is none
        items = tuple(number if isinstance(item, np.ndarray) and (number := as_number(item)) is not None else item
                      for item in items)
    for i, item in enumerate(items):
        if not isinstance(item, kinds) or (numbers and isinstance(item, bool | np.bool_) and bool not in kinds):
            raise InvalidParameterError(name, value, f"{condition} (entry {i} is a {type(item).__name__})")
    return items


def flag(name: str, value: Any) -> bool:
    """``value`` as a ``bool``: it must be ``True`` or ``False`` (numpy's booleans included), not any truthy object.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    value : object
        The value to check.

    Returns
    -------
    bool

    Raises
    ------
    InvalidParameterError
        Anything else, e.g. ``1`` or ``"yes"``.

    Examples
    --------
    >>> import numpy as np
    >>> flag("progress", np.True_)
    True
    """
    if not isinstance(value, bool | np.bool_):
        raise InvalidParameterError(name, value, "must be True or False")
    return bool(value)


def option(name: str, value: Any, options: Any) -> str:
    """``value``, which must be one of the strings ``options``.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    value : object
        The value to check.
    options : iterable of str
        The accepted strings.

    Returns
    -------
    str

    Raises
    ------
    InvalidParameterError
        ``value`` is not one of them; the message lists them.

    Examples
    --------
    >>> option("solver", "highs", ("highs", "cvxpy"))
    'highs'
    """
    choices = tuple(options)
    if not isinstance(value, str) or value not in choices:
        raise InvalidParameterError(name, value, f"must be one of {', '.join(map(repr, choices))}")
    return value


def integer(name: str, value: Any, minimum: int = 1, meaning: str = "") -> int:
    """``value`` as an ``int``: it must be an integer (not a bool, not a float) ``>= minimum``.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    value : object
        The value to check.
    minimum : int
        The smallest value accepted.
    meaning : str
        Appended to the condition in the message.

    Returns
    -------
    int

    Raises
    ------
    InvalidParameterError
        Not an integer, or below ``minimum``.

    Examples
    --------
    >>> integer("servers", 4)
    4
    >>> integer("servers", 4.0)
    Traceback (most recent call last):
    ...
    analytic.errors.InvalidParameterError: servers = 4: must be a positive integer
    """
    number = as_number(value)
    if not isinstance(number, Integral) or number < minimum:
        bound = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
        raise InvalidParameterError(name, value, f"must be {bound}{meaning}")
    return int(number)


def positive(name: str, value: Any, meaning: str = "") -> float:
    """``value`` as a ``float``: it must be a real number (:func:`as_number`) with ``0 < value < inf`` (NaN fails).

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    value : object
        The value to check.
    meaning : str
        Appended to the condition in the message.

    Returns
    -------
    float

    Raises
    ------
    InvalidParameterError
        Not positive and finite (an ``int`` beyond the largest float, 1.8e308, included).

    Examples
    --------
    >>> positive("rate", 2), positive("rate", 10**30)
    (2.0, 1e+30)
    """
    condition = f"must be positive and finite{meaning}"
    number = _as_float(name, value, condition)
    if not 0 < number < math.inf:
        raise InvalidParameterError(name, value, condition)
    return number


def unit_fraction(name: str, value: Any, closed: bool = False, meaning: str = "") -> float:
    """``value`` as a ``float`` in the open interval (0, 1), or in (0, 1] with ``closed=True`` (NaN fails).

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    value : object
        The value to check.
    closed : bool
        Whether 1 is accepted.
    meaning : str
        Appended to the condition in the message.

    Returns
    -------
    float

    Raises
    ------
    InvalidParameterError
        Outside the interval.

    Examples
    --------
    >>> unit_fraction("p", 1, closed=True)
    1.0
    """
    condition = f"must lie in {'(0, 1]' if closed else 'the open interval (0, 1)'}{meaning}"
    number = as_number(value)
    if number is None or not (0 < number < 1 or (closed and number == 1)):
        raise InvalidParameterError(name, value, condition)
    return _as_float(name, value, condition)


def probabilities(name: str, value: Any, length: int | None = None, meaning: str = "") -> np.ndarray:
    """``value`` as a float vector of finite entries ``>= 0`` summing to one within 1e-9, renormalized.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    value : object
        The vector to check.
    length : int, optional
        The required length.
    meaning : str
        Appended to the condition in the message.

    Returns
    -------
    numpy.ndarray
        The vector divided by its sum.

    Raises
    ------
    InvalidParameterError
        Not a vector, a negative or non-finite entry, or a sum off one by more than 1e-9.

    Examples
    --------
    >>> probabilities("p", [0.25, 0.75]).tolist()
    [0.25, 0.75]
    """
    size = "" if length is None else f" of length {length}"
    try:
        vector = real_array(name, value, ndim=1, allow_empty=False, allow_infinite=True, allow_nan=True)
    except InvalidParameterError as error:
        raise InvalidParameterError(name, value, f"must be a probability vector{size}{meaning} ({error.condition})") from None
    if length is not None and vector.size != length:
        raise InvalidParameterError(name, value, f"must be a probability vector{size}{meaning}")
    if not np.all(np.isfinite(vector)) or np.any(vector < 0):
        raise InvalidParameterError(name, vector, f"must be a probability vector{meaning}: entries finite and >= 0")
    if abs(vector.sum() - 1.0) > PROBABILITY_TOLERANCE:
        raise InvalidParameterError(name, vector, f"must be a probability vector{meaning}: entries sum to "
                                                  f"{vector.sum():.12g}, not 1")
    return vector / vector.sum()


def confidence(name: str, value: Any) -> float:
    """``value`` as a ``float`` strictly between 0 and 1 (a confidence level), by more than double precision resolves.

    A level within machine epsilon of 0 or 1 has no finite two-sided quantile in double precision.

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    value : object
        The level to check.

    Returns
    -------
    float

    Raises
    ------
    InvalidParameterError
        Outside ``[eps, 1 - eps]``.

    Examples
    --------
    >>> confidence("level", 0.95)
    0.95
    """
    epsilon = float(np.finfo(float).eps)
    number = as_number(value)
    if number is None or not epsilon <= number <= 1 - epsilon:
        raise InvalidParameterError(name, value, f"must lie strictly between 0 and 1 (a confidence level), within "
                                                 f"[{epsilon:.3g}, 1 - {epsilon:.3g}]")
    return float(number)


@contextmanager
def user_code(name: str, argument: Any, requirement: str) -> Iterator[None]:
    """Run a user's callable (a policy, a balance function, a speed-up curve, ...) under the package's one rule.

    An exception raised inside becomes :class:`~analytic.errors.InvalidParameterError` naming the
    parameter ``name``, showing the ``argument`` the callable failed on, what it raised and the
    ``requirement`` it must meet, with the original exception chained (as ``CTMC.from_function``
    does for a transition function). Errors of :mod:`analytic` itself and ``MemoryError`` pass through,
    and so does an interrupt (``KeyboardInterrupt``) that compiled code reports as the cause of a
    ``SystemError``.

    Parameters
    ----------
    name : str
        The name of the parameter that holds the callable.
    argument : object
        The input the callable is called on, for the message.
    requirement : str
        What the callable must do, for the message.

    Raises
    ------
    InvalidParameterError
        The code inside raised an exception other than an error of :mod:`analytic` or a
        ``MemoryError``.

    Examples
    --------
    >>> with user_code("f", 0, "f maps x to 1/x"):
    ...     1 / 0
    Traceback (most recent call last):
    ...
    analytic.errors.InvalidParameterError: f = 0: failed on this input (ZeroDivisionError: division by zero); f maps x to 1/x
    """
    try:
        yield
    except (AnalyticError, MemoryError):
        raise
    except Exception as error:
        interrupt = _interrupt(error)
        if interrupt is not None:
            raise interrupt from None
        raise InvalidParameterError(name, argument, f"failed on this input ({type(error).__name__}: {error}); "
                                                    f"{requirement}") from error


def _interrupt(error: BaseException) -> BaseException | None:
    """A ``KeyboardInterrupt`` (or another exception outside ``Exception``) chained to ``error``: a
    signal handler that raised while compiled code returned to Python, which numba reports as
    ``SystemError: ... returned a result with an exception set`` caused by it. Not the callable's
    failure: :func:`user_code` re-raises it as it was."""
    seen: BaseException | None = error
    for _ in range(16):                       # chains are short; a cycle cannot hold the loop
        if seen is None:
            return None
        if not isinstance(seen, Exception):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None
