"""The banded GTH of analytic.ctmc._small, and the small-chain path of ``stationary(method="auto")``.

References: exact rational solutions (``fractions.Fraction``: the product form of birth–death
chains, and the balance equations of small non-reversible chains solved by Gaussian elimination in
rationals), and mpmath at 50 digits in log space where the probabilities leave the double range.
Each answer must lie within the bounds it reports, and those within the tolerance vouched for.
"""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp

from analytic.ctmc import CTMC
from analytic.ctmc import _small as small
from analytic.ctmc._balance import Balance
from analytic.ctmc.stationary import ACCURACY

mpmath.mp.dps = 50


def exact_law(rates):
    """The stationary law of a dense rate matrix (rationals of the doubles given), by Gaussian
    elimination in exact rationals: the balance equations with the first replaced by sum(pi) = 1."""
    n = len(rates)
    q = [[Fraction(float(rates[i][j])) for j in range(n)] for i in range(n)]
    system = [[Fraction(1)] * n + [Fraction(1)]]
    for i in range(1, n):
        row = [q[j][i] if j != i else -sum(q[i][k] for k in range(n) if k != i) for j in range(n)]
        system.append([*row, Fraction(0)])
    for c in range(n):
        p = next(r for r in range(c, n) if system[r][c] != 0)
        system[c], system[p] = system[p], system[c]
        for r in range(n):
            if r != c and system[r][c] != 0:
                f = system[r][c] / system[c][c]
                system[r] = [a - f * b for a, b in zip(system[r], system[c], strict=True)]
    return [system[i][n] / system[i][i] for i in range(n)]


def birth_death_logs(births, deaths):
    """log pi(x), pi(x) ∝ prod_{y<x} birth(y) / death(y + 1), in mpmath at 50 digits (any range)."""
    logs = [mpmath.mpf(0)]
    for b, d in zip(births, deaths, strict=True):
        logs.append(logs[-1] + mpmath.log(mpmath.mpf(b)) - mpmath.log(mpmath.mpf(d)))
    top = max(logs)
    total = top + mpmath.log(mpmath.fsum(mpmath.exp(v - top) for v in logs))
    return [v - total for v in logs]


def birth_death(births, deaths):
    n = len(births) + 1
    return CTMC.from_function(0, lambda x: ([(x + 1, births[x])] if x < n - 1 else [])
                              + ([(x - 1, deaths[x - 1])] if x > 0 else []))


def assert_within_bounds(result, exact):
    """Every probability within its own reported bound of the exact one; the bounds within the
    accuracy at and above the floor; the small path took the chain."""
    assert result.method.startswith("gth (banded")
    for p, q, bound in zip(np.asarray(result), exact, result.error_bounds, strict=True):
        q = float(q)
        if q >= 2.0**-1022:
            assert abs(p - q) <= bound * q * (1 + 1e-9), (p, q, bound)
        if p >= result.floor:
            assert bound <= result.accuracy
    assert result.accuracy == ACCURACY


def test_birth_death_chain_against_its_rational_product_form():
    births, deaths = [1.0, 3.0, 0.5, 2.0, 7.0], [2.0, 1.0, 4.0, 0.25, 3.0]
    weights = [Fraction(1)]
    for b, d in zip(births, deaths, strict=True):
        weights.append(weights[-1] * Fraction(b) / Fraction(d))
    exact = [w / sum(weights) for w in weights]
    assert_within_bounds(birth_death(births, deaths).stationary(), exact)


@pytest.mark.parametrize("seed", range(6))
def test_stiff_non_reversible_chains_against_exact_rationals(seed):
    """Random chains of 6 to 12 states, a cycle plus chords, rates spread over 16 decades."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 13))
    rates = np.zeros((n, n))
    for i in range(n):
        rates[i, (i + 1) % n] = 10.0 ** rng.uniform(-8, 8)
    for _ in range(2 * n):
        i, j = rng.integers(0, n, 2)
        if i != j:
            rates[i, j] = 10.0 ** rng.uniform(-8, 8)
    assert_within_bounds(CTMC(rates).stationary(), exact_law(rates.tolist()))


def test_rates_over_sixty_decades_on_a_birth_death_chain():
    """Births 1e-30 and deaths 1e30 alternate with ordinary rates: probabilities span 1e-600 and
    below, beyond the double range; vouched ones match mpmath's product form in log space."""
    births = [1e-30 if x % 3 == 0 else 2.0 for x in range(40)]
    deaths = [1e30 if x % 4 == 1 else 0.5 for x in range(40)]
    result = birth_death(births, deaths).stationary()
    assert result.method.startswith("gth (banded")
    logs = birth_death_logs(births, deaths)
    for p, log_q, bound in zip(np.asarray(result), logs, result.error_bounds, strict=True):
        if p >= result.floor:
            assert bound <= ACCURACY
            assert abs(float(mpmath.log(p) - log_q)) <= 1.01 * bound + 1e-300
    assert np.all(result.error_bounds[np.asarray(result) >= result.floor] <= result.accuracy)


def test_probabilities_below_the_double_range_keep_their_ratios():
    """Birth 1, death 1e10 on 101 states: pi(x) ∝ 1e-10x, down to 1e-1000. The states above the
    floor are vouched; the measure carries the rest with their exact ratios (mpmath)."""
    n = 100
    balance = Balance(birth_death([1.0] * n, [1e10] * n).generator)
    factorization = small.BandFactorization(balance, small.band_plan(balance, 0))
    x = factorization.measure()
    mantissa, exponent = balance.probabilities(x)
    log2 = np.log2(mantissa) + exponent
    logs = birth_death_logs([1.0] * n, [1e10] * n)
    expected = np.array([float((v - logs[0]) / mpmath.log(2)) for v in logs])
    assert log2 - log2[0] == pytest.approx(expected, abs=1e-9)     # a relative error below 1e-9 everywhere
    result = birth_death([1.0] * n, [1e10] * n).stationary()
    assert_within_bounds(result, [float(mpmath.exp(v)) for v in logs])


def test_solve_is_the_pinned_system():
    """``u_i q'_i - sum_j u_j q'_ji = w_i`` off the root, ``u_root = 0``: checked in exact rationals."""
    rates = [[0, 1.0, 0.5, 0], [2.0, 0, 0, 1.0], [0, 3.0, 0, 0.25], [1.0, 0, 4.0, 0]]
    balance = Balance(sp.csr_array(np.array(rates) - np.diag(np.sum(rates, axis=1))))
    factorization = small.BandFactorization(balance, small.band_plan(balance, 2))
    w = np.array([1.0, 0.5, 0.0, 2.0])
    mantissa, exponent = factorization.solve(w, np.zeros(4, np.int64))
    u = [Fraction(float(v)) for v in np.ldexp(mantissa, exponent)]
    scaled = balance.rates.toarray()
    assert u[2] == 0
    for i in (0, 1, 3):
        out = sum(Fraction(float(v)) for v in scaled[i])
        inflow = sum(u[j] * Fraction(float(scaled[j, i])) for j in range(4))
        assert float(abs(u[i] * out - inflow - Fraction(w[i])) / Fraction(w[i] or 1)) <= 1e-14


def test_the_a_priori_bound_holds():
    """The rounding-error bound of the elimination, against the exact law of a stiff chain."""
    rates = np.zeros((8, 8))
    for i in range(8):
        rates[i, (i + 1) % 8], rates[i, (i + 3) % 8] = 10.0 ** (i - 4), 10.0 ** (4 - i)
    balance = Balance(sp.csr_array(rates - np.diag(rates.sum(axis=1))))
    factorization = small.BandFactorization(balance, small.band_plan(balance, 0))
    bound = factorization.error_bound()
    assert factorization.normal and 0 < bound < 1e-13
    mantissa, exponent = balance.probabilities(factorization.measure())
    law = np.ldexp(mantissa, exponent)
    law /= math.fsum(law)
    exact = exact_law(rates.tolist())
    for p, q in zip(law, exact, strict=True):
        assert abs(Fraction(float(p)) / q - 1) <= bound + 4 * 2.0**-53


def test_a_root_far_in_a_tail_is_moved_to_the_likeliest_state():
    """The last state is entered at rate 1e-20 and left at 1e-10: the least outflow, the first guess
    of the root, yet 1e-10 as likely as its neighbour. The answer is rooted again where the mass is
    (the amplification, a mean hitting time of the root in jumps, stays small) and vouched,
    against the product form."""
    births, deaths = [1.0] * 9 + [1e-20], [1.0] * 9 + [1e-10]
    balance = Balance(birth_death(births, deaths).generator)
    assert int(np.argmin(np.log2(balance.outflow) + balance.row_exponent)) == 10
    result = birth_death(births, deaths).stationary()
    assert_within_bounds(result, [float(mpmath.exp(v)) for v in birth_death_logs(births, deaths)])
    assert result.conditioning < 1e3


def test_large_or_wide_chains_take_the_multifrontal_path():
    """More than SMALL_STATES states, or a band too costly (a random graph's breadth-first levels
    are hundreds of states wide): the multifrontal GTH as before."""
    line = birth_death([0.5] * small.SMALL_STATES, [1.0] * small.SMALL_STATES).stationary()
    assert line.method.startswith("gth (multifrontal")
    n, rng = 1500, np.random.default_rng(1)
    rows = np.concatenate([np.arange(n), rng.integers(0, n, 3 * n)])
    cols = np.concatenate([(np.arange(n) + 1) % n, rng.integers(0, n, 3 * n)])
    keep = rows != cols
    wide = CTMC(sp.csr_array((rng.uniform(0.5, 2.0, keep.sum()), (rows[keep], cols[keep])), shape=(n, n)))
    assert small.band_plan(Balance(wide.generator), 0).flops > small.SMALL_FLOPS
    assert not wide.stationary().method.startswith("gth (banded")
    balance = Balance(birth_death([1.0] * 9, [2.0] * 9).generator)
    plan = small.band_plan(balance, 0)
    assert plan.width == 1 and plan.flops == 9.0 and plan.bytes == 16 * 10 * 3


def test_a_wide_band_two_queue_lattice_against_its_rational_product_form():
    """Two independent M/M/1/12 queues (loads 1/2 and 3, rates over 12 decades): a 169-state lattice
    whose breadth-first levels are diagonals, so a band 13 states wide: the elimination's updates
    run over rows up to 13 long. The law is the product of two geometric laws, in exact rationals."""
    capacity, queues = 12, [(1e-6, 2e-6), (3e6, 1e6)]           # (arrival, service) per queue
    marginals = []
    for arrival, service in queues:
        weights = [(Fraction(arrival) / Fraction(service)) ** k for k in range(capacity + 1)]
        marginals.append([w / sum(weights) for w in weights])

    def moves(state):
        out = []
        for axis, (arrival, service) in enumerate(queues):
            for step, rate in ((1, arrival), (-1, service)):
                other = list(state)
                other[axis] += step
                if 0 <= other[axis] <= capacity:
                    out.append((tuple(other), rate))
        return out

    chain = CTMC.from_function((0, 0), moves)
    balance = Balance(chain.generator)
    assert small.band_plan(balance, 0).width >= capacity
    exact = [marginals[0][a] * marginals[1][b] for a, b in chain.states]
    assert_within_bounds(chain.stationary(), exact)
