"""Tests of analytic.splitting.policies: the Gittins rank and the policy checks.

References for the Gittins rank G(a) = inf_{b>a} ∫_a^b S / (S(a) - S(b)): the exponential law's
constant mean; d - a for a deterministic size; for an increasing hazard rate the mean residual
size (the infimum at b = ∞), computed with mpmath quadrature at 30 digits (Erlang law); for a
decreasing hazard rate 1/h(a) (the infimum at b -> a), in closed form (hyperexponential, Pareto);
for a two-point law the infimum over a fine grid of b by brute force.
"""

import mpmath as mp
import numpy as np
import pytest

from analytic.errors import InvalidParameterError
from analytic.simulation import bimodal, deterministic, erlang, exponential, hyperexponential, pareto
from analytic.splitting import POLICIES, RigidClass, gittins_rank
from analytic.splitting.policies import gittins_table, resolve_policy

AGES = np.array([0.0, 0.1, 0.5, 1.0, 2.5, 6.0])


def test_exponential_rank_is_the_mean():
    np.testing.assert_allclose(gittins_rank(exponential(2.5), AGES), 2.5, rtol=1e-7, atol=0)


def test_deterministic_rank_is_the_remaining_size():
    np.testing.assert_allclose(gittins_rank(deterministic(3.0), AGES), np.maximum(3.0 - AGES, 0.0), rtol=1e-12, atol=1e-12)


def test_increasing_hazard_gives_the_mean_residual_size():
    law = erlang(3, 1.5)
    with mp.workdps(30):
        rate = mp.mpf(3) / mp.mpf("1.5")

        def survival(x):
            x = mp.mpf(x)
            return mp.exp(-rate * x) * (1 + rate * x + (rate * x) ** 2 / 2)

        expected = [float(mp.quad(survival, [a, mp.inf]) / survival(a)) for a in AGES]
    np.testing.assert_allclose(gittins_rank(law, AGES), expected, rtol=1e-7, atol=0)


def test_decreasing_hazard_gives_the_inverse_hazard():
    p, means = np.array([0.3, 0.7]), np.array([5.0, 0.5])
    law = hyperexponential(p, means)
    survival = (p * np.exp(-AGES[:, None] / means)).sum(axis=1)
    density = (p / means * np.exp(-AGES[:, None] / means)).sum(axis=1)
    np.testing.assert_allclose(gittins_rank(law, AGES), survival / density, rtol=1e-6, atol=0)
    # Pareto(1.5) of mean 1 starts at 1/3; beyond it h(a) = 1.5 / a
    ages = np.array([0.5, 1.0, 10.0, 100.0])
    np.testing.assert_allclose(gittins_rank(pareto(1.5), ages), ages / 1.5, rtol=1e-6, atol=0)


@pytest.mark.slow
def test_two_point_law_against_a_brute_force_infimum():
    law = bimodal(1.0, 10.0, 0.2)
    values, probabilities = np.array([1.0, 10.0]), np.array([0.8, 0.2])
    for a in [0.0, 0.5, 0.99, 3.0, 9.0]:
        b = np.union1d(np.linspace(a, 12.0, 20_001)[1:], values[values > a])  # the grid and the atoms
        survival_a = probabilities[values > a].sum()
        integral = np.array([(probabilities * np.clip(values - a, 0, x - a)).sum() for x in b])
        mass = np.array([probabilities[(values > a) & (values <= x)].sum() for x in b])
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(mass > 0, integral / np.where(mass > 0, mass, 1), np.inf)
        assert survival_a > 0
        assert gittins_rank(law, a) == pytest.approx(ratio.min(), rel=1e-9, abs=0)


def test_gittins_table_interpolates_the_rank():
    law = hyperexponential([0.3, 0.7], [5.0, 0.5])
    ages, ranks = gittins_table(law)
    assert ages[0] == 0 and np.all(np.diff(ages) > 0)
    middle = np.sqrt(ages[1:-1] * ages[2:])
    np.testing.assert_allclose(np.interp(middle, ages, ranks), gittins_rank(law, middle), rtol=2e-3, atol=0)


def test_gittins_rank_validation():
    with pytest.raises(InvalidParameterError, match=r"ages = -1: must be finite and >= 0"):
        gittins_rank(exponential(), -1.0)
    with pytest.raises(InvalidParameterError, match=r"must be an analytic.simulation.SizeLaw"):
        gittins_rank("exponential", 1.0)


def test_policy_registry_and_checks():
    assert set(POLICIES) == {"bs-fcfs", "modified-bs-fcfs", "fcfs", "ffbf", "maxweight", "msf", "server-filling",
                             "server-filling-srpt", "server-filling-gittins", "ff-srpt"}
    assert [name for name, p in POLICIES.items() if p.preemptive] == [
        "msf", "server-filling", "server-filling-srpt", "server-filling-gittins", "ff-srpt"]
    classes = [RigidClass(1, 0.5, 1.0), RigidClass(4, 0.5, 1.0)]
    assert resolve_policy("server-filling", 16, classes).packing == "server-filling"
    with pytest.raises(InvalidParameterError, match=r"servers = 12: must be a power of two for server-filling-srpt"):
        resolve_policy("server-filling-srpt", 12, classes)
    with pytest.raises(InvalidParameterError, match=r"needs \[3\] must be powers of two for server-filling-gittins"):
        resolve_policy("server-filling-gittins", 16, [RigidClass(1, 0.5, 1.0), RigidClass(3, 0.5, 1.0)])
    with pytest.raises(InvalidParameterError, match=r"policy = 'sjf': must be one of"):
        resolve_policy("sjf", 16, classes)
    assert resolve_policy("msf", 12, [RigidClass(3, 1.0, 1.0)]).name == "msf"


def test_job_class_size_laws():
    assert RigidClass(1, 1.0, 2.0).exponential and RigidClass(1, 1.0, 2.0).law.mean == pytest.approx(2.0, rel=1e-15, abs=0)
    fitted = RigidClass(1, 1.0, 2.0, size_std=3.0)
    assert not fitted.exponential
    assert fitted.law.mean == pytest.approx(2.0, rel=1e-12, abs=0) and fitted.law.variance == pytest.approx(9.0, rel=1e-12, abs=0)
    named = RigidClass(1, 1.0, 2.0, size="pareto")
    assert named.law.mean == pytest.approx(2.0, rel=1e-12, abs=0) and named.law.second_moment == np.inf
    assert RigidClass(1, 1.0, 2.0, size=exponential(5.0)).law.mean == pytest.approx(2.0, rel=1e-15, abs=0)  # rescaled
    assert RigidClass(1, 1.0, 2.0, size=deterministic(), size_std=0.0).law.variance == 0
    with pytest.raises(InvalidParameterError, match=r"size = .*must have standard deviation size_std = 1"):
        RigidClass(1, 1.0, 2.0, size="exponential", size_std=1.0)
    with pytest.raises(InvalidParameterError, match=r"size = 'lognormal': must be a SizeLaw or one of"):
        RigidClass(1, 1.0, 2.0, size="lognormal")


@pytest.mark.parametrize("call,match", [
    (lambda: __import__("analytic.splitting.policies", fromlist=["x"]).gittins_table(
        __import__("analytic.simulation", fromlist=["x"]).pareto(), 10**18),
     r"^the Gittins table needs 1,000,000,000,000,000,000 states"),
])
def test_fixed_error_paths_name_parameter_value_and_condition(call, match):
    from analytic.errors import AnalyticError

    with pytest.raises(AnalyticError, match=match):
        call()
