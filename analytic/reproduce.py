"""The registry behind ``analytic reproduce``: paper results against the package's values.

Each module registers zero-argument functions with :func:`reproduces`; each returns one
:class:`Row` or a list of them. A row compares the value a paper states (or an independent
reference) with the value the package computes. Where exact computation shows that a paper's claim
does not hold, the row says so with ``expect_agreement=False`` and a note: it then passes when the
values differ, so the table stays honest and a silent "fix" of either side is caught.

Examples
--------
>>> from analytic.reproduce import Row
>>> Row("Erlang (1917)", "E_1(1) = 1/2", 0.5, 0.5, 1e-15).verdict
'agrees'
"""

from __future__ import annotations

import importlib
import math
import pkgutil
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from analytic.errors import InvalidParameterError

__all__ = ["Outcome", "Row", "collect", "reproduces"]

Value = float | int | bool | str

_REGISTRY: list[Callable[[], Row | Iterable[Row]]] = []


@dataclass(frozen=True)
class Row:
    """One line of the reproduction table.

    Attributes
    ----------
    paper : str
        Short citation, e.g. ``"Anselmi & Doncel, Lemma 1"``.
    statement : str
        What is compared, in one sentence.
    paper_value : float, bool or str
        The value printed in (or implied by) the paper, or an independent reference.
    value : float, bool or str
        The value the package computes.
    tolerance : float
        Largest absolute difference counted as agreement (numbers only; other values must be
        equal).
    expect_agreement : bool
        False where exact computation contradicts the paper: the row then passes when the values
        differ by more than the tolerance.
    note : str
        Context shown under the row, e.g. why a claim does not hold.
    """

    paper: str
    statement: str
    paper_value: Value
    value: Value
    tolerance: float = 0.0
    expect_agreement: bool = True
    note: str = ""

    @property
    def agrees(self) -> bool:
        """Whether the package's value matches the paper's within the tolerance."""
        numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool)
                      for v in (self.paper_value, self.value))
        if numbers:
            return math.isfinite(self.value) and abs(self.value - self.paper_value) <= self.tolerance
        return self.value == self.paper_value

    @property
    def passed(self) -> bool:
        """Whether the comparison came out as the package documents it."""
        return self.agrees == self.expect_agreement

    @property
    def verdict(self) -> str:
        """``agrees``, ``claim does not hold`` (documented), or a failure."""
        if self.expect_agreement:
            return "agrees" if self.agrees else "FAILS"
        return "claim does not hold" if not self.agrees else "FAILS (now agrees)"


@dataclass(frozen=True)
class Outcome:
    """Rows produced by one registered function, with its name, run time and any error."""

    source: str
    rows: tuple[Row, ...]
    seconds: float
    error: str = ""

    @property
    def passed(self) -> bool:
        return not self.error and all(row.passed for row in self.rows)


def reproduces(function: Callable[[], Row | Iterable[Row]]) -> Callable[[], Row | Iterable[Row]]:
    """Register a function whose rows appear in ``analytic reproduce``."""
    _REGISTRY.append(function)
    return function


def _import_all() -> None:
    """Import every module of the package so that their rows register."""
    import analytic

    for module in pkgutil.walk_packages(analytic.__path__, prefix="analytic."):
        if module.name not in ("analytic.cli", "analytic.__main__"):
            importlib.import_module(module.name)


def collect(select: str = "") -> list[Outcome]:
    """Run every registered function whose module or name contains ``select``."""
    if not isinstance(select, str):
        raise InvalidParameterError("select", select, "must be a string (part of a module or function name)")
    _import_all()
    outcomes = []
    for function in _REGISTRY:
        source = f"{function.__module__}.{function.__name__}"
        if select not in source:
            continue
        start = time.perf_counter()
        try:
            produced = function()
            rows = (produced,) if isinstance(produced, Row) else tuple(produced)
            error = ""
        except Exception as exc:  # a failing row is reported, not fatal to the table
            rows, error = (), f"{type(exc).__name__}: {exc}"
        outcomes.append(Outcome(source, rows, time.perf_counter() - start, error))
    return outcomes
