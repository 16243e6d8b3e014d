"""Tests of analytic.fairness.paper (Section 5's settings; its rows run in tests/contract/test_reproduce.py).

References: the loads defined in Section 5 (ρ = (λ_1 + λ_2)σ/Σμ, ρ = λσ/S); the size laws' moments
in closed form for sums of exponential phases (Var = ς²(E[N] + Var N)); eqs. (10)-(11) as printed.
"""

from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction

import numpy as np
import pytest

from analytic.errors import InvalidParameterError
from analytic.fairness import random_assignment, three_server_rates
from analytic.fairness.paper import FIGURES, SIZE_LAWS, exact_point, figure_rates, figure_sweep, simulate_point


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
    assert ([p.simulation.mean_response_time.value.tolist() for p in serial]
            == [p.simulation.mean_response_time.value.tolist() for p in threaded])
    assert [p.figure for p in serial] == [1, 3]
    point = serial[0]
    assert point.relative_gap.value == pytest.approx(point.simulation.mean_service_rate.value / point.exact_rate - 1,
                                                     rel=1e-15, abs=0)
    assert point.relative_gap.half_width == pytest.approx(point.simulation.mean_service_rate.half_width / point.exact_rate,
                                                          rel=1e-15, abs=0)


def test_exact_points_at_the_largest_mean_size():
    """σ = 1.7e308 at ρ = 0.5: 2σ overflowed and the rates came out 0 (the error named arrival_rates[0]). The rates
    are λ = ρΣμ/(2σ) rounded once from exact rationals; γ depends on λσ = ρΣμ/2 = 0.75 only (eqs. (10)-(11))."""
    sigma = 1.7e308
    rates = figure_rates(FIGURES[1], 0.5, sigma)
    assert rates == pytest.approx([float(Fraction(3, 4) / Fraction(sigma))] * 2, rel=1e-15, abs=0)
    rate, delay = exact_point(FIGURES[1], 0.5, mean_size=sigma)
    assert rate == pytest.approx(three_server_rates((1, 1, 1), [0.75, 0.75]), rel=1e-13, abs=0)
    assert delay == pytest.approx(sigma / rate, rel=1e-15, abs=0)
    # Figure 3: λσ = ρS = 50 whatever σ, so γ is that of unit sizes at λ = 50 (Section 5's ρ = λσ/S).
    rate, _ = exact_point(FIGURES[3], 0.5, mean_size=sigma)
    assert rate[0] == pytest.approx(random_assignment(100, 2, 50.0).mean_service_rate, rel=1e-13, abs=0)


@pytest.mark.parametrize("call,match", [
    # Rates beyond the double range name the one of ρ and σ farther from 1.
    (lambda: exact_point(FIGURES[1], 0.5, mean_size=5e-324),
     r"^mean_size = 4.94\d*e-324: with load = 0.5 gives arrival rates of about 1.5e\+323, beyond the double range"),
    (lambda: exact_point(FIGURES[1], 1.7e308), r"^load = 1.7e\+308: with mean_size = 1 gives arrival rates .* beyond"),
    (lambda: exact_point(FIGURES[1], 5e-324, mean_size=1.7e308), r"^load = .*: with mean_size = 1.7e\+308 .* below the"),
    # In a sweep each load is named by its position, and checked before any point is simulated.
    (lambda: figure_sweep([1], ["exponential"], [1.0], [0.5, 5e-324], 2000), r"^loads\[1\] = .*: is so small that 2000"),
    (lambda: figure_sweep([1], ["exponential"], [1.0], [2.2e-308], 2000), r"^loads\[0\] = 2.2e-308: is so small that"),
    (lambda: figure_sweep([1], ["exponential"], [1.0], [1.7e308], 2000), r"^loads\[0\] = 1.7e\+308: .* beyond the double"),
    # 10^18 arrivals at ρ = 0.5 (λσ = 1.5) span 6.7e17 mean sizes: the run's length is at fault, not the load.
    (lambda: figure_sweep([1], ["exponential"], [1.0], [0.5], 10**18),
     r"^arrivals = 1000000000000000000: must be at most 1.5e\+12 per replication"),   # check_horizon's name (clock.py)
    (lambda: figure_sweep([1], ["exponential"], [1.0], [0.5], 10**30), r"^arrivals = 10{30}: must be at most 1.5e\+12"),
    (lambda: figure_sweep([1], ["exponential"], [1.0], [0.5], 10**400), r"^arrivals = 10{100}.*: must be at most 1.5e\+12"),
    (lambda: simulate_point(FIGURES[1], 0.5, "exponential", 1.0, 10**400), r"^arrivals = 10{100}.*: must be at most"),
    (lambda: simulate_point(FIGURES[1], 0.5, "exponential", 10**400, 2000), r"^interruptions = 10{100}.*: must be at most"),
    (lambda: simulate_point(FIGURES[1], 1e-108, "exponential", 1.0, 2000), r"^load = 1e-108: is so small that 2000"),
])
def test_extreme_loads_sizes_and_counts_are_refused_naming_them(call, match):
    with pytest.raises(InvalidParameterError, match=match):
        call()


@pytest.mark.parametrize("call,match", [
    # found by a second wider exploration (60 random draws per callable)
    (lambda: __import__("analytic.fairness.paper", fromlist=["x"]).exact_point(
        __import__("analytic.fairness.paper", fromlist=["x"]).FIGURES[3], 5.99e307),
     r"^load = 5.99e\+307: with mean_size = 1 gives arrival rates of about 6e\+309, beyond the double range$"),
    (lambda: __import__("analytic.fairness.paper", fromlist=["x"]).figure_sweep([1], ["exponential"], [0.0], [0.0], 100),
     r"^loads\[0\] = 0: must be positive and finite$"),
    # at load 1e-108 the clock (1e111) no longer resolved a service time: delays 0, service rates NaN
    (lambda: __import__("analytic.fairness.paper", fromlist=["x"]).simulate_point(
        __import__("analytic.fairness.paper", fromlist=["x"]).FIGURES[1], 1e-108, "exponential", 1.0, 2000),
     r"^load = 1e-108: is so small that 2000 arrivals span more than 1e\+12 mean job sizes \(total arrival rate × mean "
     r"size 3e-108\), where the clock no longer resolves a service time$"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()
