"""Exact analysis of finite continuous-time Markov chains (CTMCs).

The yardstick every closed form and simulator of the package is checked against:

* :class:`CTMC` builds chains from a transition function or from vectorized lattice moves
  (:mod:`analytic.ctmc.chain`), estimating their memory before allocating it;
* :meth:`CTMC.stationary` returns probabilities with a stated componentwise relative accuracy,
  by the subtraction-free GTH algorithm as a sparse multifrontal factorization
  (``analytic.ctmc._gth``, ordered by ``analytic.ctmc._ordering``; in a band on small chains,
  ``analytic.ctmc._small``), or by sparse LU / GMRES
  checked by mixed-precision refinement (``analytic.ctmc._refinement``); the contract and the
  choice are in :mod:`analytic.ctmc.stationary`;
* :meth:`CTMC.transient` uses uniformization with steady-state detection
  (:mod:`analytic.ctmc.transient`);
* :meth:`CTMC.transient_reward`, :meth:`CTMC.accumulated_reward`, :meth:`CTMC.passage_time`
  (a :class:`PassageTime`), :meth:`CTMC.reach_probability` and :meth:`CTMC.reward_until` compute
  rewards over time, passage times and reachability, each vouched at a stated accuracy
  (:mod:`analytic.ctmc.measures`);
* :class:`PopulationModel` is a model a user writes (counts and transition classes with sympy
  rates), and :func:`stationary_bounds` returns certified intervals for it, with the Lyapunov
  function found and proved by the package (:mod:`analytic.ctmc.bounds`).
"""

from analytic.ctmc.chain import CTMC, lattice_bytes
from analytic.ctmc.measures import PassageTime
from analytic.ctmc.stationary import Stationary, solve_bytes

__all__ = ["CTMC", "PassageTime", "PopulationModel", "Stationary", "lattice_bytes", "solve_bytes", "stationary_bounds"]

_LAZY = {"PopulationModel": "analytic.ctmc.population", "stationary_bounds": "analytic.ctmc.bounds"}


def __getattr__(name: str) -> object:
    # sympy is imported only when a population model is used (it takes a second to import)
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'analytic.ctmc' has no attribute {name!r}")
