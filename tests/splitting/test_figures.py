"""Tests of analytic.splitting.figures at the ends of the double range.

References: f_k = ⌊(k/32)^(2/3)⌋ and the loads of Figure 1 evaluated with mpmath at 50 digits; the
arrival rates λ = ρ k / ϱ in exact rational arithmetic (fractions.Fraction).
"""

import math
import sys
from fractions import Fraction

import mpmath as mp
import pytest

from analytic.errors import InvalidParameterError
from analytic.splitting import (
    RigidClass,
    figure1_load,
    figure1_systems,
    figure2_heavy_traffic,
    figure2_subcritical,
    figure3_systems,
)

#: The largest server count: the largest float, as an int.
LARGEST_K = int(sys.float_info.max)


@pytest.mark.parametrize("call", [
    lambda k: figure1_load(k),
    lambda k: figure1_systems((32, k)),
    lambda k: figure2_heavy_traffic(k, (0.5,)),
    lambda k: figure2_subcritical(0.8, (32, k)),
    lambda k: figure3_systems([RigidClass(1, 1.0, 1.0)], k, (0.5,)),
], ids=["figure1_load", "figure1_systems", "figure2_heavy_traffic", "figure2_subcritical", "figure3_systems"])
@pytest.mark.parametrize("k", [LARGEST_K + 1, 10**400])
def test_servers_beyond_the_largest_float_are_refused(call, k):
    with pytest.raises(InvalidParameterError, match=r"^servers = 1\d+\.\.\.: must be at most 1\.798e\+308 \(the largest float\)"):
        call(k)


def test_figure1_load_at_many_servers():
    """Scaling (8b) at k = 10^30 against mpmath: 1 - 0.7 √(f_k/k), f_k = ⌊(k/32)^(2/3)⌋."""
    mp.mp.dps = 50
    k = 10**30
    f = int(mp.floor(mp.cbrt((mp.mpf(k) / 32) ** 2)))
    assert figure1_load(k) == pytest.approx(float(1 - mp.mpf("0.7") * mp.sqrt(mp.mpf(f) / k)), rel=1e-15, abs=0)


def test_figure1_load_that_rounds_to_one_is_refused():
    """At k = 1.8e308, 0.7 √(f_k/k) is about 10^-52: the load 1 - 10^-52 is 1.0 in doubles, not in (0, 1)."""
    with pytest.raises(InvalidParameterError, match=r"^theta = 0.7: gives the load 1 - \S+ at k = 1\.79769e\+308 "
                                                    r"\(scaling \(8b\)\): it must lie in \(0, 1\) in double precision$"):
        figure1_load(LARGEST_K)


@pytest.mark.parametrize("call", [
    lambda loads: figure2_heavy_traffic(256, loads),
    lambda loads: figure3_systems([RigidClass(1, 1.0, 1.0)], 8, loads),
], ids=["figure2_heavy_traffic", "figure3_systems"])
@pytest.mark.parametrize("loads", [(0.5, 1.0), (0.5, 1.7e308), (0.0,)])
def test_loads_outside_the_unit_interval_are_refused(call, loads):
    """A load of 1.7e308 gave an infinite arrival rate; at 1 or above no policy is stable (eq. 1)."""
    with pytest.raises(InvalidParameterError, match=r"^loads = .*: must lie in \(0, 1\): a load ρ = λ ϱ / k of eq. \(1\)"):
        call(loads)


def test_arrival_rate_beyond_the_floats_is_refused():
    """λ = ρ k / ϱ = 0.5 · 10^300 / 10^-10 is beyond the floats; at k = 10^300 and ϱ = 1 it is 5·10^299."""
    system = figure3_systems([RigidClass(1, 1.0, 1.0)], 10**300, (0.5,))[0]
    assert system.arrival_rate == pytest.approx(float(Fraction(10**300, 2)), rel=1e-15, abs=0)
    with pytest.raises(InvalidParameterError, match=r"^servers = 1\d+\.\.\.: gives the arrival rate ρ k / ϱ = 0.5 k / 1e-10 "
                                                    r"beyond the largest float$"):
        figure3_systems([RigidClass(1, 1.0, 1e-10)], 10**300, (0.5,))


def test_figure2_subcritical_load_at_the_bottom_of_the_doubles():
    """ρ/ϱ (ϱ = 99/20, Figure 1's classes) must be a normal double: 5e-324 made it 0 and the error named
    arrival_rate; just above 2**-1022 ϱ the system is λ^(k) = ρ k / (f_k ϱ) (k = 32, f_k = 1)."""
    for load in (5e-324, 2.2e-308, 1.1e-307):
        with pytest.raises(InvalidParameterError, match=r"^load = \S+: must be at least 2\*\*-1022 ϱ = 1\.10141e-307 "
                                                        r"\(ϱ = 4\.95\): the base arrival rate ρ / ϱ of scaling \(7\)"):
            figure2_subcritical(load, (32,))
    system = figure2_subcritical(1.2e-307, (32,))[0]
    assert system.arrival_rate == pytest.approx(float(Fraction(1.2e-307) * 32 / Fraction(99, 20)), rel=1e-15, abs=0)
    assert system.load == pytest.approx(1.2e-307, rel=1e-15, abs=0)


def test_sweep_holds_the_estimates_of_its_runs():
    """Sweep.mean_response_time is the runs' estimates (value and half-width, policy by system); the old names warn."""
    from analytic.errors import AnalyticDeprecationWarning
    from analytic.simulation import SerialExecutor
    from analytic.splitting import figure2_heavy_traffic, sweep

    sw = sweep(figure2_heavy_traffic(32, (0.5, 0.6)), ("fcfs", "bs-fcfs"), arrivals=2000, executor=SerialExecutor())
    estimates = sw.mean_response_time
    for p, policy in enumerate(sw.policies):
        for i in range(len(sw.systems)):
            assert estimates[p, i] == sw.result(policy, i).mean_response_time
    with pytest.warns(AnalyticDeprecationWarning, match=r"Sweep\.mean_response_time_ci is renamed mean_response_time\."):
        assert sw.mean_response_time_ci.tolist() == estimates.half_width.tolist()
    with pytest.warns(AnalyticDeprecationWarning, match=r"Sweep\.jobs is renamed arrivals"):
        assert sw.jobs == sw.arrivals == 2000


@pytest.mark.parametrize("call,match", [
    (lambda: __import__("analytic.splitting", fromlist=["x"]).figure2_heavy_traffic(256, [0.5, math.nan]),
     r"^loads = \[0.5, nan\]: must be finite: nan at index \(1,\)$"),
    (lambda: __import__("analytic.splitting", fromlist=["x"]).figure3_systems([], 8),
     r"^classes = \[\]: must be a non-empty sequence of RigidClass$"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()
