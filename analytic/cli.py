"""The ``analytic`` command.

``analytic reproduce`` prints the table of paper results against the package's values and exits
with status 1 if any row fails. Other subcommands are calculators over the package's functions;
bad input prints the package's error message (no traceback) and exits with status 2.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Sequence

from analytic import __version__
from analytic.errors import AnalyticError
from analytic.reproduce import Outcome, collect

__all__ = ["main"]


def _format_value(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.12g}"
    return str(value)


def _print_table(outcomes: Sequence[Outcome], out) -> None:
    header = f"{'paper':<34} {'statement':<58} {'paper value':>19} {'analytic':>19} {'tol':>8}  verdict"
    print(header, file=out)
    print("-" * len(header), file=out)
    for outcome in outcomes:
        if outcome.error:
            print(f"{outcome.source:<34} ERROR: {outcome.error}", file=out)
        for row in outcome.rows:
            lines = textwrap.wrap(row.statement, 58) or [""]
            print(f"{row.paper[:34]:<34} {lines[0]:<58} {_format_value(row.paper_value):>19} "
                  f"{_format_value(row.value):>19} {row.tolerance:>8.0e}  {row.verdict}", file=out)
            for line in lines[1:]:
                print(f"{'':<34} {line}", file=out)
            for line in textwrap.wrap(row.note, 90):
                print(f"{'':<36}{line}", file=out)


def _reproduce(args: argparse.Namespace) -> int:
    outcomes = collect(args.only)
    _print_table(outcomes, sys.stdout)
    rows = [row for outcome in outcomes for row in outcome.rows]
    failed = sum(not row.passed for row in rows) + sum(bool(o.error) for o in outcomes)
    seconds = sum(o.seconds for o in outcomes)
    print(f"\n{len(rows)} rows, {failed} failed, computed in {seconds:.1f} s")
    return 1 if failed else 0


def _add_hesrpt_commands(commands: argparse._SubParsersAction) -> None:
    """``analytic hesrpt``: heSRPT's allocation, completion times and flow time (Berg et al.)."""
    from analytic.hesrpt.closed_form import hesrpt_allocation, hesrpt_flow_time, optimal_makespan
    from analytic.hesrpt.policies import POLICIES, flow_time

    def run(args: argparse.Namespace) -> int:
        result = hesrpt_flow_time(args.sizes, args.p, args.servers)
        other = None
        if args.policy != "hesrpt" or args.alpha is not None:
            other = flow_time(args.sizes, args.policy, args.p, args.servers, alpha=args.alpha)
        makespan = optimal_makespan(args.sizes, args.p, args.servers)
        ranks = sorted(range(len(args.sizes)), key=lambda i: -args.sizes[i])
        shares = dict(zip(ranks, hesrpt_allocation(len(args.sizes), args.p), strict=True))
        print(f"heSRPT with s(k) = k^{args.p:g}, N = {args.servers:g} servers, {len(args.sizes)} jobs")
        print(f"{'job':>4} {'size':>14} {'share at t=0':>14} {'completion':>16}")
        for i, size in enumerate(args.sizes):
            print(f"{i:>4} {size:>14.6g} {shares[i]:>14.6%} {result.completion_times[i]:>16.10g}")
        print(f"total flow time {result.total:.12g}, mean {result.mean:.12g} (Theorem 8)")
        print(f"optimal makespan (heLRPT, Theorem 2 with N servers) {makespan:.12g}")
        if other is not None:
            alpha = "" if other.alpha is None else f" (alpha = {other.alpha:.6g})"
            print(f"{args.policy}{alpha}: total flow time {other.total:.12g}, mean {other.mean:.12g}, "
                  f"{other.total / result.total:.6g} x heSRPT")
        return 0

    command = commands.add_parser("hesrpt", help="heSRPT allocations, completion times and flow time (paper 002)")
    command.add_argument("--sizes", type=float, nargs="+", required=True, metavar="X", help="job sizes (> 0)")
    command.add_argument("--p", type=float, required=True, help="speed-up exponent of s(k) = k^p, 0 < p < 1")
    command.add_argument("--servers", type=float, required=True, metavar="N", help="number of servers N")
    command.add_argument("--policy", choices=POLICIES, default="hesrpt", help="also evaluate this policy exactly")
    command.add_argument("--alpha", type=float, default=None, help="KNEE's threshold (default: best found)")
    command.set_defaults(run=run)


def _moldable(args: argparse.Namespace) -> int:
    from analytic.errors import InvalidParameterError
    from analytic.moldable import greedy_metrics, optimal_occupancy
    from analytic.speedup import SpeedUp

    speedup = SpeedUp(args.speedup)
    optimum = optimal_occupancy(speedup, args.arrival_rate)
    scheme = "greedy" if args.scheme == "greedy" else None
    if args.simulate is not None and args.servers is None:
        raise InvalidParameterError("servers", None, "is needed with --simulate (the number of servers to simulate)")
    exact = None if args.servers is None or args.simulate is not None else greedy_metrics(
        speedup, args.arrival_rate, args.servers, scheme)
    print(f"Theorem 1 case ({optimum.case}), support I* = {list(optimum.support)}, unique: {optimum.unique}")
    print(f"y*  = {[round(v, 12) for v in optimum.y.tolist()]}")
    print(f"p*  = {[round(v, 12) for v in optimum.p.tolist()]}")
    print(f"D*  = {optimum.mean_time:.12g}")
    if exact is not None:
        print(f"{args.scheme} with n = {args.servers} (exact, {exact.n_states} states): "
              f"P_b = {exact.blocking:.12g}, E[D] = {exact.mean_time:.12g}, E||x - y*|| = {exact.distance:.12g}")
    if args.simulate is not None:
        from analytic.moldable import simulate_moldable

        sim = simulate_moldable(speedup, args.arrival_rate, args.servers, scheme, size=args.size, jobs=args.simulate,
                                replications=args.replications, seed=args.seed)
        print(f"{args.scheme} with n = {args.servers} (simulated, {args.size} sizes, {sim.jobs:,} arrivals, "
              f"{sim.samples} {sim.method}, seed {sim.seed}): P_b = {sim.blocking:.6g} ± {sim.blocking_ci:.2g}, "
              f"E[D] = {sim.mean_time:.6g} ± {sim.mean_time_ci:.2g} (95%)")
    return 0


def _add_moldable_commands(commands) -> None:
    moldable = commands.add_parser(
        "moldable", help="optimal occupancy of moldable jobs (Theorem 1) and exact greedy(p*) metrics")
    moldable.add_argument("--speedup", type=float, nargs="+", required=True, metavar="S",
                          help="speed-ups s_1 ... s_d (s_1 = 1, increasing, concave)")
    moldable.add_argument("--arrival-rate", type=float, required=True, metavar="LAMBDA",
                          help="arrivals per server per unit time, in (0, 1]")
    moldable.add_argument("--servers", type=int, metavar="N", help="also solve the loss system with N servers exactly")
    moldable.add_argument("--scheme", choices=("greedy(p*)", "greedy"), default="greedy(p*)",
                          help="allocation scheme of the exact loss system (default greedy(p*))")
    moldable.add_argument("--simulate", type=int, metavar="JOBS",
                          help="simulate the loss system with N servers for JOBS arrivals instead of solving it exactly")
    moldable.add_argument("--size", choices=("exponential", "deterministic", "mixed_erlang", "pareto"), default="exponential",
                          help="job-size law of the simulation, unit mean (default exponential)")
    moldable.add_argument("--replications", type=int, default=1, help="independent replications of the simulation")
    moldable.add_argument("--seed", type=int, default=None, help="seed of the simulation (default: fresh, printed)")
    moldable.set_defaults(run=_moldable)


def _add_erlang_commands(commands) -> None:
    """Erlang calculators: erlang-b, erlang-c, erlang-b-servers, erlang-b-load (analytic.erlang)."""

    def run(args: argparse.Namespace) -> int:
        import mpmath

        from analytic import erlang

        if args.command == "erlang-b" and args.precision is not None:
            print(mpmath.nstr(erlang.erlang_b(args.servers, args.load, precision=args.precision), args.precision))
        elif args.command == "erlang-b":
            print(repr(erlang.erlang_b(args.servers, args.load)))
        elif args.command == "erlang-c":
            print(repr(erlang.erlang_c(args.servers, args.load)))
        elif args.command == "erlang-b-servers":
            print(erlang.erlang_b_servers(args.load, args.target))
        else:
            print(repr(erlang.erlang_b_load(args.servers, args.target)))
        return 0

    helps = {"servers": "number of servers s >= 0 (real values allowed)", "load": "offered load a in Erlangs",
             "target": "blocking probability in (0, 1)"}
    for name, description, arguments in [
            ("erlang-b", "Erlang B blocking probability E_s(a)", ("servers", "load")),
            ("erlang-c", "Erlang C probability of waiting C_s(a)", ("servers", "load")),
            ("erlang-b-servers", "smallest integer s with E_s(a) <= target", ("load", "target")),
            ("erlang-b-load", "largest load a with E_s(a) <= target", ("servers", "target"))]:
        command = commands.add_parser(name, help=description, description=description)
        for argument in arguments:
            command.add_argument(f"--{argument}", type=float, required=True, help=helps[argument])
        if name == "erlang-b":
            command.add_argument("--precision", type=int, default=None, metavar="DIGITS",
                                 help="evaluate with mpmath at this many decimal digits")
        command.set_defaults(run=run)


class _UsageError(Exception):
    """A command line argparse refuses (unknown option, missing or malformed value)."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors become one line on stderr and exit status 2 (in :func:`main`)."""

    def error(self, message: str) -> None:  # argparse would print the usage and exit itself
        raise _UsageError(f"{self.prog}: error: {message}")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="analytic",
        description="Exact and asymptotic results for parallel-job scheduling (five papers).")
    parser.add_argument("--version", action="version", version=f"analytic {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")
    reproduce = commands.add_parser("reproduce", help="table of paper results against the package's values")
    reproduce.add_argument("--only", default="", metavar="TEXT",
                           help="only rows registered by functions whose module or name contains TEXT")
    reproduce.set_defaults(run=_reproduce)
    _add_hesrpt_commands(commands)
    _add_moldable_commands(commands)
    _add_erlang_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``analytic`` command; returns the exit status (2 for bad input)."""
    try:
        args = _parser().parse_args(argv)
    except _UsageError as error:
        print(error, file=sys.stderr)
        return 2
    try:
        return args.run(args)
    except (AnalyticError, ValueError) as error:  # the message names the parameter, its value and the condition
        print(f"analytic {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
