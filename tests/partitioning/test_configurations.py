"""Tests of analytic.partitioning.configurations: counting before enumerating, symmetry reduction.

References: the hand count of Figure 1 (1 + 12!/7! + 12!/7! · 7!/2! / 2 configurations), Burnside
counts set against the enumerated orbits, the unreduced enumeration (no machine symmetry) set against
the reduced one, and brute-force listing in tests/partitioning/test_bruteforce.py.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic import partitioning as P
from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.partitioning import (
    Cluster,
    GraphJob,
    class_table,
    configuration_count,
    configurations,
    machine_symmetries,
    state_space,
)
from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB

TRIANGLE = GraphJob(3, [(0, 1), (1, 2), (0, 2)], 1.0, 1.0)


def test_figure1_configuration_count_by_hand():
    one = math.perm(12, 5)
    two = one * math.perm(7, 5) // 2
    space = configurations(FIGURE1_CLUSTER, FIGURE1_JOB)
    assert space.configuration_count == 1 + one + two == 119845441
    assert space.log_configuration_count == pytest.approx(math.log(1 + one + two), rel=1e-14, abs=0)
    totals = [sum(space.multiplicity(i) for i in range(len(space)) if space.templates[i, 0] == n) for n in (0, 1, 2)]
    assert totals == [1, one, two]


@st.composite
def clusters_and_jobs(draw):
    slots = draw(st.lists(st.sampled_from([1, 2, 3]), min_size=1, max_size=4))
    jobs = []
    for _ in range(draw(st.integers(1, 2))):
        nodes = draw(st.integers(1, min(3, sum(slots))))
        edges = [(x, x + 1) for x in range(nodes - 1)]
        jobs.append(GraphJob(nodes, edges, 1.0, 1.0))
    return Cluster(slots), jobs


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(clusters_and_jobs())
def test_counts_before_enumeration_match_the_enumeration(instance):
    cluster, jobs = instance
    counted = configuration_count(cluster, jobs)
    reduced = configurations(cluster, jobs)
    full = configurations(cluster, jobs, symmetry=False)
    assert counted.orbits == len(reduced) and counted.count_vectors == len(full)
    assert counted.symmetries == len(machine_symmetries(cluster))
    assert reduced.configuration_count == full.configuration_count
    assert reduced.orbit.sum() == len(full)
    # each orbit's multiplicity is the total over its count vectors
    totals = np.zeros(len(reduced), dtype=object)
    for i in range(len(full)):
        totals[reduced.index(reduced.key(full.counts[i]))] += full.multiplicity(i)
    assert totals.tolist() == [reduced.multiplicity(i) for i in range(len(reduced))]


def test_machine_symmetries_respect_slots_and_distances():
    assert machine_symmetries(Cluster([2, 2, 2])).shape == (6, 3)
    assert machine_symmetries(Cluster([3, 2, 2])).tolist() == [[0, 1, 2], [0, 2, 1]]
    chain = Cluster([2, 2, 2], distance=[[0, 1, 2], [1, 0, 1], [2, 1, 0]])   # machines on a line
    assert machine_symmetries(chain).tolist() == [[0, 1, 2], [2, 1, 0]]
    assert machine_symmetries(Cluster([1] * 7)).tolist() == [list(range(7))]    # 5040 > 720: identity only


def test_cheapest_classes_keep_one_class_per_load_vector():
    full, cheap = class_table(FIGURE1_CLUSTER, FIGURE1_JOB), class_table(FIGURE1_CLUSTER, FIGURE1_JOB, cheapest=True)
    loads = {tuple(u) for u in full.loads.tolist()}
    assert len(cheap) == len(loads) == 18
    for u, b in zip(cheap.loads.tolist(), cheap.costs, strict=True):
        assert b == full.costs[(full.loads == u).all(axis=1)].min()


def test_state_space_is_remembered_and_consistent():
    first = state_space(FIGURE1_CLUSTER, FIGURE1_JOB)
    assert state_space(FIGURE1_CLUSTER, [FIGURE1_JOB]) is first
    assert first.describe(0) == [] and first.free[0] == 12
    for i in range(len(first)):
        assert first.index(first.key(first.counts[i])) == i
        assert sum(cost for _, _, cost in first.describe(i)) == first.cost[i]
        assert first.used[i].sum() == 12 - first.free[i]
        assert (first.used[i] <= FIGURE1_CLUSTER.slots).all()


def test_too_many_states_is_said_before_enumerating():
    cluster = Cluster([4, 4, 4, 4])
    with pytest.raises(StateSpaceTooLargeError, match=r"122,618 count vectors, reduced by 24 machine symmetries\) needs 5,847 "
                                                      r"states, above max_states=1,000"):
        configurations(cluster, [FIGURE1_JOB, TRIANGLE], max_states=1000)


def test_huge_lattice_falls_back_to_a_lower_bound():
    cluster = Cluster([2] * 21)          # 3^21 lattice points: no dynamic programme, enumeration stops early
    with pytest.raises(StateSpaceTooLargeError, match="more than 50 states"):
        configurations(cluster, GraphJob(1, [], 1.0, 1.0), max_states=50)
    with pytest.raises(StateSpaceTooLargeError, match="counting configurations on the capacity lattice"):
        configuration_count(cluster, GraphJob(1, [], 1.0, 1.0))


def test_bad_max_states():
    with pytest.raises(InvalidParameterError, match="max_states = 0: must be a positive integer"):
        configurations(FIGURE1_CLUSTER, FIGURE1_JOB, max_states=0)


@pytest.mark.parametrize("call,match", [
    (lambda: P.configurations(P.Cluster([2, 2]), P.GraphJob(2, [(0, 1)], 1.0, 1.0), symmetry="no"),
     r"^symmetry = 'no': must be True or False$"),
    (lambda: P.configurations(P.Cluster([2, 2]), P.GraphJob(2, [(0, 1)], 1.0, 1.0)).describe(99),
     r"^i = 99: must be a state index below 5$"),
    (lambda: P.configurations(P.Cluster([2, 2]), P.GraphJob(2, [(0, 1)], 1.0, 1.0)).index((7, 7)),
     r"^key = \(7, 7\): must be the key of a state"),
    # found by hand after the sweep: count vectors that are no configuration (np.repeat of 10^18 ids raised
    # a raw ValueError; three 2-node templates on 4 slots got a key), two templates on one slot, weights
    # whose sum overflows (an IndexError), an exact 10^6! (6 s; 10^7! would take minutes), 14! candidates
    (lambda: P.configurations(P.Cluster([2, 2]), P.GraphJob(2, [(0, 1)], 1.0, 1.0)).key([10**18] * 3),
     r"^counts = .*: must be a configuration: its templates need more slots of some machine than it has \(\[2, 2\]\)$"),
    (lambda: P.configurations(P.Cluster([2, 2]), P.GraphJob(2, [(0, 1)], 1.0, 1.0)).key([3, 0, 0]),
     r"^counts = \[3, 0, 0\]: must be a configuration"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()
