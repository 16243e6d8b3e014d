"""heSRPT, heLRPT and exact evaluation of parallel allocation policies (paper 002).

Berg, Vesilo & Harchol-Balter, *heSRPT: Optimal Parallel Scheduling of Jobs With Known Sizes*:
M jobs of known sizes present at time 0, N servers as one divisible resource, a job on k servers
served at rate s(k) = k^p (0 < p < 1).

- :mod:`~analytic.hesrpt.closed_form`: heSRPT's allocation (Theorem 7), the scale-free constants,
  the optimal total flow time (Theorem 8) with every completion time, heLRPT and the optimal
  makespan with N servers (Theorem 2), and a sympy verification.
- :mod:`~analytic.hesrpt.policies`: :func:`flow_time`, exact departure-by-departure evaluation of
  heSRPT, heLRPT, SRPT, EQUI, HELL, KNEE (with the best-α search of Section 4.2) or any callable.
- :mod:`~analytic.hesrpt.optimal`: :func:`optimal_allocation`, the optimal policy for any concave
  speed-up (Amdahl's law, ...), beyond the paper.
- :mod:`~analytic.hesrpt.comparison`: the evaluation of Figure 4.
- speed-ups: :class:`~analytic.speedup.SpeedupCurve` (k^p, Amdahl's law, any callable, the
  interpolation of a table :class:`~analytic.speedup.SpeedupTable`), from :mod:`analytic.speedup`;
  every function here also takes a ``SpeedupTable`` or an exponent p.

**Equal sizes (one tie rule).** The paper numbers the jobs ``x_1 >= x_2 >= ... >= x_M``; among equal
sizes the package keeps the order in which they are listed, so the job listed first ranks as the
larger and finishes later. :func:`hesrpt_flow_time`, :func:`optimal_allocation` and
:func:`flow_time` (every policy) follow it; the total flow time does not depend on it.

Examples
--------
>>> from analytic.hesrpt import hesrpt_allocation, hesrpt_flow_time, optimal_allocation
>>> hesrpt_allocation(2, exponent=0.5)
array([0.25, 0.75])
>>> round(hesrpt_flow_time([1.0, 1.0], exponent=0.5, servers=10).total, 10)
0.8639503235
"""

from analytic import _deprecation
from analytic.hesrpt.closed_form import (
    ClosedFormCheck,
    HesrptFlowTime,
    helrpt_allocation,
    hesrpt_allocation,
    hesrpt_flow_time,
    optimal_makespan,
    scale_free_constants,
    symbolic_check,
)
from analytic.hesrpt.comparison import FIGURE4_EXPONENTS, FIGURE4_POLICIES, PolicyComparison, compare_policies, pareto_sizes
from analytic.hesrpt.optimal import OptimalAllocation, optimal_allocation
from analytic.hesrpt.policies import POLICIES, FlowTime, KneeSearch, Trajectory, flow_time, knee_search

__all__ = [
    "FIGURE4_EXPONENTS",
    "FIGURE4_POLICIES",
    "POLICIES",
    "ClosedFormCheck",
    "FlowTime",
    "HesrptFlowTime",
    "KneeSearch",
    "OptimalAllocation",
    "PolicyComparison",
    "Trajectory",
    "compare_policies",
    "flow_time",
    "helrpt_allocation",
    "hesrpt_allocation",
    "hesrpt_flow_time",
    "knee_search",
    "optimal_allocation",
    "optimal_makespan",
    "pareto_sizes",
    "scale_free_constants",
    "symbolic_check",
]

# Names before issue 32's vocabulary: they warn, and go in version 0.3.
__getattr__ = _deprecation.old_names(globals(), {"SymbolicCheck": "ClosedFormCheck", "FIGURE4_P": "FIGURE4_EXPONENTS",
                                                 "as_speedup": "analytic.speedup.as_curve",
                                                 "ConcaveSpeedup": "analytic.speedup.SpeedupCurve"})
