"""Tests of analytic.fairness.whittle (Whittle networks for any balance function).

References: the truncated Whittle network built as a CTMC on the lattice with analytic.ctmc
(arrivals λ_i below the truncation, departures φ_i(x) = Φ(x - e_i)/Φ(x)), for a random balance
table; the multi-class M/M/1-PS queue in closed form; balanced_fairness (subset recursion).
"""

import numpy as np
import pytest

from analytic.ctmc import CTMC
from analytic.errors import InvalidParameterError
from analytic.fairness import (
    balance_function,
    balanced_fairness,
    processor_sharing,
    three_server_graph,
    whittle_network,
)


def lattice_chain(log_phi, rates, max_jobs):
    """The truncated network as a CTMC on {x : Σx <= n} (two classes), by transitions."""
    def transitions(x):
        moves = []
        if sum(x) < max_jobs:
            moves += [((x[0] + 1, x[1]), rates[0]), ((x[0], x[1] + 1), rates[1])]
        for i in range(2):
            if x[i]:
                below = (x[0] - (i == 0), x[1] - (i == 1))
                moves.append((below, float(np.exp(log_phi(np.array([below]))[0] - log_phi(np.array([x]))[0]))))
        return moves
    return CTMC.from_function((0, 0), transitions)


def test_random_balance_table_against_the_ctmc():
    """Any positive Φ defines a reversible network: its truncated law is the restriction (Kelly)."""
    rng = np.random.default_rng(11)
    table = np.exp(rng.normal(0, 1, (13, 13)))
    table /= table[0, 0]
    rates = [0.7, 1.3]
    network = whittle_network(table, rates, 12)
    chain = lattice_chain(lambda X: np.log(table[X[:, 0], X[:, 1]]), rates, 12)
    pi = chain.stationary()
    for k, x in enumerate(network.lattice.states):
        assert network.probabilities[k] == pytest.approx(pi.probability(tuple(x)), rel=1e-10, abs=1e-15)
    blocked = sum(pi.probability(s) for s in chain.states if sum(s) == 12)
    assert network.accepted == pytest.approx([1 - blocked] * 2, rel=1e-10, abs=0)
    # Little's law for the admitted jobs, against the chain's mean numbers.
    mean = [pi.expected(lambda s, i=i: s[i]) for i in range(2)]
    assert network.mean_response_time == pytest.approx(np.array(mean) / (np.array(rates) * (1 - blocked)), rel=1e-9, abs=0)


@pytest.mark.slow
def test_processor_sharing_and_its_rates():
    rates = np.array([0.1, 0.3, 0.2])
    network = whittle_network(processor_sharing(2.0), rates, 120, mean_size=1.0, log=True, normalization=1 / (1 - 0.3))
    assert network.mean_jobs == pytest.approx(rates / 2 / 0.7, rel=1e-12, abs=0)
    assert network.mass_outside < 1e-15
    service = network.service_rates()
    n = network.lattice.states.sum(axis=1)
    expected = np.where(n[:, None] > 0, 2.0 * network.lattice.states / np.maximum(n, 1)[:, None], 0.0)
    np.testing.assert_allclose(service, expected, rtol=1e-12, atol=1e-14)


def test_balanced_fairness_is_one_instance():
    graph, rates = three_server_graph(), [1.2, 0.9]
    exact = balanced_fairness(graph, rates, mean_size=1.0)
    phi = balance_function(graph, [1.0, 1.0], 300)            # Φ does not depend on the rates
    network = whittle_network(phi, rates, 300, normalization=1 / exact.probability_empty)
    assert network.mean_jobs == pytest.approx(exact.mean_jobs, rel=1e-12, abs=0)
    assert network.mean_service_rate == pytest.approx(exact.mean_service_rate, rel=1e-12, abs=0)
    small = whittle_network(phi, rates, 20, normalization=1 / exact.probability_empty)
    assert 1e-4 < small.mass_outside < 1e-2
    np.testing.assert_allclose(small.service_rates(), balance_function(graph, rates, 20).whittle_rates(), rtol=1e-12, atol=0)


def test_errors():
    with pytest.raises(InvalidParameterError, match="Φ must be positive and finite"):
        whittle_network(lambda X: np.where(X.sum(axis=1) == 3, -1.0, 1.0), [0.5, 0.5], 4)
    with pytest.raises(InvalidParameterError, match=r"Φ\(0\) must be 1"):
        whittle_network(lambda X: np.full(len(X), 2.0), [0.5, 0.5], 4)
    with pytest.raises(InvalidParameterError, match="one value per state"):
        whittle_network(lambda X: np.ones(3), [0.5, 0.5], 4)
    with pytest.raises(InvalidParameterError, match="2 dimensions"):
        whittle_network(np.ones(5), [0.5, 0.5], 4)
    with pytest.raises(InvalidParameterError, match="must cover 2 classes up to max_jobs = 9"):
        whittle_network(balance_function(three_server_graph(), [1.0, 1.0], 8), [0.5, 0.5], 9)
    with pytest.raises(InvalidParameterError, match="arrival_rates"):
        whittle_network(processor_sharing(), [0.5, -0.5], 4, log=True)
    with pytest.raises(InvalidParameterError, match="normalization"):
        whittle_network(processor_sharing(), [0.5, 0.2], 4, log=True, normalization=0.0)


@pytest.mark.parametrize("build, name", [
    (lambda: __import__("analytic.fairness", fromlist=["x"]).whittle_network(lambda x: 1 / 0, [0.2, 0.4], 5), "balance"),
])
def test_an_exception_from_a_user_callable_is_wrapped_naming_the_input(build, name):
    """One rule for user callables (analytic.validation.user_code), as CTMC.from_function: a raw ValueError from
    flow_time(..., lambda x: "equi", ...) or a user's own exception became InvalidParameterError naming the input."""
    with pytest.raises(InvalidParameterError, match=f"^{name} = "):
        build()


def test_whittle_network_refuses_a_normalization_below_the_lattice_sum():
    """normalization = 1 for M/M/1-PS at load 0.6 (true value 2.5) gave mass_outside = 0.0 while the lattice alone
    sums to 2.5. Reference: Σ_(n <= 50) 0.6^n = (1 - 0.6^51)/0.4 in exact rationals."""
    from fractions import Fraction

    from analytic.fairness import processor_sharing, whittle_network

    with pytest.raises(InvalidParameterError, match=r"^normalization = 1: must be at least the sum over the lattice, "
                                                    r"exp\(0.9162907319"):
        whittle_network(processor_sharing(), [0.2, 0.4], 50, log=True, normalization=1.0)
    outside = float(Fraction(3, 5) ** 51)
    assert whittle_network(processor_sharing(), [0.2, 0.4], 50, log=True, normalization=2.5).mass_outside == \
        pytest.approx(outside, rel=0, abs=1e-15)
