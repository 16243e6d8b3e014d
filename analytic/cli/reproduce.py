"""``analytic reproduce``: the table of paper results against the package's values.

The table fits in :data:`WIDTH` columns: a cell too long for its column wraps onto the next lines
of its row, and each row's statement and note follow it, wrapped. ``--json`` holds every field
whole. While the rows compute (minutes for the whole table), a progress bar over the row functions
runs on standard error when it is a terminal; standard output receives only the table.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from itertools import zip_longest
from typing import TYPE_CHECKING

from analytic.cli.output import Report, UsageError, add_command

if TYPE_CHECKING:
    from analytic.reproduce import Outcome

DESCRIPTION = ("Each row compares a number, equation or claim of one of the five papers (Ghanbarian et al.; "
               "Anselmi & Doncel; Berg, Vesilo & Harchol-Balter; Bonald & Comte; Ghaderi, Shakkottai & Srikant) "
               "with the package's value; rows where a paper does not hold say how. Exits with status 1 if a row fails.")

#: Most characters of a line of the table.
WIDTH = 100
#: The columns of a row: heading, width, and whether the cells are right-aligned (numbers).
COLUMNS = (("paper", 34, False), ("paper value", 17, True), ("analytic", 17, True), ("tol", 5, True),
           ("verdict", 22, False))


def _value(value: object) -> str:
    return f"{value:.12g}" if isinstance(value, float) else str(value)


def _cells(texts: list[str]) -> list[str]:
    """One row of :data:`COLUMNS`, each text wrapped to its column (several lines when one is too long)."""
    wrapped = [textwrap.wrap(text, width) or [""] for text, (_, width, _) in zip(texts, COLUMNS, strict=True)]
    lines = []
    for parts in zip_longest(*wrapped, fillvalue=""):
        cells = [part.rjust(width) if right else part.ljust(width)
                 for part, (_, width, right) in zip(parts, COLUMNS, strict=True)]
        lines.append(" ".join(cells[:-1]) + "  " + cells[-1])
    return [line.rstrip() for line in lines]


def _table(outcomes: list[Outcome]) -> list[str]:
    header = _cells([name for name, _, _ in COLUMNS])
    lines = [*header, "-" * WIDTH]
    for outcome in outcomes:
        if outcome.error:
            lines += textwrap.wrap(f"{outcome.source} ERROR: {outcome.error}", WIDTH, subsequent_indent="    ")
        for row in outcome.rows:
            lines += _cells([row.paper, _value(row.paper_value), _value(row.value), f"{row.tolerance:.0e}", row.verdict])
            lines += textwrap.wrap(row.statement, WIDTH, initial_indent="  ", subsequent_indent="  ")
            lines += textwrap.wrap(row.note, WIDTH, initial_indent="      ", subsequent_indent="      ")
    return lines


def _run(args: argparse.Namespace) -> Report:
    from tqdm import tqdm

    from analytic import reproduce

    functions = reproduce.selected_functions(args.only)
    if not functions:  # an empty table would read as a pass
        by_module: dict[str, list[str]] = {}
        for source in reproduce.sources():
            module, _, name = source.rpartition(".")
            by_module.setdefault(module, []).append(name)
        listing = "; ".join(f"{module}: {', '.join(names)}" for module, names in by_module.items())
        raise UsageError(f"--only {args.only!r} matches no row: it selects the row functions whose 'module.function' "
                         f"name contains the text, and these are {listing}")
    outcomes = []
    with tqdm(functions, desc="reproduce", unit="function", file=sys.stderr, disable=not sys.stderr.isatty(),
              leave=False) as bar:
        for function in bar:
            bar.set_postfix_str(reproduce.source_name(function).removeprefix("analytic."))
            outcomes.append(reproduce.run_function(function))
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
