"""Tests of the commands for Balanced Splitting, the multiserver-job queue, balanced fairness, graph
partitioning, ``simulate`` and ``compare``.

Each command's output is checked against the library function called directly (the command is
plumbing) and, where one exists, against an independent value: Erlang's loss formula by its
recursion in mpmath, the partition of eqs. (2a)-(2b) worked by hand, the M/M/2 queue's closed form,
a three-state saturated chain solved by hand, Theorem 1's load by enumeration of the sets of
classes, eqs. (10)-(11) as printed, Erlang's loss system M/M/2/2 behind γ, the LP solved by cvxpy,
and batch means computed with numpy and scipy.
"""

import itertools
import json

import mpmath
import numpy as np
import pytest
from scipy import stats

from analytic.cli import main
from analytic.fairness import balance_function, balanced_fairness, oi_queue_law, three_server_graph, three_server_rates
from analytic.moldable import simulate_moldable
from analytic.partitioning import Cluster, GraphJob, dgp_distribution, loss_distribution, static_partitioning
from analytic.simulation import SerialExecutor, compare
from analytic.speedup import SpeedupTable
from analytic.splitting import RigidClass, exact_multiserver, fcfs_saturation, simulate_multiserver

TWO_CLASSES = ["--class", "1:0.6:1", "--class", "2:0.4:1.5"]
CLASSES = (RigidClass(1, 0.6, 1.0), RigidClass(2, 0.4, 1.5))
FIGURE1 = ["--slots", "4", "4", "4", "--nodes", "5", "--edges", "0-1", "0-2", "1-3", "2-3", "3-4"]
GRAPH = ["--servers-of", "0,2", "1,2", "--capacities", "1", "1", "1"]


def run_json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def erlang_b(servers, load):
    """E_s(a) by the recursion E_k = a E_(k-1) / (k + a E_(k-1)) at 50 digits."""
    with mpmath.workdps(50):
        value = mpmath.mpf(1)
        for k in range(1, servers + 1):
            value = load * value / (k + load * value)
        return float(value)


def test_bs_partition_by_hand(capsys):
    """ϱ = 0.6 + 0.4·1.5·2 = 1.8 and c_i = k ϱ_i / (n_i ϱ) = 8/3 for both classes: at x = 1 the floors are
    2 and 2, so a = (2, 4), |H| = 8 - 6 = 2 = max n_i and ψ = 1; eq. (16) at load 0.4 (λ = 16/9) is
    0.6 E_2(16/15) + 0.4 E_2(16/15) = E_2(16/15)."""
    data = run_json(capsys, "bs-partition", "--servers", "8", *TWO_CLASSES, "--load", "0.4")
    assert data["partition"]["psi"] == pytest.approx(1.0, abs=1e-15)
    assert data["partition"]["reserved"] == [2, 4]
    assert data["partition"]["servers_per_class"] == [2, 2]
    assert data["partition"]["helpers"] == 2
    assert data["arrival_rate"] == pytest.approx(16 / 9, abs=1e-14)
    assert data["helper_probability_bound"] == pytest.approx(erlang_b(2, 16 / 15), abs=1e-14)


def test_bs_partition_text_of_the_sdsc_model(capsys):
    from analytic.splitting import SDSC_SP2, balanced_partition, helper_probability_bound

    assert main(["bs-partition", "--servers", "1024", "--classes", "sdsc-sp2"]) == 0
    out = capsys.readouterr().out
    partition = balanced_partition(1024, SDSC_SP2)
    assert f"psi = {partition.psi:.12g}" in out and f"helpers |H| = {partition.helpers}" in out
    assert "eq. (16)" not in out  # no load given: the partition only
    rate = 0.5 * 1024 / float(sum(c.demand for c in SDSC_SP2))
    data = run_json(capsys, "bs-partition", "--servers", "1024", "--classes", "sdsc-sp2", "--load", "0.5")
    assert data["helper_probability_bound"] == pytest.approx(helper_probability_bound(1024, rate, SDSC_SP2), abs=1e-15)


def test_multiserver_exact_fcfs_is_the_mm2_queue(capsys):
    """One class of single-server jobs under FCFS is M/M/2: at ρ = 1/2, P(wait) = 2ρ²/(1 + ρ) = 1/3 and
    E[R] = 1 + P(wait)/(2 - λ) = 4/3 (truncation at 60 waiting jobs loses 2^-60)."""
    data = run_json(capsys, "multiserver-exact", "fcfs", "--servers", "2", "--class", "1:1:1", "--load", "0.5")
    assert data["wait_probability"] == pytest.approx(1 / 3, abs=1e-12)
    assert data["mean_response_time"] == pytest.approx(4 / 3, abs=1e-12)


@pytest.mark.slow
def test_multiserver_exact_passes_method_and_tolerance(capsys):
    data = run_json(capsys, "multiserver-exact", "bs-fcfs", "--servers", "8", *TWO_CLASSES, "--load", "0.4",
                    "--max-waiting", "10", "--method", "direct", "--tolerance", "1e-6")
    exact = exact_multiserver("bs-fcfs", 8, CLASSES, 16 / 9, max_waiting=10, method="direct", tolerance=1e-6)
    assert data["mean_response_time"] == pytest.approx(exact.mean_response_time, abs=1e-12)
    assert data["helper_probability"] == pytest.approx(exact.helper_probability, abs=1e-12)
    assert data["n_states"] == exact.n_states
    assert main(["multiserver-exact", "fcfs", "--servers", "2", "--class", "1:1:1", "--load", "0.5",
                 "--tolerance", "-1"]) == 2
    assert "tolerance = -1" in capsys.readouterr().err


def test_multiserver_saturation_by_hand(capsys):
    """k = 2, needs 1 and 2 with probability 1/2, unit means. Saturated FCFS has three states: a 2-job (B),
    two 1-jobs (AA), a 1-job with a 2-job blocked behind it (AB); B -> AA, AB at rate 1/4 each, AA -> AB at
    rate 1, AB -> B at rate 1: π = (4, 1, 2)/7, throughput 4/7 + 2·1/7 + 2/7 = 8/7, largest load
    (8/7)·1.5/2 = 6/7."""
    data = run_json(capsys, "multiserver-saturation", "--servers", "2", "--class", "1:0.5:1", "--class", "2:0.5:1",
                    "--method", "gth", "--tolerance", "1e-8")
    assert data["throughput"] == pytest.approx(8 / 7, abs=1e-12)
    assert data["max_load"] == pytest.approx(6 / 7, abs=1e-12)
    classes = [RigidClass(1, 0.8, 1.0), RigidClass(4, 0.2, 1.0)]
    assert main(["multiserver-saturation", "--servers", "4", "--class", "1:0.8:1", "--class", "4:0.2:1"]) == 0
    assert f"stable up to load {fcfs_saturation(4, classes).max_load:.12g}" in capsys.readouterr().out


def test_multiserver_simulate_prints_what_the_function_returns(capsys):
    data = run_json(capsys, "multiserver-simulate", "bs-fcfs", "--servers", "8", *TWO_CLASSES, "--load", "0.4",
                    "--arrivals", "20000", "--seed", "2")
    sim = simulate_multiserver("bs-fcfs", 8, CLASSES, 16 / 9, arrivals=20_000, seed=2)
    assert data["mean_response_time"] == pytest.approx(sim.mean_response_time.value, abs=1e-12)
    assert data["helper_probability_half_width"] == pytest.approx(sim.helper_probability.half_width, abs=1e-12)
    assert data["arrivals"] == 20_000
    assert data["seed"] == 2 and data["stationary"] is True


def test_fairness_stability_by_enumeration(capsys):
    """Theorem 1: the load is max over non-empty sets A of classes of λ(A)/μ(A), enumerated here."""
    server_sets, capacities, rates = [(0, 2), (1, 2)], [1.0, 0.5, 2.0], [2.5, 0.2]
    loads = {}
    for size in (1, 2):
        for classes in itertools.combinations(range(2), size):
            servers = set().union(*(server_sets[i] for i in classes))
            loads[classes] = sum(rates[i] for i in classes) / sum(capacities[s] for s in servers)
    data = run_json(capsys, "fairness-stability", "--servers-of", "0,2", "1,2", "--capacities", "1", "0.5", "2",
                    "--arrival-rates", "2.5", "0.2")
    assert data["load"] == pytest.approx(max(loads.values()), abs=1e-12)
    assert data["stable"] is True
    assert tuple(data["bottleneck"]) == max(loads, key=loads.get)
    assert main(["fairness-stability", *GRAPH, "--arrival-rates", "2.5", "0.2"]) == 0
    assert capsys.readouterr().out.startswith("load 1.25: unstable (Theorem 1)")


def test_fairness_metrics_against_equations_10_11(capsys):
    """The three-server system of Section 5: γ_i of the subset recursion against eqs. (10)-(11) as printed."""
    data = run_json(capsys, "fairness-metrics", *GRAPH, "--arrival-rates", "1", "0.6")
    printed = three_server_rates((1, 1, 1), (1.0, 0.6))
    assert data["balanced_fairness"]["mean_service_rate"] == pytest.approx(printed.tolist(), abs=1e-12)
    exact = balanced_fairness(three_server_graph(), [1.0, 0.6])
    assert data["balanced_fairness"]["mean_jobs"] == pytest.approx(exact.mean_jobs.tolist(), abs=1e-15)


def test_fairness_chain_against_the_balance_function(capsys):
    """With exponential sizes the truncated job-sequence chain has the aggregate law π̄ of recursion (4)
    on the same truncation, for any number of interruptions (Bonald & Comte, eqs. 2-3)."""
    data = run_json(capsys, "fairness-metrics", *GRAPH, "--arrival-rates", "1", "1", "--max-jobs", "6",
                    "--interruptions", "5", "--method", "gth", "--tolerance", "1e-9")
    phi = balance_function(three_server_graph(), [1.0, 1.0], 6)
    mean_jobs = phi.probabilities() @ phi.states
    assert data["chain"]["mean_jobs"] == pytest.approx(mean_jobs.tolist(), abs=1e-12)
    law = oi_queue_law(three_server_graph(), [1.0, 1.0], 6, 5.0, method="gth", tolerance=1e-9)
    assert data["chain"]["n_states"] == law.n_states
    assert main(["fairness-metrics", *GRAPH, "--arrival-rates", "1", "1", "--max-jobs", "6", "--tolerance", "0"]) == 2
    assert "tolerance = 0" in capsys.readouterr().err


def test_graph_gamma_is_erlang_loss_of_two_jobs(capsys):
    """Two 5-node jobs always fit in 12 slots and a third never does: under γ the number of jobs is that of
    Erlang's M/M/2/2 at load 1, whose mean is 1 - E_2(1) = 0.8."""
    data = run_json(capsys, "graph-gamma", *FIGURE1)
    assert data["expected_templates"] == pytest.approx([1 - erlang_b(2, 1.0)], abs=1e-14)
    assert data["states"] == 105 and data["configurations"] == 119_845_441  # Section 2's count (reproduce row)
    law = loss_distribution(Cluster([4, 4, 4]), GraphJob(5, [(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)], 1.0, 1.0))
    assert data["expected_cost"] == pytest.approx(law.expected_cost, abs=1e-15)
    assert sum(data["cost_law"]["probabilities"]) == pytest.approx(1.0, abs=1e-14)


def test_graph_pi_star_prints_what_the_function_returns(capsys):
    data = run_json(capsys, "graph-pi-star", *FIGURE1, "--queue-weights", "1.5", "--beta", "0.1")
    job = GraphJob(5, [(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)], 1.0, 1.0)
    law = dgp_distribution(Cluster([4, 4, 4]), job, queue_weights=1.5, beta=0.1)
    assert data["expected_cost"] == pytest.approx(law.expected_cost, abs=1e-15)
    assert data["expected_templates"] == pytest.approx(law.expected_templates.tolist(), abs=1e-15)


def test_graph_static_highs_against_cvxpy(capsys):
    highs = run_json(capsys, "graph-static", *FIGURE1)
    cvxpy = run_json(capsys, "graph-static", *FIGURE1, "--solver", "cvxpy")
    assert highs["cost"] == pytest.approx(cvxpy["cost"], abs=1e-6)
    job = GraphJob(5, [(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)], 1.0, 1.0)
    assert highs["cost"] == pytest.approx(static_partitioning(Cluster([4, 4, 4]), job).cost, abs=1e-15)


def test_simulate_against_erlang_b(capsys):
    data = run_json(capsys, "simulate", "--servers", "10", "--load", "7", "--size", "pareto", "--arrivals", "40000",
                    "--seed", "1")
    assert data["exact"] == pytest.approx(erlang_b(10, 7.0), abs=1e-15)
    sim = simulate_moldable(SpeedupTable([1.0]), 0.7, 10, size="pareto", arrivals=40_000, seed=1, executor=SerialExecutor())
    assert data["value"] == pytest.approx(sim.blocking.value, abs=1e-15)
    assert data["verdict"] == compare(sim.blocking, erlang_b(10, 7.0)).verdict


def test_compare_observations_by_batch_means(tmp_path, capsys):
    """z = (mean - exact) / (s / √b) over b = 5 batch means, p-value from Student's t with b - 1 degrees."""
    values = np.random.default_rng(3).exponential(1.0, 1000)
    path = tmp_path / "responses.txt"
    path.write_text("\n".join(repr(float(v)) for v in values))
    data = run_json(capsys, "compare", "--exact", "1", "--observations", str(path), "--batches", "5")
    means = values.reshape(5, 200).mean(axis=1)
    z = (means.mean() - 1.0) / (means.std(ddof=1) / np.sqrt(5))
    assert data["z"] == pytest.approx(z, abs=1e-10)
    assert data["p_value"] == pytest.approx(2 * stats.t.sf(abs(z), 4), abs=1e-10)


def test_compare_an_estimate(capsys):
    data = run_json(capsys, "compare", "--exact", "0.0267", "--estimate", "0.028", "--half-width", "0.001",
                    "--samples", "20")
    z = 0.0013 / (0.001 / stats.t.ppf(0.975, 19))
    assert data["z"] == pytest.approx(z, abs=1e-9)
    assert data["verdict"] == "disagrees"
