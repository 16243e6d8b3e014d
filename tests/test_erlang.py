"""Tests of analytic.erlang against independent references.

References used: mpmath at 50 digits (the incomplete gamma function, or a quadrature of
1/E_s(a) = ∫_0^∞ e^{-t} (1 + t/a)^s dt where mpmath's gammainc is slow or fails), exact rational
arithmetic of eq. (3) with fractions.Fraction, the textbook O(s) recursion, an exact CTMC of the
M/M/s/s queue built with analytic.ctmc, and the coefficients printed in DLMF 8.12.
"""

from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from analytic._incomplete_gamma import temme_coefficients
from analytic.ctmc import CTMC
from analytic.erlang import (
    erlang_b,
    erlang_b_offered_load,
    erlang_b_servers,
    erlang_c,
    halfin_whitt_blocking,
    halfin_whitt_delay,
    log_erlang_b,
    loss_occupancy,
    loss_response_time,
)
from analytic.errors import InvalidParameterError, UnstableSystemError

mp.mp.dps = 50


def reference_log(s, a):
    """log E_s(a) at 50 digits: mpmath's upper incomplete gamma, or a quadrature of 1/E."""
    s, a = mp.mpf(s), mp.mpf(a)
    if s == 0:
        return mp.mpf(0)
    if s < 1e4:  # mpmath's gammainc takes minutes for some larger s (e.g. s = 1e6, a = 6e5)
        try:
            return s * mp.log(a) - a - mp.log(mp.gammainc(s + 1, a))
        except (ValueError, mp.libmp.NoConvergence):
            pass
    # 1/E = ∫_0^∞ exp(g(t)) dt, g(t) = -t + s log(1 + t/a), maximal at t* = max(s - a, 0)
    peak = max(s - a, mp.mpf(0))
    width = mp.sqrt(s) + 1
    g = lambda t: -t + s * mp.log1p(t / a)  # noqa: E731
    top = g(peak)
    points = sorted(p for p in {mp.mpf(0), peak, *(peak + k * width for k in (-8, -2, 2, 8, 32))} if p >= 0)
    return -(top + mp.log(mp.quad(lambda t: mp.exp(g(t) - top), [*points, mp.inf])))


def exact_erlang_b(s, a):
    """Eq. (3) in exact rational arithmetic (integer s, rational a)."""
    a = Fraction(a)
    term, total = Fraction(1), Fraction(1)
    for k in range(1, s + 1):
        term = term * a / k
        total += term
    return term / total


def recursion(s, a):
    blocking = 1.0
    for k in range(1, s + 1):
        blocking = a * blocking / (k + a * blocking)
    return blocking


# Servers across every evaluation region (series, continued fraction, small-order formula,
# Temme's expansion and their boundaries), loads from 1e-3 s to 1e3 s and around s ± k√s.
SERVERS = [0.01, 0.3, 0.999, 1, 2.5, 7, 19.5, 20, 20.5, 137, 1000.5, 5e4, 1e6, 1e9]
GRID = sorted({(s, float(s * r)) for s in SERVERS for r in (1e-3, 0.1, 0.35, 0.6, 0.95, 1, 1.05, 2, 2.01, 30, 1e3)}
              | {(s, float(s + z * np.sqrt(s))) for s in SERVERS if s >= 20 for z in (-30, -3, 3) if z * z < s})


@pytest.fixture(scope="module")
def grid_reference():
    s = np.array([p[0] for p in GRID])
    a = np.array([p[1] for p in GRID])
    return s, a, [reference_log(si, ai) for si, ai in GRID]


@pytest.mark.slow
def test_erlang_b_matches_mpmath_to_1e13(grid_reference):
    """Relative error <= 1e-13 wherever E >= 1e-300 (issue target), mpmath 50 digits."""
    s, a, ref = grid_reference
    values = erlang_b(s, a)
    checked = 0
    for value, r, si, ai in zip(values, ref, s, a, strict=True):
        if r > mp.log(mp.mpf("1e-300")):
            checked += 1
            assert abs(mp.mpf(float(value)) / mp.exp(r) - 1) <= 1e-13, (si, ai)
    assert checked > 150


def test_log_erlang_b_matches_mpmath(grid_reference):
    """log E to 1e-14 absolute (|log E| < 1) or relative, far below 1e-300 included."""
    s, a, ref = grid_reference
    logs = log_erlang_b(s, a)
    for value, r, si, ai in zip(logs, ref, s, a, strict=True):
        assert np.isfinite(value)
        assert abs(mp.mpf(float(value)) - r) <= 1e-14 * max(1, abs(r)), (si, ai)
    assert min(logs) < -1e8  # the grid does reach far below the double range


@pytest.mark.parametrize("s", [1, 2, 5, 30, 60])
@pytest.mark.parametrize("a", ["1/1000", "1/2", "7", "30", "100", "2500"])
def test_integer_servers_match_exact_rational_formula(s, a):
    """Eq. (3) in exact rational arithmetic."""
    exact = exact_erlang_b(s, Fraction(a))
    assert float(erlang_b(s, float(Fraction(a)))) == pytest.approx(float(exact), rel=1e-14, abs=0)


def test_agrees_with_recursion_and_ctmc():
    """The O(s) recursion and an exact CTMC of the M/M/30/30 queue (analytic.ctmc)."""
    s, a = 30, 24.0
    chain = CTMC.from_function(0, lambda x: [(x + 1, a)] * (x < s) + [(x - 1, float(x))] * (x > 0))
    assert erlang_b(s, a) == pytest.approx(chain.stationary().probability(s), rel=1e-12, abs=0)
    loads = np.geomspace(0.01, 3000, 40)
    assert np.allclose(erlang_b(s, loads), [recursion(s, x) for x in loads], rtol=1e-13, atol=0)


@pytest.mark.slow
def test_edge_values():
    assert erlang_b(0, 5.0) == 1.0
    assert erlang_b(0, 0.0) == 1.0
    assert erlang_b(3, 0.0) == 0.0
    assert log_erlang_b(3, 0.0) == -np.inf
    assert log_erlang_b(0, 2.0) == 0.0
    assert erlang_b(1, 1e300) == pytest.approx(1.0, rel=1e-15, abs=0)
    assert log_erlang_b(1, 1e300) == pytest.approx(-1e-300, rel=1e-14, abs=0)  # log E = -log1p(1/a)
    assert erlang_b(1e9, 1e6) == 0.0  # underflows, while its logarithm is finite:
    assert log_erlang_b(1e9, 1e6) == pytest.approx(float(reference_log(1e9, 1e6)), rel=1e-15, abs=0)


@pytest.mark.filterwarnings("error")
def test_extreme_inputs_give_no_nan_and_no_warning():
    """Servers 1e-300..1e15 and loads 1e-300..1e300 (5e-324 included): E in [0, 1], log E finite."""
    rng = np.random.default_rng(3)
    s = np.concatenate([10 ** rng.uniform(-300, 15, 3000), [5e-324, 1e15, 1e15]])
    a = np.concatenate([10 ** rng.uniform(-300, 300, 3000), [5e-324, 1e300, 5e-324]])
    values, logs = erlang_b(s, a), log_erlang_b(s, a)
    assert np.all((values >= 0) & (values <= 1)) and np.all(np.isfinite(logs)) and np.all(logs <= 0)
    assert np.all(np.isfinite(erlang_b_offered_load(s[s > 0], 1e-10)))


def test_broadcasting_and_scalar_types():
    values = erlang_b(np.array([[1.0], [2.0]]), np.array([1.0, 2.0, 3.0]))
    assert values.shape == (2, 3)
    assert isinstance(erlang_b(3, 2.0), float)
    assert isinstance(erlang_b_servers(3.0, 0.1), int)


@st.composite
def servers_and_loads(draw, low=0.0, high=1e7):
    """(s, a) in every evaluation region: s integer, half-integer or real over ten decades; a a
    multiple s·10^v of s, or s + z√s in the transition region where Temme's expansion takes over."""
    s = draw(st.one_of(st.floats(low, high), st.integers(int(max(low, 0)), 2000).map(float),
                       st.floats(-3, 7).map(lambda u: min(max(10.0 ** u, low), high)),
                       st.integers(1, 10**6).map(lambda k: min(max(k + 0.5, low), high))))
    a = draw(st.one_of(st.floats(-3, 3).map(lambda v: s * 10.0 ** v),
                       st.floats(-40, 40).map(lambda z: s + z * s ** 0.5)))
    assume(1e-3 <= a <= 1e8)
    return s, a


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(servers_and_loads())
def test_recurrence_in_servers_holds_across_regions(case):
    """E_{s+1}(a) = a E_s(a) / (s + 1 + a E_s(a)), also for real s (incomplete-gamma identity)."""
    s, a = case
    e = erlang_b(s, a)
    assert erlang_b(s + 1, a) == pytest.approx(a * e / (s + 1 + a * e), rel=5e-13, abs=1e-300)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(servers_and_loads(low=0.01, high=1e8), st.floats(1e-6, 0.5))
def test_monotone_in_load_and_servers(case, step):
    s, a = case
    e = erlang_b(s, a)
    assert 0 <= e <= 1
    assert erlang_b(s, a * (1 + step)) >= e
    assert erlang_b(s * (1 + step), a) <= e


def test_precision_matches_exact_rational_and_float():
    exact = exact_erlang_b(40, Fraction(33))
    value = erlang_b(40, 33.0, precision=40)
    assert isinstance(value, mp.mpf)
    with mp.workdps(60):        # the reference at its own precision, whatever another test left in mp.dps
        assert abs(value - mp.mpf(exact.numerator) / exact.denominator) < mp.mpf(10) ** -38 * value
    many = erlang_b([20.5, 9249.0], [30.0, 14658.9], precision=30)  # the second defeats mpmath's gammainc
    assert many.dtype == object
    assert float(many[0]) == pytest.approx(erlang_b(20.5, 30.0), rel=1e-14, abs=0)
    assert float(many[1]) == pytest.approx(erlang_b(9249.0, 14658.9), rel=1e-14, abs=0)


def gammainc_reference(s, a, digits):
    """E_s(a) = a^s e^{-a} / Γ(s+1, a) with mpmath's gammainc at ``digits`` digits (independent of the package)."""
    with mp.workdps(digits):
        s, a = mp.mpf(s), mp.mpf(a)
        return mp.exp(s * mp.log(a) - a) / mp.gammainc(s + 1, a)


# Every branch of the exact sums: a <= s (lower), a > s with integer and real s (upper, with the
# small-order remainder below and above its asymptotic cut near D ln 10 + 94), s < 1, extreme ratios.
PRECISION_POINTS = [(1e6, 1e6), (1e5, 9.9e4), (1e5, 100300.0), (12345.5, 12000.25), (12345.5, 13000.75),
                    (7.0, 7.0), (3.5, 0.001), (3.5, 100.0), (1.0, 1e-10), (0.3, 0.7), (0.7, 0.3), (0.5, 3000.0),
                    (0.5, 2000.0), (3.75, 2397.5), (3.75, 2396.5), (1.9999999999999998, 0.5), (1e-300, 0.5),
                    (50.0, 1e5), (1e4, 3.0), (1.25, 1e10), (1e6, 1.5e6), (1e7 + 0.5, 1e7), (2e7, 2e7 + 3),
                    (1e15, 1e-300), (0.75, 5e-324)]


#: Points whose reference takes seconds at 1030 digits (19 s for (1e15, 1e-300)): checked at 50 only.
SLOW_REFERENCES = {(1e15, 1e-300), (2e7, 2e7 + 3), (0.75, 5e-324), (1e4, 3.0)}


@pytest.mark.parametrize("digits", [50, pytest.param(1000, marks=pytest.mark.slow)])
def test_precision_agrees_with_mpmath_gammainc_at_more_digits(digits):
    """Correct to the digits asked: relative error below 10^(1-D) against mpmath at D + 30 digits.

    (1e6, 1e6) at 1000 digits is the issue's case (550 s through the former quadrature). mpmath's
    gammainc does not converge at (1e7 + 0.5, 1e7): that point is checked against the float path.
    """
    for s, a in PRECISION_POINTS:
        if digits > 50 and (s, a) in SLOW_REFERENCES:
            continue
        value = erlang_b(s, a, precision=digits)
        assert isinstance(value, mp.mpf)
        if (s, a) == (1e7 + 0.5, 1e7):
            assert float(value) == pytest.approx(erlang_b(s, a), rel=1e-14, abs=0)
            continue
        reference = gammainc_reference(s, a, digits + 30)
        with mp.workdps(digits + 30):
            assert abs(value / reference - 1) < mp.mpf(10) ** (1 - digits), (s, a)


def test_precision_closed_forms_at_extreme_loads():
    """E_1(a) = a/(1+a) and E_2(a) = a²/(a² + 2a + 2) exactly, where mpmath's gammainc loses the digits."""
    with mp.workdps(1100):
        for a in (1e300, 5e-324, 1e-300):
            x = mp.mpf(a)
            assert abs(erlang_b(1, a, precision=1000) / (x / (1 + x)) - 1) < mp.mpf(10) ** -999
            assert abs(erlang_b(2, a, precision=1000) / (x * x / (x * x + 2 * x + 2)) - 1) < mp.mpf(10) ** -999


@pytest.mark.parametrize("s,a", [(1e9, 1e9), (1e9, 1e9 + 3e4), (1e9, 1e9 - 3e4), (2e6 + 0.5, 2e6)])
def test_precision_quadrature_agrees_with_the_exact_sums(s, a):
    """The quadrature taking over near a = s for the largest s against the sums, two independent methods, at 60 digits."""
    from analytic._incomplete_gamma import lower_sum, quadrature, upper_sum

    bits = 320
    with mp.workprec(bits):
        by_sums = (lower_sum if a <= s else upper_sum)(s, a, bits)
        by_quadrature = 1 / quadrature(mp.mpf(s), mp.mpf(a))
        assert abs(by_quadrature / by_sums - 1) < mp.mpf(10) ** -60


def test_precision_at_the_largest_servers_agrees_with_the_float_path():
    """s = a = 1e15 (quadrature) and s = 1e15, a = 1e15 + 1e8 (sums) against Temme's expansion in double precision."""
    for s, a in [(1e15, 1e15), (1e15, 1e15 + 1e8), (1e15, 1e15 - 1e8)]:
        assert float(erlang_b(s, a, precision=30)) == pytest.approx(erlang_b(s, a), rel=1e-14, abs=0)


@pytest.mark.parametrize("servers,load", [(1, 0.5), (10, 7.0), (10, 100.0), (100, 3.0), (1000, 1000.0), (1000, 2000.0),
                                          (1000, 10.0), (50, 1e-5), (30, 1e-200)])
def test_loss_occupancy_matches_exact_rationals(servers, load):
    """(a^k/k!) / Σ_{l<=s} a^l/l! in exact rationals; tolerance 1e-14 + 5e-16 |log P| as documented."""
    terms = [Fraction(1)]
    for k in range(1, servers + 1):
        terms.append(terms[-1] * Fraction(load) / k)
    total = sum(terms)
    ks = sorted({0, servers, servers // 2, min(servers, int(load)), min(servers, int(load + 3 * load**0.5))})
    values = loss_occupancy(servers, load, ks)
    for k, value in zip(ks, values, strict=True):
        exact = mp.mpf(terms[k].numerator) / terms[k].denominator / (mp.mpf(total.numerator) / total.denominator)
        if exact > 1e-300:
            assert abs(value / exact - 1) < 1e-14 + 5e-16 * abs(mp.log(exact)), (k, value, exact)
        else:
            assert value < 1e-290
    blocking, law = erlang_b(servers, load), loss_occupancy(servers, load, servers)
    assert law == blocking or abs(law / blocking - 1) < 2e-14 + 4e-16 * abs(np.log(blocking))


@pytest.mark.parametrize("servers,load", [(10**4, 10**4), (10**5, 9.9e4), (10**6, 1.5e6), (1000, 2000.0), (7, 1000.0),
                                          (1000, 1e5), (10**6, 1e6 + 1e3)])
def test_loss_occupancy_at_large_servers_against_mpmath(servers, load):
    """Against mpmath at 50 digits: π_k / π_s times E_s(a) from mpmath's gammainc, on 40 random k and the ends
    (where E = 1/(1+x), P is a ratio of Poisson terms of one sign); and the law sums to one."""
    blocking = gammainc_reference(servers, load, 50)
    ks = np.unique(np.concatenate([np.random.default_rng(servers).integers(0, servers + 1, 40), [0, 1, servers - 1, servers]]))
    ks = [int(k) for k in ks]
    for k, value in zip(ks, loss_occupancy(servers, load, ks), strict=True):
        with mp.workdps(50):
            exact = mp.exp((k - servers) * mp.log(load) + mp.loggamma(servers + 1) - mp.loggamma(k + 1)) * blocking
        if exact > 1e-300:
            assert abs(value / exact - 1) < 1e-14 + 5e-16 * abs(mp.log(exact)), (k, value, exact)
    assert loss_occupancy(servers, load, np.arange(servers + 1)).sum() == pytest.approx(1.0, rel=1e-12, abs=0)


def test_loss_occupancy_edges_and_errors():
    assert loss_occupancy(3, 0.0, [0, 1, 3]).tolist() == [1.0, 0.0, 0.0]
    assert loss_occupancy(0, 2.0, 0) == 1.0
    with pytest.raises(InvalidParameterError, match=r"^busy = 4: must be at most servers = 3$"):
        loss_occupancy(3, 1.0, 4)
    with pytest.raises(InvalidParameterError, match=r"^busy = 1.5: must be an integer >= 0"):
        loss_occupancy(3, 1.0, 1.5)
    with pytest.raises(InvalidParameterError, match=r"^servers = 2.5: must be an integer in \[0, 1e\+15\]$"):
        loss_occupancy(2.5, 1.0, 1)
    with pytest.raises(InvalidParameterError, match=r"^offered_load = -1: must be finite and >= 0$"):
        loss_occupancy(3, -1.0, 1)


def test_temme_coefficients_match_dlmf():
    """DLMF 8.12.9 / Temme (1979): c_0 = -1/3 + η/12 - 2η²/135 + η³/864, c_1 = -1/540 - η/288 + η²/378."""
    table = temme_coefficients()
    assert table[0, :4].tolist() == pytest.approx([-1 / 3, 1 / 12, -2 / 135, 1 / 864], rel=1e-15, abs=0)
    assert table[1, :3].tolist() == pytest.approx([-1 / 540, -1 / 288, 1 / 378], rel=1e-15, abs=0)
    assert table[2, 0] == pytest.approx(25 / 6048, rel=1e-15, abs=0)


def test_erlang_c_matches_exact_formula():
    """C_s(a) = (a^s/s! · s/(s-a)) / (sum_{k<s} a^k/k! + a^s/s! · s/(s-a)) in rationals."""
    for s, a in [(1, "1/2"), (2, "1"), (10, "7"), (50, "49")]:
        a = Fraction(a)
        terms = [Fraction(1)]
        for k in range(1, s + 1):
            terms.append(terms[-1] * a / k)
        tail = terms[s] * s / (s - a)
        exact = tail / (sum(terms[:s]) + tail)
        assert erlang_c(s, float(a)) == pytest.approx(float(exact), rel=1e-14, abs=0)


def test_erlang_c_unstable():
    with pytest.raises(UnstableSystemError, match=r"^unstable: offered_load = 10\.5 must be < 10 \(exceeds it by 0\.5\); "
                                                  r"Erlang C needs offered_load < servers"):
        erlang_c(10, 10.5)


@pytest.mark.parametrize("servers,load", [(10, 10.0), ([5, 10], [1.0, 10.0]), (1e15, 1e15)])
def test_erlang_c_at_load_equal_to_servers_says_not_below(servers, load):
    """The boundary a = s is unstable (null recurrent), and there is no excess to report."""
    with pytest.raises(UnstableSystemError, match=r"^unstable: offered_load = (10|1e\+15) is not below the limit (10|1e\+15) "
                                                  r"\(it equals it\); Erlang C needs offered_load < servers") as error:
        erlang_c(servers, load)
    assert "exceeds" not in str(error.value) and error.value.value == error.value.limit


def test_loss_response_time_eq4():
    """Eq. (4): R = d (1 - E), checked with exact rationals, including E close to 1."""
    for s, lam, d in [(5, 2.0, 1.5), (1, 1000.0, 3.0), (40, 10.0, 6.0)]:
        exact = 1 - exact_erlang_b(s, Fraction(lam) * Fraction(d))
        assert loss_response_time(s, lam, d) == pytest.approx(d * float(exact), rel=1e-14, abs=0)


@pytest.mark.parametrize("load", [0.0, 0.5, 7.0, 123.4, 1000.0])
@pytest.mark.parametrize("target", [0.3, 0.01, 1e-6, 1e-30])
def test_erlang_b_servers_is_smallest(load, target):
    """Brute force with the O(s) recursion."""
    s = erlang_b_servers(load, target)
    assert recursion(s, load) <= target
    assert s == 1 or recursion(s - 1, load) > target


def test_erlang_b_servers_large_and_tiny_targets():
    s = erlang_b_servers(1e9, 0.01)
    assert erlang_b(s, 1e9) <= 0.01 < erlang_b(s - 1, 1e9)
    s = erlang_b_servers(100.0, 1e-300)
    assert log_erlang_b(s, 100.0) <= np.log(1e-300) < log_erlang_b(s - 1, 100.0)


def test_erlang_b_load_closed_forms():
    """E_1(a) = a/(1+a) and E_2(a) = a²/(2 + 2a + a²) solved exactly."""
    t = np.array([1e-12, 0.01, 0.5, 0.99])
    assert np.allclose(erlang_b_offered_load(1, t), t / (1 - t), rtol=1e-14, atol=0)
    # a²(1 - t) - 2ta - 2t = 0
    a2 = (2 * t + np.sqrt(4 * t * t + 8 * t * (1 - t))) / (2 * (1 - t))
    assert np.allclose(erlang_b_offered_load(2, t), a2, rtol=1e-13, atol=0)


@pytest.mark.parametrize("servers", [0.5, 20.5, 1000.0, 1e9, 1e15])
@pytest.mark.parametrize("target", [1e-200, 1e-5, 0.02, 0.9])
def test_erlang_b_load_brackets_the_target(servers, target):
    """The returned load is the root: E is below the target just under it and above just over it.

    To 1e-14 relative, and 1e-13 at target 0.9, where log E changes only 0.1 times as fast as log a.
    """
    a = erlang_b_offered_load(servers, target)
    if servers < 1 and target < 1e-100:  # the root, about 8e-401, is below the double range
        assert a < 1e-320
        return
    offset = 1e-13 if target > 0.5 else 1e-14
    assert log_erlang_b(servers, a * (1 - offset)) < np.log(target) < log_erlang_b(servers, a * (1 + offset))


def test_halfin_whitt_blocking_against_mpmath():
    for theta in (-40, -5, -0.3, 0, 0.7, 5, 30):
        th = mp.mpf(theta)
        expected = mp.npdf(th) / mp.ncdf(th)
        assert halfin_whitt_blocking(theta) == pytest.approx(float(expected), rel=1e-14, abs=0)
    assert halfin_whitt_blocking(40.0) == 0.0  # true value 1e-348 underflows


@pytest.mark.parametrize("theta", [-3.5, -5.0, -50.0, -1e3, -1e8, -1e154, -1e300])
def test_halfin_whitt_correction_deep_in_overload_against_mpmath(theta):
    """1/(M + (θ³M + θ² + 2)/(3√s)), M = Φ(θ)/φ(θ), where θ³M + θ² cancels to 1 + O(θ⁻²) (it gave NaN at θ = -1e154).

    Reference: the formula in mpmath at 700 digits (enough to hold θ² + 3 at θ = -1e300), M from erfc
    up to |θ| = 1e4 and from its asymptotic series 1/x - 1/x³ + 3/x⁵ - 15/x⁷ + 105/x⁹ (x = -θ)
    beyond, where the first omitted term is below 1e-36 relative.
    """
    s = 100.0
    with mp.workdps(700):
        x = -mp.mpf(theta)
        if x <= 1e4:
            m = mp.sqrt(mp.pi / 2) * mp.erfc(x / mp.sqrt(2)) * mp.exp(x * x / 2)
        else:
            m = 1 / x - 1 / x**3 + 3 / x**5 - 15 / x**7 + 105 / x**9
        th = -x
        expected = 1 / (m + (th**3 * m + th**2 + 2) / (3 * mp.sqrt(s)))
    assert halfin_whitt_blocking(theta, servers=s) == pytest.approx(float(expected), rel=1e-14, abs=0)


def test_lemma1_limit_and_correction():
    """√s E_s(s - θ√s) -> φ(θ)/Φ(θ) with error O(1/√s); the corrected value has error O(1/s)."""
    theta = np.array([-1.0, 0.0, 0.7, 1.5])
    errors_limit, errors_corrected = [], []
    for s in (1e4, 1e6):
        exact = np.sqrt(s) * erlang_b(s, s - theta * np.sqrt(s))
        errors_limit.append(np.abs(halfin_whitt_blocking(theta) / exact - 1))
        errors_corrected.append(np.abs(halfin_whitt_blocking(theta, servers=s) / exact - 1))
    assert np.all(errors_limit[1] < errors_limit[0] / 8)  # ~ 1/√s: factor 10
    assert np.all(errors_corrected[1] < errors_corrected[0] / 80)  # ~ 1/s: factor 100
    assert np.all(errors_corrected[1] < 3e-6)


def test_halfin_whitt_delay_against_mpmath_and_erlang_c():
    for beta in (-40, -3, -0.5, 0, 0.1, 1, 8, 40):
        b = mp.mpf(beta)
        expected = 1 / (1 + b * mp.ncdf(b) / mp.npdf(b))
        assert halfin_whitt_delay(beta) == pytest.approx(float(expected), rel=1e-13, abs=1e-320)
    s = 1e8  # Erlang C in the Halfin–Whitt regime approaches the limit
    assert erlang_c(s, s - 0.5 * np.sqrt(s)) == pytest.approx(halfin_whitt_delay(0.5), rel=1e-3, abs=0)


@pytest.mark.parametrize("call,match", [
    (lambda: erlang_b(-1, 2.0), r"servers = -1: must be >= 0 and <= 1e\+15"),
    (lambda: erlang_b(2e15, 2.0), r"servers = 2e\+15: must be >= 0 and <= 1e\+15"),
    (lambda: erlang_b(3, -0.5), r"offered_load = -0.5: must be finite and >= 0"),
    (lambda: erlang_b(np.nan, 1.0), r"servers = nan"),
    (lambda: erlang_b(3, np.inf), r"offered_load = inf"),
    (lambda: erlang_b("three", 1.0), r"servers = 'three': must be a real number"),
    (lambda: erlang_b([1, 2], [1, 2, 3]), r"shapes = .*must broadcast together"),
    (lambda: erlang_b(3, 1.0, precision=0), r"precision = 0: must be a positive integer"),
    (lambda: log_erlang_b(-2, 1.0), r"servers = -2"),
    (lambda: erlang_b_servers(5.0, 0.0), r"target = 0: must lie strictly between 0 and 1"),
    (lambda: erlang_b_servers(5.0, 1.0), r"target = 1: must lie strictly between 0 and 1"),
    (lambda: erlang_b_servers(-5.0, 0.1), r"offered_load = -5"),
    (lambda: erlang_b_offered_load(0, 0.1), r"servers = 0: must be > 0 and <= 1e\+15"),
    (lambda: erlang_b_offered_load(3, 1.5), r"target = 1.5"),
    (lambda: loss_response_time(3, -1.0, 1.0), r"arrival_rate = -1"),
    (lambda: loss_response_time(3, 1.0, np.nan), r"mean_size = nan"),
    (lambda: loss_response_time(3, 1e200, 1e200), r"arrival_rate \* mean_size = inf: must be finite"),
    (lambda: halfin_whitt_blocking(np.inf), r"theta = inf: must be a finite real number"),
    (lambda: halfin_whitt_blocking(1.0, servers=0), r"servers = 0: must be finite and > 0"),
    (lambda: halfin_whitt_delay(np.nan), r"theta = nan"),
])
def test_bad_input_names_the_parameter(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("argv,expected", [
    (["erlang-b", "--servers", "10", "--offered-load", "7"], float(exact_erlang_b(10, 7))),
    (["erlang-c", "--servers", "2", "--offered-load", "1"], 1 / 3),
    (["erlang-b-servers", "--offered-load", "7", "--target", "0.1"], 10),
    (["erlang-b-offered-load", "--servers", "1", "--target", "0.5"], 1.0),
])
def test_cli_prints_the_value(argv, expected, capsys):
    from analytic.cli import main

    assert main(argv) == 0
    assert float(capsys.readouterr().out) == pytest.approx(expected, rel=1e-14, abs=0)


def test_cli_precision_and_errors(capsys):
    import subprocess
    import sys

    from analytic.cli import main

    assert main(["erlang-b", "--servers", "10", "--offered-load", "7", "--precision", "30"]) == 0
    exact = exact_erlang_b(10, 7)
    printed = mp.mpf(capsys.readouterr().out.strip())
    assert abs(printed - mp.mpf(exact.numerator) / exact.denominator) < mp.mpf(10) ** -30
    result = subprocess.run([sys.executable, "-m", "analytic", "erlang-b-servers", "--offered-load", "5", "--target", "2"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert "target = 2: must lie strictly between 0 and 1" in result.stderr


def test_the_old_cli_names_still_work_and_say_their_new_names(capsys):
    """`--load` and `erlang-b-load` before version 0.2 (issue 32: `load` is a fraction of capacity)."""
    from analytic.cli import main

    assert main(["erlang-b", "--servers", "10", "--load", "7"]) == 0
    captured = capsys.readouterr()
    assert float(captured.out) == pytest.approx(float(exact_erlang_b(10, 7)), rel=1e-14, abs=0)   # erlang_b's accuracy
    assert "--load is renamed --offered-load" in captured.err
    assert main(["erlang-b-load", "--servers", "1", "--target", "0.5"]) == 0
    captured = capsys.readouterr()
    assert float(captured.out) == 1.0 and "erlang-b-load is renamed erlang-b-offered-load" in captured.err


def test_erlang_b_servers_at_a_subnormal_target():
    """erlang_b_servers(7, 1e-309) raised ConvergenceError (2 / target overflowed the bracket).
    Reference: the recursion E_s = a E_(s-1) / (s + a E_(s-1)) in mpmath at 50 digits."""
    import mpmath

    from analytic.erlang import erlang_b_servers

    mpmath.mp.dps = 50
    blocking, s = mpmath.mpf(1), 0
    while blocking > mpmath.mpf("1e-309"):
        s += 1
        blocking = 7 * blocking / (s + 7 * blocking)
    assert erlang_b_servers(7, 1e-309) == s == 266


@pytest.mark.parametrize("call,match", [
    (lambda: __import__("analytic.erlang", fromlist=["x"]).erlang_b(4, 2.0, precision=10**18),
     r"^precision = 1000000000000000000: must be at most 1000 decimal digits$"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()


def test_erlang_refuses_complex_text_and_bool_entries_and_takes_other_real_numbers():
    """Complex entries inside arrays returned the real part's value; True gave E_1(7) = 0.875. Reference: the
    recursion E_s = a E_(s-1) / (s + a E_(s-1)) in exact rationals."""
    import decimal
    from fractions import Fraction

    from analytic.erlang import erlang_b, erlang_c, log_erlang_b

    for call_, name in [(lambda: log_erlang_b(np.array([3 + 2j]), 5.0), "servers"),
                        (lambda: erlang_c(12, np.array([4 - 1j])), "offered_load"), (lambda: erlang_b(True, 7), "servers"),
                        (lambda: erlang_b([1, "2"], 7), "servers"), (lambda: erlang_b([1, True], 7), "servers")]:
        with pytest.raises(InvalidParameterError, match=f"^{name} = "):
            call_()
    exact = Fraction(1)
    for s in range(1, 6):
        exact = 3 * exact / (s + 3 * exact)
    for servers, load in [(5, 3.0), (np.int64(5), np.float64(3.0)), (np.array(5), np.array(3.0)),
                          (Fraction(5), Fraction(3)), (decimal.Decimal(5), decimal.Decimal("3.0"))]:
        assert erlang_b(servers, load) == pytest.approx(float(exact), rel=1e-15, abs=0)
