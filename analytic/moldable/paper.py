"""Rows of ``analytic reproduce`` for Ghanbarian et al. (Section 7, Table 1, Theorem 1, Lemma 2, Section 6).

The numerical section uses ``d = 5`` with the linear speed-up ``s = (1, 2, 3, 4, 5)`` and the
sub-linear one ``s = (1, 1.8, 2.5, 3, 3.4)``, in three regimes: mean-field (α = 0, β = 0.2),
Halfin–Whitt (α = 1/2, β = 0.1) and super-Halfin–Whitt (α = 2/3, β = 0.1). Table 1 reports
simulations at ``n = 4000``; with the linear speed-up the greedy scheme is an Erlang loss system of
800 five-server slots: its blocking is ``E_800(800 λ)`` (:func:`analytic.erlang.erlang_b`), which the
exact loss chain (801 states) reproduces.

Table 1 has four size laws; the simulated rows use :func:`simulate_moldable` in two ways: started
near equilibrium (the model's stationary values) and by the paper's own procedure (runs of 5·10⁶
arrivals from an empty system, ``E[D]`` over the jobs completed by the end), which reproduces the
Pareto column that the stationary model does not.

The paper's other numbered claims, checked on the exact chain, are in :mod:`analytic.moldable.claims`.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from analytic._deprecation import old_names, renamed_arguments
from analytic.erlang import erlang_b
from analytic.moldable.bounds import traffic
from analytic.moldable.certified import greedy_bounds
from analytic.moldable.greedy import greedy_chain
from analytic.moldable.heterogeneous import MoldableClass, heterogeneous_lp, heterogeneous_optimum
from analytic.moldable.metrics import greedy_metrics
from analytic.moldable.occupancy import kkt_residual, occupancy_lp, optimal_occupancy, symbolic_kkt_residuals
from analytic.moldable.simulation import BATCHES, MoldableSimulation, simulate_moldable
from analytic.reproduce import Row, reproduces
from analytic.simulation import LAW_NAMES, SerialExecutor
from analytic.simulation._runs import split_jobs
from analytic.speedup import SpeedupTable
from analytic.validation import integer, option

__all__ = ["LINEAR", "PAPER_PROCEDURE", "REGIMES", "SIMULATION_LEVEL", "SUBLINEAR", "TABLE1", "TABLE1_BLOCKING",
           "TABLE1_BOUNDS_SUBLINEAR", "TABLE1_EXACT_SUBLINEAR", "TABLE1_LAWS", "TABLE1_MEAN_RESPONSE_TIME", "TABLE1_SERVERS",
           "table1_simulation"]

PAPER = "Ghanbarian et al."

#: Section 7's linear speed-up on 1 to 5 servers.
LINEAR = SpeedupTable.linear(5)
#: Section 7's sub-linear speed-up: 1, 1.8, 2.5, 3 and 3.4 times faster on 1 to 5 servers.
SUBLINEAR = SpeedupTable([1, 1.8, 2.5, 3, 3.4])

#: The traffic regimes (α, β) of Section 7, in the row order of Table 1.
REGIMES = ((0.0, 0.2), (0.5, 0.1), (2 / 3, 0.1))

#: Table 1's number of servers, n = 4000.
TABLE1_SERVERS = 4000
#: Table 1's four size laws, each of unit mean (named as in analytic.simulation).
TABLE1_LAWS = ("exponential", "deterministic", "mixed_erlang", "pareto")

#: Table 1 as printed: keys (speed-up name, α, law), values (E[D], P_b).
TABLE1 = {
    (speedup, alpha, law): (mean_response_time, blocking)
    for speedup, alpha, mean_times, blockings in [
        ("linear", 0.0, (0.2000, 0.2000, 0.2000, 0.1973), (0.0, 0.0, 0.0, 0.0)),
        ("linear", 0.5, (0.2000, 0.2000, 0.2000, 0.1970), (0.0267, 0.0268, 0.0267, 0.0209)),
        ("linear", 2 / 3, (0.2000, 0.2000, 0.2000, 0.1971), (0.0274, 0.0274, 0.0274, 0.0219)),
        ("sub-linear", 0.0, (0.3782, 0.3782, 0.3782, 0.3708), (0.0204, 0.0202, 0.0203, 0.0149)),
        ("sub-linear", 0.5, (0.9930, 0.9937, 0.9933, 0.9621), (0.0126, 0.0126, 0.0126, 0.0041)),
        ("sub-linear", 2 / 3, (0.9976, 0.9984, 0.9979, 0.9669), (0.0125, 0.0125, 0.0125, 0.0041)),
    ]
    for law, mean_response_time, blocking in zip(TABLE1_LAWS, mean_times, blockings, strict=True)
}

#: Table 1's exponential column of mean times E[D], keys (speed-up name, α).
TABLE1_MEAN_RESPONSE_TIME = {(speedup, alpha): value[0] for (speedup, alpha, law), value in TABLE1.items()
                             if law == "exponential"}
#: Table 1's exponential column of blocking probabilities P_b, keys (speed-up name, α).
TABLE1_BLOCKING = {(speedup, alpha): value[1] for (speedup, alpha, law), value in TABLE1.items() if law == "exponential"}

#: Exact (E[D], P_b) of the sub-linear rows with α > 0 at n = 4000, exponential sizes: greedy_metrics on the
#: 2-dimensional chains (4·10⁶ states, minutes and 6 GB: ``python benchmarks/moldable.py --large 2d``).
TABLE1_EXACT_SUBLINEAR = {0.5: (0.99375, 0.01259), 2 / 3: (0.99843, 0.01253)}

#: Certified intervals ((P_b low, high), (E[D] low, high)) of the same cells at n = 4000, exponential sizes:
#: greedy_bounds on a kept box of 73 010 (α = 1/2) and 35 460 (α = 2/3) states, neglected mass below 1e-12, 17 s and
#: 21 s, 0.5 GB (``python benchmarks/moldable.py --bounds``, which also solves the whole chains and checks them inside).
TABLE1_BOUNDS_SUBLINEAR = {
    0.5: ((0.0125862845945, 0.0125862884127), (0.993745038506, 0.993745043169)),
    2 / 3: ((0.0125294355577, 0.0125294394532), (0.998432045803, 0.998432050562)),
}

#: Servers at which the reproduce table recomputes the certified intervals and the whole chain (seconds).
TABLE1_CHECK_SERVERS = 400

#: Half a unit of the last printed digit plus the simulation's spread (100 runs of 5e6 jobs).
TABLE1_TOLERANCE = 5e-4


@reproduces
def _section7_optima() -> list[Row]:
    sub = optimal_occupancy(SUBLINEAR, 0.8)
    limit = optimal_occupancy(SUBLINEAR, traffic(1e12, 0.5, 0.1))
    return [
        Row(PAPER + ", Sec. 7", "linear speed-up (d = 5): D* = 1/s_5 = 0.2 (Theorem 1 (i), λ = 0.8)",
            0.2, optimal_occupancy(LINEAR, 0.8).mean_response_time, 1e-15),
        Row(PAPER + ", Sec. 7", "sub-linear, α = 0, β = 0.2: y*_3 (eq. 7)", 0.2, float(sub.y[2]), 1e-15),
        Row(PAPER + ", Sec. 7", "sub-linear, α = 0, β = 0.2: y*_4 (eq. 8)", 0.1, float(sub.y[3]), 1e-15),
        Row(PAPER + ", Sec. 7", "sub-linear, α = 0, β = 0.2: D*", 0.375, sub.mean_response_time, 1e-15),
        Row(PAPER + ", Sec. 7", "sub-linear, α = 1/2, β = 0.1: D*(n) -> 1 (at n = 1e12)", 1.0, limit.mean_response_time, 1e-6),
        Row(PAPER + ", Sec. 7", "sub-linear, α = 1/2, β = 0.1: y*_1(n) -> 1 (at n = 1e12)", 1.0, float(limit.y[0]), 1e-5),
    ]


@reproduces
def _theorem1_certificates() -> list[Row]:
    sub = optimal_occupancy(SUBLINEAR, 0.8)
    highs = occupancy_lp(SUBLINEAR, 0.8, "highs")
    symbolic = symbolic_kkt_residuals()
    return [
        Row(PAPER + ", Thm 1", "sub-linear, λ = 0.8: max |y* (eqs. 7-9) - y (HiGHS LP)|", 0.0,
            float(np.abs(sub.y - highs.y).max()), 1e-14),
        Row(PAPER + ", Thm 1", "sub-linear, λ = 0.8: KKT (35)-(38) violation of the closed form", 0.0,
            kkt_residual(SUBLINEAR, 0.8, sub.y, sub.nu, sub.theta0), 1e-14),
        Row(PAPER + ", App. B", "sympy: case (iii) solution satisfies (35)-(38); non-zero residuals", 0,
            sum(expr != 0 for expr in symbolic.values()), 0),
    ]


@reproduces
def _theorem1_uniqueness() -> Row:
    collinear, lam = SpeedupTable([1, 1.75, 2.5]), 0.875              # s_1, s_2, s_3 on one line; λ = s_2/2
    opt = optimal_occupancy(collinear, lam)
    other = np.array([0.25, 0.0, 0.25])                          # feasible: rate 0.25 + 2.5 * 0.25 = λ, capacity 1
    residual = kkt_residual(collinear, lam, other, opt.nu, opt.theta0)
    second = residual < 1e-15 and abs(other.sum() / lam - opt.mean_response_time) < 1e-15
    return Row(PAPER + ", Thm 1 (ii)", f"s = (1, 1.75, 2.5), λ = s_2/2 = {lam}: the optimum of (P)",
               "unique", "not unique" if second else "unique", expect_agreement=False, kind="contradicted",
               note=(f"Theorem 1 (ii) says 'the optimal solution ... of (P) is unique'. Here y* = (0, 0.5, 0) and "
                     f"y = (0.25, 0, 0.25) both meet Σ s_i y_i = λ and Σ i y_i = 1 with "
                     f"D = {opt.mean_response_time:.12g}, and the multipliers of y* certify y as optimal (KKT residual "
                     f"{residual:.1e}): when s_(i-1), s_i, s_(i+1) "
                     "are collinear, mass moves from i to its two neighbours at no cost. The solution is unique iff "
                     "s_i - s_(i-1) > s_(i+1) - s_i (optimal_occupancy's `unique` says so)."))


@reproduces
def _table1_linear() -> list[Row]:
    rows = []
    slots = TABLE1_SERVERS // LINEAR.d
    for alpha, beta in REGIMES:
        lam = traffic(TABLE1_SERVERS, alpha, beta)
        exact = greedy_metrics(LINEAR, lam, TABLE1_SERVERS)
        erlang = float(erlang_b(slots, TABLE1_SERVERS * lam / LINEAR.d))
        label = f"linear, α = {alpha:.3g}, β = {beta:g}, n = 4000"
        rows += [
            Row(PAPER + ", Table 1", f"{label}: E[D] (Exp), exact loss chain", TABLE1_MEAN_RESPONSE_TIME["linear", alpha],
                exact.mean_response_time, TABLE1_TOLERANCE),
            Row(PAPER + ", Table 1", f"{label}: P_b (Exp) = E_800(800 λ), Erlang B", TABLE1_BLOCKING["linear", alpha],
                erlang, TABLE1_TOLERANCE),
            Row(PAPER + ", Table 1", f"{label}: P_b of the exact loss chain (801 states) = Erlang B", erlang,
                exact.blocking, 1e-12 * max(erlang, 1e-300)),
        ]
    return rows


@reproduces
def _table1_sublinear_exact() -> list[Row]:
    rows = []
    for alpha, beta in REGIMES[1:]:
        (blocking_low, blocking_high), (time_low, time_high) = TABLE1_BOUNDS_SUBLINEAR[alpha]
        blocking, mean_response_time = (blocking_low + blocking_high) / 2, (time_low + time_high) / 2
        exact_time, exact_blocking = TABLE1_EXACT_SUBLINEAR[alpha]
        label = f"sub-linear, α = {alpha:.3g}, β = {beta:g}, n = 4000"
        stored = (f"certified interval [{time_low:.10f}, {time_high:.10f}] from greedy_bounds (a kept box of the 4·10⁶-state "
                  "chain with a proven bound on the rest; stored, measured by benchmarks/moldable.py --bounds)")
        rows += [
            Row(PAPER + ", Table 1", f"{label}: P_b (Exp), certified interval [{blocking_low:.10f}, {blocking_high:.10f}]",
                TABLE1_BLOCKING["sub-linear", alpha], blocking, TABLE1_TOLERANCE),
            Row(PAPER + ", Table 1", f"{label}: printed E[D] (Exp) = the model's E[D], {stored}",
                TABLE1_MEAN_RESPONSE_TIME["sub-linear", alpha], mean_response_time, TABLE1_TOLERANCE, expect_agreement=False,
                kind="printed estimate differs",
                note=(f"The exact E[D] of the model lies in [{time_low:.9f}, {time_high:.9f}] (the whole chain, solved "
                      f"once, gives {exact_time}); the printed simulated value "
                      f"{TABLE1_MEAN_RESPONSE_TIME['sub-linear', alpha]} is "
                      f"{mean_response_time - TABLE1_MEAN_RESPONSE_TIME['sub-linear', alpha]:.5f} below it, more than the "
                      "table's tolerance (half a unit of the last printed digit plus the simulation's spread) allows. "
                      "The paper's "
                      "procedure (runs from an empty system, E[D] of the jobs completed by the end) gives the "
                      "printed value (notebooks/moldable_jobs.ipynb, Section 8): it is an estimate of that "
                      "procedure, not of the stationary model.")),
            Row(PAPER + ", Table 1", f"{label}: both ends of the certified intervals, rounded to 5 digits, give the whole "
                                     "chain's (P_b, E[D]) rounded to 5 digits: largest difference", 0.0,
                max(abs(round(end, 5) - reference) for ends, reference in [((blocking_low, blocking_high), exact_blocking),
                                                                           ((time_low, time_high), exact_time)]
                    for end in ends), 1e-12),
        ]
    n = TABLE1_CHECK_SERVERS
    lam = traffic(n, 0.5, 0.1)
    bounds, exact = greedy_bounds(SUBLINEAR, lam, n), greedy_metrics(SUBLINEAR, lam, n)
    inside = (bounds.blocking[0] <= exact.blocking <= bounds.blocking[1]
              and bounds.mean_response_time[0] <= exact.mean_response_time <= bounds.mean_response_time[1])
    rows.append(Row(PAPER + ", Table 1", f"sub-linear, α = 1/2, n = {n}: greedy_bounds ({bounds.n_states:,} kept states, "
                                         f"width {bounds.width:.1g}) contains the whole chain's P_b and E[D] "
                                         f"({exact.n_states:,} states)", True, inside))
    return rows


#: Servers at which the sub-linear Mixed-Erlang column is solved exactly with its phases (seconds; n = 4000's
#: chain with phases is beyond memory).
MIXED_ERLANG_SERVERS = 40


@reproduces
def _table1_mixed_erlang_exact() -> list[Row]:
    law = LAW_NAMES["mixed_erlang"]()                    # Sec. 7: Erlang-1 and Erlang-2 with weights 0.4, 0.6 (phase-type)
    rows = []
    n = TABLE1_CHECK_SERVERS
    for alpha, beta in REGIMES:
        lam = traffic(n, alpha, beta)
        erlang = float(erlang_b(n // LINEAR.d, n * lam / LINEAR.d))
        loss = greedy_chain(LINEAR, lam, n, size=law)              # the chain itself: greedy_metrics would use Erlang B
        blocking = loss.chain.stationary().expected((loss.states[:, 0] * LINEAR.d > n - LINEAR.d).astype(float))
        rows.append(Row(PAPER + ", Table 1", f"linear, α = {alpha:.3g}, β = {beta:g}, n = {n}: P_b (Mixed-Erlang) of the "
                                             f"chain with phases ({loss.chain.n_states:,} states) = E_{n // LINEAR.d}"
                                             f"({n // LINEAR.d} λ), Erlang's insensitivity", erlang, blocking,
                        1e-12 * max(erlang, 1e-300)))
    n = MIXED_ERLANG_SERVERS
    lam = traffic(n, 0.5, 0.1)
    exponential, phases = greedy_metrics(SUBLINEAR, lam, n), greedy_metrics(SUBLINEAR, lam, n, size=law)
    label = (f"sub-linear, α = 1/2, β = 0.1, n = {n}, exact chains ({exponential.n_states:,} states; "
             f"{phases.n_states:,} with phases)")
    note = ("Section 7 studies 'the insensitivity of the greedy(p*) scheme to the exact distribution of job sizes in Table 1', "
            "and the introduction says the scheme 'is nearly insensitive to job size distributions for large system "
            "sizes'. Read as Table 1 prints it (four decimals, so within 5e-5), it holds for the Mixed-Erlang column "
            "exactly at finite n: Table 1's n = 4000 chain with phases is beyond memory; notebooks/moldable_jobs.ipynb "
            "(section 10) sets laws of scv 0.1 to 20 against n.")
    rows += [
        Row(PAPER + ", Table 1", f"{label}: P_b (Mixed-Erlang) = P_b (Exp) to Table 1's four decimals",
            exponential.blocking, phases.blocking, 5e-5, note=note),
        Row(PAPER + ", Table 1", f"{label}: E[D] (Mixed-Erlang) = E[D] (Exp) to Table 1's four decimals",
            exponential.mean_response_time, phases.mean_response_time, 5e-5),
    ]
    return rows


@reproduces
def _lemma2() -> Row:
    n = 20
    exact = greedy_metrics(SUBLINEAR, 0.8, n)
    two_or_more = float(exact.small_jobs[2:].sum())
    return Row(PAPER + ", Lemma 2",
               f"greedy(p*), sub-linear, λ = 0.8, n = {n}: P(Σ_(i<i1) x_i > 1/n), i1 = 3",
               0.0, two_or_more, 1e-12, expect_agreement=False, kind="contradicted",
               note=(f"Lemma 2 claims this probability is 0. The exact chain ({exact.n_states} states) gives "
                     f"P(two or more jobs on fewer than 3 servers) = {two_or_more:.4f}: a job on 4 servers leaves, an "
                     "arrival takes 3 of the 4 freed servers, and the next arrival gets the last one; the proof's "
                     "'tagged job' argument overlooks departures of i2-server jobs."))


@reproduces
def _heterogeneous() -> Row:
    classes = [MoldableClass(LINEAR, 0.3), MoldableClass(SUBLINEAR, 0.5, 1.2),
               MoldableClass(SpeedupTable.power(0.5, 4), 0.1, 0.5)]
    return Row(PAPER + ", Sec. 6", "three classes: D* of (Q) via (Q1)-(Q2) and Theorem 1 = D* of the LP (Q) (HiGHS)",
               heterogeneous_lp(classes).mean_response_time, heterogeneous_optimum(classes).mean_response_time, 1e-13)


#: Level of the intervals within which a simulated value counts as agreeing (Student-t, two-sided).
SIMULATION_LEVEL = 0.999

#: The paper's procedure (Section 7): "The simulations are conducted 100 times, each simulating the
#: arrival of the first 5 million jobs" — from an empty system, no warm-up; E[D] averaged over the
#: jobs completed by the end (our reading: it reproduces Table 1, see notebooks/moldable_jobs.ipynb).
PAPER_PROCEDURE = {"warmup": 0, "start": "empty", "response_time_of": "completed"}
PAPER_JOBS = 5_000_000


#: The paper's procedure on Table 1's linear, α = 1/2, Pareto cell at four times the paper's 100 runs, so that the
#: procedure's mean is known well enough to judge a single 100-run average (the printed value) against it:
#: ``table1_simulation(LINEAR, 0.5, 0.1, "pareto", 400, PAPER_JOBS, 2026, **PAPER_PROCEDURE)``, 145 s on two cores
#: (tests/contract/test_verdicts.py recomputes it with other seeds). Values: (mean, standard error over the 400 runs).
PARETO_PROCEDURE = {"runs": 400, "seed": 2026, "blocking": (0.0216068705, 7.876977766254576e-05),
                    "mean_response_time": (0.19714163360216957, 2.478812583090967e-05)}


def _procedure_gap(printed: float, mean: float, standard_error: float, runs: int, paper_runs: int = 100) -> float:
    """How many standard deviations of ``printed - mean`` separate a printed ``paper_runs``-run average,
    moved by half a unit of its last (fourth) decimal towards ``mean``, from the procedure's mean estimated
    over ``runs`` runs: the per-run spread is ``standard_error * sqrt(runs)``, so the difference has variance
    ``spread^2 / paper_runs + standard_error^2``.

    Parameters
    ----------
    printed : float
        The paper's value, printed to four decimals.
    mean, standard_error : float
        The procedure's mean over ``runs`` runs and its standard error.
    runs : int
        Runs behind ``mean``.
    paper_runs : int
        Runs behind ``printed`` (Section 7: 100).

    Returns
    -------
    float
        The gap, non-negative (0 when half a printed unit covers the difference).

    Examples
    --------
    >>> round(_procedure_gap(0.0209, *PARETO_PROCEDURE["blocking"], 400), 2)
    3.73
    """
    spread = standard_error * math.sqrt(runs)
    gap = max(abs(mean - printed) - 5e-5, 0.0)
    return gap / math.sqrt(spread**2 / paper_runs + standard_error**2)


@renamed_arguments(jobs="arrivals_per_replication", runs="replications")
def table1_simulation(speedup: SpeedupTable, alpha: float, beta: float, law: str, replications: int,
                      arrivals_per_replication: int, seed: int | None, executor=None, **procedure) -> MoldableSimulation:
    """A Table 1 cell simulated at n = 4000: ``replications`` of ``arrivals_per_replication`` arrivals each
    (the paper's runs).

    Parameters
    ----------
    speedup : SpeedupTable
        The row's speed-up (:data:`LINEAR` or :data:`SUBLINEAR`).
    alpha, beta : float
        The row's traffic ``λ = 1 - β n^(-α)``.
    law : str
        The column's size law (a name of :data:`analytic.simulation.LAW_NAMES`).
    replications : int
        Independent replications (the paper averages 100 runs).
    arrivals_per_replication : int
        Arrivals in each.
    seed : int or None
        Seed of the replications (None: fresh entropy).
    executor : concurrent.futures.Executor, optional
        Where to run them (default: serially).
    **procedure
        Passed to :func:`~analytic.moldable.simulate_moldable` (``start``, ``warmup``, ``response_time_of``).

    Returns
    -------
    MoldableSimulation

    Examples
    --------
    >>> from analytic.moldable.paper import LINEAR
    >>> cell = table1_simulation(LINEAR, 0.5, 0.1, "pareto", 2, 20_000, seed=1)   # Erlang: E_800(800 λ) = 0.0267
    >>> round(cell.blocking.value, 4), cell.method
    (0.0268, 'independent replications')
    """
    lam = float(traffic(TABLE1_SERVERS, alpha, beta))
    option("law", law, LAW_NAMES)
    runs = integer("replications", replications)
    per_run = split_jobs(arrivals_per_replication, 1, procedure.get("batches", BATCHES),   # refused by this name,
                         name="arrivals_per_replication")[0]                                # not simulate_moldable's total
    return simulate_moldable(speedup, lam, TABLE1_SERVERS, size=law, arrivals=runs * per_run, replications=runs,
                             seed=seed, executor=SerialExecutor() if executor is None else executor, **procedure)


@reproduces
def _table1_simulated() -> list[Row]:
    slots, load = TABLE1_SERVERS // LINEAR.d, TABLE1_SERVERS * traffic(TABLE1_SERVERS, 0.5, 0.1) / LINEAR.d
    erlang = float(erlang_b(slots, load))
    printed_time, printed_blocking = TABLE1["linear", 0.5, "pareto"]
    label = "linear, α = 1/2, n = 4000, Pareto(3/2) sizes"
    runs, seed = PARETO_PROCEDURE["runs"], PARETO_PROCEDURE["seed"]
    blocking, blocking_error = PARETO_PROCEDURE["blocking"]
    mean_response_time, mean_time_error = PARETO_PROCEDURE["mean_response_time"]
    level = NormalDist().inv_cdf(0.5 + SIMULATION_LEVEL / 2)     # two-sided, 3.29
    procedure = (f"a 100-run average of the paper's procedure (runs of 5e6 arrivals from empty, Section 7), judged "
                 f"against the procedure's mean over {runs} runs (stored: PARETO_PROCEDURE, seed {seed})")
    gap_blocking = _procedure_gap(printed_blocking, blocking, blocking_error, runs)
    gap_time = _procedure_gap(printed_time, mean_response_time, mean_time_error, runs)
    return [
        Row(PAPER + ", Table 1", f"{label}: printed P_b = the model's P_b, E_800(800 λ)", printed_blocking, erlang, 5e-5,
            expect_agreement=False, kind="printed estimate differs",
            note=("Every job holds 5 servers: an Erlang loss system of 800 slots, whose blocking with any size law of mean "
                  f"1 is E_800(800 λ) = {erlang:.4f} (Erlang's loss system is insensitive; the chain with phases of "
                  "the Mixed-Erlang rows gives it too). The printed value is close to what the paper's procedure yields "
                  "(next row): from an empty start, the load present with Pareto(3/2) sizes approaches equilibrium only "
                  "like t^(-1/2), about 1% short over a run."),
            ),
        Row(PAPER + ", Table 1", f"{label}: printed P_b is {procedure}: standard deviations of the difference",
            0.0, gap_blocking, level, expect_agreement=False, kind="printed estimate differs",
            note=(f"The procedure's mean is {blocking:.6f} (standard error {blocking_error:.1e}); a 100-run average "
                  f"spreads by {blocking_error * math.sqrt(runs / 100):.6f}. The printed 0.0209, even read as 0.02095 "
                  f"(half a printed unit towards the mean), lies {gap_blocking:.2f} standard deviations of the difference "
                  f"below, beyond the two-sided 99.9 % level ({level:.2f}): the paper's procedure, run at its scale, "
                  "gives this value with probability below 1e-3. notebooks/moldable_jobs.ipynb runs all 48 values of "
                  "Table 1 at the paper's 100 runs: this is the one of 48 the procedure does not give (the stationary "
                  "model gives 33 of 48).")),
        Row(PAPER + ", Table 1", f"{label}: printed E[D] = the model's E[D] = E[S]/5", printed_time, 0.2, 5e-5,
            expect_agreement=False, kind="printed estimate differs",
            note=("Every accepted job runs S/5 with E[S] = 1, whatever the state: E[D] = 0.2 exactly. The printed value is "
                  "the mean over the jobs completed before the run ends (next row), which drops the long jobs still in "
                  "service."),
            ),
        Row(PAPER + ", Table 1", f"{label}: printed E[D] of the jobs completed by the end is {procedure}: standard "
            "deviations of the difference", 0.0, gap_time, level,
            note=f"The procedure's mean is {mean_response_time:.6f} (standard error {mean_time_error:.1e})."),
    ]


__getattr__ = old_names(globals(), {"TABLE1_MEAN_TIME": "TABLE1_MEAN_RESPONSE_TIME"})
