"""Tests of the `analytic` command, run as a subprocess exactly as users call it."""

import contextlib
import json
import re
import subprocess
import sys

import pytest

from analytic.cli import main


def run(*args):
    return subprocess.run([sys.executable, "-m", "analytic", *args], capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_reproduce_prints_table_and_exits_zero():
    """The command's table and exit status (one cheap row: test_reproduce runs every row)."""
    result = run("reproduce", "--only", "_erlang_loss_rows")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Erlang (1917), loss formula" in result.stdout
    assert ", 0 failed, computed in" in result.stdout


@pytest.mark.slow
def test_reproduce_only_matching_nothing_is_an_error():
    """--only nonexistent printed an empty table and exited 0: now a usage error listing what --only matches against."""
    result = run("reproduce", "--only", "nonexistent")
    assert result.returncode == 2 and result.stdout == ""
    message = result.stderr.strip()
    assert message.startswith("analytic reproduce: error: --only 'nonexistent' matches no row: it selects the row "
                              "functions whose 'module.function' name contains the text, and these are ")
    assert "_lemma1_rows" in message.split("analytic.splitting.paper: ")[1].split(";")[0]
    assert "analytic.ctmc._published: _erlang_loss_rows, _product_form_row" in message


def test_help_lists_subcommands():
    result = run("--help")
    assert result.returncode == 0
    assert "reproduce" in result.stdout


def test_failing_row_gives_nonzero_exit(monkeypatch, capsys):
    from analytic import reproduce

    @reproduce.reproduces
    def _deliberately_wrong():
        return reproduce.Row("test", "1 = 2", 1.0, 2.0, 0.1)

    try:
        assert main(["reproduce", "--only", "_deliberately_wrong"]) == 1
        assert "FAILS" in capsys.readouterr().out
    finally:
        reproduce._REGISTRY.remove(_deliberately_wrong)


def test_unknown_subcommand_is_an_error(capsys):
    assert main(["frobnicate"]) == 2
    assert "invalid choice: 'frobnicate'" in capsys.readouterr().err


# One valid, fast command line per subcommand: each prints its results as JSON with --json.
SMALL = {
    "reproduce": ["--only", "_gth_row"],
    "erlang-b": ["--servers", "10", "--offered-load", "7"],
    "erlang-c": ["--servers", "10", "--offered-load", "7"],
    "erlang-b-servers": ["--offered-load", "7", "--target", "0.01"],
    "erlang-b-offered-load": ["--servers", "10", "--target", "0.01"],
    "moldable": ["--speedup", "1", "1.8", "--rate-per-server", "0.8", "--servers", "4"],
    "bs-partition": ["--servers", "8", "--class", "1:0.6:1", "--class", "2:0.4:1.5", "--load", "0.4"],
    "multiserver-simulate": ["fcfs", "--servers", "2", "--class", "1:1:1", "--load", "0.5", "--arrivals", "2000", "--seed", "1"],
    "multiserver-exact": ["fcfs", "--servers", "2", "--class", "1:1:1", "--load", "0.5"],
    "multiserver-saturation": ["--servers", "2", "--class", "1:0.5:1", "--class", "2:0.5:1"],
    "hesrpt": ["--sizes", "1", "2", "--exponent", "0.5", "--servers", "10"],
    "fairness-stability": ["--servers-of", "0,2", "1,2", "--capacities", "1", "1", "1", "--arrival-rates", "1", "1"],
    "fairness-metrics": ["--servers-of", "0,2", "1,2", "--capacities", "1", "1", "1", "--arrival-rates", "1", "1"],
    "graph-gamma": ["--slots", "2", "2", "--nodes", "2", "--edges", "0-1"],
    "graph-pi-star": ["--slots", "2", "2", "--nodes", "2", "--edges", "0-1", "--queue-weights", "1", "--beta", "0.5"],
    "graph-static": ["--slots", "2", "2", "--nodes", "2", "--edges", "0-1"],
    "simulate": ["--servers", "2", "--load", "1", "--arrivals", "2000", "--seed", "1"],
    "compare": ["--exact", "1", "--estimate", "1.01", "--half-width", "0.02", "--samples", "10"],
}

#: Words of the bibliographic citation each command's --help must contain.
PAPERS = ("Ghanbarian", "Anselmi & Doncel", "Berg, Vesilo & Harchol-Balter", "Bonald & Comte", "Ghaderi", "Erlang")
#: Commands that compute no paper's result, and what their description says instead.
NO_PAPER = {"compare": "Your own simulation against an exact value"}


def _subcommands():
    """The subcommands by their names (an alias, a command's former name, maps to the same parser)."""
    from analytic.cli import _parser

    action = next(a for a in _parser()._actions if a.dest == "command")
    return {name: parser for name, parser in action.choices.items() if parser.prog.endswith(f" {name}")}


def test_every_subcommand_has_a_small_json_case():
    assert set(_subcommands()) == set(SMALL)


@pytest.mark.parametrize("command", sorted(SMALL))
def test_json_output_is_one_object(command, capsys):
    status = main([command, *SMALL[command], "--json"])
    assert status == 0
    data = json.loads(capsys.readouterr().out)
    assert isinstance(data, dict) and data


@pytest.mark.parametrize("command", sorted(SMALL))
def test_help_describes_the_command_and_cites_its_paper(command):
    parser = _subcommands()[command]
    assert parser.description and len(parser.description) > 80
    cites = NO_PAPER.get(command, PAPERS)
    assert any(words in parser.description for words in ((cites,) if isinstance(cites, str) else cites)), parser.description


def test_choices_need_no_shell_quoting():
    for name, parser in _subcommands().items():
        for action in parser._actions:
            for choice in action.choices or ():
                assert re.fullmatch(r"[A-Za-z0-9_.-]+", str(choice)), (name, action.dest, choice)


def test_chain_commands_offer_method_and_tolerance():
    """Every command that solves a Markov chain passes --method and --tolerance to the library."""
    for name in ("moldable", "multiserver-exact", "multiserver-saturation", "fairness-metrics"):
        options = {option for action in _subcommands()[name]._actions for option in action.option_strings}
        assert {"--method", "--tolerance"} <= options, name


def test_choices_are_the_library_names():
    """The parser offers policies and size laws without importing the library (start-up cost): the
    names written in the command modules must be the library's, in its order."""
    from analytic.cli import hesrpt, output, splitting
    from analytic.hesrpt.policies import POLICIES as HESRPT_POLICIES
    from analytic.simulation.laws import LAW_NAMES
    from analytic.splitting import EXACT_POLICIES, POLICIES

    assert output.SIZE_LAWS == tuple(LAW_NAMES)
    assert splitting.POLICIES == tuple(POLICIES) and splitting.EXACT_POLICIES == EXACT_POLICIES
    assert hesrpt.POLICIES == HESRPT_POLICIES


#: Modules no Erlang command and no --help needs (each costs a tenth of a second or more to import).
HEAVY = ("numba", "cvxpy", "networkx", "sympy", "scipy.sparse", "scipy.optimize", "scipy.stats", "tqdm")


def _imported_by(*argv):
    """The modules a fresh interpreter has imported after ``analytic ARGV`` (run in-process there)."""
    code = ("import contextlib, io, json, sys\nfrom analytic.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n        main(sys.argv[1:])\n    except SystemExit:\n        pass\n"
            "print(json.dumps(sorted(sys.modules)))")
    result = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return set(json.loads(result.stdout))


@pytest.mark.parametrize("argv", [["--help"], ["erlang-b", "--help"], ["multiserver-exact", "--help"],
                                  ["moldable", "--help"], ["hesrpt", "--help"], ["reproduce", "--help"]])
def test_help_imports_no_computing_module(argv):
    """Building the parser imports the standard library only: no numpy (what --help cost was ~0.9 s
    of CPU time, now ~0.06 s; benchmarks/startup.py measures it, no test times it)."""
    modules = _imported_by(*argv)
    assert not {"numpy", "scipy", "mpmath", *HEAVY} & modules


@pytest.mark.parametrize("command", ["erlang-b", "erlang-c", "erlang-b-servers", "erlang-b-offered-load"])
def test_erlang_commands_import_only_what_erlang_needs(command):
    modules = _imported_by(command, *SMALL[command])
    assert "analytic.erlang" in modules
    assert not set(HEAVY) & modules, set(HEAVY) & modules
    assert not {m for m in modules if m.startswith("analytic.") and m.split(".")[1] in (
        "ctmc", "moldable", "splitting", "hesrpt", "fairness", "partitioning", "simulation")}


@pytest.mark.parametrize("value,half_width,text", [
    (1.29174, 0.0312, "1.292 ± 0.031"),          # two significant digits, estimate to the same decimal
    (0.104778, 0.0123, "0.1048 ± 0.0123"),       # three when the first digit is 1
    (0.0996222, 0.0199, "0.0996 ± 0.0199"),
    (0.5, 0.0996, "0.50 ± 0.10"),                 # 0.0996 rounds to 0.10: two digits of 0.10
    (1.01, 0.02, "1.010 ± 0.020"),
    (-3.14159, 0.00996, "-3.142 ± 0.010"),
    (12345.6, 4567.0, "12300 ± 4600"),            # the last digit is the hundreds
    (2.3e-5, 1.1e-6, "2.300e-05 ± 1.10e-06"),     # beyond the sixth decimal: scientific, same last digit
    (1.2e9, 3.4e7, "1.200e+09 ± 3.4e+07"),
    (0.5, 0.0, "0.5 ± 0"), (0.5, float("nan"), "0.5 ± nan"),
])
def test_interval_rounds_to_the_half_width(value, half_width, text):
    """Expected texts worked by hand from the rule in analytic.cli.output.interval."""
    from analytic.cli.output import interval

    assert interval(value, half_width) == text


def test_lists_of_numbers_print_as_numbers(capsys):
    """`per class ['1.33333333333']` printed strings: M/M/2 at ρ = 1/2 has E[R] = 4/3 (test_cli_papers)."""
    assert main(["multiserver-exact", *SMALL["multiserver-exact"]]) == 0
    out = capsys.readouterr().out
    assert "per class [1.33333333333]" in out and "'" not in out
    assert main(["graph-gamma", *SMALL["graph-gamma"]]) == 0
    assert "mean number of templates [0.8]," in capsys.readouterr().out  # 1 - E_2(1) = 1 - 1/5 (test_cli_papers)


def test_simulation_intervals_print_with_matching_digits(capsys):
    """Estimates print as `value ± half-width` with the half-width's digits; --json keeps full precision."""
    from analytic.cli.output import interval

    assert main(["multiserver-simulate", *SMALL["multiserver-simulate"], "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert main(["multiserver-simulate", *SMALL["multiserver-simulate"]]) == 0
    out = capsys.readouterr().out
    assert f"E[R] = {interval(data['mean_response_time'], data['mean_response_time_half_width'])}\n" in out
    assert re.search(r"E\[R\] = \d\.\d+ ± 0\.\d+\n", out)
    assert len(repr(data["mean_response_time"])) > 8  # not rounded as printed


@pytest.mark.slow
def test_reproduce_table_fits_in_100_columns(capsys):
    """The rows of the Balanced Splitting paper have citations, values (ψ; s_i; |H|), verdicts and notes
    longer than their columns: they wrap, and --json keeps them whole."""
    assert main(["reproduce", "--only", "splitting.paper"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= 100
    assert lines[0].startswith("paper") and set(lines[1]) == {"-"}
    assert "does not hold under" in "\n".join(lines)
    assert main(["reproduce", "--only", "splitting.paper", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert "0.99451;23,2,8,14,15,9,4;69" in [row["paper_value"] for row in rows]  # Table 2 at k = 1024, whole
    assert "does not hold under this reading" in [row["verdict"] for row in rows]


def test_reproduce_table_wraps_every_long_field(capsys):
    """A row longer than every column: each line fits, and each field's words all appear."""
    from analytic import reproduce

    paper, value = "A long citation, Theorem 12, eqs. (31)-(32) of Section 4.2", "0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95"
    statement, note = "word " * 60, "note " * 60

    @reproduce.reproduces
    def _long_row():
        return reproduce.Row(paper, statement, value, "x" * 40, 1e-300, expect_agreement=False, kind="reading",
                             note=note)

    try:
        assert main(["reproduce", "--only", "_long_row"]) == 0
    finally:
        reproduce._REGISTRY.remove(_long_row)
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= 100
    text = " ".join(lines)
    assert all(word in text for word in (*paper.split(), "0.85,", "does", "reading"))
    assert "".join(line[53:70].strip() for line in lines[2:5]) == "x" * 40  # the analytic column, wrapped
    assert "".join(line[71:76].strip() for line in lines[2:5]) == "1e-300"  # the tolerance column, wrapped


@pytest.mark.slow
def test_reproduce_progress_goes_to_a_terminal_stderr_only():
    """With standard error on a terminal (a pty), tqdm's bar is drawn there; standard output holds the
    table alone. With standard error a pipe, no bar at all."""
    import fcntl
    import os
    import pty
    import struct
    import termios
    import threading

    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # tqdm draws nothing 0 wide
    drawn = []

    def read():
        with contextlib.suppress(OSError):  # EIO once the command has exited and all is read
            while chunk := os.read(controller, 65536):
                drawn.append(chunk)

    reader = threading.Thread(target=read)
    reader.start()
    try:
        result = subprocess.run([sys.executable, "-m", "analytic", "reproduce", "--only", "splitting.paper"],
                                stdout=subprocess.PIPE, stderr=terminal, text=True, timeout=300)
    finally:
        os.close(terminal)
        reader.join(timeout=60)
        os.close(controller)
    bar = b"".join(drawn)
    assert result.returncode == 0
    assert b"reproduce:" in bar and b"function" in bar  # tqdm's description and unit
    assert result.stdout.startswith("paper") and "\r" not in result.stdout and "function" not in result.stdout
    assert re.search(r"\n\n\d+ rows, 0 failed, computed in [\d.]+ s\n$", result.stdout)
    piped = run("reproduce", "--only", "splitting.paper")
    assert piped.returncode == 0 and piped.stderr == ""
    assert piped.stdout.splitlines()[:-1] == result.stdout.splitlines()[:-1]  # the same table (times differ)


@pytest.mark.parametrize("command", ["multiserver-simulate", "simulate"])
def test_the_old_jobs_option_still_counts_the_arrivals(capsys, command):
    """--jobs, renamed --arrivals (the number of arrivals a simulation runs), works for one release with a note."""
    old = [("--jobs" if argument == "--arrivals" else argument) for argument in SMALL[command]]
    assert main([command, *old, "--json"]) == 0
    captured = capsys.readouterr()
    assert "--jobs is renamed --arrivals" in captured.err
    assert main([command, *SMALL[command], "--json"]) == 0
    assert capsys.readouterr().out == captured.out
