"""No wrong number, hang, memory exhaustion or raw exception on any input, for the whole public API.

The sweep discovers every callable listed in ``__all__`` of every module and package of
:mod:`analytic` (and the public methods of the classes listed there), so a function is covered the
day it is exported. Each has one valid call in ``BASELINES`` below; the sweep replaces one parameter
at a time by a wrong type (a string, a dict, an object, a complex number, ``None``), NaN, ±inf,
zero, a negative number, 10**18, a fraction, a bool, an empty, a flat and a ragged sequence, numbers
at the ends of the double range and integers beyond it (also as the last entry of a list of numbers),
a count of 10**12 (more memory than the machine has), and then by values hypothesis draws (extreme
floats and integers, text, nested lists, the baseline's own sequence with one entry spoiled). A
parameter that scales the work asked for (``WORK``) may run on a huge value. A call must

* raise an input error of :mod:`analytic.errors` (``InvalidParameterError``, whose message names
  the perturbed parameter; ``UnstableSystemError``; ``StateSpaceTooLargeError``; ...), or
* return a result holding no NaN and no complex number, and for inputs that are never valid
  (NaN, a complex number, a string, a dict, an object, ``None`` where ``None`` is not documented)
  it must raise.

Never a raw ``ValueError``/``TypeError``/``AttributeError``/``ZeroDivisionError``/``ConvergenceError``
from inside. Each callable is swept in a forked child process whose address space is capped
(``RLIMIT_AS``, 2 GiB above what the process already maps) so exhaustion shows as a
``MemoryError`` failure, with a per-call limit on the CPU time it uses (a signal for Python loops, a
kill by the parent for compiled ones): a hang shows as a failure naming the call. The limits count
work, never wall time, so a machine busy with other work cannot trip them (a generous wall-clock
backstop catches only a child blocked without computing). There is no timing assertion.

Names exported for the package's own modules (compiled kernels, internal checks) are listed in
``INTERNAL`` with the reason; result classes, built only by the package, are marked ``RESULT`` and
are checked through the baselines that produce them. A newly exported name without an entry in
one of these tables fails ``test_every_public_callable_has_a_baseline``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import inspect
import itertools
import json
import math
import os
import pkgutil
import resource
import select
import signal
import time
import traceback
import types
from collections.abc import Callable, Iterator
from typing import Any

import numba.core.event
import numpy as np
import pytest
import sympy
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import FlakyFailure

import analytic
from analytic.errors import AnalyticError, ConvergenceError, InvalidParameterError

# The limits count work, not wall time: a machine busy with other work must not turn a slow call into a
# "hang". Compiling a numba kernel is set-up, not the call's work, and is left out of SOFT_LIMIT (see
# _soft_limit).
#: Seconds of CPU time one call may use before the signal interrupts it (Python code) ...
SOFT_LIMIT = 5.0
#: ... and before the parent kills the child (compiled code ignores the signal). Generous: it also covers
#: compiling, from an empty numba cache, every kernel one call can reach (the GTH solver's alone take 17 s).
HARD_LIMIT = 60.0
#: Seconds of wall time a call may run without an answer: a backstop for a child that waits without using
#: CPU time (a deadlock, or a pool of worker processes, whose time is theirs). Only a machine loaded more
#: than a hundredfold makes a call within SOFT_LIMIT take this long.
WALL_BACKSTOP = 600.0
#: Address space a child may add to what it maps when forked.
MEMORY_CAP = 2 * 2**30
#: Hypothesis examples per callable, after the fixed table (derandomized: the same draws every run). Eight
#: rounds of 40-150 random draws per callable found up to four more defects each (two found none); these
#: 30 fixed draws pass.
EXPLORE_EXAMPLES = 30


# --------------------------------------------------------------------------------------------------
# Discovery


def _exported() -> Iterator[tuple[str, Any]]:
    for info in pkgutil.walk_packages(analytic.__path__, "analytic."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            yield f"{info.name}.{name}", getattr(module, name)


def _methods(cls: type) -> Iterator[str]:
    for attr, raw in vars(cls).items():
        if attr.startswith("_"):
            continue
        function = raw.__func__ if isinstance(raw, classmethod | staticmethod) else raw
        if (function.__doc__ or "").startswith("Deprecated:"):      # an old name kept one release: it warns
            continue
        if inspect.isfunction(function) and not getattr(function, "__isabstractmethod__", False):
            parameters = [p for p in inspect.signature(function).parameters if p not in ("self", "cls")]
            if parameters:
                yield attr


def _home(obj: Any, paths: list[str]) -> str:
    """The shortest exporting path inside the module that defines ``obj`` (else the first one found)."""
    defining = getattr(obj, "__module__", "") or ""
    inside = [p for p in paths if defining.startswith(p.rsplit(".", 1)[0])]
    return min(inside, key=len) if inside else paths[0]


def public_callables() -> dict[str, Any]:
    """Qualified name (its home path) -> callable, for every exported callable and public method.

    Exception types are left out: the package raises them, users catch them.
    """
    paths: dict[int, list[str]] = {}
    objects: dict[int, Any] = {}
    for key, obj in _exported():
        if callable(obj) and not (isinstance(obj, type) and issubclass(obj, BaseException)):
            paths.setdefault(id(obj), []).append(key)
            objects[id(obj)] = obj
    found: dict[str, Any] = {}
    for ident, obj in objects.items():
        key = _home(obj, paths[ident])
        found[key] = obj
        for path in paths[ident]:
            ALIASES[path] = key
        if isinstance(obj, type):
            for attr in _methods(obj):
                found[f"{key}.{attr}"] = getattr(obj, attr)
                for path in paths[ident]:
                    ALIASES[f"{path}.{attr}"] = f"{key}.{attr}"
    return found


#: Every exporting path of a callable -> its home path (the tables below may use either).
ALIASES: dict[str, str] = {}
PUBLIC = public_callables()


# --------------------------------------------------------------------------------------------------
# Baselines: one valid call per callable


@dataclasses.dataclass
class Call:
    function: Callable
    args: tuple
    kwargs: dict


class S(str):
    """A shared argument, by name: built on first use by :func:`_shared_objects` (some need a computation)."""


_SHARED: dict[str, Any] = {}


def _resolve(value: Any) -> Any:
    if isinstance(value, S):
        if value not in _SHARED:
            _SHARED[value] = _shared_objects()[value]()
        return _SHARED[value]
    if isinstance(value, list):
        return [_resolve(v) for v in value]
    return value


def call(*args: Any, **kwargs: Any) -> Callable[[Callable], Call]:
    """A baseline: these arguments, for the callable named by the table's key."""
    return lambda function: Call(function, tuple(map(_resolve, args)), {k: _resolve(v) for k, v in kwargs.items()})


def method(instance: str, *args: Any, **kwargs: Any) -> Callable[[Callable], Call]:
    """A baseline of a method of the shared object ``instance``."""
    return lambda function: call(*args, **kwargs)(getattr(_resolve(S(instance)), function.__name__))


def _entropy(seed: np.random.SeedSequence) -> int:
    return seed.entropy


def _shared_objects() -> dict[str, Callable[[], Any]]:
    from analytic import fairness, hesrpt, moldable, partitioning, simulation, speedup, splitting
    from analytic.ctmc import CTMC
    from analytic.fairness.paper import FIGURES

    def cluster() -> Any:
        return partitioning.Cluster([2, 2])

    def job() -> Any:
        return partitioning.GraphJob(2, [(0, 1)], 1.0, 1.0)

    def graph() -> Any:
        return fairness.CompatibilityGraph([[0, 2], [1, 2]])

    def chain() -> Any:
        return CTMC([[0, 1.0], [2.0, 0]])

    def truncated() -> Any:
        from analytic.ctmc import truncation
        return truncation.truncate_lattice(np.arange(10)[:, None], _MM1_MOVES, _MM1_FEASIBLE, (0,))

    def drift() -> Any:
        from analytic.ctmc import truncation
        return truncation.lattice_drift([np.arange(51)[:, None]], _MM1_MOVES, _MM1_LYAPUNOV, truncated())

    def population() -> Any:
        from analytic.ctmc import PopulationModel
        x = sympy.Symbol("x")
        return PopulationModel([x], [((1,), 1.0), ((-1,), 2 * sympy.Min(x, 1))])

    return dict(
        truncated=truncated, drift=drift, population=population,
        truncation=lambda: __import__("analytic.ctmc.truncation", fromlist=["x"]).solve_truncated(truncated(), drift()),
        chain=chain, stationary=lambda: chain().stationary(), passage=lambda: chain().passage_time([False, True], 0),
        graph=graph, cluster=cluster, job=job,
        balance=lambda: fairness.balance_function(graph(), [1.0, 1.0], 3), lattice=lambda: fairness.simplex_lattice(2, 3),
        speedup=lambda: speedup.SpeedupTable([1, 1.8, 2.5, 3, 3.4]), curve=lambda: speedup.SpeedupCurve.power(0.5),
        space=lambda: partitioning.configurations(cluster(), job()),
        law=lambda: partitioning.loss_distribution(cluster(), job()),
        space_key=lambda: (space := partitioning.configurations(cluster(), job())).key(space.counts[1]),
        law_values=lambda: np.ones(len(partitioning.loss_distribution(cluster(), job()).probabilities)),
        law_probabilities=lambda: partitioning.loss_distribution(cluster(), job()).probabilities,
        ps=fairness.processor_sharing, operating=lambda: partitioning.operating_point(cluster(), job(), 0.5),
        discrete=lambda: simulation.Discrete([0.5, 5.5], [0.9, 0.1]), pareto=lambda: simulation.Pareto(3.0, 2.0),
        mixture=lambda: simulation.ErlangMixture([0.5, 0.5], [1, 3], [1.0, 2.0]),
        phase_type=lambda: simulation.PhaseType([0.5, 0.5], [[-2.0, 1.0], [0.5, -1.5]]),
        partitioning=lambda: partitioning.simulate_max_weight(cluster(), job(), 1.0, 1.0, time=200.0, seed=1),
        trajectory=lambda: hesrpt.flow_time([1.0, 2.0], "hesrpt", 0.5, 10, record=True).trajectory,
        verdict=lambda: __import__("analytic.reproduce", fromlist=["Verdict"]).Verdict("E_1(1) = 1/2", "0.5", True),
        figure=lambda: FIGURES[1], classes=lambda: splitting.RigidClass(1, 1.0, 1.0),
        serial=simulation.SerialExecutor, estimate=lambda: simulation.mean_estimate([1.0, 2.0, 3.0]),
        moldable_class=lambda: moldable.MoldableClass(speedup.SpeedupTable.linear(2), 0.3),
        multiserver_run=lambda: splitting.simulate_multiserver("bs-fcfs", 4, [splitting.RigidClass(1, 1.0, 1.0)], 1.0,
                                                               arrivals=2000, seed=1, executor=simulation.SerialExecutor()),
        class_estimates=lambda: splitting.ClassEstimates(1, 100, 1.2, 0.1, 0.3, 0.05, None, None, None, None, 0.95,
                                                         "batch means", 20),
        systems=lambda: splitting.figure2_heavy_traffic(32, (0.5,)),
        sweep_run=lambda: splitting.sweep(splitting.figure2_heavy_traffic(32, (0.5,)), ("fcfs",), arrivals=2000,
                                          executor=simulation.SerialExecutor()),
    )


RESULT = "result class: built by the package, checked through the baselines that return it"

#: An M/M/1/50 queue (arrivals 1, service 2) for the truncation baselines, and its Lyapunov function.
_MM1_MOVES = [((1,), lambda X: 1.0 * (X[:, 0] < 50)), ((-1,), lambda X: 2.0 * (X[:, 0] > 0))]
_MM1_FEASIBLE = lambda X: X[:, 0] <= 50          # noqa: E731
_MM1_LYAPUNOV = lambda X: 1.5 ** X[:, 0]         # noqa: E731

_CTMC_KERNEL = "a kernel of analytic.ctmc: CTMC validates the generator and the states before calling it"
_TRUNCATION_BUILDER = ("a builder of analytic.ctmc.truncation that a model module (analytic.moldable.certified) calls "
                       "with its own validated states, moves and Lyapunov function; its checks (repeated or infeasible "
                       "states, a failing drift) are tested in tests/ctmc/test_truncation.py")
_NUMBA = "a numba kernel of compiled event loops: its arguments are the loop's own arrays"
_BOUNDS_STEP = ("a step of stationary_bounds (tail analysis, Lyapunov search and proof), given the validated model and "
                "the exact expressions it derived; its refusals are tested in tests/ctmc/test_bounds.py and "
                "tests/ctmc/test_population.py")
INTERNAL: dict[str, str] = {
    **{f"analytic.ctmc.{name}": _CTMC_KERNEL for name in [
        "_balance.Balance", "_balance.Balance.order_toward", "_balance.Balance.positive",
        "_balance.Balance.probabilities", "_balance.Balance.excess", "_balance.Balance.scaled_matrix", "_balance.Measure",
        "_balance.Balance.largest_shift", "_balance.Balance.lifted_excess", "_refinement.ScaledSolver.factorization_parts",
        "_balance.Measure.from_parts", "_ordering.minimum_degree", "_spanning.spanning_tree",
        "_multilevel.Multilevel", "_multilevel.Multilevel.solve", "_multilevel.aggregation_measure",
        "_balance.Measure.corrected", "_balance.Balance.normalized", "_reversible.detailed_balance",
        "_reversible.reversible_bound", "_rounding.factorization_bound", "_rounding.rounding_sum", "_certificate.Certificate",
        "_certificate.certify", "_certificate.normalized_bound", "_certificate.relative_residual",
        "_certificate.tree_bound", "_extended.certified_measure",
        "_extended.digits", "_gth.Factorization", "_gth.Factorization.solve",
        "_gth.GTHPlan", "_gth.analyse", "_small.BandFactorization", "_small.BandFactorization.solve",
        "_small.BandPlan", "_small.band_plan", "_krylov.gmres", "_ordering.nested_dissection", "_preconditioner.ILU0",
        "_preconditioner.ILU0.solve", "_refinement.Refinement", "_refinement.ScaledSolver",
        "_refinement.ScaledSolver.update", "_refinement.ScaledSolver.solve", "_refinement.refine",
        "spaces.ExplicitSpace", "spaces.ExplicitSpace.evaluate", "spaces.ExplicitSpace.index",
        "spaces.ExplicitSpace.subset", "spaces.LatticeSpace", "spaces.LatticeSpace.evaluate",
        "spaces.LatticeSpace.index", "spaces.LatticeSpace.positions", "spaces.LatticeSpace.subset",
        "spaces.check_rates", "spaces.enumerate_lower_set", "spaces.plain", "spaces.raise_leaves_space",
        "spaces.validate_moves", "spaces.validate_upper", "spaces.vector_result", "stationary.solve",
        "transient.transient"]},
    **{f"analytic.ctmc.{name}": _BOUNDS_STEP for name in [
        "lyapunov.GeometricLyapunov", "lyapunov.TailDrift", "lyapunov.TailDrift.factor", "lyapunov.TailDrift.push",
        "lyapunov.find_geometric", "lyapunov.phase_index", "lyapunov.phase_weights", "lyapunov.prove_geometric",
        "lyapunov.proved_drift",
        "lyapunov.tail_drift", "regions.LinearGeometric", "regions.Region", "regions.LinearGeometric.states",
        "regions.LinearGeometric.count", "regions.LinearGeometric.level_of", "regions.find_linear_geometric",
        "regions.prove_linear_geometric", "regions.region_form", "regions.region_envelope", "tails.Envelope",
        "regions.LinearGeometric.cell", "regions.find_face_geometric",
        "tails.Envelope.beyond", "tails.Envelope.of_polynomial", "tails.Envelope.times", "tails.envelope",
        "tails.eventual_rational",
        "regions.regions", "tails.eventual_form", "tails.eventual_polynomial", "tails.exact", "tails.last_root_bound",
        "tails.level_after", "population.expression", "regions.affine_bound", "separable.SumGeometric",
        "separable.SumGeometric.states", "separable.SumGeometric.count", "separable.SumGeometric.level_of",
        "population.lattice_points", "lyapunov.rounded_gain", "separable.find_sum_geometric", "separable.prove_sum_geometric"]},
    **{f"analytic.ctmc.truncation.{name}": _TRUNCATION_BUILDER for name in [
        "function_drift_inside", "lattice_drift", "level_drift", "truncate_function", "truncate_lattice"]},
    **{f"analytic._double_double.{name}": "double-double arithmetic of the package's kernels, on the doubles "
                                          "they computed" for name in ["dd_add", "dd_product", "dd_quotient",
                                                                       "two_product", "two_sum"]},
    "analytic.simulation.events.heap_pop": _NUMBA,
    "analytic.simulation.events.heap_push": _NUMBA,
    "analytic.simulation.laws.draw": _NUMBA,
    "analytic.simulation.laws.SizeLaw": "abstract base class of the size laws (its methods are swept)",
    "analytic.simulation.replications.SerialExecutor.submit": "the concurrent.futures.Executor protocol",
    "analytic.reproduce.reproduces": "a decorator registering the package's own reproduce rows",
    "analytic.reproduce.Row": "a record the package's reproduce rows build; its fields are shown as given",
    "analytic.reproduce.Verdict": "a record the package's notebooks build; its fields are shown as given",
    "analytic.errors.describe": "renders any value for an error message, by design",
    "analytic.validation.as_number": "the one rule for numbers: returns None for a non-number, by design (its callers "
                                     "raise; tests/contract/test_bad_input.py's entry sweep checks them)",
    "analytic.validation.user_code": "a context manager the package puts around a user's callable, with its own labels",
    "analytic.validation.numeric_array": "checks type and shape only: its callers check the values (NaN included)",
    "analytic.speedup.check_shape": "the shape check behind SpeedupTable and SpeedupCurve, given arrays they built",
    "analytic.cli.main": "swept through its subcommands in tests/cli/test_cli.py",
    "analytic.splitting.Policy": "the registry's record of a built-in policy (POLICIES): users pass its name",
    "analytic.splitting.policies.resolve_policy": "the policy check of simulate_multiserver, given the servers and "
                                                  "classes it validated",
    "analytic.splitting.bounds.split_servers": "the partition behind simulate_multiserver and the exact chains, "
                                               "given the rate and classes they validated",
}

_GRAPH, _RATES = S("graph"), [1.0, 1.0]
_CLUSTER, _JOB = S("cluster"), S("job")
_SPLIT = [S("classes")]

BASELINES: dict[str, Any] = {
    # ctmc
    "analytic.ctmc.CTMC": call([[0, 1.0], [2.0, 0]]),
    "analytic.ctmc.CTMC.from_function": call(0, lambda x: [(1, 1.0)] if x == 0 else [(0, 2.0)]),
    "analytic.ctmc.CTMC.from_lattice": call((3,), [((1,), lambda x: 1.0 * (x[:, 0] < 3)),
                                                   ((-1,), lambda x: 1.0 * (x[:, 0] > 0))]),
    "analytic.ctmc.CTMC.index": method("chain", 1),
    "analytic.ctmc.CTMC.reachable": method("chain", 0),
    "analytic.ctmc.CTMC.stationary": method("chain", "auto"),
    "analytic.ctmc.CTMC.detailed_balance_residual": method("chain", [2 / 3, 1 / 3]),
    "analytic.ctmc.CTMC.transient": method("chain", [0.0, 1.0], 0),
    "analytic.ctmc.CTMC.limit": method("chain", 0),
    "analytic.ctmc.CTMC.transient_reward": method("chain", [1.0, 2.0], [0.0, 1.0], 0),
    "analytic.ctmc.CTMC.accumulated_reward": method("chain", [1.0, 2.0], [0.0, 1.0], 0),
    "analytic.ctmc.CTMC.passage_time": method("chain", [False, True], 0),
    "analytic.ctmc.CTMC.reach_probability": method("chain", [False, True], [0.5, 2.0], 0, avoid=[True, False]),
    "analytic.ctmc.CTMC.reward_until": method("chain", [False, True], [1.0, 2.0], 0),
    "analytic.ctmc.PassageTime": RESULT,
    "analytic.ctmc.PassageTime.moment": method("passage", 2),
    "analytic.ctmc.PassageTime.cdf": method("passage", [0.0, 1.0]),
    "analytic.ctmc.PassageTime.survival": method("passage", [0.0, 1.0]),
    "analytic.ctmc.stationary.check_tolerance": call(1e-6),
    "analytic.ctmc.Stationary": RESULT,
    "analytic.ctmc.Stationary.expected": method("stationary", [1.0, 2.0]),
    "analytic.ctmc.Stationary.probability": method("stationary", 1),
    "analytic.ctmc.lattice_bytes": call(1000, 2, 4),
    "analytic.ctmc.PopulationModel": call([sympy.Symbol("x")], [((1,), 1.0), ((-1,), 2.0)]),
    "analytic.ctmc.PopulationModel.drift": method("population", 1.5),
    "analytic.ctmc.PopulationModel.feasible": method("population", np.array([[0], [3]])),
    "analytic.ctmc.stationary_bounds": call(S("population"), {"mean": 1.0}, width=1e-4),
    "analytic.ctmc.bounds.Interval": RESULT,
    "analytic.ctmc.bounds.StationaryBounds": RESULT,
    "analytic.ctmc.truncation.Drift": call(1.0, 1e6, "a check"),
    "analytic.ctmc.truncation.Drift.outside_expectation": method("drift", 2.0),
    "analytic.ctmc.truncation.TruncatedChain": RESULT,
    "analytic.ctmc.truncation.Truncation": RESULT,
    "analytic.ctmc.truncation.Truncation.interval": method("truncation", lambda X: 1.0 * (X[:, 0] == 0), 0.0, 1.0),
    "analytic.ctmc.truncation.solve_truncated": call(S("truncated"), S("drift")),

    "analytic.ctmc.solve_bytes": call(1000, 5000),
    # erlang, errors, memory, validation, reproduce
    "analytic.erlang.erlang_b": call(5, 3.0),
    "analytic.erlang.loss_occupancy": call(5, 3.0, 2),
    "analytic.erlang.erlang_b_offered_load": call(5, 0.01),
    "analytic.erlang.erlang_b_servers": call(3.0, 0.01),
    "analytic.erlang.erlang_c": call(5, 3.0),
    "analytic.erlang.halfin_whitt_blocking": call(0.5, servers=100),
    "analytic.erlang.halfin_whitt_delay": call(0.5),
    "analytic.erlang.log_erlang_b": call(5, 3.0),
    "analytic.erlang.loss_response_time": call(5, 3.0, 1.0),
    "analytic.memory.available_bytes": call(),
    "analytic.memory.fits": call(1000),
    "analytic.memory.require": call(1000, "the example", 10),
    "analytic.validation.confidence": call("level", 0.95),
    "analytic.validation.integer": call("servers", 4),
    "analytic.validation.positive": call("rate", 2.0),
    "analytic.validation.probabilities": call("p", [0.5, 0.5]),
    "analytic.validation.unit_fraction": call("load", 0.5),
    "analytic.validation.real": call("theta", 0.5),
    "analytic.validation.real_array": call("x", [1.0, 2.0]),
    "analytic.validation.instances": call("seeds", [1, 2], int),
    "analytic.validation.flag": call("log", True),
    "analytic.validation.option": call("method", "auto", ("auto", "gth")),
    "analytic.reproduce.Outcome": RESULT,
    "analytic.reproduce.collect": call("erlang"),
    "analytic.reproduce.sources": call(),
    "analytic.reproduce.verdict_table": call([S("verdict")]),
    # fairness
    "analytic.fairness.balance.BalanceFunction": RESULT,
    "analytic.fairness.balance.BalanceFunction.log_phi": method("balance", [[1, 1]]),
    "analytic.fairness.balance.BalanceFunction.phi": method("balance", [[1, 1]]),
    "analytic.fairness.balance.BalanceChecks": RESULT,
    "analytic.fairness.balance.balance_function": call(_GRAPH, _RATES, 3),
    "analytic.fairness.balance.parent_indices": call(S("lattice")),
    "analytic.fairness.subsets.BalancedFairness": RESULT,
    "analytic.fairness.subsets.balanced_fairness": call(_GRAPH, _RATES),
    "analytic.fairness.subsets.subset_sums": call(_GRAPH, np.array(_RATES)),
    "analytic.fairness.graph.CompatibilityGraph": call([[0, 2], [1, 2]], [1.0, 1.0, 1.0]),
    "analytic.fairness.graph.check_mean_size": call(1.0),
    "analytic.fairness.graph.check_rates": call("arrival_rates", _RATES, _GRAPH),
    "analytic.fairness.graph.service_rate": call(_GRAPH, [0, 1]),
    "analytic.fairness.graph.subset_service_rates": call(_GRAPH),
    "analytic.fairness.simulation.InterruptionSimulation": RESULT,
    # Simulators run on the SerialExecutor in the sweep: with replications > 1 and no executor, a process pool
    # starts, and on a fresh install its workers spent more than the time limit before the first event.
    "analytic.fairness.simulation.simulate_interruptions": call(_GRAPH, [0.5, 0.5], arrivals=2000, seed=1, executor=S("serial")),
    "analytic.fairness.simulation.simulate_random_assignment": call(10, 2, 5.0, arrivals=2000, seed=1, executor=S("serial")),
    "analytic.fairness.chain.OIQueueLaw": RESULT,
    "analytic.fairness.chain.oi_queue_chain": call(_GRAPH, _RATES, 3),
    "analytic.fairness.chain.oi_queue_law": call(_GRAPH, _RATES, 3, interruptions=1.0),
    "analytic.fairness.random_assignment.RandomAssignment": RESULT,
    "analytic.fairness.random_assignment.random_assignment": call(4, 2, 2.0),
    "analytic.fairness.random_assignment.random_assignment_graph": call(3, 2),
    "analytic.fairness.lattice.SimplexLattice": RESULT,
    "analytic.fairness.lattice.SimplexLattice.level": method("lattice", 2),
    "analytic.fairness.lattice.SimplexLattice.index": method("lattice", [[1, 1]]),
    "analytic.fairness.lattice.SimplexLattice.contains": method("lattice", [[1, 1]]),
    "analytic.fairness.lattice.simplex_lattice": call(2, 3),
    "analytic.fairness.stability.Stability": RESULT,
    "analytic.fairness.stability.is_stable": call(_GRAPH, _RATES),
    "analytic.fairness.stability.require_stable": call(_GRAPH, _RATES),
    "analytic.fairness.stability.stability": call(_GRAPH, _RATES),
    "analytic.fairness.stability.stability_violation": call(_GRAPH, _RATES),
    "analytic.fairness.stability.unstable_error": call((0,), 2.0, 1.0, "the law"),
    "analytic.fairness.whittle.WhittleNetwork": RESULT,
    "analytic.fairness.whittle.processor_sharing": call(1.0),
    "analytic.fairness.whittle.whittle_network": call(S("ps"), [0.2, 0.4], 50, log=True, normalization=2.5),
    "analytic.fairness.oi_queue.OrderedState": RESULT,
    "analytic.fairness.oi_queue.aggregate_measure": call(_GRAPH, _RATES, [1, 1]),
    "analytic.fairness.oi_queue.job_service_rates": call(_GRAPH, [1, 0, 1]),
    "analytic.fairness.oi_queue.orderings": call(_GRAPH, _RATES, [1, 1]),
    "analytic.fairness.oi_queue.permutation_rates": call(_GRAPH, _RATES, [1, 1]),
    "analytic.fairness.oi_queue.sequence_measure": call(_GRAPH, _RATES, [0, 1]),
    "analytic.fairness.three_servers.ThreeServerCheck": RESULT,
    "analytic.fairness.three_servers.symbolic_check": call(),
    "analytic.fairness.three_servers.three_server_graph": call((1.0, 0.0, 1.0)),
    "analytic.fairness.three_servers.three_server_rates": call((1.0, 1.0, 1.0), (1.0, 1.0)),
    "analytic.fairness.paper.Figure": call(1, capacities=(1.0, 1.0, 1.0)),
    "analytic.fairness.paper.SweepPoint": RESULT,
    "analytic.fairness.paper.exact_point": call(S("figure"), 0.5),
    "analytic.fairness.paper.figure_rates": call(S("figure"), 0.5),
    "analytic.fairness.paper.figure_sweep": call([1], ["exponential"], [1.0], [0.5], 2000, seed=3),
    "analytic.fairness.paper.simulate_point": call(S("figure"), 0.5, "exponential", 1.0, 2000, seed=3),
    # hesrpt
    "analytic.hesrpt.closed_form.HesrptFlowTime": RESULT,
    "analytic.hesrpt.closed_form.ClosedFormCheck": RESULT,
    "analytic.hesrpt.closed_form.helrpt_allocation": call([1.0, 2.0], 0.5),
    "analytic.hesrpt.closed_form.hesrpt_allocation": call(3, 0.5),
    "analytic.hesrpt.closed_form.hesrpt_flow_time": call([1.0, 2.0], 0.5, 10),
    "analytic.hesrpt.closed_form.optimal_makespan": call([3.0, 4.0], 0.5, 100.0),
    "analytic.hesrpt.closed_form.scale_free_constants": call(3, 0.5),
    "analytic.hesrpt.closed_form.symbolic_check": call(2),
    "analytic.hesrpt.comparison.PolicyComparison": RESULT,
    "analytic.hesrpt.comparison.compare_policies": call(exponents=(0.5,), servers=100, jobs=5, seeds=(0, 1)),
    "analytic.hesrpt.comparison.pareto_sizes": call(3, 1.5, 0),
    "analytic.hesrpt.optimal.OptimalAllocation": RESULT,
    "analytic.hesrpt.optimal.optimal_allocation": call([1.0, 2.0], 0.5, 10),
    "analytic.hesrpt.policies.FlowTime": RESULT,
    "analytic.hesrpt.policies.KneeSearch": RESULT,
    "analytic.hesrpt.policies.Trajectory": RESULT,
    "analytic.hesrpt.policies.Trajectory.remaining_at": method("trajectory", [0.0, 0.5]),
    "analytic.hesrpt.policies.flow_time": call([1.0, 2.0], "equi", 0.5, 10),
    "analytic.hesrpt.policies.knee_search": call([1.0, 2.0, 4.0], 0.5, 100),
    # speedup
    "analytic.speedup.SpeedupCurve": RESULT,
    "analytic.speedup.SpeedupCurve.derivative": method("curve", [1.0, 2.0]),
    "analytic.speedup.SpeedupCurve.inverse_derivative": method("curve", [0.5, 0.1], 100.0),
    "analytic.speedup.SpeedupCurve.power": call(0.5),
    "analytic.speedup.SpeedupCurve.amdahl": call(0.9),
    "analytic.speedup.SpeedupCurve.from_discrete": call(S("speedup")),
    "analytic.speedup.SpeedupCurve.from_callable": call(np.log1p, 100.0),
    "analytic.speedup.SpeedupTable": call([1, 1.8, 2.5, 3, 3.4]),
    "analytic.speedup.SpeedupTable.linear": call(5),
    "analytic.speedup.SpeedupTable.amdahl": call(0.9, 5),
    "analytic.speedup.SpeedupTable.power": call(0.5, 5),
    "analytic.speedup.SpeedupTable.from_curve": call(S("curve"), 5),
    "analytic.speedup.as_curve": call(S("speedup")),
    "analytic.speedup.as_discrete": call(S("speedup")),
    # moldable
    "analytic.moldable.bounds.SteinBounds": RESULT,
    "analytic.moldable.bounds.stein_bounds": call(S("speedup"), 4000, 0.5, 0.1),
    "analytic.moldable.bounds.traffic": call(4000, 0.5, 0.1),
    "analytic.moldable.bounds.traffic_regime": call(2 / 3, 0.1),
    "analytic.moldable.GreedyBounds": RESULT,
    "analytic.moldable.greedy_bounds": call(S("speedup"), 0.8, 12),
    "analytic.moldable.GreedyMetrics": RESULT,
    "analytic.moldable.greedy.LossChain": RESULT,
    "analytic.moldable.greedy.allocation_probabilities": call([0, 1, 3, 9], [0, 0, 0.625, 0.375]),
    "analytic.moldable.greedy.greedy_chain": call(S("speedup"), 0.8, 12),
    "analytic.moldable.greedy_metrics": call(S("speedup"), 0.8, 12),
    "analytic.moldable.heterogeneous.HeterogeneousOptimum": RESULT,
    "analytic.moldable.heterogeneous.MoldableClass": call(S("speedup"), 0.3, 2.0),
    "analytic.moldable.heterogeneous.heterogeneous_lp": call([S("moldable_class")]),
    "analytic.moldable.heterogeneous.heterogeneous_optimum": call([S("moldable_class")]),
    "analytic.moldable.occupancy.LPOptimum": RESULT,
    "analytic.moldable.occupancy.Occupancy": RESULT,
    "analytic.moldable.occupancy.kkt_residual": call(S("speedup"), 0.8, [0.0, 0.0, 0.2, 0.1, 0.0], -1.25, 0.625),
    "analytic.moldable.occupancy.occupancy_lp": call(S("speedup"), 0.8),
    "analytic.moldable.occupancy.optimal_occupancy": call(S("speedup"), 0.8),
    "analytic.moldable.occupancy.symbolic_kkt_residuals": call(),
    # partitioning
    "analytic.partitioning.model.Cluster": call([4, 4, 4]),
    "analytic.partitioning.model.GraphJob": call(3, [(0, 1), (1, 2)], 0.5, 1.0),
    "analytic.partitioning.model.check_jobs": call(_CLUSTER, _JOB),
    "analytic.partitioning.chain.SpectralGap": RESULT,
    "analytic.partitioning.chain.adgp_chain": call(_CLUSTER, _JOB, 2.0, 1.5, 0.5),
    "analytic.partitioning.chain.dgp_chain": call(_CLUSTER, _JOB, 1.5, 0.5),
    "analytic.partitioning.chain.log_relaxation_bound": call(_CLUSTER, _JOB, 1.5, 0.5),
    "analytic.partitioning.chain.log_mixing_constant": call(_CLUSTER, _JOB),
    "analytic.partitioning.chain.loss_chain": call(_CLUSTER, _JOB),
    "analytic.partitioning.chain.lump": call(S("space"), [(0, (0, 2))]),
    "analytic.partitioning.chain.spectral_gap": call(S("chain"), 6.0),
    "analytic.partitioning.chain.uniformization_rate": call(_CLUSTER, _JOB),
    "analytic.partitioning.ClassTable": RESULT,
    "analytic.partitioning.ConfigurationCount": RESULT,
    "analytic.partitioning.configurations.Configurations": RESULT,
    "analytic.partitioning.configurations.Configurations.multiplicity": method("space", 1),
    "analytic.partitioning.configurations.Configurations.key": method("space", [1, 0, 0]),
    "analytic.partitioning.configurations.Configurations.counts_of": method("space", (0,)),
    "analytic.partitioning.configurations.Configurations.index": method("space", S("space_key")),
    "analytic.partitioning.configurations.Configurations.weight": method("space", [1.5]),
    "analytic.partitioning.configurations.Configurations.describe": method("space", 1),
    "analytic.partitioning.class_table": call(_CLUSTER, _JOB),
    "analytic.partitioning.configuration_count": call(_CLUSTER, _JOB),
    "analytic.partitioning.configurations.configurations": call(_CLUSTER, _JOB),
    "analytic.partitioning.machine_symmetries": call(_CLUSTER),
    "analytic.partitioning.configurations.state_space": call(_CLUSTER, _JOB),
    "analytic.partitioning.distributions.ConfigurationLaw": RESULT,
    "analytic.partitioning.distributions.ConfigurationLaw.expected": method("law", S("law_values")),
    "analytic.partitioning.distributions.adgp_distribution": call(_CLUSTER, _JOB, 2.0, 1.5, 0.5),
    "analytic.partitioning.distributions.dgp_distribution": call(_CLUSTER, _JOB, 1.5, 0.5),
    "analytic.partitioning.distributions.loss_distribution": call(_CLUSTER, _JOB),
    "analytic.partitioning.distributions.queue_weight_vector": call([1.0, 2.0], 2),
    "analytic.partitioning.maxweight.MaxWeight": RESULT,
    "analytic.partitioning.maxweight.max_weight": call(_CLUSTER, _JOB, 1.5),
    "analytic.partitioning.maxweight.max_weight_configuration": call(_CLUSTER, _JOB, [5], 1.0),
    "analytic.partitioning.operating.OperatingPoint": RESULT,
    "analytic.partitioning.operating.OperatingPoint.queues": method("operating", 0.5, 2.0, 0.5),
    "analytic.partitioning.operating.operating_point": call(_CLUSTER, _JOB, 0.5),
    "analytic.partitioning.simulation.PartitioningSimulation": RESULT,
    "analytic.partitioning.simulation.simulate_adgp": call(_CLUSTER, _JOB, 0.5, 0.5, 0.05, frozen_queues=[20], time=100.0,
                                                           seed=2, executor=S("serial")),
    "analytic.partitioning.simulation.simulate_dgp": call(_CLUSTER, _JOB, 0.5, 0.5, frozen_queues=[20], time=100.0, seed=1,
                                                          executor=S("serial")),
    "analytic.partitioning.simulation.simulate_max_weight": call(_CLUSTER, _JOB, 1.0, 1.0, time=100.0, seed=3,
                                                                 executor=S("serial")),
    "analytic.partitioning.static.Packings": RESULT,
    "analytic.partitioning.static.StaticPartition": RESULT,
    "analytic.partitioning.static.capacity_margin": call(_CLUSTER, _JOB),
    "analytic.partitioning.static.cheapest_packings": call(_CLUSTER, _JOB),
    "analytic.partitioning.static.static_partitioning": call(_CLUSTER, _JOB),
    "analytic.partitioning.templates.TemplateClasses": RESULT,
    "analytic.partitioning.templates.TemplateCosts": RESULT,
    "analytic.partitioning.templates.cost_distribution": call(_CLUSTER, _JOB),
    "analytic.partitioning.templates.falling_factorial": call(12, 5),
    "analytic.partitioning.templates.max_template_cost": call(_CLUSTER, _JOB),
    "analytic.partitioning.templates.partition_cost": call(_CLUSTER, _JOB, [0, 1]),
    "analytic.partitioning.templates.template_classes": call(_CLUSTER, _JOB),
    "analytic.partitioning.templates.template_count": call(_CLUSTER, _JOB),
    "analytic.partitioning.templates.templates": call(_CLUSTER, _JOB),
    "analytic.partitioning.variational.WeightGapBound": RESULT,
    "analytic.partitioning.variational.VariationalSolution": RESULT,
    "analytic.partitioning.variational.weight_gap_bound": call(_CLUSTER, _JOB, 1.5, 0.2),
    "analytic.partitioning.variational.solve_variational": call(_CLUSTER, _JOB, 1.5, 0.5),
    "analytic.partitioning.variational.variational_objective": call(_CLUSTER, _JOB, S("law_probabilities"), 0.0, 1.0),
    "analytic.partitioning.variational.variational_optimum": call(_CLUSTER, _JOB, 3.0, 0.5),
    "analytic.partitioning.weights.DGPParameters": RESULT,
    "analytic.partitioning.weights.DGPBounds": RESULT,
    "analytic.partitioning.weights.DGPConditions": RESULT,
    "analytic.partitioning.weights.dgp_parameters": call(0.1, 0.5),
    "analytic.partitioning.weights.dgp_queue_weights": call([0, 1000], 1.0, 1.0, 0.9, 1, 0.0),
    "analytic.partitioning.weights.log_power": call(np.e**4, 0.5),
    "analytic.partitioning.weights.dgp_bounds": call(_CLUSTER, _JOB, 0.1, 0.1, 0.5, 10.0, 0.5),
    "analytic.partitioning.weights.dgp_conditions": call(_CLUSTER, _JOB, 0.1, 0.1, 0.5, 10.0, 0.5),
    # simulation
    "analytic.simulation.comparison.Comparison": RESULT,
    "analytic.simulation.ArrivalRun": RESULT,
    "analytic.simulation.SimulationRun": RESULT,
    "analytic.simulation.comparison.compare": call(np.linspace(0.0, 2.0, 400), 1.0),
    "analytic.simulation.comparison.coverage_band": call(100),
    "analytic.simulation.estimates.Estimate": RESULT,
    "analytic.simulation.estimates.Estimates": RESULT,
    "analytic.simulation.estimates.batch_means": call(np.linspace(0.0, 2.0, 400)),
    "analytic.simulation.estimates.mean_estimate": call([1.0, 2.0, 3.0]),
    "analytic.simulation.estimates.ratio_estimate": call([1.0, 2.0, 3.0], [2.0, 2.0, 2.0]),
    "analytic.simulation.estimates.t_quantile": call(0.95, 10),
    "analytic.simulation.events.chunks": call(10, 4),
    "analytic.simulation.laws.Discrete": call([0.5, 5.5], [0.9, 0.1]),
    "analytic.simulation.laws.ErlangMixture": call([0.5, 0.5], [1, 3], [1.0, 2.0]),
    "analytic.simulation.laws.Pareto": call(3.0, 2.0),
    "analytic.simulation.laws.bimodal": call(0.5, 5.5, 0.1),
    "analytic.simulation.laws.deterministic": call(2.0),
    "analytic.simulation.laws.erlang": call(4),
    "analytic.simulation.laws.exponential": call(2.0),
    "analytic.simulation.laws.fitted": call(2.0, 3.0),
    "analytic.simulation.laws.hyperexponential": call([0.5, 0.5], [1.0, 3.0]),
    "analytic.simulation.laws.PhaseType": call([0.5, 0.5], [[-2.0, 1.0], [0.5, -1.5]]),
    "analytic.simulation.laws.PhaseType.moment": method("phase_type", 3),
    "analytic.simulation.laws.PhaseType.pdf": method("phase_type", [0.5, 1.0]),
    "analytic.simulation.laws.fit_phase_type": call(1.0, 3.0, 15.0),
    "analytic.simulation.laws.mixed_erlang": call(1.0),
    "analytic.simulation.laws.pareto": call(1.5),
    "analytic.simulation.laws.size_law": call("exponential", 2.0),
    "analytic.simulation.stationarity.Growth": RESULT,
    "analytic.simulation.stationarity.growth_rate": call(np.arange(1.0, 21.0) * 0.5, np.arange(1.0, 21.0)),
    "analytic.simulation.replications.SerialExecutor": call(),
    "analytic.simulation.replications.check_executor": call(None),
    "analytic.simulation.replications.replicate": call(_entropy, 3, seed=1),
    "analytic.simulation.replications.root_seed": call(1),
    "analytic.simulation.replications.streams": call(1, 3),
    # splitting
    "analytic.splitting.RigidClass": call(4, 0.25, 2.0),
    "analytic.splitting.Partition": RESULT,
    "analytic.splitting.ResponseTimeBound": RESULT,
    "analytic.splitting.ScaledSystem": RESULT,
    "analytic.splitting.StabilityMargin": RESULT,
    "analytic.splitting.balanced_partition": call(10, _SPLIT),
    "analytic.splitting.critical_system": call(400, 1, 2.0, _SPLIT),
    "analytic.splitting.figure1_classes": call(2),
    "analytic.splitting.figure1_need_scale": call(1024),
    "analytic.splitting.helper_probability_bound": call(11, 1.0, _SPLIT),
    "analytic.splitting.modified_bs_chain": call(8, 2.0, _SPLIT),
    "analytic.splitting.modified_bs_helper_probability": call(11, 1.0, _SPLIT),
    "analytic.splitting.response_time_bound": call(11, 1.0, _SPLIT),
    "analytic.splitting.stability_margin": call(64, 30.0, _SPLIT),
    "analytic.splitting.subcritical_system": call(100, 2, 0.5, _SPLIT),
    "analytic.splitting.zero_wait_response_time": call(_SPLIT),
    "analytic.splitting.critical_helper_limit": call(1.0, _SPLIT),
    "analytic.splitting.ClassEstimates": RESULT,
    "analytic.splitting.ClassEstimates.estimate": method("class_estimates", "mean_response_time"),
    "analytic.splitting.ExactMetrics": RESULT,
    "analytic.splitting.MultiserverSimulation": RESULT,
    "analytic.splitting.PolicyState": RESULT,
    "analytic.splitting.Saturation": RESULT,
    "analytic.splitting.Sweep": RESULT,
    "analytic.splitting.Sweep.result": method("sweep_run", "fcfs", 0),
    "analytic.splitting.System": RESULT,
    "analytic.splitting.exact_multiserver": call("fcfs", 4, _SPLIT, 1.0, max_waiting=5),
    "analytic.splitting.FCFSBounds": RESULT,
    "analytic.splitting.fcfs_bounds": call(4, _SPLIT, 1.0, width=1e-6),
    "analytic.splitting.fcfs_saturation": call(4, _SPLIT),
    "analytic.splitting.figure1_systems": call((32, 256)),
    "analytic.splitting.figure1_load": call(256, 0.7, "as printed"),
    "analytic.splitting.figure2_heavy_traffic": call(256, (0.5,)),
    "analytic.splitting.figure2_subcritical": call(0.8, (32,)),
    "analytic.splitting.figure3_systems": call(_SPLIT, 8, (0.5,)),
    "analytic.splitting.gittins_rank": call(S("pareto"), [0.0, 1.0]),
    "analytic.splitting.multiserver_chain": call("fcfs", 4, _SPLIT, 1.0, max_waiting=5),
    "analytic.splitting.policies.gittins_table": call(S("pareto"), 16),
    "analytic.splitting.simulate_multiserver": call("bs-fcfs", 4, _SPLIT, 1.0, arrivals=2000, seed=1, executor=S("serial")),
    "analytic.splitting.sweep": call(S("systems"), ("fcfs",), arrivals=2000, executor=S("serial")),
}
BASELINES |= {
    "analytic.moldable.MoldableSimulation": RESULT,
    "analytic.moldable.simulate_moldable": call(S("speedup"), 0.5, 6, arrivals=4000, seed=1, executor=S("serial")),
    "analytic.moldable.paper.table1_simulation": call(S("speedup"), 0.5, 0.1, "exponential", 1, 20_000, 1),
    "analytic.simulation.difference": call(S("estimate"), S("estimate")),
    "analytic.simulation.laws.SizeLaw.cdf": method("mixture", [0.5, 1.0]),
    "analytic.simulation.laws.SizeLaw.excess_cdf": method("pareto", [0.5, 1.0]),
    "analytic.simulation.laws.SizeLaw.sample": method("discrete", np.random.default_rng(1), 5),
    "analytic.simulation.laws.SizeLaw.sample_excess": method("mixture", np.random.default_rng(1), 5),
    "analytic.simulation.laws.SizeLaw.scaled": method("pareto", 2.0),
    "analytic.simulation.laws.SizeLaw.to_phase_type": method("discrete", 4),
}

BASELINES = {ALIASES.get(key, key): entry for key, entry in BASELINES.items()}
INTERNAL = {ALIASES.get(key, key): reason for key, reason in INTERNAL.items()}


# --------------------------------------------------------------------------------------------------
# Bad values


class _Opaque:
    def __repr__(self) -> str:
        return "<object>"


#: Values that are never valid, whatever the parameter (None is added where not documented).
NEVER_VALID = ["abc", {"a": 1}, _Opaque(), 1 + 1j, float("nan"), [1.0, float("nan")], [1 + 2j, 1.0],
               [[1.0], [1.0, 2.0]]]
#: Values valid for some parameters: each must be refused cleanly or give a NaN-free result.
EDGE = [math.inf, -math.inf, 0, 0.0, -1, -1.5, 10**18, -(10**18), 0.5, True, 1e-300, [], [1.0, 2.0], (3,), "",
        np.array([2.0, 1.0]), np.float64(2.0), np.int64(3)]
#: Issue 28's families, swept for every parameter and as the last entry of every list of numbers: numbers at
#: the ends of the double range (the smallest subnormal and normal doubles, the largest finite magnitudes)
#: and integers beyond it, where a number is expected ...
EXTREME = [5e-324, 2.2e-308, 1.7e308, -1e308, 10**30, 10**400]
#: ... and a count (of states, servers, jobs) whose tables need more memory than the machine has.
HUGE_COUNT = 10**12
#: Parameters that scale the work asked for (run length, replications, sample size): a value of at least
#: HUGE_COUNT asks for that much work, a valid request, so a call still running after WORK_PROBE seconds
#: of CPU time is doing what it was asked (its tables are allocated at the start); exhausting memory or a
#: raw error is still a defect.
WORK = {"arrivals", "arrivals_per_replication", "jobs", "time", "replications", "runs", "warmup", "size", "count",
        "length", "total"}
#: ... and, for one function, a parameter that is not a count: ADGP's clocks tick at λ̂ e^(α f(h + Q)/β)
#: (Algorithm 4), so a large bias h asks for that many events (refused beyond 1e12 of them).
WORK_OF = {("analytic.partitioning.simulation.simulate_adgp", "h")}
WORK_PROBE = 1.0
#: Values left out for a parameter: the empty ``select`` of ``collect`` asks for the whole reproduce table
#: (tens of seconds).
SKIPPED = {"select": ("",)}
#: Parameters hypothesis does not draw: any text ``select`` picks the reproduce rows whose name contains
#: it (a letter or a digit picks dozens, minutes of work), which is its meaning, not a hang; the fixed
#: table still gives it every wrong type.
SELECTORS = {"select"}
#: Parameters that take any hashable value (the state of a chain built from a transition function, the
#: labels of a chain's states, a reference state and the state looked up: a complex number is a label
#: like any other, and 0j finds the state 0 as a dict does; NaN is refused, never found again).
ANY_HASHABLE = {("analytic.ctmc.CTMC.from_function", "initial"), ("analytic.ctmc.CTMC", "states"),
                ("analytic.ctmc.CTMC.stationary", "reference"), ("analytic.ctmc.CTMC.index", "state"),
                ("analytic.ctmc.CTMC.reachable", "initial"), ("analytic.ctmc.CTMC.transient", "initial"),
                ("analytic.ctmc.CTMC.limit", "initial"),
                ("analytic.ctmc.CTMC.transient_reward", "initial"), ("analytic.ctmc.CTMC.accumulated_reward", "initial"),
                ("analytic.ctmc.CTMC.passage_time", "initial"), ("analytic.ctmc.CTMC.reach_probability", "initial"),
                ("analytic.ctmc.CTMC.reward_until", "initial"),
                ("analytic.ctmc.Stationary.probability", "state")}


#: Text the package's own modules pass to shared checks, rendered as given in a message (not user input).
LABELS = {"name", "what", "meaning", "parameter", "shown", "quantity", "description", "advice"}
#: Options the package's modules set when they call the shared checks of analytic.validation.
CHECK_OPTIONS = {"minimum", "closed", "kind", "ndim", "allow_infinite", "allow_empty", "allow_nan", "length", "options",
                 "condition"}
#: Parameters whose errors name them as the user knows them: a table of speed-ups is "speedup", a
#: run of observations is "observations".
NAMED_AS = {"values": ("speedup",), "curve": ("speedup",), "simulated": ("observations",)}


def _allows_none(parameter: inspect.Parameter) -> bool:
    return parameter.default is None or "None" in str(parameter.annotation) or "object" in str(parameter.annotation)


def _allows_text(parameter: inspect.Parameter) -> bool:
    return "str" in str(parameter.annotation) or isinstance(parameter.default, str)


def _allows_mapping(parameter: inspect.Parameter) -> bool:
    return "Mapping" in str(parameter.annotation) or "dict" in str(parameter.annotation)


def _must_raise(parameter: inspect.Parameter, value: Any) -> bool:
    if isinstance(value, str):
        return not _allows_text(parameter)
    if isinstance(value, dict):
        return not _allows_mapping(parameter)
    if value is None:
        return not _allows_none(parameter)
    return not isinstance(value, (int, float)) or isinstance(value, complex) or (
        isinstance(value, float) and math.isnan(value)) or isinstance(value, list)


def _is_work(function: Callable, parameter: str, value: Any) -> bool:
    """Whether ``value`` asks ``parameter`` for a huge amount of work (which may run, see WORK)."""
    scales = parameter in WORK or (f"{function.__module__}.{function.__qualname__}", parameter) in WORK_OF
    return scales and _is_plain_number(value) and HUGE_COUNT <= value < math.inf


def _fixed_values(parameter: inspect.Parameter) -> Iterator[tuple[Any, bool]]:
    for value in [*NEVER_VALID, None]:
        yield value, _must_raise(parameter, value)
    for value in [*EDGE, *EXTREME, HUGE_COUNT]:
        if any(value is skipped or (type(value) is type(skipped) and value == skipped)
               for skipped in SKIPPED.get(parameter.name, ())):
            continue
        yield value, False


def _spoiled(value: Any) -> st.SearchStrategy:
    """Hypothesis: values near a baseline value that a user might pass by mistake."""
    floats = st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True)
    integers = st.integers(min_value=-(10**20), max_value=10**20)
    scalars = floats | integers | st.booleans() | st.none() | st.text(max_size=4) | st.complex_numbers(max_magnitude=10)
    nested = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4), max_leaves=8)
    choices = [scalars, nested]
    # a flat sequence (np.ndim would raise on a ragged one, such as from_lattice's moves)
    if isinstance(value, list | tuple | np.ndarray) and len(value) > 0 and not any(
            isinstance(entry, list | tuple | np.ndarray) for entry in value):
        entries = list(value)
        choices.append(st.tuples(st.integers(0, len(entries) - 1), scalars).map(
            lambda spot: [spot[1] if i == spot[0] else e for i, e in enumerate(entries)]))
    return st.one_of(choices)


# --------------------------------------------------------------------------------------------------
# Outcomes


def _nonfinite(value: Any, depth: int = 0, seen: set | None = None) -> str | None:
    """Where a result holds a NaN or a complex number (a walk over fields, sequences and arrays)."""
    seen = set() if seen is None else seen
    if depth > 6 or id(value) in seen:
        return None
    seen.add(id(value))
    if isinstance(value, bool | int | str | bytes) or value is None:
        return None
    if isinstance(value, complex | np.complexfloating):
        return f"complex {value!r}"
    if isinstance(value, float | np.floating):
        return "NaN" if math.isnan(value) else None
    if isinstance(value, np.ndarray):
        if np.iscomplexobj(value):
            return f"complex array {value!r:.80}"
        if value.dtype.kind == "f" and np.isnan(value).any():
            return "NaN in an array"
        if value.dtype == object:
            return next(filter(None, (_nonfinite(v, depth + 1, seen) for v in value.ravel()[:200])), None)
        return None
    if hasattr(value, "data") and hasattr(value, "indptr"):  # a sparse matrix
        return _nonfinite(np.asarray(value.data), depth + 1, seen)
    if isinstance(value, list | tuple):
        return next(filter(None, (_nonfinite(v, depth + 1, seen) for v in value[:200])), None)
    if isinstance(value, dict):
        return next(filter(None, (_nonfinite(v, depth + 1, seen) for v in list(value.values())[:200])), None)
    if dataclasses.is_dataclass(value):
        for field in dataclasses.fields(value):
            where = _nonfinite(getattr(value, field.name), depth + 1, seen)
            if where:
                return f"{type(value).__name__}.{field.name}: {where}"
    return None


class _Overtime(BaseException):
    """Raised by the alarm in a call that ran past SOFT_LIMIT (a BaseException: no except clause swallows it)."""


def _alarm(signum: int, frame: Any) -> None:
    raise _Overtime


class _CompilerPause(numba.core.event.Listener):
    """Stops the soft limit's clock while numba holds its compiler lock, and restarts it with the time left.

    The first Python code to run after LLVM's code generation is llvmlite's ctypes callback recording a
    kernel's object code, so an alarm expiring during compilation often raises there: ctypes prints and
    swallows the exception, and numba, saving a kernel whose object code it never recorded, raises
    "RuntimeError: no compiled object yet for <Library ...>". A call that merely compiled a kernel its
    baseline never reached was reported as a raw error (or as a hang). The lock is re-entrant and each
    acquisition is an event: the depth counts them.
    """

    def __init__(self) -> None:
        self.depth, self.left = 0, 0.0

    def on_start(self, event: Any) -> None:
        if self.depth == 0:
            self.left = signal.setitimer(signal.ITIMER_PROF, 0)[0]
        self.depth += 1

    def on_end(self, event: Any) -> None:
        self.depth -= 1
        if self.depth == 0 and self.left > 0:
            signal.setitimer(signal.ITIMER_PROF, self.left)


@contextlib.contextmanager
def _soft_limit(seconds: float = SOFT_LIMIT) -> Iterator[None]:
    """Raise _Overtime once the body has used ``seconds`` of this process's CPU time (compiling aside)."""
    signal.signal(signal.SIGPROF, _alarm)
    with numba.core.event.install_listener("numba:compiler_lock", _CompilerPause()):
        signal.setitimer(signal.ITIMER_PROF, seconds)
        try:
            yield
        except SystemError as error:   # the alarm went off as compiled code returned: numba reports it so
            if isinstance(error.__cause__, _Overtime):
                raise error.__cause__ from None
            raise
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)


def _materialize(result: Any) -> Any:
    if isinstance(result, types.GeneratorType | Iterator):
        return list(itertools.islice(result, 50))
    return result


def judge(baseline: Call, parameter: str | None, value: Any, must_raise: bool) -> str | None:
    """Run the baseline with ``parameter`` replaced by ``value``; the defect found, or None."""
    signature = inspect.signature(baseline.function)
    bound = signature.bind_partial(*baseline.args, **baseline.kwargs)
    if parameter is not None:
        bound.arguments[parameter] = value
    if parameter is not None and _is_work(baseline.function, parameter, value):
        return _work_probe(lambda: _verdict(baseline, signature, bound, parameter, must_raise, contextlib.nullcontext()))
    return _verdict(baseline, signature, bound, parameter, must_raise, _soft_limit(SOFT_LIMIT))


def _work_probe(verdict: Callable[[], str | None]) -> str | None:
    """``verdict()`` in a forked process, stopped after WORK_PROBE seconds of CPU time: a call asked for a huge
    amount of work (WORK) is then doing what it was asked. It is killed from outside: an exception raised into
    the call by a CPU-time signal, as in _soft_limit, crashed the process in compiled code now and then
    (SIGSEGV in 1 of 30 runs of simulate_point at 10**12 arrivals)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the probe
        os.close(read)
        try:
            os.write(write, json.dumps([verdict()]).encode())
        finally:
            os._exit(0)
    os.close(write)
    start = time.monotonic()
    with os.fdopen(read, "rb", buffering=0) as pipe:
        while not select.select([pipe], [], [], 0.05)[0]:
            if _cpu_seconds(pid) > WORK_PROBE or time.monotonic() - start > WALL_BACKSTOP:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return None
        answer = b"".join(iter(lambda: pipe.read(65536), b""))
    _, status = os.waitpid(pid, 0)
    if answer:
        return json.loads(answer)[0]
    return f"the process died of signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else "the process ended early"


def _verdict(baseline: Call, signature: inspect.Signature, bound: inspect.BoundArguments, parameter: str | None,
             must_raise: bool, limit: contextlib.AbstractContextManager) -> str | None:
    """The call's defect, or None: run under ``limit``."""
    try:
        with limit:
            result = _materialize(baseline.function(*bound.args, **bound.kwargs))
    except _Overtime:
        return f"still running after {SOFT_LIMIT:g} s of CPU time (a hang)"
    except MemoryError as error:
        return f"MemoryError ({_where(error)}): exhausted the capped address space instead of refusing before allocating"
    except ConvergenceError as error:
        return f"ConvergenceError ({_where(error)}): {error}"
    except InvalidParameterError as error:
        if parameter is None:
            return f"the valid baseline call raised {error}"
        label = bound.arguments.get("name")  # the shared checks of analytic.validation name the parameter so
        named = (parameter, *NAMED_AS.get(parameter, ()), *([label] if isinstance(label, str) else []))
        # a valid-looking value may clash with another argument, and the message may name that one
        others = () if must_raise else tuple(signature.parameters)
        if not any(name in str(error) for name in (*named, *others)):
            return f"InvalidParameterError not naming {parameter!r}: {error}"
        return None
    except AnalyticError as error:
        return f"the valid baseline call raised {error}" if parameter is None else None
    except Exception as error:  # the defect this module exists to find
        return f"raw {type(error).__name__} ({_where(error)}): {str(error)[:300]}"
    if must_raise:
        return f"accepted without an error (returned {_short(result)})"
    where = _nonfinite(result)
    return f"returned a result with {where}" if where else None


def _where(error: BaseException) -> str:
    """The traceback's last frame, and the package's last one when it is in a library: file:line in function."""
    frames = traceback.extract_tb(error.__traceback__)
    own = [frame for frame in frames if f"{os.sep}analytic{os.sep}" in frame.filename]
    shown = [frames[-1], *own[-1:]] if own and own[-1] is not frames[-1] else frames[-1:]
    return ", from ".join(f"{os.path.relpath(frame.filename)}:{frame.lineno} in {frame.name}" for frame in shown)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 100 else text[:97] + "..."


def _swept(signature: inspect.Signature, key: str) -> list[inspect.Parameter]:
    fixed = LABELS | (CHECK_OPTIONS if key.startswith("analytic.validation.") else set())
    return [p for p in signature.parameters.values()
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name not in fixed]


def _perturbations(key: str, baseline: Call) -> Iterator[tuple[str, Any, bool]]:
    signature = inspect.signature(baseline.function)
    arguments = signature.bind_partial(*baseline.args, **baseline.kwargs).arguments
    for parameter in _swept(signature, key):
        for value, must_raise in _fixed_values(parameter):
            yield parameter.name, value, must_raise and (key, parameter.name) not in ANY_HASHABLE
        given = arguments.get(parameter.name)
        if isinstance(given, list | tuple) and given and all(_is_plain_number(v) for v in given):
            for value in [*EXTREME, HUGE_COUNT]:      # the families as one entry of a list that is otherwise right
                yield parameter.name, type(given)([*given[:-1], value]), False


def _explore(key: str, baseline: Call, report: Callable[[str], None], start: Callable[[str], None]) -> None:
    """Hypothesis draws; work parameters (run lengths) are left to the fixed table, where huge values are skipped.

    ``start`` announces each draw to the parent, whose limits count from it; ``report`` a defect. A failing
    draw is reported as drawn, not shrunk: shrinking a call over SOFT_LIMIT walks it down to one that takes
    just SOFT_LIMIT, which the replay may then pass, and once a draw fails hypothesis traces every later
    call (``sys.settrace`` before Python 3.12: Python code runs about twice as slowly) but not the replay.
    The drawn servers = 7296653 of ``random_assignment`` (minutes of CPU time) so shrank to 94519, 5 s
    traced and 2.2 s in the replay: a FlakyFailure, which stopped the whole sweep.
    """
    signature = inspect.signature(baseline.function)
    names = [p.name for p in _swept(signature, key) if p.name not in WORK | SELECTORS]
    if not names:
        return
    arguments = signature.bind_partial(*baseline.args, **baseline.kwargs).arguments

    @settings(max_examples=EXPLORE_EXAMPLES, deadline=None, database=None, derandomize=True,
              phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
    @given(st.data())
    def explore(data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(names), label="parameter")
        value = data.draw(_spoiled(arguments.get(name)), label="value")
        parameter = signature.parameters[name]
        never = ((value is not None and _never_valid(value)) or (value is None and not _allows_none(parameter))) and (
            key, name) not in ANY_HASHABLE
        start(f"hypothesis: {name} = {_short(value)}")
        defect = judge(baseline, name, value, must_raise=never)
        assert defect is None, f"{name} = {_short(value)}: {defect}"

    try:
        explore()
    except AssertionError as failure:
        report(str(failure).splitlines()[0])
    except FlakyFailure as failure:  # a draw near a limit: failed once, passed when replayed
        report(f"{str(failure.exceptions[0]).splitlines()[0]} (once: the replay passed)")


def _never_valid(value: Any) -> bool:
    if isinstance(value, complex) or (isinstance(value, float) and math.isnan(value)):
        return True
    if isinstance(value, list):
        return any(_never_valid(v) for v in value)
    return False


# --------------------------------------------------------------------------------------------------
# The sweep runs in a forked child: capped memory, killable when a compiled loop hangs


def _child(key: str, write: int) -> None:
    def send(kind: str, text: str = "") -> None:
        os.write(write, (json.dumps([kind, text]) + "\n").encode())

    used = int(open("/proc/self/statm").read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (used + MEMORY_CAP, hard))
    np.seterr(all="ignore")
    try:
        baseline = BASELINES[key](PUBLIC[key])
    except Exception as error:
        send("defect", f"the baseline itself fails to build: {type(error).__name__}: {error}")
        return
    send("start", "baseline")
    defect = judge(baseline, None, None, False)
    if defect:
        send("defect", f"baseline call: {defect}")
        return
    for parameter, value, must_raise in _perturbations(key, baseline):
        send("start", f"{parameter} = {_short(value)}")
        defect = judge(baseline, parameter, value, must_raise)
        if defect:
            send("defect", f"{parameter} = {_short(value)}: {defect}")
    _explore(key, baseline, lambda text: send("defect", text), lambda text: send("start", text))


def _cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far (Linux: fields 14 and 15 of /proc/<pid>/stat)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def sweep(key: str) -> list[str]:
    """Defects the sweep finds in one callable (empty when it answers every input well)."""
    try:  # once in this process: shared objects and compiled (numba) loops are then inherited, not rebuilt per child
        baseline = BASELINES[key](PUBLIC[key])
        _materialize(baseline.function(*baseline.args, **baseline.kwargs))
    except Exception:
        pass
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read)
        try:
            _child(key, write)
            os.write(write, b'["done", ""]\n')
        except BaseException as error:  # reported to the parent, which fails the test
            os.write(write, (json.dumps(["stopped", f"the sweep stopped: {type(error).__name__}: {error}"]) + "\n").encode())
        finally:
            os._exit(0)
    os.close(write)
    defects, current, buffer, finished, killed = [], "", b"", False, False
    since, cpu_before = time.monotonic(), 0.0
    with os.fdopen(read, "rb", buffering=0) as pipe:
        while True:
            ready, _, _ = select.select([pipe], [], [], 1.0)
            if not ready:  # the child computes, or waits: measure the call's CPU time, and its wall time as a backstop
                cpu, waited = _cpu_seconds(pid) - cpu_before, time.monotonic() - since
                if cpu > HARD_LIMIT or waited > WALL_BACKSTOP:
                    os.kill(pid, signal.SIGKILL)
                    killed = True
                    defects.append(f"{current}: no answer after {cpu:.0f} s of CPU time and {waited:.0f} s of wall time ("
                                   + ("a hang in compiled code)" if cpu > HARD_LIMIT else "blocked without computing)"))
                    break
                continue
            chunk = pipe.read(65536)
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                kind, text = json.loads(line)
                if kind == "start":
                    current, since, cpu_before = text, time.monotonic(), _cpu_seconds(pid)
                elif kind == "done":
                    finished = True
                else:  # a defect, or the exception that stopped the child (its last word: it did not die early)
                    defects.append(text)
                    finished = finished or kind == "stopped"
    _, status = os.waitpid(pid, 0)
    if not finished and not killed:
        how = f"died of signal {os.WTERMSIG(status)} (memory exhaustion?)" if os.WIFSIGNALED(status) else "ended early"
        defects.append(f"{current}: the process {how} before the sweep finished")
    return defects


# --------------------------------------------------------------------------------------------------
# Tests


def test_every_public_callable_has_a_baseline():
    missing = sorted(set(PUBLIC) - set(BASELINES) - set(INTERNAL))
    stale = sorted((set(BASELINES) | set(INTERNAL)) - set(PUBLIC))
    assert not missing, f"exported without a baseline in tests/contract/test_bad_input.py: {missing}"
    assert not stale, f"baselines of names no longer exported: {stale}"


SWEPT = sorted(key for key in PUBLIC if key in BASELINES and BASELINES[key] != RESULT)


@pytest.fixture(scope="module", autouse=True)
def compiled_solver():
    """Compile the GTH kernels once in this process before any child is forked.

    A perturbed argument can reach them where the baseline does not (``transient`` at t = 10**18
    returns the stationary law): with an empty numba cache, as on a fresh install, every child would
    compile them anew (17 s of CPU time each; left out of the soft limit, but not of the run's length).
    """
    from analytic.ctmc import CTMC

    CTMC([[0, 1.0], [2.0, 0]]).stationary()


#: The sweep takes one to ten seconds per callable (a forked child, about eighty calls): the development lane
#: (``pytest -m "not slow"``) sweeps only these, whose sweeps take a fraction of a second; the full suite sweeps all.
QUICK_SWEEPS = {"analytic.memory.available_bytes", "analytic.simulation.SerialExecutor", "analytic.simulation.chunks",
                "analytic.splitting.ClassEstimates.estimate"}


@pytest.mark.parametrize("key", [key if key in QUICK_SWEEPS else pytest.param(key, marks=pytest.mark.slow) for key in SWEPT])
def test_bad_input_is_refused_cleanly(key):
    defects = sweep(key)
    assert not defects, f"{key}:\n  " + "\n  ".join(defects)


# --------------------------------------------------------------------------------------------------
# Entries inside well-formed arguments: one number at a time, in every numeric argument of every baseline
#
# The sweep above replaces whole arguments; a hostile user also spoils one entry of a list that is otherwise
# right, or passes a number of another type. The one rule (analytic.validation.as_number): a bool, a complex
# number or text is never a number and must be refused by an InvalidParameterError naming the parameter, inside
# a list as on its own; NaN inside a list must be refused too. A numpy scalar, a 0-d array, a Fraction or a
# Decimal with the same value is the same number: the call must give the same answer as with the plain value
# (reference: the baseline call itself), or be refused exactly when the plain float would be (an integer
# parameter refuses 2.0, and so Fraction(2)).


def _is_plain_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _same_number(value: Any) -> list[tuple[str, Any]]:
    """Other spellings of the number ``value``: (label, value)."""
    import decimal
    from fractions import Fraction

    numpy_type = np.int64 if isinstance(value, int) else np.float64
    spellings = [("numpy scalar", numpy_type(value)), ("0-d array", np.array(value)), ("Fraction", Fraction(value)),
                 ("Decimal", decimal.Decimal(repr(value)) if isinstance(value, float) else decimal.Decimal(value))]
    return [(label, v) for label, v in spellings if not (isinstance(value, int) and abs(value) > 2**62 and label != "Fraction")]


def _spoiled_entries(value: Any) -> list[tuple[str, Any]]:
    return [("bool", True), ("text", "2"), ("complex", complex(value, 1.0)), ("NaN", math.nan)]


def _numeric_slots(baseline: Call, key: str) -> Iterator[tuple[str, Any, Callable[[Any], Any]]]:
    """(parameter, its baseline value, a function putting a replacement in its place or in its last entry)."""
    signature = inspect.signature(baseline.function)
    arguments = signature.bind_partial(*baseline.args, **baseline.kwargs).arguments
    for parameter in _swept(signature, key):
        if parameter.name in WORK or "bool" in str(parameter.annotation) or (key, parameter.name) in ANY_HASHABLE:
            continue
        value = arguments.get(parameter.name)
        if _is_plain_number(value):
            yield parameter.name, value, lambda replacement: replacement
        elif isinstance(value, list | tuple) and value and all(_is_plain_number(v) for v in value):
            yield (f"{parameter.name}[-1]", value[-1],
                   lambda replacement, value=value: type(value)([*value[:-1], replacement]))


def _results_differ(a: Any, b: Any, depth: int = 0) -> str | None:
    """Where two results differ beyond 1e-12 relative (a walk over fields, sequences and arrays; other objects pass)."""
    if depth > 5:
        return None
    if isinstance(a, bool | str | int) or a is None:
        return None if a == b else f"{a!r} != {b!r}"
    if isinstance(a, float | np.floating | np.ndarray) and not (isinstance(a, np.ndarray) and a.dtype == object):
        try:
            same = np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-12, atol=1e-300, equal_nan=True)
        except (TypeError, ValueError):
            same = False
        return None if same else f"{_short(a)} != {_short(b)}"
    if isinstance(a, list | tuple):
        if not isinstance(b, list | tuple) or len(a) != len(b):
            return "lengths differ"
        return next(filter(None, (_results_differ(x, y, depth + 1) for x, y in zip(a[:50], b[:50], strict=True))), None)
    if dataclasses.is_dataclass(a) and type(a) is type(b):
        for field in dataclasses.fields(a):
            where = _results_differ(getattr(a, field.name), getattr(b, field.name), depth + 1)
            if where:
                return f"{field.name}: {where}"
    return None


def judge_entry(baseline: Call, parameter: str, place: Callable[[Any], Any], label: str, replacement: Any,
                plain: Any, reference: Any) -> str | None:
    """The defect of calling the baseline with ``replacement`` put in place (None when it is answered well)."""
    name = parameter.split("[")[0]
    signature = inspect.signature(baseline.function)

    def run(value: Any) -> Any:
        bound = signature.bind_partial(*baseline.args, **baseline.kwargs)
        bound.arguments[name] = place(value)
        return _materialize(baseline.function(*bound.args, **bound.kwargs))

    spoiled = label in ("bool", "text", "complex", "NaN")
    try:
        with _soft_limit():
            result = run(replacement)
    except _Overtime:
        return f"{label} {_short(replacement)}: still running after {SOFT_LIMIT:g} s of CPU time"
    except InvalidParameterError as error:
        if spoiled:
            return None if name in str(error) or NAMED_AS.get(name, ("",))[0] in str(error) else (
                f"{label}: InvalidParameterError not naming {name!r}: {error}")
        try:  # refused only where the plain value is (a Fraction or a Decimal as its float: 2.0 is no integer)
            run(float(plain) if label in ("Fraction", "Decimal") else plain)
        except InvalidParameterError:
            return None
        return f"{label} {_short(replacement)} refused where {plain!r} is accepted: {error}"
    except AnalyticError:
        return None
    except Exception as error:
        return f"{label} {_short(replacement)}: raw {type(error).__name__} ({_where(error)}): {str(error)[:200]}"
    if spoiled:
        return f"{label} {_short(replacement)} accepted without an error (returned {_short(result)})"
    where = _results_differ(result, reference)
    return f"{label} {_short(replacement)}: a different answer than with {plain!r}: {where}" if where else None


#: The shared checks themselves are tested in tests/test_validation.py.
ENTRY_SWEPT = [key for key in SWEPT if not key.startswith(("analytic.validation.", "analytic.memory."))]


#: The callables whose entries take over a second to check: left out of the development lane.
SLOW_ENTRIES = {"analytic.ctmc.CTMC.reward_until", "analytic.fairness.symbolic_check",
    "analytic.hesrpt.symbolic_check", "analytic.reproduce.collect"}


@pytest.mark.parametrize("key", [pytest.param(key, marks=pytest.mark.slow) if key in SLOW_ENTRIES else key
                                 for key in ENTRY_SWEPT])
def test_entries_inside_arguments_follow_the_one_number_rule(key):
    """Every numeric argument and the last entry of every numeric list, spelled as another kind of the same number
    (same answer) and spoiled by a bool, text, a complex number and NaN (refused, naming the parameter)."""
    np.seterr(all="ignore")
    baseline = BASELINES[key](PUBLIC[key])
    reference = _materialize(baseline.function(*baseline.args, **baseline.kwargs))
    defects = []
    for parameter, plain, place in _numeric_slots(baseline, key):
        for label, replacement in [*_same_number(plain), *_spoiled_entries(plain)]:
            if label == "NaN" and not parameter.endswith("]"):
                continue          # a NaN scalar is swept by test_bad_input_is_refused_cleanly
            defect = judge_entry(baseline, parameter, place, label, replacement, plain, reference)
            if defect:
                defects.append(f"{parameter}: {defect}")
    assert not defects, f"{key}:\n  " + "\n  ".join(defects)


