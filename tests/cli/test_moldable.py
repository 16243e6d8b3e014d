"""Tests of `analytic moldable`, through main() and as a subprocess.

References: the Section 7 optimum (y* = (0, 0, 0.2, 0.1, 0), D* = 0.375) and Erlang's loss formula
for the linear speed-up (800 slots at load 720, by the recursion in mpmath); the simulation's output
against simulate_moldable called directly with the same seed.
"""

import json
import subprocess
import sys

import mpmath
import pytest

from analytic.cli import main
from analytic.cli.output import interval
from analytic.moldable import simulate_moldable
from analytic.simulation import SerialExecutor
from analytic.speedup import SpeedupTable


def test_prints_the_section7_optimum(capsys):
    assert main(["moldable", "--speedup", "1", "1.8", "2.5", "3", "3.4", "--rate-per-server", "0.8"]) == 0
    out = capsys.readouterr().out
    assert "case (iii), support I* = [3, 4]" in out
    assert "y*  = [0.0, 0.0, 0.2, 0.1, 0.0]" in out
    assert "D*  = 0.375" in out


def test_exact_greedy_blocking_is_erlang_b(capsys):
    blocking, load = mpmath.mpf(1), mpmath.mpf(4000) * mpmath.mpf("0.9") / 5
    for k in range(1, 801):
        blocking = load * blocking / (k + load * blocking)
    assert main(["moldable", "--speedup", "1", "2", "3", "4", "5", "--rate-per-server", "0.9", "--servers", "4000",
                 "--scheme", "greedy"]) == 0
    line = capsys.readouterr().out.splitlines()[-1]
    assert "(exact, 801 states)" in line
    printed = float(line.split("P_b = ")[1].split(",")[0])
    assert abs(printed - float(blocking)) <= 1e-11 * float(blocking)


def test_simulation_prints_what_simulate_moldable_returns(capsys):
    """The command is plumbing: same seed, same numbers as the function (checked statistically elsewhere)."""
    assert main(["moldable", "--speedup", "1", "2", "3", "4", "5", "--rate-per-server", "0.9", "--servers", "50",
                 "--simulate", "400000", "--size", "pareto", "--replications", "4", "--seed", "3"]) == 0
    line = capsys.readouterr().out.splitlines()[-1]
    sim = simulate_moldable(SpeedupTable.linear(5), 0.9, 50, size="pareto", arrivals=400_000, replications=4, seed=3,
                            executor=SerialExecutor())
    assert "(simulated, pareto sizes, 400,000 arrivals, 4 independent replications, seed 3)" in line
    blocking, mean_response_time = sim.blocking, sim.mean_response_time
    assert (f"P_b = {interval(blocking.value, blocking.half_width)}, "
            f"E[D] = {interval(mean_response_time.value, mean_response_time.half_width)}") in line


def test_simulation_needs_servers(capsys):
    assert main(["moldable", "--speedup", "1", "2", "--rate-per-server", "0.9", "--simulate", "1000"]) == 2
    captured = capsys.readouterr()
    assert captured.err == "analytic moldable: error: --simulate needs --servers N (the number of servers to simulate)\n"
    assert captured.out == ""


def test_no_result_is_printed_before_an_error(capsys):
    """The optimum used to be printed before the simulation refused 10 arrivals."""
    assert main(["moldable", "--speedup", "1", "1.8", "2.5", "--rate-per-server", "0.8", "--servers", "20",
                 "--simulate", "10"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "arrivals = 10: must give each of the 1 replications at least" in captured.err


@pytest.mark.slow
def test_bad_speedup_is_a_clean_error():
    result = subprocess.run([sys.executable, "-m", "analytic", "moldable", "--speedup", "1", "1.8", "2.7",
                             "--rate-per-server", "0.8"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert "must be concave: the slope rises at k = 2, from 0.8 to 0.9" in result.stderr
    assert "Traceback" not in result.stderr


def test_listed_in_help():
    result = subprocess.run([sys.executable, "-m", "analytic", "--help"], capture_output=True, text=True, timeout=120)
    assert "moldable" in result.stdout


def test_json_holds_the_estimates(capsys):
    assert main(["moldable", "--speedup", "1", "2", "--rate-per-server", "0.9", "--servers", "4", "--simulate", "20000",
                 "--seed", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["simulated"]
    sim = simulate_moldable(SpeedupTable([1.0, 2.0]), 0.9, 4, arrivals=20_000, seed=1, executor=SerialExecutor())
    assert data["arrivals"] == 20_000
    assert data["blocking"] == {"value": sim.blocking.value, "half_width": sim.blocking.half_width, "level": 0.95,
                                "method": "batch means", "samples": 20}
    assert data["mean_response_time"]["value"] == sim.mean_response_time.value
