"""The code style configured in pyproject.toml holds (ruff)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_ruff_check_is_clean():
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "analytic", "tests", "benchmarks"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
