"""The one notice of the first compilation of the package's numba kernels (analytic._kernels).

Each test runs fresh Python processes on a new empty numba cache (``NUMBA_CACHE_DIR``), as on a
fresh install, with kernels of a small module written for the test: compiling them costs a
fraction of a second.
"""

import os
import subprocess
import sys

import pytest

from analytic._kernels import NOTICE

TINY = '''
import numba

from analytic._kernels import kernel


@kernel
def double(x):
    return 2 * x


@kernel
def twice_plus_one(x):
    return double(x) + 1


@numba.njit
def uncached(x):
    return x - 1
'''


def _run(directory, code):
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_DISABLE_JIT"}
    env["NUMBA_CACHE_DIR"] = str(directory / "cache")
    return subprocess.Popen([sys.executable, "-c", code], cwd=directory, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _finish(process):
    out, err = process.communicate()
    assert process.returncode == 0, err
    return out, err


def test_notice_once_when_compiling_and_never_from_a_warm_cache(tmp_path):
    (tmp_path / "tiny.py").write_text(TINY)
    code = "import tiny; print(tiny.twice_plus_one(3), tiny.double(2.5))"
    out, err = _finish(_run(tmp_path, code))             # compiles three kernels: one line
    assert out == "7 5.0\n"
    assert err.splitlines() == [NOTICE]
    out, err = _finish(_run(tmp_path, code))             # all three loaded from the cache
    assert (out, err) == ("7 5.0\n", "")


@pytest.mark.slow
def test_concurrent_processes_compile_and_each_says_it_once(tmp_path):
    """Two processes compiling the same kernels into the same empty cache (as pytest-xdist workers do)."""
    (tmp_path / "tiny.py").write_text(TINY)
    code = "import tiny; print(tiny.twice_plus_one(3))"
    for out, err in [_finish(p) for p in [_run(tmp_path, code), _run(tmp_path, code)]]:
        assert out == "7\n"
        assert err.splitlines() in ([NOTICE], [])        # the slower one may find the other's kernels saved
    assert _finish(_run(tmp_path, code)) == ("7\n", "")


@pytest.mark.slow
def test_notice_is_silenced_by_logging_and_not_given_for_other_kernels(tmp_path):
    (tmp_path / "tiny.py").write_text(TINY)
    assert _finish(_run(tmp_path, "import tiny; print(tiny.uncached(3))")) == ("2\n", "")   # not the package's
    silenced = "import logging, tiny; logging.getLogger('analytic').setLevel(logging.ERROR); print(tiny.double(3))"
    assert _finish(_run(tmp_path, silenced)) == ("6\n", "")
