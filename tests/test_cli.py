"""Tests of the `analytic` command, run as a subprocess exactly as users call it."""

import subprocess
import sys

from analytic.cli import main


def run(*args):
    return subprocess.run([sys.executable, "-m", "analytic", *args], capture_output=True, text=True, timeout=300)


def test_reproduce_prints_table_and_exits_zero():
    result = run("reproduce")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Erlang (1917), loss formula" in result.stdout
    assert ", 0 failed, computed in" in result.stdout


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
