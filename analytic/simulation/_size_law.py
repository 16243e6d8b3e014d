"""The base of the job-size laws of :mod:`analytic.simulation.laws`: :class:`SizeLaw`, its limits and shared helpers."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from analytic import validation
from analytic.errors import InvalidParameterError
from analytic.memory import require
from analytic.validation import positive

if TYPE_CHECKING:
    from analytic.simulation._phase_type import PhaseType

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
    >>> from analytic.simulation import erlang
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
        >>> from analytic.simulation import deterministic
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
        >>> from analytic.simulation import deterministic
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
        >>> from analytic.simulation import exponential
        >>> import numpy as np
        >>> exponential().sample(np.random.default_rng(1), 4).shape
        (4,)
        """
        return self._sample(*sampling(rng, size))

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
        >>> from analytic.simulation import deterministic
        >>> import numpy as np
        >>> bool(np.all(deterministic(2.0).sample_excess(np.random.default_rng(1), 100) <= 2.0))
        True
        """
        return self._sample_excess(*sampling(rng, size))

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
        >>> from analytic.simulation import pareto
        >>> pareto().scaled(2.0).mean
        2.0
        """
        return with_mean(mean, lambda m: self._scaled(m / self.mean))

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
        >>> from analytic.simulation import deterministic, mixed_erlang
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


def with_mean(mean: object, build: Callable[[float], SizeLaw]) -> SizeLaw:
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


def sampling(rng: object, size: object) -> tuple[np.random.Generator, int]:
    """A generator (``None``: fresh entropy) and a sample size >= 0, refused before allocating when too large."""
    if rng is None:
        rng = np.random.default_rng()
    if not isinstance(rng, np.random.Generator):
        raise InvalidParameterError("rng", rng, "must be a numpy.random.Generator or None")
    size = validation.integer("size", size, minimum=0)
    require(16 * size, f"a sample of {size:,} sizes", size)
    return rng, size


def cumulative(weights: np.ndarray) -> np.ndarray:
    cumulative = np.cumsum(weights)
    cumulative[-1] = 1.0
    return cumulative


def pick(rng: np.random.Generator, cumulative: np.ndarray, size: int) -> np.ndarray:
    """Indices drawn with the probabilities whose cumulative sums are given (one uniform each)."""
    return np.minimum(np.searchsorted(cumulative, rng.random(size), side="right"), cumulative.size - 1)


ORDER_ADVICE = (f"a phase-type law holds at most {MAX_ORDER:,} phases (dense matrices: its CDF costs O(m³) per "
                 "matrix product); an ErlangMixture keeps exact moments, CDF and samplers at any number of phases")


def check_exact(law: SizeLaw, phases: int | None) -> None:
    if phases is not None:
        raise InvalidParameterError("phases", phases, f"must be None: the law ({type(law).__name__}) is phase-type and is "
                                                      "represented exactly (phases sets the order of an approximation)")
