"""fcfs_bounds (analytic.splitting.certified): each part of its certificate against the exact value.

tests/splitting/test_bounds.py checks that the intervals contain Erlang C and a deep exact chain;
here the parts that make them are compared with independent computations on the lumped FCFS chain
of analytic.splitting.multiserver_chain, capped a few levels above the kept ones (its rows below the
cap are the untruncated chain's):

* the states outside the kept levels with a jump into them, found by scanning every row of that
  chain (not from the bound on the jobs one departure starts), including the states L + s whose
  departure starts s waiting jobs;
* ``κ = max_y Σ_j q(y, j) m_j`` with the mean hitting times ``m`` of the reference state solved by
  mpmath at 30 digits;
* the neglected mass ``c / (c + η)``, with ``V = e^{θ ℓ} w(phase)``, ``w = (-M(θ))^{-1} 1`` from the
  chain's own rates above the kept levels, and ``c``, ``η`` the brute-force extremes of ``GV`` (mpmath);
* the bound on the waiting jobs above the kept levels in ``E[R]``, against the least ratio ``r`` with
  ``ℓ <= r (-GV)`` there (mpmath).
"""

import math

import mpmath
import pytest

import analytic.splitting.certified as certified
from analytic.splitting import RigidClass, fcfs_bounds, multiserver_chain

#: k = 2 servers, jobs needing 1 and 2: a departure of a 2-server job can start two 1-server jobs, so the
#: states two levels above the kept ones jump into them (s = 2).
SERVERS, CLASSES, ARRIVAL = 2, (RigidClass(1, 0.5, 1.0), RigidClass(2, 0.5, 1.0)), 0.6


@pytest.fixture(scope="module")
def solved():
    """fcfs_bounds at width 0.5 (a kept set of 100-odd states), its last truncation, and the lumped chain
    capped four levels above the kept ones and above 1/θ."""
    found = {}
    solve = certified.solve_truncated

    def spy(chain, drift, **kwargs):
        found["truncation"] = solve(chain, drift, **kwargs)
        return found["truncation"]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(certified, "solve_truncated", spy)
        bounds = fcfs_bounds(SERVERS, CLASSES, ARRIVAL, width=0.5)
    cap = bounds.levels + 4 + math.ceil(1 / bounds.theta)
    chain = multiserver_chain("fcfs", SERVERS, CLASSES, ARRIVAL, max_waiting=cap, representation="lumped")
    return bounds, found["truncation"], chain


def _rows(chain):
    """Per state of the capped chain, its jumps {state': rate}."""
    rates = chain.generator.tocsr()
    states = chain.states
    return {states[i]: {states[j]: float(rates[i, j]) for j in rates.indices[rates.indptr[i]:rates.indptr[i + 1]]
                        if j != i and rates[i, j] > 0} for i in range(chain.n_states)}


def test_boundary_is_every_state_outside_with_a_jump_in(solved):
    """The boundary of the truncation, and its rates into the kept set, against a scan of every row of the
    capped chain; the states L + 2 (two starts) are among them."""
    bounds, truncation, chain = solved
    rows = _rows(chain)
    kept = {s for s in rows if s[2] <= bounds.levels}
    expected = {y: {j: q for j, q in row.items() if j in kept} for y, row in rows.items() if y not in kept}
    expected = {y: into for y, into in expected.items() if into}
    assert any(y[2] == bounds.levels + 2 for y in expected)
    boundary = truncation.chain.boundary
    assert set(boundary) == set(expected)
    entries = truncation.chain.entries.tocsr()
    index = {s: i for i, s in enumerate(truncation.chain.states)}
    for b, y in enumerate(boundary):
        found = {truncation.chain.states[j]: entries[b, j] for j in entries.indices[entries.indptr[b]:entries.indptr[b + 1]]}
        assert found == pytest.approx(expected[y], rel=1e-15, abs=0)
        assert all(j in index for j in found)


@pytest.mark.slow
def test_entry_cost_against_exact_hitting_times(solved):
    """κ against the largest Σ_j q(y, j) m_j over the states outside, m solved by mpmath (30 digits) on the
    kept states with every exit sent to the reference: κ is at least that and within 1e-5 of it."""
    bounds, truncation, chain = solved
    rows = _rows(chain)
    kept = [s for s in rows if s[2] <= bounds.levels]
    reference = truncation.chain.states[truncation.chain.reference]
    others = [s for s in kept if s != reference]
    position = {s: i for i, s in enumerate(others)}
    with mpmath.workdps(30):
        matrix = mpmath.zeros(len(others), len(others))
        for s in others:
            for t, q in rows[s].items():
                matrix[position[s], position[s]] += q
                target = t if t[2] <= bounds.levels else reference
                if target != reference:
                    matrix[position[s], position[target]] -= q
        m = mpmath.lu_solve(matrix, mpmath.ones(len(others), 1))
        hitting = {s: m[position[s]] for s in others} | {reference: mpmath.mpf(0)}
        flows = [mpmath.fsum(q * hitting[j] for j, q in row.items() if j[2] <= bounds.levels)
                 for y, row in rows.items() if y[2] > bounds.levels and y[2] <= bounds.levels + SERVERS + 1]
        largest = max(flows)
        assert largest <= bounds.entry_cost <= largest * (1 + mpmath.mpf(10) ** -5)


def _drift(bounds, rows):
    """GV of V = e^{θ ℓ} w(phase) (0 with no job waiting) at a state, in mpmath (30 digits): w = (-M(θ))^{-1} 1
    with M(θ) the tilted generator of the phases from the capped chain's rates at level L + 1."""
    level, t = bounds.levels, mpmath.mpf(bounds.theta)
    phases = [(s[0], s[1]) for s in rows if s[2] == level + 1]
    index = {p: i for i, p in enumerate(phases)}
    tilted = mpmath.zeros(len(phases), len(phases))
    for p in phases:
        for target, q in rows[(*p, level + 1)].items():
            tilted[index[p], index[p]] += q
            tilted[index[p], index[target[0], target[1]]] -= q * mpmath.exp(t * (target[2] - level - 1))
    w = mpmath.lu_solve(tilted, mpmath.ones(len(phases), 1))

    def lyapunov(state):
        return mpmath.mpf(0) if state[2] == 0 else mpmath.exp(t * state[2]) * w[index[state[0], state[1]]]

    return lambda state: mpmath.fsum(q * (lyapunov(y) - lyapunov(state)) for y, q in rows[state].items())


def test_neglected_mass_is_c_over_c_plus_eta(solved):
    """ε = c / (c + η) with c the largest GV over the kept states and η the least -GV at levels L + 1 and L + 2
    (the least above L: GV = e^{θ ℓ} D there), GV of _drift; agreeing to 1e-9 (the package's w is a double
    solve)."""
    bounds, _, chain = solved
    rows, level = _rows(chain), bounds.levels
    with mpmath.workdps(30):
        drift = _drift(bounds, rows)
        c = max(mpmath.mpf(0), max(drift(s) for s in rows if s[2] <= level))
        eta = min(-drift(s) for s in rows if level < s[2] <= level + 2)
        assert eta > 0
        assert abs(bounds.neglected_mass / (c / (c + eta)) - 1) < 1e-9


def test_waiting_jobs_above_the_kept_levels_are_bounded_with_the_least_ratio(solved):
    """E[R] = Σ α_i d_i + E[ℓ] / λ, with π(ℓ 1_(ℓ > L)) <= r c for any r with ℓ <= r (-GV) above L. The least such
    r, from GV of _drift on every level L + 1 .. L + 1 + 1/θ (beyond, ℓ e^{-θ ℓ} decreases), gives an upper end of
    E[R] the certified one must reach (relative 1e-9)."""
    bounds, truncation, chain = solved
    rows, level = _rows(chain), bounds.levels
    with mpmath.workdps(30):
        drift = _drift(bounds, rows)
        ratio = max(s[2] / -drift(s) for s in rows if level < s[2] <= level + 1 + math.ceil(1 / bounds.theta))
    outside = (0.0, truncation.drift.outside_expectation(float(ratio)))
    waiting = truncation.interval(lambda state: state[2], outside=outside)
    assert bounds.response_time[1] >= (1.0 + waiting[1] / ARRIVAL) * (1 - 1e-9)       # Σ α_i d_i = 1


def test_neglected_mass_covers_the_exact_mass_left_out(solved):
    """The certified ε is above π(ℓ > L) of the chain capped at 300 waiting jobs (GTH), whose mass at the cap
    (below 1e-30) bounds how far it is from the untruncated queue's."""
    bounds, _, _ = solved
    deep = multiserver_chain("fcfs", SERVERS, CLASSES, ARRIVAL, max_waiting=300, representation="lumped")
    law = dict(zip(deep.states, deep.stationary(method="gth").probabilities, strict=True))
    assert max(p for s, p in law.items() if s[2] == 300) < 1e-30
    outside = math.fsum(p for s, p in law.items() if s[2] > bounds.levels)
    assert 0 < outside <= bounds.neglected_mass


def test_a_limit_beyond_the_machine_integers_is_no_limit(solved):
    """max_states = 10^30 (more than sys.maxsize) gives the intervals of the default limit."""
    bounds, _, _ = solved
    assert fcfs_bounds(SERVERS, CLASSES, ARRIVAL, width=0.5, max_states=10**30) == bounds
