"""Execute every notebook in notebooks/ top to bottom at reduced scale; a cell that raises fails the test.

A notebook whose simulations are heavy holds one code cell tagged ``parameters`` that sets
``FULL = True`` (its stored outputs are computed at paper scale). ``notebooks/run.py`` (the runner
users call with ``--reduced``) inserts ``FULL = False`` right after that cell, so the same notebook
runs at the reduced scale it derives from ``FULL``.
"""

import importlib.util
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

FOLDER = Path(__file__).parents[2] / "notebooks"
NOTEBOOKS = sorted(FOLDER.glob("*.ipynb"))
_spec = importlib.util.spec_from_file_location("notebook_runner", FOLDER / "run.py")
runner = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(runner)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, tmp_path):
    notebook = runner.execute(path, reduced=True, workdir=tmp_path, timeout=300)
    outputs = [output.get("text", "") for cell in notebook.cells for output in cell.get("outputs", [])]
    renamed = [text for text in outputs if "AnalyticDeprecationWarning" in text]
    assert not renamed, f"the notebook uses a renamed name (CHANGELOG.md gives the new one): {renamed[0][:300]}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_says_how_to_run_it_reduced(path):
    """The parameters cell names the runner's command, so a reader finds the reduced scale."""
    cells = [c for c in nbformat.read(path, as_version=4).cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1 and cells[0].source.startswith("FULL = True")
    assert f"python notebooks/run.py {path.stem} --reduced" in cells[0].source


def test_the_runner_refuses_an_unknown_notebook():
    result = subprocess.run([sys.executable, str(FOLDER / "run.py"), "no_such_notebook", "--reduced"],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 2 and "invalid choice: 'no_such_notebook'" in result.stderr


def test_reduced_scale_overrides_the_parameters_cell():
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("FULL = True", metadata={"tags": ["parameters"]}),
                                               nbformat.v4.new_code_cell("x = 1 if FULL else 2")])
    sources = [cell.source for cell in runner.reduced_scale(notebook).cells]
    assert sources == ["FULL = True", "FULL = False", "x = 1 if FULL else 2"]
