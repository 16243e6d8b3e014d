"""Accuracy and speed of analytic.erlang.erlang_b against mpmath and the O(s) recursion.

Run as ``python benchmarks/erlang.py`` (a few minutes), or ``--precision`` for the
high-precision section alone.

Accuracy: relative error of E_s(a) (where E >= 1e-300) and of log E_s(a) against the package's
high-precision path ``erlang_b(s, a, precision=50)`` (exact sums in integer fixed point, checked
against mpmath's incomplete gamma function in the tests) on a dense grid:
servers from 0.01 to 1e9 (real and integer), loads from 1e-3 s to 1e3 s plus the Halfin–Whitt
band s ± 40√s. For comparison, the same errors of the two evaluations the issue names: the O(s)
recursion in log space (as common packages do) and the plain ratio a^s e^{-a} / (Γ(s+1) Q(s+1, a))
with scipy's gammaincc.

Speed: values per second of the vectorized erlang_b on 10^6 random inputs, against the O(s)
recursion (a Python loop per value, and numpy-vectorized over loads at a fixed s) and mpmath,
all measured in this run; the ratios are printed.

High precision: seconds of ``erlang_b(s, a, precision=D)`` against two baselines timed in the same
run on the same points: the quadrature of 1/E the package used before
(``analytic._incomplete_gamma.quadrature``, still its fallback for the largest s near a = s; 550 s
at s = a = 1e6 and 1000 digits, so timed up to 300 digits), and mpmath's ``gammainc``
(a^s e^{-a} / Γ(s+1, a)), with the digits on which they agree.
"""

from __future__ import annotations

import math
import time

import mpmath as mp
import numpy as np
from scipy import special

from analytic._incomplete_gamma import erlang_parts, quadrature
from analytic.erlang import erlang_b, log_erlang_b

mp.mp.dps = 50
LOG_TINY = math.log(1e-300)


def log_sum_exp(s: int, a: float) -> float:
    """The O(s) evaluation of common packages: log E = t_s - logsumexp(t_0..t_s), t_k = k log a - log k!."""
    k = np.arange(s + 1, dtype=float)
    terms = k * math.log(a) - special.gammaln(k + 1)
    return float(terms[-1] - special.logsumexp(terms))


def recursion(s: int, a: float) -> float:
    blocking = 1.0
    for k in range(1, s + 1):
        blocking = a * blocking / (k + a * blocking)
    return blocking


def gammaincc_ratio(s: np.ndarray, a: np.ndarray) -> np.ndarray:
    """exp(s log a - a - log Γ(s+1)) / Q(s+1, a): straightforward, loses digits for large s."""
    with np.errstate(all="ignore"):
        return np.exp(s * np.log(a) - a - special.gammaln(s + 1)) / special.gammaincc(s + 1, a)


def grid() -> tuple[np.ndarray, np.ndarray]:
    servers = np.unique(np.concatenate([np.geomspace(0.01, 1e9, 45), np.floor(np.geomspace(1, 1e9, 23)),
                                        [19.999, 20, 20.001, 0.5, 1.5, 2.5]]))
    points = set()
    for s in servers:
        points.update((float(s), float(s * r)) for r in np.geomspace(1e-3, 1e3, 37))
        points.update((float(s), float(s * r)) for r in (0.35, 0.3499, 0.3501, 1.9999, 2.0, 2.0001, 1.0))
        points.update((float(s), float(s + z * math.sqrt(s))) for z in np.linspace(-40, 40, 21) if s + z * math.sqrt(s) > 0)
    rng = np.random.default_rng(7)
    for _ in range(300):  # random real servers and loads, and small real servers near a = 1
        s = 10 ** rng.uniform(-2, 9)
        points.add((float(s), float(s * 10 ** rng.uniform(-3, 3))))
        s = rng.uniform(0, 3)
        points.add((float(s), float(rng.uniform(0.01, 3))))
    pts = sorted(points)
    return np.array([p[0] for p in pts]), np.array([p[1] for p in pts])


def region_names(s: np.ndarray, a: np.ndarray) -> np.ndarray:
    temme = (s >= 20) & (a >= 0.35 * s) & (a <= 2 * s)
    names = np.where(temme, "Temme", np.where(a <= s, "series", np.where((a < 1) & (s != np.floor(s)), "small order",
                                                                         "continued fraction")))
    return np.where((s == 0) | (a == 0), "trivial", names)


def accuracy() -> None:
    s, a = grid()
    print(f"accuracy grid: {s.size} points, servers {s.min():g}..{s.max():g}, loads {a.min():.3g}..{a.max():.3g}")
    start = time.perf_counter()
    ref = [mp.log(value) for value in erlang_b(s, a, precision=50)]
    print(f"  50-digit reference (erlang_b(..., precision=50)) computed in {time.perf_counter() - start:.0f} s")
    values, logs = erlang_b(s, a), log_erlang_b(s, a)
    naive = gammaincc_ratio(s, a)
    rel, rel_log, rel_naive = np.zeros(s.size), np.zeros(s.size), np.full(s.size, np.nan)
    for i, r in enumerate(ref):
        if r > LOG_TINY:
            exact = mp.exp(r)
            rel[i] = float(abs(mp.mpf(float(values[i])) / exact - 1))
            if np.isfinite(naive[i]):
                rel_naive[i] = float(abs(mp.mpf(float(naive[i])) / exact - 1))
        rel_log[i] = float(abs(mp.mpf(float(logs[i])) - r) / max(1, abs(r)))
    shown = np.array([r > LOG_TINY for r in ref])
    print(f"  erlang_b: max relative error {rel.max():.2e} over the {shown.sum()} points with E >= 1e-300 "
          f"(median {np.median(rel[shown]):.1e}); target 1e-13")
    worst = int(np.argmax(rel))
    print(f"    worst at s = {s[worst]:.6g}, a = {a[worst]:.6g} (E = {values[worst]:.3g})")
    print(f"  log_erlang_b: max error {rel_log.max():.2e} (absolute where |log E| < 1, relative beyond), "
          f"down to log E = {min(float(r) for r in ref):.3g}")
    names = region_names(s, a)
    for name in ("series", "continued fraction", "small order", "Temme"):
        mask = (names == name) & shown
        if mask.any():
            print(f"    {name:>18}: {mask.sum():5d} points, max relative error {rel[mask].max():.2e}")
    big = shown & (s >= 1e6)
    print(f"  baseline gammaincc ratio: max relative error {np.nanmax(rel_naive[big]):.2e} for s >= 1e6 "
          f"(at s = 1e9: {np.nanmax(rel_naive[shown & (s >= 1e9)]):.2e}); NaN/inf on "
          f"{int(np.sum(~np.isfinite(naive[shown])))} points")
    for s_int in (1000, 10**6):
        a_int = float(s_int)
        exact = mp.log(erlang_b(s_int, a_int, precision=50))
        error = abs(mp.mpf(log_sum_exp(s_int, a_int)) - exact)
        ours = abs(mp.mpf(float(log_erlang_b(s_int, a_int))) - exact)
        print(f"  baseline O(s) log-sum-exp of the Poisson terms at s = a = {s_int:g}: relative error of E {float(error):.1e} "
              f"(erlang_b: {float(ours):.1e})")


def best_time(function, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def speed() -> None:
    rng = np.random.default_rng(0)
    n = 10**6
    erlang_b(np.array([30.0]), np.array([30.0]))  # generate Temme's coefficients once
    cases = {
        "integer s in [1, 1e9], a/s in [1e-3, 1e3]": np.floor(10 ** rng.uniform(0, 9, n)),
        "real s in [0.01, 1e9], a/s in [1e-3, 1e3]": 10 ** rng.uniform(-2, 9, n),
    }
    print(f"speed: values per second, vectorized over {n:,} random inputs (best of 3)")
    rates = {}
    for name, s in cases.items():
        a = s * 10 ** rng.uniform(-3, 3, n)
        rates[name] = n / best_time(lambda s=s, a=a: erlang_b(s, a))
    s = np.floor(10 ** rng.uniform(2, 9, n))
    a = s + rng.normal(0, 1, n) * np.sqrt(s)
    rates["Halfin-Whitt band a = s + N(0,1)√s, s in [1e2, 1e9]"] = n / best_time(lambda: erlang_b(s, a))
    s = rng.integers(1, 30, n).astype(float)
    a = s * 10 ** rng.uniform(-1, 1, n)
    rates["small s in [1, 30), a/s in [0.1, 10]"] = n / best_time(lambda: erlang_b(s, a))
    for name, rate in rates.items():
        print(f"  erlang_b, {name}: {rate:,.0f}/s")
    slowest = min(rates.values())

    loads = 10 ** rng.uniform(2.5, 3.5, 200)
    python_rate = loads.size / best_time(lambda: [recursion(1000, x) for x in loads], 1)
    big = np.full(10**5, 1000.0) * 10 ** rng.uniform(-0.5, 0.5, 10**5)

    def vector_recursion(values: np.ndarray, servers: int) -> np.ndarray:
        blocking = np.ones_like(values)
        for k in range(1, servers + 1):
            blocking = values * blocking / (k + values * blocking)
        return blocking

    numpy_rate = big.size / best_time(lambda: vector_recursion(big, 1000), 1)
    ours_1000 = big.size / best_time(lambda: erlang_b(np.full(big.size, 1000.0), big))
    sample = [(float(x), float(y)) for x, y in zip(np.floor(10 ** rng.uniform(0, 4, 40)), 10 ** rng.uniform(0, 4, 40),
                                                     strict=True)]
    mp_rate = len(sample) / best_time(lambda: [mp.exp(mp.mpf(x) * mp.log(y) - y) / mp.gammainc(x + 1, y)
                                               for x, y in sample], 1)
    parts_rate = n / best_time(lambda: erlang_parts(np.full(n, 1e6), np.full(n, 1e6)))
    print(f"  baselines at s = 1000: O(s) recursion as a Python loop {python_rate:,.0f}/s, numpy-vectorized over "
          f"loads {numpy_rate:,.0f}/s; mpmath at 50 digits (s <= 1e4) {mp_rate:,.0f}/s")
    print(f"  ratios at s = 1000: erlang_b ({ours_1000:,.0f}/s) is {ours_1000 / python_rate:,.0f}x the Python recursion "
          f"and {ours_1000 / numpy_rate:,.1f}x the numpy recursion; the recursion's cost grows like s, erlang_b's does "
          f"not ({parts_rate:,.0f}/s at s = a = 1e6, {parts_rate / numpy_rate * 1000:,.0f}x the numpy recursion's rate there)")
    print(f"  ratio of the slowest erlang_b case above to mpmath: {slowest / mp_rate:,.0f}x")


def timed(function) -> tuple[float, object]:
    start = time.perf_counter()
    value = function()
    return time.perf_counter() - start, value


def precision_speed() -> None:
    print("high precision: seconds per value of erlang_b(s, a, precision=D) and of two baselines timed here")
    cases = [(1e6, 1e6, 50), (1e6, 1e6, 300), (1e6, 1e6, 1000), (1e9, 1e9, 50), (1e9, 0.99e9, 50), (12345.5, 13000.75, 1000),
             (0.3, 0.7, 1000), (1e5, 9.9e4, 1000)]
    for s, a, digits in cases:
        ours, value = timed(lambda s=s, a=a, digits=digits: erlang_b(s, a, precision=digits))
        line = f"  s = {s:g}, a = {a:g}, D = {digits}: erlang_b {ours:.3f} s"
        if digits <= 300:
            with mp.workdps(digits + 15):
                spent, inverse = timed(lambda s=s, a=a: quadrature(mp.mpf(s), mp.mpf(a)))
            with mp.workdps(digits + 15):
                agree = -float(mp.log10(abs(value * inverse - 1) + mp.mpf(10) ** -(digits + 15)))
            line += f"; former quadrature {spent:.3f} s (ratio {spent / ours:,.1f}, agrees to {agree:.0f} digits)"
        if s > 1e6 and a < s:   # mpmath's gammainc takes minutes there (292 s at s = 1e9, a = 9.9e8, 50 digits)
            print(line, flush=True)
            continue
        try:
            with mp.workdps(digits + 15):
                spent, reference = timed(lambda s=s, a=a: mp.exp(mp.mpf(s) * mp.log(a) - a) / mp.gammainc(mp.mpf(s) + 1, a))
                agree = -float(mp.log10(abs(value / reference - 1) + mp.mpf(10) ** -(digits + 15)))
            line += f"; mpmath gammainc {spent:.3f} s (ratio {spent / ours:,.1f}, agrees to {agree:.0f} digits)"
        except mp.libmp.NoConvergence:
            line += "; mpmath gammainc does not converge"
        print(line, flush=True)


if __name__ == "__main__":
    import sys

    precision_speed()
    if "--precision" not in sys.argv:
        speed()
        accuracy()
