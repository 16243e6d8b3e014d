"""Renamed public names (issue 32's vocabulary) keep their old name for one release, with a warning.

Each old name must give the very object of its new name and warn with
:class:`~analytic.errors.AnalyticDeprecationWarning` naming the new one; CHANGELOG.md must list it.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from analytic._deprecation import renamed_arguments, renamed_attribute
from analytic.errors import AnalyticDeprecationWarning, InvalidParameterError
from analytic.simulation import exponential
from analytic.speedup import SpeedupTable

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
    ("analytic.hesrpt", "FIGURE4_P", "FIGURE4_EXPONENTS"),
    ("analytic.hesrpt.comparison", "FIGURE4_P", "FIGURE4_EXPONENTS"),
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
                           ("simulate_moldable", {"servers": 4, "jobs": 4000, "seed": 1})]],
    ("analytic.moldable", "MoldableClass", "arrival_rate", "rate_per_server", {"speedup": [1.0, 1.8]}),
    ("analytic.splitting", "gittins_rank", "law", "size", {"ages": [0.0, 1.0], "value": exponential(2.0)}),
    ("analytic.splitting.policies", "gittins_table", "law", "size", {"points": 8, "value": exponential(2.0)}),
]

#: (a result, its old attribute, the new one)
def _policy_comparison() -> object:
    from analytic.hesrpt import compare_policies

    return compare_policies(exponents=(0.5,), servers=10, jobs=3, seeds=(0,), policies=("hesrpt", "equi"))


def _moldable(name: str) -> Callable[[], object]:
    import analytic.moldable as moldable

    calls = {"GreedyMetrics": lambda: moldable.greedy_metrics([1.0, 1.8], 0.5, 4),
             "GreedyBounds": lambda: moldable.greedy_bounds([1.0, 1.8], 0.5, 4),
             "Occupancy": lambda: moldable.optimal_occupancy([1.0, 1.8], 0.5),
             "SteinBounds": lambda: moldable.stein_bounds([1.0, 1.8], 100, 0.5, 1.0),
             "MoldableSimulation": lambda: moldable.simulate_moldable(SpeedupTable([1.0, 1.8]), 0.5, 4, jobs=4000, seed=1),
             "MoldableClass": lambda: moldable.MoldableClass([1.0, 1.8], 0.5)}
    return calls[name]


RENAMED_ATTRIBUTES = [(_policy_comparison, "p", "exponents"),
                      *[(_moldable(name), "arrival_rate", "rate_per_server")
                        for name in ["GreedyMetrics", "GreedyBounds", "Occupancy", "SteinBounds", "MoldableSimulation",
                                     "MoldableClass"]]]

CHANGELOG = " ".join((Path(__file__).parents[1] / "CHANGELOG.md").read_text().split())   # lines joined


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
    assert value is getattr(result, new)
    assert f"`{type(result).__name__}.{old}` → `{new}`" in CHANGELOG


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
