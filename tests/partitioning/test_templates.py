"""Tests of analytic.partitioning.templates: eq. (2), |𝒜(C)| = F!/(F-|V|)!, template classes.

References: brute-force enumeration of the injective maps (itertools.permutations) with costs
counted edge by edge in the test, the hand count 12!/7! = 95 040 of Figure 1, and templates drawn
by hand for Figure 1's costs 1 to 4.
"""

import itertools
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.partitioning import (
    Cluster,
    GraphJob,
    cost_distribution,
    max_template_cost,
    partition_cost,
    template_classes,
    template_count,
    templates,
)
from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB
from analytic.partitioning.templates import MAX_DIGITS, falling_factorial


def test_figure1_templates_of_cost_1_to_4():
    """Figure 1: templates of cost 1, 2, 3 and 4 exist (slots 0-3 on machine 0, 4-7 on 1, 8-11 on 2)."""
    # edges (0,1) (0,2) (1,3) (2,3) (3,4); template[x] is the slot of node x
    drawn = {1: [0, 1, 2, 3, 4],      # 0,1,2,3 | 4        : cuts (3,4)
             2: [0, 1, 2, 4, 5],      # 0,1,2 | 3,4        : cuts (1,3), (2,3)
             3: [0, 1, 4, 5, 8],      # 0,1 | 2,3 | 4      : cuts (0,2), (1,3), (3,4)
             4: [0, 4, 8, 1, 2]}      # 0,3,4 | 1 | 2      : cuts (0,1), (0,2), (1,3), (2,3)
    for cost, template in drawn.items():
        assert partition_cost(FIGURE1_CLUSTER, FIGURE1_JOB, template) == cost
    assert cost_distribution(FIGURE1_CLUSTER, FIGURE1_JOB).costs.tolist() == [1, 2, 3, 4, 5]


@pytest.mark.slow
def test_figure1_count_and_cost_law_against_enumeration():
    every = templates(FIGURE1_CLUSTER, FIGURE1_JOB)
    assert len(every) == math.perm(12, 5) == template_count(FIGURE1_CLUSTER, FIGURE1_JOB) == 95040
    assert len({tuple(t) for t in every.tolist()}) == len(every)
    costs = partition_cost(FIGURE1_CLUSTER, FIGURE1_JOB, every)
    values, counts = np.unique(costs, return_counts=True)
    law = cost_distribution(FIGURE1_CLUSTER, FIGURE1_JOB)
    assert law.costs.tolist() == values.tolist() and list(law.counts) == counts.tolist() and law.total == 95040
    assert law.mean == pytest.approx(costs.mean(), rel=1e-14, abs=0)


def brute_cost(cluster, job, template):
    machine = np.repeat(np.arange(cluster.machines), cluster.slots)
    return sum(w * cluster.distance[machine[template[x]], machine[template[y]]]
               for (x, y), w in zip(job.edges.tolist(), job.edge_weights, strict=True))


@st.composite
def instances(draw):
    slots = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
    nodes = draw(st.integers(1, min(4, sum(slots))))
    pairs = list(itertools.combinations(range(nodes), 2))
    edges = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs))) if pairs else []
    weights = draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=len(edges), max_size=len(edges)))
    size = len(slots)
    distance = np.array(draw(st.lists(st.sampled_from([1.0, 2.0, 3.0]), min_size=size * size, max_size=size * size)))
    distance = distance.reshape(size, size) * (1 - np.eye(size))
    return Cluster(slots, distance), GraphJob(nodes, edges, 1.0, 1.0, edge_weights=weights)


@settings(max_examples=40, deadline=None)
@given(instances())
def test_classes_and_counts_against_enumeration(instance):
    cluster, job = instance
    every = list(itertools.permutations(range(cluster.total_slots), job.nodes))
    assert template_count(cluster, job) == len(every) == len(templates(cluster, job))
    for free in range(cluster.total_slots + 1):
        assert template_count(cluster, job, free) == len(list(itertools.permutations(range(free), job.nodes)))
    classes = template_classes(cluster, job)
    machine = np.repeat(np.arange(cluster.machines), cluster.slots)
    tally = {}
    for template in every:
        key = (tuple(np.bincount(machine[list(template)], minlength=cluster.machines).tolist()),
               brute_cost(cluster, job, template))
        tally[key] = tally.get(key, 0) + 1
    ours = {(tuple(u), b): n for u, b, n in zip(classes.loads.tolist(), classes.costs.tolist(), classes.templates, strict=True)}
    assert ours.keys() == tally.keys()
    for key, n in tally.items():
        assert ours[key] == n
    costs = partition_cost(cluster, job, np.array(every, dtype=np.int64).reshape(len(every), job.nodes))
    assert costs == pytest.approx([brute_cost(cluster, job, t) for t in every], abs=1e-12)
    assert max_template_cost(cluster, job) == pytest.approx(max(costs), abs=1e-12)


def test_template_count_per_machine_free_vector():
    cluster, job = Cluster([3, 2, 2]), GraphJob(3, [(0, 1)], 1.0, 1.0)
    assert template_count(cluster, job, [1, 2, 0]) == 3 * 2 * 1
    assert template_count(cluster, job, 2) == 0


@pytest.mark.parametrize("template, message", [
    ([0, 1], "must give one integer slot per node"),
    ([0, 1, 12], "slots must lie in 0 ... 3"),
    ([0, 0, 1], "must be injective"),
    ([0.0, 1.0, 2.0], "must give one integer slot per node"),
])
def test_partition_cost_rejects_bad_templates(template, message):
    with pytest.raises(InvalidParameterError, match=message):
        partition_cost(Cluster([2, 2]), GraphJob(3, [(0, 1), (1, 2)], 1.0, 1.0), template)


def test_template_count_rejects_bad_free_slots():
    cluster, job = Cluster([2, 2]), GraphJob(2, [(0, 1)], 1.0, 1.0)
    with pytest.raises(InvalidParameterError, match="free = -1: must be a non-negative integer"):
        template_count(cluster, job, -1)
    with pytest.raises(InvalidParameterError, match="must be <= M = 4"):
        template_count(cluster, job, 5)
    with pytest.raises(InvalidParameterError, match="per machine, must have 2 entries"):
        template_count(cluster, job, [3, 0])


def test_enumeration_limits_say_how_many():
    with pytest.raises(StateSpaceTooLargeError, match="needs 95,040 states, above max_states=1,000"):
        templates(FIGURE1_CLUSTER, FIGURE1_JOB, max_templates=1000)
    with pytest.raises(StateSpaceTooLargeError, match="needs 243 states, above max_states=100"):
        template_classes(FIGURE1_CLUSTER, FIGURE1_JOB, max_assignments=100)



@pytest.mark.parametrize("n, k", [(12, 5), (2**53 + 7, 3), (10**400, 5), (10**400, 0)])
def test_falling_factorial_of_any_size_against_the_product(n, k):
    """(n)_k by the plain product n (n-1) ... (n-k+1), for n below, at and beyond the floats (10**400 raised OverflowError)."""
    assert falling_factorial(n, k) == math.prod(range(n - k + 1, n + 1))


@pytest.mark.parametrize("n, k", [(10**400, 10**4), (10**20, 60_000), (3 * 10**5, 3 * 10**5)])
def test_falling_factorial_refuses_too_many_digits(n, k):
    """A result beyond MAX_DIGITS is refused naming k, with its digit count within 3 % of Σ_(i<k) log10(n - i)
    summed factor by factor (lgamma(1e20) cannot tell n from n - k; 10**400 is no float)."""
    digits = math.fsum(math.log10(n - i) for i in range(k))
    assert digits > MAX_DIGITS
    with pytest.raises(InvalidParameterError, match=f"k = {k}: must leave .* at most {MAX_DIGITS} decimal digits") as error:
        falling_factorial(n, k)
    stated = float(re.search(r"it has about ([0-9.e+]+)", str(error.value)).group(1))
    assert stated == pytest.approx(digits, rel=0.03, abs=0)


@pytest.mark.parametrize("call,match", [
    (lambda: __import__("analytic.partitioning.templates", fromlist=["x"]).falling_factorial(5, -1),
     r"^k = -1: must be an integer >= 0$"),
    (lambda: __import__("analytic.partitioning.templates", fromlist=["x"]).falling_factorial(10**6, 10**6),
     r"^k = 1000000: must leave \(n\)_k = \(1000000\)_1000000 at most 1000000 decimal digits \(it has about 5.57e\+06\)"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()


def test_falling_factorial_of_a_huge_n_with_few_factors_is_exact():
    """The digit limit counts the result, not n: (10^18)_3 by hand."""
    from analytic.partitioning.templates import falling_factorial

    n = 10**18
    assert falling_factorial(n, 3) == n * (n - 1) * (n - 2)
