"""Certified intervals for a population model a user writes (analytic.ctmc.bounds, analytic.ctmc.lyapunov).

References, independent of the truncation: the product form of a birth–death chain summed in mpmath
at 50 digits (to the level where the terms fall below 1e-60 of the sum), Erlang's formula C in exact
rationals, the exact drift of V in rationals state by state, and the law of a finite chain by
pinned LU at 80 digits.
"""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy
from references import pinned_lu_reference

from analytic.ctmc.bounds import stationary_bounds
from analytic.ctmc.lyapunov import find_geometric, prove_geometric, tail_drift
from analytic.ctmc.population import PopulationModel
from analytic.ctmc.truncation import truncate_lattice
from analytic.errors import (
    ConvergenceError,
    InvalidParameterError,
    ReducibleChainError,
    StateSpaceTooLargeError,
    UnstableSystemError,
)

x, y = sympy.symbols("x y")


def product_form(birth, death, rewards, digits=50):
    """Stationary expectations of a birth–death chain on 0, 1, ... by its product form (mpmath)."""
    with mpmath.workdps(digits):
        weights, w, k = [mpmath.mpf(1)], mpmath.mpf(1), 0
        while True:
            k += 1
            w = w * mpmath.mpf(birth(k - 1)) / mpmath.mpf(death(k))
            weights.append(w)
            if k > 20 and w < mpmath.mpf(10) ** -60 * weights[0] and w < weights[-2]:
                break
        total = mpmath.fsum(weights)
        return [float(mpmath.fsum(wk * f(j) for j, wk in enumerate(weights)) / total) for f in rewards]


def test_the_issue_example_an_mm3_queue_against_erlang_c():
    # Erlang C, a = 2, s = 3, in rationals: P(wait) = 4/9, P(0) = 1/9, E[N] = a + P(wait) a / (s - a) = 26/9
    model = PopulationModel([x], [((1,), 2.0), ((-1,), sympy.Min(x, 3))])
    bounds = stationary_bounds(model, {"mean": x, "empty": 1 - sympy.Min(x, 1)})
    assert 26 / 9 in bounds["mean"] and 1 / 9 in bounds["empty"]
    assert bounds.width <= 1e-8
    assert bounds.lyapunov.free_symbols == {x}


CASES = {
    "quadratic death (2X -> 0 as a per-molecule rate)": ([((1,), 10.0), ((-1,), x + x * (x - 1) / 20)],
                                                        lambda k: 10.0, lambda k: k + k * (k - 1) / 20),
    "reneging beyond 2 servers": ([((1,), 5.0), ((-1,), sympy.Min(x, 2) + 0.1 * sympy.Max(x - 2, 0))],
                                  lambda k: 5.0, lambda k: min(k, 2) + 0.1 * max(k - 2, 0)),
    "M/M/1 at load 0.95 (Piecewise service)": ([((1,), 0.95), ((-1,), sympy.Piecewise((1, x > 0), (0, True)))],
                                                lambda k: 0.95, lambda k: 1.0 * (k > 0)),
    "linear birth, linear death": ([((1,), 1 + 0.5 * x), ((-1,), x)], lambda k: 1 + 0.5 * k, lambda k: k),
    "Schlögl-type cubic rates": ([((1,), 6 + x * (x - 1) * sympy.Rational(3, 10)),
                                  ((-1,), x + x * (x - 1) * (x - 2) / 100)],
                                 lambda k: 6 + k * (k - 1) * 0.3, lambda k: k + k * (k - 1) * (k - 2) / 100),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_intervals_contain_the_product_form_and_are_narrow(name):
    transitions, birth, death = CASES[name]
    bounds = stationary_bounds(PopulationModel([x], transitions),
                               {"mean": x, "empty": sympy.Piecewise((1, sympy.Eq(x, 0)), (0, True)), "square": x**2},
                               width=1e-8)
    exact = product_form(birth, death, [lambda k: k, lambda k: float(k == 0), lambda k: k * k])
    for value, name_ in zip(exact, ["mean", "empty", "square"], strict=True):
        assert value in bounds[name_], (name_, value, bounds[name_])
        assert bounds[name_].width <= 1e-8 * max(1.0, abs(value))   # width is absolute; x^2 may need it relative
    assert bounds.neglected_mass < 1e-9


def _random_birth_death(seed):
    rng = np.random.default_rng(seed)
    kind = rng.integers(5)
    lam = float(rng.uniform(0.2, 5.0))
    c = int(rng.integers(1, 6))
    mu = float(rng.uniform(0.5, 2.0))
    if kind == 0:      # M/M/c, stable: lam < c mu
        lam = min(lam, 0.97 * c * mu)
        return [((1,), lam), ((-1,), mu * sympy.Min(x, c))], lambda k: lam, lambda k: mu * min(k, c)
    if kind == 1:      # reneging beyond c servers at rate theta each
        theta = float(rng.uniform(0.01, 1.0))
        return ([((1,), lam), ((-1,), mu * sympy.Min(x, c) + theta * sympy.Max(x - c, 0))],
                lambda k: lam, lambda k: mu * min(k, c) + theta * max(k - c, 0))
    if kind == 2:      # discouraged arrivals: rate lam max(1 - a x, 0.2), c servers
        a = float(rng.uniform(0.01, 0.5))
        lam = min(lam, 0.97 * c * mu / 0.2)
        return ([((1,), lam * sympy.Max(1 - a * x, 0.2)), ((-1,), mu * sympy.Min(x, c))],
                lambda k: lam * max(1 - a * k, 0.2), lambda k: mu * min(k, c))
    if kind == 3:      # linear birth below linear death, plus immigration
        b = float(rng.uniform(0.0, 0.9))
        return [((1,), lam + b * mu * x), ((-1,), mu * x)], lambda k: lam + b * mu * k, lambda k: mu * k
    # Schlögl-like polynomial rates: autocatalytic quadratic birth, cubic death (bimodal for some draws)
    a2, d3 = float(rng.uniform(0.0, 0.3)), float(rng.uniform(0.001, 0.02))
    return ([((1,), lam + a2 * x * (x - 1)), ((-1,), mu * x + d3 * x * (x - 1) * (x - 2))],
            lambda k: lam + a2 * k * (k - 1), lambda k: mu * k + d3 * k * (k - 1) * (k - 2))


@pytest.mark.parametrize("seed", range(200))
def test_random_birth_death_models_are_bounded_around_their_product_form(seed):
    transitions, birth, death = _random_birth_death(seed)
    bounds = stationary_bounds(PopulationModel([x], transitions),
                               {"mean": x, "busy": sympy.Min(x, 1)}, width=1e-6)
    exact = product_form(birth, death, [lambda k: k, lambda k: min(k, 1)])
    assert exact[0] in bounds["mean"] and exact[1] in bounds["busy"]
    assert bounds.width <= 1e-6


def test_the_drift_bound_on_the_kept_set_is_the_exact_maximum_up_to_rounding():
    # c against GV evaluated in exact rationals at every kept state (V the doubles fl(beta^x))
    model = PopulationModel([x], CASES["reneging beyond 2 servers"][0])
    tail = tail_drift(model)
    lyapunov, level = find_geometric(model, tail, 1e-12)
    base = lyapunov.base
    states = np.arange(level + 1)[:, None]
    chain = truncate_lattice(states, model.moves, model.feasible, reference=(0,))
    drift = prove_geometric(model, tail, lyapunov, level, chain)
    V = lambda k: Fraction(float(base) ** k)                                       # noqa: E731
    birth = Fraction(5.0)

    def death(k):
        return Fraction(float(sympy.Min(k, 2) + sympy.Rational(0.1) * max(k - 2, 0)))

    exact = [birth * (V(k + 1) - V(k)) + (death(k) * (V(k - 1) - V(k)) if k else 0) for k in range(level + 1)]
    worst = max(max(exact), 0)
    assert worst <= Fraction(drift.inside) <= worst * (1 + Fraction(1, 10**12)) + Fraction(1, 10**300)
    # eta against the exact least -GV over the states beyond the level (the tail is monotone here)
    beyond = [-(birth * (V(k + 1) - V(k)) + death(k) * (V(k - 1) - V(k))) for k in range(level + 1, level + 400)]
    assert Fraction(drift.outside) <= min(beyond)
    assert Fraction(drift.outside) >= min(beyond) * Fraction(99, 100)


def test_the_neglected_mass_bounds_the_exact_mass_left_out_within_five_decades():
    # near the stability limit beta must stay below 1/rho = 1.0526 (67/64 = 1.047 is found), and
    # c / eta carries the constants of the drift: about 8e3 times the exact mass here
    transitions, birth, death = CASES["M/M/1 at load 0.95 (Piecewise service)"]
    model = PopulationModel([x], transitions)
    bounds = stationary_bounds(model, {"mean": x}, width=1e-6)
    level = int(bounds.truncation.states[:, 0].max())
    left_out = product_form(birth, death, [lambda k: float(k > level)])[0]
    assert left_out <= bounds.neglected_mass <= 1e5 * left_out


def test_a_bound_a_hundred_times_too_small_would_be_caught():
    # the deliberately tight case: narrowing the certified interval 100-fold around its midpoint
    # must exclude the exact value for at least one reward, or these tests could not see a bound too small
    transitions, birth, death = CASES["linear birth, linear death"]
    bounds = stationary_bounds(PopulationModel([x], transitions), {"mean": x, "square": x**2}, width=1e-6)
    exact = product_form(birth, death, [lambda k: k, lambda k: k * k])
    misses = 0
    for value, name in zip(exact, ["mean", "square"], strict=True):
        interval = bounds[name]
        middle, half = (interval.low + interval.high) / 2, interval.width / 200
        misses += not (middle - half <= value <= middle + half)
    assert misses >= 1


def test_a_model_with_every_count_bounded_is_solved_whole():
    # M/M/1/3 with a bounded phase; reference: pinned LU at 80 digits on the 8-state chain
    model = PopulationModel([x, y], [((1, 0), 1.0), ((-1, 0), 2.0 * (1 + y)), ((0, 1), 0.5), ((0, -1), 1.5)],
                            upper=[3, 1])
    bounds = stationary_bounds(model, {"full": sympy.Piecewise((1, sympy.Eq(x, 3)), (0, True))})
    states = [(a, b) for a in range(4) for b in range(2)]
    index = {s: i for i, s in enumerate(states)}
    rates = [[0.0] * 8 for _ in range(8)]
    for (a, b), i in index.items():
        for (da, db), r in [((1, 0), 1.0), ((-1, 0), 2.0 * (1 + b)), ((0, 1), 0.5), ((0, -1), 1.5)]:
            if (a + da, b + db) in index:
                rates[i][index[(a + da, b + db)]] += r
    law = pinned_lu_reference(rates, digits=80)
    full = float(law[index[(3, 0)]] + law[index[(3, 1)]])
    assert full in bounds["full"] and bounds.neglected_mass == 0 and bounds.lyapunov is None


def _random_environment_mean(arrivals, services, up, down, servers, digits=40):
    """E[x] of a queue with ``servers`` servers whose arrival and service rates follow a two-state
    phase (switching 0 -> 1 at ``up``, 1 -> 0 at ``down``), by the matrix-geometric method in
    mpmath (Neuts): R = -(A0 + R^2 A2) A1^-1 iterated, the boundary levels solved exactly."""
    with mpmath.workdps(digits):
        T = mpmath.matrix([[-mpmath.mpf(up), mpmath.mpf(up)], [mpmath.mpf(down), -mpmath.mpf(down)]])
        A0 = mpmath.diag([mpmath.mpf(a) for a in arrivals])

        def D(k):
            return mpmath.diag([mpmath.mpf(m) * min(k, servers) for m in services])

        def B(k):
            return T - A0 - D(k)

        A1, A2 = B(servers), D(servers)
        R = mpmath.zeros(2, 2)
        inverse = A1 ** -1
        for _ in range(200000):
            new = -(A0 + R * R * A2) * inverse
            if mpmath.mnorm(new - R, 1) < mpmath.mpf(10) ** (-digits + 5):
                R = new
                break
            R = new
        # unknowns: levels 0..c (2 (c + 1) values); balance at levels 0..c, level c uses pi_c (A1 + R A2)
        n = 2 * (servers + 1)
        M = mpmath.zeros(n, n)
        for k in range(servers + 1):
            blocks = {k: B(k) if k < servers else A1 + R * A2}
            if k > 0:
                blocks[k - 1] = A0
            if k < servers:
                blocks[k + 1] = D(k + 1)
            for j, block in blocks.items():
                for a in range(2):
                    for b in range(2):
                        M[2 * j + a, 2 * k + b] = block[a, b]      # row: from (j, a); column: balance of (k, b)
        geometric = (mpmath.eye(2) - R) ** -1
        system = M.T
        for j in range(servers):
            system[0, 2 * j] = system[0, 2 * j + 1] = 1
        tail = geometric * mpmath.matrix([1, 1])
        system[0, 2 * servers], system[0, 2 * servers + 1] = tail[0], tail[1]
        rhs = mpmath.zeros(n, 1)
        rhs[0] = 1
        pi = mpmath.lu_solve(system, rhs)
        last = mpmath.matrix([[pi[2 * servers], pi[2 * servers + 1]]])
        mean = mpmath.fsum(k * (pi[2 * k] + pi[2 * k + 1]) for k in range(servers))
        weight = (servers * geometric + R * geometric * geometric) * mpmath.matrix([1, 1])
        mean += (last * weight)[0]
        return float(mean)


def test_a_phase_model_pushed_back_in_every_phase_is_bounded():
    # an M/M/2 queue whose arrival rate alternates between 1 and 2.5 (y the phase, switching at 0.3 / 0.7);
    # reference: the matrix-geometric solution in mpmath at 40 digits
    model = PopulationModel([x, y], [((1, 0), 1 + 1.5 * y), ((-1, 0), 1.5 * sympy.Min(x, 2)), ((0, 1), 0.3),
                                     ((0, -1), 0.7)], upper=[None, 1])
    bounds = stationary_bounds(model, {"mean": x}, width=1e-9)
    assert _random_environment_mean([1.0, 2.5], [1.5, 1.5], 0.3, 0.7, 2) in bounds["mean"]
    assert bounds.width <= 1e-9


def test_a_phase_where_the_count_grows_needs_phase_weights_and_gets_them():
    # service only in phase 1: in phase 0 the queue grows, so V = beta^x alone has a positive drift
    # there; the weights found make it negative. Reference: matrix-geometric, mpmath at 40 digits
    model = PopulationModel([x, y], [((1, 0), 0.5), ((-1, 0), 3.0 * y), ((0, 1), 1.0), ((0, -1), 1.0)], upper=[None, 1])
    bounds = stationary_bounds(model, {"mean": x}, width=1e-8)
    assert _random_environment_mean([0.5, 0.5], [0.0, 3.0], 1.0, 1.0, 1) in bounds["mean"]
    assert bounds.width <= 1e-8
    assert "Piecewise" in sympy.srepr(bounds.lyapunov)          # the phases are weighted differently


def test_a_phase_model_failing_neuts_condition_is_refused():
    # service 3 in phase 1 only, phases equally likely: mean service capacity 1.5 < arrivals 2
    model = PopulationModel([x, y], [((1, 0), 2.0), ((-1, 0), 3.0 * y), ((0, 1), 1.0), ((0, -1), 1.0)], upper=[None, 1])
    with pytest.raises(UnstableSystemError, match="Neuts"):
        stationary_bounds(model, {"mean": x})


def test_a_phase_that_explodes_is_refused_with_what_was_tried():
    # in phase 0 births at rate x^2 outgrow any geometric V; no weights help (the chain can explode)
    model = PopulationModel([x, y], [((1, 0), x**2 * (1 - y)), ((-1, 0), x**3 * y), ((0, 1), 1.0), ((0, -1), 1.0)],
                            upper=[None, 1])
    with pytest.raises(ConvergenceError, match="no Lyapunov function found"):
        stationary_bounds(model, {"mean": x})


@pytest.mark.parametrize("transitions", [
    [((1,), 1.0), ((-1,), sympy.Min(x, 1))],                # M/M/1 at load 1: null recurrent
    [((1,), 2.0), ((-1,), sympy.Min(x, 1))],                # load 2: transient
    [((1,), 1 + x), ((-1,), x)],                            # linear rates with equal slopes: drift 1 far out
])
def test_a_model_that_is_not_pushed_back_is_refused_never_bounded(transitions):
    with pytest.raises(UnstableSystemError, match="not positive recurrent"):
        stationary_bounds(PopulationModel([x], transitions), {"mean": x})


def test_transient_states_are_refused_with_the_state_named():
    # a death rate x (x - 1) / 20 vanishes at 1: state 0 is never reached again
    model = PopulationModel([x], [((1,), 10.0), ((-1,), x * (x - 1) / 20)])
    with pytest.raises(ReducibleChainError, match=r"state \[1\]"):
        stationary_bounds(model, {"mean": x})


def test_errors_name_what_is_wrong():
    model = PopulationModel([x], [((1,), 2.0), ((-1,), sympy.Min(x, 3))])
    with pytest.raises(InvalidParameterError, match="rewards"):
        stationary_bounds(model, [x])
    with pytest.raises(InvalidParameterError, match="rewards"):
        stationary_bounds(model, {"bad": y})
    with pytest.raises(InvalidParameterError, match="rate"):
        stationary_bounds(model, {"bad": sympy.exp(x)})
    with pytest.raises(InvalidParameterError, match="width"):
        stationary_bounds(model, {"m": x}, width=0)
    with pytest.raises(InvalidParameterError, match="model"):
        stationary_bounds("M/M/3", {"m": x})
    with pytest.raises(StateSpaceTooLargeError, match="max_states=3"):
        stationary_bounds(model, {"m": x}, max_states=3)     # the rates are polynomials only beyond x = 3
    with pytest.raises(InvalidParameterError, match="negative"):
        stationary_bounds(PopulationModel([x], [((1,), 1.0), ((-1,), 5 - x)]), {"m": x})


def test_a_kept_set_stopped_by_max_states_returns_certified_intervals_with_a_warning():
    transitions, birth, death = CASES["M/M/1 at load 0.95 (Piecewise service)"]
    model = PopulationModel([x], transitions)
    first = stationary_bounds(model, {"mean": x}, width=1e-2)
    with pytest.warns(RuntimeWarning, match="wider than width"):
        bounds = stationary_bounds(model, {"mean": x}, width=1e-13, max_states=first.n_states + 5)
    assert product_form(birth, death, [lambda k: k])[0] in bounds["mean"]
    assert bounds.n_states <= first.n_states + 5
    model = PopulationModel([x], [((1,), 2.0), ((-1,), sympy.Min(x, 3))])
    with pytest.warns(RuntimeWarning, match="10 states"):
        tiny = stationary_bounds(model, {"mean": x}, max_states=10)
    assert 26 / 9 in tiny["mean"]


# --- several unbounded counts ------------------------------------------------------------------

def _priority(l1, l2, mu):
    """Preemptive priority M/M/1, two classes, one service rate: class 1 alone is an M/M/1 queue at
    load l1/mu, and the total is one at load (l1 + l2)/mu (closed forms, independent of the chain)."""
    model = PopulationModel([x, y], [((1, 0), l1), ((0, 1), l2), ((-1, 0), mu * sympy.Min(x, 1)),
                                     ((0, -1), mu * sympy.Min(y, 1) * sympy.Piecewise((1, sympy.Eq(x, 0)), (0, True)))])
    r1, r = l1 / mu, (l1 + l2) / mu
    return model, {"first": r1 / (1 - r1), "second": r / (1 - r) - r1 / (1 - r1), "empty": 1 - r}


def _tandem(lam, mu1, mu2):
    """Two queues in tandem (a Jackson network): the law is the product of two geometric laws."""
    model = PopulationModel([x, y], [((1, 0), lam), ((-1, 1), mu1 * sympy.Min(x, 1)), ((0, -1), mu2 * sympy.Min(y, 1))])
    r1, r2 = lam / mu1, lam / mu2
    return model, {"first": r1 / (1 - r1), "second": r2 / (1 - r2), "empty": (1 - r1) * (1 - r2)}


def _gene(k, gamma, kp, gamma_p):
    """mRNA x made at k, degraded at gamma x; protein y made at kp x, degraded at gamma_p y: a linear
    network, whose first moments solve the linear moment equations E[x] = k/gamma, E[y] = kp E[x]/gamma_p
    (and P(x = 0) = exp(-k/gamma), x being Poisson)."""
    model = PopulationModel([x, y], [((1, 0), k), ((-1, 0), gamma * x), ((0, 1), kp * x), ((0, -1), gamma_p * y)])
    return model, {"first": k / gamma, "second": kp * k / gamma / gamma_p, "empty": None}


REWARDS_2D = {"first": x, "second": y, "empty": sympy.Piecewise((1, sympy.Eq(x, 0) & sympy.Eq(y, 0)), (0, True))}


@pytest.mark.slow
@pytest.mark.parametrize("build, args", [(_priority, (0.3, 0.4, 1.0)), (_tandem, (1.0, 3.0, 2.0)),
                                         (_gene, (2.0, 0.5, 0.5, 1.0))])
def test_two_unbounded_counts_against_closed_forms(build, args):
    model, exact = build(*args)
    rewards = {k: v for k, v in REWARDS_2D.items() if exact[k] is not None}
    if build is _gene:
        rewards["no mRNA"] = 1 - sympy.Min(x, 1)
        exact["no mRNA"] = math.exp(-args[0] / args[1])
    bounds = stationary_bounds(model, rewards, width=1e-4)
    for name in rewards:
        assert exact[name] in bounds[name], (name, exact[name], bounds[name])
    assert bounds.width <= 1e-4
    assert bounds.lyapunov.free_symbols == {x, y}


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(12))
def test_random_two_class_networks_are_bounded_around_their_closed_forms(seed):
    rng = np.random.default_rng(1000 + seed)
    if seed % 2:
        mu1, mu2 = rng.uniform(1.0, 3.0, 2)
        lam = float(rng.uniform(0.1, 0.75) / (1 / mu1 + 1 / mu2))     # the linear V needs lam/mu1 + lam/mu2 < 1
        model, exact = _tandem(lam, float(mu1), float(mu2))
    else:
        mu = float(rng.uniform(0.5, 2.0))
        l1, l2 = (rng.dirichlet([1.0, 1.0]) * rng.uniform(0.1, 0.85) * mu).tolist()
        model, exact = _priority(l1, l2, mu)
    bounds = stationary_bounds(model, REWARDS_2D, width=1e-4)
    for name in REWARDS_2D:
        assert exact[name] in bounds[name], (seed, name, exact[name], bounds[name])


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(8))
def test_independent_queues_get_a_sum_of_exponentials(seed):
    # with loads adding up to more than 1 no w·x decreases on both faces (it needs (1 - r1)(1 - r2) > r1 r2),
    # so V = Σ β^x_i is used; reference: the product of two M/M/c laws by their product forms in mpmath
    rng = np.random.default_rng(5000 + seed)
    c1, c2 = rng.integers(1, 3, 2).tolist()
    r1, r2 = rng.uniform(0.55, 0.85, 2).tolist()
    mu1, mu2 = rng.uniform(0.5, 2.0, 2).tolist()
    model = PopulationModel([x, y], [((1, 0), r1 * c1 * mu1), ((0, 1), r2 * c2 * mu2), ((-1, 0), mu1 * sympy.Min(x, c1)),
                                     ((0, -1), mu2 * sympy.Min(y, c2))])
    bounds = stationary_bounds(model, {"x": x, "y": y}, width=1e-6)
    first = product_form(lambda k: r1 * c1 * mu1, lambda k: mu1 * min(k, c1), [lambda k: k])[0]
    second = product_form(lambda k: r2 * c2 * mu2, lambda k: mu2 * min(k, c2), [lambda k: k])[0]
    assert first in bounds["x"] and second in bounds["y"]
    assert bounds.lyapunov.is_Add                            # a sum of one term per count


@pytest.mark.slow
def test_a_tandem_no_family_controls_is_refused_with_all_three_tried():
    # arrivals 1.6 at two stations of 1.5: no stationary law. beta^(w·x), the sum of terms and the cell
    # weights are all tried (the stable tandem at 1, 1.5, 1.5 is certified: tests/ctmc/test_tandem_bounds.py)
    model = PopulationModel([x, y], [((1, 0), 1.6), ((-1, 1), 1.5 * sympy.Min(x, 1)), ((0, -1), 1.5 * sympy.Min(y, 1))])
    with pytest.raises(ConvergenceError, match=r"no Lyapunov function found.*w·x.*and no Lyapunov function found.*Σ β.*"
                                               r"and no Lyapunov function found.*g\(cell\)"):
        stationary_bounds(model, {"m": x}, max_states=100_000)


def test_greedy_p_written_as_a_population_model_matches_the_package_builder():
    # greedy(p*) of Ghanbarian et al. with three allocation sizes on n = 12 servers, written from eq. (10)
    # as a user would (the allocation A_c of an arrival as a Piecewise in the idle servers), against
    # greedy_metrics, which builds the chain with its own vectorized moves
    from analytic.moldable import greedy_metrics
    from analytic.moldable.greedy import resolve_p
    from analytic.speedup import SpeedupTable

    speedup, lam, n = SpeedupTable([1, 1.8, 2.5]), 0.8, 12
    p = resolve_p(speedup, lam, None)
    counts = sympy.symbols("x1:4")
    idle = n - sum(c * v for c, v in zip((1, 2, 3), counts, strict=True))
    transitions = []
    for c in (1, 2, 3):
        unit = tuple(int(k == c - 1) for k in range(3))
        share = sympy.Piecewise((p[c - 1] + sum(p[c:]), sympy.Eq(idle, c)), (p[c - 1], idle > c), (0, True))
        transitions.append((unit, n * lam * share))
        transitions.append((tuple(-u for u in unit), float(speedup.values[c - 1]) * counts[c - 1]))
    model = PopulationModel(list(counts), transitions, upper=[n // c for c in (1, 2, 3)])
    blocked = sympy.Piecewise((1, sympy.Eq(idle, 0)), (0, True))
    bounds = stationary_bounds(model, {"blocking": blocked})
    exact = greedy_metrics(speedup, lam, n)
    assert exact.blocking in bounds["blocking"]
    assert bounds["blocking"].width < 1e-9 * exact.blocking + 1e-15


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(12))
def test_random_queues_in_a_random_environment_against_matrix_geometric(seed):
    # arrival and service rates switch with a two-state environment; some draws serve in one phase only,
    # which needs the phase weights. Reference: matrix-geometric in mpmath at 40 digits
    rng = np.random.default_rng(2000 + seed)
    servers = int(rng.integers(1, 3))
    up, down = rng.uniform(0.2, 2.0, 2).tolist()
    services = rng.uniform(0.5, 2.0, 2)
    if seed % 3 == 0:
        services[0] = 0.0
    share = down / (up + down)                                     # stationary probability of phase 0
    capacity = servers * (share * services[0] + (1 - share) * services[1])
    a0, a1 = rng.uniform(0.1, 1.0, 2)
    scale = rng.uniform(0.2, 0.8) * capacity / (share * a0 + (1 - share) * a1)      # mean arrivals 0.2-0.8 of capacity
    a0, a1 = float(a0 * scale), float(a1 * scale)
    s0, s1 = services.tolist()
    model = PopulationModel([x, y], [((1, 0), a0 + (a1 - a0) * y), ((-1, 0), (s0 + (s1 - s0) * y) * sympy.Min(x, servers)),
                                     ((0, 1), up), ((0, -1), down)], upper=[None, 1])
    bounds = stationary_bounds(model, {"mean": x}, width=1e-6)
    assert _random_environment_mean([a0, a1], [s0, s1], up, down, servers) in bounds["mean"]


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(12))
def test_random_two_class_priority_queues_with_two_service_rates(seed):
    # class 1 alone is an M/M/1 queue; the server is idle with probability 1 - rho_1 - rho_2 (closed forms)
    rng = np.random.default_rng(3000 + seed)
    mu1, mu2 = rng.uniform(0.5, 3.0, 2).tolist()
    rho1, rho2 = (rng.dirichlet([1.0, 1.0]) * rng.uniform(0.1, 0.8)).tolist()
    served = sympy.Min(y, 1) * sympy.Piecewise((1, sympy.Eq(x, 0)), (0, True))
    model = PopulationModel([x, y], [((1, 0), rho1 * mu1), ((0, 1), rho2 * mu2), ((-1, 0), mu1 * sympy.Min(x, 1)),
                                     ((0, -1), mu2 * served)])
    bounds = stationary_bounds(model, {"first": x, "idle": REWARDS_2D["empty"]}, width=1e-4)
    assert rho1 / (1 - rho1) in bounds["first"]
    assert 1 - rho1 - rho2 in bounds["idle"]


@pytest.mark.parametrize("seed", range(20))
def test_random_bounded_models_against_pinned_lu(seed):
    # two bounded counts with polynomial and Min rates, solved whole; reference: pinned LU at 80 digits
    rng = np.random.default_rng(4000 + seed)
    top = rng.integers(1, 5, 2).tolist()
    a, b, c, e = rng.uniform(0.1, 3.0, 4).tolist()
    k = int(rng.integers(1, 3))
    transitions = [((1, 0), a + 0.5 * y), ((-1, 0), b * sympy.Min(x, k)), ((0, 1), c * (1 + x)), ((0, -1), e * y * y),
                   ((-1, 1), 0.25 * x)]
    model = PopulationModel([x, y], transitions, upper=top)
    bounds = stationary_bounds(model, {"mean": x + 2 * y}, width=1e-9)
    states = [(i, j) for i in range(top[0] + 1) for j in range(top[1] + 1)]
    index = {s: n for n, s in enumerate(states)}
    rates = [[0.0] * len(states) for _ in states]
    for (i, j), n in index.items():
        for (di, dj), r in [((1, 0), a + 0.5 * j), ((-1, 0), b * min(i, k)), ((0, 1), c * (1 + i)), ((0, -1), e * j * j),
                            ((-1, 1), 0.25 * i)]:
            if (i + di, j + dj) in index and r > 0:
                rates[n][index[(i + di, j + dj)]] += r
    law = pinned_lu_reference(rates, digits=80)
    mean = float(sum(p * (i + 2 * j) for p, (i, j) in zip(law, states, strict=True)))
    assert mean in bounds["mean"]


def test_a_kept_set_below_a_rewards_threshold_is_never_used():
    # the reward switches at x = 30; with room for 20 levels only, its value beyond the kept set is
    # not the polynomial the bound on the part outside uses: refused, not bounded wrongly
    model = PopulationModel([x], [((1,), 1.0), ((-1,), 2.0)])
    with pytest.raises(StateSpaceTooLargeError):
        stationary_bounds(model, {"late": sympy.Piecewise((1, x > 30), (0, True))}, max_states=20)
    bounds = stationary_bounds(model, {"late": sympy.Piecewise((1, x > 30), (0, True))})
    assert 2.0**-31 in bounds["late"]                       # P(x > 30) = (1/2)^31 for the M/M/1 queue at load 1/2


@pytest.mark.slow
def test_the_solver_method_is_passed_through():
    # the tandem of the closed-form tests, kept set solved by GTH: the same closed forms inside
    model, exact = _tandem(1.0, 3.0, 2.0)
    bounds = stationary_bounds(model, {"first": x, "second": y}, width=1e-4, method="gth")
    assert exact["first"] in bounds["first"] and exact["second"] in bounds["second"]
    assert "gth" in bounds.truncation.law.method
    with pytest.raises(InvalidParameterError, match="method"):
        stationary_bounds(model, {"first": x}, method="lu")
