"""The class models of the paper (Tables 2–3, Figure 1) and the rows of ``analytic reproduce``.

Anselmi & Doncel: the SDSC SP2 and KIT FH2 models of Tables 2 and 3, the "several small and few
large" model of Figure 1 with f_k = ⌊(k/32)^(2/3)⌋, and the checks of eqs. (2a)–(2b), Prop. 3,
eq. (15), Prop. 1 and Property 1 shown by ``analytic reproduce``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from analytic.reproduce import Row, reproduces
from analytic.splitting.bounds import helper_probability_bound, stability_margin
from analytic.splitting.chains import exact_multiserver, fcfs_saturation
from analytic.splitting.classes import JobClass, _exact
from analytic.splitting.limits import _scaled_classes, critical_system, subcritical_system
from analytic.splitting.modified_bs import modified_bs_helper_probability
from analytic.splitting.partition import balanced_partition
from analytic.validation import integer

__all__ = ["KIT_FH2", "SDSC_SP2", "figure1_classes", "figure1_need_scale"]


def _table(rows: Sequence[tuple[float, float, int, float]], total: float = 1.0) -> tuple[JobClass, ...]:
    """Classes from (E[D_i], std(D_i), n_i, α_i) rows; α_i divided by their printed sum."""
    return tuple(JobClass(need=n, probability=_exact(alpha) / _exact(total), mean_size=mean, size_std=std)
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


def figure1_classes(need_scale: int = 1) -> tuple[JobClass, ...]:
    """The "several small and few large" model of Figure 1, needs scaled by f.

    Small jobs (f, mean 1) with probability 0.95; large jobs (2f, 40), (4f, 20), (8f, 10), each
    with probability 0.05/3 (kept exact as 1/60). Relative demands 0.95 f and 4 f.

    Parameters
    ----------
    need_scale : int
        f, multiplying every need.

    Returns
    -------
    tuple of JobClass


    Examples
    --------
    >>> [(c.need, float(c.mean_size)) for c in figure1_classes(2)]
    [(2, 1.0), (4, 40.0), (8, 20.0), (16, 10.0)]
    """
    large = Fraction(1, 60)
    base = (JobClass(1, Fraction(19, 20), 1), JobClass(2, large, 40), JobClass(4, large, 20), JobClass(8, large, 10))
    return _scaled_classes(base, need_scale)


def _partition_by_scan(servers: int, classes: Sequence[JobClass]) -> tuple[float, tuple[int, ...], int]:
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
    classes = [JobClass(1, 0.6, 1.0), JobClass(2, 0.3, 1.5), JobClass(4, 0.1, 2.0)]
    return Row(paper="Anselmi & Doncel, Property 1, eq. (16)",
               statement="P_H of ModifiedBS: eq. (16) vs exact CTMC of Definition 2 (k = 40, λ = 9, "
                         "hyperexponential sizes for the 2-server class)",
               paper_value=modified_bs_helper_probability(40, 9.0, classes, hyperexponential={1: (0.2, 2.0)}),
               value=helper_probability_bound(40, 9.0, classes), tolerance=1e-12)


#: The system of the BS-FCFS rows: k = 8, needs 1 and 2, load 0.4 (exact chain truncated at 9 waiting jobs:
#: 2681 states, lost fraction 3.4e-5, a thousandth of the gap the rows show; seconds to solve).
_BS_CLASSES = (JobClass(1, 0.6, 1.0), JobClass(2, 0.4, 1.5))


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
    limit = fcfs_saturation(4, (JobClass(1, 0.8, 1.0), JobClass(4, 0.2, 1.0)))
    return Row(paper="Anselmi & Doncel, Table 1 (FCFS)",
               statement="FCFS is not throughput optimal: k = 4, needs 1 and 4 (powers of two), largest stable load < 1",
               paper_value=True, value=bool(limit.max_load < 1),
               note=f"exact saturated chain: FCFS is stable only up to load {limit.max_load:.4f}")
