"""The ``analytic`` command answers every user error with one line on stderr and exit status 2.

Argparse-level errors (unknown subcommand or option, missing or malformed values), values the
package refuses (NaN, infinities, out-of-range numbers) and refusals raised deep inside (a chain too
large to build) all end the same way: the package's message on one line, no traceback, status 2.
"""

import subprocess
import sys

import pytest

from analytic.cli import main

BAD_COMMAND_LINES = [
    ([], "the following arguments are required: command"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
    (["reproduce", "--bogus"], "unrecognized arguments: --bogus"),
    (["erlang-b", "--servers", "x", "--offered-load", "3"], "argument --servers: invalid float value: 'x'"),
    (["erlang-b", "--offered-load", "3"], "the following arguments are required: --servers"),
    (["erlang-b", "--servers", "nan", "--offered-load", "3"], "servers = nan: must be >= 0"),
    (["erlang-b", "--servers", "5", "--offered-load", "3", "--precision", "-3"], "precision = -3: must be a positive integer"),
    (["erlang-c", "--servers", "1e300", "--offered-load", "1e300"], "servers = 1e+300: must be >= 0 and <= 1e+15"),
    (["erlang-b-servers", "--offered-load", "-1", "--target", "0.01"], "offered_load = -1"),
    (["erlang-b-offered-load", "--servers", "5", "--target", "0"], "target = 0: must lie strictly between 0 and 1"),
    (["hesrpt", "--sizes", "1", "nan", "--exponent", "0.5", "--servers", "10"], "sizes = [ 1., nan]: every size must be finite"),
    (["hesrpt", "--sizes", "1", "2", "--exponent", "2", "--servers", "10"], "exponent = 2: must lie in the open interval (0, 1)"),
    (["hesrpt", "--sizes", "1", "--exponent", "0.5", "--servers", "inf"], "servers = inf: must be positive and finite"),
    (["hesrpt", "--sizes", "1", "--exponent", "0.5", "--servers", "10", "--policy", "fifo"], "invalid choice: 'fifo'"),
    (["moldable", "--speedup", "1", "2.7", "1.8", "--rate-per-server", "0.8"], "must be strictly increasing (P1)"),
    (["moldable", "--speedup", "1", "1.8", "--rate-per-server", "1.5"], "rate_per_server = 1.5"),
    (["moldable", "--speedup", "1", "1.8", "--rate-per-server", "0.8", "--servers", "1.5"], "invalid int value: '1.5'"),
    # refused deep inside, before allocating: at least (n - 1)/2 + 1 = 5e8 + 1 states (with n even, 2 dividing n,
    # the chain is Erlang's loss system and the command answers in closed form)
    (["moldable", "--speedup", "1", "1.8", "--rate-per-server", "0.8", "--servers", "1000000001"],
     "the greedy(p) chain needs more than 30,000,000 states"),
    (["moldable", "--speedup", "1", "1.8", "--rate-per-server", "0.8", "--scheme", "greedy(p*)"], "invalid choice: 'greedy(p*)'"),
    (["moldable", "--speedup", "1", "1.8", "--rate-per-server", "0.8", "--servers", "4", "--tolerance", "nan"],
     "tolerance = nan"),
    (["bs-partition", "--servers", "8", "--class", "1:0.6"], "invalid class: '1:0.6'"),
    (["bs-partition", "--servers", "8", "--class", "1:0.6:1"], "probabilities must sum to 1"),
    (["bs-partition", "--servers", "8", "--classes", "sdsc-sp2", "--class", "1:1:1"], "not allowed with argument"),
    (["bs-partition", "--servers", "8", "--class", "1:1:1", "--load", "nan"], "load = nan: must be positive"),
    (["multiserver-exact", "fcfs", "--servers", "2", "--class", "1:1:1"], "one of the arguments --load --arrival-rate"),
    (["multiserver-exact", "server-filling", "--servers", "2", "--class", "1:1:1", "--load", "0.5"], "invalid choice"),
    (["multiserver-simulate", "fcfs", "--servers", "2", "--class", "1:1:1", "--load", "1.5"], "load"),
    (["fairness-stability", "--servers-of", "0,x", "--capacities", "1", "--arrival-rates", "1"], "invalid list of integers"),
    (["fairness-metrics", "--servers-of", "0,1", "--capacities", "1", "1", "--arrival-rates", "5"],
     "classes (0,) = 5 must be < 2"),
    (["graph-gamma", "--slots", "2", "2", "--nodes", "2", "--edges", "0:1"], "invalid edge: '0:1'"),
    (["graph-pi-star", "--slots", "2", "2", "--nodes", "2", "--queue-weights", "1", "--beta", "-1"], "beta = -1"),
    (["simulate", "--servers", "10", "--load", "0", "--arrivals", "1000"], "load = 0"),
    (["compare", "--exact", "1"], "give either --observations FILE or --estimate VALUE"),
    (["compare", "--exact", "1", "--estimate", "1"], "--estimate needs --half-width and --samples"),
    (["compare", "--exact", "1", "--observations", "/nonexistent/x"], "cannot read /nonexistent/x"),
]


@pytest.mark.parametrize("argv,message", BAD_COMMAND_LINES, ids=[" ".join(a) or "(none)" for a, _ in BAD_COMMAND_LINES])
def test_user_error_is_one_line_and_status_2(argv, message, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("analytic") and ": error: " in lines[0]
    assert message in lines[0]
    assert "Traceback" not in captured.err


def test_valid_subnormal_target_is_answered(capsys):
    """erlang_b_servers(7, 1e-309) once raised ConvergenceError; 266 servers (E_266(7) = 4.448e-310
    and E_265(7) = 1.690e-308 by the recursion at 50 digits in mpmath) is the answer."""
    assert main(["erlang-b-servers", "--offered-load", "7", "--target", "1e-309"]) == 0
    assert capsys.readouterr().out.strip() == "266"


def test_python_m_analytic_prints_one_line_and_exits_2():
    result = subprocess.run([sys.executable, "-m", "analytic", "erlang-b", "--servers", "nan", "--offered-load", "3"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == ["analytic erlang-b: error: servers = nan: must be >= 0 and <= 1e+15 "
                                          "(the validated range)"]
