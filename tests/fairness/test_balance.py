"""Tests of the balance function (recursion (4)), eq. (2)-(3), Theorem 2 and Corollary 1.

References: eq. (2) by enumerating every ordering of x and multiplying eq. (1) along it
(analytic.fairness.oi_queue, no recursion); eq. (8) of Theorem 2 by the same enumeration; the
capacity set of Corollary 1 by brute force over all 2^N sets; Φ of one class on one server
(Φ(n) = μ^-n) and of processor sharing (multinomial / μ^n) in closed form.
"""

import dataclasses
import itertools
import math

import numpy as np
import pytest

from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.fairness import (
    CompatibilityGraph,
    aggregate_measure,
    balance_function,
    job_service_rates,
    permutation_rates,
    sequence_measure,
    service_rate,
)

GRAPHS = {
    "three servers": (CompatibilityGraph([[0, 2], [1, 2]], [1.0, 1.0, 1.0]), [1.2, 0.7]),
    "figure 2": (CompatibilityGraph([[0, 2], [1, 2]], [1.0, 0.0, 1.0]), [0.6, 0.6]),
    "three classes": (CompatibilityGraph([[0, 1], [1, 2], [0, 3]], [1.0, 2.0, 0.5, 1.5]), [0.9, 1.1, 0.4]),
    "nested": (CompatibilityGraph([[0], [0, 1], [0, 1, 2]], [1.0, 1.0, 1.0]), [0.3, 0.8, 0.5]),
}


@pytest.mark.parametrize("name", GRAPHS)
def test_recursion_equals_the_sum_over_orderings(name):
    """Eq. (3) with Φ from (4) against eq. (2): the sum of eq. (1) over every ordering of x."""
    graph, rates = GRAPHS[name]
    phi = balance_function(graph, rates, 6)
    for x in phi.states[1:]:
        expected = aggregate_measure(graph, rates, x)
        assert math.exp(phi.log_measure[phi.lattice.index(x)]) == pytest.approx(expected, rel=1e-13, abs=0)


@pytest.mark.parametrize("name", GRAPHS)
def test_theorem_2_whittle_rates_equal_the_average_over_orderings(name):
    """Eq. (7) against eq. (8) (enumeration), for every state with at most 5 jobs."""
    graph, rates = GRAPHS[name]
    phi = balance_function(graph, rates, 5)
    whittle = phi.whittle_rates()
    for k, x in enumerate(phi.states):
        assert whittle[k] == pytest.approx(permutation_rates(graph, rates, x), rel=1e-13, abs=1e-15)


@pytest.mark.parametrize("name", GRAPHS)
def test_balance_property_6_of_the_averages_over_orderings(name):
    """Eq. (6) for the rates of eq. (8), computed by enumeration (not from a balance function)."""
    graph, rates = GRAPHS[name]
    n = graph.n_classes
    for x in balance_function(graph, rates, 5).states:
        for i, j in itertools.combinations(range(n), 2):
            if x[i] and x[j]:
                below_i, below_j = x.copy(), x.copy()
                below_i[i] -= 1
                below_j[j] -= 1
                left = permutation_rates(graph, rates, x)[i] * permutation_rates(graph, rates, below_i)[j]
                right = permutation_rates(graph, rates, below_j)[i] * permutation_rates(graph, rates, x)[j]
                assert left == pytest.approx(right, rel=1e-12, abs=0)


@pytest.mark.parametrize("name", GRAPHS)
def test_balance_property_6_and_corollary_1(name):
    graph, rates = GRAPHS[name]
    phi = balance_function(graph, rates, 25)
    rates_x = phi.whittle_rates()
    states = phi.states
    n = graph.n_classes
    # (6): φ_i(x) φ_j(x - e_i) = φ_i(x - e_j) φ_j(x) whenever x_i, x_j > 0.
    padded = np.vstack([rates_x, np.zeros(n)])
    for i, j in itertools.permutations(range(n), 2):
        both = (states[:, i] > 0) & (states[:, j] > 0)
        left = rates_x[both, i] * padded[phi.parents[both, i], j]
        right = padded[phi.parents[both, j], i] * rates_x[both, j]
        np.testing.assert_allclose(left, right, rtol=1e-12, atol=0)
    # Corollary 1: Σ_{i∈A} φ_i(x) <= μ(A) for all A, with equality for A = A(x).
    for size in range(1, n + 1):
        for subset in itertools.combinations(range(n), size):
            assert (rates_x[:, list(subset)].sum(axis=1) <= service_rate(graph, subset) * (1 + 1e-12)).all()
    saturated = service_rate(graph, states > 0)
    np.testing.assert_allclose(rates_x.sum(axis=1), saturated, rtol=1e-12, atol=0)


@pytest.mark.parametrize("name", GRAPHS)
def test_the_package_checks_agree_and_can_fail(name):
    graph, rates = GRAPHS[name]
    phi = balance_function(graph, rates, 25)
    checks = phi.check()
    assert checks.saturation < 1e-12 and checks.capacity_excess < 1e-12
    # A balance function that is not the one of recursion (4): the checks see it.
    bent = dataclasses.replace(phi, log_measure=phi.log_measure - 0.1 * phi.states[:, 0] ** 2).check()
    assert bent.saturation > 1e-3 and bent.capacity_excess > 1e-3


def test_one_class_one_server_and_processor_sharing_closed_forms():
    single = balance_function(CompatibilityGraph([[0]], [2.0]), [1.0], 1000)
    np.testing.assert_allclose(single.log_phi(), -np.arange(1001) * math.log(2.0), rtol=1e-13, atol=1e-13)
    shared = balance_function(CompatibilityGraph([[0]] * 3, [1.5]), [0.2, 0.3, 0.4], 30)
    x = shared.states
    multinomial = [math.lgamma(s.sum() + 1) - sum(math.lgamma(v + 1) for v in s) - s.sum() * math.log(1.5) for s in x]
    np.testing.assert_allclose(shared.log_phi(), multinomial, rtol=1e-12, atol=1e-12)


def test_deep_lattice_does_not_underflow():
    """At 1400 jobs Φ is far below the double range: the logarithms stay finite and exact."""
    graph = CompatibilityGraph([[0, 2], [1, 2]])
    phi = balance_function(graph, [1.2, 0.9], 1400)
    assert np.isfinite(phi.log_measure).all()
    assert phi.log_phi([[0, 1400]])[0] == pytest.approx(-1400 * math.log(2.0), rel=1e-12, abs=0)
    assert phi.phi([[0, 1400]])[0] == 0.0       # exp underflows, as documented
    assert phi.probabilities().sum() == pytest.approx(1.0, rel=1e-12, abs=0)


def test_sequence_measure_and_job_rates():
    graph = CompatibilityGraph([[0, 2], [1, 2]], [1.0, 2.0, 4.0])
    assert job_service_rates(graph, [0, 1, 0, 1]).tolist() == [5.0, 2.0, 0.0, 0.0]
    assert sequence_measure(graph, [1.0, 3.0], [0, 1]) == pytest.approx(1 / 5 * 3 / 7, rel=1e-15, abs=0)
    assert sequence_measure(graph, [1.0, 3.0], []) == 1.0


def test_errors():
    graph = CompatibilityGraph([[0, 2], [1, 2]])
    with pytest.raises(InvalidParameterError, match=r"arrival_rates\[1\] = 0: must be positive and finite"):
        balance_function(graph, [1.0, 0.0], 3)
    with pytest.raises(InvalidParameterError, match="one per class"):
        balance_function(graph, [1.0], 3)
    with pytest.raises(StateSpaceTooLargeError, match="max_states"):
        balance_function(graph, [1.0, 1.0], 5000, max_states=10_000)
    phi = balance_function(graph, [1.0, 1.0], 3)
    with pytest.raises(InvalidParameterError, match="total <= max_jobs = 3"):
        phi.phi([[2, 2]])
    with pytest.raises(InvalidParameterError, match="class indices"):
        sequence_measure(graph, [1.0, 1.0], [0, 2])
    with pytest.raises(StateSpaceTooLargeError, match="orderings"):
        aggregate_measure(graph, [1.0, 1.0], [15, 15])
    with pytest.raises(InvalidParameterError, match="non-negative integers"):
        aggregate_measure(graph, [1.0, 1.0], [1, -1])
