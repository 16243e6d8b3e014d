"""Tests of analytic.partitioning.maxweight: eq. (10) of Algorithm 1 and eq. (17).

References: thresholds worked out by hand on Figure 1 (the cheapest graph costs 1 and two fit at
cost 1 each, so W* = max(0, 2(q - 1))), and the brute-force maximum over listed configurations in
tests/partitioning/test_bruteforce.py.
"""

import numpy as np
import pytest

from analytic import partitioning as P
from analytic.errors import InvalidParameterError
from analytic.partitioning import GraphJob, max_weight, max_weight_configuration
from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB


@pytest.mark.parametrize("q", [0.0, 0.5, 0.999, 1.0001, 2.0, 7.5])
def test_figure1_threshold_by_hand(q):
    best = max_weight(FIGURE1_CLUSTER, FIGURE1_JOB, q)
    assert best.weight == pytest.approx(max(0.0, 2 * (q - 1)), abs=1e-12)
    assert best.templates == ((2,) if q > 1 else (0,))


def test_ties_are_counted():
    best = max_weight(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0)       # 0 = 1 - 1 = 2 - 2: three count vectors tie
    assert best.weight == 0.0 and best.ties == 3


def test_two_types_prefer_the_heavier_queue():
    triangle = GraphJob(3, [(0, 1), (1, 2), (0, 2)], 1.0, 1.0)
    best = max_weight(FIGURE1_CLUSTER, [FIGURE1_JOB, triangle], [5.0, 0.5])
    assert best.templates == (2, 0)
    best = max_weight(FIGURE1_CLUSTER, [FIGURE1_JOB, triangle], [1.5, 1.0])   # three whole triangles: 3 > 2 (1.5 - 1)
    assert best.templates == (0, 3) and best.cost == 0.0 and best.weight == pytest.approx(3.0, abs=1e-12)
    best = max_weight(FIGURE1_CLUSTER, [FIGURE1_JOB, triangle], [0.5, 4.0])   # a fourth, split 1+1+1: 16 - 3 > 12
    assert best.templates == (0, 4) and best.cost == 3.0 and best.weight == pytest.approx(13.0, abs=1e-12)


def test_algorithm1_weights_alpha_f_of_the_queues():
    assert max_weight_configuration(FIGURE1_CLUSTER, FIGURE1_JOB, [1], alpha=1.0).templates == (0,)     # log 2 < 1
    chosen = max_weight_configuration(FIGURE1_CLUSTER, FIGURE1_JOB, [3], alpha=1.0, f=np.sqrt)         # √3 > 1
    assert chosen.templates == (2,) and chosen.weight == pytest.approx(2 * (np.sqrt(3) - 1), rel=1e-14, abs=0)


@pytest.mark.parametrize("kwargs, message", [
    (dict(queues=[-1], alpha=1.0), "queues = \\[-1\\]: must be 1 finite numbers >= 0"),
    (dict(queues=[1, 2], alpha=1.0), "must be 1 finite numbers >= 0, one per job type"),
    (dict(queues=[1], alpha=0.0), "alpha = 0: must be positive"),
    (dict(queues=[1], alpha=1.0, f=lambda x: x * np.inf), "must map the queues \\[1.0\\] to finite values"),
])
def test_errors(kwargs, message):
    with pytest.raises(InvalidParameterError, match=message):
        max_weight_configuration(FIGURE1_CLUSTER, FIGURE1_JOB, **kwargs)


@pytest.mark.parametrize("call,match", [
    (lambda: P.max_weight_configuration(P.Cluster([2, 2]), P.GraphJob(2, [(0, 1)], 1.0, 1.0), [1.0], 1.0, f="log"),
     r"^f = 'log': must be a function of the queue vector"),
    (lambda: P.max_weight(P.Cluster([2, 2]), P.GraphJob(2, [(0, 1)], 1.0, 1.0), 1e308),
     r"^queue_weights = 1e\+308: must keep every configuration's weight q·n - b finite \(q = \[1e\+308\] on up to 2 "
     r"templates overflows a double\)$"),
    (lambda: P.max_weight_configuration(P.Cluster([2, 2]), P.GraphJob(2, [(0, 1)], 1.0, 1.0), [5.0], 1e308),
     r"^alpha = 1e\+308: must keep every configuration's weight q·n - b finite \(q = \[1.79\d*e\+308\] on up to 2 "
     r"templates"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()


@pytest.mark.parametrize("build, name", [
    (lambda: P.max_weight_configuration(P.Cluster([2, 2]), P.GraphJob(2, [(0, 1)], 1.0, 1.0), [1.0], 1.0,
                                        lambda q: q["x"]), "f"),
])
def test_an_exception_from_a_user_callable_is_wrapped_naming_the_input(build, name):
    """One rule for user callables (analytic.validation.user_code), as CTMC.from_function: a raw ValueError from
    flow_time(..., lambda x: "equi", ...) or a user's own exception became InvalidParameterError naming the input."""
    with pytest.raises(InvalidParameterError, match=f"^{name} = "):
        build()
