"""Renamed public names (issue 32's vocabulary) keep their old name for one release, with a warning.

Each old name must give the very object of its new name and warn with
:class:`~analytic.errors.AnalyticDeprecationWarning` naming the new one; CHANGELOG.md must list it.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from analytic._deprecation import renamed_arguments, renamed_attribute
from analytic.errors import AnalyticDeprecationWarning, InvalidParameterError

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
    ("analytic.hesrpt.speedups", "ConcaveSpeedup", "analytic.speedup.ConcaveSpeedup"),
]

CHANGELOG = " ".join((Path(__file__).parents[1] / "CHANGELOG.md").read_text().split())   # lines joined


@pytest.mark.parametrize(("module", "old", "new"), RENAMED)
def test_old_name_warns_and_gives_the_new_object(module: str, old: str, new: str) -> None:
    package = importlib.import_module(module)
    home, _, name = new.rpartition(".") if "." in new else (module, "", new)
    with pytest.warns(AnalyticDeprecationWarning, match=rf"{module}\.{old} is renamed {home}\.{name}\b"):
        value = getattr(package, old)
    assert value is getattr(importlib.import_module(home), name)
    assert old not in package.__all__ and name in importlib.import_module(home).__all__
    assert f"`{old}` → `{name}`" in CHANGELOG or f"`{module}.{old}` → `{new}`" in CHANGELOG, \
        f"CHANGELOG.md lists no rename {old} → {new}"


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
