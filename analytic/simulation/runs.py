"""What the package's simulation results share: the description of the run behind their estimates.

Each simulator's result (:class:`~analytic.moldable.MoldableSimulation`,
:class:`~analytic.splitting.MultiserverSimulation`, :class:`~analytic.fairness.InterruptionSimulation`,
:class:`~analytic.partitioning.PartitioningSimulation`) extends :class:`SimulationRun`, or
:class:`ArrivalRun` for the simulators that count arrivals, with its own estimates; these fields
are passed by keyword.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ArrivalRun", "SimulationRun"]


@dataclass(frozen=True, repr=False, kw_only=True)
class SimulationRun:
    """The run behind a simulation result's estimates: how its intervals were formed and how to repeat it.

    Attributes
    ----------
    level : float
        Confidence level of the half-widths.
    method : str
        ``"independent replications"`` (one sample per replication) or ``"batch means"`` (the
        batches of a single replication).
    samples : int
        Number of replications or batches behind the intervals.
    replications : int
        Independent replications run.
    warmup : int or float
        What each replication discards at its start: arrivals (:class:`ArrivalRun`), or simulated
        time for the simulators that count time.
    seed : int or tuple of int
        Entropy of the root ``SeedSequence``: pass it as ``seed`` to repeat the run.

    Examples
    --------
    >>> run = SimulationRun(level=0.95, method="batch means", samples=20, replications=1, warmup=100.0, seed=1)
    >>> run.method, run.samples
    ('batch means', 20)
    """

    level: float
    method: str
    samples: int
    replications: int
    warmup: int | float
    seed: int | tuple[int, ...]


@dataclass(frozen=True, repr=False, kw_only=True)
class ArrivalRun(SimulationRun):
    """A :class:`SimulationRun` counted in arrivals.

    Attributes
    ----------
    arrivals : int
        Arrivals simulated, all replications and warm-ups included (not the uncounted ones a
        simulator may draw after the last counted arrival, to let the counted jobs leave).
    measured : int
        Arrivals counted in the estimates (after the warm-ups).

    Examples
    --------
    >>> run = ArrivalRun(level=0.95, method="batch means", samples=20, replications=1, warmup=100, seed=1,
    ...                  arrivals=1_000, measured=900)
    >>> run.arrivals - run.measured == run.replications * run.warmup
    True
    """

    arrivals: int
    measured: int
