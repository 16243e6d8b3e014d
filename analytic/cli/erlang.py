"""Erlang's loss and delay formulas: ``erlang-b``, ``erlang-c``, ``erlang-b-servers``, ``erlang-b-offered-load``."""

from __future__ import annotations

import argparse

from analytic.cli.output import Renamed, Report, add_command, renamed_note

SOURCE = ("Erlang's formulas (A. K. Erlang, 1917), as used by Anselmi & Doncel, 'Balanced Splitting: A Framework "
          "for Achieving Zero-wait in the Multiserver-job Model', IEEE TPDS 2024, eqs. (3)-(4); computed by "
          "analytic.erlang, exact to double precision for any size.")

HELPS = {"servers": "number of servers s >= 0 (real values allowed)",
         "offered-load": "offered load a in Erlangs (--load: its old name)", "target": "blocking probability in (0, 1)"}
#: Options renamed in version 0.2 (issue 32: `load` is a fraction of capacity), kept for one release.
OLD_OPTIONS = {"offered-load": "--load"}


def _run(args: argparse.Namespace) -> Report:
    from analytic import erlang

    if args.command == "erlang-b" and args.precision is not None:
        import mpmath

        value = erlang.erlang_b(args.servers, args.offered_load, precision=args.precision)
        return Report([mpmath.nstr(value, args.precision)], {"servers": args.servers, "offered_load": args.offered_load,
                                                             "blocking": mpmath.nstr(value, args.precision)})
    if args.command == "erlang-b":
        value = erlang.erlang_b(args.servers, args.offered_load)
        return Report([repr(value)], {"servers": args.servers, "offered_load": args.offered_load, "blocking": value})
    if args.command == "erlang-c":
        value = erlang.erlang_c(args.servers, args.offered_load)
        return Report([repr(value)], {"servers": args.servers, "offered_load": args.offered_load,
                                      "wait_probability": value})
    if args.command == "erlang-b-servers":
        servers = erlang.erlang_b_servers(args.offered_load, args.target)
        return Report([str(servers)], {"offered_load": args.offered_load, "target": args.target, "servers": servers})
    if args.command == "erlang-b-load":
        renamed_note("analytic", "erlang-b-load", "erlang-b-offered-load")
    load = erlang.erlang_b_offered_load(args.servers, args.target)
    return Report([repr(load)], {"servers": args.servers, "target": args.target, "offered_load": load})


def add(commands: argparse._SubParsersAction) -> None:
    """Register the four Erlang calculators."""
    for name, summary, arguments in [
            ("erlang-b", "Erlang B blocking probability E_s(a)", ("servers", "offered-load")),
            ("erlang-c", "Erlang C probability of waiting C_s(a)", ("servers", "offered-load")),
            ("erlang-b-servers", "Smallest integer s with E_s(a) <= target", ("offered-load", "target")),
            ("erlang-b-offered-load", "Largest offered load a with E_s(a) <= target", ("servers", "target"))]:
        aliases = ["erlang-b-load"] if name == "erlang-b-offered-load" else []   # its name before version 0.2
        command = add_command(commands, name, summary, SOURCE, _run, aliases=aliases)
        for argument in arguments:
            old = [OLD_OPTIONS[argument]] if argument in OLD_OPTIONS else []
            command.add_argument(f"--{argument}", *old, type=float, required=True, help=HELPS[argument],
                                 action=Renamed)
        if name == "erlang-b":
            command.add_argument("--precision", type=int, default=None, metavar="DIGITS",
                                 help="evaluate with mpmath at this many decimal digits")
