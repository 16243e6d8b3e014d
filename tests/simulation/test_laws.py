"""Tests of analytic.simulation.laws: exact moments, CDFs, samplers and stationary-excess laws.

References: moments and CDFs from scipy.stats (gamma and Pareto distributions, independent code);
the stationary-excess CDF against numerical integration of the survival function (scipy.quad) and,
for Erlang laws, against the sum over its phases in mpmath at 50 digits;
samplers against the exact CDF by Kolmogorov–Smirnov tests and against the exact moments within
five standard errors, over fixed seeds; the paper's Pareto CDF as printed (Ghanbarian et al.,
Section 7); the two-moment fit against the requested mean and standard deviation.
"""

import math
import os
import subprocess
import sys
from pathlib import Path

import mpmath
import numpy as np
import pytest
from compiled_draws import draw_many
from hypothesis import given
from hypothesis import strategies as st
from scipy import integrate, stats

from analytic.errors import InvalidParameterError
from analytic.simulation import (
    Discrete,
    ErlangMixture,
    Pareto,
    bimodal,
    deterministic,
    erlang,
    exponential,
    fitted,
    hyperexponential,
    mixed_erlang,
    pareto,
    size_law,
)

ROOT = Path(__file__).parents[2]

CONTINUOUS = {
    "exponential": exponential(2.0),
    "erlang": erlang(3, 0.5),
    "hyperexponential": hyperexponential([1 / 6, 5 / 6], [5.0, 0.2]),
    "mixed_erlang": mixed_erlang(),
    "erlang phases": ErlangMixture([1 / 6, 5 / 6], [25, 1], [5.0, 5.0]),
    "fitted scv 0.3": fitted(1.0, 0.3 ** 0.5),
    "pareto 1.5": pareto(1.5),
    "pareto 3.5": pareto(3.5, 2.0),
}
DISCRETE = {"deterministic": deterministic(1.5), "bimodal": bimodal(0.5, 5.5, 0.1)}
LAWS = CONTINUOUS | DISCRETE


def scipy_moments(law):
    """E[S], E[S^2] from scipy.stats frozen distributions (or direct sums for point masses)."""
    if isinstance(law, ErlangMixture):
        parts = [stats.gamma(a=k, scale=1 / r) for k, r in zip(law.phases, law.rates, strict=True)]
        return (sum(w * d.moment(1) for w, d in zip(law.weights, parts, strict=True)),
                sum(w * d.moment(2) for w, d in zip(law.weights, parts, strict=True)))
    if isinstance(law, Pareto):
        d = stats.pareto(b=law.shape, scale=law.scale)
        return d.mean(), (d.moment(2) if law.shape > 2 else np.inf)
    return float(np.sum(law.probabilities * law.values)), float(np.sum(law.probabilities * law.values ** 2))


def scipy_cdf(law, x):
    if isinstance(law, ErlangMixture):
        return sum(w * stats.gamma(a=k, scale=1 / r).cdf(x) for w, k, r in zip(law.weights, law.phases, law.rates, strict=True))
    return stats.pareto(b=law.shape, scale=law.scale).cdf(x)


@pytest.mark.parametrize("name", LAWS)
def test_exact_moments_agree_with_scipy(name):
    law = LAWS[name]
    mean, second = scipy_moments(law)
    assert law.mean == pytest.approx(mean, rel=1e-12, abs=0)
    if np.isinf(second):
        assert np.isinf(law.second_moment)
    else:
        assert law.second_moment == pytest.approx(second, rel=1e-12, abs=0)
    assert law.scv == pytest.approx(law.second_moment / law.mean ** 2 - 1, rel=1e-12, abs=0) or np.isinf(second)


@pytest.mark.parametrize("name", CONTINUOUS)
def test_cdf_agrees_with_scipy(name):
    law = LAWS[name]
    x = np.linspace(0, 6 * law.mean, 41)
    np.testing.assert_allclose(law.cdf(x), scipy_cdf(law, x), rtol=1e-12, atol=1e-14)


def test_paper_pareto_law_has_the_printed_cdf():
    """Ghanbarian et al., Section 7: P(Y <= y) = 1 - (3y)^(-3/2) for y >= 1/3, else 0; unit mean."""
    law = pareto()
    y = np.array([0.1, 1 / 3, 0.5, 1.0, 7.0, 1e6])
    printed = np.where(y >= 1 / 3, 1 - (3 * y) ** -1.5, 0.0)
    np.testing.assert_allclose(law.cdf(y), printed, rtol=1e-14, atol=1e-15)
    assert law.mean == pytest.approx(1.0, rel=1e-15, abs=0) and np.isinf(law.second_moment)


def test_mixed_erlang_reading_of_the_paper():
    """One phase w.p. 0.4, two w.p. 0.6, one rate: mean 1.6/mu = 1, E[S^2] = (0.4*2 + 0.6*6)/mu^2."""
    law = mixed_erlang()
    assert law.phases.tolist() == [1, 2] and law.rates.tolist() == [1.6, 1.6]
    assert law.second_moment == pytest.approx(4.4 / 1.6 ** 2, rel=1e-14, abs=0)
    assert law.scv == pytest.approx(23 / 32, rel=1e-13, abs=0)


@pytest.mark.parametrize("name", LAWS)
def test_excess_cdf_is_the_integrated_survival_function(name):
    law = LAWS[name]
    for x in (0.3 * law.mean, law.mean, 4 * law.mean):
        kinks = list(getattr(law, "values", [])) + ([law.scale] if isinstance(law, Pareto) else [])
        breaks = [v for v in kinks if v < x]
        integral = integrate.quad(lambda u: 1.0 - float(law.cdf(u)), 0, x, points=breaks or None, limit=200)[0]
        assert float(law.excess_cdf(x)) == pytest.approx(integral / law.mean, rel=1e-8, abs=0)


@pytest.mark.parametrize("phases, rate", [(1, 2.0), (2, 0.5), (7, 3.0), (60, 10.0)])
def test_erlang_excess_cdf_against_the_sum_of_its_phases_in_mpmath(phases, rate):
    """F_e(y) = (1/(r E[S])) Σ_(j=1..k) P(j, r y), each regularized incomplete gamma summed at 50 digits."""
    law = ErlangMixture([1.0], [phases], [rate])
    y = np.array([0.0, 0.1, 0.9, 1.0, 1.1, 3.0]) * law.mean
    with mpmath.workdps(50):
        reference = [float(mpmath.fsum(mpmath.gammainc(j, 0, rate * mpmath.mpf(v), regularized=True)
                                       for j in range(1, phases + 1)) / (rate * mpmath.mpf(law.mean))) for v in y]
    assert law.excess_cdf(y).tolist() == pytest.approx(reference, rel=1e-12, abs=1e-15)
    assert law.excess_cdf([-1.0, np.inf]).tolist() == pytest.approx([0.0, 1.0], rel=0, abs=1e-15)


def test_erlang_law_with_a_trillion_phases():
    """k = 10^12 phases of rate k (unit mean): scv 1/k exactly (law of total variance, no E[S²] - E[S]² cancellation),
    and a stationary-excess law uniform on [0, 1] to within e^-50 (S lies within 10^-5 of 1 but with probability
    e^-50): its CDF in constant work, where the sum over the phases asked for 10^12 terms."""
    law = erlang(10**12)
    assert law.scv == pytest.approx(1e-12, rel=1e-12, abs=0)
    assert law.excess_cdf([0.25, 0.5, 0.99, 1.01, 2.0]).tolist() == pytest.approx([0.25, 0.5, 0.99, 1.0, 1.0],
                                                                                 rel=1e-12, abs=1e-15)
    assert erlang(2**53).mean == pytest.approx(1.0, rel=1e-15, abs=0)


def test_hyperexponential_at_the_smallest_phase_mean_with_a_finite_rate():
    law = hyperexponential([0.5, 0.5], [1.0, 1e-308])      # rate 1e308: finite
    assert law.mean == pytest.approx(0.5, rel=1e-15, abs=0) and law.rates[1] == pytest.approx(1e308, rel=1e-15, abs=0)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("name", CONTINUOUS)
def test_samplers_follow_the_cdf(name, seed):
    law = LAWS[name]
    rng = np.random.default_rng(seed)
    assert stats.kstest(law.sample(rng, 50_000), law.cdf).pvalue > 1e-3
    assert stats.kstest(law.sample_excess(rng, 50_000), law.excess_cdf).pvalue > 1e-3


@pytest.mark.parametrize("name", LAWS)
def test_sample_moments_within_five_standard_errors(name):
    law = LAWS[name]
    x = law.sample(np.random.default_rng(11), 400_000)
    assert abs(x.mean() - law.mean) <= 5 * x.std() / np.sqrt(x.size) + 1e-15
    if np.isfinite(law.second_moment) and not isinstance(law, Pareto):
        squares = x ** 2
        assert abs(squares.mean() - law.second_moment) <= 5 * squares.std() / np.sqrt(x.size) + 1e-15


@pytest.mark.parametrize("name", DISCRETE)
def test_discrete_samplers_hit_the_values_with_their_probabilities(name):
    law = LAWS[name]
    x = law.sample(np.random.default_rng(5), 100_000)
    for value, p in zip(law.values, law.probabilities, strict=True):
        share = np.mean(x == value)
        assert abs(share - p) <= 5 * np.sqrt(p * (1 - p) / x.size) + 1e-12
    excess = law.sample_excess(np.random.default_rng(6), 100_000)
    assert stats.kstest(excess, law.excess_cdf).pvalue > 1e-3


@pytest.mark.parametrize("name", LAWS)
def test_compiled_draw_follows_the_law(name):
    law = LAWS[name]
    code, parameters = law.kernel
    x = draw_many(code, parameters, np.random.default_rng(21), 50_000)
    if name in CONTINUOUS:
        assert stats.kstest(x, law.cdf).pvalue > 1e-3
    else:
        assert set(np.unique(x)) <= set(law.values.tolist())
        assert abs(x.mean() - law.mean) <= 5 * max(x.std(), 1e-12) / np.sqrt(x.size) + 1e-12


@pytest.mark.slow
def test_compiled_draw_gives_the_same_numbers_without_jit():
    script = ("import numpy as np; from analytic.simulation import draw, mixed_erlang, pareto, bimodal\n"
              "rng = np.random.default_rng(4)\n"
              "laws = (mixed_erlang(), pareto(), bimodal(1, 3, 0.25))\n"
              "print([float(draw(*law.kernel, rng)) for law in laws for _ in range(5)])")
    outputs = []
    for disable in ("0", "1"):
        env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_DISABLE_JIT=disable)
        result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1] and outputs[0].count(",") == 14


@given(st.floats(1e-3, 1e3), st.one_of(st.just(0.0), st.floats(1e-3, 30.0)))
def test_fitted_law_has_the_requested_mean_and_deviation(mean, cv):
    law = fitted(mean, cv * mean)
    exact_mean, exact_second = scipy_moments(law)
    assert exact_mean == pytest.approx(mean, rel=1e-9, abs=0)
    deviation = np.sqrt(max(exact_second - exact_mean ** 2, 0.0))
    assert deviation == pytest.approx(cv * mean, rel=1e-6, abs=1e-7 * mean)     # abs: the root of round-off in E[S²] - m²


def test_fitted_law_families():
    assert isinstance(fitted(2.0, 0.0), Discrete)
    assert fitted(2.0, 2.0).phases.tolist() == [1]
    assert fitted(1.0, 0.5).phases.tolist() == [3, 4]          # 1/4 <= scv = 0.25 < 1/3
    assert fitted(1.0, 2.0).phases.tolist() == [1, 1]



@pytest.mark.parametrize("scv", [1e8, 1e20, 1e36])
def test_fitted_hyperexponential_keeps_its_small_branch_at_huge_scv(scv):
    """1 - p₁ = 1/(2(c²+1)) to first order; written as 1 - p₁ it cancels to 0 beyond c² = 1e16.

    Reference: the moments of the fitted H2 in mpmath at 50 digits, from its own weights and rates.
    """
    law = fitted(1.0, float(np.sqrt(scv)))
    with mpmath.workdps(50):
        p, mu = [mpmath.mpf(float(w)) for w in law.weights], [mpmath.mpf(float(r)) for r in law.rates]
        mean = sum(pi / mi for pi, mi in zip(p, mu, strict=True))
        second = sum(2 * pi / mi ** 2 for pi, mi in zip(p, mu, strict=True))
        assert law.weights[1] > 0
        assert float(mean) == pytest.approx(1.0, rel=1e-12, abs=0)
        assert float(second / mean ** 2 - 1) == pytest.approx(scv, rel=1e-9, abs=0)

@pytest.mark.parametrize("name", LAWS)
def test_scaled_law_keeps_its_shape(name):
    law = LAWS[name]
    bigger = law.scaled(7.0)
    assert bigger.mean == pytest.approx(7.0, rel=1e-13, abs=0)
    assert bigger.scv == pytest.approx(law.scv, rel=1e-12, abs=0) or np.isinf(law.scv)
    x = np.array([0.5, 1.0, 3.0]) * law.mean
    np.testing.assert_allclose(bigger.cdf(x * 7.0 / law.mean), law.cdf(x), rtol=1e-12, atol=1e-15)


def test_size_law_by_name_and_by_object():
    assert size_law("exponential").mean == 1.0 and size_law("deterministic").values.tolist() == [1.0]
    assert size_law("mixed_erlang").scv == pytest.approx(0.71875, rel=1e-14, abs=0) and size_law("pareto").shape == 1.5
    assert size_law(erlang(2), mean=3.0).mean == pytest.approx(3.0, rel=1e-14, abs=0)


@pytest.mark.parametrize("make,match", [
    (lambda: size_law("lognormal"), r"size = 'lognormal': must be a SizeLaw or one of \['deterministic', 'exponential'"),
    (lambda: size_law(3.0), "size = 3: must be a SizeLaw"),
    (lambda: pareto(1.0), "shape = 1: must exceed 1: a Pareto law with shape <= 1 has no finite mean"),
    (lambda: Pareto(0.8, 1.0), "shape = 0.8: must exceed 1"),
    (lambda: exponential(-1.0), "mean = -1: must be positive and finite"),
    (lambda: deterministic(float("nan")), "mean = nan: must be positive and finite"),
    (lambda: ErlangMixture([0.5, 0.6], [1, 1], [1, 1]), "weights = .*: must be a probability vector: entries sum to 1.1"),
    (lambda: ErlangMixture([1.0], [0], [1.0]), r"phases = .*: must be 1 integers in \[1, 2\*\*53\]"),
    (lambda: ErlangMixture([1.0], [2**53 + 1], [1.0]), r"phases = .*: must be 1 integers in \[1, 2\*\*53\]"),
    # the ends of the double range: raw OverflowErrors, and a phase mean of 5e-324 blamed on `rates`
    (lambda: erlang(10**400), r"phases = 1000.*: must be at most 2\*\*53"),
    (lambda: erlang(2**53 + 1), r"phases = 9007199254740993: must be at most 2\*\*53"),
    (lambda: fitted(2.0, 10**400), "std = 1000.*: must be a finite real number: its magnitude exceeds the largest float"),
    (lambda: fitted(2.0, float("nan")), "std = nan: must be a finite real number"),
    (lambda: hyperexponential([0.5, 0.5], [1.0, 5e-324]), r"means = \[1.0, 5e-324\]: must be positive finite phase means, "
                                                          "each at least 1/1.8e308"),
    (lambda: ErlangMixture([1.0], [1], [-2.0]), "rates = .*: must be 1 positive finite rates"),
    (lambda: Discrete([1.0, -1.0], [0.5, 0.5]), "values = .*: must be 2 positive finite sizes"),
    (lambda: erlang(2.5), "phases = 2.5: must be a positive integer"),
    (lambda: bimodal(1, 2, 1.0), r"p_large = 1: must lie in the open interval \(0, 1\)"),
    (lambda: fitted(1.0, 1e-4), r"std = 0.0001: must be 0 or give a squared coefficient of variation >= 1e-06 \(here 1e-08"),
    (lambda: fitted(1.0, -0.1), "std = -0.1: must be finite and >= 0"),
    (lambda: hyperexponential([0.5, 0.5], [1.0, 0.0]), "means = .*: must be positive finite phase means"),
    (lambda: hyperexponential([0.5, 0.6], [1.0, 2.0]), "probabilities = .*: must be a probability vector"),
    (lambda: hyperexponential([1.0], [1.0, 2.0]), "probabilities = .*: must be a probability vector of length 2, one per mean"),
    (lambda: fitted(1e-300, 1.0), r"std = 1: must give a squared coefficient of variation \(std/mean\)² that is finite"),
])
def test_bad_laws_raise(make, match):
    with pytest.raises(InvalidParameterError, match=match):
        make()


@pytest.mark.parametrize("call,match", [
    (lambda: __import__("analytic.simulation", fromlist=["x"]).exponential().sample("seed", 3),
     r"^rng = 'seed': must be a numpy.random.Generator or None$"),
    (lambda: __import__("analytic.simulation", fromlist=["x"]).exponential().cdf(math.nan),
     r"^x = nan: must be free of NaN: nan$"),
    (lambda: __import__("analytic.simulation", fromlist=["x"]).erlang(2, 2.2e-311),
     r"^mean = 2.2e-311: gives a law beyond double precision \(rates = \[inf\]"),
    (lambda: __import__("analytic.simulation", fromlist=["x"]).pareto(1.5, 1e-323),
     r"^mean = 9.88\d*e-324: gives a law beyond double precision \(its mean would be 1.97626e-323\)$"),
    (lambda: __import__("analytic.simulation", fromlist=["x"]).exponential().scaled(1e-310),
     r"^mean = 1e-310: gives a law beyond double precision"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()


@pytest.mark.parametrize("build", [
    lambda n: __import__("analytic.simulation", fromlist=["x"]).exponential().sample(np.random.default_rng(1), n),
])
def test_counts_beyond_the_float_range_are_refused_as_too_large(build):
    """A count of 10**400 (servers, sample size, batches, d) raised a raw OverflowError where its table's bytes were
    estimated in floats before the memory check; like 10**12, it is refused before anything is allocated."""
    from analytic.errors import StateSpaceTooLargeError

    for count in (10**12, 10**400):
        with pytest.raises(StateSpaceTooLargeError, match="needs .* of memory, more than the"):
            build(count)
