"""The balanced partition of the servers (Anselmi & Doncel, Section 3.2, eqs. (2a)–(2b)).

The servers are split into reserved sets A_i of a_i servers, a multiple of n_i, each serving only
class i in FCFS order, and helpers H; ψ in [0, 1] is computed exactly from the breakpoints of the
floors in (2a).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from analytic.splitting.classes import RigidClass, check_classes, check_servers

__all__ = ["Partition", "balanced_partition"]


@dataclass(frozen=True)
class Partition:
    """The balanced partition of eqs. (2a)–(2b).

    Attributes
    ----------
    servers : int
        k.
    psi : float
        ψ: the supremum of the x in [0, 1] that satisfy the condition of Section 3.2, 1 when
        x = 1 satisfies it (or when every k ϱ_i/(n_i ϱ) is an integer). Below 1 the supremum is a
        breakpoint of the floors and is not attained: (2a) evaluated at x = psi itself gives a
        partition with too few helpers.
    piece : tuple of float
        (lower, psi): the x on which (2a) gives the reported partition, lower inclusive; evaluate
        (2a) at ``piece[0]`` to reproduce it.
    reserved : tuple of int
        a_i = ``|A_i|``, a multiple of n_i, one per class.
    servers_per_class : tuple of int
        s_i = a_i / n_i, the servers of the M/GI/s_i/s_i queue of Property 1.
    helpers : int
        ``|H|`` = k - sum_i a_i (>= max_i n_i unless the helper set is empty).

    Examples
    --------
    >>> from analytic.splitting import RigidClass, balanced_partition
    >>> partition = balanced_partition(8, [RigidClass(1, 0.6, 1.0), RigidClass(2, 0.4, 1.5)])
    >>> partition.reserved, partition.helpers
    ((2, 4), 2)
    """

    servers: int
    psi: float
    piece: tuple[float, float]
    reserved: tuple[int, ...]
    servers_per_class: tuple[int, ...]
    helpers: int


def balanced_partition(servers: int, classes: Iterable[RigidClass]) -> Partition:
    """The reserved sets a_i and helpers ``|H|`` of eqs. (2a)–(2b), with ψ computed exactly.

    With c_i = k ϱ_i / (n_i ϱ), the number of servers left to helpers, h(x) = k - sum_i
    floor(x c_i) n_i, is a non-increasing step function of x that jumps at the breakpoints
    m / c_i. The admissible set {x in [0, 1] : h(x) >= max_i n_i} is therefore [0, b) with b a
    breakpoint (or all of [0, 1]). b is found exactly in rational arithmetic: for each class, the
    smallest m with h(m / c_i) < max n by bisection over m; b is the smallest of these m / c_i.
    ψ = b and the partition is the one on [b_prev, b), where floor(x c_i) = ceil(b c_i) - 1.

    Parameters
    ----------
    servers : int
        k >= max_i n_i.
    classes : sequence of RigidClass
        The C classes; probabilities sum to 1.

    Returns
    -------
    Partition

    Raises
    ------
    InvalidParameterError
        A bad server count, a need above k, or probabilities not summing to 1.

    References
    ----------
    Anselmi & Doncel, Section 3.2, eqs. (2a)–(2b); Property 1 for s_i.

    Examples
    --------
    >>> p = balanced_partition(10, [RigidClass(1, 0.5, 1.0), RigidClass(2, 0.5, 1.0)])
    >>> p.psi, p.reserved, p.helpers  # c_i = 10/3: floor(10x/3) (1 + 2) <= 10 - 2 iff x < 0.9
    (0.9, (2, 4), 4)
    """
    classes = check_classes(classes)
    k = check_servers(servers, classes)
    needs = [c.need for c in classes]
    demands = [c.demand for c in classes]
    total = sum(demands)
    ratios = [k * d / (n * total) for d, n in zip(demands, needs, strict=True)]
    budget = k - max(needs)  # sum_i floor(x c_i) n_i must stay <= budget

    def used(x: Fraction) -> int:
        return sum(math.floor(x * c) * n for c, n in zip(ratios, needs, strict=True))

    if all(c.denominator == 1 for c in ratios) or used(Fraction(1)) <= budget:
        psi = Fraction(1)
        counts = [math.floor(c) for c in ratios]
    else:  # used(1) > budget, so some class has a breakpoint in (0, 1] where the budget is exceeded
        psi = min(x for c in ratios if (x := _first_excess(c, used, budget)) is not None)
        counts = [math.ceil(psi * c) - 1 for c in ratios]  # floor(x c) just below x = ψ
    lower = max((Fraction(m) / c for m, c in zip(counts, ratios, strict=True) if m > 0), default=Fraction(0))
    reserved = tuple(m * n for m, n in zip(counts, needs, strict=True))
    return Partition(servers=k, psi=float(psi), piece=(float(lower), float(psi)), reserved=reserved,
                     servers_per_class=tuple(counts), helpers=k - sum(reserved))


def _first_excess(ratio: Fraction, used, budget: int) -> Fraction | None:
    """Smallest breakpoint m/ratio (1 <= m <= floor(ratio)) with used(m/ratio) > budget, if any."""
    lo, hi = 0, math.floor(ratio)  # invariant: used(lo/ratio) <= budget (lo = 0: nothing used)
    if hi == 0 or used(Fraction(hi) / ratio) <= budget:
        return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if used(Fraction(mid) / ratio) > budget:
            hi = mid
        else:
            lo = mid
    return Fraction(hi) / ratio
