"""heSRPT against the policies of the literature: the evaluation of Figure 4.

Berg, Vesilo & Harchol-Balter, *heSRPT*, Section 4.2: N = 10^6 servers, M = 500 jobs with
Pareto(1.5) sizes, s(k) = k^p for p in {0.05, 0.3, 0.5, 0.9, 0.99}, 10 sets of sizes; each policy's
mean flow time, median over the sets. heSRPT is evaluated by Theorem 8, the others exactly, departure
by departure (:mod:`analytic.hesrpt.policies`), all sets of one p at once; KNEE gets its best
threshold per set of sizes (:func:`analytic.hesrpt.policies.knee_search`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from analytic._deprecation import old_names, renamed_arguments, renamed_attribute
from analytic.errors import InvalidParameterError
from analytic.hesrpt.closed_form import hesrpt_flow_time
from analytic.hesrpt.policies import (
    KNEE_COARSE,
    allocator,
    knee_search_batch,
    require_runs,
    simulate_runs,
    whole_servers,
)
from analytic.memory import require
from analytic.simulation import root_seed
from analytic.speedup import SpeedupCurve
from analytic.validation import instances, integer, positive, real_array

__all__ = ["FIGURE4_EXPONENTS", "FIGURE4_POLICIES", "PolicyComparison", "compare_policies", "pareto_sizes"]

#: The speed-up exponents of Figure 4.
FIGURE4_EXPONENTS = (0.05, 0.3, 0.5, 0.9, 0.99)

#: Policies of Figure 4, heSRPT first.
FIGURE4_POLICIES = ("hesrpt", "srpt", "equi", "hell", "knee")

#: Bytes per size drawn by :func:`pareto_sizes` (the draws, their sum with 1, the finiteness check).
_DRAW_BYTES = 17


def pareto_sizes(jobs: int, shape: float, seed: int | np.random.Generator | None) -> np.ndarray:
    """``jobs`` Pareto sizes with minimum 1 and tail P(X > x) = x^-shape (classical Pareto type I).

    Figure 4 draws M = 500 sizes with shape 1.5; the paper does not give the scale, which cancels
    in every comparison (all policies' flow times are proportional to the sizes; KNEE's threshold
    scales with them).

    Parameters
    ----------
    jobs : int
        Number of sizes, >= 1.
    shape : float
        Tail index, > 0.
    seed : int, numpy.random.Generator or None
        Seed (an integer >= 0) of :func:`numpy.random.default_rng`, a generator used as is, or
        ``None`` for fresh entropy.

    Returns
    -------
    numpy.ndarray
        The sizes, each >= 1.

    Raises
    ------
    InvalidParameterError
        If ``jobs`` < 1, ``shape`` <= 0 or so small that sizes overflow, or a bad seed.
    StateSpaceTooLargeError
        If the sizes would not fit in memory (17 bytes a job).

    Examples
    --------
    >>> pareto_sizes(3, 1.5, seed=0).round(4)
    array([1.5735, 1.9733, 1.0133])
    """
    jobs, shape = integer("jobs", jobs), positive("shape", shape, meaning=" (the tail index)")
    # before numpy allocates (or meets its own bound, 2**63 - 1 draws, which no memory reaches)
    require(_DRAW_BYTES * jobs, "drawing `jobs` Pareto sizes", jobs)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(root_seed(seed))
    with np.errstate(over="ignore"):
        sizes = 1.0 + rng.pareto(shape, jobs)
    if not np.all(np.isfinite(sizes)):
        raise InvalidParameterError("shape", shape, "is so small that Pareto sizes overflow double precision "
                                                    f"(found {sizes.max():g})")
    return sizes


@dataclass(frozen=True, repr=False)
class PolicyComparison:
    """Mean flow times of heSRPT and its competitors (Figure 4).

    Attributes
    ----------
    exponents : tuple of float
        Speed-up exponents p, one per row.
    policies : tuple of str
        Policy names, one per column (heSRPT first).
    per_set : numpy.ndarray, shape (len(exponents), len(policies), sets)
        Mean flow time of each policy on each set of sizes.
    median : numpy.ndarray, shape (len(exponents), len(policies))
        Median over the sets (what Figure 4 plots).
    knee_alpha : numpy.ndarray, shape (len(exponents), sets)
        KNEE's best threshold on each set (NaN when KNEE is not compared).

    Examples
    --------
    >>> from analytic.hesrpt import compare_policies
    >>> small = compare_policies(exponents=(0.5,), servers=100, jobs=5, seeds=(0, 1))
    >>> small.policies
    ('hesrpt', 'srpt', 'equi', 'hell', 'knee')
    """

    exponents: tuple
    policies: tuple
    per_set: np.ndarray
    median: np.ndarray
    knee_alpha: np.ndarray
    p = renamed_attribute("exponents")

    def __repr__(self) -> str:
        return f"PolicyComparison(exponents={self.exponents}, policies={self.policies}, sets={self.per_set.shape[2]})"

    def ratio(self) -> np.ndarray:
        """Each policy's median mean flow time divided by heSRPT's, shape (len(exponents), len(policies)).

        Returns
        -------
        numpy.ndarray, shape (len(p), len(policies))
            1 in heSRPT's column.

        Examples
        --------
        >>> from analytic.hesrpt import compare_policies
        >>> compare_policies(exponents=(0.5,), servers=100, jobs=5, seeds=(0, 1)).ratio()[0].tolist()[0]
        1.0
        """
        column = self.policies.index("hesrpt")
        return self.median / self.median[:, column:column + 1]


@renamed_arguments(p="exponents")
def compare_policies(exponents: Sequence[float] = FIGURE4_EXPONENTS, servers: int = 10**6, jobs: int = 500, shape: float = 1.5,
                     seeds: Sequence[int] = tuple(range(10)),
                     policies: Sequence[str] = FIGURE4_POLICIES) -> PolicyComparison:
    """Figure 4 of Berg et al., *heSRPT*: median mean flow time of heSRPT, SRPT, EQUI, HELL and KNEE.

    For each seed, ``pareto_sizes(jobs, shape, seed)`` is one set of sizes, used for every exponent. heSRPT
    by Theorem 8; SRPT, EQUI, HELL and KNEE (best α per set, :func:`~analytic.hesrpt.knee_search`)
    exactly, departure by departure, all sets at once. The defaults are the paper's setting; they
    compute in about 25 s on this machine, KNEE's search taking nine tenths (``benchmarks/hesrpt.py``).

    Parameters
    ----------
    exponents : sequence of float
        Speed-up exponents p, each in (0, 1).
    servers : int
        N, an integer >= 1 (HELL and KNEE allocate whole servers).
    jobs : int
        M, jobs per set.
    shape : float
        Pareto tail index of the sizes.
    seeds : sequence of int
        One set of sizes per seed.
    policies : sequence of str
        Which of ``FIGURE4_POLICIES`` to compare; must include ``"hesrpt"``.

    Returns
    -------
    PolicyComparison
        Per-set means, medians and KNEE's thresholds.

    Raises
    ------
    InvalidParameterError
        For invalid exponents, servers, jobs, shape or policies, or an empty list of seeds.
    StateSpaceTooLargeError
        If the evaluations of one p at once would not fit in memory (about 128 bytes per set and job,
        17 times that with KNEE), checked before any size is drawn.

    Examples
    --------
    >>> small = compare_policies(exponents=(0.5,), servers=1000, jobs=20, seeds=(0, 1, 2))
    >>> bool(small.ratio().min(axis=1)[0] >= 1.0)
    True
    """
    n = whole_servers(positive("servers", servers), "hell")
    p = real_array("exponents", exponents, " (speed-up exponents)", ndim=1, allow_empty=False)
    if not np.all((p > 0) & (p < 1)):
        raise InvalidParameterError("exponents", exponents, "must each lie in the open interval (0, 1)")
    seeds = instances("seeds", seeds, (int, np.integer, np.random.SeedSequence, np.random.Generator))
    if any(isinstance(seed, bool) or (isinstance(seed, int | np.integer) and seed < 0) for seed in seeds):
        raise InvalidParameterError("seeds", seeds, "must be integers >= 0, SeedSequences or Generators")
    policies = instances("policies", policies, str)
    unknown = [name for name in policies if name not in FIGURE4_POLICIES]
    if unknown or "hesrpt" not in policies:
        raise InvalidParameterError("policies", policies, f"must be among {FIGURE4_POLICIES} and include 'hesrpt'")
    jobs = integer("jobs", jobs)
    require_runs(len(seeds) * (KNEE_COARSE if "knee" in policies else 1), jobs)  # KNEE's search: 17 runs a set
    sizes = np.stack([pareto_sizes(jobs, shape, seed) for seed in seeds])
    curves = [SpeedupCurve.power(value) for value in p]
    per_set = np.empty((len(curves), len(policies), len(seeds)))
    alphas = np.full((len(curves), len(seeds)), np.nan)
    sets = np.arange(len(seeds))
    for row, curve in enumerate(curves):
        for column, policy in enumerate(policies):
            if policy == "hesrpt":
                per_set[row, column] = [hesrpt_flow_time(x, curve.exponent, n).mean for x in sizes]
            elif policy == "knee":
                tried, means = knee_search_batch(sizes, curve, n)
                best = np.argmin(means, axis=1)
                per_set[row, column], alphas[row] = means[sets, best], tried[sets, best]
            else:
                completion, _ = simulate_runs(sizes, allocator(policy, curve, n, jobs, None), n)
                per_set[row, column] = completion.mean(axis=1)
    return PolicyComparison(exponents=tuple(float(v) for v in p), policies=tuple(policies), per_set=per_set,
                            median=np.median(per_set, axis=2), knee_alpha=alphas)


# Names before issue 32's vocabulary: they warn, and go in version 0.3.
__getattr__ = old_names(globals(), {"FIGURE4_P": "FIGURE4_EXPONENTS"})
