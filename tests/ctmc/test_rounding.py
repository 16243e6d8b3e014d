"""The a-priori rounding bound of the sparse GTH factorization (analytic.ctmc._rounding).

The bound is a count of roundings (``S``) times ``u'``. It is checked three ways, each against an
independent computation:

* the compiled count against the formula of the module docstring evaluated in plain Python on the
  columns of the factor found by dense symbolic elimination;
* the argument itself, in emulated low precision: GTH on the plan's order carried out in mpmath at
  12 bits with every rounding directed (all up, all down, alternating, random), whose Hilbert-metric
  error against the exact law (pinned LU at 80 digits) must stay within ``S`` roundings of that precision —
  an error of a few roundings there is a thousand times ``2**-53``, so a missing term shows;
* in double precision, the computed law against the product form (mpmath, 50 digits) on
  birth–death chains whose rates span 8 decades.

And the guard: a factorization in which some rate, routing probability, product or aligned
contribution fell below the normal range has no a-priori bound.
"""

import itertools
import math

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp
from mpmath.libmp import from_float, mpf_add, mpf_div, mpf_mul
from references import pinned_lu_reference

from analytic.ctmc import _gth as gth
from analytic.ctmc._balance import Balance
from analytic.ctmc._gth_analysis import etree, permuted_pattern, symmetric
from analytic.ctmc._rounding import factorization_bound, rounding_sum
from analytic.errors import InvalidParameterError


def random_rates(rng, n, decades=3.0, density=0.5):
    """A dense array of rates over ``2 * decades`` decades with a ring that keeps it irreducible."""
    rates = 10 ** rng.uniform(-decades, decades, (n, n)) * (rng.random((n, n)) < density)
    np.fill_diagonal(rates, 0)
    for i in range(n):
        rates[i, (i + 1) % n] = rates[i, (i + 1) % n] or 1.0
    return rates


def plan_of(rates, root=None):
    balance = Balance(sp.csr_array(rates))
    return balance, gth.analyse(balance.rates, root=root)


# -- the count ---------------------------------------------------------------------------------------


def structure(plan, rates):
    """The columns of the factor by dense symbolic elimination of the symmetrized pattern in the
    plan's order: column t holds the later states joined to t once the earlier ones are gone."""
    order = [int(s) for s in plan.order]
    n = len(order)
    position = {state: k for k, state in enumerate(order)}
    joined = [set() for _ in range(n)]
    rows, cols = np.nonzero(np.asarray(rates))
    for i, j in zip(rows, cols, strict=True):
        if i != j:
            joined[position[i]].add(position[j])
            joined[position[j]].add(position[i])
    columns = []
    for t in range(n):
        later = {j for j in joined[t] if j > t}
        columns.append(sorted(later))
        for j in later:
            joined[j] |= later - {j}
    return columns


def formula(columns):
    """``S`` of the module docstring in plain Python from the columns of the factor."""
    n = len(columns)
    rows = [sum(j in column for column in columns) for j in range(n)]
    total = 2 + sum(2 * (1 + r) for r in rows)
    for column in columns:
        c = len(column) + 1
        for j in column:
            others = [rows[i] for i in column if i != j]
            total += 2 * (4 + min(rows[j], max(others, default=0)))
        if column:
            total += 2 * c
    return total


def counted(balance, plan):
    indptr, indices = permuted_pattern(symmetric(balance.rates), plan.order)
    return rounding_sum(indptr, indices, etree(indptr, indices, balance.n))[0]


@pytest.mark.parametrize("seed", range(12))
def test_the_compiled_count_is_the_formula_on_the_factor_by_symbolic_elimination(seed):
    rng = np.random.default_rng(seed)
    rates = random_rates(rng, int(rng.integers(2, 40)), density=rng.uniform(0.05, 0.6))
    balance, plan = plan_of(rates, root=int(rng.integers(len(rates))))
    assert counted(balance, plan) == formula(structure(plan, rates))


def test_the_count_of_a_birth_death_chain_grows_linearly():
    # A path eliminated towards its middle: columns of at most three entries, so at most 30
    # roundings per state; the root, which the whole second half reaches, weighs only through
    # min(r_j, r_i).
    for n in (100, 1000, 10000):
        up, down = np.full(n - 1, 2.0), np.ones(n - 1)
        balance, plan = plan_of(sp.diags_array([down, up], offsets=[-1, 1]).tocsr(), root=n // 2)
        assert counted(balance, plan) <= 30 * n


def test_the_bound_from_the_count():
    # exp(S u' + tiny) - 1, a little high; beyond the double range inf.
    unit = 2.0**-53 / (1 - 2.0**-53)
    assert factorization_bound(1000.0, 0.0) == pytest.approx(math.expm1(1000 * unit), rel=1e-10, abs=0)
    assert factorization_bound(1000.0, 0.0) >= math.expm1(1000 * unit)
    assert factorization_bound(1e300, 0.0) == math.inf


# -- the argument, in emulated low precision -----------------------------------------------------------


def emulated_measure(rates, order, bits, direction):
    """GTH of ``rates`` eliminated in ``order`` (root last) in ``bits``-bit arithmetic, the k-th
    rounding directed by ``direction(k)`` ('u' or 'd'): the embedded rates, each pivot's sum (rounded
    once, as the factorization's compensated sum is up to a second-order term), its routing
    probabilities, the censored rates, the back-substitution and the division by the outflows
    (which are exact: any positive scaling of the rows leaves the law unchanged)."""
    n = len(rates)
    counter = itertools.count()

    def rounded():
        return direction(next(counter))

    outflow = [mpmath.fsum(mpmath.mpf(float(v)) for j, v in enumerate(rates[i]) if j != i and v)._mpf_ for i in range(n)]
    rate = [[mpf_div(from_float(float(rates[i][j])), outflow[i], bits, rounded()) if i != j and rates[i][j] else None
             for j in range(n)] for i in range(n)]
    pivot = {}
    for k, t in enumerate(order[:-1]):
        later = order[k + 1:]
        with mpmath.workdps(100):          # the compensated pivot sum: exact, then rounded once
            exact = mpmath.fsum(mpmath.mpf(rate[t][i]) for i in later if rate[t][i] is not None)
        total = mpf_add(exact._mpf_, from_float(0.0), bits, rounded())
        pivot[t] = total
        routing = {i: mpf_div(rate[t][i], total, bits, rounded()) for i in later if rate[t][i] is not None}
        for j in later:
            if rate[j][t] is None:
                continue
            for i, p in routing.items():
                if i != j:
                    term = mpf_mul(rate[j][t], p, bits, rounded())
                    rate[j][i] = term if rate[j][i] is None else mpf_add(rate[j][i], term, bits, rounded())
    x = {order[-1]: from_float(1.0)}
    for k in range(len(order) - 2, -1, -1):
        t, total = order[k], None
        for j in order[k + 1:]:
            if rate[j][t] is not None:
                term = mpf_mul(x[j], rate[j][t], bits, rounded())
                total = term if total is None else mpf_add(total, term, bits, rounded())
        x[t] = mpf_div(total, pivot[t], bits, rounded())
    return [mpmath.mpf(mpf_div(x[i], outflow[i], bits, rounded())) for i in range(n)]


def hilbert(a, b):
    with mpmath.workdps(80):
        logs = [mpmath.log(x) - mpmath.log(y) for x, y in zip(a, b, strict=True)]
        return float(max(logs) - min(logs))


def test_the_reference_gth_is_exact_at_high_precision():
    # The emulation itself, at 200 bits: the law of a 3-cycle 0 -> 1 -> 2 -> 0 with rates 1, 2, 4.
    rates = np.array([[0, 1.0, 0], [0, 0, 2.0], [4.0, 0, 0]])
    measure = emulated_measure(rates, [0, 1, 2], 200, lambda k: "u")
    total = sum(measure)
    assert [float(v / total) for v in measure] == pytest.approx([4 / 7, 2 / 7, 1 / 7], rel=1e-15, abs=0)


@pytest.mark.parametrize("seed", range(8))
def test_the_bound_holds_with_every_rounding_directed_at_12_bits(seed):
    bits = 12
    unit = 2.0 ** (1 - bits) / (1 - 2.0 ** (1 - bits))   # a directed rounding errs by up to one ulp
    rng = np.random.default_rng(seed)
    worst = 0.0
    for _ in range(12):
        rates = random_rates(rng, int(rng.integers(2, 9)), density=rng.uniform(0.2, 1.0))
        balance, plan = plan_of(rates, root=int(rng.integers(len(rates))))
        bound = counted(balance, plan) * unit
        exact = pinned_lu_reference(rates, digits=80)
        coin = np.random.default_rng(seed + 1000).integers(2, size=100_000)
        for direction in (lambda k: "u", lambda k: "d", lambda k: "ud"[k % 2], lambda k, coin=coin: "ud"[coin[k]]):
            error = hilbert(emulated_measure(rates, [int(s) for s in plan.order], bits, direction), exact)
            assert error <= bound, (rates, error, bound)
            worst = max(worst, error / bound)
    assert worst > 0.01     # the emulation's errors are of the bound's order: the check has teeth


# -- in double precision -------------------------------------------------------------------------------


def test_the_bound_holds_on_birth_death_chains_over_eight_decades():
    # The chains of the issue (60-80 states, rates log-uniform on [1e-4, 1e4]), against the product
    # form at 50 digits, each state relative to itself.
    rng = np.random.default_rng(28)
    for _ in range(40):
        n = int(rng.integers(60, 81))
        up, down = 10 ** rng.uniform(-4, 4, n - 1), 10 ** rng.uniform(-4, 4, n - 1)
        balance = Balance(sp.diags_array([down, up], offsets=[-1, 1]).tocsr())
        factorization = gth.Factorization(balance, gth.analyse(balance.rates, root=balance.likely_state()))
        bound = factorization.error_bound()
        assert bound < 1e-11
        mantissa, exponent = balance.probabilities(factorization.measure())
        with mpmath.workdps(50):
            weights = [mpmath.mpf(1)]
            for a, b in zip(up, down, strict=True):
                weights.append(weights[-1] * mpmath.mpf(a) / mpmath.mpf(b))
            computed = [mpmath.ldexp(mpmath.mpf(m), int(e)) for m, e in zip(mantissa, exponent, strict=True)]
            assert hilbert(computed, weights) <= math.log1p(bound)


# -- the guard: no a-priori bound after an underflow ---------------------------------------------------


def test_a_subnormal_embedded_rate_removes_the_bound():
    # Out of state 0: 1 and 2**-1060, whose routing probability is subnormal.
    rates = np.array([[0, 1.0, 2.0**-1060], [1.0, 0, 1.0], [1.0, 1.0, 0]])
    balance, plan = plan_of(rates)
    factorization = gth.Factorization(balance, plan)
    assert not factorization.normal and factorization.error_bound() == math.inf
    balance, plan = plan_of(np.array([[0, 1.0, 1e-300], [1.0, 0, 1.0], [1.0, 1.0, 0]]))
    assert gth.Factorization(balance, plan).normal


def brute_force_normal(factorization):
    """Every censored rate into a pivot, routing probability out of it, and their every product,
    at least 2**-1022: read off the stored factor rows pivot by pivot."""
    plan = factorization.plan
    for s in range(len(plan.start) - 1):
        p = int(plan.start[s + 1] - plan.start[s])
        f = p + int(plan.update_ptr[s + 1] - plan.update_ptr[s])
        at = int(factorization._factor_ptr[s])
        for t in range(p):
            into = factorization._lower[at + t * f + t + 1: at + (t + 1) * f]
            out = factorization._upper[at + t * f + t + 1: at + (t + 1) * f]
            products = np.outer(into[into > 0], out[out > 0])
            if (into[into > 0] < 2.0**-1022).any() or (out[out > 0] < 2.0**-1022).any() or (products < 2.0**-1022).any():
                return False
    return True


def test_the_check_of_the_products_agrees_with_a_brute_force_one():
    # Rates over 200 to 320 decades: some chains form products below the normal range, some not.
    outcomes = set()
    for seed in range(30):
        rng = np.random.default_rng(seed)
        rates = random_rates(rng, int(rng.integers(3, 30)), decades=rng.uniform(100, 160), density=0.3)
        try:
            balance, plan = plan_of(rates, root=int(rng.integers(len(rates))))
            factorization = gth.Factorization(balance, plan)
        except (gth.VanishedPivot, InvalidParameterError):    # a row spanning more than the double range
            continue
        products = gth._products_normal(plan.start, plan.update_ptr, factorization._factor_ptr, factorization._lower,
                                        factorization._upper)
        assert products == brute_force_normal(factorization)
        embedded = balance.rates.data / np.repeat(balance.outflow, np.diff(balance.rates.indptr))
        assert factorization.normal <= (products and embedded.min() >= 2.0**-1022)
        outcomes.add(products)
    assert outcomes == {True, False}


def test_a_contribution_aligned_below_the_normal_range_removes_the_bound():
    # Rates over about 260 decades on 16 states: every rate, routing probability and product is
    # normal, but a contribution block's row is shifted below 2**-1022 when a parent front aligns it
    # with the larger entries of that row.
    rng = np.random.default_rng(11)
    rates = random_rates(rng, int(rng.integers(10, 60)), decades=rng.uniform(100, 160), density=0.1)
    balance, plan = plan_of(rates, root=int(rng.integers(len(rates))))
    factorization = gth.Factorization(balance, plan)
    embedded = balance.rates.data / np.repeat(balance.outflow, np.diff(balance.rates.indptr))
    assert embedded.min() >= 2.0**-1022 and brute_force_normal(factorization)
    assert not factorization.normal and factorization.error_bound() == math.inf
