"""What every subcommand shares: its report (text lines and a JSON object), the options
``--json``, ``--method`` and ``--tolerance``, the parsers of job classes and graphs, and how numbers print.

Start-up cost: every command's parser is built on each call, so this module and the command
modules import only the standard library at module level; a command's handler imports the
package's computing modules (numpy, scipy, numba, ...) when it runs. The names a parser offers as
choices are therefore written here and in the command modules, and ``tests/cli/test_cli.py`` checks that
they are the library's.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction

#: Solution methods of :meth:`analytic.ctmc.CTMC.stationary`, offered by every command that solves a chain.
METHODS = ("auto", "gth", "direct", "iterative")
#: Job-size laws of the simulators (the keys of :data:`analytic.simulation.laws.LAW_NAMES`).
SIZE_LAWS = ("exponential", "deterministic", "mixed_erlang", "pareto")


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
    import numpy as np  # loaded by then: the command that made ``value`` imported the library

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


def numbers(values: Iterable[float]) -> str:
    """Floats as a list of :func:`number`: ``[1.03737238524, 1.60665479915]`` (numbers, not quoted strings)."""
    return f"[{', '.join(number(float(value)) for value in values)}]"


def interval(value: float, half_width: float) -> str:
    """An estimate and the half-width of its confidence interval, e.g. ``1.292 ± 0.031``.

    The half-width keeps two significant digits (three when the first is 1, so that rounding moves
    it by at most 5 %) and the estimate is rounded to the half-width's last digit. Both are written
    in scientific notation (``2.300e-05 ± 1.10e-06``) when that digit lies beyond the sixth decimal
    or at the millions. A zero or non-finite half-width leaves the estimate at 6 significant digits.
    """
    if not (math.isfinite(value) and math.isfinite(half_width) and half_width > 0):
        return f"{value:.6g} ± {half_width:.2g}"
    width = f"{half_width:.2e}"
    if not width.startswith("1"):
        width = f"{half_width:.1e}"  # 0.0996 becomes 1.0e-01, two digits again
    mantissa, _, exponent = width.partition("e")
    decimals = len(mantissa) - 2 - int(exponent)  # position of the half-width's last digit
    if -6 < decimals <= 6:
        places = max(decimals, 0)
        return f"{round(value, decimals):.{places}f} ± {round(half_width, decimals):.{places}f}"
    magnitude = int(f"{value:e}".partition("e")[2]) if value else int(exponent)
    return f"{value:.{max(decimals + magnitude, 0)}e} ± {width}"


def add_command(commands: argparse._SubParsersAction, name: str, summary: str, description: str,
                run: Callable[[argparse.Namespace], Report], solves_chain: bool = False,
                aliases: Sequence[str] = ()) -> argparse.ArgumentParser:
    """A subcommand with its one-line ``summary`` (in ``analytic --help``), its ``description``
    (in its own ``--help``: what it computes and from which paper), ``--json``, and ``--method`` and
    ``--tolerance`` when it solves a Markov chain; ``aliases`` are its former names, kept for one release."""
    command = commands.add_parser(name, help=summary, description=f"{summary}. {description}", aliases=list(aliases))
    command.add_argument("--json", action="store_true", help="print the results as one JSON object")
    if solves_chain:
        command.add_argument("--method", choices=METHODS, default="auto",
                             help="stationary solver of the exact chain (default auto: GTH where it fits)")
        command.add_argument("--tolerance", type=float, default=1e-10,
                             help="relative accuracy the chain's probabilities must reach (default 1e-10)")
    command.set_defaults(run=run)
    return command


class Renamed(argparse.Action):
    """Store an option given under its new or its old spelling (``add_argument(new, old, action=Renamed)``);
    the old one, kept for one release, prints a note to stderr."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        if option_string != self.option_strings[0]:
            renamed_note(parser.prog, option_string, self.option_strings[0])
        setattr(namespace, self.dest, values)


def renamed_note(prog: str, old: str, new: str) -> None:
    """Say on stderr that the option or command ``old``, kept for one release, is renamed ``new``."""
    sys.stderr.write(f"{prog}: {old} is renamed {new}; the old name will be removed in version 0.3\n")


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
