"""Tests of random_assignment (Figures 3-4 without the C(S, d) classes).

References: balanced_fairness on the explicit graph of all C(S, d) classes (subset recursion,
independent code); the M/M/1 queue of rate S (d = S) and S independent M/M/1 queues (d = 1);
work conservation (mean number of busy servers = λσ); the hypergeometric law of the overlap and
C(u, d)/C(S, d) in exact rationals (math.comb).
"""

import importlib
import math
from fractions import Fraction

import numpy as np
import pytest

from analytic.errors import InvalidParameterError, UnstableSystemError
from analytic.fairness import balanced_fairness, random_assignment, random_assignment_graph
from analytic.fairness.random_assignment import _overlap, _stay_probability

random_assignment_module = importlib.import_module("analytic.fairness.random_assignment")


@pytest.mark.parametrize("servers,d,load", [(4, 2, 0.5), (5, 2, 0.9), (6, 2, 0.3), (5, 3, 0.7), (5, 3, 0.95), (6, 4, 0.6)])
def test_matches_the_explicit_classes(servers, d, load):
    graph = random_assignment_graph(servers, d)
    classes = math.comb(servers, d)
    total = load * servers
    explicit = balanced_fairness(graph, np.full(classes, total / classes))
    result = random_assignment(servers, d, total)
    assert result.mean_jobs == pytest.approx(explicit.mean_jobs.sum(), rel=1e-12, abs=0)
    assert result.probability_empty == pytest.approx(explicit.probability_empty, rel=1e-12, abs=0)
    assert result.mean_service_rate == pytest.approx(explicit.mean_service_rate, rel=1e-12, abs=0)


@pytest.mark.parametrize("servers", [1, 3, 100, 10**5])
def test_extreme_d_are_mm1_queues(servers):
    """d = S pools every server (an M/M/1 queue of rate S), d = 1 splits them (S M/M/1 queues); d = S = 10^5 was
    refused as needing 74.5 GiB, an estimate of d arrays of S values where the recursion holds five."""
    rho = 0.85
    pooled = random_assignment(servers, servers, rho * servers)
    assert pooled.mean_jobs == pytest.approx(rho / (1 - rho), rel=1e-12, abs=0)
    separate = random_assignment(servers, 1, rho * servers)
    assert separate.mean_jobs == pytest.approx(servers * rho / (1 - rho), rel=1e-12, abs=0)


@pytest.mark.parametrize("d", [2, 3])
def test_busy_servers_conserve_work_and_rates_stay_below_d(d):
    for rho in (0.1, 0.5, 0.95):
        result = random_assignment(100, d, 100 * rho / 2.0, mean_size=2.0)
        assert result.busy_servers.sum() == pytest.approx(1.0, rel=1e-13, abs=0)
        assert result.busy_servers @ np.arange(101) == pytest.approx(100 * rho, rel=1e-12, abs=0)
        assert 0 < result.mean_service_rate < d
        assert result.mean_response_time == pytest.approx(2.0 / result.mean_service_rate, rel=1e-15, abs=0)


def test_monotone_in_load_and_in_d():
    loads = np.linspace(0.05, 0.95, 10)
    for d in (2, 3):
        rates = [random_assignment(100, d, 100 * rho).mean_service_rate for rho in loads]
        assert np.all(np.diff(rates) < 0)
    assert random_assignment(100, 3, 70.0).mean_response_time < random_assignment(100, 2, 70.0).mean_response_time


def test_large_systems_do_not_overflow():
    result = random_assignment(3000, 3, 0.99 * 3000)
    assert np.isfinite(result.mean_jobs) and result.mean_jobs > 0
    assert result.busy_servers @ np.arange(3001) == pytest.approx(0.99 * 3000, rel=1e-10, abs=0)


@pytest.mark.parametrize(("servers", "d", "covered"), [(10, 3, 0), (10, 3, 5), (10, 3, 10), (200, 150, 170),
                                                     (2000, 1000, 1000), (2000, 1000, 1500), (10**5, 2, 3),
                                                     (10**5, 2, 50_000), (10**6, 5, 999_999)])
def test_overlap_is_the_hypergeometric_law_in_exact_rationals(servers, d, covered):
    """C(u, j) C(S - u, d - j) / C(S, d) in fractions, each value rounded once; every value above the
    underflow range within 4e-15 (measured 1.8e-15 at most, 1000 ratios from the mode)."""
    law = np.empty(d + 1)
    low, count = _overlap(servers, d, covered, law, np.empty(d + 1), np.empty(256))
    j, law = np.arange(low, low + count), law[:count]
    total = math.comb(servers, d)
    exact = np.array([float(Fraction(math.comb(covered, i) * math.comb(servers - covered, d - i), total)) for i in j.tolist()])
    assert exact.sum() == pytest.approx(1.0, rel=1e-14, abs=0)     # the support is all of it
    kept = exact > 1e-290
    np.testing.assert_allclose(law[kept], exact[kept], rtol=4e-15, atol=0)
    assert np.all(law[~kept] < 1e-280)


@pytest.mark.parametrize("forced", [False, True])
@pytest.mark.parametrize(("servers", "d"), [(1, 1), (7, 1), (9, 9), (300, 2), (300, 150), (2000, 1000), (1500, 1499)])
def test_stay_probability_is_the_exact_fraction_correctly_rounded(servers, d, forced, monkeypatch):
    """C(u, d)/C(S, d) in fractions, rounded once, equal to the compiled double-double values bit for bit (2000, 1000
    reaches subnormals and 0); ``forced``: an error bound of 2**-40 per step leaves most roundings undecided, and
    the exact fallback gives them."""
    if forced:
        monkeypatch.setattr(random_assignment_module, "_STEP_ERROR", 2.0**-40)
    total = math.comb(servers, d)
    exact = [float(Fraction(math.comb(u, d), total)) for u in range(d, servers + 1)]
    assert _stay_probability(servers, d).tolist() == exact


@pytest.mark.parametrize("servers", [10**5, 10**6])
def test_work_is_conserved_with_a_million_servers(servers):
    """S = 10^5 and 10^6, d = 2, ρ = 0.9 (scipy's exact hypergeometric pmf took 33 s at 10^5; thousands of
    rescalings): busy servers average λσ (measured 1.1e-16 off at 10^5; 1e-11 leaves room for the sum of 10^6 terms)."""
    result = random_assignment(servers, 2, 0.9 * servers)
    assert result.busy_servers @ np.arange(servers + 1) == pytest.approx(0.9 * servers, rel=1e-11, abs=0)


@pytest.mark.parametrize("servers,d,arrival_rate,mean_size", [
    (4, 2, 5e-324, 1.0), (4, 2, 2.0, 5e-324),      # ZeroDivisionError before: E[jobs] = λσ/d rounded to 0
    (6, 3, 1e-310, 1.0), (5, 2, 3e-300, 1e-20), (100, 2, 2.2e-308, 1.0),
])
def test_tiny_work_rates_reach_the_empty_system_limit(servers, d, arrival_rate, mean_size):
    """As λσ → 0 every job finds the system empty and holds its d servers: γ = d, δ = σ/d, E[jobs] = λσ/d.

    The corrections are O(λσ) <= 3e-320 relative: below double precision, so the limits are the exact values to
    rounding (E[jobs], subnormal or 0, within one subnormal step).
    """
    result = random_assignment(servers, d, arrival_rate, mean_size)
    assert result.mean_service_rate == pytest.approx(d, rel=1e-15, abs=0)
    assert result.mean_response_time == pytest.approx(float(Fraction(mean_size) / d), rel=1e-15, abs=5e-324)
    assert result.mean_jobs == pytest.approx(float(Fraction(arrival_rate) * Fraction(mean_size) / d), rel=1e-15,
                                             abs=5e-324)
    assert result.probability_empty == pytest.approx(1.0, rel=1e-15, abs=0)
    assert result.busy_servers.sum() == pytest.approx(1.0, rel=1e-15, abs=0)


def test_smallest_rates_match_the_explicit_classes():
    """Each of the C(4, 2) = 6 classes at the smallest subnormal rate, through the subset recursion (E[x_i] =
    2.5e-324 per class rounds to 0 there, so the rates and delays are compared)."""
    explicit = balanced_fairness(random_assignment_graph(4, 2), np.full(6, 5e-324))
    result = random_assignment(4, 2, 6 * 5e-324)
    assert result.mean_service_rate == pytest.approx(explicit.mean_service_rate, rel=1e-14, abs=0)
    assert result.mean_response_time == pytest.approx(explicit.mean_response_time[0], rel=1e-14, abs=0)


def test_errors():
    with pytest.raises(UnstableSystemError, match=r"within 10 given servers = 10 is not below the limit 10 \(it equals it\)"):
        random_assignment(10, 2, 10.0)
    with pytest.raises(InvalidParameterError, match="d = 5: must be <= servers = 4"):
        random_assignment(4, 5, 1.0)
    with pytest.raises(InvalidParameterError, match="arrival_rate"):
        random_assignment(4, 2, -1.0)
    with pytest.raises(InvalidParameterError, match="servers"):
        random_assignment(0, 1, 1.0)
    with pytest.raises(InvalidParameterError, match="exceed max_classes"):
        random_assignment_graph(100, 3)


@pytest.mark.parametrize("build", [
    lambda n: __import__("analytic.fairness", fromlist=["x"]).random_assignment(n, 2, 2.0),
])
def test_counts_beyond_the_float_range_are_refused_as_too_large(build):
    """A count of 10**400 (servers, sample size, batches, d) raised a raw OverflowError where its table's bytes were
    estimated in floats before the memory check; like 10**12, it is refused before anything is allocated."""
    from analytic.errors import StateSpaceTooLargeError

    for count in (10**12, 10**400):
        with pytest.raises(StateSpaceTooLargeError, match="needs .* of memory, more than the"):
            build(count)
