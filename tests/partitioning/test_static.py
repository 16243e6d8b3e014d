"""Tests of analytic.partitioning.static: the capacity region (Definition 1) and the static problem (Definition 2).

References: the LP over distinct count vectors (HiGHS) against cvxpy (Clarabel) over every reduced
state, values worked out by hand (Figure 1: at most two graphs, each split 4 + 1 at cost 1, so
G(x*) = ρ and δ* = 2/ρ - 1; triangles on 4+4+4: three whole, a fourth split 1+1+1 at cost 3), and
the brute-force LP over listed configurations in tests/partitioning/test_bruteforce.py.
"""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic import partitioning as P
from analytic.errors import InvalidParameterError, UnstableSystemError
from analytic.partitioning import (
    Cluster,
    GraphJob,
    capacity_margin,
    cheapest_packings,
    cost_distribution,
    static_partitioning,
)
from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB


def figure1_job(rho):
    return GraphJob(5, FIGURE1_JOB.edges, arrival_rate=rho, service_rate=1.0)


def triangle(rho):
    return GraphJob(3, [(0, 1), (1, 2), (0, 2)], arrival_rate=rho, service_rate=1.0)


@pytest.mark.parametrize("rho", [0.3, 1.0, 1.7, 2.0])
def test_figure1_by_hand(rho):
    result = static_partitioning(FIGURE1_CLUSTER, figure1_job(rho))
    assert result.cost == pytest.approx(rho, rel=1e-12, abs=0)
    assert result.delta_star == pytest.approx(2 / rho - 1, rel=1e-12, abs=1e-12)
    assert result.interior == (rho < 2)


@pytest.mark.parametrize("rho, cost", [(2.0, 0.0), (3.0, 0.0), (3.5, 1.5), (4.0, 3.0)])
def test_triangles_need_a_split_beyond_three(rho, cost):
    result = static_partitioning(FIGURE1_CLUSTER, triangle(rho))
    assert result.cost == pytest.approx(cost, abs=1e-12)
    assert cost_distribution(FIGURE1_CLUSTER, triangle(rho)).costs.min() == 0.0   # the literal reading's value: 0
    assert result.delta_star == pytest.approx(4 / rho - 1, rel=1e-12, abs=1e-12)


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(st.floats(0.05, 1.9), st.floats(0.05, 3.9))
def test_highs_and_cvxpy_agree(rho_graph, rho_triangle):
    jobs = [figure1_job(rho_graph), triangle(rho_triangle)]
    if capacity_margin(FIGURE1_CLUSTER, jobs) < 1e-6:
        with pytest.raises(UnstableSystemError):
            static_partitioning(FIGURE1_CLUSTER, jobs)
        return
    highs, conic = static_partitioning(FIGURE1_CLUSTER, jobs), static_partitioning(FIGURE1_CLUSTER, jobs, "cvxpy")
    assert conic.cost == pytest.approx(highs.cost, abs=1e-8)
    for result in (highs, conic):
        shares = np.array([p for _, p, _ in result.time_sharing])
        assert shares.sum() == pytest.approx(1.0, abs=1e-8)
        assert (result.throughput >= np.array([rho_graph, rho_triangle]) - 1e-8).all()
        assert sum(p * c for _, p, c in result.time_sharing) == pytest.approx(result.cost, abs=1e-8)


def test_time_sharing_lists_cheapest_configurations():
    result = static_partitioning(FIGURE1_CLUSTER, triangle(3.5))
    assert [(n, c) for n, _, c in result.time_sharing] == [((3,), 0.0), ((4,), 3.0)]
    assert [p for _, p, _ in result.time_sharing] == pytest.approx([0.5, 0.5], rel=1e-14, abs=0)
    whole, split = result.configurations
    assert sorted(whole) == [(0, (0, 0, 3), 0.0), (0, (0, 3, 0), 0.0), (0, (3, 0, 0), 0.0)]
    assert sorted(split) == [(0, (0, 0, 3), 0.0), (0, (0, 3, 0), 0.0), (0, (1, 1, 1), 3.0), (0, (3, 0, 0), 0.0)]
    assert repr(result).startswith("StaticPartition(cost=1.5, delta_star=0.142857142857, interior=True")


def test_packings_are_the_cheapest_per_count_vector():
    packings = cheapest_packings(FIGURE1_CLUSTER, triangle(1.0))
    assert packings.templates.ravel().tolist() == [0, 1, 2, 3, 4] and packings.cost.tolist() == [0, 0, 0, 0, 3]


def test_outside_the_capacity_region():
    assert capacity_margin(FIGURE1_CLUSTER, figure1_job(2.5)) == pytest.approx(-0.2, rel=1e-12, abs=0)
    with pytest.raises(UnstableSystemError, match="load factor of ρ relative to the capacity region .* = 1.25 must be < 1"):
        static_partitioning(FIGURE1_CLUSTER, figure1_job(2.5))


def test_machine_costs_change_the_optimum():
    far = Cluster([3, 3], distance=[[0, 5], [5, 0]])
    result = static_partitioning(far, GraphJob(4, [(0, 1), (1, 2), (2, 3)], 1.0, 1.0))
    assert result.cost == pytest.approx(5.0, rel=1e-12, abs=0)     # a 4-node path on 3 + 3 slots cuts one edge at cost 5


def test_unknown_solver():
    with pytest.raises(InvalidParameterError, match='solver = \'glpk\': must be "highs" or "cvxpy"'):
        static_partitioning(FIGURE1_CLUSTER, FIGURE1_JOB, "glpk")


@pytest.mark.parametrize("rho", [1e-300, 1e-10, 2.0**-1000, 5e-324])
@pytest.mark.parametrize("solver", ["highs", "cvxpy"])
def test_figure1_at_vanishing_loads(rho, solver):
    """Loads near 0 (1e-300 was read as an unbounded capacity LP, 1e-10 too): G(x*) = ρ and δ* = 2/ρ - 1 by hand,
    relative to ρ (inf where 2/ρ exceeds the float range); the time-sharing serves ρ and sums to one."""
    result = static_partitioning(FIGURE1_CLUSTER, figure1_job(rho), solver)
    assert result.cost == pytest.approx(rho, rel=1e-9, abs=0)
    with np.errstate(over="ignore"):
        assert result.delta_star == pytest.approx(np.float64(2.0) / rho - 1, rel=1e-12, abs=0)
    assert result.interior and result.throughput[0] >= rho * (1 - 1e-9)
    assert sum(p for _, p, _ in result.time_sharing) == pytest.approx(1.0, rel=1e-12, abs=0)
    if rho > 1e-300:
        assert capacity_margin(FIGURE1_CLUSTER, figure1_job(rho)) == pytest.approx(2 / rho - 1, rel=1e-12, abs=0)


@pytest.mark.parametrize("rho", [1e-300, 1e-10])
def test_triangles_at_vanishing_loads_cost_nothing(rho):
    """A whole triangle costs 0, so G(x*) = 0 at any load up to three; δ* = 4/ρ - 1; HiGHS shares the time between
    the empty packing and one of 1 to 3 whole triangles (cost 0), just enough to serve ρ."""
    result = static_partitioning(FIGURE1_CLUSTER, triangle(rho))
    assert result.cost == 0 and result.delta_star == pytest.approx(4 / rho - 1, rel=1e-12, abs=0)
    (empty, _, _), ((count,), share, cost) = result.time_sharing
    assert empty == (0,) and count in (1, 2, 3) and cost == 0
    assert count * share == pytest.approx(rho, rel=1e-12, abs=0)


@pytest.mark.parametrize("rho", [1e300, 1e20])
def test_huge_loads_are_unstable_by_their_factor(rho):
    """ρ far outside Λ (HiGHS reported a model error at 1e300): unstable, by the factor ρ/4 (four triangles at most)."""
    with pytest.raises(UnstableSystemError, match=r"load factor of ρ relative to the capacity region Λ \(Definition 1\) "
                                                  + re.escape(f"= {rho / 4:.10g} must be < 1")) as error:
        static_partitioning(FIGURE1_CLUSTER, triangle(rho))
    assert error.value.value == pytest.approx(rho / 4, rel=1e-12, abs=0)


@pytest.mark.parametrize("call,match", [
    (lambda: P.static_partitioning(P.Cluster([2, 2]), P.GraphJob(2, [(0, 1)], 1.0, 1.0), solver=np.ones(2)),
     r'^solver = .*: must be "highs" or "cvxpy"$'),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()
