"""Tests of analytic.partitioning.distributions: γ (14), π* (15), γ̂ (33).

References: the chains of analytic.partitioning.chain built from the algorithms' rules and solved by
analytic.ctmc (a different computation: placement probabilities and acceptance rates, no closed
form), detailed balance (16), mpmath at 50 digits with the exact integer multiplicities for extreme
temperatures, and Figure 1's law by hand (weights 12!, 12!, 12!/2 for 0, 1, 2 graphs at ρ = 1).
"""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.errors import InvalidParameterError
from analytic.partitioning import (
    Cluster,
    GraphJob,
    adgp_chain,
    adgp_distribution,
    dgp_chain,
    dgp_distribution,
    loss_chain,
    loss_distribution,
    state_space,
)
from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB

TRIANGLE = GraphJob(3, [(0, 1), (1, 2), (0, 2)], arrival_rate=1.2, service_rate=1.0)


def aligned(chain, law):
    return law.probabilities[[law.configurations.index(state) for state in chain.states]]


def test_figure1_loss_system_by_hand():
    """Weights 12!, 12!, 12!/2 for 0, 1, 2 graphs: E|C| = (1 + 1)/2.5 = 0.8, P(two graphs) = 0.2."""
    law = loss_distribution(FIGURE1_CLUSTER, FIGURE1_JOB)
    templates = law.configurations.templates[:, 0]
    assert law.expected_templates[0] == pytest.approx(0.8, rel=1e-14, abs=0)
    assert law.probabilities[templates == 2].sum() == pytest.approx(0.2, rel=1e-14, abs=0)
    assert law.log_normalizer == pytest.approx(math.log(2.5 * math.factorial(12)), rel=1e-14, abs=0)


@pytest.mark.parametrize("q, beta", [(1.5, 0.5), (3.0, 0.1), (0.0, 2.0), (-1.0, 0.3)])
def test_dgp_distribution_is_the_stationary_law_of_dgp_bar(q, beta):
    chain = dgp_chain(FIGURE1_CLUSTER, FIGURE1_JOB, q, beta)
    law = dgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, q, beta)
    pi = chain.stationary().probabilities
    assert np.abs(pi - aligned(chain, law)).max() < 1e-13
    assert chain.detailed_balance_residual(aligned(chain, law)) < 1e-13   # eq. (16)


def test_two_types_on_unequal_machines_with_machine_costs():
    cluster = Cluster([3, 3, 2], distance=[[0, 1, 4], [1, 0, 4], [4, 4, 0]])
    jobs = [FIGURE1_JOB, TRIANGLE]
    for law, chain in ((dgp_distribution(cluster, jobs, [2.0, 0.5], 0.4), dgp_chain(cluster, jobs, [2.0, 0.5], 0.4)),
                       (loss_distribution(cluster, jobs), loss_chain(cluster, jobs)),
                       (adgp_distribution(cluster, jobs, 0.7), adgp_chain(cluster, jobs, 0.7)),
                       (adgp_distribution(cluster, jobs, 0.7, [2.0, 0.5], 0.4), adgp_chain(cluster, jobs, 0.7, [2.0, 0.5], 0.4))):
        assert np.abs(chain.stationary().probabilities - aligned(chain, law)).max() < 1e-12


@settings(max_examples=25, deadline=None)
@given(st.floats(0.2, 3.0), st.floats(0.05, 5.0), st.floats(-2.0, 4.0), st.floats(0.1, 3.0))
def test_pi_star_against_the_chain_for_any_parameters(arrival, beta, q, service):
    job = GraphJob(3, [(0, 1), (1, 2)], arrival, service)
    cluster = Cluster([2, 2, 3])
    chain = dgp_chain(cluster, job, q, beta)
    law = dgp_distribution(cluster, job, q, beta)
    assert np.abs(chain.stationary().probabilities - aligned(chain, law)).max() < 1e-11
    assert law.probabilities.sum() == pytest.approx(1.0, abs=1e-13)


def mp_law(space, log_rates, tilt):
    """π over the states at 50 digits from the exact integer multiplicities."""
    with mpmath.workdps(50):
        weights = [space.multiplicity(i) * mpmath.factorial(int(space.free[i]))
                   * mpmath.exp(sum(int(n) * mpmath.mpf(r) for n, r in zip(space.templates[i], log_rates, strict=True))
                                + mpmath.mpf(tilt[i]))
                   for i in range(len(space))]
        total = mpmath.fsum(weights)
        return [w / total for w in weights]


@pytest.mark.parametrize("q, beta", [(3.0, 1e-3), (1.5, 1e-2), (50.0, 0.01), (-30.0, 0.05), (1.0, 1e4)])
def test_log_space_at_extreme_temperatures_against_mpmath(q, beta):
    law = dgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, q, beta)
    space = law.configurations
    with mpmath.workdps(50):
        tilt = [(mpmath.mpf(q) * int(space.templates[i, 0]) - mpmath.mpf(float(space.cost[i]))) / mpmath.mpf(beta)
                for i in range(len(space))]
        reference = mp_law(space, [0.0], tilt)
        for i, p in enumerate(reference):
            if p > mpmath.mpf("1e-300"):
                assert law.log_probabilities[i] == pytest.approx(float(mpmath.log(p)), rel=1e-12, abs=1e-12)
            else:
                assert law.log_probabilities[i] < -690


def test_cost_distribution_moves_to_the_cheapest_packing_as_beta_falls():
    means = [dgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, 3.0, beta).expected_cost for beta in (0.5, 0.2, 0.1, 0.05)]
    assert means == sorted(means, reverse=True)
    costs, probabilities = dgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, 3.0, 0.02).cost_distribution()
    assert probabilities[costs == 2.0][0] == pytest.approx(1.0, abs=1e-10)      # two graphs split 4 + 1


def test_adgp_loss_system_is_gamma_with_the_clock_rate():
    """γ̂ (33) is γ (14) with every λ_j replaced by λ̂."""
    jobs = [FIGURE1_JOB, TRIANGLE]
    hat = adgp_distribution(FIGURE1_CLUSTER, jobs, 0.6)
    same = [GraphJob(j.nodes, j.edges, 0.6, j.service_rate) for j in jobs]
    assert hat.probabilities == pytest.approx(loss_distribution(FIGURE1_CLUSTER, same).probabilities, rel=1e-13, abs=0)


def test_minimum_configuration_probability():
    law = loss_distribution(FIGURE1_CLUSTER, FIGURE1_JOB)
    # the least likely configuration holds two graphs: 12!/2 / (2.5 · 12!) / (number of two-graph configurations)
    assert law.min_log_probability == pytest.approx(math.log(0.2 / (math.perm(12, 5) * math.perm(7, 5) // 2)), rel=1e-13, abs=0)


def test_repr_and_expected():
    law = dgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, 1.5, 0.5)
    assert repr(law).startswith("ConfigurationLaw('DGP-bar π* (15), β = 0.5', states=105")
    assert law.expected(law.configurations.cost) == pytest.approx(law.expected_cost, rel=1e-15, abs=0)
    assert state_space(FIGURE1_CLUSTER, FIGURE1_JOB) is law.configurations


@pytest.mark.parametrize("call, message", [
    (lambda: dgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 0.0), "beta = 0: must be positive and finite"),
    (lambda: dgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, -1.0), "beta = -1: must be positive"),
    (lambda: dgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, float("nan"), 1.0), "queue_weights = nan: must be 1 finite"),
    (lambda: dgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, [1.0, 2.0], 1.0), "must be 1 finite numbers, one per job type"),
    (lambda: dgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, "a", 1.0), "queue_weights = 'a': must be a real number or an array"),
    (lambda: adgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, 0.0), "clock_rate = 0: must be positive"),
    (lambda: adgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, beta=1.0), "beta = 1: applies only with queue_weights"),
    (lambda: adgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 1.0), "beta = None: must be given with queue_weights"),
    (lambda: loss_distribution(Cluster([2, 2]), FIGURE1_JOB), "jobs\\[0\\].nodes = 5: must be <= M = 4"),
])
def test_errors(call, message):
    with pytest.raises(InvalidParameterError, match=message):
        call()


def mp_rational(value):
    return mpmath.mpf(value.numerator) / value.denominator


def exact_rational_law(space, loads, queue_weights, beta, log_normalizer=False):
    """π* of (15) from exact rationals: each exponent (Σ_j q_j |C^(j)| - cost)/β as a Fraction, shifted
    by the exact maximum, then exponentiated at 50 digits with the exact integer multiplicities; with
    ``log_normalizer``, also log Z (the shift added back at 50 digits)."""
    exponents = [(sum(Fraction(q) * int(n) for q, n in zip(queue_weights, space.templates[i], strict=True))
                  - Fraction(float(space.cost[i]))) / Fraction(beta) for i in range(len(space))]
    top = max(exponents)
    with mpmath.workdps(50):
        weights = [space.multiplicity(i) * mpmath.factorial(int(space.free[i]))
                   * mpmath.fprod(mp_rational(Fraction(load)) ** int(n) for load, n in zip(loads, space.templates[i],
                                                                                            strict=True))
                   * mpmath.exp(mp_rational(e - top)) for i, e in enumerate(exponents)]
        total = mpmath.fsum(weights)
        law = [w / total for w in weights]
        return (law, mp_rational(top) + mpmath.log(total)) if log_normalizer else law


FIGURE1_PAIR = (Cluster([3, 3]), [TRIANGLE, GraphJob(2, [(0, 1)], arrival_rate=0.7, service_rate=1.0)])


@pytest.mark.parametrize("system, queue_weights, beta", [
    ((FIGURE1_CLUSTER, [FIGURE1_JOB]), [1e100], 0.1),      # the case: probabilities summed to 91
    ((FIGURE1_CLUSTER, [FIGURE1_JOB]), [1e15], 0.1),       # summed to 1.00101
    ((FIGURE1_CLUSTER, [FIGURE1_JOB]), [1e10], 0.1),       # summed to 0.9999906
    ((FIGURE1_CLUSTER, [FIGURE1_JOB]), [1e300], 1e-5),
    (FIGURE1_PAIR, [1e100, 1e100], 0.1),                   # equal huge weights: the types trade places at cost only
    (FIGURE1_PAIR, [1e100, 3.0], 0.1),                     # one huge, one ordinary weight
    (FIGURE1_PAIR, [2.0**60, 2.0**60 + 256], 1e-3),        # weights a few ulps apart
])
def test_dgp_law_at_huge_queue_weights_against_exact_rationals(system, queue_weights, beta):
    """Theorem 2's regime (log h around 1e11) puts q/β far beyond the costs: the law must still sum to one and
    match the exact law. Reference: exact rational exponents and 50-digit exponentials (exact_rational_law)."""
    cluster, jobs = system
    law = dgp_distribution(cluster, jobs, queue_weights, beta)
    space = law.configurations
    reference = exact_rational_law(space, [job.offered_load for job in space.jobs], queue_weights, beta)
    probabilities = np.array([float(p) for p in reference])
    assert law.probabilities == pytest.approx(probabilities, rel=1e-12, abs=1e-300)
    assert law.probabilities.sum() == pytest.approx(1.0, rel=0, abs=1e-14)
    assert law.expected_templates == pytest.approx(probabilities @ space.templates, rel=1e-12, abs=1e-14)
    assert law.expected_cost == pytest.approx(float(probabilities @ space.cost), rel=1e-12, abs=1e-14)


SMALL = (Cluster([2, 2]), [GraphJob(2, [(0, 1)], arrival_rate=1.0, service_rate=1.0)])   # the bad-input sweep's system


@pytest.mark.parametrize("system, queue_weights, beta", [
    (SMALL, [1.7e308], 0.5),            # W = 2q overflows: NaN log-probabilities
    (SMALL, [-1e308], 0.5),             # Σ q |C| below the double range: raw OverflowError
    (SMALL, [1.5], 5e-324),             # W/β overflows: NaN log-probabilities
    (SMALL, [1.7e308], 5e-324),
    (SMALL, [-1e308], 2.2e-308),
    (FIGURE1_PAIR, [1.7e308, -1e308], 1e-300),
    (FIGURE1_PAIR, [1e-300, 5e-324], 1e-300),   # weights near the costs' scale / β: both types compete
])
@pytest.mark.parametrize("kind", ["dgp", "adgp"])
def test_laws_at_the_ends_of_the_double_range_against_exact_rationals(system, queue_weights, beta, kind):
    """Weights and temperatures at the ends of the double range (the bad-input sweep's families): the law is
    that of exact rational exponents at 50 digits (exact_rational_law), log Z too (inf beyond the double
    range), with no NaN."""
    cluster, jobs = system
    if kind == "dgp":
        law = dgp_distribution(cluster, jobs, queue_weights, beta)
        loads = [job.offered_load for job in law.configurations.jobs]
    else:
        law = adgp_distribution(cluster, jobs, 2.0, queue_weights, beta)
        loads = [2.0 / job.service_rate for job in law.configurations.jobs]
    reference, log_z = exact_rational_law(law.configurations, loads, queue_weights, beta, log_normalizer=True)
    with mpmath.workdps(50):
        expected = np.array([float(mpmath.log(p)) if p > 0 else -math.inf for p in reference])
    finite = np.isfinite(expected)
    assert law.log_probabilities[finite] == pytest.approx(expected[finite], rel=1e-12, abs=1e-12)
    assert np.all(np.isneginf(law.log_probabilities[~finite]))
    assert law.probabilities.sum() == pytest.approx(1.0, rel=0, abs=1e-14)
    assert law.log_normalizer == pytest.approx(float(log_z), rel=1e-12, abs=1e-12)
