"""Restarted GMRES with right preconditioning, orthogonalized by block Gram–Schmidt twice.

Saad & Schultz, *GMRES: a generalized minimal residual algorithm for solving nonsymmetric linear
systems*, SIAM J. Sci. Stat. Comput. 7, 1986. With right preconditioning the minimized quantity is
the true residual ``||b - A x||``. Each new Krylov vector is orthogonalized against the basis by
classical Gram–Schmidt, repeated once when the first pass cancelled most of the vector (Giraud,
Langou & Rozložník, *The loss of orthogonality in the Gram–Schmidt process*, Comput. Math. Appl.
50, 2005: twice is enough). The sweeps over the basis are compiled single-threaded
loops: they are memory-bound, and a multithreaded BLAS call costs more in thread wake-ups (about
15 ms per call on a loaded two-core machine) than the sweep itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy.linalg import solve_triangular

from analytic._kernels import kernel

__all__ = ["gmres"]


def gmres(matvec: Callable[[np.ndarray], np.ndarray], precondition: Callable[[np.ndarray], np.ndarray],
          rhs: np.ndarray, rtol: float, restart: int = 60, cycles: int = 30) -> tuple[np.ndarray, int, float]:
    """Solve ``A x = rhs`` from ``x = 0`` until ``||rhs - A x|| <= rtol ||rhs||``, or a restart cycle
    fails to lower the residual by a tenth (stagnation), or after ``cycles`` cycles.

    Returns the best iterate of the cycles, the number of iterations, and its relative residual
    (recomputed, not the recurrence's estimate).

    Parameters
    ----------
    matvec : callable
        ``matvec(v)``: the product ``A v`` for a vector of length n.
    precondition : callable
        ``precondition(v)``: the right preconditioner ``M^-1 v`` (the identity ``lambda v: v``
        for none).
    rhs : numpy.ndarray
        The right-hand side, length n.
    rtol : float
        The relative residual sought, in the 2-norm.
    restart : int
        Krylov vectors per cycle (memory: ``restart + 1`` vectors of length n).
    cycles : int
        Restart cycles at most.

    Returns
    -------
    x : numpy.ndarray
        The iterate of least residual (the solution when ``relative <= rtol``).
    iterations : int
        Krylov iterations done, over all cycles.
    relative : float
        ``||rhs - A x|| / ||rhs||`` (0 for ``rhs = 0``).

    Raises
    ------
    FloatingPointError
        The right-hand side's norm, a residual, a Krylov vector, a rotation or the iterate left
        the double range.

    Examples
    --------
    A system of two unknowns is solved in two iterations: ``2 x_0 + x_1 = 3``, ``x_1 = 1``.

    >>> A = np.array([[2.0, 1.0], [0.0, 1.0]])
    >>> x, iterations, relative = gmres(lambda v: A @ v, lambda v: v, np.array([3.0, 1.0]), 1e-12)
    >>> x.round(12).tolist(), iterations, bool(relative <= 1e-12)
    ([1.0, 1.0], 2, True)
    """
    n = len(rhs)
    with np.errstate(over="ignore"):
        norm = float(np.linalg.norm(rhs))
    if not math.isfinite(norm):
        raise FloatingPointError("GMRES: the right-hand side's norm left the double range")
    x = np.zeros(n)
    if norm == 0.0:
        return x, 0, 0.0
    iterations, relative = 0, 1.0
    best_x, best = np.zeros(n), 1.0           # a stagnating cycle may end worse than it began
    basis = np.empty((restart + 1, n))
    for _ in range(cycles):
        residual = rhs - matvec(x) if iterations else rhs.copy()
        with np.errstate(over="ignore"):
            beta = float(np.linalg.norm(residual))
        if not math.isfinite(beta):
            raise FloatingPointError("GMRES: the residual left the double range")
        previous, relative = relative, beta / norm
        if relative < best:
            best_x, best = x.copy(), relative
        if relative <= rtol or (iterations and not relative < 0.9 * previous):
            break
        hessenberg = np.zeros((restart + 1, restart))
        rotations = np.zeros((restart, 2))
        g = np.zeros(restart + 1)
        g[0] = beta
        basis[0] = residual / beta
        k = 0
        for j in range(restart):
            w = matvec(precondition(basis[j]))
            column = _orthogonalize(basis, j + 1, w)
            size = column[j + 1]
            if not math.isfinite(size):
                raise FloatingPointError("GMRES: a Krylov vector left the double range")
            for i in range(j):
                c, s = rotations[i]
                column[i], column[i + 1] = c * column[i] + s * column[i + 1], -s * column[i] + c * column[i + 1]
            radius = math.hypot(column[j], column[j + 1])
            if not (math.isfinite(radius) and np.all(np.isfinite(column[:j]))):   # a rotation overflowed
                raise FloatingPointError("GMRES: the Hessenberg matrix left the double range")
            iterations += 1
            if radius == 0.0:                 # breakdown: the new vector adds no direction the residual lacks
                break
            c, s = column[j] / radius, column[j + 1] / radius
            rotations[j] = c, s
            column[j], column[j + 1] = radius, 0.0
            g[j], g[j + 1] = c * g[j], -s * g[j]
            hessenberg[: j + 2, j] = column
            k = j + 1
            if size == 0.0 or abs(g[j + 1]) <= rtol * norm:
                break
            basis[j + 1] = w / size
        if k:
            with np.errstate(over="ignore", invalid="ignore"):
                x += precondition(_combine(basis, solve_triangular(hessenberg[:k, :k], g[:k], check_finite=False)))
        if not np.all(np.isfinite(x)):        # a nearly singular least-squares problem, or the preconditioner
            raise FloatingPointError("GMRES: the iterate left the double range")
    else:
        relative = float(np.linalg.norm(rhs - matvec(x))) / norm
        if relative < best:
            best_x, best = x, relative
    return best_x, iterations, best


@kernel(fastmath=True)
def _orthogonalize(basis, count, w):  # pragma: no cover - compiled
    """Orthogonalize ``w`` in place against the first ``count`` rows of ``basis`` by classical
    Gram–Schmidt, once more when the first pass removed most of ``w`` (Kahan's criterion: the norm
    fell below 0.7 of what it was); returns the coefficients followed by the norm of what is left."""
    n = len(w)
    out = np.zeros(count + 1)
    before = _norm(w)
    for _ in range(2):
        coefficients = np.zeros(count)
        for i in range(count):
            s = 0.0
            for k in range(n):
                s += basis[i, k] * w[k]
            coefficients[i] = s
        for i in range(count):
            s = coefficients[i]
            out[i] += s
            for k in range(n):
                w[k] -= s * basis[i, k]
        after = _norm(w)
        if after > 0.7 * before:
            break
        before = after
    out[count] = after
    return out


@kernel(fastmath=True)
def _norm(w):  # pragma: no cover - compiled
    total = 0.0
    for k in range(len(w)):
        total += w[k] * w[k]
    return math.sqrt(total)


@kernel(fastmath=True)
def _combine(basis, y):  # pragma: no cover - compiled
    """``sum_i y_i basis[i]``."""
    out = np.zeros(basis.shape[1])
    for i in range(len(y)):
        for k in range(basis.shape[1]):
            out[k] += y[i] * basis[i, k]
    return out
