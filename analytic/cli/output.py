"""What every subcommand shares: its report (text lines and a JSON object), the options
``--json``, ``--method`` and ``--tolerance``, and the parsers of job classes and graphs."""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction

import numpy as np

#: Solution methods of :meth:`analytic.ctmc.CTMC.stationary`, offered by every command that solves a chain.
METHODS = ("auto", "gth", "direct", "iterative")


@dataclasses.dataclass(frozen=True)
class Report:
    """A command's result: computed in full before anything is printed (so an error prints nothing else).

    ``lines`` is the text for a reader, ``data`` the same results for a script (``--json``: a mapping or a dataclass), and
    ``status`` the exit status (1 when ``analytic reproduce`` finds a failing row).
    """

    lines: Sequence[str]
    data: object
    status: int = 0


def plain(value: object) -> object:
    """``value`` as JSON-ready Python: arrays and tuples as lists, dataclasses as dicts, and the
    non-finite floats that strict JSON lacks as the strings ``"inf"``, ``"-inf"`` and ``"nan"``."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: plain(getattr(value, field.name)) for field in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, np.ndarray):
        return plain(value.tolist())
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating, Fraction)):
        number = float(value)
        return number if math.isfinite(number) else str(number)
    return value if value is None or isinstance(value, str) else str(value)


def render(report: Report, as_json: bool) -> str:
    """The text a command prints: its lines, or its data as one JSON object."""
    return json.dumps(plain(report.data), indent=2) if as_json else "\n".join(report.lines)


def number(value: float) -> str:
    """A float with the 12 significant digits the commands print."""
    return f"{value:.12g}"


def add_command(commands: argparse._SubParsersAction, name: str, summary: str, description: str,
                run: Callable[[argparse.Namespace], Report], solves_chain: bool = False) -> argparse.ArgumentParser:
    """A subcommand with its one-line ``summary`` (in ``analytic --help``), its ``description``
    (in its own ``--help``: what it computes and from which paper), ``--json``, and ``--method`` and
    ``--tolerance`` when it solves a Markov chain."""
    command = commands.add_parser(name, help=summary, description=f"{summary}. {description}")
    command.add_argument("--json", action="store_true", help="print the results as one JSON object")
    if solves_chain:
        command.add_argument("--method", choices=METHODS, default="auto",
                             help="stationary solver of the exact chain (default auto: GTH where it fits)")
        command.add_argument("--tolerance", type=float, default=1e-10,
                             help="relative accuracy the chain's probabilities must reach (default 1e-10)")
    command.set_defaults(run=run)
    return command


def integers(text: str) -> tuple[int, ...]:
    """``"0,2"`` as ``(0, 2)``: the servers a class may use, or any comma-separated integers."""
    try:
        return tuple(int(item) for item in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid list of integers: {text!r} (e.g. 0,2)") from None


def edge(text: str) -> tuple[int, int]:
    """``"0-1"`` as the edge ``(0, 1)`` of a graph job."""
    parts = text.split("-")
    if len(parts) != 2 or not all(part.strip().isdigit() for part in parts):
        raise argparse.ArgumentTypeError(f"invalid edge: {text!r} (two node numbers joined by '-', e.g. 0-1)")
    return int(parts[0]), int(parts[1])


class UsageError(Exception):
    """A command line that cannot run as given (argparse's refusals, or options that need each other)."""
