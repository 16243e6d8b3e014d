"""Certified intervals for FCFS (analytic.splitting.certified.fcfs_bounds).

References, each computed independently of the truncation: Erlang C in closed form
(analytic.erlang.erlang_c, itself tested against mpmath) for one class needing c of k servers, which
is an M/M/⌊k/c⌋ queue; for two classes the exact lumped chain of analytic.splitting.chains solved
with a cap of 300 waiting jobs, far beyond where the stationary mass is, its truncation error
bounded through the fraction of arrivals it loses at the cap.
"""

import math

import pytest

import analytic.splitting.certified as certified
from analytic.ctmc.truncation import Drift
from analytic.erlang import erlang_c
from analytic.errors import InvalidParameterError, StateSpaceTooLargeError, UnstableSystemError
from analytic.splitting import FCFSBounds, RigidClass, exact_multiserver, fcfs_bounds, fcfs_saturation

#: k = 4 servers; classes needing 1 and 4 servers (FCFS saturates at λ = 1.784, load 0.714).
SERVERS = 4
CLASSES = (RigidClass(1, 0.8, 1.0), RigidClass(4, 0.2, 1.0))


def _contains(interval, value, slack=0.0):
    return interval[0] - slack <= value <= interval[1] + slack


def _exact(arrival_rate, max_waiting=300):
    """E[R] and P(wait) of the truncated exact chain, with a bound on the effect of its cap: an arrival
    is lost with probability ``lost``, and what it would bring is at most ``max_waiting + k`` jobs."""
    exact = exact_multiserver("fcfs", SERVERS, CLASSES, arrival_rate, max_waiting=max_waiting)
    slack = 1e-9 + exact.lost_fraction * (max_waiting + SERVERS) / arrival_rate
    return exact, slack


@pytest.mark.parametrize("arrival_rate", [0.3, 1.4, 2.7])
def test_one_class_is_erlang_c(arrival_rate):
    """One class needing 2 of 7 servers, unit mean size: M/M/3, E[R] = 1 + C / (3 - λ), P(wait) = C."""
    bounds = fcfs_bounds(7, [RigidClass(2, 1.0, 1.0)], arrival_rate)
    wait = float(erlang_c(3, arrival_rate))
    assert _contains(bounds.wait_probability, wait)
    assert _contains(bounds.response_time, 1 + wait / (3 - arrival_rate))
    assert bounds.relative_width <= 1e-8


def test_one_class_with_unequal_rates_is_erlang_c():
    """Mean size 2 on 5 servers needing 1: M/M/5 with offered load 2 λ; the default width is met."""
    bounds = fcfs_bounds(5, [RigidClass(1, 1.0, 2.0)], 2.0)
    wait = float(erlang_c(5, 4.0))
    assert _contains(bounds.response_time, 2 + wait / (5 * 0.5 - 2.0))      # W_q = C / (k μ - λ)
    assert _contains(bounds.wait_probability, wait)


def test_many_servers_is_erlang_c():
    """M/M/2000 at load 0.95: the empty queue would be a reference whose mean hitting times are too large
    to certify; the bounds still contain Erlang C."""
    bounds = fcfs_bounds(2000, [RigidClass(1, 1.0, 1.0)], 1900.0)
    wait = float(erlang_c(2000, 1900.0))
    assert _contains(bounds.response_time, 1 + wait / 100.0)
    assert _contains(bounds.wait_probability, wait)
    assert bounds.relative_width <= 1e-8


@pytest.mark.parametrize("arrival_rate", [1.0, 1.5])
def test_two_classes_contain_the_exact_chain(arrival_rate):
    bounds = fcfs_bounds(SERVERS, CLASSES, arrival_rate)
    exact, slack = _exact(arrival_rate)
    assert _contains(bounds.response_time, exact.mean_response_time, slack)
    assert _contains(bounds.wait_probability, exact.wait_probability, slack)
    assert bounds.relative_width <= 1e-8
    assert bounds.neglected_mass < 1e-8 and bounds.n_states > bounds.levels


def test_intervals_narrow_as_the_width_shrinks():
    """Each interval contains the exact value; the narrower ones lie inside the wider ones."""
    exact, slack = _exact(1.5)
    wide, narrow = fcfs_bounds(SERVERS, CLASSES, 1.5, width=1e-3), fcfs_bounds(SERVERS, CLASSES, 1.5, width=1e-8)
    assert narrow.relative_width < 1e-8 < 1e-5 < wide.relative_width <= 1e-3
    assert narrow.levels > wide.levels
    for name, value in (("response_time", exact.mean_response_time), ("wait_probability", exact.wait_probability)):
        outer, inner = getattr(wide, name), getattr(narrow, name)
        assert _contains(outer, value, slack) and _contains(inner, value, slack)
        assert outer[0] <= inner[0] <= inner[1] <= outer[1]


def test_a_shrunk_drift_bound_excludes_the_exact_value(monkeypatch):
    """The same small kept set with the drift's c divided by 10^6 (so ε and the tail of E[N] too):
    the truncation error is real there and the wrong intervals miss the exact value; the honest
    ones contain it."""
    exact, slack = _exact(1.5)
    honest = fcfs_bounds(SERVERS, CLASSES, 1.5, width=0.5)
    assert _contains(honest.response_time, exact.mean_response_time, slack)
    assert _contains(honest.wait_probability, exact.wait_probability, slack)

    def shrunk(*args, **kwargs):
        drift = level_drift(*args, **kwargs)
        return Drift(drift.inside / 1e6, drift.outside, drift.check, kept=drift.kept)

    level_drift = certified.level_drift
    monkeypatch.setattr(certified, "level_drift", shrunk)
    wrong = fcfs_bounds(SERVERS, CLASSES, 1.5, width=0.5)
    assert wrong.levels < honest.levels
    assert not _contains(wrong.response_time, exact.mean_response_time, slack)


def test_result_fields_and_repr():
    bounds = fcfs_bounds(8, [RigidClass(1, 0.6, 1.0), RigidClass(2, 0.4, 1.5)], 16 / 9, width=1e-6)
    assert isinstance(bounds, FCFSBounds)
    assert repr(bounds).startswith("FCFSBounds(response_time=[")
    assert 0 < bounds.theta and bounds.entry_cost > 0
    assert "D < 0 checked on each of the" in bounds.method


@pytest.mark.parametrize("width", [0.0, 1e-14, 1.0, math.nan, "narrow"])
def test_bad_width_is_refused(width):
    with pytest.raises(InvalidParameterError, match="width"):
        fcfs_bounds(SERVERS, CLASSES, 1.0, width=width)


def test_load_at_least_one_is_unstable():
    with pytest.raises(UnstableSystemError, match="load"):
        fcfs_bounds(SERVERS, CLASSES, 2.5)


def test_beyond_the_saturation_throughput_is_unstable():
    """Load 0.72 < 1, but FCFS serves at most λ_max = 1.784 (fcfs_saturation)."""
    with pytest.raises(UnstableSystemError, match="arrival rate"):
        fcfs_bounds(SERVERS, CLASSES, 1.8)


def test_too_close_to_saturation_is_refused():
    throughput = fcfs_saturation(SERVERS, CLASSES).throughput
    with pytest.raises(InvalidParameterError, match="too close to the saturation throughput"):
        fcfs_bounds(SERVERS, CLASSES, throughput * (1 - 1e-12))


def test_too_many_states_is_refused():
    with pytest.raises(StateSpaceTooLargeError):
        fcfs_bounds(SERVERS, CLASSES, 1.5, max_states=100)


def test_other_bad_input_is_refused():
    with pytest.raises(InvalidParameterError, match="phase-type"):
        fcfs_bounds(SERVERS, [RigidClass(1, 1.0, 1.0, size="deterministic")], 1.0)
    with pytest.raises(InvalidParameterError, match="max_states"):
        fcfs_bounds(SERVERS, CLASSES, 1.0, max_states=-1)
    with pytest.raises(InvalidParameterError, match="servers"):
        fcfs_bounds(3, CLASSES, 1.0)


def test_no_verified_drift_is_refused(monkeypatch):
    """When the check of D < 0 fails at every θ tried (here forced), the answer is a refusal, not an interval."""
    def failing(*args, **kwargs):
        raise InvalidParameterError("theta", args[2], "gives D >= 0 (forced by the test)")

    monkeypatch.setattr(certified, "level_drift", failing)
    with pytest.raises(InvalidParameterError, match="no verified drift condition"):
        fcfs_bounds(SERVERS, CLASSES, 1.0)


@pytest.mark.parametrize("classes", [CLASSES, (RigidClass(1, 0.5, 1.0), RigidClass(2, 0.5, 1.0))])
@pytest.mark.parametrize("rate", [5e-324, 2.2e-308])
def test_arrival_rate_too_small_for_the_solver_is_refused(classes, rate):
    """λ α_i below the normal doubles (0.5 · 5e-324 rounds to 0: both arrival rates vanished, a raw
    ZeroDivisionError before) or below 2**-1021 times the rate out of a full state: refused naming λ."""
    with pytest.raises(InvalidParameterError, match=r"^arrival_rate = \S+: is too small for an exact chain: .* at least "
                                                    r"2\*\*-1021 times 4(\.\d+)?, a bound on the total rate out of a state"):
        fcfs_bounds(SERVERS, classes, rate)


def test_servers_beyond_the_largest_float_are_refused():
    with pytest.raises(InvalidParameterError, match=r"^servers = 10+\.\.\.: must be at most 1\.798e\+308"):
        fcfs_bounds(10**400, CLASSES, 1.0)


@pytest.mark.slow
@pytest.mark.parametrize("load", [0.5, 0.9])
def test_three_classes_contain_the_exact_chain(load):
    """Needs 1, 2 and 4 of k = 8 servers with unequal mean sizes, at 0.5 and 0.9 of the FCFS saturation
    throughput (fcfs_saturation): the reference is the exact lumped chain capped at 300 waiting jobs,
    its cap's effect bounded through the arrivals it loses (as in _exact)."""
    classes = [RigidClass(1, 0.5, 1.0), RigidClass(2, 0.3, 2.0), RigidClass(4, 0.2, 0.5)]
    arrival_rate = load * fcfs_saturation(8, classes).throughput
    bounds = fcfs_bounds(8, classes, arrival_rate, width=1e-6)
    exact = exact_multiserver("fcfs", 8, classes, arrival_rate, max_waiting=300)
    slack = 1e-9 + exact.lost_fraction * (300 + 8) / arrival_rate
    assert _contains(bounds.response_time, exact.mean_response_time, slack)
    assert _contains(bounds.wait_probability, exact.wait_probability, slack)
    assert bounds.relative_width <= 1e-6
