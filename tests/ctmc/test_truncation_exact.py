"""Each part of a certified truncation (analytic.ctmc.truncation) against its exact value.

The containment tests of tests/ctmc/test_truncation.py pass for bounds that are too large, and also for
many that are too small. Here each component is compared with the exact quantity it bounds, and
each interval is tried on a case where it is nearly attained, so that a bound smaller than it must
be fails:

* the neglected mass ``ε = c / (c + η)`` against the exact ``π(S \\ K)`` (rationals, fractions.Fraction)
  on chains where the theorem is tight (``GV`` constant on the kept set and off it);
* ``c`` and ``η`` against a brute-force maximum and minimum of ``GV`` in exact rationals (the doubles
  ``V`` returns are the Lyapunov function; mpmath at 50 digits where ``e^θ`` enters);
* the bound on ``GV`` and on ``(-Q w)`` against the exact sums of the same doubles;
* the mean hitting times ``m`` and ``κ = max_y Σ_j q(y, j) m_j`` against an exact rational solve;
* the interval of the theorem's part (iii) against a brute-force search of its range, and the law
  interval against laws whose errors reach their stated bounds.
"""

import dataclasses
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp

import analytic.ctmc.truncation as truncation
from analytic.ctmc.truncation import (
    Drift,
    function_drift_inside,
    hitting_time_bound,
    lattice_drift,
    lattice_generator_drift,
    level_drift,
    solve_truncated,
    truncate_function,
    truncate_lattice,
)

UNIT = 2.0**-53


def _solve_exact(matrix, rhs):
    """``matrix x = rhs`` in exact rationals by Gaussian elimination (small dense systems)."""
    n = len(rhs)
    a = [[Fraction(v) for v in row] + [Fraction(b)] for row, b in zip(matrix, rhs, strict=True)]
    for col in range(n):
        pivot = next(r for r in range(col, n) if a[r][col] != 0)
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(n):
            if r != col and a[r][col] != 0:
                factor = a[r][col] / a[col][col]
                a[r] = [x - factor * y for x, y in zip(a[r], a[col], strict=True)]
    return [a[i][n] / a[i][i] for i in range(n)]


def _exact_drift(states, moves, lyapunov):
    """``GV`` at each row of ``states`` in exact rationals, from the doubles the rates and ``V`` return."""
    base = [Fraction(float(v)) for v in lyapunov(states)]
    total = [Fraction(0)] * len(states)
    for displacement, rate in moves:
        r = rate(states)
        active = np.flatnonzero(r > 0)
        targets = lyapunov(states[active] + np.asarray(displacement))
        for i, target in zip(active.tolist(), targets.tolist(), strict=True):
            total[i] += Fraction(float(r[i])) * (Fraction(target) - base[i])
    return total


def _birth_death_moves(arrival, service, top):
    return [((1,), lambda X: arrival * (X[:, 0] < top)), ((-1,), lambda X: service * (X[:, 0] > 0))]


# ---------------------------------------------------------------------------------------------
# The neglected mass where the theorem is tight


def test_two_states_neglected_mass_is_the_exact_mass_outside():
    """S = {0, 1}, K = {0}, rates 1 (0 -> 1) and 3 (1 -> 0), V(x) = x: GV = 1 on K and -3 off it, so
    ε = 1 / 4 = π(1) exactly, and the lower end of P(X = 0) = 3/4 is attained up to rounding."""
    moves = _birth_death_moves(1.0, 3.0, 1)
    chain = truncate_lattice(np.array([[0]]), moves, lambda X: X[:, 0] <= 1, (0,))
    drift = lattice_drift([np.arange(2)[:, None]], moves, lambda X: 1.0 * X[:, 0], chain)
    result = solve_truncated(chain, drift)
    outside = Fraction(1, 4)
    assert outside <= Fraction(result.neglected_mass) <= outside * (1 + Fraction(1, 10**14))
    low, high = result.interval(lambda X: 1.0 * (X[:, 0] == 0), 0.0, 1.0)
    assert Fraction(low) <= 1 - outside <= Fraction(high)
    assert 1 - outside - Fraction(low) < Fraction(1, 10**14)


def _poisson_lyapunov(arrival, service, top, level):
    """V on {0..top} of the M/M/1/top queue with GV = δ on {0..level} and GV = δ - 1 above, δ = π(x > level)
    (Poisson's equation, solved in rationals, then rounded to doubles and shifted to V >= 0)."""
    rho = Fraction(arrival) / Fraction(service)
    weights = [rho**k for k in range(top + 1)]
    delta = sum(weights[level + 1:]) / sum(weights)
    steps, previous = [], Fraction(0)
    for x in range(top):                        # λ D(x) - μ D(x - 1) = h(x), D(x) = V(x + 1) - V(x)
        h = delta - (1 if x > level else 0)
        previous = (h + Fraction(service) * previous) / Fraction(arrival)
        steps.append(previous)
    values = [Fraction(0)]
    for step in steps:
        values.append(values[-1] + step)
    shift = min(values)
    table = np.array([float(v - shift) for v in values])
    return (lambda X: table[X[:, 0]]), delta


def test_poisson_lyapunov_function_makes_the_neglected_mass_exact():
    """With V solving Poisson's equation GV = δ 1_K - (1 - δ) 1_{S \\ K}, the bound c / (c + η) is δ itself:
    ε may exceed the exact π(S \\ K) = δ only by the rounding of V (relative 1e-8 here); c and η are the
    brute-force extremes of GV over the states (listed in chunks of three, highest first), in exact rationals;
    P(X <= 5) = 1 - δ is nearly attained."""
    top, level = 16, 5
    moves = _birth_death_moves(1.0, 2.0, top)
    lyapunov, delta = _poisson_lyapunov(1.0, 2.0, top, level)
    every = np.arange(top + 1)[:, None]
    chain = truncate_lattice(every[: level + 1], moves, lambda X: X[:, 0] <= top, (0,))
    drift = lattice_drift([every[k:k + 3] for k in reversed(range(0, top + 1, 3))], moves, lyapunov, chain)
    exact = _exact_drift(every, moves, lyapunov)
    largest, least = max(exact[: level + 1]), min(-g for g in exact[level + 1:])
    assert largest <= Fraction(drift.inside) <= largest + Fraction(1, 10**12)
    assert least - Fraction(1, 10**12) <= Fraction(drift.outside) <= least
    result = solve_truncated(chain, drift)
    assert delta <= Fraction(result.neglected_mass) <= delta * (1 + Fraction(1, 10**8))
    low, high = result.interval(lambda X: 1.0 * (X[:, 0] <= level), 0.0, 1.0)
    assert Fraction(low) <= 1 - delta <= Fraction(high) and 1 - delta - Fraction(low) < delta * Fraction(1, 10**7)


def test_level_drift_on_the_empty_state_is_tight():
    """M/M/1 (λ = 1, μ = 2) kept at {0}, V = e^{θ x}: ε = (e^θ - 1) / ((e^θ - 1) + e^θ (3 - e^θ - 2 e^{-θ}))
    = 1 / (3 - e^θ), which tends to π(x >= 1) = 1/2 as θ -> 0 (θ = 1e-4: ε - 1/2 = 2.5e-5)."""
    step = lambda x: [(x + 1, 1.0), (x - 1, 2.0 * (x > 0))]         # noqa: E731
    theta = 1e-4
    chain = truncate_function([0], step, [1], 0)
    inside = function_drift_inside([0], step, lambda x: math.exp(theta * x))
    drift = level_drift([0], lambda p: [(0, 1, 1.0), (0, -1, 2.0)], theta, np.ones(1), 0, inside, "M/M/1", kept=chain)
    epsilon = solve_truncated(chain, drift).neglected_mass
    assert 0.5 <= epsilon <= 0.5 + 2.6e-5


def test_level_drift_bound_outside_is_the_exact_least_drift_above_the_level():
    """η = e^{θ (L + 1)} (λ + μ - λ e^θ - μ e^{-θ}), the least -GV above L (mpmath, 50 digits; θ the double 0.4),
    to its rounding (relative 1e-12: the sum of D cancels 17-fold); c is the largest GV on 0..L, in exact
    rationals of the doubles V(x) = 1.5^x."""
    step = lambda x: [(x + 1, 1.0), (x - 1, 2.0 * (x > 0))]         # noqa: E731
    level, theta = 7, 0.4
    chain = truncate_function(list(range(level + 1)), step, [level + 1], 0)
    inside = function_drift_inside(range(level + 1), step, lambda x: 1.5**x)
    largest = max(sum(Fraction(rate) * (Fraction(1.5**y) - Fraction(1.5**x)) for y, rate in step(x) if rate > 0)
                  for x in range(level + 1))
    assert largest <= Fraction(inside) <= largest * (1 + Fraction(1, 10**14))
    drift = level_drift([0], lambda p: [(0, 1, 1.0), (0, -1, 2.0)], theta, np.ones(1), level, inside, "M/M/1", kept=chain)
    with mpmath.workdps(50):
        t = mpmath.mpf(theta)
        exact = mpmath.exp(t * (level + 1)) * (3 - mpmath.exp(t) - 2 * mpmath.exp(-t))
        assert exact * (1 - mpmath.mpf(10) ** -12) <= drift.outside <= exact


def test_level_drift_near_the_decay_rate_bounds_the_rounding_of_d():
    """M/M/1 (λ = 1, μ = 2) with θ within 1e-7 to 4e-6 of the decay rate log 2: D = e^θ - 1 + 2 (e^{-θ} - 1)
    cancels a million-fold, so its double sum errs by far more than its relative rounding; η must still be at
    most the exact e^{θ (L + 1)} (-D) (mpmath, 50 digits), which the plain sum overshoots at some of these θ."""
    step = lambda x: [(x + 1, 1.0), (x - 1, 2.0 * (x > 0))]         # noqa: E731
    chain = truncate_function(list(range(4)), step, [4], 0)
    overshoots = 0
    for j in range(1, 41):
        theta = math.log(2) * (1 - j * 1e-7)
        drift = level_drift([0], lambda p: [(0, 1, 1.0), (0, -1, 2.0)], theta, np.ones(1), 3, 1.0, "M/M/1", kept=chain)
        plain = 1.0 * (math.exp(theta) - 1.0) + 2.0 * (math.exp(-theta) - 1.0)
        with mpmath.workdps(50):
            t = mpmath.mpf(theta)
            exact = -(mpmath.exp(t) - 1 + 2 * (mpmath.exp(-t) - 1))
            assert drift.outside <= mpmath.exp(4 * t) * exact
            overshoots += -plain * (1 - 8 * UNIT) > exact
    assert overshoots > 0


# ---------------------------------------------------------------------------------------------
# The bound on GV and on (-Q w): above the exact sums of the same doubles, and close to them


def _rounding_moves():
    rng = np.random.default_rng(7)
    scale = rng.uniform(0.3, 3.0, size=4)
    return [((1, 0), lambda X: scale[0] * (1 + np.sin(X[:, 0] + 2.0 * X[:, 1]) ** 2)),
            ((-1, 0), lambda X: scale[1] * X[:, 0]),
            ((0, 1), lambda X: scale[2] * (1 + np.cos(0.7 * X[:, 0]) ** 2)),
            ((0, -1), lambda X: scale[3] * np.sqrt(X[:, 1]))]


def test_drift_bound_is_above_the_exact_drift_of_the_same_doubles():
    """lattice_generator_drift against GV summed in exact rationals: never below, above by at most the
    rounding of the sums; and the plain double sum does fall below the exact one at some states
    (so a bound without its rounding term would be too small there)."""
    rng = np.random.default_rng(3)
    states = rng.integers(1, 60, size=(1500, 2))
    moves = _rounding_moves()
    lyapunov = lambda X: np.exp(0.31 * X[:, 0] + 0.17 * X[:, 1]) * (1 + 0.1 * np.cos(X[:, 0]))        # noqa: E731
    bound = lattice_generator_drift(states, moves, lyapunov)
    exact = _exact_drift(states, moves, lyapunov)
    plain, magnitude = np.zeros(len(states)), np.zeros(len(states))
    for displacement, rate in moves:
        term = rate(states) * (lyapunov(states + np.asarray(displacement)) - lyapunov(states))
        plain += term
        magnitude += np.abs(term)
    assert all(Fraction(b) >= g for b, g in zip(bound.tolist(), exact, strict=True))
    assert np.all(bound - plain <= 8 * 8 * UNIT * magnitude + 1e-300)
    assert any(Fraction(p) < g for p, g in zip(plain.tolist(), exact, strict=True))


def test_function_drift_inside_is_above_the_exact_largest_drift():
    step = lambda x: [(x + 1, 0.7 + 0.01 * x), (x - 1, 1.3 * min(x, 4) * 1.0)]      # noqa: E731
    lyapunov = lambda x: math.exp(0.37 * x) * (1 + 0.05 * math.sin(x))               # noqa: E731
    inside = function_drift_inside(range(60), step, lyapunov)
    exact = max(sum(Fraction(rate) * (Fraction(lyapunov(y)) - Fraction(lyapunov(x))) for y, rate in step(x) if rate > 0)
                for x in range(60))
    assert exact <= Fraction(inside) <= exact * (1 + Fraction(1, 10**13))


def _random_rates(size, seed):
    rng = np.random.default_rng(seed)
    rates = rng.exponential(size=(size, size)) * (rng.random((size, size)) < 0.3)
    rates += np.diag(rng.uniform(0.5, 2.0, size - 1), 1) + np.diag(rng.uniform(0.5, 2.0, size - 1), -1)
    np.fill_diagonal(rates, 0.0)
    return rates


def test_hitting_time_check_is_below_the_exact_supplied_rows():
    """The checked lower bound on (-Q w)_i = Σ_j q_ij (w_i - w_j), against the exact rational sum of the same
    doubles, on random rates and w: never above; and the plain double sum does exceed the exact one at some
    rows (a check without the rounding slack would accept a w falling short there)."""
    rates = sp.csr_array(_random_rates(200, 5))
    w = np.random.default_rng(6).uniform(1e3, 2e3, size=200)
    lower, _ = truncation._supplied_lower(rates, w)
    coo = rates.tocoo()
    exact = [Fraction(0)] * 200
    for i, j, q in zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist(), strict=True):
        exact[i] += Fraction(q) * (Fraction(float(w[i])) - Fraction(float(w[j])))
    plain = np.bincount(coo.row, weights=coo.data * (w[coo.row] - w[coo.col]), minlength=200)
    assert all(Fraction(b) <= e for b, e in zip(lower.tolist(), exact, strict=True))
    assert any(Fraction(p) > e for p, e in zip(plain.tolist(), exact, strict=True))


# ---------------------------------------------------------------------------------------------
# Hitting times and κ against exact rational solves


def _exact_hitting_times(rates, reference):
    """m_j = E_j σ_z from (-Q) m = 1 off z, in exact rationals."""
    n = len(rates)
    others = [i for i in range(n) if i != reference]
    outflow = [math.fsum(row) for row in rates.tolist()]
    matrix = [[(Fraction(outflow[i]) if i == j else 0) - Fraction(float(rates[i, j])) for j in others] for i in others]
    solution = _solve_exact(matrix, [1] * len(others))
    m = [Fraction(0)] * n
    for i, value in zip(others, solution, strict=True):
        m[i] = value
    return m


@pytest.mark.parametrize("shrink", [0.6, 0.3])
def test_hitting_time_bound_corrects_a_solve_that_falls_short(monkeypatch, shrink):
    """A linear solve returning too small a w (0.6 and 0.3 times the solution) must be corrected, not
    accepted: the result is still above the exact mean hitting times (rationals) and within 1e-5 of them."""
    rates = _random_rates(14, 11)
    factor = truncation._factor

    def short(matrix):
        solve = factor(matrix)
        return lambda rhs: shrink * solve(rhs)

    monkeypatch.setattr(truncation, "_factor", short)
    bound = hitting_time_bound(sp.csr_array(rates), 4)
    exact = _exact_hitting_times(rates, 4)
    assert all(Fraction(b) >= m for b, m in zip(bound.tolist(), exact, strict=True))
    assert all(Fraction(b) <= m * (1 + Fraction(1, 10**5)) for b, m in zip(bound.tolist(), exact, strict=True))


def test_hitting_times_reaching_1e9_are_bounded():
    """fcfs_bounds' M/M/2000 at λ = 1900 kept at 0..2361 with the empty queue as reference (every exit, an
    arrival at 2361, lands on it): the mean hitting times of 0 reach 1.8e9, where the rounding of w itself
    moves (-Q w) by 1e-3 (the check used to fail there, "the smallest checked row gave 1 < 1"; the bound is
    within 1 % of m, the room left for that rounding). Exact: the tridiagonal system (-Q) m = 1, m_0 = 0,
    eliminated in mpmath at 50 digits."""
    top, arrival = 2361, 1900.0
    service = np.minimum(np.arange(top + 1), 2000).astype(float)
    rates = sp.diags_array([np.full(top, arrival), service[1:]], offsets=[1, -1]).tolil()
    rates[top, 0] = arrival
    bound = hitting_time_bound(sp.csr_array(rates), 0)
    with mpmath.workdps(50):
        # row i: (λ + μ_i) m_i - λ m_(i+1) - μ_i m_(i-1) = 1 (no m_(top+1): the arrival at the top exits to 0)
        upper, right = [mpmath.mpf(0)] * (top + 1), [mpmath.mpf(0)] * (top + 1)
        for i in range(1, top + 1):
            pivot = arrival + service[i] - (service[i] * upper[i - 1] if i > 1 else 0)
            upper[i] = (arrival if i < top else 0) / pivot
            right[i] = (1 + (service[i] * right[i - 1] if i > 1 else 0)) / pivot
        exact = [mpmath.mpf(0)] * (top + 2)
        for i in range(top, 0, -1):
            exact[i] = right[i] + upper[i] * exact[i + 1]
        exact = np.array([float(v) for v in exact[: top + 1]])
    assert exact.max() > 1e9
    assert np.all(bound >= exact) and np.all(bound <= exact * 1.01)


N_SMALL, RATES = 12, (1.0, 2.0, 1.2, 2.0)


def _network_moves():
    l1, m1, l2, m2 = RATES
    return [((1, 0), lambda X: l1 * (X.sum(axis=1) < N_SMALL)), ((-1, 0), lambda X: m1 * (X[:, 0] > 0)),
            ((0, 1), lambda X: l2 * (X.sum(axis=1) < N_SMALL)), ((0, -1), lambda X: m2 * (X[:, 1] > 0))]


def test_entry_cost_is_the_largest_entry_flow_times_exact_hitting_times():
    """Two queues on {x + y <= 12} kept at x, y <= 5, V = 1.5^x + 1.5^y evaluated in chunks of 7 states: c and η are
    the extremes of GV in exact rationals; κ = max over the states y outside of Σ_j q(y, j) m_j,
    with m the exact mean hitting times of (0, 0) in the truncated chain (rationals, exits sent to (0, 0));
    the states outside differ (their mean is well below the largest), so κ must be their maximum."""
    every = np.array([(x, y) for x in range(N_SMALL + 1) for y in range(N_SMALL + 1 - x)])
    kept = every[(every[:, 0] <= 5) & (every[:, 1] <= 5)]
    moves = _network_moves()
    chain = truncate_lattice(kept, moves, lambda X: X.sum(axis=1) <= N_SMALL, (0, 0))
    lyapunov = lambda X: 1.5 ** X[:, 0] + 1.5 ** X[:, 1]          # noqa: E731
    drift = lattice_drift([every[k:k + 7] for k in range(0, len(every), 7)], moves, lyapunov, chain)
    exact, inside = _exact_drift(every, moves, lyapunov), (every[:, 0] <= 5) & (every[:, 1] <= 5)
    largest, least = max(np.array(exact)[inside]), min(-np.array(exact)[~inside])
    assert largest <= Fraction(drift.inside) <= largest * (1 + Fraction(1, 10**12))        # the sums cancel
    assert least * (1 - Fraction(1, 10**12)) <= Fraction(drift.outside) <= least
    result = solve_truncated(chain, drift)
    index = {tuple(s): i for i, s in enumerate(kept.tolist())}
    rates = np.zeros((len(kept), len(kept)))
    for displacement, rate in moves:
        r = rate(kept)
        for i, target in enumerate((kept + np.asarray(displacement)).tolist()):
            if r[i] > 0:
                rates[i, index.get(tuple(target), index[0, 0])] += r[i]
    np.fill_diagonal(rates, 0.0)
    m = _exact_hitting_times(rates, index[0, 0])
    assert all(m_j <= Fraction(b) <= m_j * (1 + Fraction(1, 10**5)) for m_j, b in zip(m, result.hitting_times.tolist(),
                                                                                        strict=True))
    flows = []
    for state in every[~((every[:, 0] <= 5) & (every[:, 1] <= 5))]:
        flow = Fraction(0)
        for displacement, rate in moves:
            target = tuple((state + np.asarray(displacement)).tolist())
            r = float(rate(state[None, :])[0])
            if r > 0 and target in index:
                flow += Fraction(r) * m[index[target]]
        flows.append(flow)
    largest = max(flows)
    assert sum(flows) / len(flows) < largest / 2
    assert largest <= Fraction(result.entry_cost) <= largest * (1 + Fraction(1, 10**5))


# ---------------------------------------------------------------------------------------------
# The intervals: the theorem's range, and the law's stated accuracy


def _whole_birth_death(top=5):
    moves = _birth_death_moves(1.0, 2.0, top)
    chain = truncate_lattice(np.arange(top + 1)[:, None], moves, lambda X: X[:, 0] <= top, (0,))
    law = [Fraction(1, 2**k) for k in range(top + 1)]
    return solve_truncated(chain, Drift.nothing_left_out()), [p / sum(law) for p in law]


def _range(nu, epsilon, kappa, a, b, outside):
    """The least and largest (1 - δ) ν + E + O of part (iii) on a grid of δ in [0, ε] (ends included) with
    the extreme M = δ κ and E at (a - ν) M and (b - ν) M, O at the ends of ``outside(δ)``."""
    values = []
    for delta in np.linspace(0.0, epsilon, 41):
        for mass in (0.0, delta * kappa):
            for e in ((a - nu) * mass, (b - nu) * mass):
                values += [(1 - delta) * nu + e + o for o in outside(delta)]
    return min(values), max(values)


@pytest.mark.parametrize("sign,bounds", [
    (1.0, dict(outside=(0.0, 2.0))),          # ν > 0 and a small κ: the largest value is at δ = 0
    (-1.0, dict(outside=(-2.0, 0.0))),        # ν < 0: the least value is at δ = 0
    (1.0, dict(low=0.0, high=8.0)),
    (-1.0, dict(low=-8.0, high=0.0)),
])
def test_interval_is_the_extreme_of_the_theorem_range(sign, bounds):
    """Truncation.interval against a brute-force search of the range of part (iii) for a given ν (a law with
    zero error bounds), ε = 0.1 and κ = 0.1: it contains the range and exceeds it by rounding only, so a
    corner left out (δ = 0 or δ = ε) makes it too narrow."""
    result, _ = _whole_birth_death()
    law = dataclasses.replace(result.law, error_bounds=np.zeros(len(result.law.probabilities)))
    result = dataclasses.replace(result, law=law, neglected_mass=0.1, entry_cost=0.1)
    f = sign * np.arange(6.0)
    nu = math.fsum(law.probabilities * f)
    if "outside" in bounds:
        outside = lambda delta: bounds["outside"]           # noqa: E731
    else:
        outside = lambda delta: (bounds["low"] * delta, bounds["high"] * delta)        # noqa: E731
    least, largest = _range(nu, 0.1, 0.1, f.min(), f.max(), outside)
    low, high = result.interval(f, **bounds)
    assert low <= least and high >= largest
    assert least - low < 1e-13 and high - largest < 1e-13


def test_interval_bounds_its_own_rounding():
    """Random rewards of mixed sign and size, neglected masses and entry costs (ν from a law with zero error
    bounds): each end of the interval is beyond the exact rational extreme of part (iii) at its corners (within
    [low, high], which holds π(f) anyway), which the plain double evaluation of the corners misses in some
    of these draws."""
    result, _ = _whole_birth_death()
    law = dataclasses.replace(result.law, error_bounds=np.zeros(6))
    rng = np.random.default_rng(12)
    misses = 0
    for _ in range(300):
        f = rng.normal(size=6) * 10.0 ** rng.integers(-3, 4) + rng.normal() * 10.0 ** rng.integers(-3, 4)
        epsilon, kappa = 10.0 ** rng.uniform(-12, -1), 10.0 ** rng.uniform(-2, 8)
        low, high = f.min() - 10.0 ** rng.uniform(-2, 10), f.max() + 10.0 ** rng.uniform(-2, 10)
        trial = dataclasses.replace(result, law=law, neglected_mass=epsilon, entry_cost=kappa)
        found = trial.interval(f, low, high)
        nu = sum(Fraction(p) * Fraction(v) for p, v in zip(law.probabilities.tolist(), f.tolist(), strict=True))
        a, b, e, k = Fraction(f.min()), Fraction(f.max()), Fraction(epsilon), Fraction(kappa)
        least = max(Fraction(low), min(nu, (1 - e) * nu + (a - nu) * e * k + Fraction(low) * e))        # low <= π(f)
        largest = min(Fraction(high), max(nu, (1 - e) * nu + (b - nu) * e * k + Fraction(high) * e))
        assert Fraction(found[0]) <= least and Fraction(found[1]) >= largest
        plain = float(nu)
        corners = [plain, (1 - epsilon) * plain + (f.min() - plain) * epsilon * kappa + low * epsilon,
                   (1 - epsilon) * plain + (f.max() - plain) * epsilon * kappa + high * epsilon]
        misses += Fraction(max(low, min(corners))) > least or Fraction(min(high, max(corners))) < largest
    assert misses > 0


@pytest.mark.parametrize("direction", [1, -1])
def test_law_interval_reaches_the_law_within_its_stated_errors(direction):
    """A law on the whole M/M/1/5 chain whose probabilities of {0, 1} are off by the factor 1 ± 10^-3, each
    with that error as its stated bound (relative to the computed value): the interval of P(X <= 1) must
    still contain the exact 48/63 (rationals) and reach it (one end within 1e-13)."""
    result, exact = _whole_birth_death()
    error = Fraction(direction, 1000)
    computed = [p * (1 + error) if k <= 1 else p for k, p in enumerate(exact)]
    stated = [abs(error) / (1 + error) if k <= 1 else Fraction(0) for k in range(6)]
    law = dataclasses.replace(result.law, probabilities=np.array([float(p) for p in computed]),
                              error_bounds=np.array([float(b) * (1 + 4 * UNIT) for b in stated]))
    low, high = dataclasses.replace(result, law=law).interval(lambda X: 1.0 * (X[:, 0] <= 1), 0.0, 1.0)
    target = exact[0] + exact[1]
    assert Fraction(low) <= target <= Fraction(high)
    reached = target - Fraction(low) if direction > 0 else Fraction(high) - target
    assert reached < Fraction(1, 10**13)


def test_unvouched_mass_goes_to_the_interval():
    """A state the solver did not vouch for (error bound inf) and gave probability 0: the mass the vouched
    states leave, its exact 8/63, must come back in the interval of its indicator (up to rounding)."""
    result, exact = _whole_birth_death()
    probabilities = np.array([0.0 if k == 2 else float(p) for k, p in enumerate(exact)])
    bounds = np.array([np.inf if k == 2 else 0.0 for k in range(6)])
    law = dataclasses.replace(result.law, probabilities=probabilities, error_bounds=bounds)
    low, high = dataclasses.replace(result, law=law).interval(lambda X: 1.0 * (X[:, 0] == 2), 0.0, 1.0)
    assert Fraction(low) <= exact[2] <= Fraction(high) < exact[2] + Fraction(1, 10**13)
