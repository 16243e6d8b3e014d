"""Phase-type laws PH(α, T) for :mod:`analytic.simulation.laws`: :class:`PhaseType`, its CDF, moments and samplers.

The time to absorption of a finite Markov chain, with its density; the CDF by uniformization with
squaring of the embedded chain's matrix, the moments from a GTH-style factorization of ``I - P``
(Grassmann, Taksar & Heyman). :func:`draw_phase_type` draws one size inside the compiled loops.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy import linalg, sparse
from scipy.sparse import csgraph

from analytic import validation
from analytic._kernels import kernel
from analytic.errors import InvalidParameterError
from analytic.simulation._size_law import MAX_MOMENT, MAX_ORDER, ORDER_ADVICE, PHASE_TYPE, SizeLaw, check_exact, pick

# -- phase-type laws -----------------------------------------------------------------------------------

#: The smallest power of the uniformized matrix exponential in :meth:`PhaseType.cdf` covers 2^-8 of a
#: uniformized time unit; a remainder below it is summed term by term.
_SUBSTEPS = 8
#: A Poisson tail below 2^-1000 is dropped: the values it would change lie below 1e-300.
_FLOOR = 2.0 ** -1000
#: Relative size of a dropped Poisson tail against the value it would change (2^-56: a sixteenth of a unit
#: in the last place).
_TAIL = 2.0 ** -56


def _gth_lu(jumps: np.ndarray, exits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``I - P = L U`` for a substochastic ``P`` (``jumps``, zero diagonal) whose rows lose ``exits = 1 - P·1``.

    Gaussian elimination in the manner of Grassmann, Taksar & Heyman: each pivot is computed as its row's
    exit probability plus its remaining off-diagonal entries, never as a difference, so every operation adds
    numbers of one sign and the factors have a small entrywise relative error whatever the condition number
    (Alfa, Xue & Ye, "Entrywise perturbation theory for diagonally dominant M-matrices with applications",
    Numer. Math. 90 (2002)). Returns the unit lower factor and the upper factor as dense matrices.
    """
    m = exits.size
    work, sums = jumps.copy(), exits.copy()
    lower = np.eye(m)
    upper = np.zeros((m, m))
    for k in range(m):
        upper[k, k] = sums[k] + work[k, k + 1:].sum()
        upper[k, k + 1:] = -work[k, k + 1:]
        if k + 1 < m:
            factors = work[k + 1:, k] / upper[k, k]
            lower[k + 1:, k] = -factors
            work[k + 1:, k + 1:] += np.outer(factors, work[k, k + 1:])     # the diagonal entries are never read
            sums[k + 1:] += factors * sums[k]
    return lower, upper


def _with_defects(power: np.ndarray) -> np.ndarray:
    """A stochastic matrix whose last state absorbs, each diagonal entry near one set (in place) from the sum of
    the off-diagonal entries of its row (its defect), which carries its information: 1 - 1e-30 is 1.0 in double
    precision, and squaring it would lose the 1e-30 that doubles at every step."""
    diagonal = np.diagonal(power).copy()
    np.fill_diagonal(power, 0.0)
    defect = power.sum(axis=1)
    np.fill_diagonal(power, np.where(defect <= 0.5, 1.0 - defect, diagonal))
    power[-1] = 0.0
    power[-1, -1] = 1.0
    return power


def _base_weights() -> list[float]:
    """Poisson(2^-8) probabilities e^(-r) r^n / n!, each within two roundings (r^n is a power of two, 1/n! exact)."""
    r = 2.0 ** -_SUBSTEPS
    weights = [math.exp(-r)]
    while weights[-1] > _FLOOR:
        n = len(weights)
        weights.append(math.exp(-r) * math.ldexp(float(Fraction(1, math.factorial(n))), -_SUBSTEPS * n))
    return weights


_BASE_WEIGHTS = _base_weights()


@dataclass(frozen=True, repr=False)
class PhaseType(SizeLaw):
    """The time to absorption of a Markov chain on ``m`` transient phases: a phase-type law PH(α, T).

    The chain starts in phase ``i`` with probability ``initial[i]`` (α), jumps from phase ``i`` to ``j``
    at rate ``generator[i, j]`` (T) and leaves for absorption at rate ``t_i = -(T·1)_i``
    (:attr:`exit_rates`); the size is the time until it leaves.

    Parameters
    ----------
    initial : array_like, shape (m,)
        α: the probabilities of the initial phase (>= 0, summing to one within 1e-9, renormalized). There
        is no atom at zero: a size is positive, as for :class:`Discrete`.
    generator : array_like, shape (m, m)
        T, the sub-generator (finite rates per unit time): off-diagonal entries >= 0, row sums <= 0, and
        nonsingular, i.e. from every phase a path of positive rates leads to a phase with a positive exit
        rate, so absorption is certain. An exit rate within ``m ε |T_ii|`` of zero is taken as zero (the
        rounding of a diagonal computed as minus the sum of its row's other rates). ``m <= 1024``.

    Notes
    -----
    Moments ``E[S^k] = k! α (-T)^(-k) 1`` are solved by elimination without subtraction on the
    embedded chain (Grassmann, Taksar & Heyman's GTH rule, which for such M-matrices gives a small
    entrywise relative error whatever their condition number: Alfa, Xue & Ye, Numer. Math. 90 (2002));
    the variance comes from the law of total variance, phase by phase, not from ``E[S²] - E[S]²``, so
    the scv keeps its digits at any value. Measured against mpmath at 50 digits: a few units in the last
    place for moments and variance.

    The CDF ``1 - α e^(Tx) 1`` and the density ``α e^(Tx) t`` come from uniformization at rate
    ``q = max_i |T_ii|`` in nonnegative arithmetic only: ``e^(Qx)`` (``Q`` the generator with the
    absorbing state) is a product of the powers ``e^(Q 2^j / q)`` for the binary digits ``2^j >= 2^-8``
    of ``q x`` (squared from the smallest one, each diagonal entry near one kept through its row's
    off-diagonal sum) and a Poisson sum over the remainder (``q x`` taken exactly, as the product of two
    doubles, with exact rational weights), stopped when its tail is below 2^-56 of the value computed
    or below 1e-300. The CDF is the absorbed mass while it is below 1/2, else one minus the mass still
    in the phases. Each value, small ones included (the CDF near 0, the density far in the tail), thus
    has a relative error of order ``(m + log2(q x)) ε`` plus the conditioning of the law itself, at most
    about ``q x ε`` (``e^(-qx)`` has it), or lies below 1e-300. Measured against mpmath's ``expm`` at
    40 digits on random dense laws of 3 to 7 phases: at most 6e-15 for ``q x <= 100`` (3e-16 for most
    laws), 5e-13 for the density at ``q x = 10⁴``; on Erlang chains the CDF keeps its digits down to
    values of 1e-280. Beyond ``x = 2 M (1076 + log2 max t)``, with ``M`` the largest mean time to
    absorption from a phase, ``P(S > x) <= 2^(-x / (2 M))`` (Markov's inequality, restarted) makes the
    CDF 1 and the density 0 in double precision. Cost: ``O(m³ (60 + log2(q x)))`` per call (``O(m nnz)``
    for the series of a sparse chain) plus ``O(m²)`` per point.

    The stationary-excess law is phase-type with the same T and the initial law
    ``π_e = α (-T)^(-1) / E[S]`` (:attr:`excess_law`). Sampling runs the embedded jump chain (an
    exponential holding time of rate ``|T_ii|`` per visit), vectorized over the sample; inside numba
    :func:`draw` runs it job by job.

    Examples
    --------
    Two exponential phases in series, of rates 2 and 1 (a hypoexponential law, CDF ``1 - 2e^-x + e^-2x``):

    >>> law = PhaseType([1.0, 0.0], [[-2.0, 2.0], [0.0, -1.0]])
    >>> law.mean, law.second_moment, law.scv, law.exit_rates.tolist()
    (1.5, 3.5, 0.5555555555555556, [0.0, 1.0])
    >>> float(law.cdf(1.0)), 1 - 2 * math.exp(-1) + math.exp(-2)
    (0.39957640089372803, 0.39957640089372803)
    >>> law.excess_law.initial.tolist()                 # (-T)^(-1) row sums weighted by α, over E[S]: (1/2, 1) / 1.5
    [0.3333333333333333, 0.6666666666666666]
    """

    initial: np.ndarray
    generator: np.ndarray

    def __post_init__(self) -> None:
        alpha = validation.probabilities("initial", self.initial, meaning=" over the phases (no atom at zero: sizes "
                                                                          "are positive)")
        m = alpha.size
        if m > MAX_ORDER:
            raise InvalidParameterError("initial", self.initial, f"must have at most {MAX_ORDER} phases, not {m:,} "
                                                                 f"({ORDER_ADVICE})")
        generator = validation.real_array("generator", self.generator, ndim=2)
        if generator.shape != (m, m):
            raise InvalidParameterError("generator", self.generator, f"must be a square {m}×{m} matrix, one row and "
                                                                     f"column per phase of initial, not of shape "
                                                                     f"{generator.shape}")
        rates = generator.copy()
        np.fill_diagonal(rates, 0.0)
        if np.any(rates < 0):
            i, j = (int(v) for v in np.argwhere(rates < 0)[0])
            raise InvalidParameterError("generator", generator, f"must have off-diagonal rates >= 0: generator[{i}, {j}] "
                                                                f"= {generator[i, j]:.10g}")
        exits = np.empty(m)
        for i, row in enumerate(generator):
            try:
                total = math.fsum(row.tolist())
            except OverflowError:
                total = math.inf
            if not math.isfinite(total):
                raise InvalidParameterError("generator", generator, f"must have row sums within the double range: row {i} "
                                                                    "overflows") from None
            if total > m * np.finfo(float).eps * abs(generator[i, i]):
                raise InvalidParameterError("generator", generator, f"must have row sums <= 0 (exit rates -generator·1 "
                                                                    f">= 0): row {i} sums to {total:.10g}")
            exits[i] = max(-total, 0.0) if -total > m * np.finfo(float).eps * abs(generator[i, i]) else 0.0
        self._setup(alpha, rates, exits, "generator", generator)

    @classmethod
    def _from_rates(cls, initial: np.ndarray, rates: np.ndarray, exits: np.ndarray) -> PhaseType:
        """The law of initial probabilities, off-diagonal rates (zero diagonal) and exit rates, checked but not
        rounded through a generator (the exit rates stay exact)."""
        law = object.__new__(cls)
        with np.errstate(over="ignore", invalid="ignore"):
            generator = rates - np.diag(exits + rates.sum(axis=1))
        object.__setattr__(law, "initial", initial / initial.sum())
        object.__setattr__(law, "generator", generator)
        law._setup(law.initial, rates, exits, "generator", generator)
        return law

    def _setup(self, alpha: np.ndarray, rates: np.ndarray, exits: np.ndarray, name: str, shown: object) -> None:
        """Check absorption and the double range, factor, and store the moments."""
        m = alpha.size
        with np.errstate(over="ignore", invalid="ignore"):
            totals = exits + rates.sum(axis=1)
        if not (np.all(np.isfinite(rates)) and np.all(np.isfinite(exits)) and np.all(np.isfinite(totals))):
            raise InvalidParameterError(name, shown, "must have rates whose row sums lie within the double range")
        graph = np.zeros((m + 1, m + 1), dtype=bool)
        graph[:m, :m] = rates.T > 0        # reversed edges, and the exit state m
        graph[m, :m] = exits > 0
        reached = csgraph.breadth_first_order(graph, m, directed=True, return_predecessors=False)
        stuck = sorted(set(range(m)) - {int(v) for v in reached})
        if stuck:
            raise InvalidParameterError(name, shown, f"must be nonsingular (absorption certain from every phase): from "
                                                     f"phase{'s' if len(stuck) > 1 else ''} {', '.join(map(str, stuck[:8]))}"
                                                     f"{', ...' if len(stuck) > 8 else ''} no path of positive rates "
                                                     f"leads to a phase with a positive exit rate")
        jumps, leave = rates / totals[:, None], exits / totals
        lower, upper = _gth_lu(jumps, leave)
        for key, value in (("initial", alpha), ("generator", np.array(self.generator, dtype=float)), ("_rates", rates),
                           ("_exits", exits), ("_totals", totals), ("_lower", lower), ("_upper", upper)):
            value.setflags(write=False)
            object.__setattr__(self, key, value)
        with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
            times = self._solve(1.0 / totals)                                 # E_i[S], mean time to absorption from i
            mean = float(alpha @ times)
            second = 2.0 * float(alpha @ self._solve(times / totals))
            # law of total variance over the first step: A v = 1/d + Σ_j r_ij (m_j - μ_i)² + t_i μ_i², μ_i = Σ_j r_ij m_j / d
            ahead = (rates @ times) / totals
            spread = 1.0 / totals + np.sum(rates * (times[None, :] - ahead[:, None]) ** 2, axis=1) + exits * ahead ** 2
            variance = float(alpha @ self._solve(spread / totals) + alpha @ (times - mean) ** 2)
        tiny = np.finfo(float).tiny
        if not (np.all(np.isfinite(times)) and tiny <= mean and tiny <= second < math.inf and tiny <= variance < math.inf):
            raise InvalidParameterError(name, shown, f"gives a law beyond double precision (E[S] = {mean:.6g}, "
                                                     f"E[S²] = {second:.6g})")
        object.__setattr__(self, "_times", times)
        object.__setattr__(self, "_moments", (mean, second, variance))

    def _solve(self, b: np.ndarray, transpose: bool = False) -> np.ndarray:
        """``(I - P)^(-1) b`` (or ``b (I - P)^(-1)``) for b >= 0 with the subtraction-free factors."""
        solve = functools.partial(linalg.solve_triangular, check_finite=False)   # a non-finite result is refused after
        if transpose:
            return solve(self._lower, solve(self._upper, b, trans="T"), lower=True, unit_diagonal=True, trans="T")
        return solve(self._upper, solve(self._lower, b, lower=True, unit_diagonal=True))

    @property
    def order(self) -> int:
        """Number of phases ``m``."""
        return int(self.initial.size)

    @property
    def exit_rates(self) -> np.ndarray:
        """``t = -T·1``, the rate of absorption from each phase (zero within rounding is zero)."""
        return self._exits

    @property
    def mean(self) -> float:
        """``E[S] = α (-T)^(-1) 1``."""
        return self._moments[0]

    @property
    def second_moment(self) -> float:
        """``E[S²] = 2 α (-T)^(-2) 1``."""
        return self._moments[1]

    @property
    def variance(self) -> float:
        """``Var S``, by the law of total variance phase by phase: no cancellation at small scv."""
        return self._moments[2]

    def moment(self, k: int) -> float:
        """``E[S^k] = k! α (-T)^(-k) 1``.

        Parameters
        ----------
        k : int
            The order, 1 to 1024.

        Returns
        -------
        float
            The moment, to a few units in the last place.

        Raises
        ------
        InvalidParameterError
            ``k`` out of range, or the moment beyond the normal double range.

        Examples
        --------
        >>> PhaseType([1.0], [[-2.0]]).moment(3)        # 3! / 2³
        0.75
        """
        k = validation.integer("k", k)
        if k > MAX_MOMENT:
            raise InvalidParameterError("k", k, f"must be at most {MAX_MOMENT}")
        vector, exponent = np.ones(self.order), 0
        with np.errstate(over="ignore", under="ignore"):
            for j in range(1, k + 1):
                vector = j * self._solve(vector / self._totals)
                top = float(vector.max())
                if not math.isfinite(top) or top == 0.0:
                    break
                shift = math.frexp(top)[1]
                vector, exponent = np.ldexp(vector, -shift), exponent + shift
            value = float(self.initial @ vector)
        try:
            result = math.ldexp(value, exponent) if math.isfinite(value) else math.inf
        except OverflowError:
            result = math.inf
        if not np.finfo(float).tiny <= result < math.inf:
            raise InvalidParameterError("k", k, f"gives E[S^{k}] beyond the normal double range (about 2^{exponent})")
        return result

    def pdf(self, x: float | np.ndarray) -> np.ndarray:
        """The density ``α e^(Tx) t`` (0 for ``x < 0``), vectorized over real ``x`` (±inf allowed).

        Parameters
        ----------
        x : float or array_like
            Where to evaluate.

        Returns
        -------
        numpy.ndarray
            The densities, of the shape of ``x``; each within a small relative error (class Notes).

        Examples
        --------
        >>> float(PhaseType([1.0], [[-2.0]]).pdf(0.0))
        2.0
        """
        return self._transient(validation.real_array("x", x, allow_infinite=True))[1]

    @property
    def excess_law(self) -> PhaseType:
        """The stationary-excess law: phase-type with the same generator and initial law ``α (-T)^(-1) / E[S]``."""
        cached = self.__dict__.get("_excess")
        if cached is None:
            with np.errstate(under="ignore"):
                weights = self._solve(self.initial, transpose=True) / self._totals
            cached = PhaseType._from_rates(weights / weights.sum(), self._rates, self._exits)
            object.__setattr__(self, "_excess", cached)
        return cached

    def _uniformized(self) -> tuple[float, np.ndarray | sparse.csr_array, float]:
        """``q``, ``I + Q/q`` on the phases and the absorbing state (last) in nonnegative arithmetic, and the
        horizon beyond which the CDF is 1 and the density 0 in double precision."""
        cached = self.__dict__.get("_uniform")
        if cached is None:
            m, q = self.order, float(self._totals.max())
            matrix = np.zeros((m + 1, m + 1))
            matrix[:m, :m] = self._rates / q
            np.fill_diagonal(matrix[:m, :m], (q - self._totals) / q)     # exact subtraction for totals >= q/2
            matrix[:m, m] = self._exits / q
            matrix[m, m] = 1.0
            if np.count_nonzero(matrix) <= (m + 1) ** 2 / 4:   # sparse (an Erlang chain): O(m nnz) per product
                matrix = sparse.csr_array(matrix)
            times = self._times
            bits = 1076 + max(0, math.ceil(math.log2(float(self._exits.max()))))
            horizon = 2.0 * float(times.max()) * bits                       # P(S > x) <= 2^(-x / (2 max_i E_i[S]))
            cached = (q, matrix, horizon)
            object.__setattr__(self, "_uniform", cached)
        return cached

    def _power(self) -> np.ndarray:
        """``e^(Q 2^-8 / q)`` by its Poisson series, each entry relatively accurate (or below 1e-300)."""
        cached = self.__dict__.get("_base_power")
        if cached is None:
            _, matrix, _ = self._uniformized()
            m = self.order
            term = np.eye(m + 1)
            power = _BASE_WEIGHTS[0] * term
            for n in range(1, len(_BASE_WEIGHTS)):
                term = term @ matrix
                power += _BASE_WEIGHTS[n] * term
                tail = 2.0 * _BASE_WEIGHTS[n + 1] if n + 1 < len(_BASE_WEIGHTS) else 0.0    # Σ_(k>n) w_k <= 2 w_(n+1)
                # every entry is reached within m + 1 terms: then a tail below 2^-56 of the least one is negligible
                if tail <= _FLOOR or (n > m and tail <= _TAIL * float(power[power > 0].min())):
                    break
            cached = _with_defects(power)
            cached.setflags(write=False)
            object.__setattr__(self, "_base_power", cached)
        return cached

    def _transient(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(P(S <= x), density at x)`` for an array of reals (±inf allowed), of its shape."""
        m = self.order
        q, matrix, horizon = self._uniformized()
        flat = x.ravel()
        cdf = np.where(flat >= horizon, 1.0, 0.0)
        pdf = np.zeros(flat.size)
        live = (flat >= 0) & (flat < horizon)
        points = flat[live]
        state = np.zeros((points.size, m + 1))
        state[:, :m] = self.initial
        # u = q x exactly, from the integer mantissas of q and x: u = U 2^E, U < 2^106; then u = high 2^base + low 2^E
        # with base >= -8 and low 2^E < 2^-8 (the remainder, summed term by term with exact rational weights)
        mq, eq = math.frexp(q)
        digits_q, highs, bases, lows, exponents = int(math.ldexp(mq, 53)), [], [], [], []
        for value in points.tolist():
            mx, ex = math.frexp(value)
            digits, exponent = digits_q * int(math.ldexp(mx, 53)), eq + ex - 106
            shift = max(0, -_SUBSTEPS - exponent)
            highs.append(digits >> shift)
            bases.append(exponent + shift)
            lows.append(digits & ((1 << shift) - 1))
            exponents.append(exponent)
        if any(highs):
            rows_at: dict[int, list[int]] = {}
            for row, (high, base) in enumerate(zip(highs, bases, strict=True)):
                while high:
                    bit = high.bit_length() - 1
                    rows_at.setdefault(base + bit, []).append(row)
                    high -= 1 << bit
            power = self._power()
            for position in range(-_SUBSTEPS, max(rows_at) + 1):
                if position in rows_at:
                    rows = rows_at[position]
                    state[rows] = state[rows] @ power
                if position < max(rows_at):
                    power = _with_defects(power @ power)
        rows = [row for row, low in enumerate(lows) if low]
        if rows:
            state[rows] = self._poisson_sum(state[rows], [lows[i] for i in rows], [exponents[i] for i in rows], matrix)
        transient = state[:, :m].sum(axis=1)
        # the CDF as the absorbed mass while small, else one minus the transient mass (both relatively accurate)
        cdf[live] = np.where(transient >= 0.5, state[:, m], 1.0 - transient)
        pdf[live] = state[:, :m] @ self._exits
        return cdf.reshape(x.shape), pdf.reshape(x.shape)

    def _poisson_sum(self, state: np.ndarray, low: list[int], exponent: list[int], matrix: np.ndarray) -> np.ndarray:
        """``state e^(Q r / q)`` row by row for ``r = low 2^exponent < 2^-8``: the Poisson series, each weight
        ``e^(-r) r^n / n!`` from the exact rational ``r^n / n!`` (two roundings), stopped per row when its tail is
        below 2^-56 of both the absorbed mass and the density it would change, or below 1e-300."""
        m = self.order
        rest = np.array([math.ldexp(v, e) for v, e in zip(low, exponent, strict=True)])
        scale = np.exp(-rest)
        total = scale[:, None] * state
        term, mass, fastest = state.copy(), state.sum(axis=1), float(self._exits.max())
        numerators, denominators = [1] * rest.size, [1] * rest.size
        lows, shifts = low, [-v for v in exponent]
        active = np.arange(rest.size)
        n = 0
        while active.size:
            n += 1
            term[active] = term[active] @ matrix
            for i in active:
                numerators[i] *= lows[i]
                denominators[i] *= n << shifts[i]
            weight = scale[active] * np.array([numerators[i] / denominators[i] for i in active])
            total[active] += weight[:, None] * term[active]
            tail = 2.0 * weight * rest[active] / (n + 1)              # Σ_(k>n) weights <= 2 w_(n+1): r/(n+2) < 1/2
            absorbed = tail * mass[active] <= _TAIL * total[active, m]
            density = tail * fastest * term[active, :m].sum(axis=1) <= _TAIL * (total[active, :m] @ self._exits)
            active = active[~((absorbed & density) | (tail <= _FLOOR))]
        return total

    def _cdf(self, x: np.ndarray) -> np.ndarray:
        return self._transient(np.asarray(x, dtype=float))[0]

    def _excess_cdf(self, x: np.ndarray) -> np.ndarray:
        return self.excess_law._cdf(x)

    def _jump_table(self) -> tuple[np.ndarray, np.ndarray]:
        """Cumulative probabilities of the initial phase and, per phase, of the next phase (the last column is
        absorption), each row set to 1 from its last positive entry on."""
        cached = self.__dict__.get("_table")
        if cached is None:
            m = self.order
            start = _cumulative_to_last(self.initial)
            table = np.zeros((m, m + 1))
            for i in range(m):
                table[i] = _cumulative_to_last(np.append(self._rates[i], self._exits[i]) / self._totals[i])
            cached = (start, table)
            object.__setattr__(self, "_table", cached)
        return cached

    def _sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        start, table = self._jump_table()
        m = self.order
        phase = pick(rng, start, size)
        total = np.zeros(size)
        active = np.arange(size)
        while active.size:
            total[active] += rng.standard_exponential(active.size) / self._totals[phase]
            uniform = rng.random(active.size)
            low, high = np.zeros(active.size, dtype=np.int64), np.full(active.size, m, dtype=np.int64)
            while np.any(low < high):                                 # first column whose cumulative exceeds the uniform
                middle = (low + high) // 2
                right = table[phase, middle] > uniform
                low, high = np.where(right, low, middle + 1), np.where(right, middle, high)
            stay = low < m
            active, phase = active[stay], low[stay]
        return total

    def _sample_excess(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return self.excess_law._sample(rng, size)

    def _scaled(self, factor: float) -> PhaseType:
        return PhaseType._from_rates(self.initial, self._rates / factor, self._exits / factor)

    def _to_phase_type(self, phases: int | None) -> PhaseType:
        check_exact(self, phases)
        return self

    @property
    def kernel(self) -> tuple[int, np.ndarray]:
        start, table = self._jump_table()
        rows = np.concatenate([self._totals[:, None], table], axis=1)
        return PHASE_TYPE, np.concatenate([[self.order], start, rows.ravel()])

    def __repr__(self) -> str:
        if self.order <= 3:
            def digits(values: np.ndarray) -> list:
                return [float(f"{v:.6g}") for v in values] if values.ndim == 1 else [digits(row) for row in values]
            shown = f"initial={digits(self.initial)}, generator={digits(self.generator)}"
        else:
            shown = f"order={self.order}"
        return f"PhaseType({shown}, mean={self.mean:.6g}, scv={self.scv:.6g})"


def _cumulative_to_last(weights: np.ndarray) -> np.ndarray:
    """Cumulative sums, 1.0 from the last positive weight on (so that a zero weight is never picked)."""
    cumulative = np.cumsum(weights)
    cumulative[int(np.flatnonzero(weights > 0)[-1]):] = 1.0
    return cumulative


@kernel
def draw_phase_type(parameters: np.ndarray, rng: np.random.Generator) -> float:
    """One absorption time of the embedded jump chain laid out by :attr:`PhaseType.kernel`: the order m, the
    cumulative initial law, then per phase its total rate and the cumulative law of the next phase (m is
    absorption)."""
    m = int(parameters[0])
    phase = min(np.searchsorted(parameters[1:m + 1], rng.random(), side="right"), m - 1)
    total = 0.0
    while phase < m:
        row = 1 + m + phase * (m + 2)
        total += rng.standard_exponential() / parameters[row]
        phase = np.searchsorted(parameters[row + 1:row + m + 2], rng.random(), side="right")
    return total
