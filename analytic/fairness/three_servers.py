"""Two classes on three servers: the closed forms (10)–(11) and their symbolic derivation.

Bonald & Comte, *Balanced Fair Resource Sharing in Computer Clusters*, Section 5 ("Three
servers"): servers 1 and 2 are dedicated to classes 1 and 2, server 3 is shared (here servers
0, 1, 2 and classes 0, 1). With ρ_1 = λ_1/(μ_1 + μ_3), ρ_2 = λ_2/(μ_2 + μ_3), ρ = (λ_1 + λ_2)/μ and
μ = μ_1 + μ_2 + μ_3, the mean service rates under balanced fairness are (eqs. 10–11)

    γ_1 = ( 1/(μ(1 − ρ)) + [μ_2/(μ_1 + μ_3)] [(1 − ρ_2)/(1 − ρ_1)] / D )^{−1},
    γ_2 = ( 1/(μ(1 − ρ)) + [μ_1/(μ_2 + μ_3)] [(1 − ρ_1)/(1 − ρ_2)] / D )^{−1},
    D = μ − (μ_1 + μ_3) ρ_1 − (μ_2 + μ_3) ρ_2 + μ_3 ρ_1 ρ_2,

for unit mean sizes (the paper obtains them from tree networks, Bonald & Virtamo).
:func:`symbolic_check` derives γ_i again from the subset recursion of
:mod:`analytic.fairness.subsets` with sympy and returns the difference, which simplifies to 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from analytic import _deprecation
from analytic.errors import InvalidParameterError
from analytic.fairness.graph import CompatibilityGraph, check_rates
from analytic.fairness.stability import unstable_error
from analytic.validation import real_array

__all__ = ["ThreeServerCheck", "symbolic_check", "three_server_graph", "three_server_rates"]


def three_server_graph(capacities: Sequence[float] | None = (1.0, 1.0, 1.0)) -> CompatibilityGraph:
    """The graph of Section 5: class 0 on servers {0, 2}, class 1 on {1, 2}.

    Figure 1 uses capacities (1, 1, 1), Figure 2 (1, 0, 1); ``None`` gives unit capacities.

    Parameters
    ----------
    capacities : sequence of 3 floats, or None
        (μ_1, μ_2, μ_3).

    Returns
    -------
    CompatibilityGraph


    Examples
    --------
    >>> three_server_graph((1, 0, 1)).class_capacities.tolist()
    [2.0, 1.0]
    """
    return CompatibilityGraph([[0, 2], [1, 2]], capacities)


def three_server_rates(capacities: Sequence[float] | None, arrival_rates: Any) -> np.ndarray:
    """(γ_1, γ_2) of eqs. (10)–(11), as printed, for unit mean job sizes.

    Parameters
    ----------
    capacities : sequence of 3 floats, or None
        (μ_1, μ_2, μ_3) >= 0 with μ_1 + μ_3 > 0 and μ_2 + μ_3 > 0; ``None`` is (1, 1, 1).
    arrival_rates : sequence of 2 floats
        (λ_1, λ_2) > 0, stable (Theorem 1).

    Returns
    -------
    numpy.ndarray, shape (2,)
        Computed at capacities and rates scaled by one power of two (γ scales with them), so any
        scale works; ∞ only where γ_i exceeds the double range.

    Raises
    ------
    InvalidParameterError
        Bad capacities or rates.
    UnstableSystemError
        The rates violate Theorem 1, checked in the closed form of Section 5 (λ_1 < μ_1 + μ_3,
        λ_2 < μ_2 + μ_3, λ_1 + λ_2 < μ); the message names the set.

    Examples
    --------
    >>> three_server_rates((1, 1, 1), (1, 1)).round(12).tolist()      # 5/7 each
    [0.714285714286, 0.714285714286]
    """
    graph = three_server_graph(capacities)
    if real_array("arrival_rates", arrival_rates, allow_infinite=True, allow_nan=True).shape != (2,):
        raise InvalidParameterError("arrival_rates", arrival_rates, "must hold two rates (λ_1, λ_2)")
    rates = check_rates("arrival_rates", arrival_rates, graph)
    # γ(cμ, cλ) = c γ(μ, λ): scaled by the power of two 2^-e that brings the largest input into [1/2, 1) (exact),
    # no sum overflows and no reciprocal of a capacity does.
    e = int(np.frexp(max(graph.capacities.max(), rates.max()))[1])
    m1, m2, m3 = np.ldexp(graph.capacities, -e).tolist()
    l1, l2 = np.ldexp(rates, -e).tolist()
    mu = m1 + m2 + m3
    # Theorem 1 on this graph (Section 5): λ_1 < μ_1 + μ_3, λ_2 < μ_2 + μ_3, λ_1 + λ_2 < μ.
    sets = [((0,), l1, m1 + m3), ((1,), l2, m2 + m3), ((0, 1), l1 + l2, mu)]
    members, arrival, capacity = max(sets, key=lambda s: (s[1] / s[2], len(s[0])))
    if arrival >= capacity:
        with np.errstate(over="ignore"):
            arrival, capacity = np.ldexp([arrival, capacity], e).tolist()
        raise unstable_error(members, arrival, capacity, "eqs. (10)-(11)")
    r1, r2, r = l1 / (m1 + m3), l2 / (m2 + m3), (l1 + l2) / mu
    d = mu - (m1 + m3) * r1 - (m2 + m3) * r2 + m3 * r1 * r2
    common = 1 / (mu * (1 - r))
    with np.errstate(over="ignore"):    # ∞ where γ_i itself lies beyond the double range
        return np.ldexp([1 / (common + m2 / (m1 + m3) * (1 - r2) / (1 - r1) / d),
                         1 / (common + m1 / (m2 + m3) * (1 - r1) / (1 - r2) / d)], e)


@dataclass(frozen=True)
class ThreeServerCheck:
    """γ_i from the subset recursion, as sympy expressions, and their simplified difference from (10)–(11).

    Attributes
    ----------
    recursion : tuple of sympy.Expr
        γ_1, γ_2 from the subset recursion.
    printed : tuple of sympy.Expr
        γ_1, γ_2 as eqs. (10)–(11) print them.
    differences : tuple of sympy.Expr
        Their simplified differences (0 when the paper's formulas hold).

    Examples
    --------
    >>> symbolic_check().differences
    (0, 0)
    """

    recursion: tuple[Any, Any]
    printed: tuple[Any, Any]
    differences: tuple[Any, Any]


def symbolic_check() -> ThreeServerCheck:
    """Derive γ_1, γ_2 symbolically from the subset recursion and compare with eqs. (10)–(11).

    With G(∅) = 1, G({i}) = λ_i/(μ({i}) − λ_i), G({1, 2}) = (λ_1 G({2}) + λ_2 G({1}))/(μ − λ_1 − λ_2)
    and H_j as in :mod:`analytic.fairness.subsets`, E[x_j] = Σ_A H_j(A)/Σ_A G(A) and
    γ_j = λ_j/E[x_j]. The differences simplify to 0.

    Returns
    -------
    ThreeServerCheck


    Examples
    --------
    >>> symbolic_check().differences
    (0, 0)
    """
    import sympy

    m1, m2, m3, l1, l2 = sympy.symbols("mu1 mu2 mu3 lambda1 lambda2", positive=True)
    mu = m1 + m2 + m3
    g1, g2 = l1 / (m1 + m3 - l1), l2 / (m2 + m3 - l2)
    g12 = (l1 * g2 + l2 * g1) / (mu - l1 - l2)
    # H_j({j}) = λ_j (G({j}) + G(∅)) / slack; H_j({1,2}) = [λ_k H_j({j}) + λ_j (G({1,2}) + G({k}))] / slack.
    h1_1 = l1 * (g1 + 1) / (m1 + m3 - l1)
    h2_2 = l2 * (g2 + 1) / (m2 + m3 - l2)
    h1_12 = (l2 * h1_1 + l1 * (g12 + g2)) / (mu - l1 - l2)
    h2_12 = (l1 * h2_2 + l2 * (g12 + g1)) / (mu - l1 - l2)
    total = 1 + g1 + g2 + g12
    recursion = (l1 * total / (h1_1 + h1_12), l2 * total / (h2_2 + h2_12))
    r1, r2, r = l1 / (m1 + m3), l2 / (m2 + m3), (l1 + l2) / mu
    d = mu - (m1 + m3) * r1 - (m2 + m3) * r2 + m3 * r1 * r2
    printed = (1 / (1 / (mu * (1 - r)) + m2 / (m1 + m3) * (1 - r2) / (1 - r1) / d),
               1 / (1 / (mu * (1 - r)) + m1 / (m2 + m3) * (1 - r1) / (1 - r2) / d))
    differences = tuple(sympy.cancel(sympy.together(1 / a - 1 / b)) for a, b in zip(recursion, printed, strict=True))
    return ThreeServerCheck(recursion, printed, differences)


# Names before issue 32's vocabulary: they warn, and go in version 0.3.
__getattr__ = _deprecation.old_names(globals(), {"SymbolicCheck": "ThreeServerCheck"})
