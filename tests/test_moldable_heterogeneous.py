"""Tests of analytic.moldable.heterogeneous: (Q) through (Q1)–(Q2) against the direct LP.

References: the LP (Q) solved directly by HiGHS and by cvxpy (Clarabel); for one class, the LP (P)
written out in this file and solved by scipy's HiGHS (independent of Theorem 1's code).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from analytic.errors import InvalidParameterError
from analytic.moldable import JobClass, heterogeneous_lp, heterogeneous_optimum
from analytic.speedup import ConcaveSpeedup, SpeedUp

#: Increments with exact ties (segments of equal slope in (Q1), several optima) and a wide range.
INCREMENTS = st.one_of(st.sampled_from([1.0, 0.75, 0.5, 0.25]), st.floats(1e-6, 1.0))


def speedups(max_size=5):
    return st.lists(INCREMENTS, min_size=0, max_size=max_size).map(
        lambda raw: SpeedUp(np.cumsum(np.concatenate([[1.0], np.sort(raw)[::-1]]))))


@st.composite
def job_classes(draw):
    """1-3 classes; total load anywhere in (0, 1], exactly 1 (no spare capacity for (Q1)) included."""
    count = draw(st.integers(1, 3))
    loads = np.array(draw(st.lists(st.floats(0.02, 1.0), min_size=count, max_size=count)))
    loads *= draw(st.one_of(st.floats(0.05, 1.0), st.just(1.0))) / loads.sum()
    classes = []
    for load in loads:
        size = draw(st.one_of(st.floats(0.2, 5.0), st.just(1.0)))
        classes.append(JobClass(draw(speedups()), float(load / size), size))
    return classes


def lp_p(speedup, lam):
    """The optimal value of (P) by scipy's HiGHS, written out here: min (1/λ) Σ y s.t. Σ s_i y_i = λ, Σ i y_i <= 1."""
    result = linprog(np.full(speedup.d, 1 / lam), A_ub=[speedup.servers], b_ub=[1.0], A_eq=[speedup.values],
                     b_eq=[lam], bounds=(0, None), method="highs")
    assert result.status == 0
    return result.fun


@settings(max_examples=40, deadline=None)
@given(job_classes())
def test_q1_q2_matches_the_lp_and_is_feasible(classes):
    closed = heterogeneous_optimum(classes)
    for solver in ("highs", "cvxpy"):
        assert heterogeneous_lp(classes, solver).mean_time == pytest.approx(closed.mean_time, abs=1e-9)
    assert closed.reserved.sum() <= 1 + 1e-12
    for c, y, p, b in zip(classes, closed.y, closed.p, closed.reserved, strict=True):
        assert y.min() >= 0
        assert c.speedup.values @ y == pytest.approx(c.load, rel=1e-12, abs=0)
        assert c.speedup.servers @ y == pytest.approx(b, rel=1e-12, abs=0)
        assert p.sum() == pytest.approx(1.0, abs=1e-12)
        assert np.count_nonzero(y) <= 2                              # state-space collapse per class


@settings(max_examples=100, deadline=None)
@given(speedups(max_size=6), st.data())
def test_one_class_is_the_lp_p(speedup, data):
    """One class: (Q) is (P). λ anywhere in (0, 1], or exactly at an efficiency s_i/i (a breakpoint of f_1)."""
    lam = data.draw(st.one_of(st.floats(0.01, 1.0), st.sampled_from(speedup.efficiency.tolist())), label="lambda")
    closed = heterogeneous_optimum([JobClass(speedup, lam)])
    value = lp_p(speedup, lam)
    assert closed.mean_time == pytest.approx(value, rel=1e-12, abs=0)
    assert speedup.values @ closed.y[0] == pytest.approx(lam, rel=1e-13, abs=0)
    assert speedup.servers @ closed.y[0] <= 1 + 1e-14 and closed.y[0].min() >= 0


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
    (lambda: JobClass("fast", 0.1), r"speedup = 'fast': must be a SpeedUp"),
    (lambda: JobClass(ConcaveSpeedup.amdahl(0.5), 0.1), r"is a curve without a largest server count d"),
    (lambda: JobClass(SpeedUp.linear(2), "0.1"), r"arrival_rate = '0.1': must be positive and finite"),
    (lambda: heterogeneous_lp([JobClass(SpeedUp.linear(2), 0.5)], solver="simplex"), r"solver = 'simplex'"),
])
def test_errors(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()
