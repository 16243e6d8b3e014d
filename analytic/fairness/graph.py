"""The compatibility graph between job classes and servers, and its service-rate function μ(A).

Bonald & Comte, *Balanced Fair Resource Sharing in Computer Clusters*, Section 2: N job classes,
S servers with capacities μ_s, and for each class i the set 𝒮_i of servers that may process its
jobs. The total service rate of any set A of active classes is the weighted cover function
μ(A) = Σ_{s ∈ ∪_{i∈A} 𝒮_i} μ_s, a submodular function. Classes and servers are numbered from 0
(the paper numbers them from 1).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any

import numpy as np

from analytic.errors import InvalidParameterError, StateSpaceTooLargeError
from analytic.memory import available_bytes, fits
from analytic.validation import flag, numeric_array, positive, real_array

__all__ = ["CompatibilityGraph", "check_mean_size", "check_rates", "service_rate", "subset_service_rates"]


@dataclass(frozen=True, repr=False, eq=False)
class CompatibilityGraph:
    """N job classes, S servers, and which servers may process which class (validated).

    Parameters
    ----------
    server_sets : sequence of sequences of int
        ``server_sets[i]`` is 𝒮_i, the servers (numbered ``0 .. S-1``) that may process class-i
        jobs; non-empty, without repeats.
    capacities : sequence of float, optional
        ``capacities[s]`` is μ_s >= 0, the service rate of server s (jobs per unit time for unit
        mean sizes, or work per unit time, see :func:`~analytic.fairness.balanced_fairness`).
        Default: unit capacities for servers ``0 .. max index``. A server of capacity 0 is allowed
        (Figure 2 of the paper uses one), a class whose servers all have capacity 0 is not.

    Attributes
    ----------
    server_sets : tuple of tuple of int
    capacities : numpy.ndarray, shape (S,)
    incidence : numpy.ndarray of bool, shape (N, S)
        ``incidence[i, s]`` is ``s ∈ 𝒮_i``.

    Raises
    ------
    InvalidParameterError
        An empty server set, a repeated or out-of-range server index, a negative, NaN or infinite
        capacity, a class with zero total capacity, or more servers than the capacities and the
        dense incidence matrix (9 bytes per class and server) leave room for in memory (checked
        before they are allocated: ``CompatibilityGraph([[10**12]])`` asks for 10^12 servers).

    Examples
    --------
    The three-server example of Section 5 (servers 0 and 1 dedicated, server 2 shared):

    >>> graph = CompatibilityGraph([[0, 2], [1, 2]], [1.0, 1.0, 1.0])
    >>> graph
    CompatibilityGraph(server_sets=((0, 2), (1, 2)), capacities=[1.0, 1.0, 1.0])
    >>> graph.n_classes, graph.n_servers, service_rate(graph, [0]), service_rate(graph, [0, 1])
    (2, 3, 2.0, 3.0)
    """

    server_sets: tuple[tuple[int, ...], ...]
    capacities: np.ndarray = field(default=None)
    incidence: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        sets = _server_sets(self.server_sets)
        if self.capacities is None:
            capacities = np.ones(_fitting_servers(sets, 1 + max(max(s) for s in sets), "the largest server index",
                                                  "; number the servers 0, 1, 2, ..."))
        else:
            capacities = real_array("capacities", self.capacities, allow_nan=True).reshape(-1)
            if capacities.size == 0 or not np.all(np.isfinite(capacities)) or np.any(capacities < 0):
                raise InvalidParameterError("capacities", self.capacities, "must be a non-empty vector of finite rates >= 0")
            _fitting_servers(sets, capacities.size, "the number of capacities")
        for i, servers in enumerate(sets):
            if max(servers) >= capacities.size:
                raise InvalidParameterError(f"server_sets[{i}]", servers,
                                            f"server indices must be in 0..{capacities.size - 1} ({capacities.size} capacities)")
        incidence = np.zeros((len(sets), capacities.size), dtype=bool)
        for i, servers in enumerate(sets):
            incidence[i, list(servers)] = True
        reachable = (incidence & (capacities > 0)).any(axis=1)   # not a sum: capacities may add up beyond 1.8e308
        if not reachable.all():
            i = int(np.argmin(reachable))
            raise InvalidParameterError(f"server_sets[{i}]", sets[i], f"must include a server of positive capacity "
                                                                       f"(capacities = {capacities.tolist()})")
        capacities.flags.writeable = False
        incidence.flags.writeable = False
        object.__setattr__(self, "server_sets", sets)
        object.__setattr__(self, "capacities", capacities)
        object.__setattr__(self, "incidence", incidence)

    def __repr__(self) -> str:
        return f"CompatibilityGraph(server_sets={self.server_sets}, capacities={self.capacities.tolist()})"

    @property
    def n_classes(self) -> int:
        """N, the number of job classes."""
        return len(self.server_sets)

    @property
    def n_servers(self) -> int:
        """S, the number of servers."""
        return self.capacities.size

    @property
    def class_capacities(self) -> np.ndarray:
        """μ({i}) for every class i: the largest service rate a class-i job can get."""
        return self.incidence @ self.capacities


#: Bytes per (class, server) pair of the dense incidence matrix (one bool, and 8 while the class
#: capacities are summed in floating point by class_capacities), and per server (its capacity).
_BYTES_PER_PAIR = 9
_BYTES_PER_SERVER = 8


def _fitting_servers(sets: tuple[tuple[int, ...], ...], servers: int, source: str, advice: str = "") -> int:
    """``servers``, or the error when the capacities and the dense incidence matrix would not fit in memory."""
    needed = servers * (_BYTES_PER_SERVER + _BYTES_PER_PAIR * len(sets))
    if not fits(needed):
        raise InvalidParameterError("server_sets", sets, f"must describe a graph that fits in memory: {source} makes "
                                                         f"{servers:,} servers, and the capacities and the {len(sets):,} x "
                                                         f"{servers:,} incidence matrix need about {needed / 2**30:.3g} "
                                                         f"GiB, more than the {available_bytes() / 2**30:.3g} GiB "
                                                         f"available{advice}")
    return servers


def _server_sets(server_sets: Any) -> tuple[tuple[int, ...], ...]:
    """``server_sets`` as a non-empty tuple of non-empty tuples of distinct non-negative ints."""
    if isinstance(server_sets, (str, bytes)) or not isinstance(server_sets, Iterable):
        raise InvalidParameterError("server_sets", server_sets, "must be a sequence of server-index sequences")
    sets = []
    for i, servers in enumerate(server_sets):
        if not isinstance(servers, Iterable) or isinstance(servers, (str, bytes)):
            raise InvalidParameterError(f"server_sets[{i}]", servers, "must be a sequence of server indices")
        servers = tuple(servers)
        if not servers:
            raise InvalidParameterError(f"server_sets[{i}]", servers, "must not be empty: every class needs a server")
        if not all(isinstance(s, Integral) and not isinstance(s, bool) and s >= 0 for s in servers):
            raise InvalidParameterError(f"server_sets[{i}]", servers, "server indices must be integers >= 0")
        if len(set(servers)) != len(servers):
            raise InvalidParameterError(f"server_sets[{i}]", servers, "must not list a server twice")
        sets.append(tuple(int(s) for s in servers))
    if not sets:
        raise InvalidParameterError("server_sets", server_sets, "must hold at least one class")
    return tuple(sets)


def service_rate(graph: CompatibilityGraph, active: Any) -> float | np.ndarray:
    """μ(A): the total service rate when the classes in A are active (weighted cover function).

    Bonald & Comte, Section 2: μ(A) = Σ_{s ∈ ∪_{i∈A} 𝒮_i} μ_s.

    Parameters
    ----------
    graph : CompatibilityGraph
    active : iterable of int, or boolean array of shape (N,) or (M, N)
        The active classes, as indices or as a mask; a 2-D mask gives one set per row.

    Returns
    -------
    float, or numpy.ndarray of shape (M,) for a 2-D mask.

    Raises
    ------
    InvalidParameterError
        A class index out of range, or a mask of the wrong width.

    Examples
    --------
    >>> graph = CompatibilityGraph([[0, 2], [1, 2]])
    >>> service_rate(graph, []), service_rate(graph, [1])
    (0.0, 2.0)
    >>> service_rate(graph, np.array([[True, False], [True, True]])).tolist()
    [2.0, 3.0]
    """
    check_graph(graph)
    if not isinstance(active, np.ndarray | Sequence) and isinstance(active, Iterable) and not isinstance(active, dict):
        active = list(active)
    array = numeric_array("active", active, "must list class indices or be a boolean mask", booleans=True)
    if array.dtype == bool:
        mask = array
    else:
        if array.ndim != 1 or (array.size and array.dtype.kind not in "iu") or np.any(array < 0) \
                or np.any(array >= graph.n_classes):
            raise InvalidParameterError("active", active, f"must list class indices in 0..{graph.n_classes - 1}")
        mask = np.zeros(graph.n_classes, dtype=bool)
        mask[array.astype(np.int64)] = True
    if mask.shape[-1:] != (graph.n_classes,) or mask.ndim > 2:
        raise InvalidParameterError("active", mask.shape, f"a mask must have shape (N,) or (M, N) with N = {graph.n_classes}")
    if mask.ndim == 1:
        return float(graph.capacities[mask @ graph.incidence > 0].sum())
    if graph.n_classes <= 62:
        keys = mask.astype(np.int64) @ (np.int64(1) << np.arange(graph.n_classes, dtype=np.int64))
        if 2 ** graph.n_classes <= max(len(keys), 1024):
            return subset_service_rates(graph)[keys]
    else:
        packed = np.ascontiguousarray(np.packbits(mask, axis=1))
        keys = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
    # Many rows share an active set: cover each distinct set once.
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    covered = (mask[first].astype(np.int64) @ graph.incidence.astype(np.int64)) > 0
    return (covered @ graph.capacities)[inverse.ravel()]


def subset_service_rates(graph: CompatibilityGraph) -> np.ndarray:
    """μ(A) for all 2^N sets A, indexed by the bit mask Σ_{i∈A} 2^i (for N up to about 25).

    Built by doubling: the sets containing class i are the sets of classes < i with i added, and
    the servers they cover are tracked as bits of 64-bit words.

    Parameters
    ----------
    graph : CompatibilityGraph
        Classes, servers and capacities.

    Returns
    -------
    numpy.ndarray, shape (2^N,)


    Examples
    --------
    >>> subset_service_rates(CompatibilityGraph([[0, 2], [1, 2]])).tolist()
    [0.0, 2.0, 2.0, 3.0]
    """
    n, words = check_graph(graph).n_classes, (graph.n_servers + 63) // 64
    if n > 30:
        raise StateSpaceTooLargeError(2 ** n, 2 ** 30, f"the subsets of {n} classes")
    server_bits = np.zeros((n, words), dtype=np.uint64)
    for i, servers in enumerate(graph.server_sets):
        for s in servers:
            server_bits[i, s // 64] |= np.uint64(1) << np.uint64(s % 64)
    cover = np.zeros((1, words), dtype=np.uint64)
    for i in range(n):
        cover = np.concatenate([cover, cover | server_bits[i]])
    rates = np.zeros(2 ** n)
    for s in np.flatnonzero(graph.capacities):
        bit = (cover[:, s // 64] >> np.uint64(s % 64)) & np.uint64(1)
        rates += graph.capacities[s] * bit
    return rates


def check_rates(name: str, rates: Any, graph: CompatibilityGraph, allow_zero: bool = False) -> np.ndarray:
    """``rates`` as a float vector with one finite entry per class of ``graph``, each > 0 (or >= 0).

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    rates : array_like
        The rates.
    graph : CompatibilityGraph
        Gives the number of classes.
    allow_zero : bool
        Whether zero rates are accepted.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> check_rates("arrival_rates", [1, 2], CompatibilityGraph([[0], [1]])).tolist()
    [1.0, 2.0]
    """
    check_graph(graph)
    allow_zero = flag("allow_zero", allow_zero)
    condition = f"must be a sequence of {graph.n_classes} rates, one per class"
    try:
        vector = real_array(name, rates, ndim=1, allow_infinite=True, allow_nan=True)
    except InvalidParameterError as error:
        raise InvalidParameterError(name, rates, f"{condition} ({error.condition})") from None
    if isinstance(rates, str | bytes) or vector.shape != (graph.n_classes,):
        raise InvalidParameterError(name, rates, condition)
    valid = (vector >= 0) if allow_zero else (vector > 0)
    bad = np.flatnonzero(~valid | ~np.isfinite(vector))
    if bad.size:
        condition = "must be finite and >= 0" if allow_zero else "must be positive and finite"
        raise InvalidParameterError(f"{name}[{bad[0]}]", float(vector[bad[0]]), condition)
    vector.flags.writeable = False
    return vector


def check_graph(graph: Any) -> CompatibilityGraph:
    """``graph``, which must be a :class:`CompatibilityGraph`."""
    if not isinstance(graph, CompatibilityGraph):
        raise InvalidParameterError("graph", graph, "must be a CompatibilityGraph")
    return graph


def check_mean_size(mean_size: Any) -> float:
    """The mean job size σ (work units), positive and finite.

    Parameters
    ----------
    mean_size : float
        σ.

    Returns
    -------
    float

    Examples
    --------
    >>> check_mean_size(3)
    3.0
    """
    return positive("mean_size", mean_size, " (mean job size, in the work units of the capacities)")



