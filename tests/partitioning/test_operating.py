"""Tests of analytic.partitioning.operating: the queue weights at which DGP-bar serves exactly the load.

References: a one-dimensional root (scipy brentq) of E_π*(q)|C| = ρ for one type; cvxpy solving the
primal problem max -E_π cost - β KL(π ‖ γ) subject to E_π|C^(j)| = ρ_j (an exponential-cone program
whose maximiser must be π*(q*)); the static problem's G(x*) as the β -> 0 limit.
"""

import cvxpy as cp
import numpy as np
import pytest
from scipy.optimize import brentq

from analytic import partitioning as P
from analytic.errors import InvalidParameterError
from analytic.partitioning import (
    GraphJob,
    adgp_distribution,
    dgp_distribution,
    loss_distribution,
    operating_point,
    static_partitioning,
)
from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB

TWO = [GraphJob(5, FIGURE1_JOB.edges, 0.6, 1.0), GraphJob(3, [(0, 1), (1, 2), (0, 2)], 2.0, 1.0)]


@pytest.mark.parametrize("beta", [2.0, 0.5, 0.1])
def test_one_type_against_a_scalar_root(beta):
    root = brentq(lambda q: dgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, q, beta).expected_templates[0] - 1.0, -20, 20,
                  xtol=1e-14)
    point = operating_point(FIGURE1_CLUSTER, FIGURE1_JOB, beta)
    assert point.queue_weights[0] == pytest.approx(root, abs=1e-8)
    assert point.law.expected_templates[0] == pytest.approx(1.0, abs=1e-9)


@pytest.mark.filterwarnings("ignore:Solution may be inaccurate")
@pytest.mark.parametrize("beta", [1.0, 0.3])
def test_two_types_against_the_primal_exponential_cone_program(beta):
    gamma = loss_distribution(FIGURE1_CLUSTER, TWO)
    space = gamma.configurations
    loads = np.array([job.offered_load for job in TWO])
    p = cp.Variable(len(space), nonneg=True)
    problem = cp.Problem(cp.Maximize(-(space.cost / beta) @ p - cp.sum(cp.rel_entr(p, gamma.probabilities))),
                         [cp.sum(p) == 1, space.templates.T.astype(float) @ p == loads])
    problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    point = operating_point(FIGURE1_CLUSTER, TWO, beta)
    assert point.law.expected_templates == pytest.approx(loads, abs=1e-8)
    assert 0.5 * np.abs(p.value - point.law.probabilities).sum() < 1e-5
    assert -beta * problem.value == pytest.approx(point.expected_cost + beta * kl(point.law.probabilities, gamma.probabilities),
                                                  abs=1e-6)


def kl(p, q):
    mask = p > 0
    return float(np.sum(p[mask] * np.log(p[mask] / q[mask])))


def test_cost_falls_to_the_static_optimum():
    for jobs in (FIGURE1_JOB, TWO):
        costs = [operating_point(FIGURE1_CLUSTER, jobs, beta).expected_cost for beta in (2.0, 0.5, 0.2, 0.05, 0.02)]
        assert costs == sorted(costs, reverse=True)
        assert costs[-1] == pytest.approx(static_partitioning(FIGURE1_CLUSTER, jobs).cost, abs=1e-6)


def test_adgp_operating_point_uses_gamma_hat():
    point = operating_point(FIGURE1_CLUSTER, FIGURE1_JOB, 0.5, clock_rate=0.2)
    law = adgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, 0.2, point.queue_weights, 0.5)
    assert law.expected_templates[0] == pytest.approx(1.0, abs=1e-9)
    assert point.expected_cost == pytest.approx(law.expected_cost, rel=1e-12, abs=0)


def test_implied_queues():
    point = operating_point(FIGURE1_CLUSTER, FIGURE1_JOB, 0.5)
    q = point.queue_weights[0]
    assert point.queues(0.5, 1.0, 0.0)[0] == pytest.approx(np.exp(q / 0.5) - 1.0, rel=1e-12, abs=0)
    assert point.queues(0.5, 3.0, 0.5)[0] == pytest.approx(np.exp((q / 0.5) ** 2) - 3.0, rel=1e-12, abs=0)
    assert np.isinf(operating_point(FIGURE1_CLUSTER, FIGURE1_JOB, 0.02).queues(0.02, 1.0, 0.5)[0])


def test_loads_on_or_outside_the_boundary():
    for rate in (2.0, 2.5):
        with pytest.raises(InvalidParameterError, match="loads must lie strictly inside the capacity region"):
            operating_point(FIGURE1_CLUSTER, GraphJob(5, FIGURE1_JOB.edges, rate, 1.0), 0.5)


@pytest.mark.parametrize("call,match", [
    (lambda: P.operating_point(P.Cluster([2, 2]), P.GraphJob(2, [(0, 1)], 0.5, 1.0), 1e-300),
     r"^beta = 1e-300: must be at least 2e-09 \(1e-9 times the largest cost\)"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()
