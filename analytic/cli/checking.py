"""Checking simulations against exact values: ``simulate`` and ``compare``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from analytic.cli.output import SIZE_LAWS, Renamed, Report, UsageError, add_command, interval, number

SIMULATE = ("The Erlang loss system M/GI/s/s run by the package's simulator (the loss system of Ghanbarian, "
            "Mukhopadhyay, Mazumdar & Guillemin, 'On Optimal Server Allocation for Moldable Jobs with Concave "
            "Speed-Up', with one server per job), its blocking probability with a confidence interval, compared "
            "with Erlang's formula E_s(a), which holds for every job-size law (insensitivity).")
COMPARE = ("Your own simulation against an exact value: raw observations in simulation order (one per job: "
           "response times, 0/1 blocking indicators, ...) grouped into batch means, or an estimate with its "
           "half-width; prints the z-score, the p-value and whether the exact value lies in the interval "
           "(analytic.simulation.compare).")

#: Estimation methods, spelled without spaces, and the names :class:`~analytic.simulation.Estimate` uses.
ESTIMATE_METHODS = {"batch-means": "batch means", "replications": "independent replications"}


def _comparison_report(comparison, lines: list[str]) -> Report:
    estimate = comparison.estimate
    lines = [*lines,
             f"estimate {interval(estimate.value, estimate.half_width)} ({estimate.level:.0%}, {estimate.samples} "
             f"{estimate.method}) against exact {number(comparison.exact)}",
             f"z = {comparison.z:.4g}, p-value = {comparison.p_value:.4g}: {comparison.verdict}"]
    data = {"value": estimate.value, "half_width": estimate.half_width, "level": estimate.level,
            "method": estimate.method, "samples": estimate.samples, "exact": comparison.exact, "z": comparison.z,
            "p_value": comparison.p_value, "agrees": comparison.agrees, "verdict": comparison.verdict}
    return Report(lines, data)


def _simulate(args: argparse.Namespace) -> Report:
    from analytic.erlang import erlang_b
    from analytic.moldable import simulate_moldable
    from analytic.simulation import compare
    from analytic.speedup import SpeedupTable
    from analytic.validation import integer, positive

    servers = integer("servers", args.servers)
    rate = positive("load", args.load) / servers
    exact = erlang_b(servers, args.load)
    sim = simulate_moldable(SpeedupTable([1.0]), rate, servers, size=args.size, arrivals=args.arrivals,
                            replications=args.replications, seed=args.seed)
    comparison = compare(sim.blocking, exact)
    lines = [f"M/GI/{servers}/{servers} at load {args.load:g}, {args.size} sizes: {sim.arrivals:,} arrivals, seed {sim.seed}",
             f"blocking probability simulated {interval(sim.blocking.value, sim.blocking.half_width)}, Erlang B "
             f"{number(exact)}"]
    report = _comparison_report(comparison, lines)
    return Report(report.lines, {"servers": servers, "load": args.load, "size": args.size, "arrivals": sim.arrivals,
                                 "seed": sim.seed, **report.data})


def _observations(path: str) -> list[float]:
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    values = []
    for token in text.split():
        try:
            values.append(float(token))
        except ValueError:
            raise UsageError(f"{path}: not a number: {token!r}") from None
    return values


def _compare(args: argparse.Namespace) -> Report:
    from analytic.simulation import Estimate, compare

    if (args.observations is None) == (args.estimate is None):
        raise UsageError("give either --observations FILE or --estimate VALUE with --half-width and --samples")
    if args.estimate is not None:
        if args.half_width is None or args.samples is None:
            raise UsageError("--estimate needs --half-width and --samples")
        simulated = Estimate(args.estimate, args.half_width, args.level, ESTIMATE_METHODS[args.method], args.samples)
        return _comparison_report(compare(simulated, args.exact), [])
    values = _observations(args.observations)
    comparison = compare(values, args.exact, level=args.level, batches=args.batches, warmup=args.warmup)
    return _comparison_report(comparison, [f"{len(values):,} observations"])


def add(commands: argparse._SubParsersAction) -> None:
    """Register ``simulate`` and ``compare``."""
    command = add_command(commands, "simulate", "Simulate the Erlang loss system and check it against Erlang's formula",
                          SIMULATE, _simulate)
    command.add_argument("--servers", type=int, required=True, metavar="S", help="number of servers s")
    command.add_argument("--load", type=float, required=True, metavar="A", help="offered load a in Erlangs, at most s")
    command.add_argument("--size", choices=SIZE_LAWS, default="exponential", help="job-size law (unit mean)")
    command.add_argument("--arrivals", "--jobs", type=int, default=100_000, action=Renamed,
                         help="arrivals to simulate (default 100000; --jobs is its old name)")
    command.add_argument("--replications", type=int, default=1, help="independent replications (default 1: batch means)")
    command.add_argument("--seed", type=int, default=None, help="seed (default: fresh, printed)")
    command = add_command(commands, "compare", "Compare a simulation's output with an exact value", COMPARE, _compare)
    command.add_argument("--exact", type=float, required=True, help="the exact value")
    command.add_argument("--observations", metavar="FILE", help="file of observations separated by white space (- for stdin)")
    command.add_argument("--batches", type=int, default=20, help="batches of the batch-means estimate (default 20)")
    command.add_argument("--warmup", type=int, default=0, help="observations dropped at the start (default 0)")
    command.add_argument("--estimate", type=float, metavar="VALUE", help="a point estimate instead of observations")
    command.add_argument("--half-width", type=float, help="half-width of the estimate's interval")
    command.add_argument("--samples", type=int, help="replications or batches behind the estimate")
    command.add_argument("--method", choices=tuple(ESTIMATE_METHODS), default="batch-means",
                         help="how the estimate was formed (default batch-means)")
    command.add_argument("--level", type=float, default=0.95, help="confidence level (default 0.95)")
