"""Moldable jobs with concave speed-up (Ghanbarian, Mukhopadhyay, Mazumdar & Guillemin).

*On Optimal Server Allocation for Moldable Jobs with Concave Speed-Up*: ``n`` servers, Poisson
arrivals at rate ``n λ``, a job on ``i`` servers runs ``s_i`` times faster, and a job finding no
idle server is lost. The package computes

* the optimum of the occupancy LP (P) in closed form (Theorem 1, :func:`optimal_occupancy`), the
  LP solved numerically with its KKT multipliers (:func:`occupancy_lp`, :func:`kkt_residual`) and a
  symbolic check of the KKT system (:func:`symbolic_kkt_residuals`) — :mod:`.occupancy`;
* the greedy(p) scheme (eq. 10, :func:`allocation_probabilities`) and its finite-n loss chain
  (:func:`greedy_chain`) — :mod:`.greedy`; its exact metrics (:func:`greedy_metrics`) —
  :mod:`.metrics`; intervals that provably contain its blocking and mean response time where the
  chain is too large to build
  (:func:`greedy_bounds`) — :mod:`.certified`;
* the traffic regimes and the Stein bounds of Section 5 (:func:`traffic`, :func:`stein_bounds`)
  — :mod:`.bounds`;
* the loss system simulated for any job-size law, with confidence intervals
  (:func:`simulate_moldable`) — :mod:`.simulation`;
* heterogeneous classes (Section 6, :func:`heterogeneous_optimum`, :func:`heterogeneous_lp`) —
  :mod:`.heterogeneous`;
* the rows of ``analytic reproduce`` for Section 7 and Table 1 — :mod:`.paper`; for the numbered
  lemmas, propositions and theorems — :mod:`.claims`.

Examples
--------
>>> from analytic.speedup import SpeedupTable
>>> from analytic.moldable import optimal_occupancy
>>> round(optimal_occupancy(SpeedupTable([1, 1.8, 2.5, 3, 3.4]), 0.8).mean_response_time, 12)
0.375
"""

from analytic import _deprecation
from analytic.moldable.bounds import SteinBounds, stein_bounds, traffic, traffic_regime
from analytic.moldable.certified import GreedyBounds, greedy_bounds
from analytic.moldable.greedy import LossChain, allocation_probabilities, greedy_chain
from analytic.moldable.heterogeneous import HeterogeneousOptimum, MoldableClass, heterogeneous_lp, heterogeneous_optimum
from analytic.moldable.metrics import GreedyMetrics, greedy_metrics
from analytic.moldable.occupancy import (
    LPOptimum,
    Occupancy,
    kkt_residual,
    occupancy_lp,
    optimal_occupancy,
    symbolic_kkt_residuals,
)
from analytic.moldable.simulation import MoldableSimulation, simulate_moldable

__all__ = [
    "GreedyBounds",
    "GreedyMetrics",
    "HeterogeneousOptimum",
    "LPOptimum",
    "LossChain",
    "MoldableClass",
    "MoldableSimulation",
    "Occupancy",
    "SteinBounds",
    "allocation_probabilities",
    "greedy_bounds",
    "greedy_chain",
    "greedy_metrics",
    "heterogeneous_lp",
    "heterogeneous_optimum",
    "kkt_residual",
    "occupancy_lp",
    "optimal_occupancy",
    "simulate_moldable",
    "stein_bounds",
    "symbolic_kkt_residuals",
    "traffic",
    "traffic_regime",
]

# Names before issue 32's vocabulary: they warn, and go in version 0.3.
__getattr__ = _deprecation.old_names(globals(), {"JobClass": "MoldableClass"})
