"""The kernels behind :mod:`analytic.erlang`: Erlang's loss formula through the incomplete gamma function.

:func:`erlang_parts` evaluates E_s(a) = a^s e^{-a} / Γ(s+1, a) in double precision by region
(Loader's saddle-point form of the Poisson term in double-double, Temme's uniform expansion, Legendre's
continued fraction, the power series of the lower incomplete gamma function);
:func:`erlang_b_exact` to any number of digits by exact sums in integer fixed point. The methods and
their measured accuracy are described in the docstring of :mod:`analytic.erlang`.

scipy.special is not imported and mpmath only by the high precision: ``import scipy.special`` alone
costs 0.2 s of CPU, more than an Erlang command's whole run (``benchmarks/startup.py``), so
:func:`gammaln` is scipy's, ported, erfcx is :func:`analytic._erfcx.erfcx` and ζ(k) a table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from analytic._double_double import dd_product, dd_quotient, two_product, two_sum
from analytic._erfcx import erfcx
from analytic.errors import ConvergenceError

if TYPE_CHECKING:
    import mpmath

#: Temme's expansion is used for s >= _TEMME_SERVERS and load/servers in _TEMME_RATIO.
_TEMME_SERVERS = 20.0
_TEMME_RATIO = (0.35, 2.0)
#: Terms in 1/s (k < _TEMME_TERMS) and Taylor terms in η (n < _TEMME_ORDER) of Temme's sum.
_TEMME_TERMS = 13
_TEMME_ORDER = 30
#: (smallest s, terms used): the first omitted term |c_K(η)| s^{-K} stays below 3e-19 for |η| < 1.
_TEMME_TIERS = ((1e6, 3), (1e4, 4), (1e3, 5), (200.0, 7), (_TEMME_SERVERS, _TEMME_TERMS))
#: bd0 is refined to double-double between these values (see deviance).
_DOUBLE_DEVIANCE = (3.0, 750.0)
#: Iteration cap of the series and the continued fraction (they need at most about 110).
_MAX_TERMS = 500

_LN2_HI = 6.93147180369123816490e-01  # fdlibm's split of log 2: _LN2_HI has 32 trailing zero bits
_LN2_LO = 1.90821492927058770002e-10
_SQRT_HALF = math.sqrt(0.5)
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


# ---------------------------------------------------------------------------------------------
# Double-double logarithm and Loader's deviance
# ---------------------------------------------------------------------------------------------


def _dd_log(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log x in double-double for positive finite x (relative error about 1e-19).

    x = m 2^e with m in [√½, √2); log m = 2 atanh(w), w = (m-1)/(m+1), |w| <= 0.172: the leading
    2w is carried in double-double, the rest of the atanh series (at most 1% of it) in double.
    """
    m, e = np.frexp(x)
    low = m < _SQRT_HALF
    m = np.where(low, 2 * m, m)
    e = (e - low).astype(float)
    num = m - 1.0  # exact (Sterbenz)
    den_hi, den_lo = two_sum(m, np.ones_like(m))
    w = num / den_hi
    p_hi, p_lo = two_product(w, den_hi)
    w_lo = ((num - p_hi) - p_lo - w * den_lo) / den_hi
    tail = w * w * _atanh_tail(w * w, last=11)  # sum_{j>=1} w^{2j} / (2j+1), w^2 <= 0.0295: 0.0295^11 < 2e-17
    hi, lo = two_sum(e * _LN2_HI, 2 * w)
    return two_sum(hi, lo + e * _LN2_LO + 2 * w_lo + 2 * w * tail)


def deviance(s: np.ndarray, a: np.ndarray, exact: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """bd0(s, a) = s log(s/a) + a - s >= 0 for s > 0 and a > 0, as hi + lo.

    Loader, *Fast and accurate computation of binomial probabilities* (2000): near a = s,
    bd0 = (s-a) v + 2 s sum_{j>=1} v^{2j+1}/(2j+1) with v = (s-a)/(s+a), else
    s log(s/a) + a - s. In double (lo = 0) when ``exact`` is False, and where bd0 <= 3 near a = s
    (absolute error below 1e-15) or bd0 >= 750 (then E < 1e-300 and only log E matters, to
    relative precision); in double-double (:func:`_deviance_dd`) elsewhere.
    """
    hi = np.empty_like(s)
    near = np.abs(s - a) <= 0.25 * (s + a)
    x, m = s[near], a[near]
    v = (x - m) / (x + m)
    hi[near] = (x - m) * v + 2 * x * v**3 * _atanh_tail(v * v)
    x, m = s[~near], a[~near]
    with np.errstate(over="ignore", under="ignore", divide="ignore"):
        ratio = x / m
        log_ratio = np.where((ratio > 0) & (ratio < np.inf), np.log(ratio), np.log(x) - np.log(m))
    hi[~near] = x * log_ratio + (m - x)
    lo = np.zeros_like(s)
    if exact:
        refine = (hi < _DOUBLE_DEVIANCE[1]) & (~near | (hi > _DOUBLE_DEVIANCE[0]))
        if refine.any():
            hi[refine], lo[refine] = _deviance_dd(s[refine], a[refine])
    return hi, lo


def _atanh_tail(v2: np.ndarray, first: int = 1, last: int = 14) -> np.ndarray:
    """sum_{first<=j<=last} v^{2(j-first)} / (2j+1): to 1e-17 relative for v^2 <= 1/16 with last = 14."""
    total = np.zeros_like(v2)
    for j in range(last, first - 1, -1):
        total = total * v2 + 1.0 / (2 * j + 1)
    return total


def _deviance_dd(s: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """bd0(s, a) in double-double (relative error about 1e-18).

    Near a = s the terms (s-a) v and 2 s v^3/3 of Loader's series are carried in double-double,
    the rest (below 0.4% of bd0) in double; elsewhere bd0 = s (log s - log a) + (a - s) with
    double-double logarithms.
    """
    hi = np.empty_like(s)
    lo = np.empty_like(s)
    near = np.abs(s - a) <= 0.25 * (s + a)
    if near.any():
        x, m = s[near], a[near]
        d = x - m  # exact: m lies within [0.6 x, 1.67 x]
        zero = np.zeros_like(d)
        total = two_sum(x, m)
        lead = dd_quotient(*two_product(d, d), *total)  # (s-a)^2/(s+a) = (s-a) v
        v = dd_quotient(d, zero, *total)
        v3 = dd_product(*dd_product(*v, *v), *v)
        cube = dd_quotient(*dd_product(*v3, 2 * x, zero), np.full_like(x, 3.0), zero)
        h, low = two_sum(lead[0], cube[0])
        rest = 2 * x * v3[0] * v[0] * v[0] * _atanh_tail(v[0] * v[0], first=2)
        hi[near], lo[near] = two_sum(h, low + lead[1] + cube[1] + rest)
    far = ~near
    if far.any():
        x, m = s[far], a[far]
        ls_hi, ls_lo = _dd_log(x)
        la_hi, la_lo = _dd_log(m)
        l_hi, l_lo = two_sum(ls_hi, -la_hi)
        l_lo = l_lo + (ls_lo - la_lo)
        p_hi, p_lo = two_product(x, l_hi)
        d_hi, d_lo = two_sum(m, -x)
        h, low = two_sum(p_hi, d_hi)
        hi[far], lo[far] = two_sum(h, low + p_lo + x * l_lo + d_lo)
    return hi, lo


# ---------------------------------------------------------------------------------------------
# log Γ without scipy
# ---------------------------------------------------------------------------------------------

#: Cephes' log Γ(2 + t) = t B(t) / C(t) on 0 <= t < 1 (C monic, its leading 1 omitted) and the
#: coefficients of its Stirling series for x >= 13 (A), from Moshier's gamma.c.
_LGAM_B = (-1.37825152569120859100e3, -3.88016315134637840924e4, -3.31612992738871184744e5,
           -1.16237097492762307383e6, -1.72173700820839662146e6, -8.53555664245765465627e5)
_LGAM_C = (-3.51815701436523470549e2, -1.70642106651881159223e4, -2.20528590553854454839e5,
           -1.13933444367982507207e6, -2.53252307177582951285e6, -2.01889141433532773231e6)
_LGAM_A = (8.11614167470508450300e-4, -5.95061904284301438324e-4, 7.93650340457716943945e-4,
           -2.77777777730099687205e-3, 8.33333333333331927722e-2)
_LGAM_LS2PI = 0.91893853320467274178


def _libm_log(x: np.ndarray) -> np.ndarray:
    """log by the C library, element by element (numpy's own vectorized log differs in the last bit at a few points)."""
    return np.fromiter(map(math.log, x.ravel().tolist()), float, x.size).reshape(x.shape)


def gammaln(x: np.ndarray) -> np.ndarray:
    """log Γ(x) for x > 0: ``scipy.special.gammaln`` bit for bit, without importing scipy.special.

    Moshier's Cephes ``lgam`` (S. L. Moshier, *Methods and Programs for Mathematical Functions*,
    1989; ``gamma.c``), which scipy evaluates: for x < 13, x shifted into [2, 3) by the recurrence
    Γ(x+1) = x Γ(x) and a rational approximation there; beyond, Stirling's series with three or
    five terms (none past 1e8). Checked bit for bit against scipy in ``tests/test_incomplete_gamma.py``.
    """
    x = np.asarray(x, float)
    out = np.empty_like(x)
    large = x >= 13.0
    y = x[large]
    q = (y - 0.5) * _libm_log(y) - y + _LGAM_LS2PI
    p = 1.0 / (y * y)
    series = _LGAM_A[0]
    for c in _LGAM_A[1:]:
        series = series * p + c
    short = ((7.9365079365079365079365e-4 * p - 2.7777777777777777777778e-3) * p + 0.0833333333333333333333) / y
    out[large] = np.where(y > 1e8, q, q + np.where(y >= 1000.0, short, series / y))
    y = x[~large]
    z, u, shift = np.ones_like(y), y.copy(), np.zeros_like(y)
    while (above := u >= 3.0).any():      # log Γ(x) = log((x-1)...(x-k)) + log Γ(x-k)
        shift[above] -= 1.0
        u[above] = y[above] + shift[above]
        z[above] *= u[above]
    while (below := u < 2.0).any():       # log Γ(x) = log Γ(x+k) - log(x (x+1) ... (x+k-1))
        z[below] /= u[below]
        shift[below] += 1.0
        u[below] = y[below] + shift[below]
    t = y + (shift - 2.0)
    numerator, denominator = _LGAM_B[0], t + _LGAM_C[0]
    for b in _LGAM_B[1:]:
        numerator = numerator * t + b
    for c in _LGAM_C[1:]:
        denominator = denominator * t + c
    out[~large] = np.where(u == 2.0, _libm_log(z), _libm_log(z) + t * numerator / denominator)
    return out


# ---------------------------------------------------------------------------------------------
# Exact rational coefficients: Stirling series and Temme's c_k(η)
# ---------------------------------------------------------------------------------------------


def _bernoulli(count: int) -> list[Fraction]:
    """B_0, ..., B_{count-1} (Akiyama–Tanigawa algorithm, B_1 = +1/2)."""
    row: list[Fraction] = []
    numbers = []
    for m in range(count):
        row.append(Fraction(1, m + 1))
        for j in range(m, 0, -1):
            row[j - 1] = j * (row[j - 1] - row[j])
        numbers.append(row[0])
    return numbers


#: stirlerr(s) = log Γ(s+1) - (s+½) log s + s - ½ log 2π ~ sum_m B_2m / (2m (2m-1) s^(2m-1)).
_STIRLING_SERIES = tuple(float(b / (2 * m * (2 * m - 1))) for m, b in enumerate(_bernoulli(18)[2::2], start=1))


def stirlerr(s: np.ndarray) -> np.ndarray:
    """log Γ(s+1) - (s+½) log s + s - ½ log 2π for s >= 1 (absolute error below 3e-15)."""
    out = np.empty_like(s)
    large = s >= 10
    x = s[large]
    inv2 = (1.0 / x) ** 2
    acc = np.zeros_like(x)
    for c in reversed(_STIRLING_SERIES):  # 8 terms: next one is below 2e-18 for s >= 10
        acc = acc * inv2 + c
    out[large] = acc / x
    x = s[~large]
    out[~large] = gammaln(x + 1) - (x + 0.5) * np.log(x) + x - _LOG_SQRT_2PI
    return out


@cache
def temme_coefficients(terms: int = _TEMME_TERMS, order: int = _TEMME_ORDER) -> np.ndarray:
    """Taylor coefficients d[k, n] of Temme's c_k(η) = sum_n d[k, n] η^n, exact then rounded.

    With λ = a/s and ½η² = λ - 1 - log λ (DLMF 8.12.1): μ = λ - 1 = sum_j m_j η^j solves
    μ μ' = η (1 + μ); c_0 = 1/μ - 1/η and c_k = (1/η) c_{k-1}' + (-1)^k g_k / μ (DLMF 8.12.7-8.12.9),
    g_k the Stirling coefficients, Γ(z) ~ √(2π/z) (z/e)^z sum_k g_k z^{-k}. Each step loses two
    orders, so the series start 2·terms longer. The poles at η = 0 cancel exactly (asserted).
    """
    size = order + 2 * terms + 2
    mu = [Fraction(0), Fraction(1)] + [Fraction(0)] * size
    for n in range(2, size + 1):  # coefficient of η^n in μ μ' = η + η μ gives (n+1) m_n = ...
        mu[n] = (mu[n - 1] - sum(mu[i] * (n + 1 - i) * mu[n + 1 - i] for i in range(2, n))) / (n + 1)
    recip = [Fraction(1)] + [Fraction(0)] * size  # η/μ = 1 / (1 + m_2 η + m_3 η^2 + ...)
    for n in range(1, size + 1):
        recip[n] = -sum(mu[j + 1] * recip[n - j] for j in range(1, n + 1))
    # g_k from log sum g_k x^k = sum_m B_2m/(2m(2m-1)) x^(2m-1) (exponentiated series)
    bern = _bernoulli(terms + 3)
    log_series = [Fraction(0)] * (terms + 1)
    for m in range(1, terms // 2 + 2):
        if 2 * m - 1 <= terms:
            log_series[2 * m - 1] = bern[2 * m] / (2 * m * (2 * m - 1))
    g = [Fraction(1)] + [Fraction(0)] * terms
    for n in range(1, terms + 1):
        g[n] = sum(j * log_series[j] * g[n - j] for j in range(1, n + 1)) / n
    c = recip[1:size + 1]  # c_0 = 1/μ - 1/η
    table = [c[:order]]
    for k in range(1, terms):
        sign = (-1) ** k
        assert c[1] + sign * g[k] == 0, "Temme coefficients: pole at η = 0 does not cancel"
        c = [(j + 2) * c[j + 2] + sign * g[k] * recip[j + 1] for j in range(len(c) - 2)]
        table.append(c[:order])
    return np.array([[float(x) for x in row] for row in table])


def _truncated(table: np.ndarray, eta_max: float, inv_servers: float) -> np.ndarray:
    """The columns (powers of η) of the table that matter: the dropped ones sum to below 1e-19."""
    weights = inv_servers ** np.arange(table.shape[0])[:, None] * eta_max ** np.arange(table.shape[1])
    tail = np.cumsum((np.abs(table) * weights).max(axis=0)[::-1])[::-1]
    needed = np.flatnonzero(tail >= 1e-19)
    return table[:, :needed[-1] + 1]


def _temme_sum(eta: np.ndarray, s: np.ndarray) -> np.ndarray:
    """sum_{k<K} c_k(η) s^{-k}, K from _TEMME_TIERS: Horner in η for all c_k at once, then in 1/s."""
    coefficients = temme_coefficients()
    out = np.empty_like(s)
    pending = np.ones(s.shape, dtype=bool)
    for lowest, terms in _TEMME_TIERS:
        tier = pending & (s >= lowest)
        pending &= ~tier
        e, inv = eta[tier], 1.0 / s[tier]
        table = _truncated(coefficients[:terms], float(np.abs(e).max(initial=0.0)), 1.0 / lowest)
        by_term = np.repeat(table[:, -1:], e.size, axis=1)  # row k: c_k(η) for every element
        for n in range(table.shape[1] - 2, -1, -1):
            by_term *= e
            by_term += table[:, n:n + 1]
        total = by_term[-1]
        for k in range(terms - 2, -1, -1):
            total = total * inv + by_term[k]
        out[tier] = total
    return out


# ---------------------------------------------------------------------------------------------
# The evaluation regions. Each returns, for its subset, either x = 1/E - 1 (when a > s, E is not
# small) or the pair (log p as double-double, Q(s+1, a)) with E = p / Q(s+1, a).
# ---------------------------------------------------------------------------------------------


def log_poisson(s: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log(a^s e^{-a} / Γ(s+1)) as double-double (s > 0, a > 0)."""
    hi = np.empty_like(s)
    lo = np.zeros_like(s)
    small = s < 1  # no cancellation: every term is O(1) or O(a) with a <= 3 or a <= s
    x, m = s[small], a[small]
    hi[small] = x * np.log(m) - m - gammaln(1 + x)
    big = ~small
    if big.any():
        x = s[big]
        hi[big], lo[big] = _saddle_point(x, *deviance(x, a[big]), stirlerr(x))
    return hi, lo


def _saddle_point(s: np.ndarray, dev_hi: np.ndarray, dev_lo: np.ndarray,
                  stirling: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log p = -bd0 - ½ log(2πs) - stirlerr(s) as double-double (Loader's saddle-point form)."""
    hi, lo = two_sum(-dev_hi, -(0.5 * np.log(s) + _LOG_SQRT_2PI + stirling))
    return hi, lo - dev_lo


def _until_converged(step, arrays: tuple[np.ndarray, ...], what: str) -> np.ndarray:
    """Iterate ``arrays, done = step(n, *arrays)`` for n = 1, 2, ... until every element is done.

    Returns arrays[0] of each element once it is done. Elements that are done keep iterating
    (harmlessly) until half of the active ones are, then the arrays shrink to the rest.
    """
    out = np.empty_like(arrays[0])
    index = np.arange(out.size)
    finished = np.zeros(out.size, dtype=bool)
    for n in range(1, _MAX_TERMS):
        arrays, done = step(n, *arrays)
        finished |= done
        count = np.count_nonzero(finished)
        if count and 2 * count >= index.size:
            out[index[finished]] = arrays[0][finished]
            keep = ~finished
            index, finished, arrays = index[keep], finished[keep], tuple(x[keep] for x in arrays)
            if index.size == 0:
                return out
    raise ConvergenceError(f"Erlang B {what} did not converge in {_MAX_TERMS} terms")


def _lower_gamma(s: np.ndarray, a: np.ndarray, poisson: np.ndarray) -> np.ndarray:
    """P(s+1, a) = p sum_{n>=1} a^n / ((s+1)(s+2)...(s+n)) for a <= s, to absolute 1e-17.

    At most about 60 terms; fewer where the Poisson term p is small (only p T matters, against
    Q(s+1, a) = 1 - p T >= ½).
    """

    def step(n, total, term, s, a):
        term = term * (a / (s + n))
        total = total + term
        return (total, term, s, a), term <= 1e-17 * np.minimum(total, 1.0)

    return _until_converged(step, (np.zeros_like(s), poisson, s, a), "power series")


def _continued_fraction(s: np.ndarray, a: np.ndarray) -> np.ndarray:
    """1/E - 1 from Legendre's continued fraction for Γ(s+1, a) (DLMF 8.9.2, even part).

    Γ(s+1, a) e^a / a^{s+1} = 1/(a - s + s/K_1), K_j = a - s + 2j + (j+1)(s-j)/K_{j+1};
    so 1/E - 1 = s (1 - 1/K_1) / (a - s + s/K_1). K_1 by the modified Lentz algorithm.
    """
    gap = a - s

    def step(n, value, c, d, s, gap):
        j = n + 1
        numerator = j * (s - j + 1)
        b = gap + 2 * j
        d = b + numerator * d
        d[d == 0] = 1e-300
        c = b + numerator / c
        c[c == 0] = 1e-300
        d = 1.0 / d
        delta = c * d
        return (value * delta, c, d, s, gap), np.abs(delta - 1) <= 2.3e-16  # one unit in the last place of 1

    start = gap + 2.0
    inv = 1.0 / _until_converged(step, (start, start.copy(), np.zeros_like(s), s, gap), "continued fraction")
    return s * (1 - inv) / (gap + s * inv)


@dataclass(frozen=True)
class Parts:
    """E_s(a) in the two well-conditioned forms, per element (see erlang_parts)."""

    ratio: np.ndarray      # bool: E = 1 / (1 + x); else E = exp(log_p) / q
    x: np.ndarray          # 1/E - 1 where ratio
    log_p_hi: np.ndarray   # log p (double-double) where not ratio
    log_p_lo: np.ndarray
    q: np.ndarray          # Q(s+1, a) where not ratio

    def value(self) -> np.ndarray:
        with np.errstate(under="ignore"):
            by_p = np.exp(self.log_p_hi) * (1 + self.log_p_lo) / self.q
        return np.where(self.ratio, 1.0 / (1.0 + self.x), by_p)

    def log(self) -> np.ndarray:
        return np.where(self.ratio, -np.log1p(self.x), self.log_p_hi + (self.log_p_lo - np.log(self.q)))

    def complement(self) -> np.ndarray:
        """1 - E without cancellation."""
        return np.where(self.ratio, self.x / (1.0 + self.x), 1.0 - self.value())


def erlang_parts(s: np.ndarray, a: np.ndarray) -> Parts:
    """Dispatch every (s, a) to its region; s, a are validated 1-d float arrays."""
    n = s.size
    parts = Parts(np.zeros(n, dtype=bool), np.zeros(n), np.zeros(n), np.zeros(n), np.ones(n))
    trivial = (s == 0) | (a == 0)  # E_0(a) = 1; E_s(0) = 0 for s > 0
    parts.ratio[s == 0] = True
    parts.log_p_hi[(a == 0) & (s > 0)] = -np.inf
    temme = ~trivial & (s >= _TEMME_SERVERS) & (a >= _TEMME_RATIO[0] * s) & (a <= _TEMME_RATIO[1] * s)
    series = ~trivial & ~temme & (a <= s)
    small_order = ~trivial & ~temme & ~series & (a < 1) & (s != np.floor(s))
    ratio_regions = ((temme & (a >= s), _temme_ratio), (small_order, _small_order),
                     (~trivial & ~temme & ~series & ~small_order, _continued_fraction))
    for region, method in ratio_regions:
        if region.any():
            parts.ratio[region] = True
            parts.x[region] = method(s[region], a[region])
    for region, method in ((temme & (a < s), _temme_quotient), (series, _series_quotient)):
        if region.any():
            parts.log_p_hi[region], parts.log_p_lo[region], parts.q[region] = method(s[region], a[region])
    return parts


def _temme_ratio(s: np.ndarray, a: np.ndarray) -> np.ndarray:
    """1/E - 1 = Q(s, a)/p = e^{stirlerr(s)} (√(πs/2) erfcx(y) + sum_k c_k(η) s^{-k}) for a >= s."""
    y = np.sqrt(deviance(s, a, exact=False)[0])
    return np.exp(stirlerr(s)) * (np.sqrt(np.pi * s / 2) * erfcx(y) + _temme_sum(y * np.sqrt(2 / s), s))


def _temme_quotient(s: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """log p and Q(s+1, a) = Q(s, a) + p = 1 - e^{-y²} (½ erfcx(|y|) - (sum_k c_k(η) s^{-k} + e^{-stirlerr}) / √(2πs))."""
    dev_hi, dev_lo = deviance(s, a)
    stirling = stirlerr(s)
    y = -np.sqrt(dev_hi)
    upper = 1 - np.exp(-dev_hi) * (0.5 * erfcx(-y)
                                   - (_temme_sum(y * np.sqrt(2 / s), s) + np.exp(-stirling)) / np.sqrt(2 * np.pi * s))
    return (*_saddle_point(s, dev_hi, dev_lo, stirling), upper)


def _series_quotient(s: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """log p and Q(s+1, a) = 1 - p T for a <= s."""
    hi, lo = log_poisson(s, a)
    return hi, lo, 1 - _lower_gamma(s, a, np.exp(hi) * (1 + lo))


def _small_order(s: np.ndarray, a: np.ndarray) -> np.ndarray:
    """1/E - 1 = s e^a a^{-s} Γ(s, a) for non-integer s < a < 1, to full relative precision as s -> 0.

    Γ(s, a) = (Γ(1+s) - 1)/s - (a^s - 1)/s - a^s sum_{n>=1} (-a)^n / (n! (s+n)) (from
    Γ(s) - γ(s, a)); each piece stays O(1) as s -> 0, where their sum tends to E_1(a).
    """
    log_a = np.log(a)
    term = np.ones_like(a)
    series = np.zeros_like(a)
    for n in range(1, 24):  # a < 1: 1/24! < 1.7e-24
        term = term * (-a / n)
        series += term / (s + n)
    upper = np.expm1(_lgamma1p(s)) / s - np.expm1(s * log_a) / s - np.exp(s * log_a) * series
    return s * np.exp(a - s * log_a) * upper


#: ζ(2), ..., ζ(56), correctly rounded (mpmath at 50 digits; checked by tests/test_incomplete_gamma.py).
ZETA = (
    1.6449340668482264, 1.2020569031595942, 1.0823232337111381, 1.03692775514337,
    1.0173430619844492, 1.008349277381923, 1.0040773561979444, 1.0020083928260821,
    1.000994575127818, 1.0004941886041194, 1.000246086553308, 1.0001227133475785,
    1.0000612481350588, 1.000030588236307, 1.0000152822594086, 1.0000076371976379,
    1.000003817293265, 1.0000019082127165, 1.0000009539620338, 1.0000004769329869,
    1.0000002384505027, 1.000000119219926, 1.000000059608189, 1.0000000298035034,
    1.0000000149015549, 1.0000000074507118, 1.000000003725334, 1.0000000018626598,
    1.0000000009313275, 1.0000000004656628, 1.000000000232831, 1.0000000001164155,
    1.0000000000582077, 1.0000000000291038, 1.000000000014552, 1.000000000007276,
    1.000000000003638, 1.000000000001819, 1.0000000000009095, 1.0000000000004547,
    1.0000000000002274, 1.0000000000001137, 1.0000000000000568, 1.0000000000000284,
    1.0000000000000142, 1.000000000000007, 1.0000000000000036, 1.0000000000000018,
    1.0000000000000009, 1.0000000000000004, 1.0000000000000002, 1.0000000000000002,
    1.0, 1.0, 1.0,
)


def _lgamma1p(s: np.ndarray) -> np.ndarray:
    """log Γ(1+s) for 0 <= s < 1 with full relative precision as s -> 0 (Taylor series for s <= ½:
    log Γ(1+s) = -γ s + sum_k ζ(k) (-s)^k / k, k = 2..56)."""
    acc = np.zeros_like(s)
    for k in range(len(ZETA) + 1, 1, -1):  # 0.5^56/56 < 3e-19
        acc = acc * (-s) + ZETA[k - 2] / k
    out = s * (-np.euler_gamma + s * acc)
    large = s > 0.5
    out[large] = gammaln(1 + s[large])
    return out


# ---------------------------------------------------------------------------------------------
# High precision: exact sums in integer fixed point
# ---------------------------------------------------------------------------------------------


#: Guard bits of the exact sums: n terms carry at most n²/2 units of truncation error plus a dropped
#: tail of at most s + n units (n < 2**24 by the budget, s <= 1e15 < 2**50), so 112 bits leave the
#: requested digits exact.
_GUARD_BITS = 112
#: Seconds per term of the exact sums: 0.45 µs plus 0.1 ns per bit (0.47 µs at 230 bits, 0.79 µs at 3400).
_SECONDS_PER_TERM = (0.45e-6, 1e-10)
#: Seconds of :func:`quadrature` at s = a = 1e9 to 1e12 by decimal digits (measured; log-log interpolated).
_QUADRATURE_SECONDS = ((50, 0.07), (100, 0.17), (300, 2.7), (500, 22.0), (1000, 550.0))
#: The exact sums are used when they take at most this long, or less than the quadrature would.
_SUM_SECONDS = 2.0


def erlang_b_exact(s: float, a: float, digits: int) -> mpmath.mpf:
    """E_s(a) to ``digits`` decimal digits (mpmath ``mpf``), by exact sums in integer fixed point.

    Both inputs are dyadic rationals, so every ratio of the sums below is a quotient of integers:
    they are summed in fixed point with ``bits`` = digits·log2(10) + 112 fractional bits, then
    mpmath supplies the one transcendental factor each needs (a Poisson term, a power, an
    exponential). s >= 1 and a <= s: :func:`lower_sum`; s >= 1 and a > s: :func:`upper_sum`;
    s < 1: :func:`_small_order_inverse`. The sums need about √(2 s bits log 2) terms near a = s
    (:func:`_sum_terms`); where they would take more than two seconds and more than the quadrature
    (s above about 4e10 near a = s at 50 digits, above 6e13 at 1000), :func:`quadrature`.
    """
    import mpmath

    if s == 0 or a == 0:
        return mpmath.mpf(1 if s == 0 else 0)
    bits = math.ceil(digits * math.log2(10)) + _GUARD_BITS
    sum_seconds = _sum_terms(s, a, bits) * (_SECONDS_PER_TERM[0] + _SECONDS_PER_TERM[1] * bits)
    digit_points, seconds = zip(*_QUADRATURE_SECONDS, strict=True)
    quadrature_seconds = math.exp(np.interp(math.log(digits), np.log(digit_points), np.log(seconds)))
    with mpmath.workprec(bits):
        if s < 1:
            value = 1 / _small_order_inverse(s, a, bits)
        elif sum_seconds <= max(_SUM_SECONDS, quadrature_seconds):
            value = lower_sum(s, a, bits) if a <= s else upper_sum(s, a, bits)
        else:
            value = 1 / quadrature(mpmath.mpf(s), mpmath.mpf(a))
    with mpmath.workdps(digits):
        return +value


def _sum_terms(s: float, a: float, bits: int) -> float:
    """Terms of :func:`lower_sum` (a <= s) or :func:`upper_sum` (a > s) before they fall below 2**-bits.

    Their n-th term is at most min(r^n, exp(-n²/(2(s+n)))) with r = a/s (lower) or s/a (upper), so
    n >= min(L / log(1/r), L + √(L² + 2Ls)), L = bits·log 2, suffices; the upper sum also stops at
    n = ⌊s⌋ + 1.
    """
    budget = bits * math.log(2)
    ratio = abs(math.log(a) - math.log(s))
    needed = min(budget / ratio if ratio > 0 else math.inf, budget + math.sqrt(budget * budget + 2 * budget * s))
    return needed if a <= s else min(needed, math.floor(s) + 1)


def _fixed_point(s: float, a: float) -> tuple[int, int, int]:
    """Integers (S, A, N) with s = S/N, a = A/N and N a power of two (floats are dyadic rationals)."""
    (s_num, s_den), (a_num, a_den) = s.as_integer_ratio(), a.as_integer_ratio()
    unit = max(s_den, a_den)
    return s_num * (unit // s_den), a_num * (unit // a_den), unit


def _rising_sum(term: int, numerator: int, bottom: int, unit: int) -> int:
    """Σ_{n>=0} t_n with t_0 = term, t_{n+1} = ⌊t_n · numerator / (bottom + (n+1) unit)⌋, to its first zero term."""
    total, n = 0, 0
    while term:
        total += term
        n += 1
        term = term * numerator // (bottom + n * unit)
    return total


def _falling_sum(term: int, top: int, unit: int, denominator: int, count: int) -> tuple[int, int]:
    """(Σ_{j<count} t_j, t_count) with t_0 = term, t_{j+1} = ⌊t_j (top - j unit) / denominator⌋; (sum, 0) once a term is 0."""
    total = 0
    for j in range(count):
        total += term
        term = term * (top - j * unit) // denominator
        if not term:
            break
    return total, term


def lower_sum(s: float, a: float, bits: int) -> mpmath.mpf:
    """E_s(a) for 1 <= s, a <= s: E = p / (1 - p T), p = a^s e^{-a}/Γ(s+1), T = Σ_{n>=1} Π_{j<=n} a/(s+j).

    T is summed in fixed point to its last positive term; 1 - pT = Q(s+1, a) >= ½ here, so the
    subtraction keeps every digit. p comes from mpmath with the bits its exponent needs.
    """
    import mpmath

    S, A, N = _fixed_point(s, a)
    total = _rising_sum(1 << bits, A, S, N) - (1 << bits)
    magnitude = abs(s * math.log(a)) + a + math.lgamma(s + 1) + 1
    with mpmath.extraprec(8 + math.ceil(math.log2(magnitude))):
        p = mpmath.exp(s * mpmath.log(a) - a - mpmath.loggamma(mpmath.mpf(s) + 1))
    return p / (1 - p * mpmath.ldexp(total, -bits))


def upper_sum(s: float, a: float, bits: int) -> mpmath.mpf:
    """E_s(a) for 1 <= s < a from the terminating form of Legendre's continued fraction.

    Unrolling 1/E_s = 1 + (s/a)/E_{s-1} m = ⌊s⌋ times: 1/E_s = Σ_{j<m} P_j + P_m / E_{s-m}(a) with
    P_j = Π_{i<j} (s-i)/a, decreasing, and E_0 = 1 (integer s); for s - m in (0, 1),
    :func:`_small_order_inverse`. The sum stops at its first zero term: the rest, at most
    P_j (s-j)/(a-s+j) plus P_m/E_{s-m} <= 2 P_m, is below the guard bits.
    """
    import mpmath

    S, A, N = _fixed_point(s, a)
    whole = math.floor(s)
    total, last = _falling_sum(1 << bits, S, N, A, whole)
    if last and s > whole:
        return mpmath.ldexp(1, bits) / (total + last * _small_order_inverse(s - whole, a, bits))
    return mpmath.ldexp(1, bits) / (total + last)


def _small_order_inverse(order: float, a: float, bits: int) -> mpmath.mpf:
    """1/E_σ(a) = e^a a^{-σ} Γ(σ+1, a) for 0 < σ < 1 and a > 0, with ``bits`` fractional bits.

    For a >= X = bits·log 2 + 16: the asymptotic series Σ_k Π_{i<k} (σ-i)/a (DLMF 8.11.2), whose
    terms alternate from k = 1 on, so the error is below the first term dropped, and they fall below
    2**-bits before they grow again. For a < X: Γ(σ+1, a) = γ(σ+1, X) + Γ(σ+1, X) - γ(σ+1, a) with
    γ(z, x) = x^z e^{-x} Σ_{n>=0} x^n / (z(z+1)...(z+n)) (positive terms) and Γ(σ+1, X) from the
    series above; the subtraction cancels about a·log2(e) bits, carried as extra bits.
    """
    import mpmath

    cut = math.ceil(bits * math.log(2)) + 16
    if a >= cut:
        order_n, load, unit = _fixed_point(order, a)
        return mpmath.ldexp(_falling_sum(1 << bits, order_n, unit, load, math.floor(a))[0], -bits)
    extra = math.ceil(a * math.log2(math.e)) + 16
    wide = bits + extra
    order_n, load, unit = _fixed_point(order, a)
    far = cut * unit
    first = order_n + unit  # z = σ + 1
    series_far = _rising_sum((unit << wide) // first, far, first, unit)      # Σ X^n / (z)_{n+1}, times 2**wide
    series_near = _rising_sum((unit << wide) // first, load, first, unit)
    tail_far = _falling_sum(1 << wide, order_n, unit, far, cut)[0]          # e^X X^{-σ} Γ(z, X), times 2**wide
    with mpmath.extraprec(extra):
        scale = mpmath.power(mpmath.mpf(cut) / a, order) * mpmath.exp(mpmath.mpf(a) - cut)
        value = scale * mpmath.ldexp(cut * series_far + tail_far, -wide) - a * mpmath.ldexp(series_near, -wide)
    return +value


def quadrature(s: mpmath.mpf, a: mpmath.mpf) -> mpmath.mpf:
    """1/E_s(a) = ∫_0^∞ exp(s log(1 + u/a) - u) du by mpmath's tanh-sinh quadrature, at the working precision.

    The integrand is scaled by its value at the maximum u* = max(s - a, 0) and the interval is
    split at u* - (8, 2) and u* + (2, 8, 32) widths √(s + 1) + 1, so that every piece is smooth. Its cost grows
    faster than the cube of the digits: 0.07 s at 50 digits, 3 s at 300, 22 s at 500, about ten minutes at 1000
    (:data:`_QUADRATURE_SECONDS`).
    """
    import mpmath

    peak = max(s - a, mpmath.mpf(0))
    exponent = lambda u: s * mpmath.log1p(u / a) - u  # noqa: E731
    top = exponent(peak)
    width = mpmath.sqrt(s + 1) + 1
    points = sorted(u for u in {mpmath.mpf(0), peak, *(peak + k * width for k in (-8, -2, 2, 8, 32))} if u >= 0)
    return mpmath.exp(top) * mpmath.quad(lambda u: mpmath.exp(exponent(u) - top), [*points, mpmath.inf])
