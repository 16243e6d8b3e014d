"""The certificate behind CTMC.stationary (analytic.ctmc._certificate) and the whole double range.

Each stationary law returned is bounded state by state by a checked supersolution of an
inverse-positive system (or by the tree theorem); these tests check that a wrong measure is never
vouched for, that the check is what decides, and that rates at the bottom of the double range give
the right law. References: closed forms of two- and three-state chains evaluated in mpmath at 50
digits (pi_i ∝ products of rates), and GTH's own answer perturbed on purpose.
"""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp

from analytic.ctmc import CTMC
from analytic.ctmc import _gth as gth
from analytic.ctmc._balance import Balance, Measure
from analytic.ctmc._certificate import _supplied, certify, normalized_bound, relative_residual, tree_bound
from analytic.ctmc._refinement import ScaledSolver
from analytic.errors import InvalidParameterError

mpmath.mp.dps = 50


def exact_law(weights):
    """Normalized mpmath weights as doubles."""
    total = mpmath.fsum(weights)
    return np.array([float(w / total) for w in weights])


def factored(chain):
    """The balance equations, the GTH measure (rooted at the likeliest state) and its solver."""
    balance = Balance(chain.generator)
    first = gth.Factorization(balance, gth.analyse(balance.rates))
    root = int(np.argmax(first.measure().relative_to_top()))
    factorization = gth.Factorization(balance, gth.analyse(balance.rates, root=root))
    x = factorization.measure()
    solver = ScaledSolver(balance, "gth", factorization)
    solver.update(x, root, True)
    return balance, x, root, solver


# -- the chains at the bottom of the double range -------------------------------------------


@pytest.mark.parametrize("rate", [1e-310, 5e-324, 2.2e-308, 1e-300])
def test_two_state_chain_with_a_subnormal_rate(rate):
    # pi ∝ (rate, 1): the old solver returned [1, 0] and vouched for it.
    pi = CTMC(np.array([[0, 1.0], [rate, 0]])).stationary()
    exact = exact_law([mpmath.mpf(rate), mpmath.mpf(1)])
    assert pi.probabilities[1] == pytest.approx(1.0, rel=1e-15, abs=0)
    assert abs(pi.probabilities[0] - exact[0]) <= pi.error_bounds[0] * exact[0]
    reversed_pi = CTMC(np.array([[0, rate], [1.0, 0]])).stationary()
    assert reversed_pi.probabilities[::-1] == pytest.approx(pi.probabilities, rel=1e-15, abs=0)


def test_three_state_near_trap():
    # 0 -> 1 at 1, 1 -> 0 and 1 -> 2 at 0.5, 2 -> 1 at 1e-310: pi ∝ (0.5, 1, 0.5e310), so state 2
    # holds all the mass (the old solver returned [1/3, 2/3, 0]).
    pi = CTMC(np.array([[0, 1, 0], [0.5, 0, 0.5], [0, 1e-310, 0]])).stationary()
    exact = exact_law([mpmath.mpf("0.5") * mpmath.mpf(1e-310), mpmath.mpf(1e-310), mpmath.mpf("0.5")])
    assert np.all(np.abs(pi.probabilities - exact) <= pi.error_bounds * exact)
    assert pi.probabilities[2] == pytest.approx(1.0, rel=1e-15, abs=0)


def test_builders_with_a_rate_of_1e_315():
    exact = exact_law([mpmath.mpf(1e-315), mpmath.mpf(1)])
    by_function = CTMC.from_function(0, lambda x: [(1, 1.0)] if x == 0 else [(0, 1e-315)]).stationary()
    by_lattice = CTMC.from_lattice((1,), [((1,), lambda X: 1.0 * (X[:, 0] == 0)),
                                          ((-1,), lambda X: 1e-315 * (X[:, 0] == 1))]).stationary()
    for pi in (by_function, by_lattice):
        assert pi.probabilities[1] == 1.0
        assert abs(pi.probabilities[0] - exact[0]) <= pi.error_bounds[0] * exact[0]


def test_every_two_state_chain_is_reversible():
    chain = CTMC(np.array([[0, 1.0], [1e-310, 0]]))
    assert chain.detailed_balance_residual(chain.stationary()) <= 1e-320


def test_tolerance_below_what_doubles_carry_is_refused_by_name():
    chain = CTMC(np.array([[0, 1.0], [2.0, 0]]))
    with pytest.raises(InvalidParameterError, match=r"tolerance = 1e-16: must be at least 2\*\*-50"):
        chain.stationary(tolerance=1e-16)
    assert chain.stationary(tolerance=2.0**-50).accuracy == 2.0**-50


# -- the check decides ------------------------------------------------------------------------------


def test_a_perturbed_measure_is_bounded_by_at_least_its_error():
    # GTH's measure of a birth–death chain with one probability moved by 1e-6: the certificate of
    # the wrong measure must bound its true error (the product form, in mpmath), never vouch 1e-10.
    births, deaths = [2.0, 0.5, 3.0, 1.0, 0.25], [1.0, 1.5, 0.5, 2.0, 1.0]
    chain = CTMC.from_function(0, lambda x: ([(x + 1, births[x])] if x < 5 else []) + ([(x - 1, deaths[x - 1])] if x > 0 else []))
    balance, x, root, solver = factored(chain)
    hi = x.hi.copy()
    moved = (root + 2) % 6
    hi[moved] *= 1 + 1e-6
    wrong = Measure(hi, x.lo, x.exponent)
    certificate = certify(balance, wrong, root, solver.solve)
    weights = [mpmath.mpf(1)]
    for b, d in zip(births, deaths, strict=True):
        weights.append(weights[-1] * mpmath.mpf(b) / mpmath.mpf(d))
    exact = [w / weights[root] for w in weights]
    values = [mpmath.ldexp(mpmath.mpf(float(h)), int(e) - int(r))
              for h, e, r in zip(hi, x.exponent, balance.row_exponent, strict=True)]
    values = [v / values[root] for v in values]
    error = np.array([float(abs(v / w - 1)) for v, w in zip(values, exact, strict=True)])
    assert error[moved] > 5e-7
    assert np.all(certificate.relative >= error)


def test_a_supersolution_scaled_down_fails_the_check():
    # The certificate's u, scaled by 0.3, no longer dominates the residual in every row: the check
    # (not the solver that produced u) is what the bound rests on.
    chain = CTMC.from_lattice((15, 15), [((1, 0), lambda X: 0.6 * (X[:, 0] < 15)), ((-1, 0), lambda X: 1.0 * (X[:, 0] > 0)),
                                         ((0, 1), lambda X: 0.8 * (X[:, 1] < 15)), ((0, -1), lambda X: 1.0 * (X[:, 1] > 0))])
    balance, x, root, solver = factored(chain)
    certificate = certify(balance, x, root, solver.solve)
    assert certificate.holds
    _, need = relative_residual(balance, x, root)
    g = certificate.relative * (1 - 2 * 2.0**-53) / (1 + 4 * 2.0**-53)
    _, lowered = _supplied(balance, x, x.hi * g, np.zeros_like(g), root)
    assert np.all(lowered >= need)
    _, lowered = _supplied(balance, x, x.hi * g * 0.3, np.zeros_like(g), root)
    assert np.any(lowered < need)


def test_tree_bound_beyond_the_double_range_is_infinite_not_an_overflow():
    # M/M/1/999 at load 1/2 with a measure 10 % off on every other state: each tree edge's flow
    # changes by a few per cent, so ((1 + eta) / (1 - eta))^999 - 1 is far beyond 1e308. The bound
    # is inf (it says nothing), where math.expm1 raised OverflowError inside stationary().
    n = 1000
    chain = CTMC.from_function(0, lambda x: ([(x + 1, 0.5)] if x < n - 1 else []) + ([(x - 1, 1.0)] if x > 0 else []))
    balance = Balance(chain.generator)
    x = Measure.from_parts(np.ones(n) + 0.1 * (np.arange(n) % 2), np.zeros(n, np.int64))
    bound, eta = tree_bound(balance, x)
    assert 0.01 < eta < 1 and (n - 1) * math.log((1 + eta) / (1 - eta)) > 710
    assert bound == math.inf


# -- from a bounded measure to a bounded law ----------------------------------------------------------


def test_the_normalized_bound_covers_every_corner_both_ways():
    # x_true = x (1 + e), |e_i| <= z_i: over every corner e in {-z, +z}^n (the extremes of a ratio
    # of sums linear in e), the computed probability's error relative to the exact one *and* to
    # itself stays within the bound (exact rationals). The worst corner moves e_i against the
    # others, so the bound exceeds it only by the share pi_i z_i of state i in Z.
    rng = np.random.default_rng(0)
    for _ in range(20):
        n = int(rng.integers(2, 6))
        x = [Fraction(v) for v in rng.uniform(0.1, 1, n)]
        z = rng.uniform(0, 0.2, n)
        computed = [v / sum(x) for v in x]
        bound = normalized_bound(z, np.array([float(p) for p in computed]))
        worst = np.zeros(n)
        for signs in np.ndindex(*(2,) * n):
            e = [Fraction(z[i]) * (1 if s else -1) for i, s in enumerate(signs)]
            true = [v * (1 + d) for v, d in zip(x, e, strict=True)]
            exact = [v / sum(true) for v in true]
            for i in range(n):
                error = max(abs(computed[i] / exact[i] - 1), abs(exact[i] / computed[i] - 1))
                worst[i] = max(worst[i], float(error))
        assert np.all(worst <= bound)
        pi, total = np.array([float(p) for p in computed]), float(np.dot([float(p) for p in computed], z))
        attained = np.maximum((1 + total - 2 * pi * z) / (1 - z), (1 + z) / (1 - total + 2 * pi * z)) - 1
        assert worst == pytest.approx(attained, rel=1e-9, abs=1e-15)


def test_the_law_is_rounded_once_even_below_the_normal_range():
    # Measures of random mantissas, tails and exponents reaching 1100 binary orders below the top:
    # each probability within rounding * p + 2**-1075 of the exact quotient (rationals), where the
    # old normalization rounded subnormal values before dividing by a sum near 1/2 (twice the
    # absolute error its bound allowed).
    balance = Balance(sp.csr_array(np.ones((6, 6)) - np.eye(6)))
    rng = np.random.default_rng(1)
    for _ in range(200):
        hi = rng.uniform(0.5, 1, 6)
        lo = hi * rng.uniform(-2.0**-53, 2.0**-53, 6)
        exponent = rng.integers(-1100, 1, 6)
        exponent[0] = 0
        law, rounding = balance.normalized(Measure(hi, lo, exponent + balance.row_exponent))
        values = [(Fraction(h) + Fraction(t)) * Fraction(2) ** int(e) for h, t, e in zip(hi, lo, exponent, strict=True)]
        total = sum(values)
        for p, v in zip(law, values, strict=True):
            exact = v / total
            assert abs(Fraction(p) - exact) <= Fraction(rounding) * exact + Fraction(2) ** -1075
    assert rounding < 2.0**-53 * (1 + 1e-10)


def test_tree_bound_through_a_subnormal_rate():
    # State 2 is reached only by a rate 2**-1060 times its source's outflow: the flow of that tree
    # edge, formed as one product, underflowed to zero and the bound raised ZeroDivisionError (seen
    # on greedy(p*) at arrival rate 1e-200). The law is pi ∝ (1, 1, 2**-1060) exactly. The bound
    # holds, weak (the flow excess into state 2 is formed from a subnormal product); the solver
    # vouches for the law by its other bounds.
    rates = np.array([[0, 1.0, 0], [1.0, 0, 2.0**-1060], [0, 1.0, 0]])
    balance = Balance(sp.csr_array(rates))
    x = gth.Factorization(balance, gth.analyse(balance.rates)).measure()
    bound, _ = tree_bound(balance, x)
    law, _ = balance.normalized(x)
    exact = np.array([1.0, 1.0, 2.0**-1060]) / 2
    assert np.all(np.abs(law - exact) <= bound * exact)
    result = CTMC(rates).stationary()
    assert np.all(np.abs(np.asarray(result) - exact) <= result.error_bounds * exact)
    assert result.error_bounds[exact >= result.floor].max() <= result.accuracy
