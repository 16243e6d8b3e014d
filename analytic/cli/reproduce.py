"""``analytic reproduce``: the table of paper results against the package's values."""

from __future__ import annotations

import argparse
import textwrap

from analytic.cli.output import Report, UsageError, add_command
from analytic.reproduce import Outcome, collect, sources

DESCRIPTION = ("Each row compares a number, equation or claim of one of the five papers (Ghanbarian et al.; "
               "Anselmi & Doncel; Berg, Vesilo & Harchol-Balter; Bonald & Comte; Ghaderi, Shakkottai & Srikant) "
               "with the package's value; rows where a paper does not hold say how. Exits with status 1 if a row fails.")


def _value(value: object) -> str:
    return f"{value:.12g}" if isinstance(value, float) else str(value)


def _table(outcomes: list[Outcome]) -> list[str]:
    header = f"{'paper':<34} {'statement':<58} {'paper value':>19} {'analytic':>19} {'tol':>8}  verdict"
    lines = [header, "-" * len(header)]
    for outcome in outcomes:
        if outcome.error:
            lines.append(f"{outcome.source:<34} ERROR: {outcome.error}")
        for row in outcome.rows:
            statement = textwrap.wrap(row.statement, 58) or [""]
            lines.append(f"{row.paper[:34]:<34} {statement[0]:<58} {_value(row.paper_value):>19} "
                         f"{_value(row.value):>19} {row.tolerance:>8.0e}  {row.verdict}")
            lines += [f"{'':<34} {line}" for line in statement[1:]]
            lines += [f"{'':<36}{line}" for line in textwrap.wrap(row.note, 90)]
    return lines


def _run(args: argparse.Namespace) -> Report:
    outcomes = collect(args.only)
    if not outcomes:  # an empty table would read as a pass
        by_module: dict[str, list[str]] = {}
        for source in sources():
            module, _, name = source.rpartition(".")
            by_module.setdefault(module, []).append(name)
        listing = "; ".join(f"{module}: {', '.join(names)}" for module, names in by_module.items())
        raise UsageError(f"--only {args.only!r} matches no row: it selects the row functions whose 'module.function' "
                         f"name contains the text, and these are {listing}")
    rows = [row for outcome in outcomes for row in outcome.rows]
    failed = sum(not row.passed for row in rows) + sum(bool(o.error) for o in outcomes)
    seconds = sum(o.seconds for o in outcomes)
    data = {"rows": [{"source": o.source, "paper": r.paper, "statement": r.statement, "paper_value": r.paper_value,
                      "value": r.value, "tolerance": r.tolerance, "verdict": r.verdict, "passed": r.passed,
                      "note": r.note} for o in outcomes for r in o.rows],
            "errors": {o.source: o.error for o in outcomes if o.error}, "failed": failed, "seconds": seconds}
    lines = [*_table(outcomes), "", f"{len(rows)} rows, {failed} failed, computed in {seconds:.1f} s"]
    return Report(lines, data, 1 if failed else 0)


def add(commands: argparse._SubParsersAction) -> None:
    """Register ``reproduce``."""
    command = add_command(commands, "reproduce", "Table of the papers' results against the package's values",
                          DESCRIPTION, _run)
    command.add_argument("--only", default="", metavar="TEXT",
                         help="only rows registered by functions whose module.function name contains TEXT "
                              "(a TEXT that matches none is an error that lists them)")
