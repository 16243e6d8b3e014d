"""Tests of analytic.fairness.paper (Section 5's settings; its rows run in tests/test_reproduce.py).

References: the loads defined in Section 5 (ρ = (λ_1 + λ_2)σ/Σμ, ρ = λσ/S); the size laws' moments
in closed form for sums of exponential phases (Var = ς²(E[N] + Var N)); eqs. (10)-(11) as printed.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from analytic.fairness import three_server_rates
from analytic.fairness.paper import FIGURES, SIZE_LAWS, exact_point, figure_rates, figure_sweep


def test_loads_of_section_5():
    for number in (1, 2):
        rates = figure_rates(FIGURES[number], 0.7, mean_size=2.0)
        assert rates[0] == rates[1]
        assert rates.sum() * 2.0 / sum(FIGURES[number].capacities) == pytest.approx(0.7, rel=1e-15, abs=0)
    assert figure_rates(FIGURES[4], 0.7, mean_size=2.0)[0] * 2.0 / 100 == pytest.approx(0.7, rel=1e-15, abs=0)


def test_size_laws_of_section_5():
    """Sums of N exponential phases of mean ς: E = ς E[N], Var = ς² (E[N] + Var N)."""
    k = np.arange(1, 201)
    p = k ** -2.0 / (k ** -2.0).sum()
    count_mean, count_var = p @ k, p @ k ** 2 - (p @ k) ** 2
    zipf = SIZE_LAWS["zipf"]
    assert zipf.mean == pytest.approx(count_mean, rel=1e-13, abs=0)
    assert zipf.variance == pytest.approx(count_mean + count_var, rel=1e-12, abs=0)
    bimodal = SIZE_LAWS["bimodal"]
    assert bimodal.mean == pytest.approx(1.0, rel=1e-14, abs=0)
    assert bimodal.variance == pytest.approx(0.04 * (5 + 80), rel=1e-13, abs=0)
    assert SIZE_LAWS["hyperexponential"].second_moment == pytest.approx(2 * (25 / 6 + 5 / 6 / 25), rel=1e-14, abs=0)


def test_exact_points():
    rate, delay = exact_point(FIGURES[1], 0.5)
    assert rate == pytest.approx(three_server_rates((1, 1, 1), figure_rates(FIGURES[1], 0.5)), rel=1e-13, abs=0)
    assert delay == pytest.approx(1 / rate, rel=1e-15, abs=0)
    rate, delay = exact_point(FIGURES[3], 0.5, mean_size=3.0)
    assert rate.shape == (1,) and delay[0] == pytest.approx(3.0 / rate[0], rel=1e-15, abs=0)


def test_sweep_gives_the_same_numbers_through_an_executor():
    args = ([1, 3], ["bimodal"], [1.0], [0.4], 5_000)
    serial = figure_sweep(*args, seed=8)
    with ThreadPoolExecutor(2) as pool:
        threaded = figure_sweep(*args, seed=8, executor=pool)
    assert [p.simulation.mean_delay.tolist() for p in serial] == [p.simulation.mean_delay.tolist() for p in threaded]
    assert [p.figure for p in serial] == [1, 3]
    point = serial[0]
    assert point.relative_gap == pytest.approx(point.simulation.mean_service_rate / point.exact_rate - 1, rel=1e-15, abs=0)
