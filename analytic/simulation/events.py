"""Building blocks of compiled event loops: a min-heap of events on arrays, and chunked runs.

An event loop compiled with numba keeps its future events in two arrays, ``keys`` (event times)
and ``items`` (an integer naming the event, e.g. a slot of per-job data), and a size.
:func:`heap_push` and :func:`heap_pop` form a 4-ary heap (the children of ``i`` are ``4i + 1 ..
4i + 4``): O(log n) per operation with half the depth of a binary heap, and no allocation. Random
numbers are drawn in bulk outside the loop, chunk by chunk (:func:`chunks`), with one generator per
source of randomness (arrivals, sizes, decisions) so that the numbers a run uses do not depend on
the chunk length. ``NUMBA_DISABLE_JIT=1`` runs the same code in Python.

Examples
--------
>>> import numpy as np
>>> keys, items = np.empty(4), np.empty(4, dtype=np.int64)
>>> size = 0
>>> for time, event in [(3.0, 30), (1.0, 10), (2.0, 20)]:
...     size = heap_push(keys, items, size, time, event)
>>> heap_pop(keys, items, size)
(1.0, 10, 2)
>>> list(chunks(10, 4))
[(0, 4), (4, 4), (8, 2)]
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from analytic._kernels import kernel
from analytic.validation import integer

__all__ = ["CHUNK", "chunks", "heap_pop", "heap_push"]

#: Jobs per chunk of random numbers drawn in bulk (three float64 arrays of 2^16: 1.5 MB).
CHUNK = 1 << 16


@kernel
def heap_push(keys: np.ndarray, items: np.ndarray, size: int, key: float, item: int) -> int:
    """Insert ``(key, item)`` into the 4-ary heap of ``size`` entries (compiled with numba).

    Parameters
    ----------
    keys : numpy.ndarray of float
        The heap's keys (event times); entries ``0 .. size - 1`` are in use.
    items : numpy.ndarray of int
        The item of each key.
    size : int
        Entries in use.
    key : float
        The new key.
    item : int
        Its item.

    Returns
    -------
    int
        The new size.

    Raises
    ------
    IndexError
        The arrays are full.

    Examples
    --------
    >>> import numpy as np
    >>> keys, items = np.empty(4), np.empty(4, dtype=np.int64)
    >>> size = heap_push(keys, items, 0, 2.5, 7)
    >>> size = heap_push(keys, items, size, 1.0, 3)
    >>> heap_pop(keys, items, size)
    (1.0, 3, 1)
    """
    if size >= keys.shape[0]:
        raise IndexError("event heap is full")
    i = size
    while i > 0:
        parent = (i - 1) >> 2
        if keys[parent] <= key:
            break
        keys[i] = keys[parent]
        items[i] = items[parent]
        i = parent
    keys[i] = key
    items[i] = item
    return size + 1


@kernel
def heap_pop(keys: np.ndarray, items: np.ndarray, size: int) -> tuple[float, int, int]:
    """Remove the entry of smallest key from the heap of ``size`` entries (compiled with numba).

    Parameters
    ----------
    keys : numpy.ndarray of float
        The heap's keys.
    items : numpy.ndarray of int
        The item of each key.
    size : int
        Entries in use (>= 1).

    Returns
    -------
    tuple of (float, int, int)
        The key, its item and the new size.

    Raises
    ------
    IndexError
        The heap is empty.

    Examples
    --------
    >>> import numpy as np
    >>> keys, items = np.empty(2), np.empty(2, dtype=np.int64)
    >>> heap_pop(keys, items, heap_push(keys, items, 0, 0.5, 1))
    (0.5, 1, 0)
    """
    if size <= 0:
        raise IndexError("event heap is empty")
    key, item = keys[0], items[0]
    size -= 1
    last_key, last_item = keys[size], items[size]
    i = 0
    while True:
        first = 4 * i + 1
        if first >= size:
            break
        smallest, smallest_key = first, keys[first]
        for child in range(first + 1, min(first + 4, size)):
            if keys[child] < smallest_key:
                smallest, smallest_key = child, keys[child]
        if smallest_key >= last_key:
            break
        keys[i] = smallest_key
        items[i] = items[smallest]
        i = smallest
    keys[i] = last_key
    items[i] = last_item
    return key, item, size


def chunks(total: int, length: int = CHUNK) -> Iterator[tuple[int, int]]:
    """``(first, count)`` of consecutive chunks covering ``0 .. total - 1``.

    Parameters
    ----------
    total : int
        Number of items (>= 0).
    length : int
        Items per chunk (the last may be shorter).

    Yields
    ------
    tuple of (int, int)
        First index and length of each chunk.

    Examples
    --------
    >>> list(chunks(5, 2))
    [(0, 2), (2, 2), (4, 1)]
    """
    n = integer("total", total, minimum=0)
    step = integer("length", length)
    for first in range(0, n, step):
        yield first, min(step, n - first)
