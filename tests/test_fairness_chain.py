"""Tests of the detailed CTMC of Algorithm 1 (analytic.fairness.chain).

References: the aggregate law (3) from recursion (4) (balance_function) for exponential sizes and
any number of interruptions (quasi-reversibility, Section 4); an M/H2/1/K FCFS queue built by
hand as a CTMC on (jobs, phase of the job in service); the M/G/1/K processor-sharing law
(truncated geometric, insensitive) as the limit of many interruptions on one server; phase-type
law of the queue length.
"""

import numpy as np
import pytest

from analytic.ctmc import CTMC
from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.fairness import CompatibilityGraph, balance_function, oi_queue_chain, oi_queue_law, three_server_graph
from analytic.simulation import erlang, hyperexponential, pareto

HYPER = hyperexponential([1 / 6, 5 / 6], [5.0, 0.2])


@pytest.mark.parametrize("interruptions", [0.0, 1.0, 5.0])
@pytest.mark.parametrize("capacities", [(1.0, 1.0, 1.0), (1.0, 0.0, 1.0)])
def test_exponential_sizes_keep_the_aggregate_law_for_any_interruptions(interruptions, capacities):
    graph, rates = three_server_graph(capacities), [0.8, 0.6]
    law = oi_queue_law(graph, rates, 7, interruptions=interruptions)
    np.testing.assert_allclose(law.probabilities, balance_function(graph, rates, 7).probabilities(), rtol=1e-11, atol=1e-16)


def test_fcfs_single_server_hyperexponential_against_a_hand_built_chain():
    """One class, one server, m = 0: M/H2/1/K FCFS; state (jobs, phase of the job in service)."""
    lam, k = 0.6, 6
    means, probs = np.array([5.0, 0.2]), np.array([1 / 6, 5 / 6])

    def transitions(state):
        n, phase = state
        moves = []
        if n == 0:
            moves += [((1, p), lam * probs[p]) for p in range(2)]
        else:
            if n < k:
                moves.append(((n + 1, phase), lam))
            moves += [((n - 1, p), probs[p] / means[phase]) for p in range(2)] if n > 1 else [((0, 0), 1 / means[phase])]
        return moves

    reference = CTMC.from_function((0, 0), transitions).stationary()
    expected = [sum(reference.probability(s) for s in reference.states if s[0] == n) for n in range(k + 1)]
    law = oi_queue_law(CompatibilityGraph([[0]]), [lam], k, interruptions=0.0, size=HYPER)
    np.testing.assert_allclose(law.probabilities, expected, rtol=1e-10, atol=1e-15)


def test_many_interruptions_on_one_server_approach_processor_sharing():
    """M/G/1/K-PS is insensitive: P(n) ∝ ρ^n. With m interruptions the gap shrinks as m grows."""
    rho, k = 0.7, 5
    ps = rho ** np.arange(k + 1) / (rho ** np.arange(k + 1)).sum()
    gaps = [np.abs(oi_queue_law(CompatibilityGraph([[0]]), [rho], k, interruptions=m, size=HYPER).probabilities - ps).max()
            for m in (0.0, 2.0, 20.0, 200.0)]
    assert gaps == sorted(gaps, reverse=True)
    assert gaps[0] > 0.02 and gaps[-1] < 2e-3


def test_erlang_sizes_single_server_fcfs_against_a_hand_built_chain():
    """One class, one server, Erlang-2 sizes, m = 0: M/E2/1/K; state (jobs, stage of the job in service)."""
    lam, k = 0.8, 5

    def transitions(state):
        n, stage = state
        moves = [((n + 1, stage if n else 0), lam)] if n < k else []
        if n:
            moves.append(((n, 1), 2.0) if stage == 0 else ((n - 1, 0), 2.0))
        return moves

    reference = CTMC.from_function((0, 0), transitions).stationary()
    expected = [sum(reference.probability(s) for s in reference.states if s[0] == n) for n in range(k + 1)]
    law = oi_queue_law(CompatibilityGraph([[0]]), [lam], k, size=erlang(2))
    np.testing.assert_allclose(law.probabilities, expected, rtol=1e-10, atol=1e-15)


def test_chain_size_and_errors():
    graph = three_server_graph()
    assert oi_queue_chain(graph, [1.0, 1.0], 4).n_states == 31
    assert oi_queue_chain(graph, [1.0, 1.0], 3, size=HYPER).n_states == 1 + 4 + 16 + 64
    with pytest.raises(StateSpaceTooLargeError):
        oi_queue_chain(graph, [1.0, 1.0], 20, max_states=1000)
    with pytest.raises(InvalidParameterError, match="interruptions"):
        oi_queue_chain(graph, [1.0, 1.0], 3, interruptions=-1.0)
    with pytest.raises(InvalidParameterError, match="max_jobs"):
        oi_queue_chain(graph, [1.0, 1.0], 0)
    with pytest.raises(InvalidParameterError, match="Erlang mixture"):
        oi_queue_chain(graph, [1.0, 1.0], 3, size=pareto())
    with pytest.raises(InvalidParameterError, match="size"):
        oi_queue_chain(graph, [1.0, 1.0], 3, size="uniform")
