"""Certified bounds for a tandem queue at high load: ``V = β^{w·x} g_c`` weighted per boundary cell
(:mod:`analytic.ctmc.regions`), against the Jackson product form.

Arrivals at rate ``λ`` join station 1 (``x``, served at ``μ_1``), which feeds station 2 (``y``, served
at ``μ_2``). The stationary law is ``(1 - ρ_1) ρ_1^x (1 - ρ_2) ρ_2^y`` with ``ρ_i = λ / μ_i`` (Jackson,
"Networks of waiting lines", Oper. Res. 5, 1957), so ``E[x] = ρ_1 / (1 - ρ_1)``, ``E[y] = ρ_2 / (1 - ρ_2)``
and ``P(empty) = (1 - ρ_1)(1 - ρ_2)``, computed here in exact fractions of the doubles the chain uses.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest
import sympy

from analytic.ctmc import PopulationModel, stationary_bounds
from analytic.ctmc.bounds import _check_returns, _returning
from analytic.ctmc.regions import (
    LinearGeometric,
    find_face_geometric,
    find_linear_geometric,
    prove_linear_geometric,
    regions,
)
from analytic.ctmc.separable import find_sum_geometric
from analytic.ctmc.truncation import lattice_generator_drift, truncate_lattice
from analytic.errors import AnalyticDeprecationWarning, ConvergenceError

x, y = sympy.symbols("x y")
REWARDS = {"x": x, "y": y, "empty": (1 - sympy.Min(x, 1)) * (1 - sympy.Min(y, 1))}


def tandem(lam: float, mu1: float, mu2: float) -> PopulationModel:
    return PopulationModel([x, y], [((1, 0), lam), ((-1, 1), mu1 * sympy.Min(x, 1)), ((0, -1), mu2 * sympy.Min(y, 1))])


def jackson(lam: float, mu1: float, mu2: float) -> dict[str, Fraction]:
    """The product form's means, exact in the doubles ``λ``, ``μ_1``, ``μ_2``."""
    rho1, rho2 = Fraction(lam) / Fraction(mu1), Fraction(lam) / Fraction(mu2)
    return {"x": rho1 / (1 - rho1), "y": rho2 / (1 - rho2), "empty": (1 - rho1) * (1 - rho2)}


@pytest.mark.slow
@pytest.mark.parametrize(("lam", "mu1", "mu2"), [(0.9, 1.0, 1.0), (0.95, 1.2, 1.0), (0.95, 1.0, 1.0), (0.8, 1.0, 1.0),
                                                 (0.9, 1.5, 1.0), (0.9, 1.0, 2.0), (0.6, 1.0, 1.25)])
def test_tandem_intervals_contain_the_product_form(lam, mu1, mu2):
    bounds = stationary_bounds(tandem(lam, mu1, mu2), REWARDS, width=1e-6)
    for name, exact in jackson(lam, mu1, mu2).items():
        interval = bounds[name]
        assert Fraction(interval.low) <= exact <= Fraction(interval.high), (name, interval, float(exact))
    assert bounds.width <= 1e-6
    assert bounds.neglected_mass < 1e-6


def test_a_kept_state_whose_every_jump_leaves_the_kept_set_still_returns():
    """Kept at x + 2 y <= 12, every jump from (12, 0) leaves the set ((13, 0) and (11, 1)), and it
    returns through (11, 1) -> (11, 0): the chain is irreducible and Q^z too. Requiring a return
    inside the kept set refused the tandem at λ = 0.97 with max_states = 4e6, kept at 2 x + 3 y <= L."""
    model = tandem(0.9, 1.0, 1.0)
    states = np.array([(a, b) for a in range(13) for b in range(7) if a + 2 * b <= 12])
    chain = truncate_lattice(states, model.moves, model.feasible, reference=(0, 0))
    corner = int(np.flatnonzero((states == (12, 0)).all(axis=1))[0])
    assert not _returning(chain.kept, chain.reference)[corner]
    assert _returning(chain.generator(), chain.reference).all()
    _check_returns(model, chain)


@pytest.mark.slow
def test_high_load_needs_the_cell_weights():
    """λ = 0.9, μ_1 = μ_2 = 1: ρ_1 + ρ_2 > 1 defeats every β^{w·x}, and station 2 fed at its own rate
    defeats Σ β^{x_i}; the weighted family is what certifies it."""
    model = tandem(0.9, 1.0, 1.0)
    T, found = regions(model)
    with pytest.raises(ConvergenceError, match="β\\^\\(w·x\\)"):
        find_linear_geometric(model, found, T, 1e-8, 10**6)
    with pytest.raises(ConvergenceError, match="Σ β\\^x_i"):
        find_sum_geometric(model, found, 1e-8, 10**6)
    bounds = stationary_bounds(model, REWARDS, width=1e-6)
    assert bounds.lyapunov.has(sympy.Function("g")) and bounds.width <= 1e-6


@pytest.mark.slow
def test_the_docs_example_is_now_certified():
    """docs/bounds.md's tandem, λ = 1 and μ_1 = μ_2 = 1.5 (1/1.5 + 1/1.5 > 1), refused before."""
    lam, mu = 1.0, 1.5
    bounds = stationary_bounds(tandem(lam, mu, mu), REWARDS, width=1e-6)
    for name, exact in jackson(lam, mu, mu).items():
        assert Fraction(bounds[name].low) <= exact <= Fraction(bounds[name].high)
    assert bounds.width <= 1e-6


def _outside_grid(V: LinearGeometric, level: int, depth: int = 60) -> np.ndarray:
    """Every state with ``level < w·x <= level + depth``."""
    grid = np.stack(np.meshgrid(np.arange(level + depth + 1), np.arange(level + depth + 1), indexing="ij"), -1).reshape(-1, 2)
    n = grid @ np.asarray(V.weights)
    return grid[(n > level) & (n <= level + depth)]


@pytest.mark.slow
def test_the_proved_drift_holds_state_by_state_and_a_wrong_one_is_caught():
    """The found V: GV evaluated state by state beyond the kept set is <= -η, as proved. The same V
    without its cell weights (g = 1) has GV > 0 on the face y = 0 (brute force), and the exact proof
    refuses it; so does a base too steep for its weights."""
    model = tandem(0.9, 1.0, 1.0)
    V, level, T, found = find_face_geometric(model, 1e-8, 10**6)
    chain = truncate_lattice(V.states(level), model.moves, model.feasible, reference=(0, 0))
    drift = prove_linear_geometric(model, found, T, V, level, chain)
    assert drift is not None
    outside = _outside_grid(V, level)
    assert lattice_generator_drift(outside, model.moves, V).max() <= -drift.outside

    flat = LinearGeometric(V.base, V.weights, model, V.layers, np.ones_like(V.cells))
    gv = lattice_generator_drift(outside, model.moves, flat)
    face = outside[:, 1] == 0
    assert gv[face].max() > 0                                    # brute force: the drift is positive there
    assert prove_linear_geometric(model, found, T, flat, level, chain) is None
    steep = LinearGeometric(sympy.Rational(3, 2), V.weights, model, V.layers, V.cells)
    assert lattice_generator_drift(outside, model.moves, steep).max() > 0
    assert prove_linear_geometric(model, found, T, steep, level, chain) is None


@pytest.mark.slow
def test_an_unstable_tandem_is_refused():
    """λ = 1.05 > μ_2 = 1: no stationary law, so no V is found, never an interval."""
    with pytest.raises(ConvergenceError, match="g\\(cell\\)"):
        stationary_bounds(tandem(1.05, 1.2, 1.0), {"x": x}, width=1e-6, max_states=200_000)


def test_states_is_the_deprecated_name_of_n_states():
    model = PopulationModel([x], [((1,), 1.0), ((-1,), 2.0)])
    bounds = stationary_bounds(model, {"empty": 1 - sympy.Min(x, 1)})
    with pytest.warns(AnalyticDeprecationWarning, match="StationaryBounds.states is renamed n_states"):
        assert bounds.states == bounds.n_states
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert bounds.n_states == len(bounds.truncation.states)


@pytest.mark.parametrize("weights", [(1, 2), (3, 1), (1, 1, 1), (2, 3, 5)])
def test_kept_set_count_equals_the_enumerated_states(weights):
    # count() sums the points of w·x <= L without listing them; states() lists them
    symbols = sympy.symbols(f"u0:{len(weights)}")
    unit = [tuple(int(j == i) for j in range(len(weights))) for i in range(len(weights))]
    V = LinearGeometric(sympy.Integer(2), weights, PopulationModel(list(symbols), [(u, 1) for u in unit]))
    for level in (0, 1, 5, 17, 40):
        assert V.count(level) == len(V.states(level))
