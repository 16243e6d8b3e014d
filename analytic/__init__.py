"""Exact and asymptotic results for scheduling parallel jobs in clusters.

``analytic`` turns five papers on parallel-job scheduling into functions: optimal allocations,
blocking probabilities, bounds and limits, each cross-validated against an independent exact
computation. Modules are imported on demand: ``from analytic.ctmc import CTMC``.
"""

__version__ = "0.1.0"

from . import _deprecation

_deprecation.install()
