"""The speed-up curves of heSRPT, kept at their first import path: they live in :mod:`analytic.speedup`.

``ConcaveSpeedup`` is :class:`analytic.speedup.ConcaveSpeedup` and ``as_speedup`` is
:func:`analytic.speedup.as_curve` (a curve from a curve, a table, an exponent p or a callable).

Examples
--------
>>> from analytic.hesrpt.speedups import ConcaveSpeedup, as_speedup
>>> as_speedup(0.5, servers=10) == ConcaveSpeedup.power(0.5)
True
"""

from analytic.speedup import ConcaveSpeedup
from analytic.speedup import as_curve as as_speedup

__all__ = ["ConcaveSpeedup", "as_speedup"]
