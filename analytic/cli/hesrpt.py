"""``analytic hesrpt``: heSRPT's allocation, completion times and flow time."""

from __future__ import annotations

import argparse

from analytic.cli.output import Renamed, Report, add_command, number

DESCRIPTION = ("Berg, Vesilo & Harchol-Balter, 'heSRPT: Optimal Parallel Scheduling of Jobs With Known Sizes': "
               "M jobs present at time 0 on N servers with speed-up s(k) = k^p; heSRPT's shares (Theorem 7), "
               "every completion time and the total flow time (Theorem 8), heLRPT's makespan (Theorem 2 with N "
               "servers), and optionally another policy evaluated exactly.")

#: The policies of :data:`analytic.hesrpt.policies.POLICIES`.
POLICIES = ("hesrpt", "helrpt", "srpt", "equi", "hell", "knee")


def _run(args: argparse.Namespace) -> Report:
    from analytic.hesrpt.closed_form import hesrpt_allocation, hesrpt_flow_time, optimal_makespan
    from analytic.hesrpt.policies import flow_time

    result = hesrpt_flow_time(args.sizes, args.exponent, args.servers)
    other = None
    if args.policy != "hesrpt" or args.alpha is not None:
        other = flow_time(args.sizes, args.policy, args.exponent, args.servers, alpha=args.alpha)
    makespan = optimal_makespan(args.sizes, args.exponent, args.servers)
    ranks = sorted(range(len(args.sizes)), key=lambda i: -args.sizes[i])
    shares = dict(zip(ranks, hesrpt_allocation(len(args.sizes), args.exponent), strict=True))
    lines = [f"heSRPT with s(k) = k^{args.exponent:g}, N = {args.servers:g} servers, {len(args.sizes)} jobs",
             f"{'job':>4} {'size':>14} {'share at t=0':>14} {'completion':>16}"]
    lines += [f"{i:>4} {size:>14.6g} {shares[i]:>14.6%} {result.completion_times[i]:>16.10g}"
              for i, size in enumerate(args.sizes)]
    lines += [f"total flow time {number(result.total)}, mean {number(result.mean)} (Theorem 8)",
              f"optimal makespan (heLRPT, Theorem 2 with N servers) {number(makespan)}"]
    data = {"sizes": args.sizes, "exponent": args.exponent, "servers": args.servers,
            "shares": [shares[i] for i in range(len(args.sizes))], "completion_times": result.completion_times,
            "total_flow_time": result.total, "mean_flow_time": result.mean, "makespan": makespan}
    if other is not None:
        alpha = "" if other.alpha is None else f" (alpha = {other.alpha:.6g})"
        lines.append(f"{args.policy}{alpha}: total flow time {number(other.total)}, mean {number(other.mean)}, "
                     f"{other.total / result.total:.6g} x heSRPT")
        data["policy"] = {"name": args.policy, "alpha": other.alpha, "total_flow_time": other.total,
                          "mean_flow_time": other.mean}
    return Report(lines, data)


def add(commands: argparse._SubParsersAction) -> None:
    """Register ``hesrpt``."""
    command = add_command(commands, "hesrpt", "heSRPT allocations, completion times and flow time", DESCRIPTION, _run)
    command.add_argument("--sizes", type=float, nargs="+", required=True, metavar="X", help="job sizes (> 0)")
    command.add_argument("--exponent", "--p", type=float, required=True, action=Renamed, metavar="P",
                         help="speed-up exponent p of s(k) = k^p, 0 < p < 1 (--p: its old name)")
    command.add_argument("--servers", type=float, required=True, metavar="N", help="number of servers N")
    command.add_argument("--policy", choices=POLICIES, default="hesrpt", help="also evaluate this policy exactly")
    command.add_argument("--alpha", type=float, default=None, help="KNEE's threshold (default: best found)")
