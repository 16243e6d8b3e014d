"""Modules renamed private keep their old name for one release: ``import old`` warns and gives the new module.

The expected module is the one named in :data:`analytic._deprecation.MOVED_MODULES`, imported under its new
name (the same object, not a copy).
"""

import importlib
import sys
import warnings

import pytest

from analytic._deprecation import MOVED_MODULES
from analytic.errors import AnalyticDeprecationWarning


@pytest.fixture
def forget():
    """Forget the old names an import registers (``sys.modules`` and the parent's attribute), before and after."""
    names: list[str] = []

    def clear() -> None:
        for old in names:
            sys.modules.pop(old, None)
            parent, _, short = old.rpartition(".")
            if parent in sys.modules and short in vars(sys.modules[parent]):
                delattr(sys.modules[parent], short)

    def track(old: str) -> None:
        names.append(old)
        clear()

    yield track
    clear()


@pytest.mark.parametrize("old", sorted(MOVED_MODULES))
def test_old_module_name_warns_and_is_the_new_module(old, forget):
    new = importlib.import_module(MOVED_MODULES[old])
    forget(old)
    with pytest.warns(AnalyticDeprecationWarning, match=rf"module {old} is renamed {MOVED_MODULES[old]}"):
        module = importlib.import_module(old)
    assert module is new


def test_names_imported_from_an_old_module_are_the_new_objects(forget):
    from analytic.ctmc._gth import Factorization

    forget("analytic.ctmc.gth")
    with pytest.warns(AnalyticDeprecationWarning, match="analytic.ctmc.gth"):
        from analytic.ctmc.gth import Factorization as old
    assert old is Factorization


def test_the_new_names_import_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for new in MOVED_MODULES.values():
            importlib.import_module(new)


def test_the_old_kernel_of_double_double_still_splits_a_sum_exactly(forget):
    """analytic.ctmc.compensated.two_sum was a compiled kernel; its new home serves the same error-free sum."""
    forget("analytic.ctmc.compensated")
    with pytest.warns(AnalyticDeprecationWarning):
        from analytic.ctmc.compensated import two_sum
    assert two_sum(1.0, 2.0**-60) == (1.0, 2.0**-60)      # 1 + 2**-60 rounds to 1, the error term keeps 2**-60
