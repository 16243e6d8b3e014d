"""Tests of analytic.simulation.PhaseType, SizeLaw.to_phase_type and fit_phase_type.

References, each independent of the code under test:

* moments: mpmath at 50 digits, ``k! α (-T)^(-k) 1`` by ``mpmath.lu_solve`` on the generator as the law
  defines it (off-diagonal rates and exit rates), and the closed forms of Erlang, hyperexponential
  and Coxian laws;
* CDF and density: mpmath's ``expm`` at 50 digits of the generator with its absorbing state, the closed
  forms (``mpmath.gammainc`` for Erlang laws, sums of exponentials for hyperexponential and
  hypoexponential laws), numerical integration of the density (``scipy.integrate.quad``), and the
  ErlangMixture's own CDF and moments (incomplete gamma functions: another code path);
* the stationary-excess law: ``(1/E[S]) ∫_0^x (1 - F(u)) du`` by quad, and ``α (-T)^(-1) / E[S]`` in mpmath;
* the three-moment fit: the fitted law's three moments in mpmath against the targets over a grid of
  feasible targets, and the example butools prints for its implementation of the same method
  (Bobbio, Horváth & Telek 2005);
* samplers (vectorized and the compiled ``draw``): Kolmogorov–Smirnov tests against the exact CDF
  over 50 fixed seeds each, whose rejection count at the 5 % level must stay in the binomial band
  (never one lucky seed), and the sample mean within a band of its standard error over the seeds.
"""

import math
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest
from compiled_draws import draw_many
from scipy import integrate, stats

from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.simulation import (
    ErlangMixture,
    Pareto,
    PhaseType,
    bimodal,
    deterministic,
    erlang,
    exponential,
    fit_phase_type,
    fitted,
    hyperexponential,
    mixed_erlang,
)

ROOT = Path(__file__).parents[2]


def random_law(seed, m=5):
    """A dense phase-type law with random rates (some phases without an exit)."""
    rng = np.random.default_rng(seed)
    rates = rng.exponential(size=(m, m)) * (rng.random((m, m)) < 0.6)
    np.fill_diagonal(rates, 0.0)
    exits = rng.exponential(size=m) * (rng.random(m) < 0.5)
    exits[0] = 0.3
    initial = rng.random(m)
    return PhaseType(initial / initial.sum(), rates - np.diag(rates.sum(axis=1) + exits))


COXIAN = PhaseType([1.0, 0.0], [[-3.0, 1.0], [0.0, -0.5]])             # leave phase 0 for phase 1 w.p. 1/3
STIFF = PhaseType([0.5, 0.3, 0.2], [[-1e6, 1e6 - 2.0, 1.0], [0.5, -2.0, 1e-3], [0.0, 1e-6, -1e-3]])
LAWS = {"coxian": COXIAN, "stiff": STIFF, "random 1": random_law(1), "random 2": random_law(2, 6),
        "fit 3 moments": fit_phase_type(1.0, 3.0, 15.0), "mixed erlang": mixed_erlang().to_phase_type()}


def exact_generator(law):
    """The law's sub-generator in mpmath: off-diagonal rates as given, diagonal minus their sum and the exit rate."""
    m = law.order
    T = mpmath.matrix(m, m)
    for i in range(m):
        for j in range(m):
            if i != j:
                T[i, j] = mpmath.mpf(float(law.generator[i, j]))
        T[i, i] = -(mpmath.fsum(T[i, j] for j in range(m) if j != i) + mpmath.mpf(float(law.exit_rates[i])))
    return T


def exact_initial(law):
    total = mpmath.fsum(mpmath.mpf(float(v)) for v in law.initial)
    return [mpmath.mpf(float(v)) / total for v in law.initial]


def mp_moments(law, count):
    """E[S^k], k = 1..count, as k! α (-T)^(-k) 1 at 50 digits."""
    with mpmath.workdps(50):
        minus_t, alpha = -exact_generator(law), exact_initial(law)
        vector, out = mpmath.matrix([1] * law.order), []
        for k in range(1, count + 1):
            vector = mpmath.lu_solve(minus_t, vector)
            out.append(mpmath.factorial(k) * mpmath.fsum(a * v for a, v in zip(alpha, vector, strict=True)))
        return out


def mp_cdf_pdf(law, x):
    """P(S <= x) and the density at x from mpmath's expm of the generator with its absorbing state, at 50 digits."""
    with mpmath.workdps(50):
        m, T = law.order, exact_generator(law)
        Q = mpmath.zeros(m + 1, m + 1)
        for i in range(m):
            for j in range(m):
                Q[i, j] = T[i, j]
            Q[i, m] = mpmath.mpf(float(law.exit_rates[i]))
        row = mpmath.matrix([[*exact_initial(law), 0]]) * mpmath.expm(Q * mpmath.mpf(float(x)))
        return row[0, m], mpmath.fsum(row[0, j] * Q[j, m] for j in range(m))


def relative(value, reference):
    return abs(mpmath.mpf(float(value)) - reference) / abs(reference)


# -- moments ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", LAWS)
def test_moments_against_mpmath(name):
    """Mean, E[S²], E[S³], E[S⁴], variance, scv and excess mean to a few units in the last place."""
    law = LAWS[name]
    reference = mp_moments(law, 4)
    assert relative(law.mean, reference[0]) < 4e-16 * law.order
    assert relative(law.second_moment, reference[1]) < 4e-16 * law.order
    for k in (1, 2, 3, 4):
        assert relative(law.moment(k), reference[k - 1]) < 1e-15 * law.order * k
    with mpmath.workdps(50):
        variance = reference[1] - reference[0] ** 2
        assert relative(law.variance, variance) < 1e-15 * law.order
        assert relative(law.scv, variance / reference[0] ** 2) < 2e-15 * law.order
        assert relative(law.excess_mean, reference[1] / (2 * reference[0])) < 2e-15 * law.order


def test_variance_keeps_its_digits_at_small_scv():
    """Erlang-400 through the phase chain: scv 1/400 exactly (E[S²] - E[S]² would lose three digits)."""
    law = erlang(400, mean=3.0).to_phase_type()
    assert law.order == 400
    assert law.mean == pytest.approx(3.0, rel=1e-14, abs=0)
    assert law.variance == pytest.approx(9.0 / 400, rel=1e-13, abs=0)
    assert law.scv == pytest.approx(1 / 400, rel=1e-13, abs=0)


def test_moments_of_a_stiff_coxian_in_closed_form():
    """Rates 1e-8 and 1e8 (condition number 1e16): E[S] = 1/λ1 + p/λ2, E[S²] = 2/λ1² + 2p/(λ1 λ2) + 2p/λ2²."""
    l1, l2, p = 1e8, 1e-8, 0.25
    law = PhaseType([1.0, 0.0], [[-l1, p * l1], [0.0, -l2]])
    with mpmath.workdps(50):
        a, b, q = mpmath.mpf(l1), mpmath.mpf(l2), mpmath.mpf(p)
        assert relative(law.mean, 1 / a + q / b) < 4e-16
        assert relative(law.second_moment, 2 / a ** 2 + 2 * q / (a * b) + 2 * q / b ** 2) < 4e-16
        assert relative(law.variance, 2 / a ** 2 + 2 * q / (a * b) + 2 * q / b ** 2 - (1 / a + q / b) ** 2) < 4e-16


# -- CDF and density --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["coxian", "random 1", "random 2", "fit 3 moments"])
def test_cdf_and_density_against_mpmath_expm(name):
    """Relative accuracy at every x, the small values of the CDF near 0 and of the density in the tail included."""
    law = LAWS[name]
    rate = float(-np.diagonal(law.generator).min())
    for x in (1e-9, 1e-3, 0.1, 0.7, 2.0, 9.0, 40.0 / rate * 3):
        cdf, pdf = mp_cdf_pdf(law, x)
        tolerance = 1e-15 * (law.order + 4 + rate * x)
        assert relative(law.cdf(x), cdf) < tolerance, x
        assert relative(law.pdf(x), pdf) < tolerance, x


def test_stiff_law_against_mpmath_expm():
    """Rates from 1e-6 to 1e6: the powers e^(Q 2^j / q) are squared some 40 times."""
    for x in (1e-7, 1e-3, 1.0, 1e3, 1e4, 4e4):
        cdf, pdf = mp_cdf_pdf(STIFF, x)
        assert relative(STIFF.cdf(x), cdf) < 1e-13, x
        assert relative(STIFF.pdf(x), pdf) < 1e-13, x


@pytest.mark.parametrize("phases", [1, 2, 7, 30])
def test_erlang_chain_against_the_incomplete_gamma_function(phases):
    """P(S <= x) = P(k, k x) (mean 1) and f(x) = k (kx)^(k-1) e^(-kx) / (k-1)! in mpmath, down to values of 1e-270."""
    law = erlang(phases).to_phase_type()
    with mpmath.workdps(50):
        for x in (1e-9, 1e-4, 0.05, 0.5, 1.0, 2.5, 6.0):
            z = phases * mpmath.mpf(x)
            cdf = mpmath.gammainc(phases, 0, z, regularized=True)
            pdf = phases * z ** (phases - 1) * mpmath.exp(-z) / mpmath.factorial(phases - 1)
            if cdf > mpmath.mpf("1e-300"):
                assert relative(law.cdf(x), cdf) < 2e-15 * phases, x
            assert relative(law.pdf(x), pdf) < 2e-15 * phases, x


def test_hyperexponential_with_huge_scv_in_closed_form():
    """Whitt's balanced H2 of scv 1e20: rates 2 p_c; F(x) = 1 - Σ p_c e^(-2 p_c x) out to x = 1e21."""
    law = fitted(1.0, 1e10).to_phase_type()
    mixture = fitted(1.0, 1e10)
    with mpmath.workdps(50):
        p = [mpmath.mpf(float(w)) for w in mixture.weights]
        r = [mpmath.mpf(float(v)) for v in mixture.rates]
        for x in (1e-3, 1.0, 30.0, 1e19, 1e21):
            X = mpmath.mpf(x)
            survival = mpmath.fsum(pc * mpmath.exp(-rc * X) for pc, rc in zip(p, r, strict=True))
            pdf = mpmath.fsum(pc * rc * mpmath.exp(-rc * X) for pc, rc in zip(p, r, strict=True))
            assert relative(law.cdf(x), 1 - survival) < 1e-15, x
            assert relative(law.pdf(x), pdf) < 1e-14 * max(1.0, float(r[1] * X)), x


def test_coxian_cdf_in_closed_form():
    """S = X1 + I X2, X1 ~ Exp(3), X2 ~ Exp(0.5), P(I = 1) = 1/3: the hypoexponential and exponential parts."""
    with mpmath.workdps(50):
        a, b, p = mpmath.mpf(3), mpmath.mpf("0.5"), mpmath.mpf(1) / 3
        for x in (1e-5, 0.2, 1.0, 5.0, 30.0):
            X = mpmath.mpf(x)
            hypo = 1 - (b * mpmath.exp(-a * X) - a * mpmath.exp(-b * X)) / (b - a)
            cdf = (1 - p) * (1 - mpmath.exp(-a * X)) + p * hypo
            assert relative(COXIAN.cdf(x), cdf) < 1e-15, x


@pytest.mark.parametrize("name", LAWS)
def test_cdf_is_the_integral_of_the_density(name):
    law = LAWS[name]
    for x in (0.3 * law.mean, law.mean, 4 * law.mean):
        breaks = [v for v in np.geomspace(1e-7, x, 12)[:-1]] if name == "stiff" else None
        integral = integrate.quad(lambda u: float(law.pdf(u)), 0, x, points=breaks, limit=400, epsabs=0, epsrel=1e-12)[0]
        assert float(law.cdf(x)) == pytest.approx(integral, rel=1e-10, abs=0)


def test_special_points_and_shapes():
    law = LAWS["random 1"]
    x = np.array([[-np.inf, -1.0, 0.0], [1.0, 1e300, np.inf]])
    cdf, pdf = law.cdf(x), law.pdf(x)
    assert cdf.shape == pdf.shape == (2, 3)
    assert cdf[0].tolist() == [0.0, 0.0, 0.0] and cdf[1, 1:].tolist() == [1.0, 1.0]
    assert pdf[0, :2].tolist() == [0.0, 0.0] and pdf[1, 1:].tolist() == [0.0, 0.0]
    with mpmath.workdps(50):       # f(0) = α t
        alpha0 = mpmath.fsum(a * mpmath.mpf(float(t)) for a, t in zip(exact_initial(law), law.exit_rates, strict=True))
    assert relative(pdf[0, 2], alpha0) < 4e-16


def test_far_tail_ends_in_exact_zero_density():
    """Exponential, rate 1: e^-700 = 9.86e-305 is kept to its digits; e^-800 underflows to 0 (and the CDF is 1)."""
    law = exponential().to_phase_type()
    assert relative(law.pdf(700.0), mpmath.exp(-700)) < 1e-13
    assert float(law.pdf(800.0)) == 0.0 and float(law.cdf(800.0)) == 1.0
    assert float(law.pdf(5000.0)) == 0.0 and float(law.cdf(5000.0)) == 1.0


# -- ErlangMixture as a phase-type law --------------------------------------------------------------------

MIXTURES = {"exponential": exponential(2.0), "erlang 7": erlang(7, 0.5), "mixed erlang": mixed_erlang(),
            "hyperexponential": hyperexponential([1 / 6, 5 / 6], [5.0, 0.2]),
            "phases 25 and 1": ErlangMixture([1 / 6, 5 / 6], [25, 1], [5.0, 5.0]),
            "tijms": fitted(1.0, 0.6), "two rates": ErlangMixture([0.2, 0.3, 0.5], [3, 1, 2], [4.0, 1.0, 4.0])}
ORDERS = {"exponential": 1, "erlang 7": 7, "mixed erlang": 2, "hyperexponential": 2, "phases 25 and 1": 25,
          "tijms": 3, "two rates": 4}


@pytest.mark.parametrize("name", MIXTURES)
def test_erlang_mixture_as_phase_type_agrees_with_the_mixture(name):
    """The mixture's moments and incomplete-gamma CDFs (another code path) against the phase chain's; components
    of one rate share one chain."""
    mixture = MIXTURES[name]
    law = mixture.to_phase_type()
    assert law.order == ORDERS[name]
    assert law.mean == pytest.approx(mixture.mean, rel=1e-15, abs=0)
    assert law.second_moment == pytest.approx(mixture.second_moment, rel=1e-14, abs=0)
    assert law.scv == pytest.approx(mixture.scv, rel=1e-13, abs=0)
    x = np.array([0.01, 0.2, 0.7, 1.0, 2.0, 5.0]) * mixture.mean
    np.testing.assert_allclose(law.cdf(x), mixture.cdf(x), rtol=1e-13, atol=0)
    np.testing.assert_allclose(law.excess_cdf(x), mixture.excess_cdf(x), rtol=1e-13, atol=0)


# -- the stationary-excess law ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", LAWS)
def test_excess_cdf_is_the_integrated_survival_function(name):
    law = LAWS[name]
    for x in (0.3 * law.mean, law.mean, 4 * law.mean):
        breaks = list(np.geomspace(1e-7, x, 12)[:-1]) if name == "stiff" else None
        integral = integrate.quad(lambda u: 1.0 - float(law.cdf(u)), 0, x, points=breaks, limit=400, epsabs=0,
                                  epsrel=1e-12)[0]
        assert float(law.excess_cdf(x)) == pytest.approx(integral / law.mean, rel=1e-10, abs=0)


@pytest.mark.parametrize("name", LAWS)
def test_excess_law_starts_from_alpha_times_the_inverse(name):
    """π_e = α (-T)^(-1) / E[S] by mpmath.lu_solve on the transposed generator; same generator; mean E[S²]/(2E[S])."""
    law = LAWS[name]
    with mpmath.workdps(50):
        solved = mpmath.lu_solve((-exact_generator(law)).T, mpmath.matrix(exact_initial(law)))
        total = mpmath.fsum(solved)
        for got, want in zip(law.excess_law.initial, solved, strict=True):
            assert abs(mpmath.mpf(float(got)) - want / total) <= 1e-15 * law.order * want / total + mpmath.mpf("1e-300")
    np.testing.assert_array_equal(law.excess_law.exit_rates, law.exit_rates)
    assert law.excess_law.mean == pytest.approx(law.excess_mean, rel=1e-14 * law.order, abs=0)


# -- moment fits ------------------------------------------------------------------------------------------

#: Feasible targets: scv, and E[S³] as n3 = E[S³]/(E[S] E[S²]) = n2 (1 + f scv), f > 0 (n3 > n2 = 1 + scv).
FIT_TARGETS = [(scv, f) for scv in (0.15, 0.4, 0.8, 1.0, 1.3, 3.0, 10.0, 50.0) for f in (0.6, 1.0, 3.0, 30.0)]


@pytest.mark.parametrize("scv, f", FIT_TARGETS)
def test_three_moment_fit_matches_its_targets(scv, f):
    """The fitted law's three moments in mpmath (lu_solve) equal the targets; it is acyclic of the fewest phases
    an acyclic law of that scv can have or more (n >= 1/scv)."""
    mean = 2.5
    n2 = 1 + scv
    n3 = n2 * (1 + f * scv)
    targets = [mean, n2 * mean ** 2, n3 * n2 * mean ** 3]
    law = fit_phase_type(*targets)
    assert law.order >= math.ceil(1 / scv - 1e-12)
    assert np.all(np.tril(law.generator, -1) == 0)                     # acyclic, in upper bidiagonal order
    for got, want in zip(mp_moments(law, 3), targets, strict=True):
        assert relative(want, got) < 1e-15 * (law.order + 4)


def test_three_moment_fit_reproduces_the_butools_example():
    """butools' documentation of APHFrom3Moments (the same method) prints, for moments (10, 125, 8400), an order-6
    law with initial vector (1.3212e-05, 0.99999, 0, ...) and rates 0.0022936 then five of 0.50029."""
    law = fit_phase_type(10.0, 125.0, 8400.0)
    assert law.order == 6
    assert law.initial[0] == pytest.approx(1.3212e-05, rel=5e-5, abs=0)
    assert law.initial[1] == pytest.approx(0.99999, rel=1e-5, abs=0) and np.all(law.initial[2:] == 0)
    rates = -np.diagonal(law.generator)
    assert rates[0] == pytest.approx(0.0022936, rel=5e-5, abs=0)
    np.testing.assert_allclose(rates[1:], 0.50029, rtol=2e-5, atol=0)


@pytest.mark.parametrize("k", [1, 2, 4, 8])
def test_three_moments_of_an_erlang_law_give_it_back(k):
    """E[S^j] of Erlang-k of mean 1: (k+1)/k and (k+1)(k+2)/k², exact doubles for these k (for k = 5 the double
    nearest 6/5 lies below it: an scv below 1/5, which needs 6 phases); the fewest phases is k, and the law is
    Erlang-k."""
    law = fit_phase_type(1.0, (k + 1) / k, (k + 1) * (k + 2) / k ** 2)
    assert law.order == k
    x = np.array([0.1, 0.5, 1.0, 2.0])
    reference = [float(mpmath.gammainc(k, 0, k * mpmath.mpf(v), regularized=True)) for v in x]
    np.testing.assert_allclose(law.cdf(x), reference, rtol=1e-12, atol=0)


@pytest.mark.parametrize("scv", [0.05, 0.3, 0.45, 0.99, 1.0, 1.01, 4.0, 1e6])
def test_two_moment_fit_matches_and_reuses_fitted(scv):
    """Mean and E[S²] in mpmath; Tijms's k phases below scv 1 (1/k <= c² < 1/(k-1), with c² the exact scv of the
    doubles given), one at 1, two above; the CDF of fitted()'s mixture of the same mean and deviation."""
    mean, second = 0.5, (1 + scv) * 0.25
    law = fit_phase_type(mean, second)
    c2 = Fraction(second) / Fraction(mean) ** 2 - 1
    assert law.order == (max(2, math.ceil(1 / c2)) if c2 < 1 else 1 if c2 == 1 else 2)
    got = mp_moments(law, 2)
    assert relative(mean, got[0]) < 1e-15 * law.order
    assert relative(second, got[1]) < 2e-15 * law.order
    mixture = fitted(mean, math.sqrt(scv) * mean)
    x = np.array([0.5, 1.0, 2.0]) * mean
    np.testing.assert_allclose(law.cdf(x), mixture.cdf(x), rtol=1e-12, atol=0)


@pytest.mark.parametrize("call, match", [
    (lambda: fit_phase_type(1.0, 1.0), r"^second_moment = 1: must exceed mean² = 1: a phase-type law has a positive"),
    (lambda: fit_phase_type(2.0, 3.0, 10.0), r"^second_moment = 3: must exceed mean² = 4"),
    (lambda: fit_phase_type(1.0, 2.0, 4.0), r"^third_moment = 4: must exceed second_moment² / mean = 4 \(E\[S³\] E\[S\]"),
    (lambda: fit_phase_type(1.0, 2.0, 3.9), r"^third_moment = 3.9: must exceed second_moment² / mean = 4"),
    (lambda: fit_phase_type(1.0, 1.001), r"^second_moment = 1.001: needs more than max_phases=100 phases: .* scv >= 1/n"),
    (lambda: fit_phase_type(1.0, 1.5, 2.26), r"^third_moment = 2.26: needs more than max_phases=100 phases: no acyclic"),
    (lambda: fit_phase_type(1.0, 3.0, max_phases=1), r"^second_moment = 3: needs 2 phases, more than max_phases=1$"),
    (lambda: fit_phase_type(1.0, 3.0, 15.0, max_phases=2000), r"^max_phases = 2000: must be at most 1024$"),
    (lambda: fit_phase_type(-1.0, 3.0), r"^mean = -1: must be positive and finite$"),
    (lambda: fit_phase_type(1.0, 3.0, float("nan")), r"^third_moment = nan: must be positive and finite$"),
])
def test_infeasible_moments_are_refused_by_name(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


def test_fit_near_the_third_moment_infimum_takes_many_phases():
    """n3 = n2 (1 + 1/n) is the infimum for n phases (n2 >= (n+4)/(n+1)): a target just above it needs n phases."""
    n2 = 3.0
    law = fit_phase_type(1.0, n2, n2 * n2 * (1 + 1 / 40) * (1 + 1e-9))
    assert law.order == 40
    for got, want in zip(mp_moments(law, 3), [1.0, n2, n2 * n2 * (1 + 1 / 40) * (1 + 1e-9)], strict=True):
        assert relative(want, got) < 1e-13


# -- to_phase_type of the other families ------------------------------------------------------------------


@pytest.mark.parametrize("phases", [1, 3, 20])
def test_deterministic_size_as_an_erlang_law_of_stated_order(phases):
    law = deterministic(2.0).to_phase_type(phases=phases)
    assert law.order == phases and law.mean == pytest.approx(2.0, rel=1e-15, abs=0)
    assert law.scv == pytest.approx(1 / phases, rel=1e-14, abs=0)
    reference = [float(mpmath.gammainc(phases, 0, phases * mpmath.mpf(v) / 2, regularized=True)) for v in (0.5, 2.0, 3.0)]
    np.testing.assert_allclose(law.cdf([0.5, 2.0, 3.0]), reference, rtol=1e-13, atol=0)


def test_bimodal_law_keeps_its_mean_and_grows_its_second_moment_by_one_over_the_order():
    law = bimodal(0.5, 5.5, 0.1)
    approx = law.to_phase_type()
    assert approx.order == 40
    assert approx.mean == pytest.approx(law.mean, rel=1e-14, abs=0)
    assert approx.second_moment == pytest.approx(law.second_moment * (1 + 1 / 20), rel=1e-14, abs=0)


def test_pareto_laws_as_moment_fits():
    """Shape 3.5: E[S^j] = a y^j / (a - j) for j = 1, 2, 3; shape 2.5: the first two (the third is infinite)."""
    law = Pareto(3.5, 2.0)
    fit = law.to_phase_type()
    for got, j in zip(mp_moments(fit, 3), (1, 2, 3), strict=True):
        assert relative(3.5 * 2.0 ** j / (3.5 - j), got) < 1e-14
    law = Pareto(2.5, 1.0)
    fit = law.to_phase_type()
    got = mp_moments(fit, 2)
    assert relative(law.mean, got[0]) < 1e-14 and relative(law.second_moment, got[1]) < 1e-14


@pytest.mark.parametrize("call, error, match", [
    (lambda: Pareto(1.5, 1.0).to_phase_type(), InvalidParameterError,
     r"^shape = 1.5: must exceed 2 for a phase-type fit: the Pareto law's second moment is infinite"),
    (lambda: Pareto(30.0, 1.0).to_phase_type(), InvalidParameterError,
     r"^shape = 30: gives moments that no phase-type law of at most 100 phases matches"),
    (lambda: Pareto(3.5, 1.0).to_phase_type(phases=4), InvalidParameterError, r"^phases = 4: must be None for a Pareto law"),
    (lambda: erlang(3).to_phase_type(phases=3), InvalidParameterError,
     r"^phases = 3: must be None: the law \(ErlangMixture\) is phase-type and is represented exactly"),
    (lambda: COXIAN.to_phase_type(phases=2), InvalidParameterError, r"^phases = 2: must be None: the law \(PhaseType\)"),
    (lambda: deterministic(1.0).to_phase_type(phases=0), InvalidParameterError, r"^phases = 0: must be a positive integer$"),
    (lambda: bimodal(1, 2, 0.5).to_phase_type(phases=600), InvalidParameterError,
     r"^phases = 600: must be at most 512 for 2 values"),
    (lambda: erlang(2000).to_phase_type(), StateSpaceTooLargeError, r"^the phase-type representation needs 2,000 states"),
])
def test_to_phase_type_refusals(call, error, match):
    with pytest.raises(error, match=match):
        call()


# -- validation -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("initial, generator, match", [
    ([0.5, 0.4], [[-1.0, 0.5], [0.0, -1.0]],
     r"^initial = \[0.5, 0.4\]: must be a probability vector over the phases \(no atom at zero: sizes are positive\): "
     r"entries sum to 0.9, not 1$"),
    ([1.5, -0.5], [[-1.0, 0.5], [0.0, -1.0]], r"^initial = .*: must be a probability vector .*: entries finite and >= 0$"),
    ([1.0, 0.0], [[-1.0, 0.5, 0.0], [0.0, -1.0, 0.0]],
     r"^generator = .*: must be a square 2×2 matrix, one row and column per phase of initial, not of shape \(2, 3\)$"),
    ([1.0, 0.0], [[-1.0, -0.5], [0.0, -1.0]], r"^generator = .*: must have off-diagonal rates >= 0: generator\[0, 1\] = -0.5$"),
    ([1.0, 0.0], [[-1.0, 0.5], [2.0, -1.0]],
     r"^generator = .*: must have row sums <= 0 \(exit rates -generator·1 >= 0\): row 1 sums to 1$"),
    ([1.0, 0.0, 0.0], [[-1.0, 1.0, 0.0], [0.0, -2.0, 2.0], [0.0, 3.0, -3.0]],
     r"^generator = .*: must be nonsingular \(absorption certain from every phase\): from phases 0, 1, 2 no path"),
    ([0.0, 1.0], [[-1.0, 0.0], [0.0, 0.0]], r"^generator = .*: must be nonsingular .*: from phase 1 no path"),
    ([1.0], [[-1.0, 2.0]], r"^generator = .*: must be a square 1×1 matrix"),
    ([1.0], [[float("nan")]], r"^generator = .*: must be finite: nan at index \(0, 0\)$"),
    ([1.0, 0.0], [[-1e308, 1e308], [0.0, 1e308]],
     r"^generator = .*: must have row sums <= 0 \(exit rates -generator·1 >= 0\): row 1 sums to 1e\+308$"),
    ([1.0, 0.0], [[-1e308, 1e308], [1.7e308, -1.7e308]], r"^generator = .*: must be nonsingular"),
    ([1.0, 0.0], [[-1e-310, 1e-310], [0.0, -1e-310]], r"^generator = .*: gives a law beyond double precision"),
    (np.full(1025, 1 / 1025), -np.eye(1025), r"(?s)^initial = .*: must have at most 1024 phases, not 1,025"),
    ("abc", [[-1.0]], r"^initial = 'abc': must be a probability vector"),
])
def test_bad_laws_are_refused_by_name(initial, generator, match):
    with pytest.raises(InvalidParameterError, match=match):
        PhaseType(initial, generator)


def test_exit_rates_within_rounding_of_zero_are_zero():
    """A diagonal written as minus the row's other rates, -(0.1 + 0.2), leaves an exit rate of 2.8e-17: read as 0."""
    law = PhaseType([1.0, 0.0, 0.0], [[-(0.1 + 0.2), 0.1, 0.2], [0.0, -1.0, 0.0], [0.0, 0.0, -2.0]])
    assert law.exit_rates.tolist() == [0.0, 1.0, 2.0]
    with mpmath.workdps(50):
        p1, p2 = mpmath.mpf(0.1) / (mpmath.mpf(0.1) + mpmath.mpf(0.2)), mpmath.mpf(0.2) / (mpmath.mpf(0.1) + mpmath.mpf(0.2))
        assert relative(law.mean, 1 / (mpmath.mpf(0.1) + mpmath.mpf(0.2)) + p1 + p2 / 2) < 4e-16


@pytest.mark.parametrize("call, match", [
    (lambda: COXIAN.moment(0), r"^k = 0: must be a positive integer$"),
    (lambda: COXIAN.moment(1025), r"^k = 1025: must be at most 1024$"),
    (lambda: PhaseType([1.0], [[-1e-3]]).moment(200), r"^k = 200: gives E\[S\^200\] beyond the normal double range"),
    (lambda: COXIAN.pdf([1.0, float("nan")]), r"^x = .*: must be free of NaN: nan at index \(1,\)$"),
    (lambda: COXIAN.scaled(1e-320), r"^mean = 9.99988867\d*e-321: gives a law beyond double precision"),
])
def test_bad_arguments_are_refused_by_name(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


def test_scaled_law_keeps_its_shape():
    law = LAWS["random 2"]
    bigger = law.scaled(7.0)
    assert isinstance(bigger, PhaseType) and bigger.mean == pytest.approx(7.0, rel=1e-14, abs=0)
    assert bigger.scv == pytest.approx(law.scv, rel=1e-13, abs=0)
    x = np.array([0.2, 1.0, 3.0]) * law.mean
    np.testing.assert_allclose(bigger.cdf(x * 7.0 / law.mean), law.cdf(x), rtol=1e-13, atol=0)


# -- sampling ---------------------------------------------------------------------------------------------

SAMPLED = {"coxian": COXIAN, "random 2": LAWS["random 2"], "fit 3 moments": LAWS["fit 3 moments"],
           "erlang 25 and 1": MIXTURES["phases 25 and 1"].to_phase_type()}
SEEDS = range(50)
#: At most this many of 50 KS tests may reject at the 5 % level: P(Binomial(50, 0.05) >= 8) = 0.0032.
MOST_REJECTIONS = 7


def ks_rejections(samples, cdf):
    return sum(stats.kstest(x, cdf).pvalue < 0.05 for x in samples)


def mean_band_holds(samples, mean):
    """The 50 sample means, as z-scores against the exact mean, have a mean within 4 standard errors of 0."""
    z = [(x.mean() - mean) / (x.std(ddof=1) / math.sqrt(x.size)) for x in samples]
    return abs(np.mean(z)) < 4 / math.sqrt(len(z))


@pytest.mark.slow
@pytest.mark.parametrize("name", SAMPLED)
def test_vectorized_sampler_follows_the_cdf_over_many_seeds(name):
    law = SAMPLED[name]
    samples = [law.sample(np.random.default_rng(seed), 1000) for seed in SEEDS]
    assert ks_rejections(samples, law.cdf) <= MOST_REJECTIONS
    assert mean_band_holds(samples, law.mean)
    pooled = np.concatenate(samples)
    assert abs(pooled.var() - law.variance) <= 5 * np.sqrt((np.mean((pooled - law.mean) ** 4) - law.variance ** 2)
                                                           / pooled.size)
    excess = [law.sample_excess(np.random.default_rng(1000 + seed), 1000) for seed in SEEDS]
    assert ks_rejections(excess, law.excess_cdf) <= MOST_REJECTIONS
    assert mean_band_holds(excess, law.excess_mean)


@pytest.mark.parametrize("name", SAMPLED)
def test_compiled_draw_follows_the_cdf_over_many_seeds(name):
    law = SAMPLED[name]
    code, parameters = law.kernel
    samples = [draw_many(code, parameters, np.random.default_rng(seed), 1000) for seed in SEEDS]
    assert ks_rejections(samples, law.cdf) <= MOST_REJECTIONS
    assert mean_band_holds(samples, law.mean)


@pytest.mark.slow
def test_compiled_draw_gives_the_same_numbers_without_jit():
    script = ("import numpy as np; from analytic.simulation import draw, fit_phase_type, PhaseType\n"
              "rng = np.random.default_rng(4)\n"
              "laws = (fit_phase_type(1.0, 3.0, 15.0), PhaseType([0.2, 0.8], [[-3.0, 1.0], [2.0, -2.5]]))\n"
              "print([float(draw(*law.kernel, rng)) for law in laws for _ in range(5)])")
    outputs = []
    for disable in ("0", "1"):
        env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_DISABLE_JIT=disable)
        result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1] and outputs[0].count(",") == 9
