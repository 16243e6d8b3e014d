"""The ``analytic`` command.

``analytic reproduce`` prints the table of paper results against the package's values and exits
with status 1 if any row fails. The other subcommands are calculators over the package's functions,
one module per paper (:mod:`.moldable`, :mod:`.splitting`, :mod:`.hesrpt`, :mod:`.fairness`,
:mod:`.partitioning`) plus :mod:`.erlang` and :mod:`.checking` (``simulate``, ``compare``). A
command computes everything before it prints (``--json`` prints the same results as one JSON
object); bad input prints the package's error message on one line (no traceback) and exits with
status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from analytic import __version__
from analytic.cli import checking, erlang, fairness, hesrpt, moldable, partitioning, reproduce, splitting
from analytic.cli.output import UsageError, render

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors become one line on stderr and exit status 2 (in :func:`main`)."""

    def error(self, message: str) -> None:  # argparse would print the usage and exit itself
        raise UsageError(f"{self.prog}: error: {message}")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="analytic",
        description="Exact and asymptotic results for scheduling parallel jobs in clusters, from five papers: "
                    "Ghanbarian et al. (moldable jobs), Anselmi & Doncel (Balanced Splitting), Berg, Vesilo & "
                    "Harchol-Balter (heSRPT), Bonald & Comte (balanced fairness), Ghaderi, Shakkottai & Srikant "
                    "(graph jobs). Run 'analytic COMMAND --help' for a command's paper and options.")
    parser.add_argument("--version", action="version", version=f"analytic {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")
    for module in (reproduce, erlang, moldable, splitting, hesrpt, fairness, partitioning, checking):
        module.add(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``analytic`` command; returns the exit status (2 for bad input).

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after ``analytic`` (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 1 when ``analytic reproduce`` finds a failing row, 2 on a user error.

    Examples
    --------
    >>> main(["erlang-b", "--servers", "10", "--offered-load", "7"])
    0.07874088296957023
    0
    """
    try:
        args = _parser().parse_args(argv)
    except UsageError as error:
        print(error, file=sys.stderr)
        return 2
    try:
        report = args.run(args)
    except Exception as error:
        from analytic.errors import AnalyticError  # here, not above: it loads numpy, which --help does not need

        if not isinstance(error, (UsageError, AnalyticError, ValueError)):
            raise
        print(f"analytic {args.command}: error: {error}", file=sys.stderr)  # names the parameter, value and condition
        return 2
    print(render(report, args.json))
    return report.status
