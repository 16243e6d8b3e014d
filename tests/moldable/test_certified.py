"""greedy_bounds: certified intervals for P_b and E[D] of greedy(p), checked against the whole chain.

The reference for every containment test is greedy_metrics on the whole loss chain, solved by the
subtraction-free GTH factorization with its own certificate (analytic.ctmc): an independent solve
of the full state space, while greedy_bounds solves only a kept box and bounds what it leaves out.
Where a closed form exists it is the reference instead (Erlang's loss formula and E[D] = 1/s_d when
every job holds d servers), and the drift behind the neglected mass is checked against GV summed
in exact rationals over the whole simplex. At light loads (λ down to 5e-324) the reference is the
chain's law by GTH elimination in mpmath at 60 digits, and the λ -> 0 limit Σ p_i / s_i.
"""

from fractions import Fraction

import mpmath
import numpy as np
import pytest

import analytic.moldable.certified as certified
from analytic.ctmc.truncation import Drift
from analytic.erlang import erlang_b
from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.moldable import GreedyBounds, greedy_bounds, greedy_metrics, traffic
from analytic.speedup import SpeedupTable

SUBLINEAR = SpeedupTable([1, 1.8, 2.5, 3, 3.4])

#: (speed-up, λ, n, p): two allocation sizes (the truncated path) over loads, speed-ups and schemes.
TWO_SIZES = [
    (SUBLINEAR, traffic(120, 0.5, 0.1), 120, None),           # Table 1's Halfin-Whitt row, p* on 1 and 2 servers
    (SUBLINEAR, traffic(120, 2 / 3, 0.1), 120, None),         # super-Halfin-Whitt
    (SUBLINEAR, 0.95, 90, None),                              # p* = (0.53, 0.47): many 2-server jobs
    (SpeedupTable([1, 1.5]), 0.8, 100, None),
    (SpeedupTable([1, 1.5]), 0.9, 81, "greedy"),                   # greedy scheme, n odd: a 1-server job fills the last slot
    (SpeedupTable([1, 1.6, 2.1, 2.5]), 0.9, 80, None),
    (SpeedupTable([1, 1.5]), 0.5, 70, [0.5, 0.5]),                 # light load: idle servers at the fluid point
]


def _contains(interval, value):
    return interval[0] <= value <= interval[1]


@pytest.mark.parametrize("speedup,lam,n,p", TWO_SIZES)
def test_intervals_contain_the_whole_chain_and_are_narrow(speedup, lam, n, p):
    bounds = greedy_bounds(speedup, lam, n, p)
    exact = greedy_metrics(speedup, lam, n, p, method="gth")
    assert _contains(bounds.blocking, exact.blocking)
    assert _contains(bounds.mean_response_time, exact.mean_response_time)
    assert bounds.width <= 1e-8
    assert bounds.n_states <= exact.n_states


def test_the_box_leaves_states_out_and_bounds_their_mass():
    """At n = 300 (Halfin-Whitt row) the kept box holds a third of the chain; the mass outside it, from
    the whole chain, is below the certified neglected mass."""
    lam, n = traffic(300, 0.5, 0.1), 300
    bounds = greedy_bounds(SUBLINEAR, lam, n)
    loss = certified.greedy_chain(SUBLINEAR, lam, n)
    pi = loss.chain.stationary(method="gth", reference=loss.chain.states[loss.equilibrium]).probabilities
    top_b, top_i = (int(v) for v in bounds.method.split("kept box X_2 <= ")[1].split(" (")[0].split(", I <= "))
    outside = (loss.states[:, 1] > top_b) | (n - loss.states @ loss.sizes > top_i)
    assert 0 < bounds.n_states < loss.chain.n_states / 2
    assert bounds.n_states == np.count_nonzero(~outside)
    assert pi[outside].sum() <= bounds.neglected_mass
    assert 0 < bounds.neglected_mass < 1e-11


@pytest.mark.parametrize("speedup,lam,n,p", [
    (SUBLINEAR, 0.8, 12, None),                               # p* on 3 and 4 servers: four sizes, whole chain
    pytest.param(SUBLINEAR, 0.8, 40, None, marks=pytest.mark.slow),  # the same, 7 386 states
    (SpeedupTable([1, 1.5]), 0.9, 40, "greedy"),                   # one size (2 divides 40)
])
def test_whole_chains_give_intervals_from_the_solver_accuracy(speedup, lam, n, p):
    bounds = greedy_bounds(speedup, lam, n, p)
    exact = greedy_metrics(speedup, lam, n, p, method="gth")
    assert bounds.neglected_mass == 0 and bounds.entry_cost == 0
    assert bounds.n_states == exact.n_states and "whole chain" in bounds.method
    assert _contains(bounds.blocking, exact.blocking) and _contains(bounds.mean_response_time, exact.mean_response_time)
    assert bounds.width <= 1e-8


def test_a_shrunk_neglected_mass_excludes_the_exact_value(monkeypatch):
    """Deliberately wrong bounds must fail. With a small box (neglected-mass target 1e-3) the honest
    intervals contain the whole chain's values; the drift bound is loose (about 1e-3 against a true
    mass outside of 1e-13 to 1e-10, from the whole chain), so only a bound shrunk below the true
    mass can err: divided by 1e10 it does, and some case then excludes the exact values."""
    monkeypatch.setattr(certified, "_MASS_TARGETS", (1e-3,))
    cases = [(traffic(n, alpha, 0.1), n) for n in (60, 120) for alpha in (0.5, 2 / 3)]
    exact = [greedy_metrics(SUBLINEAR, lam, n, method="gth") for lam, n in cases]

    def misses() -> list[bool]:
        found = []
        for (lam, n), value in zip(cases, exact, strict=True):
            bounds = greedy_bounds(SUBLINEAR, lam, n, width=0.999)
            assert bounds.neglected_mass > 0
            found.append(not (_contains(bounds.blocking, value.blocking)
                              and _contains(bounds.mean_response_time, value.mean_response_time)))
        return found

    assert not any(misses())
    honest = Drift.neglected_mass.fget
    monkeypatch.setattr(Drift, "neglected_mass", property(lambda self: honest(self) / 1e10))
    assert any(misses())


def test_result_fields_and_repr():
    bounds = greedy_bounds(SpeedupTable([1, 1.5]), 0.8, 50)
    assert isinstance(bounds, GreedyBounds)
    assert bounds.servers == 50 and bounds.rate_per_server == pytest.approx(0.8, abs=1e-15)
    np.testing.assert_allclose(bounds.p, [0.25, 0.75], atol=1e-15)
    assert "GreedyBounds(servers=50" in repr(bounds)
    assert bounds.width == pytest.approx(max(bounds.blocking[1] - bounds.blocking[0],
                                             bounds.mean_response_time[1] - bounds.mean_response_time[0]), abs=0)


@pytest.mark.parametrize("kwargs,error,match", [
    (dict(width=0.0), InvalidParameterError, r"width = 0(\.0)?: must lie in \[1e-13, 1\)"),
    (dict(width=1.0), InvalidParameterError, r"width = 1(\.0)?: must lie in"),
    (dict(width=1e-14), InvalidParameterError, r"width = 1e-14: must lie in"),
    (dict(rate_per_server=1.5), InvalidParameterError, r"rate_per_server"),
    (dict(servers=1), InvalidParameterError, r"servers = 1"),
    (dict(p=[0.5, 0.6]), InvalidParameterError, r"\bp\b"),
    (dict(p="best"), InvalidParameterError, r"p = 'best'"),
    (dict(max_states=-1), InvalidParameterError, r"max_states = -1"),
])
def test_bad_input_is_refused(kwargs, error, match):
    arguments = dict(speedup=SpeedupTable([1, 1.5]), rate_per_server=0.8, servers=50) | kwargs
    with pytest.raises(error, match=match):
        greedy_bounds(**arguments)


def test_table1_mean_field_cell_is_refused_with_the_reason():
    """Table 1's α = 0 cell (p* on 3 and 4 servers, four allocation sizes) at n = 4000: too large to solve
    whole and, with no drift condition known for it, not truncated: refused at once, saying why."""
    with pytest.raises(StateSpaceTooLargeError, match=r"4 allocation sizes \[1, 2, 3, 4\].*knows no drift condition"):
        greedy_bounds(SUBLINEAR, 0.8, 4000)


def test_a_width_out_of_reach_gives_wider_intervals_that_still_hold(monkeypatch):
    """With the kept box frozen at a neglected mass of 1e-3 the intervals cannot reach 1e-8: they
    come back wider (GreedyBounds.width says so) and still contain the whole chain's values."""
    monkeypatch.setattr(certified, "_MASS_TARGETS", (1e-3,))
    lam = traffic(120, 0.5, 0.1)
    bounds = greedy_bounds(SUBLINEAR, lam, 120)
    exact = greedy_metrics(SUBLINEAR, lam, 120, method="gth")
    assert bounds.width > 1e-2
    assert _contains(bounds.blocking, exact.blocking) and _contains(bounds.mean_response_time, exact.mean_response_time)


def test_mean_time_is_tight_where_blocking_exceeds_one_half():
    """Every job on 4 servers at speed 1.03 (the greedy scheme, 4 divides 40): Erlang's loss system with 10
    slots, P_b = erlang_b(10, 40 / 1.03) = 0.75 and E[D] = 1/1.03 exactly. The whole chain's intervals come
    from the law's per-state accuracy and hold E[D] within 1e-12 on both sides; with P_b > 1/2 an upper end
    that divided by 1 - P_b at the lower end of P_b would fall below 1/1.03."""
    bounds = greedy_bounds(SpeedupTable([1, 1.01, 1.02, 1.03]), 1.0, 40, "greedy")
    assert _contains(bounds.blocking, float(erlang_b(10, 40 / 1.03)))
    low, high = bounds.mean_response_time
    assert Fraction(low) <= 1 / Fraction(1.03) <= Fraction(high)
    assert high - low < 1e-12


def mpmath_reference(speedup, lam, n, p):
    """P_b and E[D] of greedy_chain's chain from its law by GTH elimination in mpmath at 60 digits (no subtraction,
    exponents unbounded): E[D] = E[number of jobs] / (rate of the jumps that add a job), Little's law."""
    loss = certified.greedy_chain(speedup, lam, n, p)
    with mpmath.workdps(60):
        Q = loss.chain.generator.toarray()
        size = len(Q)
        rates = [[mpmath.mpf(float(Q[i, j])) if i != j else mpmath.mpf(0) for j in range(size)] for i in range(size)]
        for k in range(size - 1, 0, -1):
            out = mpmath.fsum(rates[k][:k])
            for i in range(k):
                for j in range(k):
                    if j != i:
                        rates[i][j] += rates[i][k] * rates[k][j] / out
        pi = [mpmath.mpf(1)]
        for k in range(1, size):
            pi.append(mpmath.fsum(pi[i] * rates[i][k] for i in range(k)) / mpmath.fsum(rates[k][:k]))
        total = mpmath.fsum(pi)
        pi = [w / total for w in pi]
        jobs = loss.states.sum(axis=1)
        jumps = loss.chain.generator.tocoo()
        accepted = mpmath.fsum(pi[i] * mpmath.mpf(float(r)) for i, j, r in zip(jumps.row, jumps.col, jumps.data, strict=True)
                               if jobs[j] == jobs[i] + 1)
        blocking = mpmath.fsum(q for q, busy in zip(pi, loss.states @ loss.sizes, strict=True) if busy == n)
        return blocking, mpmath.fsum(q * int(N) for q, N in zip(pi, jobs, strict=True)) / accepted


@pytest.mark.parametrize("lam,p", [
    (1e-100, None), (1e-200, None), (1e-289, None),   # E[D] was [0, 4.4e84] at 1e-100 (a mass of order λ over λ)
    (2e-291, None),                                   # z = nλ = 2e-290: the chain, just above the empty-system limit
    (1e-300, None), (1e-310, None), (5e-324, None),   # the limit (the solver refused the chain below 1e-309)
    (1e-100, [0.5, 0, 0.5]), (1e-305, [0.5, 0, 0.5]),  # two sizes: the truncated route, and the limit
])
def test_light_loads_give_narrow_intervals_around_the_exact_values(lam, p):
    """n = 10, s = (1, 1.8, 2.5): against the chain's law in mpmath at 60 digits, and E[D] against its λ -> 0
    limit Σ p_i / s_i (0.4 for p* = e_3, 0.7 for p = (1/2, 0, 1/2))."""
    speedup = SpeedupTable([1, 1.8, 2.5])
    bounds = greedy_bounds(speedup, lam, 10, p)
    blocking, mean_response_time = mpmath_reference(speedup, lam, 10, p)
    assert mpmath.mpf(bounds.blocking[0]) <= blocking <= mpmath.mpf(bounds.blocking[1])
    assert mpmath.mpf(bounds.mean_response_time[0]) <= mean_response_time <= mpmath.mpf(bounds.mean_response_time[1])
    assert bounds.mean_response_time[1] - bounds.mean_response_time[0] < 1e-14 and bounds.width <= 1e-8
    assert _contains(bounds.mean_response_time, 0.4 if p is None else 0.7)
    if 10 * lam <= 1e-290:
        assert bounds.n_states == 1 and bounds.neglected_mass == pytest.approx(10 * lam, rel=1e-15, abs=2.0**-1073)


def test_tiny_entries_of_p_are_named():
    """An arrival rate 5e-310 against a total of 5 out of the empty system: the solver's refusal of its internal
    'rate' names p."""
    with pytest.raises(InvalidParameterError, match=r"^p = \[1e-310, 0, 1\]: makes arrival rates") as caught:
        greedy_bounds(SpeedupTable([1, 1.8, 2.5]), 0.5, 10, [1e-310, 0, 1])
    assert caught.value.__cause__.parameter == "rate"


def test_drift_bounds_are_the_exact_extremes_over_the_simplex(monkeypatch):
    """The drift behind a kept box (n = 120, Halfin-Whitt row): c is the largest GV over the kept states and η the
    least -GV over the rest of the simplex, GV summed in exact rationals of the doubles the moves and V
    return; both are certified to within their rounding, and ε = c / (c + η)."""
    found = {}
    check = certified.lattice_drift

    def spy(chunks, moves, lyapunov, kept):
        found.update(moves=moves, lyapunov=lyapunov, chain=kept, drift=check(chunks, moves, lyapunov, kept))
        return found["drift"]

    monkeypatch.setattr(certified, "lattice_drift", spy)
    n = 120
    bounds = greedy_bounds(SUBLINEAR, traffic(n, 0.5, 0.1), n)
    assert 0 < bounds.neglected_mass and bounds.n_states < 61**2          # a box, not the simplex's 61^2 states
    states = np.array([(a, b) for b in range(n // 2 + 1) for a in range(n - 2 * b + 1)])
    lyapunov, moves, drift = found["lyapunov"], found["moves"], found["drift"]
    base = [Fraction(float(v)) for v in lyapunov(states)]
    exact = [Fraction(0)] * len(states)
    for displacement, rate in moves:
        r = rate(states)
        active = np.flatnonzero(r > 0)
        for i, target in zip(active.tolist(), lyapunov(states[active] + displacement).tolist(), strict=True):
            exact[i] += Fraction(float(r[i])) * (Fraction(target) - base[i])
    inside = found["chain"]._lookup(states) >= 0
    largest = max(g for g, k in zip(exact, inside, strict=True) if k)
    least = min(-g for g, k in zip(exact, inside, strict=True) if not k)
    assert largest <= Fraction(drift.inside) <= largest * (1 + Fraction(1, 10**12))
    assert least * (1 - Fraction(1, 10**12)) <= Fraction(drift.outside) <= least
    assert bounds.neglected_mass == pytest.approx(float(largest / (largest + least)), rel=1e-12, abs=0)


def test_a_simplex_beyond_max_states_is_refused_before_it_is_scanned(monkeypatch):
    """n = 20 000 (Halfin-Whitt row): the drift check would evaluate all 100 020 001 states of the simplex;
    refused at once (the scan is never started), saying how many states and which limit."""
    def scanned(*args):
        raise AssertionError("the simplex was scanned before max_states was checked")

    monkeypatch.setattr(certified, "_simplex_chunks", scanned)
    with pytest.raises(StateSpaceTooLargeError, match=r"simplex 1 X_1 \+ 2 X_2 <= 20000, .* needs 100,020,001 states, "
                                                      r"above max_states=30,000,000"):
        greedy_bounds(SUBLINEAR, traffic(20_000, 0.5, 0.1), 20_000)
