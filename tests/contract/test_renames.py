"""Renamed public names (issue 32's vocabulary) keep their old name for one release, with a warning.

Each old name must give the very object of its new name and warn with
:class:`~analytic.errors.AnalyticDeprecationWarning` naming the new one; CHANGELOG.md must list it.
"""

from __future__ import annotations

import importlib
import operator
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from analytic._deprecation import renamed_arguments, renamed_attribute
from analytic.errors import AnalyticDeprecationWarning, InvalidParameterError
from analytic.fairness import CompatibilityGraph
from analytic.fairness.paper import FIGURES
from analytic.simulation import Estimate, SerialExecutor, exponential
from analytic.speedup import SpeedupTable
from analytic.splitting import RigidClass, figure2_heavy_traffic

#: A small compatibility graph (two classes sharing server 2) for the fairness simulators.
_GRAPH = CompatibilityGraph([[0, 2], [1, 2]])

#: (module, old name, new name)
RENAMED = [
    ("analytic.partitioning", "theorem2_bounds", "dgp_bounds"),
    ("analytic.partitioning", "Theorem2Bounds", "DGPBounds"),
    ("analytic.partitioning", "theorem2_conditions", "dgp_conditions"),
    ("analytic.partitioning", "Theorem2Conditions", "DGPConditions"),
    ("analytic.partitioning", "corollary1_parameters", "dgp_parameters"),
    ("analytic.partitioning", "Corollary1Parameters", "DGPParameters"),
    ("analytic.partitioning", "corollary2", "weight_gap_bound"),
    ("analytic.partitioning", "Corollary2", "WeightGapBound"),
    ("analytic.partitioning", "lemma1_log_k0", "log_mixing_constant"),
    ("analytic.partitioning", "lemma1_log_bound", "log_relaxation_bound"),
    ("analytic.hesrpt", "SymbolicCheck", "ClosedFormCheck"),
    ("analytic.fairness.three_servers", "SymbolicCheck", "ThreeServerCheck"),
    ("analytic.hesrpt", "as_speedup", "analytic.speedup.as_curve"),
    ("analytic.hesrpt.speedups", "as_speedup", "analytic.speedup.as_curve"),
    ("analytic.hesrpt.speedups", "ConcaveSpeedup", "analytic.speedup.SpeedupCurve"),
    ("analytic.hesrpt", "ConcaveSpeedup", "analytic.speedup.SpeedupCurve"),
    ("analytic.speedup", "SpeedUp", "SpeedupTable"),
    ("analytic.speedup", "ConcaveSpeedup", "SpeedupCurve"),
    ("analytic.moldable", "JobClass", "MoldableClass"),
    ("analytic.moldable.heterogeneous", "JobClass", "MoldableClass"),
    ("analytic.splitting", "JobClass", "RigidClass"),
    ("analytic.splitting.classes", "JobClass", "RigidClass"),
    ("analytic.splitting", "Stability", "StabilityMargin"),
    ("analytic.splitting.bounds", "Stability", "StabilityMargin"),
    ("analytic.splitting", "theorem1_limit", "zero_wait_response_time"),
    ("analytic.splitting", "theorem2_limit", "critical_helper_limit"),
    ("analytic.splitting.limits", "theorem1_limit", "zero_wait_response_time"),
    ("analytic.splitting.limits", "theorem2_limit", "critical_helper_limit"),
    ("analytic.erlang", "erlang_b_load", "erlang_b_offered_load"),
    ("analytic.hesrpt", "FIGURE4_P", "FIGURE4_EXPONENTS"),
    ("analytic.hesrpt.comparison", "FIGURE4_P", "FIGURE4_EXPONENTS"),
    ("analytic.moldable.paper", "TABLE1_MEAN_TIME", "TABLE1_MEAN_RESPONSE_TIME"),
    ("analytic.moldable.greedy", "GreedyMetrics", "analytic.moldable.metrics.GreedyMetrics"),
    ("analytic.moldable.greedy", "greedy_metrics", "analytic.moldable.metrics.greedy_metrics"),
    *[("analytic.partitioning.configurations", name, f"analytic.partitioning.counting.{name}")
      for name in ["ClassTable", "ConfigurationCount", "class_table", "configuration_count", "machine_symmetries"]],
]

#: (module, function, old keyword, new keyword, the other arguments and the value passed, 0.5 unless given):
#: the old keyword gives the same result.
RENAMED_ARGUMENTS = [
    ("analytic.hesrpt", "scale_free_constants", "p", "exponent", {"m": 4}),
    ("analytic.hesrpt", "hesrpt_allocation", "p", "exponent", {"m": 4}),
    ("analytic.hesrpt", "hesrpt_flow_time", "p", "exponent", {"sizes": [1.0, 2.0], "servers": 10}),
    ("analytic.hesrpt", "helrpt_allocation", "p", "exponent", {"sizes": [1.0, 2.0]}),
    ("analytic.hesrpt", "optimal_makespan", "p", "exponent", {"sizes": [1.0, 2.0], "servers": 10}),
    *[("analytic.moldable", name, "arrival_rate", "rate_per_server", {"speedup": SpeedupTable([1.0, 1.8]), **others})
      for name, others in [("optimal_occupancy", {}), ("occupancy_lp", {}), ("greedy_chain", {"servers": 4}),
                           ("greedy_metrics", {"servers": 4}), ("greedy_bounds", {"servers": 4}),
                           ("kkt_residual", {"y": [0.5, 0.0], "nu": 1.0, "theta0": 0.0}),
                           ("simulate_moldable", {"servers": 4, "arrivals": 4000, "seed": 1})]],
    ("analytic.moldable", "simulate_moldable", "jobs", "arrivals",
     {"speedup": SpeedupTable([1.0, 1.8]), "rate_per_server": 0.5, "servers": 4, "seed": 1, "value": 4000}),
    ("analytic.moldable", "simulate_moldable", "mean_time_of", "response_time_of",
     {"speedup": SpeedupTable([1.0, 1.8]), "rate_per_server": 0.5, "servers": 4, "arrivals": 4000, "seed": 1,
      "value": "completed"}),
    ("analytic.moldable.paper", "table1_simulation", "jobs", "arrivals_per_replication",
     {"speedup": SpeedupTable([1.0, 1.8]), "alpha": 0.5, "beta": 0.1, "law": "exponential", "replications": 1,
      "seed": 1, "value": 4000}),
    ("analytic.moldable.paper", "table1_simulation", "runs", "replications",
     {"speedup": SpeedupTable([1.0, 1.8]), "alpha": 0.5, "beta": 0.1, "law": "exponential",
      "arrivals_per_replication": 4000, "seed": 1, "value": 1}),
    ("analytic.fairness", "simulate_interruptions", "jobs", "arrivals",
     {"graph": _GRAPH, "arrival_rates": [0.5, 0.5], "seed": 1, "value": 4000}),
    ("analytic.fairness", "simulate_random_assignment", "jobs", "arrivals",
     {"servers": 4, "d": 2, "arrival_rate": 1.0, "seed": 1, "value": 4000}),
    ("analytic.fairness.paper", "simulate_point", "jobs", "arrivals",
     {"figure": FIGURES[1], "load": 0.5, "law": "exponential", "interruptions": 1.0, "seed": 1, "value": 4000}),
    ("analytic.moldable", "MoldableClass", "arrival_rate", "rate_per_server", {"speedup": [1.0, 1.8]}),
    *[("analytic.erlang", name, "load", "offered_load", others) for name, others in [
        ("erlang_b", {"servers": 3}), ("log_erlang_b", {"servers": 3}), ("erlang_c", {"servers": 3}),
        ("loss_occupancy", {"servers": 3, "busy": 1}), ("erlang_b_servers", {"target": 0.1})]],
    ("analytic.erlang", "halfin_whitt_delay", "beta", "theta", {}),
    ("analytic.splitting", "gittins_rank", "law", "size", {"ages": [0.0, 1.0], "value": exponential(2.0)}),
    ("analytic.splitting.policies", "gittins_table", "law", "size", {"points": 8, "value": exponential(2.0)}),
    ("analytic.ctmc", "lattice_bytes", "states", "n_states", {"dimension": 2, "moves": 4, "value": 1000}),
    ("analytic.ctmc", "solve_bytes", "states", "n_states", {"entries": 5000, "value": 1000}),
    ("analytic.memory", "require", "states", "n_states", {"bytes_needed": 1e3, "what": "a small chain", "value": 10}),
    ("analytic.simulation", "coverage_band", "runs", "replications", {"value": 200}),
    ("analytic.splitting", "simulate_multiserver", "jobs", "arrivals",
     {"policy": "bs-fcfs", "servers": 4, "classes": [RigidClass(1, 1.0, 1.0)], "arrival_rate": 1.0, "seed": 1, "value": 2000}),
    ("analytic.splitting", "sweep", "jobs", "arrivals",
     {"systems": figure2_heavy_traffic(32, (0.5,)), "policies": ("fcfs",), "executor": SerialExecutor(), "value": 2000}),
]

#: (a result, its old attribute, the new one)
def _stationary_bounds() -> object:
    import sympy

    from analytic.ctmc import PopulationModel, stationary_bounds

    x = sympy.Symbol("x")
    return stationary_bounds(PopulationModel([x], [((1,), 1.0), ((-1,), 2.0)]), {"empty": 1 - sympy.Min(x, 1)})


def _sweep_point() -> object:
    from analytic.fairness.paper import figure_sweep

    return figure_sweep([1], ["exponential"], [0.0], [0.5], 20_000, seed=3)[0]


def _graph_job() -> object:
    from analytic.partitioning import GraphJob

    return GraphJob(2, [(0, 1)], arrival_rate=1.5, service_rate=0.5)


def _policy_comparison() -> object:
    from analytic.hesrpt import compare_policies

    return compare_policies(exponents=(0.5,), servers=10, jobs=3, seeds=(0,), policies=("hesrpt", "equi"))


def _moldable(name: str) -> Callable[[], object]:
    import analytic.moldable as moldable

    calls = {"GreedyMetrics": lambda: moldable.greedy_metrics([1.0, 1.8], 0.5, 4),
             "GreedyBounds": lambda: moldable.greedy_bounds([1.0, 1.8], 0.5, 4),
             "Occupancy": lambda: moldable.optimal_occupancy([1.0, 1.8], 0.5),
             "SteinBounds": lambda: moldable.stein_bounds([1.0, 1.8], 100, 0.5, 1.0),
             "MoldableSimulation": lambda: moldable.simulate_moldable(SpeedupTable([1.0, 1.8]), 0.5, 4, arrivals=4000,
                                                                      seed=1),
             "MoldableClass": lambda: moldable.MoldableClass([1.0, 1.8], 0.5),
             "LPOptimum": lambda: moldable.occupancy_lp([1.0, 1.8], 0.5),
             "HeterogeneousOptimum": lambda: moldable.heterogeneous_optimum([moldable.MoldableClass([1.0, 1.8], 0.5)])}
    return calls[name]


def _fcfs_bounds() -> object:
    from analytic.splitting import RigidClass, fcfs_bounds

    return fcfs_bounds(2, [RigidClass(1, 1.0, 1.0)], 1.0)


def _multiserver() -> object:
    from analytic.splitting import simulate_multiserver

    return simulate_multiserver("bs-fcfs", 4, [RigidClass(1, 1.0, 1.0)], 1.0, arrivals=2000, seed=1)


def _sweep() -> object:
    from analytic.splitting import sweep

    return sweep(figure2_heavy_traffic(32, (0.5,)), ("fcfs",), arrivals=2000, executor=SerialExecutor())


def _partitioning() -> object:
    from analytic.partitioning import simulate_max_weight
    from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB

    return simulate_max_weight(FIGURE1_CLUSTER, FIGURE1_JOB, 1.0, 1.0, time=200.0, seed=1)


def _interruptions() -> object:
    from analytic.fairness import simulate_interruptions

    return simulate_interruptions(_GRAPH, [0.5, 0.5], arrivals=4000, seed=1)


def _fairness_results() -> list[Callable[[], object]]:
    import analytic.fairness as fairness

    return [lambda: fairness.oi_queue_law(_GRAPH, [1.0, 1.0], 6, interruptions=5.0),
            lambda: fairness.balanced_fairness(_GRAPH, [1.0, 1.0]),
            lambda: fairness.whittle_network(fairness.processor_sharing(1.0), [0.25, 0.25], 8, log=True),
            lambda: fairness.random_assignment(4, 2, 1.0)]


def _spectral_gap() -> object:
    from analytic.ctmc import CTMC
    from analytic.partitioning import spectral_gap

    return spectral_gap(CTMC.from_function(0, lambda x: [(1, 1.0)] if x == 0 else [(0, 2.0)]), xi=6.0)


RENAMED_ATTRIBUTES = [(_policy_comparison, "p", "exponents"),
                      *[(_moldable(name), "arrival_rate", "rate_per_server")
                        for name in ["GreedyMetrics", "GreedyBounds", "Occupancy", "SteinBounds", "MoldableSimulation",
                                     "MoldableClass"]],
                      (_moldable("GreedyBounds"), "states", "n_states"), (_fcfs_bounds, "states", "n_states"),
                      (_spectral_gap, "states", "n_states"),
                      *[(_moldable("MoldableSimulation"), old, new) for old, new in [
                          ("jobs", "arrivals"), ("blocking_ci", "blocking.half_width"),
                          ("mean_time_ci", "mean_response_time.half_width"), ("mean_time", "mean_response_time"),
                          ("mean_occupancy_ci", "mean_occupancy.half_width")]],
                      *[(_interruptions, old, new) for old, new in [
                          ("jobs", "arrivals"), ("mean_jobs_ci", "mean_jobs.half_width"),
                          ("mean_delay_ci", "mean_response_time.half_width"), ("mean_delay", "mean_response_time"),
                          ("mean_service_rate_ci", "mean_service_rate.half_width")]],
                      *[(_multiserver, old, new) for old, new in [
                          ("jobs", "arrivals"), *[(f"{name}_ci", f"{name}.half_width") for name in [
                              "mean_response_time", "wait_probability", "helper_probability", "helper_service_probability",
                              "mean_jobs"]]]],
                      (_sweep, "jobs", "arrivals"),
                      *[(_partitioning, old, new) for old, new in [
                          ("cost", "expected_cost"), ("templates", "expected_templates"), ("cost_estimate", "expected_cost"),
                          ("cost_ci", "expected_cost.half_width"), ("templates_ci", "expected_templates.half_width"),
                          *[(f"{name}_ci", f"{name}.half_width") for name in [
                              "queue", "actual", "actual_cost", "cost_law", "throughput", "interruptions"]]]],
                      *[(_moldable(name), "mean_time", "mean_response_time")
                        for name in ["GreedyMetrics", "GreedyBounds", "Occupancy", "LPOptimum", "HeterogeneousOptimum"]],
                      (_moldable("SteinBounds"), "mean_time_gap", "mean_response_time_gap"),
                      (_moldable("SteinBounds"), "mean_time_gap_single", "mean_response_time_gap_single"),
                      *[(call, "mean_delay", "mean_response_time") for call in _fairness_results()],
                      (_graph_job, "load", "offered_load"), (_stationary_bounds, "states", "n_states"),
                      (_sweep_point, "relative_gap_ci", "relative_gap.half_width"),
                      (_sweep_point, "exact_delay", "exact_response_time")]

CHANGELOG = " ".join((Path(__file__).parents[2] / "CHANGELOG.md").read_text().split())   # lines joined


@pytest.mark.parametrize(("module", "old", "new"), RENAMED)
def test_old_name_warns_and_gives_the_new_object(module: str, old: str, new: str) -> None:
    package = importlib.import_module(module)
    home, _, name = new.rpartition(".") if "." in new else (module, "", new)
    with pytest.warns(AnalyticDeprecationWarning, match=rf"{module}\.{old} is renamed {home}\.{name}\b"):
        value = getattr(package, old)
    assert value is getattr(importlib.import_module(home), name)
    assert old not in package.__all__ and name in importlib.import_module(home).__all__
    assert re.search(rf"`([\w.]+\.)?{old}` → `([\w.]+\.)?{name}`", CHANGELOG), f"CHANGELOG.md lists no rename {old} → {new}"


def _same(first: object, second: object) -> bool:
    import numpy as np

    return repr(first) == repr(second) if not isinstance(first, np.ndarray) else np.array_equal(first, second)


@pytest.mark.parametrize(("module", "function", "old", "new", "others"), RENAMED_ARGUMENTS)
def test_old_keyword_warns_and_means_the_same(module: str, function: str, old: str, new: str, others: dict) -> None:
    call = getattr(importlib.import_module(module), function)
    others = dict(others)
    value = others.pop("value", 0.5)
    with pytest.warns(AnalyticDeprecationWarning, match=rf"argument {old} of {function}(\.__init__)? is renamed {new}\b"):
        before = call(**others, **{old: value})
    assert _same(before, call(**others, **{new: value}))
    assert f"`{old}` → `{new}`" in CHANGELOG


@pytest.mark.parametrize(("make", "old", "new"), RENAMED_ATTRIBUTES)
def test_old_attribute_warns_and_reads_the_new_one(make, old: str, new: str) -> None:
    result = make()
    with pytest.warns(AnalyticDeprecationWarning, match=rf"\.{old} is renamed {new}\b"):
        value = getattr(result, old)
    assert _same(value, operator.attrgetter(new)(result))  # new may be a path: "blocking.half_width"
    assert f"`{type(result).__name__}.{old}` → `{new}`" in CHANGELOG


def test_servers_of_halfin_whitt_blocking_by_position_warns():
    """halfin_whitt_blocking(theta, servers) read the reverse of erlang_b(servers, offered_load): swapped, it gave
    0.0 silently. servers is keyword-only now; by position it still works for one release."""
    from analytic.erlang import halfin_whitt_blocking

    with pytest.warns(AnalyticDeprecationWarning, match=r"servers of halfin_whitt_blocking passed by position: write servers="):
        assert halfin_whitt_blocking(0.5, 100) == halfin_whitt_blocking(0.5, servers=100)
    with pytest.raises(TypeError, match="takes 2 arguments by position at most"):
        halfin_whitt_blocking(0.5, 100, 3)
    assert "`halfin_whitt_blocking(theta, servers)` → `halfin_whitt_blocking(theta, servers=...)`" in CHANGELOG


def test_region_form_and_envelope_with_the_thresholds_warn_and_mean_the_same():
    """A region holds its corner now: the thresholds argument of version 0.1 is dropped, and warns."""
    import sympy

    from analytic.ctmc import PopulationModel
    from analytic.ctmc.regions import region_envelope, region_form, regions

    x, y = sympy.symbols("x y")
    model = PopulationModel([x, y], [((1, 0), 10 / (1 + y**2)), ((-1, 0), x), ((0, 1), 1), ((0, -1), y)])
    thresholds, found = regions(model, [sympy.Min(x, 3) + y])
    for function, expression in [(region_form, sympy.Min(x, 3) + y), (region_envelope, 10 / (1 + y**2))]:
        called = rf"{function.__name__}\(model, region, thresholds, expression\) is now"
        with pytest.warns(AnalyticDeprecationWarning, match=called):
            old = function(model, found[-1], thresholds, expression)
        assert old == function(model, found[-1], expression)
        with pytest.raises(TypeError, match="takes model, region and expression"):
            function(model, found[-1], expression, expression)
        assert f"`{function.__name__}(model, region, thresholds, expression)`" in CHANGELOG


def test_an_unknown_name_is_still_an_attribute_error() -> None:
    import analytic.partitioning

    with pytest.raises(AttributeError, match="no attribute 'theorem3_bounds'"):
        analytic.partitioning.theorem3_bounds  # noqa: B018


def test_renamed_argument() -> None:
    @renamed_arguments(beta="theta")
    def limit(theta: float) -> float:
        return 2 * theta

    with pytest.warns(AnalyticDeprecationWarning, match="argument beta of .*limit is renamed theta"):
        assert limit(beta=0.5) == 1.0
    assert limit(theta=0.5) == 1.0   # the new name does not warn (warnings are errors in this suite)
    with pytest.raises(InvalidParameterError, match="beta.*not given together with theta"):
        limit(beta=0.5, theta=0.5)


def test_renamed_attribute() -> None:
    class Result:
        n_states = 7
        states = renamed_attribute("n_states")

    with pytest.warns(AnalyticDeprecationWarning, match="Result.states is renamed n_states"):
        assert Result().states == 7
    assert isinstance(Result.states, renamed_attribute)

    class Simulated:
        blocking = Estimate(0.25, 0.01, 0.95, "batch means", 20)
        helpers = None        # an optional estimate, absent
        blocking_ci = renamed_attribute("blocking.half_width")
        helpers_ci = renamed_attribute("helpers.half_width")

    with pytest.warns(AnalyticDeprecationWarning, match=r"Simulated.blocking_ci is renamed blocking\.half_width"):
        assert Simulated().blocking_ci == 0.01
    with pytest.warns(AnalyticDeprecationWarning):
        assert Simulated().helpers_ci is None
