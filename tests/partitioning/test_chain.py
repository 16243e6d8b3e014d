"""Tests of analytic.partitioning.chain: spectral gaps and Lemma 1's bound (21).

References: the eigenvalues of the dense uniformised matrix P_ξ = I + Q/ξ computed by numpy (no
symmetrisation), the paper's chain of explicit templates against its lumped versions, and Lemma 1's
constant K_0 evaluated by hand from its definition.
"""

import math

import numpy as np
import pytest

import analytic.partitioning.chain as chain_module
from analytic import partitioning as P
from analytic.ctmc import CTMC
from analytic.errors import InvalidParameterError
from analytic.partitioning import (
    Cluster,
    GraphJob,
    dgp_chain,
    log_mixing_constant,
    log_relaxation_bound,
    loss_chain,
    spectral_gap,
    state_space,
    uniformization_rate,
)
from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB

PATH3 = GraphJob(3, [(0, 1), (1, 2)], arrival_rate=0.7, service_rate=1.0)
SMALL = Cluster([2, 2, 2])


def second_eigenvalue(chain, xi):
    """θ_2 from the dense, unsymmetrised P_ξ = I + Q/ξ (real spectrum for a reversible chain)."""
    p = np.eye(chain.n_states) + chain.generator.toarray() / xi
    eigenvalues = np.sort(np.linalg.eigvals(p).real)
    return eigenvalues[-2]


@pytest.mark.parametrize("reduce", ["none", "slots", "machines"])
def test_theta2_against_the_dense_uniformised_matrix(reduce):
    cluster, job = Cluster([2, 2, 1]), GraphJob(2, [(0, 1)], 0.8, 1.0)       # 1 + 20 + 60 + 40 configurations
    chain = dgp_chain(cluster, job, 1.0, 0.5, reduce=reduce)
    xi = uniformization_rate(cluster, job)
    gap = spectral_gap(chain, xi)
    assert gap.theta2 == pytest.approx(second_eigenvalue(chain, xi), abs=1e-12)
    assert gap.relaxation_time == pytest.approx(1 / (1 - gap.theta2), rel=1e-10, abs=0)
    assert gap.n_states == chain.n_states


def test_lumping_by_slots_keeps_the_gap_and_machines_can_raise_it():
    """Lumped chains keep a subset of the eigenvalues: the gap can only grow under lumping."""
    xi = uniformization_rate(SMALL, PATH3)
    full = spectral_gap(dgp_chain(SMALL, PATH3, 1.0, 0.5, reduce="none"), xi)
    slots = spectral_gap(dgp_chain(SMALL, PATH3, 1.0, 0.5, reduce="slots"), xi)
    machines = spectral_gap(dgp_chain(SMALL, PATH3, 1.0, 0.5), xi)
    assert slots.gap == pytest.approx(full.gap, rel=1e-10, abs=0)
    assert machines.gap >= full.gap * (1 - 1e-12)


def test_sparse_eigensolver_agrees_with_the_dense_one(monkeypatch):
    chain = dgp_chain(SMALL, PATH3, 1.0, 0.5, reduce="slots")                 # 27 states
    xi = uniformization_rate(SMALL, PATH3)
    dense = spectral_gap(chain, xi)
    monkeypatch.setattr(chain_module, "_DENSE_LIMIT", 5)                       # force shift-invert Lanczos
    sparse = spectral_gap(chain, xi)
    assert sparse.gap == pytest.approx(dense.gap, rel=1e-9, abs=0)
    assert dense.gap == pytest.approx(-np.sort(np.linalg.eigvalsh(symmetrised(chain)))[-2], rel=1e-12, abs=0)


def symmetrised(chain):
    pi = chain.stationary().probabilities
    q = chain.generator.toarray()
    s = np.sqrt(pi)[:, None] * q / np.sqrt(pi)[None, :]
    return (s + s.T) / 2


def test_mm11_gap():
    chain = CTMC.from_function(0, lambda x: [(1, 1.0)] if x == 0 else [(0, 2.0)])
    assert spectral_gap(chain, 6.0).gap == pytest.approx(3.0, rel=1e-14, abs=0)


@pytest.mark.parametrize("q, beta", [(0.0, 1.0), (1.0, 0.5), (2.0, 0.2), (0.5, 2.0)])
def test_lemma1_bound_holds_on_the_paper_chain(q, beta):
    chain = dgp_chain(SMALL, PATH3, q, beta, reduce="none")
    actual = spectral_gap(chain, uniformization_rate(SMALL, PATH3)).relaxation_time
    assert math.log(actual) < log_relaxation_bound(SMALL, PATH3, q, beta)


def test_lemma1_constants_by_hand():
    xi = 2 * (1.0 + 12 * 1.0)
    assert uniformization_rate(FIGURE1_CLUSTER, FIGURE1_JOB) == xi
    configurations = 1 + math.perm(12, 5) + math.perm(12, 5) * math.perm(7, 5) // 2
    log_k0 = 12 * math.log(1.0) + math.log(1.0) - math.log(configurations) - 2 * math.lgamma(13)
    assert log_mixing_constant(FIGURE1_CLUSTER, FIGURE1_JOB) == pytest.approx(log_k0, rel=1e-14, abs=0)
    bound = math.log(2 * xi**2) - 2 * log_k0 + 2 * 13 / 0.5 * (1.5 + 5.0)     # b_max = 5
    assert log_relaxation_bound(FIGURE1_CLUSTER, FIGURE1_JOB, 1.5, 0.5) == pytest.approx(bound, rel=1e-14, abs=0)
    two = [GraphJob(3, [(0, 1)], 0.5, 2.0), GraphJob(2, [(0, 1)], 3.0, 0.5)]
    k0 = 5 * math.log(0.25 / 6.0) + math.log(0.5) - state_space(Cluster([3, 2]), two).log_configuration_count - 2 * math.lgamma(6)
    assert log_mixing_constant(Cluster([3, 2]), two) == pytest.approx(k0, rel=1e-14, abs=0)


def test_errors():
    with pytest.raises(InvalidParameterError, match="reduce = 'all': must be one of"):
        dgp_chain(SMALL, PATH3, 1.0, 0.5, reduce="all")
    with pytest.raises(InvalidParameterError, match="must be >= 0 for Lemma 1"):
        log_relaxation_bound(SMALL, PATH3, -1.0, 0.5)
    with pytest.raises(InvalidParameterError, match="xi = 0: must be positive"):
        spectral_gap(loss_chain(SMALL, PATH3), 0.0)


@pytest.mark.parametrize("call,match", [
    (lambda: P.lump(P.state_space(P.Cluster([2, 2]), P.GraphJob(2, [(0, 1)], 1.0, 1.0)), [(0, [0, 0])]),
     r"^configuration = .*: must be \(type in 0..0, slot of each node\) pairs, one per template: template = "),
    # clock_rate e^(q/β) = e^(10^18): the arrival rates of ADGP's chain overflow
    (lambda: P.adgp_chain(P.Cluster([2, 2]), P.GraphJob(2, [(0, 1)], 1.0, 1.0), 1.0, 10**18, 1.0),
     r"^queue_weights = 1000000000000000000: over beta = 1 give arrival rates"),
    (lambda: P.lump(P.state_space(P.Cluster([2, 2]), P.GraphJob(2, [(0, 1)], 1.0, 1.0)), [(0, (0, 2)), (0, (0, 3))]),
     r"^configuration = .*: slot 0 is in two templates \(the templates of a configuration are disjoint\)$"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()
