"""Tests of analytic._incomplete_gamma's own log Γ and of its imports.

References used: scipy.special.gammaln (the compiled Cephes ``lgam`` that
:func:`analytic._incomplete_gamma.gammaln` ports: the two must agree bit for bit) and mpmath's
``loggamma`` at 40 digits.
"""

import subprocess
import sys

import mpmath as mp
import numpy as np
import pytest
from scipy import special

from analytic._incomplete_gamma import gammaln


def test_gammaln_is_scipys_bit_for_bit():
    """Every branch of Cephes' lgam: the recurrence down to [2, 3) and up from (0, 2), the
    integers (where it returns log((x-1)!) exactly), Stirling's series with five terms, with three
    beyond 1000 and none beyond 1e8; against scipy's compiled lgam."""
    rng = np.random.default_rng(20261128)
    x = np.concatenate([rng.uniform(1e-3, 2, 20000), rng.uniform(2, 13, 20000), rng.uniform(13, 1000, 5000),
                        10 ** rng.uniform(3, 15, 5000), np.arange(1.0, 40.0), [1e-300, 1e8, 13.0]])
    assert np.array_equal(gammaln(x), special.gammaln(x))
    assert gammaln(np.empty(0)).shape == (0,)


def test_gammaln_accuracy_against_mpmath():
    """Absolute error at most 2e-15 on [0.5, 11] (the range stirlerr and log_poisson use), and
    relative error at most 1e-15 beyond, against mpmath's loggamma at 40 digits."""
    x = np.concatenate([np.linspace(0.5, 11, 301), np.geomspace(11, 1e15, 101)])
    with mp.workdps(40):
        exact = np.array([float(mp.loggamma(mp.mpf(v))) for v in x])
    small = x <= 11
    assert np.abs(gammaln(x[small]) - exact[small]).max() <= 2e-15
    assert (np.abs(gammaln(x[~small]) - exact[~small]) / np.abs(exact[~small])).max() <= 1e-15


@pytest.mark.parametrize("module", ["scipy.special", "mpmath"])
def test_import_leaves_scipy_special_and_mpmath_alone(module):
    """Importing the module and computing E_10(7) (the series region, stirlerr's gammaln below
    s = 10 too) loads neither scipy.special nor mpmath: the Erlang commands start without them."""
    code = ("import sys, numpy as np; from analytic._incomplete_gamma import erlang_parts; "
            "erlang_parts(np.array([10.0, 4.0, 0.5]), np.array([7.0, 3.0, 0.2])).value(); "
            f"print({module!r} in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "False"
