"""Test configuration: hypothesis runs derandomized by default, so CI is reproducible.

Set HYPOTHESIS_PROFILE=explore to draw fresh random examples (and keep a failure database).
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

TESTS = Path(__file__).parent
sys.path.insert(0, str(TESTS))   # the shared references of tests/references.py

settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


#: Test modules by lane. Each is marked with its lane and ``slow``: ``pytest -m "not slow"`` is the
#: development lane (the README's command still runs everything).
LANES = {"contract/test_docs.py": "docs", "contract/test_docs_render.py": "docs",
         "contract/test_notebooks.py": "notebooks", "contract/test_reproduce.py": "reproduce"}


def pytest_collection_modifyitems(items):
    for item in items:
        lane = LANES.get(item.path.relative_to(TESTS).as_posix())
        if lane:
            item.add_marker(lane)
            item.add_marker("slow")


@pytest.fixture(scope="session")
def built_docs(tmp_path_factory) -> Path:
    """The site, built once per test run as the README gives it (``python -m sphinx -W docs ...``):
    the directory of its HTML pages. A build that warns or fails fails every test that uses it.

    Under pytest-xdist the workers share one build: the first to take the lock builds into the run's
    common temporary directory, the others wait and reuse it (where ``fcntl`` is missing, Windows,
    each worker builds its own).
    """
    try:
        import fcntl
    except ImportError:
        fcntl = None
    shared = tmp_path_factory.getbasetemp()
    if fcntl is not None and os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent                      # the directory every worker's basetemp lives in
    out = shared / "docs-build"
    with open(shared / "docs-build.lock", "w") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        if not (out / "result").exists():
            out.mkdir(exist_ok=True)
            result = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "docs",
                                     str(out / "html"), "-d", str(out / "doctrees")], cwd=Path(__file__).parent.parent,
                                    capture_output=True, text=True)
            failed = result.returncode != 0 or "WARNING" in result.stderr
            (out / "result").write_text(f"{result.stdout}{result.stderr}" if failed else "")
    message = (out / "result").read_text()
    if message:
        pytest.fail(f"the site does not build without a warning:\n{message}")
    return out / "html"
