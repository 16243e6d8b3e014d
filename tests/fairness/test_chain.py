"""Tests of the detailed CTMC of Algorithm 1 (analytic.fairness.chain).

References: the aggregate law (3) from recursion (4) (balance_function) for exponential sizes and
any number of interruptions (quasi-reversibility, Section 4); an M/H2/1/K FCFS queue built by
hand as a CTMC on (jobs, phase of the job in service); the M/G/1/K processor-sharing law
(truncated geometric, insensitive) as the limit of many interruptions on one server; phase-type
law of the queue length; the Pollaczek–Khinchine mean of M/PH/1 FCFS for a phase-type law with
feedback between its phases.
"""

import numpy as np
import pytest

from analytic.ctmc import CTMC
from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.fairness import CompatibilityGraph, balance_function, oi_queue_chain, oi_queue_law, three_server_graph
from analytic.simulation import PhaseType, erlang, hyperexponential, pareto

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


def test_fcfs_single_server_with_a_cyclic_phase_type_law_has_the_pollaczek_khinchine_mean():
    """One class, one server, m = 0: M/PH/1 FCFS truncated at K = 13 jobs at load 0.1, where the lost
    mass (of order 0.1^13) is far below the tolerance (each waiting job carries its initial phase:
    2^14 - 1 sequences). Reference: E[N] = ρ + λ² E[S²] / (2 (1 - ρ)),
    with E[S] and E[S²] of PH(α, T) by hand: m = α (-T)^-1 1, E[S²] = 2 α (-T)^-2 1 (numpy solves)."""
    initial, generator = np.array([0.7, 0.3]), np.array([[-3.0, 1.0], [2.0, -2.5]])
    law = PhaseType(initial, generator)
    first = np.linalg.solve(-generator, np.ones(2))
    mean, second = initial @ first, 2 * initial @ np.linalg.solve(-generator, first)
    lam = 0.1 / mean
    expected = 0.1 + lam**2 * second / (2 * (1 - 0.1))
    queue = oi_queue_law(CompatibilityGraph([[0]]), [lam], 13, size=law)
    assert queue.mean_jobs[0] == pytest.approx(expected, rel=1e-9, abs=0)


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



# On the graph [[0, 2], [1, 2]] with unit capacities, unit arrival rates and exponential sizes of mean 1, the rates
# out of a state total at most 2 (arrivals) + 3 (services) + 3m (interruptions); the smallest is min(1, m).
SMALLEST_M, LARGEST_M = 5 * 2.0**-1021, (2.0**1021 - 5) / 3


@pytest.mark.parametrize("interruptions", [SMALLEST_M * 1.01, 1e-300, 1e300, 10**30, LARGEST_M * 0.99])
def test_interruptions_at_the_ends_of_the_double_range_keep_the_aggregate_law(interruptions):
    """m from 1e-307 (FCFS to double precision) to 1e307 (time slices of 1e-307 mean sizes, balanced fairness in
    the limit): a chain whose rates span 600 orders of magnitude and more still gives law (3) with exponential
    sizes, and on one server with hyperexponential sizes the M/G/1/K-PS law, the limit of many interruptions.
    References: recursion (4) (balance_function) and the truncated geometric law, insensitive to the size law."""
    graph = CompatibilityGraph([[0, 2], [1, 2]])
    law = oi_queue_law(graph, [1.0, 1.0], 3, interruptions=interruptions)
    np.testing.assert_allclose(law.probabilities, balance_function(graph, [1.0, 1.0], 3).probabilities(), rtol=1e-12,
                               atol=0)
    if 1 < interruptions <= 1e300:      # the span's ends above are the two-class model's
        rho, k = 0.7, 5
        ps = rho ** np.arange(k + 1) / (rho ** np.arange(k + 1)).sum()
        single = oi_queue_law(CompatibilityGraph([[0]]), [rho], k, interruptions=interruptions, size=HYPER)
        np.testing.assert_allclose(single.probabilities, ps, rtol=1e-12, atol=0)


@pytest.mark.parametrize("arrival_rates, interruptions, match", [
    ([1.0, 1.0], 1.7e308, r"^interruptions = 1.7e\+308: gives the chain rates from 1 to a total of inf out of one state"),
    ([1.0, 1.0], LARGEST_M * 1.01, r"^interruptions = 7.56\d*e\+306: gives the chain rates from 1 to a total of 2.27e\+307"),
    ([1.0, 1.0], SMALLEST_M * 0.99, r"^interruptions = 2.2\d*e-307: gives the chain rates from 2.2e-307 to a total of 5 "),
    ([1.0, 1.0], 5e-324, r"^interruptions = 4.94\d*e-324: .* span beyond the double range \(2\*\*1021\); 0 is FCFS"),
    ([1.0, 1.0], 10**400, r"^interruptions = 1000.*: its magnitude exceeds the largest float"),
    ([1.0, 5e-324], 1.0, r"^arrival_rates = .*: gives the chain rates from 4.94e-324 to a total of 7 out of one state"),
    ([1.0, 1.7e308], 0.0, r"^arrival_rates = .*: gives the chain rates from 1 to a total of 1.7e\+308 out of one state"),
])
def test_rates_beyond_the_double_range_are_refused_naming_the_input(arrival_rates, interruptions, match):
    """interruptions = 1.7e308 and 5e-324 were refused as "rate = inf" and "rate = 9.9e-324 ... is too small", naming
    no input of oi_queue_law, and 10**400 raised a raw OverflowError; the span's ends are those computed above."""
    with pytest.raises(InvalidParameterError, match=match):
        oi_queue_law(CompatibilityGraph([[0, 2], [1, 2]]), arrival_rates, 3, interruptions=interruptions)
