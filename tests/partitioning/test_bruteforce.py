"""analytic.partitioning against brute force on clusters small enough to list every configuration.

References, all independent of the package's reduction by template classes and symmetries: every
configuration listed as a set of explicit templates (injective node-to-slot maps, from
``itertools.permutations``), costs counted edge by edge, γ (14), π* (15) and γ̂ (33) weighted
configuration by configuration in exact integers (fractions) or floats, the static problem
(Definition 2) as an LP over the listed configurations (HiGHS), eq. (17) as a maximum over them, and
the paper's own chain (``reduce="none"``, explicit templates) solved by analytic.ctmc.
"""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.optimize import linprog

from analytic.partitioning import (
    Cluster,
    GraphJob,
    adgp_distribution,
    configurations,
    dgp_chain,
    dgp_distribution,
    loss_chain,
    loss_distribution,
    lump,
    max_weight,
    state_space,
    static_partitioning,
)

PATH3 = GraphJob(3, [(0, 1), (1, 2)], arrival_rate=0.7, service_rate=1.0)
EDGE = GraphJob(2, [(0, 1)], arrival_rate=0.5, service_rate=1.0)
SINGLE = GraphJob(1, [], arrival_rate=1.3, service_rate=2.0)
TRIANGLE = GraphJob(3, [(0, 1), (1, 2), (0, 2)], arrival_rate=0.9, service_rate=1.5, edge_weights=[1.0, 2.0, 0.5])

#: (cluster, jobs, queue weights, β): unequal machines, two types, weighted edges and machine costs.
CASES = {
    "path on 2+2+2": (Cluster([2, 2, 2]), [PATH3], [1.2], 0.4),
    "edge and node on 3+2": (Cluster([3, 2]), [EDGE, SINGLE], [0.8, 0.3], 0.7),
    "weighted triangle and edge": (Cluster([2, 2, 1], distance=[[0, 1, 3], [1, 0, 2], [3, 2, 0]]), [TRIANGLE, EDGE],
                                   [2.0, 0.5], 0.6),
}


def machine_of(cluster):
    return np.repeat(np.arange(len(cluster.slots)), cluster.slots)


def edge_cost(cluster, job, template):
    machine = machine_of(cluster)
    return sum(w * cluster.distance[machine[template[x]], machine[template[y]]]
               for (x, y), w in zip(job.edges.tolist(), job.edge_weights, strict=True))


def listed(cluster, jobs):
    """Every configuration: a tuple of (type, template) with pairwise disjoint slots."""
    slots = range(sum(cluster.slots))
    every = [(j, t) for j, job in enumerate(jobs) for t in itertools.permutations(slots, job.nodes)]
    found = []

    def grow(start, chosen, used):
        found.append(tuple(chosen))
        for i in range(start, len(every)):
            if used.isdisjoint(every[i][1]):
                grow(i + 1, [*chosen, every[i]], used | set(every[i][1]))

    grow(0, [], frozenset())
    return found


def summary(cluster, jobs, configuration):
    """(free slots, templates per type, cost) of a listed configuration."""
    counts = [0] * len(jobs)
    for j, _ in configuration:
        counts[j] += 1
    free = sum(cluster.slots) - sum(len(t) for _, t in configuration)
    return free, counts, sum(edge_cost(cluster, jobs[j], t) for j, t in configuration)


@pytest.fixture(scope="module", params=list(CASES), ids=list(CASES))
def case(request):
    cluster, jobs, q, beta = CASES[request.param]
    configurations_listed = listed(cluster, jobs)
    return cluster, jobs, q, beta, configurations_listed, [summary(cluster, jobs, c) for c in configurations_listed]


def weights_of(summaries, rates, q=None, beta=None):
    """Unnormalised weights F! Π r_j^n_j (e^(W/β)) of the listed configurations."""
    out = []
    for free, counts, cost in summaries:
        w = math.factorial(free) * math.prod(r**n for r, n in zip(rates, counts, strict=True))
        if q is not None:
            w *= math.exp((sum(qj * n for qj, n in zip(q, counts, strict=True)) - cost) / beta)
        out.append(w)
    out = np.array(out, dtype=float)
    return out / out.sum()


def aggregate(cluster, jobs, configurations_listed, probabilities):
    space = state_space(cluster, jobs)
    total = np.zeros(len(space))
    for configuration, p in zip(configurations_listed, probabilities, strict=True):
        total[lump(space, configuration)] += p
    return total


def test_configuration_count_and_multiplicities(case):
    cluster, jobs, _, _, configurations_listed, _ = case
    space = state_space(cluster, jobs)
    assert space.configuration_count == len(configurations_listed)
    per_state = np.bincount([lump(space, c) for c in configurations_listed], minlength=len(space))
    assert per_state.tolist() == [space.multiplicity(i) for i in range(len(space))]
    assert np.allclose(np.log(per_state), space.log_multiplicity, rtol=1e-13, atol=0)


def test_costs_and_template_counts_per_state(case):
    cluster, jobs, _, _, configurations_listed, summaries = case
    space = state_space(cluster, jobs)
    for configuration, (free, counts, cost) in zip(configurations_listed, summaries, strict=True):
        i = lump(space, configuration)
        assert space.free[i] == free and space.templates[i].tolist() == counts
        assert space.cost[i] == pytest.approx(cost, rel=1e-14, abs=1e-14)


def test_loss_distribution_gamma_14(case):
    cluster, jobs, _, _, configurations_listed, summaries = case
    brute = weights_of(summaries, [job.offered_load for job in jobs])
    law = loss_distribution(cluster, jobs)
    assert law.probabilities == pytest.approx(aggregate(cluster, jobs, configurations_listed, brute), rel=1e-12, abs=0)
    assert law.expected_cost == pytest.approx(sum(p * s[2] for p, s in zip(brute, summaries, strict=True)), rel=1e-12, abs=0)
    exact = [math.factorial(f) * math.prod(Fraction(job.offered_load) ** n for job, n in zip(jobs, counts, strict=True))
             for f, counts, _ in summaries]
    exact_min, total = min(exact), sum(exact)
    assert law.min_log_probability == pytest.approx(math.log(exact_min / total), rel=1e-12, abs=0)
    assert law.log_normalizer == pytest.approx(math.log(total), rel=1e-12, abs=0)


def test_dgp_distribution_pi_15(case):
    cluster, jobs, q, beta, configurations_listed, summaries = case
    brute = weights_of(summaries, [job.offered_load for job in jobs], q, beta)
    law = dgp_distribution(cluster, jobs, q, beta)
    assert law.probabilities == pytest.approx(aggregate(cluster, jobs, configurations_listed, brute), rel=1e-12, abs=0)
    expected = np.array([s[1] for s in summaries]).T @ brute
    assert law.expected_templates == pytest.approx(expected, rel=1e-12, abs=0)


def test_adgp_distribution_33(case):
    cluster, jobs, q, beta, configurations_listed, summaries = case
    rates = [2.5 / job.service_rate for job in jobs]
    plain = adgp_distribution(cluster, jobs, 2.5)
    tilted = adgp_distribution(cluster, jobs, 2.5, q, beta)
    for law, brute in ((plain, weights_of(summaries, rates)), (tilted, weights_of(summaries, rates, q, beta))):
        assert law.probabilities == pytest.approx(aggregate(cluster, jobs, configurations_listed, brute), rel=1e-12, abs=0)


def test_paper_chain_has_pi_star_and_is_reversible(case):
    """The chain of explicit templates (Section 6, Step 1) solved by analytic.ctmc equals (15) configuration by configuration."""
    cluster, jobs, q, beta, configurations_listed, summaries = case
    chain = dgp_chain(cluster, jobs, q, beta, reduce="none")
    assert chain.n_states == len(configurations_listed)
    brute = dict(zip((tuple(sorted(c)) for c in configurations_listed),
                     weights_of(summaries, [j.offered_load for j in jobs], q, beta),
                     strict=True))
    exact = np.array([brute[state] for state in chain.states])
    pi = chain.stationary().probabilities
    assert np.abs(pi - exact).max() < 1e-13
    assert chain.detailed_balance_residual(exact) < 1e-13


def test_lumped_chains_equal_the_paper_chain(case):
    """Lumping by identical slots and machines is exact: the reduced chains' laws are the full chain's totals."""
    cluster, jobs, q, beta, _, _ = case
    full = dgp_chain(cluster, jobs, q, beta, reduce="none")
    total = aggregate(cluster, jobs, full.states, full.stationary().probabilities)
    space = state_space(cluster, jobs)
    machines = dgp_chain(cluster, jobs, q, beta)
    pi = machines.stationary().probabilities
    assert np.abs(pi - total[[space.index(s) for s in machines.states]]).max() < 1e-13
    slots = dgp_chain(cluster, jobs, q, beta, reduce="slots")
    unreduced = configurations(cluster, jobs, symmetry=False)
    by_slots = np.zeros(len(space))
    for state, p in zip(slots.states, slots.stationary().probabilities, strict=True):
        by_slots[space.index(space.key(unreduced.counts_of(state)))] += p
    assert np.abs(by_slots - total).max() < 1e-13


def test_loss_chain_of_explicit_templates(case):
    cluster, jobs, _, _, configurations_listed, summaries = case
    chain = loss_chain(cluster, jobs, reduce="none")
    brute = dict(zip((tuple(sorted(c)) for c in configurations_listed), weights_of(summaries, [j.offered_load for j in jobs]),
                     strict=True))
    assert np.abs(chain.stationary().probabilities - [brute[s] for s in chain.states]).max() < 1e-13


def test_static_partitioning_against_an_lp_over_listed_configurations(case):
    cluster, jobs, _, _, _, summaries = case
    scaled = [GraphJob(j.nodes, j.edges, 1.6 * j.arrival_rate, j.service_rate, j.edge_weights) for j in jobs]
    counts = np.array([s[1] for s in summaries], dtype=float)
    costs = np.array([s[2] for s in summaries])
    loads = np.array([j.offered_load for j in scaled])
    reference = linprog(costs, A_ub=-counts.T, b_ub=-loads, A_eq=np.ones((1, len(costs))), b_eq=[1], method="highs")
    assert reference.status == 0
    ours = static_partitioning(cluster, scaled)
    assert ours.cost == pytest.approx(reference.fun, rel=1e-12, abs=1e-12)
    assert (ours.throughput >= loads - 1e-9).all()
    margin = linprog(np.append(np.zeros(len(costs)), -1.0), A_ub=np.column_stack([-counts.T, loads]), b_ub=np.zeros(len(loads)),
                     A_eq=np.append(np.ones(len(costs)), 0.0)[None, :], b_eq=[1], method="highs")
    assert ours.delta_star == pytest.approx(-margin.fun - 1.0, rel=1e-12, abs=1e-12)


def test_max_weight_against_listed_configurations(case):
    cluster, jobs, q, _, _, summaries = case
    for scale in (0.2, 1.0, 3.0):
        weights = [scale * x for x in q]
        brute = max(sum(w * n for w, n in zip(weights, counts, strict=True)) - cost for _, counts, cost in summaries)
        assert max_weight(cluster, jobs, weights).weight == pytest.approx(brute, rel=1e-12, abs=1e-12)
