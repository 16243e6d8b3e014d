"""Balanced fairness, order-independent queues and Whittle networks (Bonald & Comte, paper 003).

*Balanced Fair Resource Sharing in Computer Clusters* (Performance Evaluation, 2017): N job
classes, S servers of capacities μ_s, a bipartite compatibility graph; each job is served in
parallel by all its compatible servers not taken by earlier jobs (FCFS order). The package
computes

* the graph and its service-rate function μ(A) — :mod:`.graph`;
* stability (Theorem 1) by one LP and a minimum cut, with a violating set — :mod:`.stability`;
* the order-independent queue in detail: the measure (1) of a job sequence, the aggregate measure
  (2) and Theorem 2's eq. (8) by enumeration — :mod:`.oi_queue`;
* the balance function Φ of recursion (4) on a truncated lattice and the Whittle rates (7) —
  :mod:`.balance` (on the lattice of :mod:`.lattice`);
* exact means under balanced fairness without truncation, by a recursion over subsets —
  :mod:`.subsets` (:func:`balanced_fairness`), and for random assignment of d servers out of S
  without the C(S, d) classes — :mod:`.random_assignment`;
* Whittle networks for any balance function — :mod:`.whittle`;
* the exact detailed CTMC of Algorithm 1 (job sequences, interruptions, phase-type sizes) —
  :mod:`.chain`;
* the closed forms (10)–(11) and their sympy derivation — :mod:`.three_servers`;
* Algorithm 1 simulated on the simulation core, on any graph or with d random servers per job —
  :mod:`.simulation`;
* Section 5's settings (Figures 1–4, the three size laws) and the rows of ``analytic reproduce``
  — :mod:`.paper`.

Classes and servers are numbered from 0 (the paper numbers them from 1).

Examples
--------
>>> from analytic.fairness import CompatibilityGraph, balanced_fairness, is_stable
>>> graph = CompatibilityGraph([[0, 2], [1, 2]], [1.0, 1.0, 1.0])
>>> is_stable(graph, [1.0, 1.0])
True
>>> balanced_fairness(graph, [1.0, 1.0]).mean_response_time.round(10).tolist()
[1.4, 1.4]
"""

from analytic.fairness.balance import BalanceFunction, balance_function
from analytic.fairness.chain import OIQueueLaw, oi_queue_chain, oi_queue_law
from analytic.fairness.graph import CompatibilityGraph, service_rate, subset_service_rates
from analytic.fairness.lattice import SimplexLattice, simplex_lattice
from analytic.fairness.oi_queue import aggregate_measure, job_service_rates, orderings, permutation_rates, sequence_measure
from analytic.fairness.random_assignment import RandomAssignment, random_assignment, random_assignment_graph
from analytic.fairness.simulation import InterruptionSimulation, simulate_interruptions, simulate_random_assignment
from analytic.fairness.stability import Stability, is_stable, require_stable, stability, stability_violation
from analytic.fairness.subsets import BalancedFairness, balanced_fairness
from analytic.fairness.three_servers import symbolic_check, three_server_graph, three_server_rates
from analytic.fairness.whittle import WhittleNetwork, processor_sharing, whittle_network

__all__ = [
    "BalanceFunction",
    "BalancedFairness",
    "CompatibilityGraph",
    "InterruptionSimulation",
    "OIQueueLaw",
    "RandomAssignment",
    "SimplexLattice",
    "Stability",
    "WhittleNetwork",
    "aggregate_measure",
    "balance_function",
    "balanced_fairness",
    "is_stable",
    "job_service_rates",
    "oi_queue_chain",
    "oi_queue_law",
    "orderings",
    "permutation_rates",
    "processor_sharing",
    "random_assignment",
    "random_assignment_graph",
    "require_stable",
    "sequence_measure",
    "service_rate",
    "simplex_lattice",
    "simulate_interruptions",
    "simulate_random_assignment",
    "stability",
    "stability_violation",
    "subset_service_rates",
    "symbolic_check",
    "three_server_graph",
    "three_server_rates",
    "whittle_network",
]
