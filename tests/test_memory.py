"""Sizes checked before memory is spent: each refusal says what would be needed and what is available.

The sizes below exceed any machine's memory by orders of magnitude (terabytes), so the refusals do
not depend on the machine; tracemalloc shows that nothing of that size was allocated first.
"""

import math
import re
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from analytic.ctmc import CTMC
from analytic.erlang import erlang_b, log_erlang_b
from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.fairness import CompatibilityGraph
from analytic.memory import available_bytes


def refused_without_allocating(call, error):
    """The error ``call`` raises, checked to have allocated less than 1 GiB (of the terabytes asked) before raising."""
    tracemalloc.start()
    try:
        with pytest.raises(error) as caught:
            call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**30
    return caught.value


def gibibytes(message, label):
    return float(re.search(rf"about ([0-9.e+]+) GiB{label}", message).group(1))


@pytest.mark.parametrize("call", [
    lambda: erlang_b(np.ones((10**5, 1)), np.ones((1, 10**5))),
    lambda: log_erlang_b(np.ones((10**5, 1)), np.ones((1, 10**5))),
    lambda: erlang_b(np.ones((10**5, 1)), np.ones((1, 10**5)), precision=20),
])
def test_erlang_broadcast_beyond_memory_is_refused(call):
    error = refused_without_allocating(call, InvalidParameterError)
    message = str(error)
    assert error.parameter == "shapes" and error.value == ((100000, 1), (1, 100000))
    assert "must broadcast to an array that fits in memory: (100000, 100000) holds 10,000,000,000 values" in message
    assert gibibytes(message, "") >= 10**10 * 116 / 2**30        # at least the 116 bytes a value erlang_b measured
    available = float(re.search(r"the ([0-9.e+]+) GiB available", message).group(1))
    assert available == pytest.approx(available_bytes() / 2**30, rel=0.5, abs=0)   # the memory free varies


def test_erlang_broadcast_that_fits_is_evaluated():
    values = erlang_b(np.ones((300, 1)), np.ones((1, 300)))
    assert values.shape == (300, 300) and np.all(values == 0.5)      # E_1(1) = 1/2 exactly


def test_ctmc_of_10_to_12_states_is_refused_before_its_labels():
    error = refused_without_allocating(lambda: CTMC(sp.coo_matrix((10**12, 10**12))), StateSpaceTooLargeError)
    assert error.needed == 10**12 and error.memory is not None
    assert error.memory[0] >= 10**12 * 100 and error.memory[1] == pytest.approx(available_bytes(), rel=0.5, abs=0)
    assert str(error).startswith("the chain (state labels and generator) needs 1,000,000,000,000 states and about")


def test_ctmc_that_fits_is_built():
    chain = CTMC(sp.coo_matrix(([1.0, 2.0], ([0, 1], [1, 0])), shape=(2, 2)))
    assert chain.stationary().probabilities.tolist() == pytest.approx([2 / 3, 1 / 3], rel=1e-12, abs=0)


@pytest.mark.parametrize("sets,capacities,count,source", [
    ([[10**12]], None, "1,000,000,000,001", "the largest server index"),
    ([[0], [1]], np.ones(2), None, None),
])
def test_compatibility_graph_beyond_memory_is_refused(sets, capacities, count, source):
    if count is None:   # a graph that fits is built
        assert CompatibilityGraph(sets, capacities).n_servers == 2
        return
    error = refused_without_allocating(lambda: CompatibilityGraph(sets, capacities), InvalidParameterError)
    message = str(error)
    assert error.parameter == "server_sets"
    assert f"must describe a graph that fits in memory: {source} makes {count} servers" in message
    assert gibibytes(message, ", more than") >= 10**12 * 8 / 2**30 and message.endswith("number the servers 0, 1, 2, ...")


@pytest.mark.slow
def test_compatibility_graph_with_a_dense_incidence_beyond_memory_is_refused():
    capacities = np.ones(10**6)   # 10^5 classes x 10^6 servers: a 10^11-entry incidence matrix
    error = refused_without_allocating(lambda: CompatibilityGraph([[0]] * 10**5, capacities), InvalidParameterError)
    assert "the number of capacities makes 1,000,000 servers, and the capacities and the 100,000 x 1,000,000 " \
           "incidence matrix need about 838 GiB" in str(error)


def test_memory_refusal_counts_models_beyond_the_float_range():
    """compare_policies(servers=1.7e308) raised a raw OverflowError in analytic.memory.require, which scaled the
    model's size (an int beyond the float range) by the memory available in floats. Reference: the defining
    inequalities of the count that fits, limit * bytes <= states * available < (limit + 1) * bytes, in integers."""
    from analytic.errors import StateSpaceTooLargeError
    from analytic.memory import available_bytes, require

    states, bytes_needed = 2 * 10**308, 1e300
    with pytest.raises(StateSpaceTooLargeError) as refused:
        require(bytes_needed, "a model beyond the float range", states)
    limit, exact, available = refused.value.limit, int(bytes_needed), available_bytes()
    assert limit * exact <= states * available < (limit + 1) * exact
    with pytest.raises(StateSpaceTooLargeError, match=r"^an infinite table needs at least 1.00e\+400 states"):
        require(math.inf, "an infinite table", 10**400, at_least=True)
