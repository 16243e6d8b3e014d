"""Tests of analytic.splitting.simulation (simulate_multiserver) against independent computations.

References: the exact CTMCs of analytic.splitting.chains (FCFS, Most Servers First, BS-FCFS,
ModifiedBS-FCFS; exponential sizes), by the coverage of the simulator's intervals over 100 fixed
seeds, inside the binomial band of coverage_band; Erlang's loss formula (its recursion) for the
reserved sets of ModifiedBS with deterministic, Pareto and hyperexponential sizes (insensitivity,
Property 1); FCFS's exact saturation throughput (fcfs_saturation) for the growth of an unstable
queue; the policies of Section 2 re-implemented here as plain-Python callables from the paper's
text, run through the simulator's callable interface on the same random numbers; brute-force
enumeration for the MaxWeight knapsack.
"""

import itertools
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.errors import InvalidParameterError, UnstableSystemError
from analytic.simulation import SerialExecutor, compare, coverage_band, hyperexponential, pareto
from analytic.splitting import (
    RigidClass,
    balanced_partition,
    exact_multiserver,
    fcfs_saturation,
    simulate_multiserver,
)
from analytic.splitting._engine import _knapsack

SEEDS = 100
TWO = [RigidClass(1, 0.6, 1.0), RigidClass(2, 0.4, 1.5)]
THREE = [RigidClass(1, 0.6, 1.0), RigidClass(2, 0.3, 1.0), RigidClass(4, 0.1, 2.0)]


def rate_at(load, k, classes):
    return load * k / float(sum(c.demand for c in classes))


def erlang_b_recursion(s, a):
    blocking = 1.0
    for k in range(1, s + 1):
        blocking = a * blocking / (k + a * blocking)
    return blocking


# ---------------------------------------------------------------------------------------------
# Coverage of the exact values over many seeds
# ---------------------------------------------------------------------------------------------

CASES = [
    ("fcfs", 8, THREE, 0.6, 120, ["mean_response_time", "wait_probability"]),
    ("msf", 8, TWO, 0.6, 120, ["mean_response_time", "wait_probability"]),
    ("bs-fcfs", 8, TWO, 0.4, 10, ["mean_response_time", "wait_probability", "helper_probability",
                                  "helper_service_probability"]),
    ("modified-bs-fcfs", 7, TWO, 0.3, 8, ["mean_response_time", "wait_probability", "helper_probability"]),
]


@pytest.mark.parametrize("policy,k,classes,load,depth,metrics", CASES, ids=[c[0] for c in CASES])
def test_intervals_cover_the_exact_chain(policy, k, classes, load, depth, metrics):
    rate = rate_at(load, k, classes)
    exact = exact_multiserver(policy, k, classes, rate, max_waiting=depth)
    assert exact.lost_fraction < 5e-5  # the truncation is far below the simulation's resolution
    low, high = coverage_band(SEEDS)
    hits = dict.fromkeys(metrics, 0)
    for seed in range(SEEDS):
        sim = simulate_multiserver(policy, k, classes, rate, arrivals=10_000, seed=seed)
        for name in metrics:
            hits[name] += compare(getattr(sim, name), getattr(exact, name)).agrees
    assert all(low <= count <= high for count in hits.values()), (hits, (low, high))


@pytest.mark.slow
def test_per_class_estimates_cover_the_exact_chain():
    rate = rate_at(0.6, 8, THREE)
    exact = exact_multiserver("fcfs", 8, THREE, rate, max_waiting=120)
    low, high = coverage_band(SEEDS)
    hits = np.zeros((3, 2), dtype=int)
    for seed in range(SEEDS):
        sim = simulate_multiserver("fcfs", 8, THREE, rate, arrivals=10_000, replications=5, seed=seed, executor=SerialExecutor())
        verdicts = compare(exact, sim)          # every field the two results share, by name
        hits[:, 0] += [c.agrees for c in verdicts["per_class_response_time"]]
        hits[:, 1] += [c.agrees for c in verdicts["per_class_wait_probability"]]
    assert np.all((low <= hits) & (hits <= high)), hits


@pytest.mark.slow
def test_modified_bs_sends_erlang_b_to_the_helpers_for_any_size_law():
    """Property 1: each A_i is an M/GI/s_i/s_i loss system, insensitive to the size law."""
    classes = [RigidClass(1, 0.5, 1.0, size="deterministic"), RigidClass(2, 0.3, 2.0, size=pareto(2.5)),
               RigidClass(4, 0.2, 1.0, size=hyperexponential([0.2, 0.8], [3.0, 0.5]))]
    k, rate = 24, rate_at(0.5, 24, classes)
    slots = balanced_partition(k, classes).servers_per_class
    loads = [rate * float(c.probability) * float(c.mean_size) for c in classes]
    erlang = [erlang_b_recursion(s, a) for s, a in zip(slots, loads, strict=True)]
    runs = 60
    low, high = coverage_band(runs)
    hits = np.zeros(3, dtype=int)
    for seed in range(runs):
        sim = simulate_multiserver("modified-bs-fcfs", k, classes, rate, arrivals=20_000, seed=seed)
        hits += [compare(sim.per_class_helper_probability[i], erlang[i]).agrees for i in range(3)]
    assert np.all((low <= hits) & (hits <= high)), hits


def test_little_law_and_common_random_numbers():
    rate = rate_at(0.7, 8, THREE)
    sims = {p: simulate_multiserver(p, 8, THREE, rate, arrivals=200_000, seed=5) for p in ("fcfs", "ffbf", "server-filling")}
    for sim in sims.values():  # time-average jobs present = λ E[R]
        assert sim.mean_jobs.value == pytest.approx(rate * sim.mean_response_time.value, rel=0.03, abs=0)
        assert sim.stationary
    # same arrivals and sizes: back-filling can only start jobs earlier than FCFS on this sample path
    assert sims["ffbf"].wait_probability.value < sims["fcfs"].wait_probability.value


# ---------------------------------------------------------------------------------------------
# FCFS is not throughput optimal
# ---------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_fcfs_grows_below_load_one_where_server_filling_does_not():
    """k = 4, needs 1 and 4 (powers of two): FCFS saturates at load 0.714 (exact); at 0.85 its queue
    grows at λ - λ_max while ServerFilling, throughput optimal here, stays stationary."""
    classes = [RigidClass(1, 0.8, 1.0), RigidClass(4, 0.2, 1.0)]
    limit = fcfs_saturation(4, classes)
    assert 0.71 < limit.max_load < 0.72
    rate = rate_at(0.85, 4, classes)
    rates = []
    for seed in range(10):
        fcfs = simulate_multiserver("fcfs", 4, classes, rate, arrivals=100_000, seed=seed)
        filling = simulate_multiserver("server-filling", 4, classes, rate, arrivals=100_000, seed=seed)
        assert not fcfs.stationary and filling.stationary
        rates.append(fcfs.growth.rate)
    assert np.mean(rates) == pytest.approx(rate - limit.throughput, rel=0.05, abs=0)
    assert "NOT STATIONARY" in repr(fcfs)
    assert simulate_multiserver("fcfs", 4, classes, rate_at(0.6, 4, classes), arrivals=100_000, seed=1).stationary


# ---------------------------------------------------------------------------------------------
# The built-in policies against the text of Section 2, written as plain callables
# ---------------------------------------------------------------------------------------------


def packing(state, order):
    """Serve the jobs in ``order`` that fit, skipping the others (first fit)."""
    serve = np.zeros(len(state.need), dtype=bool)
    free = state.servers
    for j in order:
        if state.need[j] <= free:
            serve[j] = True
            free -= state.need[j]
    return serve


def server_filling(state, key):
    """M: the shortest prefix in the order of ``key`` (ties by arrival) with needs >= k; placed by
    decreasing need (ties in that order) until a job does not fit."""
    order = sorted(range(len(state.need)), key=lambda j: (key[j], state.arrival[j]))
    total, m = 0, 0
    while m < len(order) and total < state.servers:
        total += state.need[order[m]]
        m += 1
    chosen = sorted(order[:m], key=lambda j: -state.need[j])  # stable: ties keep the key order
    serve = np.zeros(len(state.need), dtype=bool)
    free = state.servers
    for j in chosen:
        if state.need[j] > free:
            break
        serve[j] = True
        free -= state.need[j]
    return serve


def msf(state):
    return packing(state, sorted(range(len(state.need)), key=lambda j: (-state.need[j], state.arrival[j])))


def ff_srpt(state):
    return packing(state, sorted(range(len(state.need)), key=lambda j: (state.remaining[j], state.arrival[j])))


def sf(state):
    return server_filling(state, state.arrival)


def sf_srpt(state):
    return server_filling(state, state.need * state.remaining)


def fcfs(state):
    serve = state.serving.copy()
    free = state.servers - int(state.need[serve].sum())
    for j in np.flatnonzero(~serve):
        if state.need[j] > free:
            break
        serve[j] = True
        free -= state.need[j]
    return serve


def ffbf(state):
    serve = state.serving.copy()
    free = state.servers - int(state.need[serve].sum())
    for j in np.flatnonzero(~serve):
        if state.need[j] <= free:
            serve[j] = True
            free -= state.need[j]
    return serve


#: Continuous laws only, so that no two departures coincide (the order of simultaneous events is the heap's).
MIXED = [RigidClass(1, 0.5, 1.0), RigidClass(2, 0.3, 1.0, size="mixed_erlang"), RigidClass(4, 0.2, 2.0, size_std=3.0)]


def sf_gittins(state):
    """ServerFilling-Gittins on MIXED with the ranks in closed form, each times the need: the
    exponential class its mean; the mixed Erlang class (one or two phases of rate r = 1.6, increasing
    hazard) its mean residual size (1.6 + 0.6 r a) / (r (1 + 0.6 r a)); the hyperexponential class
    (decreasing hazard) 1/h(a)."""
    law = MIXED[2].law
    weights, rates = law.weights, law.rates
    a = state.attained
    terms = weights * np.exp(-rates * a[:, None])
    inverse_hazard = terms.sum(axis=1) / (terms * rates).sum(axis=1)
    r = 1.6
    residual = (1.6 + 0.6 * r * a) / (r * (1 + 0.6 * r * a))
    rank = np.select([state.job_class == 0, state.job_class == 1], [np.ones_like(a), residual], inverse_hazard)
    return server_filling(state, state.need * rank)


@pytest.mark.parametrize("name,reference", [("msf", msf), ("ff-srpt", ff_srpt), ("server-filling", sf),
                                            ("server-filling-srpt", sf_srpt), ("fcfs", fcfs), ("ffbf", ffbf)])
def test_builtin_policies_follow_section_2(name, reference):
    """Same seed, same arrivals and sizes: the compiled policy and the plain one give the same run."""
    rate = rate_at(0.9, 8, MIXED)
    builtin = simulate_multiserver(name, 8, MIXED, rate, arrivals=3000, seed=11)
    plain = simulate_multiserver(reference, 8, MIXED, rate, arrivals=3000, seed=11)
    assert plain.policy == "callable"
    assert plain.mean_response_time.value == pytest.approx(builtin.mean_response_time.value, rel=1e-12, abs=0)
    assert plain.wait_probability.value == builtin.wait_probability.value


@pytest.mark.slow
def test_server_filling_gittins_follows_section_2():
    """The interpolated rank table (gittins_table) orders the jobs as the closed-form rank does; the
    runs agree up to the table's accuracy (an order swapped between two nearly equal ranks)."""
    assert MIXED[1].law.rates.tolist() == [1.6, 1.6]
    assert MIXED[2].law.scv > 1  # hyperexponential: decreasing hazard rate
    rate = rate_at(0.9, 8, MIXED)
    builtin = simulate_multiserver("server-filling-gittins", 8, MIXED, rate, arrivals=3000, seed=3)
    plain = simulate_multiserver(sf_gittins, 8, MIXED, rate, arrivals=3000, seed=3)
    assert plain.mean_response_time.value == pytest.approx(builtin.mean_response_time.value, rel=1e-3, abs=0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 6), st.integers(0, 9), st.integers(0, 5)), min_size=1, max_size=4,
                unique_by=lambda x: x[0]), st.integers(0, 30))
def test_maxweight_knapsack_against_enumeration(groups, capacity):
    weights = np.array([w for w, _, _ in groups], dtype=np.int64)
    values = np.array([v for _, v, _ in groups], dtype=np.int64)
    counts = np.array([c for _, _, c in groups], dtype=np.int64)
    items = len(groups) * 6
    take = np.zeros(len(groups), dtype=np.int64)
    _knapsack(values, weights, counts, capacity, take, np.zeros(items, dtype=np.int64), np.zeros(items, dtype=np.int64),
              np.zeros(capacity + 1, dtype=np.int64), np.zeros((items, capacity + 1), dtype=np.bool_))
    assert np.all(take <= counts) and take @ weights <= capacity
    choices = (np.array(x) for x in itertools.product(*(range(c + 1) for c in counts)))
    best = max(values @ x for x in choices if weights @ x <= capacity)
    assert take @ values == best


def test_maxweight_with_one_need_is_fcfs():
    classes = [RigidClass(2, 1.0, 1.0)]
    a = simulate_multiserver("maxweight", 8, classes, 3.0, arrivals=20_000, seed=2)
    b = simulate_multiserver("fcfs", 8, classes, 3.0, arrivals=20_000, seed=2)
    assert a.mean_response_time.value == pytest.approx(b.mean_response_time.value, rel=1e-12, abs=0)


# ---------------------------------------------------------------------------------------------
# Reproducibility
# ---------------------------------------------------------------------------------------------


def test_same_seed_same_numbers_serially_and_in_processes():
    rate = rate_at(0.7, 8, THREE)
    for policy in ("bs-fcfs", "server-filling-srpt"):
        serial = simulate_multiserver(policy, 8, THREE, rate, arrivals=40_000, replications=4, seed=9, executor=SerialExecutor())
        with ProcessPoolExecutor(2) as pool:
            parallel = simulate_multiserver(policy, 8, THREE, rate, arrivals=40_000, replications=4, seed=9, executor=pool)
        assert serial.mean_response_time == parallel.mean_response_time   # value, half-width, level, method, samples
        assert serial.method == "independent replications" and serial.samples == 4


@pytest.mark.slow
def test_without_jit_the_same_numbers():
    code = ("from analytic.splitting import RigidClass, simulate_multiserver\n"
            "c = [RigidClass(1, 0.6, 1.0), RigidClass(2, 0.3, 1.0), RigidClass(4, 0.1, 2.0)]\n"
            "for p in ('bs-fcfs', 'modified-bs-fcfs', 'maxweight', 'msf', 'ff-srpt', 'server-filling-gittins'):\n"
            "    e = simulate_multiserver(p, 8, c, 2.0, arrivals=1500, seed=4).mean_response_time\n"
            "    print(repr(e.value), repr(e.half_width))\n")
    root = Path(__file__).parents[2]
    outputs = []
    for jit in ("0", "1"):
        env = dict(os.environ, NUMBA_DISABLE_JIT=jit, PYTHONPATH=str(root))
        outputs.append(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout)
    assert outputs[0] == outputs[1] and len(outputs[0].split()) == 12


# ---------------------------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("jobs,replications,batches", [(10**30, 1, 20), (2 * ((2**63 - 20) // 20) + 2, 2, 20),
                                                         ((2**63 - 3) // 3 + 1, 1, 3)])
def test_arrivals_beyond_the_event_loops_integers_are_refused_up_front(jobs, replications, batches):
    """arrivals = 10**30 (then jobs) blamed a SeedSequence (OverflowError in the loop's int64 batch boundaries); the limit is
    replications x (2**63 - b) // b for b batches (b·arrivals + b - 1 < 2**63), here exceeded by at most one arrival
    per replication."""
    per_run = (2**63 - batches) // batches
    with pytest.raises(InvalidParameterError, match=rf"^arrivals = {jobs}: must be at most {replications * per_run:,} = "
                                                    rf"{replications} x \(2\*\*63 - {batches}\) // {batches}: each replication's "
                                                    rf"arrivals times its {batches} batches \(the batch boundaries\) must fit "
                                                    r"the event loop's 64-bit integers; at ten million arrivals a second"):
        simulate_multiserver("fcfs", 8, THREE, 1.0, arrivals=jobs, replications=replications, batches=batches)


@pytest.mark.slow
def test_arrivals_at_the_limit_pass_the_check(monkeypatch):
    """The largest accepted count reaches the replications with batch boundaries that did not overflow (stopped
    there: it would run for centuries)."""
    import analytic.splitting.simulation as module

    class Reached(Exception):
        pass

    def stop(replication, setup, *args, **kwargs):
        boundaries = module._Loop(setup).boundaries
        assert boundaries[0] == 0 and boundaries[-1] == setup.arrivals and np.all(np.diff(boundaries) > 0)
        raise Reached

    monkeypatch.setattr(module, "run_replications", stop)
    # 4.6e17 arrivals span at most 1e12 mean sizes (the clock's horizon) only at λ d >= 4.6e5: 2^20 servers at load 0.48.
    with pytest.raises(Reached):
        simulate_multiserver("fcfs", 2**20, [RigidClass(1, 1.0, 1.0)], 5e5, arrivals=(2**63 - 20) // 20, warmup=0, seed=0)


@pytest.mark.parametrize("rate", [5e-324, 2.2e-308, 1e-300, 1e-200, 1e-12])
def test_an_arrival_rate_whose_clock_swallows_the_sizes_is_refused_up_front(rate):
    """At 5e-324 and 2.2e-308 the interarrival times overflowed to inf and the error named `numerators`; at 1e-300
    and 1e-200 the mean response time came out 0.0 (the clock, about 1/λ per arrival, swallowed sizes of mean 1).
    2000 arrivals at rate λ reach a clock of 2000/λ, whose resolution 2^-52 · 2000/λ must stay below 2e-4 of the
    mean size 1, i.e. 2000 <= 1e12 λ: true from λ = 2e-9 on."""
    assert (2000 / rate * 2.0**-52 > 2e-4) and not (2000 / 2e-9 * 2.0**-52 > 2.3e-4)
    with pytest.raises(InvalidParameterError, match=r"^arrival_rate = [0-9.e+-]+: is so small that 2000 arrivals span more "
                                                    r"than 1e\+12 mean job sizes \(total arrival rate × smallest mean size "
                                                    r"of a class [0-9.e+-]+\), where the clock no longer resolves a service "
                                                    r"time$") as error:
        simulate_multiserver("bs-fcfs", 4, [RigidClass(1, 1.0, 1.0)], rate, arrivals=2000, seed=1, executor=SerialExecutor())
    assert error.value.value == rate


def test_the_clock_is_checked_against_the_smallest_mean_size():
    """λ = 1e-3 with mean sizes 1 and 1e-6: 2000 arrivals span 2e6 time units, 2e12 of the small sizes (refused),
    though only 2e6 of the large ones; so many arrivals that no rate of order one would do blame `jobs`."""
    classes = [RigidClass(1, 0.5, 1.0), RigidClass(1, 0.5, 1e-6)]
    with pytest.raises(InvalidParameterError, match=r"^arrival_rate = 0\.001: .* smallest mean size of a class 1e-09\)"):
        simulate_multiserver("fcfs", 4, classes, 1e-3, arrivals=2000, seed=1, executor=SerialExecutor())
    assert simulate_multiserver("fcfs", 4, classes, 1e-3, arrivals=1000, seed=1, executor=SerialExecutor()).measured > 0
    with pytest.raises(InvalidParameterError, match=r"^arrivals = 2000000000000: must be at most 1e\+12 per replication at total "
                                                    r"arrival rate × smallest mean size of a class 1: a longer run spans"):
        simulate_multiserver("fcfs", 4, [RigidClass(1, 1.0, 1.0)], 1.0, arrivals=2 * 10**12, seed=1)


@pytest.mark.parametrize("policy", ["fcfs", "bs-fcfs"])
def test_a_small_resolvable_rate_still_measures_the_sizes(policy):
    """λ = 1e-8 (a clock of 2e11 after 2000 arrivals, resolving 4e-5 of a mean size): one class of need 1 on 4
    servers is an M/M/4 queue at load 2.5e-9, whose mean response time is 1 + C(4, a)/(4 - a) with C(4, a) < a^4 =
    4e-33 (Erlang C), i.e. 1 to double precision. Covered by the intervals of 40 seeds within the binomial band."""
    runs = 40
    low, high = coverage_band(runs)
    hits = sum(compare(simulate_multiserver(policy, 4, [RigidClass(1, 1.0, 1.0)], 1e-8, arrivals=2000, seed=seed,
                                            executor=SerialExecutor()).mean_response_time, 1.0).agrees
               for seed in range(runs))
    assert low <= hits <= high, (hits, (low, high))


def test_errors():
    with pytest.raises(InvalidParameterError, match=r"policy = 'lsf': must be one of fcfs, ffbf, maxweight, bs-fcfs"):
        simulate_multiserver("lsf", 8, TWO, 1.0)
    with pytest.raises(InvalidParameterError, match=r"servers = 2: must be >= every server need \(largest need is 4\)"):
        simulate_multiserver("fcfs", 2, THREE, 0.1)
    with pytest.raises(InvalidParameterError, match=r"servers = 12: must be a power of two for server-filling"):
        simulate_multiserver("server-filling", 12, THREE, 0.1)
    with pytest.raises(UnstableSystemError, match=r"load λ ϱ / k = 1 is not below the limit 1 \(it equals it\)"):
        simulate_multiserver("ffbf", 8, THREE, rate_at(1.0, 8, THREE))
    with pytest.raises(UnstableSystemError, match=r"load λ ϱ / k = 1.3 must be < 1"):
        simulate_multiserver("server-filling", 8, THREE, rate_at(1.3, 8, THREE))
    with pytest.raises(UnstableSystemError, match=r"ModifiedBS with an empty helper set"):
        simulate_multiserver("modified-bs-fcfs", 6, [RigidClass(1, 0.5, 1.0), RigidClass(2, 0.5, 1.0)], 1.0)
    with pytest.raises(InvalidParameterError, match=r"arrivals = 100: must give each of the 2 replications at least"):
        simulate_multiserver("fcfs", 8, THREE, 1.0, arrivals=100, replications=2, warmup=40)
    with pytest.raises(InvalidParameterError, match=r"executor = 'pool': must be a concurrent.futures.Executor"):
        simulate_multiserver("fcfs", 8, THREE, 1.0, executor="pool")
    with pytest.raises(InvalidParameterError, match=r"batches = 2: must be an integer >= 3"):
        simulate_multiserver("fcfs", 8, THREE, 1.0, batches=2)
    with pytest.raises(InvalidParameterError, match=r"must return a boolean array of shape"):
        simulate_multiserver(lambda state: [True], 8, THREE, 1.0, arrivals=100)
    with pytest.raises(InvalidParameterError, match=r"must serve jobs whose needs sum to at most k = 8"):
        simulate_multiserver(lambda state: np.ones(len(state.need), dtype=bool), 8, THREE, 2.0, arrivals=1000)
    sim = simulate_multiserver("fcfs", 8, THREE, 1.0, arrivals=1000, seed=0)
    assert sim.helper_probability is None and sim.per_class_helper_probability is None


# ---------------------------------------------------------------------------------------------
# The result's shape: one estimate per quantity (issue 32), the old names for one release
# ---------------------------------------------------------------------------------------------


def _run_with_tallies(monkeypatch, *args, **kwargs):
    """The simulation and the per-batch tallies of its replications, caught on their way to the estimates."""
    import analytic.splitting.simulation as module

    caught = []
    summarize = module._summarize

    def catch(tallies, *rest):
        caught.extend(tallies)
        return summarize(tallies, *rest)

    monkeypatch.setattr(module, "_summarize", catch)
    return simulate_multiserver(*args, **kwargs), caught


@pytest.mark.parametrize("replications", [1, 3])
def test_every_quantity_is_an_estimate_equal_to_the_ratio_of_the_raw_tallies(monkeypatch, replications):
    """Each field is the ratio estimate (analytic.simulation.ratio_estimate) of the raw tallies: totals per batch (one
    replication, batch means) or per replication, summed over the classes for the overall metrics — the numbers the
    float fields held before, bit for bit."""
    from analytic.simulation import Estimate, Estimates, ratio_estimate

    sim, tallies = _run_with_tallies(monkeypatch, "bs-fcfs", 8, TWO, rate_at(0.4, 8, TWO), arrivals=6000,
                                     replications=replications, seed=4, executor=SerialExecutor())
    method = "batch means" if replications == 1 else "independent replications"

    def samples(name):
        return tallies[0].__dict__[name] if replications == 1 else np.array([t.__dict__[name].sum(axis=0) for t in tallies])

    count = samples("count")
    columns = {"response_time": samples("response"), "wait_probability": samples("waited"),
               "helper_probability": samples("helped")[..., 0], "helper_service_probability": samples("helped")[..., 1]}
    for name, numerators in columns.items():
        overall = getattr(sim, "mean_" + name if name == "response_time" else name)
        assert isinstance(overall, Estimate)
        assert overall == ratio_estimate(numerators.sum(axis=1), count.sum(axis=1), 0.95, method)
        per_class = getattr(sim, f"per_class_{name}")
        assert isinstance(per_class, Estimates)
        for i in range(len(TWO)):
            assert per_class[i] == ratio_estimate(numerators[:, i], count[:, i], 0.95, method)
    assert sim.mean_jobs == ratio_estimate(samples("area"), samples("duration"), 0.95, method)
    assert sim.per_class_measured.tolist() == count.sum(axis=0).tolist() and sim.needs == (1, 2)
    assert sim.arrivals == 6000 // replications * replications
    assert f"R={sim.mean_response_time.value:.6g} ± {sim.mean_response_time.half_width:.6g}" in repr(sim)


def test_a_class_never_counted_has_a_nan_entry():
    """Class 2 (probability 1e-6) gets no job among 2000 arrivals: its entries are NaN; the other class's are estimates."""
    sim = simulate_multiserver("fcfs", 4, [RigidClass(1, 1 - 1e-6, 1.0), RigidClass(2, 1e-6, 1.0)], 1.0, arrivals=2000,
                               seed=1)
    assert sim.per_class_measured.tolist() == [1800, 0]
    assert np.isnan(sim.per_class_response_time.value[1]) and sim.per_class_response_time[0].samples == 20


def test_the_old_names_warn_and_give_the_same_numbers():
    from analytic.errors import AnalyticDeprecationWarning
    from analytic.splitting import ClassEstimates

    sim = simulate_multiserver("bs-fcfs", 8, TWO, rate_at(0.4, 8, TWO), arrivals=4000, seed=1)
    for name in ("mean_response_time", "wait_probability", "helper_probability", "helper_service_probability", "mean_jobs"):
        with pytest.warns(AnalyticDeprecationWarning, match=rf"MultiserverSimulation\.{name}_ci is renamed {name}\.half_width"):
            assert getattr(sim, f"{name}_ci") == getattr(sim, name).half_width
        with pytest.warns(AnalyticDeprecationWarning, match=rf"MultiserverSimulation\.estimate\(\) is renamed "
                                                            rf"MultiserverSimulation\.{name}\b"):
            assert sim.estimate(name) is getattr(sim, name)
    with pytest.warns(AnalyticDeprecationWarning, match=r"MultiserverSimulation\.jobs is renamed arrivals"):
        assert sim.jobs == sim.arrivals == 4000
    with pytest.warns(AnalyticDeprecationWarning, match=r"MultiserverSimulation\.per_class is renamed per_class_response_time"):
        view = sim.per_class
    assert all(isinstance(c, ClassEstimates) for c in view) and [c.need for c in view] == [1, 2]
    assert [c.jobs for c in view] == sim.per_class_measured.tolist()
    assert [(c.mean_response_time, c.mean_response_time_ci) for c in view] == list(
        zip(sim.per_class_response_time.value.tolist(), sim.per_class_response_time.half_width.tolist(), strict=True))
    assert view[1].estimate("helper_probability") == sim.per_class_helper_probability[1]
    fcfs = simulate_multiserver("fcfs", 8, THREE, 1.0, arrivals=1000, seed=0)
    with pytest.warns(AnalyticDeprecationWarning):
        assert fcfs.helper_probability_ci is None
    with pytest.raises(InvalidParameterError, match=r"name = 'helper_probability': has no estimate"), \
            pytest.warns(AnalyticDeprecationWarning):
        fcfs.estimate("helper_probability")
    with pytest.raises(InvalidParameterError, match=r"name = 'mean_delay': must be one of"):
        fcfs.estimate("mean_delay")


def test_compare_pairs_the_fields_of_the_exact_and_the_simulated_result():
    """FCFS with one class needing 2 of 8 servers is M/M/4 (Erlang C, by its own recursion here):
    E[R] = 1 + C(4, a)/(4 - a), P(wait) = C(4, a) at a = λ = 3. compare(exact, sim) pairs every field they share;
    an exact value shifted by 20 % disagrees."""
    from dataclasses import replace

    a = 3.0
    blocking = erlang_b_recursion(4, a)
    erlang_c = 4 * blocking / (4 - a * (1 - blocking))
    exact = exact_multiserver("fcfs", 8, [RigidClass(2, 1.0, 1.0)], a, max_waiting=200)
    assert exact.wait_probability == pytest.approx(erlang_c, rel=1e-10, abs=0)
    assert exact.mean_response_time == pytest.approx(1 + erlang_c / (4 - a), rel=1e-10, abs=0)
    sim = simulate_multiserver("fcfs", 8, [RigidClass(2, 1.0, 1.0)], a, arrivals=200_000, seed=1)
    verdicts = compare(exact, sim)
    assert set(verdicts) == {"mean_response_time", "wait_probability", "per_class_response_time",
                             "per_class_wait_probability"}
    assert verdicts["mean_response_time"].verdict == "agrees" and verdicts["wait_probability"].verdict == "agrees"
    assert verdicts["mean_response_time"].exact == exact.mean_response_time
    assert [c.verdict for c in verdicts["per_class_response_time"]] == ["agrees"]
    assert compare(sim, exact) == verdicts                       # either order
    shifted = compare(replace(exact, mean_response_time=1.2 * exact.mean_response_time), sim)
    assert shifted["mean_response_time"].verdict == "disagrees" and shifted["wait_probability"].verdict == "agrees"
    with pytest.raises(InvalidParameterError, match=r"must share a field with the simulated result MultiserverSimulation"):
        compare(sim, fcfs_saturation(8, [RigidClass(2, 1.0, 1.0)]))


def test_a_state_beyond_memory_is_refused_naming_the_servers():
    """A system of 10**18 servers is refused before its state is allocated, naming what it would need."""
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=r"^the state of 1,000,000,000,000,000,000 servers needs"):
        simulate_multiserver("fcfs", 10**18, [RigidClass(1, 1.0, 1.0)], 1.0, arrivals=1000)
