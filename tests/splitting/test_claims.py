"""The numbers of the Balanced Splitting rows added for the claims without a row (Anselmi & Doncel), a second way.

Each test recomputes what a row of ``analytic reproduce`` (analytic/splitting/paper.py; figures.py for every point
of Figures 1-2) states, by another method: mpmath at 50 digits for Erlang's formulas and Halfin–Whitt's limit, the
exact BS-FCFS chain for the M/M/c comparison behind the bounds, exact rationals, closed forms, counting arguments,
and, for the simulated rows, reduced sweeps.
"""

import itertools
import math
from fractions import Fraction

import mpmath
import pytest

from analytic.splitting import (
    RigidClass,
    balanced_partition,
    critical_system,
    exact_multiserver,
    figure1_classes,
    figure1_need_scale,
    multiserver_chain,
    paper,
    subcritical_system,
)

_BS = (RigidClass(1, 0.6, 1.0), RigidClass(2, 0.4, 1.5))


def _mp(x: Fraction) -> mpmath.mpf:
    """An exact rational at the working precision."""
    return mpmath.mpf(x.numerator) / x.denominator


def _erlang_c(s: int, a) -> mpmath.mpf:
    """Erlang C at 50 digits from the incomplete gamma function: E_s(a) = a^s e^-a / Γ(s+1, a)."""
    a = mpmath.mpf(a)
    b = mpmath.exp(s * mpmath.log(a) - a) / mpmath.gammainc(s + 1, a)
    return s * b / (s - a + a * b)


@pytest.mark.parametrize("load", [0.4, 0.6])
def test_mmc_sandwich_holds_on_the_exact_bs_fcfs_chain(load):
    """The comparison behind the Theorem 1, Theorem 2 and abstract rows, per class, against the exact BS-FCFS chain
    (k = 8, needs 1 and 2): C_(s+h)(a) <= P(wait) <= P(sent to H) <= C_s(a), E[R_i] <= d_i (1 + C_s/(s - a)), and
    P(served on H) <= |H| max_i 1/(n_i d_i) / λ. Erlang C here by mpmath."""
    rate = load * 8 / float(sum(c.demand for c in _BS))
    exact = exact_multiserver("bs-fcfs", 8, _BS, rate, max_waiting=9)
    partition = balanced_partition(8, _BS)
    assert exact.lost_fraction < 3e-3
    with mpmath.workdps(50):
        for i, (c, s) in enumerate(zip(_BS, partition.servers_per_class, strict=True)):
            a = rate * float(c.probability) * float(c.mean_size)
            low = float(_erlang_c(s + partition.helpers // c.need, a))
            high = float(_erlang_c(s, a))
            assert low < exact.per_class_wait_probability[i] <= exact.per_class_helper_probability[i] < high
            assert exact.per_class_response_time[i] < float(c.mean_size) * (1 + high / (s - a))
    served = partition.helpers * max(1 / (c.need * float(c.mean_size)) for c in _BS) / rate
    assert exact.helper_service_probability < served


def test_theorem1_own_bounds_at_50_digits():
    """Theorem 1 rows: sum_i α_i C_(s_i)(a_i) = 0.117, 6.62e-4, 8.54e-12 at k = 2^20, 2^30, 2^40 (Figure 1 model,
    ρ = 0.9, scaling (7)), and the response-time bound minus sum_i α_i d_i = 0.0626, 1.93e-4, 2.44e-13 (docs), from
    Erlang C by mpmath (the excess summed directly, without the cancellation of bound minus limit)."""
    base = figure1_classes()
    rate = 0.9 / float(sum(c.demand for c in base))
    sent, excess = [], []
    with mpmath.workdps(50):
        for e in (20, 30, 40):
            system = subcritical_system(2**e, figure1_need_scale(2**e), rate, base)
            slots = balanced_partition(system.servers, system.classes).servers_per_class
            loads = [system.arrival_rate * float(c.probability) * float(c.mean_size) for c in system.classes]
            delays = [_erlang_c(s, a) for s, a in zip(slots, loads, strict=True)]
            sent.append(float(sum(float(c.probability) * d for c, d in zip(base, delays, strict=True))))
            excess.append(float(sum(float(c.probability) * float(c.mean_size) * d / (s - mpmath.mpf(a))
                                    for c, d, s, a in zip(base, delays, slots, loads, strict=True))))
    assert sent == pytest.approx([0.117, 6.62e-4, 8.54e-12], rel=5e-3, abs=0)
    assert excess == pytest.approx([0.0626, 1.93e-4, 2.44e-13], rel=5e-3, abs=0)
    rows = paper._theorem1_own_rows()
    assert rows[1].value == pytest.approx(excess[-1], rel=0, abs=1e-14)


def test_critical_bounds_and_halfin_whitt_limit_at_50_digits():
    """Theorem 2 and abstract rows, scaling (8b), θ = 0.7, k = 2^20, 2^30, 2^40: P(wait) >= 0.2553, 0.4931, 0.6278,
    P(sent) <= 0.7137, 0.6925, 0.6778, limit sum_i α_i (1 + θ_i Φ(θ_i)/φ(θ_i))^-1 = 0.6726, √(k/f_k) × lower bound
    = 8.169, 50.1, 202.5 against eq. (9) = 1.469, √(k/f_k) × served bound 1.58, 0.558, 0.137 (docs). Erlang C and
    the normal law by mpmath; eq. (9) summed by mpmath too."""
    base = figure1_classes()
    total = sum(c.demand for c in base)
    low, high, scaled, served = [], [], [], []
    with mpmath.workdps(50):
        thetas = [mpmath.mpf(0.7) * mpmath.sqrt(_mp(c.demand / (c.need * total))) for c in base]
        limit = sum(float(c.probability) / (1 + t * mpmath.ncdf(t) / mpmath.npdf(t)) for c, t in zip(base, thetas, strict=True))
        eq9 = mpmath.mpf(0.7) * sum(float(c.probability) * mpmath.npdf(t) / (t * mpmath.ncdf(t))
                                    for c, t in zip(base, thetas, strict=True))
        for e in (20, 30, 40):
            k = 2**e
            system = critical_system(k, figure1_need_scale(k), 0.7, base)
            partition = balanced_partition(k, system.classes)
            lo = hi = 0
            for c, s in zip(system.classes, partition.servers_per_class, strict=True):
                a = system.arrival_rate * float(c.probability) * float(c.mean_size)
                lo += float(c.probability) * _erlang_c(s + partition.helpers // c.need, a)
                hi += float(c.probability) * _erlang_c(s, a)
            root = math.sqrt(k / figure1_need_scale(k))
            low.append(float(lo))
            high.append(float(hi))
            scaled.append(root * float(lo))
            served.append(root * partition.helpers * max(1 / (c.need * float(c.mean_size)) for c in system.classes)
                          / system.arrival_rate)
    assert low == pytest.approx([0.2553, 0.4931, 0.6278], rel=0, abs=1e-4)
    assert high == pytest.approx([0.7137, 0.6925, 0.6778], rel=0, abs=1e-4)
    assert float(limit) == pytest.approx(0.6726, rel=0, abs=1e-4) and float(eq9) == pytest.approx(1.469, rel=0, abs=1e-3)
    assert scaled == pytest.approx([8.169, 50.1, 202.5], rel=1e-3, abs=0)
    assert served == pytest.approx([1.58, 0.558, 0.137], rel=5e-3, abs=0)
    assert low[-1] < float(limit) < high[-1]
    assert paper._zero_wait_rows()[0].value == pytest.approx(low[-1], rel=0, abs=1e-10)


def test_proposition2_served_on_helpers_by_flow_conservation():
    """Prop. 2 row (exponential sizes): P(served on H) per class = 0.1876, 0.1621 (docs), recomputed from the reserved
    sets instead of the helpers: 1 - E[class-i jobs in A_i] / (λ_i kept d_i) (every admitted job is served in A_i or on
    H); E_(s_i) = 0.2159 by Erlang's recursion in exact rationals."""
    rate = 0.4 * 8 / float(sum(c.demand for c in _BS))
    chain = multiserver_chain("bs-fcfs", 8, _BS, rate, max_waiting=9)
    pi = chain.stationary()
    exact = exact_multiserver("bs-fcfs", 8, _BS, rate, max_waiting=9)
    kept = 1 - exact.lost_fraction
    slots = balanced_partition(8, _BS).servers_per_class
    for i, c in enumerate(_BS):
        in_a = pi.expected(lambda state, i=i: float(state[0][i]))
        on_h = 1 - in_a / (rate * float(c.probability) * kept * float(c.mean_size))
        assert on_h == pytest.approx(exact.per_class_helper_service_probability[i], rel=0, abs=1e-8)
        e = Fraction(1)
        load = Fraction(rate) * Fraction(c.probability) * Fraction(c.mean_size)
        for j in range(1, slots[i] + 1):
            e = load * e / (j + load * e)
        assert on_h < float(e)
        assert round(float(e), 4) == 0.2159
    assert [round(p, 4) for p in exact.per_class_helper_service_probability] == [0.1876, 0.1621]


def test_eq13_gaps_in_exact_rationals():
    """Eq. (13) row: the largest |(1 - ρ_i)√s_i - θ_i| is 0.115, 0.0394, 0.0128, 0.00443, 0.00174 at k = 2^20..2^60
    (docs); here ρ_i = λ^(k) α_i d_i / s_i with λ^(k) = (1 - θ√(f_k/k)) k / ϱ^(k) at 50 digits."""
    base = figure1_classes()
    total = sum(c.demand for c in base)
    gaps = []
    with mpmath.workdps(50):
        for e in (20, 30, 40, 50, 60):
            k, f = 2**e, figure1_need_scale(2**e)
            scaled = [RigidClass(c.need * f, c.probability, c.mean_size) for c in base]
            slots = balanced_partition(k, scaled).servers_per_class
            rate = (1 - mpmath.mpf(0.7) * mpmath.sqrt(mpmath.mpf(f) / k)) * k / (_mp(total) * f)
            gaps.append(float(max(abs((1 - rate * _mp(Fraction(c.probability)) * _mp(Fraction(c.mean_size)) / s) * mpmath.sqrt(s)
                                      - mpmath.mpf(0.7) * mpmath.sqrt(_mp(c.demand / (c.need * total))))
                                  for c, s in zip(base, slots, strict=True))))
    assert gaps == pytest.approx([0.115, 0.0394, 0.0128, 0.00443, 0.00174], rel=5e-3, abs=0)


@pytest.mark.slow
def test_lsf_criterion_against_a_closed_form_and_a_deeper_truncation():
    """LSF row: the method, on k = 2 with needs 1 and 2 (class 2 is served only when no class-1 job is: its slots
    are P(N_1 = 0) of an M/M/2 queue, (1 - r)/(1 + r); truncated 20 standard deviations out); and the k = 32
    numbers of the docs (load 0.9441 of the largest class against 1.0304 slots), the truncation spread from 5
    (the row) to 9 standard deviations."""
    classes = (RigidClass(1, 0.5, 1.0), RigidClass(2, 0.5, 1.0))
    (load, left, _), = paper._lsf_capacities(2, classes, 1.2, spread=20)
    r = 0.6 / 2
    assert load == pytest.approx(0.6, rel=1e-12, abs=0) and left == pytest.approx((1 - r) / (1 + r), rel=1e-9, abs=0)
    big = figure1_classes(1)
    rate = 0.8762563132923542 * 32 / float(sum(c.demand for c in big))
    (*_, (a, shallow, _)) = paper._lsf_capacities(32, big, rate)
    (*_, (_, deep, edge)) = paper._lsf_capacities(32, big, rate, spread=9)
    assert (round(a, 4), round(shallow, 4)) == (0.9441, 1.0304) and edge < 1e-6
    assert deep == pytest.approx(shallow, rel=0, abs=2e-4) and a < deep


def test_capacity_loss_state_is_reachable():
    """Sec. 4.2 row: the state A_1 full (2 class-1 jobs), A_2 empty, two class-1 jobs served and one waiting on H is
    a state of the BS-FCFS chain (k = 8), reached from the empty system by five class-1 arrivals at positive rates;
    the chain is irreducible, so its stationary probability is positive."""
    rate = 0.4 * 8 / float(sum(c.demand for c in _BS))
    chain = multiserver_chain("bs-fcfs", 8, _BS, rate, max_waiting=9)
    index = {state: n for n, state in enumerate(chain.states)}
    path = [((0, 0), (0, 0), ()), ((1, 0), (0, 0), ()), ((2, 0), (0, 0), ()), ((2, 0), (1, 0), ()),
            ((2, 0), (2, 0), ()), ((2, 0), (2, 0), (0,))]
    generator = chain.generator.tocsr()
    for before, after in itertools.pairwise(path):
        assert generator[index[before], index[after]] == pytest.approx(rate * 0.6, rel=1e-12, abs=0)
    assert paper._capacity_loss_row().value


def test_msf_threshold_closed_form_and_exact_chain():
    """Table 1 row (MSF): class 2 is stable iff λ/2 < 3 P_0 + P_1 of class 3's M/M/2, i.e. 3 - 3r - 4r² > 0 with
    r = λ/4: the threshold load 5r/3 = 5(√57 - 3)/24 = 0.9479. The package's exact MSF chain agrees: at load 0.99 a
    fraction of arrivals stays lost however deep the truncation, at 0.85 it vanishes."""
    threshold = 5 * (math.sqrt(57) - 3) / 24
    assert paper._msf_largest_stable_load() == pytest.approx(threshold, rel=1e-12, abs=0)
    assert round(threshold, 4) == 0.9479
    classes = (RigidClass(2, 0.5, 1.0), RigidClass(3, 0.5, 1.0))
    lost = {load: [exact_multiserver("msf", 6, classes, load * 6 / 2.5, max_waiting=w).lost_fraction for w in (40, 160)]
            for load in (0.85, 0.99)}
    assert lost[0.85][1] < 1e-4 and lost[0.99][1] > 0.03


def test_server_filling_counts_by_multisets():
    """Table 1 row (ServerFilling): 27509 minimal arrival-ordered sets at k = 16 (needs 1..16, powers of two), none
    leaving a server idle; 2119 at k = 12 (needs 1..8), 18 of them leaving some idle (docs). Counted here over
    multisets: a multiset M is a minimal prefix in as many orders as end with a job e such that sum(M) - e < k."""
    def counts(k, needs):
        total = idle = 0
        for m in itertools_multisets(needs, k):
            size = sum(n * x for n, x in zip(needs, m, strict=True))
            if size < k:
                continue
            orders = 0
            for j, n in enumerate(needs):
                if m[j] and size - n < k:
                    rest = list(m)
                    rest[j] -= 1
                    orders += math.factorial(sum(rest)) // math.prod(math.factorial(x) for x in rest)
            used = 0
            for n in sorted([n for n, x in zip(needs, m, strict=True) for _ in range(x)], reverse=True):
                if used + n > k:
                    break
                used += n
            total += orders
            idle += orders if used < k else 0
        return total, idle

    assert counts(16, (1, 2, 4, 8, 16)) == (27509, 0)
    assert counts(12, (1, 2, 4, 8)) == (2119, 18)
    assert paper._server_filling_scan(12, (1, 2, 4, 8))[:2] == (2119, 18)


def itertools_multisets(needs, k):
    """Every count vector m with sum(m_j n_j) < k + max(needs) (a minimal prefix sums below k + its last need)."""
    bound = k + max(needs)

    def rec(j, left):
        if j == len(needs):
            yield ()
            return
        for x in range(left // needs[j] + 1):
            for rest in rec(j + 1, left - x * needs[j]):
                yield (x, *rest)

    return [m for m in rec(0, bound - 1)]


def test_new_rows_pass():
    """The rows themselves come out as documented (also run by tests/contract/test_reproduce.py)."""
    for rows in (paper._theorem2_own_rows(), paper._eq13_row(), paper._table1_rows()):
        assert all(r.passed for r in (rows if isinstance(rows, list) else [rows]))
    assert "202.5" in paper._theorem2_own_rows()[1].note


# -- every point of Figures 1-2 (figures._figure_point_rows) -----------------------------------------------------

def _figure_points():
    """The 20 points of Figures 1-2 as the rows take them: (panel, system), listed here independently of the sweeps."""
    from analytic.splitting import FIGURE1_READINGS, figure1_systems, figure2_heavy_traffic, figure2_subcritical

    points = [(f"Fig. 1, {r}", s) for r in FIGURE1_READINGS for s in figure1_systems(reading=r)]
    points += [("Fig. 2a", s) for s in figure2_heavy_traffic(2048, (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.98))]
    return points + [("Fig. 2b", s) for s in figure2_subcritical(0.8)]


def _condition5_exactly(system):
    """Left side of (5), λ/|H| Σ_i α_i n_i d_i E_(s_i)(λ α_i d_i), in exact rationals (λ the double the system holds,
    Erlang B by its recursion E_j = a E_(j-1) / (j + a E_(j-1)))."""
    partition = balanced_partition(system.servers, system.classes)
    rate = Fraction(system.arrival_rate)
    total = Fraction(0)
    for c, s in zip(system.classes, partition.servers_per_class, strict=True):
        a, e = rate * Fraction(c.probability) * Fraction(c.mean_size), Fraction(1)
        for j in range(1, s + 1):
            e = a * e / (j + a * e)
        total += Fraction(c.probability) * c.need * Fraction(c.mean_size) * e
    return rate * total / partition.helpers


def test_condition5_at_every_figure_point_in_exact_rationals():
    """Condition (5) rows: the left side at every point of Figures 1-2 in exact rationals against stability_margin, and
    where it holds (the rows' table of expected verdicts): only Figure 1 as printed at k = 16384 (0.7521), Figure 2a at
    ρ = 0.5 and 0.6 (0.348, 0.6991) and Figure 2b at k = 32 (0.9035); under scaling (8b) 1.0254, 1.2924, 3.3382,
    4.7944 (docs)."""
    from analytic.splitting import figure_claims as figures
    from analytic.splitting import stability_margin

    margins = {}
    for panel, system in _figure_points():
        exact = _condition5_exactly(system)
        assert stability_margin(system.servers, system.arrival_rate, system.classes).margin == pytest.approx(
            float(exact), rel=1e-12, abs=0)
        margins.setdefault(panel, []).append((system.x, exact))
    assert {panel: tuple(x for x, m in xs if m < 1) for panel, xs in margins.items()} == figures._CONDITION5_HOLDS
    margins = {panel: [round(float(m), 4) for _, m in xs] for panel, xs in margins.items()}
    assert margins["Fig. 1, scaling (8b)"] == [1.0254, 1.2924, 3.3382, 4.7944]
    assert margins["Fig. 1, as printed"] == [1.0254, 1.0659, 1.6128, 0.7521]
    assert margins["Fig. 2a"] == [0.348, 0.6991, 1.2431, 1.9956, 2.445, 2.9372, 3.4672, 3.8012]
    assert margins["Fig. 2b"] == [0.9035, 1.0038, 1.9956, 2.1337]


def test_eq16_at_every_figure_point_with_mpmath():
    """Condition (5) rows' eq. (16), P_H of ModifiedBS-π = Σ_i α_i E_(s_i)(a_i), with Erlang B at 50 digits from the
    incomplete gamma function (E_s(a) = a^s e^-a / Γ(s+1, a)) against helper_probability_bound; the docs' values:
    0.334, 0.2276, 0.1321, 0.0991 under scaling (8b), 0.0039 as printed at k = 16384, 0.0037 to 0.1539 in Figure 2a."""
    from analytic.splitting import helper_probability_bound

    values = {}
    with mpmath.workdps(50):
        for panel, system in _figure_points():
            slots = balanced_partition(system.servers, system.classes).servers_per_class
            p = mpmath.mpf(0)
            for c, s in zip(system.classes, slots, strict=True):
                a = mpmath.mpf(system.arrival_rate) * _mp(Fraction(c.probability)) * _mp(Fraction(c.mean_size))
                p += _mp(Fraction(c.probability)) * mpmath.exp(s * mpmath.log(a) - a) / mpmath.gammainc(s + 1, a)
            assert helper_probability_bound(system.servers, system.arrival_rate, system.classes) == pytest.approx(
                float(p), rel=1e-12, abs=0)
            values.setdefault(panel, []).append(round(float(p), 4))
    assert values["Fig. 1, scaling (8b)"] == [0.334, 0.2276, 0.1321, 0.0991]
    assert values["Fig. 1, as printed"][-1] == 0.0039
    assert values["Fig. 2a"][0] == 0.0037 and values["Fig. 2a"][-1] == 0.1539


@pytest.fixture(scope="module")
def small_sweep():
    """Figure 1 as printed at k = 32 and 256 (condition (5) fails at both), three policies, 20 000 arrivals."""
    from analytic.simulation import SerialExecutor
    from analytic.splitting import figure1_systems, sweep

    return sweep(figure1_systems((32, 256), reading="as printed"), ("bs-fcfs", "fcfs", "server-filling"), arrivals=20_000,
                 executor=SerialExecutor())


def test_point_rows_carry_the_exact_condition5_and_eq16(small_sweep):
    """The rows built from a reduced sweep: the condition (5) row's value is the rational computation's verdict, its note
    the rational margin to 4 digits, and the BS-FCFS helper probabilities of the sweep."""
    from analytic.splitting import figure_claims as figures

    for i, system in enumerate(small_sweep.systems):
        condition, _ = figures._point_rows("Fig. 1, as printed", "Figure 1", small_sweep, i)
        exact = _condition5_exactly(system)
        assert condition.value is bool(exact < 1) is False and condition.passed
        assert condition.verdict == "assumption fails"
        assert f"Left side of (5) = {float(exact):.4f}" in condition.note
        assert f"sent to H {small_sweep.result('bs-fcfs', i).helper_probability.value:.4f}" in condition.note


def test_per_class_means_recombine_into_the_overall_mean(small_sweep):
    """Per-class rows: the per-class means weighted by the classes' counted jobs give the overall estimate to rounding
    (both are averages over the same jobs), and weighted by the class probabilities α_i they fall within the overall
    95% interval."""
    for policy in small_sweep.policies:
        for i, system in enumerate(small_sweep.systems):
            run = small_sweep.result(policy, i)
            counted, means = run.per_class_measured, run.per_class_response_time.value
            assert counted.sum() == run.measured
            assert counted @ means / counted.sum() == pytest.approx(run.mean_response_time.value, rel=1e-12, abs=0)
            weighted = sum(float(k.probability) * m for k, m in zip(system.classes, means, strict=True))
            assert weighted in run.mean_response_time                # inside the overall 95% interval


def _with_run(sw, policy, i, **changes):
    """The sweep with the run of ``policy`` at point i given ``changes`` (fields of MultiserverSimulation)."""
    import dataclasses

    p = sw.policies.index(policy)
    row = list(sw.results[p])
    row[i] = dataclasses.replace(row[i], **changes)
    results = list(sw.results)
    results[p] = tuple(row)
    return dataclasses.replace(sw, results=tuple(results))


def _with_class_mean(sw, policy, i, c, mean, half):
    """The sweep with class c of ``policy`` at point i given the estimate mean ± half."""
    import dataclasses

    estimates = sw.result(policy, i).per_class_response_time
    value, half_width = estimates.value.copy(), estimates.half_width.copy()
    value[c], half_width[c] = mean, half
    return _with_run(sw, policy, i, per_class_response_time=dataclasses.replace(estimates, value=value,
                                                                                half_width=half_width))


def test_gain_verdict_flips_when_an_interval_overlaps(small_sweep):
    """Which classes gain: an interval of a rival moved to just above BS-FCFS's makes the class gain, to overlap it makes
    it not resolved, below it makes it lose; a sweep where every class gains turns the per-class row (which expects that
    some class does not) into a failure."""
    from analytic.splitting import figure_claims as figures

    sw = small_sweep
    low, top = sw.result("bs-fcfs", 1).per_class_response_time[0].interval
    cases = {"gains": top + 0.2, "not resolved": top + 0.05, "loses": low - 0.2}
    for expected, mean in cases.items():
        moved = _with_class_mean(sw, "fcfs", 1, 0, mean, 0.1)
        assert figures._class_gains(moved, 1, "fcfs")[0] == expected
    every = sw
    for c, e in enumerate(sw.result("bs-fcfs", 1).per_class_response_time):
        for rival in figures._GAIN_RIVALS:
            every = _with_class_mean(every, rival, 1, c, e.interval[1] + 1.0, 0.5)
    _, before = figures._point_rows("Fig. 1, as printed", "Figure 1", sw, 1)
    _, after = figures._point_rows("Fig. 1, as printed", "Figure 1", every, 1)
    assert before.passed and before.value != before.paper_value
    assert after.value == after.paper_value == "n = 4, 8, 16, 32" and after.verdict == "FAILS (now agrees)"
    assert "Not stationary" not in before.note


def test_point_rows_name_a_run_that_is_not_stationary(small_sweep):
    """A rival's run flagged as growing is named in the per-class row's note (its E[R_i] describe a transient)."""
    from analytic.splitting import figure_claims as figures

    growing = _with_run(small_sweep, "fcfs", 0, stationary=False)
    _, classes = figures._point_rows("Fig. 1, as printed", "Figure 1", growing, 0)
    assert classes.note.endswith("Not stationary (a transient): fcfs")
