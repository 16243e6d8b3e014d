"""CTMC measures (analytic.ctmc.measures): rewards over time, passage times, reachability.

Every expected value comes from an independent computation, named in each test: the matrix
exponential and LU solves in mpmath at 50 digits (small chains), the augmented matrix
``[[Q, r], [0, 0]]`` whose exponential integrates ``exp(Q s) r``, scipy's ``expm`` with
``quad``, the Poisson equation for large times, and closed forms (M/M/1 and M/M/c busy periods,
Erlang and pure-death passage times, birth–death first passages, gambler's ruin).

A chain is defined by its off-diagonal rates (the package recomputes the diagonal), so the
references build the diagonal in mpmath from them: a diagonal rounded in double is a different
chain, whose passage times differ by up to (jumps before the target) x 2**-53 — 2e-13 on a random
seven-state chain here.
"""

import math

import mpmath
import numpy as np
import pytest
import scipy.integrate
import scipy.linalg
import sympy

from analytic.ctmc import CTMC, PassageTime
from analytic.errors import ConvergenceError, InvalidParameterError


@pytest.fixture(autouse=True)
def _fifty_digits():
    """mpmath at 50 digits in every test, whatever other test modules set globally."""
    with mpmath.workdps(50):
        yield


# ---------------------------------------------------------------------------------------------
# References


def mp_generator(chain):
    """The generator in mpmath, its diagonal summed exactly from the off-diagonal rates."""
    q = chain.generator.toarray()
    n = len(q)
    m = mpmath.matrix(n, n)
    for i in range(n):
        for j in range(n):
            if i != j and q[i, j]:
                m[i, j] = mpmath.mpf(q[i, j])
        m[i, i] = -mpmath.fsum(m[i, j] for j in range(n) if j != i)
    return m


def mp_vector(values):
    return mpmath.matrix([mpmath.mpf(float(v)) for v in values])


def mp_law(m, t, p0):
    """p(0) exp(Q t) in mpmath."""
    return (mp_vector(p0).T * mpmath.expm(m * t))


def mp_accumulated(m, t, p0, r):
    """p(0) ∫_0^t exp(Q s) ds r: the last column of exp([[Q, r], [0, 0]] t)."""
    n = m.rows
    big = mpmath.zeros(n + 1, n + 1)
    for i in range(n):
        for j in range(n):
            big[i, j] = m[i, j]
        big[i, n] = mpmath.mpf(float(r[i]))
    e = mpmath.expm(big * t)
    return mpmath.fsum(mpmath.mpf(float(p0[i])) * e[i, n] for i in range(n))


def hits(chain, target, avoid=None):
    """Boolean mask of the states that can reach ``target`` without entering ``avoid`` (plain BFS)."""
    q = chain.generator.toarray()
    avoid = np.zeros(len(q), bool) if avoid is None else avoid
    found = target.copy()
    changed = True
    while changed:
        changed = False
        for i in range(len(q)):
            if not found[i] and not avoid[i] and any(q[i, j] > 0 and found[j] for j in range(len(q)) if j != i):
                found[i] = changed = True
    return found


def mp_moments(m, target, p0, k):
    """E[T^j], j = 1..k: -Q_TT m_j = j m_(j-1) by mpmath.lu_solve, weighted by p(0)."""
    inside = [i for i in range(m.rows) if not target[i]]
    a = mpmath.matrix([[-m[i, j] for j in inside] for i in inside])
    x = mpmath.matrix([1] * len(inside))
    out = []
    for j in range(1, k + 1):
        x = mpmath.lu_solve(a, x * j)
        out.append(mpmath.fsum(mpmath.mpf(float(p0[s])) * x[i] for i, s in enumerate(inside)))
    return out


def mp_reward_until(m, target, p0, r):
    inside = [i for i in range(m.rows) if not target[i]]
    a = mpmath.matrix([[-m[i, j] for j in inside] for i in inside])
    x = mpmath.lu_solve(a, mpmath.matrix([mpmath.mpf(float(r[i])) for i in inside]))
    return mpmath.fsum(mpmath.mpf(float(p0[s])) * x[i] for i, s in enumerate(inside))


def mp_reach(m, target, avoid, p0, reachable):
    """P(reach target before avoid): -Q_TT h = q_(T, target) on the states that can reach it."""
    inside = [i for i in range(m.rows) if reachable[i] and not target[i]]
    h = []
    if inside:
        a = mpmath.matrix([[-m[i, j] for j in inside] for i in inside])
        b = mpmath.matrix([mpmath.fsum(m[i, j] for j in range(m.rows) if target[j]) for i in inside])
        h = mpmath.lu_solve(a, b)
    return mpmath.fsum(mpmath.mpf(float(p0[s])) * h[i] for i, s in enumerate(inside)) + mpmath.fsum(
        mpmath.mpf(float(p0[s])) for s in range(m.rows) if target[s])


def mp_absorbed(m, target, avoid, p0, t):
    """P(X_t in target) with target and avoid absorbing, by mpmath.expm."""
    cut = m.copy()
    for i in range(m.rows):
        if target[i] or avoid[i]:
            for j in range(m.rows):
                cut[i, j] = 0
    law = mp_law(cut, t, p0)
    return mpmath.fsum(law[j] for j in range(m.rows) if target[j])


def random_chain(seed, n=7):
    """Rates over four decades, about half the pairs connected."""
    rng = np.random.default_rng(seed)
    rates = rng.exponential(1.0, (n, n)) * (rng.random((n, n)) < 0.5) * 10.0 ** rng.uniform(-2, 2, (n, n))
    np.fill_diagonal(rates, 0)
    return CTMC(rates)


def birth_death(capacity, birth, death, start=0):
    return CTMC.from_function(start, lambda x: ([(x + 1, birth(x))] if x < capacity else [])
                              + ([(x - 1, death(x))] if x > 0 else []))


def relative(value, exact):
    return float(abs(mpmath.mpf(float(value)) / exact - 1)) if exact else abs(float(value))


# ---------------------------------------------------------------------------------------------
# Rewards over time


@pytest.mark.parametrize("t", [0.0, 0.3, 2.0, 25.0])
def test_transient_reward_matches_mpmath_expm(t):
    # Reference: p(0) exp(Q t) r with mpmath.expm at 50 digits.
    chain = birth_death(10, lambda x: 0.7 + 0.1 * x, lambda x: 1.0 + 0.05 * x * x)
    reward = np.arange(11.0) ** 2
    value = chain.transient_reward(lambda x: x * x, t, 3)
    law = mp_law(mp_generator(chain), t, np.eye(11)[3])
    assert isinstance(value, float)
    assert relative(value, mpmath.fsum(law[j] * reward[j] for j in range(11))) < 1e-13


def test_transient_reward_of_both_signs_and_at_large_times():
    # Reference: mpmath.expm at t = 1.5; the stationary mean (GTH, certified) at t = 1e12.
    chain = birth_death(6, lambda x: 1.0, lambda x: 2.0)
    reward = np.array([-3.0, 1.0, 2.5, -1.0, 0.0, 4.0, -2.0])
    out = chain.transient_reward(reward, [1.5, 1e12], 2)
    law = mp_law(mp_generator(chain), 1.5, np.eye(7)[2])
    exact = mpmath.fsum(law[j] * reward[j] for j in range(7))
    scale = mpmath.fsum(law[j] * abs(reward[j]) for j in range(7))
    assert out.shape == (2,)
    assert float(abs(out[0] - exact) / scale) < 1e-13
    assert out[1] == pytest.approx(chain.stationary().expected(reward), rel=1e-12, abs=0)


@pytest.mark.parametrize("t", [0.0, 0.3, 2.0, 25.0])
def test_accumulated_reward_matches_the_augmented_matrix_exponential(t):
    # Reference: the last column of exp([[Q, r], [0, 0]] t) in mpmath (50 digits).
    chain = birth_death(10, lambda x: 0.7 + 0.1 * x, lambda x: 1.0 + 0.05 * x * x)
    reward = np.sqrt(np.arange(11.0))
    value = chain.accumulated_reward(reward, t, 3)
    exact = mp_accumulated(mp_generator(chain), t, np.eye(11)[3], reward)
    assert relative(value, exact) < 1e-13 if t else value == 0.0


def test_accumulated_reward_matches_quad_of_scipy_expm():
    # Reference: scipy.integrate.quad of p(0) expm(Q s) r (double precision, quad's tolerance).
    chain = random_chain(3, n=5)
    reward = np.array([1.0, 0.5, 2.0, 0.0, 3.0])
    q = chain.generator.toarray()
    p0 = np.full(5, 0.2)
    exact, _ = scipy.integrate.quad(lambda s: p0 @ scipy.linalg.expm(q * s) @ reward, 0.0, 1.7, epsabs=0, epsrel=1e-13)
    assert chain.accumulated_reward(reward, 1.7, p0) == pytest.approx(exact, rel=1e-11, abs=0)


@pytest.mark.parametrize("t", [1e3, 1e6, 1e12])
def test_accumulated_reward_at_large_times_matches_the_poisson_equation(t):
    # Reference: ∫_0^t p(s) r ds = t g + p(0) h - p(t) h, g = pi r and Q h = g - r, pi h = 0
    # (solved in mpmath); by t = 1e3 this chain has mixed to far below 1e-50, so p(t) h = 0.
    chain = birth_death(10, lambda x: 0.7 + 0.1 * x, lambda x: 1.0 + 0.05 * x * x)
    reward = np.arange(11.0)
    m = mp_generator(chain)
    n = m.rows
    system = m.T.copy()
    for j in range(n):
        system[n - 1, j] = 1
    pi = mpmath.lu_solve(system, mpmath.matrix([0] * (n - 1) + [1]))
    g = mpmath.fsum(pi[j] * reward[j] for j in range(n))
    poisson = mpmath.zeros(n + 1, n + 1)
    for i in range(n):
        for j in range(n):
            poisson[i, j] = m[i, j]
        poisson[i, n] = -1          # Q h - g = -r, with g unknown too; and pi h = 0
        poisson[n, i] = pi[i]
    h = mpmath.lu_solve(poisson, mpmath.matrix([-reward[i] for i in range(n)] + [0]))
    assert float(abs(h[n] - g)) < 1e-40                   # the Poisson system recovers g = pi r
    exact = t * g + h[3]
    assert relative(chain.accumulated_reward(reward, t, 3), exact) < 1e-12


def test_accumulated_reward_of_two_states_in_closed_form_at_many_times():
    # ∫_0^t P(X_s = 1) ds = t/3 - (1 - exp(-3 t))/9 for rates 1 (0 -> 1) and 2 (1 -> 0) from 0.
    chain = CTMC([[0, 1.0], [2.0, 0]])
    times = np.array([1e9, 0.0, 1e-3, 0.7, 3.0, 40.0])
    exact = times / 3 - (-np.expm1(-3 * times)) / 9
    assert chain.accumulated_reward([0.0, 1.0], times, 0) == pytest.approx(exact, rel=1e-13, abs=0)


def test_accumulated_reward_of_an_absorbing_chain_converges_to_the_time_before_absorption():
    # Time spent in 1..9 by gambler's ruin on 0..10 (absorbing ends) up to t: for t = 1e6, the
    # mean absorption time, by mpmath.lu_solve; at t = 30 the augmented exponential.
    chain = CTMC.from_function(3, lambda x: [(x + 1, 0.4), (x - 1, 0.6)] if 0 < x < 10 else [])
    inside = np.array([0.0 if s in (0, 10) else 1.0 for s in chain.states])
    target = inside == 0
    m = mp_generator(chain)
    p0 = np.eye(chain.n_states)[chain.index(3)]
    mean = mp_moments(m, target, p0, 1)[0]
    assert relative(chain.accumulated_reward(inside, 1e6, 3), mean) < 1e-12
    assert relative(chain.accumulated_reward(inside, 30.0, 3), mp_accumulated(m, 30.0, p0, inside)) < 1e-13


def test_a_reward_settles_before_the_far_tail_of_the_law(monkeypatch):
    """M/M/1/600 (λ = 1/2, μ = 1) from empty at t = 1000: its tail (π down to 1e-181) settles
    state by state after more iterates than a budget of 917 allows, so the law is refused, while
    the number in system has settled in total variation (transient.reward_settled) and is answered.
    References: at t = 1000 the chain is within e^-85 of π (spectral gap (1 - √ρ)² μ), so E[N(t)]
    is the truncated geometric mean, and the accumulated reward is t E[N] + h(0) - π h with h the
    Poisson equation's solution, by the stable backward recursion of a birth-death chain, in mpmath."""
    import analytic.ctmc.transient as transient

    K, lam, mu, t = 600, 0.5, 1.0, 1000.0
    chain = CTMC.from_function(0, lambda x: ([(x + 1, lam)] if x < K else []) + ([(x - 1, mu)] if x > 0 else []))
    monkeypatch.setattr(transient, "MAX_WORK", 2e7)              # 2e7 / (1801 + 20000) = 917 iterates
    with pytest.raises(ConvergenceError, match="would need 1,879 iterates"):
        chain.transient(t, 0)
    rho = mpmath.mpf(lam) / mpmath.mpf(mu)
    pi = [rho**x * (1 - rho) / (1 - rho ** (K + 1)) for x in range(K + 1)]
    mean = mpmath.fsum(x * pi[x] for x in range(K + 1))
    # Q h = -(r - mean): λ D(x) - μ D(x-1) = -(x - mean) with D(x) = h(x+1) - h(x); from the top state down.
    steps = [mpmath.mpf(0)] * K
    steps[K - 1] = (K - mean) / mu
    for x in range(K - 1, 0, -1):
        steps[x - 1] = (lam * steps[x] + (x - mean)) / mu
    h = [mpmath.fsum(steps[:x]) for x in range(K + 1)]
    excess = h[0] - mpmath.fsum(p * v for p, v in zip(pi, h, strict=True))
    jobs = np.arange(K + 1.0)
    assert relative(chain.transient_reward(jobs, t, 0), mean) < 1e-10
    assert relative(chain.accumulated_reward(jobs, t, 0), t * mean + excess) < 1e-10


@pytest.mark.slow
def test_rewards_of_a_stiff_chain_that_has_not_mixed_are_refused():
    # Rates 1e6 and 1e-6 (tests/ctmc/test_transient.py): at t = 1e4 the slow mode has not mixed and
    # uniformization would need 2e10 iterates; the accumulated reward needs the whole transient
    # phase, so it is refused at t = 1e12 too, where the expected reward is the stationary one.
    chain = CTMC([[0, 1e6, 0], [1e6, 0, 1e-6], [0, 1e-6, 0]])
    for measure in (chain.transient_reward, chain.accumulated_reward):
        with pytest.raises(ConvergenceError, match=r"it is stiff \(its rates span 1e\+12x\)"):
            measure([1.0, 2.0, 3.0], 1e4, 0)
    with pytest.raises(ConvergenceError, match="stiff"):
        chain.accumulated_reward([1.0, 2.0, 3.0], 1e12, 0)
    assert chain.transient_reward([1.0, 2.0, 3.0], 1e12, 0) == pytest.approx(2.0, rel=1e-12, abs=0)


# ---------------------------------------------------------------------------------------------
# Passage times: closed forms


def busy_period_moments(arrival, service, k):
    """E[B^j], j = 1..k, of the M/M/1 busy period, by differentiating its Laplace transform
    B*(s) = (λ + μ + s - sqrt((λ + μ + s)^2 - 4 λ μ)) / (2 λ) (Kleinrock, Queueing Systems I, 5.8) in sympy."""
    s = sympy.Symbol("s")
    lam, mu = sympy.Rational(arrival), sympy.Rational(service)
    transform = (lam + mu + s - sympy.sqrt((lam + mu + s) ** 2 - 4 * lam * mu)) / (2 * lam)
    return [sympy.simplify((-1) ** j * sympy.diff(transform, s, j).subs(s, 0)) for j in range(1, k + 1)]


def test_mm1_busy_period_moments_and_area_match_closed_forms():
    # Busy period started by one job: moments from the Laplace transform (sympy, exact), which
    # gives E[B] = 1/(μ - λ) and E[B^2] = 2/(μ^2 (1 - ρ)^3); the area under the number in system,
    # E[∫_0^B N] = E[jobs served] E[sojourn] = 1/(1 - ρ) * 1/(μ - λ). Truncated at 300 (ρ^300 = 1e-90).
    arrival, service = "1/2", "1"
    exact = busy_period_moments(arrival, service, 4)
    assert exact[0] == 2 and exact[1] == 2 / (1 * (1 - sympy.Rational(1, 2)) ** 3)
    queue = birth_death(300, lambda x: 0.5, lambda x: 1.0, start=1)
    busy = queue.passage_time(lambda x: x == 0, 1)
    assert busy.mean == pytest.approx(float(exact[0]), rel=1e-14, abs=0)
    for k in (2, 3, 4):
        assert busy.moment(k) == pytest.approx(float(exact[k - 1]), rel=1e-13, abs=0)
    assert queue.reward_until(lambda x: x == 0, lambda x: x, 1) == pytest.approx(1 / 0.5 * 2, rel=1e-14, abs=0)


def test_mmc_busy_periods_match_closed_forms():
    # M/M/4, λ = 3, μ = 1 (truncated at 400). (a) All servers busy, from 4 down to 3: an M/M/1
    # busy period at service rate cμ = 4 (moments from the transform, sympy). (b) The system's busy
    # period, from 1 to 0: idle periods last 1/λ and the fraction of time idle is π_0 (Erlang's
    # formula, exact rationals), so E[busy] = (1 - π_0) / (λ π_0).
    servers, arrival = 4, 3
    queue = birth_death(400, lambda x: float(arrival), lambda x: float(min(x, servers)), start=servers)
    allbusy = queue.passage_time(lambda x: x == servers - 1, servers)
    exact = busy_period_moments(str(arrival), str(servers), 2)
    assert allbusy.mean == pytest.approx(float(exact[0]), rel=1e-14, abs=0)
    assert allbusy.moment(2) == pytest.approx(float(exact[1]), rel=1e-13, abs=0)
    a = sympy.Rational(arrival)
    idle = 1 / (sum(a**k / sympy.factorial(k) for k in range(servers))
                + a**servers / (sympy.factorial(servers) * (1 - a / servers)))
    system = queue.passage_time(lambda x: x == 0, 1)
    assert system.mean == pytest.approx(float((1 - idle) / (a * idle)), rel=1e-13, abs=0)


def test_erlang_passage_time_distribution_and_tail():
    # Five phases of rate 2 in series: T is Erlang(5, 2): P(T <= t) = P(5, 2t) (regularized lower
    # incomplete gamma, mpmath); E[T^k] = (5)_k / 2^k. The tail at t = 40 (1e-28) comes from
    # survival(), relative to itself.
    chain = CTMC.from_function(0, lambda x: [(x + 1, 2.0)] if x < 5 else [])
    passage = chain.passage_time(lambda x: x == 5, 0)
    times = np.array([0.0, 0.5, 2.5, 6.0])
    exact = [mpmath.gammainc(5, 0, 2 * t, regularized=True) for t in times]
    assert passage.cdf(times) == pytest.approx([float(e) for e in exact], rel=1e-13, abs=0)
    tail = mpmath.gammainc(5, 80, mpmath.inf, regularized=True)
    assert relative(passage.survival(40.0), tail) < 1e-12
    for k in range(1, 5):
        assert passage.moment(k) == pytest.approx(math.prod(range(5, 5 + k)) / 2**k, rel=1e-14, abs=0)
    assert isinstance(passage.cdf(1.0), float) and passage.cdf(np.inf) == 1.0 and passage.survival(np.inf) == 0.0


def test_pure_death_absorption_time():
    # n -> n - 1 at rate n μ from 10: T is the maximum of 10 exponentials of rate μ, so
    # P(T <= t) = (1 - exp(-μ t))^10, E[T] = sum 1/(i μ), Var T = sum 1/(i μ)^2.
    mu = 0.7
    chain = CTMC.from_function(10, lambda x: [(x - 1, x * mu)] if x > 0 else [])
    passage = chain.passage_time(lambda x: x == 0, 10)
    mean = sum(1 / (i * mu) for i in range(1, 11))
    variance = sum(1 / (i * mu) ** 2 for i in range(1, 11))
    assert passage.mean == pytest.approx(mean, rel=1e-14, abs=0)
    assert passage.moment(2) == pytest.approx(variance + mean**2, rel=1e-14, abs=0)
    times = np.array([0.1, 1.0, 5.0, 20.0])
    assert passage.cdf(times) == pytest.approx((-np.expm1(-mu * times)) ** 10, rel=1e-13, abs=0)


def birth_death_passage_mean(births, deaths, level):
    """E[T_(0 -> level)] of a birth–death chain: sum_k (sum_(j<=k) π_j) / (λ_k π_k), π_j ∝ prod λ_i / μ_(i+1)."""
    weights = [mpmath.mpf(1)]
    for k in range(level):
        weights.append(weights[-1] * mpmath.mpf(births[k]) / mpmath.mpf(deaths[k + 1]))
    return mpmath.fsum(mpmath.fsum(weights[: k + 1]) / (mpmath.mpf(births[k]) * weights[k]) for k in range(level))


@pytest.mark.slow
def test_time_to_overflow_is_exact_however_rare():
    # M/M/1/40 at ρ = 0.2 from empty to full: mean ~ 1.4e28 (the birth–death sum, mpmath), with
    # ~1e28 jumps before the target — beyond what a residual in double-double certifies, so the
    # moments come from chained occupation measures. Moments 2 and 3 against mpmath.lu_solve.
    queue = birth_death(40, lambda x: 0.2, lambda x: 1.0)
    passage = queue.passage_time(lambda x: x == 40, 0)
    exact = birth_death_passage_mean([0.2] * 40, [1.0] * 41, 40)
    assert exact > 1e28
    assert relative(passage.mean, exact) < 1e-14
    moments = mp_moments(mp_generator(queue), np.array([s == 40 for s in queue.states]),
                         np.eye(41)[queue.index(0)], 3)
    assert relative(passage.mean, moments[0]) < 1e-14
    assert relative(passage.moment(2), moments[1]) < 1e-13
    assert relative(passage.moment(3), moments[2]) < 1e-13


@pytest.mark.slow
def test_stiff_chain_passage_moments_are_exact_and_its_unmixed_law_refused():
    # Rates 1e6 and 1e-6: the moments are linear solves, certified whatever the stiffness
    # (against mpmath.lu_solve); the distribution at t = 1e4 would need 1e10 uniformized steps and
    # is refused; at t = 1e9 the spectrum of the three-state absorbing chain proves it absorbed.
    chain = CTMC([[0, 1e6, 0], [1e6, 0, 1e-6], [0, 1e-6, 0]])
    target = np.array([False, False, True])
    passage = chain.passage_time(target, 0)
    exact = mp_moments(mp_generator(chain), target, np.eye(3)[0], 3)
    for k in (1, 2, 3):
        assert relative(passage.moment(k), exact[k - 1]) < 1e-15
    with pytest.raises(ConvergenceError, match=r"it is stiff \(its rates span 1e\+12x\)"):
        passage.cdf(1e4)
    assert passage.cdf(1e9) == 1.0


def test_lattice_chain_with_a_vectorized_predicate():
    # Two queues sharing arrivals (0.8 to the first, 0.5 to the second, unit service, capacity 4):
    # the time until either is full, from (1, 2), against mpmath.lu_solve.
    moves = [((1, 0), lambda X: 0.8 * (X[:, 0] < 4)), ((-1, 0), lambda X: 1.0 * (X[:, 0] > 0)),
             ((0, 1), lambda X: 0.5 * (X[:, 1] < 4)), ((0, -1), lambda X: 1.0 * (X[:, 1] > 0)),
             ((-1, 1), lambda X: 0.3 * (X[:, 0] > 0) * (X[:, 1] < 4))]
    chain = CTMC.from_lattice((4, 4), moves)
    passage = chain.passage_time(lambda X: X.max(axis=1) == 4, (1, 2))
    target = chain.states.max(axis=1) == 4
    exact = mp_moments(mp_generator(chain), target, np.eye(chain.n_states)[chain.index((1, 2))], 2)
    assert relative(passage.mean, exact[0]) < 1e-14
    assert relative(passage.moment(2), exact[1]) < 1e-13
    assert passage.n_states == int((~target).sum())


def test_initial_law_with_mass_on_the_target():
    # From (1/4 on the target, 3/4 on state 0) of an exponential passage of rate 2: P(T = 0) = 1/4,
    # E[T^k] = 3/4 k!/2^k, P(T <= t) = 1/4 + 3/4 (1 - exp(-2t)).
    chain = CTMC([[0, 2.0], [0, 0]])
    passage = chain.passage_time([False, True], np.array([0.75, 0.25]))
    assert passage.at_target == 0.25
    assert passage.mean == pytest.approx(0.375, rel=1e-15, abs=0)
    assert passage.moment(3) == pytest.approx(0.75 * 6 / 8, rel=1e-15, abs=0)
    assert passage.cdf([0.0, 1.0]) == pytest.approx([0.25, 0.25 + 0.75 * -np.expm1(-2.0)], rel=1e-14, abs=0)
    started = chain.passage_time([False, True], 1)
    assert (started.mean, started.moment(2), started.cdf(0.0), started.at_target) == (0.0, 0.0, 1.0, 1.0)


def test_result_is_a_frozen_dataclass_with_a_readable_repr():
    passage = CTMC([[0, 2.0], [0, 0]]).passage_time([False, True], 0)
    assert isinstance(passage, PassageTime)
    assert repr(passage) == "PassageTime(mean=0.5, accuracy=1e-10, at_target=0, n_states=1)"
    with pytest.raises(AttributeError):
        passage.mean = 1.0


# ---------------------------------------------------------------------------------------------
# Reachability


def test_gamblers_ruin_with_avoid_in_closed_form():
    # Up at rate 0.4, down at 0.6 on 0..10 from 3: reaching 10 before 0 has probability
    # (1 - r^3) / (1 - r^10), r = 0.6/0.4 (mpmath). The walk is not absorbing: avoid makes 0 so.
    walk = CTMC.from_function(3, lambda x: [(x + 1, 0.4)] * (x < 10) + [(x - 1, 0.6)] * (x > 0))
    r = mpmath.mpf(0.6) / mpmath.mpf(0.4)
    exact = (1 - r**3) / (1 - r**10)
    value = walk.reach_probability(lambda x: x == 10, np.inf, 3, avoid=lambda x: x == 0)
    assert isinstance(value, float) and relative(value, exact) < 1e-14
    assert walk.reach_probability(lambda x: x == 10, np.inf, 3) == 1.0          # irreducible: reached surely
    # A state in both sets counts as reached (CSL's until): avoid = {0, 10} changes nothing.
    assert walk.reach_probability(lambda x: x == 10, np.inf, 3, avoid=lambda x: x in (0, 10)) == value


def test_time_bounded_reachability_matches_mpmath_expm():
    # Reference: the chain with target and avoid absorbing, P(X_t in target) by mpmath.expm.
    chain = birth_death(8, lambda x: 1.0 + 0.2 * x, lambda x: 1.5)
    target, avoid = np.array([s == 8 for s in chain.states]), np.array([s == 0 for s in chain.states])
    p0 = np.eye(9)[chain.index(4)]
    times = np.array([0.0, 0.5, 3.0, 20.0, np.inf])
    values = chain.reach_probability(target, times, 4, avoid=avoid)
    m = mp_generator(chain)
    for t, value in zip(times[:-1], values[:-1], strict=True):
        exact = mp_absorbed(m, target, avoid, p0, t)
        assert (value == 0.0 if t == 0 else relative(value, exact) < 1e-13)
    assert relative(values[-1], mp_reach(m, target, avoid, p0, hits(chain, target, avoid))) < 1e-14


@pytest.mark.parametrize("seed", [seed if seed < 5 else pytest.param(seed, marks=pytest.mark.slow) for seed in range(20)])
def test_random_chains_against_mpmath(seed):
    # Seven states, rates over four decades, about half the pairs connected; target: state 6,
    # avoid: state 5, rewards of both signs. References: mpmath.lu_solve and mpmath.expm.
    chain = random_chain(seed)
    n = chain.n_states
    m = mp_generator(chain)
    rng = np.random.default_rng(100 + seed)
    p0 = rng.dirichlet(np.ones(n))
    reward = rng.normal(size=n)
    target, avoid = np.eye(n, dtype=bool)[6], np.eye(n, dtype=bool)[5]
    # rewards over time
    for t in (0.4, 3.0):
        law = mp_law(m, t, p0)
        scale = mpmath.fsum(law[j] * abs(reward[j]) for j in range(n))
        exact = mpmath.fsum(law[j] * reward[j] for j in range(n))
        assert float(abs(chain.transient_reward(reward, t, p0) - exact) / scale) < 1e-12
        assert relative(chain.accumulated_reward(np.abs(reward), t, p0), mp_accumulated(m, t, p0, np.abs(reward))) < 1e-12
    # reachability
    reachable = hits(chain, target, avoid)
    assert relative(chain.reach_probability(target, np.inf, p0, avoid=avoid),
                    mp_reach(m, target, avoid, p0, reachable)) < 1e-13
    assert relative(chain.reach_probability(target, 2.0, p0, avoid=avoid), mp_absorbed(m, target, avoid, p0, 2.0)) < 1e-12
    # passage time: refused exactly when some state visited first cannot reach the target
    if not hits(chain, target)[p0 > 0].all() or not _closed_under(chain, hits(chain, target), target):
        with pytest.raises(InvalidParameterError, match="target = .*is reached from initial with probability"):
            chain.passage_time(target, p0)
        return
    passage = chain.passage_time(target, p0)
    moments = mp_moments(m, target, p0, 3)
    assert relative(passage.mean, moments[0]) < 1e-14
    assert relative(passage.moment(2), moments[1]) < 1e-13
    assert relative(passage.moment(3), moments[2]) < 1e-13
    law = mp_absorbed(m, target, np.zeros(n, bool), p0, 1.0)
    assert relative(passage.cdf(1.0), law) < 1e-12
    assert relative(passage.survival(1.0), 1 - law) < 1e-12
    positive = np.abs(reward)
    assert relative(chain.reward_until(target, positive, p0), mp_reward_until(m, target, p0, positive)) < 1e-14
    exact = mp_reward_until(m, target, p0, reward)
    scale = mp_reward_until(m, target, p0, positive)
    assert float(abs(chain.reward_until(target, reward, p0) - exact) / scale) < 1e-14


def _closed_under(chain, able, target):
    """Whether every state reachable from one that can reach the target (not through it) can too."""
    q = chain.generator.toarray()
    return all(able[j] for i in range(len(q)) if able[i] and not target[i] for j in range(len(q)) if i != j and q[i, j] > 0)


def test_random_chains_refuse_and_accept_as_the_graph_says():
    # The random family above must exercise both branches.
    outcomes = set()
    for seed in range(20):
        chain = random_chain(seed)
        try:
            chain.passage_time(np.eye(7, dtype=bool)[6], np.full(7, 1 / 7))
            outcomes.add("passage")
        except InvalidParameterError:
            outcomes.add("refused")
    assert outcomes == {"passage", "refused"}


# ---------------------------------------------------------------------------------------------
# Refusals and bad input


def test_unreachable_target_is_refused_with_the_probability_of_reaching_it():
    # From 1: to 0 at rate 1 (absorbing), to 2 at rate 3: the target 2 is reached w.p. 3/4.
    chain = CTMC([[0, 0, 0], [1.0, 0, 3.0], [0, 0, 0]])
    for call in (lambda: chain.passage_time(lambda x: x == 2, 1),
                 lambda: chain.reward_until(lambda x: x == 2, 1.0, 1)):
        with pytest.raises(InvalidParameterError, match=r"^target = .*is reached from initial with probability 0\.75 "
                                                        r"only \(it is never reached with probability 0\.25\); e\.g\. "
                                                        r"state 0 can be visited and cannot reach it: .*mean is infinite"):
            call()
    assert chain.reach_probability(lambda x: x == 2, np.inf, 1) == pytest.approx(0.75, rel=1e-15, abs=0)
    # Never reachable at all: probability 0.
    with pytest.raises(InvalidParameterError, match="with probability 0 only"):
        chain.passage_time(lambda x: x == 1, 0)


@pytest.mark.parametrize("method,args,match", [
    ("passage_time", ([False, False, False], 0), r"^target = .*must contain at least one state \(it selects none\)"),
    ("passage_time", (lambda x: False, 0), "target = .*must contain at least one state"),
    ("reach_probability", ([False] * 3, 1.0, 0), "target = .*must contain at least one state"),
    ("reward_until", (lambda x: x > 5, 1.0, 0), "target = .*must contain at least one state"),
    ("passage_time", ([2], 0), r"target = \[2\]: must be a boolean mask aligned with the states \(3 booleans\) or a "
                               r"predicate of a state returning True or False \(a set S of states: lambda x: x in S\)"),
    ("passage_time", ({2}, 0), r"target = \{2\}: must be a boolean mask"),
    ("passage_time", ([True, False], 0), r"target = .*\(3 booleans\)"),
    ("passage_time", (None, 0), "target = None: must be a boolean mask"),
    ("passage_time", (lambda x: x, 0), "target = .*must return True or False for each state; it returned 0 at state 0"),
    ("passage_time", (lambda x: 1 / 0, 0), r"target = 0: failed on this input \(ZeroDivisionError"),
    ("passage_time", ([False, False, True], 7), "initial = 7: is not a state of this chain"),
    ("passage_time", ([False, False, True], 0, 0.0), "tolerance = 0"),
    ("passage_time", ([False, False, True], 0, 1e-16), r"tolerance = 1e-16: must be at least 2\*\*-48"),
    ("reach_probability", ([False, False, True], -1.0, 0), r"t = -1: must be real numbers >= 0 \(inf allowed\)"),
    ("reach_probability", ([False, False, True], np.nan, 0), "t = nan"),
    ("reach_probability", ([False, False, True], 1.0, 0, [1, 0, 0]), "avoid = .*must be a boolean mask"),
    ("transient_reward", ([1.0, 2.0, 3.0], -2.0, 0), r"t = -2: must be finite real numbers >= 0"),
    ("transient_reward", ([1.0, 2.0, 3.0], np.inf, 0), "t = inf: must be finite"),
    ("transient_reward", ([1.0, 2.0, 3.0], [[1.0]], 0), "t = .*a scalar or a 1-D sequence"),
    ("accumulated_reward", ([1.0, 2.0, 3.0], [1.0, np.nan], 0), "t = .*nan"),
    ("accumulated_reward", ([1.0, 2.0, 3.0], [], 0), "t = .*non-empty"),
    ("accumulated_reward", ([1.0, np.inf, 3.0], 1.0, 0), r"reward = inf: must be finite \(at state 1\)"),
    ("accumulated_reward", ([1.0, 2.0], 1.0, 0), "reward = .*one value per state"),
    ("accumulated_reward", (lambda x: [1, 2][x], 1.0, 0), "reward = .*failed on this input"),
    ("reward_until", ([False, False, True], "abc", 0), "reward = 'abc'"),
])
def test_bad_input_names_the_parameter(method, args, match):
    chain = birth_death(2, lambda x: 1.0, lambda x: 1.0)
    with pytest.raises(InvalidParameterError, match=match):
        getattr(chain, method)(*args)


@pytest.mark.parametrize("k,match", [(-1, "k = -1: must be an integer >= 0"), (1.0, "k = 1: must be an integer"),
                                     (101, r"k = 101: must be an integer in \[0, 100\]"),
                                     (60, r"k = 60: E\[T\^60\] is about 1e")])
def test_moment_order_is_checked(k, match):
    passage = CTMC([[0, 1e-6], [0, 0]]).passage_time([False, True], 0)   # E[T^k] = k! 1e6^k
    with pytest.raises(InvalidParameterError, match=match):
        passage.moment(k)


def test_large_rewards_overflow_with_an_error_not_inf():
    chain = CTMC([[0, 1.0], [2.0, 0]])
    with pytest.raises(InvalidParameterError, match="reward = .*exceeds the largest double"):
        chain.accumulated_reward([1e308, 1e308], 1e10, 0)
    assert chain.accumulated_reward([1e308, 1e308], 1.0, 0) == pytest.approx(1e308, rel=1e-14, abs=0)
