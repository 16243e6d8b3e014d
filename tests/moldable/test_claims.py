"""The numbers of the rows that check Ghanbarian et al.'s numbered claims (analytic.moldable.paper, issue 34),
recomputed a second way.

Reference: a generator of greedy(p) built here from the model's description (Section 2 and eq. 10, written out
again below), explored breadth first from the empty system and solved by SuperLU (scipy) with the normalisation in
place of one balance equation; the rows use greedy_chain and analytic.ctmc's solver. Uniqueness in Theorem 1 (iii) is
decided in exact rationals (which indices lie on the supporting line), the rows by HiGHS's optimal face. Erlang's
formula by its recursion in mpmath at 50 digits.
"""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from analytic.moldable import greedy_metrics, optimal_occupancy, traffic
from analytic.moldable.claims import _case_iii_examples, _face_is_a_point
from analytic.moldable.paper import LINEAR, SUBLINEAR


def _allocation(idle, p):
    """Eq. (10) written out: an arrival finding ``idle`` servers draws i with probability p_i and gets min(i, idle)."""
    a = np.zeros(len(p) + 1)
    if idle == 0:
        a[0] = 1.0
        return a
    for i, weight in enumerate(p, 1):
        a[min(i, idle)] += weight
    return a


def _law(s, lam, n, p):
    """Stationary law of greedy(p): states X (jobs per server count 1..d) and their probabilities (SuperLU)."""
    s, p, d = np.asarray(s, float), np.asarray(p, float), len(s)
    start = (0,) * d
    index, states, rows, cols, rates = {start: 0}, [start], [], [], []
    k = 0
    while k < len(states):
        X = states[k]
        idle = n - sum(i * c for i, c in enumerate(X, 1))
        moves = []
        a = _allocation(idle, p)
        for i in range(1, d + 1):
            if a[i] > 0:
                moves.append(((*X[:i - 1], X[i - 1] + 1, *X[i:]), n * lam * a[i]))
            if X[i - 1] > 0:
                moves.append(((*X[:i - 1], X[i - 1] - 1, *X[i:]), s[i - 1] * X[i - 1]))
        for target, rate in moves:
            if target not in index:
                index[target] = len(states)
                states.append(target)
            rows.append(k)
            cols.append(index[target])
            rates.append(rate)
        k += 1
    m = len(states)
    Q = sp.csr_matrix((rates, (rows, cols)), shape=(m, m))
    Q = Q - sp.diags(np.asarray(Q.sum(axis=1)).ravel())
    A = sp.vstack([sp.csr_matrix(np.ones((1, m))), Q.T.tocsr()[1:]]).tocsc()
    b = np.zeros(m)
    b[0] = 1.0
    pi = spla.spsolve(A, b)
    return np.array(states, dtype=float), pi


def _pieces(s, lam, n, delta):
    """E over the brute-force law of the terms of Lemma 1, (23)-(25), Lemma 3 and the small jobs, for greedy(p*)."""
    optimum = optimal_occupancy(s, lam)
    X, pi = _law(s.values, lam, n, optimum.p)
    x, i = X / n, np.arange(1, s.d + 1)
    idle = (n - X @ i).astype(int)
    A = np.array([_allocation(j, optimum.p) for j in idle])
    on = np.array(optimum.support) - 1
    y, v = optimum.y, s.values
    i1, i2 = optimum.i1, optimum.i2
    small = x[:, :i1 - 1] @ i[:i1 - 1]
    bracket = (x[:, i1 - 1] - y[i1 - 1]) + (y[i2 - 1] - x[:, i2 - 1])
    below = (x[:, on] <= y[on]).all(axis=1)
    r = x @ v
    return {
        "pi": pi, "x": x, "A": A, "optimum": optimum,
        "left13": [pi @ (c * v[on] * (x[:, on] - y[on]) ** 2).sum(1) for c in (np.ones(2), np.array([1.0, 3.0]))],
        "right13": [lam / n * (pi @ (c * A[:, on + 1]).sum(1))
                    + pi @ (c * (x[:, on] - y[on]) * (lam * A[:, on + 1] - v[on] * y[on])).sum(1)
                    for c in (np.ones(2), np.array([1.0, 3.0]))],
        "left23": pi @ ((x[:, on] - y[on]) * (lam * A[:, on + 1] - v[on] * y[on])).sum(1),
        "e24": pi @ (((idle < i1) & below) * (1 - x @ i + small)),
        "e25": pi @ ((idle == i1) * bracket),
        "step": pi @ (small >= i1 / n),
        "small": pi @ x[:, :i1 - 1].sum(1),
        "v2": pi @ ((r > lam + delta) * x.sum(1)), "above": pi @ (r > lam + delta),
    }


def test_lemma1_identity_and_the_proof_of_proposition2_at_mean_field():
    """Sub-linear speed-up, λ = 0.8 (I* = {3, 4}), n = 20: eq. (13) holds with c = (1, 1) and (1, 3) (both sides
    0.0304827 and 0.0544525, as the rows print); the proof's step Σ_(i<i1) i x_i < i1/n fails with probability
    0.2174, (24) = 0.01083 <= 2λ i1/n = 0.24, n E[Σ_(i<i1) x_i] = 1.0848 > 1 (Theorem 2's 1/n step), (23)'s left
    side 0.00324 <= (24) + (25) = 0.01096."""
    pieces = _pieces(SUBLINEAR, 0.8, 20, 0.1)
    assert pieces["left13"] == pytest.approx(pieces["right13"], rel=1e-10, abs=0)
    assert pieces["left13"] == pytest.approx([0.0304827, 0.0544525], rel=0, abs=5e-8)
    assert pieces["step"] == pytest.approx(0.2174346, rel=0, abs=5e-7)
    assert pieces["e24"] == pytest.approx(0.01083, rel=0, abs=5e-6) and pieces["e24"] <= 0.24
    assert 20 * pieces["small"] == pytest.approx(1.0847767, rel=0, abs=5e-7)
    assert pieces["left23"] == pytest.approx(0.00324, rel=0, abs=5e-6)
    assert pieces["left23"] <= pieces["e24"] + pieces["e25"] == pytest.approx(0.01096, rel=0, abs=5e-6)


def test_small_jobs_grow_with_n():
    """The row's note: n E[Σ_(i<i1) x_i], the mean number of jobs on fewer than 3 servers, grows with n (1.0848,
    1.3856 at n = 20, 30): the 1/n of Theorem 2's proof is exceeded more as n grows."""
    at_30 = _pieces(SUBLINEAR, 0.8, 30, 0.1)
    assert 30 * at_30["small"] == pytest.approx(1.3855592, rel=0, abs=5e-7)
    assert 30 * at_30["small"] > 20 * _pieces(SUBLINEAR, 0.8, 20, 0.1)["small"]


def test_left_side_of_23_exceeds_24_plus_25_in_halfin_whitt():
    """Sub-linear, α = 1/2, β = 0.1, n = 100 (I* = {1, 2}), δ = β/(2√n): (23)'s left side -1.5718e-4 exceeds
    (24) + (25) = 0 + -3.2978e-4, so the displayed '≤ (24) + (25)' fails; eq. (13) holds there too."""
    n = 100
    pieces = _pieces(SUBLINEAR, traffic(n, 0.5, 0.1), n, 0.1 / (2 * math.sqrt(n)))
    assert pieces["left13"] == pytest.approx(pieces["right13"], rel=1e-10, abs=0)
    assert pieces["left23"] == pytest.approx(-1.5718e-4, rel=0, abs=5e-9)
    assert pieces["e24"] == 0.0
    assert pieces["e25"] == pytest.approx(-3.2978e-4, rel=0, abs=5e-9)
    assert pieces["left23"] > pieces["e24"] + pieces["e25"]


@pytest.mark.slow
def test_lemma3_values_at_n_40():
    """Sub-linear, λ = 0.8, n = 40, δ = 0.06: E[V_2] = 1.18e-5 <= 2/(nδ) = 0.83 and P(r > λ + δ) = 2.60e-5 <= 3.54."""
    pieces = _pieces(SUBLINEAR, 0.8, 40, 0.06)
    assert pieces["v2"] == pytest.approx(1.1793895e-05, rel=1e-5, abs=0) and pieces["v2"] <= 2 / (40 * 0.06)
    assert pieces["above"] == pytest.approx(2.5996618e-05, rel=1e-5, abs=0)
    assert pieces["above"] <= 3.4 / 0.8 * 2 / (40 * 0.06)


def test_lemma4_bracket_in_exact_rationals():
    """(22) state by state at n = 20, δ = 1/10 in rationals: over every lattice state with 3 idle servers, jobs on at
    most 4 servers and r <= λ + δ, the bracket is at most its largest value 3/20 (the row's 0.15) < the bound 61/40."""
    s = [Fraction(1), Fraction(9, 5), Fraction(5, 2), Fraction(3)]
    lam, delta, n = Fraction(4, 5), Fraction(1, 10), 20
    gap = s[2] / 3 - s[3] / 4
    y3, y4 = (lam - s[3] / 4) / 3 / gap, (s[2] / 3 - lam) / 4 / gap
    bound = ((s[2] + s[3]) / (n * 4) + delta * (Fraction(1, 3) + Fraction(1, 4))) / gap
    assert bound == Fraction(61, 40)
    largest = None
    for a in range(n + 1):
        for b in range(n // 2 + 1):
            for c in range(n // 3 + 1):
                e = n - 3 - a - 2 * b - 3 * c
                if e < 0 or e % 4:
                    continue
                X = (a, b, c, e // 4)
                if sum(si * k for si, k in zip(s, X, strict=True)) / n > lam + delta:
                    continue
                bracket = (Fraction(c, n) - y3) + (y4 - Fraction(e // 4, n))
                largest = bracket if largest is None else max(largest, bracket)
    assert largest == Fraction(3, 20) and largest <= bound


def test_theorem2_single_support_by_erlangs_recursion():
    """Linear speed-up, d = 5, α = 1/2, β = 0.1, n = 10⁵: √n P_b = 1.7147 from Erlang's recursion in mpmath (50
    digits) equals greedy_metrics'; Jagerman's limit √5 φ(γ)/Φ(γ), γ = 0.1/√5, is 1.72095 (mpmath); and at n = 1002
    (5 ∤ n) the brute-force chain gives n (E[D] - D*) = 0.4930 <= 1/(λ(1 - P_b)) = 1.0583."""
    n = 10**5
    lam = traffic(n, 0.5, 0.1)
    with mpmath.workdps(50):
        load = mpmath.mpf(n) * (1 - mpmath.mpf("0.1") / mpmath.sqrt(n)) / 5
        blocking = mpmath.mpf(1)
        for c in range(1, n // 5 + 1):
            blocking = load * blocking / (c + load * blocking)
        gamma = mpmath.mpf("0.1") / mpmath.sqrt(5)
        limit = mpmath.sqrt(5) * mpmath.npdf(gamma) / mpmath.ncdf(gamma)
        scaled = float(mpmath.sqrt(n) * blocking)
    assert scaled == pytest.approx(math.sqrt(n) * greedy_metrics(LINEAR, lam, n).blocking, rel=1e-12, abs=0)
    assert scaled == pytest.approx(1.7147, rel=0, abs=5e-5)
    assert float(limit) == pytest.approx(1.72095, rel=0, abs=5e-6)
    n = 1002
    lam = traffic(n, 0.5, 0.1)
    X, pi = _law(LINEAR.values, lam, n, np.eye(5)[-1])
    A = np.array([_allocation(int(j), np.eye(5)[-1]) for j in n - X @ np.arange(1, 6)])
    accepted = pi @ A[:, 1:]
    excess = n * ((accepted / LINEAR.values).sum() / accepted.sum() - 0.2)
    assert excess == pytest.approx(0.4930, rel=0, abs=5e-5)
    assert excess <= 1 / (lam * (1 - pi @ A[:, 0])) == pytest.approx(1.0583, rel=0, abs=5e-5)


def _on_the_line(values, i):
    """Indices j in 1..d with s_j on the line through (i, s_i) and (i + 1, s_(i+1)), in rationals."""
    s = [Fraction(v) for v in values]
    slope = s[i] - s[i - 1]
    return [j for j in range(1, len(s) + 1) if s[j - 1] == s[i - 1] + slope * (j - i)]


@pytest.mark.slow
def test_theorem1_iii_uniqueness_in_rationals():
    """Each of the 45 cases (iii): the optimum is unique iff only i and i + 1 lie on the line through them (another
    index on it carries a second optimum: KKT with the same multipliers), decided in rationals; it agrees with the
    rows' optimal-face LP for every case and with the condition of Theorem 1 (iii) (18 cases meet it)."""
    examples = _case_iii_examples()
    assert len(examples) == 45 and sum(holds for *_, holds in examples) == 18
    for speedup, lam, holds in examples:
        efficiency = [Fraction(float(v)) / k for k, v in enumerate(speedup.values, 1)]
        i = max(k for k, e in enumerate(efficiency, 1) if e > Fraction(lam))
        unique = _on_the_line(speedup.values, i) == [i, i + 1]
        assert unique == _face_is_a_point(speedup, lam) == holds


@pytest.mark.parametrize("p", [None, "greedy", "uniform"])
def test_proposition1_inequalities_and_eqs_3_4(p):
    """Sub-linear, λ = 0.8, n = 20, on the brute-force chain: rate conservation (3), Little's law (4) with E[x_i]
    from the states, and the two inequalities of Proposition 1's proof, λ P_b <= d E||x - y*|| and
    λ |E[D] - D*| <= (E||x - y*|| + P_b)/(1 - P_b)."""
    lam, n = 0.8, 20
    optimum = optimal_occupancy(SUBLINEAR, lam)
    weights = {None: optimum.p, "greedy": np.eye(5)[-1], "uniform": np.full(5, 0.2)}[p]
    X, pi = _law(SUBLINEAR.values, lam, n, weights)
    x = X / n
    A = np.array([_allocation(int(j), weights) for j in n - X @ np.arange(1, 6)])
    blocking, accepted = pi @ A[:, 0], pi @ A[:, 1:]
    mean_response_time = (accepted / SUBLINEAR.values).sum() / accepted.sum()
    assert lam * (1 - blocking) == pytest.approx(SUBLINEAR.values @ (pi @ x), rel=1e-11, abs=0)
    assert lam * (1 - blocking) * mean_response_time == pytest.approx((pi @ x).sum(), rel=1e-11, abs=0)
    distance = pi @ np.abs(x - optimum.y).sum(axis=1)
    assert distance == pytest.approx(greedy_metrics(SUBLINEAR, lam, n, p=p if p != "uniform" else weights).distance,
                                     rel=1e-9, abs=0)
    assert lam * blocking <= 5 * distance
    assert lam * abs(mean_response_time - optimum.mean_response_time) <= (distance + blocking) / (1 - blocking)
