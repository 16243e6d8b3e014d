"""Tests of analytic.moldable.heterogeneous: (Q) through (Q1)–(Q2) against the direct LP.

References: the LP (Q) solved directly by HiGHS and by cvxpy (Clarabel); Theorem 1 for one class.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.errors import InvalidParameterError
from analytic.moldable import JobClass, heterogeneous_lp, heterogeneous_optimum, optimal_occupancy
from analytic.speedup import SpeedUp


@st.composite
def job_classes(draw):
    count = draw(st.integers(1, 3))
    loads = np.array(draw(st.lists(st.floats(0.02, 1.0), min_size=count, max_size=count)))
    loads *= draw(st.floats(0.05, 1.0)) / loads.sum()          # total load <= 1
    classes = []
    for load in loads:
        increments = np.sort(draw(st.lists(st.floats(0.01, 1.0), min_size=0, max_size=5)))[::-1]
        speedup = SpeedUp(np.cumsum(np.concatenate([[1.0], increments])))
        size = draw(st.floats(0.2, 5.0))
        classes.append(JobClass(speedup, float(load / size), size))
    return classes


@settings(max_examples=40, deadline=None)
@given(job_classes())
def test_q1_q2_matches_the_lp_and_is_feasible(classes):
    closed = heterogeneous_optimum(classes)
    for solver in ("highs", "cvxpy"):
        assert heterogeneous_lp(classes, solver).mean_time == pytest.approx(closed.mean_time, abs=1e-9)
    assert closed.reserved.sum() <= 1 + 1e-12
    for c, y, p, b in zip(classes, closed.y, closed.p, closed.reserved, strict=True):
        assert y.min() >= 0
        assert c.speedup.values @ y == pytest.approx(c.load, rel=1e-12)
        assert c.speedup.servers @ y == pytest.approx(b, rel=1e-12)
        assert p.sum() == pytest.approx(1.0, abs=1e-12)
        assert np.count_nonzero(y) <= 2                              # state-space collapse per class


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0.01, 1.0), max_size=6), st.floats(0.01, 1.0))
def test_one_class_is_theorem1(raw, lam):
    speedup = SpeedUp(np.cumsum(np.concatenate([[1.0], np.sort(raw)[::-1]])))
    closed = heterogeneous_optimum([JobClass(speedup, lam)])
    single = optimal_occupancy(speedup, lam)
    assert closed.mean_time == pytest.approx(single.mean_time, rel=1e-12)
    if single.unique:
        assert closed.y[0] == pytest.approx(single.y, abs=1e-12)


def test_spare_capacity_goes_to_the_steepest_class():
    """Linear class at 0.3 keeps width 5 (b = 0.3); the sub-linear one gets the rest (b = 0.7)."""
    fast, slow = JobClass(SpeedUp.linear(5), 0.3), JobClass(SpeedUp([1, 1.8, 2.5, 3, 3.4]), 0.5)
    closed = heterogeneous_optimum([fast, slow])
    assert closed.reserved == pytest.approx([0.3, 0.7], abs=1e-14)
    highs = heterogeneous_lp([fast, slow])
    for a, b in zip(closed.y, highs.y, strict=True):
        assert a == pytest.approx(b, abs=1e-12)


@pytest.mark.parametrize("call,match", [
    (lambda: heterogeneous_optimum([]), r"classes = \[\]: must be a non-empty sequence of JobClass"),
    (lambda: heterogeneous_optimum([JobClass(SpeedUp.linear(2), 0.6), JobClass(SpeedUp.linear(2), 0.5)]),
     r"total load Σ ρ_j = 1.1 must be <= 1"),
    (lambda: JobClass(SpeedUp.linear(2), -0.1), r"arrival_rate = -0.1: must be positive and finite"),
    (lambda: JobClass(SpeedUp.linear(2), 0.1, float("inf")), r"mean_size = inf: must be positive and finite"),
    (lambda: JobClass([1, 2], 0.1), r"speedup = \[1, 2\]: must be a SpeedUp"),
    (lambda: heterogeneous_lp([JobClass(SpeedUp.linear(2), 0.5)], solver="simplex"), r"solver = 'simplex'"),
])
def test_errors(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()
