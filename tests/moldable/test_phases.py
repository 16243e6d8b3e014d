"""greedy(p) of Ghanbarian et al. with phase-type job sizes (analytic.moldable.greedy, ``size=``).

References, each independent of the package's chain builder:
* a brute-force generator written here from the rules of Section 2 (draw i, get min(i, idle); a job
  on c servers does its phase-type work at speed s_c), over every per-phase count vector of the
  simplex, solved densely in mpmath at 30 digits;
* Erlang's loss formula (insensitive to the size law: Sevastyanov 1957) for the linear speed-up,
  where every job holds 5 servers, against the phase-type chain built and solved (not the closed
  form greedy_metrics uses there);
* the exponential chain, for a two-phase law that is exponential in disguise (both phases of rate 1:
  the phase count lumps away).
The simulator with the same laws is checked against the chain by the coverage of its intervals over
100 fixed seeds.
"""

import itertools

import mpmath
import numpy as np
import pytest

from analytic.erlang import erlang_b
from analytic.errors import InvalidParameterError
from analytic.moldable import greedy_chain, greedy_metrics, simulate_moldable
from analytic.moldable.greedy import resolve_p
from analytic.simulation import PhaseType, SerialExecutor, compare, coverage_band, deterministic, erlang, fitted, hyperexponential
from analytic.speedup import SpeedupTable

SUBLINEAR = SpeedupTable([1, 1.8, 2.5, 3, 3.4])
THREE = SpeedupTable([1, 1.8, 2.5])
SERIAL = SerialExecutor()


def brute_force(speedup, lam, n, p, initial, generator):
    """P_b and E[N] of greedy(p) with phase-type sizes: dense generator over every per-phase count
    vector with Σ c X_{c,j} <= n (c = 1..d), stationary law by mpmath's LU at 30 digits."""
    d, m = speedup.d, len(initial)
    exits = -np.asarray(generator).sum(axis=1)
    ranges = [range(n // c + 1) for c in range(1, d + 1) for _ in range(m)]
    states = [x for x in itertools.product(*ranges)
              if sum((k // m + 1) * v for k, v in enumerate(x)) <= n]
    index = {x: i for i, x in enumerate(states)}
    with mpmath.workdps(30):
        Q = mpmath.zeros(len(states), len(states))
        for x, i in index.items():
            idle = n - sum((k // m + 1) * v for k, v in enumerate(x))

            def add(target, rate, i=i):
                Q[i, index[tuple(target)]] += mpmath.mpf(rate)

            for c in range(1, d + 1):
                s = float(speedup.values[c - 1])
                for j in range(m):
                    col = (c - 1) * m + j
                    if x[col] == 0:
                        continue
                    if exits[j] > 0:
                        add([v - (k == col) for k, v in enumerate(x)], s * exits[j] * x[col])
                    for to in range(m):
                        if to != j and generator[j][to] > 0:
                            y = list(x)
                            y[col] -= 1
                            y[(c - 1) * m + to] += 1
                            add(y, s * generator[j][to] * x[col])
            if idle:
                for want, prob in enumerate(p, start=1):
                    got = min(want, idle)
                    for j in range(m):
                        if prob > 0 and initial[j] > 0:
                            add([v + (k == (got - 1) * m + j) for k, v in enumerate(x)], n * lam * prob * initial[j])
        for i in range(len(states)):
            Q[i, i] = -mpmath.fsum(Q[i, k] for k in range(len(states)) if k != i)
        A = Q.T.copy()
        A[0, :] = mpmath.ones(1, len(states))                 # replace one balance equation by normalization
        b = mpmath.zeros(len(states), 1)
        b[0] = 1
        pi = mpmath.lu_solve(A, b)
        busy = [sum((k // m + 1) * v for k, v in enumerate(x)) for x in states]
        blocking = mpmath.fsum(pi[i] for i, used in enumerate(busy) if used == n)
        jobs = mpmath.fsum(pi[i] * sum(x) for i, x in enumerate(states))
        return float(blocking), float(jobs)


@pytest.mark.parametrize(("law", "speedup", "lam", "n"), [
    (erlang(2), THREE, 0.8, 4),
    (fitted(1.0, 2.0), THREE, 0.8, 4),                    # H2, scv 4
    (hyperexponential([0.3, 0.7], [2.0, 4 / 7]), THREE, 0.6, 5),
    pytest.param(erlang(3), SpeedupTable([1, 1.6]), 0.9, 5, marks=pytest.mark.slow),
])
def test_against_a_brute_force_generator_in_mpmath(law, speedup, lam, n):
    """Blocking and, through Little's law E[N] = nλ(1 - P_b) E[D], the mean execution time."""
    p = resolve_p(speedup, lam, None)
    ph = law.to_phase_type()
    blocking, jobs = brute_force(speedup, lam, n, p, np.asarray(ph.initial), np.asarray(ph.generator))
    metrics = greedy_metrics(speedup, lam, n, size=law)
    assert metrics.blocking == pytest.approx(blocking, rel=1e-9, abs=0)
    assert metrics.mean_response_time == pytest.approx(jobs / (n * lam * (1 - blocking)), rel=1e-9, abs=0)


@pytest.mark.parametrize("law", [erlang(4), fitted(1.0, 3.0), hyperexponential([0.5, 0.5], [0.5, 1.5])])
def test_one_allocation_size_is_erlangs_insensitive_loss_system(law):
    """Linear speed-up, 5 | n: every job holds 5 servers. The phase-type chain, built and solved, has
    Erlang's blocking E_{n/5}(nλ/5) whatever the size law of mean 1."""
    n, lam = 20, 0.9
    loss = greedy_chain(SpeedupTable.linear(5), lam, n, size=law)
    pi = loss.chain.stationary().probabilities
    assert loss.phases == len(law.to_phase_type().initial) > 1
    blocking = pi[loss.states[:, 0] * 5 == n].sum()
    assert blocking == pytest.approx(float(erlang_b(n // 5, n * lam / 5)), rel=1e-10, abs=0)


def test_an_exponential_law_written_with_two_phases_lumps_to_the_exponential_chain():
    disguised = PhaseType([0.25, 0.75], [[-1.0, 0.0], [0.0, -1.0]])
    exponential = greedy_metrics(SUBLINEAR, 0.8, 12)
    phased = greedy_metrics(SUBLINEAR, 0.8, 12, size=disguised)
    assert phased.blocking == pytest.approx(exponential.blocking, rel=1e-10, abs=0)
    assert phased.mean_response_time == pytest.approx(exponential.mean_response_time, rel=1e-10, abs=0)
    assert phased.n_states > exponential.n_states


def test_the_exponential_default_is_the_papers_chain():
    plain = greedy_chain(SUBLINEAR, 0.8, 12)
    explicit = greedy_chain(SUBLINEAR, 0.8, 12, size="exponential")
    assert plain.phases == explicit.phases == 1
    assert (plain.chain.generator != explicit.chain.generator).nnz == 0


def test_sizes_that_are_not_phase_type_or_not_of_mean_one_are_refused():
    with pytest.raises(InvalidParameterError, match="size.*phase-type.*to_phase_type"):
        greedy_metrics(SUBLINEAR, 0.8, 12, size=deterministic())
    with pytest.raises(InvalidParameterError, match="size.*mean 1.*scaled"):
        greedy_metrics(SUBLINEAR, 0.8, 12, size=erlang(2, mean=2.0))
    with pytest.raises(InvalidParameterError, match="size.*mean 1"):
        greedy_chain(SpeedupTable.linear(5), 0.9, 20, size=erlang(2, mean=0.5))


#: (law, speed-up, λ, n, p): the simulator with phase-type sizes against the chain that carries the phases.
SIMULATED = {
    "H2 (scv 4), p*, λ=0.8, n=10": (fitted(1.0, 2.0), SUBLINEAR, 0.8, 10, None),
    "Erlang-2, greedy, λ=0.8, n=12": (erlang(2), SUBLINEAR, 0.8, 12, "greedy"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", SIMULATED)
def test_simulated_phase_type_sizes_cover_the_exact_chain(name):
    """Coverage of the simulator's 95 % intervals of P_b and E[D] over 100 fixed seeds, inside the
    binomial band of coverage_band: the exact values come from the phase-type chain."""
    law, speedup, lam, n, p = SIMULATED[name]
    exact = greedy_metrics(speedup, lam, n, p, size=law)
    offset = 5000 + 1000 * list(SIMULATED).index(name)
    hits = np.zeros(2, dtype=int)
    for seed in range(100):
        sim = simulate_moldable(speedup, lam, n, p, size=law, arrivals=40_000, seed=offset + seed, executor=SERIAL)
        hits += [compare(sim.blocking, exact.blocking).agrees, compare(sim.mean_response_time, exact.mean_response_time).agrees]
    low, high = coverage_band(100)
    assert np.all((low <= hits) & (hits <= high)), f"coverage of (P_b, E[D]): {hits.tolist()} not in [{low}, {high}]"


def test_breadth_first_and_lattice_enumeration_build_the_same_chain():
    """Many phases (Erlang-10 on four server counts) exceed the lattice's 2**62 ranks, so the chain
    is explored breadth first; both builders, run on a law both can take, give the same generator
    up to the order of the states."""
    from analytic.moldable import greedy as greedy_module

    speedup, lam, n = SUBLINEAR, 0.8, 10
    p = resolve_p(speedup, lam, None)
    sizes = np.arange(1, 5)
    phases = tuple(np.asarray(a) for a in (erlang(3).to_phase_type().initial, erlang(3).to_phase_type().generator))
    explored = greedy_module._explore(n, lam, p, sizes, SUBLINEAR.values[:4], 10**6, phases)
    enumerated = greedy_module._enumerate(n, lam, p, sizes, SUBLINEAR.values[:4], 10**6, phases)
    order = [explored.index(tuple(state)) for state in enumerated.states]
    assert explored.n_states == enumerated.n_states
    assert abs(explored.generator[order][:, order] - enumerated.generator).max() == 0
