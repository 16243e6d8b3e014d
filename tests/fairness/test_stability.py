"""Tests of analytic.fairness.stability (Theorem 1).

Reference: brute force over the 2^N non-empty sets of classes, max_A λ(A)/μ(A) with μ(A) the
union of the server sets (Section 2); exact boundary cases with integer rates; the paper's own
stability condition of the three-server example (Section 5).
"""

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.errors import InvalidParameterError, UnstableSystemError
from analytic.fairness import (
    CompatibilityGraph,
    is_stable,
    require_stable,
    service_rate,
    stability,
    stability_violation,
)


def exact_load(graph, rates):
    """max_A λ(A)/μ(A) over the non-empty sets A in exact rationals (μ(A) by the union of the server sets)."""
    capacities = [Fraction(float(c)) for c in graph.capacities]
    lam = [Fraction(float(r)) for r in rates]
    return max(sum(lam[i] for i in subset) / sum(capacities[k] for k in set().union(*(graph.server_sets[i] for i in subset)))
               for r in range(1, graph.n_classes + 1) for subset in itertools.combinations(range(graph.n_classes), r))


def brute_force_load(graph, rates):
    best, argbest = 0.0, ()
    for r in range(1, graph.n_classes + 1):
        for subset in itertools.combinations(range(graph.n_classes), r):
            ratio = sum(rates[i] for i in subset) / service_rate(graph, subset)
            if ratio > best:
                best, argbest = ratio, subset
    return best, argbest


@st.composite
def graphs_and_rates(draw):
    servers = draw(st.integers(1, 5))
    classes = draw(st.integers(1, 6))
    capacities = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0]), min_size=servers, max_size=servers))
    positive = [s for s in range(servers) if capacities[s] > 0] or [0]
    if capacities[positive[0]] == 0:
        capacities[0] = 1.0
    sets = []
    for _ in range(classes):
        members = draw(st.sets(st.integers(0, servers - 1), min_size=1, max_size=servers))
        sets.append(sorted(members | {draw(st.sampled_from(positive))}))
    # Half-integer rates make the boundary λ(A) = μ(A) reachable exactly.
    rates = draw(st.lists(st.integers(0, 8), min_size=classes, max_size=classes))
    return CompatibilityGraph(sets, capacities), np.array(rates) / 2


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(graphs_and_rates())
def test_load_and_bottleneck_match_brute_force(case):
    graph, rates = case
    result = stability(graph, rates)
    load, _ = brute_force_load(graph, rates)
    assert result.load == pytest.approx(load, rel=1e-12, abs=0)
    assert result.stable == (load < 1)
    assert is_stable(graph, rates) == (load < 1)
    if result.bottleneck:
        subset = list(result.bottleneck)
        assert result.arrival_rate == pytest.approx(rates[subset].sum(), rel=1e-15, abs=0)
        assert result.service_rate == pytest.approx(service_rate(graph, subset), rel=1e-15, abs=0)
    violation = stability_violation(graph, rates)
    if load < 1:
        assert violation is None
    else:
        assert rates[list(violation)].sum() >= service_rate(graph, violation)


@pytest.mark.slow
def test_three_server_condition_of_section_5():
    """λ_1 < μ_1 + μ_3, λ_2 < μ_2 + μ_3, λ_1 + λ_2 < μ (Section 5), on a grid including the boundary."""
    mu1, mu2, mu3 = 1.0, 0.5, 2.0
    graph = CompatibilityGraph([[0, 2], [1, 2]], [mu1, mu2, mu3])
    for l1 in np.arange(0, 4.01, 0.5):
        for l2 in np.arange(0, 4.01, 0.5):
            printed = l1 < mu1 + mu3 and l2 < mu2 + mu3 and l1 + l2 < mu1 + mu2 + mu3
            assert is_stable(graph, [l1, l2]) == printed, (l1, l2)


def test_exact_boundary_is_unstable_and_names_the_set():
    graph = CompatibilityGraph([[0, 2], [1, 2]])
    result = stability(graph, [1.5, 1.5])
    assert (result.stable, result.load, result.bottleneck) == (False, 1.0, (0, 1))
    with pytest.raises(UnstableSystemError, match=r"arrival rate of classes \(1,\) = 2.5 must be < 2"):
        require_stable(graph, [0.1, 2.5])
    # λ(A) = μ(A) = 3 exactly (integers): the message said "exceeds it by 0".
    with pytest.raises(UnstableSystemError, match=r"^unstable: arrival rate of classes \(0, 1\) = 3 is not below the limit 3 "
                                                  r"\(it equals it\); Theorem 1 requires") as error:
        require_stable(graph, [1.5, 1.5])
    assert "exceeds" not in str(error.value)


@pytest.mark.slow
def test_large_graph_decided_without_enumeration():
    """N = 1500 classes: the LP answers; checked against the sets it names and a feasible scaling."""
    rng = np.random.default_rng(3)
    servers, classes = 500, 1500
    sets = [rng.choice(servers, 3, replace=False).tolist() for _ in range(classes)]
    graph = CompatibilityGraph(sets, rng.uniform(0.5, 2.0, servers))
    rates = rng.uniform(0, 0.6, classes)
    result = stability(graph, rates)
    subset = list(result.bottleneck)
    assert result.load == pytest.approx(rates[subset].sum() / service_rate(graph, subset), rel=1e-14, abs=0)
    # No set does worse: single classes and the whole system are below the reported load.
    assert (rates / graph.class_capacities).max() <= result.load * (1 + 1e-9)
    assert rates.sum() / graph.capacities.sum() <= result.load * (1 + 1e-9)
    # Scaling the rates just above 1/load breaks stability, just below keeps it.
    assert is_stable(graph, rates * 0.999 / result.load)
    assert stability_violation(graph, rates * 1.001 / result.load) is not None


def test_zero_rates_are_allowed_here_but_not_negative_ones():
    graph = CompatibilityGraph([[0], [0, 1]])
    assert stability(graph, [0.0, 0.0]).stable
    assert stability(graph, [0.0, 1.5]).load == pytest.approx(0.75, rel=1e-15, abs=0)
    with pytest.raises(InvalidParameterError, match=r"arrival_rates\[1\] = -1: must be finite and >= 0"):
        stability(graph, [0.0, -1.0])
    with pytest.raises(InvalidParameterError, match="one per class"):
        stability(graph, [1.0])
    with pytest.raises(InvalidParameterError, match=r"arrival_rates\[0\] = nan"):
        stability(graph, [float("nan"), 1.0])


@pytest.mark.parametrize("rate_scale,capacity_scale", [(1e300, 1e300), (1e-300, 1e-300), (1.0, 1e300), (1e-300, 1.0),
                                                       (1e300, 1e-3), (2.0**-500, 2.0**500)])
@settings(max_examples=25, deadline=None)
@given(case=graphs_and_rates())
def test_rates_and_capacities_at_any_scale(rate_scale, capacity_scale, case):
    """Rates and capacities multiplied by 1e±300 (HiGHS read t = μ/λ = 1e300 as an unbounded LP): the load is
    ρ* (rate_scale / capacity_scale) and the bottleneck the same set, against brute force at scale 1; exact
    where the scaled rates are (powers of two), to 1e-15 otherwise."""
    graph, rates = case
    scaled_graph = CompatibilityGraph(graph.server_sets, graph.capacities * capacity_scale)
    reference = stability(graph, rates)
    result = stability(scaled_graph, rates * rate_scale)
    load, _ = brute_force_load(graph, rates)
    assert result.load == pytest.approx(load * rate_scale / capacity_scale, rel=1e-15, abs=0)
    assert result.bottleneck == reference.bottleneck and result.stable == (result.load < 1)


def test_a_trivially_stable_graph_at_rates_far_from_one():
    """One class, one server: load λ/μ exactly, whatever the scale (1e300/1e300 and 1/1e300 failed)."""
    for capacity, rate in [(1e300, 5e299), (1e300, 1.0), (1e-300, 5e-301), (1.0, 1e-300), (1e-300, 1e-310)]:
        result = stability(CompatibilityGraph([[0]], [capacity]), [rate])
        assert result == stability(CompatibilityGraph([[0]], [capacity]), [rate])
        assert result.stable and result.load == rate / capacity and result.bottleneck == (0,)


@pytest.mark.slow
@pytest.mark.parametrize("capacities", [(1.0, 1.0, 1.7e308), (1.7e308, 1.0, 1.0), (1.0, 1.7e308, 1.0), (0.5, 2.0, 1.7e308)])
def test_a_server_of_1e308_beside_unit_ones_section_5(capacities):
    """The three-server graph of Section 5 with μ_3 = 1.7e308 (and permutations): brought below 1 as a whole, the
    unit capacities became subnormal (2^-1024), which HiGHS read as an unbounded LP. Reference: the printed
    condition λ_1 < μ_1 + μ_3, λ_2 < μ_2 + μ_3, λ_1 + λ_2 < μ_1 + μ_2 + μ_3, whose three loads are the only sets,
    in exact rationals."""
    graph = CompatibilityGraph([[0, 2], [1, 2]], capacities)
    mu1, mu2, mu3 = (Fraction(c) for c in capacities)
    grid = [0.0, 0.5, 1.5, 2.5, 1e-300, 1e300, 8e307, 1.6e308, 1.79e308]
    sides = set()
    for l1, l2 in itertools.product(grid, grid):
        if l1 == l2 == 0:
            continue
        lam1, lam2 = Fraction(l1), Fraction(l2)
        exact = max(lam1 / (mu1 + mu3), lam2 / (mu2 + mu3), (lam1 + lam2) / (mu1 + mu2 + mu3))
        result = stability(graph, [l1, l2])
        assert result.load == pytest.approx(float(exact), rel=1e-15, abs=0), (l1, l2)
        if abs(exact - 1) > Fraction(1, 10**12):
            assert result.stable == (exact < 1), (l1, l2)
            sides.add(result.stable)
    assert sides == {True, False}


@st.composite
def graphs_and_rates_at_many_scales(draw):
    """The graphs above with each server's capacity and each class's rate multiplied by its own power of ten."""
    graph, rates = draw(graphs_and_rates())
    exponents = st.sampled_from([-150, -30, -8, 0, 8, 30, 150])
    capacity_scales = [10.0 ** draw(exponents) for _ in range(graph.n_servers)]
    rate_scales = [10.0 ** draw(exponents) for _ in range(graph.n_classes)]
    return CompatibilityGraph(graph.server_sets, graph.capacities * capacity_scales), rates * rate_scales


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(graphs_and_rates_at_many_scales())
def test_classes_and_servers_at_different_scales_match_exact_brute_force(case):
    """Rates and capacities spanning 1e±150 within one graph, against brute force in exact rationals. The LP in
    absolute units lost what lay below its tolerance: graph [[0], [1]] with capacities (1e-30, 1) and rates
    (2e-30, 0.5) was called stable at load 0.5 (class 0 alone has load 2). Sets whose loads differ by less than
    the LP's tolerance may be confused, so the load is compared to 1e-9 and stability away from the boundary."""
    graph, rates = case
    exact = exact_load(graph, rates)
    result = stability(graph, rates)
    if exact == 0:
        assert result.load == 0 and result.stable
        return
    assert result.load == pytest.approx(float(exact), rel=1e-9, abs=0)
    if abs(exact - 1) > Fraction(1, 10**9):
        assert result.stable == (exact < 1)
    subset = list(result.bottleneck)
    assert result.load == pytest.approx(rates[subset].sum() / service_rate(graph, subset), rel=1e-15, abs=0)


@pytest.mark.parametrize("rate,stable,load", [(2e-30, False, 2.0), (1e-30, False, 1.0), (0.25e-30, True, 0.5)])
def test_a_small_class_beside_a_large_one_is_seen(rate, stable, load):
    """Class 0: rate λ on a server of 1e-30; class 1: rate 0.5 on a server of 1. ρ* = max(λ/1e-30, 0.5)."""
    result = stability(CompatibilityGraph([[0], [1]], [1e-30, 1.0]), [rate, 0.5])
    assert (result.stable, result.bottleneck) == (stable, (0,) if load > 0.5 else (1,))
    assert result.load == pytest.approx(load, rel=1e-15, abs=0)
