"""Incomplete LU factorization with no fill, ILU(0), for the scaled balance equations.

The scaled matrix ``S = I - P`` of :mod:`analytic.ctmc._balance` is a nonsingular M-matrix (``P``
substochastic, one row pinned), for which the incomplete factorization on the sparsity pattern of
``S`` exists and has positive pivots (Meijerink & van der Vorst, *An iterative solution method for
linear systems of which the coefficient matrix is a symmetric M-matrix*, Math. Comp. 31, 1977; the
proof carries over to nonsymmetric M-matrices). It costs about one pass over the rows of ``S``
times their length, so it is rebuilt cheaply each time the scaling changes.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from analytic._kernels import kernel

__all__ = ["ILU0"]


@kernel
def _factor(indptr, indices, data):  # pragma: no cover - compiled
    """In-place ILU(0) (IKJ variant) of a CSR matrix with sorted indices and a full diagonal;
    returns the position of each row's diagonal entry."""
    n = len(indptr) - 1
    diagonal = np.empty(n, np.int64)
    where = -np.ones(n, np.int64)
    for i in range(n):
        for p in range(indptr[i], indptr[i + 1]):
            where[indices[p]] = p
        diagonal[i] = where[i]
        for p in range(indptr[i], diagonal[i]):
            k = indices[p]
            multiplier = data[p] / data[diagonal[k]]
            data[p] = multiplier
            for q in range(diagonal[k] + 1, indptr[k + 1]):
                at = where[indices[q]]
                if at >= 0:
                    data[at] -= multiplier * data[q]
        for p in range(indptr[i], indptr[i + 1]):
            where[indices[p]] = -1
        if not data[diagonal[i]] > 0.0:
            return diagonal[:i]     # a vanished pivot: the caller refuses
    return diagonal


@kernel
def _solve(indptr, indices, data, diagonal, rhs):  # pragma: no cover - compiled
    n = len(rhs)
    y = rhs.copy()
    for i in range(n):
        s = y[i]
        for p in range(indptr[i], diagonal[i]):
            s -= data[p] * y[indices[p]]
        y[i] = s
    for i in range(n - 1, -1, -1):
        s = y[i]
        for p in range(diagonal[i] + 1, indptr[i + 1]):
            s -= data[p] * y[indices[p]]
        y[i] = s / data[diagonal[i]]
    return y


class ILU0:
    """ILU(0) of a square CSR matrix with a nonzero diagonal, its rows and columns taken in
    ``order``; :meth:`solve` applies ``(LU)^-1``. A bandwidth-reducing order (Cuthill–McKee
    reversed, ending at the pinned state: :meth:`Balance.order_toward`) halved the GMRES iterations
    on the greedy(p*) chains against the lattice order.

    Parameters
    ----------
    matrix : scipy.sparse.csr_array
        A square matrix with a nonzero diagonal (the scaled matrix ``S``, a nonsingular M-matrix).
    order : numpy.ndarray
        A permutation of its rows and columns, the order of elimination.

    Raises
    ------
    FloatingPointError
        A pivot vanished or became negative: the matrix is numerically singular.

    Examples
    --------
    A tridiagonal matrix has no fill, so its ILU(0) is its LU and solves exactly:

    >>> import scipy.sparse as sp
    >>> S = sp.csr_array([[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 2.0]])
    >>> ILU0(S, np.arange(3)).solve(S @ np.array([1.0, 2.0, 3.0])).round(12).tolist()
    [1.0, 2.0, 3.0]
    """

    def __init__(self, matrix: sp.csr_array, order: np.ndarray) -> None:
        self._order = order
        matrix = sp.csr_array(sp.csr_array(matrix)[order][:, order])
        matrix.sort_indices()
        self._indptr = matrix.indptr.astype(np.int64)
        self._indices = matrix.indices.astype(np.int64)
        self._data = matrix.data.astype(float, copy=True)
        self._diagonal = _factor(self._indptr, self._indices, self._data)
        if len(self._diagonal) < matrix.shape[0]:
            raise FloatingPointError(f"ILU(0) pivot {len(self._diagonal)} vanished: the scaled system is numerically singular")

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """``(LU)^-1 rhs``: forward and back substitution with the incomplete factors.

        Parameters
        ----------
        rhs : numpy.ndarray
            A vector of length n.

        Returns
        -------
        numpy.ndarray
            The preconditioned vector, in the matrix's own (unpermuted) order.

        Examples
        --------
        The factors of a tridiagonal matrix, taken in the reverse order, are exact too:

        >>> import scipy.sparse as sp
        >>> S = sp.csr_array([[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 2.0]])
        >>> ILU0(S, np.array([2, 1, 0])).solve(np.array([0.0, 0.0, 4.0])).round(12).tolist()
        [1.0, 2.0, 3.0]
        """
        out = np.empty(len(rhs))
        out[self._order] = _solve(self._indptr, self._indices, self._data, self._diagonal,
                                  np.asarray(rhs, dtype=float)[self._order])
        return out
