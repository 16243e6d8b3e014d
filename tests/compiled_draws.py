"""A compiled sampling loop shared by the tests of analytic.simulation's laws (importable as
``compiled_draws``: the test directory is put on the path by conftest.py)."""

import numba
import numpy as np

from analytic.simulation import draw


@numba.njit
def draw_many(code, parameters, rng, count):
    """``count`` sizes drawn one at a time by ``draw`` inside a compiled loop, as the simulators draw them."""
    out = np.empty(count)
    for i in range(count):
        out[i] = draw(code, parameters, rng)
    return out
