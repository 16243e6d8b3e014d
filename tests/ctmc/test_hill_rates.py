"""Certified stationary bounds for reaction networks whose rates are Hill (rational) functions.

References, each independent of the package's solvers:
* the toggle switch (two unbounded counts, mutual Hill repression): the chain on the box
  ``0..N`` squared, jumps out of the box cut, built here with numpy and solved with
  ``scipy.sparse.linalg.spsolve``; ``N`` is raised until the values stop moving (the mass beyond
  ``N = 100`` is far below the widths asked). No printed values of the toggle switches of Kuntz,
  Thomas, Stan & Barahona (J. Chem. Phys. 151, 2019; SIAM Rev. 63, 2021) were at hand, so the
  parameters are ours;
* the one-count birth–death chains with a Hill birth: their product form summed in mpmath at 50
  digits;
* the envelopes: the rates evaluated by sympy in exact rationals at the points they must enclose.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.ctmc import PopulationModel, stationary_bounds
from analytic.ctmc.lyapunov import GeometricLyapunov, prove_geometric, rounded_gain, tail_drift
from analytic.ctmc.regions import region_envelope, regions
from analytic.ctmc.tails import envelope, eventual_polynomial, eventual_rational
from analytic.ctmc.truncation import truncate_lattice
from analytic.errors import ConvergenceError, InvalidParameterError, UnstableSystemError

x, y = sympy.symbols("x y")


def toggle(a, b, n, m) -> PopulationModel:
    """x made at a / (1 + y^n), y at b / (1 + x^m), each degraded at rate 1 per molecule."""
    return PopulationModel([x, y], [((1, 0), a / (1 + y**n)), ((-1, 0), x), ((0, 1), b / (1 + x**m)),
                                    ((0, -1), y)])


def toggle_reference(a, b, n, m, N) -> tuple[float, float, float]:
    """E[x], E[y], P(x = 0) of the toggle switch cut to the box 0..N squared, by spsolve."""
    i, j = (g.ravel() for g in np.meshgrid(np.arange(N + 1), np.arange(N + 1), indexing="ij"))
    rows, cols, values = [], [], []
    for rate, di, dj in [(a / (1.0 + j.astype(float) ** n), 1, 0), (i.astype(float), -1, 0),
                         (b / (1.0 + i.astype(float) ** m), 0, 1), (j.astype(float), 0, -1)]:
        ok = (i + di >= 0) & (i + di <= N) & (j + dj >= 0) & (j + dj <= N)
        rows.append(i[ok] * (N + 1) + j[ok])
        cols.append((i[ok] + di) * (N + 1) + j[ok] + dj)
        values.append(rate[ok])
    size = (N + 1) ** 2
    rates = sp.csr_array((np.concatenate(values), (np.concatenate(rows), np.concatenate(cols))), shape=(size, size))
    system = (rates.T - sp.diags_array(rates.sum(axis=1))).tolil()
    system[0, :] = 1.0
    rhs = np.zeros(size)
    rhs[0] = 1.0
    law = spla.spsolve(system.tocsc(), rhs)
    return float(law @ i), float(law @ j), float(law[i == 0].sum())


@pytest.mark.slow
@pytest.mark.parametrize("a, b, n, m", [(30, 30, 2, 2), (12, 8, 2, 3)])
def test_the_toggle_switch_is_bounded_around_a_large_truncated_chain(a, b, n, m):
    bounds = stationary_bounds(toggle(a, b, n, m), {"x": x, "y": y, "no x": 1 - sympy.Min(x, 1)}, width=1e-6)
    reference = toggle_reference(a, b, n, m, 100)
    wider = toggle_reference(a, b, n, m, 130)
    assert reference == pytest.approx(wider, abs=1e-8)              # the box holds all but a negligible mass
    for name, value in zip(["x", "y", "no x"], reference, strict=True):
        assert value in bounds[name]
    assert bounds.width <= 1e-6
    if (a, n) == (b, m):                                             # symmetric: E[x] = E[y] lies in both intervals
        assert max(bounds["x"].low, bounds["y"].low) <= min(bounds["x"].high, bounds["y"].high)


def _hill_product_form(a, b, K, h) -> tuple[float, float]:
    """E[x] and P(x = 0) for births a + b x^h / (K^h + x^h) and deaths x, in mpmath at 50 digits."""
    mpmath.mp.dps = 50
    a, b, K = mpmath.mpf(a), mpmath.mpf(b), mpmath.mpf(K)
    weights = [mpmath.mpf(1)]
    for k in range(1, 400):
        birth = a + b * mpmath.mpf(k - 1) ** h / (K**h + mpmath.mpf(k - 1) ** h)
        weights.append(weights[-1] * birth / k)
    total = mpmath.fsum(weights)
    return float(mpmath.fsum(k * w for k, w in enumerate(weights)) / total), float(weights[0] / total)


@pytest.mark.parametrize("a, b, K, h", [(1.0, 3.0, 2, 2), (0.5, 20.0, 10, 2), (2.0, 10.0, 5, 4), (0.25, 40.0, 20, 3)])
def test_a_self_activating_birth_is_bounded_around_its_product_form(a, b, K, h):
    model = PopulationModel([x], [((1,), a + b * x**h / (K**h + x**h)), ((-1,), x)])
    bounds = stationary_bounds(model, {"mean": x, "empty": 1 - sympy.Min(x, 1)})
    mean, empty = _hill_product_form(a, b, K, h)
    assert mean in bounds["mean"] and empty in bounds["empty"]
    assert bounds.width <= 1e-8


def test_a_saturating_death_is_bounded_around_its_negative_binomial_law():
    # births 1, deaths 2x / (5 + x): π_k ∝ C(k + 5, 5) 2^-k, a negative binomial law with mean 6
    bounds = stationary_bounds(PopulationModel([x], [((1,), 1), ((-1,), 2 * x / (5 + x))]),
                               {"mean": x, "empty": 1 - sympy.Min(x, 1)})
    assert 6 in bounds["mean"] and 2.0**-6 in bounds["empty"]


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=1, max_size=4), st.lists(st.integers(0, 5), min_size=1, max_size=3),
       st.integers(1, 6), st.integers(0, 30))
def test_an_envelope_encloses_its_rational_function_exactly(top, bottom, constant, start):
    # reference: sympy's exact value of n / d at integers and rationals from the start on
    numerator = sympy.Poly(list(reversed(top)), x, domain="QQ")
    denominator = sympy.Poly(bottom, x, domain="QQ") * sympy.Poly(x, x, domain="QQ") + constant     # > 0 on x >= 0
    bounds = envelope(numerator, denominator, {x: start})
    for point in [start, start + sympy.Rational(1, 3), start + 1, start + 7, start + 10**3, start + 10**9]:
        value = numerator.eval(point) / denominator.eval(point)
        assert bounds.lower.eval(point) <= value <= bounds.upper.eval(point)


def test_the_envelope_of_a_hill_function_is_its_range():
    # 10 / (1 + y^2) on y >= 2 takes the value 2 at y = 2 and tends to 0: the envelope's constants
    # must enclose [0, 2] (a smaller upper bound is violated at y = 2) and be within 1e-6 of it
    bounds = envelope(sympy.Poly(10, y, domain="QQ"), sympy.Poly(1 + y**2, y, domain="QQ"), {y: 2})
    upper, lower = bounds.upper.eval(0), bounds.lower.eval(0)
    assert 2 <= upper <= 2 + sympy.Rational(1, 10**6)
    assert -sympy.Rational(1, 10**6) <= lower <= 0


def test_the_sign_of_the_increment_of_v_decides_which_envelope_bounds_the_drift():
    # births 1, deaths 2x / (5 + x), V = (3/2)^x: GV / β^x = 1/2 - (2x / (5 + x)) / 3 exactly, which is
    # positive for x < 15. Bounding the death by its upper envelope (ignoring that a death lowers V)
    # "proves" it negative there; the package's bound stays above the exact drift and the proof
    # fails until the kept levels reach x = 14
    model = PopulationModel([x], [((1,), 1), ((-1,), 2 * x / (5 + x))])
    tail = tail_drift(model)
    base = sympy.Rational(3, 2)
    V = GeometricLyapunov(base, np.ones(1), model)

    def exact(k):                                                        # GV / β^x at x = k, exact
        return Fraction(1, 2) + Fraction(2 * k, 5 + k) * (Fraction(2, 3) - 1)

    start = 6
    assert exact(start) > 0
    wrong = sum((rate.beyond({x: start}).upper * rounded_gain(base, jump) for jump, _, rate in tail.rates[0]),
                sympy.Poly(0, x, domain="QQ"))
    assert wrong.eval(start) < 0                                         # the sign-blind bound is wrong
    right = tail.factor(base, np.ones(1), 0, start=start)
    for k in range(start, start + 40):
        assert right.eval(k) >= sympy.Rational(exact(k).numerator, exact(k).denominator)
    for level in (5, 13, 15):
        chain = truncate_lattice(np.arange(level + 1)[:, None], model.moves, model.feasible, (0,))
        drift = prove_geometric(model, tail, V, level, chain)
        assert (drift is None) == (level < 14)


def test_a_region_bounds_a_repressed_production_by_its_value_at_the_corner():
    model = toggle(10, 10, 2, 2)
    thresholds, found = regions(model)
    large = next(r for r in found if r.large == (0, 1))
    bounds = region_envelope(model, large, 10 / (1 + y**2))
    corner = sympy.Rational(10, 1 + thresholds[1] ** 2)
    at_corner = {x: 0, y: 0}                                             # the shifts y_j = x_j - T_j
    assert corner <= bounds.upper.as_expr().subs(at_corner) <= corner * (1 + sympy.Rational(1, 10**6))
    assert bounds.lower.as_expr().subs(at_corner) <= 0


def test_a_pole_on_the_lattice_is_refused_naming_the_rate():
    with pytest.raises(InvalidParameterError, match=r"transitions\[0\] rate.*divides by zero at \{'x': 3\}"):
        PopulationModel([x], [((1,), 1 / (x - 3)), ((-1,), x)])
    with pytest.raises(InvalidParameterError, match=r"transitions\[1\] rate.*may vanish"):
        PopulationModel([x, y], [((1, 0), 1), ((0, 1), 1 / (x - y)), ((-1, 0), x), ((0, -1), y)])
    # a pole where the transition is not taken (a death at x = 0) is no pole of the chain
    PopulationModel([x], [((1,), 1), ((-1,), 1 / x)])


def test_a_rational_rate_negative_somewhere_is_refused_naming_the_rate():
    with pytest.raises(InvalidParameterError, match=r"transitions\[0\] rate = \(x - 5\)/\(x \+ 1\): is -5.0 at the "
                                                    r"state \[0\]"):
        stationary_bounds(PopulationModel([x], [((1,), (x - 5) / (1 + x)), ((-1,), x)]), {"mean": x})
    with pytest.raises(InvalidParameterError, match=r"is negative for every large x"):
        stationary_bounds(PopulationModel([x], [((1,), (5 - x) / (1 + x)), ((-1,), x)]), {"mean": x})
    with pytest.raises(InvalidParameterError, match=r"transitions\[2\] rate"):
        stationary_bounds(PopulationModel([x, y], [((1, 0), 1), ((-1, 0), x), ((0, 1), (x - 2) / (1 + x)),
                                                   ((0, -1), y)]), {"mean": x})


@pytest.mark.slow
def test_a_growing_hill_birth_is_refused_never_bounded():
    # x^3 / (1 + x) = x^2 - x + 1 - 1 / (1 + x): births grow like x^2 against linear deaths
    with pytest.raises(UnstableSystemError):
        stationary_bounds(PopulationModel([x], [((1,), x**3 / (1 + x)), ((-1,), x)]), {"mean": x})
    with pytest.raises(ConvergenceError):
        stationary_bounds(PopulationModel([x, y], [((1, 0), x**3 / (1 + x)), ((-1, 0), x), ((0, 1), 1), ((0, -1), y)]),
                          {"mean": x})


def test_a_drift_that_vanishes_far_out_is_not_called_unstable():
    # births 1, deaths 1 + 3 / (1 + x): π_k ∝ Π (j + 1) / (j + 4) ~ k^-3, positive recurrent but with no
    # geometric Lyapunov function; and deaths 1 + 1 / (1 + x) give a null-recurrent chain
    for death in (1 + 3 / (1 + x), 1 + 1 / (1 + x)):
        with pytest.raises(ConvergenceError, match="tends to 0 far out"):
            stationary_bounds(PopulationModel([x], [((1,), 1), ((-1,), death)]), {"mean": x})


def test_rewards_and_comparisons_stay_polynomial_far_out():
    with pytest.raises(InvalidParameterError, match="rational function"):
        eventual_polynomial(1 / (1 + x), x)
    with pytest.raises(InvalidParameterError, match="rational function"):
        stationary_bounds(toggle(10, 10, 2, 2), {"ratio": x / (1 + y)})
    numerator, denominator, thresholds = eventual_rational(sympy.Min(x, 1 / (1 + x)), (x,))
    assert (numerator.as_expr(), denominator.as_expr()) == (1, x + 1) and thresholds[x] >= 0
