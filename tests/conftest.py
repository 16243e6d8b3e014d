"""Test configuration: hypothesis runs derandomized by default, so CI is reproducible.

Set HYPOTHESIS_PROFILE=explore to draw fresh random examples (and keep a failure database).
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent))   # the shared references of tests/references.py

settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def built_docs(tmp_path_factory) -> Path:
    """The site, built once per test process as the README gives it (``python -m sphinx -W docs ...``):
    the directory of its HTML pages. A build that warns or fails fails every test that uses it."""
    root = Path(__file__).parent.parent
    out = tmp_path_factory.mktemp("docs")
    result = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "docs", str(out / "html"),
                             "-d", str(out / "doctrees")], cwd=root, capture_output=True, text=True)
    if result.returncode != 0 or "WARNING" in result.stderr:
        pytest.fail(f"the site does not build without a warning:\n{result.stdout}{result.stderr}")
    return out / "html"
