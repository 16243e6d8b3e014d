"""The settings of Bonald & Comte's Section 5 (Figures 1–4) and the rows of ``analytic reproduce``.

*Balanced Fair Resource Sharing in Computer Clusters*, Section 5:

* Figure 1: two classes, three unit servers, server 2 (here index 2) shared; Figure 2: the same
  graph with μ_2 = 0 (class 1 on servers {1, 3}, class 2 on server 3 only); λ_1 = λ_2 and the load
  ρ = (λ_1 + λ_2)σ/(μ_1 + μ_2 + μ_3) on the horizontal axis;
* Figures 3 and 4: S = 100 unit servers, d = 2 and 3 random servers per job, ρ = λσ/S;
* three size laws (:data:`SIZE_LAWS`): a bimodal number of exponential phases (ς = 1/5, n₁ = 25,
  n₂ = 1, p₁ = 1/6) and a hyperexponential law (σ₁ = 5, σ₂ = 1/5, p₁ = 1/6), both of unit mean, and
  a Zipf number of phases (ς = 1, K = 200, α = 2) that is **not** of unit mean: as printed its mean
  is σ = ς H_200 / H_200^(2) = 3.5842820379754561 (H_K^(a) = Σ_(k<=K) k^(-a); the exact rational has a
  179-digit numerator), which the paper itself gives as "approximately equal to 3.58", and its
  standard deviation √((200 + H_200)/H_200^(2) − σ²) = 10.6157. The loads of Section 5 divide by σ
  (ρ = (λ_1 + λ_2)σ/Σμ), so :func:`figure_rates` takes the law's mean: unit arrival rates with Zipf
  sizes are a load 3.58 times that of the other laws. All three are mixtures of Erlang laws of the
  simulation core;
* Algorithm 1 with m = 0 (FCFS), 1 and 5 interruptions per job, against balanced fairness.

The figures themselves were lost from the text we have; their statements are checked in
``notebooks/balanced_fairness.ipynb``. The rows below are the cheap ones.
"""

from __future__ import annotations

import itertools
import math
from concurrent.futures import Executor
from dataclasses import dataclass
from fractions import Fraction
from numbers import Integral
from typing import Any

import numpy as np

from analytic._deprecation import renamed_arguments, renamed_attribute
from analytic.errors import InvalidParameterError
from analytic.fairness.balance import balance_function
from analytic.fairness.chain import oi_queue_law
from analytic.fairness.graph import CompatibilityGraph
from analytic.fairness.oi_queue import permutation_rates
from analytic.fairness.random_assignment import random_assignment, random_assignment_graph
from analytic.fairness.simulation import InterruptionSimulation, simulate_interruptions, simulate_random_assignment
from analytic.fairness.stability import is_stable
from analytic.fairness.subsets import balanced_fairness
from analytic.fairness.three_servers import symbolic_check, three_server_graph, three_server_rates
from analytic.reproduce import Row, reproduces
from analytic.simulation import ErlangMixture, Estimates, SizeLaw, check_executor, compare, exponential, hyperexponential, streams
from analytic.simulation.clock import check_horizon
from analytic.validation import instances, integer, positive, real_array

__all__ = ["FIGURES", "PRINTED_MEAN", "PRINTED_STD", "SIZE_LAWS", "Figure", "SweepPoint", "exact_point", "figure_rates",
           "figure_sweep", "simulate_point"]

PAPER = "Bonald & Comte"

#: σ of the Zipf law to 17 digits: H_200 / H_200^(2) (exact rational 3.58428203797545608...).
_ZIPF_MEAN_DIGITS = "3.5842820379754561"


def _zipf_phases(stages: int = 200, alpha: float = 2.0, stage_mean: float = 1.0) -> ErlangMixture:
    """k exponential phases of mean ς with probability ∝ k^−α, k = 1..K."""
    k = np.arange(1, stages + 1)
    weights = k ** -alpha
    return ErlangMixture(weights / weights.sum(), k, np.full(stages, 1.0 / stage_mean))


#: The size laws of Section 5 (work units: unit-capacity servers do one unit per unit time). The bimodal and
#: hyperexponential laws have mean 1; the Zipf law, as printed (ς = 1), has mean H_200 / H_200^(2) = 3.58428...
SIZE_LAWS: dict[str, SizeLaw] = {
    "exponential": exponential(1.0),
    "bimodal": ErlangMixture([1 / 6, 5 / 6], [25, 1], [5.0, 5.0]),
    "hyperexponential": hyperexponential([1 / 6, 5 / 6], [5.0, 0.2]),
    "zipf": _zipf_phases(),
}

#: Standard deviations printed in Section 5 ("approximately equal to").
PRINTED_STD = {"bimodal": 1.84, "hyperexponential": 2.05, "zipf": 10.61}
#: Means printed in Section 5 (the Zipf one is "approximately equal to 3.58": that law is not of unit mean).
PRINTED_MEAN = {"bimodal": 1.0, "hyperexponential": 1.0, "zipf": 3.58}


@dataclass(frozen=True)
class Figure:
    """One figure of Section 5: a three-server graph (``capacities``) or random assignment (``d``).

    Attributes
    ----------
    number : int
        1 to 4.
    capacities : tuple of 3 floats, optional
        (μ_1, μ_2, μ_3) of the three-server graph (Figures 1–2).
    d : int, optional
        Servers per class of the random-assignment system (Figures 3–4).
    servers : int
        S of the random-assignment system.

    Examples
    --------
    >>> FIGURES[2].capacities, FIGURES[3].d
    ((1.0, 0.0, 1.0), 2)
    """

    number: int
    capacities: tuple[float, float, float] | None = None
    d: int | None = None
    servers: int = 100

    def __post_init__(self) -> None:
        integer("number", self.number)
        servers = integer("servers", self.servers)
        if (self.capacities is None) == (self.d is None):
            raise InvalidParameterError("d", self.d, "must be given exactly when capacities is None (a three-server "
                                                     "figure has capacities, a random-assignment figure has d)")
        if self.capacities is not None:
            capacities = real_array("capacities", self.capacities, ndim=1)
            if capacities.shape != (3,) or np.any(capacities < 0):
                raise InvalidParameterError("capacities", self.capacities, "must be three finite capacities >= 0")
            object.__setattr__(self, "capacities", tuple(capacities.tolist()))
        elif integer("d", self.d) > servers:
            raise InvalidParameterError("d", self.d, f"must be <= servers = {servers}")


#: Figures 1–4 of Section 5.
FIGURES = {1: Figure(1, capacities=(1.0, 1.0, 1.0)), 2: Figure(2, capacities=(1.0, 0.0, 1.0)),
           3: Figure(3, d=2), 4: Figure(4, d=3)}


def figure_rates(figure: Figure, load: float, mean_size: float = 1.0) -> np.ndarray:
    """Arrival rates at load ρ: λ_1 = λ_2 = ρ Σμ / (2σ) (Figures 1–2), or λ = ρ S/σ (Figures 3–4).

    Computed in exact rationals and rounded once, so no intermediate product under- or overflows
    (σ = 1.7e308 gives λ = 4.4e-309).

    Parameters
    ----------
    figure : Figure
        One of :data:`FIGURES`.
    load : float
        ρ > 0.
    mean_size : float
        σ > 0.

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    InvalidParameterError
        A non-positive or non-finite load or mean size, or rates beyond the double range (the
        error names the one of ρ and σ farther from 1).

    Examples
    --------
    >>> figure_rates(FIGURES[2], 0.5).tolist(), figure_rates(FIGURES[3], 0.5).tolist()
    ([0.5, 0.5], [50.0])
    """
    return _figure_rates(figure, load, mean_size, "load")


def _figure_rates(figure: Figure, load: Any, mean_size: Any, load_name: str) -> np.ndarray:
    """:func:`figure_rates`, naming the load ``load_name`` in its errors (``loads[k]`` in a sweep)."""
    if not isinstance(figure, Figure):
        raise InvalidParameterError("figure", figure, "must be a Figure (one of FIGURES)")
    rho = positive(load_name, load)
    sigma = positive("mean_size", mean_size)
    count, capacity = (2, sum(map(Fraction, figure.capacities)) / 2) if figure.capacities is not None else (
        1, Fraction(figure.servers))
    if capacity == 0:
        raise InvalidParameterError("figure", figure, "must have a positive total capacity")
    exact = Fraction(rho) * capacity / Fraction(sigma)
    try:
        rate = float(exact)
    except OverflowError:
        rate = math.inf
    if not 0 < rate < math.inf:
        (name, value, _), (other, _, number) = sorted([(load_name, load, rho), ("mean_size", mean_size, sigma)],
                                                      key=lambda named: -abs(math.log(named[2])))
        exponent, mantissa = divmod(math.log10(exact.numerator) - math.log10(exact.denominator), 1)
        raise InvalidParameterError(name, value, f"with {other} = {number:g} gives arrival rates of about "
                                                 f"{10 ** mantissa:.2g}e{int(exponent):+d}, "
                                                 f"{'beyond' if rate else 'below'} the double range")
    return np.full(count, rate)


def exact_point(figure: Figure, load: float, mean_size: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Balanced fairness at load ρ: (mean service rates, mean delays), one entry per class (one for Figures 3–4).

    Parameters
    ----------
    figure : Figure
        One of :data:`FIGURES`.
    load : float
        ρ in (0, 1).
    mean_size : float
        σ.

    Returns
    -------
    tuple of numpy.ndarray
        γ and δ.

    Examples
    --------
    >>> rates, delays = exact_point(FIGURES[1], 0.5)
    >>> rates.round(6).tolist()
    [1.029412, 1.029412]
    """
    rates = figure_rates(figure, load, mean_size)
    if figure.capacities is not None:
        result = balanced_fairness(three_server_graph(figure.capacities), rates, mean_size)
        return result.mean_service_rate, result.mean_response_time
    result = random_assignment(figure.servers, figure.d, float(rates[0]), mean_size)
    return np.array([result.mean_service_rate]), np.array([result.mean_response_time])


@renamed_arguments(jobs="arrivals")
def simulate_point(figure: Figure, load: float, law: str, interruptions: float, arrivals: int, seed: Any = None,
                   replications: int = 1, executor: Executor | None = None, **options: Any) -> InterruptionSimulation:
    """Algorithm 1 simulated at one point of a figure, with a size law of :data:`SIZE_LAWS`.

    Parameters
    ----------
    figure : Figure
        One of :data:`FIGURES`.
    load : float
        ρ.
    law : str
        A key of :data:`SIZE_LAWS`.
    interruptions : float
        m.
    arrivals : int
        Arrivals simulated.
    seed : int, SeedSequence, Generator or None
        The seed.
    replications : int
        Independent replications.
    executor : concurrent.futures.Executor, optional
        Where to run them.
    **options
        Passed to the simulator.

    Returns
    -------
    InterruptionSimulation

    Examples
    --------
    >>> simulate_point(FIGURES[1], 0.5, "zipf", 1.0, 20_000, seed=1).mean_response_time.value.shape
    (2,)
    """
    if not isinstance(law, str) or law not in SIZE_LAWS:
        raise InvalidParameterError("law", law, f"must be one of {sorted(SIZE_LAWS)}")
    size = SIZE_LAWS[law]
    rates = _point_rates(figure, load, size.mean, arrivals, replications, "load")
    if figure.capacities is not None:
        return simulate_interruptions(three_server_graph(figure.capacities), rates, size, interruptions, arrivals,
                                      replications=replications, seed=seed, executor=executor, **options)
    return simulate_random_assignment(figure.servers, figure.d, float(rates[0]), size, interruptions, arrivals,
                                      replications=replications, seed=seed, executor=executor, **options)


def _point_rates(figure: Figure, load: Any, mean_size: float, arrivals: Any, replications: Any,
                 load_name: str) -> np.ndarray:
    """The rates of one simulated point, refused (naming the load ``load_name`` or the arrivals) beyond the clock's horizon.

    Checked here, where the load is known, rather than by the simulator, which would name the arrival rates.
    """
    rates = _figure_rates(figure, load, mean_size, load_name)
    per_run = integer("arrivals", arrivals) // integer("replications", replications)
    check_horizon(arrivals, per_run, float(rates.sum()) * mean_size, (load_name, load))
    return rates


@dataclass(frozen=True)
class SweepPoint:
    """One simulated point of a figure beside balanced fairness (arrays: one entry per class, or one).

    Attributes
    ----------
    figure : int
        The figure's number.
    law : str
        The size law (a key of :data:`SIZE_LAWS`).
    interruptions : float
        m, the mean number of interruptions per job.
    load : float
        ρ.
    exact_rate, exact_response_time : numpy.ndarray
        γ and δ under balanced fairness.
    simulation : InterruptionSimulation
        Algorithm 1 simulated.

    Examples
    --------
    >>> point = figure_sweep([1], ["exponential"], [0.0], [0.5], 20_000, seed=3)[0]
    >>> point.figure, point.law, point.exact_rate.round(6).tolist()
    (1, 'exponential', [1.029412, 1.029412])
    """

    figure: int
    law: str
    interruptions: float
    load: float
    exact_rate: np.ndarray
    exact_response_time: np.ndarray
    simulation: InterruptionSimulation

    @property
    def relative_gap(self) -> Estimates:
        """γ_simulated / γ_balanced-fairness − 1, per class, with its interval (the service rate's, scaled)."""
        rate = self.simulation.mean_service_rate
        return Estimates(rate.value / self.exact_rate - 1, rate.half_width / self.exact_rate, rate.level, rate.method,
                         rate.samples)

    relative_gap_ci = renamed_attribute("relative_gap.half_width")
    exact_delay = renamed_attribute("exact_response_time")


def _sweep_point(job: tuple) -> SweepPoint:
    number, law, m, load, arrivals, seed, options = job
    figure = FIGURES[number]
    rate, delay = exact_point(figure, load, SIZE_LAWS[law].mean)
    return SweepPoint(number, law, m, load, rate, delay, simulate_point(figure, load, law, m, arrivals, seed, **options))


@renamed_arguments(jobs="arrivals")
def figure_sweep(figures: Any, laws: Any, interruptions: Any, loads: Any, arrivals: int, seed: int | None = 0,
                 executor: Executor | None = None, **options: Any) -> list[SweepPoint]:
    """Simulate every (figure, law, m, load) point of Section 5, each with its own seed, beside balanced fairness.

    Each point is one replication of ``arrivals`` arrivals (intervals from batch means); the points get
    the children of ``SeedSequence(seed)`` in the order of the loops (figures, laws, m, loads), so a
    seed gives the same numbers serially or through ``executor`` (e.g. a process pool: points run in
    parallel; ``seed=None`` draws fresh entropy). ``options`` go to the simulator (``warmup``, ``batches``, ...).

    Parameters
    ----------
    figures : sequence of int
        Figure numbers (1 to 4).
    laws : sequence of str
        Keys of :data:`SIZE_LAWS`.
    interruptions : sequence of float
        Values of m.
    loads : sequence of float
        Values of ρ.
    arrivals : int
        Arrivals per point.
    seed : int or None
        Root of the points' seeds.
    executor : concurrent.futures.Executor, optional
        Where to run the points (default: serially).
    **options
        Passed to the simulator.

    Returns
    -------
    list of SweepPoint

    Raises
    ------
    InvalidParameterError
        Bad figures, laws, counts or options; a load whose rates leave the double range or whose
        run exceeds the clock's horizon, named ``loads[k]`` (every point is checked before any is
        simulated); ``arrivals`` beyond that horizon at every load.

    Examples
    --------
    >>> points = figure_sweep([1], ["hyperexponential"], [5.0], [0.5], 50_000, seed=3)
    >>> points[0].exact_rate.round(6).tolist()          # balanced fairness at ρ = 0.5, Figure 1
    [1.029412, 1.029412]
    """
    numbers = instances("figures", figures, Integral)
    if any(f not in FIGURES for f in numbers):
        raise InvalidParameterError("figures", figures, f"must be figure numbers among {sorted(FIGURES)}")
    names = instances("laws", laws, str)
    if any(law not in SIZE_LAWS for law in names):
        raise InvalidParameterError("laws", laws, f"must be names among {sorted(SIZE_LAWS)}")
    ms = real_array("interruptions", interruptions, ndim=1, allow_empty=False)
    rhos = real_array("loads", loads, ndim=1, allow_empty=False)
    for k, load in enumerate(rhos):     # every point's rates and run length, before any point is simulated
        for number in numbers:
            for law in names:
                _point_rates(FIGURES[number], load, SIZE_LAWS[law].mean, arrivals, options.get("replications", 1),
                             f"loads[{k}]")
    check_executor(executor)
    grid = [(f, law, float(m), float(load)) for f in numbers for law in names for m in ms for load in rhos]
    seeds = streams(seed, len(grid))
    work = [(*point, arrivals, child, options) for point, child in zip(grid, seeds, strict=True)]
    if executor is None:
        return [_sweep_point(job) for job in work]
    return list(executor.map(_sweep_point, work))


# -- rows of `analytic reproduce` -------------------------------------------------------------------


@reproduces
def _equations_10_11() -> list[Row]:
    rows = []
    for number in (1, 2):
        figure = FIGURES[number]
        worst = 0.0
        for load in np.linspace(0.05, 0.95, 19):
            rates = figure_rates(figure, load)
            printed = three_server_rates(figure.capacities, rates)
            exact = balanced_fairness(three_server_graph(figure.capacities), rates).mean_service_rate
            worst = max(worst, float(np.abs(printed / exact - 1).max()))
        rows.append(Row(PAPER + ", eqs. (10)-(11)", f"Figure {number}: max relative gap of γ_1, γ_2 as printed to the "
                        "subset recursion, ρ = 0.05..0.95", 0.0, worst, 1e-12))
    rows.append(Row(PAPER + ", eqs. (10)-(11)", "sympy: γ_i from the subset recursion minus (10)-(11), non-zero terms",
                    0, sum(d != 0 for d in symbolic_check().differences), 0))
    return rows


@reproduces
def _theorem_1_example() -> Row:
    capacities = (1.0, 0.5, 2.0)
    graph = three_server_graph(capacities)
    grid = np.arange(0, 4.01, 0.25)
    wrong = sum(is_stable(graph, [a, b]) != (a < 3.0 and b < 2.5 and a + b < 3.5) for a in grid for b in grid)
    return Row(PAPER + ", Thm 1 / Sec. 5", "three servers μ = (1, 0.5, 2): grid points where the LP and the printed "
               "condition λ_1 < μ_1+μ_3, λ_2 < μ_2+μ_3, λ_1+λ_2 < μ disagree (boundaries included)", 0, wrong, 0)


@reproduces
def _theorem_2_and_equation_3() -> list[Row]:
    graph, rates = three_server_graph((1.0, 2.0, 0.5)), [0.7, 1.1]
    phi = balance_function(graph, rates, 6)
    whittle = phi.whittle_rates()
    gap = max(float(np.abs(whittle[k] - permutation_rates(graph, rates, x)).max()) for k, x in enumerate(phi.states))
    law = oi_queue_law(graph, rates, 6, interruptions=5.0)
    return [
        Row(PAPER + ", Thm 2", "eq. (7) Φ(x−e_i)/Φ(x) vs eq. (8) averaged over all orderings, x <= 6 jobs: max gap",
            0.0, gap, 1e-13),
        Row(PAPER + ", eqs. (1)-(3)", "aggregate law of the job-sequence CTMC (m = 5 interruptions, exponential sizes, "
            "<= 6 jobs) vs π̄ from recursion (4): max gap", 0.0, float(np.abs(law.probabilities - phi.probabilities()).max()),
            1e-13),
    ]


@reproduces
def _figure_2_maximum_rates() -> list[Row]:
    rates = balanced_fairness(three_server_graph(FIGURES[2].capacities), figure_rates(FIGURES[2], 1e-7)).mean_service_rate
    return [Row(PAPER + ", Fig. 2", "maximum service rate of class 1 (servers 1, 3): γ_1 at ρ = 1e-7", 2.0,
                float(rates[0]), 1e-6),
            Row(PAPER + ", Fig. 2", "maximum service rate of class 2 (server 3 only): γ_2 at ρ = 1e-7", 1.0,
                float(rates[1]), 1e-6)]


@reproduces
def _size_laws() -> list[Row]:
    rows = []
    for name in ("bimodal", "hyperexponential", "zipf"):
        law = SIZE_LAWS[name]
        rows.append(Row(PAPER + ", Sec. 5", f"{name} sizes: mean σ", PRINTED_MEAN[name], law.mean, 0.005,
                        note=(f"Not of unit mean, unlike the other two laws: σ = H_200 / H_200^(2) = {_ZIPF_MEAN_DIGITS} "
                              "in exact rationals (next row); the loads of Section 5 divide by σ." if name == "zipf"
                              else "")))
        if name == "zipf":
            harmonic, squares = (sum(Fraction(1, k**a) for k in range(1, 201)) for a in (1, 2))
            rows.append(Row(PAPER + ", Sec. 5", "Zipf sizes (ς = 1, K = 200, α = 2): mean of the law against "
                            "σ = Σ k^(1-α) / Σ k^(-α) = H_200 / H_200^(2) in exact rationals", float(harmonic / squares),
                            law.mean, 4e-15))
        std = math.sqrt(law.variance)
        if name == "hyperexponential":
            rows.append(Row(PAPER + ", Sec. 5", "hyperexponential sizes (σ₁ = 5, σ₂ = 1/5, p₁ = 1/6): standard deviation",
                            PRINTED_STD[name], std, 0.005, expect_agreement=False, kind="contradicted",
                            note=(f"The law as stated has E[X²] = 2(p₁σ₁² + p₂σ₂²) = 8.4 and standard deviation "
                                  f"√7.4 = {std:.4f}, not 2.05. The printed number coincides with √(p₁σ₁² + p₂σ₂²) = √4.2 "
                                  "= 2.049, which omits the factor 2 of an exponential's second moment and the squared "
                                  "mean. It is a side remark: the law is defined by σ₁, σ₂, p₁, which the package uses.")))
        else:
            rows.append(Row(PAPER + ", Sec. 5", f"{name} sizes: standard deviation", PRINTED_STD[name], std, 0.01))
    return rows


@reproduces
def _random_assignment_rows() -> list[Row]:
    servers, d, load = 6, 2, 0.8
    graph = random_assignment_graph(servers, d)
    explicit = balanced_fairness(graph, np.full(graph.n_classes, load * servers / graph.n_classes)).mean_response_time[0]
    return Row(PAPER + ", Figs. 3-4", f"random assignment S = {servers}, d = {d}, ρ = {load}: mean delay by the coverage "
               "recursion vs balanced fairness on the 15 explicit classes", explicit,
               random_assignment(servers, d, load * servers).mean_response_time, 1e-12 * explicit)


@reproduces
def _simulation_rows() -> list[Row]:
    figure, load = FIGURES[1], 0.6
    graph, rates = three_server_graph(figure.capacities), figure_rates(figure, load)
    exact = balanced_fairness(graph, rates).mean_response_time[0]
    fcfs = simulate_interruptions(graph, rates, "exponential", 0.0, 400_000, seed=2024, batches=20)
    truncated = oi_queue_law(graph, rates, 5, interruptions=5.0, size=SIZE_LAWS["hyperexponential"])
    chained = simulate_interruptions(graph, rates, SIZE_LAWS["hyperexponential"], 5.0, 400_000, seed=2024, max_jobs=5)
    return [
        Row(PAPER + ", Sec. 5", "exponential sizes, FCFS (m = 0), ρ = 0.6: simulated δ_1 (400 000 jobs) within its 99.9% "
            "interval of the balanced-fairness value", True, compare(fcfs.mean_response_time[0], exact, level=0.999).agrees),
        Row(PAPER + ", Alg. 1", "hyperexponential sizes, m = 5, queue truncated at 5 jobs: simulated E[x_1] within its 99.9% "
            "interval of the exact job-sequence CTMC", True,
            compare(chained.mean_jobs[0], float(truncated.mean_jobs[0]), level=0.999).agrees),
    ]


@reproduces
def _one_interruption_with_random_assignment() -> Row:
    figure, load, law = FIGURES[3], 0.9, "hyperexponential"
    exact = float(exact_point(figure, load)[0][0])
    sim = simulate_point(figure, load, law, 1.0, 500_000, seed=2018)
    rate = sim.mean_service_rate[0]
    gap, half = rate.value / exact - 1, rate.half_width / exact
    return Row(PAPER + ", Sec. 5 / Fig. 3", "S = 100, d = 2, ρ = 0.9, hyperexponential sizes, m = 1: mean service rate "
               "γ within 5 % of balanced fairness (\"very close ... sufficient in practice to set m = 1\")",
               exact, rate.value, 0.05 * exact, expect_agreement=False, kind="reading",
               note=(f"Algorithm 1 simulated (500 000 jobs, seed 2018): γ = {rate:.4f}, {gap:+.1%} ± {half:.1%} from "
                     f"balanced fairness ({exact:.4f}). "
                     "Reading \"very close\" as within 5 %, m = 1 does not suffice at high load; the words give no "
                     "threshold: under a loose one (within 30 %) the sentence "
                     f"{'holds' if abs(gap) + half <= 0.3 else 'fails too'} "
                     "(the whole interval counted); "
                     "notebooks/balanced_fairness.ipynb has every law and load (2e6 jobs per point). The paper's "
                     "figures are not in our text."))



# -- the appendix (Lemma 1, the two halves of Theorem 1's proof) and Section 5's two sentences on m ---------------------


def _exact_capacity(graph: CompatibilityGraph, classes: tuple[int, ...]) -> Fraction:
    """μ(A) = Σ_(s ∈ ∪_(i∈A) 𝒮_i) μ_s in exact rationals, from the server sets (not the package's cover function)."""
    return sum((Fraction(float(graph.capacities[s])) for s in set().union(*(graph.server_sets[i] for i in classes))),
               Fraction(0))


def _subsets(n: int) -> list[tuple[int, ...]]:
    """The non-empty subsets of {0, ..., n-1}."""
    return [A for k in range(1, n + 1) for A in itertools.combinations(range(n), k)]


@reproduces
def _appendix_lemma_1() -> list[Row]:
    """Lemma 1 with the proof's Ψ, the choice of η, and the bound of the necessary part (exact rationals)."""
    graph, rates, depth = CompatibilityGraph([[0, 1], [1, 2], [0, 2, 3]], [1.0, 1.0, 1.0, 0.5]), ("0.6", "0.8", "0.9"), 12
    lam = [Fraction(r) for r in rates]
    subsets = _subsets(graph.n_classes)
    mu = {A: _exact_capacity(graph, A) for A in subsets}
    eta = [lam[i] + min((mu[A] - sum(lam[j] for j in A)) / len(A) for A in subsets if i in A) / 2
           for i in range(graph.n_classes)]
    choice = all(e > v for e, v in zip(eta, lam, strict=True)) and all(sum(eta[i] for i in A) < mu[A] for A in subsets)
    phi = balance_function(graph, [float(v) for v in lam], depth)
    log_psi = -phi.states @ np.log([float(e) for e in eta])
    worst = float(np.exp(phi.log_phi() - log_psi)[1:].max())          # state 0 (Φ = Ψ = 1) left out
    # The necessary part: λ = (1.2, 2.4) on the three servers μ = (1, 2, 0.5) has μ({1, 2}) = 3.5 <= 3.6 = λ_1 + λ_2.
    three, heavy = three_server_graph((1.0, 2.0, 0.5)), np.array([1.2, 2.4])
    unstable = balance_function(three, heavy, depth)
    n = unstable.states.sum(axis=1)
    log_multinomial = np.array([math.lgamma(k + 1) - sum(math.lgamma(v + 1) for v in x) for k, x in zip(n, unstable.states,
                                                                                                     strict=True)])
    bound = float((unstable.log_phi() + n * math.log(heavy.sum()) - log_multinomial)[1:].min())   # state 0 left out
    levels = np.bincount(n, weights=np.exp(unstable.log_measure))[1:]
    return [
        Row(PAPER + ", appendix (Thm 1, sufficient part)", "3 classes on 4 servers, λ = (0.6, 0.8, 0.9): the proof's "
            "η_i = λ_i + ½ min_(A∋i) (μ(A) - Σ_A λ)/|A| has λ_i < η_i and Σ_(i∈A) η_i < μ(A) for all 7 sets A "
            "(exact rationals)", True, choice),
        Row(PAPER + ", appendix, Lemma 1", "that graph: Φ of recursion (4) against Ψ(x) = Π η_i^(-x_i), which satisfies "
            "(A.1), at the 455 states of at most 12 jobs: Φ <= Ψ everywhere", True, worst <= 1.0 + 1e-12,
            note=f"max Φ/Ψ over the states other than 0 = {worst:.6g}."),
        Row(PAPER + ", appendix (Thm 1, necessary part)", "three servers μ = (1, 2, 0.5), λ = (1.2, 2.4), so μ({1, 2}) "
            "<= λ_1 + λ_2: min over the states of at most 12 jobs of log(Φ(x) (λ_1+λ_2)^n Π x_i! / n!), >= 0 by the "
            "proof's bound", True, bound >= -1e-12,
            note=f"minimum over x != 0: {bound:.3g}; each level 1 <= n <= 12 has Σ_(|x|=n) Φ(x) λ^x >= {levels.min():.3g} "
                 "(the proof: >= 1, so the series diverges)."),
        Row(PAPER + ", appendix (Thm 1, necessary part)", "that system: every level n <= 12 has Σ_(|x|=n) Φ(x) λ^x >= 1",
            True, bool(levels.min() >= 1 - 1e-12)),
    ]


#: Section 5's sentences on m are checked at ρ = 0.2 with the hyperexponential law, the one of the three whose
#: job-sequence chain is small (2 phases: 5 461 sequences of at most 6 jobs; the bimodal law has 26 phases, the
#: Zipf law 200). At ρ = 0.2 the truncation matters little: at 7 jobs the delays move by at most 2.3 % (FCFS, class 2 of
#: Figure 2), the reductions and gaps below by under 1 point, and the verdicts not at all.
_EXACT_LOAD, _EXACT_DEPTH = 0.2, 6


def _exact_delays(figure: Figure, interruptions: float, law: str) -> tuple[np.ndarray, float]:
    """Mean delays and blocking of the exact job-sequence chain of Algorithm 1, truncated at ``_EXACT_DEPTH`` jobs."""
    graph, rates = three_server_graph(figure.capacities), figure_rates(figure, _EXACT_LOAD, SIZE_LAWS[law].mean)
    law_ = oi_queue_law(graph, rates, _EXACT_DEPTH, interruptions=interruptions, size=SIZE_LAWS[law], method="iterative")
    return law_.mean_response_time, law_.blocking


@reproduces
def _one_interruption_against_fcfs() -> list[Row]:
    """Section 5: "only m = 1 ... brings a significant improvement compared to FCFS policy" (Figures 1-2)."""
    rows = []
    for number in (1, 2):
        fcfs, fcfs_blocking = _exact_delays(FIGURES[number], 0.0, "hyperexponential")
        once, _ = _exact_delays(FIGURES[number], 1.0, "hyperexponential")
        fair = exact_point(FIGURES[number], _EXACT_LOAD)[1]
        reduction = 1 - once / fcfs
        rows.append(Row(
            PAPER + f", Sec. 5 (Fig. {number})", f"three servers, μ = {FIGURES[number].capacities}, ρ = 0.2, "
            "hyperexponential sizes, exact job-sequence chain truncated at 6 jobs: m = 1 cuts every class's mean delay "
            "by more than 10 % from FCFS ('significant' read as > 10 %)", True, bool(reduction.min() > 0.10),
            kind="reading",
            note=(f"Mean delays δ_i: FCFS {', '.join(f'{v:.4f}' for v in fcfs)}, m = 1 {', '.join(f'{v:.4f}' for v in once)} "
                  f"(reductions {', '.join(f'{v:.1%}' for v in reduction)}), balanced fairness "
                  f"{', '.join(f'{v:.4f}' for v in fair)}; FCFS loses {fcfs_blocking:.2%} of arrivals to the truncation. "
                  "The Zipf and bimodal laws (200 and 26 phases) are beyond the exact chain: the notebook simulates them.")))
    return rows


@reproduces
def _five_interruptions_insensitive() -> list[Row]:
    """Section 5: "For m = 5, performance is ... approximately insensitive (i.e., very close to that obtained for an
    exponential job size distribution)" (Figures 1-2), at one low load where the exact chain is cheap."""
    rows = []
    for number in (1, 2):
        five, _ = _exact_delays(FIGURES[number], 5.0, "hyperexponential")
        exponential_, _ = _exact_delays(FIGURES[number], 5.0, "exponential")
        fair = exact_point(FIGURES[number], _EXACT_LOAD)[1]
        gap = float(np.abs(five / exponential_ - 1).max())
        rows.append(Row(
            PAPER + f", Sec. 5 (Fig. {number})", f"three servers, μ = {FIGURES[number].capacities}, ρ = 0.2, m = 5, exact "
            "job-sequence chain truncated at 6 jobs: largest relative gap of δ_i between hyperexponential and "
            "exponential sizes ('very close' read as within 5 %)", 0.0, gap, 0.05, kind="reading",
            note=(f"δ_i hyperexponential {', '.join(f'{v:.4f}' for v in five)}, exponential "
                  f"{', '.join(f'{v:.4f}' for v in exponential_)} (the same truncation), balanced fairness "
                  f"{', '.join(f'{v:.4f}' for v in fair)}. Only this low load is within the exact chain's reach; the "
                  "notebook's simulations put m = 5 8-14 % below balanced fairness at ρ = 0.9, and the Zipf law of the "
                  "sentence ('even for ... a Zipf number of exponential phases', 200 phases) is beyond the exact chain.")))
    return rows
