"""Job-size laws with exact moments, samplers and stationary-excess laws.

Three families cover the laws of the papers, each scaled to a requested mean:

* :class:`ErlangMixture` — with probability ``w_c`` an Erlang law of ``k_c`` phases of rate
  ``r_c``: the exponential, Erlang, hyperexponential and "mixed Erlang" laws, a bimodal or Zipf
  number of exponential phases (Bonald & Comte, Section 5) and the two-moment fits of :func:`fitted`;
* :class:`Discrete` — finitely many sizes: the deterministic and the bimodal (two-point) laws;
* :class:`Pareto` — ``P(S > y) = (y_m / y)^a`` for ``y >= y_m``, with ``a > 1`` (finite mean).

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

import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numba
import numpy as np
from scipy import special

from analytic import validation
from analytic.errors import InvalidParameterError
from analytic.memory import require
from analytic.validation import positive

__all__ = [
    "LAW_NAMES",
    "Discrete",
    "ErlangMixture",
    "Pareto",
    "SizeLaw",
    "bimodal",
    "deterministic",
    "draw",
    "erlang",
    "exponential",
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
ERLANG_MIXTURE, DISCRETE, PARETO = 0, 1, 2


class SizeLaw(ABC):
    """A job-size law: exact moments, CDF, samplers of the law and of its stationary-excess law.

    Subclasses: :class:`ErlangMixture`, :class:`Discrete`, :class:`Pareto`; build them with
    :func:`exponential`, :func:`erlang`, :func:`hyperexponential`, :func:`mixed_erlang`,
    :func:`deterministic`, :func:`bimodal`, :func:`pareto`, :func:`fitted` or :func:`size_law`.

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

    @property
    def kernel(self) -> tuple[int, np.ndarray]:
        return PARETO, np.array([self.shape, self.scale])

    def __repr__(self) -> str:
        return (f"Pareto(shape={self.shape:.6g}, scale={self.scale:.6g}, mean={self.mean:.6g}, "
                f"second_moment={self.second_moment:.6g})")


@numba.njit(cache=True)
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
        # p₂ = 1 - p₁ = (1 - sqrt((c²-1)/(c²+1))) / 2, written without the cancellation: at c² = 10³⁶ it is 2.5e-37
        p2 = 1.0 / ((c2 + 1.0) * (1.0 + math.sqrt((c2 - 1.0) / (c2 + 1.0))))
        return ErlangMixture([1.0 - p2, p2], [1, 1], [2.0 * (1.0 - p2) / m, 2.0 * p2 / m])
    if c2 < MIN_SCV:
        raise InvalidParameterError("std", std, f"must be 0 or give a squared coefficient of variation >= {MIN_SCV:g} "
                                                f"(here {c2:.3g}; the Erlang fit would need more than {1 / MIN_SCV:.0f} phases)")
    exact = Fraction(c2)
    k = max(2, math.ceil(1 / exact))
    p = (k * c2 - math.sqrt(k * (1 + exact) - k * k * exact)) / (1.0 + c2)     # the root's argument exactly
    p = min(max(p, 0.0), 1.0)
    return ErlangMixture([p, 1.0 - p], [k - 1, k], [(k - p) / m] * 2)


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
