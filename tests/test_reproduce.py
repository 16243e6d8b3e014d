"""Tests of the reproduction registry and of every registered row (the table must pass)."""

import pytest

from analytic.reproduce import Row, collect


def test_every_registered_row_passes():
    outcomes = collect()
    assert outcomes, "no rows registered"
    failures = [(o.source, o.error or [r for r in o.rows if not r.passed]) for o in outcomes if not o.passed]
    assert not failures


@pytest.mark.parametrize("row,verdict,passed", [
    (Row("p", "s", 1.0, 1.0 + 1e-13, 1e-12), "agrees", True),
    (Row("p", "s", 1.0, 1.1, 1e-12), "FAILS", False),
    (Row("p", "s", 1.0, float("nan"), 1.0), "FAILS", False),
    (Row("p", "s", 0.2, 0.25, 1e-3, expect_agreement=False), "claim does not hold", True),
    (Row("p", "s", 0.2, 0.2, 1e-3, expect_agreement=False), "FAILS (now agrees)", False),
    (Row("p", "s", True, True), "agrees", True),
    (Row("p", "s", "i", "ii"), "FAILS", False),
])
def test_row_verdicts(row, verdict, passed):
    assert row.verdict == verdict
    assert row.passed is passed


def test_collect_filters_by_source():
    outcomes = collect("_product_form")
    assert [o.source for o in outcomes] == ["analytic.ctmc.chain._product_form_row"]
