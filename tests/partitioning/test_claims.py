"""Second computations of the verdicts of Ghaderi, Shakkottai & Srikant's rows added for issue 34.

Each test recomputes a row's numbers another way: Theorem 1 with the frame chain built from the matrix
exponential of the birth-death generator (not Skellam laws) and the bound's constants by hand from
Appendix A; Definition 1 from scipy's convex hull; Corollary 1 with mpmath at 50 digits; Lemma 2 at 80
digits without the expm1/log1p rewriting; Corollary 3 and (19) with an LP for the worst ν; (20) by
iterating single laws and θ_2 from a dense eigensolver; (23) and (31) by hand.
"""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.optimize import linprog
from scipy.sparse.linalg import eigsh
from scipy.spatial import ConvexHull

from analytic.partitioning import (
    GraphJob,
    capacity_margin,
    dgp_chain,
    dgp_distribution,
    dgp_queue_weights,
    loss_distribution,
    max_weight_configuration,
    paper,
    uniformization_rate,
)
from analytic.partitioning.paper import FIGURE1_CLUSTER, FIGURE1_JOB, SMALL_CLUSTER, SMALL_JOB, TRIANGLE


def _frame_chain_by_expm(load: float, period: float, window: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Law at frame epochs of Q - Q_s for Algorithm 1 (3 templates below Q_s, 4 from it), Q far from 0.

    Transition rows from expm(T G_n) of the birth-death generator with births at ρ and deaths at n,
    reflected at the window's ends."""
    offsets = np.arange(-window, window + 1)
    size = offsets.size
    matrix = np.zeros((size, size))
    for count in (3, 4):
        generator = np.zeros((size, size))
        idx = np.arange(size - 1)
        generator[idx, idx + 1] = load
        generator[idx + 1, idx] = count
        generator -= np.diag(generator.sum(axis=1))
        step = sla.expm(period * generator)
        chosen = (offsets >= 0) if count == 4 else (offsets < 0)
        matrix[chosen] = step[chosen]
    values, vectors = np.linalg.eig(matrix.T)
    law = np.real(vectors[:, np.argmin(np.abs(values - 1))])
    law /= law.sum()
    return offsets, law, np.where(offsets >= 0, 4, 3)


@pytest.mark.slow
def test_theorem1_queue_bound_fails_at_rho_3_1():
    """Thm 1 row: triangles on 3 x 4 slots at ρ = 3.1, f = log(1 + x), T = 1, α = 1/256. Max-Weight holds 4 templates
    from α f(Q) > 3 (checked at α = 1/4 with max_weight_configuration), so the queue sits at f^-1(3/α): E f(Q) = 768
    to 1e-4. The bound, by hand from Appendix A (K_2 = ρ + M, K_3 = M log(1 + M), B_1 = K_2 + K_3, B_2 = K_2²,
    δ* = 4/3.1 - 1, G(x*) = 0.1 x 3), is 460.3."""
    job = GraphJob(3, TRIANGLE.edges, arrival_rate=3.1, service_rate=1.0)
    switch = math.floor(math.expm1(12.0)) + 1        # least Q with log(1 + Q)/4 > 3
    assert max_weight_configuration(FIGURE1_CLUSTER, job, [switch - 1], 0.25).templates == (3,)
    assert max_weight_configuration(FIGURE1_CLUSTER, job, [switch], 0.25).templates == (4,)
    offsets, law, n = _frame_chain_by_expm(3.1, 1.0, 200)
    share = law[n == 4].sum()
    assert share == pytest.approx(0.1, abs=1e-3)      # flow balance: 3(1 - p) + 4p = 3.1
    below = law[offsets < -150].sum()
    assert below < 2e-2
    alpha = 1 / 256
    mean_f_lower = (3 / alpha) * (1 - below)          # f(Q_s - 200) = 768 to double precision
    k2, k3 = 3.1 + 12, 12 * math.log(13)
    b1, b2 = k2 + k3, k2**2
    delta, static = 0.9 / 3.1, 0.3
    bound = ((b1 + b2) + (1 + delta) * static / alpha) / (delta * 3.1) + b1
    assert bound == pytest.approx(460.308, abs=1e-3)
    assert mean_f_lower > 750 > bound
    case = paper._theorem1_case(job, alpha, 1.0)
    assert case["queue_bound"] == pytest.approx(bound, abs=1e-9)
    assert case["f_low"] == pytest.approx(768.0, abs=1e-6) and case["f_high"] == pytest.approx(768.0, abs=1e-6)
    assert case["share"] == pytest.approx(share, abs=1e-3)
    assert case["cost"] == pytest.approx(3 * share, abs=3e-3) and case["cost"] == pytest.approx(0.3, abs=1e-9)


@pytest.mark.slow
def test_theorem1_cost_is_static_optimum_and_literal_reading():
    """Thm 1 rows at ρ = 3.5: the mean cost is 3 x (share of time with 4 templates) = 3(ρ - 3) = G(x*) = 1.5 (flow
    balance), within the cost bound; E[Q] ≈ e^(3/α), so α log E[Q] ≈ 3 (the literal O(f^-1(1/α)) = O(e^(1/α))
    allows 1)."""
    offsets, law, n = _frame_chain_by_expm(3.5, 1.0, 120)
    assert 3 * law[n == 4].sum() == pytest.approx(1.5, abs=1e-6)
    job = GraphJob(3, TRIANGLE.edges, arrival_rate=3.5, service_rate=1.0)
    case = paper._theorem1_case(job, 1 / 64, 1.0)
    assert case["cost"] == pytest.approx(1.5, abs=1e-9)
    assert case["cost"] <= case["cost_bound"]
    assert case["log_mean_queue"] / 64 == pytest.approx(3.0, abs=1e-6)
    mean_offset = law @ (offsets + (3.5 - n) / 2)
    assert case["log_mean_queue"] == pytest.approx(192 + mean_offset * math.exp(-192), abs=1e-9)


def test_definition1_margin_by_convex_hull():
    """Def. 1 row: δ* = 1/4 for Figure 1's graph (5 nodes, ρ = 0.6) and triangles (ρ = 2) on 12 slots. Reference:
    scipy's hull of {n : 5 n_1 + 3 n_2 <= 12}; t* = min over facets a·x <= c of c/(a·ρ)."""
    points = np.array([(a, b) for a in range(3) for b in range(5) if 5 * a + 3 * b <= 12], dtype=float)
    hull = ConvexHull(points)
    rho = np.array([0.6, 2.0])
    normals, offsets = hull.equations[:, :2], -hull.equations[:, 2]
    t = min(c / (a @ rho) for a, c in zip(normals, offsets, strict=True) if a @ rho > 1e-12)
    assert t - 1 == pytest.approx(0.25, abs=1e-12)
    assert capacity_margin(FIGURE1_CLUSTER, list(paper._TWO_TYPES)) == pytest.approx(t - 1, abs=1e-9)
    assert paper._margin_by_hand((5, 3), 12, (Fraction(3, 5), Fraction(2))) == Fraction(5, 4)


def test_corollary1_bounds_in_mpmath():
    """Cor. 1 rows: Theorem 2's bounds at α = β², log h = β^-2, ε = β^(1/16) (b = 1/2), β = 1e-100, evaluated in mpmath
    at 50 digits from the theorem's formula (K̂_2 = f'(h)(M + Σρ), K̂_3 = f(M + h) M, δ* = 1/4, G = 0.6, ρ_min = 0.6,
    b_max = 5): β² × queue bound = 9.0000375, (cost bound - G)/β^(1/16) = 5 to 1e-9."""
    jobs = list(paper._TWO_TYPES)
    log_gamma_min = loss_distribution(FIGURE1_CLUSTER, jobs).min_log_probability
    with mpmath.workdps(50):
        beta = mpmath.mpf("1e-100")
        alpha, log_h, eps = beta**2, beta**-2, beta ** mpmath.mpf(1 / 16)
        k2 = mpmath.mpf(0.5) * log_h ** mpmath.mpf(-0.5) * mpmath.exp(-log_h) * (12 + 2.6)
        k3 = mpmath.sqrt(log_h + mpmath.log1p(12 * mpmath.exp(-log_h))) * 12
        delta, static = mpmath.mpf(1) / 4, mpmath.mpf(6) / 10
        queue = 2 / (mpmath.mpf(6) / 10 * delta) * (k2 + k3 - beta / alpha * log_gamma_min
                                                    + (1 + delta / 2) * static / alpha + eps * 5 / alpha)
        cost = static + alpha * (k2 + k3) - beta * log_gamma_min + eps * 5
        scaled_queue, scaled_cost = float(queue * beta**2), float((cost - static) / eps)
    rows = paper._corollary1_bounds()
    assert rows[0].value == pytest.approx(scaled_queue, rel=1e-12, abs=0)
    assert scaled_queue == pytest.approx(9.0, abs=1e-4)
    assert rows[1].value == pytest.approx(scaled_cost, rel=1e-10, abs=0)   # G subtracted in doubles
    # β_0: Corollary 1's log h = β^-2 equals (28)'s C_0 β^-1 ε^-7 = C_0 β^(-23/16) there
    threshold, c0 = paper._corollary1_threshold(0.5)
    with mpmath.workdps(50):
        b0 = mpmath.mpf(threshold)
        assert float(b0**-2 / (c0 * b0 ** (-mpmath.mpf(23) / 16))) == pytest.approx(1.0, rel=1e-9, abs=0)


def test_lemma2_worst_ratio_at_80_digits():
    """Lemma 2 row: the largest |log π_(n+1)/π_n| / σ_n, 0.25, recomputed at 80 digits from log π directly (no expm1
    rewriting) at the queue pair where the row finds it; every ratio <= 1."""
    points = paper._lemma2_points()
    ratios = [paper._lemma2_ratio(*point) for point in points]
    assert max(ratios) <= 1
    queues, moved, step = points[int(np.argmax(ratios))]
    jobs = [SMALL_JOB, paper._EDGE]
    with mpmath.workdps(80):
        h, p, share = mpmath.exp(60), mpmath.mpf("0.9"), mpmath.mpf("0.9") / 48
        q0 = [mpmath.mpf(x) for x in queues]
        q1 = list(q0)
        q1[moved] += step

        def weights(q):
            floor = share * mpmath.log(h + max(q)) ** p
            return [0.5 * max(mpmath.log(h + x) ** p, floor) for x in q]

        w0, w1 = weights(q0), weights(q1)
        law = dgp_distribution(SMALL_CLUSTER, jobs, [float(x) for x in w0], 0.5)
        counts = law.configurations.templates.tolist()
        logs0 = [(n[0] * w0[0] + n[1] * w0[1]) / mpmath.mpf(0.5) for n in counts]
        logs1 = [(n[0] * w1[0] + n[1] * w1[1]) / mpmath.mpf(0.5) for n in counts]
        base = [mpmath.log(mpmath.mpf(float(x))) - a for x, a in zip(law.probabilities, logs0, strict=True)]
        z0 = mpmath.log(mpmath.fsum(mpmath.exp(b + a) for b, a in zip(base, logs0, strict=True)))
        z1 = mpmath.log(mpmath.fsum(mpmath.exp(b + a) for b, a in zip(base, logs1, strict=True)))
        largest = max(abs((a1 - z1) - (a0 - z0)) for a0, a1 in zip(logs0, logs1, strict=True))
        argument = mpmath.exp((share * mpmath.log(h + max(q1)) ** p) ** (1 / p)) - 1
        sigma = 2 * 6 * 0.5 / mpmath.mpf(0.5) * p * mpmath.log(argument) ** mpmath.mpf(-0.1) / argument
        reference = float(largest / sigma)
    assert max(ratios) == pytest.approx(reference, rel=1e-8, abs=0)
    assert reference == pytest.approx(0.25, abs=0.01)


def test_corollary3_and_19_worst_nu_by_lp():
    """Cor. 3 rows: the smallest E_ν[g] over ||ν - π||_TV <= ε/16, by HiGHS (ν = π + u - v, u, v >= 0, Σu = Σv <= r,
    v <= π), against the greedy of the rows; (19) fails and Corollary 3 holds for that ν in the row's example."""
    cases = paper._corollary3_cases()
    case = next(c for c in cases if c["worst19"] < c["right19"])
    assert (case["alpha"], case["beta"], case["log_h"], case["queues"]) == (0.2, 1e-3, 4.0, (0, 0))
    jobs = list(paper._TWO_TYPES)
    q = dgp_queue_weights([0, 0], 0.2, math.exp(4.0), 0.25, 12, 0.5)
    law = dgp_distribution(FIGURE1_CLUSTER, jobs, q, 1e-3)
    g = law.configurations.templates @ q - law.configurations.cost
    p, r, s = law.probabilities, 0.25 / 16, len(g)
    result = linprog(np.concatenate([g, -g]), A_ub=[np.concatenate([np.zeros(s), np.ones(s)])], b_ub=[r],
                     A_eq=[np.concatenate([np.ones(s), -np.ones(s)])], b_eq=[0.0],
                     bounds=[(0, None)] * s + [(0, float(x)) for x in p], method="highs")
    worst = float(p @ g + result.fun)
    assert worst == pytest.approx(case["worst19"], abs=1e-9)
    assert worst < case["right19"]
    assert all(c["worst"] >= c["right"] for c in cases)


def test_eq20_and_eq23_by_iteration_and_by_hand():
    """(20) row: from the worst start, ||P^n(x, .) - π||_TV by iterating one law, θ_2 from a dense eigensolver of the
    symmetrised generator. (23) on Figure 1 (q = 1.5, β = 0.5): log K_1 = -log 119845441 - log 12! (ρ = 1), b_max = 5
    (the costliest template of the graph), so the bound is log K_1 - 24 (1.5 + 5)."""
    chain = dgp_chain(SMALL_CLUSTER, SMALL_JOB, 1.0, 0.5, reduce="none")
    xi = uniformization_rate(SMALL_CLUSTER, SMALL_JOB)
    pi = chain.stationary().probabilities
    generator = chain.generator.toarray()
    root = np.sqrt(pi)
    symmetric = root[:, None] * generator / root[None, :]
    top = eigsh(sp.csr_array((symmetric + symmetric.T) / 2), k=2, which="LA", return_eigenvectors=False, tol=1e-12)
    theta2 = 1 + np.sort(top)[0] / xi                  # plain Lanczos on the largest eigenvalues (0 and -gap)
    jump = np.eye(chain.n_states) + generator / xi
    start = int(np.argmin(pi))
    law = np.zeros(chain.n_states)
    law[start] = 1.0
    for n in range(1, 101):
        law = law @ jump
        assert 0.5 * np.abs(law - pi).sum() <= theta2**n / (2 * math.sqrt(pi.min()))
    rows = paper._lemma1_steps()
    assert rows[0].note.startswith(f"θ_2 = {theta2:.6g}")
    bound = -math.log(119845441) - math.lgamma(13) - 24 * (1.5 + 5)
    minimum = dgp_distribution(FIGURE1_CLUSTER, FIGURE1_JOB, 1.5, 0.5).min_log_probability
    assert minimum >= bound and f"{minimum:.4g} >= {bound:.4g}" in rows[1].note


def test_eq31_by_hand():
    """(31) row: triangles on 3 x 4 slots, ρ = 3.1, q = 3. Three fit whole (cost 0), a fourth is split 1+1+1 (cost 3):
    W* = max(3q, 4q - 3) = 9; G(x*) = 0.1 x 3, δ* = 4/3.1 - 1, so (1 + δ*)(qρ - G) = (4/3.1)(9.3 - 0.3) = 11.61."""
    right = 4 / 3.1 * (3 * 3.1 - 0.3)
    assert max(3 * 3, 4 * 3 - 3) == 9 < right
    row = paper._step3()
    assert "W* = 9 " in row.note and f"< {right:.6g}" in row.note
