"""Tests of analytic.splitting against independent computations.

References: the exact CTMC of the ModifiedBS reserved system (modified_bs_chain, built with
analytic.ctmc from Definition 2: busy servers per A_i, admission when n_i servers are idle, no
use of Property 1), with exponential and hyperexponential service times; a brute-force walk through every breakpoint of (2a) in
exact rationals; Erlang B from the O(s) recursion; φ/Φ from mpmath; the numbers printed in
Tables 2 and 3 and in the caption of Figure 1.
"""

import itertools
import math
import sys
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from analytic.errors import InvalidParameterError, StateSpaceTooLargeError, UnstableSystemError
from analytic.splitting import (
    KIT_FH2,
    SDSC_SP2,
    RigidClass,
    balanced_partition,
    critical_helper_limit,
    critical_system,
    figure1_classes,
    figure1_need_scale,
    helper_probability_bound,
    modified_bs_chain,
    modified_bs_helper_probability,
    response_time_bound,
    stability_margin,
    subcritical_system,
    zero_wait_response_time,
)


def recursion(s, a):
    blocking = 1.0
    for k in range(1, s + 1):
        blocking = a * blocking / (k + a * blocking)
    return blocking


def brute_force_partition(k, classes):
    """Walk through every breakpoint m/c_i of (2a) in increasing order; return (ψ, counts)."""
    needs = [c.need for c in classes]
    demands = [c.demand for c in classes]  # α_i d_i n_i, exact
    ratios = [k * d / (n * sum(demands)) for d, n in zip(demands, needs, strict=True)]
    helpers = lambda x: k - sum(math.floor(x * c) * n for c, n in zip(ratios, needs, strict=True))  # noqa: E731
    if all(c.denominator == 1 for c in ratios) or helpers(Fraction(1)) >= max(needs):
        return Fraction(1), [math.floor(c) for c in ratios]
    points = sorted({Fraction(m) / c for c in ratios for m in range(1, math.floor(c) + 1)})
    previous = Fraction(0)
    for x in points:
        if helpers(x) < max(needs):
            return x, [math.floor(previous * c) for c in ratios]
        previous = x
    raise AssertionError("unreachable: the condition fails at x = 1")


# ---------------------------------------------------------------------------------------------
# Classes and data
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs,match", [
    (dict(need=0, probability=0.5, mean_size=1.0), r"need = 0: must be a positive integer"),
    (dict(need=1.5, probability=0.5, mean_size=1.0), r"need = 1.5"),
    (dict(need=True, probability=0.5, mean_size=1.0), r"need = True"),
    (dict(need=2, probability=0.0, mean_size=1.0), r"probability = 0: must lie in \(0, 1\]"),
    (dict(need=2, probability=1.2, mean_size=1.0), r"probability = 1.2"),
    (dict(need=2, probability=0.5, mean_size=0.0), r"mean_size = 0: must be positive and finite"),
    (dict(need=2, probability=0.5, mean_size=math.inf), r"mean_size = inf"),
    (dict(need=2, probability=0.5, mean_size=math.nan), r"mean_size = nan"),
    (dict(need=2, probability=0.5, mean_size=1.0, size_std=-1.0), r"size_std = -1"),
])
def test_job_class_validation(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        RigidClass(**kwargs)


@pytest.mark.parametrize("classes,match", [
    ([], r"classes = \[\]: must be a non-empty sequence of RigidClass"),
    ([(1, 1.0, 1.0)], r"must be a non-empty sequence of RigidClass"),
    ([RigidClass(1, 0.5, 1.0), RigidClass(2, 0.4, 1.0)], r"probabilities must sum to 1 \(they sum to 0.9\)"),
])
def test_classes_validation(classes, match):
    with pytest.raises(InvalidParameterError, match=match):
        balanced_partition(16, classes)


def test_tables_as_printed():
    """Spot checks against Tables 2 and 3; Table 3's α sum to 0.9999 as printed."""
    assert [c.need for c in SDSC_SP2] == [1, 2, 4, 8, 16, 32, 64]
    assert (float(SDSC_SP2[0].mean_size), SDSC_SP2[0].size_std, float(SDSC_SP2[0].probability)) == (10519.71, 18267.03, 0.2321)
    assert float(SDSC_SP2[6].mean_size) == 8302.33 and float(SDSC_SP2[6].probability) == 0.054
    assert sum(c.probability for c in SDSC_SP2) == 1
    assert sum(c.probability for c in KIT_FH2) == 1
    assert float(KIT_FH2[0].probability * Fraction("0.9999")) == 0.7851
    assert (float(KIT_FH2[6].mean_size), KIT_FH2[6].size_std) == (61343.42, 106094.97)


def test_figure1_model_demands():
    """Caption of Figure 1 / Section 1.3: relative demands 0.95 f_k (small) and 80·0.05 f_k = 4 f_k (large)."""
    f = 7
    classes = figure1_classes(f)
    assert [c.need for c in classes] == [f, 2 * f, 4 * f, 8 * f]
    assert classes[0].demand == Fraction(95, 100) * f
    assert sum(c.demand for c in classes[1:]) == 4 * f
    assert sum(c.probability for c in classes) == 1


def test_figure1_need_scale_is_exact_floor():
    """f_k = floor((k/32)^(2/3)), checked in exact integer arithmetic, including perfect powers."""
    for k in [32, 33, 100, 1024, 16384, 16383, 32 * 27**3, 32 * 27**3 - 1, 2**30, 10**12]:
        f = figure1_need_scale(k)
        assert 1024 * f**3 <= k * k < 1024 * (f + 1) ** 3
    assert figure1_need_scale(16384) == 64  # (512)^(2/3) exactly
    with pytest.raises(InvalidParameterError, match=r"servers = 31: must be an integer >= 32"):
        figure1_need_scale(31)


# ---------------------------------------------------------------------------------------------
# The partition
# ---------------------------------------------------------------------------------------------


def test_partition_by_hand():
    """c_i = 10/3 for both classes: floor(10x/3)·(1 + 2) <= 10 - 2 exactly when x < 0.9."""
    p = balanced_partition(10, [RigidClass(1, 0.5, 1.0), RigidClass(2, 0.5, 1.0)])
    assert p.psi == pytest.approx(0.9, rel=1e-15, abs=0)
    assert p.piece == pytest.approx((0.6, 0.9), rel=1e-15, abs=0)
    assert (p.reserved, p.servers_per_class, p.helpers) == ((2, 4), (2, 2), 4)


def test_integer_ratios_give_psi_one_and_no_helpers():
    """Decimal inputs are exact: c = 20·0.1 = 2 and 20·0.9 = 18 are integers, so ψ = 1 and H is empty."""
    p = balanced_partition(20, [RigidClass(1, 0.1, 1.0), RigidClass(1, 0.9, 1.0)])
    assert (p.psi, p.reserved, p.helpers) == (1.0, (2, 18), 0)


def test_psi_one_when_x_equal_one_is_admissible():
    """c_i = 20/3: at x = 1 the floors use 6 + 2·6 = 18 servers and leave 2 >= max n_i helpers."""
    p = balanced_partition(20, [RigidClass(1, 0.5, 1.0), RigidClass(2, 0.5, 1.0)])
    assert (p.psi, p.reserved, p.helpers) == (1.0, (6, 12), 2)
    assert p.piece == pytest.approx((0.9, 1.0), rel=1e-15, abs=0)


@pytest.mark.parametrize("name,classes", [("SDSC", SDSC_SP2), ("KIT", KIT_FH2), ("fig1", figure1_classes(3))])
@pytest.mark.parametrize("k", [64, 512, 1000, 1024])
def test_partition_matches_brute_force(name, classes, k):
    psi, counts = brute_force_partition(k, classes)
    p = balanced_partition(k, classes)
    assert p.psi == float(psi)
    assert list(p.servers_per_class) == counts


@st.composite
def partition_cases(draw):
    """k and classes; in half the draws every c_i = k α_i d_i n_i / (n_i Σ_j α_j d_j n_j) is an integer
    (k a multiple t of Σ_j c_j n_j), the branch where ψ = 1 and the helpers may be empty."""
    raw = draw(st.lists(st.tuples(st.integers(1, 8), st.integers(1, 50), st.integers(1, 1000)), min_size=1, max_size=5))
    weights = sum(w for _, w, _ in raw)
    if draw(st.booleans()):
        counts = draw(st.lists(st.integers(1, 40), min_size=len(raw), max_size=len(raw)))
        classes = [RigidClass(n, Fraction(w, weights), Fraction(c * weights, w))
                   for (n, w, _), c in zip(raw, counts, strict=True)]
        k = draw(st.integers(1, 3)) * sum(c * n for (n, _, _), c in zip(raw, counts, strict=True))
    else:
        classes = [RigidClass(n, Fraction(w, weights), Fraction(d, 10)) for n, w, d in raw]
        k = draw(st.integers(8, 3000))
    assume(max(c.need for c in classes) <= k <= 3000)
    return k, classes


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(partition_cases())
def test_partition_properties(case):
    """Feasibility and maximality against (2a)–(2b), and agreement with the brute-force walk."""
    k, classes = case
    p = balanced_partition(k, classes)
    assert sum(p.reserved) + p.helpers == k
    assert all(a == s * c.need for a, s, c in zip(p.reserved, p.servers_per_class, classes, strict=True))
    ratios = [k * c.demand / (c.need * sum(x.demand for x in classes)) for c in classes]
    assert p.helpers >= max(c.need for c in classes) or all(r.denominator == 1 for r in ratios)
    # (2a) inside the reported piece gives the partition; at ψ < 1 itself it is no longer admissible
    middle = (Fraction(p.piece[0]) + Fraction(p.psi)) / 2
    assert [math.floor(middle * r) for r in ratios] == list(p.servers_per_class)
    psi, counts = brute_force_partition(k, classes)
    assert p.psi == float(psi) and list(p.servers_per_class) == counts
    if psi < 1:
        assert k - sum(math.floor(psi * r) * c.need for r, c in zip(ratios, classes, strict=True)) < max(
            c.need for c in classes)


def test_need_above_servers():
    with pytest.raises(InvalidParameterError, match=r"servers = 4: must be >= every server need \(largest need is 8\)"):
        balanced_partition(4, [RigidClass(8, 1.0, 1.0)])
    with pytest.raises(InvalidParameterError, match=r"servers = 2.5: must be a positive integer"):
        balanced_partition(2.5, [RigidClass(1, 1.0, 1.0)])


# ---------------------------------------------------------------------------------------------
# Property 1 and eq. (16) against exact CTMCs of ModifiedBS
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("k,rate", [(16, 3.0), (24, 6.0), (40, 9.0)])
def test_eq16_against_exact_ctmc(k, rate):
    """Eq. (16) against the exact CTMC of Definition 2 (modified_bs_chain, built with analytic.ctmc)."""
    classes = [RigidClass(1, 0.6, 1.0), RigidClass(2, 0.3, 1.5), RigidClass(4, 0.1, 2.0)]
    assert helper_probability_bound(k, rate, classes) == pytest.approx(
        modified_bs_helper_probability(k, rate, classes), rel=1e-10, abs=0)
    # Property 1: the A_i are independent M/M/s_i/s_i queues (joint law = product of Erlang laws)
    p = balanced_partition(k, classes)
    pi = modified_bs_chain(k, rate, classes).stationary()
    product = 1.0
    for s, c in zip(p.servers_per_class, classes, strict=True):
        a = rate * float(c.probability) * float(c.mean_size)
        product /= sum(a**j / math.factorial(j) for j in range(s + 1))
    assert pi.probability(tuple((0,) for _ in classes)) == pytest.approx(product, rel=1e-10, abs=0)
    # accepted part of the response time via Little's law: E[jobs in A] / λ
    jobs = sum(pi.expected(lambda x, i=i, c=c: x[i][0] / c.need) for i, c in enumerate(classes))
    assert response_time_bound(k, rate, classes).accepted == pytest.approx(jobs / rate, rel=1e-10, abs=0)


def test_eq16_is_insensitive_to_the_service_distribution():
    """Property 1 is for M/GI/s/s: hyperexponential sizes with the same mean give the same P_H."""
    classes = [RigidClass(1, 0.7, 1.0), RigidClass(3, 0.3, 2.0)]
    chain = modified_bs_chain(20, 5.0, classes, hyperexponential={1: (0.25, 4.0)})
    assert chain.n_states > modified_bs_chain(20, 5.0, classes).n_states  # the phases are really there
    assert helper_probability_bound(20, 5.0, classes) == pytest.approx(
        modified_bs_helper_probability(20, 5.0, classes, hyperexponential={1: (0.25, 4.0)}), rel=1e-10, abs=0)


def test_modified_bs_chain_validation():
    classes = [RigidClass(1, 0.7, 1.0), RigidClass(3, 0.3, 2.0)]
    with pytest.raises(InvalidParameterError, match=r"hyperexponential\[1\] = \(0.5, 0.1\): needs 0 < q < 1"):
        modified_bs_chain(20, 5.0, classes, hyperexponential={1: (0.5, 0.1)})  # q/rate = 5 >= d = 2
    with pytest.raises(StateSpaceTooLargeError):
        modified_bs_chain(400, 50.0, classes, max_states=100)


def test_stability_margin_formula():
    """Eq. (5) with Erlang B from the recursion."""
    classes = [RigidClass(1, 0.5, 1.0), RigidClass(4, 0.5, 0.5)]
    result = stability_margin(64, 30.0, classes)
    s = result.partition.servers_per_class
    expected = 30.0 / result.partition.helpers * (0.5 * recursion(s[0], 15.0) + 1.0 * recursion(s[1], 7.5))
    assert result.margin == pytest.approx(expected, rel=1e-13, abs=0)
    assert result.stable and result.load == pytest.approx(30 * 1.5 / 64, rel=1e-15, abs=0)
    empty = stability_margin(20, 1.0, [RigidClass(1, 0.1, 1.0), RigidClass(1, 0.9, 1.0)])
    assert empty.partition.helpers == 0 and empty.margin == math.inf and not empty.stable


# ---------------------------------------------------------------------------------------------
# Scalings and limits
# ---------------------------------------------------------------------------------------------


def test_subcritical_scaling_and_theorem1():
    base = figure1_classes()
    rate = 0.6 / float(sum(c.demand for c in base))
    values = []
    for k in (2**12, 2**18, 2**24):
        system = subcritical_system(k, figure1_need_scale(k), rate, base)
        assert system.load == pytest.approx(0.6, rel=1e-14, abs=0)
        assert system.arrival_rate == pytest.approx(rate * k / figure1_need_scale(k), rel=1e-15, abs=0)
        values.append(response_time_bound(system.servers, system.arrival_rate, system.classes))
    probabilities = [v.helper_probability for v in values]
    assert probabilities[0] > probabilities[1] > probabilities[2]
    assert probabilities[2] < 1e-6
    assert values[2].accepted == pytest.approx(zero_wait_response_time(base), rel=1e-6, abs=0)
    assert zero_wait_response_time(base) == pytest.approx(0.95 + (40 + 20 + 10) / 60, rel=1e-15, abs=0)
    with pytest.raises(UnstableSystemError, match=r"λ ϱ = 1.1 must be < 1"):
        subcritical_system(1024, 4, 1.1 / float(sum(c.demand for c in base)), base)


def test_critical_scaling():
    base = figure1_classes()
    k, f, theta = 2**20, figure1_need_scale(2**20), 0.7
    system = critical_system(k, f, theta, base)
    assert (1 - system.load) * math.sqrt(k / f) == pytest.approx(theta, rel=1e-12, abs=0)
    demand = float(sum(c.demand for c in system.classes))
    assert system.arrival_rate * demand / k == pytest.approx(system.load, rel=1e-14, abs=0)
    with pytest.raises(InvalidParameterError, match=r"theta = 100: must give a load 1 - θ √\(f_k/k\) in \(0, 1\)"):
        critical_system(400, 4, 100.0, base)
    with pytest.raises(InvalidParameterError, match=r"need_scale = 0"):
        critical_system(400, 0, 1.0, base)


def test_theorem2_limit_formula():
    """θ sum_i α_i φ(θ_i)/(θ_i Φ(θ_i)) with φ, Φ from mpmath."""
    classes = SDSC_SP2
    theta = 0.7
    total = sum(c.demand for c in classes)
    expected = mp.mpf(0)
    for c in classes:
        t = mp.mpf(theta) * mp.sqrt(mp.mpf(c.demand.numerator) / c.demand.denominator / (c.need * float(total)))
        expected += float(c.probability) * mp.npdf(t) / (t * mp.ncdf(t))
    assert critical_helper_limit(theta, classes) == pytest.approx(float(theta * expected), rel=1e-12, abs=0)


def test_theorem2_finite_k_approaches_the_limit():
    """√(k/f_k) P_H^(k) (eq. 16 at the k-th system of (8)) oscillates towards the limit."""
    base = figure1_classes()
    limit = critical_helper_limit(0.7, base)
    gaps = []
    for k in (2**12, 2**32, 2**40):
        f = figure1_need_scale(k)
        system = critical_system(k, f, 0.7, base)
        scaled = math.sqrt(k / f) * helper_probability_bound(system.servers, system.arrival_rate, system.classes)
        gaps.append(abs(scaled / limit - 1))
    assert gaps[-1] < 0.005 and gaps[1] < 0.005


def test_rate_validation():
    with pytest.raises(InvalidParameterError, match=r"arrival_rate = -1: must be positive and finite"):
        helper_probability_bound(10, -1.0, [RigidClass(1, 1.0, 1.0)])
    with pytest.raises(InvalidParameterError, match=r"theta = 0: must be positive and finite"):
        critical_helper_limit(0.0, [RigidClass(1, 1.0, 1.0)])


def test_helper_probability_is_a_probability_and_increasing_in_rate():
    """k = 1024 servers for SDSC SP2 (at k = 64 no class gets a reserved server, so P_H = 1 at every
    rate and nothing is tested): P_H rises from 3e-7 to 0.9 over rates 1e-5 .. 0.1, strictly."""
    values = [helper_probability_bound(1024, r, SDSC_SP2) for r in np.geomspace(1e-5, 0.1, 13)]
    assert values[0] < 1e-6 and values[-1] > 0.9
    assert all(0 < a < b < 1 for a, b in itertools.pairwise(values))


# ---------------------------------------------------------------------------------------------
# The ends of the double range
# ---------------------------------------------------------------------------------------------

#: The largest server count: the largest float, as an int.
LARGEST_K = int(sys.float_info.max)
ONE = [RigidClass(1, 1.0, 1.0)]


@pytest.mark.parametrize("call", [
    lambda k: balanced_partition(k, ONE),
    lambda k: subcritical_system(k, 1, 0.5, ONE),
    lambda k: critical_system(k, 1, 2.0, ONE),
    lambda k: helper_probability_bound(k, 1.0, ONE),
    lambda k: response_time_bound(k, 1.0, ONE),
    lambda k: stability_margin(k, 1.0, ONE),
    lambda k: modified_bs_helper_probability(k, 1.0, ONE),
], ids=["partition", "subcritical", "critical", "eq16", "response", "margin", "modified_bs"])
@pytest.mark.parametrize("k", [LARGEST_K + 1, 10**400])
def test_servers_beyond_the_largest_float_are_refused(call, k):
    """Rates and loads proportional to k are floats: k above 1.8e308 is refused, not an OverflowError."""
    with pytest.raises(InvalidParameterError, match=r"^servers = 1\d+(\.\.\.)?: must be at most 1\.798e\+308 "
                                                    r"\(the largest float\)"):
        call(k)


def test_the_largest_server_count_is_accepted():
    """k = 1.8e308 itself (an int): λ^(k) = λ k / f_k = k / 2 exactly (halving a float is exact)."""
    system = subcritical_system(LARGEST_K, 1, 0.5, ONE)
    assert system.arrival_rate == pytest.approx(sys.float_info.max / 2, rel=1e-15, abs=0)


def test_scaled_arrival_rate_beyond_the_floats_is_refused():
    """λ^(k) = λ k / f_k is formed as λ (k / f_k): 10 · 10^308 / 100 = 10^307 is a float, 10 · 10^308 is not."""
    fast = [RigidClass(1, 1.0, 0.01)]  # ϱ = 0.01, so λ = 10 is a load of 0.1
    system = subcritical_system(10**308, 100, 10.0, fast)
    assert system.arrival_rate == pytest.approx(float(Fraction(10 * 10**308, 100)), rel=1e-15, abs=0)
    with pytest.raises(InvalidParameterError, match=r"^servers = 1\d+\.\.\.: gives the arrival rate λ k / f_k = 10 k / 1 "
                                                    r"beyond the largest float$"):
        subcritical_system(10**308, 1, 10.0, fast)
    # (8): ρ^(k) = 1 - 10^140 √(10^-300) = 1 - 10^-10 and λ^(k) = ρ^(k) 10^300 / 10^-10 = 10^310
    with pytest.raises(InvalidParameterError, match=r"^servers = 1\d+\.\.\.: gives the arrival rate ρ\^\(k\) k / ϱ\^\(k\) = "
                                                    r"1 k / 1e-10 beyond the largest float$"):
        critical_system(10**300, 1, 1e140, [RigidClass(1, 1.0, 1e-10)])


def test_critical_load_that_rounds_to_one_is_refused():
    """θ √(f_k/k) = 10^-20 at k = 10^40: ρ^(k) = 1 - 10^-20 is 1.0 in doubles, an unstable system."""
    with pytest.raises(InvalidParameterError, match=r"^theta = 1: must give a load 1 - θ √\(f_k/k\) in \(0, 1\) in double "
                                                    r"precision \(θ √\(f_k/k\) = 1e-20 at k = 1e\+40\)$"):
        critical_system(10**40, 1, 1.0, ONE)


def test_eq16_at_the_largest_validated_reserved_set():
    """One class needing one server: s_1 = k (no helpers). At s = 10^15 and λ = s - 2√s, eq. (16) is
    E_s(λ) = φ(2) / (Φ(2) √s) (1 + O(1/√s)) (Halfin & Whitt 1981); one server more is beyond the range
    of Erlang B, refused naming k."""
    s = 10**15
    assert helper_probability_bound(s, s - 2 * math.sqrt(s), ONE) == pytest.approx(
        norm.pdf(2) / (norm.cdf(2) * math.sqrt(s)), rel=1e-6, abs=0)
    with pytest.raises(InvalidParameterError, match=r"^servers = 1000000000000001: gives a reserved set A_i of s_i = "
                                                    r"1,000,000,000,000,001 slots, beyond 1e\+15, the range where Erlang B"):
        helper_probability_bound(s + 1, 1.0, ONE)
    with pytest.raises(InvalidParameterError, match=r"^servers = 10{30}: gives a reserved set A_i of s_i = "
                                                    r"333,333,333,333,333,333,333,333,333,332 slots"):
        stability_margin(10**30, 1.0, [RigidClass(1, 0.5, 1.0), RigidClass(2, 0.5, 1.0)])


def test_modified_bs_arrival_rate_at_the_bottom_of_the_doubles():
    """k = 5, one class needing 2 servers: s_1 = 1, so the chain is 0 <-> 1 with rates λ and 1/d = 1/2, and
    P_H = E_1(2λ) = 2λ / (1 + 2λ). No state has both rates: λ need only be a normal double (>= 2**-1022)."""
    classes = [RigidClass(2, 1.0, 2.0)]
    for rate in (2.0**-1022, 2.0**-1019):
        assert modified_bs_helper_probability(5, rate, classes) == pytest.approx(2 * rate / (1 + 2 * rate), rel=1e-9, abs=0)
    with pytest.raises(InvalidParameterError, match=r"^arrival_rate = 2.2e-308: is too small for an exact chain: the arrival "
                                                    r"rate λ α_i = 2.2e-308 of classes\[0\] must be a normal double"):
        modified_bs_helper_probability(5, 2.2e-308, classes)


def test_modified_bs_arrival_rate_against_the_service_rates():
    """k = 11, one class needing one server: s_1 = 11, and a job arrives while at most 10 are busy, so λ
    must be at least 2**-1021 (λ + 10), not just a normal double; λ = 2**-1016 is enough."""
    for rate in (5e-324, 2.2e-308, 2.0**-1019):
        with pytest.raises(InvalidParameterError, match=r"^arrival_rate = \S+: is too small for an exact chain: .* at least "
                                                        r"2\*\*-1021 times 10, a bound on the total rate out of a state"):
            modified_bs_chain(11, rate, ONE)
    # E_11(λ) underflows: the exact chain sends no job to the helpers
    assert modified_bs_helper_probability(11, 2.0**-1016, ONE) == pytest.approx(0.0, rel=0, abs=1e-300)


@pytest.mark.parametrize("call,match", [
    (lambda: __import__("analytic.splitting", fromlist=["x"]).modified_bs_chain(
        8, 2.0, [__import__("analytic.splitting", fromlist=["x"]).RigidClass(1, 1.0, 1.0)], hyperexponential={3: (0.5, 1.0)}),
     r"^hyperexponential = \{3: \(0.5, 1.0\)\}: must be None or a mapping from class indices 0..0 to \(p, rate\)$"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()
