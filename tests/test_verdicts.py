"""The numbers behind the list of where the papers do not hold (docs/papers/), each from an independent reference.

Every statement of that list is a row of ``analytic reproduce`` (checked by test_reproduce.py to come
out as documented); the tests here keep the numbers the documentation quotes, computed a second way.
"""

import math
from fractions import Fraction

import numpy as np
import pytest

from analytic.fairness.paper import SIZE_LAWS
from analytic.hesrpt import flow_time, optimal_makespan
from analytic.moldable import occupancy_lp
from analytic.speedup import SpeedUp
from analytic.splitting import balanced_partition, critical_system, figure1_classes, figure1_need_scale, stability_margin


def test_theorem1_ii_two_optima_at_a_collinear_speedup():
    """Ghanbarian et al., Thm 1 (ii): s = (1, 1.75, 2.5), λ = 0.875. Reference: HiGHS's optimum of (P), and
    both points checked for feasibility and objective in exact rationals."""
    lam, s = Fraction(7, 8), (Fraction(1), Fraction(7, 4), Fraction(5, 2))
    optimum = occupancy_lp(SpeedUp([1, 1.75, 2.5]), 0.875).mean_time
    for y in ((0, Fraction(1, 2), 0), (Fraction(1, 4), 0, Fraction(1, 4))):
        assert sum(si * yi for si, yi in zip(s, y, strict=True)) == lam         # all arrivals served
        assert sum((i + 1) * yi for i, yi in enumerate(y)) == 1                # every server busy
        assert sum(y) / lam == Fraction(4, 7)
    assert optimum == pytest.approx(4 / 7, rel=1e-12, abs=0)


def _psi_below_one(k: int) -> bool:
    """Section 3.3 with exact integers: ψ^(k) < 1 iff at x = 1 fewer than max_i n_i servers are left."""
    classes = figure1_classes(figure1_need_scale(k))
    total = sum(c.demand for c in classes)
    used = sum(math.floor(Fraction(k) * c.demand / (c.need * total)) * c.need for c in classes)
    return k - used < max(c.need for c in classes)


def test_eq15_psi_below_one_recurs_at_every_scale():
    """Anselmi & Doncel, eq. (15): of 100 k log-spaced over 1e6..1e18, the documentation says 51 have ψ < 1, the
    largest 5.7e17. Reference: the exact-integer criterion above, against balanced_partition's bisection."""
    ks = [int(k) for k in np.unique(np.round(np.logspace(6, 18, 100)))]
    below = [k for k in ks if _psi_below_one(k)]
    assert [balanced_partition(k, figure1_classes(figure1_need_scale(k))).psi < 1 for k in ks] == \
        [k in below for k in ks]
    assert len(below) == 51 and below[-1] == pytest.approx(5.7e17, rel=0.01, abs=0)


def test_section42_left_side_of_5_grows_like_sqrt_k_over_f():
    """Anselmi & Doncel, Sec. 4.2 under scaling (8): the left side of (5) is 7.95, 22.4, 90.4 at k = 2^20,
    2^30, 2^40; the documentation's explanation, growth like √(k/f_k), predicts the growth over the twenty
    doublings within 10 % (|H| moves with the floors, so single steps scatter more)."""
    ks = (2**20, 2**30, 2**40)
    margins = []
    for k in ks:
        system = critical_system(k, figure1_need_scale(k), 0.7, figure1_classes())
        margins.append(stability_margin(system.servers, system.arrival_rate, system.classes).margin)
    assert margins == pytest.approx([7.95, 22.4, 90.4], rel=5e-3, abs=0)
    scale = [math.sqrt(k / figure1_need_scale(k)) for k in ks]
    assert math.log(margins[-1] / margins[0]) == pytest.approx(math.log(scale[-1] / scale[0]), rel=0.1, abs=0)


def test_theorem2_makespan_carries_one_over_s_of_n():
    """Berg et al., Thm 2: heLRPT's makespan, evaluated event by event, is ||X||_(1/p) / N^p (not ||X||_(1/p))."""
    x, p = np.array([3.0, 1.0, 2.0, 0.5]), 0.6
    norm = float(np.sum(x ** (1 / p)) ** p)
    for n in (1.0, 10.0, 1e6):
        evaluated = flow_time(x, "helrpt", p, n).completion_times.max()
        assert evaluated == pytest.approx(norm / n**p, rel=1e-12, abs=0)
        assert optimal_makespan(x, p, n) == pytest.approx(norm / n**p, rel=1e-12, abs=0)


def test_hyperexponential_standard_deviation_is_sqrt_7_4():
    """Bonald & Comte, Sec. 5: σ1 = 5, σ2 = 1/5, p1 = 1/6 has E[X] = 1, E[X²] = 2(p1σ1² + p2σ2²) = 8.4 (hand)."""
    law = SIZE_LAWS["hyperexponential"]
    assert law.mean == pytest.approx(1.0, rel=1e-15, abs=0)
    assert law.variance == pytest.approx(7.4, rel=1e-14, abs=0)
    assert math.sqrt(7.4) == pytest.approx(2.7203, abs=5e-5)          # docs: 2.72, not 2.05
