"""``analytic moldable``: Theorem 1's optimal occupancy, greedy(p*) solved exactly or simulated."""

from __future__ import annotations

import argparse

from analytic.cli.output import SIZE_LAWS, Renamed, Report, UsageError, add_command, interval, number

DESCRIPTION = ("Ghanbarian, Mukhopadhyay, Mazumdar & Guillemin, 'On Optimal Server Allocation for Moldable Jobs "
               "with Concave Speed-Up': the optimum y*, p* and D* of the LP (P) in closed form (Theorem 1), the loss "
               "system of greedy(p*) (eq. 10) or greedy with n servers solved exactly (blocking, E[D], distance to "
               "y*), or simulated for any job-size law.")

#: Allocation schemes, spelled without characters a shell would interpret: (``p`` of the library, name in the paper).
SCHEMES = {"greedy-p-star": (None, "greedy(p*)"), "greedy": ("greedy", "greedy")}


def _run(args: argparse.Namespace) -> Report:
    from analytic.moldable import greedy_metrics, optimal_occupancy, simulate_moldable
    from analytic.speedup import SpeedupTable

    if args.simulate is not None and args.servers is None:
        raise UsageError("--simulate needs --servers N (the number of servers to simulate)")
    speedup = SpeedupTable(args.speedup)
    optimum = optimal_occupancy(speedup, args.rate_per_server)
    scheme, label = SCHEMES[args.scheme]
    lines = [f"Theorem 1 case ({optimum.case}), support I* = {list(optimum.support)}, unique: {optimum.unique}",
             f"y*  = {[round(v, 12) for v in optimum.y.tolist()]}",
             f"p*  = {[round(v, 12) for v in optimum.p.tolist()]}",
             f"D*  = {number(optimum.mean_response_time)}"]
    data = {"case": optimum.case, "support": optimum.support, "unique": optimum.unique, "y": optimum.y,
            "p": optimum.p, "mean_response_time": optimum.mean_response_time}
    if args.servers is not None and args.simulate is None:
        exact = greedy_metrics(speedup, args.rate_per_server, args.servers, scheme, method=args.method,
                               tolerance=args.tolerance)
        lines.append(f"{label} with n = {args.servers} (exact, {exact.n_states} states): "
                     f"P_b = {number(exact.blocking)}, E[D] = {number(exact.mean_response_time)}, "
                     f"E||x - y*|| = {number(exact.distance)}")
        data["exact"] = {"servers": args.servers, "scheme": args.scheme, "blocking": exact.blocking,
                         "mean_response_time": exact.mean_response_time, "distance": exact.distance, "n_states": exact.n_states}
    if args.simulate is not None:
        sim = simulate_moldable(speedup, args.rate_per_server, args.servers, scheme, size=args.size,
                                arrivals=args.simulate, replications=args.replications, seed=args.seed)
        blocking, mean_response_time = sim.blocking, sim.mean_response_time
        lines.append(f"{label} with n = {args.servers} (simulated, {args.size} sizes, {sim.arrivals:,} arrivals, "
                     f"{sim.samples} {sim.method}, seed {sim.seed}): "
                     f"P_b = {interval(blocking.value, blocking.half_width)}, "
                     f"E[D] = {interval(mean_response_time.value, mean_response_time.half_width)} ({sim.level:.0%})")
        data["simulated"] = {"servers": args.servers, "scheme": args.scheme, "size": args.size, "arrivals": sim.arrivals,
                             "seed": sim.seed, "level": sim.level, "blocking": blocking, "mean_response_time": mean_response_time}
    return Report(lines, data)


def add(commands: argparse._SubParsersAction) -> None:
    """Register ``moldable``."""
    command = add_command(commands, "moldable", "Optimal occupancy of moldable jobs and greedy(p*) exactly or simulated",
                          DESCRIPTION, _run, solves_chain=True)
    command.add_argument("--speedup", type=float, nargs="+", required=True, metavar="S",
                         help="speed-ups s_1 ... s_d (s_1 = 1, increasing, concave)")
    command.add_argument("--rate-per-server", "--arrival-rate", type=float, required=True, action=Renamed,
                         metavar="LAMBDA", help="arrivals per server per unit time, in (0, 1] (--arrival-rate: its old name)")
    command.add_argument("--servers", type=int, metavar="N", help="also solve the loss system with N servers exactly")
    command.add_argument("--scheme", choices=tuple(SCHEMES), default="greedy-p-star",
                         help="allocation scheme of the loss system: greedy(p*) of eq. (10) (default) or greedy")
    command.add_argument("--simulate", type=int, metavar="ARRIVALS",
                         help="simulate the loss system with N servers for ARRIVALS arrivals instead of solving it exactly")
    command.add_argument("--size", choices=SIZE_LAWS, default="exponential",
                         help="job-size law of the simulation, unit mean (default exponential)")
    command.add_argument("--replications", type=int, default=1, help="independent replications of the simulation")
    command.add_argument("--seed", type=int, default=None, help="seed of the simulation (default: fresh, printed)")
