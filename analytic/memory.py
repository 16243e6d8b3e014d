"""Memory available to the package's builders and solvers, checked before they allocate.

A chain or a factorization that would not fit is refused with
:class:`~analytic.errors.StateSpaceTooLargeError` (saying how much it needs and how much there is)
instead of exhausting the machine. The budget is 80 % of the memory the kernel reports available
(``MemAvailable``), and no more than what an address-space limit (``ulimit -v``) leaves.

Examples
--------
>>> available_bytes() > 0
True
>>> try:
...     require(10**30, "the example", n_states=10**9)
... except StateSpaceTooLargeError as refusal:
...     print(str(refusal).split(", more than")[0])
the example needs 1,000,000,000 states and about 9.31e+20 GiB of memory
"""

from __future__ import annotations

import math
import os
import resource
import sys
from fractions import Fraction
from numbers import Integral

from analytic._deprecation import renamed_arguments
from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.validation import as_number, flag, integer, real

__all__ = ["available_bytes", "fits", "require"]

#: Fraction of the memory reported available that one computation may plan to use.
FRACTION = 0.8

#: Plans below this many bytes fit without asking the system: reading its figures (about 0.1 ms)
#: would cost a small chain's solve as much as the solve itself.
UNCHECKED_BYTES = 2**26


def _meminfo_available() -> int | None:
    try:
        with open("/proc/meminfo") as lines:
            for line in lines:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def _address_space_left() -> int | None:
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        with open("/proc/self/statm") as statm:
            used = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        used = 0
    return max(soft - used, 0)


def available_bytes() -> int:
    """Bytes one computation may plan to allocate now.

    Returns
    -------
    int
        A fraction of the memory the system reports available, capped by what the address-space
        limit (``ulimit -v``) leaves; 2**62 when neither is known.

    Examples
    --------
    >>> available_bytes() > 0
    True
    """
    limits = [int(FRACTION * b) for b in (_meminfo_available(),) if b is not None]
    limits += [b for b in (_address_space_left(),) if b is not None]
    return min(limits) if limits else 2**62


def fits(bytes_needed: float) -> bool:
    """Whether ``bytes_needed`` fit in :func:`available_bytes` (at once below ``UNCHECKED_BYTES``).

    Parameters
    ----------
    bytes_needed : float
        Bytes a computation would allocate (``inf`` allowed: it never fits).

    Returns
    -------
    bool
        True when the bytes fit.

    Raises
    ------
    InvalidParameterError
        ``bytes_needed`` is not a number >= 0.

    Examples
    --------
    >>> fits(1e3), fits(float("inf"))
    (True, False)
    """
    bytes_needed = _bytes(bytes_needed)
    if bytes_needed < 0:
        raise InvalidParameterError("bytes_needed", bytes_needed, "must be >= 0")
    return bytes_needed <= UNCHECKED_BYTES or bytes_needed <= available_bytes()


def _bytes(value: float) -> float:
    """``value`` as a float; an integer beyond the float range (a count of 10**400 items) is ``inf``: it never fits."""
    number = as_number(value)
    if isinstance(number, Integral) and number > sys.float_info.max:
        return math.inf
    return real("bytes_needed", value, allow_infinite=True)


@renamed_arguments(states="n_states")
def require(bytes_needed: float, what: str, n_states: int, at_least: bool = False, advice: str | None = None) -> None:
    """Raise :class:`StateSpaceTooLargeError` unless ``bytes_needed`` fit in :func:`available_bytes`.

    Parameters
    ----------
    bytes_needed : float
        Bytes the computation would allocate (>= 0; ``inf`` allowed, and refused).
    what : str
        What would be built, for the message.
    n_states : int
        The size of the model (a lower bound when ``at_least``), for the message.
    at_least : bool
        Whether ``n_states`` is a lower bound.
    advice : str, optional
        Replaces the message's default advice when the model has a better route than more memory.

    Returns
    -------
    None

    Raises
    ------
    StateSpaceTooLargeError
        The bytes do not fit; the message gives both amounts.

    Examples
    --------
    >>> require(1e3, "a small chain", 10)
    >>> try:
    ...     require(float("inf"), "an infinite chain", 10)
    ... except StateSpaceTooLargeError:
    ...     print("refused")
    refused
    """
    bytes_needed = _bytes(bytes_needed)
    n_states = integer("n_states", n_states, minimum=0)
    at_least = flag("at_least", at_least)
    if not fits(bytes_needed):
        available = available_bytes()
        # in rationals: a count beyond the float range (a model of 1.7e308 servers) times the bytes overflows a float
        fitting = 0 if bytes_needed == math.inf else int(Fraction(n_states * available) / Fraction(bytes_needed))
        raise StateSpaceTooLargeError(n_states, fitting, what, at_least, memory=(int(min(bytes_needed, 2.0**1000)), available),
                                      advice=advice)
