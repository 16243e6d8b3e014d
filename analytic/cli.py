"""The ``analytic`` command.

``analytic reproduce`` prints the table of paper results against the package's values and exits
with status 1 if any row fails. Other subcommands are calculators over the package's functions.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Sequence

from analytic import __version__
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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="analytic",
        description="Exact and asymptotic results for parallel-job scheduling (five papers).")
    parser.add_argument("--version", action="version", version=f"analytic {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")
    reproduce = commands.add_parser("reproduce", help="table of paper results against the package's values")
    reproduce.add_argument("--only", default="", metavar="TEXT",
                           help="only rows registered by functions whose module or name contains TEXT")
    reproduce.set_defaults(run=_reproduce)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``analytic`` command; returns the exit status."""
    args = _parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
