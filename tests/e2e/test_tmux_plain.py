"""`stacks play --plain` in a real terminal (tmux): a whole game against a bot, typed key by
key from what the terminal shows. Needs tmux (``apt-get install tmux``).

The tmux server is this test's own (its own ``-L`` socket) and starts from an environment
without ``$TMUX``, so the test runs the same whether or not the suite itself runs in tmux.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import ROOT
from tests.e2e.test_plain import answer
from tests.support import wait_until
from tests.tmux_env import tmux_env

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install tmux)")
NUMBERED = re.compile(r"^(\d+)\. (.*)$")


class Terminal:
    """One tmux session on a private server, started from a clean environment."""

    def __init__(self, socket: str) -> None:
        self.socket = socket
        self.env = tmux_env()  # no outer TMUX, TMUX_PANE, COLUMNS or LINES

    def tmux(self, *args: str) -> str:
        assert TMUX is not None
        done = subprocess.run([TMUX, "-L", self.socket, *args], capture_output=True, text=True,
                              timeout=30, env=self.env)
        if done.returncode != 0:
            raise RuntimeError(f"tmux {args[0]}: {done.stderr.strip()}")
        return done.stdout

    def start(self, command: list[str], env: dict[str, str]) -> None:
        line = shlex.join(["env", *(f"{k}={v}" for k, v in env.items()), *command])
        # No user config; the whole game stays in the pane's history (set before the
        # pane exists: a pane keeps the limit it was made with).
        self.tmux("-f", "/dev/null", "start-server", ";",
                  "set-option", "-g", "history-limit", "20000", ";",
                  "new-session", "-d", "-s", "plain", "-x", "80", "-y", "24",
                  f"{line}; echo \"[exited $?]\"; sleep 600")

    def lines(self) -> list[str]:
        """Every line the program printed so far (wrapped lines joined)."""
        text = self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "plain")
        return [line.rstrip() for line in text.splitlines()]

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", "plain", "-l", text)
        self.tmux("send-keys", "-t", "plain", "Enter")

    def kill(self) -> None:
        assert TMUX is not None
        subprocess.run([TMUX, "-L", self.socket, "kill-server"], capture_output=True,
                       timeout=30, env=self.env)


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    term = Terminal(f"stacks-plain-{os.getpid()}")
    try:
        yield term
    finally:
        term.kill()


def test_plain_mode_plays_a_whole_game_in_a_terminal(terminal: Terminal, tmp_path: Path) -> None:
    env = {"STACKS_HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_STATE_HOME": str(tmp_path / "state"), "TERM": "xterm-256color",
           "PYTHONPATH": str(ROOT)}
    terminal.start([sys.executable, "-m", "stacks.cli", "play", "--plain", "--players", "2",
                    "--bots", "easy", "--seed", "11", "--bot-delay", "0", "--name", "Ana",
                    "--rule", "win_chips=3", "--rule", "win_min_each_colour=1"], env)
    answered = 0  # the number of the last line answered
    typed = 0
    shown: list[str] = []

    def ended_or_answered() -> bool:
        """Whether the program ended; else every new numbered line answered."""
        nonlocal shown, answered, typed
        shown = terminal.lines()
        if any(line.startswith("[exited") for line in shown):
            return True
        for line in shown:
            match = NUMBERED.match(line)
            if match is None or int(match.group(1)) <= answered:
                continue
            answered = int(match.group(1))
            reply = answer(match.group(2))
            if reply is not None:
                terminal.type(reply)
                typed += 1
        return False

    wait_until(ended_or_answered, "the game's end", 240, interval=0.1,
               diagnostics=lambda: "\n".join(shown[-30:]))
    texts = [m.group(2) for line in shown if (m := NUMBERED.match(line))]
    assert "[exited 0]" in shown, "\n".join(shown[-30:])
    assert typed > 3
    assert any(t.startswith("Game over: ") for t in texts), texts[-20:]
    assert any(t.startswith("Fair deal: verified") for t in texts), texts[-20:]
    assert not any("Traceback" in line for line in shown)
