"""Execute every notebook in notebooks/ top to bottom; a cell that raises fails the test.

A notebook whose simulations are heavy holds one code cell tagged ``parameters`` that sets
``FULL = True`` (its stored outputs are computed at paper scale). The test inserts ``FULL = False``
right after that cell, so the same notebook runs at the reduced scale it derives from ``FULL``.
"""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


def reduced_scale(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The notebook with ``FULL = False`` inserted after its ``parameters`` cell, if it has one."""
    for position, cell in enumerate(notebook.cells):
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            notebook.cells.insert(position + 1, nbformat.v4.new_code_cell("FULL = False"))
            break
    return notebook


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, tmp_path):
    notebook = reduced_scale(nbformat.read(path, as_version=4))
    NotebookClient(notebook, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()


def test_reduced_scale_overrides_the_parameters_cell():
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("FULL = True", metadata={"tags": ["parameters"]}),
                                               nbformat.v4.new_code_cell("x = 1 if FULL else 2")])
    sources = [cell.source for cell in reduced_scale(notebook).cells]
    assert sources == ["FULL = True", "FULL = False", "x = 1 if FULL else 2"]
