"""analytic.intervals.Interval, and the three certified results that return it.

References: the intervals are checked against values known in closed form — M/M/1's P(X = 0) = 1/2 at
λ = 1, μ = 2; M/M/2's E[R] = 4/3 at load 1/2 (Erlang C); greedy(p) with one allocation size against
Erlang B by its recursion in mpmath.
"""

import mpmath
import pytest
import sympy

from analytic.ctmc import PopulationModel, stationary_bounds
from analytic.ctmc.bounds import Interval as BoundsInterval
from analytic.intervals import Interval
from analytic.moldable import greedy_bounds
from analytic.speedup import SpeedupTable
from analytic.splitting import RigidClass, fcfs_bounds


def test_an_interval_is_a_tuple():
    interval = Interval(0.25, 0.75)
    low, high = interval
    assert (low, high) == (0.25, 0.75) and interval[0] == 0.25 and interval[1] == 0.75
    assert interval == (0.25, 0.75) and isinstance(interval, tuple) and len(interval) == 2
    assert Interval(high=2.0, low=1.0).low == 1.0


def test_width_midpoint_and_contains():
    interval = Interval(1.0, 1.5)
    assert interval.width == 0.5 and interval.midpoint == 1.25
    assert 1.0 in interval and 1.5 in interval and 1.2 in interval
    assert 0.999 not in interval and 1.5000001 not in interval


def test_repr_shows_twelve_significant_digits():
    assert repr(Interval(1 / 3, 2 / 3)) == "[0.333333333333, 0.666666666667]"


def test_the_ctmc_module_reexports_the_same_type():
    assert BoundsInterval is Interval


def test_stationary_bounds_return_intervals():
    """M/M/1, λ = 1, μ = 2: P(X = 0) = 1/2."""
    x = sympy.Symbol("x")
    bounds = stationary_bounds(PopulationModel([x], [((1,), 1.0), ((-1,), 2.0)]), {"empty": 1 - sympy.Min(x, 1)})
    assert isinstance(bounds["empty"], Interval) and 0.5 in bounds["empty"]
    assert bounds.width == bounds["empty"].width


def test_greedy_bounds_return_intervals():
    """A linear speed-up, p on 4 servers, n = 20: Erlang's loss system with 5 slots at load 20 λ / 4 (mpmath)."""
    bounds = greedy_bounds(SpeedupTable.linear(4), 0.9, 20, p="greedy")
    with mpmath.workdps(50):
        load, blocking = mpmath.mpf(20) * 0.9 / 4, mpmath.mpf(1)
        for k in range(1, 6):
            blocking = load * blocking / (k + load * blocking)
    assert isinstance(bounds.blocking, Interval) and isinstance(bounds.mean_response_time, Interval)
    assert float(blocking) in bounds.blocking and 0.25 in bounds.mean_response_time
    assert bounds.width == max(bounds.blocking.width, bounds.mean_response_time.width)


def test_fcfs_bounds_return_intervals_and_both_widths():
    """M/M/2 at load 1/2: E[R] = 4/3 (Erlang C); width is absolute as everywhere, relative_width what the
    width argument bounds (E[R]'s width over its upper end, P(wait)'s absolute)."""
    bounds = fcfs_bounds(2, [RigidClass(1, 1.0, 1.0)], 1.0, width=1e-6)
    assert isinstance(bounds.response_time, Interval) and isinstance(bounds.wait_probability, Interval)
    assert 4 / 3 in bounds.response_time and 1 / 3 in bounds.wait_probability
    assert bounds.width == max(bounds.response_time.width, bounds.wait_probability.width)
    assert bounds.relative_width == max(bounds.response_time.width / bounds.response_time.high,
                                        bounds.wait_probability.width)
    assert bounds.relative_width <= 1e-6


def test_a_shifted_interval_does_not_contain_the_exact_value():
    """The containment checks above can fail: the E[R] interval moved by twice its width misses 4/3."""
    interval = fcfs_bounds(2, [RigidClass(1, 1.0, 1.0)], 1.0).response_time
    shifted = Interval(interval.low + 2 * interval.width + 1e-15, interval.high + 2 * interval.width + 1e-15)
    assert 4 / 3 in interval and 4 / 3 not in shifted


@pytest.mark.parametrize("low,high", [(0.0, 0.0), (-1.0, 2.0), (1e-300, 1e300)])
def test_width_is_high_minus_low(low, high):
    assert Interval(low, high).width == high - low
