"""Balanced fairness in computer clusters: ``fairness-stability`` and ``fairness-metrics``."""

from __future__ import annotations

import argparse

from analytic.cli.output import Report, add_command, integers, number, numbers

PAPER = ("Bonald & Comte, 'Balanced Fair Resource Sharing in Computer Clusters', Performance Evaluation 2017 "
         "(HAL hal-01581786)")


def _graph(args: argparse.Namespace):
    from analytic.fairness import CompatibilityGraph

    return CompatibilityGraph(args.servers_of, args.capacities)


def _stability(args: argparse.Namespace) -> Report:
    from analytic.fairness import stability

    result = stability(_graph(args), args.arrival_rates)
    verdict = "stable" if result.stable else "unstable"
    lines = [f"load {number(result.load)}: {verdict} (Theorem 1)",
             f"bottleneck classes {list(result.bottleneck)}: arrival rate {number(result.arrival_rate)} against "
             f"service rate {number(result.service_rate)}"]
    return Report(lines, result)


def _metrics(args: argparse.Namespace) -> Report:
    from analytic.fairness import balanced_fairness, oi_queue_law

    graph = _graph(args)
    exact = balanced_fairness(graph, args.arrival_rates, args.mean_size)
    law = None if args.max_jobs is None else oi_queue_law(
        graph, args.arrival_rates, args.max_jobs, args.interruptions, args.size, method=args.method,
        tolerance=args.tolerance)
    lines = [f"balanced fairness, load {number(exact.load)}, P(empty) = {number(exact.probability_empty)}",
             f"{'class':>5} {'E[x_i]':>16} {'response time':>16} {'service rate':>16}"]
    lines += [f"{i:>5} {number(x):>16} {number(d):>16} {number(g):>16}"
              for i, (x, d, g) in enumerate(zip(exact.mean_jobs, exact.mean_response_time, exact.mean_service_rate, strict=True))]
    data = {"balanced_fairness": exact}
    if law is not None:
        lines += [f"job-sequence chain with {number(args.interruptions)} interruptions per job, at most {args.max_jobs} "
                  f"jobs ({law.n_states} states, blocking {law.blocking:.3g}):",
                  f"E[x_i] = {numbers(law.mean_jobs)}, response time = {numbers(law.mean_response_time)}"]
        data["chain"] = {"interruptions": args.interruptions, "max_jobs": args.max_jobs, "n_states": law.n_states,
                         "blocking": law.blocking, "mean_jobs": law.mean_jobs, "mean_response_time": law.mean_response_time}
    return Report(lines, data)


def _add_graph(command: argparse.ArgumentParser) -> None:
    command.add_argument("--servers-of", type=integers, nargs="+", required=True, metavar="S,S,...",
                         help="for each class, the servers it may use (e.g. --servers-of 0,2 1,2)")
    command.add_argument("--capacities", type=float, nargs="+", required=True, metavar="MU",
                         help="service capacity of each server")
    command.add_argument("--arrival-rates", type=float, nargs="+", required=True, metavar="LAMBDA",
                         help="arrival rate of each class")


def add(commands: argparse._SubParsersAction) -> None:
    """Register the balanced-fairness commands."""
    _add_graph(add_command(
        commands, "fairness-stability", "Stability of a multi-server queue with a compatibility graph",
        f"{PAPER}: Theorem 1, the load max over sets of classes A of λ(A)/μ(A) by one linear program and a "
        f"minimum cut, and the bottleneck set.", _stability))
    command = add_command(
        commands, "fairness-metrics", "Exact mean numbers of jobs, response times and service rates under balanced fairness",
        f"{PAPER}: the stationary means of eqs. (9)-(11) summed exactly over the sets of classes; with --max-jobs, "
        f"also the truncated job-sequence chain of Algorithm 1 with random interruptions.", _metrics, solves_chain=True)
    _add_graph(command)
    command.add_argument("--mean-size", type=float, default=1.0, help="mean job size σ (default 1)")
    command.add_argument("--max-jobs", type=int, default=None, help="also solve the job-sequence chain up to this many jobs")
    command.add_argument("--interruptions", type=float, default=0.0, help="interruptions per job in the chain (default 0)")
    command.add_argument("--size", default=None, choices=("exponential", "mixed_erlang"),
                         help="job-size law of the chain (default exponential)")
