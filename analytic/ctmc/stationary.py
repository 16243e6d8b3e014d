"""The stationary law of a chain: which solver runs, what it vouches for, and the result.

The contract: every probability at or above :data:`FLOOR` is within ``tolerance`` of the exact
stationary probability, *relative to itself*, or the call raises
:class:`~analytic.errors.ConvergenceError` saying the best accuracy it reached (the tolerance that
would have been vouched for). The vouching is a proof, state by state, not an estimate: the
certificate of ``analytic.ctmc._certificate`` (an inverse-positive system and a checked
supersolution) bounds the error of every probability, whichever method computed it, and
:attr:`Stationary.error_bounds` holds those bounds.

Methods:

* ``"gth"``: the subtraction-free Grassmann–Taksar–Heyman elimination gives the measure;
  refinement adds double-double digits when the certificate needs them. Asked for by name, it
  is the multifrontal factorization (``analytic.ctmc._gth``); ``"auto"`` eliminates a chain of at
  most ``SMALL_STATES`` states whose elimination in a band costs at most ``SMALL_FLOPS``
  multiply-adds in that band instead (``analytic.ctmc._small``: two kernels, quick to compile),
  with the same arithmetic, so that what is vouched for, and how, is the same.
* ``"iterative"``: rounds of relative correction by GMRES with an ILU(0) preconditioner from a
  rough measure (``Balance.rough_measure``, ``analytic.ctmc._refinement``): memory linear in
  the transitions. Chains of ``MULTILEVEL_STATES`` states and more start from a multilevel
  aggregation measure and precondition by V-cycles (``analytic.ctmc._multilevel``).
* ``"direct"``: the same rounds with SuperLU factorizations of the scaled system.
* ``"auto"`` (default): GTH when its factorization fits in memory and costs at most
  :data:`GTH_FLOPS` multiply-adds (or ``GTH_FLOPS_PER_STATE`` per state), the iterative rounds
  otherwise; when the certificate does not reach the tolerance it keeps working — refinement, a
  direct factorization, GTH whatever its flop count if it fits in memory, extended precision
  (``analytic.ctmc._extended``) for a small chain — and refuses only when none reaches it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from analytic._deprecation import renamed_arguments
from analytic.ctmc import _extended as extended
from analytic.ctmc import _gth as gth
from analytic.ctmc import _small as small
from analytic.ctmc._balance import Balance, Measure
from analytic.ctmc._certificate import Certificate, certify, normalized_bound, tree_bound
from analytic.ctmc._gth_analysis import MINIMUM_DEGREE_STATES, WIDE_SEPARATORS
from analytic.ctmc._multilevel import MULTILEVEL_STATES, aggregation_measure
from analytic.ctmc._refinement import RESTART, ScaledSolver, refine
from analytic.ctmc._reversible import detailed_balance, reversible_bound
from analytic.ctmc.spaces import reward_values
from analytic.errors import ConvergenceError, InvalidParameterError, StateSpaceTooLargeError
from analytic.memory import UNCHECKED_BYTES, available_bytes, fits, require
from analytic.validation import integer, option, unit_fraction

__all__ = ["ACCURACY", "FLOOR", "GTH_FLOPS", "Stationary", "check_tolerance", "solve", "solve_bytes"]

#: Default componentwise relative accuracy vouched for every probability at or above the floor.
ACCURACY = 1e-10

#: Smallest tolerance a caller may ask for.
MINIMUM_TOLERANCE = 2.0**-50

#: Smallest probability the accuracy is vouched for (normal doubles reach 2.2e-308; the margin
#: keeps the relative accuracy of values rescaled near the bottom of the range).
FLOOR = 1e-290

#: ``method="auto"`` starts with GTH when its factorization costs (``GTHPlan.cost``) at most this
#: many multiply-adds (a fraction of a second), or at most ``GTH_FLOPS_PER_STATE`` per state (chains
#: of low dimension, whose fronts stay small: birth–death chains, the two-queue lattices, where
#: GMRES needs many iterations; on a k x k lattice it grows like 14 k); otherwise the iterative
#: rounds come first and GTH is a fallback. Measured (benchmarks/ctmc.py): the BS-FCFS sequence
#: chain of 5 251 states costs 3e5 per state (fronts of up to 831 states: 2 s) against 0.1 to 1 s
#: of iterative rounds; the 10^6- and 10^7-state lattices about 2e4 and 5e4 per state.
GTH_FLOPS = 1e8
GTH_FLOPS_PER_STATE = 1e5

#: ``method="auto"`` tries SuperLU on the scaled system up to this many states.
DIRECT_STATES = 3000

#: The smallest relative residual the refinement rounds reach (double-double residuals): a chain that
#: amplifies residuals more than ``tolerance / REFINED_RESIDUAL`` times (as measured by a first
#: method's certificate: one whose check held, or GTH's on its own measure, subtraction-free and
#: positive) is not handed to the direct and iterative rounds, which could not certify it.
REFINED_RESIDUAL = 2.0**-100

#: At most this many certificates per method: each pass after the first must have halved the
#: residual (a check that keeps failing while the refinement still improves cannot loop).
CERTIFICATION_PASSES = 8

METHODS = ("auto", "gth", "direct", "iterative")


@dataclass(frozen=True, repr=False)
class Stationary:
    """The stationary distribution of a :class:`~analytic.ctmc.CTMC`, with what it vouches for.

    ``numpy.asarray(result)`` is the probability vector.

    Attributes
    ----------
    probabilities : numpy.ndarray
        ``pi``, aligned with ``states``; non-negative, sums to one.
    accuracy : float
        The tolerance vouched for: every probability ``>= floor`` has relative error at most this.
    floor : float
        Probabilities below it are not part of the promise (their own bounds are in
        ``error_bounds``).
    error_bounds : numpy.ndarray
        A proven bound on the relative error of each probability (``inf`` where none holds).
    conditioning : float
        How much the chain amplifies a relative residual into relative errors of its probabilities:
        the largest mean number of jumps of the time-reversed chain to reach the pinned state
        (``analytic.ctmc._certificate``). Near ``1e16`` double precision no longer suffices.
    residual : float
        ``||pi Q||_1`` of the returned vector, for information only: a small residual certifies
        nothing.
    method : str
        Which solver produced it.
    iterations : int
        Krylov iterations (0 for GTH and the direct solver).
    check : str
        How the accuracy was established.
    states : list or numpy.ndarray
        The chain's states, as in :attr:`CTMC.states`.

    Examples
    --------
    A chain with rates 1 (0 -> 1) and 2 (1 -> 0) has ``pi = (2, 1) / 3``:

    >>> from analytic.ctmc import CTMC
    >>> result = CTMC([[0, 1.0], [2.0, 0]]).stationary()
    >>> np.asarray(result).round(12).tolist(), len(result)
    ([0.666666666667, 0.333333333333], 2)
    >>> bool(result.error_bounds.max() <= result.accuracy)
    True
    """

    probabilities: np.ndarray
    accuracy: float
    floor: float
    error_bounds: np.ndarray
    conditioning: float
    residual: float
    method: str
    iterations: int
    check: str
    states: Any = field(repr=False)
    _space: Any = field(repr=False, compare=False)

    def __repr__(self) -> str:
        shown = np.array2string(self.probabilities, precision=6, threshold=8, edgeitems=3, separator=", ")
        return (f"Stationary(n_states={len(self.probabilities)}, probabilities={shown}, method={self.method!r}, "
                f"accuracy={self.accuracy:.2g}, floor={self.floor:.3g}, residual={self.residual:.3g})")

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        return np.array(self.probabilities, dtype=dtype, copy=True if copy is None else copy)

    def __len__(self) -> int:
        return len(self.probabilities)

    def expected(self, reward: np.ndarray | Callable) -> float:
        """Expected stationary reward ``sum_x pi(x) r(x)``.

        ``reward`` is an array aligned with the states, or a function: for lattice chains it is
        called once with the array of all states (one row each) and returns one value per row;
        for chains built from a transition function it is called on each state. For a
        non-negative reward the relative error is at most the largest error bound of the states
        where it is positive.

        Parameters
        ----------
        reward : numpy.ndarray or callable
            One finite value per state, aligned with :attr:`states` (a scalar is taken for every
            state), or a function of the states as above.

        Returns
        -------
        float
            ``sum_x pi(x) r(x)``, in the reward's unit.

        Raises
        ------
        InvalidParameterError
            The reward does not have one value per state, or a value is NaN or infinite.

        Examples
        --------
        The mean number in an M/M/1/2 queue (arrivals at rate 1, service at rate 2), whose law is
        geometric, ``pi = (4, 2, 1) / 7``: ``(1 * 2 + 2 * 1) / 7 = 4/7``.

        >>> from analytic.ctmc import CTMC
        >>> queue = CTMC.from_function(0, lambda x: [(x + 1, 1.0)] * (x < 2) + [(x - 1, 2.0)] * (x > 0))
        >>> round(queue.stationary().expected(lambda x: x), 12)
        0.571428571429
        """
        return float(self.probabilities @ reward_values(self._space, reward, len(self.probabilities)))

    def probability(self, state: Any) -> float:
        """Stationary probability of one state.

        Parameters
        ----------
        state : hashable or sequence of int
            A state of the chain, as in :meth:`CTMC.index`.

        Returns
        -------
        float
            Its stationary probability.

        Raises
        ------
        InvalidParameterError
            ``state`` is not a state of the chain.

        Examples
        --------
        The M/M/1/2 queue with arrival rate 1 and service rate 2 is full with probability 1/7:

        >>> from analytic.ctmc import CTMC
        >>> queue = CTMC.from_function(0, lambda x: [(x + 1, 1.0)] * (x < 2) + [(x - 1, 2.0)] * (x > 0))
        >>> round(queue.stationary().probability(2), 12)
        0.142857142857
        """
        return float(self.probabilities[self._space.index(state)])


def check_tolerance(tolerance: object) -> float:
    """``tolerance`` as a float in [``2**-50``, 1): the componentwise relative accuracy a caller asks
    for. Below ``2**-50`` (8.9e-16) nothing can be vouched for: the probabilities are returned as
    doubles, whose normalization and rounding alone cost a few units of ``2**-53``.

    Parameters
    ----------
    tolerance : float
        The componentwise relative accuracy asked for, in [``2**-50``, 1).

    Returns
    -------
    float
        ``tolerance`` as a float.

    Raises
    ------
    InvalidParameterError
        ``tolerance`` is not a real number in [``2**-50``, 1).

    Examples
    --------
    >>> check_tolerance(1e-6)
    1e-06
    """
    return tolerance_at_least(tolerance, MINIMUM_TOLERANCE,
                              "the probabilities are returned as doubles, whose rounding alone is a few 1e-16")


def tolerance_at_least(tolerance: object, minimum: float, why: str) -> float:
    """``tolerance`` as a float in [``minimum``, 1), or an error that says ``why`` nothing finer is vouched for."""
    value = unit_fraction("tolerance", tolerance, meaning=" (a relative accuracy, e.g. 1e-10)")
    if value < minimum:
        raise InvalidParameterError("tolerance", tolerance,
                                    f"must be at least 2**{math.log2(minimum):.0f} = {minimum:.3g}: {why}")
    return value


@renamed_arguments(states="n_states")
def solve_bytes(n_states: int, entries: int) -> int:
    """The least memory :meth:`CTMC.stationary` needs for a generator with ``entries`` stored
    entries: the iterative rounds' (the scaled system, its ILU(0) and the GMRES basis); GTH and
    SuperLU need more wherever they fill in.

    Parameters
    ----------
    n_states : int
        Number of states (>= 0).
    entries : int
        Stored entries of the generator (>= 0).

    Returns
    -------
    int
        Bytes: 72 per entry and ``RESTART + 30`` vectors of ``n_states`` doubles (the GMRES basis
        and work vectors).

    Raises
    ------
    InvalidParameterError
        An argument is not an integer >= 0.

    Examples
    --------
    A million states and five million entries: ``5 * 10**6 * 72 + (100 + 30) * 10**6 * 8`` bytes.

    >>> solve_bytes(10**6, 5 * 10**6)
    1400000000
    """
    n_states, entries = integer("n_states", n_states, minimum=0), integer("entries", entries, minimum=0)
    return entries * 6 * 12 + (RESTART + 30) * n_states * 8


@dataclass(frozen=True)
class Solution:
    """What :func:`solve` returns: probabilities, their bounds, and how they were obtained."""

    probabilities: np.ndarray
    error_bounds: np.ndarray
    conditioning: float
    method: str
    iterations: int
    check: str


@dataclass
class _Attempts:
    """The methods tried so far, the best certified accuracy among them and the largest conditioning
    their certificates measured."""

    tolerance: float
    tried: list[str] = field(default_factory=list)
    best: float = math.inf
    conditioning: float = 0.0

    def record(self, label: str, accuracy: float, why: str = "") -> None:
        self.tried.append(f"{label}: {why or f'{accuracy:.3g}'}")
        self.best = min(self.best, accuracy)

    def refusal(self) -> ConvergenceError:
        reached = (f"the best accuracy reached is {self.best:.3g} (tolerance={self.best * 1.01:.3g} would be vouched for)"
                   if self.best < math.inf else "no method produced a certified bound")
        return ConvergenceError(f"cannot vouch for every probability >= {FLOOR:g} within tolerance={self.tolerance:g}: "
                                f"{reached}; tried {'; '.join(self.tried)}")


def solve(generator: sp.csr_array, method: str, first: int | None, tolerance: float = ACCURACY) -> Solution:
    """Stationary law of an irreducible generator with certified per-state bounds (module docstring).

    Parameters
    ----------
    generator : scipy.sparse.csr_array
        The generator ``Q`` of an irreducible chain, shape (n, n); only its off-diagonal rates
        (finite, >= 0) are read.
    method : {"auto", "gth", "direct", "iterative"}
        The method, or ``"auto"`` for the ladder of the module docstring.
    first : int or None
        For ``"direct"`` and ``"iterative"``: the index of the state pinned first (None: the
        likeliest state of a rough measure); the rounds move it to the likeliest state.
    tolerance : float
        The componentwise relative accuracy to vouch for, in [``2**-50``, 1) (checked by
        :func:`check_tolerance`).

    Returns
    -------
    Solution
        The probabilities, their proven relative error bounds, the conditioning, the method
        used, the Krylov iterations and how the accuracy was established.

    Raises
    ------
    InvalidParameterError
        ``method`` is not one of the methods, or the rates out of one state span more than the
        double range.
    ConvergenceError
        No method vouches for every probability >= :data:`FLOOR` within ``tolerance`` (the message
        gives the best accuracy reached), or the method asked for cannot solve the chain.

    Examples
    --------
    The cycle 0 -> 1 -> 2 -> 0 with rates 1, 2 and 3 spends in each state a time proportional to
    its mean sojourn: ``pi = (1, 1/2, 1/3) / (11/6) = (6, 3, 2) / 11``.

    >>> import scipy.sparse as sp
    >>> cycle = sp.csr_array([[-1.0, 1.0, 0], [0, -2.0, 2.0], [3.0, 0, -3.0]])
    >>> solution = solve(cycle, "auto", None)
    >>> solution.probabilities.round(12).tolist()
    [0.545454545455, 0.272727272727, 0.181818181818]
    >>> bool(solution.error_bounds.max() <= ACCURACY)
    True
    """
    option("method", method, METHODS)
    n = generator.shape[0]
    if n == 1:
        return Solution(np.ones(1), np.zeros(1), 0.0, "trivial", 0, "one state")
    balance = Balance(generator)
    attempts = _Attempts(tolerance)
    ladder, plan = _plan_methods(balance, method, attempts)
    for name in ladder:
        if name in ("direct", "iterative") and attempts.conditioning * REFINED_RESIDUAL > tolerance:
            attempts.record(name, math.inf, f"not tried: the chain amplifies relative residuals about "
                            f"{attempts.conditioning:.2g} times, beyond what refinement rounds (relative residuals of "
                            f"{REFINED_RESIDUAL:.1g} at best) certify")
            continue
        try:
            outcome = _attempt(balance, name, first, tolerance, plan)
        except StateSpaceTooLargeError as exc:
            if method != "auto":
                raise
            attempts.record(name, math.inf, str(exc))
            continue
        except FloatingPointError as exc:
            if method != "auto":
                raise ConvergenceError(f"{name} cannot solve this chain: {exc}") from exc
            attempts.record(name, math.inf, str(exc))
            continue
        solution, accuracy, measured = outcome
        if accuracy <= tolerance:
            return solution
        attempts.conditioning = max(attempts.conditioning, measured)
        attempts.record(solution.method, accuracy, "" if math.isfinite(accuracy) else (
            f"no supersolution checked; the chain amplifies relative residuals about {solution.conditioning:.2g} "
            "times (mean jumps of the reversed chain to the pinned state), beyond what double precision resolves"))
    raise attempts.refusal()


def _plan_methods(balance: Balance, method: str,
                  attempts: _Attempts) -> tuple[list[str], gth.GTHPlan | small.BandPlan | None]:
    """The methods to try in turn (the one asked for, or the ``auto`` ladder), and the GTH plan,
    rooted at a guess of the likeliest state (the pinned state of its certificate): for ``auto``, in
    a band for a small chain (:func:`_band_plan`), else multifrontal, whose analysis stops once its
    factors exceed the memory available (then GTH is not tried, and ``attempts`` says why)."""
    plan = _band_plan(balance) if method == "auto" else None
    if method == "gth":
        plan = gth.analyse(balance.rates, root=balance.likely_state())
    if method != "auto":
        return [method], plan
    in_memory = cheap = plan is not None          # a band plan: small and cheap
    if plan is None:
        dense = 16 * balance.n**2 <= UNCHECKED_BYTES      # even dense factors would fit: no need to ask
        try:
            plan = gth.analyse(balance.rates, root=balance.likely_state(), budget=math.inf if dense else available_bytes())
        except StateSpaceTooLargeError as exc:
            attempts.record("gth", math.inf, str(exc))
        in_memory = plan is not None and fits(plan.bytes)
        cheap = in_memory and (plan.cost <= GTH_FLOPS or plan.cost <= GTH_FLOPS_PER_STATE * balance.n)
    ladder = ["gth", "iterative"] if cheap else ["iterative"]
    if balance.n <= DIRECT_STATES:
        ladder.append("direct")
    if in_memory and "gth" not in ladder:
        ladder.append("gth")
    if balance.n <= extended.EXTENDED_STATES:
        ladder.append("extended")
    return ladder, plan


def _band_plan(balance: Balance) -> small.BandPlan | None:
    """The banded GTH's plan for a small chain, rooted at the state of least total outflow (the
    longest mean sojourn: a guess of the likeliest state that costs nothing to compile), or None
    when the chain has more than ``SMALL_STATES`` states or its band costs more than
    ``SMALL_FLOPS``."""
    if balance.n > small.SMALL_STATES:
        return None
    plan = small.band_plan(balance, int(np.argmin(np.log2(balance.outflow) + balance.row_exponent)))
    return plan if plan.flops <= small.SMALL_FLOPS else None


def _attempt(balance: Balance, name: str, first: int | None, tolerance: float,
             plan: gth.GTHPlan | small.BandPlan | None) -> tuple[Solution, float, float]:
    """One method: its measure, refined and certified; the solution, the accuracy it reached and the
    conditioning its certificate measured (0 where it measured nothing: a check that failed on a
    measure other than GTH's own positive one, or an infinite amplification; a measure that lost a
    tail to underflow measures nothing).

    Where the first certificate of GTH's own measure misses the tolerance, that measure's a-priori
    bound (:meth:`gth.Factorization.error_bound`) is tried before any refinement; where it meets the
    tolerance the measure is not refined (the certificate still sharpens the bounds of single
    states). Where the bounds still miss the tolerance, those free of the conditioning are tried
    (:func:`_backward_error_law`)."""
    iterations, rounds, a_priori, raw = 0, 0, math.inf, None
    if name == "extended":
        x, certificate = extended.certified_measure(balance)
        label = "extended precision (GTH and the certificate's supersolution in mpmath)"
    else:
        first = None
        if name == "gth":
            factorization = _rooted_factorization(balance, plan)
            raw = factorization.measure()
            x, reference = balance.positive(raw), factorization.root
            solver = ScaledSolver(balance, "gth", factorization)
            label = (f"gth (banded, subtraction-free; half-bandwidth {factorization.plan.width})"
                     if isinstance(plan, small.BandPlan) else
                     f"gth (multifrontal, subtraction-free; {factorization.plan.largest_front}-state largest front)")
            solver.update(x, reference, refactor=True)
            first = certify(balance, x, reference, solver.solve)
            if not _reaches(first, tolerance) and x is raw:      # positive: the a-priori bound may hold
                a_priori = factorization.error_bound()
        else:
            multilevel = name == "iterative" and balance.n >= MULTILEVEL_STATES
            x = aggregation_measure(balance) if multilevel else balance.rough_measure()
            reference = int(np.argmax(x.relative_to_top())) if first is None else first
            solver = ScaledSolver(balance, name)
            label = ("direct (SuperLU of the scaled system)" if name == "direct" else
                     "iterative (GMRES(100), multilevel aggregation of the scaled system)" if multilevel else
                     "iterative (GMRES(100), ILU(0) of the scaled system)")
            refined = refine(balance, x, reference, tolerance * 1e-6, solver)
            x, reference, rounds = refined.x, refined.reference, refined.rounds
        if a_priori <= tolerance / 2:            # vouched, with room for the normalization's rounding: no refinement
            certificate = first
        else:
            certificate, x, more = _certified(balance, x, reference, tolerance, solver, first)
            rounds += more
        iterations = solver.iterations
    how = (f"an inverse-positive system and a checked supersolution (relative residual {certificate.residual:.2g} "
           f"amplified at most {certificate.amplification:.3g} times; {rounds} refinement rounds)")
    best = _Law(*_law(balance, x, certificate.relative), how)
    if raw is not None and a_priori < math.inf:
        unrefined = x is raw
        relative = certificate.relative if unrefined else np.full(balance.n, np.inf)
        best = min(best, _Law(*_law(balance, raw, relative, a_priori), _a_priori_how(a_priori, how if unrefined else "")))
    for measure in [x] if raw is None or raw is x else [x, raw]:   # GTH's own measure too, if refinement moved x
        if best.accuracy <= tolerance:
            break
        best = min(best, _backward_error_law(balance, measure))   # the bounds free of the conditioning
    check_text = (f"certified by {best.how}: every probability's error is bounded, the largest bound being "
                  f"{best.accuracy:.2g} over the {int(best.vouched.sum())} probabilities >= {FLOOR:g}")
    solution = Solution(best.probabilities, best.bounds, certificate.amplification, label, iterations, check_text)
    measured = certificate.holds or (raw is not None and bool(np.all(raw.hi > 0)))   # no tail lost to underflow
    return solution, best.accuracy, certificate.amplification if measured and math.isfinite(certificate.amplification) else 0.0


def _backward_error_law(balance: Balance, x: Measure) -> _Law:
    """The better of two laws with bounds free of the conditioning: ``x`` under the backward error on
    a spanning tree (:func:`tree_bound`), and, for chains whose transitions can all be undone,
    ``x`` brought into detailed balance to double-double accuracy (:func:`detailed_balance`)
    under the backward error of detailed balance (:func:`reversible_bound`)."""
    unbounded = np.full(balance.n, np.inf)
    uniform, eta = tree_bound(balance, x)
    tree = _Law(*_law(balance, x, unbounded, uniform),
                f"a backward error of {eta:.2g} relative on the rates of a spanning tree and the Markov chain tree theorem")
    balanced = detailed_balance(balance, x)
    return min(tree, _Law(*_law(balance, balanced, unbounded, reversible_bound(balance, balanced)),
                          "the backward error of detailed balance on every transition (each can be undone) and the "
                          "Markov chain tree theorem"))


def _a_priori_how(bound: float, certificate: str) -> str:
    """How an a-priori bound vouched (with the certificate that sharpened single states, if any)."""
    text = (f"the rounding-error bound {bound:.2g} of the subtraction-free elimination, from its operation counts and "
            "no underflow (O'Cinneide's entrywise analysis, for GTH in its order of elimination)")
    return f"{text}, and {certificate} where it is sharper" if certificate else text


@dataclass(frozen=True, order=True)
class _Law:
    """A normalized law with its per-state bounds, compared by the accuracy vouched over the floor."""

    accuracy: float = field(init=False)
    probabilities: np.ndarray = field(compare=False)
    bounds: np.ndarray = field(compare=False)
    how: str = field(compare=False)

    def __post_init__(self) -> None:
        vouched = self.vouched
        object.__setattr__(self, "accuracy", float(self.bounds[vouched].max()) if vouched.any() else math.inf)

    @property
    def vouched(self) -> np.ndarray:
        return self.probabilities >= FLOOR


def _rooted_factorization(balance: Balance,
                          plan: gth.GTHPlan | small.BandPlan) -> gth.Factorization | small.BandFactorization:
    """The GTH factorization rooted at a likely state of the jump chain: the certificate is pinned
    at the root, and its amplification is the mean number of jumps to reach it. When the measure
    shows the guessed root a thousand times less likely than the likeliest state, the chain is
    factored again with that state as root; so it is when a pivot vanishes (a guessed root can lie
    far in a tail, where the censored rates towards it underflow), rooted at the state whose pivot
    vanished. A :class:`~analytic.ctmc._small.BandPlan` is factored in its band, rooted again in a
    band."""
    def rooted_at(root: int) -> gth.Factorization | small.BandFactorization:
        if isinstance(plan, small.BandPlan):
            again = small.band_plan(balance, root)
            require(again.bytes, "the GTH factorization", balance.n)
            return small.BandFactorization(balance, again)
        return gth.Factorization(balance, gth.analyse(balance.rates, root=root, thorough=True))

    if isinstance(plan, gth.GTHPlan) and balance.n <= MINIMUM_DEGREE_STATES and plan.flops > WIDE_SEPARATORS * balance.n:
        plan = gth.analyse(balance.rates, root=int(plan.order[-1]), thorough=True)   # minimum degree may do better
    require(plan.bytes, "the GTH factorization", balance.n)
    try:
        factorization = (small.BandFactorization(balance, plan) if isinstance(plan, small.BandPlan)
                         else gth.Factorization(balance, plan))
    except gth.VanishedPivot as vanished:
        return rooted_at(vanished.state)
    weights = factorization.measure().relative_to_top()
    likeliest = int(np.argmax(weights))
    if weights[likeliest] <= 1e3 * weights[factorization.root]:
        return factorization
    return rooted_at(likeliest)


def _certified(balance: Balance, x: Measure, reference: int, tolerance: float, solver: ScaledSolver,
               first: Certificate | None = None) -> tuple[Certificate, Measure, int]:
    """Certify ``x`` (``first``: its certificate, already computed with ``solver`` updated to it);
    while the check fails (rows whose relative excess is large, typically states far below the
    double range that the first measure got wrong) or the bound misses the tolerance because the
    residual is too large for the amplification, refine further and certify again."""
    rounds, previous = 0, math.inf
    for attempt in range(CERTIFICATION_PASSES):
        if attempt or first is None:
            solver.update(x, reference, refactor=True)
            certificate = certify(balance, x, reference, solver.solve)
        else:
            certificate = first
        if _reaches(certificate, tolerance):
            break
        previous = min(previous, certificate.residual)   # a refinement must improve on it to be kept
        if certificate.holds:
            target = tolerance / (8 * max(certificate.amplification, 1.0))
        else:                                    # a failed check's residual says little about the error: refine's count
            target = 1e-6 * tolerance
        if target >= previous:                   # the residual is not what limits the bound
            break
        try:
            refined = refine(balance, x, reference, target, solver)
        except FloatingPointError:               # a correction left the double range: keep x
            break
        rounds += refined.rounds
        if refined.residual >= previous / 2:     # no progress
            break
        x, reference, previous = refined.x, refined.reference, refined.residual
    return certificate, x, rounds


def _reaches(certificate: Certificate, tolerance: float) -> bool:
    """Whether the certificate bounds the pinned measure within a third of the tolerance (the rest
    is for the normalization and its rounding)."""
    return certificate.holds and float(certificate.relative.max()) <= tolerance / 3


def _law(balance: Balance, x: Measure, relative: np.ndarray,
         uniform: float = math.inf) -> tuple[np.ndarray, np.ndarray]:
    """The normalized law of ``Q`` and each probability's bound: the smaller of the certificate's
    (from the per-state bounds ``relative`` on the pinned measure) and ``uniform``, plus the
    result's one rounding to a double (:meth:`Balance.normalized`: relative, and absolute for a
    subnormal result, ``2**-1075``, taken relative to half the computed value)."""
    probabilities, rounding = balance.normalized(x)
    measure = np.minimum(normalized_bound(relative, probabilities), uniform)
    bound = (1 + measure) * (1 + rounding) - 1
    with np.errstate(divide="ignore"):
        absolute = np.where((probabilities > 0) & (measure < 1), 2.0**-1074 / probabilities, np.inf)
    return probabilities, np.where(probabilities >= 2.0**-1022, bound, bound + absolute)
