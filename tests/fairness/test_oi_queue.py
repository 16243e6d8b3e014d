"""Tests of analytic.fairness.oi_queue (the order-independent queue and its permutation rates)."""

import pytest


@pytest.mark.parametrize("rates", [[1.0, 1.0], [1.0, 5e-324], [1.7e308, 1.7e308], [0.3, 0.9]])
def test_permutation_rates_do_not_depend_on_the_arrival_rates(rates):
    """permutation_rates(graph, [1, 5e-324], x) returned [nan, nan]: every ordering's measure underflowed to 0.
    Π λ_i^(x_i) is common to the orderings of x and cancels. Reference by hand for x = (2, 1) on [[0, 2], [1, 2]]:
    orderings 001, 010, 100 weigh 1/12, 1/18, 1/18 (products of 1/μ over the prefixes) and give class 0 the rates
    2, 2, 1 and class 1 the rates 1, 1, 2: averages 12/7 and 9/7; for x = (1, 1) the average of (2, 1) and (1, 2)."""
    from analytic.fairness import CompatibilityGraph, permutation_rates

    graph = CompatibilityGraph([[0, 2], [1, 2]])
    assert permutation_rates(graph, rates, [2, 1]) == pytest.approx([12 / 7, 9 / 7], rel=1e-14, abs=0)
    assert permutation_rates(graph, rates, [1, 1]) == pytest.approx([1.5, 1.5], rel=1e-14, abs=0)
