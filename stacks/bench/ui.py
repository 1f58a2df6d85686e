"""``stacks bench ui``: how the interface feels, measured in a real pseudo-terminal.

- cold start: from starting ``stacks`` (a new Python process) to the main menu's first
  frame on the terminal, beside a minimal Textual app (an ``App`` with one ``Static``)
  started and timed the same way, alternately, in the same run: their ratio is what
  ``stacks`` adds to Textual's own start (target 1.5x, moonshot 1.2x);
- key to repaint: on your turn in ``stacks play``, from writing a key to the terminal to
  the repainted table coming back (picking a card, then putting it back);
- idle CPU: what the process uses while nothing happens (the menu; a game waiting for you,
  with its broker, host and bots in the same process).

Everything runs as a person would run it: the ``stacks`` program in a terminal of 80x24.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import platform
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

MENU_MARK = b"Play against bots"
MINIMAL_MARK = b"A minimal Textual app"
MINIMAL_APP = f"""
from textual.app import App, ComposeResult
from textual.widgets import Static


class Minimal(App[None]):
    def compose(self) -> ComposeResult:
        yield Static({MINIMAL_MARK.decode()!r})


Minimal().run()
"""
"""The yardstick of the cold start: the least a Textual app imports and draws."""
TURN_MARK = b"YOUR TURN"
PICKED_MARK = b"Enter: highlighted"
UNPICKED_MARK = b"pick a card"
TIMEOUT = 30.0


class Terminal:
    """A program in a pseudo-terminal of ``columns`` x ``lines``; we read all it writes."""

    def __init__(self, argv: list[str], env: dict[str, str], columns: int = 80,
                 lines: int = 24) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env,
                                     start_new_session=True, close_fds=True)
        os.close(slave)
        self.master = master
        self.output = bytearray()

    def read_until(self, mark: bytes, start: int = 0, timeout: float = TIMEOUT) -> float:
        """Read until ``mark`` shows after byte ``start``; the time it showed."""
        deadline = time.perf_counter() + timeout
        while True:
            found = self.output.find(mark, start)
            if found >= 0:
                return time.perf_counter()
            left = deadline - time.perf_counter()
            if left <= 0 or self.proc.poll() is not None:
                raise TimeoutError(f"{mark.decode()!r} never showed")
            ready, _, _ = select.select([self.master], [], [], min(left, 0.5))
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    chunk = b""
                self.output += chunk

    def drain(self, seconds: float) -> None:
        """Keep reading (the program must not block on a full terminal) for ``seconds``."""
        end = time.perf_counter() + seconds
        while (left := end - time.perf_counter()) > 0:
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                with contextlib.suppress(OSError):
                    self.output += os.read(self.master, 65536)

    def settle(self, quiet: float = 0.05, limit: float = 2.0) -> None:
        """Read until the program has written nothing for ``quiet`` seconds."""
        end = time.perf_counter() + limit
        while time.perf_counter() < end:
            ready, _, _ = select.select([self.master], [], [], quiet)
            if not ready:
                return
            with contextlib.suppress(OSError):
                self.output += os.read(self.master, 65536)

    def press(self, key: bytes) -> tuple[int, float]:
        """Write a key once the screen is still; (the output offset, the time written)."""
        self.settle()
        offset = len(self.output)
        os.write(self.master, key)
        return offset, time.perf_counter()

    def cpu_seconds(self) -> float:
        """User + system CPU time of the program so far (Linux /proc)."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = int(fields[11]) + int(fields[12])
        return ticks / os.sysconf("SC_CLK_TCK")

    def idle_cpu(self, seconds: float) -> float:
        """Per cent of one core used over ``seconds`` while nobody presses anything."""
        before = self.cpu_seconds()
        self.drain(seconds)
        return 100.0 * (self.cpu_seconds() - before) / seconds

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self.master, b"\x11")  # ctrl+q
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(5)
        with contextlib.suppress(OSError):
            os.close(self.master)


def _stacks() -> list[str]:
    script = Path(sys.executable).with_name("stacks")
    return [str(script)] if script.exists() else [sys.executable, "-m", "stacks.cli"]


def _env(home: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(TERM="xterm-256color", COLORTERM="truecolor", STACKS_HOME=home,
               XDG_DATA_HOME=home, XDG_STATE_HOME=home, XDG_CACHE_HOME=home)
    env.pop("TEXTUAL", None)
    return env


def measure_cold_start(runs: int, home: str) -> tuple[list[float], list[float], float]:
    """Seconds from starting ``stacks`` to the menu's first frame, and from starting the
    minimal Textual app to its first frame, started alternately (so both see the same
    machine); idle CPU % of the menu."""
    times: list[float] = []
    minimal: list[float] = []
    idle = 0.0
    for run in range(runs):
        term = Terminal(_stacks(), _env(home))
        try:
            shown = term.read_until(MENU_MARK)
            times.append(shown - term.started)
            if run == runs - 1:
                term.drain(1.0)
                idle = term.idle_cpu(3.0)
        finally:
            term.close()
        term = Terminal([sys.executable, "-c", MINIMAL_APP], _env(home))
        try:
            shown = term.read_until(MINIMAL_MARK)
            minimal.append(shown - term.started)
        finally:
            term.close()
    return times, minimal, idle


def read_any(term: Terminal, marks: tuple[bytes, ...], start: int) -> float:
    deadline = time.perf_counter() + TIMEOUT
    while True:
        for mark in marks:
            if term.output.find(mark, start) >= 0:
                return time.perf_counter()
        if time.perf_counter() > deadline:
            raise TimeoutError(f"none of {marks} showed")
        term.drain(0.001)


def measure_moves(term: Terminal, moves: int) -> list[float]:
    """Seconds from Enter (doing the hinted move) to the table showing it: the move goes
    to the host through the broker and comes back as a batch, as at any table."""
    times: list[float] = []
    deadline = time.perf_counter() + TIMEOUT * moves
    while len(times) < moves:
        if time.perf_counter() > deadline:
            raise TimeoutError("the game did not come back to us")
        term.drain(0.05)
        offset, _ = term.press(b"i")  # a hint shows only on our turn
        try:
            term.read_until(b"Hint:", offset, timeout=0.5)
        except TimeoutError:
            continue
        term.drain(0.05)
        offset, sent = term.press(b"\r")
        shown = read_any(term, (b" played", b" started a", b" discarded"), offset)
        times.append(shown - sent)
    return times


def measure_keys(presses: int, home: str) -> tuple[list[float], list[float], float]:
    """Seconds from a key to the repainted table, alternately picking a card and putting
    it back, on your turn of a game against a bot; then moves sent to the host and shown;
    idle CPU % of that game."""
    argv = [*_stacks(), "play", "--players", "2", "--seed", "1", "--bot-delay", "0",
            "--name", "bench"]
    term = Terminal(argv, _env(home))
    times: list[float] = []
    try:
        term.read_until(TURN_MARK)
        term.drain(1.0)
        for n in range(presses):
            picked = n % 2 == 0
            offset, sent = term.press(b"1")  # the same number picks, then puts back
            shown = term.read_until(PICKED_MARK if picked else UNPICKED_MARK, offset)
            times.append(shown - sent)
        idle = term.idle_cpu(5.0)
        moves = measure_moves(term, max(2, presses // 10))  # each needs our turn again
    finally:
        term.close()
    return times, moves, idle


def _summary(times: list[float]) -> dict[str, float]:
    ms = sorted(t * 1000 for t in times)
    return {
        "runs": len(ms),
        "min_ms": round(ms[0], 1),
        "p50_ms": round(statistics.median(ms), 1),
        "p90_ms": round(ms[min(len(ms) - 1, int(len(ms) * 0.9))], 1),
        "max_ms": round(ms[-1], 1),
    }


def run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="stacks-bench-") as home:
        cold, minimal, menu_idle = measure_cold_start(args.starts, home)
        keys, moves, game_idle = measure_keys(args.keys, home)
    report = {
        "benchmark": "ui",
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_1min": round(os.getloadavg()[0], 2),
        "cold_start_to_first_frame": _summary(cold),
        "minimal_textual_app_to_first_frame": _summary(minimal),
        "cold_start_ratio": round(statistics.median(cold) / statistics.median(minimal), 2),
        "key_to_repainted_table": _summary(keys),
        "move_to_table_updated_via_host": _summary(moves),
        "idle_cpu_percent": {"menu": round(menu_idle, 2), "game_waiting_for_you": round(
            game_idle, 2)},
        "targets": {"cold_start_ms": 1000, "cold_start_ratio": 1.5,
                    "cold_start_ratio_moonshot": 1.2, "key_to_repaint_ms": 50,
                    "idle_cpu": "near 0"},
    }
    if args.json:
        print(json.dumps(report))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"interface in an 80x24 pseudo-terminal, Python {report['python']}, "
                  f"{report['cpus']} CPUs, load {report['load_1min']}")
    for column in ("measure", "runs", "min", "p50", "p90", "max", "target"):
        table.add_column(column, justify="right")
    for name, key, target in (("cold start to first frame", "cold_start_to_first_frame",
                               "≤ 1000 ms"),
                              ("minimal Textual app to first frame",
                               "minimal_textual_app_to_first_frame", ""),
                              ("key to repainted table", "key_to_repainted_table", "≤ 50 ms"),
                              ("move to table updated (via host)",
                               "move_to_table_updated_via_host", "")):
        row = report[key]
        assert isinstance(row, dict)
        table.add_row(name, str(row["runs"]), f"{row['min_ms']} ms", f"{row['p50_ms']} ms",
                      f"{row['p90_ms']} ms", f"{row['max_ms']} ms", target)
    console = Console()
    console.print(table)
    console.print(f"cold start: {report['cold_start_ratio']}x a minimal Textual app (p50 "
                  "against p50, started alternately; target ≤ 1.5x, moonshot 1.2x)")
    console.print(f"idle CPU: menu {menu_idle:.2f} % of a core; a game waiting for you "
                  f"(broker, host and bot in the process) {game_idle:.2f} %")
    return 0
