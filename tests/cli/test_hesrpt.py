"""Tests of `analytic hesrpt` (the command prints heSRPT's allocation, completion times and flow time)."""

import subprocess
import sys

from analytic.cli import main
from analytic.hesrpt import flow_time, hesrpt_flow_time, optimal_makespan


def test_prints_shares_completion_times_and_totals(capsys):
    assert main(["hesrpt", "--sizes", "1", "1", "--exponent", "0.5", "--servers", "10"]) == 0
    out = capsys.readouterr().out
    result = hesrpt_flow_time([1.0, 1.0], 0.5, 10)
    assert "25.000000%" in out and "75.000000%" in out  # Section 1's split
    assert f"total flow time {result.total:.12g}" in out
    assert f"{result.completion_times[0]:.10g}" in out and f"{result.completion_times[1]:.10g}" in out
    assert f"{optimal_makespan([1.0, 1.0], 0.5, 10):.12g}" in out


def test_evaluates_another_policy(capsys):
    assert main(["hesrpt", "--sizes", "3", "1", "2", "--exponent", "0.5", "--servers", "100", "--policy", "knee",
                 "--alpha", "0.01"]) == 0
    out = capsys.readouterr().out
    knee = flow_time([3.0, 1.0, 2.0], "knee", 0.5, 100, alpha=0.01)
    assert f"knee (alpha = 0.01): total flow time {knee.total:.12g}" in out


def test_bad_input_exits_with_status_2_and_names_the_parameter(capsys):
    assert main(["hesrpt", "--sizes", "1", "-2", "--exponent", "0.5", "--servers", "10"]) == 2
    assert "sizes = " in capsys.readouterr().err
    assert main(["hesrpt", "--sizes", "1", "--exponent", "1.5", "--servers", "10"]) == 2
    assert "exponent = 1.5: must lie in the open interval (0, 1)" in capsys.readouterr().err


def test_the_old_flag_still_works_and_says_its_new_name(capsys):
    assert main(["hesrpt", "--sizes", "1", "1", "--p", "0.5", "--servers", "10"]) == 0
    captured = capsys.readouterr()
    assert "--p is renamed --exponent" in captured.err
    assert f"total flow time {hesrpt_flow_time([1.0, 1.0], 0.5, 10).total:.12g}" in captured.out


def test_help_lists_the_subcommand():
    result = subprocess.run([sys.executable, "-m", "analytic", "--help"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and "hesrpt" in result.stdout
