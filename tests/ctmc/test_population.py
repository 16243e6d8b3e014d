"""PopulationModel and the eventual polynomial of a rate (analytic.ctmc.population, analytic.ctmc.tails).

References: sympy's own evaluation of the expressions at exact rational points (independent of the
tail analysis), and hand-written numpy rate functions for the numeric moves.
"""

import itertools

import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from analytic.ctmc.population import PopulationModel
from analytic.ctmc.tails import eventual_polynomial, exact, last_root_bound
from analytic.errors import InvalidParameterError

x, y = sympy.symbols("x y")


def test_moves_match_hand_written_rates_and_stop_at_the_lattice_edge():
    # an M/M/2 queue with a bounded phase y <= 1 switching at rates 0.5 / 0.25
    model = PopulationModel([x, y], [((1, 0), 2.0), ((-1, 0), sympy.Min(x, 2) * (1 + y)), ((0, 1), 0.5), ((0, -1), 0.25)],
                            upper=[None, 1])
    states = np.array(list(itertools.product(range(5), range(2))))
    expected = [2.0 * np.ones(len(states)), np.minimum(states[:, 0], 2) * (1 + states[:, 1]),
                0.5 * (states[:, 1] < 1), 0.25 * (states[:, 1] > 0)]
    for (_, rate), want in zip(model.moves, expected, strict=True):
        np.testing.assert_array_equal(rate(states), want)        # exact: small integers and dyadic rates
    assert model.unbounded == (0,)
    assert model.feasible(np.array([[0, 2], [3, 1], [-1, 0]])).tolist() == [False, True, False]


def test_a_move_leaving_the_lattice_is_not_taken_whatever_its_expression():
    model = PopulationModel([x], [((-1,), 5.0), ((1,), 1.0)])       # the death rate does not vanish at 0
    death = model.moves[0][1]
    assert death(np.array([[0], [1]])).tolist() == [0.0, 5.0]


def test_symbolic_drift_agrees_with_a_hand_derivation():
    # GV for V = x^2 in an M/M/inf queue (birth 3, death x): 3 (2x + 1) + x (1 - 2x)
    drift = PopulationModel([x], [((1,), 3), ((-1,), x)]).drift(x**2)
    assert sympy.expand(drift - (3 * (2 * x + 1) + x * (1 - 2 * x))) == 0


def test_floats_are_taken_as_the_binary_rationals_they_store():
    assert exact(0.1) == sympy.Rational(3602879701896397, 2**55)
    rate = PopulationModel([x], [((1,), 0.1)]).transitions[0][1]
    assert rate == sympy.Rational(0.1)


@pytest.mark.parametrize("bad, parameter", [
    (dict(variables=[], transitions=[((1,), 1)]), "variables"),
    (dict(variables=[x, x], transitions=[((1, 0), 1)]), "variables"),
    (dict(variables=["x"], transitions=[((1,), 1)]), "variables"),
    (dict(variables=[x], transitions=[]), "transitions"),
    (dict(variables=[x], transitions=[((0,), 1)]), "transitions[0] change"),
    (dict(variables=[x], transitions=[((1, 0), 1)]), "transitions[0] change"),
    (dict(variables=[x], transitions=[((1.5,), 1)]), "transitions[0] change"),
    (dict(variables=[x], transitions=[((1,), x * y)]), "transitions[0] rate"),
    (dict(variables=[x], transitions=[((1,), 1)], upper=[-1]), "upper[0]"),
    (dict(variables=[x], transitions=[((1,), 1)], upper=[1, 2]), "upper"),
    (dict(variables=[x], transitions=[((1,), 1)], upper=[3], initial=[4]), "initial[0]"),
    (dict(variables=[x], transitions=[((1,), 1)], initial=[-1]), "initial[0]"),
    (dict(variables=[x], transitions="x+1"), "transitions"),
])
def test_bad_models_name_the_parameter(bad, parameter):
    with pytest.raises(InvalidParameterError) as caught:
        PopulationModel(**bad)
    assert caught.value.parameter == parameter


# --- the eventual polynomial -------------------------------------------------------------------

_pieces = st.sampled_from([
    x, 3 * x, x**2 - 7 * x, sympy.Rational(5, 2), x**3 / 100 - x**2, -x + 40, 2 * x - sympy.Rational(1, 3),
])


@st.composite
def _expressions(draw, depth=2):
    if depth == 0:
        return draw(_pieces)
    a, b = draw(_expressions(depth=depth - 1)), draw(_expressions(depth=depth - 1))
    kind = draw(st.sampled_from(["min", "max", "add", "mul", "abs", "piecewise", "heaviside"]))
    if kind == "min":
        return sympy.Min(a, b)
    if kind == "max":
        return sympy.Max(a, b)
    if kind == "add":
        return a + b
    if kind == "mul":
        return a * b
    if kind == "abs":
        return sympy.Abs(a - b)
    if kind == "heaviside":
        return sympy.Heaviside(a - b) * a
    return sympy.Piecewise((a, sympy.Gt(a, b) & sympy.Lt(x, 10**6)), (b, True))


@pytest.mark.slow
@given(_expressions(), st.lists(st.integers(1, 10**9), min_size=3, max_size=3))
def test_the_eventual_polynomial_equals_the_expression_beyond_its_threshold(expr, offsets):
    # reference: sympy evaluates the expression itself at exact rational points beyond the threshold
    poly, threshold = eventual_polynomial(expr, x)
    start = 0 if threshold == -sympy.oo else sympy.floor(threshold) + 1
    for offset in [sympy.Rational(1, 3), *offsets, 10**7]:
        point = start + offset
        assert expr.subs(x, point) == poly.eval(point)


def test_eventual_polynomial_threshold_is_past_every_switch():
    # Min(x, 3): the switch is at 3; beyond the threshold the value is 3 and it is not x
    poly, t = eventual_polynomial(sympy.Min(x, 3), x)
    assert poly.as_expr() == 3 and t >= 3
    poly, t = eventual_polynomial(sympy.Piecewise((x**2, x < 50), (7, True)), x)
    assert poly.as_expr() == 7 and t >= 50


def test_last_root_bound_is_exact_rational_above_every_root():
    p = sympy.Poly((x - sympy.Rational(10**6, 3)) * (x**2 + 1) * (x + 5), x)
    t = last_root_bound(p)
    assert t.is_Rational and t >= sympy.Rational(10**6, 3)
    assert last_root_bound(sympy.Poly(x**2 + 1, x)) == -sympy.oo


@pytest.mark.parametrize("expr", [sympy.exp(x), sympy.floor(x / 2), sympy.sqrt(x), x**-1, y * x])
def test_constructs_the_tail_analysis_does_not_know_are_named(expr):
    with pytest.raises(InvalidParameterError) as caught:
        eventual_polynomial(expr, x)
    assert caught.value.parameter == "rate"
