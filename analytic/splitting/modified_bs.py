"""The exact CTMC of ModifiedBS's reserved system (Anselmi & Doncel, Definition 2).

Built from the definition with :mod:`analytic.ctmc`, without Property 1, so that it checks
Property 1 and eq. (16).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from analytic.ctmc import CTMC
from analytic.errors import InvalidParameterError
from analytic.splitting.classes import RigidClass, check_classes, check_rate_span
from analytic.splitting.partition import balanced_partition
from analytic.validation import positive

__all__ = ["modified_bs_chain", "modified_bs_helper_probability"]


def modified_bs_chain(servers: int, arrival_rate: float, classes: Iterable[RigidClass],
                      hyperexponential: Mapping[int, tuple[float, float]] | None = None,
                      max_states: int = 200_000) -> CTMC:
    """The CTMC of the A system under ModifiedBS, built from Definition 2 with analytic.ctmc.

    A state holds, per class, the number of busy servers of A_i (per service phase for the
    classes given in ``hyperexponential``). A class-i job (rate λ α_i) is admitted when at least
    n_i of the a_i servers of A_i are idle, otherwise it goes to the helpers; a job in phase j
    leaves at its phase's rate. Nothing here assumes Property 1, so the chain checks it.

    Parameters
    ----------
    servers : int
        k.
    arrival_rate : float
        λ > 0.
    classes : sequence of RigidClass
    hyperexponential : mapping, optional
        ``{i: (q, rate)}``: class i's service time is exponential with ``rate`` with probability
        q, else exponential with the rate that keeps its mean d_i (it must be positive).
    max_states : int
        Passed to :meth:`analytic.ctmc.CTMC.from_function`.

    Returns
    -------
    analytic.ctmc.CTMC
        States are tuples of per-class tuples of busy-server counts.

    Raises
    ------
    InvalidParameterError
        Bad inputs, a hyperexponential phase that cannot keep the mean, or an arrival rate λ α_i
        below 2**-1021 times the total rate out of a state (the exact solver cannot represent it).
    StateSpaceTooLargeError
        More than ``max_states`` states.

    References
    ----------
    Anselmi & Doncel, Definition 2 (ModifiedBS), Property 1.

    Examples
    --------
    >>> modified_bs_chain(8, 2.0, [RigidClass(1, 0.5, 1.0), RigidClass(2, 0.5, 1.0)]).n_states  # s = (2, 2)
    9
    """
    classes = check_classes(classes)
    rate = positive("arrival_rate", arrival_rate)
    reserved = balanced_partition(servers, classes).reserved
    phases = [_service_phases(i, c, spec) for (i, c), spec in zip(enumerate(classes),
                                                                  _phase_specs(hyperexponential, len(classes)), strict=True)]
    # s_i = a_i / n_i class-i jobs fill A_i, each leaving at most at its fastest phase's rate; a class-i job
    # arrives only while A_i holds at most s_i - 1 (never if s_i = 0)
    slots = [a // c.need for a, c in zip(reserved, classes, strict=True)]
    full = sum(s * max(rates) for s, (_, rates) in zip(slots, phases, strict=True))
    check_rate_span(rate, classes, [full - max(rates) if s else None for s, (_, rates) in zip(slots, phases, strict=True)])

    def moved(state, i, phase, change):
        busy = list(state[i])
        busy[phase] += change
        return (*state[:i], tuple(busy), *state[i + 1:])

    def transitions(state):
        for i, (c, (weights, rates)) in enumerate(zip(classes, phases, strict=True)):
            busy = state[i]
            if reserved[i] - sum(busy) >= c.need:
                for phase, weight in enumerate(weights):
                    yield moved(state, i, phase, c.need), rate * float(c.probability) * weight
            for phase, phase_rate in enumerate(rates):
                if busy[phase]:
                    yield moved(state, i, phase, -c.need), busy[phase] // c.need * phase_rate

    initial = tuple((0,) * len(weights) for weights, _ in phases)
    return CTMC.from_function(initial, transitions, max_states=max_states)


def _service_phases(index: int, job_class: RigidClass, spec: tuple[float, float] | None):
    """(phase probabilities, phase rates) of a class's service time with mean d_i."""
    mean = float(job_class.mean_size)
    if spec is None:
        return (1.0,), (1 / mean,)
    q, first = spec
    if not 0 < q < 1 or not 0 < first < math.inf or q / first >= mean:
        raise InvalidParameterError(f"hyperexponential[{index}]", spec,
                                    f"needs 0 < q < 1 and q/rate < d_i = {mean:g} so that the second phase keeps the mean")
    return (q, 1 - q), (first, (1 - q) / (mean - q / first))


def _phase_specs(hyperexponential: object, count: int) -> list:
    """The (p, rate) of each class from ``hyperexponential`` (None where absent); keys must be class indices."""
    if hyperexponential is None:
        return [None] * count
    if not isinstance(hyperexponential, Mapping) or not all(
            isinstance(i, int) and 0 <= i < count for i in hyperexponential):
        raise InvalidParameterError("hyperexponential", hyperexponential,
                                    f"must be None or a mapping from class indices 0..{count - 1} to (p, rate)")
    return [hyperexponential.get(i) for i in range(count)]


def modified_bs_helper_probability(servers: int, arrival_rate: float, classes: Iterable[RigidClass],
                                   hyperexponential: Mapping[int, tuple[float, float]] | None = None,
                                   method: str = "auto", tolerance: float = 1e-10) -> float:
    """P_H under ModifiedBS from the exact CTMC: sum_i α_i P(fewer than n_i idle servers in A_i) (PASTA).

    The independent counterpart of :func:`helper_probability_bound` (eq. 16); see
    :func:`modified_bs_chain` for the parameters; ``method`` and ``tolerance`` are passed to
    :meth:`analytic.ctmc.CTMC.stationary`.

    Parameters
    ----------
    servers : int
        k.
    arrival_rate : float
        λ > 0.
    classes : sequence of RigidClass
        The job classes (exponential sizes unless ``hyperexponential`` says otherwise).
    hyperexponential : mapping of int to (float, float), optional
        As in :func:`modified_bs_chain`.
    method : {"auto", "gth", "direct", "iterative"}
        Stationary solver.
    tolerance : float
        Relative accuracy of the stationary probabilities.

    Returns
    -------
    float

    Raises
    ------
    As :func:`modified_bs_chain`.

    Examples
    --------
    >>> round(modified_bs_helper_probability(11, 1.0, [RigidClass(2, 1.0, 2.0)]), 12)  # E_4(2) = 2/21
    0.095238095238
    """
    classes = check_classes(classes)
    reserved = balanced_partition(servers, classes).reserved
    pi = modified_bs_chain(servers, arrival_rate, classes, hyperexponential).stationary(method=method, tolerance=tolerance)
    return sum(float(c.probability) * pi.expected(lambda x, i=i, c=c: float(reserved[i] - sum(x[i]) < c.need))
               for i, c in enumerate(classes))
