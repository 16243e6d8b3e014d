"""The simulation clock's horizon: how long a run may be before a double no longer resolves a job size.

An event loop keeps time in one double. After ``n`` arrivals at rate λ the clock reads about n/λ,
and its resolution is 2^-52 of that: a service time far below it is lost when added to the clock
(at n/λ = 1e111 mean sizes a job's arrival and departure fell on the same instant, its delay came
out 0). ``check_horizon`` refuses a run before it starts when its arrivals span more than
:data:`MAX_HORIZON` mean job sizes, naming ``jobs`` or the rate that made the clock run that far.

Examples
--------
>>> MAX_HORIZON * 2.0**-52   # the clock's resolution at the horizon, in mean job sizes
0.0002220446049250313
"""

from __future__ import annotations

from typing import Any

from analytic.errors import InvalidParameterError

__all__ = ["MAX_HORIZON"]

#: Longest run, in mean job sizes: beyond it the clock, a double, no longer resolves a service time
#: (2.2e-16 × 1e12 ≈ 2e-4 of a mean size).
MAX_HORIZON = 1e12


def check_horizon(arrivals: Any, per_run: int, work_rate: float, rate: tuple[str, Any], size: str = "mean size") -> None:
    """Refuse a run whose arrivals span more than :data:`MAX_HORIZON` mean job sizes (the clock's resolution).

    ``per_run`` arrivals at total arrival rate × mean size ``work_rate`` span ``per_run/work_rate``
    mean sizes. The error names ``arrivals`` when ``per_run`` alone exceeds the horizon (no arrival rate
    of order one or less would do), else the parameter ``rate = (name, value)`` that made the rate
    so small. Integers beyond the double range are compared exactly.

    Parameters
    ----------
    arrivals : int
        The ``arrivals`` argument, for the message.
    per_run : int
        Arrivals per replication.
    work_rate : float
        Total arrival rate × mean size, work arriving per unit time (0 where it underflowed).
    rate : tuple of (str, object)
        The parameter blamed for a rate too small, and its value.
    size : str
        What the mean size is, for the message (e.g. ``"smallest mean size of a class"``).

    Raises
    ------
    InvalidParameterError
        The run is longer than the horizon.

    Examples
    --------
    10^18 arrivals are too many at any rate of order one; 2000 at a rate of 1e-300 span 2e303 mean sizes:

    >>> for arrivals, rate in [(10**18, 1.0), (2000, 1e-300)]:
    ...     try:
    ...         check_horizon(arrivals, arrivals, rate, ("arrival_rate", rate))
    ...     except InvalidParameterError as error:
    ...         print(error.parameter)
    arrivals
    arrival_rate
    """
    if per_run <= MAX_HORIZON * work_rate:
        return
    if per_run > MAX_HORIZON:
        raise InvalidParameterError("arrivals", arrivals, f"must be at most {MAX_HORIZON * work_rate:.3g} per replication at "
                                                          f"total arrival rate × {size} {work_rate:.3g}: a longer run spans "
                                                          f"more than {MAX_HORIZON:g} mean job sizes, where the clock no "
                                                          "longer resolves a service time")
    name, value = rate
    raise InvalidParameterError(name, value, f"is so small that {per_run} arrivals span more than {MAX_HORIZON:g} mean job "
                                             f"sizes (total arrival rate × {size} {work_rate:.3g}), where the clock no "
                                             "longer resolves a service time")
