"""CPU time of the ``analytic`` command before it computes: the Erlang calculators and ``--help``.

Run as ``python benchmarks/startup.py`` (about a minute), or ``--repeat N`` for N runs per command
(default 7).

Each command runs as a subprocess, the way a user calls it (the ``analytic`` script of the running
interpreter's environment, else ``python -m analytic``); its CPU time (user + system, from
``resource.getrusage(RUSAGE_CHILDREN)`` before and after) is the median over the runs. CPU time,
not wall time, so that other work on the machine does not count. Two baselines are timed in the
same run: ``python -c pass`` (the interpreter's own start) and ``python -c "import numpy"`` (what
any command that computes an array pays). Each command is printed with its ratio to both and
whether it meets the 0.3 s target of the Erlang commands and of ``--help``.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

#: CPU seconds an Erlang command or a ``--help`` may take (the issue "What a new user sees").
TARGET = 0.3

COMMANDS = {
    "erlang-b": ["erlang-b", "--servers", "10", "--offered-load", "7"],
    "erlang-b s=100 (Temme)": ["erlang-b", "--servers", "100", "--offered-load", "90"],   # erfcx without scipy.special
    "erlang-c": ["erlang-c", "--servers", "10", "--offered-load", "7"],
    "erlang-b-servers": ["erlang-b-servers", "--offered-load", "7", "--target", "0.01"],
    "erlang-b-offered-load": ["erlang-b-offered-load", "--servers", "10", "--target", "0.01"],
    "--help": ["--help"],
    "--version": ["--version"],
    "erlang-b --help": ["erlang-b", "--help"],
    "reproduce --help": ["reproduce", "--help"],
    "moldable --help": ["moldable", "--help"],
    "multiserver-exact --help": ["multiserver-exact", "--help"],
    "hesrpt --help": ["hesrpt", "--help"],
    "simulate --help": ["simulate", "--help"],
}


def command() -> list[str]:
    """The ``analytic`` script installed with this interpreter, or ``python -m analytic``."""
    script = Path(sys.executable).with_name("analytic")
    if script.exists():
        return [str(script)]
    found = shutil.which("analytic")
    return [found] if found else [sys.executable, "-m", "analytic"]


def cpu_seconds(argv: list[str], repeat: int) -> float:
    """Median CPU time (user + system) of ``argv`` run as a subprocess ``repeat`` times."""
    times = []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        result = subprocess.run(argv, capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} exited with {result.returncode}: {result.stderr.strip()}")
        times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(times)


def main(repeat: int) -> None:
    bare = cpu_seconds([sys.executable, "-c", "pass"], repeat)
    numpy = cpu_seconds([sys.executable, "-c", "import numpy"], repeat)
    analytic = command()
    print(f"CPU seconds, median of {repeat} runs, of {' '.join(analytic)} ...; target {TARGET} s")
    print(f"  baselines: python -c pass {bare:.3f} s, python -c 'import numpy' {numpy:.3f} s")
    print(f"  {'command':<26} {'CPU s':>7} {'/ pass':>7} {'/ numpy':>8}  target")
    for name, argv in COMMANDS.items():
        seconds = cpu_seconds([*analytic, *argv], repeat)
        verdict = "meets" if seconds <= TARGET else "MISSES"
        print(f"  {name:<26} {seconds:>7.3f} {seconds / bare:>7.1f} {seconds / numpy:>8.2f}  {verdict}", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs per command (default 7)")
    main(parser.parse_args().repeat)
