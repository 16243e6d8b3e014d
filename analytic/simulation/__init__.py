"""The simulation core: size laws, estimates with intervals, comparison with exact values, replications.

Every simulator of the package (and a user's own) is checked the same way: its estimates carry a
confidence interval, and :func:`compare` sets them beside an exact value with a z-score and a
verdict. The pieces, one module each:

* :mod:`.laws` — job-size laws with exact moments, CDFs and samplers (and their stationary-excess
  laws, to start a run near steady state): exponential, Erlang, hyperexponential, the mixed Erlang
  and Pareto laws of Ghanbarian et al. (Section 7), deterministic, bimodal, and a two-moment fit;
  phase-type laws (:class:`PhaseType`, with density and two- or three-moment fits by
  :func:`fit_phase_type`); :func:`draw` samples one size inside a numba loop;
* :mod:`.estimates` — :class:`Estimate` (value, half-width, level, method), by independent
  replications or batch means, for means and ratios, and the :func:`difference` of two;
* :mod:`.comparison` — :func:`compare` (an estimate, or the raw observations of any simulator,
  against an exact value) and :func:`coverage_band` (how many of many seeded intervals must hold it);
* :mod:`.replications` — :func:`replicate` over ``SeedSequence.spawn`` streams through any
  :class:`concurrent.futures.Executor` (a process pool by default, Dask's ``client.get_executor()``
  on a cluster), with a progress bar when interactive;
* :mod:`.stationarity` — :func:`growth_rate`, which flags a run whose queue keeps growing;
* :mod:`.events` — an array binary heap for compiled event loops and chunked bulk drawing;
* :mod:`.runs` — :class:`SimulationRun` and :class:`ArrivalRun`, the description of a run every
  simulated result shares (level, method, samples, replications, warmup, seed; arrivals);
* :mod:`.clock` — the horizon beyond which a simulation clock (a double) no longer resolves a job size;
* ``analytic.simulation._runs`` — internal: the scaffold every simulator of the package runs (replications or batch
  means, then the estimates) and the one description of their run-control parameters.

Examples
--------
>>> import numpy as np
>>> from analytic.simulation import compare, exponential
>>> law = exponential()
>>> sizes = law.sample(np.random.default_rng(3), 200_000)
>>> compare(sizes, law.mean, batches=20).verdict
'agrees'
"""

from analytic.simulation.comparison import Comparison, compare, coverage_band
from analytic.simulation.estimates import (
    METHODS,
    Estimate,
    Estimates,
    batch_means,
    difference,
    mean_estimate,
    ratio_estimate,
    t_quantile,
)
from analytic.simulation.events import CHUNK, chunks, heap_pop, heap_push
from analytic.simulation.laws import (
    LAW_NAMES,
    Discrete,
    ErlangMixture,
    Pareto,
    PhaseType,
    SizeLaw,
    bimodal,
    deterministic,
    draw,
    erlang,
    exponential,
    fit_phase_type,
    fitted,
    hyperexponential,
    mixed_erlang,
    pareto,
    size_law,
)
from analytic.simulation.replications import SerialExecutor, check_executor, replicate, root_seed, streams
from analytic.simulation.runs import ArrivalRun, SimulationRun
from analytic.simulation.stationarity import Growth, growth_rate

__all__ = [
    "CHUNK",
    "LAW_NAMES",
    "METHODS",
    "ArrivalRun",
    "Comparison",
    "Discrete",
    "ErlangMixture",
    "Estimate",
    "Estimates",
    "Growth",
    "Pareto",
    "PhaseType",
    "SerialExecutor",
    "SimulationRun",
    "SizeLaw",
    "batch_means",
    "bimodal",
    "check_executor",
    "chunks",
    "compare",
    "coverage_band",
    "deterministic",
    "difference",
    "draw",
    "erlang",
    "exponential",
    "fit_phase_type",
    "fitted",
    "growth_rate",
    "heap_pop",
    "heap_push",
    "hyperexponential",
    "mean_estimate",
    "mixed_erlang",
    "pareto",
    "ratio_estimate",
    "replicate",
    "root_seed",
    "size_law",
    "streams",
    "t_quantile",
]
