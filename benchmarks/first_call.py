"""First-call cost of each Python block of README.md: cold (empty numba cache) and warm.

Run as ``python benchmarks/first_call.py`` (about a minute on two cores).

Each block runs in a fresh ``python -c`` child, twice with ``NUMBA_CACHE_DIR`` pointed at the same
new empty directory: the first run (cold) compiles every numba kernel the block reaches and saves
them there, as on a fresh install; the second (warm) loads them. The cost is the child's CPU time
(user + system, from ``resource.getrusage(RUSAGE_CHILDREN)``), which a busy machine stretches less
than wall time; wall time is printed too. The baseline, ``python -c "import numpy, scipy"`` timed
the same way in the same run, gives each cost as a ratio that travels between machines. The target
is at most 5 s of CPU per block, cold; whether it is met is printed, never asserted. The cold run's
``compile notice`` column says whether the package's one-line notice of the first compilation was
logged.
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
TARGET = 5.0    # seconds of CPU per README block, cold
NOTICE = "compiling its numba kernels"


def blocks(text: str) -> list[tuple[str, str]]:
    """The README's Python blocks, each named by the line introducing it (up to its first parenthesis or colon)."""
    found = []
    for match in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M):
        before = [line for line in text[:match.start()].splitlines() if line.strip()]
        found.append((re.split(r"[(:]", before[-1])[0].strip() if before else "block", match.group(1)))
    return found


def child(code: str, cache: str) -> tuple[float, float, str]:
    """CPU seconds, wall seconds and stderr of ``python -c code`` with the numba cache in ``cache``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-c", code], env=env, cwd=cache, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode:
        raise RuntimeError(f"the block failed:\n{code}\n{run.stderr}")
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall, run.stderr


def main() -> None:
    with tempfile.TemporaryDirectory() as empty:
        baseline = min(child("import numpy, scipy", empty)[0] for _ in range(3))
    print(f"baseline: python -c 'import numpy, scipy' takes {baseline:.2f} s of CPU (best of 3)")
    print(f"target: each README block <= {TARGET:g} s of CPU with an empty numba cache\n")
    print(f"{'README block':<22} {'cold CPU s':>10} {'x base':>7} {'wall s':>7} {'warm CPU s':>10} {'x base':>7} "
          f"{'wall s':>7}  {'compile notice':<14} target")
    for name, code in blocks(README.read_text(encoding="utf-8")):
        with tempfile.TemporaryDirectory() as cache:
            cold, cold_wall, said = child(code, cache)
            warm, warm_wall, _ = child(code, cache)
        print(f"{name:<22} {cold:>10.2f} {cold / baseline:>7.1f} {cold_wall:>7.2f} {warm:>10.2f} {warm / baseline:>7.1f} "
              f"{warm_wall:>7.2f}  {'yes' if NOTICE in said else 'no':<14} {'met' if cold <= TARGET else 'missed'}")


if __name__ == "__main__":
    main()
