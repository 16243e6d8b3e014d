"""Graph jobs on slotted machines: ``graph-gamma``, ``graph-pi-star`` and ``graph-static``."""

from __future__ import annotations

import argparse

from analytic.cli.output import Report, add_command, edge, number, numbers

PAPER = "Ghaderi, Shakkottai & Srikant, 'Scheduling Storms and Streams in the Cloud'"


def _model(args: argparse.Namespace):
    from analytic.partitioning import Cluster, GraphJob

    return Cluster(args.slots), GraphJob(args.nodes, args.edges, args.arrival_rate, args.service_rate)


def _law_report(law, title: str) -> Report:
    costs, probabilities = law.cost_distribution()
    lines = [f"{title}: {len(law.log_probabilities)} states for {law.configurations.configuration_count} configurations",
             f"mean number of templates {numbers(law.expected_templates)}, "
             f"mean partition cost {number(law.expected_cost)}",
             "cost law: " + ", ".join(f"P(cost = {number(c)}) = {p:.6g}" for c, p in zip(costs, probabilities, strict=True))]
    data = {"states": len(law.log_probabilities), "configurations": law.configurations.configuration_count,
            "expected_templates": law.expected_templates, "expected_cost": law.expected_cost,
            "cost_law": {"costs": costs, "probabilities": probabilities}, "log_normalizer": law.log_normalizer}
    return Report(lines, data)


def _gamma(args: argparse.Namespace) -> Report:
    from analytic.partitioning import loss_distribution

    return _law_report(loss_distribution(*_model(args)), "γ of eq. (14), the loss system's stationary law")


def _pi_star(args: argparse.Namespace) -> Report:
    from analytic.partitioning import dgp_distribution

    law = dgp_distribution(*_model(args), queue_weights=args.queue_weights, beta=args.beta)
    return _law_report(law, f"π* of eq. (15) at queue weight {number(args.queue_weights)}, β = {number(args.beta)}")


def _static(args: argparse.Namespace) -> Report:
    from analytic.partitioning import static_partitioning

    result = static_partitioning(*_model(args), solver=args.solver)
    lines = [f"static partitioning problem (Definition 2, {result.solver}): G(x*) = {number(result.cost)}",
             f"capacity margin δ* = {number(result.delta_star)} (interior: {result.interior})"]
    lines += [f"  templates {list(n)}: time fraction {fraction:.6g}, cost {number(cost)}"
              for n, fraction, cost in result.time_sharing]
    data = {"cost": result.cost, "delta_star": result.delta_star, "interior": result.interior,
            "time_sharing": result.time_sharing, "throughput": result.throughput, "solver": result.solver}
    return Report(lines, data)


def _add_model(command: argparse.ArgumentParser) -> None:
    command.add_argument("--slots", type=int, nargs="+", required=True, metavar="F", help="slots of each machine")
    command.add_argument("--nodes", type=int, required=True, help="nodes of the graph job (one slot each)")
    command.add_argument("--edges", type=edge, nargs="*", default=[], metavar="U-V", help="edges, e.g. 0-1 1-2")
    command.add_argument("--arrival-rate", type=float, default=1.0, help="arrival rate λ of the jobs (default 1)")
    command.add_argument("--service-rate", type=float, default=1.0, help="service rate μ of the jobs (default 1)")


def add(commands: argparse._SubParsersAction) -> None:
    """Register the graph-partitioning commands."""
    _add_model(add_command(
        commands, "graph-gamma", "Stationary law γ of the loss system of graph jobs",
        f"{PAPER}: γ of eq. (14) (Proposition 1) on the configurations of a cluster, counted up to identical "
        f"slots and machines: mean templates and the law of the partition cost (eq. 2).", _gamma))
    command = add_command(
        commands, "graph-pi-star", "Stationary law π* of DGP with frozen queue weights",
        f"{PAPER}: π* of eq. (15), the stationary law of DGP-bar, which maximises (13): mean templates and the "
        f"law of the partition cost.", _pi_star)
    _add_model(command)
    command.add_argument("--queue-weights", type=float, required=True, metavar="Q", help="queue weight f(Q) of the job type")
    command.add_argument("--beta", type=float, required=True, help="the trade-off parameter β > 0")
    command = add_command(
        commands, "graph-static", "The static partitioning problem",
        f"{PAPER}: G(x*) of Definition 2, the least mean partition cost that serves the load, by a linear program "
        f"over time-sharings of configurations, and the capacity margin δ*.", _static)
    _add_model(command)
    command.add_argument("--solver", choices=("highs", "cvxpy"), default="highs", help="LP solver (default highs)")
