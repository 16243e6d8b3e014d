"""Balanced Splitting for multiserver jobs (paper 001): partition, stability, P_H and its limits.

Anselmi & Doncel, *Balanced Splitting: A Framework for Achieving Zero-wait in the
Multiserver-job Model* (IEEE TPDS 2024). k servers; jobs arrive as a Poisson process of rate λ
and are of class i with probability α_i; a class-i job holds n_i servers for a time of mean d_i.
The servers are split into reserved sets A_i of a_i servers (eq. 2a), each serving only class i
in FCFS order, and helpers H (eq. 2b). Under ModifiedBS the A_i behave as independent
M/GI/s_i/s_i loss systems (Property 1), which gives the stability condition (5), the probability
(16) that a job is sent to the helpers, and the many-server limits of Theorems 1 and 2.

- :mod:`~analytic.splitting.classes`: :class:`RigidClass` (n_i, α_i, d_i) and its validation;
- :mod:`~analytic.splitting.partition`: the balanced partition with exact ψ (eqs. 2a–2b);
- :mod:`~analytic.splitting.bounds`: stability (Prop. 1, eq. 5), P_H (eq. 16), response time;
- :mod:`~analytic.splitting.modified_bs`: the exact CTMC of ModifiedBS (Definition 2);
- :mod:`~analytic.splitting.limits`: the scalings (7), (8) and Theorems 1–2;
- :mod:`~analytic.splitting.paper`: Tables 2–3, Figure 1's model, the ``analytic reproduce`` rows;
- :mod:`~analytic.splitting.policies`: the policies of Section 2 (BS-FCFS, FCFS, MSF, ServerFilling,
  ...) and the Gittins rank;
- :mod:`~analytic.splitting.chains`: exact CTMCs of FCFS, BS-FCFS, ModifiedBS-FCFS and Most Servers
  First, with exponential or phase-type service times, and the stability limit of FCFS;
- :mod:`~analytic.splitting.certified`: intervals that provably contain E[R] and P(wait) of the
  untruncated FCFS queue (exponential or phase-type service times);
- :mod:`~analytic.splitting.simulation`: :func:`simulate_multiserver`, every policy, any size law
  (event loops in ``analytic.splitting._engine``);
- :mod:`~analytic.splitting.figures`: the systems of Figures 1–3 and a sweep of policies over them;
  :mod:`~analytic.splitting.figure_claims`: their ``analytic reproduce`` rows.

Examples
--------
>>> from analytic.splitting import SDSC_SP2, balanced_partition
>>> balanced_partition(1024, SDSC_SP2).helpers
69
"""

from analytic import _deprecation
from analytic.splitting.bounds import (
    ResponseTimeBound,
    StabilityMargin,
    helper_probability_bound,
    response_time_bound,
    stability_margin,
)
from analytic.splitting.certified import FCFSBounds, fcfs_bounds
from analytic.splitting.chains import (
    EXACT_POLICIES,
    ExactMetrics,
    Saturation,
    exact_multiserver,
    fcfs_saturation,
    multiserver_chain,
)
from analytic.splitting.classes import RigidClass
from analytic.splitting.figures import (
    FIGURE1_READINGS,
    FIGURE1_SERVERS,
    FIGURE_POLICIES,
    Sweep,
    System,
    figure1_load,
    figure1_systems,
    figure2_heavy_traffic,
    figure2_subcritical,
    figure3_systems,
    sweep,
)
from analytic.splitting.limits import (
    ScaledSystem,
    critical_helper_limit,
    critical_system,
    subcritical_system,
    zero_wait_response_time,
)
from analytic.splitting.modified_bs import modified_bs_chain, modified_bs_helper_probability
from analytic.splitting.paper import KIT_FH2, SDSC_SP2, figure1_classes, figure1_need_scale
from analytic.splitting.partition import Partition, balanced_partition
from analytic.splitting.policies import POLICIES, Policy, PolicyState, gittins_rank
from analytic.splitting.simulation import ClassEstimates, MultiserverSimulation, simulate_multiserver

__all__ = [
    "EXACT_POLICIES",
    "FIGURE1_READINGS",
    "FIGURE1_SERVERS",
    "FIGURE_POLICIES",
    "KIT_FH2",
    "POLICIES",
    "SDSC_SP2",
    "ClassEstimates",
    "ExactMetrics",
    "FCFSBounds",
    "MultiserverSimulation",
    "Partition",
    "Policy",
    "PolicyState",
    "ResponseTimeBound",
    "RigidClass",
    "Saturation",
    "ScaledSystem",
    "StabilityMargin",
    "Sweep",
    "System",
    "balanced_partition",
    "critical_helper_limit",
    "critical_system",
    "exact_multiserver",
    "fcfs_bounds",
    "fcfs_saturation",
    "figure1_classes",
    "figure1_load",
    "figure1_need_scale",
    "figure1_systems",
    "figure2_heavy_traffic",
    "figure2_subcritical",
    "figure3_systems",
    "gittins_rank",
    "helper_probability_bound",
    "modified_bs_chain",
    "modified_bs_helper_probability",
    "multiserver_chain",
    "response_time_bound",
    "simulate_multiserver",
    "stability_margin",
    "subcritical_system",
    "sweep",
    "zero_wait_response_time",
]


# Names before issue 32's vocabulary: they warn, and go in version 0.3.
__getattr__ = _deprecation.old_names(globals(), {
    "JobClass": "RigidClass", "Stability": "StabilityMargin", "theorem1_limit": "zero_wait_response_time",
    "theorem2_limit": "critical_helper_limit"})
