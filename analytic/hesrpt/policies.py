"""Exact evaluation of server-allocation policies for M jobs present at time 0 (no time steps).

A policy fixes the fractions of the N servers that the remaining jobs hold; as long as no job
departs, the fractions stay constant (Berg, Vesilo & Harchol-Balter, *heSRPT*, Theorem 3 shows that
optimal policies have this form for any concave speed-up). Between departures each job is served at
the constant rate s(θN), so the next departure time is min_i x_i/s(θ_i N): :func:`flow_time` jumps
from departure to departure, M events in all, and the completion times are exact up to rounding
(about 1e-15 relative per event; jobs whose departures fall within 1e-12 relative of each other
leave together).

Built-in policies (Section 4.2 of the paper; all re-decide at every departure):

``"hesrpt"``
    Theorem 7: the i-th largest of m remaining jobs gets (i/m)^c - ((i-1)/m)^c, c = 1/(1-p).
``"helrpt"``
    Theorem 2: fractions x_i^(1/p)/Σ x_j^(1/p) of the remaining sizes (all jobs end together).
``"srpt"``
    all N servers to the job with the shortest remaining size.
``"equi"``
    N/m servers to each of the m remaining jobs.
``"hell"``
    HELL of Lin et al. (the paper's [21]) as the paper describes it, in whole servers:
    a job's efficiency is s(k)/k and its remaining processing time on k servers is x/s(k),
    so the ratio of the two is s(k)^2/(k x). Repeatedly, among the jobs without servers,
    the job and the k <= (free servers) with the highest ratio get k servers; since the
    ratio factors as s(k)^2/k times 1/x, that is the shortest remaining job, with the
    k maximizing s(k)^2/k (ties: the largest such k). Each job is served at most once per
    decision; servers left when every job has its share stay idle. For k^p this gives one
    server per job when p < 1/2 and SRPT when p >= 1/2.
``"knee"``
    KNEE of Lin et al. (the paper's [21]), in whole servers: a job's knee allocation is the
    smallest k whose marginal reduction of its remaining run time, x/s(k) - x/s(k+1), is
    below the threshold α (N if none is). Repeatedly, the job with the lowest knee
    allocation (equivalently the shortest remaining job) gets its knee allocation, the last
    one what is left; servers left when every job has its knee allocation stay idle.
    ``alpha=None`` searches the best α as in Section 4.2 (:func:`knee_search`).

HELL and KNEE are read from the paper's Section 4.2 alone (reference [21] is not available here);
the interpretation above is the one implemented. A policy can also be any callable: it receives the
remaining sizes of the jobs in the system in increasing order (a 1-D array) and returns their
fractions of the system (non-negative, summing to at most 1).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from analytic.errors import InvalidParameterError
from analytic.hesrpt.closed_form import check_sizes, log_hesrpt_share, mean_time
from analytic.memory import require
from analytic.speedup import SpeedupCurve, SpeedupTable, as_curve
from analytic.validation import flag, positive, real_array, user_code

__all__ = ["POLICIES", "FlowTime", "KneeSearch", "Trajectory", "flow_time", "knee_search"]

#: Names accepted by :func:`flow_time`.
POLICIES = ("hesrpt", "helrpt", "srpt", "equi", "hell", "knee")

#: Jobs whose departure times differ by less than this relative amount depart together.
_TIE = 1e-12

#: Slack allowed on a callable policy's fractions (non-negative, summing to at most one).
_ALLOCATION_SLACK = 1e-9

#: KNEE search: log-spaced thresholds over the range where knees go from N to 1, then rounds of
#: refinement, each with evenly log-spaced points on both sides of the best so far, up to its neighbours.
KNEE_COARSE, _KNEE_REFINE, _KNEE_ROUNDS = 17, 2, 3

#: Logs of the thresholds the search may try: from the smallest positive double to (nearly) the largest.
_LOG_ALPHAS = (np.log(5e-324), np.log(np.finfo(float).max))

#: Peak bytes per run and job of the event engine with its allocators (90 to 110 measured).
_RUN_BYTES = 128

# An allocator maps (remaining sizes sorted per row, active mask, jobs per row) to the servers and
# service rates of every entry: arrays of shape (rows, width), zero where inactive.
Allocator = Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True, repr=False)
class Trajectory:
    """The piecewise-linear path of a policy: remaining sizes and allocations between departures.

    Attributes
    ----------
    times : numpy.ndarray, shape (K + 1,)
        Departure epochs, starting at 0 and ending at the last completion.
    remaining : numpy.ndarray, shape (K + 1, M)
        Remaining size of each job (input order) at each epoch.
    allocations : numpy.ndarray, shape (K, M)
        Fraction of the system each job holds during ``[times[k], times[k + 1])``.

    Examples
    --------
    >>> from analytic.hesrpt import flow_time
    >>> trajectory = flow_time([1.0, 2.0], "srpt", 0.5, 1, record=True).trajectory
    >>> trajectory.remaining_at(1.0).tolist()   # one server: job 0 done at t = 1, job 1 untouched
    [0.0, 2.0]
    """

    times: np.ndarray
    remaining: np.ndarray
    allocations: np.ndarray

    def __repr__(self) -> str:
        return f"Trajectory(epochs={self.times.size}, jobs={self.remaining.shape[1]})"

    def remaining_at(self, t: np.ndarray | float) -> np.ndarray:
        """Remaining sizes at times ``t`` (exact: linear between epochs), shape ``t.shape + (M,)``.

        Parameters
        ----------
        t : float or array_like
            Times (>= 0; after the last completion every size is 0).

        Returns
        -------
        numpy.ndarray

        Examples
        --------
        >>> from analytic.hesrpt import flow_time
        >>> flow_time([1.0, 2.0], "srpt", 0.5, 1, record=True).trajectory.remaining_at([0.0, 2.0]).tolist()
        [[1.0, 2.0], [0.0, 1.0]]
        """
        t = real_array("t", t, " (times)", allow_infinite=True)
        columns = [np.interp(t, self.times, column) for column in self.remaining.T]
        return np.stack(columns, axis=-1)


@dataclass(frozen=True, repr=False)
class FlowTime:
    """Completion times of a policy on one set of jobs.

    Attributes
    ----------
    policy : str
        Name of the policy (``"callable"`` for a user function).
    completion_times : numpy.ndarray
        Completion time of each job, in the order of the input sizes.
    total : float
        Total flow time (all jobs arrive at time 0, so flow time = completion time).
    mean : float
        Mean flow time, total / M, formed without the total (``analytic.hesrpt.closed_form.mean_time``):
        within the double range even when the total (then ``inf``) is not.
    alpha : float or None
        KNEE's threshold (None for other policies).
    trajectory : Trajectory or None
        The path between departures, when requested with ``record=True``.

    Examples
    --------
    >>> from analytic.hesrpt import flow_time
    >>> result = flow_time([1.0, 2.0], "equi", 0.5, 10)
    >>> result.policy, round(result.total, 12)   # 1/√5 + (1/√5 + 1/√10)
    ('equi', 1.210654957017)
    """

    policy: str
    completion_times: np.ndarray
    total: float
    mean: float
    alpha: float | None = None
    trajectory: Trajectory | None = None

    def __repr__(self) -> str:
        alpha = "" if self.alpha is None else f", alpha={self.alpha:.6g}"
        return (f"FlowTime(policy={self.policy!r}, jobs={self.completion_times.size}, total={self.total:.12g}, "
                f"mean={self.mean:.12g}{alpha})")


@dataclass(frozen=True, repr=False)
class KneeSearch:
    """KNEE's best threshold α on one set of jobs, and every threshold tried.

    Attributes
    ----------
    alpha : float
        The threshold with the lowest mean flow time among those tried (the first, if several tie).
    mean : float
        That mean flow time.
    alphas : numpy.ndarray
        Every threshold tried, increasing.
    means : numpy.ndarray
        Mean flow time under each of them.

    Examples
    --------
    >>> from analytic.hesrpt import knee_search
    >>> search = knee_search([1.0, 2.0, 3.0], 0.5, 100)
    >>> round(search.mean, 9), len(search.alphas) == len(search.means)
    (0.297145405, True)
    """

    alpha: float
    mean: float
    alphas: np.ndarray
    means: np.ndarray

    def __repr__(self) -> str:
        return f"KneeSearch(alpha={self.alpha:.6g}, mean={self.mean:.12g}, tried={self.alphas.size})"


# ---------------------------------------------------------------------------------------------
# The event engine: rows are independent sets of jobs, kept sorted by remaining size.
# ---------------------------------------------------------------------------------------------


def simulate_runs(sizes: np.ndarray, allocate: Allocator, servers: float,
              record: bool = False) -> tuple[np.ndarray, Trajectory | None]:
    """Completion times (rows × jobs, input order) of independent runs, departure by departure.

    Each row's jobs are kept sorted by remaining size, finished jobs last (remaining = inf), so
    that rank-based policies read ranks off the columns and the width shrinks as jobs leave. Equal
    sizes follow the package's tie rule (:mod:`analytic.hesrpt`): the job listed first ranks as the
    larger, as in the closed forms.
    """
    rows, jobs = sizes.shape
    require_runs(rows, jobs)
    ids = jobs - 1 - np.argsort(sizes[:, ::-1], axis=1, kind="stable")   # ascending; equal sizes: later listed first
    remaining = np.take_along_axis(sizes, ids, axis=1)
    count = np.full(rows, jobs)
    clock = np.zeros(rows)
    completion = np.zeros(rows * jobs)
    origin = np.arange(rows)[:, None] * jobs
    path: list[tuple[float, np.ndarray, np.ndarray]] = []
    width = jobs
    while width:
        active = np.arange(width) < count[:, None]
        held, rates = allocate(remaining, active, count)
        stalled = (count > 0) & ~np.any(active & (rates > 0), axis=1)
        if np.any(stalled):
            raise InvalidParameterError("policy", held[stalled][0],
                                        "allocates no service to any remaining job, so none would ever finish")
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            finish = remaining / rates  # inf where a job gets no service, has left (remaining = inf), or ends beyond 1.8e308
        step = finish.min(axis=1)
        beyond = (count > 0) & ~np.isfinite(step)  # served, but every departure lies beyond the double range
        completion[(origin + ids)[beyond[:, None] & active]] = np.inf
        count[beyond] = 0
        step[count == 0] = 0.0
        if record:
            path.append((clock[0], *_by_job(ids[0], remaining[0], held[0] / servers, jobs)))
        leaving = finish <= step[:, None] * (1.0 + _TIE)
        remaining = remaining - rates * step[:, None]
        remaining[leaving] = np.inf
        with np.errstate(over="ignore"):
            clock += step  # inf: this departure lies beyond the double range
        completion[(origin + ids)[leaving]] = np.broadcast_to(clock[:, None], leaving.shape)[leaving]
        count -= leaving.sum(axis=1)
        width = int(count.max())
        flat = np.argsort(remaining, axis=1, kind="stable")[:, :width] + np.arange(rows)[:, None] * remaining.shape[1]
        remaining, ids = remaining.ravel()[flat], ids.ravel()[flat]
    return completion.reshape(rows, jobs), _trajectory(path, clock[0], jobs) if record else None


def require_runs(runs: int, jobs: int) -> None:
    """Refuse, before allocating, ``runs`` evaluations of ``jobs`` jobs at once that would not fit in memory."""
    require(_RUN_BYTES * runs * jobs, f"evaluating {runs:,} runs of the jobs at once (an entry per run and job)",
            runs * jobs)


def _by_job(ids: np.ndarray, remaining: np.ndarray, fractions: np.ndarray, jobs: int) -> tuple[np.ndarray, np.ndarray]:
    """Remaining sizes and fractions of one row, scattered back to input order (finished jobs: 0)."""
    size, share = np.zeros(jobs), np.zeros(jobs)
    live = np.isfinite(remaining)
    size[ids[live]] = remaining[live]
    share[ids[live]] = fractions[live]
    return size, share


def _trajectory(path: list, end: float, jobs: int) -> Trajectory:
    times = np.array([t for t, _, _ in path] + [end])
    remaining = np.zeros((len(path) + 1, jobs))
    allocations = np.zeros((len(path), jobs))
    for k, (_, sizes, shares) in enumerate(path):
        remaining[k], allocations[k] = sizes, shares
    return Trajectory(times=times, remaining=remaining, allocations=allocations)


# ---------------------------------------------------------------------------------------------
# Allocators
# ---------------------------------------------------------------------------------------------


def _equi(speedup: SpeedupCurve, servers: float) -> Allocator:
    def allocate(remaining, active, count):
        share = servers / np.maximum(count, 1)
        return active * share[:, None], active * speedup(share)[:, None]
    return allocate


def _srpt(speedup: SpeedupCurve, servers: float) -> Allocator:
    def allocate(remaining, active, count):
        first = active & (np.arange(active.shape[1]) == 0)
        return first * servers, first * float(speedup(servers))
    return allocate


def _hesrpt(speedup: SpeedupCurve, servers: float) -> Allocator:
    p = _exponent(speedup, "hesrpt")
    c = 1.0 / (1.0 - p)

    def allocate(remaining, active, count):
        largest_first = np.maximum(count[:, None] - np.arange(active.shape[1]), 1)  # Theorem 7's index i
        log_share = log_hesrpt_share(largest_first, np.maximum(count, 1)[:, None], c)
        held = np.where(active, servers * np.exp(log_share), 0.0)
        return held, np.where(active, np.exp(p * (np.log(servers) + log_share)), 0.0)
    return allocate


def _helrpt(speedup: SpeedupCurve, servers: float) -> Allocator:
    p = _exponent(speedup, "helrpt")

    def allocate(remaining, active, count):
        top = np.max(np.where(active, remaining, 0.0), axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            weight = np.where(active, (remaining / np.where(top > 0, top, 1.0)) ** (1.0 / p), 0.0)
        share = weight / np.maximum(weight.sum(axis=1, keepdims=True), np.finfo(float).tiny)
        return servers * share, np.where(active, speedup(servers * share), 0.0)
    return allocate


def _hell(speedup: SpeedupCurve, servers: int, jobs: int) -> Allocator:
    """HELL's servers by rank: the shortest job gets k_1 = argmax_(k<=N) s(k)^2/k, the next
    argmax over the servers left, and so on (the sequence does not depend on the sizes)."""
    k = np.arange(1, servers + 1, dtype=float)
    ratio = speedup(k) ** 2 / k
    near_best = ratio >= np.maximum.accumulate(ratio) * (1.0 - _TIE)
    largest_best = np.maximum.accumulate(np.where(near_best, np.arange(1, servers + 1), 0))
    grants, free = np.zeros(jobs), servers
    for rank in range(jobs):
        if free == 0:
            break
        grants[rank] = largest_best[free - 1]
        free -= int(grants[rank])
    rates = speedup(grants)

    def allocate(remaining, active, count):
        width = active.shape[1]
        return active * grants[:width], active * rates[:width]
    return allocate


def _knee(speedup: SpeedupCurve, servers: int, alpha: np.ndarray) -> Allocator:
    """KNEE with one threshold per row; knees by binary search in the table of run-time reductions.

    Knees grow along a row (jobs sorted by remaining size), so they are computed in chunks of
    columns and a row stops once its servers are used up: the large knees of jobs that get nothing
    are never looked up.
    """
    table = speedup(np.arange(servers + 1, dtype=float))
    with np.errstate(divide="ignore"):
        reduction = 1.0 / table[1:-1] - 1.0 / table[2:]  # x-free gain of the (k+1)-th server, k = 1..N-1
    ascending = -np.minimum.accumulate(reduction)  # non-increasing by concavity; cumulated against rounding

    def allocate(remaining, active, count):
        rows, width = remaining.shape
        held = np.zeros((rows, width))
        used = np.zeros(rows)
        todo = slice(None)  # rows still holding free servers: all, then an index array
        start = 0
        for stop in _chunk_ends(width):
            live = active[todo, start:stop]
            with np.errstate(over="ignore"):  # α over a size near 5e-324: -inf, a knee of 1
                threshold = -alpha[todo, None] / np.where(live, remaining[todo, start:stop], np.inf)
            knees = np.searchsorted(ascending, threshold.ravel(), side="right").reshape(threshold.shape) + 1.0
            knees = np.where(live, np.minimum(knees, servers), 0.0)
            before = used[todo, None] + np.cumsum(knees, axis=1) - knees
            held[todo, start:stop] = np.clip(servers - before, 0.0, knees)
            used[todo] += knees.sum(axis=1)
            todo = np.flatnonzero((used < servers) & (count > stop))
            start = stop
            if todo.size == 0:
                break
        return held, table[held.astype(np.int64)]
    return allocate


def _chunk_ends(width: int) -> list[int]:
    """Column chunks 0-8, 8-32, 32-128, ... up to ``width``."""
    ends, end = [], 8
    while end < width:
        ends.append(end)
        end *= 4
    return [*ends, width]


_POLICY_RETURNS = "a policy maps the remaining sizes of the jobs present to the fraction of the servers each gets"


def _callable(policy: Callable, speedup: SpeedupCurve, servers: float) -> Allocator:
    def allocate(remaining, active, count):
        live = remaining[0, :count[0]]
        with user_code("policy", live, _POLICY_RETURNS):
            returned = policy(live.copy())
        shares = real_array("policy", returned, f" ({_POLICY_RETURNS})", allow_infinite=True, allow_nan=True)
        if shares.shape != live.shape:
            raise InvalidParameterError("policy", shares, f"must return one fraction per remaining job: shape {live.shape}")
        if not np.all(np.isfinite(shares) & (shares >= -_ALLOCATION_SLACK)) or shares.sum() > 1.0 + _ALLOCATION_SLACK:
            raise InvalidParameterError("policy", shares, "fractions must be finite, >= 0 and sum to at most 1 "
                                        f"(the whole system); sum = {shares.sum():.6g}")
        held = np.zeros(remaining.shape)
        held[0, :count[0]] = servers * np.maximum(shares, 0.0)
        return held, np.where(held > 0, speedup(held), 0.0)
    return allocate


def _exponent(speedup: SpeedupCurve, policy: str) -> float:
    if speedup.exponent is None:
        raise InvalidParameterError("speedup", speedup, f"policy {policy!r} is defined for s(k) = k^p only; "
                                    "use optimal_allocation for other speed-ups")
    return speedup.exponent


def whole_servers(servers: float, policy: str) -> int:
    if servers < 1 or servers != int(servers):
        raise InvalidParameterError("servers", servers, f"policy {policy!r} allocates whole servers: must be an integer >= 1")
    n = int(servers)
    require(64.0 * n, f"{policy.upper()}'s tables over {n:,} whole servers", n)
    return n


def allocator(policy: str | Callable, speedup: SpeedupCurve, servers: float, jobs: int,
               alpha: np.ndarray | None) -> Allocator:
    if callable(policy):
        return _callable(policy, speedup, servers)
    if policy == "knee":
        return _knee(speedup, whole_servers(servers, policy), alpha)
    if policy == "hell":
        return _hell(speedup, whole_servers(servers, policy), jobs)
    builders = {"hesrpt": _hesrpt, "helrpt": _helrpt, "srpt": _srpt, "equi": _equi}
    return builders[_policy_name(policy)](speedup, servers)


def _policy_name(policy: object) -> str:
    """``"callable"`` for a callable policy, else the name, which must be one of :data:`POLICIES`."""
    if callable(policy):
        return "callable"
    if not isinstance(policy, str) or policy not in POLICIES:
        raise InvalidParameterError("policy", policy, f"must be a callable or one of {', '.join(POLICIES)}")
    return policy


# ---------------------------------------------------------------------------------------------
# Public functions
# ---------------------------------------------------------------------------------------------


def flow_time(sizes: object, policy: str | Callable, speedup: SpeedupCurve | SpeedupTable | float | Callable, servers: float,
              *, alpha: float | None = None, record: bool = False) -> FlowTime:
    """Exact completion times and total flow time of an allocation policy, departure by departure.

    All M jobs are present at time 0; a job holding k servers is served at rate s(k) (Berg,
    Vesilo & Harchol-Balter, *heSRPT*, Section 1). The policy is re-applied at each departure and
    its allocation held constant in between (Theorem 3), so the evaluation is exact: M events, no
    time step. Cost: M events of O(M log M) each. The built-in policies and their reading of
    Section 4.2 are described in :mod:`analytic.hesrpt.policies`.

    Parameters
    ----------
    sizes : sequence of float
        Job sizes x_i > 0 (time on one server).
    policy : str or callable
        One of ``"hesrpt"``, ``"helrpt"``, ``"srpt"``, ``"equi"``, ``"hell"``, ``"knee"``, or a
        function from the increasing remaining sizes of the jobs in the system to their fractions of
        the system (non-negative, summing to at most 1).
    speedup : SpeedupCurve, SpeedupTable, float or callable
        s(k) on k servers; a number p means k^p, a table ``SpeedupTable`` its piecewise-linear
        interpolation (:func:`analytic.speedup.as_curve`). ``"hesrpt"`` and ``"helrpt"`` need k^p.
    servers : float
        N > 0; an integer for ``"hell"`` and ``"knee"`` (they allocate whole servers).
    alpha : float, optional
        KNEE's threshold (run-time reduction per extra server, in time units); None searches the
        best one with :func:`knee_search`. Only for ``"knee"``.
    record : bool
        Also return the :class:`Trajectory` (remaining sizes and allocations between departures).

    Returns
    -------
    FlowTime
        ``completion_times`` (input order), ``total``, ``mean``, and ``alpha`` for KNEE.

    Raises
    ------
    InvalidParameterError
        For invalid sizes, servers or speed-up, an unknown policy, ``alpha`` given for another
        policy or not positive, or a callable policy returning fractions that are negative, sum to
        more than one, or serve no job.
    StateSpaceTooLargeError
        If the evaluation would not fit in memory (about 128 bytes a job; KNEE's search runs 17 at once).

    Examples
    --------
    The two equal jobs of Section 1 on N = 10 servers with s(k) = k^0.5:

    >>> flow_time([1.0, 1.0], "hesrpt", 0.5, 10).total  # doctest: +ELLIPSIS
    0.86395032352...
    >>> flow_time([1.0, 1.0], "equi", 0.5, 10).total  # doctest: +ELLIPSIS
    0.89442719099...
    """
    x = check_sizes(sizes)
    n = positive("servers", servers)
    curve = as_curve(speedup, n)
    name = _policy_name(policy)
    record = flag("record", record)
    if alpha is not None and name != "knee":
        raise InvalidParameterError("alpha", alpha, "is KNEE's threshold: give it only with policy='knee'")
    if name == "knee" and alpha is None:
        alpha = knee_search(x, curve, n).alpha
    if alpha is not None:
        positive("alpha", alpha, meaning=" (KNEE's threshold)")
    allocate = allocator(policy, curve, n, x.size, None if alpha is None else np.array([float(alpha)]))
    completion, path = simulate_runs(x[None, :], allocate, n, record=record)
    with np.errstate(over="ignore"):                   # a total beyond 1.8e308 is inf, its mean need not be
        total = float(completion.sum())
    return FlowTime(policy=name, completion_times=completion[0], total=total, mean=mean_time(completion[0]),
                    alpha=None if alpha is None else float(alpha), trajectory=path)


def knee_search(sizes: object, speedup: SpeedupCurve | SpeedupTable | float | Callable, servers: int,
                alphas: object = None) -> KneeSearch:
    """KNEE's best threshold α for one set of jobs, by brute-force search as in Section 4.2.

    Berg et al., *heSRPT*, Section 4.2, search "the parameter space" of KNEE and report its best α,
    an optimistic view of KNEE. Without ``alphas``, 17 log-spaced thresholds cover the range over
    which the initial knee allocations go from N (or the last server that still speeds a job up) to
    1 (a factor 2 beyond it each way, within the positive doubles, 5e-324 to 1.8e308); then, three
    times, 2 more are log-spaced on each side of the best so far, up to its neighbours, which ends
    with a spacing of 7% around the best. The mean flow time is piecewise constant in α and the
    reported optimum is the best of these 29 points, each evaluated exactly; all runs go together.
    On Figure 4's first three sets (five p) it came within 0.15% of the best of 520 thresholds
    (400 log-spaced over the same range, 120 around their best).

    Parameters
    ----------
    sizes : sequence of float
        Job sizes x_i > 0.
    speedup : SpeedupCurve, SpeedupTable, float or callable
        s(k); a number p means k^p, a table ``SpeedupTable`` its piecewise-linear interpolation.
    servers : int
        Number of servers N >= 1.
    alphas : sequence of float, optional
        Thresholds to try instead of the default grid (all > 0).

    Returns
    -------
    KneeSearch
        The best ``alpha``, its ``mean`` flow time, and every ``alphas`` tried with its ``means``.

    Raises
    ------
    InvalidParameterError
        For invalid sizes, servers, speed-up or thresholds.
    StateSpaceTooLargeError
        If the runs of one round would not fit in memory (about 128 bytes per threshold and job).

    Examples
    --------
    >>> search = knee_search([1.0, 2.0, 4.0], 0.5, 100)
    >>> search.mean <= flow_time([1.0, 2.0, 4.0], "equi", 0.5, 100).mean
    True
    """
    x = check_sizes(sizes)
    n = whole_servers(positive("servers", servers), "knee")
    curve = as_curve(speedup, n)
    grid = None
    if alphas is not None:
        grid = real_array("alphas", alphas, allow_infinite=True, allow_nan=True).ravel()
        if grid.size == 0 or not np.all(np.isfinite(grid) & (grid > 0)):
            raise InvalidParameterError("alphas", alphas, "must be a non-empty sequence of positive finite thresholds")
        grid = grid[None, :]
    tried, means = knee_search_batch(x[None, :], curve, n, grid)
    order = np.argsort(tried[0], kind="stable")
    best = int(np.argmin(means[0]))
    return KneeSearch(alpha=float(tried[0, best]), mean=float(means[0, best]),
                      alphas=tried[0, order], means=means[0, order])


def knee_search_batch(sizes: np.ndarray, speedup: SpeedupCurve, servers: int,
                      alphas: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Mean flow time of KNEE for several instances (rows of ``sizes``) and thresholds at once.

    Returns the thresholds tried and their mean flow times, both of shape (instances, tries): the
    given ``alphas`` (one row per instance), or the coarse grid and its refinement described in
    :func:`knee_search`.
    """
    if alphas is not None:
        return alphas, _knee_means(sizes, speedup, servers, alphas)
    rates = speedup(np.arange(1.0, servers + 1.0))
    gains = 1.0 / rates[:-1] - 1.0 / rates[1:]  # x-free run-time reduction of the (k+1)-th server
    useful = gains[gains > 0]
    if useful.size == 0:  # one server, or a speed-up flat beyond one: every knee is 1, α does not matter
        ones = np.ones((sizes.shape[0], 1))
        return ones, _knee_means(sizes, speedup, servers, ones)
    # in logs, kept within the positive doubles: the products under- or overflow for sizes near
    # 5e-324 or 1.7e308, and a threshold beyond the double range is not one that can be returned
    low = np.log(0.5) + np.log(useful.min()) + np.log(sizes.min(axis=1))
    high = np.log(2.0) + np.log(useful.max()) + np.log(sizes.max(axis=1))
    tried = np.exp(np.linspace(np.clip(low, *_LOG_ALPHAS), np.clip(high, *_LOG_ALPHAS), KNEE_COARSE, axis=1))
    means = _knee_means(sizes, speedup, servers, tried)
    rows = np.arange(sizes.shape[0])[:, None]
    fractions = np.arange(1, _KNEE_REFINE + 1) / (_KNEE_REFINE + 1)
    for _ in range(_KNEE_ROUNDS):
        order = np.argsort(tried, axis=1)
        tried, means = tried[rows, order], means[rows, order]
        best = np.argmin(means, axis=1)[:, None]
        centre = np.log(tried[rows, best])
        left = np.log(tried[rows, np.maximum(best - 1, 0)])
        right = np.log(tried[rows, np.minimum(best + 1, tried.shape[1] - 1)])
        inner = np.exp(np.concatenate([left + (centre - left) * fractions, centre + (right - centre) * fractions], axis=1))
        tried = np.concatenate([tried, inner], axis=1)
        means = np.concatenate([means, _knee_means(sizes, speedup, servers, inner)], axis=1)
    return tried, means


def _knee_means(sizes: np.ndarray, speedup: SpeedupCurve, servers: int, alphas: np.ndarray) -> np.ndarray:
    instances, tries = alphas.shape
    stacked = np.repeat(sizes, tries, axis=0)
    completion, _ = simulate_runs(stacked, _knee(speedup, servers, alphas.ravel()), servers)
    return mean_time(completion).reshape(instances, tries)

