"""Tests of analytic.simulation.replications: streams, executors (serial, threads, processes, Dask), progress.

Reference: the same function run serially with the children of SeedSequence(seed).spawn(k) built
by numpy directly; every executor must return exactly those numbers, in replication order.
"""

import functools
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pytest

from analytic.errors import InvalidParameterError
from analytic.simulation import SerialExecutor, replicate, root_seed, streams


def uniforms(seed, count=5, delay=0.0):
    """A replication: ``count`` uniforms from the stream; the later replications finish first."""
    time.sleep(delay * (3 - seed.spawn_key[-1]) if delay else 0.0)
    return np.random.default_rng(seed).random(count).tolist()


def reference(seed, replications):
    return [np.random.default_rng(child).random(5).tolist() for child in np.random.SeedSequence(seed).spawn(replications)]


@pytest.mark.parametrize("make", [SerialExecutor, lambda: ThreadPoolExecutor(3), lambda: ProcessPoolExecutor(2)],
                         ids=["serial", "threads", "processes"])
def test_every_executor_gives_the_serial_numbers_in_order(make):
    with make() as executor:
        results = replicate(functools.partial(uniforms, delay=0.02), 4, seed=12, executor=executor)
    assert results == reference(12, 4)


def test_default_executor_is_a_process_pool_with_the_same_numbers():
    assert replicate(uniforms, 3, seed=5) == reference(5, 3)


def test_dask_cluster_executor_gives_the_serial_numbers():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        results = replicate(uniforms, 4, seed=12, executor=client.get_executor())
    assert results == reference(12, 4)


def test_streams_are_the_spawned_children_and_independent():
    children = streams(3, 4)
    assert [c.spawn_key for c in children] == [(0,), (1,), (2,), (3,)]
    draws = [np.random.default_rng(c).random(3).tolist() for c in children]
    assert len({tuple(d) for d in draws}) == 4


def test_root_seed_is_repeatable_from_a_seed_sequence_and_advances_a_generator():
    sequence = np.random.SeedSequence(9)
    first, second = streams(sequence, 2), streams(sequence, 2)
    assert [c.generate_state(2).tolist() for c in first] == [c.generate_state(2).tolist() for c in second]
    rng = np.random.default_rng(1)
    assert root_seed(rng).entropy != root_seed(rng).entropy
    assert root_seed(None).entropy != root_seed(None).entropy


def test_progress_bar_only_when_asked(capsys):
    replicate(uniforms, 2, seed=1, executor=SerialExecutor())
    assert capsys.readouterr().err == ""
    replicate(uniforms, 2, seed=1, executor=SerialExecutor(), progress=True, description="runs")
    assert "runs" in capsys.readouterr().err


def failing(seed):
    raise ZeroDivisionError("inside a replication")


def test_an_exception_of_a_replication_names_its_seed_and_chains_the_original():
    """The package's one rule for user callables: InvalidParameterError naming the input, original chained."""
    with pytest.raises(InvalidParameterError, match=r"(?s)^function = SeedSequence.*failed on this input "
                                                    r"\(ZeroDivisionError: inside a replication\)") as caught:
        replicate(failing, 2, seed=0, executor=SerialExecutor())
    assert isinstance(caught.value.__cause__, ZeroDivisionError)


@pytest.mark.parametrize("kwargs,match", [
    (dict(executor="processes"), "executor = 'processes': must be a concurrent.futures.Executor"),
    (dict(seed=-1), "seed = -1: must be None, an integer >= 0, a numpy SeedSequence or a numpy Generator"),
    (dict(seed=1.5), "seed = 1.5: must be None"),
    (dict(replications=0), "replications = 0: must be a positive integer"),
    (dict(function="abc"), "function = 'abc': must be callable"),
    (dict(progress="yes"), "progress = 'yes': must be None"),
])
def test_bad_input_raises(kwargs, match):
    arguments = dict(function=uniforms, replications=2, seed=0, executor=SerialExecutor()) | kwargs
    with pytest.raises(InvalidParameterError, match=match):
        replicate(**arguments)


def test_streams_names_its_count():
    with pytest.raises(InvalidParameterError, match="count = 0: must be a positive integer"):
        streams(1, 0)


def _entropy(seed: np.random.SeedSequence) -> int:
    return seed.entropy


@pytest.mark.parametrize("count", [10**12, 10**30, 10**400])
def test_random_streams_beyond_memory_are_refused_before_spawning(count):
    """streams(1, 10**30) and replicate(..., 10**30) raised a raw OverflowError in SeedSequence.spawn, 10**12 would
    spawn until memory ran out, and a count whose bytes exceed the float range was refused as "bytes_needed = ...",
    a parameter no caller has. Each is now StateSpaceTooLargeError, with no memory spent (tracemalloc's peak)."""
    import tracemalloc

    from analytic.errors import StateSpaceTooLargeError
    from analytic.simulation import SerialExecutor, replicate, streams

    tracemalloc.start()
    try:
        with pytest.raises(StateSpaceTooLargeError, match=f"^the random streams of {count:,} replications needs"):
            streams(1, count)
        with pytest.raises(StateSpaceTooLargeError, match=f"^the random streams of {count:,} replications needs"):
            replicate(_entropy, count, seed=1, executor=SerialExecutor())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**20
