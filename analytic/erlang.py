"""Erlang's loss and delay formulas, their inverses and the Halfin–Whitt limits.

Erlang's loss formula (Anselmi & Doncel, *Balanced Splitting*, eq. (3)) gives the blocking
probability of an M/GI/s/s queue with offered load ``a = λ d`` (Erlangs)::

    E_s(a) = (a^s / s!) / sum_{l=0}^{s} a^l / l!   =   a^s e^{-a} / Γ(s+1, a),

the second form being its continuation to real ``s >= 0`` through the upper incomplete gamma
function (equal to the first at integers).

How :func:`erlang_b` evaluates it (constant time per value, never overflowing)
--------------------------------------------------------------------------------
Write ``p = a^s e^{-a} / Γ(s+1)`` (the Poisson term) and ``E = p / Q(s+1, a)`` with ``Q`` the
regularized upper incomplete gamma function.

* **Poisson term in deviance form** (Loader's saddle-point form): ``log p = -bd0(s, a) -
  ½ log(2πs) - stirlerr(s)`` with ``bd0 = s log(s/a) + a - s``. ``bd0`` reaches 700 where ``E``
  is still above 1e-300, so it is evaluated in double-double arithmetic (Loader's series in
  ``v = (s-a)/(s+a)`` near ``a = s``, a double-double logarithm elsewhere); ``exp`` then keeps
  full relative precision.
* **Temme's uniform expansion** for ``s >= 20`` and ``0.35 <= a/s <= 2`` (the transition region,
  where series and continued fractions need O(√s) terms): ``Q(s, a) = ½ erfc(y) +
  e^{-y²}/√(2πs) Σ_{k<K} c_k(η) s^{-k}`` with ``y = sign(a-s) √bd0(s, a)``, ``η = y √(2/s)``
  (DLMF 8.12.3–8.12.9), K = 13 terms at s = 20 down to 3 for s >= 1e6. The ``c_k(η)`` are Taylor
  polynomials whose coefficients are generated exactly in rational arithmetic. Since
  ``Q(s+1, a) = Q(s, a) + p``, for ``a >= s`` the ratio ``1/E - 1 = Q(s, a)/p =
  e^{stirlerr(s)} (√(πs/2) erfcx(y) + Σ_k c_k(η) s^{-k})`` contains no exponential at all; for
  ``a < s``, ``E = p / Q(s+1, a)`` with ``Q(s+1, a) ∈ [½, 1]``.
* **Legendre's continued fraction** for ``Γ(s+1, a)`` (modified Lentz) for ``a > s`` outside the
  Temme region: it stops after s + 1 terms for integer s and needs at most about 110 otherwise.
* **The power series** ``1/E = 1/p - Σ_{n>=1} a^n / ((s+1)⋯(s+n))`` for ``a <= s`` outside the
  Temme region: at most about 60 terms.
* For non-integer ``s < a < 1``: ``1/E - 1 = s e^a a^{-s} Γ(s, a)`` with ``Γ(s, a)`` split into
  pieces that stay O(1) as ``s -> 0``, so that ``1 - E`` and ``log E`` keep their relative
  precision.

High precision (``erlang_b(..., precision=D)``)
-----------------------------------------------
Floats are dyadic rationals, so for s >= 1 every ratio a/(s+j) and (s-j)/a is a quotient of
integers, and the sums below are carried exactly in integer fixed point with D log2(10) + 112
bits (the 112 guard bits cover the truncation of each term and the dropped tail):

* ``a <= s``: ``E = p / (1 - p T)`` with ``T = Σ_{n>=1} Π_{j<=n} a/(s+j)`` (the power series of
  the lower incomplete gamma function) and ``p`` from mpmath's ``loggamma``;
* ``a > s``: ``1/E = Σ_{j<m} P_j + P_m / E_{s-m}(a)``, ``P_j = Π_{i<j} (s-i)/a``, m = ⌊s⌋
  (Legendre's continued fraction, terminating for integer s);
* order ``σ = s - m`` in (0, 1) (and s < 1): ``1/E_σ(a)`` from the asymptotic series for
  ``a >= D ln 10 + 94``, otherwise from ``γ(σ+1, X) + Γ(σ+1, X) - γ(σ+1, a)`` with positive power
  series and X = D ln 10 + 94.

Near a = s the sums need about √(2 s D ln 10) terms; beyond what two seconds (or the
quadrature, if slower) allow, ``1/E = ∫_0^∞ (1 + u/a)^s e^{-u} du`` by mpmath's tanh-sinh
quadrature. Checked against mpmath's ``gammainc`` at D + 30 digits (``tests/test_erlang.py``).

Accuracy, measured by ``benchmarks/erlang.py`` against mpmath at 50 digits on 4834 points
(servers from 0.01 to 1e9, real and integer; loads from 1e-3·s to 1e3·s and s ± 40√s): the
relative error of ``E`` is at most 4.0e-15 on the 3830 points where ``E >= 1e-300`` (median
9e-17), and the error of ``log E`` at most 3.6e-15 (absolute where ``|log E|`` < 1, relative beyond).
Speed: 1.1 to 1.8 million values per second vectorized, whatever the size. Inputs whose broadcast
would need more memory than is available (about 320 bytes of work arrays a value) are refused with
:class:`~analytic.errors.InvalidParameterError` before anything is allocated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

import mpmath
import numpy as np
from scipy import special

from analytic.errors import ConvergenceError, InvalidParameterError, UnstableSystemError, describe
from analytic.memory import available_bytes, fits
from analytic.reproduce import Row, reproduces
from analytic.validation import integer, real_array

__all__ = [
    "erlang_b",
    "erlang_b_load",
    "erlang_b_servers",
    "erlang_c",
    "halfin_whitt_blocking",
    "halfin_whitt_delay",
    "log_erlang_b",
    "loss_occupancy",
    "loss_response_time",
]

#: Temme's expansion is used for s >= _TEMME_SERVERS and load/servers in _TEMME_RATIO.
_TEMME_SERVERS = 20.0
_TEMME_RATIO = (0.35, 2.0)
#: Terms in 1/s (k < _TEMME_TERMS) and Taylor terms in η (n < _TEMME_ORDER) of Temme's sum.
_TEMME_TERMS = 13
_TEMME_ORDER = 30
#: (smallest s, terms used): the first omitted term |c_K(η)| s^{-K} stays below 3e-19 for |η| < 1.
_TEMME_TIERS = ((1e6, 3), (1e4, 4), (1e3, 5), (200.0, 7), (_TEMME_SERVERS, _TEMME_TERMS))
#: Largest server count accepted (accuracy is measured up to 1e9 and spot-checked at 1e15).
MAX_SERVERS = 1e15
#: bd0 is refined to double-double between these values (see _deviance).
_DOUBLE_DEVIANCE = (3.0, 750.0)
#: Iteration cap of the series and the continued fraction (they need at most about 110).
_MAX_TERMS = 500

_LN2_HI = 6.93147180369123816490e-01  # fdlibm's split of log 2: _LN2_HI has 32 trailing zero bits
_LN2_LO = 1.90821492927058770002e-10
_SQRT_HALF = math.sqrt(0.5)
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


# ---------------------------------------------------------------------------------------------
# Double-double arithmetic (Dekker, Knuth): a value is an unevaluated sum hi + lo of two doubles.
# ---------------------------------------------------------------------------------------------


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """hi + lo = a + b exactly."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = 134217729.0 * a  # 2^27 + 1
    hi = t - (t - a)
    return hi, a - hi


def _two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """hi + lo = a * b exactly (barring overflow)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _dd_mul(a_hi: np.ndarray, a_lo: np.ndarray, b_hi: np.ndarray, b_lo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p, e = _two_prod(a_hi, b_hi)
    return _two_sum(p, e + a_hi * b_lo + a_lo * b_hi)


def _dd_div(a_hi: np.ndarray, a_lo: np.ndarray, b_hi: np.ndarray, b_lo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    q = a_hi / b_hi
    p_hi, p_lo = _two_prod(q, b_hi)
    return _two_sum(q, ((a_hi - p_hi) - p_lo + a_lo - q * b_lo) / b_hi)


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
    den_hi, den_lo = _two_sum(m, np.ones_like(m))
    w = num / den_hi
    p_hi, p_lo = _two_prod(w, den_hi)
    w_lo = ((num - p_hi) - p_lo - w * den_lo) / den_hi
    tail = w * w * _atanh_tail(w * w, last=11)  # sum_{j>=1} w^{2j} / (2j+1), w^2 <= 0.0295: 0.0295^11 < 2e-17
    hi, lo = _two_sum(e * _LN2_HI, 2 * w)
    return _two_sum(hi, lo + e * _LN2_LO + 2 * w_lo + 2 * w * tail)


def _deviance(s: np.ndarray, a: np.ndarray, exact: bool = True) -> tuple[np.ndarray, np.ndarray]:
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
        total = _two_sum(x, m)
        lead = _dd_div(*_two_prod(d, d), *total)  # (s-a)^2/(s+a) = (s-a) v
        v = _dd_div(d, zero, *total)
        v3 = _dd_mul(*_dd_mul(*v, *v), *v)
        cube = _dd_div(*_dd_mul(*v3, 2 * x, zero), np.full_like(x, 3.0), zero)
        h, low = _two_sum(lead[0], cube[0])
        rest = 2 * x * v3[0] * v[0] * v[0] * _atanh_tail(v[0] * v[0], first=2)
        hi[near], lo[near] = _two_sum(h, low + lead[1] + cube[1] + rest)
    far = ~near
    if far.any():
        x, m = s[far], a[far]
        ls_hi, ls_lo = _dd_log(x)
        la_hi, la_lo = _dd_log(m)
        l_hi, l_lo = _two_sum(ls_hi, -la_hi)
        l_lo = l_lo + (ls_lo - la_lo)
        p_hi, p_lo = _two_prod(x, l_hi)
        d_hi, d_lo = _two_sum(m, -x)
        h, low = _two_sum(p_hi, d_hi)
        hi[far], lo[far] = _two_sum(h, low + p_lo + x * l_lo + d_lo)
    return hi, lo


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


def _stirlerr(s: np.ndarray) -> np.ndarray:
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
    out[~large] = special.gammaln(x + 1) - (x + 0.5) * np.log(x) + x - _LOG_SQRT_2PI
    return out


@cache
def _temme_coefficients(terms: int = _TEMME_TERMS, order: int = _TEMME_ORDER) -> np.ndarray:
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
    coefficients = _temme_coefficients()
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


def _log_poisson(s: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log(a^s e^{-a} / Γ(s+1)) as double-double (s > 0, a > 0)."""
    hi = np.empty_like(s)
    lo = np.zeros_like(s)
    small = s < 1  # no cancellation: every term is O(1) or O(a) with a <= 3 or a <= s
    x, m = s[small], a[small]
    hi[small] = x * np.log(m) - m - special.gammaln(1 + x)
    big = ~small
    if big.any():
        x = s[big]
        hi[big], lo[big] = _saddle_point(x, *_deviance(x, a[big]), _stirlerr(x))
    return hi, lo


def _saddle_point(s: np.ndarray, dev_hi: np.ndarray, dev_lo: np.ndarray,
                  stirling: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log p = -bd0 - ½ log(2πs) - stirlerr(s) as double-double (Loader's saddle-point form)."""
    hi, lo = _two_sum(-dev_hi, -(0.5 * np.log(s) + _LOG_SQRT_2PI + stirling))
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
class _Parts:
    """E_s(a) in the two well-conditioned forms, per element (see _erlang_parts)."""

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


def _erlang_parts(s: np.ndarray, a: np.ndarray) -> _Parts:
    """Dispatch every (s, a) to its region; s, a are validated 1-d float arrays."""
    n = s.size
    parts = _Parts(np.zeros(n, dtype=bool), np.zeros(n), np.zeros(n), np.zeros(n), np.ones(n))
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
    y = np.sqrt(_deviance(s, a, exact=False)[0])
    return np.exp(_stirlerr(s)) * (np.sqrt(np.pi * s / 2) * special.erfcx(y) + _temme_sum(y * np.sqrt(2 / s), s))


def _temme_quotient(s: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """log p and Q(s+1, a) = Q(s, a) + p = 1 - ½ erfc(|y|) + e^{-y²} (sum_k c_k(η) s^{-k} + e^{-stirlerr}) / √(2πs)."""
    dev_hi, dev_lo = _deviance(s, a)
    stirling = _stirlerr(s)
    y = -np.sqrt(dev_hi)
    upper = (1 - 0.5 * special.erfc(-y)
             + np.exp(-dev_hi) * (_temme_sum(y * np.sqrt(2 / s), s) + np.exp(-stirling)) / np.sqrt(2 * np.pi * s))
    return (*_saddle_point(s, dev_hi, dev_lo, stirling), upper)


def _series_quotient(s: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """log p and Q(s+1, a) = 1 - p T for a <= s."""
    hi, lo = _log_poisson(s, a)
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


#: ζ(k) for k = 2..56: log Γ(1+s) = -γ s + sum_k ζ(k) (-s)^k / k.
_ZETA = special.zeta(np.arange(2, 57), 1)


def _lgamma1p(s: np.ndarray) -> np.ndarray:
    """log Γ(1+s) for 0 <= s < 1 with full relative precision as s -> 0 (Taylor series for s <= ½)."""
    acc = np.zeros_like(s)
    for k in range(len(_ZETA) + 1, 1, -1):  # 0.5^56/56 < 3e-19
        acc = acc * (-s) + _ZETA[k - 2] / k
    out = s * (-np.euler_gamma + s * acc)
    large = s > 0.5
    out[large] = special.gammaln(1 + s[large])
    return out


# ---------------------------------------------------------------------------------------------
# Input handling
# ---------------------------------------------------------------------------------------------


def _validated(name: str, value: Any, condition: str, ok) -> np.ndarray:
    """value as a float array; InvalidParameterError naming the first element violating ok."""
    array = real_array(name, value, allow_infinite=True, allow_nan=True)
    bad = ~ok(array) | np.isnan(array)
    if bad.any():
        raise InvalidParameterError(name, array.ravel()[np.flatnonzero(bad.ravel())[0]], condition)
    return array


def _nonnegative(name: str, value: Any) -> np.ndarray:
    return _validated(name, value, "must be finite and >= 0", lambda x: np.isfinite(x) & (x >= 0))


def _server_count(name: str, value: Any, positive: bool = False) -> np.ndarray:
    """Servers (or, for erlang_b_servers, a load) in [0, 1e15], or (0, 1e15] when positive."""
    lowest = "> 0" if positive else ">= 0"
    return _validated(name, value, f"must be {lowest} and <= {MAX_SERVERS:.0e} (the validated range)",
                      lambda x: ((x > 0) if positive else (x >= 0)) & (x <= MAX_SERVERS))


def _probability_target(value: Any) -> np.ndarray:
    return _validated("target", value, "must lie strictly between 0 and 1", lambda x: (x > 0) & (x < 1))


def _shaped(result: np.ndarray, shape: tuple[int, ...]) -> Any:
    """Scalar in, Python scalar out; arrays keep the broadcast shape."""
    result = result.reshape(shape)
    return result.item() if result.ndim == 0 else result


#: Peak bytes of work arrays per broadcast value (tracemalloc on 10^6 values: 116 for erlang_b, 270 for
#: erlang_b_load, the most).
_BYTES_PER_VALUE = 320


def _broadcast_shape(*arrays: np.ndarray, bytes_per_value: int = _BYTES_PER_VALUE) -> tuple[int, ...]:
    """The broadcast shape, refused before any allocation when its values would not fit in memory."""
    shapes = tuple(a.shape for a in arrays)
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise InvalidParameterError("shapes", shapes, "must broadcast together") from None
    count = math.prod(shape)
    if not fits(count * bytes_per_value):
        raise InvalidParameterError("shapes", shapes, f"must broadcast to an array that fits in memory: {shape} holds "
                                                      f"{count:,} values, whose evaluation needs about "
                                                      f"{count * bytes_per_value / 2**30:.3g} GiB, more than the "
                                                      f"{available_bytes() / 2**30:.3g} GiB available")
    return shape


def _broadcast(*arrays: np.ndarray) -> tuple[tuple[int, ...], list[np.ndarray]]:
    shape = _broadcast_shape(*arrays)
    return shape, [np.ascontiguousarray(np.broadcast_to(x, shape), dtype=float).ravel() for x in arrays]


# ---------------------------------------------------------------------------------------------
# Public functions
# ---------------------------------------------------------------------------------------------


def erlang_b(servers: Any, load: Any, precision: int | None = None) -> Any:
    """Erlang's loss formula E_s(a): the blocking probability of an M/GI/s/s queue.

    Parameters
    ----------
    servers : float or array_like
        Number of servers, 0 <= s <= 1e15; real values use the continuation a^s e^{-a} / Γ(s+1, a).
    load : float or array_like
        Offered load a = λ d >= 0 in Erlangs (arrival rate times mean service time).
    precision : int, optional
        Decimal digits D, 1 to 1000: return ``mpmath.mpf`` values correct to D digits (an object
        array for array input) instead of floats, from exact sums in integer fixed point (see
        *High precision* in the module docstring). Cost per value: n terms of about 0.5 µs (0.8 µs
        at 1000 digits) with n ≈ min(D ln 10 / ``|ln(a/s)|``, √(2 s D ln 10)): s = a = 1e6 at 1000 digits
        takes 0.07 s (68 000 terms), s = a = 1e9 at 50 digits 0.1 s. Near a = s the cost grows like
        √s: at 50 digits a quadrature takes over from s ≈ 4e10 (0.07 s); at 1000 digits it is 5 s
        at s = 1e10, a minute at 1e12 and about ten minutes from 6e13 on (the quadrature's cost
        there: 3 s at 300 digits, 22 s at 500).

    Returns
    -------
    float or numpy.ndarray
        E_s(a) in [0, 1], broadcast over the inputs. Relative error below 1e-14 against mpmath
        at 50 digits wherever E_s(a) >= 1e-300 (4.0e-15 at most on the grid of
        ``benchmarks/erlang.py``); smaller values lose relative precision as subnormals and
        underflow to 0 (use :func:`log_erlang_b`). Constant time per value; the method is
        described in the module docstring.

    Raises
    ------
    InvalidParameterError
        A negative, NaN or infinite ``load``, ``servers`` outside [0, 1e15], a ``precision``
        outside 1..1000, or shapes whose broadcast would not fit in memory.

    References
    ----------
    Anselmi & Doncel, *Balanced Splitting*, eq. (3); Temme (1979), DLMF 8.12; Loader (2000).

    Examples
    --------
    >>> round(erlang_b(10, 7.0), 12)
    0.07874088297
    >>> erlang_b([1, 2], 1.0).round(6).tolist()
    [0.5, 0.2]
    """
    s, a = _server_count("servers", servers), _nonnegative("load", load)
    if precision is not None:
        return _erlang_b_mpmath(s, a, precision)
    shape, (s, a) = _broadcast(s, a)
    return _shaped(_erlang_parts(s, a).value(), shape)


def log_erlang_b(servers: Any, load: Any) -> Any:
    """Natural logarithm of Erlang's loss formula, finite far below the double range.

    Parameters
    ----------
    servers : float or array_like
        Number of servers, 0 <= s <= 1e15 (real values allowed, as in :func:`erlang_b`).
    load : float or array_like
        Offered load a >= 0 in Erlangs.

    Returns
    -------
    float or numpy.ndarray
        log E_s(a) <= 0: finite for every load > 0 (e.g. about -5.9e9 at s = 1e9, a = 1e6), and
        -inf only for load = 0 with servers > 0. Error below 1e-14: absolute where ``|log E|`` < 1,
        relative beyond (3.6e-15 at most on the grid of ``benchmarks/erlang.py``).

    Raises
    ------
    InvalidParameterError
        A negative, NaN or infinite ``load``, or ``servers`` outside [0, 1e15].

    Examples
    --------
    >>> round(log_erlang_b(1e9, 1e6) / 1e9, 9)
    -5.90875529
    """
    shape, (s, a) = _broadcast(_server_count("servers", servers), _nonnegative("load", load))
    with np.errstate(divide="ignore"):
        return _shaped(_erlang_parts(s, a).log(), shape)


#: Most decimal digits erlang_b evaluates with mpmath.
MAX_PRECISION = 1000
#: Guard bits of the exact sums: n terms carry at most n²/2 units of truncation error plus a dropped
#: tail of at most s + n units (n < 2**24 by the budget, s <= 1e15 < 2**50), so 112 bits leave the
#: requested digits exact.
_GUARD_BITS = 112
#: Seconds per term of the exact sums: 0.45 µs plus 0.1 ns per bit (0.47 µs at 230 bits, 0.79 µs at 3400).
_SECONDS_PER_TERM = (0.45e-6, 1e-10)
#: Seconds of :func:`_quadrature` at s = a = 1e9 to 1e12 by decimal digits (measured; log-log interpolated).
_QUADRATURE_SECONDS = ((50, 0.07), (100, 0.17), (300, 2.7), (500, 22.0), (1000, 550.0))
#: The exact sums are used when they take at most this long, or less than the quadrature would.
_SUM_SECONDS = 2.0


def _erlang_b_mpmath(s: np.ndarray, a: np.ndarray, digits: Any) -> Any:
    """E_s(a) at ``digits`` decimal digits for every broadcast pair (see :func:`erlang_b_exact`)."""
    if integer("precision", digits, meaning=" (decimal digits)") > MAX_PRECISION:
        raise InvalidParameterError("precision", digits, f"must be at most {MAX_PRECISION} decimal digits")
    _broadcast_shape(s, a, bytes_per_value=_BYTES_PER_VALUE + int(digits))
    return np.frompyfunc(lambda si, ai: _erlang_b_exact(float(si), float(ai), int(digits)), 2, 1)(s, a)


def _erlang_b_exact(s: float, a: float, digits: int) -> mpmath.mpf:
    """E_s(a) to ``digits`` decimal digits (mpmath ``mpf``), by exact sums in integer fixed point.

    Both inputs are dyadic rationals, so every ratio of the sums below is a quotient of integers:
    they are summed in fixed point with ``bits`` = digits·log2(10) + 112 fractional bits, then
    mpmath supplies the one transcendental factor each needs (a Poisson term, a power, an
    exponential). s >= 1 and a <= s: :func:`_lower_sum`; s >= 1 and a > s: :func:`_upper_sum`;
    s < 1: :func:`_small_order_inverse`. The sums need about √(2 s bits log 2) terms near a = s
    (:func:`_sum_terms`); where they would take more than two seconds and more than the quadrature
    (s above about 4e10 near a = s at 50 digits, above 6e13 at 1000), :func:`_quadrature`.
    """
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
            value = _lower_sum(s, a, bits) if a <= s else _upper_sum(s, a, bits)
        else:
            value = 1 / _quadrature(mpmath.mpf(s), mpmath.mpf(a))
    with mpmath.workdps(digits):
        return +value


def _sum_terms(s: float, a: float, bits: int) -> float:
    """Terms of :func:`_lower_sum` (a <= s) or :func:`_upper_sum` (a > s) before they fall below 2**-bits.

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


def _lower_sum(s: float, a: float, bits: int) -> mpmath.mpf:
    """E_s(a) for 1 <= s, a <= s: E = p / (1 - p T), p = a^s e^{-a}/Γ(s+1), T = Σ_{n>=1} Π_{j<=n} a/(s+j).

    T is summed in fixed point to its last positive term; 1 - pT = Q(s+1, a) >= ½ here, so the
    subtraction keeps every digit. p comes from mpmath with the bits its exponent needs.
    """
    S, A, N = _fixed_point(s, a)
    total = _rising_sum(1 << bits, A, S, N) - (1 << bits)
    magnitude = abs(s * math.log(a)) + a + math.lgamma(s + 1) + 1
    with mpmath.extraprec(8 + math.ceil(math.log2(magnitude))):
        p = mpmath.exp(s * mpmath.log(a) - a - mpmath.loggamma(mpmath.mpf(s) + 1))
    return p / (1 - p * mpmath.ldexp(total, -bits))


def _upper_sum(s: float, a: float, bits: int) -> mpmath.mpf:
    """E_s(a) for 1 <= s < a from the terminating form of Legendre's continued fraction.

    Unrolling 1/E_s = 1 + (s/a)/E_{s-1} m = ⌊s⌋ times: 1/E_s = Σ_{j<m} P_j + P_m / E_{s-m}(a) with
    P_j = Π_{i<j} (s-i)/a, decreasing, and E_0 = 1 (integer s); for s - m in (0, 1),
    :func:`_small_order_inverse`. The sum stops at its first zero term: the rest, at most
    P_j (s-j)/(a-s+j) plus P_m/E_{s-m} <= 2 P_m, is below the guard bits.
    """
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


def _quadrature(s: mpmath.mpf, a: mpmath.mpf) -> mpmath.mpf:
    """1/E_s(a) = ∫_0^∞ exp(s log(1 + u/a) - u) du by mpmath's tanh-sinh quadrature, at the working precision.

    The integrand is scaled by its value at the maximum u* = max(s - a, 0) and the interval is
    split at u* - (8, 2) and u* + (2, 8, 32) widths √(s + 1) + 1, so that every piece is smooth. Its cost grows
    faster than the cube of the digits: 0.07 s at 50 digits, 3 s at 300, 22 s at 500, about ten minutes at 1000
    (:data:`_QUADRATURE_SECONDS`).
    """
    peak = max(s - a, mpmath.mpf(0))
    exponent = lambda u: s * mpmath.log1p(u / a) - u  # noqa: E731
    top = exponent(peak)
    width = mpmath.sqrt(s + 1) + 1
    points = sorted(u for u in {mpmath.mpf(0), peak, *(peak + k * width for k in (-8, -2, 2, 8, 32))} if u >= 0)
    return mpmath.exp(top) * mpmath.quad(lambda u: mpmath.exp(exponent(u) - top), [*points, mpmath.inf])


def erlang_c(servers: Any, load: Any) -> Any:
    """Erlang's delay formula C_s(a): the probability of waiting in a stable M/M/s queue.

    C_s(a) = s E_s(a) / (s - a + a E_s(a)), from :func:`erlang_b` without cancellation (all three
    terms of the denominator are non-negative), so it inherits its relative accuracy (1e-13).

    Parameters
    ----------
    servers : float or array_like
        Number of servers, 0 < s <= 1e15 (real values use the continuation of E_s).
    load : float or array_like
        Offered load a = λ d in Erlangs, 0 <= a < s.

    Returns
    -------
    float or numpy.ndarray
        C_s(a) in [0, 1).

    Raises
    ------
    InvalidParameterError
        Negative, NaN or infinite inputs.
    UnstableSystemError
        load >= servers: the M/M/s queue has no stationary distribution.

    Examples
    --------
    >>> round(erlang_c(2, 1.0), 12)
    0.333333333333
    """
    shape, (s, a) = _broadcast(_server_count("servers", servers), _nonnegative("load", load))
    unstable = a >= s
    if unstable.any():
        i = int(np.flatnonzero(unstable)[0])
        raise UnstableSystemError("load", float(a[i]), float(s[i]),
                                  "Erlang C needs load < servers (the M/M/s queue is otherwise unstable)")
    blocking = _erlang_parts(s, a).value()
    return _shaped(s * blocking / ((s - a) + a * blocking), shape)


def loss_occupancy(servers: Any, load: Any, busy: Any) -> Any:
    """P(N = k): the stationary probability that k of the s servers of an M/GI/s/s queue are busy.

    The truncated Poisson law (a^k / k!) / Σ_{l<=s} a^l / l! (Erlang; insensitive to the service law),
    whose value at k = s is :func:`erlang_b`. Evaluated as exp(log π_k - log F_s) with
    π_k = a^k e^{-a} / k! in Loader's saddle-point form (double-double) and F_s = π_s / E_s(a) from
    the parts of :func:`erlang_b`, so no factorial or sum of s terms is formed: constant time per
    value at any s.

    Parameters
    ----------
    servers : int or array_like
        Number of servers s, an integer in [0, 1e15].
    load : float or array_like
        Offered load a >= 0 in Erlangs.
    busy : int or array_like
        k, an integer in [0, s].

    Returns
    -------
    float or numpy.ndarray
        P(N = k), broadcast over the inputs; relative error below ``1e-14 + 5e-16 |log P|`` where
        P > 1e-300 (against mpmath at 50 digits in ``tests/test_erlang.py``); smaller values
        underflow.

    Raises
    ------
    InvalidParameterError
        ``servers`` or ``busy`` not an integer, ``busy`` above ``servers``, or a negative, NaN or
        infinite load.

    References
    ----------
    Anselmi & Doncel, *Balanced Splitting*, eq. (3) (the law behind Erlang's loss formula);
    Loader (2000).

    Examples
    --------
    >>> round(loss_occupancy(2, 1.0, 0), 12), round(loss_occupancy(2, 1.0, 2), 12)  # (1, 1, 1/2) / 2.5
    (0.4, 0.2)
    """
    s = _validated("servers", servers, f"must be an integer in [0, {MAX_SERVERS:.0e}]",
                   lambda x: (x >= 0) & (x <= MAX_SERVERS) & (x == np.floor(x)))
    k = _validated("busy", busy, "must be an integer >= 0 (a number of busy servers)",
                   lambda x: np.isfinite(x) & (x >= 0) & (x == np.floor(x)))
    shape, (s, a, k) = _broadcast(s, _nonnegative("load", load), k)
    above = k > s
    if above.any():
        i = int(np.flatnonzero(above)[0])
        raise InvalidParameterError("busy", float(k[i]), f"must be at most servers = {s[i]:.10g}")
    out = (k == 0).astype(float)  # load 0: every server idle
    loaded = a > 0
    s, a, k = s[loaded], a[loaded], k[loaded]
    parts = _erlang_parts(s, a)
    # Where E = 1/(1+x) (a >= s): P = (π_k/π_s) / (1+x), the ratio from the deviance of k against s,
    # log(π_k/π_s) = -bd0(k, s) - (k-s) log(s/a) - ½ log(k/s) - stirlerr(k) + stirlerr(s): terms of one sign,
    # so no digit is lost to a difference of two large logarithms. Elsewhere P = π_k / Q(s+1, a)
    # (k = 0 as π_1/π_s times π_0/π_1 = 1/a, again of one sign since a >= s >= 1; s = 0 leaves P(N = 0) = 1.)
    log_law = np.zeros_like(s)
    ratio = parts.ratio
    near = ratio & (s > 0)
    x, m, load = np.maximum(k[near], 1.0), s[near], a[near]
    log_law[near] = (-_deviance(x, m)[0] - (x - m) * _log_ratio(m, load) - 0.5 * _log_ratio(x, m)
                     - (_stirlerr(x) - _stirlerr(m)) - np.log1p(parts.x[near]) - np.where(k[near] == 0, np.log(load), 0.0))
    here_hi, here_lo = _log_poisson(k[~ratio], a[~ratio])
    log_law[~ratio] = here_hi + (here_lo - np.log(parts.q[~ratio]))
    with np.errstate(under="ignore"):
        out[loaded] = np.exp(log_law)
    return _shaped(out, shape)


def _log_ratio(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """log(x/y) for x, y > 0 to full relative precision (log1p of the exact difference when y/2 <= x <= 2y)."""
    close = (x >= 0.5 * y) & (x <= 2 * y)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(close, np.log1p((x - y) / y), np.log(x) - np.log(y))


def loss_response_time(servers: Any, arrival_rate: Any, mean_size: Any) -> Any:
    """Mean response time R_s = d (1 - E_s(λ d)) of an M/GI/s/s queue, blocked jobs counting 0.

    Parameters
    ----------
    servers : float or array_like
        Number of servers, 0 <= s <= 1e15.
    arrival_rate : float or array_like
        Poisson arrival rate λ >= 0 (jobs per unit time).
    mean_size : float or array_like
        Mean service time d >= 0 (time units).

    Returns
    -------
    float or numpy.ndarray
        R_s in time units; 1 - E is computed directly (no cancellation when E is near 1).

    Raises
    ------
    InvalidParameterError
        Negative, NaN or infinite inputs.

    References
    ----------
    Anselmi & Doncel, *Balanced Splitting*, eq. (4).

    Examples
    --------
    >>> round(loss_response_time(1, 1.0, 2.0), 12)  # d (1 - E_1(2)) = 2 (1 - 2/3)
    0.666666666667
    """
    rate = _nonnegative("arrival_rate", arrival_rate)
    size = _nonnegative("mean_size", mean_size)
    shape, (s, lam, d) = _broadcast(_server_count("servers", servers), rate, size)
    with np.errstate(over="ignore"):
        load = _nonnegative("arrival_rate * mean_size", lam * d)
    return _shaped(d * _erlang_parts(s, load).complement(), shape)


def erlang_b_servers(load: Any, target: Any) -> Any:
    """Smallest integer number of servers s with E_s(a) <= target.

    Integer bisection on :func:`log_erlang_b` (so that E_s(a) below 1e-300 is compared exactly) inside a
    guaranteed bracket: s_hi = a + L/3 + √(L²/9 + 2aL) + 1 with L = log(2/target) satisfies
    E <= 2 P(Poisson(a) >= s) <= target by Bernstein's inequality. About log2(s) evaluations.

    Parameters
    ----------
    load : float or array_like
        Offered load in Erlangs, 0 <= a <= 1e15.
    target : float or array_like
        Blocking probability to meet, 0 < target < 1.

    Returns
    -------
    int or numpy.ndarray of int64
        The number of servers. Exact unless E_s(a) lies within 1e-13 (relative) of target.

    Raises
    ------
    InvalidParameterError
        A load outside [0, 1e15], or a target outside (0, 1).

    Examples
    --------
    >>> erlang_b_servers(7.0, 0.1)  # E_9(7) = 0.127, E_10(7) = 0.079
    10
    """
    a, t = _server_count("load", load), _probability_target(target)
    shape, (a, t) = _broadcast(a, t)
    slack = np.log(2.0) - np.log(t)  # not log(2 / t): 2 / t overflows for a subnormal target such as 1e-309
    hi = np.ceil(a + slack / 3 + np.sqrt(slack * slack / 9 + 2 * a * slack)) + 1
    lo = np.zeros_like(a)  # E_0 = 1 > target
    log_target = np.log(t)
    while True:
        active = np.flatnonzero(hi - lo > 1)
        if active.size == 0:
            break
        mid = np.floor((lo[active] + hi[active]) / 2)
        with np.errstate(divide="ignore"):
            meets = _erlang_parts(mid, a[active]).log() <= log_target[active]
        hi[active[meets]] = mid[meets]
        lo[active[~meets]] = mid[~meets]
    return _shaped(hi.astype(np.int64), shape)


def erlang_b_load(servers: Any, target: Any) -> Any:
    """Largest offered load a with E_s(a) <= target, i.e. the root of E_s(a) = target.

    Safeguarded Newton iteration on u = log a, f(u) = log E_s(e^u) - log target, whose slope is
    f'(u) = s - a (1 - E) > 0 (from dE/da = E (s/a - 1 + E)), inside the bracket
    [min(log s, (log(target/2) + log Γ(s+1))/s), log(s/(1 - target))] (E <= 2 a^s/Γ(s+1) for
    a <= s, and E >= 1 - s/a).

    Parameters
    ----------
    servers : float or array_like
        Number of servers, 0 < s <= 1e15 (real values allowed).
    target : float or array_like
        Blocking probability, 0 < target < 1.

    Returns
    -------
    float or numpy.ndarray
        The load in Erlangs, to about 1e-15 relative (Newton in log a, then two Newton steps on
        a itself) times the condition number 1/f'(u), which exceeds 1 only for targets near 1
        (about 10 at target 0.9 with a >> s). Roots below the smallest double (s < 1 with tiny targets, e.g. s = 0.5,
        target = 1e-200 has a ≈ 8e-401) come out as 0 or a subnormal.

    Raises
    ------
    InvalidParameterError
        servers outside (0, 1e15] (E_0 = 1 for every load), or a target outside (0, 1).

    Examples
    --------
    >>> round(erlang_b_load(1, 0.5), 12)  # E_1(a) = a / (1 + a)
    1.0
    """
    s = _server_count("servers", servers, positive=True)
    shape, (s, t) = _broadcast(s, _probability_target(target))
    log_target = np.log(t)
    with np.errstate(over="ignore"):  # tiny s: the bound is -inf, replaced just below
        lo = np.minimum(np.log(s), (np.log(t / 2) + special.gammaln(s + 1)) / s)
    lo = np.maximum(lo, math.log(np.finfo(float).smallest_subnormal) - 1)  # a root below underflows anyway
    hi = np.log(s) - np.log1p(-t)
    u = 0.5 * (lo + hi)
    active = np.arange(s.size)
    for _ in range(200):
        ua = u[active]
        parts = _erlang_parts(s[active], np.exp(ua))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # an infinite step bisects
            f = parts.log() - log_target[active]
            step = f / (s[active] - np.exp(ua) * parts.complement())
        below = f < 0
        lo[active[below]] = ua[below]
        hi[active[~below]] = ua[~below]
        tolerance = 4e-16 * np.maximum(1.0, np.abs(ua))
        new = ua - step
        # converged: a tiny step, a collapsed bracket, or a load that no longer changes (subnormal loads)
        done = (np.abs(step) <= tolerance) | (hi[active] - lo[active] <= tolerance) | (np.exp(new) == np.exp(ua))
        outside = ~((new > lo[active]) & (new < hi[active]))  # includes landing on an end: bisect
        new[outside] = 0.5 * (lo[active] + hi[active])[outside]
        u[active] = np.where(done, ua, new)
        active = active[~done]
        if active.size == 0:
            return _shaped(_polished_load(s, np.exp(u), log_target), shape)
    raise ConvergenceError(f"erlang_b_load: Newton iteration did not converge for servers = {describe(s[active[0]])}")


def _polished_load(s: np.ndarray, a: np.ndarray, log_target: np.ndarray) -> np.ndarray:
    """Two Newton steps a <- a exp(-f/f') on the load itself: log a resolves a only to ulp(log a),
    about 7e-15 relative at a = 1e15; the steps (clipped to 1e-12) recover full precision."""
    for _ in range(2):
        parts = _erlang_parts(s, a)
        slope = s - a * parts.complement()
        # skip subnormal loads, and slopes lost to cancellation (target near 1: the root is then
        # ill-conditioned and the bracketed iteration has already located it as well as it can be)
        usable = (a > 1e-300) & (slope > 1e-12 * np.maximum(s, a))  # at least 4 digits of the slope left
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            step = np.where(usable, (parts.log() - log_target) / slope, 0.0)
        a *= np.exp(-np.clip(step, -1e-12, 1e-12))
    return a


def _mills(x: np.ndarray) -> np.ndarray:
    """Φ(x)/φ(x) = √(π/2) erfcx(-x/√2) for x <= 0 (no overflow; erfcx of a non-negative number)."""
    return np.sqrt(np.pi / 2) * special.erfcx(-x / np.sqrt(2))


def halfin_whitt_blocking(theta: Any, servers: Any = None) -> Any:
    """Lemma 1's limit φ(θ)/Φ(θ) of √s E_s(a) when (1 - a/s)√s → θ, optionally with a correction.

    Parameters
    ----------
    theta : float or array_like
        Any real θ (θ > 0: underloaded, θ < 0: overloaded).
    servers : float or array_like, optional
        s > 0: return instead the two-term expansion of √s E_s(s - θ√s),
        1 / (M + (θ³ M + θ² + 2) / (3√s)) with M = Φ(θ)/φ(θ), whose error is O(1/s) instead of
        the limit's O(1/√s). Derived here from Temme's expansion used by :func:`erlang_b` (the
        same order as the first correction of Janssen, van Leeuwaarden & Zwart, *Gaussian
        expansions and bounds for the Poisson distribution applied to the Erlang B formula*,
        reference [28] of the paper).

    Returns
    -------
    float or numpy.ndarray
        The limit (or the corrected value); stable for all real θ: φ/Φ is evaluated as
        1/(√(π/2) erfcx(-θ/√2)) for θ <= 0 and directly for θ > 0 (it underflows to 0 near θ = 38.6).

    Raises
    ------
    InvalidParameterError
        NaN or infinite θ, or servers <= 0.

    References
    ----------
    Anselmi & Doncel, *Balanced Splitting*, Lemma 1 (Halfin & Whitt 1981; Jagerman 1974).

    Examples
    --------
    >>> round(halfin_whitt_blocking(0.0), 12)  # √(2/π)
    0.797884560803
    """
    th = _validated("theta", theta, "must be a finite real number", np.isfinite)
    shape, (th,) = _broadcast(th)
    with np.errstate(under="ignore", over="ignore"):     # φ(θ) underflows to 0 beyond θ = 38.6: the limit is 0
        limit = np.where(th <= 0, 1 / _mills(np.minimum(th, 0)),
                         np.exp(-0.5 * th * th) / np.sqrt(2 * np.pi) / special.ndtr(np.maximum(th, 0)))
    if servers is None:
        return _shaped(limit, shape)
    s = _validated("servers", servers, "must be finite and > 0", lambda x: np.isfinite(x) & (x > 0))
    shape, (th, s, limit) = _broadcast(th.reshape(shape), s, limit.reshape(shape))
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        mills = 1 / limit
        # θ³M + θ² + 2: for θ < -3 its first two terms cancel to 1 + O(θ⁻²) (and overflow beyond |θ| = 5.6e102),
        # so θ²(1 + θM) comes from Laplace's continued fraction of the Mills ratio instead.
        numerator = np.where(th < -3, _tail_square_excess(np.maximum(-th, 3.0)), th**3 * mills + th * th) + 2
        corrected = 1 / (mills + numerator / (3 * np.sqrt(s)))
    return _shaped(corrected, shape)


def _tail_square_excess(x: np.ndarray) -> np.ndarray:
    """x² (1 - x R(x)) for x >= 3, R(x) = Φ(-x)/φ(x) the Mills ratio, without cancellation or overflow.

    Laplace's continued fraction R = 1/(x + 1/(x + 2/(x + 3/(x + ...)))) gives 1 - x R = c/(x + c)
    with c = 1/(x + 2/(x + 3/(x + ...))); 80 terms reach 2.3e-16 relative to mpmath at 100 digits
    for x in [3, 1e300] (x² (1 - x R) = 1 - 3/x² + 15/x⁴ - ... tends to 1).
    """
    tail = np.zeros_like(x)
    for k in range(80, 1, -1):
        tail = k / (x + tail)
    c = 1 / (x + tail)
    return (x * c) * x / (x + c)


def halfin_whitt_delay(beta: Any) -> Any:
    """The Halfin–Whitt delay probability (1 + β Φ(β)/φ(β))⁻¹, limit of Erlang C.

    When (1 - a/s)√s → β > 0, C_s(a) → (1 + β Φ(β)/φ(β))⁻¹ (Halfin & Whitt 1981). The formula
    is evaluated stably for every real β: as φ/(φ + βΦ) for β >= 0 (no overflow, underflows to 0
    near β = 38.6), and for β < 0, where it exceeds 1 and is not a probability, through
    1 + βΦ/φ = g/(x + g) with x = -β/√2 and g = (½)/(x + 1/(x + (3/2)/(x + 2/(x + ...)))) from
    Laplace's continued fraction of erfc, which avoids the cancellation 1 - √π x erfcx(x).

    Parameters
    ----------
    beta : float or array_like
        Any real β (the limit is a probability for β > 0).

    Returns
    -------
    float or numpy.ndarray

    Raises
    ------
    InvalidParameterError
        NaN or infinite β.

    References
    ----------
    Halfin & Whitt, *Heavy-traffic limits for queues with many exponential servers* (1981),
    reference [26] of Anselmi & Doncel.

    Examples
    --------
    >>> round(halfin_whitt_delay(1.0), 12)
    0.223361274798
    """
    b = _validated("beta", beta, "must be a finite real number", np.isfinite)
    shape, (b,) = _broadcast(b)
    out = np.empty_like(b)
    pos = b >= 0
    bp = b[pos]
    with np.errstate(under="ignore"):
        density = np.exp(-0.5 * bp * bp) / np.sqrt(2 * np.pi)
        out[pos] = density / (density + bp * special.ndtr(bp))
    x = -b[~pos] / np.sqrt(2)
    out[~pos] = 1 / _one_minus_sqrtpi_x_erfcx(x)
    return _shaped(out, shape)


def _one_minus_sqrtpi_x_erfcx(x: np.ndarray) -> np.ndarray:
    """1 - √π x erfcx(x) for x > 0, without cancellation.

    √π erfcx(x) = 1/(x + g), g = (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...)))) (Laplace), so the
    value is g/(x + g). The fraction is summed backwards from depth 60 for x >= 2 (converged to
    double precision there); below, the direct formula loses at most a factor 10.
    """
    out = 1 - np.sqrt(np.pi) * x * special.erfcx(x)
    big = x >= 2
    xb = x[big]
    g = np.zeros_like(xb)
    for k in range(60, 0, -1):
        g = (k / 2) / (xb + g)
    out[big] = g / (xb + g)
    return out


@reproduces
def _lemma1_rows() -> list[Row]:
    """Lemma 1: √s E_s(s - θ√s) approaches φ(θ)/Φ(θ); the gap shrinks like 1/√s."""
    theta, rows = 0.7, []
    for s in (1e4, 1e8, 1e12):
        value = math.sqrt(s) * erlang_b(s, s - theta * math.sqrt(s))
        rows.append(Row(paper="Anselmi & Doncel, Lemma 1",
                        statement=f"√s E_s(a) -> φ(θ)/Φ(θ): (1 - a/s)√s = {theta}, s = {s:.0e} (tolerance 1/(4√s))",
                        paper_value=float(halfin_whitt_blocking(theta)), value=value,
                        tolerance=0.25 / math.sqrt(s)))
    return rows
