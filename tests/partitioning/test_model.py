"""Tests of analytic.partitioning.model: validated clusters and graph jobs, and their error messages."""

import math

import numpy as np
import pytest

from analytic import partitioning as P
from analytic.errors import InvalidParameterError
from analytic.partitioning import Cluster, GraphJob
from analytic.partitioning.model import check_jobs


def test_cluster_numbers_slots_machine_by_machine():
    cluster = Cluster([2, 3])
    assert cluster.machines == 2 and cluster.total_slots == 5
    assert cluster.machine_of_slot.tolist() == [0, 0, 1, 1, 1]
    assert cluster.unit_costs and cluster.distance.tolist() == [[0, 1], [1, 0]]
    with pytest.raises(ValueError):
        cluster.slots[0] = 7   # read-only


def test_cluster_with_a_distance_matrix():
    cluster = Cluster([1, 1], distance=[[0, 2.5], [0.5, 0]])
    assert not cluster.unit_costs
    assert "distance=[[0.0, 2.5], [0.5, 0.0]]" in repr(cluster)


@pytest.mark.parametrize("slots, distance, message", [
    ([], None, "slots = []: must be a non-empty sequence"),
    ([2, 0], None, "slots[1] = 0: must be a positive integer"),
    ([2, 1.5], None, "must be a positive integer"),
    ([2, 2], [[0, 1]], "must be a 2 x 2 matrix"),
    ([2, 2], [[0, -1], [1, 0]], "must hold finite costs >= 0"),
    ([2, 2], [[0, np.nan], [1, 0]], "must hold finite costs >= 0"),
    ([2, 2], [[1, 1], [1, 0]], "must be 0 on the diagonal"),
])
def test_bad_clusters(slots, distance, message):
    with pytest.raises(InvalidParameterError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Cluster(slots, distance)


def test_graph_job_load_and_repr():
    job = GraphJob(3, [(0, 1), (1, 2)], 1.5, 0.5, edge_weights=[1, 3], name="pipe")
    assert job.offered_load == 3.0
    assert repr(job) == ("GraphJob('pipe', nodes=3, edges=[(0, 1), (1, 2)], arrival_rate=1.5, service_rate=0.5, "
                         "edge_weights=[1.0, 3.0])")


@pytest.mark.parametrize("kwargs, message", [
    (dict(nodes=0, edges=[]), "nodes = 0: must be a positive integer"),
    (dict(nodes=3, edges=[(0, 3)]), "edge 0 = \\(0, 3\\) names a node outside 0 ... 2"),
    (dict(nodes=3, edges=[(-1, 2)]), "names a node outside"),
    (dict(nodes=3, edges=[(1, 1)]), "joins a node to itself"),
    (dict(nodes=3, edges=[(0, 1), (1, 0)]), "repeats an earlier edge; use edge_weights"),
    (dict(nodes=3, edges=[(0, 1, 2)]), "must be a pair of integer node numbers"),
    (dict(nodes=3, edges=[(0, 1.0)]), "must be a pair of integer node numbers"),
    (dict(nodes=3, edges=5), "must be a sequence of"),
    (dict(nodes=3, edges=[(0, 1)], edge_weights=[1, 2]), "must hold one weight per edge"),
    (dict(nodes=3, edges=[(0, 1)], edge_weights=[-1]), "must be finite and >= 0"),
])
def test_bad_graphs(kwargs, message):
    with pytest.raises(InvalidParameterError, match=message):
        GraphJob(arrival_rate=1.0, service_rate=1.0, **kwargs)


@pytest.mark.parametrize("rates, name", [((0.0, 1.0), "arrival_rate"), ((1.0, -2.0), "service_rate"),
                                         ((float("nan"), 1.0), "arrival_rate"), ((1.0, float("inf")), "service_rate")])
def test_non_positive_rates(rates, name):
    with pytest.raises(InvalidParameterError, match=f"{name} = .*: must be positive and finite"):
        GraphJob(2, [(0, 1)], *rates)


def test_check_jobs():
    cluster, job = Cluster([2, 2]), GraphJob(2, [(0, 1)], 1.0, 1.0)
    assert check_jobs(cluster, job) == (job,)
    assert check_jobs(cluster, [job, job]) == (job, job)
    with pytest.raises(InvalidParameterError, match="jobs\\[0\\].nodes = 5: must be <= M = 4"):
        check_jobs(cluster, GraphJob(5, [], 1.0, 1.0))
    with pytest.raises(InvalidParameterError, match="jobs = \\[\\]: must be a non-empty sequence of GraphJob"):
        check_jobs(cluster, [])
    with pytest.raises(InvalidParameterError, match="must be a non-empty sequence of GraphJob \\(entry 1 is a int\\)"):
        check_jobs(cluster, [job, 3])
    with pytest.raises(InvalidParameterError, match="jobs = <object .*>: must be a non-empty sequence of GraphJob"):
        check_jobs(cluster, object())
    with pytest.raises(InvalidParameterError, match="cluster = .*: must be a Cluster"):
        check_jobs([2, 2], job)


@pytest.mark.parametrize("call,match", [
    (lambda: P.Cluster([2, 2], distance="abc"), r"^distance = 'abc': must be a real number or an array"),
    # slot counts whose total is beyond int64 (a hypothesis draw of 1.2e9 slots on one machine is refused
    # the same way under the sweep's 2 GiB cap; on this machine's memory it fits)
    (lambda: P.Cluster([2**62, 2**62]), r"^the table of 9,223,372,036,854,775,808 slots needs"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()


@pytest.mark.parametrize("slots, match", [([4, 2.5], r"^slots\[1\] = 2.5"), ([4, math.nan], r"^slots\[1\] = nan"),
                                          ([True, 2], r"^slots = \[True, 2\]: .*a bool")])
def test_cluster_blames_the_bad_entry(slots, match):
    """Cluster([4, 2.5]) and Cluster([4, nan]) blamed slots[0] = 4; Cluster([True, 2]) was a cluster of 1 and 2 slots."""
    with pytest.raises(InvalidParameterError, match=match):
        P.Cluster(slots)
