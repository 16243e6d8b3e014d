"""Tests of analytic.splitting._engine's job-table layout (the event loops are checked through
simulate_multiserver in test_simulation.py).

Reference: the column-major layout of the same values built by numpy (``np.asfortranarray`` of the
rows, read in memory order), independent of the kernel's in-place moves.
"""

import numpy as np
import pytest

from analytic.splitting._engine import _by_column


@pytest.mark.parametrize("old,new", [(0, 5), (3, 4), (4, 8), (5, 13), (256, 512), (7, 7)])
@pytest.mark.parametrize("dtype", [np.int64, np.float64])
def test_by_column_moves_the_columns_to_the_grown_table(old, new, dtype):
    """A table laid out by column for ``old`` slots, then enlarged by rows as the driver does, is laid
    out by column for ``new`` slots: each slot keeps its values, whatever the new rows held."""
    width = 11
    rows = np.arange(old * width, dtype=dtype).reshape(old, width) + 1
    table = np.asfortranarray(rows).ravel(order="K").reshape(old, width)  # laid out by column for `old` slots
    grown = np.concatenate([table, np.full((new - old, width), -7, dtype=dtype)])  # the driver's np.concatenate
    _by_column(grown, old)
    columns = grown.reshape(width, new)
    np.testing.assert_array_equal(columns[:, :old], rows.T)


def test_by_column_of_a_laid_out_table_changes_nothing():
    table = np.arange(40, dtype=np.int64).reshape(8, 5)
    _by_column(table, 8)
    np.testing.assert_array_equal(table, np.arange(40).reshape(8, 5))
