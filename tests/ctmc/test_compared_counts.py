"""Certified bounds for models whose rates compare two unbounded counts through their difference
(:mod:`analytic.ctmc.regions`): join the shortest queue, serve the longest queue.

References, none of them from the drift machinery:

* serve-the-longest-queue with one server of rate ``μ``: whatever queue it serves, the total
  ``x + y`` is an M/M/1 queue, so ``E[x + y] = ρ / (1 - ρ)`` and ``P(empty) = 1 - ρ`` with
  ``ρ = (λ_1 + λ_2) / μ``;
* join the shortest queue (no closed form): the chain on a box, written here with its own numpy
  rates and solved whole by :class:`~analytic.ctmc.CTMC`, its mass on the box's edge checked
  negligible;
* the regions themselves: every state of a box lies in exactly one region, where the region's rate
  polynomials, evaluated at the state's parameters, equal the model's rates (brute force).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
import sympy

from analytic.ctmc import CTMC, PopulationModel, stationary_bounds
from analytic.ctmc.regions import regions
from analytic.errors import InvalidParameterError

x, y, z = sympy.symbols("x y z")
EMPTY = (1 - sympy.Min(x, 1)) * (1 - sympy.Min(y, 1))


def shortest_queue(lam: float, mu1: float, mu2: float) -> PopulationModel:
    """Join the shortest of two queues (ties split evenly), servers of rates ``μ_1`` and ``μ_2``."""
    to_x = sympy.Piecewise((1, x < y), (sympy.Rational(1, 2), sympy.Eq(x, y)), (0, True))
    return PopulationModel([x, y], [((1, 0), lam * to_x), ((0, 1), lam * (1 - to_x)),
                                    ((-1, 0), mu1 * sympy.Min(x, 1)), ((0, -1), mu2 * sympy.Min(y, 1))])


def shortest_queue_on_a_box(lam: float, mu1: float, mu2: float, n: int) -> dict[str, float]:
    """The same chain on ``0 <= x, y <= n`` (arrivals to a full queue lost), from numpy rates; the
    means, and the mass on the box's edge."""
    def to_x(X):
        return np.where(X[:, 0] < X[:, 1], 1.0, np.where(X[:, 0] == X[:, 1], 0.5, 0.0))

    moves = [((1, 0), lambda X: lam * to_x(X) * (X[:, 0] < n)),
             ((0, 1), lambda X: lam * (1 - to_x(X)) * (X[:, 1] < n)),
             ((-1, 0), lambda X: mu1 * (X[:, 0] > 0)), ((0, -1), lambda X: mu2 * (X[:, 1] > 0))]
    chain = CTMC.from_lattice((n, n), moves)
    law = chain.stationary().probabilities
    X = np.asarray(chain.states)
    return {"x": law @ X[:, 0], "y": law @ X[:, 1], "empty": law[(X == 0).all(axis=1)].sum(),
            "edge": law[(X == n).any(axis=1)].sum()}


@pytest.mark.slow
@pytest.mark.parametrize(("lam", "mu1", "mu2"), [(1.5, 1.0, 1.0), (2.4, 1.0, 2.0)])
def test_shortest_queue_intervals_contain_the_whole_chain_on_a_large_box(lam, mu1, mu2):
    bounds = stationary_bounds(shortest_queue(lam, mu1, mu2), {"x": x, "y": y, "empty": EMPTY}, width=1e-8)
    reference = shortest_queue_on_a_box(lam, mu1, mu2, 100)
    assert reference["edge"] < 1e-13                           # the box loses nothing the intervals can see
    for name in ("x", "y", "empty"):
        interval = bounds[name]
        slack = 1e-12 * max(1.0, abs(reference[name]))        # the reference's own rounding and truncation
        assert interval.low - slack <= reference[name] <= interval.high + slack, (name, interval, reference[name])
    assert bounds.width <= 1e-8


def test_serve_the_longest_queue_total_is_an_mm1_queue():
    l1, l2, mu = 0.3, 0.4, 1.0
    serve_x = sympy.Piecewise((1, (x >= y) & (x >= 1)), (0, True))
    serve_y = sympy.Piecewise((1, y > x), (0, True))
    model = PopulationModel([x, y], [((1, 0), l1), ((0, 1), l2), ((-1, 0), mu * serve_x), ((0, -1), mu * serve_y)])
    bounds = stationary_bounds(model, {"total": x + y, "empty": EMPTY}, width=1e-8)
    rho = (Fraction(l1) + Fraction(l2)) / Fraction(mu)         # exact in the doubles the chain uses
    assert Fraction(bounds["total"].low) <= rho / (1 - rho) <= Fraction(bounds["total"].high)
    assert Fraction(bounds["empty"].low) <= 1 - rho <= Fraction(bounds["empty"].high)
    assert bounds.width <= 1e-8


def _jsq3(lam: float) -> PopulationModel:
    to_x = sympy.Piecewise((1, (x <= y) & (x <= z)), (0, True))
    to_y = sympy.Piecewise((1, (y < x) & (y <= z)), (0, True))
    return PopulationModel([x, y, z], [((1, 0, 0), lam * to_x), ((0, 1, 0), lam * to_y),
                                       ((0, 0, 1), lam * (1 - to_x - to_y)), ((-1, 0, 0), sympy.Min(x, 1)),
                                       ((0, -1, 0), sympy.Min(y, 1)), ((0, 0, -1), sympy.Min(z, 1))])


def _mixed() -> PopulationModel:
    """Two counts compared through ``x > y + 2``, a third with a threshold of its own, and a phase."""
    p = sympy.Symbol("p")
    faster = sympy.Piecewise((3, x > y + 2), (1, True))
    return PopulationModel([x, y, z, p], [((1, 0, 0, 0), 1), ((0, 1, 0, 0), 1 + p), ((-1, 0, 0, 0), faster * sympy.Min(x, 2)),
                                          ((0, -1, 0, 0), sympy.Min(y, 1)), ((0, 0, 1, 0), 0.5),
                                          ((0, 0, -1, 0), sympy.Min(z, 4)), ((0, 0, 0, 1), 1), ((0, 0, 0, -1), p)],
                           upper=[None, None, None, 1])


def _hidden() -> PopulationModel:
    """``y`` served at ``min(y, 5)`` only while ``x`` is empty: the threshold 5 of ``y`` appears only
    in the regions where ``x`` is fixed at 0 (read globally, the rate of ``y`` is 1 far out in ``x``)."""
    served = sympy.Piecewise((sympy.Min(y, 5), x < 1), (1, True))
    return PopulationModel([x, y], [((1, 0), 1), ((-1, 0), sympy.Min(x, 1)), ((0, 1), 1), ((0, -1), served)])


@pytest.mark.parametrize("model", [shortest_queue(1.5, 1.0, 2.0), _jsq3(2.0), _mixed(), _hidden()],
                         ids=["jsq", "jsq3", "mixed", "hidden threshold"])
def test_every_state_lies_in_one_region_whose_polynomials_are_the_rates(model):
    _, found = regions(model)
    unbounded = list(model.unbounded)
    reach = 7
    home: dict[tuple, tuple] = {}
    for region in found:
        ranges = [range(reach)] * len(region.large)
        for parameters in itertools.product(*ranges):
            state = np.array(region.corner) + sum((p * np.array(d) for p, d in zip(parameters, region.directions,
                                                                                  strict=True)), np.zeros(len(region.corner),
                                                                                                          dtype=int))
            key = tuple(int(v) for v in state)
            assert key not in home, (key, home.get(key), region.corner)
            home[key] = (region, parameters)
    tops = [reach if u is None else u for u in model.upper]
    for state in itertools.product(*(range(t + 1) for t in tops)):
        assert state in home, state                          # the box is covered (its points are near every corner)
        region, parameters = home[state]
        taken = {tuple(int(c) for c in change): rate for change, rate in region.rates}
        for change, move in model.moves:
            expected = float(move(np.array([state]))[0])
            rate = taken.get(tuple(change))
            got = 0.0 if rate is None else float(rate.upper.eval(dict(zip(rate.upper.gens, parameters, strict=True)))
                                                 if region.large else rate.upper.as_expr())
            assert got == pytest.approx(expected, rel=1e-15, abs=0), (state, change, got, expected)
            if rate is not None:
                assert rate.is_exact
    assert all(region.large or all(i in region.fixed for i in unbounded) for region in found)


def test_a_comparison_not_through_a_difference_is_named():
    model = PopulationModel([x, y], [((1, 0), 1.0), ((-1, 0), sympy.Piecewise((2, x > 2 * y), (1, True))), ((0, 1), 1.0),
                                     ((0, -1), 2.0)])
    with pytest.raises(InvalidParameterError, match="compares x, y other than through a difference of two counts"):
        stationary_bounds(model, {"m": x})


def _served_by_difference(seed: int) -> tuple[PopulationModel, Fraction]:
    """One server of rate ``μ`` for two queues: it serves ``x`` when ``x >= y + c`` (or ``y`` is empty),
    else ``y``; ``c``, the arrival rates and ``μ`` drawn. Work-conserving, so ``x + y`` is an M/M/1
    queue whatever ``c``: the load ``ρ`` is returned (exact in the doubles the chain uses)."""
    rng = np.random.default_rng(seed)
    mu = float(rng.uniform(0.5, 2.0))
    rho = float(rng.uniform(0.2, 0.8))
    share = float(rng.uniform(0.1, 0.9))
    l1, l2 = rho * mu * share, rho * mu * (1 - share)
    c = int(rng.integers(-2, 3))
    serve_x = sympy.Piecewise((1, (x >= 1) & ((x >= y + c) | sympy.Eq(y, 0))), (0, True))
    model = PopulationModel([x, y], [((1, 0), l1), ((0, 1), l2), ((-1, 0), mu * serve_x),
                                     ((0, -1), mu * sympy.Min(y, 1) * (1 - serve_x))])
    return model, (Fraction(l1) + Fraction(l2)) / Fraction(mu)


@pytest.mark.parametrize("seed", range(12))
def test_a_server_choosing_by_a_difference_leaves_an_mm1_total(seed):
    model, rho = _served_by_difference(seed)
    bounds = stationary_bounds(model, {"total": x + y, "empty": EMPTY}, width=1e-8)
    assert Fraction(bounds["total"].low) <= rho / (1 - rho) <= Fraction(bounds["total"].high)
    assert Fraction(bounds["empty"].low) <= 1 - rho <= Fraction(bounds["empty"].high)
    assert bounds.width <= 1e-8


def test_a_rate_comparing_the_sum_of_two_counts_with_a_constant():
    """One server, x first, twice as fast once x + y > 4: the total is a birth-death chain with
    birth 1.2 and death 1 below 5, 2 from 5 on, whose law is a product of ratios (summed here in
    exact fractions, to a tail below 1e-30)."""
    speed = sympy.Piecewise((2, x + y > 4), (1, True))
    model = PopulationModel([x, y], [((1, 0), 0.5), ((0, 1), 0.7), ((-1, 0), speed * sympy.Min(x, 1)),
                                     ((0, -1), speed * sympy.Min(y, 1) * (1 - sympy.Min(x, 1)))])
    bounds = stationary_bounds(model, {"total": x + y, "empty": EMPTY}, width=1e-8)
    birth = Fraction(0.5) + Fraction(0.7)
    weights = [Fraction(1)]
    for n in range(1, 200):
        weights.append(weights[-1] * birth / (2 if n > 4 else 1))
    mass = sum(weights)
    mean = sum(n * w for n, w in enumerate(weights)) / mass
    assert weights[-1] / mass < Fraction(1, 10**30)
    assert Fraction(bounds["total"].low) <= mean <= Fraction(bounds["total"].high)
    assert Fraction(bounds["empty"].low) <= 1 / mass <= Fraction(bounds["empty"].high)
