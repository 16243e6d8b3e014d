"""The registry behind ``analytic reproduce``: paper results against the package's values.

Each module registers zero-argument functions with :func:`reproduces`; each returns one
:class:`Row` or a list of them. A row compares the value a paper states (or an independent
reference) with the value the package computes. Where a paper's statement does not hold, the row
says so with ``expect_agreement=False``, a note with the numbers, and one of five kinds (:data:`KINDS`):

``"contradicted"``
    a statement about the model that exact computation refutes;
``"printed estimate differs"``
    a number the paper obtained by simulation differs from the model's exact value (the note says
    whether the paper's own procedure, reproduced, explains the gap);
``"assumption fails"``
    an assumption of the paper does not hold in the setting (the note says what the paper says to do);
``"reading"``
    the words allow two readings and this row is one of them (a row of kind ``"reading"`` may also
    agree: the verdict under each reading is shown);
``"not reproduced"``
    the paper's number rests on data or an algorithm that is not available (traces, a reference's
    method): the package's reconstruction, stated in the note, does not give it, which is no verdict
    on the paper.

A row that expects disagreement passes when the values differ, so the table stays honest and a
silent "fix" of either side is caught.

Examples
--------
>>> from analytic.reproduce import Row
>>> Row("Erlang (1917)", "E_1(1) = 1/2", 0.5, 0.5, 1e-15).verdict
'agrees'
>>> Row("A paper, Thm 1", "x = 1", 1.0, 2.0, 1e-12, expect_agreement=False, kind="contradicted").verdict
'contradicted'
"""

from __future__ import annotations

import importlib
import math
import pkgutil
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from analytic.errors import InvalidParameterError
from analytic.validation import instances

__all__ = ["KINDS", "Outcome", "Row", "Verdict", "collect", "reproduces", "sources", "verdict_table"]

Value = float | int | bool | str

#: The five kinds of a statement that does not hold, as the paper pages give them in their verdicts.
KINDS = ("contradicted", "printed estimate differs", "assumption fails", "reading", "not reproduced")


def _label(holds: bool, kind: str) -> str:
    """How a statement's verdict reads: ``holds``, or the kind of the way it does not."""
    if kind == "reading":
        return "holds under this reading" if holds else "does not hold under this reading"
    return "holds" if holds else kind

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
        False where the paper's statement does not hold: the row then passes when the values
        differ by more than the tolerance.
    note : str
        Context shown under the row, e.g. why a claim does not hold.
    kind : str
        One of :data:`KINDS`; required when ``expect_agreement`` is False, and otherwise allowed
        only as ``"reading"`` (the reading under which the statement holds).

    Raises
    ------
    InvalidParameterError
        A row that expects disagreement without a kind, or an unknown kind.

    Examples
    --------
    >>> row = Row("Erlang (1917)", "E_1(1) = 1/2", 0.5, 0.5, 1e-15)
    >>> row.agrees, row.passed, row.verdict
    (True, True, 'agrees')
    """

    paper: str
    statement: str
    paper_value: Value
    value: Value
    tolerance: float = 0.0
    expect_agreement: bool = True
    note: str = ""
    kind: str = ""

    def __post_init__(self) -> None:
        allowed = ("", "reading") if self.expect_agreement else KINDS
        if self.kind not in allowed:
            raise InvalidParameterError("kind", self.kind, f"must be one of {allowed} for a statement that "
                                                           f"{'holds' if self.expect_agreement else 'does not hold'}")

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
        """``agrees``, the kind of a documented disagreement, or a failure."""
        if not self.passed:
            return "FAILS" if self.expect_agreement else "FAILS (now agrees)"
        return "agrees" if self.expect_agreement and not self.kind else _label(self.expect_agreement, self.kind)


@dataclass(frozen=True)
class Verdict:
    """One line of a notebook's verdict table: a paper's statement and what the package finds.

    Attributes
    ----------
    claim : str
        The place in the paper and the statement, e.g. ``"Lemma 2: at most one job on < i1 servers"``.
    computed : str
        What the package computes, with the numbers.
    holds : bool
        Whether the statement holds under the computation.
    kind : str
        One of :data:`KINDS`: how the statement fails when it does; required when ``holds`` is
        False. A notebook computes ``holds``, so it names the kind in advance.

    Examples
    --------
    >>> Verdict("Thm 1 (ii): the optimum is unique", "two optima, D = 0.5", False, "contradicted").label
    'contradicted'
    """

    claim: str
    computed: str
    holds: bool
    kind: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ("", *KINDS) or not (self.holds or self.kind):
            condition = "required, since the statement does not hold" if not self.holds else "or empty"
            raise InvalidParameterError("kind", self.kind, f"must be one of {KINDS} ({condition})")

    @property
    def label(self) -> str:
        """``holds``, ``holds under this reading``, or the kind of the way it does not hold."""
        return _label(bool(self.holds), self.kind if not self.holds or self.kind == "reading" else "")


def verdict_table(verdicts: Iterable[Verdict]) -> str:
    """The Markdown table that ends each notebook: claim, what was computed, verdict (bold if not holding).

    Parameters
    ----------
    verdicts : iterable of Verdict
        The notebook's verdicts, in order.

    Returns
    -------
    str
        A Markdown table; the verdict of a statement that does not hold is in bold.


    Examples
    --------
    >>> print(verdict_table([Verdict("Sec. 7: D* = 0.2", "0.2", True)]))
    | claim | computed | verdict |
    |---|---|---|
    | Sec. 7: D* = 0.2 | 0.2 | holds |
    """
    lines = ["| claim | computed | verdict |", "|---|---|---|"]
    for v in instances("verdicts", verdicts, Verdict):
        label = v.label if v.holds else f"**{v.label}**"
        lines.append(f"| {v.claim} | {v.computed} | {label} |")
    return "\n".join(lines)


@dataclass(frozen=True)
class Outcome:
    """Rows produced by one registered function, with its name, run time and any error.

    Attributes
    ----------
    source : str
        ``module.function`` of the registered function.
    rows : tuple of Row
        Its rows (empty when it raised).
    seconds : float
        How long it took.
    error : str
        ``"ExceptionType: message"`` when it raised, else empty.

    Examples
    --------
    >>> outcome = collect("_gth_row")[0]
    >>> outcome.source, outcome.passed
    ('analytic.ctmc._published._gth_row', True)
    """

    source: str
    rows: tuple[Row, ...]
    seconds: float
    error: str = ""

    @property
    def passed(self) -> bool:
        """Whether the function ran and every row came out as the package documents it."""
        return not self.error and all(row.passed for row in self.rows)


def reproduces(function: Callable[[], Row | Iterable[Row]]) -> Callable[[], Row | Iterable[Row]]:
    """Register a function whose rows appear in ``analytic reproduce``.

    Parameters
    ----------
    function : callable
        Takes no argument and returns a :class:`Row` or an iterable of them.

    Returns
    -------
    callable
        ``function`` itself (use it as a decorator).

    Examples
    --------
    >>> @reproduces
    ... def _half():
    ...     return Row("Erlang (1917)", "E_1(1) = 1/2", 0.5, 0.5, 1e-15)
    >>> [o.passed for o in collect("_half")]
    [True]
    >>> _REGISTRY.remove(_half)
    """
    _REGISTRY.append(function)
    return function


def _import_all() -> None:
    """Import every module of the package so that their rows register."""
    import analytic

    for module in pkgutil.walk_packages(analytic.__path__, prefix="analytic."):
        if module.name.split(".")[1] not in ("cli", "__main__"):
            importlib.import_module(module.name)


def source_name(function: Callable[[], Row | Iterable[Row]]) -> str:
    return f"{function.__module__}.{function.__name__}"


def sources() -> list[str]:
    """The ``module.function`` name of every registered row function: what :func:`collect` selects from.

    Returns
    -------
    list of str
        In registration order.

    Examples
    --------
    >>> "analytic.splitting.paper._lemma1_rows" in sources()
    True
    """
    _import_all()
    return [source_name(function) for function in _REGISTRY]


def collect(select: str = "") -> list[Outcome]:
    """Run every registered function whose module or name contains ``select``.

    Parameters
    ----------
    select : str
        Part of ``module.function``; empty selects every row.

    Returns
    -------
    list of Outcome
        One per selected function, in registration order; a function that raises gives an outcome
        with the error, not an exception.

    Raises
    ------
    InvalidParameterError
        ``select`` is not a string.

    Examples
    --------
    >>> [row.verdict for outcome in collect("_lemma1_rows") for row in outcome.rows]
    ['agrees', 'agrees', 'agrees']
    """
    if not isinstance(select, str):
        raise InvalidParameterError("select", select, "must be a string (part of a module or function name)")
    return [run_function(function) for function in selected_functions(select)]


def selected_functions(select: str) -> list[Callable[[], Row | Iterable[Row]]]:
    """The registered functions whose ``module.function`` contains ``select`` (``analytic reproduce``
    runs them one by one to show its progress)."""
    _import_all()
    return [function for function in _REGISTRY if select in source_name(function)]


def run_function(function: Callable[[], Row | Iterable[Row]]) -> Outcome:
    """The outcome of one registered function: its rows, its time, or its error."""
    start = time.perf_counter()
    try:
        produced = function()
        rows = (produced,) if isinstance(produced, Row) else tuple(produced)
        error = ""
    except Exception as exc:  # a failing row is reported, not fatal to the table
        rows, error = (), f"{type(exc).__name__}: {exc}"
    return Outcome(source_name(function), rows, time.perf_counter() - start, error)
