"""Values published before the package, reproduced by :class:`~analytic.ctmc.CTMC` (rows of ``analytic reproduce``).

Erlang's loss formula (1917) by its recursion, Jackson's product form (1957), and the exact law of
Grassmann, Taksar & Heyman's (1985) nearly uncoupled example: values the general solver must
reproduce whatever the model, kept out of :mod:`analytic.ctmc.chain` so that it needs no mpmath.
"""

from __future__ import annotations

import mpmath
import numpy as np

from analytic.ctmc.chain import CTMC
from analytic.reproduce import Row, reproduces


def _erlang_recursion(servers: int, load: float) -> float:
    """E_s(a) by the textbook recursion E_k = a E_{k-1} / (k + a E_{k-1}), E_0 = 1."""
    blocking = 1.0
    for k in range(1, servers + 1):
        blocking = load * blocking / (k + load * blocking)
    return blocking


def _loss_system(servers: int, load: float) -> CTMC:
    """M/M/s/s: arrivals at rate ``load``, unit-rate service, states 0..s busy servers."""
    return CTMC.from_function(0, lambda x: [(x + 1, load)] * (x < servers) + [(x - 1, float(x))] * (x > 0))


@reproduces
def _erlang_loss_rows() -> list[Row]:
    return [Row(paper="Erlang (1917), loss formula",
                statement=f"M/M/{s}/{s} at load {a:g}: stationary P(all busy) = E_s(a) by recursion",
                paper_value=_erlang_recursion(s, a),
                value=_loss_system(s, a).stationary().probability(s), tolerance=1e-12)
            for s, a in ((10, 7.0), (50, 45.0))]


@reproduces
def _product_form_row() -> Row:
    capacity, loads = 30, (0.6, 0.9)
    moves = [((1, 0), lambda X: loads[0] * (X[:, 0] < capacity)), ((-1, 0), lambda X: 1.0 * (X[:, 0] > 0)),
             ((0, 1), lambda X: loads[1] * (X[:, 1] < capacity)), ((0, -1), lambda X: 1.0 * (X[:, 1] > 0))]
    pi = CTMC.from_lattice((capacity, capacity), moves).stationary().probabilities
    marginals = [np.asarray(rho) ** np.arange(capacity + 1) for rho in loads]
    product = np.outer(*[m / m.sum() for m in marginals]).ravel()
    return Row(paper="Jackson (1957), product form",
               statement="two independent M/M/1/30 queues (loads 0.6, 0.9): max |pi - product form|",
               paper_value=0.0, value=float(np.abs(pi - product).max()), tolerance=1e-12)


@reproduces
def _gth_row() -> Row:
    coupling = 1e-14
    chain = CTMC([[0, 1, coupling, 0], [1, 0, 0, 0], [0, 0, 0, 1], [coupling, 0, 1, 0]])
    with mpmath.workdps(50):        # pi ∝ (1, 1, 1 + c, 1): state 2 receives c more from state 0
        weights = [mpmath.mpf(1), mpmath.mpf(1), 1 + mpmath.mpf(coupling), mpmath.mpf(1)]
        exact = np.array([float(w / mpmath.fsum(weights)) for w in weights])
    return Row(paper="Grassmann, Taksar & Heyman (1985), GTH",
               statement="two state pairs coupled by rates 1e-14, pi ∝ (1, 1, 1 + 1e-14, 1): max relative error of pi",
               paper_value=0.0, value=float(np.abs(np.asarray(chain.stationary()) / exact - 1).max()), tolerance=2e-15,
               note="a pinned LU solve was off by 4e-4 with a residual of 3e-18")
