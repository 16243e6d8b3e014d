"""Closed forms of Berg, Vesilo & Harchol-Balter, *heSRPT*, for the speed-up s(k) = k^p.

M jobs of known sizes are present at time 0; N servers form one divisible resource; a job holding
the fraction θ of the system is served at rate s(θN) = N^p θ^p. Throughout, c = 1/(1 - p).

- heSRPT (Theorem 7) gives the i-th largest of m remaining jobs θ_i = (i/m)^c - ((i-1)/m)^c;
  the scale-free constants (Definition 1, Theorem 5) are ω_k = 1/((k/(k-1))^c - 1), ω_1 = 0.
- Its total flow time (Theorem 8) is T* = N^-p Σ_k x_k [k(1+ω_k)^p - (k-1)ω_k^p], sizes in
  decreasing order; Lemma 5 rewrites the bracket as (k^c - (k-1)^c)^(1-p).
- heLRPT (Theorem 2) gives job i the constant fraction x_i^(1/p)/Σ_j x_j^(1/p) and minimizes the
  makespan, which is ||x||_(1/p) / N^p. The paper prints T*_max = ||X||_(1/p): that is the value for
  N = 1 (or time measured in units of 1/s(N)); with N servers the factor 1/s(N) = N^-p is missing.

Differences such as k^c - (k-1)^c are evaluated as k^c (-expm1(c log1p(-1/k))) and products in log
space, so nothing cancels, overflows or underflows for p anywhere in (0, 1) and M up to 10^7. Flow
times and makespans, products of sizes up to 1.8e308 with N^-p (N from 5e-324 to 1.8e308), are
summed as moderate mantissas times powers of two and scaled once at the end, so that every result
within the double range is returned (a mean of 8.2e307 whose total, 2.5e308, is beyond it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from analytic._deprecation import renamed_arguments
from analytic.errors import InvalidParameterError
from analytic.memory import require
from analytic.validation import integer, positive, real_array, unit_fraction

if TYPE_CHECKING:  # sympy is imported by the symbolic check only (it takes ~0.7 s)
    import sympy

__all__ = [
    "ClosedFormCheck",
    "HesrptFlowTime",
    "helrpt_allocation",
    "hesrpt_allocation",
    "hesrpt_flow_time",
    "optimal_makespan",
    "scale_free_constants",
    "symbolic_check",
]


def check_sizes(sizes: object) -> np.ndarray:
    """Job sizes as a 1-D float array, validated: finite and positive."""
    array = real_array("sizes", sizes, " (job sizes)", ndim=1, allow_empty=False, allow_nan=True)
    if not np.all(np.isfinite(array) & (array > 0)):
        bad = array[~(np.isfinite(array) & (array > 0))][0]
        raise InvalidParameterError("sizes", array, f"every size must be finite and > 0 (found {bad:g})")
    return array


def mean_time(times: np.ndarray) -> np.ndarray | float:
    """Mean over the last axis, the times first scaled by a power of two per row: a mean within the
    double range is returned even when the sum is beyond it (three completion times of 1e308 and
    more), ``inf`` only when a time is."""
    top = np.frexp(np.max(times, axis=-1, keepdims=True))[1]
    with np.errstate(over="ignore"):
        means = np.ldexp(np.sum(np.ldexp(times, -top), axis=-1) / times.shape[-1], top[..., 0])
    return float(means) if means.ndim == 0 else means


#: Bytes per job of :func:`hesrpt_allocation` at its peak (five arrays of m doubles alive at once,
#: measured) with a margin.
_SHARE_BYTES = 48


def _jobs(m: object) -> int:
    """The number of jobs m, refused before allocating when m values would not fit in memory.

    The bytes are counted in integers: an m beyond the float range (10**400) is refused like 10**12.
    """
    m = integer("m", m, meaning=" (the number of remaining jobs)")
    require(_SHARE_BYTES * m, "heSRPT's allocation to m jobs", m)
    return m


def _log_gap(k: np.ndarray, exponent: float) -> np.ndarray:
    """log(1 - (1 - 1/k)^e) = log(k^e - (k-1)^e) - e log k for integers k >= 1 (0 at k = 1), e > 0.

    Splitting off e log k keeps large terms out of every later sum: with e = 1/(1-p) near p = 1,
    e log k is huge and would cost its rounding error in every exponent.
    """
    k = np.asarray(k, dtype=float)
    with np.errstate(divide="ignore"):
        return np.log(-np.expm1(exponent * np.log1p(-1.0 / k)))


def log_hesrpt_share(i: np.ndarray, m: np.ndarray, c: float) -> np.ndarray:
    """log θ*_i = c log(i/m) + log(1 - (1 - 1/i)^c) for the i-th largest of m jobs (Theorem 7).

    For i > m/2, log(i/m) is log1p(-(m - i)/m): the rounding of i/m (one ulp of 1) would otherwise
    be multiplied by c = 1/(1-p) (c = 1e5, m = 207 gave θ*_206 with a relative error of 2e-12).
    """
    i, m = np.asarray(i, dtype=float), np.asarray(m, dtype=float)
    with np.errstate(divide="ignore"):
        log_fraction = np.where(2 * i > m, np.log1p(-(m - i) / m), np.log(i / m))
    return c * log_fraction + _log_gap(i, c)


@renamed_arguments(p="exponent")
def scale_free_constants(m: int, exponent: float) -> np.ndarray:
    """The scale-free constants ω*_1, ..., ω*_m of heSRPT.

    ω*_1 = 0 and ω*_k = 1/((k/(k-1))^(1/(1-p)) - 1) for k > 1 (Berg et al., *heSRPT*, Theorem 5 and
    Theorem 8). Under heSRPT, ω*_k = (θ_1 + ... + θ_(k-1))/θ_k for the k-th largest job (Definition 1).
    Evaluated as e^(-L)/(-expm1(-L)) with L = -c log1p(-1/k), that is 1/expm1(L) without its
    overflow: for p -> 1 a subnormal ω*_k, such as 8.1e-320 at k = 2, c = 1060, is returned, not 0.
    Relative error below 3ε(1 + ``|log ω*_k|``), ε = 2.2e-16, the rounding of L (1e-15 for ω*_k of
    order one, 1e-13 near 1e-300; tested against mpmath).

    Parameters
    ----------
    m : int
        Number of jobs, m >= 1.
    exponent : float
        p, the speed-up exponent, 0 < p < 1.

    Returns
    -------
    numpy.ndarray, shape (m,)
        ω*_k at index k - 1; increasing in k (Lemma 3).

    Raises
    ------
    InvalidParameterError
        If m is not a positive integer or p is not in (0, 1).
    StateSpaceTooLargeError
        If the m shares would not fit in memory (48 bytes a job).

    Examples
    --------
    >>> scale_free_constants(3, 0.5)
    array([0.        , 0.33333333, 0.8       ])
    """
    m, p = _jobs(m), unit_fraction("exponent", exponent)
    minus_l = np.log1p(-1.0 / np.arange(2, m + 1, dtype=float)) / (1.0 - p)      # -L < 0
    return np.concatenate([[0.0], np.exp(minus_l) / -np.expm1(minus_l)])


@renamed_arguments(p="exponent")
def hesrpt_allocation(m: int, exponent: float) -> np.ndarray:
    """heSRPT's fractions of the system θ*_1, ..., θ*_m when m jobs remain.

    θ*_i = (i/m)^(1/(1-p)) - ((i-1)/m)^(1/(1-p)) (Berg et al., *heSRPT*, Theorem 7), where job 1 is
    the *largest* remaining job and job m the smallest; the allocation depends only on the rank of
    the remaining sizes (size invariance, Theorem 6). Evaluated in log space: the relative error
    of each entry is below 2ε(1 + ``|log θ*_i|``), ε = 2.2e-16, the rounding of its exponent (1e-15
    for the large shares, 3e-13 near 1e-300; tested against mpmath up to c = 1/(1-p) = 1e7);
    entries below 2.2e-308 are subnormal (fewer digits) and those below 5e-324 underflow to 0.

    Parameters
    ----------
    m : int
        Number of remaining jobs, m >= 1.
    exponent : float
        p, the speed-up exponent of s(k) = k^p, 0 < p < 1.

    Returns
    -------
    numpy.ndarray, shape (m,)
        θ*_i at index i - 1: positive, increasing, summing to one.

    Raises
    ------
    InvalidParameterError
        If m is not a positive integer or p is not in (0, 1).
    StateSpaceTooLargeError
        If the m shares would not fit in memory (48 bytes a job).

    Examples
    --------
    The Section 1 example: two equal jobs and s(k) = k^0.5 get 25% and 75% of the servers.

    >>> hesrpt_allocation(2, 0.5)
    array([0.25, 0.75])
    """
    m, p = _jobs(m), unit_fraction("exponent", exponent)
    c = 1.0 / (1.0 - p)
    return np.exp(log_hesrpt_share(np.arange(1, m + 1), m, c))


@dataclass(frozen=True, repr=False)
class HesrptFlowTime:
    """Flow times of heSRPT for one set of jobs (Theorem 8).

    Attributes
    ----------
    total : float
        Total flow time T* (time units of the job sizes, at unit speed per server); ``inf`` only
        when T* exceeds the largest double (1.8e308), as each field is rounded on its own.
    mean : float
        T*/M.
    completion_times : numpy.ndarray
        Completion time of each job, in the order of the input sizes.

    Examples
    --------
    >>> from analytic.hesrpt import hesrpt_flow_time
    >>> round(hesrpt_flow_time([1.0, 1.0], 0.5, 10).total, 12)   # Theorem 8
    0.863950323522
    """

    total: float
    mean: float
    completion_times: np.ndarray

    def __repr__(self) -> str:
        times = np.array2string(self.completion_times, precision=6, threshold=8, edgeitems=3, separator=", ")
        return (f"HesrptFlowTime(jobs={self.completion_times.size}, total={self.total:.12g}, mean={self.mean:.12g}, "
                f"completion_times={times})")


@renamed_arguments(p="exponent")
def hesrpt_flow_time(sizes: object, exponent: float, servers: float) -> HesrptFlowTime:
    """Total flow time of heSRPT and each job's completion time, in O(M log M).

    T* = N^-p Σ_k x_k (k^c - (k-1)^c)^(1-p) with c = 1/(1-p) and x_1 >= ... >= x_M (Berg et al.,
    *heSRPT*, Theorem 8 with Lemma 5). Completion times (not in the paper) follow from the same
    allocations: jobs finish smallest first, and job k (k-th largest) finishes at
    T_k = k^q D_k + Σ_(j>k) D_j (j^q - (j-1)^q), with q = p/(1-p) and D_j = x_j N^-p (j^c - (j-1)^c)^-p,
    a sum of positive terms (derived from Σ_(j>=k) d_j s(θ_k(j) N) = x_k with θ from Theorem 7).
    Each term is a size's mantissa times a factor of at most k times a power of two, summed at a
    common scale (``_suffix_sums``), so no sum overflows and what underflows is negligible;
    each field is then the double nearest its computed value: finite whenever it lies in the double
    range (subnormal results carry fewer digits), ``inf`` only beyond it.
    Accuracy: relative error below 1e-13 against mpmath at 50 digits (tests), from sizes of 5e-324
    to 1.8e308 and N from 5e-324 to 1.8e308; ties in the sizes are allowed: of equal sizes, the one
    listed first finishes later (the tie rule of :mod:`analytic.hesrpt`).

    Parameters
    ----------
    sizes : sequence of float
        Job sizes x_i > 0, any order (time a job needs on one server).
    exponent : float
        p, the speed-up exponent of s(k) = k^p, 0 < p < 1.
    servers : float
        Number of servers N > 0 (need not be an integer: the system is one divisible resource).

    Returns
    -------
    HesrptFlowTime
        ``total``, ``mean`` and ``completion_times`` (input order).

    Raises
    ------
    InvalidParameterError
        For non-positive or non-finite sizes or servers, or p outside (0, 1).

    Examples
    --------
    >>> result = hesrpt_flow_time([1.0, 1.0], exponent=0.5, servers=10)
    >>> round(result.total, 12), result.completion_times.round(6)
    (0.863950323522, array([0.498802, 0.365148]))
    """
    x = check_sizes(sizes)
    p = unit_fraction("exponent", exponent)
    n = positive("servers", servers)
    c, q = 1.0 / (1.0 - p), p / (1.0 - p)
    order = np.argsort(-x, kind="stable")
    mantissa, binade = np.frexp(x[order])                        # exact: x = mantissa 2^binade
    k = np.arange(1, x.size + 1)
    gap_c, gap_q = _log_gap(k, c), _log_gap(k, q)
    speed, shift = scaled_power(n, p)                                  # N^p = speed 2^shift
    # T* = N^-p Σ x_k (k^c - (k-1)^c)^(1-p) with (k^c - (k-1)^c)^(1-p) = k e^((1-p) gap_c) in [1, k];
    # k^q D_k = x_k N^-p e^(-p gap_c) (factor in [1, k]) and D_j (j^q - (j-1)^q) = x_j N^-p e^(gap_q - p gap_c)
    # (factor <= 1, tiny for p -> 0): since cp = q, the powers of k cancel exactly.
    top = int(binade[0])
    terms = np.ldexp(mantissa * k * np.exp((1.0 - p) * gap_c), binade - top)   # terms far below the largest: 0
    total = float(np.sum(terms)) / speed
    tail, scale = _suffix_sums(mantissa * np.exp(gap_q - p * gap_c), binade)
    own = np.ldexp(mantissa * np.exp(-p * gap_c), binade - scale)
    completion = np.empty_like(x)
    with np.errstate(over="ignore"):                              # a result beyond 1.8e308 is inf
        completion[order] = np.ldexp((own + tail) / speed, scale - shift)
        return HesrptFlowTime(total=float(np.ldexp(total, top - shift)), mean=float(np.ldexp(total / x.size, top - shift)),
                              completion_times=completion)


def scaled_power(n: float, p: float) -> tuple[float, int]:
    """``n^p`` as ``speed 2^shift`` with ``speed`` in [1, 4): exact in the exponent, so that neither a
    subnormal ``n^p`` nor the rounding of ``p log2 n`` (up to 1e-13 relative) costs digits. With
    ``n = m 2^e``, m in [1, 2), ``speed = m^p 2^f`` for ``p e = shift + f`` (exact rationals), so a power
    of two or an exact power such as 100^0.5 stays exact."""
    mantissa, exponent = math.frexp(n)
    power = Fraction(p) * (exponent - 1)
    whole = math.floor(power)
    return (2 * mantissa) ** p * 2.0 ** float(power - whole), whole


#: Widest spread of binary exponents summed at one scale. A sum of terms of sizes x_j <= x_k enters
#: a completion time at least x_k >= 2^-(_SPAN + 1) of its block's scale, and the terms that underflow
#: there are below 2^-1074 of it: what is lost is below 2^-170 of that completion time.
_SPAN = 900


def _suffix_sums(factors: np.ndarray, exponents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``Σ_(j>k) factors_j 2^exponents_j`` for every k, as ``(sums, scale)`` meaning ``sums 2^scale``.

    ``exponents`` is non-increasing (sizes in decreasing order) and may span the whole double range,
    2100 binades, more than one scale holds: the sums are formed block by block from the end, each
    block spanning at most :data:`_SPAN` binades and summed at the scale of its largest exponent,
    the sum of the later blocks carried over (0 when more than 1074 binades below, see :data:`_SPAN`).
    """
    size = exponents.size
    sums, scale = np.empty(size), np.empty(size, dtype=int)
    carry, carried_scale, end = 0.0, 0, size
    while end > 0:
        start = int(np.searchsorted(-exponents, -(exponents[end - 1] + _SPAN), side="left"))
        top = int(exponents[start])
        values = np.ldexp(factors[start:end], exponents[start:end] - top)
        sums[start:end] = np.cumsum(np.concatenate([[math.ldexp(carry, carried_scale - top)], values[:0:-1]]))[::-1]
        scale[start:end] = top
        carry, carried_scale, end = sums[start] + values[0], top, start
    return sums, scale


@renamed_arguments(p="exponent")
def helrpt_allocation(sizes: object, exponent: float) -> np.ndarray:
    """heLRPT's constant fractions γ*_i = x_i^(1/p) / Σ_j x_j^(1/p), minimizing the makespan.

    Berg et al., *heSRPT*, Theorem 2. Every job then finishes at the same time (Theorem 1). Computed
    with sizes scaled by their maximum, so x^(1/p) cannot overflow.

    Parameters
    ----------
    sizes : sequence of float
        Job sizes x_i > 0.
    exponent : float
        p, the speed-up exponent of s(k) = k^p, 0 < p < 1.

    Returns
    -------
    numpy.ndarray
        γ*_i in the order of ``sizes``, summing to one.

    Raises
    ------
    InvalidParameterError
        For invalid sizes or p outside (0, 1).

    Examples
    --------
    >>> helrpt_allocation([1.0, 2.0], exponent=0.5)
    array([0.2, 0.8])
    """
    x = check_sizes(sizes)
    p = unit_fraction("exponent", exponent)
    weights = (x / x.max()) ** (1.0 / p)
    return weights / weights.sum()


@renamed_arguments(p="exponent")
def optimal_makespan(sizes: object, exponent: float, servers: float) -> float:
    """The optimal makespan ||x||_(1/p) / N^p with N servers (heLRPT).

    Berg et al., *heSRPT*, Theorem 2, with the dimension restored: job i holds γ_i N servers, so it
    runs at rate (γ_i N)^p and finishes at x_i/(γ_i N)^p = (Σ_j x_j^(1/p))^p / N^p. The paper's
    ||X||_(1/p) is this value at N = 1. Relative accuracy ~1e-15.

    Parameters
    ----------
    sizes : sequence of float
        Job sizes x_i > 0.
    exponent : float
        p, the speed-up exponent, 0 < p < 1.
    servers : float
        Number of servers N > 0.

    Returns
    -------
    float
        The minimal completion time of the last job.

    Raises
    ------
    InvalidParameterError
        For invalid sizes, p or servers.

    Examples
    --------
    >>> optimal_makespan([3.0, 4.0], exponent=0.5, servers=1.0)
    5.0
    >>> optimal_makespan([3.0, 4.0], exponent=0.5, servers=100.0)
    0.5
    """
    x = check_sizes(sizes)
    p = unit_fraction("exponent", exponent)
    n = positive("servers", servers)
    top = x.max()
    mantissa, binade = math.frexp(top)
    speed, shift = scaled_power(n, p)
    with np.errstate(over="ignore"):                              # a makespan beyond 1.8e308 is inf
        return float(np.ldexp(mantissa * float(np.sum((x / top) ** (1.0 / p))) ** p / speed, binade - shift))


@dataclass(frozen=True)
class ClosedFormCheck:
    """Residuals of heSRPT's closed forms, simplified by sympy with p symbolic (all should be 0).

    Attributes
    ----------
    m : int
        Number of jobs checked.
    sum_minus_one : sympy.Expr
        Σ_i θ*_i - 1 (Theorem 7 allocates the whole system).
    first_order_conditions : tuple of sympy.Expr
        k s'(1 + ω_k) - (k-1) s'(ω_k) for k = 2..m, s(x) = x^p (Theorem 5's first-order conditions).
    scale_free_ratios : tuple of sympy.Expr
        (θ_1 + ... + θ_(k-1))/θ_k - ω_k for k = 2..m (Definition 1 holds for Theorem 7's θ).
    coefficients : tuple of sympy.Expr
        A_k^p [k(1+ω_k)^p - (k-1) ω_k^p] - A_k with A_k = k^c - (k-1)^c > 0, for k = 2..m (Lemma 5:
        Theorem 8's coefficient equals A_k^(1-p)).

    Examples
    --------
    >>> from analytic.hesrpt import symbolic_check
    >>> symbolic_check(2).holds
    True
    """

    m: int
    sum_minus_one: sympy.Expr
    first_order_conditions: tuple
    scale_free_ratios: tuple
    coefficients: tuple

    @property
    def holds(self) -> bool:
        """Whether every residual simplified to exactly zero."""
        residuals = (self.sum_minus_one, *self.first_order_conditions, *self.scale_free_ratios, *self.coefficients)
        return all(r == 0 for r in residuals)


def symbolic_check(m: int) -> ClosedFormCheck:
    """Verify Theorem 7's allocation and Theorem 5's first-order conditions symbolically in p.

    With p a positive symbol (0 < p < 1 enters through c = 1/(1-p) > 0) and m fixed, sympy simplifies
    the residuals of: Σθ* = 1, the first-order conditions k s'(1+ω_k) = (k-1) s'(ω_k) at the
    scale-free constants, Definition 1's ratio, and Lemma 5's rewriting of Theorem 8's coefficient
    (Berg et al., *heSRPT*, Theorems 5, 7, 8 and Lemma 5).

    Parameters
    ----------
    m : int
        Number of jobs, 1 <= m <= 12 (the expressions grow with m).

    Returns
    -------
    ClosedFormCheck
        The simplified residuals; ``holds`` is True when all are zero.

    Raises
    ------
    InvalidParameterError
        If m is not an integer in [1, 12].

    Examples
    --------
    >>> symbolic_check(3).holds
    True
    """
    import sympy

    m = integer("m", m, meaning=" (the number of remaining jobs)")
    if m > 12:
        raise InvalidParameterError("m", m, "must be at most 12 for the symbolic check")
    q = sympy.Symbol("q", positive=True)  # q = p/(1-p) > 0 covers exactly 0 < p < 1
    p, c = q / (1 + q), 1 + q
    theta = [(sympy.Integer(i) / m) ** c - (sympy.Integer(i - 1) / m) ** c for i in range(1, m + 1)]
    omega = [sympy.Integer(0)] + [1 / ((sympy.Integer(k) / (k - 1)) ** c - 1) for k in range(2, m + 1)]

    def simplify(expression: sympy.Expr) -> sympy.Expr:
        return sympy.simplify(sympy.powsimp(sympy.expand_power_base(expression, force=True), force=True))

    def derivative(v: sympy.Expr) -> sympy.Expr:
        return p * v ** (p - 1)

    conditions = tuple(simplify(k * derivative(1 + omega[k - 1]) - (k - 1) * derivative(omega[k - 1]))
                       for k in range(2, m + 1))
    ratios = tuple(simplify(sum(theta[:k - 1]) / theta[k - 1] - omega[k - 1]) for k in range(2, m + 1))
    # Lemma 5 multiplied by A^p > 0, using 1 + ω_k = k^c/A and ω_k = (k-1)^c/A (``ratios`` proves the latter).
    powers = [sympy.Integer(k) ** c for k in range(m + 1)]
    coefficients = tuple(simplify(k * powers[k] ** p - (k - 1) * powers[k - 1] ** p - (powers[k] - powers[k - 1]))
                         for k in range(2, m + 1))
    return ClosedFormCheck(m=m, sum_minus_one=simplify(sum(theta) - 1), first_order_conditions=conditions,
                         scale_free_ratios=ratios, coefficients=coefficients)
