"""Job-size laws with exact moments, samplers and stationary-excess laws.

Four families cover the laws of the papers, each scaled to a requested mean:

* :class:`ErlangMixture` — with probability ``w_c`` an Erlang law of ``k_c`` phases of rate
  ``r_c``: the exponential, Erlang, hyperexponential and "mixed Erlang" laws, a bimodal or Zipf
  number of exponential phases (Bonald & Comte, Section 5) and the two-moment fits of :func:`fitted`;
* :class:`Discrete` — finitely many sizes: the deterministic and the bimodal (two-point) laws;
* :class:`Pareto` — ``P(S > y) = (y_m / y)^a`` for ``y >= y_m``, with ``a > 1`` (finite mean);
* :class:`~analytic.simulation.PhaseType` — the time to absorption of a finite Markov chain, PH(α, T), with its density;
  :func:`fit_phase_type` matches two or three moments, and :meth:`SizeLaw.to_phase_type` gives every
  law as one (exactly for Erlang mixtures, as a stated approximation for the others), for exact chains
  whose jobs carry their phase.

Every law has exact ``mean`` and ``second_moment`` attributes (``inf`` when infinite), its CDF,
a vectorized sampler driven by a :class:`numpy.random.Generator`, and the sampler and CDF of its
*stationary-excess* law ``F_e(x) = (1/m) ∫_0^x P(S > u) du`` (the law of the residual size of a job
in service in an infinite-server system at equilibrium), with which a simulation can start close to
steady state. Inside a numba event loop, :func:`draw` takes ``law.kernel`` and draws one size at a
time from a generator passed to the compiled function.

The base class is in ``analytic.simulation._size_law`` and the phase-type laws in
``analytic.simulation._phase_type``; the three closed-form families, the named laws and the moment
fits stay together here (about 900 lines), since the fits build the named laws and the families'
phase-type forms call the fits.

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
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np
from scipy import special

from analytic import validation
from analytic._kernels import kernel
from analytic.errors import InvalidParameterError, StateSpaceTooLargeError, scientific
from analytic.simulation._phase_type import PhaseType, draw_phase_type
from analytic.simulation._size_law import (
    DISCRETE,
    DISCRETE_PHASES,
    ERLANG_MIXTURE,
    MAX_FIT_PHASES,
    MAX_ORDER,
    MAX_PHASES,
    MIN_SCV,
    ORDER_ADVICE,
    PARETO,
    PHASE_TYPE,
    SizeLaw,
    check_exact,
    cumulative,
    pick,
    with_mean,
)
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
        c = pick(rng, cumulative(self.weights), size)
        return rng.standard_gamma(self.phases[c].astype(float)) / self.rates[c]

    def _sample_excess(self, rng: np.random.Generator, size: int) -> np.ndarray:
        share = self.weights * self.phases / self.rates
        c = pick(rng, cumulative(share / share.sum()), size)
        j = 1 + np.floor(rng.random(size) * self.phases[c]).astype(np.int64)
        return rng.standard_gamma(np.minimum(j, self.phases[c]).astype(float)) / self.rates[c]

    def _scaled(self, factor: float) -> ErlangMixture:
        return ErlangMixture(self.weights, self.phases, self.rates / factor)

    def _to_phase_type(self, phases: int | None) -> PhaseType:
        check_exact(self, phases)
        used = self.weights > 0
        rates, where = np.unique(self.rates[used], return_inverse=True)
        counts, weights = self.phases[used], self.weights[used]
        lengths = [int(counts[where == g].max()) for g in range(rates.size)]      # one chain per distinct rate
        order = sum(lengths)
        if order > MAX_ORDER:
            raise StateSpaceTooLargeError(order, MAX_ORDER, "the phase-type representation", advice=ORDER_ADVICE)
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
        return ERLANG_MIXTURE, np.concatenate([[self.weights.size], cumulative(self.weights), self.phases, self.rates])

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
        return self.values[pick(rng, cumulative(self.probabilities), size)]

    def _sample_excess(self, rng: np.random.Generator, size: int) -> np.ndarray:
        share = self.probabilities * self.values
        j = pick(rng, cumulative(share / share.sum()), size)
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
        return DISCRETE, np.concatenate([[self.values.size], cumulative(self.probabilities), self.values])

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
        return draw_phase_type(parameters, rng)
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
    return with_mean(mean, lambda m: ErlangMixture([1.0], [1], [1.0 / m]))


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
    return with_mean(mean, lambda m: ErlangMixture([1.0], [k], [k / m]))


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
    return with_mean(mean, lambda m: ErlangMixture(weights, phases, np.full(weights.size, float(phases @ weights) / m)))


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
    return with_mean(mean, lambda m: Pareto(a, m * (a - 1.0) / a))


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
