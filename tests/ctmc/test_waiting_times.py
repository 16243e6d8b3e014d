"""FCFS waiting-time laws of M/H2/1 and M/E_k/1 from CTMC.passage_time, against their closed forms.

The waiting time of an arrival is the time the work ahead of it takes to drain: by PASTA it finds
the stationary state (jobs n, phase of the job in service) of the M/PH/1 queue, and under FCFS
later arrivals do not delay it, so it is the passage time to the empty system of the chain with the
service transitions only, started from the stationary law. The queue is truncated at K jobs where
its stationary mass is far below the tolerances (checked).

Reference (independent of the package): the Pollaczek–Khinchine transform
``W*(s) = (1 - ρ) s / (s - λ + λ B*(s))``. For a size law whose transform is a ratio of polynomials
(H2, Erlang-k) the denominator times that of ``B*`` is a polynomial with the root 0 and m roots
``-r_i`` (Re r_i > 0), so ``W*(s) = (1 - ρ) Π(s + μ_j) / Π(s + r_i)`` and, by partial fractions,
``P(W > t) = (1 - ρ) Σ_i c_i e^{-r_i t}`` with ``c_i = Π_j(μ_j - r_i) / (r_i Π_{l≠i}(r_l - r_i))``.
Roots and coefficients in mpmath at 40 digits.
"""

import mpmath
import numpy as np
import pytest

from analytic.ctmc import CTMC
from analytic.simulation import erlang, hyperexponential


def tail_from_transform(lam, rho, numerator, poles, times):
    """P(W > t) for B*(s) = numerator(s) / Π_j (s + poles_j) (numerator: mpmath polynomial coefficients, highest
    first), at 40 digits: the roots of (s - λ) Π(s + μ_j) + λ N(s), one of them 0, give the partial fractions."""
    with mpmath.workdps(40):
        mu = [mpmath.mpf(p) for p in poles]
        product = [mpmath.mpf(1)]
        for m in mu:                                        # Π (s + μ_j), coefficients highest first
            product = [a + b for a, b in zip([*product, 0], [0, *[m * c for c in product]], strict=True)]
        shifted = [a - lam * b for a, b in zip([*product, 0], [0, *product], strict=True)]   # (s - λ) Π(s + μ_j)
        numerator = [mpmath.mpf(0)] * (len(shifted) - len(numerator)) + [mpmath.mpf(c) for c in numerator]
        polynomial = [a + lam * b for a, b in zip(shifted, numerator, strict=True)]
        roots = [r for r in mpmath.polyroots(polynomial, maxsteps=200, extraprec=200) if abs(r) > mpmath.mpf(10) ** -30]
        assert len(roots) == len(mu)
        rates = [-r for r in roots]
        coefficients = [mpmath.fprod(m - r for m in mu) / (r * mpmath.fprod(q - r for q in rates if q is not r))
                        for r in rates]
        return [float(mpmath.re((1 - rho) * mpmath.fsum(c * mpmath.exp(-r * t) for c, r in zip(coefficients, rates,
                                                                                                 strict=True))))
                for t in times]


def waiting_time_survival(law, lam, capacity, times):
    """P(W > t) by passage_time on the service-only chain, from the stationary law of M/PH/1/K."""
    ph = law.to_phase_type()
    alpha, generator = np.asarray(ph.initial), np.asarray(ph.generator)
    exits, m = -generator.sum(axis=1), len(alpha)

    def service(state):
        n, j = state
        if n == 0:
            return
        for to in range(m):
            if to != j and generator[j, to] > 0:
                yield (n, to), generator[j, to]
        if exits[j] > 0:
            if n == 1:
                yield (0, 0), exits[j]
            else:
                for to in range(m):
                    if alpha[to] > 0:
                        yield (n - 1, to), exits[j] * alpha[to]

    def queue(state):
        n, j = state
        if n == 0:
            yield from (((1, to), lam * alpha[to]) for to in range(m) if alpha[to] > 0)
            return
        if n < capacity:
            yield (n + 1, j), lam
        yield from service(state)

    stationary = CTMC.from_function((0, 0), queue).stationary()
    assert sum(stationary.probability(s) for s in stationary.states if s[0] >= capacity - 5) < 1e-13
    drain = CTMC.from_function((capacity, 0), service)
    seen = np.array([stationary.probability(s) if s in set(stationary.states) else 0.0 for s in drain.states])
    passage = drain.passage_time(lambda s: s[0] == 0, seen / seen.sum())
    return passage.survival(np.asarray(times)), passage


TIMES = [0.0, 0.3, 1.0, 2.5, 6.0, 15.0]


@pytest.mark.parametrize(("probabilities", "means", "load"), [([0.5, 0.5], [0.4, 1.6], 0.5), ([0.9, 0.1], [0.5, 5.5], 0.6)])
def test_m_h2_1_waiting_time_tail(probabilities, means, load):
    law = hyperexponential(probabilities, means)
    lam = load / law.mean
    mu = [1 / m for m in means]
    numerator = [probabilities[0] * mu[0] + probabilities[1] * mu[1], mu[0] * mu[1]]   # p1 μ1 (s + μ2) + p2 μ2 (s + μ1)
    expected = tail_from_transform(lam, load, numerator, mu, TIMES)
    survival, passage = waiting_time_survival(law, lam, 220, TIMES)
    np.testing.assert_allclose(survival, expected, rtol=1e-9, atol=1e-14)
    assert passage.at_target == pytest.approx(1 - load, rel=1e-10, abs=0)       # P(W = 0) = 1 - ρ


@pytest.mark.parametrize("k", [2, 3, 5])
def test_m_ek_1_waiting_time_tail(k):
    law, lam = erlang(k), 0.7
    rate = float(k)
    expected = tail_from_transform(lam, lam, [rate**k], [rate] * k, TIMES)             # B*(s) = (kμ)^k / (s + kμ)^k
    survival, _ = waiting_time_survival(law, lam, 120, TIMES)
    np.testing.assert_allclose(survival, expected, rtol=1e-9, atol=1e-14)
