"""Bad input to analytic.fairness: each error names the parameter, the value and the condition.

The sweep of tests/contract/test_bad_input.py checks that every call is refused cleanly; these tests pin the
messages and the limits (refused before the work or memory is spent) of the paths it found.
"""

import math

import numpy as np
import pytest

from analytic.errors import InvalidParameterError, StateSpaceTooLargeError, UnstableSystemError
from analytic.fairness import (
    CompatibilityGraph,
    aggregate_measure,
    job_service_rates,
    oi_queue_chain,
    random_assignment,
    service_rate,
    simplex_lattice,
    simulate_interruptions,
    simulate_random_assignment,
    stability,
    three_server_graph,
    whittle_network,
)
from analytic.fairness.graph import check_rates
from analytic.fairness.paper import Figure, figure_sweep
from analytic.fairness.stability import unstable_error

GRAPH = three_server_graph()


@pytest.mark.parametrize("call,error,match", [
    (lambda: CompatibilityGraph([[0, 1]], "abc"), InvalidParameterError, "capacities = 'abc': must be a real number"),
    (lambda: service_rate("abc", [0]), InvalidParameterError, "graph = 'abc': must be a CompatibilityGraph"),
    (lambda: service_rate(GRAPH, object()), InvalidParameterError, "active = .*: must list class indices"),
    (lambda: check_rates("rates", [1.0, 1.0], GRAPH, allow_zero="yes"), InvalidParameterError,
     "allow_zero = 'yes': must be True or False"),
    (lambda: job_service_rates(GRAPH, 3), InvalidParameterError, "sequence = 3: must list class indices in 0..1"),
    (lambda: simplex_lattice(2, 3).level(4), InvalidParameterError, "k = 4: must be <= max_jobs = 3"),
    (lambda: simplex_lattice(2, 3).index([[2, 2]]), InvalidParameterError, "points = .*: must be integer vectors of length 2"),
    (lambda: simplex_lattice(2, 3).contains([np.nan, 1.0]), InvalidParameterError, "points = .*: must be free of NaN"),
    (lambda: aggregate_measure(GRAPH, [1.0, 1.0], [1, 1], max_orderings=math.nan), InvalidParameterError,
     "max_orderings = nan: must be a positive integer"),
    (lambda: unstable_error("abc", 2.0, 1.0, "a law"), InvalidParameterError, "classes = 'abc': must be a non-empty sequence"),
    (lambda: Figure(5), InvalidParameterError, "d = None: must be given exactly when capacities is None"),
    (lambda: Figure(1, capacities=(1.0, 1.0)), InvalidParameterError, "capacities = .*: must be three finite capacities"),
    (lambda: figure_sweep([7], ["exponential"], [1.0], [0.5], 100), InvalidParameterError,
     r"figures = \[7\]: must be figure numbers among \[1, 2, 3, 4\]"),
    (lambda: figure_sweep([1], ["gamma"], [1.0], [0.5], 100), InvalidParameterError, "laws = .*: must be names among"),
    (lambda: whittle_network(lambda x: np.zeros(len(x)), [0.5], 0, log=True), InvalidParameterError,
     "max_jobs = 0: must be a positive integer"),
    (lambda: whittle_network(lambda x: np.zeros(len(x)), [0.5], 3, log="yes"), InvalidParameterError,
     "log = 'yes': must be True or False"),
    # Each interruption is an event of the loop: 10^18 per job would never finish.
    (lambda: simulate_interruptions(GRAPH, [0.5, 0.5], interruptions=1e18, arrivals=1000), InvalidParameterError,
     "interruptions = 1e.18: must be at most 1000"),
    # 1000 arrivals at rate 1e-300 span 1e303 mean sizes: the clock no longer resolves a service time.
    (lambda: simulate_random_assignment(10, 2, 1e-300, arrivals=1000), InvalidParameterError,
     "arrival_rate = 1e-300: is so small that"),
])
def test_bad_input_names_parameter_and_condition(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("call,what", [
    (lambda: oi_queue_chain(GRAPH, [0.5, 0.5], 10**18), "the job sequences of up to max_jobs"),
    (lambda: aggregate_measure(GRAPH, [0.5, 0.5], [10**12, 10**12]), "the orderings of x"),
    (lambda: random_assignment(10**18, 2, 1.0), "the recursion over"),
    (lambda: simulate_random_assignment(10**18, 2, 1.0, arrivals=1000), "the state of"),
])
def test_huge_models_are_refused_before_the_work(call, what):
    with pytest.raises(StateSpaceTooLargeError, match=what):
        call()


def test_stability_at_huge_and_tiny_rates():
    """Theorem 1 at λ = 10^±18 on the three-server graph: the binding set is both classes, μ = 3.

    Reference: by hand, λ(A)/μ(A) is 1e18/2 for one class and 2e18/3 for both, the larger.
    """
    huge = stability(GRAPH, [1e18, 1e18])
    assert not huge.stable and huge.bottleneck == (0, 1)
    assert huge.load == pytest.approx(2e18 / 3, rel=1e-15, abs=0)
    tiny = stability(GRAPH, [1e-18, 1e-18])
    assert tiny.stable and tiny.load == pytest.approx(2e-18 / 3, rel=1e-15, abs=0)
    with pytest.raises(UnstableSystemError):
        simulate_interruptions(GRAPH, [1e18, 1e18], arrivals=1000)


def test_a_normalization_below_the_truncated_mass_is_refused_without_overflow():
    """With λ = 10^18 the truncated mass (1e54) dwarfs the normalization given: that normalization cannot be right
    (it was clipped to mass_outside = 0); the refusal states the lattice's sum in logs, not an overflow."""
    with pytest.raises(InvalidParameterError, match=r"^normalization = 2.5: must be at least the sum over the lattice"):
        whittle_network(lambda x: np.zeros(len(x)), [1e18], 3, log=True, normalization=2.5)
