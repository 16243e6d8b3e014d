"""Test configuration: hypothesis runs derandomized by default, so CI is reproducible.

Set HYPOTHESIS_PROFILE=explore to draw fresh random examples (and keep a failure database).
"""

import os
import sys
from pathlib import Path

from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent))   # the shared references of tests/references.py

settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
