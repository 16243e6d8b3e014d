"""Tests of analytic.partitioning.weights: f = log^(1-b) (Theorem 2), f^(j) (12), the conditions and bounds of Theorem 2.

References: mpmath at 50 digits for f and for the bounds' formulas, eq. (12) evaluated by hand, and
the capacity margin of Figure 1 by hand (δ_max = 2/ρ - 1).
"""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from analytic import partitioning as P
from analytic.errors import InvalidParameterError
from analytic.partitioning import (
    GraphJob,
    dgp_bounds,
    dgp_conditions,
    dgp_parameters,
    dgp_queue_weights,
    log_power,
    loss_distribution,
)
from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB


@pytest.mark.parametrize("x, b", [(1.0, 0.5), (2.5, 0.3), (1e6, 0.9), (1e300, 0.1), (7.0, 0.0)])
def test_log_power_against_mpmath(x, b):
    with mpmath.workdps(50):
        reference = float(mpmath.log(mpmath.mpf(x)) ** (1 - mpmath.mpf(b)))
    assert log_power(x, b) == pytest.approx(reference, rel=1e-14, abs=0)
    assert log_power(np.array([x, x]), b).tolist() == pytest.approx([reference] * 2, rel=1e-14, abs=0)


def test_queue_weights_eq_12_by_hand():
    q = dgp_queue_weights([3, 40, 0], alpha=0.5, h=10.0, epsilon=0.8, total_slots=4, b=0.5)
    f = [math.log(13) ** 0.5, math.log(50) ** 0.5, math.log(10) ** 0.5]
    floor = 0.8 / 32 * max(f)
    assert q.tolist() == pytest.approx([0.5 * max(v, floor) for v in f], rel=1e-14, abs=0)
    lifted = dgp_queue_weights([0, 1e30], alpha=1.0, h=1.0, epsilon=0.9, total_slots=1, b=0.0)
    assert lifted[0] == pytest.approx(0.9 / 8 * math.log(1e30 + 1), rel=1e-14, abs=0)     # f(h) = 0 lifted to the floor


@pytest.mark.parametrize("slots", [10**300, 10**400])
def test_dgp_queue_weights_floor_for_any_number_of_slots(slots):
    """The floor ε/(8M) f(h + Q_max) of eq. (12) for M at and beyond the double range (10**400 raised OverflowError),
    against exact rationals: 0.9/(8e300) f_max = 7.77e-302 is a double, 0.9/(8e400) f_max underflows to 0."""
    q = dgp_queue_weights([0, 1000], alpha=1.0, h=1.0, epsilon=0.9, total_slots=slots, b=0.0)
    f_max = math.log(1001.0)
    floor = float(Fraction(0.9) * Fraction(f_max) / (8 * slots))
    assert q.tolist() == pytest.approx([floor, f_max], rel=1e-14, abs=0)
    assert (floor > 0) == (slots < 10**308)


def test_corollary1_parameters():
    p = dgp_parameters(0.2, 0.4)
    assert (p.alpha, p.log_h, p.epsilon) == pytest.approx((0.04, 0.2 ** (-1 / 0.6), 0.2 ** (0.16 / 4)), rel=1e-14, abs=0)


def test_conditions_name_the_failing_hypothesis():
    job = GraphJob(5, FIGURE1_JOB.edges, arrival_rate=1.5, service_rate=1.0)          # δ_max = 1/3
    good = dgp_conditions(FIGURE1_CLUSTER, job, alpha=0.1, beta=0.2, epsilon=0.3, log_h=1e15, b=0.5)
    assert good.holds and good.failures == () and good.delta_star == pytest.approx(1 / 3, rel=1e-12, abs=0)
    bad = dgp_conditions(FIGURE1_CLUSTER, job, alpha=0.3, beta=1.5, epsilon=0.5, log_h=10.0, b=0.5)
    assert not bad.holds
    assert bad.failures == ("β < 1: β = 1.5",
                            "ε <= δ*: ε = 0.5, δ* = 0.333333",
                            f"h >= exp(C_0 β⁻¹ ε^-(2-b+1/b)/(1-b)) (28): log h = 10 < {bad.log_h_required:.4g}")
    assert dgp_conditions(FIGURE1_CLUSTER, job, 0.5, 0.2, 0.3, 1e15, 0.5).failures == ("α <= β: α = 0.5, β = 0.2",)
    outside = GraphJob(5, FIGURE1_JOB.edges, arrival_rate=2.0, service_rate=1.0)     # on the boundary of Λ
    assert "ρ(1 + δ*) ∈ Λ for some δ* > 0: largest δ = 0" in dgp_conditions(
        FIGURE1_CLUSTER, outside, 0.1, 0.2, 0.3, 1e15, 0.5).failures[0]


def test_h_threshold_formula():
    """log h >= C_0 β⁻¹ ε^(-(2 - b + 1/b)/(1 - b)) with the proof's C_0, recomputed here in mpmath."""
    check = dgp_conditions(FIGURE1_CLUSTER, FIGURE1_JOB, 0.1, 0.2, 0.3, 1.0, 0.5)
    with mpmath.workdps(50):
        m, b = 12, mpmath.mpf("0.5")
        xi = mpmath.mpf(26)
        log_k0 = -mpmath.log(119845441) - 2 * mpmath.log(mpmath.factorial(12))
        c0 = 8 * m * (8 * m * 5 + 2 * abs(mpmath.log(512) + 2 * mpmath.log(xi) - 2 * log_k0) + 2 + (8 * m) ** (2 / b))
        required = c0 / mpmath.mpf("0.2") * mpmath.mpf("0.3") ** (-(2 - b + 1 / b) / (1 - b))
    assert check.c0 == pytest.approx(float(c0), rel=1e-13, abs=0)
    assert check.log_h_required == pytest.approx(float(required), rel=1e-13, abs=0)


def test_bounds_formula():
    alpha, beta, epsilon, log_h, b = 0.1, 0.2, 0.3, 50.0, 0.5
    bounds = dgp_bounds(FIGURE1_CLUSTER, FIGURE1_JOB, alpha, beta, epsilon, log_h, b)
    log_gamma_min = loss_distribution(FIGURE1_CLUSTER, FIGURE1_JOB).min_log_probability
    with mpmath.workdps(50):
        h = mpmath.exp(log_h)
        k2 = (1 - b) * mpmath.log(h) ** (-b) / h * (12 + 1)
        k3 = mpmath.log(12 + h) ** (1 - b) * 12
        cost = 1 + alpha * (k2 + k3) - beta * log_gamma_min + epsilon * 5
        queue = 2 / (1 * 1) * (k2 + k3 - beta / alpha * log_gamma_min + (1 + mpmath.mpf(1) / 2) * 1 / alpha + epsilon * 5 / alpha)
    assert bounds.static_cost == pytest.approx(1.0, rel=1e-12, abs=0)
    assert bounds.cost == pytest.approx(float(cost), rel=1e-12, abs=0)
    assert bounds.queue == pytest.approx(float(queue), rel=1e-12, abs=0)


@pytest.mark.parametrize("call, message", [
    (lambda: log_power(0.5, 0.5), "x = 0.5: must be finite and >= 1"),
    (lambda: log_power(2.0, 1.0), "b = 1: must lie in \\[0, 1\\)"),
    (lambda: dgp_queue_weights([1], 1.0, 0.5, 0.5, 4, 0.5), "h = 0.5: must be >= 1"),
    (lambda: dgp_queue_weights([1], 1.0, 2.0, 1.5, 4, 0.5), "epsilon = 1.5: must lie in \\(0, 1\\)"),
    (lambda: dgp_queue_weights([-1], 1.0, 2.0, 0.5, 4, 0.5), "queues = \\[-1\\]: must be finite numbers >= 0"),
    # α f(h + Q) = 1.7e308 log(1001) overflows: it was returned as inf
    (lambda: dgp_queue_weights([0, 1000], 1.7e308, 1.0, 0.9, 1, 0.0),
     "alpha = 1.7e\\+308: times f\\^\\(j\\)\\(h \\+ Q\\) up to 6.90875 must stay within the double range"),
    (lambda: dgp_conditions(FIGURE1_CLUSTER, FIGURE1_JOB, 0.1, 0.2, 0.3, 10.0, 0.0), "b = 0: must lie in \\(0, 1\\)"),
    (lambda: dgp_conditions(FIGURE1_CLUSTER, FIGURE1_JOB, 0.0, 0.2, 0.3, 10.0, 0.5), "alpha = 0: must be positive"),
    (lambda: dgp_parameters(-0.1, 0.5), "beta = -0.1: must be positive"),
])
def test_errors(call, message):
    with pytest.raises(InvalidParameterError, match=message):
        call()


def test_thresholds_beyond_double_precision_are_infinite_not_an_overflow():
    """Theorem 2's h threshold C_0 β⁻¹ ε^(-(2-b+1/b)/(1-b)) at ε = 1e-300 and Corollary 1's log h = β^(-1/(1-b)) at
    β = 1e-300 exceed double precision: inf (the hypothesis (28) then fails), where they raised OverflowError."""
    conditions = P.dgp_conditions(P.Cluster([2, 2]), P.GraphJob(2, [(0, 1)], 0.5, 1.0), 0.1, 0.5, 1e-300, 10.0, 0.5)
    assert conditions.log_h_required == math.inf and not conditions.holds
    assert P.dgp_parameters(1e-300, 0.5).log_h == math.inf
    assert P.dgp_parameters(1.4e154, 0.5).alpha == math.inf                           # β² (an OverflowError before)
    assert P.dgp_parameters(0.5, 0.5).log_h == pytest.approx(4.0, rel=1e-15, abs=0)      # (1/2)^(-2), by hand
