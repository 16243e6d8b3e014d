"""Independent references shared by several test modules (importable as ``references``: the
test directory is put on the path by conftest.py)."""

import mpmath


def pinned_lu_reference(rates, digits=700):
    """The stationary law of the dense rate matrix ``rates`` (off-diagonal entries, as given in
    doubles): its balance equations with the first replaced by sum(pi) = 1, solved by LU in mpmath
    at ``digits`` digits (at 700, couplings down to 1e-300 and weights over 100 decades stay
    resolved). A method the package does not use on chains."""
    n = len(rates)
    with mpmath.workdps(digits):
        system = mpmath.matrix(n, n)
        rhs = mpmath.matrix(n, 1)
        for j in range(n):
            system[0, j] = 1
        rhs[0] = 1
        for i in range(1, n):
            for j in range(n):
                if j != i and rates[j][i]:
                    system[i, j] = mpmath.mpf(float(rates[j][i]))
            system[i, i] = -mpmath.fsum(mpmath.mpf(float(rates[i][j])) for j in range(n) if j != i)
        return list(mpmath.lu_solve(system, rhs))
