"""Tests of balanced_fairness (the subset recursion) and of eqs. (10)-(11).

References: sums of q(x) = Φ(x) Π λ^x over a truncated lattice (recursion (4), independent code)
with the truncation error bounded by the reported outside mass; the detailed OI-queue CTMC solved
by analytic.ctmc (job sequences, no aggregation); closed forms of the M/M/1 queue, the multi-class
M/M/1-PS queue and independent queues; eqs. (10)-(11) as printed; sympy's derivation.
"""

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.errors import InvalidParameterError, StateSpaceTooLargeError, UnstableSystemError
from analytic.fairness import (
    CompatibilityGraph,
    balance_function,
    balanced_fairness,
    oi_queue_law,
    stability,
    symbolic_check,
    three_server_graph,
    three_server_rates,
    whittle_network,
)


@st.composite
def stable_systems(draw, max_classes=3, max_load=0.6):
    """A random graph on up to 4 servers and rates scaled to a load (max λ(A)/μ(A)) in [0.1, max_load]."""
    servers = draw(st.integers(1, 4))
    classes = draw(st.integers(1, max_classes))
    capacities = draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=servers, max_size=servers))
    sets = [sorted(draw(st.sets(st.integers(0, servers - 1), min_size=1, max_size=servers))) for _ in range(classes)]
    graph = CompatibilityGraph(sets, capacities)
    rates = np.array(draw(st.lists(st.floats(0.1, 1.0), min_size=classes, max_size=classes)))
    load = draw(st.floats(0.1, max_load))
    return graph, rates * load / stability(graph, rates).load


@pytest.mark.slow
@settings(max_examples=20, deadline=None)
@given(stable_systems(max_load=0.5))
def test_subset_recursion_equals_the_truncated_lattice_sum(system):
    graph, rates = system
    exact = balanced_fairness(graph, rates)
    network = whittle_network(balance_function(graph, rates, 80), rates, 80, normalization=1 / exact.probability_empty)
    assert network.mass_outside < 1e-14
    # Truncated sums approach the exact ones from below; the gap is the tail beyond 80 jobs.
    unnormalized = network.mean_jobs * (1 - network.mass_outside)
    assert unnormalized == pytest.approx(exact.mean_jobs, rel=1e-11, abs=0)


@settings(max_examples=15, deadline=None)
@given(stable_systems(max_classes=3, max_load=0.8))
def test_detailed_chain_aggregates_to_the_balance_function(system):
    """The CTMC on job sequences (truncated at 5 jobs) has the aggregate law (3) of the same truncation."""
    graph, rates = system
    law = oi_queue_law(graph, rates, 5)
    assert law.residual < 1e-12
    assert law.probabilities == pytest.approx(balance_function(graph, rates, 5).probabilities(), rel=1e-11, abs=1e-15)


def test_detailed_chain_means_approach_balanced_fairness():
    graph, rates = three_server_graph(), [1.0, 0.6]
    exact = balanced_fairness(graph, rates).mean_jobs
    errors = [np.abs(oi_queue_law(graph, rates, n).mean_jobs - exact).max() for n in (3, 6, 9, 12)]
    assert errors == sorted(errors, reverse=True)
    assert errors[-1] < 0.02 < errors[0]


def test_queues_with_known_closed_forms():
    # One class, one server: M/M/1.
    result = balanced_fairness(CompatibilityGraph([[0]], [2.0]), [1.5])
    assert result.mean_jobs[0] == pytest.approx(0.75 / 0.25, rel=1e-14, abs=0)
    assert result.probability_empty == pytest.approx(0.25, rel=1e-14, abs=0)
    # Three classes on one server: multi-class M/M/1-PS, E[x_i] = ρ_i/(1 - ρ).
    rates = np.array([0.2, 0.5, 0.1])
    result = balanced_fairness(CompatibilityGraph([[0]] * 3, [1.0]), rates, mean_size=1.0)
    assert result.mean_jobs == pytest.approx(rates / 0.2, rel=1e-13, abs=0)
    # Disjoint server sets: independent M/M/1 queues of rates μ({i}).
    result = balanced_fairness(CompatibilityGraph([[0, 1], [2]], [1.0, 2.0, 0.5]), [1.0, 0.25])
    assert result.mean_jobs == pytest.approx([1 / 2, 1.0], rel=1e-13, abs=0)
    assert result.probability_empty == pytest.approx((1 - 1 / 3) * 0.5, rel=1e-13, abs=0)


def test_mean_size_rescales_capacities():
    """σ = 2 with capacities C is the same queue as σ = 1 with capacities C/2 (Section 4: μ_s = C_s/σ)."""
    rates = [0.4, 0.3]
    scaled = balanced_fairness(three_server_graph((1.0, 2.0, 1.0)), rates, mean_size=2.0)
    plain = balanced_fairness(three_server_graph((0.5, 1.0, 0.5)), rates)
    assert scaled.mean_jobs == pytest.approx(plain.mean_jobs, rel=1e-14, abs=0)
    assert scaled.mean_service_rate == pytest.approx(2 * plain.mean_service_rate, rel=1e-14, abs=0)
    assert scaled.mean_response_time * scaled.mean_service_rate == pytest.approx([2.0, 2.0], rel=1e-15, abs=0)


@pytest.mark.parametrize("capacities", [(1.0, 1.0, 1.0), (1.0, 0.0, 1.0), (2.0, 1.0, 0.5), (0.3, 3.0, 1.7)])
def test_equations_10_11_as_printed(capacities):
    graph = three_server_graph(capacities)
    for load in (0.05, 0.3, 0.6, 0.9, 0.99):
        rates = np.array([1.0, 1.0]) * load / stability(graph, [1.0, 1.0]).load
        expected = three_server_rates(capacities, rates)
        assert balanced_fairness(graph, rates).mean_service_rate == pytest.approx(expected, rel=1e-12, abs=0)


@pytest.mark.slow
def test_equations_10_11_derived_again_with_sympy():
    assert symbolic_check().differences == (0, 0)


def test_unstable_and_oversized_inputs():
    graph = three_server_graph()
    with pytest.raises(UnstableSystemError, match=r"classes \(0, 1\) = 3.3 must be < 3"):
        balanced_fairness(graph, [1.6, 1.7])
    with pytest.raises(UnstableSystemError, match=r"classes \(1,\) = 2 is not below the limit 2 \(it equals it\)"):
        balanced_fairness(graph, [0.1, 2.0])
    with pytest.raises(UnstableSystemError, match=r"classes \(0,\)"):
        three_server_rates((1, 1, 1), [2.5, 0.1])
    with pytest.raises(InvalidParameterError, match="mean_size"):
        balanced_fairness(graph, [0.1, 0.2], mean_size=0.0)
    with pytest.raises(StateSpaceTooLargeError, match="subset recursion over 5 classes"):
        balanced_fairness(CompatibilityGraph([[0]] * 5), [0.1] * 5, max_classes=4)


def test_sixteen_classes():
    """N = 16 (65 536 sets): against 16 classes on one server, an M/M/1-PS queue."""
    rates = np.linspace(0.01, 0.07, 16)
    result = balanced_fairness(CompatibilityGraph([[0]] * 16, [1.0]), rates)
    assert result.mean_jobs == pytest.approx(rates / (1 - rates.sum()), rel=1e-11, abs=0)


def exact_balanced_fairness(graph, arrival_rates, mean_size=1.0):
    """E[x_j], γ_j and π̄(0) from the G/H recursion of the module docstring, in exact rationals (no scaling)."""
    rho = [Fraction(rate) * Fraction(mean_size) for rate in arrival_rates]
    n = len(rho)
    capacity = [sum(Fraction(float(c)) for s, c in enumerate(graph.capacities)
                    if any(mask >> i & 1 and s in graph.server_sets[i] for i in range(n))) for mask in range(2 ** n)]
    g, h = {0: Fraction(1)}, {0: [Fraction(0)] * n}
    for mask in sorted(range(1, 2 ** n), key=lambda m: bin(m).count("1")):
        members = [i for i in range(n) if mask >> i & 1]
        slack = capacity[mask] - sum(rho[i] for i in members)
        g[mask] = sum(rho[i] * g[mask ^ 1 << i] for i in members) / slack
        h[mask] = [(sum(rho[i] * h[mask ^ 1 << i][j] for i in members) + (rho[j] * (g[mask] + g[mask ^ 1 << j])
                                                                          if j in members else 0)) / slack
                   for j in range(n)]
    total = sum(g.values())
    jobs = [sum(h[mask][j] for mask in h) / total for j in range(n)]
    return jobs, [rho[j] / jobs[j] for j in range(n)], 1 / total


@pytest.mark.parametrize("graph,rates,mean_size", [
    (three_server_graph(), [1.0, 5e-324], 1.0),            # NaN in mean_jobs before (the set sums underflowed)
    (three_server_graph(), [1.0, 1.0], 5e-324),            # likewise: every λ_iσ the smallest subnormal
    (three_server_graph(), [1.0, 2.2e-308], 1.0),
    (three_server_graph(), [1e-300, 1e-300], 1e300),       # λ_iσ ≈ 1 although neither factor is
    (three_server_graph((1.0, 2.0, 0.5)), [1e300, 7e299], 1e-300),
    (three_server_graph((1.0, 2.0, 0.5)), [1.7e308, 1.2e308], 5e-309),   # a subnormal σ times the largest rates
    (CompatibilityGraph([[0, 1], [1, 2], [0, 2, 3]], [1.0, 0.5, 2.0, 0.25]), [0.6, 5e-324, 1.1], 1.0),
    (CompatibilityGraph([[0, 1], [1, 2], [0, 2, 3]], [1.0, 0.5, 2.0, 0.25]), [3e-320, 1e-310, 5e-324], 1.0),
])
def test_rates_at_the_ends_of_the_double_range_against_exact_rationals(graph, rates, mean_size):
    """Means where λ_iσ is subnormal or the factors are far from 1, against the recursion in exact rationals.

    γ_j and δ_j are finite at any scale (δ_j = σ/γ_j rounds once); E[x_j] = λ_jσ/γ_j may itself be subnormal,
    where the nearest double is within one subnormal step (abs = 5e-324).
    """
    jobs, service, empty = exact_balanced_fairness(graph, rates, mean_size)
    result = balanced_fairness(graph, rates, mean_size)
    assert result.mean_service_rate == pytest.approx([float(s) for s in service], rel=1e-13, abs=0)
    assert result.mean_response_time == pytest.approx([float(Fraction(mean_size) / s) for s in service], rel=1e-13, abs=5e-324)
    assert result.mean_jobs == pytest.approx([float(x) for x in jobs], rel=1e-13, abs=5e-324)
    assert result.probability_empty == pytest.approx(float(empty), rel=1e-13, abs=0)
    assert np.all(np.isfinite(result.mean_jobs)) and np.all(result.mean_service_rate > 0)


@pytest.mark.parametrize("capacities,rates", [
    ([1e308, 1e308, 1e308], [1.0, 1.0, 1.0]),           # μ(A) overflowed to ∞: NaN
    ([1e308, 1e308, 1e308], [1e307, 2e307, 5e307]),
    ([8e307, 8e307, 8e307, 8e307], [5e307, 3e307, 6e307]),
    ([1e-310, 1e-310, 1e-310, 1e-310], [1e-311, 3e-311, 2e-311]),   # 1/γ overflowed: γ = 0, δ = ∞
    ([1e300, 1e-300, 1.0, 2.0], [1e299, 1e-301, 0.5]),
])
def test_capacities_at_the_ends_of_the_double_range_against_exact_rationals(capacities, rates):
    """Capacities and rates are scaled by one power of two (q(x) unchanged, γ scaled): exact rationals unscaled."""
    graph = CompatibilityGraph([[0, 3], [1, 3], [2]], capacities) if len(capacities) == 4 else \
        CompatibilityGraph([[0], [1], [2]], capacities)
    jobs, service, empty = exact_balanced_fairness(graph, rates)
    result = balanced_fairness(graph, rates)
    assert result.mean_service_rate == pytest.approx([float(s) for s in service], rel=1e-13, abs=0)
    assert result.mean_jobs == pytest.approx([float(x) for x in jobs], rel=1e-13, abs=0)
    assert result.probability_empty == pytest.approx(float(empty), rel=1e-13, abs=0)


def test_capacities_beyond_one_scale_are_refused():
    with pytest.raises(InvalidParameterError, match=r"^graph = .*: capacities from 4.94e-324 to 1.7e\+308 span more"):
        balanced_fairness(CompatibilityGraph([[0], [1]], [1.7e308, 5e-324]), [1.0, 5e-324])


def test_tiny_load_reaches_the_service_rates_of_an_empty_system():
    """As λσ → 0 a job finds the system empty and is served by all its servers: γ_i → μ({i}) (Section 5, Fig. 2)."""
    result = balanced_fairness(three_server_graph((1.0, 0.0, 1.0)), [1.0, 1.0], mean_size=5e-324)
    assert result.mean_service_rate == pytest.approx([2.0, 1.0], rel=1e-15, abs=0)
    assert result.probability_empty == pytest.approx(1.0, rel=1e-15, abs=0)


def printed_rates_mpmath(capacities, rates):
    """Eqs. (10)-(11) as printed, evaluated by mpmath at 50 digits on the exact inputs (no rescaling)."""
    with mpmath.workdps(50):
        m1, m2, m3 = (mpmath.mpf(c) for c in capacities)
        l1, l2 = (mpmath.mpf(r) for r in rates)
        mu = m1 + m2 + m3
        r1, r2, r = l1 / (m1 + m3), l2 / (m2 + m3), (l1 + l2) / mu
        d = mu - (m1 + m3) * r1 - (m2 + m3) * r2 + m3 * r1 * r2
        common = 1 / (mu * (1 - r))
        return [float(1 / (common + m2 / (m1 + m3) * (1 - r2) / (1 - r1) / d)),
                float(1 / (common + m1 / (m2 + m3) * (1 - r1) / (1 - r2) / d))]


@pytest.mark.parametrize("capacities,rates", [
    ((1.0, 1.0, 1.7e308), [1.0, 1.0]),          # the stability LP failed (HiGHS: unbounded) on these capacities
    ((1.0, 1.0, 10**30), [1.0, 1.0]),
    ((1.0, 1.0, 1.7e308), [1e308, 5e307]),
    ((1e-310, 2e-310, 5e-311), [5e-311, 1e-310]),   # reciprocals of the capacities overflow
    ((8e307, 8e307, 8e307), [1e308, 1e308]),        # μ = Σμ_s and λ_1 + λ_2 overflow
    ((0.3, 3.0, 1.7), [5e-324, 2.0]),
])
def test_equations_10_11_at_any_scale(capacities, rates):
    assert three_server_rates(capacities, rates) == pytest.approx(printed_rates_mpmath(capacities, rates), rel=1e-13,
                                                                  abs=0)


@pytest.mark.slow
def test_equations_10_11_refuse_exactly_the_rates_theorem_1_refuses():
    """Theorem 1's closed form on the three-server graph against the stability LP, boundaries included."""
    capacities = (1.0, 0.5, 2.0)
    graph = three_server_graph(capacities)
    with pytest.raises(UnstableSystemError, match=r"classes \(0, 1\) = inf must be < 1.7e\+308"):
        three_server_rates((1.0, 1.0, 1.7e308), [1e308, 1.5e308])      # λ_1 + λ_2 beyond the double range
    grid = np.arange(0.25, 4.01, 0.25)
    for a in grid:
        for b in grid:
            if stability(graph, [a, b]).stable:
                assert np.all(np.isfinite(three_server_rates(capacities, [a, b])))
            else:
                with pytest.raises(UnstableSystemError, match=r"unstable: arrival rate of classes"):
                    three_server_rates(capacities, [a, b])


@pytest.mark.parametrize("call,match", [
    (lambda: __import__("analytic.fairness", fromlist=["x"]).balanced_fairness("graph", [1.0, 1.0]),
     r"^graph = 'graph': must be a CompatibilityGraph$"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()
