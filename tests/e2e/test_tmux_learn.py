"""In a real terminal (tmux): ``stacks learn`` to its end, and the bell when a
networked table turns to you (tmux marks a window that rang: ``#{window_bell_flag}``).

Each test runs its own tmux server (``-L``), from an environment without ``$TMUX``, so it
runs the same whether or not the suite itself runs inside tmux. Needs tmux.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import ROOT, SCALE
from tests.tmux_env import tmux_env

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install tmux)")


class Terminals:
    """Sessions of one private tmux server, started from a clean environment."""

    def __init__(self, socket: str) -> None:
        self.socket = socket
        self.env = tmux_env()  # no outer TMUX, TMUX_PANE, COLUMNS or LINES

    def tmux(self, *args: str) -> str:
        assert TMUX is not None
        done = subprocess.run([TMUX, "-L", self.socket, "-f", "/dev/null", *args],
                              capture_output=True, text=True, timeout=30, env=self.env)
        if done.returncode != 0:
            raise RuntimeError(f"tmux {args[0]}: {done.stderr.strip()}")
        return done.stdout

    def start(self, name: str, command: list[str], env: dict[str, str]) -> None:
        line = shlex.join(["env", *(f"{k}={v}" for k, v in env.items()), *command])
        self.tmux("new-session", "-d", "-s", name, "-x", "80", "-y", "24",
                  f"{line}; echo '[exited]'; sleep 600")

    def keys(self, name: str, *keys: str) -> None:
        self.tmux("send-keys", "-t", name, *keys)

    def screen(self, name: str) -> str:
        return self.tmux("capture-pane", "-p", "-t", name)

    def rang(self, name: str) -> bool:
        """The bell rang in ``name``'s window (a detached session keeps the mark)."""
        return self.tmux("display-message", "-p", "-t", name, "#{window_bell_flag}") \
            .strip() == "1"

    def wait_for(self, name: str, text: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout * SCALE
        while time.monotonic() < deadline:
            screen = self.screen(name)
            if text in screen:
                return screen
            if "[exited]" in screen and text != "[exited]":
                raise AssertionError(f"{name}'s program ended:\n{screen}")
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never showed on {name}'s terminal:\n"
                             f"{self.screen(name)}")

    def kill(self) -> None:
        assert TMUX is not None
        subprocess.run([TMUX, "-L", self.socket, "kill-server"], capture_output=True,
                       timeout=30, env=self.env)


@pytest.fixture
def terminals() -> Iterator[Terminals]:
    server = Terminals(f"stacks-learn-{os.getpid()}")
    try:
        yield server
    finally:
        server.kill()


def _env(tmp_path: Path) -> dict[str, str]:
    return {"STACKS_HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data"),
            "XDG_STATE_HOME": str(tmp_path / "state"), "TERM": "xterm-256color",
            "PYTHONPATH": str(ROOT)}


STACKS = [sys.executable, "-m", "stacks.cli"]


def test_stacks_learn_teaches_every_card_to_you_re_ready_and_the_menu(
    terminals: Terminals, tmp_path: Path,
) -> None:
    t = terminals
    t.start("learn", [*STACKS, "learn"], _env(tmp_path))
    t.wait_for("learn", "A number card (1 of 10)")
    t.keys("learn", "1", "a")
    t.wait_for("learn", "A pile completion (2 of 10)")
    t.keys("learn", "1", "a")
    t.wait_for("learn", "Steal a Chip (3 of 10)")  # after Tutor passed the Block window
    t.keys("learn", "1", "p")
    t.wait_for("learn", "Take which colour")
    t.keys("learn", "Enter")
    t.wait_for("learn", "The discard ends your turn (4 of 10)")
    t.keys("learn", "1", "x")  # the Block: refused
    t.wait_for("learn", "Keep your Block")
    t.keys("learn", "2", "x")
    t.wait_for("learn", "A Block (5 of 10)")
    t.wait_for("learn", "Block it?")  # Tutor completed the blue pile
    t.keys("learn", "b")
    t.wait_for("learn", "Steal a Card (6 of 10)")
    t.keys("learn", "1", "p")  # your hand: Steal a Card, Skip, Red wild, Reverse
    t.wait_for("learn", "Take from")
    t.keys("learn", "Enter")
    t.wait_for("learn", "A wild card (7 of 10)")
    t.keys("learn", "2", "n")  # Skip, Red wild, Reverse, the stolen card
    t.wait_for("learn", "Skip (8 of 10)")
    t.keys("learn", "1", "p")
    t.wait_for("learn", "End the turn (9 of 10)")
    t.keys("learn", "1", "x")  # the Reverse: refused
    t.wait_for("learn", "Keep your Reverse")
    t.keys("learn", "2", "x")
    t.wait_for("learn", "Reverse (10 of 10)")
    t.keys("learn", "1", "p")
    screen = t.wait_for("learn", "You're ready")
    assert "turn is skipped" in screen  # Tutor's, in the log
    t.keys("learn", "Enter")
    t.wait_for("learn", "Play against bots")
    t.keys("learn", "q")
    t.wait_for("learn", "[exited]")


def _host_and_bot(t: Terminals, tmp_path: Path, embedded: str, table: str,
                  *flags: str) -> str:
    """Host ``table`` for two in a terminal; a bot takes the other seat; the screen at
    your first turn."""
    env = _env(tmp_path)
    t.start(table, [*STACKS, "host", "--players", "2", "--table", table, "--broker",
                    embedded, "--name", "Ana", "--profile", "ana", "--record",
                    str(tmp_path / f"{table}.json"), *flags], env)
    t.wait_for(table, "Waiting for 1 more player")
    assert not t.rang(table)  # nothing asked of you yet
    t.start(f"{table}-bot", [*STACKS, "bot", table, "--broker", embedded, "--think", "0.5",
                             "--profile", f"{table}-bot"], env)
    return t.wait_for(table, "YOUR TURN")


def test_the_bell_rings_when_a_networked_table_turns_to_you_and_not_with_no_bell(
    terminals: Terminals, tmp_path: Path, embedded: str,
) -> None:
    t = terminals
    _host_and_bot(t, tmp_path, embedded, "belltable")
    deadline = time.monotonic() + 30 * SCALE
    while not t.rang("belltable"):
        assert time.monotonic() < deadline, "no bell at your turn"
        time.sleep(0.1)

    _host_and_bot(t, tmp_path, embedded, "quiettable", "--no-bell")
    # The BEL would have come before the frame that shows YOUR TURN, on the same stream.
    t.wait_for("quiettable", "YOUR TURN")
    assert not t.rang("quiettable")
