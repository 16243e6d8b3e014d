"""Execute one notebook of this folder top to bottom, at the papers' scale or at reduced scale.

A notebook whose simulations are heavy holds one code cell tagged ``parameters`` that sets
``FULL = True`` (its stored outputs are computed at the papers' scale). ``--reduced`` inserts
``FULL = False`` right after that cell, so the notebook runs at the reduced scale it derives from
``FULL`` (minutes instead of up to an hour), as the test suite runs it::

    python notebooks/run.py moldable_jobs --reduced             # writes moldable_jobs.reduced.ipynb
    python notebooks/run.py hesrpt --output hesrpt.out.ipynb    # the papers' scale

Needs the ``notebooks`` extra (``pip install ".[notebooks]"``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).parent


def reduced_scale(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The notebook with ``FULL = False`` inserted after its ``parameters`` cell, if it has one."""
    for position, cell in enumerate(notebook.cells):
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            notebook.cells.insert(position + 1, nbformat.v4.new_code_cell("FULL = False"))
            break
    return notebook


def execute(path: Path, reduced: bool, workdir: Path, timeout: int | None = None) -> nbformat.NotebookNode:
    """The notebook at ``path`` executed in ``workdir`` (at reduced scale if ``reduced``)."""
    notebook = nbformat.read(path, as_version=4)
    if reduced:
        notebook = reduced_scale(notebook)
    NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(workdir)}}).execute()
    return notebook


def main() -> None:
    names = sorted(p.stem for p in HERE.glob("*.ipynb"))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", choices=names, help="the notebook, without .ipynb")
    parser.add_argument("--reduced", action="store_true", help="run with FULL = False (minutes)")
    parser.add_argument("--output", type=Path, help="where to write the executed notebook "
                        "(default: NAME.reduced.ipynb or NAME.full.ipynb in the current folder)")
    args = parser.parse_args()
    notebook = execute(HERE / f"{args.name}.ipynb", args.reduced, Path.cwd())
    output = args.output or Path(f"{args.name}.{'reduced' if args.reduced else 'full'}.ipynb")
    nbformat.write(notebook, output)
    print(f"executed {args.name} ({'reduced' if args.reduced else 'full'} scale): {output}")


if __name__ == "__main__":
    main()
