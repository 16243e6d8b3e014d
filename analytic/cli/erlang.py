"""Erlang's loss and delay formulas: ``erlang-b``, ``erlang-c``, ``erlang-b-servers``, ``erlang-b-load``."""

from __future__ import annotations

import argparse

from analytic.cli.output import Report, add_command

SOURCE = ("Erlang's formulas (A. K. Erlang, 1917), as used by Anselmi & Doncel, 'Balanced Splitting: A Framework "
          "for Achieving Zero-wait in the Multiserver-job Model', IEEE TPDS 2024, eqs. (3)-(4); computed by "
          "analytic.erlang, exact to double precision for any size.")

HELPS = {"servers": "number of servers s >= 0 (real values allowed)", "load": "offered load a in Erlangs",
         "target": "blocking probability in (0, 1)"}


def _run(args: argparse.Namespace) -> Report:
    from analytic import erlang

    if args.command == "erlang-b" and args.precision is not None:
        import mpmath

        value = erlang.erlang_b(args.servers, args.load, precision=args.precision)
        return Report([mpmath.nstr(value, args.precision)], {"servers": args.servers, "load": args.load,
                                                             "blocking": mpmath.nstr(value, args.precision)})
    if args.command == "erlang-b":
        value = erlang.erlang_b(args.servers, args.load)
        return Report([repr(value)], {"servers": args.servers, "load": args.load, "blocking": value})
    if args.command == "erlang-c":
        value = erlang.erlang_c(args.servers, args.load)
        return Report([repr(value)], {"servers": args.servers, "load": args.load, "wait_probability": value})
    if args.command == "erlang-b-servers":
        servers = erlang.erlang_b_servers(args.load, args.target)
        return Report([str(servers)], {"load": args.load, "target": args.target, "servers": servers})
    load = erlang.erlang_b_load(args.servers, args.target)
    return Report([repr(load)], {"servers": args.servers, "target": args.target, "load": load})


def add(commands: argparse._SubParsersAction) -> None:
    """Register the four Erlang calculators."""
    for name, summary, arguments in [
            ("erlang-b", "Erlang B blocking probability E_s(a)", ("servers", "load")),
            ("erlang-c", "Erlang C probability of waiting C_s(a)", ("servers", "load")),
            ("erlang-b-servers", "Smallest integer s with E_s(a) <= target", ("load", "target")),
            ("erlang-b-load", "Largest load a with E_s(a) <= target", ("servers", "target"))]:
        command = add_command(commands, name, summary, SOURCE, _run)
        for argument in arguments:
            command.add_argument(f"--{argument}", type=float, required=True, help=HELPS[argument])
        if name == "erlang-b":
            command.add_argument("--precision", type=int, default=None, metavar="DIGITS",
                                 help="evaluate with mpmath at this many decimal digits")
