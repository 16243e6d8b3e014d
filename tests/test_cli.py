"""Tests of the `analytic` command, run as a subprocess exactly as users call it."""

import json
import re
import subprocess
import sys

import pytest

from analytic.cli import main


def run(*args):
    return subprocess.run([sys.executable, "-m", "analytic", *args], capture_output=True, text=True, timeout=300)


def test_reproduce_prints_table_and_exits_zero():
    """The command's table and exit status (one cheap row: test_reproduce runs every row)."""
    result = run("reproduce", "--only", "_erlang_loss_rows")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Erlang (1917), loss formula" in result.stdout
    assert ", 0 failed, computed in" in result.stdout


def test_reproduce_only_matching_nothing_is_an_error():
    """--only nonexistent printed an empty table and exited 0: now a usage error listing what --only matches against."""
    result = run("reproduce", "--only", "nonexistent")
    assert result.returncode == 2 and result.stdout == ""
    message = result.stderr.strip()
    assert message.startswith("analytic reproduce: error: --only 'nonexistent' matches no row: it selects the row "
                              "functions whose 'module.function' name contains the text, and these are ")
    assert "analytic.erlang: _lemma1_rows" in message and "analytic.ctmc.chain: _erlang_loss_rows, _product_form_row" in message


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
    "erlang-b": ["--servers", "10", "--load", "7"],
    "erlang-c": ["--servers", "10", "--load", "7"],
    "erlang-b-servers": ["--load", "7", "--target", "0.01"],
    "erlang-b-load": ["--servers", "10", "--target", "0.01"],
    "moldable": ["--speedup", "1", "1.8", "--arrival-rate", "0.8", "--servers", "4"],
    "bs-partition": ["--servers", "8", "--class", "1:0.6:1", "--class", "2:0.4:1.5", "--load", "0.4"],
    "multiserver-simulate": ["fcfs", "--servers", "2", "--class", "1:1:1", "--load", "0.5", "--jobs", "2000", "--seed", "1"],
    "multiserver-exact": ["fcfs", "--servers", "2", "--class", "1:1:1", "--load", "0.5"],
    "multiserver-saturation": ["--servers", "2", "--class", "1:0.5:1", "--class", "2:0.5:1"],
    "hesrpt": ["--sizes", "1", "2", "--p", "0.5", "--servers", "10"],
    "fairness-stability": ["--servers-of", "0,2", "1,2", "--capacities", "1", "1", "1", "--arrival-rates", "1", "1"],
    "fairness-metrics": ["--servers-of", "0,2", "1,2", "--capacities", "1", "1", "1", "--arrival-rates", "1", "1"],
    "graph-gamma": ["--slots", "2", "2", "--nodes", "2", "--edges", "0-1"],
    "graph-pi-star": ["--slots", "2", "2", "--nodes", "2", "--edges", "0-1", "--queue-weights", "1", "--beta", "0.5"],
    "graph-static": ["--slots", "2", "2", "--nodes", "2", "--edges", "0-1"],
    "simulate": ["--servers", "2", "--load", "1", "--jobs", "2000", "--seed", "1"],
    "compare": ["--exact", "1", "--estimate", "1.01", "--half-width", "0.02", "--samples", "10"],
}

#: Words of the bibliographic citation each command's --help must contain.
PAPERS = ("Ghanbarian", "Anselmi & Doncel", "Berg, Vesilo & Harchol-Balter", "Bonald & Comte", "Ghaderi", "Erlang")
#: Commands that compute no paper's result, and what their description says instead.
NO_PAPER = {"compare": "Your own simulation against an exact value"}


def _subcommands():
    from analytic.cli import _parser

    action = next(a for a in _parser()._actions if a.dest == "command")
    return action.choices


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
