"""Job-size laws with exact moments, samplers and stationary-excess laws.

Four families cover the laws of the papers, each scaled to a requested mean:

* :class:`ErlangMixture` — with probability ``w_c`` an Erlang law of ``k_c`` phases of rate
  ``r_c``: the exponential, Erlang, hyperexponential and "mixed Erlang" laws, a bimodal or Zipf
  number of exponential phases (Bonald & Comte, Section 5) and the two-moment fits of :func:`fitted`;
* :class:`Discrete` — finitely many sizes: the deterministic and the bimodal (two-point) laws;
* :class:`Pareto` — ``P(S > y) = (y_m / y)^a`` for ``y >= y_m``, with ``a > 1`` (finite mean);
* :class:`PhaseType` — the time to absorption of a finite Markov chain, PH(α, T), with its density;
  :func:`fit_phase_type` matches two or three moments, and :meth:`SizeLaw.to_phase_type` gives every
  law as one (exactly for Erlang mixtures, as a stated approximation for the others), for exact chains
  whose jobs carry their phase.

Every law has exact ``mean`` and ``second_moment`` attributes (``inf`` when infinite), its CDF,
a vectorized sampler driven by a :class:`numpy.random.Generator`, and the sampler and CDF of its
*stationary-excess* law ``F_e(x) = (1/m) ∫_0^x P(S > u) du`` (the law of the residual size of a job
in service in an infinite-server system at equilibrium), with which a simulation can start close to
steady state. Inside a numba event loop, :func:`draw` takes ``law.kernel`` and draws one size at a
time from a generator passed to the compiled function.

Examples
--------
>>> import numpy as np
>>> law = pareto(1.5)                       # Ghanbarian et al., Section 7: P(S <= y) = 1 - (3y)^(-3/2)
>>> law.mean, law.second_moment, round(float(law.cdf(1.0)), 15)   # 1 - 3^(-3/2); its last bit varies with numpy
(1.0, inf, 0.807549910270125)
>>> round(mixed_erlang().scv, 6)
0.71875
>>> fitted(2.0, 3.0)                         # mean 2, standard deviation 3: H2 with balanced means
ErlangMixture(weights=[0.8101, 0.1899], phases=[1, 1], rates=[0.8101, 0.1899], mean=2, scv=2.25)
>>> sizes = exponential().sample(np.random.default_rng(1), 100_000)
>>> bool(abs(sizes.mean() - 1.0) < 0.02)
True
"""

from __future__ import annotations

import functools
import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np
from scipy import linalg, sparse, special
from scipy.sparse import csgraph

from analytic import validation
from analytic._kernels import kernel
from analytic.errors import InvalidParameterError, StateSpaceTooLargeError, scientific
from analytic.memory import require
from analytic.validation import positive

__all__ = [
    "LAW_NAMES",
    "Discrete",
    "ErlangMixture",
    "Pareto",
    "PhaseType",
    "SizeLaw",
    "bimodal",
    "deterministic",
    "draw",
    "erlang",
    "exponential",
    "fit_phase_type",
    "fitted",
    "hyperexponential",
    "mixed_erlang",
    "pareto",
    "size_law",
]

#: Smallest positive squared coefficient of variation :func:`fitted` accepts (10^6 Erlang phases).
MIN_SCV = 1e-6

#: Most phases of an Erlang component: the samplers draw Gamma(k) with k a double, exact up to 2^53.
MAX_PHASES = 2**53

#: Codes of the families in :attr:`SizeLaw.kernel` (first element of the pair).
ERLANG_MIXTURE, DISCRETE, PARETO, PHASE_TYPE = 0, 1, 2, 3

#: Most phases of a :class:`PhaseType` (its matrices are dense: the CDF costs O(m³) per matrix product).
MAX_ORDER = 1024

#: Erlang phases per value in :meth:`SizeLaw.to_phase_type` of a :class:`Discrete` law, unless given.
DISCRETE_PHASES = 20

#: Most phases :func:`fit_phase_type` uses, unless given.
MAX_FIT_PHASES = 100

#: Highest order k of :meth:`PhaseType.moment`.
MAX_MOMENT = 1024


class SizeLaw(ABC):
    """A job-size law: exact moments, CDF, samplers of the law and of its stationary-excess law.

    Subclasses: :class:`ErlangMixture`, :class:`Discrete`, :class:`Pareto`, :class:`PhaseType`; build
    them with :func:`exponential`, :func:`erlang`, :func:`hyperexponential`, :func:`mixed_erlang`,
    :func:`deterministic`, :func:`bimodal`, :func:`pareto`, :func:`fitted`, :func:`fit_phase_type` or
    :func:`size_law`.

    Examples
    --------
    >>> law = erlang(2, mean=3.0)
    >>> law.mean, law.scv, law.excess_mean
    (3.0, 0.5, 2.25)
    """

    @property
    @abstractmethod
    def mean(self) -> float:
        """``E[S]`` (finite)."""

    @property
    @abstractmethod
    def second_moment(self) -> float:
        """``E[S²]``, ``inf`` when infinite."""

    @property
    def variance(self) -> float:
        """``Var S = E[S²] - E[S]²`` (``inf`` when infinite)."""
        return self.second_moment - self.mean ** 2

    @property
    def scv(self) -> float:
        """Squared coefficient of variation ``Var S / E[S]²``."""
        return self.variance / self.mean ** 2

    @property
    def excess_mean(self) -> float:
        """Mean of the stationary-excess law, ``E[S²] / (2 E[S])`` (``inf`` when ``E[S²]`` is)."""
        return self.second_moment / (2.0 * self.mean)

    def cdf(self, x: float | np.ndarray) -> np.ndarray:
        """``P(S <= x)``, vectorized over real ``x`` (±inf allowed).

        Parameters
        ----------
        x : float or array_like
            Where to evaluate.

        Returns
        -------
        numpy.ndarray
            The probabilities, of the shape of ``x``.

        Examples
        --------
        >>> float(deterministic(1.0).cdf(1.0))
        1.0
        """
        return self._cdf(validation.real_array("x", x, allow_infinite=True))

    def excess_cdf(self, x: float | np.ndarray) -> np.ndarray:
        """``F_e(x) = (1/E[S]) ∫_0^x P(S > u) du``, vectorized over real ``x`` (±inf allowed).

        Parameters
        ----------
        x : float or array_like
            Where to evaluate.

        Returns
        -------
        numpy.ndarray
            The probabilities, of the shape of ``x``.

        Examples
        --------
        >>> float(deterministic(2.0).excess_cdf(1.0))   # the excess of a constant 2 is uniform on [0, 2]
        0.5
        """
        return self._excess_cdf(validation.real_array("x", x, allow_infinite=True))

    def sample(self, rng: np.random.Generator | None, size: int) -> np.ndarray:
        """``size`` independent sizes drawn with ``rng`` (None: a generator with fresh entropy).

        Parameters
        ----------
        rng : numpy.random.Generator or None
            The random numbers.
        size : int
            How many sizes (>= 0).

        Returns
        -------
        numpy.ndarray, shape (size,)

        Examples
        --------
        >>> import numpy as np
        >>> exponential().sample(np.random.default_rng(1), 4).shape
        (4,)
        """
        return self._sample(*_sampling(rng, size))

    def sample_excess(self, rng: np.random.Generator | None, size: int) -> np.ndarray:
        """``size`` independent draws of the stationary-excess law (``rng`` as in :meth:`sample`).

        Parameters
        ----------
        rng : numpy.random.Generator or None
            The random numbers.
        size : int
            How many draws (>= 0).

        Returns
        -------
        numpy.ndarray, shape (size,)

        Examples
        --------
        >>> import numpy as np
        >>> bool(np.all(deterministic(2.0).sample_excess(np.random.default_rng(1), 100) <= 2.0))
        True
        """
        return self._sample_excess(*_sampling(rng, size))

    def scaled(self, mean: float) -> SizeLaw:
        """The same law multiplied by a constant so that its mean is ``mean`` (> 0).

        Parameters
        ----------
        mean : float
            The new mean.

        Returns
        -------
        SizeLaw
            A law of the same family and scv.

        Examples
        --------
        >>> pareto().scaled(2.0).mean
        2.0
        """
        return _with_mean(mean, lambda m: self._scaled(m / self.mean))

    def to_phase_type(self, phases: int | None = None) -> PhaseType:
        """The law as a :class:`PhaseType`: exactly when it is one, else an approximation of stated order.

        * :class:`ErlangMixture`: exact, one chain of phases per distinct rate (a component of ``k``
          phases enters that chain ``k`` phases before its end; one of weight zero is left out), so
          Tijms's mixtures of Erlang(k - 1) and Erlang(k) take ``k`` phases; ``phases`` must be None.
        * :class:`PhaseType`: itself; ``phases`` must be None.
        * :class:`Discrete` — an approximation: each value ``v`` becomes, with its probability, an
          Erlang law of ``phases`` phases (default 20) and mean ``v``. The mean is exact; the variance
          grows by ``E[S²] / phases`` (a deterministic size gets scv ``1/phases``).
        * :class:`Pareto` — an approximation, which matches moments: the first three for ``shape > 3``
          (:func:`fit_phase_type`, minimal acyclic law of Bobbio, Horváth & Telek), the mean and variance
          for ``2 < shape <= 3`` (its third moment is infinite). A Pareto law of ``shape <= 2`` has an
          infinite variance, which no phase-type law has, and is refused: fit the moments of a truncation
          of your choice with :func:`fit_phase_type`. ``phases`` must be None (the fit takes the fewest
          phases that match, at most 100).

        Parameters
        ----------
        phases : int, optional
            Order of the approximation of a :class:`Discrete` law (phases per value, >= 1).

        Returns
        -------
        PhaseType

        Raises
        ------
        InvalidParameterError
            ``phases`` given for a law it does not apply to, or a Pareto law without a finite variance.
        StateSpaceTooLargeError
            More than 1024 phases would be needed.

        Examples
        --------
        >>> mixed_erlang().to_phase_type().order        # one phase w.p. 0.4, two w.p. 0.6, one rate: a 2-phase chain
        2
        >>> law = deterministic(2.0).to_phase_type(phases=4)
        >>> law.order, law.mean, law.scv
        (4, 2.0, 0.25)
        """
        if phases is not None:
            phases = validation.integer("phases", phases)
        return self._to_phase_type(phases)

    @abstractmethod
    def _to_phase_type(self, phases: int | None) -> PhaseType: ...

    @abstractmethod
    def _cdf(self, x: np.ndarray) -> np.ndarray: ...

    @abstractmethod
    def _excess_cdf(self, x: np.ndarray) -> np.ndarray: ...

    @abstractmethod
    def _sample(self, rng: np.random.Generator, size: int) -> np.ndarray: ...

    @abstractmethod
    def _sample_excess(self, rng: np.random.Generator, size: int) -> np.ndarray: ...

    @abstractmethod
    def _scaled(self, factor: float) -> SizeLaw: ...

    @property
    @abstractmethod
    def kernel(self) -> tuple[int, np.ndarray]:
        """``(code, parameters)`` for :func:`draw` inside compiled loops."""


def _with_mean(mean: object, build: Callable[[float], SizeLaw]) -> SizeLaw:
    """``build(m)`` for the validated mean m; a law that doubles cannot hold (a phase rate of a
    subnormal mean overflows, a subnormal scale loses its digits) is refused naming ``mean``."""
    m = positive("mean", mean)
    try:
        with np.errstate(over="ignore", divide="ignore"):  # an infinite rate is refused by the law itself
            law = build(m)
    except InvalidParameterError as error:
        raise InvalidParameterError("mean", mean, f"gives a law beyond double precision ({error})") from None
    if not math.isclose(law.mean, m, rel_tol=1e-12):
        raise InvalidParameterError("mean", mean, f"gives a law beyond double precision (its mean would be {law.mean:.6g})")
    return law


def _sampling(rng: object, size: object) -> tuple[np.random.Generator, int]:
    """A generator (``None``: fresh entropy) and a sample size >= 0, refused before allocating when too large."""
    if rng is None:
        rng = np.random.default_rng()
    if not isinstance(rng, np.random.Generator):
        raise InvalidParameterError("rng", rng, "must be a numpy.random.Generator or None")
    size = validation.integer("size", size, minimum=0)
    require(16 * size, f"a sample of {size:,} sizes", size)
    return rng, size


def _cumulative(weights: np.ndarray) -> np.ndarray:
    cumulative = np.cumsum(weights)
    cumulative[-1] = 1.0
    return cumulative


def _pick(rng: np.random.Generator, cumulative: np.ndarray, size: int) -> np.ndarray:
    """Indices drawn with the probabilities whose cumulative sums are given (one uniform each)."""
    return np.minimum(np.searchsorted(cumulative, rng.random(size), side="right"), cumulative.size - 1)


@dataclass(frozen=True, repr=False)
class ErlangMixture(SizeLaw):
    """With probability ``weights[c]``, an Erlang law of ``phases[c]`` exponential phases of rate ``rates[c]``.

    Parameters
    ----------
    weights : array_like
        Probabilities of the components (>= 0, summing to one).
    phases : array_like of int
        Number of phases of each component (1 to 2^53).
    rates : array_like
        Rate of every phase of each component (> 0, finite).

    Notes
    -----
    ``E[S] = Σ w_c k_c / r_c`` and ``E[S²] = Σ w_c k_c (k_c + 1) / r_c²``. The stationary-excess law is
    again a mixture of Erlang laws: component ``c`` with probability ``w_c k_c / (r_c E[S])``, then
    ``j`` phases with ``j`` uniform on ``1..k_c``; its CDF sums ``Σ_(j<=k) P(j, z) = E min(N, k)``
    (N Poisson(z)) as ``z Q(k - 1, z) + k P(k, z)``, in constant work for any number of phases.

    Examples
    --------
    >>> law = ErlangMixture([0.5, 0.5], [1, 3], [1.0, 2.0])
    >>> law.mean, law.second_moment
    (1.25, 2.5)
    """

    weights: np.ndarray
    phases: np.ndarray
    rates: np.ndarray

    def __post_init__(self) -> None:
        weights = validation.probabilities("weights", self.weights)
        condition = f"must be {weights.size} integers in [1, 2**53], one per weight"
        phases = validation.numeric_array("phases", self.phases, condition)
        rates = validation.real_array("rates", self.rates, allow_infinite=True, allow_nan=True)
        if phases.shape != weights.shape or phases.dtype.kind not in "iu" or np.any(phases < 1) or np.any(phases > MAX_PHASES):
            raise InvalidParameterError("phases", self.phases, condition)
        if rates.shape != weights.shape or not np.all(np.isfinite(rates)) or np.any(rates <= 0):
            raise InvalidParameterError("rates", self.rates, f"must be {weights.size} positive finite rates, one per weight")
        for name, value in (("weights", weights), ("phases", phases.astype(np.int64)), ("rates", rates)):
            value.setflags(write=False)
            object.__setattr__(self, name, value)

    @property
    def mean(self) -> float:
        return float(np.sum(self.weights * self.phases / self.rates))

    @property
    def second_moment(self) -> float:
        return float(np.sum(self.weights * self.phases * (self.phases + 1) / self.rates ** 2))

    @property
    def variance(self) -> float:
        """``Σ w_c k_c / r_c² + Σ w_c (k_c / r_c - E[S])²`` (total variance): no cancellation at scv 1e-12."""
        means = self.phases / self.rates
        return float(np.sum(self.weights * (means / self.rates + (means - self.mean) ** 2)))

    def _cdf(self, x: float | np.ndarray) -> np.ndarray:
        y = np.maximum(np.asarray(x, dtype=float), 0.0)[..., None]
        return np.sum(self.weights * special.gammainc(self.phases, self.rates * y), axis=-1)

    def _excess_cdf(self, x: float | np.ndarray) -> np.ndarray:
        # Σ_(j=1..k) P(j, z) = E min(N, k), N Poisson(z): z Q(k - 1, z) + k P(k, z), in constant work for any k
        z = self.rates * np.maximum(np.asarray(x, dtype=float), 0.0)[..., None]
        k = self.phases
        below = np.where(k > 1, special.gammaincc(np.maximum(k - 1, 1), z), 0.0)      # P(N <= k - 2)
        mean_phases = np.where(below > 0, z, 0.0) * below + k * special.gammainc(k, z)
        return np.sum(self.weights / (self.rates * self.mean) * mean_phases, axis=-1)

    def _sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        if self.weights.size == 1:
            return rng.standard_gamma(float(self.phases[0]), size) / self.rates[0]
        c = _pick(rng, _cumulative(self.weights), size)
        return rng.standard_gamma(self.phases[c].astype(float)) / self.rates[c]

    def _sample_excess(self, rng: np.random.Generator, size: int) -> np.ndarray:
        share = self.weights * self.phases / self.rates
        c = _pick(rng, _cumulative(share / share.sum()), size)
        j = 1 + np.floor(rng.random(size) * self.phases[c]).astype(np.int64)
        return rng.standard_gamma(np.minimum(j, self.phases[c]).astype(float)) / self.rates[c]

    def _scaled(self, factor: float) -> ErlangMixture:
        return ErlangMixture(self.weights, self.phases, self.rates / factor)

    def _to_phase_type(self, phases: int | None) -> PhaseType:
        _exact(self, phases)
        used = self.weights > 0
        rates, where = np.unique(self.rates[used], return_inverse=True)
        counts, weights = self.phases[used], self.weights[used]
        lengths = [int(counts[where == g].max()) for g in range(rates.size)]      # one chain per distinct rate
        order = sum(lengths)
        if order > MAX_ORDER:
            raise StateSpaceTooLargeError(order, MAX_ORDER, "the phase-type representation", advice=_ORDER_ADVICE)
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
        initial, jumps, exits = np.zeros(order), np.zeros((order, order)), np.zeros(order)
        for g, (rate, start, length) in enumerate(zip(rates, starts, lengths, strict=True)):
            chain = np.arange(start, start + length - 1)
            jumps[chain, chain + 1] = rate
            exits[start + length - 1] = rate
            for c in np.flatnonzero(where == g):
                initial[start + length - counts[c]] += weights[c]
        return PhaseType._from_rates(initial, jumps, exits)

    @property
    def kernel(self) -> tuple[int, np.ndarray]:
        return ERLANG_MIXTURE, np.concatenate([[self.weights.size], _cumulative(self.weights), self.phases, self.rates])

    def __repr__(self) -> str:
        return (f"ErlangMixture(weights={np.round(self.weights, 4).tolist()}, phases={self.phases.tolist()}, "
                f"rates={np.round(self.rates, 4).tolist()}, mean={self.mean:.6g}, scv={self.scv:.6g})")


@dataclass(frozen=True, repr=False)
class Discrete(SizeLaw):
    """Size ``values[j]`` with probability ``probabilities[j]``.

    Parameters
    ----------
    values : array_like
        Sizes (> 0, finite).
    probabilities : array_like
        Their probabilities (>= 0, summing to one).

    Notes
    -----
    The stationary-excess law picks ``values[j]`` with probability ``p_j v_j / E[S]``, then a
    uniform point of ``[0, v_j]``.

    Examples
    --------
    >>> round(Discrete([0.5, 5.5], [0.9, 0.1]).second_moment, 12)
    3.25
    """

    values: np.ndarray
    probabilities: np.ndarray

    def __post_init__(self) -> None:
        weights = validation.probabilities("probabilities", self.probabilities)
        values = validation.real_array("values", self.values, allow_infinite=True, allow_nan=True)
        if values.shape != weights.shape or not np.all(np.isfinite(values)) or np.any(values <= 0):
            raise InvalidParameterError("values", self.values,
                                        f"must be {weights.size} positive finite sizes, one per probability")
        for name, value in (("values", values), ("probabilities", weights)):
            value.setflags(write=False)
            object.__setattr__(self, name, value)

    @property
    def mean(self) -> float:
        return float(self.probabilities @ self.values)

    @property
    def second_moment(self) -> float:
        return float(self.probabilities @ self.values ** 2)

    def _cdf(self, x: float | np.ndarray) -> np.ndarray:
        y = np.asarray(x, dtype=float)[..., None]
        return np.sum(self.probabilities * (self.values <= y), axis=-1)

    def _excess_cdf(self, x: float | np.ndarray) -> np.ndarray:
        y = np.maximum(np.asarray(x, dtype=float), 0.0)[..., None]
        return np.sum(self.probabilities * np.minimum(y, self.values), axis=-1) / self.mean

    def _sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        if self.values.size == 1:
            return np.full(size, self.values[0])
        return self.values[_pick(rng, _cumulative(self.probabilities), size)]

    def _sample_excess(self, rng: np.random.Generator, size: int) -> np.ndarray:
        share = self.probabilities * self.values
        j = _pick(rng, _cumulative(share / share.sum()), size)
        return self.values[j] * rng.random(size)

    def _scaled(self, factor: float) -> Discrete:
        return Discrete(self.values * factor, self.probabilities)

    def _to_phase_type(self, phases: int | None) -> PhaseType:
        k = DISCRETE_PHASES if phases is None else phases
        if self.values.size > MAX_ORDER:
            raise InvalidParameterError("values", self.values, f"must hold at most {MAX_ORDER} sizes for a phase-type "
                                                               f"approximation (one Erlang law each), not "
                                                               f"{self.values.size:,}")
        if k * self.values.size > MAX_ORDER:
            raise InvalidParameterError("phases", k, f"must be at most {MAX_ORDER // self.values.size} for "
                                                     f"{self.values.size} values: a phase-type law holds at most "
                                                     f"{MAX_ORDER} phases")
        with np.errstate(over="ignore"):
            rates = k / self.values
        if not np.all(np.isfinite(rates)):
            raise InvalidParameterError("phases", phases, f"gives Erlang phase rates phases/value beyond the double range "
                                                          f"(smallest value {self.values.min():.6g})")
        return ErlangMixture(self.probabilities, np.full(self.values.size, k), rates)._to_phase_type(None)

    @property
    def kernel(self) -> tuple[int, np.ndarray]:
        return DISCRETE, np.concatenate([[self.values.size], _cumulative(self.probabilities), self.values])

    def __repr__(self) -> str:
        return (f"Discrete(values={np.round(self.values, 6).tolist()}, probabilities={np.round(self.probabilities, 6).tolist()}, "
                f"mean={self.mean:.6g}, scv={self.scv:.6g})")


@dataclass(frozen=True, repr=False)
class Pareto(SizeLaw):
    """The Pareto law ``P(S > y) = (scale / y)^shape`` for ``y >= scale``.

    Parameters
    ----------
    shape : float
        Tail index ``a > 1`` (the mean is infinite for ``a <= 1``; the second moment for ``a <= 2``).
    scale : float
        Smallest size ``y_m > 0``.

    Notes
    -----
    ``E[S] = a y_m / (a - 1)``, ``E[S²] = a y_m² / (a - 2)`` for ``a > 2``. Sampled as
    ``y_m exp(E / a)`` with ``E`` standard exponential. The stationary-excess law is uniform on
    ``[0, y_m]`` with probability ``(a - 1)/a`` and Pareto with shape ``a - 1`` and scale ``y_m``
    otherwise: ``F_e(x) = x / E[S]`` for ``x <= y_m`` and ``1 - (y_m/x)^(a-1) / a`` beyond.

    Examples
    --------
    >>> Pareto(3.0, 2.0).mean, Pareto(3.0, 2.0).second_moment
    (3.0, 12.0)
    """

    shape: float
    scale: float

    def __post_init__(self) -> None:
        shape = positive("shape", self.shape)
        if shape <= 1:
            raise InvalidParameterError("shape", self.shape, "must exceed 1: a Pareto law with shape <= 1 has no finite mean")
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "scale", positive("scale", self.scale))

    @property
    def mean(self) -> float:
        return self.shape * self.scale / (self.shape - 1.0)

    @property
    def second_moment(self) -> float:
        return self.shape * self.scale ** 2 / (self.shape - 2.0) if self.shape > 2 else math.inf

    def _cdf(self, x: float | np.ndarray) -> np.ndarray:
        y = np.asarray(x, dtype=float)
        return np.where(y >= self.scale, -np.expm1(self.shape * np.log(self.scale / np.maximum(y, self.scale))), 0.0)

    def _excess_cdf(self, x: float | np.ndarray) -> np.ndarray:
        y = np.maximum(np.asarray(x, dtype=float), 0.0)
        tail = (self.scale / np.maximum(y, self.scale)) ** (self.shape - 1.0) / self.shape
        return np.where(y <= self.scale, y / self.mean, 1.0 - tail)

    def _sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        return self.scale * np.exp(rng.standard_exponential(size) / self.shape)

    def _sample_excess(self, rng: np.random.Generator, size: int) -> np.ndarray:
        uniform = rng.random(size)
        body = (self.shape - 1.0) / self.shape
        tail = self.scale * (self.shape * (1.0 - uniform)) ** (-1.0 / (self.shape - 1.0))
        return np.where(uniform < body, uniform * self.mean, tail)

    def _scaled(self, factor: float) -> Pareto:
        return Pareto(self.shape, self.scale * factor)

    def _to_phase_type(self, phases: int | None) -> PhaseType:
        if phases is not None:
            raise InvalidParameterError("phases", phases, "must be None for a Pareto law: its moment fit takes the fewest "
                                                          "phases that match")
        a = self.shape
        if a <= 2:
            raise InvalidParameterError("shape", a, "must exceed 2 for a phase-type fit: the Pareto law's second moment "
                                                    "is infinite and every phase-type law has finite moments; fit the "
                                                    "moments of a truncation of your choice with fit_phase_type")
        third = a * self.scale ** 3 / (a - 3.0) if a > 3 else None
        try:
            return fit_phase_type(self.mean, self.second_moment, third)
        except InvalidParameterError as error:
            raise InvalidParameterError("shape", a, f"gives moments that no phase-type law of at most {MAX_FIT_PHASES} "
                                                    f"phases matches ({error})") from None

    @property
    def kernel(self) -> tuple[int, np.ndarray]:
        return PARETO, np.array([self.shape, self.scale])

    def __repr__(self) -> str:
        return (f"Pareto(shape={self.shape:.6g}, scale={self.scale:.6g}, mean={self.mean:.6g}, "
                f"second_moment={self.second_moment:.6g})")


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
                                                                 f"({_ORDER_ADVICE})")
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
        phase = _pick(rng, start, size)
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
        _exact(self, phases)
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


_ORDER_ADVICE = (f"a phase-type law holds at most {MAX_ORDER:,} phases (dense matrices: its CDF costs O(m³) per "
                 "matrix product); an ErlangMixture keeps exact moments, CDF and samplers at any number of phases")


def exact_phase_type(law: SizeLaw, parameter: str, value: object, what: str) -> PhaseType:
    """``law`` as the phase-type law it is, for a chain that carries its phases: an
    :class:`ErlangMixture` or a :class:`PhaseType`, through :meth:`SizeLaw.to_phase_type`. Any other
    law (deterministic, Pareto) has only phase-type approximations, which the caller must choose: an
    :class:`~analytic.errors.InvalidParameterError` naming ``parameter`` (with ``value``) says so,
    ``what`` naming the law's role (e.g. ``"size law"``, ``"service time"``).

    Examples
    --------
    >>> exact_phase_type(erlang(2), "size", "erlang(2)", "size law").order
    2
    """
    if not isinstance(law, ErlangMixture | PhaseType):
        raise InvalidParameterError(parameter, value, f"must have a phase-type {what} for an exact chain (an Erlang "
                                                      "mixture: exponential, erlang, hyperexponential, mixed_erlang or "
                                                      "fitted; or a PhaseType): approximate it by a phase-type law with "
                                                      "law.to_phase_type() and solve that law's chain")
    return law.to_phase_type()


def _cumulative_to_last(weights: np.ndarray) -> np.ndarray:
    """Cumulative sums, 1.0 from the last positive weight on (so that a zero weight is never picked)."""
    cumulative = np.cumsum(weights)
    cumulative[int(np.flatnonzero(weights > 0)[-1]):] = 1.0
    return cumulative


def _exact(law: SizeLaw, phases: int | None) -> None:
    if phases is not None:
        raise InvalidParameterError("phases", phases, f"must be None: the law ({type(law).__name__}) is phase-type and is "
                                                      "represented exactly (phases sets the order of an approximation)")


@kernel
def _draw_phase_type(parameters: np.ndarray, rng: np.random.Generator) -> float:
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


@kernel
def draw(code: int, parameters: np.ndarray, rng: np.random.Generator) -> float:
    """One size from the law whose :attr:`SizeLaw.kernel` is ``(code, parameters)``, inside numba.

    Compiled with numba (``NUMBA_DISABLE_JIT=1`` runs the same code, with the same numbers). It reads
    the generator job by job, so it gives other numbers than :meth:`SizeLaw.sample` (which draws all
    component choices first) from the same generator, with the same law.

    Parameters
    ----------
    code : int
        The family (first element of :attr:`SizeLaw.kernel`).
    parameters : numpy.ndarray
        Its parameters (second element).
    rng : numpy.random.Generator
        The random numbers.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> code, parameters = deterministic(2.0).kernel
    >>> draw(code, parameters, np.random.default_rng(0))
    2.0
    """
    if code == PHASE_TYPE:
        return _draw_phase_type(parameters, rng)
    if code == PARETO:
        return parameters[1] * np.exp(rng.standard_exponential() / parameters[0])
    count = int(parameters[0])
    component = 0
    if count > 1:
        component = min(np.searchsorted(parameters[1:count + 1], rng.random(), side="right"), count - 1)
    if code == DISCRETE:
        return parameters[1 + count + component]
    phases = parameters[1 + count + component]
    return rng.standard_gamma(phases) / parameters[1 + 2 * count + component]


# -- the laws by name --------------------------------------------------------------------------------


def exponential(mean: float = 1.0) -> ErlangMixture:
    """The exponential law of the given mean (scv 1).

    Parameters
    ----------
    mean : float
        E[S] > 0.

    Returns
    -------
    ErlangMixture

    Examples
    --------
    >>> exponential(2.0).rates.tolist()
    [0.5]
    """
    return _with_mean(mean, lambda m: ErlangMixture([1.0], [1], [1.0 / m]))


def erlang(phases: int, mean: float = 1.0) -> ErlangMixture:
    """The Erlang law of ``phases`` exponential phases and the given mean (scv ``1/phases``).

    Parameters
    ----------
    phases : int
        Number of phases (1 to 2^53).
    mean : float
        E[S] > 0.

    Returns
    -------
    ErlangMixture

    Examples
    --------
    >>> erlang(4).scv
    0.25
    """
    k = validation.integer("phases", phases)
    if k > MAX_PHASES:
        raise InvalidParameterError("phases", phases, "must be at most 2**53 (the samplers draw Gamma(phases) with the "
                                                      "count a double; the law is then within scv 1e-16 of deterministic)")
    return _with_mean(mean, lambda m: ErlangMixture([1.0], [k], [k / m]))


def deterministic(mean: float = 1.0) -> Discrete:
    """Every size equal to ``mean`` (scv 0).

    Parameters
    ----------
    mean : float
        The size (> 0).

    Returns
    -------
    Discrete

    Examples
    --------
    >>> deterministic(0.5).sample(None, 3).tolist()
    [0.5, 0.5, 0.5]
    """
    return Discrete([positive("mean", mean)], [1.0])


def hyperexponential(probabilities: object, means: object, mean: float | None = None) -> ErlangMixture:
    """Exponential of mean ``means[c]`` with probability ``probabilities[c]``; rescaled to ``mean`` if given.

    Parameters
    ----------
    probabilities : array_like
        Probability of each phase (sums to one).
    means : array_like
        Mean of each phase (> 0), one per probability.
    mean : float, optional
        Rescale the law to this mean.

    Returns
    -------
    ErlangMixture

    Examples
    --------
    Bonald & Comte's hyperexponential law (Section 5), phase means 5 and 1/5, p₁ = 1/6:

    >>> hyperexponential([1 / 6, 5 / 6], [5.0, 0.2]).mean
    1.0
    """
    values = validation.real_array("means", means, ndim=1, allow_empty=False)
    with np.errstate(divide="ignore", over="ignore"):
        rates = 1.0 / values
    if np.any(values <= 0) or not np.all(np.isfinite(rates)):
        raise InvalidParameterError("means", means, "must be positive finite phase means, each at least 1/1.8e308 = "
                                                    "5.6e-309 so that its rate 1/mean is finite")
    weights = validation.probabilities("probabilities", probabilities, length=values.size, meaning=", one per mean")
    law = ErlangMixture(weights, np.ones(values.size, dtype=np.int64), rates)
    return law if mean is None else law.scaled(mean)


def mixed_erlang(mean: float = 1.0, probabilities: object = (0.4, 0.6)) -> ErlangMixture:
    """Tijms's mixed Erlang law: ``k`` exponential phases with probability ``probabilities[k - 1]``, all of one rate.

    Ghanbarian et al., Section 7, use "Mixed-Erlang ... two exponential phases with probabilities
    p₁ = 0.4 and p₂ = 0.6" without phase rates. We read it as the mixed Erlang law of queueing
    texts (Tijms, *A First Course in Stochastic Models*, Appendix B): one phase with probability
    0.4, two phases with probability 0.6, every phase of rate ``μ = 1.6 / mean``. Then
    ``E[S²] = 4.4 / μ²`` and the scv is ``4.4 / 2.56 - 1 = 0.71875`` (between the deterministic
    law's 0 and the exponential's 1), and no rate is left to choose.

    Parameters
    ----------
    mean : float
        E[S] > 0.
    probabilities : array_like
        Probability of 1, 2, ... phases.

    Returns
    -------
    ErlangMixture

    Examples
    --------
    >>> law = mixed_erlang()
    >>> law.rates.tolist(), round(law.scv, 12)
    ([1.6, 1.6], 0.71875)
    """
    weights = validation.probabilities("probabilities", probabilities)
    phases = np.arange(1, weights.size + 1)
    return _with_mean(mean, lambda m: ErlangMixture(weights, phases, np.full(weights.size, float(phases @ weights) / m)))


def pareto(shape: float = 1.5, mean: float = 1.0) -> Pareto:
    """The Pareto law of tail index ``shape`` and the given mean (scale ``mean (shape - 1) / shape``).

    With the defaults it is the law of Ghanbarian et al., Section 7: ``P(S <= y) = 1 - (3y)^(-3/2)``
    for ``y >= 1/3``, of mean 1 and infinite variance.

    Parameters
    ----------
    shape : float
        Tail index (> 1, so that the mean is finite).
    mean : float
        E[S] > 0.

    Returns
    -------
    Pareto

    Examples
    --------
    >>> pareto().scale
    0.3333333333333333
    """
    a = positive("shape", shape)
    if a <= 1:
        raise InvalidParameterError("shape", shape, "must exceed 1: a Pareto law with shape <= 1 has no finite mean")
    return _with_mean(mean, lambda m: Pareto(a, m * (a - 1.0) / a))


def bimodal(small: float, large: float, p_large: float, mean: float | None = None) -> Discrete:
    """Size ``large`` with probability ``p_large``, else ``small``; rescaled to ``mean`` if given.

    Parameters
    ----------
    small, large : float
        The two sizes (> 0).
    p_large : float
        Probability of ``large``, in (0, 1).
    mean : float, optional
        Rescale the law to this mean.

    Returns
    -------
    Discrete

    Examples
    --------
    >>> bimodal(0.5, 5.5, 0.1).mean
    1.0
    """
    p = validation.unit_fraction("p_large", p_large)
    law = Discrete([positive("small", small), positive("large", large)], [1.0 - p, p])
    return law if mean is None else law.scaled(mean)


def fitted(mean: float, std: float) -> SizeLaw:
    """The phase-type law with the given mean and standard deviation (two-moment fit).

    With ``c² = (std/mean)²``:

    * ``c² = 0``: deterministic;
    * ``10⁻⁶ <= c² < 1``: Tijms's mixture of Erlang(k - 1) and Erlang(k) with one rate μ, where
      ``1/k <= c² < 1/(k-1)``, ``p = (k c² - sqrt(k (1 + c²) - k² c²)) / (1 + c²)`` the
      probability of ``k - 1`` phases and ``μ = (k - p) / mean`` (Tijms, *A First Course in
      Stochastic Models*, Appendix B);
    * ``c² = 1``: exponential;
    * ``c² > 1``: the two-phase hyperexponential with balanced means (``p_c / μ_c = mean / 2``),
      ``p₁ = (1 + sqrt((c² - 1)/(c² + 1))) / 2`` (Whitt, 1982).

    Used for the class tables of Anselmi & Doncel (Tables 2–3), which give each class's mean and
    standard deviation of the service time.

    Parameters
    ----------
    mean : float
        E[S] > 0.
    std : float
        Standard deviation (>= 0).

    Returns
    -------
    SizeLaw
        :class:`Discrete` for ``std = 0``, else an :class:`ErlangMixture`.

    Examples
    --------
    >>> law = fitted(1.0, 0.6)
    >>> law.phases.tolist(), round(law.mean, 12), round(law.scv, 12)
    ([2, 3], 1.0, 0.36)
    """
    m = positive("mean", mean)
    std = validation.real("std", std)
    if std < 0:
        raise InvalidParameterError("std", std, "must be finite and >= 0")
    c2 = (std / m) * (std / m)
    if not math.isfinite(c2):
        raise InvalidParameterError("std", std, f"must give a squared coefficient of variation (std/mean)² that is finite "
                                                f"in double precision (mean = {m:g})")
    if c2 == 0:
        return deterministic(m)
    if c2 == 1:
        return exponential(m)
    if c2 > 1:
        return _balanced_h2(m, c2)
    if c2 < MIN_SCV:
        raise InvalidParameterError("std", std, f"must be 0 or give a squared coefficient of variation >= {MIN_SCV:g} "
                                                f"(here {c2:.3g}; the Erlang fit would need more than {1 / MIN_SCV:.0f} phases)")
    return _tijms_mixture(m, c2)


def _balanced_h2(m: float, c2: float) -> ErlangMixture:
    """The two-phase hyperexponential law of mean m, scv c2 > 1 and balanced means (Whitt, 1982)."""
    # p₂ = 1 - p₁ = (1 - sqrt((c²-1)/(c²+1))) / 2, written without the cancellation: at c² = 10³⁶ it is 2.5e-37
    p2 = 1.0 / ((c2 + 1.0) * (1.0 + math.sqrt((c2 - 1.0) / (c2 + 1.0))))
    return ErlangMixture([1.0 - p2, p2], [1, 1], [2.0 * (1.0 - p2) / m, 2.0 * p2 / m])


def _tijms_phases(c2: float) -> int:
    """k with 1/k <= c2 < 1/(k - 1), at least 2: the phases of Tijms's Erlang(k - 1, k) mixture of scv c2 < 1."""
    return max(2, math.ceil(1 / Fraction(c2)))


def _tijms_mixture(m: float, c2: float) -> ErlangMixture:
    """Tijms's mixture of Erlang(k - 1) and Erlang(k) of one rate, mean m and scv 0 < c2 < 1 (Appendix B)."""
    exact = Fraction(c2)
    k = _tijms_phases(c2)
    p = (k * c2 - math.sqrt(k * (1 + exact) - k * k * exact)) / (1.0 + c2)     # the root's argument exactly
    p = min(max(p, 0.0), 1.0)
    return ErlangMixture([p, 1.0 - p], [k - 1, k], [(k - p) / m] * 2)


def fit_phase_type(mean: float, second_moment: float, third_moment: float | None = None,
                   max_phases: int = MAX_FIT_PHASES) -> PhaseType:
    """A phase-type law with the given first two or three moments.

    Two moments (``third_moment`` None), by the squared coefficient of variation
    ``c² = E[S²]/E[S]² - 1`` as :func:`fitted` does: Tijms's mixture of Erlang(k - 1) and Erlang(k)
    of one rate for ``c² < 1`` (``k`` phases, ``1/k <= c² < 1/(k-1)``), the exponential law for
    ``c² = 1``, the two-phase hyperexponential law with balanced means for ``c² > 1``.

    Three moments: the minimal acyclic phase-type law of Bobbio, Horváth & Telek ("Matching three
    moments with minimal acyclic phase type distributions", Stochastic Models 21 (2005) 303–326).
    With ``n`` phases, either an exponential phase always and, with probability ``p``, an Erlang law
    of ``n - 1`` phases of one rate before it, or that Erlang law always and, with probability
    ``p``, an exponential phase before it; ``n`` is the smallest order for which one of the two
    matches. Each structure's three moment equations reduce to one polynomial (a quadratic, a
    quartic), solved at 60 digits with mpmath; the solution is kept only when its moments, computed
    again from its parameters, match the targets to 30 digits, and its rates are then rounded once.
    Three moments are feasible exactly when ``E[S²] > E[S]²`` and ``E[S³] E[S] > E[S²]²`` (strictly:
    equality is a deterministic law), given enough phases.

    Parameters
    ----------
    mean : float
        ``E[S] > 0``.
    second_moment : float
        ``E[S²]``, above ``mean²``.
    third_moment : float, optional
        ``E[S³]``, above ``second_moment² / mean``.
    max_phases : int
        Most phases allowed (1 to 1024; default 100).

    Returns
    -------
    PhaseType
        Its moments are the targets to a few units in the last place (the rounding of its rates).

    Raises
    ------
    InvalidParameterError
        A moment outside the feasible region, named, or one that needs more than ``max_phases`` phases.

    Examples
    --------
    >>> law = fit_phase_type(1.0, 3.0, 15.0)       # scv 2, and E[S³] = 15 (an H2 with balanced means has 13.5)
    >>> law.order, round(law.mean, 12), round(law.second_moment, 12), round(law.moment(3), 12)
    (2, 1.0, 3.0, 15.0)
    >>> fit_phase_type(1.0, 1.5).order              # scv 1/2: Erlang-2
    2
    """
    m1 = positive("mean", mean)
    m2 = positive("second_moment", second_moment)
    limit = validation.integer("max_phases", max_phases)
    if limit > MAX_ORDER:
        raise InvalidParameterError("max_phases", max_phases, f"must be at most {MAX_ORDER}")
    f1, f2 = Fraction(m1), Fraction(m2)
    if f2 <= f1 * f1:
        raise InvalidParameterError("second_moment", second_moment, f"must exceed mean² = {_shown(f1 * f1)}: a phase-type "
                                                                    "law has a positive variance (a deterministic size "
                                                                    "is none; deterministic(mean).to_phase_type(phases) "
                                                                    "approximates it)")
    n2 = f2 / (f1 * f1)
    fewest = max(1, math.ceil(1 / (n2 - 1)))                  # an acyclic law of n phases has scv >= 1/n
    if fewest > limit:
        raise InvalidParameterError("second_moment", second_moment, f"needs more than max_phases={limit} phases: an "
                                                                    f"acyclic phase-type law of n phases has scv >= 1/n, "
                                                                    f"and here scv = {_shown(n2 - 1, 6)}")
    if third_moment is not None:
        m3 = positive("third_moment", third_moment)
        n3 = Fraction(m3) / (f1 * f2)
        if n3 <= n2:
            raise InvalidParameterError("third_moment", third_moment, f"must exceed second_moment² / mean = "
                                                                      f"{_shown(f2 * f2 / f1)} (E[S³] E[S] >= E[S²]² "
                                                                      "for every positive law, with equality only for a "
                                                                      "deterministic one)")
    try:
        if third_moment is None or (n2 == 2 and n3 == 3):
            c2 = float(n2 - 1)
            law = (exponential(m1) if n2 == 2 else _balanced_h2(m1, c2) if c2 > 1 else _tijms_mixture(m1, c2)).to_phase_type()
            if law.order > limit:
                raise InvalidParameterError("second_moment", second_moment, f"needs {law.order} phases, more than "
                                                                            f"max_phases={limit}")
            return law
        with mpmath.workdps(60):
            for n in range(max(2, fewest), limit + 1):
                if n2 >= Fraction(n + 4, n + 1) and n3 <= n2 * Fraction(n + 1, n):
                    continue        # below the lowest third moment of n phases (Bobbio, Horváth & Telek's lower bound)
                found = _acyclic_fit(n, mpmath.mpf(n2.numerator) / n2.denominator,
                                     mpmath.mpf(n3.numerator) / n3.denominator)
                if found is not None:
                    return _acyclic_law(n, m1, *found)
    except (InvalidParameterError, OverflowError) as error:
        if isinstance(error, InvalidParameterError) and error.parameter == "second_moment":
            raise
        reason = error.condition if isinstance(error, InvalidParameterError) else "an overflow"
        raise InvalidParameterError("second_moment", second_moment, f"gives, with mean = {m1:.10g}, a law beyond double "
                                                                    f"precision ({reason})") from None
    raise InvalidParameterError("third_moment", third_moment, f"needs more than max_phases={limit} phases: no acyclic "
                                                              f"phase-type law of at most {limit} phases has these three "
                                                              f"moments (its infimum second_moment² / mean = "
                                                              f"{_shown(f2 * f2 / f1)} is approached only as the phases "
                                                              "grow)")


def _shown(number: Fraction, digits: int = 10) -> str:
    """An exact rational for a message: to ``digits`` significant digits, or to three beyond the double range."""
    try:
        return f"{float(number):.{digits}g}"
    except OverflowError:
        return scientific(number)


def _acyclic_moments(structure: str, k: int, p: mpmath.mpf, first: mpmath.mpf, erlang: mpmath.mpf) -> list:
    """E[S], E[S²], E[S³] of ``X + I Y`` (structure "exponential": the exponential X of mean ``first`` always,
    the Erlang Y of k phases and mean ``erlang`` with probability p) or ``Y + I X`` ("erlang")."""
    x = [1, first, 2 * first ** 2, 6 * first ** 3]
    y = [1, erlang, erlang ** 2 * (k + 1) / k, erlang ** 3 * (k + 1) * (k + 2) / k ** 2]
    always, sometimes = (x, y) if structure == "exponential" else (y, x)
    return [always[j] + p * sum(mpmath.binomial(j, i) * always[i] * sometimes[j - i] for i in range(j))
            for j in (1, 2, 3)]


def _acyclic_fit(n: int, n2: mpmath.mpf, n3: mpmath.mpf) -> tuple | None:
    """Parameters (structure, p, mean of the exponential phase, mean of the Erlang part) of unit mean matching
    E[S²] = n2 and E[S³] = n2 n3 with n phases, or None."""
    k = n - 1
    m2, m3 = n2, n2 * n3
    ratio, rho = mpmath.mpf(k + 1) / k, mpmath.mpf(k + 2) / (k + 1)
    candidates = []
    # X + I Y, u = E[X], p E[Y] = 1 - u: (m3 - 3 u m2)(1 - u) = rho (m2 - 2u)²
    for u in _real_roots([m3 - rho * m2 ** 2, 4 * rho * m2 - m3 - 3 * m2, 3 * m2 - 4 * rho]):
        if 0 < u < 1 and m2 > 2 * u:
            b = (m2 - 2 * u) / ((1 - u) * ratio)
            candidates.append(("exponential", (1 - u) / b, u, b))
    # Y + I X, b = E[Y], p E[X] = 1 - b, D = m2 - 2b + (2 - ratio) b² = 2 (1 - b) E[X]:
    # (1 - b)(r3 b³ + 3 (1 - b) ratio b² + 3 b D - m3) + 3/2 D² = 0
    r3 = mpmath.mpf((k + 1) * (k + 2)) / k ** 2
    c, d = [1, -1], [m2, -2, 2 - ratio]
    inner = _poly_add(_poly_add([0, 0, 0, r3], _poly_mul([0, 0, 3 * ratio], c)), _poly_add(_poly_mul([0, 3], d), [-m3]))
    for b in _real_roots(_poly_add(_poly_mul(c, inner), [1.5 * v for v in _poly_mul(d, d)])):
        spread = m2 - 2 * b + (2 - ratio) * b ** 2
        if 0 < b < 1 and spread > 0:
            a = spread / (2 * (1 - b))
            candidates.append(("erlang", (1 - b) / a, a, b))
    for structure, p, first, erlang in candidates:
        if not 0 < p <= 1 + mpmath.mpf(10) ** -40:
            continue
        p = min(p, mpmath.mpf(1))
        moments = _acyclic_moments(structure, k, p, first, erlang)
        if all(abs(got / want - 1) < mpmath.mpf(10) ** -30 for got, want in zip(moments, [1, m2, m3], strict=True)):
            return structure, p, first, erlang
    return None


def _poly_add(a: list, b: list) -> list:
    """Sum of two polynomials given by their coefficients, lowest degree first."""
    return [(a[i] if i < len(a) else 0) + (b[i] if i < len(b) else 0) for i in range(max(len(a), len(b)))]


def _poly_mul(a: list, b: list) -> list:
    """Product of two polynomials given by their coefficients, lowest degree first."""
    out = [mpmath.mpf(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def _real_roots(coefficients: list) -> list:
    """The real roots of a polynomial (coefficients lowest degree first) at the working precision."""
    scale = max(abs(v) for v in coefficients)
    while len(coefficients) > 1 and abs(coefficients[-1]) <= scale * mpmath.mpf(10) ** -50:
        coefficients = coefficients[:-1]
    if len(coefficients) < 2:
        return []
    try:
        roots = mpmath.polyroots(coefficients[::-1], maxsteps=400, extraprec=400)
    except mpmath.libmp.libhyper.NoConvergence:
        return []
    return [mpmath.re(r) for r in (roots if isinstance(roots, list) else [roots])
            if abs(mpmath.im(r)) <= mpmath.mpf(10) ** -40 * max(1, abs(r))]


def _acyclic_law(n: int, mean: float, structure: str, p: mpmath.mpf, first: mpmath.mpf, erlang: mpmath.mpf) -> PhaseType:
    """The phase-type law of n phases for the structure and unit-mean parameters of :func:`_acyclic_fit`, scaled to the mean."""
    k = n - 1
    single, chain = float(1 / (first * mean)), float(k / (erlang * mean))
    initial, jumps, exits = np.zeros(n), np.zeros((n, n)), np.zeros(n)
    if structure == "exponential":      # phases 0..k-1: the Erlang part, then phase k: the exponential one
        initial[0], initial[k] = float(p), float(1 - p)
        jumps[np.arange(k), np.arange(1, k + 1)] = chain
        exits[k] = single
    else:                               # phase 0: the exponential one, then phases 1..k: the Erlang part
        initial[0], initial[1] = float(p), float(1 - p)
        jumps[0, 1] = single
        jumps[np.arange(1, k), np.arange(2, k + 1)] = chain
        exits[k] = chain
    return PhaseType._from_rates(initial, jumps, exits)


#: The laws that :func:`size_law` knows by name, each of unit mean (Ghanbarian et al., Table 1).
LAW_NAMES = {"exponential": exponential, "deterministic": deterministic, "mixed_erlang": mixed_erlang, "pareto": pareto}


def size_law(size: SizeLaw | str, mean: float = 1.0) -> SizeLaw:
    """A law given as an object or by name (:data:`LAW_NAMES`), scaled to ``mean``.

    Parameters
    ----------
    size : SizeLaw or str
        A law, or one of ``"exponential"``, ``"deterministic"``, ``"mixed_erlang"``, ``"pareto"``.
    mean : float
        The mean to scale it to.

    Returns
    -------
    SizeLaw

    Raises
    ------
    InvalidParameterError
        Neither a :class:`SizeLaw` nor a known name.

    Examples
    --------
    >>> size_law("pareto")
    Pareto(shape=1.5, scale=0.333333, mean=1, second_moment=inf)
    """
    if isinstance(size, SizeLaw):
        return size.scaled(mean)
    if isinstance(size, str) and size in LAW_NAMES:
        return LAW_NAMES[size](mean=mean)
    raise InvalidParameterError("size", size, f"must be a SizeLaw or one of {sorted(LAW_NAMES)}")
