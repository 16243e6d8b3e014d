"""Tests of analytic.fairness.graph and analytic.fairness.lattice.

References: μ(A) computed by a plain Python set union over the servers of A (the definition in
Section 2); the lattice against itertools enumeration sorted by (total, lexicographic).
"""

import itertools

import numpy as np
import pytest

from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.fairness import CompatibilityGraph, service_rate, simplex_lattice, subset_service_rates


def cover_rate(server_sets, capacities, classes):
    """μ(A) by the definition: the capacities of the union of the server sets."""
    return sum(capacities[s] for s in set().union(*(server_sets[i] for i in classes)))


@pytest.fixture
def random_graph():
    rng = np.random.default_rng(7)
    sets = [sorted(rng.choice(70, size=rng.integers(1, 6), replace=False).tolist()) for _ in range(9)]
    capacities = rng.uniform(0.1, 3.0, 70)
    return sets, capacities


def test_service_rate_matches_the_union_of_server_sets(random_graph):
    sets, capacities = random_graph
    graph = CompatibilityGraph(sets, capacities)
    masks = np.array(list(itertools.product([False, True], repeat=len(sets))))
    expected = [cover_rate(sets, capacities, np.flatnonzero(m)) for m in masks]
    assert service_rate(graph, masks) == pytest.approx(expected, rel=1e-14, abs=0)
    table = subset_service_rates(graph)
    keys = masks @ (1 << np.arange(len(sets)))
    assert table[keys] == pytest.approx(expected, rel=1e-14, abs=0)
    assert service_rate(graph, [0, 3]) == pytest.approx(cover_rate(sets, capacities, [0, 3]), rel=1e-15, abs=0)
    assert service_rate(graph, np.zeros(len(sets), dtype=bool)) == 0.0


def test_service_rate_of_many_rows_takes_the_distinct_sets_path():
    graph = CompatibilityGraph([[0, 2], [1, 2]], [1.0, 2.0, 4.0])
    rows = np.random.default_rng(0).integers(0, 2, size=(5000, 2)).astype(bool)
    expected = [cover_rate(graph.server_sets, graph.capacities, np.flatnonzero(r)) for r in rows]
    assert service_rate(graph, rows).tolist() == expected


def test_graph_attributes_and_repr():
    graph = CompatibilityGraph([[0, 2], [1, 2]], [1, 0, 1])
    assert graph.n_classes == 2 and graph.n_servers == 3
    assert graph.class_capacities.tolist() == [2.0, 1.0]
    assert graph.incidence.tolist() == [[True, False, True], [False, True, True]]
    assert repr(graph) == "CompatibilityGraph(server_sets=((0, 2), (1, 2)), capacities=[1.0, 0.0, 1.0])"
    assert CompatibilityGraph([[1], [0, 1]]).capacities.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("sets,capacities,match", [
    ([[]], None, r"server_sets\[0\] = \(\): must not be empty"),
    ([[0, 0]], None, "must not list a server twice"),
    ([[0, 3]], [1, 1], r"server indices must be in 0..1"),
    ([[-1]], None, "integers >= 0"),
    ([[0.5]], None, "integers >= 0"),
    ([[1]], [1, 0], "must include a server of positive capacity"),
    ([[0]], [-1.0], "finite rates >= 0"),
    ([[0]], [float("nan")], "finite rates >= 0"),
    ([], None, "at least one class"),
    ("ab", None, "sequence of server-index sequences"),
])
def test_graph_validation(sets, capacities, match):
    with pytest.raises(InvalidParameterError, match=match):
        CompatibilityGraph(sets, capacities)


@pytest.mark.filterwarnings("error")
def test_capacities_adding_up_beyond_the_float_range_build_without_overflow():
    """A class on two servers of 1e308 has μ({i}) = 2e308, beyond the doubles: the positivity check summed the
    capacities (an overflow RuntimeWarning). Only whether some server of the class has a positive capacity matters."""
    graph = CompatibilityGraph([[0, 1], [1], [1, 2]], [1e308, 1e308, 0.0])
    assert graph.incidence.tolist() == [[True, True, False], [False, True, False], [False, True, True]]
    with pytest.raises(InvalidParameterError, match=r"^server_sets\[1\] = \(2,\): must include a server of positive "
                                                    r"capacity \(capacities = \[1e\+308, 1e\+308, 0\.0\]\)$"):
        CompatibilityGraph([[0, 1], [2]], [1e308, 1e308, 0.0])
    # The first class without capacity is named, as the sum's argmin named it.
    with pytest.raises(InvalidParameterError, match=r"^server_sets\[0\] = \(2,\)"):
        CompatibilityGraph([[2], [0, 1], [2]], [1e308, 1e308, 0.0])


def test_service_rate_rejects_bad_sets():
    graph = CompatibilityGraph([[0], [0]])
    with pytest.raises(InvalidParameterError, match=r"class indices in 0..1"):
        service_rate(graph, [2])
    with pytest.raises(InvalidParameterError, match="mask must have shape"):
        service_rate(graph, np.ones((2, 3), dtype=bool))


@pytest.mark.parametrize("dimension,max_jobs", [(1, 0), (1, 4), (2, 5), (3, 4), (4, 3), (5, 2)])
def test_lattice_order_and_ranks(dimension, max_jobs):
    lattice = simplex_lattice(dimension, max_jobs)
    expected = sorted((x for x in itertools.product(range(max_jobs + 1), repeat=dimension) if sum(x) <= max_jobs),
                      key=lambda x: (sum(x), x))
    assert lattice.states.tolist() == [list(x) for x in expected]
    assert lattice.index(lattice.states).tolist() == list(range(len(expected)))
    for k in range(max_jobs + 1):
        assert (lattice.level(k).sum(axis=1) == k).all()


def test_lattice_limits():
    with pytest.raises(StateSpaceTooLargeError, match="needs 23,751 states"):
        simplex_lattice(4, 25, max_states=1000)
    with pytest.raises(InvalidParameterError, match="max_jobs"):
        simplex_lattice(2, -1)
