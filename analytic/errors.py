"""Exception types of :mod:`analytic`.

Every error raised for bad input names the parameter, the offending value and the condition it
violates, so that a message alone says what to change. All input errors are subclasses of
:class:`ValueError`; all errors of the package are subclasses of :class:`AnalyticError`.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "AnalyticError",
    "ConvergenceError",
    "InvalidParameterError",
    "ReducibleChainError",
    "StateSpaceTooLargeError",
    "UnstableSystemError",
    "describe",
]


def describe(value: object, limit: int = 8) -> str:
    """A short rendering of a parameter value for an error message (long values are cut)."""
    if isinstance(value, np.ndarray):
        head = np.array2string(value.ravel()[:limit], separator=", ", precision=10)
        return head if value.size <= limit else f"{head[:-1]}, ...] (shape {value.shape})"
    if isinstance(value, float):
        return f"{value:.10g}"
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


class AnalyticError(Exception):
    """Base class of every error raised by :mod:`analytic`."""


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
    """

    def __init__(self, parameter: str, value: object, condition: str) -> None:
        self.parameter = parameter
        self.value = value
        self.condition = condition
        super().__init__(f"{parameter} = {describe(value)}: {condition}")


class UnstableSystemError(AnalyticError, ValueError):
    """A stability condition fails, so the requested stationary quantity does not exist.

    The message names the quantity, its value, the limit it must stay below and the excess, e.g.
    ``unstable: load per server = 1.05 must be < 1 (exceeds it by 0.05)``.
    """

    def __init__(self, quantity: str, value: float, limit: float, context: str = "") -> None:
        self.quantity = quantity
        self.value = value
        self.limit = limit
        suffix = f"; {context}" if context else ""
        super().__init__(
            f"unstable: {quantity} = {value:.10g} must be < {limit:.10g} "
            f"(exceeds it by {value - limit:.3g}){suffix}"
        )


class StateSpaceTooLargeError(AnalyticError, ValueError):
    """Building a chain would need more states than the caller allowed.

    Raised before the memory is spent: the message says how many states would be needed
    (or a lower bound on it) and which limit was set.
    """

    def __init__(self, needed: int, limit: int, what: str = "the chain", at_least: bool = False) -> None:
        self.needed = needed
        self.limit = limit
        amount = f"more than {limit:,}" if at_least else f"{needed:,}"
        super().__init__(
            f"{what} needs {amount} states, above max_states={limit:,}; "
            "raise max_states if the memory allows it, or reduce the model size"
        )


class ReducibleChainError(AnalyticError, ValueError):
    """A chain has no unique stationary distribution with full support.

    Raised for absorbing states, several closed classes, or transient states: the message
    counts the classes and names example states.
    """


class ConvergenceError(AnalyticError, RuntimeError):
    """An iterative solver stopped before reaching its tolerance; the message gives the residual."""
