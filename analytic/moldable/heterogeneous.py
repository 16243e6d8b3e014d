"""Heterogeneous job classes: the problem (Q) solved through (Q1) and (Q2).

Ghanbarian, Mukhopadhyay, Mazumdar & Guillemin, *On Optimal Server Allocation for Moldable Jobs
with Concave Speed-Up*, Section 6. Class ``j`` has its own concave speed-up ``s_{.,j}``, arrival
rate ``λ_j`` (per server) and mean inherent size ``m_j``, so its load is ``ρ_j = λ_j m_j`` (the
paper writes ``ρ_j = λ_j/μ_j`` with ``μ_j`` a service *rate*, although its text calls ``μ_j`` the
mean size; the rate constraint of (Q) is the one for rates). The problem is

    (Q)  minimize (1/λ) Σ_{i,j} y_ij  s.t.  Σ_i s_ij y_ij = ρ_j (each j),  Σ_{i,j} i y_ij <= 1,  y >= 0,

with ``λ = Σ_j λ_j``. Reserving a fraction ``b_j`` of the servers for class j splits it into (Q2),
whose value ``f_j(b)`` is Theorem 1 rescaled (``y = b z`` with ``z`` optimal for (P) at load
``ρ_j/b``), and the allocation problem (Q1) ``min Σ_j f_j(b_j)`` s.t. ``Σ_j b_j <= 1``,
``b_j >= ρ_j``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from analytic._deprecation import old_names, renamed_arguments, renamed_attribute
from analytic.errors import InvalidParameterError
from analytic.moldable.occupancy import optimal_occupancy, solve_occupancy_lp
from analytic.speedup import SpeedupCurve, SpeedupTable, as_discrete
from analytic.validation import instances, positive

__all__ = ["HeterogeneousOptimum", "MoldableClass", "heterogeneous_lp", "heterogeneous_optimum"]


@dataclass(frozen=True)
class MoldableClass:
    """One class of moldable jobs (Ghanbarian et al., Section 6).

    Parameters
    ----------
    speedup : SpeedupTable, sequence of float or SpeedupCurve
        The class's speed-up ``s_{.,j}`` (P1 and concavity); stored as a SpeedupTable
        (:func:`analytic.speedup.as_discrete`).
    rate_per_server : float
        ``λ_j > 0``, arrivals per server per unit time.
    mean_size : float
        Mean inherent (single-server) execution time ``m_j > 0``; default 1.

    Examples
    --------
    >>> MoldableClass(SpeedupTable.linear(2), 0.3, 2.0).load
    0.6
    """

    speedup: SpeedupTable | SpeedupCurve | object
    rate_per_server: float
    arrival_rate = renamed_attribute("rate_per_server")
    mean_size: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "speedup", as_discrete(self.speedup))
        for name in ("rate_per_server", "mean_size"):
            object.__setattr__(self, name, positive(name, getattr(self, name)))

    @property
    def load(self) -> float:
        """``ρ_j = λ_j m_j``, the fraction of the servers' capacity the class needs at speed-up 1."""
        return float(self.rate_per_server * self.mean_size)


MoldableClass.__init__ = renamed_arguments(arrival_rate="rate_per_server")(MoldableClass.__init__)


@dataclass(frozen=True, repr=False)
class HeterogeneousOptimum:
    """An optimum of (Q).

    Attributes
    ----------
    reserved : numpy.ndarray
        ``b_j = Σ_i i y_ij``, the fraction of servers class j occupies (the ``b*_j`` of (Q1) for
        the closed form).
    y : tuple of numpy.ndarray
        ``y[j][i - 1] = y_ij``, indexed like class j's speed-up values.
    p : tuple of numpy.ndarray
        ``p*_ij = s_ij y_ij / ρ_j``, the greedy(p*_j) probabilities of each class.
    mean_response_time : float
        ``(1/λ) Σ y_ij``, the optimal mean execution time over all jobs.
    method : str
        ``"Q1/Q2"`` (closed form), ``"highs"`` or ``"cvxpy (Clarabel)"``.

    Examples
    --------
    >>> from analytic.moldable import MoldableClass, heterogeneous_optimum
    >>> from analytic.speedup import SpeedupTable
    >>> classes = [MoldableClass(SpeedupTable.linear(5), 0.3), MoldableClass(SpeedupTable([1, 1.8, 2.5, 3, 3.4]), 0.5)]
    >>> optimum = heterogeneous_optimum(classes)
    >>> round(optimum.mean_response_time, 12), optimum.method
    (0.271428571429, 'Q1/Q2')
    """

    reserved: np.ndarray
    y: tuple[np.ndarray, ...]
    p: tuple[np.ndarray, ...]
    mean_response_time: float
    mean_time = renamed_attribute("mean_response_time")
    method: str

    def __repr__(self) -> str:
        return (f"HeterogeneousOptimum(reserved={np.round(self.reserved, 10).tolist()}, "
                f"y={[np.round(v, 10).tolist() for v in self.y]}, mean_response_time={self.mean_response_time:.12g}, "
                f"method={self.method!r})")


def _check_classes(classes: Sequence[MoldableClass]) -> tuple[MoldableClass, ...]:
    """The classes, refused unless their total load ``Σ_j ρ_j <= 1``, summed exactly (in floats
    0.4 + 0.6000000000000001 rounds to 1 although it exceeds it)."""
    checked = instances("classes", classes, MoldableClass)
    total = sum(Fraction(c.load) for c in checked)
    if total > 1:
        raise InvalidParameterError("classes", [c.load for c in checked],
                                    f"total load Σ ρ_j = {float(total)!r} must be <= 1 (summed exactly, it exceeds 1 "
                                    f"by {float(total - 1):.3g}): (Q) has no feasible point")
    return checked


def _result(classes: tuple[MoldableClass, ...], y: list[np.ndarray], method: str) -> HeterogeneousOptimum:
    rate = sum(c.rate_per_server for c in classes)
    reserved = np.array([c.speedup.servers @ v for c, v in zip(classes, y, strict=True)])
    p = tuple(c.speedup.values * v / c.load for c, v in zip(classes, y, strict=True))
    return HeterogeneousOptimum(reserved=reserved, y=tuple(y), p=p, mean_response_time=float(sum(v.sum() for v in y) / rate),
                                method=method)


def heterogeneous_optimum(classes: Sequence[MoldableClass]) -> HeterogeneousOptimum:
    """Optimum of (Q) through (Q1) and (Q2) with Theorem 1 (Ghanbarian et al., Section 6).

    ``f_j(b) = (b/λ) Σ_i z*_i(ρ_j/b)`` is piecewise linear, convex and non-increasing in ``b``,
    with breakpoints ``ρ_j i / s_ij`` (where ``ρ_j/b`` equals an efficiency ``s_ij/i``) and value
    ``ρ_j / (λ s_ij)`` there. (Q1) is therefore solved exactly by giving the spare capacity
    ``1 - Σ ρ_j`` to the segments of steepest descent first; then ``y_{.,j} = b_j z*(ρ_j/b_j)``.

    Parameters
    ----------
    classes : sequence of MoldableClass
        With total load ``Σ_j ρ_j <= 1``.

    Returns
    -------
    HeterogeneousOptimum
        Exact to round-off (sums and ratios of the inputs). Where (Q) has several optima (ties
        between segment slopes) one of them.

    Raises
    ------
    InvalidParameterError
        No classes, or total load above 1 ((Q) infeasible).

    Examples
    --------
    A linear class and the sub-linear class of Section 7 sharing the servers:

    >>> fast = MoldableClass(SpeedupTable.linear(5), 0.3)
    >>> slow = MoldableClass(SpeedupTable([1, 1.8, 2.5, 3, 3.4]), 0.5)
    >>> heterogeneous_optimum([fast, slow])
    HeterogeneousOptimum(reserved=[0.3, 0.7], y=[[0.0, 0.0, 0.0, 0.0, 0.06], [0.0, 0.0, 0.0, 0.0857142857, 0.0714285714]],
        mean_response_time=0.271428571429, method='Q1/Q2')
    """
    checked = _check_classes(classes)
    rate = sum(c.rate_per_server for c in checked)
    reserved = np.array([c.load for c in checked])
    segments = []
    for j, c in enumerate(checked):
        breakpoints = c.load / c.speedup.efficiency                    # b where ρ_j / b = s_ij / i
        values = c.load / (rate * c.speedup.values)                    # f_j at the breakpoints
        lengths = np.diff(breakpoints)
        for k in np.flatnonzero(lengths > 0):
            segments.append((np.diff(values)[k] / lengths[k], j, lengths[k]))
    spare = 1.0 - reserved.sum()
    for _, j, length in sorted(segments):
        if spare <= 0:
            break
        reserved[j] += min(length, spare)
        spare -= length
    y = [b * optimal_occupancy(c.speedup, min(c.load / b, 1.0)).y for c, b in zip(checked, reserved, strict=True)]
    return _result(checked, y, "Q1/Q2")


def heterogeneous_lp(classes: Sequence[MoldableClass], solver: str = "highs") -> HeterogeneousOptimum:
    """Optimum of (Q) solved directly as one LP (HiGHS or cvxpy), to cross-check the closed form.

    Parameters
    ----------
    classes : sequence of MoldableClass
    solver : {"highs", "cvxpy"}

    Returns
    -------
    HeterogeneousOptimum
        HiGHS: a vertex, constraints met to 1e-10 (its feasibility tolerance); cvxpy (Clarabel, tolerances 1e-13): about 1e-10.

    Examples
    --------
    >>> classes = [MoldableClass(SpeedupTable.linear(5), 0.3), MoldableClass(SpeedupTable([1, 1.8, 2.5, 3, 3.4]), 0.5)]
    >>> round(heterogeneous_lp(classes).mean_response_time, 12)
    0.271428571429
    """
    checked = _check_classes(classes)
    speeds = [c.speedup.values for c in checked]
    rate = sum(c.rate_per_server for c in checked)
    y, _, _, _, _, label = solve_occupancy_lp(speeds, np.array([c.load for c in checked]), rate, solver)
    return _result(checked, np.split(y, np.cumsum([len(s) for s in speeds])[:-1]), label)


# Names before issue 32's vocabulary: they warn, and go in version 0.3.
__getattr__ = old_names(globals(), {"JobClass": "MoldableClass"})
