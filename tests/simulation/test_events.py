"""Tests of analytic.simulation.events: the array heap sorts like numpy, chunks cover a run.

Reference: numpy's stable sort of the same keys.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytic.errors import InvalidParameterError
from analytic.simulation import chunks, heap_pop, heap_push


@settings(deadline=None)              # the first call loads the compiled heap
@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=200))
def test_heap_pops_keys_in_sorted_order_with_their_items(keys):
    heap_keys, heap_items = np.empty(len(keys)), np.empty(len(keys), dtype=np.int64)
    size = 0
    for item, key in enumerate(keys):
        size = heap_push(heap_keys, heap_items, size, key, item)
    popped = []
    while size:
        key, item, size = heap_pop(heap_keys, heap_items, size)
        popped.append((key, keys[item]))
    assert [k for k, _ in popped] == sorted(keys)
    assert all(k == original for k, original in popped)


def test_interleaved_pushes_and_pops():
    rng = np.random.default_rng(0)
    keys, items = np.empty(64), np.empty(64, dtype=np.int64)
    size, pending, clock = 0, [], 0.0
    for step in range(2000):
        if size < 64 and (size == 0 or rng.random() < 0.55):
            key = clock + rng.exponential()
            size = heap_push(keys, items, size, key, step)
            pending.append(key)
        else:
            key, _, size = heap_pop(keys, items, size)
            assert key == min(pending)
            pending.remove(key)
            clock = key


def test_full_and_empty_heaps_raise():
    keys, items = np.empty(1), np.empty(1, dtype=np.int64)
    size = heap_push(keys, items, 0, 1.0, 0)
    with pytest.raises(IndexError, match="full"):
        heap_push(keys, items, size, 2.0, 1)
    with pytest.raises(IndexError, match="empty"):
        heap_pop(keys, items, 0)


def test_chunks_cover_the_run():
    assert list(chunks(0)) == []
    parts = list(chunks(1_000_003, 1 << 16))
    assert parts[0] == (0, 1 << 16) and sum(c for _, c in parts) == 1_000_003
    assert all(first == sum(c for _, c in parts[:k]) for k, (first, _) in enumerate(parts))
    with pytest.raises(InvalidParameterError, match="length = 0: must be a positive integer"):
        list(chunks(10, 0))
