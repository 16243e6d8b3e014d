"""Tests of the reproduction registry and of every registered row (the table must pass)."""

import pytest

from analytic.errors import InvalidParameterError
from analytic.reproduce import Row, Verdict, collect, reproduces, sources, verdict_table


def test_rows_are_registered():
    assert len(sources()) >= 30


def test_sources_are_what_collect_selects_from():
    """A registered function appears under its module.function name, which selects it alone; unregistered, it is gone."""
    from analytic import reproduce

    @reproduces
    def _only_in_this_test():
        return Row("test", "1 = 1", 1.0, 1.0, 0.1)

    name = f"{__name__}._only_in_this_test"
    try:
        assert sources()[-1] == name and sources().count(name) == 1
        assert [o.source for o in collect(name)] == [name]
    finally:
        reproduce._REGISTRY.remove(_only_in_this_test)
    assert name not in sources() and collect(name) == []


# One test per registered function, so that pytest-xdist spreads the slow simulated ones.
@pytest.mark.parametrize("source", sources())
def test_every_registered_row_passes(source):
    outcomes = [o for o in collect(source) if o.source == source]
    assert len(outcomes) == 1 and outcomes[0].rows
    failures = [(o.source, o.error or [r for r in o.rows if not r.passed]) for o in outcomes if not o.passed]
    assert not failures


@pytest.mark.parametrize("row,verdict,passed", [
    (Row("p", "s", 1.0, 1.0 + 1e-13, 1e-12), "agrees", True),
    (Row("p", "s", 1.0, 1.1, 1e-12), "FAILS", False),
    (Row("p", "s", 1.0, float("nan"), 1.0), "FAILS", False),
    (Row("p", "s", 0.2, 0.25, 1e-3, expect_agreement=False, kind="contradicted"), "contradicted", True),
    (Row("p", "s", 0.2, 0.25, 1e-3, expect_agreement=False, kind="printed estimate differs"),
     "printed estimate differs", True),
    (Row("p", "s", 0.2, 0.25, 1e-3, expect_agreement=False, kind="assumption fails"), "assumption fails", True),
    (Row("p", "s", 0.2, 0.25, 1e-3, expect_agreement=False, kind="reading"), "does not hold under this reading", True),
    (Row("p", "s", 0.2, 0.2, 1e-3, kind="reading"), "holds under this reading", True),
    (Row("p", "s", 0.2, 0.25, 1e-3, expect_agreement=False, kind="not reproduced"), "not reproduced", True),
    (Row("p", "s", 0.2, 0.2, 1e-3, expect_agreement=False, kind="contradicted"), "FAILS (now agrees)", False),
    (Row("p", "s", True, True), "agrees", True),
    (Row("p", "s", "i", "ii"), "FAILS", False),
])
def test_row_verdicts(row, verdict, passed):
    assert row.verdict == verdict
    assert row.passed is passed


@pytest.mark.parametrize("kwargs,match", [
    (dict(expect_agreement=False), "kind = '': must be one of"),
    (dict(expect_agreement=False, kind="wrong"), "kind = 'wrong': must be one of"),
    (dict(kind="contradicted"), "kind = 'contradicted': must be one of \\('', 'reading'\\) for a statement that holds"),
])
def test_row_kind_is_required_and_checked(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        Row("p", "s", 1.0, 2.0, 0.0, **kwargs)


@pytest.mark.parametrize("holds,kind,label", [
    (True, "", "holds"), (True, "reading", "holds under this reading"),
    (False, "reading", "does not hold under this reading"), (False, "contradicted", "contradicted"),
    (False, "printed estimate differs", "printed estimate differs"), (False, "assumption fails", "assumption fails"),
    (True, "contradicted", "holds"),           # the kind it would have, named in advance
])
def test_verdict_labels(holds, kind, label):
    assert Verdict("c", "x", holds, kind).label == label


def test_verdict_table_marks_what_does_not_hold():
    table = verdict_table([Verdict("a", "1", True), Verdict("b", "2", False, "contradicted")]).splitlines()
    assert table[2:] == ["| a | 1 | holds |", "| b | 2 | **contradicted** |"]


@pytest.mark.parametrize("holds,kind", [(False, ""), (True, "wrong"), (False, "wrong")])
def test_verdict_kind_is_required_and_checked(holds, kind):
    with pytest.raises(InvalidParameterError, match=f"kind = '{kind}': must be one of"):
        Verdict("c", "x", holds, kind)


def test_collect_filters_by_source():
    outcomes = collect("_product_form")
    assert [o.source for o in outcomes] == ["analytic.ctmc._published._product_form_row"]
