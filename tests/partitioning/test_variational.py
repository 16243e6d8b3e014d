"""Tests of analytic.partitioning.variational: the variational form (13) and Corollary 2.

References: cvxpy (Clarabel, exponential cone) maximising (13) with no knowledge of (15); the
closed form of the optimum β log E_γ e^(W/β) evaluated with mpmath at 50 digits; random laws on the
simplex (hypothesis) that must not beat π*; the Max-Weight value of eq. (17); at the ends of the double
range, exact rational weights with the exact multiplicities at 50 digits.
"""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic import partitioning as P
from analytic.errors import InvalidParameterError
from analytic.partitioning import (
    Cluster,
    GraphJob,
    dgp_distribution,
    loss_distribution,
    max_weight,
    solve_variational,
    variational_objective,
    variational_optimum,
    weight_gap_bound,
)
from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB

TRIANGLE = GraphJob(3, [(0, 1), (1, 2), (0, 2)], arrival_rate=2.0, service_rate=1.0)
JOBS = [FIGURE1_JOB, TRIANGLE]


@pytest.mark.parametrize("q, beta", [(1.5, 2.0), (1.5, 0.5), (1.5, 0.1), (3.0, 0.05), ([2.0, 0.5], 0.3)])
def test_cvxpy_maximiser_of_13_is_pi_star_15(q, beta):
    jobs = JOBS if isinstance(q, list) else FIGURE1_JOB
    exact = dgp_distribution(FIGURE1_CLUSTER, jobs, q, beta)
    solution = solve_variational(FIGURE1_CLUSTER, jobs, q, beta)
    assert 0.5 * np.abs(solution.probabilities - exact.probabilities).sum() < 1e-6
    optimum = variational_optimum(FIGURE1_CLUSTER, jobs, q, beta)
    assert solution.value == pytest.approx(optimum, abs=1e-8)
    assert variational_objective(FIGURE1_CLUSTER, jobs, exact.probabilities, q, beta) == pytest.approx(optimum, abs=1e-12)


@pytest.mark.parametrize("q, beta", [(1.5, 0.5), (3.0, 1e-3), (-2.0, 0.2)])
def test_closed_form_optimum_against_mpmath(q, beta):
    gamma = loss_distribution(FIGURE1_CLUSTER, FIGURE1_JOB)
    space = gamma.configurations
    with mpmath.workdps(50):
        total = mpmath.fsum(mpmath.exp(mpmath.mpf(float(lg)) + (mpmath.mpf(q) * int(n) - mpmath.mpf(float(c))) / mpmath.mpf(beta))
                            for lg, n, c in zip(gamma.log_probabilities, space.templates[:, 0], space.cost, strict=True))
        reference = float(mpmath.mpf(beta) * mpmath.log(total))
    assert variational_optimum(FIGURE1_CLUSTER, FIGURE1_JOB, q, beta) == pytest.approx(reference, rel=1e-12, abs=1e-12)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=105, max_size=105).filter(lambda x: sum(x) > 0.01),
       st.floats(0.05, 3.0), st.floats(-1.0, 4.0))
def test_no_law_beats_pi_star(raw, beta, q):
    """F is strictly concave with maximiser π*: any other law on the simplex scores lower."""
    p = np.array(raw) / sum(raw)
    optimum = variational_optimum(FIGURE1_CLUSTER, FIGURE1_JOB, q, beta)
    assert variational_objective(FIGURE1_CLUSTER, FIGURE1_JOB, p, q, beta) <= optimum + 1e-12
    star = dgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, q, beta).probabilities
    mixed = 0.5 * (p + star)    # strict concavity: halfway scores above the average of the ends
    ends = 0.5 * (variational_objective(FIGURE1_CLUSTER, FIGURE1_JOB, p, q, beta) + optimum)
    assert variational_objective(FIGURE1_CLUSTER, FIGURE1_JOB, mixed, q, beta) >= ends - 1e-12


@pytest.mark.parametrize("beta", [5.0, 1.0, 0.3, 0.1, 0.03, 0.01])
@pytest.mark.parametrize("q", [0.5, 1.5, 3.0, [2.0, 0.5], [0.2, 1.0]])
def test_corollary2_holds(q, beta):
    jobs = JOBS if isinstance(q, list) else FIGURE1_JOB
    check = weight_gap_bound(FIGURE1_CLUSTER, jobs, q, beta)
    assert check.holds
    assert check.bound <= check.objective + 1e-12 <= check.max_weight + 2e-12
    assert check.objective <= check.expected_weight + 1e-12        # F = E[W] - β KL with KL >= 0
    assert check.max_weight == max_weight(FIGURE1_CLUSTER, jobs, q).weight


def test_objective_tends_to_the_max_weight_as_beta_falls():
    gaps = [max_weight(FIGURE1_CLUSTER, FIGURE1_JOB, 1.5).weight - variational_optimum(FIGURE1_CLUSTER, FIGURE1_JOB, 1.5, b)
            for b in (1.0, 0.1, 0.01, 0.001)]
    assert all(g >= 0 for g in gaps) and gaps == sorted(gaps, reverse=True) and gaps[-1] < 0.02


def test_errors():
    with pytest.raises(InvalidParameterError, match="must be 105 non-negative numbers summing to 1"):
        variational_objective(FIGURE1_CLUSTER, FIGURE1_JOB, np.ones(105), 1.0, 1.0)
    with pytest.raises(InvalidParameterError, match="must be 105 non-negative numbers summing to 1"):
        variational_objective(FIGURE1_CLUSTER, FIGURE1_JOB, [1.0], 1.0, 1.0)
    with pytest.raises(InvalidParameterError, match="beta = 0: must be positive"):
        solve_variational(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 0.0)


def exact_corollary2(cluster, jobs, queue_weights, beta):
    """(W*, E_π*[W], F(π*)) from exact rational weights W_C and the exact multiplicities, at 50 digits."""
    space = loss_distribution(cluster, jobs).configurations
    weights = [sum(Fraction(q) * int(n) for q, n in zip(queue_weights, space.templates[i], strict=True))
               - Fraction(float(space.cost[i])) for i in range(len(space))]
    best = max(weights)
    with mpmath.workdps(50):
        gamma = [space.multiplicity(i) * mpmath.factorial(int(space.free[i]))
                 * mpmath.fprod(mpmath.mpf(job.offered_load) ** int(n)
                                for job, n in zip(space.jobs, space.templates[i], strict=True))
                 for i in range(len(space))]
        tilt = [mpmath.exp(mp_rational((w - best) / Fraction(beta))) for w in weights]
        pi = [g * t for g, t in zip(gamma, tilt, strict=True)]
        mean = mpmath.fsum(p * mp_rational(w) for p, w in zip(pi, weights, strict=True)) / mpmath.fsum(pi)
        objective = mp_rational(best) + mpmath.mpf(beta) * mpmath.log(mpmath.fsum(pi) / mpmath.fsum(gamma))
        return float(best), float(mean), float(objective)


def mp_rational(value):
    return mpmath.mpf(value.numerator) / value.denominator


SMALL = (Cluster([2, 2]), GraphJob(2, [(0, 1)], arrival_rate=1.0, service_rate=1.0))   # the bad-input sweep's system


@pytest.mark.parametrize("system, q, beta", [
    (SMALL, [1.5], 5e-324),             # W/β overflowed: NaN expected_weight
    (SMALL, [-1e308], 0.5),             # Σ q |C| below the double range: raw OverflowError
    (SMALL, [-1e308], 5e-324),
    ((Cluster([2, 2]), GraphJob(3, [(0, 1), (1, 2)], 1.0, 1.0)), [1.7e308], 0.5),   # one template at most: W* = q - 1
    ((FIGURE1_CLUSTER, FIGURE1_JOB), [1.5], 1e-300),
    ((FIGURE1_CLUSTER, JOBS), [1e300, -1e308], 0.2),
    ((FIGURE1_CLUSTER, JOBS), [2.0, 0.5], 2.2e-308),
])
def test_corollary2_at_the_ends_of_the_double_range_against_exact_rationals(system, q, beta):
    cluster, jobs = system
    best, mean, objective = exact_corollary2(cluster, [jobs] if isinstance(jobs, GraphJob) else jobs, q, beta)
    check = weight_gap_bound(cluster, jobs, q, beta)
    assert check.max_weight == pytest.approx(best, rel=1e-15, abs=0)
    assert check.expected_weight == pytest.approx(mean, rel=1e-12, abs=1e-300)
    assert check.objective == pytest.approx(objective, rel=1e-12, abs=1e-300)
    assert variational_optimum(cluster, jobs, q, beta) == pytest.approx(objective, rel=1e-12, abs=1e-300)
    assert check.holds and math.isfinite(check.bound)


@pytest.mark.parametrize("call", [weight_gap_bound, variational_optimum])
def test_a_heaviest_weight_beyond_the_double_range_is_refused(call):
    with pytest.raises(InvalidParameterError, match=r"queue_weights = \[1.7e\+308\]: must keep the heaviest configuration's "
                                                    r"weight .* within the double range \(it is about 3.400e\+308\)"):
        call(*SMALL, [1.7e308], 0.5)


@pytest.mark.parametrize("call,match", [
    (lambda: P.solve_variational(P.Cluster([2, 2]), P.GraphJob(2, [(0, 1)], 0.5, 1.0), 10**18, 1.0),
     r"^queue_weights = 1000000000000000000: over beta = 1 give weights W/β up to 2e\+18"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()
