"""The speed-up curves keep their first import paths (analytic.hesrpt, analytic.hesrpt.speedups).

The curves themselves are tested in tests/test_speedup.py; here only that the old names are the new
objects and behave as before.
"""

import numpy as np

import analytic.speedup
from analytic.hesrpt import ConcaveSpeedup, as_speedup
from analytic.hesrpt import speedups as old_module


def test_old_import_paths_are_the_unified_model():
    assert ConcaveSpeedup is analytic.speedup.ConcaveSpeedup is old_module.ConcaveSpeedup
    assert as_speedup is analytic.speedup.as_curve is old_module.as_speedup


def test_as_speedup_keeps_its_signature_and_meaning():
    assert as_speedup(0.5, 10).exponent == 0.5
    assert as_speedup(np.sqrt, 10).exponent is None
    curve = ConcaveSpeedup.power(0.5)
    assert as_speedup(curve, 10) is curve
