"""The compiled minimum spanning tree against scipy's (an independent implementation)."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, minimum_spanning_tree

from analytic.ctmc._spanning import spanning_tree


def random_chain_graph(rng, n, density):
    """A random directed pattern with distinct weights, some pairs joined both ways (each way
    weighing differently) and some one way."""
    matrix = sp.random_array((n, n), density=density, random_state=rng, format="csr")
    matrix.setdiag(0.0)
    matrix.eliminate_zeros()
    matrix.sort_indices()
    matrix.data = rng.permutation(len(matrix.data)) + 1.0
    return matrix


@pytest.mark.parametrize("seed", range(20))
def test_tree_weight_and_breadth_first_order_match_scipy(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 60))
    graph = random_chain_graph(rng, n, float(rng.uniform(0.05, 0.4)))
    root = int(rng.integers(n))
    order, parent = spanning_tree(graph.indptr, graph.indices, graph.data, root)
    # scipy: the lighter direction of each pair, as an undirected graph.
    lighter = graph.minimum(graph.T)
    lighter = lighter + (graph - graph.multiply(graph.T > 0)) + (graph.T - graph.T.multiply(graph > 0))
    reference = minimum_spanning_tree(sp.csr_array(lighter))
    _, labels = connected_components(graph, directed=False)
    component = np.flatnonzero(labels == labels[root])
    assert sorted(order.tolist()) == component.tolist() and order[0] == root and parent[root] == -1
    position = np.empty(n, np.int64)
    position[order] = np.arange(len(order))
    children = order[1:]
    assert np.all(position[parent[children]] < position[children])        # breadth first: parents first
    chosen = sp.csr_array(lighter)[parent[children], children]
    assert np.all(chosen > 0)                                             # every tree edge is a transition
    inside = np.isin(reference.tocoo().row, component)
    assert chosen.sum() == pytest.approx(reference.tocoo().data[inside].sum(), rel=1e-15, abs=0)   # distinct weights: unique tree
