"""Erlang's loss and delay formulas, their inverses and the Halfin–Whitt limits.

Erlang's loss formula (Anselmi & Doncel, *Balanced Splitting*, eq. (3)) gives the blocking
probability of an M/GI/s/s queue with offered load ``a = λ d`` (Erlangs),
``E_s(a) = (a^s / s!) / sum_{l=0}^{s} a^l / l! = a^s e^{-a} / Γ(s+1, a)``, continued to real ``s >= 0``.
Every function here is exact to double precision in constant time for any size and never overflows
(relative error at most 4.1e-15 against mpmath, ``benchmarks/erlang.py``); ``erlang_b`` also gives any
number of digits. How (Temme's expansion, Legendre's continued fraction, exact fixed point), and the
measured accuracy: the documentation's page "How Erlang's formulas are computed" (docs/erlang.md).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from analytic._deprecation import old_names, positional_deprecated, renamed_arguments
from analytic._incomplete_gamma import deviance, erlang_b_exact, erlang_parts, gammaln, log_poisson, stirlerr
from analytic.errors import ConvergenceError, InvalidParameterError, UnstableSystemError, describe
from analytic.memory import available_bytes, fits
from analytic.validation import integer, real_array

__all__ = [
    "erlang_b",
    "erlang_b_offered_load",
    "erlang_b_servers",
    "erlang_c",
    "halfin_whitt_blocking",
    "halfin_whitt_delay",
    "log_erlang_b",
    "loss_occupancy",
    "loss_response_time",
]

#: Largest server count accepted (accuracy is measured up to 1e9 and spot-checked at 1e15).
MAX_SERVERS = 1e15


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
#: erlang_b_offered_load, the most).
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


@renamed_arguments(load="offered_load")
def erlang_b(servers: Any, offered_load: Any, precision: int | None = None) -> Any:
    """Erlang's loss formula E_s(a): the blocking probability of an M/GI/s/s queue.

    Parameters
    ----------
    servers : float or array_like
        Number of servers, 0 <= s <= 1e15; real values use the continuation a^s e^{-a} / Γ(s+1, a).
    offered_load : float or array_like
        Offered load a = λ d >= 0 in Erlangs (arrival rate times mean service time).
    precision : int, optional
        Decimal digits D, 1 to 1000: return ``mpmath.mpf`` values correct to D digits (an object
        array for array input) instead of floats, from exact sums in integer fixed point (see
        *High precision* on the documentation's page "How Erlang's formulas are computed"). Cost
        per value: n terms of about 0.5 µs (0.8 µs at 1000 digits) with
        n ≈ min(D ln 10 / ``|ln(a/s)|``, √(2 s D ln 10)): s = a = 1e6 at 1000 digits takes 0.07 s
        (68 000 terms), s = a = 1e9 at 50 digits 0.1 s. Near a = s the cost grows like
        √s: at 50 digits a quadrature takes over from s ≈ 4e10 (0.07 s); at 1000 digits it is 5 s
        at s = 1e10, a minute at 1e12 and about ten minutes from 6e13 on (the quadrature's cost
        there: 3 s at 300 digits, 22 s at 500).

    Returns
    -------
    float or numpy.ndarray
        E_s(a) in [0, 1], broadcast over the inputs. Relative error below 1e-14 against mpmath
        at 50 digits wherever E_s(a) >= 1e-300 (4.1e-15 at most on the grid of
        ``benchmarks/erlang.py``); smaller values lose relative precision as subnormals and
        underflow to 0 (use :func:`log_erlang_b`). Constant time per value; the method is
        described on the documentation's page "How Erlang's formulas are computed".

    Raises
    ------
    InvalidParameterError
        A negative, NaN or infinite ``offered_load``, ``servers`` outside [0, 1e15], a ``precision``
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
    s, a = _server_count("servers", servers), _nonnegative("offered_load", offered_load)
    if precision is not None:
        return _erlang_b_mpmath(s, a, precision)
    shape, (s, a) = _broadcast(s, a)
    return _shaped(erlang_parts(s, a).value(), shape)


@renamed_arguments(load="offered_load")
def log_erlang_b(servers: Any, offered_load: Any) -> Any:
    """Natural logarithm of Erlang's loss formula, finite far below the double range.

    Parameters
    ----------
    servers : float or array_like
        Number of servers, 0 <= s <= 1e15 (real values allowed, as in :func:`erlang_b`).
    offered_load : float or array_like
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
        A negative, NaN or infinite ``offered_load``, or ``servers`` outside [0, 1e15].

    Examples
    --------
    >>> round(log_erlang_b(1e9, 1e6) / 1e9, 9)
    -5.90875529
    """
    shape, (s, a) = _broadcast(_server_count("servers", servers), _nonnegative("offered_load", offered_load))
    with np.errstate(divide="ignore"):
        return _shaped(erlang_parts(s, a).log(), shape)


#: Most decimal digits erlang_b evaluates with mpmath.
MAX_PRECISION = 1000


def _erlang_b_mpmath(s: np.ndarray, a: np.ndarray, digits: Any) -> Any:
    """E_s(a) at ``digits`` decimal digits for every broadcast pair (see ``analytic._incomplete_gamma.erlang_b_exact``)."""
    if integer("precision", digits, meaning=" (decimal digits)") > MAX_PRECISION:
        raise InvalidParameterError("precision", digits, f"must be at most {MAX_PRECISION} decimal digits")
    _broadcast_shape(s, a, bytes_per_value=_BYTES_PER_VALUE + int(digits))
    return np.frompyfunc(lambda si, ai: erlang_b_exact(float(si), float(ai), int(digits)), 2, 1)(s, a)


@renamed_arguments(load="offered_load")
def erlang_c(servers: Any, offered_load: Any) -> Any:
    """Erlang's delay formula C_s(a): the probability of waiting in a stable M/M/s queue.

    C_s(a) = s E_s(a) / (s - a + a E_s(a)), from :func:`erlang_b` without cancellation (all three
    terms of the denominator are non-negative), so it inherits its relative accuracy (1e-13).

    Parameters
    ----------
    servers : float or array_like
        Number of servers, 0 < s <= 1e15 (real values use the continuation of E_s).
    offered_load : float or array_like
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
        offered_load >= servers: the M/M/s queue has no stationary distribution.

    Examples
    --------
    >>> round(erlang_c(2, 1.0), 12)
    0.333333333333
    """
    shape, (s, a) = _broadcast(_server_count("servers", servers), _nonnegative("offered_load", offered_load))
    unstable = a >= s
    if unstable.any():
        i = int(np.flatnonzero(unstable)[0])
        raise UnstableSystemError("offered_load", float(a[i]), float(s[i]),
                                  "Erlang C needs offered_load < servers (the M/M/s queue is otherwise unstable)")
    blocking = erlang_parts(s, a).value()
    return _shaped(s * blocking / ((s - a) + a * blocking), shape)


@renamed_arguments(load="offered_load")
def loss_occupancy(servers: Any, offered_load: Any, busy: Any) -> Any:
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
    offered_load : float or array_like
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
    shape, (s, a, k) = _broadcast(s, _nonnegative("offered_load", offered_load), k)
    above = k > s
    if above.any():
        i = int(np.flatnonzero(above)[0])
        raise InvalidParameterError("busy", float(k[i]), f"must be at most servers = {s[i]:.10g}")
    out = (k == 0).astype(float)  # load 0: every server idle
    loaded = a > 0
    s, a, k = s[loaded], a[loaded], k[loaded]
    parts = erlang_parts(s, a)
    # Where E = 1/(1+x) (a >= s): P = (π_k/π_s) / (1+x), the ratio from the deviance of k against s,
    # log(π_k/π_s) = -bd0(k, s) - (k-s) log(s/a) - ½ log(k/s) - stirlerr(k) + stirlerr(s): terms of one sign,
    # so no digit is lost to a difference of two large logarithms. Elsewhere P = π_k / Q(s+1, a)
    # (k = 0 as π_1/π_s times π_0/π_1 = 1/a, again of one sign since a >= s >= 1; s = 0 leaves P(N = 0) = 1.)
    log_law = np.zeros_like(s)
    ratio = parts.ratio
    near = ratio & (s > 0)
    x, m, load = np.maximum(k[near], 1.0), s[near], a[near]
    log_law[near] = (-deviance(x, m)[0] - (x - m) * _log_ratio(m, load) - 0.5 * _log_ratio(x, m)
                     - (stirlerr(x) - stirlerr(m)) - np.log1p(parts.x[near]) - np.where(k[near] == 0, np.log(load), 0.0))
    here_hi, here_lo = log_poisson(k[~ratio], a[~ratio])
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
    return _shaped(d * erlang_parts(s, load).complement(), shape)


@renamed_arguments(load="offered_load")
def erlang_b_servers(offered_load: Any, target: Any) -> Any:
    """Smallest integer number of servers s with E_s(a) <= target.

    Integer bisection on :func:`log_erlang_b` (so that E_s(a) below 1e-300 is compared exactly) inside a
    guaranteed bracket: s_hi = a + L/3 + √(L²/9 + 2aL) + 1 with L = log(2/target) satisfies
    E <= 2 P(Poisson(a) >= s) <= target by Bernstein's inequality. About log2(s) evaluations.

    Parameters
    ----------
    offered_load : float or array_like
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
        An offered load outside [0, 1e15], or a target outside (0, 1).

    Examples
    --------
    >>> erlang_b_servers(7.0, 0.1)  # E_9(7) = 0.127, E_10(7) = 0.079
    10
    """
    a, t = _server_count("offered_load", offered_load), _probability_target(target)
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
            meets = erlang_parts(mid, a[active]).log() <= log_target[active]
        hi[active[meets]] = mid[meets]
        lo[active[~meets]] = mid[~meets]
    return _shaped(hi.astype(np.int64), shape)


def erlang_b_offered_load(servers: Any, target: Any) -> Any:
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
        The offered load in Erlangs, to about 1e-15 relative (Newton in log a, then two Newton steps on
        a itself) times the condition number 1/f'(u), which exceeds 1 only for targets near 1
        (about 10 at target 0.9 with a >> s). Roots below the smallest double (s < 1 with tiny targets, e.g. s = 0.5,
        target = 1e-200 has a ≈ 8e-401) come out as 0 or a subnormal.

    Raises
    ------
    InvalidParameterError
        servers outside (0, 1e15] (E_0 = 1 for every load), or a target outside (0, 1).

    Examples
    --------
    >>> round(erlang_b_offered_load(1, 0.5), 12)  # E_1(a) = a / (1 + a)
    1.0
    """
    s = _server_count("servers", servers, positive=True)
    shape, (s, t) = _broadcast(s, _probability_target(target))
    log_target = np.log(t)
    with np.errstate(over="ignore"):  # tiny s: the bound is -inf, replaced just below
        lo = np.minimum(np.log(s), (np.log(t / 2) + gammaln(s + 1)) / s)
    lo = np.maximum(lo, math.log(np.finfo(float).smallest_subnormal) - 1)  # a root below underflows anyway
    hi = np.log(s) - np.log1p(-t)
    u = 0.5 * (lo + hi)
    active = np.arange(s.size)
    for _ in range(200):
        ua = u[active]
        parts = erlang_parts(s[active], np.exp(ua))
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
    raise ConvergenceError(f"erlang_b_offered_load: Newton iteration did not converge for servers = {describe(s[active[0]])}")


def _polished_load(s: np.ndarray, a: np.ndarray, log_target: np.ndarray) -> np.ndarray:
    """Two Newton steps a <- a exp(-f/f') on the load itself: log a resolves a only to ulp(log a),
    about 7e-15 relative at a = 1e15; the steps (clipped to 1e-12) recover full precision."""
    for _ in range(2):
        parts = erlang_parts(s, a)
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
    from scipy import special  # here: the Erlang commands start without scipy (benchmarks/startup.py)

    return np.sqrt(np.pi / 2) * special.erfcx(-x / np.sqrt(2))


@positional_deprecated("servers")
def halfin_whitt_blocking(theta: Any, *, servers: Any = None) -> Any:
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
    from scipy import special  # here: the Erlang commands start without scipy (benchmarks/startup.py)

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


@renamed_arguments(beta="theta")
def halfin_whitt_delay(theta: Any) -> Any:
    """The Halfin–Whitt delay probability (1 + θ Φ(θ)/φ(θ))⁻¹, limit of Erlang C.

    When (1 - a/s)√s → θ > 0, C_s(a) → (1 + θ Φ(θ)/φ(θ))⁻¹ (Halfin & Whitt 1981, who write β; θ here,
    as in :func:`halfin_whitt_blocking` and Anselmi & Doncel). The formula
    is evaluated stably for every real θ: as φ/(φ + θΦ) for θ >= 0 (no overflow, underflows to 0
    near θ = 38.6), and for θ < 0, where it exceeds 1 and is not a probability, through
    1 + θΦ/φ = g/(x + g) with x = -θ/√2 and g = (½)/(x + 1/(x + (3/2)/(x + 2/(x + ...)))) from
    Laplace's continued fraction of erfc, which avoids the cancellation 1 - √π x erfcx(x).

    Parameters
    ----------
    theta : float or array_like
        Any real θ (the limit is a probability for θ > 0).

    Returns
    -------
    float or numpy.ndarray

    Raises
    ------
    InvalidParameterError
        NaN or infinite θ.

    References
    ----------
    Halfin & Whitt, *Heavy-traffic limits for queues with many exponential servers* (1981),
    reference [26] of Anselmi & Doncel.

    Examples
    --------
    >>> round(halfin_whitt_delay(1.0), 12)
    0.223361274798
    """
    from scipy import special  # here: the Erlang commands start without scipy (benchmarks/startup.py)

    b = _validated("theta", theta, "must be a finite real number", np.isfinite)
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
    from scipy import special  # here: the Erlang commands start without scipy (benchmarks/startup.py)

    out = 1 - np.sqrt(np.pi) * x * special.erfcx(x)
    big = x >= 2
    xb = x[big]
    g = np.zeros_like(xb)
    for k in range(60, 0, -1):
        g = (k / 2) / (xb + g)
    out[big] = g / (xb + g)
    return out


# Names before issue 32's vocabulary (`load` is a fraction of capacity; Erlangs are an offered load):
# they warn, and go in version 0.3.
__getattr__ = old_names(globals(), {"erlang_b_load": "erlang_b_offered_load"})
