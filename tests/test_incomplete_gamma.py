"""Tests of analytic._incomplete_gamma's own log Γ, erfcx and ζ table, and of its imports.

References used: scipy.special.gammaln (the compiled Cephes ``lgam`` that
:func:`analytic._incomplete_gamma.gammaln` ports: the two must agree bit for bit); mpmath's
``loggamma`` at 40 digits; mpmath's ``erfc``, ``exp`` and ``zeta`` at 50 digits.
"""

import subprocess
import sys

import mpmath as mp
import numpy as np
import pytest
from scipy import special

from analytic._erfcx import CENTRE, QUOTIENT_COEFFICIENTS, TERMS, erfcx
from analytic._incomplete_gamma import ZETA, gammaln


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
    s = 10 too), E_0.5(0.7) (the small order's ζ table) and E_100(90), E_100(130) (Temme's region,
    erfcx) loads neither scipy.special nor mpmath: the Erlang commands start without them."""
    code = ("import sys, numpy as np; from analytic._incomplete_gamma import erlang_parts; "
            "erlang_parts(np.array([10.0, 4.0, 0.5, 0.5, 100.0, 100.0]), np.array([7.0, 3.0, 0.2, 0.7, 90.0, 130.0])).value(); "
            f"print({module!r} in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "False"


def _chebyshev_coefficients(nodes: int = 80) -> list[mp.mpf]:
    """c_r of (1 + 2x) erfcx(x) = sum_r c_r T_r(t), t = (x - K)/(x + K), from the interpolant at
    ``nodes`` Chebyshev nodes (aliasing below 1e-60 at 80 nodes), at the working precision."""
    centre = mp.mpf(CENTRE)
    angles = [mp.pi * (j + mp.mpf(1) / 2) / nodes for j in range(nodes)]
    values = [(1 + 2 * x) * mp.exp(x * x) * mp.erfc(x)
              for x in (centre * (1 + mp.cos(u)) / (1 - mp.cos(u)) for u in angles)]
    c = [2 * mp.fsum(v * mp.cos(r * u) for v, u in zip(values, angles, strict=True)) / nodes for r in range(nodes)]
    c[0] /= 2
    return c


def test_erfcx_coefficients_are_the_chebyshev_series_recomputed_with_mpmath():
    """The stored q is recomputed here with mpmath at 50 digits: the first TERMS Chebyshev
    coefficients, converted to powers of t (T_{r+1} = 2t T_r - T_{r-1}), divided by t + 1
    (synthetic division), rounded. The omitted coefficients sum to below 1e-17 and the remainder of
    the division, p(-1), is within 1e-17 of f(0) = 1 (1e-17 is a twentieth of a unit in the last
    place of f in [1, 1.13])."""
    with mp.workdps(50):
        c = _chebyshev_coefficients()
        assert mp.fsum(abs(v) for v in c[TERMS:]) < 1e-17
        powers = [mp.mpf(0)] * TERMS
        previous, current = [mp.mpf(1)] + [mp.mpf(0)] * TERMS, [mp.mpf(0), mp.mpf(1)] + [mp.mpf(0)] * (TERMS - 1)
        for r in range(TERMS):
            powers = [p + c[r] * q for p, q in zip(powers, previous, strict=False)]
            previous, current = current, [2 * (current[i - 1] if i else 0) - previous[i] for i in range(TERMS + 1)]
        quotient = [mp.mpf(0)] * (TERMS - 1)
        quotient[-1] = powers[-1]
        for k in range(TERMS - 2, 0, -1):
            quotient[k - 1] = powers[k] - quotient[k]
        assert abs(powers[0] - quotient[0] - 1) < 1e-17
        assert QUOTIENT_COEFFICIENTS == tuple(float(q) for q in quotient)


def test_erfcx_against_mpmath_on_a_dense_grid():
    """Relative error at most 1.5 units of 2^-52 against exp(x²) erfc(x) in mpmath at 50 digits, on
    x = 0 and 4001 log-spaced points from 1e-12 to 1e8 (measured: 1.43, at most 2.3 units in the last
    place of the value; scipy.special.erfcx reaches 3.98 units of 2^-52 and 8 ulps on the same grid).
    erfc(x) = exp(-x²) erfcx(x), which Temme's Q(s+1, a) = 1 - ½ erfc(x) + ... uses, within 1.5 units
    of 2^-52 absolute (its relative error grows like x² 2^-53 through exp(-x²) alone)."""
    x = np.concatenate([[0.0], np.geomspace(1e-12, 1e8, 4001)])
    with mp.workdps(50):
        exact = [mp.exp(mp.mpf(v) ** 2) * mp.erfc(mp.mpf(v)) for v in x]
        error = np.array([float(abs(mp.mpf(float(ours)) / e - 1)) for ours, e in zip(erfcx(x), exact, strict=True)])
        small = x <= 5
        erfc_error = np.array([float(abs(mp.mpf(float(ours)) - mp.erfc(mp.mpf(v))))
                               for ours, v in zip(np.exp(-x[small] ** 2) * erfcx(x[small]), x[small], strict=True)])
    assert error.max() <= 1.5 * 2.0**-52
    assert erfc_error.max() <= 1.5 * 2.0**-52
    assert erfcx(np.empty(0)).shape == (0,)


def test_zeta_table_is_correctly_rounded():
    """ZETA[k - 2] is ζ(k) for k = 2..56, rounded to nearest from mpmath's zeta at 50 digits."""
    with mp.workdps(50):
        assert ZETA == tuple(float(mp.zeta(k)) for k in range(2, 57))
