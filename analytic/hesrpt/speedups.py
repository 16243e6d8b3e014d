"""Deprecated home of heSRPT's speed-up curves: they live in :mod:`analytic.speedup` (go in version 0.3)."""

from analytic import _deprecation

__all__: list[str] = []

__getattr__ = _deprecation.old_names(globals(), {"ConcaveSpeedup": "analytic.speedup.SpeedupCurve",
                                                 "as_speedup": "analytic.speedup.as_curve"})
