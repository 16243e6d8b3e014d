"""Chains whose every transition can be undone (analytic.ctmc._reversible): the bound of the backward
error of detailed balance, and the Newton steps that bring a measure into detailed balance.

References: the exact law of a reversible chain is its product form, computed in mpmath at 60
digits (or in integers for rates that are powers of two); the quantities ``l_ij`` each bound covers
are computed in mpmath from the same doubles.
"""

import math

import mpmath
import numpy as np
import scipy.sparse as sp

from analytic.ctmc._balance import Balance, Measure
from analytic.ctmc._reversible import _edge_logs, detailed_balance, reversible_bound


def birth_death(up, down):
    return Balance(sp.diags_array([down, up], offsets=[-1, 1]).tocsr())


def product_form(balance, up, down):
    """The invariant measure of the scaled chain ``Q' = diag(2**-e) Q``, ``x_k = pi_k 2**e_k``, with
    ``pi`` the product form, in mpmath (60 digits)."""
    with mpmath.workdps(60):
        pi = [mpmath.mpf(1)]
        for a, b in zip(up, down, strict=True):
            pi.append(pi[-1] * mpmath.mpf(float(a)) / mpmath.mpf(float(b)))
        return [mpmath.ldexp(p, int(e)) for p, e in zip(pi, balance.row_exponent, strict=True)]


def as_measure(values):
    """mpmath values as a double-double Measure (hi, lo, exponent)."""
    hi, lo, exponent = [], [], []
    with mpmath.workdps(60):
        for v in values:
            mantissa, power = mpmath.frexp(v)
            first = float(mantissa)
            hi.append(first)
            lo.append(float(mantissa - first))
            exponent.append(int(power))
    return Measure.from_parts(np.array(hi), np.array(exponent), np.array(lo))


def perturbed_birth_death(seed, states, decades, size):
    """A birth–death chain with rates over ``2 decades`` decades, its exact scaled measure, and that
    measure times ``1 + e`` with ``e`` uniform on [-size, size] at each state (double-double)."""
    rng = np.random.default_rng(seed)
    up, down = 10 ** rng.uniform(-decades, decades, states - 1), 10 ** rng.uniform(-decades, decades, states - 1)
    balance = birth_death(up, down)
    exact = product_form(balance, up, down)
    with mpmath.workdps(60):
        x = as_measure([v * (1 + mpmath.mpf(float(e))) for v, e in zip(exact, rng.uniform(-size, size, states), strict=True)])
    return balance, exact, x


def hilbert_to_exact(x, exact):
    with mpmath.workdps(60):
        logs = [mpmath.log(mpmath.ldexp(mpmath.mpf(h) + mpmath.mpf(lo), int(e))) - mpmath.log(v)
                for h, lo, e, v in zip(x.hi, x.lo, x.exponent, exact, strict=True)]
        return float(max(logs) - min(logs))


def test_each_edge_bound_covers_the_exact_log_ratio_of_the_flows():
    # A perturbed measure of a birth-death chain over 8 decades: each bound is above the exact
    # |log(x_i q_ij / (x_j q_ji))| (mpmath, 60 digits), by at most 2**-90 absolute and a relative
    # 2**-45 plus twice the value (the bound takes |log(1 + d)| as |d| / (1 - |d|)).
    balance, _, x = perturbed_birth_death(1, 31, 4, 1e-9)
    logs, bound = _edge_logs(balance, x)
    rates, back = balance.rates, balance.reverse_rates()
    rows = np.repeat(np.arange(balance.n), np.diff(rates.indptr))
    with mpmath.workdps(60):
        value = [mpmath.ldexp(mpmath.mpf(h) + mpmath.mpf(lo), int(e)) for h, lo, e in zip(x.hi, x.lo, x.exponent, strict=True)]
        for p, (i, j) in enumerate(zip(rows, rates.indices, strict=True)):
            true = abs(mpmath.log(value[i] * mpmath.mpf(float(rates.data[p])) / (value[j] * mpmath.mpf(float(back[p])))))
            assert true <= bound[p] <= true * (1 + 2 * true + 2.0**-45) + 2.0**-90   # |d| / (1 - |d|) >= |log(1 + d)|
            assert abs(logs[p] - float(true) * np.sign(logs[p])) <= 1e-15 * float(true) + 1e-30


def test_the_bound_is_above_the_error_of_a_perturbed_measure_and_of_its_order():
    # x = exact * (1 + e) with |e| <= 1e-6 on a 40-state chain: the normalized error (Hilbert metric,
    # which bounds it) lies below the bound, and the bound is at most n times the largest |l_ij|.
    balance, exact, x = perturbed_birth_death(2, 40, 3, 1e-6)
    bound = reversible_bound(balance, x)
    error = hilbert_to_exact(x, exact)
    assert math.expm1(error) <= bound <= 40 * 2 * 4e-6


def test_no_bound_for_a_one_way_transition_or_a_zero_state():
    cycle = Balance(sp.csr_array([[0, 1.0, 0], [0, 0, 2.0], [4.0, 0, 0]]))
    x = Measure.from_parts(np.ones(3), np.zeros(3, np.int64))
    assert reversible_bound(cycle, x) == math.inf
    path = birth_death([1.0, 1.0], [1.0, 1.0])
    assert reversible_bound(path, Measure.from_parts(np.array([1.0, 0.0, 1.0]), np.zeros(3, np.int64))) == math.inf
    assert detailed_balance(cycle, x) is x


def test_detailed_balance_restores_the_product_form_to_double_double():
    # From a measure 1e-9 off at every state of a 2 000-state chain over 8 decades, the Newton
    # steps reach the product form within 1e-24 (mpmath, 60 digits), and the bound then certifies
    # the law to a few units of 2**-53 times the number of states at most.
    balance, exact, x = perturbed_birth_death(3, 2000, 4, 1e-9)
    balanced = detailed_balance(balance, x)
    assert hilbert_to_exact(balanced, exact) <= 1e-24
    assert reversible_bound(balance, balanced) <= 1e-20


def test_detailed_balance_on_an_exactly_reversible_lattice():
    # Rates 2**-max(0, k_j - k_i) on a 30 x 30 grid: the law is 2**-k exactly; from the uniform
    # measure times (1 + 1e-8 noise) the steps find it, and the bound certifies it.
    side = 30
    k = np.random.default_rng(4).integers(0, 60, side * side)
    index = np.arange(side * side).reshape(side, side)
    a = np.concatenate([index[:, :-1].ravel(), index[:-1, :].ravel()])
    b = np.concatenate([index[:, 1:].ravel(), index[1:, :].ravel()])
    rows, cols = np.concatenate([a, b]), np.concatenate([b, a])
    rates = np.ldexp(1.0, -np.maximum(0, k[cols] - k[rows]))
    balance = Balance(sp.coo_array((rates, (rows, cols)), shape=(side * side,) * 2).tocsr())
    with mpmath.workdps(60):
        exact = [mpmath.ldexp(1, int(e) - int(kk)) for kk, e in zip(k, balance.row_exponent, strict=True)]
        noisy = as_measure([v * (1 + mpmath.mpf(float(e))) for v, e in
                            zip(exact, np.random.default_rng(5).uniform(-1e-8, 1e-8, side * side), strict=True)])
    balanced = detailed_balance(balance, noisy)
    assert hilbert_to_exact(balanced, exact) <= 1e-22
    assert reversible_bound(balance, balanced) <= 1e-18
