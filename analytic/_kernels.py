"""The decorator of the package's numba kernels, and the one notice of their first compilation.

:func:`kernel` is ``numba.njit(cache=True)``: numba compiles a kernel on its first call and saves it
in its cache (``__pycache__`` next to the module, or ``NUMBA_CACHE_DIR``), from which later
processes load it in a fraction of a second. From an empty cache, a call reaching the exact CTMC
solver spends about 4 s of CPU compiling on a small chain and 15–20 s on a large one or in a
simulator (``benchmarks/first_call.py``), so the
first compilation of one of these kernels in a process is logged once, at level WARNING, like
matplotlib's notice that it builds its font cache: without logging configured, Python prints the
line on stderr; ``logging.getLogger("analytic").setLevel(logging.ERROR)`` silences it.

numba emits its ``numba:compile`` event only when it compiles, never when it loads from the cache,
so a warm cache prints nothing. Nothing is shared between processes: workers compiling at the same
time (pytest-xdist) each print at most one line, and numba writes its cache files atomically.
"""

from __future__ import annotations

import logging
from typing import Any

import numba
from numba.core import event

from analytic import _double_double

_log = logging.getLogger(__name__)
NOTICE = ("analytic is compiling its numba kernels on first use (once per install: about 4 s of CPU for a small "
          "exact chain, 15-20 s for a large one or a simulator); later runs load them from numba's cache")

#: The dispatchers made by :func:`kernel` (numba makes none under ``NUMBA_DISABLE_JIT=1``).
_KERNELS: set[Any] = set()


def kernel(function: Any = None, **options: Any) -> Any:
    """``numba.njit(cache=True, **options)``, as ``@kernel`` or ``@kernel(inline="always")``."""
    if function is None:
        return lambda function: kernel(function, **options)
    compiled = numba.njit(cache=True, **options)(function)
    _KERNELS.add(compiled)
    return compiled


#: :func:`analytic._double_double.two_sum` and ``two_product`` compiled for kernels (inlined where called).
two_sum = kernel(inline="always")(_double_double.two_sum)
two_product = kernel(inline="always")(_double_double.two_product)


class _FirstCompile(event.Listener):
    """Logs :data:`NOTICE` when numba first compiles one of the package's kernels in this process
    (numba holds its compiler lock meanwhile, so threads cannot both see ``said`` false)."""

    said = False

    def on_start(self, ev: event.Event) -> None:
        if not self.said and ev.data["dispatcher"] in _KERNELS:
            self.said = True
            _log.warning(NOTICE)

    def on_end(self, ev: event.Event) -> None:
        pass


event.register("numba:compile", _FirstCompile())
