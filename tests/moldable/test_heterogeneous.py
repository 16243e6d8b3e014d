"""Tests of analytic.moldable.heterogeneous: (Q) through (Q1)–(Q2) against the direct LP.

References: the LP (Q) solved directly by HiGHS and by cvxpy (Clarabel); for one class, the LP (P)
solved in this file by enumerating its vertices in exact rationals (independent of Theorem 1's code).
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from analytic.errors import ConvergenceError, InvalidParameterError
from analytic.moldable import MoldableClass, heterogeneous_lp, heterogeneous_optimum
from analytic.speedup import SpeedupCurve, SpeedupTable

#: Increments with exact ties (segments of equal slope in (Q1), several optima) and a wide range.
INCREMENTS = st.one_of(st.sampled_from([1.0, 0.75, 0.5, 0.25]), st.floats(1e-6, 1.0))


def speedups(max_size=5):
    return st.lists(INCREMENTS, min_size=0, max_size=max_size).map(
        lambda raw: SpeedupTable(np.cumsum(np.concatenate([[1.0], np.sort(raw)[::-1]]))))


@st.composite
def job_classes(draw):
    """1-3 classes; total load anywhere in (0, 1], exactly 1 (no spare capacity for (Q1)) included."""
    count = draw(st.integers(1, 3))
    loads = np.array(draw(st.lists(st.floats(0.02, 1.0), min_size=count, max_size=count)))
    target = draw(st.one_of(st.floats(0.05, 1.0), st.just(1.0)))
    loads *= target / loads.sum()
    while loads.sum() > target:                                 # rounding must not push the total above 1
        loads[-1] = np.nextafter(loads[-1], 0.0)
    classes = []
    for load in loads:
        size = draw(st.one_of(st.floats(0.2, 5.0), st.just(1.0)))
        classes.append(MoldableClass(draw(speedups()), float(load / size), size))
    assume(sum(Fraction(c.load) for c in classes) <= 1)         # load / size * size may round up
    return classes


def lp_p(speedup, lam):
    """The optimal value of (P), min (1/λ) Σ y s.t. Σ s_i y_i = λ, Σ i y_i <= 1, y >= 0, in exact rationals:
    the least over its vertices (at most two positive entries: y_i = λ/s_i alone, or two with both
    constraints tight)."""
    s, rate, values = [Fraction(v) for v in speedup.values], Fraction(lam), []
    for i in range(1, len(s) + 1):
        if i * rate <= s[i - 1]:
            values.append(rate / s[i - 1])
        for j in range(i + 1, len(s) + 1):
            det = s[i - 1] * j - s[j - 1] * i
            if det != 0 and (rate * j - s[j - 1]) / det >= 0 and (s[i - 1] - rate * i) / det >= 0:
                values.append((rate * (j - i) - s[j - 1] + s[i - 1]) / det)
    return float(min(values) / rate)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(job_classes())
def test_q1_q2_matches_the_lp_and_is_feasible(classes):
    """At total load 1, (Q) has no strictly feasible point and Clarabel may stop short: heterogeneous_lp
    must then say so (ConvergenceError, as documented); HiGHS always solves it, to round-off."""
    closed = heterogeneous_optimum(classes)
    assert heterogeneous_lp(classes, "highs").mean_response_time == pytest.approx(closed.mean_response_time, abs=1e-9)
    try:
        assert heterogeneous_lp(classes, "cvxpy").mean_response_time == pytest.approx(closed.mean_response_time, abs=1e-9)
    except ConvergenceError:
        assert sum(c.load for c in classes) > 1 - 1e-9
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
    closed = heterogeneous_optimum([MoldableClass(speedup, lam)])
    value = lp_p(speedup, lam)
    assert closed.mean_response_time == pytest.approx(value, rel=1e-12, abs=0)
    assert speedup.values @ closed.y[0] == pytest.approx(lam, rel=1e-13, abs=0)
    assert speedup.servers @ closed.y[0] <= 1 + 1e-14 and closed.y[0].min() >= 0


def test_spare_capacity_goes_to_the_steepest_class():
    """Linear class at 0.3 keeps width 5 (b = 0.3); the sub-linear one gets the rest (b = 0.7)."""
    fast, slow = MoldableClass(SpeedupTable.linear(5), 0.3), MoldableClass(SpeedupTable([1, 1.8, 2.5, 3, 3.4]), 0.5)
    closed = heterogeneous_optimum([fast, slow])
    assert closed.reserved == pytest.approx([0.3, 0.7], abs=1e-14)
    highs = heterogeneous_lp([fast, slow])
    for a, b in zip(closed.y, highs.y, strict=True):
        assert a == pytest.approx(b, abs=1e-12)


@pytest.mark.parametrize("call,match", [
    (lambda: heterogeneous_optimum([]), r"classes = \[\]: must be a non-empty sequence of MoldableClass"),
    (lambda: heterogeneous_optimum([MoldableClass(SpeedupTable.linear(2), 0.6), MoldableClass(SpeedupTable.linear(2), 0.5)]),
     r"total load Σ ρ_j = 1.1 must be <= 1 \(summed exactly, it exceeds 1 by 0.1\)"),
    # 0.4 + 0.6000000000000001 rounds to 1.0 in floats; in rationals it exceeds 1 by 2**-53 (1.11e-16)
    (lambda: heterogeneous_lp([MoldableClass(SpeedupTable.linear(2), 0.4),
                               MoldableClass(SpeedupTable.linear(2), 0.6000000000000001)]),
     r"^classes = \[0.4, 0.6000000000000001\]: total load Σ ρ_j = 1.0 must be <= 1 \(summed exactly, it exceeds 1 by "
     r"1.11e-16\)"),
    (lambda: MoldableClass(SpeedupTable.linear(2), -0.1), r"rate_per_server = -0.1: must be positive and finite"),
    (lambda: MoldableClass(SpeedupTable.linear(2), 0.1, float("inf")), r"mean_size = inf: must be positive and finite"),
    (lambda: MoldableClass("fast", 0.1), r"speedup = 'fast': must be a SpeedupTable"),
    (lambda: MoldableClass(SpeedupCurve.amdahl(0.5), 0.1), r"is a curve without a largest server count d"),
    (lambda: MoldableClass(SpeedupTable.linear(2), "0.1"), r"rate_per_server = '0.1': must be positive and finite"),
    (lambda: heterogeneous_lp([MoldableClass(SpeedupTable.linear(2), 0.5)], solver="simplex"), r"solver = 'simplex'"),
])
def test_errors(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


def test_a_total_load_of_exactly_one_is_accepted():
    """The doubles 0.4 and 0.6 sum to 1 exactly (Fraction arithmetic): (Q) is feasible with no spare capacity,
    each class on its own servers (b = ρ), y_2j = ρ_j / 2, E[D] = (0.2 + 0.3) / 1."""
    assert Fraction(0.4) + Fraction(0.6) == 1
    optimum = heterogeneous_optimum([MoldableClass(SpeedupTable.linear(2), 0.4), MoldableClass(SpeedupTable.linear(2), 0.6)])
    assert optimum.reserved == pytest.approx([0.4, 0.6], rel=1e-15, abs=0)
    assert optimum.mean_response_time == pytest.approx(0.5, rel=1e-15, abs=0)


def test_a_class_takes_any_form_of_its_table():
    """A class given by a list or by the interpolation of its table is the class of the table; (Q)'s
    optimum is the same, and for one class it is the LP (P)'s."""
    table = SpeedupTable([1, 1.8, 2.5, 3, 3.4])
    forms = [table, [1, 1.8, 2.5, 3, 3.4], SpeedupCurve.from_discrete(table)]
    classes = [MoldableClass(form, 0.5, 1.2) for form in forms]
    assert all(c.speedup == table for c in classes) and classes[1] == classes[0]
    optima = [heterogeneous_optimum([c]).mean_response_time for c in classes]
    assert optima == [optima[0]] * 3
    assert optima[0] == pytest.approx(lp_p(table, 0.6) * 0.6 / 0.5, rel=1e-12, abs=0)   # (1/λ) Σ y with load 0.6


@pytest.mark.parametrize("call,match", [
    (lambda: __import__("analytic.moldable", fromlist=["x"]).heterogeneous_optimum(None),
     r"^classes = None: must be a non-empty sequence of MoldableClass$"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()
