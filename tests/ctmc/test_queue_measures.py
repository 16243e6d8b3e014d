"""The queueing measures users ask for, computed from a chain with analytic.ctmc's measures: busy
periods, the time to overflow of a loss system, and the FCFS M/M/c waiting-time law.

Each is a few lines on top of ``CTMC.passage_time`` (the examples of the docs page "Queueing
measures from a chain"), checked against a closed form or an independent computation in mpmath,
named in each test:

* busy periods — M/M/1: ``E[B] = 1/(μ-λ)``, ``E[B²] = 2/(μ²(1-ρ)³)`` and the density
  ``f(t) = sqrt(μ/λ) e^(-(λ+μ)t) I_1(2t sqrt(λμ)) / t`` (Kleinrock, *Queueing Systems, Vol. I*,
  1975, Section 5.8), integrated by ``mpmath.quad`` at 30 digits; M/G/1 (here M/PH/1):
  ``E[B] = E[S]/(1-ρ)``, ``E[B²] = E[S²]/(1-ρ)³`` (Kleinrock, Section 5.8), with
  ``E[S^k] = k! α(-T)^-k 1`` solved in mpmath (Neuts, *Matrix-Geometric Solutions*, 1981,
  Theorem 2.2.1); M/M/c: first-step analysis of the birth–death chain, the levels ``n >= c`` being
  M/M/1 busy periods at rate ``cμ``.
* time to overflow of M/M/c/c from empty — the mean first passage of a birth–death chain,
  ``sum_k (sum_(j<=k) π_j) / (λ π_k) = sum_k 1/(λ B(k, a))`` (``B`` Erlang's loss formula), and its
  second moment from the independent up-crossing times; both in mpmath.
* FCFS M/M/c waiting time — Erlang C, ``P(W > t) = C(c, a) e^(-(cμ-λ)t)`` (Kleinrock, Section 3.5;
  Gross & Harris, *Fundamentals of Queueing Theory*, Section 2.3), ``C`` in mpmath.

The infinite queues are truncated where the stationary mass beyond is below 1e-50 relative
(``ρ^K``), far below every tolerance here.
"""

import math

import mpmath
import numpy as np
import pytest

from analytic.ctmc import CTMC


@pytest.fixture(autouse=True)
def _thirty_digits():
    """mpmath at 30 digits in every test, whatever other test modules set globally."""
    with mpmath.workdps(30):
        yield


def relative(value, exact):
    """Relative error of a double against an mpmath reference."""
    return float(abs(mpmath.mpf(float(value)) / exact - 1))


def agree(a, b):
    """Relative difference of two mpmath references."""
    return float(abs(a / b - 1))


def birth_death(capacity, birth, death, start):
    """The chain on 0..capacity with rates birth(n) (n -> n+1) and death(n) (n -> n-1)."""
    return CTMC.from_function(start, lambda n: [(n + 1, birth(n))] * (n < capacity) + [(n - 1, death(n))] * (n > 0))


# ---------------------------------------------------------------------------------------------
# Busy periods


def mm1_busy_density(arrival, service):
    """The M/M/1 busy-period density (Kleinrock, Vol. I, Section 5.8), in mpmath."""
    lam, mu = mpmath.mpf(arrival), mpmath.mpf(service)
    return lambda t: mpmath.sqrt(mu / lam) * mpmath.exp(-(lam + mu) * t) * mpmath.besseli(1, 2 * t * mpmath.sqrt(lam * mu)) / t


@pytest.mark.slow
def test_mm1_busy_period_moments_and_law():
    # λ = 0.6, μ = 1 (ρ = 0.6), truncated at 300 (ρ^300 = 1e-67); from one job to empty.
    arrival, service = 0.6, 1.0
    queue = birth_death(300, lambda n: arrival, lambda n: service, start=1)
    busy = queue.passage_time(lambda n: n == 0, 1)
    lam = mpmath.mpf(arrival)                                 # λ = 0.6 as the double it is; μ = 1
    assert relative(busy.mean, 1 / (1 - lam)) < 1e-13
    assert relative(busy.moment(2), 2 / (1 - lam) ** 3) < 1e-13
    density = mm1_busy_density(arrival, service)
    # the density is the right one: total mass 1 and mean 1/(μ-λ) (λ = 0.6 as the double it is)
    assert agree(mpmath.quad(density, [0, 1, 10, mpmath.inf]), 1) < 1e-25
    assert agree(mpmath.quad(lambda t: t * density(t), [0, 1, 10, mpmath.inf]), 1 / (1 - lam)) < 1e-25
    times = [0.1, 1.0, 5.0, 20.0]
    cdf = busy.cdf(times)
    for t, value in zip(times, cdf, strict=True):
        assert relative(value, mpmath.quad(density, [0, t])) < 1e-12, t
    # the tail, relative to itself: P(B > 300) ~ 1e-9
    tail = mpmath.quad(density, [300, 400, 1000, mpmath.inf])
    assert 1e-10 < tail < 1e-7
    assert relative(busy.survival(300.0), tail) < 1e-11


def mmc_busy_moments(servers, arrival, service):
    """E[B], E[B²] of the M/M/c busy period (1 -> 0) by first-step analysis, in mpmath.

    T_n, the time from n to n - 1, is an M/M/1 busy period at rate cμ for n >= c (Kleinrock,
    Section 5.8); below, one holding time τ ~ Exp(q), q = λ + nμ, then with probability p = λ/q
    T_(n+1) + T_n' (independent): E[T_n] = (1 + λ E[T_(n+1)]) / (nμ) and
    (1 - p) E[T_n²] = 2/q² + (2p/q)(E[T_(n+1)] + E[T_n]) + p (E[T_(n+1)²] + 2 E[T_(n+1)] E[T_n]).
    """
    lam, mu, c = mpmath.mpf(arrival), mpmath.mpf(service), servers
    rho = lam / (c * mu)
    m1, m2 = 1 / (c * mu - lam), 2 / ((c * mu) ** 2 * (1 - rho) ** 3)
    for n in range(c - 1, 0, -1):
        q = lam + n * mu
        p = lam / q
        first = (1 + lam * m1) / (n * mu)
        second = (2 / q**2 + 2 * p / q * (m1 + first) + p * (m2 + 2 * m1 * first)) / (1 - p)
        m1, m2 = first, second
    return m1, m2


@pytest.mark.parametrize("servers,arrival", [(1, 0.5), (3, 2.0), (8, 7.0)])
def test_mmc_busy_period_moments(servers, arrival):
    # μ = 1; truncated where ρ^K < 1e-50. Reference: first-step analysis (mmc_busy_moments), and
    # for the mean also E[B] = (1 - π_0) / (λ π_0) (idle periods last 1/λ; π_0 from Erlang's
    # stationary law in mpmath).
    rho = arrival / servers
    capacity = math.ceil(50 / -math.log10(rho)) + servers
    queue = birth_death(capacity, lambda n: arrival, lambda n: float(min(n, servers)), start=1)
    busy = queue.passage_time(lambda n: n == 0, 1)
    mean, second = mmc_busy_moments(servers, arrival, 1.0)
    a = mpmath.mpf(arrival)
    idle = 1 / (mpmath.fsum(a**k / mpmath.factorial(k) for k in range(servers))
                + a**servers / (mpmath.factorial(servers) * (1 - a / servers)))
    assert agree(mean, (1 - idle) / (a * idle)) < 1e-25
    assert relative(busy.mean, mean) < 1e-13
    assert relative(busy.moment(2), second) < 1e-12


def mph1(arrival, alpha, rates, exits, capacity):
    """M/PH/1 with at most ``capacity`` jobs: states (n, phase of the job in service), (0, 0) empty.

    ``rates[i][j]`` is the phase change i -> j, ``exits[i]`` the completion rate from phase i, and
    the next job starts in phase j with probability ``alpha[j]``.
    """
    m = len(alpha)

    def moves(x):
        n, i = x
        if n == 0:
            return [((1, j), arrival * alpha[j]) for j in range(m)]
        out = [((n + 1, i), arrival)] if n < capacity else []
        out += [((n, j), rates[i][j]) for j in range(m) if j != i]
        if n == 1:
            out.append(((0, 0), exits[i]))
        else:
            out += [((n - 1, j), exits[i] * alpha[j]) for j in range(m)]
        return out

    return CTMC.from_function((0, 0), moves)


def ph_moments(alpha, rates, exits, k):
    """E[S^j], j = 1..k: j! α (-T)^-j 1, T's diagonal summed in mpmath from the rates and exits."""
    m = len(alpha)
    minus_t = mpmath.matrix(m, m)
    for i in range(m):
        for j in range(m):
            if i != j:
                minus_t[i, j] = -mpmath.mpf(rates[i][j])
        minus_t[i, i] = mpmath.mpf(exits[i]) + mpmath.fsum(mpmath.mpf(rates[i][j]) for j in range(m) if j != i)
    x, out = mpmath.matrix([1] * m), []
    for j in range(1, k + 1):
        x = mpmath.lu_solve(minus_t, x)
        out.append(mpmath.factorial(j) * mpmath.fsum(mpmath.mpf(alpha[i]) * x[i] for i in range(m)))
    return out


LAWS = {
    # name: (alpha, phase-change rates, exit rates)
    "Erlang-3": ([1.0, 0.0, 0.0], [[0, 3.0, 0], [0, 0, 3.0], [0, 0, 0]], [0.0, 0.0, 3.0]),
    "H2": ([0.8, 0.2], [[0, 0], [0, 0]], [2.0, 0.25]),
    "Coxian-2": ([1.0, 0.0], [[0, 1.0], [0, 0]], [1.0, 0.5]),
}


@pytest.mark.parametrize("name,rho", [("Erlang-3", 0.6), ("H2", 0.5), ("Coxian-2", 0.7)])
def test_mph1_busy_period_matches_mg1(name, rho):
    # Reference: the M/G/1 busy period, E[B] = E[S]/(1-ρ), E[B²] = E[S²]/(1-ρ)³ (Kleinrock, Vol. I,
    # Section 5.8), with E[S], E[S²] of PH(α, T) in mpmath. From one job (phase drawn from α) to
    # empty. Capacity 600: the queue lengths decay geometrically, at rate 1/z for the root z > 1 of
    # z = S*(λ(1 - z)) (S* the Laplace transform of the size), at most 0.745 for these three laws;
    # 0.745^600 = 1e-77.
    alpha, rates, exits = LAWS[name]
    s1, s2 = ph_moments(alpha, rates, exits, 2)
    arrival = rho / float(s1)
    queue = mph1(arrival, alpha, rates, exits, capacity=600)
    start = np.zeros(queue.n_states)
    for j, weight in enumerate(alpha):
        if weight:
            start[queue.index((1, j))] = weight
    busy = queue.passage_time(lambda x: x[0] == 0, start)
    r = mpmath.mpf(arrival) * s1
    assert relative(busy.mean, s1 / (1 - r)) < 1e-12
    assert relative(busy.moment(2), s2 / (1 - r) ** 3) < 1e-11


# ---------------------------------------------------------------------------------------------
# Time to overflow of an Erlang loss system


def overflow_moments(servers, load):
    """E[T], E[T²] of the first passage 0 -> c of M/M/c/c (μ = 1, λ = load), in mpmath.

    T = U_0 + ... + U_(c-1), U_k the (independent) time from k to k + 1: one holding time of rate
    q = λ + kμ, then with probability p = kμ/q U_(k-1) + U_k'. So E[U_k] = (1 + kμ E[U_(k-1)]) / λ,
    (1 - p) E[U_k²] = 2/q² + (2p/q)(E[U_(k-1)] + E[U_k]) + p (E[U_(k-1)²] + 2 E[U_(k-1)] E[U_k]),
    and E[T] = sum E[U_k], Var T = sum Var U_k.
    """
    lam, mu = mpmath.mpf(load), mpmath.mpf(1)
    mean, variance, m1, m2 = mpmath.mpf(0), mpmath.mpf(0), mpmath.mpf(0), mpmath.mpf(0)
    for k in range(servers):
        q = lam + k * mu
        p = k * mu / q
        first = (1 + k * mu * m1) / lam
        second = (2 / q**2 + 2 * p / q * (m1 + first) + p * (m2 + 2 * m1 * first)) / (1 - p)
        m1, m2 = first, second
        mean += m1
        variance += m2 - m1**2
    return mean, variance + mean**2


def overflow_mean_by_sums(servers, load):
    """The birth–death sum formula: sum_(k<c) (sum_(j<=k) π_j) / (λ π_k), π_j = a^j / j!."""
    a = mpmath.mpf(load)
    weights = [a**j / mpmath.factorial(j) for j in range(servers)]
    return mpmath.fsum(mpmath.fsum(weights[: k + 1]) / (a * weights[k]) for k in range(servers))


@pytest.mark.parametrize("servers,load", [(1, 0.5), (5, 3.0), (10, 8.0), (50, 10.0), (60, 50.0)])
def test_erlang_loss_time_to_overflow(servers, load):
    # M/M/c/c, μ = 1, from empty to all c servers busy (the first time an arrival would be
    # blocked). References: the sum formula and the up-crossing recursion, in mpmath; at c = 50,
    # a = 10 the mean is 1.7e17 (overflow is a rare event: B(49, 10) = 7.5e-19).
    system = birth_death(servers, lambda n: load, lambda n: float(n), start=0)
    overflow = system.passage_time(lambda n: n == servers, 0)
    mean, second = overflow_moments(servers, load)
    assert agree(mean, overflow_mean_by_sums(servers, load)) < 1e-25
    assert relative(overflow.mean, mean) < 1e-12
    assert relative(overflow.moment(2), second) < 1e-11
    if servers == 50:
        assert overflow.mean > 1e17


@pytest.mark.slow
def test_erlang_loss_probability_of_overflow_by_t():
    # P(T <= t) for M/M/5/5 at a = 3 from empty: the chain with the full state absorbing, exp(Q t)
    # by mpmath.expm at 30 digits.
    servers, load = 5, 3.0
    system = birth_death(servers, lambda n: load, lambda n: float(n), start=0)
    overflow = system.passage_time(lambda n: n == servers, 0)
    q = mpmath.zeros(servers + 1, servers + 1)
    for n in range(servers):                               # the full state absorbing: its row is 0
        q[n, n + 1] = load
        if n > 0:
            q[n, n - 1] = n
        q[n, n] = -(load + n)
    times = [0.5, 2.0, 10.0, 60.0]
    for t, p, s in zip(times, overflow.cdf(times), overflow.survival(times), strict=True):
        row = mpmath.expm(q * t)
        assert relative(p, row[0, servers]) < 1e-12, t
        assert relative(s, 1 - row[0, servers]) < 1e-12, t


# ---------------------------------------------------------------------------------------------
# FCFS M/M/c waiting time


def erlang_c(servers, arrival, service):
    """Erlang's delay formula C(c, a), a = λ/μ, in mpmath."""
    a, c = mpmath.mpf(arrival) / mpmath.mpf(service), servers
    top = a**c / mpmath.factorial(c) * c / (c - a)
    return top / (mpmath.fsum(a**k / mpmath.factorial(k) for k in range(c)) + top)


def waiting_time(servers, arrival, service, capacity):
    """The FCFS waiting time as a passage time: an arrival finds n jobs (PASTA: the stationary
    law of the queue); if n >= c it waits for n - c + 1 departures at rate cμ (later arrivals
    queue behind it). Returns the :class:`PassageTime` of the countdown chain to 0."""
    queue = birth_death(capacity, lambda n: arrival, lambda n: service * min(n, servers), start=0)
    pi = queue.stationary(tolerance=1e-13).probabilities
    found = np.array([pi[queue.index(n)] for n in range(capacity + 1)])
    top = capacity - servers + 1
    countdown = CTMC.from_function(top, lambda k: [(k - 1, servers * service)] if k > 0 else [])
    start = np.zeros(countdown.n_states)
    start[countdown.index(0)] = found[:servers].sum()
    for k in range(1, top + 1):
        start[countdown.index(k)] = found[servers - 1 + k]
    return countdown.passage_time(lambda k: k == 0, start)


@pytest.mark.parametrize("servers,arrival", [(1, 0.7), (4, 3.0), (10, 9.0)])
def test_mmc_waiting_time_is_erlang_c(servers, arrival):
    # P(W > t) = C e^(-(cμ - λ) t), P(W = 0) = 1 - C, E[W] = C/(cμ - λ) (Erlang C, in mpmath);
    # μ = 1, truncated where ρ^K < 1e-50; the tail at t = 25 (~1e-11 and below) relative to itself.
    rho = arrival / servers
    capacity = math.ceil(50 / -math.log10(rho)) + servers
    wait = waiting_time(servers, arrival, 1.0, capacity)
    c = erlang_c(servers, arrival, 1.0)
    gap = servers - mpmath.mpf(arrival)
    assert relative(wait.at_target, 1 - c) < 1e-12
    assert relative(wait.mean, c / gap) < 1e-11
    assert relative(wait.moment(2), 2 * c / gap**2) < 1e-11
    times = [0.0, 0.5, 2.0, 10.0, 25.0]
    for t, value in zip(times, wait.survival(times), strict=True):
        assert relative(value, c * mpmath.exp(-gap * t)) < 1e-10, t
