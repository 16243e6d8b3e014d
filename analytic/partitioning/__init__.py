"""Graph jobs on slotted machines (Ghaderi, Shakkottai & Srikant, *Scheduling Storms and Streams in the Cloud*).

Jobs are graphs whose nodes each need a slot on some machine; an edge between nodes on different
machines costs one unit (or a given weight and machine-pair cost). Jobs of type j arrive at rate λ_j
and stay an exponential time of mean 1/μ_j. The package computes

* the model: :class:`Cluster`, :class:`GraphJob` — :mod:`.model`;
* templates, their partition cost (eq. 2), their number ``F!/(F - |V|)!`` and their classes by
  load vector and cost — :mod:`.templates`;
* the configurations, enumerated up to identical slots and machines — :mod:`.configurations`;
  counted before enumeration — :mod:`.counting`;
* γ (14), π* (15) and γ̂ (33) in log space — :mod:`.distributions`;
* the variational form (13) in closed form and by cvxpy, Corollary 2 — :mod:`.variational`;
* the capacity region Λ (Definition 1) and the static partitioning LP (Definition 2) by HiGHS and
  cvxpy — :mod:`.static`; the Max-Weight configuration (10) — :mod:`.maxweight`;
* the weight functions (11)–(12), Theorem 2's conditions and bounds, Corollary 1's parameters —
  :mod:`.weights`;
* DGP-bar's, ADGP-bar's and the loss system's chains built from their rules, their spectral gap
  and Lemma 1's bound (21) — :mod:`.chain`;
* DGP's operating point, where DGP-bar serves exactly the load (the fixed point of Theorem 2's
  proof; its cost tends to G(x*) as β -> 0) — :mod:`.operating`;
* DGP (Algorithm 3), ADGP (Algorithm 4) and frame-based Max-Weight (Algorithm 1) simulated on
  :mod:`analytic.simulation` — :mod:`.simulation`;
* Figure 1's setting and the rows of ``analytic reproduce`` — :mod:`.paper`.

Examples
--------
>>> from analytic.partitioning import Cluster, GraphJob, dgp_distribution, static_partitioning
>>> cluster = Cluster([4, 4, 4])
>>> job = GraphJob(5, [(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)], arrival_rate=1.0, service_rate=1.0)
>>> static_partitioning(cluster, job).cost
1.0
>>> round(dgp_distribution(cluster, job, queue_weights=1.5, beta=0.1).expected_cost, 6)
1.239348
"""

from analytic import _deprecation
from analytic.partitioning.chain import (
    SpectralGap,
    adgp_chain,
    dgp_chain,
    log_mixing_constant,
    log_relaxation_bound,
    loss_chain,
    lump,
    spectral_gap,
    uniformization_rate,
)
from analytic.partitioning.configurations import Configurations, configurations, state_space
from analytic.partitioning.counting import ClassTable, ConfigurationCount, class_table, configuration_count, machine_symmetries
from analytic.partitioning.distributions import ConfigurationLaw, adgp_distribution, dgp_distribution, loss_distribution
from analytic.partitioning.maxweight import MaxWeight, max_weight, max_weight_configuration
from analytic.partitioning.model import Cluster, GraphJob
from analytic.partitioning.operating import OperatingPoint, operating_point
from analytic.partitioning.simulation import (
    ALGORITHMS,
    PartitioningSimulation,
    simulate_adgp,
    simulate_dgp,
    simulate_max_weight,
)
from analytic.partitioning.static import Packings, StaticPartition, capacity_margin, cheapest_packings, static_partitioning
from analytic.partitioning.templates import (
    TemplateClasses,
    TemplateCosts,
    cost_distribution,
    max_template_cost,
    partition_cost,
    template_classes,
    template_count,
    templates,
)
from analytic.partitioning.variational import (
    VariationalSolution,
    WeightGapBound,
    solve_variational,
    variational_objective,
    variational_optimum,
    weight_gap_bound,
)
from analytic.partitioning.weights import (
    DGPBounds,
    DGPConditions,
    DGPParameters,
    dgp_bounds,
    dgp_conditions,
    dgp_parameters,
    dgp_queue_weights,
    log_power,
)

__all__ = [
    "ALGORITHMS",
    "ClassTable",
    "Cluster",
    "ConfigurationCount",
    "ConfigurationLaw",
    "Configurations",
    "DGPBounds",
    "DGPConditions",
    "DGPParameters",
    "GraphJob",
    "MaxWeight",
    "OperatingPoint",
    "Packings",
    "PartitioningSimulation",
    "SpectralGap",
    "StaticPartition",
    "TemplateClasses",
    "TemplateCosts",
    "VariationalSolution",
    "WeightGapBound",
    "adgp_chain",
    "adgp_distribution",
    "capacity_margin",
    "cheapest_packings",
    "class_table",
    "configuration_count",
    "configurations",
    "cost_distribution",
    "dgp_bounds",
    "dgp_chain",
    "dgp_conditions",
    "dgp_distribution",
    "dgp_parameters",
    "dgp_queue_weights",
    "log_mixing_constant",
    "log_power",
    "log_relaxation_bound",
    "loss_chain",
    "loss_distribution",
    "lump",
    "machine_symmetries",
    "max_template_cost",
    "max_weight",
    "max_weight_configuration",
    "operating_point",
    "partition_cost",
    "simulate_adgp",
    "simulate_dgp",
    "simulate_max_weight",
    "solve_variational",
    "spectral_gap",
    "state_space",
    "static_partitioning",
    "template_classes",
    "template_count",
    "templates",
    "uniformization_rate",
    "variational_objective",
    "variational_optimum",
    "weight_gap_bound",
]

# Names before issue 32's vocabulary (a function is named for what it computes, not for its theorem):
# they warn, and go in version 0.3.
__getattr__ = _deprecation.old_names(globals(), {
    "theorem2_bounds": "dgp_bounds", "Theorem2Bounds": "DGPBounds",
    "theorem2_conditions": "dgp_conditions", "Theorem2Conditions": "DGPConditions",
    "corollary1_parameters": "dgp_parameters", "Corollary1Parameters": "DGPParameters",
    "corollary2": "weight_gap_bound", "Corollary2": "WeightGapBound",
    "lemma1_log_k0": "log_mixing_constant", "lemma1_log_bound": "log_relaxation_bound",
})
