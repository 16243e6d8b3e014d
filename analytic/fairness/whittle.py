"""Whittle networks of processor-sharing queues for any balance function, on a truncated lattice.

Bonald & Comte, *Balanced Fair Resource Sharing in Computer Clusters*, Section 3: N queues with
state-dependent service rates satisfying the balance property (6), equivalently φ_i(x) =
Φ(x − e_i)/Φ(x) for a balance function Φ with Φ(0) = 1 (eq. 7). The stationary measure is
π̄(x) ∝ Φ(x) Π λ_i^{x_i} (Serfozo, *Introduction to Stochastic Networks*), insensitive to the
size laws beyond their means (Bonald & Proutière). Balanced fairness (recursion (4), see
:func:`~analytic.fairness.balance_function`) is one instance, processor sharing on one server
(:func:`processor_sharing`) another.

The network is truncated at ``max_jobs`` jobs in total: the law restricted to the lattice and
renormalized is the stationary law of the network whose arrivals are blocked there (a Whittle
network is reversible, so Kelly's truncation applies). When the normalization constant of the
whole network is known, the mass the truncation leaves outside is reported.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import gammaln

from analytic._deprecation import renamed_attribute
from analytic.errors import InvalidParameterError
from analytic.fairness.balance import BalanceFunction, parent_indices
from analytic.fairness.graph import check_mean_size
from analytic.fairness.lattice import DEFAULT_MAX_STATES, SimplexLattice, simplex_lattice
from analytic.validation import flag, integer, positive, real_array, user_code

__all__ = ["NORMALIZATION_SLACK", "WhittleNetwork", "processor_sharing", "whittle_network"]


@dataclass(frozen=True, repr=False, eq=False)
class WhittleNetwork:
    """Stationary law and means of a Whittle network truncated at ``max_jobs`` jobs.

    Attributes
    ----------
    lattice : SimplexLattice
        The states x with at most ``max_jobs`` jobs (those inside a balance table's box).
    probabilities : numpy.ndarray
        The truncated stationary law, aligned with ``lattice.states`` (0 outside a table's box).
    mass_outside : float or None
        1 − Σ_lattice π̄(x) for the untruncated network, when its normalization was given
        (``-expm1`` of a log ratio, so its absolute error is the relative rounding of the lattice's
        sum, from 1e-16 upwards with the sum's length: a value below that means "below the
        rounding of the sum", and a sum that exceeds the normalization by rounding gives 0).
    accepted : numpy.ndarray, shape (N,)
        Probability that a class-i arrival finds room (x + e_i in the lattice).
    mean_jobs : numpy.ndarray, shape (N,)
    mean_response_time : numpy.ndarray, shape (N,)
        E[x_i] / (λ_i accepted_i), Little's law for the admitted jobs.
    mean_service_rate : numpy.ndarray, shape (N,)
        σ / mean_response_time: work per unit time.
    arrival_rates : numpy.ndarray
    log_phi : numpy.ndarray
        log Φ at every state (−inf outside a table's box).

    Examples
    --------
    >>> from analytic.fairness import processor_sharing, whittle_network
    >>> network = whittle_network(processor_sharing(1.0), [0.25, 0.25], 40, log=True)   # M/M/1-PS at load 1/2
    >>> round(float(network.mean_jobs.sum()), 6)   # ρ/(1 - ρ) = 1, less the truncation
    1.0
    """

    lattice: SimplexLattice
    probabilities: np.ndarray
    mass_outside: float | None
    accepted: np.ndarray
    mean_jobs: np.ndarray
    mean_response_time: np.ndarray
    mean_delay = renamed_attribute("mean_response_time")
    mean_service_rate: np.ndarray
    arrival_rates: np.ndarray
    log_phi: np.ndarray

    def __repr__(self) -> str:
        outside = "None" if self.mass_outside is None else f"{self.mass_outside:.3g}"
        return (f"WhittleNetwork(max_jobs={self.lattice.max_jobs}, mean_jobs={np.round(self.mean_jobs, 10).tolist()}, "
                f"mean_response_time={np.round(self.mean_response_time, 10).tolist()}, mass_outside={outside})")

    def service_rates(self) -> np.ndarray:
        """φ_i(x) = Φ(x − e_i)/Φ(x) at every state, shape (M, N), 0 where x_i = 0 (eq. 7).

        Returns
        -------
        numpy.ndarray, shape (M, N)

        Examples
        --------
        >>> from analytic.fairness import processor_sharing, whittle_network
        >>> network = whittle_network(processor_sharing(1.0), [0.25, 0.25], 4, log=True)
        >>> network.service_rates()[network.lattice.index(np.array([1, 1]))].round(12).tolist()   # PS: 1/2 each
        [0.5, 0.5]
        """
        parents = parent_indices(self.lattice)
        padded = np.append(self.log_phi, -np.inf)
        with np.errstate(invalid="ignore"):
            rates = np.exp(padded[parents] - self.log_phi[:, None])
        return np.where(np.isfinite(self.log_phi)[:, None], rates, 0.0)


def processor_sharing(capacity: float = 1.0) -> Callable[[np.ndarray], np.ndarray]:
    """log Φ of N classes sharing one server of rate C by processor sharing.

    Φ(x) = (``|x|`` choose x_1, ..., x_N) / C^{``|x|``}, so that φ_i(x) = C x_i/``|x|``: each job gets C/``|x|``.
    Returns a function of the array of states giving log Φ (pass ``log=True`` to
    :func:`whittle_network`).

    Parameters
    ----------
    capacity : float
        C > 0.

    Returns
    -------
    callable
        log Φ of an array of states, shape (M, N) -> (M,).


    Examples
    --------
    >>> log_phi = processor_sharing(2.0)
    >>> float(np.exp(log_phi(np.array([[1, 1]]))[0]))        # 2 orderings / 2^2
    0.5
    """
    rate = positive("capacity", capacity)

    def log_phi(states: np.ndarray) -> np.ndarray:
        x = np.asarray(states, dtype=float)
        n = x.sum(axis=-1)
        return gammaln(n + 1) - gammaln(x + 1).sum(axis=-1) - n * math.log(rate)

    return log_phi


#: Relative excess of the lattice's sum over a given normalization taken as rounding (then mass_outside = 0).
NORMALIZATION_SLACK = 1e-12


def whittle_network(balance: Any, arrival_rates: Any, max_jobs: int, mean_size: float = 1.0, log: bool = False,
                    normalization: float | None = None, max_states: int = DEFAULT_MAX_STATES) -> WhittleNetwork:
    """The truncated stationary law, mean queue lengths and delays of a Whittle network.

    Bonald & Comte, Section 3, eqs. (6)–(7): π̄(x) ∝ Φ(x) Π λ_i^{x_i} on {x : Σ x_i <= max_jobs}.

    Parameters
    ----------
    balance : BalanceFunction, callable or numpy.ndarray
        Φ: a :class:`~analytic.fairness.BalanceFunction` (balanced fairness on a graph; its
        lattice must reach ``max_jobs``; its own arrival rates are not used, Φ does not depend on
        them), a function of the array of states (shape (M, N)) returning Φ (or log Φ), or a table
        with ``table[x_1, ..., x_N] = Φ(x)`` (or log Φ); states outside a table's box are left out.
    arrival_rates : sequence of float
        λ_i > 0 (jobs per unit time).
    max_jobs : int
        Truncation: at most this many jobs in total.
    mean_size : float
        σ > 0, to express service rates in work per unit time.
    log : bool
        Whether a callable or table gives log Φ rather than Φ.
    normalization : float, optional
        Σ over all of ℕ^N of Φ(x) Π λ_i^{x_i} (= 1/π̄(0)), if known: then ``mass_outside`` is
        reported (e.g. ``1 / balanced_fairness(...).probability_empty``). It cannot be below the
        sum over the lattice (beyond a relative :data:`NORMALIZATION_SLACK` of rounding).
    max_states : int
        Limit on the lattice size.

    Returns
    -------
    WhittleNetwork

    Raises
    ------
    InvalidParameterError
        Φ not positive and finite at some state, Φ(0) != 1, bad rates, a table whose
        dimension is not N, a ``normalization`` below the lattice's own sum, or a callable Φ
        that raises (the error names the states it failed on).

    Examples
    --------
    Two classes sharing one unit-rate server (M/M/1-PS, load 0.6): E[x_i] = ρ_i/(1 − ρ).

    >>> net = whittle_network(processor_sharing(), [0.2, 0.4], 400, log=True, normalization=1 / 0.4)
    >>> net.mean_jobs.round(10).tolist(), net.mass_outside < 1e-80
    ([0.5, 1.0], True)
    """
    lam = real_array("arrival_rates", arrival_rates, allow_nan=True).reshape(-1)
    if lam.size == 0 or not np.all(np.isfinite(lam)) or np.any(lam <= 0):
        raise InvalidParameterError("arrival_rates", arrival_rates, "must be positive and finite, one per class")
    sigma = check_mean_size(mean_size)
    n = integer("max_jobs", max_jobs, meaning=" (with no room for a job, no delay is defined)")
    lattice = simplex_lattice(lam.size, n, max_states)
    log_phi = _log_balance(balance, lattice, flag("log", log))
    kept = np.isfinite(log_phi)
    log_weight = np.where(kept, log_phi + lattice.states @ np.log(lam), -np.inf)
    top = log_weight.max()
    weights = np.exp(log_weight - top)
    total = weights.sum()
    probabilities = weights / total
    mean_jobs = probabilities @ lattice.states
    accepted = np.array([probabilities[_room(lattice, kept, i)].sum() for i in range(lam.size)])
    delay = mean_jobs / (lam * accepted)
    outside = None
    if normalization is not None:
        given = positive("normalization", normalization, " (Σ over ℕ^N of Φ(x) Π λ_i^x_i)")
        excess = top + math.log(total) - math.log(given)       # log of (mass inside / normalization)
        if excess > NORMALIZATION_SLACK:
            inside = top + math.log(total)
            raise InvalidParameterError("normalization", normalization, "must be at least the sum over the lattice, "
                                        f"exp({inside:.10g}) (the lattice is part of ℕ^N): these Φ and λ do not "
                                        "have this normalization")
        outside = float(-math.expm1(excess)) if excess < 0 else 0.0
    return WhittleNetwork(lattice, probabilities, outside, accepted, mean_jobs, delay, sigma / delay, lam, log_phi)


def _room(lattice: SimplexLattice, kept: np.ndarray, i: int) -> np.ndarray:
    """States of ``kept`` where a class-i arrival is admitted: x + e_i is in ``kept``."""
    states = lattice.states
    room = kept & (states.sum(axis=1) < lattice.max_jobs)
    above = states[room].copy()
    above[:, i] += 1
    room[np.flatnonzero(room)] = kept[lattice.index(above)]
    return room


def _log_balance(balance: Any, lattice: SimplexLattice, log: bool) -> np.ndarray:
    """log Φ at every lattice state (−inf outside a table's box), validated."""
    states = lattice.states
    inside = np.ones(len(lattice), dtype=bool)
    if isinstance(balance, BalanceFunction):
        if balance.graph.n_classes != lattice.dimension or balance.max_jobs < lattice.max_jobs:
            raise InvalidParameterError("balance", balance, f"must cover {lattice.dimension} classes up to "
                                        f"max_jobs = {lattice.max_jobs} jobs")
        found, log = balance.log_phi(states), True
    elif callable(balance):
        requirement = "a balance function maps the array of states (shape (M, N)) to Φ, or log Φ with log=True"
        with user_code("balance", states, requirement):
            returned = balance(states)
        found = real_array("balance", returned, f" ({requirement})", allow_infinite=True, allow_nan=True)
        if found.shape != (len(lattice),):
            raise InvalidParameterError("balance", found.shape, f"must return one value per state: shape ({len(lattice)},)")
    else:
        table = real_array("balance", balance, " (a table of Φ, or of log Φ with log=True)", allow_infinite=True,
                           allow_nan=True)
        if table.ndim != lattice.dimension:
            raise InvalidParameterError("balance", table.shape,
                                        f"a table must have {lattice.dimension} dimensions, one per class")
        inside = np.all(states < np.array(table.shape), axis=1)
        found = table[tuple(states[inside].T)]
    valid = np.isfinite(found) if log else (found > 0) & np.isfinite(found)
    if not np.all(valid):
        bad = int(np.flatnonzero(~valid)[0])
        raise InvalidParameterError("balance", float(found[bad]),
                                    f"Φ must be positive and finite (at x = {states[inside][bad].tolist()})")
    values = np.full(len(lattice), -np.inf)
    values[inside] = found if log else np.log(found)
    if values[0] != 0:
        raise InvalidParameterError("balance", math.exp(values[0]), "Φ(0) must be 1")
    return values
