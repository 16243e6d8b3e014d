"""Tests of analytic.splitting.chains: the exact CTMCs of FCFS, BS-FCFS, ModifiedBS-FCFS and Most Servers First.

References: the M/M/c queue (one class needing n of k servers is an M/M/⌊k/n⌋ queue under every
policy here), its stationary law summed term by term with mpmath at 30 digits; Erlang's loss
formula by its recursion (the reserved sets of ModifiedBS are loss systems, Property 1); the
M/M/1 queue (under Most Servers First a class needing all k servers is served as a preemptive
priority M/M/1 queue); the ordered-sequence chain against its lumping (two constructions of the
same chain); the saturated FCFS system solved by hand for k = 2, and for needs 1 and n built from
runs of class-1 draws (j of them, then a class-n draw, with probability p^j (1 - p)).
"""

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from analytic.errors import InvalidParameterError, StateSpaceTooLargeError, UnstableSystemError
from analytic.splitting import (
    RigidClass,
    balanced_partition,
    exact_multiserver,
    fcfs_saturation,
    helper_probability_bound,
    multiserver_chain,
)

mp.mp.dps = 50  # as the other test modules: the setting is global to the session


def erlang_b_recursion(s, a):
    blocking = 1.0
    for k in range(1, s + 1):
        blocking = a * blocking / (k + a * blocking)
    return blocking


def mmc(c, a, mean):
    """M/M/c with offered load a: E[R], P(wait) and m -> P(N >= m), summed with mpmath."""
    a = mp.mpf(a)
    head = [a**j / mp.factorial(j) for j in range(c)]
    tail = a**c / mp.factorial(c) / (1 - a / c)
    norm = sum(head) + tail
    p_wait = tail / norm
    queue = a**c / mp.factorial(c) * (a / c) / (1 - a / c) ** 2 / norm  # E[jobs waiting]
    rate = a / mean

    def at_least(m):
        return float(1 - sum(a**j / mp.factorial(j) for j in range(m)) / norm)

    return float(mean + queue / rate), float(p_wait), at_least


# ---------------------------------------------------------------------------------------------
# One class: the M/M/c queue
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("policy,representation", [("fcfs", "lumped"), ("fcfs", "sequence"), ("msf", None),
                                                   ("bs-fcfs", None)])
@pytest.mark.parametrize("k,need,rate,mean", [(7, 2, 2.0, 1.0), (8, 2, 3.0, 1.0), (9, 3, 1.0, 1.5)])
def test_one_class_is_an_mmc_queue(policy, representation, k, need, rate, mean):
    """One class needing n of k servers: M/M/⌊k/n⌋ (BS-FCFS: s_1 reserved slots plus ⌊|H|/n⌋ helper slots)."""
    c = k // need
    response, wait, at_least = mmc(c, rate * mean, mean)
    result = exact_multiserver(policy, k, [RigidClass(need, 1.0, mean)], rate, max_waiting=150, representation=representation)
    assert result.lost_fraction < 1e-12
    assert result.mean_response_time == pytest.approx(response, rel=1e-9, abs=0)
    assert result.wait_probability == pytest.approx(wait, rel=1e-9, abs=0)
    if policy == "bs-fcfs":  # sent to the helpers only when the s_1 slots are busy, so at most P(N >= s_1)
        s = balanced_partition(k, [RigidClass(need, 1.0, mean)]).servers_per_class[0]
        assert result.helper_probability <= at_least(s) * (1 + 1e-12)


def test_modified_bs_one_class_sends_erlang_b_to_the_helpers():
    """Property 1: A_1 is an M/M/s_1/s_1 loss system, so P_H = E_{s_1}(λ d) = eq. (16)."""
    classes = [RigidClass(2, 1.0, 1.0)]
    result = exact_multiserver("modified-bs-fcfs", 7, classes, 2.0, max_waiting=150)
    s = balanced_partition(7, classes).servers_per_class[0]
    assert result.lost_fraction < 1e-10
    assert result.helper_probability == pytest.approx(erlang_b_recursion(s, 2.0), rel=1e-10, abs=0)
    assert result.helper_service_probability == pytest.approx(result.helper_probability, rel=1e-10, abs=0)


def test_bs_fcfs_with_no_helpers_is_one_mmc_queue_per_class():
    """Every k ϱ_i/(n_i ϱ) an integer: H is empty and rule 3 makes each A_i an M/M/s_i FCFS queue."""
    classes = [RigidClass(1, 0.5, 1.0), RigidClass(2, 0.5, 1.0)]
    partition = balanced_partition(6, classes)
    assert partition.helpers == 0 and partition.servers_per_class == (2, 2)
    result = exact_multiserver("bs-fcfs", 6, classes, 0.8, max_waiting=9)
    assert result.lost_fraction < 1e-6
    for i in range(2):
        response, wait, _ = mmc(2, 0.4, 1.0)
        assert result.per_class_response_time[i] == pytest.approx(response, rel=1e-5, abs=0)
        assert result.per_class_wait_probability[i] == pytest.approx(wait, rel=1e-5, abs=0)


# ---------------------------------------------------------------------------------------------
# Two and three classes
# ---------------------------------------------------------------------------------------------

THREE = [RigidClass(1, 0.6, 1.0), RigidClass(2, 0.3, 1.0), RigidClass(4, 0.1, 2.0)]
TWO = [RigidClass(1, 0.6, 1.0), RigidClass(2, 0.4, 1.5)]


@pytest.mark.parametrize("k,classes,load,depth", [(4, TWO, 0.6, 7), (8, THREE, 0.5, 4), (6, TWO, 0.7, 6)])
def test_lumped_fcfs_chain_equals_the_sequence_chain(k, classes, load, depth):
    """Deferred decisions: the lumped chain gives exactly the metrics of the ordered-sequence chain."""
    rate = load * k / float(sum(c.demand for c in classes))
    sequence = exact_multiserver("fcfs", k, classes, rate, max_waiting=depth, representation="sequence")
    lumped = exact_multiserver("fcfs", k, classes, rate, max_waiting=depth, representation="lumped")
    assert sequence.n_states > 3 * lumped.n_states
    assert lumped.lost_fraction == pytest.approx(sequence.lost_fraction, rel=1e-9, abs=0)
    np.testing.assert_allclose(lumped.per_class_response_time, sequence.per_class_response_time, rtol=1e-10, atol=0)
    np.testing.assert_allclose(lumped.per_class_wait_probability, sequence.per_class_wait_probability, rtol=1e-10, atol=0)


@pytest.mark.parametrize("policy,classes,load", [("fcfs", THREE, 0.5), ("msf", TWO, 0.6)])
def test_truncation_error_is_reported_and_negligible(policy, classes, load):
    """The lost fraction falls with the truncation; deep enough, it and the change in E[R] are negligible."""
    rate = load * 8 / float(sum(c.demand for c in classes))
    shallow, deep, deeper = (exact_multiserver(policy, 8, classes, rate, max_waiting=m) for m in (10, 90, 120))
    assert shallow.lost_fraction > deep.lost_fraction > deeper.lost_fraction
    assert deep.lost_fraction < 1e-9
    assert deep.mean_response_time == pytest.approx(deeper.mean_response_time, rel=1e-8, abs=0)
    assert deep.residual < 1e-10


def mmck(c, waiting, rate, mean):
    """M/M/c with at most ``waiting`` jobs waiting (capacity K = c + waiting), its law in exact rationals
    (π_j ∝ a^j / j! up to c, then a^c / c! (a/c)^{j-c}): E[R] (Little's law over the admitted rate), P(wait)
    of an admitted job (PASTA) and the lost fraction π_K."""
    a = Fraction(rate) * Fraction(mean)
    weights = [a**j / math.factorial(j) if j <= c else a**c / math.factorial(c) * (a / c) ** (j - c)
               for j in range(c + waiting + 1)]
    pi = [w / sum(weights) for w in weights]
    admitted = 1 - pi[-1]
    response = sum(j * q for j, q in enumerate(pi)) / (Fraction(rate) * admitted)
    return response, sum(pi[c:-1]) / admitted, pi[-1]


@pytest.mark.parametrize("policy,representation", [("fcfs", "lumped"), ("fcfs", "sequence"), ("msf", None)])
@pytest.mark.parametrize("k,waiting,rate,mean", [(3, 4, 2.0, 1.0), (2, 6, 1.5, 1.25), (4, 3, 3.5, 1.0)])
def test_accuracy_bounds_the_error_against_the_truncated_mmc_queue(policy, representation, k, waiting, rate, mean):
    """One class needing 1 of k servers, at most ``waiting`` waiting: the truncated chain is M/M/k/(k + waiting),
    whose law is known in exact rationals (mmck); each reported value is within ``accuracy`` of it, relative
    (``lost_fraction`` absolute), and the accuracy is small."""
    result = exact_multiserver(policy, k, [RigidClass(1, 1.0, mean)], rate, max_waiting=waiting, representation=representation)
    response, wait, lost = mmck(k, waiting, rate, mean)
    assert 0 < result.accuracy <= 1e-12
    for value, exact in [(result.mean_response_time, response), (result.per_class_response_time[0], response),
                         (result.wait_probability, wait), (result.per_class_wait_probability[0], wait)]:
        assert abs(Fraction(value) - exact) <= Fraction(result.accuracy) * Fraction(value)
    assert abs(Fraction(result.lost_fraction) - lost) <= Fraction(result.accuracy)
    # the check can fail: the exact value moved by ten times the accuracy is outside it
    moved = response * (1 + 10 * Fraction(result.accuracy))
    assert abs(Fraction(result.mean_response_time) - moved) > Fraction(result.accuracy) * Fraction(result.mean_response_time)


def _jobs(state):
    """Jobs present in a state ``(reserved, serving, waiting)`` of the sequence chain (module docstring of chains)."""
    reserved, serving, waiting = state
    return sum(reserved) + sum(serving) + len(waiting)


def test_accuracy_of_two_classes_bounds_the_error_against_mpmath():
    """BS-FCFS with two classes (k = 4, at most 2 waiting): the chain's generator solved by mpmath at 50 digits,
    E[R] by Little's law (E[jobs present] / admitted rate, the jumps that add a job)."""
    classes = [RigidClass(1, 0.6, 1.0), RigidClass(2, 0.4, 1.5)]
    result = exact_multiserver("bs-fcfs", 4, classes, 1.2, max_waiting=2)
    chain = multiserver_chain("bs-fcfs", 4, classes, 1.2, max_waiting=2)
    assert chain.n_states == result.n_states <= 200
    Q = chain.generator.toarray()
    with mp.workdps(50):
        A = mp.matrix([[mp.mpf(float(Q[j, i])) for j in range(len(Q))] for i in range(len(Q))])
        for j in range(len(Q)):
            A[len(Q) - 1, j] = 1
        b = mp.matrix([0] * (len(Q) - 1) + [1])
        pi = mp.lu_solve(A, b)
        jobs = [_jobs(state) for state in chain.states]
        arrivals = sum(pi[i] * mp.mpf(float(Q[i, j])) for i in range(len(Q)) for j in range(len(Q))
                       if Q[i, j] > 0 and jobs[j] == jobs[i] + 1)
        response = sum(pi[i] * jobs[i] for i in range(len(Q))) / arrivals
        assert 0 < result.accuracy <= 1e-12
        assert abs(result.mean_response_time - response) <= result.accuracy * result.mean_response_time


def test_msf_serves_the_widest_class_as_a_preemptive_priority_mm1():
    """k = 2, needs 1 and 2: a 2-server job preempts everything, so its class is an M/M/1 queue."""
    classes = [RigidClass(1, 0.7, 1.0), RigidClass(2, 0.3, 0.8)]
    rate = 0.9
    result = exact_multiserver("msf", 2, classes, rate, max_waiting=200)
    lam, mu = rate * 0.3, 1 / 0.8
    assert result.lost_fraction < 1e-12
    assert result.per_class_response_time[1] == pytest.approx(1 / (mu - lam), rel=1e-9, abs=0)
    assert result.per_class_wait_probability[1] == pytest.approx(lam / mu, rel=1e-9, abs=0)


def test_modified_bs_sends_eq16_to_the_helpers_per_class():
    """Property 1 with two classes: per class E_{s_i}(λ α_i d_i), overall eq. (16)."""
    classes = [RigidClass(1, 0.6, 1.0), RigidClass(2, 0.4, 1.5)]
    rate = 0.3 * 7 / float(sum(c.demand for c in classes))
    result = exact_multiserver("modified-bs-fcfs", 7, classes, rate, max_waiting=8)
    lost = result.lost_fraction
    assert lost < 5e-5
    slots = balanced_partition(7, classes).servers_per_class
    for i, c in enumerate(classes):  # up to the truncation (counted among admitted arrivals)
        expected = erlang_b_recursion(slots[i], rate * float(c.probability) * float(c.mean_size))
        assert abs(result.per_class_helper_probability[i] - expected) <= 2 * lost
    assert abs(result.helper_probability - helper_probability_bound(7, rate, classes)) <= 2 * lost


def test_bs_fcfs_routes_more_than_eq16_but_serves_less_on_the_helpers():
    """Rule 3 keeps A_i fuller: more arrivals find it full (P_H above eq. 16, so (12) fails for the
    probability of being sent to H) while fewer jobs are served on H (below E_{s_i}, as the proof of
    Proposition 2 argues)."""
    rate = 0.4 * 8 / float(sum(c.demand for c in TWO))
    result = exact_multiserver("bs-fcfs", 8, TWO, rate, max_waiting=10)
    assert result.lost_fraction < 2e-5
    slots = balanced_partition(8, TWO).servers_per_class
    erlang = [erlang_b_recursion(s, rate * float(c.probability) * float(c.mean_size)) for s, c in zip(slots, TWO, strict=True)]
    for i in range(2):
        assert result.per_class_helper_probability[i] > erlang[i] + 0.02
        assert result.per_class_helper_service_probability[i] < erlang[i] - 0.02
    assert result.helper_probability > helper_probability_bound(8, rate, TWO)


# ---------------------------------------------------------------------------------------------
# FCFS's stability limit
# ---------------------------------------------------------------------------------------------


def test_fcfs_saturation_by_hand():
    """k = 2, needs 1 and 2 equally likely, unit rates. Saturated states: {1, 1}; {2}; {1} with a
    2-job at the head. From {1,1} a departure leaves {1} and the head is 1 (then {1,1}) or 2;
    balance gives π = (2/7, 2/7, 3/7)... solved below by hand and compared."""
    # states: A = two 1-jobs, B = one 2-job, C = one 1-job + blocked 2-job at head
    # A -> (rate 2) one 1-job left, next head 1 (prob 1/2) -> A, or 2 -> C: A -> C at rate 1
    # B -> (rate 1) empty, heads drawn until they stop fitting: 1,1 -> A (1/4); 1,2 -> C (1/4); 2 -> B (1/2)
    # C -> (rate 1) the 1-job leaves, the 2 starts -> B
    q = np.array([[-1.0, 0.0, 1.0], [0.25, -0.5, 0.25], [0.0, 1.0, -1.0]])
    pi = np.linalg.lstsq(np.vstack([q.T, np.ones(3)]), np.array([0, 0, 0, 1.0]), rcond=None)[0]
    throughput = pi @ np.array([2.0, 1.0, 1.0])
    result = fcfs_saturation(2, [RigidClass(1, 0.5, 1.0), RigidClass(2, 0.5, 1.0)])
    assert result.throughput == pytest.approx(throughput, rel=1e-12, abs=0)
    assert result.max_load == pytest.approx(throughput * 1.5 / 2, rel=1e-12, abs=0)
    assert result.max_load < 1


def saturated_throughput_by_runs(k, n, p):
    """Needs 1 and n with probabilities p and 1 - p, unit rates: the saturated FCFS chain on
    (1-jobs, n-jobs, head need), each cascade of starts counted as runs of class-1 draws, solved densely."""
    def settle(a, b, free, weight, out):
        for j in range(free):  # j class-1 draws start, then a class-n draw
            w = weight * p**j * (1 - p)
            if free - j >= n:
                settle(a + j, b + 1, free - j - n, w, out)
            else:
                out[a + j, b, n] = out.get((a + j, b, n), 0.0) + w
        for head, w in ((1, p), (n, 1 - p)):  # free class-1 draws fill every server, the next head waits
            out[a + free, b, head] = out.get((a + free, b, head), 0.0) + weight * p**free * w

    def departures(state):
        a, b, head = state
        out = {}
        for rate, (a2, b2) in ((a, (a - 1, b)), (b, (a, b - 1))):
            if rate:
                free = k - a2 - n * b2
                if head <= free:
                    a2, b2, free = (a2 + 1, b2, free - 1) if head == 1 else (a2, b2 + 1, free - n)
                    settle(a2, b2, free, rate, out)
                else:
                    out[a2, b2, head] = out.get((a2, b2, head), 0.0) + rate
        return out

    states, edges, todo = {(k, 0, 1): 0}, [], [(k, 0, 1)]
    while todo:
        state = todo.pop()
        for target, rate in departures(state).items():
            if target not in states:
                states[target] = len(states)
                todo.append(target)
            edges.append((states[state], states[target], rate))
    q = np.zeros((len(states), len(states)))
    for i, j, rate in edges:
        q[i, j] += rate
    q -= np.diag(q.sum(axis=1))
    pi = np.linalg.lstsq(np.vstack([q.T, np.ones(len(q))]), np.r_[np.zeros(len(q)), 1.0], rcond=None)[0]
    return sum(pi[i] * (a + b) for (a, b, _), i in states.items()), len(states)


@pytest.mark.parametrize(("k", "n", "p"), [(7, 3, 0.5), (256, 64, 0.5), (256, 64, 0.9),
                                           pytest.param(1500, 2, 0.5, marks=pytest.mark.slow)])
def test_fcfs_saturation_with_long_cascades(k, n, p):
    """A departure of an n-job starts up to n 1-jobs, and the first state fills all k servers: before the
    cascade was settled path by path (2^64 paths at n = 64) and by recursion (RecursionError at k = 2000)."""
    result = fcfs_saturation(k, [RigidClass(1, p, 1.0), RigidClass(n, 1 - p, 1.0)])
    throughput, n_states = saturated_throughput_by_runs(k, n, p)
    assert result.throughput == pytest.approx(throughput, rel=1e-9, abs=0)
    assert result.n_states == n_states


def test_fcfs_saturation_of_one_class_keeps_every_slot_busy():
    assert fcfs_saturation(10, [RigidClass(3, 1.0, 2.0)]).throughput == pytest.approx(1.5, rel=1e-12, abs=0)


# ---------------------------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------------------------


def test_errors():
    with pytest.raises(InvalidParameterError, match=r"policy = 'ffbf': must be one of fcfs, bs-fcfs"):
        exact_multiserver("ffbf", 4, TWO, 1.0)
    with pytest.raises(InvalidParameterError, match=r"representation = 'lumped': must be one of sequence for bs-fcfs"):
        multiserver_chain("bs-fcfs", 8, TWO, 1.0, representation="lumped")
    with pytest.raises(InvalidParameterError, match=r"classes\[1\] = .*must have a phase-type service time"):
        exact_multiserver("fcfs", 4, [RigidClass(1, 0.5, 1.0), RigidClass(2, 0.5, 1.0, size_std=0.0)], 1.0)  # deterministic
    with pytest.raises(InvalidParameterError, match=r"must have a phase-type service time"):
        exact_multiserver("msf", 4, [RigidClass(1, 1.0, 1.0, size="pareto")], 1.0)
    with pytest.raises(InvalidParameterError, match=r"must have distinct needs for the exact Most Servers First chain"):
        exact_multiserver("msf", 4, [RigidClass(1, 0.5, 1.0), RigidClass(1, 0.5, 2.0)], 1.0)
    with pytest.raises(UnstableSystemError, match=r"load λ ϱ / k = 1.2 must be < 1"):
        exact_multiserver("fcfs", 4, TWO, 1.2 * 4 / float(sum(c.demand for c in TWO)))
    with pytest.raises(UnstableSystemError, match=r"ModifiedBS with an empty helper set"):
        exact_multiserver("modified-bs-fcfs", 6, [RigidClass(1, 0.5, 1.0), RigidClass(2, 0.5, 1.0)], 1.0)
    with pytest.raises(InvalidParameterError, match=r"servers = 2: must be >= every server need \(largest need is 4\)"):
        exact_multiserver("fcfs", 2, THREE, 0.1)
    with pytest.raises(StateSpaceTooLargeError):
        exact_multiserver("fcfs", 8, THREE, 1.0, representation="sequence", max_waiting=20, max_states=1000)
    with pytest.raises(InvalidParameterError, match=r"max_waiting = 0"):
        exact_multiserver("fcfs", 8, THREE, 1.0, max_waiting=0)
    with pytest.raises(InvalidParameterError, match=r"must have a phase-type service time"):
        fcfs_saturation(4, [RigidClass(1, 1.0, 1.0, size="deterministic")])
    assert math.isfinite(exact_multiserver("fcfs", 8, THREE, 1.0).mean_response_time)


@pytest.mark.parametrize("call", [
    lambda k: exact_multiserver("fcfs", k, TWO, 1.0),
    lambda k: multiserver_chain("bs-fcfs", k, TWO, 1.0),
    lambda k: fcfs_saturation(k, TWO),
], ids=["exact", "chain", "saturation"])
def test_servers_beyond_the_largest_float_are_refused(call):
    """10**400 servers: refused by the shared check of k (at most 1.8e308), not an OverflowError in the load."""
    with pytest.raises(InvalidParameterError, match=r"^servers = 10+\.\.\.: must be at most 1\.798e\+308 \(the largest float\)"):
        call(10**400)


@pytest.mark.parametrize("rate", [5e-324, 2.2e-308, 2.0**-1020])
def test_arrival_rate_too_small_for_the_solver_is_refused(rate):
    """M/M/4 (one class, one server each): in the state with 4 jobs in service the rates out are λ and 4,
    so λ below 2**-1021 (λ + 4), about 2**-1019, falls below the normal doubles relative to their sum."""
    with pytest.raises(InvalidParameterError, match=r"^arrival_rate = \S+: is too small for an exact chain: the arrival rate "
                                                    r"λ α_i = \S+ of classes\[0\] must be a normal double \(>= 2\*\*-1022\) "
                                                    r"and at least 2\*\*-1021 times 4, a bound on the total rate out of a state"):
        exact_multiserver("fcfs", 4, [RigidClass(1, 1.0, 1.0)], rate)


def test_arrival_rate_at_the_bottom_of_the_doubles():
    """Just above the bound (λ = 2**-1018) the M/M/4 queue is solved: E[R] = d and P(wait) = C(4, λ) ~ λ^4."""
    rate = 2.0**-1018
    exact = exact_multiserver("fcfs", 4, [RigidClass(1, 1.0, 1.0)], rate, max_waiting=5)
    response, wait, _ = mmc(4, rate, 1.0)
    assert exact.mean_response_time == pytest.approx(response, rel=1e-12, abs=0)
    assert exact.wait_probability == pytest.approx(wait, rel=0, abs=1e-300)


def test_rate_bound_counts_reserved_sets_and_helpers():
    """BS-FCFS, k = 8, TWO: s = (2, 2) and |H| = 2; the total service rate of a state is at most
    2/1 + 2/1.5 (the A_i full) + 2 max(1/1, 1/(2 · 1.5)) (the helpers) = 16/3."""
    assert balanced_partition(8, TWO).servers_per_class == (2, 2)
    with pytest.raises(InvalidParameterError, match=r"^arrival_rate = 2.2e-308: .* at least 2\*\*-1021 times 5\.33333, "):
        exact_multiserver("bs-fcfs", 8, TWO, 2.2e-308)


def test_class_probability_below_the_double_range_is_refused():
    """α_0 = 1e-310: the empty state's rates out are λ α_0 and λ α_1, too far apart whatever λ; the class is named."""
    with pytest.raises(InvalidParameterError, match=r"^classes\[0\] = RigidClass\(need=1, probability=1e-310.*must have a "
                                                    r"probability of at least 2\*\*-1021 for an exact chain"):
        exact_multiserver("fcfs", 4, [RigidClass(1, 1e-310, 1.0), RigidClass(1, 1.0, 2.0)], 0.1)


def test_a_vast_chain_is_refused_for_its_size_before_its_rates():
    """k = 10^308 servers of rate 10: the bound on the rate out of a state is inf, which would blame λ = 1;
    the chain is refused for its size first (one class alone can hold 10^308 jobs in service)."""
    with pytest.raises(StateSpaceTooLargeError, match=r"^the chain \(jobs of one class in service\) needs more than"):
        exact_multiserver("fcfs", 10**308, [RigidClass(1, 1.0, 0.1)], 1.0)


@pytest.mark.parametrize("call,match", [
    (lambda: __import__("analytic.splitting", fromlist=["x"]).fcfs_saturation(
        10**18, [__import__("analytic.splitting", fromlist=["x"]).RigidClass(1, 1.0, 1.0)]),
     r"^the chain \(jobs of one class in service\) needs more than 2,000,000 states"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()
