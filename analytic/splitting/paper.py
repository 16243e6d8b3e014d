"""The class models of the paper (Tables 2–3, Figure 1) and the rows of ``analytic reproduce``.

Anselmi & Doncel: the SDSC SP2 and KIT FH2 models of Tables 2 and 3, the "several small and few
large" model of Figure 1 with f_k = ⌊(k/32)^(2/3)⌋, and the checks of eqs. (2a)–(2b), Prop. 3,
eq. (15), Prop. 1 and Property 1 shown by ``analytic reproduce``.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from analytic.reproduce import Row, reproduces
from analytic.splitting.bounds import helper_probability_bound, stability_margin
from analytic.splitting.chains import exact_multiserver, fcfs_saturation
from analytic.splitting.classes import RigidClass, decimal_fraction
from analytic.splitting.limits import (
    critical_helper_limit,
    critical_system,
    scaled_classes,
    subcritical_system,
    zero_wait_response_time,
)
from analytic.splitting.modified_bs import modified_bs_helper_probability
from analytic.splitting.partition import balanced_partition
from analytic.validation import integer

__all__ = ["KIT_FH2", "SDSC_SP2", "figure1_classes", "figure1_need_scale"]


def _table(rows: Sequence[tuple[float, float, int, float]], total: float = 1.0) -> tuple[RigidClass, ...]:
    """Classes from (E[D_i], std(D_i), n_i, α_i) rows; α_i divided by their printed sum."""
    return tuple(RigidClass(need=n, probability=decimal_fraction(alpha) / decimal_fraction(total), mean_size=mean, size_std=std)
                 for mean, std, n, alpha in rows)


#: Table 2, SDSC SP2 (E[D_i] in seconds, std(D_i), n_i, α_i): the α_i sum to 1.
SDSC_SP2 = _table([
    (10519.71, 18267.03, 1, 0.2321),
    (1436.82, 6250.19, 2, 0.1496),
    (5643.69, 18123.7, 4, 0.1624),
    (9248.53, 18468.51, 8, 0.1652),
    (10601.46, 17050.63, 16, 0.156),
    (12139.59, 22654.86, 32, 0.0807),
    (8302.33, 19074.81, 64, 0.054),
])

#: Table 3, KIT FH2. The printed α_i sum to 0.9999 (rounding); they are divided by that sum.
KIT_FH2 = _table([
    (1845.19, 11440.31, 1, 0.7851),
    (1470.13, 5237.83, 2, 0.018),
    (11169.87, 38631.83, 4, 0.0406),
    (3167.33, 19727.29, 8, 0.0137),
    (5706.45, 17212.04, 16, 0.0539),
    (60673.08, 92531.56, 32, 0.0493),
    (61343.42, 106094.97, 64, 0.0393),
], total=0.9999)


def figure1_need_scale(servers: int) -> int:
    """f_k = floor((k/32)^(2/3)) of Figure 1, computed exactly (integer cube root).

    Parameters
    ----------
    servers : int
        k >= 32.

    Returns
    -------
    int


    Examples
    --------
    >>> figure1_need_scale(1024), figure1_need_scale(32768)  # 32^(2/3) = 10.08, 1024^(2/3) = 101.6
    (10, 101)
    """
    k = integer("servers", servers, minimum=32)
    return _integer_cube_root(k * k // 1024)   # the largest f with f^3 <= (k/32)^2, i.e. f^3 <= floor(k^2 / 1024)


def _integer_cube_root(n: int) -> int:
    """``floor(n^(1/3))`` for an integer ``n >= 0`` by Newton's method in integers (any size, O(log log n) steps).

    The start ``2^ceil(bits/3)`` lies above the root, and Newton's step on the convex ``x^3 - n``
    then decreases to the floor of the root (a float start was off by 1e16 at k = 1e50 and
    stepped by ones).
    """
    x = 1 << -(-n.bit_length() // 3)
    while True:
        y = (2 * x + n // (x * x)) // 3
        if y >= x:
            return x
        x = y


def figure1_classes(need_scale: int = 1) -> tuple[RigidClass, ...]:
    """The "several small and few large" model of Figure 1, needs scaled by f.

    Small jobs (f, mean 1) with probability 0.95; large jobs (2f, 40), (4f, 20), (8f, 10), each
    with probability 0.05/3 (kept exact as 1/60). Relative demands 0.95 f and 4 f.

    Parameters
    ----------
    need_scale : int
        f, multiplying every need.

    Returns
    -------
    tuple of RigidClass


    Examples
    --------
    >>> [(c.need, float(c.mean_size)) for c in figure1_classes(2)]
    [(2, 1.0), (4, 40.0), (8, 20.0), (16, 10.0)]
    """
    large = Fraction(1, 60)
    base = (RigidClass(1, Fraction(19, 20), 1), RigidClass(2, large, 40), RigidClass(4, large, 20), RigidClass(8, large, 10))
    return scaled_classes(base, need_scale)


def _partition_by_scan(servers: int, classes: Sequence[RigidClass]) -> tuple[float, tuple[int, ...], int]:
    """ψ and the partition by walking through every breakpoint in increasing order (reference)."""
    needs = [c.need for c in classes]
    total = sum(c.demand for c in classes)
    ratios = [servers * c.demand / (c.need * total) for c in classes]
    points = sorted({Fraction(m) / c for c in ratios for m in range(1, math.floor(c) + 1)})
    best = (0.0, tuple(0 for _ in classes))
    for x in [Fraction(0), *points]:
        counts = tuple(math.floor(x * c) for c in ratios)
        if servers - sum(m * n for m, n in zip(counts, needs, strict=True)) < max(needs):
            return float(x), best[1], servers - sum(m * n for m, n in zip(best[1], needs, strict=True))
        best = (float(x), counts)
    return 1.0, tuple(math.floor(c) for c in ratios), servers - sum(math.floor(c) * n for c, n in zip(ratios, needs, strict=True))


def _describe_partition(psi: float, counts: Sequence[int], helpers: int) -> str:
    return f"{psi:.5f};{','.join(map(str, counts))};{helpers}"


@reproduces
def _table_partition_rows() -> list[Row]:
    rows = []
    for name, classes in (("SDSC SP2, Table 2", SDSC_SP2), ("KIT FH2, Table 3", KIT_FH2)):
        for k in (512, 1024):
            p = balanced_partition(k, classes)
            psi, counts, helpers = _partition_by_scan(k, classes)
            rows.append(Row(paper="Anselmi & Doncel, eqs. (2a)-(2b)",
                            statement=f"{name}, k = {k}: ψ; s_i; |H| by exact bisection (left: scan of all breakpoints; "
                                      "the paper prints no ψ, so this checks the package against itself)",
                            paper_value=_describe_partition(psi, counts, helpers),
                            value=_describe_partition(p.psi, p.servers_per_class, p.helpers)))
    return rows


@reproduces
def _proposition3_rows() -> list[Row]:
    """Prop. 3: ψ^(k) -> 1 (1 - ψ <= max_i n_i^(k) / k); eq. (15): ψ^(k) = 1 for all k large enough."""
    ks = [int(k) for k in np.unique(np.round(np.logspace(6, 18, 100)))]     # twelve orders of magnitude
    psis = np.array([balanced_partition(k, figure1_classes(figure1_need_scale(k))).psi for k in ks])
    bounds = np.array([8 * figure1_need_scale(k) / k for k in ks])          # the largest need is 8 f_k
    below = [(k, psi) for k, psi in zip(ks, psis, strict=True) if psi < 1]
    return [
        Row(paper="Anselmi & Doncel, Prop. 3",
            statement=f"ψ^(k) -> 1: Figure 1 model, f_k = ⌊(k/32)^(2/3)⌋, {len(ks)} k from 1e6 to 1e18 (log-spaced): "
                      "1 - ψ^(k) <= 8 f_k / k at every one",
            paper_value=True, value=bool(np.all(1 - psis <= bounds))),
        Row(paper="Anselmi & Doncel, eq. (15)",
            statement=f"ψ^(k) = 1 for all k large enough: how many of those {len(ks)} k have ψ^(k) < 1",
            paper_value=0, value=len(below), tolerance=0, expect_agreement=False, kind="contradicted",
            note="The proof of Prop. 3 concludes '(15) ψ^(k) = 1, ∀k large enough' from (14). At x = 1 the helpers "
                 "number f_k sum_i frac(k ϱ_i/(n_i f_k ϱ)) n_i, which does not grow with k, so ψ^(k) < 1 recurs at "
                 f"every scale: the largest such k sampled is {below[-1][0]:.3g} (ψ = {below[-1][1]:.12g}). ψ^(k) -> 1 "
                 "and Theorem 2 still hold since 1 - ψ^(k) <= max_i n_i^(k) / k (the row above)."),
    ]


@reproduces
def _stability_rows() -> list[Row]:
    """Section 4.2: "(5) is eventually true if the number of servers is large enough", in either regime."""
    base = figure1_classes()
    subcritical = subcritical_system(2**22, figure1_need_scale(2**22), 0.5 / float(sum(c.demand for c in base)), base)
    sub = stability_margin(subcritical.servers, subcritical.arrival_rate, subcritical.classes)
    margins = []
    for k in (2**20, 2**30, 2**40):
        system = critical_system(k, figure1_need_scale(k), 0.7, base)
        margins.append(stability_margin(system.servers, system.arrival_rate, system.classes).margin)
    claim = "Section 4.2: '(5) is eventually true if the number of servers is large enough'"
    return [
        Row(paper="Anselmi & Doncel, Sec. 4.2",
            statement=f"{claim}, read in the subcritical scaling (7) of Sec. 4.3: Figure 1 model, ρ = 0.5, k = 2^22",
            paper_value=True, value=sub.stable, kind="reading", note=f"left side of (5) = {sub.margin:.3g}"),
        Row(paper="Anselmi & Doncel, Sec. 4.2",
            statement=f"{claim}, read in the Halfin–Whitt scaling (8) of Sec. 4.4: Figure 1 model, θ = 0.7, k = 2^40",
            paper_value=True, value=margins[-1] < 1, expect_agreement=False, kind="reading",
            note="left side of (5) = " + ", ".join(f"{m:.3g}" for m in margins) + " at k = 2^20, 2^30, 2^40: "
                 "it grows like √(k/f_k), since the overflow to the helpers is of order √(k f_k) server units while "
                 "|H| <= f_k sum_i n_i: in the Halfin–Whitt regime the sufficient condition of Prop. 1 fails for large "
                 "k. The sentence does not name a regime; Sec. 4.2 precedes both scalings."),
    ]


@reproduces
def _property1_row() -> Row:
    """Property 1 / eq. (16): the loss-formula value equals P_H of the exact ModifiedBS chain."""
    classes = [RigidClass(1, 0.6, 1.0), RigidClass(2, 0.3, 1.5), RigidClass(4, 0.1, 2.0)]
    return Row(paper="Anselmi & Doncel, Property 1, eq. (16)",
               statement="P_H of ModifiedBS: eq. (16) vs exact CTMC of Definition 2 (k = 40, λ = 9, "
                         "hyperexponential sizes for the 2-server class)",
               paper_value=modified_bs_helper_probability(40, 9.0, classes, hyperexponential={1: (0.2, 2.0)}),
               value=helper_probability_bound(40, 9.0, classes), tolerance=1e-12)


#: The system of the BS-FCFS rows: k = 8, needs 1 and 2, load 0.4 (exact chain truncated at 9 waiting jobs:
#: 2681 states, lost fraction 3.4e-5, a thousandth of the gap the rows show; seconds to solve).
_BS_CLASSES = (RigidClass(1, 0.6, 1.0), RigidClass(2, 0.4, 1.5))


@reproduces
def _corollary1_rows() -> list[Row]:
    """Corollary 1, eq. (12): P_H <= P_H of ModifiedBS, for BS-FCFS, on its exact chain."""
    rate = 0.4 * 8 / float(sum(c.demand for c in _BS_CLASSES))
    exact = exact_multiserver("bs-fcfs", 8, _BS_CLASSES, rate, max_waiting=9)
    bound = helper_probability_bound(8, rate, _BS_CLASSES)
    numbers = (f"k = 8, needs 1 and 2, load 0.4: eq. (16) = {bound:.4f}; BS-FCFS sends {exact.helper_probability:.4f} "
               f"of the arrivals to H and serves {exact.helper_service_probability:.4f} there "
               f"(exact chain, {exact.n_states} states, lost fraction {exact.lost_fraction:.1e})")
    return [
        Row(paper="Anselmi & Doncel, Corollary 1, eq. (12)",
            statement="P_H <= eq. (16) under BS-FCFS, P_H read as the words of Section 1.3 ('a job is sent to the "
                      "helper set H upon its arrival') and of Sections 4.3 and 4.4 ('an arriving job is routed to the "
                      "helper set')",
            paper_value=True, value=bool(exact.helper_probability <= bound), expect_agreement=False, kind="reading",
            note=numbers + ". Under this reading it fails: Rule 3 refills A_i from H, so A_i is fuller and more arrivals "
                 "find it full than under ModifiedBS. The proof of Prop. 2 bounds the other reading (next row)."),
        Row(paper="Anselmi & Doncel, Corollary 1, eq. (12)",
            statement="P_H <= eq. (16) under BS-FCFS, P_H read as 'served by the helpers': what the proof of Prop. 2 "
                      "bounds, and one reading of Section 3.4's definition ('a job, upon arrival, needs to use the "
                      "servers in the helper set')",
            paper_value=True, value=bool(exact.helper_service_probability <= bound), kind="reading", note=numbers),
    ]


@reproduces
def _fcfs_throughput_row() -> Row:
    """Table 1: FCFS is not throughput optimal (stable only below the saturated throughput)."""
    limit = fcfs_saturation(4, (RigidClass(1, 0.8, 1.0), RigidClass(4, 0.2, 1.0)))
    return Row(paper="Anselmi & Doncel, Table 1 (FCFS)",
               statement="FCFS is not throughput optimal: k = 4, needs 1 and 4 (powers of two), largest stable load < 1",
               paper_value=True, value=bool(limit.max_load < 1),
               note=f"exact saturated chain: FCFS is stable only up to load {limit.max_load:.4f}")


# -- Claims checked by comparison with M/M/c queues (any helper policy π, exponential sizes) ---------------------
#
# Under BS-π at most s_i + h_i class-i jobs are in service, h_i = ⌊|H|/n_i⌋, and at least min(N_i, s_i) of the N_i
# present (A_i has a free slot only when no class-i job waits: rule 3 refills it at every completion). With
# exponential sizes, class i's departure rate therefore lies between μ_i min(N_i, s_i) and μ_i min(N_i, s_i + h_i),
# and a coupling on common arrival and uniformized service clocks gives N_i between the numbers in an M/M/(s_i + h_i)
# and an M/M/s_i queue of load a_i = λ α_i d_i. An arrival that finds N_i >= s_i + h_i waits and one that finds
# A_i full (N_i >= s_i) is sent to H, so, by PASTA, whatever π:
#
#     C_{s_i + h_i}(a_i) <= P(class i waits) <= P(class i sent to H) <= C_{s_i}(a_i)       (Erlang C)
#     d_i <= E[R_i] <= d_i (1 + C_{s_i}(a_i) / (s_i - a_i))                                   (Little's law)
#
# and the jobs served on H complete at rate at most |H| max_i 1/(n_i d_i), so P(served on H) is at most that over
# λ. tests/splitting/test_claims.py checks each inequality on the exact BS-FCFS chain.


def _mmc_bounds(servers: int, arrival_rate: float, classes: Sequence[RigidClass]) -> dict[str, float]:
    """The bounds above for one system: P(wait) from below, P(sent to H) and E[R] from above, P(served on H)."""
    from analytic.erlang import erlang_c

    partition = balanced_partition(servers, classes)
    low = up = response = 0.0
    for c, s in zip(classes, partition.servers_per_class, strict=True):
        alpha, d = float(c.probability), float(c.mean_size)
        a = arrival_rate * alpha * d
        top = s + partition.helpers // c.need
        low += alpha * (float(erlang_c(top, a)) if a < top else 1.0)
        delay = float(erlang_c(s, a)) if a < s else math.inf
        up += alpha * min(delay, 1.0)
        response += alpha * d * (1 + delay / (s - a) if a < s else math.inf)
    served = partition.helpers * max(1 / (c.need * float(c.mean_size)) for c in classes) / arrival_rate
    return {"wait_low": low, "sent_up": up, "response_up": response, "served_up": min(served, 1.0)}


@reproduces
def _theorem1_own_rows() -> list[Row]:
    """Theorem 1 for BS-π's own P_H and E[R] (not ModifiedBS's): upper bounds by M/M/s_i queues along scaling (7)."""
    base = figure1_classes()
    rate = 0.9 / float(sum(c.demand for c in base))          # ρ = λ ϱ = 0.9
    ks = (2**10, 2**20, 2**30, 2**40)
    bounds = []
    for k in ks:
        system = subcritical_system(k, figure1_need_scale(k), rate, base)
        bounds.append(_mmc_bounds(system.servers, system.arrival_rate, system.classes))
    sent = [b["sent_up"] for b in bounds]
    excess = [b["response_up"] - zero_wait_response_time(base) for b in bounds]
    where = "Figure 1 model (exponential sizes), ρ = 0.9, f_k = ⌊(k/32)^(2/3)⌋, k = 2^10, 2^20, 2^30, 2^40"
    return [
        Row(paper="Anselmi & Doncel, Theorem 1",
            statement=f"P_H^(k) -> 0 for BS-π itself, read as 'sent to H upon arrival' (the stronger reading; it bounds "
                      f"'served by H' too), any π: P_H <= sum_i α_i C_(s_i)(λ α_i d_i) (comparison with M/M/s_i); {where}: "
                      "the bound falls at every step and is below 1e-6 at the last",
            paper_value=True, value=bool(all(b < a for a, b in itertools.pairwise(sent)) and sent[-1] < 1e-6),
            kind="reading",
            note="bound = " + ", ".join(f"{b:.3g}" for b in sent) + ". Erlang C at a load a_i/s_i -> ρ < 1 vanishes as "
                 "s_i grows, so the bound tends to 0: Theorem 1 holds for BS-π itself under either reading here, "
                 "without Corollary 1."),
        Row(paper="Anselmi & Doncel, Theorem 1",
            statement=f"E[R_BS-π] -> sum_i α_i d_i, any π: sum_i α_i d_i <= E[R] <= sum_i α_i d_i (1 + C_(s_i)/(s_i - a_i)); "
                      f"{where}: upper bound minus the limit at k = 2^40",
            paper_value=0.0, value=excess[-1], tolerance=1e-9,
            note="upper bound minus the limit " + ", ".join(f"{e:.3g}" for e in excess)
                 + f" (limit {zero_wait_response_time(base):.6g}): the mean response time of BS-π is pinned to the limit."),
    ]


def _critical_bounds(theta: float = 0.7, exponents: Sequence[int] = (20, 30, 40)) -> list[dict[str, float]]:
    """The M/M/c bounds along scaling (8b) for the Figure 1 model, with √(k/f_k), eq. (9) and Halfin–Whitt's limit."""
    from analytic.erlang import halfin_whitt_delay

    base = figure1_classes()
    total = sum(c.demand for c in base)
    limit = sum(float(c.probability) * float(halfin_whitt_delay(theta * math.sqrt(float(c.demand / (c.need * total)))))
                for c in base)
    out = []
    for e in exponents:
        k = 2**e
        system = critical_system(k, figure1_need_scale(k), theta, base)
        out.append({**_mmc_bounds(k, system.arrival_rate, system.classes), "k": k,
                    "scale": math.sqrt(k / figure1_need_scale(k)), "eq9": critical_helper_limit(theta, base),
                    "halfin_whitt": limit})
    return out


@reproduces
def _theorem2_own_rows() -> list[Row]:
    """Theorem 2 for BS-π's own P_H, under both readings of P_H, along scaling (8b) (Figure 1 model, θ = 0.7)."""
    bounds = _critical_bounds()
    eq9 = bounds[0]["eq9"]
    served = [b["scale"] * b["served_up"] for b in bounds]
    sent = [b["scale"] * b["wait_low"] for b in bounds]
    where = "Figure 1 model (exponential sizes), scaling (8b) with θ = 0.7, k = 2^20, 2^30, 2^40"
    return [
        Row(paper="Anselmi & Doncel, Theorem 2, eq. (9)",
            statement=f"lim √(k/f_k) P_H^(k) <= eq. (9) for BS-π itself, P_H read as 'served by H' (what the proof of "
                      f"Prop. 2 bounds), any π: √(k/f_k) P_H <= √(k/f_k) |H| max_i 1/(n_i d_i) / λ; {where}: it falls and "
                      "is below eq. (9) at the last k",
            paper_value=True, value=bool(all(b < a for a, b in itertools.pairwise(served)) and served[-1] < eq9),
            kind="reading",
            note="√(k/f_k) × bound = " + ", ".join(f"{s:.3g}" for s in served) + f"; eq. (9) = {eq9:.4g}. |H| = O(f_k) "
                 "helpers complete O(f_k/k) of the arrivals, so under this reading √(k/f_k) P_H -> 0."),
        Row(paper="Anselmi & Doncel, Theorem 2, eq. (9)",
            statement=f"lim √(k/f_k) P_H^(k) <= eq. (9) for BS-π itself, P_H read as 'sent to the helper set H upon "
                      f"arrival' (Sections 1.3, 4.3, 4.4), any π: √(k/f_k) P_H >= √(k/f_k) sum_i α_i C_(s_i+h_i)(λ α_i d_i) "
                      f"(comparison with M/M/(s_i + ⌊|H|/n_i⌋)); {where}: is that lower bound below eq. (9) at the last k?",
            paper_value=True, value=bool(sent[-1] <= eq9), expect_agreement=False, kind="reading",
            note="√(k/f_k) × lower bound = " + ", ".join(f"{s:.4g}" for s in sent) + f" against eq. (9) = {eq9:.4g}: "
                 f"P_H itself is at least {bounds[-1]['wait_low']:.4f} at k = 2^40 and tends to Halfin–Whitt's "
                 f"sum_i α_i (1 + θ_i Φ(θ_i)/φ(θ_i))^-1 = {bounds[-1]['halfin_whitt']:.4f} (θ_i of eq. (9)), not to 0. "
                 "The jobs sent to H wait there and are then served in A_i by rule 3; the proof bounds only those "
                 "served by H."),
    ]


@reproduces
def _zero_wait_rows() -> list[Row]:
    """The abstract: "the queueing probability ... vanishes in both the subcritical and critical regimes"."""
    bounds = _critical_bounds()
    last = bounds[-1]
    return [
        Row(paper="Anselmi & Doncel, Abstract; Sec. 7",
            statement="'the resulting queueing probability, i.e., the probability that an arriving job needs to wait for "
                      "processing upon arrival, vanishes in ... [the] critical (the load approaches one from below) "
                      "many-server limiting regime': BS-π, any π, Figure 1 model (exponential sizes), scaling (8b), "
                      "θ = 0.7: P(wait) >= sum_i α_i C_(s_i+h_i)(λ α_i d_i) at k = 2^40 (0 claimed in the limit)",
            paper_value=0.0, value=last["wait_low"], tolerance=0.05, expect_agreement=False, kind="contradicted",
            note="lower bound " + ", ".join(f"{b['wait_low']:.4f}" for b in bounds) + " at k = 2^20, 2^30, 2^40; the "
                 "upper bound sum_i α_i C_(s_i) is " + ", ".join(f"{b['sent_up']:.4f}" for b in bounds) + ". Both tend "
                 f"to Halfin–Whitt's sum_i α_i (1 + θ_i Φ(θ_i)/φ(θ_i))^-1 = {last['halfin_whitt']:.4f}: in the "
                 "Halfin–Whitt regime each class is squeezed between two M/M/c queues with (1 - ρ_i)√c -> θ_i, whose "
                 "probability of waiting does not vanish. What vanishes is the probability of being served by H "
                 "(Theorem 2 rows). In the subcritical regime the claim holds (Theorem 1 rows: P(wait) <= P_H(sent))."),
    ]


@reproduces
def _bs_proposition2_rows() -> list[Row]:
    """Prop. 2, eq. (10): λ_i^BS >= λ_i^ModifiedBS = (1 - E_(s_i)) λ α_i per class, on the exact BS-FCFS chain."""
    from analytic.erlang import erlang_b
    from analytic.simulation import fitted

    cases = (("exponential sizes, load 0.4", _BS_CLASSES, 0.4, 9),
             ("hyperexponential sizes of scv 4 (phase-type chain), load 0.3", tuple(
                 dataclasses.replace(c, size=fitted(1.0, 2.0)) for c in _BS_CLASSES), 0.3, 5))
    rows = []
    for label, classes, load, cap in cases:
        rate = load * 8 / float(sum(c.demand for c in classes))
        exact = exact_multiserver("bs-fcfs", 8, classes, rate, max_waiting=cap)
        slots = balanced_partition(8, classes).servers_per_class
        blocking = [float(erlang_b(s, rate * float(c.probability) * float(c.mean_size)))
                    for c, s in zip(classes, slots, strict=True)]
        served = exact.per_class_helper_service_probability
        rows.append(Row(
            paper="Anselmi & Doncel, Prop. 2, eq. (10)",
            statement=f"λ_i^BS-π >= λ_i^ModifiedBS-π = (1 - E_(s_i)(λ α_i d_i)) λ α_i (eq. (11)) for every class, λ_i^BS-π "
                      f"read as the rate of class-i jobs served in A_i (rule 3 included, as the proof does): BS-FCFS, "
                      f"k = 8, needs 1 and 2, {label}, exact chain",
            paper_value=True, value=bool(all(p <= e for p, e in zip(served, blocking, strict=True))),
            note="P(served on H) per class " + ", ".join(f"{p:.4f}" for p in served) + " <= E_(s_i) "
                 + ", ".join(f"{e:.4f}" for e in blocking) + f" (truncated at {cap} waiting jobs, lost fraction "
                 f"{exact.lost_fraction:.1e}). Read as the rate of arrivals admitted to A_i on arrival (rule 1 only), it "
                 "fails: see the Corollary 1 rows."))
    return rows


@reproduces
def _eq13_row() -> Row:
    """Prop. 3, eq. (13): (1 - ρ_i^(k)) √(s_i^(k)) -> θ_i under scaling (8b), with ψ^(k) < 1 at some of the k."""
    base = figure1_classes()
    total = sum(c.demand for c in base)
    thetas = [0.7 * math.sqrt(float(c.demand / (c.need * total))) for c in base]
    gaps, psis = [], []
    for e in (20, 30, 40, 50, 60):
        k = 2**e
        system = critical_system(k, figure1_need_scale(k), 0.7, base)
        partition = balanced_partition(k, system.classes)
        psis.append(partition.psi)
        gaps.append(max(abs((1 - system.arrival_rate * float(c.probability) * float(c.mean_size) / s) * math.sqrt(s) - t)
                        for c, s, t in zip(system.classes, partition.servers_per_class, thetas, strict=True)))
    return Row(paper="Anselmi & Doncel, Prop. 3, eq. (13)",
               statement="(1 - ρ_i^(k)) √(s_i^(k)) -> θ_i = θ √(ϱ_i/(n_i ϱ)): Figure 1 model, scaling (8b), θ = 0.7, "
                         "k = 2^20, 2^30, ..., 2^60: the largest |(1 - ρ_i) √s_i - θ_i| over the classes falls at every step",
               paper_value=True, value=bool(all(b < a for a, b in itertools.pairwise(gaps))),
               note="largest gap " + ", ".join(f"{g:.3g}" for g in gaps) + " (θ_i = " + ", ".join(f"{t:.4f}" for t in thetas)
                    + "); ψ^(k) = " + ", ".join(f"{p:.10g}" for p in psis) + ": (13) holds although (15) does not, "
                    "since 1 - ψ^(k) <= max_i n_i^(k)/k moves s_i by O(1).")


def _lsf_capacities(servers: int, classes: Sequence[RigidClass], arrival_rate: float,
                    spread: float = 5) -> list[tuple[float, float, float]]:
    """Preemptive Least Servers First, exponential sizes: per class j > 0, (λ α_j d_j, E[⌊(k - servers held by classes
    < j)/n_j⌋], truncated mass) in the stationary law of the classes before j.

    The classes before j are served first and never see class j, and class j sees a Markov-modulated number of
    slots, so (with classes 0..j-1 stable) class j is stable iff its load is below the mean number of slots left.
    The classes before j are truncated at a_i + spread (√a_i + 1) jobs (an arrival beyond is lost); the probability of the
    truncation boundary is returned, so that its effect can be judged.
    """
    from analytic.ctmc import CTMC

    needs = [c.need for c in classes]
    loads = [arrival_rate * float(c.probability) * float(c.mean_size) for c in classes]
    tails = [math.ceil(a + spread * (math.sqrt(a) + 1)) for a in loads]
    out = []
    for j in range(1, len(classes)):

        def packed(X, j=j):
            free = np.full(len(X), servers)
            held = np.zeros_like(X)
            for i in range(j):
                held[:, i] = np.minimum(X[:, i], free // needs[i])
                free = free - held[:, i] * needs[i]
            return held, free

        moves = []
        for i in range(j):
            step = np.eye(j, dtype=int)[i]
            moves.append((step, lambda X, i=i: arrival_rate * float(classes[i].probability) * (X[:, i] < tails[i])))
            moves.append((-step, lambda X, i=i: packed(X)[0][:, i] / float(classes[i].mean_size)))
        pi = CTMC.from_lattice(tails[:j], moves).stationary(method="iterative")
        states = np.asarray(pi.states)
        left = float(pi.probabilities @ (packed(states)[1] // needs[j]))
        edge = float(pi.probabilities @ (states == np.array(tails[:j])).any(axis=1))
        out.append((loads[j], left, edge))
    return out


@reproduces
def _least_servers_first_row() -> Row:
    """Section 2: Least Servers First "does not seem stable within the considered range of parameters"."""
    from analytic.splitting.figures import figure1_load

    results = []
    for k, reading in ((32, "scaling (8b)"), (256, "scaling (8b)")):
        classes = figure1_classes(figure1_need_scale(k))
        load = figure1_load(k, 0.7, reading)
        results.append((k, load, _lsf_capacities(k, classes, load * k / float(sum(c.demand for c in classes)))))
    stable = all(a < left for _, _, per in results for a, left, _ in per)
    largest = [(k, load, per[-1]) for k, load, per in results]
    return Row(paper="Anselmi & Doncel, Sec. 2 (Least Servers First)",
               statement="'this policy does not seem stable within the considered range of parameters', Least Servers First "
                         "read as preemptive priority to the smallest need (as Most Servers First, 'at all times'): Figure 1's "
                         "model at k = 32 (load 0.876 under both readings of its load) and k = 256 (load 0.912, scaling (8b), "
                         "the higher of the two): is it stable? (exact: each class's load against the mean number of "
                         "slots the classes before it leave)",
               paper_value=False, value=stable, expect_agreement=False, kind="reading",
               note="; ".join(f"k = {k}, load {load:.3f}: the largest class's load {a:.4f} < {left:.4f} slots left"
                              for k, load, (a, left, _) in largest)
                    + " (the other classes have more room; mass at the truncation <= "
                    f"{max(e for *_, per in results for *_, e in per):.1e}). Stable at these points of Figure 1 (its mean "
                    "response time is not computed: 'huge' is not checked); Figure 2's loads up to 0.98 (k not given), "
                    "Figure 3's traces and a non-preemptive reading are not computed.")


@reproduces
def _capacity_loss_row() -> Row:
    """Sec. 4.2: "a loss of capacity occurs in state (a_1/n_1, 0, h_1, 0) with h_1 > ⌊|H|/n_1⌋"."""
    from analytic.splitting.chains import multiserver_chain

    # The text prints the state as (α_1/n_1, 0, h_1, 0); α_1/n_1 is no count of jobs. The argument needs A_1 full, i.e.
    # a_1/n_1 = s_1 class-1 jobs in A_1 (eq. (2a)), which is the reading used here.
    rate = 0.4 * 8 / float(sum(c.demand for c in _BS_CLASSES))
    partition = balanced_partition(8, _BS_CLASSES)
    (s1, _), helpers = partition.servers_per_class, partition.helpers
    pi = multiserver_chain("bs-fcfs", 8, _BS_CLASSES, rate, max_waiting=9).stationary()

    def in_example(state) -> bool:
        reserved, serving, waiting = state
        return (reserved == (s1, 0) and serving[1] == 0 and 1 not in waiting
                and serving[0] + len(waiting) > helpers // _BS_CLASSES[0].need)

    probability = pi.expected(lambda state: float(in_example(state)))
    return Row(paper="Anselmi & Doncel, Sec. 4.2",
               statement="'a loss of capacity occurs in state (a_1/n_1, 0, h_1, 0) with h_1 > ⌊|H|/n_1⌋' (printed α_1/n_1, "
                         "read as A_1 full): a class-1 job waits while the n_2 s_2 servers of A_2 are idle. BS-FCFS, k = 8, "
                         "needs 1 and 2, load 0.4, exact chain: those states have positive stationary probability",
               paper_value=True, value=bool(probability > 0),
               note=f"stationary probability of those states {probability:.3e} (s = {partition.servers_per_class}, "
                    f"|H| = {helpers}).")


def _msf_largest_stable_load() -> float:
    """Most Servers First, k = 6, needs 2 and 3 (α = 1/2, d = 1 each): the load above which the 2-server class diverges.

    Class 3 has preemptive priority: an M/M/2 queue (two of its jobs fill the servers) of load a_3 = λ/2, so P(0 or 1
    of its jobs in service) = (1 - r)/(1 + r) and 2r(1 - r)/(1 + r) with r = a_3/2. Class 2 then has 3, 1 or 0 slots
    and is stable iff a_2 = λ/2 < 3 P_0 + P_1. ρ = λ ϱ/k = 5λ/12. Bisection on the load.
    """
    def margin(load: float) -> float:
        lam = 12 * load / 5
        r = lam / 4
        return (1 - r) * (3 + 2 * r) / (1 + r) - lam / 2

    low, high = 0.5, 1.0
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if margin(middle) > 0 else (low, middle)
    return low


@reproduces
def _table1_rows() -> list[Row]:
    """Table 1: Most Servers First is not throughput optimal; ServerFilling's packing fills k (powers of two)."""
    limit = _msf_largest_stable_load()
    full, idle = _server_filling_scan(16, (1, 2, 4, 8, 16)), _server_filling_scan(12, (1, 2, 4, 8))
    return [
        Row(paper="Anselmi & Doncel, Table 1 (Most Servers First)",
            statement="Most Servers First is not throughput optimal ('No [2]'): k = 6, needs 2 and 3 (both divide k, so a "
                      "throughput-optimal policy is stable at every load < 1), α = 1/2 each, unit mean sizes: largest "
                      "load at which MSF is stable < 1",
            paper_value=True, value=bool(limit < 1),
            note=f"MSF is unstable above load {limit:.4f}: three class-2 jobs fill the six servers, but class 3's priority "
                 "leaves one server idle whenever one class-3 job is in service (closed form: M/M/2 for class 3)."),
        Row(paper="Anselmi & Doncel, Table 1 (ServerFilling, -SRPT, -Gittins)",
            statement="'Yes**: provided that the overall number of servers and all the server needs are a power of two': "
                      "the packing behind it (Grosof et al.): whenever the jobs present need >= k servers, ServerFilling "
                      "uses all k. Every arrival-ordered minimal set M, k = 16, needs 1, 2, 4, 8, 16 (brute force): sets "
                      "leaving a server idle",
            paper_value=0, value=full[1], tolerance=0,
            note=f"{full[0]} sets M, none leaves a server idle (the order within M is any: SRPT's and Gittins' too); "
                 f"with k = 12, not a power of two, {idle[1]} of {idle[0]} do, e.g. {idle[2]}: hence the '**'. "
                 "The packing property, not the stability it implies, is what is checked."),
    ]


def _server_filling_scan(servers: int, needs: Sequence[int]) -> tuple[int, int, tuple[int, ...]]:
    """Section 2's ServerFilling on every minimal M (jobs in arrival order whose needs first reach k): the number of
    sets, how many leave servers idle, and the first such set.

    M's jobs are placed in decreasing order of need (ties by arrival) until one does not fit ("the scheduling is
    completed with all the jobs arrived later than j blocked").
    """
    count, idle, example = 0, 0, ()
    stack: list[tuple[int, ...]] = [()]
    while stack:
        prefix = stack.pop()
        for n in needs:
            jobs = (*prefix, n)
            if sum(jobs) < servers:
                stack.append(jobs)
                continue
            count += 1
            used = 0
            for need in sorted(jobs, reverse=True):
                if used + need > servers:
                    break
                used += need
            if used < servers:
                idle += 1
                example = example or jobs
    return count, idle, example


@reproduces
def _lemma1_rows() -> list[Row]:
    """Lemma 1: √s E_s(s - θ√s) approaches φ(θ)/Φ(θ); the gap shrinks like 1/√s."""
    from analytic.erlang import erlang_b, halfin_whitt_blocking

    theta, rows = 0.7, []
    for s in (1e4, 1e8, 1e12):
        value = math.sqrt(s) * erlang_b(s, s - theta * math.sqrt(s))
        rows.append(Row(paper="Anselmi & Doncel, Lemma 1",
                        statement=f"√s E_s(a) -> φ(θ)/Φ(θ): (1 - a/s)√s = {theta}, s = {s:.0e} (tolerance 1/(4√s))",
                        paper_value=float(halfin_whitt_blocking(theta)), value=value,
                        tolerance=0.25 / math.sqrt(s)))
    return rows
