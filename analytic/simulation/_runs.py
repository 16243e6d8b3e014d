"""The run control the package's simulators share: replications or batch means, then the estimates.

Every simulator (:func:`~analytic.moldable.simulate_moldable`,
:func:`~analytic.splitting.simulate_multiserver`, the partitioning simulators
:func:`~analytic.partitioning.simulate_dgp`, :func:`~analytic.partitioning.simulate_adgp` and
:func:`~analytic.partitioning.simulate_max_weight`, and the fairness simulators
:func:`~analytic.fairness.simulate_interruptions` and
:func:`~analytic.fairness.simulate_random_assignment`) runs the same scaffold around its own event
loop:

1. it checks the run-control parameters (``split_jobs`` and ``warmup_of`` for the
   simulators counted in arrivals; the partitioning ones count simulated time);
2. ``run_replications`` runs one replication per child of ``SeedSequence(seed)`` through an
   executor; each returns a dataclass of per-batch tallies (arrays whose first axis is the batch);
3. ``pooled`` turns the tallies into samples: with several replications, each replication's
   totals over its batches (``"independent replications"``); with one, its batches
   (``"batch means"``);
4. ``column_estimates`` forms the means, or the ratio estimates of two tallies (per job, per
   unit time), of every column at once.

The run-control parameters are documented once, here (``RUN_CONTROL``): a simulator's
docstring writes ``name : (run control)`` in its Parameters section, optionally followed by
indented lines that it adds to the shared description, and ``run_control`` writes the shared
text in (for numpydoc, Sphinx and ``help()`` alike).

This module is internal to the package: its names may change without notice.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import textwrap
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any, TypeVar

import numpy as np

from analytic._kernels import kernel
from analytic.errors import InvalidParameterError
from analytic.simulation.estimates import Estimate, Estimates, mean_estimate, ratio_estimate
from analytic.simulation.replications import replicate, root_seed
from analytic.validation import integer

__all__: list[str] = []

F = TypeVar("F", bound=Callable[..., Any])

#: The run-control parameters: type and shared description, by name (``warmup`` by unit).
RUN_CONTROL = {
    "jobs": ("int", "Total number of arrivals, warm-ups included: ``jobs // replications`` per replication."),
    "arrivals": ("int", "Total number of arrivals, warm-ups included: ``arrivals // replications`` per replication."),
    "time": ("float", "Simulated time per replication, warm-up included."),
    "warmup arrivals": ("int, optional", "Arrivals discarded at the start of each replication (default a tenth of them)."),
    "warmup time": ("float, optional", "Time discarded at the start of each replication (default a tenth of ``time``)."),
    "replications": ("int", "Independent replications (streams ``SeedSequence(seed).spawn(replications)``); with one, "
                            "the intervals come from the batch means of its run."),
    "seed": ("int, SeedSequence, Generator or None",
             "The same seed gives the same numbers, serially or through any executor."),
    "executor": ("concurrent.futures.Executor, optional",
                 "Where the replications run (default: a process per core for several replications, the calling "
                 "process for one; a Dask ``client.get_executor()`` runs them on a cluster)."),
    "level": ("float", "Confidence level of the half-widths (default 0.95)."),
    "batches": ("int", "Batches per replication (default 20); with one replication, the intervals come from their batch means."),
    "progress": ("bool, optional", "tqdm bar over the replications; default only when standard error is a terminal."),
}

_PLACEHOLDER = re.compile(r"^(?P<indent> *)(?P<name>\w+) : \(run control\)$", re.MULTILINE)


def run_control(unit: str) -> Callable[[F], F]:
    """A decorator writing the shared descriptions of :data:`RUN_CONTROL` into a simulator's docstring.

    Each line ``name : (run control)`` of the docstring becomes ``name : <type>`` followed by the
    shared description; indented lines after it stay, continuing the description.

    Parameters
    ----------
    unit : {"arrivals", "time"}
        What ``warmup`` counts.

    Returns
    -------
    callable
        The decorator (it returns the function itself, its docstring rewritten).

    Examples
    --------
    >>> @run_control("arrivals")
    ... def f(level=0.95):
    ...     '''A simulator.
    ...
    ...     Parameters
    ...     ----------
    ...     level : (run control)
    ...     '''
    >>> print(f.__doc__.splitlines()[4])
        level : float
    """
    if unit not in ("arrivals", "time"):
        raise InvalidParameterError("unit", unit, 'must be "arrivals" or "time"')

    def entry(match: re.Match) -> str:
        indent, name = match["indent"], match["name"]
        kind, text = RUN_CONTROL[f"warmup {unit}" if name == "warmup" else name]
        words = re.sub(r"``.*?``", lambda literal: literal[0].replace(" ", "\0"), text)   # no break in a literal
        body = textwrap.fill(words, 100, initial_indent=f"{indent}    ", subsequent_indent=f"{indent}    ",
                             break_long_words=False, break_on_hyphens=False)
        return f"{indent}{name} : {kind}\n{body.replace(chr(0), ' ')}"

    def decorate(function: F) -> F:
        if function.__doc__:                         # None under python -OO
            function.__doc__ = _PLACEHOLDER.sub(entry, function.__doc__)
        return function

    return decorate


def split_jobs(jobs: object, replications: object, batches: object, minimum: int = 2,
               meaning: str = "", name: str = "jobs") -> tuple[int, int, int, int]:
    """The checked ``jobs``, ``replications`` and ``batches``, and the arrivals of each replication,
    refused up front where the batch boundaries (:func:`batch_boundaries`) would leave the 64-bit
    integers the event loops count them in.

    Parameters
    ----------
    jobs, replications, batches : int
        As the simulator was given them.
    minimum : int
        Fewest batches accepted.
    meaning : str
        Appended to the condition on ``batches`` in the message.
    name : str
        The simulator's name for ``jobs`` (``"arrivals"``), in the message.

    Returns
    -------
    tuple of int
        ``(jobs, replications, batches, jobs // replications)``.

    Examples
    --------
    >>> split_jobs(1_000, 3, 20)
    (1000, 3, 20, 333)
    """
    total, runs = integer(name, jobs), integer("replications", replications)
    k = integer("batches", batches, minimum=minimum, meaning=meaning)
    per_run = (2**63 - k) // k   # the last batch boundary, k·arrivals + k - 1, stays below 2**63
    if total > runs * per_run:
        raise InvalidParameterError(name, jobs, f"must be at most {runs * per_run:,} = {runs:,} x (2**63 - {k}) // {k}: "
                                                f"each replication's arrivals times its {k} batches (the batch boundaries) "
                                                "must fit the event loop's 64-bit integers; at ten million arrivals a "
                                                f"second, {per_run:.2g} arrivals per replication take "
                                                f"{per_run / 1e7 / 3.156e7:,.0f} years")
    return total, runs, k, total // runs


def batch_boundaries(warmup: int, arrivals: int, batches: int) -> np.ndarray:
    """The arrival numbers at which each of ``batches`` batches starts, after ``warmup`` of a
    replication's ``arrivals``, and where the last one ends (``batches + 1`` int64 values, as even as
    integers allow; within 64 bits for the arrivals :func:`split_jobs` accepts).

    Examples
    --------
    >>> batch_boundaries(10, 110, 4).tolist()
    [10, 35, 60, 85, 110]
    """
    measured = arrivals - warmup
    return warmup + (np.arange(batches + 1, dtype=np.int64) * measured + batches - 1) // batches


def warmup_of(jobs: object, warmup: object, share: int, replications: int, batches: int, needed: int | None = None,
              name: str = "jobs") -> int:
    """The arrivals each replication discards: ``warmup``, by default a tenth of its ``share``.

    Parameters
    ----------
    jobs : object
        The simulator's ``jobs``, for the message.
    warmup : int or None
        As the simulator was given it.
    share : int
        Arrivals per replication.
    replications, batches : int
        The checked counts.
    needed : int, optional
        Arrivals each replication must count after its warm-up (default ``batches``).
    name : str
        The simulator's name for ``jobs`` (``"arrivals"``), in the message.

    Returns
    -------
    int

    Raises
    ------
    InvalidParameterError
        ``warmup`` not an integer >= 0, or ``share < warmup + needed``.

    Examples
    --------
    >>> warmup_of(1_000, None, 1_000, 1, 20)
    100
    """
    skip = share // 10 if warmup is None else integer("warmup", warmup, minimum=0)
    least = batches if needed is None else needed
    if share < skip + least:
        what = "batches" if needed is None else str(least)
        raise InvalidParameterError(name, jobs, f"must give each of the {replications} replications at least warmup + "
                                                  f"{what} = {skip + least} arrivals (it gives {share})")
    return skip


def run_replications(replication: Callable[[Any, np.random.SeedSequence], Any], setup: Any, replications: int,
                     seed: Any, executor: Executor | None, progress: bool | None,
                     description: str) -> tuple[np.random.SeedSequence, list]:
    """``replication(setup, child)`` for each child of the root seed, through ``executor``.

    Parameters
    ----------
    replication : callable
        A module-level function (picklable) of the setup and a ``SeedSequence``.
    setup : object
        What a replication needs (picklable).
    replications : int
        Number of replications.
    seed, executor, progress
        As :func:`~analytic.simulation.replicate` takes them.
    description : str
        Label of the progress bar.

    Returns
    -------
    tuple
        The root ``SeedSequence`` (its ``entropy`` repeats the run) and the replications' results, in order.

    Examples
    --------
    >>> from analytic.simulation import SerialExecutor
    >>> def draw(scale, child):
    ...     return scale * float(np.random.default_rng(child).random())
    >>> root, results = run_replications(draw, 2.0, 3, 5, SerialExecutor(), False, "draws")
    >>> root.entropy, len(results)
    (5, 3)
    """
    root = root_seed(seed)
    return root, replicate(functools.partial(replication, setup), replications, root, executor, progress, description)


def pooled(tallies: list) -> tuple[str, dict[str, np.ndarray]]:
    """The samples behind the intervals: the replications' totals when there are several, else the batches of one.

    Parameters
    ----------
    tallies : list of dataclass
        One per replication; every field an array whose first axis is the batch.

    Returns
    -------
    tuple
        The method (``"independent replications"`` or ``"batch means"``) and, by field name, the
        samples: an array whose first axis is the replication (totals over its batches) or the batch.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Tallies:
    ...     jobs: np.ndarray
    >>> pooled([Tallies(np.array([1, 2])), Tallies(np.array([3, 4]))])
    ('independent replications', {'jobs': array([3, 7])})
    >>> pooled([Tallies(np.array([1, 2]))])[0]
    'batch means'
    """
    names = [field.name for field in dataclasses.fields(tallies[0])]
    if len(tallies) > 1:
        return "independent replications", {name: np.array([getattr(t, name).sum(axis=0) for t in tallies]) for name in names}
    return "batch means", {name: getattr(tallies[0], name) for name in names}


def column_estimates(values: np.ndarray, level: float, method: str,
                     denominators: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Estimates of every column of the samples: means, or ratios over ``denominators``.

    Parameters
    ----------
    values : numpy.ndarray, shape (k, ...)
        ``k`` samples (first axis) of each quantity (the other axes).
    level : float
        Confidence level.
    method : str
        How the samples were obtained (:data:`~analytic.simulation.METHODS`).
    denominators : numpy.ndarray, shape (k,) or the shape of values, optional
        With them, the :func:`~analytic.simulation.ratio_estimate` of each column over them (over
        its own column when they have the shape of ``values``); without, the
        :func:`~analytic.simulation.mean_estimate` of each column.

    Returns
    -------
    tuple of numpy.ndarray
        The values and the half-widths, of shape ``values.shape[1:]``.

    Examples
    --------
    >>> column_estimates(np.array([[1.0, 2.0], [3.0, 2.0]]), 0.95, "batch means")[0]
    array([2., 2.])
    """
    flat = values.reshape(len(values), -1)
    if denominators is None:
        results = [mean_estimate(flat[:, i], level, method) for i in range(flat.shape[1])]
    else:
        under = denominators.reshape(len(denominators), -1)     # one column for all, or one per column
        results = [ratio_estimate(flat[:, i], under[:, i % under.shape[1]], level, method) for i in range(flat.shape[1])]
    shape = values.shape[1:]
    return np.array([r.value for r in results]).reshape(shape), np.array([r.half_width for r in results]).reshape(shape)


def estimates(values: np.ndarray, level: float, method: str, denominators: np.ndarray | None = None) -> Estimates:
    """:func:`column_estimates` as an :class:`~analytic.simulation.Estimates` (one entry per column).

    Examples
    --------
    >>> estimates(np.array([[1.0, 2.0], [3.0, 2.0]]), 0.95, "batch means").value
    array([2., 2.])
    """
    value, half_width = column_estimates(values, level, method, denominators)
    return Estimates(value, half_width, level, method, len(values))


def shown(estimate: Estimate | Estimates, spec: str = ".6g") -> str:
    """``value ± half_width`` of an estimate, or ``[v ± h, ...]`` of each entry of a vector, for a result's repr.

    Examples
    --------
    >>> shown(Estimates(np.array([1.0, 2.0]), np.array([0.1, 0.2]), 0.95, "batch means", 20), ".2g")
    '[1 ± 0.1, 2 ± 0.2]'
    """
    if isinstance(estimate, Estimate):
        return f"{estimate:{spec}}"
    return "[" + ", ".join(f"{entry:{spec}}" for entry in estimate) + "]"


@kernel
def integrate(counts, last, area, batch, t):
    """Add ``counts[c] · (t - last[c])`` to ``area[batch, c]`` (none during the warm-up, ``batch < 0``); set ``last`` to t.

    The time-integral of every count of an event loop, brought up to ``t`` at a batch boundary.
    """
    for c in range(counts.shape[0]):
        if batch >= 0:
            area[batch, c] += counts[c] * (t - last[c])
        last[c] = t
