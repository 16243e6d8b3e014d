"""Bad input, extreme rates and memory: analytic.ctmc refuses clearly instead of answering wrongly.

Each case names what the issue found (a NaN residual, an all-zero "distribution", a raw numpy or
scipy exception, a machine out of memory) and checks the package's error and its message.
"""

import math
import os
import subprocess
import sys
import textwrap
import warnings
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp

from analytic import memory
from analytic.ctmc import CTMC, stationary
from analytic.ctmc import _refinement as refinement
from analytic.ctmc._krylov import gmres
from analytic.errors import ConvergenceError, InvalidParameterError, StateSpaceTooLargeError
from analytic.memory import require


@pytest.mark.parametrize("generator,match", [
    ([[0, 1], [1]], "generator = .*must be a square array of rates"),
    ([[0, 1 + 2j], [1, 0]], "must hold real rates, not complex values"),
    ([["a", "b"], ["c", "d"]], "must hold real rates, not of dtype <U1"),
    (np.ones((2, 3)), "generator = .*must be a non-empty square matrix"),
    (np.zeros((0, 0)), "must be a non-empty square matrix"),
    (np.ones(4), "must be a non-empty square matrix"),
    ([[0, np.nan], [1, 0]], r"rate = nan: must be real, finite and >= 0 \(generator\[0, 1\]\)"),
    ([[0, -2.0], [1, 0]], r"rate = -2: must be real, finite and >= 0"),
    ([[0, np.inf], [1, 0]], r"rate = inf: must be real, finite and >= 0"),
    (sp.csr_array(np.array([[0, 1 + 1j], [1, 0]])), "must hold real rates"),
])
def test_bad_generators(generator, match):
    with pytest.raises(InvalidParameterError, match=match):
        CTMC(generator)


def test_row_sums_that_overflow_are_an_error_not_a_nan():
    # Before: an all-zero "distribution" and a NaN residual, no error.
    with pytest.raises(InvalidParameterError, match=r"out of state 0 sum to more than the largest double"):
        CTMC([[0, 1e308, 1e308], [1, 0, 0], [1, 0, 0]])


def test_rates_near_the_overflow_limit_are_solved_exactly():
    # Rates up to 8e307 whose row sums stay finite: pi ∝ (1, 2) for rates 8e307 and 4e307.
    pi = CTMC([[0, 8e307], [4e307, 0]]).stationary()
    assert np.asarray(pi) == pytest.approx([1 / 3, 2 / 3], rel=1e-15, abs=0)


def test_python_ints_beyond_64_bits_are_rates_when_a_float_holds_them():
    """CTMC([[-10**30, 10**30], [1, -1]]) was refused as "not of dtype object values". Two states, rates
    q01 = 10**30 and q10 = 1: π = (1, 10**30) / (1 + 10**30) in exact rationals. An int beyond the doubles is
    refused with the magnitude, naming the generator."""
    big = 10**30
    pi = np.asarray(CTMC([[-big, big], [1, -1]]).stationary())
    assert pi == pytest.approx([float(Fraction(1, 1 + big)), float(Fraction(big, 1 + big))], rel=1e-15, abs=0)
    pi = np.asarray(CTMC([[0, Fraction(1, 3)], [Decimal("0.5"), 0]]).stationary())   # π ∝ (1/2, 1/3)
    assert pi == pytest.approx([0.6, 0.4], rel=1e-15, abs=0)
    with pytest.raises(InvalidParameterError, match=r"^generator = .*: must be a 2-D array of real numbers \(rates\): an "
                                                    r"entry's magnitude exceeds the largest float, 1\.798e\+308$"):
        CTMC([[-10**400, 10**400], [1, -1]])


def test_tiny_rates_near_the_underflow_limit():
    # Rates 3e-300 and 1e-300: pi ∝ (1, 3).
    pi = CTMC([[0, 3e-300], [1e-300, 0]]).stationary()
    assert np.asarray(pi) == pytest.approx([0.25, 0.75], rel=1e-15, abs=0)


def test_unhashable_and_duplicate_state_labels():
    with pytest.raises(InvalidParameterError, match="states = .*must be hashable labels"):
        CTMC(np.array([[0, 1.0], [1.0, 0]]), states=[[0], [1]])
    with pytest.raises(InvalidParameterError, match="must be 2 distinct labels"):
        CTMC(np.array([[0, 1.0], [1.0, 0]]), states=["a", "a"])


def test_complex_rate_from_a_transition_function():
    with pytest.raises(InvalidParameterError, match=r"rate = \(1\+1j\): must be real"):
        CTMC.from_function(0, lambda x: [(1 - x, 1 + 1j)])
    with pytest.raises(InvalidParameterError, match=r"rate = .*must be real"):
        CTMC.from_function(0, lambda x: [(1 - x, np.complex128(1.0))])


def test_probability_vectors_of_the_wrong_kind():
    chain = CTMC(np.array([[0, 1.0], [2.0, 0]]))
    with pytest.raises(InvalidParameterError, match="probabilities = .*of length 2"):
        chain.detailed_balance_residual(np.array([1.0]))
    with pytest.raises(InvalidParameterError, match=r"probabilities = .*array of real numbers \(a vector of probabilities\)"):
        chain.detailed_balance_residual(np.array(["a", "b"]))
    with pytest.raises(InvalidParameterError, match="probabilities = .*summing to 1"):
        chain.detailed_balance_residual(np.array([0.7, 0.7]))


# -- memory: refused before it is spent -------------------------------------------------------------


def test_require_names_what_would_be_needed_and_what_is_available():
    with pytest.raises(StateSpaceTooLargeError, match=r"the example needs 1,000 states and about 9.31e\+11 GiB of memory, "
                                                      r"more than the .* GiB available"):
        require(1e21, "the example", 1000)
    require(1, "a byte", 1)  # fits


def test_small_plans_fit_without_asking_the_system(monkeypatch):
    # With no memory reported available, plans under UNCHECKED_BYTES still fit (the system is not
    # asked for them) and anything larger does not; the boundary is the constant itself.
    monkeypatch.setattr(memory, "available_bytes", lambda: 0)
    assert memory.fits(memory.UNCHECKED_BYTES) and not memory.fits(memory.UNCHECKED_BYTES + 1)
    with pytest.raises(StateSpaceTooLargeError):
        require(memory.UNCHECKED_BYTES + 1, "the example", 10)
    with pytest.raises(InvalidParameterError, match="bytes_needed = -1.*must be >= 0"):
        memory.fits(-1)


def test_lattice_larger_than_memory_is_refused_before_allocating():
    # 10^10 states (max_states raised out of the way): refused by the memory estimate at once.
    with pytest.raises(StateSpaceTooLargeError, match="the lattice needs 10,000,000,000 states and about .* GiB of memory"):
        CTMC.from_lattice((99_999, 99_999), [((1, 0), lambda X: 1.0 * (X[:, 0] < 99_999))], max_states=10**11)


@pytest.mark.slow
def test_feasible_set_larger_than_memory_is_refused_while_enumerating():
    # Under an address-space limit of 3 GiB (ulimit -v, which available_bytes honours), a 4-D
    # simplex of side 800 (4.2e10 points) stops at the memory estimate, long before max_states,
    # with the package's error rather than a MemoryError or the kernel's OOM killer.
    code = textwrap.dedent("""
        import resource, numpy as np
        resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, resource.RLIM_INFINITY))
        from analytic.ctmc import CTMC
        from analytic.errors import StateSpaceTooLargeError
        moves = [(tuple(np.eye(4, dtype=int)[k]), lambda X: np.zeros(len(X))) for k in range(4)]
        try:
            CTMC.from_lattice((800,) * 4, moves, feasible=lambda X: X.sum(axis=1) <= 800, max_states=10**12)
        except StateSpaceTooLargeError as exc:
            print(exc)
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                            env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
    assert result.returncode == 0, result.stderr
    assert "the feasible set needs at least" in result.stdout and "GiB of memory, more than the" in result.stdout


def test_greedy_chain_at_n_300_is_refused_by_its_solver_or_builder():
    from analytic.moldable import greedy_metrics
    from analytic.speedup import SpeedupTable

    with pytest.raises(StateSpaceTooLargeError, match="GiB of memory"):
        greedy_metrics(SpeedupTable([1, 1.8, 2.5, 3, 3.4]), 0.8, 300)


def test_gmres_overflow_is_a_floating_point_error_not_a_raw_value_error():
    # The first Krylov vector (1.5e308, 1.5e308) has a finite norm of what is left after
    # orthogonalization, but its rotation's radius overflows: before, solve_triangular raised
    # "array must not contain infs or NaNs" from inside the solver.
    matrix = np.array([[1.5e308, 0.0], [1.5e308, 1.0]])
    with pytest.raises(FloatingPointError, match="left the double range"):
        gmres(lambda v: matrix @ v, lambda v: v, np.array([1.0, 0.0]), 1e-12)


def test_the_auto_ladder_goes_on_when_gmres_overflows(monkeypatch):
    # Iterative rounds first (GTH made to look costly), their GMRES overflowing: auto answers by
    # the next method, and "iterative" alone refuses with ConvergenceError (the 50 000-state banded
    # chain of issue 28 raised a raw ValueError after 535 s).
    def overflowing(*args, **kwargs):
        raise FloatingPointError("GMRES: the Hessenberg matrix left the double range")

    monkeypatch.setattr(refinement, "gmres", overflowing)
    monkeypatch.setattr(stationary, "GTH_FLOPS", 0.0)
    monkeypatch.setattr(stationary, "GTH_FLOPS_PER_STATE", 0.0)
    cycle = CTMC.from_function(0, lambda x: [((x + 1) % 31, x + 1.0)])   # pi(x) ∝ 1 / (x + 1): the mean sojourn
    result = cycle.stationary()
    assert "iterative" not in result.method
    weights = 1 / np.arange(1.0, 32.0)
    assert np.asarray(result) == pytest.approx(weights / weights.sum(), rel=1e-12, abs=0)
    with pytest.raises(ConvergenceError, match="iterative cannot solve this chain: GMRES"):
        cycle.stationary(method="iterative")


def test_a_scaled_system_beyond_the_double_range_is_a_floating_point_error_not_a_warning():
    # A measure whose neighbouring states differ by 2**1100 overflows the scaled matrix's entries:
    # numpy warned (an error under -W error, seen on greedy(p*) at arrival rate 1e-290) and the inf
    # entries went on to the factorization. Now a FloatingPointError, which the auto ladder records.
    from analytic.ctmc._balance import Balance, Measure

    balance = Balance(sp.csr_array([[0, 1.0], [1.0, 0]]))
    x = Measure.from_parts(np.ones(2), np.array([0, 1100]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(FloatingPointError, match="the scaled system left the double range"):
            balance.scaled_matrix(x, 1)


@pytest.mark.parametrize("measured, refined", [(0.0, True), (1e40, False)])
def test_the_ladder_goes_on_when_no_certificate_measured_the_conditioning(monkeypatch, measured, refined):
    # A GTH measure that lost a tail to underflow reports an amplification of inf that measures nothing
    # (Table 1's alpha = 1/2 chain at n = 2000): the iterative rounds must still be tried (the first
    # fake attempt measures 0). A chain whose certificate did measure a conditioning beyond double-double
    # (1e40) skips the direct and iterative rounds.
    calls = []

    def attempt(balance, name, first, tolerance, plan):
        calls.append(name)
        solution = stationary.Solution(np.full(2, 0.5), np.zeros(2), math.inf, name, 0, name)
        return (solution, math.inf, measured) if name == "gth" else (solution, 0.0, 1.0)

    monkeypatch.setattr(stationary, "_attempt", attempt)
    stationary.solve(sp.csr_array([[0, 1.0], [1.0, 0]]), "auto", None)
    assert calls[0] == "gth" and ("iterative" in calls or "direct" in calls) == refined
