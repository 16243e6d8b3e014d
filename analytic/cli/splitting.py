"""Balanced Splitting and the multiserver-job queue: ``bs-partition``, ``multiserver-simulate``,
``multiserver-exact`` and ``multiserver-saturation``."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from analytic.cli.output import Renamed, Report, add_command, interval, number, numbers

if TYPE_CHECKING:
    from analytic.simulation import Estimate

PAPER = ("Anselmi & Doncel, 'Balanced Splitting: A Framework for Achieving Zero-wait in the Multiserver-job Model', "
         "IEEE TPDS 2024 (HAL hal-04713929)")

#: The policies of :data:`analytic.splitting.POLICIES` (simulated) and :data:`analytic.splitting.EXACT_POLICIES`.
POLICIES = ("fcfs", "ffbf", "maxweight", "bs-fcfs", "modified-bs-fcfs", "msf", "server-filling", "server-filling-srpt",
            "server-filling-gittins", "ff-srpt")
EXACT_POLICIES = ("fcfs", "bs-fcfs", "modified-bs-fcfs", "msf")


def _job_class(text: str) -> tuple[int, float, float, float | None]:
    """``"NEED:PROBABILITY:MEAN[:STD]"`` as the arguments of a :class:`~analytic.splitting.RigidClass`."""
    parts = text.split(":")
    try:
        if len(parts) not in (3, 4):
            raise ValueError
        return int(parts[0]), float(parts[1]), float(parts[2]), float(parts[3]) if len(parts) == 4 else None
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid class: {text!r} (NEED:PROBABILITY:MEAN[:STD], "
                                         f"e.g. 2:0.4:1.5)") from None


def _classes(args: argparse.Namespace) -> tuple:
    from analytic.splitting import KIT_FH2, SDSC_SP2, RigidClass

    if args.classes is not None:
        return {"sdsc-sp2": SDSC_SP2, "kit-fh2": KIT_FH2}[args.classes]
    return tuple(RigidClass(*fields) for fields in args.job_class)


def _arrival_rate(args: argparse.Namespace, classes: tuple) -> float:
    """λ as given, or from the load ρ = λ ϱ / k of eq. (1)."""
    from analytic.validation import positive

    if args.arrival_rate is not None:
        return args.arrival_rate
    return positive("load", args.load) * args.servers / float(sum(c.demand for c in classes))


def _partition(args: argparse.Namespace) -> Report:
    from analytic.splitting import balanced_partition, helper_probability_bound, stability_margin

    classes = _classes(args)
    partition = balanced_partition(args.servers, classes)
    lines = [f"balanced partition of k = {args.servers} servers (eqs. 2a-2b): psi = {number(partition.psi)}",
             f"reserved a_i = {list(partition.reserved)}, s_i = {list(partition.servers_per_class)}, "
             f"helpers |H| = {partition.helpers}"]
    data = {"servers": args.servers, "partition": partition}
    if args.arrival_rate is not None or args.load is not None:
        rate = _arrival_rate(args, classes)
        stability = stability_margin(args.servers, rate, classes)
        bound = helper_probability_bound(args.servers, rate, classes)
        lines += [f"arrival rate {number(rate)}, load {number(stability.load)}",
                  f"left side of (5) {number(stability.margin)}: stable by Proposition 1: {stability.stable}",
                  f"eq. (16), P_H of ModifiedBS: {number(bound)}"]
        data.update(arrival_rate=rate, load=stability.load, margin=stability.margin, stable=stability.stable,
                    helper_probability_bound=bound)
    return Report(lines, data)


def _simulate(args: argparse.Namespace) -> Report:
    from analytic.splitting import simulate_multiserver

    classes = _classes(args)
    sim = simulate_multiserver(args.policy, args.servers, classes, _arrival_rate(args, classes), arrivals=args.arrivals,
                               replications=args.replications, seed=args.seed)
    lines = [f"{args.policy}, k = {args.servers}, load {number(sim.load)} (simulated, {sim.arrivals:,} arrivals, "
             f"{sim.samples} {sim.method}, seed {sim.seed}, {sim.level:.0%} intervals)",
             f"E[R] = {_interval(sim.mean_response_time)}", f"P(wait) = {_interval(sim.wait_probability)}"]
    if sim.helper_probability is not None:
        lines.append(f"P_H = {_interval(sim.helper_probability)} (sent to the helpers), "
                     f"served by them {_interval(sim.helper_service_probability)}")
    if not sim.stationary:
        lines.append(f"NOT STATIONARY: the number of jobs grows at {sim.growth.rate:.3g} per unit time")
    data = {"policy": args.policy, "servers": args.servers, "load": sim.load, "arrivals": sim.arrivals, "seed": sim.seed,
            "level": sim.level, "stationary": sim.stationary}
    for name in ("mean_response_time", "wait_probability", "helper_probability", "helper_service_probability"):
        estimate = getattr(sim, name)          # None: not a splitting policy
        data[name], data[f"{name}_half_width"] = (None, None) if estimate is None else (estimate.value, estimate.half_width)
    return Report(lines, data)


def _interval(estimate: Estimate) -> str:
    """``value ± half_width`` of a simulated estimate."""
    return interval(estimate.value, estimate.half_width)


def _exact(args: argparse.Namespace) -> Report:
    from analytic.splitting import exact_multiserver

    classes = _classes(args)
    exact = exact_multiserver(args.policy, args.servers, classes, _arrival_rate(args, classes),
                              max_waiting=args.max_waiting, method=args.method, tolerance=args.tolerance)
    lines = [f"{args.policy}, k = {args.servers} (exact chain, {exact.n_states} states, at most {exact.max_waiting} "
             f"waiting: lost fraction {exact.lost_fraction:.3g})",
             f"E[R] = {number(exact.mean_response_time)}, per class {numbers(exact.per_class_response_time)}",
             f"P(wait) = {number(exact.wait_probability)}"]
    if exact.helper_probability is not None:
        lines.append(f"P_H = {number(exact.helper_probability)} (sent to the helpers), "
                     f"served by them {number(exact.helper_service_probability)}")
    return Report(lines, exact)


def _saturation(args: argparse.Namespace) -> Report:
    from analytic.splitting import fcfs_saturation

    saturation = fcfs_saturation(args.servers, _classes(args), method=args.method, tolerance=args.tolerance)
    lines = [f"FCFS with k = {args.servers} and an infinite backlog ({saturation.n_states} states): "
             f"throughput {number(saturation.throughput)}, stable up to load {number(saturation.max_load)}"]
    return Report(lines, saturation)


def _add_classes(command: argparse.ArgumentParser, load: str = "required") -> None:
    """``--servers``, the classes, and the load (``"required"``, ``"optional"`` or ``"none"``)."""
    command.add_argument("--servers", type=int, required=True, metavar="K", help="number of servers k")
    source = command.add_mutually_exclusive_group(required=True)
    source.add_argument("--classes", choices=("sdsc-sp2", "kit-fh2"),
                        help="the class model of Table 2 (SDSC SP2) or Table 3 (KIT FH2)")
    source.add_argument("--class", dest="job_class", type=_job_class, action="append", metavar="NEED:PROB:MEAN[:STD]",
                        help="one job class: servers held, probability, mean size, optional standard deviation "
                             "(repeat for each class)")
    if load != "none":
        rate = command.add_mutually_exclusive_group(required=load == "required")
        rate.add_argument("--load", type=float, metavar="RHO", help="load ρ = λ ϱ / k of eq. (1)")
        rate.add_argument("--arrival-rate", type=float, metavar="LAMBDA", help="arrival rate λ")


def add(commands: argparse._SubParsersAction) -> None:
    """Register the Balanced Splitting and multiserver-job commands."""
    _add_classes(add_command(
        commands, "bs-partition", "Balanced partition, stability condition and helper probability bound",
        f"{PAPER}: the reserved sets a_i and helpers |H| of eqs. (2a)-(2b) with psi computed exactly; with a load, "
        f"the left side of the stability condition (5) (Proposition 1) and the bound (16) on the probability "
        f"that a job is sent to the helpers.", _partition), load="optional")
    command = add_command(
        commands, "multiserver-simulate", "Simulate the multiserver-job queue under a policy of Section 2",
        f"{PAPER}: the queue of Section 3.1 under BS-FCFS, ModifiedBS-FCFS, FCFS, MSF, ServerFilling, ... "
        f"simulated, with confidence intervals.", _simulate)
    command.add_argument("policy", choices=POLICIES, help="scheduling policy")
    _add_classes(command)
    command.add_argument("--arrivals", "--jobs", type=int, default=100_000, action=Renamed,
                         help="arrivals to simulate (default 100000; --jobs is its old name)")
    command.add_argument("--replications", type=int, default=1, help="independent replications")
    command.add_argument("--seed", type=int, default=None, help="seed (default: fresh, printed)")
    command = add_command(
        commands, "multiserver-exact", "Exact metrics of the multiserver-job queue from its truncated chain",
        f"{PAPER}: E[R], P(wait), P_H of FCFS, BS-FCFS, ModifiedBS-FCFS or MSF from the exact CTMC, "
        f"truncated at a number of waiting jobs (the lost fraction says how much that costs). Sizes are exponential, "
        f"or, for a class given with a standard deviation, its two-moment phase-type fit (each job in service "
        f"carries its phase).",
        _exact, solves_chain=True)
    command.add_argument("policy", choices=EXACT_POLICIES, help="scheduling policy")
    _add_classes(command)
    command.add_argument("--max-waiting", type=int, default=60, help="truncation: most waiting jobs (default 60)")
    _add_classes(add_command(
        commands, "multiserver-saturation", "FCFS's exact stability limit",
        f"{PAPER}, Table 1 (FCFS is not throughput optimal): the throughput of FCFS with an infinite backlog, "
        f"from its exact saturated chain, and the largest load it can sustain.", _saturation, solves_chain=True),
        load="none")
